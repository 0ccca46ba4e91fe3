#!/bin/sh
# The open level of a lab, as one commit on top of its guided skeleton:
# every C file the skeleton changed, cut by open-level.py (the functions
# the student writes keep their contract and lose their body).  Made in
# the kernel tree's object store with a temporary index; no working tree
# is touched.  Both levels come from the one skeleton, so they cannot
# drift apart.
# Usage: open-commit.sh N BEFORE SKEL [PARENT]
#        (BEFORE: the commit the skeleton applies to; SKEL: the skeleton's
#         commit) -> prints the open level's commit id, a child of SKEL;
#        PARENT=BEFORE: the skeleton and its open level as one commit, so
#         that the branch a student works on holds no step list in its
#         history (make lab N LEVEL=open)
set -eu
STEP=open-level
. "$(dirname "$0")/lib.sh"
need_tree
n=$1 before=$2 skel=$3 parent=${4:-$3}
g() { git -C "$KSRC" "$@"; }

tmp=$(mktemp -d)
GIT_INDEX_FILE="$tmp/index"
export GIT_INDEX_FILE
trap 'rm -rf "$tmp"' EXIT INT TERM
g read-tree "$skel"
cut=0
for p in $(g diff --no-renames --name-only --diff-filter=AM "$before" "$skel" -- '*.c'); do
	g show "$skel:$p" >"$tmp/guided"
	g show "$before:$p" >"$tmp/before" 2>/dev/null || : >"$tmp/before"
	python3 "$ROOT/scripts/open-level.py" --before "$tmp/before" "$tmp/guided" \
		>"$tmp/open" || die "open-level.py failed on $p (see above)."
	cmp -s "$tmp/guided" "$tmp/open" && continue
	blob=$(g hash-object -w "$tmp/open")
	mode=$(g ls-tree "$skel" -- "$p" | cut -d' ' -f1)
	g update-index --cacheinfo "$mode,$blob,$p"
	cut=$((cut + 1))
done
[ "$cut" -gt 0 ] || die "lab $n's skeleton has no function to cut for an open level."
export GIT_AUTHOR_NAME="DAX lab" GIT_AUTHOR_EMAIL="daxlab@localhost"
export GIT_COMMITTER_NAME="DAX lab" GIT_COMMITTER_EMAIL="daxlab@localhost"
why="The functions of the skeleton that hold TODOs, cut to their contract:
the comment above each says what it must do; write its body."
if [ "$(g rev-parse "$parent")" = "$(g rev-parse "$skel")" ]; then
	printf 'lab%s: open level\n\n%s\n' "$n" "$why"
else
	g log -1 --format=%B "$skel" | sed "1s/\$/ (open level)/"
	printf 'Open level: %s\n' "$why"
fi | g commit-tree "$(g write-tree)" -p "$parent"
