#!/bin/sh
# The runner's own tests: for each recorded run in tests/runner/cases/, the
# verdicts vm/labvm gives must be the ones in its "expected" file (the
# verdict lines, the kinds of kernel report named, and the closing count),
# and the exit status must say failure exactly when a check failed.
# Regenerate an expected file after a deliberate change: run.sh --update
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
STEP=runner-tests
. "$ROOT/scripts/lib.sh"
cases="$ROOT/tests/runner/cases"
update=${1:-}

digest() {	# the parts of a report a test pins down
	grep -E '^(PASS|FAIL|SKIP|NOT RUN) |^        [^ ]|^[0-9]+ passed, [0-9]+ failed' |
		sed -e 's/ *$//' -e 's/(console log line \([0-9]*\).*/(line \1)/'
}

for d in "$cases"/*/; do
	name=$(basename "$d")
	set +e
	out=$(python3 "${LABVM:-$ROOT/vm/labvm}" parse --console "$d/console.log" \
		--results "$d/results.log" --planned "$d/planned" \
		--end "$(cat "$d/end")" --nonce "$(cat "$d/nonce")" \
		--filter "$(cat "$d/filter")" \
		--check-timeout "$(cat "$d/check-timeout")" \
		${d:+--lab-functions "$d/lab-functions"} 2>&1)
	rc=$?
	set -e
	got=$(printf '%s\n' "$out" | digest)
	if [ "$update" = --update ]; then
		printf '%s\n' "$got" >"$d/expected"
	fi
	want=$(cat "$d/expected" 2>/dev/null || echo "(no expected file)")
	want_failed=$(printf '%s\n' "$want" | sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p')
	if [ "$got" != "$want" ]; then
		not_ok "runner: $name: the verdicts differ"
		printf '%s\n' "$want" >"${TMPDIR:-/tmp}/runner-want.$$"
		printf '%s\n' "$got" | diff -u "${TMPDIR:-/tmp}/runner-want.$$" - | sed 's/^/    /' || true
		rm -f "${TMPDIR:-/tmp}/runner-want.$$"
	elif [ "$want_failed" != 0 ] && [ "$rc" = 0 ] || [ "$want_failed" = 0 ] && [ "$rc" != 0 ]; then
		not_ok "runner: $name: exit status $rc with $want_failed failed"
	else
		ok "runner: $name"
	fi
done
# Each module of vm/labvm/ tested directly (tests/runner/test_MODULE.py).
if out=$(PYTHONPATH="$ROOT/vm" python3 -m unittest discover -s "$ROOT/tests/runner" \
	-t "$ROOT/tests/runner" 2>&1); then
	ok "runner: the modules' unit tests ($(printf '%s\n' "$out" | sed -n 's/^Ran \([0-9]*\) tests.*/\1/p') tests)"
else
	not_ok "runner: the modules' unit tests"
	printf '%s\n' "$out" | sed 's/^/    /'
fi
summary "runner tests"
