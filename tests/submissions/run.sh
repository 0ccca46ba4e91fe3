#!/bin/sh
# make test's grading part: make grade on the lab-1 submissions here must
# give each its verdict, and no submission may reach the grader's machine.
#   alice       the reference bodies: every check passes
#   bob         made against another tree: does not apply
#   carol       alice's, with trailing whitespace git warns about: refused
#   mallory     the top-level Makefile: refused before anything is built
#   mallory-*   an attack each (below); refused, or harmless
# A canary directory in the grader's home holds a secret; the attacks try
# to read it (.incbin, a symlink) or to create a file there ($(shell) in
# a Makefile, reached by quoted paths, other prefixes, a copy onto Kbuild,
# the second message of an mbox).  After grading, the file must not exist
# and the secret must appear in no output.  @CANARY@ in a submission is
# replaced by the canary directory's path.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
here="$ROOT/tests/submissions"
canary=$(mktemp -d "${HOME:-/tmp}/.daxlab-canary.XXXXXX")
subs="$BUILD/test-submissions"
trap 'rm -rf "$canary" "$subs"' EXIT
# Readable by anyone: the sandbox, not file modes, must keep it out.
chmod 755 "$canary"
secret="canary-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
echo "$secret" >"$canary/secret"
chmod 644 "$canary/secret"
sh "$here/render.sh" "$subs" "$canary"

out="$BUILD/test-grading.out"
FORCE=1 SUBMISSIONS="$subs" sh "$ROOT/scripts/grade.sh" >"$out" 2>&1 || {
	cat "$out"
	echo "not ok - grading: make grade failed"
	exit 1
}
cat "$out"
t="$BUILD/results/summary.txt"
# The table, for tests/grading-scale (the same submissions, other ways).
cp "$t" "$BUILD/test-grading.table"
fail=0
want() {	# id pattern
	if grep -Eq "^$1 +1 +$2" "$t"; then
		echo "ok - grading: $1"
	else
		echo "not ok - grading: $1: wanted /$2/ in the summary"
		fail=1
	fi
}
want alice.lab1 '[0-9]+ +0 +all checks pass$'
want bob.lab1 '- +- +does not apply'
want carol-whitespace.lab1 '- +- +refused: git apply warned'
want mallory.lab1 '- +- +refused: touches files outside the lab$'
for a in quoted prefixes copy symlink newlink exec binary hidden; do
	want "mallory-$a.lab1" '- +- +refused: touches files outside the lab$'
done
# .incbin of the secret: the file is not there in the sandbox
want mallory-incbin.lab1 '- +- +does not build'
# .incbin of /dev/zero: stopped by the sandbox's limits
want mallory-fill.lab1 '- +- +does not build'
# printk of a passing report: the runner reads only its own channel
want mallory-forged.lab1 '[0-9]+ +[1-9][0-9]* +checks fail$'
grep -q 'failures="0"' "$BUILD/results/alice.lab1.xml" || {
	echo "not ok - grading: alice's JUnit file does not say 0 failures"
	fail=1
}
grep -q 'not ok 1 - mallory.lab1' "$BUILD/results/mallory.lab1.tap" || {
	echo "not ok - grading: mallory's TAP file does not fail"
	fail=1
}
# The incbin attack reached the compiler, which could not see the file.
grep -q "incbin\|$canary/secret" "$BUILD/logs/mallory-incbin.lab1-lab1/build.log" || {
	echo "not ok - grading: mallory-incbin did not fail where it reads the canary"
	fail=1
}

# The .fill attack was stopped by the sandbox's file size limit.
grep -q "File size limit exceeded" "$BUILD/logs/mallory-fill.lab1-lab1/build.log" || {
	echo "not ok - grading: mallory-fill was not stopped by the file size limit"
	fail=1
}

# Nothing ran on the host; nothing of the secret came back.
if [ -e "$canary/pwned" ]; then
	echo "not ok - grading: a submission created $canary/pwned on the host"
	fail=1
else
	echo "ok - grading: no submission ran anything on the host"
fi
leaks=$(grep -rlF "$secret" "$BUILD/results" "$BUILD/logs" "$BUILD/grade/units" "$out" 2>/dev/null)
if [ -n "$leaks" ]; then
	echo "not ok - grading: the canary's secret is in: $leaks"
	fail=1
else
	echo "ok - grading: the canary's secret is in no output"
fi

# UNSANDBOXED=1 grades, and every result it produces says so.
rm -rf "$subs"
mkdir -p "$subs"
cp "$here/alice.lab1.patch" "$subs/"
UNSANDBOXED=1 SUBMISSIONS="$subs" sh "$ROOT/scripts/grade.sh" >"$out" 2>&1 || cat "$out"
if grep -Eq '^alice.lab1 +1 +[0-9]+ +0 +all checks pass \(UNSANDBOXED\)$' "$t" &&
	grep -q '^# UNSANDBOXED' "$BUILD/results/alice.lab1.tap" &&
	grep -q '<property name="sandboxed" value="no"/>' "$BUILD/results/alice.lab1.xml"; then
	echo "ok - grading: UNSANDBOXED=1 marks the summary, the TAP and the JUnit"
else
	echo "not ok - grading: UNSANDBOXED=1 results are not all marked:"
	cat "$t"
	fail=1
fi
[ "$fail" = 0 ]
