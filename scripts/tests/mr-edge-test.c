// SPDX-License-Identifier: GPL-2.0
/*
 * mr-edge-test DEV GID_INDEX: remote accesses at the edges of what a
 * memory region grants, between two RC QPs of one device (sroce delivers
 * to its own address):
 *
 *  - an ODP MR over 32 pages whose page 16 is PROT_NONE (a guard page):
 *    a WRITE to page 12 and a READ from page 20, both within the
 *    responder's prefetch reach of the hole, succeed with the data right
 *    (the fault covers what the access wants; the prefetch behind it is
 *    best effort); a WRITE to page 16 ends in a remote access error;
 *  - ODP MRs span at most the host's RAM together: one larger, or one
 *    beyond what the others leave, is refused with ENOMEM;
 *  - a UD QP on an SRQ whose buffers are a fresh ODP MR loses the
 *    datagrams that meet an unmapped page but stays up, and its SRQ WQE
 *    takes a later datagram whole;
 *  - a zero-based type 2 window bound from 4 bytes past an aligned
 *    address, so that its aligned offset 8 sits on misaligned memory:
 *    FETCH_ADD and CMP_SWAP there end in a remote invalid request error
 *    and leave the memory as it was (an atomic moves its 8 bytes through
 *    one mapping, all or nothing).
 *
 * Prints TAP-style "ok - ..." / "not ok - ..." lines; exits 1 if any
 * check failed, 2 on a setup failure.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test-common.h"

#define NPAGES		32
#define HOLE		16

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static union ibv_gid gid;
static int gidx;
static long psz;

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return (enum ibv_qp_state)-1;
	return a.qp_state;
}

/* A requester QP connected to a responder QP, both on this device. */
struct pair {
	struct ibv_qp *req, *resp;
};

static struct ibv_qp *rc_qp(void)
{
	return rc_qp_ex_create(pd, cq, IBV_QP_EX_WITH_BIND_MW, 4);
}

static void pair_up(struct pair *p)
{
	struct rc_attr a = {
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
		.mtu = IBV_MTU_1024,
		.dgid = gid,
		.sgid_index = gidx,
		.max_dest_rd_atomic = 4,
		.max_rd_atomic = 4,
		.min_rnr_timer = 12,
		.timeout = 14,
		.retry_cnt = 7,
	};
	const char *fail;

	p->req = rc_qp();
	p->resp = rc_qp();
	a.dest_qpn = p->resp->qp_num;
	fail = rc_connect(p->req, &a);
	a.dest_qpn = p->req->qp_num;
	fail = fail ?: rc_connect(p->resp, &a);
	if (fail)
		fatal("cannot reach %s: %s", fail, strerror(errno));
}

static void pair_down(struct pair *p)
{
	ibv_destroy_qp(p->req);
	ibv_destroy_qp(p->resp);
}

/*
 * Post one signaled WR of @opcode from @sge to @raddr/@rkey on @p and
 * return its completion status; -1 if none came.
 */
static int one_wr(struct pair *p, enum ibv_wr_opcode opcode,
		  struct ibv_sge *sge, uint64_t raddr, uint32_t rkey,
		  uint64_t compare_add, uint64_t swap)
{
	struct ibv_send_wr wr = {
		.wr_id = opcode,
		.sg_list = sge,
		.num_sge = 1,
		.opcode = opcode,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	if (opcode == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	    opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = compare_add;
		wr.wr.atomic.swap = swap;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (ibv_post_send(p->req, &wr, &bad))
		fatal("post_send: %s", strerror(errno));
	/* The responder's QP sees nothing: only the requester completes. */
	if (!poll_one(cq, &wc, 20000))
		return -1;
	return wc.status;
}

static void test_odp_hole(void)
{
	struct ibv_device_attr_ex dev;
	struct ibv_mr *odp, *local;
	uint8_t *mem, *buf;
	struct ibv_sge sge;
	struct pair p;
	int st;

	if (ibv_query_device_ex(ctx, NULL, &dev) ||
	    !(dev.odp_caps.per_transport_caps.rc_odp_caps &
	      IBV_ODP_SUPPORT_WRITE)) {
		check(0, "ODP: the device offers RC ODP WRITE");
		return;
	}
	mem = mmap(NULL, NPAGES * psz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	buf = malloc(psz);
	if (mem == MAP_FAILED || !buf)
		fatal("no memory");
	memset(mem, 0x11, NPAGES * psz);
	if (mprotect(mem + HOLE * psz, psz, PROT_NONE))
		fatal("mprotect: %s", strerror(errno));
	odp = ibv_reg_mr(pd, mem, NPAGES * psz, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			 IBV_ACCESS_ON_DEMAND);
	local = ibv_reg_mr(pd, buf, psz, IBV_ACCESS_LOCAL_WRITE);
	if (!odp || !local)
		fatal("reg_mr: %s", strerror(errno));
	sge = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = psz,
				.lkey = local->lkey };
	pair_up(&p);

	memset(buf, 0xa5, psz);
	st = one_wr(&p, IBV_WR_RDMA_WRITE, &sge,
		    (uintptr_t)mem + 12 * psz, odp->rkey, 0, 0);
	check(st == IBV_WC_SUCCESS && mem[12 * psz] == 0xa5 &&
	      mem[13 * psz - 1] == 0xa5 && mem[13 * psz] == 0x11,
	      "ODP: a WRITE 4 pages before a PROT_NONE page lands (status %d)",
	      st);

	memset(mem + 20 * psz, 0x3c, psz);
	st = one_wr(&p, IBV_WR_RDMA_READ, &sge,
		    (uintptr_t)mem + 20 * psz, odp->rkey, 0, 0);
	check(st == IBV_WC_SUCCESS && buf[0] == 0x3c && buf[psz - 1] == 0x3c,
	      "ODP: a READ 4 pages after it returns the data (status %d)", st);

	st = one_wr(&p, IBV_WR_RDMA_WRITE, &sge,
		    (uintptr_t)mem + HOLE * psz, odp->rkey, 0, 0);
	check(st == IBV_WC_REM_ACCESS_ERR,
	      "ODP: a WRITE to the PROT_NONE page is a remote access error "
	      "(status %d)", st);
	pair_down(&p);
	ibv_dereg_mr(odp);
	ibv_dereg_mr(local);
	munmap(mem, NPAGES * psz);
	free(buf);
}

/* An ODP MR of @len bytes over address space reserved at @va. */
static struct ibv_mr *odp_mr(void *va, size_t len)
{
	return ibv_reg_mr(pd, va, len, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND);
}

/*
 * The ODP MRs of a device span at most the host's RAM together (the
 * core keeps uncharged page lists for all of it): one larger, or one
 * beyond what the others leave, is refused with ENOMEM; the room comes
 * back with a deregistration.
 */
static void test_odp_limit(void)
{
	size_t ram = (size_t)sysconf(_SC_PHYS_PAGES) * psz;
	size_t half = (ram / 2) & ~(size_t)(psz - 1);
	struct ibv_mr *big, *a, *b;
	uint8_t *va;
	int err;

	/* Address space only: nothing is ever touched or mapped. */
	va = mmap(NULL, ram + 4 * psz, PROT_NONE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (va == MAP_FAILED)
		fatal("mmap: %s", strerror(errno));
	big = odp_mr(va, ram + psz);
	err = errno;
	check(!big && err == ENOMEM,
	      "ODP: an MR one page larger than RAM (%zu MiB) is refused "
	      "(errno %d)", ram >> 20, big ? 0 : err);
	if (big)
		ibv_dereg_mr(big);
	a = odp_mr(va, half);
	b = odp_mr(va + half, half + 2 * psz);
	err = errno;
	check(a && !b && err == ENOMEM,
	      "ODP: half of RAM is registered, half and two pages more then "
	      "are not (errno %d)", b ? 0 : err);
	if (b)
		ibv_dereg_mr(b);
	if (a)
		ibv_dereg_mr(a);
	b = odp_mr(va + half, half + 2 * psz);
	check(b != NULL, "ODP: once the first is gone, they are (errno %d)",
	      b ? 0 : errno);
	if (b)
		ibv_dereg_mr(b);
	munmap(va, ram + 4 * psz);
}

/*
 * A UD QP whose receives come from an SRQ with buffers in a fresh ODP
 * MR: a datagram that meets an unmapped page is lost, as UD allows, but
 * the QP stays up and the SRQ WQE it took serves a later datagram, which
 * arrives whole. Datagrams go out until one is received (the fault work
 * maps the page meanwhile), at most 100, 20 ms apart.
 */
static void test_ud_srq_odp(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.grh = { .dgid = gid, .sgid_index = gidx, .hop_limit = 64 },
		.port_num = 1,
	};
	struct ibv_recv_wr rwr = { .wr_id = 77, .num_sge = 1 }, *rbad;
	struct ibv_qp *rqp, *sqp;
	struct ibv_mr *odp, *smr;
	struct ibv_cq *rcq;
	struct ibv_srq *srq;
	struct ibv_ah *ah;
	struct ibv_sge sge;
	struct ibv_wc wc;
	uint8_t *mem, *sbuf;
	int i, got = 0, bad = 0, err = 0;

	mem = mmap(NULL, psz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sbuf = malloc(64);
	rcq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	srq = ibv_create_srq(pd, &sa);
	if (mem == MAP_FAILED || !sbuf || !rcq || !srq)
		fatal("UD setup: %s", strerror(errno));
	memset(mem, 0, psz);
	memset(sbuf, 0x6b, 64);
	odp = ibv_reg_mr(pd, mem, psz, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_ON_DEMAND);
	smr = ibv_reg_mr(pd, sbuf, 64, 0);
	qa.send_cq = cq;
	qa.recv_cq = rcq;
	sqp = ibv_create_qp(pd, &qa);
	qa.srq = srq;
	rqp = ibv_create_qp(pd, &qa);
	ah = ibv_create_ah(pd, &aa);
	if (!odp || !smr || !sqp || !rqp || !ah || ud_qp_up(rqp, 0x1234, 0) ||
	    ud_qp_up(sqp, 0x1234, 1))
		fatal("UD setup: %s", strerror(errno));

	sge = (struct ibv_sge){ .addr = (uintptr_t)mem, .length = 512,
				.lkey = odp->lkey };
	rwr.sg_list = &sge;
	if (ibv_post_srq_recv(srq, &rwr, &rbad))
		fatal("post_srq_recv: %s", strerror(errno));
	for (i = 0; i < 100 && !got && !bad; i++) {
		struct ibv_sge ss = { .addr = (uintptr_t)sbuf, .length = 64,
				      .lkey = smr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &ss, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		}, *wbad;

		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = rqp->qp_num;
		wr.wr.ud.remote_qkey = 0x1234;
		if (ibv_post_send(sqp, &wr, &wbad) || !poll_one(cq, &wc, 5000) ||
		    wc.status != IBV_WC_SUCCESS) {
			err = 1;
			break;
		}
		if (poll_one(rcq, &wc, 20)) {
			if (wc.status == IBV_WC_SUCCESS && wc.wr_id == 77 &&
			    wc.byte_len == 40 + 64 && mem[40] == 0x6b &&
			    mem[40 + 63] == 0x6b)
				got = 1;
			else
				bad = 1;
		}
	}
	check(!err && got && !bad && qp_state(rqp) == IBV_QPS_RTR,
	      "UD on an SRQ with ODP buffers: a datagram arrives whole after "
	      "%d sent, the QP stays up (send error %d, bad completion %d, "
	      "status %d)", i, err, bad, bad ? wc.status : 0);
	ibv_destroy_qp(rqp);
	ibv_destroy_qp(sqp);
	ibv_destroy_ah(ah);
	ibv_destroy_srq(srq);
	ibv_destroy_cq(rcq);
	ibv_dereg_mr(odp);
	ibv_dereg_mr(smr);
	munmap(mem, psz);
	free(sbuf);
}

/*
 * Bind type 2 window @mw to @qp over [@addr, @addr + @len) of @mr,
 * zero-based, for remote atomics; its new rkey in *@rkey.
 */
static enum ibv_wc_status bind_zero_based(struct ibv_qp *qp, struct ibv_mw *mw,
					  struct ibv_mr *mr, void *addr,
					  uint64_t len, uint32_t *rkey)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);
	struct ibv_mw_bind_info info = {
		.mr = mr, .addr = (uintptr_t)addr, .length = len,
		.mw_access_flags = IBV_ACCESS_REMOTE_ATOMIC |
				   IBV_ACCESS_ZERO_BASED,
	};
	struct ibv_wc wc;

	*rkey = ibv_inc_rkey(mw->rkey);
	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(x, mw, *rkey, &info);
	if (ibv_wr_complete(x))
		fatal("post bind: %s", strerror(errno));
	if (!poll_one(cq, &wc, 20000))
		return IBV_WC_GENERAL_ERR;
	return wc.status;
}

static void test_misaligned_atomics(void)
{
	struct ibv_mr *target, *local;
	uint64_t *result, before;
	enum ibv_wc_status bound;
	struct ibv_sge sge;
	struct ibv_mw *mw, *mw2;
	uint32_t rkey;
	uint8_t *mem;
	struct pair p;
	int st;

	mem = aligned_alloc(psz, psz);
	result = malloc(sizeof(*result));
	if (!mem || !result)
		fatal("no memory");
	memset(mem, 0x5a, psz);
	memcpy(&before, mem + 12, sizeof(before));
	target = ibv_reg_mr(pd, mem, psz, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND);
	local = ibv_reg_mr(pd, result, sizeof(*result),
			   IBV_ACCESS_LOCAL_WRITE);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	if (!target || !local || !mw || !mw2)
		fatal("reg_mr or alloc_mw: %s", strerror(errno));
	sge = (struct ibv_sge){ .addr = (uintptr_t)result,
				.length = sizeof(*result),
				.lkey = local->lkey };

	/*
	 * Window offset 8 is mem + 12: an aligned address on memory 4 bytes
	 * off alignment.
	 */
	pair_up(&p);
	bound = bind_zero_based(p.resp, mw, target, mem + 4, 64, &rkey);
	check(bound == IBV_WC_SUCCESS,
	      "atomics: a zero-based window from mem + 4 (status %d)", bound);
	st = one_wr(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, &sge, 8, rkey, 1, 0);
	check(st == IBV_WC_REM_INV_REQ_ERR && !memcmp(mem + 12, &before, 8),
	      "atomics: FETCH_ADD at window offset 8, on misaligned memory, "
	      "is an invalid request, memory untouched (status %d)", st);
	pair_down(&p);

	pair_up(&p);
	bound = bind_zero_based(p.resp, mw2, target, mem + 4, 64, &rkey);
	st = bound ? -1 : one_wr(&p, IBV_WR_ATOMIC_CMP_AND_SWP, &sge, 8,
				 rkey, before, 7);
	check(st == IBV_WC_REM_INV_REQ_ERR && !memcmp(mem + 12, &before, 8),
	      "atomics: CMP_SWAP there too (status %d)", st);
	pair_down(&p);

	ibv_dealloc_mw(mw);
	ibv_dealloc_mw(mw2);
	ibv_dereg_mr(target);
	ibv_dereg_mr(local);
	free(mem);
	free(result);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV GID_INDEX\n", argv[0]);
		return 2;
	}
	gidx = atoi(argv[2]);
	psz = sysconf(_SC_PAGESIZE);
	ctx = open_device(argv[1]);
	if (!ctx || ibv_query_gid(ctx, 1, gidx, &gid))
		fatal("cannot open %s", argv[1]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!pd || !cq)
		fatal("no PD or CQ");

	test_odp_hole();
	test_odp_limit();
	test_ud_srq_odp();
	test_misaligned_atomics();

	printf("# %d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
