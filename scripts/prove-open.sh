#!/bin/sh
# Prove lab N's open level (make lab N LEVEL=open), as make test does:
#   every function it cuts keeps a contract (open-level.py --check);
#   its skeleton's C files compile without a warning;
#   the reference, handed in as a patch made on either level, applies,
#   passes the file check and gives exactly the reference's tree -- so
#   both levels have the same checks and the same grading, and the
#   reference passes both (prove-labs.sh runs the reference's checks).
# No boot: the open skeleton differs from the guided one only in the
# bodies of the functions the student writes.  Usage: prove-open.sh N...
set -u
STEP=prove-open
. "$(dirname "$0")/lib.sh"
labs=${*:-$(list_labs | cut -d' ' -f1)}
g() { git -C "$KSRC" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export CCACHE_BASEDIR="$ROOT"
cc=gcc
command -v ccache >/dev/null 2>&1 && cc="ccache gcc"

for n in $labs; do
	labdir=$(lab_dir "$n")
	has_skeleton "$n" || continue
	before=$(state_before "$n")
	skel=$(sh "$ROOT/scripts/variant.sh" skel "$n")
	ref=$(sh "$ROOT/scripts/variant.sh" ref "$n")
	if ! open=$(sh "$ROOT/scripts/variant.sh" open "$n" 2>"$tmp/err"); then
		not_ok "lab $n open level: could not be made:"
		sed 's/^/    /' "$tmp/err"
		continue
	fi
	files=$(g diff --no-renames --name-only --diff-filter=AM "$before" "$skel" -- '*.c')

	# Each function the student writes has its contract.
	: >"$tmp/bad"
	for p in $files; do
		g show "$skel:$p" >"$tmp/guided"
		g show "$before:$p" >"$tmp/before" 2>/dev/null || : >"$tmp/before"
		python3 "$ROOT/scripts/open-level.py" --check --before "$tmp/before" \
			"$tmp/guided" >"$tmp/out" 2>&1 ||
			[ -s "$tmp/out" ] || echo "open-level.py failed with no message" >"$tmp/out"
		sed "s|^$tmp/guided|$p|" "$tmp/out" >>"$tmp/bad"
	done
	cut=$(g diff --stat "$skel" "$open" | tail -n 1)
	if [ -s "$tmp/bad" ]; then
		not_ok "lab $n open level: functions cut without a contract" \
			"(write their kerneldoc in the skeleton, labs/${labdir##*/}/skeleton):"
		sed 's/^/    /' "$tmp/bad"
	else
		ok "lab $n open level: every function to write keeps its contract ($cut)"
	fi

	# The reference, handed in from either level, is the reference.
	for level in guided open; do
		from=$skel
		[ "$level" = open ] && from=$open
		g diff --no-renames "$from" "$ref" >"$tmp/ref.patch"
		if c=$(sh "$ROOT/scripts/variant.sh" submission "$n" "$tmp/ref.patch" 2>"$tmp/err") &&
			[ "$(g rev-parse "$c^{tree}")" = "$(g rev-parse "$ref^{tree}")" ] &&
			sh "$ROOT/scripts/filecheck.sh" "$n" "$before" "$skel" "$c" >"$tmp/err" 2>&1; then
			ok "lab $n $level level: the reference as PATCH= is the reference"
		else
			not_ok "lab $n $level level: the reference made on it as a patch" \
				"does not grade as the reference:"
			tail -n 15 "$tmp/err" | sed 's/^/    /'
		fi
	done

	# The open skeleton builds, warning-free, where the skeleton's
	# files are compiled (build/grade, as make check-lab N SKEL=1).
	# Their objects are removed first, so that they are compiled, and
	# warn, whatever was built there before (ccache keeps it cheap).
	objs=$(for p in $files; do echo "${p%.c}.o"; done)
	log="$LOGS/prove-open-lab$n.log"
	if worktree_at "$BUILD/grade/linux" "$open" >"$log" 2>&1 &&
		{ [ ! -d "$BUILD/grade/obj" ] || (cd "$BUILD/grade/obj" && rm -f $objs); } &&
		KSRC="$BUILD/grade/linux" KOBJ="$BUILD/grade/obj" \
		sh "$ROOT/scripts/kconfig.sh" "$n" >>"$log" 2>&1 &&
		make -C "$BUILD/grade/linux" O="$BUILD/grade/obj" -j"$(($(nproc) + 1))" \
			CC="$cc" LOCALVERSION= KBUILD_BUILD_USER=daxlab \
			KBUILD_BUILD_HOST=labvm $objs >>"$log" 2>&1 &&
		! grep -q 'warning:' "$log"; then
		ok "lab $n open level: its files compile without a warning ($(echo $objs))"
	else
		not_ok "lab $n open level: its files do not compile cleanly (log: ${log#$ROOT/}):"
		grep -E -A3 'warning:|error:' "$log" | head -n 20 | sed 's/^/    /'
	fi
done
summary "open levels"
