// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the requester's early retransmit wait (sroce_req_rto.h):
 * exact estimates after samples (RFC 6298's rules), the wait in ticks, its
 * backoff, and the QP's timeout as its ceiling; and the whole timeout,
 * stretched from the QP's toward a slower measured round trip.
 */
#include <kunit/test.h>

#include "sroce_req_rto.h"

#define TICK_1MS	1000000U	/* HZ 1000 */
#define TICK_4MS	4000000U	/* HZ 250, Debian's */

/* No wait before the first sample; the first sets SRTT and RTTVAR. */
static void req_rto_first_sample(struct kunit *test)
{
	struct sroce_req_rto r;

	sroce_req_rto_init(&r, true);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 1000), 0UL);
	sroce_req_rto_sample(&r, 4000000);
	KUNIT_EXPECT_EQ(test, r.srtt, 4000000ULL);
	KUNIT_EXPECT_EQ(test, r.rttvar, 2000000ULL);
	/* 4 ms + max(1 ms, 8 ms) = 12 ticks, and one for the tick under way */
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 1000), 13UL);
	/* 12 ms: 3 ticks of 4 ms, plus one */
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_4MS, 1000), 4UL);
	/* A fast path waits the floor, 5 ms (1 ms + max(1 ms, 2 ms) is less). */
	sroce_req_rto_init(&r, true);
	sroce_req_rto_sample(&r, 1000000);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 1000), 6UL);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_4MS, 1000), 3UL);
	/* A zero sample still counts. */
	sroce_req_rto_init(&r, true);
	sroce_req_rto_sample(&r, 0);
	KUNIT_EXPECT_EQ(test, r.srtt, 1ULL);
	KUNIT_EXPECT_EQ(test, r.rttvar, 0ULL);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 1000), 6UL);
}

/* Later samples: RTTVAR gains a quarter of the deviation, SRTT an eighth. */
static void req_rto_smoothing(struct kunit *test)
{
	struct sroce_req_rto r;
	int i;

	sroce_req_rto_init(&r, true);
	sroce_req_rto_sample(&r, 4000000);
	sroce_req_rto_sample(&r, 12000000);
	KUNIT_EXPECT_EQ(test, r.rttvar, 3500000ULL);
	KUNIT_EXPECT_EQ(test, r.srtt, 5000000ULL);
	/* 5 ms + 14 ms: 19 ticks, plus one */
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 1000), 20UL);

	/* A steady path: the deviation decays by a quarter per sample. */
	sroce_req_rto_init(&r, true);
	sroce_req_rto_sample(&r, 8000000);
	for (i = 0; i < 4; i++)
		sroce_req_rto_sample(&r, 8000000);
	KUNIT_EXPECT_EQ(test, r.srtt, 8000000ULL);
	KUNIT_EXPECT_EQ(test, r.rttvar, 1265625ULL);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 1000), 15UL);
}

/*
 * Each early expiry doubles the wait; once it reaches the QP's timeout
 * there is none, and progress brings it back.
 */
static void req_rto_backoff(struct kunit *test)
{
	struct sroce_req_rto r;
	int i;

	sroce_req_rto_init(&r, true);
	sroce_req_rto_sample(&r, 4000000);
	sroce_req_rto_sample(&r, 12000000);
	sroce_req_rto_backoff(&r);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 100), 40UL);
	sroce_req_rto_backoff(&r);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 100), 80UL);
	sroce_req_rto_backoff(&r);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 100), 0UL);
	/* Far past any timeout, and no shift overflows. */
	for (i = 0; i < 100; i++)
		sroce_req_rto_backoff(&r);
	KUNIT_EXPECT_EQ(test, r.backoff, (u8)SROCE_REQ_RTO_BACKOFF_MAX);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, ~0UL >> 1),
			20UL << SROCE_REQ_RTO_BACKOFF_MAX);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 1000), 0UL);
	sroce_req_rto_progress(&r);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 100), 20UL);
}

/*
 * The QP's timeout is the ceiling: a wait as long as it is no early
 * expiry. Disabled (tx_rtt_retransmit 0) or without a timeout (0,
 * infinite): never one.
 */
static void req_rto_ceiling(struct kunit *test)
{
	struct sroce_req_rto r;

	sroce_req_rto_init(&r, true);
	sroce_req_rto_sample(&r, 4000000);
	sroce_req_rto_sample(&r, 12000000);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 20), 0UL);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 21), 20UL);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 0), 0UL);
	/* A slow path: 200 ms round trips against a 67 ms timeout. */
	sroce_req_rto_init(&r, true);
	sroce_req_rto_sample(&r, 200000000);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_4MS, 17), 0UL);

	sroce_req_rto_init(&r, false);
	sroce_req_rto_sample(&r, 4000000);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_1MS, 1000), 0UL);
}

/*
 * The whole timeout: the QP's own until the estimate is longer, then the
 * estimate, at most four times the QP's; with or without the early expiry.
 */
static void req_rto_whole_timeout(struct kunit *test)
{
	struct sroce_req_rto r;

	/* No sample yet, or no timeout at all: the attribute as it is. */
	sroce_req_rto_init(&r, false);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_timeout(&r, TICK_4MS, 17), 17UL);
	sroce_req_rto_sample(&r, 200000000);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_timeout(&r, TICK_4MS, 0), 0UL);
	/* 200 ms + 4 x 100 ms = 150 ticks + 1, past 4 x 17: the ceiling. */
	KUNIT_EXPECT_EQ(test, sroce_req_rto_timeout(&r, TICK_4MS, 17), 68UL);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_timeout(&r, TICK_4MS, 40), 151UL);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_timeout(&r, TICK_4MS, 151), 151UL);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_timeout(&r, TICK_4MS, 152), 152UL);

	/* 40 ms + 4 x 20 ms = 30 ticks + 1: between the timeout and 4x. */
	sroce_req_rto_init(&r, true);
	sroce_req_rto_sample(&r, 40000000);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_timeout(&r, TICK_4MS, 17), 31UL);
	/* ... and no early expiry, as the estimate is past the timeout. */
	KUNIT_EXPECT_EQ(test, sroce_req_rto_ticks(&r, TICK_4MS, 17), 0UL);

	/* A LAN: 1 ms + max(4 ms, 2 ms) is 3 ticks, the timeout stays. */
	sroce_req_rto_init(&r, true);
	sroce_req_rto_sample(&r, 1000000);
	KUNIT_EXPECT_EQ(test, sroce_req_rto_timeout(&r, TICK_4MS, 17), 17UL);
	/* Backoff of the early wait leaves the whole timeout alone. */
	sroce_req_rto_sample(&r, 90000000);
	sroce_req_rto_backoff(&r);
	KUNIT_EXPECT_EQ(test, r.srtt, 12125000ULL);
	KUNIT_EXPECT_EQ(test, r.rttvar, 22625000ULL);
	/* 12.125 + 90.5 ms: 26 ticks (25.66 up), plus one */
	KUNIT_EXPECT_EQ(test, sroce_req_rto_timeout(&r, TICK_4MS, 17), 27UL);
}

static struct kunit_case sroce_req_rto_cases[] = {
	KUNIT_CASE(req_rto_first_sample),
	KUNIT_CASE(req_rto_smoothing),
	KUNIT_CASE(req_rto_backoff),
	KUNIT_CASE(req_rto_ceiling),
	KUNIT_CASE(req_rto_whole_timeout),
	{}
};

static struct kunit_suite sroce_req_rto_suite = {
	.name = "sroce_req_rto",
	.test_cases = sroce_req_rto_cases,
};

kunit_test_suite(sroce_req_rto_suite);
