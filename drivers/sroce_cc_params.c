// SPDX-License-Identifier: GPL-2.0
/*
 * The DCQCN parameter table: every tunable under its mlx5 debugfs name,
 * with its unit, range and default, and where each number comes from.
 *
 * Sources of defaults and ranges:
 *  [CX]   firmware defaults of a ConnectX adapter as dumped by
 *         "mlxconfig -d <dev> q" (RPG_*_P1, DCE_TCP_*_P1, ...), quoted in
 *         the reference notes (dcqcn-and-style.md section 1.4);
 *  [DOCA] NVIDIA DOCA "DCQCN CC Parameters" page (units and ranges);
 *  [ISK]  Google Isekai's firmware model, RdmaCcDcqcnOptions;
 *  [SROCE] sroce's own bound where no source gives one; the reason is
 *         given next to the entry.
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "sroce_cc_ops.h"
#include "sroce_cc_params.h"
#include "sroce_train.h"

struct sroce_cc_param_desc {
	const char *name;
	size_t offset;
	u32 min;
	u32 max;
	u32 def;
};

#define SROCE_CC_PARAM(_name, _min, _max, _def)				\
	{								\
		.name = #_name,						\
		.offset = offsetof(struct sroce_cc_params, _name),	\
		.min = _min,						\
		.max = _max,						\
		.def = _def,						\
	}

static const struct sroce_cc_param_desc sroce_cc_param_table[] = {
	/*
	 * Bitmask of the eight priorities on which the RP reacts to CNPs;
	 * [CX] ROCE_CC_PRIO_MASK_P1 255.
	 */
	SROCE_CC_PARAM(rp_enable, 0, 0xff, 0xff),
	/* Rt <- Rc on every cut (bool); [CX] CLAMP_TGT_RATE False. */
	SROCE_CC_PARAM(rp_clamp_tgt_rate, 0, 1, 0),
	/*
	 * Also clamp after timer-driven increases (bool);
	 * [CX] CLAMP_TGT_RATE_AFTER_TIME_INC True.
	 */
	SROCE_CC_PARAM(rp_clamp_tgt_rate_ati, 0, 1, 1),
	/*
	 * T, us between timer increases; [CX] 300. 0 would make the timer
	 * fire continuously, so [SROCE] starts the range at 1; the top is
	 * the 17-bit microsecond range [DOCA] gives dce_tcp_rtt.
	 */
	SROCE_CC_PARAM(rp_time_reset, 1, SROCE_CC_MAX_TIME_US, 300),
	/*
	 * B in 64-byte units as [ISK] counts it ([CX] 32767, about 2 MiB);
	 * 0 switches the byte counter off. The top is the default: the
	 * firmware default is the largest value mlxconfig accepts.
	 */
	SROCE_CC_PARAM(rp_byte_reset, 0, 32767, 32767),
	/*
	 * F, increase events spent in fast recovery; [CX] 1. [SROCE] 1..31:
	 * 0 would skip fast recovery, above 31 hyper increase never starts
	 * within a realistic recovery.
	 */
	SROCE_CC_PARAM(rp_threshold, 1, 31, 1),
	/* Rate ceiling in Mb/s, 0 = line rate; [CX]/mlx5 rp_max_rate 0. */
	SROCE_CC_PARAM(rp_max_rate, 0, SROCE_CC_MAX_RATE_MBPS, 0),
	/* R_AI in Mb/s; [CX] RPG_AI_RATE 5. */
	SROCE_CC_PARAM(rp_ai_rate, 0, SROCE_CC_MAX_RATE_MBPS, 5),
	/* R_HAI in Mb/s; [CX] RPG_HAI_RATE 50. */
	SROCE_CC_PARAM(rp_hai_rate, 0, SROCE_CC_MAX_RATE_MBPS, 50),
	/*
	 * Cut = Rc * alpha >> rp_gd with alpha in 1/1024: 11 halves alpha
	 * (the paper's Rc * alpha / 2). [CX] 11, [DOCA] range 10..11.
	 */
	SROCE_CC_PARAM(rp_gd, 10, 11, 11),
	/*
	 * Largest single cut, in % of Rc ([DOCA]: "maximal ratio of rate
	 * decrease in a single event"; 100 prevents cuts); [CX] 50,
	 * [DOCA] 0..100.
	 */
	SROCE_CC_PARAM(rp_min_dec_fac, 0, 100, 50),
	/* Rate floor in Mb/s; [CX] 1, [DOCA] 1..line rate. */
	SROCE_CC_PARAM(rp_min_rate, 1, SROCE_CC_MAX_RATE_MBPS, 1),
	/*
	 * Rc = Rt = this on a QP's first CNP, 0 = ordinary cut; [DOCA] 0,
	 * range 0, 1..line rate.
	 */
	SROCE_CC_PARAM(rp_rate_to_set_on_first_cnp, 0, SROCE_CC_MAX_RATE_MBPS, 0),
	/* G in 1/1024 (g = (1024 - G) / 1024); [CX]/[DOCA] 1019, 0..1023. */
	SROCE_CC_PARAM(rp_dce_tcp_g, 0, 1023, 1019),
	/* Alpha update period K in us; [CX] 1, [DOCA] 1..131071. */
	SROCE_CC_PARAM(rp_dce_tcp_rtt, 1, SROCE_CC_MAX_TIME_US, 1),
	/*
	 * At most one cut per this many us; [CX] 4, [DOCA] 1..UINT32 (the
	 * 17-bit top of the other timers here keeps ns arithmetic small).
	 */
	SROCE_CC_PARAM(rp_rate_reduce_monitor_period, 1, SROCE_CC_MAX_TIME_US, 4),
	/* Alpha at the first CNP, 1/1024; [CX] 1023, [DOCA] 1..1023. */
	SROCE_CC_PARAM(rp_initial_alpha_value, 1, 1023, 1023),
	/* Bitmask of priorities on which the NP sends CNPs; [CX] 255. */
	SROCE_CC_PARAM(np_enable, 0, 0xff, 0xff),
	/*
	 * Minimum us between two CNPs to one QP; [CX] 4 (2 on some
	 * firmware), 0 allowed as in the older PRM default.
	 */
	SROCE_CC_PARAM(np_min_time_between_cnps, 0, SROCE_CC_MAX_TIME_US, 4),
	/* DSCP of CNPs (6 bits); [CX] CNP_DSCP 48. */
	SROCE_CC_PARAM(np_cnp_dscp, 0, 63, 48),
	/*
	 * 0: CNPs carry np_cnp_prio; 1: they take the priority of the
	 * packet that caused them. mlx5 forces 0 when np_cnp_prio is
	 * written; sroce does the same in sroce_cc_param_set().
	 */
	SROCE_CC_PARAM(np_cnp_prio_mode, 0, 1, 0),
	/* 802.1p PCP of CNPs (3 bits); [CX] CNP_802P_PRIO 6. */
	SROCE_CC_PARAM(np_cnp_prio, 0, 7, 6),
	/*
	 * [SROCE] 1: data packets whose traffic class leaves the ECN field
	 * 0 (Not-ECT) are sent ECT(0), so that a congested switch marks
	 * them CE instead of dropping them (RFC 3168 section 5; DCQCN's CP
	 * marks only ECN-capable packets). 0: the ECN field is the
	 * application's, as rdma_rxe sends it. A ConnectX sends ECT when
	 * its RP is enabled; sroce keeps the two separate so that a run
	 * with DCQCN off can still carry marks, or none.
	 */
	SROCE_CC_PARAM(ecn_enable, 0, 1, 1),
	/*
	 * [SROCE] DSCP of data packets whose traffic class has DSCP 0 (a
	 * non-zero DSCP from the AH or rdma_cm's ToS wins). Default 0, the
	 * class rdma_rxe and a ConnectX without QoS setup send; NVIDIA's
	 * lossy RoCE guides use 26.
	 */
	SROCE_CC_PARAM(roce_dscp, 0, 63, 0),
	/*
	 * [SROCE] Send trains (sroce_train.c): runs of a message's packets
	 * passed to the IP stack as one UDP GSO skb. 0 off; 1 where the
	 * kernel segments them (IPv6, or a netdev without UDP segmentation
	 * offload: a NIC may number IPv4 IDs, which the ICRC covers, its
	 * own way); 2 always, for a NIC known to number them as Linux does.
	 */
	SROCE_CC_PARAM(tx_trains, SROCE_TRAIN_OFF, SROCE_TRAIN_ALWAYS,
		       SROCE_TRAIN_AUTO),
	/*
	 * [SROCE] 1: an RC QP's send window drops to a few PSNs on a
	 * retransmit timeout and grows back with progress, like TCP's
	 * congestion window (sroce_req_win.h), so that a receiver too slow
	 * for the QP's timeout is not sent the whole window again each time;
	 * 0: fixed at its 256 PSNs. Taken by a QP at RTS.
	 */
	SROCE_CC_PARAM(tx_adaptive_window, 0, 1, 1),
	/*
	 * [SROCE] 1: an RC QP that waited for an answer longer than its
	 * measured round trips say it should (RFC 6298's RTO, below the
	 * QP's timeout attribute) resends a probe then, spending no retry
	 * (sroce_req_rto.h); 0: only the QP's timeout resends. Taken by a
	 * QP at RTS. On by default since the whole timeout stretches toward
	 * the measured round trip (Documentation/sroce.rst, the early
	 * retransmit).
	 */
	SROCE_CC_PARAM(tx_rtt_retransmit, 0, 1, 1),
	/*
	 * [SROCE] Congestion control of QPs that move to RTS from now on
	 * (enum sroce_cc_algo): 0 DCQCN, as a ConnectX runs it; 1 TIMELY,
	 * delay based, for fabrics without ECN marking.
	 */
	SROCE_CC_PARAM(cc_algo, 0, SROCE_CC_ALGO_COUNT - 1, SROCE_CC_ALGO_DCQCN),
	/*
	 * TIMELY. [TML] is the paper (Mittal et al., SIGCOMM 2015, 10 GbE
	 * with NIC timestamps); sroce's RTT is taken in software at both
	 * ends on 1-10 Gb/s links, which adds tens of us of scheduling
	 * noise, so the thresholds are wider. Times use the 17-bit us range
	 * of the DCQCN timers.
	 *
	 * T_low: below it the queue is taken to be empty and the rate only
	 * grows; [TML] 50 us, about a software RoCE round trip without a
	 * queue on a 10 Gb/s link. 0 switches the test off.
	 */
	SROCE_CC_PARAM(timely_t_low, 0, SROCE_CC_MAX_TIME_US, 50),
	/*
	 * T_high: above it the rate is cut by the excess whatever the
	 * gradient; [TML] 500 us. [SROCE] 1000 us: 125 KB of queue at
	 * 1 Gb/s, 1.25 MB at 10 Gb/s, below a 1000-packet tail-drop queue
	 * and above the softirq delays a loaded host adds.
	 */
	SROCE_CC_PARAM(timely_t_high, 1, SROCE_CC_MAX_TIME_US, 1000),
	/*
	 * The minimum RTT that normalises the gradient; [TML] a fabric's
	 * base RTT (tens of us). [SROCE] 50 us, T_low's value: the base
	 * RTT of a software RoCE path.
	 */
	SROCE_CC_PARAM(timely_min_rtt, 1, SROCE_CC_MAX_TIME_US, 50),
	/* delta, the additive step, Mb/s; [TML] 10 Mb/s. */
	SROCE_CC_PARAM(timely_ai_rate, 0, SROCE_CC_MAX_RATE_MBPS, 10),
	/* beta in 1/1024; [TML] 0.8 (819). 0 never cuts, 1024 cuts fully. */
	SROCE_CC_PARAM(timely_beta, 0, 1024, 819),
	/*
	 * alpha, the EWMA weight of the newest RTT difference, 1/1024;
	 * [SROCE] 0.875 (896): with one sample per round trip (not per
	 * 16-64 KB segment as in [TML]) a rising queue must show in one or
	 * two samples.
	 */
	SROCE_CC_PARAM(timely_alpha, 0, 1024, 896),
	/*
	 * N of hyper-active increase: after N gradient increases in a row
	 * each adds N * delta; [TML] 5. [SROCE] at most 255.
	 */
	SROCE_CC_PARAM(timely_hai_n, 1, 255, 5),
	/*
	 * Rate floor, Mb/s; [SROCE] 10: a 4 KiB packet every 3.3 ms, so a
	 * cut QP keeps probing the path with RTT samples.
	 */
	SROCE_CC_PARAM(timely_min_rate, 1, SROCE_CC_MAX_RATE_MBPS, 10),
	/*
	 * [SROCE] Rate ceiling, Mb/s, 0 = line rate: as rp_max_rate is for
	 * DCQCN, for a host that cannot send at its link's nominal rate.
	 * A QP starts there (sroce_cc_timely_init()).
	 */
	SROCE_CC_PARAM(timely_max_rate, 0, SROCE_CC_MAX_RATE_MBPS, 0),
};

static const struct sroce_cc_param_desc *sroce_cc_param_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sroce_cc_param_table); i++)
		if (!strcmp(sroce_cc_param_table[i].name, name))
			return &sroce_cc_param_table[i];
	return NULL;
}

static u32 *sroce_cc_param_field(struct sroce_cc_params *p,
				 const struct sroce_cc_param_desc *d)
{
	return (u32 *)((u8 *)p + d->offset);
}

void sroce_cc_params_init_defaults(struct sroce_cc_params *p)
{
	unsigned int i;

	/* Every field of the struct has exactly one table entry. */
	BUILD_BUG_ON(ARRAY_SIZE(sroce_cc_param_table) != SROCE_CC_NUM_PARAMS);

	for (i = 0; i < ARRAY_SIZE(sroce_cc_param_table); i++)
		WRITE_ONCE(*sroce_cc_param_field(p, &sroce_cc_param_table[i]),
			   sroce_cc_param_table[i].def);
}

int sroce_cc_param_set(struct sroce_cc_params *p, const char *name, u32 val)
{
	const struct sroce_cc_param_desc *d = sroce_cc_param_find(name);

	if (!d) {
		pr_info_ratelimited("sroce: unknown congestion control parameter \"%s\"\n",
				    name);
		return -EINVAL;
	}
	if (val < d->min || val > d->max) {
		pr_info_ratelimited("sroce: %s=%u refused: valid range is %u..%u\n",
				    name, val, d->min, d->max);
		return -ERANGE;
	}
	WRITE_ONCE(*sroce_cc_param_field(p, d), val);
	if (d->offset == offsetof(struct sroce_cc_params, np_cnp_prio))
		WRITE_ONCE(p->np_cnp_prio_mode, 0);
	return 0;
}

int sroce_cc_param_get(const struct sroce_cc_params *p, const char *name,
		       u32 *val)
{
	const struct sroce_cc_param_desc *d = sroce_cc_param_find(name);

	if (!d)
		return -EINVAL;
	*val = READ_ONCE(*(const u32 *)((const u8 *)p + d->offset));
	return 0;
}

unsigned int sroce_cc_param_count(void)
{
	return ARRAY_SIZE(sroce_cc_param_table);
}

const char *sroce_cc_param_name(unsigned int idx)
{
	if (idx >= ARRAY_SIZE(sroce_cc_param_table))
		return NULL;
	return sroce_cc_param_table[idx].name;
}

int sroce_cc_param_range(const char *name, u32 *min, u32 *max, u32 *def)
{
	const struct sroce_cc_param_desc *d = sroce_cc_param_find(name);

	if (!d)
		return -EINVAL;
	*min = d->min;
	*max = d->max;
	*def = d->def;
	return 0;
}
