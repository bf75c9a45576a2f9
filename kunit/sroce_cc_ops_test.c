// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the congestion control selection (sroce_cc_ops.c): which
 * algorithm a QP runs, and that DCQCN behind the selection is DCQCN.
 */
#include <kunit/test.h>
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

static struct kunit_case sroce_cc_ops_cases[] = {
	KUNIT_CASE(sroce_cc_ops_dcqcn_test),
	{}
};

static struct kunit_suite sroce_cc_ops_suite = {
	.name = "sroce_cc_ops",
	.test_cases = sroce_cc_ops_cases,
};

kunit_test_suites(&sroce_cc_ops_suite);
