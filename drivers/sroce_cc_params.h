/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DCQCN tunables of one sroce device, under the names, units and defaults
 * of the ConnectX (mlx5) cc_params debugfs files, with a table that range
 * checks every write. The control plane (debugfs, tools) goes through
 * sroce_cc_param_set()/sroce_cc_param_get(); the data path reads fields.
 */
#ifndef _SROCE_CC_PARAMS_H
#define _SROCE_CC_PARAMS_H

#include <linux/types.h>

/*
 * One u32 per mlx5 name. Writers store with WRITE_ONCE() (through
 * sroce_cc_param_set()), the data path reads each field once per call with
 * READ_ONCE(), so parameters can change while traffic runs without a lock;
 * a packet sees either the old or the new value of each field.
 */
struct sroce_cc_params {
	/* Reaction point (sender), mlx5 cong_control_r_roce_ecn_rp. */
	u32 rp_enable;			/* bit p: RP on for priority p */
	u32 rp_clamp_tgt_rate;		/* bool */
	u32 rp_clamp_tgt_rate_ati;	/* bool */
	u32 rp_time_reset;		/* us */
	u32 rp_byte_reset;		/* 64-byte units, 0 = off */
	u32 rp_threshold;		/* increase events */
	u32 rp_max_rate;		/* Mb/s, 0 = line rate */
	u32 rp_ai_rate;			/* Mb/s */
	u32 rp_hai_rate;		/* Mb/s */
	u32 rp_gd;			/* shift */
	u32 rp_min_dec_fac;		/* % */
	u32 rp_min_rate;		/* Mb/s */
	u32 rp_rate_to_set_on_first_cnp;	/* Mb/s, 0 = ordinary cut */
	u32 rp_dce_tcp_g;		/* 1/1024 */
	u32 rp_dce_tcp_rtt;		/* us */
	u32 rp_rate_reduce_monitor_period;	/* us */
	u32 rp_initial_alpha_value;	/* 1/1024 */
	/* Notification point (receiver), mlx5 cong_control_r_roce_ecn_np. */
	u32 np_enable;			/* bit p: NP on for priority p */
	u32 np_min_time_between_cnps;	/* us */
	u32 np_cnp_dscp;		/* DSCP */
	u32 np_cnp_prio_mode;		/* 0: use np_cnp_prio */
	u32 np_cnp_prio;		/* 802.1p PCP */
	/* Data packets (sroce's own; mlx5 has no cc_params file for them). */
	u32 ecn_enable;			/* bool: send data packets ECT(0) */
	u32 roce_dscp;			/* DSCP when the traffic class has none */
	u32 tx_trains;			/* enum sroce_train_mode */
	u32 tx_adaptive_window;		/* bool: sroce_req_win.h, taken at RTS */
	u32 tx_rtt_retransmit;		/* bool: sroce_req_rto.h, taken at RTS */
	/* Algorithm selection (sroce_cc_ops.h): taken by a QP at RTS. */
	u32 cc_algo;			/* enum sroce_cc_algo */
	/* TIMELY (sroce_cc_timely.c), for QPs with cc_algo 1. */
	u32 timely_t_low;		/* us, 0 = no low threshold */
	u32 timely_t_high;		/* us */
	u32 timely_min_rtt;		/* us, the gradient's normaliser */
	u32 timely_ai_rate;		/* Mb/s, delta */
	u32 timely_beta;		/* 1/1024, decrease factor */
	u32 timely_alpha;		/* 1/1024, EWMA weight of a new sample */
	u32 timely_hai_n;		/* samples (and HAI's step multiplier) */
	u32 timely_min_rate;		/* Mb/s */
	u32 timely_max_rate;		/* Mb/s, 0: line rate */
};

/* Number of parameters: every field above is one u32 table entry. */
#define SROCE_CC_NUM_PARAMS \
	(sizeof(struct sroce_cc_params) / sizeof(u32))

/* Upper bound of every rate parameter: 400 Gb/s, the fastest ConnectX. */
#define SROCE_CC_MAX_RATE_MBPS		400000U
/* The 17-bit microsecond fields of the mlx5 DCQCN parameter pages. */
#define SROCE_CC_MAX_TIME_US		131071U

void sroce_cc_params_init_defaults(struct sroce_cc_params *p);
/*
 * -EINVAL for an unknown name, -ERANGE for a value outside the parameter's
 * range; the reason (name, value, allowed range) goes to the kernel log.
 */
int sroce_cc_param_set(struct sroce_cc_params *p, const char *name, u32 val);
int sroce_cc_param_get(const struct sroce_cc_params *p, const char *name,
		       u32 *val);

/* Table walk for the control plane (listing, JSON dumps, tests). */
unsigned int sroce_cc_param_count(void);
const char *sroce_cc_param_name(unsigned int idx);
int sroce_cc_param_range(const char *name, u32 *min, u32 *max, u32 *def);

#endif /* _SROCE_CC_PARAMS_H */
