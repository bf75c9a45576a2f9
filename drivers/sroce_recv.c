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
 * Context: softirq, from the UDP socket's encap_rcv (or the loopback path
 * with BH disabled), with skb->data at the UDP header and skb->len trimmed
 * to the UDP length. Consumes the skb.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>

#include "sroce_counters.h"
#include "sroce_dev.h"
#include "sroce_icrc.h"
#include "sroce_pkt.h"
#include "sroce_qp.h"
#include "sroce_recv.h"
#include "sroce_req.h"
#include "sroce_resp.h"

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

/* A connected QP only takes packets from its peer to its own address. */
static bool sroce_recv_addr_ok(const struct sroce_av *av,
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

	if (qp->ibqp.qp_type != IB_QPT_RC ||
	    (pkt->opcode & SROCE_OP_TRANSPORT_MASK) != SROCE_TRANSPORT_RC)
		return false;
	if (state != IB_QPS_RTR && state != IB_QPS_RTS && state != IB_QPS_SQD)
		return false;
	/* Responses only make sense once the QP can send. */
	if (!(pkt->info->flags & SROCE_OPF_REQ) && state == IB_QPS_RTR)
		return false;
	return sroce_recv_addr_ok(&qp->av, skb);
}

void sroce_recv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_counters *cnt = &sdev->counters;
	struct sroce_pkt pkt;
	struct sroce_qp *qp;

	if (skb_linearize(skb) || !sroce_recv_l3_ok(skb) ||
	    skb->len < sizeof(struct udphdr))
		goto malformed;

	if (sroce_pkt_parse(skb->data + sizeof(struct udphdr),
			    skb->len - sizeof(struct udphdr), &pkt))
		goto malformed;

	if (!sroce_icrc_check(skb_network_header(skb),
			      skb_tail_pointer(skb) - skb_network_header(skb))) {
		sroce_counter_inc(cnt, SROCE_CNT_RCVD_BAD_ICRC);
		goto drop;
	}
	sroce_counter_inc(cnt, SROCE_CNT_RCVD_PKTS);

	/* CNPs are for the congestion control, which does not exist yet. */
	if (!sroce_recv_pkey_ok(&pkt) || (pkt.info->flags & SROCE_OPF_CNP))
		goto malformed;

	qp = sroce_qp_get(sdev, pkt.qpn);
	if (!qp) {
		sroce_counter_inc(cnt, SROCE_CNT_RCVD_NO_QP);
		goto drop;
	}
	if (!sroce_recv_qp_ok(qp, &pkt, skb)) {
		sroce_qp_put(qp);
		sroce_counter_inc(cnt, SROCE_CNT_RCVD_NO_QP);
		goto drop;
	}

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
