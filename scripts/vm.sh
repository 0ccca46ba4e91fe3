#!/bin/sh
# Everything between "make check-lab N" and the verdict: packages, the
# kernel tree, preflight, an incremental build, the initramfs, the checks,
# and the VM.
# Usage: vm.sh check N     (T=filter)
#        vm.sh shell N
#        vm.sh run N       (CMD='...' FILES=dir)
set -eu
case "${1:-check}" in	# named as the make target, for messages
shell) STEP=vm ;;
run) STEP=vm-run ;;
*) STEP=check-lab ;;
esac
. "$(dirname "$0")/lib.sh"
mode=$1
lab=${2:-}
if [ "$mode" = check ]; then
	[ -n "$lab" ] || lab_usage "(none)"
else
	[ -n "$lab" ] || lab=$(current_lab)
fi
labdir=$(lab_dir "$lab")
if [ "$mode" = run ]; then
	[ -n "${CMD:-}" ] || die "say what to run: make vm-run CMD='ls /dev' [FILES=dir]"
	[ -z "${FILES:-}" ] || [ -d "$FILES" ] ||
		die "FILES=$FILES is not a directory."
fi

# Bad arguments fail before anything is installed, unpacked or built.
asked=0
for v in "${REF:-}" "${SKEL:-}" "${MUTANT:-}" "${PATCH:-}" "${BRANCH:-}" "${PREFIX:-}"; do
	[ -n "$v" ] && [ "$v" != 0 ] && asked=$((asked + 1))
done
case "${MODEL_OPS:-}" in
'' | [1-9] | [1-9]*[0-9]) case "${MODEL_OPS:-}" in *[!0-9]*) die "MODEL_OPS=$MODEL_OPS:" \
	"give the number of operations for the model checks, such as MODEL_OPS=5000." ;; esac ;;
*) die "MODEL_OPS=$MODEL_OPS: give the number of operations for the model checks," \
	"such as MODEL_OPS=5000." ;;
esac
[ "$asked" -le 1 ] || die "REF=, SKEL=, MUTANT=, PATCH= and BRANCH= each choose what" \
	"to check: give one of them."
if [ -n "${PATCH:-}" ] || [ -n "${BRANCH:-}" ]; then
	[ "$mode" = check ] || die "PATCH= and BRANCH= are for make check-lab N:" \
		"a submission is built and booted only in its sandbox, to be checked."
	[ -z "${PATCH:-}" ] || [ -f "$PATCH" ] || die "PATCH=$PATCH: no such file."
	[ -z "${KASAN:-}" ] || [ "$KASAN" = 0 ] || die "KASAN=1 is for your own tree," \
		"REF=, SKEL= and MUTANT=: a submission is graded on the lab's own kernel."
fi

sh "$ROOT/scripts/deps.sh" core
sh "$ROOT/scripts/tree.sh"

# PATCH=file (the skeleton + a student's patches) and BRANCH=labN (a
# branch of the student's tree) are a stranger's code to the instructor:
# the grading unit checks what git applied, then builds and boots it in
# a sandbox (scripts/grade-unit.sh).
if [ -n "${PATCH:-}" ]; then
	file=$(cd "$(dirname "$PATCH")" && pwd)/$(basename "$PATCH")
	exec sh "$ROOT/scripts/grade-unit.sh" "$lab" patch "$file" \
		"${SUBMISSION_NAME:-submission}"
fi
[ -z "${BRANCH:-}" ] ||
	exec sh "$ROOT/scripts/grade-unit.sh" "$lab" branch "$BRANCH" "branch-$BRANCH"

# REF=1 / SKEL=1: check the reference (or the skeleton) of lab N in a
# scratch worktree, build/grade/linux, built in build/grade/obj; likewise
# MUTANT=file (the reference + a mutant); SKEL=1 LEVEL=open, the open
# level's skeleton.  The project's own code: no sandbox.  The student's
# tree and build are not touched.  The paths mirror build/linux and
# build/obj, so the compiler command lines are the same and ccache
# serves one build from the other.
variant=
[ -n "${REF:-}" ] && [ "${REF}" != 0 ] && variant=ref
[ -n "${SKEL:-}" ] && [ "${SKEL}" != 0 ] && variant=skel
# SKEL=1 LEVEL=open: the open level's skeleton.
case "${LEVEL:-guided}" in
guided | open) ;;
*) die "LEVEL=$LEVEL: no such level (guided or open)." ;;
esac
[ "$variant" = skel ] && [ "${LEVEL:-guided}" = open ] && variant=open
file=
if [ -n "${MUTANT:-}" ]; then
	variant=mutant
	file=$MUTANT
fi
if [ -n "$file" ]; then
	[ -f "$file" ] || die "$file: no such file."
	file=$(cd "$(dirname "$file")" && pwd)/$(basename "$file")
fi
# PREFIX=K: the first K patches of the series (make bisect-check).
[ -n "${PREFIX:-}" ] && variant=prefix
logname=lab$lab
if [ -n "$variant" ]; then
	commit=$(sh "$ROOT/scripts/variant.sh" "$variant" "$lab" ${file:+"$file"} \
		${PREFIX:+"$PREFIX"})
	[ "$variant" = mutant ] && variant=mutant-$(basename "$file" .patch)
	[ "$variant" = prefix ] && variant=prefix-$PREFIX
	wt="$BUILD/grade/linux"
	worktree_at "$wt" "$commit"
	info "checking the $variant of lab $lab ($(git -C "$wt" log -1 --format=%s))"
	KSRC=$wt
	KOBJ="$BUILD/grade/obj"
	CHECKS_OUT="$BUILD/grade/checks"
	logname=$variant-lab$lab
	export KSRC KOBJ CHECKS_OUT
else
	sh "$ROOT/scripts/preflight.sh" "$lab"
fi
# KASAN=1: the same kernel with KASAN, built and checked in directories of
# its own, so that neither build undoes the other.
if [ -n "${KASAN:-}" ] && [ "$KASAN" != 0 ]; then
	KOBJ=$KOBJ-kasan
	CHECKS_OUT=${CHECKS_OUT:-$BUILD/checks}-kasan
	KCONFIG_EXTRA="${KCONFIG_EXTRA:-} $ROOT/vm/kasan.config"
	logname=$logname-kasan
	export KOBJ CHECKS_OUT KCONFIG_EXTRA
	info "with KASAN: a use of freed or out-of-bounds memory is a splat"
fi
# Where the time goes, for the report: the build's compile and link
# (Kbuild writes vmlinux.a last before it links), then the initramfs.
t0=$(date +%s.%N)
sh "$ROOT/scripts/build.sh" "$lab"
t1=$(date +%s.%N)
ta=$(stat -c %.9Y "$KOBJ/vmlinux.a" 2>/dev/null || echo 0)

base=$(base_initramfs)
sh "$ROOT/scripts/build-checks.sh" "$lab"
checks=${CHECKS_OUT:-$BUILD/checks}
t2=$(date +%s.%N)
mkdir -p "$LOGS/$logname"
# The functions of the labs' code (each .c file that differs from
# lab-base, as "function file" lines): a kernel splat's hint names the
# first of them in its trace.
funcs="$LOGS/$logname/lab-functions"
git -C "$KSRC" diff --name-only lab-base -- '*.c' 2>/dev/null | while read -r f; do
	[ -f "$KSRC/$f" ] || continue
	sed -n "s|^[a-z][a-zA-Z0-9_ *]*[ *]\([a-z_][a-z0-9_]*\)(.*|\1 $f|p" "$KSRC/$f"
done >"$funcs"
phases="$LOGS/$logname/phases"
awk -v t0="$t0" -v t1="$t1" -v ta="$ta" -v t2="$t2" 'BEGIN {
	if (ta > t0 && ta < t1)
		printf "compile %.2f\nlink %.2f\n", ta - t0, t1 - ta
	else
		printf "build, nothing to link %.2f\n", t1 - t0
	printf "initramfs %.2f\n", t2 - t1
}' >"$phases"

accel=${ACCEL:-auto}
set -- --build "$BUILD" --kobj "$KOBJ" --accel "$accel" \
	--boot-timeout "${BOOT_TIMEOUT:-120}" \
	--check-timeout "${CHECK_TIMEOUT:-300}" \
	--initrd "$base" --initrd "$checks/checks-$lab.cpio" --lab-functions "$funcs"
[ -n "${V:-}" ] && [ "${V:-0}" != 0 ] && set -- "$@" --verbose
# MODEL_OPS=N: the model checks (labs/common/daxmodel.h) run N operations
append="${APPEND:-}${MODEL_OPS:+ daxlab.model_ops=$MODEL_OPS}"
[ -n "${append# }" ] && set -- "$@" --append "${append# }"
[ -n "${NVDIMM:-}" ] && set -- "$@" --nvdimm "$NVDIMM"
case "$mode" in
check)
	# A report left from an earlier run must not pass for this one's.
	rm -f "$LOGS/$logname/report.txt"
	exec python3 "$ROOT/vm/labvm" check "$@" --logdir "$LOGS/$logname" \
		--suites "$checks/suites-$lab" --filter "${T:-}" --phases "$phases"
	;;
shell)
	exec python3 "$ROOT/vm/labvm" shell "$@" --logdir "$LOGS/vm"
	;;
run)
	exec python3 "$ROOT/vm/labvm" run "$@" --logdir "$LOGS/vm-run" \
		--cmd "$CMD" ${FILES:+--files "$FILES"}
	;;
esac
