/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verbs objects. The core allocates each object at the size given with
 * INIT_RDMA_OBJ_SIZE() in the device ops; these hooks fill in the driver
 * part.
 */
#ifndef _SROCE_VERBS_H
#define _SROCE_VERBS_H

#include <rdma/ib_verbs.h>

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

struct sroce_pd {
	struct ib_pd ibpd;
};

int sroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void sroce_dealloc_ucontext(struct ib_ucontext *ibuc);
void sroce_disassociate_ucontext(struct ib_ucontext *ibuc);
int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

#endif /* _SROCE_VERBS_H */
