/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building and parsing the InfiniBand transport part of a RoCEv2 packet:
 * the BTH, the extension headers, the payload and its pad, up to the ICRC.
 * Pure functions over byte buffers, so that they can be tested without an
 * skb, a netdev or an ib_device: the caller hands in the UDP payload.
 */
#ifndef _SROCE_PKT_H
#define _SROCE_PKT_H

#include <linux/bitfield.h>
#include <linux/types.h>
#include <asm/byteorder.h>
#include <sroce/wire.h>

#include "sroce_opcode.h"

/* The largest payload of one packet: the largest path MTU (IBTA 9.4.1). */
#define SROCE_PKT_MAX_PAYLOAD	4096

/* Why sroce_pkt_parse() rejected a packet; names for logs and counters. */
enum sroce_pkt_err {
	SROCE_PKT_OK,
	SROCE_PKT_TOO_SHORT,	/* ends before its headers and ICRC */
	SROCE_PKT_BAD_OPCODE,	/* opcode not in the table */
	SROCE_PKT_BAD_TVER,	/* BTH TVer is not 0 */
	SROCE_PKT_BAD_PAD,	/* PadCnt not possible for this packet */
	SROCE_PKT_BAD_LENGTH,	/* length not possible for this opcode */
	SROCE_PKT_BAD_ICRC,	/* set by the caller after sroce_icrc_check() */
	SROCE_PKT_NUM_ERRS
};

/**
 * struct sroce_pkt - a parsed packet, from BTH to ICRC
 * @hdr: the BTH, i.e. the start of the UDP payload
 * @info: the opcode's table entry
 * @len: bytes from the BTH through the ICRC
 * @paylen: payload bytes, without pad and ICRC
 * @qpn: BTH DestQP
 * @psn: BTH PSN
 * @opcode: BTH OpCode
 * @pad: BTH PadCnt
 * @off: offset from @hdr of each extension header, 0 when absent
 * @err: SROCE_PKT_OK, or why sroce_pkt_parse() rejected the packet
 *
 * After a failed parse only @hdr, @len and @err are meaningful (and @opcode
 * once the BTH was long enough to hold it).
 */
struct sroce_pkt {
	const u8			*hdr;
	const struct sroce_opcode_info	*info;
	unsigned int			len;
	unsigned int			paylen;
	u32				qpn;
	u32				psn;
	u8				opcode;
	u8				pad;
	u8				off[SROCE_NUM_HDRS];
	/*
	 * The VLAN the packet arrived on, SROCE_PKT_NO_VLAN if untagged: set
	 * by sroce_recv() while skb->dev is still held, for the datagram
	 * completions whose reply address handles the core builds.
	 */
	u16				vlan_id;
	enum sroce_pkt_err		err;
};

#define SROCE_PKT_NO_VLAN	0xffff

/**
 * struct sroce_bth_fields - BTH field values in host order
 * @opcode: OpCode
 * @se: solicited event
 * @mig: MigReq
 * @pad: PadCnt, see sroce_pkt_pad_bytes()
 * @pkey: P_Key
 * @fecn: forward explicit congestion notification
 * @becn: backward explicit congestion notification
 * @qpn: DestQP (24 bits)
 * @ack_req: AckReq
 * @psn: PSN (24 bits)
 *
 * TVer is always written as 0 and the reserved fields as zeroes.
 */
struct sroce_bth_fields {
	u8	opcode;
	bool	se;
	bool	mig;
	u8	pad;
	u16	pkey;
	bool	fecn;
	bool	becn;
	u32	qpn;
	bool	ack_req;
	u32	psn;
};

/* Bytes sroce_pkt_build_cnp() writes: the BTH and 16 reserved bytes. */
#define SROCE_CNP_HDR_BYTES	(SROCE_BTH_BYTES + SROCE_CNP_RSVD_BYTES)

void sroce_bth_set(struct sroce_bth *bth, const struct sroce_bth_fields *f);
int sroce_pkt_build_hdrs(void *buf, const struct sroce_bth_fields *f);
void sroce_pkt_build_cnp(void *buf, u32 dest_qpn);
int sroce_pkt_parse(const void *hdr, unsigned int len, struct sroce_pkt *pkt);
const char *sroce_pkt_err_name(enum sroce_pkt_err err);

/* Pad bytes after @paylen payload bytes: BTH to pad is whole 4-byte words. */
static inline u8 sroce_pkt_pad_bytes(unsigned int paylen)
{
	return -paylen & 3;
}

/* BTH field getters. */
static inline u8 sroce_bth_opcode(const struct sroce_bth *bth)
{
	return bth->opcode;
}

static inline bool sroce_bth_se(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_SE;
}

static inline bool sroce_bth_mig(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_MIG;
}

static inline u8 sroce_bth_pad(const struct sroce_bth *bth)
{
	return FIELD_GET(SROCE_BTH_PAD_MASK, bth->flags);
}

static inline u8 sroce_bth_tver(const struct sroce_bth *bth)
{
	return FIELD_GET(SROCE_BTH_TVER_MASK, bth->flags);
}

static inline u16 sroce_bth_pkey(const struct sroce_bth *bth)
{
	return be16_to_cpu(bth->pkey);
}

static inline bool sroce_bth_fecn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_BTH_FECN;
}

static inline bool sroce_bth_becn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_BTH_BECN;
}

static inline u32 sroce_bth_qpn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_BTH_QPN_MASK;
}

static inline bool sroce_bth_ack_req(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->apsn) & SROCE_BTH_ACK_REQ;
}

static inline u32 sroce_bth_psn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->apsn) & SROCE_BTH_PSN_MASK;
}

/* RETH. */
static inline void sroce_reth_set(struct sroce_reth *reth, u64 va, u32 rkey,
				  u32 len)
{
	reth->va = cpu_to_be64(va);
	reth->rkey = cpu_to_be32(rkey);
	reth->len = cpu_to_be32(len);
}

static inline u64 sroce_reth_va(const struct sroce_reth *reth)
{
	return be64_to_cpu(reth->va);
}

static inline u32 sroce_reth_rkey(const struct sroce_reth *reth)
{
	return be32_to_cpu(reth->rkey);
}

static inline u32 sroce_reth_len(const struct sroce_reth *reth)
{
	return be32_to_cpu(reth->len);
}

/* AETH. */
static inline void sroce_aeth_set(struct sroce_aeth *aeth, u8 syndrome,
				  u32 msn)
{
	/* The MSN is a 24-bit counter: callers may pass it unwrapped. */
	aeth->smsn = cpu_to_be32(FIELD_PREP(SROCE_AETH_SYN_MASK, syndrome) |
				 (msn & SROCE_AETH_MSN_MASK));
}

static inline u8 sroce_aeth_syndrome(const struct sroce_aeth *aeth)
{
	return FIELD_GET(SROCE_AETH_SYN_MASK, be32_to_cpu(aeth->smsn));
}

static inline u32 sroce_aeth_msn(const struct sroce_aeth *aeth)
{
	return FIELD_GET(SROCE_AETH_MSN_MASK, be32_to_cpu(aeth->smsn));
}

/* AtomicETH. */
static inline void sroce_atmeth_set(struct sroce_atmeth *atmeth, u64 va,
				    u32 rkey, u64 swap_add, u64 compare)
{
	atmeth->va = cpu_to_be64(va);
	atmeth->rkey = cpu_to_be32(rkey);
	atmeth->swap_add = cpu_to_be64(swap_add);
	atmeth->compare = cpu_to_be64(compare);
}

static inline u64 sroce_atmeth_va(const struct sroce_atmeth *atmeth)
{
	return be64_to_cpu(atmeth->va);
}

static inline u32 sroce_atmeth_rkey(const struct sroce_atmeth *atmeth)
{
	return be32_to_cpu(atmeth->rkey);
}

static inline u64 sroce_atmeth_swap_add(const struct sroce_atmeth *atmeth)
{
	return be64_to_cpu(atmeth->swap_add);
}

static inline u64 sroce_atmeth_compare(const struct sroce_atmeth *atmeth)
{
	return be64_to_cpu(atmeth->compare);
}

/* AtomicAckETH. */
static inline void sroce_atmack_set(struct sroce_atmack *atmack, u64 orig)
{
	atmack->orig = cpu_to_be64(orig);
}

static inline u64 sroce_atmack_orig(const struct sroce_atmack *atmack)
{
	return be64_to_cpu(atmack->orig);
}

/* ImmDt: passed through in network order, as ib_wc and ib_send_wr hold it. */
static inline void sroce_immdt_set(struct sroce_immdt *immdt, __be32 imm)
{
	immdt->imm = imm;
}

static inline __be32 sroce_immdt_imm(const struct sroce_immdt *immdt)
{
	return immdt->imm;
}

/* IETH. */
static inline void sroce_ieth_set(struct sroce_ieth *ieth, u32 rkey)
{
	ieth->rkey = cpu_to_be32(rkey);
}

static inline u32 sroce_ieth_rkey(const struct sroce_ieth *ieth)
{
	return be32_to_cpu(ieth->rkey);
}

/* DETH. */
static inline void sroce_deth_set(struct sroce_deth *deth, u32 qkey,
				  u32 sqpn)
{
	deth->qkey = cpu_to_be32(qkey);
	deth->sqpn = cpu_to_be32(sqpn & SROCE_DETH_SQPN_MASK);
}

static inline u32 sroce_deth_qkey(const struct sroce_deth *deth)
{
	return be32_to_cpu(deth->qkey);
}

static inline u32 sroce_deth_sqpn(const struct sroce_deth *deth)
{
	return be32_to_cpu(deth->sqpn) & SROCE_DETH_SQPN_MASK;
}

/* Headers of a parsed packet; the extension headers are NULL when absent. */
static inline const struct sroce_bth *sroce_pkt_bth(const struct sroce_pkt *pkt)
{
	return (const struct sroce_bth *)pkt->hdr;
}

static inline const void *sroce_pkt_ext(const struct sroce_pkt *pkt,
					enum sroce_hdr hdr)
{
	return pkt->off[hdr] ? pkt->hdr + pkt->off[hdr] : NULL;
}

static inline const struct sroce_reth *sroce_pkt_reth(const struct sroce_pkt *pkt)
{
	return sroce_pkt_ext(pkt, SROCE_HDR_RETH);
}

static inline const struct sroce_aeth *sroce_pkt_aeth(const struct sroce_pkt *pkt)
{
	return sroce_pkt_ext(pkt, SROCE_HDR_AETH);
}

static inline const struct sroce_atmeth *sroce_pkt_atmeth(const struct sroce_pkt *pkt)
{
	return sroce_pkt_ext(pkt, SROCE_HDR_ATMETH);
}

static inline const struct sroce_atmack *sroce_pkt_atmack(const struct sroce_pkt *pkt)
{
	return sroce_pkt_ext(pkt, SROCE_HDR_ATMACK);
}

static inline const struct sroce_immdt *sroce_pkt_immdt(const struct sroce_pkt *pkt)
{
	return sroce_pkt_ext(pkt, SROCE_HDR_IMMDT);
}

static inline const struct sroce_ieth *sroce_pkt_ieth(const struct sroce_pkt *pkt)
{
	return sroce_pkt_ext(pkt, SROCE_HDR_IETH);
}

static inline const struct sroce_deth *sroce_pkt_deth(const struct sroce_pkt *pkt)
{
	return sroce_pkt_ext(pkt, SROCE_HDR_DETH);
}

#endif /* _SROCE_PKT_H */
