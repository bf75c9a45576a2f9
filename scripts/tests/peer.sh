#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A hostile, lossy peer, run by scripts/vm-run.sh on two guests:
#
#   peer.sh [CASE...]   (with -f .../sroce.ko -f .../sroce_fuzz_test
#                        -f .../roce-peer.py -f .../roce-inject.py)
#
# Guest 0 runs sroce and `sroce_fuzz_test peer`, which creates RC QPs,
# memory regions and windows on request; guest 1 has no RoCE device and
# runs roce-peer.py, which speaks RoCEv2 by hand toward those QPs: it falls
# silent after a WRITE FIRST while the MR is deregistered (dereg must
# return at once), writes on through windows revoked between two packets
# (NAK, nothing lands), sends a WRITE again after a READ (the ACK names the
# WRITE's PSN), asks for a READ again from its middle (the answer opens
# with FIRST), asks for a 1 MiB READ again from its ninth packet while
# the answer streams (the stream restarts at once), NAKs a READ for ever (retry_cnt is spent on timeouts
# only), loses a READ's response but answers the FETCH_ADD behind it (the
# READ is asked again at once), answers a READ but never the FETCH_ADD
# behind it (resent before the timeout, no retry spent on that), answers
# a READ after 320 ms and the next after 750 ms against a 537 ms timeout
# and retry_cnt 0 (the timeout stretches toward the measured round trip;
# a third, unanswered, still fails), pauses
# a READ's responses and then goes on with them (with a WRITE behind the
# READ no early re-ask; alone, the early re-ask counts as spurious, and a
# shorter pause then passes without one), answers a
# READ only after a timeout's probe of the WRITE before it (the requester
# goes on at once), opens the window of a READ longer than it (the
# WRITE behind goes), answers a READ first with a NAK in its READ RESPONSE
# (dropped; the READ asked again completes), and RNR NAKs a SEND twice at
# once (one refusal: rnr_retry 1 still lets it complete).
# Each "ok - " line of either program is one check.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

dev=sroce0
dir=/shared/peer
log=/job/peer.log
counter() {
	cat "/sys/class/infiniband/$dev/ports/1/hw_counters/$1"
}

if [ "$GUEST_ID" = 0 ]; then
	link_up sroce "$dev"
	# The early retransmit (off by default) is what early-rto checks.
	# No send trains: reask-read needs the 1 MiB READ's answer to be
	# still streaming when the peer's second request comes, and in
	# trains of 64 packets a debug kernel sent all 1024 before Python
	# got it out (2026-12-04, twice in a row).
	set_cc_params "$dev" tx_rtt_retransmit=1 tx_trains=0 ||
		bail "cannot set the peer test's cc_params"
	gid=$(roce_gid_index "$dev" "$GUEST_IP4") || bail "no RoCE v2 GID"
	addrs_ready peer
	rm -rf "$dir"
	mkdir -p "$dir"
	viol=$(counter resp_rkey_violation)
	timeout 300 /job/sroce_fuzz_test peer "$dev" "$gid" "$PEER_IP4" "$dir" \
		>"$log" 2>&1 &
	pid=$!
	barrier peer-up
	wait $pid
	rc=$?
	prog_results "sroce_fuzz_test peer" "$rc" "$log"
	# One NAK each: the WRITE after dereg and through the two windows.
	[ $# -gt 0 ] || check "resp_rkey_violation counts the 3 revoked accesses" \
		test $(($(counter resp_rkey_violation) - viol)) -eq 3
	dump_counters "$dev"
	barrier peer-done
	rdma link delete "$dev" || fail "rdma link delete"
	check "rmmod sroce" rmmod sroce
else
	addrs_ready peer
	barrier peer-up
	for _ in $(seq 100); do
		[ -e "$dir/info" ] && break
		sleep 0.1
	done
	timeout 280 python3 /job/roce-peer.py "$GUEST_IP4" "$PEER_IP4" "$dir" \
		"$@" >"$log" 2>&1
	rc=$?
	prog_results "roce-peer.py" "$rc" "$log"
	barrier peer-done
fi
summary
