// SPDX-License-Identifier: GPL-2.0
/*
 * TIMELY rate control, one update per RTT sample (see sroce_cc_timely.h
 * for the calling rules).
 *
 * The paper's Algorithm 1, with its parameters in cc_params (timely_*):
 *
 *   new_diff = rtt - prev_rtt; prev_rtt = rtt
 *   diff = (1 - alpha) * diff + alpha * new_diff
 *   gradient = diff / min_rtt
 *   rtt < T_low:        rate += delta
 *   rtt > T_high:       rate *= 1 - beta * (1 - T_high / rtt)
 *   gradient <= 0:      rate += N * delta, N = hai_n once hai_n samples
 *                       in a row took this branch, else 1
 *   otherwise:          rate *= 1 - beta * gradient
 *   rate clamped to [timely_min_rate, timely_max_rate or line rate]
 *
 * Where the paper leaves a choice, what sroce does:
 *  - Samples: the paper updates once per completion of a 16-64 KB
 *    segment, timed by the NIC; sroce takes one sample per round trip,
 *    timed by the requester from the send of one tagged packet to the
 *    answer that covers it (sroce_cc_rtt.h), so no peer timestamp is
 *    needed and an rdma_rxe peer works.
 *  - The first sample has no predecessor: its difference is 0.
 *  - HAI: the count of consecutive gradient increases is reset by any
 *    decrease and left alone by a sample below T_low; the hai_n-th
 *    increase in a row is the first to add hai_n * delta.
 *  - A gradient above 1 / beta would make the rate negative: the cut is
 *    capped at the whole rate, i.e. the rate falls to timely_min_rate.
 *  - Loss: the paper's fabric is lossless (PFC) and has none. A dropped
 *    packet gives no sample (Karn's rule), so a QP whose packets a full
 *    tail-drop queue drops would hold its rate until the resend's answer
 *    comes back. Each go-back-N restart (a sequence error NAK, a gap in
 *    READ responses, an ACK passing a READ, a retransmit timeout)
 *    therefore halves the rate, as Swift cuts on loss
 *    and TCP on a lost segment, at most once per round trip (the last
 *    sample, at least T_high) so that one burst of drops is one cut.
 *  - Fixed point: the difference EWMA in 1/2^20 ns, decrease factors in
 *    1/2^32, rates in bit/s, each step rounded down (toward -infinity for
 *    the signed EWMA), so results are within a few b/s of the real-valued
 *    algorithm (kunit/sroce_cc_timely_vectors.py computes it exactly).
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>

#include "sroce_cc_timely.h"

enum {
	SROCE_CC_TIMELY_BPS_PER_MBPS	= 1000000,
	/* alpha and beta are in 1/1024. */
	SROCE_CC_TIMELY_PARAM_SHIFT	= 10,
};

static u64 sroce_cc_timely_mbps(u32 mbps)
{
	return (u64)mbps * SROCE_CC_TIMELY_BPS_PER_MBPS;
}

/* The rate's ceiling: timely_max_rate, or the line rate (0 or above it). */
static u64 sroce_cc_timely_ceiling(const struct sroce_cc_timely *t,
				   const struct sroce_cc_params *p)
{
	u64 ceiling = sroce_cc_timely_mbps(READ_ONCE(p->timely_max_rate));

	return ceiling && ceiling < t->line ? ceiling : t->line;
}

/*
 * A QP starts at its ceiling, paced if that is below the line rate. [TML]
 * leaves the start to the NIC; at line rate a QP that joins a busy port
 * would fill it before its first sample, which comes a queue later.
 */
void sroce_cc_timely_init(struct sroce_cc_timely *t,
			  const struct sroce_cc_params *p, u32 line_mbps)
{
	*t = (struct sroce_cc_timely){};
	t->line = sroce_cc_timely_mbps(line_mbps);
	t->rate = sroce_cc_timely_ceiling(t, p);
	if (t->rate < t->line)
		sroce_cc_pacer_set_rate(&t->pace, t->rate, t->line, 0);
}

/* Clamp the rate to [timely_min_rate, ceiling] and pace at it from @now. */
static void sroce_cc_timely_set_rate(struct sroce_cc_timely *t,
				     const struct sroce_cc_params *p, u64 now)
{
	u64 floor = sroce_cc_timely_mbps(READ_ONCE(p->timely_min_rate));

	t->rate = min(max(t->rate, floor), sroce_cc_timely_ceiling(t, p));
	sroce_cc_pacer_set_rate(&t->pace, t->rate, t->line, now);
}

/* rate * (1 - factor / 2^32), factor at most 2^32. */
static u64 sroce_cc_timely_cut(u64 rate, u64 factor)
{
	if (factor >= 1ULL << SROCE_CC_TIMELY_FACTOR_SHIFT)
		return 0;
	return rate - mul_u64_u32_shr(rate, (u32)factor,
				      SROCE_CC_TIMELY_FACTOR_SHIFT);
}

/**
 * sroce_cc_timely_on_rtt() - a round trip was measured
 * @t: the QP's TIMELY state
 * @p: device parameters
 * @rtt_ns: the sample, ns
 * @now: clock, ns (the pacer's reference if pacing starts)
 *
 * Return: the branch of the algorithm the sample took.
 */
enum sroce_cc_timely_region
sroce_cc_timely_on_rtt(struct sroce_cc_timely *t,
		       const struct sroce_cc_params *p, u64 rtt_ns, u64 now)
{
	u64 t_low = (u64)READ_ONCE(p->timely_t_low) * NSEC_PER_USEC;
	u64 t_high = (u64)READ_ONCE(p->timely_t_high) * NSEC_PER_USEC;
	u64 min_rtt = (u64)READ_ONCE(p->timely_min_rtt) * NSEC_PER_USEC;
	u64 delta = sroce_cc_timely_mbps(READ_ONCE(p->timely_ai_rate));
	u32 alpha = READ_ONCE(p->timely_alpha);
	u32 beta = READ_ONCE(p->timely_beta);
	u32 hai_n = READ_ONCE(p->timely_hai_n);
	enum sroce_cc_timely_region region;
	s64 new_diff;
	u64 rtt;

	rtt = min_t(u64, rtt_ns, SROCE_CC_TIMELY_RTT_MAX_NS);
	if (!t->have_rtt) {
		t->prev_rtt = rtt;
		t->have_rtt = true;
	}
	new_diff = (s64)rtt - (s64)t->prev_rtt;
	t->prev_rtt = rtt;
	/* The kernel's signed >> is arithmetic: it rounds toward -inf. */
	t->diff = ((s64)((1 << SROCE_CC_TIMELY_PARAM_SHIFT) - alpha) * t->diff +
		   (s64)alpha * new_diff * (1LL << SROCE_CC_TIMELY_DIFF_SHIFT)) >>
		  SROCE_CC_TIMELY_PARAM_SHIFT;

	if (rtt < t_low) {
		region = SROCE_CC_TIMELY_LOW;
		t->rate += delta;
	} else if (rtt > t_high) {
		/* beta * (1 - T_high / rtt), in 1/2^32. */
		u64 f = div64_u64((u64)beta * (rtt - t_high) <<
				  (SROCE_CC_TIMELY_FACTOR_SHIFT -
				   SROCE_CC_TIMELY_PARAM_SHIFT), rtt);

		region = SROCE_CC_TIMELY_HIGH;
		t->rate = sroce_cc_timely_cut(t->rate, f);
		t->incr = 0;
	} else if (t->diff <= 0) {
		region = SROCE_CC_TIMELY_GRAD_INC;
		t->incr = min_t(u32, t->incr + 1, SROCE_CC_TIMELY_INCR_MAX);
		t->rate += (t->incr >= hai_n ? hai_n : 1) * delta;
	} else {
		/*
		 * beta * diff / min_rtt in 1/2^32, in one division: below
		 * 2^62 as |diff| < 2^50 (samples are capped at 2^30 ns).
		 */
		u64 f = div64_u64((u64)beta * (u64)t->diff <<
				  (SROCE_CC_TIMELY_FACTOR_SHIFT -
				   SROCE_CC_TIMELY_PARAM_SHIFT -
				   SROCE_CC_TIMELY_DIFF_SHIFT), min_rtt);

		region = SROCE_CC_TIMELY_GRAD_DEC;
		t->rate = sroce_cc_timely_cut(t->rate, f);
		t->incr = 0;
	}
	sroce_cc_timely_set_rate(t, p, now);
	return region;
}

/**
 * sroce_cc_timely_on_loss() - the requester goes back to resend a loss
 * @t: the QP's TIMELY state
 * @p: device parameters
 * @now: clock, ns
 *
 * Return: SROCE_CC_TIMELY_LOSS if the rate was halved,
 * SROCE_CC_TIMELY_LOSS_HELD if a loss within a round trip already did.
 */
enum sroce_cc_timely_region
sroce_cc_timely_on_loss(struct sroce_cc_timely *t,
			const struct sroce_cc_params *p, u64 now)
{
	u64 t_high = (u64)READ_ONCE(p->timely_t_high) * NSEC_PER_USEC;
	u64 hold = t->have_rtt ? max(t->prev_rtt, t_high) : t_high;

	if (t->lost && (s64)(now - t->loss_at) < (s64)hold)
		return SROCE_CC_TIMELY_LOSS_HELD;
	t->lost = true;
	t->loss_at = now;
	t->incr = 0;
	/* Half, rounded up: never below the exact algorithm's rate. */
	t->rate -= t->rate / 2;
	sroce_cc_timely_set_rate(t, p, now);
	return SROCE_CC_TIMELY_LOSS;
}
