/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address handles and address vectors: where packets of a QP or of a UD
 * send go, resolved once from an rdma_ah_attr (RoCEv2 only).
 */
#ifndef _SROCE_AH_H
#define _SROCE_AH_H

#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "sroce_qp.h"

struct sroce_ah {
	struct ib_ah ibah;
	struct sroce_av av;
	u32 ah_num;		/* index in sdev->ahs; never 0 (rxe ABI) */
};

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

/*
 * sroce_av_from_attr() - resolve @attr (with its sgid_attr, as the core
 * passes it to modify_qp and create_ah) into @av. av->sport is left 0: it
 * depends on the QPs. Returns 0 or -EINVAL (not a RoCEv2 GID, mixed
 * address families) or -ENODEV (the GID lost its netdev).
 */
int sroce_av_from_attr(struct sroce_av *av, const struct rdma_ah_attr *attr);

/* The AH table (sdev->ahs); exported for KUnit. */
void sroce_ah_table_init(struct xarray *xa);
gfp_t sroce_ah_gfp(u32 flags);
int sroce_ah_table_insert(struct xarray *xa, struct sroce_ah *ah, u32 max,
			  u32 *next, gfp_t gfp);
void sroce_ah_table_erase(struct xarray *xa, u32 ah_num);

int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags);

#endif /* _SROCE_AH_H */
