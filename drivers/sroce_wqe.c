// SPDX-License-Identifier: GPL-2.0
/*
 * Work requests from the rings: each slot is copied into kernel memory
 * exactly once and validated there, so nothing userspace writes to the
 * ring afterwards can change what the engines act on.
 *
 * Of a struct rxe_send_wqe only what the provider itself fills in is read:
 * wr (wr_id, opcode, send_flags, ex, and the rdma or atomic part) and
 * dma.num_sge/dma.length with the SGEs or inline bytes. The fields rdma_rxe
 * used as its own working state (status, state, mask, the PSNs, dma.resid,
 * dma.cur_sge, dma.sge_offset) and the legacy in-WQE address vector are
 * never looked at.
 *
 * Provider v44 quirks handled here: wr_set_sge_list() writes dma.length =
 * num_sge * sge[0].length, so the sum of the copied SGEs is the length of
 * a gathered WQE; the legacy post_send keeps the caller's SGE count in
 * dma.num_sge of an inline WQE, so an inline WQE's length is dma.length
 * alone.
 *
 * ATOMIC WRITE: wr_atomic_write() (extended QPs) writes wr.rdma's address
 * and R_Key, the 8 bytes into dma.atomic_wr (where the inline data or the
 * SGEs would be), dma.length 8 and no SGEs. The legacy post_send has no
 * case for the opcode (convert_send_wr() in v44 and later): it leaves
 * wr.rdma zero, so the R_Key is lost, and puts SGEs or inline bytes into
 * the slot. Such a WQE cannot be executed as meant; upstream rxe sends it
 * with R_Key 0 and the first 8 bytes of the slot, an SGE's address when
 * not inline. It is refused here, before anything is sent.
 */
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <sroce/wire.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "sroce_compat.h"
#include "sroce_qp.h"

/* The provider memcpy()s ibv_sge into the ring; we copy them out as ib_sge. */
static_assert(sizeof(struct rxe_sge) == sizeof(struct ib_sge));
static_assert(offsetof(struct rxe_sge, length) == offsetof(struct ib_sge, length));
static_assert(offsetof(struct rxe_sge, lkey) == offsetof(struct ib_sge, lkey));
static_assert(sizeof(struct rxe_send_wqe) == 208);
static_assert(sizeof(struct rxe_recv_wqe) == 40);

/* Largest message IBTA allows (9.4.1: 2^31 bytes). */
#define SROCE_MAX_MSG_LEN	BIT(31)
/*
 * Largest message sent: that less one packet at the smallest path MTU (256
 * bytes), so that every message takes fewer than 2^23 PSNs, half the PSN
 * space within which PSNs compare (sroce_psn.h). A READ of 2^23 response
 * packets could never be acknowledged: its end would compare as its start.
 */
#define SROCE_MAX_SEND_LEN	(SROCE_MAX_MSG_LEN - 256)

#define SROCE_OPS_UD	(BIT(IB_WR_SEND) | BIT(IB_WR_SEND_WITH_IMM))
#define SROCE_OPS_UC	(SROCE_OPS_UD | BIT(IB_WR_RDMA_WRITE) | \
			 BIT(IB_WR_RDMA_WRITE_WITH_IMM))
#define SROCE_OPS_RC	(SROCE_OPS_UC | BIT(IB_WR_RDMA_READ) | \
			 BIT(IB_WR_ATOMIC_CMP_AND_SWP) | \
			 BIT(IB_WR_ATOMIC_FETCH_AND_ADD))
/*
 * Memory operations (sroce_mw.c): local ones on RC and UC; SEND with
 * Invalidate has RC opcodes only. IB_WR_REG_MR is for kernel QPs and is
 * parsed apart (sroce_wqe_parse_reg()).
 */
#define SROCE_OPS_MEM_UC (BIT(IB_WR_LOCAL_INV) | BIT(IB_WR_BIND_MW))
#define SROCE_OPS_MEM_RC (SROCE_OPS_MEM_UC | BIT(IB_WR_SEND_WITH_INV))
/* Only these carry payload from the WQE, so only these may be inline. */
#define SROCE_OPS_INLINE (SROCE_OPS_UC | BIT(IB_WR_SEND_WITH_INV))

#define SROCE_SEND_FLAGS (IB_SEND_FENCE | IB_SEND_SIGNALED | \
			  IB_SEND_SOLICITED | IB_SEND_INLINE)

static u32 sroce_wqe_allowed_ops(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return SROCE_OPS_RC | SROCE_OPS_MEM_RC |
		       BIT(SROCE_WR_ATOMIC_WRITE);
	case IB_QPT_UC:
		return SROCE_OPS_UC | SROCE_OPS_MEM_UC;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return SROCE_OPS_UD;
	default:
		return 0;
	}
}

bool sroce_wqe_opcode_ok(enum ib_qp_type type, u32 opcode)
{
	return opcode < 32 && (sroce_wqe_allowed_ops(type) & BIT(opcode));
}

static bool sroce_wqe_is_atomic(u32 opcode)
{
	return opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * The ATOMIC WRITE part of a send WQE (see the top of the file): the
 * address and R_Key from wr.rdma, the value from dma.atomic_wr, kept like
 * inline data so that the requester sends it as it would 8 inline bytes.
 * An ATOMIC WRITE moves exactly 8 bytes to an 8-byte aligned address
 * (IBTA 1.5, Annex A19: oA19-28 and A19.4.2 as rdma_rxe cites them); a
 * responder refuses anything else with an invalid request NAK, so such a
 * WQE ends here, locally, and sends nothing.
 */
static enum ib_wc_status
sroce_wqe_parse_atomic_write(struct sroce_swqe *wqe,
			     const struct rxe_send_wqe *hdr, const u8 *payload,
			     u32 max_sge, u32 max_inline)
{
	u32 room = max_t(u32, max_sge * sizeof(struct rxe_sge), max_inline);

	/* SGEs or inline bytes: the legacy post_send, which lost the R_Key. */
	if (hdr->dma.num_sge)
		return IB_WC_LOC_QP_OP_ERR;
	/* A slot with less room cannot hold the value. */
	if (hdr->dma.length != SROCE_ATOMIC_WRITE_BYTES ||
	    room < SROCE_ATOMIC_WRITE_BYTES)
		return IB_WC_LOC_LEN_ERR;
	if (!IS_ALIGNED(hdr->wr.wr.rdma.remote_addr, SROCE_ATOMIC_WRITE_BYTES))
		return IB_WC_LOC_QP_OP_ERR;

	wqe->remote_addr = hdr->wr.wr.rdma.remote_addr;
	wqe->rkey = hdr->wr.wr.rdma.rkey;
	wqe->inline_data = true;
	wqe->length = SROCE_ATOMIC_WRITE_BYTES;
	memcpy(wqe->inline_buf, payload, SROCE_ATOMIC_WRITE_BYTES);
	return IB_WC_SUCCESS;
}

/**
 * sroce_wqe_parse_send() - copy and validate one send WQE
 * @wqe: the kernel copy to fill in (room for the QP's shadow slot)
 * @slot: the ring slot, a struct rxe_send_wqe followed by at least
 *	max(@max_sge * 16, @max_inline) bytes
 * @type: the QP type, for the opcode allow-list
 * @max_sge: the SQ's SGE limit as returned to userspace
 * @max_inline: the SQ's inline limit as returned to userspace
 *
 * Reads each byte of @slot at most once. On failure @wqe carries only
 * wr_id, opcode, send_flags and the error status, with no SGEs and length 0.
 *
 * Return: IB_WC_SUCCESS, IB_WC_LOC_QP_OP_ERR (opcode or inline flag not
 * allowed; an ATOMIC WRITE with SGEs or a misaligned address) or
 * IB_WC_LOC_LEN_ERR (SGE count or a length out of bounds); the same value
 * is stored in wqe->status.
 */
enum ib_wc_status sroce_wqe_parse_send(struct sroce_swqe *wqe,
				       const void *slot, enum ib_qp_type type,
				       u32 max_sge, u32 max_inline)
{
	const u8 *payload = (const u8 *)slot + sizeof(struct rxe_send_wqe);
	struct rxe_send_wqe hdr;
	enum ib_wc_status status;
	u64 total = 0;
	u32 i;

	memcpy(&hdr, slot, sizeof(hdr));
	/* The user may rewrite the slot: only the copy is read from here. */
	barrier();

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = hdr.wr.wr_id;
	wqe->opcode = hdr.wr.opcode;
	wqe->send_flags = hdr.wr.send_flags & SROCE_SEND_FLAGS;

	if (!sroce_wqe_opcode_ok(type, hdr.wr.opcode)) {
		status = IB_WC_LOC_QP_OP_ERR;
		goto bad;
	}

	if (hdr.wr.opcode == SROCE_WR_ATOMIC_WRITE) {
		status = sroce_wqe_parse_atomic_write(wqe, &hdr, payload,
						      max_sge, max_inline);
		if (status != IB_WC_SUCCESS)
			goto bad;
	} else if (wqe->send_flags & IB_SEND_INLINE) {
		if (!(SROCE_OPS_INLINE & BIT(hdr.wr.opcode))) {
			status = IB_WC_LOC_QP_OP_ERR;
			goto bad;
		}
		if (hdr.dma.length > max_inline) {
			status = IB_WC_LOC_LEN_ERR;
			goto bad;
		}
		wqe->inline_data = true;
		wqe->length = hdr.dma.length;
		memcpy(wqe->inline_buf, payload, wqe->length);
	} else {
		if (hdr.dma.num_sge > max_sge) {
			status = IB_WC_LOC_LEN_ERR;
			goto bad;
		}
		wqe->num_sge = hdr.dma.num_sge;
		memcpy(wqe->sge, payload, wqe->num_sge * sizeof(struct ib_sge));
		/* The copied SGEs are the authority, not dma.length. */
		for (i = 0; i < wqe->num_sge; i++)
			total += wqe->sge[i].length;
		if (total > SROCE_MAX_SEND_LEN) {
			status = IB_WC_LOC_LEN_ERR;
			goto bad;
		}
		wqe->length = total;
	}

	switch (hdr.wr.opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		/* Opaque, already in network order. */
		wqe->imm_data = hdr.wr.ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->invalidate_rkey = hdr.wr.ex.invalidate_rkey;
		break;
	case IB_WR_BIND_MW:
		wqe->bind.addr = hdr.wr.wr.mw.addr;
		wqe->bind.length = hdr.wr.wr.mw.length;
		wqe->bind.mr_lkey = hdr.wr.wr.mw.mr_lkey;
		wqe->bind.mw_rkey = hdr.wr.wr.mw.mw_rkey;
		wqe->bind.rkey = hdr.wr.wr.mw.rkey;
		wqe->bind.access = hdr.wr.wr.mw.access;
		break;
	default:
		break;
	}

	/* A local operation moves no payload. */
	if ((hdr.wr.opcode == IB_WR_LOCAL_INV ||
	     hdr.wr.opcode == IB_WR_BIND_MW) && wqe->length) {
		status = IB_WC_LOC_LEN_ERR;
		goto bad;
	}

	switch (hdr.wr.opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->remote_addr = hdr.wr.wr.rdma.remote_addr;
		wqe->rkey = hdr.wr.wr.rdma.rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->remote_addr = hdr.wr.wr.atomic.remote_addr;
		wqe->rkey = hdr.wr.wr.atomic.rkey;
		wqe->compare_add = hdr.wr.wr.atomic.compare_add;
		wqe->swap = hdr.wr.wr.atomic.swap;
		break;
	default:
		break;
	}

	/* Only the AH's number: its address is resolved when sent. */
	if (type == IB_QPT_UD || type == IB_QPT_GSI) {
		wqe->ud.remote_qpn = hdr.wr.wr.ud.remote_qpn & SROCE_QPN_MASK;
		wqe->ud.remote_qkey = hdr.wr.wr.ud.remote_qkey;
		wqe->ud.ah_num = hdr.wr.wr.ud.ah_num;
		wqe->ud.pkey_index = hdr.wr.wr.ud.pkey_index;
	}

	/* IBTA 9.4.5: an atomic operates on exactly 8 bytes. */
	if (sroce_wqe_is_atomic(hdr.wr.opcode) && wqe->length != sizeof(u64)) {
		status = IB_WC_LOC_LEN_ERR;
		goto bad;
	}

	wqe->status = IB_WC_SUCCESS;
	return IB_WC_SUCCESS;

bad:
	wqe->length = 0;
	wqe->num_sge = 0;
	wqe->inline_data = false;
	wqe->status = status;
	return status;
}

/**
 * sroce_wqe_parse_recv() - copy and validate one receive WQE
 * @wqe: filled in, with room for @max_sge SGEs
 * @slot: the ring slot, a struct rxe_recv_wqe followed by @max_sge SGEs
 * @max_sge: the RQ's SGE limit
 *
 * Return: 0, or -EINVAL when the SGE count or the total length is out of
 * bounds.
 */
int sroce_wqe_parse_recv(struct sroce_rwqe *wqe, const void *slot, u32 max_sge)
{
	struct rxe_recv_wqe hdr;
	u64 total = 0;
	u32 i;

	memcpy(&hdr, slot, sizeof(hdr));
	/* The user may rewrite the slot: only the copy is read from here. */
	barrier();
	/* Set first: the error completion of a bad WQE carries it too. */
	wqe->wr_id = hdr.wr_id;
	if (hdr.dma.num_sge > max_sge)
		return -EINVAL;

	wqe->num_sge = hdr.dma.num_sge;
	memcpy(wqe->sge, (const u8 *)slot + sizeof(hdr),
	       wqe->num_sge * sizeof(struct ib_sge));
	for (i = 0; i < wqe->num_sge; i++)
		total += wqe->sge[i].length;
	if (total > SROCE_MAX_MSG_LEN)
		return -EINVAL;
	wqe->length = total;
	return 0;
}

/*
 * IB_WR_REG_MR from a kernel QP's ring, written by sroce_post_one_send()
 * in the kernel-only reg layout (never from a user ring: it carries a
 * kernel pointer).
 */
static void sroce_wqe_parse_reg(struct sroce_swqe *wqe, const void *slot)
{
	const struct rxe_send_wqe *hdr = slot;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = hdr->wr.wr_id;
	wqe->opcode = IB_WR_REG_MR;
	wqe->send_flags = hdr->wr.send_flags & SROCE_SEND_FLAGS &
			  ~IB_SEND_INLINE;
	wqe->reg.mr = hdr->wr.wr.reg.mr;
	wqe->reg.key = hdr->wr.wr.reg.key;
	wqe->reg.access = hdr->wr.wr.reg.access;
	wqe->status = IB_WC_SUCCESS;
}

/**
 * sroce_sq_fetch_count() - how many ring slots one fetch takes
 * @head: sq.head, the next slot to copy
 * @index: the consumer index, the oldest WQE not completed
 * @prod: the producer index as read from the ring (masked here)
 * @mask: the ring's index mask
 * @budget: the most to take
 *
 * A producer index moved back into WQEs already taken is garbage from
 * userspace: those slots are in use, nothing is taken until it is sane.
 */
u32 sroce_sq_fetch_count(u32 head, u32 index, u32 prod, u32 mask, u32 budget)
{
	u32 busy = (head - index) & mask;
	u32 avail = (prod - index) & mask;

	if (avail < busy)
		return 0;
	return min(avail - busy, budget);
}

u32 sroce_sq_fetch(struct sroce_qp *qp)
{
	struct sroce_sq *sq = &qp->sq;
	struct sroce_queue *q = &sq->queue;
	u32 mask = q->index_mask;
	u32 prod, n, i;

	lockdep_assert_held(&sq->lock);

	/* Acquire: pairs with the producer's release; the slots are written. */
	prod = smp_load_acquire(&q->buf->producer_index);
	n = sroce_sq_fetch_count(sq->head, q->index, prod, mask,
				 SROCE_SQ_FETCH_BATCH);
	for (i = 0; i < n; i++) {
		struct sroce_swqe *wqe = sroce_sq_wqe(qp, sq->head);
		const void *slot = q->buf->data +
				   ((size_t)sq->head << q->log2_elem_size);

		if (!qp->user &&
		    ((const struct rxe_send_wqe *)slot)->wr.opcode ==
		    IB_WR_REG_MR)
			sroce_wqe_parse_reg(wqe, slot);
		else
			sroce_wqe_parse_send(wqe, slot, qp->ibqp.qp_type,
					     sq->max_sge, sq->max_inline);
		if (sq->sig_all)
			wqe->send_flags |= IB_SEND_SIGNALED;
		sq->head = (sq->head + 1) & mask;
	}
	return n;
}

u32 sroce_sq_fetch_all(struct sroce_qp *qp)
{
	struct sroce_sq *sq = &qp->sq;
	unsigned long flags;
	u32 n, head;

	/*
	 * One batch per sq.lock hold, interrupts on in between. Ends: the
	 * consumer index cannot move while the caller holds req.lock, so the
	 * producer can add at most one ring's worth meanwhile.
	 */
	do {
		spin_lock_irqsave(&sq->lock, flags);
		n = sroce_sq_fetch(qp);
		head = sq->head;
		spin_unlock_irqrestore(&sq->lock, flags);
	} while (n == SROCE_SQ_FETCH_BATCH);
	return head;
}

int sroce_rq_fetch(struct sroce_qp *qp, struct sroce_rwqe *wqe)
{
	struct sroce_queue *q = &qp->rq.queue;

	lockdep_assert_held(&qp->rq.lock);

	if (!sroce_queue_count(q))
		return -ENOENT;
	return sroce_wqe_parse_recv(wqe, sroce_queue_consumer_slot(q),
				    qp->rq.max_sge);
}
