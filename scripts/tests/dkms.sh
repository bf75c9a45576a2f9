#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The sroce-dkms package on fresh guests, as a user installs it, then the
# smoke test between the modules DKMS built there (two guests, each
# installing; one bookworm and one trixie, or both of one release):
#   scripts/vm-run.sh -n 2 -d bookworm,trixie -f sroce-dkms_*_all.deb \
#       -f repo-bookworm.tar -f repo-trixie.tar -f scripts/tests/smoke.sh \
#       scripts/tests/dkms.sh
# repo-RELEASE.tar (scripts/deb-repo.sh) is a local apt repository with
# what that release's image lacks for the package, since guests have no
# network: apt resolves its dependencies from it as from a mirror.
# Checks: apt installs the package and the running kernel's headers, DKMS
# builds and installs sroce for the running kernel, rdma_rxe no longer
# loads, sroce@.service's commands bring up and take down a link; then
# smoke.sh with SROCE_FROM=dkms.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

kver=$(uname -r)
repo=/var/local/sroce-repo
release=$(. /etc/os-release && echo "$VERSION_CODENAME")
deb=$(echo /job/sroce-dkms_*_all.deb)

# apt_install: the package and the headers, from the local repository only.
# Output in /job/apt.log.
apt_install() {
	mkdir -p "$repo" && tar -xf "/job/repo-$release.tar" -C "$repo" || return 1
	echo "deb [trusted=yes] file:$repo ./" >/etc/apt/sources.list
	rm -f /etc/apt/sources.list.d/*
	{ apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			"$deb" "linux-headers-$kver"; } >/job/apt.log 2>&1
}

# dkms_installed: DKMS says sroce is installed for this kernel, and modprobe
# finds it where DKMS puts modules.
dkms_installed() {
	dkms status -m sroce -k "$kver" | grep -q ': installed' || { dkms status; return 1; }
	modinfo -n sroce | grep -q "^/lib/modules/$kver/updates/dkms/sroce\.ko" ||
		{ modinfo -n sroce; return 1; }
}

# rxe_blocked: the blacklist keeps `rdma link add ... type rxe` from
# loading rdma_rxe.
rxe_blocked() {
	modprobe -c | grep -qx 'blacklist rdma_rxe' || return 1
	! rdma link add rxe_t type rxe netdev eth0 && ! grep -q '^rdma_rxe ' /proc/modules
}

# unit_cmds KEY: sroce@.service's KEY= command lines for eth0; the guest
# has no systemd, so the commands run as systemd would run them.
unit_cmds() {
	sed -n "s/^$1=//p" /usr/lib/systemd/system/sroce@.service | sed 's/%i/eth0/g'
}

# unit_run KEY: run each of the unit's KEY= commands.
unit_run() {
	local cmd
	while read -r cmd; do
		# shellcheck disable=SC2086 # a command line, split at spaces
		$cmd || return 1
	done < <(unit_cmds "$1")
	[ -n "$(unit_cmds "$1")" ]
}

check "apt installs $(basename "$deb") and linux-headers-$kver on $release" apt_install ||
	{ tail -n 40 /job/apt.log | sed 's/^/#   /'; bail "package not installed"; }
check "DKMS built and installed sroce for $kver" dkms_installed ||
	{ cat /var/lib/dkms/sroce/*/build/make.log 2>/dev/null | tail -n 30; bail "no sroce module"; }
check "the rdma_rxe blacklist holds" rxe_blocked
check "sroce@eth0's start commands add sroce_eth0" unit_run ExecStart
check "sroce_eth0 port 1 becomes ACTIVE" wait_port_active sroce_eth0
check "sroce@eth0's stop command deletes sroce_eth0" unit_run ExecStop
check "rmmod sroce" rmmod sroce
summary
rc=$?
SROCE_FROM=dkms bash /job/smoke.sh sroce || rc=1
exit $rc
