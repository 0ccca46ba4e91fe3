#!/bin/sh
# make lab N: switch the kernel tree to branch labN, creating it the first
# time from the lab base + the reference patches of labs < N + the skeleton
# of lab N.  LEVEL=open: branch labN-open, the same + the open level (the
# functions to write cut to their contract, open-commit.sh).  It refuses
# to switch with uncommitted changes, and it never resets, rebases or
# deletes an existing branch: student work is never lost.
set -eu
STEP=lab
. "$(dirname "$0")/lib.sh"
lab=$1
[ -n "$lab" ] || lab_usage "(none)"
labdir=$(lab_dir "$lab")
case "${LEVEL:-guided}" in
guided) branch=lab$lab ;;
open) branch=lab$lab-open ;;
*) die "LEVEL=$LEVEL: no such level." \
	"LEVEL=guided (the default: the TODOs say what to do) or LEVEL=open" \
	"(only each function's contract): make lab $lab LEVEL=open" ;;
esac
[ "$branch" = "lab$lab" ] || has_skeleton "$lab" ||
	die "lab $lab has one level only: make lab $lab"
sh "$ROOT/scripts/deps.sh" core
sh "$ROOT/scripts/tree.sh"
cd "$KSRC"

dirty=$(git status --porcelain | head -n 10)
if [ -n "$dirty" ]; then
	printf '%s\n' "$dirty" >&2
	die "the kernel tree has uncommitted changes (above); not switching." \
		"Keep them:   cd build/linux && git add -A && git commit -m 'my work'" \
		"or set them aside: cd build/linux && git stash"
fi

cur=$(git symbolic-ref --short -q HEAD || echo "")
if git rev-parse -q --verify "refs/heads/$branch" >/dev/null; then
	[ "$cur" = "$branch" ] && { info "already on branch $branch"; exit 0; }
	git checkout -q "$branch"
	info "switched to branch $branch (your commits on it are as you left them)"
	exit 0
fi

# A new branch: lab base, reference patches of labs < N, skeleton of lab N.
patches=$(sh "$ROOT/scripts/series.sh" before "$lab")
skeleton=$(ls "$labdir"/skeleton/*.patch 2>/dev/null || true)
git checkout -q -b "$branch" lab-base
fail() {
	git am --abort >/dev/null 2>&1 || true
	git checkout -q "${cur:-lab-base}" 2>/dev/null || git checkout -q --detach lab-base
	git branch -q -D "$branch"
	die "$1" "Nothing was changed: you are back on ${cur:-lab-base}." \
		"This is a bug in the lab (or a tree from another linux-source version);" \
		"please report it with the output above."
}
for p in $patches; do
	git -c user.name="DAX lab" -c user.email="daxlab@localhost" \
		am -q --keep-cr "$p" || fail "reference patch ${p#$ROOT/} does not apply."
done
before=$(git rev-parse HEAD)
for p in $skeleton; do
	git -c user.name="DAX lab" -c user.email="daxlab@localhost" \
		am -q --keep-cr "$p" || fail "skeleton patch ${p#$ROOT/} does not apply."
done
level=""
if [ "$branch" != "lab$lab" ]; then
	# One commit for the skeleton and its cut: the guided TODOs stay
	# out of this branch's history (make lab N gives them).
	c=$(sh "$ROOT/scripts/open-commit.sh" "$lab" "$before" HEAD "$before") &&
		git reset -q --keep "$c" || fail "the open level of lab $lab could not be made."
	level=" + the open level"
fi
# The starting point, for the student's submission (format-patch labN-start..)
git tag -f "$branch-start" >/dev/null
info "created branch $branch: lab base + $(echo "$patches" | grep -c . || true)" \
	"reference patch(es) + $(echo "$skeleton" | grep -c . || true) skeleton patch(es)$level"
info "your work goes in build/linux; commit as you go, then: make check-lab $lab"
info "to hand it in: git -C build/linux format-patch $branch-start..$branch --stdout >lab$lab.patch"
