// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast through the verbs alone (ibv_attach_mcast, an AH to the
 * group, QPN 0xFFFFFF), for what rdma_cm cannot test: rdma_cm of Linux
 * 6.1 refuses IPv6 joins on RoCEv2, and mckey checks no data.
 *
 *   mcast-ud DEV GID_INDEX MGID recv COUNT NQPS
 *	NQPS UD QPs attach to MGID and each must receive COUNT messages,
 *	sequence numbers 0..COUNT-1 once each, with the right payload and
 *	the group as the destination of the GRH (the IP header). Prints
 *	"ready" once attached.
 *   mcast-ud DEV GID_INDEX MGID send COUNT
 *	one UD QP sends COUNT messages to MGID from GID GID_INDEX.
 *
 * Exit status 0 when everything was as expected.
 */
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test-common.h"

#define QKEY		0x4d434153u
#define MSG_LEN		256
#define GRH_LEN		40
#define MAX_QPS		8
#define TIMEOUT_S	30

struct node {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char *buf;	/* count slots of GRH_LEN + MSG_LEN */
	unsigned char *seen;
	int got;
};

static void fill(unsigned char *p, uint32_t seq)
{
	int i;

	for (i = 0; i < MSG_LEN; i++)
		p[i] = (unsigned char)(seq * 7 + i);
	memcpy(p, &seq, sizeof(seq));
}

static int make_node(struct ibv_context *ctx, struct ibv_pd *pd,
		     struct node *n, int count, int send)
{
	struct ibv_qp_init_attr ia = {
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = count,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_UD,
	};
	size_t len = (size_t)count * (GRH_LEN + MSG_LEN);

	n->buf = calloc(1, len);
	n->seen = calloc(count, 1);
	n->cq = ibv_create_cq(ctx, count + 4, NULL, NULL, 0);
	if (!n->buf || !n->seen || !n->cq)
		return -1;
	n->mr = ibv_reg_mr(pd, n->buf, len, IBV_ACCESS_LOCAL_WRITE);
	ia.send_cq = n->cq;
	ia.recv_cq = n->cq;
	n->qp = ibv_create_qp(pd, &ia);
	if (!n->mr || !n->qp)
		return -1;
	return ud_qp_up(n->qp, QKEY, send);
}

static int post_recvs(struct node *n, int count)
{
	struct ibv_recv_wr wr = { .num_sge = 1 }, *bad;
	struct ibv_sge sge = {
		.length = GRH_LEN + MSG_LEN,
		.lkey = n->mr->lkey,
	};
	int i;

	wr.sg_list = &sge;
	for (i = 0; i < count; i++) {
		wr.wr_id = i;
		sge.addr = (uintptr_t)(n->buf + (size_t)i * (GRH_LEN + MSG_LEN));
		if (ibv_post_recv(n->qp, &wr, &bad))
			return -1;
	}
	return 0;
}

/* The GRH area holds the IPv6 header, or 20 zero bytes and the IPv4 one. */
static int grh_dst_ok(const unsigned char *grh, const union ibv_gid *mgid)
{
	if (grh[20] >> 4 == 4 && grh[0] == 0)
		return !memcmp(grh + 20 + 16, mgid->raw + 12, 4);
	return (grh[0] >> 4) == 6 && !memcmp(grh + 24, mgid->raw, 16);
}

static int receive(struct node *nodes, int nqps, int count,
		   const union ibv_gid *mgid)
{
	unsigned char want[MSG_LEN];
	time_t end = time(NULL) + TIMEOUT_S;
	int i, left = nqps * count, bad = 0;
	struct ibv_wc wc;
	uint32_t seq;

	while (left > 0 && time(NULL) < end) {
		int idle = 1;

		for (i = 0; i < nqps; i++) {
			struct node *n = &nodes[i];
			unsigned char *p;

			if (ibv_poll_cq(n->cq, 1, &wc) <= 0)
				continue;
			idle = 0;
			left--;
			p = n->buf + wc.wr_id * (GRH_LEN + MSG_LEN);
			if (wc.status != IBV_WC_SUCCESS ||
			    wc.byte_len != GRH_LEN + MSG_LEN ||
			    !(wc.wc_flags & IBV_WC_GRH) ||
			    !grh_dst_ok(p, mgid)) {
				printf("qp %d: bad completion: status %d len %u flags %#x\n",
				       i, wc.status, wc.byte_len, wc.wc_flags);
				bad++;
				continue;
			}
			memcpy(&seq, p + GRH_LEN, sizeof(seq));
			fill(want, seq);
			if (seq >= (uint32_t)count || n->seen[seq] ||
			    memcmp(want, p + GRH_LEN, MSG_LEN)) {
				printf("qp %d: bad message (seq %u)\n", i, seq);
				bad++;
				continue;
			}
			n->seen[seq] = 1;
			n->got++;
		}
		if (idle)
			usleep(1000);
	}
	for (i = 0; i < nqps; i++)
		printf("qp %d (QPN %#x): %d of %d messages, data checked\n",
		       i, nodes[i].qp->qp_num, nodes[i].got, count);
	return bad || left ? 1 : 0;
}

static int send_all(struct ibv_pd *pd, struct node *n, int count,
		    const union ibv_gid *mgid, int gid_index)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.grh = {
			.dgid = *mgid,
			.sgid_index = gid_index,
			.hop_limit = 64,
		},
		.port_num = 1,
	};
	struct ibv_send_wr wr = {
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_sge sge = {
		.addr = (uintptr_t)n->buf,
		.length = MSG_LEN,
		.lkey = n->mr->lkey,
	};
	struct ibv_wc wc;
	int i, r;

	wr.sg_list = &sge;
	wr.wr.ud.ah = ibv_create_ah(pd, &aa);
	wr.wr.ud.remote_qpn = 0xffffff;
	wr.wr.ud.remote_qkey = QKEY;
	if (!wr.wr.ud.ah) {
		perror("ibv_create_ah");
		return 1;
	}
	for (i = 0; i < count; i++) {
		fill(n->buf, i);
		if (ibv_post_send(n->qp, &wr, &bad)) {
			perror("ibv_post_send");
			return 1;
		}
		while ((r = ibv_poll_cq(n->cq, 1, &wc)) == 0)
			;
		if (r < 0 || wc.status != IBV_WC_SUCCESS) {
			printf("send %d: status %d\n", i, wc.status);
			return 1;
		}
		usleep(2000);
	}
	printf("sent %d messages\n", count);
	ibv_destroy_ah(wr.wr.ud.ah);
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct node nodes[MAX_QPS] = {};
	union ibv_gid mgid;
	struct ibv_pd *pd;
	int i, send, count, nqps = 1, gid_index, ret;

	if (argc < 6 || inet_pton(AF_INET6, argv[3], mgid.raw) != 1) {
		fprintf(stderr, "usage: %s DEV GID_INDEX MGID recv|send COUNT [NQPS]\n",
			argv[0]);
		return 2;
	}
	gid_index = atoi(argv[2]);
	send = !strcmp(argv[4], "send");
	count = atoi(argv[5]);
	if (argc > 6)
		nqps = atoi(argv[6]);
	if (count < 1 || count > 1000 || nqps < 1 || nqps > MAX_QPS ||
	    (send && nqps != 1))
		return 2;

	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	if (!pd) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	for (i = 0; i < nqps; i++) {
		if (make_node(ctx, pd, &nodes[i], count, send)) {
			perror("QP setup");
			return 1;
		}
		if (send)
			continue;
		if (post_recvs(&nodes[i], count) ||
		    ibv_attach_mcast(nodes[i].qp, &mgid, 0)) {
			perror("post_recv/attach");
			return 1;
		}
	}
	if (send)
		return send_all(pd, &nodes[0], count, &mgid, gid_index);

	printf("ready\n");
	fflush(stdout);
	ret = receive(nodes, nqps, count, &mgid);
	for (i = 0; i < nqps; i++)
		if (ibv_detach_mcast(nodes[i].qp, &mgid, 0)) {
			perror("ibv_detach_mcast");
			ret = 1;
		}
	return ret;
}
