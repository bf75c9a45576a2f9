// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCEv2 Invariant CRC (IBTA vol 1 7.8.1, adapted by Annex A17).
 *
 * The ICRC is the IEEE 802.3 CRC-32 over the part of the packet that no
 * router or switch may change. RoCEv2 defines it over this byte string:
 *
 *   8 bytes of 0xff		stand-in for the InfiniBand LRH
 *   the IP header		with the fields routers rewrite set to ones:
 *				IPv4 TOS, TTL and header checksum; IPv6
 *				traffic class, flow label and hop limit
 *   the UDP header		with the checksum set to ones
 *   the BTH			with byte 4 (FECN, BECN, resv6a) set to ones
 *   the rest up to the ICRC	extension headers, payload and pad
 *
 * The result goes on the wire least significant byte first, like an
 * Ethernet FCS. Masking the ECN bits is what lets a switch mark CE (and a
 * receiver set FECN/BECN) without invalidating the packet.
 *
 * The masked headers are copied to the stack (at most 60 bytes) and the rest
 * of the packet is fed to crc32_le() in place, so nothing is copied twice;
 * a received packet is read where it lies, fragments included.
 * IP options and IPv6 extension headers are refused: rdma_rxe and RoCE NICs
 * never send them, and rdma_rxe would compute a different ICRC over them.
 */
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/udp.h>
#include <sroce/wire.h>

#include "sroce_compat.h"
#include "sroce_icrc.h"

/*
 * The crc32_le() state after the 8 bytes of 0xff from the usual ~0 start:
 * starting from it saves hashing the LRH stand-in on every packet.
 */
#define SROCE_ICRC_SEED		0xdebb20e3

#define SROCE_ICRC_ONES16	((__force __sum16)0xffff)

/* The headers that contain masked fields, at their largest. */
#define SROCE_ICRC_MASKED_MAX \
	(sizeof(struct ipv6hdr) + sizeof(struct udphdr) + SROCE_BTH_BYTES)

/*
 * The length of the IP header at @l3hdr, or 0 if the @len bytes there do
 * not start with an IP header sroce can compute an ICRC for and a UDP
 * header after it.
 */
static unsigned int sroce_icrc_ip_hdr_len(const void *l3hdr, unsigned int len)
{
	const struct ipv6hdr *ip6h = l3hdr;
	const struct iphdr *iph = l3hdr;
	unsigned int hlen;

	if (len < sizeof(struct iphdr))
		return 0;

	switch (iph->version) {
	case 4:
		if (iph->ihl != sizeof(struct iphdr) / 4 ||
		    iph->protocol != IPPROTO_UDP)
			return 0;
		hlen = sizeof(struct iphdr);
		break;
	case 6:
		if (len < sizeof(struct ipv6hdr) || ip6h->nexthdr != IPPROTO_UDP)
			return 0;
		hlen = sizeof(struct ipv6hdr);
		break;
	default:
		return 0;
	}

	if (len < hlen + sizeof(struct udphdr))
		return 0;
	return hlen;
}

/*
 * The crc32_le() state after the masked IP header of @hlen bytes and UDP
 * header at @l3hdr and the masked BTH at @bth: what the rest of the packet
 * continues from.
 */
static u32 sroce_icrc_masked_crc(const void *l3hdr, unsigned int hlen,
				 const void *bth)
{
	u8 buf[SROCE_ICRC_MASKED_MAX] __aligned(4);
	unsigned int n = hlen + sizeof(struct udphdr);
	struct sroce_bth *mbth;
	struct udphdr *udph;

	memcpy(buf, l3hdr, n);
	memcpy(buf + n, bth, SROCE_BTH_BYTES);

	if (hlen == sizeof(struct iphdr)) {
		struct iphdr *iph = (struct iphdr *)buf;

		iph->tos = 0xff;
		iph->ttl = 0xff;
		iph->check = SROCE_ICRC_ONES16;
	} else {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)buf;

		ip6h->priority = 0xf;
		memset(ip6h->flow_lbl, 0xff, sizeof(ip6h->flow_lbl));
		ip6h->hop_limit = 0xff;
	}

	udph = (struct udphdr *)(buf + hlen);
	udph->check = SROCE_ICRC_ONES16;

	mbth = (struct sroce_bth *)(udph + 1);
	mbth->qpn |= cpu_to_be32(SROCE_BTH_FECN | SROCE_BTH_BECN |
				 SROCE_BTH_RESV6A_MASK);

	return crc32_le(SROCE_ICRC_SEED, buf, n + SROCE_BTH_BYTES);
}

/*
 * The ICRC over the IP header of @hlen bytes and the UDP header at @l3hdr,
 * then the @len bytes at @bth (at least a BTH).
 */
static u32 sroce_icrc_crc(const void *l3hdr, unsigned int hlen,
			  const void *bth, unsigned int len)
{
	u32 crc = sroce_icrc_masked_crc(l3hdr, hlen, bth);

	return ~crc32_le(crc, (const u8 *)bth + SROCE_BTH_BYTES,
			 len - SROCE_BTH_BYTES);
}

/**
 * sroce_icrc_compute() - compute the ICRC of a RoCEv2 packet
 * @l3hdr: the IPv4 header (without options) or IPv6 header (without
 *	   extension headers), followed by the UDP header, the BTH and the
 *	   rest of the packet
 * @len: bytes from @l3hdr up to, not including, the ICRC
 * @icrc: the result; store it with put_unaligned_le32()
 *
 * Return: 0, or -EINVAL if @l3hdr is not an IPv4 or IPv6 header sroce
 * supports or @len does not cover the IP, UDP and BTH headers.
 */
int sroce_icrc_compute(const void *l3hdr, unsigned int len, u32 *icrc)
{
	unsigned int hlen = sroce_icrc_ip_hdr_len(l3hdr, len);
	unsigned int n = hlen + sizeof(struct udphdr);

	if (!hlen || len < n + SROCE_BTH_BYTES)
		return -EINVAL;
	*icrc = sroce_icrc_crc(l3hdr, hlen, (const u8 *)l3hdr + n, len - n);
	return 0;
}

/**
 * sroce_icrc_compute_split() - compute the ICRC of a packet in two pieces
 * @l3hdr: the IP header, as for sroce_icrc_compute(), and the UDP header
 * @l3len: bytes at @l3hdr
 * @bth: the BTH and the rest of the packet
 * @len: bytes from @bth up to, not including, the ICRC
 * @icrc: the result; store it with put_unaligned_le32()
 *
 * A send train (sroce_train.c) holds one copy of the IP and UDP headers,
 * and each packet from its BTH on in a fragment of its own.
 *
 * Return: 0, or -EINVAL if @l3hdr is not an IPv4 or IPv6 header sroce
 * supports, @l3len does not cover it and the UDP header, or @len does not
 * cover the BTH.
 */
int sroce_icrc_compute_split(const void *l3hdr, unsigned int l3len,
			     const void *bth, unsigned int len, u32 *icrc)
{
	unsigned int hlen = sroce_icrc_ip_hdr_len(l3hdr, l3len);

	if (!hlen || len < SROCE_BTH_BYTES)
		return -EINVAL;
	*icrc = sroce_icrc_crc(l3hdr, hlen, bth, len);
	return 0;
}

/**
 * sroce_icrc_append() - compute the ICRC of a packet and store it after it
 * @l3hdr: as for sroce_icrc_compute()
 * @len: bytes from @l3hdr up to the ICRC; four more bytes must be writable
 *
 * Return: 0, or -EINVAL as for sroce_icrc_compute().
 */
int sroce_icrc_append(void *l3hdr, unsigned int len)
{
	u32 icrc;
	int err;

	err = sroce_icrc_compute(l3hdr, len, &icrc);
	if (err)
		return err;
	put_unaligned_le32(icrc, (u8 *)l3hdr + len);
	return 0;
}

/**
 * sroce_icrc_check() - verify the ICRC at the end of a received packet
 * @skb: the packet, with its network header set, skb->data at the UDP
 *	 header right after the IP header, the UDP and BTH headers in the
 *	 linear part and skb->len the UDP length; the rest may lie in page
 *	 fragments or a frag_list, and is read where it lies
 *
 * Return: true if the packet ends with its correct ICRC, false if it does
 * not or cannot be a RoCEv2 packet sroce supports.
 */
bool sroce_icrc_check(const struct sk_buff *skb)
{
	const unsigned int off = sizeof(struct udphdr) + SROCE_BTH_BYTES;
	const u8 *l3hdr = skb_network_header(skb);
	struct skb_seq_state st;
	unsigned int hlen, end, done, n;
	const u8 *data, *icrc;
	u8 wire[SROCE_ICRC_BYTES];
	u32 crc;

	hlen = sroce_icrc_ip_hdr_len(l3hdr, skb->data - l3hdr +
					    skb_headlen(skb));
	if (!hlen || skb->data != l3hdr + hlen || skb_headlen(skb) < off ||
	    skb->len < off + SROCE_ICRC_BYTES)
		return false;

	crc = sroce_icrc_masked_crc(l3hdr, hlen,
				    skb->data + sizeof(struct udphdr));
	end = skb->len - SROCE_ICRC_BYTES;
	/* skb_seq_read() may hand out more than asked: stop at @end. */
	skb_prepare_seq_read((struct sk_buff *)skb, off, end, &st);
	for (done = 0; (n = skb_seq_read(done, &data, &st)) != 0; done += n) {
		n = min(n, end - off - done);
		crc = crc32_le(crc, data, n);
	}

	icrc = skb_header_pointer(skb, end, sizeof(wire), wire);
	return icrc && ~crc == get_unaligned_le32(icrc);
}
