#!/bin/sh
# make grade: grade unattended, with a summary table, a gradebook and, per
# submission, a TAP file and a JUnit XML file under build/results/.
#   make grade                     every lab on the student's own branches
#                                  labN (or labN-open)
#   make grade SUBMISSIONS=dir     every submission in dir: a patch or mbox
#                                  file whose name says its lab ("lab1"),
#                                  e.g. dir/alice/lab1.mbox or bob.lab1.patch
#     JOBS=J       J submissions at a time (default: from the cores and
#                  memory of this machine)
#     FORCE=1      grade again what was already graded (same file hash)
#     SLURM=1      as a Slurm job array instead (scripts/grade-slurm.sh)
# Each submission is one grading unit (scripts/grade-one.sh): checked from
# what git applied, built and booted in a sandbox.  A submission that
# strays outside its lab's files, does not apply, or does not build gets
# that verdict; a crash or a hang fails its checks; neither stops the rest.
# UNSANDBOXED=1 grades without a sandbox, and every result then says so.
# Results: build/results/summary.txt, gradebook.csv, junit.xml, NAME.tap,
# NAME.xml.  Ctrl-C stops cleanly and keeps what finished; the same
# command again resumes.
set -u
STEP=grade
. "$(dirname "$0")/lib.sh"
RESULTS=${RESULTS:-$BUILD/results}
export RESULTS
if [ -n "${SUBMISSIONS:-}" ]; then
	[ -d "$SUBMISSIONS" ] || die "SUBMISSIONS=$SUBMISSIONS is not a directory."
	SUBMISSIONS=$(cd "$SUBMISSIONS" && pwd)
fi
case "${JOBS:-}" in
'') ;;
*[!0-9]* | 0) die "JOBS=$JOBS: say how many submissions to grade at a time (1, 2, ...)." ;;
esac
sh "$ROOT/scripts/deps.sh" core || exit 1
# No sandbox, no grading (unless UNSANDBOXED=1): say so once, up front.
sh "$ROOT/scripts/sandbox.sh" probe || exit 1
sh "$ROOT/scripts/tree.sh" || exit 1
mkdir -p "$RESULTS" "$LOGS"

# The run's list: "ID<TAB>LAB<TAB>KIND<TAB>SOURCE", one per submission.
list="$RESULTS/submissions.tsv"
: >"$list.tmp"
tab=$(printf '\t')
if [ -n "${SUBMISSIONS:-}" ]; then
	find "$SUBMISSIONS" -type f \( -name '*.patch' -o -name '*.mbox' \) | sort |
	while IFS= read -r f; do
		rel=${f#"$SUBMISSIONS"/}
		n=$(basename "$rel" | sed -n 's/.*lab\([0-9][0-9]*\).*/\1/p')
		id=$(printf '%s' "${rel%.*}" | tr ' \t' '__')
		[ -n "$n" ] && (lab_dir "$n" >/dev/null 2>&1) || n="?"
		printf '%s\t%s\tpatch\t%s\n' "$id" "$n" "$f"
	done >"$list.tmp"
	[ -s "$list.tmp" ] || die "no .patch or .mbox files in $SUBMISSIONS."
else
	# Lab N's branch: labN, or labN-open (LEVEL=open).  A branch with
	# no commit past its start is not work: making one, to read its
	# TODOs, must not hide the other.  If both have work, the one
	# committed to last, and the summary says which.
	list_labs | while read -r n _; do
		b="" t=-1
		for c in "lab$n" "lab$n-open"; do
			ct=$(git -C "$KSRC" log -1 --format=%ct "refs/heads/$c" -- 2>/dev/null) || continue
			if git -C "$KSRC" rev-parse -q --verify "refs/tags/$c-start" >/dev/null &&
				[ "$(git -C "$KSRC" rev-list --count "$c-start..$c" --)" = 0 ]; then
				ct=0
			fi
			[ "$ct" -lt "$t" ] || { b=$c t=$ct; }
		done
		[ -z "$b" ] || [ "$b" = "lab$n" ] || info "lab $n: grading branch $b" >&2
		if [ -n "$b" ]; then
			printf 'lab%s\t%s\tbranch\t%s\n' "$n" "$n" "$b"
		else
			printf 'lab%s\t%s\tnone\t-\n' "$n" "$n"
		fi
	done >"$list.tmp"
fi
mv "$list.tmp" "$list"

# What needs grading: not what was graded before from the same bytes, in
# the same mode (sandboxed or not); FORCE=1: everything.  Rows that need no grading are written here.
todo="$RESULTS/todo.tsv"
sandboxed=yes
[ "${UNSANDBOXED:-0}" = 0 ] || sandboxed=no
: >"$todo"
while IFS="$tab" read -r id n kind src; do
	if [ "$n" = "?" ]; then
		sh "$ROOT/scripts/grade-one.sh" --failed "$id" "?" "$kind" "$src" \
			"no lab number in its name (say lab1)"
		continue
	fi
	if [ "$kind" = none ]; then
		sh "$ROOT/scripts/grade-one.sh" --failed "$id" "$n" none - \
			"not started (no branch lab$n)"
		continue
	fi
	name=$(result_name "$id")
	if [ "$kind" = patch ]; then
		sha=$(sha256sum <"$src" | cut -d' ' -f1)
	else
		sha=$(git -C "$KSRC" rev-parse "refs/heads/$src")
	fi
	if [ "${FORCE:-0}" = 0 ] && [ -f "$RESULTS/$name.row" ] &&
		[ "$(cut -f 10,11 "$RESULTS/$name.row")" = "$sandboxed$tab$sha" ]; then
		continue
	fi
	printf '%s\t%s\t%s\t%s\n' "$id" "$n" "$kind" "$src" >>"$todo"
done <"$list"
skipped=$(($(grep -c . "$list") - $(grep -c . "$todo")))
[ "$skipped" = 0 ] || info "$skipped submission(s) already graded from the same bytes" \
	"(FORCE=1 grades them again)"

# Shared by every unit, made once before they start: the base build of
# each lab graded (the units would wait for each other on it), the base
# initramfs, the tools.
if [ "${UNSANDBOXED:-0}" = 0 ]; then
	for n in $(cut -f 2 "$todo" | sort -un); do
		sh "$ROOT/scripts/grade-base.sh" "$n" >/dev/null || exit 1
	done
fi
# The open level of each lab graded, for the submissions made on it:
# made here, once, not by units racing to write the same ref.
for n in $(cut -f 2 "$todo" | sort -un); do
	has_skeleton "$n" || continue
	sh "$ROOT/scripts/variant.sh" open "$n" >/dev/null || exit 1
done
base_initramfs >/dev/null

if [ "${SLURM:-0}" != 0 ]; then
	exec sh "$ROOT/scripts/grade-slurm.sh" submit "$list" "$todo"
fi

# J at a time: a unit builds with all cores and boots a 1.5 GiB VM with
# two CPUs, so one per two cores and per 4 GiB of memory.
if [ -z "${JOBS:-}" ]; then
	mem=$(awk '/^MemAvailable:/ { print int($2 / 4194304) }' /proc/meminfo)
	JOBS=$(($(nproc) / 2))
	[ "$JOBS" -le "$mem" ] || JOBS=$mem
	[ "$JOBS" -ge 1 ] || JOBS=1
fi
rc=0
trap 'rc=130' INT TERM
python3 "$ROOT/scripts/grade-pool.py" --jobs "$JOBS" --results "$RESULTS" "$todo" || rc=$?
trap - INT TERM
python3 "$ROOT/scripts/grade-merge.py" "$RESULTS" "$list"
cat "$RESULTS/summary.txt"
info "the gradebook is ${RESULTS#$ROOT/}/gradebook.csv; TAP and JUnit files are in" \
	"${RESULTS#$ROOT/}/ (all of them in junit.xml)"
[ "$rc" = 0 ] || exit "$rc"
