// SPDX-License-Identifier: GPL-2.0
/*
 * Counters: the names are what `rdma statistic show` prints. Where rdma_rxe
 * has the same event its name is reused, so scripts written for either
 * device read both.
 */
#include <rdma/ib_verbs.h>

#include "sroce_counters.h"
#include "sroce_dev.h"

static const struct rdma_stat_desc sroce_counter_descs[] = {
	[SROCE_CNT_SENT_PKTS].name = "sent_pkts",
	[SROCE_CNT_RCVD_PKTS].name = "rcvd_pkts",
	[SROCE_CNT_RCVD_MALFORMED].name = "rcvd_malformed_pkts",
	[SROCE_CNT_RCVD_BAD_ICRC].name = "rcvd_bad_icrc_pkts",
	[SROCE_CNT_RCVD_NO_QP].name = "rcvd_no_qp_pkts",
	[SROCE_CNT_LINK_DOWNED].name = "link_downed",
	[SROCE_CNT_RESP_DUPLICATE].name = "duplicate_request",
	[SROCE_CNT_RESP_OUT_OF_SEQ].name = "out_of_seq_request",
	[SROCE_CNT_RESP_RNR_NAK].name = "send_rnr_err",
	[SROCE_CNT_RESP_RKEY_VIOLATION].name = "resp_rkey_violation",
	[SROCE_CNT_RESP_INVALID_REQ].name = "resp_invalid_request",
	[SROCE_CNT_RESP_REM_OP_ERR].name = "resp_remote_op_error",
	[SROCE_CNT_RESP_DROPPED].name = "resp_dropped",
	[SROCE_CNT_RDMA_RECVS].name = "rdma_recvs",
	[SROCE_CNT_RCVD_SEQ_ERR].name = "rcvd_seq_err",
	[SROCE_CNT_RCVD_RNR_ERR].name = "rcvd_rnr_err",
	[SROCE_CNT_COMP_RETRY].name = "completer_retry_err",
	[SROCE_CNT_RETRY_EXCEEDED].name = "retry_exceeded_err",
	[SROCE_CNT_RNR_RETRY_EXCEEDED].name = "retry_rnr_exceeded_err",
	[SROCE_CNT_COMP_DROPPED].name = "comp_dropped_pkts",
	[SROCE_CNT_XMIT_REFUSED].name = "xmit_refused_pkts",
	[SROCE_CNT_XMIT_GAVE_UP].name = "xmit_backoff_drops",
	/*
	 * mlx5's congestion counters (cong_cnts[]). A CNP that reaches a QP
	 * is counted once, as handled or ignored (ignored: inside the
	 * monitor period of the last cut, RP disabled for its priority, or
	 * the QP cannot send); cc_rx_cnp_pkts (mlx5's optional per-port
	 * counter) counts every CNP received, also those for no QP, so that
	 * a sender's cc_rx_cnp_pkts matches its peers' np_cnp_sent.
	 */
	[SROCE_CNT_NP_ECN_MARKED].name = "np_ecn_marked_roce_packets",
	[SROCE_CNT_NP_CNP_SENT].name = "np_cnp_sent",
	[SROCE_CNT_RP_CNP_HANDLED].name = "rp_cnp_handled",
	[SROCE_CNT_RP_CNP_IGNORED].name = "rp_cnp_ignored",
	[SROCE_CNT_CC_RX_CNP].name = "cc_rx_cnp_pkts",
	[SROCE_CNT_RCVD_BAD_QKEY].name = "rcvd_bad_qkey_pkts",
	[SROCE_CNT_UD_RECV_DROPPED].name = "ud_recv_dropped",
	[SROCE_CNT_MCAST_RCVD].name = "mcast_rcvd_pkts",
	[SROCE_CNT_MCAST_COPIES].name = "mcast_rcvd_copies",
	[SROCE_CNT_MCAST_NO_QP].name = "mcast_rcvd_no_qp",
	/* sroce's own: UDP GSO skbs of two or more packets (sroce_train.c). */
	[SROCE_CNT_SENT_TRAINS].name = "sent_trains",
	[SROCE_CNT_WINDOW_CUTS].name = "window_cuts",
	[SROCE_CNT_EARLY_RETRANSMITS].name = "early_retransmits",
	[SROCE_CNT_XMIT_BACKOFFS].name = "xmit_backoffs",
	[SROCE_CNT_EARLY_SPURIOUS].name = "early_retransmits_spurious",
	[SROCE_CNT_RESP_READ_REASKS].name = "resp_read_reasks",
	[SROCE_CNT_ODP_MISSES].name = "odp_misses",
	[SROCE_CNT_ODP_FAULTS].name = "odp_faults",
	[SROCE_CNT_ODP_FAULT_ERRORS].name = "odp_fault_errors",
	[SROCE_CNT_ODP_INVALIDATIONS].name = "odp_invalidations",
	[SROCE_CNT_SENT_BYTES].name = "sent_bytes",
	[SROCE_CNT_RCVD_BYTES].name = "rcvd_bytes",
};

static_assert(ARRAY_SIZE(sroce_counter_descs) == SROCE_NUM_COUNTERS);

int sroce_counters_init(struct sroce_counters *c)
{
	c->pcpu = alloc_percpu(struct sroce_counter_set);
	return c->pcpu ? 0 : -ENOMEM;
}

void sroce_counters_destroy(struct sroce_counters *c)
{
	free_percpu(c->pcpu);
	c->pcpu = NULL;
}

u64 sroce_counter_read(struct sroce_counters *c, enum sroce_counter idx)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(c->pcpu, cpu)->val[idx]);
	return sum;
}

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	return rdma_alloc_hw_stats_struct(sroce_counter_descs,
					  ARRAY_SIZE(sroce_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int i;

	for (i = 0; i < SROCE_NUM_COUNTERS; i++)
		stats->value[i] = sroce_counter_read(&sdev->counters, i);
	return SROCE_NUM_COUNTERS;
}
