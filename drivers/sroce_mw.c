// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows and the key-managing local operations.
 *
 * A window is a remote-access grant onto part of an MR that allows
 * IB_ACCESS_MW_BIND (IBTA 10.6.7). Type 1 windows are valid from
 * allocation to dealloc and are re-bound at will (ibv_bind_mw, which the
 * rxe provider turns into an IBV_WR_BIND_MW ring WQE); type 2B windows are
 * bound by an IBV_WR_BIND_MW WQE to the posting QP, are free until then,
 * and are freed again by local or remote invalidation.
 *
 * Windows take their indices from sdev->mrs, the MR key table, as tagged
 * entries (pointing at the window's anchor, sroce_anchor.h, as the core
 * frees the window itself), so one R_Key lookup finds either. A bound window counts itself
 * in its MR's num_mw, which keeps the MR from being deregistered or
 * invalidated under it. Lock order: mw->lock, then mr->lock.
 *
 * Binds, local invalidation and fast registration are executed by the
 * requester in send-queue order (sroce_req.c); remote invalidation by the
 * responder in the receive softirq. Both may race R_Key lookups by the
 * responder: the state they change is read under the object's lock.
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "sroce_anchor.h"
#include "sroce_dev.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_qp.h"

#define SROCE_MW_ACCESS	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_ATOMIC)
/*
 * What a bind may ask for: the remote rights, zero-based addressing (type
 * 2 only), and local write, which applications (and rdma-core's tests)
 * pass as they do for an MR. IBTA gives a window remote rights only, so
 * local write is accepted and ignored, as rdma_rxe accepts it.
 */
#define SROCE_MW_BIND_ACCESS	(SROCE_MW_ACCESS | IB_ZERO_BASED | \
				 IB_ACCESS_LOCAL_WRITE)

/*
 * The entry under @key's index with a reference: an MR (*@mw NULL) or a
 * window (*@mr NULL). Returns false if the index names nothing alive.
 */
static bool sroce_key_find(struct sroce_dev *sdev, u32 key,
			   struct sroce_mr **mr, struct sroce_mw **mw)
{
	bool ok = false;
	void *entry;

	*mr = NULL;
	*mw = NULL;
	rcu_read_lock();
	entry = xa_load(&sdev->mrs, key >> 8);
	if (entry && xa_pointer_tag(entry) == SROCE_MR_TAG_MW) {
		*mw = sroce_anchor_tryget(xa_untag_pointer(entry));
		ok = *mw;
	} else if (entry) {
		*mr = entry;
		ok = sroce_mr_tryget(*mr);
	}
	rcu_read_unlock();
	if (!ok) {
		*mr = NULL;
		*mw = NULL;
	}
	return ok;
}

static void sroce_mw_put(struct sroce_mw *mw)
{
	sroce_anchor_put(mw->anchor);
}

int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	spin_lock_init(&mw->lock);
	mw->anchor = sroce_anchor_new(mw);
	if (!mw->anchor)
		return -ENOMEM;

	err = sroce_mr_index_alloc(sdev, &mw->index);
	if (err) {
		kfree(mw->anchor);
		return err;
	}
	mw->rkey = (mw->index << 8) | (get_random_u32() & 0xff);
	mw->valid = ibmw->type == IB_MW_TYPE_1;
	ibmw->rkey = mw->rkey;
	sroce_mr_index_publish(sdev, mw->index,
			       xa_tag_pointer(mw->anchor, SROCE_MR_TAG_MW));
	return 0;
}

/* Drop the window's hold on its MR. Caller holds mw->lock. */
static void sroce_mw_unbind(struct sroce_mw *mw)
{
	struct sroce_mr *mr = mw->mr;

	if (!mr)
		return;
	spin_lock_bh(&mr->lock);
	mr->num_mw--;
	spin_unlock_bh(&mr->lock);
	mw->mr = NULL;
	mw->length = 0;
}

int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);

	sroce_mr_index_free(sdev, mw->index);
	sroce_anchor_retire(mw->anchor);

	spin_lock_bh(&mw->lock);
	sroce_mw_unbind(mw);
	mw->valid = false;
	spin_unlock_bh(&mw->lock);
	return 0;
}

enum ib_wc_status sroce_mw_bind_check(enum ib_mw_type type, bool valid,
				      struct ib_pd *mw_pd, struct ib_pd *qp_pd,
				      const struct sroce_mw_bind *b,
				      u32 cur_rkey, bool have_mr,
				      struct ib_pd *mr_pd, int mr_access,
				      u64 mr_iova, u64 mr_len)
{
	/* The WQE names the window by its current key. */
	if (b->mw_rkey != cur_rkey)
		return IB_WC_MW_BIND_ERR;
	/* Only the key tag is the consumer's (IBTA 10.6.7.2.3). */
	if ((b->rkey >> 8) != (cur_rkey >> 8))
		return IB_WC_MW_BIND_ERR;
	if (b->access & ~SROCE_MW_BIND_ACCESS)
		return IB_WC_MW_BIND_ERR;
	/* C10-72 and its type 1 counterpart: one PD for QP and window. */
	if (mw_pd != qp_pd)
		return IB_WC_MW_BIND_ERR;
	if (type == IB_MW_TYPE_1) {
		/* o10-36.2.2: a type 1 window is never zero-based. */
		if (!valid || (b->access & IB_ZERO_BASED))
			return IB_WC_MW_BIND_ERR;
		/* A zero-length bind leaves a window that grants nothing. */
		if (!b->length)
			return IB_WC_SUCCESS;
	} else {
		/* o10-37.2.30: only a free type 2 window can be bound. */
		if (valid || !b->length)
			return IB_WC_MW_BIND_ERR;
	}
	if (!have_mr || mr_pd != qp_pd)
		return IB_WC_MW_BIND_ERR;
	/* C10-73: the region must allow windows. */
	if (!(mr_access & IB_ACCESS_MW_BIND))
		return IB_WC_MW_BIND_ERR;
	/* C10-74: no remote write or atomic without local write. */
	if ((b->access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr_access & IB_ACCESS_LOCAL_WRITE))
		return IB_WC_MW_BIND_ERR;
	/* C10-75: the window lies inside the region. */
	if (!sroce_mr_check_range(mr_iova, mr_len, b->addr, b->length))
		return IB_WC_MW_BIND_ERR;
	return IB_WC_SUCCESS;
}

/*
 * The checks of a bind to @mr, and taking the region (num_mw) if they
 * pass, under one hold of its lock: a registration in between cannot
 * change what was checked. The new region is taken before the old one
 * is let go. Caller holds mw->lock and mr->lock.
 */
static enum ib_wc_status sroce_mw_bind_take(struct sroce_qp *qp,
					    struct sroce_mw *mw,
					    struct sroce_mr *mr,
					    const struct sroce_mw_bind *b)
{
	bool have_mr = mr->valid && !mr->dying && mr->lkey == b->mr_lkey;
	enum ib_wc_status status;

	status = sroce_mw_bind_check(mw->ibmw.type, mw->valid, mw->ibmw.pd,
				     qp->ibqp.pd, b, mw->rkey, have_mr,
				     mr->ibmr.pd, mr->access, mr->iova,
				     mr->length);
	if (status == IB_WC_SUCCESS)
		mr->num_mw++;
	return status;
}

static enum ib_wc_status sroce_mw_bind(struct sroce_qp *qp,
				       const struct sroce_mw_bind *b)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_mr *mr = NULL, *not_mw;
	struct sroce_mw *mw, *not_mr;
	enum ib_wc_status status;

	if (!sroce_key_find(sdev, b->mw_rkey, &not_mw, &mw))
		return IB_WC_MW_BIND_ERR;
	if (!mw) {
		sroce_mr_put(not_mw);
		return IB_WC_MW_BIND_ERR;
	}
	if (b->length && sroce_key_find(sdev, b->mr_lkey, &mr, &not_mr) &&
	    not_mr)
		sroce_mw_put(not_mr);

	spin_lock_bh(&mw->lock);
	if (mr) {
		spin_lock_bh(&mr->lock);
		status = sroce_mw_bind_take(qp, mw, mr, b);
		spin_unlock_bh(&mr->lock);
	} else {
		status = sroce_mw_bind_check(mw->ibmw.type, mw->valid,
					     mw->ibmw.pd, qp->ibqp.pd, b,
					     mw->rkey, false, NULL, 0, 0, 0);
	}
	if (status == IB_WC_SUCCESS) {
		sroce_mw_unbind(mw);
		if (b->length) {
			mw->mr = mr;
			mw->addr = b->addr;
			mw->length = b->length;
		}
		mw->access = b->access & (SROCE_MW_ACCESS | IB_ZERO_BASED);
		mw->qp_serial = qp->serial;
		mw->rkey = (mw->rkey & ~0xffU) | (b->rkey & 0xff);
		mw->valid = true;
	}
	spin_unlock_bh(&mw->lock);

	if (mr)
		sroce_mr_put(mr);
	sroce_mw_put(mw);
	return status;
}

int sroce_invalidate_key(struct sroce_qp *qp, u32 key, bool remote)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_mr *mr;
	struct sroce_mw *mw;
	int err = -EINVAL;

	if (!sroce_key_find(sdev, key, &mr, &mw))
		return -EINVAL;
	if (mr) {
		err = sroce_mr_invalidate(mr, qp->ibqp.pd, key, remote);
		sroce_mr_put(mr);
		return err;
	}

	spin_lock_bh(&mw->lock);
	/*
	 * Type 1 windows cannot be invalidated (IBTA 10.6.7.2.5); a type 2B
	 * window remotely only through the QP it is bound to.
	 */
	if (mw->ibmw.type == IB_MW_TYPE_2 && mw->valid && mw->rkey == key &&
	    mw->ibmw.pd == qp->ibqp.pd &&
	    (!remote || mw->qp_serial == qp->serial)) {
		sroce_mw_unbind(mw);
		mw->valid = false;
		err = 0;
	}
	spin_unlock_bh(&mw->lock);
	sroce_mw_put(mw);
	return err;
}

int sroce_rkey_access(struct sroce_qp *qp, u32 rkey, int access, u64 va,
		      struct sroce_mr_op *op)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_mr *mr;
	struct sroce_mw *mw;
	int err = -EACCES;

	if (!sroce_key_find(sdev, rkey, &mr, &mw))
		return -EACCES;
	if (mr) {
		err = sroce_mr_access(mr, qp->ibqp.pd, rkey, true, access, va,
				      op);
		sroce_mr_put(mr);
		return err;
	}

	/*
	 * A window: checked and used under mw->lock, so that an invalidation,
	 * a new bind or dealloc comes wholly before or after this access. A
	 * bound window pins its region (num_mw): it can be neither
	 * deregistered nor invalidated and re-registered meanwhile.
	 */
	spin_lock_bh(&mw->lock);
	if (mw->valid && mw->mr && mw->rkey == rkey &&
	    mw->ibmw.pd == qp->ibqp.pd &&
	    (mw->ibmw.type == IB_MW_TYPE_1 || mw->qp_serial == qp->serial) &&
	    sroce_mr_check_access(mw->access, access)) {
		/*
		 * A zero-based window is addressed from 0: [0, length) is
		 * [addr, addr + length) of the region, which the bind
		 * checked lies inside it.
		 */
		if (!(mw->access & IB_ZERO_BASED)) {
			if (sroce_mr_check_range(mw->addr, mw->length, va,
						 op->len))
				err = sroce_mr_run(mw->mr, va, op);
		} else if (sroce_mr_check_range(0, mw->length, va, op->len)) {
			err = sroce_mr_run(mw->mr, mw->addr + va, op);
		}
	}
	spin_unlock_bh(&mw->lock);
	sroce_mw_put(mw);
	return err;
}

int sroce_mw_post_reg(struct sroce_qp *qp, const struct ib_reg_wr *wr,
		      u32 prod)
{
	struct sroce_queue *q = &qp->sq.queue;
	struct rxe_send_wqe *wqe;

	if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC)
		return -EINVAL;
	wqe = (void *)(q->buf->data + ((size_t)prod << q->log2_elem_size));
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr.wr_id;
	wqe->wr.opcode = IB_WR_REG_MR;
	wqe->wr.send_flags = wr->wr.send_flags;
	wqe->wr.wr.reg.mr = wr->mr;
	wqe->wr.wr.reg.key = wr->key;
	wqe->wr.wr.reg.access = wr->access;
	/* Release: the engines read the WQE only after seeing the index. */
	smp_store_release(&q->buf->producer_index, (prod + 1) & q->index_mask);
	return 0;
}

enum ib_wc_status sroce_mw_local_op(struct sroce_qp *qp,
				    struct sroce_swqe *wqe)
{
	switch (wqe->opcode) {
	case IB_WR_REG_MR:
		if (wqe->reg.mr->device != qp->ibqp.device)
			return IB_WC_LOC_QP_OP_ERR;
		return sroce_mr_reg_fast(to_smr(wqe->reg.mr), qp->ibqp.pd,
					 wqe->reg.key, wqe->reg.access);
	case IB_WR_LOCAL_INV:
		return sroce_invalidate_key(qp, wqe->invalidate_rkey, false) ?
		       IB_WC_LOC_QP_OP_ERR : IB_WC_SUCCESS;
	case IB_WR_BIND_MW:
		return sroce_mw_bind(qp, &wqe->bind);
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}
}
