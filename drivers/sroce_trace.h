/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce tracepoints. sroce_cc_rate reports every change of a QP's DCQCN
 * rate, with the event that caused it:
 *
 *   echo 1 > /sys/kernel/tracing/events/sroce/sroce_cc_rate/enable
 *   cat /sys/kernel/tracing/trace_pipe
 *   ... sroce_cc_rate: qpn=0x000011 rc_kbps=500000 rt_kbps=1000000
 *       alpha=1023 reason=cnp stage=cut tstage=0 bstage=0
 *
 * rc_kbps/rt_kbps: current and target rate in kb/s; alpha in 1/1024 (mlx5's
 * unit); reason: cnp (a CNP cut the rate), timer or byte (increase events
 * of the rp_time_reset timer or the rp_byte_reset counter), line (the link
 * rate changed), init (the QP's RP was reset to line rate); stage: cut,
 * fast_recovery, additive or hyper (the DCQCN increase stage the QP is in
 * after the change, from tstage/bstage and rp_threshold), none for line
 * and init. tools/sroce-rate-plot turns the text into CSV and a plot.
 *
 * The data path calls the inline helpers at the end of this file; they
 * cost one static branch while the event is disabled.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#ifndef _SROCE_TRACE_DEFS_H
#define _SROCE_TRACE_DEFS_H

#include <linux/types.h>

#include "sroce_cc.h"

/* What made the rate change. */
enum sroce_cc_rate_reason {
	SROCE_CC_RATE_CNP,
	SROCE_CC_RATE_TIMER,
	SROCE_CC_RATE_BYTE,
	SROCE_CC_RATE_INIT,
};

/* The QP's DCQCN stage after the change. */
enum sroce_cc_rate_stage {
	SROCE_CC_STAGE_NONE,
	SROCE_CC_STAGE_CUT,
	SROCE_CC_STAGE_FAST_RECOVERY,
	SROCE_CC_STAGE_ADDITIVE,
	SROCE_CC_STAGE_HYPER,
};

/* The RP's rate and stage counters before an event, for sroce_cc_trace_changed(). */
struct sroce_cc_trace_snap {
	u64 rc_kbps;
	u64 rt_kbps;
	u32 tstage;
	u32 bstage;
	bool on;		/* the tracepoint was enabled: fields valid */
};

enum sroce_cc_rate_stage sroce_cc_rate_stage(enum sroce_cc_rate_reason reason,
					     const struct sroce_cc_rp_info *info,
					     u32 threshold);

#endif /* _SROCE_TRACE_DEFS_H */

#if !defined(_SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SROCE_TRACE_H

#include <linux/tracepoint.h>

TRACE_DEFINE_ENUM(SROCE_CC_RATE_CNP);
TRACE_DEFINE_ENUM(SROCE_CC_RATE_TIMER);
TRACE_DEFINE_ENUM(SROCE_CC_RATE_BYTE);
TRACE_DEFINE_ENUM(SROCE_CC_RATE_INIT);
TRACE_DEFINE_ENUM(SROCE_CC_STAGE_NONE);
TRACE_DEFINE_ENUM(SROCE_CC_STAGE_CUT);
TRACE_DEFINE_ENUM(SROCE_CC_STAGE_FAST_RECOVERY);
TRACE_DEFINE_ENUM(SROCE_CC_STAGE_ADDITIVE);
TRACE_DEFINE_ENUM(SROCE_CC_STAGE_HYPER);

TRACE_EVENT(sroce_cc_rate,
	    TP_PROTO(u32 qpn, const struct sroce_cc_rp_info *info,
		     enum sroce_cc_rate_reason reason,
		     enum sroce_cc_rate_stage stage),
	    TP_ARGS(qpn, info, reason, stage),
	    TP_STRUCT__entry(__field(u64, rc_kbps)
			     __field(u64, rt_kbps)
			     __field(u32, qpn)
			     __field(u32, alpha)
			     __field(u32, tstage)
			     __field(u32, bstage)
			     __field(u8, reason)
			     __field(u8, stage)),
	    TP_fast_assign(__entry->rc_kbps = info->rc_kbps;
			   __entry->rt_kbps = info->rt_kbps;
			   __entry->qpn = qpn;
			   __entry->alpha = info->alpha;
			   __entry->tstage = info->tstage;
			   __entry->bstage = info->bstage;
			   __entry->reason = reason;
			   __entry->stage = stage;),
	    TP_printk("qpn=0x%06x rc_kbps=%llu rt_kbps=%llu alpha=%u reason=%s stage=%s tstage=%u bstage=%u",
		      __entry->qpn, __entry->rc_kbps, __entry->rt_kbps,
		      __entry->alpha,
		      __print_symbolic(__entry->reason,
				       { SROCE_CC_RATE_CNP, "cnp" },
				       { SROCE_CC_RATE_TIMER, "timer" },
				       { SROCE_CC_RATE_BYTE, "byte" },
				       { SROCE_CC_RATE_INIT, "init" }),
		      __print_symbolic(__entry->stage,
				       { SROCE_CC_STAGE_NONE, "none" },
				       { SROCE_CC_STAGE_CUT, "cut" },
				       { SROCE_CC_STAGE_FAST_RECOVERY, "fast_recovery" },
				       { SROCE_CC_STAGE_ADDITIVE, "additive" },
				       { SROCE_CC_STAGE_HYPER, "hyper" }),
		      __entry->tstage, __entry->bstage)
);

#endif /* _SROCE_TRACE_H */

#ifndef _SROCE_TRACE_HELPERS_H
#define _SROCE_TRACE_HELPERS_H

void __sroce_cc_trace_rate(u32 qpn, const struct sroce_cc_rp *rp,
			   const struct sroce_cc_params *p,
			   enum sroce_cc_rate_reason reason);
void __sroce_cc_trace_snap(const struct sroce_cc_rp *rp,
			   struct sroce_cc_trace_snap *snap);
void __sroce_cc_trace_changed(u32 qpn, const struct sroce_cc_rp *rp,
			      const struct sroce_cc_params *p,
			      const struct sroce_cc_trace_snap *snap);

/**
 * sroce_cc_trace_rate() - report a QP's rate after an event that set it
 * @qpn: the QP's number
 * @rp: its RP, after the event
 * @p: device parameters
 * @reason: the event
 *
 * For events whose effect the caller knows: a handled CNP (after
 * sroce_cc_rp_on_cnp() returned SROCE_CC_CNP_HANDLED), a link rate change,
 * an RP (re)initialised. Context: any; the caller holds the lock that
 * serialises @rp.
 */
static inline void sroce_cc_trace_rate(u32 qpn, const struct sroce_cc_rp *rp,
				       const struct sroce_cc_params *p,
				       enum sroce_cc_rate_reason reason)
{
	if (trace_sroce_cc_rate_enabled())
		__sroce_cc_trace_rate(qpn, rp, p, reason);
}

/**
 * sroce_cc_trace_snap() - remember the RP's rate before an event
 * @rp: the QP's RP
 * @snap: filled for sroce_cc_trace_changed()
 *
 * Call before sroce_cc_rp_on_tx() or sroce_cc_rp_rate(), whose increase
 * events are only known by their effect; then sroce_cc_trace_changed().
 */
static inline void sroce_cc_trace_snap(const struct sroce_cc_rp *rp,
				       struct sroce_cc_trace_snap *snap)
{
	snap->on = trace_sroce_cc_rate_enabled();
	if (snap->on)
		__sroce_cc_trace_snap(rp, snap);
}

/**
 * sroce_cc_trace_changed() - report the rate if the event changed it
 * @qpn: the QP's number
 * @rp: its RP, after the event
 * @p: device parameters
 * @snap: what sroce_cc_trace_snap() saw before the event
 *
 * Reports reason byte if the byte counter fired, timer otherwise.
 */
static inline void sroce_cc_trace_changed(u32 qpn,
					  const struct sroce_cc_rp *rp,
					  const struct sroce_cc_params *p,
					  const struct sroce_cc_trace_snap *snap)
{
	if (snap->on)
		__sroce_cc_trace_changed(qpn, rp, p, snap);
}

#endif /* _SROCE_TRACE_HELPERS_H */

/*
 * define_trace.h includes "./sroce_trace.h" again; "." is found through
 * the -I$(sroce_srcdir)/drivers that Kbuild adds for the M= build and the
 * in-tree KUnit overlay alike.
 */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE sroce_trace
#include <trace/define_trace.h>
