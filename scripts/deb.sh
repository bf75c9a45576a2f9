#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: the sroce-dkms Debian package, built from a copy of the
# tracked sources in out/deb (dpkg-buildpackage, debhelper with dh-dkms),
# then checked with lintian. Prints the .deb's path.
set -u
. "$(dirname "$0")/lib.sh"

need_pkgs debhelper dh-dkms dkms lintian fakeroot dpkg-dev
cd "$SROCE_TOP" || exit 1
version=$(dpkg-parsechangelog -S Version)
dir=$SROCE_TOP/out/deb
src=$dir/sroce-${version%-*}
rm -rf "$dir"
mkdir -p "$src"
git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$src" ||
	die "cannot copy the sources"
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$dir/build.log" 2>&1 ||
	{ tail -n 30 "$dir/build.log" >&2; die "dpkg-buildpackage failed (log: $dir/build.log)"; }
deb=$(ls "$dir"/sroce-dkms_*_all.deb)
lintian --fail-on warning --suppress-tags-from-file "$SROCE_TOP/scripts/deb.lintian-overrides" \
	"$deb" || die "lintian found problems in $deb"
echo "$deb"
