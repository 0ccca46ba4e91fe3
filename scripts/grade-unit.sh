#!/bin/sh
# One submission, graded: the unit that make check-lab N PATCH=/BRANCH=
# and make grade run, one per submission.
#   1. apply it to lab N's skeleton in a temporary index (variant.sh);
#   2. decide what it touched from what git applied (filecheck.sh);
#   3. build it in a sandbox (sandbox.sh), from the lab's base build
#      (grade-base.sh), with its changed files laid over the base tree;
#   4. boot it and run the project's checks, QEMU in a sandbox too.
# Its own directory build/grade/units/NAME holds what it made; its logs
# and report are in build/logs/NAME-labN.  It writes NAME's verdict to
# build/grade/units/NAME/status, one line: "checked" (the report has the
# verdicts), or why there are none ("refused: ...", "does not apply ...",
# "does not build...", "grading failed: ..."); and yes or no to
# build/grade/units/NAME/sandboxed; and how long its build and its checks
# took to build/grade/units/NAME/times (build_seconds=, checks_seconds=).
# Usage: grade-unit.sh N patch FILE NAME
#        grade-unit.sh N branch BRANCH NAME
# Exit: labvm's (0 all checks pass, 1 some fail), 2 for anything that
# stopped it before the checks.
set -eu
STEP=grade
. "$(dirname "$0")/lib.sh"
need_tree
n=$1 kind=$2 src=$3 name=$4
[ "$kind" != patch ] || case "$src" in /*) ;; *) src=$PWD/$src ;; esac
labdir=$(lab_dir "$n")
case "$name" in
'' | *[!A-Za-z0-9_.+-]*) die "bad submission name '$name' (letters, digits, _ . + - only)" ;;
esac
unit="${GRADE_UNITS:-$BUILD/grade/units}/$name"
logdir="$LOGS/$name-lab$n"
rm -rf "$unit" "$logdir"
mkdir -p "$unit" "$logdir"
status() { echo "$*" >"$unit/status"; }
status grading failed: stopped before the file check
stop() {	# status words...
	status "$@"
	exit 2
}

if [ "${UNSANDBOXED:-0}" != 0 ]; then
	echo no >"$unit/sandboxed"
	info "WARNING: UNSANDBOXED=1: this submission's build and VM run as $(id -un), unconfined."
else
	echo yes >"$unit/sandboxed"
	sh "$ROOT/scripts/sandbox.sh" probe || stop grading failed: no sandbox can be made here
fi

# 1, 2: what git applied, and whether the lab allows it.
skel=$(sh "$ROOT/scripts/variant.sh" skel "$n")
prev=$(state_before "$n")
case "$kind" in
patch)
	if ! git -C "$KSRC" apply --numstat "$src" 2>/dev/null | grep -q .; then
		status refused: not a patch
		(die "PATCH=$src is not a patch: it changes no file." \
			"Make it with: git -C build/linux format-patch lab$n-start..lab$n --stdout >file" \
			"(the open level: format-patch lab$n-open-start..lab$n-open)") ||
			exit 2
	fi
	rc=0
	commit=$(sh "$ROOT/scripts/variant.sh" submission "$n" "$src") || rc=$?
	[ "$rc" = 3 ] && stop refused: git apply warned about it
	[ "$rc" = 0 ] || stop does not apply to the skeleton
	;;
branch)
	commit=$(git -C "$KSRC" rev-parse -q --verify "refs/heads/$src^{commit}") ||
		stop grading failed: the kernel tree has no branch "$src"
	;;
*) die "unknown kind '$kind' (patch or branch)" ;;
esac
sh "$ROOT/scripts/filecheck.sh" "$n" "$prev" "$skel" "$commit" ||
	stop refused: touches files outside the lab
info "checking $name on lab $n's skeleton ($(git -C "$KSRC" log -1 --format=%s "$commit"))"

# 3: the build, sandboxed, from the lab's base build: the changed files,
# taken from git's object store, are laid over the base tree.
build_sandboxed() {
	base=$(sh "$ROOT/scripts/grade-base.sh" "$n")
	set --
	for p in $(git -C "$KSRC" diff --name-only --no-renames "$skel" "$commit"); do
		mkdir -p "$unit/src/$(dirname "$p")"
		git -C "$KSRC" show "$commit:$p" >"$unit/src/$p"
		set -- "$@" --ro-at "$unit/src/$p" "$base/linux/$p"
	done
	seed_mib=$(du -sm "$base/obj" "$base/checks" | awk '{ s += $1 } END { print s }')
	owner=$(sh "$ROOT/scripts/sandbox.sh" owner)
	[ -z "$owner" ] || chown -R "$owner" "$unit/out" "$logdir"
	sh "$ROOT/scripts/sandbox.sh" \
		--ro "$ROOT/scripts" --ro "$ROOT/vm" --ro "$ROOT/labs" \
		--ro "$BUILD/include" --ro "$BUILD/tools" \
		--ro "$base/linux" "$@" \
		--ro-at "$base/obj" /seed/obj --ro-at "$base/checks" /seed/checks \
		--tmpfs "$base/obj" $((seed_mib * 2 + 1024)) --tmpfs "$base/checks" 512 \
		--rw "$unit/out" --rw "$logdir" \
		--env ROOT="$ROOT" --env BUILD="$BUILD" --env KSRC="$base/linux" \
		--env KOBJ="$base/obj" --env CHECKS_OUT="$base/checks" --env LOGS="$logdir" \
		--env SEED=/seed --env OUT="$unit/out" --env CCACHE_DISABLE=1 \
		--cpu 1200 --mem 4096 --procs 512 --fsize 1024 \
		--wall "${BUILD_TIMEOUT:-2400}" \
		-- sh "$ROOT/scripts/sandbox-build.sh" "$n"
}
# UNSANDBOXED=1: as before the sandbox, in the scratch worktree that
# REF=1 and the mutants use, as the invoking user.
build_unsandboxed() {
	worktree_at "$BUILD/grade/linux" "$commit"
	ROOT="$ROOT" KSRC="$BUILD/grade/linux" KOBJ="$BUILD/grade/obj" \
		CHECKS_OUT="$BUILD/grade/checks" \
		LOGS="$logdir" sh -c 'sh "$ROOT/scripts/build.sh" "$1" &&
		sh "$ROOT/scripts/build-checks.sh" "$1" &&
		mkdir -p "$2/obj/arch/x86/boot" "$2/checks" &&
		cp "$KOBJ/arch/x86/boot/bzImage" "$2/obj/arch/x86/boot/" &&
		cp "$KOBJ/vmlinux" "$2/obj/" &&
		cp "$CHECKS_OUT/checks-$1.cpio" "$CHECKS_OUT/suites-$1" "$2/checks/"' \
		sh "$n" "$unit/out"
}
mkdir -p "$unit/src" "$unit/out"
status does not build
now_ms() { echo $(($(date +%s%N) / 1000000)); }
t_build=$(now_ms)
rc=0
if [ "$(cat "$unit/sandboxed")" = yes ]; then
	build_sandboxed || rc=$?
else
	build_unsandboxed || rc=$?
fi
echo "build_seconds=$((($(now_ms) - t_build + 500) / 1000))" >"$unit/times"
case $rc in
0) ;;
124 | 137) stop does not build: its build ran past the time limit ;;
*)
	(die "the kernel did not build; nothing was booted (log: ${logdir#$ROOT/}/build.log).") ||
		exit 2
	;;
esac

# 4: the checks, QEMU sandboxed too.
status grading failed: the VM run did not finish
checks="$unit/out/checks"
set -- --build "$BUILD" --kobj "$unit/out/obj" --accel "${ACCEL:-auto}" \
	--boot-timeout "${BOOT_TIMEOUT:-120}" \
	--check-timeout "${CHECK_TIMEOUT:-300}" \
	--initrd "$(base_initramfs)" --initrd "$checks/checks-$n.cpio" \
	--logdir "$logdir" --suites "$checks/suites-$n" --filter "${T:-}"
[ "$(cat "$unit/sandboxed")" = yes ] && set -- "$@" --sandbox "$ROOT/scripts/sandbox.sh"
[ -n "${V:-}" ] && [ "${V:-0}" != 0 ] && set -- "$@" --verbose
rc=0
t_checks=$(now_ms)
python3 "$ROOT/vm/labvm" check "$@" || rc=$?
echo "checks_seconds=$((($(now_ms) - t_checks + 500) / 1000))" >>"$unit/times"
if [ -f "$logdir/report.txt" ]; then
	status checked
	[ "$(cat "$unit/sandboxed")" = yes ] ||
		info "WARNING: UNSANDBOXED=1: the results above were produced without a sandbox."
fi
exit "$rc"
