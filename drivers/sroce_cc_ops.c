// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control selection: the per-QP events that are not on the
 * per-packet path (see sroce_cc_ops.h).
 */
#include <linux/compiler.h>

#include "sroce_cc_ops.h"

/**
 * sroce_cc_sender_init() - the QP moves from RTR to RTS: pick, reset its CC
 * @s: the QP's congestion control state
 * @p: device parameters; cc_algo is read once, here
 * @line_mbps: link rate, Mb/s
 */
void sroce_cc_sender_init(struct sroce_cc_sender *s,
			  const struct sroce_cc_params *p, u32 line_mbps)
{
	u32 algo = READ_ONCE(p->cc_algo);

	s->algo = algo < SROCE_CC_ALGO_COUNT ? algo : SROCE_CC_ALGO_DCQCN;
	sroce_cc_rp_init(&s->rp, line_mbps);
	sroce_cc_timely_init(&s->timely, p, line_mbps);
	sroce_cc_rtt_init(&s->rtt);
	s->sampling = s->algo == SROCE_CC_ALGO_TIMELY;
	s->eager = s->sampling;
}

/**
 * sroce_cc_on_cnp() - a CNP for the QP arrived
 * @s: the QP's congestion control state
 * @p: device parameters
 * @now: clock, ns
 *
 * TIMELY does not use ECN: its QPs count CNPs as ignored.
 *
 * Return: whether the algorithm acted on it (for the CNP counters).
 */
enum sroce_cc_cnp_verdict sroce_cc_on_cnp(struct sroce_cc_sender *s,
					  const struct sroce_cc_params *p,
					  u64 now)
{
	switch (s->algo) {
	case SROCE_CC_ALGO_TIMELY:
		return SROCE_CC_CNP_IGNORED;
	default:
		return sroce_cc_rp_on_cnp(&s->rp, p, now);
	}
}

/**
 * sroce_cc_on_rtt() - the requester measured a round trip
 * @s: the QP's congestion control state
 * @p: device parameters
 * @rtt_ns: the sample, ns
 * @now: clock, ns
 *
 * DCQCN reacts to CNPs only and ignores samples.
 */
void sroce_cc_on_rtt(struct sroce_cc_sender *s,
		     const struct sroce_cc_params *p, u64 rtt_ns, u64 now)
{
	if (s->algo == SROCE_CC_ALGO_TIMELY)
		sroce_cc_timely_on_rtt(&s->timely, p, rtt_ns, now);
}

/**
 * sroce_cc_on_loss() - the requester goes back to resend (go-back-N)
 * @s: the QP's congestion control state
 * @p: device parameters
 * @now: clock, ns
 *
 * DCQCN reacts to CNPs only, as a ConnectX does; TIMELY halves its rate
 * (sroce_cc_timely_on_loss()).
 */
void sroce_cc_on_loss(struct sroce_cc_sender *s,
		      const struct sroce_cc_params *p, u64 now)
{
	if (s->algo == SROCE_CC_ALGO_TIMELY)
		sroce_cc_timely_on_loss(&s->timely, p, now);
}
