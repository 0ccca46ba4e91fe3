# SPDX-License-Identifier: GPL-2.0
"""Where the time of a run went: the host's phases (compile, link,
initramfs), which scripts/vm.sh measures and hands over in a file of
"NAME SECONDS" lines, and the VM's (boot, each suite, power-off), read
from when each protocol line arrived on the results channel."""

import re


def host_phases(path):
    """[(name, seconds)] from the file vm.sh wrote; [] if there is none."""
    if not path:
        return []
    phases = []
    try:
        with open(path) as f:
            for line in f:
                parts = line.rsplit(None, 1)     # a name may have spaces
                if len(parts) == 2:
                    try:
                        phases.append((parts[0], float(parts[1])))
                    except ValueError:
                        pass
    except OSError:
        pass
    return phases


def vm_phases(boot):
    """[(name, seconds)] of one boot: "boot" until /init reported, each
    suite from BEGIN to END, and "power-off" after the last one."""
    proto = re.compile(r"^@@%s (\w+) ?(\S*)" % re.escape(boot.nonce))
    phases = []
    last = boot.started
    suite = None
    for t, text in boot.reader.lines:
        m = proto.match(text)
        if not m or t is None:
            continue
        verb = m.group(1)
        if verb == "READY":
            phases.append(("boot", t - boot.started))
            last = t
        elif verb == "BEGIN":
            if t - last >= 0.5:
                phases.append(("between suites", t - last))
            suite, last = m.group(2), t
        elif verb == "END" and suite:
            phases.append((suite, t - last))
            suite, last = None, t
    if suite:
        phases.append((suite + " (cut)", boot.started + boot.elapsed - last))
    elif phases:
        phases.append(("power-off", boot.started + boot.elapsed - last))
    return phases


def merge(phases):
    """The same name twice (two boots, or "between suites") is one line."""
    out = []
    for name, sec in phases:
        for i, (n, s) in enumerate(out):
            if n == name:
                out[i] = (n, s + sec)
                break
        else:
            out.append((name, sec))
    return out


def breakdown(phases):
    """The lines of the report's breakdown."""
    phases = merge(phases)
    if not phases:
        return []
    total = sum(s for _, s in phases)
    width = max(len(n) for n, _ in phases)
    lines = ["where the time went (%.0f s):" % total]
    for name, sec in phases:
        lines.append("  %-*s %6.1f s  %3.0f %%" % (width, name, sec,
                                                  100.0 * sec / total if total else 0))
    return lines
