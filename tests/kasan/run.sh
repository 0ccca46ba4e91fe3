#!/bin/sh
# make test: KASAN=1 must find what the lab's checks cannot.  Unbinding pmem
# under a mounted dax file system, on a kernel whose pmem frees its memory
# at once, is a use-after-free that no check can see by itself: the mount's
# next fault reads the freed driver without an oops.  With KASAN=1, lab 3's
# unbind check on that mutant must report it as a KASAN splat, and the
# lab-3 reference, every check of labs 0-3 under KASAN, must report none.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
STEP=kasan-test
. "$ROOT/scripts/lib.sh"
log="$LOGS/kasan-ref.log"
KASAN=1 REF=1 SKEL= T= sh "$ROOT/scripts/vm.sh" check 3 >"$log" 2>&1
report="$LOGS/ref-lab3-kasan/report.txt"
console="$LOGS/ref-lab3-kasan/console.log"
if grep -q "kasan: KernelAddressSanitizer initialized" "$console" 2>/dev/null; then
	ok "KASAN=1 boots a kernel with KASAN"
else
	not_ok "the KASAN=1 kernel did not say KASAN is on (log: ${log#$ROOT/})"
fi
if grep -Eq "^[0-9]+ passed, 0 failed" "$report" 2>/dev/null &&
	! grep -q "BUG: KASAN" "$console"; then
	ok "the lab-3 reference passes every check of labs 0-3 under KASAN, no report"
else
	not_ok "the lab-3 reference under KASAN: a failure or a KASAN report" \
		"(${report#$ROOT/}; log: ${log#$ROOT/})"
fi
mutant="$ROOT/tests/mutants/lab3/pmem-frees-under-a-dax-mount.patch"
log="$LOGS/kasan-mutant.log"
KASAN=1 MUTANT=$mutant REF= SKEL= T='lab3_dax_fault.unbind.*' \
	sh "$ROOT/scripts/vm.sh" check 3 >"$log" 2>&1
report="$LOGS/mutant-pmem-frees-under-a-dax-mount-lab3-kasan/report.txt"
if grep -q "BUG: KASAN: use-after-free in pmem_direct_access" "$report" 2>/dev/null; then
	ok "KASAN reports the use-after-free of a pmem that frees its memory under a mount"
else
	not_ok "KASAN did not report pmem_direct_access's use-after-free on" \
		"lab3/pmem-frees-under-a-dax-mount (${report#$ROOT/}; log: ${log#$ROOT/})"
fi
summary "KASAN=1"
