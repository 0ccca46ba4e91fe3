# SPDX-License-Identifier: GPL-2.0
"""What the runner's unit tests share."""

import contextlib
import io
import os
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
