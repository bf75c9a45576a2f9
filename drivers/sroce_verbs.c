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

/*
 * The device is going away (rdma link del, rmmod, the netdev deleted, a
 * move to another namespace) while a process still holds it open. With
 * this callback the core does not wait for the process to close the
 * device, which it may never do: it destroys every object of the context
 * through the driver, then calls here, and the process gets EIO from then
 * on. Nothing is left to undo: userspace maps only ring buffers
 * (sroce_queue.c), whose pages each mapping holds a reference on until
 * munmap(), no I/O memory and no doorbell page, and the destroyed objects
 * no longer touch the rings.
 */
void sroce_disassociate_ucontext(struct ib_ucontext *ibuc)
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
