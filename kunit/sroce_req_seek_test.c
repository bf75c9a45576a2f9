// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the requester's rewind (sroce_req_seek()): where it puts
 * the next PSN, packet and gather position; that it never goes back
 * before una, whatever PSN a caller took before an ACK passed it; and that
 * it finds the WQE whose first sending started after a rewind to that
 * WQE's first packet (the two ways the congestion testbed saw a QP stop
 * with psn behind una == psn_high, nothing left to time out); and the
 * rules for starting a WQE: the fences.
 */
#include <kunit/test.h>

#include "sroce_qp.h"
#include "sroce_req.h"

#define SEEK_MTU	1024
#define SEEK_SLOTS	8

/*
 * An RC QP whose SQ holds two RDMA WRITEs of 64 packets, PSNs 100-163
 * and 164-227, each gathered from two SGEs of 32 KiB. The first went out
 * in full, the second up to PSN 199; every PSN before @una is ACKed.
 */
static struct sroce_qp *seek_qp(struct kunit *test, u32 una)
{
	struct sroce_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	size_t elem = sizeof(struct sroce_swqe) + 2 * sizeof(struct ib_sge);
	struct sroce_req *req;
	struct sroce_swqe *wqe;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->ibqp.qp_type = IB_QPT_RC;
	qp->mtu = SEEK_MTU;
	qp->sq.queue.index_mask = SEEK_SLOTS - 1;
	qp->sq.shadow_elem_size = elem;
	qp->sq.shadow = kunit_kcalloc(test, SEEK_SLOTS, elem, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->sq.shadow);
	for (i = 0; i < 2; i++) {
		wqe = sroce_sq_wqe(qp, i);
		wqe->opcode = IB_WR_RDMA_WRITE;
		wqe->length = 64 * SEEK_MTU;
		wqe->num_sge = 2;
		wqe->sge[0].length = 32 * SEEK_MTU;
		wqe->sge[1].length = 32 * SEEK_MTU;
		wqe->prog.first_psn = 100 + 64 * i;
		wqe->prog.last_psn = 163 + 64 * i;
	}
	req = &qp->req;
	req->head = 2;
	req->sent_end = 1;
	req->end_psns = true;
	req->cur = 1;
	req->cur_pkt = 36;
	req->psn = 200;
	req->psn_high = 200;
	req->una = una;
	req->win.cwnd = 64;
	return qp;
}

/* Where the requester resumes: WQE, packet, PSN and gather position. */
static void expect_at(struct kunit *test, const struct sroce_req *req,
		      u32 cur, u32 cur_pkt, u32 psn, u32 sge, u32 offset)
{
	KUNIT_EXPECT_EQ(test, req->cur, cur);
	KUNIT_EXPECT_EQ(test, req->cur_pkt, cur_pkt);
	KUNIT_EXPECT_EQ(test, req->psn, psn);
	KUNIT_EXPECT_EQ(test, req->cursor.cur, sge);
	KUNIT_EXPECT_EQ(test, req->cursor.offset, offset);
}

/* A rewind to an unacknowledged PSN: packet, PSN and SGE position. */
static void req_seek_back(struct kunit *test)
{
	struct sroce_qp *qp = seek_qp(test, 120);
	struct sroce_req *req = &qp->req;
	u32 gen = req->gen;

	sroce_req_seek(qp, 130);
	/* 30 KiB into the first SGE. */
	expect_at(test, req, 0, 30, 130, 0, 30 * SEEK_MTU);
	KUNIT_EXPECT_EQ(test, req->gen, gen + 1);

	/* Into the second WQE, 4 KiB into its second SGE. */
	sroce_req_seek(qp, 200);
	expect_at(test, req, 1, 36, 200, 1, 4 * SEEK_MTU);
}

/*
 * A rewind to a PSN that an ACK passed since the caller took it (the
 * push-back race in sroce_req_xmit()): the requester resumes at una, and
 * the window stays open. Before the fix psn stayed at 180, behind una
 * 200 == psn_high: a full window with nothing outstanding, for good.
 */
static void req_seek_not_before_una(struct kunit *test)
{
	struct sroce_qp *qp = seek_qp(test, 200);
	struct sroce_req *req = &qp->req;

	sroce_req_seek(qp, 180);
	expect_at(test, req, 1, 36, 200, 1, 4 * SEEK_MTU);
	KUNIT_EXPECT_FALSE(test, sroce_req_window_full(req));

	/* Across the 24-bit PSN wrap: una 2, a stale PSN 0xfffffe. */
	qp = seek_qp(test, 0);
	req = &qp->req;
	sroce_sq_wqe(qp, 0)->prog.first_psn = 0xffffa2;
	sroce_sq_wqe(qp, 0)->prog.last_psn = 0xffffe1;
	sroce_sq_wqe(qp, 1)->prog.first_psn = 0xffffe2;
	sroce_sq_wqe(qp, 1)->prog.last_psn = 33;
	req->psn = 6;
	req->psn_high = 6;
	req->una = 2;
	sroce_req_seek(qp, 0xfffffe);
	expect_at(test, req, 1, 32, 2, 1, 0);
	KUNIT_EXPECT_FALSE(test, sroce_req_window_full(req));
}

/*
 * The WQE at sent_end sent 6 packets (164-169), all ACKed but not known
 * to be when a timeout rewound to its first packet, the probe: cur_pkt 0,
 * una == psn_high. The ACK then arrives (the originals were only late):
 * seek to una resumes at packet 6. Before end_psns, seek guessed from
 * cur_pkt and una that the WQE had not started, and moved nothing.
 */
static void req_seek_end_rewound(struct kunit *test)
{
	struct sroce_qp *qp = seek_qp(test, 164);
	struct sroce_req *req = &qp->req;

	req->cur_pkt = 6;
	req->psn = 170;
	req->psn_high = 170;
	sroce_req_seek(qp, 164);
	KUNIT_EXPECT_EQ(test, req->cur, 1U);
	KUNIT_EXPECT_EQ(test, req->cur_pkt, 0U);
	KUNIT_EXPECT_EQ(test, req->psn, 164U);

	req->una = 170;
	sroce_req_seek(qp, req->una);
	expect_at(test, req, 1, 6, 170, 0, 6 * SEEK_MTU);
	KUNIT_EXPECT_FALSE(test, sroce_req_window_full(req));
}

/* A PSN outside every WQE that has PSNs (a forgery) moves nothing. */
static void req_seek_outside(struct kunit *test)
{
	struct sroce_qp *qp = seek_qp(test, 120);
	struct sroce_req *req = &qp->req;
	u32 gen = req->gen;

	sroce_req_seek(qp, 500);
	KUNIT_EXPECT_EQ(test, req->psn, 200U);
	KUNIT_EXPECT_EQ(test, req->cur, 1U);
	KUNIT_EXPECT_EQ(test, req->cur_pkt, 36U);
	KUNIT_EXPECT_EQ(test, req->gen, gen);
}

/*
 * Starting a WQE at sent_end: a LOCAL_INV waits until every WQE before it
 * completed (the second WRITE, ACKed up to 199, has not), fenced or not;
 * a SEND does not, unless fenced behind a READ or atomic in flight.
 */
static void req_may_start_fences(struct kunit *test)
{
	struct sroce_qp *qp = seek_qp(test, 200);
	struct sroce_req *req = &qp->req;
	struct sroce_swqe *wqe = sroce_sq_wqe(qp, 2);

	req->head = 3;
	req->cur = 2;
	req->cur_pkt = 0;
	req->sent_end = 2;
	req->psn = 228;
	req->psn_high = 228;
	req->max_rd_atomic = 1;
	qp->sq.queue.index = 1;

	wqe->opcode = IB_WR_LOCAL_INV;
	KUNIT_EXPECT_FALSE(test, sroce_req_may_start(qp, wqe));
	qp->sq.queue.index = 2;
	KUNIT_EXPECT_TRUE(test, sroce_req_may_start(qp, wqe));

	qp->sq.queue.index = 1;
	wqe->opcode = IB_WR_SEND;
	wqe->length = SEEK_MTU;
	KUNIT_EXPECT_TRUE(test, sroce_req_may_start(qp, wqe));
	wqe->send_flags = IB_SEND_FENCE;
	KUNIT_EXPECT_TRUE(test, sroce_req_may_start(qp, wqe));
	req->rd_atomic = 1;
	KUNIT_EXPECT_FALSE(test, sroce_req_may_start(qp, wqe));
	/* No responder resource left for another READ. */
	wqe->send_flags = 0;
	wqe->opcode = IB_WR_RDMA_READ;
	KUNIT_EXPECT_FALSE(test, sroce_req_may_start(qp, wqe));
}

static struct kunit_case sroce_req_seek_cases[] = {
	KUNIT_CASE(req_seek_back),
	KUNIT_CASE(req_seek_not_before_una),
	KUNIT_CASE(req_seek_end_rewound),
	KUNIT_CASE(req_seek_outside),
	KUNIT_CASE(req_may_start_fences),
	{}
};

static struct kunit_suite sroce_req_seek_suite = {
	.name = "sroce_req_seek",
	.test_cases = sroce_req_seek_cases,
};

kunit_test_suite(sroce_req_seek_suite);
