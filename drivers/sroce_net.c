// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCEv2 UDP sockets: one IPv4 and one IPv6-only kernel UDP tunnel
 * socket bound to port 4791 in init_net, whose encap_rcv hook hands every
 * datagram to the receive path in the softirq that delivered it.
 *
 * rdma_rxe binds the same port, so a busy port at load time means it is
 * loaded; sroce then refuses to load (the two also share a driver id).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>
#include <net/udp_tunnel.h>

#include <sroce/wire.h>

#include "sroce_dev.h"
#include "sroce_net.h"
#include "sroce_recv.h"

/* Set at module init, cleared at exit; nothing else writes them. */
static struct socket *sroce_sock4;
static struct socket *sroce_sock6;

static int sroce_net_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct net_device *ndev = skb->dev;
	struct sroce_dev *sdev;

	sdev = sroce_dev_get_by_netdev(ndev);
	if (!sdev && is_vlan_dev(ndev))
		sdev = sroce_dev_get_by_netdev(vlan_dev_real_dev(ndev));
	if (!sdev) {
		kfree_skb(skb);
		return 0;
	}
	sroce_recv(sdev, skb);
	sroce_dev_put(sdev);
	return 0;
}

static struct socket *sroce_net_open(bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl_cfg = {
		.encap_type = 1,
		.encap_rcv = sroce_net_encap_rcv,
	};
	struct udp_port_cfg udp_cfg = {
		.family = ipv6 ? AF_INET6 : AF_INET,
		.ipv6_v6only = ipv6,
		.local_udp_port = htons(SROCE_UDP_PORT),
		/* RoCEv2 senders put 0 in the IPv6 UDP checksum too. */
		.use_udp6_rx_checksums = false,
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(&init_net, &udp_cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(&init_net, sock, &tnl_cfg);
	return sock;
}

static int sroce_net_open_failed(struct socket *sock)
{
	if (PTR_ERR(sock) == -EADDRINUSE)
		pr_err("UDP port %u is in use: sroce cannot be loaded together with rdma_rxe (unload rdma_rxe first)\n",
		       SROCE_UDP_PORT);
	else
		pr_err("cannot open the RoCEv2 UDP socket: %pe\n", sock);
	return PTR_ERR(sock);
}

int sroce_net_init(void)
{
	struct socket *sock;

	sock = sroce_net_open(false);
	if (IS_ERR(sock))
		return sroce_net_open_failed(sock);
	sroce_sock4 = sock;

	sock = sroce_net_open(true);
	if (IS_ERR(sock) && PTR_ERR(sock) != -EAFNOSUPPORT) {
		udp_tunnel_sock_release(sroce_sock4);
		return sroce_net_open_failed(sock);
	}
	/* A kernel booted with ipv6.disable=1 still runs RoCEv2 over IPv4. */
	sroce_sock6 = IS_ERR(sock) ? NULL : sock;
	return 0;
}

void sroce_net_exit(void)
{
	if (sroce_sock6)
		udp_tunnel_sock_release(sroce_sock6);
	udp_tunnel_sock_release(sroce_sock4);
	/* Let encap_rcv calls that already found a socket finish. */
	synchronize_net();
}
