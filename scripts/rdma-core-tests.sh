#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's own test suite (its tests/ directory: pyverbs unittest
# cases) for the trixie guests, which run Debian 13's rdma-core: Debian
# packages pyverbs (python3-pyverbs) but not the tests, so they come from
# the source package of the very version the trixie image has installed.
# Both files are fetched from the mirror the image came from and checked
# against its signed InRelease (gpgv, Debian's archive keyring) and the
# Sources and Packages indexes it names.
#
# Usage: scripts/rdma-core-tests.sh OUTDIR
#   writes OUTDIR/rdma-core-tests.tar.gz (the tests/ directory) and
#   OUTDIR/python3-pyverbs.deb, for vm-run.sh -f; cached in
#   $SROCE_CACHE/rdma-core-tests-VERSION
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -eq 1 ] || die "usage: $0 OUTDIR"
outdir=$1
need_pkgs curl gpgv xz-utils debian-archive-keyring
image=$("$SROCE_TOP/scripts/guest-image.sh" -d trixie) || die "trixie guest image build failed"
root=$image/build-root
mirror=$(awk '$1 == "deb" { print $2; exit }' "$root/etc/apt/sources.list")
# shellcheck disable=SC2016 # dpkg-query's own ${Field}
ver=$(chroot "$root" dpkg-query -W -f='${Version}' rdma-core)
if [ -z "$mirror" ] || [ -z "$ver" ]; then
	die "no mirror or rdma-core version in $root"
fi
cache=$SROCE_CACHE/rdma-core-tests-$ver

if [ ! -f "$cache/done" ]; then
	tmp=$(mktemp -d "$SROCE_CACHE/.rdma-core-tests.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT

	# fetch URL FILE SHA256: download URL to FILE and check its hash.
	fetch() {
		curl -fsS -o "$2" "$1" || die "cannot fetch $1"
		echo "$3  $2" | sha256sum -c --quiet - || die "$1: bad SHA256"
	}

	# index_sha PATH: PATH's SHA256 as the signed InRelease lists it.
	index_sha() {
		awk -v p="$1" '/^SHA256:/ { s = 1; next } /^[^ ]/ { s = 0 }
			s && $3 == p { print $1; exit }' "$tmp/InRelease"
	}

	# entry INDEX PACKAGE: the INDEX (Sources or Packages) stanza of
	# PACKAGE at $ver.
	entry() {
		# Reads to the end: an early exit would fail xz with SIGPIPE.
		xz -dc "$tmp/$1.xz" | awk -v p="$2" -v v="$ver" '
			found { next }
			/^Package: / { keep = ($2 == p); text = "" }
			keep { text = text $0 "\n" }
			/^Version: / && keep && $2 != v { keep = 0 }
			/^$/ && keep { printf "%s", text; found = 1 }'
	}

	curl -fsS -o "$tmp/InRelease" "$mirror/dists/trixie/InRelease" ||
		die "cannot fetch $mirror/dists/trixie/InRelease"
	gpgv --keyring /usr/share/keyrings/debian-archive-keyring.gpg \
		"$tmp/InRelease" 2>"$tmp/gpgv.log" ||
		die "trixie's InRelease: bad signature ($(tail -n 1 "$tmp/gpgv.log"))"
	fetch "$mirror/dists/trixie/main/source/Sources.xz" "$tmp/Sources.xz" \
		"$(index_sha main/source/Sources.xz)"
	fetch "$mirror/dists/trixie/main/binary-amd64/Packages.xz" "$tmp/Packages.xz" \
		"$(index_sha main/binary-amd64/Packages.xz)"

	src=$(entry Sources rdma-core)
	dir=$(awk '/^Directory: / { print $2 }' <<<"$src")
	orig=$(awk '/^Checksums-Sha256:/ { s = 1; next } /^[^ ]/ { s = 0 }
		s && $3 ~ /\.orig\.tar\./ { print $1, $3; exit }' <<<"$src")
	if [ -z "$dir" ] || [ -z "$orig" ]; then
		die "no rdma-core $ver source in trixie's Sources"
	fi
	fetch "$mirror/$dir/${orig#* }" "$tmp/orig.tar" "${orig%% *}"

	deb=$(entry Packages python3-pyverbs)
	file=$(awk '/^Filename: / { print $2 }' <<<"$deb")
	sha=$(awk '/^SHA256: / { print $2 }' <<<"$deb")
	if [ -z "$file" ] || [ -z "$sha" ]; then
		die "no python3-pyverbs $ver in trixie's Packages"
	fi
	fetch "$mirror/$file" "$tmp/python3-pyverbs.deb" "$sha"

	mkdir "$tmp/src"
	tar -xf "$tmp/orig.tar" -C "$tmp/src" --strip-components=1 --wildcards '*/tests/'
	tar -czf "$tmp/rdma-core-tests.tar.gz" -C "$tmp/src" tests
	mkdir -p "$cache"
	mv "$tmp/rdma-core-tests.tar.gz" "$tmp/python3-pyverbs.deb" "$cache/"
	echo "$ver" >"$cache/done"
fi
mkdir -p "$outdir"
cp "$cache/rdma-core-tests.tar.gz" "$cache/python3-pyverbs.deb" "$outdir/"
log "rdma-core $ver tests and pyverbs in $outdir"
