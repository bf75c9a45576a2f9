#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Expected values of kunit/sroce_cc_timely_test.c, from a model of TIMELY.

The model is written from the TIMELY paper's Algorithm 1 (Mittal et al.,
SIGCOMM 2015) with the choices Documentation/sroce-cc.rst states (first
sample has difference 0, HAI counting, cut capped at the whole rate, rate
clamped to [min rate, max rate or line rate], a loss halving the rate at
most once per round trip), in exact rational arithmetic: it shares no
code and no fixed point with drivers/sroce_cc_timely.c, whose integer
steps must land within a few b/s of it. Each scenario prints a C table:
per RTT sample (its RTT) or loss (the time since the previous event),
the branch taken and the rate after it in kb/s, rounded half up as
DIV_ROUND_CLOSEST_ULL() rounds.

The model also carries a bound on how far the driver can be from it. The
driver rounds every step so that its rate is never below the model's: the
EWMA rounds toward -inf (a smaller gradient), a cut's factor rounds down
(by < 2^-32) and so does the amount cut (< 1 b/s); an increase adds an
exact delta and a clamp to the line or floor rate is exact. A scenario is
refused, to be changed, where that one-sided error could change what the
C test sees: a rate within the bound below a rounding tie or below the
line rate, a rate clamped to the floor from within the bound, or an EWMA
within 1/1000 ns above 0 (rounding toward -inf could flip the branch).

Usage: python3 kunit/sroce_cc_timely_vectors.py
"""
from fractions import Fraction as F
import sys

RTT_MAX_NS = 1 << 30

DEFAULTS = dict(timely_t_low=50, timely_t_high=1000, timely_min_rtt=50,
                timely_ai_rate=10, timely_beta=819, timely_alpha=896,
                timely_hai_n=5, timely_min_rate=10, timely_max_rate=0)

REGION = ['SROCE_CC_TIMELY_LOW', 'SROCE_CC_TIMELY_HIGH',
          'SROCE_CC_TIMELY_GRAD_INC', 'SROCE_CC_TIMELY_GRAD_DEC',
          'SROCE_CC_TIMELY_LOSS', 'SROCE_CC_TIMELY_LOSS_HELD']


class Timely:
    """One sender's TIMELY state, real-valued (rates in b/s, times in ns)."""

    def __init__(self, line_mbps, prm):
        self.p = prm
        self.line = F(line_mbps * 10**6)
        # The start: the ceiling, timely_max_rate or the line rate.
        self.rate = self.line
        if prm['timely_max_rate']:
            self.rate = min(self.line, F(prm['timely_max_rate'] * 10**6))
        self.prev = None
        self.diff = F(0)
        self.incr = 0
        self.err = F(0)
        self.now = 0
        self.loss_at = None

    def cut(self, factor):
        factor = min(factor, 1)
        # Amount cut, factor, and the factor's share of the EWMA error.
        ewma = F(2, 2**20) * F(self.p['timely_beta'], 1024) / (
            self.p['timely_min_rtt'] * 1000)
        self.err = (self.err * (1 - factor) + 1 +
                    self.rate * (F(1, 2**32) + ewma))
        self.rate *= 1 - factor

    def clamp(self):
        """Clamp to [min rate, ceiling]; refuse a rate the error could flip."""
        p = self.p
        floor = F(p['timely_min_rate'] * 10**6)
        ceiling = self.line
        if p['timely_max_rate']:
            ceiling = min(ceiling, F(p['timely_max_rate'] * 10**6))
        if self.rate < floor:
            if floor - self.rate <= self.err:
                raise ValueError('rate within the error bound of the floor')
            self.rate = floor
            self.err = F(0)
        elif self.rate >= ceiling:
            self.rate = ceiling
            self.err = F(0)
        elif ceiling - self.rate <= self.err:
            raise ValueError('rate within the error bound of the ceiling')

    def loss(self, dt):
        """A go-back-N restart dt ns after the previous event.

        Halves the rate unless a loss halved it less than a round trip ago
        (the last sample, at least T_high). The driver halves rounding up,
        by less than 1 b/s.
        """
        self.now += dt
        t_high = self.p['timely_t_high'] * 1000
        hold = t_high if self.prev is None else max(self.prev, t_high)
        if self.loss_at is not None and self.now - self.loss_at < hold:
            return 5
        self.loss_at = self.now
        self.incr = 0
        self.rate /= 2
        self.err = self.err / 2 + 1
        self.clamp()
        return 4

    def sample(self, rtt):
        p = self.p
        self.now += rtt
        rtt = F(min(rtt, RTT_MAX_NS))
        alpha = F(p['timely_alpha'], 1024)
        beta = F(p['timely_beta'], 1024)
        delta = F(p['timely_ai_rate'] * 10**6)
        t_low = p['timely_t_low'] * 1000
        t_high = p['timely_t_high'] * 1000
        new_diff = 0 if self.prev is None else rtt - self.prev
        self.prev = rtt
        self.diff = (1 - alpha) * self.diff + alpha * new_diff
        if 0 < self.diff < F(1, 1000):
            raise ValueError('EWMA %s too close to 0' % float(self.diff))
        if rtt < t_low:
            region = 0
            self.rate += delta
        elif rtt > t_high:
            region = 1
            self.cut(beta * (1 - t_high / rtt))
            self.incr = 0
        elif self.diff <= 0:
            region = 2
            self.incr += 1
            n = p['timely_hai_n'] if self.incr >= p['timely_hai_n'] else 1
            self.rate += n * delta
        else:
            region = 3
            grad = self.diff / (p['timely_min_rtt'] * 1000)
            self.cut(beta * grad)
            self.incr = 0
        self.clamp()
        return region


def kbps(rate, err):
    """Rate in kb/s rounded half up; refuse a rate near a tie."""
    frac = rate / 1000 - int(rate / 1000)
    if F(1, 2) - err / 1000 <= frac < F(1, 2):
        raise ValueError('rate %s b/s within %s b/s of a tie'
                         % (float(rate), float(err)))
    return int(rate / 1000 + F(1, 2))


def us(x):
    return int(x * 1000)


# name: (line Mb/s, parameter changes, RTT samples in ns)
SCENARIOS = {
    # A queue builds, overshoots T_high, drains back to the base RTT.
    'timely_queue': (10000, {}, [
        us(40), us(52), us(54), us(57), us(62), us(66), us(73), us(80),
        us(95), us(120), us(160), us(240), us(400), us(700), us(1100),
        us(1300), us(1200), us(1000), us(800), us(600), us(400), us(250),
        us(150), us(110), us(95), us(90), us(90), us(90), us(90), us(90),
        us(90), us(88), us(89), us(90), us(45), us(45)]),
    # Cut by a high RTT, then a flat RTT: increases turn hyper-active at
    # the third sample in a row; a rise resets the count.
    'timely_hai': (1000, dict(timely_ai_rate=20, timely_hai_n=3), [
        us(5000), us(300), us(300), us(300), us(300), us(300), us(300),
        us(310), us(305), us(300), us(300), us(300), us(300)]),
    # A steep gradient with beta 1: the cut saturates, the floor holds;
    # the RTT cap: a 5 s sample counts as 2^30 ns.
    'timely_floor': (10000, dict(timely_beta=1024, timely_min_rate=100), [
        us(100), us(900), us(900), us(900), 5 * 10**9, us(1000)]),
    # A ceiling below the line rate: the QP starts there, increases stop
    # there, a cut starts from it.
    'timely_ceiling': (10000, dict(timely_max_rate=200), [
        us(40), us(40), us(1500), us(1500), us(40), us(40)]),
    # Losses: the first halves the rate at once, before any sample; one
    # within T_high is held; after samples, the hold is the last RTT
    # (3 ms here, above T_high); samples go on from the halved rate.
    'timely_loss': (1000, {}, [
        ('loss', us(10)), ('loss', us(500)), ('loss', us(600)),
        us(40), us(3000), ('loss', us(100)), ('loss', us(2000)),
        ('loss', us(1000)), us(40), us(40)]),
}


def main():
    print('/* Generated by kunit/sroce_cc_timely_vectors.py. */')
    for name, (line, changes, rtts) in SCENARIOS.items():
        prm = dict(DEFAULTS, **changes)
        m = Timely(line, prm)
        ch = ''.join(',\n * %s=%d' % kv for kv in sorted(changes.items()))
        print('\n/*\n * line %d Mb/s%s\n */' % (line, ch))
        print('static const struct sroce_cc_timely_test_step %s[] = {' % name)
        for ev in rtts:
            if isinstance(ev, tuple):
                dt, loss = ev[1], 'true'
                region = m.loss(dt)
            else:
                dt, loss = ev, 'false'
                region = m.sample(ev)
            print('\t{ %d, %s, %s, %d },' % (dt, loss, REGION[region],
                                            kbps(m.rate, m.err)))
        print('};')
    return 0


if __name__ == '__main__':
    sys.exit(main())
