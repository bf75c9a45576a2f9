#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC data path through the standard tools, run by scripts/vm-run.sh:
#
#   rc.sh pair TYPE0 TYPE1 [OPTION...]   two guests; guest N runs link type
#                                        TYPEn (sroce or rxe); every test
#                                        runs with each guest as server
#                                        (servers=both, the default) or
#                                        with guest 0 or 1 alone
#   rc.sh loopback TYPE [OPTION...]      one guest, server and client on
#                                        the same device
#
# Options: quick (default) or full, the set of tests; sweep, each tool
# also at its smallest size and at 1 MiB (the atomics have one size, 8
# bytes), so that with quick every tool runs over 1..2 B, 4-64 KiB and
# 1 MiB messages; ipv6, RoCEv2 over
# IPv6 (the GID of the guest's IPv6 address) instead of IPv4; capture,
# guest 0 records RoCEv2 traffic on eth0 to /job/wire.pcap for the host;
# uso, the NIC's UDP segmentation offload on (6.12's virtio-net under
# vm-run.sh -q's QEMU 10 offers it) and an sroce device's tx_trains 2, so
# that its send trains cross the NIC whole; swcsum, eth0's transmit
# checksum offload off, so that the sender fills in every UDP checksum and
# the receiver checks it (virtio-net otherwise passes a checksum to be
# filled in to the peer, which then trusts it: nobody checks it), and no
# UDP checksum error may be counted; decoy (with ipv6), a route to the
# peer's address through a dummy netdev, more specific than eth0's: RoCE
# packets must still leave by the GID's netdev, as a NIC's leave by its port
# (the tools' own TCP runs over IPv4); policy (with ipv6), the main table
# has no route to the peer out of eth0, the GID's address is not the one
# the kernel would pick as source, and only a rule for the GID's address
# (ip -6 rule from ... table 100) routes the peer out of eth0: the route
# must be looked up with the GID's address as source. decoy=G and policy=G set
# that up in guest G alone (both: every guest), so that one pair run
# checks each in one direction.
#
# ibv_rc_pingpong -c checks the data it receives; perftest checks that every
# operation completes. Each tool run is one check.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

mode=$1
TOOL_TIMEOUT=${TOOL_TIMEOUT:-150}
port=18515

if [ "$mode" = loopback ]; then
	mytype=$2
	shift 2
else
	types=("$2" "$3")
	mytype=${types[$GUEST_ID]}
	shift 3
fi
dev=${mytype}0
set_=quick sweep='' capture='' gid_ip=$GUEST_IP4 servers=(0 1) uso='' swcsum='' decoy='' policy=''
[ "$mode" = loopback ] && servers=(0)
for opt in "$@"; do
	case $opt in
	servers=*) set_servers "$opt" ;;
	quick|full) set_=$opt ;;
	sweep) sweep=1 ;;
	capture) capture=1 ;;
	ipv6) gid_ip=$GUEST_IP6 ;;
	uso) uso=1 ;;
	swcsum) swcsum=1 ;;
	decoy | policy) printf -v "$opt" %s "$GUEST_ID" ;;
	decoy=[01] | policy=[01]) printf -v "${opt%=*}" %s "${opt#*=}" ;;
	*) bail "unknown option '$opt'" ;;
	esac
done

link_up "$mytype" "$dev"
if [ -n "$uso" ]; then
	check "eth0 tx-udp-segmentation on" ethtool -K eth0 tx-udp-segmentation on
	[ "$mytype" != sroce ] || check "tx_trains 2" set_cc_params "$dev" tx_trains=2
fi
if [ -n "$swcsum" ]; then
	check "eth0 tx checksumming off" ethtool -K eth0 tx off
	csum0=$(udp_csum_errors)
fi
gid=$(roce_gid_index "$dev" "$gid_ip") || bail "no RoCE v2 GID for $gid_ip"

if [ "$mode" = pair ]; then
	addrs_ready peer
else
	addrs_ready
fi

# decoy_route: the peer's IPv6 address routed into a dummy netdev.
decoy_route() {
	modprobe dummy &&
		ip link add decoy0 type dummy &&
		ip link set decoy0 up &&
		ip -6 route add "$PEER_IP6/128" dev decoy0
}
# policy_route: the GID's address deprecated behind a second one, which
# the kernel then picks as the source of a lookup made without one; no
# route in the main table leads to the peer out of eth0; table 100, which
# a rule selects for the GID's address alone, holds eth0's. So only a
# lookup from the GID's address finds a route out of eth0.
policy_route() {
	local route alt=${GUEST_IP6%::*}::a:$((GUEST_ID + 1))
	ip -6 addr add "$alt/64" dev eth0 nodad &&
		ip -6 addr change "$GUEST_IP6/64" dev eth0 preferred_lft 0 &&
		ip -6 route show table main match "$PEER_IP6" dev eth0 |
		while read -r route _; do
			ip -6 route del "$route" dev eth0 table main || return 1
		done &&
		ip -6 route add "$PEER_IP6/128" dev eth0 table 100 &&
		ip -6 rule add from "$GUEST_IP6" table 100 pref 100 &&
		ip -6 route get "$PEER_IP6" from "$GUEST_IP6" oif eth0 >/dev/null &&
		! ip -6 route get "$PEER_IP6" oif eth0 >/dev/null 2>&1
}
if [ "$decoy" = "$GUEST_ID" ]; then
	check "a decoy route to $PEER_IP6 via decoy0" decoy_route
fi
if [ "$policy" = "$GUEST_ID" ]; then
	check "$PEER_IP6 reached by a source rule alone" policy_route
fi

# The tests: "TOOL|ARGS" run as server "TOOL ARGS" and client "TOOL ARGS IP".
tests=(
	"ibv_rc_pingpong|-s 1 -n 50 -c"
	"ibv_rc_pingpong|-s 4096 -n 50 -c -e"
	"ibv_rc_pingpong|-s 65536 -n 20 -c"
	"ib_send_bw|-s 65536 -n 100"
	"ib_write_bw|-s 65536 -n 100"
	"ib_read_bw|-s 65536 -n 100"
	"ib_write_bw|-s 1048576 -n 10"
	"ib_atomic_bw|-n 100"
	"ib_send_lat|-s 2 -n 100"
	"ib_write_lat|-s 2 -n 100"
	"ib_read_lat|-s 2 -n 100"
	"ib_atomic_lat|-n 100"
)
if [ "$set_" = full ]; then
	tests+=(
		"ib_send_bw|-s 2 -n 500"
		"ib_send_bw|-s 1048576 -n 10"
		"ib_write_bw|-s 2 -n 500"
		"ib_read_bw|-s 2 -n 500"
		"ib_read_bw|-s 1048576 -n 10"
		"ibv_rc_pingpong|-s 1048576 -n 5 -c"
	)
fi
# Few iterations at 1 MiB: each one is 1024 packets at MTU 1500.
if [ -n "$sweep" ]; then
	tests+=(
		"ibv_rc_pingpong|-s 1048576 -n 3 -c"
		"ib_send_bw|-s 2 -n 200"
		"ib_send_bw|-s 1048576 -n 5"
		"ib_write_bw|-s 2 -n 200"
		"ib_read_bw|-s 2 -n 200"
		"ib_read_bw|-s 1048576 -n 5"
		"ib_send_lat|-s 16384 -n 20"
		"ib_send_lat|-s 1048576 -n 5"
		"ib_write_lat|-s 16384 -n 20"
		"ib_write_lat|-s 1048576 -n 5"
		"ib_read_lat|-s 16384 -n 20"
		"ib_read_lat|-s 1048576 -n 5"
	)
fi

# tool_args TOOL ARGS PORT: the device, GID and port options of TOOL.
# perftest's QPs get a 0.5 s local ACK timeout (-u 17) instead of 67 ms:
# a TCG guest on a loaded host can stall for most of a second, and seven
# retries of 67 ms would then end the QP (IBTA retry_cnt) although nothing
# was lost. rdma_rxe hides this by never giving up at retry_cnt 7.
tool_args() {
	case $1 in
	ibv_rc_pingpong) echo "-d $dev -g $gid -p $3 $2" ;;
	*) echo "-d $dev -x $gid -p $3 -F -u 17 $2" ;;
	esac
}

# one_test SERVER_ID TOOL ARGS: run one server/client pair and check both.
one_test() {
	local server=$1 tool=$2 args log t0=$SECONDS
	args=$(tool_args "$tool" "$3" $port)
	log=/job/$tool-$port
	if [ "$mode" = loopback ]; then
		local_pair "$log" "$tool $3 (loopback)" "$tool $args" \
			"$tool $args $GUEST_IP4"
	else
		# shellcheck disable=SC2086 # $args holds several options
		tool_pair "$server" "$log" "$tool $3" "$tool" $args
	fi
	[ "$mode" = loopback ] || barrier "$tool-$port-done"
	echo "# $tool $3: $((SECONDS - t0)) s"
	port=$((port + 1))
}

if [ -n "$capture" ] && [ "$GUEST_ID" = 0 ]; then
	tcpdump -i eth0 -s 0 -c 40000 -U -w /job/wire.pcap udp port 4791 2>/job/tcpdump.log &
	tcpdump_pid=$!
	sleep 1
fi

for server in "${servers[@]}"; do
	for t in "${tests[@]}"; do
		one_test "$server" "${t%%|*}" "${t#*|}"
	done
done

if [ -n "${tcpdump_pid:-}" ]; then
	sleep 1
	kill -INT "$tcpdump_pid"
	wait "$tcpdump_pid"
fi
dump_counters "$dev"
# Every tool but the atomics sends messages of several packets, which an
# sroce device sends as trains (tx_trains 1, on a virtio link).
if [ "$mytype" = sroce ]; then
	check "sroce sent send trains" \
		test "$(cat /sys/class/infiniband/"$dev"/ports/1/hw_counters/sent_trains)" -gt 0
fi
if [ -n "$swcsum" ]; then
	n=$(($(udp_csum_errors) - csum0))
	check "no UDP checksum errors (sent trains included)" test "$n" = 0 ||
		echo "# $n UDP datagrams dropped on their checksum"
fi
rdma link delete "$dev"
summary
