#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the user-ring fuzzer and fuzz target (scripts/tests/sroce_fuzz_test.c)
# on the host, against Debian's libibverbs, for the guests (same release).
#
# Usage: scripts/fuzz-test-build.sh OUTPUT
set -u
. "$(dirname "$0")/lib.sh"

need_pkgs gcc libibverbs-dev
gcc -O2 -Wall -Wextra -Werror -o "$1" \
	"$SROCE_TOP/scripts/tests/sroce_fuzz_test.c" -libverbs
