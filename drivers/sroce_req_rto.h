/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The requester's early retransmit timeout: how long one RC QP waits for
 * the answer to a packet that asked for one (AckReq) before it resends,
 * from the round trips it has measured (sroce_cc_rtt.h), as TCP's RTO
 * (RFC 6298) is computed.
 *
 * The QP's timeout attribute (IBTA vol 1 9.7.6.1.3: 4.096 us * 2^timeout)
 * is the application's bound on how long a peer may stay silent, and only
 * its expiry spends one of retry_cnt. Tools set it far above a LAN's round
 * trip (perftest and ibv_rc_pingpong: 14, 67 ms; rdma_cm: 18, about 1 s),
 * so a lost tail of a message, a lost ACK or a lost NAK used to idle the
 * QP for that long. An early expiry resends before that, as the timeout
 * would: one probe packet (the oldest unacknowledged) first, the window
 * cut (sroce_req_win.h). It spends no retry, and it backs off: each one
 * without progress doubles the next wait, and once the wait reaches the
 * QP's timeout only the timeout is left. A peer that is merely slow thus
 * costs one probe packet per backoff step, and a dead one still meets
 * retry_cnt timeouts of the length the application chose (or of the
 * measured round trip, below).
 *
 * The estimate also stretches the whole timeout (sroce_req_rto_timeout())
 * toward a peer measured slower than the attribute allows: the attribute
 * is the least time a QP waits for an answer ("the minimum timeout that a
 * QP waits for ACK/NACK", as ibv_modify_qp's documentation puts it), and a
 * peer that answers every window, only later than that (a debug kernel, a
 * vCPU shared with the application), would otherwise spend a retry per
 * window until retry_cnt ran out. Samples are taken on every RC QP for
 * this; enabled gates only the early expiry.
 *
 * Pure functions; the caller serialises access (req.lock).
 */
#ifndef _SROCE_REQ_RTO_H
#define _SROCE_REQ_RTO_H

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/time64.h>
#include <linux/minmax.h>
#include <linux/types.h>

/* Backoff steps kept; more would be past any QP timeout anyway. */
#define SROCE_REQ_RTO_BACKOFF_MAX	16
/*
 * Floor, ns: a peer may hold an ACK back a little (coalescing, a busy
 * CPU), and a hostile one may answer one tagged packet at once and the
 * rest late; a probe for every such wait would only add packets.
 */
#define SROCE_REQ_RTO_MIN_NS		(5 * NSEC_PER_MSEC)
/*
 * The whole timeout's ceiling, in QP timeouts: a dead peer still fails
 * the QP within retry_cnt times this multiple of what the application
 * chose, however slow the round trips measured before it died.
 */
#define SROCE_REQ_RTO_TIMEOUT_MULT	4

struct sroce_req_rto {
	u64 srtt;		/* smoothed round trip, ns; 0: no sample yet */
	u64 rttvar;		/* its mean deviation, ns */
	u8 backoff;		/* early expiries since the last progress */
	bool enabled;		/* tx_rtt_retransmit at RTS */
};

static inline void sroce_req_rto_init(struct sroce_req_rto *r, bool enabled)
{
	*r = (struct sroce_req_rto){ .enabled = enabled };
}

/* A round trip of @rtt ns was measured (RFC 6298 section 2). */
static inline void sroce_req_rto_sample(struct sroce_req_rto *r, u64 rtt)
{
	u64 delta;

	/* 0 marks "no sample": a sample under 1 ns counts as 1 ns. */
	rtt = max_t(u64, rtt, 1);
	if (!r->srtt) {
		r->srtt = rtt;
		r->rttvar = rtt / 2;
		return;
	}
	delta = r->srtt > rtt ? r->srtt - rtt : rtt - r->srtt;
	/* beta 1/4, alpha 1/8 */
	r->rttvar = r->rttvar - r->rttvar / 4 + delta / 4;
	r->srtt = max_t(u64, r->srtt - r->srtt / 8 + rtt / 8, 1);
}

/* The answer came (progress): the next wait is not backed off. */
static inline void sroce_req_rto_progress(struct sroce_req_rto *r)
{
	r->backoff = 0;
}

/* An early expiry: the next wait is twice as long. */
static inline void sroce_req_rto_backoff(struct sroce_req_rto *r)
{
	if (r->backoff < SROCE_REQ_RTO_BACKOFF_MAX)
		r->backoff++;
}

/* SRTT + max(G, 4 * RTTVAR) in ticks of @tick_ns, plus the tick under way. */
static inline u64 sroce_req_rto_est_ticks(const struct sroce_req_rto *r,
					  u32 tick_ns, u64 floor_ns)
{
	u64 ns = r->srtt + max_t(u64, tick_ns, 4 * r->rttvar);

	ns = max(ns, floor_ns);
	return div_u64(ns + tick_ns - 1, tick_ns) + 1;
}

/**
 * sroce_req_rto_timeout() - the whole retransmit timeout, in timer ticks
 * @r: the QP's estimator
 * @tick_ns: length of a tick
 * @timeout: the QP's timeout attribute in ticks, 0 if it has none
 *
 * Return: @timeout, or the estimate (as for the early wait, without floor
 * or backoff) where that is longer, at most SROCE_REQ_RTO_TIMEOUT_MULT
 * times @timeout; @timeout itself without a sample, or with no timeout.
 */
static inline unsigned long sroce_req_rto_timeout(const struct sroce_req_rto *r,
						  u32 tick_ns,
						  unsigned long timeout)
{
	u64 ticks, ceiling;

	if (!r->srtt || !timeout || !tick_ns)
		return timeout;
	ticks = sroce_req_rto_est_ticks(r, tick_ns, 0);
	if (ticks <= timeout)
		return timeout;
	ceiling = timeout <= ULONG_MAX / SROCE_REQ_RTO_TIMEOUT_MULT ?
		  (u64)timeout * SROCE_REQ_RTO_TIMEOUT_MULT : ULONG_MAX;
	return min(ticks, ceiling);
}

/**
 * sroce_req_rto_ticks() - the early wait, in timer ticks
 * @r: the QP's estimator
 * @tick_ns: length of a tick
 * @timeout: the QP's retransmit timeout in ticks, 0 if it has none
 *
 * SRTT + max(G, 4 * RTTVAR), G the clock's granularity (one tick), at
 * least SROCE_REQ_RTO_MIN_NS, plus one tick because a timer set n ticks
 * ahead may run after n - 1 whole ticks, times 2^backoff.
 *
 * Return: the wait, or 0 if there is no early expiry: disabled, no sample
 * yet, or not shorter than @timeout (the timeout comes first).
 */
static inline unsigned long sroce_req_rto_ticks(const struct sroce_req_rto *r,
						u32 tick_ns,
						unsigned long timeout)
{
	u64 ticks;

	if (!r->enabled || !r->srtt || !timeout || !tick_ns)
		return 0;
	ticks = sroce_req_rto_est_ticks(r, tick_ns, SROCE_REQ_RTO_MIN_NS);
	if (ticks >= timeout || r->backoff >= ilog2(timeout) + 1)
		return 0;
	ticks <<= r->backoff;
	return ticks < timeout ? ticks : 0;
}

#endif /* _SROCE_REQ_RTO_H */
