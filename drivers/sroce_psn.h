/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet Sequence Number arithmetic. A PSN is a 24-bit counter that wraps
 * (IBTA vol 1 9.7.1); two PSNs are ordered by the sign of their difference
 * taken modulo 2^24, which is meaningful as long as every PSN the two ends
 * compare lies within 2^23 of the other: the requester starts no message
 * that would take what is in flight that far (a READ takes all its
 * response PSNs at once, whatever the send window).
 */
#ifndef _SROCE_PSN_H
#define _SROCE_PSN_H

#include <linux/bits.h>
#include <linux/types.h>
#include <sroce/wire.h>

#define SROCE_PSN_MASK		SROCE_BTH_PSN_MASK
/* Half the PSN space: the farthest two PSNs can be and still be ordered. */
#define SROCE_PSN_HALF		BIT(23)

/* @psn + @n, wrapped to 24 bits. */
static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/* @a - @b as a signed distance in [-2^23, 2^23). */
static inline s32 sroce_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

static inline bool sroce_psn_lt(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) < 0;
}

static inline bool sroce_psn_le(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) <= 0;
}

static inline bool sroce_psn_gt(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) > 0;
}

static inline bool sroce_psn_ge(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) >= 0;
}

/* @psn lies in [@first, @first + @n): a window of @n PSNs starting at @first. */
static inline bool sroce_psn_in_window(u32 psn, u32 first, u32 n)
{
	return ((psn - first) & SROCE_PSN_MASK) < n;
}

/* PSNs in [@from, @to), i.e. how many packets separate two PSNs. */
static inline u32 sroce_psn_span(u32 from, u32 to)
{
	return (to - from) & SROCE_PSN_MASK;
}

/*
 * May a message of @npsn PSNs start at @psn with [@una, @psn) in flight?
 * Only if then every PSN in flight stays ordered against @una: within
 * half the PSN space of it.
 */
static inline bool sroce_psn_room(u32 una, u32 psn, u32 npsn)
{
	return sroce_psn_span(una, psn) + npsn < SROCE_PSN_HALF;
}

#endif /* _SROCE_PSN_H */
