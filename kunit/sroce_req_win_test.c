// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the requester's adaptive send window (sroce_req_win.h):
 * exact window sizes after timeouts and progress, against the rules of
 * RFC 5681 counted in PSNs.
 */
#include <kunit/test.h>

#include "sroce_req_win.h"

/* A clean path keeps the ceiling, as the fixed window did. */
static void req_win_starts_full(struct kunit *test)
{
	struct sroce_req_win w;

	sroce_req_win_init(&w, 100, true);
	KUNIT_EXPECT_EQ(test, w.cwnd, (u32)SROCE_REQ_WIN_MAX);
	sroce_req_win_ack(&w, 100 + 5000);
	KUNIT_EXPECT_EQ(test, w.cwnd, (u32)SROCE_REQ_WIN_MAX);
	KUNIT_EXPECT_EQ(test, w.acked, 0U);
	KUNIT_EXPECT_EQ(test, w.una, 5100U);
}

/*
 * Slow start ends at ssthresh; above it growth is one PSN per window's
 * worth of PSNs acknowledged, up to the ceiling.
 */
static void req_win_linear_growth(struct kunit *test)
{
	struct sroce_req_win w;

	sroce_req_win_init(&w, 0, true);
	sroce_req_win_timeout(&w, 256);
	sroce_req_win_ack(&w, 124);
	KUNIT_EXPECT_EQ(test, w.cwnd, 128U);
	KUNIT_EXPECT_EQ(test, w.acked, 0U);
	sroce_req_win_ack(&w, 124 + 256);
	KUNIT_EXPECT_EQ(test, w.cwnd, 129U);
	KUNIT_EXPECT_EQ(test, w.acked, 256U - 128U);
	sroce_req_win_ack(&w, 124 + 257);
	KUNIT_EXPECT_EQ(test, w.cwnd, 130U);
	KUNIT_EXPECT_EQ(test, w.acked, 0U);
	/* Many windows at once still stop at the ceiling. */
	sroce_req_win_ack(&w, 100000);
	KUNIT_EXPECT_EQ(test, w.cwnd, (u32)SROCE_REQ_WIN_MAX);
	KUNIT_EXPECT_EQ(test, w.acked, 0U);
}

/*
 * A timeout drops to the floor; slow start doubles back to ssthresh,
 * then growth is linear. A second timeout keeps ssthresh.
 */
static void req_win_timeout_slow_start(struct kunit *test)
{
	struct sroce_req_win w;

	sroce_req_win_init(&w, 0, true);
	KUNIT_EXPECT_TRUE(test, sroce_req_win_timeout(&w, 200));
	KUNIT_EXPECT_EQ(test, w.cwnd, (u32)SROCE_REQ_WIN_MIN);
	KUNIT_EXPECT_EQ(test, w.ssthresh, 128U);
	KUNIT_EXPECT_TRUE(test, sroce_req_win_timeout(&w, 210));
	KUNIT_EXPECT_EQ(test, w.cwnd, (u32)SROCE_REQ_WIN_MIN);
	KUNIT_EXPECT_EQ(test, w.ssthresh, 128U);
	KUNIT_EXPECT_EQ(test, w.recover, 210U);
	sroce_req_win_ack(&w, 4);
	KUNIT_EXPECT_EQ(test, w.cwnd, 8U);
	sroce_req_win_ack(&w, 12);
	KUNIT_EXPECT_EQ(test, w.cwnd, 16U);
	/* 124 more PSNs: 112 finish slow start at 128, 12 count linearly. */
	sroce_req_win_ack(&w, 136);
	KUNIT_EXPECT_EQ(test, w.cwnd, 128U);
	KUNIT_EXPECT_EQ(test, w.acked, 12U);
	/* The floor stays the floor however often the timer runs out. */
	sroce_req_win_ack(&w, 300);
	sroce_req_win_timeout(&w, 400);
	sroce_req_win_timeout(&w, 400);
	KUNIT_EXPECT_EQ(test, w.cwnd, (u32)SROCE_REQ_WIN_MIN);
	KUNIT_EXPECT_EQ(test, w.ssthresh, 64U);
	/* ssthresh never goes below the floor either. */
	sroce_req_win_init(&w, 0, true);
	sroce_req_win_timeout(&w, 1);
	sroce_req_win_ack(&w, 1);
	KUNIT_EXPECT_FALSE(test, w.recovering);
	KUNIT_EXPECT_EQ(test, w.cwnd, (u32)SROCE_REQ_WIN_MIN + 1);
	sroce_req_win_timeout(&w, 2);
	KUNIT_EXPECT_EQ(test, w.ssthresh, (u32)SROCE_REQ_WIN_MIN);
}

/* ACKs across the PSN wrap count the PSNs between, old ACKs nothing. */
static void req_win_psn_wrap(struct kunit *test)
{
	struct sroce_req_win w;

	sroce_req_win_init(&w, 0xfffff0, true);
	sroce_req_win_timeout(&w, 0x000010);
	sroce_req_win_ack(&w, 0x000004);
	KUNIT_EXPECT_EQ(test, w.cwnd, (u32)SROCE_REQ_WIN_MIN + 20);
	KUNIT_EXPECT_TRUE(test, w.recovering);
	sroce_req_win_ack(&w, 0xfffff8);
	KUNIT_EXPECT_EQ(test, w.una, 0x000004U);
	KUNIT_EXPECT_EQ(test, w.cwnd, (u32)SROCE_REQ_WIN_MIN + 20);
	sroce_req_win_ack(&w, 0x000010);
	KUNIT_EXPECT_FALSE(test, w.recovering);
}

/* tx_adaptive_window 0: the fixed window of before, whatever happens. */
static void req_win_fixed(struct kunit *test)
{
	struct sroce_req_win w;

	sroce_req_win_init(&w, 0, false);
	KUNIT_EXPECT_FALSE(test, sroce_req_win_timeout(&w, 256));
	sroce_req_win_ack(&w, 10);
	KUNIT_EXPECT_EQ(test, w.cwnd, (u32)SROCE_REQ_WIN_MAX);
	KUNIT_EXPECT_EQ(test, w.una, 10U);
}

static struct kunit_case sroce_req_win_cases[] = {
	KUNIT_CASE(req_win_starts_full),
	KUNIT_CASE(req_win_linear_growth),
	KUNIT_CASE(req_win_timeout_slow_start),
	KUNIT_CASE(req_win_psn_wrap),
	KUNIT_CASE(req_win_fixed),
	{}
};

static struct kunit_suite sroce_req_win_suite = {
	.name = "sroce_req_win",
	.test_cases = sroce_req_win_cases,
};

kunit_test_suite(sroce_req_win_suite);
