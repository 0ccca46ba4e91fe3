#!/bin/sh
# make distclean: remove build/ entirely, the kernel tree included.  The
# tree holds the student's commits, so this asks first, saying what would
# be lost, and never runs without an answer.
set -eu
STEP=distclean
. "$(dirname "$0")/lib.sh"
[ -e "$BUILD" ] || { info "nothing to remove."; exit 0; }
if [ -d "$KSRC/.git" ]; then
	work=$(git -C "$KSRC" for-each-ref --format='%(refname:short)' refs/heads/ |
		while read -r b; do
			n=$(git -C "$KSRC" rev-list --count "lab-base..$b" 2>/dev/null || echo 0)
			echo "  $b: $n commit(s) past lab-base"
		done)
	dirty=$(git -C "$KSRC" status --porcelain | head -n 5)
	echo "This removes $BUILD, including the kernel tree and your work in it:"
	printf '%s\n' "$work"
	[ -n "$dirty" ] && echo "  and uncommitted changes:" && printf '    %s\n' "$dirty"
	echo "Keep your work first: git -C build/linux format-patch lab-base..labN"
fi
if [ ! -t 0 ]; then
	die "not removing anything without a terminal to ask on." \
		"Run make distclean in a terminal, or remove $BUILD yourself."
fi
printf 'Type "remove" to remove it: '
read -r answer
[ "$answer" = remove ] || { info "nothing removed."; exit 0; }
rm -rf "$BUILD"
info "removed $BUILD."
