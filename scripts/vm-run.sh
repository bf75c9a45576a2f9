#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a job script in N QEMU guests (TCG, 1 vCPU each) joined by a bridge
# inside a private network namespace, then collect and judge the results.
#
#   scripts/vm-run.sh [-n NGUESTS] [-t TIMEOUT_S] [-m MTU] [-o OUTDIR]
#                     [-d RELEASE[,RELEASE...]] [-k stock|debug] [-c VCPUS]
#                     [-Q QUEUES] [-q QEMU_ROOT] [-f FILE]... JOB_SCRIPT [ARGS...]
#
# -c 2 gives each guest two vCPUs (multi-threaded TCG: one host core each),
# for a job that is a whole network in one guest (cc-netns.sh).
# -Q 2 gives each guest's virtio-net two queue pairs (a multiqueue tap),
# like a NIC with a transmit queue per CPU; with -c 2 the guest's driver
# maps CPU n's transmissions to queue n (XPS).
# -d picks the Debian release the guests boot (scripts/guest-image.sh -d):
# bookworm (6.1, the default) or trixie (6.12), one for all guests or one
# per guest (-d bookworm,trixie: guest 0 bookworm, guest 1 trixie). Each
# guest gets the -f .ko files built for its own kernel (so one sroce.ko per
# kernel, under the same name, makes /job/sroce.ko the right one in each)
# and every other -f file.
# -q boots the guests with the QEMU unpacked under QEMU_ROOT
# (scripts/qemu-backports.sh: 10.x, whose virtio-net offers UDP
# segmentation offload) instead of the host's.
# -k debug boots scripts/debug-kernel.sh's kernel (KASAN, lockdep, kmemleak,
# ...) instead of Debian's: every timeout is DEBUG_SLOWDOWN times longer,
# sroce is unloaded and kmemleak scans after the job, and any leak fails the
# run. A .ko passed with -f must be built for the kernel that boots.
#
# Each guest gets its own 9p share, mounted at /job, with run.sh (the job),
# guest-lib.sh, the -f files and an env file (GUEST_ID, NGUESTS, MTU,
# GUEST_IP4/6, PEER_IP4/6, JOB_TIMEOUT, TIME_FACTOR: 1, or DEBUG_SLOWDOWN
# with -k debug), plus /shared, common to all guests.
# Guest N is 10.77.0.(N+1)/24 and fd77::(N+1)/64; its peer is the next guest
# round the ring. Per guest, OUTDIR/guestN/ gets console.log, qemu.log,
# job.log, rc, dmesg and whatever else the job left in /job.
#
# Exits 0 only if every guest ran its job to rc 0 and no kernel warning,
# oops, BUG, panic or other debug-kernel report shows in its dmesg or
# console.
#
# No set -e: result collection and cleanup must run to the end whatever fails.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Boot, module loading and power-off on top of the job's own timeout; a
# loaded 2-core host has been seen to take 20 s to boot a guest.
BOOT_MARGIN=90
# From QEMU's start to the job's (guest-init's job.log), the longest a
# booting guest's console may stay silent (the debug kernel's longest pause
# seen is 9 s), and how many boots guests stuck before their job get (see
# boot_guests' caller).
BOOT_WAIT=40
BOOT_STALL=15
BOOT_TRIES=5
# Under TCG, KASAN and lockdep slow the guest kernel down about this much.
DEBUG_SLOWDOWN=3
# Kernel trouble that fails a run even when the job passed. Most reports
# carry a WARNING: or BUG: line; the others are named: debug objects,
# list and refcount checks, the hung task detector, and lockdep switching
# itself off (not a bare "lockdep": the debug kernel's boot log says "RCU
# lockdep checking is enabled"), nor a bare "general protection fault":
# the kernel logs a user process's fault as "traps: NAME[PID] general
# protection fault ip:...", which the job's own checks judge, and its own
# as "general protection fault, probably for ..." or "...fault: 0000".
# Reports of the kernel's own code that sroce cannot cause, left out of the
# judging from their first line to KASAN's closing rule of '=' (each is
# still logged). 6.1's rdma_rxe reads one map pointer past its MR's map
# array when a copy ends on the last buffer (rxe_mr_copy; gone with the
# MR rewrite of 6.2): KASAN reports it on the rdma_rxe guest of every RC
# interop run, from rxe_requester, on an MR rxe itself registered.
KERNEL_KNOWN='BUG: KASAN: slab-out-of-bounds in rxe_mr_copy[+]'
KERNEL_BAD='WARNING:|BUG:|Oops|Call Trace|sleeping function called|KASAN|KFENCE|locking correctness validator|possible circular locking|possible recursive locking|inconsistent lock state|ODEBUG|list_(add|del) corruption|refcount_t:|blocked for more than|general protection fault[,:]|[Kk]ernel panic'

usage() {
	sed -n '7,9p' "${BASH_SOURCE[0]}" | sed 's/^#//' >&2
	exit 2
}

nguests=2 timeout=300 mtu=1500 kernel=stock releases=bookworm outdir='' vcpus=1 queues=1
files=() qemu=qemu-system-x86_64 qemu_dirs=()
while getopts n:t:m:o:d:k:c:Q:q:f:h opt; do
	case $opt in
	n) nguests=$OPTARG ;;
	t) timeout=$OPTARG ;;
	m) mtu=$OPTARG ;;
	o) outdir=$OPTARG ;;
	d) releases=$OPTARG ;;
	k) kernel=$OPTARG ;;
	c) vcpus=$OPTARG ;;
	Q) queues=$OPTARG ;;
	q)
		qemu=$OPTARG/usr/bin/qemu-system-x86_64
		# Its own data first, then the host's firmware (SeaBIOS).
		qemu_dirs=(-L "$OPTARG/usr/share/qemu" -L /usr/share/seabios -L /usr/lib/ipxe/qemu)
		[ -x "$qemu" ] || die "-q: no $qemu"
		;;
	f) files+=("$OPTARG") ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
job=$1
shift
job_args=("$@")
in_range() { [[ $1 =~ ^[0-9]+$ ]] && (($2 <= $1 && $1 <= $3)); }
in_range "$nguests" 1 16 || die "-n wants 1..16 guests"
in_range "$timeout" 1 86400 || die "-t wants seconds"
in_range "$mtu" 1280 9000 || die "-m wants an MTU in 1280..9000"
in_range "$vcpus" 1 2 || die "-c wants 1 or 2 vCPUs"
in_range "$queues" 1 2 || die "-Q wants 1 or 2 queue pairs"
[[ $kernel == stock || $kernel == debug ]] || die "-k wants stock or debug"
IFS=, read -ra release <<<"$releases"
[ ${#release[@]} -eq 1 ] || [ ${#release[@]} -eq "$nguests" ] ||
	die "-d wants one release or one per guest ($nguests)"
for r in "${release[@]}"; do
	[[ $r == bookworm || $r == trixie ]] || die "-d wants bookworm or trixie, not '$r'"
done
[ -r "$job" ] || die "no job script $job"
for f in "${files[@]}"; do
	[ -f "$f" ] || die "no file $f"
done
[ "$(id -u)" -eq 0 ] || die "needs root (network namespace and tap devices)"
need_pkgs qemu-system-x86 iproute2 rsync util-linux

# image[i], kver[i]: guest i's. -d with one release holds for every guest.
declare -A image_of
image=() kver=()
for ((i = 0; i < nguests; i++)); do
	r=${release[i]:-${release[0]}}
	[ -n "${image_of[$r]:-}" ] || image_of[$r]=$("$SROCE_TOP/scripts/guest-image.sh" \
		-d "$r" "$kernel") || die "guest image build failed"
	image+=("${image_of[$r]}")
	kver+=("$(cat "${image_of[$r]}/kver")")
done
# insmod would refuse a module built for another kernel; say so here.
declare -A vermagic
for f in "${files[@]}"; do
	[[ $f == *.ko ]] || continue
	vermagic[$f]=$(modinfo -F vermagic "$f" | cut -d' ' -f1)
	[[ " ${kver[*]} " == *" ${vermagic[$f]} "* ]] ||
		die "$f is built for ${vermagic[$f]}, not for the $kernel kernel" \
			"$(printf '%s\n' "${kver[@]}" | sort -u | paste -sd ' ')"
done
mem=1024 factor=1 append='' cpu=max
if [ "$kernel" = debug ]; then
	# Room for KASAN's shadow and quarantine and kmemleak's metadata.
	mem=1536 factor=$DEBUG_SLOWDOWN
	# Enabling each ACPI PCI interrupt link took 19 s under TCG on this
	# kernel (76 s of a 85 s boot, one per virtio device); the PIRQ table
	# routes the same interrupts at once (boot to init in 16 s). KASAN
	# reports every bad access, not only the first: a known report
	# (KERNEL_KNOWN) must not hide the next one; a log buffer that holds
	# every report, known ones included (rdma_rxe's come by the hundred).
	append=" acpi=noirq kasan_multi_shot log_buf_len=16M"
	# Without 5-level paging. identify_cpu() clears the boot CPU's feature
	# words before reading them again, and an interrupt in between sees no
	# LA57, so pgtable_l5_enabled() is false and KASAN takes every access
	# for a wild one: a flood of reports that stalled 1 boot in 7.
	cpu=max,la57=off
	timeout=$((timeout * factor))
	BOOT_MARGIN=$((BOOT_MARGIN * factor))
	BOOT_WAIT=$((BOOT_WAIT * factor)) BOOT_STALL=$((BOOT_STALL * factor))
fi
outdir=${outdir:-$SROCE_TOP/out/vm-$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$outdir" || die "cannot create $outdir"
# A run killed with SIGKILL could not clean up (its QEMUs died with it):
# drop the namespaces and work directories of runs that no longer exist.
for old in $(ip netns list | awk '$1 ~ /^sroce-vm-[0-9]+$/ { print $1 }'); do
	kill -0 "${old#sroce-vm-}" 2>/dev/null || ip netns del "$old"
done
for old in "${TMPDIR:-/tmp}"/sroce-vm-[0-9]*.*; do
	pid=${old##*/sroce-vm-}
	[ ! -d "$old" ] || kill -0 "${pid%%.*}" 2>/dev/null || rm -rf "$old"
done
# One set of guests at a time on this host: TCG guests competing for two
# cores stall for seconds, long enough to trip transport timers.
exec 8>"$SROCE_CACHE/vm.lock"
flock 8
ns=sroce-vm-$$
work=$(mktemp -d "${TMPDIR:-/tmp}/sroce-vm-$$.XXXXXX") || die "mktemp failed"
# QEMU option values cannot hold a comma.
[[ $outdir$work${image[*]} != *,* ]] || die "no commas in paths, please: $outdir $work"
pids=()

# alive PID: the QEMU process has not exited. Children are only reaped
# (waited for) after the last kill, so a PID cannot be reused meanwhile and
# an exited one shows as a zombie.
alive() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

any_alive() {
	local pid
	for pid in "${pids[@]}"; do
		alive "$pid" && return 0
	done
	return 1
}

stop_guests() {
	local pid i
	for pid in "${pids[@]}"; do
		alive "$pid" && kill -TERM "$pid" 2>/dev/null
	done
	for ((i = 0; i < 50; i++)); do
		any_alive || break
		sleep 0.1
	done
	for pid in "${pids[@]}"; do
		alive "$pid" && kill -KILL "$pid" 2>/dev/null
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null
	done
	pids=()
}

cleanup() {
	trap - EXIT INT TERM
	stop_guests
	ip netns del "$ns" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The link: one tap per guest on a bridge, all inside our own namespace.
ip netns add "$ns" || die "cannot create network namespace $ns"
ip -n "$ns" link set lo up
# Without IPv6 the bridge and taps send nothing of their own (router
# solicitations, MLD) into the guests: the link carries only guest traffic.
ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1
ip -n "$ns" link add br0 type bridge stp_state 0 mcast_snooping 0 || die "cannot create bridge"
tap_mq=() netdev_mq="" nic_mq=""
if [ "$queues" -gt 1 ]; then
	# One vector per queue and direction, one for configuration changes.
	tap_mq=(multi_queue) netdev_mq=",queues=$queues"
	nic_mq=",mq=on,vectors=$((2 * queues + 2))"
fi
for ((i = 0; i < nguests; i++)); do
	ip -n "$ns" tuntap add dev "tap$i" mode tap "${tap_mq[@]}" || die "cannot create tap$i"
	ip -n "$ns" link set "tap$i" master br0 mtu "$mtu" up || die "cannot set up tap$i"
done
# After the ports: a bridge's MTU follows its ports until set explicitly.
ip -n "$ns" link set br0 mtu "$mtu" up || die "cannot bring up the bridge"

# boot_guests: fresh job directories and shares, and one QEMU per guest.
boot_guests() {
	local i g p

	rm -rf "$work/shared" "$work"/g[0-9]*
	mkdir -p "$work/shared"
	for ((i = 0; i < nguests; i++)); do
		g=$work/g$i
		mkdir -p "$g" "$outdir/guest$i"
		rm -f "$outdir/guest$i"/{job.log,rc,dmesg,kmemleak,teardown}
		cp "$job" "$g/run.sh"
		cp "$SROCE_TOP/scripts/tests/guest-lib.sh" "$g/guest-lib.sh"
		for f in "${files[@]}"; do
			[[ $f != *.ko || ${vermagic[$f]} == "${kver[i]}" ]] || continue
			cp "$f" "$g/"
		done
		p=$(((i + 1) % nguests))
		{
			echo "GUEST_ID=$i NGUESTS=$nguests MTU=$mtu JOB_TIMEOUT=$timeout TIME_FACTOR=$factor"
			echo "GUEST_IP4=10.77.0.$((i + 1)) GUEST_IP6=fd77::$((i + 1))"
			[ "$nguests" -lt 2 ] || echo "PEER_IP4=10.77.0.$((p + 1)) PEER_IP6=fd77::$((p + 1))"
			printf 'JOB_ARGS=('
			[ ${#job_args[@]} -eq 0 ] || printf '%q ' "${job_args[@]}"
			echo ')'
		} >"$g/env"

		# TMPDIR: where snapshot=on puts the disk overlay, removed with
		# $work. --pdeathsig: QEMU dies with this script, even on SIGKILL.
		# maxcpus=2 with one vCPU: QEMU before 8.1 (bookworm has 7.2)
		# translates a guest's memory barriers and locked instructions
		# into nothing when no second vCPU can exist ("tcg: Do not elide
		# memory barriers for !CF_PARALLEL in system mode", 8.1), and
		# virtio's rings are shared with QEMU's I/O thread: a virtqueue
		# then misses its notification now and then and stays stuck
		# (Documentation/testing.rst, "Stuck virtio queues").
		TMPDIR=$work setpriv --pdeathsig KILL ip netns exec "$ns" "$qemu" "${qemu_dirs[@]}" \
			-name "guest$i" -nodefaults -no-user-config \
			-machine pc -accel tcg -cpu "$cpu" -smp "$vcpus,maxcpus=2" -m "$mem" \
			-display none -monitor none -no-reboot \
			-serial "file:$outdir/guest$i/console.log" \
			-kernel "${image[i]}/kernel" -initrd "${image[i]}/initramfs.cpio" \
			-append "console=ttyS0 panic=-1 mitigations=off$append" \
			-drive "file=${image[i]}/rootfs.ext4,if=virtio,format=raw,snapshot=on" \
			-netdev "tap,id=net0,ifname=tap$i,script=no,downscript=no$netdev_mq" \
			-device "virtio-net-pci,netdev=net0,mac=52:54:00:77:00:$(printf %02x $((i + 1)))$nic_mq" \
			-virtfs "local,path=$g,mount_tag=job,security_model=none,id=job" \
			-virtfs "local,path=$work/shared,mount_tag=shared,security_model=none,id=shared" \
			</dev/null >"$outdir/guest$i/qemu.log" 2>&1 &
		pids+=($!)
	done
}

# booted: every guest has started its job (guest-init creates job.log
# first) or, having finished already, powered off.
booted() {
	local i

	for ((i = 0; i < nguests; i++)); do
		[ -e "$work/g$i/job.log" ] || ! alive "${pids[i]}" || return 1
	done
}

# A guest that has not reached its job after BOOT_WAIT s, or whose console
# has been silent for BOOT_STALL s before it, is stuck in its kernel's
# boot, before sroce or the job can have run: all guests boot again, up to
# BOOT_TRIES times, and the stuck console is kept as console.stuck-N.log.
# Seen on the debug kernel under TCG, 1 boot in 5 to 10, until its config
# left out TASKS_RCU: 6.1's RCU-tasks self-test at boot (PROVE_RCU) never
# returned from synchronize_rcu_tasks(), with the vCPU idle and its tick
# running (Documentation/testing.rst).
tries=0 boot_stuck=0
while :; do
	tries=$((tries + 1))
	boot_guests
	log "vm-run: $nguests guests running $(basename "$job") ${job_args[*]}, results in $outdir"
	boot_deadline=$((SECONDS + BOOT_WAIT)) stalled=0
	console_size=() console_grew=()
	while ! booted && [ $SECONDS -lt $boot_deadline ] && [ $stalled -eq 0 ]; do
		sleep 0.5
		for ((i = 0; i < nguests; i++)); do
			size=$(stat -c %s "$outdir/guest$i/console.log" 2>/dev/null || echo 0)
			if [ "$size" != "${console_size[i]:-}" ]; then
				console_size[i]=$size console_grew[i]=$SECONDS
			elif [ ! -e "$work/g$i/job.log" ] && [ $((SECONDS - console_grew[i])) -ge $BOOT_STALL ]; then
				stalled=1
			fi
		done
	done
	booted && break
	for ((i = 0; i < nguests; i++)); do
		[ -e "$work/g$i/job.log" ] || ! alive "${pids[i]}" && continue
		log "guest$i: no job after $((SECONDS - boot_deadline + BOOT_WAIT)) s, console ends: $(tail -n 1 "$outdir/guest$i/console.log" | tr -d '\r')"
		cp "$outdir/guest$i/console.log" "$outdir/guest$i/console.stuck-$tries.log"
	done
	[ $tries -lt $BOOT_TRIES ] || { boot_stuck=1 && break; }
	stop_guests
	log "vm-run: booting the guests again ($((tries + 1)) of $BOOT_TRIES)"
done

deadline=$((SECONDS + timeout + BOOT_MARGIN))
[ $boot_stuck -eq 0 ] || deadline=$SECONDS
while any_alive && [ $SECONDS -lt $deadline ]; do
	sleep 0.5
done
timed_out=()
for ((i = 0; i < nguests; i++)); do
	alive "${pids[i]}" && timed_out+=("$i")
done
stop_guests

# Judge and report each guest. Everything the job left in /job is kept,
# less what we put there.
keep_out=(--exclude=/run.sh --exclude=/guest-lib.sh)
for f in "${files[@]}"; do
	keep_out+=("--exclude=/$(basename "$f")")
done
failed=()
for ((i = 0; i < nguests; i++)); do
	g=$work/g$i
	o=$outdir/guest$i
	rsync -a "${keep_out[@]}" "$g/" "$o/"
	[ -f "$o/job.log" ] && sed "s/^/[guest$i] /" "$o/job.log"

	why=()
	if [ $boot_stuck -eq 1 ] && [ ! -e "$g/job.log" ]; then
		why+=("never reached its job: its kernel's boot stuck $BOOT_TRIES times")
	elif [[ " ${timed_out[*]} " == *" $i "* ]]; then
		why+=("killed after the host timeout of $((timeout + BOOT_MARGIN)) s")
	fi
	if [ ! -s "$o/rc" ]; then
		why+=("no exit status written (crashed, hung or never booted)")
	elif [ "$(cat "$o/rc")" != 0 ]; then
		why+=("job exited $(cat "$o/rc")")
	fi
	# The serial console ends its lines with \r\n.
	cat "$o/dmesg" "$o/console.log" 2>/dev/null | tr -d '\r' |
		grep -E "$KERNEL_KNOWN" | sort -u | sed "s/^/[sroce] guest$i: known, not judged: /" >&2
	mapfile -t bad < <(cat "$o/dmesg" "$o/console.log" 2>/dev/null | tr -d '\r' |
		awk -v known="$KERNEL_KNOWN" '$0 ~ known { skip = 1 }
			!skip { print }
			skip && /^(\[ *[0-9.]+\] )?=+$/ { skip = 0 }' |
		grep -E "$KERNEL_BAD" | sort -u | head -n 20)
	[ ${#bad[@]} -eq 0 ] || why+=("kernel trouble in dmesg/console:" "${bad[@]/#/  }")
	if [ "$kernel" = debug ]; then
		[ ! -s "$o/teardown" ] || why+=("after the job: $(cat "$o/teardown")")
		if [ ! -f "$o/kmemleak" ]; then
			why+=("no kmemleak report (the post-job scan did not finish)")
		elif grep -q 'unreferenced object' "$o/kmemleak"; then
			why+=("kmemleak: $(grep -c 'unreferenced object' "$o/kmemleak") unreferenced objects, first:")
			mapfile -t leak < <(head -n 25 "$o/kmemleak")
			why+=("${leak[@]/#/  }")
		fi
	fi

	oks=$(grep -c '^ok - ' "$o/job.log" 2>/dev/null)
	noks=$(grep -c '^not ok - ' "$o/job.log" 2>/dev/null)
	if [ ${#why[@]} -eq 0 ]; then
		log "guest$i: PASS (${oks:-0} ok, ${noks:-0} not ok)"
		continue
	fi
	failed+=("$i")
	log "guest$i: FAIL (${oks:-0} ok, ${noks:-0} not ok)"
	printf '[sroce]   %s\n' "${why[@]}" >&2
	log "guest$i: last console lines ($o/console.log):"
	tail -n 25 "$o/console.log" 2>/dev/null | sed 's/^/[sroce]   | /' >&2
	[ -s "$o/qemu.log" ] && sed 's/^/[sroce]   qemu: /' "$o/qemu.log" >&2
done

if [ ${#failed[@]} -ne 0 ]; then
	log "vm-run: FAIL (guests ${failed[*]}), logs in $outdir"
	exit 1
fi
log "vm-run: PASS, logs in $outdir"
