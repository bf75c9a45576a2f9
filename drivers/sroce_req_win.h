/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The requester's send window: how many PSNs one RC QP may have in flight
 * (sent, not yet acknowledged) before it waits for an ACK.
 *
 * The wire stays go-back-N, as IBTA and every peer expect: a retransmit
 * timeout makes the requester send everything from the oldest PSN again,
 * and a peer that cannot take a window within the QP's timeout (a slow
 * receiver, a tool's fixed 67 ms timeout) gets the whole window again on
 * every timeout, on top of the queue it has not worked through yet. The
 * window therefore adapts to timeouts as TCP's congestion window does
 * (RFC 5681), counted in PSNs:
 *
 * - a retransmit timeout halves ssthresh (the first one of a loss) and
 *   sets the window to its floor;
 * - progress (una moves on by n PSNs) grows it by n below ssthresh (slow
 *   start) and by one PSN per window's worth of PSNs above it.
 *
 * A loss the peer reports (a sequence error NAK, a gap in READ responses)
 * does not cut it: on a path that loses packets at random that only
 * slows the sender (measured, 2% netem loss, 64 KiB: cutting on NAKs
 * gave 0.40 of the fixed window's WRITE and 0.22 of its SEND bandwidth),
 * and congestion is what ECN and the rate control are for. An RNR NAK
 * changes nothing either.
 *
 * It starts at its ceiling, so a clean path runs exactly as with a fixed
 * window; the device parameter tx_adaptive_window 0 keeps it there.
 *
 * Pure functions; the caller serialises access (req.lock).
 */
#ifndef _SROCE_REQ_WIN_H
#define _SROCE_REQ_WIN_H

#include <linux/minmax.h>
#include <linux/types.h>

#include "sroce_psn.h"

/*
 * Ceiling: rdma_rxe's 128 leaves a sender idle for most of a round trip
 * when the round trip is slow (measured on TCG guests: 256 moves about
 * 1.3 times as much as 128; 512 no more than 256).
 */
#define SROCE_REQ_WIN_MAX	256
/*
 * Floor: after a timeout. Above one packet so that a READ response or an
 * ACK coalesced by the peer still reopens it; the probe after a timeout
 * (sroce_comp_expired()) sends one packet before any of these.
 */
#define SROCE_REQ_WIN_MIN	4

struct sroce_req_win {
	u32 cwnd;		/* PSNs that may be in flight */
	u32 ssthresh;		/* slow start below, linear growth above */
	u32 acked;		/* PSNs acknowledged toward the next +1 */
	u32 una;		/* oldest unacknowledged PSN it has seen */
	u32 recover;		/* one past the highest PSN sent at the cut */
	bool recovering;	/* cut: ssthresh stays until una passes recover */
	bool adaptive;		/* tx_adaptive_window at RTS */
};

/* The QP reached RTS with @una as its first PSN. */
static inline void sroce_req_win_init(struct sroce_req_win *w, u32 una,
				      bool adaptive)
{
	*w = (struct sroce_req_win){
		.cwnd = SROCE_REQ_WIN_MAX,
		.ssthresh = SROCE_REQ_WIN_MAX,
		.una = una,
		.adaptive = adaptive,
	};
}

/* Every PSN before @una is acknowledged. */
static inline void sroce_req_win_ack(struct sroce_req_win *w, u32 una)
{
	u32 n, grow;

	if (!sroce_psn_gt(una, w->una))
		return;
	n = sroce_psn_span(w->una, una);
	w->una = una;
	if (w->recovering && sroce_psn_ge(una, w->recover))
		w->recovering = false;
	if (!w->adaptive)
		return;
	if (w->cwnd < w->ssthresh) {
		grow = min(n, w->ssthresh - w->cwnd);
		w->cwnd += grow;
		n -= grow;
	}
	w->acked += n;
	while (w->acked >= w->cwnd && w->cwnd < SROCE_REQ_WIN_MAX) {
		w->acked -= w->cwnd;
		w->cwnd++;
	}
	if (w->cwnd >= SROCE_REQ_WIN_MAX)
		w->acked = 0;
}

/*
 * The retransmit timer ran out; @high is one past the highest PSN sent.
 * A second timeout before una passes what was in flight at the first
 * keeps ssthresh (RFC 5681 section 3.1: what is in flight then is
 * already small). True if the window was cut.
 */
static inline bool sroce_req_win_timeout(struct sroce_req_win *w, u32 high)
{
	if (!w->adaptive)
		return false;
	if (!w->recovering)
		w->ssthresh = max_t(u32, w->cwnd / 2, SROCE_REQ_WIN_MIN);
	w->recover = high;
	w->recovering = true;
	w->acked = 0;
	w->cwnd = SROCE_REQ_WIN_MIN;
	return true;
}

#endif /* _SROCE_REQ_WIN_H */
