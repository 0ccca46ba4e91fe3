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


FRAME = re.compile(r"^(?:RIP: [0-9a-f]{4}:)?\s*([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+")


def load_lab_functions(path):
    """{function: file} from a file of "function file" lines (scripts/vm.sh
    lists the functions of every .c file the labs change), or {}."""
    funcs = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    funcs.setdefault(parts[0], parts[1])
    except (OSError, TypeError):
        pass
    return funcs


def first_lab_frame(excerpt, functions):
    """(function, file) of the first frame of a splat's trace that is in
    the lab's code, or None.  Frames the unwinder is unsure of ("? f")
    are skipped; "f.cold" and "f.isra.0" are f."""
    for line in excerpt:
        m = FRAME.match(line.strip())
        if m:
            name = m.group(1).split(".")[0]
            if name in functions:
                return name, functions[name]
    return None


def splat_explained(s, functions):
    """The expected/seen/hint lines for a check during which the kernel
    reported a problem (s: a splat of labvm.console.parse_console())."""
    frame = first_lab_frame(s["excerpt"], functions)
    first = next((x for x in s["excerpt"] if "cut here" not in x), "")
    hang = "stall" in s["kind"] or "hung task" in s["kind"]
    return ["expected: the check to %s" % (
                "finish, with no CPU stalled and no task blocked" if hang else
                "run with no kernel warning, oops or panic"),
            "seen:     kernel %s: %s" % (s["kind"], first.strip()),
            "hint:     %s" % ("%s() in %s: the first function of the trace that is "
                              "the lab's code" % frame if frame else
                              "the trace below (none of its functions is in a file "
                              "the labs change)")]
