#!/bin/sh
# For the lab's maintainers: write the reference series and lab N's skeleton
# from branches of the kernel tree into the project.
#   ref-devN  : lab-base + the reference of labs 1..N (one commit per patch)
#   skel-devN : ref-dev(N-1) (or lab-base) + one skeleton commit for lab N
# The series is written whole, numbered [PATCH nn/NN] from lab-base to
# ref-devL (L, the last lab with a ref-dev branch); each patch is tagged
# with the first lab whose ref-devN contains it.  The cover letter,
# kernel-patches/0000-cover-letter.patch, is written by hand: it is kept.
# Usage: scripts/export-lab.sh N
set -eu
STEP=export-lab
. "$(dirname "$0")/lib.sh"
need_tree
n=$1
labdir=$(lab_dir "$n")
has() { git -C "$KSRC" rev-parse -q --verify "$1" >/dev/null; }
for b in "skel-dev$n" "ref-dev$n"; do
	has "$b" || die "the kernel tree has no branch $b."
done
last=$n
while has "ref-dev$((last + 1))"; do last=$((last + 1)); done
k=1
while [ "$k" -lt "$last" ]; do
	has "ref-dev$k" || die "the kernel tree has no branch ref-dev$k" \
		"(every lab up to $last needs one, to tag its patches)."
	git -C "$KSRC" merge-base --is-ancestor "ref-dev$k" "ref-dev$((k + 1))" ||
		die "ref-dev$k is not part of ref-dev$((k + 1)): rebase the later labs on it."
	k=$((k + 1))
done

series="$ROOT/kernel-patches/series"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
git -C "$KSRC" format-patch -q --zero-commit --no-signature -o "$tmp" \
	"lab-base..ref-dev$last"
sed -n '/^#/p' "$series" >"$tmp/series"
k=1
for c in $(git -C "$KSRC" rev-list --reverse "lab-base..ref-dev$last"); do
	lab=1
	until git -C "$KSRC" merge-base --is-ancestor "$c" "ref-dev$lab"; do
		lab=$((lab + 1))
	done
	f=$(ls "$tmp"/"$(printf '%04d' "$k")"-*.patch)
	echo "lab$lab ${f##*/}" >>"$tmp/series"
	k=$((k + 1))
done
sed -e 's/#.*//' "$series" | while read -r _ f; do
	[ -z "$f" ] || rm -f "$ROOT/kernel-patches/$f"
done
mv "$tmp"/0*.patch "$ROOT/kernel-patches/"
mv "$tmp/series" "$series"

rm -f "$labdir"/skeleton/*.patch
mkdir -p "$labdir/skeleton"
git -C "$KSRC" format-patch -q --zero-commit --no-signature \
	-o "$labdir/skeleton" "skel-dev$n~1..skel-dev$n"
info "series: $((k - 1)) patches of labs 1-$last; lab $n:" \
	"$(ls "$labdir"/skeleton/*.patch | wc -l) skeleton patch." \
	"Update the shortlog and diffstat of kernel-patches/0000-cover-letter.patch."
