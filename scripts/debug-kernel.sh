#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build, once, the debug kernel the guest tests can boot instead of
# Debian's (scripts/vm-run.sh -k debug): Debian's linux-source-6.1 with
# x86_64 defconfig, kvm_guest.config and scripts/debug-kernel.config
# (KASAN, KFENCE, lockdep, debug objects, kmemleak, ...), and print its
# cache directory:
#   bzImage    the kernel. Not the uncompressed vmlinux through PVH, as for
#              the stock kernel: 6.1's PVH entry code is KASAN-instrumented
#              and runs before the shadow exists (a triple fault at once)
#   kver       its release string
#   modules/   lib/modules/KVER, what the config builds as modules
#   build/     the O= build tree, for out-of-tree modules
#   src/       the unpacked source build/ refers to
# The entry is keyed by this script, the config fragment, the source
# package version and the compiler. The tree stays where it was built
# (objtool and the build Makefile record absolute paths); an interrupted
# build resumes there and only "done" marks a finished one.
#
# Usage: scripts/debug-kernel.sh [-m OUTDIR]
#   -m OUTDIR  also build sroce.ko against it, from a copy of this checkout
#              in OUTDIR/src (the checkout's own objects stay the stock
#              kernel's), and put it at OUTDIR/sroce.ko
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

modout=
while getopts m:h opt; do
	case $opt in
	m) modout=$(realpath -m "$OPTARG") ;;
	*) die "usage: $0 [-m OUTDIR]" ;;
	esac
done

need_pkgs linux-source-6.1 build-essential bc bison flex libelf-dev libssl-dev kmod rsync

fragment=$SROCE_TOP/scripts/debug-kernel.config
tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2>/dev/null | head -n 1)
[ -n "$tarball" ] || die "linux-source-6.1 tarball not found in /usr/src"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
hash=$(recipe_hash "${BASH_SOURCE[0]}" "$fragment" <(echo "$srcver"; gcc --version | head -n 1))
dir=$SROCE_CACHE/debug-kernel-$hash
src=$dir/src
build=$dir/build

# check_config: every line of the fragment survived olddefconfig.
check_config() {
	local want sym bad=()

	while IFS= read -r want; do
		case $want in
		CONFIG_*=*) sym=${want%%=*} ;;
		"# CONFIG_"*" is not set") sym=${want#\# } sym=${sym%% *} ;;
		*) continue ;;
		esac
		grep -qxF "$want" "$build/.config" ||
			bad+=("wanted '$want', got '$(grep -E "^(# )?${sym}[= ]" "$build/.config" || echo "nothing")'")
	done <"$fragment"
	[ ${#bad[@]} -eq 0 ] && return 0
	printf '[sroce] debug kernel config: %s\n' "${bad[@]}" >&2
	die "$fragment does not hold after olddefconfig"
}

build_kernel() {
	local start=$SECONDS

	if [ ! -f "$src/.sroce-extracted" ]; then
		log "debug kernel: unpacking $tarball"
		rm -rf "$src"
		mkdir -p "$src"
		tar -xJf "$tarball" -C "$src" --strip-components=1
		touch "$src/.sroce-extracted"
	fi
	if [ ! -f "$build/.config" ]; then
		mkdir -p "$build"
		make -C "$src" O="$build" -s x86_64_defconfig
		"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" \
			"$src/kernel/configs/kvm_guest.config" "$fragment" >"$dir/merge_config.log"
		make -C "$src" O="$build" -s olddefconfig
	fi
	check_config
	log "debug kernel: building in $build (10-15 minutes on two cores)"
	make -C "$build" -j"$(nproc)" bzImage modules >"$dir/build.log" 2>&1 || {
		tail -n 40 "$dir/build.log" >&2
		die "debug kernel build failed, log in $dir/build.log"
	}
	rm -rf "$dir/modules"
	make -C "$build" -s INSTALL_MOD_PATH="$dir/modules" INSTALL_MOD_STRIP=1 \
		modules_install >>"$dir/build.log" 2>&1
	make -C "$build" -s kernelrelease >"$dir/kver"
	ln -sf build/arch/x86/boot/bzImage "$dir/bzImage"
	echo "$((SECONDS - start))" >"$dir/build-seconds"
	log "debug kernel: built in $(cat "$dir/build-seconds") s"
	touch "$dir/done"
}

# build_module OUTDIR: sroce.ko against the debug tree, from a copy of the
# checkout without its build products.
build_module() {
	mkdir -p "$1/src"
	rsync -a --delete --exclude=/.git --exclude=/out --filter=':- .gitignore' \
		"$SROCE_TOP/" "$1/src/"
	make -C "$build" M="$1/src" CONFIG_RDMA_SROCE=m modules >"$1/build.log" 2>&1 || {
		tail -n 40 "$1/build.log" >&2
		die "sroce.ko against the debug kernel failed, log in $1/build.log"
	}
	cp "$1/src/sroce.ko" "$1/sroce.ko"
}

mkdir -p "$SROCE_CACHE"
exec 9>"$SROCE_CACHE/debug-kernel.lock"
flock 9
[ -f "$dir/done" ] || build_kernel
# done's mtime is the entry's last use, for pruning.
touch "$dir/done"
# Entries of older recipes that no run has used for a week.
find "$SROCE_CACHE"/debug-kernel-*/ -maxdepth 1 -name 'done' -mtime +7 \
	-printf '%h\0' | xargs -0r rm -rf
[ -z "$modout" ] || build_module "$modout"
echo "$dir"
