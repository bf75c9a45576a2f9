#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A hand-made RoCEv2 peer for one RC QP at a time (guest job aid).

Usage: roce-peer.py SRC_IP4 DST_IP4 DIR [CASE...]

CASEs (all, in this order, by default): silent, revoke2, revoke1,
dup-ack, resume-read (after dup-ack), reask-read, queued-dup-read,
nak-forever, lost-read, early-rto, slow-peer, paused-read,
read-behind-probe, read-window, flush, blocked.

The other guest runs `sroce_fuzz_test peer` on sroce, which answers the
commands written to DIR/cmd (see peer() there) and describes its regions
in DIR/info. This guest has no RoCE device: it receives on UDP port 4791
and sends hand-built packets with a valid ICRC from a raw socket
(roce-inject.py), so that it can act as no correct peer would: fall silent
in the middle of a message, go on writing through a key that was revoked,
ask again for what was already answered, or NAK for ever. Each case prints
`ok - ...` or `not ok - ...`; the exit status is the number of failures.
"""
import importlib.machinery
import os
import socket
import struct
import sys
import time

inject = importlib.machinery.SourceFileLoader(
    "roce_inject", os.path.join(os.path.dirname(__file__),
                                "roce-inject.py")).load_module()

MTU = 1024                 # the target's path MTU (sroce_fuzz_test)
PEER_QPN = 0x123           # our QPN as the target's responder sees it
SO_RCVBUFFORCE = 33        # <asm-generic/socket.h>
OP_SEND_ONLY = 0x04
OP_WRITE_FIRST, OP_WRITE_MIDDLE, OP_WRITE_ONLY = 0x06, 0x07, 0x0A
OP_READ_REQ = 0x0C
OP_FETCH_ADD, OP_ATOMIC_ACK = 0x14, 0x12
OP_READ_FIRST, OP_READ_MIDDLE, OP_READ_LAST, OP_READ_ONLY = 0x0D, 0x0E, 0x0F, 0x10
OP_ACK = 0x11
OP_FLUSH = 0x1C            # RDMA FLUSH (IBTA 1.5): BTH, FETH, RETH
SYN_ACK = 0x1F             # ACK, no credit count (what sroce sends)
SYN_RNR_41MS = 0x38        # RNR NAK, timer code 24: 40.96 ms
SYN_NAK_SEQ = 0x60         # NAK: PSN sequence error
SYN_NAK_INVALID = 0x61     # NAK: invalid request
SYN_NAK_ACCESS = 0x62      # NAK: remote access error
SYN_NAK_REM_OP = 0x63      # NAK: remote operational error
NAMES = {OP_READ_FIRST: "READ_RESPONSE_FIRST",
         OP_READ_MIDDLE: "READ_RESPONSE_MIDDLE",
         OP_READ_LAST: "READ_RESPONSE_LAST", OP_READ_ONLY: "READ_RESPONSE_ONLY",
         OP_ACK: "ACKNOWLEDGE", OP_READ_REQ: "READ_REQUEST"}


class Peer:
    def __init__(self, src, dst, where):
        self.src, self.dst, self.dir = src, dst, where
        self.out = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                 socket.IPPROTO_RAW)
        self.inp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # Room for a 1 MiB READ's answer twice over (reask-read); Python
        # has no name for Linux's SO_RCVBUFFORCE.
        self.inp.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
        self.inp.bind(("", 4791))
        self.failures = 0
        self.info = {}
        with open(os.path.join(where, "info")) as f:
            for line in f:
                k, v = line.strip().split("=")
                self.info[k] = int(v)
        self.qpn = None
        self.psn = self.info["RQ_PSN"]

    def check(self, ok, desc, detail=""):
        print(("ok - " if ok else "not ok - ") + desc, flush=True)
        if not ok:
            self.failures += 1
            if detail:
                print("#   " + detail, flush=True)
        return ok

    def cmd_send(self, line):
        with open(os.path.join(self.dir, "cmd.tmp"), "w") as f:
            f.write(line + "\n")
        os.rename(os.path.join(self.dir, "cmd.tmp"),
                  os.path.join(self.dir, "cmd"))

    def cmd_reply(self, timeout=30):
        """The target's reply, or None after timeout seconds."""
        path = os.path.join(self.dir, "reply")
        end = time.time() + timeout
        while True:
            try:
                with open(path) as f:
                    ans = f.read().strip()
                os.unlink(path)
                return ans
            except FileNotFoundError:
                if time.time() >= end:
                    return None
                time.sleep(0.02)

    def cmd(self, line, timeout=30):
        self.cmd_send(line)
        return self.cmd_reply(timeout)

    def new_qp(self):
        self.qpn = int(self.cmd("qp"))
        self.psn = self.info["RQ_PSN"]
        self.drain()

    def send(self, opcode, psn, ext=b"", payload=b"", ackreq=False,
             qpn=None):
        pkt = inject.packet(self.src, self.dst, opcode,
                            self.qpn if qpn is None else qpn, ext, payload,
                            psn=psn, ackreq=ackreq)
        self.out.sendto(pkt, (self.dst, 0))

    def drain(self):
        self.inp.settimeout(0.05)
        try:
            while True:
                self.inp.recv(65536)
        except socket.timeout:
            pass

    def recv(self, timeout=5.0):
        """The next packet: (opcode, psn, syndrome or None, payload)."""
        self.inp.settimeout(timeout)
        try:
            b = self.inp.recv(65536)
        except socket.timeout:
            return None
        op, psn = b[0], int.from_bytes(b[9:12], "big")
        syn, data = None, b[12:-4]
        if op in (OP_ACK, OP_ATOMIC_ACK, OP_READ_FIRST, OP_READ_LAST,
                  OP_READ_ONLY):
            syn, data = b[12], b[16:-4]
        pad = (b[1] >> 4) & 3
        return op, psn, syn, data[:len(data) - pad]

    def read_response(self, p0, i, npsn, data, qpn):
        """Response i of npsn (> 1) to a READ at PSN p0, MTU bytes of data."""
        op = (OP_READ_FIRST if i == 0 else
              OP_READ_LAST if i == npsn - 1 else OP_READ_MIDDLE)
        aeth = (struct.pack("!I", (SYN_ACK << 24) | 1)
                if op != OP_READ_MIDDLE else b"")
        self.send(op, p0 + i, aeth, data * MTU, qpn=qpn)

    @staticmethod
    def reth(va, rkey, length):
        return struct.pack("!QII", va, rkey, length)

    @staticmethod
    def show(p):
        if p is None:
            return "nothing"
        op, psn, syn, data = p
        s = f"{NAMES.get(op, hex(op))} psn {psn:#x}"
        if syn is not None:
            s += f" syndrome {syn:#x}"
        return s + f" ({len(data)} bytes)"

    def serve(self, command, opcode, answer, limit=60):
        """Give the target COMMAND, then call answer(n, psn) for the n-th
        packet of OPCODE that comes, until the target replies or LIMIT
        seconds pass. Returns (n, the reply or None)."""
        self.drain()
        self.cmd_send(command)
        n, ans, t0 = 0, None, time.time()
        while ans is None and time.time() - t0 < limit:
            p = self.recv(timeout=0.2)
            if p is not None and p[0] == opcode:
                n += 1
                answer(n, p[1])
            ans = self.cmd_reply(timeout=0)
        return n, ans

    def expect_nak(self, psn, desc):
        p = self.recv()
        self.check(p is not None and p[0] == OP_ACK and p[1] == psn and
                   p[2] == SYN_NAK_ACCESS, desc,
                   f"want NAK remote access error at {psn:#x}, got {self.show(p)}")

    # Finding 2: a peer silent after WRITE FIRST cannot hold dereg up.
    def silent_mid_message(self):
        self.new_qp()
        va, rkey, p = self.info["DVA"], self.info["DRKEY"], self.psn
        self.send(OP_WRITE_FIRST, p, self.reth(va, rkey, 3 * MTU),
                  b"\x11" * MTU)
        time.sleep(0.5)
        ans = self.cmd("dereg", timeout=20)
        ok = ans is not None and ans.split()[0] == "0"
        self.check(ok and int(ans.split()[1]) < 5000,
                   "dereg of an MR in the middle of a WRITE returns at once",
                   f"reply {ans!r} (rc ms; none: still blocked after 20 s)")
        if not ok:
            return False
        self.send(OP_WRITE_MIDDLE, p + 1, payload=b"\x22" * MTU)
        self.expect_nak(p + 1, "the rest of the WRITE after dereg: NAK "
                        "remote access error")
        return True

    # Finding 1: a key revoked between two packets of one message.
    def revoked_mid_message(self, kind):
        self.new_qp()
        bind, revoke, off = (("bind2", "inv2", 16384) if kind == 2 else
                             ("bind1", "dealloc1", 0))
        ans = self.cmd(bind)
        rkey, va, status = (int(x) for x in ans.split())
        if not self.check(status == 0, f"type {kind} window bound",
                          f"reply {ans!r} (RKEY VA STATUS)"):
            return
        p = self.psn
        self.send(OP_WRITE_FIRST, p, self.reth(va, rkey, 3 * MTU),
                  b"\x33" * MTU)
        time.sleep(0.3)
        self.check(self.cmd(revoke) == "0", f"type {kind} window revoked "
                   f"({'LOCAL_INV' if kind == 2 else 'dealloc'})")
        self.send(OP_WRITE_MIDDLE, p + 1, payload=b"\x44" * MTU)
        self.expect_nak(p + 1, f"WRITE MIDDLE through the revoked type {kind} "
                        "window: NAK remote access error")
        self.send(OP_WRITE_MIDDLE + 1, p + 2, payload=b"\x55" * MTU,
                  ackreq=True)
        first = self.cmd(f"read {off} 16")
        after = self.cmd(f"read {off + MTU} 16")
        last = self.cmd(f"read {off + 2 * MTU} 16")
        self.check(first == "33" * 16 and after == "5a" * 16 and
                   last == "5a" * 16,
                   f"type {kind}: only the packet before the revocation landed",
                   f"first {first} middle {after} last {last}")

    # Finding 4: a duplicate WRITE after a READ and an ATOMIC is ACKed
    # with the WRITE's PSN.
    def dup_write_after_read(self):
        self.new_qp()
        va, rkey, p = self.info["VA"], self.info["RKEY"], self.psn
        self.send(OP_WRITE_ONLY, p, self.reth(va, rkey, 16), b"\x66" * 16,
                  ackreq=True)
        a = self.recv()
        self.check(a is not None and a[:3] == (OP_ACK, p, SYN_ACK),
                   "WRITE ONLY is ACKed", self.show(a))
        self.send(OP_READ_REQ, p + 1, self.reth(va, rkey, 64))
        r = self.recv()
        self.check(r is not None and r[0] == OP_READ_ONLY and r[1] == p + 1,
                   "one-packet READ answered", self.show(r))
        self.send(OP_FETCH_ADD, p + 2,
                  struct.pack("!QIQQ", va + 64, rkey, 1, 0))
        r = self.recv()
        self.check(r is not None and r[0] == OP_ATOMIC_ACK and r[1] == p + 2,
                   "FETCH_ADD answered with an ATOMIC ACKNOWLEDGE",
                   self.show(r))
        # The ACK was lost, as far as the requester knows: it sends again.
        self.send(OP_WRITE_ONLY, p, self.reth(va, rkey, 16), b"\x66" * 16,
                  ackreq=True)
        a = self.recv()
        self.check(a is not None and a[0] == OP_ACK and a[1] == p,
                   "duplicate WRITE is ACKed with its own PSN, not the READ's "
                   "or ATOMIC's (which would end them without data)",
                   self.show(a))
        self.psn = p + 3

    # Finding 5: a READ asked again from its middle opens with FIRST.
    def resumed_read(self):
        va, rkey, p = self.info["VA"], self.info["RKEY"], self.psn
        self.send(OP_READ_REQ, p, self.reth(va, rkey, 4 * MTU))
        got = [self.recv() for _ in range(4)]
        self.check([g and g[0] for g in got] == [OP_READ_FIRST, OP_READ_MIDDLE,
                                                 OP_READ_MIDDLE, OP_READ_LAST],
                   "4-packet READ answered FIRST MIDDLE MIDDLE LAST",
                   ", ".join(self.show(g) for g in got))
        # Responses 2 and 3 lost: ask for the rest from PSN p + 2.
        self.send(OP_READ_REQ, p + 2, self.reth(va + 2 * MTU, rkey, 2 * MTU))
        got2 = [self.recv() for _ in range(2)]
        ok = got2[0] is not None and got2[1] is not None
        self.check(ok and got2[0][:2] == (OP_READ_FIRST, p + 2) and
                   got2[1][:2] == (OP_READ_LAST, p + 3),
                   "READ reissued from its middle is answered FIRST, LAST",
                   ", ".join(self.show(g) for g in got2))
        if ok:
            self.check(got2[0][3] + got2[1][3] == got[2][3] + got[3][3],
                       "the reissued READ returns the same bytes")
        self.psn = p + 4

    # A READ asked again while its long answer streams (as after a lost
    # response) restarts the stream at once: the responder does not first
    # send the rest of the 1 MiB, which a requester would drop.
    def reask_read(self, k=8, tries=3):
        self.new_qp()
        va, rkey = self.info["LVA"], self.info["LRKEY"]
        n = self.info["LLEN"] // MTU
        before = int(self.cmd("counter resp_read_reasks"))
        # Back to back: the re-ask lands while the responder works through
        # the stream (64 packets per turn, sroce_resp_run()); waiting for
        # the first response instead would race the stream's end. A slow
        # peer (Python on a debug kernel under TCG) may still get the
        # re-ask out only after the whole stream, which then answers it as
        # any duplicate: up to three tries, each a new pair of requests.
        for attempt in range(1, tries + 1):
            p = self.psn
            self.send(OP_READ_REQ, p, self.reth(va, rkey, n * MTU))
            self.send(OP_READ_REQ, p + k,
                      self.reth(va + k * MTU, rkey, (n - k) * MTU))
            first = self.recv()
            cut, got, bad = 1, [], []
            while True:
                r = self.recv()
                if r is None:
                    break
                if not got and r[:2] != (OP_READ_FIRST, p + k):
                    cut += 1
                    continue
                got.append(r)
                i = r[1] - p
                if r[3] != bytes([(i * 7 + 1) & 0xff]) * MTU:
                    bad.append(i)
                if r[0] in (OP_READ_LAST, OP_READ_ONLY) or len(got) > n:
                    break
            self.drain()
            self.psn = p + n
            print(f"# reask-read, try {attempt}: the restart came after "
                  f"{cut} packets of the first stream", flush=True)
            if cut < n:
                break
        self.check(first is not None and first[:2] == (OP_READ_FIRST, p) and
                   got and cut < n, f"a {n}-packet READ asked again from "
                   f"PSN +{k} restarts at once",
                   f"first {self.show(first)}, restart after {cut} packets"
                   f" of the first stream, {len(got)} of the second")
        want = [(OP_READ_FIRST if i == k else OP_READ_LAST if i == n - 1
                 else OP_READ_MIDDLE, p + i) for i in range(k, n)]
        self.check([g[:2] for g in got] == want and not bad,
                   f"the restarted stream is PSN +{k} to +{n - 1}, FIRST "
                   "to LAST, with the region's bytes",
                   f"{len(got)} packets, bytes wrong in {bad[:8]}")
        after = int(self.cmd("counter resp_read_reasks"))
        self.check(after - before == (1 if cut < n else 0),
                   "resp_read_reasks counts the restart ahead of the "
                   "stream, and only that", f"{before} -> {after}")

    # A READ asked again while its first copy still waits behind a long
    # stream (a requester going back sends every READ after the lost one
    # again) is dropped: the first copy's answer comes after the re-ask
    # anyway, and a second would stream the same data into a requester
    # that has it. As in reask-read, a slow peer may get the copy out only
    # after the first was answered, which then answers it as any
    # duplicate: up to three tries.
    def queued_dup_read(self, tries=3):
        self.new_qp()
        va, rkey = self.info["LVA"], self.info["LRKEY"]
        n = self.info["LLEN"] // MTU
        for attempt in range(1, tries + 1):
            before = int(self.cmd("counter duplicate_request"))
            p = self.psn
            self.send(OP_READ_REQ, p, self.reth(va, rkey, n * MTU))
            self.send(OP_READ_REQ, p + n, self.reth(va, rkey, 64))
            self.send(OP_READ_REQ, p + n, self.reth(va, rkey, 64))
            got = []
            while True:
                r = self.recv()
                if r is None:
                    break
                got.append(r[:2])
            self.psn = p + n + 1
            answers = got.count((OP_READ_ONLY, p + n))
            after = int(self.cmd("counter duplicate_request"))
            print(f"# queued-dup-read, try {attempt}: {len(got)} packets, "
                  f"the second READ answered {answers} times", flush=True)
            if answers == 1:
                break
        want = [(OP_READ_FIRST if i == 0 else OP_READ_LAST if i == n - 1
                 else OP_READ_MIDDLE, p + i) for i in range(n)]
        self.check(got == want + [(OP_READ_ONLY, p + n)],
                   "a READ sent twice while the first copy waits behind a "
                   f"{n}-packet stream is answered once",
                   f"{len(got)} packets, {answers} answers to it")
        self.check(after - before == 1, "duplicate_request counts the "
                   "dropped copy", f"{before} -> {after}")

    # Finding 7: restarts the peer asks for do not spend retry_cnt.
    def nak_forever(self, retry=3, timeout=14):
        qpn = int(self.cmd(f"req {retry} {timeout}"))
        self.drain()
        self.cmd_send("post")
        arrivals, ans, t0 = 0, None, time.time()
        while ans is None and time.time() - t0 < 120:
            p = self.recv(timeout=0.2)
            if p is not None and p[0] == OP_READ_REQ:
                arrivals += 1
                # "I expect this PSN": a live peer asking for it again.
                self.send(OP_ACK, p[1], struct.pack("!I", SYN_NAK_SEQ << 24),
                          qpn=qpn)
            ans = self.cmd_reply(timeout=0)
        print(f"# READ requests seen: {arrivals}; target says {ans!r}")
        if not self.check(ans is not None, "the NAKed READ completes"):
            return
        status, _ms, retries = (int(x) for x in ans.split())
        self.check(status == 12, "a READ NAKed for ever ends in "
                   "IBV_WC_RETRY_EXC_ERR", f"status {status}")
        self.check(retries == retry + 1, f"retry_cnt {retry} spent on "
                   f"{retry + 1} timeouts, not on NAKs",
                   f"{retries} retransmit timeouts")

    # A READ's response lost, the FETCH_ADD behind it answered: the ATOMIC
    # ACK for the later PSN tells the requester that the READ's response
    # was lost (9.7.5.1.3), so it asks for the READ again at once, as a
    # plain ACK would make it, rather than at its retransmit timeout
    # (timeout 18: about 1 s, longer than any TCG stall here).
    def lost_read_response(self):
        qpn = int(self.cmd("req 7 18"))
        self.drain()
        early = int(self.cmd("counter early_retransmits"))
        self.cmd_send("post2")
        reads, msn, ans, t0 = 0, 0, None, time.time()
        while ans is None and time.time() - t0 < 60:
            p = self.recv(timeout=0.2)
            if p is not None and p[0] in (OP_READ_REQ, OP_FETCH_ADD):
                msn += 1
                aeth = struct.pack("!I", (SYN_ACK << 24) | msn)
                if p[0] == OP_FETCH_ADD:
                    self.send(OP_ATOMIC_ACK, p[1],
                              aeth + struct.pack("!Q", 0x77), qpn=qpn)
                else:
                    reads += 1
                    # The first answer is the one lost.
                    if reads > 1:
                        self.send(OP_READ_ONLY, p[1], aeth, b"\xab" * 512,
                                  qpn=qpn)
            ans = self.cmd_reply(timeout=0)
        # The ATOMIC ACK is also a round trip sample: a peer slower to
        # answer the READ asked again than that gets early resends of it.
        early = int(self.cmd("counter early_retransmits")) - early
        print(f"# READ requests seen: {reads} (early resends {early}); "
              f"target says {ans!r}")
        if not self.check(ans is not None, "READ and FETCH_ADD complete"):
            return
        s1, s2, _ms, retries = (int(x) for x in ans.split())
        self.check(s1 == 0 and s2 == 0, "... both with success",
                   f"status {s1} and {s2}")
        self.check(reads == 2 + early and retries == 0, "the READ is asked "
                   "again on the ATOMIC ACK behind it, not after a timeout",
                   f"{reads} READ requests, {early} early, "
                   f"{retries} retransmit timeouts")

    # A round trip measured (the READ answered at once), then the FETCH_ADD
    # behind it never answered: the requester resends it, one probe each
    # time, well before the QP's timeout (19: 2.1 s, far above the round
    # trip to this script even on the debug kernel) and waiting twice as
    # long each time (drivers/sroce_req_rto.h), spending no retry on them:
    # retry_cnt 1 still ends it with IBV_WC_RETRY_EXC_ERR after two whole
    # timeouts.
    def early_rto(self, timeout=19, retry=1):
        tmo = 4.096e-6 * (1 << timeout)
        qpn = int(self.cmd(f"req {retry} {timeout}"))
        self.drain()
        early = int(self.cmd("counter early_retransmits"))
        self.cmd_send("post2")
        fadds, answered, ans, t0 = [], False, None, time.time()
        while ans is None and time.time() - t0 < 30:
            p = self.recv(timeout=0.01)
            if p is not None and p[0] == OP_READ_REQ and not answered:
                answered = True
                self.send(OP_READ_ONLY, p[1],
                          struct.pack("!I", (SYN_ACK << 24) | 1),
                          b"\xcd" * 512, qpn=qpn)
            elif p is not None and p[0] == OP_FETCH_ADD:
                fadds.append(time.time())
            ans = self.cmd_reply(timeout=0)
        early = int(self.cmd("counter early_retransmits")) - early
        gaps = [round(1000 * (b - a)) for a, b in zip(fadds, fadds[1:])]
        print(f"# FETCH_ADD sent {len(fadds)} times, gaps {gaps} ms; "
              f"early_retransmits +{early}; target says {ans!r}")
        if not self.check(ans is not None, "READ and FETCH_ADD complete"):
            return
        s1, s2, ms, retries = (int(x) for x in ans.split())
        self.check((s1, s2) == (0, 12), "the READ with success, the "
                   "FETCH_ADD with IBV_WC_RETRY_EXC_ERR", f"status {s1} {s2}")
        self.check(len(gaps) > 0 and gaps[0] < 500 * tmo,
                   f"the first resend comes before half the timeout "
                   f"({1000 * tmo:.0f} ms)", f"gaps {gaps} ms")
        self.check(early > 0 and len(fadds) == 1 + early + retry,
                   "one probe per early retransmit and per timeout but "
                   "the last", f"{len(fadds)} sent, {early} early")
        self.check(retries == retry + 1 and ms >= 0.95 * 1000 * tmo *
                   (retry + 1), f"retry_cnt {retry} spent on {retry + 1} "
                   "whole timeouts, none on the early resends",
                   f"{retries} timeouts in {ms} ms")

    # A slow but live peer: the whole timeout stretches toward the round
    # trip the requester measured (sroce_req_rto_timeout()). timeout 17
    # (537 ms), retry_cnt 0. A READ answered after 320 ms gives the first
    # sample, and an estimate three times that (SRTT + 4 x SRTT / 2). The
    # next READ, answered after 750 ms, past the attribute but within the
    # estimate (about 200 ms of margin either side, and on the first),
    # completes without a resend where one whole timeout of the attribute
    # would have failed the QP; a third, never answered, still fails it,
    # after a wait longer than the attribute.
    def slow_peer(self, timeout=17):
        tmo_ms = 4.096e-3 * (1 << timeout)
        qpn = int(self.cmd(f"req 0 {timeout}"))
        self.drain()
        rounds = []
        for msn, delay in ((1, 0.32), (2, 0.75), (3, None)):
            self.cmd_send("post")
            ans, asked, answered, reqs, t0 = None, None, False, 0, time.time()
            while ans is None and time.time() - t0 < 30:
                p = self.recv(timeout=0.01)
                if p is not None and p[0] == OP_READ_REQ:
                    reqs += 1
                    asked = asked or (time.time(), p[1])
                if (asked and delay is not None and not answered and
                        time.time() - asked[0] >= delay):
                    answered = True
                    self.send(OP_READ_ONLY, asked[1],
                              struct.pack("!I", (SYN_ACK << 24) | msn),
                              b"\xcd" * 512, qpn=qpn)
                ans = self.cmd_reply(timeout=0)
            print(f"# round {msn}: {reqs} READ requests seen; "
                  f"target says {ans!r} (status ms timeouts)")
            if not self.check(ans is not None, f"READ {msn} completes"):
                return
            rounds.append((reqs, *(int(x) for x in ans.split())))
        (r1, s1, _, t1), (r2, s2, ms2, t2), (_, s3, ms3, t3) = rounds
        self.check((r1, s1, t1) == (1, 0, 0), "a READ answered in 320 ms: "
                   "success, sent once", f"round 1 {rounds[0]}")
        self.check((r2, s2, t2) == (1, 0, 0) and ms2 > tmo_ms,
                   f"a READ answered in 750 ms, past the {tmo_ms:.0f} ms "
                   "timeout: success, sent once, no timeout spent",
                   f"round 2 {rounds[1]}")
        self.check(s3 == 12 and t3 == 1 and ms3 > 1.5 * tmo_ms,
                   "a READ never answered: IBV_WC_RETRY_EXC_ERR after one "
                   f"timeout longer than {tmo_ms:.0f} ms",
                   f"round 3 {rounds[2]}")

    # A WRITE, a READ and a WRITE all sent, nothing answered: the retransmit
    # timeout (timeout 18: about 1 s) probes the first WRITE. The READ's
    # responses then come, but not its last: the requester, rewound to the
    # first WRITE, must ask only for the rest and go on with the second
    # WRITE at once, not sit idle until a second timeout.
    def read_behind_probe(self):
        qpn = int(self.cmd("req 7 18"))
        self.drain()
        self.cmd_send("post3")
        seen, t0 = [], time.time()
        while len(seen) < 6 and time.time() - t0 < 10:
            p = self.recv(timeout=1)
            if p is not None:
                seen.append(p[:2])
        p0 = seen[0][1] if seen else 0
        want = [(OP_WRITE_FIRST, p0), (OP_WRITE_MIDDLE, p0 + 1),
                (OP_WRITE_MIDDLE, p0 + 2), (OP_WRITE_MIDDLE + 1, p0 + 3),
                (OP_READ_REQ, p0 + 4), (OP_WRITE_ONLY, p0 + 8)]
        if not self.check(seen == want, "WRITE, READ, WRITE sent",
                          f"{seen}"):
            return
        probe = self.recv(timeout=10)
        if not self.check(probe is not None and
                          probe[:2] == (OP_WRITE_FIRST, p0),
                          "the timeout probes the first WRITE",
                          self.show(probe)):
            return
        for i in range(3):
            self.read_response(p0 + 4, i, 4, bytes([i + 1]), qpn)
        after = []
        while not after or after[-1][0] == OP_READ_REQ:
            p = self.recv(timeout=5)
            if p is None:
                break
            after.append(p[:2])
        print(f"# after 3 of the READ's 4 responses: {after}")
        self.read_response(p0 + 4, 3, 4, b"\x04", qpn)
        self.send(OP_ACK, p0 + 8, struct.pack("!I", (SYN_ACK << 24) | 1),
                  qpn=qpn)
        ans = self.cmd_reply(timeout=30)
        print(f"# target says {ans!r}")
        self.check(len(after) <= 2 and after[-1:] == [(OP_WRITE_ONLY, p0 + 8)]
                   and all(p0 + 5 <= q <= p0 + 7 for _, q in after[:-1]),
                   "the requester goes on with the second WRITE, asking "
                   "at most once for the READ's rest", f"{after}")
        if not self.check(ans is not None, "all three complete"):
            return
        s1, s2, s3, _ms, retries = (int(x) for x in ans.split())
        self.check((s1, s2, s3) == (0, 0, 0), "... with success",
                   f"status {s1} {s2} {s3}")
        self.check(retries == 1, "one retransmit timeout, the probe's",
                   f"{retries} retransmit timeouts")

    # CMD's 4-packet READ (postr: alone; post3: between two WRITEs), its
    # responses pausing for PAUSE seconds after the second; then the
    # original stream goes on, whatever the requester asked meanwhile.
    # Returns (READ requests seen during the pause, the target's reply)
    # or None.
    def read_paused(self, qpn, cmd, pause):
        # Resends of the last round first.
        self.drain()
        self.cmd_send(cmd)
        want = [OP_READ_REQ]
        if cmd == "post3":
            want = [OP_WRITE_FIRST, OP_WRITE_MIDDLE, OP_WRITE_MIDDLE,
                    OP_WRITE_MIDDLE + 1, OP_READ_REQ]
        seen = [self.recv(timeout=10) for _ in want]
        if not self.check([s and s[0] for s in seen] == want,
                          f"{cmd}: sent as posted",
                          f"{[self.show(s) for s in seen]}"):
            return None
        rd = seen[-1][1]
        # The first WRITE's ACK: a round trip sample, a few ms.
        if cmd == "post3":
            self.send(OP_ACK, rd - 1, struct.pack("!I", (SYN_ACK << 24) | 1),
                      qpn=qpn)
        for i in range(2):
            self.read_response(rd, i, 4, bytes([0x40 + i]), qpn)
        asked, last, t0 = [], None, time.time()
        while time.time() < t0 + pause:
            p = self.recv(timeout=max(t0 + pause - time.time(), 0.001))
            if p is not None and p[0] == OP_READ_REQ:
                ms = round(1000 * (time.time() - t0))
                asked.append(f"{p[1] - rd}@{ms}ms")
            elif p is not None and p[:2] == (OP_WRITE_ONLY, rd + 4):
                last = p
        print(f"# {cmd}: READ requests during the pause "
              f"(PSN - READ's@time): {asked}")
        for i in range(2, 4):
            self.read_response(rd, i, 4, bytes([0x40 + i]), qpn)
        if cmd == "post3":
            t1 = time.time()
            while last is None and time.time() - t1 < 10:
                p = self.recv(timeout=1)
                if p is not None and p[:2] == (OP_WRITE_ONLY, rd + 4):
                    last = p
            self.check(last is not None, "the last WRITE is sent")
            self.send(OP_ACK, rd + 4, struct.pack("!I", (SYN_ACK << 24) | 1),
                      qpn=qpn)
        return len(asked), self.cmd_reply(timeout=30)

    # A responder that pauses in the middle of a READ's responses, longer
    # than the round trips say an answer takes (timeout 19: 2.1 s, the
    # QP's own timeout is far off). With a WRITE sent behind the READ, the
    # requester waits: an answer to the WRITE would show a lost response
    # at once, and a re-ask would have the responder stream again all
    # that follows. With the READ alone it asks for the READ's rest early
    # (an early retransmit), sees the original stream's MIDDLE where an
    # answer to that would start with FIRST, counts the re-ask spurious
    # and learns the pause as a round trip: a second pause, a third as
    # long, passes without a re-ask (drivers/sroce_comp.c, sroce_comp_early()
    # and sroce_comp_early_read_answered()).
    def paused_read(self):
        spur = int(self.cmd("counter early_retransmits_spurious"))
        for cmd, pause, want_asked in (("post3", 0.3, False),
                                       ("postr", 0.3, True),
                                       ("postr", 0.1, False)):
            if cmd == "post3" or want_asked:
                qpn = int(self.cmd("req 7 19"))
            got = self.read_paused(qpn, cmd, pause)
            if got is None:
                return
            asked, ans = got
            d = int(self.cmd("counter early_retransmits_spurious")) - spur
            print(f"# {cmd}, a {pause} s pause: READ asked again {asked} "
                  f"times, early_retransmits_spurious +{d}; "
                  f"target says {ans!r}")
            if not self.check(ans is not None, f"{cmd} completes"):
                return
            st = [int(x) for x in ans.split()]
            self.check(st[:-2] == [0] * (len(st) - 2) and st[-1] == 0,
                       "... with success, no retransmit timeout", ans)
            if cmd == "post3":
                self.check(asked == 0 and d == 0, "a READ with a WRITE "
                           "behind it: the 0.3 s pause waited out",
                           f"{asked} asked, +{d} spurious")
            elif want_asked:
                self.check(asked >= 1 and d == 1, "the READ alone: asked "
                           "again early in a 0.3 s pause, once counted "
                           "spurious", f"{asked} asked, +{d} spurious")
            else:
                self.check(asked == 0 and d == 1, "then a 0.1 s pause: not "
                           "asked again, the first pause learnt",
                           f"{asked} asked, +{d} spurious")

    # A READ of more PSNs than the requester's window (256) fills it alone;
    # a WRITE waits behind it. Once the READ's responses open the window,
    # the WRITE goes, before the READ ends (timeout 20: about 4 s, longer
    # than the wait for it here).
    def read_opens_window(self, npsn=300, opened=45):
        qpn = int(self.cmd("req 7 20"))
        self.drain()
        self.cmd_send("post4")
        r = self.recv(timeout=10)
        if not self.check(r is not None and r[0] == OP_READ_REQ,
                          "the long READ is sent", self.show(r)):
            return
        p0 = r[1]
        held = self.recv(timeout=0.5)
        self.check(held is None, "the WRITE behind it waits: the window "
                   "is full", self.show(held))
        for i in range(opened):
            self.read_response(p0, i, npsn, b"\x07", qpn)
        w = self.recv(timeout=3)
        self.check(w is not None and w[:2] == (OP_WRITE_ONLY, p0 + npsn),
                   f"after {opened} responses the WRITE goes",
                   self.show(w))
        for i in range(opened, npsn):
            self.read_response(p0, i, npsn, b"\x07", qpn)
        self.send(OP_ACK, p0 + npsn, struct.pack("!I", (SYN_ACK << 24) | 1),
                  qpn=qpn)
        ans = self.cmd_reply(timeout=30)
        print(f"# target says {ans!r}")
        if not self.check(ans is not None, "READ and WRITE complete"):
            return
        s1, s2, _ms, retries = (int(x) for x in ans.split())
        self.check((s1, s2, retries) == (0, 0, 0), "... with success, "
                   "no retransmit timeout",
                   f"status {s1} {s2}, {retries} timeouts")

    # RDMA FLUSH, which sroce does not implement: an RC responder answers
    # an unsupported opcode with an invalid request NAK (IBTA vol 1
    # 9.7.5.2.2), so the peer fails at once rather than after its retries.
    def flush_refused(self):
        self.new_qp()
        va, rkey, p = self.info["VA"], self.info["RKEY"], self.psn
        before = int(self.cmd("counter resp_invalid_request"))
        # FETH: selectivity 0 (the range), placement type 1 (global).
        feth = struct.pack("!I", 1)
        self.send(OP_FLUSH, p, feth + self.reth(va, rkey, 64), ackreq=True)
        a = self.recv()
        self.check(a is not None and a[:3] == (OP_ACK, p, SYN_NAK_INVALID),
                   "FLUSH: NAK invalid request", self.show(a))
        got = int(self.cmd("counter resp_invalid_request")) - before
        self.check(got == 1, "... counted in resp_invalid_request",
                   f"+{got}")

    # Finding 3: a local stack that drops every packet cannot make a
    # responder retry its answer every jiffy for ever, nor a requester.
    def blocked(self):
        self.new_qp()
        va, rkey, p = self.info["VA"], self.info["RKEY"], self.psn
        before = int(self.cmd("counter xmit_backoff_drops"))
        backoffs = int(self.cmd("counter xmit_backoffs"))
        self.check(self.cmd("block") == "0", "tc drops every RoCEv2 packet "
                   "the target sends")
        self.send(OP_WRITE_ONLY, p, self.reth(va, rkey, 16), b"\x77" * 16,
                  ackreq=True)
        # The back-off gives up after 1 + 2 + ... + 128 jiffies (~1 s).
        time.sleep(4)
        drops = int(self.cmd("counter xmit_backoff_drops")) - before
        self.check(drops == 1, "the ACK the stack keeps refusing is given "
                   "up once after the back-off", f"{drops} given up")
        backoffs = int(self.cmd("counter xmit_backoffs")) - backoffs
        self.check(backoffs == 8, "... after eight back-offs, each counted "
                   "in xmit_backoffs", f"+{backoffs}")
        self.check(self.cmd("unblock") == "0", "tc lets packets out again")
        self.send(OP_WRITE_ONLY, p, self.reth(va, rkey, 16), b"\x77" * 16,
                  ackreq=True)
        a = self.recv()
        self.check(a is not None and a[:3] == (OP_ACK, p, SYN_ACK),
                   "the WRITE sent again is ACKed: the QP lived on",
                   self.show(a))
        self.cmd("block")
        self.cmd("req 1 12")
        ans = self.cmd("post", timeout=90)
        self.cmd("unblock")
        print(f"# target says {ans!r} (STATUS MS RETRIES)")
        if not self.check(ans is not None, "a READ the stack never lets out "
                          "completes"):
            return False
        status, _ms, retries = (int(x) for x in ans.split())
        self.check(status == 12 and retries == 2, "... with "
                   "IBV_WC_RETRY_EXC_ERR after retry_cnt 1 + 1 timeouts",
                   f"status {status}, {retries} timeouts")
        return True

    # A READ RESPONSE whose AETH carries a NAK is malformed (a NAK comes
    # in an ACKNOWLEDGE only): it is placed nowhere and completes nothing;
    # the READ, asked again, completes on the good answer.
    def nak_in_read_response(self):
        qpn = int(self.cmd("req 7 14"))

        def answer(n, psn):
            syn = SYN_NAK_REM_OP if n == 1 else SYN_ACK
            self.send(OP_READ_ONLY, psn, struct.pack("!I", (syn << 24) | n),
                      b"\xab" * 512, qpn=qpn)
        reads, ans = self.serve("post", OP_READ_REQ, answer)
        print(f"# READ requests seen: {reads}; target says {ans!r}")
        if not self.check(ans is not None, "a READ answered first with a "
                          "NAK in its READ RESPONSE completes"):
            return
        status = int(ans.split()[0])
        self.check(status == 0 and reads >= 2, "... with success, on the "
                   "answer to the READ asked again",
                   f"status {status}, {reads} READ requests")

    # Two RNR NAKs for one SEND (as for a copy the requester resent
    # before the first came back) are one refusal: with rnr_retry 1 the
    # SEND waits once, is sent again and completes with success, where
    # spending a retry on each ends it in IBV_WC_RNR_RETRY_EXC_ERR.
    def dup_rnr(self):
        qpn = int(self.cmd("req 7 14 1"))

        def answer(n, psn):
            syn = SYN_RNR_41MS if n == 1 else SYN_ACK
            for _ in range(2 if n == 1 else 1):
                self.send(OP_ACK, psn, struct.pack("!I", syn << 24), qpn=qpn)
        sends, ans = self.serve("posts", OP_SEND_ONLY, answer)
        print(f"# SENDs seen: {sends}; target says {ans!r}")
        if not self.check(ans is not None, "a SEND RNR NAKed twice at once "
                          "completes"):
            return
        status = int(ans.split()[0])
        self.check(status == 0 and sends >= 2, "... with success after its "
                   "one RNR wait (rnr_retry 1)",
                   f"status {status}, {sends} SENDs")


CASES = {
    "silent": lambda p: p.silent_mid_message(),
    "revoke2": lambda p: p.revoked_mid_message(2),
    "revoke1": lambda p: p.revoked_mid_message(1),
    "dup-ack": lambda p: p.dup_write_after_read(),
    "resume-read": lambda p: p.resumed_read(),
    "reask-read": lambda p: p.reask_read(),
    "queued-dup-read": lambda p: p.queued_dup_read(),
    "nak-forever": lambda p: p.nak_forever(),
    "lost-read": lambda p: p.lost_read_response(),
    "early-rto": lambda p: p.early_rto(),
    "slow-peer": lambda p: p.slow_peer(),
    "paused-read": lambda p: p.paused_read(),
    "read-behind-probe": lambda p: p.read_behind_probe(),
    "read-window": lambda p: p.read_opens_window(),
    "nak-read-resp": lambda p: p.nak_in_read_response(),
    "dup-rnr": lambda p: p.dup_rnr(),
    "flush": lambda p: p.flush_refused(),
    "blocked": lambda p: p.blocked(),
}


def main():
    if len(sys.argv) < 4 or any(c not in CASES for c in sys.argv[4:]):
        raise SystemExit(__doc__)
    peer = Peer(*sys.argv[1:4])
    for case in sys.argv[4:] or CASES:
        # A target stuck in a verb answers nothing more: stop there.
        if CASES[case](peer) is False:
            break
    peer.cmd("quit")
    sys.exit(min(peer.failures, 100))


if __name__ == "__main__":
    main()
