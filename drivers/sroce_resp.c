// SPDX-License-Identifier: GPL-2.0
/*
 * The RC responder: every request packet addressed to a QP ends here, in
 * the softirq that delivered it. The responder classifies its PSN,
 * checks the opcode sequence, the access rights (R_Key, PD, QP access
 * flags, bounds) and the lengths, then places SEND data into the next
 * receive WQE, RDMA WRITE data into the MR, streams RDMA READ responses
 * out of the MR, performs atomics and ATOMIC WRITEs, and answers with
 * (coalesced) ACKs, NAKs, READ responses and ATOMIC ACKs.
 *
 * Everything in a packet is remote input: nothing moves before the R_Key
 * lookup has checked PD, rights and bounds, a violation earns the NAK
 * IBTA prescribes and moves the QP to ERR where IBTA says so, and nothing
 * is executed twice: a duplicate SEND or WRITE is re-ACKed, a duplicate
 * READ re-reads from the saved request, a duplicate ATOMIC is answered
 * from the replay ring.
 *
 * Execution is serialised per QP by ownership rather than by a lock held
 * across it (see struct sroce_resp): the runner sends packets and posts
 * completions with no lock held, because sroce_xmit() may loop a packet
 * straight back into sroce_recv() and the CQ handler may post new work.
 */
#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/dst.h>

#include "sroce_counters.h"
#include "sroce_cq.h"
#include "sroce_dev.h"
#include "sroce_param.h"
#include "sroce_pkt.h"
#include "sroce_psn.h"
#include "sroce_qp.h"
#include "sroce_recv.h"
#include "sroce_req.h"
#include "sroce_resp.h"
#include "sroce_seg.h"
#include "sroce_srq.h"
#include "sroce_ud.h"
#include "sroce_train.h"
#include "sroce_xmit.h"

/* Control requests for the runner, in sroce_resp.ctl. */
#define SROCE_RESP_CTL_START	BIT(0)	/* reset for a new connection */
#define SROCE_RESP_CTL_FLUSH	BIT(1)	/* flush the receive queue */
#define SROCE_RESP_CTL_DEAD	BIT(2)	/* being destroyed: stop */

/*
 * Work units (requests executed plus packets sent) a runner does before it
 * hands over to the work item: bounds the time one softirq spends on one
 * QP, e.g. in a 1 MiB READ, and the time the work item keeps BH off.
 */
#define SROCE_RESP_BUDGET	64

/* Requests queued behind a busy runner; beyond this they are dropped. */
#define SROCE_RESP_INQ_MAX	512

/*
 * Bytes (truesize) of requests queued on one device, all QPs together;
 * beyond this they are dropped too. A queued skb is charged to no socket
 * and no memory cgroup (the UDP tunnel hook takes it before either), so a
 * peer keeping many QPs' runners busy (READ streams, a stack pushing back)
 * would otherwise pin 512 packets on each of them.
 */
#define SROCE_RESP_INQ_DEV_BYTES	(32L << 20)

/*
 * Requests executed, while more are queued, between the one that made an
 * ACK due and that ACK: under a sustained stream the queue may never run
 * dry, and the requester's window must still move.
 */
#define SROCE_RESP_ACK_MAX	16

/*
 * A request (or READ response) that met an ODP page being faulted in
 * (sroce_odp.c) keeps the runner and runs again this much later, the
 * requests behind it queued meanwhile: no NAK, so that the requester
 * spends neither a retry nor an RNR retry, whatever its kind (IBTA has
 * no RNR NAK for READ and atomics). The fault takes tens to hundreds of
 * microseconds; the wait is a tick, the shortest a timer waits.
 */
#define SROCE_RESP_ODP_WAIT	1

/* The path MTU, never below the smallest IB MTU whatever attr holds. */
#define SROCE_RESP_MIN_MTU	256

/* IBTA vol 1 9.4.1: a message is at most 2^31 bytes. */
#define SROCE_RESP_MAX_MSG	BIT(31)

static_assert(sizeof(struct sroce_pkt) <= sizeof_field(struct sk_buff, cb));

/* ------------------------------------------------------------------------
 * Pure decisions (KUnit: kunit/sroce_resp_test.c)
 */

/**
 * sroce_resp_psn_check() - what to do with a request, by its PSN
 * @psn: the request's PSN
 * @epsn: the expected PSN
 * @nak_sent: whether a NAK that asks for a resend is outstanding; updated
 *
 * PSNs in the half of the PSN space behind ePSN are duplicates (IBTA vol 1
 * 9.7.5.1.2), the others are out of sequence: the first of those earns a
 * PSN sequence error NAK, later ones are dropped silently until the
 * expected PSN arrives (C9-114: the responder NAKs once per sequence
 * error, not once per packet).
 */
enum sroce_resp_psn_action sroce_resp_psn_check(u32 psn, u32 epsn,
						bool *nak_sent)
{
	s32 diff = sroce_psn_diff(psn, epsn);

	if (diff < 0)
		return SROCE_RESP_PSN_DUPLICATE;
	if (diff > 0) {
		if (*nak_sent)
			return SROCE_RESP_PSN_DROP;
		*nak_sent = true;
		return SROCE_RESP_PSN_NAK_SEQ;
	}
	*nak_sent = false;
	return SROCE_RESP_PSN_EXECUTE;
}

/**
 * sroce_resp_opseq_ok() - may this packet follow what came before?
 * @msg: the multi-packet message in progress
 * @opflags: the packet's SROCE_OPF_* flags
 *
 * A MIDDLE or LAST must continue a message of its own kind, and nothing
 * else may arrive while one is in progress (IBTA vol 1 9.7.5.1.4); the
 * responder answers a violation with an invalid request NAK.
 */
bool sroce_resp_opseq_ok(enum sroce_resp_msg msg, u16 opflags)
{
	bool first = opflags & SROCE_OPF_FIRST;

	switch (msg) {
	case SROCE_RESP_MSG_SEND:
		return (opflags & SROCE_OPF_SEND) && !first;
	case SROCE_RESP_MSG_WRITE:
		return (opflags & SROCE_OPF_WRITE) && !first;
	default:
		return first;
	}
}

/**
 * sroce_resp_uc_check() - what a UC responder does with a request
 * @psn: the request's PSN
 * @epsn: the expected PSN
 * @msg: the message in progress
 * @opflags: the packet's SROCE_OPF_* flags
 * @dropping: whether the rest of a message is being dropped; updated
 *
 * UC is unacknowledged (IBTA vol 1 9.8): a packet that is
 * missed is never sent again. A gap inside a message drops the rest of
 * that message silently; the responder takes up the stream again at the
 * next FIRST or ONLY packet, whatever its PSN, behind ePSN too: UC has no
 * duplicates to detect, a requester may start again from a lower PSN
 * (rdma_rxe and NICs take such a packet), and a forged FIRST far ahead
 * must not make the real stream look old. Any other packet behind ePSN is
 * dropped and leaves the message in progress alone.
 */
enum sroce_resp_uc_action sroce_resp_uc_check(u32 psn, u32 epsn,
					      enum sroce_resp_msg msg,
					      u16 opflags, bool *dropping)
{
	s32 diff = sroce_psn_diff(psn, epsn);

	if (diff < 0 && !(opflags & SROCE_OPF_FIRST))
		return SROCE_RESP_UC_DUPLICATE;
	if (opflags & SROCE_OPF_FIRST) {
		*dropping = false;
		if (diff || msg != SROCE_RESP_MSG_NONE)
			return SROCE_RESP_UC_RESYNC;
		return SROCE_RESP_UC_EXECUTE;
	}
	if (*dropping)
		return SROCE_RESP_UC_DROP;
	if (diff || !sroce_resp_opseq_ok(msg, opflags)) {
		*dropping = true;
		return SROCE_RESP_UC_ABANDON;
	}
	return SROCE_RESP_UC_EXECUTE;
}

/**
 * sroce_resp_access_nak() - the checks of an RDMA or atomic request that
 * come before its R_Key is looked up
 * @opflags: the request's SROCE_OPF_* flags (WRITE, READ or ATOMIC)
 * @qp_access: the QP's IB_ACCESS_REMOTE_* flags
 * @va: the virtual address the request names
 * @len: its DMA length (8 for an atomic)
 *
 * Return: 0 if the request may go on to the R_Key check, else the NAK code
 * (SROCE_AETH_NAK_*): remote access error when the QP does not grant the
 * operation or the range wraps (C9-88: access violations are remote access
 * errors), invalid request for a misaligned atomic (C9-36.2.1) or a length
 * beyond the largest message.
 */
u8 sroce_resp_access_nak(u16 opflags, int qp_access, u64 va, u32 len)
{
	int need;

	if (opflags & SROCE_OPF_WRITE)
		need = IB_ACCESS_REMOTE_WRITE;
	else if (opflags & SROCE_OPF_READ)
		need = IB_ACCESS_REMOTE_READ;
	else
		need = IB_ACCESS_REMOTE_ATOMIC;

	if (!(qp_access & need))
		return SROCE_AETH_NAK_REM_ACCESS_ERR;
	if ((opflags & SROCE_OPF_ATOMIC) && !IS_ALIGNED(va, 8))
		return SROCE_AETH_NAK_INVALID_REQ;
	if (len > SROCE_RESP_MAX_MSG)
		return SROCE_AETH_NAK_INVALID_REQ;
	if (len && va + len - 1 < va)
		return SROCE_AETH_NAK_REM_ACCESS_ERR;
	return 0;
}

/*
 * A FIRST or MIDDLE packet carries exactly one path MTU, a LAST or ONLY at
 * most one (IBTA vol 1 9.7.2, C9-46/C9-47).
 */
bool sroce_resp_send_len_ok(u16 opflags, u32 paylen, u32 mtu)
{
	if (opflags & SROCE_OPF_LAST)
		return paylen <= mtu;
	return paylen == mtu;
}

/*
 * As for SEND, and the packets of a WRITE add up to exactly the DMA length
 * of its RETH (C9-25): the LAST or ONLY packet carries what remains.
 */
bool sroce_resp_write_len_ok(u16 opflags, u32 resid, u32 paylen, u32 mtu)
{
	if (opflags & SROCE_OPF_LAST)
		return paylen == resid && paylen <= mtu;
	return paylen == mtu && paylen < resid;
}

/*
 * A READ's responses take a PSN each, and the next expected PSN jumps past
 * them all at once: they must span less than half the PSN space, or that
 * PSN and the READ's own compare the wrong way (2 GiB at MTU 256). sroce's
 * requester never asks for such a READ (SROCE_MAX_SEND_LEN).
 */
bool sroce_resp_read_len_ok(u32 len, u32 mtu)
{
	return sroce_seg_npkts(len, mtu) < SROCE_PSN_HALF;
}

/**
 * sroce_resp_atomic_write_nak() - the checks of an RDMA ATOMIC WRITE that
 * come before its R_Key is looked up
 * @qp_access: the QP's IB_ACCESS_REMOTE_* flags
 * @va: the RETH's virtual address
 * @len: the RETH's DMA length
 * @paylen: the packet's payload bytes
 * @pad: its PadCnt
 *
 * Those of a WRITE and of an atomic (sroce_resp_access_nak(): the QP must
 * grant remote write; a misaligned address is an invalid request, as for
 * atomics), then the length: exactly 8 bytes named and carried, without
 * pad (oA19-28 as rdma_rxe cites it), else an invalid request.
 *
 * Return: 0 or the NAK code (SROCE_AETH_NAK_*).
 */
u8 sroce_resp_atomic_write_nak(int qp_access, u64 va, u32 len, u32 paylen,
			       u8 pad)
{
	const struct sroce_opcode_info *info =
		sroce_opcode_info(SROCE_OP_RC_ATOMIC_WRITE);
	u8 nak = sroce_resp_access_nak(info->flags, qp_access, va, len);

	if (nak)
		return nak;
	if (len != SROCE_ATOMIC_WRITE_BYTES ||
	    paylen != SROCE_ATOMIC_WRITE_BYTES || pad)
		return SROCE_AETH_NAK_INVALID_REQ;
	return 0;
}

/*
 * The NAK code for what sroce_rkey_access() returned for an ATOMIC WRITE:
 * the R_Key, its rights or bounds refused it (remote access error), or
 * the memory cannot take one 8-byte store (rdma_rxe's invalid request).
 */
u8 sroce_resp_atomic_write_key_nak(int err)
{
	if (!err)
		return 0;
	return err == -EACCES ? SROCE_AETH_NAK_REM_ACCESS_ERR :
				SROCE_AETH_NAK_INVALID_REQ;
}

/*
 * The opcode of the next READ response packet with @resid bytes left.
 * Every response stream opens with FIRST or ONLY, also one that answers a
 * READ reissued from a PSN inside an earlier one (9.7.5.1.3): that is a
 * new request for the rest, and a requester may refuse a stream that
 * opens with MIDDLE (rdma_rxe's completer takes FIRST or ONLY at the PSN
 * it asked again from).
 */
u8 sroce_resp_read_opcode(bool first, u32 resid, u32 mtu)
{
	if (resid <= mtu)
		return first ? SROCE_OP_RC_RDMA_READ_RESPONSE_ONLY :
			       SROCE_OP_RC_RDMA_READ_RESPONSE_LAST;
	return first ? SROCE_OP_RC_RDMA_READ_RESPONSE_FIRST :
		       SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE;
}

/* An ACK carries no credits: 11111b, as rdma_rxe sends (IBTA 9.7.5.1.5). */
u8 sroce_resp_syndrome_ack(void)
{
	return SROCE_AETH_ACK_UNLIMITED;
}

/* RNR NAK with the QP's min_rnr_timer code (IBTA vol 1 table 45). */
u8 sroce_resp_syndrome_rnr(u8 timer)
{
	return SROCE_AETH_TYPE_RNR_NAK | (timer & SROCE_AETH_VALUE_MASK);
}

u8 sroce_resp_syndrome_nak(u8 code)
{
	return SROCE_AETH_TYPE_NAK | (code & SROCE_AETH_VALUE_MASK);
}

/* @res, in use, answers @psn. */
static bool sroce_resp_res_holds(const struct sroce_resp_res *res, u32 psn)
{
	return res->type != SROCE_RESP_RES_FREE &&
	       sroce_psn_ge(psn, res->first_psn) &&
	       sroce_psn_le(psn, res->last_psn);
}

/**
 * sroce_resp_res_alloc() - the replay ring entry for a new READ or ATOMIC
 * @ring: SROCE_RESP_MAX_RES entries
 * @head: the next entry to recycle; advanced
 * @window: max_dest_rd_atomic as the request was admitted with, at least
 *          1; the requester keeps at most that many outstanding (C9-150),
 *          so older entries are no longer needed
 * @type: what the entry answers
 * @first_psn: its first PSN
 * @last_psn: its last PSN (a READ's last response packet)
 *
 * Every other entry whose PSNs meet the new one's is forgotten: it is from
 * before the PSN space wrapped, or left beyond a window that shrank, and a
 * duplicate of the new request must never be answered from it (an ATOMIC
 * would return another request's original value).
 *
 * Return: the entry, cleared but for @type and its PSNs.
 */
struct sroce_resp_res *sroce_resp_res_alloc(struct sroce_resp_res *ring,
					    u32 *head, u32 window,
					    enum sroce_resp_res_type type,
					    u32 first_psn, u32 last_psn)
{
	struct sroce_resp_res *res;
	int i;

	for (i = 0; i < SROCE_RESP_MAX_RES; i++) {
		res = &ring[i];
		if (sroce_resp_res_holds(res, first_psn) ||
		    (res->type != SROCE_RESP_RES_FREE &&
		     sroce_psn_ge(res->first_psn, first_psn) &&
		     sroce_psn_le(res->first_psn, last_psn)))
			res->type = SROCE_RESP_RES_FREE;
	}
	window = clamp_t(u32, window, 1, SROCE_RESP_MAX_RES);
	if (*head >= window)
		*head = 0;
	res = &ring[*head];
	*head = (*head + 1) % window;
	memset(res, 0, sizeof(*res));
	res->type = type;
	res->first_psn = first_psn;
	res->last_psn = last_psn;
	return res;
}

/* The entry of @type whose PSN range holds @psn, or NULL. */
struct sroce_resp_res *sroce_resp_res_find(struct sroce_resp_res *ring,
					   u32 psn,
					   enum sroce_resp_res_type type)
{
	int i;

	for (i = 0; i < SROCE_RESP_MAX_RES; i++)
		if (ring[i].type == type && sroce_resp_res_holds(&ring[i], psn))
			return &ring[i];
	return NULL;
}

/*
 * A repeated READ must ask for the same R_Key and for a part of what the
 * original asked for (9.7.5.1.3); anything else is not a duplicate of it.
 */
bool sroce_resp_read_replay_ok(const struct sroce_resp_res *res, u64 va,
			       u32 rkey, u32 len)
{
	return rkey == res->rkey && va >= res->va &&
	       va - res->va <= res->length &&
	       len <= res->length - (u32)(va - res->va);
}

/* ------------------------------------------------------------------------
 * Sending
 */

static struct sroce_counters *sroce_resp_cnt(struct sroce_qp *qp)
{
	return &to_sdev(qp->ibqp.device)->counters;
}

/*
 * Charge @truesize to a device's queued bytes @bytes if that stays within
 * @limit: true if it did. Exported for KUnit.
 */
bool sroce_resp_inq_charge(atomic_long_t *bytes, unsigned int truesize,
			   long limit)
{
	if (atomic_long_add_return(truesize, bytes) <= limit)
		return true;
	atomic_long_sub(truesize, bytes);
	return false;
}

static atomic_long_t *sroce_resp_inq_bytes(struct sroce_qp *qp)
{
	return &to_sdev(qp->ibqp.device)->resp_inq_bytes;
}

/* @skb leaves inq: its bytes are no longer queued. resp.lock held. */
static struct sk_buff *sroce_resp_inq_unlink(struct sroce_qp *qp,
					     struct sk_buff *skb)
{
	__skb_unlink(skb, &qp->resp.inq);
	atomic_long_sub(skb->truesize, sroce_resp_inq_bytes(qp));
	return skb;
}

/* The oldest request queued on inq, taken off it, or NULL. resp.lock held. */
static struct sk_buff *sroce_resp_inq_dequeue(struct sroce_qp *qp)
{
	struct sk_buff *skb = skb_peek(&qp->resp.inq);

	return skb ? sroce_resp_inq_unlink(qp, skb) : NULL;
}

/*
 * Move every request queued on inq to @list, for the caller to free after
 * unlocking. resp.lock held.
 */
static void sroce_resp_inq_splice(struct sroce_qp *qp,
				  struct sk_buff_head *list)
{
	struct sk_buff *skb;
	long bytes = 0;

	/* Nothing queued: the device is not touched (a KUnit QP has none). */
	if (skb_queue_empty(&qp->resp.inq))
		return;
	skb_queue_walk(&qp->resp.inq, skb)
		bytes += skb->truesize;
	atomic_long_sub(bytes, sroce_resp_inq_bytes(qp));
	skb_queue_splice_init(&qp->resp.inq, list);
}

static u32 sroce_resp_mtu(struct sroce_qp *qp)
{
	return max_t(u32, READ_ONCE(qp->mtu), SROCE_RESP_MIN_MTU);
}

static void sroce_resp_fill_bth(struct sroce_qp *qp, void *hdr, u8 opcode,
				u32 psn, u32 paylen)
{
	const struct sroce_bth_fields f = {
		.opcode	= opcode,
		.pad	= sroce_pkt_pad_bytes(paylen),
		.pkey	= SROCE_DEFAULT_PKEY,
		.qpn	= qp->attr.dest_qp_num,
		.psn	= psn,
	};

	sroce_pkt_build_hdrs(hdr, &f);
}

/*
 * An ACKNOWLEDGE (ACK or NAK) or an ATOMIC ACKNOWLEDGE. Returns -ENOBUFS
 * when the packet should be tried again later; any other failure is a loss
 * that the requester's retry recovers from.
 */
static int sroce_resp_send_ack(struct sroce_qp *qp, u8 opcode, u8 syndrome,
			       u32 psn, u32 msn, u64 orig)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);
	struct sk_buff *skb;
	void *hdr;

	skb = sroce_xmit_alloc(qp, info->hdr_len, 0, &hdr);
	if (!skb)
		return -ENOBUFS;
	sroce_resp_fill_bth(qp, hdr, opcode, psn, 0);
	sroce_aeth_set(hdr + sroce_opcode_hdr_offset(info, SROCE_HDR_AETH),
		       syndrome, msn);
	if (info->hdrs & SROCE_HDRF_ATMACK)
		sroce_atmack_set(hdr + sroce_opcode_hdr_offset(info,
							       SROCE_HDR_ATMACK),
				 orig);
	return sroce_xmit(qp, skb) == -ENOBUFS ? -ENOBUFS : 0;
}

/* Advance a READ response stream past @n packets of @paylen bytes sent. */
static void sroce_resp_read_sent(struct sroce_resp_out *o, u32 n, u32 paylen)
{
	o->first = false;
	o->va += (u64)n * paylen;
	o->resid -= n * paylen;
	o->psn = sroce_psn_add(o->psn, n);
}

/*
 * What a READ stream does when a packet's memory access failed with @err:
 * -ENODATA when an ODP page is being faulted in (the stream waits, see
 * sroce_resp_run()), -EACCES when the R_Key no longer grants it.
 */
static int sroce_resp_read_err(int err)
{
	return err == -EAGAIN ? -ENODATA : -EACCES;
}

/*
 * READ responses are this QP's data on the wire as much as its requests
 * are, and the CNPs that answer their CE marks reach this QP: they leave
 * at the rate its congestion control sets (req.cc), as a ConnectX
 * reaction point limits all a QP sends, requests and READ responses
 * sharing one rate. Returns 0 when the stream's next packet may go now,
 * with @one set when it must go alone (paced: a send train would leave
 * at once), or -EBUSY when it must wait until resp.pace_at. Runner only.
 */
static int sroce_resp_pace(struct sroce_qp *qp, bool *one)
{
	struct sroce_req *req = &qp->req;
	int err = 0;

	spin_lock_bh(&req->lock);
	*one = sroce_cc_paced(&req->cc);
	if (*one && !sroce_cc_may_send(&req->cc, ktime_get_ns())) {
		qp->resp.pace_at = sroce_cc_next_send_ns(&req->cc);
		err = -EBUSY;
	}
	spin_unlock_bh(&req->lock);
	return err;
}

/* @n READ response packets of @len bytes each (BTH to ICRC) went out. */
static void sroce_resp_charge(struct sroce_qp *qp, u32 n, unsigned int len)
{
	struct sroce_req *req = &qp->req;

	spin_lock_bh(&req->lock);
	if (sroce_cc_counts_tx(&req->cc))
		sroce_req_cc_charge(qp, len, n, ktime_get_ns());
	spin_unlock_bh(&req->lock);
}

/*
 * The next @n (at least 2) READ RESPONSE MIDDLE packets of a stream as one
 * send train (sroce_train.c); advances the stream once sent. Returns @n,
 * -ENOBUFS, -ENOMEM when no page fragment could be had for a packet (the
 * caller sends it alone), or, sending nothing, what sroce_resp_read_err()
 * says.
 */
static int sroce_resp_send_read_train(struct sroce_qp *qp,
				      struct sroce_resp_out *o, u32 n)
{
	u32 len = SROCE_BTH_BYTES + o->mtu + SROCE_ICRC_BYTES;
	struct sroce_mr_op op = {
		.kind = SROCE_MR_OP_FROM,
		.len = o->mtu,
	};
	struct sk_buff *skb;
	u8 *hdr;
	int err;
	u32 i;

	skb = sroce_xmit_alloc_train(qp);
	if (!skb)
		return -ENOBUFS;
	for (i = 0; i < n; i++) {
		hdr = sroce_train_add(skb, len);
		if (!hdr) {
			kfree_skb(skb);
			return -ENOMEM;
		}
		sroce_resp_fill_bth(qp, hdr, SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE,
				    sroce_psn_add(o->psn, i), o->mtu);
		op.buf = hdr + SROCE_BTH_BYTES;
		err = sroce_rkey_access(qp, o->rkey, IB_ACCESS_REMOTE_READ,
					o->va + (u64)i * o->mtu, &op);
		if (err) {
			kfree_skb(skb);
			return sroce_resp_read_err(err);
		}
	}
	if (sroce_xmit(qp, skb) == -ENOBUFS)
		return -ENOBUFS;
	sroce_resp_charge(qp, n, len);
	sroce_resp_read_sent(o, n, o->mtu);
	return n;
}

/*
 * The next packets of a READ response stream, at most @max of them, as a
 * send train where several MIDDLE packets follow; advances the stream once
 * sent. Returns the packets sent, -ENOBUFS, or, sending nothing, what
 * sroce_resp_read_err() says.
 */
static int sroce_resp_send_read(struct sroce_qp *qp, struct sroce_resp_out *o,
				int max)
{
	u8 opcode = sroce_resp_read_opcode(o->first, o->resid, o->mtu);
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);
	u32 paylen = min(o->resid, o->mtu);
	struct sk_buff *skb;
	u32 middles;
	void *hdr;
	u8 *pay;
	int ret;

	/* MIDDLEs carry a bare BTH and a whole MTU; the LAST is longer. */
	if (opcode == SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE) {
		middles = min3((o->resid - 1) / o->mtu, (u32)max,
			       sroce_train_max_pkts(SROCE_BTH_BYTES + o->mtu +
						    SROCE_ICRC_BYTES));
		if (middles >= 2 && sroce_train_wanted(qp)) {
			ret = sroce_resp_send_read_train(qp, o, middles);
			if (ret != -ENOMEM)
				return ret;
		}
	}

	skb = sroce_xmit_alloc(qp, info->hdr_len, paylen, &hdr);
	if (!skb)
		return -ENOBUFS;
	sroce_resp_fill_bth(qp, hdr, opcode, o->psn, paylen);
	if (info->hdrs & SROCE_HDRF_AETH)
		sroce_aeth_set(hdr + sroce_opcode_hdr_offset(info,
							     SROCE_HDR_AETH),
			       sroce_resp_syndrome_ack(), o->msn);
	pay = hdr + info->hdr_len;
	if (paylen) {
		struct sroce_mr_op op = {
			.kind = SROCE_MR_OP_FROM,
			.buf = pay,
			.len = paylen,
		};

		int err = sroce_rkey_access(qp, o->rkey, IB_ACCESS_REMOTE_READ,
					    o->va, &op);

		if (err) {
			kfree_skb(skb);
			return sroce_resp_read_err(err);
		}
	}
	memset(pay + paylen, 0, sroce_pkt_pad_bytes(paylen));

	if (sroce_xmit(qp, skb) == -ENOBUFS)
		return -ENOBUFS;
	sroce_resp_charge(qp, 1, info->hdr_len + paylen +
			  sroce_pkt_pad_bytes(paylen) + SROCE_ICRC_BYTES);
	sroce_resp_read_sent(o, 1, paylen);
	return 1;
}

static void sroce_resp_out_clear(struct sroce_resp_out *o)
{
	memset(o, 0, sizeof(*o));
}

static void sroce_resp_fatal(struct sroce_qp *qp, u32 psn, u8 code,
			     enum ib_wc_status status, enum sroce_counter cnt);

/*
 * The R_Key of a READ stream was revoked (or its memory shrank) in the
 * middle: the stream stops and the requester gets a remote access error
 * NAK at the PSN it waits for (class C, IBTA 9.9.3.1.3).
 */
static void sroce_resp_read_revoked(struct sroce_qp *qp)
{
	u32 psn = qp->resp.out.psn;

	sroce_resp_out_clear(&qp->resp.out);
	sroce_resp_fatal(qp, psn, SROCE_AETH_NAK_REM_ACCESS_ERR,
			 IB_WC_REM_ACCESS_ERR, SROCE_CNT_RESP_RKEY_VIOLATION);
}

/*
 * Send what is pending: the coalesced ACK first (it covers requests older
 * than anything in out), then out. Returns 0 when all went, -ENOBUFS when
 * the stack pushed back, -EAGAIN when the budget ran out, -EBUSY when the
 * QP's pacer holds a READ stream back until resp.pace_at.
 */
static int sroce_resp_output(struct sroce_qp *qp, int *budget)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_resp_out *o = &resp->out;
	int err;

	/* UC is unacknowledged: nothing goes back to the requester. */
	if (qp->ibqp.qp_type == IB_QPT_UC) {
		resp->ack_pending = false;
		sroce_resp_out_clear(o);
		return 0;
	}

	if (resp->ack_pending) {
		err = sroce_resp_send_ack(qp, SROCE_OP_RC_ACKNOWLEDGE,
					  sroce_resp_syndrome_ack(),
					  resp->ack_psn, resp->ack_msn, 0);
		if (err)
			return err;
		resp->ack_pending = false;
		(*budget)--;
	}

	switch (o->kind) {
	case SROCE_RESP_OUT_NAK:
		err = sroce_resp_send_ack(qp, SROCE_OP_RC_ACKNOWLEDGE,
					  o->syndrome, o->psn, o->msn, 0);
		break;
	case SROCE_RESP_OUT_ATOMIC_ACK:
		err = sroce_resp_send_ack(qp, SROCE_OP_RC_ATOMIC_ACKNOWLEDGE,
					  sroce_resp_syndrome_ack(), o->psn,
					  o->msn, o->orig);
		break;
	case SROCE_RESP_OUT_READ:
		do {
			bool one;

			if (*budget <= 0)
				return -EAGAIN;
			err = sroce_resp_pace(qp, &one);
			if (err)
				return err;
			err = sroce_resp_send_read(qp, o, one ? 1 : *budget);
			if (err == -EACCES) {
				/* The NAK that replaces it goes next. */
				sroce_resp_read_revoked(qp);
				return 0;
			}
			if (err < 0)
				return err;
			*budget -= err;
		} while (o->resid);
		err = 0;
		break;
	default:
		return 0;
	}
	if (err)
		return err;
	(*budget)--;
	sroce_resp_out_clear(o);
	return 0;
}

/* ------------------------------------------------------------------------
 * Receive WQEs and completions
 */

/*
 * Copy the next receive WQE into resp->rwqe; 0, -ENOENT or -EINVAL. From
 * the QP's RQ it is only peeked at (sroce_resp_complete() retires it);
 * from an SRQ it is taken at once, as other QPs share the ring.
 */
static int sroce_resp_fetch_wqe(struct sroce_qp *qp)
{
	unsigned long flags;
	int err;

	if (qp->ibqp.srq)
		return sroce_srq_fetch(to_ssrq(qp->ibqp.srq), qp->resp.rwqe);

	spin_lock_irqsave(&qp->rq.lock, flags);
	qp->resp.rwqe->wr_id = 0;
	err = sroce_rq_fetch(qp, qp->resp.rwqe);
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	return err;
}

/*
 * Retire the fetched WQE and post its completion. The ring slot is freed
 * before the completion is visible, so that an application that reposts a
 * receive as soon as it polls one always finds room (the WQE was copied).
 */
static int sroce_resp_complete(struct sroce_qp *qp, struct ib_wc *wc,
			       bool solicited)
{
	struct sroce_cq *cq = to_scq(qp->ibqp.recv_cq);
	unsigned long flags;

	if (!qp->ibqp.srq) {
		spin_lock_irqsave(&qp->rq.lock, flags);
		sroce_queue_advance_consumer(&qp->rq.queue);
		spin_unlock_irqrestore(&qp->rq.lock, flags);
	}

	wc->wr_id = qp->resp.rwqe->wr_id;
	wc->qp = &qp->ibqp;
	wc->src_qp = qp->attr.dest_qp_num;
	wc->port_num = 1;
	if (!cq->user && wc->status == IB_WC_SUCCESS) {
		/* Kernel users (e.g. rdma_cm) read the network header type. */
		wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = qp->av.family == AF_INET ?
				       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	}
	qp->resp.have_wqe = false;
	return sroce_cq_post(cq, wc, solicited);
}

static void sroce_resp_complete_ok(struct sroce_qp *qp,
				   const struct sroce_pkt *pkt,
				   enum ib_wc_opcode opcode, u32 byte_len)
{
	const struct sroce_immdt *immdt = sroce_pkt_immdt(pkt);
	struct ib_wc wc = {
		.status		= IB_WC_SUCCESS,
		.opcode		= opcode,
		.byte_len	= byte_len,
		/* rdma_rxe reports a GRH: RoCE always has the IP header. */
		.wc_flags	= IB_WC_GRH,
	};

	if (immdt) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = sroce_immdt_imm(immdt);
	}
	if (sroce_pkt_ieth(pkt)) {
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
		wc.ex.invalidate_rkey = sroce_ieth_rkey(sroce_pkt_ieth(pkt));
	}
	sroce_counter_inc(sroce_resp_cnt(qp), SROCE_CNT_RDMA_RECVS);
	/* IBTA 11.4.2.2: a CQ overrun is fatal to the QP (class G). */
	if (sroce_resp_complete(qp, &wc, sroce_bth_se(sroce_pkt_bth(pkt)))) {
		qp->resp.fatal = true;
		qp->resp.error_pending = true;
	}
}

static void sroce_resp_complete_err(struct sroce_qp *qp,
				    enum ib_wc_status status)
{
	struct ib_wc wc = {
		.status	= status,
		.opcode	= IB_WC_RECV,
	};

	sroce_resp_complete(qp, &wc, true);
}

/* ------------------------------------------------------------------------
 * Executing requests
 */

/**
 * sroce_resp_ack_due() - does the coalesced ACK go out now?
 * @pending: an ACK is owed
 * @queued: more requests wait to be executed
 * @executed: requests executed since the ACK became owed (counting the one
 *	      that made it so)
 *
 * At once when nothing waits; behind a backlog after SROCE_RESP_ACK_MAX
 * requests. Counting executed requests, not AckReqs: a responder short of
 * CPU works through a window of queued packets at its own pace, and must
 * answer an AckReq within a few packets' work, or the requester's
 * retransmit timer runs out while the data is still arriving.
 */
bool sroce_resp_ack_due(bool pending, bool queued, u32 executed)
{
	return pending && (!queued || executed >= SROCE_RESP_ACK_MAX);
}

static void sroce_resp_queue_ack(struct sroce_resp *resp, u32 psn)
{
	if (!resp->ack_pending)
		resp->ack_count = 0;
	resp->ack_pending = true;
	resp->ack_psn = psn;
	resp->ack_msn = resp->msn;
}

static void sroce_resp_queue_nak(struct sroce_resp *resp, u8 syndrome,
				 u32 psn)
{
	resp->out.kind = SROCE_RESP_OUT_NAK;
	resp->out.syndrome = syndrome;
	resp->out.psn = psn;
	resp->out.msn = resp->msn;
}

/*
 * A class A or C error (IBTA vol 1 9.9.3.1): the request is NAKed, the
 * receive WQE in progress completes with @status, and the QP goes to ERR
 * once the NAK is out.
 */
static void sroce_resp_fatal(struct sroce_qp *qp, u32 psn, u8 code,
			     enum ib_wc_status status, enum sroce_counter cnt)
{
	struct sroce_resp *resp = &qp->resp;

	sroce_counter_inc(sroce_resp_cnt(qp), cnt);
	if (resp->have_wqe)
		sroce_resp_complete_err(qp, status);
	resp->msg = SROCE_RESP_MSG_NONE;
	sroce_resp_queue_nak(resp, sroce_resp_syndrome_nak(code), psn);
	resp->fatal = true;
	resp->error_pending = true;
}

/*
 * UC: forget the message in progress; a receive WQE it was filling stays
 * fetched and takes the next message (it completes only with a message).
 */
static void sroce_resp_uc_abandon(struct sroce_qp *qp)
{
	qp->resp.msg = SROCE_RESP_MSG_NONE;
}

/*
 * UC: a request that RC would NAK (no receive WQE, an invalid request, an
 * access violation) loses its message silently (IBTA vol 1 9.8: no NAKs on
 * UC); the rest of the message is dropped too.
 */
static void sroce_resp_uc_lost(struct sroce_qp *qp,
			       const struct sroce_pkt *pkt,
			       enum sroce_counter cnt)
{
	sroce_counter_inc(sroce_resp_cnt(qp), cnt);
	sroce_resp_uc_abandon(qp);
	qp->resp.uc_drop = true;
	qp->resp.psn = sroce_psn_add(pkt->psn, 1);
}

static void sroce_resp_invalid(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	if (qp->ibqp.qp_type == IB_QPT_UC) {
		sroce_resp_uc_lost(qp, pkt, SROCE_CNT_RESP_INVALID_REQ);
		return;
	}
	sroce_resp_fatal(qp, pkt->psn, SROCE_AETH_NAK_INVALID_REQ,
			 IB_WC_REM_INV_REQ_ERR, SROCE_CNT_RESP_INVALID_REQ);
}

static void sroce_resp_access_err(struct sroce_qp *qp,
				  const struct sroce_pkt *pkt)
{
	if (qp->ibqp.qp_type == IB_QPT_UC) {
		sroce_resp_uc_lost(qp, pkt, SROCE_CNT_RESP_RKEY_VIOLATION);
		return;
	}
	sroce_resp_fatal(qp, pkt->psn, SROCE_AETH_NAK_REM_ACCESS_ERR,
			 IB_WC_REM_ACCESS_ERR, SROCE_CNT_RESP_RKEY_VIOLATION);
}

/*
 * A page of an ODP MR the request names is being faulted in: RC runs the
 * request again later (sroce_resp_process()); UC, which cannot wait for
 * a page with the packets behind it still coming, loses the message.
 */
static void sroce_resp_odp_miss(struct sroce_qp *qp,
				const struct sroce_pkt *pkt)
{
	if (qp->ibqp.qp_type == IB_QPT_UC)
		sroce_resp_uc_lost(qp, pkt, SROCE_CNT_RESP_DROPPED);
	else
		qp->resp.odp_wait = true;
}

/* No receive WQE: RNR NAK (class B), the requester retries the packet. */
static void sroce_resp_rnr(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	struct sroce_resp *resp = &qp->resp;

	if (qp->ibqp.qp_type == IB_QPT_UC) {
		sroce_resp_uc_lost(qp, pkt, SROCE_CNT_RESP_DROPPED);
		return;
	}
	sroce_counter_inc(sroce_resp_cnt(qp), SROCE_CNT_RESP_RNR_NAK);
	sroce_resp_queue_nak(resp,
			     sroce_resp_syndrome_rnr(qp->attr.min_rnr_timer),
			     pkt->psn);
	/*
	 * Like a sequence error NAK, the RNR NAK makes the requester resend
	 * from this PSN: the packets already behind it are dropped quietly
	 * rather than answered with a sequence error that would cut the
	 * RNR wait short.
	 */
	resp->nak_sent = true;
}

/* Fetch a receive WQE for a message that needs one; false if none (NAKed). */
static bool sroce_resp_get_wqe(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	struct sroce_resp *resp = &qp->resp;
	/* UC reuses the WQE of a message it abandoned. */
	int err = resp->have_wqe ? 0 : sroce_resp_fetch_wqe(qp);

	if (err == -ENOENT) {
		sroce_resp_rnr(qp, pkt);
		return false;
	}
	if (err) {
		/* A malformed WQE is the responder's local QP error (class A). */
		resp->have_wqe = true;
		sroce_resp_fatal(qp, pkt->psn, SROCE_AETH_NAK_REM_OP_ERR,
				 IB_WC_LOC_QP_OP_ERR, SROCE_CNT_RESP_REM_OP_ERR);
		return false;
	}
	resp->have_wqe = true;
	sroce_sge_cursor_init(&resp->cursor, resp->rwqe->sge,
			      resp->rwqe->num_sge);
	resp->recv_len = 0;
	return true;
}

/* Does @rkey grant @access over [@va, @va + @len) at this moment? */
static bool sroce_resp_rkey_ok(struct sroce_qp *qp, u32 rkey, int access,
			       u64 va, u32 len)
{
	struct sroce_mr_op op = { .kind = SROCE_MR_OP_CHECK, .len = len };

	return !sroce_rkey_access(qp, rkey, access, va, &op);
}

/* Accept an executed packet: advance ePSN, count messages, ACK. */
static void sroce_resp_done(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	struct sroce_resp *resp = &qp->resp;
	u16 opflags = pkt->info->flags;

	resp->psn = sroce_psn_add(pkt->psn, 1);
	resp->ack_last = pkt->psn;
	if (opflags & SROCE_OPF_LAST)
		resp->msn++;
	/*
	 * rdma_rxe's requester sets AckReq on the last packet of each message
	 * and every few packets; answering AckReq and LAST covers it and any
	 * requester that only relies on the end of the message.
	 */
	if ((opflags & SROCE_OPF_LAST) ||
	    sroce_bth_ack_req(sroce_pkt_bth(pkt)))
		sroce_resp_queue_ack(resp, pkt->psn);
}

static void sroce_resp_exec_send(struct sroce_qp *qp,
				 const struct sk_buff *skb,
				 const struct sroce_pkt *pkt)
{
	struct sroce_resp *resp = &qp->resp;
	u16 opflags = pkt->info->flags;
	int err;

	if (!sroce_resp_send_len_ok(opflags, pkt->paylen, sroce_resp_mtu(qp))) {
		sroce_resp_invalid(qp, pkt);
		return;
	}
	if ((opflags & SROCE_OPF_FIRST) && !sroce_resp_get_wqe(qp, pkt))
		return;

	err = sroce_sge_copy_skb(to_sdev(qp->ibqp.device), sroce_qp_recv_pd(qp),
				 &resp->cursor, skb,
				 sroce_recv_payload_off(skb, pkt), pkt->paylen,
				 IB_ACCESS_LOCAL_WRITE);
	if (err == -EAGAIN) {
		sroce_resp_odp_miss(qp, pkt);
		return;
	}
	if (err == -EINVAL && qp->ibqp.qp_type == IB_QPT_UC) {
		/*
		 * The peer's message does not fit the WQE: on UC it is lost
		 * and the WQE kept for the next one, as other errors a peer
		 * causes (rdma_rxe drops it too); the QP lives on.
		 */
		sroce_resp_uc_lost(qp, pkt, SROCE_CNT_RESP_INVALID_REQ);
		return;
	}
	if (err == -EINVAL) {
		/* The message does not fit the WQE (C10-98?: local length). */
		sroce_resp_fatal(qp, pkt->psn, SROCE_AETH_NAK_INVALID_REQ,
				 IB_WC_LOC_LEN_ERR, SROCE_CNT_RESP_INVALID_REQ);
		return;
	}
	if (err) {
		sroce_resp_fatal(qp, pkt->psn, SROCE_AETH_NAK_REM_OP_ERR,
				 IB_WC_LOC_PROT_ERR, SROCE_CNT_RESP_REM_OP_ERR);
		return;
	}
	resp->recv_len += pkt->paylen;

	/*
	 * SEND with Invalidate: once the message is placed, invalidate the
	 * R_Key (IBTA 10.6.6.2, sroce_invalidate_key()); one that cannot be
	 * invalidated makes the request invalid.
	 */
	if (sroce_pkt_ieth(pkt) &&
	    sroce_invalidate_key(qp, sroce_ieth_rkey(sroce_pkt_ieth(pkt)),
				 true)) {
		sroce_resp_invalid(qp, pkt);
		return;
	}

	if (opflags & SROCE_OPF_LAST) {
		resp->msg = SROCE_RESP_MSG_NONE;
		sroce_resp_complete_ok(qp, pkt, IB_WC_RECV, resp->recv_len);
	} else {
		resp->msg = SROCE_RESP_MSG_SEND;
	}
	sroce_resp_done(qp, pkt);
}

static void sroce_resp_exec_write(struct sroce_qp *qp,
				  const struct sk_buff *skb,
				  const struct sroce_pkt *pkt)
{
	const struct sroce_reth *reth = sroce_pkt_reth(pkt);
	struct sroce_resp *resp = &qp->resp;
	u16 opflags = pkt->info->flags;
	bool imm = sroce_pkt_immdt(pkt);
	int err;

	if (reth) {
		u64 va = sroce_reth_va(reth);
		u32 len = sroce_reth_len(reth);
		u8 nak;

		nak = sroce_resp_access_nak(opflags, qp->attr.qp_access_flags,
					    va, len);
		if (nak == SROCE_AETH_NAK_REM_ACCESS_ERR) {
			sroce_resp_access_err(qp, pkt);
			return;
		}
		if (nak) {
			sroce_resp_invalid(qp, pkt);
			return;
		}
		/*
		 * A zero-length WRITE names no memory (IBTA 9.4.3). A FIRST
		 * checks the whole message now, so that a bad R_Key or range
		 * lands nothing; each packet is checked again as it lands.
		 */
		if (len && !(opflags & SROCE_OPF_LAST) &&
		    !sroce_resp_rkey_ok(qp, sroce_reth_rkey(reth),
					IB_ACCESS_REMOTE_WRITE, va, len)) {
			sroce_resp_access_err(qp, pkt);
			return;
		}
		resp->wr_rkey = sroce_reth_rkey(reth);
		resp->wr_va = va;
		resp->wr_resid = len;
		resp->wr_len = len;
	}

	if (!sroce_resp_write_len_ok(opflags, resp->wr_resid, pkt->paylen,
				     sroce_resp_mtu(qp))) {
		sroce_resp_invalid(qp, pkt);
		return;
	}

	/*
	 * WRITE with immediate consumes a receive WQE at its last packet;
	 * without one, RNR NAK before any of that packet's data lands, so
	 * the retried packet finds the write exactly where it was.
	 */
	if (imm && !sroce_resp_get_wqe(qp, pkt))
		return;

	if (pkt->paylen) {
		struct sroce_mr_op op = {
			.kind = SROCE_MR_OP_TO,
			.skb = skb,
			.skb_off = sroce_recv_payload_off(skb, pkt),
			.len = pkt->paylen,
		};

		/*
		 * The QP's remote write right or the key may have been
		 * revoked since the last packet.
		 */
		if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE))
			err = -EACCES;
		else
			err = sroce_rkey_access(qp, resp->wr_rkey,
						IB_ACCESS_REMOTE_WRITE,
						resp->wr_va, &op);
		if (err == -EAGAIN) {
			sroce_resp_odp_miss(qp, pkt);
			return;
		}
		if (err) {
			sroce_resp_access_err(qp, pkt);
			return;
		}
		resp->wr_va += pkt->paylen;
		resp->wr_resid -= pkt->paylen;
	}

	if (opflags & SROCE_OPF_LAST) {
		resp->msg = SROCE_RESP_MSG_NONE;
		if (imm)
			sroce_resp_complete_ok(qp, pkt,
					       IB_WC_RECV_RDMA_WITH_IMM,
					       resp->wr_len);
	} else {
		resp->msg = SROCE_RESP_MSG_WRITE;
	}
	sroce_resp_done(qp, pkt);
}

static u32 sroce_resp_window(struct sroce_qp *qp)
{
	return min_t(u32, READ_ONCE(qp->attr.max_dest_rd_atomic),
		     SROCE_RESP_MAX_RES);
}

/* Start a READ response stream from @va, opening with FIRST or ONLY. */
static void sroce_resp_start_read(struct sroce_qp *qp, u32 rkey, u32 psn,
				  u64 va, u32 len)
{
	struct sroce_resp_out *o = &qp->resp.out;

	o->kind = SROCE_RESP_OUT_READ;
	o->rkey = rkey;
	o->psn = psn;
	/* C9-148: the MSN counts a READ when it is executed. */
	o->msn = qp->resp.msn;
	o->va = va;
	o->resid = len;
	o->mtu = sroce_resp_mtu(qp);
	o->first = true;
}

/*
 * The checks a READ or ATOMIC request passes before it takes a responder
 * resource; on failure the NAK has been sent. Without responder resources
 * at all (@window: sroce_resp_window() read once for the request, as a
 * modify in SQD may change it meanwhile) the request is invalid (C9-150).
 */
static bool sroce_resp_rd_atomic_ok(struct sroce_qp *qp,
				    const struct sroce_pkt *pkt, u64 va, u32 len,
				    u32 window)
{
	u8 nak = sroce_resp_access_nak(pkt->info->flags,
				       qp->attr.qp_access_flags, va, len);

	if (nak == SROCE_AETH_NAK_REM_ACCESS_ERR) {
		sroce_resp_access_err(qp, pkt);
		return false;
	}
	if (nak || !window) {
		sroce_resp_invalid(qp, pkt);
		return false;
	}
	return true;
}

static void sroce_resp_exec_read(struct sroce_qp *qp,
				 const struct sroce_pkt *pkt)
{
	const struct sroce_reth *reth = sroce_pkt_reth(pkt);
	struct sroce_resp *resp = &qp->resp;
	u64 va = sroce_reth_va(reth);
	u32 rkey = sroce_reth_rkey(reth);
	u32 len = sroce_reth_len(reth);
	u32 window = sroce_resp_window(qp);
	struct sroce_resp_res *res;
	u32 npkts;

	if (!sroce_resp_rd_atomic_ok(qp, pkt, va, len, window))
		return;
	if (!sroce_resp_read_len_ok(len, sroce_resp_mtu(qp))) {
		sroce_resp_invalid(qp, pkt);
		return;
	}
	/* A zero-length READ names no memory (IBTA 9.4.3). */
	if (len && !sroce_resp_rkey_ok(qp, rkey, IB_ACCESS_REMOTE_READ, va,
				       len)) {
		sroce_resp_access_err(qp, pkt);
		return;
	}

	npkts = sroce_seg_npkts(len, sroce_resp_mtu(qp));
	res = sroce_resp_res_alloc(resp->res, &resp->res_head, window,
				   SROCE_RESP_RES_READ, pkt->psn,
				   sroce_psn_add(pkt->psn, npkts - 1));
	res->rkey = rkey;
	res->length = len;
	res->va = va;

	/* A READ takes one PSN per response packet (9.7.1.1.1). */
	resp->psn = sroce_psn_add(res->last_psn, 1);
	resp->msn++;
	sroce_resp_start_read(qp, rkey, pkt->psn, va, len);
}

static void sroce_resp_exec_atomic(struct sroce_qp *qp,
				   const struct sroce_pkt *pkt)
{
	const struct sroce_atmeth *ae = sroce_pkt_atmeth(pkt);
	struct sroce_resp *resp = &qp->resp;
	u64 va = sroce_atmeth_va(ae);
	struct sroce_mr_op op = {
		.kind = pkt->opcode == SROCE_OP_RC_COMPARE_SWAP ?
			SROCE_MR_OP_CMP_SWAP : SROCE_MR_OP_FETCH_ADD,
		.len = sizeof(u64),
		.compare = sroce_atmeth_compare(ae),
		.swap_add = sroce_atmeth_swap_add(ae),
	};
	u32 window = sroce_resp_window(qp);
	struct sroce_resp_res *res;
	u64 orig;
	int err;

	if (!sroce_resp_rd_atomic_ok(qp, pkt, va, sizeof(u64), window))
		return;
	err = sroce_rkey_access(qp, sroce_atmeth_rkey(ae),
				IB_ACCESS_REMOTE_ATOMIC, va, &op);
	if (err == -EAGAIN) {
		sroce_resp_odp_miss(qp, pkt);
		return;
	}
	/* Aligned iova, misaligned memory: invalid, as for ATOMIC WRITE. */
	if (err == -EINVAL) {
		sroce_resp_invalid(qp, pkt);
		return;
	}
	if (err) {
		sroce_resp_access_err(qp, pkt);
		return;
	}
	orig = op.orig;

	res = sroce_resp_res_alloc(resp->res, &resp->res_head, window,
				   SROCE_RESP_RES_ATOMIC, pkt->psn, pkt->psn);
	res->orig = orig;

	resp->psn = sroce_psn_add(pkt->psn, 1);
	resp->msn++;
	resp->out.kind = SROCE_RESP_OUT_ATOMIC_ACK;
	resp->out.psn = pkt->psn;
	resp->out.msn = resp->msn;
	resp->out.orig = orig;
}

/*
 * RDMA ATOMIC WRITE (IBTA 1.5): the checks of sroce_resp_atomic_write_nak()
 * (a misaligned address is an invalid request NAK, class C, C9-36.2.1 as
 * for atomics), then the R_Key for remote write and the one 8-byte store
 * (sroce_mr_run()); every failure NAKs and moves the QP to ERR. It takes a
 * responder resource like an atomic, and is answered as rdma_rxe (6.2 on)
 * answers it: an RDMA READ RESPONSE ONLY without payload, which its
 * requester (and sroce's) take as the end of the operation.
 */
static void sroce_resp_exec_atomic_write(struct sroce_qp *qp,
					 const struct sk_buff *skb,
					 const struct sroce_pkt *pkt)
{
	const struct sroce_reth *reth = sroce_pkt_reth(pkt);
	struct sroce_resp *resp = &qp->resp;
	u64 va = sroce_reth_va(reth);
	struct sroce_mr_op op = {
		.kind = SROCE_MR_OP_ATOMIC_WRITE,
		.len = SROCE_ATOMIC_WRITE_BYTES,
	};
	u32 window = sroce_resp_window(qp);
	int err;
	u8 nak;

	nak = sroce_resp_atomic_write_nak(qp->attr.qp_access_flags, va,
					  sroce_reth_len(reth), pkt->paylen,
					  sroce_bth_pad(sroce_pkt_bth(pkt)));
	/* No responder resources at all: invalid (C9-150), as for a READ. */
	if (!nak && !window)
		nak = SROCE_AETH_NAK_INVALID_REQ;
	/* The payload is data, copied as it came, like a WRITE's. */
	if (!nak && skb_copy_bits(skb, sroce_recv_payload_off(skb, pkt),
				  &op.swap_add, sizeof(op.swap_add)))
		nak = SROCE_AETH_NAK_INVALID_REQ;
	if (!nak) {
		err = sroce_rkey_access(qp, sroce_reth_rkey(reth),
					IB_ACCESS_REMOTE_WRITE, va, &op);
		if (err == -EAGAIN) {
			sroce_resp_odp_miss(qp, pkt);
			return;
		}
		nak = sroce_resp_atomic_write_key_nak(err);
	}
	if (nak == SROCE_AETH_NAK_REM_ACCESS_ERR) {
		sroce_resp_access_err(qp, pkt);
		return;
	}
	if (nak) {
		sroce_resp_invalid(qp, pkt);
		return;
	}

	sroce_resp_res_alloc(resp->res, &resp->res_head, window,
			     SROCE_RESP_RES_ATOMIC_WRITE, pkt->psn, pkt->psn);

	resp->psn = sroce_psn_add(pkt->psn, 1);
	resp->msn++;
	sroce_resp_start_read(qp, 0, pkt->psn, 0, 0);
}

/*
 * A request behind ePSN (IBTA vol 1 9.7.5.1.3): SEND and WRITE are ACKed
 * again with the PSN of the newest SEND or WRITE executed (C9-105; an ACK
 * never names a READ's or an ATOMIC's PSN, which would end that READ or
 * ATOMIC at the requester without its data), a READ is executed again
 * from the saved request, an ATOMIC is answered from the replay ring and
 * never executed twice (C9-151), and so is an ATOMIC WRITE, answered
 * again with its empty READ RESPONSE. Duplicates that match nothing kept
 * are dropped (class D).
 */
static void sroce_resp_duplicate(struct sroce_qp *qp,
				 const struct sroce_pkt *pkt)
{
	struct sroce_resp *resp = &qp->resp;
	u16 opflags = pkt->info->flags;
	struct sroce_resp_res *res;

	sroce_counter_inc(sroce_resp_cnt(qp), SROCE_CNT_RESP_DUPLICATE);

	/* Refused when it was new: nothing was executed to answer again. */
	if (opflags & SROCE_OPF_UNSUPPORTED)
		return;

	if (pkt->opcode == SROCE_OP_RC_ATOMIC_WRITE) {
		if (sroce_resp_res_find(resp->res, pkt->psn,
					SROCE_RESP_RES_ATOMIC_WRITE))
			sroce_resp_start_read(qp, 0, pkt->psn, 0, 0);
		return;
	}

	if (opflags & (SROCE_OPF_SEND | SROCE_OPF_WRITE)) {
		sroce_resp_queue_ack(resp, resp->ack_last);
		return;
	}

	if (opflags & SROCE_OPF_READ) {
		const struct sroce_reth *reth = sroce_pkt_reth(pkt);
		u64 va = sroce_reth_va(reth);
		u32 rkey = sroce_reth_rkey(reth);
		u32 len = sroce_reth_len(reth);

		res = sroce_resp_res_find(resp->res, pkt->psn,
					  SROCE_RESP_RES_READ);
		if (!res || !sroce_resp_read_replay_ok(res, va, rkey, len))
			return;
		/*
		 * The QP's remote read right or the key may have been revoked
		 * since: check them all again.
		 */
		if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_READ) ||
		    (len && !sroce_resp_rkey_ok(qp, rkey, IB_ACCESS_REMOTE_READ,
						va, len))) {
			sroce_resp_access_err(qp, pkt);
			return;
		}
		sroce_resp_start_read(qp, rkey, pkt->psn, va, len);
		return;
	}

	res = sroce_resp_res_find(resp->res, pkt->psn, SROCE_RESP_RES_ATOMIC);
	if (!res)
		return;
	resp->out.kind = SROCE_RESP_OUT_ATOMIC_ACK;
	resp->out.psn = pkt->psn;
	resp->out.msn = resp->msn;
	resp->out.orig = res->orig;
}

/* UC: may this request be executed? Drops (and counts) it if not. */
static bool sroce_resp_uc_admit(struct sroce_qp *qp,
				const struct sroce_pkt *pkt)
{
	struct sroce_counters *cnt = sroce_resp_cnt(qp);
	struct sroce_resp *resp = &qp->resp;

	switch (sroce_resp_uc_check(pkt->psn, resp->psn, resp->msg,
				    pkt->info->flags, &resp->uc_drop)) {
	case SROCE_RESP_UC_EXECUTE:
		return true;
	case SROCE_RESP_UC_RESYNC:
		sroce_counter_inc(cnt, SROCE_CNT_RESP_OUT_OF_SEQ);
		sroce_resp_uc_abandon(qp);
		resp->psn = pkt->psn;
		return true;
	case SROCE_RESP_UC_ABANDON:
		sroce_counter_inc(cnt, SROCE_CNT_RESP_OUT_OF_SEQ);
		sroce_resp_uc_abandon(qp);
		return false;
	case SROCE_RESP_UC_DUPLICATE:
		sroce_counter_inc(cnt, SROCE_CNT_RESP_DUPLICATE);
		return false;
	default:
		/* In step with the sender while dropping: no resync later. */
		if (pkt->psn == resp->psn)
			resp->psn = sroce_psn_add(pkt->psn, 1);
		sroce_counter_inc(cnt, SROCE_CNT_RESP_DROPPED);
		return false;
	}
}

static bool sroce_resp_state_ok(struct sroce_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);

	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD || state == IB_QPS_SQE;
}

/*
 * Execute one request packet. Runner only. Consumes @skb and returns true,
 * or returns false, with nothing executed, when a page of an ODP MR the
 * request names is being faulted in: the runner runs it again later.
 */
static bool sroce_resp_process(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = (const struct sroce_pkt *)skb->cb;
	struct sroce_counters *cnt = sroce_resp_cnt(qp);
	struct sroce_resp *resp = &qp->resp;
	u16 opflags = pkt->info->flags;

	if (sroce_ud_qp(qp)) {
		sroce_ud_resp_process(qp, skb);
		return true;
	}
	if (resp->fatal || !sroce_resp_state_ok(qp) ||
	    (pkt->opcode & SROCE_OP_TRANSPORT_MASK) !=
	    (qp->ibqp.qp_type == IB_QPT_UC ? SROCE_TRANSPORT_UC :
					     SROCE_TRANSPORT_RC)) {
		sroce_counter_inc(cnt, SROCE_CNT_RESP_DROPPED);
		goto out;
	}

	if (qp->ibqp.qp_type == IB_QPT_UC) {
		if (!sroce_resp_uc_admit(qp, pkt))
			goto out;
		if (opflags & SROCE_OPF_SEND)
			sroce_resp_exec_send(qp, skb, pkt);
		else
			sroce_resp_exec_write(qp, skb, pkt);
		goto out;
	}

	switch (sroce_resp_psn_check(pkt->psn, resp->psn, &resp->nak_sent)) {
	case SROCE_RESP_PSN_EXECUTE:
		break;
	case SROCE_RESP_PSN_DUPLICATE:
		sroce_resp_duplicate(qp, pkt);
		goto out;
	case SROCE_RESP_PSN_NAK_SEQ:
		/* Class B: NAK once with the PSN we expect (C9-114). */
		sroce_counter_inc(cnt, SROCE_CNT_RESP_OUT_OF_SEQ);
		sroce_resp_queue_nak(resp,
				     sroce_resp_syndrome_nak(SROCE_AETH_NAK_PSN_SEQ_ERR),
				     resp->psn);
		goto out;
	case SROCE_RESP_PSN_DROP:
		/* Counted as rdma_rxe does: out_of_seq_request once per NAK. */
		sroce_counter_inc(cnt, SROCE_CNT_RESP_DROPPED);
		goto out;
	}

	if (!sroce_resp_opseq_ok(resp->msg, opflags)) {
		sroce_resp_invalid(qp, pkt);
		goto out;
	}

	if (opflags & SROCE_OPF_UNSUPPORTED)
		sroce_resp_invalid(qp, pkt);
	else if (opflags & SROCE_OPF_SEND)
		sroce_resp_exec_send(qp, skb, pkt);
	else if (pkt->opcode == SROCE_OP_RC_ATOMIC_WRITE)
		sroce_resp_exec_atomic_write(qp, skb, pkt);
	else if (opflags & SROCE_OPF_WRITE)
		sroce_resp_exec_write(qp, skb, pkt);
	else if (opflags & SROCE_OPF_READ)
		sroce_resp_exec_read(qp, pkt);
	else
		sroce_resp_exec_atomic(qp, pkt);
	if (resp->odp_wait) {
		resp->odp_wait = false;
		return false;
	}
out:
	consume_skb(skb);
	return true;
}

/* ------------------------------------------------------------------------
 * The runner
 */

/* Forget the execution state; runner only (or nobody running). */
static void sroce_resp_reset(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	sroce_resp_out_clear(&resp->out);
	resp->psn = resp->start_psn;
	resp->ack_last = sroce_psn_add(resp->psn, -1);
	resp->msn = 0;
	resp->nak_sent = false;
	resp->fatal = false;
	resp->error_pending = false;
	resp->msg = SROCE_RESP_MSG_NONE;
	resp->uc_drop = false;
	resp->have_wqe = false;
	resp->ack_pending = false;
	memset(resp->res, 0, SROCE_RESP_MAX_RES * sizeof(*resp->res));
	resp->res_head = 0;
}

static void sroce_resp_last_wqe(struct sroce_qp *qp)
{
	struct ib_event ev = {
		.device		= qp->ibqp.device,
		.element.qp	= &qp->ibqp,
		.event		= IB_EVENT_QP_LAST_WQE_REACHED,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/*
 * Complete every posted receive WQE as flushed (IBTA 10.3.1: in ERR all
 * outstanding work completes with flush errors). Bounded by the ring size
 * so that a producer posting concurrently cannot keep us here.
 */
static void sroce_resp_do_flush(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	u32 n = qp->rq.queue.index_mask + 1;
	struct sk_buff_head drop;
	struct ib_wc wc;

	__skb_queue_head_init(&drop);
	spin_lock_bh(&resp->lock);
	sroce_resp_inq_splice(qp, &drop);
	spin_unlock_bh(&resp->lock);
	__skb_queue_purge(&drop);

	sroce_resp_out_clear(&resp->out);
	resp->ack_pending = false;
	resp->msg = SROCE_RESP_MSG_NONE;
	resp->fatal = true;

	/*
	 * IBTA 10.3.1 and 11.6.3: the WQEs still in an SRQ belong to no QP
	 * and are not flushed; only the one this QP took completes, and the
	 * consumer learns that no more will (Last WQE Reached).
	 */
	if (qp->ibqp.srq) {
		if (resp->have_wqe) {
			wc = (struct ib_wc){
				.status	= IB_WC_WR_FLUSH_ERR,
				.opcode	= IB_WC_RECV,
			};
			sroce_resp_complete(qp, &wc, true);
		}
		sroce_resp_last_wqe(qp);
		n = 0;
	}

	while (n--) {
		int err = sroce_resp_fetch_wqe(qp);

		if (err == -ENOENT)
			break;
		wc = (struct ib_wc){
			.status	= IB_WC_WR_FLUSH_ERR,
			.opcode	= IB_WC_RECV,
		};
		sroce_resp_complete(qp, &wc, true);
	}
	resp->have_wqe = false;
}

/*
 * The local stack refused what is pending for longer than the back-off
 * allows: drop it as if the wire had lost it. The requester's retransmit
 * timer recovers every kind: a lost ACK or NAK is answered again, a READ
 * is executed again, an ATOMIC answered from the replay ring.
 */
static void sroce_resp_give_up(struct sroce_qp *qp)
{
	sroce_counter_inc(sroce_resp_cnt(qp), SROCE_CNT_XMIT_GAVE_UP);
	qp->resp.ack_pending = false;
	sroce_resp_out_clear(&qp->resp.out);
}

/*
 * Keep ownership and continue from the work item: at once when the budget
 * ran out, after sroce_xmit_backoff() when the stack pushed back, or at
 * @at (ns, CLOCK_MONOTONIC; not 0) through the pace timer.
 */
static void __sroce_resp_defer(struct sroce_qp *qp, struct sk_buff *skb,
			       unsigned long delay, u64 at)
{
	struct sroce_resp *resp = &qp->resp;

	spin_lock_bh(&resp->lock);
	if (resp->ctl & SROCE_RESP_CTL_DEAD) {
		resp->running = false;
		spin_unlock_bh(&resp->lock);
		kfree_skb(skb);
		return;
	}
	/* Back at the head, within the bound or not: it was queued before. */
	if (skb) {
		__skb_queue_head(&resp->inq, skb);
		atomic_long_add(skb->truesize, sroce_resp_inq_bytes(qp));
	}
	if (at)
		hrtimer_start(&resp->pace_timer, ns_to_ktime(at),
			      HRTIMER_MODE_ABS);
	else
		mod_delayed_work(system_highpri_wq, &resp->work, delay);
	spin_unlock_bh(&resp->lock);
}

static void sroce_resp_defer(struct sroce_qp *qp, struct sk_buff *skb,
			     unsigned long delay)
{
	__sroce_resp_defer(qp, skb, delay, 0);
}

/* Hard IRQ: the runner may not run here, its work item runs it. */
static enum hrtimer_restart sroce_resp_pace_timer(struct hrtimer *t)
{
	struct sroce_resp *resp = container_of(t, struct sroce_resp,
					       pace_timer);

	mod_delayed_work(system_highpri_wq, &resp->work, 0);
	return HRTIMER_NORESTART;
}

/* A READ asked again: a READ request behind ePSN (@epsn). */
bool sroce_resp_is_reask(u16 opflags, u32 psn, u32 epsn)
{
	const u16 read_req = SROCE_OPF_REQ | SROCE_OPF_READ;

	return (opflags & read_req) == read_req && sroce_psn_lt(psn, epsn);
}

/*
 * A READ asked again while a READ response stream goes out: the requester
 * lost a response and went back (go-back-N, IBTA 9.7.5.1.3). Whatever the
 * stream would still send lies past that loss, as do the answers to the
 * requests queued before the re-ask, and the requester drops them all. So
 * the first duplicate READ in inq is taken ahead of them: the stream
 * restarts where the requester waits now, not once stream and queue have
 * drained. On a slow responder that drain outlasts the requester's
 * timeout, and every timeout's probe queues one more duplicate behind it,
 * each restarting the stream at a PSN the requester has passed. Only a
 * duplicate READ jumps the queue: it changes no execution state but the
 * stream. A walk of inq per READ request queued (reask_queued) bounds the
 * cost. Runner only, resp.lock held.
 */
static struct sk_buff *sroce_resp_take_reask(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	struct sk_buff *skb;

	resp->reask_queued = false;
	skb_queue_walk(&resp->inq, skb) {
		const struct sroce_pkt *pkt = (const struct sroce_pkt *)skb->cb;

		if (sroce_resp_is_reask(pkt->info->flags, pkt->psn,
					resp->psn))
			return sroce_resp_inq_unlink(qp, skb);
	}
	return NULL;
}

/*
 * Is a READ request for @psn still queued on inq, not executed yet? Then
 * a READ asked again at @psn is redundant: the stream that request starts
 * leaves after the requester went back (go-back-N, 9.7.5.1.3), which
 * resends every READ after the one it lost. Executed too, each of those
 * would stream its whole READ twice, the second copy into a requester
 * that has it already, and on a slow or paced stream that copy holds
 * back what the requester waits for, until its timeout goes back again
 * (2026-12-07, READ flows paced at 4:1 through 32 Mb/s over a link that
 * reordered: 28660 responses dropped by the requesters and 31 timeouts,
 * against 43612 and 94 without). The walk is bounded by
 * SROCE_RESP_INQ_MAX, as the one for re-asks is. resp.lock held.
 */
static bool sroce_resp_read_queued(struct sroce_qp *qp, u32 psn)
{
	const u16 read_req = SROCE_OPF_REQ | SROCE_OPF_READ;
	struct sk_buff *skb;

	skb_queue_walk(&qp->resp.inq, skb) {
		const struct sroce_pkt *pkt = (const struct sroce_pkt *)skb->cb;

		if (pkt->psn == psn &&
		    (pkt->info->flags & read_req) == read_req)
			return true;
	}
	return false;
}

/*
 * sroce_resp_run() - execute and answer requests until there are none
 * @qp: the QP; the caller has set resp.running
 * @skb: a first request to execute, or NULL
 *
 * Order on the wire follows the order of execution: whatever an executed
 * request left to send (the coalesced ACK, a NAK, an ATOMIC ACK, a READ
 * response stream) goes out before the next request is executed.
 */
static void sroce_resp_run(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_resp *resp = &qp->resp;
	int budget = SROCE_RESP_BUDGET;
	unsigned long delay;
	bool reask = false;
	u8 ctl;
	int err;

	for (;;) {
		spin_lock_bh(&resp->lock);
		if (resp->ctl & SROCE_RESP_CTL_DEAD) {
			resp->running = false;
			spin_unlock_bh(&resp->lock);
			kfree_skb(skb);
			return;
		}
		ctl = resp->ctl;
		resp->ctl = 0;
		if (!skb && resp->out.kind == SROCE_RESP_OUT_NONE) {
			skb = sroce_resp_inq_dequeue(qp);
		} else if (!skb && resp->out.kind == SROCE_RESP_OUT_READ &&
			   resp->reask_queued) {
			skb = sroce_resp_take_reask(qp);
			reask = !!skb;
		}
		if (!ctl && !skb && resp->out.kind == SROCE_RESP_OUT_NONE &&
		    !resp->ack_pending && !resp->error_pending) {
			resp->running = false;
			spin_unlock_bh(&resp->lock);
			return;
		}
		spin_unlock_bh(&resp->lock);

		if (ctl & SROCE_RESP_CTL_START)
			sroce_resp_reset(qp);
		if (ctl & SROCE_RESP_CTL_FLUSH)
			sroce_resp_do_flush(qp);

		if (reask) {
			sroce_counter_inc(sroce_resp_cnt(qp),
					  SROCE_CNT_RESP_READ_REASKS);
			budget--;
			if (!sroce_resp_process(qp, skb)) {
				sroce_resp_defer(qp, skb, SROCE_RESP_ODP_WAIT);
				return;
			}
			skb = NULL;
			reask = false;
			continue;
		}

		if (resp->out.kind != SROCE_RESP_OUT_NONE ||
		    sroce_resp_ack_due(resp->ack_pending, !!skb,
				       resp->ack_count)) {
			err = sroce_resp_output(qp, &budget);
			if (!err) {
				resp->xmit_tries = 0;
				continue;
			}
			if (err == -EAGAIN) {
				sroce_resp_defer(qp, skb, 0);
				return;
			}
			if (err == -ENODATA) {
				sroce_resp_defer(qp, skb, SROCE_RESP_ODP_WAIT);
				return;
			}
			if (err == -EBUSY) {
				__sroce_resp_defer(qp, skb, 0, resp->pace_at);
				return;
			}
			delay = sroce_xmit_backoff(&resp->xmit_tries);
			if (delay) {
				sroce_counter_inc(sroce_resp_cnt(qp),
						  SROCE_CNT_XMIT_BACKOFFS);
				sroce_resp_defer(qp, skb, delay);
				return;
			}
			sroce_resp_give_up(qp);
			continue;
		}

		if (resp->error_pending) {
			resp->error_pending = false;
			sroce_qp_error(qp);
			continue;
		}

		if (skb) {
			if (budget-- <= 0) {
				sroce_resp_defer(qp, skb, 0);
				return;
			}
			if (!sroce_resp_process(qp, skb)) {
				sroce_resp_defer(qp, skb, SROCE_RESP_ODP_WAIT);
				return;
			}
			skb = NULL;
			if (resp->ack_pending)
				resp->ack_count++;
		}
	}
}

static void sroce_resp_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(to_delayed_work(work),
					   struct sroce_qp, resp.work);

	/* The same context as the softirq the runner usually lives in. */
	local_bh_disable();
	sroce_resp_run(qp, NULL);
	local_bh_enable();
}

/* Ask the runner to do @ctl, or do it here if nobody is running. */
static void sroce_resp_control(struct sroce_qp *qp, u8 ctl)
{
	struct sroce_resp *resp = &qp->resp;

	spin_lock_bh(&resp->lock);
	resp->ctl |= ctl;
	if (resp->running) {
		spin_unlock_bh(&resp->lock);
		return;
	}
	resp->running = true;
	spin_unlock_bh(&resp->lock);
	sroce_resp_run(qp, NULL);
}

/* ------------------------------------------------------------------------
 * Entry points
 */

void sroce_resp_recv(struct sroce_qp *qp, struct sk_buff *skb,
		     struct sroce_pkt *pkt)
{
	struct sroce_resp *resp = &qp->resp;

	memcpy(skb->cb, pkt, sizeof(*pkt));
	/*
	 * It may wait on inq: it keeps no route (a netdev reference) and no
	 * conntrack entry (a namespace's cleanup waits for those).
	 */
	skb_dst_drop(skb);
	nf_reset_ct(skb);

	spin_lock_bh(&resp->lock);
	if (resp->ctl & SROCE_RESP_CTL_DEAD)
		goto drop;
	if (resp->running) {
		if ((pkt->info->flags & SROCE_OPF_READ) &&
		    sroce_resp_read_queued(qp, pkt->psn))
			goto duplicate;
		/*
		 * The device's bound spares a QP's first queued request, so
		 * that QPs kept busy by one peer cannot starve all others.
		 */
		if (skb_queue_len(&resp->inq) >= SROCE_RESP_INQ_MAX ||
		    !sroce_resp_inq_charge(sroce_resp_inq_bytes(qp),
					   skb->truesize,
					   skb_queue_empty(&resp->inq) ?
					   LONG_MAX : SROCE_RESP_INQ_DEV_BYTES))
			goto drop;
		__skb_queue_tail(&resp->inq, skb);
		if (pkt->info->flags & SROCE_OPF_READ)
			resp->reask_queued = true;
		spin_unlock_bh(&resp->lock);
		return;
	}
	resp->running = true;
	spin_unlock_bh(&resp->lock);

	sroce_resp_run(qp, skb);
	return;

duplicate:
	spin_unlock_bh(&resp->lock);
	sroce_counter_inc(sroce_resp_cnt(qp), SROCE_CNT_RESP_DUPLICATE);
	consume_skb(skb);
	return;

drop:
	spin_unlock_bh(&resp->lock);
	sroce_counter_inc(sroce_resp_cnt(qp), SROCE_CNT_RESP_DROPPED);
	kfree_skb(skb);
}

/*
 * Called at create_qp, where a failed allocation fails the QP, and again
 * after sroce_resp_stop() on the way through RESET, which keeps the
 * buffers. Until it returns the responder is DEAD: it drops every request.
 */
int sroce_resp_init(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_rwqe *rwqe;
	struct sroce_resp_res *res;

	if (!resp->inited) {
		spin_lock_init(&resp->lock);
		__skb_queue_head_init(&resp->inq);
		INIT_DELAYED_WORK(&resp->work, sroce_resp_work);
		hrtimer_init(&resp->pace_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS);
		resp->pace_timer.function = sroce_resp_pace_timer;
		resp->ctl = SROCE_RESP_CTL_DEAD;
		resp->inited = true;
	}

	/* At RESET the buffers stay from before: nothing can fail there. */
	if (!resp->res) {
		rwqe = kzalloc(struct_size(rwqe, sge, SROCE_MAX_SGE),
			       GFP_KERNEL);
		res = kcalloc(SROCE_RESP_MAX_RES, sizeof(*res), GFP_KERNEL);
		if (!rwqe || !res) {
			kfree(rwqe);
			kfree(res);
			return -ENOMEM;
		}
		resp->rwqe = rwqe;
		resp->res = res;
	}

	/* Nobody runs while DEAD: the execution state is ours to reset. */
	resp->start_psn = qp->attr.rq_psn & SROCE_PSN_MASK;
	sroce_resp_reset(qp);
	resp->msg = SROCE_RESP_MSG_NONE;

	spin_lock_bh(&resp->lock);
	sroce_cc_np_init(&resp->np);
	resp->ctl = 0;
	spin_unlock_bh(&resp->lock);
	return 0;
}

void sroce_resp_start(struct sroce_qp *qp, u32 psn)
{
	struct sroce_resp *resp = &qp->resp;

	/* The runner does it first, whenever the first request comes. */
	spin_lock_bh(&resp->lock);
	resp->start_psn = psn & SROCE_PSN_MASK;
	resp->ctl |= SROCE_RESP_CTL_START;
	spin_unlock_bh(&resp->lock);
}

void sroce_resp_flush(struct sroce_qp *qp)
{
	sroce_resp_control(qp, SROCE_RESP_CTL_FLUSH);
}

void sroce_resp_stop(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	struct sk_buff_head drop;
	bool paced;

	if (!resp->inited)
		return;

	__skb_queue_head_init(&drop);
	spin_lock_bh(&resp->lock);
	resp->ctl |= SROCE_RESP_CTL_DEAD;
	sroce_resp_inq_splice(qp, &drop);
	spin_unlock_bh(&resp->lock);
	__skb_queue_purge(&drop);

	/*
	 * After DEAD nobody queues the work or arms the pace timer again. A
	 * work item that was pending, or a pace timer that would have queued
	 * it, owned the runner: cancelling it ends that ownership. The timer
	 * first: a timer that fired meanwhile has queued the work.
	 */
	paced = hrtimer_cancel(&resp->pace_timer);
	if (cancel_delayed_work_sync(&resp->work) || paced) {
		spin_lock_bh(&resp->lock);
		resp->running = false;
		spin_unlock_bh(&resp->lock);
	}
	for (;;) {
		bool running;

		spin_lock_bh(&resp->lock);
		running = resp->running;
		spin_unlock_bh(&resp->lock);
		if (!running)
			break;
		usleep_range(100, 200);
	}
	sroce_resp_out_clear(&resp->out);
}

void sroce_resp_cleanup(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	sroce_resp_stop(qp);
	kfree(resp->rwqe);
	kfree(resp->res);
	resp->rwqe = NULL;
	resp->res = NULL;
}
