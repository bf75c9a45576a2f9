#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send hand-made RoCEv2 packets with a valid ICRC to a peer (guest job aid).

Usage: roce-inject.py SRC_IP4 DST_IP4 CASE [CASE...]

Each CASE is KIND:QPN[:ARG], one packet:
  ud:QPN:QKEY[:LEN]   UD SEND ONLY with DETH Q_Key QKEY and LEN payload bytes
  short-deth:QPN      UD SEND ONLY cut off 4 bytes into its DETH
  rc:QPN              RC SEND ONLY with 16 bytes of payload
  to:ADDR             send the CASEs after it to ADDR (a broadcast one too)
Numbers may be hex (0x...). The IPv4 header is built here (raw socket) so
that the ICRC, which covers the IP identification, is right on the wire.
"""
import socket
import struct
import sys
import zlib

ROCE_PORT = 4791


def icrc(ip):
    """The ICRC over an IPv4 RoCEv2 packet (IBTA Annex A17.4.1)."""
    masked = bytearray(ip[:20 + 8 + 12])
    masked[1] = 0xFF                      # TOS
    masked[8] = 0xFF                      # TTL
    masked[10:12] = b"\xff\xff"           # header checksum
    masked[26:28] = b"\xff\xff"           # UDP checksum
    masked[32] = 0xFF                     # BTH FECN, BECN, resv6a
    return zlib.crc32(b"\xff" * 8 + bytes(masked) + bytes(ip[40:])) & 0xFFFFFFFF


def packet(src, dst, opcode, qpn, ext, payload, psn=0x123, ackreq=False):
    """An IPv4 RoCEv2 packet, IP header on, for a raw IP socket."""
    pad = -len(payload) % 4
    bth = struct.pack("!BBHII", opcode, pad << 4, 0xFFFF, qpn & 0xFFFFFF,
                      (ackreq << 31) | (psn & 0xFFFFFF))
    l4 = bth + ext + payload + b"\0" * pad
    udp_len = 8 + len(l4) + 4
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, 0x1234, 0x4000,
                     64, socket.IPPROTO_UDP, 0, socket.inet_aton(src),
                     socket.inet_aton(dst))
    udp = struct.pack("!HHHH", 0xC123, ROCE_PORT, udp_len, 0)
    body = bytearray(ip + udp + l4)
    return bytes(body) + struct.pack("<I", icrc(body))


def build(src, dst, case):
    kind, *args = case.split(":")
    nums = [int(a, 0) for a in args]
    if kind == "ud":
        qpn, qkey = nums[0], nums[1]
        length = nums[2] if len(nums) > 2 else 16
        deth = struct.pack("!II", qkey, 0x42)
        return packet(src, dst, 0x64, qpn, deth, b"\xa5" * length)
    if kind == "short-deth":
        return packet(src, dst, 0x64, nums[0], b"\x80\x01", b"")
    if kind == "rc":
        return packet(src, dst, 0x04, nums[0], b"", b"\x5a" * 16)
    raise SystemExit(f"unknown case {case}")


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    for case in sys.argv[3:]:
        if case.startswith("to:"):
            dst = case[3:]
            continue
        s.sendto(build(src, dst, case), (dst, 0))
        print(f"sent {case} to {dst}")


if __name__ == "__main__":
    main()
