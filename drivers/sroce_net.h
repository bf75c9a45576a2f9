/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RoCEv2 UDP sockets (port 4791, IPv4 and IPv6) and the receive entry
 * point.
 */
#ifndef _SROCE_NET_H
#define _SROCE_NET_H

int sroce_net_init(void);
void sroce_net_exit(void);

#endif /* _SROCE_NET_H */
