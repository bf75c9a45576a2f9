/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory regions and the copy engine between them and packet buffers.
 *
 * Every access names its MR by key and is checked here, against the PD,
 * the access rights and the MR's bounds, before a byte moves: local SGEs by
 * lkey for the requester (gather) and the responder (scatter into receive
 * WQEs), remote requests by rkey for the responder (RDMA WRITE, READ,
 * ATOMIC).
 */
#ifndef _SROCE_MR_H
#define _SROCE_MR_H

#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_odp;
struct ib_umem;

enum sroce_mr_type {
	SROCE_MR_DMA,		/* kernel ULPs: iova is a kernel virtual address */
	SROCE_MR_USER,		/* pinned user memory */
	SROCE_MR_FAST,		/* kernel fast-registration MR (IB_WR_REG_MR) */
	SROCE_MR_ODP,		/* user memory paged on demand (sroce_odp.c) */
};

/*
 * A fast-registration page list: kernel virtual addresses (sroce has no
 * DMA device, so the core's DMA addresses are virtual ones) of blocks of
 * 1 << page_shift bytes.
 */
struct sroce_mr_map {
	u64 *pages;
	u32 npages;
	u32 page_shift;
};

struct sroce_mr {
	struct ib_mr ibmr;
	enum sroce_mr_type type;
	u32 index;		/* in sdev->mrs */

	/*
	 * lock protects, for FAST MRs, valid, lkey, rkey, iova, length,
	 * access and map, which IB_WR_REG_MR and invalidation change while
	 * the responder looks the MR up; and, for every MR, num_mw and dying.
	 * DMA and USER MRs never change the rest after registration. The
	 * keys here are the authority: a ULP rewrites ibmr.lkey/rkey
	 * (ib_update_fast_reg_key()) before its REG_MR executes.
	 */
	spinlock_t lock;
	bool valid;		/* FAST: registered and not invalidated */
	bool dying;		/* dereg started: no new windows */
	u32 num_mw;		/* memory windows bound to the MR */
	u32 lkey;
	u32 rkey;		/* 0 when the MR grants no remote access */
	u64 iova;
	u64 length;
	int access;		/* IB_ACCESS_* */
	struct ib_umem *umem;
	struct page **pages;	/* USER: pinned pages covering [iova, iova + length) */
	unsigned int npages;
	unsigned int first_offset;	/* offset of iova in pages[0] */
	struct sroce_odp *odp;		/* ODP: the pages and their faults */

	/*
	 * FAST: the page list in use, and the one map_mr_sg() fills for the
	 * next IB_WR_REG_MR, which swaps them; a mapping under way thus
	 * never rewrites the list a valid registration reads. A REG_MR with
	 * no map_mr_sg() since the last one (next_map.npages 0) registers
	 * the list in use again, as a ULP that re-registers the same pages
	 * under a new key expects.
	 */
	struct sroce_mr_map map;
	struct sroce_mr_map next_map;
	u32 max_pages;

	/*
	 * Lookups hold a reference for one access (never across packets);
	 * dereg waits for the last one, so its wait is bounded.
	 */
	refcount_t ref;
	struct completion released;
	/* Lookups run under RCU: free only after a grace period. */
	struct rcu_head rcu;
};

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

enum sroce_copy_dir {
	SROCE_TO_MR,		/* packet -> memory (scatter) */
	SROCE_FROM_MR,		/* memory -> packet (gather) */
};

/*
 * sroce_mr_check_range() - [@iova, @iova + @len) lies inside the region
 * [@mr_iova, @mr_iova + @mr_len), without overflowing on hostile values.
 * A zero-length access may sit at either end of the region.
 */
static inline bool sroce_mr_check_range(u64 mr_iova, u64 mr_len, u64 iova,
					u64 len)
{
	return iova >= mr_iova && len <= mr_len &&
	       iova - mr_iova <= mr_len - len;
}

/* The MR's IB_ACCESS_* flags @mr_access grant every right in @want. */
static inline bool sroce_mr_check_access(int mr_access, int want)
{
	return (mr_access & want) == want;
}

/*
 * One data movement at an address that sroce_mr_access() or the window
 * code has checked: a copy between @buf (or a received @skb) and the
 * memory, an atomic, or nothing (a check of the range alone).
 */
enum sroce_mr_op_kind {
	SROCE_MR_OP_CHECK,	/* check [iova, iova + len) only */
	SROCE_MR_OP_TO,		/* @buf or @skb -> memory (scatter) */
	SROCE_MR_OP_FROM,	/* memory -> @buf (gather) */
	SROCE_MR_OP_CMP_SWAP,	/* 64 bits at an 8-byte aligned iova */
	SROCE_MR_OP_FETCH_ADD,
	SROCE_MR_OP_ATOMIC_WRITE,	/* one 8-byte store (RDMA ATOMIC WRITE) */
	/*
	 * Nothing moves: is the memory there to be written now? Always for
	 * pinned memory; for an ODP MR, -EAGAIN and faulted in if not.
	 */
	SROCE_MR_OP_PROBE,
};

struct sroce_mr_op {
	enum sroce_mr_op_kind kind;
	void *buf;		/* TO, FROM */
	/*
	 * TO from a received packet: its bytes from @skb_off on, wherever
	 * they lie (head or page fragments), instead of @buf.
	 */
	const struct sk_buff *skb;
	u32 skb_off;
	u32 len;		/* bytes checked (and moved); 8 for atomics */
	u64 compare;		/* CMP_SWAP */
	/*
	 * CMP_SWAP: the new value; FETCH_ADD: the addend; ATOMIC_WRITE: the
	 * value stored, in memory byte order (it is payload, not a number).
	 */
	u64 swap_add;
	u64 orig;		/* atomics: the value found */
};

/*
 * sroce_mr_lookup() - the MR that @key's index names, with a lookup
 * reference (sroce_mr_put()), or NULL. Nothing is checked yet: every use
 * goes through sroce_mr_access(). Context: any; does not sleep.
 */
struct sroce_mr *sroce_mr_lookup(struct sroce_dev *sdev, u32 key);
void sroce_mr_put(struct sroce_mr *mr);

/*
 * sroce_mr_access() - check @key against @mr as it is now (its lkey, or
 * its rkey when @remote; valid; in @pd; granting the IB_ACCESS_* rights
 * @access, 0 for a local read; [@iova, @iova + @op->len) inside it) and
 * run @op there, as one step: a FAST MR stays under mr->lock from the
 * check to the last byte, so an invalidation or a new registration comes
 * wholly before the access (which then fails) or after it.
 * Returns 0, or -EACCES with nothing moved (or what sroce_mr_run() said).
 * Context: any but hard IRQ; does not sleep.
 */
int sroce_mr_access(struct sroce_mr *mr, struct ib_pd *pd, u32 key,
		    bool remote, int access, u64 iova, struct sroce_mr_op *op);

/*
 * sroce_mr_run() - run @op at @iova of @mr; the caller checked the access
 * and keeps the registration from changing meanwhile (a bound window pins
 * it). Returns 0, or -EACCES if the page list does not cover the range;
 * for ATOMIC_WRITE also -EINVAL when the memory behind the aligned @iova
 * is not itself 8-byte aligned, so that no single store can write it (no
 * MR type presents such memory today: the core keeps a user MR's iova and
 * address congruent modulo the page size), and -EOPNOTSUPP on a 32-bit
 * kernel, which has no 8-byte store. An ODP MR also returns -EAGAIN, with
 * nothing moved, when a page of the range is not mapped now: it is being
 * faulted in, try again later (sroce_odp_run()).
 */
int sroce_mr_run(struct sroce_mr *mr, u64 iova, struct sroce_mr_op *op);
/* sroce_mr_run() on memory known to be there: for sroce_odp_run(). */
int sroce_mr_run_mapped(struct sroce_mr *mr, u64 iova, struct sroce_mr_op *op);

/*
 * A position in an SGE list, for messages that span many packets. The
 * SGEs themselves are the kernel's validated copy in the WQE.
 */
struct sroce_sge_cursor {
	const struct ib_sge *sge;
	u32 num_sge;
	u32 cur;		/* index of the current SGE */
	u32 offset;		/* bytes consumed in it */
};

void sroce_sge_cursor_init(struct sroce_sge_cursor *c, const struct ib_sge *sge,
			   u32 num_sge);
/*
 * sroce_sge_copy() - copy @len bytes between @buf and the SGE list at the
 * cursor, checking each SGE's lkey (local access @access) on the way, and
 * advance the cursor. Returns 0, or -EFAULT (bad lkey, PD, access or bounds:
 * IB_WC_LOC_PROT_ERR) or -EINVAL (the list is shorter than @len:
 * IB_WC_LOC_LEN_ERR) or -EAGAIN (an ODP page is being faulted in: try
 * again later); on error the cursor is left where it was. Bytes before an
 * -EAGAIN may have moved: the retry moves them again. With @buf NULL (and
 * SROCE_TO_MR) nothing moves: the list is probed (SROCE_MR_OP_PROBE).
 */
int sroce_sge_copy(struct sroce_dev *sdev, struct ib_pd *pd,
		   struct sroce_sge_cursor *c, void *buf, u32 len, int access,
		   enum sroce_copy_dir dir);
/*
 * sroce_sge_copy_skb() - as sroce_sge_copy() to the SGE list, taking the
 * @len bytes from @skb at offset @off (a received packet's payload, which
 * may lie in page fragments: nothing is linearized).
 */
int sroce_sge_copy_skb(struct sroce_dev *sdev, struct ib_pd *pd,
		       struct sroce_sge_cursor *c, const struct sk_buff *skb,
		       u32 off, u32 len, int access);

/*
 * sroce_mr_index_alloc() - reserve an index in sdev->mrs (counted against
 * max_mr) for an MR or a memory window; sroce_mr_index_publish() makes
 * @entry visible under it, sroce_mr_index_free() releases it.
 */
int sroce_mr_index_alloc(struct sroce_dev *sdev, u32 *index);
void sroce_mr_index_publish(struct sroce_dev *sdev, u32 index, void *entry);
void sroce_mr_index_free(struct sroce_dev *sdev, u32 index);
/* Windows share the key space; their entries carry this xarray tag. */
#define SROCE_MR_TAG_MW	1

/*
 * Fast registration and invalidation, executed in send-queue order by the
 * requester (and the responder for SEND with Invalidate). Return 0 or the
 * completion status the WQE fails with.
 */
/*
 * sroce_mr_reg_fast() - IB_WR_REG_MR on @qp_pd's QP: @mr must be a FAST
 * MR of that PD, not valid; it becomes valid with the page list of the
 * last map_mr_sg(), @access and the key @key (only its low 8 bits are the
 * consumer's, IBTA 10.6.3.3).
 */
enum ib_wc_status sroce_mr_reg_fast(struct sroce_mr *mr, struct ib_pd *qp_pd,
				    u32 key, int access);
/*
 * sroce_mr_invalidate() - local or (@remote) remote invalidation of the
 * FAST MR named by @key in @pd: the key must match and no window may be
 * bound to it; a remote one names an R_Key, which only a registration
 * granting remote access has. Returns 0, or -EINVAL when the MR may not be
 * invalidated.
 */
int sroce_mr_invalidate(struct sroce_mr *mr, struct ib_pd *pd, u32 key,
			bool remote);
/* Take a lookup reference on @mr unless it is going away. */
bool sroce_mr_tryget(struct sroce_mr *mr);

/*
 * sroce_mr_map_addr() - the kernel virtual address of @iova in the page
 * list @map of a region starting at @mr_iova, and in *@room the bytes
 * left in its block. @iova must lie in the region.
 */
u64 sroce_mr_map_addr(const struct sroce_mr_map *map, u64 mr_iova, u64 iova,
		      u32 *room);

/* verbs */
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

int sroce_mr_init(struct sroce_dev *sdev);
void sroce_mr_cleanup(struct sroce_dev *sdev);

#endif /* _SROCE_MR_H */
