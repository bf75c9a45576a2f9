#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of tools/sroce-cc and tools/sroce-rate-plot on fabricated input: a
fake sysfs tree in a temporary directory and a fabricated trace file.

  python3 tools/tests/test_tools.py        (or: python3 -m unittest discover -s tools/tests)

Ends with unittest's summary and a "N passed, N failed" line.
"""

import contextlib
import csv
import errno
import importlib.machinery
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SROCE_CC = os.path.join(TOOLS, "sroce-cc")
RATE_PLOT = os.path.join(TOOLS, "sroce-rate-plot")

# A subset of the real table, with its defaults.
PARAMS = {"rp_ai_rate": 5, "rp_hai_rate": 50, "rp_gd": 11,
          "np_cnp_dscp": 48, "rp_enable": 255, "ecn_enable": 1}
COUNTERS = {"sent_pkts": 1000, "rcvd_pkts": 990, "np_cnp_sent": 0,
            "np_ecn_marked_roce_packets": 0, "rp_cnp_handled": 7,
            "rp_cnp_ignored": 2, "cc_rx_cnp_pkts": 9}


def load_tool(path, name):
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def make_sysfs(root, dev, params, counters):
    port = os.path.join(root, "class", "infiniband", dev, "ports", "1")
    for sub, vals in (("cc_params", params), ("hw_counters", counters)):
        d = os.path.join(port, sub)
        os.makedirs(d)
        for k, v in vals.items():
            with open(os.path.join(d, k), "w", encoding="ascii") as f:
                f.write(f"{v}\n")


def run(tool, *args, env=None):
    return subprocess.run([sys.executable, tool, *args], capture_output=True,
                          text=True, env=env, check=False)


class SroceCcTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="sroce-cc-test-")
        make_sysfs(self.root, "sroce0", PARAMS, COUNTERS)
        # Another RDMA device without cc_params (e.g. an rdma_rxe one).
        os.makedirs(os.path.join(self.root, "class", "infiniband", "rxe0",
                                 "ports", "1", "hw_counters"))
        self.env = dict(os.environ, SROCE_SYSFS_ROOT=self.root)

    def tearDown(self):
        shutil.rmtree(self.root)

    def param(self, name):
        with open(os.path.join(self.root, "class", "infiniband", "sroce0",
                               "ports", "1", "cc_params", name),
                  encoding="ascii") as f:
            return f.read()

    def test_help(self):
        r = run(SROCE_CC, "--help")
        self.assertEqual(r.returncode, 0)
        for word in ("show", "set", "counters"):
            self.assertIn(word, r.stdout)

    def test_show_json(self):
        r = run(SROCE_CC, "show", "--json", env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout), {"sroce0": PARAMS})

    def test_show_text_and_names(self):
        r = run(SROCE_CC, "--sysfs-root", self.root, "show", "-d", "sroce0",
                "rp_gd", "np_cnp_dscp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(),
                         ["sroce0:", "rp_gd", "11", "np_cnp_dscp", "48"])

    def test_show_unknown_device(self):
        r = run(SROCE_CC, "show", "-d", "sroce9", env=self.env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no RDMA device sroce9", r.stderr)
        r = run(SROCE_CC, "show", "-d", "rxe0", env=self.env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not a sroce device", r.stderr)

    def test_set_round_trip(self):
        r = run(SROCE_CC, "set", "-d", "sroce0", "rp_ai_rate=1",
                "rp_enable=0x0f", env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.param("rp_ai_rate"), "1\n")
        self.assertEqual(self.param("rp_enable"), "15\n")
        r = run(SROCE_CC, "show", "--json", "rp_ai_rate", env=self.env)
        self.assertEqual(json.loads(r.stdout), {"sroce0": {"rp_ai_rate": 1}})

    def test_set_rejects_before_writing(self):
        for bad, msg in (("rp_nope=1", "unknown parameter"),
                         ("rp_gd=eleven", "not a number"),
                         ("rp_gd=-1", "not an unsigned 32-bit"),
                         ("rp_gd", "expected NAME=VALUE")):
            r = run(SROCE_CC, "set", "rp_ai_rate=2", bad, env=self.env)
            self.assertEqual(r.returncode, 1, bad)
            self.assertIn(msg, r.stderr, bad)
            self.assertEqual(self.param("rp_ai_rate"), "5\n", bad)

    def test_set_kernel_refusal(self):
        """The kernel's -ERANGE (a plain file cannot give it) becomes a
        clear message naming what was already applied."""
        mod = load_tool(SROCE_CC, "sroce_cc_tool")
        real_write = mod.write_param

        def fake_write(path, value):
            if path.endswith("rp_gd"):
                raise OSError(errno.ERANGE, os.strerror(errno.ERANGE), path)
            real_write(path, value)

        mod.write_param = fake_write
        mod.kernel_range_hint = lambda name, value: "valid range is 10..11"
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = mod.main(["--sysfs-root", self.root, "set", "rp_ai_rate=3",
                           "rp_gd=12", "rp_hai_rate=9"])
        self.assertEqual(rc, 1)
        self.assertEqual(err.getvalue().strip(),
                         "sroce-cc: sroce0: rp_gd=12 refused: value out of "
                         "range (valid range is 10..11); already applied: "
                         "rp_ai_rate=3")
        self.assertEqual(self.param("rp_ai_rate"), "3\n")
        self.assertEqual(self.param("rp_hai_rate"), "50\n")

    def test_counters(self):
        r = run(SROCE_CC, "counters", "--json", env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout), {"sroce0": COUNTERS})
        r = run(SROCE_CC, "counters", "--cc", "--json", env=self.env)
        got = json.loads(r.stdout)["sroce0"]
        self.assertEqual(sorted(got), ["cc_rx_cnp_pkts", "np_cnp_sent",
                                       "np_ecn_marked_roce_packets",
                                       "rp_cnp_handled", "rp_cnp_ignored"])

    def test_no_device(self):
        empty = tempfile.mkdtemp(prefix="sroce-cc-empty-")
        try:
            r = run(SROCE_CC, "--sysfs-root", empty, "show")
            self.assertEqual(r.returncode, 1)
            self.assertIn("no sroce device", r.stderr)
        finally:
            shutil.rmtree(empty)

    def test_set_needs_device_when_several(self):
        make_sysfs(self.root, "sroce1", PARAMS, COUNTERS)
        r = run(SROCE_CC, "set", "rp_gd=10", env=self.env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("choose one with -d", r.stderr)


# Two senders' traces in the ftrace text format; their clocks differ by
# 1000 s and each has a marker written at the same (barrier) moment.
TRACE_S1 = """\
# tracer: nop
#
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
            bash-301     [000] .....   100.000000: tracing_mark_write: sroce-sync
     ib_write_bw-312     [000] ..s1.   100.010000: sroce_cc_rate: qpn=0x000011 rc_kbps=500000 rt_kbps=1000000 alpha=1023 reason=cnp stage=cut tstage=0 bstage=0
     ib_write_bw-312     [000] ..s1.   100.010300: sroce_cc_rate: qpn=0x000011 rc_kbps=750000 rt_kbps=1000000 alpha=1018 reason=timer stage=fast_recovery tstage=1 bstage=0
          <idle>-0       [000] ..s1.   100.020000: sroce_cc_rate: qpn=0x000011 rc_kbps=400000 rt_kbps=750000 alpha=1000 reason=cnp stage=cut tstage=0 bstage=0
          <idle>-0       [000] ..s1.   100.020000: sroce_cc_rate: qpn=0x000011 rc_kbps=oops
          <idle>-0       [000] d.h1.   100.025000: some_other_event: x=1
"""
TRACE_S2 = """\
            bash-401     [000] .....  1100.000000: tracing_mark_write: sroce-sync
     ib_write_bw-412     [000] ..s1.  1100.015000: sroce_cc_rate: qpn=0x000011 rc_kbps=600000 rt_kbps=1000000 alpha=1023 reason=cnp stage=cut tstage=0 bstage=0
"""


class RatePlotTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sroce-rate-plot-test-")
        self.s1 = os.path.join(self.dir, "s1.txt")
        self.s2 = os.path.join(self.dir, "s2.txt")
        with open(self.s1, "w", encoding="ascii") as f:
            f.write(TRACE_S1)
        with open(self.s2, "w", encoding="ascii") as f:
            f.write(TRACE_S2)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def read_csv(self, path):
        with open(path, encoding="ascii") as f:
            return list(csv.reader(f))

    def test_help(self):
        r = run(RATE_PLOT, "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--align", r.stdout)

    def test_one_file_csv_and_summary(self):
        out = os.path.join(self.dir, "one")
        r = run(RATE_PLOT, "--csv", out + ".csv", "--json", self.s1)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("malformed sroce_cc_rate line skipped", r.stderr)
        rows = self.read_csv(out + ".csv")
        self.assertEqual(rows[0], ["time_s", "source", "qpn", "rc_kbps",
                                   "rt_kbps", "alpha", "reason", "stage"])
        self.assertEqual(rows[1], ["0.000000", "s1", "0x000011", "500000",
                                   "1000000", "1023", "cnp", "cut"])
        self.assertEqual(rows[2][0], "0.000300")
        self.assertEqual(rows[2][6:], ["timer", "fast_recovery"])
        self.assertEqual(rows[3][0], "0.010000")
        self.assertEqual(len(rows), 4)
        s = json.loads(r.stdout)["0x000011"]
        # 500 Mb/s for 0.3 ms, 750 for 9.7 ms, then the end of the data.
        self.assertEqual(s["events"], 3)
        self.assertEqual(s["cnp_cuts"], 2)
        self.assertEqual(s["min_rc_kbps"], 400000)
        self.assertEqual(s["mean_rc_kbps"], 742500)
        self.assertEqual(s["last_rc_kbps"], 400000)

    def test_two_files_aligned(self):
        out = os.path.join(self.dir, "two")
        r = run(RATE_PLOT, "-o", out, "--align", "sroce-sync", "--json",
                "--end-ms", "30", f"a={self.s1}", f"b={self.s2}")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.read_csv(out + ".csv")
        self.assertEqual([(x[0], x[1]) for x in rows[1:]],
                         [("0.010000", "a"), ("0.010300", "a"),
                          ("0.015000", "b"), ("0.020000", "a")])
        s = json.loads(r.stdout)
        self.assertEqual(sorted(s), ["a:0x000011", "b:0x000011"])
        # b: 600 Mb/s from 15 ms to the 30-ms end.
        self.assertEqual(s["b:0x000011"]["mean_rc_kbps"], 600000)
        try:
            import matplotlib  # noqa: F401  (only to know whether a PNG is due)
        except ImportError:
            self.assertIn("matplotlib is not installed", r.stderr)
        else:
            with open(out + ".png", "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_window(self):
        r = run(RATE_PLOT, "--json", "--from-ms", "5", "--to-ms", "15",
                self.s1)
        s = json.loads(r.stdout)["0x000011"]
        # 750 Mb/s from 5 to 10 ms, 400 Mb/s from 10 to 15 ms.
        self.assertEqual(s["mean_rc_kbps"], 575000)
        self.assertEqual(s["events"], 1)

    def test_missing_marker_and_no_events(self):
        r = run(RATE_PLOT, "--align", "nothing-like-this", self.s1)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no trace_marker line containing", r.stderr)
        empty = os.path.join(self.dir, "empty.txt")
        with open(empty, "w", encoding="ascii") as f:
            f.write("# tracer: nop\n")
        r = run(RATE_PLOT, empty)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no sroce_cc_rate events", r.stderr)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
