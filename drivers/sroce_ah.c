// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles. Each AH gets a non-zero ah_num: the rxe provider then
 * puts only that number in a UD WQE, never its own copy of the address
 * (which would let an unprivileged process choose its source address).
 * The same resolution turns a QP's primary path into its struct sroce_av.
 */
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "sroce_ah.h"
#include "sroce_dev.h"

/* A RoCEv2 GID is an IPv6 address, or an IPv4 one in v4-mapped form. */
static int sroce_av_addr(const union ib_gid *gid, int family, __be32 *v4,
			 struct in6_addr *v6)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;
	bool is_v4 = family == AF_INET;

	if (is_v4 != ipv6_addr_v4mapped(a))
		return -EINVAL;
	if (is_v4)
		*v4 = a->s6_addr32[3];
	else
		*v6 = *a;
	return 0;
}

int sroce_av_from_attr(struct sroce_av *av, const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	const struct ib_gid_attr *sgid_attr = grh->sgid_attr;
	struct net_device *ndev;
	int family, err, ifindex;

	/* RoCEv2 only: the IP header stands in for the GRH (IBTA A17.4). */
	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) || !sgid_attr ||
	    sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	/*
	 * The GID's netdev only within the RCU section: the core releases
	 * it through call_rcu() when the GID goes, references or not.
	 */
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	ifindex = IS_ERR(ndev) ? 0 : ndev->ifindex;
	rcu_read_unlock();
	if (!ifindex)
		return -ENODEV;

	memset(av, 0, sizeof(*av));
	family = rdma_gid_attr_network_type(sgid_attr) == RDMA_NETWORK_IPV4 ?
		 AF_INET : AF_INET6;
	err = sroce_av_addr(&sgid_attr->gid, family, &av->saddr.v4,
			    &av->saddr.v6);
	if (!err)
		err = sroce_av_addr(&grh->dgid, family, &av->daddr.v4,
				    &av->daddr.v6);
	if (err)
		return err;

	av->family = family;
	av->ifindex = ifindex;
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	av->traffic_class = grh->traffic_class;
	av->hop_limit = grh->hop_limit;
	av->flow_label = grh->flow_label;
	return 0;
}

/*
 * The AH table's lock gets a lockdep class of its own: xa_init_flags()
 * gives every xarray set up in one file the same class, and the AH
 * table's lock is taken with interrupts off under req.lock (a UD send
 * resolving its AH), while the QP table beside it in sroce_dev.c is
 * locked in process context with softirqs on. One class for both read as
 * a softirq-safe -> softirq-unsafe inversion (and switched lockdep off).
 */
static struct lock_class_key sroce_ah_table_key;

/* AHs come and go in atomic context too (rdma_destroy_ah()). */
void sroce_ah_table_init(struct xarray *xa)
{
	xa_init_flags(xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	lockdep_set_class(&xa->xa_lock, &sroce_ah_table_key);
}

/**
 * sroce_ah_gfp() - the allocation flags create_ah may use
 * @flags: rdma_ah_init_attr.flags
 *
 * Without RDMA_CREATE_AH_SLEEPABLE the caller may hold a spinlock with
 * interrupts off (ib_cm creates AHs under cm_id_priv->lock): no sleeping.
 */
gfp_t sroce_ah_gfp(u32 flags)
{
	return flags & RDMA_CREATE_AH_SLEEPABLE ? GFP_KERNEL : GFP_ATOMIC;
}

/**
 * sroce_ah_table_insert() - give @ah a number in @xa
 * @xa: the device's AH table (XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ)
 * @ah: the AH; ah->ah_num is set
 * @max: the largest number
 * @next: the cyclic allocation cursor
 * @gfp: sroce_ah_gfp() of the caller
 *
 * Context: any, with @gfp GFP_ATOMIC; the interrupt state is the caller's
 * again on return. (xa_alloc_cyclic_irq() would re-enable interrupts
 * inside a caller's spin_lock_irqsave().) With a blocking @gfp the xarray
 * may drop its lock to allocate; that only happens for a sleepable
 * caller, which has interrupts on.
 *
 * Return: 0, 1 if the numbers wrapped, -EBUSY when all are in use, or
 * -ENOMEM.
 */
int sroce_ah_table_insert(struct xarray *xa, struct sroce_ah *ah, u32 max,
			  u32 *next, gfp_t gfp)
{
	unsigned long flags;
	int err;

	xa_lock_irqsave(xa, flags);
	err = __xa_alloc_cyclic(xa, &ah->ah_num, ah, XA_LIMIT(1, max), next,
				gfp);
	xa_unlock_irqrestore(xa, flags);
	return err;
}

/* Context: any; the interrupt state is the caller's again on return. */
void sroce_ah_table_erase(struct xarray *xa, u32 ah_num)
{
	unsigned long flags;

	xa_lock_irqsave(xa, flags);
	__xa_erase(xa, ah_num);
	xa_unlock_irqrestore(xa, flags);
}

/*
 * Nothing on the create and destroy paths sleeps unless the core says it
 * may: the AV is resolved from the GID attribute under RCU (no route
 * lookup: routes are looked up when a packet is sent), the table takes
 * sroce_ah_gfp(), and only a user AH (always sleepable) copies to udata.
 */
int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	struct rxe_create_ah_resp resp = {};
	int err;

	err = sroce_av_from_attr(&ah->av, init->ah_attr);
	if (err)
		return err;

	if (atomic_inc_return(&sdev->num_ahs) > sdev->attr.max_ah) {
		err = -ENOSPC;
		goto err_count;
	}
	err = sroce_ah_table_insert(&sdev->ahs, ah, sdev->attr.max_ah,
				    &sdev->next_ah_num,
				    sroce_ah_gfp(init->flags));
	if (err < 0)
		goto err_count;

	if (udata && udata->outlen >= sizeof(resp)) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_erase;
	}
	return 0;

err_erase:
	sroce_ah_table_erase(&sdev->ahs, ah->ah_num);
err_count:
	atomic_dec(&sdev->num_ahs);
	return err;
}

/* Context: any (ib_cm destroys AHs under spin_lock_irqsave); never sleeps. */
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);

	sroce_ah_table_erase(&sdev->ahs, to_sah(ibah)->ah_num);
	atomic_dec(&sdev->num_ahs);
	return 0;
}
