# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers for the sroce harness scripts; source it, do not run it.

SROCE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SROCE_CACHE=${SROCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sroce}

# Every package the harness uses on the host, in one list so that a fresh
# machine is set up by whichever entry point runs first.
SROCE_HOST_PKGS="build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio
	xz-utils zstd rsync e2fsprogs iproute2 python3 python3-matplotlib sparse
	linux-headers-amd64 linux-image-amd64 linux-source-6.1
	qemu-system-x86 qemu-system-data debootstrap busybox-static tshark
	libibverbs-dev"

log() { printf '[sroce] %s\n' "$*" >&2; }
die() { printf '[sroce] error: %s\n' "$*" >&2; exit 1; }

# need_pkgs PKG...: install the Debian packages that are not installed yet.
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing packages (run as root to install): ${missing[*]}"
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections
	apt-get update -qq || die "apt-get update failed"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install failed: ${missing[*]}"
}

need_host_pkgs() {
	# shellcheck disable=SC2086
	need_pkgs $SROCE_HOST_PKGS
}

# The Debian 6.1 kernel the guests boot and the module is built against:
# whatever linux-image-amd64 currently depends on, never a hard-coded ABI.
guest_kver() {
	ls /boot/vmlinuz-6.1.*-amd64 2>/dev/null | sed 's|/boot/vmlinuz-||' | sort -V | tail -n 1
}

# recipe_hash FILE...: a short hash of the files that make up a cached recipe.
recipe_hash() {
	cat "$@" | sha256sum | cut -c1-16
}
