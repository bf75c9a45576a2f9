// SPDX-License-Identifier: GPL-2.0
/*
 * av-race-test DEV SECONDS: a connected QP's address vector changed while
 * its responder builds packets, on one device whose QPs talk to each other.
 *
 * QP A, drained in SQD, has its address moved back and forth between a
 * RoCEv2 IPv4 and an IPv6 GID of the device (SQD -> SQD with IBV_QP_AV, which
 * IBTA allows once the SQ has drained) by one thread, as fast as modify_qp
 * goes, while QP B reads 64 KiB from A's memory in a loop: A's READ
 * responses are built while its family may change under them. An sroce
 * that reserved headroom for one family and pushed the other's headers
 * hit skb_under_panic() here, on a netdev that asks for no headroom of
 * its own (veth, e1000; not virtio_net). Responses sent while A points at the IPv6
 * GID go to B from an address B does not expect, so B drops them and asks
 * again; when B runs out of retries the pair is made anew, until SECONDS
 * have passed.
 *
 * Checks: the kernel stays up (the harness reads its log); every READ that
 * completes successfully brought A's bytes; at least one did; every other
 * completion is a retry-exceeded error.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

#define LEN		65536

static struct ibv_pd *pd;
static struct ibv_mr *mr_a, *mr_b;
static uint8_t *buf_a, *buf_b;
static int idx4 = -1, idx6 = -1;
static union ibv_gid gid4, gid6;
static atomic_int flipping;
static atomic_long flips;

/* The RoCEv2 GIDs of port 1: an IPv4-mapped one and an IPv6 one. */
static void find_gids(struct ibv_context *ctx)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_gid_entry e;
	int i;

	for (i = 0; i < 32 && (idx4 < 0 || idx6 < 0); i++) {
		if (ibv_query_gid_ex(ctx, 1, i, &e, 0) ||
		    e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		if (idx4 < 0 && !memcmp(e.gid.raw, mapped, sizeof(mapped))) {
			idx4 = i;
			gid4 = e.gid;
		} else if (idx6 < 0 &&
			   memcmp(e.gid.raw, mapped, sizeof(mapped))) {
			idx6 = i;
			gid6 = e.gid;
		}
	}
}

static void *flip(void *arg)
{
	struct ibv_qp *a = arg;
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_SQD };
	int six = 0;

	at.ah_attr.is_global = 1;
	at.ah_attr.grh.hop_limit = 64;
	at.ah_attr.port_num = 1;
	while (atomic_load(&flipping)) {
		six = !six;
		at.ah_attr.grh.dgid = six ? gid6 : gid4;
		at.ah_attr.grh.sgid_index = six ? idx6 : idx4;
		if (!ibv_modify_qp(a, &at, IBV_QP_STATE | IBV_QP_AV))
			atomic_fetch_add(&flips, 1);
	}
	return NULL;
}

/* A's address back to the IPv4 GID, B's to A. */
static struct rc_attr attr_to(const struct ibv_qp *peer)
{
	return (struct rc_attr){
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
		.mtu = IBV_MTU_1024,
		.dest_qpn = peer->qp_num,
		.dgid = gid4,
		.sgid_index = idx4,
		.max_dest_rd_atomic = 4,
		.max_rd_atomic = 4,
		.min_rnr_timer = 1,
		.timeout = 10,		/* 4 ms */
		.retry_cnt = 7,
	};
}

/* One pair until B gives up or @end; counts into *@ok, *@exc, *@bad. */
static void one_pair(struct ibv_context *ctx, long end, long *ok, long *exc,
		    long *bad)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *a, *b;
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_SQD };
	struct rc_attr ra, rb;
	pthread_t t;
	int done = 0;

	if (!cq)
		fatal("create_cq: %s", strerror(errno));
	a = rc_qp_ex_create(pd, cq, IBV_QP_EX_WITH_RDMA_READ, 4);
	b = rc_qp_ex_create(pd, cq, IBV_QP_EX_WITH_RDMA_READ, 4);
	ra = attr_to(b);
	rb = attr_to(a);
	if (rc_connect(a, &ra) || rc_connect(b, &rb))
		fatal("connect: %s", strerror(errno));
	/* Nothing was posted on A: it is drained as soon as it is in SQD. */
	if (ibv_modify_qp(a, &at, IBV_QP_STATE))
		fatal("A to SQD: %s", strerror(errno));

	atomic_store(&flipping, 1);
	if (pthread_create(&t, NULL, flip, a))
		fatal("pthread_create");
	while (!done && now_ms() < end) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf_b,
				       .length = LEN, .lkey = mr_b->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 1, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_READ,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { .remote_addr = (uintptr_t)buf_a,
				     .rkey = mr_a->rkey },
		}, *badwr;
		struct ibv_wc wc;

		memset(buf_b, 0, LEN);
		if (ibv_post_send(b, &wr, &badwr))
			fatal("post READ: %s", strerror(errno));
		wc = next_wc(cq);
		if (wc.status == IBV_WC_SUCCESS) {
			(*ok)++;
			if (memcmp(buf_a, buf_b, LEN))
				(*bad)++;
		} else if (wc.status == IBV_WC_RETRY_EXC_ERR) {
			(*exc)++;
			done = 1;
		} else {
			printf("# READ completed with %s\n",
			       ibv_wc_status_str(wc.status));
			(*bad)++;
			done = 1;
		}
	}
	atomic_store(&flipping, 0);
	pthread_join(t, NULL);
	ibv_destroy_qp(b);
	ibv_destroy_qp(a);
	ibv_destroy_cq(cq);
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	long ok = 0, exc = 0, bad = 0, end;
	int pairs = 0, i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV SECONDS\n", argv[0]);
		return 2;
	}
	ctx = open_device(argv[1]);
	if (!ctx)
		fatal("cannot open %s", argv[1]);
	find_gids(ctx);
	if (idx4 < 0 || idx6 < 0)
		fatal("no RoCEv2 IPv4 and IPv6 GIDs on %s", argv[1]);
	pd = ibv_alloc_pd(ctx);
	buf_a = malloc(LEN);
	buf_b = malloc(LEN);
	if (!pd || !buf_a || !buf_b)
		fatal("setup: %s", strerror(errno));
	for (i = 0; i < LEN; i++)
		buf_a[i] = (uint8_t)(i * 7 + 3);
	mr_a = ibv_reg_mr(pd, buf_a, LEN, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_READ);
	mr_b = ibv_reg_mr(pd, buf_b, LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!mr_a || !mr_b)
		fatal("reg_mr: %s", strerror(errno));

	end = now_ms() + atol(argv[2]) * 1000;
	while (now_ms() < end) {
		one_pair(ctx, end, &ok, &exc, &bad);
		pairs++;
	}
	printf("# %d pairs, %ld address changes, %ld READs done, %ld ended "
	       "in retry-exceeded\n", pairs, atomic_load(&flips), ok, exc);
	check(atomic_load(&flips) > 0, "A's address changed (%ld times)",
	      atomic_load(&flips));
	check(ok > 0, "READs completed while it changed (%ld)", ok);
	check(!bad, "every completed READ brought A's bytes; no other error "
	      "than retry-exceeded (%ld bad)", bad);
	return nfail ? 1 : 0;
}
