#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's own test suite (pyverbs unittest cases, from the source of
# the rdma-core the guest runs) on one device, run by scripts/vm-run.sh in
# one trixie guest with the files scripts/rdma-core-tests.sh makes and the
# runner beside this script:
#
#   vm-run.sh -d trixie -n 1 -f .../rdma-core-tests.tar.gz
#       -f .../python3-pyverbs.deb -f .../rdma-core-run.py
#       rdma-core.sh TYPE [MODULE...]
#
# TYPE is sroce or rxe. The MODULEs (default: every module that is not
# for another device, below) run in one python process (rdma-core-run.py,
# which prints each case's outcome), both sides of each test in that
# process on the one device (the loopback path). Every test case is a check: ok
# passes, FAIL or ERROR fails, and a skip passes only for a reason listed
# below, each a capability the device or the stock rxe provider does not
# offer; any other skip fails, so that a capability lost shows.
#
# Not run: test_parent_domain (the rxe provider has no parent domains, all
# its cases skip, and python then dies of SIGSEGV in libibverbs at exit,
# on rdma_rxe alike), the mlx5, efa and irdma modules, and test_flow and
# test_rss_traffic (raw packet QPs).

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

type=${1:-}
shift
[ "$type" = sroce ] || [ "$type" = rxe ] || bail "usage: rdma-core.sh sroce|rxe [MODULE...]"
dev=${type}0
modules=("$@")
[ ${#modules[@]} -gt 0 ] ||
	modules=(test_addr test_atomic test_cq test_cq_events test_cqex test_device
		test_fork test_mr test_odp test_pd test_qp test_qpex test_rdmacm
		test_relaxed_ordering test_shared_pd test_srq test_tag_matching)

# Skips that are a missing capability, not a fault (extended regexps on
# the reason unittest prints):
expected_skips=(
	# No on-chip memory, GPU or imported device on a software device.
	'Device memory is not supported'
	'Device /dev/dri/renderD128 is not present'
	'Importing a device is not supported'
	# Not in the rxe provider: XRC (issue 12 item 7), parent domains,
	# rereg_mr, extended CQs, raw packet QPs.
	'Create XRCD is not supported'
	'Parent Domain is not supported'
	'Rereg MR is not supported'
	'Extended CQ is not supported'
	'Create Raw Packet QP .* is not supported'
	# The provider fails ibv_advise_mr() in userspace (rc-verify -P
	# prefetches through ibv_cmd_advise_mr() instead: odp.sh).
	'Advise MR with flags \(.*\) and advice \(.*\) is not supported'
	# ODP: implicit MRs are refused, UD is not offered
	# (Documentation/sroce.rst, "On-demand paging"); rdma_rxe before
	# 6.15 has none.
	'ODP implicit is not supported'
	'ODP is unavailable - Operation not supported on this device'
)
if [ "$type" = sroce ]; then
	expected_skips+=(
		# RDMA FLUSH is refused (IB_ACCESS_FLUSH_*: EOPNOTSUPP).
		'Create custom mr with additional access flags 258 is not supported'
	)
else
	expected_skips+=('ODP (.* )?is not supported')
fi

# expected REASON: the skip REASON is one of expected_skips.
expected() {
	local re
	for re in "${expected_skips[@]}"; do
		[[ $1 =~ $re ]] && return 0
	done
	return 1
}

dpkg -i /job/python3-pyverbs.deb >/job/dpkg.log 2>&1 ||
	{ sed 's/^/#   /' /job/dpkg.log; bail "cannot install python3-pyverbs"; }
mkdir -p /job/rdma-core && { tar -xzf /job/rdma-core-tests.tar.gz -C /job/rdma-core ||
	bail "cannot unpack the tests"; }
link_up "$type" "$dev"
gid=$(roce_gid_index "$dev" "$GUEST_IP4") || bail "no RoCE v2 GID for $GUEST_IP4"
# For the huge page cases (test_odp's and test_mr's).
echo 16 >/proc/sys/vm/nr_hugepages

log=/job/rdma-core
list=${modules[*]}
timeout 500 python3 /job/rdma-core-run.py /job/rdma-core/tests "${list// /,}" \
	--dev "$dev" --gid "$gid" >"$log.cases" 2>"$log.log"
rc=$?
while read -r _ id outcome reason; do
	# tests.test_odp.OdpTestCase.test_odp_rc_traffic
	name="${id#tests.}"
	name="${name%%.*}: ${id##*.}"
	case $outcome in
	ok) pass "$name${reason:+ ($reason)}" ;;
	skipped)
		if expected "$reason"; then
			pass "$name skipped: $reason"
		else
			fail "$name skipped for an unexpected reason: $reason"
		fi
		;;
	*) fail "$name: $outcome: $reason" ;;
	esac
done < <(grep '^CASE ' "$log.cases")
for m in "${modules[@]}"; do
	check "$m: cases ran ($(grep -c "^CASE tests\.$m\." "$log.cases"))" \
		grep -q "^CASE tests\.$m\." "$log.cases"
done
if ! check "the suite's python exited $rc" test "$rc" -eq 0; then
	grep -E -A20 '^(ERROR|FAIL):|Traceback' "$log.log" | head -n 60 | sed 's/^/#   /'
fi
dmesg | grep -E 'segfault' | sed 's/^/# /'
rdma link delete "$dev"
summary
