# SPDX-License-Identifier: GPL-2.0
"""labvm.console: splats are found, named, and owned by the check whose
marker came last; markers with another nonce are ignored."""

import unittest

from labvm import console

N = "0123456789abcdef"


def log(*lines):
    return "\n".join("[    1.%06d] %s" % (i, x) for i, x in enumerate(lines))


class FindSplat(unittest.TestCase):
    def test_kinds(self):
        for line, kind in [
                ("Kernel panic - not syncing: Fatal exception", "panic"),
                ("WARNING: CPU: 1 PID: 77 at fs/dax.c:10 f+0x1/0x2", "WARNING"),
                ("WARNING: possible circular locking dependency detected",
                 "lockdep report"),
                ("BUG: kernel NULL pointer dereference, address: 0", "BUG"),
                ("general protection fault, probably for address", "oops"),
                ("INFO: task a.out:12 blocked for more than 30 seconds.",
                 "hung task"),
                ("EXT4-fs error (device pmem0): ext4_lookup:1", "filesystem error")]:
            self.assertEqual(console.find_splat(line), kind, line)

    def test_ordinary_lines(self):
        for line in ["EXT4-fs (pmem0): mounted filesystem", "ok 1 WARNING test",
                     "a BUGGY name"]:
            self.assertIsNone(console.find_splat(line), line)


class ParseConsole(unittest.TestCase):
    def test_owner_follows_the_markers(self):
        text = log("BUG: early", "labvm: %s READY" % N,
                   "labvm: %s BEGIN s1" % N, "labvm: %s RUN s1.a" % N,
                   "------------[ cut here ]------------",
                   "WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x1",
                   "---[ end trace 0000000000000000 ]---",
                   "labvm: %s RUN -" % N, "BUG: in the suite",
                   "labvm: %s END s1" % N, "BUG: after")
        got = [(s["kind"], s["owner"]) for s in console.parse_console(text, N)]
        self.assertEqual(got, [("BUG", "boot"), ("WARNING", "s1.a"),
                               ("BUG", "s1"), ("BUG", "between checks")])

    def test_the_excerpt_has_the_cut_line_and_stops_at_the_end(self):
        text = log("labvm: %s RUN s.a" % N, "------------[ cut here ]------------",
                   "WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x1", "Call Trace:",
                   "---[ end trace 0000000000000000 ]---", "after the trace")
        (s,) = console.parse_console(text, N)
        self.assertEqual(s["excerpt"][0], "------------[ cut here ]------------")
        self.assertEqual(s["excerpt"][-1], "---[ end trace 0000000000000000 ]---")
        self.assertEqual(s["line"], 2)

    def test_a_forged_marker_changes_no_owner(self):
        text = log("labvm: %s RUN s.a" % N, "labvm: ffffffffffffffff RUN s.b",
                   "BUG: here")
        (s,) = console.parse_console(text, N)
        self.assertEqual(s["owner"], "s.a")

    def test_splat_detail_names_the_line(self):
        (s,) = console.parse_console(log("x", "BUG: here"), N)
        self.assertEqual(console.splat_detail(s)[0],
                         "kernel BUG (console log line 2):")


class Segments(unittest.TestCase):
    def test_lines_between_begin_and_end_without_timestamps(self):
        text = log("before", "labvm: %s BEGIN k" % N, "    ok 1 a",
                   "labvm: %s END k" % N, "after")
        segs = console.console_segments(text, N)
        self.assertEqual([x for _, x in segs["k"]], ["    ok 1 a"])
        self.assertEqual(segs["k"][0][0], 1.000002)

    def test_strip_ts(self):
        self.assertEqual(console.strip_ts("[   12.345678] hello"), "hello")
        self.assertEqual(console.strip_ts("no stamp"), "no stamp")
