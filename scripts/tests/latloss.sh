#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Ping-pong under loss: perftest's latency tests between two guests of
# two vCPUs each, netem dropping 1 % of each guest's packets. These tests
# keep one WR in flight in an SQ of depth 1 and post the next one as soon
# as they poll the last one's completion, so every run must finish: a
# completion that became visible before its SQ slot was freed made the
# next post fail with the ring full while the application polled on one
# vCPU and the completer ran on the other (ib_write_lat: 6 runs in 15 on
# 2026-12-06), and each lost request or ACK must be recovered.
#
#   vm-run.sh -n 2 -c 2 -f .../sroce.ko latloss.sh [sroce|rxe] [RUNS]
#
# RUNS (default 4) runs of 3000 iterations of each tool.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

type=${1:-sroce}
runs=${2:-4}
dev=${type}0
port=19700
TOOL_TIMEOUT=120

check "load $type" load_link_module "$type"
check "add $dev" rdma link add "$dev" type "$type" netdev eth0
wait_port_active "$dev"
modprobe sch_netem 2>/dev/null
check "netem loss 1%" tc qdisc replace dev eth0 root netem loss 1%
gid=$(roce_gid_index "$dev" "$GUEST_IP4")

for tool in ib_write_lat ib_send_lat; do
	for i in $(seq "$runs"); do
		log=/job/$tool-$i
		barrier "$tool-$i"
		if [ "$GUEST_ID" = 0 ]; then
			timeout "$TOOL_TIMEOUT" "$tool" -d "$dev" -x "$gid" -p $port -F -s 2 \
				-n 3000 >"$log.server" 2>&1
		else
			sleep 1
			run_client "$log.client" "$tool" -d "$dev" -x "$gid" \
				-p $port -F -s 2 -n 3000 "$PEER_IP4"
		fi
		rc=$?
		check "$type $tool run $i under 1% loss" test $rc -eq 0
		[ $rc -eq 0 ] || tail -n 3 "$log".* | sed 's/^/# /'
		port=$((port + 1))
	done
done
tc qdisc del dev eth0 root
[ "$type" != sroce ] || dump_counters "$dev"
summary
