// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for send trains: which packets may share a train, and that
 * the kernel's own UDP segmentation cuts a sealed train into well-formed
 * RoCEv2 packets, each with the lengths, IPv4 ID and PSN it should have
 * and a good ICRC, over IPv4 and IPv6.
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <rdma/ib_pack.h>

#include "sroce_compat.h"
#include "sroce_icrc.h"
#include "sroce_pkt.h"
#include "sroce_train.h"

static void geometry(struct kunit *test)
{
	/* Anything starts a train. */
	KUNIT_EXPECT_TRUE(test, sroce_train_geometry_ok(0, 0, 0, 1040));
	/* Equal packets follow; a shorter one ends the train. */
	KUNIT_EXPECT_TRUE(test, sroce_train_geometry_ok(1, 1040, 1040, 1040));
	KUNIT_EXPECT_TRUE(test, sroce_train_geometry_ok(5, 1040, 1040, 100));
	KUNIT_EXPECT_FALSE(test, sroce_train_geometry_ok(2, 1040, 100, 1040));
	KUNIT_EXPECT_FALSE(test, sroce_train_geometry_ok(2, 1040, 100, 100));
	/* Nothing longer than the first (a LAST with immediate data). */
	KUNIT_EXPECT_FALSE(test, sroce_train_geometry_ok(1, 1040, 1040, 1044));
	/* At most SROCE_TRAIN_MAX_SEGS packets. */
	KUNIT_EXPECT_TRUE(test,
			  sroce_train_geometry_ok(SROCE_TRAIN_MAX_SEGS - 1,
						  1040, 1040, 1040));
	KUNIT_EXPECT_FALSE(test, sroce_train_geometry_ok(SROCE_TRAIN_MAX_SEGS,
							 1040, 1040, 1040));
	/*
	 * At most 65507 bytes: at MTU 4096 (4112-byte packets) 15 packets,
	 * and after 15 a last of up to 65507 - 15 * 4112 = 3827 bytes.
	 */
	KUNIT_EXPECT_EQ(test, SROCE_TRAIN_MAX_BYTES, 65507);
	KUNIT_EXPECT_TRUE(test, sroce_train_geometry_ok(14, 4112, 4112, 4112));
	KUNIT_EXPECT_FALSE(test, sroce_train_geometry_ok(15, 4112, 4112, 4112));
	KUNIT_EXPECT_TRUE(test, sroce_train_geometry_ok(15, 4112, 4112, 3827));
	KUNIT_EXPECT_FALSE(test, sroce_train_geometry_ok(15, 4112, 4112, 3828));
	KUNIT_EXPECT_EQ(test, sroce_train_max_pkts(4112), 15);
	KUNIT_EXPECT_EQ(test, sroce_train_max_pkts(2064), 16);
	KUNIT_EXPECT_EQ(test, sroce_train_max_pkts(1040), 16);
}

#define TRAIN_MTU	1024
#define TRAIN_QPN	0x123456
#define TRAIN_PSN	0xfffffe	/* the PSNs wrap inside the train */

/* The payload byte at @off of packet @i. */
static u8 train_byte(unsigned int i, unsigned int off)
{
	return (u8)(i * 31 + off * 7 + 1);
}

/*
 * A train of @n SEND MIDDLE packets of TRAIN_MTU bytes, then one SEND LAST
 * of @last bytes, with the IP and UDP headers xmit would give it.
 */
static struct sk_buff *train_build(struct kunit *test, int family,
				   unsigned int n, unsigned int last)
{
	unsigned int l3 = family == AF_INET ? sizeof(struct iphdr) :
					      sizeof(struct ipv6hdr);
	struct sroce_bth_fields f = {
		.pkey = 0xffff,
		.qpn = TRAIN_QPN,
	};
	struct sk_buff *skb;
	struct udphdr *uh;
	unsigned int i, j, paylen, len;
	u8 *seg;

	skb = alloc_skb(MAX_HEADER + l3 + sizeof(*uh), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, MAX_HEADER + l3 + sizeof(*uh));
	for (i = 0; i <= n; i++) {
		paylen = i < n ? TRAIN_MTU : last;
		len = SROCE_BTH_BYTES + paylen + sroce_pkt_pad_bytes(paylen) +
		      SROCE_ICRC_BYTES;
		KUNIT_ASSERT_TRUE(test, sroce_train_fits(skb, len));
		seg = sroce_train_add(skb, len);
		KUNIT_ASSERT_NOT_NULL(test, seg);
		f.opcode = i < n ? IB_OPCODE_RC_SEND_MIDDLE :
				   IB_OPCODE_RC_SEND_LAST;
		f.pad = sroce_pkt_pad_bytes(paylen);
		f.psn = (TRAIN_PSN + i) & 0xffffff;
		f.ack_req = i == n;
		KUNIT_ASSERT_EQ(test, sroce_pkt_build_hdrs(seg, &f),
				SROCE_BTH_BYTES);
		for (j = 0; j < paylen; j++)
			seg[SROCE_BTH_BYTES + j] = train_byte(i, j);
		memset(seg + SROCE_BTH_BYTES + paylen, 0, f.pad);
	}
	/* Nothing follows a shorter packet. */
	if (n && last < TRAIN_MTU)
		KUNIT_EXPECT_FALSE(test, sroce_train_fits(skb, SROCE_BTH_BYTES +
							  SROCE_ICRC_BYTES));

	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = htons(0xc123);
	uh->dest = htons(4791);
	uh->len = htons(skb->len);
	uh->check = 0;
	if (family == AF_INET) {
		struct iphdr *iph = skb_push(skb, sizeof(*iph));

		skb_reset_network_header(skb);
		*iph = (struct iphdr) {
			.version = 4, .ihl = 5, .tos = INET_ECN_ECT_0,
			.tot_len = htons(skb->len), .id = htons(0xfffe),
			.frag_off = htons(IP_DF), .ttl = 64,
			.protocol = IPPROTO_UDP,
			.saddr = htonl(0x0a000001), .daddr = htonl(0x0a000002),
		};
		ip_send_check(iph);
		skb->protocol = htons(ETH_P_IP);
	} else {
		struct ipv6hdr *ip6h = skb_push(skb, sizeof(*ip6h));

		skb_reset_network_header(skb);
		memset(ip6h, 0, sizeof(*ip6h));
		ip6_flow_hdr(ip6h, INET_ECN_ECT_0, 0);
		ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
		ip6h->nexthdr = IPPROTO_UDP;
		ip6h->hop_limit = 64;
		ip6h->saddr.s6_addr[0] = 0xfd;
		ip6h->saddr.s6_addr[15] = 1;
		ip6h->daddr.s6_addr[0] = 0xfd;
		ip6h->daddr.s6_addr[15] = 2;
		skb->protocol = htons(ETH_P_IPV6);
	}
	KUNIT_ASSERT_EQ(test, sroce_train_seal(skb), 0);
	return skb;
}

/* Segment a sealed train as a NIC without offloads would have it done. */
static void train_check(struct kunit *test, int family, unsigned int n,
			unsigned int last)
{
	struct sk_buff *skb = train_build(test, family, n, last);
	struct sk_buff *segs, *seg, *next;
	const struct sroce_bth *bth;
	unsigned int i = 0, j, paylen, l3len, ulen;
	const u8 *p;
	__wsum csum;

	KUNIT_EXPECT_TRUE(test, skb_is_gso(skb));
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_segs, n + 1);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_size,
			SROCE_BTH_BYTES + TRAIN_MTU + SROCE_ICRC_BYTES);
	segs = skb_gso_segment(skb, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(segs));
	kfree_skb(skb);

	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		KUNIT_ASSERT_EQ(test, skb_linearize(seg), 0);
		paylen = i < n ? TRAIN_MTU : last;
		l3len = skb_network_header_len(seg);
		KUNIT_EXPECT_EQ(test, seg->len - skb_network_offset(seg),
				l3len + 8 + SROCE_BTH_BYTES + paylen +
				sroce_pkt_pad_bytes(paylen) + SROCE_ICRC_BYTES);
		ulen = seg->len - skb_transport_offset(seg);
		KUNIT_EXPECT_EQ(test, ntohs(udp_hdr(seg)->len), ulen);
		/* The UDP checksum the segmentation filled in is right. */
		csum = skb_checksum(seg, skb_transport_offset(seg), ulen, 0);
		if (family == AF_INET) {
			KUNIT_EXPECT_EQ(test, ntohs(ip_hdr(seg)->id),
					(0xfffe + i) & 0xffff);
			KUNIT_EXPECT_EQ(test,
					(__force u16)ip_fast_csum(ip_hdr(seg), 5),
					0);
			KUNIT_EXPECT_EQ(test, (__force u16)
					csum_tcpudp_magic(ip_hdr(seg)->saddr,
							  ip_hdr(seg)->daddr,
							  ulen, IPPROTO_UDP,
							  csum), 0);
		} else {
			KUNIT_EXPECT_EQ(test, (__force u16)
					csum_ipv6_magic(&ipv6_hdr(seg)->saddr,
							&ipv6_hdr(seg)->daddr,
							ulen, IPPROTO_UDP,
							csum), 0);
		}
		KUNIT_EXPECT_NE(test, (__force u16)udp_hdr(seg)->check, 0);
		/* As the receive path hands it over: data at the UDP header. */
		__skb_pull(seg, skb_transport_offset(seg));
		KUNIT_EXPECT_TRUE(test, sroce_icrc_check(seg));
		bth = (const void *)(udp_hdr(seg) + 1);
		KUNIT_EXPECT_EQ(test, sroce_bth_psn(bth),
				(TRAIN_PSN + i) & 0xffffff);
		p = (const u8 *)(bth + 1);
		for (j = 0; j < paylen; j++)
			if (p[j] != train_byte(i, j))
				break;
		KUNIT_EXPECT_EQ(test, j, paylen);
		kfree_skb(seg);
		i++;
	}
	KUNIT_EXPECT_EQ(test, i, n + 1);
}

static void segments_ipv4(struct kunit *test)
{
	train_check(test, AF_INET, 5, TRAIN_MTU);
	/* A short last packet, with pad. */
	train_check(test, AF_INET, 3, 301);
}

static void segments_ipv6(struct kunit *test)
{
	train_check(test, AF_INET6, 5, TRAIN_MTU);
	train_check(test, AF_INET6, 1, 2);
}

/* A train of one packet is an ordinary packet: no GSO, no checksum. */
static void single_packet(struct kunit *test)
{
	struct sk_buff *skb = train_build(test, AF_INET, 0, 100);

	KUNIT_EXPECT_FALSE(test, skb_is_gso(skb));
	KUNIT_EXPECT_EQ(test, udp_hdr(skb)->check, 0);
	/* The BTH pulled up as sroce_recv() does, the rest left in place. */
	__skb_pull(skb, skb_transport_offset(skb));
	KUNIT_ASSERT_TRUE(test, pskb_may_pull(skb, 8 + SROCE_BTH_BYTES));
	KUNIT_EXPECT_TRUE(test, sroce_icrc_check(skb));
	kfree_skb(skb);
}

static struct kunit_case sroce_train_cases[] = {
	KUNIT_CASE(geometry),
	KUNIT_CASE(segments_ipv4),
	KUNIT_CASE(segments_ipv6),
	KUNIT_CASE(single_packet),
	{}
};

static struct kunit_suite sroce_train_suite = {
	.name		= "sroce_train",
	.test_cases	= sroce_train_cases,
};

kunit_test_suites(&sroce_train_suite);
