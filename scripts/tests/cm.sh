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
# Options: ipv6, address the peer by its IPv6 address (GID, rdma_cm) instead
# of IPv4; interop, only the tests that rdma_rxe on the other end supports
# the same way (UD pingpong, rping, ucmatose, udaddy).
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
my_ip=$GUEST_IP4 peer_ip=$PEER_IP4 interop=''
for opt in "$@"; do
	case $opt in
	ipv6) my_ip=$GUEST_IP6 peer_ip=$PEER_IP6 ;;
	interop) interop=1 ;;
	*) bail "unknown option '$opt'" ;;
	esac
done

load_link_module "$mytype" || bail "load $mytype"
modprobe -a rdma_ucm ib_umad >/dev/null 2>&1
rdma link add "$dev" type "$mytype" netdev eth0 || bail "rdma link add $dev"
wait_port_active "$dev" || bail "$dev not active"
gid=$(roce_gid_index "$dev" "$my_ip") || bail "no RoCE v2 GID for $my_ip"

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
	! grep -qi 'mismatch\|error' "$1" && [ "$n" -eq "$2" ] ||
		{ echo "$n of $2 pings"; cat "$1"; return 1; }
}

# The tests: "DESC|SERVER CMD|CLIENT CMD"; @P@ is the port, @IP@ this
# guest's address, @PEER@ the server's. Commands are split on blanks.
tests=(
	"ud_pingpong 4 B|ibv_ud_pingpong -d $dev -g $gid -p @P@ -s 4 -n 50 $ud_chk|ibv_ud_pingpong -d $dev -g $gid -p @P@ -s 4 -n 50 $ud_chk @PEER@"
	"ud_pingpong 1024 B|ibv_ud_pingpong -d $dev -g $gid -p @P@ -s 1024 -n 50 $ud_chk|ibv_ud_pingpong -d $dev -g $gid -p @P@ -s 1024 -n 50 $ud_chk @PEER@"
	"rping -C 20|rping -s -a @IP@ -p @P@ -C 20 -S 64 -v -V|rping -c -a @PEER@ -p @P@ -C 20 -S 64 -v -V"
	"ucmatose|ucmatose -b @IP@ -c 2 -C 20|ucmatose -s @PEER@ -c 2 -C 20"
	"udaddy|udaddy -b @IP@ -c 2 -C 20|udaddy -s @PEER@ -c 2 -C 20"
)
if [ -z "$interop" ]; then
	tests+=(
		"ib_send_bw -c UD|ib_send_bw -d $dev -x $gid -p @P@ -F -c UD -s 1024 -n 200|ib_send_bw -d $dev -x $gid -p @P@ -F -c UD -s 1024 -n 200 @PEER@"
		"ib_send_lat -c UD|ib_send_lat -d $dev -x $gid -p @P@ -F -c UD -s 2 -n 100|ib_send_lat -d $dev -x $gid -p @P@ -F -c UD -s 2 -n 100 @PEER@"
	)
	# perftest's out-of-band exchange is IPv4 only.
	[ "$my_ip" = "$GUEST_IP4" ] && tests+=(
		"ib_write_bw -R|ib_write_bw -d $dev -R -p @P@ -F -u 17 -s 65536 -n 100|ib_write_bw -d $dev -R -p @P@ -F -u 17 -s 65536 -n 100 @PEER@"
		"ib_send_lat -R|ib_send_lat -d $dev -R -p @P@ -F -u 17 -s 2 -n 100|ib_send_lat -d $dev -R -p @P@ -F -u 17 -s 2 -n 100 @PEER@"
	)
fi

# expand CMD: CMD with the placeholders filled in.
expand() {
	local c=${1//@P@/$port}
	c=${c//@IP@/$my_ip}
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
		check "$desc (${types[$server]} server)" test $rc -eq 0 ||
			sed 's/^/#   /' "$log.server"
		[[ $desc != rping* ]] ||
			check "$desc data (${types[$server]} server)" rping_ok "$log.server" 20
	else
		barrier "$port-up"
		# shellcheck disable=SC2086 # the command is split on purpose
		check "$desc (${types[$GUEST_ID]} client to ${types[$server]})" \
			run_client "$log.client" $ccmd ||
			sed 's/^/#   /' "$log.client"
		[[ $desc != rping* ]] ||
			check "$desc data (${types[$GUEST_ID]} client)" rping_ok "$log.client" 20
	fi
	barrier "$port-done"
	port=$((port + 1))
}

for server in 0 1; do
	for t in "${tests[@]}"; do
		one_test "$server" "$t"
	done
done

echo "# $dev hw_counters:"
for f in /sys/class/infiniband/"$dev"/ports/1/hw_counters/*; do
	echo "#   $(basename "$f") $(cat "$f")"
done
rdma link delete "$dev"
summary
