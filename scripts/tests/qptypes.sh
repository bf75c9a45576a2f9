#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared receive queues and UC QPs through the standard tools, run by
# scripts/vm-run.sh:
#
#   qptypes.sh pair TYPE0 TYPE1 [SET...]   two guests; guest N runs link
#                                          type TYPEn (sroce or rxe); every
#                                          test runs with each guest as
#                                          server (servers=both, the
#                                          default) or with guest 0 or 1
#                                          alone
#
# SET: srq, uc, xrc, api, inject, qpstate, veth, atomicw, charge
# (default: these nine), flush (Debian 13 guests only). ibv_uc_pingpong
# -c checks the data it receives (where the tool has -c);
# ibv_srq_pingpong checks every completion's status and QP; perftest
# checks that every operation completes. ibv_xsrq_pingpong must fail
# cleanly: XRC is not supported, so opening the XRC domain fails with
# EOPNOTSUPP (95). Each run is one check.
# qpstate runs /job/qpstate-test (scripts/tests/qpstate-test.c): the SQE
# and SQD states of UD, UC and RC QPs on each sroce guest's own device.
# veth runs two sroce devices over a veth pair: /job/av-race-test
# (scripts/tests/av-race-test.c) and pingpongs between them (veth_devs).
# atomicw runs /job/atomic-write-test (scripts/tests/atomic-write-test.c):
# guest 0 (sroce) posts RDMA ATOMIC WRITEs to guest 1, which checks the
# data; against rdma_rxe of 6.1, which drops the opcode, every request
# must end in a retry-exceeded error and nothing may land.
# charge runs /job/ring-charge (scripts/tests/ring-charge.c) on each
# sroce guest: the rings of a user's QPs are charged to its memory cgroup
# (skipped on a kernel without the memory controller: the debug kernel).
# flush runs /job/flush-test (scripts/tests/flush-test.c, built against
# rdma-core 56): RDMA FLUSH, which sroce refuses, posted by each guest in
# turn; see the program for what each pairing must show.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

TOOL_TIMEOUT=${TOOL_TIMEOUT:-150}
port=18515
types=("$2" "$3")
mytype=${types[$GUEST_ID]}
shift 3
sets=() servers=(0 1)
for opt in "$@"; do
	case $opt in
	servers=*) set_servers "$opt" ;;
	*) sets+=("$opt") ;;
	esac
done
[ ${#sets[@]} -eq 0 ] && sets=(srq uc xrc api inject qpstate veth atomicw charge)
dev=${mytype}0

link_up "$mytype" "$dev"
gid=$(roce_gid_index "$dev" "$GUEST_IP4") || bail "no RoCE v2 GID for $GUEST_IP4"
addrs_ready peer

# ibv_uc_pingpong validates the data it receives with -c where it has it.
uc_chk=''
ibv_uc_pingpong -h 2>&1 | grep -q -- '--chk' && uc_chk=-c

tests=()
for s in "${sets[@]}"; do
	case $s in
	srq)
		tests+=(
			"ibv_srq_pingpong|-s 1 -n 50 -q 4 -r 16"
			"ibv_srq_pingpong|-s 4096 -n 50 -e"
			"ibv_srq_pingpong|-s 65536 -n 20 -q 8 -r 32"
		)
		;;
	uc)
		tests+=(
			"ibv_uc_pingpong|-s 1 -n 50 $uc_chk"
			"ibv_uc_pingpong|-s 4096 -n 50 -e $uc_chk"
			"ibv_uc_pingpong|-s 65536 -n 20 $uc_chk"
		)
		# perftest on UC: sroce on both ends only. UC never resends:
		# one packet the guests' bridge drops under a burst (it does
		# at 64 KiB messages on TCG guests) loses a SEND and hangs
		# ib_send_bw's server, so SENDs stay small and the TX depth
		# low. A lost WRITE packet fails nothing: 1 MiB is fine.
		if [ "${types[0]}" = "${types[1]}" ]; then
			tests+=(
				"ib_send_bw|-c UC -s 1024 -n 200 -t 16"
				"ib_send_bw|-c UC -s 4096 -n 200 -t 16"
				"ib_write_bw|-c UC -s 4096 -n 200 -t 16"
				"ib_write_bw|-c UC -s 1048576 -n 10 -t 2"
			)
		fi
		;;
	xrc|api|inject|qpstate|veth|atomicw|charge|flush) ;;
	*) bail "unknown set '$s'" ;;
	esac
done

tool_args() {
	case $1 in
	ibv_*) echo "-d $dev -g $gid -p $3 $2" ;;
	*) echo "-d $dev -x $gid -p $3 -F $2" ;;
	esac
}

# one_test SERVER_ID TOOL ARGS: run one server/client pair and check both.
one_test() {
	local server=$1 tool=$2 args log
	args=$(tool_args "$tool" "$3" $port)
	log=/job/$tool-$port
	# shellcheck disable=SC2086 # $args holds several options
	tool_pair "$server" "$log" "$tool $3" "$tool" $args
	barrier "$tool-$port-done"
	port=$((port + 1))
}

# xsrq_fails: ibv_xsrq_pingpong stops at ibv_open_xrcd() with EOPNOTSUPP.
xsrq_fails() {
	local log=/job/ibv_xsrq_pingpong.log rc
	timeout 30 ibv_xsrq_pingpong -d "$dev" -g "$gid" -p $port >"$log" 2>&1
	rc=$?
	sed 's/^/#   /' "$log"
	[ $rc -eq 1 ] && grep -qx "Couldn't Open the XRC Domain 95" "$log"
}

for server in "${servers[@]}"; do
	for t in "${tests[@]}"; do
		one_test "$server" "${t%%|*}" "${t#*|}"
	done
done

# prog_checks PROG [ARGS...]: /job/PROG (scripts/tests/PROG.c) on this
# guest's device alone, with ARGS or the device and GID index; its checks
# are this job's checks. api runs srq-test, qpstate qpstate-test, veth
# av-race-test.
prog_checks() {
	local prog=$1 log=/job/$1.log rc line
	shift
	[ $# -gt 0 ] || set -- "$dev" "$gid"
	timeout "$TOOL_TIMEOUT" "/job/$prog" "$@" >"$log" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*)
			pass "$prog: ${line#ok - }"
			;;
		"not ok - "*) fail "$prog: ${line#not ok - }" ;;
		*) echo "# $line" ;;
		esac
	done <"$log"
	check "$prog exits 0" test "$rc" -eq 0
}

# veth: two sroce devices over the ends of a veth pair in this guest's
# namespace (10.99.0.1 and .2, fd99::1 and ::2). veth asks for no headroom
# of its own (virtio_net's eth0 does), so a packet built with IPv4
# headroom that met IPv6 headers panicked there: av-race-test runs on the
# first device for 8 s. Then ibv_rc_pingpong -c and ibv_ud_pingpong -c
# from the second device to the first's addresses, IPv4 and IPv6: a packet
# to an address of this host must reach the device that holds it (it went
# to the sending device before).
veth_devs() {
	local a=sroce_va b=sroce_vb pair a_ip b_ip gid_a gid_b
	# IPv4 between two addresses of one host across a wire: ARP and
	# the packets have a local source address (a martian without this).
	sysctl -qw net.ipv4.conf.all.accept_local=1
	if ! { ip link add avr0 type veth peer name avr1 &&
		sysctl -qw net.ipv4.conf.avr0.accept_local=1 &&
		sysctl -qw net.ipv4.conf.avr1.accept_local=1 &&
		ip addr add 10.99.0.1/24 dev avr0 &&
		ip addr add fd99::1/64 dev avr0 nodad &&
		ip addr add 10.99.0.2/24 dev avr1 &&
		ip addr add fd99::2/64 dev avr1 nodad &&
		ip link set avr1 up && ip link set avr0 up &&
		rdma link add $a type sroce netdev avr0 &&
		rdma link add $b type sroce netdev avr1 &&
		wait_port_active $a && wait_port_active $b; }; then
		fail "veth: two sroce devices over a veth pair"
		return
	fi
	prog_checks av-race-test $a 8
	# The tools meet over TCP at 10.99.0.1 whichever GIDs they use.
	for pair in 10.99.0.1,10.99.0.2 fd99::1,fd99::2; do
		a_ip=${pair%,*} b_ip=${pair#*,}
		if ! gid_a=$(roce_gid_index $a "$a_ip") ||
			! gid_b=$(roce_gid_index $b "$b_ip"); then
			fail "veth: RoCE v2 GIDs for $a_ip and $b_ip"
			continue
		fi
		local_pair "/job/veth-rc-$a_ip" "ibv_rc_pingpong -c $b -> $a ($a_ip)" \
			"ibv_rc_pingpong -d $a -g $gid_a -p 18700 -c" \
			"ibv_rc_pingpong -d $b -g $gid_b -p 18700 -c 10.99.0.1"
		local_pair "/job/veth-ud-$a_ip" "ibv_ud_pingpong -c $b -> $a ($a_ip)" \
			"ibv_ud_pingpong -d $a -g $gid_a -p 18701 -s 1000 -c" \
			"ibv_ud_pingpong -d $b -g $gid_b -p 18701 -s 1000 -c 10.99.0.1"
	done
	rdma link delete $b
	rdma link delete $a
	ip link delete avr0
}

# counter NAME: a hw counter of this guest's device.
counter() {
	cat "/sys/class/infiniband/$dev/ports/1/hw_counters/$1"
}

# inject: guest 1 sends crafted UC packets (scripts/tests/uc-inject.py:
# duplicate, gap, out of order, truncated, bad ICRC, RC opcode, a SEND
# longer than the WQE, a FIRST far ahead and one behind) to a UC
# QP of guest 0's sroce (srq-test target mode) over IPv6. Exactly the
# messages uc-inject.py names arrive, and every bad packet is counted.
uc_inject() {
	local qpn_file=/shared/uc-target.qpn names v tpid gid6 i
	names=(duplicate_request out_of_seq_request resp_dropped
	       rcvd_malformed_pkts rcvd_bad_icrc_pkts rcvd_no_qp_pkts
	       resp_invalid_request)
	local -a before want=(1 6 2 1 1 1 1)
	if [ "$GUEST_ID" = 1 ]; then
		barrier uc-target-up
		check "uc-inject.py sends its packets" \
			python3 /job/uc-inject.py "$GUEST_IP6" "$PEER_IP6" "$(cat $qpn_file)"
		barrier uc-inject-done
		return
	fi
	gid6=$(roce_gid_index "$dev" "$GUEST_IP6") || bail "no RoCE v2 GID for $GUEST_IP6"
	for i in "${!names[@]}"; do
		before[i]=$(counter "${names[i]}")
	done
	rm -f $qpn_file
	/job/srq-test "$dev" "$gid6" target "$PEER_IP6" $qpn_file 12 >/job/uc-target.log 2>&1 &
	tpid=$!
	for _ in $(seq 50); do
		[ -s $qpn_file ] && break
		sleep 0.2
	done
	barrier uc-target-up
	barrier uc-inject-done
	wait $tpid
	sed 's/^/#   /' /job/uc-target.log
	check "UC target receives exactly the 7 good messages" \
		test "$(grep '^recv' /job/uc-target.log | tr '\n' ';')" = \
		"recv 0 100 01 01 0;recv 1 50 04 04 0;recv 2 2058 05 05 0;recv 3 20 07 07 0;recv 4 30 0b 0b 0;recv 5 10 0c 0c 0;recv 6 40 0d 0d 0;"
	for i in "${!names[@]}"; do
		v=$(( $(counter "${names[i]}") - before[i] ))
		check "UC hostile packets: ${names[i]} +$v (want +${want[i]})" \
			test "$v" -eq "${want[i]}"
	done
}

# pair_prog PROG PORT: /job/PROG (scripts/tests/PROG.c), a two-host
# program, with guest 0 as its client and guest 1 as its server, of
# either type; its checks are this job's checks. atomicw runs
# atomic-write-test (guest 0 the requester), flush flush-test (each
# guest in turn).
pair_prog() {
	local prog=$1 port=$2 log=/job/$1.log rc line
	if [ "$GUEST_ID" = 1 ]; then
		timeout "$TOOL_TIMEOUT" "/job/$prog" server "$dev" "$gid" \
			"$port" >"$log" 2>&1 &
		local spid=$!
		barrier "$prog-up"
		wait $spid
	else
		barrier "$prog-up"
		timeout "$TOOL_TIMEOUT" "/job/$prog" client "$dev" "$gid" \
			"$port" "$PEER_IP4" >"$log" 2>&1
	fi
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*)
			echo "ok - $prog: ${line#ok - }"
			GL_PASS=$((GL_PASS + 1))
			;;
		"not ok - "*) fail "$prog: ${line#not ok - }" ;;
		*) echo "# $line" ;;
		esac
	done <"$log"
	check "$prog $([ "$GUEST_ID" = 1 ] && echo server || echo client) (${types[$GUEST_ID]}) exits 0" \
		test "$rc" -eq 0
	barrier "$prog-done"
}

# charged NQP: the memory.current of the cgroup ring-charge once
# `/job/ring-charge DEV NQP`, run in it, is ready (nothing if it never
# is); the program's output in /job/ring-charge-NQP.log.
charged() {
	local cg=/sys/fs/cgroup/ring-charge log=/job/ring-charge-$1.log pid
	rm -f /tmp/ring-charge.in "$log"
	mkfifo /tmp/ring-charge.in
	(
		echo "$BASHPID" >$cg/cgroup.procs &&
			exec /job/ring-charge "$dev" "$1" </tmp/ring-charge.in
	) >"$log" 2>&1 &
	pid=$!
	# Its stdin stays open until fd 9 closes.
	exec 9<>/tmp/ring-charge.in
	for _ in $(seq 150); do
		grep -q '^ready' "$log" && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.2
	done
	grep -q '^ready' "$log" && cat $cg/memory.current
	exec 9>&-
	wait $pid
}

# grew_by_rings NONE FOUR RING: all three measured, and FOUR at least
# four rings of RING bytes above NONE.
grew_by_rings() {
	[ -n "$1" ] && [ -n "$2" ] && [ -n "$3" ] && [ $(($2 - $1)) -ge $((4 * $3)) ]
}

# ring_charge: four QPs of the largest receive queues must charge their
# cgroup at least their rings' size more than none do.
ring_charge() {
	local cg=/sys/fs/cgroup/ring-charge none four ring
	[ -e /sys/fs/cgroup/cgroup.controllers ] ||
		mount -t cgroup2 cgroup2 /sys/fs/cgroup || bail "cannot mount cgroup2"
	if ! grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
		echo "# ring-charge: no memory cgroup controller on this kernel, not run"
		return 0
	fi
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p $cg
	none=$(charged 0)
	four=$(charged 4)
	ring=$(awk '$1 == "ring_bytes" { print $2 }' /job/ring-charge-4.log)
	echo "# ring-charge: cgroup at ${none:-?} B with no QP, ${four:-?} B with four; rings of at least ${ring:-?} B each"
	check "4 QPs' receive rings charged to the user's memory cgroup" \
		grew_by_rings "$none" "$four" "$ring" ||
		sed 's/^/#   /' /job/ring-charge-*.log
	rmdir $cg
}

for s in "${sets[@]}"; do
	if [ "$s" = inject ] && [ "${types[0]}" = sroce ]; then
		uc_inject
		continue
	fi
	if [ "$s" = atomicw ] && [ "${types[0]}" = sroce ]; then
		pair_prog atomic-write-test 18690
		continue
	fi
	if [ "$s" = flush ]; then
		pair_prog flush-test 18691
		continue
	fi
	[ "$mytype" = sroce ] || continue
	case $s in
	xrc) check "ibv_xsrq_pingpong fails with EOPNOTSUPP ($mytype)" xsrq_fails ;;
	api) prog_checks srq-test ;;
	qpstate) prog_checks qpstate-test ;;
	veth) veth_devs ;;
	charge) ring_charge ;;
	esac
done

dump_counters "$dev"
rdma link delete "$dev"
summary
