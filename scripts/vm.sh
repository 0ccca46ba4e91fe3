#!/bin/sh
# Everything between "make check-lab N" and the verdict: packages, the
# kernel tree, preflight, an incremental build, the initramfs, the checks,
# and the VM.
# Usage: vm.sh check N     (T=filter)
#        vm.sh shell N
#        vm.sh run N       (CMD='...' FILES=dir)
set -eu
STEP=${1:-check}-lab
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

# A report left from an earlier run must not pass for this one's.
rm -f "$LOGS/lab$lab/report.txt"
sh "$ROOT/scripts/deps.sh" core
sh "$ROOT/scripts/tree.sh"
sh "$ROOT/scripts/preflight.sh" "$lab"
sh "$ROOT/scripts/build.sh" "$lab"

# The base initramfs changes only with vm/.
base="$BUILD/initramfs/base.cpio"
mkdir -p "$BUILD/initramfs"
if [ ! -f "$base" ] || [ -n "$(find "$ROOT/vm" "$ROOT/scripts/gen-init-cpio.sh" \
	-newer "$base" -print -quit)" ]; then
	sh "$ROOT/vm/mkinitramfs.sh" "$base"
fi
sh "$ROOT/scripts/build-checks.sh" "$lab"

accel=${ACCEL:-auto}
set -- --build "$BUILD" --accel "$accel" \
	--boot-timeout "${BOOT_TIMEOUT:-120}" \
	--check-timeout "${CHECK_TIMEOUT:-300}" \
	--initrd "$base" --initrd "$BUILD/checks/checks-$lab.cpio"
[ -n "${V:-}" ] && [ "${V:-0}" != 0 ] && set -- "$@" --verbose
[ -n "${APPEND:-}" ] && set -- "$@" --append "$APPEND"
case "$mode" in
check)
	exec python3 "$ROOT/vm/labvm.py" check "$@" --logdir "$LOGS/lab$lab" \
		--suites "$BUILD/checks/suites-$lab" --filter "${T:-}"
	;;
shell)
	exec python3 "$ROOT/vm/labvm.py" shell "$@" --logdir "$LOGS/vm"
	;;
run)
	exec python3 "$ROOT/vm/labvm.py" run "$@" --logdir "$LOGS/vm-run" \
		--cmd "$CMD" ${FILES:+--files "$FILES"}
	;;
esac
