#!/bin/sh
# Re-record the runner's test logs from real runs of the lab kernel:
# tests/runner/faults/ makes the kernel warn, oops, panic, report a lockdep
# problem or hang, and each scenario's console and results logs are kept in
# tests/runner/cases/NAME/ with what the runner must conclude from them.
# Needs a built kernel (make kernel).  Usage: tests/runner/record.sh
set -eu
STEP=record
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/lib.sh"
need_tree
here="$ROOT/tests/runner"
work="$BUILD/runner-record"
rm -rf "$work"
mkdir -p "$work/mod"
cp "$here"/faults/labvm_faults.c "$here"/faults/Kbuild "$work/mod/"
make -s -C "$KSRC" O="$KOBJ" M="$work/mod" CC="ccache gcc" modules
sh "$ROOT/scripts/build-checks.sh" 0 >/dev/null
cc -static -O2 -Wall -D_GNU_SOURCE -I"$ROOT/labs/common" -I"$BUILD/include" \
	-o "$work/faults" "$here/faults/faults.c"
cat >"$work/list" <<LIST
dir /checks 0755 0 0
dir /checks/faults 0755 0 0
file /checks/faults/faults $work/faults 0755 0 0
file /checks/faults/labvm_faults.ko $work/mod/labvm_faults.ko 0644 0 0
LIST
"$BUILD/tools/gen_init_cpio" "$work/list" >"$work/faults.cpio"
echo "faults:prog:/checks/faults/faults" >"$work/suites"

record() {	# name filter check-timeout
	info "recording $1 (T=$2)"
	python3 "$ROOT/vm/labvm" check --build "$BUILD" --accel tcg \
		--initrd "$BUILD/initramfs/base.cpio" --initrd "$work/faults.cpio" \
		--suites "$work/suites" --filter "$2" --check-timeout "$3" \
		--logdir "$work/$1" --quiet >"$work/$1.out" 2>&1 || true
	d="$here/cases/$1"
	mkdir -p "$d"
	cp "$work/$1/console.log" "$work/$1/results.log" "$d/"
	cut -d' ' -f1 "$work/$1/end" >"$d/end"
	cut -d' ' -f2 "$work/$1/end" >"$d/nonce"
	echo "$2" >"$d/filter"
	echo "$3" >"$d/check-timeout"
	cut -d: -f1,2 "$work/suites" >"$d/planned"
	cat "$work/$1.out"
}
record pass passes 60
record fail fails,passes 60
record warning warns,after 60
record oops oopses,after 60
record panic panics,after 60
record lockdep lockdep,after 60
record timeout sleeps,after 10
record hang spins,after 5
