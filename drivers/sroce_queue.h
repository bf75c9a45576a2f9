/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work and completion queues in the rdma_rxe ring layout.
 *
 * A user queue is one vmalloc buffer that userspace maps: a 384-byte
 * header (element size, index mask, and the producer and consumer indices
 * on cache lines of their own) followed by the slots. Userspace owns one
 * index and the kernel the other; the kernel keeps a private copy of the
 * index it owns, never reads its own index back from shared memory, masks
 * every index it reads from there, and copies a slot out before it looks at
 * it. A kernel queue (for kernel ULPs) has the same layout with no mapping.
 *
 * Locking: none inside; each owner (CQ, SQ, RQ, SRQ) serialises its queue.
 */
#ifndef _SROCE_QUEUE_H
#define _SROCE_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>

struct sroce_dev;

/* The shared header, byte-compatible with rdma-core's rxe provider. */
struct sroce_queue_buf {
	__u32 log2_elem_size;
	__u32 index_mask;
	__u32 pad_1[30];
	__u32 producer_index;
	__u32 pad_2[31];
	__u32 consumer_index;
	__u32 pad_3[31];
	__u8 data[];
};

enum sroce_queue_owner {
	/* Userspace (or a kernel ULP) produces, the kernel consumes: SQ, RQ, SRQ. */
	SROCE_QUEUE_FROM_USER,
	/* The kernel produces, userspace consumes: CQ. */
	SROCE_QUEUE_TO_USER,
};

struct sroce_queue {
	struct sroce_queue_buf *buf;
	size_t buf_size;
	u32 log2_elem_size;
	u32 index_mask;			/* slots - 1; capacity is slots - 1 */
	u32 index;			/* the kernel's own index, private */
	enum sroce_queue_owner owner;
	struct rdma_user_mmap_entry *mmap_entry;	/* NULL for kernel queues */
};

int sroce_queue_init(struct sroce_queue *q, struct sroce_dev *sdev,
		     u32 *depth, u32 elem_size, enum sroce_queue_owner owner);
int sroce_queue_map(struct sroce_queue *q, struct ib_ucontext *uctx,
		    struct mminfo *mi);
void sroce_queue_cleanup(struct sroce_queue *q);

/* Consumer side (FROM_USER queues). */
u32 sroce_queue_count(const struct sroce_queue *q);
void *sroce_queue_consumer_slot(struct sroce_queue *q);
void sroce_queue_advance_consumer(struct sroce_queue *q);

/* Producer side (TO_USER queues). */
bool sroce_queue_full(const struct sroce_queue *q);
void *sroce_queue_producer_slot(struct sroce_queue *q);
void sroce_queue_advance_producer(struct sroce_queue *q);

/* mmap device ops */
int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sroce_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* _SROCE_QUEUE_H */
