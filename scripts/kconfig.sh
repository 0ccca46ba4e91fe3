#!/bin/sh
# Configure the kernel for lab N: tinyconfig + vm/lab.config + the
# kernel.config fragments of labs 0..N, then check that every option asked
# for is what the labs need.  Skipped when nothing it depends on changed.
# KCONFIG_EXTRA: more fragments, applied last (make bench's).
# Usage: kconfig.sh N
set -eu
STEP=kconfig
. "$(dirname "$0")/lib.sh"
need_tree
lab=${1:-0}

frags="$ROOT/vm/lab.config"
i=0
while [ "$i" -le "$lab" ]; do
	d=$(ls -d "$ROOT"/labs/"$(printf '%02d' "$i")"-* 2>/dev/null | head -n 1)
	if [ -n "$d" ] && [ -f "$d/kernel.config" ]; then
		frags="$frags $d/kernel.config"
	fi
	i=$((i + 1))
done
frags="$frags ${KCONFIG_EXTRA:-}"

mkdir -p "$KOBJ" "$LOGS"
stamp="$KOBJ/.daxlab-config-stamp"
want=$(cat $frags | sha256sum | cut -d' ' -f1)
if [ -f "$KOBJ/.config" ] && [ -f "$stamp" ] &&
	[ "$(cat "$stamp")" = "$want" ] &&
	[ -z "$(find "$KSRC" -name 'Kconfig*' -newer "$stamp" -print -quit)" ]; then
	exit 0
fi

info "configuring (tinyconfig + $(echo "$frags" | sed "s|$ROOT/||g"))"
log="$LOGS/kconfig.log"
{
	make -C "$KSRC" O="$KOBJ" tinyconfig &&
	cat $frags >"$KOBJ/daxlab.config" &&
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOBJ" \
		"$KOBJ/.config" "$KOBJ/daxlab.config" &&
	make -C "$KSRC" O="$KOBJ" olddefconfig
} >"$log" 2>&1 || {
	tail -n 30 "$log" >&2
	die "configuring the kernel failed; the full log is $log."
}

# Every requested value must have survived olddefconfig (a later fragment
# overrides an earlier one, as in merge_config.sh).
bad=$(cat $frags | sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)$/\1 \2/p' \
	-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1 n/p' |
awk '!($1 in v) { order[++n] = $1 } { v[$1] = $2 }
	END { for (i = 1; i <= n; i++) print order[i], v[order[i]] }' |
while read -r sym val; do
	got=$(sed -n -e "s/^$sym=\(.*\)$/\1/p" \
		-e "s/^# $sym is not set$/n/p" "$KOBJ/.config")
	[ -z "$got" ] && got=n
	[ "$got" = "$val" ] || echo "  $sym: asked for $val, got $got"
done)
if [ -n "$bad" ]; then
	rm -f "$stamp"
	printf '%s\n' "$bad" >&2
	die "the kernel configuration is not what the labs need (above)." \
		"Kconfig did not grant these: a dependency is missing from the" \
		"fragments ($(echo "$frags" | sed "s|$ROOT/||g")), or another" \
		"option selects them.  To see why: make -C build/linux O=../obj" \
		"menuconfig, search for the symbol (/), read \"Depends on\" and \"Selected by\"."
fi
echo "$want" >"$stamp"
