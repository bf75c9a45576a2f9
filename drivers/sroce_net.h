/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RoCEv2 UDP sockets (port 4791, IPv4 and IPv6) of each network
 * namespace that holds an sroce device's netdev, and the receive entry
 * point.
 */
#ifndef _SROCE_NET_H
#define _SROCE_NET_H

struct net;
struct sroce_av;
struct sroce_dev;

int sroce_net_bind(struct sroce_dev *sdev);
void sroce_net_unbind(struct sroce_dev *sdev);
/*
 * The device of namespace @net whose netdev (or a VLAN above it) holds
 * @av's destination address, as the device a packet to it would reach
 * through the stack, and in @ndevp the netdev holding the address (the
 * VLAN's, which the packet arrives on); NULL if none. Caller holds
 * rcu_read_lock() (or has BH disabled) for as long as it uses either.
 */
struct sroce_dev *sroce_net_local_dev_rcu(struct net *net,
					  const struct sroce_av *av,
					  struct net_device **ndevp);

int sroce_net_init(void);
void sroce_net_exit(void);

#endif /* _SROCE_NET_H */
