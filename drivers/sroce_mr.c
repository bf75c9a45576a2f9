// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions: registration, key lookup with the access checks every
 * data movement goes through, and the copy engine between MRs and packet
 * buffers.
 *
 * Keys: lkey = (index << 8) | 8 random bits, index from sdev->mrs; the
 * rkey equals the lkey when the MR grants remote access and is 0 otherwise,
 * so a guessed or stale key rarely names a live MR. Lookups run under RCU
 * and take mr->ref; dereg removes the index, waits for the last reference
 * and frees the MR after a grace period.
 *
 * User MRs are pinned with ib_umem_get() and kept as a page array; every
 * access maps one page at a time with kmap_local_page().
 */
#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "sroce_dev.h"
#include "sroce_mr.h"

#define SROCE_MR_INDEX_MAX	((1U << 24) - 1)

#define SROCE_MR_REMOTE_ACCESS	(IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)

/*
 * Serialises sroce's atomics with each other (IB_ATOMIC_HCA semantics,
 * IBTA 10.7.2.2): one lock for every device, as two devices on one host
 * may reach the same memory through different MRs.
 */
static DEFINE_SPINLOCK(sroce_mr_atomic_lock);

/* Reserve an index, make the keys, and publish the MR under them. */
static int sroce_mr_publish(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	u32 index;
	int err;

	if (atomic_inc_return(&sdev->num_mrs) > sdev->attr.max_mr) {
		atomic_dec(&sdev->num_mrs);
		return -ENOSPC;
	}
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);

	err = xa_alloc_cyclic(&sdev->mrs, &index, NULL,
			      XA_LIMIT(1, SROCE_MR_INDEX_MAX),
			      &sdev->next_mr_index, GFP_KERNEL);
	if (err < 0) {
		atomic_dec(&sdev->num_mrs);
		return err;
	}
	mr->ibmr.lkey = (index << 8) | (get_random_u32() & 0xff);
	mr->ibmr.rkey = mr->access & SROCE_MR_REMOTE_ACCESS ? mr->ibmr.lkey : 0;
	/* The slot is reserved: this store cannot fail. */
	xa_store(&sdev->mrs, index, mr, GFP_KERNEL);
	return 0;
}

struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->type = SROCE_MR_DMA;
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->access = access;

	err = sroce_mr_publish(to_sdev(ibpd->device), mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

static int sroce_mr_pin(struct sroce_mr *mr, struct ib_device *ibdev,
			u64 start, u64 length)
{
	struct sg_page_iter iter;
	struct ib_umem *umem;
	unsigned int i = 0;

	umem = ib_umem_get(ibdev, start, length, mr->access);
	if (IS_ERR(umem))
		return PTR_ERR(umem);

	mr->npages = ib_umem_num_pages(umem);
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		ib_umem_release(umem);
		return -ENOMEM;
	}
	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		if (WARN_ON_ONCE(i >= mr->npages))
			break;
		mr->pages[i++] = sg_page_iter_page(&iter);
	}
	mr->npages = i;
	mr->first_offset = ib_umem_offset(umem);
	mr->umem = umem;
	return 0;
}

struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct sroce_mr *mr;
	int err;

	if (access & (IB_ACCESS_ON_DEMAND | IB_ZERO_BASED))
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || iova + length < iova)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->type = SROCE_MR_USER;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;

	err = sroce_mr_pin(mr, ibpd->device, start, length);
	if (err)
		goto err_free;

	err = sroce_mr_publish(to_sdev(ibpd->device), mr);
	if (err)
		goto err_unpin;
	return &mr->ibmr;

err_unpin:
	kvfree(mr->pages);
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmr->device);
	struct sroce_mr *mr = to_smr(ibmr);

	/* No new lookups; then wait for the copies in flight. */
	xa_erase(&sdev->mrs, ibmr->lkey >> 8);
	sroce_mr_put(mr);
	wait_for_completion(&mr->released);

	if (mr->umem) {
		kvfree(mr->pages);
		ib_umem_release(mr->umem);
	}
	atomic_dec(&sdev->num_mrs);
	/* A reader may still hold the pointer it found under RCU. */
	kfree_rcu(mr, rcu);
	return 0;
}

struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, struct ib_pd *pd,
			      u32 key, bool remote, int access, u64 iova,
			      u64 len)
{
	struct sroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mrs, key >> 8);
	if (!mr || !refcount_inc_not_zero(&mr->ref)) {
		rcu_read_unlock();
		return NULL;
	}
	rcu_read_unlock();

	if ((remote ? mr->ibmr.rkey : mr->ibmr.lkey) != key ||
	    mr->ibmr.pd != pd ||
	    !sroce_mr_check_access(mr->access, access) ||
	    !sroce_mr_check_range(mr->iova, mr->length, iova, len)) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

void sroce_mr_put(struct sroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

void sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   enum sroce_copy_dir dir)
{
	u64 off;

	if (mr->type == SROCE_MR_DMA) {
		void *va = (void *)(uintptr_t)iova;

		if (dir == SROCE_TO_MR)
			memcpy(va, buf, len);
		else
			memcpy(buf, va, len);
		return;
	}

	off = iova - mr->iova + mr->first_offset;
	while (len) {
		u64 idx = off >> PAGE_SHIFT;
		u32 pg_off = off & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - pg_off);
		void *va;

		/* sroce_mr_get() checked the range; this only guards bugs. */
		if (WARN_ON_ONCE(idx >= mr->npages))
			return;
		va = kmap_local_page(mr->pages[idx]);
		if (dir == SROCE_TO_MR)
			memcpy(va + pg_off, buf, n);
		else
			memcpy(buf, va + pg_off, n);
		kunmap_local(va);

		buf += n;
		off += n;
		len -= n;
	}
}

void sroce_sge_cursor_init(struct sroce_sge_cursor *c, const struct ib_sge *sge,
			   u32 num_sge)
{
	c->sge = sge;
	c->num_sge = num_sge;
	c->cur = 0;
	c->offset = 0;
}

int sroce_sge_copy(struct sroce_dev *sdev, struct ib_pd *pd,
		   struct sroce_sge_cursor *c, void *buf, u32 len, int access,
		   enum sroce_copy_dir dir)
{
	struct sroce_sge_cursor start = *c;

	while (len) {
		const struct ib_sge *sge;
		struct sroce_mr *mr;
		u64 addr;
		u32 n;

		if (c->cur >= c->num_sge) {
			*c = start;
			return -EINVAL;
		}
		sge = &c->sge[c->cur];
		if (c->offset >= sge->length) {
			c->cur++;
			c->offset = 0;
			continue;
		}
		n = min(len, sge->length - c->offset);
		addr = sge->addr + c->offset;

		mr = sroce_mr_get(sdev, pd, sge->lkey, false, access, addr, n);
		if (!mr) {
			*c = start;
			return -EFAULT;
		}
		sroce_mr_copy(mr, addr, buf, n, dir);
		sroce_mr_put(mr);

		buf += n;
		len -= n;
		c->offset += n;
	}
	return 0;
}

void sroce_mr_atomic(struct sroce_mr *mr, u64 iova, bool cmp_swap,
		     u64 compare, u64 swap_add, u64 *orig)
{
	unsigned long flags;
	u64 val;

	/*
	 * Through sroce_mr_copy(): correct even when the user mapping puts the
	 * aligned iova at an unaligned address or across a page boundary.
	 */
	spin_lock_irqsave(&sroce_mr_atomic_lock, flags);
	sroce_mr_copy(mr, iova, &val, sizeof(val), SROCE_FROM_MR);
	*orig = val;
	if (cmp_swap) {
		if (val == compare)
			sroce_mr_copy(mr, iova, &swap_add, sizeof(swap_add),
				      SROCE_TO_MR);
	} else {
		val += swap_add;
		sroce_mr_copy(mr, iova, &val, sizeof(val), SROCE_TO_MR);
	}
	spin_unlock_irqrestore(&sroce_mr_atomic_lock, flags);
}

int sroce_mr_init(struct sroce_dev *sdev)
{
	xa_init_flags(&sdev->mrs, XA_FLAGS_ALLOC1);
	sdev->next_mr_index = 1;
	return 0;
}

void sroce_mr_cleanup(struct sroce_dev *sdev)
{
	/* The core deregisters every MR before the device goes away. */
	WARN_ON(!xa_empty(&sdev->mrs));
	xa_destroy(&sdev->mrs);
}
