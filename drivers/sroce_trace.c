// SPDX-License-Identifier: GPL-2.0
/*
 * The one place that instantiates sroce's tracepoints (sroce_trace.h), and
 * the out-of-line halves of its helpers, which only run while an event is
 * enabled.
 */
#include <linux/minmax.h>

#include "sroce_cc.h"

#define CREATE_TRACE_POINTS
#include "sroce_trace.h"

/**
 * sroce_cc_rate_stage() - the DCQCN stage a QP is in
 * @reason: the event that changed the rate
 * @info: the RP after the event
 * @threshold: rp_threshold (F)
 *
 * The stages of sroce_cc.c: fast recovery while neither increase counter
 * is past F, hyper increase once both are, additive increase in between.
 *
 * Return: the stage to report.
 */
enum sroce_cc_rate_stage sroce_cc_rate_stage(enum sroce_cc_rate_reason reason,
					     const struct sroce_cc_rp_info *info,
					     u32 threshold)
{
	switch (reason) {
	case SROCE_CC_RATE_CNP:
		return SROCE_CC_STAGE_CUT;
	case SROCE_CC_RATE_TIMER:
	case SROCE_CC_RATE_BYTE:
		break;
	default:
		return SROCE_CC_STAGE_NONE;
	}
	if (max(info->tstage, info->bstage) <= threshold)
		return SROCE_CC_STAGE_FAST_RECOVERY;
	if (min(info->tstage, info->bstage) > threshold)
		return SROCE_CC_STAGE_HYPER;
	return SROCE_CC_STAGE_ADDITIVE;
}

void __sroce_cc_trace_rate(u32 qpn, const struct sroce_cc_rp *rp,
			   const struct sroce_cc_params *p,
			   enum sroce_cc_rate_reason reason)
{
	struct sroce_cc_rp_info info;

	sroce_cc_rp_get_info(rp, &info);
	trace_sroce_cc_rate(qpn, &info, reason,
			    sroce_cc_rate_stage(reason, &info,
						READ_ONCE(p->rp_threshold)));
}

void __sroce_cc_trace_snap(const struct sroce_cc_rp *rp,
			   struct sroce_cc_trace_snap *snap)
{
	struct sroce_cc_rp_info info;

	sroce_cc_rp_get_info(rp, &info);
	snap->rc_kbps = info.rc_kbps;
	snap->rt_kbps = info.rt_kbps;
	snap->tstage = info.tstage;
	snap->bstage = info.bstage;
}

void __sroce_cc_trace_changed(u32 qpn, const struct sroce_cc_rp *rp,
			      const struct sroce_cc_params *p,
			      const struct sroce_cc_trace_snap *snap)
{
	enum sroce_cc_rate_reason reason;
	struct sroce_cc_rp_info info;

	sroce_cc_rp_get_info(rp, &info);
	if (info.rc_kbps == snap->rc_kbps && info.rt_kbps == snap->rt_kbps)
		return;
	reason = info.bstage != snap->bstage ? SROCE_CC_RATE_BYTE :
					       SROCE_CC_RATE_TIMER;
	trace_sroce_cc_rate(qpn, &info, reason,
			    sroce_cc_rate_stage(reason, &info,
						READ_ONCE(p->rp_threshold)));
}
