// SPDX-License-Identifier: GPL-2.0
/*
 * srq-test DEV GID_INDEX: shared receive queues and UC through the stock
 * rxe provider on one device (QPs connected to each other), for what the
 * standard tools do not exercise:
 *
 *  - modify_srq(IBV_SRQ_MAX_WR) grows the ring through the rxe ABI's user
 *    pointer (the provider remaps it), keeping the WQEs posted before;
 *    shrinking below what is posted fails and leaves the SRQ working;
 *  - the SRQ limit fires IBV_EVENT_SRQ_LIMIT_REACHED once, then disarms;
 *  - WQEs are taken in order by the attached QP, data lands where each
 *    WQE says;
 *  - a QP moved to ERR raises IBV_EVENT_QP_LAST_WQE_REACHED and does not
 *    flush the SRQ: another QP receives the WQEs left;
 *  - garbage WQEs written straight into the SRQ ring (SGE count beyond
 *    max_sge, total length beyond 2^31) complete in error on the receiving
 *    QP, never crash;
 *  - UC: a SEND that finds no receive WQE is dropped (no RNR), the
 *    sender's WQE completes anyway, and the next SEND is delivered; RDMA
 *    WRITE with immediate lands data and completes a receive;
 *  - a QP in one PD on an SRQ of another: the SRQ's PD grants the WQEs'
 *    L_Keys, the QP's does not;
 *  - UD on an SRQ: datagrams take its WQEs in order; one too long for
 *    the WQE at the head is dropped and leaves the WQE to the next.
 *
 * Prints TAP-style "ok - ..." / "not ok - ..." lines; exits 1 if any
 * check failed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

#define SLOT		256	/* receive buffer per WQE */
#define NSLOTS		64
#define MSG		200
#define UD_GRH		40	/* GRH area ahead of a UD receive's payload */
#define UD_QKEY		0x11111111

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq;
static struct ibv_mr *mr;
static uint8_t *sbuf, *rbuf;
static union ibv_gid gid;
static int gidx;

static struct ibv_qp *make_qp_in(struct ibv_pd *in, enum ibv_qp_type type,
				 struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = scq,
		.recv_cq = rcq,
		.srq = srq,
		.cap = {
			.max_send_wr = 64,
			.max_recv_wr = srq ? 0 : 16,
			.max_send_sge = 2,
			.max_recv_sge = srq ? 0 : 2,
		},
		.qp_type = type,
	};

	return ibv_create_qp(in, &a);
}

static struct ibv_qp *make_qp(enum ibv_qp_type type, struct ibv_srq *srq)
{
	return make_qp_in(pd, type, srq);
}

static int qp_to(struct ibv_qp *qp, enum ibv_qp_state state, uint32_t dqpn)
{
	struct ibv_qp_attr a = { .qp_state = state };
	int rc = qp->qp_type == IBV_QPT_RC;
	int mask = IBV_QP_STATE;

	switch (state) {
	case IBV_QPS_INIT:
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		break;
	case IBV_QPS_RTR:
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dqpn;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = gidx;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (rc) {
			a.max_dest_rd_atomic = 1;
			a.min_rnr_timer = 1;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		}
		break;
	case IBV_QPS_RTS:
		mask |= IBV_QP_SQ_PSN;
		if (rc) {
			a.timeout = 14;
			a.retry_cnt = 7;
			a.rnr_retry = 1;
			a.max_rd_atomic = 1;
			mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		}
		break;
	default:
		break;
	}
	return ibv_modify_qp(qp, &a, mask);
}

static int connect_pair(struct ibv_qp *a, struct ibv_qp *b)
{
	return qp_to(a, IBV_QPS_INIT, 0) || qp_to(b, IBV_QPS_INIT, 0) ||
	       qp_to(a, IBV_QPS_RTR, b->qp_num) ||
	       qp_to(b, IBV_QPS_RTR, a->qp_num) ||
	       qp_to(a, IBV_QPS_RTS, 0) || qp_to(b, IBV_QPS_RTS, 0);
}

/* Post one signalled SEND of MSG bytes of @fill; its completion status. */
static int send_msg(struct ibv_qp *qp, uint8_t fill, enum ibv_wr_opcode op,
		    uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)sbuf, .length = MSG, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = fill, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(0x5000 + fill),
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	memset(sbuf, fill, MSG);
	if (ibv_post_send(qp, &wr, &bad))
		return -1;
	if (!poll_one(scq, &wc, 5000))
		return -2;
	return wc.status;
}

static int post_srq_key(struct ibv_srq *srq, uint64_t wr_id, int slot,
			uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(rbuf + slot * SLOT), .length = SLOT,
		.lkey = lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

static int post_srq(struct ibv_srq *srq, uint64_t wr_id, int slot)
{
	return post_srq_key(srq, wr_id, slot, mr->lkey);
}

static int slot_holds(int slot, uint8_t fill)
{
	int i;

	for (i = 0; i < MSG; i++)
		if (rbuf[slot * SLOT + i] != fill)
			return 0;
	return 1;
}

/*
 * The provider's SRQ ring: the uverbs mapping whose address the
 * provider's SRQ object holds and whose header has @max_wr slots - 1.
 * Found this way rather than by the provider's private struct layout.
 */
static uint8_t *find_srq_ring(struct ibv_srq *srq, uint32_t max_wr)
{
	uintptr_t starts[64], *w = (uintptr_t *)srq;
	char line[512];
	int n = 0, i, j;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return NULL;
	while (n < 64 && fgets(line, sizeof(line), f))
		if (strstr(line, "uverbs"))
			starts[n++] = strtoull(line, NULL, 16);
	fclose(f);
	for (i = 0; i < 48; i++)
		for (j = 0; j < n; j++)
			if (w[i] == starts[j] &&
			    ((uint32_t *)starts[j])[1] == max_wr)
				return (uint8_t *)starts[j];
	return NULL;
}

/*
 * Write a WQE straight into the provider's SRQ ring, as a buggy or hostile
 * program could, and publish it.
 */
static int post_garbage(struct ibv_srq *srq, uint64_t wr_id, uint32_t nsge,
			uint32_t len)
{
	struct ibv_srq_attr attr;
	uint8_t *q;
	uint32_t log2, mask, prod;
	struct rxe_recv_wqe *w;

	if (ibv_query_srq(srq, &attr))
		return -1;
	q = find_srq_ring(srq, attr.max_wr);
	if (!q)
		return -1;
	log2 = *(uint32_t *)q;
	mask = *(uint32_t *)(q + 4);
	prod = __atomic_load_n((uint32_t *)(q + 128), __ATOMIC_ACQUIRE);
	if (log2 < 6 || log2 > 16 || prod > mask)
		return -1;
	w = (void *)(q + 384 + ((size_t)prod << log2));
	memset(w, 0xee, 1u << log2);
	w->wr_id = wr_id;
	w->dma.num_sge = nsge;
	w->dma.length = len;
	w->dma.sge[0].addr = (uintptr_t)rbuf;
	w->dma.sge[0].length = len;
	w->dma.sge[0].lkey = mr->lkey;
	if (nsge == 2) {
		w->dma.sge[1].addr = (uintptr_t)rbuf;
		w->dma.sge[1].length = len;
		w->dma.sge[1].lkey = mr->lkey;
	}
	__atomic_store_n((uint32_t *)(q + 128), (prod + 1) & mask,
			 __ATOMIC_RELEASE);
	return 0;
}

/* A garbage WQE completes in error on the QP that takes it. */
static void garbage_case(struct ibv_srq *srq, const char *what,
			 uint32_t nsge, uint32_t len, uint64_t wr_id)
{
	struct ibv_qp *a = make_qp(IBV_QPT_RC, NULL);
	struct ibv_qp *b = make_qp(IBV_QPT_RC, srq);
	struct ibv_wc wc;
	void *elem = NULL;
	int ev, got;

	if (!check(a && b && !connect_pair(a, b), "%s: QPs up", what))
		return;
	if (!check(!post_garbage(srq, wr_id, nsge, len),
		   "%s: written into the provider's ring", what))
		return;
	send_msg(a, 0x77, IBV_WR_SEND, 0, 0);
	memset(&wc, 0, sizeof(wc));
	got = poll_one(rcq, &wc, 5000);
	check(got && wc.wr_id == wr_id &&
	      wc.status == IBV_WC_LOC_QP_OP_ERR && wc.qp_num == b->qp_num,
	      "%s: receive completes with LOC_QP_OP_ERR (wr_id %#llx status %d)",
	      what, (unsigned long long)wc.wr_id, wc.status);
	ev = async_event(ctx, 2000, &elem);
	check(ev == IBV_EVENT_QP_LAST_WQE_REACHED && elem == b,
	      "%s: the QP went to error (event %d)", what, ev);
	while (poll_one(scq, &wc, 100))
		;
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
}

static void srq_tests(void)
{
	struct ibv_srq_init_attr init = {
		.attr = { .max_wr = 8, .max_sge = 2 },
	};
	struct ibv_srq_attr attr;
	struct ibv_qp *a, *b, *a2, *c;
	struct ibv_srq *srq;
	struct ibv_wc wc;
	void *elem = NULL;
	int i, ok, ev, rc;

	srq = ibv_create_srq(pd, &init);
	if (!check(!!srq, "create SRQ"))
		exit(1);
	rc = ibv_query_srq(srq, &attr);
	check(!rc && attr.max_wr >= 8 && attr.max_sge >= 2 &&
	      attr.srq_limit == 0,
	      "query: max_wr %u max_sge %u limit %u", attr.max_wr,
	      attr.max_sge, attr.srq_limit);

	for (ok = 1, i = 0; i < 6; i++)
		ok &= !post_srq(srq, 100 + i, i);
	check(ok, "post 6 receives");

	attr.max_wr = 40;
	check(!ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR),
	      "resize to 40 (user-pointer mmap info)");
	rc = ibv_query_srq(srq, &attr);
	check(!rc && attr.max_wr >= 40,
	      "query after resize: max_wr %u", attr.max_wr);
	/* 26 posted: more than the old ring could hold. */
	for (ok = 1, i = 6; i < 26; i++)
		ok &= !post_srq(srq, 100 + i, i);
	check(ok, "post 20 more into the remapped ring");

	attr.srq_limit = 5;
	check(!ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT), "arm limit 5");
	rc = ibv_query_srq(srq, &attr);
	check(!rc && attr.srq_limit == 5,
	      "query: limit %u", attr.srq_limit);

	a = make_qp(IBV_QPT_RC, NULL);
	b = make_qp(IBV_QPT_RC, srq);
	if (!check(a && b && !connect_pair(a, b), "RC pair, receiver on SRQ"))
		exit(1);

	/* 22 messages: 4 WQEs left, below the limit. */
	for (ok = 1, i = 0; i < 22; i++) {
		int st = send_msg(a, i + 1, IBV_WR_SEND, 0, 0);

		if (st || !poll_one(rcq, &wc, 5000) ||
		    wc.status != IBV_WC_SUCCESS || wc.wr_id != 100u + i ||
		    wc.byte_len != MSG || wc.qp_num != b->qp_num ||
		    !slot_holds(i, i + 1)) {
			printf("# message %d: send %d wr_id %llu status %d len %u\n",
			       i, st, (unsigned long long)wc.wr_id, wc.status,
			       wc.byte_len);
			ok = 0;
			break;
		}
	}
	check(ok, "22 SENDs land in SRQ WQEs in order across the resize, data checked");
	ev = async_event(ctx, 2000, &elem);
	check(ev == IBV_EVENT_SRQ_LIMIT_REACHED && elem == srq,
	      "SRQ limit event (event %d)", ev);
	rc = ibv_query_srq(srq, &attr);
	check(!rc && attr.srq_limit == 0,
	      "limit disarmed: %u", attr.srq_limit);
	check(!send_msg(a, 23, IBV_WR_SEND, 0, 0) &&
	      poll_one(rcq, &wc, 5000) && wc.wr_id == 122 && slot_holds(22, 23),
	      "message 23 received");
	ev = async_event(ctx, 300, &elem);
	check(ev == -1, "no second limit event (event %d)", ev);

	attr.max_wr = 1;
	check(ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR) != 0,
	      "resize below the 3 posted WQEs fails");

	check(!qp_to(b, IBV_QPS_ERR, 0), "receiver QP to ERR");
	ev = async_event(ctx, 2000, &elem);
	check(ev == IBV_EVENT_QP_LAST_WQE_REACHED && elem == b,
	      "last WQE reached event (event %d)", ev);
	check(!poll_one(rcq, &wc, 300), "the SRQ's WQEs are not flushed");

	a2 = make_qp(IBV_QPT_RC, NULL);
	c = make_qp(IBV_QPT_RC, srq);
	if (!check(a2 && c && !connect_pair(a2, c), "second pair on the SRQ"))
		exit(1);
	for (ok = 1, i = 0; i < 3; i++)
		ok &= !send_msg(a2, 0x40 + i, IBV_WR_SEND, 0, 0) &&
		      poll_one(rcq, &wc, 5000) &&
		      wc.status == IBV_WC_SUCCESS &&
		      wc.wr_id == 123u + i && wc.qp_num == c->qp_num &&
		      slot_holds(23 + i, 0x40 + i);
	check(ok, "the other QP receives the 3 WQEs left");

	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_qp(a2);
	ibv_destroy_qp(c);

	garbage_case(srq, "num_sge 1000", 1000, 64, 0xbad1);
	garbage_case(srq, "length 2 x 2^31", 2, 0x80000000u, 0xbad2);
	check(!ibv_destroy_srq(srq), "destroy SRQ");
}

/*
 * A QP of one PD on an SRQ of another: the SRQ's WQEs are checked in the
 * SRQ's PD (as ConnectX and siw do), so an MR of the SRQ's PD receives
 * and an MR of the QP's PD is a local protection error.
 */
static void srq_pd_tests(void)
{
	struct ibv_srq_init_attr init = {
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct ibv_qp *a = NULL, *b = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_mr *mr2 = NULL;
	struct ibv_pd *pd2;
	struct ibv_wc wc = {};
	void *elem = NULL;
	int st, ev, ok;

	pd2 = ibv_alloc_pd(ctx);
	if (pd2)
		mr2 = ibv_reg_mr(pd2, rbuf, SLOT * NSLOTS,
				 IBV_ACCESS_LOCAL_WRITE);
	if (mr2)
		srq = ibv_create_srq(pd2, &init);
	if (srq) {
		a = make_qp(IBV_QPT_RC, NULL);
		b = make_qp_in(pd, IBV_QPT_RC, srq);
	}
	if (!check(a && b && !connect_pair(a, b),
		   "RC pair, receiver in PD A on an SRQ of PD B"))
		exit(1);

	memset(rbuf + 40 * SLOT, 0, 2 * SLOT);
	check(!post_srq_key(srq, 0x300, 40, mr2->lkey) &&
	      !post_srq_key(srq, 0x301, 41, mr->lkey), "post 2 receives");
	st = send_msg(a, 0x61, IBV_WR_SEND, 0, 0);
	check(st == IBV_WC_SUCCESS && poll_one(rcq, &wc, 5000) &&
	      wc.status == IBV_WC_SUCCESS && wc.wr_id == 0x300 &&
	      slot_holds(40, 0x61),
	      "a WQE with an L_Key of the SRQ's PD receives (send %d)", st);
	st = send_msg(a, 0x62, IBV_WR_SEND, 0, 0);
	ok = poll_one(rcq, &wc, 5000);
	check(st == IBV_WC_REM_OP_ERR && ok &&
	      wc.status == IBV_WC_LOC_PROT_ERR && wc.wr_id == 0x301 &&
	      rbuf[41 * SLOT] == 0,
	      "one with an L_Key of the QP's PD: local protection error, nothing written (send %d, receive %d)",
	      st, wc.status);
	ev = async_event(ctx, 2000, &elem);
	check(ev == IBV_EVENT_QP_LAST_WQE_REACHED && elem == b,
	      "the receiver's ERR: last WQE reached (event %d)", ev);

	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	check(!ibv_destroy_srq(srq) && !ibv_dereg_mr(mr2) &&
	      !ibv_dealloc_pd(pd2), "destroy SRQ, MR and PD of PD B");
}

static void uc_tests(void)
{
	struct ibv_qp *a = make_qp(IBV_QPT_UC, NULL);
	struct ibv_qp *b = make_qp(IBV_QPT_UC, NULL);
	struct ibv_sge sge = {
		.addr = (uintptr_t)rbuf, .length = SLOT, .lkey = mr->lkey,
	};
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	struct ibv_wc wc;
	int st;

	if (!check(a && b && !connect_pair(a, b), "UC pair"))
		return;
	memset(rbuf, 0, SLOT);
	st = send_msg(a, 0x11, IBV_WR_SEND, 0, 0);
	check(st == IBV_WC_SUCCESS,
	      "UC SEND without a receive WQE completes at the sender (%d)", st);
	check(!poll_one(rcq, &wc, 300), "and is dropped at the receiver");
	check(!ibv_post_recv(b, &rwr, &bad), "post a receive");
	st = send_msg(a, 0x22, IBV_WR_SEND, 0, 0);
	check(st == IBV_WC_SUCCESS && poll_one(rcq, &wc, 5000) &&
	      wc.status == IBV_WC_SUCCESS && wc.wr_id == 7 &&
	      wc.byte_len == MSG && slot_holds(0, 0x22),
	      "the next UC SEND is delivered");

	rwr.wr_id = 8;
	check(!ibv_post_recv(b, &rwr, &bad), "post a receive");
	st = send_msg(a, 0x33, IBV_WR_RDMA_WRITE_WITH_IMM,
		      (uintptr_t)(rbuf + SLOT), mr->rkey);
	check(st == IBV_WC_SUCCESS && poll_one(rcq, &wc, 5000) &&
	      wc.status == IBV_WC_SUCCESS && wc.wr_id == 8 &&
	      wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	      (wc.wc_flags & IBV_WC_WITH_IMM) &&
	      ntohl(wc.imm_data) == 0x5033 && slot_holds(1, 0x33),
	      "UC RDMA WRITE with immediate");
	st = send_msg(a, 0x44, IBV_WR_RDMA_READ, (uintptr_t)(rbuf + SLOT),
		      mr->rkey);
	check(st != IBV_WC_SUCCESS, "UC RDMA READ is refused (%d)", st);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
}

/* One signalled UD SEND of @len bytes of @fill; its completion status. */
static int send_ud(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t dqpn,
		   uint8_t fill, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)sbuf, .length = len, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = fill, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = dqpn,
			   .remote_qkey = UD_QKEY },
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	memset(sbuf, fill, len);
	if (ibv_post_send(qp, &wr, &bad))
		return -1;
	if (!poll_one(scq, &wc, 5000))
		return -2;
	return wc.status;
}

/* Did datagram @fill of MSG bytes land behind the GRH area of @slot? */
static int ud_slot_holds(int slot, uint8_t fill)
{
	int i;

	for (i = 0; i < MSG; i++)
		if (rbuf[slot * SLOT + UD_GRH + i] != fill)
			return 0;
	return 1;
}

/*
 * UD on an SRQ: datagrams take the SRQ's WQEs in order, GRH area first,
 * and complete on the receiving QP; one too long for the WQE at the head
 * is dropped and leaves that WQE to the next datagram.
 */
static void ud_srq_tests(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16,
						  .max_sge = 1 } };
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = gid, .sgid_index = gidx, .hop_limit = 64 },
	};
	struct ibv_qp *tx = NULL, *rx = NULL;
	struct ibv_srq *srq;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	int i, st, got;

	srq = ibv_create_srq(pd, &sa);
	if (srq)
		rx = make_qp(IBV_QPT_UD, srq);
	tx = make_qp(IBV_QPT_UD, NULL);
	ah = ibv_create_ah(pd, &aa);
	if (!check(srq && rx && tx && ah, "UD QP created on an SRQ"))
		goto out;
	if (!check(!ud_qp_up(rx, UD_QKEY, 1) && !ud_qp_up(tx, UD_QKEY, 1),
		   "UD QPs to RTS"))
		goto out;
	for (i = 0; i < 3; i++)
		if (post_srq(srq, 100 + i, 40 + i))
			break;
	if (!check(i == 3, "post 3 receives to the SRQ"))
		goto out;

	memset(rbuf + 40 * SLOT, 0, 3 * SLOT);
	st = send_ud(tx, ah, rx->qp_num, 0x61, MSG);
	got = poll_one(rcq, &wc, 5000);
	check(st == IBV_WC_SUCCESS && got && wc.status == IBV_WC_SUCCESS &&
	      wc.wr_id == 100 && wc.qp_num == rx->qp_num &&
	      wc.src_qp == tx->qp_num && wc.byte_len == UD_GRH + MSG &&
	      (wc.wc_flags & IBV_WC_GRH) && ud_slot_holds(40, 0x61),
	      "UD SEND lands in the SRQ's first WQE (status %d, wr_id %llu, len %u)",
	      got ? (int)wc.status : -1,
	      got ? (unsigned long long)wc.wr_id : 0ULL, got ? wc.byte_len : 0);

	st = send_ud(tx, ah, rx->qp_num, 0x62, SLOT - UD_GRH + 1);
	check(st == IBV_WC_SUCCESS && !poll_one(rcq, &wc, 500),
	      "a datagram too long for the WQE is dropped (send status %d)",
	      st);

	st = send_ud(tx, ah, rx->qp_num, 0x63, MSG);
	got = poll_one(rcq, &wc, 5000);
	check(st == IBV_WC_SUCCESS && got && wc.status == IBV_WC_SUCCESS &&
	      wc.wr_id == 101 && ud_slot_holds(41, 0x63),
	      "the next datagram takes the WQE it left (wr_id %llu)",
	      got ? (unsigned long long)wc.wr_id : 0ULL);
out:
	if (ah)
		ibv_destroy_ah(ah);
	if (tx)
		ibv_destroy_qp(tx);
	if (rx)
		ibv_destroy_qp(rx);
	if (srq)
		check(!ibv_destroy_srq(srq), "destroy the UD QP's SRQ");
}

/*
 * target PEER_IPV6 QPN_FILE: a UC QP with 8 receives posted (4 KiB each,
 * wr_id 0..7), connected to QPN 0x100 at PEER_IPV6 from rq_psn 1000, for
 * uc-inject.py on the peer to send crafted packets to. Writes its QPN to
 * QPN_FILE, then prints every receive completion for @secs seconds:
 * "recv WR_ID LEN FIRST_BYTE LAST_BYTE STATUS".
 */
static int uc_target(const char *peer, const char *qpn_file, int secs)
{
	struct ibv_qp *qp = make_qp(IBV_QPT_UC, NULL);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	struct ibv_recv_wr *bad;
	struct ibv_wc wc;
	long end;
	FILE *f;
	int i;

	if (!qp || qp_to(qp, IBV_QPS_INIT, 0))
		return 2;
	for (i = 0; i < 8; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(sbuf + i * 4096), .length = 4096,
			.lkey = mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1 };

		if (ibv_post_recv(qp, &wr, &bad))
			return 2;
	}
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = 0x100;
	a.rq_psn = 1000;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (gid_of(peer, &a.ah_attr.grh.dgid) ||
	    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
		return 2;
	f = fopen(qpn_file, "w");
	if (!f)
		return 2;
	fprintf(f, "%u\n", qp->qp_num);
	fclose(f);
	printf("# target QPN %u\n", qp->qp_num);
	fflush(stdout);

	end = now_ms() + secs * 1000L;
	while (now_ms() < end) {
		if (!poll_one(rcq, &wc, 100))
			continue;
		printf("recv %llu %u %02x %02x %d\n",
		       (unsigned long long)wc.wr_id, wc.byte_len,
		       sbuf[wc.wr_id * 4096],
		       sbuf[wc.wr_id * 4096 + (wc.byte_len ? wc.byte_len - 1 : 0)],
		       wc.status);
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int flags;

	if (argc != 3 && !(argc == 7 && !strcmp(argv[3], "target"))) {
		fprintf(stderr, "usage: %s DEV GID_INDEX [target PEER_IPV6 QPN_FILE SECS]\n",
			argv[0]);
		return 2;
	}
	gidx = atoi(argv[2]);
	ctx = open_device(argv[1]);
	if (!ctx || ibv_query_gid(ctx, 1, gidx, &gid)) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 2;
	}
	flags = fcntl(ctx->async_fd, F_GETFL);
	fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK);

	pd = ibv_alloc_pd(ctx);
	scq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	sbuf = calloc(1, SLOT * NSLOTS * 2);
	rbuf = sbuf + SLOT * NSLOTS;
	mr = ibv_reg_mr(pd, sbuf, SLOT * NSLOTS * 2, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!pd || !scq || !rcq || !mr) {
		fprintf(stderr, "setup failed\n");
		return 2;
	}

	/* The receive buffers of target mode: 8 x 4 KiB from sbuf. */
	if (argc == 7)
		return uc_target(argv[4], argv[5], atoi(argv[6]));

	srq_tests();
	srq_pd_tests();
	uc_tests();
	ud_srq_tests();

	printf("# srq-test: %d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
