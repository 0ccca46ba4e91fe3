#!/bin/sh
# make test's course-scale grading part, on the submissions of
# tests/submissions (graded first by tests/submissions/run.sh, whose table
# is the reference here):
#   1. one at a time, the table of the grading test;
#   2. JOBS=2, with Ctrl-C in the middle: every build and VM stops, what
#      finished is kept, and the same command again grades only the rest;
#      the two runs together give the same table as one at a time;
#   3. as root: through a single-node Slurm cluster started here
#      (tests/slurm/cluster.sh), the same table again; and a task cancelled
#      in Slurm still gets its row, saying so.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
STEP=grading-scale
. "$ROOT/scripts/lib.sh"
subs="$BUILD/test-scale-submissions"
canary=$(mktemp -d)
trap 'rm -rf "$canary" "$subs" "$subs.killed"; sh "$ROOT/tests/slurm/cluster.sh" stop' EXIT
sh "$ROOT/tests/submissions/render.sh" "$subs" "$canary"
res="$BUILD/results"
out="$BUILD/test-scale.out"

# The verdict columns of the table (timings differ from run to run).
table() { cut -c1-200 "$res/summary.txt"; }
grade() {	# env...: make grade on the submissions, output in $out
	env "$@" SUBMISSIONS="$subs" sh "$ROOT/scripts/grade.sh" >"$out" 2>&1
}
same_table() {	# name: the table equals the reference one
	if table | diff -u "$BUILD/test-scale.reference" - >"$BUILD/test-scale.diff"; then
		ok "$1"
	else
		not_ok "$1; the table differs:"
		sed 's/^/    /' "$BUILD/test-scale.diff"
	fi
}
ours() { pgrep -f "$BUILD/grade/units/|daxlab-grade" 2>/dev/null; }

# The reference: the table of tests/submissions/run.sh's run, else one
# graded here, one at a time.
if [ -f "$BUILD/test-grading.table" ]; then
	grade JOBS=1 || { cat "$out"; die "make grade JOBS=1 failed"; }
	cut -c1-200 "$BUILD/test-grading.table" >"$BUILD/test-scale.reference"
else
	grade FORCE=1 JOBS=1 || { cat "$out"; die "make grade JOBS=1 failed"; }
	table >"$BUILD/test-scale.reference"
fi
same_table "one at a time: the table of the grading test"
for f in gradebook.csv junit.xml; do
	[ -s "$res/$f" ] && ok "make grade writes $f" || not_ok "make grade writes $f"
done
python3 - "$res" <<'PY' && ok "the gradebook has a header and a row per submission, the JUnit file a suite per submission" || not_ok "gradebook.csv or junit.xml is not what a spreadsheet or a CI server reads"
import csv, sys, xml.etree.ElementTree as ET
res = sys.argv[1]
rows = list(csv.DictReader(open(res + "/gradebook.csv", newline="")))
want = ["submission", "lab", "passed", "failed", "skipped", "verdict", "seconds",
        "kernel_build_seconds", "checks_seconds", "sandboxed", "sha256"]
assert list(rows[0].keys()) == want, rows[0].keys()
n = sum(1 for _ in open(res + "/submissions.tsv"))
assert len(rows) == n, (len(rows), n)
alice = [r for r in rows if r["submission"] == "alice.lab1"][0]
assert alice["failed"] == "0" and int(alice["passed"]) > 0 and alice["sandboxed"] == "yes"
assert len(alice["sha256"]) == 64 and int(alice["kernel_build_seconds"]) >= 0
assert len(ET.parse(res + "/junit.xml").getroot().findall("testsuite")) == n
PY

# Ctrl-C: the terminal sends SIGINT to make's whole process group.
setsid sh -c 'FORCE=1 JOBS=2 SUBMISSIONS="$1" exec sh "$2/scripts/grade.sh"' sh \
	"$subs" "$ROOT" >"$out" 2>&1 &
pid=$!
n=0
until pgrep -f "qemu-system.*$BUILD/grade/units/" >/dev/null || [ $n -ge 600 ]; do
	sleep 0.2
	n=$((n + 1))
done
env kill -INT -- "-$pid"
wait "$pid"
rc=$?
sleep 1
left=$(ours)
[ "$rc" = 130 ] && ok "Ctrl-C: make grade exits 130" || not_ok "Ctrl-C: exit $rc, not 130"
[ -z "$left" ] && ok "Ctrl-C: no build or VM is left running" ||
	not_ok "Ctrl-C left running: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ,)")"
grep -q "graded and kept" "$out" && ok "Ctrl-C: says what was kept and how to go on" ||
	not_ok "Ctrl-C: no word of what was kept: $(tail -n 3 "$out")"
grade JOBS=2 || { cat "$out"; die "make grade after Ctrl-C failed"; }
again=$(sed -n 's/^grade: \([0-9]*\) submission(s), .* at a time$/\1/p' "$out")
[ "${again:-0}" -gt 0 ] && [ "$again" -lt "$(grep -c . "$res/submissions.tsv")" ] &&
	grep -q 'already graded' "$out" &&
	ok "the same command again grades only what was not graded ($again)" ||
	not_ok "the run after Ctrl-C graded ${again:-none} again: $(head -n 5 "$out")"
same_table "... and the two JOBS=2 runs give the table of JOBS=1"
grep -Eq '^\[([0-9]+)/\1\] .* elapsed, ~' "$out" &&
	ok "progress: done/total, passed and failed, elapsed, estimate" ||
	not_ok "no progress line like [2/2] ... elapsed, ~... left in: $(tail -n 3 "$out")"

# Slurm, for real: a cluster of one node, started and stopped here.
if [ "$(id -u)" != 0 ]; then
	echo "# skip: Slurm (the test cluster needs root)"
else
	sh "$ROOT/scripts/deps.sh" slurm || exit 1
	SLURM_CONF=$(sh "$ROOT/tests/slurm/cluster.sh" start) || exit 1
	export SLURM_CONF
	grade FORCE=1 SLURM=1 SLURM_WAIT=1 || { cat "$out"; die "make grade SLURM=1 failed"; }
	same_table "SLURM=1: the job array gives the same table as the local run"
	sh "$ROOT/scripts/grade-slurm.sh" status >"$out.status" 2>&1
	grep -q "15 of 15 graded" "$out.status" && grep -q "^merged:" "$out.status" &&
		ok "make grade-status shows the run's progress" ||
		not_ok "make grade-status: $(cat "$out.status")"
	# A task that Slurm kills still gets its row (two submissions: alice,
	# cancelled while it runs, and bob, whose row must be its own).
	mkdir -p "$subs.killed"
	cp "$subs/alice.lab1.patch" "$subs/bob.lab1.patch" "$subs.killed/"
	env FORCE=1 SLURM=1 SUBMISSIONS="$subs.killed" sh "$ROOT/scripts/grade.sh" >"$out" 2>&1 ||
		{ cat "$out"; die "make grade SLURM=1 failed"; }
	. "$BUILD/slurm/current/jobs"
	n=0
	until squeue -h -j "${array}_0" -t RUNNING 2>/dev/null | grep -q . || [ $n -ge 300 ]; do
		sleep 0.2
		n=$((n + 1))
	done
	squeue -h -o '%j' | grep -q '^daxlab-grade' &&
		ok "squeue shows the jobs by name (daxlab-grade)" ||
		not_ok "squeue does not show daxlab-grade jobs"
	scancel "${array}_0"
	while squeue -h -j "$merge" 2>/dev/null | grep -q .; do
		sleep 1
	done
	grep -Eq '^alice.lab1 +1 +- +- +grading failed: killed by Slurm \(CANCELLED' "$res/summary.txt" &&
		ok "a task cancelled in Slurm gets its row: killed by Slurm (CANCELLED)" ||
		not_ok "no killed-by-Slurm row for alice: $(grep alice "$res/summary.txt")"
	grep -Eq '^bob.lab1 +1 +- +- +does not apply' "$res/summary.txt" &&
		ok "... and the other task's row is its own" ||
		not_ok "bob's row after the cancel: $(grep bob "$res/summary.txt")"
	sh "$ROOT/tests/slurm/cluster.sh" stop
fi
summary "course-scale grading"
