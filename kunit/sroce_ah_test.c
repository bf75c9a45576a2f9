// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the AH table: numbers start at 1 and are handed out
 * cyclically within the limit, and inserting and erasing leave the
 * caller's interrupt state alone, because ib_cm creates and destroys AHs
 * under spin_lock_irqsave() (xa_alloc_cyclic_irq() and xa_erase_irq()
 * would turn interrupts back on there). Without RDMA_CREATE_AH_SLEEPABLE
 * nothing may sleep.
 */
#include <kunit/test.h>
#include <linux/irqflags.h>
#include <linux/xarray.h>

#include "sroce_ah.h"

static void ah_gfp_follows_sleepable(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test,
			  sroce_ah_gfp(RDMA_CREATE_AH_SLEEPABLE) == GFP_KERNEL);
	KUNIT_EXPECT_TRUE(test, sroce_ah_gfp(0) == GFP_ATOMIC);
}

/* What ib_cm does: create and destroy an AH with interrupts saved off. */
static void ah_table_keeps_irqs_off(struct kunit *test)
{
	struct sroce_ah *ah = kunit_kzalloc(test, 2 * sizeof(*ah), GFP_KERNEL);
	DEFINE_XARRAY_FLAGS(xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	unsigned long flags;
	bool off_after_insert, off_after_erase;
	u32 next = 1;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, ah);
	local_irq_save(flags);
	err = sroce_ah_table_insert(&xa, &ah[0], 8, &next,
				    sroce_ah_gfp(0));
	off_after_insert = irqs_disabled();
	sroce_ah_table_erase(&xa, ah[0].ah_num);
	off_after_erase = irqs_disabled();
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, ah[0].ah_num, 1U);
	KUNIT_EXPECT_TRUE(test, off_after_insert);
	KUNIT_EXPECT_TRUE(test, off_after_erase);
	KUNIT_EXPECT_TRUE(test, xa_empty(&xa));

	/* And with interrupts on they stay on. */
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	KUNIT_EXPECT_GE(test, sroce_ah_table_insert(&xa, &ah[1], 8, &next,
						    GFP_KERNEL), 0);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	sroce_ah_table_erase(&xa, ah[1].ah_num);
	xa_destroy(&xa);
}

static void ah_numbers_cycle_within_limit(struct kunit *test)
{
	struct sroce_ah *ah = kunit_kcalloc(test, 4, sizeof(*ah), GFP_KERNEL);
	DEFINE_XARRAY_FLAGS(xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	u32 next = 1;

	KUNIT_ASSERT_NOT_NULL(test, ah);
	KUNIT_EXPECT_EQ(test, sroce_ah_table_insert(&xa, &ah[0], 3, &next,
						    GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, sroce_ah_table_insert(&xa, &ah[1], 3, &next,
						    GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, sroce_ah_table_insert(&xa, &ah[2], 3, &next,
						    GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, ah[0].ah_num, 1U);
	KUNIT_EXPECT_EQ(test, ah[1].ah_num, 2U);
	KUNIT_EXPECT_EQ(test, ah[2].ah_num, 3U);
	/* Full: 0 is never used (the rxe ABI's "no AH"). */
	KUNIT_EXPECT_EQ(test, sroce_ah_table_insert(&xa, &ah[3], 3, &next,
						    GFP_KERNEL), -EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&xa, 2), (void *)&ah[1]);

	/* A freed number is reused only after the cursor wrapped. */
	sroce_ah_table_erase(&xa, 2);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&xa, 2), NULL);
	KUNIT_EXPECT_GE(test, sroce_ah_table_insert(&xa, &ah[3], 3, &next,
						    GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, ah[3].ah_num, 2U);
	xa_destroy(&xa);
}

static struct kunit_case sroce_ah_cases[] = {
	KUNIT_CASE(ah_gfp_follows_sleepable),
	KUNIT_CASE(ah_table_keeps_irqs_off),
	KUNIT_CASE(ah_numbers_cycle_within_limit),
	{}
};

static struct kunit_suite sroce_ah_suite = {
	.name		= "sroce_ah",
	.test_cases	= sroce_ah_cases,
};

kunit_test_suites(&sroce_ah_suite);
