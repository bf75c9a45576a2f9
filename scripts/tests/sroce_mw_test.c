// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows and memory operations from userspace, over RC between two
 * hosts, through the stock rxe provider:
 *
 *   sroce_mw_test server DEV GID_INDEX PORT
 *   sroce_mw_test client DEV GID_INDEX PORT SERVER_IP
 *
 * The server registers a buffer that grants no remote access itself
 * (LOCAL_WRITE | MW_BIND) and opens it through windows: type 1 (bound with
 * ibv_bind_mw) and type 2B (bound with an IBV_WR_BIND_MW work request to
 * one QP; one of them zero-based, addressed from 0), all with local write
 * among the bind's rights as applications pass them (a window ignores
 * it). The client writes and reads through
 * them and the data is checked on both sides; access outside a window,
 * through the wrong QP for a type 2B window, after SEND with Invalidate
 * and after a local invalidation must fail with IBV_WC_REM_ACCESS_ERR.
 * Each failing access ends its QP, so each has a QP of its own.
 *
 * The hosts exchange QPNs, GIDs, addresses and keys, and step through the
 * test, over a TCP connection. Prints TAP-like "ok - " / "not ok - "
 * lines; exits non-zero on any failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "test-common.h"

#define NQP	4		/* 0: good path, 1-3: one failing access each */
#define BUF_LEN	65536
#define W1_OFF	4096		/* type 1 window: [W1_OFF, W1_OFF + W1_LEN) */
#define W1_LEN	8192
#define W2_OFF	16384		/* type 2B windows: [W2_OFF, W2_OFF + W2_LEN) */
#define W2_LEN	4096
#define W4_OFF	32768		/* zero-based type 2B window: [0, W4_LEN) */
#define W4_LEN	4096
#define XFER	1024

struct peer {
	uint32_t qpn[NQP];
	union ibv_gid gid;
	uint64_t base;
	uint32_t w1_rkey, w2_rkey, w3_rkey, w4_rkey;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp[NQP];
static struct ibv_mr *mr, *lmr;
static uint8_t *buf, *lbuf;
static int sock, gid_index;

static void connect_qps(const struct peer *them)
{
	struct rc_attr c = {
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		.mtu = IBV_MTU_1024,
		.rq_psn = 100,
		.sq_psn = 100,
		.dgid = them->gid,
		.sgid_index = gid_index,
		.max_dest_rd_atomic = 1,
		.max_rd_atomic = 1,
		.min_rnr_timer = 12,
		.timeout = 17,
		.retry_cnt = 7,
	};
	const char *state;
	int i;

	for (i = 0; i < NQP; i++) {
		c.dest_qpn = them->qpn[i];
		state = rc_connect(qp[i], &c);
		if (state)
			fatal("%s: %s", state, strerror(errno));
	}
}

/* One RDMA operation from lbuf; returns the completion status. */
static enum ibv_wc_status rdma(int q, int read, uint64_t addr, uint32_t rkey,
			       uint32_t len)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp[q]);
	struct ibv_wc wc;

	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	if (read)
		ibv_wr_rdma_read(x, rkey, addr);
	else
		ibv_wr_rdma_write(x, rkey, addr);
	ibv_wr_set_sge(x, lmr->lkey, (uintptr_t)lbuf, len);
	if (ibv_wr_complete(x))
		fatal("post rdma");
	wc = next_wc(cq);
	return wc.status;
}

static void post_recv(int q)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)lbuf, .length = 64, .lkey = lmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(qp[q], &wr, &bad))
		fatal("post_recv");
}

/*
 * Bind a type 2 window to qp[q], with @flags (IBV_ACCESS_ZERO_BASED) on top
 * of the usual rights; returns the status and the new rkey.
 */
static enum ibv_wc_status bind2(int q, struct ibv_mw *mw, uint32_t *rkey,
				uint64_t off, uint64_t len, unsigned int flags)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp[q]);
	struct ibv_mw_bind_info info = {
		.mr = mr, .addr = (uintptr_t)buf + off, .length = len,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_LOCAL_WRITE | flags,
	};
	uint32_t key = ibv_inc_rkey(*rkey);
	struct ibv_wc wc;

	ibv_wr_start(x);
	x->wr_id = 2;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(x, mw, key, &info);
	if (ibv_wr_complete(x))
		fatal("post bind");
	wc = next_wc(cq);
	if (wc.status == IBV_WC_SUCCESS) {
		*rkey = key;
		check(wc.opcode == IBV_WC_BIND_MW, "bind completion opcode");
	}
	return wc.status;
}

static void fill(uint8_t *p, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static int check_fill(const uint8_t *p, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(seed + i * 7))
			return 0;
	return 1;
}

static void server(void)
{
	struct ibv_mw *mw1, *mw2, *mw3, *mw4;
	struct ibv_mw_bind b1 = {0};
	struct peer me = {0}, them;
	struct ibv_wc wc;
	uint32_t w2, w3, w4;
	int i, rc;

	mr = ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_MW_BIND);
	if (!mr)
		fatal("reg_mr: %s", strerror(errno));
	mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	mw3 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	mw4 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	check(mw1 && mw2 && mw3 && mw4, "alloc_mw type 1 and type 2");
	if (!mw1 || !mw2 || !mw3 || !mw4)
		fatal("alloc_mw: %s", strerror(errno));

	for (i = 0; i < NQP; i++)
		me.qpn[i] = qp[i]->qp_num;
	if (ibv_query_gid(ctx, 1, gid_index, &me.gid))
		fatal("query_gid");
	sock_xfer(sock, &me, sizeof(me), 1);
	sock_xfer(sock, &them, sizeof(them), 0);
	connect_qps(&them);

	/* Type 1: ibv_bind_mw, which the provider posts as a WQE. */
	b1.wr_id = 3;
	b1.send_flags = IBV_SEND_SIGNALED;
	b1.bind_info.mr = mr;
	b1.bind_info.addr = (uintptr_t)buf + W1_OFF;
	b1.bind_info.length = W1_LEN;
	b1.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ |
				       IBV_ACCESS_LOCAL_WRITE;
	rc = ibv_bind_mw(qp[0], mw1, &b1);
	check(!rc, "ibv_bind_mw type 1 posted (%d)", rc);
	wc = next_wc(cq);
	check(wc.status == IBV_WC_SUCCESS && wc.wr_id == 3,
	       "type 1 bind completes (status %d)", wc.status);

	/* Type 2B bound to qp[0] and to qp[2]. */
	w2 = mw2->rkey;
	check(bind2(0, mw2, &w2, W2_OFF, W2_LEN, 0) == IBV_WC_SUCCESS,
	       "type 2 bind to qp 0");
	w3 = mw3->rkey;
	check(bind2(2, mw3, &w3, W2_OFF, W2_LEN, 0) == IBV_WC_SUCCESS,
	       "type 2 bind to qp 2");
	w4 = mw4->rkey;
	check(bind2(0, mw4, &w4, W4_OFF, W4_LEN, IBV_ACCESS_ZERO_BASED) ==
	      IBV_WC_SUCCESS, "zero-based type 2 bind to qp 0");
	post_recv(2);

	fill(buf, BUF_LEN, 0x11);
	me.base = (uintptr_t)buf;
	me.w1_rkey = mw1->rkey;
	me.w2_rkey = w2;
	me.w3_rkey = w3;
	me.w4_rkey = w4;
	sock_xfer(sock, &me, sizeof(me), 1);

	/* 1: the client wrote through both windows. */
	sync_step(sock, 1);
	check(check_fill(buf + W1_OFF + 100, XFER, 0x55),
	       "data written through the type 1 window");
	check(check_fill(buf + W2_OFF, XFER, 0x66),
	       "data written through the type 2 window");
	check(check_fill(buf + W4_OFF + 512, XFER, 0x77) &&
	      check_fill(buf + 512, XFER, (uint8_t)(0x11 + 512 * 7)),
	       "data written at 512 of the zero-based window, not at 512 of the buffer");
	check(check_fill(buf + W1_OFF, 100, (uint8_t)(0x11 + W1_OFF * 7)),
	       "bytes around the write untouched");

	/* 2: SEND with Invalidate of w3 arrived on qp[2]. */
	wc = next_wc(cq);
	check(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
	       (wc.wc_flags & IBV_WC_WITH_INV) &&
	       wc.invalidated_rkey == w3,
	       "SEND with Invalidate: recv completion with invalidated rkey %#x (got status %d flags %#x rkey %#x)",
	       w3, wc.status, wc.wc_flags, wc.invalidated_rkey);
	sync_step(sock, 2);

	/* 3: the failing accesses are done; invalidate w2 locally. */
	sync_step(sock, 3);
	{
		struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp[0]);

		ibv_wr_start(x);
		x->wr_id = 4;
		x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_local_inv(x, w2);
		if (ibv_wr_complete(x))
			fatal("post local_inv");
		wc = next_wc(cq);
		check(wc.status == IBV_WC_SUCCESS &&
		       wc.opcode == IBV_WC_LOCAL_INV,
		       "local invalidation of the type 2 window (status %d)",
		       wc.status);
	}
	sync_step(sock, 4);
	/* 5: the client failed to use it. */
	sync_step(sock, 5);

	ibv_dealloc_mw(mw1);
	ibv_dealloc_mw(mw2);
	ibv_dealloc_mw(mw3);
	ibv_dealloc_mw(mw4);
	check(!ibv_dereg_mr(mr), "dereg_mr after the windows are gone");
}

static void client(void)
{
	struct peer me = {0}, them;
	enum ibv_wc_status st;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < NQP; i++)
		me.qpn[i] = qp[i]->qp_num;
	if (ibv_query_gid(ctx, 1, gid_index, &me.gid))
		fatal("query_gid");
	sock_xfer(sock, &them, sizeof(them), 0);
	sock_xfer(sock, &me, sizeof(me), 1);
	connect_qps(&them);
	sock_xfer(sock, &them, sizeof(them), 0);

	/* READ through each window: the server's pattern. */
	st = rdma(0, 1, them.base + W1_OFF, them.w1_rkey, XFER);
	check(st == IBV_WC_SUCCESS &&
	       check_fill(lbuf, XFER, (uint8_t)(0x11 + W1_OFF * 7)),
	       "RDMA READ through the type 1 window (status %d)", st);
	st = rdma(0, 1, them.base + W2_OFF, them.w2_rkey, XFER);
	check(st == IBV_WC_SUCCESS &&
	       check_fill(lbuf, XFER, (uint8_t)(0x11 + W2_OFF * 7)),
	       "RDMA READ through the type 2 window (status %d)", st);
	/* WRITE through them; the server checks. */
	fill(lbuf, XFER, 0x55);
	st = rdma(0, 0, them.base + W1_OFF + 100, them.w1_rkey, XFER);
	check(st == IBV_WC_SUCCESS, "RDMA WRITE through the type 1 window");
	fill(lbuf, XFER, 0x66);
	st = rdma(0, 0, them.base + W2_OFF, them.w2_rkey, XFER);
	check(st == IBV_WC_SUCCESS, "RDMA WRITE through the type 2 window");
	/* The zero-based window: addresses from 0. */
	st = rdma(0, 1, 0, them.w4_rkey, XFER);
	check(st == IBV_WC_SUCCESS &&
	       check_fill(lbuf, XFER, (uint8_t)(0x11 + W4_OFF * 7)),
	       "RDMA READ at 0 of the zero-based window (status %d)", st);
	fill(lbuf, XFER, 0x77);
	st = rdma(0, 0, 512, them.w4_rkey, XFER);
	check(st == IBV_WC_SUCCESS,
	       "RDMA WRITE at 512 of the zero-based window (status %d)", st);
	sync_step(sock, 1);

	/* SEND with Invalidate of w3 on qp[2], where it is bound. */
	{
		struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp[2]);

		ibv_wr_start(x);
		x->wr_id = 5;
		x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send_inv(x, them.w3_rkey);
		ibv_wr_set_sge(x, lmr->lkey, (uintptr_t)lbuf, 16);
		if (ibv_wr_complete(x))
			fatal("post send_inv");
		wc = next_wc(cq);
		check(wc.status == IBV_WC_SUCCESS,
		       "SEND with Invalidate completes (status %d)", wc.status);
	}
	sync_step(sock, 2);

	/* Failing accesses, one QP each. */
	st = rdma(1, 0, them.base + W1_OFF + W1_LEN - 4, them.w1_rkey, 8);
	check(st == IBV_WC_REM_ACCESS_ERR,
	       "WRITE across the type 1 window's end refused (status %d)", st);
	st = rdma(2, 1, them.base + W2_OFF, them.w3_rkey, 8);
	check(st == IBV_WC_REM_ACCESS_ERR,
	       "READ through an invalidated window refused (status %d)", st);
	st = rdma(3, 0, them.base + W2_OFF, them.w2_rkey, 8);
	check(st == IBV_WC_REM_ACCESS_ERR,
	       "type 2B window through another QP refused (status %d)", st);
	sync_step(sock, 3);
	sync_step(sock, 4);
	/* After the server's local invalidation. */
	st = rdma(0, 0, them.base + W2_OFF, them.w2_rkey, 8);
	check(st == IBV_WC_REM_ACCESS_ERR,
	       "WRITE after local invalidation refused (status %d)", st);
	sync_step(sock, 5);
}

int main(int argc, char **argv)
{
	int is_server, i;

	if (argc < 5 || (strcmp(argv[1], "server") && argc < 6))
		fatal("usage: server|client DEV GID_INDEX PORT [SERVER_IP]");
	is_server = !strcmp(argv[1], "server");
	gid_index = atoi(argv[3]);

	ctx = open_device(argv[2]);
	if (!ctx)
		fatal("no device %s", argv[2]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	buf = aligned_alloc(4096, BUF_LEN);
	lbuf = aligned_alloc(4096, BUF_LEN);
	if (!pd || !cq || !buf || !lbuf)
		fatal("resources");
	lmr = ibv_reg_mr(pd, lbuf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!lmr)
		fatal("reg_mr");
	for (i = 0; i < NQP; i++)
		qp[i] = rc_qp_ex_create(pd, cq, IBV_QP_EX_WITH_RDMA_WRITE |
						 IBV_QP_EX_WITH_RDMA_READ |
						 IBV_QP_EX_WITH_SEND |
						 IBV_QP_EX_WITH_SEND_WITH_INV |
						 IBV_QP_EX_WITH_LOCAL_INV |
						 IBV_QP_EX_WITH_BIND_MW, 16);

	sock = ctl_socket(is_server ? NULL : argv[5], atoi(argv[4]));
	if (is_server)
		server();
	else
		client();
	printf("# %s: %d failure(s)\n", argv[1], nfail);
	return nfail ? 1 : 0;
}
