/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RoCEv2 Invariant CRC: computing, appending and checking it over a
 * packet held contiguously from its IPv4 or IPv6 header onwards, or with
 * its IP and UDP headers apart from the rest (a send train's packets);
 * checking it on a received skb, fragments and all.
 */
#ifndef _SROCE_ICRC_H
#define _SROCE_ICRC_H

#include <linux/types.h>

struct sk_buff;

int sroce_icrc_compute(const void *l3hdr, unsigned int len, u32 *icrc);
int sroce_icrc_compute_split(const void *l3hdr, unsigned int l3len,
			     const void *bth, unsigned int len, u32 *icrc);
int sroce_icrc_append(void *l3hdr, unsigned int len);
bool sroce_icrc_check(const struct sk_buff *skb);

#endif /* _SROCE_ICRC_H */
