/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-device counters, exported as the port's rdma_hw_stats so that
 * `rdma statistic show` and /sys/class/infiniband/<dev>/ports/1/hw_counters
 * show them.
 */
#ifndef _SROCE_COUNTERS_H
#define _SROCE_COUNTERS_H

#include <linux/percpu.h>
#include <linux/types.h>

struct ib_device;
struct rdma_hw_stats;

enum sroce_counter {
	SROCE_CNT_SENT_PKTS,
	SROCE_CNT_RCVD_PKTS,
	SROCE_CNT_RCVD_MALFORMED,
	SROCE_CNT_RCVD_BAD_ICRC,
	SROCE_CNT_RCVD_NO_QP,
	SROCE_CNT_LINK_DOWNED,
	SROCE_CNT_RESP_DUPLICATE,
	SROCE_CNT_RESP_OUT_OF_SEQ,
	SROCE_CNT_RESP_RNR_NAK,
	SROCE_CNT_RESP_RKEY_VIOLATION,
	SROCE_CNT_RESP_INVALID_REQ,
	SROCE_CNT_RESP_REM_OP_ERR,
	SROCE_CNT_RESP_DROPPED,
	SROCE_CNT_RDMA_RECVS,
	SROCE_CNT_RCVD_SEQ_ERR,
	SROCE_CNT_RCVD_RNR_ERR,
	SROCE_CNT_COMP_RETRY,
	SROCE_CNT_RETRY_EXCEEDED,
	SROCE_CNT_RNR_RETRY_EXCEEDED,
	SROCE_CNT_COMP_DROPPED,
	SROCE_CNT_XMIT_REFUSED,		/* the local stack refused: a loss */
	SROCE_CNT_XMIT_GAVE_UP,		/* back-pressure outlasted the back-off */
	/* ECN and DCQCN, under mlx5's names (drivers/infiniband/hw/mlx5/counters.c). */
	SROCE_CNT_NP_ECN_MARKED,	/* CE-marked RoCE packets received */
	SROCE_CNT_NP_CNP_SENT,		/* CNPs sent */
	SROCE_CNT_RP_CNP_HANDLED,	/* CNPs that cut (or set) a QP's rate */
	SROCE_CNT_RP_CNP_IGNORED,	/* CNPs received that changed nothing */
	SROCE_CNT_CC_RX_CNP,		/* every CNP received, before any check */
	/* UD and GSI receives. */
	SROCE_CNT_RCVD_BAD_QKEY,	/* Q_Key mismatch (IBTA 10.2.4, C9-49) */
	SROCE_CNT_UD_RECV_DROPPED,	/* no receive WQE, too long, bad WQE */
	/* Multicast receives (sroce_mcast.c). */
	SROCE_CNT_MCAST_RCVD,		/* packets for a group with QPs here */
	SROCE_CNT_MCAST_COPIES,		/* copies handed to attached QPs */
	SROCE_CNT_MCAST_NO_QP,		/* dropped: no QP attached to the group */
	SROCE_CNT_SENT_TRAINS,		/* send trains handed to the stack */
	SROCE_CNT_WINDOW_CUTS,		/* send windows cut on a timeout */
	SROCE_CNT_EARLY_RETRANSMITS,	/* probes resent before the timeout */
	SROCE_CNT_XMIT_BACKOFFS,	/* stack pushed back: wait, send again */
	SROCE_CNT_EARLY_SPURIOUS,	/* early re-asks a READ stream overtook */
	SROCE_CNT_RESP_READ_REASKS,	/* READ streams restarted ahead of queue */
	SROCE_CNT_ODP_MISSES,		/* accesses that met an unmapped ODP page */
	SROCE_CNT_ODP_FAULTS,		/* ODP ranges faulted in */
	SROCE_CNT_ODP_FAULT_ERRORS,	/* ODP ranges that could not be */
	SROCE_CNT_ODP_INVALIDATIONS,	/* ODP ranges the mm took back */
	/* RoCEv2 UDP payload octets, BTH to ICRC: the PMA's data counters. */
	SROCE_CNT_SENT_BYTES,
	SROCE_CNT_RCVD_BYTES,		/* of the packets rcvd_pkts counts */
	SROCE_NUM_COUNTERS
};

/*
 * One set per CPU: the packet paths count with this_cpu_inc(), which is
 * one instruction on x86-64 and safe against interrupts everywhere, and
 * never share a cache line between CPUs. Readers sum the sets; a sum read
 * while packets are counted is a moment's view, not a snapshot (on 32-bit
 * kernels a CPU's u64 may be read half-updated).
 */
struct sroce_counter_set {
	u64 val[SROCE_NUM_COUNTERS];
};

struct sroce_counters {
	struct sroce_counter_set __percpu *pcpu;
};

static inline void sroce_counter_inc(struct sroce_counters *c,
				     enum sroce_counter idx)
{
	this_cpu_inc(c->pcpu->val[idx]);
}

static inline void sroce_counter_add(struct sroce_counters *c,
				     enum sroce_counter idx, u64 n)
{
	this_cpu_add(c->pcpu->val[idx], n);
}

u64 sroce_counter_read(struct sroce_counters *c, enum sroce_counter idx);
int sroce_counters_init(struct sroce_counters *c);
void sroce_counters_destroy(struct sroce_counters *c);

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index);

#endif /* _SROCE_COUNTERS_H */
