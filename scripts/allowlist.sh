#!/bin/sh
# A submission is untrusted: building it runs its Makefiles.  It may touch
# only the files lab N's skeleton touches, and those listed in
# labs/NN-name/allowed-paths (one path or shell glob per line) -- and never
# a file that drives the build (Makefile, Kbuild, Kconfig, scripts/),
# even where the skeleton touched one to wire in new code.  Checks always
# come from the project, never from the submission.
# Usage: allowlist.sh N FILE   -> exit 0 if FILE may be built, else the
#                                 offending paths and exit 1
set -eu
STEP=submission
. "$(dirname "$0")/lib.sh"
n=$1
file=$2
labdir=$(lab_dir "$n")
[ -f "$file" ] || die "PATCH=$file: no such file."

# Every path a patch names: git headers, and plain diff headers.
paths_of() {
	sed -n -e 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|\1\n\2|p' \
		-e 's|^+++ b/\([^	 ]*\).*$|\1|p' \
		-e 's|^--- a/\([^	 ]*\).*$|\1|p' \
		-e 's|^rename \(from\|to\) \(.*\)$|\2|p' "$@" | sort -u
}

touched=$(paths_of "$file")
[ -n "$touched" ] || die "PATCH=$file is not a patch: it changes no file." \
	"Make it with: git -C build/linux format-patch lab$n-start..lab$n --stdout >file"
allowed=$(paths_of "$labdir"/skeleton/*.patch 2>/dev/null || true)
bad=""
for p in $touched; do
	ok=
	case "$p" in
	/* | *..*) ;;
	Makefile | */Makefile | Kbuild | */Kbuild | Kconfig* | */Kconfig* | \
	*.mk | scripts/* | tools/*) ;;
	*)
		for a in $allowed; do
			[ "$p" = "$a" ] && ok=1
		done
		if [ -f "$labdir/allowed-paths" ]; then
			while read -r g; do
				[ -n "$g" ] || continue
				# shellcheck disable=SC2254
				case "$p" in $g) ok=1 ;; esac
			done <"$labdir/allowed-paths"
		fi
		;;
	esac
	[ -n "$ok" ] || bad="$bad $p"
done
if [ -n "$bad" ]; then
	{
		printf 'submission: error: %s touches files lab %s does not allow; nothing was built.\n' "$file" "$n"
		for p in $bad; do printf '  %s\n' "$p"; done
		printf 'Lab %s allows (never a Makefile, Kbuild, Kconfig or scripts/):\n' "$n"
		for a in $allowed; do
			case "$a" in
			Makefile | */Makefile | Kbuild | */Kbuild | Kconfig* | */Kconfig*) ;;
			*) printf '  %s\n' "$a" ;;
			esac
		done
		[ -f "$labdir/allowed-paths" ] && sed 's/^/  /' "$labdir/allowed-paths"
	} >&2
	exit 1
fi
