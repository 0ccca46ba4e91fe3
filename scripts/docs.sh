#!/bin/sh
# make docs: the Sphinx site, warnings as errors, into build/docs
# (INSTRUCTOR=1 adds the solutions/ notes).
set -eu
STEP=docs
. "$(dirname "$0")/lib.sh"
sh "$ROOT/scripts/deps.sh" docs
out="$BUILD/docs"
[ -n "${INSTRUCTOR:-}" ] && [ "${INSTRUCTOR}" != 0 ] && out="$BUILD/docs-instructor"
rm -rf "$out"
sphinx-build -W --keep-going -q -b html -d "$BUILD/doctrees" "$ROOT" "$out" ||
	die "the docs did not build (warnings count as errors; see above)."
info "the site is in ${out#$ROOT/}/index.html"
