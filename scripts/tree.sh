#!/bin/sh
# Create the kernel tree: unpack Debian's linux-source-6.1 into build/linux
# and make it a git repository whose first commit (tag "pristine") is the
# tree exactly as Debian ships it.  Idempotent: an existing tree is kept.
#
# The tree is built in a temporary directory and renamed into place only when
# complete, so a failure (disk full, corrupt tarball) leaves nothing behind
# that the next run would trip on.
set -eu
STEP=tree
. "$(dirname "$0")/lib.sh"

if [ -d "$KSRC/.git" ]; then
	git -C "$KSRC" rev-parse -q --verify refs/tags/pristine >/dev/null ||
		die "$KSRC is a git repository without the tag \"pristine\"." \
			"It was not made by this project, or its history was rewritten." \
			"Move it away (your commits stay in it) and run make tree again."
	exit 0
fi
[ -e "$KSRC" ] && die "$KSRC exists but is not a git repository." \
	"Move it away and run make tree again."
[ -r "$TARBALL" ] || die "$TARBALL is missing." \
	"Install it: apt-get install linux-source-6.1"

pkgver=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null || echo unknown)
tmp="$BUILD/linux.partial"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM

info "unpacking $TARBALL (linux-source-6.1 $pkgver) ..."
tar -xJf "$TARBALL" -C "$tmp" --strip-components=1 ||
	die "unpacking $TARBALL failed (see the message above)." \
		"If the disk is full, free space; if the tarball is corrupt," \
		"reinstall it: apt-get install --reinstall linux-source-6.1"

info "recording the pristine tree as the first commit ..."
cd "$tmp"
git init -q -b pristine-base .
git config feature.manyFiles true
git config core.autocrlf false
git config gc.auto 0
# core.fsync=none: this commit can always be made again from the tarball,
# and syncing 75,000 loose objects doubles the time.
# -f: Debian's top-level .gitignore ignores everything ("/*"); the pristine
# commit must hold every file of the tarball.
git -c core.fsync=none add -A -f . || die "git add failed in $tmp (see above)."
git -c core.fsync=none -c user.name="DAX lab" -c user.email="daxlab@localhost" \
	commit -q --no-verify \
	-m "Debian linux-source-6.1 $pkgver, unmodified" \
	-m "Unpacked from $TARBALL by the DAX lab." ||
	die "git commit failed in $tmp (see above)."
git tag -a pristine -m "linux-source-6.1 $pkgver" ||
	die "git tag failed in $tmp."

# The labs start one commit later: the Debian packaging rule "/*" in the
# top-level .gitignore hides every new file (fs/newfile.c) from git status
# and git add.  Drop just that rule, so student work is never invisible.
n=$(grep -n '^# Debian packaging: ignore everything' .gitignore | cut -d: -f1)
if [ -n "$n" ]; then
	# keep what precedes the rule's comment block ("", "#", the comment)
	head -n $((n - 3)) .gitignore >.gitignore.new
	mv .gitignore.new .gitignore
fi
git -c core.fsync=none -c user.name="DAX lab" -c user.email="daxlab@localhost" \
	commit -q --no-verify --allow-empty -a \
	-m "daxlab: let git see new files at every level" \
	-m "Debian's linux-source adds a rule that ignores every top-level entry,
since its packaging repository tracks only debian/.  In the lab tree that
rule would hide new source files (fs/dax2014.c) from git status and git add." ||
	die "git commit of the lab base failed in $tmp."
git tag -a lab-base -m "the labs' starting point: pristine + .gitignore fix"
git branch -q -m pristine-base lab0
printf '%s\n' "$pkgver" >.git/daxlab-source-version
cd "$ROOT"
mv "$tmp" "$KSRC"
trap - EXIT INT TERM
info "kernel tree ready in $KSRC (tag pristine = linux-source-6.1 $pkgver)"
