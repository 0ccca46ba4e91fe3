# SPDX-License-Identifier: GPL-2.0
"""One check: its name, its verdict, its time, and why it failed."""

class Check:
    """One line of the report."""

    def __init__(self, name, verdict, elapsed=None, detail=None):
        self.name = name
        self.verdict = verdict      # PASS, FAIL, SKIP, NOT RUN
        self.elapsed = elapsed
        self.detail = list(detail or [])

