#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UD queue pairs and the connection manager (GSI QP1, rdma_cm) through the
# standard tools, run by scripts/vm-run.sh in two guests:
#
#   cm.sh pair TYPE0 TYPE1 [OPTION...]   guest N runs link type TYPEn
#                                        (sroce or rxe); every test runs
#                                        with each guest as server
#                                        (servers=both, the default) or
#                                        with guest 0 or 1 alone
#   cm.sh loopback TYPE [OPTION...]      one guest, server and client on
#                                        the same device
#   cm.sh mcast TYPE0 TYPE1 [ipv6]       only the multicast tests (mckey,
#                                        mcast-ud passed with -f): guest 0
#                                        receives with several QPs,
#                                        guest 1 sends
#
# Options: ipv6, run the tests over IPv6 too (the IPv6 GID, rdma_cm to the
# IPv6 address; the tools' own TCP exchange stays on IPv4); interop, only
# the tests that rdma_rxe on the other end supports the same way (UD
# pingpong, rping, ucmatose, udaddy); hostile, guest 1 also sends guest 0
# malformed UD packets (roce-inject.py, passed with -f) and guest 0 checks
# that each was dropped and counted; vlan, the first five tests (UD
# pingpong and rdma_cm) again over the addresses of a VLAN on eth0 (eth0.5:
# 10.77.6.N, fd77:6::N), whose GIDs the device has too: rdma_cm's passive
# side builds its reply from the VLAN the request came on.
#
# ibv_ud_pingpong -c and rping -V check the data they receive; perftest
# checks that every operation completes; rping also has to show every
# ping's data (-v). Each tool run is one check. mckey checks nothing but
# that each QP got as many completions as messages were sent; mcast-ud
# checks the data; the multicast tests also check the receiver's hw
# counters exactly and its group memberships.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

TOOL_TIMEOUT=${TOOL_TIMEOUT:-120}
port=18515
mode=$1
if [ "$mode" = loopback ]; then
	types=("$2" "$2")
	shift 2
else
	types=("$2" "$3")
	shift 3
fi
mytype=${types[$GUEST_ID]}
dev=${mytype}0
families=(4) interop='' hostile='' vlan='' pair_servers=(0 1)
for opt in "$@"; do
	case $opt in
	ipv6) families=(4 6) ;;
	interop) interop=1 ;;
	hostile) hostile=1 ;;
	vlan) vlan=1 ;;
	servers=*) set_servers "$opt" && pair_servers=("${servers[@]}") ;;
	*) bail "unknown option '$opt'" ;;
	esac
done
[ "$mode" = pair ] || [ -z "$hostile" ] || bail "hostile needs a pair"

modprobe -a rdma_ucm ib_umad >/dev/null 2>&1
link_up "$mytype" "$dev"
gid4=$(roce_gid_index "$dev" "$GUEST_IP4") || bail "no RoCE v2 GID for $GUEST_IP4"
gid6=$(roce_gid_index "$dev" "$GUEST_IP6") || bail "no RoCE v2 GID for $GUEST_IP6"

if [ "$mode" = pair ]; then
	addrs_ready peer
else
	addrs_ready
fi

# ibv_ud_pingpong of rdma-core 44 validates data with -c when it has it.
ud_chk=''
ibv_ud_pingpong --help 2>&1 | grep -q -- '--chk' && ud_chk=-c
echo "# ibv_ud_pingpong data check: ${ud_chk:-not available}"

# rping_ok LOG COUNT: an rping run that verified (-V) and showed (-v)
# COUNT pings and no mismatch.
rping_ok() {
	local n
	n=$(grep -c 'ping data: rdma-ping-' "$1")
	if grep -qi 'mismatch\|error' "$1" || [ "$n" -ne "$2" ]; then
		echo "$n of $2 pings"
		cat "$1"
		return 1
	fi
}

# The tests of one address family: "DESC|SERVER CMD|CLIENT CMD"; @P@ is
# the port, @IP@ this guest's address, @PEER@ the server's (of the family),
# @PEER4@ the server's IPv4 address for the tools' own TCP exchange, @GID@
# the GID index of this guest's address. Commands are split on blanks.
family_tests() {
	tests=(
		"ud_pingpong 4 B|ibv_ud_pingpong -d $dev -g @GID@ -p @P@ -s 4 -n 50 $ud_chk|ibv_ud_pingpong -d $dev -g @GID@ -p @P@ -s 4 -n 50 $ud_chk @PEER4@"
		"ud_pingpong 1024 B|ibv_ud_pingpong -d $dev -g @GID@ -p @P@ -s 1024 -n 50 $ud_chk|ibv_ud_pingpong -d $dev -g @GID@ -p @P@ -s 1024 -n 50 $ud_chk @PEER4@"
		"rping -C 20|rping -s -a @IP@ -p @P@ -C 20 -S 64 -v -V|rping -c -a @PEER@ -p @P@ -C 20 -S 64 -v -V"
		"ucmatose|ucmatose -b @IP@ -c 2 -C 20|ucmatose -s @PEER@ -c 2 -C 20"
		"udaddy|udaddy -b @IP@ -c 2 -C 20|udaddy -s @PEER@ -c 2 -C 20"
	)
	[ -z "$interop" ] || return 0
	tests+=(
		"ib_send_bw -c UD|ib_send_bw -d $dev -x @GID@ -p @P@ -F -c UD -s 1024 -n 200|ib_send_bw -d $dev -x @GID@ -p @P@ -F -c UD -s 1024 -n 200 @PEER4@"
		"ib_send_lat -c UD|ib_send_lat -d $dev -x @GID@ -p @P@ -F -c UD -s 2 -n 100|ib_send_lat -d $dev -x @GID@ -p @P@ -F -c UD -s 2 -n 100 @PEER4@"
	)
	# perftest connects rdma_cm to the address of its TCP exchange: IPv4.
	[ "$1" = 6 ] || tests+=(
		"ib_write_bw -R|ib_write_bw -d $dev -R -p @P@ -F -u 17 -s 65536 -n 100|ib_write_bw -d $dev -R -p @P@ -F -u 17 -s 65536 -n 100 @PEER4@"
		"ib_send_lat -R|ib_send_lat -d $dev -R -p @P@ -F -u 17 -s 2 -n 100|ib_send_lat -d $dev -R -p @P@ -F -u 17 -s 2 -n 100 @PEER4@"
	)
}

# counter NAME: the value of hw counter NAME of this guest's device.
counter() {
	cat "/sys/class/infiniband/$dev/ports/1/hw_counters/$1"
}

# hostile_test: guest 1 sends guest 0 UD packets with a valid ICRC that
# must each be dropped and counted: a bad Q_Key for the GSI QP, a DETH cut
# short, a UD SEND to an RC QP, an RC SEND to the GSI QP, a payload larger
# than the GSI QP's receive buffers, a good UD SEND to the GSI QP sent to
# the subnet's broadcast address; and one good MAD-sized UD SEND to the
# GSI QP, which must be delivered (ib_mad then discards the garbage MAD).
hostile_test() {
	local names=(rcvd_bad_qkey_pkts rcvd_malformed_pkts rcvd_no_qp_pkts
		     ud_recv_dropped rdma_recvs) want=(1 1 3 1 1) before=() n i
	if [ "$GUEST_ID" = 0 ]; then
		stdbuf -oL ibv_rc_pingpong -d "$dev" -g "$gid4" -p 19999 \
			>/job/hostile-rc.log 2>&1 &
		local rcpid=$!
		for _ in $(seq 100); do
			grep -q 'local address' /job/hostile-rc.log && break
			sleep 0.1
		done
		sed -n 's/.*QPN \(0x[0-9a-f]*\),.*/\1/p' /job/hostile-rc.log >/shared/rc-qpn
		for n in "${names[@]}"; do
			before+=("$(counter "$n")")
		done
		barrier hostile-ready
		barrier hostile-sent
		sleep 2
		for i in "${!names[@]}"; do
			n=$(($(counter "${names[$i]}") - before[i]))
			check "hostile UD: ${names[$i]} +${want[$i]} (got +$n)" \
				test "$n" -eq "${want[$i]}"
		done
		kill "$rcpid" 2>/dev/null
		wait "$rcpid" 2>/dev/null
	else
		barrier hostile-ready
		check "hostile UD packets sent" python3 /job/roce-inject.py \
			"$GUEST_IP4" "$PEER_IP4" ud:1:0x80010000:256 ud:1:0x1234 \
			short-deth:1 "ud:$(cat /shared/rc-qpn):0x11111111" rc:1 \
			ud:1:0x80010000:1200 "to:${GUEST_IP4%.*}.255" ud:1:0x80010000:256
		barrier hostile-sent
	fi
}

# mcast_counters: the multicast-related counters, in this order.
mc_names=(mcast_rcvd_pkts mcast_rcvd_copies rdma_recvs mcast_rcvd_no_qp)
mcast_counters() {
	local n
	for n in "${mc_names[@]}"; do
		counter "$n"
	done
}

# mcast_check DESC BEFORE WANT...: each counter of mc_names rose by WANT.
mcast_check() {
	local desc=$1 i d
	local -a before now
	read -ra before <<<"$2"
	shift 2
	read -ra now <<<"$(mcast_counters | tr '\n' ' ')"
	for i in "${!mc_names[@]}"; do
		d=$((now[i] - before[i]))
		check "$desc: ${mc_names[$i]} +$1 (got +$d)" test "$d" -eq "$1"
		shift
	done
}

# mcast_joined IPF GROUP MAC: the netdev is in GROUP and its MAC filter.
mcast_joined() {
	ip "$1" maddr show dev eth0 | grep -qw "$2" &&
		ip maddr show dev eth0 | grep -qiw "$3"
}

# mcast_rejoined IPF GROUP MAC: mcast_joined within five seconds.
mcast_rejoined() {
	local _
	for _ in $(seq 50); do
		mcast_joined "$@" && return 0
		sleep 0.1
	done
	return 1
}

# mtu_dip: drop eth0's IPv6 state, its groups with it (addrconf throws it
# away below IPv6's minimum MTU, 1280, and makes it anew above), then add
# the address the harness gave eth0 again.
mtu_dip() {
	ip link set eth0 mtu 1200 && ip link set eth0 mtu 1500 &&
		ip -6 addr add "$GUEST_IP6/64" dev eth0 nodad
}

# mcast_recv_test DESC IPF GROUP MAC QPS MSGS RECV_CMD... SEND_CMD: guest 0
# runs RECV_CMD (QPS QPs attached to GROUP, MSGS messages to each; it says
# "receiving data transfers" or "ready" once joined), guest 1 then runs
# SEND_CMD (one word, split on blanks). Guest 0 checks that the netdev is
# in the group while the receiver runs and has left it after, and that
# each message reached the device once and every QP. With mc_hook set,
# guest 0 runs that command once joined and must be in the group again
# after it (the device joins what the kernel dropped).
mcast_recv_test() {
	local desc=$1 ipf=$2 grp=$3 mac=$4 qps=$5 msgs=$6 log=/job/mc-$port
	local before rc
	shift 6
	local scmd=${*: -1}
	if [ "$GUEST_ID" = 0 ]; then
		before=$(mcast_counters | tr '\n' ' ')
		timeout "$TOOL_TIMEOUT" stdbuf -oL "${@:1:$#-1}" >"$log" 2>&1 &
		local mpid=$!
		for _ in $(seq 150); do
			grep -q 'receiving data transfers\|^ready' "$log" && break
			sleep 0.2
		done
		check "$desc: netdev joined $grp ($mac)" mcast_joined "$ipf" "$grp" "$mac"
		if [ -n "${mc_hook:-}" ]; then
			check "$desc: $mc_hook" "$mc_hook"
			check "$desc: netdev in $grp again" mcast_rejoined "$ipf" "$grp" "$mac"
		fi
		barrier "mc$port-ready"
		wait "$mpid"
		rc=$?
		check "$desc (receiver, $qps QPs, $msgs messages each)" \
			sh -c "[ $rc -eq 0 ] && ! grep -q 'return status -\|bad' '$log'" ||
			sed 's/^/#   /' "$log"
		barrier "mc$port-done"
		mcast_check "$desc" "$before" "$msgs" $((qps * msgs)) $((qps * msgs)) 0
		check "$desc: netdev left $grp" sh -c "! ip $ipf maddr show dev eth0 | grep -qw '$grp'"
	else
		barrier "mc$port-ready"
		# shellcheck disable=SC2086 # the command is split on purpose
		check "$desc (sender, $msgs messages)" run_client "$log" $scmd ||
			sed 's/^/#   /' "$log"
		barrier "mc$port-done"
	fi
	port=$((port + 1))
}

# mcast_noqp_test DESC GROUP SEND_CMD: guest 0 joins GROUP by a UDP socket
# only (the host is a member, no QP is attached); the 5 messages guest 1
# sends must each be dropped and counted.
mcast_noqp_test() {
	local desc=$1 grp=$2 scmd=$3 before
	if [ "$GUEST_ID" = 0 ]; then
		before=$(mcast_counters | tr '\n' ' ')
		python3 -c '
import socket, struct, sys, time
grp, ip = sys.argv[1], sys.argv[2]
if ":" in grp:
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP,
                 socket.inet_pton(socket.AF_INET6, grp) +
                 struct.pack("@I", socket.if_nametoindex("eth0")))
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                 socket.inet_aton(grp) + socket.inet_aton(ip))
time.sleep(25)
' "$grp" "$GUEST_IP4" &
		local jpid=$!
		# Joined before the sender starts: python's start alone takes
		# more than a second on the debug kernel.
		local _
		for _ in $(seq $((50 * ${TIME_FACTOR:-1}))); do
			ip maddr show dev eth0 | grep -qw "$grp" && break
			sleep 0.2
		done
		barrier "mc$port-ready"
		barrier "mc$port-sent"
		sleep 1
		mcast_check "$desc" "$before" 0 0 0 5
		kill "$jpid" 2>/dev/null
		wait "$jpid" 2>/dev/null
	else
		barrier "mc$port-ready"
		# shellcheck disable=SC2086 # the command is split on purpose
		check "$desc (sender, 5 messages)" run_client "/job/mc-$port" $scmd ||
			sed 's/^/#   /' "/job/mc-$port"
		barrier "mc$port-sent"
	fi
	port=$((port + 1))
}

# mcast_tests: rdma_cm's mckey over IPv4 (rdma_cm of Linux 6.1 refuses
# IPv6 multicast on RoCEv2: ENOTSUPP), then mcast-ud, which checks the
# data, over IPv4 and IPv6; then a group this host is in without QPs.
mcast_tests() {
	local ud=/job/mcast-ud g4=239.1.2.3 g6=ff0e::5:1
	[ -x $ud ] || bail "no $ud: pass -f .../mcast-ud to vm-run.sh"
	mcast_recv_test "mckey" -4 $g4 01:00:5e:01:02:03 2 20 \
		mckey -m $g4 -b "$GUEST_IP4" -c 2 -C 20 \
		"mckey -m $g4 -b $GUEST_IP4 -s -C 20"
	mcast_recv_test "mcast-ud" -4 239.1.2.4 01:00:5e:01:02:04 3 20 \
		$ud "$dev" "$gid4" ::ffff:239.1.2.4 recv 20 3 \
		"$ud $dev $gid4 ::ffff:239.1.2.4 send 20"
	mcast_noqp_test "group without QPs" $g4 "$ud $dev $gid4 ::ffff:$g4 send 5"
	[ "${families[1]}" = 6 ] || return 0
	mcast_recv_test "mcast-ud IPv6" -6 $g6 33:33:00:05:00:01 3 20 \
		$ud "$dev" "$gid6" $g6 recv 20 3 "$ud $dev $gid6 $g6 send 20"
	mcast_noqp_test "group without QPs IPv6" $g6 "$ud $dev $gid6 $g6 send 5"
	mc_hook=mtu_dip mcast_recv_test "mcast-ud IPv6, MTU 1200 and back" \
		-6 ff0e::5:2 33:33:00:05:00:02 3 20 \
		$ud "$dev" "$gid6" ff0e::5:2 recv 20 3 "$ud $dev $gid6 ff0e::5:2 send 20"
}

# finish: dump the device's counters, remove it, summarise the job.
finish() {
	dump_counters "$dev"
	rdma link delete "$dev"
	summary
}

if [ "$mode" = mcast ]; then
	mcast_tests
	finish
	exit
fi

# expand CMD: CMD with the placeholders filled in.
expand() {
	local c=${1//@P@/$port}
	c=${c//@IP@/$my_ip}
	c=${c//@GID@/$gid}
	c=${c//@PEER4@/$oob_ip}
	echo "${c//@PEER@/$peer_ip}"
}

# client_log LOG: a failed client's output, its earlier attempts first.
client_log() {
	cat "$1.tries" "$1" 2>/dev/null | sed 's/^/#   /'
}

# one_test SERVER_ID "DESC|SERVER|CLIENT": one server/client pair, both checked.
one_test() {
	local server=$1 desc rest scmd ccmd log rc
	desc=${2%%|*}
	rest=${2#*|}
	scmd=$(expand "${rest%%|*}")
	ccmd=$(expand "${rest#*|}")
	log=/job/cm-$port
	if [ "$mode" = loopback ]; then
		# shellcheck disable=SC2086 # the command is split on purpose
		timeout "$TOOL_TIMEOUT" $scmd >"$log.server" 2>&1 &
		local spid=$!
		sleep 1
		# shellcheck disable=SC2086 # the command is split on purpose
		check "$desc$fam (loopback, client)" run_client "$log.client" $ccmd ||
			client_log "$log.client"
		wait "$spid"
		rc=$?
		check "$desc$fam (loopback, server)" test $rc -eq 0 ||
			sed 's/^/#   /' "$log.server"
		if [[ $desc == rping* ]]; then
			check "$desc data$fam (loopback, client)" rping_ok "$log.client" 20
			check "$desc data$fam (loopback, server)" rping_ok "$log.server" 20
		fi
	elif [ "$GUEST_ID" = "$server" ]; then
		# shellcheck disable=SC2086 # the command is split on purpose
		timeout "$TOOL_TIMEOUT" $scmd >"$log.server" 2>&1 &
		local spid=$!
		sleep 1
		barrier "$port-up"
		wait "$spid"
		rc=$?
		check "$desc$fam (${types[$server]} server)" test $rc -eq 0 ||
			sed 's/^/#   /' "$log.server"
		[[ $desc != rping* ]] ||
			check "$desc data$fam (${types[$server]} server)" rping_ok "$log.server" 20
	else
		barrier "$port-up"
		# shellcheck disable=SC2086 # the command is split on purpose
		check "$desc$fam (${types[$GUEST_ID]} client to ${types[$server]})" \
			run_client "$log.client" $ccmd ||
			client_log "$log.client"
		[[ $desc != rping* ]] ||
			check "$desc data$fam (${types[$GUEST_ID]} client)" rping_ok "$log.client" 20
	fi
	[ "$mode" = loopback ] || barrier "$port-done"
	port=$((port + 1))
}

# run_family F MY_IP PEER_IP GID SUFFIX: family F's tests from MY_IP to
# PEER_IP (in loopback to MY_IP), GID this guest's GID index of MY_IP,
# SUFFIX in the checks' names.
run_family() {
	my_ip=$2 peer_ip=$3 gid=$4 fam=$5
	oob_ip=$PEER_IP4 servers=("${pair_servers[@]}")
	if [ "$mode" = loopback ]; then
		peer_ip=$my_ip oob_ip=$GUEST_IP4 servers=(0)
	fi
	family_tests "$1"
	for server in "${servers[@]}"; do
		for t in "${tests[@]}"; do
			one_test "$server" "$t"
		done
	done
}

for f in "${families[@]}"; do
	if [ "$f" = 6 ]; then
		run_family 6 "$GUEST_IP6" "$PEER_IP6" "$gid6" ' IPv6'
	else
		run_family 4 "$GUEST_IP4" "$PEER_IP4" "$gid4" ''
	fi
done

# vlan_gids N: eth0.5 (VLAN 5 on eth0) up with 10.77.6.N and fd77:6::N,
# and the device's GIDs of both there.
vlan_gids() {
	local _
	ip link add link eth0 name eth0.5 type vlan id 5 &&
		ip addr add "10.77.6.$1/24" dev eth0.5 &&
		ip -6 addr add "fd77:6::$1/64" dev eth0.5 nodad &&
		ip link set eth0.5 up || return 1
	for _ in $(seq 50); do
		roce_gid_index "$dev" "10.77.6.$1" >/dev/null &&
			roce_gid_index "$dev" "fd77:6::$1" >/dev/null && return 0
		sleep 0.2
	done
	return 1
}

if [ -n "$vlan" ]; then
	vn=$((GUEST_ID + 1)) pn=$((2 - GUEST_ID))
	[ "$mode" = loopback ] && pn=$vn
	check "VLAN 5 on eth0 and its GIDs" vlan_gids "$vn"
	[ "$mode" = loopback ] || barrier vlan-up
	interop=1
	for f in "${families[@]}"; do
		if [ "$f" = 6 ]; then
			net=fd77:6:: fam=' VLAN IPv6'
		else
			net=10.77.6. fam=' VLAN'
		fi
		run_family "$f" "$net$vn" "$net$pn" \
			"$(roce_gid_index "$dev" "$net$vn")" "$fam"
	done
fi

[ -z "$hostile" ] || hostile_test

finish
