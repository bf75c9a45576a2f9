// SPDX-License-Identifier: GPL-2.0
/*
 * Unreliable datagram (UD) and GSI (QP1) queue pairs.
 *
 * Send: every WQE is one SEND ONLY packet (IBTA 9.8.3: a UD message fits
 * in one packet of the port's MTU) with a DETH carrying the Q_Key and the
 * source QPN. Its destination is the address handle the WQE names by
 * number; the AH must belong to the QP's PD. The AV that old providers
 * copy into the WQE is never read: it would let a process choose its own
 * source address. A WQE completes once its packet left (there is no ACK).
 *
 * Receive: packets for a UD or GSI QP are checked here (transport, state,
 * Q_Key) and executed by the QP's responder runner, which keeps them in
 * order with the flushes of the receive queue. The first 40 bytes of the
 * receive buffer get the sender's network header: for IPv4 the 20-byte
 * IPv4 header in the last 20 of them (the first 20 are zero), for IPv6 the
 * IPv6 header, as rdma_rxe and RoCE hardware do. A packet that finds no
 * receive WQE, or one too small, is dropped and counted: UD has no RNR
 * and no NAK, and the WQE stays for the next one (IBTA 9.9.3, class D).
 *
 * The GSI QP is QPN 1 on the wire and in the QPN table; its Q_Key is
 * always IB_QP1_QKEY (IBTA 10.2.4, C9-49).
 */
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <rdma/ib_mad.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "sroce_ah.h"
#include "sroce_counters.h"
#include "sroce_cq.h"
#include "sroce_dev.h"
#include "sroce_pkt.h"
#include "sroce_psn.h"
#include "sroce_qp.h"
#include "sroce_recv.h"
#include "sroce_seg.h"
#include "sroce_srq.h"
#include "sroce_ud.h"
#include "sroce_xmit.h"

/* WQEs sent per call before the requester lets others run. */
#define SROCE_UD_BATCH		16

/**
 * sroce_ud_select_qkey() - the Q_Key a UD SEND carries
 * @wr_qkey: the Q_Key of the work request
 * @qp_qkey: the sending QP's own Q_Key
 *
 * IBTA vol 1 10.2.5 (C10-15): a WR Q_Key with its high-order bit set is
 * not used; the QP's Q_Key is sent instead, so that unprivileged users
 * cannot send with a controlled Q_Key.
 */
u32 sroce_ud_select_qkey(u32 wr_qkey, u32 qp_qkey)
{
	return wr_qkey & SROCE_UD_QKEY_USE_QP ? qp_qkey : wr_qkey;
}

/**
 * sroce_ud_qkey_ok() - may a packet with @pkt_qkey reach this QP?
 * @type: IB_QPT_UD or IB_QPT_GSI
 * @qp_qkey: the QP's Q_Key
 * @pkt_qkey: the DETH's Q_Key
 *
 * IBTA 10.2.4 / C9-49: the GSI QP takes only the well-known IB_QP1_QKEY,
 * a UD QP only its own Q_Key.
 */
bool sroce_ud_qkey_ok(enum ib_qp_type type, u32 qp_qkey, u32 pkt_qkey)
{
	if (type == IB_QPT_GSI)
		return pkt_qkey == IB_QP1_QKEY;
	return pkt_qkey == qp_qkey;
}

/**
 * sroce_ud_grh_fill() - the 40-byte GRH area of a UD receive buffer
 * @grh: SROCE_UD_GRH_BYTES to fill
 * @nh: the received IPv4 (20 bytes, no options) or IPv6 (40 bytes) header
 * @ipv6: which one @nh is
 *
 * RoCEv2 has no GRH; the IP header stands in for it (Annex A17.4.5.1).
 * An IPv4 header goes in the last 20 bytes after 20 zero bytes, where
 * ib_get_rdma_header_version() and rdma_rxe expect it.
 */
void sroce_ud_grh_fill(u8 *grh, const void *nh, bool ipv6)
{
	if (ipv6) {
		memcpy(grh, nh, sizeof(struct ipv6hdr));
		return;
	}
	memset(grh, 0, SROCE_UD_GRH_BYTES - sizeof(struct iphdr));
	memcpy(grh + SROCE_UD_GRH_BYTES - sizeof(struct iphdr), nh,
	       sizeof(struct iphdr));
}

/**
 * sroce_ud_recv_len_ok() - does a UD payload fit a receive WQE?
 * @paylen: payload bytes of the packet
 * @buf_len: total length of the WQE's SGEs
 *
 * The buffer takes the GRH area and then the payload (IBTA 11.4.1.2).
 */
bool sroce_ud_recv_len_ok(u32 paylen, u32 buf_len)
{
	return buf_len >= SROCE_UD_GRH_BYTES &&
	       paylen <= buf_len - SROCE_UD_GRH_BYTES;
}

void sroce_ud_wr_to_wqe(struct rxe_send_wqe *wqe, const struct ib_send_wr *wr)
{
	const struct ib_ud_wr *ud = ud_wr(wr);

	wqe->wr.wr.ud.remote_qpn = ud->remote_qpn;
	wqe->wr.wr.ud.remote_qkey = ud->remote_qkey;
	wqe->wr.wr.ud.pkey_index = ud->pkey_index;
	/* 0 is no AH's number: a WR without one fails when it is sent. */
	wqe->wr.wr.ud.ah_num = ud->ah ? to_sah(ud->ah)->ah_num : 0;
}

/*
 * The AV of AH @ah_num if it exists and belongs to @pd. The copy is taken
 * under the table's lock: destroy_ah erases the AH under it before the
 * core frees it.
 */
static bool sroce_ud_get_av(struct sroce_dev *sdev, struct ib_pd *pd,
			    u32 ah_num, struct sroce_av *av)
{
	struct sroce_ah *ah;
	unsigned long flags;
	bool ok = false;

	xa_lock_irqsave(&sdev->ahs, flags);
	ah = xa_load(&sdev->ahs, ah_num);
	if (ah && ah->ibah.pd == pd) {
		*av = ah->av;
		ok = true;
	}
	xa_unlock_irqrestore(&sdev->ahs, flags);
	return ok;
}

static u32 sroce_ud_port_mtu(struct sroce_dev *sdev)
{
	enum ib_mtu mtu;

	spin_lock_bh(&sdev->port_lock);
	mtu = sdev->active_mtu;
	spin_unlock_bh(&sdev->port_lock);
	return ib_mtu_enum_to_int(mtu);
}

/*
 * Build the packet of @wqe into *@skb (NULL when out of memory, or when an
 * ODP page of the payload is being faulted in) with its destination in
 * @av. Returns the WQE's status. Caller holds req.lock.
 */
static enum ib_wc_status sroce_ud_build(struct sroce_qp *qp,
					struct sroce_swqe *wqe,
					struct sroce_av *av,
					struct sk_buff **skb)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_opcode_info *info;
	struct sroce_bth_fields f = {};
	struct sroce_sge_cursor cursor;
	unsigned int o;
	u8 *hdr;
	int err;

	*skb = NULL;
	/* IBTA C10-93.1.1 leaves the choice; a local error tells the poster. */
	if (wqe->length > sroce_ud_port_mtu(sdev))
		return IB_WC_LOC_LEN_ERR;
	if (!sroce_ud_get_av(sdev, qp->ibqp.pd, wqe->ud.ah_num, av))
		return IB_WC_LOC_QP_OP_ERR;
	av->sport = rdma_get_udp_sport(av->flow_label, qp->ibqp.qp_num,
				       wqe->ud.remote_qpn);

	f.opcode = wqe->opcode == IB_WR_SEND_WITH_IMM ?
		   SROCE_OP_UD_SEND_ONLY_WITH_IMM : SROCE_OP_UD_SEND_ONLY;
	info = sroce_opcode_info(f.opcode);
	*skb = sroce_xmit_alloc_av(qp, av, info->hdr_len, wqe->length,
				   (void **)&hdr);
	if (!*skb)
		return IB_WC_SUCCESS;

	f.pad = sroce_pkt_pad_bytes(wqe->length);
	f.pkey = SROCE_DEFAULT_PKEY;
	f.qpn = wqe->ud.remote_qpn;
	f.psn = qp->req.psn;
	f.se = !!(wqe->send_flags & IB_SEND_SOLICITED);
	sroce_pkt_build_hdrs(hdr, &f);
	qp->req.psn = sroce_psn_add(qp->req.psn, 1);

	o = sroce_opcode_hdr_offset(info, SROCE_HDR_DETH);
	sroce_deth_set((void *)(hdr + o),
		       sroce_ud_select_qkey(wqe->ud.remote_qkey,
					    READ_ONCE(qp->attr.qkey)),
		       qp->ibqp.qp_num);
	o = sroce_opcode_hdr_offset(info, SROCE_HDR_IMMDT);
	if (o)
		sroce_immdt_set((void *)(hdr + o), wqe->imm_data);

	if (!wqe->length)
		return IB_WC_SUCCESS;
	if (wqe->inline_data) {
		memcpy(hdr + info->hdr_len, wqe->inline_buf, wqe->length);
		return IB_WC_SUCCESS;
	}
	sroce_sge_cursor_init(&cursor, wqe->sge, wqe->num_sge);
	err = sroce_sge_copy(sdev, qp->ibqp.pd, &cursor, hdr + info->hdr_len,
			     wqe->length, 0, SROCE_FROM_MR);
	if (!err)
		return IB_WC_SUCCESS;
	kfree_skb(*skb);
	*skb = NULL;
	/* An ODP page on its way: no packet, as when out of memory. */
	if (err == -EAGAIN)
		return IB_WC_SUCCESS;
	return err == -EFAULT ? IB_WC_LOC_PROT_ERR : IB_WC_LOC_LEN_ERR;
}

/*
 * Retire the oldest WQE (at req.cur) with @status (sroce_comp_retire()).
 * Returns false when the send CQ overflowed. Caller holds req.lock.
 */
static bool sroce_ud_complete(struct sroce_qp *qp, struct sroce_swqe *wqe,
			      enum ib_wc_status status)
{
	struct sroce_req *req = &qp->req;

	/* What sroce_req_flush() expects of a QP with nothing in flight. */
	req->cur = (req->cur + 1) & qp->sq.queue.index_mask;
	req->sent_end = req->cur;
	req->cur_pkt = 0;
	return sroce_comp_retire(qp, wqe, status);
}

int sroce_ud_send(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	enum ib_wc_status status;
	struct sroce_swqe *wqe;
	struct sk_buff *skb;
	struct sroce_av av;
	unsigned long flags;
	unsigned int n;
	bool ok;
	u32 index;

	for (n = 0; n < SROCE_UD_BATCH; n++) {
		spin_lock_bh(&req->lock);
		if (req->stopped || READ_ONCE(qp->state) != IB_QPS_RTS)
			goto idle;
		if (req->cur == req->head) {
			spin_lock_irqsave(&qp->sq.lock, flags);
			sroce_sq_fetch(qp);
			req->head = qp->sq.head;
			spin_unlock_irqrestore(&qp->sq.lock, flags);
			if (req->cur == req->head)
				goto idle;
		}
		index = req->cur;
		wqe = sroce_sq_wqe(qp, index);
		status = wqe->status;
		skb = NULL;
		if (status == IB_WC_SUCCESS) {
			status = sroce_ud_build(qp, wqe, &av, &skb);
			if (status == IB_WC_SUCCESS && !skb) {
				spin_unlock_bh(&req->lock);
				return -ENOBUFS;
			}
		}
		spin_unlock_bh(&req->lock);

		/* The local stack pushing back is not a loss: send again. */
		if (skb && sroce_req_pushed_back(qp, sroce_xmit_av(qp, &av, skb)))
			return -ENOBUFS;

		/*
		 * IBTA 10.3.1: a local error moves a UD or GSI QP to SQE, and
		 * before its error completion is posted: ib_mad answers that
		 * completion by moving QP1 from SQE back to RTS.
		 */
		if (status != IB_WC_SUCCESS)
			sroce_qp_enter_sqe(qp);

		ok = true;
		spin_lock_bh(&req->lock);
		/* A flush may have completed it meanwhile. */
		if (!req->stopped && req->cur == index &&
		    qp->sq.queue.index == index)
			ok = sroce_ud_complete(qp, wqe, status);
		spin_unlock_bh(&req->lock);

		/* A CQ overrun ends the QP; a failed WQE flushes the SQ. */
		if (!ok) {
			sroce_qp_error(qp);
			return 0;
		}
		if (status != IB_WC_SUCCESS) {
			sroce_qp_send_error(qp);
			return 0;
		}
	}
	return 1;

idle:
	spin_unlock_bh(&req->lock);
	return 0;
}

bool sroce_ud_recv_ok(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	struct sroce_counters *cnt = &to_sdev(qp->ibqp.device)->counters;
	enum ib_qp_state state = READ_ONCE(qp->state);
	const struct sroce_deth *deth = sroce_pkt_deth(pkt);

	/* A UD QP takes UD packets only, and only once it can receive. */
	if ((pkt->opcode & SROCE_OP_TRANSPORT_MASK) != SROCE_TRANSPORT_UD ||
	    !deth || !sroce_qp_state_receives(state)) {
		sroce_counter_inc(cnt, SROCE_CNT_RCVD_NO_QP);
		return false;
	}
	if (!sroce_ud_qkey_ok(qp->ibqp.qp_type, READ_ONCE(qp->attr.qkey),
			      sroce_deth_qkey(deth))) {
		sroce_counter_inc(cnt, SROCE_CNT_RCVD_BAD_QKEY);
		return false;
	}
	return true;
}

void sroce_ud_recv(struct sroce_qp *qp, struct sk_buff *skb,
		   struct sroce_pkt *pkt)
{
	if (!sroce_ud_recv_ok(qp, pkt)) {
		kfree_skb(skb);
		return;
	}
	sroce_resp_recv(qp, skb, pkt);
}

/*
 * Copy the next receive WQE into resp->rwqe. One of the QP's RQ is only
 * peeked at (sroce_ud_recv_complete() retires it) and one of an SRQ taken
 * only if @paylen fits it: a message too long for its WQE is dropped
 * (class D, as sroce_ud_recv_len_ok() decides) and leaves the WQE to the
 * next one. An SRQ WQE already taken for a datagram that was lost
 * (resp->have_wqe) serves the next one, on the same terms.
 */
static int sroce_ud_fetch_wqe(struct sroce_qp *qp, u32 paylen)
{
	u32 len = SROCE_UD_GRH_BYTES + paylen;
	unsigned long flags;
	int err;

	if (qp->ibqp.srq && qp->resp.have_wqe)
		return qp->resp.rwqe->length < len ? -EMSGSIZE : 0;
	if (qp->ibqp.srq)
		return sroce_srq_fetch_len(to_ssrq(qp->ibqp.srq),
					   qp->resp.rwqe, len);
	spin_lock_irqsave(&qp->rq.lock, flags);
	err = sroce_rq_fetch(qp, qp->resp.rwqe);
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	return err;
}

/* Post the receive completion of the fetched WQE. Runner only. */
static int sroce_ud_recv_complete(struct sroce_qp *qp, struct ib_wc *wc,
				  bool solicited)
{
	struct sroce_cq *cq = to_scq(qp->ibqp.recv_cq);
	unsigned long flags;

	if (!qp->ibqp.srq) {
		spin_lock_irqsave(&qp->rq.lock, flags);
		sroce_queue_advance_consumer(&qp->rq.queue);
		spin_unlock_irqrestore(&qp->rq.lock, flags);
	}

	qp->resp.have_wqe = false;
	wc->wr_id = qp->resp.rwqe->wr_id;
	wc->qp = &qp->ibqp;
	wc->port_num = 1;
	return sroce_cq_post(cq, wc, solicited);
}

/* A local error on the receive side: complete the WQE, QP to ERR. */
static void sroce_ud_recv_fail(struct sroce_qp *qp, enum ib_wc_status status)
{
	struct ib_wc wc = {
		.status = status,
		.opcode = IB_WC_RECV,
	};

	sroce_ud_recv_complete(qp, &wc, true);
	qp->resp.fatal = true;
	qp->resp.error_pending = true;
}

void sroce_ud_resp_process(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = (const struct sroce_pkt *)skb->cb;
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	const struct sroce_immdt *immdt = sroce_pkt_immdt(pkt);
	bool ipv6 = skb->protocol == htons(ETH_P_IPV6);
	struct sroce_resp *resp = &qp->resp;
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct sroce_sge_cursor cursor;
	struct ib_pd *pd;
	u8 grh[SROCE_UD_GRH_BYTES];
	struct ib_wc wc;
	int err;

	if (resp->fatal || !sroce_qp_state_receives(state))
		goto drop;

	err = sroce_ud_fetch_wqe(qp, pkt->paylen);
	if (err == -ENOENT || err == -EMSGSIZE)
		goto drop;
	if (err) {
		sroce_ud_recv_fail(qp, IB_WC_LOC_QP_OP_ERR);
		goto out;
	}
	if (!sroce_ud_recv_len_ok(pkt->paylen, resp->rwqe->length))
		goto drop;

	sroce_ud_grh_fill(grh, skb_network_header(skb), ipv6);
	sroce_sge_cursor_init(&cursor, resp->rwqe->sge, resp->rwqe->num_sge);
	pd = sroce_qp_recv_pd(qp);
	err = sroce_sge_copy(sdev, pd, &cursor, grh, sizeof(grh),
			     IB_ACCESS_LOCAL_WRITE, SROCE_TO_MR);
	if (!err)
		err = sroce_sge_copy_skb(sdev, pd, &cursor, skb,
					 sroce_recv_payload_off(skb, pkt),
					 pkt->paylen, IB_ACCESS_LOCAL_WRITE);
	/*
	 * An ODP page on its way: UD cannot ask for the datagram again, it
	 * is lost, and the receive WQE waits for the next; one taken from an
	 * SRQ is kept for it (and flushed with the QP).
	 */
	if (err == -EAGAIN) {
		if (qp->ibqp.srq)
			resp->have_wqe = true;
		goto drop;
	}
	if (err) {
		sroce_ud_recv_fail(qp, IB_WC_LOC_PROT_ERR);
		goto out;
	}

	memset(&wc, 0, sizeof(wc));
	wc.status = IB_WC_SUCCESS;
	wc.opcode = IB_WC_RECV;
	wc.byte_len = SROCE_UD_GRH_BYTES + pkt->paylen;
	wc.src_qp = sroce_deth_sqpn(sroce_pkt_deth(pkt));
	wc.wc_flags = IB_WC_GRH;
	if (immdt) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = sroce_immdt_imm(immdt);
	}
	/*
	 * Kernel users (ib_mad, rdma_cm) build their reply AH from these;
	 * the bits mean tag matching to libibverbs, so user CQs get none.
	 */
	if (!to_scq(qp->ibqp.recv_cq)->user) {
		wc.wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
		wc.network_hdr_type = ipv6 ? RDMA_NETWORK_IPV6 :
					     RDMA_NETWORK_IPV4;
		if (skb_mac_header_was_set(skb) &&
		    skb_network_header(skb) - skb_mac_header(skb) >= ETH_HLEN) {
			ether_addr_copy(wc.smac, eth_hdr(skb)->h_source);
			wc.wc_flags |= IB_WC_WITH_SMAC;
		}
		/*
		 * The core matches the reply's source GID by VLAN too: without
		 * it no GID of a VLAN address matches, and rdma_cm drops
		 * every connect request sent to one.
		 */
		if (pkt->vlan_id != SROCE_PKT_NO_VLAN) {
			wc.vlan_id = pkt->vlan_id;
			wc.wc_flags |= IB_WC_WITH_VLAN;
		}
	}
	sroce_counter_inc(&sdev->counters, SROCE_CNT_RDMA_RECVS);
	/* IBTA 11.4.2.2: a CQ overrun is fatal to the QP. */
	if (sroce_ud_recv_complete(qp, &wc,
				   sroce_bth_se(sroce_pkt_bth(pkt)))) {
		resp->fatal = true;
		resp->error_pending = true;
	}
	goto out;

drop:
	sroce_counter_inc(&sdev->counters, SROCE_CNT_UD_RECV_DROPPED);
out:
	consume_skb(skb);
}
