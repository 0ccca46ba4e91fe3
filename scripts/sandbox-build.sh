#!/bin/sh
# Inside the sandbox (grade-unit.sh starts it): build a submission's
# kernel and its KUnit checks, starting from the lab's base build, and
# hand out what the VM needs.  KOBJ and CHECKS_OUT are empty tmpfs
# mounts at the base's own paths (so every command line matches the
# base's and only what the submission changed is rebuilt); SEED holds the
# base's obj and checks, read-only; OUT is the one writable directory that
# outlives the sandbox.
# Usage: sandbox-build.sh N     (env: KSRC KOBJ CHECKS_OUT LOGS SEED OUT)
set -eu
STEP=build
. "$(dirname "$0")/lib.sh"
n=$1
# What is in the seeds, with their times (the tmpfs roots are not ours to
# retime: the top-level entries are copied, not ".").  Not what linking
# the kernel writes again, vmlinux and all that is made from it: a
# submission always changes a source file, so the link runs again and
# would only overwrite them.  They are half of the bytes.
# shellcheck disable=SC2046
(cd "$SEED/obj" && tar -cf - --anchored \
	--exclude=vmlinux --exclude=vmlinux.o --exclude='.tmp_vmlinux*' \
	--exclude=System.map --exclude=arch/x86/boot/bzImage \
	--exclude=arch/x86/boot/vmlinux.bin --exclude=arch/x86/boot/compressed/vmlinux \
	--exclude='arch/x86/boot/compressed/vmlinux.bin*' \
	--exclude=arch/x86/boot/compressed/piggy.o \
	-- $(find . -mindepth 1 -maxdepth 1 -printf '%P\n')) | tar -C "$KOBJ" -xf -
find "$SEED/checks" -mindepth 1 -maxdepth 1 \
	-exec cp -R --preserve=mode,timestamps -t "$CHECKS_OUT" {} +
sh "$ROOT/scripts/build.sh" "$n"
sh "$ROOT/scripts/build-checks.sh" "$n"
mkdir -p "$OUT/obj/arch/x86/boot" "$OUT/checks"
cp "$KOBJ/arch/x86/boot/bzImage" "$OUT/obj/arch/x86/boot/"
cp "$KOBJ/vmlinux" "$OUT/obj/"
cp "$CHECKS_OUT/checks-$n.cpio" "$CHECKS_OUT/suites-$n" "$OUT/checks/"
