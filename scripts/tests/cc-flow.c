// SPDX-License-Identifier: GPL-2.0
/*
 * cc-flow: one RDMA WRITE (or READ) stream that starts on a schedule, a
 * flow of the congestion control testbed (cc-netns.sh), through the stock
 * rxe provider:
 *
 *   cc-flow server DEV GID_INDEX PORT
 *   cc-flow client DEV GID_INDEX PORT SERVER_IP START DUR [read]
 *
 * The client connects an RC QP to the server's over a TCP connection at
 * once, then sleeps until START (seconds of CLOCK_BOOTTIME, the clock of
 * /proc/uptime) and from then on writes 64 KiB messages into the server's
 * buffer, DEPTH of them in flight, for DUR seconds; with "read" it reads
 * them from there instead, so that the data flows from the server, its
 * READ responses the stream the server's congestion control paces.
 * perftest starts to send when its setup ends, and on a guest busy with
 * the flows already running the setups took seconds, the longer the more
 * flows ran, so that joins meant to come a second apart came together. Here every setup is
 * over before the first flow starts, and a flow joins when the schedule
 * says. The client sleeps on completion events instead of polling its
 * CQ, leaving the guest's CPUs to the network the testbed models: with
 * the senders polling at nice 19, as perftest's did, the port ran no
 * fuller (2026-12-05, K 8: utilisation 0.821 polling, 0.829, 0.839 and
 * 0.865 sleeping; K 16: 0.793 and 0.800).
 *
 * The client prints how long before START it was ready, how late it
 * started, and the bytes it moved. Exit status: 0 done, 1 an error
 * completion, a stall or a setup that ended after START, 2 usage or
 * setup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test-common.h"

#define MSG_LEN		65536
#define DEPTH		16
/* No completion for this long: the flow is stuck. */
#define STALL_MS	60000

struct peer {
	uint32_t qpn, psn, rkey;
	uint64_t addr;
	union ibv_gid gid;
};

static double boottime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	struct timespec ts = {
		.tv_sec = (time_t)t,
		.tv_nsec = (long)((t - (time_t)t) * 1e9),
	};

	while (clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void post_op(struct ibv_qp *qp, struct ibv_mr *mr,
		    const struct peer *them, enum ibv_wr_opcode op)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr,
		.length = MSG_LEN,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = them->addr, .rkey = them->rkey },
	}, *bad;

	if (ibv_post_send(qp, &wr, &bad))
		fatal("post_send: %s", strerror(errno));
}

static int poll_cq(struct ibv_cq *cq, struct ibv_wc *wc, int max)
{
	int n = ibv_poll_cq(cq, max, wc);

	if (n < 0)
		fatal("poll_cq");
	return n;
}

/*
 * Up to @max completions of @cq into @wc, sleeping on @ch while there are
 * none: 0 after STALL_MS without one.
 */
static int wait_wcs(struct ibv_comp_channel *ch, struct ibv_cq *cq,
		    struct ibv_wc *wc, int max)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	for (;;) {
		n = poll_cq(cq, wc, max);
		if (n)
			return n;
		/* Armed, then polled again: nothing slips between. */
		if (ibv_req_notify_cq(cq, 0))
			fatal("req_notify_cq");
		n = poll_cq(cq, wc, max);
		if (n)
			return n;
		if (poll(&pfd, 1, STALL_MS) <= 0)
			return 0;
		if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx))
			fatal("get_cq_event");
		ibv_ack_cq_events(ev_cq, 1);
	}
}

/* @op from START for DUR seconds; 0, or 1 on an error or a stall. */
static int stream(struct ibv_comp_channel *ch, struct ibv_cq *cq,
		  struct ibv_qp *qp, struct ibv_mr *mr,
		  const struct peer *them, enum ibv_wr_opcode op,
		  double start, double dur)
{
	struct ibv_wc wc[DEPTH];
	uint64_t bytes = 0;
	int inflight, i, n, failed = 0;
	double t0, secs;

	sleep_until(start);
	t0 = boottime();
	printf("started %.3f s late\n", t0 - start);
	for (inflight = 0; inflight < DEPTH; inflight++)
		post_op(qp, mr, them, op);
	while (inflight) {
		n = wait_wcs(ch, cq, wc, DEPTH);
		if (!n) {
			printf("stalled: no completion for %d ms\n", STALL_MS);
			return 1;
		}
		for (i = 0; i < n; i++) {
			inflight--;
			if (wc[i].status != IBV_WC_SUCCESS) {
				if (!failed++)
					printf("error completion: %s\n",
					       ibv_wc_status_str(wc[i].status));
				continue;
			}
			bytes += MSG_LEN;
			if (!failed && boottime() < t0 + dur) {
				post_op(qp, mr, them, op);
				inflight++;
			}
		}
	}
	secs = boottime() - t0;
	printf("moved %" PRIu64 " bytes in %.2f s: %.2f Mb/s\n", bytes, secs,
	       bytes * 8 / secs / 1e6);
	return !!failed;
}

int main(int argc, char **argv)
{
	struct peer me = { 0 }, them;
	struct ibv_comp_channel *ch;
	struct ibv_port_attr port;
	struct ibv_context *ctx;
	struct rc_attr c = { 0 };
	const char *state;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	enum ibv_wr_opcode op = IBV_WR_RDMA_WRITE;
	int is_server, sock, rc = 0;
	double ready, start;
	void *buf;

	is_server = argc == 5 && !strcmp(argv[1], "server");
	if (argc == 9 && !strcmp(argv[8], "read")) {
		op = IBV_WR_RDMA_READ;
		argc--;
	}
	if (!is_server && !(argc == 8 && !strcmp(argv[1], "client")))
		fatal("usage: server DEV GID PORT | client DEV GID PORT SERVER_IP START DUR [read]");
	ctx = open_device(argv[2]);
	if (!ctx)
		fatal("no device %s", argv[2]);
	c.sgid_index = atoi(argv[3]);
	if (ibv_query_port(ctx, 1, &port) ||
	    ibv_query_gid(ctx, 1, c.sgid_index, &me.gid))
		fatal("query_port or query_gid");
	pd = ibv_alloc_pd(ctx);
	ch = ibv_create_comp_channel(ctx);
	cq = ch ? ibv_create_cq(ctx, 2 * DEPTH, NULL, ch, 0) : NULL;
	buf = aligned_alloc(4096, MSG_LEN);
	if (!pd || !cq || !buf)
		fatal("resources");
	memset(buf, 0x5a, MSG_LEN);
	mr = ibv_reg_mr(pd, buf, MSG_LEN,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ);
	if (!mr)
		fatal("reg_mr: %s", strerror(errno));
	qp = rc_qp_ex_create(pd, cq, IBV_QP_EX_WITH_RDMA_WRITE |
			     IBV_QP_EX_WITH_RDMA_READ, DEPTH);

	srand48(getpid() ^ time(NULL));
	me.qpn = qp->qp_num;
	me.psn = lrand48() & 0xffffff;
	me.rkey = mr->rkey;
	me.addr = (uintptr_t)buf;
	sock = ctl_socket(is_server ? NULL : argv[5], atoi(argv[4]));
	sock_xfer(sock, &me, sizeof(me), 1);
	sock_xfer(sock, &them, sizeof(them), 0);

	/*
	 * perftest's choices: the port's MTU, timeout 14, 7 retries; a READ
	 * stream keeps all DEPTH of its READs outstanding.
	 */
	c.access = is_server ? IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ : 0;
	c.mtu = port.active_mtu;
	c.dest_qpn = them.qpn;
	c.rq_psn = them.psn;
	c.sq_psn = me.psn;
	c.dgid = them.gid;
	c.max_dest_rd_atomic = DEPTH;
	c.max_rd_atomic = DEPTH;
	c.min_rnr_timer = 12;
	c.timeout = 14;
	c.retry_cnt = 7;
	state = rc_connect(qp, &c);
	if (state)
		fatal("%s: %s", state, strerror(errno));
	sync_step(sock, 1);

	if (!is_server) {
		start = atof(argv[6]);
		ready = boottime();
		printf("ready %.2f s before the start\n", start - ready);
		if (ready > start) {
			printf("setup ended after the start\n");
			rc = 1;
		}
		rc |= stream(ch, cq, qp, mr, &them, op, start, atof(argv[7]));
	}
	/* The server sleeps here until the client is done. */
	sync_step(sock, 2);
	return rc;
}
