#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# K:1 incast in one guest, the congestion control testbed. Run by
# scripts/vm-run.sh -n 1 -c 2 with -f .../sroce.ko -f .../netns-lib.sh
# -f .../cc-testbed.py -f .../cc-flow (scripts/tests/cc-flow.c, built):
#
#   cc-netns.sh K [MODE...] [OPTION...]
#
# Sender namespaces s1..sK and a receiver namespace r (netns-lib.sh hosts
# 1..K and 100) each hold their own sroce device (tx1..txK, rx) on their
# veth. The switch port toward r (p100's egress, in sw) is the bottleneck
# for RoCEv2: tbf at RATE with RED (ecn) below it, the queue cc.sh incast
# builds on an ifb. Sender i writes to r (cc-flow, 64 KiB) from
# (i-1)*GAP seconds on, until DUR + (i-1)*LEAVE; in mode read r reads
# from sender i instead, whose READ responses cross the port. The senders
# connect before the first of them starts, so that each joins when the
# schedule says (see cc-flow.c). cc-testbed.py samples the port every 0.2 s and
# judges the window in which all K flows run.
#
# Modes, run in the order given (default: on off):
#   on          DCQCN, the port's queue RED with ECN marking
#   off         no congestion control (rp_enable = np_enable = 0), RED
#   timely      TIMELY (cc_algo 1), the port's queue a tail-drop FIFO
#   drop        no congestion control, the tail-drop FIFO
#   read        as on, but the flows are READs: r reads from each sender,
#               whose responder paces its READ responses
#   both        on off;  all: on off timely drop
#
# Options:
#   dur=S       when the first sender stops, seconds from its start (40)
#   gap=S       time between two senders' starts (1)
#   leave=S     time between two senders' stops (0: all stop together)
#   rate=M      bottleneck rate, Mb/s (64)
#   mtu=N       the veths' MTU (1500; 9000 gives RoCE a 4096 path MTU)
#   red=MIN/MAX/P  RED's thresholds (bytes) and marking probability
#               (3000/10000/0.2)
#   red_burst=N RED's burst, its averaging (3; after red=)
#   fifo=B      the tail-drop FIFO's limit in bytes (400000, RED's limit)
#   util=X      with DCQCN on, the lowest utilisation accepted (K 16 and
#               up: 0.9, the issue's target; below: only the model's)
#   jain=X      with DCQCN on, the lowest Jain's index of the flows' mean
#               rates accepted (K 16 and up: 0.95; below: the model's)
#   nocc        record the congestion control checks instead of
#               asserting them
#   diag=S      seconds between two diagnostic snapshots (2)
#   NAME=VALUE  an sroce cc_params value, set on every device after the
#               preset below
#
# Results: /job/results.txt (a line per mode), /job/netns-MODE.csv (the
# samples), /job/netns-MODE-qdisc.txt, /job/trace-netns-MODE.txt (the
# sroce_cc_rate tracepoint) and /job/counters-netns-MODE.txt (every
# device's non-zero counters and the RC QPs after the run).

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh
# shellcheck source-path=SCRIPTDIR source=netns-lib.sh
. /job/netns-lib.sh

k=${1:-}
shift
[[ $k =~ ^[0-9]+$ ]] || bail "K wants 1..32 senders"
((k >= 1 && k <= 32)) || bail "K wants 1..32 senders"
dur=40 gap=1 leave=0 rate=64 mtu=1500 util_min='' jain_min='' nocc='' modes=()
fifo=400000
diag_every=2
cc_set=()
RED=(min 3000 max 10000 avpkt 1100 burst 3 probability 0.2 limit 400000)
for opt in "$@"; do
	case $opt in
	dur=*) dur=${opt#dur=} ;;
	gap=*) gap=${opt#gap=} ;;
	leave=*) leave=${opt#leave=} ;;
	rate=*) rate=${opt#rate=} ;;
	mtu=*) mtu=${opt#mtu=} ;;
	red=*/*/*)
		IFS=/ read -r red_min red_max red_p <<<"${opt#red=}"
		# tc wants a burst above min / avpkt (3, cc.sh's, for 3000)
		RED=(min "$red_min" max "$red_max" avpkt 1100
			burst $((red_min / 1100 + 1 > 3 ? red_min / 1100 + 1 : 3))
			probability "$red_p" limit 400000)
		;;
	red_burst=[0-9]*)
		# RED's averaging: a larger burst, a slower mean (tc-red(8)).
		RED[7]=${opt#red_burst=}
		;;
	util=*) util_min=${opt#util=} ;;
	jain=*) jain_min=${opt#jain=} ;;
	nocc) nocc=1 ;;
	diag=*) diag_every=${opt#diag=} ;;
	fifo=[0-9]*) fifo=${opt#fifo=} ;;
	on | off | timely | drop | read) modes+=("$opt") ;;
	both) modes+=(on off) ;;
	all) modes+=(on off timely drop) ;;
	*=*) cc_set+=("$opt") ;;
	*) bail "unknown option '$opt'" ;;
	esac
done
[ ${#modes[@]} -gt 0 ] || modes=(on off)
((k >= 16)) && : "${util_min:=0.9}" "${jain_min:=0.95}"
TOOL_TIMEOUT=$((dur + k * (gap + leave) + 120))
port=18600

# The cc.sh incast preset (see there) with T 100 ms, and its RED. 64 Mb/s
# is a third to a half of what the senders push in all with no bottleneck
# (150-200 Mb/s measured, 1 KiB packets) and a fair share of 4 Mb/s at
# K 16, four of R_AI's smallest steps. The model (scripts/cc-model.py
# netns) puts 16 flows through it at utilisation 0.95, Jain 0.97 and a
# 3.6 KB mean queue; at 32 Mb/s it gives 0.84-0.87 and a 13-15 KB mean,
# above RED's max.
# rp_max_rate is the senders' line rate: what one namespace moves alone
# in the guest (150-200 Mb/s), not the veth's nominal 10 Gb/s, from which
# a flow that joins, or recovers, bursts into the queue. Measured at K 16
# (DCQCN on, 2026-12-04, same module and session): with it, utilisation
# 0.855 and 0.843, Jain 0.996 and 0.995, mean queue 12.4 and 15.5 KB,
# overflow drops 20 and 0; without, 0.881, 0.940, 43.6 KB and 4564.
PRESET=(rp_ai_rate=1 rp_hai_rate=1 rp_time_reset=100000 rp_byte_reset=0
	rp_dce_tcp_rtt=1000 rp_rate_reduce_monitor_period=1000
	np_min_time_between_cnps=500 rp_min_rate=1 rp_max_rate=200)
# TIMELY scaled to the testbed as DCQCN above: steps of 1 Mb/s (a quarter
# of the fair share at K 16), a floor below it, the same 200 Mb/s ceiling.
# Its times are the guest's: round trips of 200-450 us through the empty
# port under load (K 4, the QPs' srtt-us), so T_low and the gradient's
# normaliser 500 us, and T_high 2.5 ms, about 16 KB of queue at 64 Mb/s
# above them. alpha 1/8: the samples, taken in software under TCG, vary
# by +-100 us with no queue at all, and at the default 7/8 that noise
# alone cut the rates to 0.39 of the port (2026-12-04, K 4: utilisation
# 0.387 at 7/8 with T_low 300 us, 0.813 at 1/8, 0.873 with the times
# here; 0.840 with 300/2000/300 us, a 3.5 KB mean queue).
TIMELY_PRESET=(timely_ai_rate=1 timely_min_rate=1 timely_max_rate=200
	timely_alpha=128 timely_t_low=500 timely_t_high=2500 timely_min_rtt=500)

cnt() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

# sum_cnt NAME: NAME summed over the senders' devices.
sum_cnt() {
	local i n=0
	for ((i = 1; i <= k; i++)); do
		n=$((n + $(cnt "tx$i" "$1")))
	done
	echo $n
}

# host NS N DEV: netns-lib.sh's host NS at $mtu with sroce device DEV.
host() {
	host_up "$1" "$2" &&
		ip -n "$1" link set v0 mtu "$mtu" &&
		ip -n sw link set "p$2" mtu "$mtu" &&
		link_in "$1" "$3"
}

testbed_up() {
	local i
	switch_up && host r 100 rx || return 1
	for ((i = 1; i <= k; i++)); do
		host "s$i" "$i" "tx$i" || return 1
	done
	# RoCEv2 only: cc-flow's TCP connection would be Not-ECT in RED's
	# queue, and with DCQCN off a sender that joins a full queue would
	# wait out SYN backoffs while the others run. tbf's bucket holds 4 ms
	# at the rate (at least 10 KB): the TCG guest's timers are late, and
	# a smaller one loses tokens (measured at 64 Mb/s with 10 KB: 52).
	tc -n sw qdisc add dev p100 root handle 1: prio bands 2 \
		priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 &&
		tc -n sw qdisc add dev p100 parent 1:1 handle 10: tbf rate "${rate}mbit" \
			burst $((rate * 500 > 10240 ? rate * 500 : 10240)) latency 100ms &&
		tc -n sw filter add dev p100 parent 1: protocol ip prio 1 u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff flowid 1:1 &&
		inns r ping -c 1 -W 5 10.88.0.1 >/dev/null &&
		# tbf is emptied by whichever CPU runs it, and the veth hands
		# each packet to that CPU's backlog: a flow's packets dequeued
		# on two CPUs reached r out of order, each reorder a go-back for
		# RoCE (2026-12-07, READs at 4:1 through 32 Mb/s: 2778 gaps,
		# 15 timeouts in one run). RPS on r's veth keeps a flow on one
		# CPU, as a NIC's RSS does: no gap since.
		inns r sh -c "echo $(printf %x $(((1 << $(nproc)) - 1))) \
			>/sys/class/net/v0/queues/rx-0/rps_cpus"
}

# port_queue MODE: the bottleneck's queue below tbf for MODE, fresh (its
# counters at 0): RED marking ECN-capable packets CE for DCQCN and its
# contrast, a tail-drop FIFO of $fifo bytes for TIMELY and its contrast,
# the queue of a switch that marks nothing.
port_queue() {
	tc -n sw qdisc del dev p100 parent 10:1 handle 20: 2>/dev/null
	case $1 in
	on | off | read)
		tc -n sw qdisc add dev p100 parent 10:1 handle 20: red "${RED[@]}" \
			bandwidth "${rate}mbit" ecn
		;;
	*) tc -n sw qdisc add dev p100 parent 10:1 handle 20: bfifo limit "$fifo" ;;
	esac
}

# kv KEY LINE: the value of KEY=... in LINE.
kv() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }

# cc_check DESC CMD...: a DCQCN check; with nocc only its result is shown.
cc_check() {
	local desc=$1
	shift
	if [ -z "$nocc" ]; then
		check "cc: $desc" "$@"
	elif "$@" >/dev/null 2>&1; then
		echo "# cc (not asserted): $desc: yes"
	else
		echo "# cc (not asserted): $desc: NO"
	fi
}

# trace ON|OFF TAG: the sroce_cc_rate tracepoint (every sender's Rc) on,
# or off and saved as /job/trace-TAG.txt.
TRACE=/sys/kernel/tracing
trace() {
	if [ "$1" = on ]; then
		[ -d $TRACE/events ] || mount -t tracefs tracefs $TRACE || return 1
		echo 0 >$TRACE/tracing_on
		echo >$TRACE/trace
		echo 16384 >$TRACE/buffer_size_kb
		echo 1 >$TRACE/events/sroce/sroce_cc_rate/enable
		echo 1 >$TRACE/tracing_on
	else
		echo 0 >$TRACE/tracing_on
		echo 0 >$TRACE/events/sroce/sroce_cc_rate/enable
		cat $TRACE/trace >"/job/trace-$2.txt"
	fi
}

# counters TAG: every device's counters and RC QPs, /job/counters-TAG.txt.
counters() {
	local dev
	for dev in rx $(seq -f 'tx%g' 1 "$k"); do
		dump_counters "$dev" | grep -v ' 0$'
	done >"/job/counters-$1.txt"
	rdma res show qp type RC >>"/job/counters-$1.txt" 2>&1
}

# diag_start TAG / diag_stop: every diag=S seconds, the RC QPs with their
# engine state (rdma res -dd), each sender's sent_pkts and the cc-flow
# processes (CPU time, state) into /job/diag-TAG.txt, to tell a stalled
# QP from a starved process.
diag_start() {
	(
		while :; do
			echo "t=$(cut -d' ' -f1 /proc/uptime)"
			rdma -dd res show qp type RC 2>&1 | sed 's/^/  /'
			for ((i = 1; i <= k; i++)); do
				printf '  tx%s sent_pkts %s\n' "$i" "$(cnt "tx$i" sent_pkts)"
			done
			ps -o pid,ni,stat,time,args -C cc-flow | sed 's/^/  /'
			sleep "$diag_every"
		done
	) >"/job/diag-$1.txt" 2>&1 &
	diag_pid=$!
}

diag_stop() {
	kill "$diag_pid" 2>/dev/null
	wait "$diag_pid" 2>/dev/null
}

ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

# run MODE: one K:1 run in MODE (on, off, timely, drop or read).
run() {
	local mode=$1 tag=netns-$1 en=0 algo=0 i d dev spids=() cpids=() sampler rx_gid line rc t0 gids=()
	local setup=$((3 + k / 2))
	local cnp0 handled0 cnp handled bad=0 spaced srv=() cli=() read=()
	local op=write
	case $mode in
	on) en=255 ;;
	read) en=255 op=read ;;
	esac
	[ "$mode" = timely ] && algo=1
	# cc_algo is taken by QPs that connect after it is set.
	for dev in rx $(seq -f 'tx%g' 1 "$k"); do
		set_cc_params "$dev" rp_enable=$en np_enable=$en cc_algo=$algo || return 1
	done
	port_queue "$mode" || return 1
	rx_gid=$(gid r rx 10.88.0.100)
	cnp0=$(cnt rx np_cnp_sent)
	handled0=$(sum_cnt rp_cnp_handled)
	for ((i = 1; i <= k; i++)); do
		gids[i]=$(gid "s$i" "tx$i" "10.88.0.$i")
	done
	# The senders' setups run together before the first starts: a few
	# seconds in all, more with more senders.
	t0=$(awk -v s="$setup" '{ printf "%.1f", $1 + s }' /proc/uptime)
	ip netns exec sw python3 /job/cc-testbed.py record "/job/$tag.csv" \
		$((setup + dur + k * (gap + leave) + 30)) p100 "$k" "$rate" &
	sampler=$!
	# Flow i's server and client: namespace, device, GID (and the
	# server's address). Writes go from s<i> to r, READ responses too.
	for ((i = 1; i <= k; i++)); do
		if [ "$op" = read ]; then
			srv[i]="s$i tx$i ${gids[i]}" cli[i]="r rx $rx_gid 10.88.0.$i"
		else
			srv[i]="r rx $rx_gid" cli[i]="s$i tx$i ${gids[i]} 10.88.0.100"
		fi
	done
	[ "$op" = read ] && read=(read)
	for ((i = 1; i <= k; i++)); do
		set -- ${srv[i]}
		timeout "$TOOL_TIMEOUT" ip netns exec "$1" /job/cc-flow server "$2" "$3" \
			$((port + i)) >"/job/$tag-$i.server" 2>&1 &
		spids+=($!)
	done
	trace on
	diag_start "$tag"
	for ((i = 1; i <= k; i++)); do
		d=$((dur - (i - 1) * gap + (i - 1) * leave))
		set -- ${cli[i]}
		run_client "/job/$tag-$i.client" ip netns exec "$1" /job/cc-flow client \
			"$2" "$3" $((port + i)) "$4" \
			"$(awk -v t="$t0" -v o="$(((i - 1) * gap))" 'BEGIN { print t + o }')" "$d" \
			"${read[@]}" &
		cpids+=($!)
	done
	for ((i = 1; i <= k; i++)); do
		wait "${cpids[i - 1]}" || { bad=$((bad + 1)); sed 's/^/#   /' "/job/$tag-$i.client"; }
		wait "${spids[i - 1]}" || bad=$((bad + 1))
	done
	diag_stop
	trace off "$tag"
	counters "$tag"
	sleep 2
	kill "$sampler" 2>/dev/null
	wait "$sampler"
	port=$((port + k))
	tc -n sw -s qdisc show dev p100 >"/job/$tag-qdisc.txt"
	cnp=$(($(cnt rx np_cnp_sent) - cnp0))
	handled=$(($(sum_cnt rp_cnp_handled) - handled0))
	line=$(python3 /job/cc-testbed.py judge "/job/$tag.csv" "$k")
	rc=$?
	echo "mode=$mode op=$op rate=$rate $line cnp_sent=$cnp cnp_handled=$handled" >>/job/results.txt
	echo "# result: mode=$mode op=$op rate=$rate $line cnp_sent=$cnp cnp_handled=$handled"
	case $mode in
	off | drop)
		echo "# no congestion control (not asserted): $bad of $((2 * k)) cc-flow processes failed"
		check "$tag: no CNP without congestion control ($cnp)" test "$cnp" -eq 0
		return 0
		;;
	esac
	check "$tag: $k senders and their servers ran ($bad failed)" test $bad -eq 0
	check "$tag: every flow crossed the bottleneck, the window judged" test $rc -eq 0 ||
		return 1
	[ "$mode" = timely ] && {
		timely_checks "$tag" "$line" "$cnp"
		return
	}
	check "$tag: RED marked packets CE ($(kv marked "$line"))" test "$(kv marked "$line")" -gt 0
	cc_check "$tag: CNPs sent and handled ($cnp, $handled)" \
		test "$cnp" -gt 0 -a "$handled" -gt 0
	[ -n "$util_min" ] &&
		cc_check "$tag: utilisation at least $util_min ($(kv util "$line"))" \
			ge "$(kv util "$line")" "$util_min"
	[ -n "$jain_min" ] &&
		cc_check "$tag: Jain's index at least $jain_min ($(kv jain "$line"))" \
			ge "$(kv jain "$line")" "$jain_min"
	# The model's joins come gap seconds apart, and cc-flow starts each
	# sender on that schedule. Should the guest still bring two joins
	# closer (a start woken late), a bunch of line-rate joins may
	# overflow the port before the first CNPs and leave a longer queue
	# behind (seen with perftest's senders, whose setups bunched the
	# joins: 66 and 251 overflow drops, a mean queue 5.4 KB above the
	# model's): the model then says nothing of the run.
	spaced=$(awk -v j="$(kv join_gap_min "$line")" -v g="$gap" 'BEGIN { print (j >= g / 2) }')
	[ "$spaced" = 1 ] ||
		echo "# $tag: joins bunched ($(kv join_gap_min "$line") s apart at the closest): the model's checks and the overflow drops (not asserted)"
	model_checks "$tag" "$line" "$spaced"
	cc_check "$tag: mean queue below RED's max, 10000 B ($(kv backlog_mean "$line"))" \
		ge 10000 "$(kv backlog_mean "$line")"
	cc_check "$tag: no overflow drop once all have joined ($(kv pdrop_win "$line"))" \
		test "$(kv pdrop_win "$line")" -eq 0
	# Over the whole run the model drops nothing, but a sender joins at
	# line rate until its first CNP, as a ConnectX does, and from 200
	# Mb/s into the 64 Mb/s port its first window may overflow it
	# before DCQCN has cut it (sroce-cc.rst, K:1): 0, 30, 73 and 0 drops
	# in four runs at K 8 with the joins a second apart (2026-12-05),
	# each at a join. The issue's target (no drop) is asserted from K 16 on.
	if ((k >= 16)); then
		spaced_check "$spaced" "$tag: no overflow drop ($(kv pdrop "$line"))" \
			test "$(kv pdrop "$line")" -eq 0
	else
		echo "# $tag: $(kv pdrop "$line") overflow drops over the whole run (not asserted below K 16)"
	fi
}

# The reference model's figures for this testbed with its preset, DCQCN
# on (scripts/cc-model.py --rate RATE netns, at the default RED and
# schedule), keyed RATE:K: utilisation, Jain's index of the flows' mean
# rates, mean queue (bytes). The model drops nothing at any K.
declare -A MODEL=([64:2]="0.983 0.9986 1512" [64:4]="0.967 0.9950 2173"
	[64:8]="0.957 0.9952 2792" [64:16]="0.947 0.9977 3561"
	[32:2]="0.970 0.9984 2008" [32:4]="0.923 0.9988 2566"
	[32:8]="0.864 0.9998 3549" [32:16]="0.843 0.9989 12505")

# spaced_check SPACED DESC CMD...: a check of the model's, asserted when
# the joins came as the model's do (SPACED 1), shown otherwise.
spaced_check() {
	local spaced=$1 desc=$2
	shift 2
	if [ "$spaced" = 1 ]; then
		cc_check "$desc" "$@"
	elif "$@" >/dev/null 2>&1; then
		echo "# (not asserted, joins bunched): $desc: yes"
	else
		echo "# (not asserted, joins bunched): $desc: NO"
	fi
}

# model_checks TAG LINE SPACED: a DCQCN run against the model, for the
# rate and K it has figures for and the default network only.
model_checks() {
	local tag=$1 line=$2 spaced=$3 m_util m_jain m_queue
	[ -n "${MODEL[$rate:$k]:-}" ] && [ "$mtu $gap $leave ${RED[*]}" = \
		"1500 1 0 min 3000 max 10000 avpkt 1100 burst 3 probability 0.2 limit 400000" ] ||
		return 0
	read -r m_util m_jain m_queue <<<"${MODEL[$rate:$k]}"
	# The model's utilisation less 0.15: the guest's senders lose sending
	# time the model does not have (a pacer's timer later than its 4 ms
	# catch-up, a vCPU not run), the more the slower the host emulates.
	# Measured 2026-12-04: 0.05 to 0.10 below; on 2026-12-05's host 0.10
	# to 0.14 below at K 8 (0.821 to 0.865, six runs, with perftest's
	# senders as with cc-flow's). On 2026-12-07's hosts 0.22 to 0.26
	# below at K 8 (0.695 to 0.738, six runs), with mean queues of 17 to
	# 30 KB; through 32 Mb/s, 0.03 to 0.07 below at K 8 (0.792 to 0.836,
	# three runs) and 0.04 to 0.11 at K 4 (0.813 to 0.886, six runs).
	spaced_check "$spaced" "$tag: utilisation within 0.15 of the model's $m_util ($(kv util "$line"))" \
		ge "$(kv util "$line")" "$(awk -v m="$m_util" 'BEGIN { print m - 0.15 }')"
	# Jain's index less 0.03: a second's scheduling noise in a flow's
	# mean over the 20-40 s window. Measured: 0.001 to 0.005 below.
	spaced_check "$spaced" "$tag: Jain's index within 0.03 of the model's $m_jain ($(kv jain "$line"))" \
		ge "$(kv jain "$line")" "$(awk -v m="$m_jain" 'BEGIN { print m - 0.03 }')"
	# The mean queue at most the model's plus 5000 B, half of RED's max:
	# the same stalls make bursts the model's smooth senders do not.
	# Measured: 0 to 4.2 KB above, once 8.7 KB (K 16, failing it); on
	# 2026-12-07's hosts 0.5 below to 1.4 KB above at 32 Mb/s K 4 (six
	# runs), 3.0 to 8.9 KB above at K 8 (the rates' timers run together
	# after a shared CNP burst: every 100 ms all K add R_AI at once, and
	# the queue peaks).
	spaced_check "$spaced" "$tag: mean queue within 5000 B of the model's $m_queue B ($(kv backlog_mean "$line"))" \
		ge $((m_queue + 5000)) "$(kv backlog_mean "$line")"
}

# timely_checks TAG LINE CNPS: TIMELY through the tail-drop FIFO, judged
# on the issue's targets for a delay-based algorithm (utilisation 0.85,
# Jain 0.9). Its drops are recorded: senders joining within a round trip
# of each other, each at the 200 Mb/s ceiling, can overflow the FIFO
# before a sample tells them (K 16, 2026-12-04, before a loss halved the
# rate: 5466 drops, all while ten senders joined within 3 s, against
# 95486 without congestion control; with it, 0 in one run); the end of
# the run compares them with the FIFO's without TIMELY.
timely_checks() {
	local tag=$1 line=$2 cnp=$3
	check "$tag: nothing marked, no CNP ($(kv marked "$line"), $cnp)" \
		test "$(kv marked "$line")" -eq 0 -a "$cnp" -eq 0
	cc_check "$tag: utilisation at least 0.85 ($(kv util "$line"))" \
		ge "$(kv util "$line")" 0.85
	cc_check "$tag: Jain's index at least 0.9 ($(kv jain "$line"))" \
		ge "$(kv jain "$line")" 0.9
	echo "# $tag: $(kv pdrop "$line") tail drops"
}

# devices_gone: no sroce device left, within 30 s of the namespaces'
# deletion (the RDMA core unregisters them from a work item).
devices_gone() {
	local _
	for _ in $(seq 300); do
		rdma link show | grep -q . || return 0
		sleep 0.1
	done
	rdma link show
	return 1
}

check "load sroce" load_sroce || bail "cannot load sroce"
check "testbed: $k senders, a receiver, a ${rate} Mb/s switch port" testbed_up ||
	bail "no testbed"
for dev in rx $(seq -f 'tx%g' 1 "$k"); do
	set_cc_params "$dev" "${PRESET[@]}" "${TIMELY_PRESET[@]}" "${cc_set[@]}" ||
		bail "cannot set cc_params on $dev"
done
for m in "${modes[@]}"; do
	run "$m"
done
# contrast CC NONE NAME: when both modes ran, CC's mean queue is below
# half of that of NONE, the same queue without congestion control.
contrast() {
	local a b
	a=$(grep "^mode=$1 " /job/results.txt) && b=$(grep "^mode=$2 " /job/results.txt) ||
		return 0
	cc_check "$3 keeps the mean queue below half of that without it ($(kv backlog_mean "$a") vs $(kv backlog_mean "$b") B)" \
		awk -v a="$(kv backlog_mean "$a")" -v b="$(kv backlog_mean "$b")" \
		'BEGIN { exit !(a != "" && b != "" && a < b / 2) }'
}
contrast on off DCQCN
contrast timely drop TIMELY
# TIMELY's drops, when the FIFO ran without it too: at most a tenth.
if a=$(grep "^mode=timely " /job/results.txt) && b=$(grep "^mode=drop " /job/results.txt); then
	cc_check "TIMELY drops at most a tenth of what the FIFO drops without it ($(kv pdrop "$a") vs $(kv pdrop "$b"))" \
		test $((10 * $(kv pdrop "$a"))) -le "$(kv pdrop "$b")"
fi
for ns in $(ip netns list | cut -d' ' -f1); do
	ip netns pids "$ns" | xargs -r kill -KILL
	ip netns del "$ns"
done
check "every sroce device gone with its namespace" devices_gone
check "rmmod sroce" rmmod sroce
summary
