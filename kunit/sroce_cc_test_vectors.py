#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Expected values of kunit/sroce_cc_test.c, from the reference DCQCN model.

Runs the reaction-point code of ../shared/reference/model/dcqcn_model.py
itself (its catch_up, on_cnp and increase closures, taken out of run()) on
a fake clock, and prints the C tables of the RP scenarios: after each
event, Rc and Rt in kb/s and alpha in 1/1024, rounded to nearest.

Parameter mapping (sroce/mlx5 name -> model argument):
  rp_dce_tcp_rtt -> K, rp_time_reset -> T, rp_byte_reset*64*8 -> B (bits),
  rp_threshold F -> F+1 (sroce counts F fast-recovery events, the model's
  "< F" test F-1), (1024 - rp_dce_tcp_g)/1024 -> g, rp_ai_rate -> rai,
  rp_hai_rate -> rhai (hai_mode 'mlx': constant step), rp_min_rate ->
  min_rate, rp_initial_alpha_value/1024 -> alpha0,
  rp_rate_to_set_on_first_cnp -> rate_on_first_cnp (None for 0),
  rp_clamp_tgt_rate -> clamp, rp_rate_reduce_monitor_period -> dec_period,
  (100 - rp_min_dec_fac)/100 -> min_dec, alpha_mode 'window'.
The model has no rp_gd (it is 11), no rp_clamp_tgt_rate_ati (it is 1) and
no rp_max_rate (line is the ceiling); cases on those are computed by hand
in the C file.

Usage: python3 kunit/sroce_cc_test_vectors.py [MODEL_DIR]
"""
import math
import sys

MODEL_DIR = sys.argv[1] if len(sys.argv) > 1 else '/work/shared/reference/model'
sys.path.insert(0, MODEL_DIR)
import dcqcn_model  # noqa: E402

DEFAULTS = dict(rp_dce_tcp_rtt=1, rp_time_reset=300, rp_byte_reset=32767,
                rp_threshold=1, rp_dce_tcp_g=1019, rp_ai_rate=5,
                rp_hai_rate=50, rp_min_rate=1, rp_initial_alpha_value=1023,
                rp_rate_to_set_on_first_cnp=0, rp_clamp_tgt_rate=0,
                rp_rate_reduce_monitor_period=4, rp_min_dec_fac=50)


def model_rp(line, prm):
    """Return the model's RP closures and state lists for one flow."""
    kw = dict(n_flows=1, C=line, line=line, starts=[0.0], sim_time=-1.0,
              K=float(prm['rp_dce_tcp_rtt']), T=float(prm['rp_time_reset']),
              B=prm['rp_byte_reset'] * 64 * 8 if prm['rp_byte_reset'] else 1e30,
              F=prm['rp_threshold'] + 1, g=(1024 - prm['rp_dce_tcp_g']) / 1024.,
              rai=float(prm['rp_ai_rate']), rhai=float(prm['rp_hai_rate']),
              min_rate=float(prm['rp_min_rate']),
              alpha0=prm['rp_initial_alpha_value'] / 1024.,
              rate_on_first_cnp=(float(prm['rp_rate_to_set_on_first_cnp'])
                                 if prm['rp_rate_to_set_on_first_cnp'] else None),
              clamp=bool(prm['rp_clamp_tgt_rate']),
              dec_period=float(prm['rp_rate_reduce_monitor_period']),
              min_dec=(100 - prm['rp_min_dec_fac']) / 100.,
              alpha_mode='window', hai_mode='mlx')
    grabbed = {}

    def tracer(frame, event, arg):
        if frame.f_code is dcqcn_model.run.__code__:
            if event == 'return':
                grabbed.update(frame.f_locals)
            return tracer
        return None
    sys.settrace(tracer)
    dcqcn_model.run(**kw)
    sys.settrace(None)
    return grabbed, kw


def tx(m, kw, now, nbytes):
    """The byte-counter lines of the model's 'tx' event, for one packet."""
    m['catch_up'](0, now)
    if m['t_timer_ref'][0] is not None:
        m['bytes_'][0] += nbytes
        while m['bytes_'][0] >= kw['B'] / 8:
            m['bytes_'][0] -= kw['B'] / 8
            m['bstage'][0] += 1
            m['increase'](0)


def rnd(x, what):
    """Round half up, as DIV_ROUND_CLOSEST_ULL() does; flag near-ties that
    integer arithmetic could push either way."""
    r = math.floor(x + 0.5)
    if x != r - 0.5 and abs(abs(x - int(x)) - 0.5) < 1e-3:
        print('/* WARNING: %s %.6f is close to a rounding boundary */' % (what, x))
    return r


def scenario(name, line, overrides, events):
    prm = dict(DEFAULTS, **overrides)
    m, kw = model_rp(line, prm)
    opts = ['%s=%s' % kv for kv in sorted(overrides.items())] or ['defaults']
    print('/*\n * line %d Mb/s,\n * %s\n */' % (line, ',\n * '.join(opts)))
    print('static const struct sroce_cc_test_step %s[] = {' % name)
    for ev in events:
        op, t_us = ev[0], ev[1]
        verdict = 'SROCE_CC_CNP_HANDLED'
        if op == 'CNP':
            before = m['last_cut'][0]
            m['on_cnp'](0, float(t_us))
            if m['last_cut'][0] == before:
                verdict = 'SROCE_CC_CNP_IGNORED'
        elif op == 'TX':
            tx(m, kw, float(t_us), ev[2])
        else:
            m['catch_up'](0, float(t_us))
        arg = ev[2] if op == 'TX' else 0
        rc = rnd(m['Rc'][0] * 1000, 'Rc')
        rt = rnd(m['Rt'][0] * 1000, 'Rt')
        al = rnd(m['alpha'][0] * 1024, 'alpha')
        vd = verdict if op == 'CNP' else '0'
        print('\t{ STEP_%s, %d, %d, %s, %d, %d, %d },' % (op, t_us, arg, vd, rc, rt, al))
    print('};\n')


def main():
    # Defaults at 40 Gb/s: first cut, a CNP inside the monitor period, a
    # second cut with decayed alpha, fast recovery (F = 1), additive steps,
    # a long catch-up, full recovery.
    scenario('rp_defaults', 40000, {}, [
        ('CNP', 0), ('CNP', 2), ('RATE', 3), ('CNP', 10), ('RATE', 11),
        ('RATE', 100), ('RATE', 309), ('RATE', 310), ('RATE', 609),
        ('RATE', 610), ('RATE', 910), ('RATE', 30010), ('RATE', 3000010),
        ('CNP', 3000010)])
    # Fast recovery for F = 3 steps, then additive, timer only.
    scenario('rp_fast_recovery', 10000, dict(rp_threshold=3, rp_time_reset=55,
                                             rp_ai_rate=40, rp_byte_reset=0), [
        ('CNP', 0), ('RATE', 55), ('RATE', 110), ('RATE', 165), ('RATE', 220),
        ('RATE', 275), ('RATE', 1100)])
    # Byte counter (B = 16 * 64 = 1 KiB) and timer together up to hyper
    # increase, F = 2, from Rc = Rt = 1 Gb/s set by the first CNP.
    scenario('rp_hyper', 10000, dict(rp_threshold=2, rp_time_reset=100,
                                     rp_byte_reset=16, rp_ai_rate=20,
                                     rp_hai_rate=200,
                                     rp_rate_to_set_on_first_cnp=1000), [
        ('CNP', 0), ('TX', 10, 1024), ('TX', 20, 1024), ('TX', 30, 1024),
        ('RATE', 100), ('RATE', 200), ('TX', 210, 1024), ('RATE', 300),
        ('TX', 310, 1024), ('TX', 320, 3072), ('RATE', 400), ('RATE', 700),
        ('TX', 710, 4096)])
    # Clamp: two cuts with no increase between them.
    for clamp in (0, 1):
        scenario('rp_clamp%d' % clamp, 10000, dict(rp_clamp_tgt_rate=clamp), [
            ('CNP', 0), ('CNP', 10), ('RATE', 310), ('CNP', 320),
            ('RATE', 620)])
    # Rate to set on the first CNP, then an ordinary cut.
    scenario('rp_first_cnp', 10000, dict(rp_rate_to_set_on_first_cnp=2000), [
        ('CNP', 0), ('RATE', 300), ('RATE', 600), ('CNP', 700),
        ('RATE', 1000)])
    # Min rate floor and min_dec_fac: a CNP every 5 us.
    scenario('rp_floor', 1000, dict(rp_min_rate=100, rp_min_dec_fac=80), [
        ('CNP', 0), ('CNP', 5), ('CNP', 10), ('CNP', 15), ('CNP', 20),
        ('CNP', 25), ('CNP', 30), ('CNP', 35), ('CNP', 40), ('CNP', 45),
        ('CNP', 50), ('CNP', 55), ('CNP', 60)])
    # Slow alpha: K = 55 us, g = 1/256 (the paper's), G = 1020.
    scenario('rp_alpha', 40000, dict(rp_dce_tcp_rtt=55, rp_dce_tcp_g=1020,
                                     rp_rate_reduce_monitor_period=50), [
        ('CNP', 0), ('RATE', 54), ('RATE', 55), ('RATE', 110), ('CNP', 120),
        ('RATE', 175), ('RATE', 1000), ('RATE', 100000)])


if __name__ == '__main__':
    main()
