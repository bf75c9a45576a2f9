#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UD queue pairs and the connection manager (GSI QP1, rdma_cm) through the
# standard tools, run by scripts/vm-run.sh in two guests:
#
#   cm.sh pair TYPE0 TYPE1 [OPTION...]   guest N runs link type TYPEn
#                                        (sroce or rxe); every test runs
#                                        with each guest as server
#   cm.sh loopback TYPE [OPTION...]      one guest, server and client on
#                                        the same device
#   cm.sh mcast TYPE0 TYPE1 [ipv6]       only the multicast tests (mckey):
#                                        guest 0 receives with two QPs,
#                                        guest 1 sends
#
# Options: ipv6, run the tests over IPv6 too (the IPv6 GID, rdma_cm to the
# IPv6 address; the tools' own TCP exchange stays on IPv4); interop, only
# the tests that rdma_rxe on the other end supports the same way (UD
# pingpong, rping, ucmatose, udaddy); hostile, guest 1 also sends guest 0
# malformed UD packets (roce-inject.py, passed with -f) and guest 0 checks
# that each was dropped and counted.
#
# ibv_ud_pingpong -c and rping -V check the data they receive; perftest
# checks that every operation completes; rping also has to show every
# ping's data (-v). Each tool run is one check. mckey checks nothing but
# that each QP got as many completions as messages were sent, so the
# multicast tests also check the receiver's hw counters exactly and its
# group memberships.

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
families=(4) interop='' hostile=''
for opt in "$@"; do
	case $opt in
	ipv6) families=(4 6) ;;
	interop) interop=1 ;;
	hostile) hostile=1 ;;
	*) bail "unknown option '$opt'" ;;
	esac
done
[ "$mode" = pair ] || [ -z "$hostile" ] || bail "hostile needs a pair"

load_link_module "$mytype" || bail "load $mytype"
modprobe -a rdma_ucm ib_umad >/dev/null 2>&1
rdma link add "$dev" type "$mytype" netdev eth0 || bail "rdma link add $dev"
wait_port_active "$dev" || bail "$dev not active"
gid4=$(roce_gid_index "$dev" "$GUEST_IP4") || bail "no RoCE v2 GID for $GUEST_IP4"
gid6=$(roce_gid_index "$dev" "$GUEST_IP6") || bail "no RoCE v2 GID for $GUEST_IP6"

# Address handles resolve the peer's MAC: wait until IPv6 duplicate address
# detection is over, and fill the neighbour caches.
for _ in $(seq 50); do
	ip -6 addr show dev eth0 tentative | grep -q inet6 || break
	sleep 0.2
done
if [ "$mode" = pair ]; then
	ping -c 1 -W 5 "$PEER_IP4" >/dev/null 2>&1
	ping -6 -c 1 -W 5 "$PEER_IP6" >/dev/null 2>&1
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
# than the GSI QP's receive buffers; and one good MAD-sized UD SEND to the
# GSI QP, which must be delivered (ib_mad then discards the garbage MAD).
hostile_test() {
	local names=(rcvd_bad_qkey_pkts rcvd_malformed_pkts rcvd_no_qp_pkts
		     ud_recv_dropped rdma_recvs) want=(1 1 2 1 1) before=() n i
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
			ud:1:0x80010000:1200
		barrier hostile-sent
	fi
}

# mcast_test FAMILY GROUP MAC: mckey over a multicast group. Guest 0 joins
# GROUP with two rdma_cm ids (two UD QPs attached to one group) and waits
# for 20 messages on each; guest 1 joins and sends 20. Guest 0 checks that
# the netdev is in the group while mckey runs and has left it after, and
# that each message reached the device once and both QPs. Then guest 0
# joins GROUP by a UDP socket only (the host is a member, no QP is
# attached) and guest 1 sends 5 more: each must be dropped and counted.
mcast_test() {
	local fam=$1 grp=$2 mac=$3 n=20 ip=$GUEST_IP4 ipf=-4 log rc
	local names=(mcast_rcvd_pkts mcast_rcvd_copies rdma_recvs
		     mcast_rcvd_no_qp) want=(20 40 40 0) before=() i d
	if [ "$fam" = 6 ]; then
		ip=$GUEST_IP6 ipf=-6
	fi
	log=/job/mckey-$fam
	if [ "$GUEST_ID" = 0 ]; then
		for i in "${names[@]}"; do
			before+=("$(counter "$i")")
		done
		timeout "$TOOL_TIMEOUT" stdbuf -oL mckey -m "$grp" -b "$ip" -c 2 \
			-C $n >"$log" 2>&1 &
		local mpid=$!
		for _ in $(seq 150); do
			grep -q 'receiving data transfers' "$log" && break
			sleep 0.2
		done
		check "mckey IPv$fam: netdev joined $grp" \
			sh -c "ip $ipf maddr show dev eth0 | grep -qw '$grp'"
		check "mckey IPv$fam: netdev has MAC $mac" \
			sh -c "ip maddr show dev eth0 | grep -qw 'link  $mac'"
		barrier "mckey$fam-ready"
		wait "$mpid"
		rc=$?
		check "mckey IPv$fam (receiver, 2 QPs, $n messages each)" \
			sh -c "[ $rc -eq 0 ] && grep -q 'data transfers complete' '$log'" ||
			sed 's/^/#   /' "$log"
		barrier "mckey$fam-done"
		for i in "${!names[@]}"; do
			d=$(($(counter "${names[$i]}") - before[i]))
			check "mckey IPv$fam: ${names[$i]} +${want[$i]} (got +$d)" \
				test "$d" -eq "${want[$i]}"
		done
		check "mckey IPv$fam: netdev left $grp" \
			sh -c "! ip $ipf maddr show dev eth0 | grep -qw '$grp'"

		d=$(counter mcast_rcvd_no_qp)
		python3 -c '
import socket, struct, sys, time
grp, ip = sys.argv[1], sys.argv[2]
if ":" in grp:
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    idx = socket.if_nametoindex("eth0")
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP,
                 socket.inet_pton(socket.AF_INET6, grp) + struct.pack("@I", idx))
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                 socket.inet_aton(grp) + socket.inet_aton(ip))
time.sleep(int(sys.argv[3]))
' "$grp" "$ip" 25 &
		local jpid=$!
		sleep 1
		barrier "mcnoqp$fam-ready"
		barrier "mcnoqp$fam-sent"
		sleep 1
		d=$(($(counter mcast_rcvd_no_qp) - d))
		check "mcast IPv$fam, group without QPs: mcast_rcvd_no_qp +5 (got +$d)" \
			test "$d" -eq 5
		kill "$jpid" 2>/dev/null
		wait "$jpid" 2>/dev/null
	else
		barrier "mckey$fam-ready"
		check "mckey IPv$fam (sender, $n messages)" \
			run_client "$log" mckey -m "$grp" -b "$ip" -s -C $n ||
			sed 's/^/#   /' "$log"
		barrier "mckey$fam-done"
		barrier "mcnoqp$fam-ready"
		check "mckey IPv$fam (sender, 5 messages to a group without QPs)" \
			run_client "$log.noqp" mckey -m "$grp" -b "$ip" -s -C 5 ||
			sed 's/^/#   /' "$log.noqp"
		barrier "mcnoqp$fam-sent"
	fi
}

# finish: dump the device's counters, remove it, summarise the job.
finish() {
	echo "# $dev hw_counters:"
	for f in /sys/class/infiniband/"$dev"/ports/1/hw_counters/*; do
		echo "#   $(basename "$f") $(cat "$f")"
	done
	rdma link delete "$dev"
	summary
}

if [ "$mode" = mcast ]; then
	mcast_test 4 239.1.2.3 01:00:5e:01:02:03
	[ "${families[1]}" != 6 ] || mcast_test 6 ff0e::5:1 33:33:00:05:00:01
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
			sed 's/^/#   /' "$log.client"
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
			sed 's/^/#   /' "$log.client"
		[[ $desc != rping* ]] ||
			check "$desc data$fam (${types[$GUEST_ID]} client)" rping_ok "$log.client" 20
	fi
	[ "$mode" = loopback ] || barrier "$port-done"
	port=$((port + 1))
}

for f in "${families[@]}"; do
	if [ "$f" = 6 ]; then
		my_ip=$GUEST_IP6 peer_ip=$PEER_IP6 gid=$gid6 fam=' IPv6'
	else
		my_ip=$GUEST_IP4 peer_ip=$PEER_IP4 gid=$gid4 fam=''
	fi
	oob_ip=$PEER_IP4 servers=(0 1)
	if [ "$mode" = loopback ]; then
		peer_ip=$my_ip oob_ip=$GUEST_IP4 servers=(0)
	fi
	family_tests "$f"
	for server in "${servers[@]}"; do
		for t in "${tests[@]}"; do
			one_test "$server" "$t"
		done
	done
done

[ -z "$hostile" ] || hostile_test

finish
