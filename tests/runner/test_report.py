# SPDX-License-Identifier: GPL-2.0
"""labvm.report: the text report counts right, and the TAP and JUnit files
are what CI servers read, whatever bytes the guest printed."""

import io
import os
import tempfile
import unittest
import xml.dom.minidom

from labvm.check import Check
from labvm.report import report, write_junit, write_tap

CHECKS = [Check("s.a", "PASS", 1.0), Check("s.b", "FAIL", 2.0, ["expected 1, seen 2"]),
          Check("s.c", "SKIP", None, ["no ram0"]), Check("s.d", "NOT RUN", None, ["why"])]


class Text(unittest.TestCase):
    def test_counts_and_details(self):
        out = io.StringIO()
        self.assertEqual(report(CHECKS, out), 2)
        text = out.getvalue()
        self.assertIn("        expected 1, seen 2\n", text)
        self.assertIn("(1 of the failed checks did not run)\n", text)
        self.assertTrue(text.endswith("1 passed, 2 failed, 1 skipped\n"), text)


class Tap(unittest.TestCase):
    def test_tap(self):
        path = os.path.join(tempfile.mkdtemp(), "r.tap")
        write_tap(CHECKS, path)
        with open(path) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[:4], ["TAP version 13", "1..4", "ok 1 - s.a",
                                     "not ok 2 - s.b"])
        self.assertIn("ok 3 - s.c # SKIP", lines)
        self.assertIn("# expected 1, seen 2", lines)


class JUnit(unittest.TestCase):
    def test_counts(self):
        path = os.path.join(tempfile.mkdtemp(), "r.xml")
        write_junit(CHECKS, path, "lab3")
        suite = xml.dom.minidom.parse(path).getElementsByTagName("testsuite")[0]
        self.assertEqual([suite.getAttribute(a) for a in ("tests", "failures", "skipped")],
                         ["4", "2", "1"])

    def test_control_characters_leave_the_file_well_formed(self):
        c = Check("lab1_x.esc\x1b[31m", "FAIL", 1.0, ["expected 1, seen \x00\x01 <&>"])
        path = os.path.join(tempfile.mkdtemp(), "report.xml")
        write_junit([c], path, "suite\x02")
        failure = xml.dom.minidom.parse(path).getElementsByTagName("failure")[0]
        self.assertEqual(failure.getAttribute("message"), "expected 1, seen ?? <&>")
