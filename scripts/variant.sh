#!/bin/sh
# The commit of a known state of lab N, made in the kernel tree's object
# store without touching any working tree:
#   ref N   lab-base + the reference patches of labs <= N
#   skel N  lab-base + the reference patches of labs < N + lab N's skeleton
#   open N  lab N's skeleton + its open level (open-commit.sh)
#   mutant N FILE   the reference of lab N + a mutant (tests/mutants/labN/)
#   prefix N K      lab-base + the first K patches of the series (make
#           bisect-check); N is the lab of the K-th patch
#   submission N FILE   lab N's skeleton + a student's patch or mbox: on
#           the guided level, or on the open level when it applies there
#           and not to the guided one; LEVEL=open or LEVEL=guided: on
#           that level only
# Built with a temporary index (git apply --cached), so making it costs
# seconds and checking it out later rewrites only the files that differ.
# Prints the commit id; exits 3 when git apply warned about a submission.
# Usage: variant.sh ref|skel|open N
#        variant.sh mutant|submission N FILE
#        variant.sh prefix N K
set -eu
STEP=variant
. "$(dirname "$0")/lib.sh"
need_tree
kind=$1
n=$2
labdir=$(lab_dir "$n")
start=lab-base
case "$kind" in
ref) patches=$(sh "$ROOT/scripts/series.sh" upto "$n") ;;
skel) patches="$(sh "$ROOT/scripts/series.sh" before "$n") $(ls "$labdir"/skeleton/*.patch 2>/dev/null || true)" ;;
mutant)
	[ -f "${3:-}" ] || die "mutant: no such patch file '${3:-}'"
	patches="$(sh "$ROOT/scripts/series.sh" upto "$n") $3"
	kind=mutant-$(basename "$3" .patch)
	;;
prefix)
	# The reference makes one commit per patch: the K-th is the prefix.
	k=${3:-}
	all=$(sh "$ROOT/scripts/series.sh" upto 99 | wc -l)
	case "$k" in
	'' | *[!0-9]*) die "prefix: K must be a number of patches, 1 to $all." ;;
	esac
	[ "$k" -ge 1 ] && [ "$k" -le "$all" ] ||
		die "prefix: K must be a number of patches, 1 to $all (got $k)."
	top=$(sh "$ROOT/scripts/variant.sh" ref "$(list_labs | tail -n 1 | cut -d' ' -f1)")
	git -C "$KSRC" rev-parse "$top~$((all - k))"
	exit 0
	;;
open)
	start=$(sh "$ROOT/scripts/variant.sh" skel "$n")
	patches="$ROOT/scripts/open-level.py $ROOT/scripts/open-commit.sh"
	;;
submission)
	[ -f "${3:-}" ] || die "PATCH=${3:-}: no such file."
	case "${LEVEL:-}" in
	'' | guided) start=$(sh "$ROOT/scripts/variant.sh" skel "$n") ;;
	open) start=$(sh "$ROOT/scripts/variant.sh" open "$n") ;;
	*) die "LEVEL=$LEVEL: no such level (guided or open)." ;;
	esac
	patches=$3
	;;
*) die "unknown variant '$kind' (ref, skel, open, mutant, submission or prefix)" ;;
esac

key=$(printf '%s %s %s\n' "$kind" "$n" "$(git -C "$KSRC" rev-parse "$start^{commit}")" |
	cat - $patches | sha256sum | cut -d' ' -f1)
# A made commit is kept under a ref: per content for submissions (graded
# side by side), per state otherwise, with the key of what made it.
if [ "$kind" = submission ]; then
	ref="refs/daxlab/submission/$key"
	keyfile=""
	c=$(git -C "$KSRC" rev-parse -q --verify "$ref") && { echo "$c"; exit 0; }
else
	ref="refs/daxlab/$kind-$n"
	keyfile="$KSRC/.git/daxlab-$kind-$n.key"
	if [ -f "$keyfile" ] && [ "$(cat "$keyfile")" = "$key" ] &&
		c=$(git -C "$KSRC" rev-parse -q --verify "$ref"); then
		echo "$c"
		exit 0
	fi
fi

if [ "$kind" = open ]; then
	before=$(state_before "$n")
	c=$(sh "$ROOT/scripts/open-commit.sh" "$n" "$before" "$start")
	git -C "$KSRC" update-ref "$ref" "$c"
	echo "$key" >"$keyfile"
	echo "$c"
	exit 0
fi

GIT_INDEX_FILE=$(mktemp)
export GIT_INDEX_FILE
warn=$(mktemp)
trap 'rm -f "$GIT_INDEX_FILE" "$warn"' EXIT
export GIT_AUTHOR_NAME="DAX lab" GIT_AUTHOR_EMAIL="daxlab@localhost"
export GIT_COMMITTER_NAME="DAX lab" GIT_COMMITTER_EMAIL="daxlab@localhost"
git -C "$KSRC" read-tree "$start"
c=$(git -C "$KSRC" rev-parse "$start^{commit}")
for p in $patches; do
	# A submission made on the open level applies there, and not to
	# the guided skeleton (a lab with no skeleton has no open level).
	if [ "$kind" = submission ] && [ -z "${LEVEL:-}" ] &&
		has_skeleton "$n" &&
		! git -C "$KSRC" apply --check --cached "$p" 2>/dev/null; then
		open=$(sh "$ROOT/scripts/variant.sh" open "$n") ||
			die "the open level of lab $n could not be made (see above)."
		git -C "$KSRC" read-tree "$open"
		if git -C "$KSRC" apply --check --cached "$p" 2>/dev/null; then
			c=$open
		else
			git -C "$KSRC" read-tree "$start"
		fi
	fi
	if ! git -C "$KSRC" apply --cached "$p" 2>"$warn"; then
		cat "$warn" >&2
		[ "$kind" = submission ] &&
			die "the submission ${p#$ROOT/} does not apply to the skeleton of lab $n," \
				"guided or open.  Make it from your lab branch, from where the lab started:" \
				"  git -C build/linux format-patch lab$n-start..lab$n --stdout >file" \
				"  (the open level: lab$n-open-start..lab$n-open)"
		die "${p#$ROOT/} does not apply on lab-base + the patches before it."
	fi
	# A submission git had to warn about (whitespace errors, a fragment
	# without a header, ...) is refused: what it means is not certain.
	if [ -s "$warn" ]; then
		cat "$warn" >&2
		if [ "$kind" = submission ]; then
			(die "git apply warned about the submission ${p#$ROOT/} (above); nothing was built." \
				"Fix what it says in your commits, then make the file again:" \
				"  git -C build/linux format-patch lab$n-start..lab$n --stdout >file" \
				"  (the open level: lab$n-open-start..lab$n-open)") || exit 3
		fi
	fi
	subject=$(sed -n -e 's/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//p' \
		-e 's/^Mutant: /mutant: /p' "$p" | head -n 1)
	c=$(echo "$subject" | git -C "$KSRC" commit-tree "$(git -C "$KSRC" write-tree)" -p "$c")
done
git -C "$KSRC" update-ref "$ref" "$c"
[ -z "$keyfile" ] || echo "$key" >"$keyfile"
echo "$c"
