#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Merge the per-guest CSVs of scripts/tests/bench.sh into one table.

Usage: bench-report.py SERVER.csv CLIENT.csv OUTDIR
Writes OUTDIR/bench.csv and OUTDIR/bench.png and prints the table: the
median of each figure over the rounds, and its range.
"""
import csv
import math
import sys


def load(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


# The perftest client busy-polls its CQ, and so does the server of
# ib_send_bw and of the latency tests: their CPU time is wall time. Only the
# passive server of ib_write_bw and ib_read_bw (the guest that receives the
# WRITEs, or that answers the READs) spends CPU on the transfer alone.
PASSIVE_SERVER = ("ib_write_bw", "ib_read_bw")


def main():
    server, client, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
    cpu_server = {(r["round"], r["impl"], r["test"], r["size"]): float(r["cpu_s"])
                  for r in load(server)}
    vals, cpus, units = {}, {}, {}
    for r in load(client):
        key = (r["impl"], r["test"], r["size"])
        units[key] = r["unit"]
        # perftest prints inf/nan when its clock calibration failed.
        v = float(r["value"]) if r["value"] else math.nan
        if math.isfinite(v):
            vals.setdefault(key, []).append(v)
        cpu = cpu_server.get((r["round"],) + key)
        if cpu is not None:
            cpus.setdefault(key, []).append(cpu)

    def val(impl, test, size):
        v = vals.get((impl, test, size))
        return median(v) if v else None

    def spread(impl, test, size):
        v = vals.get((impl, test, size))
        return f"{min(v):g}-{max(v):g}" if v and len(v) > 1 else ""

    tcp = val("tcp", "iperf3", "0")
    tests = sorted({(t, s) for (i, t, s) in units if i != "tcp"},
                   key=lambda x: (x[0], int(x[1])))
    rounds = len({r["round"] for r in load(client)} - {"0"})
    out = []
    hdr = ["test", "size", "unit", "sroce", "sroce_range", "rxe", "rxe_range",
           "sroce/rxe", "sroce/tcp", "sroce_srv_cpu_s_per_GB", "rxe_srv_cpu_s_per_GB"]
    for test, size in tests:
        unit = units.get(("sroce", test, size)) or units.get(("rxe", test, size))
        s, x = val("sroce", test, size), val("rxe", test, size)
        ratio = f"{s / x:.2f}" if s and x else ""
        vs_tcp = f"{s / tcp:.2f}" if s and tcp and unit == "MB/s" else ""

        def cpu_per_gb(impl):
            c = cpus.get((impl, test, size))
            if not c or test not in PASSIVE_SERVER:
                return ""
            # bench.sh moves about 6 MiB per run (at least 20 messages).
            moved = max(6 * 1024 * 1024 // int(size), 20) * int(size)
            return f"{median(c) / (moved / 1e9):.0f}"
        out.append([test, size, unit, "" if s is None else f"{s:.2f}", spread("sroce", test, size),
                    "" if x is None else f"{x:.2f}", spread("rxe", test, size), ratio, vs_tcp,
                    cpu_per_gb("sroce"), cpu_per_gb("rxe")])

    with open(f"{outdir}/bench.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(hdr)
        w.writerows(out)
        w.writerow(["iperf3_tcp", "", "MB/s"] + ["" if tcp is None else tcp] + [""] * 7)

    widths = [max(len(str(r[i])) for r in [hdr] + out) for i in range(len(hdr))]
    for r in [hdr] + out:
        print("  ".join(str(c).rjust(widths[i]) for i, c in enumerate(r)))
    print(f"medians over {rounds} alternating rounds (latency: 3 runs a round); *_range: min-max; "
          "srv_cpu: CPU seconds of the passive server guest per GB moved")
    print(f"TCP (iperf3) on the same link: {tcp} MB/s" if tcp else "TCP: no result")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
        return 0
    bw = [t for t in {t for t, _ in tests} if t.endswith("_bw")]
    fig, axes = plt.subplots(1, max(len(bw), 1), figsize=(5 * max(len(bw), 1), 4), squeeze=False)
    for ax, test in zip(axes[0], sorted(bw)):
        sizes = [int(s) for t, s in tests if t == test]
        for impl in ("sroce", "rxe"):
            ys = [val(impl, test, str(s)) for s in sizes]
            ax.plot(sizes, [y if y is not None else float("nan") for y in ys], marker="o", label=impl)
        if tcp:
            ax.axhline(tcp, linestyle="--", color="gray", label="TCP (iperf3)")
        ax.set_xscale("log", base=2)
        ax.set_title(test)
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("MB/s")
        ax.legend()
    fig.tight_layout()
    fig.savefig(f"{outdir}/bench.png", dpi=100)
    print(f"wrote {outdir}/bench.csv and {outdir}/bench.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
