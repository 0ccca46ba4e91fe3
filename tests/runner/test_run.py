# SPDX-License-Identifier: GPL-2.0
"""labvm.run: make vm-run's exit status is the command's, or says that the
VM did not boot (125) or the command did not finish (124); a check run
writes report.txt ending with the counts (make grade and CI scripts read
its last line), and the breakdown of the time in time.txt."""

import argparse
import contextlib
import io
import os
import sys
import tempfile
import unittest
from unittest import mock

from labvm import run
from labvm.run import run_verdict
from labvm.results import ResultsReader

HERE = os.path.dirname(os.path.abspath(__file__))

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


class CheckRun(unittest.TestCase):
    """A whole check run, QEMU played by fake_qemu.py."""

    def test_report_ends_with_the_counts(self):
        d = tempfile.mkdtemp()
        os.makedirs(os.path.join(d, "obj/arch/x86/boot"))
        for p in ("obj/arch/x86/boot/bzImage", "obj/vmlinux"):
            with open(os.path.join(d, p), "w") as f:
                f.write("Linux version 6.1.0 (x@y) #1 SMP\n")
        fake = os.path.join(d, "qemu")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\nexec %s %s \"$@\"\n" % (
                sys.executable, os.path.join(HERE, "fake_qemu.py")))
        os.makedirs(os.path.join(d, "tools"))
        gen = os.path.join(d, "tools", "gen_init_cpio")
        with open(gen, "w") as f:
            f.write("#!/bin/sh\ncat \"$1\"\n")
        for p in (fake, gen):
            os.chmod(p, 0o755)
        suites = os.path.join(d, "suites")
        with open(suites, "w") as f:
            f.write("s:prog:/s\n")
        phases = os.path.join(d, "phases")
        with open(phases, "w") as f:
            f.write("compile 3.0\nlink 1.0\n")
        logdir = os.path.join(d, "log")
        args = argparse.Namespace(
            build=d, kobj=None, logdir=logdir, initrd=[], suites=suites,
            filter="", accel="tcg", boot_timeout=5, check_timeout=30,
            stall_timeout=5, append="", nvdimm=None, sandbox=None,
            phases=phases, verbose=False, quiet=True, lab_functions=None)
        os.environ["FAKE_QEMU"] = "pass"
        self.addCleanup(os.environ.pop, "FAKE_QEMU", None)
        out, err = io.StringIO(), io.StringIO()
        with mock.patch.object(run, "qemu_binary", return_value=fake), \
                mock.patch.object(run, "preflight_host"), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = run.run_vm(args, "check")
        self.assertEqual(rc, 0, out.getvalue() + err.getvalue())
        with open(os.path.join(logdir, "report.txt")) as f:
            last = f.read().splitlines()[-1]
        self.assertRegex(last, r"^[0-9]+ passed, 0 failed",
                         "report.txt must end with the counts (scripts/grade-one.sh"
                         " reads its last line)")
        with open(os.path.join(logdir, "time.txt")) as f:
            t = f.read()
        self.assertIn("where the time went", t)
        self.assertIn("compile", t)
        self.assertIn("time.txt", out.getvalue())
