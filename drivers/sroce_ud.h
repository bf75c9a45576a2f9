/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unreliable datagram and GSI (QP1) queue pairs: one-packet SENDs with a
 * DETH, addressed per WQE by an address handle, and receives that carry
 * the sender's network header in front of the payload.
 */
#ifndef _SROCE_UD_H
#define _SROCE_UD_H

#include <rdma/ib_verbs.h>

#include "sroce_qp.h"

struct rxe_send_wqe;
struct sk_buff;
struct sroce_pkt;

/* The 40 bytes at the start of every UD receive buffer (IBTA 11.4.1.2). */
#define SROCE_UD_GRH_BYTES	40
/* A WR Q_Key with this bit set means "the QP's own Q_Key" (IBTA 10.2.5). */
#define SROCE_UD_QKEY_USE_QP	BIT(31)
/* The QPN the GSI QP answers to on the wire. */
#define SROCE_UD_GSI_QPN	1

static inline bool sroce_ud_qp(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

/* Pure rules, exported for KUnit. */
u32 sroce_ud_select_qkey(u32 wr_qkey, u32 qp_qkey);
void sroce_ud_grh_fill(u8 *grh, const void *nh, bool ipv6);
bool sroce_ud_recv_len_ok(u32 paylen, u32 buf_len);
bool sroce_ud_qkey_ok(enum ib_qp_type type, u32 qp_qkey, u32 pkt_qkey);

/* Copy a kernel ULP's UD WR fields into its ring slot (post_send). */
void sroce_ud_wr_to_wqe(struct rxe_send_wqe *wqe, const struct ib_send_wr *wr);

/*
 * sroce_ud_send() - send WQEs of a UD or GSI QP in RTS, each one packet,
 * completing each once it left. Called as the requester (single-threaded
 * per QP by its RUNNING bit), with no QP lock held.
 * Return: 0 when the SQ is empty or stopped, 1 when the batch ran out with
 * more to send, -ENOBUFS when the host pushed back (the WQE is retried).
 */
int sroce_ud_send(struct sroce_qp *qp);

/*
 * sroce_ud_recv_ok() - may a packet (ICRC and P_Key already checked) go to
 * UD or GSI @qp: a UD packet with a DETH, the QP able to receive, the
 * Q_Key right? Counts what it refuses. Context: softirq.
 */
bool sroce_ud_recv_ok(struct sroce_qp *qp, const struct sroce_pkt *pkt);

/*
 * sroce_ud_recv() - a multicast copy for a UD QP: the checks of
 * sroce_ud_recv_ok(), then the responder delivers it. Consumes @skb.
 */
void sroce_ud_recv(struct sroce_qp *qp, struct sk_buff *skb,
		   struct sroce_pkt *pkt);

/* The responder's runner executes one UD request (packet in skb->cb). */
void sroce_ud_resp_process(struct sroce_qp *qp, struct sk_buff *skb);

#endif /* _SROCE_UD_H */
