// SPDX-License-Identifier: GPL-2.0
/*
 * Receive demux. Every RoCEv2 datagram is remote input and is checked
 * before anything acts on it: the IP header shape the ICRC is defined over,
 * the transport headers (sroce_pkt_parse() checks each length before it
 * reads a header), then the ICRC. Whatever fails is dropped and counted;
 * rdma_rxe drops the same packets (IBTA C9-xx: a packet with a bad ICRC is
 * silently dropped).
 *
 * Context: softirq, from the UDP socket's encap_rcv, with skb->data at the
 * UDP header and skb->len trimmed to the UDP length.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>

#include "sroce_counters.h"
#include "sroce_dev.h"
#include "sroce_icrc.h"
#include "sroce_pkt.h"
#include "sroce_recv.h"

/* RoCEv2 never carries IPv4 options; the ICRC masking assumes 20 bytes. */
static bool sroce_recv_l3_ok(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return ip_hdr(skb)->ihl == 5;
	return skb->protocol == htons(ETH_P_IPV6) &&
	       skb_transport_offset(skb) == sizeof(struct ipv6hdr);
}

void sroce_recv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_counters *cnt = &sdev->counters;
	struct sroce_pkt pkt;

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

	/* Queue pairs arrive with the RC data path; until then none match. */
	sroce_counter_inc(cnt, SROCE_CNT_RCVD_NO_QP);
	goto drop;

malformed:
	sroce_counter_inc(cnt, SROCE_CNT_RCVD_MALFORMED);
drop:
	kfree_skb(skb);
}
