// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for 24-bit PSN arithmetic: wrap-around, signed distance,
 * ordering across the wrap, and the window and span helpers the requester
 * and completer use to decide what is outstanding.
 */
#include <kunit/test.h>

#include "sroce_psn.h"

static void psn_add_wraps(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0, 1), 1U);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0xffffff, 1), 0U);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0xfffff0, 0x20), 0x10U);
	/* Adding -1 (as u32) steps back, wrapping below 0. */
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0, -1), 0xffffffU);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(5, -1), 4U);
}

static void psn_diff_signed(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(10, 3), 7);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(3, 10), -7);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0, 0xffffff), 1);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0xffffff, 0), -1);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0x000010, 0xfffff0), 0x20);
	/* Half the space apart: the most negative distance. */
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0x800000, 0), -0x800000);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0x7fffff, 0), 0x7fffff);
	/* Bits above the 24 are ignored. */
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0x1000005, 5), 0);
}

static void psn_order_across_wrap(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_psn_lt(0xfffffe, 1));
	KUNIT_EXPECT_TRUE(test, sroce_psn_gt(1, 0xfffffe));
	KUNIT_EXPECT_TRUE(test, sroce_psn_le(7, 7));
	KUNIT_EXPECT_TRUE(test, sroce_psn_ge(7, 7));
	KUNIT_EXPECT_FALSE(test, sroce_psn_lt(7, 7));
	KUNIT_EXPECT_FALSE(test, sroce_psn_gt(7, 7));
	KUNIT_EXPECT_TRUE(test, sroce_psn_le(0xffffff, 0));
	KUNIT_EXPECT_FALSE(test, sroce_psn_ge(0xffffff, 0));
}

static void psn_window(struct kunit *test)
{
	/* [100, 228): 128 PSNs. */
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_window(100, 100, 128));
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_window(227, 100, 128));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_window(228, 100, 128));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_window(99, 100, 128));
	/* Across the wrap. */
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_window(0xffffff, 0xfffff0, 0x20));
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_window(0x0f, 0xfffff0, 0x20));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_window(0x10, 0xfffff0, 0x20));
	/* An empty window holds nothing. */
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_window(5, 5, 0));
}

static void psn_span(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_psn_span(100, 228), 128U);
	KUNIT_EXPECT_EQ(test, sroce_psn_span(5, 5), 0U);
	KUNIT_EXPECT_EQ(test, sroce_psn_span(0xffff00, 0x100), 0x200U);
}

/*
 * The requester's room check: the longest message (2^23 - 1 PSNs, 2 GiB at
 * a 256-byte MTU) starts alone; with PSNs in flight it waits for as many
 * as would carry the newest beyond half the space, where the ordering
 * against una, which the completer filters ACKs by, turns round.
 */
static void psn_room(struct kunit *test)
{
	u32 half = SROCE_PSN_HALF;

	KUNIT_EXPECT_TRUE(test, sroce_psn_room(0, 0, half - 1));
	KUNIT_EXPECT_TRUE(test, sroce_psn_room(5, 7, half - 3));
	KUNIT_EXPECT_FALSE(test, sroce_psn_room(5, 7, half - 2));
	KUNIT_EXPECT_TRUE(test, sroce_psn_room(0xfffffe, 1, half - 4));
	KUNIT_EXPECT_FALSE(test, sroce_psn_room(0xfffffe, 1, half - 3));
	/* Why: the last PSN allowed still follows una, one more does not. */
	KUNIT_EXPECT_TRUE(test, sroce_psn_gt(sroce_psn_add(5, half - 1), 5));
	KUNIT_EXPECT_FALSE(test, sroce_psn_gt(sroce_psn_add(5, half), 5));
}

static struct kunit_case sroce_psn_cases[] = {
	KUNIT_CASE(psn_add_wraps),
	KUNIT_CASE(psn_diff_signed),
	KUNIT_CASE(psn_order_across_wrap),
	KUNIT_CASE(psn_window),
	KUNIT_CASE(psn_span),
	KUNIT_CASE(psn_room),
	{}
};

static struct kunit_suite sroce_psn_suite = {
	.name		= "sroce_psn",
	.test_cases	= sroce_psn_cases,
};

kunit_test_suites(&sroce_psn_suite);
