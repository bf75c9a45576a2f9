/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receive demux: check a RoCEv2 datagram and hand it to its queue pair.
 */
#ifndef _SROCE_RECV_H
#define _SROCE_RECV_H

#include <linux/skbuff.h>

#include "sroce_pkt.h"

struct sroce_dev;

void sroce_recv(struct sroce_dev *sdev, struct sk_buff *skb);

/*
 * Where the payload of @pkt starts in @skb, the packet sroce_recv() parsed
 * it from: in the linear part or in page fragments, so read it with
 * skb_copy_bits() or sroce_sge_copy_skb(), never through a pointer.
 */
static inline u32 sroce_recv_payload_off(const struct sk_buff *skb,
					 const struct sroce_pkt *pkt)
{
	return pkt->hdr - skb->data + pkt->info->hdr_len;
}

#endif /* _SROCE_RECV_H */
