#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The `make demo` job, run in two guests by scripts/demo.sh: create the RDMA
# device on eth0, show it, then ping the other guest over IPv4, IPv6 and
# RDMA (an RC ping-pong over RoCE v2). Argument: sroce (default) or rxe.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

type=${1:-sroce}
dev=${type}0
peer=guest$(((GUEST_ID + 1) % NGUESTS))

section() { printf '\n=== %s\n' "$*"; }

section "guest$GUEST_ID ($GUEST_IP4, $GUEST_IP6): $dev on eth0, MTU $MTU"
check "load the $type module" load_link_module "$type" || bail "cannot load the $type module"
check "rdma link add $dev type $type netdev eth0" \
	rdma link add "$dev" type "$type" netdev eth0 || bail "no $dev"
check "$dev port ACTIVE" wait_port_active "$dev"
rdma link show
ibv_devices
ibv_devinfo -d "$dev"
echo "RoCE GIDs:"
ibv_devinfo -v -d "$dev" | grep 'GID\['

barrier devices-up
section "IP ping to $peer"
check "ping $PEER_IP4" ping -c 3 -i 0.2 -w 15 "$PEER_IP4"
check "ping $PEER_IP6" ping -6 -c 3 -i 0.2 -w 15 "$PEER_IP6"

# report DESC STATUS LOG: record a check of STATUS and show LOG either way.
report() {
	sed 's/^/    /' "$3"
	check "$1" test "$2" -eq 0
}

# listening PID: ibv_rc_pingpong PID listens on its TCP port 18515 within
# 10 s, and has not died trying.
listening() {
	local deadline=$((SECONDS + 10))
	until ss -ltn | grep -q ':18515 '; do
		kill -0 "$1" 2>/dev/null || { echo "the server exited"; return 1; }
		[ $SECONDS -lt $deadline ] || { echo "not listening after 10 s"; return 1; }
		sleep 0.1
	done
}

# Guest 0 serves, guest 1 connects: both address the other by the RoCE v2
# GID of its IPv4 address; ibv_rc_pingpong swaps them over TCP port 18515.
section "RDMA ping-pong with $peer (ibv_rc_pingpong: RC, 100 x 4 KiB)"
gid=$(roce_gid_index "$dev" "$GUEST_IP4") || bail "no RoCE v2 GID for $GUEST_IP4"
pingpong=(ibv_rc_pingpong -d "$dev" -g "$gid" -s 4096 -n 100)
case $GUEST_ID in
0)
	"${pingpong[@]}" >/tmp/server.log 2>&1 &
	server=$!
	check "ping-pong server listening" listening "$server"
	barrier server-up
	wait "$server"
	report "ping-pong server" $? /tmp/server.log
	;;
1)
	barrier server-up
	"${pingpong[@]}" "$PEER_IP4" >/tmp/client.log 2>&1
	report "ping-pong client to $PEER_IP4" $? /tmp/client.log
	;;
esac

summary
