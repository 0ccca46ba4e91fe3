#!/bin/sh
# Prove every lab, as make test does:
#   the skeleton of lab N fails every check of lab N (a check may be
#   skipped) and passes every check of labs < N;
#   the reference of lab N passes every check of labs <= N.
# Both run in the scratch worktree build/grade (REF=1 / SKEL=1); the
# student's tree is not touched.  Usage: prove-labs.sh [N...]
set -u
STEP=prove-labs
. "$(dirname "$0")/lib.sh"
labs=${*:-$(list_labs | cut -d' ' -f1)}

# judge REPORT N skel: say how the skeleton did; 0 if as it must be
judge() {
	awk -v n="$2" -v mode="$3" '
	/^(PASS|FAIL|SKIP|NOT RUN) / {
		v = $1; name = $2
		if (v == "NOT") { v = "NOT RUN"; name = $3 }
		lab = -1
		if (match(name, /^lab[0-9]+_/))
			lab = substr(name, 4, RLENGTH - 4) + 0
		if (lab == n) {
			own++
			if (v == "PASS") ownpass = ownpass " " name
		} else {
			other++
			if (v != "PASS" && v != "SKIP") otherbad = otherbad " " name
		}
	}
	END {
		if (own == 0) { print "no check of lab " n " ran"; exit 1 }
		if (mode == "skel") {
			if (ownpass != "" || otherbad != "") {
				if (ownpass != "") print "passes on the skeleton:" ownpass
				if (otherbad != "") print "earlier labs fail:" otherbad
				exit 1
			}
			printf "its %d checks fail, the %d others pass\n", own, other
		}
	}' "$1"
}

for n in $labs; do
	for mode in skel ref; do
		[ "$mode" = skel ] && [ "$n" = 0 ] && continue
		log="$LOGS/prove-$mode-lab$n.log"
		if [ "$mode" = ref ]; then
			REF=1 SKEL= sh "$ROOT/scripts/vm.sh" check "$n" >"$log" 2>&1
			rc=$?
			report="$LOGS/ref-lab$n/report.txt"
			if [ "$rc" = 0 ] && [ -f "$report" ]; then
				ok "lab $n reference: $(tail -n 1 "$report")"
			else
				not_ok "lab $n reference: every check must pass (log: ${log#$ROOT/}):"
				grep -E '^(FAIL|NOT RUN) |error' "$log" | head -n 20 | sed 's/^/    /'
			fi
		else
			SKEL=1 REF= sh "$ROOT/scripts/vm.sh" check "$n" >"$log" 2>&1
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
