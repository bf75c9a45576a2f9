#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the sroce KUnit suites in a QEMU (TCG) guest.
#
# Debian's linux-source-6.1 (or, with -s 6.12, linux-source-6.12: Debian
# 13's kernel, from the mirror's bookworm updates) is unpacked once into the
# cache, the repository
# is overlaid at drivers/infiniband/sw/sroce (a symlink plus one Kconfig and
# one Makefile line), and kunit.py builds into a build directory kept at a
# fixed path keyed by source version, compiler and .kunitconfig, so a warm
# run only recompiles sroce. Prints "N passed, N failed" and exits non-zero
# on any failed, crashed or missing test.
#
# Usage: scripts/kunit.sh [--prewarm] [-s 6.1|6.12] [-o OUTDIR]
#   --prewarm  build the kernel without sroce (to fill the cache early)
#   -s SERIES  the kernel source to build and test in (default 6.1)
set -u
. "$(dirname "$0")/lib.sh"

prewarm=0
series=6.1
outdir=$SROCE_TOP/out/kunit
while [ $# -gt 0 ]; do
	case $1 in
	--prewarm) prewarm=1 ;;
	-o) outdir=$2; shift ;;
	-s) series=$2; shift ;;
	*) die "usage: $0 [--prewarm] [-s 6.1|6.12] [-o OUTDIR]" ;;
	esac
	shift
done

[[ $series == 6.1 || $series == 6.12 ]] || die "-s wants 6.1 or 6.12"
need_pkgs "linux-source-$series" build-essential bc bison flex libelf-dev libssl-dev \
	python3 qemu-system-x86 qemu-system-data

tarball=/usr/src/linux-source-$series.tar.xz
[ -f "$tarball" ] || die "$tarball not found"
srcver=$(dpkg-query -W -f='${Version}' "linux-source-$series")
kunitconfig=$SROCE_TOP/kunit/.kunitconfig
key=$( { echo "$srcver"; gcc --version | head -n 1; cat "$kunitconfig"; } |
	sha256sum | cut -c1-16)
src=$SROCE_CACHE/kunit/linux-$srcver
build=$SROCE_CACHE/kunit/build-$key
mkdir -p "$SROCE_CACHE/kunit" "$outdir"

# One run per source tree at a time (the overlay and the build directory
# are the tree's); 6.1's lock is the one older checkouts take.
lock=$SROCE_CACHE/kunit/lock
[ "$series" = 6.1 ] || lock=$lock-$series
exec 9>"$lock"
flock 9

if [ ! -f "$src/.sroce-extracted" ]; then
	log "unpacking $tarball (once)"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1 || die "unpack failed"
	touch "$src.tmp/.sroce-extracted"
	mv "$src.tmp" "$src"
fi

# The overlay: the tree always points at this checkout, wherever it is.
ln -sfn "$SROCE_TOP" "$src/drivers/infiniband/sw/sroce"
grep -q 'sw/sroce/Kconfig' "$src/drivers/infiniband/Kconfig" ||
	sed -i '/sw\/rxe\/Kconfig/a source "drivers/infiniband/sw/sroce/Kconfig"' \
		"$src/drivers/infiniband/Kconfig"
grep -q 'RDMA_SROCE' "$src/drivers/infiniband/sw/Makefile" ||
	echo 'obj-$(CONFIG_RDMA_SROCE)		+= sroce/' >> "$src/drivers/infiniband/sw/Makefile"

config=$kunitconfig
if [ $prewarm -eq 1 ]; then
	config=$outdir/prewarm.kunitconfig
	grep -v SROCE "$kunitconfig" > "$config"
fi

# Objects from another checkout may look newer than this one's sources.
rm -rf "$build/drivers/infiniband/sw/sroce"

cd "$src" || die "no $src"
json=$outdir/kunit.json
rm -f "$json"
start=$(date +%s)
if [ $prewarm -eq 1 ]; then
	python3 tools/testing/kunit/kunit.py build --arch=x86_64 \
		--kunitconfig="$config" --build_dir="$build" --jobs="$(nproc)"
	exit $?
fi
python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
	--kunitconfig="$config" --build_dir="$build" --jobs="$(nproc)" \
	--kernel_args=oops=panic --kernel_args=panic=-1 --timeout=900 \
	--json="$json" 2>&1 | tee "$outdir/kunit.log"
rc=${PIPESTATUS[0]}
log "kunit.py exited $rc after $(( $(date +%s) - start )) s"

# Turn the per-case JSON into one closing line; a run that produced no JSON
# (build or boot failure) counts as one failure.
python3 - "$json" "$rc" <<'PY'
import json, sys
path, rc = sys.argv[1], int(sys.argv[2])
passed = failed = skipped = 0
def walk(suite):
    global passed, failed, skipped
    for case in suite.get("test_cases", []):
        st = case.get("status")
        if st == "PASS":
            passed += 1
        elif st == "SKIP":
            skipped += 1
        else:
            failed += 1
            print(f"FAILED: {suite.get('name')}.{case.get('name')}: {st}")
    for sub in suite.get("sub_groups", []):
        walk(sub)
try:
    walk(json.load(open(path)))
except (OSError, ValueError) as e:
    print(f"FAILED: no KUnit results ({e})")
    failed += 1
if rc != 0 and failed == 0:
    failed = 1
if passed == 0 and failed == 0:
    failed = 1
print(f"kunit: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed else 0)
PY
