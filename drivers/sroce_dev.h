/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sroce RDMA device: one ib_device with one RoCEv2 port bound to an
 * Ethernet netdev.
 */
#ifndef _SROCE_DEV_H
#define _SROCE_DEV_H

#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "sroce_cc_params.h"
#include "sroce_counters.h"
#include "sroce_mcast.h"

struct net_device;

struct sroce_dev {
	struct ib_device ibdev;

	/*
	 * The netdev the port is bound to, with a reference of our own
	 * (ndev_tracker) from newlink to sroce_dev_dealloc(): the core
	 * drops its own (ib_device_set_netdev()) while sysfs readers of
	 * the port (query_port, parent) may still run.
	 */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	/*
	 * The namespace whose RoCEv2 sockets the device holds (sroce_net.c,
	 * which also owns sock_node), NULL while its netdev is between
	 * namespaces. Both under sroce_net.c's sroce_net_lock.
	 */
	struct net *sock_net;
	struct hlist_node sock_node;

	/* Filled before registration, constant afterwards. */
	struct ib_device_attr attr;

	/*
	 * port_lock protects port_state and active_mtu: the netdev notifier
	 * writes them, query_port and the data path read them.
	 */
	spinlock_t port_lock;
	enum ib_port_state port_state;
	enum ib_mtu active_mtu;
	/*
	 * The netdev's link speed in Mb/s as the notifier last read it under
	 * RTNL (0: not reported). Written with WRITE_ONCE(), read with
	 * READ_ONCE() (sroce_dev_link_mbps()), so that the data path and
	 * modify_qp never take RTNL.
	 */
	u32 link_mbps;
	/*
	 * Set by the notifier from the moment it empties the QPs' route
	 * caches until the netdev has arrived in its new namespace
	 * (sroce_xmit_dev_freeze_routes()); the data path reads it with BH
	 * disabled and leaves the caches alone while it is set.
	 */
	bool routes_frozen;
	/*
	 * Every QP that has a route cache, on its route_node, from
	 * sroce_xmit_qp_init() to sroce_xmit_qp_cleanup(): a QP being
	 * destroyed has left qps but may still hold a route, which a freeze
	 * must release too. Under route_qps_lock, a mutex: a freeze may
	 * walk thousands of QPs and reschedules between them.
	 */
	struct list_head route_qps;
	struct mutex route_qps_lock;	/* protects route_qps */
	/*
	 * sroce_dev_enable() has run: a later call is the core enabling the
	 * device again after `rdma dev set DEV netns`. Under RTNL.
	 */
	bool was_enabled;

	/* The last QP serial handed out (sroce_qp.h). */
	atomic64_t qp_serials;
	/* Bytes the ODP MRs span, at most the host's RAM (sroce_odp.c). */
	atomic64_t odp_bytes;
	/*
	 * Truesize of the received requests waiting behind busy responders,
	 * all QPs together, at most SROCE_RESP_INQ_DEV_BYTES (sroce_resp.c).
	 */
	atomic_long_t resp_inq_bytes;

	/* Objects alive, checked against the limits in attr. */
	atomic_t num_pds;
	atomic_t num_cqs;
	atomic_t num_qps;
	atomic_t num_mrs;
	atomic_t num_ahs;
	atomic_t num_srqs;

	/*
	 * Object tables; each xarray's own lock serialises writers, readers
	 * look up under RCU and take the object's reference.
	 *   qps: QPN -> struct sroce_qp (sroce_qp.c)
	 *   mrs: key >> 8 -> struct sroce_mr (sroce_mr.c)
	 *   ahs: ah_num -> struct sroce_ah (sroce_ah.c)
	 */
	struct xarray qps;
	u32 next_qpn;
	struct xarray mrs;
	u32 next_mr_index;
	struct xarray ahs;
	u32 next_ah_num;

	/* Multicast groups of UD QPs (sroce_mcast.c, own lock). */
	struct sroce_mcast_table mcast;

	struct sroce_counters counters;

	/*
	 * DCQCN and ECN parameters, written through sysfs (sroce_cc_sysfs.c)
	 * with WRITE_ONCE() at any time, read by the data path with
	 * READ_ONCE(); no lock.
	 */
	struct sroce_cc_params cc_params;
};

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

/* sroce_dev.c */
int sroce_dev_newlink(const char *ibdev_name, struct net_device *ndev);
struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev);
void sroce_dev_put(struct sroce_dev *sdev);
u32 sroce_dev_link_mbps(struct sroce_dev *sdev);
int sroce_dev_init(void);
void sroce_dev_exit(void);

#endif /* _SROCE_DEV_H */
