# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for job scripts that scripts/vm-run.sh runs inside the test guests;
# source it: `. /job/guest-lib.sh`. guest-init has exported /job/env
# (GUEST_ID, NGUESTS, MTU, GUEST_IP4/6, PEER_IP4/6, TIME_FACTOR: how many
# times slower than the stock kernel this guest's kernel is).
#
# Each check prints one line, `ok - DESC` or `not ok - DESC` (vm-run.sh
# counts them), with the failing command's output as `#` lines under it.
# End the job with `summary`: its status becomes the guest's result. Do not
# `set -e` in a job: a failed check is meant to be recorded, not to stop it.

GL_PASS=0
GL_FAIL=0
GL_BARRIERS=0
GL_BARRIER_DIR=/shared/.barrier
BARRIER_TIMEOUT=${BARRIER_TIMEOUT:-$((120 * ${TIME_FACTOR:-1}))}

# pass MSG: record a passed check.
pass() {
	echo "ok - $*"
	GL_PASS=$((GL_PASS + 1))
}

# fail MSG: record a failed check.
fail() {
	echo "not ok - $*"
	GL_FAIL=$((GL_FAIL + 1))
	return 1
}

# check DESC CMD...: run CMD (in a subshell: it cannot set variables) and
# record whether it succeeded. Returns CMD's status.
check() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "$desc"
		return 0
	fi
	fail "$desc"
	echo "#   command: $* (exit $rc)"
	[ -z "$out" ] || printf '%s\n' "$out" | tail -n 30 | sed 's/^/#   /'
	return $rc
}

# summary: print this guest's counts; fails if any check failed or none ran.
summary() {
	echo "$GL_PASS passed, $GL_FAIL failed"
	[ $GL_FAIL -eq 0 ] && [ $GL_PASS -gt 0 ]
}

# bail MSG: a failure the job cannot go on from. Records it, tells the
# other guests (their barriers fail at once instead of timing out) and exits.
bail() {
	fail "$*"
	mkdir -p "$GL_BARRIER_DIR"
	echo "$GUEST_ID" >"$GL_BARRIER_DIR/abort"
	summary
	exit 1
}

# set_servers OPT: a pair test's servers=0|1|both option, into the array
# servers: the guests that take the server's part, in turn.
# shellcheck disable=SC2034 # the caller reads servers
set_servers() {
	case $1 in
	servers=0 | servers=1) servers=("${1#servers=}") ;;
	servers=both) servers=(0 1) ;;
	*) bail "unknown option '$1'" ;;
	esac
}

# barrier NAME: wait until all NGUESTS guests reached it, through files in
# /shared. Guests pass the same barriers in the same order, so a sequence
# number makes each one distinct even when NAME repeats.
barrier() {
	local tag deadline arrived
	GL_BARRIERS=$((GL_BARRIERS + 1))
	tag=$GL_BARRIERS-$1
	mkdir -p "$GL_BARRIER_DIR"
	touch "$GL_BARRIER_DIR/$tag.$GUEST_ID"
	deadline=$((SECONDS + BARRIER_TIMEOUT))
	while :; do
		if [ -e "$GL_BARRIER_DIR/abort" ]; then
			fail "barrier $1: guest $(cat "$GL_BARRIER_DIR/abort") bailed out"
			return 1
		fi
		arrived=("$GL_BARRIER_DIR/$tag".*)
		[ ${#arrived[@]} -ge "$NGUESTS" ] && return 0
		if [ $SECONDS -ge $deadline ]; then
			fail "barrier $1: ${#arrived[@]} of $NGUESTS guests after ${BARRIER_TIMEOUT} s"
			return 1
		fi
		sleep 0.2
	done
}

# load_sroce: the module under test (vm-run.sh -f .../sroce.ko) and the
# modules it needs; nothing autoloads them in the guest. With
# SROCE_FROM=dkms, the module installed for this kernel (dkms.sh); with
# SROCE_KO=PATH, that file instead of /job/sroce.ko.
load_sroce() {
	[ "${SROCE_FROM:-}" != dkms ] || { modprobe sroce; return; }
	local ko=${SROCE_KO:-/job/sroce.ko}
	[ -f "$ko" ] || { echo "no $ko: pass -f .../sroce.ko to vm-run.sh"; return 1; }
	modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel &&
		insmod "$ko"
}

# load_link_module TYPE: the module behind `rdma link add ... type TYPE`,
# sroce (from /job/sroce.ko) or rxe (the stock rdma_rxe, for comparison).
load_link_module() {
	case $1 in
	sroce) load_sroce ;;
	rxe)
		# The debug kernel reports 6.1's rdma_rxe reading past its MR
		# map (vm-run.sh's KERNEL_KNOWN) once per copy that ends on an
		# MR's last buffer, hundreds per run, each ~10 ms of serial
		# console output: long enough to stall this guest past a
		# peer's 67 ms retransmit timeout. Only what is more urgent
		# than an error goes to the console; the kernel log keeps all.
		[ "${TIME_FACTOR:-1}" -eq 1 ] || dmesg -n 3
		modprobe -a ib_uverbs rdma_rxe
		;;
	*) echo "unknown link type '$1' (sroce or rxe)" && return 1 ;;
	esac
}

# roce_gid_index DEV IP: print the index of DEV's RoCE v2 GID for the IPv4
# or IPv6 address IP (what perftest -x and ibv_*_pingpong -g take).
roce_gid_index() {
	local want=$2
	[[ $want == *:* ]] || want=::ffff:$want
	ibv_devinfo -v -d "$1" |
		awk -v gid="$want," '$1 ~ /^GID\[/ && $(NF-2) == gid && $NF == "v2" {
			sub(/.*\[ */, "", $0); sub(/\].*/, "", $0); print; exit }' | grep .
}

# wait_port_state DEV STATE [TIMEOUT_S]: wait until port 1 of RDMA device
# DEV is in STATE (ACTIVE, DOWN, ...); prints the last state seen on failure.
wait_port_state() {
	local f=/sys/class/infiniband/$1/ports/1/state deadline=$((SECONDS + ${3:-10}))
	until grep -qw "$2" "$f" 2>/dev/null; do
		if [ $SECONDS -ge $deadline ]; then
			echo "$1 port 1 state: $(cat "$f" 2>&1), wanted $2"
			return 1
		fi
		sleep 0.1
	done
}

# wait_port_active DEV [TIMEOUT_S]
wait_port_active() {
	wait_port_state "$1" ACTIVE "${2:-10}"
}

# link_up TYPE DEV: load TYPE's module, add RDMA device DEV on eth0 and
# wait for its port to be ACTIVE; bails out on failure.
link_up() {
	load_link_module "$1" || bail "load $1"
	rdma link add "$2" type "$1" netdev eth0 || bail "rdma link add $2"
	wait_port_active "$2" || bail "$2 not active"
}

# addrs_ready [peer]: modify_qp to RTR and address handles resolve the
# peer's MAC from its IP address, so wait until IPv6 duplicate address
# detection is over and, with "peer", fill the neighbour caches.
addrs_ready() {
	local _
	for _ in $(seq 50); do
		ip -6 addr show dev eth0 tentative | grep -q inet6 || break
		sleep 0.2
	done
	[ "${1:-}" = peer ] || return 0
	ping -c 1 -W 5 "$PEER_IP4" >/dev/null 2>&1
	ping -6 -c 1 -W 5 "$PEER_IP6" >/dev/null 2>&1
	return 0
}

# check_server DESC PID LOG: the background server PID exited 0; shows its
# LOG otherwise.
check_server() {
	local rc
	wait "$2"
	rc=$?
	check "$1" test $rc -eq 0 || sed 's/^/#   /' "$3"
}

# count_checks LOG: the "ok - " and "not ok - " lines a test program wrote
# to LOG count as this job's checks.
count_checks() {
	GL_PASS=$((GL_PASS + $(grep -c '^ok - ' "$1")))
	GL_FAIL=$((GL_FAIL + $(grep -c '^not ok - ' "$1")))
}

# prog_results NAME RC LOG: test program NAME exited RC, its output in LOG.
# LOG goes into the job log; its checks count, and one more that RC is 0.
prog_results() {
	cat "$3"
	count_checks "$3"
	check "$1 exits 0" test "$2" -eq 0
}

# clock_miss LOG: perftest in LOG gave up before its report because its
# CPU clock sampling did not fit a line ("Correlation coefficient r^2 ...
# < 0.9", "Can't produce a report"): a TCG guest on a busy host stalls
# while it samples. It says nothing of the transfer, so the pair runs again.
clock_miss() {
	grep -q "Can't produce a report" "$1" 2>/dev/null
}

# tool_pair SERVER LOG DESC CMD...: CMD as the server on guest SERVER (for
# at most TOOL_TIMEOUT s) and, with the server's address added, as its
# client on the other guest, each one check ("DESC (TYPE server)", "DESC
# (TYPE client to TYPE)", TYPE from the job's types array). Output in
# LOG.server or LOG.client; the client starts once the server is up, and
# again while it does not listen yet. Both run again, up to twice, when
# the client's perftest missed its clock (clock_miss).
# shellcheck disable=SC2154 # types: the pair job's, one link type per guest
tool_pair() {
	local server=$1 log=$2 desc=$3 spid rc again try
	shift 3
	for try in 1 2 3; do
		if [ "$GUEST_ID" = "$server" ]; then
			timeout "$TOOL_TIMEOUT" "$@" >"$log.server" 2>&1 &
			spid=$!
			barrier "${log##*/}-up"
			wait $spid
			rc=$?
		else
			barrier "${log##*/}-up"
			run_client "$log.client" "$@" "$PEER_IP4"
			rc=$?
		fi
		# Both guests passed the same barriers: one name for this try.
		again=$GL_BARRIER_DIR/again-$GL_BARRIERS
		[ "$GUEST_ID" != "$server" ] && [ $try -lt 3 ] &&
			clock_miss "$log.client" && touch "$again"
		barrier "${log##*/}-ran"
		[ -e "$again" ] || break
		echo "# $desc: perftest missed its clock, run again"
	done
	if [ "$GUEST_ID" = "$server" ]; then
		check "$desc (${types[$server]} server)" test $rc -eq 0 ||
			sed 's/^/#   /' "$log.server"
	else
		check "$desc (${types[$GUEST_ID]} client to ${types[$server]})" \
			test $rc -eq 0 || sed 's/^/#   /' "$log.client"
	fi
}

# local_pair LOG DESC SERVER CLIENT: a server and its client on this guest,
# each a command line (split at spaces), output in LOG.server and
# LOG.client; checks "DESC client" and "DESC server". Both run again, up
# to twice, when the client's perftest missed its clock (clock_miss).
local_pair() {
	local log=$1 desc=$2 pid rc src try
	for try in 1 2 3; do
		# shellcheck disable=SC2086 # command lines, split at spaces
		timeout "$TOOL_TIMEOUT" $3 >"$log.server" 2>&1 &
		pid=$!
		# shellcheck disable=SC2086
		run_client "$log.client" $4
		rc=$?
		wait $pid
		src=$?
		{ [ $try -lt 3 ] && clock_miss "$log.client"; } || break
		echo "# $desc: perftest missed its clock, run again"
	done
	check "$desc client" test $rc -eq 0 || sed 's/^/#   /' "$log.client"
	check "$desc server" test $src -eq 0 || sed 's/^/#   /' "$log.server"
}

# udp_csum_errors: UDP datagrams (IPv4 and IPv6) this guest dropped on
# their checksum.
udp_csum_errors() {
	local v4 v6
	v4=$(awk '$1 == "Udp:" { if (!n) { for (i = 2; i <= NF; i++) if ($i == "InCsumErrors") c = i; n = 1 } else print $c }' /proc/net/snmp)
	v6=$(awk '$1 == "Udp6InCsumErrors" { print $2 }' /proc/net/snmp6)
	echo $((v4 + v6))
}

# set_cc_params DEV NAME=VALUE...: DEV's sroce cc_params (sysfs), in order;
# says which one it could not set.
set_cc_params() {
	local dev=$1 a
	shift
	for a in "$@"; do
		echo "${a#*=}" >"/sys/class/infiniband/$dev/ports/1/cc_params/${a%%=*}" ||
			{ echo "cannot set $a on $dev"; return 1; }
	done
}

# dump_counters DEV: DEV's port counters into the job log, for the record.
dump_counters() {
	local f
	echo "# $1 hw_counters:"
	for f in /sys/class/infiniband/"$1"/ports/1/hw_counters/*; do
		echo "#   $(basename "$f") $(cat "$f")"
	done
}

# run_client LOG CMD...: run a perftest/ibv_*_pingpong client with
# TOOL_TIMEOUT (default 150 s, TIME_FACTOR times that on a slower kernel),
# output to LOG, again while its server is not listening yet; returns the
# client's status.
run_client() {
	local log=$1 rc
	shift
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		timeout "${TOOL_TIMEOUT:-$((150 * ${TIME_FACTOR:-1}))}" "$@" >"$log" 2>&1
		rc=$?
		# Not listening yet: refused, or with rdma_cm rejected for an
		# unknown service ID (reason 8): perftest prints "...REJECTED;
		# error: 8", rping "...REJECTED, error 8".
		grep -qiE "couldn't connect|connection refused|Unable to connect|RDMA_CM_EVENT_REJECTED[;,] error:? 8" \
			"$log" || return $rc
		# The next attempt overwrites $log: keep this one's output.
		{
			echo "# attempt ended with exit $rc:"
			cat "$log"
		} >>"$log.tries"
		sleep 1
	done
	return $rc
}

# cpu_mark: a mark for cpu_busy_since, "uptime_s idle_s".
#
# Busy time is what was not idle. The busy buckets of /proc/stat (user,
# system, softirq, ...) are filled by sampling at the tick, and a tickless
# idle CPU has no tick: work done in interrupts and in the softirqs that
# run on their exit, while the CPU is otherwise idle, lands in no bucket.
# Idle time is measured (it stops at each interrupt), so this counts
# such work too, and the same way for every driver whether it runs in a
# task or on interrupt exit.
cpu_mark() {
	local up
	read -r up _ </proc/uptime
	awk -v up="$up" -v hz="$(getconf CLK_TCK)" \
		'$1 == "cpu" { print up, ($5 + $6) / hz; exit }' /proc/stat
}

# cpu_busy_since MARK: CPU seconds this guest spent busy since MARK.
cpu_busy_since() {
	local now
	now=$(cpu_mark)
	awk -v a="$1" -v b="$now" -v n="$(nproc)" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		busy = (y[1] - x[1]) * n - (y[2] - x[2])
		printf "%.3f\n", busy < 0 ? 0 : busy
	}'
}
