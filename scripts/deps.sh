#!/bin/sh
# Make sure the Debian packages a target needs are installed.
# As root: install what is missing (apt-get update first).  Otherwise:
# print the exact command to run, and stop.
# Usage: deps.sh core|docs|bench|slurm
set -eu
STEP=deps
. "$(dirname "$0")/lib.sh"

core="make gcc libc6-dev git flex bison bc libelf-dev libssl-dev ccache cpio bubblewrap
xz-utils kmod python3 linux-source-6.1 qemu-system-x86 busybox-static
e2fsprogs"
docs="python3-sphinx graphviz chromium fonts-dejavu-core"
bench="gnuplot-nox"
slurm="slurm-wlm munge"

case "${1:-core}" in
core) want=$core ;;
docs) want="$core $docs" ;;
bench) want="$core $bench" ;;
slurm) want="$core $slurm" ;;
*) die "unknown package group '$1' (core, docs, bench or slurm)" ;;
esac

command -v dpkg-query >/dev/null 2>&1 ||
	die "this is not a Debian system (no dpkg-query)." \
		"The lab is made for Debian 12; install by hand: $want"
missing=""
for p in $want; do
	s=$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$s" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	die "these Debian packages are missing:$missing" \
		"Install them, then run the same make command again:" \
		"  sudo apt-get update && sudo apt-get install -y --no-install-recommends$missing"
fi
info "installing:$missing"
log="$BUILD/logs/apt.log"
mkdir -p "$BUILD/logs"
if ! { apt-get update && DEBIAN_FRONTEND=noninteractive \
	apt-get install -y --no-install-recommends $missing; } >"$log" 2>&1; then
	tail -n 15 "$log" >&2
	die "apt-get failed (the end of its output is above; all of it: $log)." \
		"Fix what it says, then run the same make command again."
fi
