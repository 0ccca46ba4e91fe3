# SPDX-License-Identifier: GPL-2.0
"""Which checks a T= filter selects: the same rule as labcheck_match() in
the guest (labs/common/labcheck.h)."""

import fnmatch


def glob_or_substring(pattern, name):
    """The filter rule, the same as labcheck_match() in the guest:
    comma-separated patterns, each a glob if it has glob characters,
    else a substring."""
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
        glob = [i for i, c in enumerate(p) if c in "*?["]
        if glob:
            # a glob might, unless the text before its first wildcard
            # already leaves this suite: "lab3_fault.*x" is not lab7's
            head, name = p[:glob[0]], suite + "."
            if head.startswith(name) or name.startswith(head):
                return True
            continue
        if p and (p in suite + "." or p.startswith(suite + ".")):
            return True
    return False

