# SPDX-License-Identifier: GPL-2.0
"""A failure explains first: its detail opens with what was expected, what
was seen and where to look ("expected:", "seen:", "hint:"), and the raw
assertion or the program's own log comes after.  KUnit's failure reports
are put in that form here; a check program prints it itself (the
EXPECTED(), SEEN() and HINT() of labs/common/labcheck.h)."""

import re

KUNIT_FAILED = re.compile(r"^(\s*)# (\S+): (EXPECTATION|ASSERTION) FAILED at (\S+)$")
KUNIT_PARAM = re.compile(r"^\s+(ok|not ok) \d+ (\S+)")
HINT_IN_MESSAGE = re.compile(r"^(.*?)\s*\(hint: (.*)\)$")


def explained_first(detail):
    """detail with its first expected/seen/hint lines moved to the top.
    The lines under a hint that continue it (a note in parentheses) move
    with it; everything else keeps its order, after them."""
    start = next((i for i, d in enumerate(detail) if d.startswith("expected:")), None)
    if start is None or start == 0:
        return list(detail)
    end = start + 1
    while end < len(detail) and detail[end].startswith(("seen:", "hint:")):
        end += 1
    while end < len(detail) and detail[end - 1].startswith("hint:") and \
            detail[end].startswith("(") and detail[end].endswith(")"):
        end += 1
    return detail[start:end] + detail[:start] + detail[end:]


def kunit_explained(lines):
    """The failure reports of one KUnit case (its raw log lines, as
    printed) as expected/seen/hint lines, each followed by where the
    assertion is.  The message of a KUNIT_*_MSG() assertion says what was
    expected, and "(hint: ...)" at its end where to look; without one, the
    assertion's own text is what was expected.  Lines that are no part of
    a failure report are kept, after."""
    out, rest = [], []
    pending = []        # the seen lines of failures before a param's result
    i = 0
    while i < len(lines):
        m = KUNIT_FAILED.match(lines[i])
        if not m:
            p = KUNIT_PARAM.match(lines[i])
            if p:       # "not ok 2 pmem0": the failures above were on pmem0
                for k in pending if p.group(1) == "not ok" else []:
                    out[k] += " (on %s)" % p.group(2)
                pending = []
            elif lines[i].strip():
                rest.append(lines[i].strip())
            i += 1
            continue
        where = m.group(4).split("/")[-1]
        i += 1
        assertion, values, message = "", [], []
        if i < len(lines) and lines[i].strip().startswith("Expected "):
            indent = len(lines[i]) - len(lines[i].lstrip())
            assertion = re.sub(r", but$", "", lines[i].strip()[len("Expected "):])
            i += 1
            while i < len(lines) and len(lines[i]) - len(lines[i].lstrip()) > indent \
                    and not KUNIT_PARAM.match(lines[i]):
                values.append(lines[i].strip())
                i += 1
        while i < len(lines) and lines[i].strip() and not lines[i][0].isspace():
            message.append(lines[i].strip())
            i += 1
        text = " ".join(message)
        hint = HINT_IN_MESSAGE.match(text)
        expected = (hint.group(1) if hint else text) or assertion
        out.append("expected: %s" % expected)
        pending.append(len(out))
        out.append("seen:     %s" % ("; ".join(values) or "not " + assertion))
        if hint:
            out.append("hint:     %s" % hint.group(2))
        out.append("(at %s: %s)" % (where, assertion))
    return out + rest
