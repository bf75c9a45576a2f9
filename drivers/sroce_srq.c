// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues: create, modify (limit arming, max_wr resize
 * through the rxe ABI's user pointer), query, destroy, kernel
 * post_srq_recv, and the fetch the responders of attached QPs take their
 * receive WQEs with.
 *
 * Unlike a QP's own RQ, whose responder peeks at its head WQE and retires
 * it at completion, an SRQ's WQE is copied and consumed in one step under
 * the SRQ lock: several responders take from the ring concurrently and
 * each WQE must go to exactly one of them (IBTA vol 1 10.2.9). The kernel
 * copy is then the QP's own until it completes.
 */
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "sroce_dev.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_srq.h"
#include "sroce_verbs.h"

/* Only XRC needs the SRQ number; it is unique per module load. */
static atomic_t sroce_srq_next_num = ATOMIC_INIT(0);

/**
 * sroce_srq_limit_hit() - does taking a WQE fire the limit event?
 * @limit: the armed limit, 0 when disarmed
 * @count: WQEs left in the SRQ after the one just taken
 *
 * IBTA vol 1 10.2.9: the event fires when the number of WQEs drops below
 * the armed limit; the SRQ is then disarmed until the next modify with
 * IB_SRQ_LIMIT.
 */
bool sroce_srq_limit_hit(u32 limit, u32 count)
{
	return limit && count < limit;
}

/**
 * sroce_srq_copy_ring() - move the posted WQEs of @src to the front of @dst
 * @dst: a fresh, empty ring with the same element size
 * @src: the ring being replaced
 *
 * The WQEs not yet consumed keep their order; @dst's producer index is
 * published after them and its consumer index is 0.
 *
 * Return: the number of WQEs moved, or -ENOSPC when @dst cannot hold them.
 */
int sroce_srq_copy_ring(struct sroce_queue *dst, const struct sroce_queue *src)
{
	u32 n = sroce_queue_count(src);
	size_t elem = min_t(size_t, 1UL << src->log2_elem_size,
			    1UL << dst->log2_elem_size);
	u32 i;

	if (n > dst->index_mask)
		return -ENOSPC;
	for (i = 0; i < n; i++)
		memcpy(dst->buf->data + ((size_t)i << dst->log2_elem_size),
		       src->buf->data +
		       ((size_t)((src->index + i) & src->index_mask) <<
			src->log2_elem_size), elem);
	dst->index = 0;
	dst->buf->consumer_index = 0;
	/* Release: the slots are written before the index says so. */
	smp_store_release(&dst->buf->producer_index, n);
	return n;
}

static u32 sroce_srq_elem_size(u32 max_sge)
{
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge);
}

static struct ib_ucontext *sroce_srq_uctx(struct ib_udata *udata)
{
	return &rdma_udata_to_drv_context(udata, struct sroce_ucontext,
					  ibuc)->ibuc;
}

static void sroce_srq_event(struct sroce_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device		= srq->ibsrq.device,
		.element.srq	= &srq->ibsrq,
		.event		= type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

int sroce_srq_fetch_len(struct sroce_srq *srq, struct sroce_rwqe *wqe,
			u32 len)
{
	struct sroce_queue *q;
	unsigned long flags;
	bool limit = false;
	int err;

	spin_lock_irqsave(&srq->rq.lock, flags);
	q = &srq->rq.queue;
	if (!sroce_queue_count(q)) {
		spin_unlock_irqrestore(&srq->rq.lock, flags);
		return -ENOENT;
	}
	err = sroce_wqe_parse_recv(wqe, sroce_queue_consumer_slot(q),
				   srq->rq.max_sge);
	if (!err && wqe->length < len) {
		spin_unlock_irqrestore(&srq->rq.lock, flags);
		return -EMSGSIZE;
	}
	sroce_queue_advance_consumer(q);
	if (sroce_srq_limit_hit(srq->limit, sroce_queue_count(q))) {
		srq->limit = 0;
		limit = true;
	}
	spin_unlock_irqrestore(&srq->rq.lock, flags);

	if (limit)
		sroce_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return err;
}

int sroce_srq_fetch(struct sroce_srq *srq, struct sroce_rwqe *wqe)
{
	return sroce_srq_fetch_len(srq, wqe, 0);
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	struct rxe_create_srq_resp resp = {};
	u32 depth = attr->max_wr;
	int err;

	/* XRC and tag matching are not supported; only basic SRQs. */
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > sdev->attr.max_srq_wr ||
	    attr->max_sge > sdev->attr.max_srq_sge)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_srqs) > sdev->attr.max_srq) {
		err = -ENOSPC;
		goto err_count;
	}

	err = sroce_queue_init(&srq->rq.queue, sdev, &depth,
			       sroce_srq_elem_size(attr->max_sge),
			       SROCE_QUEUE_FROM_USER);
	if (err)
		goto err_count;
	spin_lock_init(&srq->rq.lock);
	srq->rq.max_wr = depth;
	srq->rq.max_sge = attr->max_sge;
	/* ibv_create_srq(3): srq_limit is ignored; modify_srq arms it. */
	srq->limit = 0;
	srq->srq_num = atomic_inc_return(&sroce_srq_next_num);
	srq->user = !!udata;

	if (udata) {
		err = sroce_queue_map(&srq->rq.queue, sroce_srq_uctx(udata),
				      &resp.mi);
		if (err)
			goto err_queue;
		resp.srq_num = srq->srq_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_queue;
	}

	attr->max_wr = depth;
	attr->srq_limit = 0;
	return 0;

err_queue:
	sroce_queue_cleanup(&srq->rq.queue);
err_count:
	atomic_dec(&sdev->num_srqs);
	return err;
}

/*
 * IB_SRQ_MAX_WR: a new ring takes the place of the old one with the
 * posted WQEs moved over (IBTA vol 1 11.2.3: a resize keeps them). For a
 * user SRQ the rxe provider expects the new ring's mmap info at the user
 * address in its command, not in the response (the ABI's quirk), and
 * remaps; it holds its own SRQ lock meanwhile, so nothing is posted to
 * the old ring while we copy it.
 */
static int sroce_srq_resize(struct sroce_srq *srq, u32 *max_wr,
			    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(srq->ibsrq.device);
	struct rxe_modify_srq_cmd cmd = {};
	struct sroce_queue q, old;
	struct mminfo mi = {};
	unsigned long flags;
	u32 depth = *max_wr;
	int err;

	if (udata) {
		if (udata->inlen < sizeof(cmd))
			return -EINVAL;
		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			return err;
	}

	err = sroce_queue_init(&q, sdev, &depth,
			       sroce_srq_elem_size(srq->rq.max_sge),
			       SROCE_QUEUE_FROM_USER);
	if (err)
		return err;
	if (udata) {
		err = sroce_queue_map(&q, sroce_srq_uctx(udata), &mi);
		if (err)
			goto err_queue;
		if (copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi,
				 sizeof(mi))) {
			err = -EFAULT;
			goto err_queue;
		}
	}

	spin_lock_irqsave(&srq->rq.lock, flags);
	err = sroce_srq_copy_ring(&q, &srq->rq.queue);
	if (err < 0) {
		spin_unlock_irqrestore(&srq->rq.lock, flags);
		goto err_queue;
	}
	old = srq->rq.queue;
	srq->rq.queue = q;
	srq->rq.max_wr = depth;
	spin_unlock_irqrestore(&srq->rq.lock, flags);

	sroce_queue_cleanup(&old);
	*max_wr = depth;
	return 0;

err_queue:
	sroce_queue_cleanup(&q);
	return err;
}

int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	u32 max_wr = srq->rq.max_wr;
	int err;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR) {
		if (!attr->max_wr || attr->max_wr > sdev->attr.max_srq_wr)
			return -EINVAL;
		max_wr = attr->max_wr;
	}
	/* IBTA vol 1 11.2.3: the limit must fit the (new) queue. */
	if ((mask & IB_SRQ_LIMIT) && attr->srq_limit > max_wr)
		return -EINVAL;
	if (!(mask & IB_SRQ_LIMIT) && srq->limit > max_wr)
		return -EINVAL;

	if (mask & IB_SRQ_MAX_WR) {
		err = sroce_srq_resize(srq, &max_wr, udata);
		if (err)
			return err;
		attr->max_wr = max_wr;
	}
	if (mask & IB_SRQ_LIMIT) {
		spin_lock_irqsave(&srq->rq.lock, flags);
		srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->rq.lock, flags);
	}
	return 0;
}

int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->rq.lock, flags);
	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	return 0;
}

/* The core keeps an SRQ alive while a QP uses it: no responder is here. */
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	sroce_queue_cleanup(&srq->rq.queue);
	atomic_dec(&to_sdev(ibsrq->device)->num_srqs);
	return 0;
}

int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err = 0;

	/* User SRQs are posted to in userspace, with no system call. */
	if (srq->user) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&srq->rq.lock, flags);
	for (; wr; wr = wr->next) {
		err = sroce_rq_post_one(&srq->rq, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	return err;
}
