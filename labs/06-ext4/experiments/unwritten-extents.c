// SPDX-License-Identifier: GPL-2.0
/*
 * What it shows: fallocate(), then a write() and a store: FIEMAP, stale bytes, jbd2 commits
 *
 * The program makes ext4 on /dev/pmem0, mounts it with dax (and
 * commit=300, so that only fsync() commits), and fallocate()s blocks 0-63
 * of a new file.  Then, through the block device (O_DIRECT), it puts 0xa5
 * over blocks 10, 20 and 30, as another file's old data would be there.
 * It writes 100 bytes into block 10 with write(), loads and then stores a
 * byte of block 20 through a shared mapping, loads from block 30, and
 * calls fsync().  After each step it prints the file's extents (FIEMAP, in
 * blocks: unwritten or written), what read() and the device hold in the
 * blocks it touched, and how many transactions the journal has committed
 * since the file was made (the first number in /proc/fs/jbd2/pmem0-8/info).
 *
 * Run it in the lab VM, on lab 6's kernel or a later one:
 *
 *	make experiment NAME=unwritten-extents
 *	make experiment NAME=unwritten-extents ARGS='-d /dev/ram0'
 *	make experiment NAME=unwritten-extents ARGS='-o dax'
 *
 * Options: -d DEV (default /dev/pmem0), -o MOUNT-OPTIONS (default
 * dax,commit=300).  With -o dax the journal thread commits every 5 s
 * again; -o commit=300 goes through the page cache, where the extents
 * and the device change only when fsync() writes the pages back.
 *
 * Things to change: LEN_BLKS 8 with W_BLK 2, S_BLK 5 and U_BLK 7: ext4
 * then writes zeroes over the rest of a small extent rather than split it
 * three ways (extent_max_zeroout_kb in /sys/fs/ext4/<dev>/, 32 KiB by
 * default): which blocks lose their 0xa5?  A store with no load before
 * it; fdatasync() instead of fsync().
 */
#include <limits.h>

#include "experiment.h"

#define LEN_BLKS 64	/* the blocks fallocate()d, at most 64 */
#define W_BLK 10	/* the block write() writes to */
#define W_AT 7		/* ... from this byte, 100 bytes of 'W' */
#define S_BLK 20	/* the block loaded, then stored to, through the mapping */
#define S_AT 123	/* ... at this byte, 'S' */
#define U_BLK 30	/* a block never written */
#define STALE 0xa5	/* what the device holds under the unwritten blocks */

static char jbd2_info[PATH_MAX + 32];
static const char *jbd2_dev;	/* "pmem0": the journal's device */
static long commits_at_start;
static int devfd;
static unsigned char *devbuf;	/* one block, aligned for O_DIRECT */
static long long phys[LEN_BLKS];	/* device byte of each file block */

/* Transactions the journal has committed since the mount, once counted, or -1. */
static long commits(void)
{
	return jbd2_commits_settled(jbd2_dev);
}

static void print_extents(int fd)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent fe[16];
	} map;

	memset(&map, 0, sizeof(map));
	map.fm.fm_length = LEN_BLKS * BLK;
	map.fm.fm_extent_count = 16;
	if (ioctl(fd, FS_IOC_FIEMAP, &map.fm))
		exp_die("FIEMAP");
	printf("  extents:");
	if (!map.fm.fm_mapped_extents)
		printf(" none");
	for (unsigned int i = 0; i < map.fm.fm_mapped_extents; i++) {
		struct fiemap_extent *e = &map.fe[i];

		printf("%s [%llu, %llu) %s", i ? "," : "",
		       (unsigned long long)e->fe_logical / BLK,
		       (unsigned long long)(e->fe_logical + e->fe_length) / BLK,
		       e->fe_flags & FIEMAP_EXTENT_UNWRITTEN ? "unwritten" : "written");
	}
	printf("\n");
}

/* The extents and the commits, after a step. */
static void after(int fd)
{
	print_extents(fd);
	if (commits_at_start < 0)
		printf("  no journal statistics in %s\n", jbd2_info);
	else
		printf("  jbd2 commits since the file was made: %ld\n",
		       commits() - commits_at_start);
}

static long count(const unsigned char *p, unsigned char c)
{
	long n = 0;

	for (long i = 0; i < BLK; i++)
		n += p[i] == c;
	return n;
}

static const char *s(long n)
{
	return n == 1 ? "" : "s";
}

/* What read() and the device hold in file block blk. */
static void show_block(int fd, long blk)
{
	unsigned char buf[BLK];
	long zeros, stale;

	if (pread_all(fd, buf, BLK, blk * BLK))
		exp_die("read");
	zeros = count(buf, 0);
	stale = count(buf, STALE);
	printf("  block %ld: read() gives %ld zero%s, %ld byte%s 0x%02x, %ld other byte%s;",
	       blk, zeros, s(zeros), stale, s(stale), STALE, BLK - zeros - stale,
	       s(BLK - zeros - stale));
	if (pread_all(devfd, devbuf, BLK, phys[blk]))
		exp_die("read the device");
	stale = count(devbuf, STALE);
	printf(" the device has %ld byte%s 0x%02x\n", stale, s(stale), STALE);
}

static const char *load(unsigned char *p, int *failed)
{
	static char text[8];
	unsigned char c;

	if (daxfs_touch(p, 0, 0, &c)) {
		*failed = 1;
		return "SIGBUS";
	}
	snprintf(text, sizeof(text), "0x%02x", c);
	return text;
}

int main(int argc, char **argv)
{
	struct exp_fs where = { "ext4", "/dev/pmem0", "dax,commit=300" };
	char real[PATH_MAX], w[100];
	const long blks[3] = { W_BLK, S_BLK, U_BLK };
	const char *name;
	unsigned char *p;
	int fd, failed = 0;

	exp_fs_from_args(argc, argv, &where);
	name = realpath(where.dev, real) ? real : where.dev;
	name = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	snprintf(jbd2_info, sizeof(jbd2_info), "/proc/fs/jbd2/%s-8/info", name);
	jbd2_dev = name;
	daxfs_catch_sigbus();

	fd = open(MNT "/f", O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		exp_die("create " MNT "/f");
	commits_at_start = commits();
	printf(MNT "/f: a DAX file: %s; commits counted in %s\n",
	       is_dax(MNT "/f") == 1 ? "yes" : "no", jbd2_info);

	printf("\nfallocate() of blocks 0-%d:\n", LEN_BLKS - 1);
	if (fallocate(fd, 0, 0, LEN_BLKS * BLK))
		exp_die("fallocate");
	after(fd);

	devfd = open(where.dev, O_RDWR | O_DIRECT);
	if (devfd < 0)
		exp_die(where.dev);
	if (posix_memalign((void **)&devbuf, BLK, BLK))
		exp_die("posix_memalign");
	printf("0x%02x written over blocks %d, %d and %d through %s with O_DIRECT\n",
	       STALE, W_BLK, S_BLK, U_BLK, where.dev);
	for (int i = 0; i < 3; i++) {
		phys[blks[i]] = fiemap_physical(fd, blks[i] * BLK);
		if (phys[blks[i]] < 0) {
			errno = ENXIO;
			exp_die("FIEMAP: a fallocate()d block is not there");
		}
		memset(devbuf, STALE, BLK);
		if (pwrite_all(devfd, devbuf, BLK, phys[blks[i]]))
			exp_die("write the device");
		show_block(fd, blks[i]);
	}

	p = daxfs_map(fd, LEN_BLKS * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	if (!p)
		exp_die("mmap(MAP_SHARED)");
	printf("\nload through the mapping, block %d byte %d: %s", S_BLK, S_AT,
	       load(p + S_BLK * BLK + S_AT, &failed));
	printf("; block %d in the page cache: %s\n", S_BLK,
	       exp_in_page_cache(fd, S_BLK, LEN_BLKS));

	printf("\nwrite() of %zu bytes 'W' at block %d byte %d:\n", sizeof(w), W_BLK, W_AT);
	memset(w, 'W', sizeof(w));
	if (pwrite_all(fd, w, sizeof(w), W_BLK * BLK + W_AT))
		exp_die("write");
	after(fd);
	show_block(fd, W_BLK);

	printf("\nstore of 'S' through the mapping at block %d byte %d:\n", S_BLK, S_AT);
	if (daxfs_touch(p + S_BLK * BLK + S_AT, 1, 'S', NULL)) {
		printf("  SIGBUS\n");
		failed = 1;
	}
	after(fd);
	show_block(fd, S_BLK);
	printf("  block %d in the page cache: %s\n", S_BLK,
	       exp_in_page_cache(fd, S_BLK, LEN_BLKS));

	printf("\nblock %d, never written; a load through the mapping: %s\n", U_BLK,
	       load(p + U_BLK * BLK, &failed));
	show_block(fd, U_BLK);

	printf("\nfsync():\n");
	if (fsync(fd))
		exp_die("fsync");
	after(fd);

	munmap(p, LEN_BLKS * BLK);
	close(fd);
	close(devfd);
	free(devbuf);
	if (umount(MNT))
		exp_die("umount " MNT);
	return failed;
}
