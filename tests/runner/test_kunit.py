# SPDX-License-Identifier: GPL-2.0
"""labvm.kunit: one check per KUnit case, named by its KUnit suite, timed
from printk times, with T= matching the case or the module."""

import unittest

from labvm import kunit
from labvm.results import Suite

KTAP = [(1.0, "KTAP version 1"), (1.0, "1..1"), (1.0, "    # Subtest: lab1_brd"),
        (1.0, "    1..2"), (1.5, "    ok 1 reads_back"),
        (1.6, "    # writes: EXPECTATION FAILED at lab1.c:10"),
        (1.6, "    Expected x == 1, but"),
        (2.5, "    not ok 2 writes"), (2.5, "ok 1 lab1_brd")]


def module(lines):
    s = Suite("lab1_kunit", "kunit")
    s.lines = lines
    return s


def why(suite, before=False):
    return "stopped"


class KUnit(unittest.TestCase):
    def test_cases(self):
        got = kunit.kunit_checks(module(KTAP), why, "")
        self.assertEqual([(c.name, c.verdict) for c in got],
                         [("lab1_brd.reads_back", "PASS"), ("lab1_brd.writes", "FAIL")])
        self.assertEqual(got[0].elapsed, 0.5)
        self.assertEqual(got[1].detail, ["expected: x == 1", "seen:     not x == 1",
                                         "(at lab1.c:10: x == 1)"])

    def test_filter_by_case_or_module(self):
        self.assertEqual(len(kunit.kunit_checks(module(KTAP), why, "writes")), 1)
        self.assertEqual(len(kunit.kunit_checks(module(KTAP), why, "lab1_kunit")), 2)
        self.assertEqual(kunit.kunit_checks(module(KTAP), why, "lab9"), [])

    def test_long_reports_are_cut(self):
        lines = KTAP[:5] + [(1.6, "    line %d" % i) for i in range(30)] + KTAP[7:]
        (_, c) = kunit.kunit_checks(module(lines), why, "")
        self.assertEqual(len(c.detail), kunit.KUNIT_DETAIL_LINES + 1)
        self.assertIn("18 more lines", c.detail[-1])

    def test_no_results_is_a_failure(self):
        (c,) = kunit.kunit_checks(module([(1.0, "modprobe: not found")]), why, "")
        self.assertEqual((c.name, c.verdict), ("lab1_kunit", "FAIL"))
        self.assertIn("modprobe: not found", c.detail)
