#!/bin/sh
# make test's docs part: build the site (warnings are errors), check it in
# headless Chromium, and prove the check: a copy of the site with a dead
# link, a dead anchor and a broken diagram must give exactly those three.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
sh "$ROOT/scripts/docs.sh" || exit 1
python3 "$ROOT/tests/docs/check.py" "$BUILD/docs" "$BUILD/screenshots" || exit 1

bad=$(mktemp -d)
trap 'rm -rf "$bad"' EXIT
cp -r "$BUILD/docs" "$bad/site"
sed -i 's|</body>|<a href="nowhere.html">x</a><a href="docs/vm.html#no-such-anchor">y</a></body>|' \
	"$bad/site/index.html"
svg=$(grep -o '_images/graphviz-[0-9a-f]*\.svg' "$bad/site/docs/vm.html" | head -n 1)
printf '<svg xmlns="http://www.w3.org/2000/svg"><g' >"$bad/site/$svg"
out=$(python3 "$ROOT/tests/docs/check.py" "$bad/site" "$bad/shots" \
	index.html docs/vm.html)
rc=$?
n=$(printf '%s\n' "$out" | grep -c -e 'leads nowhere' -e 'no #no-such-anchor' -e 'does not render')
if [ "$rc" = 0 ] || [ "$n" != 3 ]; then
	echo "the docs check missed planted problems (exit $rc, found $n of 3):"
	printf '%s\n' "$out" | sed 's/^/    /'
	exit 1
fi
echo "the docs check finds a dead link, a dead anchor and a broken diagram"
