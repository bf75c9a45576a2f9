/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device and port limits that sroce reports through query_device and
 * query_port. Where a value has no better reason it matches rdma_rxe, so
 * that applications tuned for Soft-RoCE see the same device shape.
 */
#ifndef _SROCE_PARAM_H
#define _SROCE_PARAM_H

#include <rdma/ib_verbs.h>

/* rdma_rxe's "unknown vendor": perftest and others key behaviour on it. */
#define SROCE_VENDOR_ID			0xffffff
#define SROCE_NODE_DESC			"sroce"

/* Userspace is Debian's stock rxe provider, which accepts ABI 1..2. */
#define SROCE_UVERBS_ABI_VERSION	2

enum sroce_limits {
	SROCE_MAX_QP			= 1 << 16,
	SROCE_MAX_QP_WR			= 1 << 14,
	SROCE_MAX_SGE			= 32,
	/* Inline bytes a send WQE may carry; the SQ slot has room for them. */
	SROCE_MAX_INLINE_DATA		= 512,
	SROCE_MAX_CQ			= 1 << 16,
	SROCE_MAX_CQE			= (1 << 15) - 1,
	SROCE_MAX_MR			= 1 << 16,
	SROCE_MAX_PD			= 1 << 16,
	SROCE_MAX_QP_RD_ATOM		= 128,
	SROCE_MAX_AH			= (1 << 15) - 1,
	SROCE_MAX_SRQ			= 1 << 16,
	SROCE_MAX_SRQ_WR		= 1 << 14,
	SROCE_MAX_SRQ_SGE		= 27,
	SROCE_MAX_FAST_REG_PAGES	= 512,
	SROCE_MAX_PKEYS			= 1,
	SROCE_LOCAL_CA_ACK_DELAY	= 15,
	SROCE_PORT_GID_TBL_LEN		= 1024,
	SROCE_PORT_MAX_MSG_SZ		= 1 << 23,
	SROCE_MAX_MCAST_GRP		= 8192,
	SROCE_MAX_MCAST_QP_ATTACH	= 56,
	SROCE_MAX_TOT_MCAST_QP_ATTACH	= 0x70000,
};

/*
 * Largest RoCEv2 header stack a full-MTU data packet carries: IPv6 (40),
 * UDP (8), BTH (12), RETH (16) and ICRC (4). The IB path MTU is the netdev
 * MTU less this, rounded down to an IB MTU; rdma_rxe uses the same 80
 * bytes, so both ends of a mixed link pick the same active MTU.
 */
#define SROCE_MAX_HDR_LEN		80

#endif /* _SROCE_PARAM_H */
