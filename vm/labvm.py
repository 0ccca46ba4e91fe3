#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""labvm: boot the lab kernel in QEMU, run checks, and tell the truth.

Modes:
  check  boot, run the check suites of labs 0..N, print one line per check
         and "N passed, N failed"; exit 1 on any failure
  shell  an interactive shell in the same VM (make vm)
  run    run one command in the VM, print its output, exit with its status
  parse  give the verdicts for a recorded console log and results log
         (the runner's own tests use this)

The VM (see vm/init): the console (ttyS0) carries kernel messages and
markers the guest writes into the kernel log; a second serial port (ttyS1)
carries the checks' TAP output and protocol lines "@@NONCE VERB ...".  The
nonce is fresh for every boot and reaches the guest only inside the
initramfs, so nothing the kernel prints can pass for a protocol line.

A kernel splat (panic, oops, BUG, WARNING, lockdep report, hung task, soft
lockup) fails the check that was running when it was printed; a hang is cut
by a time limit and blamed on the check that was running; QEMU is always
killed before this program exits.
"""

import argparse
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time

# ---------------------------------------------------------------- the VM shape
CPUS = 2
MEM_MIB = 1536               # pmem0 is carved out of this, below its end
PMEM_START_MIB = 1024        # memmap=SIZE!START: guest RAM turned into pmem0
PMEM_MIB = 256
RAM0_MIB = 64                # brd: /dev/ram0
NVDIMM_MIB = 256             # NVDIMM=file: a new file's size
MIN_QEMU = (5, 0)            # nvdimm, memory-backend-file, -nodefaults


def kernel_cmdline(extra=""):
    args = [
        "console=ttyS0,115200",
        "memmap=%dM!%dM" % (PMEM_MIB, PMEM_START_MIB),
        "brd.rd_nr=1", "brd.rd_size=%d" % (RAM0_MIB * 1024),
        "random.trust_cpu=on",   # RDRAND seeds the CRNG: mke2fs would wait 4 s
        "printk.devkmsg=on",     # the guest's markers must not be ratelimited
        "panic=-1",              # a panic reboots, and -no-reboot ends QEMU
        "rdinit=/init",
    ]
    return " ".join(args) + (" " + extra if extra else "")


# -------------------------------------------------------------- kernel splats
# Each pattern names one kind of report.  They are searched anywhere in a
# console line: user output on the console can precede a kernel message on
# the same line.
TS = r"\[\s*\d+\.\d+\]\s"
SPLATS = [
    ("panic", re.compile(r"Kernel panic - not syncing")),
    ("lockdep report", re.compile(
        r"WARNING: (possible (circular|recursive) locking|inconsistent lock"
        r" state|possible irq lock inversion|suspicious RCU usage|bad unlock"
        r" balance|held lock freed|lock held when returning|nested lock)")),
    ("lockdep report", re.compile(r"INFO: possible (recursive|circular)")),
    ("WARNING", re.compile(r"WARNING: CPU: \d+ PID: \d+")),
    ("BUG", re.compile(r"\bBUG: |kernel BUG at ")),
    ("oops", re.compile(r"\bOops: [0-9a-f]{4}|general protection fault"
                        r"|stack segment: ")),
    ("hung task", re.compile(r"INFO: task .* blocked for more than")),
    ("RCU stall", re.compile(r"rcu: INFO: \S+ detected stalls")),
    ("UBSAN report", re.compile(r"UBSAN: ")),
    # the filesystem found itself damaged, or metadata changed behind the
    # journal's back: wrong even if every check's own test passes
    ("filesystem error", re.compile(r"EXT4-fs error \(device "
                                    r"|JBD2: Spotted dirty metadata buffer")),
]
SPLAT_END = re.compile(r"---\[ end (trace|Kernel panic)")
EXCERPT_LINES = 40
KUNIT_DETAIL_LINES = 12


def find_splat(line):
    for kind, rx in SPLATS:
        if rx.search(line):
            return kind
    return None


# ------------------------------------------------------------------ results
class Check:
    """One line of the report."""

    def __init__(self, name, verdict, elapsed=None, detail=None):
        self.name = name
        self.verdict = verdict      # PASS, FAIL, SKIP, NOT RUN
        self.elapsed = elapsed
        self.detail = list(detail or [])


def glob_or_substring(pattern, name):
    """The filter rule, the same as labcheck_match() in the guest:
    comma-separated patterns, each a glob if it has glob characters,
    else a substring."""
    import fnmatch
    if not pattern:
        return True
    for p in pattern.split(","):
        if not p:
            continue
        if any(c in p for c in "*?[") and fnmatch.fnmatchcase(name, p):
            return True
        if not any(c in p for c in "*?[") and p in name:
            return True
    return False


def suite_may_match(pattern, suite):
    """Could the filter select a check of suite (named "suite.test")?
    Used to skip suites that need boots of their own."""
    if not pattern:
        return True
    for p in pattern.split(","):
        if any(c in p for c in "*?["):
            return True         # a glob might: run it
        if p and (p in suite + "." or p.startswith(suite + ".")):
            return True
    return False


def parse_console(text, nonce):
    """Find the kernel splats in the console log, and whose they are.

    Returns the splats: a list of dict(kind, line, owner, excerpt).
    The owner of a splat is the check that was running: "boot" before
    /init started, "SUITE.CASE" inside a case, "SUITE" between cases or in a
    KUnit suite, "between checks" after a suite ended.
    """
    lines = text.replace("\r", "").split("\n")
    marker = re.compile(r"labvm: %s (\w+) ?(\S*)" % re.escape(nonce))
    owner = "boot"
    suite = None
    splats = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        m = marker.search(ln) if nonce else None
        if m:
            verb, arg = m.group(1), m.group(2)
            if verb == "READY":
                owner = "between checks"
            elif verb == "BEGIN":
                suite = arg
                owner = arg
            elif verb == "RUN":
                owner = arg if arg != "-" else suite
            elif verb == "END":
                owner = "between checks"
                suite = None
            i += 1
            continue
        kind = find_splat(ln)
        if kind:
            start = i
            # include the "cut here" line that precedes a WARNING/BUG
            if i > 0 and "cut here" in lines[i - 1]:
                start = i - 1
            end = i + 1
            while end < len(lines) and end - start < EXCERPT_LINES:
                if SPLAT_END.search(lines[end - 1]) or marker.search(lines[end]):
                    break
                end += 1
            excerpt = [strip_ts(x) for x in lines[start:end] if x.strip()]
            kinds = [kind]
            for x in lines[i + 1:end]:
                k = find_splat(x)
                if k and k not in kinds:
                    kinds.append(k)
            splats.append(dict(kind=" + ".join(kinds), line=i, owner=owner,
                               excerpt=excerpt))
            i = end
            continue
        i += 1
    return splats


def console_segments(text, nonce):
    """The console lines of each suite, between its BEGIN and END markers,
    without the printk timestamps (KUnit prints its KTAP to the kernel
    log, line by line; a crash leaves the segment open to the end)."""
    lines = text.replace("\r", "").split("\n")
    marker = re.compile(r"labvm: %s (BEGIN|END) (\S+)" % re.escape(nonce))
    ts = re.compile(r"^\[\s*(\d+\.\d+)\] ")
    segs = {}
    cur = None
    for ln in lines:
        m = marker.search(ln) if nonce else None
        if m:
            cur = m.group(2) if m.group(1) == "BEGIN" else None
            if cur:
                segs[cur] = []
            continue
        if cur is not None:
            t = ts.match(ln)
            segs[cur].append((float(t.group(1)) if t else None, ts.sub("", ln)))
    return segs


def strip_ts(line):
    return re.sub(r"^.*?" + TS, "", line, count=1) if re.search(TS, line) else line


class Suite:
    def __init__(self, name, kind):
        self.name = name
        self.kind = kind
        self.began = False
        self.ended = False
        self.rc = None
        self.seconds = None
        self.lines = []            # (time or None, text)


class Results:
    """What the results channel said."""

    def __init__(self):
        self.ready = False          # /init started
        self.done = False           # /init finished every suite
        self.ready_uptime = None    # the guest's uptime when /init started
        self.preflight = []         # what /init found wrong with the VM
        self.suites = {}            # name -> Suite


def parse_results(lines, nonce):
    """lines: list of (time, text) from the results channel."""
    proto = re.compile(r"^@@%s (\w+) ?(.*)$" % re.escape(nonce))
    r = Results()
    current = None
    for t, text in lines:
        m = proto.match(text)
        if not m:
            if current:
                current.lines.append((t, text))
            continue
        verb, rest = m.group(1), m.group(2).split()
        if verb == "READY":
            r.ready = True
            up = re.match(r"uptime=([\d.]+)", " ".join(rest))
            if up:
                r.ready_uptime = float(up.group(1))
        elif verb == "BEGIN" and rest:
            current = Suite(rest[0], rest[1] if len(rest) > 1 else "prog")
            current.began = True
            r.suites[current.name] = current
        elif verb == "END" and rest and current and rest[0] == current.name:
            kv = dict(x.split("=", 1) for x in rest[1:] if "=" in x)
            current.ended = True
            current.rc = int(kv.get("rc", "0"))
            if "cs" in kv:
                current.seconds = int(kv["cs"]) / 100.0
            current = None
        elif verb == "DONE":
            r.done = True
        elif verb == "PREFLIGHT":
            r.preflight.append(" ".join(rest))
    return r


TAP_RESULT = re.compile(r"^(ok|not ok) (\d+) ?(.*)$")
KTAP_CASE = re.compile(r"^\s+(ok|not ok) (\d+) (\S+)(.*)$")


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
            detail = [tidy_diag(d) for d in diag.get(name, []) if tidy_diag(d)]
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
                detail = [x.strip() for x in diag if x.strip()]
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


def verdicts(planned, results_lines, console_text, nonce, end, pattern,
             limits):
    """The whole report.

    planned: list of (suite name, kind) the guest was asked to run
    end: how the run ended: "done", "exited", "boot-timeout",
         "check-timeout", "stall-timeout"
    """
    res = parse_results(results_lines, nonce)
    ready, suites = res.ready, res.suites
    splats = parse_console(console_text, nonce)
    segments = console_segments(console_text, nonce)
    panicked = [s for s in splats if "panic" in s["kind"]]

    def why_stopped(suite, before=False):
        if before:
            if panicked:
                return "not run: the kernel panicked during %s" % panicked[0]["owner"]
            if suite.ended and suite.rc == 137:
                return "not run: the program was killed at the time limit"
            if suite.ended:
                return "not run: the program stopped early (exit status %s)" % suite.rc
            if end == "check-timeout":
                return "not run: the VM was stopped after a hang"
            return "not run: the VM ended before this check"
        if panicked:
            return "the kernel panicked while this check ran"
        if end == "check-timeout" and not suite.ended:
            return ("no result within the check time limit (%d s): the check or"
                    " the kernel hangs (raise it with CHECK_TIMEOUT=seconds)"
                    % limits["check"])
        if suite.ended:
            if suite.rc == 137:
                return ("killed after the check time limit (%d s): it hangs "
                        "(raise it with CHECK_TIMEOUT=seconds)" % limits["check"])
            if suite.rc is not None and suite.rc > 128:
                return "the test process died of signal %d (see the console log)" % (
                    suite.rc - 128)
            return "the program exited (status %s) without a result for it" % suite.rc
        return "the VM ended while this check ran"

    checks = []
    # The boot itself is a check: the kernel reached /init without a splat.
    boot_splats = [s for s in splats if s["owner"] == "boot"]
    if ready and not boot_splats and not res.preflight:
        checks.append(Check("boot", "PASS", res.ready_uptime))
    else:
        detail = []
        if res.preflight:
            detail += ["the VM is not what the labs need:"]
            detail += ["  " + p for p in res.preflight]
            detail += ["hint: the kernel needs CONFIG_BLK_DEV_PMEM, "
                       "CONFIG_X86_PMEM_LEGACY and CONFIG_BLK_DEV_RAM (vm/lab.config);"
                       " the sizes come from memmap= and brd.rd_size= (vm/labvm.py)"]
        if not ready:
            if end == "boot-timeout":
                detail.append("the kernel did not start /init within %d s "
                              "(raise it with BOOT_TIMEOUT=seconds)" % limits["boot"])
            elif panicked:
                detail.append("the kernel panicked before /init started")
            else:
                detail.append("QEMU ended before /init started")
            if not boot_splats:
                tail = [x for x in console_text.replace("\r", "").split("\n")
                        if x.strip()][-12:]
                detail += ["last console lines:"] + ["  " + x for x in tail]
        checks.append(Check("boot", "FAIL", None, detail))
        for s in boot_splats:
            checks[-1].detail += splat_detail(s)

    by_owner = {}
    for s in splats:
        by_owner.setdefault(s["owner"], []).append(s)
    used = set(["boot"])

    for name, kind in planned:
        suite = suites.get(name)
        if suite is None or not suite.began:
            if glob_or_substring(pattern, name) or kind == "prog":
                why = ("not run: the kernel panicked during %s" % panicked[0]["owner"]
                       if panicked else "not run: the VM never reached this suite"
                       if ready else "not run: the kernel did not boot")
                checks.append(Check(name, "NOT RUN", None, [why]))
            continue
        if kind == "kunit":
            # KUnit's KTAP from the kernel log: the debugfs copy of 6.1
            # keeps only 512 bytes per case and loses results
            suite.lines = segments.get(name, [])
        got = (prog_checks(suite, why_stopped) if kind == "prog"
               else kunit_checks(suite, why_stopped, pattern))
        for c in got:
            for s in by_owner.get(c.name, []):
                c.verdict = "FAIL"
                c.detail += splat_detail(s)
            used.add(c.name)
        # splats inside the suite but outside any one case
        suite_splats = by_owner.get(name, [])
        if suite_splats:
            c = Check(name, "FAIL", suite.seconds,
                      ["the kernel reported a problem while suite %s ran, "
                       "outside any single check" % name])
            for s in suite_splats:
                c.detail += splat_detail(s)
            got.append(c)
        used.add(name)
        checks += got

    rest = [s for s in splats if s["owner"] not in used]
    if rest:
        c = Check("between checks", "FAIL", None,
                  ["the kernel reported a problem outside any check"])
        for s in rest:
            c.detail += splat_detail(s)
        checks.append(c)
    return checks


def splat_detail(s):
    lines = ["kernel %s (console log line %d%s):" % (
        s["kind"], s["line"] + 1,
        "; the start of it" if len(s["excerpt"]) >= EXCERPT_LINES - 1 else "")]
    return lines + ["  " + x for x in s["excerpt"]]


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
    from xml.sax.saxutils import escape as xml_escape, quoteattr as xml_quoteattr

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


# ------------------------------------------------------------ QEMU and cpio
def die(msg, *more, code=1):
    sys.stderr.write("labvm: error: %s\n" % msg)
    for m in more:
        sys.stderr.write("labvm:        %s\n" % m)
    sys.exit(code)


def qemu_binary():
    q = shutil.which("qemu-system-x86_64")
    if not q:
        die("qemu-system-x86_64 is not installed.",
            "Install it: apt-get install qemu-system-x86")
    out = subprocess.run([q, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\d+)\.(\d+)", out)
    if not m or (int(m.group(1)), int(m.group(2))) < MIN_QEMU:
        die("QEMU %s is too old: the lab VM needs %d.%d or newer." % (
            m.group(0) if m else "(unknown version)", *MIN_QEMU),
            "Debian 12's qemu-system-x86 (7.2) is known to work.")
    return q


def preflight_host():
    """The VM's shape must make sense, and fit in this machine's memory."""
    if PMEM_START_MIB + PMEM_MIB > MEM_MIB - 64:
        die("vm/labvm.py: pmem0 (%d MiB at %d MiB) does not fit below the end"
            " of guest RAM (%d MiB)" % (PMEM_MIB, PMEM_START_MIB, MEM_MIB))
    try:
        with open("/proc/meminfo") as f:
            info = dict(l.split(":", 1) for l in f)
        avail = int(info["MemAvailable"].split()[0]) // 1024
    except (OSError, KeyError, ValueError):
        return
    if avail < MEM_MIB + 128:
        die("the VM needs %d MiB of memory; this machine has %d MiB available."
            % (MEM_MIB + 128, avail), "Close other programs and try again.")


def pick_accel(want, build):
    """TCG unless KVM is asked for (ACCEL=kvm) or a probe showed it works.

    KVM is present on some machines but hangs the guest at boot, so it is
    never used on the strength of /dev/kvm alone: "make kvm-probe" boots once
    with KVM under a short time limit and records the result.
    """
    if want == "tcg":
        return "tcg"
    kvm_ok = os.access("/dev/kvm", os.R_OK | os.W_OK)
    if want == "kvm":
        if not kvm_ok:
            die("ACCEL=kvm, but /dev/kvm is missing or not accessible.",
                "Use ACCEL=tcg (the default), or add yourself to group kvm.")
        return "kvm"
    probe = os.path.join(build, "kvm-probe")
    try:
        with open(probe) as f:
            if f.read().startswith("works") and kvm_ok:
                return "kvm"
    except OSError:
        pass
    return "tcg"


def write_cpio_list(entries, path):
    with open(path, "w") as f:
        f.write("\n".join(entries) + "\n")


def make_run_cpio(gen, workdir, conf, banner, files_dir=None):
    """The per-boot archive: /run/labvm/conf, the expected kernel banner,
    and (make vm-run FILES=dir) the user's files under /run/labvm/files."""
    os.makedirs(workdir, exist_ok=True)
    conf_path = os.path.join(workdir, "conf")
    with open(conf_path, "w") as f:
        for k, v in conf.items():
            f.write("%s='%s'\n" % (k, str(v).replace("'", "'\\''")))
    banner_path = os.path.join(workdir, "expected-banner")
    with open(banner_path, "w") as f:
        f.write(banner)
    entries = ["dir /run 0755 0 0", "dir /run/labvm 0755 0 0",
               "file /run/labvm/conf %s 0644 0 0" % conf_path,
               "file /run/labvm/expected-banner %s 0644 0 0" % banner_path]
    if files_dir:
        entries.append("dir /run/labvm/files 0755 0 0")
        for root, dirs, files in os.walk(files_dir):
            dirs.sort()
            rel = os.path.relpath(root, files_dir)
            base = "/run/labvm/files" + ("" if rel == "." else "/" + rel)
            for d in dirs:
                p = os.path.join(root, d)
                if os.path.islink(p):
                    entries.append("slink %s/%s %s 0777 0 0" % (base, d, os.readlink(p)))
                else:
                    entries.append("dir %s/%s 0755 0 0" % (base, d))
            for fn in sorted(files):
                p = os.path.join(root, fn)
                if " " in p or " " in fn:
                    die("FILES: %s has a space in its name; rename it." % p)
                if os.path.islink(p):
                    entries.append("slink %s/%s %s 0777 0 0" % (base, fn, os.readlink(p)))
                elif os.path.isfile(p):
                    mode = os.stat(p).st_mode & 0o777
                    entries.append("file %s/%s %s %o 0 0" % (base, fn, os.path.abspath(p), mode))
    lst = os.path.join(workdir, "run.list")
    write_cpio_list(entries, lst)
    out = os.path.join(workdir, "run.cpio")
    with open(out, "wb") as f:
        r = subprocess.run([gen, lst], stdout=f)
    if r.returncode:
        die("packing the per-boot archive failed (%s)" % lst)
    return out


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


class ResultsReader:
    """Follows the results channel file; timestamps each line on arrival."""

    def __init__(self, path):
        self.path = path
        self.pos = 0
        self.buf = b""
        self.lines = []

    def poll(self):
        new = []
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                data = f.read()
        except OSError:
            return new
        self.pos += len(data)
        self.buf += data
        now = time.monotonic()
        while b"\n" in self.buf:
            raw, self.buf = self.buf.split(b"\n", 1)
            text = raw.decode("utf-8", "replace").replace("\r", "")
            self.lines.append((now, text))
            new.append(text)
        return new

    def flush(self):
        self.poll()
        if self.buf:
            self.lines.append((time.monotonic(),
                               self.buf.decode("utf-8", "replace").replace("\r", "")))
            self.buf = b""


class Boot:
    """How one boot of the VM went."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def sandboxed(script, argv, m, logdir, initrd, nvdimm):
    """argv run by scripts/sandbox.sh: QEMU sees its kernel and initrd
    read-only, and may write only its log directory and its NVDIMM file
    (which then belong to the sandbox's uid)."""
    owner = subprocess.run(["sh", script, "owner"], stdout=subprocess.PIPE,
                           text=True, check=True).stdout.strip()
    wrap = ["sh", script, "--ro", m["kernel"], "--ro", os.path.abspath(initrd),
            "--rw", os.path.abspath(logdir),
            "--cpu", "7200", "--mem", "8192", "--procs", "256", "--fsize", "64",
            "--wall", "7200"]
    writable = [logdir]
    if nvdimm:
        wrap += ["--rw", os.path.abspath(nvdimm)]
        writable.append(nvdimm)
    if m["accel"] == "kvm":
        wrap += ["--dev", "/dev/kvm"]
    if owner:
        uid, gid = (int(x) for x in owner.split(":"))
        for p in writable:
            os.chown(p, uid, gid)
    return wrap + ["--"] + argv


def boot(m, args, mode, logdir, planned=(), nvdimm=None, cmd=None, files=None,
         extra_conf=None, echo=True):
    """Run QEMU once: the machine m, in mode "check" (the planned suites),
    "run" (cmd) or "shell"; nvdimm names a file backing an NVDIMM."""
    os.makedirs(logdir, exist_ok=True)
    nonce = secrets.token_hex(8)
    conf = dict(
        LABVM_MODE=mode, LABVM_NONCE=nonce,
        LABVM_SUITES=" ".join("%s:%s:%s" % p for p in planned),
        LABCHECK_FILTER=args.filter or "",
        LABVM_CHECK_TIMEOUT=args.check_timeout,
        LABVM_PMEM_BYTES=PMEM_MIB << 20, LABVM_RAM_BYTES=RAM0_MIB << 20,
        LABVM_CMD=cmd or "",
        LABVM_NVDIMM="1" if nvdimm else "",
    )
    conf.update(extra_conf or {})
    runcpio = make_run_cpio(m["gen"], os.path.join(logdir, "run"), conf, m["banner"],
                            files)
    initrd = os.path.join(logdir, "initrd.cpio")
    with open(initrd, "wb") as out:
        for part in args.initrd + [runcpio]:
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out)

    console_path = os.path.join(logdir, "console.log")
    results_path = os.path.join(logdir, "results.log")
    for p in (console_path, results_path):
        if os.path.exists(p):
            os.unlink(p)
    machine, mem = "pc", "%dM" % MEM_MIB
    nvdimm_args = []
    if nvdimm:
        # A file-backed emulated NVDIMM, described to the guest by an ACPI
        # NFIT: its contents survive the VM, unlike memmap= pmem.
        path = os.path.abspath(nvdimm)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.truncate(NVDIMM_MIB << 20)
        size = os.path.getsize(path)
        if size % (2 << 20) or size < (16 << 20):
            die("NVDIMM=%s: the file must be a multiple of 2 MiB, at least 16 MiB"
                " (it is %d bytes)" % (nvdimm, size))
        machine = "pc,nvdimm=on"
        mem = "%dM,slots=2,maxmem=%dM" % (MEM_MIB, MEM_MIB + (size >> 20) + 1024)
        # LABVM_NVDIMM_VOLATILE=1 (for the project's own test): share=off,
        # the guest's stores never reach the file
        share = "off" if os.environ.get("LABVM_NVDIMM_VOLATILE") else "on"
        nvdimm_args = ["-object", "memory-backend-file,id=nvmem0,share=%s,mem-path=%s,"
                  "size=%d" % (share, path, size),
                       "-device", "nvdimm,id=nvdimm0,memdev=nvmem0"]
    argv = [m["qemu"], "-nodefaults", "-no-user-config", "-display", "none",
           "-machine", machine, "-accel", m["accel"],
           "-cpu", "host" if m["accel"] == "kvm" else "max",
           "-smp", str(CPUS), "-m", mem] + nvdimm_args + [
           "-kernel", m["kernel"], "-initrd", initrd,
           "-append", kernel_cmdline(args.append or ""),
           "-no-reboot", "-nic", "none"]
    if mode == "shell":
        argv += ["-serial", "mon:stdio", "-serial", "file:" + results_path]
    else:
        argv += ["-serial", "stdio", "-serial", "file:" + results_path,
                "-monitor", "none"]
    if args.sandbox:
        argv = sandboxed(args.sandbox, argv, m, logdir, initrd, nvdimm)
    with open(os.path.join(logdir, "qemu-command"), "w") as f:
        f.write(" ".join("'%s'" % c if " " in c else c for c in argv) + "\n")

    if mode != "shell":
        sys.stderr.write("labvm: booting %s under %s (%d CPUs, %d MiB, pmem0 %d MiB,"
                         " ram0 %d MiB); log in %s\n" % (
                             os.path.relpath(m["kernel"]), m["accel"].upper(), CPUS,
                             MEM_MIB, PMEM_MIB, RAM0_MIB, os.path.relpath(logdir)))
    if mode == "shell":
        console = None
        stdin = None
    else:
        console = open(console_path, "wb")
        stdin = subprocess.DEVNULL
    proc = subprocess.Popen(argv, stdin=stdin, stdout=console,
                            stderr=subprocess.STDOUT if console else None,
                            start_new_session=(mode != "shell"))
    reader = ResultsReader(results_path)
    end = "exited"
    t_start = time.monotonic()
    deadline = t_start + args.boot_timeout
    phase = "boot"
    shown_run = False
    old = {}
    if mode != "shell":
        def on_signal(sig, frame):
            raise KeyboardInterrupt
        for s in (signal.SIGTERM, signal.SIGHUP):
            old[s] = signal.signal(s, on_signal)
    try:
        while True:
            if proc.poll() is not None:
                end = "done" if phase == "done" else "exited"
                break
            for text in reader.poll():
                m = re.match(r"^@@%s (\w+) ?(\S*)" % nonce, text)
                if not m:
                    if mode == "run" and echo:
                        sys.stdout.write(text + "\n")
                        sys.stdout.flush()
                    elif args.verbose:
                        sys.stderr.write("  | %s\n" % text)
                    continue
                verb = m.group(1)
                if verb == "READY":
                    phase = "idle"
                    deadline = time.monotonic() + args.stall_timeout
                elif verb == "BEGIN":
                    phase = m.group(2)
                    deadline = time.monotonic() + args.check_timeout + 30
                    if mode == "check" and not args.quiet:
                        sys.stderr.write("labvm: running %s ...\n" % phase)
                elif verb == "END":
                    phase = "idle"
                    deadline = time.monotonic() + args.stall_timeout
                elif verb == "DONE":
                    phase = "done"
                    deadline = time.monotonic() + 20
            if mode == "shell":
                time.sleep(0.2)
                continue
            if time.monotonic() > deadline:
                end = {"boot": "boot-timeout", "idle": "stall-timeout",
                       "done": "done"}.get(phase, "check-timeout")
                break
            time.sleep(0.05)
    except KeyboardInterrupt:
        end = "interrupted"
    finally:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL) if mode != "shell" else proc.kill()
            except ProcessLookupError:
                pass
            proc.wait()
        for s, h in old.items():
            signal.signal(s, h)
        if console:
            console.close()
    reader.flush()
    elapsed = time.monotonic() - t_start
    with open(os.path.join(logdir, "end"), "w") as f:
        f.write("%s %s\n" % (end, nonce))
    console_text = ""
    if mode != "shell":
        with open(console_path, "rb") as f:
            console_text = f.read().decode("utf-8", "replace")
    return Boot(end=end, reader=reader, console_text=console_text, elapsed=elapsed,
                nonce=nonce, console_path=console_path, logdir=logdir)


def run_vm(args, mode):
    """Boot the VM for a check, a command or a shell; the exit status."""
    build = args.build
    kobj = args.kobj or os.path.join(build, "obj")
    kernel = os.path.join(kobj, "arch/x86/boot/bzImage")
    if not os.path.exists(kernel):
        die("%s is missing: the kernel is not built." % kernel,
            "Run: make check-lab N (it builds first)")
    qemu = qemu_binary()
    preflight_host()
    accel = pick_accel(args.accel, build)
    gen = os.path.join(build, "tools", "gen_init_cpio")
    logdir = args.logdir
    machine = dict(kernel=kernel, kobj=kobj, qemu=qemu, accel=accel, gen=gen,
                   banner=kernel_banner(os.path.join(kobj, "vmlinux")))

    limits = dict(boot=args.boot_timeout, check=args.check_timeout)
    planned = []
    if mode == "check":
        with open(args.suites) as f:
            for line in f:
                line = line.strip()
                if line:
                    name, kind, path = line.split(":", 2)
                    planned.append((name, kind, path))
    if mode != "check":
        b = boot(machine, args, mode, logdir, nvdimm=args.nvdimm,
                 cmd=getattr(args, "cmd", None), files=getattr(args, "files", None))
        if mode == "shell":
            return 0
        if b.end == "interrupted":
            sys.stderr.write("labvm: interrupted; QEMU stopped. Logs: %s\n" % logdir)
            return 130
        return run_verdict(b.reader, b.console_text, b.nonce, b.end, limits, logdir)

    # A power-cycle suite needs boots of its own (power_cycle()); the
    # others share one.
    cycles = [p for p in planned if p[1] == "powercycle"]
    planned = [p for p in planned if p[1] != "powercycle"]
    checks = []
    elapsed = 0
    console_path = None
    if not cycles or any(suite_may_match(args.filter, n) for n, _, _ in planned):
        b = boot(machine, args, mode, logdir, planned, nvdimm=args.nvdimm)
        if b.end == "interrupted":
            sys.stderr.write("labvm: interrupted; QEMU stopped. Logs: %s\n" % logdir)
            return 130
        checks = verdicts([(n, k) for n, k, _ in planned], b.reader.lines,
                          b.console_text, b.nonce, b.end, args.filter, limits)
        elapsed, console_path = b.elapsed, b.console_path
    for name, _, path in cycles:
        if not suite_may_match(args.filter, name):
            continue
        got = power_cycle(machine, args, limits, name, path)
        if got is None:
            return 130
        checks += got
    with open(os.path.join(logdir, "report.txt"), "w") as f:
        report(checks, f)
    write_tap(checks, os.path.join(logdir, "report.tap"))
    write_junit(checks, os.path.join(logdir, "report.xml"),
                os.path.basename(os.path.normpath(logdir)))
    matched = [c for c in checks if c.name != "boot"]
    if args.filter and not matched:
        report(checks, sys.stdout)
        die("no check matches T=%s." % args.filter,
            "Check names are printed by: make check-lab N (without T).")
    failed = report(checks, sys.stdout)
    if console_path:
        sys.stdout.write("(%.0f s in the VM; console log: %s)\n" % (
            elapsed, os.path.relpath(console_path)))
    return 1 if failed else 0


def power_cycle(m, args, limits, name, path):
    """The checks of a power-cycle suite, or None if interrupted.

    Two boots with one new file-backed NVDIMM.  The first runs the program
    with DAXLAB_PERSIST=write:SEED: it writes, then powers the VM off
    itself with no sync.  The second, a new QEMU, runs it as a check suite
    with DAXLAB_PERSIST=verify:SEED.  The first boot is a check of its own,
    NAME.power_off_without_sync: it fails on a splat, on a step the program
    says failed, or if the VM did not power off.
    """
    logdir = os.path.join(args.logdir, name)
    img = os.path.join(logdir, "nvdimm.img")
    os.makedirs(logdir, exist_ok=True)
    if os.path.exists(img):
        os.unlink(img)          # nothing may survive from an earlier run
    seed = int(secrets.token_hex(4), 16)
    conf = dict(LABVM_POWER_CYCLE="1")
    if not args.quiet:
        sys.stderr.write("labvm: %s: first boot, writes then loses power ...\n" % name)
    b1 = boot(m, args, "run", os.path.join(logdir, "write"), nvdimm=img,
              cmd="DAXLAB_PERSIST=write:%d %s" % (seed, path), extra_conf=conf,
              echo=False)
    if b1.end == "interrupted":
        return None
    out = [t for _, t in b1.reader.lines if not t.startswith("@@")]
    said = [t for t in out if t.startswith("persistence: ")]
    first = Check("%s.power_off_without_sync" % name, "PASS", b1.elapsed)
    splats = parse_console(b1.console_text, b1.nonce)
    powered_off = b1.end == "exited" and any("powering off" in t for t in said)
    if splats or not powered_off or any(" failed: " in t for t in said):
        first.verdict = "FAIL"
        if not powered_off:
            first.detail.append("expected: the program to power the VM off itself "
                                "(reboot(RB_POWER_OFF)); seen: the VM %s" % {
                                    "done": "shut down normally, after a sync",
                                    "check-timeout": "still running at the time limit",
                                    "stall-timeout": "idle, then stopped",
                                    "boot-timeout": "did not boot"}.get(b1.end, b1.end))
        first.detail += out[-15:]
        for s in splats:
            first.detail += splat_detail(s)
    checks = [first]
    if not args.quiet:
        sys.stderr.write("labvm: %s: second boot, the same NVDIMM ...\n" % name)
    b2 = boot(m, args, "check", os.path.join(logdir, "verify"),
              [(name, "prog", "%s:DAXLAB_PERSIST=verify:%d" % (path, seed))],
              nvdimm=img, extra_conf=conf)
    if b2.end == "interrupted":
        return None
    for c in verdicts([(name, "prog")], b2.reader.lines, b2.console_text, b2.nonce,
                      b2.end, args.filter, limits):
        if c.name == "boot":
            if c.verdict == "PASS":
                continue
            c.name = "%s.second_boot" % name
        checks.append(c)
    return checks


def run_verdict(reader, console_text, nonce, end, limits, logdir):
    res = parse_results(reader.lines, nonce)
    splats = parse_console(console_text, nonce)
    for s in splats:
        sys.stderr.write("labvm: the kernel printed a %s while %s:\n" % (
            s["kind"], "your command ran" if s["owner"] == "run" else s["owner"]))
        for x in s["excerpt"][:EXCERPT_LINES]:
            sys.stderr.write("    %s\n" % x)
    run = res.suites.get("run")
    if not res.ready:
        sys.stderr.write("labvm: the VM did not boot (%s); see %s/console.log\n"
                         % (end, logdir))
        return 125
    if run is None or not run.ended:
        why = {"check-timeout": "it did not finish within %d s (CHECK_TIMEOUT=)"
               % limits["check"]}.get(end, "the VM ended first")
        sys.stderr.write("labvm: your command did not finish: %s\n" % why)
        return 124
    return run.rc


# ------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["check", "shell", "run", "parse"])
    ap.add_argument("--build", default="build")
    ap.add_argument("--kobj", help="the kernel build directory (build/obj)")
    ap.add_argument("--logdir", default="build/logs/vm")
    ap.add_argument("--initrd", action="append", default=[])
    ap.add_argument("--suites")
    ap.add_argument("--filter", default="")
    ap.add_argument("--accel", default="auto", choices=["auto", "kvm", "tcg"])
    ap.add_argument("--boot-timeout", type=int, default=120)
    ap.add_argument("--check-timeout", type=int, default=300)
    ap.add_argument("--stall-timeout", type=int, default=60)
    ap.add_argument("--append", default="")
    ap.add_argument("--cmd")
    ap.add_argument("--files")
    ap.add_argument("--nvdimm", help="a file backing an emulated NVDIMM")
    ap.add_argument("--sandbox", help="run QEMU through this scripts/sandbox.sh"
                    " (a submission's kernel)")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    # parse mode: a recorded run
    ap.add_argument("--console")
    ap.add_argument("--results")
    ap.add_argument("--planned", help="file of suite:kind lines")
    ap.add_argument("--end", default="done")
    ap.add_argument("--nonce")
    args = ap.parse_args()

    for name in ("boot_timeout", "check_timeout", "stall_timeout"):
        if getattr(args, name) <= 0:
            die("%s must be a positive number of seconds" % name.upper())
    if args.mode == "parse":
        return parse_mode(args)
    if args.mode == "check" and not args.suites:
        die("check needs --suites")
    if args.mode == "run" and not args.cmd:
        die("make vm-run needs CMD='command to run in the VM'")
    if args.files and not os.path.isdir(args.files):
        die("FILES=%s is not a directory" % args.files)
    return run_vm(args, args.mode)


def parse_mode(args):
    with open(args.console, encoding="utf-8", errors="replace") as f:
        console_text = f.read()
    with open(args.results, encoding="utf-8", errors="replace") as f:
        results = [(None, x.rstrip("\r\n")) for x in f]
    planned = []
    with open(args.planned) as f:
        for line in f:
            if line.strip():
                n, k = line.strip().split(":")[:2]
                planned.append((n, k))
    checks = verdicts(planned, results, console_text, args.nonce, args.end,
                         args.filter, dict(boot=args.boot_timeout,
                                           check=args.check_timeout))
    failed = report(checks, sys.stdout)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
