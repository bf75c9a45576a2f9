#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: sroce against rdma_rxe on the same two QEMU guests and the
# same link, with iperf3 TCP on that link as the ceiling. Prints a table of
# sroce/rxe and sroce/TCP ratios and guest CPU seconds per GB moved, and
# writes it as out/bench/bench.csv and out/bench/bench.png (with Debian's
# python3 and python3-matplotlib).
#
#   scripts/bench.sh [quick] [ROUNDS] [duration=S] [trains] [window] [rto]
#                    [loopback] [loss=P[,P...]] [base=KO] [cpus=N] [mtu=N[,N...]]
#                    [release=trixie] [qemu=backports]
# quick: 64 KiB only, else 1 KiB to 4 MiB; ROUNDS (1-9, default 1): sroce
# and rxe alternate that many times and the table shows the median and
# range; each bandwidth point runs S seconds (default 20: the steady
# state); trains: sroce with send trains off too (sroce-notrain); window:
# sroce with a fixed send window too (sroce-fixedwin); uso: sroce with
# the NIC's UDP segmentation on too (sroce-uso); rto: sroce without
# its early retransmit too (sroce-nortt); loopback: 64 KiB WRITE and
# READ bandwidth (with cpus=2 also SEND and its latency) also with both
# ends in one guest, to its own address (lo_*); loss=P: netem drops P
# percent of each guest's packets (TCP's too); base=KO: another build of
# sroce.ko (the one before a change) runs too, as sroce-base, to measure
# a change;
# cpus=N: N vCPUs per guest (1 or 2, default 1; with 2 the softirq and
# the application can run apart, where per-CPU state pays, but two guests
# of two vCPUs share the host's two cores); mtu=N: the link's MTU (1280 to
# 9000, default 1500; RoCE's path MTU is then the largest IB MTU that fits,
# 4096 from an MTU of 4200 up). Lists of MTUs and losses (mtu=1500,9000
# loss=0,1,5) make a sweep: one pair of guests per combination, each with
# its own table in out/bench/mtuM-lossP, then one table and plot over all
# of them (scripts/bench-sweep.py: out/bench/sweep.*). release=trixie:
# the guests boot Debian 13's 6.12 (sroce built for it by module-for.sh);
# qemu=backports: with bookworm-backports' QEMU 10 (qemu-backports.sh),
# whose virtio-net offers UDP segmentation offload to a 6.12 guest:
# with uso, sroce-uso turns it on and sends trains through it whole.
# Figures are TCG-emulated guests on a shared host: compare the columns of
# one run, not absolute values, and look at the ranges.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_host_pkgs
out=$SROCE_TOP/out/bench
rm -rf "$out"
mkdir -p "$out"
# base=KO: another build of the module, run as sroce-base beside this one.
files=() args=() vcpus=1 mtus=1500 losses=0 release=bookworm vm_opts=()
qemu="qemu-system-x86_64"
for arg in "$@"; do
	case $arg in
	cpus=*) vcpus=${arg#cpus=} ;;
	release=bookworm | release=trixie) release=${arg#release=} ;;
	qemu=backports)
		qroot=$("$SROCE_TOP/scripts/qemu-backports.sh") || die "no QEMU from backports"
		vm_opts+=(-q "$qroot")
		qemu=$qroot/usr/bin/qemu-system-x86_64
		;;
	mtu=*) mtus=${arg#mtu=} ;;
	loss=*) losses=${arg#loss=} ;;
	base=*)
		[ -f "${arg#base=}" ] || die "no module ${arg#base=}"
		cp "${arg#base=}" "$out/sroce-base.ko"
		files+=(-f "$out/sroce-base.ko")
		args+=(base)
		;;
	*) args+=("$arg") ;;
	esac
done
if [ "$release" = trixie ]; then
	ko=$("$SROCE_TOP/scripts/module-for.sh" trixie "$out/module-trixie") ||
		die "build for trixie failed"
else
	make -C "$SROCE_TOP" >&2 || die "build failed"
	ko=$SROCE_TOP/sroce.ko
fi
files+=(-f "$ko")
vm_opts+=(-d "$release")
IFS=, read -ra mtu_list <<<"$mtus"
IFS=, read -ra loss_list <<<"$losses"
for m in "${mtu_list[@]}"; do
	[[ $m =~ ^[0-9]+$ ]] || die "mtu=$mtus: want numbers"
done
for l in "${loss_list[@]}"; do
	[[ $l =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "loss=$losses: want percentages"
done

# bench_one MTU LOSS DIR: one pair of guests, its table into DIR.
bench_one() {
	local mtu=$1 loss=$2 dir=$3 rc extra=()
	[ "$loss" = 0 ] || extra=("loss=$loss")
	mkdir -p "$dir"
	"$SROCE_TOP/scripts/vm-run.sh" -n 2 -c "$vcpus" -m "$mtu" -t 10800 -o "$dir/run" \
		"${vm_opts[@]}" "${files[@]}" "$SROCE_TOP/scripts/tests/bench.sh" "${args[@]}" "${extra[@]}"
	rc=$?
	/usr/bin/python3 "$SROCE_TOP/scripts/bench-report.py" "$dir/run/guest0/bench.csv" \
		"$dir/run/guest1/bench.csv" "$dir" "$mtu" || rc=1
	echo "link MTU $mtu, $vcpus vCPU(s) per guest, $release guests," \
		"$("$qemu" --version | head -n 1 | sed 's/ (.*//')," \
		"arguments: ${args[*]} ${extra[*]}"
	return $rc
}

if [ ${#mtu_list[@]} -eq 1 ] && [ ${#loss_list[@]} -eq 1 ]; then
	bench_one "${mtu_list[0]}" "${loss_list[0]}" "$out"
	exit
fi
rc=0 sweep=()
for m in "${mtu_list[@]}"; do
	for l in "${loss_list[@]}"; do
		bench_one "$m" "$l" "$out/mtu$m-loss$l" || rc=1
		sweep+=("$m:$l:$out/mtu$m-loss$l")
	done
done
/usr/bin/python3 "$SROCE_TOP/scripts/bench-sweep.py" "$out" "${sweep[@]}" || rc=1
exit $rc
