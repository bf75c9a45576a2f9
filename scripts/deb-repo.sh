#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build, once, the local apt repository that lets a test guest (which has
# no network) install the sroce-dkms package as a user would, with apt
# pulling in what the package needs: the guest image's own dpkg status
# tells which packages it lacks (DKMS, the compiler, the running kernel's
# headers), and apt downloads exactly those. Prints the cache directory;
# its repo-RELEASE.tar holds the .debs and their Packages index.
#
# Usage: scripts/deb-repo.sh bookworm|trixie DEB
#   bookworm  the guests boot the host's own 6.1 kernel, so the host's apt
#             sources (which gave it that kernel) serve its headers too
#   trixie    the image's own sources.list (the mirror and suite it was
#             debootstrapped from), in an apt state of its own
#   DEB       the sroce-dkms package: its dependencies are resolved too
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

release=${1:-}
deb=${2:-}
if [[ $release != bookworm && $release != trixie ]] || [ ! -f "$deb" ]; then
	die "usage: $0 bookworm|trixie DEB"
fi
deb=$(realpath "$deb")
need_pkgs e2fsprogs dpkg-dev

image=$("$SROCE_TOP/scripts/guest-image.sh" -d "$release") || die "guest image build failed"
kver=$(cat "$image/kver")
# The image's entry name is its recipe hash; the package's dependencies
# decide the rest.
hash=$(recipe_hash "${BASH_SOURCE[0]}" \
	<(echo "${image##*/} $kver"; dpkg-deb -f "$deb" Depends))
out=$SROCE_CACHE/deb-repo-$release-$hash
mkdir -p "$SROCE_CACHE"
exec 9>"$SROCE_CACHE/deb-repo.lock"
flock 9
if [ -f "$out/done" ]; then
	touch "$out/done"
	echo "$out"
	exit 0
fi

tmp=$SROCE_CACHE/.deb-repo-$release-$hash.tmp
rm -rf "$tmp"
mkdir -p "$tmp/archives/partial" "$tmp/lists/partial" "$tmp/repo"
debugfs -R 'cat /var/lib/dpkg/status' "$image/rootfs.ext4" >"$tmp/status" 2>/dev/null
grep -q '^Package: ' "$tmp/status" || die "no dpkg status in $image/rootfs.ext4"
apt_opts=(-o "Dir::State::status=$tmp/status" -o "Dir::Cache::archives=$tmp/archives"
	-o Debug::NoLocking=true -o APT::Sandbox::User=root)
if [ "$release" = trixie ]; then
	debugfs -R 'cat /etc/apt/sources.list' "$image/rootfs.ext4" >"$tmp/sources.list" 2>/dev/null
	grep -q '^deb ' "$tmp/sources.list" || die "no apt sources in $image/rootfs.ext4"
	apt_opts+=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=$tmp/none"
		-o "Dir::State::Lists=$tmp/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)
	apt-get "${apt_opts[@]}" update -qq >"$tmp/apt.log" 2>&1 ||
		{ cat "$tmp/apt.log" >&2; die "apt-get update for $release failed"; }
fi
log "deb repo: what the $release guest needs to install $(basename "$deb")"
DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y --download-only \
	--no-install-recommends "$deb" "linux-headers-$kver" >>"$tmp/apt.log" 2>&1 ||
	{ tail -n 30 "$tmp/apt.log" >&2; die "apt cannot resolve $deb and linux-headers-$kver for $release"; }
mv "$tmp"/archives/*.deb "$tmp/repo/"
(cd "$tmp/repo" && dpkg-scanpackages . /dev/null >Packages 2>/dev/null)
tar -cf "$tmp/repo-$release.tar" -C "$tmp/repo" .
rm -rf "$tmp/repo" "$tmp/archives" "$tmp/lists"
touch "$tmp/done"
mv "$tmp" "$out"
# Entries no run has used for a week.
find "$SROCE_CACHE"/deb-repo-*/ -maxdepth 1 -name 'done' -mtime +7 -printf '%h\0' | xargs -0r rm -rf
echo "$out"
