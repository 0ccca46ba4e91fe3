#!/bin/sh
# A submission is untrusted: building it runs whatever drives the build.
# Decide what it touched from what git applied -- the tree diff between the
# lab's skeleton and the submission's result, paths and modes -- never from
# the patch's headers, which git reads in more forms than any hand-written
# parser (quoted paths, other prefixes, renames, copies, mode lines, binary
# hunks, several messages in one mbox).
#
# A submission may change only files that lab N's skeleton changed, and
# those listed in labs/NN-name/allowed-paths (one path or shell glob per
# line); never a file that drives the build (Makefile, Kbuild, Kconfig,
# *.mk, scripts/, tools/), even where the skeleton touched one.  Every
# change must leave a regular, non-executable file (mode 100644) with text
# in it: no symlinks, executables, gitlinks, new or deleted files, binary
# content.  The checks always come from the project, never from the
# submission.
# Usage: filecheck.sh N PREV SKEL RESULT   (commits in the kernel tree:
#        PREV = the reference before lab N, SKEL = lab N's skeleton,
#        RESULT = the submission applied to SKEL)
#        -> exit 0 if RESULT may be built; else each offending path, what
#           the lab allows, and exit 1
set -eu
STEP=submission
. "$(dirname "$0")/lib.sh"
n=$1 prev=$2 skel=$3 result=$4
labdir=$(lab_dir "$n")
g() { git -C "$KSRC" "$@"; }

drives_build() {
	case "$1" in
	Makefile | */Makefile | Kbuild | */Kbuild | Kconfig* | */Kconfig* | \
	*.mk | scripts/* | tools/*) return 0 ;;
	esac
	return 1
}

# What the lab lets a student change: the skeleton's own files, as git
# sees them, less the build files; then allowed-paths.
allowed=$(g diff --no-renames --name-only "$prev" "$skel" |
	while read -r p; do drives_build "$p" || echo "$p"; done)
globs=""
[ -f "$labdir/allowed-paths" ] && globs=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$labdir/allowed-paths")
is_allowed() {
	drives_build "$1" && return 1
	for a in $allowed; do
		[ "$1" = "$a" ] && return 0
	done
	for a in $globs; do
		# shellcheck disable=SC2254
		case "$1" in $a) return 0 ;; esac
	done
	return 1
}

# ":OLDMODE NEWMODE OLDSHA NEWSHA STATUS<TAB>PATH"; a path with a tab,
# newline, quote or non-ASCII byte comes quoted ("..."), which matches no
# allowed path.
bad=$(mktemp)
trap 'rm -f "$bad"' EXIT
g diff --raw --no-renames --no-abbrev "$skel" "$result" |
while IFS='	' read -r meta path; do
	set -- $meta
	newmode=$2 status=$5
	why=""
	is_allowed "$path" || why="not a file of lab $n"
	case "$status:$newmode" in
	M:100644)
		# Binary content: a NUL byte, as git's own test has it (the
		# kernel's .gitattributes makes git diff *.c as text regardless).
		[ "$(g cat-file blob "$4" | tr -dc '\000' | wc -c)" = 0 ] ||
			why="${why:+$why; }binary content"
		;;
	A:*) why="${why:+$why; }a new file" ;;
	D:*) why="${why:+$why; }deleted" ;;
	*:120000) why="${why:+$why; }made a symbolic link" ;;
	*:100755) why="${why:+$why; }made executable" ;;
	*:160000) why="${why:+$why; }made a submodule (gitlink)" ;;
	*) why="${why:+$why; }mode $newmode, status $status" ;;
	esac
	[ -z "$why" ] || printf '  %s  (%s)\n' "$path" "$why" >>"$bad"
done

[ -s "$bad" ] || exit 0
{
	printf '%s: error: this submission changes what lab %s does not allow; nothing was built.\n' "$STEP" "$n"
	printf 'What git applied, and why each is refused:\n'
	sort -u "$bad"
	printf 'Lab %s allows changes (text, mode 100644) to these files only:\n' "$n"
	for a in $allowed; do printf '  %s\n' "$a"; done
	for a in $globs; do printf '  %s\n' "$a"; done
	printf 'Make the submission from your lab branch: git -C build/linux format-patch lab%s-start..lab%s --stdout >file\n' "$n" "$n"
	printf '(the open level: format-patch lab%s-open-start..lab%s-open)\n' "$n" "$n"
} >&2
exit 1
