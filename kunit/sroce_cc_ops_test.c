// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the congestion control selection (sroce_cc_ops.c): which
 * algorithm a QP runs, and that DCQCN behind the selection is DCQCN.
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

kunit_test_suites(&sroce_cc_ops_suite);
