#!/bin/sh
# make mutants: every mutant in tests/mutants/labN/ (a small, plausible bug
# applied to the reference of lab N) must make at least one check of lab N
# fail.  A mutant nothing catches means the checks cannot see that bug.
# Runs in the scratch worktree build/grade.  Usage: mutants.sh [N...]
set -u
STEP=mutants
. "$(dirname "$0")/lib.sh"
labs=${*:-$(ls -d "$ROOT"/tests/mutants/lab* 2>/dev/null | sed 's/.*lab//')}
for n in $labs; do
	for m in "$ROOT"/tests/mutants/lab"$n"/*.patch; do
		[ -f "$m" ] || continue
		name=$(basename "$m" .patch)
		log="$LOGS/mutant-$name.log"
		# only lab N's checks: the verdict counts nothing else
		T="lab${n}_" MUTANT=$m REF= SKEL= sh "$ROOT/scripts/vm.sh" check "$n" \
			>"$log" 2>&1
		report="$LOGS/mutant-$name-lab$n/report.txt"
		caught=$(awk -v p="lab${n}_" '
			/^(FAIL|NOT RUN) / {
				name = ($1 == "NOT") ? $3 : $2
				if (index(name, p) == 1) print name
			}' "$report" 2>/dev/null)
		if [ -n "$caught" ]; then
			ok "lab $n mutant $name: caught by $(echo "$caught" | head -n 3 | tr '\n' ' ')$([ "$(echo "$caught" | wc -l)" -gt 3 ] && echo "...")"
		else
			not_ok "lab $n mutant $name: no check of lab $n failed (log: ${log#$ROOT/})"
			grep -E 'error' "$log" | head -n 5 | sed 's/^/    /'
		fi
	done
done
summary mutants
