// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues.
 *
 * A user CQ is an rxe ring of struct ib_uverbs_wc that the provider polls
 * in userspace (its first 48 bytes are struct ibv_wc); the kernel only
 * produces. A kernel CQ is the same ring holding struct ib_wc, produced and
 * consumed here under cq->lock. Arming (req_notify_cq) and the completion
 * handler call work the same for both: uverbs' handler feeds the user's
 * completion channel.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce_cq.h"
#include "sroce_dev.h"
#include "sroce_queue.h"
#include "sroce_verbs.h"

/* The provider copies an ibv_wc (48 bytes) out of each slot. */
static_assert(sizeof(struct ib_uverbs_wc) == 48);

/* libibverbs' values for the two wc_flags bits the kernel numbers differently. */
#define SROCE_IBV_WC_IP_CSUM_OK		BIT(2)
#define SROCE_IBV_WC_WITH_INV		BIT(3)

static u32 sroce_cq_elem_size(bool user)
{
	return user ? sizeof(struct ib_uverbs_wc) : sizeof(struct ib_wc);
}

/*
 * Kernel IB_WC_WITH_INVALIDATE is bit 2 and IB_WC_IP_CSUM_OK bit 3;
 * libibverbs has them the other way round and neither uverbs nor the
 * provider translates (rdma_rxe shows SEND_WITH_INV as IP_CSUM_OK). Write
 * the bits userspace expects.
 */
static u32 sroce_cq_uverbs_flags(int flags)
{
	u32 uflags = flags & ~(IB_WC_WITH_INVALIDATE | IB_WC_IP_CSUM_OK);

	if (flags & IB_WC_WITH_INVALIDATE)
		uflags |= SROCE_IBV_WC_WITH_INV;
	if (flags & IB_WC_IP_CSUM_OK)
		uflags |= SROCE_IBV_WC_IP_CSUM_OK;
	return uflags;
}

static void sroce_cq_to_uverbs(struct ib_uverbs_wc *uwc, const struct ib_wc *wc)
{
	memset(uwc, 0, sizeof(*uwc));
	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		uwc->ex.invalidate_rkey = wc->ex.invalidate_rkey;
	else
		uwc->ex.imm_data = wc->ex.imm_data;
	uwc->qp_num = wc->qp->qp_num;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = sroce_cq_uverbs_flags(wc->wc_flags);
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = wc->slid;
	uwc->sl = wc->sl;
	uwc->dlid_path_bits = wc->dlid_path_bits;
	uwc->port_num = wc->port_num;
}

/**
 * sroce_cq_post() - add a completion to a CQ
 * @cq: the CQ
 * @wc: the completion, kernel form, with wc->qp set
 * @solicited: the completion carries the solicited event bit
 *
 * Context: any; does not sleep. The completion handler is called after
 * cq->lock is dropped.
 *
 * Return: 0, or -ENOSPC when the CQ is full (the entry is lost and
 * IB_EVENT_CQ_ERR is raised, IBTA 11.6.2 "CQ overrun").
 */
int sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc, bool solicited)
{
	unsigned long flags;
	bool notify;

	spin_lock_irqsave(&cq->lock, flags);
	if (unlikely(sroce_queue_full(&cq->queue))) {
		bool first = !cq->overflowed;

		cq->overflowed = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (first && cq->ibcq.event_handler) {
			struct ib_event ev = {
				.device = cq->ibcq.device,
				.element.cq = &cq->ibcq,
				.event = IB_EVENT_CQ_ERR,
			};

			cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
		}
		return -ENOSPC;
	}

	if (cq->user)
		sroce_cq_to_uverbs(sroce_queue_producer_slot(&cq->queue), wc);
	else
		memcpy(sroce_queue_producer_slot(&cq->queue), wc, sizeof(*wc));
	sroce_queue_advance_producer(&cq->queue);

	/*
	 * IBTA 11.4.2.2: a CQ armed for solicited completions fires on a
	 * solicited one or on any unsuccessful one.
	 */
	notify = cq->notify == IB_CQ_NEXT_COMP ||
		 (cq->notify == IB_CQ_SOLICITED &&
		  (solicited || wc->status != IB_WC_SUCCESS));
	if (notify)
		cq->notify = 0;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	struct rxe_create_cq_resp resp = {};
	u32 depth = attr->cqe;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > sdev->attr.max_cqe)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_cqs) > sdev->attr.max_cq) {
		err = -ENOSPC;
		goto err_count;
	}

	spin_lock_init(&cq->lock);
	cq->user = !!udata;
	err = sroce_queue_init(&cq->queue, sdev, &depth,
			       sroce_cq_elem_size(cq->user),
			       SROCE_QUEUE_TO_USER);
	if (err)
		goto err_count;

	if (udata) {
		struct sroce_ucontext *uctx =
			rdma_udata_to_drv_context(udata, struct sroce_ucontext,
						  ibuc);

		err = sroce_queue_map(&cq->queue, &uctx->ibuc, &resp.mi);
		if (err)
			goto err_queue;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_queue;
	}

	ibcq->cqe = depth;
	return 0;

err_queue:
	sroce_queue_cleanup(&cq->queue);
err_count:
	atomic_dec(&sdev->num_cqs);
	return err;
}

int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);

	/* The core destroys every QP that posts here first. */
	sroce_queue_cleanup(&cq->queue);
	atomic_dec(&to_sdev(ibcq->device)->num_cqs);
	return 0;
}

/* Entries the consumer (userspace or sroce_poll_cq()) has not taken yet. */
static u32 sroce_cq_pending(const struct sroce_cq *cq)
{
	/* Acquire: pairs with the consumer's release of the slots it read. */
	u32 cons = smp_load_acquire(&cq->queue.buf->consumer_index);

	return (cq->queue.index - cons) & cq->queue.index_mask;
}

int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	struct rxe_resize_cq_resp resp = {};
	struct sroce_queue nq, oq;
	u32 depth = cqe, n, i, cons;
	unsigned long flags;
	size_t esz;
	int err;

	if (cqe < 1 || cqe > sdev->attr.max_cqe)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	err = sroce_queue_init(&nq, sdev, &depth, sroce_cq_elem_size(cq->user),
			       SROCE_QUEUE_TO_USER);
	if (err)
		return err;
	/* Same element size as the old ring: same kind of CQ. */
	esz = 1UL << nq.log2_elem_size;

	/* Tell userspace first: once swapped, the old ring gets nothing. */
	if (udata) {
		struct sroce_ucontext *uctx =
			rdma_udata_to_drv_context(udata, struct sroce_ucontext,
						  ibuc);

		err = sroce_queue_map(&nq, &uctx->ibuc, &resp.mi);
		if (err)
			goto err_queue;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_queue;
	}

	spin_lock_irqsave(&cq->lock, flags);
	n = sroce_cq_pending(cq);
	if (n > depth) {
		spin_unlock_irqrestore(&cq->lock, flags);
		err = -EINVAL;
		goto err_queue;
	}
	/*
	 * Move the pending entries, oldest first, to the start of the new
	 * ring; acquire pairs with the consumer's release.
	 */
	cons = smp_load_acquire(&cq->queue.buf->consumer_index);
	for (i = 0; i < n; i++) {
		u32 from = (cons + i) & cq->queue.index_mask;

		memcpy(nq.buf->data + i * esz,
		       cq->queue.buf->data +
		       ((size_t)from << cq->queue.log2_elem_size),
		       esz);
	}
	nq.index = n;
	nq.buf->producer_index = n;
	oq = cq->queue;
	cq->queue = nq;
	cq->overflowed = false;
	ibcq->cqe = depth;
	spin_unlock_irqrestore(&cq->lock, flags);

	sroce_queue_cleanup(&oq);
	return 0;

err_queue:
	sroce_queue_cleanup(&nq);
	return err;
}

int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_queue *q = &cq->queue;
	unsigned long flags;
	int n = 0;

	/* User CQs are polled in userspace only. */
	if (cq->user)
		return -EINVAL;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && sroce_cq_pending(cq)) {
		u32 cons = q->buf->consumer_index;

		memcpy(&wc[n++], q->buf->data + ((size_t)cons << q->log2_elem_size),
		       sizeof(*wc));
		/* Release: the slot is read before the producer may reuse it. */
		smp_store_release(&q->buf->consumer_index,
				  (cons + 1) & q->index_mask);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	u8 want = flags & IB_CQ_SOLICITED_MASK;
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* NEXT_COMP is the wider arming and wins over SOLICITED. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = want;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && sroce_cq_pending(cq))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
