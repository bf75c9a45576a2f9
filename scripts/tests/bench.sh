#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The `make bench` job, run in two guests by scripts/bench.sh: iperf3 TCP on
# the link (the ceiling), then the same perftest runs over sroce and over
# the stock rdma_rxe, one after the other in the same guests, in ROUNDS
# alternating rounds (sroce, rxe, sroce, rxe...) so that a load change on
# the host shows as spread rather than as a difference. Guest 0 serves,
# guest 1 is the client. Each guest writes /job/bench.csv with one row per
# run: round,impl,test,size,value,unit,cpu_s (value only on the client;
# cpu_s is this guest's busy CPU time during the run).
#
#   bench.sh [quick] [ROUNDS]   quick: fewer sizes; ROUNDS: default 2

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

quick='' rounds=2
for arg in "$@"; do
	case $arg in
	quick) quick=1 ;;
	[1-9]) rounds=$arg ;;
	*) bail "unknown argument '$arg'" ;;
	esac
done
csv=/job/bench.csv
echo "round,impl,test,size,value,unit,cpu_s" >"$csv"
round=0
port=19000
TOOL_TIMEOUT=300

# busy_jiffies: non-idle CPU time of this guest so far, in USER_HZ ticks.
busy_jiffies() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# record IMPL TEST SIZE VALUE UNIT START_JIFFIES
record() {
	local cpu
	cpu=$(awk -v a="$6" -v b="$(busy_jiffies)" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "%.3f", (b - a) / hz }')
	echo "$round,$1,$2,$3,$4,$5,$cpu" >>"$csv"
}

# perftest_value TOOL LOG: MB/s average for *_bw, typical usec for *_lat.
perftest_value() {
	case $1 in
	*_bw) awk '$1 ~ /^[0-9]+$/ && NF >= 5 { v = $4 } END { print v }' "$2" ;;
	*_lat) awk '$1 ~ /^[0-9]+$/ && NF >= 5 { v = $5 } END { print v }' "$2" ;;
	esac
}

# run IMPL TOOL SIZE ITERS
run() {
	local impl=$1 tool=$2 size=$3 iters=$4 dev=${1}0 gid start log args val
	gid=$(roce_gid_index "$dev" "$GUEST_IP4")
	args="-d $dev -x $gid -p $port -F -s $size -n $iters"
	log=/job/$round-$impl-$tool-$size
	barrier "$impl-$tool-$size-start"
	start=$(busy_jiffies)
	if [ "$GUEST_ID" = 0 ]; then
		# shellcheck disable=SC2086
		timeout $TOOL_TIMEOUT "$tool" $args >"$log.server" 2>&1 &
		barrier "$impl-$tool-$size-up"
		wait $!
		record "$impl" "$tool" "$size" "" "" "$start"
	else
		barrier "$impl-$tool-$size-up"
		sleep 1
		# shellcheck disable=SC2086
		timeout $TOOL_TIMEOUT "$tool" $args "$PEER_IP4" >"$log.client" 2>&1
		val=$(perftest_value "$tool" "$log.client")
		check "$impl $tool -s $size -n $iters" test -n "$val"
		case $tool in
		*_bw) record "$impl" "$tool" "$size" "$val" MB/s "$start" ;;
		*) record "$impl" "$tool" "$size" "$val" usec "$start" ;;
		esac
	fi
	port=$((port + 1))
}

# --- TCP ceiling ------------------------------------------------------------
barrier tcp-start
start=$(busy_jiffies)
if [ "$GUEST_ID" = 0 ]; then
	iperf3 -s -1 >/job/iperf3.server 2>&1 &
	barrier tcp-up
	wait $!
	record tcp iperf3 0 "" "" "$start"
else
	barrier tcp-up
	sleep 1
	iperf3 -c "$PEER_IP4" -t 5 -J >/job/iperf3.json 2>&1
	val=$(python3 -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 8e6))' /job/iperf3.json)
	check "iperf3 TCP" test -n "$val"
	record tcp iperf3 0 "$val" MB/s "$start"
fi

sizes="1024 4096 16384 65536 262144 1048576"
[ -n "$quick" ] && sizes="4096 65536"
for round in $(seq "$rounds"); do
	for impl in sroce rxe; do
		check "load $impl" load_link_module "$impl" || continue
		check "add ${impl}0" rdma link add "${impl}0" type "$impl" netdev eth0
		wait_port_active "${impl}0"
		for tool in ib_write_bw ib_send_bw ib_read_bw; do
			for size in $sizes; do
				# About 6 MiB per run, at least 20 messages.
				iters=$((6 * 1024 * 1024 / size))
				[ $iters -ge 20 ] || iters=20
				run "$impl" "$tool" "$size" "$iters"
			done
		done
		# A latency figure moves most with the host's load: three each.
		for _ in 1 2 3; do
			run "$impl" ib_send_lat 2 1000
			run "$impl" ib_write_lat 2 1000
		done
		rdma link delete "${impl}0"
		case $impl in
		sroce) rmmod sroce ;;
		rxe) rmmod rdma_rxe ;;
		esac
	done
done
summary
