# SPDX-License-Identifier: GPL-2.0
"""bench/bench.py's use of the runner: one round of one configuration boots
through labvm.qemu (here a fake QEMU) with the runner's own options, and
gives back what the guest measured.  A runner option that bench.py does
not know about once broke every make bench at its first boot."""

import argparse
import contextlib
import importlib.util
import io
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "bench", os.path.join(HERE, "..", "..", "bench", "bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


class RunOne(unittest.TestCase):
    def test_a_round_gives_the_guests_figures(self):
        d = tempfile.mkdtemp()
        fake = os.path.join(d, "qemu")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\nexec %s %s \"$@\"\n" % (
                sys.executable, os.path.join(HERE, "fake_qemu.py")))
        gen = os.path.join(d, "gen")
        with open(gen, "w") as f:
            f.write("#!/bin/sh\ncat \"$1\"\n")
        for p in (fake, gen):
            os.chmod(p, 0o755)
        m = dict(kernel=os.path.join(d, "bzImage"), qemu=fake, accel="tcg", gen=gen,
                 banner="Linux version x #1\n")
        args = argparse.Namespace(initrd=[], timeout=30, logdir=os.path.join(d, "log"))
        os.environ["FAKE_QEMU"] = "bench"
        self.addCleanup(os.environ.pop, "FAKE_QEMU", None)
        with contextlib.redirect_stderr(io.StringIO()):
            got = bench.run_one(args, m, "lab-dax", 1, ["seq-read-4k"])
        self.assertEqual(got, {"seq-read-4k": (123.4, "MB/s")},
                         "expected the figure the guest printed; see %s" % args.logdir)


if __name__ == "__main__":
    unittest.main()
