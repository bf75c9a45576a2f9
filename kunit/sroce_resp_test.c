// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the responder's decisions: PSN classes and the
 * NAK-once rule, when a coalesced ACK goes, which duplicate jumps the
 * request queue, opcode sequences, access and length checks and the NAK
 * each earns, AETH syndromes on the wire, READ response segmentation, and
 * the READ/ATOMIC replay ring that keeps atomics from running twice.
 */
#include <kunit/test.h>
#include <linux/kernel.h>

#include "sroce_pkt.h"
#include "sroce_resp.h"

static u16 opflags(u8 opcode)
{
	return sroce_opcode_info(opcode)->flags;
}

static void psn_expected(struct kunit *test)
{
	bool nak_sent = true;

	KUNIT_EXPECT_EQ(test, sroce_resp_psn_check(100, 100, &nak_sent),
			SROCE_RESP_PSN_EXECUTE);
	/* The expected PSN ends the silence after a NAK. */
	KUNIT_EXPECT_FALSE(test, nak_sent);
}

static void psn_duplicate(struct kunit *test)
{
	bool nak_sent = false;

	KUNIT_EXPECT_EQ(test, sroce_resp_psn_check(99, 100, &nak_sent),
			SROCE_RESP_PSN_DUPLICATE);
	/* The far end of the window behind ePSN: 2^23 back. */
	KUNIT_EXPECT_EQ(test, sroce_resp_psn_check(0x800064, 100, &nak_sent),
			SROCE_RESP_PSN_DUPLICATE);
	/* Across the 24-bit wrap. */
	KUNIT_EXPECT_EQ(test, sroce_resp_psn_check(0xffffff, 0, &nak_sent),
			SROCE_RESP_PSN_DUPLICATE);
	KUNIT_EXPECT_FALSE(test, nak_sent);
	/* A duplicate does not end the silence either. */
	nak_sent = true;
	KUNIT_EXPECT_EQ(test, sroce_resp_psn_check(99, 100, &nak_sent),
			SROCE_RESP_PSN_DUPLICATE);
	KUNIT_EXPECT_TRUE(test, nak_sent);
}

static void psn_out_of_sequence(struct kunit *test)
{
	bool nak_sent = false;

	/* The first packet ahead earns one NAK... */
	KUNIT_EXPECT_EQ(test, sroce_resp_psn_check(101, 100, &nak_sent),
			SROCE_RESP_PSN_NAK_SEQ);
	KUNIT_EXPECT_TRUE(test, nak_sent);
	/* ...the next ones silence, until the expected one comes. */
	KUNIT_EXPECT_EQ(test, sroce_resp_psn_check(102, 100, &nak_sent),
			SROCE_RESP_PSN_DROP);
	KUNIT_EXPECT_EQ(test, sroce_resp_psn_check(0x800063, 100, &nak_sent),
			SROCE_RESP_PSN_DROP);
	KUNIT_EXPECT_EQ(test, sroce_resp_psn_check(100, 100, &nak_sent),
			SROCE_RESP_PSN_EXECUTE);
	KUNIT_EXPECT_EQ(test, sroce_resp_psn_check(102, 101, &nak_sent),
			SROCE_RESP_PSN_NAK_SEQ);

	/* Ahead across the wrap. */
	nak_sent = false;
	KUNIT_EXPECT_EQ(test, sroce_resp_psn_check(0, 0xffffff, &nak_sent),
			SROCE_RESP_PSN_NAK_SEQ);
}

static void ack_due(struct kunit *test)
{
	/* Nothing owed: nothing goes, whatever waits. */
	KUNIT_EXPECT_FALSE(test, sroce_resp_ack_due(false, false, 0));
	KUNIT_EXPECT_FALSE(test, sroce_resp_ack_due(false, true, 100));
	/* Owed and nothing queued: at once. */
	KUNIT_EXPECT_TRUE(test, sroce_resp_ack_due(true, false, 1));
	/* Behind a backlog: after 16 requests executed, not before. */
	KUNIT_EXPECT_FALSE(test, sroce_resp_ack_due(true, true, 1));
	KUNIT_EXPECT_FALSE(test, sroce_resp_ack_due(true, true, 15));
	KUNIT_EXPECT_TRUE(test, sroce_resp_ack_due(true, true, 16));
	KUNIT_EXPECT_TRUE(test, sroce_resp_ack_due(true, true, 17));
}

static void reask(struct kunit *test)
{
	static const u8 others[] = {
		SROCE_OP_RC_RDMA_WRITE_ONLY, SROCE_OP_RC_SEND_ONLY,
		SROCE_OP_RC_FETCH_ADD, SROCE_OP_RC_ATOMIC_WRITE,
		SROCE_OP_RC_RDMA_READ_RESPONSE_FIRST,
	};
	u16 read = opflags(SROCE_OP_RC_RDMA_READ_REQUEST);
	unsigned int i;

	/* A READ request behind ePSN, also from a READ's middle. */
	KUNIT_EXPECT_TRUE(test, sroce_resp_is_reask(read, 99, 100));
	KUNIT_EXPECT_TRUE(test, sroce_resp_is_reask(read, 0x800064, 100));
	KUNIT_EXPECT_TRUE(test, sroce_resp_is_reask(read, 0xffffff, 0));
	/* At or ahead of ePSN it is new, executed in order. */
	KUNIT_EXPECT_FALSE(test, sroce_resp_is_reask(read, 100, 100));
	KUNIT_EXPECT_FALSE(test, sroce_resp_is_reask(read, 101, 100));
	KUNIT_EXPECT_FALSE(test, sroce_resp_is_reask(read, 0, 0xffffff));
	/* Other duplicates keep their place, as do READ responses. */
	for (i = 0; i < ARRAY_SIZE(others); i++)
		KUNIT_EXPECT_FALSE_MSG(test, sroce_resp_is_reask(opflags(others[i]),
								 99, 100),
				       "opcode %#x", others[i]);
}

/* The device-wide bound on queued requests: exact, and undone on refusal. */
static void inq_charge(struct kunit *test)
{
	atomic_long_t bytes = ATOMIC_LONG_INIT(0);

	KUNIT_EXPECT_TRUE(test, sroce_resp_inq_charge(&bytes, 1024, 4096));
	KUNIT_EXPECT_TRUE(test, sroce_resp_inq_charge(&bytes, 3072, 4096));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&bytes), 4096);
	/* Full: one byte more is refused and leaves the count as it was. */
	KUNIT_EXPECT_FALSE(test, sroce_resp_inq_charge(&bytes, 1, 4096));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&bytes), 4096);
	atomic_long_sub(1024, &bytes);
	KUNIT_EXPECT_FALSE(test, sroce_resp_inq_charge(&bytes, 1025, 4096));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&bytes), 3072);
	KUNIT_EXPECT_TRUE(test, sroce_resp_inq_charge(&bytes, 1024, 4096));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&bytes), 4096);
	/* One request larger than the whole bound never fits. */
	atomic_long_set(&bytes, 0);
	KUNIT_EXPECT_FALSE(test, sroce_resp_inq_charge(&bytes, 4097, 4096));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&bytes), 0);
}

static void opseq(struct kunit *test)
{
	static const u8 starts[] = {
		SROCE_OP_RC_SEND_FIRST, SROCE_OP_RC_SEND_ONLY,
		SROCE_OP_RC_SEND_ONLY_WITH_IMM, SROCE_OP_RC_RDMA_WRITE_FIRST,
		SROCE_OP_RC_RDMA_WRITE_ONLY, SROCE_OP_RC_RDMA_READ_REQUEST,
		SROCE_OP_RC_COMPARE_SWAP, SROCE_OP_RC_FETCH_ADD,
		SROCE_OP_RC_ATOMIC_WRITE, SROCE_OP_RC_FLUSH,
	};
	static const u8 sends[] = {
		SROCE_OP_RC_SEND_MIDDLE, SROCE_OP_RC_SEND_LAST,
		SROCE_OP_RC_SEND_LAST_WITH_IMM, SROCE_OP_RC_SEND_LAST_WITH_INV,
	};
	static const u8 writes[] = {
		SROCE_OP_RC_RDMA_WRITE_MIDDLE, SROCE_OP_RC_RDMA_WRITE_LAST,
		SROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMM,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		u16 f = opflags(starts[i]);

		/* A new message may start only between messages. */
		KUNIT_EXPECT_TRUE(test, sroce_resp_opseq_ok(SROCE_RESP_MSG_NONE, f));
		KUNIT_EXPECT_FALSE(test, sroce_resp_opseq_ok(SROCE_RESP_MSG_SEND, f));
		KUNIT_EXPECT_FALSE(test, sroce_resp_opseq_ok(SROCE_RESP_MSG_WRITE, f));
	}
	for (i = 0; i < ARRAY_SIZE(sends); i++) {
		u16 f = opflags(sends[i]);

		/* MIDDLE or LAST without FIRST, or of another message. */
		KUNIT_EXPECT_FALSE(test, sroce_resp_opseq_ok(SROCE_RESP_MSG_NONE, f));
		KUNIT_EXPECT_TRUE(test, sroce_resp_opseq_ok(SROCE_RESP_MSG_SEND, f));
		KUNIT_EXPECT_FALSE(test, sroce_resp_opseq_ok(SROCE_RESP_MSG_WRITE, f));
	}
	for (i = 0; i < ARRAY_SIZE(writes); i++) {
		u16 f = opflags(writes[i]);

		KUNIT_EXPECT_FALSE(test, sroce_resp_opseq_ok(SROCE_RESP_MSG_NONE, f));
		KUNIT_EXPECT_FALSE(test, sroce_resp_opseq_ok(SROCE_RESP_MSG_SEND, f));
		KUNIT_EXPECT_TRUE(test, sroce_resp_opseq_ok(SROCE_RESP_MSG_WRITE, f));
	}
}

static void access_checks(struct kunit *test)
{
	u16 wr = opflags(SROCE_OP_RC_RDMA_WRITE_FIRST);
	u16 rd = opflags(SROCE_OP_RC_RDMA_READ_REQUEST);
	u16 cs = opflags(SROCE_OP_RC_COMPARE_SWAP);
	u16 fa = opflags(SROCE_OP_RC_FETCH_ADD);
	int all = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
		  IB_ACCESS_REMOTE_ATOMIC;

	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(wr, all, 0x1000, 4096), 0);
	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(rd, all, 0x1000, 4096), 0);
	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(cs, all, 0x1000, 8), 0);
	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(fa, all, 0x1008, 8), 0);

	/* The QP does not grant the operation: remote access error. */
	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(wr, all & ~IB_ACCESS_REMOTE_WRITE,
						    0x1000, 4096),
			SROCE_AETH_NAK_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(rd, IB_ACCESS_REMOTE_WRITE,
						    0x1000, 4096),
			SROCE_AETH_NAK_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(fa, IB_ACCESS_REMOTE_READ,
						    0x1000, 8),
			SROCE_AETH_NAK_REM_ACCESS_ERR);

	/* A misaligned atomic: invalid request. */
	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(cs, all, 0x1004, 8),
			SROCE_AETH_NAK_INVALID_REQ);
	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(fa, all, 0x1001, 8),
			SROCE_AETH_NAK_INVALID_REQ);

	/* A range that wraps the address space. */
	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(wr, all, ~0ULL - 10, 12),
			SROCE_AETH_NAK_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(rd, all, ~0ULL - 10, 11), 0);
	/* Zero length names no memory at all. */
	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(rd, all, ~0ULL, 0), 0);

	/* Longer than a message can be (2^31). */
	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(rd, all, 0, 0x80000000u), 0);
	KUNIT_EXPECT_EQ(test, sroce_resp_access_nak(rd, all, 0, 0x80000001u),
			SROCE_AETH_NAK_INVALID_REQ);
}

/* sroce_resp_atomic_write_nak()'s arguments, and the NAK byte they get. */
#define AW_ALL (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
		IB_ACCESS_REMOTE_ATOMIC)

static const struct atomic_write_case {
	int access;
	u64 va;
	u32 len, paylen;
	u8 pad, nak;
} atomic_write_cases[] = {
	{ AW_ALL, 0x1008, 8, 8, 0, 0 },
	{ IB_ACCESS_REMOTE_WRITE, 0x1000, 8, 8, 0, 0 },
	/* Atomic rights do not do: it is a write. */
	{ IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_REMOTE_READ, 0x1000, 8, 8, 0,
	  SROCE_AETH_NAK_REM_ACCESS_ERR },
	{ AW_ALL, 0x1004, 8, 8, 0, SROCE_AETH_NAK_INVALID_REQ },
	{ AW_ALL, 0x1001, 8, 8, 0, SROCE_AETH_NAK_INVALID_REQ },
	/* The QP's rights are checked before the alignment. */
	{ 0, 0x1001, 8, 8, 0, SROCE_AETH_NAK_REM_ACCESS_ERR },
	{ AW_ALL, 0x1000, 4, 8, 0, SROCE_AETH_NAK_INVALID_REQ },
	{ AW_ALL, 0x1000, 16, 8, 0, SROCE_AETH_NAK_INVALID_REQ },
	{ AW_ALL, 0x1000, 0, 0, 0, SROCE_AETH_NAK_INVALID_REQ },
	{ AW_ALL, 0x1000, 8, 4, 0, SROCE_AETH_NAK_INVALID_REQ },
	{ AW_ALL, 0x1000, 8, 12, 0, SROCE_AETH_NAK_INVALID_REQ },
	{ AW_ALL, 0x1000, 8, 8, 1, SROCE_AETH_NAK_INVALID_REQ },
	/* The last 8 bytes of the address space, and past them. */
	{ AW_ALL, ~7ULL, 8, 8, 0, 0 },
};

/*
 * ATOMIC WRITE before its R_Key: remote write on the QP, 8-byte alignment
 * (invalid request, as for atomics), exactly 8 bytes named and carried
 * without pad; then the R_Key's verdict; each as the NAK byte it becomes.
 */
static void atomic_write_checks(struct kunit *test)
{
	const struct atomic_write_case *c;
	int i;

	for (i = 0; i < ARRAY_SIZE(atomic_write_cases); i++) {
		c = &atomic_write_cases[i];
		KUNIT_EXPECT_EQ_MSG(test,
				    sroce_resp_atomic_write_nak(c->access, c->va,
								c->len,
								c->paylen,
								c->pad),
				    c->nak, "atomic_write_cases[%d]", i);
	}

	KUNIT_EXPECT_EQ(test, sroce_resp_atomic_write_key_nak(0), 0);
	KUNIT_EXPECT_EQ(test, sroce_resp_atomic_write_key_nak(-EACCES),
			SROCE_AETH_NAK_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, sroce_resp_atomic_write_key_nak(-EINVAL),
			SROCE_AETH_NAK_INVALID_REQ);
	KUNIT_EXPECT_EQ(test, sroce_resp_atomic_write_key_nak(-EOPNOTSUPP),
			SROCE_AETH_NAK_INVALID_REQ);

	/* The syndromes on the wire: NAK type 11b, then the code. */
	KUNIT_EXPECT_EQ(test, sroce_resp_syndrome_nak(SROCE_AETH_NAK_INVALID_REQ),
			0x61);
	KUNIT_EXPECT_EQ(test,
			sroce_resp_syndrome_nak(SROCE_AETH_NAK_REM_ACCESS_ERR),
			0x62);
}

/*
 * An ATOMIC WRITE keeps its own entry: a duplicate finds it, by PSN and
 * type, and is answered without being executed again; no READ or ATOMIC
 * duplicate at that PSN takes it for its own.
 */
static void atomic_write_replay(struct kunit *test)
{
	struct sroce_resp_res *ring, *aw;
	u32 head = 0;

	ring = kunit_kcalloc(test, SROCE_RESP_MAX_RES, sizeof(*ring),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ring);

	aw = sroce_resp_res_alloc(ring, &head, 4, SROCE_RESP_RES_ATOMIC_WRITE,
				  0xfffffe, 0xfffffe);
	KUNIT_EXPECT_PTR_EQ(test, aw, &ring[0]);

	KUNIT_EXPECT_PTR_EQ(test, sroce_resp_res_find(ring, 0xfffffe,
						      SROCE_RESP_RES_ATOMIC_WRITE),
			    aw);
	KUNIT_EXPECT_NULL(test, sroce_resp_res_find(ring, 0xffffff,
						    SROCE_RESP_RES_ATOMIC_WRITE));
	KUNIT_EXPECT_NULL(test, sroce_resp_res_find(ring, 0xfffffe,
						    SROCE_RESP_RES_ATOMIC));
	KUNIT_EXPECT_NULL(test, sroce_resp_res_find(ring, 0xfffffe,
						    SROCE_RESP_RES_READ));
}

static void lengths(struct kunit *test)
{
	u16 sf = opflags(SROCE_OP_RC_SEND_FIRST);
	u16 sm = opflags(SROCE_OP_RC_SEND_MIDDLE);
	u16 sl = opflags(SROCE_OP_RC_SEND_LAST);
	u16 so = opflags(SROCE_OP_RC_SEND_ONLY);
	u16 wf = opflags(SROCE_OP_RC_RDMA_WRITE_FIRST);
	u16 wm = opflags(SROCE_OP_RC_RDMA_WRITE_MIDDLE);
	u16 wl = opflags(SROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMM);
	u16 wo = opflags(SROCE_OP_RC_RDMA_WRITE_ONLY);

	KUNIT_EXPECT_TRUE(test, sroce_resp_send_len_ok(sf, 1024, 1024));
	KUNIT_EXPECT_FALSE(test, sroce_resp_send_len_ok(sf, 1020, 1024));
	KUNIT_EXPECT_FALSE(test, sroce_resp_send_len_ok(sm, 2048, 1024));
	KUNIT_EXPECT_TRUE(test, sroce_resp_send_len_ok(sl, 1, 1024));
	KUNIT_EXPECT_TRUE(test, sroce_resp_send_len_ok(so, 0, 1024));
	KUNIT_EXPECT_TRUE(test, sroce_resp_send_len_ok(so, 1024, 1024));
	KUNIT_EXPECT_FALSE(test, sroce_resp_send_len_ok(so, 1025, 1024));

	/* 3000 bytes at MTU 1024: 1024 + 1024 + 952. */
	KUNIT_EXPECT_TRUE(test, sroce_resp_write_len_ok(wf, 3000, 1024, 1024));
	KUNIT_EXPECT_TRUE(test, sroce_resp_write_len_ok(wm, 1976, 1024, 1024));
	KUNIT_EXPECT_TRUE(test, sroce_resp_write_len_ok(wl, 952, 952, 1024));
	/* The last packet must carry exactly what remains. */
	KUNIT_EXPECT_FALSE(test, sroce_resp_write_len_ok(wl, 952, 948, 1024));
	KUNIT_EXPECT_FALSE(test, sroce_resp_write_len_ok(wl, 952, 956, 1024));
	/* A MIDDLE may not reach or pass the end of the DMA length. */
	KUNIT_EXPECT_FALSE(test, sroce_resp_write_len_ok(wm, 1024, 1024, 1024));
	KUNIT_EXPECT_FALSE(test, sroce_resp_write_len_ok(wm, 500, 1024, 1024));
	/* A FIRST must be a full MTU. */
	KUNIT_EXPECT_FALSE(test, sroce_resp_write_len_ok(wf, 3000, 512, 1024));
	/* ONLY: the whole DMA length, at most one MTU. */
	KUNIT_EXPECT_TRUE(test, sroce_resp_write_len_ok(wo, 0, 0, 1024));
	KUNIT_EXPECT_TRUE(test, sroce_resp_write_len_ok(wo, 1024, 1024, 1024));
	KUNIT_EXPECT_FALSE(test, sroce_resp_write_len_ok(wo, 2048, 1024, 1024));
	KUNIT_EXPECT_FALSE(test, sroce_resp_write_len_ok(wo, 4, 8, 1024));
	/* A READ's responses span less than 2^23 PSNs. */
	KUNIT_EXPECT_TRUE(test, sroce_resp_read_len_ok(0, 256));
	KUNIT_EXPECT_TRUE(test, sroce_resp_read_len_ok(0x80000000U - 256, 256));
	KUNIT_EXPECT_FALSE(test, sroce_resp_read_len_ok(0x80000000U - 255, 256));
	KUNIT_EXPECT_FALSE(test, sroce_resp_read_len_ok(0x80000000U, 256));
	KUNIT_EXPECT_TRUE(test, sroce_resp_read_len_ok(0x80000000U, 512));
}

static void read_segmentation(struct kunit *test)
{
	/* 10000 bytes at 4096: FIRST, MIDDLE, LAST. */
	KUNIT_EXPECT_EQ(test, sroce_resp_read_opcode(true, 10000, 4096),
			SROCE_OP_RC_RDMA_READ_RESPONSE_FIRST);
	KUNIT_EXPECT_EQ(test, sroce_resp_read_opcode(false, 5904, 4096),
			SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE);
	KUNIT_EXPECT_EQ(test, sroce_resp_read_opcode(false, 1808, 4096),
			SROCE_OP_RC_RDMA_READ_RESPONSE_LAST);
	/* One MTU or less, and zero bytes: ONLY. */
	KUNIT_EXPECT_EQ(test, sroce_resp_read_opcode(true, 4096, 4096),
			SROCE_OP_RC_RDMA_READ_RESPONSE_ONLY);
	KUNIT_EXPECT_EQ(test, sroce_resp_read_opcode(true, 0, 4096),
			SROCE_OP_RC_RDMA_READ_RESPONSE_ONLY);
	/* A replay from inside the response continues it. */
	KUNIT_EXPECT_EQ(test, sroce_resp_read_opcode(false, 8192, 4096),
			SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE);
	KUNIT_EXPECT_EQ(test, sroce_resp_read_opcode(false, 100, 4096),
			SROCE_OP_RC_RDMA_READ_RESPONSE_LAST);
}

static void expect_aeth(struct kunit *test, u8 syndrome, u32 msn,
			u8 b0, u8 b1, u8 b2, u8 b3)
{
	struct sroce_aeth aeth;
	const u8 *p = (const u8 *)&aeth;

	sroce_aeth_set(&aeth, syndrome, msn);
	KUNIT_EXPECT_EQ(test, p[0], b0);
	KUNIT_EXPECT_EQ(test, p[1], b1);
	KUNIT_EXPECT_EQ(test, p[2], b2);
	KUNIT_EXPECT_EQ(test, p[3], b3);
}

static void aeth_encode(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_resp_syndrome_ack(), 0x1f);
	KUNIT_EXPECT_EQ(test, sroce_resp_syndrome_rnr(14), 0x2e);
	KUNIT_EXPECT_EQ(test, sroce_resp_syndrome_rnr(0), 0x20);
	/* The timer code is 5 bits; nothing leaks into the type. */
	KUNIT_EXPECT_EQ(test, sroce_resp_syndrome_rnr(0xff), 0x3f);
	KUNIT_EXPECT_EQ(test,
			sroce_resp_syndrome_nak(SROCE_AETH_NAK_PSN_SEQ_ERR), 0x60);
	KUNIT_EXPECT_EQ(test,
			sroce_resp_syndrome_nak(SROCE_AETH_NAK_INVALID_REQ), 0x61);
	KUNIT_EXPECT_EQ(test,
			sroce_resp_syndrome_nak(SROCE_AETH_NAK_REM_ACCESS_ERR), 0x62);
	KUNIT_EXPECT_EQ(test,
			sroce_resp_syndrome_nak(SROCE_AETH_NAK_REM_OP_ERR), 0x63);

	/* On the wire: syndrome, then the 24-bit MSN, big-endian. */
	expect_aeth(test, sroce_resp_syndrome_ack(), 5, 0x1f, 0x00, 0x00, 0x05);
	expect_aeth(test, sroce_resp_syndrome_ack(), 0x1234567,
		    0x1f, 0x23, 0x45, 0x67);
	expect_aeth(test, sroce_resp_syndrome_rnr(14), 0xabcdef,
		    0x2e, 0xab, 0xcd, 0xef);
	expect_aeth(test, sroce_resp_syndrome_nak(SROCE_AETH_NAK_REM_ACCESS_ERR),
		    1, 0x62, 0x00, 0x00, 0x01);
}

static void replay_ring(struct kunit *test)
{
	struct sroce_resp_res *ring, *a, *b, *c;
	u32 head = 0;

	ring = kunit_kcalloc(test, SROCE_RESP_MAX_RES, sizeof(*ring),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ring);

	a = sroce_resp_res_alloc(ring, &head, 2, SROCE_RESP_RES_ATOMIC, 10, 10);
	a->orig = 0x1122334455667788ULL;
	/* A READ across the PSN wrap. */
	b = sroce_resp_res_alloc(ring, &head, 2, SROCE_RESP_RES_READ,
				 0xfffffe, 0x000001);
	KUNIT_EXPECT_PTR_EQ(test, a, &ring[0]);
	KUNIT_EXPECT_PTR_EQ(test, b, &ring[1]);
	KUNIT_EXPECT_EQ(test, b->first_psn, 0xfffffeU);
	KUNIT_EXPECT_EQ(test, b->last_psn, 0x000001U);

	/* The duplicate ATOMIC is answered with the saved value... */
	KUNIT_EXPECT_PTR_EQ(test,
			    sroce_resp_res_find(ring, 10, SROCE_RESP_RES_ATOMIC),
			    a);
	KUNIT_EXPECT_EQ(test, a->orig, 0x1122334455667788ULL);
	/* ...and only an ATOMIC at its PSN matches it. */
	KUNIT_EXPECT_NULL(test, sroce_resp_res_find(ring, 11,
						    SROCE_RESP_RES_ATOMIC));
	KUNIT_EXPECT_NULL(test, sroce_resp_res_find(ring, 10,
						    SROCE_RESP_RES_READ));

	KUNIT_EXPECT_PTR_EQ(test,
			    sroce_resp_res_find(ring, 0xffffff, SROCE_RESP_RES_READ),
			    b);
	KUNIT_EXPECT_PTR_EQ(test,
			    sroce_resp_res_find(ring, 0x000001, SROCE_RESP_RES_READ),
			    b);
	KUNIT_EXPECT_NULL(test, sroce_resp_res_find(ring, 0x000002,
						    SROCE_RESP_RES_READ));
	KUNIT_EXPECT_NULL(test, sroce_resp_res_find(ring, 0xfffffd,
						    SROCE_RESP_RES_READ));

	/* The window is 2: a third request recycles the oldest, cleared. */
	c = sroce_resp_res_alloc(ring, &head, 2, SROCE_RESP_RES_READ, 20, 23);
	KUNIT_EXPECT_PTR_EQ(test, c, a);
	KUNIT_EXPECT_EQ(test, c->type, SROCE_RESP_RES_READ);
	KUNIT_EXPECT_EQ(test, c->orig, 0ULL);
	/* A duplicate of a forgotten ATOMIC is dropped, never re-executed. */
	KUNIT_EXPECT_NULL(test, sroce_resp_res_find(ring, 10,
						    SROCE_RESP_RES_ATOMIC));

	/* A window that shrank below the head starts over at 0. */
	head = 5;
	KUNIT_EXPECT_PTR_EQ(test, sroce_resp_res_alloc(ring, &head, 3,
						       SROCE_RESP_RES_ATOMIC,
						       30, 30),
			    &ring[0]);
	KUNIT_EXPECT_EQ(test, head, 1U);
	/* A window beyond the ring's capacity is capped by it. */
	head = SROCE_RESP_MAX_RES - 1;
	KUNIT_EXPECT_PTR_EQ(test, sroce_resp_res_alloc(ring, &head, 1000,
						       SROCE_RESP_RES_ATOMIC,
						       31, 31),
			    &ring[SROCE_RESP_MAX_RES - 1]);
	KUNIT_EXPECT_EQ(test, head, 0U);
	/*
	 * max_dest_rd_atomic 0 admits no request (the caller NAKs it); an
	 * entry is still never NULL, should the window change under it.
	 */
	KUNIT_EXPECT_PTR_EQ(test, sroce_resp_res_alloc(ring, &head, 0,
						       SROCE_RESP_RES_ATOMIC,
						       32, 32),
			    &ring[0]);
	KUNIT_EXPECT_EQ(test, head, 0U);
}

/*
 * A new request's entry makes every older one that meets its PSNs
 * forgotten: one left from before the PSN space wrapped (fewer READs and
 * ATOMICs than the window in 2^24 PSNs), or beyond a window that shrank.
 * Its duplicate is answered from the new entry, never from the old one.
 */
static void replay_ring_stale(struct kunit *test)
{
	struct sroce_resp_res *ring, *old, *fresh, *wide, *r;
	u32 head = 0;
	int i;

	ring = kunit_kcalloc(test, SROCE_RESP_MAX_RES, sizeof(*ring),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ring);

	/* An ATOMIC at PSN 0x100, then one at 0x100 again a wrap later. */
	old = sroce_resp_res_alloc(ring, &head, 4, SROCE_RESP_RES_ATOMIC,
				   0x100, 0x100);
	old->orig = 0xaaaa;
	fresh = sroce_resp_res_alloc(ring, &head, 4, SROCE_RESP_RES_ATOMIC,
				     0x100, 0x100);
	fresh->orig = 0xbbbb;
	KUNIT_EXPECT_PTR_EQ(test, fresh, &ring[1]);
	KUNIT_EXPECT_EQ(test, old->type, SROCE_RESP_RES_FREE);
	r = sroce_resp_res_find(ring, 0x100, SROCE_RESP_RES_ATOMIC);
	KUNIT_EXPECT_PTR_EQ(test, r, fresh);
	KUNIT_EXPECT_EQ(test, r ? r->orig : 0, 0xbbbbULL);

	/* A READ at 0xfe-0x101 meets the ATOMIC at 0x100 from its start... */
	wide = sroce_resp_res_alloc(ring, &head, 4, SROCE_RESP_RES_READ,
				    0xfe, 0x101);
	KUNIT_EXPECT_EQ(test, fresh->type, SROCE_RESP_RES_FREE);
	KUNIT_EXPECT_NULL(test, sroce_resp_res_find(ring, 0x100,
						    SROCE_RESP_RES_ATOMIC));
	/* ...and an ATOMIC at 0x101 meets the READ from its end. */
	r = sroce_resp_res_alloc(ring, &head, 4, SROCE_RESP_RES_ATOMIC,
				 0x101, 0x101);
	KUNIT_EXPECT_EQ(test, wide->type, SROCE_RESP_RES_FREE);
	KUNIT_EXPECT_NULL(test, sroce_resp_res_find(ring, 0xfe,
						    SROCE_RESP_RES_READ));
	KUNIT_EXPECT_PTR_EQ(test, sroce_resp_res_find(ring, 0x101,
						      SROCE_RESP_RES_ATOMIC),
			    r);

	/* Entries at the PSNs next to a new one are kept. */
	memset(ring, 0, SROCE_RESP_MAX_RES * sizeof(*ring));
	head = 0;
	for (i = 0; i < 16; i++)
		sroce_resp_res_alloc(ring, &head, 16, SROCE_RESP_RES_ATOMIC,
				     0x200 + 2 * i, 0x200 + 2 * i);
	/* The window shrinks to 2: slot 5 (PSN 0x20a) is left beyond it. */
	r = sroce_resp_res_alloc(ring, &head, 2, SROCE_RESP_RES_READ,
				 0x209, 0x209);
	KUNIT_EXPECT_PTR_EQ(test, r, &ring[0]);
	KUNIT_EXPECT_EQ(test, ring[5].type, SROCE_RESP_RES_ATOMIC);
	KUNIT_EXPECT_EQ(test, ring[4].type, SROCE_RESP_RES_ATOMIC);
	/* A wrap later, a request at 0x20a forgets it. */
	r = sroce_resp_res_alloc(ring, &head, 2, SROCE_RESP_RES_ATOMIC,
				 0x20a, 0x20a);
	KUNIT_EXPECT_PTR_EQ(test, r, &ring[1]);
	KUNIT_EXPECT_EQ(test, ring[5].type, SROCE_RESP_RES_FREE);
	KUNIT_EXPECT_PTR_EQ(test, sroce_resp_res_find(ring, 0x20a,
						      SROCE_RESP_RES_ATOMIC),
			    r);
	KUNIT_EXPECT_EQ(test, ring[6].type, SROCE_RESP_RES_ATOMIC);
}

static void read_replay(struct kunit *test)
{
	const struct sroce_resp_res res = {
		.type = SROCE_RESP_RES_READ,
		.rkey = 0x1234,
		.va = 0x10000,
		.length = 8192,
	};

	KUNIT_EXPECT_TRUE(test, sroce_resp_read_replay_ok(&res, 0x10000, 0x1234, 8192));
	/* The rest of it, from the second packet at MTU 4096. */
	KUNIT_EXPECT_TRUE(test, sroce_resp_read_replay_ok(&res, 0x11000, 0x1234, 4096));
	KUNIT_EXPECT_TRUE(test, sroce_resp_read_replay_ok(&res, 0x12000, 0x1234, 0));
	/* Another key, before it, past its end. */
	KUNIT_EXPECT_FALSE(test, sroce_resp_read_replay_ok(&res, 0x10000, 0x1235, 8192));
	KUNIT_EXPECT_FALSE(test, sroce_resp_read_replay_ok(&res, 0xf000, 0x1234, 4096));
	KUNIT_EXPECT_FALSE(test, sroce_resp_read_replay_ok(&res, 0x11000, 0x1234, 4097));
	KUNIT_EXPECT_FALSE(test, sroce_resp_read_replay_ok(&res, 0x12001, 0x1234, 0));
	KUNIT_EXPECT_FALSE(test, sroce_resp_read_replay_ok(&res, ~0ULL, 0x1234, 2));
}

static struct kunit_case sroce_resp_cases[] = {
	KUNIT_CASE(psn_expected),
	KUNIT_CASE(psn_duplicate),
	KUNIT_CASE(psn_out_of_sequence),
	KUNIT_CASE(ack_due),
	KUNIT_CASE(reask),
	KUNIT_CASE(inq_charge),
	KUNIT_CASE(opseq),
	KUNIT_CASE(access_checks),
	KUNIT_CASE(atomic_write_checks),
	KUNIT_CASE(atomic_write_replay),
	KUNIT_CASE(lengths),
	KUNIT_CASE(read_segmentation),
	KUNIT_CASE(aeth_encode),
	KUNIT_CASE(replay_ring),
	KUNIT_CASE(replay_ring_stale),
	KUNIT_CASE(read_replay),
	{}
};

static struct kunit_suite sroce_resp_suite = {
	.name = "sroce_resp",
	.test_cases = sroce_resp_cases,
};

kunit_test_suite(sroce_resp_suite);
