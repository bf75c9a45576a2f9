// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCEv2 UDP sockets, per network namespace: one IPv4 and one
 * IPv6-only kernel UDP tunnel socket bound to port 4791, whose encap_rcv
 * hook hands every datagram to the receive path in the softirq that
 * delivered it.
 *
 * A namespace has its sockets while it holds an sroce device's netdev:
 * sroce_net_bind() opens them with the first, sroce_net_unbind() closes
 * them with the last. init_net keeps its pair from module load to unload,
 * so that a busy port there refuses the load: rdma_rxe binds the same port
 * in init_net (the two also share a driver id).
 *
 * Kernel sockets hold no reference on their namespace. A namespace's
 * netdevs are unregistered or moved out (NETDEV_UNREGISTER, where sroce_dev
 * unbinds) before its pernet exit runs, which unbinds whatever a race with
 * sroce_dev_newlink() left bound there: no device keeps a pointer to a
 * namespace that is gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include <sroce/wire.h>

#include "sroce_dev.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "sroce_recv.h"

/*
 * sroce_net_lock serialises every change of a namespace's users count,
 * sockets and devs list, and of sroce_dev.sock_net; it is taken under RTNL
 * (the netdev notifier) and never held while taking RTNL.
 */
static DEFINE_MUTEX(sroce_net_lock);

struct sroce_net {
	unsigned int users;	/* bound devices; init_net: + 1 for the module */
	struct socket *sock4;
	struct socket *sock6;	/* NULL without IPv6 */
	/*
	 * The devices bound here, on their sock_node: changed under
	 * sroce_net_lock, read under RCU by the receive path. A device is
	 * added once registered and removed, followed by synchronize_net(),
	 * before its netdev leaves or the device is freed, so a packet that
	 * found it may use it until its RCU read section ends.
	 */
	struct hlist_head devs;
};

static unsigned int sroce_net_id __read_mostly;

/*
 * The device bound to @ndev, from the list of @ndev's namespace (a bound
 * device's sock_net is its netdev's). A namespace holds a device or a
 * few, so a walk costs less than the two atomics of a device reference
 * per packet would.
 */
static struct sroce_dev *sroce_net_find_rcu(struct net_device *ndev)
{
	struct sroce_net *sn = net_generic(dev_net(ndev), sroce_net_id);
	struct sroce_dev *sdev;

	hlist_for_each_entry_rcu(sdev, &sn->devs, sock_node)
		if (sdev->ndev == ndev)
			return sdev;
	return NULL;
}

/* The device @ndev's packets belong to: a VLAN's, its real netdev's. */
static struct sroce_dev *sroce_net_dev_of_rcu(struct net_device *ndev)
{
	struct sroce_dev *sdev = sroce_net_find_rcu(ndev);

	if (!sdev && is_vlan_dev(ndev))
		sdev = sroce_net_find_rcu(vlan_dev_real_dev(ndev));
	return sdev;
}

struct sroce_dev *sroce_net_local_dev_rcu(struct net *net,
					  const struct sroce_av *av,
					  struct net_device **ndevp)
{
	struct net_device *ndev;

	if (av->family == AF_INET)
		ndev = __ip_dev_find(net, av->daddr.v4, false);
	else
		ndev = ipv6_dev_find(net, &av->daddr.v6, NULL);
	*ndevp = ndev;
	return ndev ? sroce_net_dev_of_rcu(ndev) : NULL;
}

static int sroce_net_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct sroce_dev *sdev;

	/* The IP layer delivers under RCU already; say so here. */
	rcu_read_lock();
	sdev = sroce_net_dev_of_rcu(skb->dev);
	if (sdev)
		sroce_recv(sdev, skb);
	else
		kfree_skb(skb);
	rcu_read_unlock();
	return 0;
}

static struct socket *sroce_net_open(struct net *net, bool ipv6)
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

	err = udp_sock_create(net, &udp_cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tnl_cfg);
	return sock;
}

static void sroce_net_close(struct sroce_net *sn)
{
	if (sn->sock6)
		udp_tunnel_sock_release(sn->sock6);
	udp_tunnel_sock_release(sn->sock4);
	sn->sock4 = NULL;
	sn->sock6 = NULL;
	/* Let encap_rcv calls that already found a socket finish. */
	synchronize_net();
}

/* One more user of @net's sockets, opened if it is the first. */
static int sroce_net_get(struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);
	struct socket *sock;

	lockdep_assert_held(&sroce_net_lock);
	if (sn->users) {
		sn->users++;
		return 0;
	}
	sock = sroce_net_open(net, false);
	if (IS_ERR(sock))
		return PTR_ERR(sock);
	sn->sock4 = sock;

	sock = sroce_net_open(net, true);
	if (IS_ERR(sock) && PTR_ERR(sock) != -EAFNOSUPPORT) {
		udp_tunnel_sock_release(sn->sock4);
		sn->sock4 = NULL;
		return PTR_ERR(sock);
	}
	/* A kernel booted with ipv6.disable=1 still runs RoCEv2 over IPv4. */
	sn->sock6 = IS_ERR(sock) ? NULL : sock;
	sn->users = 1;
	return 0;
}

static void sroce_net_put(struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);

	lockdep_assert_held(&sroce_net_lock);
	if (!WARN_ON_ONCE(!sn->users) && !--sn->users)
		sroce_net_close(sn);
}

static void sroce_net_port_busy(struct net *net, int err)
{
	if (err != -EADDRINUSE)
		pr_err("cannot open the RoCEv2 UDP socket: %pe\n", ERR_PTR(err));
	else if (net_eq(net, &init_net))
		pr_err("UDP port %u is in use: sroce cannot be loaded together with rdma_rxe (unload rdma_rxe first)\n",
		       SROCE_UDP_PORT);
	else
		pr_err("UDP port %u is in use in the netdev's network namespace: no sroce device there\n",
		       SROCE_UDP_PORT);
}

static void __sroce_net_unbind(struct sroce_dev *sdev)
{
	lockdep_assert_held(&sroce_net_lock);
	hlist_del_init_rcu(&sdev->sock_node);
	sroce_net_put(sdev->sock_net);
	sdev->sock_net = NULL;
	/* No packet still runs on the device once this returns. */
	synchronize_net();
}

/**
 * sroce_net_bind() - give a device the sockets of its netdev's namespace
 * @sdev: the device, bound there already, elsewhere, or not at all
 *
 * A device still bound to another namespace lets go of it first: its
 * netdev moved while the notifier could not see the device (see
 * sroce_dev_enable()).
 *
 * Context: process; takes sroce_net_lock. The netdev stays in its
 * namespace meanwhile (RTNL held, or the netdev just found by name).
 * Return: 0, or the error of opening the sockets.
 */
int sroce_net_bind(struct sroce_dev *sdev)
{
	struct net *net = dev_net(sdev->ndev);
	int err = 0;

	mutex_lock(&sroce_net_lock);
	if (sdev->sock_net && !net_eq(sdev->sock_net, net))
		__sroce_net_unbind(sdev);
	if (!sdev->sock_net) {
		err = sroce_net_get(net);
		if (!err) {
			struct sroce_net *sn = net_generic(net, sroce_net_id);

			sdev->sock_net = net;
			hlist_add_head_rcu(&sdev->sock_node, &sn->devs);
		}
	}
	mutex_unlock(&sroce_net_lock);
	if (err)
		sroce_net_port_busy(net, err);
	return err;
}

/**
 * sroce_net_unbind() - let go of the sockets sroce_net_bind() gave
 * @sdev: the device, bound or not
 *
 * Called when the netdev leaves its namespace (unregistered or moved) and
 * when the device goes; whichever comes first unbinds.
 *
 * Context: process; takes sroce_net_lock.
 */
void sroce_net_unbind(struct sroce_dev *sdev)
{
	mutex_lock(&sroce_net_lock);
	if (sdev->sock_net)
		__sroce_net_unbind(sdev);
	mutex_unlock(&sroce_net_lock);
}

static void __net_exit sroce_net_ns_exit(struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);
	struct hlist_node *next;
	struct sroce_dev *sdev;

	mutex_lock(&sroce_net_lock);
	hlist_for_each_entry_safe(sdev, next, &sn->devs, sock_node)
		__sroce_net_unbind(sdev);
	/* Only init_net, at unload, still has a user here (the module). */
	if (sn->users) {
		WARN_ON_ONCE(!net_eq(net, &init_net));
		sn->users = 0;
		sroce_net_close(sn);
	}
	mutex_unlock(&sroce_net_lock);
}

static struct pernet_operations sroce_net_ops = {
	.exit = sroce_net_ns_exit,
	.id = &sroce_net_id,
	.size = sizeof(struct sroce_net),
};

int sroce_net_init(void)
{
	int err;

	err = register_pernet_subsys(&sroce_net_ops);
	if (err)
		return err;
	mutex_lock(&sroce_net_lock);
	err = sroce_net_get(&init_net);
	mutex_unlock(&sroce_net_lock);
	if (err) {
		sroce_net_port_busy(&init_net, err);
		unregister_pernet_subsys(&sroce_net_ops);
	}
	return err;
}

void sroce_net_exit(void)
{
	/* Every device is gone: init_net's module reference is the last. */
	mutex_lock(&sroce_net_lock);
	sroce_net_put(&init_net);
	mutex_unlock(&sroce_net_lock);
	unregister_pernet_subsys(&sroce_net_ops);
}
