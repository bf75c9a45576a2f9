#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: what sroce does that rdma_rxe cannot, in one command. Two
# senders write to one receiver through a congested switch port (16 Mb/s,
# tbf + RED with ECN; scripts/tests/cc.sh incast in three QEMU guests),
# first over rdma_rxe, then over sroce with DCQCN. rdma_rxe's packets are
# Not-ECT (it copies the application's traffic class, and perftest sets
# none), so RED drops them where it would mark them and go-back-N resends;
# sroce's are ECT(0), RED marks them, the receiver answers with CNPs and
# each sender slows to its share. Prints a table of both runs and draws
# out/demo/demo.png; the guests' logs are in out/demo/rxe and out/demo/sroce.
#
#   scripts/demo.sh [SECONDS]          traffic per run (10-50, default 20)
#   scripts/demo.sh devices [sroce|rxe]
#                                      two guests: the RDMA devices, IP pings
#                                      and an RC ping-pong (make demo-devices)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

out=$SROCE_TOP/out/demo
need_host_pkgs
make -C "$SROCE_TOP" >&2

if [ "${1:-}" = devices ]; then
	type=${2:-sroce}
	case $type in
	sroce) files=(-f "$SROCE_TOP/sroce.ko") ;;
	rxe) files=() ;;
	*) die "usage: $0 devices [sroce|rxe]" ;;
	esac
	log "demo: booting two guests (the first run also builds the guest image, ~5 min)"
	exec "$SROCE_TOP/scripts/vm-run.sh" -n 2 -t 120 -o "$out/devices" \
		"${files[@]}" "$SROCE_TOP/scripts/tests/demo.sh" "$type"
fi

dur=${1:-20}
# 10 to 50: sender 2 joins after 5 s; cc.sh gives each tool 60 s.
if ! [[ $dur =~ ^[0-9]+$ ]] || [ "$dur" -lt 10 ] || [ "$dur" -gt 50 ]; then
	die "usage: $0 [SECONDS (10 to 50)] | devices [sroce|rxe]"
fi
rm -rf "$out"
mkdir -p "$out"

# run NAME TYPE [FILE]: the incast over TYPE in three guests, DCQCN on for
# sroce; its own checks (cc.sh's) are logged, not judged here: rdma_rxe
# fails the congestion ones by design.
run() {
	local name=$1 type=$2 files=() args=(incast "$2" on "dur=$dur")
	shift 2
	[ $# -eq 0 ] || files=(-f "$1")
	[ "$type" != rxe ] || args+=(tclass=0)
	log "demo: $name: two senders into one 16 Mb/s port for $dur s (out/demo/$name.log)"
	"$SROCE_TOP/scripts/vm-run.sh" -n 3 -t $((dur * 2 + 300)) -o "$out/$name" "${files[@]}" \
		"$SROCE_TOP/scripts/tests/cc.sh" "${args[@]}" >"$out/$name.log" 2>&1 || true
	[ -s "$out/$name/guest0/incast-on-rates.csv" ] ||
		die "the $name run left no results; see $out/$name.log"
}

log "demo: the first run on a fresh machine also builds the guest image (~5 min)"
run rxe rxe
run sroce sroce "$SROCE_TOP/sroce.ko"
echo
echo "Two senders, one receiver, a 16 Mb/s switch port with RED (ECN), $dur s"
echo "(sender 2 joins after 5 s; rates and queue over the second half of"
echo "the time both send):"
echo
/usr/bin/python3 "$SROCE_TOP/scripts/cc-plots.py" demo "$out/demo.png" "$out/rxe" "$out/sroce"
echo
echo "Figure: $out/demo.png. The same experiment with DCQCN off, and for"
echo "longer: make check-cc; what each figure means: Documentation/sroce-cc.rst."
