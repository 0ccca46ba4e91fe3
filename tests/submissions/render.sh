#!/bin/sh
# The submissions of tests/submissions, ready to grade, in OUTDIR: @CANARY@
# in a hostile one becomes the path of the canary directory CANARY.
# Usage: render.sh OUTDIR CANARY
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$1"
mkdir -p "$1"
for f in "$here"/*.patch "$here"/*.mbox; do
	sed "s|@CANARY@|$2|g" "$f" >"$1/${f##*/}"
done
