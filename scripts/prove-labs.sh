#!/bin/sh
# Prove every lab, as make test does:
#   the skeleton of lab N fails every check of lab N (a check may be
#   skipped) and passes every check of labs < N;
#   the reference of lab N passes every check of labs <= N.
# The reference of the last lab runs every check; that of an earlier lab N
# runs lab N's own (FULL=1: all of labs <= N as well).  The earlier labs'
# checks on it are covered twice already: by the skeleton of lab N+1,
# which is that reference plus stubs, and by the last lab's reference.
# All run in the scratch worktree build/grade (REF=1 / SKEL=1); the
# student's tree is not touched.  Usage: [FULL=1] prove-labs.sh [N...]
set -u
STEP=prove-labs
. "$(dirname "$0")/lib.sh"
labs=${*:-$(list_labs | cut -d' ' -f1)}
last=$(list_labs | tail -n 1 | cut -d' ' -f1)


for n in $labs; do
	for mode in skel ref; do
		[ "$mode" = skel ] && [ "$n" = 0 ] && continue
		log="$LOGS/prove-$mode-lab$n.log"
		if [ "$mode" = ref ]; then
			only=
			[ "$n" != "$last" ] && [ "${FULL:-0}" = 0 ] && only="lab${n}_"
			T=$only REF=1 SKEL= sh "$ROOT/scripts/vm.sh" check "$n" >"$log" 2>&1
			rc=$?
			report="$LOGS/ref-lab$n/report.txt"
			if [ "$rc" = 0 ] && [ -f "$report" ]; then
				ok "lab $n reference: $(tail -n 1 "$report")${only:+ (its own checks)}"
			else
				not_ok "lab $n reference: every check must pass (log: ${log#$ROOT/}):"
				grep -E '^(FAIL|NOT RUN) |error' "$log" | head -n 20 | sed 's/^/    /'
			fi
		else
			T= SKEL=1 REF= sh "$ROOT/scripts/vm.sh" check "$n" >"$log" 2>&1
			report="$LOGS/skel-lab$n/report.txt"
			if [ -f "$report" ] && why=$(judge "$report" "$n" skel); then
				ok "lab $n skeleton: $why"
			else
				not_ok "lab $n skeleton (log: ${log#$ROOT/}): ${why:-no report}"
				[ -f "$report" ] || tail -n 15 "$log" | sed 's/^/    /'
			fi
		fi
	done
done
summary "lab proofs"
