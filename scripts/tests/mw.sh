#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory windows and memory operations from userspace, run by
# scripts/vm-run.sh on two guests with sroce on both:
#
#   mw.sh        (with -f .../sroce.ko -f .../sroce_mw_test)
#
# sroce_mw_test (scripts/tests/sroce_mw_test.c, built on the host by
# scripts/test-prog-build.sh) binds type 1 and type 2B windows on guest 0,
# which guest 1 reads and writes through (data checked on both sides); out
# of window, wrong-QP, remotely and locally invalidated accesses must fail
# with a remote access error. Each of its "ok - " lines is one check.

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. /job/guest-lib.sh

dev=sroce0
port=18700
link_up sroce "$dev"
gid=$(roce_gid_index "$dev" "$GUEST_IP4") || bail "no RoCE v2 GID"
ping -c 1 -W 5 "$PEER_IP4" >/dev/null 2>&1

check "device advertises memory windows and memory management extensions" \
	bash -c "ibv_devinfo -v -d $dev | grep -q 'max_mw:.*65536' &&
		 ibv_devinfo -v -d $dev | grep -q MEM_WINDOW_TYPE_2B &&
		 ibv_devinfo -v -d $dev | grep -q MEM_MGT_EXTENSIONS"

log=/job/mw-test.log
if [ "$GUEST_ID" = 0 ]; then
	timeout 120 /job/sroce_mw_test server "$dev" "$gid" $port >"$log" 2>&1 &
	pid=$!
	barrier mw-up
	wait $pid
	rc=$?
else
	barrier mw-up
	timeout 120 /job/sroce_mw_test client "$dev" "$gid" $port "$PEER_IP4" \
		>"$log" 2>&1
	rc=$?
fi
prog_results sroce_mw_test "$rc" "$log"
barrier mw-done

rdma link delete "$dev" || fail "rdma link delete"
check "rmmod sroce" rmmod sroce
summary
