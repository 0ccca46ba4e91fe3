#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Grade submissions JOBS at a time on this machine, with progress.

Usage: grade-pool.py --jobs J LIST
  LIST  one "ID<TAB>LAB<TAB>KIND<TAB>SOURCE" line per submission to grade;
        each runs as "sh scripts/grade-one.sh ID LAB KIND SOURCE", in a
        session of its own.

Prints a line per finished submission, with done/total, passed and failed
so far, the time elapsed and an estimate of what is left.  On SIGINT or
SIGTERM (Ctrl-C) it stops every running submission (SIGTERM to its whole
process group, then SIGKILL), starts no more, and exits 130: what finished
is kept, what was cut leaves no result, and the next run grades it.
"""

import argparse
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def fmt(seconds):
    seconds = int(seconds)
    return "%d:%02d" % (seconds // 60, seconds % 60) if seconds < 3600 else \
        "%d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)


def result_of(results, sub_id):
    name = "".join(c if c.isalnum() or c in "_.+-" else "_" for c in sub_id)
    try:
        with open(os.path.join(results, name + ".row")) as f:
            return f.read().rstrip("\n").split("\t")
    except OSError:
        return None


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:     # a member that is no longer ours to signal
        return True


def stop_all(running):
    """SIGTERM each submission's process group, wait until every process of
    it has gone (not only its leader: the shell dies at once, while the
    runner in the same group still has to stop the QEMU it started in a
    session of its own), and SIGKILL what is left after 20 s."""
    for p, _ in running:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 20
    for p, _ in running:
        while group_alive(p.pid) and time.monotonic() < deadline:
            p.poll()                # reap the leader, or its pid stays taken
            time.sleep(0.1)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--results", default=os.environ.get("RESULTS", "build/results"))
    ap.add_argument("list")
    args = ap.parse_args()
    with open(args.list) as f:
        todo = [ln.rstrip("\n").split("\t") for ln in f if ln.strip()]
    total = len(todo)
    if not total:
        return 0
    jobs = max(1, args.jobs)

    stop = []

    def on_signal(sig, frame):
        stop.append(sig)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    start = time.monotonic()
    running, done, passed, failed = [], 0, 0, 0
    sys.stdout.write("grade: %d submission(s), %d at a time\n" % (total, jobs))
    sys.stdout.flush()
    queue = list(todo)
    while (queue or running) and not stop:
        while queue and len(running) < jobs and not stop:
            t = queue.pop(0)
            p = subprocess.Popen(["sh", os.path.join(HERE, "grade-one.sh")] + t[:4],
                                 start_new_session=True, stdin=subprocess.DEVNULL)
            running.append((p, t))
        time.sleep(0.2)
        for p, t in list(running):
            if p.poll() is None:
                continue
            running.remove((p, t))
            done += 1
            row = result_of(args.results, t[0])
            verdict = row[5] if row and len(row) > 5 else "grading failed (no result)"
            if verdict.startswith("all checks pass"):
                passed += 1
            else:
                failed += 1
            elapsed = time.monotonic() - start
            left = elapsed / done * (total - done)
            took = "%s s" % row[6] if row and len(row) > 6 and row[6] != "-" else "-"
            sys.stdout.write("[%d/%d] %-28s %s (%s) | passed %d, failed %d | %s elapsed,"
                             " ~%s left\n" % (done, total, t[0], verdict, took, passed,
                                              failed, fmt(elapsed), fmt(left)))
            sys.stdout.flush()
    if stop:
        sys.stdout.write("grade: interrupted: stopping %d running submission(s) ...\n"
                         % len(running))
        sys.stdout.flush()
        stop_all(running)
        sys.stdout.write("grade: %d of %d graded and kept; run the same command again to"
                         " grade the rest\n" % (done, total))
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
