# SPDX-License-Identifier: GPL-2.0
"""labvm.kernel: the banner is the built one, not a format string."""

import os
import tempfile
import unittest

from helpers import dies
from labvm.kernel import kernel_banner, kernel_image


class Banner(unittest.TestCase):
    def test_the_real_banner_not_the_format(self):
        path = os.path.join(tempfile.mkdtemp(), "vmlinux")
        with open(path, "wb") as f:
            f.write(b"\x00Linux version %s (%s) #%s\n\x00junk"
                    b"\x00Linux version 6.1.0 (daxlab@labvm) #3 SMP\n\x00")
        self.assertEqual(kernel_banner(path), "Linux version 6.1.0 (daxlab@labvm) #3 SMP\n")

    def test_missing_kernel(self):
        for fn, path in [(kernel_banner, "/nonexistent/vmlinux"),
                         (kernel_image, "/nonexistent")]:
            self.assertIn("Run: make check-lab N", dies(self, fn, path))
