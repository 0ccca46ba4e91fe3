# SPDX-License-Identifier: GPL-2.0
"""labvm.run: make vm-run's exit status is the command's, or says that the
VM did not boot (125) or the command did not finish (124)."""

import contextlib
import io
import unittest

from labvm.run import run_verdict
from labvm.results import ResultsReader

N = "0123456789abcdef"
LIMITS = dict(boot=120, check=300)


def status(lines, end="done", console=""):
    reader = ResultsReader("/nonexistent")
    reader.lines = [(None, x) for x in lines]
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = run_verdict(reader, console, N, end, LIMITS, "/tmp/log")
    return rc, err.getvalue()


class RunVerdict(unittest.TestCase):
    def test_the_commands_status(self):
        ready = ["@@%s READY" % N, "@@%s BEGIN run prog" % N]
        self.assertEqual(status(ready + ["@@%s END run rc=3" % N])[0], 3)
        self.assertEqual(status([], end="boot-timeout")[0], 125)
        rc, err = status(ready, end="check-timeout")
        self.assertEqual(rc, 124)
        self.assertIn("did not finish within 300 s", err)

    def test_a_splat_is_shown(self):
        console = "labvm: %s RUN run\nBUG: oops here\n" % N
        rc, err = status(["@@%s READY" % N, "@@%s BEGIN run prog" % N,
                          "@@%s END run rc=0" % N], console=console)
        self.assertEqual(rc, 0)
        self.assertIn("the kernel printed a BUG while your command ran", err)
