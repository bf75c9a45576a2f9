#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build one of the userspace test programs the guest jobs run
# (scripts/tests/NAME.c) on the host, against Debian's libibverbs: the
# guests run the same Debian release. Each links in the helpers they share
# (scripts/tests/test-common.c).
#
# Usage: scripts/test-prog-build.sh NAME OUTPUT
set -u
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: $0 NAME OUTPUT"
src=$SROCE_TOP/scripts/tests/$1.c
[ -r "$src" ] || die "no test program $src"
need_pkgs gcc libibverbs-dev
gcc -O2 -Wall -Wextra -Werror -o "$2" "$src" \
	"$SROCE_TOP/scripts/tests/test-common.c" -libverbs
