// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the UC responder's PSN rule: in-sequence packets run,
 * a gap inside a message drops the rest of it, the next FIRST or ONLY
 * resynchronises at its own PSN, duplicates are dropped, and a packet
 * that breaks the opcode sequence is treated as a gap.
 */
#include <kunit/test.h>

#include "sroce_pkt.h"
#include "sroce_resp.h"

static u16 opf(u8 opcode)
{
	return sroce_opcode_info(opcode)->flags;
}

static enum sroce_resp_uc_action uc(u32 psn, u32 epsn,
				    enum sroce_resp_msg msg, u8 opcode,
				    bool *dropping)
{
	return sroce_resp_uc_check(psn, epsn, msg, opf(opcode), dropping);
}

static void uc_in_sequence(struct kunit *test)
{
	bool d = false;

	KUNIT_EXPECT_EQ(test, uc(10, 10, SROCE_RESP_MSG_NONE,
				 SROCE_OP_UC_SEND_FIRST, &d),
			SROCE_RESP_UC_EXECUTE);
	KUNIT_EXPECT_EQ(test, uc(11, 11, SROCE_RESP_MSG_SEND,
				 SROCE_OP_UC_SEND_MIDDLE, &d),
			SROCE_RESP_UC_EXECUTE);
	KUNIT_EXPECT_EQ(test, uc(12, 12, SROCE_RESP_MSG_SEND,
				 SROCE_OP_UC_SEND_LAST_WITH_IMM, &d),
			SROCE_RESP_UC_EXECUTE);
	KUNIT_EXPECT_EQ(test, uc(13, 13, SROCE_RESP_MSG_NONE,
				 SROCE_OP_UC_RDMA_WRITE_ONLY, &d),
			SROCE_RESP_UC_EXECUTE);
	/* Across the 24-bit wrap. */
	KUNIT_EXPECT_EQ(test, uc(0, 0, SROCE_RESP_MSG_WRITE,
				 SROCE_OP_UC_RDMA_WRITE_LAST, &d),
			SROCE_RESP_UC_EXECUTE);
	KUNIT_EXPECT_FALSE(test, d);
}

static void uc_gap_in_message(struct kunit *test)
{
	bool d = false;

	/* MIDDLE 21 lost: LAST 22 abandons the SEND, starts dropping. */
	KUNIT_EXPECT_EQ(test, uc(22, 21, SROCE_RESP_MSG_SEND,
				 SROCE_OP_UC_SEND_LAST, &d),
			SROCE_RESP_UC_ABANDON);
	KUNIT_EXPECT_TRUE(test, d);
	/* Whatever else of the message comes is dropped, PSN or not. */
	KUNIT_EXPECT_EQ(test, uc(21, 21, SROCE_RESP_MSG_NONE,
				 SROCE_OP_UC_SEND_MIDDLE, &d),
			SROCE_RESP_UC_DROP);
	KUNIT_EXPECT_EQ(test, uc(30, 21, SROCE_RESP_MSG_NONE,
				 SROCE_OP_UC_SEND_LAST, &d),
			SROCE_RESP_UC_DROP);
	KUNIT_EXPECT_TRUE(test, d);
	/* The next message's first packet resynchronises at its PSN. */
	KUNIT_EXPECT_EQ(test, uc(31, 21, SROCE_RESP_MSG_NONE,
				 SROCE_OP_UC_RDMA_WRITE_FIRST, &d),
			SROCE_RESP_UC_RESYNC);
	KUNIT_EXPECT_FALSE(test, d);
}

static void uc_lost_last(struct kunit *test)
{
	bool d = false;

	/* LAST 12 lost; ONLY 13 starts a message while a SEND is open. */
	KUNIT_EXPECT_EQ(test, uc(13, 12, SROCE_RESP_MSG_SEND,
				 SROCE_OP_UC_SEND_ONLY, &d),
			SROCE_RESP_UC_RESYNC);
	/* Even in sequence, a new message over an open one resyncs. */
	KUNIT_EXPECT_EQ(test, uc(12, 12, SROCE_RESP_MSG_WRITE,
				 SROCE_OP_UC_SEND_FIRST, &d),
			SROCE_RESP_UC_RESYNC);
	/* A whole message lost: its successor is ahead, resync. */
	KUNIT_EXPECT_EQ(test, uc(40, 12, SROCE_RESP_MSG_NONE,
				 SROCE_OP_UC_SEND_ONLY_WITH_IMM, &d),
			SROCE_RESP_UC_RESYNC);
	KUNIT_EXPECT_FALSE(test, d);
}

static void uc_bad_sequence(struct kunit *test)
{
	bool d = false;

	/* A MIDDLE with no message open, in sequence: a gap all the same. */
	KUNIT_EXPECT_EQ(test, uc(5, 5, SROCE_RESP_MSG_NONE,
				 SROCE_OP_UC_SEND_MIDDLE, &d),
			SROCE_RESP_UC_ABANDON);
	KUNIT_EXPECT_TRUE(test, d);
	d = false;
	/* A WRITE MIDDLE inside a SEND. */
	KUNIT_EXPECT_EQ(test, uc(6, 6, SROCE_RESP_MSG_SEND,
				 SROCE_OP_UC_RDMA_WRITE_MIDDLE, &d),
			SROCE_RESP_UC_ABANDON);
	KUNIT_EXPECT_TRUE(test, d);
}

static void uc_duplicate(struct kunit *test)
{
	bool d = false;

	/* Behind ePSN: dropped, and the message in progress is kept. */
	KUNIT_EXPECT_EQ(test, uc(9, 10, SROCE_RESP_MSG_SEND,
				 SROCE_OP_UC_SEND_MIDDLE, &d),
			SROCE_RESP_UC_DUPLICATE);
	KUNIT_EXPECT_EQ(test, uc(9, 10, SROCE_RESP_MSG_WRITE,
				 SROCE_OP_UC_RDMA_WRITE_LAST, &d),
			SROCE_RESP_UC_DUPLICATE);
	KUNIT_EXPECT_FALSE(test, d);
	/* Behind across the wrap: 0xffffff is one behind 0. */
	KUNIT_EXPECT_EQ(test, uc(0xffffff, 0, SROCE_RESP_MSG_SEND,
				 SROCE_OP_UC_SEND_LAST, &d),
			SROCE_RESP_UC_DUPLICATE);
	/* Nor does a packet behind end the dropping. */
	d = true;
	KUNIT_EXPECT_EQ(test, uc(3, 10, SROCE_RESP_MSG_NONE,
				 SROCE_OP_UC_SEND_MIDDLE, &d),
			SROCE_RESP_UC_DUPLICATE);
	KUNIT_EXPECT_TRUE(test, d);
}

/*
 * A FIRST or ONLY behind ePSN starts a message all the same (a requester
 * that started again lower; rdma_rxe does the same), also after a forged
 * FIRST took ePSN as far ahead as it goes.
 */
static void uc_first_behind(struct kunit *test)
{
	bool d = true;

	KUNIT_EXPECT_EQ(test, uc(9, 10, SROCE_RESP_MSG_NONE,
				 SROCE_OP_UC_SEND_ONLY, &d),
			SROCE_RESP_UC_RESYNC);
	KUNIT_EXPECT_FALSE(test, d);
	KUNIT_EXPECT_EQ(test, uc(0xffffff, 0, SROCE_RESP_MSG_SEND,
				 SROCE_OP_UC_SEND_FIRST, &d),
			SROCE_RESP_UC_RESYNC);
	/* ePSN 100 + 2^23 - 1 after a forged FIRST; the real stream at 100. */
	KUNIT_EXPECT_EQ(test, uc(100, 100 + (1 << 23) - 1, SROCE_RESP_MSG_NONE,
				 SROCE_OP_UC_RDMA_WRITE_FIRST, &d),
			SROCE_RESP_UC_RESYNC);
	KUNIT_EXPECT_EQ(test, uc(100, 100 + (1 << 23) - 1, SROCE_RESP_MSG_NONE,
				 SROCE_OP_UC_RDMA_WRITE_ONLY_WITH_IMM, &d),
			SROCE_RESP_UC_RESYNC);
}

static struct kunit_case sroce_uc_cases[] = {
	KUNIT_CASE(uc_in_sequence),
	KUNIT_CASE(uc_gap_in_message),
	KUNIT_CASE(uc_lost_last),
	KUNIT_CASE(uc_bad_sequence),
	KUNIT_CASE(uc_duplicate),
	KUNIT_CASE(uc_first_behind),
	{}
};

static struct kunit_suite sroce_uc_suite = {
	.name		= "sroce_uc",
	.test_cases	= sroce_uc_cases,
};

kunit_test_suites(&sroce_uc_suite);
