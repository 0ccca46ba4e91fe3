#!/bin/sh
# What the sandbox costs: grade a passing lab-1 submission sandboxed and
# with UNSANDBOXED=1, in turn, PAIRS times after one warm-up pair, and
# print each time and the median of the pairs' ratios.  Each run grades a
# submission no run has seen (tests/submissions/alice.lab1.patch with a
# fresh line of code in each file), so both sides compile what a real
# submission changes and ccache serves neither.  About 25 s a pair.
# docs/instructor.rst ("What it costs") gives the result.
# Usage: grade-cost.sh [PAIRS]      (default 10)
set -eu
STEP=grade-cost
. "$(dirname "$0")/lib.sh"
need_tree
pairs=${1:-10}
case "$pairs" in '' | *[!0-9]*) die "PAIRS must be a number, not '$pairs'." ;; esac
files="block/bdev.c drivers/block/brd.c drivers/nvdimm/pmem.c"
wt=$BUILD/grade-cost
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; git -C "$KSRC" worktree remove --force "$wt" 2>/dev/null || true' EXIT INT TERM
git -C "$KSRC" worktree remove --force "$wt" 2>/dev/null || true
git -C "$KSRC" worktree add -q --detach "$wt" "$(sh "$ROOT/scripts/variant.sh" skel 1)"
git -C "$wt" apply "$ROOT/tests/submissions/alice.lab1.patch"
git -C "$wt" add -A
submission() {	# nonce -> a patch on the skeleton
	git -C "$wt" checkout -q -- .
	for f in $files; do
		printf 'static const char __maybe_unused daxlab_cost[] = "%s";\n' "$1" >>"$wt/$f"
	done
	git -C "$wt" diff HEAD >"$tmp/$1.patch"
}
grade() {	# sb|un nonce -> seconds
	submission "$2"
	t0=$(date +%s%N)
	if [ "$1" = un ]; then
		UNSANDBOXED=1 sh "$ROOT/scripts/grade-one.sh" "cost-$2" 1 patch "$tmp/$2.patch"
	else
		sh "$ROOT/scripts/grade-one.sh" "cost-$2" 1 patch "$tmp/$2.patch"
	fi >"$tmp/$2.log" 2>&1
	t1=$(date +%s%N)
	cut -f6 "$BUILD/results/cost-$2.row" | grep -q '^all checks pass' ||
		die "the cost submission did not pass (log: $(tail -n 3 "$tmp/$2.log"))"
	echo $(((t1 - t0) / 1000000))
}
stamp=$(date +%s)
start=$stamp
info "warm-up pair"
grade sb "w1-$stamp" >/dev/null
grade un "w2-$stamp" >/dev/null
: >"$tmp/pairs"
i=1
while [ "$i" -le "$pairs" ]; do
	sb=$(grade sb "s$i-$stamp")
	un=$(grade un "u$i-$stamp")
	echo "$sb $un" >>"$tmp/pairs"
	el=$(($(date +%s) - start))
	info "pair $i/$pairs: sandboxed $sb ms, unsandboxed $un ms" \
		"(${el}s elapsed, about $((el * (pairs - i) / (i + 1)))s to go)"
	i=$((i + 1))
done
rm -rf "$BUILD"/results/cost-*-"$stamp".* "$BUILD"/grade/units/cost-*-"$stamp" \
	"$LOGS"/cost-*-"$stamp"-lab1
awk '{ r[NR] = $1 / $2; s[NR] = $1; u[NR] = $2 }
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	lo = hi = r[1]
	for (i = 1; i <= NR; i++) { if (r[i] < lo) lo = r[i]; if (r[i] > hi) hi = r[i] }
	printf "grade-cost: %d pairs: median %.1f s sandboxed, %.1f s unsandboxed;", NR,
		median(s, NR) / 1000, median(u, NR) / 1000
	printf " median ratio %+.1f %% (%+.1f %% to %+.1f %%)\n",
		(median(r, NR) - 1) * 100, (lo - 1) * 100, (hi - 1) * 100
}' "$tmp/pairs"
