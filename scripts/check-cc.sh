#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-cc`: the long ECN/DCQCN experiments in QEMU guests (make check
# runs short forms of them), with plots:
#
#   incast   2:1 through a 16 Mb/s bottleneck (tbf + RED ecn), 40 s, DCQCN
#            on and off (scripts/tests/cc.sh incast)
#   mark     random CE marking at 1, 5 and 20 %, 10 s each, throughput
#            against the reference model (scripts/cc-model.py mark)
#   netns-K  K:1 (K = 2, 4, 8, 16) through 64 Mb/s in one guest, K sender
#            namespaces and a switch namespace: DCQCN on and off through
#            RED/ECN, TIMELY and no CC through a tail-drop FIFO
#            (scripts/tests/cc-netns.sh all)
#
# Output in out/check-cc: the guests' logs and results, incast.png,
# rates-on.png and rates-on-zoom.png (per-QP Rc from the sroce_cc_rate
# tracepoint), mark.png, netns-K.png. Ends with "N passed, N failed".
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

need_host_pkgs
out=$SROCE_TOP/out/check-cc
tests=$SROCE_TOP/scripts/tests
rm -rf "$out"
mkdir -p "$out"
make -C "$SROCE_TOP" >"$out/build.log" 2>&1 || die "build failed, see $out/build.log"
"$SROCE_TOP/scripts/test-prog-build.sh" cc-flow "$out/cc-flow" || die "cc-flow does not build"
passed=0
failed=0

# job NAME VM-RUN-ARGS...: one guest run; counts its checks.
job() {
	local name=$1 ok nok
	shift
	log "== $name"
	"$SROCE_TOP/scripts/vm-run.sh" -o "$out/$name" -f "$SROCE_TOP/sroce.ko" "$@" \
		>"$out/$name.log" 2>&1 || failed=$((failed + 1))
	ok=$(cat "$out/$name"/guest*/job.log 2>/dev/null | grep -c '^ok - ')
	nok=$(cat "$out/$name"/guest*/job.log 2>/dev/null | grep -c '^not ok - ')
	passed=$((passed + ok))
	failed=$((failed + nok))
	log "   $ok passed, $nok failed"
	grep -h '^# result:' "$out/$name"/guest0/job.log 2>/dev/null | sed 's/^/   /' >&2
}

# The parameters and model figures of the marking runs: cc-model.py mark
# (line 40 Mb/s, one-way delay 0.3 and 1 ms agree to 0.001).
MARK_CC=(rp_max_rate=40 rp_ai_rate=1 rp_hai_rate=1 rp_time_reset=10000 rp_byte_reset=0
	rp_dce_tcp_rtt=1000 rp_rate_reduce_monitor_period=1000 np_min_time_between_cnps=500
	rp_min_rate=1)
MARK_MODEL=model=1:0.958,5:0.346,20:0.100

job incast -n 3 -t 900 "$tests/cc.sh" incast sroce both dur=40 join=5
job mark -n 2 -t 600 "$tests/cc.sh" mark sroce 0 1 5 20 dur=10 "$MARK_MODEL" "${MARK_CC[@]}"
for k in 2 4 8 16; do
	job "netns-$k" -n 1 -c 2 -t 900 -f "$tests/netns-lib.sh" -f "$tests/cc-testbed.py" -f "$out/cc-flow" \
		"$tests/cc-netns.sh" "$k" all
done

plot() {
	/usr/bin/python3 "$@" || { log "plot failed: $*"; failed=$((failed + 1)); }
}
g=$out/incast
if [ -f "$g/guest0/incast-on-rates.csv" ]; then
	plot "$SROCE_TOP/scripts/cc-plots.py" incast "$out/incast.png" \
		"$g/guest0/incast-on-rates.csv" "$g/guest0/incast-off-rates.csv"
	plot "$SROCE_TOP/tools/sroce-rate-plot" -o "$out/rates-on" --align sroce-sync-on \
		--title "sroce Rc per QP, 2:1 incast, DCQCN on" \
		s1="$g/guest1/trace-on.txt" s2="$g/guest2/trace-on.txt"
	plot "$SROCE_TOP/scripts/cc-plots.py" rates "$out/rates-on-zoom.png" "$out/rates-on.csv"
fi
for k in 2 4 8 16; do
	csvs=()
	for m in on off timely drop; do
		[ -f "$out/netns-$k/guest0/netns-$m.csv" ] &&
			csvs+=("$out/netns-$k/guest0/netns-$m.csv")
	done
	[ ${#csvs[@]} -gt 0 ] &&
		plot "$SROCE_TOP/scripts/cc-plots.py" netns "$out/netns-$k.png" "${csvs[@]}"
done
[ -f "$out/mark/guest0/results.txt" ] &&
	plot "$SROCE_TOP/scripts/cc-plots.py" mark "$out/mark.png" "$out/mark/guest0/results.txt"

log "results and plots in $out"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
