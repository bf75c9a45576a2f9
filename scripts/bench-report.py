#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Merge the per-guest CSVs of scripts/tests/bench.sh into one table.

Usage: bench-report.py SERVER.csv CLIENT.csv OUTDIR [LINK_MTU]
Writes OUTDIR/bench.csv and OUTDIR/bench.png and prints the table: the
median of each figure over the rounds, and its range. LINK_MTU (default
1500) gives the RoCE path MTU the data packets were cut to, for the
passive server's packets per CPU second.
"""
import csv
import math
import sys

from bench_lib import load, ratio


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


# The perftest client busy-polls its CQ, and so does the server of
# ib_send_bw and of the latency tests: their CPU time is wall time. Only the
# passive server of ib_write_bw and ib_read_bw (the guest that receives the
# WRITEs, or that answers the READs) spends CPU on the transfer alone.
PASSIVE_SERVER = ("ib_write_bw", "ib_read_bw")

# RoCE's path MTU on a link: the largest IB MTU that fits with 80 bytes of
# headers (IPv6, UDP, BTH, RETH, ICRC), as sroce and rdma_rxe pick it.
IB_MTUS = (256, 512, 1024, 2048, 4096)


def path_mtu(link_mtu):
    return max(m for m in IB_MTUS if m <= max(link_mtu - 80, 256))


def main():
    server, client, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
    pmtu = path_mtu(int(sys.argv[4]) if len(sys.argv) > 4 else 1500)
    cpu_server = {(r["round"], r["impl"], r["test"], r["size"]): float(r["cpu_s"])
                  for r in load(server)}
    vals, cpus, units = {}, {}, {}
    # Values come from the client guest, or from guest 0 for loopback
    # tests (lo_*, tcp-lo), which run there whole.
    for r in load(client) + [r for r in load(server) if r["value"]]:
        key = (r["impl"], r["test"], r["size"])
        units[key] = r["unit"]
        # perftest prints inf/nan when its clock calibration failed.
        v = float(r["value"]) if r["value"] else math.nan
        if math.isfinite(v):
            vals.setdefault(key, []).append(v)
        cpu = cpu_server.get((r["round"],) + key)
        moved = float(r.get("bytes") or 0)
        if cpu is not None and moved > 0:
            cpus.setdefault(key, []).append(cpu / (moved / 1e9))

    def val(impl, test, size):
        v = vals.get((impl, test, size))
        return median(v) if v else None

    def spread(impl, test, size):
        v = vals.get((impl, test, size))
        return f"{min(v):g}-{max(v):g}" if v and len(v) > 1 else ""

    def cpu_per_gb(impl, test, size):
        c = cpus.get((impl, test, size))
        return f"{median(c):.0f}" if c and test in PASSIVE_SERVER else ""

    # Data packets (full path MTU ones; ACKs and requests not counted)
    # the passive server handled per CPU second, in thousands.
    def kpps_per_cpu(impl, test, size):
        c = cpus.get((impl, test, size))
        if not c or test not in PASSIVE_SERVER or median(c) <= 0:
            return ""
        return f"{1e9 / pmtu / median(c) / 1e3:.1f}"

    tcp = val("tcp", "iperf3", "0")
    tcp_lo = val("tcp-lo", "iperf3", "0")
    variants = {"sroce-notrain": "sroce/notrain", "sroce-fixedwin": "sroce/fixedwin",
                "sroce-nortt": "sroce/nortt", "sroce-base": "sroce/base",
                "sroce-uso": "sroce/uso"}
    impls = [i for i in ("sroce", *variants, "rxe")
             if any(k[0] == i for k in units)]
    tests = sorted({(t, s) for (i, t, s) in units if not i.startswith("tcp")},
                   key=lambda x: (x[0], int(x[1])))
    rounds = len({r["round"] for r in load(client)} - {"0"})
    out = []
    hdr = ["test", "size", "unit"]
    for i in impls:
        hdr += [i, f"{i}_range"]
    hdr += ["sroce/rxe", "sroce/tcp"]
    hdr += [variants[i] for i in impls if i in variants]
    hdr += [f"{i}_srv_cpu_s_per_GB" for i in impls]
    hdr += [f"{i}_srv_kpps_per_cpu" for i in impls]
    for test, size in tests:
        unit = next((units[(i, test, size)] for i in impls if (i, test, size) in units), "")
        s = val("sroce", test, size)
        row = [test, size, unit]
        for i in impls:
            v = val(i, test, size)
            row += ["" if v is None else f"{v:.2f}", spread(i, test, size)]
        ceiling = tcp_lo if test.startswith("lo_") else tcp
        row += [ratio(s, val("rxe", test, size)), ratio(s, ceiling) if unit == "MB/s" else ""]
        row += [ratio(s, val(i, test, size)) for i in impls if i in variants]
        row += [cpu_per_gb(i, test, size) for i in impls]
        row += [kpps_per_cpu(i, test, size) for i in impls]
        out.append(row)

    with open(f"{outdir}/bench.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(hdr)
        w.writerows(out)
        w.writerow(["iperf3_tcp", "", "MB/s"] + ["" if tcp is None else tcp] +
                   [""] * (len(hdr) - 4))
        if tcp_lo:
            w.writerow(["iperf3_tcp_lo", "", "MB/s", tcp_lo] + [""] * (len(hdr) - 4))

    widths = [max(len(str(r[i])) for r in [hdr] + out) for i in range(len(hdr))]
    for r in [hdr] + out:
        print("  ".join(str(c).rjust(widths[i]) for i, c in enumerate(r)))
    print(f"medians over {rounds} alternating round(s) (latency: 3 runs a round); "
          "*_range: min-max; latency ratios: sroce time over the other's (lower is better); "
          "srv_cpu: CPU seconds of the passive server guest per GB moved; "
          f"srv_kpps_per_cpu: its {pmtu}-byte data packets per CPU second, thousands")
    print(f"TCP (iperf3) on the same link: {tcp} MB/s" if tcp else "TCP: no result")
    if tcp_lo:
        print(f"TCP (iperf3) in guest 0 to its own address (lo_* tests' ceiling): {tcp_lo} MB/s")

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
        for impl in impls:
            ys = [val(impl, test, str(s)) for s in sizes]
            ax.plot(sizes, [y if y is not None else float("nan") for y in ys], marker="o", label=impl)
        ceiling = tcp_lo if test.startswith("lo_") else tcp
        if ceiling:
            ax.axhline(ceiling, linestyle="--", color="gray", label="TCP (iperf3)")
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
