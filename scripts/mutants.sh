#!/bin/sh
# make mutants: every mutant in tests/mutants/labN/ (a small, plausible bug
# applied to the reference of lab N) must make at least one check of lab N
# fail.  A mutant nothing catches means the checks cannot see that bug.
# Runs in the scratch worktree build/grade.  Usage: mutants.sh [N...]
# MUTANT_SHARD=I/K: build and boot only the mutants of each lab whose place
# in the lab's list is I modulo K (make test runs one of four shards, in turn
# from commit to commit: a kernel build and a boot per mutant is most of
# its time); every other mutant must still apply to the reference.
set -u
STEP=mutants
. "$(dirname "$0")/lib.sh"
labs=${*:-$(ls -d "$ROOT"/tests/mutants/lab* 2>/dev/null | sed 's/.*lab//')}
shard=${MUTANT_SHARD:-0/1}
case "$shard" in
[0-9]/[1-9] | [0-9]/[1-9][0-9] | [1-9][0-9]/[1-9][0-9]) ;;
*) die "MUTANT_SHARD=$shard: give I/K, 0 <= I < K, such as MUTANT_SHARD=0/2." ;;
esac
si=${shard%/*} sk=${shard#*/}
[ "$si" -lt "$sk" ] || die "MUTANT_SHARD=$shard: I must be less than K, such as MUTANT_SHARD=1/2."
skipped=0
for n in $labs; do
	i=-1
	for m in "$ROOT"/tests/mutants/lab"$n"/*.patch; do
		[ -f "$m" ] || continue
		name=$(basename "$m" .patch)
		i=$((i + 1))
		if [ $((i % sk)) != "$si" ]; then
			if sh "$ROOT/scripts/variant.sh" mutant "$n" "$m" >/dev/null 2>"$LOGS/mutant-$name.log"; then
				skipped=$((skipped + 1))
			else
				not_ok "lab $n mutant $name: does not apply to the reference (log: ${LOGS#$ROOT/}/mutant-$name.log)"
			fi
			continue
		fi
		log="$LOGS/mutant-$name.log"
		# Only lab N's checks: the verdict counts nothing else.  A
		# "Caught-by: NAME[,NAME]" line in the mutant's header narrows
		# that to the checks said to catch it (faster, and a claim that
		# is checked).  NAME is a suite of lab N or of an earlier lab,
		# whose checks lab N runs too ("lab3_dax_fault": all its
		# checks), or a suite and the end of a check's name
		# ("lab3_dax_fault.past_eof_is_sigbus": that check, on every
		# device), which the filter spells "suite.*check".
		caught_by=$(sed -n 's/^Caught-by: *//p' "$m" | head -n 1)
		filter=$(printf '%s\n' "${caught_by:-lab${n}_}" | tr ',' '\n' | awk '
			/_$/ { print; next }		# every suite of the lab
			/^lab[0-9]+_[a-z0-9_]*$/ { print $0 "."; next }
			{ i = index($0, "."); print substr($0, 1, i) "*" substr($0, i + 1) }' |
			paste -sd, -)
		beyond=$(printf '%s\n' "$caught_by" | tr ',' '\n' | awk -v n="$n" '
			NF && !(/^lab[0-9]+_/ && substr($0, 4) + 0 <= n + 0)' | head -n 1)
		if [ -n "$beyond" ]; then
			not_ok "lab $n mutant $name: Caught-by names $beyond, not a check of labs 0-$n"
			continue
		fi
		T=$filter MUTANT=$m REF= SKEL= sh "$ROOT/scripts/vm.sh" check "$n" \
			>"$log" 2>&1
		report="$LOGS/mutant-$name-lab$n/report.txt"
		# Which failures the filter selected: "suite." is a prefix,
		# "suite.*check" a prefix and the end of the name.
		caught=$(awk -v f="$filter" '
			BEGIN { np = split(f, p, ",") }
			/^(FAIL|NOT RUN) / {
				name = ($1 == "NOT") ? $3 : $2
				for (i = 1; i <= np; i++) {
					star = index(p[i], "*")
					head = star ? substr(p[i], 1, star - 1) : p[i]
					tail = star ? "." substr(p[i], star + 1) : ""
					if (index(name, head) != 1)
						continue
					if (tail != "" && substr(name, length(name) - length(tail) + 1) != tail)
						continue
					print name
					break
				}
			}' "$report" 2>/dev/null)
		if [ -n "$caught" ]; then
			ok "lab $n mutant $name: caught by $(echo "$caught" | head -n 3 | tr '\n' ' ')$([ "$(echo "$caught" | wc -l)" -gt 3 ] && echo "...")"
		else
			not_ok "lab $n mutant $name: no check of ${caught_by:-lab $n} failed (log: ${log#$ROOT/})"
			grep -E 'error' "$log" | head -n 5 | sed 's/^/    /'
		fi
	done
done
[ "$skipped" = 0 ] || info "$skipped mutants not in shard $shard: each applies" \
	"to its reference; MUTANT_SHARD=$(((si + 1) % sk))/$sk or make mutants runs them"
summary mutants
