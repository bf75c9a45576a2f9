/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Round-trip sampler of one sending QP, for delay-based congestion
 * control: the requester's own clock at both ends, nothing from the peer
 * (an rdma_rxe responder sets no timestamp).
 *
 * One packet at a time is tagged: the first new (never sent before)
 * packet that asks for an answer (AckReq set, which every READ and atomic
 * request has) while no tag is outstanding; a QP that wants a sample
 * every round trip sets AckReq on the next new packet while none is
 * (sroce_cc_wants_sample()). The first
 * ACK, NAK or response that acknowledges the tagged PSN gives the sample,
 * so there is one sample per round trip and O(1) memory whatever the
 * window. Tagging only packets with AckReq keeps the responder's ACK
 * coalescing out of the sample: the answer to such a packet is not held
 * back for later ones.
 *
 * Karn's rule: a sample must not come from a PSN sent twice, whose answer
 * may be to either copy. Any retransmission drops the tag; the next new
 * packet gets one.
 *
 * Pure functions; the caller serialises access (req.lock).
 */
#ifndef _SROCE_CC_RTT_H
#define _SROCE_CC_RTT_H

#include <linux/types.h>

#include "sroce_psn.h"

struct sroce_cc_rtt {
	u64 sent;		/* send time of the tagged PSN, ns */
	u32 psn;		/* the tagged PSN */
	bool armed;		/* a tag awaits its answer */
};

static inline void sroce_cc_rtt_init(struct sroce_cc_rtt *r)
{
	*r = (struct sroce_cc_rtt){};
}

/**
 * sroce_cc_rtt_on_send() - a request packet leaves
 * @r: the QP's sampler
 * @psn: its PSN
 * @first: it was never sent before (not a retransmission)
 * @answered: it asks for an answer (AckReq)
 * @now: clock, ns
 */
static inline void sroce_cc_rtt_on_send(struct sroce_cc_rtt *r, u32 psn,
					bool first, bool answered, u64 now)
{
	if (!first) {
		r->armed = false;
		return;
	}
	if (r->armed || !answered)
		return;
	r->armed = true;
	r->psn = psn;
	r->sent = now;
}

/* Would an answer acknowledging every PSN up to @psn give a sample? */
static inline bool sroce_cc_rtt_due(const struct sroce_cc_rtt *r, u32 psn)
{
	return r->armed && sroce_psn_ge(psn, r->psn);
}

/**
 * sroce_cc_rtt_on_ack() - an answer acknowledging every PSN up to @psn
 * @r: the QP's sampler
 * @psn: the last PSN the answer covers
 * @now: clock, ns
 * @rtt: set to the sample, ns, if there is one
 *
 * Return: true if this answer gives a sample (once per tag).
 */
static inline bool sroce_cc_rtt_on_ack(struct sroce_cc_rtt *r, u32 psn,
				       u64 now, u64 *rtt)
{
	if (!sroce_cc_rtt_due(r, psn))
		return false;
	r->armed = false;
	*rtt = (s64)(now - r->sent) > 0 ? now - r->sent : 0;
	return true;
}

#endif /* _SROCE_CC_RTT_H */
