#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Merge the per-submission results of a grading run into what a course
needs: summary.txt (the table make grade prints), gradebook.csv (one row
per submission, for a spreadsheet or an LMS) and junit.xml (every
submission's JUnit suite in one file, for a CI server).

Usage: grade-merge.py RESULTS LIST
  RESULTS  the results directory, holding NAME.row and NAME.xml per
           submission (scripts/grade-one.sh writes them)
  LIST     the submissions of this run, one "ID<TAB>LAB<TAB>KIND<TAB>SOURCE"
           line each, in the order to report them
"""

import csv
import os
import sys
import xml.etree.ElementTree as ET

COLUMNS = ["submission", "lab", "passed", "failed", "skipped", "verdict", "seconds",
           "kernel_build_seconds", "checks_seconds", "sandboxed", "sha256"]


def name_of(sub_id):
    return "".join(c if c.isalnum() or c in "_.+-" else "_" for c in sub_id)


def read_row(results, sub_id, lab):
    path = os.path.join(results, name_of(sub_id) + ".row")
    try:
        with open(path) as f:
            fields = f.read().rstrip("\n").split("\t")
    except OSError:
        fields = []
    if len(fields) != len(COLUMNS):
        fields = [sub_id, lab, "-", "-", "-", "not graded (no result)", "-", "-", "-",
                  "-", "-"]
    return dict(zip(COLUMNS, fields))


def suites_of(results, row):
    """The <testsuite> elements of one submission's JUnit file."""
    path = os.path.join(results, name_of(row["submission"]) + ".xml")
    try:
        return list(ET.parse(path).getroot().iter("testsuite"))
    except (OSError, ET.ParseError):
        s = ET.Element("testsuite", name=row["submission"], tests="1", failures="1")
        c = ET.SubElement(s, "testcase", classname=row["submission"], name="submission")
        ET.SubElement(c, "failure", message=row["verdict"])
        return [s]


def main():
    results, listing = sys.argv[1], sys.argv[2]
    rows = []
    with open(listing) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2 and parts[0]:
                rows.append(read_row(results, parts[0], parts[1]))

    with open(os.path.join(results, "summary.txt"), "w") as f:
        f.write("%-28s %-4s %-7s %-7s %s\n" % ("submission", "lab", "passed", "failed",
                                              "verdict"))
        for r in rows:
            f.write("%-28s %-4s %-7s %-7s %s\n" % (r["submission"], r["lab"], r["passed"],
                                                  r["failed"], r["verdict"]))

    # RFC 4180: a header, commas, quotes where needed, CRLF line ends;
    # "-" (not measured) becomes an empty cell, so numbers stay numbers.
    with open(os.path.join(results, "gradebook.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow(["" if r[c] == "-" else r[c] for c in COLUMNS])

    top = ET.Element("testsuites")
    for r in rows:
        for s in suites_of(results, r):
            s.set("name", r["submission"])
            top.append(s)
    ET.ElementTree(top).write(os.path.join(results, "junit.xml"), encoding="UTF-8",
                              xml_declaration=True)


if __name__ == "__main__":
    main()
