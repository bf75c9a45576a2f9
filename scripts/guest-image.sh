#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build, once, the QEMU guest that the sroce system tests boot, and print
# the cache directory holding it:
#   kernel         the guest's Debian kernel, uncompressed (PVH boot)
#   initramfs.cpio busybox, the virtio/ext4 modules and scripts/guest-init;
#                  mounts the image, installs guest-init as PID 1, switch_roots
#   rootfs.ext4    Debian minbase + RDMA userspace + the kernel's modules
#   kver           the kernel's release
# The directory is keyed by this script, guest-init and the kernel package.
# The image is the slow part (debootstrap, ~2 min) and does not depend on
# guest-init, so it has its own cache entry and is hard-linked in: editing
# guest-init rebuilds only the initramfs. Packages come from the mirror the
# host's apt takes Debian from (SROCE_MIRROR overrides it).
#
# Usage: scripts/guest-image.sh [-d bookworm|trixie] [stock|debug]
#   -d     the release: bookworm (Debian 12, the default) boots the host's
#          installed Debian 6.1 kernel; trixie (Debian 13) installs its own
#          6.12 kernel in the image, and its rootfs entry keeps the unpacked
#          tree, with that kernel's headers and compiler added, as build-root/
#          (the chroot scripts/module-for.sh builds sroce.ko in)
#   debug  the bookworm image booting scripts/debug-kernel.sh's kernel (its
#          bzImage): it has the guest's drivers built in, and its modules
#          ride in the initramfs, which copies them into the root's
#          throwaway overlay, so the image stays the one the stock kernel
#          boots.
set -euo pipefail
# Builders run inside $(cached ...): keep set -e there too.
shopt -s inherit_errexit
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GUEST_PKGS="rdma-core ibverbs-utils ibverbs-providers rdmacm-utils perftest nvme-cli fio
	iproute2 kmod iputils-ping tcpdump iperf3 python3 procps ethtool
	busybox netbase linux-perf nfs-kernel-server"
# Loaded by the initramfs, in this order, to reach the root filesystem.
INITRD_MODS="virtio_pci virtio_blk ext4"

# host_mirror: the URI the host's apt takes Debian's main archive from (the
# suite of the host's own release, component main), as apt itself parses
# sources.list and the deb822 .sources files.
host_mirror() {
	local codename

	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	# shellcheck disable=SC2016 # apt's own $(FIELD) placeholders
	apt-get indextargets --format '$(RELEASE) $(COMPONENT) $(REPO_URI)' 'Created-By: Packages' |
		awk -v suite="$codename" '$1 == suite && $2 == "main" { sub("/$", "", $3); print $3; exit }'
}

# build_rootfs DIR: DIR/rootfs.ext4 with the packages and kernel modules;
# for trixie also DIR/vmlinuz, DIR/kver and DIR/build-root.
build_rootfs() {
	local dir=$1 rootfs=$1/rootfs size_mb pkgs=$GUEST_PKGS vmlinuz

	# trixie's kernel is the image's own (its modules and /boot/vmlinuz).
	[ "$release" = bookworm ] || pkgs+=" linux-image-amd64"
	log "guest image: debootstrap $release from $MIRROR (about 2 minutes)"
	# shellcheck disable=SC2086 # word-split the package list into one --include
	timeout 1800 debootstrap --variant=minbase --include="$(echo $pkgs | tr ' ' ,)" \
		"$release" "$rootfs" "$MIRROR" >"$dir/debootstrap.log" 2>&1 || {
		tail -n 30 "$dir/debootstrap.log" >&2
		die "debootstrap failed"
	}
	# Downloaded packages, indexes and docs are dead weight in a test image.
	rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
		"$rootfs"/usr/share/doc "$rootfs"/usr/share/man "$rootfs"/usr/share/locale

	if [ "$release" = bookworm ]; then
		log "guest image: kernel $stock_kver modules"
		# build/ and source/ are symlinks into the host's headers; leave them out.
		mkdir -p "$rootfs/lib/modules"
		rsync -a --exclude=/build --exclude=/source \
			"/lib/modules/$stock_kver/" "$rootfs/lib/modules/$stock_kver/"
		depmod -b "$rootfs" "$stock_kver"
	else
		# The kernel boots from outside the image, and the guest's own
		# initramfs is never used.
		vmlinuz=$(echo "$rootfs"/boot/vmlinuz-*)
		echo "${vmlinuz##*/vmlinuz-}" >"$dir/kver"
		mv "$vmlinuz" "$dir/vmlinuz"
		rm -f "$rootfs"/boot/initrd.img-*
	fi
	# Mount points of the 9p shares.
	mkdir -p "$rootfs/job" "$rootfs/shared"

	log "guest image: ext4"
	# Room to spare for what a job writes: guests boot it with snapshot=on,
	# so writes land in a throwaway overlay and the image never changes.
	size_mb=$(($(du -sm "$rootfs" | cut -f1) * 3 / 2 + 512))
	mkfs.ext4 -q -F -L sroce-root -d "$rootfs" "$dir/rootfs.ext4" "${size_mb}M" >/dev/null
	if [ "$release" = bookworm ]; then
		rm -rf "$rootfs"
		return 0
	fi

	# The host's compiler is not the one trixie's kernel was built with:
	# modules for it are built in this chroot, from the same day's index as
	# the kernel, so its headers are that very kernel's. Test programs
	# that need rdma-core 56's API are built here too
	# (scripts/test-prog-build.sh -d trixie).
	log "guest image: build-root with linux-headers-$(cat "$dir/kver")"
	if ! { chroot "$rootfs" apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive chroot "$rootfs" apt-get install -y -qq \
			--no-install-recommends make "linux-headers-$(cat "$dir/kver")" \
			libc6-dev libibverbs-dev; } \
		>>"$dir/debootstrap.log" 2>&1; then
		tail -n 30 "$dir/debootstrap.log" >&2
		die "cannot install linux-headers-$(cat "$dir/kver") in the build-root"
	fi
	rm -rf "$rootfs"/var/cache/apt/archives/*.deb
	mv "$rootfs" "$dir/build-root"
}

# build_initramfs DIR: DIR/initramfs.cpio.
build_initramfs() {
	local ird=$1/initramfs ko n=0

	mkdir -p "$ird/bin" "$ird/dev" "$ird/proc" "$ird/sys" "$ird/newroot" "$ird/mods" \
		"$ird/lib/modules"
	cp /bin/busybox "$ird/bin/busybox"
	cp "$init_src" "$ird/sroce-init"
	if [ -n "$debug_dir" ]; then
		cp -a "$debug_dir/modules/lib/modules/$kver" "$ird/lib/modules/"
	else
		for ko in $(for m in $INITRD_MODS; do
			modprobe -d "$modroot" -S "$kver" --show-depends "$m" |
				awk '$1 == "insmod" { print $2 }'
		done | awk '!seen[$0]++'); do
			# Numbered copies keep the dependency order for the /init loop;
			# busybox insmod wants them uncompressed (trixie's are .ko.xz).
			n=$((n + 1))
			case $ko in
			*.ko.xz) xz -dc "$ko" >"$ird/mods/$(printf %02d "$n")-$(basename "$ko" .xz)" ;;
			*) cp "$ko" "$ird/mods/$(printf %02d "$n")-$(basename "$ko")" ;;
			esac
		done
		[ "$n" -gt 0 ] || die "no initramfs modules found for $INITRD_MODS"
	fi
	cat >"$ird/init" <<-'EOF'
	#!/bin/busybox sh
	# Load the block and filesystem drivers, mount the test image and hand
	# over to guest-init. The root is booted with snapshot=on, so installing
	# guest-init into it only touches a throwaway overlay.
	/bin/busybox --install -s /bin
	mount -t proc proc /proc
	mount -t devtmpfs dev /dev
	for ko in /mods/*.ko; do
		[ -e "$ko" ] || continue
		insmod "$ko" 2>/dev/null || echo "initramfs: insmod $ko failed"
	done
	i=0
	while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	mount -t ext4 /dev/vda /newroot || { echo "initramfs: cannot mount /dev/vda"; poweroff -f; }
	cp /sroce-init /newroot/sbin/sroce-init
	cp -a /lib/modules/. /newroot/lib/modules/
	umount /dev /proc
	exec switch_root /newroot /sbin/sroce-init
	EOF
	chmod 0755 "$ird/init" "$ird/sroce-init"
	(cd "$ird" && find . | cpio -o -H newc --quiet) >"$1/initramfs.cpio"
	rm -rf "$ird"
}

# extract_vmlinux DIR: DIR/kernel, what scripts/extract-vmlinux does for an
# xz kernel (bookworm's) or a zstd one (trixie's): try each stream magic in
# the bzImage until one unpacks to an ELF file.
extract_vmlinux() {
	local off offs

	mapfile -t offs < <(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$vmlinuz" | cut -d: -f1)
	for off in "${offs[@]}"; do
		tail -c +$((off + 1)) "$vmlinuz" |
			xz -dc --single-stream >"$1/kernel" 2>/dev/null || true
		[ "$(head -c 4 "$1/kernel" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] && return 0
	done
	mapfile -t offs < <(LC_ALL=C grep -obUaP '\x28\xb5\x2f\xfd' "$vmlinuz" | cut -d: -f1)
	for off in "${offs[@]}"; do
		# zstd stops with an error at the bzImage's bytes after the frame.
		tail -c +$((off + 1)) "$vmlinuz" | zstd -dcq >"$1/kernel" 2>/dev/null || true
		[ "$(head -c 4 "$1/kernel" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] && return 0
	done
	die "could not extract vmlinux from $vmlinuz"
}

# cached NAME HASH BUILDER...: print $SROCE_CACHE/NAME-HASH, running
# BUILDER TMPDIR first unless it is built already. Builds go to a temporary
# directory renamed on success, so an interrupted one leaves no half entry.
cached() {
	local out=$SROCE_CACHE/$1-$2 tmp=$SROCE_CACHE/.$1-$2.tmp
	shift 2
	if [ ! -f "$out/done" ]; then
		rm -rf "$tmp"
		mkdir -p "$tmp"
		# Builders log to stderr; stdout carries only the result path.
		"$@" "$tmp" >&2
		touch "$tmp/done"
		mv "$tmp" "$out"
	fi
	# done's mtime is the entry's last use, for pruning.
	touch "$out/done"
	echo "$out"
}

# build_guest DIR: everything that boots, with the image hard-linked in.
build_guest() {
	ln "$image_dir/rootfs.ext4" "$1/rootfs.ext4"
	build_initramfs "$1"
	if [ -n "$debug_dir" ]; then
		cp "$debug_dir/bzImage" "$1/kernel"
	else
		extract_vmlinux "$1"
	fi
	echo "$kver" >"$1/kver"
	# scripts/module-for.sh builds in it.
	[ "$release" = bookworm ] || ln -s "$image_dir/build-root" "$1/build-root"
}

usage() { die "usage: $0 [-d bookworm|trixie] [stock|debug]"; }
release=bookworm
while getopts d: opt; do
	case $opt in
	d) release=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
kernel=${1:-stock}
case $release:$kernel in
bookworm:stock | bookworm:debug | trixie:stock) ;;
trixie:debug) die "the debug kernel is a 6.1 one: bookworm only" ;;
*) usage ;;
esac
need_pkgs debootstrap busybox-static e2fsprogs cpio xz-utils zstd kmod rsync linux-image-amd64

MIRROR=${SROCE_MIRROR:-$(host_mirror)}
[ -n "$MIRROR" ] || die "no Debian main archive in the host's apt sources: set SROCE_MIRROR"
init_src=$SROCE_TOP/scripts/guest-init
debug_dir=
if [ "$release" = bookworm ]; then
	stock_kver=$(guest_kver)
	[ -n "$stock_kver" ] || die "no /boot/vmlinuz-6.1.*-amd64: install linux-image-amd64"
	kpkg=$(dpkg-query -W -f='${Package} ${Version}' "linux-image-$stock_kver") ||
		die "linux-image-$stock_kver is not installed"
	rootfs=rootfs guest=guest
else
	# The kernel is whatever the mirror's trixie had on the day the image
	# was built; a kernel update reaches the guests with an edit of this
	# script (or when the unused entry is pruned, below).
	kpkg=trixie
	rootfs=rootfs-trixie guest=guest-trixie
fi
# The package list lives in this script; the kernel package's version
# catches a rebuilt kernel that kept its ABI number.
rootfs_hash=$(recipe_hash "${BASH_SOURCE[0]}" <(echo "$kpkg $MIRROR"))
if [ "$kernel" = debug ]; then
	# Before taking the lock: a cold debug kernel takes most of an hour.
	debug_dir=$("$SROCE_TOP/scripts/debug-kernel.sh") || die "debug kernel build failed"
	kver=$(cat "$debug_dir/kver")
	guest="guest-debug"
fi

mkdir -p "$SROCE_CACHE"
exec 9>"$SROCE_CACHE/guest.lock"
flock -w 3600 9 || die "another guest image build has held $SROCE_CACHE/guest.lock for an hour"
# Holding the lock, a temporary directory can only be a failed build's.
trap 'rm -rf "$SROCE_CACHE"/.*.tmp' EXIT
start=$SECONDS
image_dir=$(cached "$rootfs" "$rootfs_hash" build_rootfs)
if [ "$release" = bookworm ]; then
	modroot=/ vmlinuz=/boot/vmlinuz-$stock_kver
	[ -n "$debug_dir" ] || kver=$stock_kver
else
	modroot=$image_dir/build-root vmlinuz=$image_dir/vmlinuz kver=$(cat "$image_dir/kver")
fi
# The debug kernel's directory name is its recipe hash.
guest_hash=$(recipe_hash "${BASH_SOURCE[0]}" "$init_src" <(echo "$kpkg $kver $MIRROR ${debug_dir##*/}"))
out=$(cached "$guest" "$guest_hash" build_guest)
# Entries of older recipes (an edited guest-init, an updated kernel) that no
# run has used for a week; a guest still booted from one keeps its files open.
find "$SROCE_CACHE"/rootfs-*/ "$SROCE_CACHE"/guest-*/ -maxdepth 1 -name 'done' -mtime +7 \
	-printf '%h\0' | xargs -0r rm -rf
[ $((SECONDS - start)) -lt 2 ] || log "guest image: $out ready in $((SECONDS - start)) s"
echo "$out"
