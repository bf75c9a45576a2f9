// SPDX-License-Identifier: GPL-2.0
/*
 * The packet opcode table (IBTA vol 1 9.2 and 9.3, RoCEv2 Annex A17.9.3 for
 * the CNP). Every opcode sroce accepts on the wire has an entry; everything
 * else is unknown and dropped by the receive path.
 *
 * Deliberately absent: the RD transport (no RoCE peer implements it) and
 * the reserved values, e.g. 0x15 and 0x18. ATOMIC WRITE (0x1d, IBTA 1.5) is
 * here although the 6.1 rdma_rxe peer drops it as unknown. FLUSH (0x1c,
 * IBTA 1.5; rdma_rxe has it from 6.2 on) is here only to be refused: an
 * RC responder answers an opcode it does not support with an invalid
 * request NAK (IBTA vol 1 9.7.5.2.2) rather than leave its peer to time
 * out, so the packet must parse far enough to reach its QP. Its FETH and
 * RETH are never read. UC uses the SEND and RDMA WRITE
 * opcodes of RC with the UC transport bits; UD has only SEND ONLY, with
 * and without immediate.
 */
#include <sroce/wire.h>

#include "sroce_opcode.h"

static const struct sroce_opcode_info sroce_opcodes[256] = {
	[SROCE_OP_RC_SEND_FIRST] = {
		.name		= "RC_SEND_FIRST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_FIRST | SROCE_OPF_PAYLOAD,
		.hdr_len	= SROCE_BTH_BYTES,
	},
	[SROCE_OP_RC_SEND_MIDDLE] = {
		.name		= "RC_SEND_MIDDLE",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_MIDDLE | SROCE_OPF_PAYLOAD,
		.hdr_len	= SROCE_BTH_BYTES,
	},
	[SROCE_OP_RC_SEND_LAST] = {
		.name		= "RC_SEND_LAST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdr_len	= SROCE_BTH_BYTES,
	},
	[SROCE_OP_RC_SEND_LAST_WITH_IMM] = {
		.name		= "RC_SEND_LAST_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_IMMDT,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_IMMDT_BYTES,
	},
	[SROCE_OP_RC_SEND_ONLY] = {
		.name		= "RC_SEND_ONLY",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdr_len	= SROCE_BTH_BYTES,
	},
	[SROCE_OP_RC_SEND_ONLY_WITH_IMM] = {
		.name		= "RC_SEND_ONLY_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_IMMDT,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_IMMDT_BYTES,
	},
	[SROCE_OP_RC_RDMA_WRITE_FIRST] = {
		.name		= "RC_RDMA_WRITE_FIRST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_FIRST | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_RETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_RETH_BYTES,
	},
	[SROCE_OP_RC_RDMA_WRITE_MIDDLE] = {
		.name		= "RC_RDMA_WRITE_MIDDLE",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_MIDDLE | SROCE_OPF_PAYLOAD,
		.hdr_len	= SROCE_BTH_BYTES,
	},
	[SROCE_OP_RC_RDMA_WRITE_LAST] = {
		.name		= "RC_RDMA_WRITE_LAST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdr_len	= SROCE_BTH_BYTES,
	},
	[SROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMM] = {
		.name		= "RC_RDMA_WRITE_LAST_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_IMMDT,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_IMMDT_BYTES,
	},
	[SROCE_OP_RC_RDMA_WRITE_ONLY] = {
		.name		= "RC_RDMA_WRITE_ONLY",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_RETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_RETH_BYTES,
	},
	[SROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMM] = {
		.name		= "RC_RDMA_WRITE_ONLY_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_RETH | SROCE_HDRF_IMMDT,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_RETH_BYTES +
				  SROCE_IMMDT_BYTES,
	},
	[SROCE_OP_RC_RDMA_READ_REQUEST] = {
		.name		= "RC_RDMA_READ_REQUEST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_READ |
				  SROCE_OPF_ONLY,
		.hdrs		= SROCE_HDRF_RETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_RETH_BYTES,
	},
	[SROCE_OP_RC_RDMA_READ_RESPONSE_FIRST] = {
		.name		= "RC_RDMA_READ_RESPONSE_FIRST",
		.flags		= SROCE_OPF_RESP | SROCE_OPF_READ |
				  SROCE_OPF_FIRST | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_AETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_AETH_BYTES,
	},
	[SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE] = {
		.name		= "RC_RDMA_READ_RESPONSE_MIDDLE",
		.flags		= SROCE_OPF_RESP | SROCE_OPF_READ |
				  SROCE_OPF_MIDDLE | SROCE_OPF_PAYLOAD,
		.hdr_len	= SROCE_BTH_BYTES,
	},
	[SROCE_OP_RC_RDMA_READ_RESPONSE_LAST] = {
		.name		= "RC_RDMA_READ_RESPONSE_LAST",
		.flags		= SROCE_OPF_RESP | SROCE_OPF_READ |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_AETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_AETH_BYTES,
	},
	[SROCE_OP_RC_RDMA_READ_RESPONSE_ONLY] = {
		.name		= "RC_RDMA_READ_RESPONSE_ONLY",
		.flags		= SROCE_OPF_RESP | SROCE_OPF_READ |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_AETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_AETH_BYTES,
	},
	[SROCE_OP_RC_ACKNOWLEDGE] = {
		.name		= "RC_ACKNOWLEDGE",
		.flags		= SROCE_OPF_RESP | SROCE_OPF_ACK |
				  SROCE_OPF_ONLY,
		.hdrs		= SROCE_HDRF_AETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_AETH_BYTES,
	},
	[SROCE_OP_RC_ATOMIC_ACKNOWLEDGE] = {
		.name		= "RC_ATOMIC_ACKNOWLEDGE",
		.flags		= SROCE_OPF_RESP | SROCE_OPF_ATOMIC |
				  SROCE_OPF_ONLY,
		.hdrs		= SROCE_HDRF_AETH | SROCE_HDRF_ATMACK,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_AETH_BYTES +
				  SROCE_ATMACK_BYTES,
	},
	[SROCE_OP_RC_COMPARE_SWAP] = {
		.name		= "RC_COMPARE_SWAP",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_ATOMIC |
				  SROCE_OPF_ONLY,
		.hdrs		= SROCE_HDRF_ATMETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_ATMETH_BYTES,
	},
	[SROCE_OP_RC_FETCH_ADD] = {
		.name		= "RC_FETCH_ADD",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_ATOMIC |
				  SROCE_OPF_ONLY,
		.hdrs		= SROCE_HDRF_ATMETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_ATMETH_BYTES,
	},
	[SROCE_OP_RC_SEND_LAST_WITH_INV] = {
		.name		= "RC_SEND_LAST_WITH_INV",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_IETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_IETH_BYTES,
	},
	[SROCE_OP_RC_SEND_ONLY_WITH_INV] = {
		.name		= "RC_SEND_ONLY_WITH_INV",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_IETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_IETH_BYTES,
	},
	/*
	 * A RETH and exactly 8 bytes of payload. ATOMIC marks what it
	 * shares with the atomics: the 8-byte alignment, a responder
	 * resource, no re-execution of a duplicate; WRITE the right it needs.
	 */
	[SROCE_OP_RC_ATOMIC_WRITE] = {
		.name		= "RC_ATOMIC_WRITE",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_ATOMIC | SROCE_OPF_ONLY |
				  SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_RETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_RETH_BYTES,
	},
	[SROCE_OP_RC_FLUSH] = {
		.name		= "RC_FLUSH",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_ONLY |
				  SROCE_OPF_UNSUPPORTED,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_FETH_BYTES +
				  SROCE_RETH_BYTES,
	},
	[SROCE_OP_UC_SEND_FIRST] = {
		.name		= "UC_SEND_FIRST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_FIRST | SROCE_OPF_PAYLOAD,
		.hdr_len	= SROCE_BTH_BYTES,
	},
	[SROCE_OP_UC_SEND_MIDDLE] = {
		.name		= "UC_SEND_MIDDLE",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_MIDDLE | SROCE_OPF_PAYLOAD,
		.hdr_len	= SROCE_BTH_BYTES,
	},
	[SROCE_OP_UC_SEND_LAST] = {
		.name		= "UC_SEND_LAST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdr_len	= SROCE_BTH_BYTES,
	},
	[SROCE_OP_UC_SEND_LAST_WITH_IMM] = {
		.name		= "UC_SEND_LAST_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_IMMDT,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_IMMDT_BYTES,
	},
	[SROCE_OP_UC_SEND_ONLY] = {
		.name		= "UC_SEND_ONLY",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdr_len	= SROCE_BTH_BYTES,
	},
	[SROCE_OP_UC_SEND_ONLY_WITH_IMM] = {
		.name		= "UC_SEND_ONLY_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_IMMDT,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_IMMDT_BYTES,
	},
	[SROCE_OP_UC_RDMA_WRITE_FIRST] = {
		.name		= "UC_RDMA_WRITE_FIRST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_FIRST | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_RETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_RETH_BYTES,
	},
	[SROCE_OP_UC_RDMA_WRITE_MIDDLE] = {
		.name		= "UC_RDMA_WRITE_MIDDLE",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_MIDDLE | SROCE_OPF_PAYLOAD,
		.hdr_len	= SROCE_BTH_BYTES,
	},
	[SROCE_OP_UC_RDMA_WRITE_LAST] = {
		.name		= "UC_RDMA_WRITE_LAST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdr_len	= SROCE_BTH_BYTES,
	},
	[SROCE_OP_UC_RDMA_WRITE_LAST_WITH_IMM] = {
		.name		= "UC_RDMA_WRITE_LAST_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_IMMDT,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_IMMDT_BYTES,
	},
	[SROCE_OP_UC_RDMA_WRITE_ONLY] = {
		.name		= "UC_RDMA_WRITE_ONLY",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_RETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_RETH_BYTES,
	},
	[SROCE_OP_UC_RDMA_WRITE_ONLY_WITH_IMM] = {
		.name		= "UC_RDMA_WRITE_ONLY_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_RETH | SROCE_HDRF_IMMDT,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_RETH_BYTES +
				  SROCE_IMMDT_BYTES,
	},
	[SROCE_OP_UD_SEND_ONLY] = {
		.name		= "UD_SEND_ONLY",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_DETH,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_DETH_BYTES,
	},
	[SROCE_OP_UD_SEND_ONLY_WITH_IMM] = {
		.name		= "UD_SEND_ONLY_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdrs		= SROCE_HDRF_DETH | SROCE_HDRF_IMMDT,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_DETH_BYTES +
				  SROCE_IMMDT_BYTES,
	},
	[SROCE_OP_CNP] = {
		.name		= "CNP",
		.flags		= SROCE_OPF_CNP,
		.hdrs		= SROCE_HDRF_CNP,
		.hdr_len	= SROCE_BTH_BYTES + SROCE_CNP_RSVD_BYTES,
	},

};

static const u8 sroce_hdr_bytes[SROCE_NUM_HDRS] = {
	[SROCE_HDR_DETH]	= SROCE_DETH_BYTES,
	[SROCE_HDR_RETH]	= SROCE_RETH_BYTES,
	[SROCE_HDR_ATMETH]	= SROCE_ATMETH_BYTES,
	[SROCE_HDR_AETH]	= SROCE_AETH_BYTES,
	[SROCE_HDR_ATMACK]	= SROCE_ATMACK_BYTES,
	[SROCE_HDR_IMMDT]	= SROCE_IMMDT_BYTES,
	[SROCE_HDR_IETH]	= SROCE_IETH_BYTES,
	[SROCE_HDR_CNP]		= SROCE_CNP_RSVD_BYTES,
};

/**
 * sroce_opcode_info() - look up a packet opcode
 * @opcode: the BTH OpCode field
 *
 * Return: the opcode's description, or NULL if sroce does not accept the
 * opcode (reserved, RD, vendor-defined, or not supported by the 6.1 peer).
 */
const struct sroce_opcode_info *sroce_opcode_info(u8 opcode)
{
	const struct sroce_opcode_info *info = &sroce_opcodes[opcode];

	return info->name ? info : NULL;
}

/**
 * sroce_opcode_hdr_offset() - where an extension header sits in a packet
 * @info: the packet's opcode, from sroce_opcode_info()
 * @hdr: the extension header
 *
 * Return: the offset of @hdr from the start of the BTH, or 0 if packets of
 * this opcode do not carry @hdr (the BTH itself is always at offset 0).
 */
unsigned int sroce_opcode_hdr_offset(const struct sroce_opcode_info *info,
				     enum sroce_hdr hdr)
{
	unsigned int off = SROCE_BTH_BYTES;
	unsigned int h;

	if (!(info->hdrs & BIT(hdr)))
		return 0;

	/* The headers that precede @hdr are exactly the present lower ones. */
	for (h = 0; h < hdr; h++)
		if (info->hdrs & BIT(h))
			off += sroce_hdr_bytes[h];
	return off;
}
