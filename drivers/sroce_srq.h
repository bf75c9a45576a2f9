/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared receive queues (sroce_srq.c): one receive ring in the rxe layout
 * that any number of QPs created with init->srq take their receive WQEs
 * from, with the limit event and the max_wr resize of IBTA vol 1 10.2.9
 * and 11.2.3.
 */
#ifndef _SROCE_SRQ_H
#define _SROCE_SRQ_H

#include <rdma/ib_verbs.h>

#include "sroce_qp.h"

struct sroce_srq {
	struct ib_srq ibsrq;
	/*
	 * rq.lock (irqsave) protects rq.queue (including its replacement by
	 * a resize) and limit. The responders of every attached QP consume
	 * under it; kernel post_srq_recv produces under it.
	 */
	struct sroce_rq rq;
	u32 limit;		/* armed when non-zero (IBTA vol 1 10.2.9) */
	u32 srq_num;
	bool user;		/* created with udata: the ring is mapped */
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

/*
 * sroce_srq_fetch() - take the next WQE of the SRQ into @wqe (room for
 * SROCE_MAX_SGE SGEs): it is copied, consumed and validated, so no other
 * QP can take it. Returns 0, -ENOENT if empty, -EINVAL if malformed (the
 * WQE is consumed and wqe->wr_id is set). Context: any; takes rq.lock.
 */
int sroce_srq_fetch(struct sroce_srq *srq, struct sroce_rwqe *wqe);
/*
 * sroce_srq_fetch_len() - sroce_srq_fetch(), for a WQE that must hold
 * @len bytes: a well-formed one that is shorter stays in the SRQ for
 * another message, and -EMSGSIZE is returned.
 */
int sroce_srq_fetch_len(struct sroce_srq *srq, struct sroce_rwqe *wqe,
			u32 len);

/* Pure parts, exported for KUnit. */
bool sroce_srq_limit_hit(u32 limit, u32 count);
int sroce_srq_copy_ring(struct sroce_queue *dst, const struct sroce_queue *src);

#endif /* _SROCE_SRQ_H */
