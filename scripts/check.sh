#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: everything CI runs, from a fresh machine.
#
#   module   sroce.ko builds with W=1 and no warning
#   sparse   make C=2, no sparse report
#   module-6.12  the same, W=1 and sparse, against Debian 13's 6.12
#   deb      the sroce-dkms package builds and is lintian clean
#   style    checkpatch --strict clean
#   kunit    KUnit suites in QEMU (every case counts)
#   tools    the userspace helpers in tools/ (unit tests)
#   guests   system tests in QEMU guests (every check counts): the device
#            smoke test; the RC tool matrix sroce<->sroce, sroce<->rdma_rxe
#            (each side as server; sroce<->sroce with guest 0 as server
#            only, as every pair of identical guests here) and loopback,
#            every tool from its smallest size to 1 MiB; the same tools at
#            one or two sizes over IPv6 and an MTU 9000 link;
#            captures checked by tshark and the ICRC checker; ECN/DCQCN
#            with no marking, with 5% random CE marking, and a 4:1 incast
#            through a bottleneck in namespaces of one guest with DCQCN on
#            and off (30 s each; the long forms, and the 2:1 incast across
#            three guests, are `make check-cc`); SRQs and UC
#            QPs (srq/uc pingpong, perftest on UC, XRC refused, the
#            SRQ/UC API test, the SQE/SQD test) sroce<->sroce and
#            sroce<->rdma_rxe; memory
#            windows and memory operations from userspace; NVMe over
#            Fabrics (nvmet-rdma, nvme-rdma) with fio verification;
#            network namespaces (devices inside them, moved with their
#            netdevs and in exclusive mode, deleted under load); a
#            hostile hand-made peer (silent mid-message, keys revoked
#            mid-message, duplicates after a READ, READs resumed,
#            endless NAKs, a stack that drops everything); random verbs
#            sequences (verbs-fuzz); RC traffic verified byte by byte
#            (rc-verify) under netem loss, reordering, duplication,
#            corruption and a link flap, sroce<->sroce and
#            sroce<->rdma_rxe (the long form is `make faults`); ib_write_lat
#            and ib_send_lat under 1% loss between two-vCPU guests; teardown
#            under load, one round (`make stress`: 50)
#   debug    the debug kernel (scripts/debug-kernel.sh: KASAN, lockdep,
#            kmemleak, ...) and sroce.ko built against it, then a subset
#            of the guest tests on it (DEBUG_SUBSET, steps debug-NAME):
#            smoke, RC sroce<->sroce, rdma_cm, fuzz quick, the hostile
#            peer and teardown
#   trixie   Debian 13's side (below) but its KUnit, the package test and
#            cm-sroce-6.12, the RC steps without their sweep sizes
#            (TRIXIE_SUBSET)
#
# scripts/check.sh --debug [NAME...] (make check-debug) runs every guest
# test, or the NAMEd ones (smoke, rc-sroce, ...), on the debug kernel
# instead, and nothing else. scripts/check.sh --guests [NAME...] builds
# the module and the test programs and runs the guest tests, or the NAMEd
# ones, on Debian's kernel, and nothing else.
#
# scripts/check.sh --trixie [NAME...] (make check-trixie) runs Debian 13's
# side, or the NAMEd steps of it: sroce.ko for trixie's 6.12 kernel
# (module-trixie, scripts/module-for.sh), KUnit on 6.12's source
# (kunit-6.12), the smoke test, the RC pair and rdma_cm against sroce and
# against 6.12's rdma_rxe in trixie guests (smoke-6.12, rc-sroce-6.12,
# rc-rxe-6.12, cm-sroce-6.12, cm-rxe-6.12), on-demand paging between sroce
# guests (odp-6.12), rdma-core 56's own pyverbs test suite on sroce
# (rdma-core-6.12, scripts/rdma-core-tests.sh fetches it), RDMA FLUSH
# through rdma-core 56 between sroce and 6.12's rdma_rxe (flush-6.12),
# 6.1's sroce against 6.12's, a bookworm guest facing a trixie one
# (interop-6.1-6.12), and the sroce-dkms
# package installed with apt on a fresh guest of each release, the smoke
# test then running between the two DKMS-built modules (dkms).
# scripts/check.sh --all (make check-all) runs make check and all of these
# in one go.
#
# Ends with "N passed, N failed" and exits non-zero on any failure.
set -u
. "$(dirname "$0")/lib.sh"

# The guest steps make check also runs on the debug kernel; about 17
# minutes (Documentation/testing.rst). rc-rxe, whose sroce side rc-sroce
# runs in both roles, is left to make check-debug for the cold time.
DEBUG_SUBSET=(smoke rc-sroce cm-sroce fuzz peer teardown)
# Debian 13's steps make check runs: all but KUnit on 6.12's source (its
# kernel build is 16 minutes cold), the package test (7 minutes) and
# cm-sroce-6.12 (cm-rxe-6.12 runs sroce's rdma_cm on 6.12 too), which
# would take a cold make check past 75 minutes (Documentation/testing.rst).
TRIXIE_SUBSET=(smoke-6.12 rc-sroce-6.12 rc-rxe-6.12 cm-rxe-6.12 odp-6.12 rdma-core-6.12 flush-6.12
	interop-6.1-6.12)

mode=check
case ${1:-} in
--debug | --trixie | --guests) mode=${1#--} && shift ;;
--all)
	[ $# -eq 1 ] || die "usage: $0 --all"
	mode=all && shift
	;;
"") ;;
*) die "usage: $0 [--debug [NAME...] | --trixie [NAME...] | --guests [NAME...] | --all]" ;;
esac
out=$SROCE_TOP/out/check
case $mode in
debug | trixie | guests) out=$SROCE_TOP/out/check-$mode ;;
*)
	# A clean tree, so that the build step sees every warning.
	make -C "$SROCE_TOP" clean >/dev/null 2>&1
	;;
esac
rm -rf "$out"
mkdir -p "$out"
passed=0
failed=0
summary=$out/summary.txt
: >"$summary"
# Second runs of failed guest steps so far; at most three, for CI's time.
reruns=0
# CI's budget (.ci/run sets CHECK_BUDGET, in seconds): once that much of
# the run has gone, no further step starts, so that a slow machine ends
# with a result inside CI's limit instead of being killed without one.
# The steps left out are named in the last lines and counted neither as
# passed nor as failed; the order of the steps puts the ones that matter
# most first. Unset, every step runs.
not_run=()
out_of_time() {
	[ -n "${CHECK_BUDGET:-}" ] && [ $((SECONDS - check_t0)) -ge "$CHECK_BUDGET" ]
}

# step NAME CMD...: run one step, log to out/check/NAME.log. A step whose
# output ends with its own "N passed, N failed" line adds those counts;
# otherwise it counts as one check. A non-zero exit is always a failure.
# Each step's time is logged, for the budget in Documentation/testing.rst.
# What failed is also kept in $summary, printed before the closing line
# (CI shows only the tail of the output).
step() {
	local name=$1 t0=$SECONDS
	shift
	if out_of_time; then
		log "== $name: not run, $CHECK_BUDGET s of CI's time are spent"
		not_run+=("$name")
		return 0
	fi
	log "== $name"
	step_run "$name" "$@"
	if [ "$step_f" -ne 0 ] && [ "${rerun_ok:-0}" = 1 ] && [ "$reruns" -lt 3 ] &&
		! out_of_time && rerunnable "$out/$name.log"; then
		reruns=$((reruns + 1))
		log "   $step_f failed; run again once (guest checks only, no kernel report)"
		step_failures "$name" | sed 's/^/   | /' >&2
		{
			echo "rerun: $name failed $step_f check(s) on its first run:"
			step_failures "$name" | sed 's/^/  /'
		} >>"$summary"
		mv "$out/$name.log" "$out/$name.first.log"
		rm -rf "$out/$name.first"
		[ ! -d "$out/$name" ] || mv "$out/$name" "$out/$name.first"
		step_run "$name" "$@"
	fi
	passed=$((passed + step_p))
	failed=$((failed + step_f))
	if [ "$step_f" -eq 0 ]; then
		log "   ok ($step_p passed, $((SECONDS - t0)) s)"
	else
		log "   FAILED ($step_p passed, $step_f failed, $((SECONDS - t0)) s); last lines of $out/$name.log:"
		tail -n 40 "$out/$name.log" | sed 's/^/   | /' >&2
		{
			echo "failed: $name ($step_f):"
			step_failures "$name" | sed 's/^/  /'
		} >>"$summary"
	fi
}

# step_run NAME CMD...: run it once; its counts in step_p and step_f.
step_run() {
	local name=$1 rc line
	shift
	"$@" >"$out/$name.log" 2>&1
	rc=$?
	line=$(grep -E '(^|: )[0-9]+ passed, [0-9]+ failed' "$out/$name.log" | tail -n 1)
	if [ -n "$line" ]; then
		step_p=$(sed -E 's/.*(^|: )([0-9]+) passed.*/\2/' <<<"$line")
		step_f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
		[ "$rc" -ne 0 ] && [ "$step_f" -eq 0 ] && step_f=1
	elif [ "$rc" -eq 0 ]; then
		step_p=1 step_f=0
	else
		step_p=0 step_f=1
	fi
}

# step_failures NAME: the first few failed checks or reasons in its log.
step_failures() {
	local l
	l=$(grep -E 'not ok - |\[sroce\]   [a-z]' "$out/$1.log" | grep -v ' known, not judged' |
		head -n 6)
	[ -n "$l" ] || l=$(tail -n 3 "$out/$1.log")
	cut -c1-200 <<<"$l"
}

# rerunnable LOG: the guest step logged in LOG failed only checks of its
# own: every guest wrote its exit status, none was killed at its timeout
# and no guest kernel reported anything (a report, a hang or a leak is a
# failure however often a second run passes). TCG guests on two shared
# cores are descheduled for seconds; the tests that race the clock
# (retry timers against rdma_rxe, RED's queue under incast) are given
# one more run, and the first run's failures stay in the summary. Three
# such second runs at most (each is minutes), for CI's 90 minutes.
rerunnable() {
	grep -q '^\[guest[0-9]*\] not ok - ' "$1" &&
		! grep -qE 'never reached its job|killed after the host timeout|no exit status written|kernel trouble|kmemleak:|after the job:' "$1"
}

build_module() {
	make -C "$SROCE_TOP" W=1 2>&1 | tee "$out/build-output.txt"
	[ "${PIPESTATUS[0]}" -eq 0 ] || return 1
	! grep -E 'warning:|error:' "$out/build-output.txt"
}

sparse_module() {
	make -C "$SROCE_TOP" C=2 2>&1 | tee "$out/sparse-output.txt"
	[ "${PIPESTATUS[0]}" -eq 0 ] || return 1
	! grep -E '\.[ch]:[0-9]+:[0-9]+: (warning|error)' "$out/sparse-output.txt"
}

# The same sources against Debian 13's kernel (6.12 headers, from the
# mirror's bookworm updates), built in a copy of the tree so that the 6.1
# objects stay: W=1 and sparse, no warning.
build_module_612() {
	local kdir dir=$out/build-6.12
	need_pkgs linux-headers-6.12-amd64
	kdir=$(ls -d /usr/src/linux-headers-6.12.*-amd64 | sort -V | tail -n 1)
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$SROCE_TOP" && git ls-files -co --exclude-standard -z |
		xargs -0 cp --parents -t "$dir") || return 1
	make -C "$dir" KDIR="$kdir" W=1 2>&1 | tee "$out/build-6.12-output.txt"
	[ "${PIPESTATUS[0]}" -eq 0 ] || return 1
	make -C "$dir" KDIR="$kdir" clean >/dev/null
	make -C "$dir" KDIR="$kdir" C=2 2>&1 | tee -a "$out/build-6.12-output.txt"
	[ "${PIPESTATUS[0]}" -eq 0 ] || return 1
	! grep -E 'warning:|error:' "$out/build-6.12-output.txt"
}

# The userspace test programs the guest jobs run (scripts/tests/NAME.c).
build_test_progs() {
	local p
	for p in sroce_mw_test sroce_fuzz_test srq-test qpstate-test \
		av-race-test mcast-ud verbs-fuzz rc-verify atomic-write-test \
		cc-flow mr-edge-test ring-charge; do
		"$SROCE_TOP/scripts/test-prog-build.sh" "$p" "$out/$p" || return 1
	done
}

# guest_job NAME VM-RUN-ARGS... JOB ARGS...: run a job in guests booting
# $release (vm-run.sh -d) and $kernel with the modules in $ko (one per
# kernel) and count its checks; a capture left by guest 0 is checked on
# the host.
guest_job() {
	local name=$1 rc ok nok k kos=()
	shift
	for k in "${ko[@]}"; do
		kos+=(-f "$k")
	done
	"$SROCE_TOP/scripts/vm-run.sh" -d "$release" -k "$kernel" -o "$out/$name" "${kos[@]}" "$@"
	rc=$?
	ok=$(cat "$out/$name"/guest*/job.log 2>/dev/null | grep -c '^ok - ')
	nok=$(cat "$out/$name"/guest*/job.log 2>/dev/null | grep -c '^not ok - ')
	if [ -f "$out/$name/guest0/wire.pcap" ]; then
		if "$SROCE_TOP/scripts/wire-check.sh" "$out/$name/guest0/wire.pcap"; then
			ok=$((ok + 1))
		else
			nok=$((nok + 1))
		fi
	fi
	echo "$name: $ok passed, $nok failed"
	return $rc
}

# wanted NAME: NAME is among the steps asked for (all, when none were).
wanted() {
	[ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $1 "* ]]
}

# gstep NAME VM-RUN-ARGS... JOB ARGS...: one step of guest_steps, unless
# it is not among the ones asked for.
gstep() {
	local name=$1
	shift
	wanted "$name" || return 0
	rerun_ok=1 step "$prefix$name" guest_job "$prefix$name" "$@"
}

# one_server: the option that makes a pair of identical guests (the same
# module, kernel and rdma-core on both) run each test with guest 0 as the
# server only: under make check, for CI's time. With each guest as server
# in turn the second round runs the same code in the same roles again;
# make check-debug, check-trixie and check-all keep both rounds.
one_server() {
	[ "$mode" != check ] || echo servers=0
}

# guest_steps stock|debug [NAME...]: the guest tests, all or the NAMEs, on
# Debian's kernel or on the debug kernel (steps named debug-NAME; vm-run.sh
# stretches their timeouts).
guest_steps() {
	local tests=$SROCE_TOP/scripts/tests prefix="" only kernel=$1 release=bookworm
	local ko=("$SROCE_TOP/sroce.ko")
	shift
	only=("$@")
	local sweep=sweep one incast_cc="" nvmeof_size=""
	one=$(one_server)
	if [ "$kernel" = debug ]; then
		prefix=debug- ko=("$out/debug-module/sroce.ko")
		# make check's debug subset: the RC tools at their usual
		# sizes, not the smallest and 1 MiB ones of the sweep (most
		# of the step's time there; make check-debug keeps them).
		[ "$mode" = debug ] || sweep=
		# Three debug guests on two cores: the switch guest cannot
		# drain its 16 Mb/s tbf (measured 2026-12-04: 4 Mb/s offered
		# in all, a 126 KB mean queue with DCQCN and without), so the
		# contrast the stock step asserts is only recorded here; the
		# kernel log and the flows' own checks still judge the step.
		incast_cc=nocc
		# The debug kernel moves 0.7-1.5 MB/s through nvme-rdma
		# (2026-12-04: 64 MiB of 4 KiB random reads still running
		# when the target's 360 s wait for the host ran out; no
		# error, no resend); 16 MiB keeps the four fio passes in it.
		nvmeof_size=size=16M
	fi
	gstep smoke -n 2 -t 400 "$tests/smoke.sh" sroce
	gstep rc-sroce -n 2 -t 900 "$tests/rc.sh" pair sroce sroce $sweep capture $one
	gstep rc-rxe -n 2 -t 900 "$tests/rc.sh" pair sroce rxe $sweep capture
	gstep rc-loopback -n 1 -t 900 "$tests/rc.sh" loopback sroce sweep
	gstep rc-ipv6 -n 2 -t 900 "$tests/rc.sh" pair sroce sroce ipv6 swcsum decoy=1 policy=0 $one
	gstep rc-mtu9000 -n 2 -m 9000 -t 900 "$tests/rc.sh" pair sroce sroce swcsum \
		$one
	gstep cm-sroce -n 2 -t 900 -f "$tests/roce-inject.py" \
		"$tests/cm.sh" pair sroce sroce ipv6 hostile vlan $one
	gstep cm-rxe -n 2 -t 900 "$tests/cm.sh" pair sroce rxe interop ipv6 vlan
	gstep cm-loopback -n 1 -t 900 "$tests/cm.sh" loopback sroce ipv6 vlan
	gstep cm-mcast -n 2 -t 400 -f "$out/mcast-ud" \
		"$tests/cm.sh" mcast sroce sroce ipv6
	gstep cc-nomark -n 2 -t 400 -f "$SROCE_TOP/tools/sroce-cc" \
		"$tests/cc.sh" nomark sroce
	gstep cc-mark -n 2 -t 400 "$tests/cc.sh" mark sroce 5
	gstep cc-transports -n 2 -t 400 "$tests/cc.sh" transports sroce
	# 20 s per mode. Fairness within 25 % here, not the issue's 10 %
	# (make check-cc keeps 10 % over 40 s): the switch guest's 0.5 s
	# samples stretch to 1-2 s under TCG, so the short window holds 5-8
	# samples; measured 3.4, 4.1 and 19 % at 20 s, 0.7 % at 40 s. A starved
	# flow (100 %) still fails. Overflow drops with DCQCN on: none in
	# most runs, 63 in one CI run (against 11066 with DCQCN off)
	# when the switch guest was descheduled and a burst piled up behind
	# it; the short form wants at most 5 % of the DCQCN-off drops.
	# Not in make check: on 2026-12-07's hosts the switch guest could
	# not drain its port (DCQCN on: 9.4 of 16 Mb/s offered, mean queue
	# 41 KB, 251 and 330 overflow drops against 1393 and 4946 without
	# DCQCN, failing the 5 % twice in a row); there cc-netns's DCQCN on
	# and off in one guest stands in for it.
	[ "$mode" = check ] || gstep cc-incast -n 3 -t 500 "$tests/cc.sh" incast sroce both \
		fair_tol=0.25 drop_tol=0.05 $incast_cc
	# The namespace testbed's short form: 4:1 through 32 Mb/s in one
	# guest, DCQCN on against the model, off for the contrast, and on
	# with READ flows, whose responders pace their responses (make
	# check-cc runs K 2-16 at 64 Mb/s and the other modes). A light
	# load, so that a slow host's stalls stay small: 8:1 at 64 Mb/s
	# failed every run on 2026-12-07's hosts (utilisation 0.70-0.74,
	# mean queue 18-30 KB), 8:1 at 32 in one of three (12.5 KB), 4:1 at
	# 32 in none of five (sroce-cc.rst).
	# Not on the debug kernel: its senders cannot fill the port.
	[ "$kernel" = debug ] || gstep cc-netns -n 1 -c 2 -t 500 -f "$tests/netns-lib.sh" \
		-f "$tests/cc-testbed.py" -f "$out/cc-flow" "$tests/cc-netns.sh" 4 on off read dur=30 rate=32
	gstep qptypes-sroce -n 2 -t 900 -f "$out/srq-test" -f "$out/qpstate-test" \
		-f "$out/av-race-test" -f "$out/atomic-write-test" \
		-f "$tests/uc-inject.py" -f "$out/ring-charge" "$tests/qptypes.sh" pair sroce sroce $one
	gstep qptypes-rxe -n 2 -t 900 -f "$out/srq-test" -f "$out/qpstate-test" \
		-f "$out/av-race-test" -f "$out/atomic-write-test" \
		-f "$tests/uc-inject.py" -f "$out/ring-charge" "$tests/qptypes.sh" pair sroce rxe
	gstep mw -n 2 -t 400 -f "$out/sroce_mw_test" "$tests/mw.sh"
	gstep fuzz -n 2 -t 500 -f "$out/sroce_fuzz_test" -f "$tests/roce-fuzz.py" \
		"$tests/fuzz.sh" quick
	# (named apart from the verbs-fuzz program built into the same directory)
	gstep fuzz-verbs -n 2 -t 300 -f "$out/verbs-fuzz" "$tests/verbs-fuzz.sh" 30
	gstep peer -n 2 -t 300 -f "$out/sroce_fuzz_test" -f "$tests/roce-peer.py" \
		-f "$tests/roce-inject.py" "$tests/peer.sh"
	gstep nvmeof -n 2 -t 500 "$tests/nvmeof.sh" quick $nvmeof_size
	[ "$kernel" = debug ] || gstep nfs -n 2 -t 600 "$tests/nfs.sh"
	gstep netns -n 1 -t 300 -f "$tests/netns-lib.sh" "$tests/netns.sh"
	# Verified RC traffic under netem faults and a link flap (the long
	# form is `make faults`), and teardown under load, one round (`make
	# stress`: 50).
	gstep faults-sroce -n 2 -t 600 -f "$out/rc-verify" \
		"$tests/faults.sh" pair sroce sroce quick servers=0
	gstep faults-rxe -n 2 -t 600 -f "$out/rc-verify" \
		"$tests/faults.sh" pair sroce rxe quick
	# Ping-pong latency tests under 1% loss between two-vCPU guests: a
	# post right after the poll must find its SQ slot free.
	gstep latloss -n 2 -c 2 -t 500 "$tests/latloss.sh" sroce 4
	# A QP's packets keep one transmit queue of a multiqueue NIC while
	# it sends from two CPUs: 30 s; 250 s on the debug kernel, left to
	# make check-debug for CI's time.
	[ "$kernel" = debug ] && [ "$mode" = check ] ||
		gstep txq -n 2 -c 2 -Q 2 -t 300 "$tests/txq.sh"
	gstep teardown -n 2 -t 600 -f "$out/rc-verify" "$tests/teardown.sh" 1
	# On-demand paging: verified RC traffic while the buffers keep
	# leaving the page tables, sroce on both sides and against rdma_rxe
	# (which pins its side); and the teardowns that end ODP MRs with
	# faults and invalidations in flight.
	gstep odp -n 2 -t 600 -f "$out/rc-verify" -f "$out/mr-edge-test" \
		"$tests/odp.sh" pair sroce sroce
	gstep odp-rxe -n 2 -t 600 -f "$out/rc-verify" "$tests/odp.sh" pair sroce rxe
	gstep teardown-odp -n 2 -t 600 -f "$out/rc-verify" "$tests/teardown.sh" 1 odp \
		kill-client kill-server link-del rmmod
}

# dkms_job NAME: make deb's package installed with apt on a fresh bookworm
# guest and a fresh trixie one, from local repositories of what each
# lacks (guests have no network: scripts/deb-repo.sh), then the smoke test
# between the modules DKMS built there.
dkms_job() {
	local name=$1 release=bookworm,trixie deb r repo files=() ko=()
	local tests=$SROCE_TOP/scripts/tests
	deb=$("$SROCE_TOP/scripts/deb.sh" | tail -n 1) && [ -f "$deb" ] || return 1
	for r in bookworm trixie; do
		repo=$("$SROCE_TOP/scripts/deb-repo.sh" "$r" "$deb") || return 1
		files+=(-f "$repo/repo-$r.tar")
	done
	guest_job "$name" -n 2 -t 1500 -f "$deb" "${files[@]}" -f "$tests/smoke.sh" \
		"$tests/dkms.sh"
}

# debug_steps [NAME...]: the debug kernel, sroce.ko against it, and the
# guest tests on it.
debug_steps() {
	step debug-kernel "$SROCE_TOP/scripts/debug-kernel.sh" -m "$out/debug-module"
	if [ -f "$out/debug-module/sroce.ko" ]; then
		guest_steps debug "$@"
	elif out_of_time; then
		not_run+=("debug guests")
	else
		log "== debug guests: skipped, no debug kernel or sroce.ko for it"
		failed=$((failed + 1))
	fi
}

# trixie_steps [NAME...]: Debian 13's side, all of it or the NAMEs: the
# steps that tell most about a second kernel and a second rdma-core,
# which are the device itself, the RC data path against sroce and the
# kernel's own rdma_rxe, and 6.1's sroce as the peer.
trixie_steps() {
	local tests=$SROCE_TOP/scripts/tests prefix="" only=("$@") kernel=stock release ko
	local trixie_ko=$out/module-trixie/sroce.ko sweep=sweep one
	one=$(one_server)
	# make check's: the RC tools at their usual sizes only.
	[ "$mode" != check ] || sweep=
	wanted kunit-6.12 && step kunit-6.12 "$SROCE_TOP/scripts/kunit.sh" -s 6.12 -o "$out/kunit-6.12"
	rm -f "$trixie_ko"
	step module-trixie "$SROCE_TOP/scripts/module-for.sh" trixie "$out/module-trixie"
	if [ ! -f "$trixie_ko" ] && out_of_time; then
		not_run+=("trixie guests")
		return
	elif [ ! -f "$trixie_ko" ]; then
		log "== trixie guests: skipped, no sroce.ko for trixie's kernel"
		failed=$((failed + 1))
		return
	fi
	release=trixie ko=("$trixie_ko")
	gstep smoke-6.12 -n 2 -t 400 "$tests/smoke.sh" sroce
	gstep rc-sroce-6.12 -n 2 -t 900 "$tests/rc.sh" pair sroce sroce $sweep capture $one
	gstep rc-rxe-6.12 -n 2 -t 900 "$tests/rc.sh" pair sroce rxe $sweep capture
	gstep cm-sroce-6.12 -n 2 -t 900 "$tests/cm.sh" pair sroce sroce ipv6 $one
	gstep cm-rxe-6.12 -n 2 -t 900 "$tests/cm.sh" pair sroce rxe interop ipv6
	# On-demand paging on 6.12's ib_umem_odp and hmm (6.12's rdma_rxe
	# has none).
	gstep odp-6.12 -n 2 -t 600 -f "$out/rc-verify" -f "$out/mr-edge-test" \
		"$tests/odp.sh" pair sroce sroce
	# rdma-core 56's own test suite (pyverbs) on an sroce device.
	wanted rdma-core-6.12 && step rdma-core-tests \
		"$SROCE_TOP/scripts/rdma-core-tests.sh" "$out/rdma-core-tests"
	gstep rdma-core-6.12 -n 1 -t 600 -f "$out/rdma-core-tests/rdma-core-tests.tar.gz" \
		-f "$out/rdma-core-tests/python3-pyverbs.deb" -f "$tests/rdma-core-run.py" \
		"$tests/rdma-core.sh" sroce
	# RDMA FLUSH, refused by sroce, through rdma-core 56 (the program is
	# built against it) between sroce and 6.12's rdma_rxe, which has it.
	wanted flush-6.12 && step flush-test-6.12 "$SROCE_TOP/scripts/test-prog-build.sh" \
		-d trixie flush-test "$out/flush-test"
	gstep flush-6.12 -n 2 -t 400 -f "$out/flush-test" "$tests/qptypes.sh" pair sroce rxe flush
	# Guest 0 bookworm, guest 1 trixie: each gets the sroce.ko of its
	# kernel (the checkout's, up to date).
	wanted interop-6.1-6.12 && make -C "$SROCE_TOP" >"$out/interop-module.log" 2>&1
	release=bookworm,trixie ko=("$SROCE_TOP/sroce.ko" "$trixie_ko")
	gstep interop-6.1-6.12 -n 2 -t 900 "$tests/rc.sh" pair sroce sroce $sweep capture
	wanted dkms && step dkms dkms_job dkms
}

start=$(date +%s) check_t0=$SECONDS
need_host_pkgs
if [ "$mode" = debug ]; then
	step test-progs build_test_progs
	debug_steps "$@"
elif [ "$mode" = trixie ]; then
	step test-progs build_test_progs
	trixie_steps "$@"
elif [ "$mode" = guests ]; then
	step module build_module
	step test-progs build_test_progs
	guest_steps stock "$@"
else
	step module build_module
	step sparse sparse_module
	step module-6.12 build_module_612
	step deb "$SROCE_TOP/scripts/deb.sh"
	step style "$SROCE_TOP/scripts/checkpatch.sh"
	step kunit "$SROCE_TOP/scripts/kunit.sh" -o "$out/kunit"
	step tools /usr/bin/python3 "$SROCE_TOP/tools/tests/test_tools.py"
	if [ -f "$SROCE_TOP/sroce.ko" ]; then
		step test-progs build_test_progs
		guest_steps stock
		debug_steps "${DEBUG_SUBSET[@]}"
	else
		log "== guests: skipped, sroce.ko was not built"
		failed=$((failed + 1))
	fi
	if [ "$mode" = check ]; then
		trixie_steps "${TRIXIE_SUBSET[@]}"
	else
		trixie_steps
	fi
fi

log "make $([ "$mode" = check ] && echo check || echo "check-$mode") took $(( $(date +%s) - start )) s; logs in $out"
# What failed or needed a second run, last, where CI's excerpt shows it.
[ ${#not_run[@]} -eq 0 ] ||
	echo "not run, CI's budget of $CHECK_BUDGET s spent: ${not_run[*]}" >>"$summary"
[ ! -s "$summary" ] || head -n 40 "$summary" >&2
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
