#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# System smoke test of an RDMA link type over eth0, run in two guests:
#   scripts/vm-run.sh -n 2 -f sroce.ko scripts/tests/smoke.sh [sroce]
#   scripts/vm-run.sh -n 2 scripts/tests/smoke.sh rxe
# The rxe variant runs the same checks against the stock rdma_rxe, which
# validates the harness (and the test's expectations) without sroce.
# Device creation, GIDs, ping, carrier down/up, MTU, link deletion, rmmod.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

type=${1:-sroce}
dev=${type}0
case $type in
sroce) mod=sroce ;;
rxe) mod=rdma_rxe ;;
*) bail "unknown link type '$type' (sroce or rxe)" ;;
esac

# has ERE FILE: FILE matches ERE, else show FILE.
# lacks ERE FILE...: no FILE matches ERE, else show the matching lines.
has() { grep -Eq -- "$1" "$2" || { cat "$2"; return 1; }; }
lacks() { ! grep -E -- "$1" "${@:2}"; }

# The active MTU the port should report for a netdev MTU: the largest IB
# MTU that fits beside up to 80 bytes of RoCEv2 headers (rdma_rxe's rule).
ib_mtu_for() {
	local room=$(($1 - 80)) m
	for m in 4096 2048 1024 512; do
		[ $room -lt $m ] || { echo $m; return; }
	done
	echo 256
}

# active_mtu_is N: the port reports active_mtu N.
active_mtu_is() {
	local got
	got=$(ibv_devinfo -d "$dev" | awk '$1 == "active_mtu:" { print $2 }')
	[ "$got" = "$1" ] || { echo "active_mtu is '$got', wanted $1"; return 1; }
}

# devinfo TAG: save `ibv_devinfo -v` stdout/stderr as /job/devinfo-TAG.{txt,err}.
devinfo() {
	ibv_devinfo -v -d "$dev" >"/job/devinfo-$1.txt" 2>"/job/devinfo-$1.err"
}

# gids_ok TAG: the saved devinfo has RoCE v2 GIDs for both our addresses.
gids_ok() {
	has "GID\[ *[0-9]+\]:[[:space:]]+::ffff:${GUEST_IP4//./\\.}, RoCE v2\$" "/job/devinfo-$1.txt" &&
		has "GID\[ *[0-9]+\]:[[:space:]]+$GUEST_IP6, RoCE v2\$" "/job/devinfo-$1.txt"
}

ping_peer() {
	check "ping $PEER_IP4 ($1)" ping -c 3 -i 0.2 -w 15 "$PEER_IP4"
	check "ping $PEER_IP6 ($1)" ping -6 -c 3 -i 0.2 -w 15 "$PEER_IP6"
}

# --- device creation --------------------------------------------------------
check "load $mod" load_link_module "$type" || bail "cannot load $mod"
check "rdma link add $dev type $type netdev eth0" \
	rdma link add "$dev" type "$type" netdev eth0 || bail "no $dev"
check "$dev port 1 becomes ACTIVE" wait_port_active "$dev"

ibv_devices >/job/ibv_devices.txt 2>/job/ibv_devices.err
check "ibv_devices lists $dev" has "^[[:space:]]+${dev}[[:space:]]" /job/ibv_devices.txt
devinfo up
check "ibv_devinfo: PORT_ACTIVE" has 'state:[[:space:]]+PORT_ACTIVE' /job/devinfo-up.txt
check "ibv_devinfo: link_layer Ethernet" has 'link_layer:[[:space:]]+Ethernet' /job/devinfo-up.txt
check "ibv_devinfo: RoCE v2 GIDs for $GUEST_IP4 and $GUEST_IP6" gids_ok up
check "libibverbs printed no warning (no missing/unloadable provider)" \
	lacks 'arning|load driver|no userspace' /job/ibv_devices.err /job/devinfo-up.err
rdma link show >/job/rdma-link.txt 2>&1
check "rdma link show lists $dev on eth0" has "^link $dev/1 .*netdev eth0" /job/rdma-link.txt
check "active_mtu $(ib_mtu_for "$MTU") at netdev MTU $MTU" active_mtu_is "$(ib_mtu_for "$MTU")"

# --- the link -----------------------------------------------------------------
# Both guests up before pinging; both done pinging before either takes eth0
# down.
barrier devices-up
ping_peer "before carrier and MTU changes"
barrier pinged

# --- port counters ------------------------------------------------------------
# sroce answers the Performance Management class's PortCounters MADs
# (drivers/sroce_pma.c), which the RDMA core shows under ports/1/counters.
# Guest 0 captures the RoCEv2 packets of an ibv_rc_pingpong run and checks
# that the counters moved by what the capture saw: packets, and data in
# 4-octet words of UDP payload (BTH to ICRC).
pma=/sys/class/infiniband/$dev/ports/1/counters

# pma_read: port_xmit_packets port_rcv_packets port_xmit_data port_rcv_data.
pma_read() {
	local c
	for c in port_xmit_packets port_rcv_packets port_xmit_data port_rcv_data; do
		printf '%s ' "$(cat "$pma/$c")"
	done
}

# capture_sums PCAP: packets and payload bytes sent and received by this
# guest in PCAP, as pma_read orders them (bytes, not yet words).
capture_sums() {
	tcpdump -r "$1" -nn -q 2>/dev/null |
		awk -v me="$GUEST_IP4" '
			$2 == "IP" { split($3, a, "."); src = a[1] "." a[2] "." a[3] "." a[4]
				if (src == me) { xp++; xb += $NF } else { rp++; rb += $NF } }
			END { printf "%d %d %d %d\n", xp, rp, xb, rb }'
}

# pma_moved BEFORE AFTER SUMS: the counters moved by the capture's sums.
pma_moved() {
	local -a b a s
	read -r -a b <<<"$1"
	read -r -a a <<<"$2"
	read -r -a s <<<"$3"
	echo "# counters before: $1, after: $2; capture: $3"
	[ $((a[0] - b[0])) -eq "${s[0]}" ] && [ $((a[1] - b[1])) -eq "${s[1]}" ] &&
		[ $((4 * (a[2] - b[2]))) -eq "${s[2]}" ] &&
		[ $((4 * (a[3] - b[3]))) -eq "${s[3]}" ] && [ "${s[0]}" -gt 0 ]
}

if [ "$type" = sroce ]; then
	types=(sroce sroce)
	TOOL_TIMEOUT=60
	check "$dev has PMA port counters" test -r "$pma/port_xmit_data"
	gid=$(roce_gid_index "$dev" "$GUEST_IP4") || bail "no RoCE v2 GID for $GUEST_IP4"
	if [ "$GUEST_ID" = 0 ]; then
		tcpdump -i eth0 -nn -U -w /job/pma.pcap udp port 4791 2>/job/pma-tcpdump.log &
		tcpdump_pid=$!
		sleep 1
		before=$(pma_read)
	fi
	tool_pair 0 /job/pma-pingpong "ibv_rc_pingpong -s 4096 -n 50 -c" \
		ibv_rc_pingpong -d "$dev" -g "$gid" -p 18500 -s 4096 -n 50 -c
	if [ "$GUEST_ID" = 0 ]; then
		sleep 1
		after=$(pma_read)
		kill -INT "$tcpdump_pid"
		wait "$tcpdump_pid"
		check "tcpdump dropped no packet" grep -qx "0 packets dropped by kernel" /job/pma-tcpdump.log
		check "PMA counters moved by the packets and payload captured" \
			pma_moved "$before" "$after" "$(capture_sums /job/pma.pcap)"
	fi
	barrier counted
fi

# --- carrier and MTU ----------------------------------------------------------
ip link set eth0 down
check "port 1 DOWN after eth0 down" wait_port_state "$dev" DOWN
ip link set eth0 up
check "port 1 ACTIVE after eth0 up" wait_port_active "$dev"
devinfo carrier
check "RoCE v2 GIDs still there after eth0 down/up" gids_ok carrier

ip link set eth0 mtu 1100
check "active_mtu 512 at netdev MTU 1100" active_mtu_is 512
ip link set eth0 mtu "$MTU"
check "active_mtu $(ib_mtu_for "$MTU") after restoring MTU $MTU" active_mtu_is "$(ib_mtu_for "$MTU")"
# An MTU below 1280 disables IPv6 on eth0 and drops its addresses: put ours back.
ip -6 addr replace "$GUEST_IP6/64" dev eth0 nodad
devinfo mtu
check "IPv6 RoCE v2 GID back with the IPv6 address" gids_ok mtu

barrier link-changed
ping_peer "after carrier and MTU changes"
# The peer must not power off while we still ping it.
barrier pinged-again

# --- teardown -----------------------------------------------------------------
check "rdma link del $dev" rdma link del "$dev"
ibv_devices >/job/ibv_devices-del.txt 2>&1
check "ibv_devices no longer lists $dev" lacks "^[[:space:]]+${dev}[[:space:]]" /job/ibv_devices-del.txt
check "rmmod $mod" rmmod "$mod"

check "reload $mod" load_link_module "$type"
check "rdma link add $dev again" rdma link add "$dev" type "$type" netdev eth0
check "$dev ACTIVE again" wait_port_active "$dev"
check "rmmod $mod with $dev still present" rmmod "$mod"
check "no RDMA device left" test -z "$(ls /sys/class/infiniband 2>/dev/null)"

summary
