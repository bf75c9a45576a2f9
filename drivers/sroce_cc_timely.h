/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TIMELY for sroce (Mittal et al., SIGCOMM 2015): a delay-based rate
 * control that needs nothing from the switches and nothing from the peer.
 * The requester measures round trips itself (sroce_cc_rtt.h) and each
 * sample moves the rate: up by a constant while the RTT is low or falling,
 * down in proportion to the RTT's gradient while it rises, and down in
 * proportion to the excess while it is above a ceiling.
 *
 * Pure functions of the state, the parameters and a caller-supplied clock
 * in ns, like sroce_cc.c: integer fixed point, no timers, no allocation,
 * O(1), softirq-safe. The caller serialises access to one QP's state (its
 * req.lock); parameters are read with READ_ONCE() and may change any time.
 */
#ifndef _SROCE_CC_TIMELY_H
#define _SROCE_CC_TIMELY_H

#include <linux/types.h>

#include "sroce_cc.h"
#include "sroce_cc_params.h"

enum sroce_cc_timely_fixed_point {
	/*
	 * The EWMA of RTT differences, ns in 1/2^20: a difference of 1 ns
	 * still decays over hundreds of samples instead of rounding to 0.
	 */
	SROCE_CC_TIMELY_DIFF_SHIFT	= 20,
	/* Decrease factors in 1/2^32: a cut of 400 Gb/s resolves to 100 b/s. */
	SROCE_CC_TIMELY_FACTOR_SHIFT	= 32,
	/*
	 * Samples above 2^30 ns (about 1 s) count as 2^30: no longer RTT
	 * carries information, and the fixed point above stays in 63 bits.
	 */
	SROCE_CC_TIMELY_RTT_MAX_NS	= 1 << 30,
	/* The consecutive-increase count saturates here. */
	SROCE_CC_TIMELY_INCR_MAX	= 1 << 30,
};

/* State of one sending QP; fields are private to sroce_cc_timely.c. */
struct sroce_cc_timely {
	u64 rate;		/* current rate, bit/s */
	u64 line;		/* link rate, bit/s: not paced at it */
	u64 prev_rtt;		/* the previous sample, ns (valid if have_rtt) */
	s64 diff;		/* EWMA of RTT differences, 1/2^DIFF_SHIFT ns */
	u64 loss_at;		/* time of the last loss cut, ns (if lost) */
	u32 incr;		/* consecutive gradient increases (for HAI) */
	bool have_rtt;		/* a sample was taken since init */
	bool lost;		/* a loss cut the rate since init */
	struct sroce_cc_pacer pace;	/* spaces packets at rate */
};

/* What the last sample or loss did, for tests and tracing. */
enum sroce_cc_timely_region {
	SROCE_CC_TIMELY_LOW,		/* RTT below T_low: additive increase */
	SROCE_CC_TIMELY_HIGH,		/* RTT above T_high: cut by the excess */
	SROCE_CC_TIMELY_GRAD_INC,	/* gradient <= 0: increase (or HAI) */
	SROCE_CC_TIMELY_GRAD_DEC,	/* gradient > 0: cut by the gradient */
	SROCE_CC_TIMELY_LOSS,		/* a loss: the rate halved */
	SROCE_CC_TIMELY_LOSS_HELD,	/* a loss within a round trip of the last */
};

void sroce_cc_timely_init(struct sroce_cc_timely *t,
			  const struct sroce_cc_params *p, u32 line_mbps);
enum sroce_cc_timely_region
sroce_cc_timely_on_rtt(struct sroce_cc_timely *t,
		       const struct sroce_cc_params *p, u64 rtt_ns, u64 now);
enum sroce_cc_timely_region
sroce_cc_timely_on_loss(struct sroce_cc_timely *t,
			const struct sroce_cc_params *p, u64 now);

/* Current rate, bit/s. */
static inline u64 sroce_cc_timely_rate(const struct sroce_cc_timely *t)
{
	return t->rate;
}

/* A packet of @bytes left at @now: advance the pacing clock. */
static inline void sroce_cc_timely_on_tx(struct sroce_cc_timely *t,
					 u32 bytes, u64 now)
{
	sroce_cc_pacer_on_tx(&t->pace, bytes, now);
}

#endif /* _SROCE_CC_TIMELY_H */
