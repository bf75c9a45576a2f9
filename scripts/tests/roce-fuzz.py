#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile RoCEv2 packets toward a peer's live queue pairs (guest job aid).

Usage: roce-fuzz.py [options] INFO

INFO holds the peer's targets as shell assignments (sroce_fuzz_test
target writes it): RC4_QPNS, RC6_QPNS, REQ_QPNS, UD_QPN, RQ_PSN, SQ_PSN,
UD_QKEY, RKEY, VA, MR_LEN. Frames are built whole (Ethernet, IPv4 or IPv6,
UDP, BTH...) and sent from an AF_PACKET socket, so every field is ours,
with a correct ICRC unless the case is about the ICRC.

Every packet is classified here the way the receive path must count it
(parse rules of sroce_pkt_parse, ICRC, P_Key), and the expected counter
deltas are written to --expect as "COUNTER exact N" or "COUNTER min N".
The same --seed gives the same packets.
"""
import argparse
import random
import socket
import struct
import sys
import time
import zlib

ROCE_PORT = 4791

# opcode: (header bytes after BTH, may carry payload, ends a message); every
# opcode the receiver parses, FLUSH (0x1c: FETH, RETH) included, which it
# counts as received and then refuses with an invalid request NAK.
OPS = {}
for base in (0x00, 0x20):            # RC and UC: SEND and RDMA WRITE
    OPS.update({base + 0x00: (0, 1, 0), base + 0x01: (0, 1, 0),
                base + 0x02: (0, 1, 1), base + 0x03: (4, 1, 1),
                base + 0x04: (0, 1, 1), base + 0x05: (4, 1, 1),
                base + 0x06: (16, 1, 0), base + 0x07: (0, 1, 0),
                base + 0x08: (0, 1, 1), base + 0x09: (4, 1, 1),
                base + 0x0a: (16, 1, 1), base + 0x0b: (20, 1, 1)})
OPS.update({0x0c: (16, 0, 1), 0x0d: (4, 1, 0), 0x0e: (0, 1, 0),
            0x0f: (4, 1, 1), 0x10: (4, 1, 1), 0x11: (4, 0, 1),
            0x12: (12, 0, 1), 0x13: (28, 0, 1), 0x14: (28, 0, 1),
            0x16: (4, 1, 1), 0x17: (4, 1, 1), 0x1c: (20, 0, 1),
            0x1d: (16, 1, 1),
            0x64: (8, 1, 1),
            0x65: (12, 1, 1), 0x81: (16, 0, 1)})
RC_REQS = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
           0x0b, 0x0c, 0x13, 0x14, 0x16, 0x17, 0x1d]
RC_RESPS = [0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12]
MAX_L4 = 1500 - 40 - 8 - 4     # BTH onward, without ICRC, in an IPv6 MTU
NO_QPN_BASE = 0xF00000          # far above any QPN a fresh device hands out


def crc(data):
    return zlib.crc32(b"\xff" * 8 + data) & 0xFFFFFFFF


def icrc(l3, v6):
    """The ICRC over IP header .. end (IBTA Annex A17.4.1 masking)."""
    m = bytearray(l3)
    if v6:
        m[0:4] = b"\x6f\xff\xff\xff"      # version kept; TC, flow label
        m[7] = 0xFF                       # hop limit
        u = 40
    else:
        m[1] = 0xFF                       # TOS
        m[8] = 0xFF                       # TTL
        m[10:12] = b"\xff\xff"            # header checksum
        u = (m[0] & 0xF) * 4
    m[u + 6:u + 8] = b"\xff\xff"          # UDP checksum
    if len(m) > u + 12:
        m[u + 12] = 0xFF                  # BTH FECN, BECN, resv6a
    return crc(bytes(m))


def csum16(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


class Wire:
    """Builds and sends frames to the peer."""

    def __init__(self, args):
        self.a = args
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.sock.bind((args.iface, 0))
        self.smac = self.sock.getsockname()[4]
        self.dmac = bytes.fromhex(args.dmac.replace(":", ""))
        self.ipid = 0

    def frame(self, l4, v6, icrc_ok=True, src=None, ipopt=False):
        """l4 = BTH onward without the ICRC; the ICRC is appended."""
        a = self.a
        sport = 0xC000 | random.getrandbits(14)
        udp_len = 8 + len(l4) + 4
        if v6:
            src6 = socket.inet_pton(socket.AF_INET6, src or a.src6)
            dst6 = socket.inet_pton(socket.AF_INET6, a.dst6)
            ip = struct.pack("!IHBB", 0x60000000, udp_len, 17, 64) + \
                src6 + dst6
            ethertype = 0x86DD
        else:
            self.ipid = (self.ipid + 1) & 0xFFFF
            opt = b"\x01\x01\x01\x00" if ipopt else b""   # NOP NOP NOP EOL
            ihl = 5 + len(opt) // 4
            ip = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0,
                             ihl * 4 + udp_len, self.ipid, 0x4000, 64, 17, 0,
                             socket.inet_aton(src or a.src4),
                             socket.inet_aton(a.dst4)) + opt
            ip = ip[:10] + struct.pack("!H", csum16(ip)) + ip[12:]
            ethertype = 0x0800
        udp = struct.pack("!HHHH", sport, ROCE_PORT, udp_len, 0)
        body = ip + udp + l4
        c = icrc(body, v6)
        if not icrc_ok:
            c ^= random.randrange(1, 1 << 32)
        body += struct.pack("<I", c)
        if v6:      # UDP over IPv6 needs its checksum (RFC 8200 8.1)
            u = udp_len
            pseudo = src6 + dst6 + struct.pack("!IxxxB", u, 17)
            s = csum16(pseudo + body[40:]) or 0xFFFF
            body = body[:46] + struct.pack("!H", s) + body[48:]
        return self.dmac + self.smac + struct.pack("!H", ethertype) + body

    def send(self, frame):
        self.sock.send(frame)


def bth(op, qpn, psn, pad=0, pkey=0xFFFF, tver=0, se=0, ackreq=0):
    return struct.pack("!BBHII", op & 0xFF,
                       (se << 7) | ((pad & 3) << 4) | (tver & 0xF),
                       pkey, qpn & 0xFFFFFF,
                       (ackreq << 31) | (psn & 0xFFFFFF))


def classify(l4, icrc_ok, ipopt=False):
    """How the receiver must count this packet: malformed, bad_icrc, or
    good (rcvd_pkts; good_badpkey also counts as malformed)."""
    n = len(l4) + 4                               # with the ICRC
    if ipopt or n < 12:
        return "malformed"
    op = l4[0]
    if op not in OPS or l4[1] & 0xF:
        return "malformed"
    hdr, payload, last = OPS[op]
    if n < 12 + hdr + 4 or n % 4:
        return "malformed"
    pad = (l4[1] >> 4) & 3
    room = n - 12 - hdr - 4
    if not payload:
        if pad or room:
            return "malformed"
    elif pad > room or (pad and not last):
        return "malformed"
    if not icrc_ok:
        return "bad_icrc"
    if (struct.unpack("!H", l4[2:4])[0] & 0x7FFF) != 0x7FFF:
        return "good_badpkey"
    return "good"


class Fuzzer:
    def __init__(self, args, info):
        self.a = args
        self.t = info
        self.w = Wire(args)
        self.counts = {}
        self.classes = {}
        self.sent = 0
        self.min = {}

    def rnd_payload(self, n):
        return random.getrandbits(8 * n).to_bytes(n, "little") if n else b""

    def ext(self, op, **kw):
        """Well-formed extension headers of OP, fields from kw or random."""
        t = self.t
        r = random.getrandbits
        va = kw.get("va", t["VA"] + r(12))
        rkey = kw.get("rkey", t["RKEY"])
        dlen = kw.get("dlen", r(10))
        if op in (0x06, 0x0a, 0x0c, 0x1d, 0x26, 0x2a):
            return struct.pack("!QII", va & (2**64 - 1), rkey, dlen)
        if op in (0x0b, 0x2b):
            return struct.pack("!QIII", va & (2**64 - 1), rkey, dlen, r(32))
        if op in (0x13, 0x14):
            return struct.pack("!QIQQ", va & (2**64 - 1), rkey, r(64),
                               r(64))
        if op in (0x0d, 0x0f, 0x10, 0x11):
            return struct.pack("!I", kw.get("aeth", r(32)))
        if op == 0x12:
            return struct.pack("!IQ", kw.get("aeth", r(32)), r(64))
        if op in (0x64, 0x65):
            d = struct.pack("!II", kw.get("qkey", t["UD_QKEY"]), r(24))
            return d + (struct.pack("!I", r(32)) if op == 0x65 else b"")
        if op == 0x81:
            return bytes(16)
        hdr = OPS.get(op, (random.randrange(0, 33),))[0]
        return self.rnd_payload(hdr)

    def packet(self, op, qpn, psn=None, plen=None, pad=None, **kw):
        """A packet of OP that parses (payload and pad consistent)."""
        if psn is None:
            psn = random.getrandbits(24)
        payload = OPS.get(op, (0, 1, 1))[1]
        if not payload:
            plen = 0
        elif plen is None:
            plen = random.choice([0, 1, 3, 4, 64, 255, 1024,
                                  random.randrange(0, 1100)])
        plen = min(plen, MAX_L4 - 12 - OPS.get(op, (32,))[0])
        if pad is None:
            last = OPS.get(op, (0, 1, 1))[2]
            pad = -plen % 4 if last else 0
            if not last:
                plen += -plen % 4
        return bth(op, qpn, psn, pad, kw.get("pkey", 0xFFFF),
                   ackreq=random.getrandbits(1)) + self.ext(op, **kw) + \
            self.rnd_payload(plen)

    def emit(self, cls, l4, v6=False, icrc_ok=True, src=None, ipopt=False):
        self.w.send(self.w.frame(l4, v6, icrc_ok, src, ipopt))
        kind = classify(l4, icrc_ok, ipopt)
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.classes[cls] = self.classes.get(cls, 0) + 1
        self.sent += 1
        if self.sent % self.a.burst == 0:
            time.sleep(self.a.gap)

    def target(self):
        """A random QP of the peer, and whether to use IPv6."""
        t = self.t
        c = random.randrange(6)
        if c == 0 and t["RC6_QPNS"]:
            return random.choice(t["RC6_QPNS"]), True
        if c == 1:
            return t["UD_QPN"], random.getrandbits(1)
        if c == 2:
            return 1, random.getrandbits(1)
        if c == 3:
            return random.choice(t["REQ_QPNS"]), False
        return random.choice(t["RC4_QPNS"]), False

    # --- the cases ---------------------------------------------------

    def sequence_first(self):
        """While the RC QPs are all fresh: one duplicate and one far-future
        request each (NAK-free and NAK PSN sequence error paths), then an
        out-of-bounds WRITE to the first (remote access error)."""
        t = self.t
        for qpn in t["RC4_QPNS"]:
            self.emit("seq", self.packet(0x04, qpn, t["RQ_PSN"] - 1, 16))
            self.emit("seq", self.packet(0x04, qpn, t["RQ_PSN"] + 1000, 16))
        self.min["duplicate_request"] = 1
        self.min["out_of_seq_request"] = 1
        self.emit("seq", self.packet(0x0a, t["RC4_QPNS"][0], t["RQ_PSN"],
                                     64, va=t["VA"] + t["MR_LEN"] - 8,
                                     dlen=64))
        self.min["resp_rkey_violation"] = 1

    def c_opcodes(self):
        """Every BTH opcode, undefined ones and CNP included."""
        for op in range(256):
            qpn, v6 = self.target()
            if op in OPS:
                self.emit("opcode", self.packet(op, qpn), v6)
            else:
                self.emit("opcode", bth(op, qpn, random.getrandbits(24)) +
                          self.rnd_payload(random.randrange(0, 64)), v6)

    def c_psn(self):
        t = self.t
        qpn, v6 = self.target()
        psn = t["RQ_PSN"] + random.choice(
            [0, -1, -2, -64, 1, 2, 1 << 22, (1 << 23) - 1, 1 << 23,
             random.getrandbits(24)])
        self.emit("psn", self.packet(random.choice(RC_REQS), qpn, psn), v6)

    def c_trunc(self):
        qpn, v6 = self.target()
        op = random.choice(list(OPS))
        p = self.packet(op, qpn, plen=random.choice([0, 4, 8, 40]))
        hdr = OPS[op][0]
        cuts = sorted({0, 1, 4, 8, 11, 12, 12 + hdr // 2, 12 + hdr - 1,
                       12 + hdr, len(p) - 1})
        for cut in cuts:
            self.emit("trunc", p[:cut], v6)
        # and one cut without a new ICRC: its last 4 bytes stand in for it
        if len(p) > 4:
            self.emit("trunc", p[:-4], v6, icrc_ok=False)

    def c_pad(self):
        qpn, v6 = self.target()
        op = random.choice(list(OPS))
        self.emit("pad", self.packet(op, qpn, pad=random.randrange(4),
                                     plen=random.randrange(0, 6)), v6)

    def c_reth(self):
        t = self.t
        qpn = random.choice(t["RC4_QPNS"])
        va, ln = random.choice([
            (t["VA"] + t["MR_LEN"] - 1, 16), (0, 64), (2**64 - 8, 64),
            (t["VA"], 0xFFFFFFFF), (t["VA"], 0x80000000),
            (t["VA"] - 4096, 4096), (t["VA"] + t["MR_LEN"], 0),
            (t["VA"], t["MR_LEN"] + 1), (random.getrandbits(64),
                                         random.getrandbits(32))])
        rkey = random.choice([t["RKEY"], t["RKEY"] ^ 1, t["RKEY"] ^ 0x100,
                              0, 0xFFFFFFFF, random.getrandbits(32)])
        op = random.choice([0x06, 0x0a, 0x0b, 0x0c])
        self.emit("reth", self.packet(op, qpn, t["RQ_PSN"] +
                                      random.randrange(-2, 3),
                                      plen=min(ln, 1024), va=va, rkey=rkey,
                                      dlen=ln))

    def c_atomic(self):
        t = self.t
        qpn = random.choice(t["RC4_QPNS"])
        va = t["VA"] + random.choice([1, 2, 4, 7, 8, 12, t["MR_LEN"] - 4,
                                      t["MR_LEN"], -8])
        self.emit("atomic", self.packet(random.choice([0x13, 0x14]), qpn,
                                        t["RQ_PSN"] + random.randrange(-1, 2),
                                        va=va, rkey=random.choice(
                                            [t["RKEY"], t["RKEY"] ^ 1])))

    def c_ack(self):
        """ACKs, NAKs and read/atomic responses toward a requester."""
        t = self.t
        qpn = random.choice(t["REQ_QPNS"])
        syn = random.randrange(256)
        aeth = (syn << 24) | random.choice([0, 1, 2, 0xFFFFFF,
                                            random.getrandbits(24)])
        psn = t["SQ_PSN"] + random.choice([0, 1, 2, -1, 1 << 23,
                                           random.getrandbits(24)])
        op = random.choice(RC_RESPS)
        self.emit("ack", self.packet(op, qpn, psn, aeth=aeth,
                                     plen=random.choice([0, 4, 1024, MAX_L4])))

    def c_noqp(self):
        op = random.choice(list(OPS))
        if op == 0x81:
            op = 0x04
        v6 = bool(random.getrandbits(1))
        self.emit("noqp", self.packet(op, NO_QPN_BASE +
                                      random.getrandbits(20)), v6)
        self.min["rcvd_no_qp_pkts"] = self.min.get("rcvd_no_qp_pkts", 0) + 1

    def c_badicrc(self):
        qpn, v6 = self.target()
        self.emit("badicrc", self.packet(random.choice(list(OPS)), qpn), v6,
                  icrc_ok=False)

    def c_random(self):
        qpn, v6 = self.target()
        n = random.randrange(0, 200)
        p = bytearray(self.rnd_payload(n))
        if n >= 8 and random.getrandbits(1):
            p[0] = random.choice(list(OPS))
            p[1] &= 0x30
            p[4:8] = struct.pack("!I", qpn)
        self.emit("random", bytes(p), v6)

    def c_pkey(self):
        qpn, v6 = self.target()
        pkey = random.choice([0, 0x7FFE, 0x8001, random.getrandbits(16)])
        if (pkey & 0x7FFF) == 0x7FFF:
            pkey = 0x1234
        self.emit("pkey", self.packet(random.choice(list(OPS)), qpn,
                                      pkey=pkey), v6)

    def c_spoof(self):
        t = self.t
        qpn = random.choice(t["RC4_QPNS"])
        src = self.a.src4.rsplit(".", 1)[0] + ".250"
        self.emit("spoof", self.packet(random.choice(RC_REQS), qpn,
                                       t["RQ_PSN"]), src=src)

    def c_ud(self):
        t = self.t
        qpn = random.choice([t["UD_QPN"], 1])
        qkey = random.choice([t["UD_QKEY"], 0x80010000, 0,
                              random.getrandbits(32)])
        self.emit("ud", self.packet(random.choice([0x64, 0x65]), qpn,
                                    plen=random.choice([0, 1, 256, 984, 1024,
                                                        MAX_L4]),
                                    qkey=qkey), random.getrandbits(1))

    def c_ipopt(self):
        qpn, _ = self.target()
        self.emit("ipopt", self.packet(0x04, qpn, plen=16), ipopt=True)

    def c_multi(self):
        """Multi-packet messages with inconsistent pieces."""
        t = self.t
        qpn = random.choice(t["RC4_QPNS"])
        psn = t["RQ_PSN"]
        seq = random.choice([[0x00, 0x01, 0x02], [0x01, 0x02], [0x02],
                             [0x06, 0x07, 0x08], [0x07, 0x09], [0x00, 0x04],
                             [0x06, 0x0a], [0x00, 0x00, 0x02]])
        for i, op in enumerate(seq):
            self.emit("multi", self.packet(op, qpn, psn + i,
                                           plen=random.choice([4, 1024,
                                                               1020, MAX_L4]),
                                           dlen=random.choice([8, 1024,
                                                               4096])))

    def run(self, count):
        cases = [(self.c_psn, 8), (self.c_trunc, 2), (self.c_pad, 6),
                 (self.c_reth, 8), (self.c_atomic, 5), (self.c_ack, 10),
                 (self.c_noqp, 5), (self.c_badicrc, 5), (self.c_random, 10),
                 (self.c_pkey, 2), (self.c_spoof, 2), (self.c_ud, 6),
                 (self.c_ipopt, 1), (self.c_multi, 3)]
        funcs = [f for f, w in cases for _ in range(w)]
        self.sequence_first()
        self.c_opcodes()
        while self.sent < count:
            random.choice(funcs)()


def read_info(path):
    info = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            if not k:
                continue
            v = v.strip("'\"")
            if k.endswith("_QPNS"):
                info[k] = [int(x, 0) for x in v.split()]
            else:
                info[k] = int(v, 0)
    return info


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("info")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--count", type=int, default=3000)
    p.add_argument("--iface", default="eth0")
    p.add_argument("--dmac", required=True)
    p.add_argument("--src4", required=True)
    p.add_argument("--dst4", required=True)
    p.add_argument("--src6", required=True)
    p.add_argument("--dst6", required=True)
    p.add_argument("--burst", type=int, default=16)
    p.add_argument("--gap", type=float, default=0.004)
    p.add_argument("--expect", required=True)
    a = p.parse_args()
    print(f"roce-fuzz: seed {a.seed}, {a.count} packets")
    random.seed(a.seed)
    fz = Fuzzer(a, read_info(a.info))
    fz.run(a.count)
    c = fz.counts
    badpkey = c.get("good_badpkey", 0)
    with open(a.expect, "w") as f:
        f.write(f"rcvd_malformed_pkts exact {c.get('malformed', 0) + badpkey}\n")
        f.write(f"rcvd_bad_icrc_pkts exact {c.get('bad_icrc', 0)}\n")
        f.write(f"rcvd_pkts exact {c.get('good', 0) + badpkey}\n")
        for k, v in sorted(fz.min.items()):
            f.write(f"{k} min {v}\n")
    print(f"roce-fuzz: sent {fz.sent}: " +
          ", ".join(f"{k} {v}" for k, v in sorted(fz.classes.items())))
    print("roce-fuzz: expected " +
          ", ".join(f"{k} {v}" for k, v in sorted(c.items())))


if __name__ == "__main__":
    sys.exit(main())
