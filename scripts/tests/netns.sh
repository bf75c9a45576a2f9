#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sroce in network namespaces, run by scripts/vm-run.sh in one guest (with
# -f .../sroce.ko -f .../netns-lib.sh):
#
#   netns.sh
#
# Hosts are namespaces h1, h2, ... (netns-lib.sh) each with a veth v0
# whose peer is a port of bridge br0 in namespace sw (10.88.0.N/24,
# fd88::N/64), and an sroce device on v0 added from inside the host
# namespace. Between two of them: RC and UD pingpong with data checks,
# perftest WRITE and READ, rping over IPv4 and IPv6 (rdma_cm), the packets
# seen on the switch port (the wire path, not the local shortcut), and
# port 4791 bound only in namespaces that hold a device. Then: a host
# namespace deleted while traffic runs (its device goes, the other side
# lives on), a netdev moved to another namespace (its device follows and
# carries traffic there), and in exclusive mode (rdma system set netns
# exclusive) devices moved into their hosts' namespaces with rdma dev set
# ... netns, traffic between them, and a namespace deleted with its device
# in it. vm-run.sh judges the kernel log.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh
# shellcheck source-path=SCRIPTDIR source=netns-lib.sh
. /job/netns-lib.sh

TOOL_TIMEOUT=$((60 * TIME_FACTOR))

# port_4791 NS: NS has a UDP socket bound to 4791 (IPv4 or IPv6).
port_4791() {
	inns "$1" ss -Hunl 'sport = :4791' | grep -q .
}

# no_port_4791 NS...: none of the NSes has it.
no_port_4791() {
	local ns
	for ns in "$@"; do
		! port_4791 "$ns" || return 1
	done
}

# kill_and_del NS: what a container runtime does: kill every process in
# NS, then delete it.
kill_and_del() {
	ip netns pids "$1" | xargs -r kill -KILL
	ip netns del "$1"
}

# moved_to NS: h1's v0 moved to a new namespace NS and set up there.
moved_to() {
	ip netns add "$1" &&
		ip -n h1 link set v0 netns "$1" &&
		ip -n "$1" link set lo up &&
		ip -n "$1" link set v0 up &&
		ip -n "$1" addr add 10.88.0.1/24 dev v0 &&
		ip -n "$1" -6 addr add fd88::1/64 dev v0 nodad
}

# only_in NS DEV: exclusive mode shows DEV in NS and not in init_net.
only_in() {
	inns "$1" rdma dev show "$2" && ! rdma dev show "$2" 2>/dev/null
}

# pair NS1 DEV1 N1 NS2 DEV2 N2 WHAT: server in NS1 (10.88.0.N1), client in
# NS2, one check per tool; WHAT says where they are for the check names.
pair() {
	local s=$1 sd=$2 sn=$3 c=$4 cd=$5 cn=$6 what=$7 sg cg t
	sg=$(gid "$s" "$sd" "10.88.0.$sn") || { fail "$what: no GID on $sd" && return 1; }
	cg=$(gid "$c" "$cd" "10.88.0.$cn") || { fail "$what: no GID on $cd" && return 1; }
	for t in "ibv_rc_pingpong -c -n 100 -s 4096" "ibv_ud_pingpong -c -n 100 -s 1024" \
		"ib_write_bw -n 500 -s 65536" "ib_read_bw -n 200 -s 65536"; do
		case $t in
		ibv_*) set -- -g ;;
		*) set -- -x ;;
		esac
		local_pair /job/tool "$what: ${t%% *}" \
			"ip netns exec $s $t -d $sd $1 $sg" \
			"ip netns exec $c $t -d $cd $1 $cg 10.88.0.$sn"
	done
}

# rping_pair NS1 ADDR NS2 WHAT: rping (rdma_cm) with 20 verified pings.
rping_pair() {
	local pid
	timeout "$TOOL_TIMEOUT" ip netns exec "$1" rping -s -a "$2" -C 20 -V \
		>/job/server.log 2>&1 &
	pid=$!
	run_client /job/client.log ip netns exec "$3" rping -c -a "$2" -C 20 -V
	check "$4: rping client over $2" test $? -eq 0 || sed 's/^/#   /' /job/client.log
	check_server "$4: rping server over $2" $pid /job/server.log
}

# gone DEV: DEV leaves `rdma link` (seen from init_net) within 30 s.
gone() {
	local _
	for _ in $(seq 300); do
		rdma link show | grep -qw "link $1/1" || return 0
		sleep 0.1
	done
	rdma link show
	return 1
}

# load NS1 DEV1 NS2 DEV2 DST_N: ib_write_bw for 30 s, server in NS1, client
# in NS2 towards 10.88.0.DST_N, in the background.
load() {
	timeout "$TOOL_TIMEOUT" ip netns exec "$1" ib_write_bw -d "$2" \
		-x "$(gid "$1" "$2" "10.88.0.${1#h}")" -D 30 >/job/load-server.log 2>&1 &
	sleep 2
	timeout "$TOOL_TIMEOUT" ip netns exec "$3" ib_write_bw -d "$4" \
		-x "$(gid "$3" "$4" "10.88.0.${3#h}")" -D 30 "10.88.0.$5" >/job/load-client.log 2>&1 &
	sleep 5
}

# shared_netns: namespaces h1..h3, devices on h1 and h2, every kind of
# traffic between them; h2 deleted under load; h1's netdev moved to h4.
shared_netns() {
	local cap

	check "switch namespace" switch_up
	check "host namespace h1" host_up h1 1
	check "host namespace h2" host_up h2 2
	check "host namespace h3" host_up h3 3
	check "rdma link add inside h1" link_in h1 sroce1
	check "rdma link add inside h2" link_in h2 sroce2
	check "port 4791 bound in h1" port_4791 h1
	check "port 4791 bound in h2" port_4791 h2
	check "port 4791 free in h3 (no device)" no_port_4791 h3

	# RoCE between two namespaces of one host crosses the switch.
	inns sw timeout "$TOOL_TIMEOUT" tcpdump -i p1 -nn -c 50 -w /job/netns.pcap \
		udp port 4791 >/job/tcpdump.log 2>&1 &
	cap=$!
	sleep 1
	pair h1 sroce1 1 h2 sroce2 2 "h1<->h2"
	rping_pair h1 10.88.0.1 h2 "h1<->h2"
	rping_pair h1 fd88::1 h2 "h1<->h2"
	wait $cap
	check "RoCEv2 packets crossed the switch port (wire path)" \
		grep -q '^50 packets captured' /job/tcpdump.log || sed 's/^/#   /' /job/tcpdump.log

	# h2 deleted while h1 and h2 exchange WRITEs.
	load h1 sroce1 h2 sroce2 1
	check "h2 killed and deleted under load" kill_and_del h2
	check "sroce2 goes with h2's veth" gone sroce2
	ip netns pids h1 | xargs -r kill -KILL
	wait
	check "a new h2 and sroce2" host_up h2 2
	check "rdma link add inside the new h2" link_in h2 sroce2
	pair h1 sroce1 1 h2 sroce2 2 "h1<->new h2"

	# h1's v0 moves to h4: sroce1 follows it, and the sockets with it.
	check "v0 moved from h1 to h4" moved_to h4
	check "sroce1 still there, ACTIVE in h4" port_active h4 sroce1
	check "port 4791 closed in h1 (no device left)" no_port_4791 h1
	check "port 4791 bound in h4" port_4791 h4
	pair h4 sroce1 1 h2 sroce2 2 "h4 (moved)<->h2"

	check "rdma link del sroce1" rdma link del sroce1
	check "rdma link del sroce2" rdma link del sroce2
	check "port 4791 closed in h2 and h4" no_port_4791 h2 h4
	check "port 4791 still bound in init_net" bash -c "ss -Hunl 'sport = :4791' | grep -q ."
}

# all_gone: every namespace deleted, and the RDMA core done with them.
all_gone() {
	local ns _
	for ns in $(ip netns list | cut -d' ' -f1); do
		ip netns del "$ns" || return 1
	done
	for _ in $(seq 300); do
		rdma system set netns "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	rdma system set netns "$1"
}

# exclusive_netns: devices moved into their hosts' namespaces.
exclusive_netns() {
	check "rdma system set netns exclusive" all_gone exclusive
	check "switch namespace" switch_up
	check "host namespace h1" host_up h1 1
	check "host namespace h2" host_up h2 2
	check "rdma link add inside h1 (device in init_net)" link_in h1 sroce1 init
	check "rdma link add inside h2 (device in init_net)" link_in h2 sroce2 init
	check "rdma dev set sroce1 netns h1" rdma dev set sroce1 netns h1
	check "rdma dev set sroce2 netns h2" rdma dev set sroce2 netns h2
	check "sroce1 seen in h1 only" only_in h1 sroce1
	check "sroce1 ACTIVE in h1" port_active h1 sroce1
	pair h1 sroce1 1 h2 sroce2 2 "exclusive h1<->h2"
	rping_pair h1 10.88.0.1 h2 "exclusive h1<->h2"

	# h1 deleted with sroce1 in it, while traffic flows.
	load h2 sroce2 h1 sroce1 2
	check "h1 killed and deleted with sroce1 in it, under load" kill_and_del h1
	check "sroce1 goes (not left in init_net)" gone sroce1
	ip netns pids h2 | xargs -r kill -KILL
	wait
	check "rdma system set netns shared again" all_gone shared
}

check "load sroce" load_sroce || bail "cannot load sroce"
shared_netns
exclusive_netns
check "rmmod sroce" rmmod sroce
summary
