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

#include <rdma/ib_verbs.h>

#include "sroce_cq.h"

/* 6.12 moved the unaligned accessors from asm/ to linux/. */
#ifdef SROCE_KAPI_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
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

#endif /* _SROCE_COMPAT_H */
