/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue pairs: the verbs object, its send and receive queues, its address,
 * and the state the three engines keep (requester and completer in
 * sroce_req.h, responder in sroce_resp.h).
 */
#ifndef _SROCE_QP_H
#define _SROCE_QP_H

#include <linux/in6.h>
#include <linux/mutex.h>
#include <linux/seqlock.h>
#include <linux/if_ether.h>
#include <linux/spinlock.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_queue.h"
#include "sroce_req.h"
#include "sroce_resp.h"

struct sroce_anchor;
struct sroce_dev;

/* QPNs are 24 bits on the wire (IBTA 9.2: BTH, DETH). */
#define SROCE_QPN_MASK		GENMASK(23, 0)

/* Where a QP's packets go: resolved once, at modify_qp(IB_QP_AV). */
struct sroce_av {
	int family;			/* AF_INET or AF_INET6 */
	union {
		__be32 v4;
		struct in6_addr v6;
	} saddr, daddr;
	u8 dmac[ETH_ALEN];
	u8 traffic_class;		/* DSCP and ECN as the application gave them */
	u8 hop_limit;
	u32 flow_label;
	u16 sport;			/* UDP source port, host order (entropy) */
	/*
	 * The source GID's netdev: packets leave through it, so that a GID
	 * of a VLAN above the link goes out tagged on that VLAN.
	 */
	int ifindex;
};

/*
 * The kernel's copy of one send WQE, validated (sroce_wqe.c) before the
 * requester sees it. Followed by num_sge struct ib_sge, or by length bytes
 * of inline data when inline_data is set.
 */
struct sroce_swqe {
	u64 wr_id;
	enum ib_wr_opcode opcode;
	u32 send_flags;		/* IB_SEND_* */
	union {
		__be32 imm_data;
		u32 invalidate_rkey;
	};
	u64 remote_addr;
	u32 rkey;
	u64 compare_add;
	u64 swap;
	u32 length;		/* payload bytes of the whole message */
	u32 num_sge;
	bool inline_data;
	/* The local operations (sroce_mw.c). */
	union {
		struct sroce_mw_bind bind;	/* IB_WR_BIND_MW */
		struct {			/* IB_WR_REG_MR, kernel QPs */
			struct ib_mr *mr;
			u32 key;
			int access;
		} reg;
	};
	/*
	 * UD and GSI: where the message goes, as the WR said. The AH is only
	 * a number here; the requester resolves it (sroce_ud.c).
	 */
	struct {
		u32 remote_qpn;
		u32 remote_qkey;
		u32 ah_num;
		u16 pkey_index;
	} ud;
	/*
	 * IB_WC_SUCCESS, or the error status sroce_sq_fetch() found
	 * (IB_WC_LOC_QP_OP_ERR, IB_WC_LOC_LEN_ERR): the requester completes
	 * such a WQE with it and moves the QP to ERR without sending.
	 */
	enum ib_wc_status status;

	/* Requester progress; kernel only, never shared. */
	struct sroce_swqe_progress prog;

	union {
		DECLARE_FLEX_ARRAY(struct ib_sge, sge);
		DECLARE_FLEX_ARRAY(u8, inline_buf);
	};
};

struct sroce_sq {
	/* Ring in rxe layout; queue.index is the consumer: oldest WQE not completed. */
	struct sroce_queue queue;
	u8 *shadow;			/* kernel copies, slot-parallel to the ring */
	u32 shadow_elem_size;
	u32 max_wr;
	u32 max_sge;
	u32 max_inline;
	u32 head;			/* next ring slot to copy and validate */
	/*
	 * IB_SIGNAL_ALL_WR: sroce_sq_fetch() sets IB_SEND_SIGNALED in every
	 * WQE, so the engines look at send_flags only.
	 */
	bool sig_all;
	/*
	 * lock protects head, queue and shadow slots in [queue.index, head).
	 * Only the requester and its flush fetch (advance head), and they
	 * hold req.lock: the slots past head are theirs to copy even while
	 * lock is dropped between batches.
	 */
	spinlock_t lock;
};

struct sroce_rq {
	struct sroce_queue queue;	/* ring in rxe layout */
	u32 max_wr;
	u32 max_sge;
	spinlock_t lock;		/* protects queue */
};

struct sroce_qp {
	struct ib_qp ibqp;
	/*
	 * Unique among all the device's QPs, unlike the QPN, which the
	 * cyclic allocator hands out again; set at create_qp, never changed.
	 */
	u64 serial;
	/*
	 * The CPU the QP's packets name as their sender (skb->sender_cpu),
	 * whichever CPU sends them: XPS then keeps them on one transmit
	 * queue of a multiqueue NIC, in order. Set at create_qp.
	 */
	unsigned int tx_cpu;

	/*
	 * state_lock protects state and attr against modify_qp; the engines
	 * read both under it (or via READ_ONCE(state) on hot paths).
	 */
	spinlock_t state_lock;
	enum ib_qp_state state;
	struct ib_qp_attr attr;		/* as last set by modify_qp */
	/*
	 * SQD (under state_lock): WQEs the requester started may still be
	 * outstanding; once none is, the drain is reported (IB_EVENT_SQ_DRAINED
	 * if sqd_notify) and sq_draining clears. sqd_gen counts moves to SQD.
	 */
	bool sq_draining;
	bool sqd_notify;
	u32 sqd_gen;
	u32 mtu;			/* path MTU in bytes */
	/*
	 * modify_qp writes av under state_lock inside av_seq's write
	 * section; a packet is built from one copy of it (sroce_qp_av()),
	 * so its headers and route agree. Single fields may be read bare.
	 */
	seqcount_spinlock_t av_seq;
	struct sroce_av av;
	/* The route to av.daddr, per CPU (sroce_xmit.c). */
	struct dst_cache dst_cache;
	struct list_head route_node;	/* on sdev->route_qps */
	/* Serialises modify_qp and destroy_qp; may sleep under it. */
	struct mutex modify_lock;

	struct sroce_sq sq;
	struct sroce_rq rq;
	bool user;			/* created with udata: rings are mapped */
	/*
	 * Attached to a multicast group at some time (set under
	 * sdev->mcast.lock): only then does destroy scan the groups.
	 */
	bool mcast_attached;

	struct sroce_req req;		/* requester + completer (sroce_req.c, sroce_comp.c) */
	struct sroce_resp resp;		/* responder (sroce_resp.c) */

	/*
	 * Flushes asked for where they cannot run: the engines take their
	 * locks with spin_lock_bh(), which must not be released with
	 * interrupts off, yet kernel ULPs post with interrupts off (ib_mad
	 * posts to QP1 under spin_lock_irqsave()). flush_work runs them;
	 * SROCE_QP_FLUSH_* bits in flush_pending say which (atomic).
	 */
	unsigned long flush_pending;
	struct work_struct flush_work;

	/*
	 * What sdev->qps and multicast groups point at (sroce_anchor.h):
	 * lookups from the receive path hold a reference through it.
	 */
	struct sroce_anchor *anchor;
};

/* Bits of sroce_qp.flush_pending. */
enum {
	SROCE_QP_FLUSH_SQ,
	SROCE_QP_FLUSH_RQ,
};

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

static inline struct sroce_swqe *sroce_sq_wqe(struct sroce_qp *qp, u32 index)
{
	return (struct sroce_swqe *)(qp->sq.shadow +
				     (size_t)(index & qp->sq.queue.index_mask) *
				     qp->sq.shadow_elem_size);
}

/*
 * The states in which the receive queue works (IBTA 10.3.1): it keeps
 * working while the send queue drains (SQD) or is in error (SQE).
 */
static inline bool sroce_qp_state_receives(enum ib_qp_state state)
{
	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD || state == IB_QPS_SQE;
}

/*
 * The PD a receive WQE's L_Keys were granted in: the SRQ's for a WQE taken
 * from an SRQ, which QPs of other PDs may share. IBTA leaves the QP's and
 * the SRQ's PDs independent; ConnectX checks against the SRQ's (its SRQ
 * context holds the PD) and so does siw. rdma_rxe checks the QP's, which
 * refuses the SRQ's own MRs and grants the QP's.
 */
static inline struct ib_pd *sroce_qp_recv_pd(const struct sroce_qp *qp)
{
	return qp->ibqp.srq ? qp->ibqp.srq->pd : qp->ibqp.pd;
}

/* A consistent copy of @qp's address vector, from any context. */
static inline void sroce_qp_av(const struct sroce_qp *qp, struct sroce_av *av)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&qp->av_seq);
		*av = qp->av;
	} while (read_seqcount_retry(&qp->av_seq, seq));
}

/* sroce_qp.c */
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);
void sroce_qp_put(struct sroce_qp *qp);
/* Move to ERR (e.g. on a fatal completion) and flush both queues. */
void sroce_qp_error(struct sroce_qp *qp);
/*
 * A send WQE failed locally. RC: ERR. UD, GSI and UC: Send Queue Error
 * (IBTA 10.3.1), which the caller enters (sroce_qp_enter_sqe()) before
 * the failing WQE's error completion is posted; after it,
 * sroce_qp_send_error() flushes the rest of the SQ if the QP is still in
 * SQE and leaves the RQ working. It never enters SQE itself: the consumer
 * may have answered the completion by moving SQE back to RTS already
 * (ib_mad does, for QP1), and that QP must stay in RTS. An overflowed
 * send CQ is fatal (ERR) for every type. Context and locks as
 * sroce_qp_error().
 */
bool sroce_qp_enter_sqe(struct sroce_qp *qp);
/* Set up flush_work (create_qp). */
void sroce_qp_init_flush(struct sroce_qp *qp);
void sroce_qp_send_error(struct sroce_qp *qp);
/*
 * Called by the requester when it found nothing to do in SQD: report the
 * drain once nothing it started is outstanding. No QP lock held.
 */
void sroce_qp_sqd_check(struct sroce_qp *qp);
/* IBTA 10.3.1 / 11.2.1.2: may modify_qp move @cur to @new with @mask? */
bool sroce_qp_transition_ok(enum ib_qp_type type, enum ib_qp_state cur,
			    enum ib_qp_state new, int mask);

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
int sroce_rq_post_one(struct sroce_rq *rq, const struct ib_recv_wr *wr);

/* sroce_wqe.c: copy ring slots into kernel memory and validate them there. */
/*
 * WQEs sroce_sq_fetch() copies and validates per call, that is per sq.lock
 * hold with interrupts off: a doorbell for a full 16K ring must not keep
 * interrupts off for all of it.
 */
#define SROCE_SQ_FETCH_BATCH	64
/*
 * sroce_sq_fetch() - copy and validate up to SROCE_SQ_FETCH_BATCH WQEs
 * that userspace (or post_send) has produced since the last call into the
 * shadow ring, advancing sq.head. A WQE that fails validation is marked
 * so that the requester completes it with IB_WC_LOC_QP_OP_ERR /
 * LOC_LEN_ERR. Caller holds sq.lock, and req.lock, which serialises the
 * fetchers (the requester fetches more whenever it reaches sq.head).
 * Returns the number of new WQEs.
 */
u32 sroce_sq_fetch(struct sroce_qp *qp);
/*
 * sroce_sq_fetch_all() - fetch everything produced so far, one batch per
 * sq.lock hold (the flush needs all of it). Caller holds req.lock, not
 * sq.lock. Returns sq.head.
 */
u32 sroce_sq_fetch_all(struct sroce_qp *qp);
u32 sroce_sq_fetch_count(u32 head, u32 index, u32 prod, u32 mask, u32 budget);
/*
 * sroce_rq_fetch() - copy and validate the next receive WQE into @wqe
 * (room for qp->rq.max_sge SGEs) without consuming it. Returns 0, -ENOENT
 * if the queue is empty, -EINVAL if the WQE is malformed.
 * Caller holds rq.lock.
 */
struct sroce_rwqe {
	u64 wr_id;
	u32 length;		/* sum of the SGE lengths */
	u32 num_sge;
	struct ib_sge sge[];
};

int sroce_rq_fetch(struct sroce_qp *qp, struct sroce_rwqe *wqe);

/* The pure parts of the two fetches, one ring slot each (KUnit tests them). */
enum ib_wc_status sroce_wqe_parse_send(struct sroce_swqe *wqe,
				       const void *slot, enum ib_qp_type type,
				       u32 max_sge, u32 max_inline);
int sroce_wqe_parse_recv(struct sroce_rwqe *wqe, const void *slot, u32 max_sge);
/* @opcode (IB_WR_*) may be posted to a QP of @type. */
bool sroce_wqe_opcode_ok(enum ib_qp_type type, u32 opcode);

#endif /* _SROCE_QP_H */
