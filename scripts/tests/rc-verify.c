// SPDX-License-Identifier: GPL-2.0
/*
 * rc-verify: RC traffic whose every byte is checked, for fault and
 * teardown tests between two hosts, through the stock rxe provider:
 *
 *   rc-verify [OPTION...] server DEV GID_INDEX PORT
 *   rc-verify [OPTION...] client DEV GID_INDEX PORT SERVER_IP
 *
 * The client opens a TCP connection to the server, sends it the run's
 * parameters, and both create NQP RC QPs (up to 32) and exchange QPNs,
 * GIDs, PSNs and the server's buffer. Operation K of QP Q is a function of
 * (seed, Q, K): SEND, RDMA WRITE, WRITE with immediate, RDMA READ,
 * fetch-and-add or compare-and-swap, 1 byte up to MAXSZ (log-uniform), at a
 * random offset of one of the QP's WINDOW slots; each QP has up to WINDOW
 * operations in flight. Every payload byte is a function of (seed, Q, K,
 * offset), and the bytes either side of each target are guards that must
 * survive. The client posts operation K once the server said its slot is
 * ready (READ source filled, atomic operand set, receive posted) and,
 * when K completes, checks what it can (READ data, the atomic's original
 * value) and tells the server, which checks the rest (SEND data in the
 * receive buffer, WRITE data in its buffer, the immediate, the atomic's
 * final value) and frees the slot for K + WINDOW.
 *
 * Options (given to the client; the server takes them from it):
 *   -q NQP      QPs (default 8, at most 32)
 *   -n OPS      operations per QP (default 24; 0: until -D, or forever)
 *   -D SECS     stop posting after SECS seconds
 *   -m MAXSZ    largest message (default 262144, at most 16 MiB)
 *   -w WINDOW   operations in flight per QP (default 4, at most 16)
 *   -s SEED     the seed (default 1)
 *   -t TIMEOUT  the QPs' local ACK timeout exponent (default 17,
 *               4.096 us * 2^17 = 0.54 s)
 *   -r RETRY    retry_cnt (default 7)
 *   -T SECS     give up when nothing progresses for SECS (default 120;
 *               both sides)
 *   -o MS       on-demand paging: both sides register their buffer with
 *               IBV_ACCESS_ON_DEMAND where the device offers it for RC
 *               (a pinned MR otherwise), in a shared memfd mapping, and
 *               every MS milliseconds (0: never) a thread drops it from
 *               the page tables (MADV_DONTNEED keeps a shared mapping's
 *               data), so that the device's page mappings are
 *               invalidated while the operations run
 *   -P          with -o: both sides prefetch their whole buffer
 *               (IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE) before the traffic
 *               and print the result; an advice with a wrong lkey must
 *               fail
 *
 * Prints the counts of each operation and every mismatch (first bad
 * offset, expected and found byte). Exit status: 0 all verified, 1 an
 * error completion, a fatal event or the peer lost, 2 usage or setup, 3 a
 * stall, 4 a data mismatch.
 */
#define _GNU_SOURCE		/* memfd_create() */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "test-common.h"

#define MAX_QP		32
#define MAX_WIN		16
#define MAX_SZ		(16u << 20)
#define GUARD		16		/* guard bytes each side of a target */
#define MAGIC		0x72637631	/* "rcv1" */

enum op_type { OP_SEND, OP_WRITE, OP_WRITE_IMM, OP_READ, OP_FADD, OP_CSWAP,
	       OP_NUM };

static const char *const op_name[OP_NUM] = {
	"send", "write", "write_imm", "read", "fetch_add", "cmp_swap",
};

/* Control messages over TCP. */
enum { CTL_READY = 1, CTL_DONE, CTL_FIN };

struct msg {
	uint32_t type;
	uint32_t qp;
	uint64_t k;
};

struct cfg {
	uint32_t magic, nqp, win, maxsz;
	uint64_t nops, seed;
	uint32_t duration, timeout, retry, stall;
	uint32_t odp, odp_drop_ms, odp_prefetch, pad;
};

struct info {
	union ibv_gid gid;
	uint32_t mtu, nqp;
	uint64_t addr;
	uint32_t rkey, pad;
	uint32_t qpn[MAX_QP];
};

/* One operation, as both sides derive it. */
struct op {
	enum op_type type;
	uint32_t size;
	uint64_t soff;		/* offset in the server's slot */
	uint64_t coff;		/* offset in the client's slot */
	uint64_t key;		/* the pattern's key */
	uint64_t orig;		/* atomics: the target's value before */
	uint64_t arg;		/* fetch_add: the addend; cmp_swap: compare */
	uint64_t swap;
	int inl;
};

/* Per-QP progress. */
struct qstate {
	uint64_t next;		/* client: next K to post */
	uint64_t ready;		/* client: READY received for K < ready */
	uint64_t done;		/* client: completions; server: released */
	uint64_t prepared;	/* server: slots prepared for K < prepared */
	uint8_t got_done[MAX_WIN];	/* server: DONE received */
	uint8_t got_recv[MAX_WIN];	/* server: receive completed */
};

static struct cfg cfg = {
	.magic = MAGIC, .nqp = 8, .win = 4, .maxsz = 262144, .nops = 24,
	.seed = 1, .timeout = 17, .retry = 7, .stall = 120,
};
static int is_server, sock, gid_index;
static unsigned int rd_atom;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_comp_channel *chan;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static struct ibv_qp *qp[MAX_QP];
static struct qstate qs[MAX_QP];
static uint8_t *buf;
static size_t slot_size, buf_size;
static struct info me, peer;
static uint64_t count[OP_NUM], bytes, mismatches, peer_mismatches, cq_events;
static const char *role;
static int flowing;
static uint64_t odp_drops;
static int odp_stop, odp_dropping;
static pthread_t odp_thread;
static double t_start, t_progress;

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "rc-verify %s: ", role ? role : "");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(code);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Byte @i of the pattern with key @key. */
static uint8_t pat(uint64_t key, uint64_t i)
{
	return mix(key + (i >> 3)) >> ((i & 7) * 8);
}

static void fill(uint8_t *p, uint64_t len, uint64_t key)
{
	uint64_t i, w = 0;

	for (i = 0; i < len; i++) {
		if (!(i & 7) || !i)
			w = mix(key + (i >> 3));
		p[i] = w >> ((i & 7) * 8);
	}
}

static uint8_t guard_byte(uint64_t key)
{
	return 0xa5 ^ (key >> 56);
}

static void set_guards(uint8_t *p, uint64_t len, uint64_t key)
{
	memset(p - GUARD, guard_byte(key), GUARD);
	memset(p + len, guard_byte(key), GUARD);
}

static void mismatch(int q, uint64_t k, const struct op *o, const char *what,
		     uint64_t off, unsigned int want, unsigned int got,
		     uint64_t nbad)
{
	mismatches++;
	if (mismatches > 20)
		return;
	printf("MISMATCH %s qp %d msg %llu %s (%u B): %s at offset %llu: expected 0x%02x, got 0x%02x (%llu bad bytes)\n",
	       role, q, (unsigned long long)k, op_name[o->type], o->size, what,
	       (unsigned long long)off, want, got, (unsigned long long)nbad);
	fflush(stdout);
}

/* The guards either side of the @len bytes at @p are intact. */
static int check_guards(int q, uint64_t k, const struct op *o,
			const uint8_t *p, uint64_t len)
{
	uint8_t g = guard_byte(o->key);
	int i;

	for (i = 1; i <= GUARD; i++) {
		if (p[-i] != g) {
			mismatch(q, k, o, "guard before the target, -", i, g,
				 p[-i], 1);
			return 0;
		}
	}
	for (i = 0; i < GUARD; i++) {
		if (p[len + i] != g) {
			mismatch(q, k, o, "guard after the target, +", i, g,
				 p[len + i], 1);
			return 0;
		}
	}
	return 1;
}

/* Check @len bytes of @p against the pattern, and the guards around it. */
static int verify(int q, uint64_t k, const struct op *o, const uint8_t *p,
		  uint64_t len)
{
	uint64_t i, w = 0, bad = 0, first = 0;
	uint8_t want = 0, got = 0;
	int ok = 1;

	for (i = 0; i < len; i++) {
		if (!(i & 7) || !i)
			w = mix(o->key + (i >> 3));
		if (p[i] != (uint8_t)(w >> ((i & 7) * 8))) {
			if (!bad++) {
				first = i;
				want = w >> ((i & 7) * 8);
				got = p[i];
			}
		}
	}
	if (bad) {
		mismatch(q, k, o, "data", first, want, got, bad);
		ok = 0;
	}
	return check_guards(q, k, o, p, len) && ok;
}

/* Operation @k of QP @q. */
static void gen_op(int q, uint64_t k, struct op *o)
{
	uint64_t r = mix(cfg.seed ^ mix(((uint64_t)q << 48) ^ k));
	unsigned int bits = 0, e, pick;
	uint64_t span;

	while ((1ull << (bits + 1)) <= cfg.maxsz)
		bits++;
	memset(o, 0, sizeof(*o));
	pick = r % 100;
	r = mix(r);
	o->type = pick < 20 ? OP_SEND : pick < 40 ? OP_WRITE :
		  pick < 55 ? OP_WRITE_IMM : pick < 80 ? OP_READ :
		  pick < 90 ? OP_FADD : OP_CSWAP;
	o->key = mix(r ^ 0x6b6579);
	if (o->type == OP_FADD || o->type == OP_CSWAP) {
		o->size = 8;
		o->orig = mix(o->key ^ 1);
		o->arg = mix(o->key ^ 2);
		o->swap = mix(o->key ^ 3);
		/* Half the compares succeed. */
		if (o->type == OP_CSWAP && (o->key & 1))
			o->arg = o->orig;
	} else {
		e = r % (bits + 1);
		r = mix(r);
		o->size = (1u << e) + (e ? r % (1u << e) : 0);
		if (o->size > cfg.maxsz)
			o->size = cfg.maxsz;
		r = mix(r);
		o->inl = o->type != OP_READ && o->size <= 64 && (r & 1);
	}
	span = cfg.maxsz - o->size;
	r = mix(r);
	o->soff = GUARD + r % (span + 1);
	r = mix(r);
	o->coff = GUARD + r % (span + 1);
	if (o->type == OP_FADD || o->type == OP_CSWAP) {
		o->soff &= ~7ull;
		o->coff &= ~7ull;
	}
}

static uint8_t *slot(int q, uint64_t k)
{
	return buf + ((size_t)q * cfg.win + k % cfg.win) * slot_size;
}

static uint32_t start_psn(int q, int server)
{
	/* A quarter of the QPs start just below the PSN wrap. */
	if (q % 4 == 1)
		return 0xfffff0 - q - (server ? 0x100 : 0);
	return mix(cfg.seed ^ ((uint64_t)q << 8) ^ server) & 0xffffff;
}

static void xfer(void *p, size_t len, int out)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = out ? write(sock, (char *)p + done, len - done) :
				  read(sock, (char *)p + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die(1, "control connection: %s",
			    n ? strerror(errno) : "closed by the peer");
		done += n;
	}
}

static void send_msg(uint32_t type, int q, uint64_t k)
{
	struct msg m = { .type = type, .qp = q, .k = k };

	xfer(&m, sizeof(m), 1);
}

static const char *event_name(enum ibv_event_type t)
{
	return ibv_event_type_str(t);
}

/* Drain the async event queue; fatal events end the run. */
static void async_events(void)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(ctx, &ev)) {
		enum ibv_event_type t = ev.event_type;

		ibv_ack_async_event(&ev);
		printf("# %s: async event %s\n", role, event_name(t));
		fflush(stdout);
		switch (t) {
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
		case IBV_EVENT_CQ_ERR:
		case IBV_EVENT_DEVICE_FATAL:
			die(1, "fatal async event %s", event_name(t));
		default:
			break;
		}
	}
	if (errno != EAGAIN)
		die(1, "ibv_get_async_event: %s", strerror(errno));
}

static void setup_device(const char *name)
{
	struct ibv_device **list;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	int i, n, fl;

	list = ibv_get_device_list(&n);
	if (!list)
		die(2, "no RDMA devices");
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i == n)
		die(2, "no device %s", name);
	ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		die(2, "ibv_open_device %s: %s", name, strerror(errno));
	fl = fcntl(ctx->async_fd, F_GETFL);
	fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	if (ibv_query_port(ctx, 1, &pa) || ibv_query_device(ctx, &da))
		die(2, "ibv_query_port/device");
	rd_atom = da.max_qp_rd_atom < da.max_qp_init_rd_atom ?
		  da.max_qp_rd_atom : da.max_qp_init_rd_atom;
	if (ibv_query_gid(ctx, 1, gid_index, &me.gid))
		die(2, "ibv_query_gid %d", gid_index);
	me.mtu = pa.active_mtu;
	pd = ibv_alloc_pd(ctx);
	chan = ibv_create_comp_channel(ctx);
	if (!pd || !chan)
		die(2, "alloc_pd/create_comp_channel: %s", strerror(errno));
	fl = fcntl(chan->fd, F_GETFL);
	fcntl(chan->fd, F_SETFL, fl | O_NONBLOCK);
}

/* -o: take the buffer's pages from the page tables, over and over. */
static void *odp_dropper(void *arg)
{
	while (!__atomic_load_n(&odp_stop, __ATOMIC_ACQUIRE)) {
		usleep(cfg.odp_drop_ms * 1000);
		if (madvise(buf, buf_size, MADV_DONTNEED))
			die(2, "madvise: %s", strerror(errno));
		__atomic_add_fetch(&odp_drops, 1, __ATOMIC_RELAXED);
	}
	return arg;
}

/* Does the device page RC traffic's memory on demand, every operation? */
static int odp_offered(void)
{
	const uint32_t rc = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			    IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
			    IBV_ODP_SUPPORT_ATOMIC;
	struct ibv_device_attr_ex a;

	if (ibv_query_device_ex(ctx, NULL, &a))
		die(2, "ibv_query_device_ex: %s", strerror(errno));
	return (a.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
	       (a.odp_caps.per_transport_caps.rc_odp_caps & rc) == rc;
}

/*
 * The stock rxe provider (rdma-core 44 and 56) has no advise_mr: its
 * ibv_advise_mr() fails with EOPNOTSUPP without asking the kernel.
 * libibverbs' own command asks it; a private symbol with no header,
 * weak so that rc-verify still links where it is missing.
 */
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list,
		      uint32_t num_sge) __attribute__((weak));

static int advise(enum ibv_advise_mr_advice advice, uint32_t lkey,
		  const char **how)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = buf_size, .lkey = lkey,
	};
	int err;

	*how = "ibv_advise_mr";
	err = ibv_advise_mr(pd, advice, IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	if (err != EOPNOTSUPP)
		return err;
	if (!ibv_cmd_advise_mr)
		die(2, "ibv_advise_mr: EOPNOTSUPP, and no ibv_cmd_advise_mr in libibverbs");
	*how = "ibv_cmd_advise_mr";
	return ibv_cmd_advise_mr(pd, advice, IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
}

/* -P: map the whole ODP buffer before the traffic, writable. */
static void prefetch_buffer(void)
{
	const char *how;
	int err;

	if (buf_size > UINT32_MAX)
		die(2, "-P: the buffer is larger than an SGE");
	err = advise(IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, mr->lkey ^ 0x80,
		     &how);
	if (!err)
		die(2, "%s with a wrong lkey succeeded", how);
	err = advise(IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, mr->lkey, &how);
	if (err)
		die(2, "%s PREFETCH_WRITE %zu B: %s", how, buf_size,
		    strerror(err));
	err = advise(IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, mr->lkey, &how);
	if (err)
		die(2, "%s PREFETCH_NO_FAULT %zu B: %s", how, buf_size,
		    strerror(err));
	printf("# %s: prefetched %zu B with %s\n", role, buf_size, how);
}

/* The buffer: anonymous, or for -o a shared memfd mapping. */
static void setup_buffer(void)
{
	int fd = -1;

	if (cfg.odp) {
		fd = memfd_create("rc-verify", 0);
		if (fd < 0 || ftruncate(fd, buf_size))
			die(2, "memfd %zu: %s", buf_size, strerror(errno));
	}
	buf = mmap(NULL, buf_size, PROT_READ | PROT_WRITE,
		   cfg.odp ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS, fd, 0);
	if (buf == MAP_FAILED)
		die(2, "mmap %zu: %s", buf_size, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (cfg.odp && cfg.odp_drop_ms) {
		if (pthread_create(&odp_thread, NULL, odp_dropper, NULL))
			die(2, "pthread_create failed");
		odp_dropping = 1;
	}
}

static void setup_resources(void)
{
	int access = IBV_ACCESS_LOCAL_WRITE;
	unsigned int q;

	slot_size = ((size_t)cfg.maxsz + 2 * GUARD + 4095) & ~4095ul;
	buf_size = slot_size * cfg.win * cfg.nqp;
	setup_buffer();
	if (is_server)
		access |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC;
	if (cfg.odp && odp_offered())
		access |= IBV_ACCESS_ON_DEMAND;
	else if (cfg.odp)
		printf("# %s: the device offers no RC on-demand paging: a pinned MR here\n",
		       role);
	mr = ibv_reg_mr(pd, buf, buf_size, access);
	if (!mr)
		die(2, "ibv_reg_mr %zu: %s", buf_size, strerror(errno));
	if (cfg.odp_prefetch && (access & IBV_ACCESS_ON_DEMAND))
		prefetch_buffer();
	cq = ibv_create_cq(ctx, cfg.nqp * cfg.win * 2 + 16, NULL, chan, 0);
	if (!cq || ibv_req_notify_cq(cq, 0))
		die(2, "ibv_create_cq: %s", strerror(errno));
	for (q = 0; q < cfg.nqp; q++) {
		struct ibv_qp_init_attr a = {
			.send_cq = cq,
			.recv_cq = cq,
			.cap = {
				.max_send_wr = cfg.win,
				.max_recv_wr = cfg.win,
				.max_send_sge = 1,
				.max_recv_sge = 1,
				.max_inline_data = 64,
			},
			.qp_type = IBV_QPT_RC,
			.sq_sig_all = 1,
		};

		qp[q] = ibv_create_qp(pd, &a);
		if (!qp[q])
			die(2, "ibv_create_qp %u: %s", q, strerror(errno));
		me.qpn[q] = qp[q]->qp_num;
	}
	me.nqp = cfg.nqp;
	me.addr = (uintptr_t)buf;
	me.rkey = mr->rkey;
}

static void connect_qps(void)
{
	struct rc_attr c = {
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
		.mtu = me.mtu < peer.mtu ? me.mtu : peer.mtu,
		.dgid = peer.gid,
		.sgid_index = gid_index,
		.max_dest_rd_atomic = cfg.win < rd_atom ? cfg.win : rd_atom,
		.max_rd_atomic = cfg.win < rd_atom ? cfg.win : rd_atom,
		.min_rnr_timer = 1,
		.timeout = cfg.timeout,
		.retry_cnt = cfg.retry,
	};
	const char *state;
	unsigned int q;

	for (q = 0; q < cfg.nqp; q++) {
		c.dest_qpn = peer.qpn[q];
		c.rq_psn = start_psn(q, !is_server);
		c.sq_psn = start_psn(q, is_server);
		state = rc_connect(qp[q], &c);
		if (state)
			die(2, "modify_qp %s: %s", state, strerror(errno));
	}
}

/* Server: make slot of operation @k of QP @q ready and tell the client. */
static void prepare(int q, uint64_t k)
{
	struct ibv_recv_wr rwr = { .wr_id = ((uint64_t)q << 48) | k };
	struct ibv_recv_wr *bad;
	struct ibv_sge sge;
	uint8_t *p;
	struct op o;

	gen_op(q, k, &o);
	p = slot(q, k) + o.soff;
	set_guards(p, o.size, o.key);
	switch (o.type) {
	case OP_READ:
		fill(p, o.size, o.key);
		break;
	case OP_FADD:
	case OP_CSWAP:
		memcpy(p, &o.orig, 8);
		break;
	default:
		/* Old data from the slot's last use must not pass. */
		p[0] = ~pat(o.key, 0);
		p[o.size - 1] = ~pat(o.key, o.size - 1);
		break;
	}
	if (o.type == OP_SEND || o.type == OP_WRITE_IMM) {
		if (o.type == OP_SEND) {
			sge.addr = (uintptr_t)p;
			sge.length = o.size + GUARD;
			sge.lkey = mr->lkey;
			rwr.sg_list = &sge;
			rwr.num_sge = 1;
		}
		if (ibv_post_recv(qp[q], &rwr, &bad))
			die(1, "ibv_post_recv qp %d msg %llu: %s", q,
			    (unsigned long long)k, strerror(errno));
	}
	qs[q].got_done[k % cfg.win] = 0;
	qs[q].got_recv[k % cfg.win] = 0;
	qs[q].prepared = k + 1;
	send_msg(CTL_READY, q, k);
}

static int needs_recv(const struct op *o)
{
	return o->type == OP_SEND || o->type == OP_WRITE_IMM;
}

/* Server: release, in order, what is complete, and prepare the next. */
static void server_release(int q)
{
	struct qstate *s = &qs[q];
	uint64_t k;
	struct op o;
	uint8_t *p;
	uint64_t v, want;

	while (s->done < s->prepared) {
		k = s->done;
		gen_op(q, k, &o);
		if (!s->got_done[k % cfg.win] ||
		    (needs_recv(&o) && !s->got_recv[k % cfg.win]))
			break;
		p = slot(q, k) + o.soff;
		switch (o.type) {
		case OP_WRITE:
			verify(q, k, &o, p, o.size);
			break;
		case OP_FADD:
		case OP_CSWAP:
			memcpy(&v, p, 8);
			if (o.type == OP_FADD)
				want = o.orig + o.arg;
			else
				want = o.arg == o.orig ? o.swap : o.orig;
			if (v != want) {
				mismatches++;
				printf("MISMATCH server qp %d msg %llu %s: final value 0x%016llx, expected 0x%016llx (original 0x%016llx)\n",
				       q, (unsigned long long)k,
				       op_name[o.type], (unsigned long long)v,
				       (unsigned long long)want,
				       (unsigned long long)o.orig);
			}
			check_guards(q, k, &o, p, 8);
			break;
		default:
			break;	/* SEND, WRITE_IMM: checked on receipt */
		}
		count[o.type]++;
		bytes += o.size;
		s->done++;
		t_progress = now();
		if (!cfg.nops || s->prepared < cfg.nops)
			prepare(q, s->prepared);
	}
}

static void server_wc(const struct ibv_wc *wc)
{
	int q = wc->wr_id >> 48;
	uint64_t k = wc->wr_id & ((1ull << 48) - 1);
	struct op o;
	uint8_t *p;

	if (wc->status != IBV_WC_SUCCESS)
		die(1, "qp %d msg %llu: receive completed with %s (vendor err %u)",
		    q, (unsigned long long)k, ibv_wc_status_str(wc->status),
		    wc->vendor_err);
	if ((unsigned int)q >= cfg.nqp || k < qs[q].done || k >= qs[q].prepared)
		die(1, "receive completion for unknown wr_id 0x%llx",
		    (unsigned long long)wc->wr_id);
	gen_op(q, k, &o);
	p = slot(q, k) + o.soff;
	if (o.type == OP_SEND) {
		if (wc->opcode != IBV_WC_RECV || wc->byte_len != o.size) {
			mismatches++;
			printf("MISMATCH server qp %d msg %llu send: receive opcode %d, %u bytes, expected RECV of %u\n",
			       q, (unsigned long long)k, wc->opcode,
			       wc->byte_len, o.size);
		}
		verify(q, k, &o, p, o.size);
	} else if (o.type == OP_WRITE_IMM) {
		if (wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		    !(wc->wc_flags & IBV_WC_WITH_IMM) ||
		    ntohl(wc->imm_data) != (uint32_t)o.key) {
			mismatches++;
			printf("MISMATCH server qp %d msg %llu write_imm: receive opcode %d flags 0x%x imm 0x%08x, expected RECV_RDMA_WITH_IMM imm 0x%08x\n",
			       q, (unsigned long long)k, wc->opcode,
			       wc->wc_flags, ntohl(wc->imm_data),
			       (uint32_t)o.key);
		}
		verify(q, k, &o, p, o.size);
	} else {
		die(1, "qp %d msg %llu %s consumed a receive", q,
		    (unsigned long long)k, op_name[o.type]);
	}
	qs[q].got_recv[k % cfg.win] = 1;
	server_release(q);
}

/* Client: post operation qs[q].next. */
static void post_op(int q)
{
	uint64_t k = qs[q].next;
	struct ibv_send_wr wr = { .wr_id = ((uint64_t)q << 48) | k };
	struct ibv_send_wr *bad;
	uint64_t raddr;
	struct ibv_sge sge;
	uint8_t *p;
	struct op o;

	gen_op(q, k, &o);
	p = slot(q, k) + o.coff;
	raddr = peer.addr + (slot(q, k) - buf) + o.soff;
	sge.addr = (uintptr_t)p;
	sge.length = o.size;
	sge.lkey = mr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED | (o.inl ? IBV_SEND_INLINE : 0);
	switch (o.type) {
	case OP_SEND:
		wr.opcode = IBV_WR_SEND;
		fill(p, o.size, o.key);
		break;
	case OP_WRITE:
	case OP_WRITE_IMM:
		wr.opcode = o.type == OP_WRITE ? IBV_WR_RDMA_WRITE :
			    IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl((uint32_t)o.key);
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = peer.rkey;
		fill(p, o.size, o.key);
		break;
	case OP_READ:
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = peer.rkey;
		set_guards(p, o.size, o.key);
		p[0] = ~pat(o.key, 0);
		p[o.size - 1] = ~pat(o.key, o.size - 1);
		break;
	case OP_FADD:
	case OP_CSWAP:
		wr.opcode = o.type == OP_FADD ? IBV_WR_ATOMIC_FETCH_AND_ADD :
			    IBV_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = peer.rkey;
		wr.wr.atomic.compare_add = o.arg;
		wr.wr.atomic.swap = o.swap;
		set_guards(p, 8, o.key);
		memset(p, 0x11, 8);
		break;
	default:
		break;
	}
	if (ibv_post_send(qp[q], &wr, &bad))
		die(1, "ibv_post_send qp %d msg %llu %s: %s", q,
		    (unsigned long long)k, op_name[o.type], strerror(errno));
	qs[q].next++;
}

static int posting_over(void)
{
	if (cfg.duration && now() - t_start >= cfg.duration)
		return 1;
	return 0;
}

static void client_post(int q)
{
	struct qstate *s = &qs[q];

	while (s->next < s->ready && (!cfg.nops || s->next < cfg.nops) &&
	       !posting_over())
		post_op(q);
}

static void client_wc(const struct ibv_wc *wc)
{
	int q = wc->wr_id >> 48;
	uint64_t k = wc->wr_id & ((1ull << 48) - 1);
	struct op o;
	uint8_t *p;
	uint64_t v;

	if ((unsigned int)q >= cfg.nqp) {
		die(1, "completion for unknown wr_id 0x%llx: %s",
		    (unsigned long long)wc->wr_id,
		    ibv_wc_status_str(wc->status));
	}
	gen_op(q, k, &o);
	if (wc->status != IBV_WC_SUCCESS)
		die(1, "qp %d msg %llu %s (%u B): completed with %s (vendor err %u)",
		    q, (unsigned long long)k, op_name[o.type], o.size,
		    ibv_wc_status_str(wc->status), wc->vendor_err);
	if (k != qs[q].done)
		die(1, "qp %d: completion for msg %llu, expected msg %llu", q,
		    (unsigned long long)k, (unsigned long long)qs[q].done);
	p = slot(q, k) + o.coff;
	switch (o.type) {
	case OP_READ:
		verify(q, k, &o, p, o.size);
		break;
	case OP_FADD:
	case OP_CSWAP:
		memcpy(&v, p, 8);
		if (v != o.orig) {
			mismatches++;
			printf("MISMATCH client qp %d msg %llu %s: original value 0x%016llx, expected 0x%016llx\n",
			       q, (unsigned long long)k, op_name[o.type],
			       (unsigned long long)v,
			       (unsigned long long)o.orig);
		}
		/* The bytes around the 8 returned must be untouched. */
		check_guards(q, k, &o, p, 8);
		break;
	default:
		break;
	}
	count[o.type]++;
	bytes += o.size;
	qs[q].done++;
	t_progress = now();
	send_msg(CTL_DONE, q, k);
	if (!flowing) {
		/* faults.sh waits for this line to take the link down. */
		printf("# client: traffic flowing\n");
		fflush(stdout);
		flowing = 1;
	}
}

static void drain_cq(void)
{
	struct ibv_wc wc[16];
	int n, i;

	for (;;) {
		n = ibv_poll_cq(cq, 16, wc);
		if (n < 0)
			die(1, "ibv_poll_cq: %d", n);
		if (!n)
			return;
		for (i = 0; i < n; i++) {
			if (is_server)
				server_wc(&wc[i]);
			else
				client_wc(&wc[i]);
		}
	}
}

static void cq_event(void)
{
	struct ibv_cq *ecq;
	void *ectx;

	while (!ibv_get_cq_event(chan, &ecq, &ectx)) {
		if (++cq_events >= 64) {
			ibv_ack_cq_events(cq, cq_events);
			cq_events = 0;
		}
		if (ibv_req_notify_cq(cq, 0))
			die(1, "ibv_req_notify_cq: %s", strerror(errno));
	}
	drain_cq();
}

static int client_finished(void)
{
	unsigned int q;

	for (q = 0; q < cfg.nqp; q++) {
		if (qs[q].done != qs[q].next)
			return 0;
		if (!posting_over() && (!cfg.nops || qs[q].next < cfg.nops))
			return 0;
	}
	return 1;
}

/* Handle the control messages received; returns 1 on FIN. */
static int control(void)
{
	static uint8_t rbuf[4096];
	static size_t have;
	struct msg m;
	size_t off = 0;
	ssize_t n;
	int fin = 0;

	n = recv(sock, rbuf + have, sizeof(rbuf) - have, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		die(1, "control connection: %s",
		    n ? strerror(errno) : "closed by the peer");
	have += n;
	while (have - off >= sizeof(m)) {
		memcpy(&m, rbuf + off, sizeof(m));
		off += sizeof(m);
		if (m.type == CTL_FIN) {
			fin = 1;
			peer_mismatches = m.k;
			if (m.k)
				printf("# %s: the peer found %llu mismatch(es)\n",
				       role, (unsigned long long)m.k);
			continue;
		}
		if (m.qp >= cfg.nqp)
			die(1, "control message for qp %u", m.qp);
		if (m.type == CTL_READY && !is_server) {
			if (m.k != qs[m.qp].ready)
				die(1, "qp %u: READY %llu out of order", m.qp,
				    (unsigned long long)m.k);
			qs[m.qp].ready = m.k + 1;
			client_post(m.qp);
		} else if (m.type == CTL_DONE && is_server) {
			if (m.k < qs[m.qp].done || m.k >= qs[m.qp].prepared)
				die(1, "qp %u: DONE %llu unexpected", m.qp,
				    (unsigned long long)m.k);
			qs[m.qp].got_done[m.k % cfg.win] = 1;
			server_release(m.qp);
		} else {
			die(1, "unexpected control message %u", m.type);
		}
	}
	memmove(rbuf, rbuf + off, have - off);
	have -= off;
	t_progress = now();
	return fin;
}

static void report(void)
{
	double t = now() - t_start;
	int i;

	printf("# %s: %u QPs, seed %llu:", role, cfg.nqp,
	       (unsigned long long)cfg.seed);
	for (i = 0; i < OP_NUM; i++)
		printf(" %s %llu", op_name[i], (unsigned long long)count[i]);
	printf("; %llu bytes in %.1f s; %llu mismatch(es) here, %llu at the peer\n",
	       (unsigned long long)bytes, t, (unsigned long long)mismatches,
	       (unsigned long long)peer_mismatches);
	if (cfg.odp)
		printf("# %s: on-demand paging, buffer dropped from the page tables %llu times\n",
		       role, (unsigned long long)__atomic_load_n(&odp_drops,
							     __ATOMIC_RELAXED));
	fflush(stdout);
}

static void stall(void)
{
	unsigned int q;

	for (q = 0; q < cfg.nqp; q++)
		fprintf(stderr, "  qp %u (qpn 0x%x): next %llu ready %llu done %llu prepared %llu\n",
			q, qp[q]->qp_num, (unsigned long long)qs[q].next,
			(unsigned long long)qs[q].ready,
			(unsigned long long)qs[q].done,
			(unsigned long long)qs[q].prepared);
	report();
	die(3, "no progress for %d s", (int)cfg.stall);
}

/* Operations the client reported done that wait for their receive. */
static int server_pending(void)
{
	unsigned int q;
	uint64_t k;

	for (q = 0; q < cfg.nqp; q++)
		for (k = qs[q].done; k < qs[q].prepared; k++)
			if (qs[q].got_done[k % cfg.win])
				return 1;
	return 0;
}

/*
 * Server, on the client's FIN: every DONE came before it, but a receive
 * completion may still be on its way.
 */
static void server_finish(void)
{
	double end = now() + 10;

	drain_cq();
	while (server_pending()) {
		if (now() > end) {
			mismatches++;
			printf("MISMATCH server: operations done at the client never completed their receive\n");
			stall();
		}
		usleep(10000);
		drain_cq();
	}
}

static void run(void)
{
	struct pollfd pfd[3] = {
		{ .fd = chan->fd, .events = POLLIN },
		{ .fd = sock, .events = POLLIN },
		{ .fd = ctx->async_fd, .events = POLLIN },
	};
	int fin_sent = 0, fin_got = 0;
	unsigned int q;

	t_start = t_progress = now();
	if (is_server)
		for (q = 0; q < cfg.nqp; q++)
			while (qs[q].prepared < cfg.win &&
			       (!cfg.nops || qs[q].prepared < cfg.nops))
				prepare(q, qs[q].prepared);
	for (;;) {
		if (poll(pfd, 3, 200) < 0 && errno != EINTR)
			die(1, "poll: %s", strerror(errno));
		if (pfd[2].revents)
			async_events();
		if (pfd[0].revents)
			cq_event();
		if (pfd[1].revents && control())
			fin_got = 1;
		if (!is_server) {
			if (!fin_sent && client_finished()) {
				send_msg(CTL_FIN, 0, mismatches);
				fin_sent = 1;
			}
			if (fin_got)
				break;
		} else if (fin_got) {
			server_finish();
			send_msg(CTL_FIN, 0, mismatches);
			break;
		}
		if (now() - t_progress > (int)cfg.stall)
			stall();
	}
}

static void teardown(void)
{
	unsigned int q;

	for (q = 0; q < cfg.nqp; q++)
		if (ibv_destroy_qp(qp[q]))
			die(1, "ibv_destroy_qp: %s", strerror(errno));
	if (cq_events)
		ibv_ack_cq_events(cq, cq_events);
	if (ibv_destroy_cq(cq) || ibv_dereg_mr(mr) ||
	    ibv_destroy_comp_channel(chan) || ibv_dealloc_pd(pd) ||
	    ibv_close_device(ctx))
		die(1, "teardown: %s", strerror(errno));
	if (odp_dropping) {
		__atomic_store_n(&odp_stop, 1, __ATOMIC_RELEASE);
		pthread_join(odp_thread, NULL);
	}
	munmap(buf, buf_size);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rc-verify [-q NQP] [-n OPS] [-D SECS] [-m MAXSZ] [-w WINDOW] [-s SEED]\n"
		"                 [-t TIMEOUT] [-r RETRY] [-T STALL_S] [-o DROP_MS [-P]]\n"
		"                 server DEV GID_INDEX PORT | client DEV GID_INDEX PORT SERVER_IP\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int c, one = 1, i;

	while ((c = getopt(argc, argv, "q:n:D:m:w:s:t:r:T:o:Ph")) != -1) {
		switch (c) {
		case 'q': cfg.nqp = strtoul(optarg, NULL, 0); break;
		case 'n': cfg.nops = strtoull(optarg, NULL, 0); break;
		case 'D': cfg.duration = strtoul(optarg, NULL, 0); break;
		case 'm': cfg.maxsz = strtoul(optarg, NULL, 0); break;
		case 'w': cfg.win = strtoul(optarg, NULL, 0); break;
		case 's': cfg.seed = strtoull(optarg, NULL, 0); break;
		case 't': cfg.timeout = strtoul(optarg, NULL, 0); break;
		case 'r': cfg.retry = strtoul(optarg, NULL, 0); break;
		case 'T': cfg.stall = strtoul(optarg, NULL, 0); break;
		case 'o':
			cfg.odp = 1;
			cfg.odp_drop_ms = strtoul(optarg, NULL, 0);
			break;
		case 'P': cfg.odp_prefetch = 1; break;
		default: usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 4)
		usage();
	is_server = !strcmp(argv[0], "server");
	if (!is_server && (strcmp(argv[0], "client") || argc < 5))
		usage();
	role = is_server ? "server" : "client";
	gid_index = atoi(argv[2]);
	sa.sin_port = htons(atoi(argv[3]));
	if (!cfg.nqp || cfg.nqp > MAX_QP || !cfg.win || cfg.win > MAX_WIN ||
	    cfg.maxsz < 8 || cfg.maxsz > MAX_SZ || cfg.timeout > 31 ||
	    cfg.retry > 7 || !cfg.stall)
		die(2, "parameter out of range");
	setbuf(stdout, NULL);
	/* A peer gone is an error to report, not a signal to die of. */
	signal(SIGPIPE, SIG_IGN);
	setup_device(argv[1]);

	sock = socket(AF_INET, SOCK_STREAM, 0);
	if (sock < 0)
		die(2, "socket: %s", strerror(errno));
	if (is_server) {
		int l = sock;

		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1))
			die(2, "listen: %s", strerror(errno));
		printf("# server: listening on port %d\n", ntohs(sa.sin_port));
		sock = accept(l, NULL, NULL);
		close(l);
		if (sock < 0)
			die(2, "accept: %s", strerror(errno));
		xfer(&cfg, sizeof(cfg), 0);
		if (cfg.magic != MAGIC || !cfg.nqp || cfg.nqp > MAX_QP ||
		    !cfg.win || cfg.win > MAX_WIN || cfg.maxsz < 8 ||
		    cfg.maxsz > MAX_SZ || !cfg.stall)
			die(2, "bad parameters from the client");
	} else {
		if (inet_pton(AF_INET, argv[4], &sa.sin_addr) != 1)
			die(2, "bad address %s", argv[4]);
		for (i = 0; i < 300; i++) {
			if (!connect(sock, (struct sockaddr *)&sa, sizeof(sa)))
				break;
			close(sock);
			sock = socket(AF_INET, SOCK_STREAM, 0);
			usleep(100000);
		}
		if (i == 300)
			die(2, "connect to %s: %s", argv[4], strerror(errno));
		xfer(&cfg, sizeof(cfg), 1);
	}
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setup_resources();
	xfer(&me, sizeof(me), 1);
	xfer(&peer, sizeof(peer), 0);
	if (peer.nqp != cfg.nqp)
		die(2, "the peer has %u QPs", peer.nqp);
	connect_qps();
	/* Both sides at RTR/RTS before the first READY. */
	xfer(&one, sizeof(one), 1);
	xfer(&c, sizeof(c), 0);
	printf("# %s: %u QPs, window %u, up to %u B, %llu ops per QP%s, seed %llu, timeout %u, retry %u%s\n",
	       role, cfg.nqp, cfg.win, cfg.maxsz,
	       (unsigned long long)cfg.nops, cfg.duration ? " (or until -D)" : "",
	       (unsigned long long)cfg.seed, cfg.timeout, cfg.retry,
	       cfg.odp ? ", on-demand paging" : "");
	run();
	report();
	teardown();
	return mismatches || peer_mismatches ? 4 : 0;
}
