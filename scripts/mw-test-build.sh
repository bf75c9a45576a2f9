#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the userspace memory window test (scripts/tests/sroce_mw_test.c)
# on the host, against Debian's libibverbs, for the guests (same release).
#
# Usage: scripts/mw-test-build.sh OUTPUT
set -u
. "$(dirname "$0")/lib.sh"

need_pkgs gcc libibverbs-dev
gcc -O2 -Wall -Wextra -Werror -o "$1" \
	"$SROCE_TOP/scripts/tests/sroce_mw_test.c" -libverbs
