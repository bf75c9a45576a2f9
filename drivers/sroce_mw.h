/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory windows (type 1 and type 2B) and the local operations of the send
 * queue that manage keys: IB_WR_BIND_MW, IB_WR_LOCAL_INV and IB_WR_REG_MR,
 * plus the responder's R_Key resolution (an MR or a window onto one) and
 * remote invalidation (SEND with Invalidate).
 */
#ifndef _SROCE_MW_H
#define _SROCE_MW_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "sroce_mr.h"

struct sroce_anchor;
struct sroce_dev;
struct sroce_qp;
struct sroce_swqe;

struct sroce_mw {
	struct ib_mw ibmw;
	u32 index;		/* in sdev->mrs, tagged SROCE_MR_TAG_MW */

	/*
	 * lock protects everything below but the reference: binds and
	 * invalidations change it while the responder resolves R_Keys.
	 */
	spinlock_t lock;
	/*
	 * Type 1: valid from allocation to dealloc, bound or not. Type 2:
	 * valid while bound; invalidation frees it (IBTA 10.6.7.2).
	 */
	bool valid;
	u32 rkey;
	struct sroce_mr *mr;	/* bound region (num_mw counts us), or NULL */
	u64 addr;
	u64 length;
	int access;		/* IB_ACCESS_REMOTE_* */
	/*
	 * Type 2B: the QP it is bound to, by its serial (sroce_qp.h): a
	 * QP created later may reuse a destroyed QP's number, and must not
	 * inherit its windows.
	 */
	u64 qp_serial;

	/*
	 * What sdev->mrs points at (sroce_anchor.h): lookups hold a
	 * reference through it; dealloc waits for the last one.
	 */
	struct sroce_anchor *anchor;
};

static inline struct sroce_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

/* A bind as the WQE asks for it (struct rxe_send_wr's mw part). */
struct sroce_mw_bind {
	u64 addr;
	u64 length;
	u32 mr_lkey;
	u32 mw_rkey;		/* the window, by its current key */
	u32 rkey;		/* the new key; its low 8 bits are the tag */
	u32 access;
};

/*
 * sroce_mw_bind_check() - the bind rules of IBTA 10.6.7 that need no
 * lookup: @mw of @type in state @valid, on a QP of @qp_pd, onto @mr (NULL
 * when the lkey named none) with @mr_pd, @mr_access, [@mr_iova,
 * @mr_iova + @mr_len). Returns IB_WC_SUCCESS or IB_WC_MW_BIND_ERR.
 */
enum ib_wc_status sroce_mw_bind_check(enum ib_mw_type type, bool valid,
				      struct ib_pd *mw_pd, struct ib_pd *qp_pd,
				      const struct sroce_mw_bind *b,
				      u32 cur_rkey, bool have_mr,
				      struct ib_pd *mr_pd, int mr_access,
				      u64 mr_iova, u64 mr_len);

/*
 * sroce_rkey_access() - one access of a request packet on @qp through the
 * R_Key @rkey: an MR of the QP's PD, or a valid window of that PD (type
 * 2B: bound to @qp) onto one, granting @access over [@va, @va + op->len);
 * checked against the key's state at this moment and run in the same step
 * (sroce_mr_access()). The responder calls it for every packet, so a key
 * revoked in the middle of a message stops the rest of it.
 * Returns 0, or -EACCES with nothing moved. Context: BH or process.
 */
int sroce_rkey_access(struct sroce_qp *qp, u32 rkey, int access, u64 va,
		      struct sroce_mr_op *op);

/*
 * sroce_mw_local_op() - execute IB_WR_REG_MR, IB_WR_LOCAL_INV or
 * IB_WR_BIND_MW from @qp's send queue, in order. Returns IB_WC_SUCCESS or
 * the status the WQE completes with.
 */
enum ib_wc_status sroce_mw_local_op(struct sroce_qp *qp,
				    struct sroce_swqe *wqe);

/*
 * sroce_invalidate_key() - invalidate the FAST MR or type 2 window @key
 * names for @qp; @remote for SEND with Invalidate (a type 2B window must
 * then be bound to @qp). Returns 0 or -EINVAL.
 */
int sroce_invalidate_key(struct sroce_qp *qp, u32 key, bool remote);

/* post_send: write an IB_WR_REG_MR into a kernel QP's ring at @prod. */
int sroce_mw_post_reg(struct sroce_qp *qp, const struct ib_reg_wr *wr,
		      u32 prod);

/* verbs */
int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_dealloc_mw(struct ib_mw *ibmw);

#endif /* _SROCE_MW_H */
