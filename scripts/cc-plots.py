#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plots of the guest DCQCN experiments (scripts/check-cc.sh).

  cc-plots.py incast OUT.png ON-RATES.csv [OFF-RATES.csv]
      per-flow rate at the switch port and the bottleneck queue over
      time, from cc.sh's incast-MODE-rates.csv (guest 0), one column of
      panels per mode
  cc-plots.py rates OUT.png RATES.csv
      per-QP Rc over time from tools/sroce-rate-plot's CSV, the rate
      axis cut at 32 Mb/s (twice the bottleneck) so that the line-rate
      start does not flatten the rest
  cc-plots.py mark OUT.png RESULTS.txt
      throughput share of rp_max_rate per marking percentage, measured
      against the model (cc.sh's "scenario=mark-model" result lines)

Needs Debian's python3-matplotlib.
"""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 pylint: disable=wrong-import-position


def read_rates(path):
    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return {k: [float(r[k]) for r in rows] for k in rows[0]} if rows else {}


def incast(out, paths):
    modes = [("DCQCN on", paths[0])] + ([("DCQCN off", paths[1])] if len(paths) > 1 else [])
    fig, axes = plt.subplots(2, len(modes), figsize=(6 * len(modes), 6), squeeze=False,
                             sharex=True)
    for col, (title, path) in enumerate(modes):
        d = read_rates(path)
        top, bottom = axes[0][col], axes[1][col]
        top.plot(d["t_s"], d["s1_offered_mbps"], label="sender 1")
        top.plot(d["t_s"], d["s2_offered_mbps"], label="sender 2")
        top.axhline(8, color="grey", linestyle=":", label="fair share (8 Mb/s)")
        top.set_title(f"2:1 through 16 Mb/s, {title}")
        top.set_ylabel("rate at the switch port, Mb/s")
        top.legend(loc="upper right", fontsize="small")
        bottom.plot(d["t_s"], [b / 1000 for b in d["backlog_b"]], color="tab:red",
                    label="RED queue")
        bottom.axhline(10, color="grey", linestyle=":", label="RED max (10 KB)")
        bottom.set_ylabel("queue, KB (0.5 s samples)")
        bottom.set_xlabel("time, s")
        drops = d["dropped"][-1] if d["dropped"] else 0
        marks = d["marked"][-1] if d["marked"] else 0
        bottom.set_title(f"marked {marks:.0f}, dropped {drops:.0f}", fontsize="small")
        bottom.legend(loc="upper right", fontsize="small")
    fig.tight_layout()
    fig.savefig(out, dpi=90)


def rates(out, path):
    flows = {}
    with open(path, encoding="utf-8") as f:
        for r in csv.DictReader(f):
            t, rc = flows.setdefault(f"{r['source']}:{r['qpn']}", ([], []))
            t.append(float(r["time_s"]))
            rc.append(float(r["rc_kbps"]) / 1000)
    fig, ax = plt.subplots(figsize=(9, 4))
    for name, (t, rc) in sorted(flows.items()):
        ax.step(t, rc, where="post", label=f"{name} Rc", linewidth=0.8)
    ax.axhline(8, color="grey", linestyle=":", label="fair share (8 Mb/s)")
    ax.set_ylim(0, 32)
    ax.set_xlabel("time, s (senders aligned on the start barrier)")
    ax.set_ylabel("Rc, Mb/s")
    ax.set_title("DCQCN rate per QP (sroce_cc_rate), 2:1 through 16 Mb/s")
    ax.legend(loc="upper right", fontsize="small")
    fig.tight_layout()
    fig.savefig(out, dpi=90)


def mark(out, results):
    pts = []
    with open(results, encoding="utf-8") as f:
        for line in f:
            if "scenario=mark-model" not in line:
                continue
            kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
            pts.append((float(kv["p"]), float(kv["share"]), float(kv["model_share"])))
    pts.sort()
    fig, ax = plt.subplots(figsize=(6, 4))
    x = [p for p, _, _ in pts]
    ax.plot(x, [m for _, m, _ in pts], "o-", label="sroce, measured")
    ax.plot(x, [e for _, _, e in pts], "s--", label="model (scripts/cc-model.py mark)")
    ax.set_xscale("log")
    ax.set_xticks(x)
    ax.set_xticklabels([f"{p:g} %" for p in x])
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("CE marking probability (netem ecn)")
    ax.set_ylabel("throughput / rp_max_rate")
    ax.set_title("DCQCN under random CE marking")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=90)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("incast", "rates", "mark"):
        sys.exit(__doc__)
    if sys.argv[1] == "incast":
        incast(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "rates":
        rates(sys.argv[2], sys.argv[3])
    else:
        mark(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
