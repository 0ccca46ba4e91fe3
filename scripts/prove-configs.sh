#!/bin/sh
# The whole reference series must build in the configurations a distribution
# would use, not only in the lab's:
#   modules  ext2, ext4 and XFS as modules (Debian builds XFS as one): every
#            fs/dax.c function that a filesystem calls behind IS_DAX() must
#            exist and be exported once IS_DAX() can be true on this core;
#            modpost says which are missing
#   no-core  CONFIG_FS_DAX_BH off: the labs' code must compile away
# Each is built from the reference of the last lab, in the scratch worktree
# build/grade/linux, in build/grade/obj-configs (the lab's own build/grade/obj
# is left as it is).  Usage: prove-configs.sh
set -u
STEP=prove-configs
. "$(dirname "$0")/lib.sh"
need_tree
last=$(list_labs | tail -n 1 | cut -d' ' -f1)
commit=$(sh "$ROOT/scripts/variant.sh" ref "$last") || exit 1
wt="$BUILD/grade/linux"
worktree_at "$wt" "$commit"
frags="$BUILD/grade/configs"
mkdir -p "$frags" "$LOGS"
printf '%s\n' CONFIG_EXT2_FS=m CONFIG_EXT4_FS=m CONFIG_XFS_FS=m >"$frags/modules"
printf '%s\n' '# CONFIG_FS_DAX_BH is not set' >"$frags/no-core"
for c in modules no-core; do
	log="$LOGS/prove-configs-$c.log"
	if KSRC=$wt KOBJ="$BUILD/grade/obj-configs" LOGS="$LOGS/configs-$c" \
		KCONFIG_EXTRA="$frags/$c" sh "$ROOT/scripts/build.sh" "$last" >"$log" 2>&1; then
		ok "the lab $last reference builds with $(sed 's/^# //' "$frags/$c" | tr '\n' ' ')"
	else
		not_ok "the lab $last reference does not build with" \
			"$(sed 's/^# //' "$frags/$c" | tr '\n' ' ')(log: ${log#$ROOT/}):"
		grep -E 'error|ERROR|undefined' "$log" | head -n 15 | sed 's/^/    /'
	fi
done
summary "configurations"
