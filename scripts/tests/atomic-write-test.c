// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA ATOMIC WRITE (IBTA 1.5, IBV_WR_ATOMIC_WRITE) over RC between two
 * hosts, posted through the stock rxe provider:
 *
 *   atomic-write-test server DEV GID_INDEX PORT
 *   atomic-write-test client DEV GID_INDEX PORT SERVER_IP
 *
 * The client (an sroce device) writes 8-byte values into the server's
 * buffer with ibv_wr_atomic_write() and the server checks every word and
 * the guard words around them: single values, a flag after RDMA WRITE
 * data, and a stream of writes over a few words with several in flight. Then the refused cases, one QP each, as
 * each error ends its QP: a misaligned address and the legacy
 * ibv_post_send() form (whose R_Key rdma-core 44 drops) fail locally with
 * IBV_WC_LOC_QP_OP_ERR; an MR without remote write, an address past the
 * MR and a server QP without remote write fail with IBV_WC_REM_ACCESS_ERR
 * (the responder's remote access error NAK); the server's memory stays
 * as it was.
 *
 * The server tells whether its device reports the ATOMIC WRITE capability
 * (IB_UVERBS_DEVICE_ATOMIC_WRITE in device_cap_flags_ex). One that does
 * not, rdma_rxe of 6.1, drops the unknown opcode 0x1d without an answer:
 * then every request that reaches it ends with IBV_WC_RETRY_EXC_ERR after
 * the QP's retries, and nothing lands.
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

/* IB_UVERBS_DEVICE_ATOMIC_WRITE (kernel uapi 6.2 on); libibverbs 44 has no name. */
#define DEVICE_ATOMIC_WRITE	(1ULL << 40)

enum { Q_GOOD, Q_MISALIGNED, Q_LEGACY, Q_NO_MR_RIGHT, Q_PAST_MR, Q_NO_QP_RIGHT,
       NQP };

#define BUF_LEN		8192
#define NSLOT		8		/* 8-byte words at SLOT_OFF + 16 * i */
#define SLOT_OFF	256
#define DATA_OFF	4096		/* RDMA WRITE data before the flag */
#define DATA_LEN	1024
#define FLAG_OFF	(SLOT_OFF + 16 * NSLOT)
#define BULK_OFF	5120		/* BULK_WORDS words, each written often */
#define BULK_WORDS	64
#define NBULK		1024
#define BULK_DEPTH	16		/* WQEs in flight in the bulk phase */
#define PATTERN		0x5a
#define FLAG_VALUE	0x0000f1a900000001ULL

struct peer {
	uint32_t qpn[NQP];
	union ibv_gid gid;
	uint64_t base, ro_base;
	uint32_t rkey, ro_rkey;
	uint32_t atomic_write_cap;
};

static const uint64_t values[NSLOT] = {
	0x0123456789abcdefULL, 0, ~0ULL, 0x8000000000000001ULL,
	0x00000000ffffffffULL, 0xffffffff00000000ULL, 0x5a5a5a5aa5a5a5a5ULL,
	0xfedcba9876543210ULL,
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp[NQP];
static struct ibv_mr *mr, *romr, *lmr;
static uint8_t *buf, *robuf, *lbuf;
static int sock, gid_index;

static int device_atomic_write_cap(void)
{
	struct ibv_device_attr_ex attr;

	if (ibv_query_device_ex(ctx, NULL, &attr))
		fatal("query_device_ex");
	return !!(attr.device_cap_flags_ex & DEVICE_ATOMIC_WRITE);
}

/*
 * Timeout 14 (67 ms) and 3 retries: a request a peer never answers ends
 * in about a quarter of a second.
 */
static void connect_qps(const struct peer *them, int is_server)
{
	struct rc_attr c = {
		.mtu = IBV_MTU_1024,
		/* Across the PSN wrap. */
		.rq_psn = 0xfffff0,
		.sq_psn = 0xfffff0,
		.dgid = them->gid,
		.sgid_index = gid_index,
		.max_dest_rd_atomic = 4,
		/* Fewer than the WQEs posted at once: the requester must wait. */
		.max_rd_atomic = 2,
		.min_rnr_timer = 12,
		.timeout = 14,
		.retry_cnt = 3,
	};
	const char *state;
	int i;

	for (i = 0; i < NQP; i++) {
		c.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC;
		if (is_server && i == Q_NO_QP_RIGHT)
			c.access &= ~IBV_ACCESS_REMOTE_WRITE;
		c.dest_qpn = them->qpn[i];
		state = rc_connect(qp[i], &c);
		if (state)
			fatal("%s: %s", state, strerror(errno));
	}
}

/* Post an ATOMIC WRITE of @val through the extended API. */
static void post_aw(int q, uint64_t wr_id, uint32_t rkey, uint64_t addr,
		    uint64_t val)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp[q]);

	ibv_wr_start(x);
	x->wr_id = wr_id;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(x, rkey, addr, &val);
	if (ibv_wr_complete(x))
		fatal("post atomic write: %s", strerror(errno));
}

/* One ATOMIC WRITE on its own QP; returns the completion status. */
static enum ibv_wc_status aw_status(int q, uint32_t rkey, uint64_t addr,
				    uint64_t val)
{
	struct ibv_wc wc;

	post_aw(q, 100 + q, rkey, addr, val);
	wc = next_wc(cq);
	if (wc.wr_id != (uint64_t)(100 + q))
		fatal("completion for wr_id %llu",
		      (unsigned long long)wc.wr_id);
	return wc.status;
}

/* The value of the bulk phase's write @i: words differ, writes too. */
static uint64_t bulk_value(int i)
{
	return 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
}

static uint64_t slot_addr(const struct peer *p, int i)
{
	return p->base + SLOT_OFF + 16 * i;
}

static uint64_t word_at(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

/* Every byte in [from, to) still holds PATTERN. */
static int untouched(const uint8_t *p, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if (p[i] != PATTERN)
			return 0;
	return 1;
}

static void server(void)
{
	struct peer me = {0}, them;
	int i, ok;

	memset(buf, PATTERN, BUF_LEN);
	memset(robuf, PATTERN, BUF_LEN);
	mr = ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC);
	/* Everything remote but write. */
	romr = ibv_reg_mr(pd, robuf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!mr || !romr)
		fatal("reg_mr: %s", strerror(errno));

	for (i = 0; i < NQP; i++)
		me.qpn[i] = qp[i]->qp_num;
	if (ibv_query_gid(ctx, 1, gid_index, &me.gid))
		fatal("query_gid");
	me.base = (uintptr_t)buf;
	me.ro_base = (uintptr_t)robuf;
	me.rkey = mr->rkey;
	me.ro_rkey = romr->rkey;
	me.atomic_write_cap = device_atomic_write_cap();
	printf("# server device %s the ATOMIC WRITE capability\n",
	       me.atomic_write_cap ? "reports" : "does not report");
	sock_xfer(sock, &me, sizeof(me), 1);
	sock_xfer(sock, &them, sizeof(them), 0);
	connect_qps(&them, 1);
	sync_step(sock, 1);

	/* 2: the good path is done. */
	sync_step(sock, 2);
	if (me.atomic_write_cap) {
		for (i = 0, ok = 1; i < NSLOT; i++)
			ok &= word_at(buf, SLOT_OFF + 16 * i) == values[i] &&
			      untouched(buf, SLOT_OFF + 16 * i + 8,
					SLOT_OFF + 16 * i + 16);
		check(ok, "%d values stored exactly, guard words untouched",
		      NSLOT);
		check(word_at(buf, FLAG_OFF) == FLAG_VALUE,
		      "repeated writes to one word: the last one stays (%#llx)",
		      (unsigned long long)word_at(buf, FLAG_OFF));
		for (i = 0, ok = 1; i < DATA_LEN; i++)
			ok &= buf[DATA_OFF + i] == (uint8_t)(i * 13 + 1);
		check(ok, "RDMA WRITE data before the ATOMIC WRITE flag");
		for (i = 0, ok = 1; i < BULK_WORDS; i++)
			ok &= word_at(buf, BULK_OFF + 8 * i) ==
			      bulk_value(NBULK - BULK_WORDS + i);
		check(ok, "%d ATOMIC WRITEs over %d words: each holds its last value",
		      NBULK, BULK_WORDS);
		check(untouched(buf, 0, SLOT_OFF) &&
		      untouched(buf, FLAG_OFF + 8, DATA_OFF) &&
		      untouched(buf, DATA_OFF + DATA_LEN, BULK_OFF) &&
		      untouched(buf, BULK_OFF + 8 * BULK_WORDS, BUF_LEN),
		      "the rest of the buffer untouched");
	} else {
		check(untouched(buf, 0, DATA_OFF),
		      "nothing landed: the request was not executed");
	}

	/* 3: the refused cases are done. */
	sync_step(sock, 3);
	check(untouched(robuf, 0, BUF_LEN),
	      "an MR without remote write is untouched");
	check(untouched(buf, SLOT_OFF + 16 * NSLOT + 16, DATA_OFF) &&
	      untouched(buf, BUF_LEN - 64, BUF_LEN),
	      "targets of refused requests untouched");
	check(!ibv_dereg_mr(mr) && !ibv_dereg_mr(romr), "dereg_mr");
}

static void client_good(const struct peer *them)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp[Q_GOOD]);
	uint64_t flag = FLAG_VALUE;
	struct ibv_wc wc;
	int i, ok = 1, n = 0;

	/* All values at once, more than max_rd_atomic in flight. */
	for (i = 0; i < NSLOT; i++)
		post_aw(Q_GOOD, i, them->rkey, slot_addr(them, i), values[i]);
	for (i = 0; i < NSLOT; i++) {
		wc = next_wc(cq);
		if (wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != IBV_WC_ATOMIC_WRITE || wc.wr_id != (uint64_t)i ||
		    wc.byte_len != 8) {
			printf("# completion %d: status %d opcode %d wr_id %llu byte_len %u\n",
			       i, wc.status, wc.opcode,
			       (unsigned long long)wc.wr_id, wc.byte_len);
			ok = 0;
		}
	}
	check(ok, "%d ATOMIC WRITEs complete in order with IBV_WC_ATOMIC_WRITE, byte_len 8",
	      NSLOT);

	/* The same word again and again: the last value stays. */
	for (i = 0; i < NSLOT; i++)
		post_aw(Q_GOOD, 100 + i, them->rkey, them->base + FLAG_OFF,
			values[i]);
	for (i = 0; i < NSLOT; i++)
		n += next_wc(cq).status == IBV_WC_SUCCESS;
	check(n == NSLOT, "%d ATOMIC WRITEs to one word complete", n);

	/* Data, then the flag that says it is there. */
	for (i = 0; i < DATA_LEN; i++)
		lbuf[i] = (uint8_t)(i * 13 + 1);
	ibv_wr_start(x);
	x->wr_id = 200;
	x->wr_flags = 0;
	ibv_wr_rdma_write(x, them->rkey, them->base + DATA_OFF);
	ibv_wr_set_sge(x, lmr->lkey, (uintptr_t)lbuf, DATA_LEN);
	x->wr_id = 201;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(x, them->rkey, them->base + FLAG_OFF, &flag);
	if (ibv_wr_complete(x))
		fatal("post write + atomic write");
	wc = next_wc(cq);
	check(wc.status == IBV_WC_SUCCESS && wc.wr_id == 201,
	      "RDMA WRITE then ATOMIC WRITE flag (status %d)", wc.status);

	/* A stream: every word written again and again, in order. */
	for (i = 0, n = 0, ok = 1; n < NBULK; ) {
		if (i < NBULK && i - n < BULK_DEPTH) {
			post_aw(Q_GOOD, 1000 + i, them->rkey,
				them->base + BULK_OFF + 8 * (i % BULK_WORDS),
				bulk_value(i));
			i++;
			continue;
		}
		wc = next_wc(cq);
		if (wc.status != IBV_WC_SUCCESS ||
		    wc.wr_id != (uint64_t)(1000 + n)) {
			printf("# bulk completion %d: status %d wr_id %llu\n", n,
			       wc.status, (unsigned long long)wc.wr_id);
			ok = 0;
			break;
		}
		n++;
	}
	check(ok, "%d ATOMIC WRITEs, %d in flight, complete in order", NBULK,
	      BULK_DEPTH);
}

/* rdma_rxe of 6.1: the request is dropped unanswered; the QP retries. */
static void client_unsupported(const struct peer *them)
{
	enum ibv_wc_status st;

	st = aw_status(Q_GOOD, them->rkey, slot_addr(them, 0), values[0]);
	check(st == IBV_WC_RETRY_EXC_ERR,
	      "peer without ATOMIC WRITE: no answer, IBV_WC_RETRY_EXC_ERR (status %d)",
	      st);
}

static void client_refused(const struct peer *them)
{
	enum ibv_wc_status remote = them->atomic_write_cap ?
				    IBV_WC_REM_ACCESS_ERR :
				    IBV_WC_RETRY_EXC_ERR;
	struct ibv_send_wr wr = {0}, *bad;
	struct ibv_sge sge;
	enum ibv_wc_status st;
	struct ibv_wc wc;
	uint64_t val = 0x1122334455667788ULL;

	st = aw_status(Q_MISALIGNED, them->rkey, slot_addr(them, NSLOT + 1) + 4,
		       val);
	check(st == IBV_WC_LOC_QP_OP_ERR,
	      "misaligned address refused locally: IBV_WC_LOC_QP_OP_ERR (status %d)",
	      st);

	/* The legacy API: the provider does not copy wr.rdma into the WQE. */
	memcpy(lbuf, &val, sizeof(val));
	sge.addr = (uintptr_t)lbuf;
	sge.length = 8;
	sge.lkey = lmr->lkey;
	wr.wr_id = 300;
	wr.opcode = IBV_WR_ATOMIC_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = slot_addr(them, NSLOT + 1);
	wr.wr.rdma.rkey = them->rkey;
	if (ibv_post_send(qp[Q_LEGACY], &wr, &bad))
		fatal("legacy post_send: %s", strerror(errno));
	wc = next_wc(cq);
	check(wc.status == IBV_WC_LOC_QP_OP_ERR && wc.wr_id == 300,
	      "ibv_post_send(IBV_WR_ATOMIC_WRITE), R_Key lost by the provider: IBV_WC_LOC_QP_OP_ERR (status %d)",
	      wc.status);

	st = aw_status(Q_NO_MR_RIGHT, them->ro_rkey, them->ro_base + 64, val);
	check(st == remote, "MR without remote write: status %d (want %d)",
	      st, remote);
	st = aw_status(Q_PAST_MR, them->rkey, them->base + BUF_LEN, val);
	check(st == remote, "address past the MR: status %d (want %d)",
	      st, remote);
	st = aw_status(Q_NO_QP_RIGHT, them->rkey, them->base + BUF_LEN - 8, val);
	check(st == remote, "QP without remote write: status %d (want %d)",
	      st, remote);
}

static void client(void)
{
	struct peer me = {0}, them;
	int i;

	for (i = 0; i < NQP; i++)
		me.qpn[i] = qp[i]->qp_num;
	if (ibv_query_gid(ctx, 1, gid_index, &me.gid))
		fatal("query_gid");
	me.atomic_write_cap = device_atomic_write_cap();
	check(me.atomic_write_cap,
	      "device reports the ATOMIC WRITE capability (bit 40 of device_cap_flags_ex)");
	sock_xfer(sock, &them, sizeof(them), 0);
	sock_xfer(sock, &me, sizeof(me), 1);
	printf("# server device %s the ATOMIC WRITE capability\n",
	       them.atomic_write_cap ? "reports" : "does not report");
	connect_qps(&them, 0);
	sync_step(sock, 1);

	if (them.atomic_write_cap)
		client_good(&them);
	else
		client_unsupported(&them);
	sync_step(sock, 2);
	client_refused(&them);
	sync_step(sock, 3);
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
	cq = ibv_create_cq(ctx, 128, NULL, NULL, 0);
	buf = aligned_alloc(4096, BUF_LEN);
	robuf = aligned_alloc(4096, BUF_LEN);
	lbuf = aligned_alloc(4096, BUF_LEN);
	if (!pd || !cq || !buf || !robuf || !lbuf)
		fatal("resources");
	lmr = ibv_reg_mr(pd, lbuf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!lmr)
		fatal("reg_mr");
	for (i = 0; i < NQP; i++)
		qp[i] = rc_qp_ex_create(pd, cq, IBV_QP_EX_WITH_ATOMIC_WRITE |
						 IBV_QP_EX_WITH_RDMA_WRITE, 64);

	sock = ctl_socket(is_server ? NULL : argv[5], atoi(argv[4]));
	if (is_server)
		server();
	else
		client();
	printf("# %s: %d failure(s)\n", argv[1], nfail);
	return nfail ? 1 : 0;
}
