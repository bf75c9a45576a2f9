// SPDX-License-Identifier: GPL-2.0
/*
 * qpstate-test DEV GID_INDEX: the send queue states SQE and SQD through
 * the stock rxe provider, on one device (its QPs talk to each other):
 *
 *  - UD: a SEND longer than the port MTU completes with a local length
 *    error and moves the QP to SQE (IBTA 10.3.1), not ERR; the WQE behind
 *    it and one posted in SQE complete as flushed; the receive queue
 *    still takes a message from another QP; modify SQE -> RTS (with
 *    IBV_QP_CUR_STATE, as ib_mad does for QP1) and the next SEND works;
 *  - UC: a SEND with an invalid lkey completes with a local protection
 *    error and moves the QP to SQE; SQE -> RTS and the next SEND arrives;
 *    (sroce only) a LOCAL_INV posted behind a SEND completes once the
 *    SEND has;
 *  - SQD: RTS -> SQD with en_sqd_async_notify raises
 *    IBV_EVENT_SQ_DRAINED once drained; query_qp shows SQD, not draining;
 *    a SEND posted in SQD is not started until SQD -> RTS;
 *  - SQD while an RC SEND is outstanding (sroce only): attribute changes
 *    are refused with EBUSY until the SQ has drained; once drained, a new
 *    timeout is the requester's (the restrack shows it);
 *  - SQE cannot be entered by modify_qp;
 *  - a chain of RC QPs answering each other on one host (sroce only): X
 *    has 8192 one-packet WRITEs outstanding to Y, which was in INIT and
 *    dropped them; Y comes up expecting X's first PSN and W, also aimed
 *    at Y, sends a one-packet WRITE with that PSN first, its poster
 *    holding the CPU at SCHED_FIFO until it has polled X's CQ. Y's ACK
 *    for it goes to X, whose requester must not then send from inside
 *    W's delivery of looped-back packets (each ACK from Y would run it
 *    again: all of X's data, BH off, in W's post). W's post returns
 *    with most of X's WRITEs outstanding, and the QPs are destroyed
 *    while X still sends (W, whose ACK went to X, never completes).
 *
 * Prints TAP-style "ok - ..." / "not ok - ..." lines; exits 1 if any
 * check failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-common.h"

#define QKEY		0x11110000
#define SLOT		4096	/* receive buffer per WQE, GRH area included */
#define NSLOTS		16
#define GRH		40

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq;
static struct ibv_mr *mr;
static uint8_t *sbuf, *rbuf;
static union ibv_gid gid;
static int gidx;

static enum ibv_qp_state qp_state(struct ibv_qp *qp, int *draining)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return (enum ibv_qp_state)-1;
	if (draining)
		*draining = a.sq_draining;
	return a.qp_state;
}

static struct ibv_qp *make_qp(enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = NSLOTS,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = type,
	};

	return ibv_create_qp(pd, &a);
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	errno = ibv_modify_qp(qp, a, mask);
	return errno;
}

/* RESET -> RTS; @dqpn is the peer for UC. */
static int qp_up(struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int uc = qp->qp_type == IBV_QPT_UC;

	if (uc) {
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
		if (modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			return -1;
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_RTR,
			.path_mtu = IBV_MTU_1024,
			.dest_qp_num = dqpn,
			.ah_attr = {
				.is_global = 1,
				.grh = { .dgid = gid, .sgid_index = gidx,
					 .hop_limit = 64 },
				.port_num = 1,
			},
		};
		if (modify(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			   IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
			return -1;
	} else {
		a.qkey = QKEY;
		if (modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			   IBV_QP_PORT | IBV_QP_QKEY))
			return -1;
		a.qp_state = IBV_QPS_RTR;
		if (modify(qp, &a, IBV_QP_STATE))
			return -1;
	}
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS };
	return modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static int post_recvs(struct ibv_qp *qp, int first, int n)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	int i;

	for (i = first; i < first + n; i++) {
		sge = (struct ibv_sge){
			.addr = (uintptr_t)(rbuf + (size_t)(i % NSLOTS) * SLOT),
			.length = SLOT, .lkey = mr->lkey,
		};
		wr = (struct ibv_recv_wr){
			.wr_id = 1000 + i, .sg_list = &sge, .num_sge = 1,
		};
		if (ibv_post_recv(qp, &wr, &bad))
			return -1;
	}
	return 0;
}

/* Post SENDs of @len bytes (lkey @lkey) to @ah/@dqpn, one WR per @ids. */
static int post_sends(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t dqpn,
		      const uint64_t *ids, int n, uint32_t len, uint32_t lkey)
{
	struct ibv_send_wr wr[4], *bad;
	struct ibv_sge sge[4];
	int i;

	for (i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)sbuf, .length = len, .lkey = lkey,
		};
		wr[i] = (struct ibv_send_wr){
			.wr_id = ids[i], .sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.next = i + 1 < n ? &wr[i + 1] : NULL,
		};
		if (ah) {
			wr[i].wr.ud.ah = ah;
			wr[i].wr.ud.remote_qpn = dqpn;
			wr[i].wr.ud.remote_qkey = QKEY;
		}
	}
	return ibv_post_send(qp, wr, &bad);
}

/* The next send completion is @id with @status. */
static int send_done(uint64_t id, enum ibv_wc_status status)
{
	struct ibv_wc wc;

	if (!poll_one(scq, &wc, 5000)) {
		printf("# no send completion for %llu\n", (unsigned long long)id);
		return 0;
	}
	if (wc.wr_id != id || wc.status != status)
		printf("# send completion %llu status %s, want %llu %s\n",
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status), (unsigned long long)id,
		       ibv_wc_status_str(status));
	return wc.wr_id == id && wc.status == status;
}

/* A receive of @len payload bytes completes on @qp. */
static int recv_done(struct ibv_qp *qp, uint32_t len)
{
	struct ibv_wc wc;

	if (!poll_one(rcq, &wc, 5000)) {
		printf("# no receive completion\n");
		return 0;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.qp_num != qp->qp_num ||
	    wc.byte_len != len)
		printf("# receive: status %s qp %u len %u\n",
		       ibv_wc_status_str(wc.status), wc.qp_num, wc.byte_len);
	return wc.status == IBV_WC_SUCCESS && wc.qp_num == qp->qp_num &&
	       wc.byte_len == len;
}

static int to_rts_from(struct ibv_qp *qp, enum ibv_qp_state cur)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS,
				 .cur_qp_state = cur };

	return modify(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE);
}

static void test_ud_sqe(uint32_t mtu)
{
	struct ibv_qp *a = make_qp(IBV_QPT_UD), *b = make_qp(IBV_QPT_UD);
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.grh = { .dgid = gid, .sgid_index = gidx, .hop_limit = 64 },
		.port_num = 1,
	};
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_SQE };
	uint64_t ids[2];
	struct ibv_ah *ah;
	enum ibv_qp_state st;
	int ok, rc;

	ok = a && b && !qp_up(a, 0) && !qp_up(b, 0) &&
	     !post_recvs(a, 0, 4) && !post_recvs(b, 4, 4);
	if (!check(ok, "UD: two QPs up (%s)", ok ? "" : strerror(errno)))
		return;
	ah = ibv_create_ah(pd, &aa);
	if (!check(ah != NULL, "UD: AH to this port's GID"))
		return;

	ids[0] = 1;
	check(!post_sends(a, ah, b->qp_num, ids, 1, 100, mr->lkey) &&
	      send_done(1, IBV_WC_SUCCESS) && recv_done(b, GRH + 100),
	      "UD: a SEND of 100 bytes arrives");

	/* Longer than the port MTU, then a good one behind it. */
	ids[0] = 2;
	ids[1] = 3;
	check(!post_sends(a, ah, b->qp_num, ids, 2, mtu + 1, mr->lkey),
	      "UD: post two SENDs of %u bytes", mtu + 1);
	check(send_done(2, IBV_WC_LOC_LEN_ERR),
	      "UD: the first, longer than the MTU (%u), completes with LOC_LEN_ERR",
	      mtu);
	check(send_done(3, IBV_WC_WR_FLUSH_ERR),
	      "UD: the WQE behind it completes as flushed");
	st = qp_state(a, NULL);
	check(st == IBV_QPS_SQE, "UD: the QP is in SQE (state %d)", st);

	ids[0] = 4;
	check(!post_sends(a, ah, b->qp_num, ids, 1, 100, mr->lkey) &&
	      send_done(4, IBV_WC_WR_FLUSH_ERR),
	      "UD: a SEND posted in SQE completes as flushed");
	ids[0] = 5;
	check(!post_sends(b, ah, a->qp_num, ids, 1, 60, mr->lkey) &&
	      send_done(5, IBV_WC_SUCCESS) && recv_done(a, GRH + 60),
	      "UD: the receive queue works in SQE");

	rc = to_rts_from(a, IBV_QPS_SQE);
	check(!rc, "UD: modify SQE -> RTS with cur_qp_state (%d)", rc);
	st = qp_state(a, NULL);
	check(st == IBV_QPS_RTS, "UD: the QP is in RTS (state %d)", st);
	ids[0] = 6;
	check(!post_sends(a, ah, b->qp_num, ids, 1, 200, mr->lkey) &&
	      send_done(6, IBV_WC_SUCCESS) && recv_done(b, GRH + 200),
	      "UD: a SEND after SQE -> RTS arrives");
	check(modify(a, &attr, IBV_QP_STATE) != 0,
	      "UD: modify_qp cannot move RTS to SQE");

	/* SQD: drained at once (nothing in flight), with the event. */
	attr = (struct ibv_qp_attr){ .qp_state = IBV_QPS_SQD,
				     .en_sqd_async_notify = 1 };
	rc = modify(a, &attr, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY);
	check(!rc, "UD: modify RTS -> SQD (%d)", rc);
	{
		void *eqp = NULL;
		int ev = async_event(ctx, 5000, &eqp), draining = -1;

		check(ev == IBV_EVENT_SQ_DRAINED && eqp == a,
		      "UD: IBV_EVENT_SQ_DRAINED for the QP (event %d)", ev);
		st = qp_state(a, &draining);
		check(st == IBV_QPS_SQD && draining == 0,
		      "UD: query_qp shows SQD, drained (state %d, draining %d)",
		      st, draining);
	}
	ids[0] = 7;
	{
		struct ibv_wc wc;

		check(!post_sends(a, ah, b->qp_num, ids, 1, 80, mr->lkey) &&
		      !poll_one(scq, &wc, 300),
		      "UD: a SEND posted in SQD is not started");
	}
	check(!to_rts_from(a, IBV_QPS_SQD) && send_done(7, IBV_WC_SUCCESS) &&
	      recv_done(b, GRH + 80),
	      "UD: SQD -> RTS sends it");

	ibv_destroy_ah(ah);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
}

static void test_uc_sqe(void)
{
	struct ibv_qp *a = make_qp(IBV_QPT_UC), *b = make_qp(IBV_QPT_UC);
	uint64_t ids[2];
	enum ibv_qp_state st;
	int ok, rc;

	ok = a && b && !qp_up(a, b->qp_num) && !qp_up(b, a->qp_num) &&
	     !post_recvs(b, 8, 4);
	if (!check(ok, "UC: a connected pair (%s)", ok ? "" : strerror(errno)))
		return;
	ids[0] = 11;
	check(!post_sends(a, NULL, 0, ids, 1, 100, mr->lkey) &&
	      send_done(11, IBV_WC_SUCCESS) && recv_done(b, 100),
	      "UC: a SEND of 100 bytes arrives");

	ids[0] = 12;
	ids[1] = 13;
	check(!post_sends(a, NULL, 0, ids, 2, 100, mr->lkey ^ 0x5a5a00),
	      "UC: post two SENDs with a bad lkey");
	check(send_done(12, IBV_WC_LOC_PROT_ERR),
	      "UC: the first completes with LOC_PROT_ERR");
	check(send_done(13, IBV_WC_WR_FLUSH_ERR),
	      "UC: the second completes as flushed");
	st = qp_state(a, NULL);
	check(st == IBV_QPS_SQE, "UC: the QP is in SQE (state %d)", st);
	rc = to_rts_from(a, IBV_QPS_SQE);
	check(!rc, "UC: modify SQE -> RTS (%d)", rc);
	ids[0] = 14;
	check(!post_sends(a, NULL, 0, ids, 1, 300, mr->lkey) &&
	      send_done(14, IBV_WC_SUCCESS) && recv_done(b, 300),
	      "UC: a SEND after SQE -> RTS arrives");
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
}

/*
 * UC, one post: bind a type 2 window, a SEND, invalidate the window. The
 * LOCAL_INV waits for the SEND to complete, and on UC nothing but the
 * requester itself completes a SEND: all three must complete.
 */
static void test_uc_local_inv(void)
{
	struct ibv_qp *a = make_qp(IBV_QPT_UC), *b = make_qp(IBV_QPT_UC);
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sge = { .addr = (uintptr_t)sbuf, .length = 100,
			       .lkey = mr->lkey };
	struct ibv_mr *wmr;
	struct ibv_mw *mw;
	uint32_t rkey;
	int ok;

	wmr = ibv_reg_mr(pd, rbuf, SLOT, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_MW_BIND);
	mw = wmr ? ibv_alloc_mw(pd, IBV_MW_TYPE_2) : NULL;
	ok = a && b && mw && !qp_up(a, b->qp_num) && !qp_up(b, a->qp_num) &&
	     !post_recvs(b, 8, 1);
	if (!check(ok, "UC: a pair and a type 2 window (%s)",
		   ok ? "" : strerror(errno)))
		goto out;
	rkey = ibv_inc_rkey(mw->rkey);
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 21;
	wr[0].opcode = IBV_WR_BIND_MW;
	wr[0].send_flags = IBV_SEND_SIGNALED;
	wr[0].bind_mw.mw = mw;
	wr[0].bind_mw.rkey = rkey;
	wr[0].bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = wmr, .addr = (uintptr_t)rbuf, .length = 64,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	wr[0].next = &wr[1];
	wr[1].wr_id = 22;
	wr[1].opcode = IBV_WR_SEND;
	wr[1].send_flags = IBV_SEND_SIGNALED;
	wr[1].sg_list = &sge;
	wr[1].num_sge = 1;
	wr[1].next = &wr[2];
	wr[2].wr_id = 23;
	wr[2].opcode = IBV_WR_LOCAL_INV;
	wr[2].send_flags = IBV_SEND_SIGNALED;
	wr[2].invalidate_rkey = rkey;
	check(!ibv_post_send(a, wr, &bad), "UC: post bind, SEND, LOCAL_INV");
	check(send_done(21, IBV_WC_SUCCESS), "UC: the bind completes");
	check(send_done(22, IBV_WC_SUCCESS) && recv_done(b, 100),
	      "UC: the SEND arrives");
	check(send_done(23, IBV_WC_SUCCESS),
	      "UC: the LOCAL_INV behind it completes");
out:
	if (a)
		ibv_destroy_qp(a);
	if (b)
		ibv_destroy_qp(b);
	if (mw)
		ibv_dealloc_mw(mw);
	if (wmr)
		ibv_dereg_mr(wmr);
}

/*
 * An RC QP aimed at a QPN nobody has (on this device's own GID), moved to
 * RTS with @timeout and @retry_cnt; a SEND it posts stays outstanding
 * until its retry runs out. Returns 0 or the errno of the step that failed.
 */
static int rc_to_nobody(struct ibv_qp *q, uint8_t timeout, uint8_t retry_cnt)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int rc;

	rc = modify(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		    IBV_QP_ACCESS_FLAGS);
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = 0xfffe00,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.grh = { .dgid = gid, .sgid_index = gidx,
				 .hop_limit = 64 },
			.port_num = 1,
		},
	};
	rc = rc ?: modify(q, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .timeout = timeout,
				  .retry_cnt = retry_cnt, .max_rd_atomic = 1 };
	return rc ?: modify(q, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * SQD while draining: an RC QP to nobody keeps its one SEND outstanding,
 * so it drains for a retry timeout at least. sroce refuses to change
 * attributes meanwhile (EBUSY; IBTA 10.3.1 lets them change once
 * drained): the path and limits of the packets it still resends must not
 * change under them. rdma_rxe lets them change, so only sroce runs this.
 */
static void test_rc_sqd_draining(void)
{
	struct ibv_qp *q = make_qp(IBV_QPT_RC);
	struct ibv_send_wr wr = { .wr_id = 21, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED,
				  .num_sge = 1 };
	struct ibv_sge sge = { .addr = (uintptr_t)sbuf, .length = 16,
			       .lkey = mr->lkey };
	struct ibv_send_wr *bad;
	struct ibv_qp_attr a;
	int draining = -1, rc;

	wr.sg_list = &sge;
	/* 268 ms per try, one retry: about half a second of draining. */
	rc = q ? rc_to_nobody(q, 16, 1) : errno;
	rc = rc ?: ibv_post_send(q, &wr, &bad);
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_SQD };
	rc = rc ?: modify(q, &a, IBV_QP_STATE);
	check(!rc, "RC: RTS, a SEND to nobody, RTS -> SQD (%d)", rc);
	if (rc)
		return;
	rc = qp_state(q, &draining);
	check(rc == IBV_QPS_SQD && draining == 1,
	      "RC: query_qp shows SQD, draining (state %d, draining %d)", rc,
	      draining);

	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_SQD, .timeout = 17 };
	rc = modify(q, &a, IBV_QP_STATE | IBV_QP_TIMEOUT);
	check(rc == EBUSY, "RC: SQD -> SQD with a timeout while draining: "
	      "EBUSY (%d)", rc);
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_SQD,
		.ah_attr = {
			.is_global = 1,
			.grh = { .dgid = gid, .sgid_index = gidx,
				 .hop_limit = 63 },
			.port_num = 1,
		},
	};
	rc = modify(q, &a, IBV_QP_STATE | IBV_QP_AV);
	check(rc == EBUSY, "RC: SQD -> SQD with an address vector while "
	      "draining: EBUSY (%d)", rc);

	check(send_done(21, IBV_WC_RETRY_EXC_ERR),
	      "RC: the SEND ends in a retry-exceeded error");
	ibv_destroy_qp(q);
}

/*
 * The retransmit timeout sroce's requester uses for @q, in ms, as the
 * restrack shows it (rdma res show qp -dd: drv_timeout-ms); -1 if not
 * found.
 */
static long req_timeout_ms(struct ibv_qp *q)
{
	char cmd[128], word[64];
	long ms = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma res show qp lqpn %u -dd 2>/dev/null",
		 q->qp_num);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s", word) == 1)
		if (!strcmp(word, "drv_timeout-ms") && fscanf(f, "%ld", &ms) != 1)
			ms = -1;
	pclose(f);
	return ms;
}

/*
 * SQD -> SQD once drained: a new timeout is what the requester uses from
 * then on, the same as a QP moved to RTS with it shows (sroce only: the
 * restrack's driver attributes).
 */
static void test_rc_sqd_update(void)
{
	struct ibv_qp *q = make_qp(IBV_QPT_RC), *ref = make_qp(IBV_QPT_RC);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_SQD };
	long before, after, want, deadline;
	int draining = 1, rc;

	rc = q && ref ? rc_to_nobody(q, 16, 1) : errno;
	rc = rc ?: rc_to_nobody(ref, 18, 1);
	rc = rc ?: modify(q, &a, IBV_QP_STATE);
	check(!rc, "RC: two QPs up, one RTS -> SQD (%d)", rc);
	if (rc)
		return;
	/* Nothing was posted: drained at once, or nearly. */
	for (deadline = now_ms() + 2000;
	     qp_state(q, &draining) == IBV_QPS_SQD && draining &&
	     now_ms() < deadline;)
		usleep(1000);
	before = req_timeout_ms(q);
	want = req_timeout_ms(ref);
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_SQD, .timeout = 18 };
	rc = modify(q, &a, IBV_QP_STATE | IBV_QP_TIMEOUT);
	after = req_timeout_ms(q);
	check(!rc && before > 0 && want > before && after == want,
	      "RC: drained SQD -> SQD with timeout 18: the requester takes it "
	      "(%d; %ld ms before, %ld after, %ld wanted)", rc, before, after,
	      want);
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS };
	rc = modify(q, &a, IBV_QP_STATE);
	check(!rc && req_timeout_ms(q) == want,
	      "RC: SQD -> RTS keeps it (%d)", rc);
	ibv_destroy_qp(q);
	ibv_destroy_qp(ref);
}

#define CHAIN_PSN	0x100
#define CHAIN_WR	8192
#define CHAIN_LEN	1024	/* one packet: a WRITE ONLY */

/* @qp from RESET to INIT, granting remote writes. */
static int rc_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/*
 * Hold this CPU (@on): pinned to it at SCHED_FIFO, so that no kernel work
 * item runs here before the test lets go, however fast the host; or let
 * go. 0, or -1 with errno.
 */
static int hold_cpu(int on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };
	cpu_set_t set;

	if (on) {
		CPU_ZERO(&set);
		CPU_SET(sched_getcpu(), &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			return -1;
	}
	return sched_setscheduler(0, on ? SCHED_FIFO : SCHED_OTHER, &sp);
}

static void test_rc_loopback_chain(void)
{
	struct rc_attr ra = {
		.access = IBV_ACCESS_REMOTE_WRITE,
		.mtu = IBV_MTU_1024,
		.dgid = gid,
		.sgid_index = gidx,
		.rq_psn = CHAIN_PSN,
		.sq_psn = CHAIN_PSN,
		.retry_cnt = 7,
	};
	struct ibv_cq *xcq, *wcq;
	struct ibv_qp *x, *y, *w;
	struct ibv_mr *big;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
	}, *bad;
	struct ibv_wc wc[16];
	int i, n, done = 0, failed = 0, rc;
	uint8_t *buf;

	buf = calloc(1, CHAIN_LEN);
	xcq = ibv_create_cq(ctx, CHAIN_WR + 16, NULL, NULL, 0);
	wcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!buf || !xcq || !wcq)
		fatal("chain: buffer or CQs: %s", strerror(errno));
	big = ibv_reg_mr(pd, buf, CHAIN_LEN, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE);
	if (!big)
		fatal("chain: reg_mr: %s", strerror(errno));
	x = rc_qp_ex_create(pd, xcq, 0, CHAIN_WR);
	y = rc_qp_ex_create(pd, wcq, 0, 16);
	w = rc_qp_ex_create(pd, wcq, 0, 16);

	/* X: up, aimed at Y, never timing out; Y: INIT, dropping. */
	ra.dest_qpn = y->qp_num;
	rc = rc_connect(x, &ra) ? errno : rc_init(y);
	sge = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = CHAIN_LEN,
				.lkey = big->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)buf;
	wr.wr.rdma.rkey = big->rkey;
	for (i = 0; !rc && i < CHAIN_WR; i++) {
		wr.send_flags = IBV_SEND_SIGNALED;
		rc = ibv_post_send(x, &wr, &bad);
	}
	check(!rc, "chain: X up with %d WRITEs to Y in INIT (%d)", CHAIN_WR,
	      rc);
	/* What X sent first reaches Y in INIT and is dropped. */
	usleep(200 * 1000);

	/* Y: answers X, expects X's first PSN; W: to Y, sends that PSN. */
	ra.dest_qpn = x->qp_num;
	rc = rc_connect(y, &ra) ? errno : 0;
	ra.dest_qpn = y->qp_num;
	rc = rc ?: (rc_connect(w, &ra) ? errno : 0);
	check(!rc, "chain: Y and W up (%d)", rc);
	/*
	 * X's work item, queued on this CPU, runs only after the poll: what
	 * completed by then completed inside W's post.
	 */
	check(!hold_cpu(1), "chain: this CPU held at SCHED_FIFO (%s)",
	      strerror(errno));
	rc = ibv_post_send(w, &wr, &bad);
	n = ibv_poll_cq(xcq, 16, wc);
	while (n > 0) {
		for (i = 0; i < n; i++)
			failed += wc[i].status != IBV_WC_SUCCESS;
		done += n;
		n = ibv_poll_cq(xcq, 16, wc);
	}
	hold_cpu(0);
	check(!failed, "chain: X's WRITEs that completed succeeded (%d failed)",
	      failed);
	check(!rc && done < CHAIN_WR / 2,
	      "chain: W's post returned with X's WRITEs outstanding (%d of %d done)",
	      done, CHAIN_WR);
	/* Torn down while X sends (as a process killed mid-transfer). */
	rc = ibv_destroy_qp(w) ?: ibv_destroy_qp(y) ?: ibv_destroy_qp(x);
	check(!rc, "chain: QPs destroyed while X sends (%d)", rc);
	ibv_destroy_cq(wcq);
	ibv_destroy_cq(xcq);
	ibv_dereg_mr(big);
	free(buf);
}

int main(int argc, char **argv)
{
	struct ibv_port_attr port;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV GID_INDEX\n", argv[0]);
		return 2;
	}
	gidx = atoi(argv[2]);
	ctx = open_device(argv[1]);
	if (!ctx || ibv_query_gid(ctx, 1, gidx, &gid) ||
	    ibv_query_port(ctx, 1, &port)) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 2;
	}
	pd = ibv_alloc_pd(ctx);
	scq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	sbuf = calloc(1, 8192);
	rbuf = calloc(NSLOTS, SLOT);
	if (!pd || !scq || !rcq || !sbuf || !rbuf)
		return 2;
	mr = ibv_reg_mr(pd, rbuf, (size_t)NSLOTS * SLOT,
			IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		return 2;
	/* Sends come from rbuf's MR too: one MR, one lkey. */
	free(sbuf);
	sbuf = rbuf + (size_t)(NSLOTS - 2) * SLOT;

	test_ud_sqe(128u << port.active_mtu);
	test_uc_sqe();
	if (strncmp(ibv_get_device_name(ctx->device), "rxe", 3)) {
		test_rc_sqd_draining();
		test_rc_sqd_update();
		test_rc_loopback_chain();
		test_uc_local_inv();
	}

	printf("# %d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
