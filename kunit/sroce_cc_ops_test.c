// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the congestion control selection (sroce_cc_ops.c): which
 * algorithm a QP runs, and that DCQCN behind the selection is DCQCN; and
 * for the requester's RTT sampler (sroce_cc_rtt.h).
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/time64.h>

#include "sroce_cc_ops.h"

#define TEST_T0_NS	(5ULL * NSEC_PER_SEC)

/*
 * A DCQCN QP behind the selection cuts, paces and recovers exactly as a
 * bare reaction point given the same events.
 */
static void sroce_cc_ops_dcqcn_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_sender s;
	struct sroce_cc_rp rp;
	u64 now = TEST_T0_NS;
	unsigned int i;

	sroce_cc_params_init_defaults(&p);
	sroce_cc_sender_init(&s, &p, 10000);
	sroce_cc_rp_init(&rp, 10000);
	KUNIT_EXPECT_EQ(test, sroce_cc_algo(&s), SROCE_CC_ALGO_DCQCN);
	KUNIT_EXPECT_EQ(test, sroce_cc_on_cnp(&s, &p, now),
			sroce_cc_rp_on_cnp(&rp, &p, now));
	for (i = 0; i < 2000; i++) {
		now += 700;
		KUNIT_EXPECT_EQ(test, sroce_cc_may_send(&s, now),
				sroce_cc_rp_may_send(&rp, now));
		if (!sroce_cc_may_send(&s, now))
			continue;
		sroce_cc_on_tx(&s, &p, 1100, now);
		sroce_cc_rp_on_tx(&rp, &p, 1100, now);
		KUNIT_EXPECT_EQ(test, sroce_cc_next_send_ns(&s),
				sroce_cc_rp_next_send_ns(&rp));
	}
	KUNIT_EXPECT_EQ(test, sroce_cc_rp_rate(&s.rp, &p, now),
			sroce_cc_rp_rate(&rp, &p, now));
}

/* cc_algo takes 0 and 1 only; a refused write keeps the old value. */
static void sroce_cc_ops_algo_range_test(struct kunit *test)
{
	struct sroce_cc_params p;
	u32 v;

	sroce_cc_params_init_defaults(&p);
	KUNIT_EXPECT_EQ(test, sroce_cc_param_get(&p, "cc_algo", &v), 0);
	KUNIT_EXPECT_EQ(test, v, (u32)SROCE_CC_ALGO_DCQCN);
	KUNIT_EXPECT_EQ(test, sroce_cc_param_set(&p, "cc_algo", 1), 0);
	KUNIT_EXPECT_EQ(test, sroce_cc_param_set(&p, "cc_algo", 2), -ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_cc_param_get(&p, "cc_algo", &v), 0);
	KUNIT_EXPECT_EQ(test, v, (u32)SROCE_CC_ALGO_TIMELY);
}

/*
 * A QP keeps the algorithm it took at RTS when cc_algo changes, and each
 * algorithm sees only its own events: TIMELY ignores CNPs, DCQCN RTTs.
 */
static void sroce_cc_ops_keep_algo_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_sender dq, tm;
	u64 now = TEST_T0_NS;

	sroce_cc_params_init_defaults(&p);
	sroce_cc_sender_init(&dq, &p, 10000);
	KUNIT_ASSERT_EQ(test, sroce_cc_param_set(&p, "cc_algo", 1), 0);
	sroce_cc_sender_init(&tm, &p, 10000);
	KUNIT_ASSERT_EQ(test, sroce_cc_param_set(&p, "cc_algo", 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_cc_algo(&dq), SROCE_CC_ALGO_DCQCN);
	KUNIT_EXPECT_EQ(test, sroce_cc_algo(&tm), SROCE_CC_ALGO_TIMELY);

	/* A 2 ms sample: TIMELY cuts and paces, DCQCN does not notice. */
	sroce_cc_on_rtt(&dq, &p, 2 * NSEC_PER_MSEC, now);
	sroce_cc_on_rtt(&tm, &p, 2 * NSEC_PER_MSEC, now);
	KUNIT_EXPECT_LT(test, sroce_cc_timely_rate(&tm.timely),
			10000ULL * 1000000);
	KUNIT_EXPECT_EQ(test, sroce_cc_rp_rate(&dq.rp, &p, now),
			10000ULL * 1000000);
	sroce_cc_on_tx(&tm, &p, 4096, now);
	sroce_cc_on_tx(&dq, &p, 4096, now);
	KUNIT_EXPECT_FALSE(test, sroce_cc_may_send(&tm, now + 1));
	KUNIT_EXPECT_TRUE(test, sroce_cc_may_send(&dq, now + 1));
	KUNIT_EXPECT_EQ(test, sroce_cc_next_send_ns(&tm),
			tm.timely.pace.next_send);

	/* A CNP: DCQCN cuts, TIMELY counts it ignored and keeps its rate. */
	KUNIT_EXPECT_EQ(test, sroce_cc_on_cnp(&tm, &p, now),
			SROCE_CC_CNP_IGNORED);
	KUNIT_EXPECT_EQ(test, sroce_cc_on_cnp(&dq, &p, now),
			SROCE_CC_CNP_HANDLED);
	KUNIT_EXPECT_FALSE(test, tm.rp.active);
	KUNIT_EXPECT_EQ(test, sroce_cc_timely_rate(&dq.timely),
			10000ULL * 1000000);

	/* Only a new move to RTS picks up the current cc_algo. */
	sroce_cc_sender_init(&tm, &p, 10000);
	KUNIT_EXPECT_EQ(test, sroce_cc_algo(&tm), SROCE_CC_ALGO_DCQCN);
}

static struct kunit_case sroce_cc_ops_cases[] = {
	KUNIT_CASE(sroce_cc_ops_dcqcn_test),
	KUNIT_CASE(sroce_cc_ops_algo_range_test),
	KUNIT_CASE(sroce_cc_ops_keep_algo_test),
	{}
};

static struct kunit_suite sroce_cc_ops_suite = {
	.name = "sroce_cc_ops",
	.test_cases = sroce_cc_ops_cases,
};

/*
 * One tag at a time, on a new packet that asks for an answer; the answer
 * covering it gives one sample; a duplicate of that answer gives none.
 */
static void sroce_cc_rtt_sample_test(struct kunit *test)
{
	struct sroce_cc_rtt r;
	u64 rtt = 0;

	sroce_cc_rtt_init(&r);
	sroce_cc_rtt_on_send(&r, 100, true, false, TEST_T0_NS);
	KUNIT_EXPECT_FALSE(test, sroce_cc_rtt_due(&r, 100));
	sroce_cc_rtt_on_send(&r, 101, true, true, TEST_T0_NS + 1000);
	sroce_cc_rtt_on_send(&r, 102, true, true, TEST_T0_NS + 2000);
	/* An ACK of 100 does not cover the tag (101). */
	KUNIT_EXPECT_FALSE(test, sroce_cc_rtt_on_ack(&r, 100, TEST_T0_NS + 9000,
						     &rtt));
	KUNIT_EXPECT_TRUE(test, sroce_cc_rtt_on_ack(&r, 101, TEST_T0_NS + 31000,
						    &rtt));
	KUNIT_EXPECT_EQ(test, rtt, 30000ULL);
	/* The same ACK again, and the one for 102: no tag, no sample. */
	KUNIT_EXPECT_FALSE(test, sroce_cc_rtt_on_ack(&r, 101, TEST_T0_NS + 32000,
						     &rtt));
	KUNIT_EXPECT_FALSE(test, sroce_cc_rtt_on_ack(&r, 102, TEST_T0_NS + 33000,
						     &rtt));
	/* A coalesced ACK past the tag samples it too. */
	sroce_cc_rtt_on_send(&r, 103, true, true, TEST_T0_NS + 40000);
	KUNIT_EXPECT_TRUE(test, sroce_cc_rtt_on_ack(&r, 110, TEST_T0_NS + 95000,
						    &rtt));
	KUNIT_EXPECT_EQ(test, rtt, 55000ULL);
	/* PSNs wrap at 2^24; a clock that went back gives 0, not 2^64 - 1. */
	sroce_cc_rtt_on_send(&r, 0xffffff, true, true, TEST_T0_NS + 100000);
	KUNIT_EXPECT_FALSE(test, sroce_cc_rtt_due(&r, 0xfffffe));
	KUNIT_EXPECT_TRUE(test, sroce_cc_rtt_on_ack(&r, 0, TEST_T0_NS + 99000,
						    &rtt));
	KUNIT_EXPECT_EQ(test, rtt, 0ULL);
}

/* Karn's rule: after a retransmission only a new packet gives a sample. */
static void sroce_cc_rtt_karn_test(struct kunit *test)
{
	struct sroce_cc_rtt r;
	u64 rtt = 0;

	sroce_cc_rtt_init(&r);
	sroce_cc_rtt_on_send(&r, 200, true, true, TEST_T0_NS);
	/* Go-back-N resends from 199: the tag's answer is ambiguous now. */
	sroce_cc_rtt_on_send(&r, 199, false, false, TEST_T0_NS + 5000);
	sroce_cc_rtt_on_send(&r, 200, false, true, TEST_T0_NS + 6000);
	KUNIT_EXPECT_FALSE(test, sroce_cc_rtt_on_ack(&r, 200, TEST_T0_NS + 9000,
						     &rtt));
	sroce_cc_rtt_on_send(&r, 201, true, true, TEST_T0_NS + 10000);
	/* A retransmission of the tagged PSN itself drops the tag too. */
	sroce_cc_rtt_on_send(&r, 201, false, true, TEST_T0_NS + 11000);
	KUNIT_EXPECT_FALSE(test, sroce_cc_rtt_due(&r, 201));
	sroce_cc_rtt_on_send(&r, 202, true, true, TEST_T0_NS + 12000);
	KUNIT_EXPECT_TRUE(test, sroce_cc_rtt_on_ack(&r, 202, TEST_T0_NS + 20000,
						    &rtt));
	KUNIT_EXPECT_EQ(test, rtt, 8000ULL);
}

/*
 * Only a QP that uses samples (TIMELY, or the early retransmit) tags
 * packets, and asks for AckReq while it has no tag.
 */
static void sroce_cc_rtt_algo_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_sender dq, tm;

	sroce_cc_params_init_defaults(&p);
	sroce_cc_sender_init(&dq, &p, 10000);
	KUNIT_ASSERT_EQ(test, sroce_cc_param_set(&p, "cc_algo", 1), 0);
	sroce_cc_sender_init(&tm, &p, 10000);
	KUNIT_EXPECT_FALSE(test, sroce_cc_wants_sample(&dq));
	KUNIT_EXPECT_TRUE(test, sroce_cc_wants_sample(&tm));
	sroce_cc_on_send(&dq, 7, true, true, TEST_T0_NS);
	sroce_cc_on_send(&tm, 7, true, true, TEST_T0_NS);
	KUNIT_EXPECT_FALSE(test, sroce_cc_rtt_due(&dq.rtt, 7));
	KUNIT_EXPECT_TRUE(test, sroce_cc_rtt_due(&tm.rtt, 7));
	KUNIT_EXPECT_FALSE(test, sroce_cc_wants_sample(&tm));
	/* A move to RTS forgets the tag. */
	sroce_cc_sender_init(&tm, &p, 10000);
	KUNIT_EXPECT_FALSE(test, sroce_cc_rtt_due(&tm.rtt, 7));
	/*
	 * The requester's timeouts turn the sampler on for a DCQCN QP too:
	 * tagging only packets that ask anyway (no AckReq added), or with
	 * the early retransmit eagerly; a move to RTS turns it off again
	 * until asked.
	 */
	sroce_cc_sample_rtt(&dq, false);
	KUNIT_EXPECT_FALSE(test, sroce_cc_wants_sample(&dq));
	sroce_cc_on_send(&dq, 8, true, false, TEST_T0_NS);
	KUNIT_EXPECT_FALSE(test, sroce_cc_rtt_due(&dq.rtt, 8));
	sroce_cc_on_send(&dq, 9, true, true, TEST_T0_NS);
	KUNIT_EXPECT_TRUE(test, sroce_cc_rtt_due(&dq.rtt, 9));
	sroce_cc_sender_init(&dq, &p, 10000);
	sroce_cc_sample_rtt(&dq, true);
	KUNIT_EXPECT_TRUE(test, sroce_cc_wants_sample(&dq));
	sroce_cc_on_send(&dq, 9, true, true, TEST_T0_NS);
	KUNIT_EXPECT_TRUE(test, sroce_cc_rtt_due(&dq.rtt, 9));
	KUNIT_EXPECT_FALSE(test, sroce_cc_wants_sample(&dq));
	KUNIT_ASSERT_EQ(test, sroce_cc_param_set(&p, "cc_algo", 0), 0);
	sroce_cc_sender_init(&dq, &p, 10000);
	KUNIT_EXPECT_FALSE(test, sroce_cc_wants_sample(&dq));
}

static struct kunit_case sroce_cc_rtt_cases[] = {
	KUNIT_CASE(sroce_cc_rtt_sample_test),
	KUNIT_CASE(sroce_cc_rtt_karn_test),
	KUNIT_CASE(sroce_cc_rtt_algo_test),
	{}
};

static struct kunit_suite sroce_cc_rtt_suite = {
	.name = "sroce_cc_rtt",
	.test_cases = sroce_cc_rtt_cases,
};

kunit_test_suites(&sroce_cc_ops_suite, &sroce_cc_rtt_suite);
