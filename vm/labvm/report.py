# SPDX-License-Identifier: GPL-2.0
"""The report of a run: the text a student reads (report.txt and stdout),
TAP for CI servers and graders, and JUnit XML."""

import re
from xml.sax.saxutils import escape as xml_escape, quoteattr as xml_quoteattr


def report(checks, out, pattern=None):
    width = max([len(c.name) for c in checks] + [20])
    passed = failed = skipped = notrun = 0
    for c in checks:
        el = ""
        if c.elapsed is not None:
            el = "%6.1f s" % c.elapsed
        out.write("%-7s %-*s %s\n" % (c.verdict, width, c.name, el))
        if c.verdict != "PASS":
            for d in c.detail:
                out.write("        %s\n" % d)
        if c.verdict == "PASS":
            passed += 1
        elif c.verdict == "SKIP":
            skipped += 1
        else:
            failed += 1
            if c.verdict == "NOT RUN":
                notrun += 1
    if notrun:
        out.write("(%d of the failed checks did not run)\n" % notrun)
    out.write("%d passed, %d failed%s\n" % (
        passed, failed, ", %d skipped" % skipped if skipped else ""))
    return failed


def write_tap(checks, path):
    """The verdicts as TAP, for CI servers and graders."""
    with open(path, "w") as f:
        f.write("TAP version 13\n1..%d\n" % len(checks))
        for i, c in enumerate(checks, 1):
            ok = c.verdict in ("PASS", "SKIP")
            f.write("%s %d - %s%s\n" % ("ok" if ok else "not ok", i, c.name,
                                        " # SKIP" if c.verdict == "SKIP" else ""))
            for d in c.detail if not ok or c.verdict == "SKIP" else []:
                f.write("# %s\n" % d)


# What XML 1.0 cannot carry, even escaped: a guest may print any byte.
XML_BAD = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def write_junit(checks, path, suite_name):
    """The verdicts as JUnit XML (GitLab, GitHub Actions, Classroom)."""


    def escape(text):
        return xml_escape(XML_BAD.sub("?", text))

    def quoteattr(text):
        return xml_quoteattr(XML_BAD.sub("?", text))
    failures = sum(c.verdict in ("FAIL", "NOT RUN") for c in checks)
    skipped = sum(c.verdict == "SKIP" for c in checks)
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        f.write('<testsuites><testsuite name=%s tests="%d" failures="%d" '
                'skipped="%d">\n' % (quoteattr(suite_name), len(checks),
                                      failures, skipped))
        for c in checks:
            cls, _, name = c.name.rpartition(".")
            f.write('  <testcase classname=%s name=%s time="%.1f">' % (
                quoteattr(cls or suite_name), quoteattr(name), c.elapsed or 0))
            text = escape("\n".join(c.detail))
            if c.verdict == "FAIL":
                f.write('<failure message=%s>%s</failure>' % (
                    quoteattr(c.detail[0] if c.detail else "failed"), text))
            elif c.verdict == "NOT RUN":
                f.write('<error message=%s>%s</error>' % (
                    quoteattr(c.detail[0] if c.detail else "not run"), text))
            elif c.verdict == "SKIP":
                f.write('<skipped/>')
            f.write('</testcase>\n')
        f.write('</testsuite></testsuites>\n')


