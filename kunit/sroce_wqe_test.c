// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for copying work requests out of the rxe rings: valid send
 * and receive WQEs as the v44 provider writes them (including its
 * multi-SGE length bug and its inline SGE count, ATOMIC WRITE from both of
 * its post paths), and hostile ones (bad or disallowed opcodes, SGE
 * counts, inline and total lengths, garbage in the scratch fields, a
 * producer index moved backwards).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "sroce_compat.h"
#include "sroce_qp.h"
#include "sroce_seg.h"

#define TEST_MAX_SGE		4
#define TEST_MAX_INLINE		64
#define TEST_ROOM		TEST_MAX_INLINE	/* max(4 * 16, 64) */
#define TEST_WR_ID		0x1122334455667788ULL
#define TEST_VA			0x0123456789abcdefULL
#define TEST_IOVA		0x7777000077770000ULL
#define TEST_RKEY		0x89abcdef
#define TEST_COMPARE		0x2122232425262728ULL
#define TEST_SWAP		0x3132333435363738ULL

struct wqe_test {
	struct rxe_send_wqe *slot;	/* followed by TEST_ROOM bytes */
	struct sroce_swqe *wqe;		/* followed by TEST_ROOM bytes */
};

static int wqe_test_init(struct kunit *test)
{
	struct wqe_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->slot = kunit_kzalloc(test, sizeof(*t->slot) + TEST_ROOM, GFP_KERNEL);
	t->wqe = kunit_kzalloc(test, sizeof(*t->wqe) + TEST_ROOM, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->slot);
	KUNIT_ASSERT_NOT_NULL(test, t->wqe);
	/* Every case parses this WQE: its wr_id must come through, refused or not. */
	t->slot->wr.wr_id = TEST_WR_ID;
	test->priv = t;
	return 0;
}

static void set_sge(struct rxe_send_wqe *w, u32 i, u64 addr, u32 len, u32 lkey)
{
	w->dma.sge[i].addr = addr;
	w->dma.sge[i].length = len;
	w->dma.sge[i].lkey = lkey;
}

static enum ib_wc_status parse(struct wqe_test *t, enum ib_qp_type type)
{
	return sroce_wqe_parse_send(t->wqe, t->slot, type, TEST_MAX_SGE,
				    TEST_MAX_INLINE);
}

static void expect_rejected(struct kunit *test, struct wqe_test *t,
			    enum ib_qp_type type, enum ib_wc_status want)
{
	KUNIT_EXPECT_EQ(test, parse(t, type), want);
	KUNIT_EXPECT_EQ(test, t->wqe->status, want);
	KUNIT_EXPECT_EQ(test, t->wqe->length, 0U);
	KUNIT_EXPECT_EQ(test, t->wqe->num_sge, 0U);
	KUNIT_EXPECT_FALSE(test, t->wqe->inline_data);
	KUNIT_EXPECT_EQ(test, t->wqe->wr_id, TEST_WR_ID);
}

static void send_with_two_sges(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;

	w->wr.opcode = IB_WR_SEND_WITH_IMM;
	w->wr.send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED;
	w->wr.ex.imm_data = cpu_to_be32(0xdeadbeef);
	w->dma.num_sge = 2;
	w->dma.length = 300;
	set_sge(w, 0, 0x1000, 100, 0x101);
	set_sge(w, 1, 0x2000, 200, 0x202);

	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->wqe->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->wqe->wr_id, TEST_WR_ID);
	KUNIT_EXPECT_EQ(test, t->wqe->opcode, IB_WR_SEND_WITH_IMM);
	KUNIT_EXPECT_EQ(test, t->wqe->send_flags,
			(u32)(IB_SEND_SIGNALED | IB_SEND_SOLICITED));
	KUNIT_EXPECT_EQ(test, be32_to_cpu(t->wqe->imm_data), 0xdeadbeefU);
	KUNIT_EXPECT_EQ(test, t->wqe->length, 300U);
	KUNIT_EXPECT_EQ(test, t->wqe->num_sge, 2U);
	KUNIT_EXPECT_FALSE(test, t->wqe->inline_data);
	KUNIT_EXPECT_EQ(test, t->wqe->sge[0].addr, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, t->wqe->sge[0].length, 100U);
	KUNIT_EXPECT_EQ(test, t->wqe->sge[0].lkey, 0x101U);
	KUNIT_EXPECT_EQ(test, t->wqe->sge[1].addr, 0x2000ULL);
	KUNIT_EXPECT_EQ(test, t->wqe->sge[1].length, 200U);
	KUNIT_EXPECT_EQ(test, t->wqe->sge[1].lkey, 0x202U);
}

/* v44 wr_set_sge_list(): dma.length = num_sge * sge[0].length. */
static void sge_sum_beats_provider_length(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;

	w->wr.opcode = IB_WR_RDMA_WRITE;
	w->dma.num_sge = 3;
	w->dma.length = 3 * 10;
	set_sge(w, 0, 0x1000, 10, 1);
	set_sge(w, 1, 0x2000, 1000, 2);
	set_sge(w, 2, 0x3000, 5, 3);

	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->wqe->length, 1015U);
}

/* What rdma_rxe kept in the WQE as working state means nothing here. */
static void scratch_fields_are_ignored(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;
	struct sroce_swqe *clean;

	clean = kunit_kzalloc(test, sizeof(*clean) + TEST_ROOM, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, clean);

	w->wr.opcode = IB_WR_RDMA_WRITE;
	w->wr.wr.rdma.remote_addr = TEST_VA;
	w->wr.wr.rdma.rkey = TEST_RKEY;
	w->dma.num_sge = 1;
	set_sge(w, 0, 0x1000, 64, 7);
	KUNIT_ASSERT_EQ(test, sroce_wqe_parse_send(clean, w, IB_QPT_RC,
						   TEST_MAX_SGE,
						   TEST_MAX_INLINE),
			IB_WC_SUCCESS);

	w->status = IB_WC_GENERAL_ERR;
	w->state = 0xffffffff;
	w->iova = TEST_IOVA;
	w->mask = 0xffffffff;
	w->first_psn = 0xffffff;
	w->last_psn = 0x123;
	w->ack_length = 0xffffffff;
	w->has_rd_atomic = 0xffffffff;
	w->dma.length = 0xffffffff;
	w->dma.resid = 0xffffffff;
	w->dma.cur_sge = 0xffffffff;
	w->dma.sge_offset = 0xffffffff;
	w->wr.wr.ud.av.port_num = 0xff;

	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->wqe->remote_addr, TEST_VA);
	KUNIT_EXPECT_EQ(test, t->wqe->rkey, (u32)TEST_RKEY);
	KUNIT_EXPECT_EQ(test, memcmp(t->wqe, clean,
				     sizeof(*clean) + sizeof(struct ib_sge)), 0);
}

/* The legacy post_send keeps the caller's SGE count in an inline WQE. */
static void inline_send(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;
	u32 i;

	w->wr.opcode = IB_WR_SEND;
	w->wr.send_flags = IB_SEND_INLINE;
	w->dma.num_sge = 200;
	w->dma.length = TEST_MAX_INLINE;
	for (i = 0; i < TEST_MAX_INLINE; i++)
		w->dma.inline_data[i] = i ^ 0x5a;

	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, t->wqe->inline_data);
	KUNIT_EXPECT_EQ(test, t->wqe->length, (u32)TEST_MAX_INLINE);
	KUNIT_EXPECT_EQ(test, t->wqe->num_sge, 0U);
	KUNIT_EXPECT_EQ(test, memcmp(t->wqe->inline_buf, w->dma.inline_data,
				     TEST_MAX_INLINE), 0);
}

static void inline_too_long(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;

	w->wr.opcode = IB_WR_RDMA_WRITE;
	w->wr.send_flags = IB_SEND_INLINE;
	w->dma.length = TEST_MAX_INLINE + 1;
	expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);

	w->dma.length = 0xffffffff;
	expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);
}

static void inline_only_for_sends_and_writes(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;

	w->wr.send_flags = IB_SEND_INLINE;
	w->dma.length = 8;
	w->wr.opcode = IB_WR_RDMA_READ;
	expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_QP_OP_ERR);
	w->wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_QP_OP_ERR);
}

static const u32 bad_rc_opcodes[] = {
	IB_WR_LSO, IB_WR_RDMA_READ_WITH_INV,
	IB_WR_MASKED_ATOMIC_CMP_AND_SWP, IB_WR_MASKED_ATOMIC_FETCH_AND_ADD,
	14 /* IBV_WR_FLUSH */,
	IB_WR_REG_MR /* kernel only: would carry a kernel pointer */,
	IB_WR_REG_MR_INTEGRITY, 31, 32, 0x7fffffff, 0xffffffff,
};

static void bad_opcodes_are_rejected(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;
	u32 i;

	w->dma.num_sge = 1;
	set_sge(w, 0, 0x1000, 8, 1);
	for (i = 0; i < ARRAY_SIZE(bad_rc_opcodes); i++) {
		w->wr.opcode = bad_rc_opcodes[i];
		expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_QP_OP_ERR);
		KUNIT_EXPECT_EQ(test, (u32)t->wqe->opcode, bad_rc_opcodes[i]);
	}
}

/* Memory operations: the fields each takes from the ring, and where. */
static void memory_ops(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;

	w->wr.opcode = IB_WR_LOCAL_INV;
	w->wr.ex.invalidate_rkey = 0x12345678;
	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->wqe->invalidate_rkey, 0x12345678U);
	KUNIT_EXPECT_EQ(test, t->wqe->length, 0U);
	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_UC), IB_WC_SUCCESS);
	expect_rejected(test, t, IB_QPT_UD, IB_WC_LOC_QP_OP_ERR);
	/* A local operation with payload is malformed. */
	w->dma.num_sge = 1;
	set_sge(w, 0, 0x1000, 8, 1);
	expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);

	w->wr.opcode = IB_WR_SEND_WITH_INV;
	w->wr.ex.invalidate_rkey = 0xabcdef01;
	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->wqe->invalidate_rkey, 0xabcdef01U);
	KUNIT_EXPECT_EQ(test, t->wqe->length, 8U);
	/* SEND with Invalidate has RC opcodes only. */
	expect_rejected(test, t, IB_QPT_UC, IB_WC_LOC_QP_OP_ERR);

	w->dma.num_sge = 0;
	w->wr.opcode = IB_WR_BIND_MW;
	w->wr.wr.mw.addr = 0x1000;
	w->wr.wr.mw.length = 0x100000000ULL;
	w->wr.wr.mw.mr_lkey = 0x111;
	w->wr.wr.mw.mw_rkey = 0x222;
	w->wr.wr.mw.rkey = 0x223;
	w->wr.wr.mw.access = IB_ACCESS_REMOTE_READ;
	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_UC), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->wqe->bind.addr, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, t->wqe->bind.length, 0x100000000ULL);
	KUNIT_EXPECT_EQ(test, t->wqe->bind.mr_lkey, 0x111U);
	KUNIT_EXPECT_EQ(test, t->wqe->bind.mw_rkey, 0x222U);
	KUNIT_EXPECT_EQ(test, t->wqe->bind.rkey, 0x223U);
	KUNIT_EXPECT_EQ(test, t->wqe->bind.access, (u32)IB_ACCESS_REMOTE_READ);
	expect_rejected(test, t, IB_QPT_UD, IB_WC_LOC_QP_OP_ERR);
}

static void opcode_allowed_per_qp_type(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;

	w->wr.opcode = IB_WR_RDMA_READ;
	expect_rejected(test, t, IB_QPT_UC, IB_WC_LOC_QP_OP_ERR);
	w->wr.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
	expect_rejected(test, t, IB_QPT_UC, IB_WC_LOC_QP_OP_ERR);
	w->wr.opcode = IB_WR_RDMA_WRITE;
	expect_rejected(test, t, IB_QPT_UD, IB_WC_LOC_QP_OP_ERR);
	expect_rejected(test, t, IB_QPT_GSI, IB_WC_LOC_QP_OP_ERR);
	w->wr.opcode = IB_WR_SEND;
	expect_rejected(test, t, IB_QPT_XRC_INI, IB_WC_LOC_QP_OP_ERR);

	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_UD), IB_WC_SUCCESS);
	w->wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_UC), IB_WC_SUCCESS);
	w->wr.opcode = IB_WR_RDMA_READ;
	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);

	KUNIT_EXPECT_TRUE(test, sroce_wqe_opcode_ok(IB_QPT_RC,
						    IB_WR_ATOMIC_FETCH_AND_ADD));
	KUNIT_EXPECT_FALSE(test, sroce_wqe_opcode_ok(IB_QPT_RC, IB_WR_REG_MR));
	KUNIT_EXPECT_FALSE(test, sroce_wqe_opcode_ok(IB_QPT_UD, IB_WR_RDMA_READ));
}

static void too_many_sges(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;

	w->wr.opcode = IB_WR_SEND;
	w->dma.num_sge = TEST_MAX_SGE + 1;
	expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);
	w->dma.num_sge = 0xffffffff;
	expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);

	w->dma.num_sge = TEST_MAX_SGE;
	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->wqe->num_sge, (u32)TEST_MAX_SGE);
}

static void total_length_limits(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;

	w->wr.opcode = IB_WR_RDMA_WRITE;
	w->dma.num_sge = 4;
	/* 4 * 0xffffffff: would wrap a u32 sum to a small value. */
	set_sge(w, 0, 0, 0xffffffff, 1);
	set_sge(w, 1, 0, 0xffffffff, 1);
	set_sge(w, 2, 0, 0xffffffff, 1);
	set_sge(w, 3, 0, 4, 1);
	expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);

	/*
	 * IBTA's largest message, 2^31 bytes, less one 256-byte packet is
	 * fine; one more byte is not: at path MTU 256 it would take 2^23
	 * PSNs, and a READ that long would never complete.
	 */
	w->dma.num_sge = 2;
	set_sge(w, 0, 0, 0x40000000, 1);
	set_sge(w, 1, 0, 0x3fffff00, 1);
	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->wqe->length, 0x7fffff00U);
	KUNIT_EXPECT_EQ(test, sroce_seg_npkts(t->wqe->length, 256),
			(1U << 23) - 1);
	set_sge(w, 1, 0, 0x3fffff01, 1);
	expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);
	w->wr.opcode = IB_WR_RDMA_READ;
	expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);
	set_sge(w, 1, 0, 0x40000000, 1);
	expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);
}

static void atomics(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;

	w->wr.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
	w->wr.wr.atomic.remote_addr = TEST_VA;
	w->wr.wr.atomic.compare_add = TEST_COMPARE;
	w->wr.wr.atomic.swap = TEST_SWAP;
	w->wr.wr.atomic.rkey = TEST_RKEY;
	w->iova = TEST_IOVA;
	w->dma.num_sge = 1;
	w->dma.length = 8;
	set_sge(w, 0, 0x1000, 8, 5);

	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->wqe->remote_addr, TEST_VA);
	KUNIT_EXPECT_EQ(test, t->wqe->compare_add, TEST_COMPARE);
	KUNIT_EXPECT_EQ(test, t->wqe->swap, TEST_SWAP);
	KUNIT_EXPECT_EQ(test, t->wqe->rkey, (u32)TEST_RKEY);
	KUNIT_EXPECT_EQ(test, t->wqe->length, 8U);

	/* IBTA 9.4.5: exactly 8 bytes, whatever dma.length claims. */
	set_sge(w, 0, 0x1000, 4, 5);
	expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);
	w->dma.num_sge = 0;
	expect_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);
	w->wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	w->dma.num_sge = 2;
	set_sge(w, 0, 0x1000, 4, 5);
	set_sge(w, 1, 0x2000, 4, 5);
	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);
}

/* The ABI values rdma-core 44 uses, on 6.1 as on 6.2 and later. */
static void atomic_write_abi_values(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, (u32)SROCE_WR_ATOMIC_WRITE, 15U);
	KUNIT_EXPECT_EQ(test, (u32)SROCE_WC_ATOMIC_WRITE, 9U);
	KUNIT_EXPECT_EQ(test, (u64)SROCE_DEVICE_ATOMIC_WRITE, 1ULL << 40);
}

#define TEST_AW_VA		0x0123456789abcde8ULL
static const u8 test_aw_value[8] = {
	0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6, 0x07, 0x18,
};

/* What provider v44's wr_atomic_write() writes (memset first). */
static void atomic_write_slot(struct rxe_send_wqe *w)
{
	memset(w, 0, sizeof(*w) + TEST_ROOM);
	w->wr.wr_id = TEST_WR_ID;
	w->wr.opcode = SROCE_WR_ATOMIC_WRITE;
	w->wr.send_flags = IB_SEND_SIGNALED;
	w->wr.wr.rdma.remote_addr = TEST_AW_VA;
	w->wr.wr.rdma.rkey = TEST_RKEY;
	memcpy(w->dma.inline_data, test_aw_value, sizeof(test_aw_value));
	w->dma.length = 8;
	w->dma.resid = 8;
	w->iova = TEST_AW_VA;
}

static void atomic_write_from_wr_atomic_write(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;

	atomic_write_slot(w);
	/* Scratch fields the provider or rxe would use are not read. */
	w->dma.cur_sge = 0xffffffff;
	w->dma.sge_offset = 0xffffffff;
	w->iova = TEST_IOVA;
	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->wqe->wr_id, TEST_WR_ID);
	KUNIT_EXPECT_EQ(test, (u32)t->wqe->opcode, 15U);
	KUNIT_EXPECT_EQ(test, t->wqe->send_flags, (u32)IB_SEND_SIGNALED);
	KUNIT_EXPECT_EQ(test, t->wqe->remote_addr, TEST_AW_VA);
	KUNIT_EXPECT_EQ(test, t->wqe->rkey, (u32)TEST_RKEY);
	KUNIT_EXPECT_EQ(test, t->wqe->length, 8U);
	KUNIT_EXPECT_EQ(test, t->wqe->num_sge, 0U);
	KUNIT_EXPECT_TRUE(test, t->wqe->inline_data);
	KUNIT_EXPECT_EQ(test, memcmp(t->wqe->inline_buf, test_aw_value, 8), 0);
	KUNIT_EXPECT_EQ(test, t->wqe->status, IB_WC_SUCCESS);

	/* The inline flag changes nothing: the value is in the WQE anyway. */
	w->wr.send_flags |= IB_SEND_INLINE;
	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(t->wqe->inline_buf, test_aw_value, 8), 0);

	/* A slot of 8 bytes (no SGEs, 8 inline) is room enough. */
	KUNIT_EXPECT_EQ(test, sroce_wqe_parse_send(t->wqe, w, IB_QPT_RC, 0, 8),
			IB_WC_SUCCESS);
}

static void expect_aw_rejected(struct kunit *test, struct wqe_test *t,
			       enum ib_qp_type type, enum ib_wc_status want)
{
	expect_rejected(test, t, type, want);
	KUNIT_EXPECT_EQ(test, (u32)t->wqe->opcode, 15U);
}

static void atomic_write_refused(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;

	/* The legacy post_send: SGE list, wr.rdma left zero. */
	atomic_write_slot(w);
	w->wr.wr.rdma.remote_addr = 0;
	w->wr.wr.rdma.rkey = 0;
	w->dma.num_sge = 1;
	set_sge(w, 0, 0x1000, 8, 5);
	expect_aw_rejected(test, t, IB_QPT_RC, IB_WC_LOC_QP_OP_ERR);
	/* ... and its inline form, which keeps the caller's SGE count. */
	atomic_write_slot(w);
	w->wr.send_flags |= IB_SEND_INLINE;
	w->dma.num_sge = 1;
	expect_aw_rejected(test, t, IB_QPT_RC, IB_WC_LOC_QP_OP_ERR);

	/* Exactly 8 bytes. */
	atomic_write_slot(w);
	w->dma.length = 4;
	expect_aw_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);
	w->dma.length = 16;
	expect_aw_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);
	w->dma.length = 0;
	expect_aw_rejected(test, t, IB_QPT_RC, IB_WC_LOC_LEN_ERR);

	/* An 8-byte aligned target. */
	atomic_write_slot(w);
	w->wr.wr.rdma.remote_addr = TEST_AW_VA + 4;
	expect_aw_rejected(test, t, IB_QPT_RC, IB_WC_LOC_QP_OP_ERR);
	w->wr.wr.rdma.remote_addr = TEST_AW_VA + 1;
	expect_aw_rejected(test, t, IB_QPT_RC, IB_WC_LOC_QP_OP_ERR);

	/* A slot without room for the value is never read past. */
	atomic_write_slot(w);
	KUNIT_EXPECT_EQ(test, sroce_wqe_parse_send(t->wqe, w, IB_QPT_RC, 0, 7),
			IB_WC_LOC_LEN_ERR);
	KUNIT_EXPECT_EQ(test, t->wqe->length, 0U);

	/* RC only, as in IBTA and rdma_rxe. */
	atomic_write_slot(w);
	expect_aw_rejected(test, t, IB_QPT_UC, IB_WC_LOC_QP_OP_ERR);
	expect_aw_rejected(test, t, IB_QPT_UD, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_TRUE(test, sroce_wqe_opcode_ok(IB_QPT_RC,
						    SROCE_WR_ATOMIC_WRITE));
	KUNIT_EXPECT_FALSE(test, sroce_wqe_opcode_ok(IB_QPT_UC,
						     SROCE_WR_ATOMIC_WRITE));
}

/* The RDMA target comes from wr.rdma, not the iova scratch field. */
static void rdma_target_from_wr(struct kunit *test)
{
	struct wqe_test *t = test->priv;
	struct rxe_send_wqe *w = t->slot;

	w->wr.opcode = IB_WR_RDMA_READ;
	w->wr.wr.rdma.remote_addr = TEST_VA;
	w->wr.wr.rdma.rkey = TEST_RKEY;
	w->iova = TEST_IOVA;
	w->wr.send_flags = 0xfffffff0 | IB_SEND_FENCE;

	KUNIT_EXPECT_EQ(test, parse(t, IB_QPT_RC), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, t->wqe->remote_addr, TEST_VA);
	KUNIT_EXPECT_EQ(test, t->wqe->rkey, (u32)TEST_RKEY);
	/* Unknown flag bits are dropped. */
	KUNIT_EXPECT_EQ(test, t->wqe->send_flags, (u32)IB_SEND_FENCE);
}

static void recv_wqes(struct kunit *test)
{
	struct rxe_recv_wqe *w;
	struct sroce_rwqe *r;

	w = kunit_kzalloc(test, sizeof(*w) + TEST_MAX_SGE * 16, GFP_KERNEL);
	r = kunit_kzalloc(test, sizeof(*r) + TEST_MAX_SGE * 16, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, r);

	w->wr_id = TEST_WR_ID;
	w->dma.num_sge = 2;
	w->dma.length = 0xffffffff;	/* ignored */
	w->dma.resid = 0xffffffff;
	w->dma.cur_sge = 0xffffffff;
	w->dma.sge[0].addr = 0x1000;
	w->dma.sge[0].length = 100;
	w->dma.sge[0].lkey = 9;
	w->dma.sge[1].addr = 0x2000;
	w->dma.sge[1].length = 28;
	w->dma.sge[1].lkey = 10;
	KUNIT_EXPECT_EQ(test, sroce_wqe_parse_recv(r, w, TEST_MAX_SGE), 0);
	KUNIT_EXPECT_EQ(test, r->wr_id, TEST_WR_ID);
	KUNIT_EXPECT_EQ(test, r->num_sge, 2U);
	KUNIT_EXPECT_EQ(test, r->length, 128U);
	KUNIT_EXPECT_EQ(test, r->sge[1].addr, 0x2000ULL);
	KUNIT_EXPECT_EQ(test, r->sge[1].lkey, 10U);

	w->dma.num_sge = TEST_MAX_SGE + 1;
	KUNIT_EXPECT_EQ(test, sroce_wqe_parse_recv(r, w, TEST_MAX_SGE), -EINVAL);
	w->dma.num_sge = 0xffffffff;
	KUNIT_EXPECT_EQ(test, sroce_wqe_parse_recv(r, w, TEST_MAX_SGE), -EINVAL);

	w->dma.num_sge = 3;
	w->dma.sge[0].length = 0xffffffff;
	w->dma.sge[1].length = 0xffffffff;
	w->dma.sge[2].length = 2;
	KUNIT_EXPECT_EQ(test, sroce_wqe_parse_recv(r, w, TEST_MAX_SGE), -EINVAL);

	w->dma.num_sge = 0;
	KUNIT_EXPECT_EQ(test, sroce_wqe_parse_recv(r, w, TEST_MAX_SGE), 0);
	KUNIT_EXPECT_EQ(test, r->length, 0U);
}

/*
 * An RC QP with a send ring of *@depth WQEs as create_qp builds it, a user
 * ring (IB_WR_REG_MR is refused there), and its shadow ring; *@depth
 * becomes the depth sroce_queue_init() gave it. sroce_queue_cleanup() the
 * ring at the end.
 */
static struct sroce_qp *user_sq_qp(struct kunit *test, u32 *depth)
{
	struct sroce_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->ibqp.qp_type = IB_QPT_RC;
	qp->user = true;
	spin_lock_init(&qp->sq.lock);
	KUNIT_ASSERT_EQ(test, sroce_queue_init(&qp->sq.queue, NULL, depth,
					       sizeof(struct rxe_send_wqe) +
					       TEST_ROOM,
					       SROCE_QUEUE_FROM_USER), 0);
	qp->sq.max_sge = TEST_MAX_SGE;
	qp->sq.max_inline = TEST_MAX_INLINE;
	qp->sq.shadow_elem_size = sizeof(struct sroce_swqe) + TEST_ROOM;
	qp->sq.shadow = kunit_kcalloc(test, *depth + 1,
				      qp->sq.shadow_elem_size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->sq.shadow);
	return qp;
}

/* sroce_sq_fetch() under sq.lock, as the doorbell calls it. */
static u32 sq_fetch(struct sroce_qp *qp)
{
	u32 n;

	spin_lock(&qp->sq.lock);
	n = sroce_sq_fetch(qp);
	spin_unlock(&qp->sq.lock);
	return n;
}

/* A ring as create_qp builds it, driven through sroce_sq_fetch(). */
static void sq_fetch_follows_the_producer(struct kunit *test)
{
	struct sroce_queue *q;
	struct rxe_send_wqe *w;
	struct sroce_qp *qp;
	u32 depth = 7, i, n;

	qp = user_sq_qp(test, &depth);
	q = &qp->sq.queue;
	KUNIT_EXPECT_EQ(test, depth, 7U);
	KUNIT_EXPECT_EQ(test, q->buf->index_mask, 7U);
	KUNIT_EXPECT_EQ(test, q->buf->log2_elem_size, 9U);
	qp->sq.sig_all = true;

	for (i = 0; i < 3; i++) {
		w = (void *)(q->buf->data + (i << q->log2_elem_size));
		w->wr.wr_id = i;
		w->wr.opcode = i == 1 ? IB_WR_REG_MR : IB_WR_SEND;
	}
	q->buf->producer_index = 3;

	n = sq_fetch(qp);
	KUNIT_EXPECT_EQ(test, n, 3U);
	KUNIT_EXPECT_EQ(test, qp->sq.head, 3U);
	KUNIT_EXPECT_EQ(test, sroce_sq_wqe(qp, 0)->wr_id, 0ULL);
	KUNIT_EXPECT_EQ(test, sroce_sq_wqe(qp, 0)->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, sroce_sq_wqe(qp, 0)->send_flags,
			(u32)IB_SEND_SIGNALED);
	KUNIT_EXPECT_EQ(test, sroce_sq_wqe(qp, 1)->status, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, sroce_sq_wqe(qp, 2)->wr_id, 2ULL);

	/* Rewriting a slot already taken changes nothing in the copy. */
	w = (void *)q->buf->data;
	w->wr.opcode = IB_WR_REG_MR;
	KUNIT_EXPECT_EQ(test, sroce_sq_wqe(qp, 0)->status, IB_WC_SUCCESS);

	/* A producer index moved back into taken WQEs is ignored ... */
	q->buf->producer_index = 1;
	n = sq_fetch(qp);
	KUNIT_EXPECT_EQ(test, n, 0U);
	KUNIT_EXPECT_EQ(test, qp->sq.head, 3U);

	/* ... and an unmasked one is masked. */
	q->buf->producer_index = 0xfffffff8 | 4;
	n = sq_fetch(qp);
	KUNIT_EXPECT_EQ(test, n, 1U);
	KUNIT_EXPECT_EQ(test, qp->sq.head, 4U);

	/* The completer retires two; the producer wraps around. */
	sroce_queue_advance_consumer(q);
	sroce_queue_advance_consumer(q);
	KUNIT_EXPECT_EQ(test, q->buf->consumer_index, 2U);
	q->buf->producer_index = 1;
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 7U);
	n = sq_fetch(qp);
	KUNIT_EXPECT_EQ(test, n, 5U);
	KUNIT_EXPECT_EQ(test, qp->sq.head, 1U);

	sroce_queue_cleanup(q);
}

/* How many slots one fetch takes: what is new, never more than the budget. */
static void sq_fetch_count_rule(struct kunit *test)
{
	static const struct {
		u32 head, index, prod, mask, budget, want;
	} cases[] = {
		{ 0, 0, 0, 7, 64, 0 },		/* empty */
		{ 0, 0, 5, 7, 64, 5 },		/* all of it */
		{ 3, 0, 5, 7, 64, 2 },		/* the new ones only */
		{ 3, 0, 1, 7, 64, 0 },		/* producer moved back */
		{ 6, 4, 2, 7, 64, 4 },		/* across the wrap */
		{ 0, 0, 200, 255, 64, 64 },	/* one batch of many */
		{ 192, 0, 200, 255, 64, 8 },	/* the last of them */
		{ 0, 0, 16383, 16383, 64, 64 },	/* a full 16K ring */
		{ 0, 0, 0xffffff05, 7, 64, 5 },	/* unmasked index */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    sroce_sq_fetch_count(cases[i].head,
							 cases[i].index,
							 cases[i].prod,
							 cases[i].mask,
							 cases[i].budget),
				    cases[i].want, "case %u", i);
}

/*
 * One doorbell for 200 WQEs: each fetch (one sq.lock hold, interrupts
 * off) takes at most SROCE_SQ_FETCH_BATCH; the next continues after it,
 * and together they take every WQE once, in order.
 */
static void sq_fetch_is_bounded(struct kunit *test)
{
	struct sroce_queue *q;
	struct rxe_send_wqe *w;
	struct sroce_qp *qp;
	u32 depth = 255, i, n, total = 0;

	qp = user_sq_qp(test, &depth);
	q = &qp->sq.queue;

	for (i = 0; i < 200; i++) {
		w = (void *)(q->buf->data + (i << q->log2_elem_size));
		w->wr.wr_id = 1000 + i;
		w->wr.opcode = IB_WR_SEND;
	}
	q->buf->producer_index = 200;

	do {
		n = sq_fetch(qp);
		KUNIT_EXPECT_LE(test, n, (u32)SROCE_SQ_FETCH_BATCH);
		total += n;
	} while (n && total < 1000);
	KUNIT_EXPECT_EQ(test, total, 200U);
	KUNIT_EXPECT_EQ(test, qp->sq.head, 200U);
	for (i = 0; i < 200; i++)
		KUNIT_EXPECT_EQ(test, sroce_sq_wqe(qp, i)->wr_id, 1000ULL + i);

	sroce_queue_cleanup(q);
}

static struct kunit_case sroce_wqe_cases[] = {
	KUNIT_CASE(send_with_two_sges),
	KUNIT_CASE(sge_sum_beats_provider_length),
	KUNIT_CASE(scratch_fields_are_ignored),
	KUNIT_CASE(inline_send),
	KUNIT_CASE(inline_too_long),
	KUNIT_CASE(inline_only_for_sends_and_writes),
	KUNIT_CASE(bad_opcodes_are_rejected),
	KUNIT_CASE(memory_ops),
	KUNIT_CASE(opcode_allowed_per_qp_type),
	KUNIT_CASE(too_many_sges),
	KUNIT_CASE(total_length_limits),
	KUNIT_CASE(atomics),
	KUNIT_CASE(atomic_write_abi_values),
	KUNIT_CASE(atomic_write_from_wr_atomic_write),
	KUNIT_CASE(atomic_write_refused),
	KUNIT_CASE(rdma_target_from_wr),
	KUNIT_CASE(recv_wqes),
	KUNIT_CASE(sq_fetch_follows_the_producer),
	KUNIT_CASE(sq_fetch_count_rule),
	KUNIT_CASE(sq_fetch_is_bounded),
	{}
};

static struct kunit_suite sroce_wqe_suite = {
	.name		= "sroce_wqe",
	.init		= wqe_test_init,
	.test_cases	= sroce_wqe_cases,
};

kunit_test_suites(&sroce_wqe_suite);
