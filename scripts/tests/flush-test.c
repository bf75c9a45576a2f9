// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA FLUSH (IBTA 1.5, IBV_WR_FLUSH) between two hosts, posted through
 * rdma-core 56's rxe provider (Debian 13; rdma-core 44 has no
 * ibv_wr_flush()):
 *
 *   flush-test server DEV GID_INDEX PORT
 *   flush-test client DEV GID_INDEX PORT SERVER_IP
 *
 * sroce does not implement FLUSH, and must refuse it cleanly wherever it
 * meets it. Each host first checks its own device: whether it reports the
 * FLUSH capabilities (IB_UVERBS_DEVICE_FLUSH_GLOBAL and _PERSISTENT in
 * device_cap_flags_ex), and that an MR with IBV_ACCESS_FLUSH_GLOBAL (and
 * _PERSISTENT) is refused with EOPNOTSUPP by a device that does not
 * report them (6.12's RDMA core checks) and registered by one that does.
 * Then each host in turn posts one FLUSH to the other's buffer on an RC
 * QP of its own, and the other looks at its QP that the FLUSH was for:
 *
 *   - a requester without FLUSH (sroce) completes it locally with
 *     IBV_WC_LOC_QP_OP_ERR and sends nothing: the peer's QP stays in RTS;
 *   - a requester with FLUSH toward one without (sroce) gets the
 *     responder's invalid request NAK, IBV_WC_REM_INV_REQ_ERR, at once
 *     rather than IBV_WC_RETRY_EXC_ERR after its retries, and the
 *     responder's QP is in ERR (IBTA vol 1 9.7.5.2.2: an unsupported
 *     opcode is an invalid request); scripts/tests/roce-peer.py's flush
 *     case checks that with a FLUSH built by hand;
 *   - except that 6.12's rdma_rxe, the one such requester here, sends
 *     FLUSH packets whose ICRC no other implementation accepts: its
 *     opcode table gives FLUSH no payload offset, so it runs the CRC over
 *     BTH, FETH and RETH twice (rxe_icrc_generate(), payload_addr()). sroce
 *     drops each as a bad ICRC (rcvd_bad_icrc_pkts: the request and its
 *     retry_cnt 3 retries, 4), its QP stays in RTS, and rdma_rxe ends with
 *     IBV_WC_RETRY_EXC_ERR.
 *
 * The hosts exchange QPNs, GIDs, addresses and keys, and step through the
 * test, over a TCP connection. Prints TAP-like "ok - " / "not ok - "
 * lines; exits non-zero on any failure.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "test-common.h"

/* IB_UVERBS_DEVICE_FLUSH_GLOBAL and _PERSISTENT (kernel uapi 6.2 on). */
#define DEVICE_FLUSH_GLOBAL	(1ULL << 38)
#define DEVICE_FLUSH_PERSISTENT	(1ULL << 39)

#define BUF_LEN		4096
#define FLUSH_LEN	64
#define PATTERN		0x5a

/* Each host's QP that sends its FLUSH, and the one the peer's is for. */
enum { Q_REQ, Q_RESP, NQP };

struct peer {
	uint32_t qpn[NQP];
	union ibv_gid gid;
	uint64_t base;
	uint32_t rkey;
	uint32_t flush_cap;
	uint32_t is_rxe;	/* the device is rdma_rxe's (rxeN) */
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp[NQP];
static struct ibv_mr *mr;
static uint8_t *buf;
static int sock, gid_index;

/* A port counter of this host's device (sroce's hw_counters). */
static long counter(const char *name)
{
	char path[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
		 ibv_get_device_name(ctx->device), name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &v) != 1)
		fatal("read %s", path);
	fclose(f);
	return v;
}

static int device_flush_cap(void)
{
	struct ibv_device_attr_ex attr;

	if (ibv_query_device_ex(ctx, NULL, &attr))
		fatal("query_device_ex");
	return !!(attr.device_cap_flags_ex &
		  (DEVICE_FLUSH_GLOBAL | DEVICE_FLUSH_PERSISTENT));
}


/*
 * Timeout 14 (67 ms) and 3 retries: a request a peer never answers ends
 * in about a quarter of a second, with IBV_WC_RETRY_EXC_ERR.
 */
static void connect_qps(const struct peer *them)
{
	struct rc_attr c = {
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		.mtu = IBV_MTU_1024,
		.rq_psn = 0x100,
		.sq_psn = 0x100,
		.dgid = them->gid,
		.sgid_index = gid_index,
		.max_dest_rd_atomic = 4,
		.max_rd_atomic = 4,
		.min_rnr_timer = 12,
		.timeout = 14,
		.retry_cnt = 3,
	};
	const char *state;

	/* My requester talks to their responder QP, and the other way. */
	c.dest_qpn = them->qpn[Q_RESP];
	state = rc_connect(qp[Q_REQ], &c);
	if (!state) {
		c.dest_qpn = them->qpn[Q_REQ];
		state = rc_connect(qp[Q_RESP], &c);
	}
	if (state)
		fatal("%s: %s", state, strerror(errno));
}

/* An MR with @flag: refused without the capability, registered with it. */
static void check_flush_mr(int cap, unsigned int flag, const char *name)
{
	struct ibv_mr *fmr;
	uint8_t *fbuf = aligned_alloc(4096, BUF_LEN);

	if (!fbuf)
		fatal("resources");
	errno = 0;
	fmr = ibv_reg_mr(pd, fbuf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | flag);
	if (cap)
		check(fmr != NULL, "the device registers an MR with %s (%s)",
		      name, fmr ? "ok" : strerror(errno));
	else
		check(!fmr && errno == EOPNOTSUPP,
		      "an MR with %s is refused with EOPNOTSUPP (%s)", name,
		      fmr ? "registered" : strerror(errno));
	if (fmr)
		ibv_dereg_mr(fmr);
	free(fbuf);
}

static enum ibv_qp_state qp_state(struct ibv_qp *q)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(q, &attr, IBV_QP_STATE, &init))
		fatal("query_qp: %s", strerror(errno));
	return attr.qp_state;
}

/* Post one FLUSH of the peer's buffer; check its completion status. */
static void send_flush(const struct peer *me, const struct peer *them)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp[Q_REQ]);
	enum ibv_wc_status want;
	struct ibv_wc wc;

	if (!me->flush_cap)
		want = IBV_WC_LOC_QP_OP_ERR;
	else if (!them->flush_cap && me->is_rxe)
		want = IBV_WC_RETRY_EXC_ERR;	/* its ICRC: see the top */
	else if (!them->flush_cap)
		want = IBV_WC_REM_INV_REQ_ERR;
	else
		want = IBV_WC_SUCCESS;

	ibv_wr_start(x);
	x->wr_id = 7;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_flush(x, them->rkey, them->base, FLUSH_LEN, IBV_FLUSH_RANGE,
		     IBV_FLUSH_GLOBAL);
	if (ibv_wr_complete(x))
		fatal("post flush: %s", strerror(errno));
	wc = next_wc(cq);
	if (me->flush_cap && them->flush_cap) {
		/* Not a pairing this test is for (sroce on neither end). */
		printf("# both devices have FLUSH: status %d, not judged\n",
		       wc.status);
		return;
	}
	check(wc.wr_id == 7 && wc.status == want,
	      "FLUSH from a device %s FLUSH to one %s it: status %d (want %d: %s)",
	      me->flush_cap ? "with" : "without",
	      them->flush_cap ? "with" : "without", wc.status, want,
	      ibv_wc_status_str(want));
}

/*
 * The peer's FLUSH was for my responder QP: where did it leave it?
 * @bad_icrc: my rcvd_bad_icrc_pkts before it, or -1 (not sroce).
 */
static void check_responder(const struct peer *me, const struct peer *them,
			    long bad_icrc)
{
	enum ibv_qp_state st = qp_state(qp[Q_RESP]);
	long got;

	if (!them->flush_cap) {
		check(st == IBV_QPS_RTS,
		      "the peer refused its FLUSH locally: nothing came, the responder QP is in RTS (state %d)",
		      st);
	} else if (!me->flush_cap && them->is_rxe && bad_icrc >= 0) {
		got = counter("rcvd_bad_icrc_pkts") - bad_icrc;
		check(st == IBV_QPS_RTS && got == 4,
		      "rdma_rxe's FLUSH packets fail the ICRC check: 4 dropped as bad ICRC (%ld), the responder QP is in RTS (state %d)",
		      got, st);
	} else if (!me->flush_cap) {
		check(st == IBV_QPS_ERR,
		      "FLUSH from a peer that has it refused with an invalid request NAK: the responder QP is in ERR (state %d)",
		      st);
	}
	check(buf[0] == PATTERN && buf[FLUSH_LEN - 1] == PATTERN,
	      "the FLUSH target's bytes are as they were");
}

int main(int argc, char **argv)
{
	struct peer me = {0}, them;
	long bad_icrc = -1;
	int is_server, i;

	if (argc < 5 || (strcmp(argv[1], "server") && argc < 6))
		fatal("usage: server|client DEV GID_INDEX PORT [SERVER_IP]");
	is_server = !strcmp(argv[1], "server");
	gid_index = atoi(argv[3]);

	ctx = open_device(argv[2]);
	if (!ctx)
		fatal("no device %s", argv[2]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	buf = aligned_alloc(4096, BUF_LEN);
	if (!pd || !cq || !buf)
		fatal("resources");
	memset(buf, PATTERN, BUF_LEN);
	mr = ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		fatal("reg_mr: %s", strerror(errno));
	for (i = 0; i < NQP; i++)
		qp[i] = rc_qp_ex_create(pd, cq, IBV_QP_EX_WITH_FLUSH |
						 IBV_QP_EX_WITH_RDMA_WRITE, 8);

	me.flush_cap = device_flush_cap();
	me.is_rxe = !strncmp(ibv_get_device_name(ctx->device), "rxe", 3);
	printf("# %s device %s the FLUSH capabilities\n", argv[1],
	       me.flush_cap ? "reports" : "does not report");
	check_flush_mr(me.flush_cap, IBV_ACCESS_FLUSH_GLOBAL,
		       "IBV_ACCESS_FLUSH_GLOBAL");
	/* rdma_rxe takes _PERSISTENT only for persistent memory. */
	if (!me.flush_cap)
		check_flush_mr(0, IBV_ACCESS_FLUSH_PERSISTENT,
			       "IBV_ACCESS_FLUSH_PERSISTENT");

	for (i = 0; i < NQP; i++)
		me.qpn[i] = qp[i]->qp_num;
	if (ibv_query_gid(ctx, 1, gid_index, &me.gid))
		fatal("query_gid");
	me.base = (uintptr_t)buf;
	me.rkey = mr->rkey;
	sock = ctl_socket(is_server ? NULL : argv[5], atoi(argv[4]));
	sock_xfer(sock, &me, sizeof(me), 1);
	sock_xfer(sock, &them, sizeof(them), 0);
	connect_qps(&them);
	if (!me.is_rxe)
		bad_icrc = counter("rcvd_bad_icrc_pkts");
	sync_step(sock, 1);

	/* The client's FLUSH first, then the server's. */
	if (!is_server)
		send_flush(&me, &them);
	sync_step(sock, 2);
	if (is_server) {
		check_responder(&me, &them, bad_icrc);
		send_flush(&me, &them);
	}
	sync_step(sock, 3);
	if (!is_server)
		check_responder(&me, &them, bad_icrc);
	sync_step(sock, 4);

	check(!ibv_dereg_mr(mr), "dereg_mr");
	printf("# %s: %d failure(s)\n", argv[1], nfail);
	return nfail ? 1 : 0;
}
