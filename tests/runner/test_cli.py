# SPDX-License-Identifier: GPL-2.0
"""labvm.cli: bad command lines are refused with what to do, before any
boot."""

import sys
import unittest

from helpers import dies
from labvm import cli


def main_with(*argv):
    old = sys.argv
    sys.argv = ["labvm"] + list(argv)
    try:
        return cli.main()
    finally:
        sys.argv = old


class Refusals(unittest.TestCase):
    def test_bad_inputs(self):
        for argv, says in [(["check", "--boot-timeout", "0"], "BOOT_TIMEOUT must be"),
                           (["check"], "check needs --suites"),
                           (["run"], "CMD='command to run in the VM'"),
                           (["shell", "--files", "/nonexistent"], "is not a directory")]:
            self.assertIn(says, dies(self, main_with, *argv), argv)
