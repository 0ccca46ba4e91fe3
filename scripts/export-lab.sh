#!/bin/sh
# For the lab's maintainers: write lab N's reference patches and skeleton
# from branches of the kernel tree into the project.
#   ref-devN  : lab-base + the reference of labs 1..N (one commit per patch)
#   skel-devN : ref-dev(N-1) (or lab-base) + one skeleton commit for lab N
# The reference patches of lab N are the commits of ref-devN that are not in
# ref-dev(N-1); they are appended to kernel-patches/ and the series file
# (replacing lab N's entries).  Usage: scripts/export-lab.sh N
set -eu
STEP=export-lab
. "$(dirname "$0")/lib.sh"
need_tree
n=$1
labdir=$(lab_dir "$n")
prev=lab-base
[ "$n" -gt 1 ] && prev="ref-dev$((n - 1))"
for b in "ref-dev$n" "skel-dev$n" "$prev"; do
	git -C "$KSRC" rev-parse -q --verify "$b" >/dev/null ||
		die "the kernel tree has no branch or tag $b."
done

series="$ROOT/kernel-patches/series"
# drop lab N's old patches and entries
sed -n "s/^lab$n //p" "$series" | while read -r f; do rm -f "$ROOT/kernel-patches/$f"; done
sed -i "/^lab$n /d" "$series"
start=$(($(grep -c '^lab' "$series" || true) + 1))
for f in $(git -C "$KSRC" format-patch --zero-commit --no-signature \
	--start-number "$start" -o "$ROOT/kernel-patches" "$prev..ref-dev$n"); do
	echo "lab$n ${f##*/}" >>"$series"
done
rm -f "$labdir"/skeleton/*.patch
mkdir -p "$labdir/skeleton"
git -C "$KSRC" format-patch -q --zero-commit --no-signature \
	-o "$labdir/skeleton" "skel-dev$n~1..skel-dev$n"
info "lab $n: $(sed -n "s/^lab$n //p" "$series" | wc -l) reference patch(es)," \
	"$(ls "$labdir"/skeleton/*.patch | wc -l) skeleton patch"
