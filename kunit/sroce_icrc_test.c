// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the RoCEv2 ICRC: two IPv4 packets whose ICRC is known
 * from outside (a ConnectX-4 Lx capture and scapy's example), an IPv6
 * packet and two long ones checked against an independent implementation
 * of the same procedure, and a bit-by-bit proof that exactly the fields
 * routers may rewrite are left out of the CRC. Received packets are checked as skbs
 * laid out as the receive path meets them: headers in the linear part, the
 * rest in page fragments cut anywhere, the ICRC's four bytes included.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/kernel.h>
#include <linux/skbuff.h>
#include <linux/string.h>

#include "sroce_compat.h"
#include "sroce_icrc.h"
#include "sroce_pkt.h"

#define TEST_FRAME_BYTES	128

/*
 * A CNP captured from a ConnectX-4 Lx (scapy's test/contrib/roce.uts), from
 * the IPv4 header on: IPv4, UDP, BTH for QP 0x118, 16 reserved bytes, ICRC.
 */
static const u8 hw_cnp_frame[] = {
	0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00,
	0x40, 0x11, 0x91, 0x61, 0x0a, 0x00, 0x11, 0x01,
	0x0a, 0x00, 0x12, 0x01,
	0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,
	0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18,
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x82, 0xfd, 0x00, 0x2a,
};

/*
 * scapy's UC SEND ONLY example (IPv4, TOS 0x01, a non-zero UDP checksum,
 * M=1, PadCnt 2, DestQP 0xd3) and the ICRC scapy expects for it.
 */
static const u8 scapy_uc_frame[] = {
	0x45, 0x01, 0x00, 0x40, 0x04, 0x78, 0x40, 0x00,
	0x40, 0x11, 0xb4, 0xd5, 0xc0, 0xa8, 0x00, 0x07,
	0xc0, 0xa8, 0x00, 0x07,
	0xc0, 0x00, 0x12, 0xb7, 0x00, 0x2c, 0xac, 0xa2,
	0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3,
	0x00, 0xcf, 0x17, 0x10,
	0x46, 0x30, 0x81, 0x8b, 0xe2, 0x89, 0x35, 0xd9,
	0x0e, 0x9a, 0x95, 0x50, 0x54, 0x01, 0xbe, 0x88,
	0x5e, 0x50, 0x00, 0x00,
	0x78, 0xf3, 0x53, 0xf3,
};

/*
 * An RC RDMA WRITE ONLY of "hello" over IPv6: traffic class 0x02 (ECT(0)),
 * flow label 0x12345, hop limit 64, UDP checksum 0x1234, BECN set, PadCnt 3.
 * No NIC capture over IPv6 was available; the ICRC was computed with
 * Python's zlib.crc32 following the same masking rules as rdma_rxe.
 */
static const u8 ipv6_write_frame[] = {
	0x60, 0x21, 0x23, 0x45, 0x00, 0x30, 0x11, 0x40,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0xc1, 0x23, 0x12, 0xb7, 0x00, 0x30, 0x12, 0x34,
	0x0a, 0x30, 0xff, 0xff, 0x40, 0x00, 0x00, 0x11,
	0x80, 0x00, 0x01, 0x02,
	0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78,
	0xaa, 0xbb, 0xcc, 0xdd, 0x00, 0x00, 0x00, 0x05,
	0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x00, 0x00,
	0x4d, 0x8e, 0x94, 0xa3,
};

struct icrc_frame {
	const char	*name;
	const u8	*bytes;
	unsigned int	len;		/* through the ICRC */
	unsigned int	ip_hdr_len;
	u32		icrc;		/* as sroce_icrc_compute() returns it */
};

static const struct icrc_frame icrc_frames[] = {
	{ "hardware CNP", hw_cnp_frame, sizeof(hw_cnp_frame), 20, 0x2a00fd82 },
	{ "scapy UC SEND", scapy_uc_frame, sizeof(scapy_uc_frame), 20,
	  0xf353f378 },
	{ "IPv6 RDMA WRITE", ipv6_write_frame, sizeof(ipv6_write_frame), 40,
	  0xa3948e4d },
};

static void icrc_frame_desc(const struct icrc_frame *f, char *desc)
{
	strscpy(desc, f->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(icrc_frame, icrc_frames, icrc_frame_desc);

/* The IP header's length as its first byte gives it (20 if not IP). */
static unsigned int icrc_ip_len(const u8 *bytes, unsigned int len)
{
	if (len && bytes[0] >> 4 == 4)
		return (bytes[0] & 0xf) * 4;
	if (len && bytes[0] >> 4 == 6)
		return 40;
	return 20;
}

/*
 * sroce_icrc_check() on the @len bytes at @bytes (from the IP header on)
 * as a received skb: the first @linear bytes in its linear part, the rest
 * in page fragments of @frag bytes (the last one shorter), skb->data at
 * the UDP header, as sroce_recv() hands it over.
 */
static bool icrc_check_split(struct kunit *test, const u8 *bytes,
			     unsigned int len, unsigned int linear,
			     unsigned int frag)
{
	unsigned int ip_len = icrc_ip_len(bytes, len), pos, n;
	struct sk_buff *skb;
	struct page *page;
	bool ok = false;
	int i;

	KUNIT_ASSERT_LE(test, DIV_ROUND_UP(len - linear, frag), MAX_SKB_FRAGS);
	skb = alloc_skb(linear, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_data(skb, bytes, linear);
	skb_reset_network_header(skb);
	for (pos = linear, i = 0; pos < len; pos += n, i++) {
		n = min(frag, len - pos);
		page = alloc_page(GFP_KERNEL);
		KUNIT_EXPECT_NOT_NULL(test, page);
		if (!page)
			goto out;
		memcpy(page_address(page), bytes + pos, n);
		skb_add_rx_frag(skb, i, page, 0, n, PAGE_SIZE);
	}
	if (linear >= ip_len)
		__skb_pull(skb, ip_len);
	ok = sroce_icrc_check(skb);
out:
	kfree_skb(skb);
	return ok;
}

/* The headers linear (if the packet has them), the rest in four pieces. */
static bool icrc_check(struct kunit *test, const u8 *bytes, unsigned int len)
{
	unsigned int hdrs = icrc_ip_len(bytes, len) + 8 + SROCE_BTH_BYTES;
	unsigned int linear = min(len, hdrs);

	return icrc_check_split(test, bytes, len, linear,
				max(1U, DIV_ROUND_UP(len - linear, 4)));
}

static void icrc_matches_known_packets(struct kunit *test)
{
	const struct icrc_frame *f = test->param_value;
	unsigned int len = f->len - SROCE_ICRC_BYTES;
	u8 buf[TEST_FRAME_BYTES];
	u32 icrc;

	KUNIT_ASSERT_LE(test, f->len, sizeof(buf));

	KUNIT_EXPECT_TRUE(test, icrc_check(test, f->bytes, f->len));
	KUNIT_ASSERT_EQ(test, sroce_icrc_compute(f->bytes, len, &icrc), 0);
	KUNIT_EXPECT_EQ(test, icrc, f->icrc);

	/* The same with the IP and UDP headers kept apart (a send train). */
	memcpy(buf, f->bytes, f->ip_hdr_len + 8);
	KUNIT_ASSERT_EQ(test, sroce_icrc_compute_split(buf, f->ip_hdr_len + 8,
						       f->bytes + f->ip_hdr_len + 8,
						       len - f->ip_hdr_len - 8,
						       &icrc), 0);
	KUNIT_EXPECT_EQ(test, icrc, f->icrc);
	/* Headers cut short, a piece shorter than a BTH. */
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute_split(buf, f->ip_hdr_len + 7,
						       f->bytes + f->ip_hdr_len + 8,
						       len - f->ip_hdr_len - 8,
						       &icrc), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute_split(buf, f->ip_hdr_len + 8,
						       f->bytes + f->ip_hdr_len + 8,
						       11, &icrc), -EINVAL);

	/* Appended least significant byte first: the bytes on the wire. */
	memcpy(buf, f->bytes, len);
	memset(buf + len, 0, SROCE_ICRC_BYTES);
	KUNIT_ASSERT_EQ(test, sroce_icrc_append(buf, len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf, f->bytes, f->len), 0);
}

/*
 * The bits RoCEv2 leaves out of the ICRC, located by byte offset from the
 * IP header so as not to depend on the code under test: IPv4 TOS, TTL and
 * header checksum, or IPv6 traffic class, flow label and hop limit; the UDP
 * checksum; and BTH byte 4 (FECN, BECN, resv6a).
 */
static bool icrc_bit_is_masked(const struct icrc_frame *f, unsigned int byte,
			       unsigned int bit)
{
	unsigned int udp = f->ip_hdr_len;
	unsigned int bth = udp + 8;

	if (byte == udp + 6 || byte == udp + 7 || byte == bth + 4)
		return true;
	if (f->ip_hdr_len == 20)
		return byte == 1 || byte == 8 || byte == 10 || byte == 11;
	/* Byte 0 is the version nibble, then traffic class and flow label. */
	return (byte == 0 && bit < 4) || byte == 1 || byte == 2 ||
	       byte == 3 || byte == 7;
}

static void icrc_ignores_exactly_the_masked_bits(struct kunit *test)
{
	const struct icrc_frame *f = test->param_value;
	u8 buf[TEST_FRAME_BYTES];
	unsigned int byte, bit;

	KUNIT_ASSERT_LE(test, f->len, sizeof(buf));
	memcpy(buf, f->bytes, f->len);

	for (byte = 0; byte < f->len; byte++) {
		for (bit = 0; bit < 8; bit++) {
			buf[byte] ^= BIT(bit);
			KUNIT_EXPECT_EQ_MSG(test,
					    icrc_check(test, buf, f->len),
					    icrc_bit_is_masked(f, byte, bit),
					    "byte %u bit %u", byte, bit);
			buf[byte] ^= BIT(bit);
		}
	}
}

/* What routers and an ECN-marking switch do to a packet in flight. */
static void icrc_survives_router_rewrites(struct kunit *test)
{
	u8 buf[TEST_FRAME_BYTES];

	memcpy(buf, scapy_uc_frame, sizeof(scapy_uc_frame));
	buf[1] = 0x03;			/* DSCP 0, ECN CE */
	buf[8] = 0x3f;			/* TTL decremented */
	buf[10] = 0x12;			/* header checksum redone */
	buf[11] = 0x34;
	buf[26] = 0;			/* UDP checksum dropped */
	buf[27] = 0;
	buf[32] = 0xc0;			/* FECN and BECN set */
	KUNIT_EXPECT_TRUE(test, icrc_check(test, buf, sizeof(scapy_uc_frame)));

	memcpy(buf, ipv6_write_frame, sizeof(ipv6_write_frame));
	buf[0] = 0x6b;			/* traffic class 0xb3: DSCP 44, CE */
	buf[1] = 0x3f;			/* flow label rewritten */
	buf[2] = 0xff;
	buf[3] = 0x00;
	buf[7] = 0x01;			/* hop limit nearly spent */
	buf[46] = 0;			/* UDP checksum 0, legal here */
	buf[47] = 0;
	buf[52] = 0x80;			/* FECN set, BECN cleared */
	KUNIT_EXPECT_TRUE(test, icrc_check(test, buf, sizeof(ipv6_write_frame)));
}

static void icrc_detects_corruption(struct kunit *test)
{
	unsigned int len = sizeof(scapy_uc_frame);
	u8 buf[TEST_FRAME_BYTES];

	memcpy(buf, scapy_uc_frame, len);
	buf[45] ^= 0x10;		/* a payload bit */
	KUNIT_EXPECT_FALSE(test, icrc_check(test, buf, len));

	memcpy(buf, scapy_uc_frame, len);
	buf[len - 1] ^= 0x01;		/* the ICRC itself */
	KUNIT_EXPECT_FALSE(test, icrc_check(test, buf, len));

	memcpy(buf, scapy_uc_frame, len);
	buf[59] = 0x01;			/* a pad byte: covered as well */
	KUNIT_EXPECT_FALSE(test, icrc_check(test, buf, len));
}

/* The full CNP a notification point sends, from sroce's own builders. */
static void icrc_of_built_cnp_matches_hardware(struct kunit *test)
{
	const unsigned int l3l4 = 20 + 8;
	u8 buf[TEST_FRAME_BYTES];

	memset(buf, 0xa5, sizeof(buf));
	memcpy(buf, hw_cnp_frame, l3l4);
	sroce_pkt_build_cnp(buf + l3l4, 0x118);
	KUNIT_ASSERT_EQ(test, sroce_icrc_append(buf, l3l4 + SROCE_CNP_HDR_BYTES),
			0);
	KUNIT_EXPECT_EQ(test, memcmp(buf, hw_cnp_frame, sizeof(hw_cnp_frame)),
			0);
	KUNIT_EXPECT_EQ(test, buf[sizeof(hw_cnp_frame)], 0xa5);
}

static void icrc_refuses_what_it_cannot_cover(struct kunit *test)
{
	unsigned int len = sizeof(scapy_uc_frame) - SROCE_ICRC_BYTES;
	u8 buf[TEST_FRAME_BYTES];
	u32 icrc;

	/* IPv4 options: rdma_rxe does not compute an ICRC over them. */
	memcpy(buf, scapy_uc_frame, sizeof(scapy_uc_frame));
	buf[0] = 0x46;
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute(buf, len, &icrc), -EINVAL);
	KUNIT_EXPECT_FALSE(test, icrc_check(test, buf, len + 4));

	/* Neither IPv4 nor IPv6. */
	buf[0] = 0x55;
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute(buf, len, &icrc), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_icrc_append(buf, len), -EINVAL);

	/* Not UDP right after the IP header. */
	buf[0] = 0x45;
	buf[9] = IPPROTO_TCP;
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute(buf, len, &icrc), -EINVAL);
	memcpy(buf, ipv6_write_frame, sizeof(ipv6_write_frame));
	buf[6] = 0;			/* a hop-by-hop options header */
	KUNIT_EXPECT_FALSE(test, icrc_check(test, buf, sizeof(ipv6_write_frame)));

	/* Too short to hold IP, UDP and BTH headers. */
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute(scapy_uc_frame, 20 + 8 + 11,
						 &icrc), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute(ipv6_write_frame, 40 + 8 + 11,
						 &icrc), -EINVAL);
	KUNIT_EXPECT_FALSE(test, icrc_check(test, scapy_uc_frame, 3));
	KUNIT_EXPECT_FALSE(test, icrc_check(test, scapy_uc_frame, 0));

	/* The headers alone are enough: a CRC over no payload is fine. */
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute(scapy_uc_frame, 20 + 8 + 12,
						 &icrc), 0);
}

/*
 * A received packet's fragments may be cut anywhere, the ICRC itself
 * included: every cut after the headers, in pieces of 1, 3 and 64 bytes,
 * gives the right answer, and a flipped payload bit is still found.
 */
static void icrc_reads_fragments(struct kunit *test)
{
	const struct icrc_frame *f = test->param_value;
	unsigned int hdrs = f->ip_hdr_len + 8 + 12;
	static const unsigned int frags[] = { 1, 3, 64 };
	u8 buf[TEST_FRAME_BYTES];
	unsigned int linear, i;

	KUNIT_ASSERT_LE(test, f->len, sizeof(buf));
	memcpy(buf, f->bytes, f->len);
	for (linear = hdrs; linear <= f->len; linear++) {
		for (i = 0; i < ARRAY_SIZE(frags); i++) {
			if (DIV_ROUND_UP(f->len - linear, frags[i]) >
			    MAX_SKB_FRAGS)
				continue;
			KUNIT_EXPECT_TRUE_MSG(test,
					      icrc_check_split(test, buf, f->len,
							       linear, frags[i]),
					      "linear %u frag %u", linear,
					      frags[i]);
			buf[f->len - 5] ^= 0x08;
			KUNIT_EXPECT_FALSE_MSG(test,
					       icrc_check_split(test, buf,
								f->len, linear,
								frags[i]),
					       "linear %u frag %u", linear,
					       frags[i]);
			buf[f->len - 5] ^= 0x08;
		}
	}
	/* UDP and BTH headers not in the linear part: refused. */
	KUNIT_EXPECT_FALSE(test, icrc_check_split(test, buf, f->len, hdrs - 1,
						  16));
}

/*
 * A packet of @paylen bytes of payload: IPv4, UDP, BTH of an RC RDMA
 * WRITE MIDDLE to QP 0x11, PSN 0x100, and a fixed byte pattern. Its ICRCs
 * were computed with Python's zlib.crc32 following the masking rules above
 * (the same script gives the hardware CNP's 0x2a00fd82).
 */
struct icrc_long {
	unsigned int paylen;
	u32 icrc;
};

static const struct icrc_long icrc_longs[] = {
	{ 1024, 0xb8c38428 },
	{ 4096, 0x244e2b9f },
};

static u8 *icrc_long_packet(struct kunit *test, unsigned int paylen)
{
	static const u8 hdrs[] = {
		0x45, 0x02, 0x00, 0x00, 0x12, 0x34, 0x40, 0x00,
		0x40, 0x11, 0xbe, 0xef, 0x0a, 0x00, 0x00, 0x01,
		0x0a, 0x00, 0x00, 0x02,
		0xc1, 0x23, 0x12, 0xb7, 0x00, 0x00, 0x00, 0x00,
		0x07, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
		0x00, 0x00, 0x01, 0x00,
	};
	unsigned int len = sizeof(hdrs) + paylen + SROCE_ICRC_BYTES, i;
	u8 *p = kunit_kzalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memcpy(p, hdrs, sizeof(hdrs));
	put_unaligned_be16(len, p + 2);
	put_unaligned_be16(len - 20, p + 24);
	for (i = 0; i < paylen; i++)
		p[sizeof(hdrs) + i] = ((i * 131 + 7) >> 1) & 0xff;
	return p;
}

/*
 * Path-MTU-sized payloads, computed whole and checked in fragments of 64
 * bytes up to a page: the ICRC is the known one, and a flipped payload bit
 * is found.
 */
static void icrc_long_packets(struct kunit *test)
{
	static const unsigned int frags[] = { 64, 300, 1000, 2048, PAGE_SIZE };
	unsigned int hdrs = 20 + 8 + SROCE_BTH_BYTES, len, i, j;
	u32 icrc;
	u8 *p;

	for (i = 0; i < ARRAY_SIZE(icrc_longs); i++) {
		len = hdrs + icrc_longs[i].paylen;
		p = icrc_long_packet(test, icrc_longs[i].paylen);
		KUNIT_EXPECT_EQ(test, sroce_icrc_compute(p, len, &icrc), 0);
		KUNIT_EXPECT_EQ_MSG(test, icrc, icrc_longs[i].icrc,
				    "payload %u", icrc_longs[i].paylen);
		KUNIT_ASSERT_EQ(test, sroce_icrc_append(p, len), 0);
		len += SROCE_ICRC_BYTES;
		for (j = 0; j < ARRAY_SIZE(frags); j++) {
			if (DIV_ROUND_UP(len - hdrs, frags[j]) > MAX_SKB_FRAGS)
				continue;
			KUNIT_EXPECT_TRUE_MSG(test,
					      icrc_check_split(test, p, len,
							       hdrs, frags[j]),
					      "payload %u frag %u",
					      icrc_longs[i].paylen, frags[j]);
			p[len - 700] ^= 0x40;
			KUNIT_EXPECT_FALSE_MSG(test,
					       icrc_check_split(test, p, len,
								hdrs, frags[j]),
					       "payload %u frag %u",
					       icrc_longs[i].paylen, frags[j]);
			p[len - 700] ^= 0x40;
		}
	}
}

static struct kunit_case sroce_icrc_cases[] = {
	KUNIT_CASE_PARAM(icrc_matches_known_packets, icrc_frame_gen_params),
	KUNIT_CASE_PARAM(icrc_ignores_exactly_the_masked_bits,
			 icrc_frame_gen_params),
	KUNIT_CASE_PARAM(icrc_reads_fragments, icrc_frame_gen_params),
	KUNIT_CASE(icrc_survives_router_rewrites),
	KUNIT_CASE(icrc_detects_corruption),
	KUNIT_CASE(icrc_of_built_cnp_matches_hardware),
	KUNIT_CASE(icrc_refuses_what_it_cannot_cover),
	KUNIT_CASE(icrc_long_packets),
	{}
};

static struct kunit_suite sroce_icrc_suite = {
	.name		= "sroce_icrc",
	.test_cases	= sroce_icrc_cases,
};

kunit_test_suites(&sroce_icrc_suite);
