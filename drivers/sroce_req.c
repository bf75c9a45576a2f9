// SPDX-License-Identifier: GPL-2.0
/*
 * The RC requester: turns the send queue's WQEs into request packets.
 *
 * It runs where it is cheapest. The doorbell (post_send, process context)
 * runs it right away when nobody else is; the completer runs it from the
 * receive softirq when an ACK opens the window; only a spent budget (more
 * than SROCE_REQ_BUDGET packets in one call, kicks that came meanwhile
 * included), local back-pressure or a kick from a context that must not
 * send (hard IRQ, a completion handler) defers it to a work item. One
 * RUNNING bit makes it single-threaded per QP; whoever finds it taken
 * sets AGAIN instead, and the runner loops.
 *
 * Packets are built under req.lock in batches and transmitted after the
 * lock is dropped, so a packet looped back to this host (sroce_xmit.c)
 * can run the peer's responder and this QP's completer without deadlock.
 * Nothing is kept for retransmission: a rewind (sroce_req_seek) rebuilds
 * the packets from the WQE, which go-back-N makes exact (IBTA vol 1
 * 9.7.4.1.1).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>

#include "sroce_cq.h"
#include "sroce_dev.h"
#include "sroce_icrc.h"
#include "sroce_pkt.h"
#include "sroce_psn.h"
#include "sroce_qp.h"
#include "sroce_req.h"
#include "sroce_seg.h"
#include "sroce_trace.h"
#include "sroce_train.h"
#include "sroce_ud.h"
#include "sroce_xmit.h"

/* Packets built per lock hold, and per run before deferring to the work. */
#define SROCE_REQ_BATCH		16
#define SROCE_REQ_BUDGET	128

/* A READ's local buffer mapped before it is asked for (ODP), at most. */
#define SROCE_REQ_PROBE_BYTES	SZ_256K

enum sroce_req_result {
	SROCE_REQ_IDLE,		/* nothing more to send for now */
	SROCE_REQ_MORE,		/* stopped by the batch limit */
	SROCE_REQ_BACKOFF,	/* the host is short of memory or queue room */
	SROCE_REQ_FAILED,	/* a WQE failed locally */
};

/* What the requester remembers of a packet or train until it leaves. */
struct sroce_req_cb {
	u32 psn;		/* of its first packet */
	u32 last_psn;		/* of its last packet */
};

/* The shape of one request packet, and what building it decided. */
struct sroce_req_pkt {
	const struct sroce_opcode_info *info;
	int op;
	u32 paylen;
	bool last;		/* of its message */
	bool ack_req;		/* it asks for an answer */
};

static inline struct sroce_req_cb *sroce_req_cb(struct sk_buff *skb)
{
	return (struct sroce_req_cb *)skb->cb;
}

static u32 sroce_req_next(struct sroce_qp *qp, u32 index)
{
	return (index + 1) & qp->sq.queue.index_mask;
}

static void sroce_req_work(struct work_struct *work)
{
	struct sroce_req *req = container_of(to_delayed_work(work),
					     struct sroce_req, work);

	sroce_req_run(container_of(req, struct sroce_qp, req));
}

static void sroce_req_defer(struct sroce_qp *qp, unsigned long delay)
{
	set_bit(SROCE_REQ_AGAIN, &qp->req.flags);
	if (delay)
		queue_delayed_work(system_wq, &qp->req.work, delay);
	else
		mod_delayed_work(system_wq, &qp->req.work, 0);
}

/* Hard IRQ: the requester may not run here, the work item runs it. */
static enum hrtimer_restart sroce_req_pace_timer(struct hrtimer *t)
{
	struct sroce_req *req = container_of(t, struct sroce_req, pace_timer);

	sroce_req_defer(container_of(req, struct sroce_qp, req), 0);
	return HRTIMER_NORESTART;
}

/*
 * Pacing: may the next packet leave now? If not, the requester stops and
 * the pace timer restarts it at the QP's next departure time. For a QP
 * sending at line rate this is one flag test. Caller holds req.lock.
 */
static bool sroce_req_may_send(struct sroce_qp *qp, u64 now)
{
	struct sroce_req *req = &qp->req;

	if (likely(sroce_cc_may_send(&req->cc, now)))
		return true;
	hrtimer_start(&req->pace_timer,
		      ns_to_ktime(sroce_cc_next_send_ns(&req->cc)),
		      HRTIMER_MODE_ABS);
	return false;
}

void sroce_req_cc_charge(struct sroce_qp *qp, unsigned int len, u32 n,
			 u64 now)
{
	const struct sroce_cc_params *p = &to_sdev(qp->ibqp.device)->cc_params;
	struct sroce_req *req = &qp->req;
	struct sroce_cc_trace_snap snap;
	u32 bytes = len + sizeof(struct udphdr) +
		    (qp->av.family == AF_INET6 ? sizeof(struct ipv6hdr) :
						 sizeof(struct iphdr));

	sroce_cc_trace_snap(&req->cc.rp, &snap);
	sroce_cc_on_tx(&req->cc, p, n * bytes, now);
	sroce_cc_trace_changed(qp->ibqp.qp_num, &req->cc.rp, p, &snap);
}

/*
 * Charge a built packet, @len bytes from BTH to ICRC, to congestion
 * control, and let the RTT sampler see it; @now is the batch's build
 * time, a few us before the packet leaves. Called before
 * sroce_req_advance(), so psn_high still tells a new PSN from a
 * retransmitted one.
 */
static void sroce_req_charge(struct sroce_qp *qp, u32 psn, bool ack_req,
			     unsigned int len, u64 now)
{
	struct sroce_req *req = &qp->req;

	sroce_req_cc_charge(qp, len, 1, now);
	sroce_cc_on_send(&req->cc, psn, sroce_psn_ge(psn, req->psn_high),
			 ack_req, now);
}

void sroce_req_init(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	/*
	 * On the way through RESET an engine that looked at the QP just
	 * before may still hold the lock: set things up once only.
	 */
	if (!req->inited) {
		spin_lock_init(&req->lock);
		timer_setup(&req->retry_timer, sroce_comp_retry_timer, 0);
		timer_setup(&req->rnr_timer, sroce_comp_rnr_timer, 0);
		INIT_DELAYED_WORK(&req->work, sroce_req_work);
		hrtimer_init(&req->pace_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS);
		req->pace_timer.function = sroce_req_pace_timer;
		req->inited = true;
	}
	spin_lock_bh(&req->lock);
	req->stopped = true;
	spin_unlock_bh(&req->lock);
}

/* The QP attributes the requester keeps in its own form; under req.lock. */
static void sroce_req_load_attrs(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u64 timeout = sroce_seg_timeout_ticks(qp->attr.timeout, TICK_NSEC);

	/* A QP allowed no READ/atomic in flight could never send one. */
	req->max_rd_atomic = max_t(u32, qp->attr.max_rd_atomic, 1);
	req->timeout = min_t(u64, timeout, MAX_JIFFY_OFFSET);
}

void sroce_req_update(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	spin_lock_bh(&req->lock);
	sroce_req_load_attrs(qp);
	/* Drained: no retry budget is being spent on anything. */
	req->retry_left = qp->attr.retry_cnt;
	req->rnr_left = qp->attr.rnr_retry;
	spin_unlock_bh(&req->lock);
}

void sroce_req_start(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_req *req = &qp->req;
	/* Cached by the netdev notifier: a move to RTS takes no RTNL. */
	u32 line_mbps = sroce_dev_link_mbps(sdev);

	spin_lock_bh(&req->lock);
	req->psn = qp->attr.sq_psn & SROCE_PSN_MASK;
	req->psn_high = req->psn;
	req->una = req->psn;
	req->cur = qp->sq.queue.index;
	req->sent_end = req->cur;
	req->end_psns = false;
	req->cur_pkt = 0;
	req->head = req->cur;
	req->rd_atomic = 0;
	sroce_req_load_attrs(qp);
	req->noack = 0;
	req->gen++;
	req->epoch++;
	req->nak_valid = false;
	req->rd_valid = false;
	req->retry_left = qp->attr.retry_cnt;
	req->rnr_left = qp->attr.rnr_retry;
	req->rnr_wait = false;
	req->expired = false;
	req->early = false;
	req->grace = false;
	req->probe = false;
	req->asking = false;
	req->early_read = false;
	req->deadline = jiffies;
	sroce_req_win_init(&req->win, req->una,
			   READ_ONCE(sdev->cc_params.tx_adaptive_window));
	/* Only RC is answered. */
	sroce_req_rto_init(&req->rto, qp->ibqp.qp_type == IB_QPT_RC &&
			   READ_ONCE(sdev->cc_params.tx_rtt_retransmit));
	sroce_cc_sender_init(&req->cc, &sdev->cc_params, line_mbps);
	/*
	 * The retransmit timeouts need round trips, whatever the algorithm;
	 * the early one wants them every round trip.
	 */
	if (qp->ibqp.qp_type == IB_QPT_RC)
		sroce_cc_sample_rtt(&req->cc, req->rto.enabled);
	req->stopped = false;
	spin_unlock_bh(&req->lock);
}

void sroce_req_resume(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	/* The flush left cur, sent_end and head at the consumer index. */
	spin_lock_bh(&req->lock);
	req->stopped = false;
	spin_unlock_bh(&req->lock);
}

bool sroce_req_sq_idle(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	bool idle;

	/* Nothing half sent, nothing sent and not yet completed. */
	spin_lock_bh(&req->lock);
	idle = req->cur == req->sent_end && !req->end_psns &&
	       qp->sq.queue.index == req->sent_end;
	spin_unlock_bh(&req->lock);
	return idle;
}

void sroce_req_cleanup(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if (!req->inited)
		return;
	spin_lock_bh(&req->lock);
	req->stopped = true;
	/* A runner sending a batch built before now drops the rest of it. */
	req->gen++;
	req->epoch++;
	spin_unlock_bh(&req->lock);
	/*
	 * The timers run the requester, which may queue the work; the work
	 * may arm the retransmit timer: stop them in this order, then check
	 * the timers once more. Nothing else can start them any more: the
	 * caller made sure no packet or doorbell reaches the QP.
	 */
	del_timer_sync(&req->retry_timer);
	del_timer_sync(&req->rnr_timer);
	hrtimer_cancel(&req->pace_timer);
	cancel_delayed_work_sync(&req->work);
	del_timer_sync(&req->retry_timer);
	del_timer_sync(&req->rnr_timer);
}

/*
 * retry_timer runs at the deadline or, if an answer is awaited and the
 * round trips say it is overdue sooner, at its early expiry; past the
 * deadline, extended for a stall (grace), it stays where it is. Caller
 * holds req.lock.
 */
void sroce_req_set_retry_timer(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	unsigned long expires = req->deadline;
	unsigned long early;

	if (!req->timeout || req->stopped || req->rnr_wait || req->grace)
		return;
	early = req->asking ? sroce_req_rto_ticks(&req->rto, TICK_NSEC,
						  req->timeout) : 0;
	if (early && time_before(req->ask_at + early, expires))
		expires = req->ask_at + early;
	mod_timer(&req->retry_timer, expires);
}

/* Caller holds req.lock. */
void sroce_req_arm_retry(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	/* A restart is a new send: the early wait runs from now too. */
	req->deadline = jiffies +
			min_t(unsigned long, MAX_JIFFY_OFFSET,
			      sroce_req_rto_timeout(&req->rto, TICK_NSEC,
						    req->timeout));
	req->ask_at = jiffies;
	req->grace = false;
	sroce_req_set_retry_timer(qp);
}

/*
 * A packet standing for PSNs up to @last_psn asks for an answer: the
 * early expiry waits for it (an answer to a later one covers it too).
 * Called before sroce_req_advance(), which arms the timer if it is not
 * running. Caller holds req.lock.
 */
static void sroce_req_asked(struct sroce_qp *qp, u32 last_psn)
{
	struct sroce_req *req = &qp->req;

	if (!req->rto.enabled)
		return;
	req->asking = true;
	req->ask_psn = last_psn;
	req->ask_at = jiffies;
	if (timer_pending(&req->retry_timer))
		sroce_req_set_retry_timer(qp);
}

bool sroce_req_window_full(const struct sroce_req *req)
{
	return sroce_psn_span(req->una, req->psn) >= req->win.cwnd;
}

/* Move @c forward by @len bytes of its SGE list. */
static void sroce_req_cursor_skip(struct sroce_sge_cursor *c, u64 len)
{
	while (len && c->cur < c->num_sge) {
		u32 room = c->sge[c->cur].length - c->offset;

		if (len < room) {
			c->offset += len;
			return;
		}
		len -= room;
		c->cur++;
		c->offset = 0;
	}
}

/*
 * A READ's or an atomic's local buffer in an ODP MR: the completer drops
 * a response whose page is missing (and the READ is asked again, after a
 * timeout at worst), so the first SROCE_REQ_PROBE_BYTES still to come are
 * mapped before the request goes. True when the request must wait: a
 * page is being faulted in. Caller holds req.lock.
 */
static bool sroce_req_dest_waits(struct sroce_qp *qp, struct sroce_swqe *wqe)
{
	struct sroce_sge_cursor c;
	u32 len;

	if (!sroce_seg_is_rd_atomic(wqe->opcode))
		return false;
	len = min_t(u32, wqe->length - wqe->prog.done_bytes,
		    SROCE_REQ_PROBE_BYTES);
	sroce_sge_cursor_init(&c, wqe->sge, wqe->num_sge);
	sroce_req_cursor_skip(&c, wqe->prog.done_bytes);
	return sroce_sge_copy(to_sdev(qp->ibqp.device), qp->ibqp.pd, &c, NULL,
			      len, IB_ACCESS_LOCAL_WRITE, SROCE_TO_MR) ==
	       -EAGAIN;
}

/*
 * Resume sending at @psn, which lies in a WQE that already has its PSNs:
 * back for a retransmission, forward past PSNs that a coalesced ACK covered.
 * Caller holds req.lock.
 */
void sroce_req_seek(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	u32 end = req->sent_end;
	u32 i = qp->sq.queue.index;
	struct sroce_swqe *wqe;
	u32 npsn, k;

	/*
	 * Never back before una. What the peer acknowledged is not sent
	 * again; and psn behind una reads as a full window (una to psn
	 * wraps) while nothing is outstanding that could time out: the QP
	 * would stop for good. The push-back rewind (sroce_req_xmit())
	 * seeks to a PSN it took before dropping req.lock, and an ACK can
	 * pass that PSN meanwhile: the receive softirq runs on another CPU,
	 * or on this one inside the transmit itself.
	 */
	if (sroce_psn_lt(psn, req->una))
		psn = req->una;

	/*
	 * The WQE whose first sending started has its PSNs too, also when a
	 * rewind took cur away from it or back to its first packet: without
	 * it, an ACK that covers the older WQEs and part of it could not
	 * move psn forward past una, and a timeout's probe (una only) would
	 * never go.
	 */
	if (req->end_psns)
		end = sroce_req_next(qp, end);

	for (; i != end; i = sroce_req_next(qp, i)) {
		wqe = sroce_sq_wqe(qp, i);
		/* Local operations own no PSN and are never repeated. */
		if (sroce_seg_is_local(wqe->opcode))
			continue;
		npsn = sroce_psn_span(wqe->prog.first_psn, wqe->prog.last_psn) + 1;
		if (sroce_psn_in_window(psn, wqe->prog.first_psn, npsn))
			break;
	}
	if (i == end)
		return;

	k = sroce_psn_span(wqe->prog.first_psn, psn);
	req->cur = i;
	req->cur_pkt = k;
	req->psn = psn;
	req->noack = 0;
	req->gen++;
	if (k && !wqe->inline_data && !sroce_seg_is_rd_atomic(wqe->opcode)) {
		sroce_sge_cursor_init(&req->cursor, wqe->sge, wqe->num_sge);
		sroce_req_cursor_skip(&req->cursor, (u64)k * qp->mtu);
	}
}

/*
 * May the WQE at cur, at sent_end, start its first sending? A
 * retransmission repeats what was allowed once and is not asked.
 */
bool sroce_req_may_start(struct sroce_qp *qp, const struct sroce_swqe *wqe)
{
	struct sroce_req *req = &qp->req;

	/* IB_SEND_FENCE: wait for every earlier READ and atomic (o10-2.2-1). */
	if ((wqe->send_flags & IB_SEND_FENCE) && req->rd_atomic)
		return false;
	/*
	 * A LOCAL_INV waits for every earlier WQE to complete, fenced or not
	 * (as rdma_rxe): a retransmission rereads its data, and a READ
	 * response lands, through the lkeys it names, which the invalidation
	 * would fail or, once the key is registered again, point elsewhere.
	 */
	if (wqe->opcode == IB_WR_LOCAL_INV && qp->sq.queue.index != req->cur)
		return false;
	/*
	 * What is in flight must span less than half the PSN space, or the
	 * modulo 2^24 comparisons with una misorder it: a message of up to
	 * 2^23 - 1 PSNs (2 GiB at a 256-byte MTU) waits for room. Alone in
	 * flight, the longest message fits.
	 */
	if (!sroce_psn_room(req->una, req->psn,
			    sroce_seg_npsn(wqe->opcode, wqe->length, qp->mtu)))
		return false;
	return !sroce_seg_takes_rd_atomic(wqe->opcode) ||
	       req->rd_atomic < req->max_rd_atomic;
}

/* Fill the extension headers of a request packet. */
static void sroce_req_ext_hdrs(struct sroce_qp *qp, struct sroce_swqe *wqe,
			       const struct sroce_opcode_info *info, u8 *hdr,
			       u32 k)
{
	u64 off = (u64)k * qp->mtu;
	unsigned int o;

	o = sroce_opcode_hdr_offset(info, SROCE_HDR_RETH);
	if (o) {
		/* A READ resumed at response k asks for the rest only. */
		if (wqe->opcode == IB_WR_RDMA_READ)
			sroce_reth_set((void *)(hdr + o), wqe->remote_addr + off,
				       wqe->rkey, wqe->length - off);
		else
			sroce_reth_set((void *)(hdr + o), wqe->remote_addr,
				       wqe->rkey, wqe->length);
	}
	o = sroce_opcode_hdr_offset(info, SROCE_HDR_ATMETH);
	if (o) {
		if (wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP)
			sroce_atmeth_set((void *)(hdr + o), wqe->remote_addr,
					 wqe->rkey, wqe->swap, wqe->compare_add);
		else
			sroce_atmeth_set((void *)(hdr + o), wqe->remote_addr,
					 wqe->rkey, wqe->compare_add, 0);
	}
	o = sroce_opcode_hdr_offset(info, SROCE_HDR_IMMDT);
	if (o)
		sroce_immdt_set((void *)(hdr + o), wqe->imm_data);
	o = sroce_opcode_hdr_offset(info, SROCE_HDR_IETH);
	if (o)
		sroce_ieth_set((void *)(hdr + o), wqe->invalidate_rkey);
}

/*
 * The shape of the next packet of the WQE at cur. Returns false, with the
 * WQE's status set, for an opcode that has none. Caller holds req.lock.
 */
static bool sroce_req_shape(struct sroce_qp *qp, struct sroce_swqe *wqe,
			    struct sroce_req_pkt *pkt)
{
	bool rd_atomic = sroce_seg_is_rd_atomic(wqe->opcode);
	u32 k = qp->req.cur_pkt;
	int op;

	pkt->last = rd_atomic ||
		    k + 1 == sroce_seg_npkts(wqe->length, qp->mtu);
	op = sroce_seg_opcode(wqe->opcode, rd_atomic || !k, pkt->last);
	if (op < 0) {
		wqe->status = IB_WC_LOC_QP_OP_ERR;
		return false;
	}
	/* UC opcodes are the RC ones in the UC transport (IBTA 9.2, table 38). */
	if (qp->ibqp.qp_type == IB_QPT_UC)
		op |= SROCE_TRANSPORT_UC;
	pkt->op = op;
	pkt->info = sroce_opcode_info(op);
	pkt->paylen = rd_atomic ? 0 : sroce_seg_paylen(wqe->length, qp->mtu, k);
	return true;
}

/* Bytes of a packet from its BTH through its ICRC. */
static unsigned int sroce_req_pkt_len(const struct sroce_req_pkt *pkt)
{
	return pkt->info->hdr_len + pkt->paylen +
	       sroce_pkt_pad_bytes(pkt->paylen) + SROCE_ICRC_BYTES;
}

/*
 * Start a send train (sroce_train.c) at this packet? Only at one with a
 * bare BTH, so that the packets after it are as long, and with more of
 * its message to follow. Caller holds req.lock.
 */
static bool sroce_req_may_train(struct sroce_qp *qp,
				const struct sroce_req_pkt *pkt)
{
	return !pkt->last && pkt->info->hdr_len == SROCE_BTH_BYTES &&
	       sroce_train_wanted(qp);
}

/*
 * Build the next packet of the WQE at cur, shaped as @pkt says: at the
 * end of @train when there is one (the caller checked that it fits), in
 * an skb of its own otherwise. Returns the skb that holds it, NULL when
 * out of memory, ERR_PTR(-EAGAIN) when an ODP page of the payload is being
 * faulted in (nothing built, @train as it was), or another ERR_PTR after
 * recording a local error in the WQE. Caller holds req.lock.
 */
static struct sk_buff *sroce_req_build(struct sroce_qp *qp,
				       struct sroce_swqe *wqe,
				       struct sroce_req_pkt *pkt,
				       struct sk_buff *train)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_opcode_info *info = pkt->info;
	struct sroce_req *req = &qp->req;
	struct sroce_bth_fields f = {};
	u32 pad = sroce_pkt_pad_bytes(pkt->paylen);
	u32 k = req->cur_pkt;
	struct sk_buff *skb;
	u8 *hdr;
	int err;

	if (train) {
		hdr = sroce_train_add(train, sroce_req_pkt_len(pkt));
		if (!hdr)
			return NULL;
		memset(hdr + info->hdr_len + pkt->paylen, 0, pad);
		skb = train;
	} else {
		skb = sroce_xmit_alloc(qp, info->hdr_len, pkt->paylen,
				       (void **)&hdr);
		if (!skb)
			return NULL;
	}

	f.opcode = pkt->op;
	f.pad = pad;
	f.pkey = SROCE_DEFAULT_PKEY;
	f.qpn = qp->attr.dest_qp_num;
	f.psn = req->psn;
	f.se = pkt->last && (wqe->send_flags & IB_SEND_SOLICITED) &&
	       (info->flags & SROCE_OPF_SEND ||
		info->hdrs & SROCE_HDRF_IMMDT);
	/*
	 * Every message end, four times a window so that the window keeps
	 * moving (and the retransmit timer, re-armed by each ACK, measures
	 * a quarter window, not a whole one), and every packet after which
	 * the requester waits: a timeout probe, or the one that fills the
	 * window. And a new packet the RTT sampler wants to tag.
	 */
	f.ack_req = pkt->last || req->probe ||
		    ++req->noack >= max_t(u32, req->win.cwnd / 4, 1) ||
		    sroce_psn_span(req->una, req->psn) + 1 >= req->win.cwnd ||
		    (sroce_cc_wants_sample(&req->cc) &&
		     sroce_psn_ge(req->psn, req->psn_high));
	/* UC is unacknowledged: nobody would answer an AckReq. */
	if (qp->ibqp.qp_type == IB_QPT_UC)
		f.ack_req = false;
	if (f.ack_req)
		req->noack = 0;
	pkt->ack_req = f.ack_req;
	sroce_pkt_build_hdrs(hdr, &f);
	sroce_req_ext_hdrs(qp, wqe, info, hdr, k);

	if (pkt->paylen) {
		u8 *dst = hdr + info->hdr_len;

		if (wqe->inline_data) {
			memcpy(dst, wqe->inline_buf + (size_t)k * qp->mtu,
			       pkt->paylen);
		} else {
			err = sroce_sge_copy(sdev, qp->ibqp.pd, &req->cursor, dst,
					     pkt->paylen, 0, SROCE_FROM_MR);
			if (err == -EAGAIN) {
				/* An ODP page on its way: this packet later. */
				if (skb == train)
					sroce_train_drop_last(train,
							      sroce_req_pkt_len(pkt));
				else
					kfree_skb(skb);
				return ERR_PTR(err);
			}
			if (err) {
				/* A train holds only this message's packets. */
				kfree_skb(skb);
				wqe->status = err == -EFAULT ?
						   IB_WC_LOC_PROT_ERR :
						   IB_WC_LOC_LEN_ERR;
				return ERR_PTR(err);
			}
		}
	}
	if (skb != train || skb_shinfo(skb)->nr_frags == 1)
		sroce_req_cb(skb)->psn = req->psn;
	sroce_req_cb(skb)->last_psn = req->psn;
	return skb;
}

/* Account for a packet built from the WQE at cur. Caller holds req.lock. */
static void sroce_req_advance(struct sroce_qp *qp, struct sroce_swqe *wqe)
{
	struct sroce_req *req = &qp->req;
	bool rd_atomic = sroce_seg_is_rd_atomic(wqe->opcode);

	if (rd_atomic) {
		/* The request stands for all the responses' PSNs. */
		req->psn = sroce_psn_add(wqe->prog.last_psn, 1);
	} else {
		req->psn = sroce_psn_add(req->psn, 1);
		if (++req->cur_pkt < sroce_seg_npkts(wqe->length, qp->mtu))
			goto out;
	}
	if (req->cur == req->sent_end) {
		req->sent_end = sroce_req_next(qp, req->cur);
		req->end_psns = false;
		if (sroce_seg_takes_rd_atomic(wqe->opcode))
			req->rd_atomic++;
	}
	req->cur = sroce_req_next(qp, req->cur);
	req->cur_pkt = 0;
out:
	if (sroce_psn_gt(req->psn, req->psn_high))
		req->psn_high = req->psn;
	if (!timer_pending(&req->retry_timer))
		sroce_req_arm_retry(qp);
}

/*
 * The local operation at cur: executed once, when first reached, then
 * skipped by retransmissions. It completes as soon as every WQE before it
 * has (sroce_comp_local_ops()). Returns false when it failed (its status
 * is set). Caller holds req.lock.
 */
static bool sroce_req_local(struct sroce_qp *qp, struct sroce_swqe *wqe)
{
	struct sroce_req *req = &qp->req;

	if (req->cur == req->sent_end) {
		wqe->status = sroce_mw_local_op(qp, wqe);
		if (wqe->status != IB_WC_SUCCESS)
			return false;
		wqe->prog.first_psn = req->psn;
		wqe->prog.last_psn = sroce_psn_add(req->psn, -1);
		req->sent_end = sroce_req_next(qp, req->cur);
	}
	req->cur = sroce_req_next(qp, req->cur);
	/* A CQ overflow stopped the QP: the caller moves it to ERR. */
	return !sroce_comp_local_ops(qp);
}

/* Make sure the WQE at cur is in the shadow ring. Caller holds req.lock. */
static bool sroce_req_fetch(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	unsigned long flags;

	if (req->cur != req->head)
		return true;
	spin_lock_irqsave(&qp->sq.lock, flags);
	sroce_sq_fetch(qp);
	req->head = qp->sq.head;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return req->cur != req->head;
}

/* Queue a train that holds packets on @list, or free an empty one. */
static void sroce_req_close_train(struct sk_buff_head *list,
				  struct sk_buff **train)
{
	if (*train && skb_shinfo(*train)->nr_frags)
		__skb_queue_tail(list, *train);
	else
		kfree_skb(*train);
	*train = NULL;
}

/*
 * Build up to SROCE_REQ_BATCH packets onto @list; *@train is the send
 * train being filled, if any, for the caller to queue behind them.
 * Caller holds req.lock.
 */
static enum sroce_req_result __sroce_req_fill(struct sroce_qp *qp,
					      struct sk_buff_head *list,
					      struct sk_buff **train)
{
	struct sroce_req *req = &qp->req;
	struct sroce_req_pkt pkt;
	enum ib_qp_state state;
	struct sroce_swqe *wqe;
	bool no_frags = false;
	struct sk_buff *skb;
	unsigned int built;
	unsigned int len;
	u64 now = 0;
	u32 psn;

	for (built = 0; built < SROCE_REQ_BATCH; built++) {
		if (req->stopped || req->rnr_wait)
			return SROCE_REQ_IDLE;
		if (sroce_req_window_full(req))
			return SROCE_REQ_IDLE;
		/*
		 * After a timeout only the oldest packet goes again, asking
		 * for an ACK: if the peer or the path was only slow, its
		 * (coalesced) ACK moves everything on, without a window of
		 * duplicates that a peer short of CPU must work through.
		 */
		if (req->probe && req->psn != req->una)
			return SROCE_REQ_IDLE;
		if (!sroce_req_fetch(qp))
			return SROCE_REQ_IDLE;
		/*
		 * The clock once per batch, and only for one that sends: a
		 * run after an ACK mostly finds nothing to do, and the
		 * clock can be slow (an emulated HPET is an exit each read).
		 */
		if (!now)
			now = ktime_get_ns();
		if (!sroce_req_may_send(qp, now))
			return SROCE_REQ_IDLE;

		wqe = sroce_sq_wqe(qp, req->cur);
		if (!req->cur_pkt) {
			if (req->cur == req->sent_end && !req->end_psns) {
				/* SQD: finish what started, start nothing. */
				state = READ_ONCE(qp->state);
				if (state != IB_QPS_RTS)
					return SROCE_REQ_IDLE;
				if (wqe->status != IB_WC_SUCCESS)
					return SROCE_REQ_FAILED;
				if (!sroce_req_may_start(qp, wqe))
					return SROCE_REQ_IDLE;
			}
			if (sroce_seg_is_local(wqe->opcode)) {
				if (!sroce_req_local(qp, wqe))
					return SROCE_REQ_FAILED;
				continue;
			}
			if (req->cur == req->sent_end)
				req->end_psns = true;
			wqe->prog.first_psn = req->psn;
			wqe->prog.last_psn =
				sroce_psn_add(req->psn,
					      sroce_seg_npsn(wqe->opcode,
							     wqe->length,
							     qp->mtu) - 1);
			wqe->prog.done_pkts = 0;
			wqe->prog.done_bytes = 0;
			if (!wqe->inline_data)
				sroce_sge_cursor_init(&req->cursor, wqe->sge,
						      wqe->num_sge);
		}

		if (!sroce_req_shape(qp, wqe, &pkt))
			return SROCE_REQ_FAILED;
		/* Look again a tick later (req->backoff). */
		if (sroce_req_dest_waits(qp, wqe))
			return SROCE_REQ_BACKOFF;
		len = sroce_req_pkt_len(&pkt);
		if (*train && !sroce_train_fits(*train, len)) {
			__skb_queue_tail(list, *train);
			*train = NULL;
		}
		if (!*train && !no_frags && sroce_req_may_train(qp, &pkt))
			*train = sroce_xmit_alloc_train(qp);

		psn = req->psn;
		skb = sroce_req_build(qp, wqe, &pkt, *train);
		if (!skb && *train) {
			/*
			 * No page fragment for it (sroce_train_add()): the
			 * train ends here, and this batch's packets go alone.
			 */
			sroce_req_close_train(list, train);
			no_frags = true;
			skb = sroce_req_build(qp, wqe, &pkt, NULL);
		}
		if (PTR_ERR(skb) == -EAGAIN) {
			/* Look again a tick later (req->backoff). */
			return SROCE_REQ_BACKOFF;
		}
		if (IS_ERR(skb)) {
			*train = NULL;
			return SROCE_REQ_FAILED;
		}
		if (!skb)
			return SROCE_REQ_BACKOFF;
		if (skb != *train)
			__skb_queue_tail(list, skb);
		sroce_req_charge(qp, psn, pkt.ack_req, len, now);
		if (pkt.ack_req)
			sroce_req_asked(qp, sroce_seg_is_rd_atomic(wqe->opcode) ?
					    wqe->prog.last_psn : psn);
		sroce_req_advance(qp, wqe);
		/* A train carries one message. */
		if (*train && !req->cur_pkt) {
			__skb_queue_tail(list, *train);
			*train = NULL;
		}
	}
	return SROCE_REQ_MORE;
}

static enum sroce_req_result sroce_req_fill(struct sroce_qp *qp,
					    struct sk_buff_head *list)
{
	struct sk_buff *train = NULL;
	enum sroce_req_result res;

	res = __sroce_req_fill(qp, list, &train);
	sroce_req_close_train(list, &train);
	return res;
}

bool sroce_req_pushed_back(struct sroce_qp *qp, int err)
{
	struct sroce_req *req = &qp->req;

	if (err != -ENOBUFS) {
		req->xmit_tries = 0;
		return false;
	}
	req->backoff = sroce_xmit_backoff(&req->xmit_tries);
	sroce_counter_inc(&to_sdev(qp->ibqp.device)->counters,
			  req->backoff ? SROCE_CNT_XMIT_BACKOFFS :
					 SROCE_CNT_XMIT_GAVE_UP);
	return req->backoff;
}

/*
 * Transmit what sroce_req_fill() built. Stops at the first packet the host
 * could not queue and rewinds to it: a local drop is back-pressure, not
 * loss, and must not wait for the retransmit timer (rdma_rxe's READ
 * throughput collapse). Packets built before a rewind are stale: dropped.
 * A packet pushed back SROCE_XMIT_BACKOFF_TRIES times in a row, and one
 * the stack refused outright, are losses: sending goes on, and the
 * retransmit timer resends them.
 */
static enum sroce_req_result sroce_req_xmit(struct sroce_qp *qp,
					    struct sk_buff_head *list, u32 gen,
					    u32 epoch)
{
	struct sroce_req *req = &qp->req;
	bool uc = qp->ibqp.qp_type == IB_QPT_UC;
	enum sroce_req_result res = SROCE_REQ_IDLE;
	bool sent = false;
	struct sk_buff *skb;
	u32 sent_psn = 0;
	u32 psn, last_psn;

	while ((skb = __skb_dequeue(list))) {
		if (READ_ONCE(req->gen) != gen) {
			kfree_skb(skb);
			continue;
		}
		psn = sroce_req_cb(skb)->psn;
		last_psn = sroce_req_cb(skb)->last_psn;
		if (!sroce_req_pushed_back(qp, sroce_xmit(qp, skb))) {
			sent = true;
			sent_psn = last_psn;
			continue;
		}

		spin_lock_bh(&req->lock);
		if (req->gen == gen && sroce_psn_lt(psn, req->psn))
			sroce_req_seek(qp, psn);
		spin_unlock_bh(&req->lock);
		__skb_queue_purge(list);
		res = SROCE_REQ_BACKOFF;
		break;
	}
	/* UC: a WQE is done once its last packet has left (IBTA vol 1 9.8). */
	if (uc && sent)
		sroce_comp_uc_sent(qp, sent_psn, epoch);
	return res;
}

/* One round: build a batch, send it. */
static enum sroce_req_result sroce_req_do_round(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	enum sroce_req_result fill, sent;
	enum ib_qp_state state;
	struct sk_buff_head list;
	bool error = false;
	u32 gen, epoch;

	state = READ_ONCE(qp->state);
	if (state == IB_QPS_ERR || state == IB_QPS_SQE) {
		sroce_req_flush(qp);
		return SROCE_REQ_IDLE;
	}
	if (sroce_ud_qp(qp)) {
		int ret;

		req->backoff = 1;
		ret = sroce_ud_send(qp);
		if (ret < 0)
			return SROCE_REQ_BACKOFF;
		return ret ? SROCE_REQ_MORE : SROCE_REQ_IDLE;
	}

	__skb_queue_head_init(&list);
	/* No memory for a packet: try again a jiffy later. */
	req->backoff = 1;
	spin_lock_bh(&req->lock);
	if (req->expired)
		error = sroce_comp_expired(qp);
	else if (req->early)
		sroce_comp_early(qp);
	gen = req->gen;
	epoch = req->epoch;
	fill = sroce_req_fill(qp, &list);
	if (fill == SROCE_REQ_FAILED && qp->ibqp.qp_type == IB_QPT_UC) {
		/*
		 * UC: the QP is in SQE before the failing WQE's error
		 * completion is posted, for a consumer that reacts to it by
		 * moving SQE back to RTS. UC has no completer but this
		 * requester; only a flush (a post in SQE) can move req state
		 * meanwhile, and then it completed the WQE as flushed and
		 * sroce_comp_local_error() finds the requester stopped.
		 */
		spin_unlock_bh(&req->lock);
		sroce_qp_enter_sqe(qp);
		spin_lock_bh(&req->lock);
	}
	if (fill == SROCE_REQ_FAILED)
		error = sroce_comp_local_error(qp) || req->stopped || error;
	spin_unlock_bh(&req->lock);

	sent = sroce_req_xmit(qp, &list, gen, epoch);
	/*
	 * RC: ERR. UC: SQE, the rest of the SQ flushed (CQ overrun: ERR).
	 * Not if the QP was flushed or went through RESET meanwhile.
	 */
	if (error && READ_ONCE(req->epoch) == epoch)
		sroce_qp_send_error(qp);
	if (sent == SROCE_REQ_BACKOFF || fill == SROCE_REQ_BACKOFF)
		return SROCE_REQ_BACKOFF;
	return fill == SROCE_REQ_MORE ? SROCE_REQ_MORE : SROCE_REQ_IDLE;
}

static enum sroce_req_result sroce_req_round(struct sroce_qp *qp)
{
	enum sroce_req_result res = sroce_req_do_round(qp);

	/* SQD: report the drain once nothing started is outstanding. */
	if (res == SROCE_REQ_IDLE && READ_ONCE(qp->state) == IB_QPS_SQD)
		sroce_qp_sqd_check(qp);
	return res;
}

void sroce_req_run(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	enum sroce_req_result res = SROCE_REQ_IDLE;
	/*
	 * The budget of the whole call: rounds that end IDLE while kicks
	 * keep coming (ACKs on other CPUs, posts) count too, so a caller in
	 * softirq or with preemption off is let go after at most
	 * SROCE_REQ_BUDGET packets whatever the traffic.
	 */
	unsigned int rounds = SROCE_REQ_BUDGET / SROCE_REQ_BATCH;

	set_bit(SROCE_REQ_AGAIN, &req->flags);
	/*
	 * Order AGAIN before the RUNNING test: a runner that is finishing
	 * either sees AGAIN after its clear_bit_unlock() and loops, or we
	 * see RUNNING clear. Pairs with the barrier after clear_bit_unlock().
	 */
	smp_mb__after_atomic();

	while (!test_and_set_bit_lock(SROCE_REQ_RUNNING, &req->flags)) {
		while (rounds) {
			if (res != SROCE_REQ_MORE &&
			    !test_and_clear_bit(SROCE_REQ_AGAIN, &req->flags))
				break;
			res = sroce_req_round(qp);
			if (res == SROCE_REQ_BACKOFF)
				break;
			rounds--;
		}
		clear_bit_unlock(SROCE_REQ_RUNNING, &req->flags);

		if (res == SROCE_REQ_BACKOFF) {
			/* Let the qdisc drain; an ACK may kick us sooner. */
			sroce_req_defer(qp, req->backoff);
			return;
		}
		if (res == SROCE_REQ_MORE) {
			/* A long message: let the caller go, continue later. */
			sroce_req_defer(qp, 0);
			return;
		}
		/* Pairs with the barrier after set_bit() above. */
		smp_mb__after_atomic();
		if (!test_bit(SROCE_REQ_AGAIN, &req->flags))
			return;
		if (!rounds) {
			/* Kicked again with the budget spent: continue later. */
			sroce_req_defer(qp, 0);
			return;
		}
	}
}

void sroce_req_answered(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if (!sroce_xmit_looping()) {
		sroce_req_run(qp);
		return;
	}
	/*
	 * Inside a loopback delivery what the requester sent would be
	 * delivered in the same loop, and the answers would run it again:
	 * QPs of one host answering each other (three suffice: the loop's
	 * owner is then none of them) would keep one caller's loop going,
	 * BH off, for as long as they have data. A runner up the stack goes
	 * round again; else the work item runs it.
	 */
	set_bit(SROCE_REQ_AGAIN, &req->flags);
	/* Pairs with the barrier after clear_bit_unlock() in sroce_req_run(). */
	smp_mb__after_atomic();
	if (!test_bit(SROCE_REQ_RUNNING, &req->flags))
		mod_delayed_work(system_wq, &req->work, 0);
}

void sroce_req_kick(struct sroce_qp *qp)
{
	/*
	 * A kick from an interrupt or from a completion handler (which runs
	 * under the completer's locks, BH disabled) must not send: defer.
	 */
	if (in_interrupt() || irqs_disabled()) {
		sroce_req_defer(qp, 0);
		return;
	}
	sroce_req_run(qp);
}
