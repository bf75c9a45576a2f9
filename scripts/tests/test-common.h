/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the userspace test programs (scripts/tests/NAME.c) share;
 * scripts/test-prog-build.sh links test-common.c into each of them.
 */
#ifndef SROCE_TEST_COMMON_H
#define SROCE_TEST_COMMON_H

#include <stdint.h>
#include <infiniband/verbs.h>

/* Print "PROGRAM: " and the message to stderr; exit with status 2. */
void fatal(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

/* The checks so far, as printed by check(). */
extern int npass, nfail;

/* Print a TAP-style "ok - ..." or "not ok - ..." line and count it. */
int check(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

long now_ms(void);

/* Poll one completion; 0 if none came within @ms. */
int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms);

/*
 * The next async event's type, or -1 if none came within @ms; *@elem is
 * the element it is about (a union: QP, CQ or SRQ).
 */
int async_event(struct ibv_context *ctx, int ms, void **elem);

/* Open the device called @name; NULL if there is none. */
struct ibv_context *open_device(const char *name);

/*
 * The GID of IPv4 (as IPv4-mapped) or IPv6 address @ip; -1 (errno EINVAL)
 * if it is neither.
 */
int gid_of(const char *ip, union ibv_gid *gid);

/*
 * A UD QP with Q_Key @qkey through INIT to RTR, and on to RTS if @send;
 * 0, or -1 if a modify failed.
 */
int ud_qp_up(struct ibv_qp *qp, uint32_t qkey, int send);

/*
 * What the programs choose for an RC connection; the rest is the same for
 * all: port 1, P_Key index 0, a global route with hop limit 64, RNR retry
 * 7 (for ever).
 */
struct rc_attr {
	unsigned int access;		/* the QP's qp_access_flags */
	enum ibv_mtu mtu;
	uint32_t dest_qpn, rq_psn, sq_psn;
	union ibv_gid dgid;
	int sgid_index;
	uint8_t max_dest_rd_atomic, max_rd_atomic;
	uint8_t min_rnr_timer, timeout, retry_cnt;
};

/*
 * An RC QP on @pd with @cq for both queues, @max_wr WRs of one SGE in
 * each and the extended-QP send operations @send_ops (IBV_QP_EX_WITH_...);
 * exits (status 2) if it cannot be made.
 */
struct ibv_qp *rc_qp_ex_create(struct ibv_pd *pd, struct ibv_cq *cq,
			       uint64_t send_ops, uint32_t max_wr);

/*
 * Move RC QP @qp through INIT and RTR to RTS. NULL when it is there, else
 * the name of the state it did not reach, with errno set.
 */
const char *rc_connect(struct ibv_qp *qp, const struct rc_attr *attr);

/*
 * The two-host programs step through their test over a TCP connection;
 * nothing can go on without it, so these exit (status 2) when it fails.
 */

/*
 * The connection to the other host, on TCP port @port: accepted when
 * @server_ip is NULL, else made to @server_ip (for up to ten seconds,
 * while the server starts).
 */
int ctl_socket(const char *server_ip, int port);

/* Send (@out) or receive exactly @len bytes at @p over @sock. */
void sock_xfer(int sock, void *p, size_t len, int out);

/* Wait until both hosts reach step @n. */
void sync_step(int sock, uint32_t n);

/* The next completion on @cq; exits (status 2) if none comes in a minute. */
struct ibv_wc next_wc(struct ibv_cq *cq);

#endif
