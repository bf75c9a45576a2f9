#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA over sroce, run by scripts/vm-run.sh on two guests:
#
#   nfs.sh [size=N] [rsize=N]     (with -f .../sroce.ko)
#
# Guest 0 is the Debian kernel's nfsd with the RDMA transport (svcrdma,
# in rpcrdma) listening on port 20049 (and TCP on 2049, which rpc.nfsd
# insists on for version 4 and nothing uses), exporting a
# tmpfs to guest 1 (NFSv4.2 only: no rpcbind, lockd or statd on the
# wire). Guest 1 mounts it with proto=rdma (xprtrdma: RDMA READ and WRITE
# chunks through fast-registered MRs, SEND with Invalidate) and runs fio
# with verify=crc32c through the page cache and with O_DIRECT, then
# unmounts. The server stops nfsd and unloads the RPC/RDMA modules; both
# delete their link and unload sroce (vm-run.sh fails on any kernel
# warning). size= sets the sequential job's file size, rsize= the random
# one's (fio's units; 32M and 8M: 4 KiB writes through NFS are slow under
# TCG, 450 KiB/s measured).

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

size=32M rsize=8M
for opt in "$@"; do
	case $opt in
	size=[1-9]*) size=${opt#size=} ;;
	rsize=[1-9]*) rsize=${opt#rsize=} ;;
	*) bail "unknown option '$opt'" ;;
	esac
done

dev=sroce0
export_dir=/srv/nfs
mnt=/mnt/nfs
FIO_TIMEOUT=${FIO_TIMEOUT:-600}

link_up sroce "$dev"
ping -c 1 -W 5 "$PEER_IP4" >/dev/null 2>&1

# server_up: nfsd, v4.2 only, its one listener RDMA on port 20049.
server_up() {
	modprobe -a nfsd rpcrdma || return 1
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return 1
	mkdir -p "$export_dir" /var/lib/nfs/v4recovery &&
		mount -t tmpfs -o size=256M tmpfs "$export_dir" || return 1
	echo "$export_dir $PEER_IP4(rw,no_root_squash,insecure,fsid=1,sync,no_subtree_check)" >/etc/exports
	exportfs -ra || return 1
	rpc.mountd -N 2 -N 3 --no-udp || return 1
	# rpc.nfsd wants TCP for version 4 (its listener on 2049 stays
	# unused); RDMA is added to the running server through portlist.
	rpc.nfsd -N 3 -V 4.2 --no-udp 4 || return 1
	echo "rdma 20049" >/proc/fs/nfsd/portlist || return 1
	grep -q "^rdma 20049" /proc/fs/nfsd/portlist
}

server_down() {
	rpc.nfsd 0 &&
		exportfs -ua &&
		pkill -x rpc.mountd
	umount /proc/fs/nfsd &&
		umount "$export_dir" &&
		modprobe -r nfsd rpcrdma
}

# run_fio NAME ARGS...: one fio job in the mount, crc32c verification.
run_fio() {
	local name=$1
	shift
	timeout "$FIO_TIMEOUT" fio --name="$name" --directory="$mnt" \
		--size="$size" --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--output=/job/fio-"$name".log "$@" 2>/job/fio-"$name".err ||
		{ tail -n 30 /job/fio-"$name".err /job/fio-"$name".log; return 1; }
	grep -q "err= 0" /job/fio-"$name".log
}

# xprt_rdma: the mount's RPC transport is RPC/RDMA (the mount stats name it).
xprt_rdma() {
	grep -A 30 "mounted on $mnt with" /proc/self/mountstats |
		grep -q "xprt:[[:space:]]*rdma"
}

if [ "$GUEST_ID" = 0 ]; then
	check "nfsd with RPC/RDMA on $GUEST_IP4:20049" server_up
	barrier server-up
	# As long as the client's fio may take, not the default 120 s.
	BARRIER_TIMEOUT=$((2 * FIO_TIMEOUT + 120)) barrier client-done
	check "nfsd stopped, export removed, nfsd and rpcrdma unloaded" server_down
else
	barrier server-up
	modprobe rpcrdma
	mkdir -p "$mnt"
	if check "mount -o proto=rdma,port=20049,vers=4.2" \
		timeout 60 mount -t nfs -o proto=rdma,port=20049,vers=4.2 \
		"$PEER_IP4:$export_dir" "$mnt"; then
		check "the mount's transport is RPC/RDMA" xprt_rdma
		check "fio sequential write, read and crc32c verify ($size, 1M)" \
			run_fio seq --rw=write --bs=1M --ioengine=psync \
			--end_fsync=1
		check "fio O_DIRECT random write, read and crc32c verify ($rsize, 4k, qd 16)" \
			run_fio rand --size="$rsize" --rw=randwrite --bs=4k \
			--direct=1 --ioengine=libaio --iodepth=16 --randrepeat=0
		check "umount" umount "$mnt"
	fi
	check "rpcrdma unloaded" modprobe -r rpcrdma
	barrier client-done
fi

dump_counters "$dev"
check "rdma link delete" rdma link delete "$dev"
check "rmmod sroce" rmmod sroce
summary
