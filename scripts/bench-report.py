#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Merge the per-guest CSVs of scripts/tests/bench.sh into one table.

Usage: bench-report.py SERVER.csv CLIENT.csv OUTDIR
Writes OUTDIR/bench.csv and OUTDIR/bench.png and prints the table.
"""
import csv
import sys


def load(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def main():
    server, client, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
    cpu_server = {(r["impl"], r["test"], r["size"]): float(r["cpu_s"]) for r in load(server)}
    rows = {}
    for r in load(client):
        key = (r["impl"], r["test"], r["size"])
        cpu = float(r["cpu_s"]) + cpu_server.get(key, 0.0)
        rows[key] = (r["value"], r["unit"], cpu)

    def val(impl, test, size):
        v = rows.get((impl, test, size))
        return float(v[0]) if v and v[0] else None

    tcp = val("tcp", "iperf3", "0")
    tests = sorted({(t, s) for (i, t, s) in rows if i != "tcp"},
                   key=lambda x: (x[0], int(x[1])))
    out = []
    hdr = ["test", "size", "unit", "sroce", "rxe", "sroce/rxe", "sroce/tcp",
           "sroce_cpu_s_per_GB", "rxe_cpu_s_per_GB"]
    for test, size in tests:
        unit = (rows.get(("sroce", test, size)) or rows.get(("rxe", test, size)))[1]
        s, x = val("sroce", test, size), val("rxe", test, size)
        ratio = f"{s / x:.2f}" if s and x else ""
        vs_tcp = f"{s / tcp:.2f}" if s and tcp and unit == "MB/s" else ""

        def cpu_per_gb(impl, v):
            r = rows.get((impl, test, size))
            if not r or not v or unit != "MB/s":
                return ""
            # bench.sh moves about 6 MiB per run (at least 20 messages).
            moved = max(6 * 1024 * 1024 // int(size), 20) * int(size)
            return f"{r[2] / (moved / 1e9):.0f}"
        out.append([test, size, unit, s if s is not None else "", x if x is not None else "",
                    ratio, vs_tcp, cpu_per_gb("sroce", s), cpu_per_gb("rxe", x)])

    with open(f"{outdir}/bench.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(hdr)
        w.writerows(out)
        w.writerow(["iperf3_tcp", "", "MB/s", "", "", "", "", "", ""] if tcp is None else
                   ["iperf3_tcp", "", "MB/s", tcp, "", "", "", "", ""])

    widths = [max(len(str(r[i])) for r in [hdr] + out) for i in range(len(hdr))]
    for r in [hdr] + out:
        print("  ".join(str(c).rjust(widths[i]) for i, c in enumerate(r)))
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
