# SPDX-License-Identifier: GPL-2.0
"""labvm.kselftest: one check per planned test, with its diagnostics; a
test that never reported fails or is "not run", and says why."""

import unittest

from labvm.kselftest import prog_checks, tidy_diag
from labvm.results import Suite


def suite(lines, ended=True, rc=1):
    s = Suite("s", "prog")
    s.lines = [(float(i), x) for i, x in enumerate(lines)]
    s.began, s.ended, s.rc = True, ended, rc
    return s


def why(suite, before=False):
    return "before" if before else "during"


class Prog(unittest.TestCase):
    def test_pass_fail_skip_and_not_run(self):
        s = suite(["TAP version 13", "1..4", "# labcheck-plan a",
                   "# labcheck-plan b", "# labcheck-plan c", "# labcheck-plan d",
                   "#  RUN           global.a ...", "ok 1 global.a",
                   "#  RUN           global.b ...",
                   "# f.c:9:b:expected: 5", "# b: Test failed at step #1",
                   "not ok 2 global.b",
                   "#  RUN           global.c ...", "ok 3 global.c # SKIP no ram0",
                   "#  RUN           global.d ...", "# d: started"], ended=False)
        got = [(c.name, c.verdict, c.detail) for c in prog_checks(s, why)]
        self.assertEqual(got, [("s.a", "PASS", []), ("s.b", "FAIL", ["expected: 5"]),
                               ("s.c", "SKIP", ["no ram0"]),
                               ("s.d", "FAIL", ["during", "d: started"])])
        self.assertEqual(prog_checks(s, why)[0].elapsed, 1.0)

    def test_tests_after_a_crash_did_not_run(self):
        s = suite(["# labcheck-plan a", "# labcheck-plan b",
                   "#  RUN           global.a ..."])
        got = [(c.verdict, c.detail[0]) for c in prog_checks(s, why)]
        self.assertEqual(got, [("FAIL", "during"), ("NOT RUN", "before")])

    def test_a_program_without_a_plan_fails_unless_filtered_out(self):
        self.assertEqual(prog_checks(suite(["1..0"], rc=0), why), [])
        (c,) = prog_checks(suite(["Segmentation fault"], rc=139), why)
        self.assertEqual((c.name, c.verdict), ("s", "FAIL"))
        self.assertIn("Segmentation fault", c.detail)

    def test_tidy_diag(self):
        self.assertEqual(tidy_diag("# /a/b.c:12:t:expected: 1"), "expected: 1")
        self.assertEqual(tidy_diag("# t: Test terminated by assertion"), "")
        self.assertEqual(tidy_diag("# plain"), "plain")
