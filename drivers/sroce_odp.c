// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand paging MRs (IB_ACCESS_ON_DEMAND): registered user memory that
 * is never pinned. The core's ib_umem_odp keeps one entry per page in
 * dma_list (sroce has no DMA device: the entry is the page's kernel
 * address, plus a read and a write bit) and an mmu interval notifier that
 * clears entries whenever the mm unmaps, migrates or write-protects their
 * pages.
 *
 * The packet paths run in softirq and must not fault. sroce_odp_run()
 * checks, under odp->lock, that every page an access touches is mapped
 * with the right it needs, and copies under the same lock; the
 * invalidation clears the entries and then takes odp->lock once, so that
 * no copy that read an entry before it was cleared outlives the notifier
 * (after which the mm may free the page). A page that is not mapped
 * fails the access with -EAGAIN and queues the MR's fault work, which
 * maps the range (and up to SROCE_ODP_PREFETCH bytes behind it) in process
 * context with hmm_range_fault(). The callers retry: the responder keeps
 * the request and runs it again a tick later, sending no NAK (UC loses
 * the message); the requester looks again a tick later, also before a
 * READ or atomic whose local buffer is missing; the completer drops the
 * response and asks for it again at once.
 *
 * Implicit ODP (the whole address space as one MR) is not offered.
 */
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem_odp.h>

#include "sroce_counters.h"
#include "sroce_dev.h"
#include "sroce_mr.h"
#include "sroce_odp.h"

/*
 * Faulted in beyond a missing access: the rest of a message, typically.
 * Not more: a range that changes while hmm_range_fault() walks it is
 * walked again (for up to a second), and a long walk is more likely to
 * meet a change.
 */
#define SROCE_ODP_PREFETCH	SZ_256K
/* The most one run of the fault work maps, merging misses. */
#define SROCE_ODP_FAULT_MAX	(4 * SROCE_ODP_PREFETCH)

struct sroce_odp {
	struct ib_umem_odp *umem;
	struct sroce_dev *sdev;
	/*
	 * lock: the copies, which read umem->dma_list, against the
	 * invalidation (see above); and the fault and bad ranges.
	 */
	spinlock_t lock;
	/*
	 * What the fault work maps next: the user addresses the accesses
	 * missed, [fault_start, fault_end) (none when equal), then, best
	 * effort, on to prefetch_end.
	 */
	u64 fault_start;
	u64 fault_end;
	u64 prefetch_end;
	bool fault_write;
	/* The last missed range the fault work failed to map; none when equal. */
	u64 bad_start;
	u64 bad_end;
	struct work_struct fault_work;
};

/* The user address of @iova: the MR's iova may differ from its address. */
static u64 sroce_odp_uva(const struct sroce_mr *mr, u64 iova)
{
	return mr->odp->umem->umem.address + (iova - mr->iova);
}

static dma_addr_t sroce_odp_entry(struct ib_umem_odp *umem, u64 uva)
{
	size_t idx = (uva - ib_umem_start(umem)) >> umem->page_shift;

	if (uva < ib_umem_start(umem) || idx >= ib_umem_odp_num_pages(umem))
		return 0;
	/* Cleared by the invalidation while we may read it: see above. */
	return READ_ONCE(umem->dma_list[idx]);
}

void *sroce_odp_va(struct sroce_mr *mr, u64 iova, u32 *room)
{
	struct ib_umem_odp *umem = mr->odp->umem;
	u64 uva = sroce_odp_uva(mr, iova);
	u64 size = BIT_ULL(umem->page_shift);
	dma_addr_t e = sroce_odp_entry(umem, uva);
	u64 off = uva & (size - 1);

	if (!e)
		return NULL;
	*room = min_t(u64, size - off, U32_MAX);
	return (void *)(uintptr_t)((e & ODP_DMA_ADDR_MASK) + off);
}

/* Is every page of [@uva, @uva + @len) mapped with the right wanted? */
static bool sroce_odp_mapped(struct ib_umem_odp *umem, u64 uva, u64 len,
			     bool write)
{
	dma_addr_t want = write ? ODP_WRITE_ALLOWED_BIT : ODP_READ_ALLOWED_BIT;
	u64 size = BIT_ULL(umem->page_shift);
	u64 end = uva + len;

	for (uva &= ~(size - 1); uva < end; uva += size)
		if (!(sroce_odp_entry(umem, uva) & want))
			return false;
	return true;
}

/*
 * A miss at [@uva, @uva + @len): queue the fault. Misses join the one
 * queued only where they touch it with the same right, so that the range
 * faulted is all memory an access wants: a hole or a read-only page next
 * to it (a guard page, a gap between mappings) fails only the accesses
 * that reach it. The prefetch behind is best effort. Caller holds
 * odp->lock.
 */
static int sroce_odp_miss(struct sroce_odp *odp, u64 uva, u64 len, bool write)
{
	u64 end = uva + len;
	u64 prefetch = min_t(u64, uva + max_t(u64, len, SROCE_ODP_PREFETCH),
			     ib_umem_end(odp->umem));

	sroce_counter_inc(&odp->sdev->counters, SROCE_CNT_ODP_MISSES);
	/* Tried and failed: fail the access, once, as a protection error. */
	if (uva < odp->bad_end && end > odp->bad_start) {
		odp->bad_start = 0;
		odp->bad_end = 0;
		return -EACCES;
	}
	if (odp->fault_start == odp->fault_end) {
		odp->fault_start = uva;
		odp->fault_end = end;
		odp->prefetch_end = prefetch;
		odp->fault_write = write;
	} else if (write == odp->fault_write && uva <= odp->fault_end &&
		   end >= odp->fault_start &&
		   max(odp->fault_end, end) - min(odp->fault_start, uva) <=
		   SROCE_ODP_FAULT_MAX) {
		odp->fault_start = min(odp->fault_start, uva);
		odp->fault_end = max(odp->fault_end, end);
		odp->prefetch_end = max(odp->prefetch_end, prefetch);
	}
	/* Else this range waits: its access misses again after that one. */
	queue_work(system_unbound_wq, &odp->fault_work);
	return -EAGAIN;
}

int sroce_odp_run(struct sroce_mr *mr, u64 iova, struct sroce_mr_op *op)
{
	struct sroce_odp *odp = mr->odp;
	bool write = op->kind != SROCE_MR_OP_FROM;
	u64 uva = sroce_odp_uva(mr, iova);
	int err;

	if (op->kind == SROCE_MR_OP_CHECK || !op->len)
		return 0;
	spin_lock_bh(&odp->lock);
	err = -EACCES;
	if (sroce_odp_mapped(odp->umem, uva, op->len, write))
		err = sroce_mr_run_mapped(mr, iova, op);
	/*
	 * -EACCES after the check: an invalidation cleared an entry in the
	 * middle of the range meanwhile (it does so before it takes
	 * odp->lock). Either way a page is missing: fault it in. Bytes
	 * already moved are moved again by the retry; an atomic's 8 bytes
	 * lie in one page and move all or none.
	 */
	if (err == -EACCES)
		err = sroce_odp_miss(odp, uva, op->len, write);
	spin_unlock_bh(&odp->lock);
	return err;
}

/*
 * Map the user range [@start, @start + @len) of @odp, writable if @write;
 * only what is present already unless @fault (counted in odp_faults, for
 * the fault work and a prefetch alike). Process context:
 * hmm_range_fault() takes the owner's mmap lock and may sleep in the page
 * allocator or on I/O; no sroce lock is held.
 */
static int sroce_odp_map(struct sroce_odp *odp, u64 start, u64 len,
			 bool write, bool fault)
{
	u64 access = ODP_READ_ALLOWED_BIT;
	int ret;

	if (write)
		access |= ODP_WRITE_ALLOWED_BIT;
	ret = ib_umem_odp_map_dma_and_lock(odp->umem, start, len, access,
					   fault);
	if (ret < 0)
		return ret;
	mutex_unlock(&odp->umem->umem_mutex);
	if (fault)
		sroce_counter_inc(&odp->sdev->counters, SROCE_CNT_ODP_FAULTS);
	return 0;
}

/*
 * The range kept changing for a second (-EBUSY) or the core ran short of
 * memory for its page list: the next access faults again. Anything else
 * (no such mapping, no write right, the process gone) is final, a page
 * fault that ran out of memory too: hmm_range_fault() reports it as
 * -EFAULT (mlx5 fails such an access the same way).
 */
static bool sroce_odp_map_err_final(int err)
{
	return err != -EBUSY && err != -ENOMEM;
}

/*
 * [@start, @end) failed to map as a whole, for good: hmm_range_fault()
 * maps all or nothing, and misses merged from several accesses may span
 * a hole only some of them reach. Map it page by page and record as bad
 * only the span of the pages that fail.
 */
static void sroce_odp_map_pages(struct sroce_odp *odp, u64 start, u64 end,
				bool write)
{
	u64 size = BIT_ULL(odp->umem->page_shift);
	u64 bad_start = 0, bad_end = 0, p;

	for (p = start & ~(size - 1); p < end; p += size) {
		int err = sroce_odp_map(odp, p, size, write, true);

		if (!err || !sroce_odp_map_err_final(err))
			continue;
		if (bad_start == bad_end)
			bad_start = max(p, start);
		bad_end = min(p + size, end);
	}
	if (bad_start == bad_end)
		return;
	spin_lock_bh(&odp->lock);
	odp->bad_start = bad_start;
	odp->bad_end = bad_end;
	spin_unlock_bh(&odp->lock);
}

/* Map what the packet paths missed. */
static void sroce_odp_fault_work(struct work_struct *work)
{
	struct sroce_odp *odp = container_of(work, struct sroce_odp,
					     fault_work);
	u64 start, end, prefetch;
	bool write;
	int err;

	spin_lock_bh(&odp->lock);
	start = odp->fault_start;
	end = odp->fault_end;
	prefetch = odp->prefetch_end;
	write = odp->fault_write;
	odp->fault_start = 0;
	odp->fault_end = 0;
	odp->prefetch_end = 0;
	odp->fault_write = false;
	spin_unlock_bh(&odp->lock);
	if (start >= end)
		return;

	err = sroce_odp_map(odp, start, end - start, write, true);
	if (!err) {
		spin_lock_bh(&odp->lock);
		/* Mapped now: an old failure there no longer says anything. */
		if (start < odp->bad_end && end > odp->bad_start) {
			odp->bad_start = 0;
			odp->bad_end = 0;
		}
		spin_unlock_bh(&odp->lock);
		/* Best effort: where it fails, later misses fault their own. */
		if (prefetch > end)
			sroce_odp_map(odp, end, prefetch - end, write, true);
		return;
	}
	sroce_counter_inc(&odp->sdev->counters, SROCE_CNT_ODP_FAULT_ERRORS);
	if (sroce_odp_map_err_final(err))
		sroce_odp_map_pages(odp, start, end, write);
}

/*
 * The mm changes pages of the MR: unmap them. Called before the pages go;
 * once this returns, no copy may touch them.
 */
static bool sroce_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *umem = container_of(mni, struct ib_umem_odp,
						notifier);
	struct sroce_odp *odp = READ_ONCE(umem->private);

	/* umem_mutex may sleep (and the OOM reaper may not wait). */
	if (!mmu_notifier_range_blockable(range))
		return false;

	mutex_lock(&umem->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	ib_umem_odp_unmap_dma_pages(umem, max(range->start, ib_umem_start(umem)),
				    min(range->end, ib_umem_end(umem)));
	/*
	 * A copy that read an entry before it was cleared holds odp->lock
	 * until it is done: wait it out. No copy runs before umem->private
	 * is set (the MR is published after).
	 */
	if (odp) {
		spin_lock_bh(&odp->lock);
		spin_unlock_bh(&odp->lock);
		sroce_counter_inc(&odp->sdev->counters,
				  SROCE_CNT_ODP_INVALIDATIONS);
	}
	mutex_unlock(&umem->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops sroce_odp_ops = {
	.invalidate = sroce_odp_invalidate,
};

/*
 * The core keeps 16 bytes of page list per page of an ODP MR's length
 * (ib_umem_odp_get()), in kernel memory no cgroup is charged for, however
 * little is ever mapped: an unprivileged process could ask for gigabytes
 * of it with one registration over a reserved address range. A device's
 * ODP MRs may span at most the host's RAM together, which bounds their
 * lists to 1/256 of it.
 */
static bool sroce_odp_charge(struct sroce_dev *sdev, u64 length)
{
	u64 limit = (u64)totalram_pages() << PAGE_SHIFT;
	s64 cur = atomic64_read(&sdev->odp_bytes);

	/* Add only what fits: a refused request never blocks another. */
	do {
		if ((u64)cur > limit || length > limit - (u64)cur)
			return false;
	} while (!atomic64_try_cmpxchg(&sdev->odp_bytes, &cur, cur + length));
	return true;
}

int sroce_odp_reg(struct sroce_mr *mr, struct ib_device *ibdev, u64 start,
		  u64 length)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	struct ib_umem_odp *umem;
	struct sroce_odp *odp;
	int err = -ENOMEM;

	/* Implicit ODP: not offered (no IB_ODP_SUPPORT_IMPLICIT). */
	if (!start && length == U64_MAX)
		return -EOPNOTSUPP;
	if (!sroce_odp_charge(sdev, length))
		return -ENOMEM;

	odp = kzalloc(sizeof(*odp), GFP_KERNEL);
	if (!odp)
		goto err_uncharge;
	spin_lock_init(&odp->lock);
	INIT_WORK(&odp->fault_work, sroce_odp_fault_work);
	odp->sdev = sdev;

	umem = ib_umem_odp_get(ibdev, start, length, mr->access,
			       &sroce_odp_ops);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		kfree(odp);
		goto err_uncharge;
	}
	odp->umem = umem;
	mr->odp = odp;
	WRITE_ONCE(umem->private, odp);
	return 0;

err_uncharge:
	atomic64_sub(length, &sdev->odp_bytes);
	return err;
}

void sroce_odp_release(struct sroce_mr *mr)
{
	struct sroce_odp *odp = mr->odp;

	/* No lookup reaches the MR: nothing queues the work again. */
	cancel_work_sync(&odp->fault_work);
	/* What sroce_odp_reg() charged: the umem keeps the length asked for. */
	atomic64_sub(odp->umem->umem.length, &odp->sdev->odp_bytes);
	ib_umem_odp_release(odp->umem);
	kfree(odp);
	mr->odp = NULL;
}

int sroce_odp_advise_mr(struct ib_pd *pd,
			enum ib_uverbs_advise_mr_advice advice, u32 flags,
			struct ib_sge *sg_list, u32 num_sge,
			struct uverbs_attr_bundle *attrs)
{
	bool write = advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	bool fault = advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
	struct sroce_dev *sdev = to_sdev(pd->device);
	struct sroce_mr *mr;
	int err = 0;
	u32 i;

	if (advice > IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return -EOPNOTSUPP;
	/*
	 * Synchronous whether or not IB_UVERBS_ADVISE_MR_FLAG_FLUSH asks:
	 * this is the caller's process context already. The lookup
	 * reference is held across the fault, so a dereg meanwhile waits
	 * for it.
	 */
	for (i = 0; i < num_sge && !err; i++) {
		const struct ib_sge *sge = &sg_list[i];

		mr = sroce_mr_lookup(sdev, sge->lkey);
		if (!mr)
			return -ENOENT;
		if (mr->type != SROCE_MR_ODP || mr->lkey != sge->lkey ||
		    mr->ibmr.pd != pd ||
		    !sroce_mr_check_range(mr->iova, mr->length, sge->addr,
					  sge->length) ||
		    (write && !(mr->access & IB_ACCESS_LOCAL_WRITE)))
			err = -EINVAL;
		else if (sge->length)
			err = sroce_odp_map(mr->odp,
					    sroce_odp_uva(mr, sge->addr),
					    sge->length, write, fault);
		sroce_mr_put(mr);
	}
	return err;
}

void sroce_odp_caps(struct ib_device_attr *attr)
{
	u32 rc = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		 IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
		 IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV;

	attr->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	attr->odp_caps.general_caps = IB_ODP_SUPPORT;
	/*
	 * RC only: UC and UD have no way to ask again, so a datagram or UC
	 * message that meets an unmapped page is lost (an ODP MR still
	 * works there, with such losses).
	 */
	attr->odp_caps.per_transport_caps.rc_odp_caps = rc;
}
