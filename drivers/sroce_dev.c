// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA device: `rdma link add NAME type sroce netdev DEV` creates one
 * ib_device with a single RoCEv2 port bound to DEV; `rdma link del NAME`,
 * netdev removal and module unload remove it.
 *
 * The port follows its netdev: ACTIVE while the netdev is up with carrier,
 * DOWN otherwise, with IB port events on every change, and an active MTU
 * derived from the netdev MTU. The RDMA core fills the GID table with
 * RoCEv2 GIDs for the netdev's IPv4 and IPv6 addresses itself, because the
 * port is RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP and bound with
 * ib_device_set_netdev().
 *
 * The device reports driver id RDMA_DRIVER_RXE and user ABI version 2 so
 * that the stock rdma-core rxe provider binds to it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_netlink.h>

#include "sroce_ah.h"
#include "sroce_cc_sysfs.h"
#include "sroce_compat.h"
#include "sroce_counters.h"
#include "sroce_cq.h"
#include "sroce_dev.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_net.h"
#include "sroce_odp.h"
#include "sroce_param.h"
#include "sroce_pma.h"
#include "sroce_qp.h"
#include "sroce_qp_res.h"
#include "sroce_srq.h"
#include "sroce_queue.h"
#include "sroce_verbs.h"
#include "sroce_xmit.h"

static enum ib_mtu sroce_mtu_from_netdev(unsigned int ndev_mtu)
{
	if (ndev_mtu < SROCE_MAX_HDR_LEN + 256)
		return IB_MTU_256;
	return ib_mtu_int_to_enum(ndev_mtu - SROCE_MAX_HDR_LEN);
}

static int sroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *uhw)
{
	/* The rxe provider passes no vendor data here. */
	if (uhw->inlen || uhw->outlen)
		return -EINVAL;
	*attr = to_sdev(ibdev)->attr;
	return 0;
}

/*
 * The IB speed and width an Ethernet rate is shown as, by the rule of
 * ib_get_eth_speed(), which takes RTNL on every call (and an unprivileged
 * ibv_query_port() would take it as often as it likes): the rate comes
 * from the notifier's cache instead.
 */
static void sroce_dev_eth_speed(u32 mbps, u16 *speed, u8 *width)
{
	if (mbps <= SPEED_1000) {
		*width = IB_WIDTH_1X;
		*speed = IB_SPEED_SDR;
	} else if (mbps <= SPEED_10000) {
		*width = IB_WIDTH_1X;
		*speed = IB_SPEED_FDR10;
	} else if (mbps <= SPEED_20000) {
		*width = IB_WIDTH_4X;
		*speed = IB_SPEED_DDR;
	} else if (mbps <= SPEED_25000) {
		*width = IB_WIDTH_1X;
		*speed = IB_SPEED_EDR;
	} else if (mbps <= SPEED_40000) {
		*width = IB_WIDTH_4X;
		*speed = IB_SPEED_FDR10;
	} else {
		*width = IB_WIDTH_4X;
		*speed = IB_SPEED_EDR;
	}
}

static int sroce_query_port(struct ib_device *ibdev, u32 port_num,
			    struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	/* The core zeroed *attr. */
	spin_lock_bh(&sdev->port_lock);
	attr->state = sdev->port_state;
	attr->active_mtu = sdev->active_mtu;
	spin_unlock_bh(&sdev->port_lock);

	attr->max_mtu = IB_MTU_4096;
	attr->gid_tbl_len = SROCE_PORT_GID_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_PORT_MAX_MSG_SZ;
	attr->pkey_tbl_len = SROCE_MAX_PKEYS;
	attr->max_vl_num = 1;

	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (dev_get_flags(sdev->ndev) & IFF_UP)
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;

	sroce_dev_eth_speed(sroce_dev_link_mbps(sdev), &attr->active_speed,
			    &attr->active_width);
	return 0;
}

static int sroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				    struct ib_port_immutable *immutable)
{
	/* RoCEv2 only: every GID the core adds is a UDP-encapsulated one. */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = SROCE_MAX_PKEYS;
	immutable->gid_tbl_len = SROCE_PORT_GID_TBL_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int sroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			    u16 *pkey)
{
	/* RoCE has only the default partition (IBTA Annex A16/A17). */
	if (index >= SROCE_MAX_PKEYS)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
						 u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

static ssize_t parent_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(device, struct sroce_dev, ibdev);

	return sysfs_emit(buf, "%s\n", netdev_name(sdev->ndev));
}
static DEVICE_ATTR_RO(parent);

static struct attribute *sroce_dev_attrs[] = {
	&dev_attr_parent.attr,
	NULL
};

static const struct attribute_group sroce_dev_attr_group = {
	.attrs = sroce_dev_attrs,
};

/*
 * The last op the core calls, once every object is gone: from
 * ib_dealloc_device() on a failed newlink, or after unregistration.
 */
static void sroce_dev_dealloc(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	sroce_net_unbind(sdev);
	sroce_mr_cleanup(sdev);
	WARN_ON(!xa_empty(&sdev->qps));
	xa_destroy(&sdev->qps);
	WARN_ON(!xa_empty(&sdev->ahs));
	xa_destroy(&sdev->ahs);
	WARN_ON(atomic_long_read(&sdev->resp_inq_bytes));
	sroce_mcast_table_destroy(&sdev->mcast);
	sroce_counters_destroy(&sdev->counters);
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
}

static int sroce_dev_enable(struct ib_device *ibdev);

static const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = SROCE_UVERBS_ABI_VERSION,

	.advise_mr = sroce_odp_advise_mr,
	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.alloc_mr = sroce_alloc_mr,
	.alloc_mw = sroce_alloc_mw,
	.alloc_pd = sroce_alloc_pd,
	.alloc_ucontext = sroce_alloc_ucontext,
	.attach_mcast = sroce_attach_mcast,
	.create_ah = sroce_create_ah,
	.create_cq = sroce_compat_create_cq,
	.create_qp = sroce_create_qp,
	.create_srq = sroce_create_srq,
	.create_user_ah = sroce_create_ah,
	.dealloc_driver = sroce_dev_dealloc,
	.dealloc_mw = sroce_dealloc_mw,
	.dealloc_pd = sroce_dealloc_pd,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.dereg_mr = sroce_dereg_mr,
	.destroy_ah = sroce_destroy_ah,
	.destroy_cq = sroce_destroy_cq,
	.destroy_qp = sroce_destroy_qp,
	.destroy_srq = sroce_destroy_srq,
	.detach_mcast = sroce_detach_mcast,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	.enable_driver = sroce_dev_enable,
	.device_group = &sroce_dev_attr_group,
	.fill_res_qp_entry = sroce_fill_res_qp_entry,
	.get_dma_mr = sroce_get_dma_mr,
	.get_hw_stats = sroce_get_hw_stats,
	.get_link_layer = sroce_get_link_layer,
	.get_port_immutable = sroce_get_port_immutable,
	.map_mr_sg = sroce_map_mr_sg,
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
	.modify_qp = sroce_modify_qp,
	.modify_srq = sroce_modify_srq,
	.poll_cq = sroce_poll_cq,
	.port_groups = sroce_cc_sysfs_port_groups,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.post_srq_recv = sroce_post_srq_recv,
	.process_mad = sroce_process_mad,
	.query_device = sroce_query_device,
	.query_pkey = sroce_query_pkey,
	.query_port = sroce_query_port,
	.query_qp = sroce_query_qp,
	.query_srq = sroce_query_srq,
	.reg_user_mr = sroce_reg_user_mr,
	.req_notify_cq = sroce_req_notify_cq,
	.resize_cq = sroce_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
};

static void sroce_init_attr(struct sroce_dev *sdev)
{
	struct ib_device_attr *attr = &sdev->attr;

	attr->vendor_id = SROCE_VENDOR_ID;
	attr->max_mr_size = U64_MAX;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_qp = SROCE_MAX_QP;
	attr->max_qp_wr = SROCE_MAX_QP_WR;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	sroce_odp_caps(attr);
	attr->max_send_sge = SROCE_MAX_SGE;
	attr->max_recv_sge = SROCE_MAX_SGE;
	attr->max_sge_rd = SROCE_MAX_SGE;
	attr->max_cq = SROCE_MAX_CQ;
	attr->max_cqe = SROCE_MAX_CQE;
	attr->max_mr = SROCE_MAX_MR;
	/* Memory windows share the MR key table and its limit. */
	attr->max_mw = SROCE_MAX_MR;
	attr->max_fast_reg_page_list_len = SROCE_MAX_FAST_REG_PAGES;
	/*
	 * What applications test before they rely on it (rdma-core's
	 * test_resize_srq skips without SRQ_RESIZE): all of it implemented.
	 */
	attr->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS |
				  IB_DEVICE_MEM_WINDOW |
				  IB_DEVICE_MEM_WINDOW_TYPE_2B |
				  IB_DEVICE_SRQ_RESIZE |
				  IB_DEVICE_RC_RNR_NAK_GEN |
				  IB_DEVICE_PORT_ACTIVE_EVENT |
				  IB_DEVICE_SYS_IMAGE_GUID;
	/*
	 * As rdma_rxe reports it (6.2 on): in device_cap_flags_ex of
	 * ibv_query_device_ex(), on 64-bit kernels, which have the 8-byte
	 * store (sroce_mr_run()).
	 */
	if (IS_ENABLED(CONFIG_64BIT))
		attr->device_cap_flags |= SROCE_DEVICE_ATOMIC_WRITE;
	attr->max_pd = SROCE_MAX_PD;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_qp_rd_atom = SROCE_MAX_QP_RD_ATOM;
	attr->max_qp_init_rd_atom = SROCE_MAX_QP_RD_ATOM;
	attr->max_res_rd_atom = SROCE_MAX_QP_RD_ATOM * SROCE_MAX_QP;
	attr->max_ah = SROCE_MAX_AH;
	attr->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = SROCE_MAX_TOT_MCAST_QP_ATTACH;
	attr->max_srq = SROCE_MAX_SRQ;
	attr->max_srq_wr = SROCE_MAX_SRQ_WR;
	attr->max_srq_sge = SROCE_MAX_SRQ_SGE;
	attr->max_pkeys = SROCE_MAX_PKEYS;
	attr->local_ca_ack_delay = SROCE_LOCAL_CA_ACK_DELAY;
	addrconf_addr_eui48((unsigned char *)&attr->sys_image_guid,
			    sdev->ndev->dev_addr);
}

/*
 * The link rate the DCQCN rate starts from and recovers to, from the
 * cache sroce_port_update() fills. A link that does not report one
 * (virtio) counts as 1000 Mb/s. Context: any; takes no lock.
 */
u32 sroce_dev_link_mbps(struct sroce_dev *sdev)
{
	u32 speed = READ_ONCE(sdev->link_mbps);

	return speed && speed != (u32)SPEED_UNKNOWN ? speed : SPEED_1000;
}

/*
 * Recompute the port from its netdev and report a change. Called with RTNL
 * held from the notifier, and once after registration for events that fell
 * into the window before the device could be found.
 */
static void sroce_port_update(struct sroce_dev *sdev)
{
	struct net_device *ndev = sdev->ndev;
	enum ib_port_state new_state, old_state;
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = 1,
	};
	struct ethtool_link_ksettings ks;
	u32 speed = 0;

	ASSERT_RTNL();
	new_state = netif_running(ndev) && netif_carrier_ok(ndev) ?
		    IB_PORT_ACTIVE : IB_PORT_DOWN;
	/* Speed changes come with a carrier change (NETDEV_CHANGE). */
	if (!__ethtool_get_link_ksettings(ndev, &ks))
		speed = ks.base.speed;
	WRITE_ONCE(sdev->link_mbps, speed);

	spin_lock_bh(&sdev->port_lock);
	old_state = sdev->port_state;
	sdev->port_state = new_state;
	sdev->active_mtu = sroce_mtu_from_netdev(READ_ONCE(ndev->mtu));
	spin_unlock_bh(&sdev->port_lock);

	if (new_state == old_state)
		return;
	if (new_state == IB_PORT_ACTIVE) {
		ev.event = IB_EVENT_PORT_ACTIVE;
	} else {
		ev.event = IB_EVENT_PORT_ERR;
		sroce_counter_inc(&sdev->counters, SROCE_CNT_LINK_DOWNED);
	}
	ib_dispatch_event(&ev);
	ibdev_info(&sdev->ibdev, "port %s\n",
		   new_state == IB_PORT_ACTIVE ? "active" : "down");
}

/*
 * The core enables a device at registration (newlink binds it afterwards)
 * and again after `rdma dev set DEV netns NS` has moved it. While it was
 * disabled, ib_device_try_get() failed and the netdev notifier could not
 * find it, so a move of its netdev in that window went unseen: the device
 * would still hold the sockets of the namespace the netdev left. Follow
 * the netdev now, as the notifier would have.
 */
static int sroce_dev_enable(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	rtnl_lock();
	if (sdev->was_enabled && sdev->ndev->reg_state == NETREG_REGISTERED) {
		sroce_xmit_dev_freeze_routes(sdev);
		if (sroce_net_bind(sdev))
			ib_unregister_device_queued(ibdev);
		else
			sroce_xmit_dev_thaw_routes(sdev);
		sroce_port_update(sdev);
	}
	sdev->was_enabled = true;
	rtnl_unlock();
	return 0;
}

/**
 * sroce_dev_get_by_netdev() - find the sroce device bound to a netdev
 * @ndev: the netdev
 *
 * Context: any, including softirq.
 * Return: the device with a reference held (drop it with sroce_dev_put()),
 * or NULL.
 */
struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev)
{
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (!ibdev)
		return NULL;
	/* Only ours: the driver id alone is shared with rdma_rxe. */
	if (ibdev->ops.query_device != sroce_query_device) {
		ib_device_put(ibdev);
		return NULL;
	}
	return to_sdev(ibdev);
}

void sroce_dev_put(struct sroce_dev *sdev)
{
	ib_device_put(&sdev->ibdev);
}

static int sroce_dev_add(const char *ibdev_name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	int err;

	if (ndev->type != ARPHRD_ETHER || is_vlan_dev(ndev)) {
		pr_err("%s: %s is not an Ethernet device (VLANs use the real device's GIDs)\n",
		       ibdev_name, netdev_name(ndev));
		return -EINVAL;
	}
	sdev = sroce_dev_get_by_netdev(ndev);
	if (sdev) {
		pr_err("%s: %s already has RDMA device %s\n", ibdev_name,
		       netdev_name(ndev), dev_name(&sdev->ibdev.dev));
		sroce_dev_put(sdev);
		return -EEXIST;
	}

	sdev = ib_alloc_device(sroce_dev, ibdev);
	if (!sdev)
		return -ENOMEM;

	sdev->ndev = ndev;
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	/*
	 * From here ib_dealloc_device() calls sroce_dev_dealloc(), which
	 * drops the netdev and destroys what follows: set up before anything
	 * can fail.
	 */
	ib_set_device_ops(&sdev->ibdev, &sroce_dev_ops);
	xa_init_flags(&sdev->qps, XA_FLAGS_ALLOC);
	INIT_LIST_HEAD(&sdev->route_qps);
	mutex_init(&sdev->route_qps_lock);
	sroce_ah_table_init(&sdev->ahs);
	sdev->next_ah_num = 1;
	sroce_mr_init(sdev);
	sroce_mcast_table_init(&sdev->mcast, SROCE_MAX_MCAST_GRP,
			       SROCE_MAX_MCAST_QP_ATTACH,
			       SROCE_MAX_TOT_MCAST_QP_ATTACH);
	spin_lock_init(&sdev->port_lock);
	sdev->port_state = IB_PORT_DOWN;
	sdev->active_mtu = sroce_mtu_from_netdev(READ_ONCE(ndev->mtu));
	sroce_init_attr(sdev);
	sroce_cc_params_init_defaults(&sdev->cc_params);
	err = sroce_counters_init(&sdev->counters);
	if (err)
		goto err_dealloc;

	strscpy(sdev->ibdev.node_desc, SROCE_NODE_DESC,
		sizeof(sdev->ibdev.node_desc));
	sdev->ibdev.node_type = RDMA_NODE_IB_CA;
	sdev->ibdev.phys_port_cnt = 1;
	sdev->ibdev.num_comp_vectors = num_possible_cpus();
	sdev->ibdev.node_guid = sdev->attr.sys_image_guid;
	/* The rxe provider rings the send doorbell and arms CQs with these. */
	sdev->ibdev.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				       BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

	err = ib_device_set_netdev(&sdev->ibdev, ndev, 1);
	if (err)
		goto err_dealloc;

	/*
	 * Once registered the device is anyone's: `rdma link del` (the core
	 * runs newlink and dellink side by side) or the netdev's
	 * unregistration may free it before ib_register_device() returns.
	 * The memory is held across, and the device itself while binding, so
	 * that sroce_dev_dealloc()'s unbind comes after the bind.
	 */
	get_device(&sdev->ibdev.dev);
	err = ib_register_device(&sdev->ibdev, ibdev_name, NULL);
	if (err) {
		put_device(&sdev->ibdev.dev);
		goto err_dealloc;
	}

	/*
	 * Under RTNL the netdev stays where it is: bind to its namespace's
	 * sockets. The netdev was found by name without RTNL, so it may have
	 * gone meanwhile, before the notifier could see this device.
	 */
	rtnl_lock();
	/*
	 * Not gettable: being unregistered (link del, netdev gone), which
	 * looks to the user like an add followed by a delete, or disabled
	 * for `rdma dev set netns`, whose re-enable binds it
	 * (sroce_dev_enable()). Either way the add itself succeeded.
	 */
	if (!ib_device_try_get(&sdev->ibdev)) {
		err = 0;
		goto out_unlock;
	}
	err = ndev->reg_state == NETREG_REGISTERED ? sroce_net_bind(sdev) : -ENODEV;
	if (err)
		ib_unregister_device_queued(&sdev->ibdev);
	else
		sroce_port_update(sdev);
	ib_device_put(&sdev->ibdev);
out_unlock:
	rtnl_unlock();
	put_device(&sdev->ibdev.dev);
	return err;

err_dealloc:
	ib_dealloc_device(&sdev->ibdev);
	return err;
}

/*
 * Serialises link creation: the core runs newlink under a read lock only,
 * and two `rdma link add` for one netdev must not both find it free.
 */
static DEFINE_MUTEX(sroce_dev_newlink_lock);

int sroce_dev_newlink(const char *ibdev_name, struct net_device *ndev)
{
	int err;

	mutex_lock(&sroce_dev_newlink_lock);
	err = sroce_dev_add(ibdev_name, ndev);
	mutex_unlock(&sroce_dev_newlink_lock);
	return err;
}

static int sroce_dev_netdev_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sroce_dev *sdev;

	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_UNREGISTER:
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		break;
	default:
		return NOTIFY_DONE;
	}

	sdev = sroce_dev_get_by_netdev(ndev);
	if (!sdev)
		return NOTIFY_DONE;
	sroce_mcast_netdev_event(sdev, event);
	switch (event) {
	case NETDEV_UNREGISTER:
		sroce_net_unbind(sdev);
		sroce_xmit_dev_freeze_routes(sdev);
		/* Still registered: moving to another namespace. */
		if (ndev->reg_state != NETREG_REGISTERED)
			ib_unregister_device_queued(&sdev->ibdev);
		break;
	case NETDEV_REGISTER:
		/* Arrived from another namespace: follow it there. */
		if (sroce_net_bind(sdev))
			ib_unregister_device_queued(&sdev->ibdev);
		else
			sroce_xmit_dev_thaw_routes(sdev);
		break;
	default:
		sroce_port_update(sdev);
	}
	sroce_dev_put(sdev);
	return NOTIFY_OK;
}

static struct notifier_block sroce_dev_netdev_notifier = {
	.notifier_call = sroce_dev_netdev_event,
};

static struct rdma_link_ops sroce_link_ops = {
	.type = "sroce",
	.newlink = sroce_dev_newlink,
};

int sroce_dev_init(void)
{
	int err;

	sroce_cc_sysfs_init();
	err = register_netdevice_notifier(&sroce_dev_netdev_notifier);
	if (err)
		return err;
	rdma_link_register(&sroce_link_ops);
	return 0;
}

void sroce_dev_exit(void)
{
	/*
	 * No new links after this; then remove the ones that exist. Every
	 * RDMA_DRIVER_RXE device is ours: rdma_rxe cannot load while sroce
	 * holds port 4791, and sroce does not load while rdma_rxe does.
	 */
	rdma_link_unregister(&sroce_link_ops);
	ib_unregister_driver(RDMA_DRIVER_RXE);
	unregister_netdevice_notifier(&sroce_dev_netdev_notifier);
}
