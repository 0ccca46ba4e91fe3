#!/bin/sh
# Prove every lab, as make test does:
#   the skeleton of lab N fails every check of lab N (a check may be
#   skipped) and passes every check of labs < N;
#   the reference of lab N passes every check of labs <= N;
#   every failure of the skeleton opens with what was expected, what was
#   seen and where to look.
# make test sets SKEL_COVERS_REF=1: then the reference of a lab N other
# than the last is not run on its own, as make test also proves the
# skeleton of lab N+1, which is that reference plus stubs and must pass
# every check of labs <= N, and the last lab's reference, which contains
# it too; unless the skeleton of lab N+1 reopens checks of labs <= N (its
# "reopens" file), which it then fails by design.
# REF_MODEL_OPS=N, SKEL_MODEL_OPS=N: the references, the skeletons, run
# the model checks for N operations (make test runs the references' longer
# than the loop does, and the skeletons', which are the labs before's,
# shorter).
# All run in the scratch worktree build/grade (REF=1 / SKEL=1); the
# student's tree is not touched.  Usage: prove-labs.sh [N...]
set -u
STEP=prove-labs
. "$(dirname "$0")/lib.sh"
labs=${*:-$(list_labs | cut -d' ' -f1)}
last=$(list_labs | tail -n 1 | cut -d' ' -f1)
# SKEL_SCOPE=near: a skeleton runs the checks of its own lab, of the lab
# before it (whose reference it is, plus stubs) and of labs 0 and 1 (the
# machine and the drivers, seconds), and the checks it reopens; not those
# of the labs further back.  The last lab's reference runs every check,
# and make bisect-check every prefix of the series with the checks of the
# labs it completes.  The default, all, runs every check of labs <= N.
skel_scope() {	# N: the T= filter of its skeleton's run
	[ "${SKEL_SCOPE:-all}" = near ] || return 0
	re=$(lab_dir "$1")/reopens
	{
		printf 'lab0_\nlab1_\nlab%d_\nlab%d_\n' $(($1 > 0 ? $1 - 1 : 0)) "$1"
		[ ! -f "$re" ] || sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$re"
	} | sort -u | paste -sd, -
}
case "${SKEL_SCOPE:-all}" in
all | near) ;;
*) die "SKEL_SCOPE=$SKEL_SCOPE: give all (every check of the labs before) or near." ;;
esac


for n in $labs; do
	for mode in skel ref; do
		[ "$mode" = skel ] && [ "$n" = 0 ] && continue
		log="$LOGS/prove-$mode-lab$n.log"
		if [ "$mode" = ref ] && [ "$n" != "$last" ] &&
			[ "${SKEL_COVERS_REF:-0}" = 1 ] &&
			[ ! -f "$(lab_dir $((n + 1)))/reopens" ]; then
			info "lab $n reference: checked within the skeleton of lab" \
				"$((n + 1)) and the reference of lab $last"
		elif [ "$mode" = ref ]; then
			T= REF=1 SKEL= MODEL_OPS=${REF_MODEL_OPS:-${MODEL_OPS:-}} \
				sh "$ROOT/scripts/vm.sh" check "$n" >"$log" 2>&1
			rc=$?
			report="$LOGS/ref-lab$n/report.txt"
			if [ "$rc" = 0 ] && [ -f "$report" ]; then
				ok "lab $n reference: $(tail -n 1 "$report")"
			else
				not_ok "lab $n reference: every check must pass (log: ${log#$ROOT/}):"
				grep -E '^(FAIL|NOT RUN) |error' "$log" | head -n 20 | sed 's/^/    /'
			fi
		else
			T=$(skel_scope "$n") SKEL=1 REF= \
				MODEL_OPS=${SKEL_MODEL_OPS:-${MODEL_OPS:-}} \
				sh "$ROOT/scripts/vm.sh" check "$n" >"$log" 2>&1
			report="$LOGS/skel-lab$n/report.txt"
			if [ -f "$report" ] && why=$(judge "$report" "$n" skel); then
				ok "lab $n skeleton: $why"
			else
				not_ok "lab $n skeleton (log: ${log#$ROOT/}): ${why:-no report}"
				[ -f "$report" ] || tail -n 15 "$log" | sed 's/^/    /'
			fi
			# Each failure a student meets first explains itself first.
			bad=$([ -f "$report" ] && unexplained "$report")
			if [ -f "$report" ] && [ -z "$bad" ]; then
				ok "lab $n skeleton: every failure opens with expected, seen and hint"
			else
				not_ok "lab $n skeleton: failures that do not open with" \
					"expected, seen and hint (report: ${report#$ROOT/}):"
				printf '%s\n' "$bad" | head -n 10 | sed 's/^/    /'
			fi
		fi
	done
done
summary "lab proofs"
