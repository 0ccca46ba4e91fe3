#!/bin/sh
# make grade: grade unattended, with one summary table and, per graded lab,
# a TAP file and a JUnit XML file under build/results/ for a CI server.
#   make grade                     every lab on the student's own branches
#                                  labN (checked out in build/grade, so the
#                                  student's tree is not touched)
#   make grade SUBMISSIONS=dir     every submission in dir: a patch or mbox
#                                  file whose name says its lab ("lab1"),
#                                  e.g. dir/alice/lab1.mbox or bob.lab1.patch
# A submission that strays outside its lab's files, does not apply, or does
# not build gets that verdict; a crash or a hang fails its checks; neither
# stops the rest.
set -u
STEP=grade
. "$(dirname "$0")/lib.sh"
results="$BUILD/results"
rm -rf "$results"
mkdir -p "$results" "$LOGS"
table="$results/summary.txt"
printf '%-28s %-4s %-7s %-7s %s\n' submission lab passed failed verdict >"$table"

# A result of a run that never reached the checks, as TAP and JUnit.
no_checks() {	# out-base name verdict
	printf 'TAP version 13\n1..1\nnot ok 1 - %s\n# %s\n' "$2" "$3" >"$1.tap"
	printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="%s" tests="1" failures="1"><testcase classname="%s" name="submission"><failure message="%s"/></testcase></testsuite></testsuites>\n' \
		"$2" "$2" "$3" >"$1.xml"
}

grade_one() {	# id lab logname env...
	id=$1 n=$2 logname=$3
	shift 3
	out="$results/$id"
	mkdir -p "$(dirname "$out")"
	log="$LOGS/grade-$(echo "$id" | tr / _).log"
	env "$@" sh "$ROOT/scripts/vm.sh" check "$n" >"$log" 2>&1
	report="$LOGS/$logname/report.txt"
	if grep -q "touches files lab .* does not allow" "$log"; then
		verdict="refused: touches files outside the lab"
	elif grep -q "does not apply" "$log"; then
		verdict="does not apply to the skeleton"
	elif grep -q "the kernel did not build" "$log"; then
		verdict="does not build"
	elif [ -f "$report" ]; then
		cp "$LOGS/$logname/report.tap" "$out.tap"
		cp "$LOGS/$logname/report.xml" "$out.xml"
		counts=$(tail -n 1 "$report")
		p=$(echo "$counts" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
		f=$(echo "$counts" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
		printf '%-28s %-4s %-7s %-7s %s\n' "$id" "$n" "$p" "$f" \
			"$([ "$f" = 0 ] && echo "all checks pass" || echo "checks fail")" >>"$table"
		return
	else
		verdict="grading failed: see ${log#$ROOT/}"
	fi
	no_checks "$out" "$id" "$verdict"
	printf '%-28s %-4s %-7s %-7s %s\n' "$id" "$n" - - "$verdict" >>"$table"
}

sh "$ROOT/scripts/deps.sh" core
sh "$ROOT/scripts/tree.sh"
if [ -n "${SUBMISSIONS:-}" ]; then
	[ -d "$SUBMISSIONS" ] || die "SUBMISSIONS=$SUBMISSIONS is not a directory."
	found=0
	for f in $(find "$SUBMISSIONS" -type f \( -name '*.patch' -o -name '*.mbox' \) | sort); do
		rel=${f#"$SUBMISSIONS"/}
		n=$(basename "$rel" | sed -n 's/.*lab\([0-9][0-9]*\).*/\1/p')
		id=$(echo "${rel%.*}" | tr ' ' _)
		found=$((found + 1))
		if [ -z "$n" ] || ! lab_dir "$n" >/dev/null 2>&1; then
			no_checks "$results/$(echo "$id" | tr / _)" "$id" "no lab number in its name"
			printf '%-28s %-4s %-7s %-7s %s\n' "$id" ? - - "no lab number in its name (say lab1)" >>"$table"
			continue
		fi
		name=$(echo "$id" | tr / _)
		grade_one "$name" "$n" "$name-lab$n" PATCH="$f" SUBMISSION_NAME="$name"
	done
	[ "$found" -gt 0 ] || die "no .patch or .mbox files in $SUBMISSIONS."
else
	list_labs | while read -r n _; do
		if git -C "$KSRC" rev-parse -q --verify "refs/heads/lab$n" >/dev/null; then
			grade_one "lab$n" "$n" "branch-lab$n-lab$n" BRANCH="lab$n"
		else
			printf '%-28s %-4s %-7s %-7s %s\n' "lab$n" "$n" - - "not started (no branch lab$n)" >>"$table"
		fi
	done
fi
cat "$table"
info "TAP and JUnit files are in ${results#$ROOT/}/"
