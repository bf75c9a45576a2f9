#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build one of the userspace test programs the guest jobs run
# (scripts/tests/NAME.c) against Debian's libibverbs: by default on the
# host, against its Debian 12 rdma-core, which bookworm guests run too;
# with -d trixie in the build-root the trixie guest image keeps beside it
# (scripts/guest-image.sh), against Debian 13's rdma-core 56, for programs
# that need its newer API. Each links in the helpers they share
# (scripts/tests/test-common.c).
#
# Usage: scripts/test-prog-build.sh [-d trixie] NAME OUTPUT
set -u
. "$(dirname "$0")/lib.sh"

release=bookworm
if [ "${1:-}" = -d ]; then
	release=${2:-}
	[ "$release" = trixie ] || die "usage: $0 [-d trixie] NAME OUTPUT"
	shift 2
fi
[ $# -eq 2 ] || die "usage: $0 [-d trixie] NAME OUTPUT"
src=$SROCE_TOP/scripts/tests/$1.c
[ -r "$src" ] || die "no test program $src"
cflags=(-O2 -Wall -Wextra -Werror)
if [ "$release" = bookworm ]; then
	need_pkgs gcc libibverbs-dev
	exec gcc "${cflags[@]}" -o "$2" "$src" \
		"$SROCE_TOP/scripts/tests/test-common.c" -libverbs
fi

image=$("$SROCE_TOP/scripts/guest-image.sh" -d "$release") || die "guest image build failed"
root=$image/build-root
# The chroot's /build-prog, one build at a time.
exec 9>"$SROCE_CACHE/test-prog-$release.lock"
flock 9
rm -rf "$root/build-prog"
mkdir -p "$root/build-prog"
cp "$src" "$SROCE_TOP/scripts/tests/test-common.c" \
	"$SROCE_TOP/scripts/tests/test-common.h" "$root/build-prog/"
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	gcc-14 "${cflags[@]}" -o "/build-prog/$1" "/build-prog/$1.c" \
	/build-prog/test-common.c -libverbs || die "$1 does not build for $release"
cp "$root/build-prog/$1" "$2"
