#!/bin/sh
# make test's grading part: make grade on three lab-1 submissions must
# give each its verdict: alice's (the reference bodies) passes every check,
# bob's does not apply to the skeleton, mallory's touches the top-level
# Makefile and is refused before anything is built.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SUBMISSIONS="$ROOT/tests/submissions" sh "$ROOT/scripts/grade.sh" || exit 1
t="$BUILD/results/summary.txt"
fail=0
want() {	# id pattern
	if grep -Eq "^$1 +1 +$2" "$t"; then
		echo "ok - grading: $1"
	else
		echo "not ok - grading: $1: wanted /$2/ in the summary"
		fail=1
	fi
}
want alice.lab1 '[0-9]+ +0 +all checks pass'
want bob.lab1 '- +- +does not apply'
want mallory.lab1 '- +- +refused'
grep -q 'failures="0"' "$BUILD/results/alice.lab1.xml" || {
	echo "not ok - grading: alice's JUnit file does not say 0 failures"
	fail=1
}
grep -q 'not ok 1 - mallory.lab1' "$BUILD/results/mallory.lab1.tap" || {
	echo "not ok - grading: mallory's TAP file does not fail"
	fail=1
}
[ "$fail" = 0 ]
