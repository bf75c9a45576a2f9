/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of the RC send side, as pure functions so that KUnit can
 * check it without a QP: how a message is cut into packets at the path MTU
 * and which opcode each packet carries, how many PSNs a request consumes,
 * what an AETH syndrome means, and the IBTA timer encodings.
 */
#ifndef _SROCE_SEG_H
#define _SROCE_SEG_H

#include <linux/kernel.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <sroce/wire.h>

#include "sroce_compat.h"

/* Packets a message of @len bytes takes at @mtu; an empty one takes one. */
static inline u32 sroce_seg_npkts(u32 len, u32 mtu)
{
	/* Not DIV_ROUND_UP(): len + mtu - 1 may wrap. */
	return len ? len / mtu + !!(len % mtu) : 1;
}

/* Payload bytes of packet @idx (from 0) of a @len-byte message. */
static inline u32 sroce_seg_paylen(u32 len, u32 mtu, u32 idx)
{
	u64 off = (u64)idx * mtu;

	return off >= len ? 0 : min_t(u64, mtu, len - off);
}

/*
 * PSNs a send WQE consumes. A READ request is one packet but reserves one
 * PSN per response packet (IBTA vol 1 9.7.1.1.1), an atomic one, and a
 * SEND, WRITE or ATOMIC WRITE (8 bytes, one packet) one per packet.
 */
static inline u32 sroce_seg_npsn(enum ib_wr_opcode op, u32 len, u32 mtu)
{
	switch (op) {
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return 1;
	default:
		return sroce_seg_npkts(len, mtu);
	}
}

/* The WQE is answered by data (READ response, atomic ACK), not by an ACK. */
static inline bool sroce_seg_is_rd_atomic(enum ib_wr_opcode op)
{
	return op == IB_WR_RDMA_READ || op == IB_WR_ATOMIC_CMP_AND_SWP ||
	       op == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * The WQE takes one of the responder's READ/atomic resources, so it counts
 * against the QP's max_rd_atomic and waits behind IB_SEND_FENCE like one:
 * READs, atomics and ATOMIC WRITE, which the responder keeps so that a
 * duplicate is answered without being executed again. An ATOMIC WRITE's
 * answer carries no data: any acknowledgment of its PSN completes it.
 */
static inline bool sroce_seg_takes_rd_atomic(enum ib_wr_opcode op)
{
	return sroce_seg_is_rd_atomic(op) || op == SROCE_WR_ATOMIC_WRITE;
}

/*
 * A local operation: executed by the requester in send-queue order, sends
 * nothing and takes no PSN (IBTA 10.8.3.1 memory operations).
 */
static inline bool sroce_seg_is_local(enum ib_wr_opcode op)
{
	return op == IB_WR_LOCAL_INV || op == IB_WR_REG_MR ||
	       op == IB_WR_BIND_MW;
}

/*
 * sroce_seg_opcode() - the RC opcode of one request packet
 * @op: the WQE's opcode
 * @first: the packet starts the message
 * @last: the packet ends it
 *
 * Return: the BTH opcode, or -EINVAL for a work request opcode that sends
 * nothing on an RC QP. READ, atomic and ATOMIC WRITE requests are always
 * one packet.
 */
static inline int sroce_seg_opcode(enum ib_wr_opcode op, bool first, bool last)
{
	/* Not a case label: 6.1's enum has no such value. */
	if (op == SROCE_WR_ATOMIC_WRITE)
		return SROCE_OP_RC_ATOMIC_WRITE;
	switch (op) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
		if (!last)
			return first ? SROCE_OP_RC_SEND_FIRST :
				       SROCE_OP_RC_SEND_MIDDLE;
		if (op == IB_WR_SEND_WITH_IMM)
			return first ? SROCE_OP_RC_SEND_ONLY_WITH_IMM :
				       SROCE_OP_RC_SEND_LAST_WITH_IMM;
		if (op == IB_WR_SEND_WITH_INV)
			return first ? SROCE_OP_RC_SEND_ONLY_WITH_INV :
				       SROCE_OP_RC_SEND_LAST_WITH_INV;
		return first ? SROCE_OP_RC_SEND_ONLY : SROCE_OP_RC_SEND_LAST;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (!last)
			return first ? SROCE_OP_RC_RDMA_WRITE_FIRST :
				       SROCE_OP_RC_RDMA_WRITE_MIDDLE;
		if (op == IB_WR_RDMA_WRITE_WITH_IMM)
			return first ? SROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMM :
				       SROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMM;
		return first ? SROCE_OP_RC_RDMA_WRITE_ONLY :
			       SROCE_OP_RC_RDMA_WRITE_LAST;
	case IB_WR_RDMA_READ:
		return SROCE_OP_RC_RDMA_READ_REQUEST;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return SROCE_OP_RC_COMPARE_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return SROCE_OP_RC_FETCH_ADD;
	default:
		return -EINVAL;
	}
}

/* The send completion opcode of a WQE. */
static inline enum ib_wc_opcode sroce_seg_wc_opcode(enum ib_wr_opcode op)
{
	/* As rdma_rxe reports it (IB_UVERBS_WC_ATOMIC_WRITE, 6.2 on). */
	if (op == SROCE_WR_ATOMIC_WRITE)
		return SROCE_WC_ATOMIC_WRITE;
	switch (op) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return IB_WC_SEND;
	}
}

/* What an AETH says (IBTA vol 1 9.7.5.1, table 44). */
enum sroce_aeth_kind {
	SROCE_AETH_ACK,
	SROCE_AETH_RNR,		/* receiver not ready: retry after the timer */
	SROCE_AETH_SEQ_ERR,	/* PSN sequence error: go back to the PSN */
	SROCE_AETH_FATAL,	/* a NAK that ends the QP: see the status */
	SROCE_AETH_RESERVED,	/* reserved type or code: ignore the packet */
};

/*
 * sroce_aeth_decode() - classify an AETH syndrome
 * @syndrome: the syndrome byte
 * @status: for SROCE_AETH_FATAL, the completion status the NAK maps to
 *
 * Invalid RD request is an RD-only NAK; on RC it means the responder
 * judged the request invalid, like an invalid request.
 */
static inline enum sroce_aeth_kind sroce_aeth_decode(u8 syndrome,
						     enum ib_wc_status *status)
{
	if (syndrome & ~(SROCE_AETH_TYPE_MASK | SROCE_AETH_VALUE_MASK))
		return SROCE_AETH_RESERVED;

	switch (syndrome & SROCE_AETH_TYPE_MASK) {
	case SROCE_AETH_TYPE_ACK:
		return SROCE_AETH_ACK;
	case SROCE_AETH_TYPE_RNR_NAK:
		return SROCE_AETH_RNR;
	case SROCE_AETH_TYPE_NAK:
		break;
	default:
		return SROCE_AETH_RESERVED;
	}

	switch (syndrome & SROCE_AETH_VALUE_MASK) {
	case SROCE_AETH_NAK_PSN_SEQ_ERR:
		return SROCE_AETH_SEQ_ERR;
	case SROCE_AETH_NAK_INVALID_REQ:
	case SROCE_AETH_NAK_INVALID_RD_REQ:
		*status = IB_WC_REM_INV_REQ_ERR;
		return SROCE_AETH_FATAL;
	case SROCE_AETH_NAK_REM_ACCESS_ERR:
		*status = IB_WC_REM_ACCESS_ERR;
		return SROCE_AETH_FATAL;
	case SROCE_AETH_NAK_REM_OP_ERR:
		*status = IB_WC_REM_OP_ERR;
		return SROCE_AETH_FATAL;
	default:
		return SROCE_AETH_RESERVED;
	}
}

/*
 * sroce_seg_rnr_usecs() - the RNR NAK timer for a 5-bit timer code (IBTA
 * vol 1 9.7.5.2.8, table 45). Code 0 is the longest, 655.36 ms.
 */
static inline u32 sroce_seg_rnr_usecs(u8 code)
{
	static const u32 usecs[32] = {
		655360,	10,	20,	30,	40,	60,	80,	120,
		160,	240,	320,	480,	640,	960,	1280,	1920,
		2560,	3840,	5120,	7680,	10240,	15360,	20480,	30720,
		40960,	61440,	81920,	122880,	163840,	245760,	327680,	491520,
	};

	return usecs[code & 31];
}

/*
 * sroce_seg_timeout_nsecs() - the local ACK timeout for a QP's 5-bit
 * timeout attribute: 4.096 us * 2^timeout (IBTA vol 1 9.7.6.1.3). 0 means
 * the timer is disabled (infinite).
 */
static inline u64 sroce_seg_timeout_nsecs(u8 timeout)
{
	return timeout ? 4096ULL << (timeout & 31) : 0;
}

/*
 * sroce_seg_timeout_ticks() - the local ACK timeout in timer ticks of
 * @tick_ns: rounded up, plus one for the tick already under way when the
 * timer is armed, so that it never runs out before the IBTA value. 0 (no
 * timer) stays 0.
 */
static inline u64 sroce_seg_timeout_ticks(u8 timeout, u32 tick_ns)
{
	u64 ns = sroce_seg_timeout_nsecs(timeout);

	return ns ? DIV_ROUND_UP_ULL(ns, tick_ns) + 1 : 0;
}

/*
 * sroce_seg_stall_grace() - the ticks to extend a retransmit timer of
 * @timeout ticks by when it fired @late ticks after it was due; 0: act on
 * it now. The timer wheel fires a timer up to an eighth of its delay late;
 * beyond a quarter (and two ticks) the CPU did not run the timer for that
 * long, and could not receive either: give the receive path as long again,
 * at most one timeout.
 */
static inline unsigned long sroce_seg_stall_grace(unsigned long timeout,
						  long late)
{
	if (late <= (long)max(timeout / 4, 2UL))
		return 0;
	return min_t(unsigned long, late, timeout);
}

/* The retry counters of a QP: rnr_retry 7 means retry forever (C9-143.1). */
#define SROCE_RNR_RETRY_INFINITE	7

#endif /* _SROCE_SEG_H */
