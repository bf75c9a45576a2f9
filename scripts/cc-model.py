#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Expected figures for the guest DCQCN experiments, from the reference model.

Runs the independent DCQCN model (dcqcn_model.py of the reference notes,
not part of sroce) with the parameters scripts/tests/cc.sh sets, so that
the measured runs can be compared with it:

  cc-model.py [--model-dir DIR] incast   2:1 through the 16 Mb/s bottleneck
  cc-model.py [--model-dir DIR] mark     Bernoulli CE marking, 1/5/20 %
  cc-model.py [--model-dir DIR] [--rate R] netns
                                         K:1 through R Mb/s (64), K = 2..16
                                         (scripts/tests/cc-netns.sh)

DIR (default: $SROCE_DCQCN_MODEL, else ../shared/reference/model next to
the tree) holds dcqcn_model.py. The model counts an increase event before
testing "< F", sroce tests before counting, so F here is rp_threshold + 1
(see sroce_cc.c). The model has sroce's ConnectX semantics through
alpha_mode='window' (alpha updated per rp_dce_tcp_rtt from a CNP flag),
dec_period (rp_rate_reduce_monitor_period), min_dec (rp_min_dec_fac) and
clamp=False (rp_clamp_tgt_rate 0 with rp_clamp_tgt_rate_ati 1).
"""

import argparse
import os
import statistics
import sys

PKT_BITS = 1082 * 8  # 1024-byte payload plus headers at path MTU 1024

# cc.sh INCAST_PRESET in model units (us, Mb/s, bits).
PRESET = dict(N=500.0, K=1000.0, T=50000.0, B=1e15, F=2, g=5 / 1024.0,
              rai=1.0, rhai=1.0, min_rate=1.0, alpha0=1023 / 1024.0,
              clamp=False, dec_period=1000.0, alpha_mode="window",
              hai_mode="const", min_dec=0.5, pkt=PKT_BITS)


def incast(m):
    """cc.sh incast: 16 Mb/s, RED 3000/10000 B, p 0.2, limit 400000 B."""
    red = dict(C=16.0, kmin=3000 * 8.0, kmax=10000 * 8.0, pmax=0.2,
               buf=400000 * 8.0)
    join, dur, w = 5e6, 40e6, 500e3  # check-cc.sh: dur=40 join=5
    for line in (40.0, 80.0):
        for ow in (300.0, 1000.0):
            for seed in (1, 2):
                r = m.run(n_flows=2, line=line, one_way=ow, start_gap=join,
                          sim_time=dur, seed=seed, **red, **PRESET)
                a = m.analyze(r, w=w, fair_tol=0.1, hold=4)
                rates = [m.binned(s, 0, dur, w, r["pkt"]) for s in r["sent"]]
                # cc.sh's window: the second half of the time both run.
                k0 = int((join + (dur - join) / 2) // w)
                mean = [statistics.mean(x[k0:]) for x in rates]
                fair = sum(mean) / 2
                dev = max(abs(x - fair) for x in mean) / fair
                print(f"incast line={line:g} one_way_us={ow:g} seed={seed} "
                      f"rates_mbps={mean[0]:.2f},{mean[1]:.2f} "
                      f"fair_dev={dev:.3f} util={sum(mean) / 16:.3f} "
                      f"q_mean_kb={a['q_mean_KB']} q_p99_kb={a['q_p99_KB']} "
                      f"drops={r['drops']} cnp_per_s={a['cnp_per_s']}")


def mark(m):
    """cc.sh mark with the incast preset, T 10 ms and rp_max_rate 40."""
    line = 40.0
    for ow in (300.0, 1000.0):
        for p in (0.01, 0.05, 0.2):
            r = m.run(n_flows=1, C=1e4, line=line, one_way=ow, starts=[0.0],
                      sim_time=8e6, const_p=p, kmin=1e12, kmax=2e12, pmax=0,
                      **dict(PRESET, T=10000.0))
            rates = m.binned(r["sent"][0], 0, r["sim_time"], 1e4, r["pkt"])
            tail = rates[len(rates) // 2:]
            print(f"mark line={line:g} one_way_us={ow:g} p={p * 100:g}% "
                  f"share={statistics.mean(tail) / line:.3f} "
                  f"cnp_per_s={r['cnps'][0] / (r['sim_time'] / 1e6):.0f}")


def netns(m, rate):
    """cc-netns.sh: @rate Mb/s, RED as incast, T 100 ms, a start every 1 s,
    the line rate the preset's rp_max_rate (200 Mb/s).

    Judged as cc-testbed.py judges the guest's samples: the window from
    the last start plus 2 s to the end, 1 s slices for Jain's index.
    """
    red = dict(C=rate, kmin=3000 * 8.0, kmax=10000 * 8.0, pmax=0.2,
               buf=400000 * 8.0)
    preset = dict(PRESET, T=100000.0)
    line = 200.0
    for k in (2, 4, 8, 16):
        gap, dur = 1e6, 1e6 * (k - 1) + 25e6
        r = m.run(n_flows=k, line=line, one_way=100.0,
                  starts=[i * gap for i in range(k)], sim_time=dur,
                  seed=1, **red, **preset)
        last = gap * (k - 1)
        w0, w = last + 2e6, 1e6
        rates = [m.binned(s, 0, dur, w, r["pkt"]) for s in r["sent"]]
        k0 = int(w0 // w)
        mean = [statistics.mean(x[k0:]) for x in rates]
        jain = sum(mean) ** 2 / (k * sum(x * x for x in mean))
        slices = []
        for j in range(int(last // w), len(rates[0])):
            xs = [x[j] for x in rates]
            slices.append(sum(xs) ** 2 / (k * sum(x * x for x in xs)))
        conv = next((i for i in range(len(slices))
                     if min(slices[i:]) >= 0.95), None)
        q = sorted(qb / 8 for t, qb in r["qlog"] if t >= w0)
        print(f"netns k={k} rate={rate:g} line={line:g} "
              f"util={sum(mean) / rate:.3f} "
              f"jain={jain:.4f} jain_min={min(slices[2:]):.3f} "
              f"conv_s={conv} q_mean_b={statistics.mean(q):.0f} "
              f"q_p99_b={q[int(0.99 * (len(q) - 1))]:.0f} "
              f"drops={r['drops']}")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.environ.get("SROCE_DCQCN_MODEL") or os.path.join(
        here, "..", "..", "shared", "reference", "model")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model-dir", default=default)
    ap.add_argument("--rate", type=float, default=64.0,
                    help="netns: the bottleneck's rate, Mb/s")
    ap.add_argument("scenario", choices=("incast", "mark", "netns"))
    args = ap.parse_args()
    sys.path.insert(0, args.model_dir)
    try:
        import dcqcn_model  # pylint: disable=import-outside-toplevel
    except ImportError:
        sys.exit(f"cc-model.py: no dcqcn_model.py in {args.model_dir}")
    {"incast": incast, "mark": mark,
     "netns": lambda m: netns(m, args.rate)}[args.scenario](dcqcn_model)


if __name__ == "__main__":
    main()
