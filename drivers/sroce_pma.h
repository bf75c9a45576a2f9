/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Performance Management agent's port counters (IBTA vol 1 16.1.3),
 * answered from sroce's counters.
 */
#ifndef _SROCE_PMA_H
#define _SROCE_PMA_H

#include <linux/types.h>

struct ib_device;
struct ib_grh;
struct ib_mad;
struct ib_wc;

/* What PortCounters and PortCountersExtended report, read at one moment. */
struct sroce_pma_counts {
	u64 xmit_bytes;		/* RoCE packets' octets, BTH to ICRC */
	u64 rcv_bytes;
	u64 xmit_pkts;
	u64 rcv_pkts;
	u64 rcv_errors;		/* malformed, bad ICRC */
	u64 xmit_discards;	/* refused by the local stack, or given up */
	u64 link_downed;
};

int sroce_pma_answer(const struct sroce_pma_counts *c, u32 port_num,
		     const struct ib_mad *in, struct ib_mad *out);

int sroce_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index);

#endif /* _SROCE_PMA_H */
