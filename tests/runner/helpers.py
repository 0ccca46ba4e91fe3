# SPDX-License-Identifier: GPL-2.0
"""What the runner's unit tests share."""

import contextlib
import io
import os
import sys
import time


def dies(test, fn, *args):
    """fn(*args) must stop labvm with an error; its message, for the test
    to check that it says what to do."""
    err = io.StringIO()
    with test.assertRaises(SystemExit), contextlib.redirect_stderr(err):
        fn(*args)
    test.assertTrue(err.getvalue().startswith("labvm: error: "), err.getvalue())
    return err.getvalue()


def pid_from(path, seconds=10):
    """The pid a process writes to path once it has started."""
    for _ in range(int(seconds * 20)):
        if os.path.exists(path) and os.path.getsize(path):
            break
        time.sleep(0.05)
    with open(path) as f:
        return int(f.read())


def alive(pid):
    """pid is a process that has not exited (a zombie has)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def fake_machine(d):
    """A machine (labvm.machine's dict) whose QEMU is fake_qemu.py, behaving
    as FAKE_QEMU says, and whose cpio packer is cat; its files go in d."""
    fake = os.path.join(d, "qemu")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\nexec %s %s \"$@\"\n" % (
            sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         "fake_qemu.py")))
    gen = os.path.join(d, "gen")
    with open(gen, "w") as f:
        f.write("#!/bin/sh\ncat \"$1\"\n")
    for p in (fake, gen):
        os.chmod(p, 0o755)
    return dict(kernel=os.path.join(d, "bzImage"), qemu=fake, accel="tcg", gen=gen,
                banner="Linux version x #1\n")
