#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's checkpatch.pl --strict over the sroce C sources.
# checkpatch.pl is taken from Debian's linux-source-6.1 tarball into the
# cache (never vendored). Exits non-zero on any error, warning or check.
#
# Usage: scripts/checkpatch.sh [FILE...]   (default: every .c and .h)
set -u
. "$(dirname "$0")/lib.sh"

need_pkgs linux-source-6.1 perl
tarball=$(dpkg-query -L linux-source-6.1 | grep -m 1 '\.tar\.xz$')
[ -n "$tarball" ] || die "linux-source-6.1 tarball not found in /usr/src"
dir=$SROCE_CACHE/checkpatch-$(dpkg-query -W -f='${Version}' linux-source-6.1)
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	tar -xJf "$tarball" -C "$dir.tmp" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' || die "cannot extract checkpatch.pl"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
fi

cd "$SROCE_TOP" || exit 1
if [ $# -eq 0 ]; then
	mapfile -t files < <(git ls-files -co --exclude-standard -- \
		'drivers/*.[ch]' 'include/*.h' 'kunit/*.[ch]' 'tools/*.[ch]' | sort -u)
else
	files=("$@")
fi
[ ${#files[@]} -gt 0 ] || die "no files to check"

# --no-tree: these files are checked outside a kernel tree.
perl "$dir/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	--no-summary --quiet -f "${files[@]}"
rc=$?
[ $rc -eq 0 ] && log "checkpatch --strict: ${#files[@]} files clean"
exit $rc
