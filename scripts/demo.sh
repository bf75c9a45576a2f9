#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: build sroce.ko, boot two QEMU guests on a private link, give
# each an sroce device on eth0, show the devices and ping across the link
# over IPv4, IPv6 and RDMA (scripts/tests/demo.sh does the guest side).
#
#   scripts/demo.sh [sroce|rxe]   rxe: the same with the stock rdma_rxe
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

type=${1:-sroce}
files=()
need_host_pkgs
case $type in
sroce)
	make -C "$SROCE_TOP" >&2
	files=(-f "$SROCE_TOP/sroce.ko")
	;;
rxe) ;;
*) die "usage: $0 [sroce|rxe]" ;;
esac
log "demo: booting two guests (TCG: the first run also builds the guest image, ~2 min)"
exec "$SROCE_TOP/scripts/vm-run.sh" -n 2 -t 120 -o "$SROCE_TOP/out/demo" \
	"${files[@]}" "$SROCE_TOP/scripts/tests/demo.sh" "$type"
