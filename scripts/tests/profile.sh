#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the CPU time goes: perf (cpu-clock sampling, call graphs) in both
# guests while perftest runs over each link type, for looking at sroce
# against rdma_rxe on the same guests. Run by scripts/vm-run.sh:
#
#   vm-run.sh -n 2 -t 900 -f .../sroce.ko profile.sh [TYPE...] [TOOL...] [xN]
#   vm-run.sh -n 1 -c 2 -t 900 -f .../sroce.ko profile.sh loopback [...]
#
# TYPE: sroce, rxe (default both); TOOL: ib_send_lat, ib_write_bw,
# ib_read_bw (default all three); xN runs N times the default iterations.
# Guest 0 serves, guest 1 is the client; with loopback guest 0 runs both
# on its own address (give it two vCPUs: both perftest processes poll). For each TYPE and tool, each guest
# leaves in /job TYPE-TOOL.flat (self time by symbol), .incl (time
# including callees), .comm (by task) and .cpu (its busy CPU seconds
# during the run, cpu_busy_since: the figure make bench divides by the
# bytes moved).
# TCG guests have no PMU: cpu-clock samples only; the guest is slower while
# perf samples, so read shares, not absolute times.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

port=19500
TOOL_TIMEOUT=200
types=()
tools=()
scale=1
loopback=''
for arg in "$@"; do
	case $arg in
	sroce | rxe) types+=("$arg") ;;
	ib_*) tools+=("$arg") ;;
	x[1-9]*) scale=${arg#x} ;;
	loopback) loopback=1 ;;
	*) echo "profile.sh: unknown argument $arg" >&2 && exit 2 ;;
	esac
done
[ ${#types[@]} -gt 0 ] || types=(sroce rxe)
[ ${#tools[@]} -gt 0 ] || tools=(ib_send_lat ib_write_bw ib_read_bw)

# report DATA OUT: the three views of one perf.data.
report() {
	perf report -i "$1" --stdio --no-children --sort sym -g none 2>/dev/null |
		grep '%' | head -n 80 >"$2.flat"
	perf report -i "$1" --stdio --children --sort sym -g none 2>/dev/null |
		grep '%' | head -n 120 >"$2.incl"
	perf report -i "$1" --stdio --no-children --sort comm -g none 2>/dev/null |
		grep '%' | head -n 20 >"$2.comm"
}

# profile TYPE TOOL ARGS...: one perftest run under perf in both guests.
profile() {
	local type=$1 tool=$2 dev=${1}0 gid tag ppid mark spid client_id=1
	local dest=$PEER_IP4
	shift 2
	[ -z "$loopback" ] || client_id=0 dest=$GUEST_IP4
	gid=$(roce_gid_index "$dev" "$GUEST_IP4")
	tag=$type-$tool
	barrier "$tag-start"
	perf record -e cpu-clock -F 1000 -a -g -o "/tmp/$tag.data" >/dev/null 2>&1 &
	ppid=$!
	sleep 1
	mark=$(cpu_mark)
	if [ "$GUEST_ID" = 0 ]; then
		timeout "$TOOL_TIMEOUT" "$tool" -d "$dev" -x "$gid" -p $port -F "$@" \
			>"/job/$tag.server" 2>&1 &
		spid=$!
	fi
	barrier "$tag-up"
	if [ "$GUEST_ID" = "$client_id" ]; then
		sleep 1
		timeout "$TOOL_TIMEOUT" "$tool" -d "$dev" -x "$gid" -p $port -F "$@" \
			"$dest" >"/job/$tag.client" 2>&1
		check "$type $tool $* (client)" test $? -eq 0
	fi
	if [ "$GUEST_ID" = 0 ]; then
		wait $spid
		check "$type $tool $* (server)" test $? -eq 0
	fi
	cpu_busy_since "$mark" >"/job/$tag.cpu"
	kill -INT $ppid
	wait $ppid
	# Before the module goes: perf resolves its symbols from /proc/kallsyms.
	report "/tmp/$tag.data" "/job/$tag"
	rm -f "/tmp/$tag.data"
	barrier "$tag-done"
	port=$((port + 1))
}

for type in "${types[@]}"; do
	check "load $type" load_link_module "$type" || continue
	check "add ${type}0" rdma link add "${type}0" type "$type" netdev eth0
	wait_port_active "${type}0"
	ping -c 1 -W 5 "$PEER_IP4" >/dev/null 2>&1
	for tool in "${tools[@]}"; do
		case $tool in
		ib_send_lat) profile "$type" "$tool" -s 2 -n $((3000 * scale)) ;;
		*) profile "$type" "$tool" -s 65536 -n $((400 * scale)) ;;
		esac
	done
	rdma link delete "${type}0"
	case $type in
	sroce) rmmod sroce ;;
	rxe) rmmod rdma_rxe ;;
	esac
done
summary
