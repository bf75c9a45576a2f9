/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Send trains: a run of consecutive packets of one message, each a whole
 * RoCEv2 packet from its BTH to its ICRC, sent as one UDP GSO skb.
 */
#ifndef _SROCE_TRAIN_H
#define _SROCE_TRAIN_H

#include <linux/ip.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <linux/types.h>

struct sroce_qp;

/* Packets in one train: one skb fragment each. */
#define SROCE_TRAIN_MAX_SEGS	min_t(unsigned int, 16, MAX_SKB_FRAGS)

/*
 * Bytes of RoCE packets in one train: the train's UDP datagram, headers
 * included, must fit the 16-bit IPv4 total length (and so the UDP length).
 * UDP segmentation derives each piece's checksum seed from the train's
 * uh->len; a longer train would carry a truncated one, and every packet
 * cut from it a wrong UDP checksum (16 packets of MTU 4096 are 65792
 * bytes).
 */
#define SROCE_TRAIN_MAX_BYTES	(U16_MAX - sizeof(struct iphdr) - \
				 sizeof(struct udphdr))

/* The device parameter tx_trains. */
enum sroce_train_mode {
	SROCE_TRAIN_OFF,
	/* Where the kernel's own segmentation numbers the IPv4 IDs. */
	SROCE_TRAIN_AUTO,
	SROCE_TRAIN_ALWAYS,
};

/*
 * sroce_train_geometry_ok() - may a packet of @len bytes (BTH to ICRC)
 * follow @nsegs packets, the first @first_len and the last @last_len
 * bytes long? UDP segmentation cuts a train into pieces of the first
 * packet's size, the last of which may be shorter: every packet but the
 * last is as long as the first, and none is longer. At most
 * SROCE_TRAIN_MAX_SEGS packets and SROCE_TRAIN_MAX_BYTES bytes.
 */
static inline bool sroce_train_geometry_ok(unsigned int nsegs,
					   unsigned int first_len,
					   unsigned int last_len,
					   unsigned int len)
{
	if (!nsegs)
		return true;
	return nsegs < SROCE_TRAIN_MAX_SEGS && last_len == first_len &&
	       len <= first_len &&
	       nsegs * first_len + len <= SROCE_TRAIN_MAX_BYTES;
}

/* The most packets of @len bytes one train holds. */
static inline unsigned int sroce_train_max_pkts(unsigned int len)
{
	return min_t(unsigned int, SROCE_TRAIN_MAX_SEGS,
		     SROCE_TRAIN_MAX_BYTES / len);
}

/*
 * sroce_train_wanted() - does @qp send trains now (its device's tx_trains,
 * and for IPv4 in auto mode a netdev that leaves UDP segmentation to the
 * kernel)? Context: any.
 */
bool sroce_train_wanted(const struct sroce_qp *qp);

/* Might a packet of @len bytes join the train in @skb? */
bool sroce_train_fits(const struct sk_buff *skb, unsigned int len);

/*
 * sroce_train_add() - room for one more packet of @len bytes (BTH to
 * ICRC) at the end of the train in @skb (from sroce_xmit_alloc_train()),
 * where the caller writes it up to the ICRC. Returns the packet's first
 * byte, or NULL when no page fragment could be had: the caller then sends
 * the packet alone. A fragment longer than a page (path MTU 4096) comes
 * only from the fragment cache's compound page, which a cache left with an
 * order-0 page after memory fragmentation can refuse for good, so NULL
 * must never stop a sender. Context: any.
 */
void *sroce_train_add(struct sk_buff *skb, unsigned int len);
/* sroce_train_drop_last() - take back the packet of @len bytes added last. */
void sroce_train_drop_last(struct sk_buff *skb, unsigned int len);

/*
 * sroce_train_seal() - once the IP and UDP headers are in place in front
 * of the train (sroce_xmit.c): each packet's ICRC as segmentation will
 * give it its headers, and the skb's GSO state. Returns 0 or -EINVAL.
 */
int sroce_train_seal(struct sk_buff *skb);

#endif /* _SROCE_TRAIN_H */
