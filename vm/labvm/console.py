# SPDX-License-Identifier: GPL-2.0
"""The kernel splats in the console log (ttyS0), and whose they are.

The guest writes markers "labvm: NONCE VERB ARG" into the kernel log as a
suite begins, a case runs and a suite ends; a splat belongs to the check
whose marker came last before it."""

import re

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



def splat_detail(s):
    lines = ["kernel %s (console log line %d%s):" % (
        s["kind"], s["line"] + 1,
        "; the start of it" if len(s["excerpt"]) >= EXCERPT_LINES - 1 else "")]
    return lines + ["  " + x for x in s["excerpt"]]


