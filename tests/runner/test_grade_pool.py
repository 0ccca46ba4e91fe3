# SPDX-License-Identifier: GPL-2.0
"""scripts/grade-pool.py's stop_all(), the Ctrl-C of make grade: it must
leave no process behind, also when the group's leader dies at once on
SIGTERM while another member still has to stop what it started in a
session of its own (the lab runner and its QEMU)."""

import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from helpers import alive, pid_from

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "grade_pool", os.path.join(HERE, "..", "..", "scripts", "grade-pool.py"))
grade_pool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(grade_pool)

# A runner: starts a "QEMU" in a session of its own, and on SIGTERM takes
# half a second to stop it.
RUNNER = r"""
import os, signal, subprocess, sys, time
q = subprocess.Popen(["sleep", "100"], start_new_session=True)
with open(sys.argv[1], "w") as f:
    f.write(str(q.pid))
def stop(sig, frame):
    time.sleep(0.5)
    os.killpg(q.pid, signal.SIGKILL)
    q.wait()
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
while True:
    time.sleep(1)
"""


class StopAll(unittest.TestCase):
    def test_no_session_child_outlives_a_stop(self):
        d = tempfile.mkdtemp()
        pidfile = os.path.join(d, "qemu.pid")
        # the leader (a shell become sleep) dies at once on SIGTERM
        p = subprocess.Popen(["sh", "-c", '"$0" -c "$1" "$2" & exec sleep 100',
                              sys.executable, RUNNER, pidfile],
                             start_new_session=True)
        qemu = pid_from(pidfile)
        self.assertTrue(alive(qemu))
        grade_pool.stop_all([(p, None)])
        time.sleep(0.2)
        self.assertFalse(alive(qemu), "the runner's QEMU (pid %d) outlived stop_all()" % qemu)


if __name__ == "__main__":
    unittest.main()
