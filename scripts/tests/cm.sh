#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UD queue pairs and the connection manager (GSI QP1, rdma_cm) through the
# standard tools, run by scripts/vm-run.sh in two guests:
#
#   cm.sh pair TYPE0 TYPE1 [OPTION...]   guest N runs link type TYPEn
#                                        (sroce or rxe); every test runs
#                                        with each guest as server
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
# ping's data (-v). Each tool run is one check.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

TOOL_TIMEOUT=${TOOL_TIMEOUT:-120}
port=18515
types=("$2" "$3")
mytype=${types[$GUEST_ID]}
shift 3
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
ping -c 1 -W 5 "$PEER_IP4" >/dev/null 2>&1
ping -6 -c 1 -W 5 "$PEER_IP6" >/dev/null 2>&1

# ibv_ud_pingpong of rdma-core 44 validates data with -c when it has it.
ud_chk=''
ibv_ud_pingpong --help 2>&1 | grep -q -- '--chk' && ud_chk=-c

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

# expand CMD: CMD with the placeholders filled in.
expand() {
	local c=${1//@P@/$port}
	c=${c//@IP@/$my_ip}
	c=${c//@GID@/$gid}
	c=${c//@PEER4@/$PEER_IP4}
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
	if [ "$GUEST_ID" = "$server" ]; then
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
	barrier "$port-done"
	port=$((port + 1))
}

for f in "${families[@]}"; do
	if [ "$f" = 6 ]; then
		my_ip=$GUEST_IP6 peer_ip=$PEER_IP6 gid=$gid6 fam=' IPv6'
	else
		my_ip=$GUEST_IP4 peer_ip=$PEER_IP4 gid=$gid4 fam=''
	fi
	family_tests "$f"
	for server in 0 1; do
		for t in "${tests[@]}"; do
			one_test "$server" "$t"
		done
	done
done

[ -z "$hostile" ] || hostile_test

echo "# $dev hw_counters:"
for f in /sys/class/infiniband/"$dev"/ports/1/hw_counters/*; do
	echo "#   $(basename "$f") $(cat "$f")"
done
rdma link delete "$dev"
summary
