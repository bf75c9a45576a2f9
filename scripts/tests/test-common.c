// SPDX-License-Identifier: GPL-2.0
/*
 * What the userspace test programs share: see test-common.h.
 */
#define _GNU_SOURCE		/* program_invocation_short_name */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "test-common.h"

int npass, nfail;

void fatal(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(2);
}

int check(int cond, const char *fmt, ...)
{
	va_list ap;

	printf(cond ? "ok - " : "not ok - ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (cond)
		npass++;
	else
		nfail++;
	return cond;
}

long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	long end = now_ms() + ms;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n;
		usleep(1000);
	} while (now_ms() < end);
	return 0;
}

int async_event(struct ibv_context *ctx, int ms, void **elem)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int type;

	if (poll(&p, 1, ms) <= 0 || ibv_get_async_event(ctx, &ev))
		return -1;
	type = ev.event_type;
	*elem = ev.element.qp;
	ibv_ack_async_event(&ev);
	return type;
}

struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name)) {
			ctx = ibv_open_device(list[i]);
			break;
		}
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

int gid_of(const char *ip, union ibv_gid *gid)
{
	struct in_addr a4;

	memset(gid, 0, sizeof(*gid));
	if (inet_pton(AF_INET, ip, &a4) == 1) {
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		memcpy(&gid->raw[12], &a4, 4);
		return 0;
	}
	if (inet_pton(AF_INET6, ip, gid->raw) == 1)
		return 0;
	errno = EINVAL;
	return -1;
}

int ud_qp_up(struct ibv_qp *qp, uint32_t qkey, int send)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = qkey,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	if (!send)
		return 0;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* ibv_modify_qp() returns the error; errno need not hold it. */
static int modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret)
		errno = ret;
	return ret;
}

struct ibv_qp *rc_qp_ex_create(struct ibv_pd *pd, struct ibv_cq *cq,
			       uint64_t send_ops, uint32_t max_wr)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = max_wr, .max_recv_wr = max_wr,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = send_ops,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(pd->context, &attr);

	if (!qp)
		fatal("create_qp_ex (send_ops_flags 0x%llx): %s",
		      (unsigned long long)send_ops, strerror(errno));
	return qp;
}

const char *rc_connect(struct ibv_qp *qp, const struct rc_attr *attr)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = attr->access,
	};

	if (modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
		      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return "INIT";
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = attr->mtu;
	a.dest_qp_num = attr->dest_qpn;
	a.rq_psn = attr->rq_psn;
	a.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	a.min_rnr_timer = attr->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = attr->dgid;
	a.ah_attr.grh.sgid_index = attr->sgid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return "RTR";
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = attr->sq_psn;
	a.timeout = attr->timeout;
	a.retry_cnt = attr->retry_cnt;
	a.rnr_retry = 7;
	a.max_rd_atomic = attr->max_rd_atomic;
	if (modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		      IBV_QP_MAX_QP_RD_ATOMIC))
		return "RTS";
	return NULL;
}

int ctl_socket(const char *server_ip, int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	int sock = socket(AF_INET, SOCK_STREAM, 0);
	int i, one = 1;

	if (sock < 0)
		fatal("socket: %s", strerror(errno));
	if (!server_ip) {
		int l = sock;

		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1))
			fatal("listen: %s", strerror(errno));
		sock = accept(l, NULL, NULL);
		close(l);
		if (sock < 0)
			fatal("accept");
		return sock;
	}
	if (inet_pton(AF_INET, server_ip, &sa.sin_addr) != 1)
		fatal("bad address %s", server_ip);
	for (i = 0; i < 100; i++) {
		if (!connect(sock, (struct sockaddr *)&sa, sizeof(sa)))
			return sock;
		usleep(100000);
	}
	fatal("connect: %s", strerror(errno));
}

void sock_xfer(int sock, void *p, size_t len, int out)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = out ? write(sock, (char *)p + done, len - done) :
				  read(sock, (char *)p + done, len - done);

		if (n <= 0)
			fatal("socket: %s", n ? strerror(errno) : "closed");
		done += n;
	}
}

void sync_step(int sock, uint32_t n)
{
	uint32_t got;

	sock_xfer(sock, &n, sizeof(n), 1);
	sock_xfer(sock, &got, sizeof(got), 0);
	if (got != n)
		fatal("out of step: %u vs %u", got, n);
}

struct ibv_wc next_wc(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	int n = poll_one(cq, &wc, 60000);

	if (n < 0)
		fatal("poll_cq");
	if (!n)
		fatal("no completion");
	return wc;
}
