#!/bin/sh
# make bench: what DAX buys, measured.  Builds two kernels with the lab's
# config minus its debugging options (bench/bench.config):
#   lab       the reference of the last lab: the whole series
#   upstream  lab-base, the pristine tree, with Linux 6.1's own DAX
#             (bench/upstream-dax.config)
# each in a worktree and build directory of its own under build/bench (the
# student's tree and build/grade are not touched), then runs
# bench/bench.py: every configuration, ROUNDS times, interleaved.
# A full run (every configuration and workload) writes its results into
# docs/bench/ for the documentation; any run writes build/bench/results/.
# Variables: CONFIGS=a,b  WORKLOADS=x,y  ROUNDS=n (5)  ACCEL=
set -eu
STEP=bench
. "$(dirname "$0")/lib.sh"

# Bad names fail before anything is installed or built.
kernels=$(python3 "$ROOT/bench/bench.py" check --configs "${CONFIGS:-}" \
	--workloads "${WORKLOADS:-}") || exit 2
rounds=${ROUNDS:-5}
case "$rounds" in
'' | *[!0-9]* | 0) die "ROUNDS=$rounds: give a number of rounds, at least 1." ;;
esac

sh "$ROOT/scripts/deps.sh" bench
sh "$ROOT/scripts/tree.sh"
last=$(list_labs | tail -n 1 | cut -d' ' -f1)
kobjs=
for k in $kernels; do
	case "$k" in
	lab)
		commit=$(sh "$ROOT/scripts/variant.sh" ref "$last")
		lab=$last
		extra="$ROOT/bench/bench.config"
		;;
	upstream)
		commit=$(git -C "$KSRC" rev-parse "lab-base^{commit}")
		lab=1	# the labs' config fragments up to lab 1: no dax core
		extra="$ROOT/bench/bench.config $ROOT/bench/upstream-dax.config"
		;;
	esac
	src="$BUILD/bench/src-$k"
	worktree_at "$src" "$commit"
	info "the $k kernel: $(git -C "$src" log -1 --format=%s)"
	KSRC=$src KOBJ="$BUILD/bench/obj-$k" KCONFIG_EXTRA=$extra \
		sh "$ROOT/scripts/build.sh" "$lab"
	kobjs="$kobjs --kobj $k=$BUILD/bench/obj-$k"
done

# The guest: the lab's base initramfs and the benchmark program.
base=$(base_initramfs)
[ -x "$BUILD/tools/gen_init_cpio" ] || sh "$ROOT/scripts/gen-init-cpio.sh"
out="$BUILD/bench"
cc -static -O2 -Wall -o "$out/daxbench" "$ROOT/bench/daxbench.c" ||
	die "bench/daxbench.c did not compile (errors above)."
printf 'dir /bench 0755 0 0\nfile /bench/daxbench %s 0755 0 0\n' "$out/daxbench" \
	>"$out/bench.list"
"$BUILD/tools/gen_init_cpio" "$out/bench.list" >"$out/bench.cpio"

results="$out/results"
rm -rf "$results"
cmd="make bench${CONFIGS:+ CONFIGS=$CONFIGS}${WORKLOADS:+ WORKLOADS=$WORKLOADS} ROUNDS=$rounds"
rc=0
# shellcheck disable=SC2086
python3 "$ROOT/bench/bench.py" run --build "$BUILD" $kobjs \
	--initrd "$base" --initrd "$out/bench.cpio" --rounds "$rounds" \
	--configs "${CONFIGS:-}" --workloads "${WORKLOADS:-}" \
	--accel "${ACCEL:-auto}" --logdir "$LOGS/bench" --out "$results" \
	--command "$cmd" || rc=$?
if [ -z "${CONFIGS:-}" ] && [ -z "${WORKLOADS:-}" ] && [ -f "$results/summary.inc" ]; then
	mkdir -p "$ROOT/docs/bench"
	cp "$results"/summary.inc "$results"/bars.inc "$results"/machine.inc \
		"$results"/results.csv "$ROOT/docs/bench/"
	[ -f "$results/plot.svg" ] && cp "$results/plot.svg" "$ROOT/docs/bench/"
	info "a full run: the results are in docs/bench/ (make docs shows them)"
fi
exit "$rc"
