#!/bin/sh
# The starting point of every sandboxed submission build of lab N: the
# skeleton of lab N, checked out and built once (trusted: it is the
# project's own code) in build/grade/base/labN/{linux,obj,checks}.  A
# submission's build copies obj and checks into memory, lays its changed
# files over linux, and rebuilds only what they change (grade-unit.sh).
# Nothing a submission does reaches these directories: the sandbox shows
# them read-only.
# Usage: grade-base.sh N   -> prints build/grade/base/labN
set -eu
STEP=grade
. "$(dirname "$0")/lib.sh"
need_tree
n=$1
base="$BUILD/grade/base/lab$n"
mkdir -p "$base"
skel=$(sh "$ROOT/scripts/variant.sh" skel "$n")
# One builder at a time per lab (make grade JOBS=...).
exec 9>"$base/.lock"
flock 9
want="$skel $(cat "$ROOT"/vm/lab.config "$ROOT"/labs/*/kernel.config | sha256sum)"
if [ "$(cat "$base/built" 2>/dev/null)" != "$want" ]; then
	info "building the lab $n skeleton, the base of submission builds ..." >&2
	rm -f "$base/built" "$base/checks-built"
	worktree_at "$base/linux" "$skel" >&2
	KSRC="$base/linux" KOBJ="$base/obj" CHECKS_OUT="$base/checks" LOGS="$base/logs" \
		sh "$ROOT/scripts/build.sh" "$n" >&2
	echo "$want" >"$base/built"
fi
# The checks as they are now: a submission's build must find them built.
checks=$(find "$ROOT/labs" -type f \( -path '*/checks/*' -o -path '*/kunit/*' \
	-o -path '*/common/*' -o -name rerun \) | sort | xargs cat | sha256sum)
if [ "$(cat "$base/checks-built" 2>/dev/null)" != "$checks" ]; then
	KSRC="$base/linux" KOBJ="$base/obj" CHECKS_OUT="$base/checks" LOGS="$base/logs" \
		sh "$ROOT/scripts/build-checks.sh" "$n" >&2
	echo "$checks" >"$base/checks-built"
fi
echo "$base"
