/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The responder (sroce_resp.c): executes incoming requests (SEND, RDMA
 * WRITE, RDMA READ, ATOMIC, ATOMIC WRITE) against the receive queue and
 * memory regions,
 * answers with ACKs, NAKs, read responses and atomic ACKs, and completes
 * receive WQEs into the receive CQ.
 *
 * The decisions the responder takes on every packet (PSN class, opcode
 * sequence, access and length checks, which NAK, read segmentation, the
 * READ/ATOMIC replay ring) are pure functions below, tested by KUnit.
 */
#ifndef _SROCE_RESP_H
#define _SROCE_RESP_H

#include <linux/hrtimer.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "sroce_cc.h"
#include "sroce_mr.h"

struct sroce_pkt;
struct sroce_qp;
struct sroce_rwqe;

/* What the responder does with a request, by its PSN (IBTA vol 1 9.7.5.1). */
enum sroce_resp_psn_action {
	SROCE_RESP_PSN_EXECUTE,		/* the expected PSN */
	SROCE_RESP_PSN_DUPLICATE,	/* behind it: replay or re-ACK */
	SROCE_RESP_PSN_NAK_SEQ,		/* ahead: NAK PSN sequence error */
	SROCE_RESP_PSN_DROP,		/* ahead, NAK already sent: silence */
};

/*
 * What a UC responder does with a request (sroce_resp_uc_check()): UC has
 * no ACKs, so no retransmission and no NAKs.
 */
enum sroce_resp_uc_action {
	SROCE_RESP_UC_EXECUTE,		/* in sequence */
	/* A new message after a gap: abandon the open one, ePSN := PSN. */
	SROCE_RESP_UC_RESYNC,
	/* A gap inside a message: drop it and the rest of the message. */
	SROCE_RESP_UC_ABANDON,
	SROCE_RESP_UC_DROP,		/* the rest of an abandoned message */
	SROCE_RESP_UC_DUPLICATE,	/* behind ePSN, not a FIRST or ONLY */
};

/* The multi-packet message in progress, for opcode sequence checks. */
enum sroce_resp_msg {
	SROCE_RESP_MSG_NONE,
	SROCE_RESP_MSG_SEND,
	SROCE_RESP_MSG_WRITE,
};

enum sroce_resp_res_type {
	SROCE_RESP_RES_FREE,
	SROCE_RESP_RES_READ,
	SROCE_RESP_RES_ATOMIC,
	SROCE_RESP_RES_ATOMIC_WRITE,
};

/*
 * A READ, ATOMIC or ATOMIC WRITE request kept after execution, so that a
 * duplicate of it is answered without executing it again (IBTA vol 1
 * 9.7.5.1.3 and C9-151; an ATOMIC WRITE like an atomic, as rdma_rxe keeps
 * it: executed again, it could undo a later store to the same address).
 */
struct sroce_resp_res {
	enum sroce_resp_res_type type;
	u32 first_psn;
	u32 last_psn;		/* READ: PSN of the last response packet */
	u32 rkey;		/* READ */
	u32 length;		/* READ */
	u64 va;			/* READ */
	u64 orig;		/* ATOMIC: the value the ATOMIC ACK carried */
};

/* Capacity of the replay ring; the window in use is max_dest_rd_atomic. */
#define SROCE_RESP_MAX_RES	128

/* A response waiting to be sent, see struct sroce_resp. */
enum sroce_resp_out_kind {
	SROCE_RESP_OUT_NONE,
	SROCE_RESP_OUT_NAK,		/* an ACKNOWLEDGE with a NAK syndrome */
	SROCE_RESP_OUT_ATOMIC_ACK,
	SROCE_RESP_OUT_READ,		/* a stream of READ RESPONSE packets */
};

struct sroce_resp_out {
	enum sroce_resp_out_kind kind;
	u8 syndrome;		/* NAK */
	u32 psn;		/* next PSN to send */
	u32 msn;
	u64 orig;		/* ATOMIC_ACK */
	/*
	 * READ: the rest of the stream. The R_Key is checked again for each
	 * packet (sroce_rkey_access()): no MR is held between packets.
	 */
	u32 rkey;
	u64 va;
	u32 resid;
	u32 mtu;
	bool first;		/* the next packet opens the response */
};

/*
 * Per-QP responder state, inside struct sroce_qp.
 *
 * Requests are executed by one context at a time, the "runner": the
 * softirq that delivered a packet while the responder was idle, or the
 * work item the runner hands over to when it has run for its budget or the
 * stack pushed back. Packets that arrive meanwhile wait on @inq. The
 * runner holds no lock while it executes, sends or posts completions (the
 * CQ handler and the loopback path may re-enter sroce), so the execution
 * state below is owned by whoever set @running and touched only by it.
 */
struct sroce_resp {
	/*
	 * lock protects inq, running, ctl, start_psn and reask_queued.
	 * Taken with spin_lock_bh.
	 */
	spinlock_t lock;
	struct sk_buff_head inq;	/* struct sroce_pkt in skb->cb */
	bool running;
	bool reask_queued;		/* a READ request joined inq */
	u8 ctl;				/* SROCE_RESP_CTL_* for the runner */
	u32 start_psn;			/* the ePSN a queued START sets */
	struct delayed_work work;
	/*
	 * Runs the work when a READ stream held back by its QP's pacer may
	 * go on (sroce_resp_pace()). Armed under lock, never once DEAD.
	 */
	struct hrtimer pace_timer;
	bool inited;			/* lock, inq, work, timer are set up */
	/* DCQCN notification point: CNP spacing, under lock. */
	struct sroce_cc_np np;

	/* Owned by the runner. */
	u32 psn;			/* expected PSN (ePSN) */
	u32 msn;			/* messages completed, 24 bits on the wire */
	bool nak_sent;			/* a PSN seq error or RNR NAK is out */
	bool fatal;			/* a class A/C error: drop until reset */
	bool error_pending;		/* sroce_qp_error() still to be called */
	enum sroce_resp_msg msg;
	bool uc_drop;			/* UC: dropping until a FIRST or ONLY */
	bool odp_wait;			/* the request waits for an ODP page */

	/*
	 * The receive WQE a SEND is filling (kernel copy); for UD, one taken
	 * from an SRQ for a datagram an ODP miss lost, kept for the next.
	 */
	struct sroce_rwqe *rwqe;
	bool have_wqe;
	struct sroce_sge_cursor cursor;
	u32 recv_len;

	/* The RDMA WRITE in progress; its R_Key is checked for each packet. */
	u32 wr_rkey;
	u64 wr_va;
	u32 wr_resid;
	u32 wr_len;

	/*
	 * The PSN of the newest SEND or WRITE executed: a duplicate SEND or
	 * WRITE is ACKed with it. Never a READ's or an ATOMIC's PSN: an
	 * rdma_rxe requester takes a plain ACK at such a PSN as the end of
	 * that READ or ATOMIC, and completes it without its data.
	 */
	u32 ack_last;
	/* Coalesced ACK: one ACK covers every PSN up to ack_psn. */
	bool ack_pending;
	u32 ack_count;			/* requests executed since it was owed */
	u32 ack_psn;
	u32 ack_msn;

	u8 xmit_tries;			/* sroce_xmit_backoff() */
	u64 pace_at;			/* a paced READ stream's next departure */

	/* Sent after the pending ACK, before the next request is executed. */
	struct sroce_resp_out out;

	struct sroce_resp_res *res;	/* SROCE_RESP_MAX_RES entries */
	u32 res_head;
};

/*
 * Set up at create_qp (returns -ENOMEM if the buffers cannot be
 * allocated), and again after sroce_resp_stop() at RESET, keeping the
 * buffers (returns 0). Context: process.
 */
int sroce_resp_init(struct sroce_qp *qp);
/*
 * The QP is about to reach RTR: the responder forgets its state and
 * expects @psn (the RQ PSN) before it takes the next request. Called
 * before modify_qp publishes RTR, so no packet RTR lets in can run before
 * it; @psn goes with the request under resp.lock, not through qp->attr.
 */
void sroce_resp_start(struct sroce_qp *qp, u32 psn);
/* The QP went to ERR: complete every posted receive WQE as flushed. */
void sroce_resp_flush(struct sroce_qp *qp);
/* The QP goes to RESET: stop taking requests, wait for running work. */
void sroce_resp_stop(struct sroce_qp *qp);
/* The QP is being destroyed: sroce_resp_stop(), then free the state. */
void sroce_resp_cleanup(struct sroce_qp *qp);

/* A request packet for this QP, already checked by sroce_recv(). Consumes @skb. */
void sroce_resp_recv(struct sroce_qp *qp, struct sk_buff *skb,
		     struct sroce_pkt *pkt);

/* The device's count of queued request bytes; exported for KUnit. */
bool sroce_resp_inq_charge(atomic_long_t *bytes, unsigned int truesize,
			   long limit);

/* Pure decisions, exported for KUnit. */
bool sroce_resp_ack_due(bool pending, bool queued, u32 executed);
bool sroce_resp_is_reask(u16 opflags, u32 psn, u32 epsn);
enum sroce_resp_psn_action sroce_resp_psn_check(u32 psn, u32 epsn,
						bool *nak_sent);
bool sroce_resp_opseq_ok(enum sroce_resp_msg msg, u16 opflags);
enum sroce_resp_uc_action sroce_resp_uc_check(u32 psn, u32 epsn,
					      enum sroce_resp_msg msg,
					      u16 opflags, bool *dropping);
u8 sroce_resp_access_nak(u16 opflags, int qp_access, u64 va, u32 len);
bool sroce_resp_send_len_ok(u16 opflags, u32 paylen, u32 mtu);
bool sroce_resp_write_len_ok(u16 opflags, u32 resid, u32 paylen, u32 mtu);
bool sroce_resp_read_len_ok(u32 len, u32 mtu);
u8 sroce_resp_atomic_write_nak(int qp_access, u64 va, u32 len, u32 paylen,
			       u8 pad);
u8 sroce_resp_atomic_write_key_nak(int err);
u8 sroce_resp_read_opcode(bool first, u32 resid, u32 mtu);
u8 sroce_resp_syndrome_ack(void);
u8 sroce_resp_syndrome_rnr(u8 timer);
u8 sroce_resp_syndrome_nak(u8 code);
struct sroce_resp_res *sroce_resp_res_alloc(struct sroce_resp_res *ring,
					    u32 *head, u32 window,
					    enum sroce_resp_res_type type,
					    u32 first_psn, u32 last_psn);
struct sroce_resp_res *sroce_resp_res_find(struct sroce_resp_res *ring,
					   u32 psn,
					   enum sroce_resp_res_type type);
bool sroce_resp_read_replay_ok(const struct sroce_resp_res *res, u64 va,
			       u32 rkey, u32 len);

#endif /* _SROCE_RESP_H */
