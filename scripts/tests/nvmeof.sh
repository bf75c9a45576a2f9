#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over Fabrics over sroce, run by scripts/vm-run.sh on two guests:
#
#   nvmeof.sh [quick|long] [size=N]     (with -f .../sroce.ko)
#
# Guest 0 is the Debian kernel's nvmet-rdma target: a memory-backed
# null_blk namespace exported through configfs on a port at sroce's IPv4
# address. Guest 1 connects with `nvme connect -t rdma` (nvme-rdma: fast
# registration, local and remote invalidation) and runs fio with
# verify=crc32c, writing and then reading everything back, sequential
# large blocks and random 4 KiB blocks. Then disconnect, remove the
# target's configuration and unload everything; vm-run.sh fails on any
# kernel warning. quick writes 64 MiB per fio job, long 512 MiB;
# size= sets it (fio's units: 16M).

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

size=64M
for opt in "${@:-quick}"; do
	case $opt in
	quick) ;;
	long) size=512M ;;
	size=[1-9]*) size=${opt#size=} ;;
	*) bail "unknown option '$opt'" ;;
	esac
done

dev=sroce0
nqn=nqn.2026-11.org.sroce:nvmeof-test
cfg=/sys/kernel/config/nvmet
FIO_TIMEOUT=${FIO_TIMEOUT:-600}

link_up sroce "$dev"
ping -c 1 -W 5 "$PEER_IP4" >/dev/null 2>&1

# target_up: null_blk namespace 1 of $nqn on an RDMA port at our address.
target_up() {
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 &&
	modprobe -a nvmet nvmet-rdma || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	mkdir "$cfg/subsystems/$nqn" &&
	echo 1 >"$cfg/subsystems/$nqn/attr_allow_any_host" &&
	mkdir "$cfg/subsystems/$nqn/namespaces/1" &&
	echo -n /dev/nullb0 >"$cfg/subsystems/$nqn/namespaces/1/device_path" &&
	echo 1 >"$cfg/subsystems/$nqn/namespaces/1/enable" &&
	mkdir "$cfg/ports/1" &&
	echo rdma >"$cfg/ports/1/addr_trtype" &&
	echo ipv4 >"$cfg/ports/1/addr_adrfam" &&
	echo "$GUEST_IP4" >"$cfg/ports/1/addr_traddr" &&
	echo 4420 >"$cfg/ports/1/addr_trsvcid" &&
	ln -s "$cfg/subsystems/$nqn" "$cfg/ports/1/subsystems/$nqn"
}

target_down() {
	rm "$cfg/ports/1/subsystems/$nqn" &&
	rmdir "$cfg/ports/1" &&
	echo 0 >"$cfg/subsystems/$nqn/namespaces/1/enable" &&
	rmdir "$cfg/subsystems/$nqn/namespaces/1" &&
	rmdir "$cfg/subsystems/$nqn" &&
	modprobe -r nvmet-rdma nvmet null_blk
}

# ns_dev: the namespace's block device (the guests have no other NVMe);
# not the hidden per-path device nvmeXcYnZ of native multipath.
ns_dev() {
	local b
	for b in /sys/block/nvme*n1; do
		case ${b##*/} in
		nvme*c*n1) continue ;;
		esac
		[ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}

# run_fio NAME ARGS...: one fio job with crc32c verification.
run_fio() {
	local name=$1
	shift
	timeout "$FIO_TIMEOUT" fio --name="$name" --filename="$blk" \
		--ioengine=libaio --direct=1 --size="$size" \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--output=/job/fio-"$name".log "$@" ||
		{ tail -n 30 /job/fio-"$name".log; return 1; }
	grep -q "err= 0" /job/fio-"$name".log
}

if [ "$GUEST_ID" = 0 ]; then
	check "nvmet-rdma target on $GUEST_IP4:4420" target_up
	barrier target-up
	barrier host-done
	check "target configuration removed, nvmet unloaded" target_down
else
	barrier target-up
	modprobe nvme-rdma
	check "nvme connect -t rdma" \
		timeout 60 nvme connect -t rdma -a "$PEER_IP4" -s 4420 -n "$nqn"
	blk=
	for _ in $(seq 100); do
		blk=$(ns_dev) && break
		sleep 0.1
	done
	if check "namespace appears ($blk)" test -b "$blk"; then
		check "fio sequential write, read and crc32c verify ($size, 128k, qd 16)" \
			run_fio seq --rw=write --bs=128k --iodepth=16
		check "fio random write, read and crc32c verify ($size, 4k, qd 32)" \
			run_fio rand --rw=randwrite --bs=4k --iodepth=32 \
			--norandommap --randrepeat=0
	fi
	check "nvme disconnect" nvme disconnect -n "$nqn"
	check "nvme-rdma unloaded" modprobe -r nvme-rdma
	barrier host-done
fi

dump_counters "$dev"
check "rdma link delete" rdma link delete "$dev"
check "rmmod sroce" rmmod sroce
summary
