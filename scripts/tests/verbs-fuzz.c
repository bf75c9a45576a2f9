// SPDX-License-Identifier: GPL-2.0
/*
 * A verbs-sequence fuzzer, in the spirit of syzkaller's RDMA descriptions,
 * through the stock rxe provider:
 *
 *   verbs-fuzz DEV GID PEER_IP SEED SECONDS NPROC
 *
 * NPROC processes (seeds SEED, SEED + 1, ...) each issue random sequences
 * of verbs for SECONDS: open and close the device, allocate and free PDs,
 * CQs (resize, notify), MRs (register over good and bad memory, random
 * access, reregister, deregister while in use), memory windows (bind,
 * invalidate, dealloc), SRQs, AHs and QPs of every type, modify QPs
 * through random states with random attributes, connect RC and UC QPs to
 * each other and to random QPNs on the peer, post random send and receive
 * work requests (random opcodes, lkeys, rkeys, addresses, lengths,
 * flags), poll, and now and then exit in the middle of it all, leaving the
 * kernel to clean up. A process that ends is replaced by a new one with
 * the next seed. What a verb returns is not judged (most random calls
 * fail, as they should): the kernel's log is, by the harness, and the
 * device must still work afterwards. The seeds make a run reproducible
 * as far as the scheduler allows. Prints one summary line per process and
 * "ok - ..." at the end; exits non-zero if a process died of a signal.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "test-common.h"

#define NPD	3
#define NCQ	4
#define NMR	8
#define NMW	4
#define NSRQ	2
#define NAH	3
#define NQP	8
#define ARENA	(1 << 20)

static struct ibv_device *device;
static struct ibv_context *ctx;
static struct ibv_pd *pd[NPD];
static struct ibv_cq *cq[NCQ];
static struct ibv_mr *mr[NMR];
static struct ibv_mw *mw[NMW];
static struct ibv_srq *srq[NSRQ];
static struct ibv_ah *ah[NAH];
static struct ibv_qp *qp[NQP];
static uint8_t *arena;
static uint32_t gid_index;
static union ibv_gid peer_gid, own_gid;
static unsigned long ops;
/* The verb under way, named when a process faults. */
static const char *cur_op = "start";

static uint32_t rnd(uint32_t n)
{
	return n ? (uint32_t)random() % n : 0;
}

static uint64_t rnd64(void)
{
	return ((uint64_t)random() << 33) ^ ((uint64_t)random() << 2) ^
	       (uint64_t)random();
}

/* Mostly sane values, sometimes boundary or garbage ones. */
static uint32_t pick_len(uint32_t sane)
{
	switch (rnd(8)) {
	case 0:
		return 0;
	case 1:
		return rnd64();
	case 2:
		return sane + rnd(3);
	default:
		return rnd(sane + 1);
	}
}

static struct ibv_pd *any_pd(void)
{
	return pd[rnd(NPD)];
}

static struct ibv_cq *any_cq(void)
{
	return cq[rnd(NCQ)];
}

static uint32_t any_lkey(void)
{
	struct ibv_mr *m = mr[rnd(NMR)];

	if (m && rnd(8))
		return m->lkey;
	return rnd(4) ? rnd64() : 0;
}

static uint32_t any_rkey(void)
{
	struct ibv_mr *m = mr[rnd(NMR)];
	struct ibv_mw *w = mw[rnd(NMW)];

	if (w && rnd(2))
		return w->rkey;
	if (m && rnd(4))
		return m->rkey;
	return rnd64();
}

static uint64_t any_addr(void)
{
	if (rnd(8))
		return (uintptr_t)arena + rnd(ARENA);
	return rnd64();
}

static void close_all(void)
{
	int i;

	for (i = 0; i < NQP; i++)
		if (qp[i])
			ibv_destroy_qp(qp[i]);
	for (i = 0; i < NAH; i++)
		if (ah[i])
			ibv_destroy_ah(ah[i]);
	for (i = 0; i < NSRQ; i++)
		if (srq[i])
			ibv_destroy_srq(srq[i]);
	for (i = 0; i < NMW; i++)
		if (mw[i])
			ibv_dealloc_mw(mw[i]);
	for (i = 0; i < NMR; i++)
		if (mr[i])
			ibv_dereg_mr(mr[i]);
	for (i = 0; i < NCQ; i++)
		if (cq[i])
			ibv_destroy_cq(cq[i]);
	for (i = 0; i < NPD; i++)
		if (pd[i])
			ibv_dealloc_pd(pd[i]);
	ibv_close_device(ctx);
	memset(qp, 0, sizeof(qp));
	memset(ah, 0, sizeof(ah));
	memset(srq, 0, sizeof(srq));
	memset(mw, 0, sizeof(mw));
	memset(mr, 0, sizeof(mr));
	memset(cq, 0, sizeof(cq));
	memset(pd, 0, sizeof(pd));
	ctx = NULL;
}

static void open_all(void)
{
	ctx = ibv_open_device(device);
	if (!ctx) {
		perror("ibv_open_device");
		exit(2);
	}
	pd[0] = ibv_alloc_pd(ctx);
	cq[0] = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!pd[0] || !cq[0]) {
		perror("pd/cq");
		exit(2);
	}
}

static void op_pd(void)
{
	cur_op = __func__;
	int i = rnd(NPD);

	if (pd[i]) {
		if (!ibv_dealloc_pd(pd[i]))
			pd[i] = NULL;
	} else {
		pd[i] = ibv_alloc_pd(ctx);
	}
}

static void op_cq(void)
{
	cur_op = __func__;
	int i = rnd(NCQ);

	if (!cq[i]) {
		cq[i] = ibv_create_cq(ctx, pick_len(4096), NULL, NULL, 0);
		return;
	}
	switch (rnd(4)) {
	case 0:
		if (!ibv_destroy_cq(cq[i]))
			cq[i] = NULL;
		break;
	case 1:
		ibv_resize_cq(cq[i], pick_len(4096));
		break;
	case 2:
		ibv_req_notify_cq(cq[i], rnd(2));
		break;
	default: {
		struct ibv_wc wc[16];

		ibv_poll_cq(cq[i], 16, wc);
	}
	}
}

static int any_access(void)
{
	static const int bits[] = {
		IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_MW_BIND, IBV_ACCESS_ZERO_BASED,
		IBV_ACCESS_ON_DEMAND,
	};
	int a = 0, n = rnd(5);

	while (n--)
		a |= bits[rnd(sizeof(bits) / sizeof(bits[0]))];
	return a;
}

static void op_mr(void)
{
	int i = rnd(NMR);

	cur_op = __func__;
	struct ibv_pd *p = any_pd();

	if (!mr[i]) {
		uint32_t off = rnd(ARENA), len = pick_len(ARENA - off);
		void *addr = rnd(16) ? arena + off : (void *)(uintptr_t)rnd64();

		if (p)
			mr[i] = ibv_reg_mr(p, addr, len, any_access());
		return;
	}
	if (rnd(3)) {
		if (!ibv_dereg_mr(mr[i]))
			mr[i] = NULL;
	} else if (p) {
		uint32_t off = rnd(ARENA);

		ibv_rereg_mr(mr[i], IBV_REREG_MR_CHANGE_TRANSLATION |
			     IBV_REREG_MR_CHANGE_ACCESS, p, arena + off,
			     pick_len(ARENA - off), any_access());
	}
}

static void op_mw(void)
{
	int i = rnd(NMW);
	struct ibv_pd *p = any_pd();

	cur_op = __func__;

	if (!mw[i]) {
		if (p)
			mw[i] = ibv_alloc_mw(p, rnd(2) ? IBV_MW_TYPE_1 :
						     IBV_MW_TYPE_2);
		return;
	}
	if (rnd(2) && qp[rnd(NQP)] && mr[rnd(NMR)]) {
		struct ibv_mw_bind b = {
			.wr_id = rnd64(), .send_flags = rnd(2),
			.bind_info = {
				.mr = mr[rnd(NMR)], .addr = any_addr(),
				.length = pick_len(ARENA),
				.mw_access_flags = any_access(),
			},
		};
		struct ibv_qp *q = qp[rnd(NQP)];

		if (q && b.bind_info.mr)
			ibv_bind_mw(q, mw[i], &b);
		return;
	}
	if (!ibv_dealloc_mw(mw[i]))
		mw[i] = NULL;
}

static void op_srq(void)
{
	int i = rnd(NSRQ);
	struct ibv_pd *p = any_pd();

	cur_op = __func__;

	if (!srq[i]) {
		struct ibv_srq_init_attr a = {
			.attr = { .max_wr = pick_len(512),
				  .max_sge = pick_len(4) },
		};

		if (p)
			srq[i] = ibv_create_srq(p, &a);
		return;
	}
	switch (rnd(3)) {
	case 0:
		if (!ibv_destroy_srq(srq[i]))
			srq[i] = NULL;
		break;
	case 1: {
		struct ibv_srq_attr a = { .max_wr = pick_len(1024),
					  .srq_limit = pick_len(64) };

		ibv_modify_srq(srq[i], &a, rnd(4));
		break;
	}
	default: {
		struct ibv_sge sge = { any_addr(), pick_len(4096), any_lkey() };
		struct ibv_recv_wr wr = { .wr_id = rnd64(), .sg_list = &sge,
					  .num_sge = rnd(3) }, *bad;

		ibv_post_srq_recv(srq[i], &wr, &bad);
	}
	}
}

static void op_ah(void)
{
	int i = rnd(NAH);
	struct ibv_pd *p = any_pd();

	cur_op = __func__;

	if (ah[i]) {
		if (!ibv_destroy_ah(ah[i]))
			ah[i] = NULL;
	} else if (p) {
		struct ibv_ah_attr a = {
			.is_global = 1, .port_num = 1,
			.grh = { .dgid = rnd(2) ? peer_gid : own_gid,
				 .sgid_index = rnd(8) ? gid_index : rnd(16),
				 .hop_limit = 64 },
		};

		ah[i] = ibv_create_ah(p, &a);
	}
}

static void op_create_qp(int i)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD,
	};
	struct ibv_qp_init_attr a = {
		.send_cq = any_cq(), .recv_cq = any_cq(),
		.srq = rnd(4) ? NULL : srq[rnd(NSRQ)],
		.qp_type = types[rnd(4)], .sq_sig_all = rnd(2),
		.cap = { .max_send_wr = pick_len(256),
			 .max_recv_wr = pick_len(256),
			 .max_send_sge = pick_len(8),
			 .max_recv_sge = pick_len(8),
			 .max_inline_data = pick_len(256) },
	};
	struct ibv_pd *p = any_pd();

	cur_op = __func__;

	if (p && a.send_cq && a.recv_cq)
		qp[i] = ibv_create_qp(p, &a);
}

/* A random move, with random attributes under a random mask. */
static void op_modify_qp(struct ibv_qp *q)
{
	struct ibv_qp *other = qp[rnd(NQP)];
	struct ibv_qp_attr a = {
		.qp_state = rnd(7), .cur_qp_state = rnd(7),
		.path_mtu = 1 + rnd(5), .qkey = rnd64(),
		.rq_psn = rnd(4) ? 0x100 : rnd64(),
		.sq_psn = rnd(4) ? 0x100 : rnd64(),
		.dest_qp_num = other && rnd(2) ? other->qp_num : rnd64(),
		.qp_access_flags = any_access(), .pkey_index = rnd(4) ? 0 : rnd(8),
		.max_rd_atomic = rnd(20), .max_dest_rd_atomic = rnd(20),
		.min_rnr_timer = rnd(32), .port_num = rnd(8) ? 1 : rnd(4),
		.timeout = rnd(32), .retry_cnt = rnd(8), .rnr_retry = rnd(8),
		.ah_attr = {
			.is_global = 1, .port_num = 1,
			.grh = { .dgid = rnd(2) ? peer_gid : own_gid,
				 .sgid_index = rnd(8) ? gid_index : rnd(16),
				 .hop_limit = 64 },
		},
	};
	int mask = rnd(4) ? IBV_QP_STATE : 0;

	cur_op = __func__;

	mask |= random() & (IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY |
			    IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_DEST_QPN);
	/* Often the mask a correct move needs, so that QPs reach RTS. */
	if (rnd(2)) {
		a.qp_state = (rnd(2) ? IBV_QPS_INIT : IBV_QPS_RTR) + rnd(2);
		mask = IBV_QP_STATE;
		if (a.qp_state == IBV_QPS_INIT)
			mask |= q->qp_type == IBV_QPT_UD ?
				IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY :
				IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS;
		else if (a.qp_state == IBV_QPS_RTR && q->qp_type != IBV_QPT_UD)
			mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN |
				(q->qp_type == IBV_QPT_RC ?
				 IBV_QP_MAX_DEST_RD_ATOMIC |
				 IBV_QP_MIN_RNR_TIMER : 0);
		else if (a.qp_state == IBV_QPS_RTS)
			mask |= IBV_QP_SQ_PSN |
				(q->qp_type == IBV_QPT_RC ?
				 IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC :
				 0);
	}
	ibv_modify_qp(q, &a, mask);
}

static void op_post_send(struct ibv_qp *q)
{
	static const enum ibv_wr_opcode opcodes[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND,
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_LOCAL_INV, IBV_WR_SEND_WITH_INV,
	};
	struct ibv_sge sge[4];
	struct ibv_send_wr wr[2], *bad;
	int i, n = 1 + rnd(2), s;

	cur_op = __func__;

	memset(wr, 0, sizeof(wr));
	for (s = 0; s < 4; s++)
		sge[s] = (struct ibv_sge){ any_addr(), pick_len(8192),
					   any_lkey() };
	for (i = 0; i < n; i++) {
		wr[i].wr_id = rnd64();
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].sg_list = sge;
		wr[i].num_sge = rnd(5);
		wr[i].opcode = opcodes[rnd(sizeof(opcodes) /
					   sizeof(opcodes[0]))];
		wr[i].send_flags = random() & (IBV_SEND_FENCE |
					       IBV_SEND_SIGNALED |
					       IBV_SEND_SOLICITED |
					       IBV_SEND_INLINE);
		/*
		 * The provider copies inline data itself: point it at the
		 * arena, or the fuzzer would only fault in userspace. (Binds
		 * go through ibv_bind_mw: a bind WR's window is a pointer.)
		 */
		if (wr[i].send_flags & IBV_SEND_INLINE)
			for (s = 0; s < 4; s++)
				sge[s] = (struct ibv_sge){
					(uintptr_t)arena + rnd(ARENA - 8192),
					rnd(8192), sge[s].lkey };
		wr[i].imm_data = rnd64();
		if (wr[i].opcode == IBV_WR_LOCAL_INV ||
		    wr[i].opcode == IBV_WR_SEND_WITH_INV)
			wr[i].invalidate_rkey = any_rkey();
		/* The provider takes a UD WR's address handle as a pointer. */
		if (q->qp_type == IBV_QPT_UD) {
			wr[i].wr.ud.ah = ah[rnd(NAH)];
			wr[i].wr.ud.remote_qpn = rnd(2) ? 1 : rnd64();
			wr[i].wr.ud.remote_qkey = rnd64();
			if (!wr[i].wr.ud.ah)
				return;
		} else if (wr[i].opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
			   wr[i].opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr[i].wr.atomic.remote_addr = any_addr() & ~7ULL;
			wr[i].wr.atomic.rkey = any_rkey();
			wr[i].wr.atomic.compare_add = rnd64();
			wr[i].wr.atomic.swap = rnd64();
		} else {
			wr[i].wr.rdma.remote_addr = any_addr();
			wr[i].wr.rdma.rkey = any_rkey();
		}
	}
	ibv_post_send(q, wr, &bad);
}

static void op_post_recv(struct ibv_qp *q)
{
	struct ibv_sge sge[2] = {
		{ any_addr(), pick_len(8192), any_lkey() },
		{ any_addr(), pick_len(8192), any_lkey() },
	};
	struct ibv_recv_wr wr = { .wr_id = rnd64(), .sg_list = sge,
				  .num_sge = rnd(3) }, *bad;

	cur_op = __func__;

	ibv_post_recv(q, &wr, &bad);
}

static void op_qp(void)
{
	int i = rnd(NQP);
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	cur_op = __func__;

	if (!qp[i]) {
		op_create_qp(i);
		return;
	}
	switch (rnd(8)) {
	case 0:
		if (!ibv_destroy_qp(qp[i]))
			qp[i] = NULL;
		break;
	case 1:
	case 2:
		op_modify_qp(qp[i]);
		break;
	case 3:
		ibv_query_qp(qp[i], &a, random(), &ia);
		break;
	case 4:
		op_post_recv(qp[i]);
		break;
	default:
		op_post_send(qp[i]);
	}
}

static void on_fault(int sig)
{
	char msg[96];
	int n = snprintf(msg, sizeof(msg), "# signal %d in %s\n", sig, cur_op);

	if (write(1, msg, n) < 0)
		_exit(128 + sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int child(unsigned int seed, time_t deadline)
{
	signal(SIGSEGV, on_fault);
	signal(SIGBUS, on_fault);
	srandom(seed);
	open_all();
	while (time(NULL) < deadline) {
		ops++;
		switch (rnd(32)) {
		case 0:
			/* Die in the middle: the kernel cleans up. */
			if (!rnd(8))
				_exit(0);
			if (!rnd(4)) {
				close_all();
				open_all();
			}
			break;
		case 1:
		case 2:
			op_pd();
			break;
		case 3:
		case 4:
			op_cq();
			break;
		case 5:
		case 6:
		case 7:
			op_mr();
			break;
		case 8:
		case 9:
			op_mw();
			break;
		case 10:
			op_srq();
			break;
		case 11:
			op_ah();
			break;
		default:
			op_qp();
		}
	}
	printf("# seed %u: %lu verbs\n", seed, ops);
	close_all();
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	unsigned int seed, next;
	int nproc, running = 0, crashed = 0, i, status;
	time_t deadline;
	pid_t pid;

	if (argc != 7) {
		fprintf(stderr, "usage: %s DEV GID PEER_IP SEED SECONDS NPROC\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	gid_index = atoi(argv[2]);
	if (gid_of(argv[3], &peer_gid)) {
		fprintf(stderr, "bad address %s\n", argv[3]);
		return 2;
	}
	seed = strtoul(argv[4], NULL, 0);
	deadline = time(NULL) + atoi(argv[5]);
	nproc = atoi(argv[6]);
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			device = list[i];
	if (!device) {
		fprintf(stderr, "no device %s\n", argv[1]);
		return 2;
	}
	ctx = ibv_open_device(device);
	if (!ctx || ibv_query_gid(ctx, 1, gid_index, &own_gid)) {
		perror("device");
		return 2;
	}
	ibv_close_device(ctx);
	arena = mmap(NULL, ARENA, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	printf("# verbs fuzz seed %u, %s s, %d processes\n", seed, argv[5],
	       nproc);
	for (next = seed; time(NULL) < deadline || running;) {
		while (running < nproc && time(NULL) < deadline) {
			pid = fork();
			if (pid < 0) {
				perror("fork");
				return 2;
			}
			if (!pid)
				_exit(child(next, deadline));
			next++;
			running++;
		}
		pid = wait(&status);
		if (pid < 0)
			break;
		running--;
		if (WIFSIGNALED(status)) {
			printf("# a process died of signal %d\n",
			       WTERMSIG(status));
			crashed++;
		}
	}
	printf("%sok - %u processes of verbs fuzzing, none killed by a "
	       "signal\n", crashed ? "not " : "", next - seed);
	return crashed ? 1 : 0;
}
