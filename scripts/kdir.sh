#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel build directory to build sroce against: the running
# kernel's when its headers are installed, else the newest Debian 6.1
# amd64 headers package (the kernel the test guests boot; other kernels'
# headers, e.g. 6.12 from bookworm-backports, are only used when asked
# for with KDIR=). Prints nothing when there is none.
kver=${1:-$(uname -r)}
if [ -d "/lib/modules/$kver/build" ]; then
	echo "/lib/modules/$kver/build"
	exit 0
fi
ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort -V | tail -n 1
