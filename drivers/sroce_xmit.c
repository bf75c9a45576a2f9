// SPDX-License-Identifier: GPL-2.0
/*
 * Sending RoCEv2 packets for a QP (RoCEv2 Annex A17.4): the UDP header with
 * the QP's entropy source port and destination port 4791, an IPv4 (DF,
 * no options) or IPv6 header from the QP's address vector, the ICRC, and
 * ip_local_out()/ip6_local_out(), so that the packets pass netfilter and
 * the qdisc like any other traffic and tc can shape and mark them.
 *
 * A packet for an address of this host is not sent through lo: it is
 * handed to sroce_recv() with the headers laid out as the UDP socket
 * would deliver them. The receive path may answer (an ACK, a READ
 * response) from inside that call, which would recurse and could meet
 * locks its caller holds; so only the outermost loopback on a CPU
 * delivers, and packets looped back from inside a delivery wait on a
 * per-CPU list that it drains before returning (as the core does for
 * dev_queue_xmit() recursion).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/dst_cache.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>

#include "sroce_compat.h"
#include "sroce_counters.h"
#include "sroce_dev.h"
#include "sroce_icrc.h"
#include "sroce_net.h"
#include "sroce_pkt.h"
#include "sroce_qp.h"
#include "sroce_recv.h"
#include "sroce_train.h"
#include "sroce_xmit.h"

/* Loopback packets waiting for the outermost delivery on this CPU. */
struct sroce_xmit_lo {
	struct sk_buff *head;
	struct sk_buff *tail;
	bool busy;		/* a delivery runs on this CPU */
};

/* Accessed with BH disabled only. */
static DEFINE_PER_CPU(struct sroce_xmit_lo, sroce_xmit_lo);

/* A looped-back packet remembers its device until it is delivered. */
struct sroce_xmit_lo_cb {
	struct sroce_dev *sdev;
};

static inline struct sroce_xmit_lo_cb *sroce_xmit_lo_cb(struct sk_buff *skb)
{
	return (struct sroce_xmit_lo_cb *)skb->cb;
}

/*
 * The TOS / traffic class byte of a data packet: the DSCP of the address
 * vector's traffic class, or the device's roce_dscp when that is 0; ECT(0)
 * when ECN is enabled, unless the application chose ECN bits itself. The
 * ICRC masks this byte (RoCEv2 Annex A17.4.3), so switches may mark CE.
 */
static u8 sroce_xmit_tos(const struct sroce_qp *qp, const struct sroce_av *av)
{
	const struct sroce_cc_params *p = &to_sdev(qp->ibqp.device)->cc_params;
	u8 tc = av->traffic_class;
	u8 dscp = tc >> 2;
	u8 ecn = tc & INET_ECN_MASK;

	if (!dscp)
		dscp = READ_ONCE(p->roce_dscp) & 0x3f;
	if (!ecn && READ_ONCE(p->ecn_enable))
		ecn = INET_ECN_ECT_0;
	return dscp << 2 | ecn;
}

/*
 * An skb for @qp's packets to @av with @room bytes after the headers. Its
 * headroom fits an IPv6 header whatever @av says: a connected QP's address
 * vector may change between building a packet and sending it (SQD -> SQD
 * in a drained SQ while the responder answers), and the family that counts
 * is the one __sroce_xmit() finds.
 */
static struct sk_buff *sroce_xmit_skb(struct sroce_qp *qp,
				      const struct sroce_av *av,
				      unsigned int room)
{
	struct net_device *ndev = to_sdev(qp->ibqp.device)->ndev;
	unsigned int head = LL_RESERVED_SPACE(ndev) + sizeof(struct ipv6hdr) +
			    sizeof(struct udphdr);
	struct sk_buff *skb;

	skb = alloc_skb(head + room, GFP_ATOMIC);
	if (unlikely(!skb))
		return NULL;
	skb_reserve(skb, head);
	skb->dev = ndev;
	skb->priority = rt_tos2priority(sroce_xmit_tos(qp, av));
#ifdef CONFIG_XPS
	/*
	 * Without a socket the transmit queue follows the sending CPU, and
	 * a QP sends from the poster's, the ACKs' and its work's CPUs: on a
	 * multiqueue NIC its packets would overtake each other (a PSN gap,
	 * a NAK, go-back-N). One CPU per QP keeps one queue.
	 */
	skb->sender_cpu = qp->tx_cpu + 1;
#endif
	return skb;
}

struct sk_buff *sroce_xmit_alloc_av(struct sroce_qp *qp,
				    const struct sroce_av *av,
				    unsigned int hdr_len, unsigned int paylen,
				    void **bth)
{
	struct net_device *ndev = to_sdev(qp->ibqp.device)->ndev;
	unsigned int pad = sroce_pkt_pad_bytes(paylen);
	unsigned int len = hdr_len + paylen + pad;
	struct sk_buff *skb;
	u8 *p;

	skb = sroce_xmit_skb(qp, av, len + SROCE_ICRC_BYTES +
			     ndev->needed_tailroom);
	if (unlikely(!skb))
		return NULL;
	p = skb_put(skb, len);
	memset(p + hdr_len + paylen, 0, pad);
	*bth = p;
	return skb;
}

struct sk_buff *sroce_xmit_alloc_train(struct sroce_qp *qp)
{
	return sroce_xmit_skb(qp, &qp->av, 0);
}

struct sk_buff *sroce_xmit_alloc(struct sroce_qp *qp, unsigned int hdr_len,
				 unsigned int paylen, void **bth)
{
	return sroce_xmit_alloc_av(qp, &qp->av, hdr_len, paylen, bth);
}

static void sroce_xmit_udp(struct sk_buff *skb, u16 sport)
{
	struct udphdr *uh;

	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = htons(sport);
	uh->dest = htons(SROCE_UDP_PORT);
	uh->len = htons(skb->len);
	/* RoCEv2 leaves it 0 over IPv6 too; the ICRC covers the packet. */
	uh->check = 0;
}

static void sroce_xmit_ipv4(const struct sroce_av *av, struct sk_buff *skb,
			    u8 tos)
{
	struct iphdr *iph;

	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	skb->protocol = htons(ETH_P_IP);
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->tos = tos;
	iph->tot_len = htons(skb->len);
	/* DF set: id 0, as ip_select_ident() would choose without a socket. */
	iph->id = 0;
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit ?: IPDEFTTL;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = av->saddr.v4;
	iph->daddr = av->daddr.v4;
	iph->check = 0;
}

static void sroce_xmit_ipv6(const struct sroce_av *av, struct sk_buff *skb,
			    u8 tos)
{
	struct ipv6hdr *ip6h;

	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	skb->protocol = htons(ETH_P_IPV6);
	/* Flow label 0 on the wire, as rdma_rxe: the UDP port is the entropy. */
	ip6_flow_hdr(ip6h, tos, 0);
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit ?: IPV6_DEFAULT_HOPLIMIT;
	ip6h->saddr = av->saddr.v6;
	ip6h->daddr = av->daddr.v6;
}

/* Does @dst deliver to this host (then any netdev may hold the address)? */
static bool sroce_xmit_dst_local(struct dst_entry *dst, int family)
{
	if (dst->dev->flags & IFF_LOOPBACK)
		return true;
	if (family == AF_INET)
		return ((struct rtable *)dst)->rt_type == RTN_LOCAL;
	return !!(((struct rt6_info *)dst)->rt6i_flags & RTF_LOCAL);
}

/* One IPv6 route lookup to @av's peer out of @odev, from @saddr. */
static struct dst_entry *sroce_xmit_flow6(struct net *net,
					  const struct sroce_av *av,
					  struct net_device *odev,
					  const struct in6_addr *saddr)
{
	struct flowi6 fl6 = {
		.flowi6_oif = odev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.daddr = av->daddr.v6,
		.saddr = *saddr,
	};

	return ipv6_stub->ipv6_dst_lookup_flow(net, NULL, &fl6, NULL);
}

/*
 * The IPv6 route to the peer out of @odev, from the host's own address
 * @av->saddr, called under rcu_read_lock(). IPv4 refuses a source the host
 * does not hold and keeps an off-link route to oif; IPv6, given a source,
 * does neither (only a socket bound to oif holds its lookup there). So the
 * source must be an address of @odev itself, not tentative (removing one
 * flushes every cached IPv6 route: checked per lookup, not per packet);
 * but for a link-local one: the default GIDs are link-local addresses made
 * from the MAC, which a NIC sends from whether or not the netdev holds them
 * (it may make its own link-local address another way).
 * The lookup names the source first, for policy routing and IPsec keyed on
 * it; a route that leaves by another netdev is looked up again without it,
 * which holds the lookup to oif, as a RoCE NIC's packets leave by its port.
 */
static struct dst_entry *sroce_xmit_lookup6(struct net *net,
					    const struct sroce_av *av,
					    struct net_device *odev)
{
	struct dst_entry *dst;

	if (!(ipv6_addr_type(&av->saddr.v6) & IPV6_ADDR_LINKLOCAL) &&
	    IS_ERR_OR_NULL(ipv6_stub->ipv6_dev_find(net, &av->saddr.v6, odev)))
		return ERR_PTR(-EADDRNOTAVAIL);
	dst = sroce_xmit_flow6(net, av, odev, &av->saddr.v6);
	if (IS_ERR(dst) || dst->dev == odev ||
	    sroce_xmit_dst_local(dst, AF_INET6))
		return dst;
	dst_release(dst);
	return sroce_xmit_flow6(net, av, odev, &in6addr_any);
}

/*
 * The output interface: the source GID's netdev, the link's own or one
 * above it (a VLAN). The address vector names it by the index it had when
 * it was set; once the link moved to another namespace that index names
 * something else or nothing (NULL: the packet is refused).
 */
static struct net_device *sroce_xmit_out_dev(struct net *net,
					     const struct sroce_av *av,
					     struct net_device *ndev)
{
	struct net_device *dev;

	if (!av->ifindex)
		return ndev;
	dev = dev_get_by_index_rcu(net, av->ifindex);
	if (dev && (dev == ndev || netdev_has_upper_dev_all_rcu(ndev, dev)))
		return dev;
	return NULL;
}

/*
 * A full route lookup to the peer, out of the source GID's netdev;
 * remembered in @cache if there is one. Called under rcu_read_lock().
 */
static struct dst_entry *sroce_xmit_lookup(struct net *net,
					   const struct sroce_av *av,
					   struct dst_cache *cache,
					   struct net_device *ndev)
{
	struct net_device *odev = sroce_xmit_out_dev(net, av, ndev);
	struct dst_entry *dst;

	if (!odev)
		return ERR_PTR(-ENODEV);

	if (av->family == AF_INET) {
		struct flowi4 fl4 = {
			.flowi4_oif = odev->ifindex,
			.flowi4_proto = IPPROTO_UDP,
			.daddr = av->daddr.v4,
			.saddr = av->saddr.v4,
		};
		struct rtable *rt;

		rt = ip_route_output_key(net, &fl4);
		if (IS_ERR(rt))
			return ERR_CAST(rt);
		if (cache)
			dst_cache_set_ip4(cache, &rt->dst, fl4.saddr);
		return &rt->dst;
	}

	dst = sroce_xmit_lookup6(net, av, odev);
	if (!IS_ERR(dst) && cache)
		dst_cache_set_ip6(cache, dst, &av->saddr.v6);
	return dst;
}

/* The route @cache remembers for @av, with a reference, or NULL. */
static struct dst_entry *sroce_xmit_cached(const struct sroce_av *av,
					   struct dst_cache *cache)
{
	struct dst_entry *dst;

	if (av->family == AF_INET) {
		__be32 saddr;
		struct rtable *rt = dst_cache_get_ip4(cache, &saddr);

		dst = rt ? &rt->dst : NULL;
		if (dst && (saddr != av->saddr.v4 ||
			    dst->ops->family != AF_INET)) {
			dst_release(dst);
			dst = NULL;
		}
	} else {
		struct in6_addr saddr;

		dst = dst_cache_get_ip6(cache, &saddr);
		if (dst && (!ipv6_addr_equal(&saddr, &av->saddr.v6) ||
			    dst->ops->family != AF_INET6)) {
			dst_release(dst);
			dst = NULL;
		}
	}
	return dst;
}

/*
 * The route to the peer, with a reference; *@local tells whether the peer
 * is this host. A route lookup per packet costs as much as building the
 * packet on a slow CPU, so a connected QP keeps the last one in its
 * dst_cache (@cache): the cache revalidates it on every use (dst_check():
 * a routing change, an address or link going away, an IPv6 route cookie
 * that moved on) and modify_qp resets it when the address vector changes.
 * A cached route for another source address or family than @av's (an
 * address vector replaced while a packet was on its way) is not used. UD
 * sends pass no cache: each WQE may go somewhere else.
 */
static struct dst_entry *sroce_xmit_route(struct net *net,
					  const struct sroce_av *av,
					  struct dst_cache *cache,
					  struct sroce_dev *sdev, bool *local)
{
	struct dst_entry *dst = NULL;

	/* dst_cache is per CPU: no migration between lookup and store. */
	local_bh_disable();
	if (READ_ONCE(sdev->routes_frozen))
		cache = NULL;
	if (cache)
		dst = sroce_xmit_cached(av, cache);
	if (!dst)
		dst = sroce_xmit_lookup(net, av, cache, sdev->ndev);
	local_bh_enable();
	if (IS_ERR(dst))
		return dst;

	*local = sroce_xmit_dst_local(dst, av->family);
	return dst;
}

int sroce_xmit_qp_init(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	int err;

	err = dst_cache_init(&qp->dst_cache, GFP_KERNEL);
	if (err)
		return err;
	mutex_lock(&sdev->route_qps_lock);
	list_add_tail(&qp->route_node, &sdev->route_qps);
	mutex_unlock(&sdev->route_qps_lock);
	return 0;
}

void sroce_xmit_qp_reset(struct sroce_qp *qp)
{
	dst_cache_reset(&qp->dst_cache);
}

/*
 * An IPv6 route belongs to its namespace (its dst_ops live in struct net)
 * and a namespace does not wait for the routes others hold: a QP's cached
 * route must be released while the namespace its netdev leaves is still
 * there. The data path leaves the caches alone while routes_frozen is set
 * (it reads it with BH disabled, so synchronize_net() waits out those that
 * read it clear); then each cache can be emptied at once. The netdev stays
 * in the old namespace a while after NETDEV_UNREGISTER, and packets sent
 * meanwhile look their routes up there: the caches stay frozen until the
 * netdev has arrived (NETDEV_REGISTER) or the device is gone. Every QP
 * with a cache counts, those being destroyed too: the device may go (and
 * the namespace with it) before their destroy releases the cache.
 */
void sroce_xmit_dev_freeze_routes(struct sroce_dev *sdev)
{
	struct sroce_qp *qp;

	WRITE_ONCE(sdev->routes_frozen, true);
	synchronize_net();
	mutex_lock(&sdev->route_qps_lock);
	list_for_each_entry(qp, &sdev->route_qps, route_node) {
		dst_cache_reset_now(&qp->dst_cache);
		cond_resched();
	}
	mutex_unlock(&sdev->route_qps_lock);
}

void sroce_xmit_dev_thaw_routes(struct sroce_dev *sdev)
{
	WRITE_ONCE(sdev->routes_frozen, false);
}

void sroce_xmit_qp_cleanup(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);

	mutex_lock(&sdev->route_qps_lock);
	list_del(&qp->route_node);
	mutex_unlock(&sdev->route_qps_lock);
	dst_cache_destroy(&qp->dst_cache);
}

bool sroce_xmit_looping(void)
{
	return this_cpu_read(sroce_xmit_lo.busy);
}

/*
 * Hand a finished packet to sroce_recv() as if it had arrived. The
 * outermost call on a CPU delivers until the queue is empty, so what a
 * receiver sends meanwhile comes out here too, in order, without
 * recursion. Receivers keep that bounded: a responder answers a packet
 * with a budget, and a requester kicked by an answer does not send from
 * inside the loop (sroce_req_answered()).
 */
static void sroce_xmit_loop(struct sroce_dev *sdev, struct net_device *ndev,
			    struct sk_buff *skb)
{
	struct sroce_xmit_lo *lo;

	/* sroce_recv() wants skb->data at the UDP header, len the UDP length. */
	skb_pull(skb, skb_transport_offset(skb));
	skb->pkt_type = PACKET_HOST;
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	/* As from the wire: the netdev holding the address, a VLAN's too. */
	skb->dev = ndev;
	memset(skb->cb, 0, sizeof(skb->cb));
	sroce_xmit_lo_cb(skb)->sdev = sdev;
	skb->next = NULL;

	local_bh_disable();
	lo = this_cpu_ptr(&sroce_xmit_lo);
	if (lo->tail)
		lo->tail->next = skb;
	else
		lo->head = skb;
	lo->tail = skb;

	if (!lo->busy) {
		lo->busy = true;
		while ((skb = lo->head)) {
			lo->head = skb->next;
			if (!lo->head)
				lo->tail = NULL;
			skb->next = NULL;
			sdev = sroce_xmit_lo_cb(skb)->sdev;
			memset(skb->cb, 0, sizeof(skb->cb));
			sroce_recv(sdev, skb);
		}
		lo->busy = false;
	}
	local_bh_enable();
}

/*
 * The same for what may be a train: this host receives packet by packet,
 * so the kernel's segmentation cuts it first, as it would on the wire.
 * False when it could not (no memory): the train is lost.
 */
static bool sroce_xmit_loop_segs(struct sroce_dev *sdev,
				 struct net_device *ndev, struct sk_buff *skb)
{
	struct sk_buff *segs, *next;

	if (!skb_is_gso(skb)) {
		sroce_xmit_loop(sdev, ndev, skb);
		return true;
	}
	memset(skb->cb, 0, sizeof(skb->cb));
	segs = skb_gso_segment(skb, 0);
	consume_skb(skb);
	if (IS_ERR_OR_NULL(segs))
		return false;
	skb_list_walk_safe(segs, skb, next) {
		skb_mark_not_on_list(skb);
		sroce_xmit_loop(sdev, ndev, skb);
	}
	return true;
}

/*
 * A packet to an address of this host goes to the device whose netdev
 * holds that address, as it would through the stack: the sender itself,
 * or another sroce device of the namespace. With none it is lost, as a
 * packet to a host without RoCE would be. Called inside the sender's RCU
 * read side (@net stays); BH stays disabled until the loop has handed it
 * over, also to an outer loop on this CPU (the device stays).
 */
static void sroce_xmit_local(struct net *net, struct sroce_dev *sdev,
			     const struct sroce_av *av, struct sk_buff *skb)
{
	struct net_device *ndev;
	struct sroce_dev *peer;

	local_bh_disable();
	peer = sroce_net_local_dev_rcu(net, av, &ndev);
	if (!peer) {
		sroce_counter_inc(&sdev->counters, SROCE_CNT_XMIT_REFUSED);
		kfree_skb(skb);
	} else if (!sroce_xmit_loop_segs(peer, ndev, skb)) {
		sroce_counter_inc(&sdev->counters, SROCE_CNT_XMIT_REFUSED);
	}
	local_bh_enable();
}

static int __sroce_xmit(struct sroce_qp *qp, const struct sroce_av *av,
			struct dst_cache *cache, struct sk_buff *skb, u8 tos,
			u16 sport)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct dst_entry *dst;
	bool local = false;
	struct net *net;
	int err;

	/* A train's packets hold their ICRCs; one packet's goes at its end. */
	if (!skb_is_nonlinear(skb))
		skb_put(skb, SROCE_ICRC_BYTES);
	sroce_xmit_udp(skb, sport);
	if (av->family == AF_INET6)
		sroce_xmit_ipv6(av, skb, tos);
	else
		sroce_xmit_ipv4(av, skb, tos);
	if (skb_is_nonlinear(skb))
		err = sroce_train_seal(skb);
	else
		err = sroce_icrc_append(skb->data,
					skb->len - SROCE_ICRC_BYTES);
	if (err) {
		sroce_counter_inc(&sdev->counters, SROCE_CNT_XMIT_REFUSED);
		kfree_skb(skb);
		return -EINVAL;
	}
	if (av->family == AF_INET)
		ip_send_check(ip_hdr(skb));

	/*
	 * The netdev may move to another namespace, and the one it leaves be
	 * freed once synchronize_net() has waited out its readers: the
	 * namespace is read, its route looked up and the packet handed to it
	 * inside one read side (the caller may be preemptible).
	 */
	rcu_read_lock();
	net = dev_net(sdev->ndev);
	dst = sroce_xmit_route(net, av, cache, sdev, &local);
	if (IS_ERR(dst)) {
		rcu_read_unlock();
		/* No route is a loss: the retransmit timer deals with it. */
		sroce_counter_inc(&sdev->counters, SROCE_CNT_XMIT_REFUSED);
		kfree_skb(skb);
		return PTR_ERR(dst);
	}
	sroce_counter_add(&sdev->counters, SROCE_CNT_SENT_BYTES,
			  skb->len - skb_transport_offset(skb) -
			  sizeof(struct udphdr));
	if (skb_is_gso(skb)) {
		sroce_counter_inc(&sdev->counters, SROCE_CNT_SENT_TRAINS);
		sroce_counter_add(&sdev->counters, SROCE_CNT_SENT_PKTS,
				  skb_shinfo(skb)->gso_segs);
	} else {
		sroce_counter_inc(&sdev->counters, SROCE_CNT_SENT_PKTS);
	}

	if (local) {
		dst_release(dst);
		sroce_xmit_local(net, sdev, av, skb);
		rcu_read_unlock();
		return 0;
	}

	skb_dst_set(skb, dst);
	memset(skb->cb, 0, sizeof(skb->cb));
	if (av->family == AF_INET6)
		err = ip6_local_out(net, NULL, skb);
	else
		err = ip_local_out(net, NULL, skb);
	rcu_read_unlock();
	return sroce_xmit_result(&sdev->counters, err);
}

int sroce_xmit(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_av av;

	sroce_qp_av(qp, &av);
	return __sroce_xmit(qp, &av, &qp->dst_cache, skb,
			    sroce_xmit_tos(qp, &av), av.sport);
}

int sroce_xmit_av(struct sroce_qp *qp, const struct sroce_av *av,
		  struct sk_buff *skb)
{
	return __sroce_xmit(qp, av, NULL, skb, sroce_xmit_tos(qp, av),
			    av->sport);
}

static int sroce_xmit_cnp_to(struct sroce_qp *qp, const struct sroce_av *av,
			     struct dst_cache *cache,
			     struct sk_buff *skb)
{
	const struct sroce_cc_params *p = &to_sdev(qp->ibqp.device)->cc_params;
	u8 dscp = READ_ONCE(p->np_cnp_dscp) & 0x3f;

	/* Not ECN-capable: a CNP must not be marked or dropped for ECN. */
	skb->priority = rt_tos2priority(dscp << 2);
	return __sroce_xmit(qp, av, cache, skb, dscp << 2, av->sport);
}

int sroce_xmit_cnp(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_av av;

	sroce_qp_av(qp, &av);
	return sroce_xmit_cnp_to(qp, &av, &qp->dst_cache, skb);
}

int sroce_xmit_cnp_av(struct sroce_qp *qp, const struct sroce_av *av,
		      struct sk_buff *skb)
{
	return sroce_xmit_cnp_to(qp, av, NULL, skb);
}
