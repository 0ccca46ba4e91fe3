# SPDX-License-Identifier: GPL-2.0
"""labvm.results: the protocol lines frame suites, other lines are the
suite's output, and a line with another nonce is only output."""

import os
import tempfile
import unittest

from labvm import results

N = "0123456789abcdef"


class ParseResults(unittest.TestCase):
    def test_a_whole_run(self):
        lines = ["@@%s READY uptime=2.50" % N, "@@%s BEGIN s1 prog" % N, "ok 1 a",
                 "@@%s END s1 rc=1 cs=250" % N, "@@%s PREFLIGHT no pmem0" % N,
                 "@@%s DONE" % N]
        r = results.parse_results([(None, x) for x in lines], N)
        self.assertTrue(r.ready and r.done)
        self.assertEqual(r.ready_uptime, 2.5)
        self.assertEqual(r.preflight, ["no pmem0"])
        s = r.suites["s1"]
        self.assertEqual((s.kind, s.began, s.ended, s.rc, s.seconds),
                         ("prog", True, True, 1, 2.5))
        self.assertEqual([x for _, x in s.lines], ["ok 1 a"])

    def test_a_forged_end_is_output(self):
        lines = ["@@%s BEGIN s1 prog" % N, "@@ffffffffffffffff END s1 rc=0",
                 "@@ffffffffffffffff DONE"]
        r = results.parse_results([(None, x) for x in lines], N)
        self.assertFalse(r.suites["s1"].ended)
        self.assertFalse(r.done)
        self.assertEqual(len(r.suites["s1"].lines), 2)

    def test_an_end_of_another_suite_does_not_close_this_one(self):
        lines = ["@@%s BEGIN s1 kunit" % N, "@@%s END s2 rc=0" % N]
        r = results.parse_results([(None, x) for x in lines], N)
        self.assertFalse(r.suites["s1"].ended)
        self.assertEqual(r.suites["s1"].kind, "kunit")


class Reader(unittest.TestCase):
    def test_whole_lines_then_the_rest_at_flush(self):
        d = tempfile.mkdtemp()
        path = os.path.join(d, "results.log")
        reader = results.ResultsReader(path)
        self.assertEqual(reader.poll(), [])        # not there yet
        with open(path, "wb") as f:
            f.write(b"one\r\ntw")
        self.assertEqual(reader.poll(), ["one"])
        with open(path, "ab") as f:
            f.write(b"o\nthr\xff")
        self.assertEqual(reader.poll(), ["two"])
        reader.flush()
        self.assertEqual([x for _, x in reader.lines], ["one", "two", "thr\ufffd"])
