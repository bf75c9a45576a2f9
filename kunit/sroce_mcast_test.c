// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for multicast: the IP and MAC address of a RoCEv2 MGID
 * (IPv4 v4-mapped and IPv6, and what is not a multicast GID), and the
 * group table's attach and detach rules, limits and hash seed.
 */
#include <kunit/test.h>
#include <linux/hash.h>
#include <linux/in6.h>
#include <linux/jhash.h>
#include <linux/socket.h>
#include <linux/string.h>

#include "sroce_mcast.h"

static union ib_gid gid_v4(u8 a, u8 b, u8 c, u8 d)
{
	union ib_gid g = {};

	g.raw[10] = 0xff;
	g.raw[11] = 0xff;
	g.raw[12] = a;
	g.raw[13] = b;
	g.raw[14] = c;
	g.raw[15] = d;
	return g;
}

static void addr_ipv4(struct kunit *test)
{
	static const u8 mac1[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0x7f, 0x01, 0x02 };
	static const u8 mac2[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	static const u8 mac3[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0x7f, 0xff, 0xfe };
	struct sroce_mcast_addr a;
	union ib_gid g;

	g = gid_v4(239, 255, 1, 2);
	KUNIT_ASSERT_EQ(test, sroce_mcast_gid_to_addr(&g, &a), 0);
	KUNIT_EXPECT_EQ(test, a.family, AF_INET);
	KUNIT_EXPECT_EQ(test, ntohl(a.ip.v4), 0xefff0102U);
	KUNIT_EXPECT_EQ(test, memcmp(a.mac, mac1, ETH_ALEN), 0);

	/* Only the low 23 bits reach the MAC: 224.128.0.1 -> ...:00:00:01. */
	g = gid_v4(224, 128, 0, 1);
	KUNIT_ASSERT_EQ(test, sroce_mcast_gid_to_addr(&g, &a), 0);
	KUNIT_EXPECT_EQ(test, ntohl(a.ip.v4), 0xe0800001U);
	KUNIT_EXPECT_EQ(test, memcmp(a.mac, mac2, ETH_ALEN), 0);

	g = gid_v4(239, 255, 255, 254);
	KUNIT_ASSERT_EQ(test, sroce_mcast_gid_to_addr(&g, &a), 0);
	KUNIT_EXPECT_EQ(test, memcmp(a.mac, mac3, ETH_ALEN), 0);
}

static void addr_ipv6(struct kunit *test)
{
	static const u8 mac[ETH_ALEN] = { 0x33, 0x33, 0xab, 0xcd, 0xef, 0x01 };
	static const u8 mac_ll[ETH_ALEN] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };
	struct sroce_mcast_addr a;
	union ib_gid g = {};

	/* ff0e::abcd:ef01 */
	g.raw[0] = 0xff;
	g.raw[1] = 0x0e;
	g.raw[12] = 0xab;
	g.raw[13] = 0xcd;
	g.raw[14] = 0xef;
	g.raw[15] = 0x01;
	KUNIT_ASSERT_EQ(test, sroce_mcast_gid_to_addr(&g, &a), 0);
	KUNIT_EXPECT_EQ(test, a.family, AF_INET6);
	KUNIT_EXPECT_EQ(test, memcmp(&a.ip.v6, g.raw, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(a.mac, mac, ETH_ALEN), 0);

	/* ff02::1 */
	memset(&g, 0, sizeof(g));
	g.raw[0] = 0xff;
	g.raw[1] = 0x02;
	g.raw[15] = 0x01;
	KUNIT_ASSERT_EQ(test, sroce_mcast_gid_to_addr(&g, &a), 0);
	KUNIT_EXPECT_EQ(test, memcmp(a.mac, mac_ll, ETH_ALEN), 0);
}

static void addr_not_multicast(struct kunit *test)
{
	struct sroce_mcast_addr a;
	union ib_gid g = {};

	/* :: */
	KUNIT_EXPECT_EQ(test, sroce_mcast_gid_to_addr(&g, &a), -EINVAL);
	/* Unicast, limited broadcast and 240/4 in v4-mapped form. */
	g = gid_v4(10, 0, 0, 1);
	KUNIT_EXPECT_EQ(test, sroce_mcast_gid_to_addr(&g, &a), -EINVAL);
	g = gid_v4(255, 255, 255, 255);
	KUNIT_EXPECT_EQ(test, sroce_mcast_gid_to_addr(&g, &a), -EINVAL);
	g = gid_v4(240, 0, 0, 1);
	KUNIT_EXPECT_EQ(test, sroce_mcast_gid_to_addr(&g, &a), -EINVAL);
	g = gid_v4(223, 255, 255, 255);
	KUNIT_EXPECT_EQ(test, sroce_mcast_gid_to_addr(&g, &a), -EINVAL);
	/* fe80::1 */
	memset(&g, 0, sizeof(g));
	g.raw[0] = 0xfe;
	g.raw[1] = 0x80;
	g.raw[15] = 1;
	KUNIT_EXPECT_EQ(test, sroce_mcast_gid_to_addr(&g, &a), -EINVAL);
	/* An IB-style MGID needs ff in the first byte, not elsewhere. */
	g.raw[0] = 0xfe;
	g.raw[15] = 0xff;
	KUNIT_EXPECT_EQ(test, sroce_mcast_gid_to_addr(&g, &a), -EINVAL);
}

/* The table only compares QP anchors; these stand for four QPs. */
static char fake_qps[4];
#define QP(i)	((struct sroce_anchor *)&fake_qps[i])

/* sroce_mcast_table_detach_qp()'s @left: the last address, and a count. */
static int left_calls;

static void record_left(void *ctx, const struct sroce_mcast_addr *addr)
{
	*(struct sroce_mcast_addr *)ctx = *addr;
	left_calls++;
}

static void table_limits(struct kunit *test)
{
	union ib_gid g1 = gid_v4(239, 1, 1, 1);
	union ib_gid g2 = gid_v4(239, 1, 1, 2);
	union ib_gid g3 = gid_v4(239, 1, 1, 3);
	union ib_gid bad = gid_v4(10, 1, 1, 1);
	struct sroce_mcast_table *tbl;
	struct sroce_mcast_addr left;
	bool created;

	tbl = kunit_kzalloc(test, sizeof(*tbl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tbl);
	/* 2 groups, 3 QPs per group, 5 attachments in all. */
	sroce_mcast_table_init(tbl, 2, 3, 5);
	left_calls = 0;
	mutex_lock(&tbl->lock);

	KUNIT_EXPECT_EQ(test, sroce_mcast_table_attach(tbl, &g1, QP(0),
						       &created), 0);
	KUNIT_EXPECT_TRUE(test, created);
	/* Attaching again changes nothing. */
	KUNIT_EXPECT_EQ(test, sroce_mcast_table_attach(tbl, &g1, QP(0),
						       &created), 0);
	KUNIT_EXPECT_FALSE(test, created);
	KUNIT_EXPECT_EQ(test, tbl->num_attach, 1U);
	KUNIT_EXPECT_EQ(test, sroce_mcast_grp_find(tbl, &g1)->num_qps, 1U);

	KUNIT_EXPECT_EQ(test, sroce_mcast_table_attach(tbl, &g1, QP(1),
						       &created), 0);
	KUNIT_EXPECT_FALSE(test, created);
	KUNIT_EXPECT_EQ(test, sroce_mcast_table_attach(tbl, &g1, QP(2),
						       &created), 0);
	/* max_mcast_qp_attach */
	KUNIT_EXPECT_EQ(test, sroce_mcast_table_attach(tbl, &g1, QP(3),
						       &created), -ENOMEM);
	KUNIT_EXPECT_EQ(test, sroce_mcast_grp_find(tbl, &g1)->num_qps, 3U);

	KUNIT_EXPECT_EQ(test, sroce_mcast_table_attach(tbl, &g2, QP(0),
						       &created), 0);
	KUNIT_EXPECT_TRUE(test, created);
	KUNIT_EXPECT_EQ(test, tbl->num_grps, 2U);
	/* max_mcast_grp */
	KUNIT_EXPECT_EQ(test, sroce_mcast_table_attach(tbl, &g3, QP(0),
						       &created), -ENOMEM);
	KUNIT_EXPECT_NULL(test, sroce_mcast_grp_find(tbl, &g3));
	KUNIT_EXPECT_EQ(test, sroce_mcast_table_attach(tbl, &g2, QP(1),
						       &created), 0);
	/* max_total_mcast_qp_attach */
	KUNIT_EXPECT_EQ(test, tbl->num_attach, 5U);
	KUNIT_EXPECT_EQ(test, sroce_mcast_table_attach(tbl, &g2, QP(2),
						       &created), -ENOMEM);
	KUNIT_EXPECT_EQ(test, sroce_mcast_table_attach(tbl, &bad, QP(0),
						       &created), -EINVAL);
	KUNIT_EXPECT_EQ(test, tbl->num_attach, 5U);

	/* Detach: not attached, unknown group, then a member. */
	KUNIT_EXPECT_EQ(test, sroce_mcast_table_detach(tbl, &g1, QP(3),
						       &left), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mcast_table_detach(tbl, &g3, QP(0),
						       &left), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mcast_table_detach(tbl, &g2, QP(0),
						       &left), 0);
	KUNIT_EXPECT_EQ(test, sroce_mcast_table_detach(tbl, &g2, QP(0),
						       &left), -EINVAL);
	KUNIT_EXPECT_EQ(test, tbl->num_attach, 4U);

	/* QP 1 is in both groups and leaves both at once; g2 goes with it. */
	memset(&left, 0, sizeof(left));
	sroce_mcast_table_detach_qp(tbl, QP(1), record_left, &left);
	KUNIT_EXPECT_EQ(test, left.family, AF_INET);
	KUNIT_EXPECT_EQ(test, ntohl(left.ip.v4), 0xef010102U);
	KUNIT_EXPECT_EQ(test, left.mac[5], 0x02);
	KUNIT_EXPECT_EQ(test, left_calls, 1);
	KUNIT_EXPECT_NULL(test, sroce_mcast_grp_find(tbl, &g2));
	KUNIT_EXPECT_EQ(test, sroce_mcast_grp_find(tbl, &g1)->num_qps, 2U);
	KUNIT_EXPECT_EQ(test, tbl->num_grps, 1U);
	KUNIT_EXPECT_EQ(test, tbl->num_attach, 2U);
	KUNIT_EXPECT_EQ(test, sroce_mcast_table_detach(tbl, &g1, QP(1),
						       &left), -EINVAL);
	/* A QP in no group leaves none. */
	sroce_mcast_table_detach_qp(tbl, QP(3), record_left, &left);
	KUNIT_EXPECT_EQ(test, left_calls, 1);

	/* The freed group slot takes a new group. */
	KUNIT_EXPECT_EQ(test, sroce_mcast_table_attach(tbl, &g3, QP(3),
						       &created), 0);
	KUNIT_EXPECT_TRUE(test, created);
	KUNIT_EXPECT_EQ(test, tbl->num_grps, 2U);
	KUNIT_EXPECT_EQ(test, tbl->num_attach, 3U);

	mutex_unlock(&tbl->lock);
	sroce_mcast_table_destroy(tbl);
}

/*
 * MGIDs chosen to share one bucket under a known hash seed (0, as before
 * the seed) spread out under the table's own random one: a local user
 * cannot stack the bucket of a group the host receives. 32 MGIDs in 256
 * buckets: a chain of 8 under a random seed has odds below 1e-8.
 */
static void table_hash_seeded(struct kunit *test)
{
	const unsigned int n = 32, buckets = 1U << SROCE_MCAST_HASH_BITS;
	union ib_gid target = gid_v4(224, 0, 0, 1);
	struct sroce_mcast_table *tbl;
	unsigned int found = 0, longest = 0, i;
	u32 want, g;
	bool created;

	tbl = kunit_kzalloc(test, sizeof(*tbl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tbl);
	sroce_mcast_table_init(tbl, n, 1, n);
	want = hash_32(jhash(target.raw, sizeof(target.raw), 0),
		       SROCE_MCAST_HASH_BITS);

	mutex_lock(&tbl->lock);
	for (g = 0; found < n && g < (1U << 23); g++) {
		union ib_gid mgid = gid_v4(239, g >> 16, g >> 8, g);

		if (hash_32(jhash(mgid.raw, sizeof(mgid.raw), 0),
			    SROCE_MCAST_HASH_BITS) != want)
			continue;
		KUNIT_EXPECT_EQ(test, sroce_mcast_table_attach(tbl, &mgid,
							       QP(0), &created),
				0);
		found++;
	}
	KUNIT_ASSERT_EQ(test, found, n);
	for (i = 0; i < buckets; i++) {
		struct sroce_mcast_grp *grp;
		unsigned int len = 0;

		hlist_for_each_entry(grp, &tbl->hash[i], node)
			len++;
		longest = max(longest, len);
	}
	mutex_unlock(&tbl->lock);
	KUNIT_EXPECT_EQ(test, tbl->num_grps, n);
	KUNIT_EXPECT_LT(test, longest, 8U);
	sroce_mcast_table_destroy(tbl);
}

static struct kunit_case sroce_mcast_test_cases[] = {
	KUNIT_CASE(addr_ipv4),
	KUNIT_CASE(addr_ipv6),
	KUNIT_CASE(addr_not_multicast),
	KUNIT_CASE(table_limits),
	KUNIT_CASE(table_hash_seeded),
	{}
};

static struct kunit_suite sroce_mcast_test_suite = {
	.name = "sroce_mcast",
	.test_cases = sroce_mcast_test_cases,
};

kunit_test_suite(sroce_mcast_test_suite);
