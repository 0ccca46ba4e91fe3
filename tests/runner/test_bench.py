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
import tempfile
import unittest

from helpers import fake_machine

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "bench", os.path.join(HERE, "..", "..", "bench", "bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


class RunOne(unittest.TestCase):
    def test_a_round_gives_the_guests_figures(self):
        d = tempfile.mkdtemp()
        m = fake_machine(d)
        args = argparse.Namespace(initrd=[], timeout=30, logdir=os.path.join(d, "log"))
        os.environ["FAKE_QEMU"] = "bench"
        self.addCleanup(os.environ.pop, "FAKE_QEMU", None)
        with contextlib.redirect_stderr(io.StringIO()):
            got = bench.run_one(args, m, "lab-dax", 1, ["seq-read-4k"])
        self.assertEqual(got, {"seq-read-4k": (123.4, "MB/s")},
                         "expected the figure the guest printed; see %s" % args.logdir)


if __name__ == "__main__":
    unittest.main()
