/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DCQCN for sroce: the reaction point (RP, per sending QP: rate cut on CNP,
 * recovery by timer and byte counter, pacing) and the notification point
 * (NP, per receiving QP: CNP spacing). Pure functions of their state, the
 * parameters and a caller-supplied clock in ns; no timers, no allocation,
 * no RDMA or skb dependencies. Callers report events (a CNP arrived, bytes
 * were sent, a CE packet arrived) and ask questions (may this QP send now,
 * send a CNP?); alpha decay and timer-driven increases that fell due since
 * the last event are computed from the clock when the next event comes.
 *
 * Context and locking: every function is O(1) (a bounded catch-up), never
 * sleeps and may run in softirq. One RP is driven by its QP's requester
 * and one NP by its QP's responder; each caller serialises access to its
 * own state (the QP's send or receive lock). Parameters are read with
 * READ_ONCE() and may change at any time.
 */
#ifndef _SROCE_CC_H
#define _SROCE_CC_H

#include <linux/types.h>

#include "sroce_cc_params.h"

enum sroce_cc_fixed_point {
	/*
	 * alpha is kept in 1/2^30 (mlx5's 1/1024 unit is this >> 20): a cut
	 * of a 400 Gb/s rate then resolves to well under 1 kb/s.
	 */
	SROCE_CC_ALPHA_SHIFT		= 30,
	SROCE_CC_ALPHA_PARAM_SHIFT	= SROCE_CC_ALPHA_SHIFT - 10,
	/* Pacing cost of one byte, ns in 1/2^24. */
	SROCE_CC_PACE_SHIFT		= 24,
	/*
	 * A paced QP woken late may catch up at most this many bytes at
	 * once, so timer slack does not lower its rate while an idle QP
	 * cannot bank a long burst; and at most what it sends in
	 * SROCE_CC_PACE_BURST_NS, but never less than
	 * SROCE_CC_PACE_MIN_BURST_BYTES: at a few Mb/s 16 KB is tens of ms
	 * of sending, and many slow QPs stalled together (a vCPU not run)
	 * would put that much each into a congested port at once. Bounded
	 * in time, the QPs sharing a port together catch up at most 4 ms of
	 * the port's rate, whatever their number. 4 ms, not less: a TCG
	 * guest's timers are that late, and at 1 ms a QP lost a third of
	 * its rate to them (Documentation/sroce-cc.rst, K:1).
	 */
	SROCE_CC_PACE_BURST_BYTES	= 16384,
	SROCE_CC_PACE_MIN_BURST_BYTES	= 2048,
	SROCE_CC_PACE_BURST_NS		= 4000000,
	/* rp_byte_reset counts 64-byte units (see sroce_cc_params.c). */
	SROCE_CC_BYTE_RESET_UNIT	= 64,
	/* Stage counters saturate here; only "above F" matters beyond. */
	SROCE_CC_STAGE_MAX		= 1 << 30,
};

/*
 * Pacer of one sending QP, shared by every rate-based algorithm: a rate
 * below line rate spaces packets by their size at that rate, with a burst
 * credit of SROCE_CC_PACE_BURST_BYTES or less (sroce_cc_pacer_credit(),
 * computed when the rate changes, not per packet).
 * Serialised by the owner's lock.
 */
struct sroce_cc_pacer {
	u64 next_send;		/* earliest departure of the next packet, ns */
	u64 pace_q;		/* ns per byte, 1/2^SROCE_CC_PACE_SHIFT */
	u64 credit;		/* catch-up credit at pace_q, ns */
	bool paced;		/* rate below line rate: pacing applies */
};

void sroce_cc_pacer_set_rate(struct sroce_cc_pacer *pc, u64 rate, u64 line,
			     u64 now);
void sroce_cc_pacer_on_tx(struct sroce_cc_pacer *pc, u32 bytes, u64 now);

/* May a packet leave now (pacing off, or its departure time reached)? */
static inline bool sroce_cc_pacer_may_send(const struct sroce_cc_pacer *pc,
					   u64 now)
{
	return !pc->paced || (s64)(now - pc->next_send) >= 0;
}

/* Reaction point state of one QP; fields are private to sroce_cc.c. */
struct sroce_cc_rp {
	u64 rc;			/* current rate, bit/s */
	u64 rt;			/* target rate, bit/s */
	u64 line;		/* link rate, bit/s */
	u64 t_ref;		/* start of the running T period, ns */
	u64 a_ref;		/* start of the running alpha period, ns */
	u64 last_cut;		/* time of the last cut, ns */
	struct sroce_cc_pacer pace;	/* spaces packets at rc */
	u64 bytes;		/* bytes sent since the last byte event */
	u32 alpha;		/* congestion estimate, 1/2^SROCE_CC_ALPHA_SHIFT */
	u32 tstage;		/* timer increase events since the last cut */
	u32 bstage;		/* byte increase events since the last cut */
	bool active;		/* a CNP was handled: DCQCN state is live */
	bool alpha_cnp;		/* a CNP was handled in this alpha period */
};

/* What the RP did with a CNP; the caller counts it. */
enum sroce_cc_cnp_verdict {
	/* The rate was cut (or set by rp_rate_to_set_on_first_cnp). */
	SROCE_CC_CNP_HANDLED,
	/*
	 * Within rp_rate_reduce_monitor_period of the last cut: no effect
	 * (count as rp_cnp_ignored).
	 */
	SROCE_CC_CNP_IGNORED,
};

/* Snapshot of an RP for tracing and tests, in the parameters' units. */
struct sroce_cc_rp_info {
	u64 rc_kbps;		/* current rate, kb/s, rounded */
	u64 rt_kbps;		/* target rate, kb/s, rounded */
	u32 alpha;		/* 1/1024, rounded */
	u32 tstage;
	u32 bstage;
	bool active;
};

void sroce_cc_rp_init(struct sroce_cc_rp *rp, u32 line_mbps);
enum sroce_cc_cnp_verdict sroce_cc_rp_on_cnp(struct sroce_cc_rp *rp,
					     const struct sroce_cc_params *p,
					     u64 now);
void __sroce_cc_rp_on_tx(struct sroce_cc_rp *rp,
			 const struct sroce_cc_params *p, u32 bytes, u64 now);
u64 sroce_cc_rp_rate(struct sroce_cc_rp *rp, const struct sroce_cc_params *p,
		     u64 now);
void sroce_cc_rp_get_info(const struct sroce_cc_rp *rp,
			  struct sroce_cc_rp_info *info);

/**
 * sroce_cc_rp_on_tx() - report a packet handed to the network
 * @rp: the sending QP's RP
 * @p: device parameters
 * @bytes: bytes of the packet, as the pacer should charge them
 * @now: clock, ns
 *
 * Advances the byte counter and the pacing clock. Free for a QP that never
 * received a CNP.
 */
static inline void sroce_cc_rp_on_tx(struct sroce_cc_rp *rp,
				     const struct sroce_cc_params *p,
				     u32 bytes, u64 now)
{
	if (rp->active)
		__sroce_cc_rp_on_tx(rp, p, bytes, now);
}

/**
 * sroce_cc_rp_may_send() - may the QP send its next packet now?
 * @rp: the sending QP's RP
 * @now: clock, ns
 *
 * Return: true unless the QP is paced and its next departure time is still
 * ahead; then sroce_cc_rp_next_send_ns() says when to retry.
 */
static inline bool sroce_cc_rp_may_send(const struct sroce_cc_rp *rp, u64 now)
{
	return sroce_cc_pacer_may_send(&rp->pace, now);
}

/* Earliest departure of the next packet (meaningful while paced). */
static inline u64 sroce_cc_rp_next_send_ns(const struct sroce_cc_rp *rp)
{
	return rp->pace.next_send;
}

/* Notification point state of one QP; fields are private to sroce_cc.c. */
struct sroce_cc_np {
	u64 last_cnp;		/* time of the last CNP sent, ns */
	bool sent;		/* a CNP was ever sent (last_cnp valid) */
};

void sroce_cc_np_init(struct sroce_cc_np *np);
bool sroce_cc_np_should_send_cnp(struct sroce_cc_np *np,
				 const struct sroce_cc_params *p, u64 now);

#endif /* _SROCE_CC_H */
