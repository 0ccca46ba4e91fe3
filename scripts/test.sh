#!/bin/sh
# make test: prove the project.
#  1. the runner's own tests (recorded logs give the right verdicts)
#  2. the host scripts' bad-input behaviour
#  3. the grading sandbox holds (make grade-selftest), and make grade
#     gives a passing, a stale, a straying and each hostile submission its
#     verdict, with nothing reaching the host; J at a time, interrupted
#     and resumed, and through a one-node Slurm cluster, the same table
#  4. every lab end to end: the reference passes its checks and those of
#     the labs before; the skeleton fails its own and passes the others;
#     every mutant of the lab (tests/mutants/labN) fails some check of it
#  5. lab 7's persistence check fails with an NVDIMM that keeps nothing
#  6. the reference series and the skeletons are checkpatch-clean
#  7. the docs build with warnings as errors and load in Chromium
# Prints one line per part and "N passed, N failed"; exits non-zero on any
# failure.
set -u
STEP=test
. "$(dirname "$0")/lib.sh"
sh "$ROOT/scripts/deps.sh" docs || exit 1
mkdir -p "$LOGS"
passed=0
failed=0
part() {	# name command...
	name=$1
	shift
	log="$LOGS/test-$name.log"
	start=$(date +%s)
	if "$@" >"$log" 2>&1; then
		echo "ok      $name ($(($(date +%s) - start)) s)"
		passed=$((passed + 1))
	else
		echo "FAILED  $name ($(($(date +%s) - start)) s); the end of ${log#$ROOT/}:"
		tail -n 25 "$log" | sed 's/^/        /'
		failed=$((failed + 1))
	fi
}

part runner sh "$ROOT/tests/runner/run.sh"
part host-scripts sh "$ROOT/tests/host/run.sh"
part sandbox sh "$ROOT/scripts/grade-selftest.sh"
part grading sh "$ROOT/tests/submissions/run.sh"
part grading-scale sh "$ROOT/tests/grading-scale/run.sh"
# One lab at a time, skeleton, reference and mutants together: their
# kernels differ in a few files, so each build after the first is short
# (lab 2 changes include/linux/fs.h: a long build, once).
prove_lab() {
	SKEL_COVERS_REF=1 sh "$ROOT/scripts/prove-labs.sh" "$1"
	proved=$?
	sh "$ROOT/scripts/mutants.sh" "$1" && [ "$proved" = 0 ]
}
for n in $(list_labs | cut -d' ' -f1); do
	part "lab$n" prove_lab "$n"
done
# lab 7's persistence check, with an NVDIMM that keeps nothing
[ -d "$ROOT/labs/07-capstone" ] &&
	part volatile-nvdimm sh "$ROOT/tests/persistence/run.sh"
part checkpatch sh "$ROOT/scripts/checkpatch.sh"
part docs sh "$ROOT/tests/docs/run.sh"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
