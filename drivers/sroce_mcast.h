/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Multicast for UD QPs: the per-device table of groups (MGID -> attached
 * QPs), the netdev's membership of each group's IP and MAC address, and
 * the delivery of a multicast packet to every QP attached to its group.
 */
#ifndef _SROCE_MCAST_H
#define _SROCE_MCAST_H

#include <linux/if_ether.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

struct sk_buff;
struct sroce_dev;
struct sroce_pkt;
struct sroce_anchor;
struct sroce_qp;

#define SROCE_MCAST_HASH_BITS	8

/* Where a group's packets go on the wire (RoCEv2 Annex A17). */
struct sroce_mcast_addr {
	int family;			/* AF_INET or AF_INET6 */
	union {
		__be32 v4;
		struct in6_addr v6;
	} ip;
	u8 mac[ETH_ALEN];
	/*
	 * The generations of the netdev's IP and MAC multicast state
	 * (sroce_mcast_table) this group's join was made in; under RTNL.
	 */
	u32 ip_gen, mac_gen;
};

/*
 * One group. Readers (the receive softirq) find it and walk @qps under
 * RCU; writers hold the table's lock. Freed after a grace period.
 */
struct sroce_mcast_grp {
	struct hlist_node node;
	union ib_gid mgid;
	struct sroce_mcast_addr addr;
	struct list_head qps;		/* struct sroce_mcast_member */
	unsigned int num_qps;
	struct rcu_head rcu;
};

struct sroce_mcast_member {
	struct list_head node;
	struct sroce_anchor *qp;	/* no reference: destroy_qp detaches */
	struct rcu_head rcu;
};

/* The device's groups, hashed by MGID. */
struct sroce_mcast_table {
	/*
	 * Serialises attach, detach and QP destroy, and protects the counts;
	 * a mutex because joining the netdev's groups sleeps. The hash
	 * chains and member lists are RCU lists for the receive path.
	 */
	struct mutex lock;
	struct hlist_head hash[1 << SROCE_MCAST_HASH_BITS];
	/*
	 * Random per table: a local user cannot pick MGIDs that all share
	 * the bucket of a group the host receives, whose every packet
	 * walks its bucket in softirq.
	 */
	u32 hash_seed;
	unsigned int num_grps;
	unsigned int num_attach;
	unsigned int max_grps;		/* max_mcast_grp */
	unsigned int max_qp_attach;	/* max_mcast_qp_attach */
	unsigned int max_total_attach;	/* max_total_mcast_qp_attach */
	/*
	 * Generations of the netdev's IPv4 and IPv6 group state and of its
	 * MAC filter, under RTNL: the notifier moves one on when the kernel
	 * drops every membership of the netdev with it (a namespace move,
	 * an MTU too small for the protocol), and rejoin joins each group
	 * again whose join is older, once the state is back.
	 */
	u32 ip_gen[2];			/* [0] IPv4, [1] IPv6 */
	u32 mac_gen;
	struct work_struct rejoin;
};

/*
 * The netdev notifier's @event for @sdev's netdev, with RTNL held: note
 * what the kernel dropped of its groups, and join them again later.
 */
void sroce_mcast_netdev_event(struct sroce_dev *sdev, unsigned long event);

/* Pure rules and the bare table, exported for KUnit. */
int sroce_mcast_gid_to_addr(const union ib_gid *mgid,
			    struct sroce_mcast_addr *addr);
void sroce_mcast_table_init(struct sroce_mcast_table *tbl,
			    unsigned int max_grps, unsigned int max_qp_attach,
			    unsigned int max_total_attach);
void sroce_mcast_table_destroy(struct sroce_mcast_table *tbl);
struct sroce_mcast_grp *sroce_mcast_grp_find(struct sroce_mcast_table *tbl,
					     const union ib_gid *mgid);
int sroce_mcast_table_attach(struct sroce_mcast_table *tbl,
			     const union ib_gid *mgid, struct sroce_anchor *qp,
			     bool *created);
int sroce_mcast_table_detach(struct sroce_mcast_table *tbl,
			     const union ib_gid *mgid, struct sroce_anchor *qp,
			     struct sroce_mcast_addr *left);
void sroce_mcast_table_detach_qp(struct sroce_mcast_table *tbl,
				 struct sroce_anchor *qp,
				 void (*left)(void *ctx,
					      const struct sroce_mcast_addr *addr),
				 void *ctx);

/* Verbs (process context, may sleep). */
int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);

/* destroy_qp: leave every group @qp is still attached to. May sleep. */
void sroce_mcast_qp_destroy(struct sroce_qp *qp);

/* Is a received packet's destination IP address a multicast one? */
bool sroce_mcast_dst(const struct sk_buff *skb);

/*
 * sroce_mcast_recv() - a packet for the multicast QPN or to a multicast
 * address from sroce_recv() (softirq, ICRC and P_Key checked): a copy to
 * each QP attached to the group of its destination IP address, if it is
 * both. Consumes @skb.
 */
void sroce_mcast_recv(struct sroce_dev *sdev, struct sk_buff *skb,
		      struct sroce_pkt *pkt);

#endif /* _SROCE_MCAST_H */
