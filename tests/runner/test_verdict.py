# SPDX-License-Identifier: GPL-2.0
"""labvm.verdict: the boot is a check, a splat fails the check that owned
it, and a suite that never ran says why."""

import unittest

from labvm.verdict import verdicts

N = "0123456789abcdef"
LIMITS = dict(boot=120, check=300)
PROG = ["@@%s BEGIN s prog" % N, "# labcheck-plan a", "# labcheck-plan b",
        "#  RUN           global.a ...", "ok 1 global.a",
        "#  RUN           global.b ...", "ok 2 global.b"]


def run(results, console, end="done", planned=(("s", "prog"),), pattern=""):
    lines = [(None, x) for x in ["@@%s READY uptime=1.0" % N] + results]
    return [(c.name, c.verdict) for c in
            verdicts(list(planned), lines, console, N, end, pattern, LIMITS)]


def cons(*lines):
    return "\n".join("[    2.%06d] %s" % (i, x) for i, x in enumerate(lines))


class Verdicts(unittest.TestCase):
    def test_all_pass(self):
        self.assertEqual(run(PROG + ["@@%s END s rc=0" % N], ""),
                         [("boot", "PASS"), ("s.a", "PASS"), ("s.b", "PASS")])

    def test_a_splat_fails_the_case_that_passed(self):
        console = cons("labvm: %s BEGIN s" % N, "labvm: %s RUN s.b" % N,
                       "WARNING: CPU: 0 PID: 9 at fs/dax.c:1 f+0x0/0x1")
        self.assertEqual(run(PROG + ["@@%s END s rc=0" % N], console),
                         [("boot", "PASS"), ("s.a", "PASS"), ("s.b", "FAIL")])

    def test_a_splat_at_boot_fails_the_boot(self):
        got = run(PROG + ["@@%s END s rc=0" % N], cons("BUG: early"))
        self.assertEqual(got[0], ("boot", "FAIL"))

    def test_no_boot(self):
        got = [(c.name, c.verdict, c.detail[0]) for c in
               verdicts([("s", "prog")], [], "", N, "boot-timeout", "", LIMITS)]
        self.assertEqual(got[0][:2], ("boot", "FAIL"))
        self.assertIn("within 120 s", got[0][2])
        self.assertEqual(got[1], ("s", "NOT RUN", "not run: the kernel did not boot"))

    def test_a_hang_fails_the_running_case(self):
        got = run(PROG[:6], "", end="check-timeout")
        self.assertEqual(got, [("boot", "PASS"), ("s.a", "PASS"), ("s.b", "FAIL")])

    def test_a_splat_outside_any_check(self):
        console = cons("labvm: %s READY" % N, "labvm: %s END s" % N, "BUG: late")
        got = run(PROG + ["@@%s END s rc=0" % N], console)
        self.assertEqual(got[-1], ("between checks", "FAIL"))
