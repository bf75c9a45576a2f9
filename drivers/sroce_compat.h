/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels sroce builds against, Debian 12's 6.1
 * and Debian 13's 6.12: the one place in the driver that knows. It asks
 * the kernel's headers, not its version, through the SROCE_KAPI_* feature
 * tests that Kbuild runs on them. Everything else calls the names defined
 * here.
 */
#ifndef _SROCE_COMPAT_H
#define _SROCE_COMPAT_H

#include <linux/mm.h>
#include <rdma/ib_verbs.h>

#include "sroce_cq.h"

/* 6.12 moved the unaligned accessors from asm/ to linux/. */
#ifdef SROCE_KAPI_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* 6.4 moved skb_gso_segment() from linux/netdevice.h to net/gso.h. */
#ifdef SROCE_KAPI_NET_GSO_H
#include <net/gso.h>
#endif

/*
 * 6.11 gave create_cq the uverbs attribute bundle instead of the udata
 * (NULL for a kernel CQ in both); the driver's udata lives inside it.
 */
#ifdef SROCE_KAPI_CREATE_CQ_ATTRS
#include <rdma/uverbs_ioctl.h>

static inline int sroce_compat_create_cq(struct ib_cq *ibcq,
					 const struct ib_cq_init_attr *attr,
					 struct uverbs_attr_bundle *attrs)
{
	return sroce_create_cq(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}
#else
#define sroce_compat_create_cq sroce_create_cq
#endif

/*
 * RDMA ATOMIC WRITE (IBTA 1.5) came with 6.2: the work request opcode, the
 * completion opcode and the device capability. rdma-core 44 posts the
 * opcode whatever the kernel, so a 6.1 build takes the values of 6.2's
 * uapi (include/uapi/rdma/ib_user_verbs.h), which are ABI and cannot move.
 * On 6.1 the completion value is IB_WC_MASKED_COMP_SWAP to the kernel:
 * harmless, only user QPs can post the operation there.
 */
#ifdef SROCE_KAPI_ATOMIC_WRITE
#define SROCE_WR_ATOMIC_WRITE		IB_WR_ATOMIC_WRITE
#define SROCE_WC_ATOMIC_WRITE		IB_WC_ATOMIC_WRITE
#define SROCE_DEVICE_ATOMIC_WRITE	IB_DEVICE_ATOMIC_WRITE
#else
#define SROCE_WR_ATOMIC_WRITE		((enum ib_wr_opcode)15)
#define SROCE_WC_ATOMIC_WRITE		((enum ib_wc_opcode)9)
#define SROCE_DEVICE_ATOMIC_WRITE	BIT_ULL(40)
#endif

/* 6.3 made a VMA's flags read-only but through vm_flags_set(). */
static inline void sroce_vm_flags_set(struct vm_area_struct *vma,
				      vm_flags_t flags)
{
#ifdef SROCE_KAPI_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/*
 * The event handler the QP's consumer gave: newer cores install their own
 * wrapper in ib_qp.event_handler, which calls the consumer's.
 */
static inline void (*sroce_qp_event_handler(const struct ib_qp *ibqp))
	(struct ib_event *, void *)
{
#ifdef SROCE_KAPI_QP_REGISTERED_HANDLER
	return ibqp->registered_event_handler;
#else
	return ibqp->event_handler;
#endif
}

#endif /* _SROCE_COMPAT_H */
