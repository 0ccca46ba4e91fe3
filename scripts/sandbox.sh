#!/bin/sh
# Run one command of a stranger's submission (its kernel build, or QEMU
# booting its kernel) in a bubblewrap sandbox:
#   - no network; new mount, PID, IPC, UTS and cgroup namespaces (and a
#     user namespace when not root);
#   - an unprivileged uid: "nobody" on the host when we are root (setpriv
#     inside the sandbox, below), the caller's own uid otherwise, seen as
#     65534 inside;
#   - nothing of the host but /usr (and the /bin, /lib symlinks into it),
#     a few files of /etc the toolchain reads, a minimal /dev, a private
#     /proc and a size-limited /tmp, plus the paths given below;
#   - limits: CPU seconds, address space, processes and file size per
#     process (prlimit), and wall-clock time (timeout, in the caller's
#     process group, so that stopping the caller's group stops it);
#   - no orphan: what runs under timeout is killed when timeout dies
#     (setpriv --pdeathsig), and bwrap's sandbox when bwrap dies
#     (--die-with-parent), so a SIGKILL to the caller's group ends it all.
# Usage:
#   sandbox.sh probe           exit 0 if a sandbox can be made here, else
#                              say why and how to enable it (exit 1)
#   sandbox.sh owner           the uid:gid to give what the sandbox must
#                              write (empty: the caller's own)
#   sandbox.sh [options] -- COMMAND...
#     --ro PATH               PATH visible, read-only
#     --ro-at SRC DEST        SRC visible at DEST, read-only
#     --rw PATH               PATH visible and writable
#     --tmpfs PATH MIB        an empty writable tmpfs of at most MIB MiB
#     --dev PATH              a device node of the host (/dev/kvm)
#     --env NAME=VALUE        set in the sandbox (the environment is
#                             otherwise cleared but for PATH, HOME, LANG)
#     --cpu SECS --mem MIB --procs N --fsize MIB --wall SECS   limits
#     --chdir DIR
# UNSANDBOXED=1: run COMMAND without bwrap (the limits still apply).  The
# caller marks what it produced as unsandboxed; this script says so too.
# DAXLAB_BWRAP: the bwrap program (the project's tests point it at one
# that fails, to see the refusal).
set -eu
STEP=sandbox
. "$(dirname "$0")/lib.sh"
BWRAP=${DAXLAB_BWRAP:-bwrap}
SANDBOX_UID=65534

# Who runs the command.  As root, bwrap runs privileged (no user
# namespace: it can bind any path, even under a private home), keeps for
# the sandbox's first process only what setpriv needs, and setpriv makes
# it nobody, with no capabilities, an empty bounding set and no way to
# gain privileges: a way out of the namespaces lands in uid 65534.  As
# another user, bwrap also makes a user namespace, and the command runs
# as the caller, seen as 65534 inside.
as_root() { [ "$(id -u)" = 0 ]; }
identity_args() {
	if as_root; then
		echo "--cap-add CAP_SETUID --cap-add CAP_SETGID --cap-add CAP_SETPCAP"
	else
		echo "--unshare-user --uid $SANDBOX_UID --gid $SANDBOX_UID"
	fi
}
become() {
	as_root && echo "setpriv --reuid=$SANDBOX_UID --regid=$SANDBOX_UID" \
		"--clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs --"
	return 0
}

base_args() {
	echo "--unshare-pid --unshare-net --unshare-ipc --unshare-uts --unshare-cgroup-try"
	echo "--die-with-parent --new-session --hostname sandbox"
	identity_args
	echo "--ro-bind /usr /usr --proc /proc --dev /dev"
	echo "--perms 1777 --size $((512 << 20)) --tmpfs /tmp"
	for l in bin sbin lib lib32 lib64 libx32; do
		if [ -L "/$l" ]; then
			echo "--symlink $(readlink "/$l") /$l"
		elif [ -d "/$l" ]; then
			echo "--ro-bind /$l /$l"
		fi
	done
	# What compilers, make and QEMU read from /etc: the loader's cache and
	# Debian's alternatives (cc, ld, ...).  Not passwd, not hosts.
	echo "--perms 0755 --dir /etc"
	for e in /etc/alternatives /etc/ld.so.cache /etc/ld.so.conf \
		/etc/ld.so.conf.d; do
		[ -e "$e" ] && echo "--ro-bind $e $e"
	done
}

why_not() {
	cat >&2 <<EOF
$STEP: error: bubblewrap cannot make a sandbox on this machine, so no
$STEP:        submission is built or booted.  It said:
$(sed 's/^/    /' "$1")
$STEP:        Grading runs a stranger's kernel code (its build and its VM);
$STEP:        it must not run with your privileges.  To enable the sandbox:
$STEP:          - install it: apt-get install bubblewrap
$STEP:          - allow user namespaces: sysctl -w user.max_user_namespaces=10000
$STEP:            (and, on kernels that have it, sysctl -w kernel.unprivileged_userns_clone=1)
$STEP:          - in a container: run it with user namespaces allowed (Docker:
$STEP:            --security-opt seccomp=unconfined --security-opt apparmor=unconfined)
$STEP:        Check it with: make grade-selftest
$STEP:        Or, knowing that the submission then runs as you, unsandboxed:
$STEP:          add UNSANDBOXED=1 (every result is then marked unsandboxed).
EOF
}

# owner: the uid:gid that must own what the sandbox writes (a log
# directory made beforehand), or nothing when that is the caller.
if [ "${1:-}" = owner ]; then
	[ "${UNSANDBOXED:-0}" = 0 ] && as_root && echo "$SANDBOX_UID:$SANDBOX_UID"
	exit 0
fi

if [ "${1:-}" = probe ]; then
	[ "${UNSANDBOXED:-0}" != 0 ] && exit 0
	err=$(mktemp)
	trap 'rm -f "$err"' EXIT
	if ! command -v "$BWRAP" >/dev/null 2>&1; then
		echo "$BWRAP: not installed" >"$err"
		why_not "$err"
		exit 1
	fi
	# shellcheck disable=SC2046
	if ! "$BWRAP" $(base_args) -- $(become) /usr/bin/true 2>"$err"; then
		why_not "$err"
		exit 1
	fi
	exit 0
fi

binds=""
visible=""
dests=""
envs=""
cpu=600 mem=4096 procs=512 fsize=1024 wall=3600 chdir=/
add() { binds="$binds $*"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--ro) add --ro-bind "$2" "$2"; visible="$visible $2"; shift 2 ;;
	--ro-at) add --ro-bind "$2" "$3"; visible="$visible $2 $3"; dests="$dests $3"; shift 3 ;;
	--rw) add --bind "$2" "$2"; visible="$visible $2"; shift 2 ;;
	--tmpfs) add --perms 0777 --size $(($3 << 20)) --tmpfs "$2"; visible="$visible $2"; shift 3 ;;
	--dev) add --dev-bind "$2" "$2"; shift 2 ;;
	--env) envs="$envs $2"; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--procs) procs=$2; shift 2 ;;
	--fsize) fsize=$2; shift 2 ;;
	--wall) wall=$2; shift 2 ;;
	--chdir) chdir=$2; shift 2 ;;
	--) shift; break ;;
	*) die "unknown option '$1' (see the usage at the top of scripts/sandbox.sh)" ;;
	esac
done
[ $# -gt 0 ] || die "no command given after --"
for p in $visible; do
	case "$p" in
	*[!A-Za-z0-9_./+-]*) die "the path '$p' has characters this script does not pass on." ;;
	esac
done

# The directories above every mount point, made readable by all first
# (bwrap would make them 0700 as root's, closed to the uid that runs the
# command); a later mount over one of them hides it.
parents=$(for d in $visible $dests; do
	while d=$(dirname "$d") && [ "$d" != / ]; do echo "$d"; done
done | sort -u | sed 's|^|--perms 0755 --dir |')

limits="--cpu=$cpu --as=$((mem << 20)) --nproc=$procs --fsize=$((fsize << 20)) --core=0"
if [ "${UNSANDBOXED:-0}" != 0 ]; then
	echo "sandbox: UNSANDBOXED=1: running the submission's code as $(id -un)," \
		"without a sandbox" >&2
	# shellcheck disable=SC2086
	exec timeout --foreground -k 10 "$wall" \
		setpriv --pdeathsig KILL -- prlimit $limits -- env $envs "$@"
fi
# shellcheck disable=SC2046,SC2086
exec timeout --foreground -k 10 "$wall" \
	setpriv --pdeathsig KILL -- prlimit $limits -- \
	"$BWRAP" $(base_args) $parents $binds \
	--chdir "$chdir" \
	--clearenv --setenv PATH /usr/sbin:/usr/bin:/sbin:/bin --setenv HOME /tmp \
	--setenv LANG C.UTF-8 \
	$(for e in $envs; do echo "--setenv ${e%%=*} ${e#*=}"; done) \
	-- $(become) "$@"
