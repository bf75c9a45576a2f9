/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-demand paging MRs (IB_ACCESS_ON_DEMAND): user memory that is never
 * pinned; the packet paths use only pages the MR has mapped, and fault
 * the others in from process context (sroce_odp.c).
 */
#ifndef _SROCE_ODP_H
#define _SROCE_ODP_H

#include <linux/errno.h>
#include <linux/types.h>
#include <rdma/ib_user_ioctl_verbs.h>

struct ib_device;
struct ib_device_attr;
struct ib_pd;
struct ib_sge;
struct uverbs_attr_bundle;
struct sroce_mr;
struct sroce_mr_op;

#ifdef CONFIG_INFINIBAND_ON_DEMAND_PAGING

/*
 * sroce_odp_reg() - make @mr an ODP MR over the user range [@start,
 * @start + @length) of the calling process; nothing is mapped yet.
 * Returns 0 or a negative errno (-EOPNOTSUPP for an implicit ODP MR,
 * which the device does not offer).
 */
int sroce_odp_reg(struct sroce_mr *mr, struct ib_device *ibdev, u64 start,
		  u64 length);

/*
 * sroce_odp_release() - once no lookup can reach @mr any more: stop its
 * fault work, unmap its pages and free the ODP state.
 */
void sroce_odp_release(struct sroce_mr *mr);

/*
 * sroce_odp_run() - run @op at @iova of the ODP MR @mr if every page of
 * the range is mapped with the right the operation needs (write for all
 * but a gather); the pages stay mapped until it is done. Otherwise
 * nothing moves and the range is queued to be faulted in: -EAGAIN, for
 * the caller to retry later; -EACCES when the range could not be faulted
 * in the last time it was tried (not mapped in the process, or not
 * writable). The caller checked access and bounds.
 * Context: any but hard IRQ; does not sleep.
 */
int sroce_odp_run(struct sroce_mr *mr, u64 iova, struct sroce_mr_op *op);

/*
 * sroce_odp_va() - the kernel address of @iova in the ODP MR @mr and in
 * *@room the bytes that follow it in its page, or NULL if the page is not
 * mapped. Only under sroce_odp_run().
 */
void *sroce_odp_va(struct sroce_mr *mr, u64 iova, u32 *room);

/*
 * sroce_odp_advise_mr() - ibv_advise_mr(): map the ranges @sg_list names
 * in ODP MRs of @pd now (PREFETCH, PREFETCH_WRITE), or as far as they are
 * present (PREFETCH_NO_FAULT). Context: process; sleeps.
 */
int sroce_odp_advise_mr(struct ib_pd *pd,
			enum ib_uverbs_advise_mr_advice advice, u32 flags,
			struct ib_sge *sg_list, u32 num_sge,
			struct uverbs_attr_bundle *attrs);

/* The device's ODP capabilities, for query_device. */
void sroce_odp_caps(struct ib_device_attr *attr);

#else

static inline int sroce_odp_advise_mr(struct ib_pd *pd,
				      enum ib_uverbs_advise_mr_advice advice,
				      u32 flags, struct ib_sge *sg_list,
				      u32 num_sge,
				      struct uverbs_attr_bundle *attrs)
{
	return -EOPNOTSUPP;
}

static inline int sroce_odp_reg(struct sroce_mr *mr, struct ib_device *ibdev,
				u64 start, u64 length)
{
	return -EOPNOTSUPP;
}

static inline void sroce_odp_release(struct sroce_mr *mr) {}

static inline int sroce_odp_run(struct sroce_mr *mr, u64 iova,
				struct sroce_mr_op *op)
{
	return -EACCES;
}

static inline void *sroce_odp_va(struct sroce_mr *mr, u64 iova, u32 *room)
{
	return NULL;
}

static inline void sroce_odp_caps(struct ib_device_attr *attr) {}

#endif /* CONFIG_INFINIBAND_ON_DEMAND_PAGING */

#endif /* _SROCE_ODP_H */
