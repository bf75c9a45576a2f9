/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receive demux: check a RoCEv2 datagram and hand it to its queue pair.
 */
#ifndef _SROCE_RECV_H
#define _SROCE_RECV_H

struct sk_buff;
struct sroce_dev;

void sroce_recv(struct sroce_dev *sdev, struct sk_buff *skb);

#endif /* _SROCE_RECV_H */
