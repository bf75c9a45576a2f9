// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the send side's arithmetic: packet counts, payload and
 * pad per packet at every path MTU for lengths around MTU multiples, the
 * opcode of each packet of each kind of message, the PSNs a READ reserves,
 * the AETH syndrome decode, and the IBTA timer encodings.
 */
#include <kunit/test.h>
#include <linux/kernel.h>

#include "sroce_opcode.h"
#include "sroce_pkt.h"
#include "sroce_seg.h"

static const u32 mtus[] = { 256, 512, 1024, 2048, 4096 };

/* Lengths 0, 1, and n*MTU-1, n*MTU, n*MTU+1 for n = 1..3, at every MTU. */
static void seg_counts(struct kunit *test)
{
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(mtus); i++) {
		u32 mtu = mtus[i];

		KUNIT_EXPECT_EQ(test, sroce_seg_npkts(0, mtu), 1U);
		KUNIT_EXPECT_EQ(test, sroce_seg_npkts(1, mtu), 1U);
		KUNIT_EXPECT_EQ(test, sroce_seg_paylen(0, mtu, 0), 0U);
		KUNIT_EXPECT_EQ(test, sroce_seg_paylen(1, mtu, 0), 1U);
		for (n = 1; n <= 3; n++) {
			u32 len = n * mtu;

			KUNIT_EXPECT_EQ(test, sroce_seg_npkts(len - 1, mtu), n);
			KUNIT_EXPECT_EQ(test, sroce_seg_npkts(len, mtu), n);
			KUNIT_EXPECT_EQ(test, sroce_seg_npkts(len + 1, mtu), n + 1);
			/* Full packets, then the remainder. */
			KUNIT_EXPECT_EQ(test, sroce_seg_paylen(len - 1, mtu, n - 1),
					mtu - 1);
			KUNIT_EXPECT_EQ(test, sroce_seg_paylen(len, mtu, n - 1), mtu);
			KUNIT_EXPECT_EQ(test, sroce_seg_paylen(len + 1, mtu, n - 1),
					mtu);
			KUNIT_EXPECT_EQ(test, sroce_seg_paylen(len + 1, mtu, n), 1U);
			KUNIT_EXPECT_EQ(test, sroce_seg_paylen(len, mtu, n), 0U);
			/* Pad: full packets never, the last one to 4 bytes. */
			KUNIT_EXPECT_EQ(test, sroce_pkt_pad_bytes(mtu), 0);
			KUNIT_EXPECT_EQ(test, sroce_pkt_pad_bytes(mtu - 1), 1);
			KUNIT_EXPECT_EQ(test,
					sroce_pkt_pad_bytes(sroce_seg_paylen(len + 1,
									     mtu, n)),
					3);
		}
	}
	/* The largest message IBTA allows, without overflow. */
	KUNIT_EXPECT_EQ(test, sroce_seg_npkts(1U << 31, 4096), 1U << 19);
	KUNIT_EXPECT_EQ(test, sroce_seg_npkts(0xffffffff, 256), 1U << 24);
	KUNIT_EXPECT_EQ(test, sroce_seg_paylen(0xffffffff, 256, (1U << 24) - 1),
			255U);
}

static void seg_npsn(struct kunit *test)
{
	/* A READ reserves one PSN per response packet. */
	KUNIT_EXPECT_EQ(test, sroce_seg_npsn(IB_WR_RDMA_READ, 0, 1024), 1U);
	KUNIT_EXPECT_EQ(test, sroce_seg_npsn(IB_WR_RDMA_READ, 1024, 1024), 1U);
	KUNIT_EXPECT_EQ(test, sroce_seg_npsn(IB_WR_RDMA_READ, 1025, 1024), 2U);
	KUNIT_EXPECT_EQ(test, sroce_seg_npsn(IB_WR_RDMA_READ, 1 << 20, 1024),
			1024U);
	KUNIT_EXPECT_EQ(test, sroce_seg_npsn(IB_WR_RDMA_READ, 1 << 20, 4096),
			256U);
	KUNIT_EXPECT_EQ(test, sroce_seg_npsn(IB_WR_SEND, 65536, 1024), 64U);
	KUNIT_EXPECT_EQ(test, sroce_seg_npsn(IB_WR_RDMA_WRITE, 65537, 4096), 17U);
	KUNIT_EXPECT_EQ(test, sroce_seg_npsn(IB_WR_ATOMIC_CMP_AND_SWP, 8, 256),
			1U);
	KUNIT_EXPECT_EQ(test, sroce_seg_npsn(IB_WR_ATOMIC_FETCH_AND_ADD, 8, 256),
			1U);
	KUNIT_EXPECT_TRUE(test, sroce_seg_is_rd_atomic(IB_WR_RDMA_READ));
	KUNIT_EXPECT_TRUE(test, sroce_seg_is_rd_atomic(IB_WR_ATOMIC_FETCH_AND_ADD));
	KUNIT_EXPECT_FALSE(test, sroce_seg_is_rd_atomic(IB_WR_RDMA_WRITE));
}

struct opcode_case {
	enum ib_wr_opcode op;
	int first, middle, last, only;
};

static const struct opcode_case opcode_cases[] = {
	{ IB_WR_SEND, SROCE_OP_RC_SEND_FIRST, SROCE_OP_RC_SEND_MIDDLE,
	  SROCE_OP_RC_SEND_LAST, SROCE_OP_RC_SEND_ONLY },
	{ IB_WR_SEND_WITH_IMM, SROCE_OP_RC_SEND_FIRST, SROCE_OP_RC_SEND_MIDDLE,
	  SROCE_OP_RC_SEND_LAST_WITH_IMM, SROCE_OP_RC_SEND_ONLY_WITH_IMM },
	{ IB_WR_SEND_WITH_INV, SROCE_OP_RC_SEND_FIRST, SROCE_OP_RC_SEND_MIDDLE,
	  SROCE_OP_RC_SEND_LAST_WITH_INV, SROCE_OP_RC_SEND_ONLY_WITH_INV },
	{ IB_WR_RDMA_WRITE, SROCE_OP_RC_RDMA_WRITE_FIRST,
	  SROCE_OP_RC_RDMA_WRITE_MIDDLE, SROCE_OP_RC_RDMA_WRITE_LAST,
	  SROCE_OP_RC_RDMA_WRITE_ONLY },
	{ IB_WR_RDMA_WRITE_WITH_IMM, SROCE_OP_RC_RDMA_WRITE_FIRST,
	  SROCE_OP_RC_RDMA_WRITE_MIDDLE, SROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMM,
	  SROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMM },
};

static void seg_opcodes(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(opcode_cases); i++) {
		const struct opcode_case *c = &opcode_cases[i];

		KUNIT_EXPECT_EQ(test, sroce_seg_opcode(c->op, true, false),
				c->first);
		KUNIT_EXPECT_EQ(test, sroce_seg_opcode(c->op, false, false),
				c->middle);
		KUNIT_EXPECT_EQ(test, sroce_seg_opcode(c->op, false, true),
				c->last);
		KUNIT_EXPECT_EQ(test, sroce_seg_opcode(c->op, true, true),
				c->only);
	}
	KUNIT_EXPECT_EQ(test, sroce_seg_opcode(IB_WR_RDMA_READ, true, true),
			SROCE_OP_RC_RDMA_READ_REQUEST);
	KUNIT_EXPECT_EQ(test,
			sroce_seg_opcode(IB_WR_ATOMIC_CMP_AND_SWP, true, true),
			SROCE_OP_RC_COMPARE_SWAP);
	KUNIT_EXPECT_EQ(test,
			sroce_seg_opcode(IB_WR_ATOMIC_FETCH_AND_ADD, true, true),
			SROCE_OP_RC_FETCH_ADD);
	KUNIT_EXPECT_EQ(test, sroce_seg_opcode(IB_WR_LOCAL_INV, true, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_seg_opcode(IB_WR_REG_MR, true, true),
			-EINVAL);

	/* RETH on WRITE FIRST/ONLY, ImmDt on the last: from the table. */
	KUNIT_EXPECT_TRUE(test, sroce_opcode_info(SROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMM)->hdrs ==
			  (SROCE_HDRF_RETH | SROCE_HDRF_IMMDT));
	KUNIT_EXPECT_EQ(test, sroce_seg_wc_opcode(IB_WR_SEND_WITH_IMM),
			IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, sroce_seg_wc_opcode(IB_WR_RDMA_WRITE_WITH_IMM),
			IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, sroce_seg_wc_opcode(IB_WR_RDMA_READ),
			IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, sroce_seg_wc_opcode(IB_WR_ATOMIC_CMP_AND_SWP),
			IB_WC_COMP_SWAP);
	KUNIT_EXPECT_EQ(test, sroce_seg_wc_opcode(IB_WR_ATOMIC_FETCH_AND_ADD),
			IB_WC_FETCH_ADD);
}

/*
 * ATOMIC WRITE: one packet (0x1d) and one PSN whatever the MTU, counted
 * against max_rd_atomic but answered by no data, completed as rdma_rxe
 * reports it.
 */
static void seg_atomic_write(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_seg_opcode(SROCE_WR_ATOMIC_WRITE, true,
					       true), 0x1d);
	KUNIT_EXPECT_EQ(test, sroce_seg_npsn(SROCE_WR_ATOMIC_WRITE, 8, 256),
			1U);
	KUNIT_EXPECT_EQ(test, sroce_seg_npsn(SROCE_WR_ATOMIC_WRITE, 8, 4096),
			1U);
	KUNIT_EXPECT_FALSE(test, sroce_seg_is_rd_atomic(SROCE_WR_ATOMIC_WRITE));
	KUNIT_EXPECT_TRUE(test, sroce_seg_takes_rd_atomic(SROCE_WR_ATOMIC_WRITE));
	KUNIT_EXPECT_TRUE(test, sroce_seg_takes_rd_atomic(IB_WR_RDMA_READ));
	KUNIT_EXPECT_TRUE(test,
			  sroce_seg_takes_rd_atomic(IB_WR_ATOMIC_CMP_AND_SWP));
	KUNIT_EXPECT_FALSE(test, sroce_seg_takes_rd_atomic(IB_WR_RDMA_WRITE));
	KUNIT_EXPECT_FALSE(test, sroce_seg_takes_rd_atomic(IB_WR_SEND));
	KUNIT_EXPECT_FALSE(test, sroce_seg_is_local(SROCE_WR_ATOMIC_WRITE));
	KUNIT_EXPECT_EQ(test, (u32)sroce_seg_wc_opcode(SROCE_WR_ATOMIC_WRITE),
			9U);
}

static void seg_aeth(struct kunit *test)
{
	enum ib_wc_status st = IB_WC_SUCCESS;

	KUNIT_EXPECT_EQ(test, sroce_aeth_decode(0x1f, &st), SROCE_AETH_ACK);
	KUNIT_EXPECT_EQ(test, sroce_aeth_decode(0x00, &st), SROCE_AETH_ACK);
	KUNIT_EXPECT_EQ(test, sroce_aeth_decode(0x20, &st), SROCE_AETH_RNR);
	KUNIT_EXPECT_EQ(test, sroce_aeth_decode(0x3f, &st), SROCE_AETH_RNR);
	KUNIT_EXPECT_EQ(test, sroce_aeth_decode(0x60, &st), SROCE_AETH_SEQ_ERR);
	KUNIT_EXPECT_EQ(test, sroce_aeth_decode(0x61, &st), SROCE_AETH_FATAL);
	KUNIT_EXPECT_EQ(test, st, IB_WC_REM_INV_REQ_ERR);
	KUNIT_EXPECT_EQ(test, sroce_aeth_decode(0x62, &st), SROCE_AETH_FATAL);
	KUNIT_EXPECT_EQ(test, st, IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, sroce_aeth_decode(0x63, &st), SROCE_AETH_FATAL);
	KUNIT_EXPECT_EQ(test, st, IB_WC_REM_OP_ERR);
	KUNIT_EXPECT_EQ(test, sroce_aeth_decode(0x64, &st), SROCE_AETH_FATAL);
	KUNIT_EXPECT_EQ(test, st, IB_WC_REM_INV_REQ_ERR);
	/* Reserved: type 10b, NAK codes 5..31, and bit 7 set. */
	KUNIT_EXPECT_EQ(test, sroce_aeth_decode(0x40, &st), SROCE_AETH_RESERVED);
	KUNIT_EXPECT_EQ(test, sroce_aeth_decode(0x65, &st), SROCE_AETH_RESERVED);
	KUNIT_EXPECT_EQ(test, sroce_aeth_decode(0x7f, &st), SROCE_AETH_RESERVED);
	KUNIT_EXPECT_EQ(test, sroce_aeth_decode(0x9f, &st), SROCE_AETH_RESERVED);
}

static void seg_timers(struct kunit *test)
{
	/* IBTA table 45. */
	KUNIT_EXPECT_EQ(test, sroce_seg_rnr_usecs(0), 655360U);
	KUNIT_EXPECT_EQ(test, sroce_seg_rnr_usecs(1), 10U);
	KUNIT_EXPECT_EQ(test, sroce_seg_rnr_usecs(5), 60U);
	KUNIT_EXPECT_EQ(test, sroce_seg_rnr_usecs(12), 640U);
	KUNIT_EXPECT_EQ(test, sroce_seg_rnr_usecs(14), 1280U);
	KUNIT_EXPECT_EQ(test, sroce_seg_rnr_usecs(18), 5120U);
	KUNIT_EXPECT_EQ(test, sroce_seg_rnr_usecs(24), 40960U);
	KUNIT_EXPECT_EQ(test, sroce_seg_rnr_usecs(31), 491520U);
	/* Only the 5-bit code counts. */
	KUNIT_EXPECT_EQ(test, sroce_seg_rnr_usecs(0x21), 10U);

	/* 4.096 us * 2^timeout; 0 disables the timer. */
	KUNIT_EXPECT_EQ(test, sroce_seg_timeout_nsecs(0), 0ULL);
	KUNIT_EXPECT_EQ(test, sroce_seg_timeout_nsecs(1), 8192ULL);
	KUNIT_EXPECT_EQ(test, sroce_seg_timeout_nsecs(14), 67108864ULL);
	KUNIT_EXPECT_EQ(test, sroce_seg_timeout_nsecs(31), 4096ULL << 31);

	/* In ticks: rounded up, plus the tick under way. */
	KUNIT_EXPECT_EQ(test, sroce_seg_timeout_ticks(0, 4000000), 0ULL);
	/* 67.1 ms: 16.78 ticks of 4 ms (HZ 250) -> 17 + 1. */
	KUNIT_EXPECT_EQ(test, sroce_seg_timeout_ticks(14, 4000000), 18ULL);
	/* HZ 1000: 67.11 -> 68 + 1; HZ 100: 6.71 -> 7 + 1. */
	KUNIT_EXPECT_EQ(test, sroce_seg_timeout_ticks(14, 1000000), 69ULL);
	KUNIT_EXPECT_EQ(test, sroce_seg_timeout_ticks(14, 10000000), 8ULL);
	/* Far below a tick: still one whole tick after the current one. */
	KUNIT_EXPECT_EQ(test, sroce_seg_timeout_ticks(1, 4000000), 2ULL);
	/* An exact multiple is not rounded up: 4096 << 10 ns is 4 * 1048576. */
	KUNIT_EXPECT_EQ(test, sroce_seg_timeout_ticks(10, 1048576), 5ULL);
}

static void seg_stall_grace(struct kunit *test)
{
	/* Within the timer wheel's slack: act now. */
	KUNIT_EXPECT_EQ(test, sroce_seg_stall_grace(18, 0), 0UL);
	KUNIT_EXPECT_EQ(test, sroce_seg_stall_grace(18, 1), 0UL);
	KUNIT_EXPECT_EQ(test, sroce_seg_stall_grace(18, 4), 0UL);
	/* Beyond a quarter of the timeout: as long as the stall. */
	KUNIT_EXPECT_EQ(test, sroce_seg_stall_grace(18, 5), 5UL);
	KUNIT_EXPECT_EQ(test, sroce_seg_stall_grace(18, 17), 17UL);
	/* At most one timeout. */
	KUNIT_EXPECT_EQ(test, sroce_seg_stall_grace(18, 229), 18UL);
	/* Short timeouts: two ticks of slack at least. */
	KUNIT_EXPECT_EQ(test, sroce_seg_stall_grace(2, 2), 0UL);
	KUNIT_EXPECT_EQ(test, sroce_seg_stall_grace(2, 3), 2UL);
	/* A timer that fired early or on time is no stall. */
	KUNIT_EXPECT_EQ(test, sroce_seg_stall_grace(18, -1), 0UL);
}

static struct kunit_case sroce_seg_cases[] = {
	KUNIT_CASE(seg_counts),
	KUNIT_CASE(seg_npsn),
	KUNIT_CASE(seg_opcodes),
	KUNIT_CASE(seg_atomic_write),
	KUNIT_CASE(seg_aeth),
	KUNIT_CASE(seg_timers),
	KUNIT_CASE(seg_stall_grace),
	{}
};

static struct kunit_suite sroce_seg_suite = {
	.name		= "sroce_seg",
	.test_cases	= sroce_seg_cases,
};

kunit_test_suites(&sroce_seg_suite);
