// SPDX-License-Identifier: GPL-2.0
/*
 * Receive demux. Every RoCEv2 datagram is remote input and is checked
 * before anything acts on it: the IP header shape the ICRC is defined
 * over, the transport headers (sroce_pkt_parse() checks each length before
 * it reads a header), the ICRC, and then the checks of IBTA vol 1 9.6 that
 * need the destination QP: its existence, transport type and state, the
 * P_Key, and (for connected QPs) that the packet comes from the QP's peer
 * address. Whatever fails is dropped and counted; requests then go to the
 * responder and responses to the completer, in this softirq.
 *
 * DCQCN: a packet marked CE makes the destination QP (the notification
 * point) answer its sender with a CNP, spaced by np_min_time_between_cnps;
 * a CNP cuts the rate of the RC or UC QP it names (the reaction point).
 *
 * Context: softirq, from the UDP socket's encap_rcv (or the loopback path
 * with BH disabled), with skb->data at the UDP header and skb->len trimmed
 * to the UDP length. Consumes the skb.
 */
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>

#include "sroce_counters.h"
#include "sroce_dev.h"
#include "sroce_icrc.h"
#include "sroce_mcast.h"
#include "sroce_pkt.h"
#include "sroce_qp.h"
#include "sroce_recv.h"
#include "sroce_req.h"
#include "sroce_resp.h"
#include "sroce_trace.h"
#include "sroce_ud.h"
#include "sroce_xmit.h"

/*
 * RoCEv2 never carries IPv4 options or IPv6 extension headers, and the
 * ICRC is defined over the bare 20- or 40-byte header.
 */
static bool sroce_recv_l3_ok(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return ip_hdr(skb)->ihl == 5;
	return skb->protocol == htons(ETH_P_IPV6) &&
	       skb_network_header_len(skb) == sizeof(struct ipv6hdr);
}

static bool sroce_recv_av_match(const struct sroce_av *av,
				const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return av->family == AF_INET &&
		       ip_hdr(skb)->saddr == av->daddr.v4 &&
		       ip_hdr(skb)->daddr == av->saddr.v4;
	return av->family == AF_INET6 &&
	       ipv6_addr_equal(&ipv6_hdr(skb)->saddr, &av->daddr.v6) &&
	       ipv6_addr_equal(&ipv6_hdr(skb)->daddr, &av->saddr.v6);
}

/*
 * A connected QP only takes packets from its peer to its own address.
 * The addresses are compared inside av_seq's read section: a modify_qp
 * in SQD may rewrite them meanwhile, and a mix of old and new could let
 * a forged source through. The section's barrier also orders the AV
 * after the state the caller read (modify_qp publishes it after the AV).
 */
static bool sroce_recv_addr_ok(const struct sroce_qp *qp,
			       const struct sk_buff *skb)
{
	unsigned int seq;
	bool ok;

	do {
		seq = read_seqcount_begin(&qp->av_seq);
		ok = sroce_recv_av_match(&qp->av, skb);
	} while (read_seqcount_retry(&qp->av_seq, seq));
	return ok;
}

/*
 * RoCE has only the default partition: full (0xffff) or limited (0x7fff)
 * membership both match it (IBTA vol 1 10.9.3).
 */
static bool sroce_recv_pkey_ok(const struct sroce_pkt *pkt)
{
	return (sroce_bth_pkey(sroce_pkt_bth(pkt)) & 0x7fff) == 0x7fff;
}

static bool sroce_recv_qp_ok(struct sroce_qp *qp, const struct sroce_pkt *pkt,
			     const struct sk_buff *skb)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	u8 transport = pkt->opcode & SROCE_OP_TRANSPORT_MASK;

	/* UC has requests only: no ACKs or responses (IBTA vol 1 9.8). */
	if (!(qp->ibqp.qp_type == IB_QPT_RC && transport == SROCE_TRANSPORT_RC) &&
	    !(qp->ibqp.qp_type == IB_QPT_UC && transport == SROCE_TRANSPORT_UC &&
	      (pkt->info->flags & SROCE_OPF_REQ)))
		return false;
	if (!sroce_qp_state_receives(state))
		return false;
	/* Responses only make sense once the QP can send. */
	if (!(pkt->info->flags & SROCE_OPF_REQ) && state == IB_QPS_RTR)
		return false;
	return sroce_recv_addr_ok(qp, skb);
}

/*
 * A unicast UD datagram must be addressed to the receiving netdev itself:
 * its DGID must be a GID of the port it arrived on (IBTA vol 1 9.6.1.1,
 * checked per netdev as rdma_rxe does). IP hands the socket datagrams to
 * a broadcast address, and to addresses of other netdevs, too: without
 * this, one broadcast UD SEND would take a receive WQE on every sroce
 * host of the L2 domain. Connected QPs compare the destination with
 * their own address (sroce_recv_addr_ok()), multicast goes by group.
 */
static bool sroce_recv_dst_local(const struct sk_buff *skb)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	__be32 daddr;

	if (skb->protocol == htons(ETH_P_IPV6))
		return ipv6_chk_addr(dev_net(skb->dev), &ipv6_hdr(skb)->daddr,
				     skb->dev, 1);
	in_dev = __in_dev_get_rcu(skb->dev);
	if (!in_dev)
		return false;
	daddr = ip_hdr(skb)->daddr;
	in_dev_for_each_ifa_rcu(ifa, in_dev)
		if (ifa->ifa_local == daddr)
			return true;
	return false;
}

/* The TOS / traffic class byte: DSCP and ECN. */
static u8 sroce_recv_dsfield(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return ipv4_get_dsfield(ip_hdr(skb));
	return ipv6_get_dsfield(ipv6_hdr(skb));
}

/*
 * Where a CNP for a UD packet goes: back to the address it came from, from
 * the address it was sent to, with its UDP source port. Tagged on the VLAN
 * it arrived on.
 */
static void sroce_recv_reply_av(const struct sk_buff *skb,
				struct sroce_av *av)
{
	memset(av, 0, sizeof(*av));
	if (skb->protocol == htons(ETH_P_IP)) {
		av->family = AF_INET;
		av->saddr.v4 = ip_hdr(skb)->daddr;
		av->daddr.v4 = ip_hdr(skb)->saddr;
	} else {
		av->family = AF_INET6;
		av->saddr.v6 = ipv6_hdr(skb)->daddr;
		av->daddr.v6 = ipv6_hdr(skb)->saddr;
	}
	av->sport = ntohs(((const struct udphdr *)skb->data)->source);
	if (skb->dev && is_vlan_dev(skb->dev))
		av->ifindex = skb->dev->ifindex;
}

/*
 * A CNP for a packet of @qp: to the peer of a connected QP, or for UD to
 * the sender of @skb, naming its DETH's source QP. Returns 0 when it left.
 */
static int sroce_recv_send_cnp(struct sroce_qp *qp, const struct sk_buff *skb,
			       const struct sroce_pkt *pkt)
{
	struct sk_buff *cnp;
	struct sroce_av av;
	void *bth;

	if (!sroce_ud_qp(qp)) {
		cnp = sroce_xmit_alloc(qp, SROCE_CNP_HDR_BYTES, 0, &bth);
		if (!cnp)
			return -ENOMEM;
		sroce_pkt_build_cnp(bth, qp->attr.dest_qp_num);
		return sroce_xmit_cnp(qp, cnp);
	}
	sroce_recv_reply_av(skb, &av);
	cnp = sroce_xmit_alloc_av(qp, &av, SROCE_CNP_HDR_BYTES, 0, &bth);
	if (!cnp)
		return -ENOMEM;
	sroce_pkt_build_cnp(bth, sroce_deth_sqpn(sroce_pkt_deth(pkt)));
	return sroce_xmit_cnp_av(qp, &av, cnp);
}

/*
 * Notification point: @qp received @skb marked CE with DS field @dsfield.
 * Answer its sender with a CNP unless NP is off for the packet's priority
 * (its DSCP's class) or a CNP went out less than np_min_time_between_cnps
 * ago. A UD QP spaces the CNPs of all its senders together: the spacing
 * is per receiving QP, as for connected QPs, and no per-sender state is
 * kept that a flood of sources could grow. GSI traffic (MADs) and
 * multicast (sroce_mcast_recv()) get none.
 */
static void sroce_recv_ce(struct sroce_dev *sdev, struct sroce_qp *qp,
			  const struct sk_buff *skb,
			  const struct sroce_pkt *pkt, u8 dsfield)
{
	const struct sroce_cc_params *p = &sdev->cc_params;
	unsigned int prio = dsfield >> 5;
	bool send;

	sroce_counter_inc(&sdev->counters, SROCE_CNT_NP_ECN_MARKED);
	if (!(READ_ONCE(p->np_enable) & BIT(prio)) ||
	    qp->ibqp.qp_type == IB_QPT_GSI)
		return;

	spin_lock_bh(&qp->resp.lock);
	send = sroce_cc_np_should_send_cnp(&qp->resp.np, p, ktime_get_ns());
	spin_unlock_bh(&qp->resp.lock);
	if (send && !sroce_recv_send_cnp(qp, skb, pkt))
		sroce_counter_inc(&sdev->counters, SROCE_CNT_NP_CNP_SENT);
}

/*
 * Reaction point: a CNP for the QP in its BTH. Only an RC or UC QP in RTS
 * that the CNP's source address is connected to reacts (a UD sender is
 * not paced: it has no one peer whose rate a CNP could name); the QP's RP is the
 * requester's, so it is updated under req.lock. Every CNP received is
 * counted as handled or ignored, so that the two add up to cc_rx_cnp_pkts.
 */
static void sroce_recv_cnp(struct sroce_dev *sdev, struct sk_buff *skb,
			   const struct sroce_pkt *pkt)
{
	const struct sroce_cc_params *p = &sdev->cc_params;
	enum sroce_cc_cnp_verdict verdict = SROCE_CC_CNP_IGNORED;
	struct sroce_qp *qp;
	unsigned int prio;

	sroce_counter_inc(&sdev->counters, SROCE_CNT_CC_RX_CNP);
	qp = sroce_qp_get(sdev, pkt->qpn);
	if (!qp) {
		sroce_counter_inc(&sdev->counters, SROCE_CNT_RP_CNP_IGNORED);
		return;
	}
	if ((qp->ibqp.qp_type != IB_QPT_RC &&
	     qp->ibqp.qp_type != IB_QPT_UC) ||
	    READ_ONCE(qp->state) != IB_QPS_RTS ||
	    !sroce_recv_addr_ok(qp, skb)) {
		sroce_qp_put(qp);
		sroce_counter_inc(&sdev->counters, SROCE_CNT_RP_CNP_IGNORED);
		return;
	}

	/* The priority the QP's data packets carry. */
	prio = (qp->av.traffic_class >> 2 ?: READ_ONCE(p->roce_dscp)) >> 3;
	if (READ_ONCE(p->rp_enable) & BIT(prio & 7)) {
		spin_lock_bh(&qp->req.lock);
		verdict = sroce_cc_on_cnp(&qp->req.cc, p, ktime_get_ns());
		if (verdict == SROCE_CC_CNP_HANDLED)
			sroce_cc_trace_rate(qp->ibqp.qp_num, &qp->req.cc.rp, p,
					    SROCE_CC_RATE_CNP);
		spin_unlock_bh(&qp->req.lock);
	}
	sroce_counter_inc(&sdev->counters,
			  verdict == SROCE_CC_CNP_HANDLED ?
			  SROCE_CNT_RP_CNP_HANDLED : SROCE_CNT_RP_CNP_IGNORED);
	sroce_qp_put(qp);
}

void sroce_recv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_counters *cnt = &sdev->counters;
	struct sroce_pkt pkt;
	struct sroce_qp *qp;
	u8 dsfield;
	bool ok;

	if (!sroce_recv_l3_ok(skb) ||
	    !pskb_may_pull(skb, sizeof(struct udphdr) + SROCE_BTH_BYTES) ||
	    sroce_pkt_parse(skb->data + sizeof(struct udphdr),
			    skb->len - sizeof(struct udphdr), &pkt))
		goto malformed;
	/*
	 * The headers in the linear part, the payload where it lies:
	 * consumers copy it with sroce_recv_payload_off() (a datagram in
	 * page fragments is not linearized, which was a copy per packet).
	 * The pull may move skb->data: the offsets in @pkt are from @hdr.
	 */
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + pkt.info->hdr_len))
		goto malformed;
	pkt.hdr = skb->data + sizeof(struct udphdr);
	pkt.vlan_id = skb->dev && is_vlan_dev(skb->dev) ?
		      vlan_dev_vlan_id(skb->dev) : SROCE_PKT_NO_VLAN;

	if (!sroce_icrc_check(skb)) {
		sroce_counter_inc(cnt, SROCE_CNT_RCVD_BAD_ICRC);
		goto drop;
	}
	sroce_counter_inc(cnt, SROCE_CNT_RCVD_PKTS);
	sroce_counter_add(cnt, SROCE_CNT_RCVD_BYTES,
			  skb->len - sizeof(struct udphdr));

	if (!sroce_recv_pkey_ok(&pkt))
		goto malformed;
	if (pkt.info->flags & SROCE_OPF_CNP) {
		sroce_recv_cnp(sdev, skb, &pkt);
		consume_skb(skb);
		return;
	}

	if (pkt.qpn == IB_MULTICAST_QPN || sroce_mcast_dst(skb)) {
		sroce_mcast_recv(sdev, skb, &pkt);
		return;
	}
	qp = sroce_qp_get(sdev, pkt.qpn);
	if (!qp) {
		sroce_counter_inc(cnt, SROCE_CNT_RCVD_NO_QP);
		goto drop;
	}
	if (sroce_ud_qp(qp)) {
		ok = sroce_recv_dst_local(skb);
		if (ok)
			ok = sroce_ud_recv_ok(qp, &pkt); /* counts refusals */
		else
			sroce_counter_inc(cnt, SROCE_CNT_RCVD_NO_QP);
	} else {
		ok = sroce_recv_qp_ok(qp, &pkt, skb);
		if (!ok)
			sroce_counter_inc(cnt, SROCE_CNT_RCVD_NO_QP);
	}
	if (!ok) {
		sroce_qp_put(qp);
		goto drop;
	}

	dsfield = sroce_recv_dsfield(skb);
	if (INET_ECN_is_ce(dsfield))
		sroce_recv_ce(sdev, qp, skb, &pkt, dsfield);

	/* UD packets are all requests (sroce_ud_recv_ok()). */
	if (pkt.info->flags & SROCE_OPF_REQ)
		sroce_resp_recv(qp, skb, &pkt);
	else
		sroce_comp_recv(qp, skb, &pkt);
	sroce_qp_put(qp);
	return;

malformed:
	sroce_counter_inc(cnt, SROCE_CNT_RCVD_MALFORMED);
drop:
	kfree_skb(skb);
}
