#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC traffic with every byte verified, under link faults, run by
# scripts/vm-run.sh in two guests (with -f .../rc-verify):
#
#   faults.sh pair TYPE0 TYPE1 [quick|long] [servers=0|1|both] [seed=N]
#             [FAULT...]
#
# Guest N runs link type TYPEn (sroce or rxe). rc-verify
# (scripts/tests/rc-verify.c) runs between the guests, with guest 0 as
# server, guest 1 or each in turn (servers=, default both), under each
# FAULT (default: all of them):
#
#   baseline   no fault
#   loss1      netem loss 1% on the egress of both guests
#   loss5      netem loss 5% on both
#   reorder    netem delay 4ms reorder 25% 50% on both
#   dup        netem duplicate 5% on both
#   corrupt    netem corrupt 2% on both: each corrupted RoCE packet must be
#              dropped, so an sroce receiver's rcvd_bad_icrc_pkts or,
#              for packets of send trains, which carry a UDP checksum
#              that the stack checks first, the UDP InCsumErrors must grow
#
# An sroce client's requester, with the early retransmit on, must cut its
# send window on each retransmit timeout and each early retransmit
# (drivers/sroce_req_win.h, sroce_req_rto.h): window_cuts grows as completer_retry_err and
# early_retransmits together do; across the link flap both kinds must
# come, the early ones first (the QPs' timeout is far longer than the
# round trips measured before the flap), if a packet was left
# unacknowledged across it: rc-verify's client posts each operation only
# when the server says it is ready (over TCP), so with the server's link
# down it may wait with nothing in flight (CI, 2026-12-06: twice in a row
# on an idle host). While each run lasts, the client's RC QPs are sampled
# every 0.5 s (rdma res show qp -dd): a QP with unacknowledged PSNs must
# have its retransmit or RNR timer armed, or its requester queued or
# running, or be stopped; the same state without any of these in two
# samples in a row would hang on the next lost packet and fails the run.
#   linkdown   guest 0 takes eth0 down for 4 s, 1 s after the client's
#              first operation completed. 4 s: the whole timeout comes
#              1.07 s after the last answer, and a timer that fires late
#              (a vCPU not run) is extended once by its lateness, up to
#              another 1.07 s; a 2 s flap could end before it (a CI run
#              of 2026-12-05: 12 early retransmits, no timeout)
#
# Every run must verify all its data (SEND, WRITE, WRITE with immediate,
# READ, fetch-and-add, compare-and-swap) and end without an error
# completion. The QPs' local ACK timeout is 4.096 us * 2^18 = 1.07 s for
# linkdown (retry_cnt 7: 8 attempts span 8.6 s, more than the 4 s without
# link) and 2^17 = 0.54 s otherwise. quick (make check) keeps the runs
# small; long (make faults) adds 32 QPs at up to 1 MiB and 16 MiB
# messages. Each run is one check, each counter check another.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

[ "$1" = pair ] || bail "usage: faults.sh pair TYPE0 TYPE1 [quick|long] [servers=...] [FAULT...]"
types=("$2" "$3")
mytype=${types[$GUEST_ID]}
dev=${mytype}0
shift 3
size=quick servers=(0 1) faults=() seed=
for opt in "$@"; do
	case $opt in
	quick|long) size=$opt ;;
	servers=*) set_servers "$opt" ;;
	seed=[0-9]*) seed=${opt#seed=} ;;
	baseline|loss1|loss5|reorder|dup|corrupt|linkdown) faults+=("$opt") ;;
	*) bail "unknown option '$opt'" ;;
	esac
done
[ ${#faults[@]} -gt 0 ] || faults=(baseline loss1 loss5 reorder dup corrupt linkdown)
prog=/job/rc-verify
[ -x $prog ] || bail "no $prog: pass -f .../rc-verify to vm-run.sh"

link_up "$mytype" "$dev"
# sroce's early retransmit (off by default) runs under every fault here.
[ "$mytype" != sroce ] ||
	set_cc_params "$dev" tx_rtt_retransmit=1 ||
	bail "cannot turn the early retransmit on"
gid=$(roce_gid_index "$dev" "$GUEST_IP4") || bail "no RoCE v2 GID for $GUEST_IP4"
addrs_ready peer
modprobe sch_netem 2>/dev/null
port=19100
# The runs' seeds: seed= or one guest 0 picks; run N uses SEED + N.
if [ -z "$seed" ] && [ "$GUEST_ID" = 0 ]; then
	seed=$((RANDOM * 32768 + RANDOM))
	echo "$seed" >/shared/faults-seed
fi
barrier seed
[ -n "$seed" ] || seed=$(cat /shared/faults-seed)
echo "# seed $seed (faults.sh ... seed=$seed repeats these runs)"

# The runs of one fault: rc-verify options, one run per line.
runs_of() {
	local t=17
	[ "$1" = linkdown ] && t=18
	if [ "$size" = quick ]; then
		case $1 in
		linkdown) echo "-q 8 -w 4 -m 65536 -n 0 -D 8 -t $t" ;;
		# Three: a requester livelock after rewinds under reordering
		# (fixed in sroce_req_seek()) failed about one run in ten.
		reorder) printf -- "-q 8 -w 4 -m 262144 -n 32 -t $t\n%.0s" 1 2 3 ;;
		*) echo "-q 8 -w 4 -m 262144 -n 32 -t $t" ;;
		esac
		return
	fi
	case $1 in
	linkdown) echo "-q 32 -w 4 -m 1048576 -n 0 -D 12 -t $t" ;;
	*) echo "-q 32 -w 4 -m 1048576 -n 24 -t $t" ;;
	esac
	case $1 in
	baseline|loss1|reorder|dup) echo "-q 4 -w 2 -m 16777216 -n 6 -t $t" ;;
	esac
}

# fault_on FAULT / fault_off: this guest's part of FAULT.
fault_on() {
	case $1 in
	loss1) tc qdisc add dev eth0 root netem loss 1% ;;
	loss5) tc qdisc add dev eth0 root netem loss 5% ;;
	reorder) tc qdisc add dev eth0 root netem delay 4ms reorder 25% 50% ;;
	dup) tc qdisc add dev eth0 root netem duplicate 5% ;;
	corrupt) tc qdisc add dev eth0 root netem corrupt 2% ;;
	*) true ;;
	esac
}

fault_off() {
	tc qdisc del dev eth0 root 2>/dev/null
	true
}

counter() {
	cat "/sys/class/infiniband/$dev/ports/1/hw_counters/$1" 2>/dev/null || echo 0
}

# qp_sampler LOG: every 0.5 s until killed, a line per RC QP of $dev with
# unacknowledged PSNs: uptime, QPN, una, psn-high, and 1 if something will
# move it on (a timer armed, the requester queued or running, the QP
# stopped), else 0.
qp_sampler() {
	local up
	while :; do
		read -r up _ </proc/uptime
		rdma res show qp link "$dev/1" -dd 2>/dev/null | awk -v t="$up" '
		{
			q = una = high = ""; live = 0
			for (i = 1; i < NF; i++) {
				if ($i == "lqpn") q = $(i + 1)
				else if ($i == "drv_una") una = $(i + 1)
				else if ($i == "drv_psn-high") high = $(i + 1)
				else if ($i ~ /^drv_(retry-timer|rnr-timer|rnr-wait|stopped|work|running)$/)
					live = 1
			}
			if (una != "" && una != high) print t, q, una, high, live
		}'
		sleep 0.5
	done >"$1"
}

# qp_samples_dead LOG: the QPs that had unacknowledged PSNs and nothing to
# move them on in two samples in a row, with the same una and psn-high.
qp_samples_dead() {
	awk '$1 != last { n++; last = $1 }
	     $5 == 0 {
		k = $2 " " $3 " " $4
		if ((k in dead) && dead[k] == n - 1) bad[$2] = 1
		dead[k] = n
	     }
	     END { for (q in bad) printf "%s ", q }' "$1"
}

# qp_samples_stuck LOG: true if some QP kept the same unacknowledged PSNs
# for 3 s or more: longer than linkdown's 1.07 s timeout, extended once
# by a late timer, plus a sample, so a timeout must have come.
qp_samples_stuck() {
	awk '{ k = $2 " " $3 " " $4; if (!(k in first)) first[k] = $1
	       if ($1 - first[k] >= 3) stuck = 1 }
	     END { exit !stuck }' "$1"
}

# flap: eth0 down for 4 s, 1 s after the client's first operation
# completed (/shared/flowing-PORT): under TCG, setting up the QPs may take
# longer than any fixed delay, and a flap before the traffic tests nothing.
flap() {
	for _ in $(seq 300); do
		[ -e "/shared/flowing-$port" ] && break
		sleep 0.1
	done
	sleep 1
	ip link set dev eth0 down
	sleep 4
	ip link set dev eth0 up
}

# one_run SERVER FAULT OPTS: one rc-verify run; both guests call it.
one_run() {
	local server=$1 fault=$2 opts=$3 log t0=$SECONDS rc spid fpid='' wpid='' icrc0 csum0 cuts0 rto0 d r
	local qpid='' dead
	local s=$((seed + port - 19100)) limit=150
	[ "$size" = long ] && limit=900
	local desc="$fault: rc-verify $opts -s $s (${types[$server]} server, ${types[1 - server]} client)"
	log=/job/rcv-$port-$fault
	fault_on "$fault" || fail "$fault: tc qdisc on eth0"
	icrc0=$(counter rcvd_bad_icrc_pkts)
	csum0=$(udp_csum_errors)
	cuts0=$(counter window_cuts)
	rto0=$(counter completer_retry_err)
	early0=$(counter early_retransmits)
	barrier "run-$port-setup"
	if [ "$GUEST_ID" = "$server" ]; then
		timeout $limit $prog server "$dev" "$gid" $port >"$log.server" 2>&1 &
		spid=$!
	fi
	barrier "run-$port-up"
	[ "$fault" = linkdown ] && [ "$GUEST_ID" = 0 ] && { flap & fpid=$!; }
	if [ "$GUEST_ID" = "$server" ]; then
		wait "$spid"
		rc=$?
		sed 's/^/#   /' "$log.server"
		check "$desc, server exit $rc" test $rc -eq 0
	else
		if [ "$fault" = linkdown ]; then
			(until grep -qs "traffic flowing" "$log.client"; do
				sleep 0.1
			done
			touch "/shared/flowing-$port") &
			wpid=$!
		fi
		if [ "$mytype" = sroce ]; then
			qp_sampler "$log.qps" &
			qpid=$!
		fi
		# shellcheck disable=SC2086 # $opts holds several options
		timeout $limit $prog $opts -s $s -T 60 client "$dev" "$gid" $port \
			"$PEER_IP4" >"$log.client" 2>&1
		rc=$?
		[ -z "$wpid" ] || kill "$wpid" 2>/dev/null
		[ -z "$qpid" ] || { kill "$qpid"; wait "$qpid"; } 2>/dev/null
		sed 's/^/#   /' "$log.client"
		check "$desc, client exit $rc" test $rc -eq 0
	fi
	[ -z "$fpid" ] || wait "$fpid"
	if [ "$fault" = corrupt ] && [ "$mytype" = sroce ]; then
		d=$(($(counter rcvd_bad_icrc_pkts) - icrc0))
		r=$(($(udp_csum_errors) - csum0))
		check "$fault: corrupted packets were dropped (rcvd_bad_icrc_pkts +$d, UDP InCsumErrors +$r)" \
			test $((d + r)) -gt 0
	fi
	if [ "$mytype" = sroce ] && [ "$GUEST_ID" != "$server" ]; then
		d=$(($(counter window_cuts) - cuts0))
		r=$(($(counter completer_retry_err) - rto0))
		e=$(($(counter early_retransmits) - early0))
		dead=$(qp_samples_dead "$log.qps")
		check "$fault: every QP of $dev with unacknowledged packets had a timer armed or its requester queued (QPs without: ${dead:-none})" \
			test -z "$dead"
		local want_rto=no
		if [ "$fault" = linkdown ]; then
			if qp_samples_stuck "$log.qps"; then
				want_rto=yes
			else
				echo "# $fault: no packet stayed unacknowledged for 3 s: the client waited for its server; no timeout required"
			fi
		fi
		check "$fault: $dev's requester cut its send window on each retransmit timeout and early retransmit (window_cuts +$d, completer_retry_err +$r, early_retransmits +$e)" \
			test "$d" -eq $((r + e)) -a \( "$want_rto" = no -o "$r" -gt 0 -a "$e" -gt 0 \)
	fi
	fault_off
	if [ "$fault" = linkdown ]; then
		ip link set dev eth0 up
		wait_port_active "$dev" 20 || fail "$dev not active after the flap"
	fi
	barrier "run-$port-done"
	echo "# $fault run on port $port: $((SECONDS - t0)) s"
	port=$((port + 1))
}

for server in "${servers[@]}"; do
	for f in "${faults[@]}"; do
		mapfile -t runs <<<"$(runs_of "$f")"
		for opts in "${runs[@]}"; do
			one_run "$server" "$f" "$opts"
		done
	done
done

tc -s qdisc show dev eth0 | sed 's/^/# /'
dump_counters "$dev"
rdma link delete "$dev"
summary
