// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the QP state machine and the post verbs:
 *
 * - the transitions modify_qp allows (IBTA vol 1 10.3.1, 11.2.1.2): the
 *   core's table with its attributes, SQD in and out, SQE left by modify
 *   (ib_mad's recovery of QP1) but never entered by it, no SQE for RC;
 * - a post to a QP in ERR with interrupts off (ib_mad posts under
 *   spin_lock_irqsave()) runs no flush there, since the flushes take _bh
 *   locks; the QP's flush work completes the WQE as flushed afterwards;
 * - a send error puts UD, GSI and UC QPs in SQE (the SQ flushes, the RQ
 *   does not), RC QPs and overflowed send CQs in ERR;
 * - a flush that comes after the QP left ERR or SQE does nothing;
 * - the move to RTS starts DCQCN from the link speed the netdev notifier
 *   cached, without asking the netdev (which needs RTNL).
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/irqflags.h>
#include <linux/workqueue.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "sroce_cq.h"
#include "sroce_dev.h"
#include "sroce_qp.h"
#include "sroce_req.h"
#include "sroce_resp.h"

#define S	IB_QP_STATE
#define CUR	IB_QP_CUR_STATE
/* What each transition of a connected QP needs (ib_modify_qp_is_ok()). */
#define RC_INIT	(S | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS)
#define RC_RTR	(S | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | \
		 IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)
#define RC_RTS	(S | IB_QP_SQ_PSN | IB_QP_TIMEOUT | IB_QP_RETRY_CNT | \
		 IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC)
#define UD_INIT	(S | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY)

static const struct {
	enum ib_qp_type type;
	enum ib_qp_state cur, new;
	int mask;
	bool ok;
} transitions[] = {
	/* The way up, with the attributes each step needs. */
	{ IB_QPT_RC, IB_QPS_RESET, IB_QPS_INIT, RC_INIT, true },
	{ IB_QPT_RC, IB_QPS_RESET, IB_QPS_INIT, S, false },
	{ IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, RC_RTR, true },
	{ IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, S, false },
	{ IB_QPT_RC, IB_QPS_RTR, IB_QPS_RTS, RC_RTS, true },
	{ IB_QPT_UD, IB_QPS_RESET, IB_QPS_INIT, UD_INIT, true },
	{ IB_QPT_UD, IB_QPS_INIT, IB_QPS_RTR, S, true },
	{ IB_QPT_UD, IB_QPS_RTR, IB_QPS_RTS, S | IB_QP_SQ_PSN, true },
	{ IB_QPT_RC, IB_QPS_RESET, IB_QPS_RTS, RC_RTS, false },
	{ IB_QPT_RC, IB_QPS_RTS, IB_QPS_RTR, S, false },
	/* SQD: in from RTS, out to RTS, and SQD -> SQD, for every type. */
	{ IB_QPT_RC, IB_QPS_RTS, IB_QPS_SQD, S, true },
	{ IB_QPT_RC, IB_QPS_RTS, IB_QPS_SQD,
	  S | IB_QP_EN_SQD_ASYNC_NOTIFY, true },
	{ IB_QPT_RC, IB_QPS_SQD, IB_QPS_RTS, S, true },
	{ IB_QPT_RC, IB_QPS_SQD, IB_QPS_SQD, S, true },
	{ IB_QPT_UC, IB_QPS_RTS, IB_QPS_SQD, S, true },
	{ IB_QPT_UD, IB_QPS_RTS, IB_QPS_SQD, S, true },
	{ IB_QPT_UD, IB_QPS_SQD, IB_QPS_RTS, S, true },
	{ IB_QPT_GSI, IB_QPS_RTS, IB_QPS_SQD, S, true },
	{ IB_QPT_UD, IB_QPS_RTR, IB_QPS_SQD, S, false },
	{ IB_QPT_UD, IB_QPS_INIT, IB_QPS_SQD, S, false },
	/* SQE: left by modify (ib_mad: SQE -> RTS with CUR_STATE) ... */
	{ IB_QPT_GSI, IB_QPS_SQE, IB_QPS_RTS, S | CUR, true },
	{ IB_QPT_UD, IB_QPS_SQE, IB_QPS_RTS, S, true },
	{ IB_QPT_UC, IB_QPS_SQE, IB_QPS_RTS, S | CUR, true },
	{ IB_QPT_UD, IB_QPS_SQE, IB_QPS_ERR, S, true },
	{ IB_QPT_UD, IB_QPS_SQE, IB_QPS_RESET, S, true },
	{ IB_QPT_UD, IB_QPS_SQE, IB_QPS_SQD, S, false },
	{ IB_QPT_UD, IB_QPS_SQE, IB_QPS_RTR, S, false },
	/* ... never entered by it, and RC has none. */
	{ IB_QPT_UD, IB_QPS_RTS, IB_QPS_SQE, S, false },
	{ IB_QPT_UD, IB_QPS_SQD, IB_QPS_SQE, S, false },
	{ IB_QPT_GSI, IB_QPS_SQE, IB_QPS_SQE, S, false },
	{ IB_QPT_RC, IB_QPS_RTS, IB_QPS_SQE, S, false },
	{ IB_QPT_RC, IB_QPS_SQE, IB_QPS_RTS, S, false },
	{ IB_QPT_RC, IB_QPS_SQE, IB_QPS_ERR, S, false },
	/* ERR and RESET from anywhere; out of ERR only to RESET. */
	{ IB_QPT_RC, IB_QPS_RTS, IB_QPS_ERR, S, true },
	{ IB_QPT_RC, IB_QPS_SQD, IB_QPS_ERR, S, true },
	{ IB_QPT_UC, IB_QPS_SQD, IB_QPS_RESET, S, true },
	{ IB_QPT_RC, IB_QPS_ERR, IB_QPS_RESET, S, true },
	{ IB_QPT_RC, IB_QPS_ERR, IB_QPS_RTS, S, false },
	{ IB_QPT_UD, IB_QPS_ERR, IB_QPS_SQD, S, false },
	/* Not a state. */
	{ IB_QPT_UD, IB_QPS_RTS, IB_QPS_ERR + 1, S, false },
	{ IB_QPT_UD, IB_QPS_ERR + 1, IB_QPS_RESET, S, false },
};

static void qp_transition_table(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(transitions); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    sroce_qp_transition_ok(transitions[i].type,
							   transitions[i].cur,
							   transitions[i].new,
							   transitions[i].mask),
				    transitions[i].ok,
				    "row %u: type %d, %d -> %d, mask %#x", i,
				    transitions[i].type, transitions[i].cur,
				    transitions[i].new, transitions[i].mask);
}

/* A kernel RC QP in ERR with its rings, engines and one CQ for both. */
struct qp_fixture {
	struct sroce_qp *qp;
	struct sroce_cq *cq;
};

static int qp_fixture_init(struct kunit *test, struct qp_fixture *f)
{
	struct sroce_qp *qp;
	struct sroce_cq *cq;
	u32 depth;

	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);
	if (!qp || !cq)
		return -ENOMEM;
	f->qp = qp;
	f->cq = cq;

	spin_lock_init(&cq->lock);
	depth = 15;
	if (sroce_queue_init(&cq->queue, NULL, &depth, sizeof(struct ib_wc),
			     SROCE_QUEUE_TO_USER))
		return -ENOMEM;

	qp->ibqp.qp_type = IB_QPT_RC;
	qp->ibqp.send_cq = &cq->ibcq;
	qp->ibqp.recv_cq = &cq->ibcq;
	spin_lock_init(&qp->state_lock);
	sroce_qp_init_flush(qp);
	qp->state = IB_QPS_ERR;
	qp->attr.qp_state = IB_QPS_ERR;

	depth = 7;
	spin_lock_init(&qp->sq.lock);
	if (sroce_queue_init(&qp->sq.queue, NULL, &depth,
			     sizeof(struct rxe_send_wqe) + 64,
			     SROCE_QUEUE_FROM_USER))
		return -ENOMEM;
	qp->sq.max_wr = depth;
	qp->sq.max_sge = 4;
	qp->sq.max_inline = 64;
	qp->sq.shadow_elem_size = sizeof(struct sroce_swqe) + 64;
	qp->sq.shadow = kunit_kcalloc(test, depth + 1,
				      qp->sq.shadow_elem_size, GFP_KERNEL);
	if (!qp->sq.shadow)
		return -ENOMEM;

	depth = 7;
	spin_lock_init(&qp->rq.lock);
	if (sroce_queue_init(&qp->rq.queue, NULL, &depth,
			     sizeof(struct rxe_recv_wqe) + 4 * 16,
			     SROCE_QUEUE_FROM_USER))
		return -ENOMEM;
	qp->rq.max_wr = depth;
	qp->rq.max_sge = 4;

	sroce_req_init(qp);
	return sroce_resp_init(qp);
}

static void qp_fixture_cleanup(struct qp_fixture *f)
{
	cancel_work_sync(&f->qp->flush_work);
	sroce_resp_cleanup(f->qp);
	sroce_req_cleanup(f->qp);
	sroce_queue_cleanup(&f->qp->rq.queue);
	sroce_queue_cleanup(&f->qp->sq.queue);
	sroce_queue_cleanup(&f->cq->queue);
}

/* The QP's flush work completes @wr_id on the CQ, as flushed. */
static void expect_flushed(struct kunit *test, struct qp_fixture *f,
			   u64 wr_id)
{
	struct ib_wc wc;
	int n;

	flush_work(&f->qp->flush_work);
	n = sroce_poll_cq(&f->cq->ibcq, 1, &wc);
	KUNIT_EXPECT_EQ(test, n, 1);
	if (n == 1) {
		KUNIT_EXPECT_EQ(test, wc.wr_id, wr_id);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	}
}

/*
 * A SEND posted to a QP in ERR with interrupts off (a ULP's
 * spin_lock_irqsave() section) or with BH off (a completion handler,
 * called under the engines' locks) is not flushed there: the QP's work
 * flushes it, without the caller's context.
 */
static void post_send_in_err_deferred(struct kunit *test, bool irqs)
{
	struct ib_send_wr wr = {
		.wr_id = 0x5e4d,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad = NULL;
	struct qp_fixture f;
	unsigned long flags = 0;
	struct ib_wc wc;
	bool still_off;
	int err, n;

	KUNIT_ASSERT_EQ(test, qp_fixture_init(test, &f), 0);

	if (irqs)
		local_irq_save(flags);
	else
		local_bh_disable();
	err = sroce_post_send(&f.qp->ibqp, &wr, &bad);
	still_off = irqs ? irqs_disabled() : !!in_softirq();
	n = sroce_poll_cq(&f.cq->ibcq, 1, &wc);
	if (irqs)
		local_irq_restore(flags);
	else
		local_bh_enable();

	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_TRUE(test, still_off);
	KUNIT_EXPECT_EQ(test, n, 0);
	expect_flushed(test, &f, 0x5e4d);
	qp_fixture_cleanup(&f);
}

static void qp_post_send_in_err_irqs_off(struct kunit *test)
{
	post_send_in_err_deferred(test, true);
}

static void qp_post_send_in_err_bh_off(struct kunit *test)
{
	post_send_in_err_deferred(test, false);
}

static void qp_post_recv_in_err_irqs_off(struct kunit *test)
{
	struct ib_recv_wr wr = { .wr_id = 0x7ec0 };
	const struct ib_recv_wr *bad = NULL;
	struct qp_fixture f;
	unsigned long flags;
	struct ib_wc wc;
	int err, n;

	KUNIT_ASSERT_EQ(test, qp_fixture_init(test, &f), 0);

	local_irq_save(flags);
	err = sroce_post_recv(&f.qp->ibqp, &wr, &bad);
	n = sroce_poll_cq(&f.cq->ibcq, 1, &wc);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, n, 0);

	expect_flushed(test, &f, 0x7ec0);

	/* With interrupts on the flush runs right away, as before. */
	wr.wr_id = 0x7ec1;
	err = sroce_post_recv(&f.qp->ibqp, &wr, &bad);
	n = sroce_poll_cq(&f.cq->ibcq, 1, &wc);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, n, 1);
	if (n == 1)
		KUNIT_EXPECT_EQ(test, wc.wr_id, 0x7ec1ULL);
	qp_fixture_cleanup(&f);
}

/* Write one SEND straight into the SQ ring, as the provider would. */
static void ring_send(struct sroce_qp *qp, u64 wr_id)
{
	struct sroce_queue *q = &qp->sq.queue;
	u32 prod = q->buf->producer_index & q->index_mask;
	struct rxe_send_wqe *w = (void *)(q->buf->data +
					  ((size_t)prod << q->log2_elem_size));

	memset(w, 0, sizeof(*w));
	w->wr.wr_id = wr_id;
	w->wr.opcode = IB_WR_SEND;
	w->wr.send_flags = IB_SEND_SIGNALED;
	q->buf->producer_index = (prod + 1) & q->index_mask;
}

/*
 * A send error: UD, GSI and UC go to SQE, the SQ flushes, a receive
 * stays posted; RC, or any QP whose send CQ overflowed, goes to ERR.
 */
static void qp_send_error_states(struct kunit *test)
{
	static const struct {
		enum ib_qp_type type;
		bool overflowed;
		enum ib_qp_state want;
	} cases[] = {
		{ IB_QPT_UD, false, IB_QPS_SQE },
		{ IB_QPT_GSI, false, IB_QPS_SQE },
		{ IB_QPT_UC, false, IB_QPS_SQE },
		{ IB_QPT_RC, false, IB_QPS_ERR },
		{ IB_QPT_UD, true, IB_QPS_ERR },
	};
	struct ib_recv_wr rwr = { .wr_id = 0x2ec };
	const struct ib_recv_wr *bad;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct qp_fixture f;
		struct ib_wc wc[4];
		int n, want_n;

		KUNIT_ASSERT_EQ(test, qp_fixture_init(test, &f), 0);
		f.qp->ibqp.qp_type = cases[i].type;
		f.qp->state = IB_QPS_RTS;
		f.qp->attr.qp_state = IB_QPS_RTS;
		KUNIT_EXPECT_EQ(test, sroce_post_recv(&f.qp->ibqp, &rwr, &bad),
				0);
		ring_send(f.qp, 0x5e0);
		ring_send(f.qp, 0x5e1);
		f.cq->overflowed = cases[i].overflowed;

		/* As the engines do: SQE before the error completion. */
		sroce_qp_enter_sqe(f.qp);
		sroce_qp_send_error(f.qp);
		KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(f.qp->state), cases[i].want,
				    "case %u", i);
		f.cq->overflowed = false;
		n = sroce_poll_cq(&f.cq->ibcq, ARRAY_SIZE(wc), wc);
		/* Both sends flushed; the receive too, in ERR only. */
		want_n = 2;
		if (cases[i].want == IB_QPS_ERR)
			want_n = 3;
		KUNIT_EXPECT_EQ_MSG(test, n, want_n, "case %u", i);
		if (n >= 2) {
			KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0x5e0ULL);
			KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_WR_FLUSH_ERR);
			KUNIT_EXPECT_EQ(test, wc[1].wr_id, 0x5e1ULL);
		}
		/* Only SQE goes back to RTS by modify; never into SQE. */
		KUNIT_EXPECT_EQ(test,
				sroce_qp_transition_ok(cases[i].type,
						       cases[i].want,
						       IB_QPS_RTS, IB_QP_STATE),
				cases[i].want == IB_QPS_SQE);
		qp_fixture_cleanup(&f);
	}
}

/*
 * The consumer answered a UD, GSI or UC send error by moving the QP from
 * SQE back to RTS (ib_mad does, for QP1) before the engine got to
 * sroce_qp_send_error(): the QP stays in RTS and nothing is flushed.
 */
static void qp_send_error_after_recovery(struct kunit *test)
{
	static const enum ib_qp_type types[] = {
		IB_QPT_UD, IB_QPT_GSI, IB_QPT_UC,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		struct qp_fixture f;
		struct ib_wc wc;

		KUNIT_ASSERT_EQ(test, qp_fixture_init(test, &f), 0);
		f.qp->ibqp.qp_type = types[i];
		f.qp->state = IB_QPS_RTS;
		f.qp->attr.qp_state = IB_QPS_RTS;
		sroce_req_resume(f.qp);
		KUNIT_EXPECT_TRUE(test, sroce_qp_enter_sqe(f.qp));
		/* The consumer's SQE -> RTS, then a new post. */
		f.qp->state = IB_QPS_RTS;
		f.qp->attr.qp_state = IB_QPS_RTS;
		ring_send(f.qp, 0x2e5);

		sroce_qp_send_error(f.qp);
		flush_work(&f.qp->flush_work);
		KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(f.qp->state), IB_QPS_RTS,
				    "type %d", types[i]);
		KUNIT_EXPECT_EQ_MSG(test, sroce_poll_cq(&f.cq->ibcq, 1, &wc), 0,
				    "type %d", types[i]);
		KUNIT_EXPECT_FALSE(test, f.qp->req.stopped);
		qp_fixture_cleanup(&f);
	}
}

/*
 * A flush decided on a state the QP has left since (a post that saw SQE,
 * running after modify_qp took the QP back to RTS and resumed the
 * requester) does nothing: it neither stops the requester again nor
 * flushes what was posted for RTS. In SQE it flushes.
 */
static void qp_late_flush(struct kunit *test)
{
	struct qp_fixture f;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, qp_fixture_init(test, &f), 0);
	f.qp->ibqp.qp_type = IB_QPT_UD;
	f.qp->state = IB_QPS_RTS;
	f.qp->attr.qp_state = IB_QPS_RTS;
	sroce_req_resume(f.qp);
	ring_send(f.qp, 0x1a7e);

	sroce_req_flush(f.qp);
	KUNIT_EXPECT_EQ(test, sroce_poll_cq(&f.cq->ibcq, 1, &wc), 0);
	KUNIT_EXPECT_FALSE(test, f.qp->req.stopped);

	f.qp->state = IB_QPS_SQE;
	f.qp->attr.qp_state = IB_QPS_SQE;
	sroce_req_flush(f.qp);
	expect_flushed(test, &f, 0x1a7e);
	KUNIT_EXPECT_TRUE(test, f.qp->req.stopped);
	qp_fixture_cleanup(&f);
}

/* What a completion handler saw of the SQ when a send completion came. */
struct sq_seen {
	struct sroce_qp *qp;
	u32 consumer;
	int calls;
};

static void record_sq_consumer(struct ib_cq *ibcq, void *ctx)
{
	struct sq_seen *seen = ctx;

	/* As a poster reads it: pairs with the completer's release. */
	seen->consumer = smp_load_acquire(&seen->qp->sq.queue.buf->consumer_index);
	seen->calls++;
}

/*
 * A send completion is posted only once its SQ slot is free: a ULP that
 * posts again from its completion handler, or an application that polls
 * on another CPU, must not find the ring full.
 */
static void qp_sq_slot_free_before_completion(struct kunit *test)
{
	struct qp_fixture f;
	struct sq_seen seen = {};
	struct ib_wc wc;
	int n;

	KUNIT_ASSERT_EQ(test, qp_fixture_init(test, &f), 0);
	seen.qp = f.qp;
	f.cq->ibcq.comp_handler = record_sq_consumer;
	f.cq->ibcq.cq_context = &seen;
	f.cq->notify = IB_CQ_NEXT_COMP;
	ring_send(f.qp, 0x5107);

	sroce_req_flush(f.qp);
	KUNIT_EXPECT_EQ(test, seen.calls, 1);
	KUNIT_EXPECT_EQ(test, seen.consumer, 1U);
	n = sroce_poll_cq(&f.cq->ibcq, 1, &wc);
	KUNIT_EXPECT_EQ(test, n, 1);
	if (n == 1) {
		KUNIT_EXPECT_EQ(test, wc.wr_id, 0x5107ULL);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	}
	qp_fixture_cleanup(&f);
}

/* Counts the asynchronous events of one kind a handler was given. */
struct event_count {
	enum ib_event_type type;
	int calls;
	int other;
};

static void count_event(struct ib_event *ev, void *ctx)
{
	struct event_count *c = ctx;

	if (ev->event == c->type)
		c->calls++;
	else
		c->other++;
}

/*
 * IBTA 11.6.2: a completion that finds its CQ full is lost and the CQ's
 * consumer learns it once (IB_EVENT_CQ_ERR); the CQEs already there are
 * left as they were. Once the consumer has polled, the CQ takes
 * completions again (flushes must still reach a ULP draining its QPs),
 * and the event does not repeat until a resize clears the overrun.
 */
static void qp_cq_overrun_event_once(struct kunit *test)
{
	struct event_count ev = { .type = IB_EVENT_CQ_ERR };
	struct ib_wc wc = { .status = IB_WC_SUCCESS, .opcode = IB_WC_RECV };
	struct qp_fixture f;
	struct ib_wc got;
	u32 i, depth;

	KUNIT_ASSERT_EQ(test, qp_fixture_init(test, &f), 0);
	f.cq->ibcq.event_handler = count_event;
	f.cq->ibcq.cq_context = &ev;
	wc.qp = &f.qp->ibqp;
	depth = f.cq->queue.index_mask;

	for (i = 0; i < depth; i++) {
		wc.wr_id = 0xc0 + i;
		KUNIT_EXPECT_EQ(test, sroce_cq_post(f.cq, &wc, false), 0);
	}
	wc.wr_id = 0xdead;
	KUNIT_EXPECT_EQ(test, sroce_cq_post(f.cq, &wc, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, sroce_cq_post(f.cq, &wc, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, ev.calls, 1);
	KUNIT_EXPECT_TRUE(test, f.cq->overflowed);

	KUNIT_ASSERT_EQ(test, sroce_poll_cq(&f.cq->ibcq, 1, &got), 1);
	KUNIT_EXPECT_EQ(test, got.wr_id, 0xc0ULL);
	wc.wr_id = 0xc1a;
	KUNIT_EXPECT_EQ(test, sroce_cq_post(f.cq, &wc, false), 0);
	KUNIT_EXPECT_EQ(test, sroce_cq_post(f.cq, &wc, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, ev.calls, 1);
	KUNIT_EXPECT_EQ(test, ev.other, 0);

	/* Every entry as posted, in order, the late one last. */
	for (i = 1; i < depth; i++) {
		KUNIT_ASSERT_EQ(test, sroce_poll_cq(&f.cq->ibcq, 1, &got), 1);
		KUNIT_EXPECT_EQ(test, got.wr_id, 0xc0ULL + i);
	}
	KUNIT_ASSERT_EQ(test, sroce_poll_cq(&f.cq->ibcq, 1, &got), 1);
	KUNIT_EXPECT_EQ(test, got.wr_id, 0xc1aULL);
	KUNIT_EXPECT_EQ(test, sroce_poll_cq(&f.cq->ibcq, 1, &got), 0);
	qp_fixture_cleanup(&f);
}

/*
 * IBTA 10.3.1 and 11.6.3: a QP on an SRQ that enters ERR completes the
 * WQE it took from the SRQ as flushed, then raises Last WQE Reached,
 * once: further errors in ERR (an engine's, a second modify) raise
 * nothing more and complete nothing more.
 */
static void qp_srq_last_wqe_once(struct kunit *test)
{
	struct event_count ev = { .type = IB_EVENT_QP_LAST_WQE_REACHED };
	struct ib_srq *srq;
	struct qp_fixture f;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, qp_fixture_init(test, &f), 0);
	/* Not dereferenced by a flush: only the held WQE's copy is. */
	srq = kunit_kzalloc(test, sizeof(*srq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, srq);
	f.qp->ibqp.srq = srq;
	f.qp->ibqp.event_handler = count_event;
	f.qp->ibqp.qp_context = &ev;
	f.qp->state = IB_QPS_RTS;
	f.qp->attr.qp_state = IB_QPS_RTS;
	f.qp->resp.rwqe->wr_id = 0x5e9;
	f.qp->resp.have_wqe = true;

	sroce_qp_error(f.qp);
	sroce_qp_error(f.qp);
	expect_flushed(test, &f, 0x5e9);
	KUNIT_EXPECT_EQ(test, READ_ONCE(f.qp->state), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, ev.calls, 1);
	KUNIT_EXPECT_EQ(test, ev.other, 0);
	KUNIT_EXPECT_FALSE(test, f.qp->resp.have_wqe);
	KUNIT_EXPECT_EQ(test, sroce_poll_cq(&f.cq->ibcq, 1, &wc), 0);
	f.qp->ibqp.srq = NULL;
	qp_fixture_cleanup(&f);
}

/* A netdev whose ethtool answer differs from what the notifier cached. */
static int test_get_link_ksettings(struct net_device *ndev,
				   struct ethtool_link_ksettings *ks)
{
	ks->base.speed = SPEED_10000;
	return 0;
}

static const struct ethtool_ops test_ethtool_ops = {
	.get_link_ksettings = test_get_link_ksettings,
};

static void qp_rts_reads_cached_link_speed(struct kunit *test)
{
	struct sroce_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	struct sroce_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	struct net_device *ndev = alloc_etherdev(0);

	KUNIT_ASSERT_NOT_NULL(test, sdev);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	ndev->ethtool_ops = &test_ethtool_ops;
	/* Present, so that ethtool would answer (10000) if it were asked. */
	netif_device_attach(ndev);
	sdev->ndev = ndev;
	qp->ibqp.device = &sdev->ibdev;
	qp->ibqp.qp_type = IB_QPT_RC;
	sroce_req_init(qp);

	sdev->link_mbps = SPEED_25000;
	sroce_req_start(qp);
	KUNIT_EXPECT_EQ(test, qp->req.cc.rp.line, 25000ULL * 1000 * 1000);

	/* Not reported (virtio): 1000 Mb/s. */
	sdev->link_mbps = 0;
	KUNIT_EXPECT_EQ(test, sroce_dev_link_mbps(sdev), (u32)SPEED_1000);
	sdev->link_mbps = (u32)SPEED_UNKNOWN;
	KUNIT_EXPECT_EQ(test, sroce_dev_link_mbps(sdev), (u32)SPEED_1000);
	sroce_req_start(qp);
	KUNIT_EXPECT_EQ(test, qp->req.cc.rp.line, 1000ULL * 1000 * 1000);

	sroce_req_cleanup(qp);
	free_netdev(ndev);
}

static struct kunit_case sroce_qp_cases[] = {
	KUNIT_CASE(qp_transition_table),
	KUNIT_CASE(qp_post_send_in_err_irqs_off),
	KUNIT_CASE(qp_post_recv_in_err_irqs_off),
	KUNIT_CASE(qp_post_send_in_err_bh_off),
	KUNIT_CASE(qp_rts_reads_cached_link_speed),
	KUNIT_CASE(qp_send_error_states),
	KUNIT_CASE(qp_send_error_after_recovery),
	KUNIT_CASE(qp_late_flush),
	KUNIT_CASE(qp_sq_slot_free_before_completion),
	KUNIT_CASE(qp_cq_overrun_event_once),
	KUNIT_CASE(qp_srq_last_wqe_once),
	{}
};

static struct kunit_suite sroce_qp_suite = {
	.name		= "sroce_qp",
	.test_cases	= sroce_qp_cases,
};

kunit_test_suites(&sroce_qp_suite);
