// SPDX-License-Identifier: GPL-2.0
/*
 * The port's Performance Management agent: Get(ClassPortInfo),
 * Get(PortCounters) and Get(PortCountersExtended) answered from sroce's
 * counters, nothing else.
 *
 * Two callers reach it through the device's process_mad op: the RDMA
 * core's sysfs, which builds these MADs itself to fill
 * /sys/class/infiniband/DEV/ports/1/counters/ (the directory exists only
 * for a device with process_mad), and the MAD layer, which offers every MAD
 * received on QP1 to the driver first. perfquery cannot ask: libibumad
 * opens InfiniBand link layers only, so it refuses every RoCE port.
 *
 * The counters have no LRH or VCRC to count between (IBTA 16.1.3.5): the
 * data counters count the RoCEv2 UDP payload, BTH to ICRC, which is what a
 * capture's UDP length shows. sroce does not count unicast and multicast
 * apart, so ClassPortInfo says "extended width, no IETF counters", and
 * the core shows the 64-bit data and packet counters only.
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_verbs.h>

#include "sroce_counters.h"
#include "sroce_dev.h"
#include "sroce_pma.h"

/* IBTA 13.4.8.1: 4.096 us * 2^18, about a second, as the hardware drivers say. */
#define SROCE_PMA_RESP_TIME	18

static void sroce_pma_port_counters(const struct sroce_pma_counts *c,
				    struct ib_pma_portcounters *pc)
{
	/* The PortCounters counters stop at their largest value (16.1.3.5). */
	pc->link_downed_counter = min_t(u64, c->link_downed, U8_MAX);
	pc->port_rcv_errors = cpu_to_be16(min_t(u64, c->rcv_errors, U16_MAX));
	pc->port_xmit_discards = cpu_to_be16(min_t(u64, c->xmit_discards,
						   U16_MAX));
	pc->port_xmit_data = cpu_to_be32(min_t(u64, c->xmit_bytes / 4, U32_MAX));
	pc->port_rcv_data = cpu_to_be32(min_t(u64, c->rcv_bytes / 4, U32_MAX));
	pc->port_xmit_packets = cpu_to_be32(min_t(u64, c->xmit_pkts, U32_MAX));
	pc->port_rcv_packets = cpu_to_be32(min_t(u64, c->rcv_pkts, U32_MAX));
}

static void sroce_pma_port_counters_ext(const struct sroce_pma_counts *c,
					struct ib_pma_portcounters_ext *pc)
{
	pc->port_xmit_data = cpu_to_be64(c->xmit_bytes / 4);
	pc->port_rcv_data = cpu_to_be64(c->rcv_bytes / 4);
	pc->port_xmit_packets = cpu_to_be64(c->xmit_pkts);
	pc->port_rcv_packets = cpu_to_be64(c->rcv_pkts);
}

/*
 * sroce_pma_answer - the reply to a Performance Management MAD
 * @c: the counters to report
 * @port_num: the port the MAD is for
 * @in: the MAD (from a peer: anything)
 * @out: where the reply goes; written only when one is due
 *
 * Returns the MAD layer's IB_MAD_RESULT_* flags: SUCCESS alone for what is
 * not this agent's (other classes, responses, traps), SUCCESS | REPLY with
 * @out filled for a Get or Set of this class. The reply carries the
 * request's header and PMA fields and nothing else of it: a MAD from the
 * wire may be shorter than the buffer it lies in.
 */
int sroce_pma_answer(const struct sroce_pma_counts *c, u32 port_num,
		     const struct ib_mad *in, struct ib_mad *out)
{
	const struct ib_pma_mad *req = (const struct ib_pma_mad *)in;
	struct ib_pma_mad *resp = (struct ib_pma_mad *)out;
	struct ib_class_port_info *cpi;
	u16 status = IB_MGMT_MAD_STATUS_SUCCESS;

	if (in->mad_hdr.mgmt_class != IB_MGMT_CLASS_PERF_MGMT ||
	    (in->mad_hdr.method != IB_MGMT_METHOD_GET &&
	     in->mad_hdr.method != IB_MGMT_METHOD_SET))
		return IB_MAD_RESULT_SUCCESS;

	memset(resp, 0, sizeof(*resp));
	resp->mad_hdr = req->mad_hdr;
	resp->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	resp->mad_hdr.status = 0;
	/* PortSelect and CounterSelect, echoed (the first 4 data bytes). */
	memcpy(resp->data, req->data, 4);

	if (in->mad_hdr.base_version != IB_MGMT_BASE_VERSION ||
	    in->mad_hdr.class_version != 1) {
		status = IB_MGMT_MAD_STATUS_BAD_VERSION;
	} else if (in->mad_hdr.method == IB_MGMT_METHOD_SET) {
		/* Clearing the counters: every reader's deltas would break. */
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	} else if (in->mad_hdr.attr_id == IB_PMA_CLASS_PORT_INFO) {
		cpi = (struct ib_class_port_info *)resp->data;
		cpi->base_version = IB_MGMT_BASE_VERSION;
		cpi->class_version = 1;
		cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH_NOIETF;
		cpi->cap_mask2_resp_time = cpu_to_be32(SROCE_PMA_RESP_TIME);
	} else if (in->mad_hdr.attr_id != IB_PMA_PORT_COUNTERS &&
		   in->mad_hdr.attr_id != IB_PMA_PORT_COUNTERS_EXT) {
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	} else if (req->data[1] != port_num) {
		/* PortSelect: a CA's own port; no AllPortSelect (16.1.4). */
		status = IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	} else if (in->mad_hdr.attr_id == IB_PMA_PORT_COUNTERS) {
		sroce_pma_port_counters(c, (struct ib_pma_portcounters *)
					resp->data);
	} else {
		sroce_pma_port_counters_ext(c, (struct ib_pma_portcounters_ext *)
					    resp->data);
	}
	resp->mad_hdr.status = cpu_to_be16(status);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

int sroce_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	struct sroce_counters *cnt = &to_sdev(ibdev)->counters;
	struct sroce_pma_counts c;

	if (in->mad_hdr.mgmt_class != IB_MGMT_CLASS_PERF_MGMT)
		return IB_MAD_RESULT_SUCCESS;
	if (*out_mad_size < sizeof(*out))
		return IB_MAD_RESULT_FAILURE;

	c = (struct sroce_pma_counts) {
		.xmit_bytes = sroce_counter_read(cnt, SROCE_CNT_SENT_BYTES),
		.rcv_bytes = sroce_counter_read(cnt, SROCE_CNT_RCVD_BYTES),
		.xmit_pkts = sroce_counter_read(cnt, SROCE_CNT_SENT_PKTS),
		.rcv_pkts = sroce_counter_read(cnt, SROCE_CNT_RCVD_PKTS),
		.rcv_errors = sroce_counter_read(cnt, SROCE_CNT_RCVD_MALFORMED) +
			      sroce_counter_read(cnt, SROCE_CNT_RCVD_BAD_ICRC),
		.xmit_discards = sroce_counter_read(cnt, SROCE_CNT_XMIT_REFUSED) +
				 sroce_counter_read(cnt, SROCE_CNT_XMIT_GAVE_UP),
		.link_downed = sroce_counter_read(cnt, SROCE_CNT_LINK_DOWNED),
	};
	return sroce_pma_answer(&c, port_num, in, out);
}
