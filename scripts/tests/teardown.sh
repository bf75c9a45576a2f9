#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Teardown under load, run by scripts/vm-run.sh in two guests with sroce
# on both (with -f .../sroce.ko -f .../rc-verify):
#
#   teardown.sh [ROUNDS] [ACTION...]
#
# rc-verify (scripts/tests/rc-verify.c) streams verified RC traffic on 8
# QPs, guest 0 serving, guest 1 the client: SENDs, WRITEs and atomics one
# way, READ responses the other. While it runs, one ACTION (default: all,
# in this order):
#
#   kill-client   kill -9 of the client (guest 1)
#   kill-server   kill -9 of the server (guest 0)
#   link-del      rdma link del sroce0 on guest 0
#   flap          eth0 down, 1 s, up on guest 0
#   netdev-del    traffic over sroce1 on a macvlan (mv5, 10.77.5.N) of
#                 both guests; guest 0 deletes mv5, which must take
#                 sroce1 with it (sroce refuses links on VLAN devices:
#                 a VLAN's addresses are GIDs of the real device's link)
#   vlan-del      traffic over sroce0 with the GID of a VLAN (eth0.5,
#                 10.77.6.N) of both guests; guest 0 deletes eth0.5
#   rmmod         rmmod sroce on guest 0; if it is refused while the
#                 server holds the device, the server is killed and rmmod
#                 must then succeed; sroce is loaded again after
#
# With the option odp, both sides' buffers are on-demand-paging MRs that a
# thread drops from the page tables every 50 ms (rc-verify -o 50), so that
# each action meets page faults and mmu notifier invalidations in flight.
#
# Each action, and each process it ends, must finish within 30 s; a hang
# prints the blocked task's kernel stack and the sysrq-w dump, and fails.
# The side not acted on must see an error and exit (not hang, nor stall:
# rc-verify gives up after 30 s without progress, exit 3), no run may see
# a data mismatch (exit 4), and afterwards a fresh connection must carry a
# short verified transfer. vm-run.sh judges the kernel log. Every round
# repeats every action: `make check` runs one round, `make stress` 50.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

rounds=1 actions=() odp=""
for opt in "$@"; do
	case $opt in
	[0-9]*) rounds=$opt ;;
	odp) odp="-o 50" ;;
	kill-client|kill-server|link-del|flap|netdev-del|vlan-del|rmmod) actions+=("$opt") ;;
	*) bail "unknown option '$opt'" ;;
	esac
done
[ ${#actions[@]} -gt 0 ] || actions=(kill-client kill-server link-del flap netdev-del vlan-del rmmod)
prog=/job/rc-verify
[ -x $prog ] || bail "no $prog: pass -f .../rc-verify to vm-run.sh"
BOUND=30
STREAM="-q 8 -w 4 -m 65536 -n 0 -T $BOUND -t 17 -s $((RANDOM * 32768 + RANDOM)) $odp"
port=19500

link_up sroce sroce0
addrs_ready peer

# gid_of DEV IP: DEV's RoCE v2 GID index for IP, or bail.
gid_of() {
	roce_gid_index "$1" "$2" || bail "no RoCE v2 GID on $1 for $2"
}

# gid_wait DEV IP: DEV's RoCE v2 GID index for IP, once ib_core has added it.
gid_wait() {
	local _
	for _ in $(seq 50); do
		roce_gid_index "$1" "$2" 2>/dev/null && return 0
		sleep 0.2
	done
	echo 0
	return 1
}

# hang_dump PID: what the task PID is blocked on.
hang_dump() {
	local t
	echo "# task $1 ($(cat "/proc/$1/comm" 2>/dev/null)) did not finish:"
	for t in /proc/"$1"/task/*; do
		echo "#   $t: state $(awk '{ print $3 }' "$t/stat" 2>/dev/null) wchan $(cat "$t/wchan" 2>/dev/null)"
		sed 's/^/#     /' "$t/stack" 2>/dev/null
	done
	echo w >/proc/sysrq-trigger
	sleep 1
	dmesg | tail -n 120 | sed 's/^/#   dmesg: /'
}

# gone PID: the background job PID has ended (or is a zombie).
gone() {
	local state
	state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
	[ -z "$state" ] || [ "$state" = Z ]
}

# wait_bounded PID [SECS]: wait for the background job PID to end;
# its exit status, or 124 (after the hang dump and kill -9) if it is still
# there after SECS. A task in D state ignores the kill: it is left behind
# (as 125) rather than waited for without bound.
wait_bounded() {
	local pid=$1 end=$((SECONDS + ${2:-$BOUND}))
	until gone "$pid"; do
		if [ $SECONDS -ge $end ]; then
			hang_dump "$pid"
			kill -9 "$pid" 2>/dev/null
			for _ in $(seq 50); do
				gone "$pid" && break
				sleep 0.2
			done
			gone "$pid" || return 125
			wait "$pid" 2>/dev/null
			return 124
		fi
		sleep 0.2
	done
	wait "$pid"
}

# bounded DESC CMD...: CMD finishes within BOUND s and succeeds.
bounded() {
	local desc=$1 pid rc log=/job/cmd.log
	shift
	"$@" >"$log" 2>&1 &
	pid=$!
	wait_bounded $pid
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "$desc"
	else
		fail "$desc"
		echo "#   command: $* (exit $rc${rc/#124/, hung})"
		sed 's/^/#   /' "$log"
	fi
	return $rc
}

# expect_exit DESC PID LOG ALLOWED...: the rc-verify run PID ends within
# BOUND s with one of the ALLOWED statuses: ok (0), err (1 or 2: an error
# seen and reported) or killed (137, after kill -9).
expect_exit() {
	local desc=$1 pid=$2 log=$3 rc a good=''
	shift 3
	wait_bounded "$pid"
	rc=$?
	for a in "$@"; do
		case $a/$rc in
		ok/0|err/1|err/2|killed/137) good=1 ;;
		esac
	done
	case $rc in
	3) why="stalled: no error seen" ;;
	4) why="DATA MISMATCH" ;;
	124) why="hung" ;;
	137) why="killed" ;;
	*) why="" ;;
	esac
	tail -n 3 "$log" | sed 's/^/#   | /'
	if [ -n "$good" ]; then
		pass "$desc (exit $rc)"
		return 0
	fi
	fail "$desc (exit $rc${why:+, $why})"
	sed 's/^/#   /' "$log"
	return 1
}

# start DEV GID PEER LOG OPTS: start this guest's side of a run in the
# background (guest 0 serves, guest 1 connects to PEER); sets pid.
start() {
	local dev=$1 gid=$2 peer=$3 log=$4
	shift 4
	if [ "$GUEST_ID" = 0 ]; then
		$prog server "$dev" "$gid" $port >"$log" 2>&1 &
	else
		# shellcheck disable=SC2068 # the options are split on purpose
		$prog $@ client "$dev" "$gid" $port "$peer" >"$log" 2>&1 &
	fi
	pid=$!
}

# flowing LOG: the client's first operation completed 2 s ago.
flowing() {
	local _
	for _ in $(seq 150); do
		grep -q '^# client: traffic flowing' "$1" 2>/dev/null && { sleep 2; return 0; }
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	fail "$1: traffic did not start"
	sed 's/^/#   /' "$1"
	return 1
}

# net_diag: the state of the IP path to the peer, for a failed check.
net_diag() {
	{
		ping -c 2 -W 2 "$PEER_IP4"
		ip neigh show dev eth0
		ss -tan
		ip -s link show dev eth0
		grep -E '^(Ip|Tcp|Udp):' /proc/net/snmp
		cat /proc/net/softnet_stat
		grep -E 'NET_RX|NET_TX' /proc/softirqs
		ps -eo pid,stat,pcpu,wchan:30,comm --sort=-pcpu | head -n 8
		dmesg | tail -n 15
	} 2>&1 | sed 's/^/#   net: /'
}

# fresh TAG: a new connection carries a short verified transfer.
fresh() {
	local gid log=/job/$1-fresh-$port
	gid=$(gid_of sroce0 "$GUEST_IP4")
	barrier "$1-fresh-$port"
	start sroce0 "$gid" "$PEER_IP4" "$log" -q 4 -w 4 -m 65536 -n 12 -T 60 -s $RANDOM
	if ! expect_exit "$1: a fresh connection verifies its data afterwards" \
		"$pid" "$log" ok; then
		net_diag
		# Without IP between the guests nothing after can pass.
		ping -c 3 -W 3 "$PEER_IP4" >/dev/null 2>&1 ||
			bail "$1: no IP traffic to $PEER_IP4 any more"
	fi
	barrier "$1-fresh-done-$port"
	port=$((port + 1))
}

# extra_up ACTION / extra_down: the netdev of netdev-del (mv5, a macvlan
# on eth0, with sroce1 on it) or vlan-del (eth0.5, whose address is a GID
# of sroce0); prints the device and the local address to use.
extra_up() {
	local n=$((GUEST_ID + 1))
	case $1 in
	netdev-del)
		# Only mv5 may answer ARP for mv5's address: a reply from eth0
		# sends the peer's RoCE packets to eth0, hence to sroce0.
		sysctl -qw net.ipv4.conf.all.arp_ignore=1 \
			net.ipv4.conf.all.arp_announce=2 &&
			ip link add link eth0 name mv5 type macvlan mode bridge &&
			ip addr add "10.77.5.$n/24" dev mv5 &&
			ip link set mv5 up &&
			rdma link add sroce1 type sroce netdev mv5 &&
			wait_port_active sroce1 10 &&
			echo "sroce1 10.77.5"
		;;
	vlan-del)
		ip link add link eth0 name eth0.5 type vlan id 5 &&
			ip addr add "10.77.6.$n/24" dev eth0.5 &&
			ip link set eth0.5 up &&
			echo "sroce0 10.77.6"
		;;
	esac
}

extra_down() {
	ip link del mv5 2>/dev/null
	ip link del eth0.5 2>/dev/null
	! rdma link show sroce1 >/dev/null 2>&1 || rdma link del sroce1
	true
}

# act ACTION: one action under load; both guests call it.
act() {
	local a=$1 log=/job/$1-$port dev=sroce0 net='' gid t0=$SECONDS x
	gid=$(gid_of sroce0 "$GUEST_IP4")
	if [ "$a" = netdev-del ] || [ "$a" = vlan-del ]; then
		x=$(extra_up "$a" 2>/job/extra.log)
		read -r dev net <<<"$x"
		check "$a: ${dev:-its device} on ${net:-?}.$((GUEST_ID + 1))" test -n "$net" ||
			sed 's/^/#   /' /job/extra.log
		addrs_ready
		barrier "$a-$port-extra"
		check "$a: ping $net.$((2 - GUEST_ID))" ping -c 1 -W 5 "$net.$((2 - GUEST_ID))"
		gid=$(gid_wait "${dev:-sroce0}" "$net.$((GUEST_ID + 1))") ||
			fail "$a: no RoCE v2 GID on ${dev:-sroce0} for $net.$((GUEST_ID + 1))"
	fi
	barrier "$a-$port-start"
	# The control connection always goes over eth0.
	# shellcheck disable=SC2086,SC2046
	start $dev "$gid" "$PEER_IP4" "$log" $STREAM $([ "$a" = flap ] && echo -D 12)
	[ "$GUEST_ID" = 0 ] || flowing "$log"
	barrier "$a-$port-flowing"
	[ "$dev" = sroce0 ] || dump_counters "$dev"
	case $a/$GUEST_ID in
	kill-client/1)
		kill -9 "$pid"
		expect_exit "$a: killed client exits" "$pid" "$log" killed
		;;
	kill-client/0)
		expect_exit "$a: server sees the client gone" "$pid" "$log" err
		;;
	kill-server/0)
		kill -9 "$pid"
		expect_exit "$a: killed server exits" "$pid" "$log" killed
		;;
	kill-server/1)
		expect_exit "$a: client sees the server gone" "$pid" "$log" err
		;;
	link-del/0)
		link_del_under_load "$log"
		;;
	flap/0)
		bounded "$a: eth0 down, 1 s, up under load" \
			bash -c 'ip link set dev eth0 down; sleep 1; ip link set dev eth0 up'
		wait_port_active sroce0 20 || fail "$a: sroce0 not active again"
		;;
	netdev-del/0)
		bounded "$a: ip link del mv5 under load" ip link del mv5
		check "$a: sroce1 went with mv5" bash -c '! rdma link show sroce1'
		expect_exit "$a: server sees sroce1 gone" "$pid" "$log" err
		;;
	netdev-del/1)
		expect_exit "$a: client sees the peer's sroce1 gone" "$pid" "$log" err
		;;
	vlan-del/0)
		bounded "$a: ip link del eth0.5 under load" ip link del eth0.5
		expect_exit "$a: server sees its GID gone" "$pid" "$log" err
		;;
	vlan-del/1)
		expect_exit "$a: client sees the peer's address gone" "$pid" "$log" err
		;;
	rmmod/0)
		rmmod_under_load "$log"
		;;
	link-del/1|rmmod/1)
		expect_exit "$a: client sees the server's device gone" "$pid" "$log" err
		;;
	flap/1)
		# The run (-D 12) goes on or ends in error, in time and
		# with nothing but verified data.
		expect_exit "$a: client run ends without a mismatch or hang" "$pid" "$log" ok err
		;;
	esac
	if [ "$a" = flap ] && [ "$GUEST_ID" = 0 ]; then
		expect_exit "$a: server run ends without a mismatch or hang" "$pid" "$log" ok err
	fi
	barrier "$a-$port-acted"
	extra_down
	port=$((port + 1))
	fresh "$a"
	echo "# $a: $((SECONDS - t0)) s"
}

# link_del_under_load LOG: rdma link del sroce0 with the server running on
# it: it must return within BOUND s and the server see its device go. If
# it waits instead, eth0 must still carry IP; the server is then killed
# and the link del must end once it is gone.
link_del_under_load() {
	local ld rc
	rdma link del sroce0 >/job/link-del.log 2>&1 &
	ld=$!
	wait_bounded $ld
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "link-del: rdma link del sroce0 under load returned"
		expect_exit "link-del: server sees its device gone" "$pid" "$1" err
	else
		fail "link-del: rdma link del sroce0 under load (exit $rc${rc/#12[45]/, hung})"
		check "link-del: eth0 carries IP meanwhile (ping $PEER_IP4)" \
			ping -c 2 -W 5 "$PEER_IP4"
		kill -9 "$pid" 2>/dev/null
		expect_exit "link-del: killed server exits" "$pid" "$1" killed err
		if [ $rc -eq 125 ]; then
			wait_bounded $ld
			rc=$?
			check "link-del: rdma link del returns once the server is gone (exit $rc)" \
				test $rc -eq 0
		fi
	fi
	check "link-del: sroce0 gone" bash -c '! rdma link show sroce0'
	bounded "link-del: rdma link add sroce0 again" rdma link add sroce0 type sroce netdev eth0
	wait_port_active sroce0 10 || fail "link-del: sroce0 not active again"
}

# rmmod_under_load LOG: rmmod sroce with the server running on sroce0.
rmmod_under_load() {
	local rc
	rmmod sroce >/job/rmmod.log 2>&1 &
	wait_bounded $!
	rc=$?
	echo "# rmmod sroce under load: exit $rc: $(cat /job/rmmod.log)"
	if [ $rc -eq 124 ]; then
		fail "rmmod: rmmod sroce under load hung"
	elif [ $rc -eq 0 ]; then
		pass "rmmod: rmmod sroce under load succeeded"
		expect_exit "rmmod: server sees its device gone" "$pid" "$1" err
	else
		pass "rmmod: refused while the server holds sroce0 (exit $rc)"
		kill -9 "$pid"
		expect_exit "rmmod: killed server exits" "$pid" "$1" killed
		bounded "rmmod: rmmod sroce once the server is gone" rmmod sroce
	fi
	check "rmmod: sroce loaded again" load_sroce
	check "rmmod: sroce0 added again" rdma link add sroce0 type sroce netdev eth0
	wait_port_active sroce0 10 || fail "rmmod: sroce0 not active again"
}

t_all=$SECONDS
for ((r = 1; r <= rounds; r++)); do
	echo "# round $r of $rounds"
	for a in "${actions[@]}"; do
		act "$a"
	done
done
echo "# $rounds round(s) in $((SECONDS - t_all)) s"
dump_counters sroce0
check "rdma link delete sroce0" rdma link delete sroce0
check "rmmod sroce" rmmod sroce
summary
