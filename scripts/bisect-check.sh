#!/bin/sh
# make bisect-check: every prefix of the reference series builds, boots and
# is correct on its own, so that git bisect through it never lands on a
# kernel that loses data a later patch would save.
# For the first K patches, K = 1 .. all, with the kernel configuration of
# the lab of patch K: when patch K is the last of its lab, every check of
# the labs up to it must pass; otherwise, every check of the labs before
# it (that lab's own checks need the rest of its patches).  Builds are
# incremental, in the scratch worktree build/grade (as REF=1).
# Usage: bisect-check.sh [FIRST [LAST]]   (patch numbers, default all)
set -u
STEP=bisect-check
. "$(dirname "$0")/lib.sh"
need_tree
series=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/kernel-patches/series")
all=$(echo "$series" | wc -l)
first=${1:-1}
last=${2:-$all}
began=$(date +%s)
k=0
# A here-document, not a pipe: the loop runs in this shell, so ok and
# not_ok count for summary.
while read -r lab file; do
	k=$((k + 1))
	[ "$k" -ge "$first" ] && [ "$k" -le "$last" ] || continue
	n=${lab#lab}
	next=$(echo "$series" | sed -n "$((k + 1))p" | cut -d' ' -f1)
	if [ "$next" != "$lab" ]; then
		want="labs 0-$n"
		filter=
	else
		want="labs 0-$((n - 1)) (lab $n is not complete)"
		filter=$(i=0; while [ "$i" -lt "$n" ]; do printf 'lab%d_,' "$i"; i=$((i + 1)); done)
		filter=${filter%,}
	fi
	log="$LOGS/bisect-$k.log"
	T=$filter PREFIX=$k REF= SKEL= MUTANT= sh "$ROOT/scripts/vm.sh" check "$n" \
		>"$log" 2>&1 </dev/null
	rc=$?
	report="$LOGS/prefix-$k-lab$n/report.txt"
	now=$(date +%s)
	took="$(((now - began) / 60))m$(((now - began) % 60))s"
	if [ "$rc" = 0 ] && [ -f "$report" ]; then
		ok "[$k/$all] $file: $want: $(tail -n 1 "$report") ($took elapsed)"
	else
		not_ok "[$k/$all] $file: $want (log: ${log#$ROOT/}):"
		grep -E '^(FAIL|NOT RUN) |error' "$log" | head -n 10 | sed 's/^/    /'
	fi
done <<EOF2
$series
EOF2
summary "bisect-check, patches $first-$last"
