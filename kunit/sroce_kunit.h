/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the KUnit suites: a device for the MR code and DMA MRs
 * on it; whether an access through a key would be granted now, asked the
 * way the data path asks it.
 */
#ifndef _SROCE_KUNIT_H
#define _SROCE_KUNIT_H

#include <kunit/test.h>
#include <linux/err.h>

#include "sroce_dev.h"
#include "sroce_mr.h"
#include "sroce_mw.h"

/*
 * A device with just what the MR code uses (room for 16 MRs), and the PDs
 * @pd and @other_pd on it; sroce_mr_cleanup() it at the end.
 */
static inline struct sroce_dev *mr_test_dev(struct kunit *test,
					    struct ib_pd *pd,
					    struct ib_pd *other_pd)
{
	struct sroce_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sdev);
	sdev->attr.max_mr = 16;
	sroce_mr_init(sdev);
	pd->device = &sdev->ibdev;
	other_pd->device = &sdev->ibdev;
	return sdev;
}

static inline struct sroce_mr *dma_mr(struct kunit *test, struct ib_pd *pd,
				      int access)
{
	struct ib_mr *ibmr = sroce_get_dma_mr(pd, access);

	KUNIT_ASSERT_FALSE(test, IS_ERR(ibmr));
	/* What ib_get_dma_mr() fills in around the driver. */
	ibmr->device = pd->device;
	ibmr->pd = pd;
	return to_smr(ibmr);
}

/* An access through the MR key @key (sroce_mr_access()), checked only. */
static inline bool key_ok(struct sroce_dev *sdev, struct ib_pd *pd, u32 key,
			  bool remote, int access, u64 iova, u32 len)
{
	struct sroce_mr_op op = { .kind = SROCE_MR_OP_CHECK, .len = len };
	struct sroce_mr *mr = sroce_mr_lookup(sdev, key);
	bool ok;

	if (!mr)
		return false;
	ok = !sroce_mr_access(mr, pd, key, remote, access, iova, &op);
	sroce_mr_put(mr);
	return ok;
}

/* A remote access on @qp through the R_Key @rkey, checked only. */
static inline bool rkey_ok(struct sroce_qp *qp, u32 rkey, int access,
			   u64 va, u32 len)
{
	struct sroce_mr_op op = { .kind = SROCE_MR_OP_CHECK, .len = len };

	return !sroce_rkey_access(qp, rkey, access, va, &op);
}

/* A remote copy on @qp through @rkey; 0 or -EACCES. */
static inline int rkey_copy(struct sroce_qp *qp, u32 rkey, int access,
			    u64 va, void *buf, u32 len, bool to_mr)
{
	struct sroce_mr_op op = {
		.kind = to_mr ? SROCE_MR_OP_TO : SROCE_MR_OP_FROM,
		.buf = buf,
		.len = len,
	};

	return sroce_rkey_access(qp, rkey, access, va, &op);
}

#endif /* _SROCE_KUNIT_H */
