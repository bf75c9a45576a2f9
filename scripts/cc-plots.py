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
  cc-plots.py netns OUT.png netns-MODE.csv...
      K:1 in one guest (scripts/tests/cc-netns.sh): each sender's rate
      into the switch (1 s means) and the bottleneck queue over time,
      from cc-testbed.py's samples, one column of panels per mode (the
      mode read from the file's name)
  cc-plots.py demo OUT.png RXE-DIR SROCE-DIR
      make demo's table (printed) and figure: the same incast over
      rdma_rxe and over sroce with DCQCN, from each vm-run.sh output
      directory (guest0/results.txt and guest0/incast-on-rates.csv)

Needs Debian's python3-matplotlib.
"""

import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 pylint: disable=wrong-import-position


def read_rates(path):
    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return {k: [float(r[k]) for r in rows] for k in rows[0]} if rows else {}


def incast(out, paths):
    columns = [("DCQCN on", paths[0])] + ([("DCQCN off", paths[1])] if len(paths) > 1 else [])
    incast_columns(out, [(f"2:1 through 16 Mb/s, {t}", read_rates(p)) for t, p in columns])


def incast_columns(out, columns):
    """One column of panels per (title, rates) pair: rates, then queue."""
    fig, axes = plt.subplots(2, len(columns), figsize=(6 * len(columns), 6), squeeze=False,
                             sharex=True, sharey="row")
    for col, (title, d) in enumerate(columns):
        top, bottom = axes[0][col], axes[1][col]
        top.plot(d["t_s"], d["s1_offered_mbps"], label="sender 1")
        top.plot(d["t_s"], d["s2_offered_mbps"], label="sender 2")
        top.axhline(8, color="grey", linestyle=":", label="fair share (8 Mb/s)")
        top.set_title(title)
        top.set_ylabel("rate at the switch port, Mb/s")
        top.legend(loc="upper right", fontsize="small")
        bottom.plot(d["t_s"], [b / 1000 for b in d["backlog_b"]], color="tab:red",
                    label="RED queue")
        if red:
            bottom.axhline(10, color="grey", linestyle=":", label="RED max (10 KB)")
        bottom.set_ylabel("queue, KB (0.5 s samples)")
        bottom.set_xlabel("time, s")
        drops = d["dropped"][-1] if d["dropped"] else 0
        marks = d["marked"][-1] if d["marked"] else 0
        bottom.set_title(f"marked {marks:.0f}, dropped {drops:.0f}", fontsize="small")
        bottom.legend(loc="upper right", fontsize="small")
    fig.tight_layout()
    fig.savefig(out, dpi=90)


def read_testbed(path):
    """cc-testbed.py's samples: rate_bps and the columns by name."""
    rate = 0.0
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("# rate_bps="):
                rate = float(line.split("=")[1])
            elif line.startswith("t,"):
                names = line.strip().split(",")
            else:
                rows.append([float(x) for x in line.split(",")])
    return rate, {n: [r[i] for r in rows] for i, n in enumerate(names)}


# cc-netns.sh's modes: the title of each and whether its queue is RED's.
NETNS_MODES = {
    "on": ("DCQCN, RED/ECN", True),
    "off": ("no CC, RED/ECN", True),
    "timely": ("TIMELY, tail drop", False),
    "drop": ("no CC, tail drop", False),
}


def netns(out, paths):
    width = 7 if len(paths) <= 2 else 4.5
    fig, axes = plt.subplots(2, len(paths), figsize=(width * len(paths), 6), squeeze=False,
                             sharex=True, sharey="row")
    for col, path in enumerate(paths):
        mode = os.path.basename(path).removeprefix("netns-").removesuffix(".csv")
        title, red = NETNS_MODES.get(mode, (mode, True))
        rate, d = read_testbed(path)
        flows = sorted((n for n in d if n.startswith("rx")), key=lambda n: int(n[2:]))
        t, top, bottom = d["t"], axes[0][col], axes[1][col]
        t0 = t[0]
        for n in flows:
            xs, ys, j = [], [], 0
            while True:
                e = next((x for x in range(j, len(t)) if t[x] >= t[j] + 1.0), None)
                if e is None:
                    break
                xs.append(t[e] - t0)
                ys.append((d[n][e] - d[n][j]) * 8 / (t[e] - t[j]) / 1e6)
                j = e
            top.plot(xs, ys, linewidth=0.8)
        top.axhline(rate / 1e6 / len(flows), color="grey", linestyle=":",
                    label=f"fair share ({rate / 1e6 / len(flows):g} Mb/s)")
        top.legend(loc="upper right", fontsize="small")
        top.set_title(f"{len(flows)}:1 through {rate / 1e6:g} Mb/s, {title}", fontsize="medium")
        top.set_ylabel("rate into the switch, Mb/s")
        bottom.plot([x - t0 for x in t], [b / 1000 for b in d["backlog"]],
                    color="tab:red", label="queue")
        if red:
            bottom.axhline(10, color="grey", linestyle=":", label="RED max (10 KB)")
        bottom.set_ylabel("queue, KB (0.2 s samples)")
        bottom.set_xlabel("time, s")
        bottom.set_title(f"marked {d['marked'][-1] - d['marked'][0]:.0f}, "
                         f"dropped {d['pdrop'][-1] - d['pdrop'][0]:.0f}", fontsize="small")
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


def incast_result(run_dir):
    """The key=value fields of a run's incast result line (cc.sh)."""
    with open(f"{run_dir}/guest0/results.txt", encoding="utf-8") as f:
        for line in f:
            if "scenario=incast" in line:
                return {k: v for k, v in (w.split("=", 1) for w in line.split() if "=" in w)}
    raise ValueError(f"no incast result in {run_dir}/guest0/results.txt")


def jain(rates):
    """Jain's fairness index: 1 when all are equal, 1/n when one takes all."""
    total = sum(rates)
    return total * total / (len(rates) * sum(r * r for r in rates)) if total else 0.0


def demo_rows(r):
    """make demo's table rows for one run's result fields."""
    f = {k: float(v) for k, v in r.items() if k not in ("scenario", "mode", "type", "rate")}
    line_mbps = float(r["rate"].removesuffix("mbit"))
    offered = [f["offered1_mbps"], f["offered2_mbps"]]
    return [
        f"{f['msgs1']:.0f} / {f['msgs2']:.0f}",
        f"{sum(offered):.2f} ({sum(offered) / line_mbps:.2f})",
        f"{jain(offered):.3f}",
        f"{f['backlog_mean'] / 1000:.1f} / {f['backlog_max'] / 1000:.1f}",
        f"{f['red_early']:.0f} / {f['red_pdrop']:.0f}",
        f"{f['marked']:.0f}",
        f"{f['cnp_sent']:.0f} / {f['handled']:.0f}",
        f"{f['sent_pkts']:.0f}",
    ]


DEMO_LABELS = [
    "64 KiB WRITEs completed, sender 1 / 2",
    "offered at the port (Mb/s; / line rate)",
    "Jain's fairness index (1 = fair)",
    "queue mean / max (KB; RED max 10)",
    "drops: RED early / no room",
    "packets CE-marked by RED",
    "CNPs sent / acted on by senders",
    "packets the senders sent",
]


def demo(out, rxe_dir, sroce_dir):
    runs = [("rdma_rxe", rxe_dir), ("sroce, DCQCN", sroce_dir)]
    rows = [demo_rows(incast_result(d)) for _, d in runs]
    width = max(len(label) for label in DEMO_LABELS)
    print(f"{'':{width}}  {runs[0][0]:>18}  {runs[1][0]:>18}")
    for i, label in enumerate(DEMO_LABELS):
        print(f"{label:{width}}  {rows[0][i]:>18}  {rows[1][i]:>18}")
    incast_columns(out, [
        ("rdma_rxe: Not-ECT, RED drops, go-back-N resends",
         read_rates(f"{rxe_dir}/guest0/incast-on-rates.csv")),
        ("sroce: ECT(0), RED marks, CNPs, DCQCN paces",
         read_rates(f"{sroce_dir}/guest0/incast-on-rates.csv")),
    ])


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("incast", "rates", "mark", "demo", "netns"):
        sys.exit(__doc__)
    if sys.argv[1] == "incast":
        incast(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "netns":
        netns(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "rates":
        rates(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "demo" and len(sys.argv) == 5:
        demo(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "mark":
        mark(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
