/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCEv2 on-wire definitions: the UDP port, the InfiniBand transport headers
 * that follow the UDP header (IBTA vol 1 ch. 9, RoCEv2 Annex A17), their
 * field layouts, and the opcode and AETH syndrome values. Everything here is
 * fixed by the specification; nothing is sroce policy.
 *
 * All multi-byte fields are big-endian. The structs are packed because the
 * headers follow each other at 4-byte granularity (the 64-bit fields of RETH
 * and AtomicETH are not 8-byte aligned on the wire) and because a received
 * UDP payload has no alignment guarantee at all.
 */
#ifndef _SROCE_WIRE_H
#define _SROCE_WIRE_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

/* IANA-assigned UDP destination port of RoCEv2 (Annex A17). */
#define SROCE_UDP_PORT		4791

/* Header sizes in bytes. */
#define SROCE_BTH_BYTES		12
#define SROCE_RETH_BYTES	16
#define SROCE_FETH_BYTES	4
#define SROCE_AETH_BYTES	4
#define SROCE_ATMETH_BYTES	28
#define SROCE_ATMACK_BYTES	8
#define SROCE_IMMDT_BYTES	4
#define SROCE_IETH_BYTES	4
#define SROCE_DETH_BYTES	8
#define SROCE_CNP_RSVD_BYTES	16	/* reserved bytes after a CNP's BTH */
#define SROCE_ICRC_BYTES	4
/* The payload of an RDMA ATOMIC WRITE: exactly one 8-byte value. */
#define SROCE_ATOMIC_WRITE_BYTES	8

/* Base Transport Header (IBTA vol 1 9.2). */
struct sroce_bth {
	u8	opcode;
	u8	flags;		/* SE, M, PadCnt, TVer */
	__be16	pkey;
	__be32	qpn;		/* FECN, BECN, resv6a, DestQP */
	__be32	apsn;		/* AckReq, resv7, PSN */
} __packed;

/* BTH byte 1. */
#define SROCE_BTH_SE		BIT(7)	/* solicited event */
#define SROCE_BTH_MIG		BIT(6)	/* MigReq */
#define SROCE_BTH_PAD_MASK	GENMASK(5, 4)
#define SROCE_BTH_TVER_MASK	GENMASK(3, 0)
#define SROCE_BTH_TVER		0	/* the only transport version */

/* BTH bytes 4-7, as a host-order u32. */
#define SROCE_BTH_FECN		BIT(31)
#define SROCE_BTH_BECN		BIT(30)
#define SROCE_BTH_RESV6A_MASK	GENMASK(29, 24)
#define SROCE_BTH_QPN_MASK	GENMASK(23, 0)

/* BTH bytes 8-11, as a host-order u32. */
#define SROCE_BTH_ACK_REQ	BIT(31)
#define SROCE_BTH_RESV7_MASK	GENMASK(30, 24)
#define SROCE_BTH_PSN_MASK	GENMASK(23, 0)

/* RDMA Extended Transport Header (IBTA vol 1 9.3). */
struct sroce_reth {
	__be64	va;
	__be32	rkey;
	__be32	len;		/* DMA length */
} __packed;

/* ACK Extended Transport Header (IBTA vol 1 9.3). */
struct sroce_aeth {
	__be32	smsn;		/* Syndrome, MSN */
} __packed;

#define SROCE_AETH_SYN_MASK	GENMASK(31, 24)
#define SROCE_AETH_MSN_MASK	GENMASK(23, 0)

/* Atomic Extended Transport Header (IBTA vol 1 9.3). */
struct sroce_atmeth {
	__be64	va;
	__be32	rkey;
	__be64	swap_add;	/* swap data, or the addend of FETCH_ADD */
	__be64	compare;
} __packed;

/* Atomic ACK Extended Transport Header (IBTA vol 1 9.3). */
struct sroce_atmack {
	__be64	orig;		/* original remote data */
} __packed;

/* Immediate data (IBTA vol 1 9.3): opaque, kept in network order. */
struct sroce_immdt {
	__be32	imm;
} __packed;

/* Invalidate Extended Transport Header (IBTA vol 1 9.3). */
struct sroce_ieth {
	__be32	rkey;
} __packed;

/* Datagram Extended Transport Header (IBTA vol 1 9.3). */
struct sroce_deth {
	__be32	qkey;
	__be32	sqpn;		/* reserved, SrcQP */
} __packed;

#define SROCE_DETH_SQPN_MASK	GENMASK(23, 0)

static_assert(sizeof(struct sroce_bth) == SROCE_BTH_BYTES);
static_assert(sizeof(struct sroce_reth) == SROCE_RETH_BYTES);
static_assert(sizeof(struct sroce_aeth) == SROCE_AETH_BYTES);
static_assert(sizeof(struct sroce_atmeth) == SROCE_ATMETH_BYTES);
static_assert(sizeof(struct sroce_atmack) == SROCE_ATMACK_BYTES);
static_assert(sizeof(struct sroce_immdt) == SROCE_IMMDT_BYTES);
static_assert(sizeof(struct sroce_ieth) == SROCE_IETH_BYTES);
static_assert(sizeof(struct sroce_deth) == SROCE_DETH_BYTES);

/*
 * Opcode bits 7:5 select the transport (IBTA vol 1 9.2; 100b is the CNP of
 * Annex A17.9.3), bits 4:0 the operation. RDMA ATOMIC WRITE (0x1d) came
 * with IBTA 1.5 (rdma_rxe has it from 6.2 on); FLUSH (0x1c, BTH + FETH +
 * RETH), of the same release, is recognised only to be refused.
 */
#define SROCE_OP_TRANSPORT_MASK	GENMASK(7, 5)
#define SROCE_TRANSPORT_RC	0x00
#define SROCE_TRANSPORT_UC	0x20
#define SROCE_TRANSPORT_RD	0x40
#define SROCE_TRANSPORT_UD	0x60
#define SROCE_TRANSPORT_CNP	0x80

enum sroce_opcode {
	SROCE_OP_RC_SEND_FIRST			= 0x00,
	SROCE_OP_RC_SEND_MIDDLE			= 0x01,
	SROCE_OP_RC_SEND_LAST			= 0x02,
	SROCE_OP_RC_SEND_LAST_WITH_IMM		= 0x03,
	SROCE_OP_RC_SEND_ONLY			= 0x04,
	SROCE_OP_RC_SEND_ONLY_WITH_IMM		= 0x05,
	SROCE_OP_RC_RDMA_WRITE_FIRST		= 0x06,
	SROCE_OP_RC_RDMA_WRITE_MIDDLE		= 0x07,
	SROCE_OP_RC_RDMA_WRITE_LAST		= 0x08,
	SROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMM	= 0x09,
	SROCE_OP_RC_RDMA_WRITE_ONLY		= 0x0a,
	SROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMM	= 0x0b,
	SROCE_OP_RC_RDMA_READ_REQUEST		= 0x0c,
	SROCE_OP_RC_RDMA_READ_RESPONSE_FIRST	= 0x0d,
	SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE	= 0x0e,
	SROCE_OP_RC_RDMA_READ_RESPONSE_LAST	= 0x0f,
	SROCE_OP_RC_RDMA_READ_RESPONSE_ONLY	= 0x10,
	SROCE_OP_RC_ACKNOWLEDGE			= 0x11,
	SROCE_OP_RC_ATOMIC_ACKNOWLEDGE		= 0x12,
	SROCE_OP_RC_COMPARE_SWAP		= 0x13,
	SROCE_OP_RC_FETCH_ADD			= 0x14,
	SROCE_OP_RC_SEND_LAST_WITH_INV		= 0x16,
	SROCE_OP_RC_SEND_ONLY_WITH_INV		= 0x17,
	SROCE_OP_RC_FLUSH			= 0x1c,
	SROCE_OP_RC_ATOMIC_WRITE		= 0x1d,

	SROCE_OP_UC_SEND_FIRST			= 0x20,
	SROCE_OP_UC_SEND_MIDDLE			= 0x21,
	SROCE_OP_UC_SEND_LAST			= 0x22,
	SROCE_OP_UC_SEND_LAST_WITH_IMM		= 0x23,
	SROCE_OP_UC_SEND_ONLY			= 0x24,
	SROCE_OP_UC_SEND_ONLY_WITH_IMM		= 0x25,
	SROCE_OP_UC_RDMA_WRITE_FIRST		= 0x26,
	SROCE_OP_UC_RDMA_WRITE_MIDDLE		= 0x27,
	SROCE_OP_UC_RDMA_WRITE_LAST		= 0x28,
	SROCE_OP_UC_RDMA_WRITE_LAST_WITH_IMM	= 0x29,
	SROCE_OP_UC_RDMA_WRITE_ONLY		= 0x2a,
	SROCE_OP_UC_RDMA_WRITE_ONLY_WITH_IMM	= 0x2b,

	SROCE_OP_UD_SEND_ONLY			= 0x64,
	SROCE_OP_UD_SEND_ONLY_WITH_IMM		= 0x65,

	SROCE_OP_CNP				= 0x81,
};

/*
 * AETH syndrome (IBTA vol 1 9.3): bit 7 reserved, bits 6:5 the type, bits 4:0
 * the credit count (ACK), the RNR timer code (RNR NAK) or the NAK code (NAK).
 * A full syndrome is a type ORed with a value, e.g. SROCE_AETH_TYPE_NAK |
 * SROCE_AETH_NAK_PSN_SEQ_ERR.
 */
#define SROCE_AETH_TYPE_MASK		GENMASK(6, 5)
#define SROCE_AETH_TYPE_ACK		0x00
#define SROCE_AETH_TYPE_RNR_NAK		0x20
#define SROCE_AETH_TYPE_NAK		0x60
#define SROCE_AETH_VALUE_MASK		GENMASK(4, 0)

/* Credit count 11111b: no credit information ("invalid"); rxe always sends it. */
#define SROCE_AETH_CREDIT_INVALID	0x1f
#define SROCE_AETH_ACK_UNLIMITED	(SROCE_AETH_TYPE_ACK | SROCE_AETH_CREDIT_INVALID)

/* NAK codes. */
#define SROCE_AETH_NAK_PSN_SEQ_ERR	0
#define SROCE_AETH_NAK_INVALID_REQ	1
#define SROCE_AETH_NAK_REM_ACCESS_ERR	2
#define SROCE_AETH_NAK_REM_OP_ERR	3
#define SROCE_AETH_NAK_INVALID_RD_REQ	4

/* The default (full-member) partition key, and the Q_Key of the GSI QP (QP1). */
#define SROCE_DEFAULT_PKEY	0xffff
#define SROCE_GSI_QKEY		0x80010000

#endif /* _SROCE_WIRE_H */
