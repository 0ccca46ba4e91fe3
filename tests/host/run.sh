#!/bin/sh
# Bad input to the host scripts gets a clear message and no damage.
# Each case runs in a scratch directory; the real kernel tree is not touched.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
STEP=host-tests
. "$ROOT/scripts/lib.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# expect NAME STATUS PATTERN -- command...: the command exits with STATUS
# (or any non-zero for "!0") and its output matches the grep -E PATTERN
expect() {
	name=$1 want=$2 pattern=$3
	shift 4
	out=$("$@" 2>&1)
	rc=$?
	good=1
	case "$want" in
	'!0') [ "$rc" != 0 ] || good=0 ;;
	*) [ "$rc" = "$want" ] || good=0 ;;
	esac
	printf '%s\n' "$out" | grep -Eq -- "$pattern" || good=0
	if [ "$good" = 1 ]; then
		ok "$name"
	else
		not_ok "$name (exit $rc, wanted $want and /$pattern/):"
		printf '%s\n' "$out" | sed 's/^/    /' | tail -n 15
	fi
}

cd "$ROOT"
expect "unknown lab lists the labs" '!0' '0  The lab machine' -- make -s check-lab 42
expect "no lab number lists the labs" '!0' 'say which lab' -- make -s check-lab
expect "make lab without N" '!0' 'say which lab' -- make -s lab
expect "vm-run without CMD" '!0' "make vm-run CMD=" -- make -s vm-run CMD=
expect "vm-run with a FILES that is no directory" '!0' "is not a directory" -- \
	make -s vm-run CMD=true FILES=/nonexistent
expect "a zero time limit is refused" '!0' 'positive number' -- \
	python3 vm/labvm run --cmd true --boot-timeout 0
expect "make experiment without NAME lists the experiments" '!0' \
	'say which experiment.*|The experiments are' -- make -s experiment
expect "an unknown experiment lists the experiments" '!0' \
	'there is no experiment "nosuch"' -- make -s experiment NAME=nosuch
# Lab 0's number is 00: the experiment must still reach the VM step (N=99,
# no such lab, stops it there, before anything is built or booted).
expect "make experiment of lab 0 gets as far as the VM" '!0' \
	"running labs/00-machine/experiments/page-cache-copy.c in the VM \\(lab 0's" -- \
	make -s experiment NAME=page-cache-copy N=99
# Every lab page's experiment compiles, warning-free, as make experiment
# compiles it: a student starts from a program that builds.
for src in "$ROOT"/labs/*/experiments/*.c; do
	[ -f "$src" ] || continue
	rel=${src#$ROOT/}
	if out=$(cc -static -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
		-I"$ROOT/labs/common" -o "$scratch/experiment" "$src" -lpthread 2>&1); then
		ok "the experiment $rel compiles"
	else
		not_ok "the experiment $rel does not compile without warnings:"
		printf '%s\n' "$out" | head -n 15 | sed 's/^/    /'
	fi
done

# The open level's cutter, white-box.
if out=$(python3 -m unittest "$ROOT/tests/host/test_open_level.py" 2>&1); then
	ok "open-level.py cuts, keeps and marks as it says"
else
	not_ok "open-level.py (tests/host/test_open_level.py):"
	printf '%s\n' "$out" | tail -n 25 | sed 's/^/    /'
fi

# The mechanical mutation tool (make mutate), white-box: no kernel needed.
if out=$(python3 -m unittest "$ROOT/tests/host/test_mutate.py" 2>&1); then
	ok "mutate.py mutates only the series' lines, names, patches, resumes and reports as it says"
else
	not_ok "mutate.py (tests/host/test_mutate.py):"
	printf '%s\n' "$out" | tail -n 25 | sed 's/^/    /'
fi
expect "mutate.py refuses a sample of no mutants" '!0' 'a sample is a positive number' -- \
	python3 scripts/mutate.py run --sample 0

expect "REF=1 and PATCH= together are refused" '!0' 'give one of them' -- \
	make -s check-lab 1 REF=1 PATCH=/dev/null
expect "a PATCH= that is not a patch is refused" '!0' 'is not a patch' -- \
	make -s check-lab 1 PATCH=README.md
# Lab 2's skeleton wires fs/dax_bh.c into fs/Makefile; a submission still
# may not touch a Makefile (it would run on the grader's machine).  What
# it touched is read from what git applied, whatever the headers say.
skel2=$(sh scripts/variant.sh skel 2)
line1=$(git -C "$KSRC" show "$skel2:fs/Makefile" | sed -n 1p)
line2=$(git -C "$KSRC" show "$skel2:fs/Makefile" | sed -n 2p)
printf '%s\n' 'diff --git "a/fs/Makefile" "b/fs/Makefile"' '--- "a/fs/Makefile"' \
	'+++ "b/fs/Makefile"' '@@ -1,2 +1,2 @@' "-$line1" "+$line1 \$(shell true)" " $line2" \
	>"$scratch/makefile.patch"
expect "a submission touching a Makefile is refused, naming it" '!0' \
	'fs/Makefile  \(not a file of lab 2\)' -- \
	make -s check-lab 2 PATCH="$scratch/makefile.patch"

# No user namespaces (bwrap cannot start): grading refuses, says why and
# how to enable them, and builds nothing; UNSANDBOXED=1 is the way out.
cat >"$scratch/nons-bwrap" <<'X'
#!/bin/sh
echo "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2
exit 1
X
chmod +x "$scratch/nons-bwrap"
expect "without namespaces, PATCH= refuses and says how to enable them" '!0' \
	'max_user_namespaces' -- env DAXLAB_BWRAP="$scratch/nons-bwrap" \
	make -s check-lab 1 PATCH=tests/submissions/alice.lab1.patch
expect "... and names the explicit opt-out" '!0' 'UNSANDBOXED=1' -- \
	env DAXLAB_BWRAP="$scratch/nons-bwrap" \
	make -s check-lab 1 PATCH=tests/submissions/alice.lab1.patch
expect "without namespaces, make grade refuses before grading anything" '!0' \
	'cannot make a sandbox' -- env DAXLAB_BWRAP="$scratch/nons-bwrap" \
	make -s grade SUBMISSIONS=tests/submissions
expect "without namespaces, BRANCH= refuses too" '!0' 'cannot make a sandbox' -- \
	env DAXLAB_BWRAP="$scratch/nons-bwrap" make -s check-lab 0 BRANCH=lab0
expect "make grade-selftest refuses with UNSANDBOXED=1" '!0' 'no sandbox to test' -- \
	env UNSANDBOXED=1 make -s grade-selftest

# A lab's "rerun" file (suites of earlier labs run again): bad lines are
# named, good ones give suite lines.
mkdir -p "$scratch/checks/lab2"
: >"$scratch/checks/lab2/dax_io"
chmod +x "$scratch/checks/lab2/dax_io"
printf '# comment\next4_dax_io 2 dax_io DAXLAB_FS=ext4\n' >"$scratch/rerun-good"
expect "a good rerun file gives its suite" 0 \
	'^lab6_ext4_dax_io:prog:/checks/lab2/dax_io:DAXLAB_FS=ext4$' -- \
	sh -c '. scripts/lib.sh; rerun_suites "$1" 6 "$2"' sh "$scratch/rerun-good" "$scratch/checks"
printf 'ext4_dax_io 2 dax_io\n' >"$scratch/rerun-short"
expect "a rerun line without its variable is refused" '!0' 'bad line "ext4_dax_io 2 dax_io' -- \
	sh -c '. scripts/lib.sh; rerun_suites "$1" 6 "$2"' sh "$scratch/rerun-short" "$scratch/checks"
printf 'ext4_cow 4 cow DAXLAB_FS=ext4\n' >"$scratch/rerun-missing"
expect "a rerun of a program that does not exist is refused" '!0' 'not an earlier lab with a check program cow' -- \
	sh -c '. scripts/lib.sh; rerun_suites "$1" 6 "$2"' sh "$scratch/rerun-missing" "$scratch/checks"

# The skeleton's verdict (prove-labs): a check of lab 7 that passes on the
# skeleton is wrong, unless the lab's "observations" file names it.
printf 'PASS    boot\nPASS    lab6_x.a\nFAIL    lab7_map_sync.map_sync.a\nPASS    lab7_xip.b\n' \
	>"$scratch/skel-report"
expect "the skeleton may pass the checks a lab lists as observations" 0 \
	'its 1 checks fail, the 3 others pass' -- \
	sh -c 'ROOT=$PWD; . scripts/lib.sh; judge "$1" 7 skel' sh "$scratch/skel-report"
printf 'PASS    lab7_map_sync.map_sync.a\n' >>"$scratch/skel-report"
expect "but not the lab's own checks" '!0' 'passes on the skeleton: lab7_map_sync.map_sync.a$' -- \
	sh -c 'ROOT=$PWD; . scripts/lib.sh; judge "$1" 7 skel' sh "$scratch/skel-report"
printf 'PASS    lab6_ext4_dax.a\nFAIL    lab5_zeroing.b\n' >"$scratch/skel6-report"
expect "and a lab without observations gets none" '!0' 'earlier labs fail: lab5_zeroing.b' -- \
	sh -c 'ROOT=$PWD; . scripts/lib.sh; judge "$1" 6 skel' sh "$scratch/skel6-report"

# A lab's "reopens" file: those checks of earlier labs count as its own on
# its skeleton (lab 5 takes ext2's own zeroing out): they must fail there.
printf 'PASS    lab4_cow.a\nFAIL    lab5_zeroing.zero.pmem0.m\nFAIL    lab3_dax_fault.map.pmem0.stores_past_eof_do_not_become_data\nPASS    lab3_dax_fault.map.pmem0.past_eof_is_sigbus\n' \
	>"$scratch/skel5-report"
expect "a reopened check of an earlier lab may fail on the skeleton" 0 \
	'its 2 checks fail, the 2 others pass' -- \
	sh -c 'ROOT=$PWD; . scripts/lib.sh; judge "$1" 5 skel' sh "$scratch/skel5-report"
printf 'PASS    lab2_dax_io.dax.ram0.cut_bytes_read_zero_after_extending\n' >>"$scratch/skel5-report"
expect "and must not pass there" '!0' 'passes on the skeleton: lab2_dax_io.dax.ram0.cut_bytes_read_zero_after_extending$' -- \
	sh -c 'ROOT=$PWD; . scripts/lib.sh; judge "$1" 5 skel' sh "$scratch/skel5-report"

# make bench: bad names are refused before anything is built, with the list.
expect "bench: an unknown configuration lists the configurations" 2 \
	'The configurations are: pagecache, lab-dax, upstream-dax' -- make -s bench CONFIGS=nosuch
expect "bench: an unknown workload lists the workloads" 2 \
	'The workloads are: seq-read-4k, ' -- make -s bench WORKLOADS=seq-read-4k,nosuch
expect "bench: ROUNDS must be a positive number" '!0' 'ROUNDS=0' -- make -s bench ROUNDS=0
# and its report measures the bars: lab DAX at half of upstream misses one
mkdir -p "$scratch/bench"
{
	echo configuration,round,workload,value,unit
	for r in 1 2 3 4 5; do
		echo "pagecache,$r,seq-read-1m,100,MB/s"
		echo "lab-dax,$r,seq-read-1m,150,MB/s"
		echo "upstream-dax,$r,seq-read-1m,300,MB/s"
		echo "memcpy,$r,seq-read-1m,200,MB/s"
		echo "pmem-direct,$r,seq-read-1m,100,MB/s"
	done
} >"$scratch/bench/results.csv"
expect "bench: a lab DAX below 0.8x upstream misses its bar" 0 \
	'MISSED lab-dax seq-read-1m: 0.50x upstream-dax' -- \
	python3 bench/bench.py report --out "$scratch/bench" --workloads seq-read-1m
expect "bench: lab DAX read is reported as a fraction of one memcpy" 0 \
	'met    lab-dax seq-read-1m: 0.75 of one memcpy \(goal: 0\.7\)' -- \
	python3 bench/bench.py report --out "$scratch/bench" --workloads seq-read-1m
expect "bench: the table has the memcpy column" 0 '0.75x' -- \
	grep -A9 '``lab-dax``' "$scratch/bench/summary.inc"
expect "bench: lab DAX read is compared with the kernel's own copy" 0 \
	"lab-dax seq-read-1m: 1.50x the kernel's own copy" -- \
	cat "$scratch/bench/bars.inc"

# Missing packages as a normal user: the exact command, nothing installed.
mkdir -p "$scratch/bin"
cat >"$scratch/bin/id" <<'X'
#!/bin/sh
echo 1000
X
cat >"$scratch/bin/dpkg-query" <<'X'
#!/bin/sh
for a; do last=$a; done
case "$last" in qemu-system-x86|busybox-static) exit 1 ;; esac
echo installed
X
chmod +x "$scratch/bin/id" "$scratch/bin/dpkg-query"
expect "non-root with missing packages gets the apt-get line" 1 \
	'sudo apt-get update && sudo apt-get install -y --no-install-recommends qemu-system-x86 busybox-static$' -- \
	env PATH="$scratch/bin:$PATH" sh scripts/deps.sh core

# A corrupt tarball: the step's own error and no half-made tree.
printf 'not an xz archive' >"$scratch/bad.tar.xz"
expect "a corrupt tarball is reported" 1 'unpacking .* failed' -- \
	env BUILD="$scratch/b" TARBALL="$scratch/bad.tar.xz" sh scripts/tree.sh
if [ -e "$scratch/b/linux" ] || [ -e "$scratch/b/linux.partial" ]; then
	not_ok "a corrupt tarball leaves no half-made tree"
else
	ok "a corrupt tarball leaves no half-made tree"
fi

# make lab never switches away from uncommitted work, and keeps it.
k="$scratch/k"
mkdir -p "$k"
(
	cd "$k" && git init -q -b lab0 && echo one >file &&
	git add file && git -c user.name=t -c user.email=t@t commit -qm base &&
	git tag pristine && git tag lab-base && echo work >>file
) >/dev/null 2>&1
expect "make lab refuses with uncommitted changes" 1 'uncommitted changes' -- \
	env KSRC="$k" sh scripts/lab.sh 0
if grep -q work "$k/file"; then
	ok "the uncommitted change is still there"
else
	not_ok "the uncommitted change is still there"
fi
(cd "$k" && git -c user.name=t -c user.email=t@t commit -qam "my work")
expect "make lab on the same branch keeps the commits" 0 'already on branch lab0' -- \
	env KSRC="$k" sh scripts/lab.sh 0
expect "the student's commit survives" 0 'my work' -- git -C "$k" log --oneline

# make lab N creates labN = lab base + reference patches of labs < N + the
# skeleton of N, with git am; a patch that does not apply leaves nothing.
proj="$scratch/proj"
mkdir -p "$proj/labs/01-fake/skeleton" "$proj/kernel-patches"
cp -r "$ROOT/scripts" "$ROOT/labs/00-machine" "$proj/" 2>/dev/null
mkdir -p "$proj/labs" && cp -r "$ROOT/labs/00-machine" "$proj/labs/"
cp "$ROOT/kernel-patches/base-version" "$proj/kernel-patches/"
(
	cd "$k" && git checkout -q -b scratch lab-base && echo ref >ref.c &&
	git add ref.c && git -c user.name=t -c user.email=t@t commit -qm "ref: lab 0 piece" &&
	git format-patch -q -1 -o "$proj/kernel-patches" &&
	printf '%s\n' '/**' ' * do_it() - what the student writes' ' *' \
		' * Context: any.' ' * Return: 1.' ' */' 'int do_it(void)' '{' \
		'	/* TODO 1: first this step, then that one. */' '	return 0;' '}' >skel.c &&
	git add skel.c &&
	git -c user.name=t -c user.email=t@t commit -qm "lab1: skeleton" &&
	git format-patch -q -1 -o "$proj/labs/01-fake/skeleton" &&
	git checkout -q lab0 && git branch -q -D scratch
) >/dev/null 2>&1
echo "lab0 $(cd "$proj/kernel-patches" && ls 0001-*.patch)" >"$proj/kernel-patches/series"
printf 'Lab 1: Fake\n===========\n' >"$proj/labs/01-fake/index.rst"
expect "make lab 1 creates the branch from the series and the skeleton" 0 \
	'created branch lab1: lab base \+ 1 reference patch\(es\) \+ 1 skeleton' -- \
	env ROOT="$proj" KSRC="$k" sh "$proj/scripts/lab.sh" 1
expect "branch lab1 holds the reference and the skeleton" 0 'lab1: skeleton' -- \
	git -C "$k" log --oneline lab1
expect "its starting point is tagged lab1-start" 0 'lab1-start' -- \
	git -C "$k" log --oneline --decorate -1 lab1
expect "make lab 0 goes back to the student's branch" 0 'switched to branch lab0' -- \
	env ROOT="$proj" KSRC="$k" sh "$proj/scripts/lab.sh" 0
# LEVEL=open: the same lab, its functions cut to their contracts.
expect "make lab 1 LEVEL=open creates lab1-open from the same skeleton" 0 \
	'created branch lab1-open: lab base \+ 1 reference patch\(es\) \+ 1 skeleton patch\(es\) \+ the open level' -- \
	env ROOT="$proj" KSRC="$k" LEVEL=open sh "$proj/scripts/lab.sh" 1
expect "its functions keep their contract and lose their steps" 0 \
	'Return: 1\.' -- git -C "$k" show lab1-open:skel.c
if git -C "$k" log -p lab-base..lab1-open | grep -q 'first this step' ||
	! git -C "$k" show lab1-open:skel.c | grep -q 'TODO 1: write do_it() to the contract above'; then
	not_ok "the open level has no step list, in its files or its history, only the contract and a stub"
else
	ok "the open level has no step list, in its files or its history, only the contract and a stub"
fi
expect "its starting point is tagged lab1-open-start" 0 'lab1-open-start' -- \
	git -C "$k" log --oneline --decorate -1 lab1-open
expect "on lab1-open, make check-lab's lab is 1" 0 '^1$' -- \
	env ROOT="$proj" KSRC="$k" sh -c '. "$ROOT/scripts/lib.sh"; current_lab'
expect "an unknown LEVEL is refused with the two there are" 1 'LEVEL=guided.*or LEVEL=open' -- \
	env ROOT="$proj" KSRC="$k" LEVEL=hard sh "$proj/scripts/lab.sh" 1
expect "lab 0 has one level" 1 'one level only' -- \
	env ROOT="$proj" KSRC="$k" LEVEL=open sh "$proj/scripts/lab.sh" 0
expect "make lab 1 still gives the guided branch" 0 'switched to branch lab1 \(' -- \
	env ROOT="$proj" KSRC="$k" sh "$proj/scripts/lab.sh" 1
expect "make lab 0 goes back again" 0 'switched to branch lab0' -- \
	env ROOT="$proj" KSRC="$k" sh "$proj/scripts/lab.sh" 0
cat >"$proj/kernel-patches/0002-broken.patch" <<'X'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: t <t@t>
Subject: [PATCH] a patch whose context is not in the tree

---
diff --git a/file b/file
--- a/file
+++ b/file
@@ -1 +1 @@
-this line is not there
+new
--
2.39.5
X
echo "lab1 0002-broken.patch" >>"$proj/kernel-patches/series"
mkdir -p "$proj/labs/02-fake"
printf 'Lab 2: Fake\n===========\n' >"$proj/labs/02-fake/index.rst"
expect "a reference patch that does not apply is a clear error" 1 \
	'0002-broken.patch does not apply' -- \
	env ROOT="$proj" KSRC="$k" sh "$proj/scripts/lab.sh" 2
if git -C "$k" rev-parse -q --verify refs/heads/lab2 >/dev/null ||
	[ "$(git -C "$k" symbolic-ref --short HEAD)" != lab0 ] ||
	[ -n "$(git -C "$k" status --porcelain)" ]; then
	not_ok "a failed make lab leaves no branch, no mess, and the old branch checked out"
else
	ok "a failed make lab leaves no branch, no mess, and the old branch checked out"
fi

expect "make distclean never deletes without asking" 1 'without a terminal' -- \
	env KSRC="$k" BUILD="$scratch/b2" sh -c 'mkdir -p "$BUILD" && sh scripts/distclean.sh </dev/null'
if [ -d "$k/.git" ]; then
	ok "and the tree is still there"
else
	not_ok "and the tree is still there"
fi

summary "host script tests"
