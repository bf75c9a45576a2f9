#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send crafted RoCEv2 UC packets to a UC QP on the peer (hostile input).

uc-inject.py SRC_IPV6 DST_IPV6 QPN

The peer's QP (srq-test target mode) expects PSN 1000, path MTU 1024, and
has receive WQEs 0..7 of 4 KiB. Packets go from an ordinary UDP socket to
port 4791 over IPv6, whose RoCEv2 ICRC covers no field the sender's stack
chooses (IBTA Annex A17: traffic class, flow label, hop limit and the UDP
checksum are masked), so a correct ICRC can be computed here.

What the peer must see (qptypes.sh checks it): wr 0: 100 bytes of 0x01;
wr 1: 50 bytes of 0x04; wr 2: 2058 bytes of 0x05; wr 3: 20 bytes of 0x07;
wr 4: 30 bytes of 0x0b (after a SEND longer than the WQE, which is lost
and must not end the QP); wr 5: 10 bytes of 0x0c (a FIRST far ahead);
wr 6: 40 bytes of 0x0d (the stream again, behind it: UC takes a FIRST
whatever its PSN); nothing else. Counter deltas: duplicate_request 1,
out_of_seq_request 6, resp_dropped 2, rcvd_malformed_pkts 1,
rcvd_bad_icrc_pkts 1, rcvd_no_qp_pkts 1, resp_invalid_request 1.
"""
import socket
import struct
import sys
import time
import zlib

ROCE_PORT = 4791
SPORT = 49999

UC_FIRST, UC_MIDDLE, UC_LAST, UC_ONLY = 0x20, 0x21, 0x22, 0x24
RC_SEND_ONLY = 0x04


def bth(opcode, qpn, psn, paylen):
    pad = -paylen % 4
    return struct.pack("!BBHII", opcode, pad << 4, 0xFFFF, qpn & 0xFFFFFF,
                       psn & 0xFFFFFF), pad


def icrc(src, dst, udp_len, roce):
    """ICRC over the masked IPv6 and UDP headers, then BTH and payload."""
    ip6 = struct.pack("!IHBB", 0x6FFFFFFF, udp_len, 17, 0xFF) + src + dst
    udp = struct.pack("!HHHH", SPORT, ROCE_PORT, udp_len, 0xFFFF)
    masked = bytearray(roce)
    masked[4] = 0xFF            # BTH FECN, BECN, resv6a
    return zlib.crc32(b"\xff" * 8 + ip6 + udp + bytes(masked)) & 0xFFFFFFFF


def packet(src, dst, opcode, qpn, psn, payload, bad_icrc=False):
    hdr, pad = bth(opcode, qpn, psn, len(payload))
    roce = hdr + payload + b"\0" * pad
    crc = icrc(src, dst, 8 + len(roce) + 4, roce)
    if bad_icrc:
        crc ^= 1
    return roce + struct.pack("<I", crc)


def main():
    src_s, dst_s, qpn = sys.argv[1], sys.argv[2], int(sys.argv[3])
    src = socket.inet_pton(socket.AF_INET6, src_s)
    dst = socket.inet_pton(socket.AF_INET6, dst_s)
    sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    sock.bind((src_s, SPORT))

    def send(opcode, psn, payload, **kw):
        sock.sendto(packet(src, dst, opcode, qpn, psn, payload, **kw),
                    (dst_s, ROCE_PORT))
        time.sleep(0.05)

    send(UC_ONLY, 1000, b"\x01" * 100)          # wr 0
    send(UC_LAST, 1000, b"\x02" * 100)          # behind, no FIRST: duplicate
    send(UC_FIRST, 1001, b"\x03" * 1024)        # takes wr 1
    send(UC_MIDDLE, 1003, b"\x03" * 1024)       # gap: abandoned
    send(UC_LAST, 1004, b"\x03" * 10)           # rest of it: dropped
    # Truncated: a BTH cut short.
    sock.sendto(packet(src, dst, UC_ONLY, qpn, 1005, b"")[:8],
                (dst_s, ROCE_PORT))
    time.sleep(0.05)
    send(UC_ONLY, 1005, b"\x09" * 64, bad_icrc=True)
    send(UC_ONLY, 1010, b"\x04" * 50)           # resync: wr 1 again
    send(UC_FIRST, 1011, b"\x05" * 1024)        # wr 2
    send(UC_MIDDLE, 1012, b"\x05" * 1024)
    send(UC_LAST, 1013, b"\x05" * 10)
    send(UC_FIRST, 1014, b"\x06" * 1024)        # takes wr 3
    send(UC_LAST, 1016, b"\x06" * 10)           # out of order: abandoned
    send(UC_MIDDLE, 1015, b"\x06" * 1024)       # dropped
    send(UC_ONLY, 1017, b"\x07" * 20)           # resync: wr 3 again
    send(RC_SEND_ONLY, 1018, b"\x08" * 20)      # RC opcode on a UC QP
    send(UC_FIRST, 1018, b"\x0a" * 1024)        # takes wr 4 (4 KiB)
    for psn in range(1019, 1022):
        send(UC_MIDDLE, psn, b"\x0a" * 1024)
    send(UC_LAST, 1022, b"\x0a" * 10)           # 4106 bytes: lost
    send(UC_ONLY, 1023, b"\x0b" * 30)           # wr 4 again
    send(UC_ONLY, 1024 + (1 << 23) - 1, b"\x0c" * 10)  # far ahead: wr 5
    send(UC_ONLY, 1024, b"\x0d" * 40)           # behind it: wr 6
    return 0


if __name__ == "__main__":
    sys.exit(main())
