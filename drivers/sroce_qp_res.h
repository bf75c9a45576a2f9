/* SPDX-License-Identifier: GPL-2.0 */
/* A QP's engine state in the restrack dump (sroce_qp_res.c). */
#ifndef _SROCE_QP_RES_H
#define _SROCE_QP_RES_H

struct ib_qp;
struct sk_buff;

/* ib_device_ops.fill_res_qp_entry: `rdma res show qp -dd`. */
int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);

#endif /* _SROCE_QP_RES_H */
