#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On-demand paging (IBV_ACCESS_ON_DEMAND), run by scripts/vm-run.sh in two
# guests (with -f .../rc-verify):
#
#   odp.sh pair TYPE0 TYPE1
#
# (and -f .../mr-edge-test). Guest N runs link type TYPEn (sroce or rxe;
# rdma_rxe before 6.15 has no ODP, and rc-verify registers a pinned MR on
# its side then). Checks:
# - on an sroce guest 0, mr-edge-test (scripts/tests/mr-edge-test.c):
#   remote accesses beside a PROT_NONE page of an ODP MR land, one to it
#   fails; ODP MRs span at most the guest's RAM together; a UD QP on an
#   SRQ with ODP buffers stays up while it loses datagrams to misses; atomics at an aligned window offset on misaligned memory are
#   invalid requests;
# - an sroce device offers RC ODP (ibv_devinfo -v: ODP_SUPPORT, and
#   SUPPORT_SEND, _RECV, _WRITE, _READ, _ATOMIC, _SRQ) but not implicit
#   ODP, which it refuses;
# - rc-verify -o 0 (ODP MRs: each page faulted in when the traffic first
#   meets it) and -o 50 (the buffers dropped from the page tables every
#   50 ms, 300 ms on the debug kernel, so that invalidations race the
#   traffic), and rc-verify -o 0 -P (each side prefetches its whole
#   buffer with the advise_mr verb first; a wrong lkey must fail), each
#   guest server in turn: every byte of SEND, WRITE, WRITE with
#   immediate, READ, fetch-and-add and compare-and-swap verified, no error
#   completion; on an sroce guest odp_faults grew, with drops
#   odp_invalidations too, odp_fault_errors did not, and after a prefetch
#   odp_misses did not either;
# - perftest's ib_write_bw, ib_read_bw and ib_send_bw --odp between two
#   sroce guests.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

[ "$1" = pair ] || bail "usage: odp.sh pair TYPE0 TYPE1"
types=("$2" "$3")
mytype=${types[$GUEST_ID]}
dev=${mytype}0
prog=/job/rc-verify
TOOL_TIMEOUT=120
[ -x $prog ] || bail "no $prog: pass -f .../rc-verify to vm-run.sh"

link_up "$mytype" "$dev"
gid=$(roce_gid_index "$dev" "$GUEST_IP4") || bail "no RoCE v2 GID for $GUEST_IP4"
addrs_ready peer
port=19300

counter() {
	cat "/sys/class/infiniband/$dev/ports/1/hw_counters/$1" 2>/dev/null || echo 0
}

if [ "$mytype" = sroce ]; then
	caps=$(ibv_devinfo -d "$dev" -v)
	sed -n '/odp_caps/,/completion_timestamp/p' <<<"$caps" | sed 's/^/# /'
	check "$dev offers ODP" grep -q ODP_SUPPORT$ <<<"$caps"
	implicit=no
	grep -q ODP_SUPPORT_IMPLICIT <<<"$caps" && implicit=yes
	check "$dev offers no implicit ODP" test $implicit = no
	rc_caps=$(tr -s '\n\t ' ' ' <<<"$caps" |
		sed -n 's/.* rc_odp_caps: \(.*\) uc_odp_caps:.*/\1/p')
	for c in SEND RECV WRITE READ ATOMIC SRQ; do
		check "$dev offers RC ODP for $c" grep -qw "SUPPORT_$c" <<<"$rc_caps"
	done
fi

# The edges of an MR, on guest 0's own device (mr-edge-test, when passed):
# an ODP MR next to a PROT_NONE page, atomics on misaligned memory.
if [ "$mytype" = sroce ] && [ "$GUEST_ID" = 0 ] && [ -x /job/mr-edge-test ]; then
	timeout "$TOOL_TIMEOUT" /job/mr-edge-test "$dev" "$gid" >/job/mr-edge-test.log 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*) pass "mr-edge-test: ${line#ok - }" ;;
		"not ok - "*) fail "mr-edge-test: ${line#not ok - }" ;;
		*) echo "# $line" ;;
		esac
	done </job/mr-edge-test.log
	check "mr-edge-test exits 0" test "$rc" -eq 0
fi

# one_run SERVER DROP_MS [-P]: rc-verify -o DROP_MS [-P]; both guests
# call it.
one_run() {
	local server=$1 drop=$2 pf=$3 log=/job/odp-$port rc spid f0 i0 e0 m0 f i e m
	local desc="rc-verify -o $drop${pf:+ $pf} (${types[$server]} server, ${types[1 - server]} client)"
	f0=$(counter odp_faults)
	i0=$(counter odp_invalidations)
	e0=$(counter odp_fault_errors)
	m0=$(counter odp_misses)
	barrier "odp-$port-setup"
	if [ "$GUEST_ID" = "$server" ]; then
		timeout 300 $prog server "$dev" "$gid" $port >"$log.server" 2>&1 &
		spid=$!
	fi
	barrier "odp-$port-up"
	if [ "$GUEST_ID" = "$server" ]; then
		wait "$spid"
		rc=$?
		sed 's/^/#   /' "$log.server"
		check "$desc, server exit $rc" test $rc -eq 0
	else
		timeout 300 $prog -o "$drop" ${pf:+"$pf"} -q 8 -w 4 -m 262144 -n 32 -s $port -T 60 \
			client "$dev" "$gid" $port "$PEER_IP4" >"$log.client" 2>&1
		rc=$?
		sed 's/^/#   /' "$log.client"
		check "$desc, client exit $rc" test $rc -eq 0
	fi
	if [ "$mytype" = sroce ]; then
		f=$(($(counter odp_faults) - f0))
		i=$(($(counter odp_invalidations) - i0))
		e=$(($(counter odp_fault_errors) - e0))
		m=$(($(counter odp_misses) - m0))
		check "$desc: $dev faulted pages in (odp_faults +$f, odp_misses +$m)" \
			test "$f" -gt 0
		# Prefetched whole and never dropped: no access may miss.
		[ -z "$pf" ] ||
			check "$desc: prefetched, no access missed (odp_misses +$m)" \
				test "$m" -eq 0
		[ "$drop" = 0 ] ||
			check "$desc: $dev's mappings were invalidated (odp_invalidations +$i)" \
				test "$i" -gt 0
		check "$desc: no fault failed (odp_fault_errors +$e)" test "$e" -eq 0
	fi
	barrier "odp-$port-done"
	port=$((port + 1))
}

for server in 0 1; do
	# Every 50 ms (passed at 20 ms too, 2026-12-05). The debug kernel
	# walks and zaps pages ten times slower: at 20 and 60 ms the buffer
	# changed nearly all the time there, and the faults gave up (-EBUSY
	# after a second of changes).
	for drop in 0 $((${TIME_FACTOR:-1} > 1 ? 300 : 50)); do
		one_run "$server" "$drop"
	done
	one_run "$server" 0 -P
done

if [ "$mytype" = sroce ] && [ "${types[0]}" = "${types[1]}" ]; then
	for t in write read send; do
		tool_pair 0 "/job/odp-ib_${t}_bw" "ib_${t}_bw --odp" \
			"ib_${t}_bw" -d "$dev" -x "$gid" -F --odp -s 65536 -n 200 -p $port
		port=$((port + 1))
	done
fi

dump_counters "$dev"
rdma link delete "$dev"
summary
