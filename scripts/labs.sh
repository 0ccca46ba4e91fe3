#!/bin/sh
# List the labs.
set -eu
. "$(dirname "$0")/lib.sh"
list_labs | while read -r n name; do
	printf '  %d  %s\n' "$n" "$name"
done
