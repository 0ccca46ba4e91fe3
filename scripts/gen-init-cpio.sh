#!/bin/sh
# Build the kernel's usr/gen_init_cpio (from the pristine tree) as a host
# tool: it packs initramfs archives with device nodes and root ownership
# without needing root.
set -eu
STEP=gen-init-cpio
. "$(dirname "$0")/lib.sh"
need_tree
mkdir -p "$BUILD/tools"
git -C "$KSRC" show pristine:usr/gen_init_cpio.c >"$BUILD/tools/gen_init_cpio.c"
cc -O2 -o "$BUILD/tools/gen_init_cpio" "$BUILD/tools/gen_init_cpio.c" ||
	die "could not compile usr/gen_init_cpio.c (is gcc installed?)"
