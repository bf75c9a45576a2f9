// SPDX-License-Identifier: GPL-2.0
/*
 * The RC completer: what comes back for the requester's packets.
 *
 * ACKs, NAKs, READ responses and ATOMIC ACKs arrive here in the receive
 * softirq, already checked by sroce_recv() (ICRC, lengths, QP state, peer
 * address). Their PSNs are still remote input: only PSNs in [una,
 * psn_high), the range sent and not yet acknowledged, are acted on; the
 * rest are duplicates or forgeries and are dropped.
 *
 * IBTA vol 1 9.7.5: an ACK acknowledges every PSN up to its own (ACKs
 * coalesce), a NAK or a READ response every PSN before its own. A READ or
 * atomic WQE retires only with its response data; an ACK that passes one
 * still waiting for data means the responses were lost, and the request is
 * reissued for what is missing (9.7.5.1.3).
 *
 * The retransmit timer (9.7.6.1.3) runs while PSNs are outstanding and is
 * restarted by progress; each expiry costs one of retry_cnt (restarts the
 * peer asks for do not), each RNR NAK one of rnr_retry (7: infinite), both
 * reloaded by progress. An expiry is acted on by the requester's work item, after the
 * receive path had its turn, and resends one packet only until the peer
 * answers (see sroce_comp_retry_timer()). Send CQEs are posted under
 * req.lock, in SQ order.
 */
#include <linux/skbuff.h>

#include "sroce_counters.h"
#include "sroce_cq.h"
#include "sroce_dev.h"
#include "sroce_pkt.h"
#include "sroce_psn.h"
#include "sroce_qp.h"
#include "sroce_recv.h"
#include "sroce_req.h"
#include "sroce_seg.h"

/* What handling a packet or a timer leaves for after req.lock. */
struct sroce_comp_out {
	bool kick;		/* run the requester */
	bool error;		/* move the QP to ERR */
};

static u32 sroce_comp_next(struct sroce_qp *qp, u32 index)
{
	return (index + 1) & qp->sq.queue.index_mask;
}

/*
 * Free the oldest WQE's SQ slot, then post the send completion of @wqe
 * (its shadow copy, which only a fetch under req.lock rewrites): an
 * application that posts again as soon as it polls the completion must
 * find the slot free, or its post fails with the ring full. Error
 * completions are always reported, successful ones only when signalled
 * (sroce_sq_fetch() marks every WQE signalled on an IB_SIGNAL_ALL_WR QP).
 * Returns false when the CQ overflowed (the QP must go to ERR). Caller
 * holds req.lock.
 */
bool sroce_comp_retire(struct sroce_qp *qp, const struct sroce_swqe *wqe,
		       enum ib_wc_status status)
{
	struct ib_wc wc = {
		.wr_id = wqe->wr_id,
		.status = status,
		.opcode = sroce_seg_wc_opcode(wqe->opcode),
		.qp = &qp->ibqp,
	};
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	sroce_queue_advance_consumer(&qp->sq.queue);
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	if (status == IB_WC_SUCCESS && !(wqe->send_flags & IB_SEND_SIGNALED))
		return true;
	if (status == IB_WC_SUCCESS) {
		wc.byte_len = wqe->length;
		if (wqe->opcode == IB_WR_SEND_WITH_IMM ||
		    wqe->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
			wc.wc_flags = IB_WC_WITH_IMM;
	}
	return !sroce_cq_post(to_scq(qp->ibqp.send_cq), &wc, false);
}

/*
 * Complete the oldest WQE and free its slot (sroce_comp_retire()).
 * Returns false when the CQ overflowed. Caller holds req.lock.
 */
static bool sroce_comp_complete(struct sroce_qp *qp, struct sroce_swqe *wqe,
				enum ib_wc_status status)
{
	struct sroce_req *req = &qp->req;
	u32 index = qp->sq.queue.index;

	/* Only WQEs sent in full were counted in rd_atomic. */
	if (index != req->sent_end) {
		if (sroce_seg_takes_rd_atomic(wqe->opcode))
			req->rd_atomic--;
		if (index == req->cur) {
			/* A coalesced ACK overtook a retransmission. */
			req->cur = sroce_comp_next(qp, index);
			req->cur_pkt = 0;
			req->psn = sroce_psn_add(wqe->prog.last_psn, 1);
			req->gen++;
		}
	} else {
		req->sent_end = sroce_comp_next(qp, index);
		req->end_psns = false;
		req->cur = req->sent_end;
		req->cur_pkt = 0;
	}
	if (req->rd_index == index)
		req->rd_valid = false;
	return sroce_comp_retire(qp, wqe, status);
}

/*
 * Complete the oldest WQE with an error and stop the QP's send side; the
 * caller moves the QP to ERR, which flushes the rest. Caller holds req.lock.
 */
static void sroce_comp_fail(struct sroce_qp *qp, enum ib_wc_status status,
			    struct sroce_comp_out *out)
{
	struct sroce_req *req = &qp->req;

	if (qp->sq.queue.index != req->head)
		sroce_comp_complete(qp, sroce_sq_wqe(qp, qp->sq.queue.index),
				    status);
	req->stopped = true;
	del_timer(&req->retry_timer);
	del_timer(&req->rnr_timer);
	out->error = true;
}

bool sroce_comp_local_ops(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_comp_out out = {};
	struct sroce_swqe *wqe;

	/* Executed local operations at the head: [index, sent_end). */
	while (!req->stopped && qp->sq.queue.index != req->sent_end) {
		wqe = sroce_sq_wqe(qp, qp->sq.queue.index);
		if (!sroce_seg_is_local(wqe->opcode))
			break;
		if (!sroce_comp_complete(qp, wqe, IB_WC_SUCCESS))
			sroce_comp_fail(qp, IB_WC_WR_FLUSH_ERR, &out);
	}
	return out.error;
}

bool sroce_comp_local_error(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u32 index = qp->sq.queue.index;
	struct sroce_comp_out out = {};
	struct sroce_swqe *wqe;

	/* Only once every WQE before it retired: CQEs go out in order. */
	if (req->stopped || index != req->cur || index == req->head)
		return false;
	wqe = sroce_sq_wqe(qp, index);
	if (wqe->status == IB_WC_SUCCESS)
		return false;
	sroce_comp_fail(qp, wqe->status, &out);
	return out.error;
}

/* Forward progress: reload the retry budgets and restart the timer. */
static void sroce_comp_progress(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	sroce_req_win_ack(&req->win, req->una);
	sroce_req_rto_progress(&req->rto);
	req->retry_left = qp->attr.retry_cnt;
	req->rnr_left = qp->attr.rnr_retry;
	req->nak_valid = false;
	req->expired = false;
	req->early = false;
	req->early_read = false;
	req->probe = false;
	/* Answers are flowing: the early wait runs from now. */
	if (req->asking && sroce_psn_gt(req->una, req->ask_psn))
		req->asking = false;
	req->ask_at = jiffies;
	if (req->una == req->psn_high)
		del_timer(&req->retry_timer);
	else
		sroce_req_arm_retry(qp);
}

/*
 * Do not resend what the peer has: a rewind (a timeout's probe of an
 * older WQE, a NAK) may have left psn behind una while ACKs or READ
 * responses for later PSNs still come. Left there, the window test (una
 * to psn) would wrap and hold the requester idle. True when psn moved.
 * Caller holds req.lock.
 */
static bool sroce_comp_skip_acked(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if (!sroce_psn_lt(req->psn, req->una))
		return false;
	sroce_req_seek(qp, req->una);
	return true;
}

/* Why the requester goes back to a PSN. */
enum sroce_comp_why {
	SROCE_COMP_TIMEOUT,	/* the retransmit timer expired */
	SROCE_COMP_LOSS,	/* the peer says packets were lost */
	SROCE_COMP_ODP_MISS,	/* a response met an unmapped ODP page */
};

/*
 * Retransmit from @psn (go-back-N). Only a retransmit timeout spends one
 * of retry_cnt (IBTA 9.7.6.1.3): a restart the peer asked for with a
 * sequence error NAK, or one that a gap in READ responses or an ACK
 * passing a READ calls for, answers a peer that is alive, and under loss
 * such restarts come many per timeout. A second such restart for the same
 * PSN before any progress is the same loss reported again and is ignored.
 * An ODP miss is no loss to congestion control. Caller holds req.lock.
 */
static void sroce_comp_retry(struct sroce_qp *qp, u32 psn,
			     enum sroce_comp_why why,
			     struct sroce_comp_out *out)
{
	struct sroce_counters *cnt = &to_sdev(qp->ibqp.device)->counters;
	struct sroce_req *req = &qp->req;
	bool timeout = why == SROCE_COMP_TIMEOUT;

	if (!timeout && req->nak_valid && req->nak_psn == psn)
		return;
	if (timeout) {
		if (!req->retry_left) {
			sroce_counter_inc(cnt, SROCE_CNT_RETRY_EXCEEDED);
			sroce_comp_fail(qp, IB_WC_RETRY_EXC_ERR, out);
			return;
		}
		req->retry_left--;
	}
	/* Fewer PSNs in flight after a timeout (sroce_req_win.h). */
	if (timeout && sroce_req_win_timeout(&req->win, req->psn_high))
		sroce_counter_inc(cnt, SROCE_CNT_WINDOW_CUTS);
	/* A loss gives no RTT sample; a delay-based rate reacts to it here. */
	if (why != SROCE_COMP_ODP_MISS)
		sroce_cc_on_loss(&req->cc, &to_sdev(qp->ibqp.device)->cc_params,
				 ktime_get_ns());
	req->nak_psn = psn;
	req->nak_valid = !timeout;
	req->expired = false;
	req->early = false;
	req->early_read = false;
	req->probe = false;
	sroce_req_seek(qp, psn);
	sroce_req_arm_retry(qp);
	out->kick = true;
}

/*
 * Every PSN up to @psn was answered: a round trip sample for congestion
 * control and the early retransmit if the RTT sampler's tagged PSN is
 * among them (sroce_cc_rtt.h). The clock is read only then, once per
 * round trip. Caller holds req.lock.
 */
static void sroce_comp_rtt(struct sroce_qp *qp, u32 psn)
{
	struct sroce_cc_sender *cc = &qp->req.cc;
	u64 now, rtt;

	if (likely(!sroce_cc_rtt_due(&cc->rtt, psn)))
		return;
	now = ktime_get_ns();
	if (!sroce_cc_rtt_on_ack(&cc->rtt, psn, now, &rtt))
		return;
	sroce_req_rto_sample(&qp->req.rto, rtt);
	sroce_cc_on_rtt(cc, &to_sdev(qp->ibqp.device)->cc_params, rtt, now);
}

/*
 * Retire the WQEs an acknowledgment of every PSN up to @psn completes.
 * With @resp (the acknowledgment is implied by a READ response or atomic
 * ACK) a READ/atomic WQE it reaches is left to the caller; otherwise that
 * WQE lost its responses and is reissued. Caller holds req.lock.
 */
static void sroce_comp_ack(struct sroce_qp *qp, u32 psn, bool resp,
			   struct sroce_comp_out *out)
{
	struct sroce_req *req = &qp->req;
	u32 una = sroce_psn_add(psn, 1);
	struct sroce_swqe *wqe;
	bool progress = false;
	bool lost = false;

	sroce_comp_rtt(qp, psn);
	while (qp->sq.queue.index != req->sent_end) {
		wqe = sroce_sq_wqe(qp, qp->sq.queue.index);
		if (sroce_seg_is_rd_atomic(wqe->opcode)) {
			u32 missing = sroce_psn_add(wqe->prog.first_psn,
						    wqe->prog.done_pkts);

			if (sroce_psn_ge(psn, missing)) {
				una = missing;
				lost = !resp;
			}
			break;
		}
		if (sroce_psn_lt(psn, wqe->prog.last_psn))
			break;
		if (!sroce_comp_complete(qp, wqe, IB_WC_SUCCESS)) {
			sroce_comp_fail(qp, IB_WC_WR_FLUSH_ERR, out);
			return;
		}
		progress = true;
	}

	if (sroce_psn_gt(una, req->una)) {
		req->una = una;
		progress = true;
		sroce_comp_skip_acked(qp);
	}
	if (progress) {
		sroce_comp_progress(qp);
		out->kick = true;
	}
	if (lost)
		sroce_comp_retry(qp, una, SROCE_COMP_LOSS, out);
	/* The requester may be held at a WQE that failed locally. */
	else if (sroce_comp_local_error(qp))
		out->error = true;
}

/*
 * An RNR NAK for @psn: wait, then resend from it (9.7.5.2.8). Nothing is
 * sent while the QP waits, so another RNR NAK for the same PSN answers a
 * copy sent before the first NAK came (an early retransmit): the same
 * refusal, which must neither spend another rnr_retry nor move the wait.
 */
static void sroce_comp_rnr(struct sroce_qp *qp, u32 psn, u8 syndrome,
			   struct sroce_comp_out *out)
{
	struct sroce_req *req = &qp->req;
	u32 usecs;

	if (req->rnr_wait && req->nak_psn == psn)
		return;
	if (!req->rnr_left) {
		sroce_counter_inc(&to_sdev(qp->ibqp.device)->counters,
				  SROCE_CNT_RNR_RETRY_EXCEEDED);
		sroce_comp_fail(qp, IB_WC_RNR_RETRY_EXC_ERR, out);
		return;
	}
	if (req->rnr_left != SROCE_RNR_RETRY_INFINITE)
		req->rnr_left--;
	sroce_req_seek(qp, psn);
	/*
	 * A responder that sends RNR NAKs for the first packet of a message
	 * may answer the packets behind it with a PSN sequence error NAK
	 * for the same PSN (rdma_rxe does). That is this RNR again, not a
	 * loss: it must not cost one of retry_cnt (see sroce_comp_retry()).
	 */
	req->nak_psn = psn;
	req->nak_valid = true;
	req->rnr_wait = true;
	req->expired = false;
	req->early = false;
	req->probe = false;
	del_timer(&req->retry_timer);
	usecs = sroce_seg_rnr_usecs(syndrome & SROCE_AETH_VALUE_MASK);
	/* Plus the tick under way: never shorter than the code says. */
	mod_timer(&req->rnr_timer, jiffies + usecs_to_jiffies(usecs) + 1);
}

/*
 * READ RESPONSE LAST and ONLY and the ATOMIC ACKNOWLEDGE carry an AETH
 * that acknowledges: a NAK comes in an ACKNOWLEDGE packet only (IBTA vol 1
 * 9.7.5). A response whose AETH says otherwise is malformed and placed
 * nowhere (rdma_rxe refuses it too).
 */
static bool sroce_comp_resp_aeth_ok(const struct sroce_pkt *pkt)
{
	const struct sroce_aeth *aeth = sroce_pkt_aeth(pkt);
	enum ib_wc_status status;

	return !aeth || sroce_aeth_decode(sroce_aeth_syndrome(aeth),
					  &status) == SROCE_AETH_ACK;
}

/* An ACKNOWLEDGE packet: ACK or NAK. Caller holds req.lock. */
static void sroce_comp_acknowledge(struct sroce_qp *qp,
				   const struct sroce_pkt *pkt,
				   struct sroce_comp_out *out)
{
	struct sroce_counters *cnt = &to_sdev(qp->ibqp.device)->counters;
	u8 syndrome = sroce_aeth_syndrome(sroce_pkt_aeth(pkt));
	enum ib_wc_status status;
	u32 psn = pkt->psn;

	switch (sroce_aeth_decode(syndrome, &status)) {
	case SROCE_AETH_ACK:
		sroce_comp_ack(qp, psn, false, out);
		break;
	case SROCE_AETH_RNR:
		sroce_counter_inc(cnt, SROCE_CNT_RCVD_RNR_ERR);
		sroce_comp_ack(qp, sroce_psn_add(psn, -1), false, out);
		if (!qp->req.stopped && qp->req.una == psn)
			sroce_comp_rnr(qp, psn, syndrome, out);
		break;
	case SROCE_AETH_SEQ_ERR:
		sroce_counter_inc(cnt, SROCE_CNT_RCVD_SEQ_ERR);
		sroce_comp_ack(qp, sroce_psn_add(psn, -1), false, out);
		if (!qp->req.stopped && qp->req.una == psn)
			sroce_comp_retry(qp, psn, SROCE_COMP_LOSS, out);
		break;
	case SROCE_AETH_FATAL:
		sroce_comp_ack(qp, sroce_psn_add(psn, -1), false, out);
		if (!qp->req.stopped && qp->req.una == psn)
			sroce_comp_fail(qp, status, out);
		break;
	case SROCE_AETH_RESERVED:
		sroce_counter_inc(cnt, SROCE_CNT_COMP_DROPPED);
		break;
	}
}

/*
 * The oldest WQE if it is the READ or atomic a response with @psn belongs
 * to and @psn is the response it waits for; NULL otherwise, after
 * reissuing the request if responses were lost: a response for a later
 * PSN, of either kind (an ATOMIC ACK behind a READ whose responses were
 * lost, a READ response behind an atomic whose ACK was), implies that
 * loss (9.7.5.1.3), as a plain ACK passing the oldest WQE does. Caller
 * holds req.lock.
 */
static struct sroce_swqe *sroce_comp_resp_wqe(struct sroce_qp *qp, u32 psn,
					      bool read,
					      struct sroce_comp_out *out)
{
	struct sroce_req *req = &qp->req;
	struct sroce_swqe *wqe;
	bool is_read;
	u32 expect;

	sroce_comp_ack(qp, sroce_psn_add(psn, -1), true, out);
	if (req->stopped || qp->sq.queue.index == req->sent_end)
		return NULL;
	wqe = sroce_sq_wqe(qp, qp->sq.queue.index);
	/* rdma_rxe answers an ATOMIC WRITE with a READ RESPONSE (below). */
	is_read = wqe->opcode == IB_WR_RDMA_READ ||
		  wqe->opcode == SROCE_WR_ATOMIC_WRITE;
	if (!sroce_seg_takes_rd_atomic(wqe->opcode))
		return NULL;
	expect = sroce_psn_add(wqe->prog.first_psn, wqe->prog.done_pkts);
	if (psn == expect)
		return read == is_read ? wqe : NULL;
	/* Responses were lost: ask again for the rest (9.7.5.1.3). */
	if (sroce_psn_gt(psn, expect))
		sroce_comp_retry(qp, expect, SROCE_COMP_LOSS, out);
	return NULL;
}

/* Place the @len bytes in @skb at @off at the WQE's progress. */
static int sroce_comp_scatter(struct sroce_qp *qp, struct sroce_swqe *wqe,
			      const struct sk_buff *skb, u32 off, u32 len)
{
	struct sroce_req *req = &qp->req;
	u32 index = qp->sq.queue.index;
	u32 skip;

	if (!req->rd_valid || req->rd_index != index ||
	    req->rd_bytes != wqe->prog.done_bytes) {
		sroce_sge_cursor_init(&req->rd_cursor, wqe->sge, wqe->num_sge);
		/* Resuming inside the list: walk to the byte, no copying. */
		for (skip = wqe->prog.done_bytes;
		     skip && req->rd_cursor.cur < req->rd_cursor.num_sge;) {
			u32 room = wqe->sge[req->rd_cursor.cur].length -
				   req->rd_cursor.offset;

			if (skip < room) {
				req->rd_cursor.offset += skip;
				break;
			}
			skip -= room;
			req->rd_cursor.cur++;
			req->rd_cursor.offset = 0;
		}
		req->rd_index = index;
		req->rd_valid = true;
	}
	req->rd_bytes = wqe->prog.done_bytes + len;
	return sroce_sge_copy_skb(to_sdev(qp->ibqp.device), qp->ibqp.pd,
				  &req->rd_cursor, skb, off, len,
				  IB_ACCESS_LOCAL_WRITE);
}

/*
 * The first READ response after an early expiry re-asked that READ
 * (req.early_read): if it continues the original stream, the expiry was
 * spurious and the pause is a round trip sample, so that the next pause
 * as long does not re-ask again (each re-ask makes a slow responder
 * stream the rest twice). Caller holds req.lock.
 */
static void sroce_comp_early_read_answered(struct sroce_qp *qp,
					   const struct sroce_pkt *pkt)
{
	struct sroce_req *req = &qp->req;

	req->early_read = false;
	if (pkt->psn != req->early_read_psn ||
	    (pkt->info->flags & SROCE_OPF_FIRST))
		return;
	sroce_counter_inc(&to_sdev(qp->ibqp.device)->counters,
			  SROCE_CNT_EARLY_SPURIOUS);
	sroce_req_rto_sample(&req->rto,
			     jiffies_to_nsecs(jiffies - req->early_read_since));
}

static enum ib_wc_status sroce_comp_copy_status(int err)
{
	return err == -EFAULT ? IB_WC_LOC_PROT_ERR : IB_WC_LOC_LEN_ERR;
}

/*
 * A READ response or ATOMIC ACK at @psn met a page of the local buffer's
 * ODP MR being faulted in: dropped, and asked for again at once (the
 * READ or ATOMIC is sent again once the requester finds the page mapped,
 * sroce_req_dest_waits(); the responder answers it from the request it
 * kept). Waiting for the timeout instead, a response that comes later
 * than the buffer's pages stay mapped (a READ queued behind a long stream
 * while the process keeps changing its mappings) would be lost every
 * time, until retry_cnt ran out. Not a loss either: no retry is spent,
 * no delay-based rate drops, and a second ask for the same PSN is not
 * taken for the first reported twice (sroce_comp_retry()). Caller holds
 * req.lock.
 */
static void sroce_comp_odp_reask(struct sroce_qp *qp, u32 psn,
				 struct sroce_comp_out *out)
{
	sroce_counter_inc(&to_sdev(qp->ibqp.device)->counters,
			  SROCE_CNT_COMP_DROPPED);
	qp->req.nak_valid = false;
	sroce_comp_retry(qp, psn, SROCE_COMP_ODP_MISS, out);
}

/* A READ RESPONSE packet. Caller holds req.lock. */
static void sroce_comp_read_resp(struct sroce_qp *qp,
				 const struct sk_buff *skb,
				 const struct sroce_pkt *pkt,
				 struct sroce_comp_out *out)
{
	struct sroce_req *req = &qp->req;
	struct sroce_swqe *wqe;
	u16 flags = pkt->info->flags;
	bool full;
	u32 resid;
	bool last;
	int err;

	wqe = sroce_comp_resp_wqe(qp, pkt->psn, true, out);
	if (!wqe) {
		sroce_counter_inc(&to_sdev(qp->ibqp.device)->counters,
				  SROCE_CNT_COMP_DROPPED);
		return;
	}

	/*
	 * Every response but the last carries one full MTU; the last the
	 * rest exactly. A reissued READ starts again with FIRST (or ONLY).
	 * An ATOMIC WRITE is answered as rdma_rxe (6.2 on) answers it, with
	 * a READ RESPONSE ONLY without payload; a plain ACK of its PSN, as
	 * other responders may send, completes it in sroce_comp_ack().
	 */
	if (wqe->opcode == SROCE_WR_ATOMIC_WRITE)
		resid = 0;
	else
		resid = wqe->length - wqe->prog.done_bytes;
	last = resid <= qp->mtu;
	if (last != !!(flags & SROCE_OPF_LAST) ||
	    pkt->paylen != (last ? resid : qp->mtu)) {
		sroce_counter_inc(&to_sdev(qp->ibqp.device)->counters,
				  SROCE_CNT_COMP_DROPPED);
		return;
	}
	/*
	 * A response answers its request, tagged at the READ's first PSN;
	 * only one that fits the READ gives a round trip sample.
	 */
	sroce_comp_rtt(qp, pkt->psn);
	if (req->early_read)
		sroce_comp_early_read_answered(qp, pkt);

	if (pkt->paylen) {
		err = sroce_comp_scatter(qp, wqe, skb,
					 sroce_recv_payload_off(skb, pkt),
					 pkt->paylen);
		if (err == -EAGAIN) {
			sroce_comp_odp_reask(qp, pkt->psn, out);
			return;
		}
		if (err) {
			sroce_comp_fail(qp, sroce_comp_copy_status(err), out);
			return;
		}
	}
	wqe->prog.done_pkts++;
	wqe->prog.done_bytes += pkt->paylen;
	full = sroce_req_window_full(req);
	req->una = sroce_psn_add(pkt->psn, 1);
	if (last && !sroce_comp_complete(qp, wqe, IB_WC_SUCCESS)) {
		sroce_comp_fail(qp, IB_WC_WR_FLUSH_ERR, out);
		return;
	}
	/* A completed READ moved psn past itself already. */
	if (sroce_comp_skip_acked(qp))
		out->kick = true;
	/*
	 * A READ longer than the window fills it alone: the WQEs behind it
	 * may go once its responses open the window, not at its end only.
	 */
	if (full && !sroce_req_window_full(req))
		out->kick = true;
	sroce_comp_progress(qp);
	if (last) {
		out->kick = true;
		if (sroce_comp_local_ops(qp) || sroce_comp_local_error(qp))
			out->error = true;
	}
}

/* An ATOMIC ACKNOWLEDGE: the original value goes to the local buffer. */
static void sroce_comp_atomic_ack(struct sroce_qp *qp,
				  const struct sroce_pkt *pkt,
				  struct sroce_comp_out *out)
{
	struct sroce_req *req = &qp->req;
	struct sroce_sge_cursor c;
	struct sroce_swqe *wqe;
	u64 orig;
	int err;

	wqe = sroce_comp_resp_wqe(qp, pkt->psn, false, out);
	if (!wqe) {
		sroce_counter_inc(&to_sdev(qp->ibqp.device)->counters,
				  SROCE_CNT_COMP_DROPPED);
		return;
	}
	sroce_comp_rtt(qp, pkt->psn);

	orig = sroce_atmack_orig(sroce_pkt_atmack(pkt));
	sroce_sge_cursor_init(&c, wqe->sge, wqe->num_sge);
	err = sroce_sge_copy(to_sdev(qp->ibqp.device), qp->ibqp.pd, &c, &orig,
			     sizeof(orig), IB_ACCESS_LOCAL_WRITE, SROCE_TO_MR);
	if (err == -EAGAIN) {
		sroce_comp_odp_reask(qp, pkt->psn, out);
		return;
	}
	if (err) {
		sroce_comp_fail(qp, sroce_comp_copy_status(err), out);
		return;
	}
	req->una = sroce_psn_add(pkt->psn, 1);
	if (!sroce_comp_complete(qp, wqe, IB_WC_SUCCESS)) {
		sroce_comp_fail(qp, IB_WC_WR_FLUSH_ERR, out);
		return;
	}
	sroce_comp_progress(qp);
	out->kick = true;
	if (sroce_comp_local_ops(qp) || sroce_comp_local_error(qp))
		out->error = true;
}

static void sroce_comp_finish(struct sroce_qp *qp, struct sroce_comp_out *out)
{
	if (out->error)
		sroce_qp_error(qp);
	else if (out->kick)
		sroce_req_answered(qp);
}

/*
 * UC has no acknowledgments: sending a PSN is as good as an ACK for it
 * (IBTA vol 1 9.8: a UC WQE completes once it is sent). Called
 * by the requester after its packets left, with no lock held; a flush or
 * a RESET since it built them (@epoch) makes them another connection's.
 */
void sroce_comp_uc_sent(struct sroce_qp *qp, u32 psn, u32 epoch)
{
	struct sroce_req *req = &qp->req;
	struct sroce_comp_out out = {};

	spin_lock_bh(&req->lock);
	if (!req->stopped && req->epoch == epoch)
		sroce_comp_ack(qp, psn, false, &out);
	spin_unlock_bh(&req->lock);
	if (out.error) {
		sroce_qp_send_error(qp);
	} else if (out.kick) {
		/* Our caller, the runner, goes round again (a LOCAL_INV waits). */
		set_bit(SROCE_REQ_AGAIN, &req->flags);
	}
}

void sroce_comp_recv(struct sroce_qp *qp, struct sk_buff *skb,
		     struct sroce_pkt *pkt)
{
	struct sroce_counters *cnt = &to_sdev(qp->ibqp.device)->counters;
	struct sroce_req *req = &qp->req;
	struct sroce_comp_out out = {};
	u16 flags = pkt->info->flags;

	spin_lock_bh(&req->lock);
	/* Only PSNs sent and not yet acknowledged mean anything. */
	if (req->stopped ||
	    !sroce_psn_in_window(pkt->psn, req->una,
				 sroce_psn_span(req->una, req->psn_high))) {
		sroce_counter_inc(cnt, SROCE_CNT_COMP_DROPPED);
		goto unlock;
	}

	if ((flags & (SROCE_OPF_READ | SROCE_OPF_ATOMIC)) &&
	    !sroce_comp_resp_aeth_ok(pkt))
		sroce_counter_inc(cnt, SROCE_CNT_COMP_DROPPED);
	else if (flags & SROCE_OPF_READ)
		sroce_comp_read_resp(qp, skb, pkt, &out);
	else if (flags & SROCE_OPF_ATOMIC)
		sroce_comp_atomic_ack(qp, pkt, &out);
	else if (flags & SROCE_OPF_ACK)
		sroce_comp_acknowledge(qp, pkt, &out);
	else
		sroce_counter_inc(cnt, SROCE_CNT_COMP_DROPPED);
unlock:
	spin_unlock_bh(&req->lock);
	consume_skb(skb);
	sroce_comp_finish(qp, &out);
}

/*
 * The retransmit timer ran out. The timer softirq runs before the receive
 * softirq, so ACKs that arrived in the same instant are not seen yet; and
 * a timer that fires long after it was due tells that this CPU (a vCPU
 * the host did not run, a CPU stuck in other softirq work) could not
 * receive for that long: the ACKs of that time may be waiting in the
 * NIC's queue. Such a stall is not the peer's silence: the timer is
 * extended once by as long as it lasted (at most one timeout). Otherwise
 * the expiry is handed to the requester's work item, which runs after
 * pending receive work and retries only if no progress came meanwhile
 * (sroce_comp_expired()). Before the deadline the timer runs for the
 * early expiry (sroce_req_rto.h), handed on the same way
 * (sroce_comp_early()).
 */
void sroce_comp_retry_timer(struct timer_list *t)
{
	struct sroce_req *req = from_timer(req, t, retry_timer);
	struct sroce_qp *qp = container_of(req, struct sroce_qp, req);
	unsigned long grace, early;
	bool kick = false;
	long late;

	spin_lock_bh(&req->lock);
	if (req->stopped || req->rnr_wait || req->una == req->psn_high)
		goto unlock;
	/*
	 * Progress on another CPU may have re-armed the timer between its
	 * expiry and this lock: the deadline moved, nothing expired.
	 */
	if (timer_pending(t))
		goto unlock;
	late = (long)(jiffies - t->expires);
	grace = sroce_seg_stall_grace(req->timeout, late);
	if (time_before(jiffies, req->deadline)) {
		/*
		 * Before the deadline: the early expiry, if still due. After
		 * a stall its wait starts again (the answers may be queued
		 * behind it), leaving the deadline its own grace.
		 */
		if (grace)
			req->ask_at = jiffies;
		early = req->asking ? sroce_req_rto_ticks(&req->rto, TICK_NSEC,
							  req->timeout) : 0;
		if (!early || time_before(jiffies, req->ask_at + early)) {
			sroce_req_set_retry_timer(qp);
			goto unlock;
		}
		req->early = true;
		kick = true;
		goto unlock;
	}
	if (grace && !req->grace) {
		req->grace = true;
		mod_timer(t, jiffies + grace);
		goto unlock;
	}
	req->expired = true;
	kick = true;
unlock:
	spin_unlock_bh(&req->lock);
	/* From the timer softirq this defers to the requester's work. */
	if (kick)
		sroce_req_kick(qp);
}

bool sroce_comp_expired(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_comp_out out = {};

	if (!req->expired)
		return false;
	req->expired = false;
	if (req->stopped || req->rnr_wait || req->una == req->psn_high)
		return false;
	sroce_counter_inc(&to_sdev(qp->ibqp.device)->counters,
			  SROCE_CNT_COMP_RETRY);
	sroce_comp_retry(qp, req->una, SROCE_COMP_TIMEOUT, &out);
	/* Go back one packet first; its ACK reopens the window. */
	if (!out.error)
		req->probe = true;
	return out.error;
}

/*
 * The answer awaited is later than the measured round trips allow
 * (sroce_req_rto.h): go back as a timeout does, one probe packet first
 * and the window cut, but keep the deadline and the retries, and wait
 * twice as long for the probe's answer. A NAK already acted on for the
 * probe's PSN stays acted on: the probe is that restart. Caller holds
 * req.lock.
 */
void sroce_comp_early(struct sroce_qp *qp)
{
	struct sroce_counters *cnt = &to_sdev(qp->ibqp.device)->counters;
	struct sroce_req *req = &qp->req;
	u32 index = qp->sq.queue.index;
	struct sroce_swqe *wqe;
	bool reading;

	req->early = false;
	if (req->stopped || req->rnr_wait || req->una == req->psn_high)
		return;
	wqe = sroce_sq_wqe(qp, index);
	reading = index != req->sent_end && wqe->opcode == IB_WR_RDMA_READ &&
		  wqe->prog.done_pkts;
	/*
	 * A READ answered in part, with PSNs sent after it: the answer to
	 * any of those shows a lost response at once (a gap, or an ACK
	 * passing the READ: 9.7.5.1.3), so this silence is the responder
	 * pausing. A re-ask would have it stream again all that follows
	 * (go-back-N), piling duplicates on a slow responder; only the QP's
	 * timeout is left for it.
	 */
	if (reading && sroce_psn_add(wqe->prog.last_psn, 1) != req->psn_high) {
		req->asking = false;
		sroce_req_set_retry_timer(qp);
		return;
	}
	sroce_counter_inc(cnt, SROCE_CNT_EARLY_RETRANSMITS);
	/* A READ answered in part: the pause is timed from the last answer. */
	if (reading && !req->early_read) {
		req->early_read = true;
		req->early_read_psn = req->una;
		req->early_read_since = req->ask_at;
	}
	if (sroce_req_win_timeout(&req->win, req->psn_high))
		sroce_counter_inc(cnt, SROCE_CNT_WINDOW_CUTS);
	sroce_req_rto_backoff(&req->rto);
	req->probe = true;
	sroce_req_seek(qp, req->una);
	req->ask_at = jiffies;
	sroce_req_set_retry_timer(qp);
}

void sroce_comp_rnr_timer(struct timer_list *t)
{
	struct sroce_req *req = from_timer(req, t, rnr_timer);
	struct sroce_qp *qp = container_of(req, struct sroce_qp, req);
	struct sroce_comp_out out = {};

	spin_lock_bh(&req->lock);
	if (req->rnr_wait && !req->stopped) {
		req->rnr_wait = false;
		sroce_req_arm_retry(qp);
		out.kick = true;
	}
	spin_unlock_bh(&req->lock);
	sroce_comp_finish(qp, &out);
}

void sroce_req_flush(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	enum ib_qp_state state;

	spin_lock_bh(&req->lock);
	/*
	 * The state (ERR or SQE) was written before: order it before the
	 * ring is read below. Pairs with the barrier in sroce_post_send(),
	 * so that a doorbell either sees this state or its WQEs are flushed.
	 */
	smp_mb__after_spinlock();
	/*
	 * Callers decided on the state they saw before taking the lock; a
	 * modify_qp since (SQE to RTS, which resumes the requester under this
	 * lock, or to RESET, which empties the queues) must not be undone by
	 * a flush that comes late.
	 */
	state = READ_ONCE(qp->state);
	if (state != IB_QPS_ERR && state != IB_QPS_SQE) {
		spin_unlock_bh(&req->lock);
		return;
	}
	req->stopped = true;
	/* A runner sending a batch built before now drops the rest of it. */
	req->gen++;
	req->epoch++;
	req->rnr_wait = false;
	req->expired = false;
	req->early = false;
	req->probe = false;
	del_timer(&req->retry_timer);
	del_timer(&req->rnr_timer);

	/* WQEs posted up to now, validated or not, complete as flushed. */
	req->head = sroce_sq_fetch_all(qp);

	while (qp->sq.queue.index != req->head)
		sroce_comp_complete(qp, sroce_sq_wqe(qp, qp->sq.queue.index),
				    IB_WC_WR_FLUSH_ERR);
	req->cur = req->head;
	req->sent_end = req->head;
	req->end_psns = false;
	req->cur_pkt = 0;
	req->rd_atomic = 0;
	req->una = req->psn;
	req->psn_high = req->psn;
	spin_unlock_bh(&req->lock);
}
