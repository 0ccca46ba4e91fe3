# SPDX-License-Identifier: GPL-2.0
"""labvm.qemu: one boot, driven by a fake QEMU (fake_qemu.py): the end of
the run is named right, a forged DONE is ignored, QEMU never outlives
boot(), and KVM is used only when asked for or proven."""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

from helpers import alive, fake_machine, pid_from
from labvm import qemu


class Boot(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.m = fake_machine(self.dir)
        self.args = argparse.Namespace(
            filter="", check_timeout=300, append="", initrd=[], sandbox=None,
            boot_timeout=3, stall_timeout=3, verbose=False, quiet=True)

    def boot(self, how):
        os.environ["FAKE_QEMU"] = how
        self.addCleanup(os.environ.pop, "FAKE_QEMU", None)
        logdir = os.path.join(self.dir, "log")
        old = sys.stderr
        sys.stderr = open(os.devnull, "w")
        t0 = time.monotonic()
        try:
            b = qemu.boot(self.m, self.args, "check", logdir, [("s", "prog", "/s")])
        finally:
            sys.stderr.close()
            sys.stderr = old
        # the fake sleeps 30 s: only a kill ends it sooner
        self.assertLess(time.monotonic() - t0, self.args.boot_timeout + 10,
                        "boot() waited for QEMU instead of killing it")
        try:
            with open(os.path.join(logdir, "pid")) as f:
                pid = int(f.read())
        except FileNotFoundError:       # killed before it wrote its pid
            return b
        self.assertFalse(alive(pid), "QEMU (pid %d) outlived boot()" % pid)
        return b

    def test_a_guest_that_powers_off_at_once_is_done(self):
        for _ in range(5):      # the race is between QEMU's exit and the last read
            b = self.boot("pass")
            self.assertEqual(b.end, "done")
            self.assertIn("ok 1 global.a", [t for _, t in b.reader.lines])

    def test_a_hang_at_boot_is_cut_and_qemu_killed(self):
        self.args.boot_timeout = 1
        self.assertEqual(self.boot("hang").end, "boot-timeout")

    def test_a_forged_done_is_not_done(self):
        self.args.boot_timeout = 1
        self.assertEqual(self.boot("forge").end, "boot-timeout")

    def test_a_stop_just_after_qemu_starts_stops_qemu(self):
        # make grade's Ctrl-C sends SIGTERM to the runner's group, which
        # can land as QEMU (in a session of its own) has just started
        started = []
        real = subprocess.Popen

        def popen_then_sigterm(argv, *a, **kw):
            p = real(argv, *a, **kw)
            if self.m["qemu"] in argv:
                started.append(p)
                os.kill(os.getpid(), signal.SIGTERM)
            return p
        with mock.patch.object(qemu.subprocess, "Popen", popen_then_sigterm):
            b = self.boot("hang")
        self.assertEqual(b.end, "interrupted")
        self.assertIsNotNone(started[0].poll(), "QEMU outlived a SIGTERM at its start")
        self.assertIs(signal.getsignal(signal.SIGTERM), signal.SIG_DFL,
                      "boot() left its SIGTERM handler in place")

    def test_qemu_dies_with_a_killed_runner(self):
        # SIGKILL gives the runner no chance to stop QEMU, which is in a
        # session of its own: the kernel must (parent-death signal)
        logdir = os.path.join(self.dir, "log")
        code = ("import argparse, sys; sys.path.insert(0, %r); from labvm import qemu; "
                "qemu.boot(%r, argparse.Namespace(**%r), 'check', %r, [('s', 'p', '/s')])"
                % (os.path.dirname(os.path.dirname(qemu.__file__)), self.m,
                   dict(vars(self.args), boot_timeout=60), logdir))
        env = dict(os.environ, FAKE_QEMU="hang")
        runner = subprocess.Popen([sys.executable, "-c", code], env=env,
                                  stderr=subprocess.DEVNULL)
        pid = pid_from(os.path.join(logdir, "pid"))
        runner.kill()
        runner.wait()
        for _ in range(40):
            if not alive(pid):
                break
            time.sleep(0.05)
        self.assertFalse(alive(pid), "QEMU (pid %d) outlived a runner killed with SIGKILL" % pid)


class Accel(unittest.TestCase):
    def test_tcg_unless_asked_or_proven(self):
        build = tempfile.mkdtemp()
        self.assertEqual(qemu.pick_accel("tcg", build), "tcg")
        self.assertEqual(qemu.pick_accel("auto", build), "tcg")
        with open(os.path.join(build, "kvm-probe"), "w") as f:
            f.write("hangs\n")
        self.assertEqual(qemu.pick_accel("auto", build), "tcg")
