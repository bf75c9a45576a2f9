#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The switch side of cc-netns.sh: samples the bottleneck and judges a run.

  cc-testbed.py record CSV SECONDS PORT K MBPS   (in the switch namespace)
  cc-testbed.py judge CSV K [WINDOW_S]

MBPS is the bottleneck's tbf rate. record writes a line every 0.2 s: the time, then for the bottleneck PORT's
qdiscs (tbf with RED or a tail-drop bfifo below it) the bytes sent, the
backlog in bytes, RED's marked, early and pdrop counts (the FIFO's drops
as pdrop), then the bytes received from each sender
port p1..pK (the sender's offered load: with no drop, what it delivered).

judge finds each flow's start and end in the samples (where its first
and its last 64 KiB crossed the switch), takes the window from the last
start plus WINDOW_S (default 2) to the first end, and prints one line of
key=value: per-flow rates (Mb/s), utilisation of the bottleneck (its sent
bytes against its rate), Jain's index
of the flows' mean rates, the lowest Jain's index over 1 s slices of the
window and the time from the last start after which it stays at least
0.95 (conv_s), the mean and 99th percentile backlog, the marks and
drops over the whole run, the drops in the window (pdrop_win) and the
shortest time between two flows' starts (join_gap_min).
"""

import json
import statistics
import subprocess
import sys
import time

SAMPLE_S = 0.2
EDGE_BYTES = 64 * 1024


def qdisc_stats(port):
    """Bytes sent, backlog and RED's (or the FIFO's) counters of PORT's qdiscs."""
    out = subprocess.run(["tc", "-s", "-j", "qdisc", "show", "dev", port],
                         capture_output=True, text=True, check=True).stdout
    sent = backlog = marked = early = pdrop = 0
    for q in json.loads(out):
        if q.get("kind") == "tbf":
            sent = q.get("bytes", 0)
            backlog = q.get("backlog", 0)
        elif q.get("kind") == "red":
            marked = q.get("marked", 0)
            early = q.get("early", 0)
            pdrop = q.get("pdrop", 0)
        elif q.get("kind") == "bfifo":
            pdrop = q.get("drops", 0)
    return sent, backlog, marked, early, pdrop


def rx_bytes(port):
    with open(f"/sys/class/net/{port}/statistics/rx_bytes") as f:
        return int(f.read())


def record(csv, seconds, port, k, mbps):
    senders = [f"p{i}" for i in range(1, k + 1)]
    end = time.monotonic() + seconds
    with open(csv, "w", buffering=1) as f:
        f.write(f"# rate_bps={mbps * 1e6:.0f}\n")
        f.write("t,sent,backlog,marked,early,pdrop," +
                ",".join(f"rx{i}" for i in range(1, k + 1)) + "\n")
        while time.monotonic() < end:
            t = time.monotonic()
            row = [f"{t:.3f}"] + [str(x) for x in qdisc_stats(port)]
            row += [str(rx_bytes(p)) for p in senders]
            f.write(",".join(row) + "\n")
            time.sleep(max(0.0, SAMPLE_S - (time.monotonic() - t)))


def jain(xs):
    s = sum(xs)
    ss = sum(x * x for x in xs)
    return s * s / (len(xs) * ss) if ss > 0 else 0.0


def judge(csv, k, window_s):
    rate_bps = 0
    rows = []
    with open(csv) as f:
        for line in f:
            if line.startswith("# rate_bps="):
                rate_bps = float(line.split("=")[1])
            elif line[0].isdigit():
                rows.append([float(x) for x in line.split(",")])
    t = [r[0] for r in rows]
    col = {name: i for i, name in enumerate(
        ["t", "sent", "backlog", "marked", "early", "pdrop"])}
    rx = [[r[6 + i] for r in rows] for i in range(k)]

    starts, ends = [], []
    for f in range(k):
        first, last = rx[f][0] + EDGE_BYTES, rx[f][-1] - EDGE_BYTES
        if first >= last:
            print(f"flow {f + 1} never sent", file=sys.stderr)
            raise SystemExit(1)
        starts.append(t[next(j for j in range(len(t)) if rx[f][j] > first)])
        ends.append(t[next(j for j in range(len(t)) if rx[f][j] >= last)])
    t0 = max(starts) + window_s
    t1 = min(ends)
    if t1 - t0 < 2:
        print(f"no window with all {k} flows ({t0:.1f}..{t1:.1f})",
              file=sys.stderr)
        raise SystemExit(1)
    j0 = next(j for j in range(len(t)) if t[j] >= t0)
    j1 = max(j for j in range(len(t)) if t[j] <= t1)
    span = t[j1] - t[j0]

    def mbps(series, a, b):
        return (series[b] - series[a]) * 8 / (t[b] - t[a]) / 1e6

    rates = [mbps(rx[f], j0, j1) for f in range(k)]
    sent = [r[col["sent"]] for r in rows]
    util = mbps(sent, j0, j1) * 1e6 / rate_bps

    # Jain's index over 1 s slices, from the last start on.
    slices = []
    j = next(j for j in range(len(t)) if t[j] >= max(starts))
    while True:
        e = next((x for x in range(j, len(t)) if t[x] >= t[j] + 1.0), None)
        if e is None or t[e] > t1:
            break
        slices.append((t[j] - max(starts), jain([mbps(rx[f], j, e)
                                                  for f in range(k)])))
        j = e
    conv = None
    for i in range(len(slices)):
        if all(x >= 0.95 for _, x in slices[i:]):
            conv = slices[i][0]
            break
    in_win = [s for s in slices if s[0] >= window_s]
    q = sorted(r[col["backlog"]] for r in rows[j0:j1 + 1])

    def total(name):
        return int(rows[-1][col[name]] - rows[0][col[name]])

    # The joins as they came: how close the two closest were.
    order = sorted(starts)
    join_gap = min((b - a for a, b in zip(order, order[1:])), default=0.0)

    print(" ".join([
        f"k={k}",
        "rates_mbps=" + ",".join(f"{x:.2f}" for x in rates),
        f"util={util:.3f}",
        f"jain={jain(rates):.4f}",
        f"jain_min={min(x for _, x in in_win):.3f}" if in_win else "jain_min=0",
        f"conv_s={conv:.1f}" if conv is not None else "conv_s=none",
        f"window_s={span:.1f}",
        f"backlog_mean={statistics.mean(q):.0f}",
        f"backlog_p99={q[int(0.99 * (len(q) - 1))]:.0f}",
        f"marked={total('marked')}",
        f"early={total('early')}",
        f"pdrop={total('pdrop')}",
        f"pdrop_win={int(rows[j1][col['pdrop']] - rows[j0][col['pdrop']])}",
        f"join_gap_min={join_gap:.1f}",
        "starts_s=" + ",".join(f"{s - t[0]:.1f}" for s in starts),
    ]))


def main():
    if len(sys.argv) == 7 and sys.argv[1] == "record":
        record(sys.argv[2], float(sys.argv[3]), sys.argv[4], int(sys.argv[5]),
               float(sys.argv[6]))
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "judge":
        judge(sys.argv[2], int(sys.argv[3]),
              float(sys.argv[4]) if len(sys.argv) == 5 else 2.0)
    else:
        print(__doc__, file=sys.stderr)
        raise SystemExit(2)


if __name__ == "__main__":
    main()
