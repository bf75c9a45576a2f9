/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sending RoCEv2 packets for a QP: skb allocation with room for every
 * header, IP/UDP encapsulation from the QP's address vector, ICRC, and the
 * hand-off to the IP stack (or straight to sroce_recv() when the
 * destination is this host).
 */
#ifndef _SROCE_XMIT_H
#define _SROCE_XMIT_H

#include <linux/types.h>

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
 * @skb. Returns 0, or -ENOBUFS when the local stack dropped it (qdisc
 * full): callers treat that as back-pressure and retry, never as loss.
 */
int sroce_xmit(struct sroce_qp *qp, struct sk_buff *skb);

/*
 * sroce_xmit_cnp() - send a CNP built in an skb from sroce_xmit_alloc()
 * to @qp's peer with the device's np_cnp_dscp, not ECN-capable. Consumes
 * @skb. Context: any, never sleeps.
 */
int sroce_xmit_cnp(struct sroce_qp *qp, struct sk_buff *skb);

/*
 * The QP's route cache (sroce_qp.dst_cache): set up at create_qp (may
 * sleep; returns 0 or -ENOMEM), forgotten when modify_qp changes the
 * address vector, freed at destroy_qp once nothing sends for the QP.
 */
int sroce_xmit_qp_init(struct sroce_qp *qp);
void sroce_xmit_qp_reset(struct sroce_qp *qp);
void sroce_xmit_qp_cleanup(struct sroce_qp *qp);

#endif /* _SROCE_XMIT_H */
