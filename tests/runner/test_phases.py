# SPDX-License-Identifier: GPL-2.0
"""labvm.phases: the report's "where the time went"."""

import os
import tempfile
import unittest

from labvm import phases
from labvm.qemu import Boot
from labvm.results import ResultsReader

N = "0123456789abcdef"


def boot(lines, started=10.0, elapsed=30.0):
    reader = ResultsReader("/nonexistent")
    reader.lines = [(t, x.replace("N", N, 1)) for t, x in lines]
    return Boot(reader=reader, nonce=N, started=started, elapsed=elapsed)


class Phases(unittest.TestCase):
    def test_the_vm_phases(self):
        b = boot([(13.0, "@@N READY uptime=2.0"), (13.1, "@@N BEGIN a prog"),
                  (14.0, "ok 1 x"), (20.1, "@@N END a rc=0"),
                  (21.1, "@@N BEGIN b kunit"), (38.1, "@@N END b rc=0"),
                  (38.2, "@@N DONE")])
        got = [(n, round(s, 1)) for n, s in phases.vm_phases(b)]
        self.assertEqual(got, [("boot", 3.0), ("a", 7.0), ("between suites", 1.0),
                               ("b", 17.0), ("power-off", 1.9)])

    def test_a_suite_cut_by_a_hang(self):
        b = boot([(13.0, "@@N READY"), (13.0, "@@N BEGIN a prog")])
        self.assertEqual(phases.vm_phases(b)[-1], ("a (cut)", 27.0))

    def test_host_phases_and_the_breakdown(self):
        path = os.path.join(tempfile.mkdtemp(), "phases")
        with open(path, "w") as f:
            f.write("compile 30.00\nbuild, nothing to link 10.00\nbad\ninitramfs x\n")
        got = phases.host_phases(path)
        self.assertEqual(got, [("compile", 30.0), ("build, nothing to link", 10.0)])
        self.assertEqual(phases.host_phases("/nonexistent"), [])
        lines = phases.breakdown(got + [("a", 5.0), ("a", 5.0)])
        self.assertEqual(lines[0], "where the time went (50 s):")
        self.assertEqual(lines[1], "  compile                  30.0 s   60 %")
        self.assertEqual(lines[3], "  a                        10.0 s   20 %")
        self.assertEqual(phases.breakdown([]), [])
