#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One table and one plot over the configurations of a make bench sweep.

Usage: bench-sweep.py OUTDIR MTU:LOSS:DIR...
Each DIR holds the bench.csv that bench-report.py wrote for one run of
scripts/tests/bench.sh on a link of that MTU with netem dropping LOSS
percent. For every bandwidth test and size this prints sroce, rdma_rxe
and TCP in each configuration, sroce/rxe, and the share of its lossless
bandwidth (same MTU) each implementation kept; and writes
OUTDIR/sweep.csv, OUTDIR/sweep.png and OUTDIR/sweep.svg (bandwidth
against loss at 64 KiB, one panel per test, a line per implementation
and MTU).
"""
import csv
import sys

from bench_lib import load, ratio


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def fmt(v):
    return "" if v is None else f"{v:.2f}"


def main():
    outdir = sys.argv[1]
    runs = {}
    for arg in sys.argv[2:]:
        mtu, loss, d = arg.split(":", 2)
        rows = load(f"{d}/bench.csv")
        tcp = {r["test"]: num(r["sroce"]) for r in rows if r["test"].startswith("iperf3_tcp")}
        bw = {(r["test"], r["size"]): (num(r.get("sroce")), num(r.get("rxe")))
              for r in rows if r["unit"] == "MB/s" and r["test"].endswith("_bw")}
        runs[(int(mtu), float(loss))] = (bw, tcp)

    tests = sorted({k for bw, _ in runs.values() for k in bw},
                   key=lambda k: (k[0], int(k[1])))
    hdr = ["test", "size", "mtu", "loss_pct", "sroce", "rxe", "tcp",
           "sroce/rxe", "sroce/tcp", "sroce_kept", "rxe_kept"]
    out = []
    for test, size in tests:
        for mtu, loss in sorted(runs):
            bw, tcps = runs[(mtu, loss)]
            if (test, size) not in bw:
                continue
            # Loopback tests (lo_*) have TCP to the guest's own address.
            tcp = tcps.get("iperf3_tcp_lo" if test.startswith("lo_") else "iperf3_tcp")
            s, r = bw[(test, size)]
            base = runs.get((mtu, 0.0), ({}, None))[0].get((test, size), (None, None))
            out.append([test, size, mtu, f"{loss:g}", fmt(s), fmt(r), fmt(tcp),
                        ratio(s, r), ratio(s, tcp),
                        ratio(s, base[0]) if loss else "",
                        ratio(r, base[1]) if loss else ""])

    with open(f"{outdir}/sweep.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(hdr)
        w.writerows(out)
    widths = [max(len(str(r[i])) for r in [hdr] + out) for i in range(len(hdr))]
    for r in [hdr] + out:
        print("  ".join(str(c).rjust(widths[i]) for i, c in enumerate(r)))
    print("MB/s, medians of each configuration's rounds; *_kept: share of the "
          "lossless bandwidth at the same MTU")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
        return 0
    # The plot shows 64 KiB (every run has it); the table has every size.
    panels = [k for k in tests if not k[0].startswith("lo_") and k[1] == "65536"]
    fig, axes = plt.subplots(1, max(len(panels), 1),
                             figsize=(4.5 * max(len(panels), 1), 3.8), squeeze=False)
    for ax, (test, size) in zip(axes[0], panels):
        for mtu in sorted({m for m, _ in runs}):
            losses = sorted(l for m, l in runs if m == mtu)
            for i, impl in enumerate(("sroce", "rdma_rxe")):
                ys = [runs[(mtu, l)][0].get((test, size), (None, None))[i] for l in losses]
                ax.plot(losses, [float("nan") if y is None else y for y in ys],
                        marker="o", linestyle="-" if i == 0 else "--",
                        label=f"{impl}, MTU {mtu}")
        ax.set_title(f"{test}, {int(size) // 1024} KiB")
        ax.set_xlabel("netem loss (%)")
        ax.set_ylabel("MB/s")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(f"{outdir}/sweep.png", dpi=100)
    fig.savefig(f"{outdir}/sweep.svg")
    print(f"wrote {outdir}/sweep.csv, {outdir}/sweep.png and {outdir}/sweep.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
