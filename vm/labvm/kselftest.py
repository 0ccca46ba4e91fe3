# SPDX-License-Identifier: GPL-2.0
"""Checks from a kselftest-harness program: its TAP on the results channel,
one check per TEST(), named "suite.test".  The "# labcheck-plan" lines the
program prints first list every test, so a test that never reported is
still a check (failed, or not run)."""

import re

from labvm.check import Check
from labvm.explain import explained_first

TAP_RESULT = re.compile(r"^(ok|not ok) (\d+) ?(.*)$")


def check_name(suite, test):
    if test.startswith("global."):
        test = test[len("global."):]
    return "%s.%s" % (suite, test)


def prog_checks(suite, why_stopped):
    """Checks of one kselftest-harness program, from its TAP output."""
    plan = []
    results = {}
    diag = {}
    started = {}
    cur_diag = []
    running = None
    for t, text in suite.lines:
        if text.startswith("# labcheck-plan "):
            plan.append(text[len("# labcheck-plan "):].strip())
            continue
        m = re.match(r"^#\s+RUN\s+(\S+) \.\.\.$", text)
        if m:
            # the harness says "global.NAME" for TEST()s; the plan says NAME
            running = re.sub(r"^global\.", "", m.group(1))
            started[running] = t
            cur_diag = []
            continue
        if re.match(r"^#\s+(OK|FAIL)\s+\S+$", text):
            continue
        m = TAP_RESULT.match(text)
        if m:
            num = int(m.group(2))
            name = plan[num - 1] if 0 < num <= len(plan) else m.group(3)
            skip = re.search(r"#\s*SKIP\s*(.*)$", m.group(3))
            results[name] = ("SKIP" if skip else
                             "PASS" if m.group(1) == "ok" else "FAIL",
                             skip.group(1) if skip else None, t)
            diag[name] = cur_diag
            cur_diag = []
            running = None
            continue
        if text.startswith("# ") and running is None and not plan:
            continue            # harness header chatter
        if running is not None:
            cur_diag.append(text)
        elif not TAP_RESULT.match(text) and not text.startswith(("TAP ", "1..")) \
                and not re.match(r"^# (Totals|PASSED|FAILED|labcheck)", text):
            cur_diag.append(text)

    checks = []
    stopped = False
    for name in plan:
        full = check_name(suite.name, name)
        if name in results:
            verdict, reason, t_end = results[name]
            t_start = started.get(name)
            el = (t_end - t_start) if (t_end is not None and t_start is not None) else None
            detail = explained_first([tidy_diag(d) for d in diag.get(name, [])
                                      if tidy_diag(d)])
            if verdict == "SKIP":
                detail = [reason] if reason else []
            checks.append(Check(full, verdict, el, detail if verdict != "PASS" else []))
        elif name == running and not stopped:
            stopped = True
            detail = [tidy_diag(d) for d in cur_diag if tidy_diag(d)]
            checks.append(Check(full, "FAIL", None, [why_stopped(suite)] + detail))
        else:
            checks.append(Check(full, "NOT RUN", None,
                                [why_stopped(suite, before=True)]))
    if not plan:
        out = [x for _, x in suite.lines][-15:]
        if suite.ended and suite.rc == 0:
            return []           # nothing matched the filter
        checks.append(Check(suite.name, "FAIL", suite.seconds,
                            ["the program reported no tests; " +
                             why_stopped(suite)] + out))
    return checks


HARNESS_NOISE = re.compile(r"^# \S+: Test (failed at step #\d+|terminated by assertion)$")


def tidy_diag(text):
    """A harness diagnostic line without the "# file:line:test:" prefix."""
    text = text.rstrip()
    if HARNESS_NOISE.match(text):
        return ""
    m = re.match(r"^# [^:]+:\d+:[^:]+:(.*)$", text)
    if m:
        return m.group(1).strip()
    if text.startswith("# "):
        return text[2:].strip()
    return text.strip()


