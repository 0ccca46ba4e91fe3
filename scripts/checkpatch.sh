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
# The series carries its author's Developer's Certificate of Origin: a
# From: and a matching Signed-off-by (checkpatch checks the match) of an
# identity that can be written to, never a placeholder such as the
# "DAX lab <daxlab@localhost>" that the lab's own scratch commits use.
for p in $(sh "$ROOT/scripts/series.sh" upto 99); do
	# the mail header, its folded lines joined, then the message
	msg=$(awk 'BEGIN { h = 1 } h && /^[ \t]/ { l = l $0; next }
		{ if (NR > 1) print l; l = $0 } /^$/ { h = 0 } END { print l }' "$p")
	if printf '%s\n' "$msg" | grep -Eq '^(From|Signed-off-by): .*(@localhost>|<[^@>]*>$)' ||
		! printf '%s\n' "$msg" | grep -Eq '^From: [^<]+ <[^@>]+@[^@>]+\.[^@>]+>$'; then
		echo "checkpatch: ${p#$ROOT/} is not signed by a real address: sign the" \
			"series with 'git config user.name/user.email' of its author and" \
			"export it again (scripts/export-lab.sh)."
		bad=$((bad + 1))
	fi
done
echo "checkpatch: $n patch(es), $bad not clean"
[ "$bad" = 0 ]
