#!/bin/sh
# Every patch of the reference series (kernel-patches/) and every lab
# skeleton must pass the kernel's scripts/checkpatch.pl --strict (CamelCase
# aside: it flags kernel API names such as __SetPageUptodate()).
set -eu
STEP=checkpatch
. "$(dirname "$0")/lib.sh"
need_tree
n=0
bad=0
for p in $(sh "$ROOT/scripts/series.sh" upto 99) $(ls "$ROOT"/labs/*/skeleton/*.patch 2>/dev/null); do
	n=$((n + 1))
	if ! perl "$KSRC/scripts/checkpatch.pl" --strict --no-tree --ignore CAMELCASE -q "$p"; then
		echo "checkpatch: ${p#$ROOT/} is not clean (above)"
		bad=$((bad + 1))
	fi
done
echo "checkpatch: $n patch(es), $bad not clean"
[ "$bad" = 0 ]
