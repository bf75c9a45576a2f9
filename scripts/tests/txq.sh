#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One transmit queue per QP on a multiqueue NIC. A QP's requester runs on
# whichever CPU posts or takes its ACKs, and without a socket the stack
# picks the transmit queue from the sending CPU (XPS); a NIC drains its
# queues independently, so a QP spread over two queues reaches the peer
# out of order (sequence NAKs, go-back-N). sroce names one CPU per QP as
# the sender of every packet it sends (skb->sender_cpu), so the QP keeps
# one queue whichever CPU sends.
#
#   vm-run.sh -n 2 -c 2 -Q 2 -f .../sroce.ko txq.sh [RUNS]
#
# Both guests run perftest on CPU 0 and take every virtio-net interrupt
# on CPU 1: the client's QP then sends from CPU 0 (its posts) and from
# CPU 1 (the ACKs that open its window). RUNS (default 2) ib_write_bw
# runs; after each the client checks from the per-queue transmit
# counters that the run's packets left by one queue.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

runs=${1:-2}
dev=sroce0
port=19800
TOOL_TIMEOUT=$((300 * TIME_FACTOR))
# 64 MiB of 64 KiB WRITEs: 65536 packets at path MTU 1024. The minor
# queue may carry perftest's TCP exchange and the odd ARP, not the QP.
size=65536 iters=1024 min_pkts=65536 stray_max=200

# tx_packets: "Q0 Q1", eth0's packets sent by each transmit queue.
tx_packets() {
	ethtool -S eth0 | awk '$1 == "tx_queue_0_packets:" { a = $2 }
		$1 == "tx_queue_1_packets:" { b = $2 } END { print a, b }'
}

# irqs_to_cpu1: every interrupt of eth0's virtio device taken by CPU 1.
irqs_to_cpu1() {
	local vdev irq n=0
	vdev=$(basename "$(readlink /sys/class/net/eth0/device)")
	for irq in $(awk -v d="$vdev-" 'index($NF, d) == 1 { sub(":", "", $1); print $1 }' \
		/proc/interrupts); do
		echo 1 >"/proc/irq/$irq/smp_affinity_list" || return 1
		n=$((n + 1))
	done
	echo "$n interrupts of $vdev on CPU 1"
	[ $n -ge 4 ]
}

# xps_per_cpu: eth0 has two transmit queues and CPU n sends on queue n.
xps_per_cpu() {
	local q0 q1
	q0=$(cat /sys/class/net/eth0/queues/tx-0/xps_cpus)
	q1=$(cat /sys/class/net/eth0/queues/tx-1/xps_cpus)
	echo "xps_cpus: tx-0 $q0, tx-1 $q1"
	[ $((16#$q0)) -eq 1 ] && [ $((16#$q1)) -eq 2 ]
}

# one_queue BEFORE AFTER: the packets sent between two tx_packets samples
# left (all but stray_max) by one queue, and there were at least min_pkts.
one_queue() {
	local b0 b1 a0 a1 d0 d1
	read -r b0 b1 <<<"$1"
	read -r a0 a1 <<<"$2"
	d0=$((a0 - b0)) d1=$((a1 - b1))
	echo "sent by tx queue 0: $d0, by tx queue 1: $d1"
	[ $((d0 + d1)) -ge $min_pkts ] &&
		{ [ $d0 -le $stray_max ] || [ $d1 -le $stray_max ]; }
}

[ "$(nproc)" -eq 2 ] || bail "txq.sh wants two vCPUs (vm-run.sh -c 2)"
check "eth0: two transmit queues, one per CPU" xps_per_cpu || bail "no multiqueue eth0 (vm-run.sh -Q 2)"
check "eth0 interrupts on CPU 1" irqs_to_cpu1
check "load sroce" load_sroce
check "add $dev" rdma link add "$dev" type sroce netdev eth0
wait_port_active "$dev"
gid=$(roce_gid_index "$dev" "$GUEST_IP4")

for i in $(seq "$runs"); do
	log=/job/write-$i
	barrier "write-$i"
	if [ "$GUEST_ID" = 0 ]; then
		timeout "$TOOL_TIMEOUT" taskset -c 0 ib_write_bw -d "$dev" -x "$gid" -p $port \
			-F -s $size -n $iters >"$log.server" 2>&1
		rc=$?
	else
		sleep 1
		before=$(tx_packets)
		run_client "$log.client" taskset -c 0 ib_write_bw -d "$dev" -x "$gid" -p $port \
			-F -s $size -n $iters "$PEER_IP4"
		rc=$?
		after=$(tx_packets)
	fi
	check "ib_write_bw run $i (guest $GUEST_ID)" test $rc -eq 0 ||
		sed 's/^/#   /' "$log".*
	[ "$GUEST_ID" = 0 ] || check "run $i: one QP's packets left by one transmit queue" \
		one_queue "$before" "$after"
	port=$((port + 1))
done
dump_counters "$dev"
summary
