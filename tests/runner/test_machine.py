# SPDX-License-Identifier: GPL-2.0
"""labvm.machine: the kernel command line makes the devices the checks
expect, and a host without the memory is refused before QEMU starts."""

import os
import tempfile
import unittest

from helpers import dies
from labvm import machine


class KernelCmdline(unittest.TestCase):
    def test_devices_have_the_documented_sizes(self):
        line = machine.kernel_cmdline()
        self.assertIn("memmap=%dM!%dM" % (machine.PMEM_MIB, machine.PMEM_START_MIB),
                      line.split())
        self.assertIn("brd.rd_size=%d" % (machine.RAM0_MIB * 1024), line.split())
        self.assertIn("panic=-1", line.split())

    def test_extra_arguments_come_last(self):
        self.assertTrue(machine.kernel_cmdline("foo=1").endswith(" foo=1"))
        self.assertFalse(machine.kernel_cmdline("").endswith(" "))


class PreflightHost(unittest.TestCase):
    def meminfo(self, mib):
        f = tempfile.NamedTemporaryFile("w", delete=False)
        f.write("MemTotal: 999999 kB\nMemAvailable: %d kB\n" % (mib * 1024))
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_too_little_memory_is_refused(self):
        msg = dies(self, machine.preflight_host, self.meminfo(machine.MEM_MIB))
        self.assertIn("Close other programs", msg)

    def test_enough_memory_passes(self):
        self.assertIsNone(machine.preflight_host(self.meminfo(machine.MEM_MIB + 512)))

    def test_unreadable_meminfo_is_not_an_error(self):
        self.assertIsNone(machine.preflight_host("/nonexistent/meminfo"))
