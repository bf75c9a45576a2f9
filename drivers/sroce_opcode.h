/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet opcode table: for every opcode sroce understands, which
 * extension headers follow the BTH and what kind of packet it is. The
 * receive path validates packets against it and the send path lays out
 * headers from it.
 */
#ifndef _SROCE_OPCODE_H
#define _SROCE_OPCODE_H

#include <linux/bits.h>
#include <linux/types.h>

/*
 * The extension headers, numbered in the order in which they follow the BTH
 * on the wire (IBTA vol 1 9.3: DETH, RETH, AtomicETH, AETH, AtomicAckETH,
 * ImmDt, IETH), so an opcode's layout is fully described by which of them it
 * carries. SROCE_HDR_CNP stands for the 16 reserved bytes of a CNP.
 */
enum sroce_hdr {
	SROCE_HDR_DETH,
	SROCE_HDR_RETH,
	SROCE_HDR_ATMETH,
	SROCE_HDR_AETH,
	SROCE_HDR_ATMACK,
	SROCE_HDR_IMMDT,
	SROCE_HDR_IETH,
	SROCE_HDR_CNP,
	SROCE_NUM_HDRS
};

#define SROCE_HDRF_DETH		BIT(SROCE_HDR_DETH)
#define SROCE_HDRF_RETH		BIT(SROCE_HDR_RETH)
#define SROCE_HDRF_ATMETH	BIT(SROCE_HDR_ATMETH)
#define SROCE_HDRF_AETH		BIT(SROCE_HDR_AETH)
#define SROCE_HDRF_ATMACK	BIT(SROCE_HDR_ATMACK)
#define SROCE_HDRF_IMMDT	BIT(SROCE_HDR_IMMDT)
#define SROCE_HDRF_IETH		BIT(SROCE_HDR_IETH)
#define SROCE_HDRF_CNP		BIT(SROCE_HDR_CNP)

/*
 * What a packet is. Exactly one of REQ, RESP and CNP is set. Whether an
 * opcode carries immediate data or an R_Key to invalidate is not repeated
 * here: test SROCE_HDRF_IMMDT or SROCE_HDRF_IETH in the header mask.
 */
enum sroce_opcode_flags {
	SROCE_OPF_REQ		= BIT(0),	/* request, for the responder */
	SROCE_OPF_RESP		= BIT(1),	/* response, for the requester */
	SROCE_OPF_CNP		= BIT(2),	/* congestion notification */
	SROCE_OPF_SEND		= BIT(3),
	SROCE_OPF_WRITE		= BIT(4),
	SROCE_OPF_READ		= BIT(5),	/* read request or read response */
	SROCE_OPF_ATOMIC	= BIT(6),	/* atomic request or atomic ACK */
	SROCE_OPF_ACK		= BIT(7),	/* plain ACKNOWLEDGE (AETH only) */
	SROCE_OPF_FIRST		= BIT(8),	/* starts a message */
	SROCE_OPF_MIDDLE	= BIT(9),
	SROCE_OPF_LAST		= BIT(10),	/* ends a message */
	SROCE_OPF_PAYLOAD	= BIT(11),	/* may carry payload (and pad) */
	SROCE_OPF_UNSUPPORTED	= BIT(12),	/* a request only ever refused */

	SROCE_OPF_ONLY		= SROCE_OPF_FIRST | SROCE_OPF_LAST,
};

/**
 * struct sroce_opcode_info - how packets of one opcode are built
 * @name: the opcode's name without the SROCE_OP_ prefix, for logs
 * @flags: SROCE_OPF_* flags
 * @hdrs: SROCE_HDRF_* mask of the extension headers that follow the BTH
 * @hdr_len: length of the BTH and those headers, i.e. the payload offset
 */
struct sroce_opcode_info {
	const char	*name;
	u16		flags;
	u8		hdrs;
	u8		hdr_len;
};

const struct sroce_opcode_info *sroce_opcode_info(u8 opcode);
unsigned int sroce_opcode_hdr_offset(const struct sroce_opcode_info *info,
				     enum sroce_hdr hdr);

#endif /* _SROCE_OPCODE_H */
