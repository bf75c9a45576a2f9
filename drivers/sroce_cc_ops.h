/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Congestion control selection: routes the events of one sending QP (may
 * it send now, a packet left, a CNP arrived, a round trip was measured)
 * to the algorithm that QP runs. The algorithms themselves live in their
 * own files (sroce_cc.c for DCQCN, sroce_cc_timely.c for TIMELY) as pure
 * functions of their state; this is the only place the requester and the
 * receive path call them through. Round trips come from the requester's
 * own sampler (sroce_cc_rtt.h), part of the same per-QP state.
 *
 * A switch on a small enum rather than a table of function pointers: the
 * per-packet calls stay inline and take no retpoline, and a QP running
 * DCQCN pays one compare more than a direct call.
 */
#ifndef _SROCE_CC_OPS_H
#define _SROCE_CC_OPS_H

#include <linux/types.h>

#include "sroce_cc.h"
#include "sroce_cc_params.h"
#include "sroce_cc_rtt.h"
#include "sroce_cc_timely.h"

/* Values of cc_params.cc_algo. */
enum sroce_cc_algo {
	SROCE_CC_ALGO_DCQCN,	/* ECN marks -> CNPs -> rate cuts (sroce_cc.c) */
	SROCE_CC_ALGO_TIMELY,	/* RTT samples -> rate (sroce_cc_timely.c) */
	SROCE_CC_ALGO_COUNT,
};

/*
 * Congestion control state of one sending QP, inside struct sroce_req and
 * protected by its lock (req.lock), like the rest of the requester.
 *
 * @algo is read from cc_params.cc_algo when the QP moves from RTR to RTS
 * (sroce_req_start() calls sroce_cc_sender_init()) and kept for as long as
 * the connection lasts: SQD or SQE and back to RTS keep it, only a QP taken
 * through RESET and up to RTS again reads cc_algo anew. A write to cc_algo
 * therefore applies to QPs that connect after it; one QP's events always go
 * to the algorithm whose state was initialised, and a running flow is never
 * handed state another algorithm left behind.
 */
struct sroce_cc_sender {
	struct sroce_cc_rp rp;		/* DCQCN reaction point */
	struct sroce_cc_timely timely;	/* TIMELY */
	struct sroce_cc_rtt rtt;	/* RTT sampler, if sampling */
	u8 algo;			/* enum sroce_cc_algo, fixed from RTS */
	bool sampling;			/* TIMELY, or sroce_cc_sample_rtt() */
	bool eager;			/* ... asking for a sample each RTT */
};

void sroce_cc_sender_init(struct sroce_cc_sender *s,
			  const struct sroce_cc_params *p, u32 line_mbps);
enum sroce_cc_cnp_verdict sroce_cc_on_cnp(struct sroce_cc_sender *s,
					  const struct sroce_cc_params *p,
					  u64 now);
void sroce_cc_on_rtt(struct sroce_cc_sender *s,
		     const struct sroce_cc_params *p, u64 rtt_ns, u64 now);
void sroce_cc_on_loss(struct sroce_cc_sender *s,
		      const struct sroce_cc_params *p, u64 now);

/*
 * Run the RTT sampler whatever the algorithm (the requester's retransmit
 * timeouts, sroce_req_rto.h). @eager (the early retransmit): set AckReq
 * to have a sample every round trip; otherwise only packets that ask
 * for an answer anyway are tagged (message ends, four a window), which
 * adds no ACK. After sroce_cc_sender_init().
 */
static inline void sroce_cc_sample_rtt(struct sroce_cc_sender *s, bool eager)
{
	s->sampling = true;
	s->eager |= eager;
}

/* The algorithm the QP runs (what it took at RTR -> RTS). */
static inline enum sroce_cc_algo sroce_cc_algo(const struct sroce_cc_sender *s)
{
	return s->algo;
}

/* The QP's current rate, bit/s (until the algorithm acts, its start rate). */
static inline u64 sroce_cc_rate_bps(const struct sroce_cc_sender *s)
{
	switch (s->algo) {
	case SROCE_CC_ALGO_TIMELY:
		return s->timely.rate;
	default:
		return s->rp.rc;
	}
}

/* May the QP send its next packet at @now? */
static inline bool sroce_cc_may_send(const struct sroce_cc_sender *s, u64 now)
{
	switch (s->algo) {
	case SROCE_CC_ALGO_TIMELY:
		return sroce_cc_pacer_may_send(&s->timely.pace, now);
	default:
		return sroce_cc_rp_may_send(&s->rp, now);
	}
}

/* Is the QP held below line rate, its packets spaced by the pacer? */
static inline bool sroce_cc_paced(const struct sroce_cc_sender *s)
{
	switch (s->algo) {
	case SROCE_CC_ALGO_TIMELY:
		return s->timely.pace.paced;
	default:
		return s->rp.pace.paced;
	}
}

/*
 * Does sroce_cc_on_tx() count the QP's packets (its algorithm has acted
 * on it)? Until then a sender need not read the clock for it.
 */
static inline bool sroce_cc_counts_tx(const struct sroce_cc_sender *s)
{
	switch (s->algo) {
	case SROCE_CC_ALGO_TIMELY:
		return s->timely.pace.paced;
	default:
		return s->rp.active;
	}
}

/* When to ask again after sroce_cc_may_send() said no, ns. */
static inline u64 sroce_cc_next_send_ns(const struct sroce_cc_sender *s)
{
	switch (s->algo) {
	case SROCE_CC_ALGO_TIMELY:
		return s->timely.pace.next_send;
	default:
		return sroce_cc_rp_next_send_ns(&s->rp);
	}
}

/* A packet of @bytes (as on the wire) was handed to the network at @now. */
static inline void sroce_cc_on_tx(struct sroce_cc_sender *s,
				  const struct sroce_cc_params *p, u32 bytes,
				  u64 now)
{
	switch (s->algo) {
	case SROCE_CC_ALGO_TIMELY:
		sroce_cc_timely_on_tx(&s->timely, bytes, now);
		break;
	default:
		sroce_cc_rp_on_tx(&s->rp, p, bytes, now);
		break;
	}
}

/*
 * A request packet with @psn leaves at @now (@first: never sent before;
 * @answered: it asks for an answer): the RTT sampler may tag it. Only
 * QPs that use samples tag; others skip the sampler entirely.
 */
static inline void sroce_cc_on_send(struct sroce_cc_sender *s, u32 psn,
				    bool first, bool answered, u64 now)
{
	if (s->sampling)
		sroce_cc_rtt_on_send(&s->rtt, psn, first, answered, now);
}

/*
 * Should the next new packet ask for an answer (AckReq) so that the
 * sampler can tag it? Without this a long message paced at a low rate
 * would be sampled once per AckReq interval (many round trips) only.
 */
static inline bool sroce_cc_wants_sample(const struct sroce_cc_sender *s)
{
	return s->eager && !s->rtt.armed;
}

#endif /* _SROCE_CC_OPS_H */
