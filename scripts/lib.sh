# Shared helpers for the host scripts.  Sourced, never run.
#
# Every script prints its own errors as "<step>: error: what happened" followed
# by what to do about it, and exits non-zero; nothing here ever deletes a
# commit in the kernel tree.

ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-$ROOT/build}
KSRC=${KSRC:-$BUILD/linux}        # the kernel tree: a git repository, student work
KOBJ=${KOBJ:-$BUILD/obj}          # kernel build output: disposable
LOGS=${LOGS:-$BUILD/logs}     # logs; a sandboxed build writes its own
TARBALL=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}
STEP=${STEP:-$(basename "$0" .sh)}

die() {
	printf '%s: error: %s\n' "$STEP" "$1" >&2
	shift
	for line in "$@"; do
		printf '%s:        %s\n' "$STEP" "$line" >&2
	done
	exit 1
}

info() {
	printf '%s: %s\n' "$STEP" "$*"
}

# The labs that exist: labs/NN-name, printed as "N title" per line (the
# title is the first line of the lab page labs/NN-name/index.rst).
list_labs() {
	for d in "$ROOT"/labs/[0-9][0-9]-*/; do
		[ -d "$d" ] || continue
		d=${d%/}
		t=$(sed -n '/^[A-Za-z0-9]/{s/^Lab [0-9]*: //;p;q}' "$d/index.rst" 2>/dev/null || true)
		d=${d##*/}
		printf '%d %s\n' "$(expr "${d%%-*}" + 0)" "${t:-${d#*-}}"
	done
}

# lab_dir N: the directory of lab N, or a clear error listing the labs.
lab_dir() {
	case "$1" in
	''|*[!0-9]*) lab_usage "${1:-(none)}" ;;
	esac
	d=$(ls -d "$ROOT"/labs/"$(printf '%02d' "$1")"-* 2>/dev/null | head -n 1)
	[ -n "$d" ] || lab_usage "$1"
	echo "$d"
}

lab_usage() {
	{
		if [ "$1" = "(none)" ]; then
			printf '%s: error: say which lab: make %s N\n' "$STEP" "$STEP"
		else
			printf '%s: error: there is no lab "%s".\n' "$STEP" "$1"
		fi
		printf 'The labs are:\n'
		list_labs | while read -r n name; do
			printf '  %d  %s\n' "$n" "$name"
		done
		printf 'For example: make %s 0\n' "$STEP"
	} >&2
	exit 2
}

# has_skeleton N: lab N has a skeleton (and so an open level).
has_skeleton() {
	ls "$(lab_dir "$1")"/skeleton/*.patch >/dev/null 2>&1
}

# state_before N: the commit lab N's skeleton applies to (the reference
# of the labs before it).
state_before() {
	if [ "$1" = 0 ]; then
		echo lab-base
	else
		sh "$ROOT/scripts/variant.sh" ref "$(($1 - 1))"
	fi
}

# worktree_at DIR COMMIT: a scratch worktree of the kernel tree at DIR,
# detached at COMMIT (made on first use; later, only the files that differ
# are rewritten, so builds in it stay incremental).
worktree_at() {
	if [ ! -d "$1" ]; then
		info "making the scratch worktree ${1#$ROOT/} ..."
		mkdir -p "$(dirname "$1")"
		git -C "$KSRC" worktree prune
		git -C "$KSRC" worktree add -q --detach "$1" "$2"
	else
		git -C "$1" checkout -q --detach --force "$2"
	fi
}

# base_initramfs: the path of the guest's base initramfs (busybox,
# e2fsprogs, /init), made again when vm/ has changed since it was made.
base_initramfs() {
	base="$BUILD/initramfs/base.cpio"
	mkdir -p "$BUILD/initramfs"
	if [ ! -f "$base" ] || [ -n "$(find "$ROOT/vm" "$ROOT/scripts/gen-init-cpio.sh" \
		-newer "$base" -print -quit)" ]; then
		sh "$ROOT/vm/mkinitramfs.sh" "$base" >&2
	fi
	echo "$base"
}

# rerun_suites FILE N CHECKS: the suite lines of lab N's "rerun" file.  A
# lab may run check programs of earlier labs again under its own name, with
# one variable set (lab 6 runs those of labs 2-5 on ext4).  Each line:
# SUFFIX LAB PROGRAM VAR=VALUE, giving the suite lab<N>_SUFFIX, which runs
# CHECKS/lab<LAB>/PROGRAM (already built) with VAR=VALUE in its environment.
rerun_suites() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1" |
	while read -r suffix from prog setting extra; do
		case "$suffix:$from:$setting:$extra" in
		[a-z]*:[0-9]*:[A-Z]*=*:) ;;
		*) die "$1: bad line \"$suffix $from $prog $setting $extra\"" \
			"(want: SUFFIX LAB PROGRAM VAR=VALUE, e.g." \
			"ext4_dax_io 2 dax_io DAXLAB_FS=ext4)." ;;
		esac
		[ "$from" -lt "$2" ] && [ -x "$3/lab$from/$prog" ] ||
			die "$1: lab $from is not an earlier lab with a check program $prog."
		echo "lab${2}_$suffix:prog:/checks/lab$from/$prog:$setting"
	done
}

# result_name ID: the file name of a submission's results and unit
# (build/results/NAME.row, build/grade/units/NAME): / and anything unusual
# made _.  grade-merge.py and grade-pool.py spell it the same way.
result_name() {
	printf '%s' "$1" | tr -c 'A-Za-z0-9_.+-' _
}

need_tree() {
	[ -e "$KSRC/.git" ] || die "the kernel tree $KSRC does not exist yet." \
		"Run: make tree   (or any make check-lab N, which creates it)"
}

# The lab the kernel tree is on (branch labN), 0 when it is on none.
current_lab() {
	b=$(git -C "$KSRC" symbolic-ref --short -q HEAD 2>/dev/null || true)
	case "$b" in
	lab[0-9]*) b=${b#lab} && echo "${b%%-*}" ;;	# labN, labN-open
	*) echo 0 ;;
	esac
}

# Result lines of the project's own proofs (prove-labs, mutants): TAP-like
# "ok - ..." / "not ok - ...", counted, and a closing count.
passed=0
failed=0
ok() {
	echo "ok - $*"
	passed=$((passed + 1))
}
not_ok() {
	echo "not ok - $*"
	failed=$((failed + 1))
}
summary() {	# what
	echo "$1: $passed passed, $failed failed"
	[ "$failed" = 0 ]
}

# judge REPORT N skel: say how the skeleton did; 0 if as it must be.  A
# lab's "observations" file names checks of its own that look at what the
# earlier labs built: they count as checks of the earlier labs.  Its
# "reopens" file names checks of earlier labs whose code its skeleton
# takes out for its TODOs to put back: they count as its own, and must
# fail on its skeleton.
# unexplained REPORT: the FAIL blocks of a report that do not open with
# what was expected, what was seen and where to look (the "expected:",
# "seen:" and "hint:" lines), one "name: its first line" per line.
unexplained() {
	awk '
	function done() {
		if (name != "" && !(first ~ /^expected: / && seen && hint))
			print name ": " (first == "" ? "(no explanation)" : first)
		name = ""
	}
	/^[A-Z]/ { done() }
	/^FAIL / { name = $2; first = ""; seen = hint = 0; n = 0; next }
	name != "" && /^        / {
		line = substr($0, 9)
		if (++n == 1) first = line
		if (n <= 3 && line ~ /^seen: /) seen = 1
		if (n <= 4 && line ~ /^hint: /) hint = 1
	}
	END { done() }' "$1"
}

judge() {
	obs=$(lab_dir "$2")/observations
	[ -f "$obs" ] || obs=/dev/null
	reopens=$(lab_dir "$2")/reopens
	[ -f "$reopens" ] || reopens=/dev/null
	awk -v n="$2" -v mode="$3" '
	function glob(g) {
		gsub(/\./, "\\.", g)
		gsub(/\*/, ".*", g)
		gsub(/\?/, ".", g)
		return "^" g "$"
	}
	FILENAME == ARGV[1] || FILENAME == ARGV[2] {
		sub(/#.*/, "")
		if (NF && FILENAME == ARGV[1])
			observed[++nobs] = glob($1)
		else if (NF)
			reopened[++nre] = glob($1)
		next
	}
	/^(PASS|FAIL|SKIP|NOT RUN) / {
		v = $1; name = $2
		if (v == "NOT") { v = "NOT RUN"; name = $3 }
		lab = -1
		if (match(name, /^lab[0-9]+_/))
			lab = substr(name, 4, RLENGTH - 4) + 0
		for (i = 1; i <= nobs; i++)
			if (name ~ observed[i])
				lab = -1
		for (i = 1; i <= nre; i++)
			if (name ~ reopened[i])
				lab = n
		if (lab == n) {
			own++
			if (v == "PASS") ownpass = ownpass " " name
		} else {
			other++
			if (v != "PASS" && v != "SKIP") otherbad = otherbad " " name
		}
	}
	END {
		if (own == 0) { print "no check of lab " n " ran"; exit 1 }
		if (mode == "skel") {
			if (ownpass != "" || otherbad != "") {
				if (ownpass != "") print "passes on the skeleton:" ownpass
				if (otherbad != "") print "earlier labs fail:" otherbad
				exit 1
			}
			printf "its %d checks fail, the %d others pass\n", own, other
		}
	}' "$obs" "$reopens" "$1"
}
