// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for TIMELY (sroce_cc_timely.c), driven by a fake clock.
 *
 * The tables below are the output of
 *
 *   python3 kunit/sroce_cc_timely_vectors.py
 *
 * an exact (rational) model of the algorithm written from the paper and
 * the choices in Documentation/sroce-cc.rst, which shares no code or fixed
 * point with the driver: per RTT sample or loss, the branch taken and the
 * rate after it in kb/s, rounded half up. The script refuses scenarios where
 * the driver's rounding could change a value at this precision.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/time64.h>

#include "sroce_cc_timely.h"

#define TEST_T0_NS	(5ULL * NSEC_PER_SEC)

/* An RTT sample of @dt_ns, or (@loss) a loss @dt_ns after the last event. */
struct sroce_cc_timely_test_step {
	u64 dt_ns;
	bool loss;
	enum sroce_cc_timely_region region;
	u64 rate_kbps;
};

struct sroce_cc_timely_test_param {
	const char *name;
	u32 val;
};

/*
 * line 10000 Mb/s
 */
static const struct sroce_cc_timely_test_step timely_queue[] = {
	{ 40000, false, SROCE_CC_TIMELY_LOW, 10000000 },
	{ 52000, false, SROCE_CC_TIMELY_GRAD_DEC, 8320410 },
	{ 54000, false, SROCE_CC_TIMELY_GRAD_DEC, 7912810 },
	{ 57000, false, SROCE_CC_TIMELY_GRAD_DEC, 7532099 },
	{ 62000, false, SROCE_CC_TIMELY_GRAD_DEC, 6959681 },
	{ 66000, false, SROCE_CC_TIMELY_GRAD_DEC, 6503920 },
	{ 73000, false, SROCE_CC_TIMELY_GRAD_DEC, 5813452 },
	{ 80000, false, SROCE_CC_TIMELY_GRAD_DEC, 5166727 },
	{ 95000, false, SROCE_CC_TIMELY_GRAD_DEC, 4010132 },
	{ 120000, false, SROCE_CC_TIMELY_GRAD_DEC, 2494717 },
	{ 160000, false, SROCE_CC_TIMELY_GRAD_DEC, 980174 },
	{ 240000, false, SROCE_CC_TIMELY_GRAD_DEC, 10000 },
	{ 400000, false, SROCE_CC_TIMELY_GRAD_DEC, 10000 },
	{ 700000, false, SROCE_CC_TIMELY_GRAD_DEC, 10000 },
	{ 1100000, false, SROCE_CC_TIMELY_HIGH, 10000 },
	{ 1300000, false, SROCE_CC_TIMELY_HIGH, 10000 },
	{ 1200000, false, SROCE_CC_TIMELY_HIGH, 10000 },
	{ 1000000, false, SROCE_CC_TIMELY_GRAD_INC, 20000 },
	{ 800000, false, SROCE_CC_TIMELY_GRAD_INC, 30000 },
	{ 600000, false, SROCE_CC_TIMELY_GRAD_INC, 40000 },
	{ 400000, false, SROCE_CC_TIMELY_GRAD_INC, 50000 },
	{ 250000, false, SROCE_CC_TIMELY_GRAD_INC, 100000 },
	{ 150000, false, SROCE_CC_TIMELY_GRAD_INC, 150000 },
	{ 110000, false, SROCE_CC_TIMELY_GRAD_INC, 200000 },
	{ 95000, false, SROCE_CC_TIMELY_GRAD_INC, 250000 },
	{ 90000, false, SROCE_CC_TIMELY_GRAD_INC, 300000 },
	{ 90000, false, SROCE_CC_TIMELY_GRAD_INC, 350000 },
	{ 90000, false, SROCE_CC_TIMELY_GRAD_INC, 400000 },
	{ 90000, false, SROCE_CC_TIMELY_GRAD_INC, 450000 },
	{ 90000, false, SROCE_CC_TIMELY_GRAD_INC, 500000 },
	{ 90000, false, SROCE_CC_TIMELY_GRAD_INC, 550000 },
	{ 88000, false, SROCE_CC_TIMELY_GRAD_INC, 600000 },
	{ 89000, false, SROCE_CC_TIMELY_GRAD_DEC, 593702 },
	{ 90000, false, SROCE_CC_TIMELY_GRAD_DEC, 584613 },
	{ 45000, false, SROCE_CC_TIMELY_LOW, 594613 },
	{ 45000, false, SROCE_CC_TIMELY_LOW, 604613 },
};

/*
 * line 1000 Mb/s,
 * timely_ai_rate=20,
 * timely_hai_n=3
 */
static const struct sroce_cc_timely_test_step timely_hai[] = {
	{ 5000000, false, SROCE_CC_TIMELY_HIGH, 360156 },
	{ 300000, false, SROCE_CC_TIMELY_GRAD_INC, 380156 },
	{ 300000, false, SROCE_CC_TIMELY_GRAD_INC, 400156 },
	{ 300000, false, SROCE_CC_TIMELY_GRAD_INC, 460156 },
	{ 300000, false, SROCE_CC_TIMELY_GRAD_INC, 520156 },
	{ 300000, false, SROCE_CC_TIMELY_GRAD_INC, 580156 },
	{ 300000, false, SROCE_CC_TIMELY_GRAD_INC, 640156 },
	{ 310000, false, SROCE_CC_TIMELY_GRAD_DEC, 550717 },
	{ 305000, false, SROCE_CC_TIMELY_GRAD_INC, 570717 },
	{ 300000, false, SROCE_CC_TIMELY_GRAD_INC, 590717 },
	{ 300000, false, SROCE_CC_TIMELY_GRAD_INC, 650717 },
	{ 300000, false, SROCE_CC_TIMELY_GRAD_INC, 710717 },
	{ 300000, false, SROCE_CC_TIMELY_GRAD_INC, 770717 },
};

/*
 * line 10000 Mb/s,
 * timely_beta=1024,
 * timely_min_rate=100
 */
static const struct sroce_cc_timely_test_step timely_floor[] = {
	{ 100000, false, SROCE_CC_TIMELY_GRAD_INC, 10000000 },
	{ 900000, false, SROCE_CC_TIMELY_GRAD_DEC, 100000 },
	{ 900000, false, SROCE_CC_TIMELY_GRAD_DEC, 100000 },
	{ 900000, false, SROCE_CC_TIMELY_GRAD_DEC, 100000 },
	{ 5000000000, false, SROCE_CC_TIMELY_HIGH, 100000 },
	{ 1000000, false, SROCE_CC_TIMELY_GRAD_INC, 110000 },
};

/*
 * line 10000 Mb/s,
 * timely_max_rate=200
 */
static const struct sroce_cc_timely_test_step timely_ceiling[] = {
	{ 40000, false, SROCE_CC_TIMELY_LOW, 200000 },
	{ 40000, false, SROCE_CC_TIMELY_LOW, 200000 },
	{ 1500000, false, SROCE_CC_TIMELY_HIGH, 146680 },
	{ 1500000, false, SROCE_CC_TIMELY_HIGH, 107575 },
	{ 40000, false, SROCE_CC_TIMELY_LOW, 117575 },
	{ 40000, false, SROCE_CC_TIMELY_LOW, 127575 },
};

/*
 * line 1000 Mb/s
 */
static const struct sroce_cc_timely_test_step timely_loss[] = {
	{ 10000, true, SROCE_CC_TIMELY_LOSS, 500000 },
	{ 500000, true, SROCE_CC_TIMELY_LOSS_HELD, 500000 },
	{ 600000, true, SROCE_CC_TIMELY_LOSS, 250000 },
	{ 40000, false, SROCE_CC_TIMELY_LOW, 260000 },
	{ 3000000, false, SROCE_CC_TIMELY_HIGH, 121367 },
	{ 100000, true, SROCE_CC_TIMELY_LOSS, 60684 },
	{ 2000000, true, SROCE_CC_TIMELY_LOSS_HELD, 60684 },
	{ 1000000, true, SROCE_CC_TIMELY_LOSS, 30342 },
	{ 40000, false, SROCE_CC_TIMELY_LOW, 40342 },
	{ 40000, false, SROCE_CC_TIMELY_LOW, 50342 },
};

static void sroce_cc_timely_test_run(struct kunit *test, u32 line_mbps,
				     const struct sroce_cc_timely_test_param *prm,
				     unsigned int nprm,
				     const struct sroce_cc_timely_test_step *steps,
				     unsigned int nsteps)
{
	struct sroce_cc_params p;
	struct sroce_cc_timely t;
	u64 now = TEST_T0_NS;
	unsigned int i;

	sroce_cc_params_init_defaults(&p);
	for (i = 0; i < nprm; i++)
		KUNIT_ASSERT_EQ(test, sroce_cc_param_set(&p, prm[i].name,
							 prm[i].val), 0);
	sroce_cc_timely_init(&t, &p, line_mbps);
	/* A QP starts at its ceiling, paced below the line rate. */
	KUNIT_EXPECT_EQ(test, sroce_cc_timely_rate(&t),
			(u64)(p.timely_max_rate && p.timely_max_rate < line_mbps ?
			      p.timely_max_rate : line_mbps) * 1000000);
	KUNIT_EXPECT_EQ(test, t.pace.paced,
			p.timely_max_rate && p.timely_max_rate < line_mbps);
	for (i = 0; i < nsteps; i++) {
		enum sroce_cc_timely_region region;

		now += steps[i].dt_ns;
		if (steps[i].loss)
			region = sroce_cc_timely_on_loss(&t, &p, now);
		else
			region = sroce_cc_timely_on_rtt(&t, &p, steps[i].dt_ns,
							now);
		KUNIT_EXPECT_EQ_MSG(test, region, steps[i].region, "step %u", i);
		KUNIT_EXPECT_EQ_MSG(test,
				    DIV_ROUND_CLOSEST_ULL(sroce_cc_timely_rate(&t),
							  1000),
				    steps[i].rate_kbps, "step %u", i);
	}
}

/* Defaults: a queue builds past T_high and drains to the base RTT. */
static void sroce_cc_timely_queue_test(struct kunit *test)
{
	sroce_cc_timely_test_run(test, 10000, NULL, 0, timely_queue,
				 ARRAY_SIZE(timely_queue));
}

/* Hyper-active increase from the third gradient increase in a row. */
static void sroce_cc_timely_hai_test(struct kunit *test)
{
	static const struct sroce_cc_timely_test_param prm[] = {
		{ "timely_ai_rate", 20 }, { "timely_hai_n", 3 },
	};

	sroce_cc_timely_test_run(test, 1000, prm, ARRAY_SIZE(prm), timely_hai,
				 ARRAY_SIZE(timely_hai));
}

/* Saturated cuts stop at the floor; a 5 s sample counts as 2^30 ns. */
static void sroce_cc_timely_floor_test(struct kunit *test)
{
	static const struct sroce_cc_timely_test_param prm[] = {
		{ "timely_beta", 1024 }, { "timely_min_rate", 100 },
	};

	sroce_cc_timely_test_run(test, 10000, prm, ARRAY_SIZE(prm),
				 timely_floor, ARRAY_SIZE(timely_floor));
}

/* timely_max_rate: the QP starts there, and increases stop there. */
static void sroce_cc_timely_ceiling_test(struct kunit *test)
{
	static const struct sroce_cc_timely_test_param prm[] = {
		{ "timely_max_rate", 200 },
	};

	sroce_cc_timely_test_run(test, 10000, prm, ARRAY_SIZE(prm),
				 timely_ceiling, ARRAY_SIZE(timely_ceiling));
}

/*
 * Losses halve the rate, at most once per round trip (the last sample,
 * at least T_high).
 */
static void sroce_cc_timely_loss_test(struct kunit *test)
{
	sroce_cc_timely_test_run(test, 1000, NULL, 0, timely_loss,
				 ARRAY_SIZE(timely_loss));
}

/*
 * The rate a sample sets is the pacer's: 4 KiB packets sent whenever
 * allowed for 1 s of fake time move that rate within 1 %, plus the burst
 * credit and the first packet.
 */
static void sroce_cc_timely_pacing_test(struct kunit *test)
{
	u64 now = TEST_T0_NS, end = TEST_T0_NS + NSEC_PER_SEC, bytes = 0;
	struct sroce_cc_params p;
	struct sroce_cc_timely t;
	u64 want;

	sroce_cc_params_init_defaults(&p);
	sroce_cc_timely_init(&t, &p, 10000);
	/* 1.5 ms, T_high 1 ms: 10 Gb/s * (1 - 819/1024 / 3). */
	sroce_cc_timely_on_rtt(&t, &p, 1500 * NSEC_PER_USEC, now);
	want = sroce_cc_timely_rate(&t);
	KUNIT_EXPECT_EQ(test, DIV_ROUND_CLOSEST_ULL(want, 1000), 7333984ULL);
	KUNIT_EXPECT_TRUE(test, t.pace.paced);
	while (now < end) {
		if (sroce_cc_pacer_may_send(&t.pace, now)) {
			sroce_cc_timely_on_tx(&t, 4096, now);
			bytes += 4096;
		} else {
			now = t.pace.next_send;
		}
	}
	want /= 8;
	KUNIT_EXPECT_LE(test, bytes, want + want / 100 + 4096 +
			SROCE_CC_PACE_BURST_BYTES);
	KUNIT_EXPECT_GE(test, bytes, want - want / 100);
}

static struct kunit_case sroce_cc_timely_cases[] = {
	KUNIT_CASE(sroce_cc_timely_queue_test),
	KUNIT_CASE(sroce_cc_timely_hai_test),
	KUNIT_CASE(sroce_cc_timely_floor_test),
	KUNIT_CASE(sroce_cc_timely_ceiling_test),
	KUNIT_CASE(sroce_cc_timely_loss_test),
	KUNIT_CASE(sroce_cc_timely_pacing_test),
	{}
};

static struct kunit_suite sroce_cc_timely_suite = {
	.name = "sroce_cc_timely",
	.test_cases = sroce_cc_timely_cases,
};

kunit_test_suites(&sroce_cc_timely_suite);
