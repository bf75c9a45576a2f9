#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# QEMU from bookworm-backports (10.x), unpacked beside the host's own
# QEMU rather than installed over it: its virtio-net offers UDP
# segmentation offload (USO: host_uso, guest_uso4/6), which bookworm's 7.2
# lacks, so that a 6.12 guest's send trains can cross virtio unsegmented.
# Prints the directory to give vm-run.sh -q (usr/bin/qemu-system-x86_64
# and usr/share/qemu under it); the firmware (SeaBIOS, iPXE) is the
# host's. Cached in $SROCE_CACHE/qemu-bpo, keyed by the package version.
#
#   scripts/qemu-backports.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

base=$SROCE_CACHE/qemu-bpo
mirror=${SROCE_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$base/apt/lists/partial" "$base/apt/cache/archives/partial"
# A private apt state: the host's sources and package lists stay as
# they are, and nothing of backports gets installed.
cat >"$base/sources.list" <<EOF
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-backports main
EOF
apt_opts=(-o "Dir::Etc::SourceList=$base/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$base/apt/lists" -o "Dir::Cache=$base/apt/cache"
	-o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" -qq update >&2 || die "apt-get update (bookworm-backports) failed"
ver=$(apt-cache "${apt_opts[@]}" madison qemu-system-x86 |
	awk -F' [|] ' '$3 ~ /bookworm-backports/ { print $2; exit }')
[ -n "$ver" ] || die "no qemu-system-x86 in bookworm-backports"
root=$base/${ver//[:~+]/_}
if [ ! -x "$root/usr/bin/qemu-system-x86_64" ]; then
	rm -rf "$root.tmp"
	mkdir -p "$root.tmp/debs"
	(cd "$root.tmp/debs" && apt-get "${apt_opts[@]}" -qq download \
		"qemu-system-x86=$ver" "qemu-system-data=$ver") >&2 ||
		die "download of QEMU $ver failed"
	for deb in "$root.tmp"/debs/*.deb; do
		dpkg-deb -x "$deb" "$root.tmp"
	done
	rm -rf "$root.tmp/debs"
	libs_missing=$(ldd "$root.tmp/usr/bin/qemu-system-x86_64" | grep 'not found' || true)
	[ -z "$libs_missing" ] || die "QEMU $ver needs libraries the host lacks: $libs_missing"
	rm -rf "$root"
	mv "$root.tmp" "$root"
fi
echo "$root"
