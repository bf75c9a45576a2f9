/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lookup anchors: how the receive path finds an object that the RDMA core
 * frees, without making its destroy verb wait for an RCU grace period.
 *
 * The core allocates QPs and memory windows and kfree()s them as soon as
 * their destroy verb returns. A table that the receive path reads under
 * RCU must therefore not point at them: it points at an anchor, which the
 * driver allocates and frees only after a grace period. A reader that
 * finds an anchor may still try for a reference; the object lives as long
 * as a reference does. Destroy unpublishes the anchor, then retires it:
 * drops the object's own reference and waits for those in flight (each is
 * held for one packet, never across a wait a peer controls). A process
 * that exits holding thousands of QPs waits for no grace period at all.
 */
#ifndef _SROCE_ANCHOR_H
#define _SROCE_ANCHOR_H

#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/slab.h>

struct sroce_anchor {
	refcount_t ref;			/* the object's own one, plus lookups */
	struct completion released;	/* ref reached zero */
	void *obj;
	struct rcu_head rcu;
};

/* An anchor for @obj holding its own reference; unpublished. */
static inline struct sroce_anchor *sroce_anchor_new(void *obj)
{
	struct sroce_anchor *a = kmalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return NULL;
	refcount_set(&a->ref, 1);
	init_completion(&a->released);
	a->obj = obj;
	return a;
}

/*
 * The anchored object with a reference, or NULL once it is being
 * destroyed. Under rcu_read_lock() if @a was found in a table.
 */
static inline void *sroce_anchor_tryget(struct sroce_anchor *a)
{
	return refcount_inc_not_zero(&a->ref) ? a->obj : NULL;
}

static inline void sroce_anchor_put(struct sroce_anchor *a)
{
	if (refcount_dec_and_test(&a->ref))
		complete(&a->released);
}

/*
 * Called once no table publishes @a: drop the object's own reference and
 * wait for the lookups in flight. Readers that found @a before it was
 * unpublished may still touch it, so it is freed after a grace period.
 */
static inline void sroce_anchor_retire(struct sroce_anchor *a)
{
	sroce_anchor_put(a);
	wait_for_completion(&a->released);
	kfree_rcu(a, rcu);
}

#endif /* _SROCE_ANCHOR_H */
