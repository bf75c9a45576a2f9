// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for fast registration and memory windows: the page list
 * arithmetic of FAST MRs (exact addresses across blocks), map_mr_sg and
 * IB_WR_REG_MR with key tags and access checks, invalidation rules, the
 * bind rules of IBTA 10.6.7 with the exact completion status of each, and
 * R_Key resolution through a window (bounds, rights, PD, type 2B QP).
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "sroce_dev.h"
#include "sroce_kunit.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_qp.h"

/* A device with what the MR and MW code use, two PDs and two QPs. */
struct mw_test {
	struct sroce_dev *sdev;
	struct ib_pd pd, other_pd;
	struct sroce_qp *qp, *qp2, *other_qp;
	struct sroce_swqe *wqe;
};

static struct sroce_qp *mw_test_qp(struct kunit *test, struct ib_pd *pd,
				   u32 qpn)
{
	struct sroce_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->ibqp.device = pd->device;
	qp->ibqp.pd = pd;
	qp->ibqp.qp_num = qpn;
	qp->ibqp.qp_type = IB_QPT_RC;
	qp->serial = qpn;
	return qp;
}

static int mw_test_init(struct kunit *test)
{
	struct mw_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->sdev = mr_test_dev(test, &t->pd, &t->other_pd);
	t->qp = mw_test_qp(test, &t->pd, 17);
	t->qp2 = mw_test_qp(test, &t->pd, 18);
	t->other_qp = mw_test_qp(test, &t->other_pd, 19);
	t->wqe = kunit_kzalloc(test, sizeof(*t->wqe), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->wqe);
	test->priv = t;
	return 0;
}

static void mw_test_exit(struct kunit *test)
{
	struct mw_test *t = test->priv;

	sroce_mr_cleanup(t->sdev);
}

/* Block addresses of iova offsets, with a first block entered mid-way. */
static void map_addresses(struct kunit *test)
{
	u64 pages[3] = { 0x10000, 0x30000, 0x20000 };
	struct sroce_mr_map map = {
		.pages = pages, .npages = 3, .page_shift = 12,
	};
	u64 iova = 0x7000234;
	u32 room;

	KUNIT_EXPECT_EQ(test, sroce_mr_map_addr(&map, iova, iova, &room),
			0x10234ULL);
	KUNIT_EXPECT_EQ(test, room, 0xdccU);
	KUNIT_EXPECT_EQ(test, sroce_mr_map_addr(&map, iova, iova + 0xdcb,
						&room), 0x10fffULL);
	KUNIT_EXPECT_EQ(test, room, 1U);
	KUNIT_EXPECT_EQ(test, sroce_mr_map_addr(&map, iova, iova + 0xdcc,
						&room), 0x30000ULL);
	KUNIT_EXPECT_EQ(test, room, 0x1000U);
	KUNIT_EXPECT_EQ(test, sroce_mr_map_addr(&map, iova, 0x7002010,
						&room), 0x20010ULL);
	KUNIT_EXPECT_EQ(test, room, 0xff0U);
	/* Past the list: refused rather than read out of bounds. */
	KUNIT_EXPECT_EQ(test, sroce_mr_map_addr(&map, iova, 0x7003000,
						&room), 0ULL);

	/* 64 KiB blocks. */
	map.page_shift = 16;
	KUNIT_EXPECT_EQ(test, sroce_mr_map_addr(&map, 0x1f000, 0x2f001,
						&room), 0x3f001ULL);
	KUNIT_EXPECT_EQ(test, room, 0xfffU);
}

static struct sroce_mr *fast_mr(struct kunit *test, struct ib_pd *pd,
				u32 max_sg)
{
	struct ib_mr *ibmr = sroce_alloc_mr(pd, IB_MR_TYPE_MEM_REG, max_sg);

	KUNIT_ASSERT_FALSE(test, IS_ERR(ibmr));
	/* What ib_alloc_mr() fills in around the driver. */
	ibmr->device = pd->device;
	ibmr->pd = pd;
	ibmr->type = IB_MR_TYPE_MEM_REG;
	return to_smr(ibmr);
}

/* Map three pages, entered 100 bytes in, as the core's ib_map_mr_sg(). */
static int map_pages(struct sroce_mr *mr, struct page **pg, u32 n)
{
	struct scatterlist sg[3];
	unsigned int off = 100;
	u32 i;

	sg_init_table(sg, n);
	for (i = 0; i < n; i++) {
		sg_set_page(&sg[i], pg[i], PAGE_SIZE, 0);
		/* sroce has no DMA device: DMA addresses are virtual. */
		sg_dma_address(&sg[i]) = (u64)(uintptr_t)page_address(pg[i]);
		sg_dma_len(&sg[i]) = PAGE_SIZE;
	}
	mr->ibmr.page_size = PAGE_SIZE;
	return sroce_map_mr_sg(&mr->ibmr, sg, n, &off);
}

static void fast_reg_and_invalidate(struct kunit *test)
{
	struct mw_test *t = test->priv;
	const int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	struct sroce_mr *mr, *dma;
	struct page *pg[3];
	u8 data[200];
	u32 key, i;
	u64 va;

	for (i = 0; i < 3; i++) {
		pg[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, pg[i]);
	}
	mr = fast_mr(test, &t->pd, 4);
	key = mr->lkey;
	KUNIT_EXPECT_EQ(test, mr->ibmr.rkey, mr->ibmr.lkey);

	/* Not registered yet: no access at all; never mapped: no REG_MR. */
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, key, false, 0, 0, 0));
	KUNIT_EXPECT_EQ(test, sroce_mr_reg_fast(mr, &t->pd, key, rw),
			IB_WC_LOC_QP_OP_ERR);

	KUNIT_ASSERT_EQ(test, map_pages(mr, pg, 3), 3);
	va = (u64)(uintptr_t)page_address(pg[0]) + 100;
	KUNIT_EXPECT_EQ(test, mr->ibmr.iova, va);
	KUNIT_EXPECT_EQ(test, mr->ibmr.length, 3 * PAGE_SIZE - 100);
	KUNIT_EXPECT_EQ(test, mr->next_map.npages, 3U);

	/* REG_MR refusals: other PD, remote write without local write. */
	KUNIT_EXPECT_EQ(test, sroce_mr_reg_fast(mr, &t->other_pd, key, rw),
			IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, sroce_mr_reg_fast(mr, &t->pd, key,
						IB_ACCESS_REMOTE_WRITE),
			IB_WC_LOC_QP_OP_ERR);
	/* Only the low 8 bits of the key are the consumer's. */
	KUNIT_EXPECT_EQ(test, sroce_mr_reg_fast(mr, &t->pd, 0xabcdef5a, rw),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mr->lkey, (key & ~0xffU) | 0x5a);
	KUNIT_EXPECT_EQ(test, mr->rkey, mr->lkey);
	/* Registering a valid region again is an error. */
	KUNIT_EXPECT_EQ(test, sroce_mr_reg_fast(mr, &t->pd, 0x5b, rw),
			IB_WC_LOC_QP_OP_ERR);

	/* The old key is dead, the new one grants exactly its rights. */
	if ((key & 0xff) != 0x5a)
		KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, key, true,
						IB_ACCESS_REMOTE_WRITE, va, 1));
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, mr->rkey, true,
					IB_ACCESS_REMOTE_READ, va, 1));
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, mr->rkey, true,
					IB_ACCESS_REMOTE_WRITE, va - 1, 1));
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, mr->rkey, true,
					IB_ACCESS_REMOTE_WRITE, va,
					3 * PAGE_SIZE - 99));
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->other_pd, mr->rkey, true,
					IB_ACCESS_REMOTE_WRITE, va, 1));

	/* A write across the first block boundary lands in both pages. */
	for (i = 0; i < sizeof(data); i++)
		data[i] = i + 1;
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, mr->rkey, IB_ACCESS_REMOTE_WRITE,
					va + PAGE_SIZE - 150, data,
					sizeof(data), true), 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(pg[0]))[PAGE_SIZE - 51], 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(pg[0]))[PAGE_SIZE - 50], 1);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(pg[0]))[PAGE_SIZE - 1], 50);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(pg[1]))[0], 51);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(pg[1]))[149], 200);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(pg[1]))[150], 0);

	/* Invalidation: the key must match; DMA MRs cannot be invalidated. */
	KUNIT_EXPECT_EQ(test, sroce_invalidate_key(t->qp, mr->rkey ^ 1, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_invalidate_key(t->other_qp, mr->rkey,
						   true), -EINVAL);
	dma = dma_mr(test, &t->pd, rw);
	KUNIT_EXPECT_EQ(test, sroce_invalidate_key(t->qp, dma->rkey, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_invalidate_key(t->qp, mr->rkey, true), 0);
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, mr->rkey, true,
					IB_ACCESS_REMOTE_WRITE, va, 1));
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, mr->lkey, false, 0, va,
					1));

	/* Re-register over a fresh mapping, now read-only remotely. */
	KUNIT_ASSERT_EQ(test, map_pages(mr, pg + 1, 2), 2);
	KUNIT_EXPECT_EQ(test, sroce_mr_reg_fast(mr, &t->pd, 0x5b,
						IB_ACCESS_REMOTE_READ),
			IB_WC_SUCCESS);
	va = (u64)(uintptr_t)page_address(pg[1]) + 100;
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, mr->rkey, IB_ACCESS_REMOTE_READ,
					va, data, 100, false), 0);
	/* pg[1] holds bytes 51..200 of the earlier write at 0..149. */
	KUNIT_EXPECT_EQ(test, data[0], 151);
	KUNIT_EXPECT_EQ(test, data[49], 200);
	KUNIT_EXPECT_EQ(test, data[50], 0);
	KUNIT_EXPECT_EQ(test, data[99], 0);
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, mr->rkey, true,
					IB_ACCESS_REMOTE_WRITE, va, 1));

	/* Local invalidation through the send queue's local operation. */
	t->wqe->opcode = IB_WR_LOCAL_INV;
	t->wqe->invalidate_rkey = mr->rkey;
	KUNIT_EXPECT_EQ(test, sroce_mw_local_op(t->qp, t->wqe), IB_WC_SUCCESS);
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, mr->rkey, true,
					IB_ACCESS_REMOTE_READ, va, 1));
	t->wqe->invalidate_rkey = 0;
	KUNIT_EXPECT_EQ(test, sroce_mw_local_op(t->qp, t->wqe),
			IB_WC_LOC_QP_OP_ERR);

	/*
	 * Registered again under a new key with no map_mr_sg() between (as
	 * rtrs-srv does for each I/O): the same pages, not an error.
	 */
	KUNIT_EXPECT_EQ(test, sroce_mr_reg_fast(mr, &t->pd, 0x5c,
						IB_ACCESS_REMOTE_READ),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mr->rkey & 0xff, 0x5cU);
	memset(data, 0, sizeof(data));
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, mr->rkey, IB_ACCESS_REMOTE_READ,
					va, data, 100, false), 0);
	KUNIT_EXPECT_EQ(test, data[0], 151);
	KUNIT_EXPECT_EQ(test, data[49], 200);
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, mr->rkey, true,
					IB_ACCESS_REMOTE_READ, va,
					2 * PAGE_SIZE - 99));

	KUNIT_EXPECT_EQ(test, sroce_dereg_mr(&dma->ibmr, NULL), 0);
	KUNIT_EXPECT_EQ(test, sroce_dereg_mr(&mr->ibmr, NULL), 0);
	for (i = 0; i < 3; i++)
		__free_page(pg[i]);
}

/* Each bind rule of IBTA 10.6.7, accepted or refused. */
static void bind_rules(struct kunit *test)
{
	struct mw_test *t = test->priv;
	const int mr_acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND;
	struct ib_pd *pd = &t->pd, *opd = &t->other_pd;
	const u32 cur = 0x1234a7;
	struct sroce_mw_bind b = {
		.addr = 0x1100, .length = 0x100, .mw_rkey = cur,
		.rkey = 0x1234a8, .access = IB_ACCESS_REMOTE_WRITE,
	};
	struct sroce_mw_bind z;

#define CHECK(type, valid, mwpd, bb, have, mrpd, acc, want) \
	KUNIT_EXPECT_EQ(test, sroce_mw_bind_check(type, valid, mwpd, pd, bb, \
						  cur, have, mrpd, acc, \
						  0x1000, 0x1000), want)

	CHECK(IB_MW_TYPE_1, true, pd, &b, true, pd, mr_acc, IB_WC_SUCCESS);
	CHECK(IB_MW_TYPE_2, false, pd, &b, true, pd, mr_acc, IB_WC_SUCCESS);
	/* A type 2 window must be free; a type 1 one re-binds. */
	CHECK(IB_MW_TYPE_2, true, pd, &b, true, pd, mr_acc, IB_WC_MW_BIND_ERR);
	CHECK(IB_MW_TYPE_1, false, pd, &b, true, pd, mr_acc,
	      IB_WC_MW_BIND_ERR);
	/* PDs: window vs QP (C10-72), region vs QP. */
	CHECK(IB_MW_TYPE_2, false, opd, &b, true, pd, mr_acc,
	      IB_WC_MW_BIND_ERR);
	CHECK(IB_MW_TYPE_1, true, pd, &b, true, opd, mr_acc,
	      IB_WC_MW_BIND_ERR);
	/* No usable region behind the lkey. */
	CHECK(IB_MW_TYPE_1, true, pd, &b, false, pd, mr_acc,
	      IB_WC_MW_BIND_ERR);
	/* C10-73: the region must allow binding. */
	CHECK(IB_MW_TYPE_1, true, pd, &b, true, pd, IB_ACCESS_LOCAL_WRITE,
	      IB_WC_MW_BIND_ERR);
	/* C10-74: remote write or atomic needs local write on the region. */
	CHECK(IB_MW_TYPE_2, false, pd, &b, true, pd, IB_ACCESS_MW_BIND,
	      IB_WC_MW_BIND_ERR);
	z = b;
	z.access = IB_ACCESS_REMOTE_ATOMIC;
	CHECK(IB_MW_TYPE_2, false, pd, &z, true, pd, IB_ACCESS_MW_BIND,
	      IB_WC_MW_BIND_ERR);
	z.access = IB_ACCESS_REMOTE_READ;
	CHECK(IB_MW_TYPE_2, false, pd, &z, true, pd, IB_ACCESS_MW_BIND,
	      IB_WC_SUCCESS);
	/* Local write is accepted beside remote rights, nothing else local. */
	z.access = IB_ACCESS_REMOTE_READ | IB_ACCESS_LOCAL_WRITE;
	CHECK(IB_MW_TYPE_1, true, pd, &z, true, pd, mr_acc, IB_WC_SUCCESS);
	z.access = IB_ACCESS_REMOTE_READ | IB_ACCESS_MW_BIND;
	CHECK(IB_MW_TYPE_1, true, pd, &z, true, pd, mr_acc, IB_WC_MW_BIND_ERR);
	/* Zero-based: type 2 only (o10-36.2.2), still inside the region. */
	z.access = IB_ACCESS_REMOTE_READ | IB_ZERO_BASED;
	CHECK(IB_MW_TYPE_1, true, pd, &z, true, pd, mr_acc, IB_WC_MW_BIND_ERR);
	CHECK(IB_MW_TYPE_2, false, pd, &z, true, pd, mr_acc, IB_WC_SUCCESS);
	z.addr = 0x1f01;
	CHECK(IB_MW_TYPE_2, false, pd, &z, true, pd, mr_acc, IB_WC_MW_BIND_ERR);
	/* C10-75: inside the region, to the last byte and not beyond. */
	z = b;
	z.addr = 0x1f00;
	CHECK(IB_MW_TYPE_1, true, pd, &z, true, pd, mr_acc, IB_WC_SUCCESS);
	z.addr = 0x1f01;
	CHECK(IB_MW_TYPE_1, true, pd, &z, true, pd, mr_acc, IB_WC_MW_BIND_ERR);
	z.addr = 0xfff;
	CHECK(IB_MW_TYPE_1, true, pd, &z, true, pd, mr_acc, IB_WC_MW_BIND_ERR);
	z.addr = U64_MAX - 0x7f;
	CHECK(IB_MW_TYPE_1, true, pd, &z, true, pd, mr_acc, IB_WC_MW_BIND_ERR);
	/* Zero length: type 1 unbinds (no region needed), type 2 refuses. */
	z = b;
	z.length = 0;
	CHECK(IB_MW_TYPE_1, true, pd, &z, false, NULL, 0, IB_WC_SUCCESS);
	CHECK(IB_MW_TYPE_2, false, pd, &z, true, pd, mr_acc,
	      IB_WC_MW_BIND_ERR);
	/* Keys: the current one names the window; only the tag changes. */
	z = b;
	z.mw_rkey = cur + 1;
	CHECK(IB_MW_TYPE_1, true, pd, &z, true, pd, mr_acc, IB_WC_MW_BIND_ERR);
	z = b;
	z.rkey = 0x1235a8;
	CHECK(IB_MW_TYPE_2, false, pd, &z, true, pd, mr_acc,
	      IB_WC_MW_BIND_ERR);
#undef CHECK
}

static struct sroce_mw *alloc_mw(struct kunit *test, struct ib_pd *pd,
				 enum ib_mw_type type)
{
	struct sroce_mw *mw = kzalloc(sizeof(*mw), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mw);
	/* What the core fills in before alloc_mw. */
	mw->ibmw.device = pd->device;
	mw->ibmw.pd = pd;
	mw->ibmw.type = type;
	KUNIT_ASSERT_EQ(test, sroce_alloc_mw(&mw->ibmw, NULL), 0);
	return mw;
}

static void free_mw(struct sroce_mw *mw)
{
	sroce_dealloc_mw(&mw->ibmw);
	kfree(mw);
}

static enum ib_wc_status bind(struct mw_test *t, struct sroce_qp *qp,
			      struct sroce_mw *mw, struct sroce_mr *mr,
			      u64 addr, u64 len, u32 access, u8 tag)
{
	t->wqe->opcode = IB_WR_BIND_MW;
	t->wqe->bind = (struct sroce_mw_bind){
		.addr = addr, .length = len, .mr_lkey = mr->lkey,
		.mw_rkey = mw->rkey, .rkey = (mw->rkey & ~0xffU) | tag,
		.access = access,
	};
	return sroce_mw_local_op(qp, t->wqe);
}

static void window_rkeys(struct kunit *test)
{
	struct mw_test *t = test->priv;
	const int wr = IB_ACCESS_REMOTE_WRITE;
	struct sroce_mw *mw1, *mw2;
	struct sroce_qp *reused;
	struct sroce_mr *mr;
	u8 v = 0xee;
	u8 *buf;
	u64 base;
	u32 old;

	buf = kunit_kzalloc(test, 0x1000, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	base = (u64)(uintptr_t)buf;
	mr = dma_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND);
	mw1 = alloc_mw(test, &t->pd, IB_MW_TYPE_1);
	mw2 = alloc_mw(test, &t->pd, IB_MW_TYPE_2);
	KUNIT_EXPECT_NE(test, mw1->rkey >> 8, mr->lkey >> 8);
	KUNIT_EXPECT_EQ(test, mw1->ibmw.rkey, mw1->rkey);

	/* Unbound: nothing resolves; a window key is no lkey. */
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw1->rkey, wr, base, 1));
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw2->rkey, wr, base, 1));
	KUNIT_EXPECT_FALSE(test, key_ok(t->sdev, &t->pd, mw1->rkey, false, 0, 0,
					0));
	/* The region grants no remote right itself. */
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mr->lkey, wr, base, 1));

	/* Type 1, bound on qp to [base + 0x100, base + 0x200). */
	old = mw1->rkey;
	KUNIT_EXPECT_EQ(test, bind(t, t->qp, mw1, mr, base + 0x100, 0x100, wr,
				   (old + 1) & 0xff), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw1->rkey, (old & ~0xffU) | ((old + 1) & 0xff));
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, old, wr, base + 0x100, 1));
	KUNIT_EXPECT_TRUE(test, rkey_ok(t->qp, mw1->rkey, wr, base + 0x100,
					0x100));
	/* Type 1 windows serve any QP of the PD. */
	KUNIT_EXPECT_TRUE(test, rkey_ok(t->qp2, mw1->rkey, wr, base + 0x1ff,
					1));
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw1->rkey, wr, base + 0xff, 1));
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw1->rkey, wr, base + 0x101,
					 0x100));
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw1->rkey,
					 IB_ACCESS_REMOTE_READ, base + 0x100,
					 1));
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->other_qp, mw1->rkey, wr,
					 base + 0x100, 1));
	/* Type 1 windows cannot be invalidated. */
	KUNIT_EXPECT_EQ(test, sroce_invalidate_key(t->qp, mw1->rkey, false),
			-EINVAL);
	/* A bound region cannot be invalidated or deregistered. */
	KUNIT_EXPECT_EQ(test, sroce_dereg_mr(&mr->ibmr, NULL), -EBUSY);

	/* Type 2B, bound to qp, through which alone it is reachable. */
	KUNIT_EXPECT_EQ(test, bind(t, t->other_qp, mw2, mr, base, 0x80, wr, 7),
			IB_WC_MW_BIND_ERR);
	KUNIT_EXPECT_EQ(test, bind(t, t->qp, mw2, mr, base, 0x80, wr, 7),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mw2->rkey & 0xff, 7U);
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, mw2->rkey, wr, base + 0x7f, &v,
					1, true), 0);
	KUNIT_EXPECT_EQ(test, buf[0x7f], 0xee);
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp2, mw2->rkey, wr, base, 1));
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw2->rkey, wr, base + 0x80, 1));
	/* A QP created later with qp's number (reused) inherits nothing. */
	reused = mw_test_qp(test, &t->pd, t->qp->ibqp.qp_num);
	reused->serial = 100;
	KUNIT_EXPECT_FALSE(test, rkey_ok(reused, mw2->rkey, wr, base, 1));
	KUNIT_EXPECT_EQ(test, sroce_invalidate_key(reused, mw2->rkey, true),
			-EINVAL);
	/* Bound type 2 windows are not re-bound. */
	KUNIT_EXPECT_EQ(test, bind(t, t->qp, mw2, mr, base, 0x80, wr, 8),
			IB_WC_MW_BIND_ERR);

	/* Remote invalidation only through the QP it is bound to. */
	KUNIT_EXPECT_EQ(test, sroce_invalidate_key(t->qp2, mw2->rkey, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_invalidate_key(t->qp, mw2->rkey ^ 1, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_invalidate_key(t->qp, mw2->rkey, true), 0);
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw2->rkey, wr, base, 1));
	KUNIT_EXPECT_EQ(test, sroce_invalidate_key(t->qp, mw2->rkey, true),
			-EINVAL);

	/* Free again: bind on qp2, invalidate locally from another QP. */
	KUNIT_EXPECT_EQ(test, bind(t, t->qp2, mw2, mr, base, 0x10,
				   IB_ACCESS_REMOTE_READ, 9), IB_WC_SUCCESS);
	t->wqe->opcode = IB_WR_LOCAL_INV;
	t->wqe->invalidate_rkey = mw2->rkey;
	KUNIT_EXPECT_EQ(test, sroce_mw_local_op(t->other_qp, t->wqe),
			IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, sroce_mw_local_op(t->qp, t->wqe), IB_WC_SUCCESS);

	/* A zero-length bind leaves the type 1 window granting nothing. */
	KUNIT_EXPECT_EQ(test, bind(t, t->qp, mw1, mr, 0, 0, wr, 3),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw1->rkey, wr, base + 0x100,
					 1));
	KUNIT_EXPECT_EQ(test, sroce_dereg_mr(&mr->ibmr, NULL), 0);

	free_mw(mw1);
	free_mw(mw2);
}

/*
 * A zero-based type 2 window is addressed from 0 to its length, which
 * reach its part of the region; the region's own addresses do not.
 */
static void zero_based_window(struct kunit *test)
{
	struct mw_test *t = test->priv;
	const int wr = IB_ACCESS_REMOTE_WRITE;
	struct sroce_mw *mw;
	struct sroce_mr *mr;
	u8 v = 0x5a;
	u8 *buf;
	u64 base;

	buf = kunit_kzalloc(test, 0x1000, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	base = (u64)(uintptr_t)buf;
	mr = dma_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND);
	mw = alloc_mw(test, &t->pd, IB_MW_TYPE_2);

	KUNIT_EXPECT_EQ(test, bind(t, t->qp, mw, mr, base + 0x200, 0x100,
				   wr | IB_ZERO_BASED, 5), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, mw->rkey, wr, 0x10, &v, 1, true),
			0);
	KUNIT_EXPECT_EQ(test, buf[0x210], 0x5a);
	KUNIT_EXPECT_EQ(test, buf[0x10], 0);
	KUNIT_EXPECT_TRUE(test, rkey_ok(t->qp, mw->rkey, wr, 0, 0x100));
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw->rkey, wr, 0xff, 2));
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw->rkey, wr, 0x100, 1));
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw->rkey, wr, base + 0x200, 1));
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw->rkey, wr, U64_MAX, 1));
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw->rkey, IB_ACCESS_REMOTE_READ,
					 0, 1));

	KUNIT_EXPECT_EQ(test, sroce_invalidate_key(t->qp, mw->rkey, true), 0);
	KUNIT_EXPECT_FALSE(test, rkey_ok(t->qp, mw->rkey, wr, 0x10, 1));
	KUNIT_EXPECT_EQ(test, sroce_dereg_mr(&mr->ibmr, NULL), 0);
	free_mw(mw);
}

/*
 * The responder checks the R_Key for every packet of a message: once a
 * FAST MR is invalidated, or registered again over other memory, the
 * rest of a message moves nothing, in either direction, and a READ
 * response buffer is left as it was (no stale or kernel bytes for the
 * wire).
 */
static void fast_revoked_mid_message(struct kunit *test)
{
	const int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		       IB_ACCESS_REMOTE_READ;
	struct mw_test *t = test->priv;
	u8 data[64], out[64];
	struct page *pg[3];
	struct sroce_mr *mr;
	u32 i, rkey;
	u64 va;

	for (i = 0; i < 3; i++) {
		pg[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, pg[i]);
	}
	memset(data, 0xab, sizeof(data));
	mr = fast_mr(test, &t->pd, 4);
	KUNIT_ASSERT_EQ(test, map_pages(mr, pg, 3), 3);
	KUNIT_ASSERT_EQ(test, sroce_mr_reg_fast(mr, &t->pd, 0x11, rw),
			IB_WC_SUCCESS);
	rkey = mr->rkey;
	va = (u64)(uintptr_t)page_address(pg[0]) + 100;

	/* The first packet of a WRITE lands. */
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, rkey, IB_ACCESS_REMOTE_WRITE,
					va, data, 32, true), 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(pg[0]))[131], 0xab);

	/* LOCAL_INV between two packets: the next one is refused. */
	t->wqe->opcode = IB_WR_LOCAL_INV;
	t->wqe->invalidate_rkey = rkey;
	KUNIT_EXPECT_EQ(test, sroce_mw_local_op(t->qp, t->wqe), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, rkey, IB_ACCESS_REMOTE_WRITE,
					va + 32, data, 32, true), -EACCES);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(pg[0]))[132], 0);
	memset(out, 0x5c, sizeof(out));
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, rkey, IB_ACCESS_REMOTE_READ,
					va, out, sizeof(out), false), -EACCES);
	KUNIT_EXPECT_EQ(test, out[0], 0x5c);
	KUNIT_EXPECT_EQ(test, out[63], 0x5c);

	/*
	 * Registered again under the same key over one page only: the
	 * second page the old registration covered is no longer granted.
	 */
	KUNIT_ASSERT_EQ(test, map_pages(mr, pg + 2, 1), 1);
	KUNIT_ASSERT_EQ(test, sroce_mr_reg_fast(mr, &t->pd, 0x11, rw),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mr->rkey, rkey);
	va = (u64)(uintptr_t)page_address(pg[2]) + 100;
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, rkey, IB_ACCESS_REMOTE_READ,
					va + PAGE_SIZE - 100 - 16, out, 32,
					false), -EACCES);
	KUNIT_EXPECT_EQ(test, out[0], 0x5c);
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, rkey, IB_ACCESS_REMOTE_READ,
					va, out, 32, false), 0);
	KUNIT_EXPECT_EQ(test, out[0], 0);

	/* A page list shorter than the registration is never trusted. */
	mr->map.npages = 0;
	memset(out, 0x5c, sizeof(out));
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, rkey, IB_ACCESS_REMOTE_READ,
					va, out, 32, false), -EACCES);
	mr->map.npages = 1;

	KUNIT_EXPECT_EQ(test, sroce_dereg_mr(&mr->ibmr, NULL), 0);
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, rkey, IB_ACCESS_REMOTE_READ,
					va, out, 32, false), -EACCES);
	for (i = 0; i < 3; i++)
		__free_page(pg[i]);
}

/*
 * The same for windows: a type 2B window invalidated, a type 1 window
 * deallocated or bound elsewhere between two packets of a message.
 */
static void window_revoked_mid_message(struct kunit *test)
{
	const int rw = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	struct mw_test *t = test->priv;
	struct sroce_mw *mw1, *mw2;
	u8 data[16], out[16];
	struct sroce_mr *mr;
	u32 rkey1;
	u64 base;
	u8 *buf;

	buf = kunit_kzalloc(test, 0x1000, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	base = (u64)(uintptr_t)buf;
	memset(data, 0xcd, sizeof(data));
	mr = dma_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND);
	mw1 = alloc_mw(test, &t->pd, IB_MW_TYPE_1);
	mw2 = alloc_mw(test, &t->pd, IB_MW_TYPE_2);

	KUNIT_ASSERT_EQ(test, bind(t, t->qp, mw2, mr, base, 0x100, rw, 1),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, mw2->rkey, rw, base, data, 8,
					true), 0);
	t->wqe->opcode = IB_WR_LOCAL_INV;
	t->wqe->invalidate_rkey = mw2->rkey;
	KUNIT_EXPECT_EQ(test, sroce_mw_local_op(t->qp, t->wqe), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, mw2->rkey, rw, base + 8, data, 8,
					true), -EACCES);
	KUNIT_EXPECT_EQ(test, buf[7], 0xcd);
	KUNIT_EXPECT_EQ(test, buf[8], 0);

	KUNIT_ASSERT_EQ(test, bind(t, t->qp, mw1, mr, base + 0x200, 0x100, rw,
				   2), IB_WC_SUCCESS);
	rkey1 = mw1->rkey;
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, rkey1, rw, base + 0x200, out, 8,
					false), 0);
	/* Bound again with a new tag: the old key is revoked. */
	KUNIT_ASSERT_EQ(test, bind(t, t->qp, mw1, mr, base + 0x200, 0x100, rw,
				   3), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, rkey1, rw, base + 0x208, data, 8,
					true), -EACCES);
	KUNIT_EXPECT_EQ(test, buf[0x208], 0);
	rkey1 = mw1->rkey;
	free_mw(mw1);
	KUNIT_EXPECT_EQ(test, rkey_copy(t->qp, rkey1, rw, base + 0x208, data, 8,
					true), -EACCES);
	KUNIT_EXPECT_EQ(test, buf[0x208], 0);

	free_mw(mw2);
	KUNIT_EXPECT_EQ(test, sroce_dereg_mr(&mr->ibmr, NULL), 0);
}

/* Dealloc of a bound window releases its region. */
static void dealloc_bound(struct kunit *test)
{
	struct mw_test *t = test->priv;
	struct sroce_mr *mr;
	struct sroce_mw *mw;

	mr = dma_mr(test, &t->pd, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND);
	mw = alloc_mw(test, &t->pd, IB_MW_TYPE_1);
	KUNIT_EXPECT_EQ(test, bind(t, t->qp, mw, mr, 0x1000, 0x1000,
				   IB_ACCESS_REMOTE_READ, 1), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mr->num_mw, 1U);
	free_mw(mw);
	KUNIT_EXPECT_EQ(test, mr->num_mw, 0U);
	KUNIT_EXPECT_EQ(test, sroce_dereg_mr(&mr->ibmr, NULL), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->sdev->num_mrs), 0);
}

static struct kunit_case sroce_mw_cases[] = {
	KUNIT_CASE(map_addresses),
	KUNIT_CASE(fast_reg_and_invalidate),
	KUNIT_CASE(bind_rules),
	KUNIT_CASE(window_rkeys),
	KUNIT_CASE(zero_based_window),
	KUNIT_CASE(dealloc_bound),
	KUNIT_CASE(fast_revoked_mid_message),
	KUNIT_CASE(window_revoked_mid_message),
	{}
};

static struct kunit_suite sroce_mw_suite = {
	.name		= "sroce_mw",
	.init		= mw_test_init,
	.exit		= mw_test_exit,
	.test_cases	= sroce_mw_cases,
};

kunit_test_suites(&sroce_mw_suite);
