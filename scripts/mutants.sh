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
		# Only lab N's checks: the verdict counts nothing else.  A
		# "Caught-by: SUITE[,SUITE]" line in the mutant's header narrows
		# that to the suites of lab N said to catch it (faster, and a
		# claim that is checked).
		suites=$(sed -n 's/^Caught-by: *//p' "$m" | head -n 1)
		filter=$(printf '%s' "${suites:-lab${n}_}" | sed 's/\(lab[0-9]*_[a-z0-9_]*\)/\1./g; s/_\.$/_/')
		case ",$suites," in
		,,) ;;
		*,lab"$n"_*) ;;
		*) not_ok "lab $n mutant $name: Caught-by names no suite of lab $n"; continue ;;
		esac
		T=$filter MUTANT=$m REF= SKEL= sh "$ROOT/scripts/vm.sh" check "$n" \
			>"$log" 2>&1
		report="$LOGS/mutant-$name-lab$n/report.txt"
		caught=$(awk -v f="$filter" '
			BEGIN { np = split(f, p, ",") }
			/^(FAIL|NOT RUN) / {
				name = ($1 == "NOT") ? $3 : $2
				for (i = 1; i <= np; i++)
					if (index(name, p[i]) == 1) { print name; break }
			}' "$report" 2>/dev/null)
		if [ -n "$caught" ]; then
			ok "lab $n mutant $name: caught by $(echo "$caught" | head -n 3 | tr '\n' ' ')$([ "$(echo "$caught" | wc -l)" -gt 3 ] && echo "...")"
		else
			not_ok "lab $n mutant $name: no check of ${suites:-lab $n} failed (log: ${log#$ROOT/})"
			grep -E 'error' "$log" | head -n 5 | sed 's/^/    /'
		fi
	done
done
summary mutants
