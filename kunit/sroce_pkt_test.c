// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the opcode table and for building and parsing transport
 * headers: the exact wire bytes of every header, the layout of every
 * opcode (against the offsets rdma_rxe uses), a CNP captured from a
 * ConnectX-4 Lx and scapy's UC example, and the rejection reason for each
 * kind of malformed packet.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "sroce_pkt.h"

/* Room for the largest packet the tests build. */
#define TEST_BUF_BYTES		128

/* Distinct values for every extension header field. */
#define TEST_VA			0x0123456789abcdefULL
#define TEST_RKEY		0x89abcdef
#define TEST_DMA_LEN		0x00012345
#define TEST_SYNDROME		(SROCE_AETH_TYPE_NAK | SROCE_AETH_NAK_REM_ACCESS_ERR)
#define TEST_MSN		0x00fedcba
#define TEST_SWAP_ADD		0x1112131415161718ULL
#define TEST_COMPARE		0x2122232425262728ULL
#define TEST_ORIG		0x8877665544332211ULL
#define TEST_IMM		0xdeadbeef
#define TEST_INV_RKEY		0x00c0ffee
#define TEST_QKEY		SROCE_GSI_QKEY
#define TEST_SQPN		0x00654321

/*
 * UDP payload of a CNP captured from a ConnectX-4 Lx (scapy's
 * test/contrib/roce.uts): BTH, 16 reserved bytes, ICRC.
 */
static const u8 hw_cnp[] = {
	0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x82, 0xfd, 0x00, 0x2a,
};

/* UDP payload of scapy's UC SEND ONLY example: 18 bytes, pad 2, ICRC. */
static const u8 scapy_uc_send[] = {
	0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3,
	0x00, 0xcf, 0x17, 0x10, 0x46, 0x30, 0x81, 0x8b,
	0xe2, 0x89, 0x35, 0xd9, 0x0e, 0x9a, 0x95, 0x50,
	0x54, 0x01, 0xbe, 0x88, 0x5e, 0x50, 0x00, 0x00,
	0x78, 0xf3, 0x53, 0xf3,
};

static void expect_bytes(struct kunit *test, const void *got,
			 const u8 *want, size_t n)
{
	const u8 *p = got;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] != want[i]) {
			KUNIT_FAIL(test, "byte %zu is 0x%02x, expected 0x%02x",
				   i, p[i], want[i]);
			return;
		}
	}
}

/*
 * Every opcode sroce accepts, with the flags it must have and the offsets
 * at which rdma_rxe (drivers/infiniband/sw/rxe/rxe_opcode.c) places its
 * extension headers and payload.
 */
struct layout_case {
	u8		opcode;
	const char	*name;
	u16		flags;
	u8		off[SROCE_NUM_HDRS];
	u8		hdr_len;
};

static const struct layout_case layout_cases[] = {
	{
		.opcode		= SROCE_OP_RC_SEND_FIRST,
		.name		= "RC_SEND_FIRST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_FIRST | SROCE_OPF_PAYLOAD,
		.hdr_len	= 12,
	},
	{
		.opcode		= SROCE_OP_RC_SEND_MIDDLE,
		.name		= "RC_SEND_MIDDLE",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_MIDDLE | SROCE_OPF_PAYLOAD,
		.hdr_len	= 12,
	},
	{
		.opcode		= SROCE_OP_RC_SEND_LAST,
		.name		= "RC_SEND_LAST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdr_len	= 12,
	},
	{
		.opcode		= SROCE_OP_RC_SEND_LAST_WITH_IMM,
		.name		= "RC_SEND_LAST_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_IMMDT] = 12 },
		.hdr_len	= 16,
	},
	{
		.opcode		= SROCE_OP_RC_SEND_ONLY,
		.name		= "RC_SEND_ONLY",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdr_len	= 12,
	},
	{
		.opcode		= SROCE_OP_RC_SEND_ONLY_WITH_IMM,
		.name		= "RC_SEND_ONLY_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_IMMDT] = 12 },
		.hdr_len	= 16,
	},
	{
		.opcode		= SROCE_OP_RC_RDMA_WRITE_FIRST,
		.name		= "RC_RDMA_WRITE_FIRST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_FIRST | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_RETH] = 12 },
		.hdr_len	= 28,
	},
	{
		.opcode		= SROCE_OP_RC_RDMA_WRITE_MIDDLE,
		.name		= "RC_RDMA_WRITE_MIDDLE",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_MIDDLE | SROCE_OPF_PAYLOAD,
		.hdr_len	= 12,
	},
	{
		.opcode		= SROCE_OP_RC_RDMA_WRITE_LAST,
		.name		= "RC_RDMA_WRITE_LAST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdr_len	= 12,
	},
	{
		.opcode		= SROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMM,
		.name		= "RC_RDMA_WRITE_LAST_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_IMMDT] = 12 },
		.hdr_len	= 16,
	},
	{
		.opcode		= SROCE_OP_RC_RDMA_WRITE_ONLY,
		.name		= "RC_RDMA_WRITE_ONLY",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_RETH] = 12 },
		.hdr_len	= 28,
	},
	{
		.opcode		= SROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMM,
		.name		= "RC_RDMA_WRITE_ONLY_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_RETH] = 12,
				    [SROCE_HDR_IMMDT] = 28 },
		.hdr_len	= 32,
	},
	{
		.opcode		= SROCE_OP_RC_RDMA_READ_REQUEST,
		.name		= "RC_RDMA_READ_REQUEST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_READ |
				  SROCE_OPF_ONLY,
		.off		= { [SROCE_HDR_RETH] = 12 },
		.hdr_len	= 28,
	},
	{
		.opcode		= SROCE_OP_RC_RDMA_READ_RESPONSE_FIRST,
		.name		= "RC_RDMA_READ_RESPONSE_FIRST",
		.flags		= SROCE_OPF_RESP | SROCE_OPF_READ |
				  SROCE_OPF_FIRST | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_AETH] = 12 },
		.hdr_len	= 16,
	},
	{
		.opcode		= SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE,
		.name		= "RC_RDMA_READ_RESPONSE_MIDDLE",
		.flags		= SROCE_OPF_RESP | SROCE_OPF_READ |
				  SROCE_OPF_MIDDLE | SROCE_OPF_PAYLOAD,
		.hdr_len	= 12,
	},
	{
		.opcode		= SROCE_OP_RC_RDMA_READ_RESPONSE_LAST,
		.name		= "RC_RDMA_READ_RESPONSE_LAST",
		.flags		= SROCE_OPF_RESP | SROCE_OPF_READ |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_AETH] = 12 },
		.hdr_len	= 16,
	},
	{
		.opcode		= SROCE_OP_RC_RDMA_READ_RESPONSE_ONLY,
		.name		= "RC_RDMA_READ_RESPONSE_ONLY",
		.flags		= SROCE_OPF_RESP | SROCE_OPF_READ |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_AETH] = 12 },
		.hdr_len	= 16,
	},
	{
		.opcode		= SROCE_OP_RC_ACKNOWLEDGE,
		.name		= "RC_ACKNOWLEDGE",
		.flags		= SROCE_OPF_RESP | SROCE_OPF_ACK |
				  SROCE_OPF_ONLY,
		.off		= { [SROCE_HDR_AETH] = 12 },
		.hdr_len	= 16,
	},
	{
		.opcode		= SROCE_OP_RC_ATOMIC_ACKNOWLEDGE,
		.name		= "RC_ATOMIC_ACKNOWLEDGE",
		.flags		= SROCE_OPF_RESP | SROCE_OPF_ATOMIC |
				  SROCE_OPF_ONLY,
		.off		= { [SROCE_HDR_AETH] = 12,
				    [SROCE_HDR_ATMACK] = 16 },
		.hdr_len	= 24,
	},
	{
		.opcode		= SROCE_OP_RC_COMPARE_SWAP,
		.name		= "RC_COMPARE_SWAP",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_ATOMIC |
				  SROCE_OPF_ONLY,
		.off		= { [SROCE_HDR_ATMETH] = 12 },
		.hdr_len	= 40,
	},
	{
		.opcode		= SROCE_OP_RC_FETCH_ADD,
		.name		= "RC_FETCH_ADD",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_ATOMIC |
				  SROCE_OPF_ONLY,
		.off		= { [SROCE_HDR_ATMETH] = 12 },
		.hdr_len	= 40,
	},
	{
		.opcode		= SROCE_OP_RC_SEND_LAST_WITH_INV,
		.name		= "RC_SEND_LAST_WITH_INV",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_IETH] = 12 },
		.hdr_len	= 16,
	},
	{
		.opcode		= SROCE_OP_RC_SEND_ONLY_WITH_INV,
		.name		= "RC_SEND_ONLY_WITH_INV",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_IETH] = 12 },
		.hdr_len	= 16,
	},
	{
		.opcode		= SROCE_OP_RC_ATOMIC_WRITE,
		.name		= "RC_ATOMIC_WRITE",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_ATOMIC | SROCE_OPF_ONLY |
				  SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_RETH] = 12 },
		.hdr_len	= 28,
	},
	{
		/* The FETH and RETH are not parsed: FLUSH is only refused. */
		.opcode		= SROCE_OP_RC_FLUSH,
		.name		= "RC_FLUSH",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_ONLY |
				  SROCE_OPF_UNSUPPORTED,
		.hdr_len	= 32,
	},
	{
		.opcode		= SROCE_OP_UC_SEND_FIRST,
		.name		= "UC_SEND_FIRST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_FIRST | SROCE_OPF_PAYLOAD,
		.hdr_len	= 12,
	},
	{
		.opcode		= SROCE_OP_UC_SEND_MIDDLE,
		.name		= "UC_SEND_MIDDLE",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_MIDDLE | SROCE_OPF_PAYLOAD,
		.hdr_len	= 12,
	},
	{
		.opcode		= SROCE_OP_UC_SEND_LAST,
		.name		= "UC_SEND_LAST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdr_len	= 12,
	},
	{
		.opcode		= SROCE_OP_UC_SEND_LAST_WITH_IMM,
		.name		= "UC_SEND_LAST_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_IMMDT] = 12 },
		.hdr_len	= 16,
	},
	{
		.opcode		= SROCE_OP_UC_SEND_ONLY,
		.name		= "UC_SEND_ONLY",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.hdr_len	= 12,
	},
	{
		.opcode		= SROCE_OP_UC_SEND_ONLY_WITH_IMM,
		.name		= "UC_SEND_ONLY_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_IMMDT] = 12 },
		.hdr_len	= 16,
	},
	{
		.opcode		= SROCE_OP_UC_RDMA_WRITE_FIRST,
		.name		= "UC_RDMA_WRITE_FIRST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_FIRST | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_RETH] = 12 },
		.hdr_len	= 28,
	},
	{
		.opcode		= SROCE_OP_UC_RDMA_WRITE_MIDDLE,
		.name		= "UC_RDMA_WRITE_MIDDLE",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_MIDDLE | SROCE_OPF_PAYLOAD,
		.hdr_len	= 12,
	},
	{
		.opcode		= SROCE_OP_UC_RDMA_WRITE_LAST,
		.name		= "UC_RDMA_WRITE_LAST",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.hdr_len	= 12,
	},
	{
		.opcode		= SROCE_OP_UC_RDMA_WRITE_LAST_WITH_IMM,
		.name		= "UC_RDMA_WRITE_LAST_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_LAST | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_IMMDT] = 12 },
		.hdr_len	= 16,
	},
	{
		.opcode		= SROCE_OP_UC_RDMA_WRITE_ONLY,
		.name		= "UC_RDMA_WRITE_ONLY",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_RETH] = 12 },
		.hdr_len	= 28,
	},
	{
		.opcode		= SROCE_OP_UC_RDMA_WRITE_ONLY_WITH_IMM,
		.name		= "UC_RDMA_WRITE_ONLY_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_WRITE |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_RETH] = 12,
				    [SROCE_HDR_IMMDT] = 28 },
		.hdr_len	= 32,
	},
	{
		.opcode		= SROCE_OP_UD_SEND_ONLY,
		.name		= "UD_SEND_ONLY",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_DETH] = 12 },
		.hdr_len	= 20,
	},
	{
		.opcode		= SROCE_OP_UD_SEND_ONLY_WITH_IMM,
		.name		= "UD_SEND_ONLY_WITH_IMM",
		.flags		= SROCE_OPF_REQ | SROCE_OPF_SEND |
				  SROCE_OPF_ONLY | SROCE_OPF_PAYLOAD,
		.off		= { [SROCE_HDR_DETH] = 12,
				    [SROCE_HDR_IMMDT] = 20 },
		.hdr_len	= 24,
	},
	{
		.opcode		= SROCE_OP_CNP,
		.name		= "CNP",
		.flags		= SROCE_OPF_CNP,
		.off		= { [SROCE_HDR_CNP] = 12 },
		.hdr_len	= 28,
	},
};

static void layout_case_desc(const struct layout_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(layout, layout_cases, layout_case_desc);

static void opcode_table_holds_exactly_the_peer_opcodes(struct kunit *test)
{
	bool known[256] = {};
	unsigned int op;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(layout_cases); i++)
		known[layout_cases[i].opcode] = true;

	for (op = 0; op < ARRAY_SIZE(known); op++) {
		if (known[op])
			KUNIT_EXPECT_NOT_NULL_MSG(test, sroce_opcode_info(op),
						  "opcode 0x%02x", op);
		else
			KUNIT_EXPECT_NULL_MSG(test, sroce_opcode_info(op),
					      "opcode 0x%02x", op);
	}
}

static void opcode_layout_matches_rxe(struct kunit *test)
{
	const struct layout_case *c = test->param_value;
	const struct sroce_opcode_info *info = sroce_opcode_info(c->opcode);
	unsigned int h;

	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_EXPECT_STREQ(test, info->name, c->name);
	KUNIT_EXPECT_EQ(test, info->flags, c->flags);
	KUNIT_EXPECT_EQ(test, info->hdr_len, c->hdr_len);
	for (h = 0; h < SROCE_NUM_HDRS; h++) {
		KUNIT_EXPECT_EQ_MSG(test, sroce_opcode_hdr_offset(info, h),
				    c->off[h], "header %u", h);
		KUNIT_EXPECT_EQ_MSG(test, !!(info->hdrs & BIT(h)), !!c->off[h],
				    "header %u", h);
	}
}

static void bth_set_writes_every_field(struct kunit *test)
{
	static const u8 want[] = {
		0x0b, 0xf0, 0x80, 0x01, 0xc0, 0xab, 0xcd, 0xef,
		0x80, 0x12, 0x34, 0x56,
	};
	const struct sroce_bth_fields f = {
		.opcode		= SROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMM,
		.se		= true,
		.mig		= true,
		.pad		= 3,
		.pkey		= 0x8001,
		.fecn		= true,
		.becn		= true,
		.qpn		= 0xabcdef,
		.ack_req	= true,
		.psn		= 0x123456,
	};
	struct sroce_bth bth;

	sroce_bth_set(&bth, &f);
	expect_bytes(test, &bth, want, sizeof(want));

	KUNIT_EXPECT_EQ(test, sroce_bth_opcode(&bth), f.opcode);
	KUNIT_EXPECT_TRUE(test, sroce_bth_se(&bth));
	KUNIT_EXPECT_TRUE(test, sroce_bth_mig(&bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_pad(&bth), 3);
	KUNIT_EXPECT_EQ(test, sroce_bth_tver(&bth), 0);
	KUNIT_EXPECT_EQ(test, sroce_bth_pkey(&bth), 0x8001);
	KUNIT_EXPECT_TRUE(test, sroce_bth_fecn(&bth));
	KUNIT_EXPECT_TRUE(test, sroce_bth_becn(&bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_qpn(&bth), 0xabcdef);
	KUNIT_EXPECT_TRUE(test, sroce_bth_ack_req(&bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_psn(&bth), 0x123456);
}

static void bth_set_keeps_oversized_values_in_their_fields(struct kunit *test)
{
	static const u8 want[] = {
		0x04, 0x30, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff,
		0x00, 0xff, 0xff, 0xff,
	};
	const struct sroce_bth_fields f = {
		.opcode	= SROCE_OP_RC_SEND_ONLY,
		.pad	= 0xff,
		.qpn	= 0xffffffff,
		.psn	= 0xffffffff,
	};
	struct sroce_bth bth;

	sroce_bth_set(&bth, &f);
	expect_bytes(test, &bth, want, sizeof(want));
	KUNIT_EXPECT_FALSE(test, sroce_bth_fecn(&bth));
	KUNIT_EXPECT_FALSE(test, sroce_bth_becn(&bth));
	KUNIT_EXPECT_FALSE(test, sroce_bth_ack_req(&bth));
}

static void bth_getters_decode_scapy_uc_send(struct kunit *test)
{
	const struct sroce_bth *bth = (const struct sroce_bth *)scapy_uc_send;
	const struct sroce_bth_fields f = {
		.opcode	= SROCE_OP_UC_SEND_ONLY,
		.mig	= true,
		.pad	= 2,
		.pkey	= SROCE_DEFAULT_PKEY,
		.qpn	= 0xd3,
		.psn	= 0xcf1710,
	};
	struct sroce_bth built;

	KUNIT_EXPECT_EQ(test, sroce_bth_opcode(bth), SROCE_OP_UC_SEND_ONLY);
	KUNIT_EXPECT_FALSE(test, sroce_bth_se(bth));
	KUNIT_EXPECT_TRUE(test, sroce_bth_mig(bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_pad(bth), 2);
	KUNIT_EXPECT_EQ(test, sroce_bth_tver(bth), 0);
	KUNIT_EXPECT_EQ(test, sroce_bth_pkey(bth), SROCE_DEFAULT_PKEY);
	KUNIT_EXPECT_FALSE(test, sroce_bth_fecn(bth));
	KUNIT_EXPECT_FALSE(test, sroce_bth_becn(bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_qpn(bth), 0xd3);
	KUNIT_EXPECT_FALSE(test, sroce_bth_ack_req(bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_psn(bth), 0xcf1710);

	sroce_bth_set(&built, &f);
	expect_bytes(test, &built, scapy_uc_send, SROCE_BTH_BYTES);
}

static void reth_has_wire_layout(struct kunit *test)
{
	static const u8 want[] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0x89, 0xab, 0xcd, 0xef, 0x00, 0x01, 0x23, 0x45,
	};
	struct sroce_reth reth;

	sroce_reth_set(&reth, TEST_VA, TEST_RKEY, TEST_DMA_LEN);
	expect_bytes(test, &reth, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sroce_reth_va(&reth), TEST_VA);
	KUNIT_EXPECT_EQ(test, sroce_reth_rkey(&reth), TEST_RKEY);
	KUNIT_EXPECT_EQ(test, sroce_reth_len(&reth), TEST_DMA_LEN);
}

static void aeth_has_wire_layout(struct kunit *test)
{
	static const u8 nak[] = { 0x62, 0xfe, 0xdc, 0xba };
	static const u8 ack[] = { 0x1f, 0x00, 0x00, 0x01 };
	struct sroce_aeth aeth;

	sroce_aeth_set(&aeth, TEST_SYNDROME, TEST_MSN);
	expect_bytes(test, &aeth, nak, sizeof(nak));
	KUNIT_EXPECT_EQ(test, sroce_aeth_syndrome(&aeth), TEST_SYNDROME);
	KUNIT_EXPECT_EQ(test, sroce_aeth_msn(&aeth), TEST_MSN);

	/* An MSN that has wrapped past 24 bits must not leak into the syndrome. */
	sroce_aeth_set(&aeth, SROCE_AETH_ACK_UNLIMITED, 0xff000001);
	expect_bytes(test, &aeth, ack, sizeof(ack));
	KUNIT_EXPECT_EQ(test, sroce_aeth_syndrome(&aeth), 0x1f);
	KUNIT_EXPECT_EQ(test, sroce_aeth_msn(&aeth), 1);
}

static void atmeth_has_wire_layout(struct kunit *test)
{
	static const u8 want[] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0x89, 0xab, 0xcd, 0xef,
		0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,
		0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,
	};
	struct sroce_atmeth atmeth;

	sroce_atmeth_set(&atmeth, TEST_VA, TEST_RKEY, TEST_SWAP_ADD,
			 TEST_COMPARE);
	expect_bytes(test, &atmeth, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sroce_atmeth_va(&atmeth), TEST_VA);
	KUNIT_EXPECT_EQ(test, sroce_atmeth_rkey(&atmeth), TEST_RKEY);
	KUNIT_EXPECT_EQ(test, sroce_atmeth_swap_add(&atmeth), TEST_SWAP_ADD);
	KUNIT_EXPECT_EQ(test, sroce_atmeth_compare(&atmeth), TEST_COMPARE);
}

static void atmack_has_wire_layout(struct kunit *test)
{
	static const u8 want[] = {
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
	};
	struct sroce_atmack atmack;

	sroce_atmack_set(&atmack, TEST_ORIG);
	expect_bytes(test, &atmack, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sroce_atmack_orig(&atmack), TEST_ORIG);
}

static void immdt_passes_network_order_through(struct kunit *test)
{
	static const u8 want[] = { 0xde, 0xad, 0xbe, 0xef };
	struct sroce_immdt immdt;

	sroce_immdt_set(&immdt, cpu_to_be32(TEST_IMM));
	expect_bytes(test, &immdt, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, be32_to_cpu(sroce_immdt_imm(&immdt)), TEST_IMM);
}

static void ieth_has_wire_layout(struct kunit *test)
{
	static const u8 want[] = { 0x00, 0xc0, 0xff, 0xee };
	struct sroce_ieth ieth;

	sroce_ieth_set(&ieth, TEST_INV_RKEY);
	expect_bytes(test, &ieth, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sroce_ieth_rkey(&ieth), TEST_INV_RKEY);
}

static void deth_has_wire_layout(struct kunit *test)
{
	static const u8 want[] = {
		0x80, 0x01, 0x00, 0x00, 0x00, 0x65, 0x43, 0x21,
	};
	struct sroce_deth deth;

	/* The reserved byte before SrcQP stays zero. */
	sroce_deth_set(&deth, TEST_QKEY, 0xff000000 | TEST_SQPN);
	expect_bytes(test, &deth, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sroce_deth_qkey(&deth), TEST_QKEY);
	KUNIT_EXPECT_EQ(test, sroce_deth_sqpn(&deth), TEST_SQPN);
}

/* Where the builder side puts extension header @hdr of a packet. */
static void *ext_at(u8 *buf, const struct sroce_opcode_info *info,
		    enum sroce_hdr hdr)
{
	return buf + sroce_opcode_hdr_offset(info, hdr);
}

static void parse_returns_what_build_wrote(struct kunit *test)
{
	const struct layout_case *c = test->param_value;
	const struct sroce_opcode_info *info = sroce_opcode_info(c->opcode);
	bool has_payload = c->flags & SROCE_OPF_PAYLOAD;
	/* Only a message's last packet may end off a 4-byte boundary. */
	unsigned int paylen = !has_payload ? 0 :
			      (c->flags & SROCE_OPF_LAST) ? 5 : 8;
	const struct sroce_bth_fields f = {
		.opcode		= c->opcode,
		.se		= true,
		.mig		= true,
		.pad		= sroce_pkt_pad_bytes(paylen),
		.pkey		= 0x7fff,
		.becn		= true,
		.qpn		= 0x123456,
		.ack_req	= true,
		.psn		= 0xabcdef,
	};
	u8 *buf = kunit_kzalloc(test, TEST_BUF_BYTES, GFP_KERNEL);
	const struct sroce_bth *bth;
	struct sroce_pkt pkt;
	unsigned int i, len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_ASSERT_EQ(test, sroce_pkt_build_hdrs(buf, &f), c->hdr_len);

	if (info->hdrs & SROCE_HDRF_DETH)
		sroce_deth_set(ext_at(buf, info, SROCE_HDR_DETH), TEST_QKEY,
			       TEST_SQPN);
	if (info->hdrs & SROCE_HDRF_RETH)
		sroce_reth_set(ext_at(buf, info, SROCE_HDR_RETH), TEST_VA,
			       TEST_RKEY, TEST_DMA_LEN);
	if (info->hdrs & SROCE_HDRF_ATMETH)
		sroce_atmeth_set(ext_at(buf, info, SROCE_HDR_ATMETH), TEST_VA,
				 TEST_RKEY, TEST_SWAP_ADD, TEST_COMPARE);
	if (info->hdrs & SROCE_HDRF_AETH)
		sroce_aeth_set(ext_at(buf, info, SROCE_HDR_AETH),
			       TEST_SYNDROME, TEST_MSN);
	if (info->hdrs & SROCE_HDRF_ATMACK)
		sroce_atmack_set(ext_at(buf, info, SROCE_HDR_ATMACK),
				 TEST_ORIG);
	if (info->hdrs & SROCE_HDRF_IMMDT)
		sroce_immdt_set(ext_at(buf, info, SROCE_HDR_IMMDT),
				cpu_to_be32(TEST_IMM));
	if (info->hdrs & SROCE_HDRF_IETH)
		sroce_ieth_set(ext_at(buf, info, SROCE_HDR_IETH),
			       TEST_INV_RKEY);

	for (i = 0; i < paylen; i++)
		buf[c->hdr_len + i] = i + 1;
	len = c->hdr_len + paylen + f.pad + SROCE_ICRC_BYTES;

	KUNIT_ASSERT_EQ(test, sroce_pkt_parse(buf, len, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.err, SROCE_PKT_OK);
	KUNIT_EXPECT_PTR_EQ(test, pkt.info, info);
	KUNIT_EXPECT_EQ(test, pkt.opcode, c->opcode);
	KUNIT_EXPECT_EQ(test, pkt.len, len);
	KUNIT_EXPECT_EQ(test, pkt.paylen, paylen);
	KUNIT_EXPECT_EQ(test, pkt.pad, f.pad);
	KUNIT_EXPECT_EQ(test, pkt.qpn, f.qpn);
	KUNIT_EXPECT_EQ(test, pkt.psn, f.psn);
	KUNIT_EXPECT_EQ(test, pkt.info->hdr_len, c->hdr_len);

	bth = sroce_pkt_bth(&pkt);
	KUNIT_EXPECT_PTR_EQ(test, bth, (const struct sroce_bth *)buf);
	KUNIT_EXPECT_TRUE(test, sroce_bth_se(bth));
	KUNIT_EXPECT_TRUE(test, sroce_bth_mig(bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_pkey(bth), f.pkey);
	KUNIT_EXPECT_FALSE(test, sroce_bth_fecn(bth));
	KUNIT_EXPECT_TRUE(test, sroce_bth_becn(bth));
	KUNIT_EXPECT_TRUE(test, sroce_bth_ack_req(bth));

	/* Each header is where rxe has it, and holds what was written. */
	for (i = 0; i < SROCE_NUM_HDRS; i++) {
		const void *want = c->off[i] ? buf + c->off[i] : NULL;

		KUNIT_EXPECT_PTR_EQ_MSG(test, sroce_pkt_ext(&pkt, i), want,
					"header %u", i);
	}
	if (sroce_pkt_deth(&pkt)) {
		KUNIT_EXPECT_EQ(test, sroce_deth_qkey(sroce_pkt_deth(&pkt)),
				TEST_QKEY);
		KUNIT_EXPECT_EQ(test, sroce_deth_sqpn(sroce_pkt_deth(&pkt)),
				TEST_SQPN);
	}
	if (sroce_pkt_reth(&pkt)) {
		KUNIT_EXPECT_EQ(test, sroce_reth_va(sroce_pkt_reth(&pkt)),
				TEST_VA);
		KUNIT_EXPECT_EQ(test, sroce_reth_rkey(sroce_pkt_reth(&pkt)),
				TEST_RKEY);
		KUNIT_EXPECT_EQ(test, sroce_reth_len(sroce_pkt_reth(&pkt)),
				TEST_DMA_LEN);
	}
	if (sroce_pkt_atmeth(&pkt)) {
		const struct sroce_atmeth *atmeth = sroce_pkt_atmeth(&pkt);

		KUNIT_EXPECT_EQ(test, sroce_atmeth_va(atmeth), TEST_VA);
		KUNIT_EXPECT_EQ(test, sroce_atmeth_rkey(atmeth), TEST_RKEY);
		KUNIT_EXPECT_EQ(test, sroce_atmeth_swap_add(atmeth),
				TEST_SWAP_ADD);
		KUNIT_EXPECT_EQ(test, sroce_atmeth_compare(atmeth),
				TEST_COMPARE);
	}
	if (sroce_pkt_aeth(&pkt)) {
		KUNIT_EXPECT_EQ(test, sroce_aeth_syndrome(sroce_pkt_aeth(&pkt)),
				TEST_SYNDROME);
		KUNIT_EXPECT_EQ(test, sroce_aeth_msn(sroce_pkt_aeth(&pkt)),
				TEST_MSN);
	}
	if (sroce_pkt_atmack(&pkt))
		KUNIT_EXPECT_EQ(test, sroce_atmack_orig(sroce_pkt_atmack(&pkt)),
				TEST_ORIG);
	if (sroce_pkt_immdt(&pkt))
		KUNIT_EXPECT_EQ(test,
				be32_to_cpu(sroce_immdt_imm(sroce_pkt_immdt(&pkt))),
				TEST_IMM);
	if (sroce_pkt_ieth(&pkt))
		KUNIT_EXPECT_EQ(test, sroce_ieth_rkey(sroce_pkt_ieth(&pkt)),
				TEST_INV_RKEY);
}

/*
 * An RDMA ATOMIC WRITE as the requester builds it: BTH with AckReq, RETH
 * naming 8 bytes, the 8 bytes as they were in the WQE, no pad; and what
 * the responder parses out of it (ICRC after the payload).
 */
static void atomic_write_packet_bytes(struct kunit *test)
{
	static const u8 want[] = {
		0x1d, 0x00, 0xff, 0xff, 0x00, 0x00, 0x12, 0x34,
		0x80, 0x65, 0x43, 0x21,
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xe8,
		0x89, 0xab, 0xcd, 0xef, 0x00, 0x00, 0x00, 0x08,
		0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6, 0x07, 0x18,
	};
	const struct sroce_bth_fields f = {
		.opcode		= SROCE_OP_RC_ATOMIC_WRITE,
		.pkey		= SROCE_DEFAULT_PKEY,
		.qpn		= 0x1234,
		.ack_req	= true,
		.psn		= 0x654321,
	};
	u8 buf[TEST_BUF_BYTES] = {};
	struct sroce_pkt pkt;
	int len;

	len = sroce_pkt_build_hdrs(buf, &f);
	KUNIT_ASSERT_EQ(test, len, SROCE_BTH_BYTES + SROCE_RETH_BYTES);
	sroce_reth_set((void *)(buf + SROCE_BTH_BYTES), TEST_VA & ~7ULL,
		       TEST_RKEY, SROCE_ATOMIC_WRITE_BYTES);
	memcpy(buf + len, want + len, SROCE_ATOMIC_WRITE_BYTES);
	expect_bytes(test, buf, want, sizeof(want));

	KUNIT_ASSERT_EQ(test, sroce_pkt_parse(buf, sizeof(want) +
					      SROCE_ICRC_BYTES, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.opcode, 0x1d);
	KUNIT_EXPECT_EQ(test, pkt.paylen, 8U);
	KUNIT_EXPECT_EQ(test, pkt.pad, 0);
	KUNIT_EXPECT_EQ(test, pkt.psn, 0x654321U);
	KUNIT_EXPECT_EQ(test, sroce_reth_va(sroce_pkt_reth(&pkt)),
			0x0123456789abcde8ULL);
	KUNIT_EXPECT_EQ(test, sroce_reth_len(sroce_pkt_reth(&pkt)), 8U);
	KUNIT_EXPECT_EQ(test, pkt.info->hdr_len, 28);
	KUNIT_EXPECT_NULL(test, sroce_pkt_atmeth(&pkt));
}

static void parse_accepts_hardware_cnp(struct kunit *test)
{
	const struct sroce_bth *bth;
	struct sroce_pkt pkt;

	KUNIT_ASSERT_EQ(test, sroce_pkt_parse(hw_cnp, sizeof(hw_cnp), &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.opcode, SROCE_OP_CNP);
	KUNIT_EXPECT_EQ(test, pkt.info->flags, SROCE_OPF_CNP);
	KUNIT_EXPECT_EQ(test, pkt.qpn, 0x118);
	KUNIT_EXPECT_EQ(test, pkt.psn, 0);
	KUNIT_EXPECT_EQ(test, pkt.pad, 0);
	KUNIT_EXPECT_EQ(test, pkt.paylen, 0);

	bth = sroce_pkt_bth(&pkt);
	KUNIT_EXPECT_TRUE(test, sroce_bth_becn(bth));
	KUNIT_EXPECT_FALSE(test, sroce_bth_fecn(bth));
	KUNIT_EXPECT_FALSE(test, sroce_bth_se(bth));
	KUNIT_EXPECT_FALSE(test, sroce_bth_mig(bth));
	KUNIT_EXPECT_FALSE(test, sroce_bth_ack_req(bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_pkey(bth), SROCE_DEFAULT_PKEY);
}

static void build_cnp_matches_hardware(struct kunit *test)
{
	u8 buf[SROCE_CNP_HDR_BYTES + 1];

	memset(buf, 0xa5, sizeof(buf));
	sroce_pkt_build_cnp(buf, 0x118);
	expect_bytes(test, buf, hw_cnp, SROCE_CNP_HDR_BYTES);
	KUNIT_EXPECT_EQ_MSG(test, buf[SROCE_CNP_HDR_BYTES], 0xa5,
			    "wrote past the CNP");
}

static void parse_accepts_scapy_uc_send(struct kunit *test)
{
	struct sroce_pkt pkt;

	KUNIT_ASSERT_EQ(test, sroce_pkt_parse(scapy_uc_send,
					      sizeof(scapy_uc_send), &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.opcode, SROCE_OP_UC_SEND_ONLY);
	KUNIT_EXPECT_EQ(test, pkt.qpn, 0xd3);
	KUNIT_EXPECT_EQ(test, pkt.psn, 0xcf1710);
	KUNIT_EXPECT_EQ(test, pkt.pad, 2);
	KUNIT_EXPECT_EQ(test, pkt.paylen, 18);
	KUNIT_EXPECT_EQ(test, pkt.info->hdr_len, SROCE_BTH_BYTES);
	KUNIT_EXPECT_TRUE(test, sroce_bth_mig(sroce_pkt_bth(&pkt)));
	KUNIT_EXPECT_FALSE(test, sroce_bth_se(sroce_pkt_bth(&pkt)));
}

static void parse_rejects_packets_shorter_than_a_bth(struct kunit *test)
{
	struct sroce_pkt pkt;

	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(hw_cnp, 0, &pkt), -EINVAL);
	KUNIT_EXPECT_EQ(test, pkt.err, SROCE_PKT_TOO_SHORT);
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(hw_cnp, 11, &pkt), -EINVAL);
	KUNIT_EXPECT_EQ(test, pkt.err, SROCE_PKT_TOO_SHORT);
}

/*
 * Every length from a bare BTH up to one byte short of headers plus ICRC.
 * Each packet sits in an allocation of exactly its length, so that KASAN,
 * when enabled, catches a read past it.
 */
static void parse_rejects_truncated_headers(struct kunit *test)
{
	const struct layout_case *c = test->param_value;
	const struct sroce_bth_fields f = { .opcode = c->opcode };
	u8 full[TEST_BUF_BYTES] = {};
	struct sroce_pkt pkt;
	unsigned int len;

	KUNIT_ASSERT_EQ(test, sroce_pkt_build_hdrs(full, &f), c->hdr_len);
	for (len = SROCE_BTH_BYTES; len < c->hdr_len + SROCE_ICRC_BYTES; len++) {
		u8 *p = kunit_kmalloc(test, len, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, p);
		memcpy(p, full, len);
		KUNIT_EXPECT_EQ_MSG(test, sroce_pkt_parse(p, len, &pkt),
				    -EINVAL, "len %u", len);
		KUNIT_EXPECT_EQ_MSG(test, pkt.err, SROCE_PKT_TOO_SHORT,
				    "len %u", len);
		kunit_kfree(test, p);
	}
}

struct malformed_case {
	const char		*desc;
	u8			opcode;
	u8			tver;
	u8			pad;
	unsigned int		len;
	enum sroce_pkt_err	err;
};

static const struct malformed_case malformed_cases[] = {
	{ "reserved opcode 0x15", 0x15, 0, 0, 32, SROCE_PKT_BAD_OPCODE },
	{ "reserved opcode 0x18", 0x18, 0, 0, 32, SROCE_PKT_BAD_OPCODE },
	{ "UC has no ATOMIC WRITE (0x3d)", 0x3d, 0, 0, 44,
	  SROCE_PKT_BAD_OPCODE },
	{ "UC has no READ REQUEST (0x2c)", 0x2c, 0, 0, 32,
	  SROCE_PKT_BAD_OPCODE },
	{ "RD SEND FIRST 0x40", 0x40, 0, 0, 32, SROCE_PKT_BAD_OPCODE },
	{ "UD has no SEND FIRST (0x60)", 0x60, 0, 0, 32,
	  SROCE_PKT_BAD_OPCODE },
	{ "CNP transport with operation 0 (0x80)", 0x80, 0, 0, 32,
	  SROCE_PKT_BAD_OPCODE },
	{ "vendor opcode 0xff", 0xff, 0, 0, 32, SROCE_PKT_BAD_OPCODE },
	{ "TVer 1", SROCE_OP_RC_SEND_ONLY, 1, 0, 20, SROCE_PKT_BAD_TVER },
	{ "TVer 15", SROCE_OP_RC_SEND_ONLY, 15, 0, 20, SROCE_PKT_BAD_TVER },
	{ "TVer checked before the length", SROCE_OP_RC_SEND_ONLY, 1, 0, 12,
	  SROCE_PKT_BAD_TVER },
	{ "ACKNOWLEDGE with PadCnt 1", SROCE_OP_RC_ACKNOWLEDGE, 0, 1, 20,
	  SROCE_PKT_BAD_PAD },
	{ "READ REQUEST with PadCnt 2", SROCE_OP_RC_RDMA_READ_REQUEST, 0, 2,
	  32, SROCE_PKT_BAD_PAD },
	{ "COMPARE_SWAP with PadCnt 1", SROCE_OP_RC_COMPARE_SWAP, 0, 1, 44,
	  SROCE_PKT_BAD_PAD },
	{ "CNP with PadCnt 3", SROCE_OP_CNP, 0, 3, 32, SROCE_PKT_BAD_PAD },
	{ "SEND ONLY with PadCnt 1 but no payload", SROCE_OP_RC_SEND_ONLY, 0,
	  1, 16, SROCE_PKT_BAD_PAD },
	{ "SEND FIRST with PadCnt 1", SROCE_OP_RC_SEND_FIRST, 0, 1, 20,
	  SROCE_PKT_BAD_PAD },
	{ "UC SEND MIDDLE with PadCnt 3", SROCE_OP_UC_SEND_MIDDLE, 0, 3, 20,
	  SROCE_PKT_BAD_PAD },
	{ "RDMA WRITE FIRST with PadCnt 1", SROCE_OP_RC_RDMA_WRITE_FIRST, 0, 1,
	  36, SROCE_PKT_BAD_PAD },
	{ "READ RESPONSE MIDDLE with PadCnt 2",
	  SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 0, 2, 20, SROCE_PKT_BAD_PAD },
	{ "READ REQUEST with 4 payload bytes", SROCE_OP_RC_RDMA_READ_REQUEST,
	  0, 0, 36, SROCE_PKT_BAD_LENGTH },
	{ "FLUSH with 4 payload bytes", SROCE_OP_RC_FLUSH, 0, 0, 40,
	  SROCE_PKT_BAD_LENGTH },
	{ "FLUSH with PadCnt 1", SROCE_OP_RC_FLUSH, 0, 1, 36,
	  SROCE_PKT_BAD_PAD },
	{ "ACKNOWLEDGE with 4 payload bytes", SROCE_OP_RC_ACKNOWLEDGE, 0, 0, 24,
	  SROCE_PKT_BAD_LENGTH },
	{ "ATOMIC ACKNOWLEDGE with 8 payload bytes",
	  SROCE_OP_RC_ATOMIC_ACKNOWLEDGE, 0, 0, 36, SROCE_PKT_BAD_LENGTH },
	{ "FETCH_ADD with 4 payload bytes", SROCE_OP_RC_FETCH_ADD, 0, 0, 48,
	  SROCE_PKT_BAD_LENGTH },
	{ "CNP of 36 bytes", SROCE_OP_CNP, 0, 0, 36, SROCE_PKT_BAD_LENGTH },
	{ "SEND ONLY of 17 bytes", SROCE_OP_RC_SEND_ONLY, 0, 0, 17,
	  SROCE_PKT_BAD_LENGTH },
	{ "SEND ONLY of 18 bytes", SROCE_OP_RC_SEND_ONLY, 0, 0, 18,
	  SROCE_PKT_BAD_LENGTH },
	{ "UD SEND ONLY of 27 bytes", SROCE_OP_UD_SEND_ONLY, 0, 0, 27,
	  SROCE_PKT_BAD_LENGTH },
	{ "ACKNOWLEDGE of 21 bytes", SROCE_OP_RC_ACKNOWLEDGE, 0, 0, 21,
	  SROCE_PKT_BAD_LENGTH },
};

static void malformed_case_desc(const struct malformed_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s: %s", c->desc,
		 sroce_pkt_err_name(c->err));
}

KUNIT_ARRAY_PARAM(malformed, malformed_cases, malformed_case_desc);

static void parse_rejects_malformed_packets(struct kunit *test)
{
	const struct malformed_case *c = test->param_value;
	const struct sroce_bth_fields f = {
		.opcode	= c->opcode,
		.pad	= c->pad,
		.pkey	= SROCE_DEFAULT_PKEY,
		.qpn	= 0x11,
	};
	u8 buf[TEST_BUF_BYTES] = {};
	struct sroce_pkt pkt;

	sroce_bth_set((struct sroce_bth *)buf, &f);
	buf[1] |= c->tver;
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(buf, c->len, &pkt), -EINVAL);
	KUNIT_EXPECT_STREQ(test, sroce_pkt_err_name(pkt.err),
			   sroce_pkt_err_name(c->err));
}

/*
 * No packet carries more than the largest path MTU, 4096 bytes: a longer
 * one (a reassembled datagram) is refused before any queue holds it.
 */
static void parse_rejects_payload_above_largest_mtu(struct kunit *test)
{
	static const u8 opcodes[] = {
		SROCE_OP_RC_SEND_ONLY,
		SROCE_OP_UC_RDMA_WRITE_MIDDLE,
		SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE,
	};
	unsigned int len = SROCE_BTH_BYTES + 4100 + SROCE_ICRC_BYTES;
	struct sroce_bth_fields pad = {};
	struct sroce_pkt pkt;
	unsigned int i;
	u8 *buf;

	buf = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		struct sroce_bth_fields f = { .opcode = opcodes[i] };

		sroce_bth_set((struct sroce_bth *)buf, &f);
		KUNIT_EXPECT_EQ_MSG(test, sroce_pkt_parse(buf, len - 4, &pkt), 0,
				    "opcode %#x", opcodes[i]);
		KUNIT_EXPECT_EQ(test, pkt.paylen, 4096U);
		KUNIT_EXPECT_EQ_MSG(test, sroce_pkt_parse(buf, len, &pkt),
				    -EINVAL, "opcode %#x", opcodes[i]);
		KUNIT_EXPECT_EQ(test, pkt.err, SROCE_PKT_BAD_LENGTH);
	}
	/* The pad does not count: 4100 bytes with PadCnt 3 hold 4097. */
	pad.opcode = SROCE_OP_RC_SEND_ONLY;
	pad.pad = 3;
	sroce_bth_set((struct sroce_bth *)buf, &pad);
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(buf, len - 4, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.paylen, 4093U);
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(buf, len, &pkt), -EINVAL);
	KUNIT_EXPECT_EQ(test, pkt.err, SROCE_PKT_BAD_LENGTH);
}

static void parse_accepts_boundary_packets(struct kunit *test)
{
	u8 buf[TEST_BUF_BYTES] = {};
	struct sroce_bth_fields f = { .opcode = SROCE_OP_RC_SEND_ONLY };
	struct sroce_pkt pkt;

	/* A zero-length SEND is legal: BTH and ICRC only. */
	sroce_bth_set((struct sroce_bth *)buf, &f);
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(buf, 16, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.paylen, 0);

	/* One payload byte and three of pad. */
	f.pad = 3;
	sroce_bth_set((struct sroce_bth *)buf, &f);
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(buf, 20, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.paylen, 1);

	/* A LAST packet may be padded, unlike FIRST and MIDDLE. */
	f.opcode = SROCE_OP_UC_RDMA_WRITE_LAST_WITH_IMM;
	f.pad = 2;
	sroce_bth_set((struct sroce_bth *)buf, &f);
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(buf, 28, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.paylen, 6);

	/* Reserved bits are ignored on receipt; FECN and BECN are data. */
	f.opcode = SROCE_OP_RC_SEND_ONLY;
	f.pad = 0;
	f.fecn = true;
	f.becn = true;
	sroce_bth_set((struct sroce_bth *)buf, &f);
	buf[4] |= SROCE_BTH_RESV6A_MASK >> 24;
	buf[8] |= SROCE_BTH_RESV7_MASK >> 24;
	KUNIT_EXPECT_EQ(test, sroce_pkt_parse(buf, 16, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.qpn, 0);
	KUNIT_EXPECT_EQ(test, pkt.psn, 0);
}

static void build_hdrs_zeroes_extension_headers(struct kunit *test)
{
	const struct sroce_bth_fields f = {
		.opcode	= SROCE_OP_RC_ATOMIC_ACKNOWLEDGE,
	};
	u8 buf[TEST_BUF_BYTES];
	unsigned int i;

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, sroce_pkt_build_hdrs(buf, &f), 24);
	for (i = SROCE_BTH_BYTES; i < 24; i++)
		KUNIT_EXPECT_EQ_MSG(test, buf[i], 0, "byte %u", i);
	KUNIT_EXPECT_EQ_MSG(test, buf[24], 0xa5, "wrote past the headers");
}

static void build_hdrs_rejects_what_parse_would(struct kunit *test)
{
	struct sroce_bth_fields f = { .opcode = 0x15 };
	u8 buf[TEST_BUF_BYTES];
	unsigned int i;

	/* Refused, and what the buffer held before does not stay. */
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_EXPECT_EQ(test, sroce_pkt_build_hdrs(buf, &f), -EINVAL);
	for (i = 0; i < SROCE_BTH_BYTES; i++)
		KUNIT_EXPECT_EQ_MSG(test, buf[i], 0, "byte %u", i);

	/* A pad on an ACK: its AETH is cleared too. */
	f.opcode = SROCE_OP_RC_ACKNOWLEDGE;
	f.pad = 1;
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_EXPECT_EQ(test, sroce_pkt_build_hdrs(buf, &f), -EINVAL);
	for (i = 0; i < SROCE_BTH_BYTES + 4; i++)
		KUNIT_EXPECT_EQ_MSG(test, buf[i], 0, "byte %u", i);
	KUNIT_EXPECT_EQ(test, buf[SROCE_BTH_BYTES + 4], 0xa5);
}

static void err_names_are_distinct(struct kunit *test)
{
	unsigned int i, j;

	for (i = 0; i < SROCE_PKT_NUM_ERRS; i++) {
		const char *name = sroce_pkt_err_name(i);

		KUNIT_ASSERT_NOT_NULL(test, name);
		KUNIT_EXPECT_NE(test, strlen(name), 0);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, name, sroce_pkt_err_name(j));
	}
	KUNIT_EXPECT_STREQ(test, sroce_pkt_err_name(SROCE_PKT_OK), "ok");
	KUNIT_EXPECT_STREQ(test, sroce_pkt_err_name(SROCE_PKT_BAD_ICRC),
			   "bad_icrc");
	KUNIT_EXPECT_STREQ(test, sroce_pkt_err_name(SROCE_PKT_NUM_ERRS),
			   "invalid");
}

static struct kunit_case sroce_pkt_cases[] = {
	KUNIT_CASE(opcode_table_holds_exactly_the_peer_opcodes),
	KUNIT_CASE_PARAM(opcode_layout_matches_rxe, layout_gen_params),
	KUNIT_CASE(bth_set_writes_every_field),
	KUNIT_CASE(bth_set_keeps_oversized_values_in_their_fields),
	KUNIT_CASE(bth_getters_decode_scapy_uc_send),
	KUNIT_CASE(reth_has_wire_layout),
	KUNIT_CASE(aeth_has_wire_layout),
	KUNIT_CASE(atmeth_has_wire_layout),
	KUNIT_CASE(atmack_has_wire_layout),
	KUNIT_CASE(immdt_passes_network_order_through),
	KUNIT_CASE(ieth_has_wire_layout),
	KUNIT_CASE(deth_has_wire_layout),
	KUNIT_CASE_PARAM(parse_returns_what_build_wrote, layout_gen_params),
	KUNIT_CASE(atomic_write_packet_bytes),
	KUNIT_CASE(parse_accepts_hardware_cnp),
	KUNIT_CASE(build_cnp_matches_hardware),
	KUNIT_CASE(parse_accepts_scapy_uc_send),
	KUNIT_CASE(parse_rejects_packets_shorter_than_a_bth),
	KUNIT_CASE_PARAM(parse_rejects_truncated_headers, layout_gen_params),
	KUNIT_CASE_PARAM(parse_rejects_malformed_packets, malformed_gen_params),
	KUNIT_CASE(parse_accepts_boundary_packets),
	KUNIT_CASE(parse_rejects_payload_above_largest_mtu),
	KUNIT_CASE(build_hdrs_zeroes_extension_headers),
	KUNIT_CASE(build_hdrs_rejects_what_parse_would),
	KUNIT_CASE(err_names_are_distinct),
	{}
};

static struct kunit_suite sroce_pkt_suite = {
	.name		= "sroce_pkt",
	.test_cases	= sroce_pkt_cases,
};

kunit_test_suites(&sroce_pkt_suite);
