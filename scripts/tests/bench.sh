#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The `make bench` job, run in two guests by scripts/bench.sh: iperf3 TCP on
# the link (the ceiling), then the same perftest runs over sroce and over
# the stock rdma_rxe, one after the other in the same guests, in ROUNDS
# alternating rounds (sroce, rxe, sroce, rxe...) so that a load change on
# the host shows as spread rather than as a difference. Guest 0 serves,
# guest 1 is the client. Each guest writes /job/bench.csv with one row per
# run: round,impl,test,size,value,unit,cpu_s,bytes (value and bytes only on
# the client; cpu_s is this guest's busy CPU time during the run, from
# cpu_busy_since in guest-lib.sh, bytes what the run moved).
#
#   bench.sh [quick] [ROUNDS] [duration=S] [trains] [window] [rto] [loss=P]
#            [base]
#
# quick: 64 KiB only; ROUNDS: default 1. Each bandwidth point runs for
# about S seconds (default 20), so that it shows the steady state, not
# the start-up, which a short run before it shows (TOOL_short). trains:
# sroce also runs with send trains off (tx_trains 0), as sroce-notrain.
# window: sroce also runs with a fixed send window (tx_adaptive_window 0),
# as sroce-fixedwin. rto: sroce also runs without its early retransmit
# (tx_rtt_retransmit 0), as sroce-nortt. loss=P: netem drops P percent of
# the packets each guest sends, TCP's included, for the whole job. base:
# /job/sroce-base.ko (scripts/bench.sh base=KO) runs too, as sroce-base.
# uso: sroce also runs with the NIC's UDP segmentation offload on
# (ethtool tx-udp-segmentation, which virtio-net offers under QEMU 10
# and leaves off) and tx_trains 2, so that its trains cross virtio
# whole, as sroce-uso.
# loopback: each implementation also runs ib_write_bw and ib_read_bw at
# 64 KiB (with two vCPUs also ib_send_bw and ib_send_lat) with server and
# client both in guest 0, to its own address (recorded as lo_TOOL, with
# TCP as tcp-lo); guest 0 then records the value, and no passive CPU
# figure (the client polls).

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

quick='' rounds=1 duration=20 variants=() loss='' loopback=''
for arg in "$@"; do
	case $arg in
	quick) quick=1 ;;
	[1-9]) rounds=$arg ;;
	duration=[1-9]*) duration=${arg#duration=} ;;
	trains) variants+=(sroce-notrain) ;;
	window) variants+=(sroce-fixedwin) ;;
	rto) variants+=(sroce-nortt) ;;
	base) variants+=(sroce-base) ;;
	loss=[0-9]*) loss=${arg#loss=} ;;
	loopback) loopback=1 ;;
	uso) variants+=(sroce-uso) ;;
	*) bail "unknown argument '$arg'" ;;
	esac
done
impls=(sroce "${variants[@]}" rxe)
if [ -n "$loss" ]; then
	modprobe sch_netem 2>/dev/null
	check "netem loss $loss%" tc qdisc replace dev eth0 root netem loss "$loss%"
fi
# Whether the NIC segments UDP (then trains cross it whole, see
# sroce_train.c), and its packet counts before and after, for the record.
ethtool -k eth0 | grep -E '^tx-udp-segmentation' | sed 's/^/eth0 /'
ip -s link show eth0 >/job/eth0-before.txt
csv=/job/bench.csv
echo "round,impl,test,size,value,unit,cpu_s,bytes" >"$csv"
round=0
port=19000
TOOL_TIMEOUT=$((duration * 3 + 120))
# The guest that runs the clients, and their destination; loopback sets
# them to guest 0 and its own address.
client_id=1
dest=$PEER_IP4
pfx=''

# record IMPL TEST SIZE VALUE UNIT START_MARK [BYTES] (cpu_mark)
record() {
	echo "$round,$1,$2,$3,$4,$5,$(cpu_busy_since "$6"),${7:-}" >>"$csv"
}

# perftest_value TOOL LOG: MB/s average for *_bw, typical usec for *_lat.
perftest_value() {
	case $1 in
	*_bw) awk '$1 ~ /^[0-9]+$/ && NF >= 5 { v = $4 } END { print v }' "$2" ;;
	*_lat) awk '$1 ~ /^[0-9]+$/ && NF >= 5 { v = $5 } END { print v }' "$2" ;;
	esac
}

# perftest_bytes LOG: bytes moved (size times iterations) by a *_bw run.
perftest_bytes() {
	awk '$1 ~ /^[0-9]+$/ && NF >= 5 { v = $1 * $2 } END { printf "%.0f", v }' "$1"
}

# perftest IMPL TOOL SIZE ITERS NAME: one perftest run on device $dev,
# recorded as test NAME; the client leaves its value in $val.
perftest() {
	local impl=$1 tool=$2 size=$3 iters=$4 name=$5 gid start log args spid
	gid=$(roce_gid_index "$dev" "$GUEST_IP4")
	args="-d $dev -x $gid -p $port -F -s $size -n $iters"
	# The port tells apart the runs of one test in a round (latency: 3).
	log=/job/$round-$impl-$name-$size-$port
	barrier "$impl-$name-$size-start"
	start=$(cpu_mark)
	val=
	if [ "$GUEST_ID" = 0 ]; then
		# shellcheck disable=SC2086
		timeout $TOOL_TIMEOUT "$tool" $args >"$log.server" 2>&1 &
		spid=$!
	fi
	barrier "$impl-$name-$size-up"
	if [ "$GUEST_ID" = "$client_id" ]; then
		# shellcheck disable=SC2086
		run_client "$log.client" "$tool" $args "$dest"
		val=$(perftest_value "$tool" "$log.client")
		check "$impl $name -s $size -n $iters" test -n "$val"
	fi
	if [ "$GUEST_ID" = 0 ]; then
		wait "$spid"
	fi
	if [ "$GUEST_ID" != "$client_id" ]; then
		record "$impl" "$name" "$size" "" "" "$start"
	else
		case $tool in
		*_bw) record "$impl" "$name" "$size" "$val" MB/s "$start" \
			"$(perftest_bytes "$log.client")" ;;
		*) record "$impl" "$name" "$size" "$val" usec "$start" ;;
		esac
	fi
	port=$((port + 1))
}

# run IMPL TOOL SIZE: a latency test of 1000 iterations, or a bandwidth
# test in two runs: a short one of about 6 MiB (the start-up figure,
# recorded as TOOL_short), and from its rate one sized to take $duration
# seconds (the steady state, recorded as TOOL). perftest's own duration
# mode (-D) prints no bandwidth under TCG, and both sides must agree on
# the count: the client passes it on through /shared.
run() {
	local impl=$1 tool=$2 size=$3 iters
	case $tool in
	*_lat)
		perftest "$impl" "$tool" "$size" 1000 "$pfx$tool"
		return
		;;
	esac
	iters=$((6 * 1024 * 1024 / size))
	[ $iters -ge 20 ] || iters=20
	perftest "$impl" "$tool" "$size" "$iters" "${pfx}${tool}_short"
	if [ "$GUEST_ID" = "$client_id" ]; then
		iters=$(awk -v v="${val:-0}" -v d="$duration" -v s="$size" \
			'BEGIN { n = int(v * 1e6 * d / s); print (n < 20 ? 20 : n) }')
		echo "$iters" >"/shared/bench-iters"
	fi
	barrier "$impl-$pfx$tool-$size-iters"
	iters=$(cat /shared/bench-iters)
	perftest "$impl" "$tool" "$size" "$iters" "$pfx$tool"
}

# iperf3_mbs JSON: the MB/s an iperf3 client's JSON report says arrived.
iperf3_mbs() {
	python3 -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 8e6))' "$1"
}

# --- TCP ceiling ------------------------------------------------------------
barrier tcp-start
start=$(cpu_mark)
if [ "$GUEST_ID" = 0 ]; then
	iperf3 -s -1 >/job/iperf3.server 2>&1 &
	barrier tcp-up
	wait $!
	record tcp iperf3 0 "" "" "$start"
else
	barrier tcp-up
	sleep 1
	iperf3 -c "$PEER_IP4" -t "$duration" -J >/job/iperf3.json 2>&1
	val=$(iperf3_mbs /job/iperf3.json)
	check "iperf3 TCP" test -n "$val"
	record tcp iperf3 0 "$val" MB/s "$start"
fi
if [ -n "$loopback" ]; then
	barrier tcp-lo-start
	if [ "$GUEST_ID" = 0 ]; then
		start=$(cpu_mark)
		iperf3 -s -1 >/job/iperf3-lo.server 2>&1 &
		sleep 1
		iperf3 -c "$GUEST_IP4" -t "$duration" -J >/job/iperf3-lo.json 2>&1
		wait $!
		val=$(iperf3_mbs /job/iperf3-lo.json)
		check "iperf3 TCP loopback" test -n "$val"
		record tcp-lo iperf3 0 "$val" MB/s "$start"
	fi
	barrier tcp-lo-done
fi

sizes="1024 4096 16384 65536 262144 1048576 4194304"
[ -n "$quick" ] && sizes="65536"
for round in $(seq "$rounds"); do
	for impl in "${impls[@]}"; do
		type=${impl%%-*}
		dev=${type}0
		SROCE_KO=/job/sroce.ko
		[ "$impl" = sroce-base ] && SROCE_KO=/job/sroce-base.ko
		check "load $impl" load_link_module "$type" || continue
		check "add $dev" rdma link add "$dev" type "$type" netdev eth0
		wait_port_active "$dev"
		value=0
		case $impl in
		sroce-uso)
			check "eth0 tx-udp-segmentation on" \
				ethtool -K eth0 tx-udp-segmentation on
			param=tx_trains value=2
			;;
		sroce-notrain) param=tx_trains ;;
		sroce-fixedwin) param=tx_adaptive_window ;;
		sroce-nortt) param=tx_rtt_retransmit ;;
		*) param= ;;
		esac
		if [ -n "$param" ]; then
			check "$param $value" set_cc_params "$dev" "$param=$value"
		fi
		for tool in ib_write_bw ib_send_bw ib_read_bw; do
			for size in $sizes; do
				run "$impl" "$tool" "$size"
			done
		done
		# A latency figure moves most with the host's load: three each.
		for _ in 1 2 3; do
			run "$impl" ib_send_lat 2
			run "$impl" ib_write_lat 2
		done
		if [ -n "$loopback" ]; then
			pfx=lo_ client_id=0 dest=$GUEST_IP4
			lo_tools=(ib_write_bw ib_read_bw)
			# Both perftest processes poll: on one vCPU they take
			# turns at the scheduler's tick, and ib_send_bw and the
			# latency test then print 0 or inf (measured 2026-12-05).
			[ "$(nproc)" -lt 2 ] || lo_tools+=(ib_send_bw ib_send_lat)
			for tool in "${lo_tools[@]}"; do
				case $tool in
				*_lat) for _ in 1 2 3; do run "$impl" "$tool" 2; done ;;
				*) run "$impl" "$tool" 65536 ;;
				esac
			done
			pfx='' client_id=1 dest=$PEER_IP4
		fi
		[ "$type" != sroce ] || dump_counters "$dev"
		[ "$impl" != sroce-uso ] || ethtool -K eth0 tx-udp-segmentation off
		rdma link delete "$dev"
		case $type in
		sroce) rmmod sroce ;;
		rxe) rmmod rdma_rxe ;;
		esac
	done
done
ip -s link show eth0 >/job/eth0-after.txt
summary
