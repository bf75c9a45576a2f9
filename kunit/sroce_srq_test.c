// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the pure parts of shared receive queues: when the limit
 * event fires, and how a resize moves the posted WQEs into the new ring
 * (order, wrap-around, indices, refusal when they do not fit).
 */
#include <kunit/test.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "sroce_queue.h"
#include "sroce_srq.h"

static void srq_limit(struct kunit *test)
{
	/* Disarmed: never, whatever is left. */
	KUNIT_EXPECT_FALSE(test, sroce_srq_limit_hit(0, 0));
	KUNIT_EXPECT_FALSE(test, sroce_srq_limit_hit(0, 5));
	/* Armed at 4: fires below 4, not at 4. */
	KUNIT_EXPECT_FALSE(test, sroce_srq_limit_hit(4, 5));
	KUNIT_EXPECT_FALSE(test, sroce_srq_limit_hit(4, 4));
	KUNIT_EXPECT_TRUE(test, sroce_srq_limit_hit(4, 3));
	KUNIT_EXPECT_TRUE(test, sroce_srq_limit_hit(4, 0));
	KUNIT_EXPECT_TRUE(test, sroce_srq_limit_hit(1, 0));
	KUNIT_EXPECT_FALSE(test, sroce_srq_limit_hit(1, 1));
}

/* A kernel ring of @depth receive WQEs with 2 SGEs each. */
static void ring_init(struct kunit *test, struct sroce_queue *q, u32 depth)
{
	u32 d = depth;

	KUNIT_ASSERT_EQ(test, sroce_queue_init(q, NULL, &d,
					       sizeof(struct rxe_recv_wqe) +
					       2 * sizeof(struct rxe_sge),
					       SROCE_QUEUE_FROM_USER), 0);
	KUNIT_ASSERT_EQ(test, d, depth);
}

static struct rxe_recv_wqe *slot(struct sroce_queue *q, u32 i)
{
	return (void *)(q->buf->data + ((size_t)i << q->log2_elem_size));
}

/* Post @n WQEs with wr_id base + i as a provider would. */
static void ring_post(struct sroce_queue *q, u32 n, u64 base)
{
	u32 prod = q->buf->producer_index;
	u32 i;

	for (i = 0; i < n; i++) {
		struct rxe_recv_wqe *w = slot(q, prod);

		w->wr_id = base + i;
		w->dma.num_sge = 2;
		w->dma.sge[1].length = 100 + i;
		prod = (prod + 1) & q->index_mask;
	}
	q->buf->producer_index = prod;
}

static void srq_copy_ring(struct kunit *test)
{
	struct sroce_queue src, dst;
	u32 i;

	/* 7 WQEs, 3 of them consumed: 4 left at slots 3..6. */
	ring_init(test, &src, 7);
	ring_post(&src, 7, 1000);
	for (i = 0; i < 3; i++)
		sroce_queue_advance_consumer(&src);
	/* Wrap: 3 more at slots 7, 0, 1. */
	ring_post(&src, 3, 2000);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(&src), 7U);

	ring_init(test, &dst, 15);
	KUNIT_EXPECT_EQ(test, sroce_srq_copy_ring(&dst, &src), 7);
	KUNIT_EXPECT_EQ(test, dst.index, 0U);
	KUNIT_EXPECT_EQ(test, dst.buf->consumer_index, 0U);
	KUNIT_EXPECT_EQ(test, dst.buf->producer_index, 7U);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(&dst), 7U);
	KUNIT_EXPECT_EQ(test, slot(&dst, 0)->wr_id, 1003ULL);
	KUNIT_EXPECT_EQ(test, slot(&dst, 3)->wr_id, 1006ULL);
	KUNIT_EXPECT_EQ(test, slot(&dst, 4)->wr_id, 2000ULL);
	KUNIT_EXPECT_EQ(test, slot(&dst, 6)->wr_id, 2002ULL);
	/* The SGEs travel with the WQE. */
	KUNIT_EXPECT_EQ(test, slot(&dst, 0)->dma.num_sge, 2U);
	KUNIT_EXPECT_EQ(test, slot(&dst, 0)->dma.sge[1].length, 103U);
	KUNIT_EXPECT_EQ(test, slot(&dst, 6)->dma.sge[1].length, 102U);
	sroce_queue_cleanup(&dst);

	/* Exactly full: 7 fit a ring of capacity 7. */
	ring_init(test, &dst, 7);
	KUNIT_EXPECT_EQ(test, sroce_srq_copy_ring(&dst, &src), 7);
	sroce_queue_cleanup(&dst);

	/* Shrinking below what is posted is refused, nothing published. */
	ring_init(test, &dst, 3);
	KUNIT_EXPECT_EQ(test, sroce_srq_copy_ring(&dst, &src), -ENOSPC);
	KUNIT_EXPECT_EQ(test, dst.buf->producer_index, 0U);
	sroce_queue_cleanup(&dst);

	/* An empty SRQ moves nothing. */
	for (i = 0; i < 7; i++)
		sroce_queue_advance_consumer(&src);
	ring_init(test, &dst, 1);
	KUNIT_EXPECT_EQ(test, sroce_srq_copy_ring(&dst, &src), 0);
	KUNIT_EXPECT_EQ(test, dst.buf->producer_index, 0U);
	sroce_queue_cleanup(&dst);
	sroce_queue_cleanup(&src);
}

static struct kunit_case sroce_srq_cases[] = {
	KUNIT_CASE(srq_limit),
	KUNIT_CASE(srq_copy_ring),
	{}
};

static struct kunit_suite sroce_srq_suite = {
	.name		= "sroce_srq",
	.test_cases	= sroce_srq_cases,
};

kunit_test_suites(&sroce_srq_suite);
