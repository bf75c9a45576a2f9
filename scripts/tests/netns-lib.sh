# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Hosts as network namespaces in one guest, for netns.sh and cc-netns.sh
# (sourced after guest-lib.sh; vm-run.sh -f .../netns-lib.sh): namespace
# sw holds bridge br0; a host namespace NS gets a veth v0 at 10.88.0.N/24
# and fd88::N/64 whose peer pN is a port of br0, and sroce devices added
# from inside it.

# inns NS CMD...: CMD in namespace NS.
inns() {
	ip netns exec "$@"
}

switch_up() {
	ip netns add sw &&
		ip -n sw link set lo up &&
		ip -n sw link add br0 type bridge stp_state 0 &&
		ip -n sw link set br0 up
}

# host_up NS N: namespace NS with v0 at 10.88.0.N and fd88::N, its veth
# peer pN on the switch.
host_up() {
	ip netns add "$1" &&
		ip link add v0 netns "$1" type veth peer name "p$2" netns sw &&
		ip -n sw link set "p$2" master br0 up &&
		ip -n "$1" link set lo up &&
		ip -n "$1" link set v0 up &&
		ip -n "$1" addr add "10.88.0.$2/24" dev v0 &&
		ip -n "$1" -6 addr add "fd88::$2/64" dev v0 nodad
}

# port_active NS DEV: port 1 of DEV, seen from NS, becomes ACTIVE.
port_active() {
	local _
	for _ in $(seq 100); do
		inns "$1" grep -qw ACTIVE "/sys/class/infiniband/$2/ports/1/state" 2>/dev/null &&
			return 0
		sleep 0.1
	done
	inns "$1" cat "/sys/class/infiniband/$2/ports/1/state"
	return 1
}

# link_in NS DEV [SEEN_FROM]: rdma link add DEV on NS's v0, from inside
# NS; its port then becomes ACTIVE as seen from SEEN_FROM (default NS; in
# exclusive mode a new device is in init_net).
link_in() {
	inns "$1" rdma link add "$2" type sroce netdev v0 || return 1
	if [ -n "${3:-}" ]; then
		wait_port_active "$2"
	else
		port_active "$1" "$2"
	fi
}

# gid NS DEV IP: DEV's RoCE v2 GID index for IP, seen from NS.
gid() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	inns "$1" bash -c '. /job/guest-lib.sh && roce_gid_index "$0" "$1"' "$2" "$3"
}
