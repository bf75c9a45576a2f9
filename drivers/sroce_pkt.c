// SPDX-License-Identifier: GPL-2.0
/*
 * Building and parsing the transport headers of RoCEv2 packets.
 *
 * sroce_pkt_parse() is the first thing the receive path does with a UDP
 * payload that arrived on port 4791, so it trusts nothing: every length is
 * checked before the bytes it covers are read, and a rejected packet gets a
 * reason that the caller can count. It checks only what the packet alone
 * can tell (IBTA vol 1 9.6, the header checks that need no QP context);
 * P_Key, QP, PSN and Q_Key checks belong to the caller.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "sroce_pkt.h"

/**
 * sroce_bth_set() - write a BTH
 * @bth: where to write it
 * @f: the field values; out-of-range values are truncated to the field
 *
 * TVer is written as 0 and the reserved fields as zeroes.
 */
void sroce_bth_set(struct sroce_bth *bth, const struct sroce_bth_fields *f)
{
	u32 qpn = f->qpn & SROCE_BTH_QPN_MASK;
	u32 apsn = f->psn & SROCE_BTH_PSN_MASK;

	if (f->fecn)
		qpn |= SROCE_BTH_FECN;
	if (f->becn)
		qpn |= SROCE_BTH_BECN;
	if (f->ack_req)
		apsn |= SROCE_BTH_ACK_REQ;

	bth->opcode = f->opcode;
	bth->flags = (f->se ? SROCE_BTH_SE : 0) |
		     (f->mig ? SROCE_BTH_MIG : 0) |
		     FIELD_PREP(SROCE_BTH_PAD_MASK,
				f->pad & FIELD_MAX(SROCE_BTH_PAD_MASK)) |
		     FIELD_PREP(SROCE_BTH_TVER_MASK, SROCE_BTH_TVER);
	bth->pkey = cpu_to_be16(f->pkey);
	bth->qpn = cpu_to_be32(qpn);
	bth->apsn = cpu_to_be32(apsn);
}

/**
 * sroce_pkt_build_hdrs() - start a packet: write its BTH, clear the rest
 * @buf: where the BTH goes; room for the opcode's header length is needed
 * @f: the BTH field values; @f->opcode selects the header layout
 *
 * Writes the BTH and zeroes the extension headers that the opcode carries,
 * so that the reserved bytes among them go out as zeroes. The caller then
 * fills in the extension headers at sroce_opcode_hdr_offset() with the
 * sroce_*_set() helpers, and appends payload, pad and ICRC.
 *
 * Return: the header length (the payload offset) on success, -EINVAL for
 * an opcode that is not in the table or a pad on an opcode with no payload.
 * The senders build only what the table allows and do not check; should
 * one ever get it wrong, the headers (the BTH, for an unknown opcode) are
 * zeroed, not left as what the buffer held before: no stale kernel bytes
 * go out.
 */
int sroce_pkt_build_hdrs(void *buf, const struct sroce_bth_fields *f)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(f->opcode);

	if (!info || (f->pad && !(info->flags & SROCE_OPF_PAYLOAD))) {
		memset(buf, 0, info ? info->hdr_len : SROCE_BTH_BYTES);
		return -EINVAL;
	}

	sroce_bth_set(buf, f);
	memset(buf + SROCE_BTH_BYTES, 0, info->hdr_len - SROCE_BTH_BYTES);
	return info->hdr_len;
}

/**
 * sroce_pkt_build_cnp() - write a Congestion Notification Packet
 * @buf: room for SROCE_CNP_HDR_BYTES
 * @dest_qpn: the QP that is to slow down
 *
 * Writes what Annex A17.9.3 prescribes: a BTH with opcode 0x81, BECN set,
 * the default P_Key and PSN 0, then 16 reserved zero bytes. The caller
 * appends the ICRC.
 */
void sroce_pkt_build_cnp(void *buf, u32 dest_qpn)
{
	const struct sroce_bth_fields f = {
		.opcode	= SROCE_OP_CNP,
		.pkey	= SROCE_DEFAULT_PKEY,
		.becn	= true,
		.qpn	= dest_qpn,
	};

	sroce_pkt_build_hdrs(buf, &f);
}

static int sroce_pkt_reject(struct sroce_pkt *pkt, enum sroce_pkt_err err)
{
	pkt->err = err;
	return -EINVAL;
}

/**
 * sroce_pkt_parse() - validate a received packet and describe it
 * @hdr: the UDP payload, starting with the BTH
 * @len: bytes from the BTH through the ICRC
 * @pkt: filled with the description of the packet
 *
 * Does not verify the ICRC, which also covers the IP and UDP headers; see
 * sroce_icrc_check().
 *
 * Return: 0 if the packet is well formed, else -EINVAL with the reason in
 * @pkt->err.
 */
int sroce_pkt_parse(const void *hdr, unsigned int len, struct sroce_pkt *pkt)
{
	const struct sroce_bth *bth = hdr;
	const struct sroce_opcode_info *info;
	unsigned int room;
	unsigned int h;

	*pkt = (struct sroce_pkt){ .hdr = hdr, .len = len };

	if (len < SROCE_BTH_BYTES)
		return sroce_pkt_reject(pkt, SROCE_PKT_TOO_SHORT);
	pkt->opcode = sroce_bth_opcode(bth);

	info = sroce_opcode_info(pkt->opcode);
	if (!info)
		return sroce_pkt_reject(pkt, SROCE_PKT_BAD_OPCODE);
	if (sroce_bth_tver(bth) != SROCE_BTH_TVER)
		return sroce_pkt_reject(pkt, SROCE_PKT_BAD_TVER);
	if (len < info->hdr_len + SROCE_ICRC_BYTES)
		return sroce_pkt_reject(pkt, SROCE_PKT_TOO_SHORT);

	/*
	 * PadCnt exists to make BTH through pad a whole number of 4-byte
	 * words (IBTA vol 1 9.2), and the ICRC is one more word.
	 */
	if (!IS_ALIGNED(len, 4))
		return sroce_pkt_reject(pkt, SROCE_PKT_BAD_LENGTH);

	pkt->pad = sroce_bth_pad(bth);
	room = len - info->hdr_len - SROCE_ICRC_BYTES;	/* payload and pad */

	if (!(info->flags & SROCE_OPF_PAYLOAD)) {
		/* READ REQUEST, ACKs, atomics and CNPs end with their headers. */
		if (pkt->pad)
			return sroce_pkt_reject(pkt, SROCE_PKT_BAD_PAD);
		if (room)
			return sroce_pkt_reject(pkt, SROCE_PKT_BAD_LENGTH);
	} else if (pkt->pad > room) {
		return sroce_pkt_reject(pkt, SROCE_PKT_BAD_PAD);
	} else if (pkt->pad && !(info->flags & SROCE_OPF_LAST)) {
		/*
		 * A FIRST or MIDDLE packet carries exactly one path MTU, a
		 * multiple of 4 bytes, so it never needs a pad.
		 */
		return sroce_pkt_reject(pkt, SROCE_PKT_BAD_PAD);
	}
	/*
	 * No path MTU is above 4096 bytes, so no packet carries more; a
	 * longer one (a reassembled datagram) must not reach the queues.
	 */
	if (room - pkt->pad > SROCE_PKT_MAX_PAYLOAD)
		return sroce_pkt_reject(pkt, SROCE_PKT_BAD_LENGTH);

	pkt->info = info;
	pkt->paylen = room - pkt->pad;
	pkt->qpn = sroce_bth_qpn(bth);
	pkt->psn = sroce_bth_psn(bth);
	for (h = 0; h < SROCE_NUM_HDRS; h++)
		if (info->hdrs & BIT(h))
			pkt->off[h] = sroce_opcode_hdr_offset(info, h);
	return 0;
}

static const char * const sroce_pkt_err_names[SROCE_PKT_NUM_ERRS] = {
	[SROCE_PKT_OK]		= "ok",
	[SROCE_PKT_TOO_SHORT]	= "too_short",
	[SROCE_PKT_BAD_OPCODE]	= "bad_opcode",
	[SROCE_PKT_BAD_TVER]	= "bad_tver",
	[SROCE_PKT_BAD_PAD]	= "bad_pad",
	[SROCE_PKT_BAD_LENGTH]	= "bad_length",
	[SROCE_PKT_BAD_ICRC]	= "bad_icrc",
};

/**
 * sroce_pkt_err_name() - name a parse result, for logs and counters
 * @err: the result
 *
 * Return: a short lower-case name such as "bad_pad", or "invalid" for a
 * value outside the enum.
 */
const char *sroce_pkt_err_name(enum sroce_pkt_err err)
{
	if ((unsigned int)err >= SROCE_PKT_NUM_ERRS)
		return "invalid";
	return sroce_pkt_err_names[err];
}
