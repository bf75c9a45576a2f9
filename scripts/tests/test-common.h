/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the userspace test programs (scripts/tests/NAME.c) share;
 * scripts/test-prog-build.sh links test-common.c into each of them.
 */
#ifndef SROCE_TEST_COMMON_H
#define SROCE_TEST_COMMON_H

#include <stdint.h>
#include <infiniband/verbs.h>

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

#endif
