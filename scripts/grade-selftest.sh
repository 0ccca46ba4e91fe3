#!/bin/sh
# make grade-selftest: see, on this machine, that the sandbox grading
# relies on (scripts/sandbox.sh) holds: each property is tried from the
# inside, the way a hostile submission would, and must fail there.
# Prints one line per property and "N passed, N failed".
set -u
STEP=grade-selftest
. "$(dirname "$0")/lib.sh"
sh "$ROOT/scripts/deps.sh" core || exit 1
sh "$ROOT/scripts/sandbox.sh" probe || exit 1
[ "${UNSANDBOXED:-0}" = 0 ] ||
	die "UNSANDBOXED=1 is set: there is no sandbox to test.  Unset it."
mkdir -p "$BUILD/grade"
work=$(mktemp -d "$BUILD/grade/selftest.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -p "$work/rw" "$work/ro"
echo data >"$work/ro/file"
owner=$(sh "$ROOT/scripts/sandbox.sh" owner)
[ -z "$owner" ] || chown "$owner" "$work/rw"

# box [limits...] -- command: run in a sandbox like a submission's build
box() {
	sh "$ROOT/scripts/sandbox.sh" --ro "$ROOT/scripts" --ro "$work/ro" \
		--rw "$work/rw" "$@"
}
# exits STATUS COMMAND...: the command ends with that exit status
exits() {
	want=$1
	shift
	"$@"
	rc=$?
	[ "$rc" = "$want" ] || echo "exit status $rc, expected $want"
	[ "$rc" = "$want" ]
}
# holds NAME COMMAND...: the property holds when the command succeeds
holds() {
	name=$1
	shift
	if "$@" >"$work/out" 2>&1; then
		ok "$name"
	else
		not_ok "$name"
		sed 's/^/    /' "$work/out" | tail -n 5
	fi
}

holds "the sandbox starts and runs a command" box -- true
holds "the toolchain a kernel build needs runs inside (cc, as, ld, make, awk)" box -- \
	sh -c 'printf "int main(void) { return 0; }\n" >/tmp/a.c && cc -o /tmp/a /tmp/a.c &&
		/tmp/a && make --version >/dev/null && awk "BEGIN { exit 0 }"'
holds "inside, the uid is 65534, not root" box -- sh -c '[ "$(id -u)" = 65534 ]'
if [ "$(id -u)" = 0 ]; then
	# no user namespace: the uid inside is the uid on the host
	holds "on the host too, its processes run as uid 65534 (nobody), not root" \
		box -- sh -c '[ "$(id -u)" = 65534 ] && grep -Eq "^ +0 +0 +4294967295$" /proc/self/uid_map'
	holds "with no capabilities, and no way to gain any" box -- \
		sh -c 'grep -Eq "^CapBnd:\s+0+$" /proc/self/status && grep -Eq "^CapEff:\s+0+$" /proc/self/status && grep -Eq "^NoNewPrivs:\s+1$" /proc/self/status'
fi
holds "no network but loopback" box -- \
	sh -c '[ "$(grep -c : /proc/net/dev)" = 1 ] && grep -q "lo:" /proc/net/dev'
holds "a PID namespace of its own: no host process is visible" box -- \
	sh -c '[ "$(ls -d /proc/[0-9]* | wc -l)" -lt 10 ]'
for p in $([ "${HOME:-/root}" = /root ] || echo "$HOME") /root /etc/passwd /etc/shadow /etc/ssh /var /home \
	"$ROOT/tests" "$ROOT/solutions" "$ROOT/kernel-patches" "$BUILD/linux" \
	"$BUILD/results" "$BUILD/logs"; do
	holds "$p is not visible" box -- sh -c '! [ -e "$1" ]' sh "$p"
done
holds "what it is shown read-only, it cannot change" box -- \
	sh -c '! echo x >>"$1/file" && ! rm -f "$1/file" && [ -f "$1/file" ]' sh "$work/ro"
holds "its writable directory is writable" box -- sh -c 'echo x >"$1/new"' sh "$work/rw"
# (builtins only once forks fail: the count goes to a file as it grows)
holds "a fork bomb stops at the process limit" box --procs 64 --wall 60 -- \
	sh -c '(n=0; while [ $n -lt 200 ]; do sleep 30 & n=$((n + 1)); echo $n >/tmp/n; done) 2>/dev/null
		read n </tmp/n; echo "forked $n of 200"; [ "$n" -ge 30 ] && [ "$n" -lt 64 ]'
holds "a file stops growing at the file size limit" box --fsize 8 -- \
	sh -c '! head -c 16M /dev/zero >"$1/big" && [ "$(wc -c <"$1/big")" -le 8388608 ]' sh "$work/rw"
holds "a tmpfs stops growing at its size" box --tmpfs /scratch 4 -- \
	sh -c 'head -c 2M /dev/zero >/scratch/small && ! head -c 8M /dev/zero >/scratch/big'
holds "a busy loop is killed at the CPU limit" exits 137 box --cpu 1 -- \
	sh -c 'while :; do :; done'
holds "memory stops at the address-space limit" box --mem 64 -- \
	sh -c '! head -c 128M /dev/zero | sort >/dev/null'
holds "a command that never ends is killed at the wall-clock limit" \
	exits 124 box --wall 2 -- sleep 60
# The lab runner starts QEMU's sandbox in a session of its own; if the
# runner is killed, its sandbox must not run on.  Kill only the timeout
# process at the top of a sandbox: nothing under it may survive, with
# bwrap and with UNSANDBOXED=1.
orphan() {
	marker="sleep 6$1.$$"	# a command line no other process has
	# shellcheck disable=SC2086
	setsid env ${2:-} sh "$ROOT/scripts/sandbox.sh" --wall 60 -- $marker 2>/dev/null &
	n=0
	until pgrep -f "^$marker" >/dev/null || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
	pgrep -f "^$marker" >/dev/null || { echo "the sandboxed command did not start"; return 1; }
	top=$(pgrep -f "^timeout .*$marker" | head -n 1)
	kill -KILL "$top"
	sleep 1
	left=$(pgrep -f "$marker")
	[ -z "$left" ] || { echo "left running: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ,)")"; kill -KILL $left; }
	[ -z "$left" ]
}
holds "a sandbox whose timeout is killed ends with it (no orphan)" orphan 1
holds "... and so does an unsandboxed run (UNSANDBOXED=1)" orphan 2 UNSANDBOXED=1
summary "$STEP"
