#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the sroce build and test harness needs on this host.
set -e
. "$(dirname "$0")/lib.sh"
need_host_pkgs
