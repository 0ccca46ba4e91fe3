#!/bin/sh
# Pack the base initramfs of the lab VM: busybox (static), e2fsprogs
# (mke2fs, e2fsck, debugfs, tune2fs, dumpe2fs, with the shared libraries
# they need), and /init.  The checks and the per-boot configuration are
# separate archives, appended by vm/labvm/qemu.py (the kernel unpacks a
# concatenation of cpio archives in order).
# Usage: mkinitramfs.sh OUTPUT.cpio
set -eu
STEP=initramfs
. "$(dirname "$0")/../scripts/lib.sh"
out=$1
gen="$BUILD/tools/gen_init_cpio"
[ -x "$gen" ] || sh "$ROOT/scripts/gen-init-cpio.sh"

list="$out.list"
{
	for d in /bin /sbin /usr /usr/bin /usr/sbin /lib /lib64 \
		/lib/x86_64-linux-gnu /etc /dev /proc /sys /tmp /mnt /run \
		/run/labvm /checks /root; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /init $ROOT/vm/init 0755 0 0"
	echo "file /bin/busybox $(command -v busybox || echo /bin/busybox) 0755 0 0"
	echo "file /etc/mke2fs.conf /etc/mke2fs.conf 0644 0 0"
	echo "file /etc/profile $ROOT/vm/profile 0644 0 0"
	# Debian's busybox-static runs its own applets before anything in
	# PATH, and it has a small mke2fs of its own: give the real one the
	# names busybox lacks, and aliases in /etc/profile for the rest.
	echo "slink /usr/sbin/mkfs.ext2 /usr/sbin/mke2fs 0777 0 0"
	echo "slink /usr/sbin/mkfs.ext4 /usr/sbin/mke2fs 0777 0 0"
	echo "slink /usr/sbin/fsck.ext2 /usr/sbin/e2fsck 0777 0 0"
	echo "slink /usr/sbin/fsck.ext4 /usr/sbin/e2fsck 0777 0 0"
	libs=""
	for p in mke2fs e2fsck debugfs tune2fs dumpe2fs; do
		bin=$(PATH=/usr/sbin:/sbin:$PATH command -v "$p") ||
			die "$p is missing: apt-get install e2fsprogs"
		echo "file /usr/sbin/$p $bin 0755 0 0"
		libs="$libs $(ldd "$bin" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p')"
	done
	for l in $(printf '%s\n' $libs | sort -u); do
		real=$(readlink -f "$l")
		case "$l" in
		/lib64/*) echo "file $l $real 0755 0 0" ;;
		*) echo "file /lib/x86_64-linux-gnu/${l##*/} $real 0755 0 0" ;;
		esac
	done
} >"$list"
bb=$(command -v busybox) || die "busybox is missing: apt-get install busybox-static"
ldd "$bb" >/dev/null 2>&1 &&
	die "$(command -v busybox) is dynamically linked." \
		"Install the static one: apt-get install busybox-static"
"$gen" "$list" >"$out.tmp" || die "gen_init_cpio failed on $list"
mv "$out.tmp" "$out"
