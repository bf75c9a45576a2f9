// SPDX-License-Identifier: GPL-2.0
/*
 * Rings in the rdma_rxe layout, shared with the rxe provider by mmap.
 *
 * Each ring is one zeroed vmalloc buffer, charged to the memory cgroup of
 * the task that created it: a user sizes rings up to megabytes each, and
 * as many as the device allows. A user ring is published through an
 * rdma_user_mmap_entry; from then on the entry owns the buffer and
 * sroce_mmap_free() frees it once the object is destroyed and no mmap() of
 * it is in progress. mmap() takes a reference on every page it maps, so a
 * ring userspace still has mapped stays valid memory until munmap(), and
 * is never reachable by a later offset.
 *
 * Indices: userspace owns one index, the kernel the other. The kernel
 * publishes its own index with a release store and never reads it back
 * from shared memory (q->index is the truth); it reads the other side's
 * index with an acquire load and masks it, so no value userspace writes
 * can point outside the ring.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>

#include "sroce_compat.h"
#include "sroce_dev.h"
#include "sroce_queue.h"

/* rxe_queue_buf's header size; the provider hard-codes it. */
static_assert(offsetof(struct sroce_queue_buf, producer_index) == 128);
static_assert(offsetof(struct sroce_queue_buf, consumer_index) == 256);
static_assert(offsetof(struct sroce_queue_buf, data) == 384);

/* The largest ring we build: keeps every size computation far from overflow. */
#define SROCE_QUEUE_MAX_SLOTS	BIT(20)
#define SROCE_QUEUE_MAX_ELEM	BIT(16)

struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;
};

/**
 * sroce_queue_init() - allocate an empty ring
 * @q: the queue to fill in
 * @sdev: the device (unused for now; rings are not accounted per device)
 * @depth: in: entries wanted; out: the capacity, slots - 1
 * @elem_size: bytes one entry needs; rounded up to a power of two and at
 *	least one cache line, as the provider reads only log2_elem_size
 * @owner: which side produces
 *
 * Return: 0 or -EINVAL (too large) or -ENOMEM.
 */
int sroce_queue_init(struct sroce_queue *q, struct sroce_dev *sdev,
		     u32 *depth, u32 elem_size, enum sroce_queue_owner owner)
{
	u32 slots;

	if (*depth >= SROCE_QUEUE_MAX_SLOTS || elem_size > SROCE_QUEUE_MAX_ELEM)
		return -EINVAL;

	slots = roundup_pow_of_two(*depth + 1);
	elem_size = roundup_pow_of_two(max_t(u32, elem_size, SMP_CACHE_BYTES));

	memset(q, 0, sizeof(*q));
	q->log2_elem_size = order_base_2(elem_size);
	q->index_mask = slots - 1;
	q->owner = owner;
	q->buf_size = sizeof(*q->buf) + ((size_t)slots << q->log2_elem_size);
	q->buf = __vmalloc(q->buf_size, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!q->buf)
		return -ENOMEM;
	q->buf->log2_elem_size = q->log2_elem_size;
	q->buf->index_mask = q->index_mask;

	*depth = slots - 1;
	return 0;
}

/**
 * sroce_queue_map() - make a ring mappable by the user context
 * @q: the ring
 * @uctx: the user context of the object that owns the ring
 * @mi: filled with the offset and size the provider passes to mmap()
 *
 * On success the mmap entry owns q->buf.
 *
 * Return: 0 or -ENOMEM.
 */
int sroce_queue_map(struct sroce_queue *q, struct ib_ucontext *uctx,
		    struct mminfo *mi)
{
	struct sroce_mmap_entry *entry;
	size_t size = PAGE_ALIGN(q->buf_size);
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->buf = q->buf;

	err = rdma_user_mmap_entry_insert(uctx, &entry->rdma, size);
	if (err) {
		kfree(entry);
		return err;
	}
	q->mmap_entry = &entry->rdma;

	mi->offset = rdma_user_mmap_get_offset(&entry->rdma);
	mi->size = size;
	mi->pad = 0;
	return 0;
}

/*
 * Let go of the ring: no new mmap() of it succeeds after this; the buffer
 * is freed here or by sroce_mmap_free() when a racing mmap() finishes.
 */
void sroce_queue_cleanup(struct sroce_queue *q)
{
	if (q->mmap_entry)
		rdma_user_mmap_entry_remove(q->mmap_entry);
	else
		vfree(q->buf);
	q->mmap_entry = NULL;
	q->buf = NULL;
}

/* Entries published by the producer that the kernel has not consumed. */
u32 sroce_queue_count(const struct sroce_queue *q)
{
	/* Pairs with the producer's release: the slots are written. */
	u32 prod = smp_load_acquire(&q->buf->producer_index);

	return (prod - q->index) & q->index_mask;
}

void *sroce_queue_consumer_slot(struct sroce_queue *q)
{
	return q->buf->data + ((size_t)q->index << q->log2_elem_size);
}

void sroce_queue_advance_consumer(struct sroce_queue *q)
{
	q->index = (q->index + 1) & q->index_mask;
	/* Release: the producer may reuse the slot once we are done reading. */
	smp_store_release(&q->buf->consumer_index, q->index);
}

bool sroce_queue_full(const struct sroce_queue *q)
{
	/* Pairs with the consumer's release: it is done with the slot. */
	u32 cons = smp_load_acquire(&q->buf->consumer_index) & q->index_mask;

	return ((q->index + 1) & q->index_mask) == cons;
}

void *sroce_queue_producer_slot(struct sroce_queue *q)
{
	return q->buf->data + ((size_t)q->index << q->log2_elem_size);
}

void sroce_queue_advance_producer(struct sroce_queue *q)
{
	q->index = (q->index + 1) & q->index_mask;
	/* Release: the slot's contents become visible before the index. */
	smp_store_release(&q->buf->producer_index, q->index);
}

/*
 * Map a ring page by page, as remap_vmalloc_range() would: that one wants
 * a vmalloc_user() buffer, for which no memory cgroup is charged. Every
 * page inserted holds a reference of its own until munmap().
 */
static int sroce_mmap_ring(struct vm_area_struct *vma, void *buf)
{
	unsigned long off;
	int err;

	for (off = 0; off < vma->vm_end - vma->vm_start; off += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(buf + off));
		if (err)
			return err;
	}
	sroce_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rentry;
	struct sroce_mmap_entry *entry;
	int err;

	/* Checks VM_SHARED and that the length is exactly the ring's. */
	rentry = rdma_user_mmap_entry_get(uctx, vma);
	if (!rentry)
		return -EINVAL;
	entry = container_of(rentry, struct sroce_mmap_entry, rdma);

	err = sroce_mmap_ring(vma, entry->buf);
	rdma_user_mmap_entry_put(rentry);
	return err;
}

void sroce_mmap_free(struct rdma_user_mmap_entry *rentry)
{
	struct sroce_mmap_entry *entry =
		container_of(rentry, struct sroce_mmap_entry, rdma);

	vfree(entry->buf);
	kfree(entry);
}
