#!/bin/sh
# Build the kernel (incrementally) in build/obj.  On failure print the
# compiler's errors, keep the full log, and exit non-zero: nothing is booted.
# Usage: build.sh N
set -eu
STEP=build
. "$(dirname "$0")/lib.sh"
need_tree
sh "$ROOT/scripts/kconfig.sh" "${1:-0}"

# LOCALVERSION= (set, empty): no "+" in the release when the tree has
# commits past a tag, so the release string, and what depends on it, stays
# put as the student works.
# ccache, with paths relative to the checkout so that another clone (CI)
# hits the same cache entries.
export CCACHE_BASEDIR="$ROOT"
cc=gcc
command -v ccache >/dev/null 2>&1 && cc="ccache gcc"
log="$LOGS/build.log"
info "building the kernel (log: ${log#$ROOT/}) ..."
if ! make -C "$KSRC" O="$KOBJ" -j"$(($(nproc) + 1))" CC="$cc" LOCALVERSION= \
	KBUILD_BUILD_USER=daxlab KBUILD_BUILD_HOST=labvm >"$log" 2>&1; then
	echo "----- compiler errors (first 40 lines) -----" >&2
	grep -E -A3 'error:|ERROR:|Error [0-9]|undefined reference|\*\*\*' "$log" |
		head -n 40 >&2 || tail -n 40 "$log" >&2
	echo "----- end of errors -----" >&2
	die "the kernel did not build; nothing was booted." \
		"Fix the errors above (the full log is ${log#$ROOT/}) and run the" \
		"same command again: the build is incremental."
fi
info "kernel ready: Linux $(cat "$KOBJ/include/config/kernel.release") in ${KOBJ#$ROOT/}"
