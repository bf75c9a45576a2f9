// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the pure rules of UD and GSI queue pairs: which Q_Key a
 * SEND carries, which Q_Keys a QP accepts, the 40-byte GRH area of a
 * receive buffer for IPv4 and IPv6, the receive length rule, and what a
 * UD send WQE's copy keeps (the AH number, never the legacy AV).
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/string.h>
#include <rdma/ib_mad.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "sroce_qp.h"
#include "sroce_ud.h"

/* IBTA 10.2.5: a WR Q_Key with the high bit set sends the QP's Q_Key. */
static void qkey_selection(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_ud_select_qkey(0x11223344, 0x55667788),
			0x11223344U);
	KUNIT_EXPECT_EQ(test, sroce_ud_select_qkey(0x7fffffff, 0x55667788),
			0x7fffffffU);
	KUNIT_EXPECT_EQ(test, sroce_ud_select_qkey(0, 0x55667788), 0U);
	KUNIT_EXPECT_EQ(test, sroce_ud_select_qkey(0x80000000, 0x55667788),
			0x55667788U);
	/* ib_mad sends IB_QP_SET_QKEY; the GSI QP's Q_Key goes out. */
	KUNIT_EXPECT_EQ(test, sroce_ud_select_qkey(IB_QP_SET_QKEY,
						   IB_QP1_QKEY),
			0x80010000U);
	KUNIT_EXPECT_EQ(test, sroce_ud_select_qkey(0xffffffff, 0x01234567),
			0x01234567U);
}

static void qkey_check(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_ud_qkey_ok(IB_QPT_UD, 0x01234567,
						 0x01234567));
	KUNIT_EXPECT_FALSE(test, sroce_ud_qkey_ok(IB_QPT_UD, 0x01234567,
						  0x01234566));
	KUNIT_EXPECT_FALSE(test, sroce_ud_qkey_ok(IB_QPT_UD, 0x01234567,
						  0x81234567));
	/* The GSI QP takes only the well-known Q_Key, whatever its own. */
	KUNIT_EXPECT_TRUE(test, sroce_ud_qkey_ok(IB_QPT_GSI, IB_QP1_QKEY,
						 0x80010000));
	KUNIT_EXPECT_TRUE(test, sroce_ud_qkey_ok(IB_QPT_GSI, 0, 0x80010000));
	KUNIT_EXPECT_FALSE(test, sroce_ud_qkey_ok(IB_QPT_GSI, 0x1234, 0x1234));
	KUNIT_EXPECT_FALSE(test, sroce_ud_qkey_ok(IB_QPT_GSI, IB_QP1_QKEY, 0));
}

static void grh_ipv4(struct kunit *test)
{
	u8 nh[sizeof(struct iphdr)];
	u8 grh[SROCE_UD_GRH_BYTES];
	int i;

	for (i = 0; i < sizeof(nh); i++)
		nh[i] = 0x45 + i;
	memset(grh, 0xaa, sizeof(grh));
	sroce_ud_grh_fill(grh, nh, false);

	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_EQ(test, grh[i], 0);
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_EQ(test, grh[20 + i], (u8)(0x45 + i));
}

static void grh_ipv6(struct kunit *test)
{
	u8 nh[sizeof(struct ipv6hdr)];
	u8 grh[SROCE_UD_GRH_BYTES];
	int i;

	for (i = 0; i < sizeof(nh); i++)
		nh[i] = 0x60 + i;
	memset(grh, 0xaa, sizeof(grh));
	sroce_ud_grh_fill(grh, nh, true);

	for (i = 0; i < 40; i++)
		KUNIT_EXPECT_EQ(test, grh[i], (u8)(0x60 + i));
}

static void recv_length(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_ud_recv_len_ok(0, 40));
	KUNIT_EXPECT_FALSE(test, sroce_ud_recv_len_ok(1, 40));
	KUNIT_EXPECT_FALSE(test, sroce_ud_recv_len_ok(0, 39));
	KUNIT_EXPECT_FALSE(test, sroce_ud_recv_len_ok(0, 0));
	KUNIT_EXPECT_TRUE(test, sroce_ud_recv_len_ok(1024, 1064));
	KUNIT_EXPECT_FALSE(test, sroce_ud_recv_len_ok(1025, 1064));
	/* A MAD: 256 bytes after the GRH area (ib_mad posts 296). */
	KUNIT_EXPECT_TRUE(test, sroce_ud_recv_len_ok(256, 296));
	/* No wrap-around at the top of the range. */
	KUNIT_EXPECT_FALSE(test, sroce_ud_recv_len_ok(U32_MAX, 100));
	KUNIT_EXPECT_TRUE(test, sroce_ud_recv_len_ok(U32_MAX - 40, U32_MAX));
	KUNIT_EXPECT_FALSE(test, sroce_ud_recv_len_ok(U32_MAX - 39, U32_MAX));
}

/* A UD WQE keeps the AH number and the remote QPN's 24 bits, not the AV. */
static void ud_wqe_copy(struct kunit *test)
{
	struct rxe_send_wqe *w;
	struct sroce_swqe *wqe;

	w = kunit_kzalloc(test, sizeof(*w) + 64, GFP_KERNEL);
	wqe = kunit_kzalloc(test, sizeof(*wqe) + 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, wqe);

	w->wr.wr_id = 7;
	w->wr.opcode = IB_WR_SEND;
	w->wr.wr.ud.remote_qpn = 0xff123456;
	w->wr.wr.ud.remote_qkey = 0x80000000;
	w->wr.wr.ud.pkey_index = 0;
	w->wr.wr.ud.ah_num = 42;
	/* A legacy AV full of lies must change nothing. */
	memset(&w->wr.wr.ud.av, 0xee, sizeof(w->wr.wr.ud.av));
	w->dma.num_sge = 1;
	w->dma.sge[0].addr = 0x1000;
	w->dma.sge[0].length = 100;
	w->dma.sge[0].lkey = 3;

	KUNIT_EXPECT_EQ(test, sroce_wqe_parse_send(wqe, w, IB_QPT_UD, 4, 64),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wqe->ud.remote_qpn, 0x123456U);
	KUNIT_EXPECT_EQ(test, wqe->ud.remote_qkey, 0x80000000U);
	KUNIT_EXPECT_EQ(test, wqe->ud.ah_num, 42U);
	KUNIT_EXPECT_EQ(test, wqe->length, 100U);

	/* UD and GSI carry SENDs only (IBTA 9.8.3). */
	w->wr.opcode = IB_WR_RDMA_WRITE;
	KUNIT_EXPECT_EQ(test, sroce_wqe_parse_send(wqe, w, IB_QPT_GSI, 4, 64),
			IB_WC_LOC_QP_OP_ERR);
	w->wr.opcode = IB_WR_SEND_WITH_IMM;
	KUNIT_EXPECT_EQ(test, sroce_wqe_parse_send(wqe, w, IB_QPT_GSI, 4, 64),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wqe->ud.ah_num, 42U);
}

static struct kunit_case sroce_ud_cases[] = {
	KUNIT_CASE(qkey_selection),
	KUNIT_CASE(qkey_check),
	KUNIT_CASE(grh_ipv4),
	KUNIT_CASE(grh_ipv6),
	KUNIT_CASE(recv_length),
	KUNIT_CASE(ud_wqe_copy),
	{}
};

static struct kunit_suite sroce_ud_suite = {
	.name		= "sroce_ud",
	.test_cases	= sroce_ud_cases,
};

kunit_test_suites(&sroce_ud_suite);
