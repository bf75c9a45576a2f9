// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for lookup anchors (sroce_anchor.h): a lookup gets the
 * object only while it is alive, and retiring an anchor waits for every
 * lookup that holds a reference, and for nothing else.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/workqueue.h>

#include "sroce_anchor.h"

static void anchor_tryget_counts(struct kunit *test)
{
	struct sroce_anchor *a;
	int obj;

	a = sroce_anchor_new(&obj);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, refcount_read(&a->ref), 1U);
	KUNIT_EXPECT_PTR_EQ(test, sroce_anchor_tryget(a), (void *)&obj);
	KUNIT_EXPECT_PTR_EQ(test, sroce_anchor_tryget(a), (void *)&obj);
	KUNIT_EXPECT_EQ(test, refcount_read(&a->ref), 3U);
	sroce_anchor_put(a);
	sroce_anchor_put(a);
	KUNIT_EXPECT_FALSE(test, completion_done(&a->released));
	/* The retire of an anchor nobody looked up returns at once. */
	sroce_anchor_retire(a);
}

/* After the last reference, a reader that still has the anchor gets none. */
static void anchor_tryget_after_last_put(struct kunit *test)
{
	struct sroce_anchor *a;
	int obj;

	a = sroce_anchor_new(&obj);
	KUNIT_ASSERT_NOT_NULL(test, a);
	sroce_anchor_put(a);
	KUNIT_EXPECT_TRUE(test, completion_done(&a->released));
	KUNIT_EXPECT_NULL(test, sroce_anchor_tryget(a));
	KUNIT_EXPECT_EQ(test, refcount_read(&a->ref), 0U);
	kfree(a);
}

struct anchor_retire_ctx {
	struct work_struct work;
	struct sroce_anchor *a;
	struct completion started;
	struct completion done;
};

static void anchor_retire_work(struct work_struct *work)
{
	struct anchor_retire_ctx *ctx =
		container_of(work, struct anchor_retire_ctx, work);

	complete(&ctx->started);
	sroce_anchor_retire(ctx->a);
	complete(&ctx->done);
}

/* Destroy waits for a lookup in flight: the object is not freed under it. */
static void anchor_retire_waits_for_lookup(struct kunit *test)
{
	struct anchor_retire_ctx ctx;
	int obj;

	ctx.a = sroce_anchor_new(&obj);
	KUNIT_ASSERT_NOT_NULL(test, ctx.a);
	init_completion(&ctx.started);
	init_completion(&ctx.done);
	KUNIT_ASSERT_PTR_EQ(test, sroce_anchor_tryget(ctx.a), (void *)&obj);

	INIT_WORK_ONSTACK(&ctx.work, anchor_retire_work);
	queue_work(system_unbound_wq, &ctx.work);
	wait_for_completion(&ctx.started);
	/* Time for a retire that did not wait to finish; it must not. */
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&ctx.done));
	sroce_anchor_put(ctx.a);
	wait_for_completion(&ctx.done);
	flush_work(&ctx.work);
	destroy_work_on_stack(&ctx.work);
}

static struct kunit_case sroce_anchor_cases[] = {
	KUNIT_CASE(anchor_tryget_counts),
	KUNIT_CASE(anchor_tryget_after_last_put),
	KUNIT_CASE(anchor_retire_waits_for_lookup),
	{}
};

static struct kunit_suite sroce_anchor_suite = {
	.name		= "sroce_anchor",
	.test_cases	= sroce_anchor_cases,
};

kunit_test_suites(&sroce_anchor_suite);
