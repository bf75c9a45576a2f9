// SPDX-License-Identifier: GPL-2.0
/*
 * A QP's engine state for `rdma res show qp -dd` (the restrack netlink
 * dump's driver attributes): the requester's PSNs, window and waits, its
 * congestion control rate, the responder's expected PSN. A QP that
 * stopped sending can then be told from a process that stopped posting
 * without a debugger: it shows which PSN it waits for and which timer, if
 * any, would move it.
 *
 * Numbers only, no addresses: the dump is open to every user.
 */
#include <rdma/restrack.h>

#include "sroce_qp.h"
#include "sroce_qp_res.h"

/* A snapshot, taken under the engines' locks, put after they are dropped. */
struct sroce_qp_res {
	u32 psn, psn_high, una, cwnd, ssthresh, retry_left, rd_atomic;
	u32 sq_index, cur, cur_pkt, sent_end, head, sq_head;
	u32 timeout_ms, rto_ms, srtt_us, rto_backoff;
	u32 cc_rate_kbps;
	u32 waits;
	u32 resp_psn, resp_msn;
};

/* Bits of sroce_qp_res.waits: what the requester (and responder) wait for. */
enum {
	SROCE_QP_RES_STOPPED,
	SROCE_QP_RES_RNR_WAIT,
	SROCE_QP_RES_PROBE,
	SROCE_QP_RES_ASKING,
	SROCE_QP_RES_RETRY_TIMER,	/* armed */
	SROCE_QP_RES_RNR_TIMER,
	SROCE_QP_RES_PACE_TIMER,
	SROCE_QP_RES_WORK,		/* queued */
	SROCE_QP_RES_RUNNING,
	SROCE_QP_RES_AGAIN,
	SROCE_QP_RES_RESP_PACED,	/* a READ stream waits for its pacer */
};

static void sroce_qp_res_snap(struct sroce_qp *qp, struct sroce_qp_res *r)
{
	struct sroce_req *req = &qp->req;
	u32 w = 0;

	spin_lock_bh(&req->lock);
	r->psn = req->psn;
	r->psn_high = req->psn_high;
	r->una = req->una;
	r->cwnd = req->win.cwnd;
	r->ssthresh = req->win.ssthresh;
	r->retry_left = req->retry_left;
	r->rd_atomic = req->rd_atomic;
	r->sq_index = qp->sq.queue.index;
	r->cur = req->cur;
	r->cur_pkt = req->cur_pkt;
	r->sent_end = req->sent_end;
	r->head = req->head;
	r->sq_head = qp->sq.head;
	r->timeout_ms = jiffies_to_msecs(req->timeout);
	r->rto_ms = jiffies_to_msecs(sroce_req_rto_timeout(&req->rto, TICK_NSEC,
							   req->timeout));
	r->srtt_us = div_u64(req->rto.srtt, NSEC_PER_USEC);
	r->rto_backoff = req->rto.backoff;
	r->cc_rate_kbps = min_t(u64, div_u64(sroce_cc_rate_bps(&req->cc), 1000),
				U32_MAX);
	w |= req->stopped << SROCE_QP_RES_STOPPED;
	w |= req->rnr_wait << SROCE_QP_RES_RNR_WAIT;
	w |= req->probe << SROCE_QP_RES_PROBE;
	w |= req->asking << SROCE_QP_RES_ASKING;
	w |= timer_pending(&req->retry_timer) << SROCE_QP_RES_RETRY_TIMER;
	w |= timer_pending(&req->rnr_timer) << SROCE_QP_RES_RNR_TIMER;
	w |= hrtimer_active(&req->pace_timer) << SROCE_QP_RES_PACE_TIMER;
	w |= delayed_work_pending(&req->work) << SROCE_QP_RES_WORK;
	w |= test_bit(SROCE_REQ_RUNNING, &req->flags) << SROCE_QP_RES_RUNNING;
	w |= test_bit(SROCE_REQ_AGAIN, &req->flags) << SROCE_QP_RES_AGAIN;
	r->waits = w;
	spin_unlock_bh(&req->lock);

	spin_lock_bh(&qp->resp.lock);
	r->resp_psn = qp->resp.psn;
	r->resp_msn = qp->resp.msn;
	r->waits |= hrtimer_active(&qp->resp.pace_timer) <<
		    SROCE_QP_RES_RESP_PACED;
	spin_unlock_bh(&qp->resp.lock);
}

#define SROCE_QP_RES_FIELD(n, f) { n, offsetof(struct sroce_qp_res, f) }
static const struct {
	const char *name;
	size_t off;
} sroce_qp_res_fields[] = {
	SROCE_QP_RES_FIELD("psn", psn),
	SROCE_QP_RES_FIELD("psn-high", psn_high),
	SROCE_QP_RES_FIELD("una", una),
	SROCE_QP_RES_FIELD("cwnd", cwnd),
	SROCE_QP_RES_FIELD("ssthresh", ssthresh),
	SROCE_QP_RES_FIELD("retry-left", retry_left),
	SROCE_QP_RES_FIELD("rd-atomic", rd_atomic),
	SROCE_QP_RES_FIELD("sq-index", sq_index),
	SROCE_QP_RES_FIELD("cur", cur),
	SROCE_QP_RES_FIELD("cur-pkt", cur_pkt),
	SROCE_QP_RES_FIELD("sent-end", sent_end),
	SROCE_QP_RES_FIELD("fetched", head),
	SROCE_QP_RES_FIELD("sq-head", sq_head),
	SROCE_QP_RES_FIELD("timeout-ms", timeout_ms),
	SROCE_QP_RES_FIELD("rto-ms", rto_ms),
	SROCE_QP_RES_FIELD("srtt-us", srtt_us),
	SROCE_QP_RES_FIELD("rto-backoff", rto_backoff),
	SROCE_QP_RES_FIELD("cc-rate-kbps", cc_rate_kbps),
	SROCE_QP_RES_FIELD("resp-psn", resp_psn),
	SROCE_QP_RES_FIELD("resp-msn", resp_msn),
};

static const char * const sroce_qp_res_waits[] = {
	[SROCE_QP_RES_STOPPED] = "stopped",
	[SROCE_QP_RES_RNR_WAIT] = "rnr-wait",
	[SROCE_QP_RES_PROBE] = "probe",
	[SROCE_QP_RES_ASKING] = "asking",
	[SROCE_QP_RES_RETRY_TIMER] = "retry-timer",
	[SROCE_QP_RES_RNR_TIMER] = "rnr-timer",
	[SROCE_QP_RES_PACE_TIMER] = "pace-timer",
	[SROCE_QP_RES_WORK] = "work",
	[SROCE_QP_RES_RUNNING] = "running",
	[SROCE_QP_RES_AGAIN] = "again",
	[SROCE_QP_RES_RESP_PACED] = "resp-paced",
};

int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_qp_res r;
	struct nlattr *nest;
	unsigned int i;

	/* Only RC has a window, a completer and timers to show. */
	if (ibqp->qp_type != IB_QPT_RC || !qp->req.inited)
		return 0;
	sroce_qp_res_snap(qp, &r);

	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(sroce_qp_res_fields); i++)
		if (rdma_nl_put_driver_u32(msg, sroce_qp_res_fields[i].name,
					   *(u32 *)((u8 *)&r +
						    sroce_qp_res_fields[i].off)))
			goto err;
	for (i = 0; i < ARRAY_SIZE(sroce_qp_res_waits); i++)
		if ((r.waits & BIT(i)) &&
		    rdma_nl_put_driver_string(msg, sroce_qp_res_waits[i], "yes"))
			goto err;
	nla_nest_end(msg, nest);
	return 0;

err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}
