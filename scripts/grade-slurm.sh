#!/bin/sh
# make grade SLURM=1: grade as a Slurm job array, one task per submission,
# and a last job, run after every task has ended however it ended
# (--dependency=afterany), that merges the results into the same summary,
# gradebook and JUnit files as a local run.  The repository, build/ and the
# submissions must be on a file system every node mounts at the same path;
# each task builds in node-local scratch (the sandbox's memory, and
# $SLURM_TMPDIR or $TMPDIR for its logs) and writes its results back to
# build/results/.
#   grade-slurm.sh submit LIST TODO     (from grade.sh)
#   grade-slurm.sh task DIR             (an array task, on a node)
#   grade-slurm.sh merge DIR            (the last job)
#   grade-slurm.sh status               (make grade-status)
# Options (make variables): PARTITION=name TIME=limit (sbatch --time,
# default 1:00:00 a submission) MEM=per task (default 6G) CPUS=per task
# (default 2) SLURM_WAIT=1 (wait for the merge and print the table).
set -u
STEP=grade
. "$(dirname "$0")/lib.sh"
RESULTS=${RESULTS:-$BUILD/results}
export RESULTS
runs="$BUILD/slurm"

# The Slurm state of array task TASK of JOB ("TIMEOUT", "NODE_FAIL", ...),
# from the controller while it remembers the job, else from accounting.
task_state() {	# job task
	s=$(scontrol -o show job "$1_$2" 2>/dev/null |
		sed -n 's/.*JobState=\([A-Z_]*\).* Reason=\([^ ]*\).*/\1, \2/p' | head -n 1)
	[ -n "$s" ] || s=$(sacct -n -X -P -j "$1_$2" -o State 2>/dev/null | head -n 1)
	echo "${s:-state unknown}"
}

case "${1:-}" in
submit)
	list=$2 todo=$3
	command -v sbatch >/dev/null 2>&1 ||
		die "SLURM=1, but sbatch is not installed here: run make grade SLURM=1 on" \
			"a login node of the cluster (Debian: apt-get install slurm-client)."
	n=$(grep -c . "$todo")
	case "$ROOT$BUILD" in
	*"'"*) die "the path $ROOT or $BUILD has a quote in it; Slurm grading needs one without." ;;
	esac
	dir="$runs/$(date +%Y%m%d-%H%M%S)-$$"
	mkdir -p "$dir"
	cp "$list" "$dir/list"
	cp "$todo" "$dir/todo"
	set -- --parsable --job-name=daxlab-grade --time="${TIME:-1:00:00}" \
		--mem="${MEM:-6G}" --cpus-per-task="${CPUS:-2}" --chdir="$ROOT" \
		--export=ALL,BUILD="$BUILD",RESULTS="$RESULTS"
	[ -z "${PARTITION:-}" ] || set -- "$@" --partition="$PARTITION"
	if [ "$n" -gt 0 ]; then
		array=$(sbatch "$@" --array="0-$((n - 1))" --output="$dir/task-%a.log" \
			--wrap="exec sh '$ROOT/scripts/grade-slurm.sh' task '$dir'") ||
			die "sbatch refused the job array (its message is above)."
		array=${array%%;*}
		dep="--dependency=afterany:$array"
	else
		array=none dep=""
	fi
	merge=$(sbatch "$@" --job-name=daxlab-grade-merge --time=0:10:00 --mem=1G \
		--cpus-per-task=1 --output="$dir/merge.log" $dep \
		--wrap="exec sh '$ROOT/scripts/grade-slurm.sh' merge '$dir'") ||
		die "sbatch refused the merge job (its message is above)."
	merge=${merge%%;*}
	printf 'array=%s\nmerge=%s\ntasks=%s\n' "$array" "$merge" "$n" >"$dir/jobs"
	ln -sfn "$dir" "$runs/current"
	info "submitted: job array $array ($n task(s), name daxlab-grade) and the merge," \
		"job $merge (daxlab-grade-merge); progress: make grade-status"
	[ "${SLURM_WAIT:-0}" != 0 ] || exit 0
	while squeue -h -j "$merge" 2>/dev/null | grep -q .; do
		sleep 5
	done
	[ -f "$dir/merged" ] || { cat "$dir/merge.log" 2>/dev/null; die "the merge job did not finish."; }
	cat "$RESULTS/summary.txt"
	;;
task)
	dir=$2
	i=${SLURM_ARRAY_TASK_ID:?an array task has SLURM_ARRAY_TASK_ID}
	line=$(sed -n "$((i + 1))p" "$dir/todo")
	[ -n "$line" ] || die "task $i: no such line in $dir/todo"
	# Node-local scratch for the unit and its logs; back to the shared
	# logs when done.
	scratch=$(mktemp -d "${SLURM_TMPDIR:-${TMPDIR:-/tmp}}/daxlab-grade.XXXXXX")
	chmod 755 "$scratch"
	trap 'rm -rf "$scratch"' EXIT
	shared_logs=$LOGS
	id=$(printf '%s' "$line" | cut -f 1)
	info "task $i on $(hostname): $id"
	tab=$(printf '\t')
	printf '%s\n' "$line" | {
		IFS="$tab" read -r id n kind src
		GRADE_UNITS="$scratch/units" LOGS="$scratch/logs" \
			sh "$ROOT/scripts/grade-one.sh" "$id" "$n" "$kind" "$src"
	}
	mkdir -p "$shared_logs"
	cp -R "$scratch/logs/." "$shared_logs/" 2>/dev/null || true
	;;
merge)
	dir=$2
	. "$dir/jobs"
	tab=$(printf '\t')
	i=0
	while IFS="$tab" read -r id n kind src; do
		name=$(result_name "$id")
		if [ ! -f "$RESULTS/$name.row" ] ||
			[ "$RESULTS/$name.row" -ot "$dir/todo" ]; then
			sh "$ROOT/scripts/grade-one.sh" --failed "$id" "$n" "$kind" "$src" \
				"grading failed: killed by Slurm ($(task_state "$array" "$i"))"
		fi
		i=$((i + 1))
	done <"$dir/todo"
	python3 "$ROOT/scripts/grade-merge.py" "$RESULTS" "$dir/list"
	touch "$dir/merged"
	;;
status)
	[ -e "$runs/current/jobs" ] || die "no Slurm grading run yet: make grade SUBMISSIONS=dir SLURM=1"
	dir=$(cd "$runs/current" && pwd -P)
	. "$dir/jobs"
	done_n=0
	tab=$(printf '\t')
	while IFS="$tab" read -r id _ _ _; do
		name=$(result_name "$id")
		[ "$RESULTS/$name.row" -nt "$dir/todo" ] && done_n=$((done_n + 1))
	done <"$dir/todo"
	echo "run ${dir##*/}: $done_n of $tasks graded (job array $array, merge job $merge)"
	if command -v squeue >/dev/null 2>&1; then
		squeue -h -j "$array,$merge" -o '%T' 2>/dev/null | sort | uniq -c |
			awk '{ printf "  %s %s\n", $1, tolower($2) }'
	fi
	if [ -f "$dir/merged" ]; then
		echo "merged: $(grep -c . "$dir/list") submission(s) in ${RESULTS#$ROOT/}/summary.txt"
	fi
	;;
*) die "usage: grade-slurm.sh submit LIST TODO | task DIR | merge DIR | status" ;;
esac
