# SPDX-License-Identifier: GPL-2.0
"""labvm.progress: a live line on a terminal, plain lines elsewhere."""

import io
import unittest

from labvm.progress import Progress


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class Lines(unittest.TestCase):
    def test_a_log_gets_one_line_per_suite_and_no_escapes(self):
        out = io.StringIO()
        p = Progress(2, out, tty=False)
        p.begin("lab0_machine")
        p.output("#  RUN           global.pmem0_exists ...")
        p.tick()
        p.end()
        p.clear()
        self.assertEqual(out.getvalue(), "labvm: running lab0_machine ...\n")

    def test_a_terminal_sees_suite_k_of_n_and_the_running_check(self):
        out, clock = io.StringIO(), Clock()
        p = Progress(9, out, tty=True, clock=clock)
        p.begin("a")
        p.begin("lab3_fault")
        p.output("#  RUN           global.read_of_a_hole ...")
        clock.now += 12.2
        p.tick()
        self.assertTrue(out.getvalue().endswith(
            "\r\033[Klabvm: [2/9] lab3_fault.read_of_a_hole  12 s"), repr(out.getvalue()))
        p.end()
        self.assertTrue(out.getvalue().endswith("\r\033[K"))
        self.assertNotIn("\n", out.getvalue())

    def test_a_tick_in_the_same_second_writes_nothing(self):
        out, clock = io.StringIO(), Clock()
        p = Progress(1, out, tty=True, clock=clock)
        p.begin("s")
        n = len(out.getvalue())
        clock.now += 0.3
        p.tick()
        self.assertEqual(len(out.getvalue()), n)
