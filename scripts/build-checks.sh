#!/bin/sh
# Build the checks of labs 0..N for the guest and pack them into an
# initramfs archive: guest programs (C, static, with the pristine tree's
# kselftest harness) and KUnit suites (modules built against the lab kernel
# in build/obj).  The checks always come from this project, never from the
# student's kernel tree.
# Modules whose name ends in _kunit are KUnit suites, run by the guest;
# other modules are helpers that the checks load themselves.
# Usage: build-checks.sh N   -> $CHECKS_OUT/checks-N.cpio and suites-N
#        (CHECKS_OUT defaults to build/checks)
set -eu
STEP=checks
. "$(dirname "$0")/lib.sh"
need_tree
lab=$1
out=${CHECKS_OUT:-$BUILD/checks}
inc="$BUILD/include"
mkdir -p "$out" "$inc" "$LOGS"

# The harness headers, from the pristine tree.
for h in kselftest_harness.h kselftest.h; do
	if [ ! -f "$inc/$h" ]; then
		git -C "$KSRC" show "pristine:tools/testing/selftests/$h" >"$inc/$h.tmp"
		mv "$inc/$h.tmp" "$inc/$h"
	fi
done

suites="$out/suites-$lab"
list="$out/checks-$lab.list"
: >"$suites.tmp"
echo "dir /checks 0755 0 0" >"$list"
log="$LOGS/checks-build.log"
: >"$log"
i=0
while [ "$i" -le "$lab" ]; do
	d=$(ls -d "$ROOT"/labs/"$(printf '%02d' "$i")"-* 2>/dev/null | head -n 1)
	i=$((i + 1))
	[ -n "$d" ] || continue
	n=$((i - 1))
	mkdir -p "$out/lab$n"
	echo "dir /checks/lab$n 0755 0 0" >>"$list"

	for c in "$d"/checks/*.c; do
		[ -f "$c" ] || continue
		name=$(basename "$c" .c)
		bin="$out/lab$n/$name"
		if [ ! -x "$bin" ] || [ -n "$(find "$c" "$ROOT/labs/common" "$inc" \
			-newer "$bin" -print -quit)" ]; then
			cc -static -O2 -g -Wall -D_GNU_SOURCE \
				-I"$ROOT/labs/common" -I"$inc" \
				-o "$bin" "$c" -lpthread >>"$log" 2>&1 || {
				cat "$log" >&2
				die "the guest check $c did not compile (errors above)."
			}
		fi
		echo "file /checks/lab$n/$name $bin 0755 0 0" >>"$list"
		# "labcheck: power-cycle" in a program: it runs across two boots
		# of its own with an NVDIMM (vm/labvm/run.py, power_cycle())
		kind=prog
		grep -q 'labcheck: power-cycle' "$c" && kind=powercycle
		echo "lab${n}_$name:$kind:/checks/lab$n/$name" >>"$suites.tmp"
	done

	if [ -f "$d/rerun" ]; then
		rerun_suites "$d/rerun" "$n" "$out" >>"$suites.tmp" || exit 1
	fi

	if [ -f "$d/kunit/Kbuild" ]; then
		# Kbuild writes objects next to the sources: build a copy.
		src="$out/lab$n/kunit"
		mkdir -p "$src"
		for f in "$d"/kunit/*; do
			cmp -s "$f" "$src/${f##*/}" || cp "$f" "$src/"
		done
		export CCACHE_BASEDIR="$ROOT"
		cc=gcc
		command -v ccache >/dev/null 2>&1 && cc="ccache gcc"
		# make M= takes 1.5 s with nothing to do (a mutant's run, a
		# rerun): skip it while what the modules are built from is
		# unchanged -- their sources, the configuration, the exported
		# symbols, and the kernel's headers, which a checkout or a
		# submission's files make newer than the stamp.
		stamp="$src/.daxlab-built"
		want=$(cat "$d"/kunit/* "$KOBJ/.config" "$KOBJ/Module.symvers" \
			"$KOBJ/include/config/kernel.release" 2>/dev/null | sha256sum)
		if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] ||
			! ls "$src"/*.ko >/dev/null 2>&1 ||
			[ -n "$(find "$KSRC/include" "$KSRC/arch/x86/include" \
				-newer "$stamp" -print -quit)" ]; then
			rm -f "$stamp"
			make -C "$KSRC" O="$KOBJ" M="$src" CC="$cc" modules >>"$log" 2>&1 || {
				grep -E -A3 'error:|Error [0-9]|undefined' "$log" | head -n 40 >&2
				die "the KUnit suites of lab $n did not build (errors above; log $log)."
			}
			echo "$want" >"$stamp"
		fi
		for ko in "$src"/*.ko; do
			[ -f "$ko" ] || continue
			name=$(basename "$ko" .ko)
			echo "file /checks/lab$n/$name.ko $ko 0644 0 0" >>"$list"
			case "$name" in
			*_kunit) echo "$name:kunit:/checks/lab$n/$name.ko" >>"$suites.tmp" ;;
			esac
		done
	fi
done
mv "$suites.tmp" "$suites"
[ -x "$BUILD/tools/gen_init_cpio" ] || sh "$ROOT/scripts/gen-init-cpio.sh"
"$BUILD/tools/gen_init_cpio" "$list" >"$out/checks-$lab.cpio.tmp"
mv "$out/checks-$lab.cpio.tmp" "$out/checks-$lab.cpio"
