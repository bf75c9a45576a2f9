// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast for UD QPs (IBTA vol 1; RoCEv2 Annex A17 for the addresses).
 *
 * A RoCEv2 MGID is an IP multicast address: IPv4 ones in v4-mapped form
 * (::ffff:224.0.0.0/100), IPv6 ones as they are (ff00::/8). attach_mcast
 * puts a UD QP in the device's group of that MGID; the first QP makes
 * the netdev a member of the group, the last one to leave (detach or QP
 * destroy) ends that membership. Membership is two things here:
 *  - dev_mc_add() of the group's MAC (01:00:5e + low 23 bits for IPv4,
 *    33:33 + low 32 bits for IPv6), so the NIC's filter passes the frames;
 *  - an IP-level join (ip_mc_inc_group(), ipv6_dev_mc_inc()), because the
 *    IP layer drops a multicast datagram for a group the host has not
 *    joined before it reaches a socket (ip_route_input_mc(),
 *    ip6_mc_input()). sroce's UDP sockets join no group themselves: bound
 *    to the wildcard address with IP(V6)_MULTICAST_ALL on, they then get
 *    every datagram to port 4791 for a joined group. rdma_cm joins IPv4
 *    groups for its users too (cma_igmp_send()); both joins are counted
 *    by the IP layer, so either may leave first.
 *
 * The kernel drops a netdev's IP group state with it when the netdev
 * leaves its namespace or its MTU falls below the protocol's minimum (68
 * for IPv4, 1280 for IPv6), and a move also empties the MAC filter: the
 * notifier notes which (generations in the table) and a work item joins
 * the groups again once the netdev has that state back; a leave leaves
 * only what the kernel has not dropped since the join.
 *
 * Sending needs nothing special: a UD WQE names an AH whose destination
 * is the group's address and the multicast QPN 0xFFFFFF; routing resolves
 * the multicast MAC and loops a copy back to this host when it is a
 * member, so local QPs attached to the group receive it as well.
 *
 * Receiving: a packet to QPN 0xFFFFFF with a multicast destination
 * address goes to each QP attached to the group of that address, each a
 * copy of the skb (sharing the data) that then passes the QP's own UD
 * checks (state, Q_Key) and receive queue. A packet for a group with no
 * QP here, to QPN 0xFFFFFF at a unicast address, or to a multicast
 * address and another QPN, is dropped (counted as for no QP).
 */
#include <linux/etherdevice.h>
#include <linux/hash.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "sroce_anchor.h"
#include "sroce_counters.h"
#include "sroce_dev.h"
#include "sroce_mcast.h"
#include "sroce_pkt.h"
#include "sroce_qp.h"
#include "sroce_ud.h"

/**
 * sroce_mcast_gid_to_addr() - the IP and MAC address of a RoCEv2 MGID
 * @mgid: the multicast GID
 * @addr: filled on success
 *
 * Return: 0, or -EINVAL when @mgid is neither a v4-mapped IPv4 multicast
 * address nor an IPv6 multicast address.
 */
int sroce_mcast_gid_to_addr(const union ib_gid *mgid,
			    struct sroce_mcast_addr *addr)
{
	const struct in6_addr *a = (const struct in6_addr *)mgid->raw;

	memset(addr, 0, sizeof(*addr));
	if (ipv6_addr_v4mapped(a)) {
		__be32 v4 = a->s6_addr32[3];
		u32 h = ntohl(v4);

		if (!ipv4_is_multicast(v4))
			return -EINVAL;
		addr->family = AF_INET;
		addr->ip.v4 = v4;
		/* RFC 1112 6.4: 01:00:5e and the low 23 bits. */
		addr->mac[0] = 0x01;
		addr->mac[1] = 0x00;
		addr->mac[2] = 0x5e;
		addr->mac[3] = (h >> 16) & 0x7f;
		addr->mac[4] = (h >> 8) & 0xff;
		addr->mac[5] = h & 0xff;
		return 0;
	}
	if (!ipv6_addr_is_multicast(a))
		return -EINVAL;
	addr->family = AF_INET6;
	addr->ip.v6 = *a;
	/* RFC 2464 7: 33:33 and the low 32 bits. */
	addr->mac[0] = 0x33;
	addr->mac[1] = 0x33;
	memcpy(&addr->mac[2], &a->s6_addr[12], 4);
	return 0;
}

static void sroce_mcast_rejoin_work(struct work_struct *work);

void sroce_mcast_table_init(struct sroce_mcast_table *tbl,
			    unsigned int max_grps, unsigned int max_qp_attach,
			    unsigned int max_total_attach)
{
	unsigned int i;

	mutex_init(&tbl->lock);
	for (i = 0; i < ARRAY_SIZE(tbl->hash); i++)
		INIT_HLIST_HEAD(&tbl->hash[i]);
	tbl->hash_seed = get_random_u32();
	tbl->num_grps = 0;
	tbl->num_attach = 0;
	tbl->max_grps = max_grps;
	tbl->max_qp_attach = max_qp_attach;
	tbl->max_total_attach = max_total_attach;
	tbl->ip_gen[0] = 0;
	tbl->ip_gen[1] = 0;
	tbl->mac_gen = 0;
	INIT_WORK(&tbl->rejoin, sroce_mcast_rejoin_work);
}

/*
 * Free what is left; the device's QPs are all gone by now, so only a
 * KUnit table can still hold groups. No reader can run any more.
 */
void sroce_mcast_table_destroy(struct sroce_mcast_table *tbl)
{
	struct sroce_mcast_member *m, *mn;
	struct sroce_mcast_grp *grp;
	struct hlist_node *n;
	unsigned int i;

	cancel_work_sync(&tbl->rejoin);
	for (i = 0; i < ARRAY_SIZE(tbl->hash); i++) {
		hlist_for_each_entry_safe(grp, n, &tbl->hash[i], node) {
			list_for_each_entry_safe(m, mn, &grp->qps, node)
				kfree(m);
			hlist_del(&grp->node);
			kfree(grp);
		}
	}
	tbl->num_grps = 0;
	tbl->num_attach = 0;
	mutex_destroy(&tbl->lock);
}

static struct hlist_head *sroce_mcast_bucket(struct sroce_mcast_table *tbl,
					     const union ib_gid *mgid)
{
	u32 h = jhash(mgid->raw, sizeof(mgid->raw), tbl->hash_seed);

	return &tbl->hash[hash_32(h, SROCE_MCAST_HASH_BITS)];
}

/* Under rcu_read_lock() or the table's lock. */
struct sroce_mcast_grp *sroce_mcast_grp_find(struct sroce_mcast_table *tbl,
					     const union ib_gid *mgid)
{
	struct sroce_mcast_grp *grp;

	hlist_for_each_entry_rcu(grp, sroce_mcast_bucket(tbl, mgid), node,
				 lockdep_is_held(&tbl->lock))
		if (!memcmp(grp->mgid.raw, mgid->raw, sizeof(mgid->raw)))
			return grp;
	return NULL;
}

static struct sroce_mcast_member *
sroce_mcast_member_find(struct sroce_mcast_grp *grp,
			const struct sroce_anchor *qp)
{
	struct sroce_mcast_member *m;

	list_for_each_entry(m, &grp->qps, node)
		if (m->qp == qp)
			return m;
	return NULL;
}

/**
 * sroce_mcast_table_attach() - add @qp to the group of @mgid
 * @tbl: the table, its lock held
 * @mgid: the group
 * @qp: the QP's anchor (only compared, never dereferenced)
 * @created: set when this made a new group
 *
 * A QP already in the group stays there once (0, nothing counted).
 * Return: 0, -EINVAL for an MGID that is no multicast address, or -ENOMEM
 * when the device's group, per-group or total attach limit is reached or
 * memory is short.
 */
int sroce_mcast_table_attach(struct sroce_mcast_table *tbl,
			     const union ib_gid *mgid, struct sroce_anchor *qp,
			     bool *created)
{
	struct sroce_mcast_member *m;
	struct sroce_mcast_grp *grp;
	struct sroce_mcast_addr addr;

	lockdep_assert_held(&tbl->lock);
	*created = false;
	if (sroce_mcast_gid_to_addr(mgid, &addr))
		return -EINVAL;

	grp = sroce_mcast_grp_find(tbl, mgid);
	if (grp && sroce_mcast_member_find(grp, qp))
		return 0;
	if (tbl->num_attach >= tbl->max_total_attach ||
	    (grp && grp->num_qps >= tbl->max_qp_attach) ||
	    (!grp && tbl->num_grps >= tbl->max_grps))
		return -ENOMEM;

	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return -ENOMEM;
	m->qp = qp;
	if (!grp) {
		grp = kzalloc(sizeof(*grp), GFP_KERNEL_ACCOUNT);
		if (!grp) {
			kfree(m);
			return -ENOMEM;
		}
		grp->mgid = *mgid;
		grp->addr = addr;
		INIT_LIST_HEAD(&grp->qps);
		hlist_add_head_rcu(&grp->node, sroce_mcast_bucket(tbl, mgid));
		tbl->num_grps++;
		*created = true;
	}
	list_add_tail_rcu(&m->node, &grp->qps);
	grp->num_qps++;
	tbl->num_attach++;
	return 0;
}

/*
 * Remove member @m from @grp, and @grp when @m was its last: then 1, with
 * the group's address in *@left; else 0. Table lock held.
 */
static int sroce_mcast_member_remove(struct sroce_mcast_table *tbl,
				     struct sroce_mcast_grp *grp,
				     struct sroce_mcast_member *m,
				     struct sroce_mcast_addr *left)
{
	list_del_rcu(&m->node);
	kfree_rcu(m, rcu);
	grp->num_qps--;
	tbl->num_attach--;
	if (grp->num_qps)
		return 0;

	*left = grp->addr;
	hlist_del_rcu(&grp->node);
	kfree_rcu(grp, rcu);
	tbl->num_grps--;
	return 1;
}

/**
 * sroce_mcast_table_detach() - remove @qp from the group of @mgid
 * @tbl: the table, its lock held
 * @mgid: the group
 * @qp: the QP's anchor
 * @left: the group's address when this removed the group
 *
 * Return: 0 when the group keeps other QPs, 1 when @qp was its last and
 * the group is gone, -EINVAL when @qp is not in the group.
 */
int sroce_mcast_table_detach(struct sroce_mcast_table *tbl,
			     const union ib_gid *mgid, struct sroce_anchor *qp,
			     struct sroce_mcast_addr *left)
{
	struct sroce_mcast_member *m;
	struct sroce_mcast_grp *grp;

	lockdep_assert_held(&tbl->lock);
	grp = sroce_mcast_grp_find(tbl, mgid);
	m = grp ? sroce_mcast_member_find(grp, qp) : NULL;
	if (!m)
		return -EINVAL;
	return sroce_mcast_member_remove(tbl, grp, m, left);
}

/**
 * sroce_mcast_table_detach_qp() - remove @qp from every group it is in
 * @tbl: the table, its lock held
 * @qp: the QP's anchor
 * @left: called with the address of each group that went with @qp
 * @ctx: for @left
 *
 * One pass over the table, rescheduling between buckets: a process may
 * have attached its UD QPs to thousands of groups each, and exits.
 * Context: process, may sleep.
 */
void sroce_mcast_table_detach_qp(struct sroce_mcast_table *tbl,
				 struct sroce_anchor *qp,
				 void (*left)(void *ctx,
					      const struct sroce_mcast_addr *addr),
				 void *ctx)
{
	struct sroce_mcast_member *m;
	struct sroce_mcast_addr addr;
	struct sroce_mcast_grp *grp;
	struct hlist_node *tmp;
	unsigned int i;

	lockdep_assert_held(&tbl->lock);
	for (i = 0; i < ARRAY_SIZE(tbl->hash) && tbl->num_attach; i++) {
		hlist_for_each_entry_safe(grp, tmp, &tbl->hash[i], node) {
			m = sroce_mcast_member_find(grp, qp);
			if (m && sroce_mcast_member_remove(tbl, grp, m, &addr))
				left(ctx, &addr);
		}
		cond_resched();
	}
}

/* The IP-level part of a join. Caller holds RTNL. */
static int sroce_mcast_ip_join(struct net_device *ndev,
			       const struct sroce_mcast_addr *addr)
{
	struct in_device *in_dev;

	if (addr->family == AF_INET6)
		return ipv6_dev_mc_inc(ndev, &addr->ip.v6);
	in_dev = __in_dev_get_rtnl(ndev);
	if (!in_dev)
		return -ENODEV;
	ip_mc_inc_group(in_dev, addr->ip.v4);
	return 0;
}

/* The IP-level part of a leave. Caller holds RTNL. */
static void sroce_mcast_ip_leave(struct net_device *ndev,
				 const struct sroce_mcast_addr *addr)
{
	struct in_device *in_dev;

	if (addr->family == AF_INET6) {
		ipv6_dev_mc_dec(ndev, &addr->ip.v6);
		return;
	}
	in_dev = __in_dev_get_rtnl(ndev);
	if (in_dev)
		ip_mc_dec_group(in_dev, addr->ip.v4);
}

static u32 *sroce_mcast_ip_gen(struct sroce_mcast_table *tbl,
			       const struct sroce_mcast_addr *addr)
{
	return &tbl->ip_gen[addr->family == AF_INET6];
}

/*
 * Make @ndev a member of the group at @addr (see the file comment) and
 * note the generations the join belongs to.
 */
static int sroce_mcast_join(struct sroce_mcast_table *tbl,
			    struct net_device *ndev,
			    struct sroce_mcast_addr *addr)
{
	int err;

	rtnl_lock();
	err = dev_mc_add(ndev, addr->mac);
	if (!err) {
		err = sroce_mcast_ip_join(ndev, addr);
		if (err)
			dev_mc_del(ndev, addr->mac);
	}
	addr->ip_gen = *sroce_mcast_ip_gen(tbl, addr);
	addr->mac_gen = tbl->mac_gen;
	rtnl_unlock();
	return err;
}

/* Leave what the kernel has not dropped since the join itself. */
static void sroce_mcast_leave(struct sroce_mcast_table *tbl,
			      struct net_device *ndev,
			      const struct sroce_mcast_addr *addr)
{
	rtnl_lock();
	if (addr->ip_gen == *sroce_mcast_ip_gen(tbl, addr))
		sroce_mcast_ip_leave(ndev, addr);
	if (addr->mac_gen == tbl->mac_gen)
		dev_mc_del(ndev, addr->mac);
	rtnl_unlock();
}

/*
 * Join every group again whose IP or MAC membership the kernel dropped,
 * where the netdev has that state again (a move's new namespace, an MTU
 * back up). A part that cannot be joined now stays old for a next try.
 */
static void sroce_mcast_rejoin_work(struct work_struct *work)
{
	struct sroce_mcast_table *tbl =
		container_of(work, struct sroce_mcast_table, rejoin);
	struct sroce_dev *sdev = container_of(tbl, struct sroce_dev, mcast);
	struct sroce_mcast_grp *grp;
	u32 *gen;
	unsigned int i;

	mutex_lock(&tbl->lock);
	rtnl_lock();
	/*
	 * Unregistered while this waited for RTNL: its address lists were
	 * flushed for the last time, and free_netdev() does not flush them.
	 */
	if (sdev->ndev->reg_state != NETREG_REGISTERED)
		goto out;
	for (i = 0; i < ARRAY_SIZE(tbl->hash); i++) {
		hlist_for_each_entry(grp, &tbl->hash[i], node) {
			gen = sroce_mcast_ip_gen(tbl, &grp->addr);
			if (grp->addr.mac_gen != tbl->mac_gen &&
			    !dev_mc_add(sdev->ndev, grp->addr.mac))
				grp->addr.mac_gen = tbl->mac_gen;
			if (grp->addr.ip_gen != *gen &&
			    !sroce_mcast_ip_join(sdev->ndev, &grp->addr))
				grp->addr.ip_gen = *gen;
		}
	}
out:
	rtnl_unlock();
	mutex_unlock(&tbl->lock);
}

void sroce_mcast_netdev_event(struct sroce_dev *sdev, unsigned long event)
{
	struct sroce_mcast_table *tbl = &sdev->mcast;
	unsigned int mtu = READ_ONCE(sdev->ndev->mtu);

	ASSERT_RTNL();
	switch (event) {
	case NETDEV_UNREGISTER:
		/* Leaving its namespace: the IP state and the filter go. */
		tbl->ip_gen[0]++;
		tbl->ip_gen[1]++;
		tbl->mac_gen++;
		return;
	case NETDEV_CHANGEMTU:
		/* inetdev_event() and addrconf_notify() drop the IP state. */
		if (mtu < IPV4_MIN_MTU)
			tbl->ip_gen[0]++;
		if (mtu < IPV6_MIN_MTU)
			tbl->ip_gen[1]++;
		break;
	case NETDEV_REGISTER:
	case NETDEV_UP:
		break;
	default:
		return;
	}
	/* Joining takes tbl->lock, which is taken before RTNL. */
	if (READ_ONCE(tbl->num_grps))
		queue_work(system_wq, &tbl->rejoin);
}

int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_mcast_table *tbl = &sdev->mcast;
	struct sroce_mcast_addr addr;
	bool created;
	int err;

	/* IBTA: only UD QPs join multicast groups; QP1 does not. */
	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;

	mutex_lock(&tbl->lock);
	err = sroce_mcast_table_attach(tbl, mgid, to_sqp(ibqp)->anchor,
				       &created);
	if (!err)
		to_sqp(ibqp)->mcast_attached = true;
	if (!err && created) {
		err = sroce_mcast_join(tbl, sdev->ndev,
				       &sroce_mcast_grp_find(tbl, mgid)->addr);
		if (err)
			sroce_mcast_table_detach(tbl, mgid,
						 to_sqp(ibqp)->anchor, &addr);
	}
	mutex_unlock(&tbl->lock);
	return err;
}

int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_mcast_table *tbl = &sdev->mcast;
	struct sroce_mcast_addr addr;
	int ret;

	mutex_lock(&tbl->lock);
	ret = sroce_mcast_table_detach(tbl, mgid, to_sqp(ibqp)->anchor,
				       &addr);
	if (ret == 1)
		sroce_mcast_leave(tbl, sdev->ndev, &addr);
	mutex_unlock(&tbl->lock);
	return ret < 0 ? ret : 0;
}

/* The last QP of a group is gone: so is the device's membership. */
static void sroce_mcast_left(void *ctx, const struct sroce_mcast_addr *addr)
{
	struct sroce_dev *sdev = ctx;

	sroce_mcast_leave(&sdev->mcast, sdev->ndev, addr);
}

void sroce_mcast_qp_destroy(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_mcast_table *tbl = &sdev->mcast;

	if (qp->ibqp.qp_type != IB_QPT_UD)
		return;
	mutex_lock(&tbl->lock);
	if (qp->mcast_attached)
		sroce_mcast_table_detach_qp(tbl, qp->anchor, sroce_mcast_left,
					    sdev);
	mutex_unlock(&tbl->lock);
}

bool sroce_mcast_dst(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return ipv4_is_multicast(ip_hdr(skb)->daddr);
	return ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
}

/* The MGID of a packet's destination address, if it is multicast. */
static bool sroce_mcast_pkt_mgid(const struct sk_buff *skb,
				 union ib_gid *mgid)
{
	struct in6_addr *a = (struct in6_addr *)mgid->raw;

	if (skb->protocol == htons(ETH_P_IP)) {
		if (!ipv4_is_multicast(ip_hdr(skb)->daddr))
			return false;
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, a);
		return true;
	}
	*a = ipv6_hdr(skb)->daddr;
	return ipv6_addr_is_multicast(a);
}

void sroce_mcast_recv(struct sroce_dev *sdev, struct sk_buff *skb,
		      struct sroce_pkt *pkt)
{
	struct sroce_counters *cnt = &sdev->counters;
	struct sroce_qp *qp, *prev = NULL;
	struct sroce_mcast_member *m;
	struct sroce_mcast_grp *grp;
	struct sk_buff *copy;
	union ib_gid mgid;

	/*
	 * IBTA: a multicast packet is addressed to the multicast QPN, and
	 * that QPN is for multicast packets only.
	 */
	if (pkt->qpn != IB_MULTICAST_QPN || !sroce_mcast_pkt_mgid(skb, &mgid)) {
		sroce_counter_inc(cnt, SROCE_CNT_RCVD_NO_QP);
		kfree_skb(skb);
		return;
	}

	rcu_read_lock();
	grp = sroce_mcast_grp_find(&sdev->mcast, &mgid);
	if (grp) {
		sroce_counter_inc(cnt, SROCE_CNT_MCAST_RCVD);
		list_for_each_entry_rcu(m, &grp->qps, node) {
			qp = sroce_anchor_tryget(m->qp);
			/* Being destroyed: it is about to leave. */
			if (!qp)
				continue;
			/* Each QP but the last gets a clone sharing the data. */
			if (prev) {
				copy = skb_clone(skb, GFP_ATOMIC);
				if (copy) {
					sroce_counter_inc(cnt,
							  SROCE_CNT_MCAST_COPIES);
					sroce_ud_recv(prev, copy, pkt);
				} else {
					sroce_counter_inc(cnt,
							  SROCE_CNT_UD_RECV_DROPPED);
				}
				sroce_qp_put(prev);
			}
			prev = qp;
		}
	}
	rcu_read_unlock();

	if (!prev) {
		sroce_counter_inc(cnt, SROCE_CNT_MCAST_NO_QP);
		kfree_skb(skb);
		return;
	}
	sroce_counter_inc(cnt, SROCE_CNT_MCAST_COPIES);
	sroce_ud_recv(prev, skb, pkt);
	sroce_qp_put(prev);
}
