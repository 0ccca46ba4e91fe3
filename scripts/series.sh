#!/bin/sh
# The reference series, kernel-patches/series: one "LAB FILE" per line,
# in order ("#" comments allowed).
# Usage: series.sh before N   -> the patch files of labs < N
#        series.sh upto N     -> the patch files of labs <= N
set -eu
. "$(dirname "$0")/lib.sh"
series="$ROOT/kernel-patches/series"
[ -f "$series" ] || exit 0
lim=$2
[ "$1" = upto ] && lim=$(($2 + 1))
sed -e 's/#.*//' "$series" | while read -r lab file; do
	[ -n "$lab" ] || continue
	n=${lab#lab}
	if [ "$n" -lt "$lim" ]; then
		[ -f "$ROOT/kernel-patches/$file" ] ||
			die "kernel-patches/series names $file, which does not exist."
		echo "$ROOT/kernel-patches/$file"
	fi
done
