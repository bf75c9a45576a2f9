// SPDX-License-Identifier: GPL-2.0
/*
 * ring-charge DEV NQP: create NQP RC QPs on DEV, each with the largest
 * receive queue the device allows (the most WQEs, the most SGEs each) and
 * a one-WQE send queue, print the bytes each receive ring takes at least
 * and "ready", then wait until stdin closes. qptypes.sh runs it in a memory
 * cgroup of its own and checks that the rings were charged there
 * (memory.current): a user sizes them, megabytes each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test-common.h"

/* rxe's receive WQE holds 16 bytes per SGE, and a header. */
#define RQ_SGE_BYTES	16

int main(int argc, char **argv)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	unsigned long ring_bytes;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int nqp, i;
	char c;

	if (argc != 3)
		fatal("usage: ring-charge DEV NQP");
	nqp = atoi(argv[2]);
	ctx = open_device(argv[1]);
	if (!ctx)
		fatal("no device %s", argv[1]);
	if (ibv_query_device(ctx, &attr))
		fatal("query_device failed");
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	if (!cq)
		fatal("cannot create a PD and CQ");

	/* At least: the slots are powers of two, with a header each. */
	ring_bytes = (unsigned long)attr.max_qp_wr * RQ_SGE_BYTES * attr.max_sge;
	for (i = 0; i < nqp; i++) {
		struct ibv_qp_init_attr init = {
			.send_cq = cq,
			.recv_cq = cq,
			.qp_type = IBV_QPT_RC,
			.cap = {
				.max_send_wr = 1,
				.max_send_sge = 1,
				.max_recv_wr = attr.max_qp_wr,
				.max_recv_sge = attr.max_sge,
			},
		};

		if (!ibv_create_qp(pd, &init))
			fatal("create_qp %d of %d failed", i + 1, nqp);
	}
	printf("ring_bytes %lu\nready\n", ring_bytes);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
