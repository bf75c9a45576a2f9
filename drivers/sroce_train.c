// SPDX-License-Identifier: GPL-2.0
/*
 * Send trains: a run of consecutive packets of one message, each a whole
 * RoCEv2 packet from its BTH to its ICRC, sent as one UDP GSO skb
 * (SKB_GSO_UDP_L4, gso_size = one packet).
 *
 * Per packet, a software sender pays for a pass through the IP stack,
 * netfilter and the qdisc and for a doorbell to the NIC; a train pays for
 * them once. The kernel's UDP segmentation (or the NIC's) then cuts the
 * train at the packet boundaries and gives each piece a copy of the IP and
 * UDP headers with its own lengths, IPv4 ID and UDP checksum. The ICRC
 * covers the lengths and the IPv4 ID (only TOS, TTL and the checksums are
 * masked, Annex A17.4.3), so each packet's ICRC is computed here for the
 * headers its segment will carry: inet_gso_segment() numbers the IDs of
 * a train whose first is N as N, N + 1, ... A NIC that segments UDP
 * itself may number them otherwise, so in auto mode IPv4 trains are only
 * built on netdevs that leave segmentation to the kernel (IPv6 has no ID).
 * The packets carry a UDP checksum: RoCEv2 allows one, the ICRC masks it,
 * and receivers check it as for any UDP packet.
 *
 * Each packet sits in a page fragment of its own, so segmentation shares
 * the pages instead of copying. A train holds what shares one geometry:
 * packets as long as its first, then at most one shorter last packet. The
 * requester starts trains only at packets with a bare BTH (SEND FIRST,
 * MIDDLE), so a WRITE FIRST, longer by its RETH, goes alone.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/udp.h>
#include <net/ip6_checksum.h>
#include <net/udp.h>

#include "sroce_compat.h"
#include "sroce_dev.h"
#include "sroce_icrc.h"
#include "sroce_qp.h"
#include "sroce_train.h"

bool sroce_train_wanted(const struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	u32 mode = READ_ONCE(sdev->cc_params.tx_trains);

	if (mode == SROCE_TRAIN_OFF)
		return false;
	if (mode == SROCE_TRAIN_ALWAYS || qp->av.family == AF_INET6)
		return true;
	return !(READ_ONCE(sdev->ndev->features) & NETIF_F_GSO_UDP_L4);
}

bool sroce_train_fits(const struct sk_buff *skb, unsigned int len)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	unsigned int n = sh->nr_frags;

	if (!n)
		return true;
	return sroce_train_geometry_ok(n, skb_frag_size(&sh->frags[0]),
				       skb_frag_size(&sh->frags[n - 1]), len);
}

void *sroce_train_add(struct sk_buff *skb, unsigned int len)
{
	struct page *page;
	void *p;

	p = netdev_alloc_frag(len);
	if (unlikely(!p))
		return NULL;
	page = virt_to_head_page(p);
	skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page,
			(u8 *)p - (u8 *)page_address(page), len,
			SKB_DATA_ALIGN(len));
	return p;
}

void sroce_train_drop_last(struct sk_buff *skb, unsigned int len)
{
	struct skb_shared_info *sh = skb_shinfo(skb);

	put_page(skb_frag_page(&sh->frags[--sh->nr_frags]));
	skb->len -= len;
	skb->data_len -= len;
	skb->truesize -= SKB_DATA_ALIGN(len);
}

/* Set up @skb's UDP checksum for offload, as a UDP GSO socket does. */
static void sroce_train_csum(struct sk_buff *skb)
{
	struct udphdr *uh = udp_hdr(skb);
	unsigned int len = skb->len - skb_transport_offset(skb);

	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct udphdr, check);
	if (ip_hdr(skb)->version == 4)
		uh->check = ~udp_v4_check(len, ip_hdr(skb)->saddr,
					  ip_hdr(skb)->daddr, 0);
	else
		uh->check = ~udp_v6_check(len, &ipv6_hdr(skb)->saddr,
					  &ipv6_hdr(skb)->daddr, 0);
}

int sroce_train_seal(struct sk_buff *skb)
{
	struct skb_shared_info *sh = skb_shinfo(skb);
	unsigned int hlen = skb_network_header_len(skb);
	u8 hdrs[sizeof(struct ipv6hdr) + sizeof(struct udphdr)];
	struct udphdr *uh = (struct udphdr *)(hdrs + hlen);
	struct ipv6hdr *ip6h = (struct ipv6hdr *)hdrs;
	struct iphdr *iph = (struct iphdr *)hdrs;
	unsigned int i, len;
	u16 id;
	u32 icrc;
	u8 *seg;

	if (hlen + sizeof(*uh) > sizeof(hdrs) || !sh->nr_frags)
		return -EINVAL;
	memcpy(hdrs, skb_network_header(skb), hlen + sizeof(*uh));
	id = ntohs(iph->id);
	for (i = 0; i < sh->nr_frags; i++) {
		len = skb_frag_size(&sh->frags[i]);
		seg = skb_frag_address(&sh->frags[i]);
		/* The headers segmentation gives packet i (see the top). */
		uh->len = htons(sizeof(*uh) + len);
		if (iph->version == 4) {
			iph->tot_len = htons(hlen + sizeof(*uh) + len);
			iph->id = htons(id + i);
		} else {
			ip6h->payload_len = uh->len;
		}
		if (len < SROCE_ICRC_BYTES ||
		    sroce_icrc_compute_split(hdrs, hlen + sizeof(*uh), seg,
					     len - SROCE_ICRC_BYTES, &icrc))
			return -EINVAL;
		put_unaligned_le32(icrc, seg + len - SROCE_ICRC_BYTES);
	}
	/* A train of one is an ordinary packet. */
	if (sh->nr_frags == 1)
		return 0;
	sh->gso_size = skb_frag_size(&sh->frags[0]);
	sh->gso_type = SKB_GSO_UDP_L4;
	sh->gso_segs = sh->nr_frags;
	sroce_train_csum(skb);
	return 0;
}
