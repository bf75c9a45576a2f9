/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The requester (sroce_req.c) turns send WQEs into packets; the completer
 * (sroce_comp.c) retires them on ACKs, read responses and atomic ACKs,
 * retransmits on timeout or NAK, and completes them into the send CQ.
 */
#ifndef _SROCE_REQ_H
#define _SROCE_REQ_H

#include <linux/hrtimer.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "sroce_cc_ops.h"

#include "sroce_mr.h"
#include "sroce_req_rto.h"
#include "sroce_req_win.h"

struct sk_buff;
struct sroce_pkt;
struct sroce_qp;

/*
 * Per-WQE requester progress, inside struct sroce_swqe: set when the
 * requester starts the WQE (sroce_sq_fetch() zeroes it). A WQE whose
 * payload cannot be gathered gets its error in sroce_swqe.status, like one
 * that failed validation. Protected by req.lock.
 */
struct sroce_swqe_progress {
	u32 first_psn;		/* PSN of the first packet */
	u32 last_psn;		/* of the last packet (READ: last response) */
	u32 done_pkts;		/* READ: response packets placed */
	u32 done_bytes;		/* READ: response bytes placed */
};

/* Bits of sroce_req.flags. */
enum {
	SROCE_REQ_RUNNING,	/* someone runs the requester */
	SROCE_REQ_AGAIN,	/* it must look at the SQ once more */
};

/*
 * Per-QP requester and completer state, inside struct sroce_qp.
 *
 * Indices are masked SQ ring indices. The WQEs in [sq.queue.index, cur)
 * were sent in full at least once; cur is being sent from packet cur_pkt;
 * [cur, sq.head) wait. A rewind (retransmission) moves cur and psn back.
 *
 * Lock order: qp->state_lock, lock, sq.lock, the send CQ's lock. lock is
 * never held while a packet is transmitted; it is held while send CQEs are
 * posted, so that they appear in SQ order whoever retires the WQEs
 * (completer, timers, flush). Kicks from a completion handler therefore
 * defer to the work item.
 */
struct sroce_req {
	/* lock protects everything below and the WQEs' progress. */
	spinlock_t lock;
	unsigned long flags;	/* SROCE_REQ_*: atomic bit operations */
	/* Owned by the runner (SROCE_REQ_RUNNING), as the lock is not held. */
	u8 xmit_tries;		/* sroce_xmit_backoff() */
	unsigned long backoff;	/* jiffies to wait after SROCE_REQ_BACKOFF */

	u32 psn;		/* next PSN to send */
	u32 psn_high;		/* one past the highest PSN ever sent */
	u32 una;		/* oldest PSN not yet acknowledged */
	u32 cur;		/* WQE being sent */
	u32 cur_pkt;		/* its next packet */
	u32 sent_end;		/* WQEs before it were sent in full once */
	/*
	 * The WQE at sent_end has its PSNs: its first sending started. Not
	 * to be guessed from cur_pkt or una, which a rewind to its first
	 * packet and an ACK of all that was sent leave as they were before
	 * it started; seek must still find it.
	 */
	bool end_psns;
	u32 head;		/* sq.head as last fetched */
	struct sroce_sge_cursor cursor;	/* gather position in WQE cur */
	u32 rd_atomic;		/* sroce_seg_takes_rd_atomic() WQEs in flight */
	u32 max_rd_atomic;
	u32 noack;		/* packets since the last AckReq */
	u32 gen;		/* bumped by every rewind, flush and stop */
	/*
	 * Bumped by every start, flush and stop: what a runner decided
	 * before (a UC completion, an error) belongs to another connection.
	 */
	u32 epoch;
	u32 nak_psn;		/* last sequence-error NAK acted on */
	bool nak_valid;
	u8 retry_left;		/* attr.retry_cnt, reloaded on progress */
	u8 rnr_left;		/* attr.rnr_retry, ditto; 7 is infinite */
	bool rnr_wait;		/* RNR NAK'd: silent until rnr_timer */
	bool stopped;		/* QP in error: send nothing, arm nothing */
	bool expired;		/* retry_timer ran out, no progress since */
	bool early;		/* ... or only its early wait did */
	bool grace;		/* retry_timer was extended for a stall */
	bool probe;		/* after a timeout: one packet until progress */
	unsigned long timeout;	/* retransmit timeout in jiffies, 0: none */
	unsigned long deadline;	/* jiffies: the timeout, from the last progress */
	/*
	 * The answer awaited for the early expiry (sroce_req_rto.h): the
	 * last packet sent with AckReq stands for PSNs up to ask_psn; it
	 * left, or the last progress came, at ask_at (jiffies).
	 */
	unsigned long ask_at;
	u32 ask_psn;
	bool asking;		/* an answer covering ask_psn is awaited */
	struct sroce_req_rto rto;	/* early retransmit wait */
	/*
	 * An early expiry re-asked a READ whose responses had begun. If the
	 * first response then is the original stream's (a MIDDLE or LAST at
	 * early_read_psn; the re-asked READ starts with FIRST or ONLY), the
	 * responder had only paused: the expiry was spurious, and the pause
	 * since early_read_since (jiffies) is a round trip the wait learns.
	 */
	bool early_read;
	u32 early_read_psn;
	unsigned long early_read_since;
	struct sroce_req_win win;	/* PSNs allowed in flight */

	/* The completer's scatter position in the READ being answered. */
	struct sroce_sge_cursor rd_cursor;
	u32 rd_index;		/* the WQE it belongs to */
	u32 rd_bytes;		/* and the bytes placed before it */
	bool rd_valid;

	/*
	 * Congestion control (sroce_cc_ops.h): algorithm chosen and reset at
	 * RTS, fed CNPs by the receive path and every packet sent by the
	 * requester.
	 */
	struct sroce_cc_sender cc;
	/* Restarts a paced requester at its next departure time. */
	struct hrtimer pace_timer;

	struct timer_list retry_timer;
	struct timer_list rnr_timer;
	struct delayed_work work;	/* the requester when deferred */
	bool inited;		/* lock, timers and work are set up */
};

/*
 * Call sroce_req_init() at create_qp and again after sroce_req_cleanup()
 * on the way through RESET; sroce_req_cleanup() at destroy once no packet
 * or doorbell can reach the QP. Both sleep.
 */
void sroce_req_init(struct sroce_qp *qp);
/* The QP reached RTS: start sending from attr.sq_psn. */
void sroce_req_start(struct sroce_qp *qp);
/*
 * A drained SQD QP changed its timeout, retry counts or max_rd_atomic
 * (IBTA 10.3.1: SQD -> SQD): take them on.
 */
void sroce_req_update(struct sroce_qp *qp);
/*
 * SQE -> RTS: the requester, stopped and flushed when the QP entered SQE,
 * resumes with the next WQE at its PSN (UD, GSI, UC).
 */
void sroce_req_resume(struct sroce_qp *qp);
/* Every WQE the requester started has completed (SQD drained). */
bool sroce_req_sq_idle(struct sroce_qp *qp);
/* New WQEs may be in the SQ (the doorbell, or post_send). Never sleeps. */
void sroce_req_kick(struct sroce_qp *qp);
/*
 * The completer took an answer that lets the requester go on: run it
 * here (receive softirq), or, inside a loopback delivery, let it go round
 * again or have its work item run it. Context: BH disabled.
 */
void sroce_req_answered(struct sroce_qp *qp);
/*
 * The QP went to ERR (or SQE): complete every outstanding send WQE as
 * flushed; nothing if it is in neither state by the time req.lock is
 * taken. Call it without QP locks held: it posts completions.
 */
void sroce_req_flush(struct sroce_qp *qp);
/* The QP is being destroyed: stop timers, wait for running work. */
void sroce_req_cleanup(struct sroce_qp *qp);
/*
 * Charge @n packets of @len bytes each (BTH to ICRC) that leave at @now,
 * as they are on the wire, to the QP's congestion control: the requester's
 * packets and the responder's READ responses alike. Caller holds req.lock.
 */
void sroce_req_cc_charge(struct sroce_qp *qp, unsigned int len, u32 n,
			 u64 now);

/* sroce_comp.c */
/* An ACK, NAK, read response or atomic ACK for this QP. Consumes @skb. */
void sroce_comp_recv(struct sroce_qp *qp, struct sk_buff *skb,
		     struct sroce_pkt *pkt);
/*
 * Free the oldest WQE's SQ slot, then post @wqe's send completion if it
 * has one to post (errors, signalled WQEs); false when the send CQ
 * overflowed.
 */
struct sroce_swqe;
bool sroce_comp_retire(struct sroce_qp *qp, const struct sroce_swqe *wqe,
		       enum ib_wc_status status);
/*
 * UC: every packet up to @psn has been sent; retire what it completes,
 * unless req->epoch moved on from @epoch (the runner's snapshot).
 */
void sroce_comp_uc_sent(struct sroce_qp *qp, u32 psn, u32 epoch);
void sroce_comp_retry_timer(struct timer_list *t);
void sroce_comp_rnr_timer(struct timer_list *t);
/*
 * The requester stopped at a WQE that failed locally: complete it if it is
 * the oldest. Caller holds req.lock; true means the QP must go to ERR.
 */
bool sroce_comp_local_error(struct sroce_qp *qp);
/*
 * Complete the executed local operations (REG_MR, LOCAL_INV, BIND_MW) at
 * the head of the SQ: they retire once every WQE before them has. Caller
 * holds req.lock; true means the QP must go to ERR (the CQ overflowed).
 */
bool sroce_comp_local_ops(struct sroce_qp *qp);
/*
 * The retransmit timer ran out (req.expired): retry unless progress came
 * since. Caller holds req.lock; true means the QP must go to ERR.
 */
bool sroce_comp_expired(struct sroce_qp *qp);
/*
 * Only the early wait ran out (req.early, sroce_req_rto.h): resend a
 * probe, keeping the retries. Caller holds req.lock.
 */
void sroce_comp_early(struct sroce_qp *qp);

/*
 * sroce_req_pushed_back() - after sroce_xmit() returned @err for one of
 * the requester's packets: true when the runner should wait req.backoff
 * jiffies and send that packet again (back-pressure); false when it left
 * or counts as lost (refused, or pushed back too often). Runner only.
 */
bool sroce_req_pushed_back(struct sroce_qp *qp, int err);

/* sroce_req.c, for sroce_comp.c. Caller holds req.lock. */
/* Resume sending at @psn: a retransmission, or skipping acknowledged PSNs. */
void sroce_req_seek(struct sroce_qp *qp, u32 psn);
/* Progress, or a restart the peer asked for: the timeout runs anew. */
void sroce_req_arm_retry(struct sroce_qp *qp);
/* The deadline stays; aim retry_timer at it or at the early expiry. */
void sroce_req_set_retry_timer(struct sroce_qp *qp);
/* May @wqe, at cur and sent_end, start (fences, PSN room, rd_atomic)? */
bool sroce_req_may_start(struct sroce_qp *qp, const struct sroce_swqe *wqe);
/* Are as many PSNs in flight as the requester sends before an ACK? */
bool sroce_req_window_full(const struct sroce_req *req);
/* Run the requester in this context, with no QP lock held. */
void sroce_req_run(struct sroce_qp *qp);

#endif /* _SROCE_REQ_H */
