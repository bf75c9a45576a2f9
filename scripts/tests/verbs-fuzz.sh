#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Random verbs sequences against sroce while traffic flows, run by
# scripts/vm-run.sh on two guests with sroce on both:
#
#   verbs-fuzz.sh SECONDS [SEED]      (with -f .../sroce.ko -f .../verbs-fuzz)
#
# Both guests run verbs-fuzz (scripts/tests/verbs-fuzz.c: several
# processes issuing random verbs, dying now and then) for SECONDS while
# ib_write_bw runs between them. Then the device must still carry an
# ibv_rc_pingpong, and link deletion and rmmod must succeed; vm-run.sh
# fails the run on any kernel report. The seed is printed (random unless
# given; guest 1 uses SEED + 1000).

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

dev=sroce0
secs=${1:-60}
if [ -n "${2:-}" ]; then
	seed=$2
elif [ "$GUEST_ID" = 0 ]; then
	seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
	echo "$seed" >/shared/verbs-fuzz-seed
fi
barrier seed
seed=${seed:-$(cat /shared/verbs-fuzz-seed)}
echo "# verbs fuzz seed $seed (rerun: verbs-fuzz.sh $secs $seed, or make fuzz-verbs SEED=$seed)"

link_up sroce "$dev"
gid=$(roce_gid_index "$dev" "$GUEST_IP4") || bail "no RoCE v2 GID"
addrs_ready peer

bw=/job/write_bw.log
barrier up
if [ "$GUEST_ID" = 0 ]; then
	timeout $((secs + 60)) ib_write_bw -d "$dev" -x "$gid" -D "$secs" -q 4 \
		>"$bw" 2>&1 &
else
	sleep 2
	run_client "$bw" ib_write_bw -d "$dev" -x "$gid" -D "$secs" -q 4 \
		"$PEER_IP4" &
fi
bwpid=$!
log=/job/verbs-fuzz.log
timeout $((secs + 60)) /job/verbs-fuzz "$dev" "$gid" "$PEER_IP4" \
	$((seed + 1000 * GUEST_ID)) "$secs" 4 >"$log" 2>&1
rc=$?
grep -v '^# seed' "$log"
echo "# $(grep -c '^# seed' "$log") fuzzing processes ran to the end"
check "verbs-fuzz: no process killed by a signal, exit 0" test "$rc" -eq 0
wait $bwpid
echo "# ib_write_bw under fuzzing exited $? (not judged: the fuzzer may break its QPs' peers)"
barrier fuzzed

# The device still works.
if [ "$GUEST_ID" = 0 ]; then
	timeout 60 ibv_rc_pingpong -d "$dev" -g "$gid" -n 50 >/job/pingpong.log 2>&1 &
	pid=$!
	barrier pp
	check_server "ibv_rc_pingpong after the fuzzing" $pid /job/pingpong.log
else
	barrier pp
	sleep 1
	check "ibv_rc_pingpong after the fuzzing" \
		run_client /job/pingpong.log ibv_rc_pingpong -d "$dev" -g "$gid" \
		-n 50 "$PEER_IP4"
fi
barrier done
check "rdma link delete" rdma link delete "$dev"
check "rmmod sroce" rmmod sroce
summary
