#!/bin/sh
# make experiment NAME=x [ARGS='...']: compile the experiment x (a C file
# in some lab's experiments/ directory) as a static program and run it in
# the lab VM on your kernel, as make vm-run would.  REF=1 N=n runs it on the
# reference of lab n instead (for instructors).
# Usage: experiment.sh NAME
set -eu
STEP=experiment
. "$(dirname "$0")/lib.sh"
name=${1:-}
# The number of the lab an experiment is in: labs/07-capstone/... -> 7.
lab_of() {
	n=${1#"$ROOT"/labs/}
	n=${n%%-*}
	echo "${n#0}"
}
list() {
	for f in "$ROOT"/labs/*/experiments/*.c; do
		[ -f "$f" ] || continue
		printf '  %-28s lab %d: %s\n' "$(basename "$f" .c)" "$(lab_of "$f")" \
			"$(sed -n 's/^ \* *What it shows: *//p' "$f" | head -n 1)"
	done
}
if [ -z "$name" ]; then
	printf '%s: error: say which experiment: make experiment NAME=...\n' "$STEP" >&2
	printf 'The experiments are:\n' >&2
	list >&2
	exit 1
fi
src=$(ls "$ROOT"/labs/*/experiments/"$name".c 2>/dev/null | head -n 1)
if [ -z "$src" ]; then
	printf '%s: error: there is no experiment "%s".\n' "$STEP" "$name" >&2
	printf 'The experiments are:\n' >&2
	list >&2
	exit 1
fi
out="$BUILD/experiments/$name"
mkdir -p "$out"
cc -static -O2 -g -Wall -Wextra -D_GNU_SOURCE -I"$ROOT/labs/common" \
	-o "$out/$name" "$src" -lpthread ||
	die "${src#$ROOT/} did not compile (errors above): fix what you changed" \
		"(git diff ${src#$ROOT/}), or git checkout it to start again."
lab=$(lab_of "$src")
info "running ${src#$ROOT/} in the VM (lab $lab's experiment)"
CMD="./$name ${ARGS:-}" FILES=$out exec sh "$ROOT/scripts/vm.sh" run "${N:-}"
