#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ECN and DCQCN experiments, run in guests by scripts/vm-run.sh:
#
#   cc.sh nomark TYPE [OPTION...]        -n 2: guest 1 writes to guest 0
#                                        with no congestion point
#   cc.sh mark TYPE [P...] [OPTION...]   -n 2: netem on guest 1's egress
#                                        CE-marks P % (default 1 5 20) of
#                                        its RoCE packets, one run per P
#   cc.sh transports TYPE [OPTION...]   -n 2: as mark at 20 %, for UD
#                                        (ib_send_bw -c UD) and UC
#                                        (ib_write_bw -c UC) traffic
#   cc.sh incast TYPE [on|off|both] [OPTION...]
#                                        -n 3: guests 1 and 2 write to guest
#                                        0 (guest 2 joins late) through a
#                                        "switch port": tbf + RED (ecn) on
#                                        guest 0's ingress via ifb; with
#                                        DCQCN on, off (rp_enable = np_enable
#                                        = 0), or both (sroce default)
#
# TYPE is sroce or rxe. rdma_rxe sends no CNPs and never slows down, but
# with perftest --tclass=2 its packets are ECT(0), so the rxe runs validate
# the tc plumbing: CE marks arrive (counted with tcpdump `ip[1]&3==3`, or
# RED's marked counter) and the measurements are recorded.
#
# Options:
#   dur=S         traffic per run, seconds (nomark/mark 6, incast 20)
#   join=S        incast: guest 2 starts S seconds after guest 1 (5)
#   rate=R        incast: bottleneck rate, tc syntax (16mbit)
#   tclass=N      perftest --tclass (rxe default 2 = ECT(0); sroce: none,
#                 the device marks ECT itself when ecn_enable=1)
#   model=P:S,... mark: the share of line rate the model predicts for each
#                 marking percentage P (scripts/cc-model.py mark); each
#                 run's throughput, as a share of a first unmarked run
#                 (P 0 in the list), must be within tol of it
#   fair_tol=X    incast: allowed distance of each flow from the fair
#                 share, as a fraction of it (0.10, the issue's figure)
#   drop_tol=X    incast both: instead of no overflow drop with DCQCN on,
#                 at most X times the overflow drops of the DCQCN-off run
#                 (unset: none allowed)
#   tol=X         mark: allowed |measured / model - 1| of the share (0.25:
#                 a TCG sender paced at 40 Mb/s delivers 83-85 % of Rc
#                 under load, and a 10 s run is noisy; measured 0.81-0.82
#                 at 1 % against 0.958, 0.375-0.394 at 5 % against 0.346,
#                 0.101-0.103 at 20 % against 0.100)
#   nocc          record the sroce congestion checks as "# cc: ..." lines
#                 instead of asserting them (the debug kernel's step:
#                 its switch guest is too slow to be the bottleneck)
#   NAME=VALUE    a sroce cc_params value, set on every guest before the
#                 runs (after the incast preset below)
#
# Checks come in two groups. Plumbing checks ("ok - ..." without prefix)
# hold for both link types: traffic flows, the congestion point marks.
# Congestion control checks ("cc: ..."), sroce only: counters on both ends
# consistent, CNPs exactly when marks arrive, rates cut, flows converge.
#
# Results for the host: /job/results.txt (one line per run, key=value),
# guest 0's /job/incast-MODE.csv (every 0.5 s: per-flow bytes, queue,
# marks, drops), and on the senders /job/trace-MODE.txt, the sroce_cc_rate
# tracepoint with a "sroce-sync-MODE" marker at the start barrier:
#   tools/sroce-rate-plot -o OUT/rates-on --align sroce-sync-on \
#       s1=OUT/guest1/trace-on.txt s2=OUT/guest2/trace-on.txt

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

scenario=$1
type=$2
shift 2
dev=${type}0
TOOL_TIMEOUT=${TOOL_TIMEOUT:-60}
TRACE=/sys/kernel/tracing
port=18600

dur='' join=5 rate=16mbit tclass='' nocc='' incast_modes='' marks=() model='' tol=0.25 fair_tol=0.10 drop_tol=''
cc_set=()
for opt in "$@"; do
	case $opt in
	dur=*) dur=${opt#dur=} ;;
	join=*) join=${opt#join=} ;;
	rate=*) rate=${opt#rate=} ;;
	tclass=*) tclass=${opt#tclass=} ;;
	model=*) model=${opt#model=} ;;
	tol=*) tol=${opt#tol=} ;;
	fair_tol=*) fair_tol=${opt#fair_tol=} ;;
	drop_tol=*) drop_tol=${opt#drop_tol=} ;;
	nocc) nocc=1 ;;
	on|off|both) incast_modes=$opt ;;
	*=*) cc_set+=("$opt") ;;
	[0-9]*) marks+=("$opt") ;;
	*) bail "unknown option '$opt'" ;;
	esac
done
case $scenario in
nomark|mark|transports|incast) ;;
*) bail "unknown scenario '$scenario' (nomark, mark, transports or incast)" ;;
esac
case $type in
sroce) ;;
rxe) tclass=${tclass:-2} ;;
*) bail "unknown link type '$type' (sroce or rxe)" ;;
esac
[ ${#marks[@]} -gt 0 ] || marks=(1 5 20)

# The incast bottleneck and DCQCN parameters for it, chosen with the
# reference model (dcqcn_model.py, run as in Documentation/sroce-cc.rst)
# because the mlx5 defaults (T 300 us, R_AI 5 Mb/s) assume 40-100 Gb/s:
# - 16 Mb/s: well below what one TCG sender pushes (40-90 Mb/s with three
#   guests on two cores), so both senders must be slowed to a fair 8 Mb/s;
#   a 1082-byte packet takes 0.54 ms to drain.
# - RED min 3000 max 10000 (3 and 9 packets, 1.5-5 ms of queue), burst 3
#   (the smallest tc accepts, averaging weight 1/2: close to the
#   instantaneous queue DCQCN's CP marks on), probability 0.2 as in the
#   reference's scenario 1; limit 400000 so the line-rate start of both
#   senders is absorbed without a drop.
# - T (rp_time_reset) 50 ms with R_AI 1 Mb/s (the smallest step, 12 % of
#   the fair share): additive increase of 20 Mb/s per second. With T 5 ms
#   the model keeps the queue at its limit (the increase outruns the
#   feedback, which waits behind the queue), and TCG stalls of 100-300 ms
#   would add dozens of increase steps at once when the guest resumes.
# - alpha period 1 ms, one cut per ms, CNPs at most every 0.5 ms: the
#   packet time is 0.54 ms, so these are the per-packet scale of the mlx5
#   defaults (1, 4 and 4 us at ~1 us per packet). Byte counter off.
# Model (scripts/cc-model.py incast: line 40 or 80 Mb/s, one-way delay
# 0.3 or 1 ms, two seeds, 40 s): flows within 0-3 % of the fair share,
# utilisation 0.85-0.93, queue mean 3.6 KB, p99 12-14 KB, no drops; with
# T 5 ms and RED 10000/30000 the same model sits at the queue limit and
# drops ~20000 packets.
INCAST_RED=(min 3000 max 10000 avpkt 1100 burst 3 probability 0.2 limit 400000)
INCAST_PRESET=(rp_ai_rate=1 rp_hai_rate=1 rp_time_reset=50000 rp_byte_reset=0
	rp_dce_tcp_rtt=1000 rp_rate_reduce_monitor_period=1000
	np_min_time_between_cnps=500 rp_min_rate=1)

# --- helpers ------------------------------------------------------------------

is_sroce() { [ "$type" = sroce ]; }

# cc_check DESC CMD...: a congestion control check (sroce only). With nocc
# its result is only printed.
cc_check() {
	local desc=$1
	shift
	is_sroce || return 0
	if [ -n "$nocc" ]; then
		if "$@" >/dev/null 2>&1; then
			echo "# cc (not asserted): $desc: yes"
		else
			echo "# cc (not asserted): $desc: NO"
		fi
		return 0
	fi
	check "cc: $desc" "$@"
}

# cnt NAME: a port counter of our device (0 if it has none of that name).
cnt() {
	cat "/sys/class/infiniband/$dev/ports/1/hw_counters/$1" 2>/dev/null || echo 0
}

CC_COUNTERS="np_ecn_marked_roce_packets np_cnp_sent rp_cnp_handled rp_cnp_ignored cc_rx_cnp_pkts sent_pkts rcvd_pkts rcvd_no_qp_pkts"

# snap TAG: publish this guest's counters as /shared/cnt-TAG-ID.
snap() {
	local n
	for n in $CC_COUNTERS; do
		echo "$n $(cnt "$n")"
	done >"/shared/cnt-$1-$GUEST_ID"
}

# got TAG GUEST NAME: a counter that guest published under TAG.
got() {
	awk -v n="$3" '$1 == n { print $2 }' "/shared/cnt-$1-$2" 2>/dev/null | grep . || echo 0
}

# delta FROM TO GUEST NAME: how much a guest's counter moved.
delta() {
	echo $(($(got "$2" "$3" "$4") - $(got "$1" "$3" "$4")))
}

# set_cc NAME=VALUE...: write sroce cc_params (no-op for rxe).
set_cc() {
	is_sroce || return 0
	set_cc_params "$dev" "$@"
}

# perftest_args DUR PORT: the common ib_write_bw options, plus pt_extra.
perftest_args() {
	echo "-d $dev -x $gid -F -s 65536 -D $1 -p $2 ${tclass:+--tclass=$tclass} $pt_extra"
}
pt_extra=
# The incast runs three one-vCPU TCG guests on two host cores, where a
# guest is regularly not run for a second or more: its QPs get a 1 s
# local ACK timeout (-u 18) instead of perftest's 67 ms, as rc.sh does for
# the same reason. (perftest cannot sleep on completion events in
# duration mode, or at all for WRITE, so the senders poll.)
bw_tool=ib_write_bw
[ "$scenario" != incast ] || pt_extra="-u 18"

# bw_mbps LOG: perftest's average bandwidth in Mb/s.
bw_mbps() {
	awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ { printf "%.2f\n", $4 * 8 * 1.048576; f = 1 }
	     END { if (!f) exit 1 }' "$1"
}

# bw_msgs LOG: how many messages perftest completed in its measurement.
bw_msgs() {
	awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ { print $2; f = 1 } END { if (!f) exit 1 }' "$1"
}

# trace_start TAG / trace_stop TAG: record sroce_cc_rate on this guest.
trace_start() {
	is_sroce || return 0
	[ -d $TRACE/events ] || mount -t tracefs tracefs $TRACE || return 1
	[ -d $TRACE/events/sroce ] || { echo "no sroce trace events"; return 1; }
	echo 0 >$TRACE/tracing_on
	echo >$TRACE/trace
	echo 8192 >$TRACE/buffer_size_kb
	echo 1 >$TRACE/events/sroce/sroce_cc_rate/enable
	echo 1 >$TRACE/tracing_on
	echo "sroce-sync-$1" >$TRACE/trace_marker
}

trace_stop() {
	is_sroce && [ -d $TRACE/events/sroce ] || return 0
	echo 0 >$TRACE/tracing_on
	echo 0 >$TRACE/events/sroce/sroce_cc_rate/enable
	cat $TRACE/trace >"/job/trace-$1.txt"
	echo "# trace-$1.txt: $(grep -c 'sroce_cc_rate:' "/job/trace-$1.txt") rate changes"
}

# capture_start TAG / capture_stop TAG: RoCEv2 packets arriving at eth0
# (headers only); capture_stop sets cap_total, cap_ect (ECT(0)), cap_ce.
capture_start() {
	tcpdump -i eth0 -nn -s 64 -U -w "/tmp/cap-$1.pcap" 'udp dst port 4791' \
		2>"/tmp/cap-$1.log" &
	cap_pid=$!
	sleep 1
}

capture_stop() {
	local f=/tmp/cap-$1.pcap
	sleep 0.5
	kill -INT "$cap_pid" 2>/dev/null
	wait "$cap_pid" 2>/dev/null
	cap_total=$(tcpdump -r "$f" -nn 2>/dev/null | wc -l)
	cap_ect=$(tcpdump -r "$f" -nn 'ip[1] & 3 == 2' 2>/dev/null | wc -l)
	cap_ce=$(tcpdump -r "$f" -nn 'ip[1] & 3 == 3' 2>/dev/null | wc -l)
}

result() {
	echo "$*" >>/job/results.txt
	echo "# result: $*"
}

# --- setup ----------------------------------------------------------------------

# The tools' parameter round trip, where the host passed tools/sroce-cc in.
tool_round_trip() {
	local out
	/job/sroce-cc set -d "$dev" rp_ai_rate=7 np_cnp_dscp=26 || return 1
	out=$(/job/sroce-cc show -d "$dev" --json rp_ai_rate np_cnp_dscp) || return 1
	[ "$(echo "$out" | tr -d ' \n')" = '{"'"$dev"'":{"np_cnp_dscp":26,"rp_ai_rate":7}}' ] ||
		{ echo "show printed: $out"; return 1; }
	/job/sroce-cc set -d "$dev" rp_ai_rate=5 np_cnp_dscp=48
}

tool_refuses() {
	local out
	out=$(/job/sroce-cc set -d "$dev" rp_gd=12 2>&1) && { echo "accepted rp_gd=12"; return 1; }
	echo "$out" | grep -q 'rp_gd=12 refused: value out of range' || { echo "$out"; return 1; }
	[ "$(cat "/sys/class/infiniband/$dev/ports/1/cc_params/rp_gd")" = 11 ]
}

# The per-priority switches are views of one bit of np_enable / rp_enable.
prio_switches() {
	local d=/sys/class/infiniband/$dev/ports/1
	echo 0 >"$d/roce_np_enable/3" && [ "$(cat "$d/roce_np_enable/3")" = 0 ] &&
		[ "$(cat "$d/cc_params/np_enable")" = 247 ] &&
		echo 0 >"$d/roce_rp_enable/7" && [ "$(cat "$d/cc_params/rp_enable")" = 127 ] &&
		! echo 2 >"$d/roce_rp_enable/0" 2>/dev/null &&
		echo 1 >"$d/roce_np_enable/3" && echo 1 >"$d/roce_rp_enable/7" &&
		[ "$(cat "$d/cc_params/np_enable")" = 255 ] && [ "$(cat "$d/cc_params/rp_enable")" = 255 ]
}

check "load $type" load_link_module "$type" || bail "cannot load $type"
rdma link add "$dev" type "$type" netdev eth0 || bail "rdma link add $dev"
wait_port_active "$dev" || bail "$dev not active"
gid=$(roce_gid_index "$dev" "$GUEST_IP4") || bail "no RoCE v2 GID for $GUEST_IP4"
if is_sroce; then
	check "$dev has cc_params in sysfs" test -r "/sys/class/infiniband/$dev/ports/1/cc_params/rp_ai_rate"
	check "$dev has the DCQCN counters" test -r "/sys/class/infiniband/$dev/ports/1/hw_counters/np_cnp_sent"
	check "sysfs refuses rp_gd=12 (ERANGE)" sh -c "! echo 12 >/sys/class/infiniband/$dev/ports/1/cc_params/rp_gd"
	check "per-priority DCQCN switches (roce_np_enable/3, roce_rp_enable/7; 2 refused)" prio_switches
	if [ -x /job/sroce-cc ]; then
		check "sroce-cc set/show round trip" tool_round_trip
		check "sroce-cc refuses an out-of-range value" tool_refuses
	fi
	[ "$scenario" != incast ] || [ "$incast_modes" = off ] || set_cc "${INCAST_PRESET[@]}" ||
		bail "cannot set the incast preset"
	[ ${#cc_set[@]} -eq 0 ] || set_cc "${cc_set[@]}" || bail "cannot set ${cc_set[*]}"
fi

# --- (a) no marking, (b) random CE marking ---------------------------------------
#
# Guest 1 sends, guest 0 receives. Each run: counters published before and
# after by both guests, RoCE packets captured at guest 0.

# one_flow TAG [TOOL ARG...]: one ib_write_bw (or TOOL) run from guest 1
# to guest 0, with ARGs after the common ones.
one_flow() {
	local tag=$1 tool=${2:-ib_write_bw} args spid
	shift $(($# > 1 ? 2 : 1))
	args="$(perftest_args "$dur" $port) $*"
	snap "$tag-0"
	if [ "$GUEST_ID" = 0 ]; then
		capture_start "$tag"
		# shellcheck disable=SC2086
		timeout "$TOOL_TIMEOUT" "$tool" $args >"/job/$tag.server" 2>&1 &
		spid=$!
		barrier "$tag-up"
		wait $spid
		check "$tag: $tool server" test $? -eq 0 || sed 's/^/#   /' "/job/$tag.server"
		capture_stop "$tag"
	else
		barrier "$tag-up"
		trace_start "$tag"
		# shellcheck disable=SC2086 # $args holds several options
		check "$tag: $tool client ($dur s)" \
			run_client "/job/$tag.client" "$tool" $args "$PEER_IP4" ||
			sed 's/^/#   /' "/job/$tag.client"
		trace_stop "$tag"
	fi
	snap "$tag-1"
	barrier "$tag-done"
	port=$((port + 1))
}

# flow_deltas TAG: counter moves of a one_flow run, receiver (r_*, guest 0)
# and sender (s_*, guest 1).
flow_deltas() {
	r_ecn=$(delta "$1-0" "$1-1" 0 np_ecn_marked_roce_packets)
	r_cnp=$(delta "$1-0" "$1-1" 0 np_cnp_sent)
	s_rx=$(delta "$1-0" "$1-1" 1 cc_rx_cnp_pkts)
	s_handled=$(delta "$1-0" "$1-1" 1 rp_cnp_handled)
	s_ignored=$(delta "$1-0" "$1-1" 1 rp_cnp_ignored)
}

# cnp_balance: the receiver's CNPs all reached the sender and were handled
# or ignored there (no CNP loss on an uncongested reverse path).
cnp_balance() {
	if [ "$r_cnp" -ne "$s_rx" ] || [ $((s_handled + s_ignored)) -ne "$s_rx" ]; then
		echo "receiver np_cnp_sent $r_cnp, sender cc_rx_cnp_pkts $s_rx handled $s_handled ignored $s_ignored"
		return 1
	fi
}

# netem_marks P: CE-mark P % of this guest's outgoing RoCEv2 packets; other
# traffic (perftest's TCP, ARP) bypasses netem, which would drop it.
netem_marks() {
	tc qdisc del dev eth0 root 2>/dev/null
	[ "$1" = 0 ] && return 0
	tc qdisc add dev eth0 root handle 1: prio bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
		tc qdisc add dev eth0 parent 1:2 handle 20: netem loss "$1%" ecn &&
		tc filter add dev eth0 parent 1: protocol ip prio 1 u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff flowid 1:2
}

# model_share P: the model's throughput share for P % marking, if given.
model_share() {
	tr ',' '\n' <<<"$model" | awk -F: -v p="$1" '$1 == p { print $2 }'
}

between() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }

if [ "$scenario" = nomark ] || [ "$scenario" = mark ] ||
	[ "$scenario" = transports ]; then
	[ "$NGUESTS" = 2 ] || bail "$scenario wants 2 guests (vm-run.sh -n 2)"
	dur=${dur:-6}
fi

if [ "$scenario" = nomark ]; then
	one_flow nomark
	flow_deltas nomark
	if [ "$GUEST_ID" = 0 ]; then
		bw=$(bw_mbps /job/nomark.server 2>/dev/null || echo 0)
		result "scenario=nomark type=$type mbps=$bw roce_pkts=$cap_total ect=$cap_ect ce=$cap_ce" \
			"cnp_sent=$r_cnp ecn_marked=$r_ecn"
		check "nomark: RoCEv2 packets captured ($cap_total)" test "$cap_total" -gt 0
		check "nomark: no CE-marked packet arrived" test "$cap_ce" -eq 0
		[ -z "$tclass" ] || check "nomark: packets are ECT(0) with --tclass=$tclass ($cap_ect)" test "$cap_ect" -gt 0
		cc_check "nomark: data packets leave ECT(0) ($cap_ect of $cap_total)" test "$cap_ect" -eq "$cap_total"
		cc_check "nomark: receiver np_ecn_marked_roce_packets stays 0" test "$r_ecn" -eq 0
		cc_check "nomark: receiver np_cnp_sent stays 0" test "$r_cnp" -eq 0
		cc_check "nomark: sender received no CNP (cc_rx_cnp_pkts)" test "$s_rx" -eq 0
		cc_check "nomark: sender rp_cnp_handled stays 0" test "$s_handled" -eq 0
	else
		cc_check "nomark: the rate never changed (no sroce_cc_rate event)" \
			sh -c '[ -f /job/trace-nomark.txt ] && ! grep -q "sroce_cc_rate:" /job/trace-nomark.txt'
	fi
fi

if [ "$scenario" = mark ]; then
	prev_bw='' base_bw=''
	for p in "${marks[@]}"; do
		tag=mark$p
		[ "$GUEST_ID" = 1 ] && { netem_marks "$p" || bail "netem loss $p% ecn"; }
		one_flow "$tag"
		flow_deltas "$tag"
		[ "$GUEST_ID" = 1 ] && netem_marks 0
		if [ "$GUEST_ID" = 0 ]; then
			bw=$(bw_mbps "/job/$tag.server" 2>/dev/null || echo 0)
			frac=$(awk -v a="$cap_ce" -v b="$cap_total" 'BEGIN { printf "%.4f", b ? a / b : 0 }')
			result "scenario=mark p=$p type=$type mbps=$bw roce_pkts=$cap_total ce=$cap_ce ce_frac=$frac" \
				"ecn_marked=$r_ecn cnp_sent=$r_cnp" \
				"cnp_rx=$s_rx handled=$s_handled ignored=$s_ignored"
		fi
		# 0 %: the baseline the shares are measured against (1 % may
		# come within noise of it, so "below the previous run" starts
		# with the first marked run).
		if [ "$p" = 0 ]; then
			base_bw=${bw:-}
			if [ "$GUEST_ID" = 0 ]; then
				check "mark 0%: no CE-marked packet arrived" test "$cap_ce" -eq 0
				cc_check "mark 0%: no CNP sent" test "$r_cnp" -eq 0
			fi
			continue
		fi
		if [ "$GUEST_ID" = 0 ]; then
			check "mark $p%: CE-marked packets arrive ($cap_ce of $cap_total)" test "$cap_ce" -gt 0
			# Bernoulli marking: the share is p within a wide margin.
			check "mark $p%: CE share $frac is near $p %" \
				between "$frac" "$(awk -v p="$p" 'BEGIN { print p / 300 }')" \
				"$(awk -v p="$p" 'BEGIN { print p / 100 * 2 + 0.01 }')"
			# Within 5 %: tcpdump loses packets under load (measured up
			# to 2.9 % with three TCG guests' worth of host load).
			cc_check "mark $p%: receiver counts the CE packets (np_ecn_marked_roce_packets $r_ecn ~ $cap_ce)" \
				awk -v a="$r_ecn" -v b="$cap_ce" \
				'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 2 + b / 20) }'
			cc_check "mark $p%: receiver sends CNPs (np_cnp_sent $r_cnp)" \
				test "$r_cnp" -gt 0
			cc_check "mark $p%: no more CNPs than marks" \
				test "$r_cnp" -le "$r_ecn"
			cc_check "mark $p%: CNPs balance (sent = received = handled + ignored)" cnp_balance
			cc_check "mark $p%: sender handled CNPs (rp_cnp_handled $s_handled)" \
				test "$s_handled" -gt 0
			share=$(model_share "$p")
			if [ -n "$share" ]; then
				# The unmarked QP is not paced (an RP starts at line
				# rate; rp_max_rate bounds DCQCN's rates once it acts),
				# so the reference is the lower of the unmarked
				# throughput and rp_max_rate.
				cap=$(cat "/sys/class/infiniband/$dev/ports/1/cc_params/rp_max_rate")
				ref=$(awk -v b="$base_bw" -v c="$cap" 'BEGIN { print (c > 0 && c < b) ? c : b }')
				got_share=$(awk -v a="$bw" -v c="$ref" 'BEGIN { printf "%.3f", c ? a / c : 0 }')
				result "scenario=mark-model p=$p mbps=$bw base_mbps=$base_bw ref_mbps=$ref" \
					"share=$got_share model_share=$share tol=$tol"
				cc_check "mark $p%: throughput share $got_share of $ref Mb/s within $tol (relative) of the model's $share" \
					awk -v a="$got_share" -v b="$share" -v t="$tol" \
					'BEGIN { d = a / b - 1; if (d < 0) d = -d; exit !(d <= t) }'
			fi
			if [ -n "$prev_bw" ]; then
				cc_check "mark $p%: throughput $bw Mb/s below the previous run's $prev_bw" \
					awk -v a="$bw" -v b="$prev_bw" 'BEGIN { exit !(a < b) }'
			fi
			prev_bw=$bw
		else
			cc_check "mark $p%: the sender's rate was cut (sroce_cc_rate reason=cnp)" \
				grep -q 'sroce_cc_rate:.*reason=cnp' "/job/trace-$tag.txt"
		fi
	done
fi

# --- (c) 2:1 through a bottleneck ------------------------------------------------
#
# Guest 0's ingress is the switch port toward the receiver: RoCEv2 from each
# sender is redirected (one u32 filter per sender, whose action counts the
# flow's bytes) to ifb0, where tbf limits the rate and RED marks ECT packets
# CE (drops Not-ECT ones) as its average queue grows. A sampler records
# bytes per flow as they reach the switch port (offered load: equal to the
# delivered load only while nothing is dropped), the queue, marks and drops
# every 0.5 s; perftest's count of completed WRITEs gives each flow's
# goodput (its bandwidth figures read 0.00 at these rates in duration mode).

cat >/tmp/cc-sampler.py <<'EOF'
import re, subprocess, sys, time


def tc(*args):
    return subprocess.run(["tc", "-s", *args], capture_output=True,
                          text=True).stdout


def sample():
    flows, pref = {}, None
    for line in tc("filter", "show", "dev", "eth0", "ingress").splitlines():
        m = re.search(r"\bpref (\d+)", line)
        if m:
            pref = int(m.group(1))
        m = re.search(r"Sent (\d+) bytes", line)
        if m and pref is not None:
            flows[pref] = int(m.group(1))
    q = {"backlog": 0, "marked": 0, "dropped": 0}
    kind = None
    for line in tc("qdisc", "show", "dev", "ifb0").splitlines():
        m = re.match(r"qdisc (\w+)", line)
        if m:
            kind = m.group(1)
        m = re.search(r"dropped (\d+)", line)
        if m and kind == "tbf":
            q["dropped"] = int(m.group(1))
        m = re.search(r"backlog (\d+)b", line)
        if m and kind == "red":
            q["backlog"] = int(m.group(1))
        m = re.search(r"marked (\d+)", line)
        if m and kind == "red":
            q["marked"] = int(m.group(1))
    return flows, q


def record(out, seconds):
    t0 = time.monotonic()
    with open(out, "w") as f:
        f.write("t_s,offered_bytes_s1,offered_bytes_s2,backlog_b,marked,dropped\n")
        while True:
            t = time.monotonic() - t0
            flows, q = sample()
            f.write(f"{t:.3f},{flows.get(11, 0)},{flows.get(12, 0)},"
                    f"{q['backlog']},{q['marked']},{q['dropped']}\n")
            f.flush()
            if t >= seconds:
                return
            time.sleep(max(0.0, 0.5 - (time.monotonic() - t0 - t)))


def judge(path, join, dur):
    rows = [list(map(float, l.split(","))) for l in open(path).read().split("\n")[1:] if l]
    # The flows' own clock: sender 1 started between the last row before
    # its bytes moved and the first after (the sampler starts before the
    # barrier that lets the senders go). The convergence window is the
    # second half of the time both flows run.
    moved = [i for i, r in enumerate(rows) if r[1] > rows[0][1]]
    t0 = (rows[moved[0] - 1][0] + rows[moved[0]][0]) / 2 if moved else rows[0][0]
    t_from = t0 + join + (dur - join) / 2
    t_to = t0 + dur
    # The window ends where the first flow ended: under TCG the senders
    # start and stop a second or more apart. A flow counts as sending
    # while it offers at least 0.5 Mb/s (DCQCN never paces below
    # rp_min_rate, 1 Mb/s). If that leaves less than half the window, a
    # flow stopped early: judge the whole window, which then fails.
    both = [c[0] for p, c in zip(rows, rows[1:])
            if min(c[1] - p[1], c[2] - p[2]) * 8 / (c[0] - p[0]) >= 0.5e6]
    if both and both[-1] - t_from >= (t_to - t_from) / 2:
        t_to = min(t_to, both[-1])
    win = [r for r in rows if t_from <= r[0] <= t_to]
    # A descheduled switch guest samples seconds apart: with fewer than
    # two rows inside, take the rows around the window, or all.
    if len(win) < 2:
        win = ([r for r in rows if r[0] < t_from][-1:] + win +
               [r for r in rows if r[0] > t_to][:1])
    if len(win) < 2:
        win = rows
    a, b = win[0], win[-1]
    span = b[0] - a[0]
    r1 = (b[1] - a[1]) * 8 / span / 1e6 if span > 0 else 0
    r2 = (b[2] - a[2]) * 8 / span / 1e6 if span > 0 else 0
    fair = (r1 + r2) / 2
    dev = max(abs(r1 - fair), abs(r2 - fair)) / fair if fair else 1
    backlog = [r[3] for r in win]
    print(f"offered1_mbps={r1:.3f} offered2_mbps={r2:.3f} fair_dev={dev:.3f} "
          f"backlog_mean={sum(backlog) / len(backlog):.0f} "
          f"backlog_max={max(backlog):.0f} marked={rows[-1][4]:.0f} "
          f"dropped={rows[-1][5]:.0f} dropped_window={b[5] - a[5]:.0f}")
    with open(path.replace(".csv", "-rates.csv"), "w") as f:
        f.write("t_s,s1_offered_mbps,s2_offered_mbps,backlog_b,marked,dropped\n")
        for p, c in zip(rows, rows[1:]):
            dt = c[0] - p[0]
            f.write(f"{c[0]:.3f},{(c[1] - p[1]) * 8 / dt / 1e6:.3f},"
                    f"{(c[2] - p[2]) * 8 / dt / 1e6:.3f},{c[3]:.0f},"
                    f"{c[4]:.0f},{c[5]:.0f}\n")


if sys.argv[1] == "record":
    record(sys.argv[2], float(sys.argv[3]))
else:
    judge(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
EOF

# switch_port: the bottleneck on guest 0's ingress (fresh counters).
switch_port() {
	local i
	tc qdisc del dev eth0 ingress 2>/dev/null
	tc qdisc del dev ifb0 root 2>/dev/null
	ip link show ifb0 >/dev/null 2>&1 || modprobe ifb numifbs=1 || return 1
	ip link set ifb0 up &&
		tc qdisc add dev ifb0 root handle 1: tbf rate "$rate" burst 10kb latency 100ms &&
		tc qdisc add dev ifb0 parent 1:1 handle 10: red "${INCAST_RED[@]}" \
			bandwidth "$rate" ecn &&
		tc qdisc add dev eth0 handle ffff: ingress || return 1
	for i in 1 2; do
		tc filter add dev eth0 parent ffff: protocol ip pref $((10 + i)) u32 \
			match ip src "10.77.0.$((i + 1))/32" match ip protocol 17 0xff \
			match ip dport 4791 0xffff action mirred egress redirect dev ifb0 || return 1
	done
}

# expect MODE DESC CMD...: a check with DCQCN on; with it off, losses can
# make go-back-N give up (perftest: "Failed status 12", retry exceeded), so
# the outcome is only recorded.
expect() {
	local mode=$1 desc=$2
	shift 2
	if [ "$mode" = on ]; then
		check "$desc" "$@"
		return
	fi
	if "$@" >/dev/null 2>&1; then
		echo "# DCQCN off (not asserted): $desc: yes"
	else
		echo "# DCQCN off (not asserted): $desc: NO"
		return 1
	fi
}

# kv KEY LINE: the value of KEY=... in LINE.
kv() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }

# diag_start TAG / diag_stop: every second, this guest's transport
# counters and RC QPs (PSNs, state) into /job/diag-TAG.txt, to tell a
# paced flow from a stalled one afterwards.
DIAG_COUNTERS="sent_pkts rcvd_pkts completer_retry_err retry_exceeded_err rcvd_seq_err
	out_of_seq_request duplicate_request resp_dropped comp_dropped_pkts rp_cnp_handled np_cnp_sent"
diag_start() {
	is_sroce || return 0
	(
		while :; do
			echo "t=$(cut -d' ' -f1 /proc/uptime) $(for n in $DIAG_COUNTERS; do
				printf '%s=%s ' "$n" "$(cnt "$n")"; done)"
			rdma res show qp type RC 2>/dev/null | sed 's/^/  /'
			sleep 1
		done
	) >"/job/diag-$1.txt" 2>&1 &
	diag_pid=$!
}

diag_stop() {
	[ -n "${diag_pid:-}" ] || return 0
	kill "$diag_pid" 2>/dev/null
	wait "$diag_pid" 2>/dev/null
	diag_pid=
}

incast_run() {
	local mode=$1 tag=incast-$1 args spids=() pid rc line dur2
	args=$(perftest_args "$dur" $port)
	dur2=$((dur - join))
	if is_sroce; then
		if [ "$mode" = on ]; then
			set_cc rp_enable=255 np_enable=255 || bail "cannot enable DCQCN"
		else
			set_cc rp_enable=0 np_enable=0 || bail "cannot disable DCQCN"
		fi
	fi
	[ "$GUEST_ID" != 0 ] || switch_port || bail "cannot set up the switch port"
	snap "$tag-0"
	diag_start "$tag"
	if [ "$GUEST_ID" = 0 ]; then
		# shellcheck disable=SC2086
		timeout "$TOOL_TIMEOUT" "$bw_tool" $args >"/job/$tag-s1.server" 2>&1 &
		spids+=($!)
		# shellcheck disable=SC2046
		timeout "$TOOL_TIMEOUT" "$bw_tool" $(perftest_args "$dur2" $((port + 1))) \
			>"/job/$tag-s2.server" 2>&1 &
		spids+=($!)
		# The sampler runs from before the senders start to after they
		# stopped: python takes seconds to start under TCG, and the
		# judge finds the flows' start in the samples.
		python3 /tmp/cc-sampler.py record "/job/$tag.csv" $((TOOL_TIMEOUT + 30)) &
		local sampler=$! i
		for ((i = 0; i < 300; i++)); do
			[ -s "/job/$tag.csv" ] && [ "$(wc -l <"/job/$tag.csv")" -ge 2 ] && break
			sleep 0.1
		done
		barrier "$tag-up"
		for pid in "${spids[@]}"; do
			wait "$pid"
			rc=$?
			expect "$mode" "$tag: $bw_tool server (pid $pid)" test $rc -eq 0
		done
		sleep 1
		kill $sampler
		wait $sampler
	else
		barrier "$tag-up"
		trace_start "$mode"
		if [ "$GUEST_ID" = 1 ]; then
			# shellcheck disable=SC2086 # $args holds several options
			expect "$mode" "$tag: sender 1 $bw_tool ($dur s)" \
				run_client "/job/$tag.client" "$bw_tool" $args 10.77.0.1 ||
				sed 's/^/#   /' "/job/$tag.client"
		else
			sleep "$join"
			# shellcheck disable=SC2046 # several options
			expect "$mode" "$tag: sender 2 $bw_tool ($dur2 s, from $join s)" \
				run_client "/job/$tag.client" "$bw_tool" $(perftest_args "$dur2" $((port + 1))) 10.77.0.1 ||
				sed 's/^/#   /' "/job/$tag.client"
		fi
		trace_stop "$mode"
	fi
	diag_stop
	snap "$tag-1"
	barrier "$tag-done"
	port=$((port + 2))
	[ "$GUEST_ID" = 0 ] || return 0

	tc -s qdisc show dev ifb0 >"/job/$tag-qdisc.txt"
	tc -s filter show dev eth0 ingress >"/job/$tag-filter.txt"
	line=$(python3 /tmp/cc-sampler.py judge "/job/$tag.csv" "$join" "$dur")
	local marked ecn r1 r2 cnp handled noqp
	marked=$(kv marked "$line")
	ecn=$(delta "$tag-0" "$tag-1" 0 np_ecn_marked_roce_packets)
	cnp=$(delta "$tag-0" "$tag-1" 0 np_cnp_sent)
	noqp=$(delta "$tag-0" "$tag-1" 0 rcvd_no_qp_pkts)
	handled=$(($(delta "$tag-0" "$tag-1" 1 rp_cnp_handled) + $(delta "$tag-0" "$tag-1" 2 rp_cnp_handled)))
	rx=$(($(delta "$tag-0" "$tag-1" 1 cc_rx_cnp_pkts) + $(delta "$tag-0" "$tag-1" 2 cc_rx_cnp_pkts)))
	ign=$(($(delta "$tag-0" "$tag-1" 1 rp_cnp_ignored) + $(delta "$tag-0" "$tag-1" 2 rp_cnp_ignored)))
	r1=$(kv offered1_mbps "$line")
	r2=$(kv offered2_mbps "$line")
	early=$(sed -n 's/.* early \([0-9]*\) pdrop.*/\1/p' "/job/$tag-qdisc.txt" | grep . || echo 0)
	pdrop=$(sed -n 's/.* pdrop \([0-9]*\) .*/\1/p' "/job/$tag-qdisc.txt" | grep . || echo 0)
	result "scenario=incast mode=$mode type=$type rate=$rate $line red_early=$early red_pdrop=$pdrop" \
		"msgs1=$(bw_msgs "/job/$tag-s1.server" || echo 0)" \
		"msgs2=$(bw_msgs "/job/$tag-s2.server" || echo 0)" \
		"ecn_marked=$ecn cnp_sent=$cnp cnp_rx=$rx handled=$handled ignored=$ign" \
		"sent_pkts=$(($(delta "$tag-0" "$tag-1" 1 sent_pkts) + $(delta "$tag-0" "$tag-1" 2 sent_pkts)))"
	expect "$mode" "$tag: both flows crossed the bottleneck ($r1 and $r2 Mb/s)" \
		awk -v a="$r1" -v b="$r2" 'BEGIN { exit !(a > 0 && b > 0) }'
	check "$tag: RED marked ECT packets CE ($marked)" test "${marked:-0}" -gt 0
	if [ "$mode" = on ]; then
		# RED marks a packet as it enqueues it; the bfifo below may
		# then have no room for it (pdrop), so a marked packet can
		# still be dropped. Others reach no QP: perftest's closing
		# handshake over TCP overtakes the RoCE packets still queued
		# here, and the server's QP is gone when they arrive (counted
		# in rcvd_no_qp_pkts, marked or not). The receiver's count is
		# at most RED's, and with the packets that reached no QP within
		# 1 % of the marks RED did not then drop.
		cc_check "$tag: receiver counted RED's marks (np_ecn_marked_roce_packets $ecn ~ $marked, $pdrop dropped after marking, $noqp reached no QP at most)" \
			awk -v a="$ecn" -v b="$marked" -v d="$pdrop" -v n="$noqp" \
			'BEGIN { exit !(a <= b && a + n >= (b - d) * 0.99) }'
		cc_check "$tag: CNPs flow and balance (sent $cnp = received $rx = handled $handled + ignored $ign)" \
			sh -c "[ $cnp -gt 0 ] && [ $cnp -eq $rx ] && [ $rx -eq $((handled + ign)) ]"
		cc_check "$tag: flows within $fair_tol of the fair share ($(kv fair_dev "$line"))" \
			awk -v d="$(kv fair_dev "$line")" -v t="$fair_tol" 'BEGIN { exit !(d <= t) }'
		# The model keeps the mean at 3.6 KB, below RED's max (10000).
		# Under TCG the switch guest itself is not run for up to
		# seconds, its tbf stops draining and the queue grows whatever
		# the senders do (measured means 0.8-30 KB); so the bound here
		# is a quarter of RED's limit, and the comparison with DCQCN
		# off below must show at most half of that run's queue.
		cc_check "$tag: queue low (mean $(kv backlog_mean "$line") B below 100000, RED limit / 4)" \
			awk -v q="$(kv backlog_mean "$line")" 'BEGIN { exit !(q < 100000) }'
		# RED drops a packet for lack of room (pdrop) or because it is
		# Not-ECT and would have been marked (early). DCQCN's job is
		# the first; the second would be a packet sroce sent Not-ECT:
		# one such drop per mode appears in some 20 s runs and is not
		# explained yet, so it is reported (result, note), not asserted.
		if [ -z "$drop_tol" ]; then
			cc_check "$tag: no drop for lack of room at the bottleneck (RED pdrop $pdrop, dropped $(kv dropped "$line"), early $early)" \
				test "$pdrop" -eq 0 -a "$(kv dropped "$line")" -eq "$early"
		else
			echo "# note: $tag: RED dropped $pdrop packet(s) for lack of room (judged against DCQCN off)"
		fi
		[ "$early" -eq 0 ] || echo "# note: $tag: RED dropped $early Not-ECT packet(s) (early)"
	else
		cc_check "$tag: DCQCN off: no CNP sent" test "$cnp" -eq 0
	fi
}

# UD and UC under 20 % marking: the receiver answers both with CNPs (a UD
# CNP names the DETH's source QP, at the packet's source address); the UC
# sender is paced by DCQCN like an RC one, the UD sender ignores them (no
# one peer to pace for).
if [ "$scenario" = transports ]; then
	[ "$GUEST_ID" = 1 ] && { netem_marks 20 || bail "netem loss 20% ecn"; }
	one_flow ud ib_send_bw -c UD -s 1000
	flow_deltas ud
	if [ "$GUEST_ID" = 0 ]; then
		result "scenario=transports qp=ud type=$type roce_pkts=$cap_total ce=$cap_ce" \
			"ecn_marked=$r_ecn cnp_sent=$r_cnp cnp_rx=$s_rx handled=$s_handled ignored=$s_ignored"
		check "ud: CE-marked packets arrive ($cap_ce of $cap_total)" test "$cap_ce" -gt 0
		cc_check "ud: receiver sends CNPs for UD packets (np_cnp_sent $r_cnp of $r_ecn marked)" \
			test "$r_cnp" -gt 0 -a "$r_cnp" -le "$r_ecn"
		cc_check "ud: CNPs balance (sent = received = handled + ignored)" cnp_balance
		cc_check "ud: the UD sender ignores them (rp_cnp_handled $s_handled)" \
			test "$s_handled" -eq 0
	fi
	one_flow uc ib_write_bw -c UC
	flow_deltas uc
	[ "$GUEST_ID" = 1 ] && netem_marks 0
	if [ "$GUEST_ID" = 0 ]; then
		result "scenario=transports qp=uc type=$type roce_pkts=$cap_total ce=$cap_ce" \
			"ecn_marked=$r_ecn cnp_sent=$r_cnp cnp_rx=$s_rx handled=$s_handled ignored=$s_ignored"
		check "uc: CE-marked packets arrive ($cap_ce of $cap_total)" test "$cap_ce" -gt 0
		cc_check "uc: receiver sends CNPs (np_cnp_sent $r_cnp)" test "$r_cnp" -gt 0
		cc_check "uc: CNPs balance (sent = received = handled + ignored)" cnp_balance
		cc_check "uc: the UC sender handled CNPs (rp_cnp_handled $s_handled)" \
			test "$s_handled" -gt 0
	else
		cc_check "uc: the sender's rate was cut (sroce_cc_rate reason=cnp)" \
			grep -q 'sroce_cc_rate:.*reason=cnp' /job/trace-uc.txt
	fi
fi

if [ "$scenario" = incast ]; then
	[ "$NGUESTS" = 3 ] || bail "incast wants 3 guests (vm-run.sh -n 3)"
	dur=${dur:-20}
	[ -n "$incast_modes" ] || { if is_sroce; then incast_modes=both; else incast_modes=on; fi; }
	case $incast_modes in
	both) modes=(on off) ;;
	*) modes=("$incast_modes") ;;
	esac
	for m in "${modes[@]}"; do
		incast_run "$m"
	done
	if [ "$GUEST_ID" = 0 ] && [ ${#modes[@]} -eq 2 ] && is_sroce; then
		on=$(grep 'mode=on' /job/results.txt)
		off=$(grep 'mode=off' /job/results.txt)
		cc_check "incast: DCQCN keeps the mean queue below half of that without it ($(kv backlog_mean "$on") vs $(kv backlog_mean "$off") B)" \
			awk -v a="$(kv backlog_mean "$on")" -v b="$(kv backlog_mean "$off")" \
			'BEGIN { exit !(a < b / 2) }'
		[ -z "$drop_tol" ] ||
			cc_check "incast: DCQCN cuts overflow drops to at most $drop_tol of those without it ($(kv red_pdrop "$on") vs $(kv red_pdrop "$off"))" \
				awk -v a="$(kv red_pdrop "$on")" -v b="$(kv red_pdrop "$off")" -v t="$drop_tol" \
				'BEGIN { exit !(b > 0 && a <= b * t) }'
	fi
fi

summary
