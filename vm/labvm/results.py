# SPDX-License-Identifier: GPL-2.0
"""What the results channel (ttyS1) said: the protocol lines "@@NONCE VERB"
that frame each suite, and the output of the suite between them.  The
reader follows the channel's file while QEMU runs and times each line."""

import re
import time


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


