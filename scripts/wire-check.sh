#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check a capture of RoCEv2 traffic: tshark must dissect every packet on
# UDP port 4791 as well-formed InfiniBand (no malformed or error-level
# expert info), and tools/sroce-icrc-check must find every ICRC correct
# (tshark shows the ICRC but does not verify it).
#
# Usage: scripts/wire-check.sh FILE.pcap
set -u
. "$(dirname "$0")/lib.sh"
need_pkgs tshark python3

pcap=${1:?usage: $0 FILE.pcap}
[ -s "$pcap" ] || die "$pcap: missing or empty"

# Heuristics that would take RoCE payloads for other protocols (and then
# call them malformed): the payload is opaque data here.
ts=(tshark -n -r "$pcap" -d udp.port==4791,infiniband)
for h in rpcrdma_infiniband mellanox_eoib eth_over_ib fc_infiniband \
	sdp_infiniband iser_infiniband lnet_ib smb_direct_infiniband; do
	ts+=(--disable-heuristic "$h")
done
total=$("${ts[@]}" -Y 'udp.port == 4791' 2>/dev/null | wc -l)
roce=$("${ts[@]}" -Y 'infiniband.bth' 2>/dev/null | wc -l)
bad=$("${ts[@]}" -Y 'udp.port == 4791 && (_ws.malformed || _ws.expert.severity >= error)' \
	2>/dev/null | wc -l)
echo "tshark: $total packets on port 4791, $roce dissected as RoCEv2, $bad malformed"
"${ts[@]}" -T fields -e infiniband.bth.opcode -Y infiniband.bth 2>/dev/null |
	sort | uniq -c | sort -rn | awk '{ printf "  opcode %s: %d\n", $2, $1 }'
"$SROCE_TOP/tools/sroce-icrc-check" "$pcap"
icrc_rc=$?
[ "$total" -gt 0 ] && [ "$roce" -eq "$total" ] && [ "$bad" -eq 0 ] && [ $icrc_rc -eq 0 ]
