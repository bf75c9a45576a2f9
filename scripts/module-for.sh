#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build sroce.ko for a guest release's kernel and print its path.
#
# Usage: scripts/module-for.sh trixie [OUTDIR]
#   trixie  Debian 13's 6.12: built in the chroot that the trixie guest
#           image keeps beside it (scripts/guest-image.sh -d trixie), with
#           that very kernel's headers and the gcc-14 it was built with,
#           which the host (Debian 12, gcc-12) does not have: the vermagic
#           is the guest's and W=1 warns as that compiler does
#   OUTDIR  where sroce.ko and build-output.txt go (default
#           out/module-RELEASE); any compiler warning fails the build
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

release=${1:-}
[ "$release" = trixie ] || die "usage: $0 trixie [OUTDIR]"
outdir=$(realpath -m "${2:-$SROCE_TOP/out/module-$release}")
need_pkgs rsync git

image=$("$SROCE_TOP/scripts/guest-image.sh" -d "$release") || die "guest image build failed"
root=$image/build-root
kver=$(cat "$image/kver")
[ -d "$root/usr/src/linux-headers-$kver" ] || die "no linux-headers-$kver in $root"
mkdir -p "$outdir"
# One build at a time in the chroot's /build.
exec 9>"$SROCE_CACHE/module-$release.lock"
flock 9
# A copy of the checkout's sources, so that its own objects stay those of
# the host's kernel.
rm -rf "$root/build"
mkdir -p "$root/build"
(cd "$SROCE_TOP" && git ls-files -co --exclude-standard -z -- Kbuild Kconfig Makefile \
	drivers include scripts/kdir.sh | xargs -0 cp --parents -t "$root/build")
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	make -C /build KDIR="/usr/src/linux-headers-$kver" W=1 >"$outdir/build-output.txt" 2>&1 || {
	tail -n 30 "$outdir/build-output.txt" >&2
	die "sroce.ko does not build against $kver"
}
! grep -E 'warning:|error:' "$outdir/build-output.txt" >&2 ||
	die "sroce.ko builds against $kver with warnings ($outdir/build-output.txt)"
cp "$root/build/sroce.ko" "$outdir/sroce.ko"
echo "$outdir/sroce.ko"
