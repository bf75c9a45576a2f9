// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions: registration, key lookup with the access checks every
 * data movement goes through, and the copy engine between MRs and packet
 * buffers.
 *
 * Keys: lkey = (index << 8) | 8 random bits, index from sdev->mrs; the
 * rkey equals the lkey when the MR grants remote access and is 0 otherwise,
 * so a guessed or stale key rarely names a live MR. Memory windows
 * (sroce_mw.c) take their indices from the same table, as tagged entries.
 * Lookups run under RCU and take mr->ref; dereg removes the index, waits
 * for the last reference and frees the MR after a grace period.
 *
 * User MRs are pinned with ib_umem_get() and kept as a page array; every
 * access maps one page at a time with kmap_local_page(). ODP MRs
 * (IB_ACCESS_ON_DEMAND) pin nothing: sroce_odp.c maps their pages as the
 * accesses need them.
 *
 * Fast-registration MRs (IB_MR_TYPE_MEM_REG) start invalid; map_mr_sg()
 * fills a page list of kernel virtual addresses, IB_WR_REG_MR makes it
 * valid under a new key, and local or remote invalidation makes it
 * invalid again (IBTA 10.6.3.3 and 10.6.5). Every lookup checks the state
 * under mr->lock, so an invalid FAST MR refuses every access.
 */
#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "sroce_dev.h"
#include "sroce_mr.h"
#include "sroce_odp.h"
#include "sroce_param.h"

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

int sroce_mr_index_alloc(struct sroce_dev *sdev, u32 *index)
{
	int err;

	if (atomic_inc_return(&sdev->num_mrs) > sdev->attr.max_mr) {
		atomic_dec(&sdev->num_mrs);
		return -ENOSPC;
	}
	err = xa_alloc_cyclic(&sdev->mrs, index, NULL,
			      XA_LIMIT(1, SROCE_MR_INDEX_MAX),
			      &sdev->next_mr_index, GFP_KERNEL);
	if (err < 0) {
		atomic_dec(&sdev->num_mrs);
		return err;
	}
	return 0;
}

void sroce_mr_index_publish(struct sroce_dev *sdev, u32 index, void *entry)
{
	/* The slot is reserved: this store cannot fail. */
	xa_store(&sdev->mrs, index, entry, GFP_KERNEL);
}

void sroce_mr_index_free(struct sroce_dev *sdev, u32 index)
{
	xa_erase(&sdev->mrs, index);
	atomic_dec(&sdev->num_mrs);
}

/* Reserve an index, make the keys, and publish the MR under them. */
static int sroce_mr_publish(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	int err;

	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	spin_lock_init(&mr->lock);

	err = sroce_mr_index_alloc(sdev, &mr->index);
	if (err)
		return err;
	mr->lkey = (mr->index << 8) | (get_random_u32() & 0xff);
	/* A FAST MR's access is only known at IB_WR_REG_MR: keys agree. */
	if (mr->type == SROCE_MR_FAST || mr->access & SROCE_MR_REMOTE_ACCESS)
		mr->rkey = mr->lkey;
	mr->ibmr.lkey = mr->lkey;
	mr->ibmr.rkey = mr->rkey;
	sroce_mr_index_publish(sdev, mr->index, mr);
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
	mr->valid = true;
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
	/* Sized by the user: charged to its memory cgroup. */
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages),
				   GFP_KERNEL_ACCOUNT);
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

	if (access & IB_ZERO_BASED)
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || iova + length < iova)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->type = access & IB_ACCESS_ON_DEMAND ? SROCE_MR_ODP : SROCE_MR_USER;
	mr->valid = true;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;

	if (mr->type == SROCE_MR_ODP)
		err = sroce_odp_reg(mr, ibpd->device, start, length);
	else
		err = sroce_mr_pin(mr, ibpd->device, start, length);
	if (err)
		goto err_free;

	err = sroce_mr_publish(to_sdev(ibpd->device), mr);
	if (err)
		goto err_unpin;
	return &mr->ibmr;

err_unpin:
	if (mr->odp) {
		sroce_odp_release(mr);
	} else {
		kvfree(mr->pages);
		ib_umem_release(mr->umem);
	}
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct sroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SROCE_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->type = SROCE_MR_FAST;
	mr->max_pages = max_num_sg;
	mr->map.pages = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	mr->next_map.pages = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	err = -ENOMEM;
	if (!mr->map.pages || !mr->next_map.pages)
		goto err_free;

	err = sroce_mr_publish(to_sdev(ibpd->device), mr);
	if (err)
		goto err_free;
	return &mr->ibmr;

err_free:
	kfree(mr->map.pages);
	kfree(mr->next_map.pages);
	kfree(mr);
	return ERR_PTR(err);
}

static int sroce_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_mr_map *map = &mr->next_map;

	if (map->npages >= mr->max_pages)
		return -ENOMEM;
	map->pages[map->npages++] = addr;
	return 0;
}

int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_smr(ibmr);

	/* The core set ibmr->page_size; blocks are at least a page. */
	if (ibmr->page_size < PAGE_SIZE || !is_power_of_2(ibmr->page_size))
		return -EINVAL;
	mr->next_map.npages = 0;
	mr->next_map.page_shift = ilog2(ibmr->page_size);
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sroce_mr_set_page);
}

u64 sroce_mr_map_addr(const struct sroce_mr_map *map, u64 mr_iova, u64 iova,
		      u32 *room)
{
	u64 block = BIT_ULL(map->page_shift);
	/* The list starts at the block holding mr_iova. */
	u64 off = iova - mr_iova + (mr_iova & (block - 1));
	u64 in = off & (block - 1);

	*room = min_t(u64, block - in, U32_MAX);
	/* Checked accesses never get here: a guard, the list is not trusted. */
	if ((off >> map->page_shift) >= map->npages)
		return 0;
	return map->pages[off >> map->page_shift] + in;
}

enum ib_wc_status sroce_mr_reg_fast(struct sroce_mr *mr, struct ib_pd *qp_pd,
				    u32 key, int access)
{
	struct sroce_mr_map *use, tmp;
	u64 iova = mr->ibmr.iova;
	u64 length = mr->ibmr.length;
	u64 span;

	/* IBTA 10.6.3.3: a region of this QP's PD, in the free state. */
	if (mr->type != SROCE_MR_FAST || mr->ibmr.pd != qp_pd)
		return IB_WC_LOC_QP_OP_ERR;
	/* Remote write or atomic needs local write (C10-74 for regions). */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return IB_WC_LOC_QP_OP_ERR;
	if (access & ~(IB_ACCESS_LOCAL_WRITE | SROCE_MR_REMOTE_ACCESS |
		       IB_ACCESS_MW_BIND))
		return IB_WC_LOC_QP_OP_ERR;

	spin_lock_bh(&mr->lock);
	if (mr->valid) {
		spin_unlock_bh(&mr->lock);
		return IB_WC_LOC_QP_OP_ERR;
	}
	/* The page list must cover the region the core computed. */
	use = mr->next_map.npages ? &mr->next_map : &mr->map;
	span = (iova & (BIT_ULL(use->page_shift) - 1)) + length;
	if (iova + length < iova || !use->page_shift ||
	    span > ((u64)use->npages << use->page_shift)) {
		spin_unlock_bh(&mr->lock);
		return IB_WC_LOC_QP_OP_ERR;
	}
	if (use == &mr->next_map) {
		tmp = mr->map;
		mr->map = mr->next_map;
		mr->next_map = tmp;
		mr->next_map.npages = 0;
	}
	mr->lkey = (mr->lkey & ~0xffU) | (key & 0xff);
	mr->rkey = mr->lkey;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	mr->valid = true;
	spin_unlock_bh(&mr->lock);
	return IB_WC_SUCCESS;
}

int sroce_mr_invalidate(struct sroce_mr *mr, struct ib_pd *pd, u32 key,
			bool remote)
{
	int err = -EINVAL;

	/* Only fast-registration MRs can be invalidated (IBTA 10.6.5). */
	if (mr->type != SROCE_MR_FAST || mr->ibmr.pd != pd)
		return -EINVAL;
	spin_lock_bh(&mr->lock);
	/*
	 * A FAST MR's rkey field holds its lkey whatever its rights; a peer
	 * may name only a real R_Key (SEND with Invalidate, IBTA 10.6.6.2),
	 * or it could fail the ULP's next local use of a local-only MR.
	 */
	if (mr->rkey == key && !mr->num_mw &&
	    (!remote || (mr->access & SROCE_MR_REMOTE_ACCESS))) {
		mr->valid = false;
		err = 0;
	}
	spin_unlock_bh(&mr->lock);
	return err;
}

int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmr->device);
	struct sroce_mr *mr = to_smr(ibmr);

	/* A region with windows bound to it stays (IBTA 10.6.7.1). */
	spin_lock_bh(&mr->lock);
	if (mr->num_mw) {
		spin_unlock_bh(&mr->lock);
		return -EBUSY;
	}
	mr->dying = true;
	spin_unlock_bh(&mr->lock);

	/*
	 * No new lookups; then wait for the accesses in flight. Each holds
	 * its reference for one packet's copy at most, so whatever a peer
	 * does, this wait is short. Only advise_mr holds one across a page
	 * fault, of the caller's own memory (as the ODP fault work that
	 * sroce_odp_release() cancels runs one): a fault the owner's own
	 * mapping never completes (a FUSE file its daemon does not serve)
	 * holds the wait as it would hold any fault of that process.
	 */
	sroce_mr_index_free(sdev, mr->index);
	sroce_mr_put(mr);
	wait_for_completion(&mr->released);

	if (mr->odp)
		sroce_odp_release(mr);
	if (mr->umem) {
		kvfree(mr->pages);
		ib_umem_release(mr->umem);
	}
	kfree(mr->map.pages);
	kfree(mr->next_map.pages);
	/* A reader may still hold the pointer it found under RCU. */
	kfree_rcu(mr, rcu);
	return 0;
}

bool sroce_mr_tryget(struct sroce_mr *mr)
{
	return refcount_inc_not_zero(&mr->ref);
}

struct sroce_mr *sroce_mr_lookup(struct sroce_dev *sdev, u32 key)
{
	struct sroce_mr *mr = NULL;
	void *entry;

	rcu_read_lock();
	entry = xa_load(&sdev->mrs, key >> 8);
	/* A window's key is no MR key. */
	if (entry && !xa_pointer_tag(entry) && sroce_mr_tryget(entry))
		mr = entry;
	rcu_read_unlock();
	return mr;
}

void sroce_mr_put(struct sroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

/*
 * The checks of an access. A FAST MR's state is read under mr->lock; the
 * other types never change it after registration. Only a FAST MR can be
 * invalid; its rkey equals its lkey and remote use needs a remote right.
 */
static bool sroce_mr_allows(struct sroce_mr *mr, struct ib_pd *pd, u32 key,
			    bool remote, int access, u64 iova, u64 len)
{
	return mr->valid && mr->ibmr.pd == pd &&
	       (remote ? mr->rkey : mr->lkey) == key &&
	       (!remote || mr->access & SROCE_MR_REMOTE_ACCESS) &&
	       sroce_mr_check_access(mr->access, access) &&
	       sroce_mr_check_range(mr->iova, mr->length, iova, len);
}

/*
 * The kernel virtual address of @iova in @mr and in *@room the bytes that
 * follow it contiguously, or NULL when nothing maps it (a page list or
 * page array shorter than the checked range: never trusted).
 */
static void *sroce_mr_va(struct sroce_mr *mr, u64 iova, u32 *room,
			 struct page **page)
{
	u64 off, idx;

	*page = NULL;
	switch (mr->type) {
	case SROCE_MR_DMA:
		*room = U32_MAX;
		return (void *)(uintptr_t)iova;
	case SROCE_MR_FAST:
		return (void *)(uintptr_t)sroce_mr_map_addr(&mr->map, mr->iova,
							    iova, room);
	case SROCE_MR_ODP:
		/* In the kernel's linear map: no kmap. */
		return sroce_odp_va(mr, iova, room);
	default:
		off = iova - mr->iova + mr->first_offset;
		idx = off >> PAGE_SHIFT;
		if (idx >= mr->npages)
			return NULL;
		*room = PAGE_SIZE - (off & ~PAGE_MASK);
		*page = mr->pages[idx];
		return kmap_local_page(*page) + (off & ~PAGE_MASK);
	}
}

/*
 * Copy @len bytes between @buf and @mr at @iova, or into @mr from @skb at
 * @skb_off when @skb is set; -EACCES on a hole.
 */
static int sroce_mr_move(struct sroce_mr *mr, u64 iova, void *buf,
			 const struct sk_buff *skb, u32 skb_off, u32 len,
			 bool to_mr)
{
	u32 done = 0;
	int err = 0;

	while (done < len) {
		struct page *page;
		u32 room, n;
		void *va;

		va = sroce_mr_va(mr, iova + done, &room, &page);
		if (!va)
			return -EACCES;
		n = min(len - done, room);
		if (skb)
			/* Cannot fail: the packet's lengths were checked. */
			err = skb_copy_bits(skb, skb_off + done, va, n);
		else if (to_mr)
			memcpy(va, buf + done, n);
		else
			memcpy(buf + done, va, n);
		if (page)
			kunmap_local(va);
		if (err)
			return -EACCES;
		done += n;
	}
	return 0;
}

/*
 * One atomic on the 8 bytes at @p. RDMA ATOMIC WRITE lands in one store,
 * so that a CPU reading them sees the old value or the new one, never a
 * mix; released, so that whoever sees the new value sees the data of the
 * requests executed before it (the flag-after-data use the operation
 * exists for).
 */
static void sroce_mr_atomic_apply(u64 *p, struct sroce_mr_op *op)
{
	u64 val;

	if (op->kind == SROCE_MR_OP_ATOMIC_WRITE) {
		/* Orders the earlier requests' data before the value. */
		smp_store_release(p, op->swap_add);
		return;
	}
	val = READ_ONCE(*p);
	op->orig = val;
	if (op->kind == SROCE_MR_OP_FETCH_ADD)
		val += op->swap_add;	/* modulo 2^64 (IBTA 9.4.5) */
	else if (val == op->compare)
		val = op->swap_add;
	if (val != op->orig)
		WRITE_ONCE(*p, val);
}

/*
 * CMP_SWAP, FETCH_ADD and ATOMIC WRITE with IB_ATOMIC_HCA semantics (IBTA
 * 10.7.2.2): atomic with respect to each other, under
 * sroce_mr_atomic_lock, so that an ATOMIC WRITE cannot fall between the
 * read and the write of a CMP_SWAP or FETCH_ADD and be lost. The 8 bytes
 * must be aligned memory: they then lie in one page and move through one
 * mapping, all or nothing. An aligned address may sit on misaligned
 * memory (a window addressed from 0 and bound at an odd address, a FAST
 * MR's page list): refused with -EINVAL, as rdma_rxe does, rather than
 * moved in pieces that an ODP invalidation could split and the retry of
 * the miss then apply twice.
 */
static int sroce_mr_atomic(struct sroce_mr *mr, u64 iova,
			   struct sroce_mr_op *op)
{
	struct page *page;
	int err = 0;
	u32 room;
	void *va;

	if (op->kind == SROCE_MR_OP_ATOMIC_WRITE && !IS_ENABLED(CONFIG_64BIT))
		return -EOPNOTSUPP;

	spin_lock_bh(&sroce_mr_atomic_lock);
	va = sroce_mr_va(mr, iova, &room, &page);
	if (!va)
		err = -EACCES;
	else if (room < sizeof(u64) || !IS_ALIGNED((uintptr_t)va, sizeof(u64)))
		err = -EINVAL;
	else
		sroce_mr_atomic_apply(va, op);
	if (page)
		kunmap_local(va);
	spin_unlock_bh(&sroce_mr_atomic_lock);
	return err;
}

int sroce_mr_run(struct sroce_mr *mr, u64 iova, struct sroce_mr_op *op)
{
	if (mr->type == SROCE_MR_ODP)
		return sroce_odp_run(mr, iova, op);
	return sroce_mr_run_mapped(mr, iova, op);
}

int sroce_mr_run_mapped(struct sroce_mr *mr, u64 iova, struct sroce_mr_op *op)
{
	switch (op->kind) {
	case SROCE_MR_OP_CHECK:
	case SROCE_MR_OP_PROBE:
		return 0;
	case SROCE_MR_OP_TO:
	case SROCE_MR_OP_FROM:
		return sroce_mr_move(mr, iova, op->buf, op->skb, op->skb_off,
				     op->len, op->kind == SROCE_MR_OP_TO);
	default:
		return sroce_mr_atomic(mr, iova, op);
	}
}

int sroce_mr_access(struct sroce_mr *mr, struct ib_pd *pd, u32 key,
		    bool remote, int access, u64 iova, struct sroce_mr_op *op)
{
	int err = -EACCES;

	if (mr->type != SROCE_MR_FAST) {
		if (sroce_mr_allows(mr, pd, key, remote, access, iova, op->len))
			err = sroce_mr_run(mr, iova, op);
		return err;
	}

	spin_lock_bh(&mr->lock);
	if (sroce_mr_allows(mr, pd, key, remote, access, iova, op->len))
		err = sroce_mr_run(mr, iova, op);
	spin_unlock_bh(&mr->lock);
	return err;
}

void sroce_sge_cursor_init(struct sroce_sge_cursor *c, const struct ib_sge *sge,
			   u32 num_sge)
{
	c->sge = sge;
	c->num_sge = num_sge;
	c->cur = 0;
	c->offset = 0;
}

/*
 * Run @tmpl (TO, FROM or PROBE, its bytes at @tmpl->buf or in @tmpl->skb)
 * over @len bytes of the SGE list at the cursor, SGE by SGE.
 */
static int sroce_sge_run(struct sroce_dev *sdev, struct ib_pd *pd,
			 struct sroce_sge_cursor *c,
			 const struct sroce_mr_op *tmpl, u32 len, int access)
{
	struct sroce_sge_cursor start = *c;
	u32 done = 0;

	while (done < len) {
		struct sroce_mr_op op = *tmpl;
		const struct ib_sge *sge;
		struct sroce_mr *mr;
		int err = -EACCES;
		u64 addr;

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
		op.len = min(len - done, sge->length - c->offset);
		if (op.buf)
			op.buf += done;
		op.skb_off += done;
		addr = sge->addr + c->offset;

		mr = sroce_mr_lookup(sdev, sge->lkey);
		if (mr) {
			err = sroce_mr_access(mr, pd, sge->lkey, false, access,
					      addr, &op);
			sroce_mr_put(mr);
		}
		if (err) {
			*c = start;
			return err == -EAGAIN ? -EAGAIN : -EFAULT;
		}
		done += op.len;
		c->offset += op.len;
	}
	return 0;
}

int sroce_sge_copy(struct sroce_dev *sdev, struct ib_pd *pd,
		   struct sroce_sge_cursor *c, void *buf, u32 len, int access,
		   enum sroce_copy_dir dir)
{
	const struct sroce_mr_op op = {
		.kind = !buf ? SROCE_MR_OP_PROBE :
			dir == SROCE_TO_MR ? SROCE_MR_OP_TO : SROCE_MR_OP_FROM,
		.buf = buf,
	};

	return sroce_sge_run(sdev, pd, c, &op, len, access);
}

int sroce_sge_copy_skb(struct sroce_dev *sdev, struct ib_pd *pd,
		       struct sroce_sge_cursor *c, const struct sk_buff *skb,
		       u32 off, u32 len, int access)
{
	const struct sroce_mr_op op = {
		.kind = SROCE_MR_OP_TO,
		.skb = skb,
		.skb_off = off,
	};

	return sroce_sge_run(sdev, pd, c, &op, len, access);
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
