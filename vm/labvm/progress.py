# SPDX-License-Identifier: GPL-2.0
"""What a student sees while the checks run.  On a terminal: one line,
rewritten in place, with the suite (k of n), the check running in it and
the time so far.  Anywhere else (a log, CI): one plain line per suite, as
it begins, so logs stay clean."""

import re
import sys
import time

HARNESS_RUN = re.compile(r"^#\s+RUN\s+(?:global\.)?(\S+) \.\.\.$")


class Progress:
    def __init__(self, total, stream=None, tty=None, clock=time.monotonic):
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.clock = clock
        self.k = 0
        self.suite = None
        self.case = None
        self.since = None
        self.shown = False
        self.shown_seconds = None

    def begin(self, suite):
        self.k += 1
        self.suite, self.case, self.since = suite, None, self.clock()
        if self.tty:
            self.show()
        else:
            self.stream.write("labvm: running %s ...\n" % suite)

    def output(self, text):
        """A line of the suite's output: a kselftest "RUN" names the check."""
        m = HARNESS_RUN.match(text)
        if m and self.suite:
            self.case = m.group(1)
            if self.tty:
                self.show()

    def tick(self):
        """Called as the run waits: keeps the elapsed time current."""
        if self.tty and self.suite and \
                int(self.clock() - self.since) != self.shown_seconds:
            self.show()

    def end(self):
        self.suite = self.case = None
        self.clear()

    def show(self):
        line = "labvm: [%d/%d] %s%s  %.0f s" % (
            self.k, self.total, self.suite, "." + self.case if self.case else "",
            self.clock() - self.since)
        self.shown_seconds = int(self.clock() - self.since)
        self.stream.write("\r\033[K" + line)
        self.stream.flush()
        self.shown = True

    def clear(self):
        if self.tty and self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False
