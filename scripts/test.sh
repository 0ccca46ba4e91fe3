#!/bin/sh
# make test: prove the project.
#  1. the runner's own tests (recorded logs give the right verdicts)
#  2. the host scripts' bad-input behaviour
#  3. the grading sandbox holds (make grade-selftest), and make grade
#     gives a passing, a stale, a straying and each hostile submission its
#     verdict, with nothing reaching the host; (by turns) J at a time,
#     interrupted and resumed, and through a one-node Slurm cluster, the
#     same table
#  4. every lab end to end: the reference passes its checks and those of
#     the labs before; the skeleton fails its own and passes those of the
#     lab before and of labs 0 and 1;
#     every mutant of the lab (tests/mutants/labN) in this commit's shard
#     fails some check of it, and every other one applies;
#     its open level keeps every contract, compiles cleanly, and grades the
#     reference handed in from either level as the reference
#  5. lab 7's persistence check fails with an NVDIMM that keeps nothing;
#     (by turns) KASAN=1 reports the use-after-free of a pmem that frees its memory
#     under a mount, and nothing on the lab-3 reference
#  6. (by turns) the last lab's reference builds with ext2, ext4 and XFS
#     as modules, and with the new DAX core off; the reference series and the
#     skeletons are checkpatch-clean
#  7. the docs build with warnings as errors and load in Chromium
# Prints one line per part and "N passed, N failed"; exits non-zero on any
# failure.
#
# Its time stays under CI's budget as the labs grow: by turns, from one
# commit to the next (the commit count modulo 4 and 3), it runs one of four
# shards of the mutants and one of its three longest parts -- grading at
# course scale (Ctrl-C, JOBS, Slurm), KASAN, the distribution
# configurations -- and tells which it left out and how to run them.
# FULL=1 (make test-full) runs every mutant and every part, and the
# skeletons with every check of the labs before theirs.
set -u
STEP=test
. "$(dirname "$0")/lib.sh"
sh "$ROOT/scripts/deps.sh" docs || exit 1
mkdir -p "$LOGS"
passed=0
failed=0
case "${FULL:-0}" in
0 | 1) ;;
*) die "FULL=$FULL: give FULL=1 (every mutant and part) or nothing." ;;
esac
commits=$(git -C "$ROOT" rev-list --count HEAD 2>/dev/null || echo 0)
turn=$((commits % 3)) shard=$((commits % 4))/4
rotating="grading-scale kasan configs"
if [ "${FULL:-0}" = 1 ]; then
	MUTANT_SHARD=${MUTANT_SHARD:-0/1} SKEL_SCOPE=${SKEL_SCOPE:-all}
	turn_part=all
else
	turn_part=$(echo $rotating | cut -d' ' -f$((turn + 1)))
	info "this commit's turn: mutant shard $shard and $turn_part;" \
		"the other shards and parts come at the next commits (make test-full: all)"
fi
export MUTANT_SHARD SKEL_SCOPE
# heavy NAME: is NAME one of the rotating parts that this run leaves out?
heavy_skipped() {
	[ "$turn_part" != all ] && [ "$turn_part" != "$1" ] &&
		case " $rotating " in *" $1 "*) true ;; *) false ;; esac
}
# The parts, in order; each line of progress says part k of n, the time so
# far and an estimate of what is left, from each part's time in the last
# run (build/logs/test-times), or from the parts done so far.
labs=$(list_labs | cut -d' ' -f1)
parts="runner host-scripts sandbox grading"
heavy_skipped grading-scale || parts="$parts grading-scale"
for n in $labs; do parts="$parts lab$n"; done
[ -d "$ROOT/labs/07-capstone" ] && parts="$parts volatile-nvdimm"
heavy_skipped kasan || parts="$parts kasan"
heavy_skipped configs || parts="$parts configs"
parts="$parts checkpatch docs"
total=$(echo $parts | wc -w)
times="$LOGS/test-times"
[ -f "$times" ] || : >"$times"
began=$(date +%s)
k=0
clock() {	# seconds -> m:ss
	printf '%d:%02d' $(($1 / 60)) $(($1 % 60))
}
left() {	# the estimate of the parts after the k-th
	echo "$parts" | tr ' ' '\n' | tail -n +$((k + 1)) |
		awk -v times="$times" -v done="$k" -v spent="$1" '
		BEGIN { while ((getline l < times) > 0) { split(l, f, " "); t[f[1]] = f[2] } }
		{ if ($1 in t) s += t[$1]; else s += (done ? spent / done : 0) }
		END { printf "%d", s }'
}
part() {	# name command...
	name=$1
	shift
	k=$((k + 1))
	log="$LOGS/test-$name.log"
	start=$(date +%s)
	if "$@" >"$log" 2>&1; then
		verdict="ok     "
		passed=$((passed + 1))
	else
		verdict="FAILED "
		failed=$((failed + 1))
	fi
	now=$(date +%s)
	took=$((now - start))
	{ grep -v "^$name " "$times"; echo "$name $took"; } >"$times.new"
	mv "$times.new" "$times"
	echo "[$k/$total] $verdict $name ($took s) | $(clock $((now - began))) elapsed," \
		"~$(clock "$(left $((now - began)))") left"
	if [ "$verdict" = "FAILED " ]; then
		echo "        the end of ${log#$ROOT/}:"
		tail -n 25 "$log" | sed 's/^/        /'
	fi
}

part runner sh "$ROOT/tests/runner/run.sh"
part host-scripts sh "$ROOT/tests/host/run.sh"
part sandbox sh "$ROOT/scripts/grade-selftest.sh"
part grading sh "$ROOT/tests/submissions/run.sh"
heavy_skipped grading-scale || part grading-scale sh "$ROOT/tests/grading-scale/run.sh"
# One lab at a time, skeleton, reference and mutants together: their
# kernels differ in a few files, so each build after the first is short
# (lab 2 changes include/linux/fs.h: a long build, once).
# The references run the model checks twice as long as the loop
# (labs/common/daxmodel.h: 1000 operations on each device and filesystem);
# the skeletons, which run them for the labs before theirs, 300.
# A skeleton runs the checks of its lab, of the lab before and of labs 0
# and 1 (SKEL_SCOPE=near in prove-labs.sh); the last reference runs all.
# The mutants: this commit's shard (each is a kernel build and a boot;
# make mutants runs them all).
prove_lab() {
	SKEL_COVERS_REF=1 REF_MODEL_OPS=${REF_MODEL_OPS:-2000} \
		SKEL_MODEL_OPS=${SKEL_MODEL_OPS:-300} SKEL_SCOPE=${SKEL_SCOPE:-near} \
		sh "$ROOT/scripts/prove-labs.sh" "$1"
	proved=$?
	sh "$ROOT/scripts/prove-open.sh" "$1"
	open=$?
	MUTANT_SHARD=${MUTANT_SHARD:-$shard} sh "$ROOT/scripts/mutants.sh" "$1" &&
		[ "$proved" = 0 ] && [ "$open" = 0 ]
}
for n in $labs; do
	part "lab$n" prove_lab "$n"
done
# lab 7's persistence check, with an NVDIMM that keeps nothing
[ -d "$ROOT/labs/07-capstone" ] &&
	part volatile-nvdimm sh "$ROOT/tests/persistence/run.sh"
heavy_skipped kasan || part kasan sh "$ROOT/tests/kasan/run.sh"
heavy_skipped configs || part configs sh "$ROOT/scripts/prove-configs.sh"
part checkpatch sh "$ROOT/scripts/checkpatch.sh"
part docs sh "$ROOT/tests/docs/run.sh"
echo "$passed passed, $failed failed"
[ "$turn_part" = all ] || info "left out at this commit: mutant shards other than" \
	"$shard, and $(for p in $rotating; do heavy_skipped "$p" && printf '%s ' "$p"; done)(make test-full runs all)"
[ "$failed" = 0 ]
