// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile-input aid for scripts/tests/fuzz.sh, through the stock rxe
 * provider:
 *
 *   sroce_fuzz_test target DEV GID4 GID6 PEER_IP4 PEER_IP6 INFO STOP
 *   sroce_fuzz_test ring DEV GID SEED ROUNDS
 *   sroce_fuzz_test peer DEV GID PEER_IP DIR
 *
 * target: live queue pairs for a packet fuzzer on the peer to aim at: RC
 * QPs in RTS connected to the peer (16 over IPv4, 4 over IPv6) with
 * receives posted and a 64 KiB MR open to remote read, write and atomics;
 * 4 RC QPs with a READ and a SEND or atomic outstanding toward the peer
 * (their completers meet the fuzzer's ACKs and NAKs); one UD QP. Writes their numbers, PSNs, the
 * rkey and address to INFO as shell assignments, polls the CQ until the
 * file STOP exists, then prints the completions it saw and destroys
 * everything; exits 0 unless a verb fails.
 *
 * peer: the target of roce-peer.py, a hand-made RoCE peer on the other
 * guest that plays requester and responder toward one RC QP here at a
 * time, to check what a hostile or lossy peer gets (see peer() below).
 *
 * ring: writes garbage straight into the mmapped send and receive rings
 * of RC (connected to itself) and UD QPs and rings the doorbell, ROUNDS
 * times with fresh QPs, seeded by SEED. Garbage may only end in error
 * completions or an error state: every round checks that the QP can still
 * be queried and destroyed. Prints TAP-like lines; exits non-zero on a
 * failure.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "test-common.h"

#define BUF_LEN		65536
#define RECV_LEN	1024
#define NRECV		8
#define NRC4		16	/* responder targets over IPv4 */
#define NRC6		4	/* and over IPv6 */
#define NREQ		4	/* requesters with work outstanding */
#define UD_QKEY		0x11111111
#define FAKE_DQPN	0x123
#define RQ_PSN		0x100
#define SQ_PSN		0x200

/* The shared queue header of the rxe ABI (struct rxe_queue_buf). */
struct ring {
	volatile uint32_t *hdr;
	uint8_t *data;
	uint32_t log2_elem, mask;
};

#define RING_PROD	(128 / 4)
#define RING_CONS	(256 / 4)
#define RING_DATA	384

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t *buf;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "sroce_fuzz_test: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (%s)\n", strerror(errno));
	va_end(ap);
	exit(2);
}

static void open_dev(const char *name)
{
	ctx = open_device(name);
	if (!ctx)
		die("no device %s", name);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 1024, NULL, NULL, 0);
	if (posix_memalign((void **)&buf, 4096, BUF_LEN))
		die("memalign");
	memset(buf, 0x5a, BUF_LEN);
	mr = ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC);
	if (!pd || !cq || !mr)
		die("pd/cq/mr");
}

static struct ibv_qp *new_qp(enum ibv_qp_type type, int depth)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = depth, .max_recv_wr = depth,
			 .max_send_sge = 4, .max_recv_sge = 1,
			 .max_inline_data = 64 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		.qkey = UD_QKEY,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (!qp)
		die("create qp");
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | (type == IBV_QPT_UD ? IBV_QP_QKEY :
					 IBV_QP_ACCESS_FLAGS)))
		die("qp to INIT");
	if (type != IBV_QPT_UD)
		return qp;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("ud qp to RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = SQ_PSN;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("ud qp to RTS");
	return qp;
}

/*
 * connect QP (RC, in INIT) to DQPN at DGID, through the local GID index;
 * it sends from SQ_PSN and expects RQ_PSN, with retry_cnt RETRY and
 * rnr_retry RNR_RETRY.
 */
static void connect_qp(struct ibv_qp *qp, int gid_index, union ibv_gid *dgid,
		       uint32_t dqpn, int timeout, int retry, int rnr_retry,
		       uint32_t sq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .rq_psn = RQ_PSN,
		.max_dest_rd_atomic = 4, .min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = *dgid, .sgid_index = gid_index,
				      .hop_limit = 64 } },
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("qp to RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = timeout;
	a.retry_cnt = retry;
	a.rnr_retry = rnr_retry;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		die("qp to RTS");
}

static int post_recvs(struct ibv_qp *qp, int n)
{
	struct ibv_sge sge = { .length = RECV_LEN, .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i;

	for (i = 0; i < n; i++) {
		sge.addr = (uintptr_t)buf + (i % (BUF_LEN / RECV_LEN)) * RECV_LEN;
		wr.wr_id = i;
		if (ibv_post_recv(qp, &wr, &bad))
			return -1;
	}
	return 0;
}

static const char *state_name(struct ibv_qp *qp)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return "query-failed";
	return a.qp_state < 7 ? names[a.qp_state] : "unknown";
}

static void print_qpns(FILE *f, const char *name, struct ibv_qp **qp, int n)
{
	int i;

	fprintf(f, "%s='", name);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? " " : "", qp[i]->qp_num);
	fprintf(f, "'\n");
}

static void print_states(const char *name, struct ibv_qp **qp, int n)
{
	int i;

	printf("target: %s:", name);
	for (i = 0; i < n; i++)
		printf(" %s", state_name(qp[i]));
	printf("\n");
}

static int target(char **argv)
{
	int gid4 = atoi(argv[3]), gid6 = atoi(argv[4]);
	struct ibv_qp *rc4[NRC4], *rc6[NRC6], *req[NREQ], *ud;
	union ibv_gid peer4, peer6;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_wc wc[16];
	long ok = 0, err = 0;
	FILE *f;
	int n, i;

	open_dev(argv[2]);
	if (gid_of(argv[5], &peer4))
		die("bad address %s", argv[5]);
	if (gid_of(argv[6], &peer6))
		die("bad address %s", argv[6]);
	for (i = 0; i < NRC4; i++) {
		rc4[i] = new_qp(IBV_QPT_RC, 64);
		connect_qp(rc4[i], gid4, &peer4, FAKE_DQPN, 14, 7, 7, SQ_PSN);
		if (post_recvs(rc4[i], NRECV))
			die("post recv");
	}
	for (i = 0; i < NRC6; i++) {
		rc6[i] = new_qp(IBV_QPT_RC, 64);
		connect_qp(rc6[i], gid6, &peer6, FAKE_DQPN, 14, 7, 7, SQ_PSN);
		if (post_recvs(rc6[i], NRECV))
			die("post recv");
	}
	ud = new_qp(IBV_QPT_UD, 64);
	if (post_recvs(ud, NRECV))
		die("post recv");
	for (i = 0; i < NREQ; i++) {
		/* about 4 s per retry: the completer stays live while fuzzed */
		req[i] = new_qp(IBV_QPT_RC, 64);
		connect_qp(req[i], gid4, &peer4, FAKE_DQPN + 1, 20, 7, 7,
			   SQ_PSN);
		sge = (struct ibv_sge){ (uintptr_t)buf + 32768, 4096, mr->lkey };
		wr.opcode = IBV_WR_RDMA_READ;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = 0x10000;
		wr.wr.rdma.rkey = 0x1234;
		if (ibv_post_send(req[i], &wr, &bad))
			die("post read");
		wr.opcode = i % 2 ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_SEND;
		sge.length = i % 2 ? 8 : 3000;
		if (ibv_post_send(req[i], &wr, &bad))
			die("post send");
	}

	f = fopen(argv[7], "w");
	if (!f)
		die("open %s", argv[7]);
	print_qpns(f, "RC4_QPNS", rc4, NRC4);
	print_qpns(f, "RC6_QPNS", rc6, NRC6);
	print_qpns(f, "REQ_QPNS", req, NREQ);
	fprintf(f, "UD_QPN=%u\nRQ_PSN=%u\nSQ_PSN=%u\nUD_QKEY=%u\n",
		ud->qp_num, RQ_PSN, SQ_PSN, UD_QKEY);
	fprintf(f, "RKEY=%u\nVA=%llu\nMR_LEN=%u\n", mr->rkey,
		(unsigned long long)(uintptr_t)buf, BUF_LEN);
	fclose(f);

	while (access(argv[8], F_OK)) {
		n = ibv_poll_cq(cq, 16, wc);
		if (n < 0)
			die("poll cq");
		for (i = 0; i < n; i++)
			wc[i].status == IBV_WC_SUCCESS ? ok++ : err++;
		if (!n)
			usleep(10000);
	}
	while ((n = ibv_poll_cq(cq, 16, wc)) > 0)
		for (i = 0; i < n; i++)
			wc[i].status == IBV_WC_SUCCESS ? ok++ : err++;
	printf("target: %ld good and %ld error completions\n", ok, err);
	print_states("rc4", rc4, NRC4);
	print_states("rc6", rc6, NRC6);
	print_states("req", req, NREQ);
	print_states("ud", &ud, 1);
	for (i = 0; i < NRC4; i++)
		if (ibv_destroy_qp(rc4[i]))
			die("destroy qp");
	for (i = 0; i < NRC6; i++)
		if (ibv_destroy_qp(rc6[i]))
			die("destroy qp");
	for (i = 0; i < NREQ; i++)
		if (ibv_destroy_qp(req[i]))
			die("destroy qp");
	if (ibv_destroy_qp(ud) || ibv_dereg_mr(mr) || ibv_destroy_cq(cq) ||
	    ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		die("teardown");
	return 0;
}

/*
 * The rings of a QP: the provider mmaps them from the device fd right at
 * create time, so they are the mappings of /dev/infiniband/uverbs* that
 * appeared. The send ring's slots (208 bytes and more) are larger than
 * the receive ring's (40 + 16 bytes here).
 */
static int uverbs_maps(unsigned long *start, int max)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long s, e;
	int n = 0;

	if (!f)
		die("maps");
	while (fgets(line, sizeof(line), f) && n < max)
		if (strstr(line, "/dev/infiniband/uverbs") &&
		    sscanf(line, "%lx-%lx", &s, &e) == 2)
			start[n++] = s;
	fclose(f);
	return n;
}

static struct ibv_qp *qp_with_rings(enum ibv_qp_type type, struct ring *sq,
				    struct ring *rq)
{
	unsigned long before[256], after[256];
	int nb = uverbs_maps(before, 256), na, i, j;
	struct ibv_qp *qp = new_qp(type, 16);
	struct ring r;

	memset(sq, 0, sizeof(*sq));
	memset(rq, 0, sizeof(*rq));
	na = uverbs_maps(after, 256);
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb; j++)
			if (after[i] == before[j])
				break;
		if (j < nb)
			continue;
		r.hdr = (volatile uint32_t *)after[i];
		r.data = (uint8_t *)after[i] + RING_DATA;
		r.log2_elem = r.hdr[0];
		r.mask = r.hdr[1];
		*(r.log2_elem >= 8 ? sq : rq) = r;
	}
	if (!sq->hdr || !rq->hdr)
		die("rings of a new QP not found");
	return qp;
}

/* The legacy doorbell: a POST_SEND write with no WRs (what the provider does). */
static int doorbell(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} c;
	struct ib_uverbs_post_send_resp resp;

	memset(&c, 0, sizeof(c));
	c.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(resp) / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.qp_handle = qp->handle;
	c.cmd.wqe_size = sizeof(struct ibv_send_wr);
	return write(qp->context->cmd_fd, &c, sizeof(c)) == sizeof(c) ? 0 : -errno;
}

static uint32_t rnd32(void)
{
	return ((uint32_t)random() << 16) ^ (uint32_t)random();
}

static uint64_t rnd64(void)
{
	return ((uint64_t)rnd32() << 32) | rnd32();
}

/* An edge value or a random one. */
static uint32_t edge32(void)
{
	static const uint32_t e[] = {
		0, 1, 2, 3, 4, 5, 16, 64, 65, 208, 4096, 65536, 65537,
		0x7fffffff, 0x80000000, 0xfffffff0, 0xffffffff,
	};

	return random() % 3 ? e[random() % (sizeof(e) / sizeof(e[0]))] : rnd32();
}

/* A send WQE that is valid but for one to three mangled fields. */
static void bad_send_wqe(uint8_t *slot, size_t size, struct ibv_qp *qp,
			 int kind)
{
	struct rxe_send_wqe *w = (struct rxe_send_wqe *)slot;
	int i, n;

	memset(slot, 0, size);
	w->wr.wr_id = 0xf00d0000 + kind;
	w->wr.opcode = IBV_WR_SEND;
	w->wr.send_flags = IBV_SEND_SIGNALED;
	w->dma.length = w->dma.resid = 512;
	w->dma.num_sge = 1;
	w->dma.sge[0].addr = (uintptr_t)buf;
	w->dma.sge[0].length = 512;
	w->dma.sge[0].lkey = mr->lkey;
	if (qp->qp_type == IBV_QPT_UD) {
		w->wr.wr.ud.remote_qpn = qp->qp_num;
		w->wr.wr.ud.remote_qkey = UD_QKEY;
	}
	if (kind == 0) {		/* all random, including the AV */
		for (i = 0; i + 4 <= (int)size; i += 4)
			*(uint32_t *)(slot + i) = rnd32();
		return;
	}
	n = 1 + random() % 3;
	while (n--) {
		switch (random() % 16) {
		case 0:
			w->wr.opcode = random() % 2 ? random() % 40 : rnd32();
			break;
		case 1:
			w->dma.num_sge = edge32();
			break;
		case 2:
			w->dma.sge[random() % 4].length = edge32();
			w->dma.num_sge = 1 + random() % 4;
			break;
		case 3:
			w->dma.sge[0].lkey = random() % 2 ? rnd32() :
				mr->lkey ^ 0x100;
			break;
		case 4:
			w->wr.send_flags = IBV_SEND_INLINE | rnd32();
			w->dma.length = w->dma.resid = edge32();
			break;
		case 5:
			w->dma.length = edge32();
			break;
		case 6:
			w->dma.resid = edge32();
			w->dma.cur_sge = edge32();
			w->dma.sge_offset = edge32();
			break;
		case 7:
			w->dma.sge[0].addr = random() % 2 ? rnd64() :
				(uintptr_t)buf + BUF_LEN - 8;
			break;
		case 8:
			w->wr.opcode = IBV_WR_RDMA_WRITE + random() % 2 * 4;
			w->wr.wr.rdma.remote_addr = rnd64();
			w->wr.wr.rdma.rkey = random() % 2 ? rnd32() : mr->rkey;
			break;
		case 9:
			w->wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP + random() % 2;
			w->wr.wr.atomic.remote_addr = (uintptr_t)buf +
				random() % 16;
			w->wr.wr.atomic.rkey = mr->rkey;
			w->dma.sge[0].length = edge32();
			break;
		case 10:
			w->wr.wr.ud.ah_num = edge32();
			break;
		case 11:	/* legacy AV: garbage */
			w->wr.wr.ud.ah_num = 0;
			for (i = 0; i < (int)sizeof(w->wr.wr.ud.av); i += 4)
				*(uint32_t *)((uint8_t *)&w->wr.wr.ud.av + i) =
					rnd32();
			break;
		case 12:
			w->wr.opcode = IBV_WR_BIND_MW + random() % 2 * 2;
			w->wr.wr.mw.mr_lkey = random() % 2 ? mr->lkey : rnd32();
			w->wr.wr.mw.mw_rkey = rnd32();
			w->wr.wr.mw.length = rnd64();
			w->wr.wr.mw.addr = rnd64();
			w->wr.wr.mw.access = rnd32();
			break;
		case 13:
			w->wr.opcode = IBV_WR_RDMA_READ;
			w->wr.wr.rdma.remote_addr = (uintptr_t)buf;
			w->wr.wr.rdma.rkey = mr->rkey;
			w->dma.length = w->dma.resid = edge32();
			w->dma.sge[0].length = w->dma.length;
			break;
		case 14:
			w->state = rnd32();
			w->status = rnd32();
			w->mask = rnd32();
			w->first_psn = rnd32();
			w->iova = rnd64();
			break;
		default:
			w->wr.opcode = 0x20;	/* kernel-only IB_WR_REG_MR */
			w->wr.wr.rdma.remote_addr = rnd64();
			break;
		}
	}
}

static void bad_recv_wqe(uint8_t *slot, size_t size)
{
	struct rxe_recv_wqe *w = (struct rxe_recv_wqe *)slot;
	int i;

	memset(slot, 0, size);
	w->wr_id = 0xbad0000;
	w->dma.num_sge = 1;
	w->dma.length = w->dma.resid = RECV_LEN;
	w->dma.sge[0].addr = (uintptr_t)buf;
	w->dma.sge[0].length = RECV_LEN;
	w->dma.sge[0].lkey = mr->lkey;
	switch (random() % 6) {
	case 0:
		for (i = 0; i + 4 <= (int)size; i += 4)
			*(uint32_t *)(slot + i) = rnd32();
		break;
	case 1:
		w->dma.num_sge = edge32();
		break;
	case 2:
		w->dma.sge[0].length = edge32();
		break;
	case 3:
		w->dma.sge[0].lkey = rnd32();
		break;
	case 4:
		w->dma.sge[0].addr = rnd64();
		break;
	default:
		w->dma.length = edge32();
		w->dma.resid = edge32();
		w->dma.cur_sge = edge32();
		break;
	}
}

/* write COUNT garbage WQEs at the producer of R and publish them. */
static void fill(struct ring *r, struct ibv_qp *qp, int count, int send)
{
	uint32_t prod = r->hdr[RING_PROD], size = 1u << r->log2_elem;
	int i;

	for (i = 0; i < count; i++) {
		uint8_t *slot = r->data + ((prod & r->mask) << r->log2_elem);

		if (send)
			bad_send_wqe(slot, size, qp, random() % 8);
		else
			bad_recv_wqe(slot, size);
		prod = (prod + 1) & r->mask;
	}
	__atomic_store_n(&r->hdr[RING_PROD], prod, __ATOMIC_RELEASE);
}

/* poll the CQ for a while; returns the number of error completions. */
static int drain(int ms)
{
	struct ibv_wc wc[16];
	int n, i, errs = 0;

	while (ms-- > 0) {
		n = ibv_poll_cq(cq, 16, wc);
		if (n < 0)
			return -1;
		for (i = 0; i < n; i++)
			errs += wc[i].status != IBV_WC_SUCCESS;
		if (!n)
			usleep(1000);
	}
	return errs;
}

/* an RC pair connected to each other, or two UD QPs; rings of the first */
static void qp_pair(enum ibv_qp_type type, int gid, struct ibv_qp **qp,
		    struct ring *sq, struct ring *rq)
{
	struct ring sq1, rq1;
	union ibv_gid own;

	qp[0] = qp_with_rings(type, &sq[0], &rq[0]);
	qp[1] = qp_with_rings(type, &sq1, &rq1);
	rq[1] = rq1;
	if (type != IBV_QPT_RC)
		return;
	if (ibv_query_gid(ctx, 1, gid, &own))
		die("query gid");
	connect_qp(qp[0], gid, &own, qp[1]->qp_num, 10, 7, 7, RQ_PSN);
	connect_qp(qp[1], gid, &own, qp[0]->qp_num, 10, 7, 7, RQ_PSN);
}

/* post a valid SIGNALED SEND of LEN bytes from QP[0] to QP[1] */
static int good_send(struct ibv_qp **qp, struct ibv_ah *ah, int len)
{
	struct ibv_sge sge = { (uintptr_t)buf + 8192, len, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 0x600d, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (qp[0]->qp_type == IBV_QPT_UD) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = qp[1]->qp_num;
		wr.wr.ud.remote_qkey = UD_QKEY;
	}
	return ibv_post_send(qp[0], &wr, &bad);
}

static struct ibv_ah *self_ah(int gid)
{
	struct ibv_ah_attr a = { .is_global = 1, .port_num = 1,
				 .grh = { .sgid_index = gid, .hop_limit = 64 } };
	struct ibv_ah *ah;

	if (ibv_query_gid(ctx, 1, gid, &a.grh.dgid))
		die("query gid");
	ah = ibv_create_ah(pd, &a);
	if (!ah)
		die("create ah");
	return ah;
}

static void destroy_pair(struct ibv_qp **qp, int round)
{
	check(!ibv_destroy_qp(qp[0]) && !ibv_destroy_qp(qp[1]),
	      "round %d: QPs destroyed", round);
}

/* returns the round's error completions */
static int ring_round(int round, int gid, struct ibv_ah *ah)
{
	int rc = random() % 3, send = random() % 3, errs, db;
	struct ibv_qp *qp[2];
	struct ring sq[2], rq[2];
	const char *st[2];

	qp_pair(rc ? IBV_QPT_RC : IBV_QPT_UD, gid, qp, sq, rq);
	post_recvs(qp[1], 4);
	if (send) {
		fill(&sq[0], qp[1], 1 + random() % 8, 1);
		if (random() % 4 == 0)	/* a producer index outside the ring */
			sq[0].hdr[RING_PROD] = random() % 2 ? sq[0].mask + 1 +
				random() % 64 : rnd32();
		if (random() % 8 == 0)	/* a consumer index moved by the user */
			sq[0].hdr[RING_CONS] = rnd32();
		db = doorbell(qp[0]);
	} else {
		/* garbage after the good receives; SENDs consume them all */
		fill(&rq[1], qp[1], 1 + random() % 8, 0);
		if (random() % 4 == 0)
			rq[1].hdr[RING_PROD] = rnd32();
		db = good_send(qp, ah, 64);
		for (errs = 0; errs < 8 && !db; errs++)
			db = good_send(qp, ah, 64 << (random() % 5));
	}
	errs = drain(300);
	st[0] = state_name(qp[0]);
	st[1] = state_name(qp[1]);
	printf("# round %d: %s %s ring, doorbell/post %d, %d error completions, QPs %s %s\n",
	       round, rc ? "RC" : "UD", send ? "send" : "recv", db, errs, st[0],
	       st[1]);
	check(errs >= 0 && strcmp(st[0], "query-failed") &&
	      strcmp(st[1], "query-failed"),
	      "round %d: CQ and QPs still answer", round);
	destroy_pair(qp, round);
	drain(5);
	return errs;
}

/* a valid SEND between two fresh QPs completes, on both sides */
static void clean_send(enum ibv_qp_type type, int gid, struct ibv_ah *ah,
		       const char *when)
{
	struct ibv_qp *qp[2];
	struct ring sq[2], rq[2];
	struct ibv_wc wc;
	int got = 0, n, t;

	drain(20);
	qp_pair(type, gid, qp, sq, rq);
	post_recvs(qp[1], 1);
	check(!good_send(qp, ah, 256), "%s: %s SEND posted", when,
	      type == IBV_QPT_RC ? "RC" : "UD");
	for (t = 0; t < 5000 && got < 2; t++) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n != 1) {
			usleep(1000);
			continue;
		}
		if (wc.qp_num != qp[0]->qp_num && wc.qp_num != qp[1]->qp_num)
			continue;
		check(wc.status == IBV_WC_SUCCESS,
		      "%s: %s SEND, %s completion status %d", when,
		      type == IBV_QPT_RC ? "RC" : "UD",
		      wc.qp_num == qp[0]->qp_num ? "send" : "recv", wc.status);
		got++;
	}
	check(got == 2, "%s: 2 completions (got %d)", when, got);
	destroy_pair(qp, -1);
}

static int ring(char **argv)
{
	unsigned int seed = strtoul(argv[4], NULL, 0);
	int rounds = atoi(argv[5]), gid = atoi(argv[3]), i, errs = 0;
	struct ibv_ah *ah;

	printf("# ring fuzz seed %u, %d rounds\n", seed, rounds);
	srandom(seed);
	open_dev(argv[2]);
	ah = self_ah(gid);
	clean_send(IBV_QPT_RC, gid, ah, "before");
	clean_send(IBV_QPT_UD, gid, ah, "before");
	for (i = 0; i < rounds; i++)
		errs += ring_round(i, gid, ah);
	/* garbage must show: most rounds end in error completions */
	check(errs >= rounds / 2, "%d rounds: %d error completions", rounds,
	      errs);
	clean_send(IBV_QPT_RC, gid, ah, "after");
	clean_send(IBV_QPT_UD, gid, ah, "after");
	check(!ibv_destroy_ah(ah) && !ibv_dereg_mr(mr) &&
	      !ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd) &&
	      !ibv_close_device(ctx), "teardown");
	return nfail ? 1 : 0;
}

/* peer mode: the regions the peer aims at, beside buf and mr. */
#define WIN_LEN		16384	/* each window's part of wbuf */
#define DBUF_LEN	16384
#define LBUF_LEN	(1 << 20)	/* long READs: byte i is (i / 1024) * 7 + 1 */
#define PEER_QPN	FAKE_DQPN	/* the peer's responder-side QPN */
#define PEER_REQ_QPN	(FAKE_DQPN + 1)	/* ... and the one it NAKs from */
/* Send work request ids, apart from the receives' (0 .. NRECV - 1). */
#define PEER_WR		0x1000

/* Wait for the completion of @wr_id; others (flushes) are skipped. */
static int wait_wc(uint64_t wr_id, int secs)
{
	struct ibv_wc wc;
	int i, n;

	for (i = 0; i < secs * 1000; i++) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			die("poll cq");
		if (n && wc.wr_id == wr_id)
			return wc.status;
		if (!n)
			usleep(1000);
	}
	return -1;
}

/*
 * Post @n signalled RDMA WRs in one chain, WR i with opcode @op[i], SGE
 * @sge[i] and wr_id @wr_id + i, toward made-up remote addresses 1 MiB
 * apart (the peer checks none); @st[i] is each one's completion status,
 * -1 for none in 60 s, or the post's error for all.
 */
static void post_chain(struct ibv_qp *qp, int n, const enum ibv_wr_opcode *op,
		       struct ibv_sge *sge, uint64_t wr_id, int *st)
{
	struct ibv_send_wr w[4] = {}, *bad;
	int i, rc;

	if (n > 4)
		die("post_chain: %d WRs", n);
	for (i = 0; i < n; i++) {
		w[i].wr_id = wr_id + i;
		w[i].opcode = op[i];
		w[i].sg_list = &sge[i];
		w[i].num_sge = 1;
		w[i].send_flags = IBV_SEND_SIGNALED;
		w[i].wr.rdma.remote_addr = 0x100000 * (i + 1);
		w[i].wr.rdma.rkey = 0x1234;
		w[i].next = i + 1 < n ? &w[i + 1] : NULL;
	}
	rc = ibv_post_send(qp, w, &bad);
	for (i = 0; i < n; i++)
		st[i] = rc ? rc : wait_wc(wr_id + i, 60);
}

static long counter(const char *dev, const char *name)
{
	char path[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Wait for DIR/cmd, take its line, and remove it. */
static void next_cmd(const char *dir, char *line, int len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cmd", dir);
	while (!(f = fopen(path, "r")))
		usleep(20000);
	if (!fgets(line, len, f))
		line[0] = 0;
	fclose(f);
	unlink(path);
}

/* Answer in DIR/reply, written whole through a rename. */
static void reply(const char *dir, const char *fmt, ...)
{
	char tmp[256], path[256];
	va_list ap;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/reply.tmp", dir);
	snprintf(path, sizeof(path), "%s/reply", dir);
	f = fopen(tmp, "w");
	if (!f)
		die("open %s", tmp);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
	if (rename(tmp, path))
		die("rename %s", tmp);
}

/*
 * peer DEV GID PEER_IP DIR: act for roce-peer.py, one command at a time
 * (DIR/cmd in, DIR/reply out):
 *   qp             a new RC QP toward the peer's QPN; reply "QPN"
 *   bind1, bind2   bind the type 1 window over wbuf[0, 16K) with
 *                  ibv_bind_mw, or the type 2 window over wbuf[16K, 32K)
 *                  with IBV_WR_BIND_MW on the current QP; reply "RKEY VA"
 *   inv2           IBV_WR_LOCAL_INV of the type 2 window; reply "STATUS"
 *   dealloc1       ibv_dealloc_mw of the type 1 window; reply "RC"
 *   dereg          ibv_dereg_mr of dbuf's MR; reply "RC MS"
 *   read OFF LEN   wbuf[OFF, OFF + LEN) as hex
 *   req RETRY TMO [RNR]
 *                  a new RC QP toward the peer's other QPN, retry_cnt
 *                  RETRY, timeout TMO, rnr_retry RNR (7); reply "QPN"
 *   post           one 512-byte READ on it; reply "STATUS MS RETRIES"
 *                  when it completes, RETRIES being how much
 *                  completer_retry_err grew meanwhile
 *   post2          the same READ, then an 8-byte FETCH_ADD behind it;
 *                  reply "STATUS STATUS MS RETRIES" when both completed
 *   post3          a 4 KiB WRITE, a 4 KiB READ and a 16-byte WRITE;
 *                  reply "STATUS STATUS STATUS MS RETRIES"
 *   post4          a 300 KiB READ (more PSNs than the requester's window)
 *                  and a 16-byte WRITE; reply "STATUS STATUS MS RETRIES"
 *   postr          a 4 KiB READ alone; reply "STATUS MS RETRIES"
 *   posts          a 16-byte SEND; reply "STATUS MS RETRIES"
 *   counter NAME   the device's port counter NAME
 *   block, unblock a tc filter on eth0's egress that drops every RoCEv2
 *                  packet (the local stack refusing sroce's packets),
 *                  and its removal; reply the exit status
 *   quit
 * DIR/info gives RKEY VA (buf, remote read and write), DRKEY DVA (dbuf),
 * LRKEY LVA LLEN (lbuf, remote read: each 1 KiB names its index) and the
 * PSNs.
 */
static int peer(char **argv)
{
	const char *dev = argv[2], *dir = argv[5];
	int gid = atoi(argv[3]), status, rc, i;
	struct ibv_mw *mw1, *mw2 = NULL;
	struct ibv_mr *wmr, *dmr, *lmr;
	struct ibv_qp *qp = NULL;
	uint8_t *wbuf, *dbuf, *lbuf;
	union ibv_gid pgid;
	char line[128], hex[2 * 256 + 1], path[256], name[64];
	FILE *f;

	open_dev(dev);
	if (gid_of(argv[4], &pgid))
		die("bad address %s", argv[4]);
	if (posix_memalign((void **)&wbuf, 4096, 2 * WIN_LEN) ||
	    posix_memalign((void **)&dbuf, 4096, DBUF_LEN) ||
	    posix_memalign((void **)&lbuf, 4096, LBUF_LEN))
		die("memalign");
	memset(wbuf, 0x5a, 2 * WIN_LEN);
	for (i = 0; i < LBUF_LEN; i++)
		lbuf[i] = (i / 1024) * 7 + 1;
	wmr = ibv_reg_mr(pd, wbuf, 2 * WIN_LEN, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_MW_BIND);
	dmr = ibv_reg_mr(pd, dbuf, DBUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE);
	lmr = ibv_reg_mr(pd, lbuf, LBUF_LEN, IBV_ACCESS_REMOTE_READ);
	mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	if (!wmr || !dmr || !lmr || !mw1)
		die("regions and windows");

	snprintf(path, sizeof(path), "%s/info", dir);
	f = fopen(path, "w");
	if (!f)
		die("open %s", path);
	fprintf(f, "RKEY=%u\nVA=%llu\nDRKEY=%u\nDVA=%llu\nLRKEY=%u\nLVA=%llu\n"
		"LLEN=%u\nRQ_PSN=%u\nSQ_PSN=%u\n",
		mr->rkey, (unsigned long long)(uintptr_t)buf, dmr->rkey,
		(unsigned long long)(uintptr_t)dbuf, lmr->rkey,
		(unsigned long long)(uintptr_t)lbuf, LBUF_LEN, RQ_PSN, SQ_PSN);
	fclose(f);

	for (;;) {
		struct ibv_send_wr wr = { .send_flags = IBV_SEND_SIGNALED };
		struct ibv_send_wr *bad;
		unsigned int a, b, c;
		int n;

		next_cmd(dir, line, sizeof(line));
		if (!strncmp(line, "quit", 4))
			break;
		if (!strncmp(line, "qp", 2)) {
			if (qp && ibv_destroy_qp(qp))
				die("destroy qp");
			qp = new_qp(IBV_QPT_RC, 64);
			connect_qp(qp, gid, &pgid, PEER_QPN, 14, 7, 7, SQ_PSN);
			if (post_recvs(qp, NRECV))
				die("post recv");
			reply(dir, "%u", qp->qp_num);
		} else if (!strncmp(line, "bind1", 5)) {
			struct ibv_mw_bind bind = {
				.wr_id = PEER_WR + 1, .send_flags = IBV_SEND_SIGNALED,
				.bind_info = {
					.mr = wmr, .addr = (uintptr_t)wbuf,
					.length = WIN_LEN,
					.mw_access_flags =
						IBV_ACCESS_REMOTE_WRITE |
						IBV_ACCESS_REMOTE_READ,
				},
			};

			rc = ibv_bind_mw(qp, mw1, &bind);
			status = rc ? rc : wait_wc(PEER_WR + 1, 10);
			reply(dir, "%u %llu %d", mw1->rkey,
			      (unsigned long long)(uintptr_t)wbuf, status);
		} else if (!strncmp(line, "bind2", 5)) {
			if (mw2 && ibv_dealloc_mw(mw2))
				die("dealloc mw2");
			mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
			if (!mw2)
				die("alloc mw2");
			wr.wr_id = PEER_WR + 2;
			wr.opcode = IBV_WR_BIND_MW;
			wr.bind_mw.mw = mw2;
			wr.bind_mw.rkey = ibv_inc_rkey(mw2->rkey);
			wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
				.mr = wmr, .addr = (uintptr_t)wbuf + WIN_LEN,
				.length = WIN_LEN,
				.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
						   IBV_ACCESS_REMOTE_READ,
			};
			rc = ibv_post_send(qp, &wr, &bad);
			status = rc ? rc : wait_wc(PEER_WR + 2, 10);
			reply(dir, "%u %llu %d", wr.bind_mw.rkey,
			      (unsigned long long)(uintptr_t)wbuf + WIN_LEN,
			      status);
		} else if (!strncmp(line, "inv2", 4)) {
			wr.wr_id = PEER_WR + 3;
			wr.opcode = IBV_WR_LOCAL_INV;
			wr.invalidate_rkey = ibv_inc_rkey(mw2->rkey);
			rc = ibv_post_send(qp, &wr, &bad);
			reply(dir, "%d", rc ? rc : wait_wc(PEER_WR + 3, 10));
		} else if (!strncmp(line, "dealloc1", 8)) {
			reply(dir, "%d", ibv_dealloc_mw(mw1));
			mw1 = NULL;
		} else if (!strncmp(line, "dereg", 5)) {
			long t0 = now_ms();

			rc = ibv_dereg_mr(dmr);
			if (!rc)
				dmr = NULL;
			reply(dir, "%d %ld", rc, now_ms() - t0);
		} else if (sscanf(line, "read %u %u", &a, &b) == 2 &&
			   a < 2 * WIN_LEN && b <= 256 && b <= 2 * WIN_LEN - a) {
			for (i = 0; i < (int)b; i++)
				sprintf(hex + 2 * i, "%02x", wbuf[a + i]);
			hex[2 * b] = 0;
			reply(dir, "%s", hex);
		} else if ((n = sscanf(line, "req %u %u %u", &a, &b, &c)) >= 2) {
			if (qp && ibv_destroy_qp(qp))
				die("destroy qp");
			qp = new_qp(IBV_QPT_RC, 64);
			connect_qp(qp, gid, &pgid, PEER_REQ_QPN, b, a,
				   n == 3 ? (int)c : 7, SQ_PSN);
			reply(dir, "%u", qp->qp_num);
		} else if (!strncmp(line, "post2", 5)) {
			struct ibv_sge sge[2] = {
				{ (uintptr_t)buf + 32768, 512, mr->lkey },
				{ (uintptr_t)buf + 32768 + 512, 8, mr->lkey },
			};
			struct ibv_send_wr fadd = {
				.wr_id = PEER_WR + 6, .sg_list = &sge[1],
				.num_sge = 1, .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.atomic = { .remote_addr = 0x20000,
					       .compare_add = 1, .rkey = 0x1234 },
			};
			long before = counter(dev, "completer_retry_err");
			long t0 = now_ms();
			int status2 = -1;

			wr.wr_id = PEER_WR + 5;
			wr.opcode = IBV_WR_RDMA_READ;
			wr.sg_list = &sge[0];
			wr.num_sge = 1;
			wr.wr.rdma.remote_addr = 0x10000;
			wr.wr.rdma.rkey = 0x1234;
			wr.next = &fadd;
			rc = ibv_post_send(qp, &wr, &bad);
			/* In order: wait_wc() drops what it does not wait for. */
			status = rc ? rc : wait_wc(PEER_WR + 5, 60);
			if (!rc)
				status2 = wait_wc(PEER_WR + 6, 10);
			reply(dir, "%d %d %ld %ld", status, status2, now_ms() - t0,
			      counter(dev, "completer_retry_err") - before);
		} else if (!strncmp(line, "post4", 5)) {
			size_t len = 300 * 1024;
			uint8_t *big = malloc(len);
			struct ibv_mr *bmr = big ? ibv_reg_mr(pd, big, len,
					IBV_ACCESS_LOCAL_WRITE) : NULL;
			struct ibv_sge sge[2] = {
				{ (uintptr_t)big, len, bmr ? bmr->lkey : 0 },
				{ (uintptr_t)buf + 45056, 16, mr->lkey },
			};
			const enum ibv_wr_opcode op[2] = {
				IBV_WR_RDMA_READ, IBV_WR_RDMA_WRITE
			};
			long before = counter(dev, "completer_retry_err");
			long t0 = now_ms();
			int st[2];

			if (!bmr)
				die("300 KiB MR");
			post_chain(qp, 2, op, sge, PEER_WR + 10, st);
			reply(dir, "%d %d %ld %ld", st[0], st[1], now_ms() - t0,
			      counter(dev, "completer_retry_err") - before);
			if (ibv_dereg_mr(bmr))
				die("dereg 300 KiB MR");
			free(big);
		} else if (!strncmp(line, "post3", 5)) {
			struct ibv_sge sge[3] = {
				{ (uintptr_t)buf + 36864, 4096, mr->lkey },
				{ (uintptr_t)buf + 40960, 4096, mr->lkey },
				{ (uintptr_t)buf + 45056, 16, mr->lkey },
			};
			const enum ibv_wr_opcode op[3] = {
				IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ,
				IBV_WR_RDMA_WRITE
			};
			long before = counter(dev, "completer_retry_err");
			long t0 = now_ms();
			int st[3];

			post_chain(qp, 3, op, sge, PEER_WR + 7, st);
			reply(dir, "%d %d %d %ld %ld", st[0], st[1], st[2],
			      now_ms() - t0,
			      counter(dev, "completer_retry_err") - before);
		} else if (!strncmp(line, "posts", 5)) {
			struct ibv_sge sge = {
				(uintptr_t)buf + 49152, 16, mr->lkey
			};
			const enum ibv_wr_opcode op = IBV_WR_SEND;
			long before = counter(dev, "completer_retry_err");
			long t0 = now_ms();

			post_chain(qp, 1, &op, &sge, PEER_WR + 13, &status);
			reply(dir, "%d %ld %ld", status, now_ms() - t0,
			      counter(dev, "completer_retry_err") - before);
		} else if (!strncmp(line, "post", 4)) {
			/* post: 512 bytes; postr: 4 KiB, four responses. */
			int four = line[4] == 'r';
			struct ibv_sge sge = {
				(uintptr_t)buf + (four ? 40960 : 32768),
				four ? 4096 : 512, mr->lkey
			};
			long before = counter(dev, "completer_retry_err");
			long t0 = now_ms();

			wr.wr_id = PEER_WR + (four ? 12 : 4);
			wr.opcode = IBV_WR_RDMA_READ;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.wr.rdma.remote_addr = 0x10000;
			wr.wr.rdma.rkey = 0x1234;
			rc = ibv_post_send(qp, &wr, &bad);
			status = rc ? rc : wait_wc(wr.wr_id, four ? 60 : 120);
			reply(dir, "%d %ld %ld", status, now_ms() - t0,
			      counter(dev, "completer_retry_err") - before);
		} else if (sscanf(line, "counter %63s", name) == 1) {
			reply(dir, "%ld", counter(dev, name));
		} else if (!strncmp(line, "block", 5)) {
			reply(dir, "%d", system("tc qdisc add dev eth0 clsact && "
				"tc filter add dev eth0 egress protocol ip u32 "
				"match ip protocol 17 0xff match ip dport 4791 "
				"0xffff action drop"));
		} else if (!strncmp(line, "unblock", 7)) {
			reply(dir, "%d", system("tc qdisc del dev eth0 clsact"));
		} else {
			reply(dir, "bad command");
		}
	}
	check((!qp || !ibv_destroy_qp(qp)) && (!mw1 || !ibv_dealloc_mw(mw1)) &&
	      (!mw2 || !ibv_dealloc_mw(mw2)) && (!dmr || !ibv_dereg_mr(dmr)) &&
	      !ibv_dereg_mr(wmr) && !ibv_dereg_mr(lmr) && !ibv_dereg_mr(mr) &&
	      !ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd) &&
	      !ibv_close_device(ctx), "peer: teardown");
	return nfail ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 9 && !strcmp(argv[1], "target"))
		return target(argv);
	if (argc == 6 && !strcmp(argv[1], "ring"))
		return ring(argv);
	if (argc == 6 && !strcmp(argv[1], "peer"))
		return peer(argv);
	fprintf(stderr, "usage: %s target DEV GID4 GID6 PEER_IP4 PEER_IP6 INFO STOP\n"
		"       %s ring DEV GID SEED ROUNDS\n"
		"       %s peer DEV GID PEER_IP DIR\n", argv[0], argv[0], argv[0]);
	return 2;
}
