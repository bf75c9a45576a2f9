// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for what a sender makes of the local stack's answer: which
 * results are back-pressure (retried after a back-off), which are
 * refusals (a loss, counted), and the back-off sequence that bounds the
 * retries of one packet.
 */
#include <kunit/test.h>
#include <linux/netdevice.h>

#include "sroce_counters.h"
#include "sroce_xmit.h"

static u64 refused(struct sroce_counters *cnt)
{
	return sroce_counter_read(cnt, SROCE_CNT_XMIT_REFUSED);
}

static void results(struct kunit *test)
{
	struct sroce_counters *cnt = kunit_kzalloc(test, sizeof(*cnt),
						   GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cnt);
	KUNIT_ASSERT_EQ(test, sroce_counters_init(cnt), 0);
	/* Queued, or dropped by a congestion qdisc: sent as far as we know. */
	KUNIT_EXPECT_EQ(test, sroce_xmit_result(cnt, NET_XMIT_SUCCESS), 0);
	KUNIT_EXPECT_EQ(test, sroce_xmit_result(cnt, NET_XMIT_CN), 0);
	/* A full queue, no memory: back-pressure. */
	KUNIT_EXPECT_EQ(test, sroce_xmit_result(cnt, NET_XMIT_DROP), -ENOBUFS);
	KUNIT_EXPECT_EQ(test, sroce_xmit_result(cnt, -ENOMEM), -ENOBUFS);
	KUNIT_EXPECT_EQ(test, sroce_xmit_result(cnt, -ENOBUFS), -ENOBUFS);
	KUNIT_EXPECT_EQ(test, refused(cnt), 0ULL);
	/* netfilter DROP, device down, no neighbour: refused, counted. */
	KUNIT_EXPECT_EQ(test, sroce_xmit_result(cnt, -EPERM), -EPERM);
	KUNIT_EXPECT_EQ(test, sroce_xmit_result(cnt, -ENETDOWN), -ENETDOWN);
	KUNIT_EXPECT_EQ(test, sroce_xmit_result(cnt, -EHOSTUNREACH),
			-EHOSTUNREACH);
	KUNIT_EXPECT_EQ(test, refused(cnt), 3ULL);
	sroce_counters_destroy(cnt);
}

static void backoff_is_bounded(struct kunit *test)
{
	unsigned long total = 0, d;
	u8 tries = 0;
	int i;

	for (i = 0; i < SROCE_XMIT_BACKOFF_TRIES; i++) {
		d = sroce_xmit_backoff(&tries);
		KUNIT_EXPECT_EQ(test, d, 1UL << i);
		total += d;
	}
	/* The next push-back gives the packet up, and the count restarts. */
	KUNIT_EXPECT_EQ(test, sroce_xmit_backoff(&tries), 0UL);
	KUNIT_EXPECT_EQ(test, tries, 0);
	KUNIT_EXPECT_EQ(test, sroce_xmit_backoff(&tries), 1UL);
	/* 255 jiffies: about a second at HZ 250 before a packet is lost. */
	KUNIT_EXPECT_EQ(test, total, 255UL);
}

static struct kunit_case sroce_xmit_cases[] = {
	KUNIT_CASE(results),
	KUNIT_CASE(backoff_is_bounded),
	{}
};

static struct kunit_suite sroce_xmit_suite = {
	.name		= "sroce_xmit",
	.test_cases	= sroce_xmit_cases,
};

kunit_test_suites(&sroce_xmit_suite);
