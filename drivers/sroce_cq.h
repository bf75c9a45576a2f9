/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completion queues. User CQs are rxe rings of struct ib_uverbs_wc that the
 * provider polls itself; kernel CQs hold struct ib_wc and are polled with
 * ib_poll_cq().
 */
#ifndef _SROCE_CQ_H
#define _SROCE_CQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "sroce_queue.h"

struct sroce_cq {
	struct ib_cq ibcq;

	/*
	 * lock protects queue (the producer side and, for kernel CQs, the
	 * consumer side), notify and overflowed. Taken with spin_lock_irqsave:
	 * completions are posted from softirq and timer context.
	 */
	spinlock_t lock;
	struct sroce_queue queue;
	bool user;
	u8 notify;		/* armed IB_CQ_SOLICITED or IB_CQ_NEXT_COMP */
	bool overflowed;
};

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

/*
 * sroce_cq_post() - add a completion. @wc is in kernel form (wc->qp set);
 * user CQs get the ib_uverbs_wc translation. Calls the completion handler
 * when the CQ is armed for it, outside the CQ's lock but under the posting
 * engine's (req.lock or resp.lock, BH disabled): a handler that posts to
 * its QP finds its work deferred (sroce_req_kick(), sroce_qp_flush()).
 * Returns -ENOSPC and raises IB_EVENT_CQ_ERR when the CQ is full.
 * Context: any; does not sleep.
 */
int sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc, bool solicited);

/* verbs */
int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

#endif /* _SROCE_CQ_H */
