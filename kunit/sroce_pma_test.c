// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the Performance Management agent: its replies read at
 * the byte offsets the RDMA core's sysfs reads them at
 * (drivers/infiniband/core/sysfs.c: a counter's bit offset into the
 * attribute, past the MAD's 64-byte head).
 */
#include <kunit/test.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_verbs.h>

#include "sroce_compat.h"
#include "sroce_counters.h"
#include "sroce_pma.h"

static const struct sroce_pma_counts counts = {
	.xmit_bytes = 4000,
	.rcv_bytes = (1ULL << 40) + 8,
	.xmit_pkts = 7,
	.rcv_pkts = 0x100000005ULL,
	.rcv_errors = 70000,
	.xmit_discards = 3,
	.link_downed = 300,
};

static struct ib_mad *pma_req(struct kunit *test, u8 method, __be16 attr,
			      u8 port_select)
{
	struct ib_mad *in = kunit_kzalloc(test, sizeof(*in), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, in);
	/* What a request from the wire may hold where it is not read. */
	memset(in, 0xa5, sizeof(*in));
	in->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	in->mad_hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	in->mad_hdr.class_version = 1;
	in->mad_hdr.method = method;
	in->mad_hdr.status = 0;
	in->mad_hdr.tid = cpu_to_be64(0x1122334455667788ULL);
	in->mad_hdr.attr_id = attr;
	in->mad_hdr.attr_mod = 0;
	/* PMA data: reserved, PortSelect, CounterSelect (16.1.3.5). */
	in->data[40] = 0;
	in->data[41] = port_select;
	in->data[42] = 0xff;
	in->data[43] = 0xff;
	return in;
}

static struct ib_mad *reply(struct kunit *test, const struct ib_mad *in,
			    int want)
{
	struct ib_mad *out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_EXPECT_EQ(test, sroce_pma_answer(&counts, 1, in, out), want);
	return out;
}

/* The attribute's bytes, as sysfs addresses them. */
static const u8 *attr(const struct ib_mad *out)
{
	return out->data + 40;
}

static void expect_head(struct kunit *test, const struct ib_mad *out,
			u16 status)
{
	KUNIT_EXPECT_EQ(test, out->mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->mad_hdr.status), status);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(out->mad_hdr.tid),
			0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, out->mad_hdr.mgmt_class, IB_MGMT_CLASS_PERF_MGMT);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(out->data, 0, 40));
}

static void pma_class_port_info(struct kunit *test)
{
	const struct ib_mad *out =
		reply(test, pma_req(test, IB_MGMT_METHOD_GET,
				    IB_PMA_CLASS_PORT_INFO, 0),
		      IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);

	expect_head(test, out, 0);
	KUNIT_EXPECT_EQ(test, attr(out)[0], 1);	/* BaseVersion */
	KUNIT_EXPECT_EQ(test, attr(out)[1], 1);	/* ClassVersion */
	/* CapabilityMask: IsExtendedWidthSupportedNoIETF (bit 10) alone. */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(attr(out) + 2), 0x0400);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(attr(out) + 4), 18U);
}

/* Get(@attr_id) for port 1, answered with status 0: its attribute. */
static const u8 *get_port_attr(struct kunit *test, __be16 attr_id)
{
	const struct ib_mad *out =
		reply(test, pma_req(test, IB_MGMT_METHOD_GET, attr_id, 1),
		      IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);

	expect_head(test, out, 0);
	return attr(out);
}

static void pma_port_counters(struct kunit *test)
{
	const u8 *a = get_port_attr(test, IB_PMA_PORT_COUNTERS);

	KUNIT_EXPECT_EQ(test, a[1], 1);			/* PortSelect */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(a + 2), 0xffff);
	/* The narrow counters stop at their largest value. */
	KUNIT_EXPECT_EQ(test, a[56 / 8], 255);		/* LinkDownedCounter */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(a + 64 / 8), 0xffff);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(a + 112 / 8), 3);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(a + 192 / 8), 1000U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(a + 224 / 8), 0xffffffffU);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(a + 256 / 8), 7U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(a + 288 / 8), 0xffffffffU);
	/* Nothing else counted, and nothing of the request echoed. */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(a + 4), 0);	/* SymbolError */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(a + 320 / 8), 0U);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(a + 44, 0, 192 - 44));
}

static void pma_port_counters_ext(struct kunit *test)
{
	const u8 *a = get_port_attr(test, IB_PMA_PORT_COUNTERS_EXT);

	KUNIT_EXPECT_EQ(test, get_unaligned_be64(a + 64 / 8), 1000ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(a + 128 / 8),
			(1ULL << 38) + 2);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(a + 192 / 8), 7ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(a + 256 / 8), 0x100000005ULL);
	/* Unicast and multicast are not counted apart (NoIETF). */
	KUNIT_EXPECT_TRUE(test, !memchr_inv(a + 320 / 8, 0, 192 - 40));
}

static void pma_refusals(struct kunit *test)
{
	struct ib_mad *in, *out;

	/* Set would clear the counters: refused, as is what is not known. */
	out = reply(test, pma_req(test, IB_MGMT_METHOD_SET,
				  IB_PMA_PORT_COUNTERS, 1),
		    IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	expect_head(test, out, IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	out = reply(test, pma_req(test, IB_MGMT_METHOD_GET,
				  IB_PMA_PORT_SAMPLES_CONTROL, 1),
		    IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	expect_head(test, out, IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	/* Another port, or all ports: a CA has only its own. */
	out = reply(test, pma_req(test, IB_MGMT_METHOD_GET,
				  IB_PMA_PORT_COUNTERS_EXT, 0xff),
		    IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	expect_head(test, out, IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(attr(out) + 4, 0, 192 - 4));
	in = pma_req(test, IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 1);
	in->mad_hdr.class_version = 2;
	out = reply(test, in, IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	expect_head(test, out, IB_MGMT_MAD_STATUS_BAD_VERSION);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(attr(out) + 4, 0, 192 - 4));
}

static void pma_not_ours(struct kunit *test)
{
	struct ib_mad *in, *out;

	/* A response (never answered: two agents would loop) ... */
	in = pma_req(test, IB_MGMT_METHOD_GET_RESP, IB_PMA_PORT_COUNTERS, 1);
	out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	memset(out, 0x5a, sizeof(*out));
	KUNIT_EXPECT_EQ(test, sroce_pma_answer(&counts, 1, in, out),
			IB_MAD_RESULT_SUCCESS);
	/* ... and another class go on to the MAD layer's agents, unread. */
	in = pma_req(test, IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 1);
	in->mad_hdr.mgmt_class = IB_MGMT_CLASS_CM;
	KUNIT_EXPECT_EQ(test, sroce_pma_answer(&counts, 1, in, out),
			IB_MAD_RESULT_SUCCESS);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(out, 0x5a, sizeof(*out)));
}

static struct kunit_case sroce_pma_cases[] = {
	KUNIT_CASE(pma_class_port_info),
	KUNIT_CASE(pma_port_counters),
	KUNIT_CASE(pma_port_counters_ext),
	KUNIT_CASE(pma_refusals),
	KUNIT_CASE(pma_not_ours),
	{}
};

static struct kunit_suite sroce_pma_suite = {
	.name		= "sroce_pma",
	.test_cases	= sroce_pma_cases,
};

kunit_test_suites(&sroce_pma_suite);
