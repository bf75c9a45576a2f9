// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs objects: user contexts and protection domains.
 *
 * The stock rxe provider sends no driver data with get_context or
 * alloc_pd, and expects none back, so any udata is refused rather than
 * silently ignored.
 */
#include <rdma/ib_verbs.h>

#include "sroce_dev.h"
#include "sroce_param.h"
#include "sroce_verbs.h"

int sroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	if (udata->inlen || udata->outlen)
		return -EINVAL;
	return 0;
}

void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_pds) > sdev->attr.max_pd) {
		atomic_dec(&sdev->num_pds);
		return -ENOSPC;
	}
	return 0;
}

int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_sdev(ibpd->device)->num_pds);
	return 0;
}
