#!/bin/sh
# Say clearly, before anything is built, when the kernel tree is not what
# the labs need.  (The kernel configuration is verified by kconfig.sh, the
# QEMU version and the VM's memory by vm/labvm/machine.py.)
# Usage: preflight.sh N
set -eu
STEP=preflight
. "$(dirname "$0")/lib.sh"
need_tree
lab=$1

v=$(sed -n 's/^VERSION = //p' "$KSRC/Makefile")
p=$(sed -n 's/^PATCHLEVEL = //p' "$KSRC/Makefile")
s=$(sed -n 's/^SUBLEVEL = //p' "$KSRC/Makefile")
[ "$v.$p" = 6.1 ] || die "the kernel tree is Linux $v.$p.$s; the labs need 6.1." \
	"Move $KSRC away and run the command again to unpack linux-source-6.1."

# The series is developed against one Debian version; others usually work.
want=$(cat "$ROOT/kernel-patches/base-version")
have=$(cat "$KSRC/.git/daxlab-source-version" 2>/dev/null || echo unknown)
if [ "$have" != "$want" ]; then
	info "note: the kernel tree is linux-source-6.1 $have; the lab's series was made" \
		"against $want.  Patches may need small adjustments."
fi
inst=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null || true)
if [ -n "$inst" ] && [ "$inst" != "$have" ] && [ ! -f "$BUILD/.noted-$inst" ]; then
	info "note: linux-source-6.1 $inst is installed, but the tree was unpacked from" \
		"$have.  The tree (and your work in it) is kept as it is."
	touch "$BUILD/.noted-$inst"
fi

b=$(git -C "$KSRC" symbolic-ref --short -q HEAD 2>/dev/null || echo "(detached)")
if [ "$b" != "lab$lab" ] && [ "$b" != "lab$lab-open" ]; then
	info "note: the kernel tree is on branch $b, not lab$lab; checking what is" \
		"checked out.  (make lab $lab switches.)"
fi
