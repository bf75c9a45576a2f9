// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the port counters: every CPU's set counted in the sum.
 */
#include <kunit/test.h>

#include "sroce_counters.h"

static void counters_sum_cpus(struct kunit *test)
{
	struct sroce_counters cnt;
	u64 want = 0;
	int cpu;

	KUNIT_ASSERT_EQ(test, sroce_counters_init(&cnt), 0);
	for_each_possible_cpu(cpu) {
		per_cpu_ptr(cnt.pcpu, cpu)->val[SROCE_CNT_RCVD_PKTS] = cpu + 1;
		want += cpu + 1;
	}
	KUNIT_EXPECT_EQ(test, sroce_counter_read(&cnt, SROCE_CNT_RCVD_PKTS),
			want);
	sroce_counter_inc(&cnt, SROCE_CNT_RCVD_PKTS);
	sroce_counter_add(&cnt, SROCE_CNT_RCVD_PKTS, 1000);
	KUNIT_EXPECT_EQ(test, sroce_counter_read(&cnt, SROCE_CNT_RCVD_PKTS),
			want + 1001);
	/* The neighbours are untouched. */
	KUNIT_EXPECT_EQ(test, sroce_counter_read(&cnt, SROCE_CNT_SENT_PKTS),
			0ULL);
	KUNIT_EXPECT_EQ(test, sroce_counter_read(&cnt, SROCE_CNT_RCVD_MALFORMED),
			0ULL);
	sroce_counters_destroy(&cnt);
}

static struct kunit_case sroce_counters_cases[] = {
	KUNIT_CASE(counters_sum_cpus),
	{}
};

static struct kunit_suite sroce_counters_suite = {
	.name		= "sroce_counters",
	.test_cases	= sroce_counters_cases,
};

kunit_test_suites(&sroce_counters_suite);
