#!/bin/sh
# make grade: grade unattended, with one summary table and, per graded lab,
# a TAP file and a JUnit XML file under build/results/ for a CI server.
#   make grade                     every lab on the student's own branches
#                                  labN
#   make grade SUBMISSIONS=dir     every submission in dir: a patch or mbox
#                                  file whose name says its lab ("lab1"),
#                                  e.g. dir/alice/lab1.mbox or bob.lab1.patch
# Each is one grading unit (scripts/grade-unit.sh): checked from what git
# applied, built and booted in a sandbox.  A submission that strays outside
# its lab's files, does not apply, or does not build gets that verdict; a
# crash or a hang fails its checks; neither stops the rest.  UNSANDBOXED=1
# grades without a sandbox, and every result then says so.
set -u
STEP=grade
. "$(dirname "$0")/lib.sh"
results="$BUILD/results"
if [ -n "${SUBMISSIONS:-}" ]; then
	[ -d "$SUBMISSIONS" ] || die "SUBMISSIONS=$SUBMISSIONS is not a directory."
	SUBMISSIONS=$(cd "$SUBMISSIONS" && pwd)
fi
sh "$ROOT/scripts/deps.sh" core || exit 1
# No sandbox, no grading (unless UNSANDBOXED=1): say so once, up front.
sh "$ROOT/scripts/sandbox.sh" probe || exit 1
sh "$ROOT/scripts/tree.sh" || exit 1
rm -rf "$results"
mkdir -p "$results" "$LOGS"
table="$results/summary.txt"
printf '%-28s %-4s %-7s %-7s %s\n' submission lab passed failed verdict >"$table"

xml() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'; }

# A result of a run that never reached the checks, as TAP and JUnit.
no_checks() {	# out-base name verdict
	printf 'TAP version 13\n1..1\nnot ok 1 - %s\n# %s\n' "$2" "$3" >"$1.tap"
	printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="%s" tests="1" failures="1"><testcase classname="%s" name="submission"><failure message="%s"/></testcase></testsuite></testsuites>\n' \
		"$(echo "$2" | xml)" "$(echo "$2" | xml)" "$(echo "$3" | xml)" >"$1.xml"
}

row() {	# id lab passed failed verdict
	printf '%-28s %-4s %-7s %-7s %s\n' "$@" >>"$table"
}

grade_one() {	# id lab patch|branch source
	id=$1 n=$2
	name=$(echo "$id" | tr -c 'A-Za-z0-9_.+\n-' _)
	out="$results/$name"
	log="$LOGS/grade-$name.log"
	sh "$ROOT/scripts/grade-unit.sh" "$n" "$3" "$4" "$name" >"$log" 2>&1
	unit="$BUILD/grade/units/$name"
	logdir="$LOGS/$name-lab$n"
	status=$(cat "$unit/status" 2>/dev/null || echo "grading failed")
	mark=""
	[ "$(cat "$unit/sandboxed" 2>/dev/null)" = yes ] || mark=" (UNSANDBOXED)"
	if [ "$status" = checked ]; then
		counts=$(tail -n 1 "$logdir/report.txt")
		p=$(echo "$counts" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
		f=$(echo "$counts" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
		cp "$logdir/report.tap" "$out.tap"
		cp "$logdir/report.xml" "$out.xml"
		if [ -n "$mark" ]; then
			echo "# UNSANDBOXED: built and booted without a sandbox (UNSANDBOXED=1)" >>"$out.tap"
			sed -i '0,/<testsuite /s|\(<testsuite [^>]*>\)|\1<properties><property name="sandboxed" value="no"/></properties>|' "$out.xml"
		fi
		row "$id" "$n" "$p" "$f" \
			"$([ "$f" = 0 ] && echo "all checks pass" || echo "checks fail")$mark"
		return
	fi
	case "$status" in
	"grading failed"*) status="$status; see ${log#$ROOT/}" ;;
	esac
	no_checks "$out" "$id" "$status$mark"
	row "$id" "$n" - - "$status$mark"
}

if [ -n "${SUBMISSIONS:-}" ]; then
	list="$results/.submissions"
	find "$SUBMISSIONS" -type f \( -name '*.patch' -o -name '*.mbox' \) | sort >"$list"
	found=$(grep -c . "$list")
	while IFS= read -r f; do
		rel=${f#"$SUBMISSIONS"/}
		n=$(basename "$rel" | sed -n 's/.*lab\([0-9][0-9]*\).*/\1/p')
		id=$(echo "${rel%.*}" | tr ' ' _)
		if [ -z "$n" ] || ! (lab_dir "$n" >/dev/null 2>&1); then
			no_checks "$results/$(echo "$id" | tr -c 'A-Za-z0-9_.+\n-' _)" "$id" "no lab number in its name"
			row "$id" ? - - "no lab number in its name (say lab1)"
			continue
		fi
		grade_one "$id" "$n" patch "$f" </dev/null
	done <"$list"
	rm -f "$list"
	[ "$found" -gt 0 ] || die "no .patch or .mbox files in $SUBMISSIONS."
else
	list_labs | while read -r n _; do
		if git -C "$KSRC" rev-parse -q --verify "refs/heads/lab$n" >/dev/null; then
			grade_one "lab$n" "$n" branch "lab$n"
		else
			row "lab$n" "$n" - - "not started (no branch lab$n)"
		fi
	done
fi
cat "$table"
info "TAP and JUnit files are in ${results#$ROOT/}/"
