# SPDX-License-Identifier: GPL-2.0
"""What bench-report.py and bench-sweep.py both need: reading a bench.csv
and printing a ratio of two figures."""
import csv


def load(path):
    """The rows of a CSV file, as dicts keyed by its header."""
    with open(path) as f:
        return list(csv.DictReader(f))


def ratio(a, b):
    """a/b to two decimals, or "" if either is missing or zero."""
    return f"{a / b:.2f}" if a and b else ""
