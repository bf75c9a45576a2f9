// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: creation with rxe-layout rings, the IBTA state machine
 * (modify/query), the QPN table the receive path looks QPs up in, and the
 * verbs that feed the send and receive queues.
 *
 * Lifetime: sdev->qps maps QPN -> the QP's anchor (sroce_anchor.h).
 * sroce_qp_get() looks up under RCU and takes a reference through it;
 * destroy removes the QPN and retires the anchor, waiting for the last
 * sroce_qp_put() (never for a grace period) before it stops the engines.
 *
 * Locking: modify_lock serialises modify_qp and destroy_qp (they sleep);
 * state_lock (irqsave) protects state and attr against each other and
 * against sroce_qp_error() from the engines; sq.lock and rq.lock (irqsave:
 * kernel ULPs post from any context) protect the rings. The post verbs
 * take no other lock: whatever needs the engines' _bh locks (a flush, the
 * requester) runs inline only when interrupts are on, and from a work
 * item otherwise.
 */
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "sroce_ah.h"
#include "sroce_anchor.h"
#include "sroce_compat.h"
#include "sroce_cq.h"
#include "sroce_dev.h"
#include "sroce_param.h"
#include "sroce_psn.h"
#include "sroce_qp.h"
#include "sroce_req.h"
#include "sroce_resp.h"
#include "sroce_ud.h"
#include "sroce_verbs.h"
#include "sroce_xmit.h"

/*
 * QPNs 0 and 1 are the SMI and GSI QPs; rdma_rxe starts at 16 too. The
 * last QPN, 0xFFFFFF, means multicast on the wire (IBTA 10.5.1.1): a QP
 * given it would receive nothing once the cyclic allocator wraps.
 */
#define SROCE_QPN_MIN		16
#define SROCE_QPN_MAX		(IB_MULTICAST_QPN - 1)

/* The modify_qp bits that change no attribute (a move between states). */
#define SROCE_QP_SQD_STATE_BITS	(IB_QP_STATE | IB_QP_CUR_STATE | \
				 IB_QP_EN_SQD_ASYNC_NOTIFY)

struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_anchor *anchor;
	struct sroce_qp *qp = NULL;

	rcu_read_lock();
	anchor = xa_load(&sdev->qps, qpn);
	if (anchor)
		qp = sroce_anchor_tryget(anchor);
	rcu_read_unlock();
	return qp;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	sroce_anchor_put(qp->anchor);
}

/*
 * May the engines' flushes run in this context? They take req.lock and
 * resp.lock with spin_lock_bh(); releasing those with interrupts off (a
 * ULP's spin_lock_irqsave() section) or in hard IRQ would be a bug. With
 * BH disabled the caller may be a completion handler, which the engines
 * call with req.lock or resp.lock held (a ULP posting to its QP in ERR
 * from there would take them again), or a softirq that holds another
 * QP's: defer there too, as sroce_req_kick() does.
 */
static bool sroce_qp_may_flush_here(void)
{
	return !irqs_disabled() && !in_interrupt();
}

static void sroce_qp_flush_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, flush_work);
	enum ib_qp_state state;

	/* The state as the flush finds it: a QP reset meanwhile is empty. */
	state = READ_ONCE(qp->state);
	if (test_and_clear_bit(SROCE_QP_FLUSH_SQ, &qp->flush_pending) &&
	    (state == IB_QPS_ERR || state == IB_QPS_SQE))
		sroce_req_flush(qp);
	if (test_and_clear_bit(SROCE_QP_FLUSH_RQ, &qp->flush_pending) &&
	    state == IB_QPS_ERR)
		sroce_resp_flush(qp);
}

/* At create_qp (and in KUnit): no flush pending. */
void sroce_qp_init_flush(struct sroce_qp *qp)
{
	qp->flush_pending = 0;
	INIT_WORK(&qp->flush_work, sroce_qp_flush_work);
}

/* Run @bit's flush here, or from flush_work where it cannot run. */
static void sroce_qp_flush(struct sroce_qp *qp, int bit)
{
	if (!sroce_qp_may_flush_here()) {
		set_bit(bit, &qp->flush_pending);
		/* Ordered after set_bit: a run that starts later sees it. */
		queue_work(system_wq, &qp->flush_work);
		return;
	}
	if (bit == SROCE_QP_FLUSH_SQ)
		sroce_req_flush(qp);
	else
		sroce_resp_flush(qp);
}

/*
 * modify_qp to RESET and destroy_qp: no deferred flush runs after this.
 * Called before the engines are cleaned up, so that no flush runs beside
 * that, and again after: an engine that moved the QP to ERR just before
 * the RESET may queue its flush after the first call (it then finds
 * RESET and does nothing, but must not find the QP freed).
 */
static void sroce_qp_cancel_flush(struct sroce_qp *qp)
{
	cancel_work_sync(&qp->flush_work);
	qp->flush_pending = 0;
}

/**
 * sroce_qp_error() - move a QP to ERR and flush its queues
 * @qp: the QP
 *
 * Context: any; does not sleep. With interrupts or BH off (the engines'
 * own contexts included) the flushes are left to flush_work. The caller
 * must not hold sq.lock, rq.lock, a CQ lock, or a lock that
 * sroce_req_flush()/sroce_resp_flush() take.
 */
void sroce_qp_error(struct sroce_qp *qp)
{
	unsigned long flags;
	bool flush;

	spin_lock_irqsave(&qp->state_lock, flags);
	/* RESET stays RESET: it has nothing to flush (and destroy uses it). */
	flush = qp->state != IB_QPS_ERR && qp->state != IB_QPS_RESET;
	if (flush) {
		WRITE_ONCE(qp->state, IB_QPS_ERR);
		qp->attr.qp_state = IB_QPS_ERR;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (flush) {
		sroce_qp_flush(qp, SROCE_QP_FLUSH_SQ);
		sroce_qp_flush(qp, SROCE_QP_FLUSH_RQ);
	}
}

bool sroce_qp_enter_sqe(struct sroce_qp *qp)
{
	unsigned long flags;
	bool sqe;

	if (qp->ibqp.qp_type == IB_QPT_RC)
		return false;
	spin_lock_irqsave(&qp->state_lock, flags);
	sqe = qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD;
	if (sqe) {
		WRITE_ONCE(qp->state, IB_QPS_SQE);
		qp->attr.qp_state = IB_QPS_SQE;
		qp->sq_draining = false;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return sqe;
}

void sroce_qp_send_error(struct sroce_qp *qp)
{
	/* IBTA 11.4.2.2: a CQ overrun is fatal to the QP, whatever its type. */
	if (qp->ibqp.qp_type == IB_QPT_RC ||
	    READ_ONCE(to_scq(qp->ibqp.send_cq)->overflowed)) {
		sroce_qp_error(qp);
		return;
	}
	/*
	 * The caller entered SQE before the error completion; if the QP
	 * is still there, the rest of the SQ completes as flushed. The RQ
	 * is left alone.
	 */
	if (READ_ONCE(qp->state) == IB_QPS_SQE)
		sroce_qp_flush(qp, SROCE_QP_FLUSH_SQ);
}

void sroce_qp_sqd_check(struct sroce_qp *qp)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_SQ_DRAINED,
	};
	bool drained, notify = false;
	unsigned long flags;
	u32 gen;

	spin_lock_irqsave(&qp->state_lock, flags);
	drained = qp->state == IB_QPS_SQD && qp->sq_draining;
	gen = qp->sqd_gen;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	/* In SQD nothing new starts: once idle, the SQ stays idle. */
	if (!drained || !sroce_req_sq_idle(qp))
		return;

	spin_lock_irqsave(&qp->state_lock, flags);
	drained = qp->state == IB_QPS_SQD && qp->sq_draining &&
		  qp->sqd_gen == gen;
	if (drained) {
		qp->sq_draining = false;
		notify = qp->sqd_notify;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);

	/* IBTA 11.6.3.1: the SQ Drained affiliated asynchronous event. */
	if (notify && qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/**
 * sroce_qp_transition_ok() - may modify_qp move a QP from @cur to @new?
 * @type: the QP type
 * @cur: its state now
 * @new: the state asked for (@cur when @mask has no IB_QP_STATE)
 * @mask: the attributes given
 *
 * IBTA vol 1 10.3.1 (figure 125, the QP state diagram) and 11.2.1.2:
 * ib_modify_qp_is_ok() has the table of transitions with their required
 * and optional attributes; on top of it, SQE is entered only by the QP
 * itself, when a send WQE of a UD, GSI or UC QP completes in error, never
 * by modify_qp; and an RC QP has no SQE (its send errors go to ERR).
 * Everything else the table allows is implemented: RTS <-> SQD, SQD ->
 * SQD, SQE -> RTS, any state -> RESET or ERR.
 *
 * Return: true if the transition is allowed.
 */
bool sroce_qp_transition_ok(enum ib_qp_type type, enum ib_qp_state cur,
			    enum ib_qp_state new, int mask)
{
	if (cur < IB_QPS_RESET || cur > IB_QPS_ERR ||
	    new < IB_QPS_RESET || new > IB_QPS_ERR)
		return false;
	if (new == IB_QPS_SQE && cur != IB_QPS_SQE)
		return false;
	if (type == IB_QPT_RC && (cur == IB_QPS_SQE || new == IB_QPS_SQE))
		return false;
	return ib_modify_qp_is_ok(cur, new, type, mask);
}

static int sroce_qp_check_cap(struct sroce_dev *sdev, struct ib_qp_cap *cap)
{
	if (cap->max_send_wr > sdev->attr.max_qp_wr ||
	    cap->max_recv_wr > sdev->attr.max_qp_wr ||
	    cap->max_send_sge > sdev->attr.max_send_sge ||
	    cap->max_recv_sge > sdev->attr.max_recv_sge ||
	    cap->max_inline_data > SROCE_MAX_INLINE_DATA)
		return -EINVAL;
	return 0;
}

/*
 * The SQ slot holds a struct rxe_send_wqe and then room for the SGEs or the
 * inline data, whichever is larger. The provider bounds what it writes by
 * the caps returned here, so both caps are rewritten to that room (as
 * rdma_rxe does): a slot can never be overrun by a conforming provider.
 */
static int sroce_qp_init_sq(struct sroce_qp *qp, struct sroce_dev *sdev,
			    struct ib_qp_init_attr *init)
{
	struct sroce_sq *sq = &qp->sq;
	u32 room = max_t(u32, init->cap.max_send_sge * sizeof(struct rxe_sge),
			 init->cap.max_inline_data);
	u32 depth = init->cap.max_send_wr;
	int err;

	err = sroce_queue_init(&sq->queue, sdev, &depth,
			       sizeof(struct rxe_send_wqe) + room,
			       SROCE_QUEUE_FROM_USER);
	if (err)
		return err;

	sq->max_wr = depth;
	sq->max_sge = room / sizeof(struct rxe_sge);
	sq->max_inline = room;
	sq->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	sq->shadow_elem_size = ALIGN(sizeof(struct sroce_swqe) + room,
				     __alignof__(struct sroce_swqe));
	/* Up to megabytes a QP, sized by the user: charged as the rings. */
	sq->shadow = kvcalloc(sq->queue.index_mask + 1, sq->shadow_elem_size,
			      GFP_KERNEL_ACCOUNT);
	if (!sq->shadow) {
		sroce_queue_cleanup(&sq->queue);
		return -ENOMEM;
	}
	spin_lock_init(&sq->lock);

	init->cap.max_send_wr = depth;
	init->cap.max_send_sge = sq->max_sge;
	init->cap.max_inline_data = sq->max_inline;
	return 0;
}

static int sroce_qp_init_rq(struct sroce_qp *qp, struct sroce_dev *sdev,
			    struct ib_qp_init_attr *init)
{
	struct sroce_rq *rq = &qp->rq;
	u32 depth = init->cap.max_recv_wr;
	int err;

	err = sroce_queue_init(&rq->queue, sdev, &depth,
			       sizeof(struct rxe_recv_wqe) +
			       init->cap.max_recv_sge * sizeof(struct rxe_sge),
			       SROCE_QUEUE_FROM_USER);
	if (err)
		return err;

	rq->max_wr = depth;
	rq->max_sge = init->cap.max_recv_sge;
	spin_lock_init(&rq->lock);
	init->cap.max_recv_wr = depth;
	return 0;
}

static void sroce_qp_free_queues(struct sroce_qp *qp)
{
	sroce_queue_cleanup(&qp->rq.queue);
	sroce_queue_cleanup(&qp->sq.queue);
	kvfree(qp->sq.shadow);
	qp->sq.shadow = NULL;
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct rxe_create_qp_resp resp = {};
	u32 qpn;
	int err;

	if (init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_UC &&
	    init->qp_type != IB_QPT_UD && init->qp_type != IB_QPT_GSI)
		return -EOPNOTSUPP;
	if (init->create_flags || init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	/* ib_mad gives QP1 a receive queue of its own. */
	if (init->srq && init->qp_type == IB_QPT_GSI)
		return -EOPNOTSUPP;
	/* With an SRQ the receive WQEs come from it: an empty RQ stays. */
	if (init->srq) {
		init->cap.max_recv_wr = 0;
		init->cap.max_recv_sge = 0;
	}
	/* The rxe provider sends no driver data and expects the response. */
	if (udata && (udata->inlen || udata->outlen < sizeof(resp)))
		return -EINVAL;
	err = sroce_qp_check_cap(sdev, &init->cap);
	if (err)
		return err;
	if (atomic_inc_return(&sdev->num_qps) > sdev->attr.max_qp) {
		err = -ENOSPC;
		goto err_count;
	}

	qp->anchor = sroce_anchor_new(qp);
	if (!qp->anchor) {
		err = -ENOMEM;
		goto err_count;
	}
	spin_lock_init(&qp->state_lock);
	seqcount_spinlock_init(&qp->av_seq, &qp->state_lock);
	mutex_init(&qp->modify_lock);
	sroce_qp_init_flush(qp);
	qp->user = !!udata;
	qp->state = IB_QPS_RESET;
	qp->attr.qp_state = IB_QPS_RESET;
	qp->attr.path_mtu = IB_MTU_256;
	qp->mtu = ib_mtu_enum_to_int(IB_MTU_256);

	err = sroce_qp_init_sq(qp, sdev, init);
	if (err)
		goto err_count;
	err = sroce_qp_init_rq(qp, sdev, init);
	if (err)
		goto err_sq;

	/*
	 * Reserve the QPN; lookups find nothing until the QP is complete.
	 * The GSI QP is QPN 1 on the wire, so it is 1 in the table too.
	 */
	qpn = SROCE_UD_GSI_QPN;
	if (init->qp_type == IB_QPT_GSI)
		err = xa_insert(&sdev->qps, qpn, NULL, GFP_KERNEL);
	else
		err = xa_alloc_cyclic(&sdev->qps, &qpn, NULL,
				      XA_LIMIT(SROCE_QPN_MIN, SROCE_QPN_MAX),
				      &sdev->next_qpn, GFP_KERNEL);
	if (err < 0)
		goto err_queues;
	ibqp->qp_num = qpn;
	qp->serial = atomic64_inc_return(&sdev->qp_serials);
	qp->tx_cpu = cpumask_local_spread(qpn, dev_to_node(&sdev->ndev->dev));

	if (udata) {
		struct sroce_ucontext *uctx =
			rdma_udata_to_drv_context(udata, struct sroce_ucontext,
						  ibuc);

		err = sroce_queue_map(&qp->rq.queue, &uctx->ibuc, &resp.rq_mi);
		if (err)
			goto err_qpn;
		err = sroce_queue_map(&qp->sq.queue, &uctx->ibuc, &resp.sq_mi);
		if (err)
			goto err_qpn;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_qpn;
	}

	err = sroce_xmit_qp_init(qp);
	if (err)
		goto err_qpn;
	sroce_req_init(qp);
	err = sroce_resp_init(qp);
	if (err) {
		sroce_req_cleanup(qp);
		sroce_xmit_qp_cleanup(qp);
		goto err_qpn;
	}
	xa_store(&sdev->qps, qpn, qp->anchor, GFP_KERNEL);
	return 0;

err_qpn:
	xa_erase(&sdev->qps, qpn);
err_queues:
	sroce_qp_free_queues(qp);
	goto err_count;
err_sq:
	sroce_queue_cleanup(&qp->sq.queue);
	kvfree(qp->sq.shadow);
err_count:
	kfree(qp->anchor);
	atomic_dec(&sdev->num_qps);
	return err;
}

/*
 * Values ib_modify_qp_is_ok() does not look at. IBTA 11.2.1.2 (Modify QP)
 * lists each attribute's range; a value outside it fails the whole modify
 * with nothing changed.
 */
static int sroce_qp_check_attr(struct sroce_dev *sdev,
			       const struct ib_qp_attr *attr, int mask)
{
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= SROCE_MAX_PKEYS)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > sdev->attr.max_qp_init_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > sdev->attr.max_qp_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MIG_STATE) &&
	    attr->path_mig_state != IB_MIG_MIGRATED)
		return -EINVAL;
	return 0;
}

/* Copy what @mask names into qp->attr. Caller holds state_lock. */
static void sroce_qp_apply(struct sroce_qp *qp, const struct ib_qp_attr *attr,
			   int mask, const struct sroce_av *av)
{
	struct ib_qp_attr *a = &qp->attr;

	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		a->ah_attr = attr->ah_attr;
		/* The core's reference on it ends with this call. */
		a->ah_attr.grh.sgid_attr = NULL;
	}
	if (mask & IB_QP_PATH_MTU) {
		a->path_mtu = attr->path_mtu;
		qp->mtu = ib_mtu_enum_to_int(attr->path_mtu);
	}
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num & SROCE_QPN_MASK;

	if (!(mask & (IB_QP_AV | IB_QP_DEST_QPN)))
		return;
	/* One write section: a packet never sees the new path's old port. */
	write_seqcount_begin(&qp->av_seq);
	if (mask & IB_QP_AV)
		qp->av = *av;
	/* One UDP source port per flow keeps it in order across ECMP paths. */
	if (qp->av.family)
		qp->av.sport = rdma_get_udp_sport(qp->av.flow_label,
						  qp->ibqp.qp_num,
						  a->dest_qp_num);
	write_seqcount_end(&qp->av_seq);
}

/*
 * Drop every queued WQE without a completion (IBTA 10.3.1: a QP in Reset
 * has empty work queues): the kernel's consumer index jumps to the
 * producer's, so userspace continues where it is.
 */
static void sroce_qp_empty_queues(struct sroce_qp *qp)
{
	struct sroce_queue *q;
	unsigned long flags;
	u32 prod;

	/*
	 * Acquire and release as in sroce_queue.c: userspace sees the slots
	 * free only after we stopped reading them. The SQ's indices under
	 * req.lock too, which a flush holds while it walks them.
	 */
	spin_lock_bh(&qp->req.lock);
	spin_lock_irqsave(&qp->sq.lock, flags);
	q = &qp->sq.queue;
	/* Acquire: pairs with the producer's release. */
	prod = smp_load_acquire(&q->buf->producer_index) & q->index_mask;
	q->index = prod;
	qp->sq.head = prod;
	/* Release: see above. */
	smp_store_release(&q->buf->consumer_index, prod);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	spin_unlock_bh(&qp->req.lock);

	spin_lock_irqsave(&qp->rq.lock, flags);
	q = &qp->rq.queue;
	/* Acquire: see above. */
	prod = smp_load_acquire(&q->buf->producer_index) & q->index_mask;
	q->index = prod;
	/* Release: see above. */
	smp_store_release(&q->buf->consumer_index, prod);
	spin_unlock_irqrestore(&qp->rq.lock, flags);
}

int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state cur, new;
	struct sroce_av av = {};
	unsigned long flags;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	/* No alternate path: APM does not exist on RoCE ports. */
	if (mask & IB_QP_ALT_PATH)
		return -EOPNOTSUPP;

	mutex_lock(&qp->modify_lock);
	cur = READ_ONCE(qp->state);
	/* IBTA 11.2.1.2: a current state that does not match fails. */
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur) {
		err = -EINVAL;
		goto out;
	}
	new = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!sroce_qp_transition_ok(ibqp->qp_type, cur, new, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = sroce_qp_check_attr(sdev, attr, mask);
	if (err)
		goto out;
	if (mask & IB_QP_AV) {
		err = sroce_av_from_attr(&av, &attr->ah_attr);
		if (err)
			goto out;
	}

	/*
	 * Leaving SQE: flushes of WQEs posted in SQE that were left to
	 * flush_work run now, while the QP is still in SQE.
	 */
	if (cur == IB_QPS_SQE && new != cur)
		flush_work(&qp->flush_work);

	/*
	 * To RTR: the responder's reset goes first, so that the first
	 * packet RTR lets in (on another CPU at once) runs after it.
	 */
	if (new == IB_QPS_RTR && cur != IB_QPS_RTR)
		sroce_resp_start(qp, mask & IB_QP_RQ_PSN ? attr->rq_psn :
						       qp->attr.rq_psn);

	spin_lock_irqsave(&qp->state_lock, flags);
	/* The engines may have moved it to ERR or SQE since we looked. */
	if (qp->state != cur) {
		spin_unlock_irqrestore(&qp->state_lock, flags);
		err = -EINVAL;
		goto out;
	}
	/*
	 * IBTA 10.3.1: SQD lets attributes change once the SQ has drained.
	 * While it drains the requester is still sending the WQEs it
	 * started, with the path and limits it started them with.
	 */
	if (cur == IB_QPS_SQD && new == IB_QPS_SQD && qp->sq_draining &&
	    (mask & ~SROCE_QP_SQD_STATE_BITS)) {
		spin_unlock_irqrestore(&qp->state_lock, flags);
		err = -EBUSY;
		goto out;
	}
	sroce_qp_apply(qp, attr, mask, &av);
	qp->attr.qp_state = new;
	WRITE_ONCE(qp->state, new);
	if (new == IB_QPS_SQD && cur != IB_QPS_SQD) {
		qp->sq_draining = true;
		qp->sqd_notify = (mask & IB_QP_EN_SQD_ASYNC_NOTIFY) &&
				 attr->en_sqd_async_notify;
		qp->sqd_gen++;
	} else if (new != IB_QPS_SQD) {
		qp->sq_draining = false;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (mask & IB_QP_AV)
		sroce_xmit_qp_reset(qp);
	if (cur == IB_QPS_SQD &&
	    (mask & (IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
		     IB_QP_MAX_QP_RD_ATOMIC)))
		sroce_req_update(qp);

	if (new == cur)
		goto out;

	switch (new) {
	case IB_QPS_RESET:
		sroce_qp_cancel_flush(qp);
		sroce_req_cleanup(qp);
		sroce_resp_stop(qp);
		sroce_qp_cancel_flush(qp);
		sroce_qp_empty_queues(qp);
		sroce_req_init(qp);
		err = sroce_resp_init(qp);
		break;
	case IB_QPS_RTS:
		/*
		 * From RTR: start at attr.sq_psn. From SQE: the flushed
		 * requester resumes where it stopped. From SQD: it never
		 * stopped, it may start new WQEs again. Then take the WQEs
		 * posted meanwhile (the requester fetches them).
		 */
		if (cur == IB_QPS_RTR)
			sroce_req_start(qp);
		else if (cur == IB_QPS_SQE)
			sroce_req_resume(qp);
		sroce_req_kick(qp);
		break;
	case IB_QPS_SQD:
		/* The requester finishes what it started and reports it. */
		sroce_req_kick(qp);
		break;
	case IB_QPS_ERR:
		sroce_req_flush(qp);
		sroce_resp_flush(qp);
		break;
	default:
		break;
	}
out:
	mutex_unlock(&qp->modify_lock);
	return err;
}

int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	/* IBTA 11.2.1.3: SQD and still draining, or drained. */
	attr->sq_draining = qp->state == IB_QPS_SQD && qp->sq_draining;
	attr->en_sqd_async_notify = qp->sqd_notify;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	attr->cur_qp_state = attr->qp_state;
	attr->cap.max_send_wr = qp->sq.max_wr;
	attr->cap.max_recv_wr = qp->rq.max_wr;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_recv_sge = qp->rq.max_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;

	memset(init, 0, sizeof(*init));
	/* The consumer's, not a core wrapper that would then call itself. */
	init->event_handler = sroce_qp_event_handler(ibqp);
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq.sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->srq = ibqp->srq;
	init->port_num = 1;
	return 0;
}

int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;

	mutex_lock(&qp->modify_lock);
	/* RESET: the engines start nothing new and post no completions. */
	spin_lock_irqsave(&qp->state_lock, flags);
	WRITE_ONCE(qp->state, IB_QPS_RESET);
	qp->attr.qp_state = IB_QPS_RESET;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	xa_erase(&sdev->qps, ibqp->qp_num);
	sroce_mcast_qp_destroy(qp);
	sroce_anchor_retire(qp->anchor);

	sroce_qp_cancel_flush(qp);
	sroce_req_cleanup(qp);
	sroce_resp_cleanup(qp);
	/* See sroce_qp_cancel_flush(): the engines are stopped now. */
	sroce_qp_cancel_flush(qp);
	sroce_xmit_qp_cleanup(qp);
	sroce_qp_free_queues(qp);
	mutex_unlock(&qp->modify_lock);
	mutex_destroy(&qp->modify_lock);
	atomic_dec(&sdev->num_qps);
	return 0;
}

/* Write one kernel WR into the SQ ring as the provider would. */
static int sroce_post_one_send(struct sroce_qp *qp, const struct ib_send_wr *wr)
{
	struct sroce_queue *q = &qp->sq.queue;
	u32 prod = q->buf->producer_index & q->index_mask;
	struct rxe_send_wqe *wqe;
	u64 length = 0;
	int i;

	if (((prod + 1) & q->index_mask) == q->index)
		return -ENOMEM;
	if (wr->opcode == IB_WR_REG_MR)
		return sroce_mw_post_reg(qp, reg_wr(wr), prod);
	/*
	 * ATOMIC WRITE is for user QPs: no kernel ULP posts it, and 6.1 has
	 * no kernel API for it.
	 */
	if (!sroce_wqe_opcode_ok(qp->ibqp.qp_type, wr->opcode) ||
	    wr->opcode == SROCE_WR_ATOMIC_WRITE ||
	    wr->num_sge < 0 || wr->num_sge > qp->sq.max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		length += wr->sg_list[i].length;
	if ((wr->send_flags & IB_SEND_INLINE) && length > qp->sq.max_inline)
		return -EINVAL;

	wqe = (void *)(q->buf->data + ((size_t)prod << q->log2_elem_size));
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_SEND_WITH_IMM ||
	    wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		wqe->wr.ex.imm_data = wr->ex.imm_data;
	if (wr->opcode == IB_WR_SEND_WITH_INV ||
	    wr->opcode == IB_WR_LOCAL_INV)
		wqe->wr.ex.invalidate_rkey = wr->ex.invalidate_rkey;

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
		wqe->iova = rdma_wr(wr)->remote_addr;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.wr.atomic.rkey = atomic_wr(wr)->rkey;
		wqe->iova = atomic_wr(wr)->remote_addr;
		break;
	default:
		if (sroce_ud_qp(qp))
			sroce_ud_wr_to_wqe(wqe, wr);
		break;
	}

	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *p = wqe->dma.inline_data;

		/* Kernel SGE addresses are kernel virtual addresses here. */
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	} else {
		memcpy(wqe->dma.sge, wr->sg_list,
		       wr->num_sge * sizeof(struct ib_sge));
	}
	wqe->dma.num_sge = wr->num_sge;
	wqe->dma.length = length;

	/* Release: the engines read the WQE only after seeing the index. */
	smp_store_release(&q->buf->producer_index, (prod + 1) & q->index_mask);
	return 0;
}

int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	int err = 0;

	/* IBTA 10.8.2: posting to a QP in Reset is an immediate error. */
	if (state == IB_QPS_RESET || (qp->user && wr)) {
		*bad_wr = wr;
		return -EINVAL;
	}

	/*
	 * User QPs: the doorbell, the WQEs are already in the ring. The
	 * requester copies and validates them (sroce_sq_fetch()) in bounded
	 * batches as it goes, not here with interrupts off.
	 */
	if (wr) {
		spin_lock_irqsave(&qp->sq.lock, flags);
		for (; wr; wr = wr->next) {
			err = sroce_post_one_send(qp, wr);
			if (err) {
				*bad_wr = wr;
				break;
			}
		}
		spin_unlock_irqrestore(&qp->sq.lock, flags);
	}

	/*
	 * INIT, RTR and SQD queue the WQEs; the move to RTS starts them.
	 * Posted in SQE or ERR, a WR completes as flushed (IBTA 10.8.3.1).
	 * Kernel ULPs post from any context: with interrupts off the flush
	 * and the requester are left to work items.
	 *
	 * The state is read again now that the WQEs are in the ring: a
	 * modify_qp publishes its state before it looks at the ring, so
	 * either it sees the WQEs or we see its state (the ring lock orders
	 * kernel posts; the barrier a doorbell's ring writes, pairing with
	 * the one in sroce_req_run() for RTS and in sroce_req_flush() for
	 * ERR and SQE).
	 */
	smp_mb();
	state = READ_ONCE(qp->state);
	if (state == IB_QPS_ERR || state == IB_QPS_SQE)
		sroce_qp_flush(qp, SROCE_QP_FLUSH_SQ);
	else if (state == IB_QPS_RTS)
		sroce_req_kick(qp);
	return err;
}

/* Write one kernel WR into a receive ring (RQ or SRQ). Caller holds rq->lock. */
int sroce_rq_post_one(struct sroce_rq *rq, const struct ib_recv_wr *wr)
{
	struct sroce_queue *q = &rq->queue;
	u32 prod = q->buf->producer_index & q->index_mask;
	struct rxe_recv_wqe *wqe;
	u64 length = 0;
	int i;

	if (((prod + 1) & q->index_mask) == q->index)
		return -ENOMEM;
	if (wr->num_sge < 0 || wr->num_sge > rq->max_sge)
		return -EINVAL;

	wqe = (void *)(q->buf->data + ((size_t)prod << q->log2_elem_size));
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	memcpy(wqe->dma.sge, wr->sg_list, wr->num_sge * sizeof(struct ib_sge));
	for (i = 0; i < wr->num_sge; i++)
		length += wr->sg_list[i].length;
	wqe->dma.num_sge = wr->num_sge;
	wqe->dma.length = length;

	/* Release: the engines read the WQE only after seeing the index. */
	smp_store_release(&q->buf->producer_index, (prod + 1) & q->index_mask);
	return 0;
}

int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	int err = 0;

	/*
	 * User QPs post receives in userspace; Reset takes none (C10-97.2.1);
	 * a QP with an SRQ has no receive queue of its own.
	 */
	if (qp->user || state == IB_QPS_RESET || ibqp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->rq.lock, flags);
	for (; wr; wr = wr->next) {
		err = sroce_rq_post_one(&qp->rq, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);

	/*
	 * IBTA 10.8.3.1: receives posted in Error complete as flushed (from
	 * flush_work when interrupts are off here). The state is read again
	 * after the ring lock: a move to ERR published before its flush took
	 * that lock is seen here, or the flush saw these WQEs.
	 */
	state = READ_ONCE(qp->state);
	if (state == IB_QPS_ERR)
		sroce_qp_flush(qp, SROCE_QP_FLUSH_RQ);
	return err;
}
