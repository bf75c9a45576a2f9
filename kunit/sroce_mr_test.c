// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for memory region checks: the overflow-safe range check and
 * the access check every lookup applies, then key lookup, the SGE copy
 * cursor and atomics end to end on DMA MRs over kernel buffers (bad keys,
 * wrong PD, missing rights, short SGE lists, deregistered MRs).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "sroce_dev.h"
#include "sroce_kunit.h"
#include "sroce_mr.h"

static void range_inside(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_mr_check_range(0x1000, 0x1000, 0x1000, 0x1000));
	KUNIT_EXPECT_TRUE(test, sroce_mr_check_range(0x1000, 0x1000, 0x1800, 0x800));
	KUNIT_EXPECT_TRUE(test, sroce_mr_check_range(0x1000, 0x1000, 0x1fff, 1));
	/* Zero-length accesses at either end. */
	KUNIT_EXPECT_TRUE(test, sroce_mr_check_range(0x1000, 0x1000, 0x1000, 0));
	KUNIT_EXPECT_TRUE(test, sroce_mr_check_range(0x1000, 0x1000, 0x2000, 0));
	/* A DMA MR covers the whole address space but its last byte. */
	KUNIT_EXPECT_TRUE(test, sroce_mr_check_range(0, U64_MAX, 0, U64_MAX));
	KUNIT_EXPECT_TRUE(test, sroce_mr_check_range(0, U64_MAX, U64_MAX - 8, 8));
}

static void range_outside(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_range(0x1000, 0x1000, 0xfff, 1));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_range(0x1000, 0x1000, 0xfff, 0x1000));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_range(0x1000, 0x1000, 0x1801, 0x800));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_range(0x1000, 0x1000, 0x2000, 1));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_range(0x1000, 0x1000, 0x2001, 0));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_range(0x1000, 0x1000, 0x1000, 0x1001));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_range(0x1000, 0, 0x1000, 1));
}

/* Values whose naive sums wrap around 2^64 and land inside the MR. */
static void range_overflow(struct kunit *test)
{
	/* iova + len wraps to 0x1000. */
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_range(0x1000, 0x1000, 0x1800,
						      U64_MAX - 0x7ff));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_range(0x1000, 0x1000, U64_MAX, 2));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_range(0x1000, 0x1000, 0x1000,
						      U64_MAX));
	/* An MR at the top of the address space. */
	KUNIT_EXPECT_TRUE(test, sroce_mr_check_range(U64_MAX - 0xff, 0x100,
						     U64_MAX - 0xff, 0x100));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_range(U64_MAX - 0xff, 0x100,
						      U64_MAX - 7, 16));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_range(0, U64_MAX, 1, U64_MAX));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_range(0, U64_MAX, U64_MAX, 1));
}

static void access_flags(struct kunit *test)
{
	/* Local reads need no right at all. */
	KUNIT_EXPECT_TRUE(test, sroce_mr_check_access(0, 0));
	KUNIT_EXPECT_TRUE(test, sroce_mr_check_access(IB_ACCESS_LOCAL_WRITE,
						      IB_ACCESS_LOCAL_WRITE));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_access(IB_ACCESS_REMOTE_READ,
						       IB_ACCESS_LOCAL_WRITE));
	KUNIT_EXPECT_TRUE(test, sroce_mr_check_access(IB_ACCESS_LOCAL_WRITE |
						      IB_ACCESS_REMOTE_WRITE |
						      IB_ACCESS_REMOTE_READ,
						      IB_ACCESS_REMOTE_WRITE));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_access(IB_ACCESS_LOCAL_WRITE |
						       IB_ACCESS_REMOTE_WRITE,
						       IB_ACCESS_REMOTE_READ));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_access(IB_ACCESS_REMOTE_WRITE,
						       IB_ACCESS_REMOTE_WRITE |
						       IB_ACCESS_REMOTE_ATOMIC));
	KUNIT_EXPECT_FALSE(test, sroce_mr_check_access(IB_ACCESS_LOCAL_WRITE,
						       IB_ACCESS_REMOTE_ATOMIC));
}

/* A device with just what the MR code uses, and two PDs on it. */
struct mr_test {
	struct sroce_dev *sdev;
	struct ib_pd pd, other_pd;
};

static int mr_test_init(struct kunit *test)
{
	struct mr_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->sdev = mr_test_dev(test, &t->pd, &t->other_pd);
	test->priv = t;
	return 0;
}

static void mr_test_exit(struct kunit *test)
{
	struct mr_test *t = test->priv;

	sroce_mr_cleanup(t->sdev);
}

/* An atomic through the MR's rkey; returns the value found. */
static u64 atomic_op(struct kunit *test, struct mr_test *t,
		     struct sroce_mr *mr, u64 *word, bool cmp_swap,
		     u64 compare, u64 swap_add)
{
	struct sroce_mr_op op = {
		.kind = cmp_swap ? SROCE_MR_OP_CMP_SWAP : SROCE_MR_OP_FETCH_ADD,
		.len = sizeof(*word),
		.compare = compare,
		.swap_add = swap_add,
	};

	KUNIT_EXPECT_EQ(test, sroce_mr_access(mr, &t->pd, mr->rkey, true,
					      IB_ACCESS_REMOTE_ATOMIC,
					      (uintptr_t)word, &op), 0);
	return op.orig;
}

static void keys_and_lookup(struct kunit *test)
{
	struct mr_test *t = test->priv;
	struct sroce_mr *local, *remote, *got;

	local = dma_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE);
	remote = dma_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE |
			IB_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, local->ibmr.lkey >> 8, 1U);
	KUNIT_EXPECT_EQ(test, remote->ibmr.lkey >> 8, 2U);
	/* No remote right, no rkey. */
	KUNIT_EXPECT_EQ(test, local->ibmr.rkey, 0U);
	KUNIT_EXPECT_EQ(test, remote->ibmr.rkey, remote->ibmr.lkey);

	got = sroce_mr_lookup(t->sdev, local->ibmr.lkey);
	KUNIT_EXPECT_PTR_EQ(test, got, local);
	if (got)
		sroce_mr_put(got);
	KUNIT_EXPECT_TRUE(test, key_ok(t->sdev, &t->pd, local->ibmr.lkey, false,
				       IB_ACCESS_LOCAL_WRITE, 0x1000, 8));
	/* Remote lookups need the rkey and the remote right. */
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, local->ibmr.lkey, true,
					0, 0x1000, 8));
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, 0, true, 0, 0x1000,
					8));
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, remote->ibmr.rkey,
					true, IB_ACCESS_REMOTE_READ, 0x1000,
					8));
	KUNIT_EXPECT_TRUE(test, key_ok(t->sdev, &t->pd, remote->ibmr.rkey, true,
				       IB_ACCESS_REMOTE_WRITE, 0x1000, 8));
	/* Right index, wrong random byte; wrong PD; out of range. */
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd,
					local->ibmr.lkey ^ 0x80, false, 0,
					0x1000, 8));
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->other_pd, local->ibmr.lkey,
					false, 0, 0x1000, 8));
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, local->ibmr.lkey,
					false, 0, U64_MAX - 4, 8));

	/* Deregistered: the key names nothing any more. */
	KUNIT_EXPECT_EQ(test, sroce_dereg_mr(&local->ibmr, NULL), 0);
	KUNIT_EXPECT_EQ(test, sroce_dereg_mr(&remote->ibmr, NULL), 0);
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, remote->ibmr.lkey,
					false, 0, 0x1000, 8));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->sdev->num_mrs), 0);
}

static void sge_copy_gathers_and_scatters(struct kunit *test)
{
	struct mr_test *t = test->priv;
	struct sroce_mr *ro, *rw;
	struct sroce_sge_cursor c;
	struct ib_sge sge[3];
	u8 *src, *dst, out[24];
	u32 i;

	src = kunit_kzalloc(test, 16, GFP_KERNEL);
	dst = kunit_kzalloc(test, 16, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	for (i = 0; i < 16; i++)
		src[i] = i + 1;
	ro = dma_mr(test, &t->pd, 0);
	rw = dma_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE);

	sge[0] = (struct ib_sge){ .addr = (uintptr_t)src, .length = 10,
				  .lkey = ro->ibmr.lkey };
	sge[1] = (struct ib_sge){ .addr = 0, .length = 0, .lkey = 0 };
	sge[2] = (struct ib_sge){ .addr = (uintptr_t)src + 10, .length = 6,
				  .lkey = ro->ibmr.lkey };

	/* Gather in two pieces across the SGE boundary and the empty SGE. */
	sroce_sge_cursor_init(&c, sge, 3);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(t->sdev, &t->pd, &c, out, 7, 0,
					     SROCE_FROM_MR), 0);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(t->sdev, &t->pd, &c, out + 7, 9, 0,
					     SROCE_FROM_MR), 0);
	KUNIT_EXPECT_EQ(test, memcmp(out, src, 16), 0);
	KUNIT_EXPECT_EQ(test, c.cur, 2U);
	KUNIT_EXPECT_EQ(test, c.offset, 6U);

	/* One byte past the list: LOC_LEN_ERR, cursor unmoved. */
	sroce_sge_cursor_init(&c, sge, 3);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(t->sdev, &t->pd, &c, out, 17, 0,
					     SROCE_FROM_MR), -EINVAL);
	KUNIT_EXPECT_EQ(test, c.cur, 0U);
	KUNIT_EXPECT_EQ(test, c.offset, 0U);

	/* Scattering into a read-only MR is refused before a byte moves. */
	sroce_sge_cursor_init(&c, sge, 1);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(t->sdev, &t->pd, &c, out, 4,
					     IB_ACCESS_LOCAL_WRITE,
					     SROCE_TO_MR), -EFAULT);
	KUNIT_EXPECT_EQ(test, src[0], 1);

	/* Other PD, bad key. */
	sroce_sge_cursor_init(&c, sge, 1);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(t->sdev, &t->other_pd, &c, out, 4,
					     0, SROCE_FROM_MR), -EFAULT);
	sge[0].lkey ^= 0x100;
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(t->sdev, &t->pd, &c, out, 4, 0,
					     SROCE_FROM_MR), -EFAULT);

	/* Scatter through the writable MR. */
	sge[0] = (struct ib_sge){ .addr = (uintptr_t)dst, .length = 16,
				  .lkey = rw->ibmr.lkey };
	sroce_sge_cursor_init(&c, sge, 1);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(t->sdev, &t->pd, &c, src, 16,
					     IB_ACCESS_LOCAL_WRITE,
					     SROCE_TO_MR), 0);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, 16), 0);

	sroce_dereg_mr(&ro->ibmr, NULL);
	sroce_dereg_mr(&rw->ibmr, NULL);
}

static void atomics(struct kunit *test)
{
	struct sroce_mr_op denied = {
		.kind = SROCE_MR_OP_FETCH_ADD, .len = 8, .swap_add = 1,
	};
	struct mr_test *t = test->priv;
	struct sroce_mr *mr;
	u64 *word, orig;

	word = kunit_kzalloc(test, 2 * sizeof(*word), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, word);
	mr = dma_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE |
		    IB_ACCESS_REMOTE_ATOMIC);
	word[1] = 40;

	orig = atomic_op(test, t, mr, &word[1], false, 0, 2);
	KUNIT_EXPECT_EQ(test, orig, 40ULL);
	KUNIT_EXPECT_EQ(test, word[1], 42ULL);

	/* Compare fails: nothing written. */
	orig = atomic_op(test, t, mr, &word[1], true, 41, 7);
	KUNIT_EXPECT_EQ(test, orig, 42ULL);
	KUNIT_EXPECT_EQ(test, word[1], 42ULL);

	orig = atomic_op(test, t, mr, &word[1], true, 42, 7);
	KUNIT_EXPECT_EQ(test, orig, 42ULL);
	KUNIT_EXPECT_EQ(test, word[1], 7ULL);
	KUNIT_EXPECT_EQ(test, word[0], 0ULL);

	/* Add wraps modulo 2^64 (IBTA 9.4.5). */
	word[0] = U64_MAX;
	orig = atomic_op(test, t, mr, &word[0], false, 0, 3);
	KUNIT_EXPECT_EQ(test, orig, U64_MAX);
	KUNIT_EXPECT_EQ(test, word[0], 2ULL);

	/* A right the MR does not grant: nothing changes, nothing is read. */
	denied.orig = 0x5a5a;
	KUNIT_EXPECT_EQ(test, sroce_mr_access(mr, &t->pd, mr->rkey, true,
					      IB_ACCESS_REMOTE_WRITE,
					      (uintptr_t)word, &denied),
			-EACCES);
	KUNIT_EXPECT_EQ(test, denied.orig, 0x5a5aULL);
	KUNIT_EXPECT_EQ(test, word[0], 2ULL);

	sroce_dereg_mr(&mr->ibmr, NULL);
}

static u64 load_u64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* An RDMA ATOMIC WRITE through the MR's rkey, as the responder asks it. */
static int atomic_write_op(struct mr_test *t, struct sroce_mr *mr, u32 rkey,
			   u64 iova, u64 val)
{
	struct sroce_mr_op op = {
		.kind = SROCE_MR_OP_ATOMIC_WRITE,
		.len = sizeof(u64),
		.swap_add = val,
	};

	return sroce_mr_access(mr, &t->pd, rkey, true, IB_ACCESS_REMOTE_WRITE,
			       iova, &op);
}

static void atomic_write(struct kunit *test)
{
	static const u8 bytes[8] = {
		0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6, 0x07, 0x18,
	};
	struct mr_test *t = test->priv;
	struct sroce_mr *mr, *atomic_only;
	u64 *word, val;

	word = kunit_kzalloc(test, 3 * sizeof(*word), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, word);
	mr = dma_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE |
		    IB_ACCESS_REMOTE_WRITE);
	atomic_only = dma_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE |
			     IB_ACCESS_REMOTE_ATOMIC);

	/* The 8 bytes land as they came, only there. */
	memcpy(&val, bytes, sizeof(val));
	KUNIT_EXPECT_EQ(test, atomic_write_op(t, mr, mr->rkey,
					      (uintptr_t)&word[1], val), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&word[1], bytes, sizeof(bytes)), 0);
	KUNIT_EXPECT_EQ(test, word[0], 0ULL);
	KUNIT_EXPECT_EQ(test, word[2], 0ULL);
	KUNIT_EXPECT_EQ(test, atomic_write_op(t, mr, mr->rkey,
					      (uintptr_t)&word[1], U64_MAX), 0);
	KUNIT_EXPECT_EQ(test, word[1], U64_MAX);
	KUNIT_EXPECT_EQ(test, atomic_write_op(t, mr, mr->rkey,
					      (uintptr_t)&word[1], 0), 0);
	KUNIT_EXPECT_EQ(test, word[1], 0ULL);

	/* Remote write is the right it needs; atomic alone does not do. */
	KUNIT_EXPECT_EQ(test, atomic_write_op(t, atomic_only, atomic_only->rkey,
					      (uintptr_t)&word[1], 5), -EACCES);
	/* Wrong key byte, wrong PD, beyond the region: nothing lands. */
	KUNIT_EXPECT_EQ(test, atomic_write_op(t, mr, mr->rkey ^ 0x80,
					      (uintptr_t)&word[1], 5), -EACCES);
	KUNIT_EXPECT_EQ(test, atomic_write_op(t, mr, mr->rkey, U64_MAX - 3, 5),
			-EACCES);
	mr->ibmr.pd = &t->other_pd;
	KUNIT_EXPECT_EQ(test, atomic_write_op(t, mr, mr->rkey,
					      (uintptr_t)&word[1], 5), -EACCES);
	mr->ibmr.pd = &t->pd;
	KUNIT_EXPECT_EQ(test, word[1], 0ULL);

	sroce_dereg_mr(&mr->ibmr, NULL);
	sroce_dereg_mr(&atomic_only->ibmr, NULL);
}

/*
 * The store's own guard: memory that is not 8-byte aligned behind an
 * aligned iova (no real MR presents it; a FAST MR with a hand-made page
 * list can) is refused with -EINVAL, untouched; the same MR on an aligned
 * block takes the store.
 */
/*
 * A valid FAST MR with key 0x1234 at iova 0x10000, 256 bytes, @access, on
 * the one-block page list @pages, as IB_WR_REG_MR leaves one.
 */
static struct sroce_mr *fast_mr(struct kunit *test, struct ib_pd *pd,
				int access, u64 *pages)
{
	struct sroce_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mr);
	spin_lock_init(&mr->lock);
	mr->type = SROCE_MR_FAST;
	mr->ibmr.pd = pd;
	mr->valid = true;
	mr->lkey = 0x1234;
	mr->rkey = 0x1234;
	mr->access = access;
	mr->iova = 0x10000;
	mr->length = 256;
	mr->map.pages = pages;
	mr->map.npages = 1;
	mr->map.page_shift = PAGE_SHIFT;
	return mr;
}

static void atomic_write_refuses_misaligned_memory(struct kunit *test)
{
	struct mr_test *t = test->priv;
	struct sroce_mr *mr;
	u64 pages[1];
	u8 *mem;

	mem = kunit_kzalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	memset(mem, 0x5a, 2 * PAGE_SIZE);
	mr = fast_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE |
		     IB_ACCESS_REMOTE_WRITE, pages);

	pages[0] = (uintptr_t)mem + 4;
	KUNIT_EXPECT_EQ(test, atomic_write_op(t, mr, 0x1234, 0x10008, 7),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mem[12], 0x5a);
	KUNIT_EXPECT_EQ(test, mem[19], 0x5a);

	pages[0] = (uintptr_t)mem;
	KUNIT_EXPECT_EQ(test, atomic_write_op(t, mr, 0x1234, 0x10008, 7), 0);
	KUNIT_EXPECT_EQ(test, load_u64(mem + 8), 7ULL);
	KUNIT_EXPECT_EQ(test, mem[7], 0x5a);
	KUNIT_EXPECT_EQ(test, mem[16], 0x5a);
}

/*
 * CMP_SWAP and FETCH_ADD refuse misaligned memory behind an aligned iova
 * too (-EINVAL, nothing read or written): moved in two pieces, an ODP
 * invalidation between them could leave half a value that the retry of
 * the miss would then update again.
 */
static void atomics_refuse_misaligned_memory(struct kunit *test)
{
	struct mr_test *t = test->priv;
	struct sroce_mr_op op = {
		.kind = SROCE_MR_OP_FETCH_ADD, .len = 8, .swap_add = 1,
		.orig = 0x77,
	};
	struct sroce_mr *mr;
	u64 pages[1];
	u8 *mem;

	mem = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	memset(mem, 0x5a, PAGE_SIZE);
	mr = fast_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE |
		     IB_ACCESS_REMOTE_ATOMIC, pages);

	pages[0] = (uintptr_t)mem + 4;
	KUNIT_EXPECT_EQ(test, sroce_mr_access(mr, &t->pd, 0x1234, true,
					      IB_ACCESS_REMOTE_ATOMIC, 0x10008,
					      &op), -EINVAL);
	op.kind = SROCE_MR_OP_CMP_SWAP;
	op.compare = 0x5a5a5a5a5a5a5a5aULL;
	KUNIT_EXPECT_EQ(test, sroce_mr_access(mr, &t->pd, 0x1234, true,
					      IB_ACCESS_REMOTE_ATOMIC, 0x10008,
					      &op), -EINVAL);
	KUNIT_EXPECT_EQ(test, op.orig, 0x77ULL);
	KUNIT_EXPECT_EQ(test, load_u64(mem + 12), 0x5a5a5a5a5a5a5a5aULL);

	pages[0] = (uintptr_t)mem;
	KUNIT_EXPECT_EQ(test, sroce_mr_access(mr, &t->pd, 0x1234, true,
					      IB_ACCESS_REMOTE_ATOMIC, 0x10008,
					      &op), 0);
	KUNIT_EXPECT_EQ(test, op.orig, 0x5a5a5a5a5a5a5a5aULL);
	KUNIT_EXPECT_EQ(test, load_u64(mem + 8), 1ULL);
	KUNIT_EXPECT_EQ(test, mem[7], 0x5a);
	KUNIT_EXPECT_EQ(test, mem[16], 0x5a);
}

/*
 * A FAST MR's rkey field holds its key whatever its rights: a peer's
 * SEND with Invalidate may name it only when the registration granted
 * remote access; the consumer's own LOCAL_INV always may.
 */
static void remote_invalidate_needs_remote_access(struct kunit *test)
{
	struct mr_test *t = test->priv;
	struct sroce_mr *local, *remote;
	u64 pages[1] = { 0 };

	local = fast_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE, pages);
	remote = fast_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE |
			 IB_ACCESS_REMOTE_READ, pages);

	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(local, &t->pd, 0x1234, true),
			-EINVAL);
	KUNIT_EXPECT_TRUE(test, local->valid);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(local, &t->pd, 0x1234,
						  false), 0);
	KUNIT_EXPECT_FALSE(test, local->valid);

	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(remote, &t->pd, 0x1235, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(remote, &t->other_pd, 0x1234,
						  true), -EINVAL);
	KUNIT_EXPECT_TRUE(test, remote->valid);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(remote, &t->pd, 0x1234, true),
			0);
	KUNIT_EXPECT_FALSE(test, remote->valid);
}

static struct kunit_case sroce_mr_cases[] = {
	KUNIT_CASE(range_inside),
	KUNIT_CASE(range_outside),
	KUNIT_CASE(range_overflow),
	KUNIT_CASE(access_flags),
	KUNIT_CASE(keys_and_lookup),
	KUNIT_CASE(sge_copy_gathers_and_scatters),
	KUNIT_CASE(atomics),
	KUNIT_CASE(atomic_write),
	KUNIT_CASE(atomic_write_refuses_misaligned_memory),
	KUNIT_CASE(atomics_refuse_misaligned_memory),
	KUNIT_CASE(remote_invalidate_needs_remote_access),
	{}
};

static struct kunit_suite sroce_mr_suite = {
	.name		= "sroce_mr",
	.init		= mr_test_init,
	.exit		= mr_test_exit,
	.test_cases	= sroce_mr_cases,
};

kunit_test_suites(&sroce_mr_suite);
