#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run modules of rdma-core's test suite (the tests/ directory of its
source, pyverbs unittest cases) as its run_tests.py would, in one process
(importing pyverbs and the suite takes seconds under TCG), and print each
case's outcome on stdout as one line for rdma-core.sh to judge:

    CASE <id> ok|skipped|fail|error [<reason or first line of the error>]

unittest's own verbose report goes to stderr.

Usage: rdma-core-run.py TESTS_DIR MODULE[,MODULE...] [run_tests.py's options]
"""
import os
import sys
import unittest
from importlib.machinery import SourceFileLoader


class CaseLines(unittest.TextTestResult):
    """unittest's text result, plus a CASE line per outcome."""

    def _case(self, test, outcome, why=''):
        print(f'CASE {test.id()} {outcome} {why}'.rstrip(), flush=True)

    @staticmethod
    def _first_line(err):
        lines = str(err[1]).strip().splitlines()
        return f'{err[0].__name__}: {lines[0] if lines else ""}'

    def addSuccess(self, test):
        super().addSuccess(test)
        self._case(test, 'ok')

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._case(test, 'skipped', reason)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._case(test, 'fail', self._first_line(err))

    def addError(self, test, err):
        super().addError(test, err)
        self._case(test, 'error', self._first_line(err))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._case(test, 'ok', 'expected failure')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._case(test, 'fail', 'unexpected success')


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tests_dir, modules = sys.argv[1], sys.argv[2]
    # What run_tests.py does: its argument parser takes the device
    # options and the tests package loads every test module.
    sys.path.insert(0, tests_dir)
    sys.argv[1:] = sys.argv[3:]
    from args_parser import parser
    parser.parse_args()
    tests = SourceFileLoader('tests', os.path.join(tests_dir, '__init__.py')).load_module()
    suite = unittest.defaultTestLoader.loadTestsFromNames(modules.split(','),
                                                          tests)
    runner = unittest.TextTestRunner(stream=sys.stderr, verbosity=2,
                                     resultclass=CaseLines)
    sys.exit(0 if runner.run(suite).wasSuccessful() else 1)


if __name__ == '__main__':
    main()
