# SPDX-License-Identifier: GPL-2.0
"""The built kernel to boot, and the banner the guest compares with its own
(a stale bzImage would otherwise pass for the new one)."""

import os
import re

from labvm.errors import die


def kernel_image(kobj):
    kernel = os.path.join(kobj, "arch/x86/boot/bzImage")
    if not os.path.exists(kernel):
        die("%s is missing: the kernel is not built." % kernel,
            "Run: make check-lab N (it builds first)")
    return kernel


def kernel_banner(vmlinux):
    try:
        with open(vmlinux, "rb") as f:
            data = f.read()
    except OSError:
        die("%s is missing: the kernel is not built." % vmlinux,
            "Run: make check-lab N (it builds first)")
    # the real banner has the build number ("#3"); format strings do not
    m = re.search(rb"Linux version [^\n%\x00]+ #\d+[^\n%\x00]*\n", data)
    if not m:
        die("no kernel banner found in %s" % vmlinux)
    return m.group(0).decode("utf-8", "replace")


