# SPDX-License-Identifier: GPL-2.0
"""Checks from a KUnit module: the KTAP it printed to the kernel log,
one check per case, named "kunit_suite.case", timed by printk times.

The kernel's tools/testing/kunit/kunit_parser.py is not used: its 6.1
version prints its own report while it parses, it has no per-case times,
and the runner must parse a recorded run without a kernel tree."""

import re

from labvm.check import Check
from labvm.explain import kunit_explained
from labvm.selection import glob_or_substring

KUNIT_DETAIL_LINES = 12
KTAP_CASE = re.compile(r"^\s+(ok|not ok) (\d+) (\S+)(.*)$")


def kunit_checks(suite, why_stopped, pattern):
    """Checks of a KUnit module, from the debugfs results it printed."""
    checks = []
    ksuite = None
    diag = []
    t_prev = None       # printk time of the previous case's end
    for t, text in suite.lines:
        m = re.match(r"^\s+# Subtest: (\S+)$", text)
        if m and text.startswith("    ") and not text.startswith("        "):
            ksuite = m.group(1)
            diag = []
            t_prev = t
            continue
        m = KTAP_CASE.match(text)
        if m and ksuite and text.startswith("    ") and not text.startswith("        "):
            name = "%s.%s" % (ksuite, m.group(3))
            skip = "# SKIP" in m.group(4)
            verdict = "SKIP" if skip else "PASS" if m.group(1) == "ok" else "FAIL"
            # T= matches the case's name, or the module's (like a program's
            # suite name): "T=lab1_kunit" runs all of that module
            if glob_or_substring(pattern, name) or \
                    glob_or_substring(pattern, suite.name + "." + name):
                detail = kunit_explained(diag)
                if len(detail) > KUNIT_DETAIL_LINES:
                    detail = detail[:KUNIT_DETAIL_LINES] + [
                        "... (%d more lines in the console log)"
                        % (len(detail) - KUNIT_DETAIL_LINES)]
                el = t - t_prev if t is not None and t_prev is not None else None
                checks.append(Check(name, verdict, el,
                                    [] if verdict == "PASS" else detail))
            diag = []
            t_prev = t
            continue
        # failure reports; an assertion's message is printed unindented
        if text.strip() and not re.match(r"^\s*(KTAP|1\.\.|# Subtest:)", text):
            diag.append(text)
    if not checks and glob_or_substring(pattern, suite.name):
        out = [x for _, x in suite.lines if x.strip()][-15:]
        checks.append(Check(suite.name, "FAIL", suite.seconds,
                            ["the KUnit module reported no results; " +
                             why_stopped(suite)] + out))
    return checks


