#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile input, run by scripts/vm-run.sh on two guests with sroce on both:
#
#   fuzz.sh quick|long [SEED]
#       (with -f .../sroce.ko -f .../sroce_fuzz_test -f .../roce-fuzz.py)
#
# Packets: guest 0 holds live targets (sroce_fuzz_test target: RC QPs in
# RTS with an MR open to remote access, RC requesters with work
# outstanding, a UD QP, and QP1); guest 1 sends them hand-made RoCEv2
# frames (roce-fuzz.py): every opcode, replayed and far-future PSNs,
# truncations at every header boundary, bad pads, P_Keys and ICRCs,
# out-of-bounds RETHs and atomics, bogus ACKs and NAKs, unknown QPNs, random
# bytes, IPv4 and IPv6. Guest 0 then checks its counters against the
# fuzzer's own classification (exact for malformed, bad-ICRC and received
# packets, lower bounds for the rest) and that the target's verbs still
# work. User rings: both guests write garbage WQEs straight into their QPs'
# rings (sroce_fuzz_test ring). Afterwards legitimate traffic between the
# guests must still pass, and the module must unload. vm-run.sh fails the
# run on any kernel warning.
#
# The seed (printed) is random unless given; quick is about 3000 packets
# and 40 ring rounds per guest, long 60000 packets and 600 rounds.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

TOOL_TIMEOUT=${TOOL_TIMEOUT:-150}
dev=sroce0
case $1 in
quick) packets=3000 rounds=40 ;;
long) packets=60000 rounds=600 ;;
*) bail "usage: fuzz.sh quick|long [SEED]" ;;
esac
# one seed for both guests: guest 0 draws it unless given
if [ -n "${2:-}" ]; then
	seed=$2
elif [ "$GUEST_ID" = 0 ]; then
	seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
	echo "$seed" >/shared/fuzz-seed
fi
barrier fuzz-seed
seed=${seed:-$(cat /shared/fuzz-seed)}
echo "# fuzz seed $seed (rerun: fuzz.sh $1 $seed, or make fuzz SEED=$seed)"

link_up sroce "$dev"
gid4=$(roce_gid_index "$dev" "$GUEST_IP4") || bail "no RoCE v2 GID for $GUEST_IP4"
gid6=$(roce_gid_index "$dev" "$GUEST_IP6") || bail "no RoCE v2 GID for $GUEST_IP6"
addrs_ready peer

counter() {
	cat "/sys/class/infiniband/$dev/ports/1/hw_counters/$1"
}

# check_expect FILE: each line "COUNTER exact|min N" against the counter's
# change since the snapshot in /job/counters.before.
check_expect() {
	local name how want before now
	while read -r name how want; do
		before=$(sed -n "s/^$name //p" /job/counters.before)
		now=$(counter "$name")
		if [ "$how" = exact ]; then
			check "packets: $name +$want (got +$((now - before)))" \
				test $((now - before)) -eq "$want"
		else
			check "packets: $name at least +$want (got +$((now - before)))" \
				test $((now - before)) -ge "$want"
		fi
	done <"$1"
}

snapshot() {
	local f
	for f in /sys/class/infiniband/"$dev"/ports/1/hw_counters/*; do
		echo "$(basename "$f") $(cat "$f")"
	done
}

# --- packets ---------------------------------------------------------
if [ "$GUEST_ID" = 0 ]; then
	rm -f /shared/fuzz-info /shared/fuzz-stop
	cat /sys/class/net/eth0/address >/shared/fuzz-mac
	/job/sroce_fuzz_test target "$dev" "$gid4" "$gid6" "$PEER_IP4" \
		"$PEER_IP6" /shared/fuzz-info.tmp /shared/fuzz-stop \
		>/job/fuzz-target.log 2>&1 &
	tpid=$!
	for _ in $(seq 100); do
		[ -s /shared/fuzz-info.tmp ] && break
		sleep 0.1
	done
	mv /shared/fuzz-info.tmp /shared/fuzz-info 2>/dev/null ||
		{ cat /job/fuzz-target.log; bail "fuzz target did not start"; }
	sed 's/^/# target: /' /shared/fuzz-info
	snapshot >/job/counters.before
	barrier fuzz-ready
	barrier fuzz-sent
	# the receive path runs in softirq: give a TCG guest time to drain
	sleep 3
	snapshot | sed 's/^/# after: /'
	check_expect /shared/fuzz-expect
	touch /shared/fuzz-stop
	wait $tpid
	rc=$?
	sed 's/^/# /' /job/fuzz-target.log
	check "fuzz target: verbs still answer and tear down (exit $rc)" test $rc -eq 0
else
	barrier fuzz-ready
	check "roce-fuzz.py: $packets packets, seed $seed" python3 /job/roce-fuzz.py \
		--seed "$seed" --count "$packets" --dmac "$(cat /shared/fuzz-mac)" \
		--src4 "$GUEST_IP4" --dst4 "$PEER_IP4" --src6 "$GUEST_IP6" \
		--dst6 "$PEER_IP6" --expect /shared/fuzz-expect /shared/fuzz-info
	sed 's/^/# expect: /' /shared/fuzz-expect
	barrier fuzz-sent
fi
barrier fuzz-checked

# --- user rings ------------------------------------------------------
rlog=/job/ring.log
timeout 600 /job/sroce_fuzz_test ring "$dev" "$gid4" $((seed + GUEST_ID)) \
	"$rounds" >"$rlog" 2>&1
rc=$?
grep -v '^ok - ' "$rlog" | tail -n 60
count_checks "$rlog"
grep '^not ok - ' "$rlog"
check "ring fuzz: $rounds rounds, seed $((seed + GUEST_ID)) (exit $rc)" test $rc -eq 0
barrier ring-done

# --- legitimate traffic afterwards ------------------------------------
port=18600
for t in "ibv_rc_pingpong -d $dev -g $gid4 -s 4096 -n 100 -c" \
	 "ib_write_bw -d $dev -x $gid4 -F -u 17 -s 65536 -n 100" \
	 "ib_read_bw -d $dev -x $gid4 -F -u 17 -s 65536 -n 50"; do
	log=/job/after-${t%% *}-$port
	if [ "$GUEST_ID" = 0 ]; then
		# shellcheck disable=SC2086 # $t holds the options
		timeout "$TOOL_TIMEOUT" $t -p $port >"$log" 2>&1 &
		spid=$!
		barrier "after-$port"
		wait $spid
		rc=$?
		check "after fuzzing: ${t%% -d*} server (exit $rc)" test $rc -eq 0 ||
			sed 's/^/#   /' "$log"
	else
		barrier "after-$port"
		# shellcheck disable=SC2086
		check "after fuzzing: ${t%% -d*} client" \
			run_client "$log" $t -p $port "$PEER_IP4" ||
			sed 's/^/#   /' "$log"
	fi
	barrier "after-$port-done"
	port=$((port + 1))
done

echo "# rdma statistic:"
rdma statistic show link "$dev/1" | sed 's/^/#   /'
check "rdma link delete $dev" rdma link delete "$dev"
check "rmmod sroce" rmmod sroce
summary
