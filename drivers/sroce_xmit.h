/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sending RoCEv2 packets for a QP: skb allocation with room for every
 * header, IP/UDP encapsulation from the QP's address vector, ICRC, and the
 * hand-off to the IP stack (or straight to sroce_recv() when the
 * destination is this host).
 */
#ifndef _SROCE_XMIT_H
#define _SROCE_XMIT_H

#include <linux/netdevice.h>
#include <linux/types.h>

#include "sroce_counters.h"

struct sk_buff;
struct sroce_av;
struct sroce_qp;

/*
 * sroce_xmit_alloc() - an skb for one packet of @qp: @hdr_len bytes of
 * transport headers (BTH and extension headers) followed by @paylen bytes
 * of payload, the pad and room for the ICRC. Returns the skb with *@bth
 * pointing at the transport headers, or NULL. Context: any.
 */
struct sk_buff *sroce_xmit_alloc(struct sroce_qp *qp, unsigned int hdr_len,
				 unsigned int paylen, void **bth);

/*
 * sroce_xmit_alloc_train() - an skb for a send train to @qp's peer, with
 * room for the headers and no data: sroce_train_add() adds the packets.
 * Returns NULL when out of memory. Context: any.
 */
struct sk_buff *sroce_xmit_alloc_train(struct sroce_qp *qp);

/*
 * sroce_xmit_alloc_av(), sroce_xmit_av() - the same for a packet that goes
 * where @av says rather than to the QP's peer (UD: the WQE's AH).
 */
struct sk_buff *sroce_xmit_alloc_av(struct sroce_qp *qp,
				    const struct sroce_av *av,
				    unsigned int hdr_len, unsigned int paylen,
				    void **bth);
int sroce_xmit_av(struct sroce_qp *qp, const struct sroce_av *av,
		  struct sk_buff *skb);

/*
 * sroce_xmit() - add UDP and IP headers and the ICRC and send. Consumes
 * @skb. Returns 0 when the packet left; -ENOBUFS when the local stack had
 * no room for it (a qdisc full, no memory): back-pressure, to be tried
 * again after sroce_xmit_backoff(); any other error when the stack
 * refused it (no route, a netfilter drop, the device down): a loss, which
 * retrying at once would not cure, counted in xmit_refused_pkts.
 */
int sroce_xmit(struct sroce_qp *qp, struct sk_buff *skb);

/*
 * sroce_xmit_result() - what sroce_xmit() makes of ip_local_out()'s @err.
 * NET_XMIT_CN queued the packet (or dropped it for congestion, as RED
 * does, which ECN and the retransmit timer answer); NET_XMIT_DROP,
 * -ENOBUFS and -ENOMEM (no room for a link-layer header, segmentation
 * out of memory) are a full queue or no memory; the rest is a refusal.
 */
static inline int sroce_xmit_result(struct sroce_counters *cnt, int err)
{
	if (err == NET_XMIT_SUCCESS || err == NET_XMIT_CN)
		return 0;
	if (err == NET_XMIT_DROP || err == -ENOBUFS || err == -ENOMEM)
		return -ENOBUFS;
	sroce_counter_inc(cnt, SROCE_CNT_XMIT_REFUSED);
	return err < 0 ? err : -EPERM;
}

/* Tries, 1, 2, 4 ... jiffies apart, before a packet counts as lost. */
#define SROCE_XMIT_BACKOFF_TRIES	8

/*
 * sroce_xmit_backoff() - the local stack pushed back on a packet again
 * (-ENOBUFS): how many jiffies to wait before trying it once more, or 0
 * when *@tries refusals in a row say it is lost (then *@tries restarts).
 * A stack that never drains thus costs a sender about a second per
 * packet, and the retransmit timer and retry_cnt bound what follows,
 * never a retry every jiffy for ever. Reset *@tries when a packet leaves.
 */
static inline unsigned long sroce_xmit_backoff(u8 *tries)
{
	if (*tries >= SROCE_XMIT_BACKOFF_TRIES) {
		*tries = 0;
		return 0;
	}
	return 1UL << (*tries)++;
}

/*
 * sroce_xmit_cnp() - send a CNP built in an skb from sroce_xmit_alloc()
 * to @qp's peer with the device's np_cnp_dscp, not ECN-capable. Consumes
 * @skb. Context: any, never sleeps.
 */
int sroce_xmit_cnp(struct sroce_qp *qp, struct sk_buff *skb);
/* The same for a CNP to where @av says (UD: the marked packet's sender). */
int sroce_xmit_cnp_av(struct sroce_qp *qp, const struct sroce_av *av,
		      struct sk_buff *skb);

/*
 * sroce_xmit_looping() - is this CPU delivering looped-back packets (a
 * packet to an address of this host), the caller among their receivers?
 * Context: BH disabled.
 */
bool sroce_xmit_looping(void);

/*
 * The QP's route cache (sroce_qp.dst_cache): set up at create_qp (may
 * sleep; returns 0 or -ENOMEM), forgotten when modify_qp changes the
 * address vector, freed at destroy_qp once nothing sends for the QP.
 */
int sroce_xmit_qp_init(struct sroce_qp *qp);
void sroce_xmit_qp_reset(struct sroce_qp *qp);
void sroce_xmit_qp_cleanup(struct sroce_qp *qp);
/*
 * The device's netdev leaves its namespace (NETDEV_UNREGISTER): release
 * every route its QPs cache and cache none until it has arrived in the
 * new one (NETDEV_REGISTER: thaw). Context: process, may sleep.
 */
void sroce_xmit_dev_freeze_routes(struct sroce_dev *sdev);
void sroce_xmit_dev_thaw_routes(struct sroce_dev *sdev);

#endif /* _SROCE_XMIT_H */
