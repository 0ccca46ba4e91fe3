#!/bin/sh
# Grade one submission and write its results, whoever runs it: make grade
# (one after another, or JOBS at a time) or a Slurm array task.
#   grade-one.sh ID N KIND SOURCE       grade it (grade-unit.sh), then write
#   grade-one.sh --failed ID N KIND SOURCE VERDICT   write a verdict without
#                                       grading (Slurm killed the task, ...)
# KIND is patch (SOURCE a file) or branch (SOURCE a branch of build/linux).
# Results, in RESULTS (default build/results), named after ID with / and
# anything unusual made _:
#   NAME.tap, NAME.xml   the checks, or one failed test saying why none ran
#   NAME.row             its line of the gradebook, tab-separated: submission,
#                        lab, passed, failed, skipped, verdict, seconds,
#                        kernel build seconds, checks seconds, sandboxed,
#                        sha256 (written last: a NAME.row means done)
# GRADE_UNITS and LOGS may point at node-local scratch (Slurm).
set -u
STEP=grade
. "$(dirname "$0")/lib.sh"
failed=""
if [ "${1:-}" = --failed ]; then
	failed=$6
	shift
fi
id=$1 n=$2 kind=$3 src=$4
results=${RESULTS:-$BUILD/results}
units=${GRADE_UNITS:-$BUILD/grade/units}
name=$(result_name "$id")
id=$(printf '%s' "$id" | tr '\t\n\r' '___')
out="$results/$name"
mkdir -p "$results" "$LOGS"
rm -f "$out.row" "$out.tap" "$out.xml"
if [ "$kind" = patch ]; then
	sha=$(sha256sum <"$src" | cut -d' ' -f1)
else
	sha=$(git -C "$KSRC" rev-parse -q --verify "refs/heads/$src" || echo -)
fi

xml() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'; }
# A result of a run that never reached the checks, as TAP and JUnit.
no_checks() {	# verdict
	printf 'TAP version 13\n1..1\nnot ok 1 - %s\n# %s\n' "$id" "$1" >"$out.tap"
	printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="%s" tests="1" failures="1"><testcase classname="%s" name="submission"><failure message="%s"/></testcase></testsuite></testsuites>\n' \
		"$(echo "$id" | xml)" "$(echo "$id" | xml)" "$(echo "$1" | xml)" >"$out.xml"
}
row() {	# passed failed skipped verdict seconds build checks sandboxed
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$id" "$n" "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$sha" >"$out.row.tmp"
	mv "$out.row.tmp" "$out.row"
}

if [ -n "$failed" ]; then
	no_checks "$failed"
	row - - - "$failed" - - - -
	exit 0
fi

start=$(date +%s)
log="$LOGS/grade-$name.log"
# A file named for the open level (alice.lab3-open.patch) is applied to
# the open skeleton only; others as variant.sh decides.
level=${LEVEL:-}
case "${src##*/}" in *open*) level=open ;; esac
LEVEL=$level sh "$ROOT/scripts/grade-unit.sh" "$n" "$kind" "$src" "$name" >"$log" 2>&1 </dev/null
unit="$units/$name"
logdir="$LOGS/$name-lab$n"
status=$(cat "$unit/status" 2>/dev/null || echo "grading failed")
sandboxed=$(cat "$unit/sandboxed" 2>/dev/null || echo no)
build_s=$(sed -n 's/^build_seconds=//p' "$unit/times" 2>/dev/null)
checks_s=$(sed -n 's/^checks_seconds=//p' "$unit/times" 2>/dev/null)
mark=""
[ "$sandboxed" = yes ] || mark=" (UNSANDBOXED)"
# The counts are report.txt's last line; without them the run is not graded.
counts=$(tail -n 1 "$logdir/report.txt" 2>/dev/null)
p=$(echo "$counts" | sed -n 's/^\([0-9][0-9]*\) passed, [0-9]* failed.*/\1/p')
f=$(echo "$counts" | sed -n 's/^[0-9]* passed, \([0-9][0-9]*\) failed.*/\1/p')
if [ "$status" = checked ] && { [ -z "$p" ] || [ -z "$f" ]; }; then
	status="grading failed: ${logdir#$ROOT/}/report.txt does not end with the counts"
fi
if [ "$status" = checked ]; then
	s=$(grep -c '^SKIP ' "$logdir/report.txt")
	cp "$logdir/report.tap" "$out.tap"
	cp "$logdir/report.xml" "$out.xml"
	if [ -n "$mark" ]; then
		echo "# UNSANDBOXED: built and booted without a sandbox (UNSANDBOXED=1)" >>"$out.tap"
		sed -i '0,/<testsuite /s|\(<testsuite [^>]*>\)|\1<properties><property name="sandboxed" value="no"/></properties>|' "$out.xml"
	fi
	verdict="$([ "$f" = 0 ] && echo "all checks pass" || echo "checks fail")$mark"
	row "$p" "$f" "$s" "$verdict" $(($(date +%s) - start)) "${build_s:--}" \
		"${checks_s:--}" "$sandboxed"
	exit 0
fi
case "$status" in
"grading failed"*) status="$status; see ${log#$ROOT/}" ;;
esac
no_checks "$status$mark"
row - - - "$status$mark" $(($(date +%s) - start)) "${build_s:--}" "${checks_s:--}" "$sandboxed"
