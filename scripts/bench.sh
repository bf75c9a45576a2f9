#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: sroce against rdma_rxe on the same two QEMU guests and the
# same link, with iperf3 TCP on that link as the ceiling. Prints a table of
# sroce/rxe and sroce/TCP ratios and guest CPU seconds per GB moved, and
# writes it as out/bench/bench.csv and out/bench/bench.png (with Debian's
# python3 and python3-matplotlib).
#
#   scripts/bench.sh [quick] [ROUNDS] [duration=S] [trains] [window] [rto] [loss=P]
#                    [base=KO] [cpus=N] [mtu=N]
# quick: 64 KiB only, else 1 KiB to 4 MiB; ROUNDS (1-9, default 1): sroce
# and rxe alternate that many times and the table shows the median and
# range; each bandwidth point runs S seconds (default 20: the steady
# state); trains: sroce with send trains off too (sroce-notrain); window:
# sroce with a fixed send window too (sroce-fixedwin); rto: sroce without
# its early retransmit too (sroce-nortt); loss=P: netem drops P percent of
# each guest's packets (TCP's too); base=KO: another build of sroce.ko
# (the one before a change) runs too, as sroce-base, to measure a change;
# cpus=N: N vCPUs per guest (1 or 2, default 1; with 2 the softirq and
# the application can run apart, where per-CPU state pays, but two guests
# of two vCPUs share the host's two cores); mtu=N: the link's MTU (1280 to
# 9000, default 1500; RoCE's path MTU is then the largest IB MTU that fits,
# 4096 from an MTU of 4200 up).
# Figures are TCG-emulated guests on a shared host: compare the columns of
# one run, not absolute values, and look at the ranges.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_host_pkgs
out=$SROCE_TOP/out/bench
rm -rf "$out"
mkdir -p "$out"
make -C "$SROCE_TOP" >&2 || die "build failed"
# base=KO: another build of the module, run as sroce-base beside this one.
files=(-f "$SROCE_TOP/sroce.ko") args=() vcpus=1 mtu=1500
for arg in "$@"; do
	case $arg in
	cpus=*) vcpus=${arg#cpus=} ;;
	mtu=*) mtu=${arg#mtu=} ;;
	base=*)
		[ -f "${arg#base=}" ] || die "no module ${arg#base=}"
		cp "${arg#base=}" "$out/sroce-base.ko"
		files+=(-f "$out/sroce-base.ko")
		args+=(base)
		;;
	*) args+=("$arg") ;;
	esac
done
"$SROCE_TOP/scripts/vm-run.sh" -n 2 -c "$vcpus" -m "$mtu" -t 10800 -o "$out/run" "${files[@]}" \
	"$SROCE_TOP/scripts/tests/bench.sh" "${args[@]}"
rc=$?
/usr/bin/python3 "$SROCE_TOP/scripts/bench-report.py" "$out/run/guest0/bench.csv" \
	"$out/run/guest1/bench.csv" "$out" "$mtu" || rc=1
echo "link MTU $mtu, $vcpus vCPU(s) per guest, arguments: ${args[*]}"
exit $rc
