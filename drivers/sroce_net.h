/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RoCEv2 UDP sockets (port 4791, IPv4 and IPv6) of each network
 * namespace that holds an sroce device's netdev, and the receive entry
 * point.
 */
#ifndef _SROCE_NET_H
#define _SROCE_NET_H

struct sroce_dev;

int sroce_net_bind(struct sroce_dev *sdev);
void sroce_net_unbind(struct sroce_dev *sdev);

int sroce_net_init(void);
void sroce_net_exit(void);

#endif /* _SROCE_NET_H */
