// SPDX-License-Identifier: GPL-2.0
/*
 * What it shows: what becomes of bytes stored through a mapping past EOF when the file grows
 *
 * For each way a file can grow, the program makes a new 1-byte file, maps
 * its page with MAP_SHARED, and stores 0xee through the mapping into bytes
 * 1-4095: past the end of file, inside the page.  Then it grows the file:
 * with ftruncate() to 8192 bytes, with a 1-byte write() at 2000 (inside
 * the old last block), with a 1-byte write() at 4196 (in the next block),
 * and with fallocate() of [0, 8192) (ext4 only).  It prints how many of
 * the stored bytes are inside the file now, and how many of those read
 * back as 0xee, by read() and through the mapping; and, when the file
 * still ends inside the page, how many bytes past the new end of file the
 * mapping still shows as 0xee.
 *
 * Run it in the lab VM:
 *
 *	make experiment NAME=store-past-eof
 *	make experiment NAME=store-past-eof ARGS='-o none'
 *	make experiment NAME=store-past-eof ARGS='-t ext4'
 *
 * Options: -t ext2|ext4 (default ext2; ext4 from lab 6), -d DEV (default
 * /dev/pmem0), -o MOUNT-OPTIONS (default dax; none mounts without options,
 * through the page cache).
 *
 * Things to change: take your TODO 4 out of ext2_dax_write_iter(), or
 * zero from newsize in ext2_setsize() (TODO 3), and run it again; store
 * one byte only, at 3000, and write at 2000; grow with
 * fallocate(FALLOC_FL_ZERO_RANGE) or FALLOC_FL_KEEP_SIZE (ext4); with
 * -o none, sleep(40) between the stores and the growth, so that writeback
 * (every 30 s or so) writes the page first.
 */
#include <linux/falloc.h>

#include "experiment.h"

#define STORED 0xee	/* what the stores put past EOF */

enum way { BY_FTRUNCATE, BY_WRITE_IN_THE_BLOCK, BY_WRITE_IN_THE_NEXT, BY_FALLOCATE, WAYS };

static const struct {
	const char *what;
	long at;	/* the byte the growth writes, or -1 */
} ways[WAYS] = {
	[BY_FTRUNCATE] = { "ftruncate() to 8192 bytes", -1 },
	[BY_WRITE_IN_THE_BLOCK] = { "write() of 1 byte at 2000, in the old last block", 2000 },
	[BY_WRITE_IN_THE_NEXT] = { "write() of 1 byte at 4196, in the next block", BLK + 100 },
	[BY_FALLOCATE] = { "fallocate() of [0, 8192)", -1 },
};

static int grow(int fd, enum way way)
{
	switch (way) {
	case BY_FTRUNCATE:
		return ftruncate(fd, 2 * BLK);
	case BY_FALLOCATE:
		return fallocate(fd, 0, 0, 2 * BLK);
	default:
		return pwrite_all(fd, "W", 1, ways[way].at);
	}
}

/* One way: store past EOF, grow, count.  0, or 1 if a store failed. */
static int try_way(enum way way)
{
	long inside = 0, by_read = 0, by_map = 0, past = 0, past_shown = 0;
	unsigned char page[BLK], *p;
	struct stat st;
	int fd;

	fd = open(MNT "/f", O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		exp_die("create " MNT "/f");
	if (pwrite_all(fd, "A", 1, 0))
		exp_die("write byte 0");
	p = daxfs_map(fd, BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	if (!p)
		exp_die("mmap(MAP_SHARED)");
	printf("%s: ", ways[way].what);
	if (daxfs_touch(p + 1, 1, STORED, NULL)) {
		printf("SIGBUS on the store at byte 1\n");
		munmap(p, BLK);
		close(fd);
		return 1;
	}
	memset(p + 1, STORED, BLK - 1);

	if (grow(fd, way)) {
		printf("%s\n", strerror(errno));	/* ext2 has no fallocate() */
		goto out;
	}
	if (fstat(fd, &st))
		exp_die("fstat");
	printf("size %lld\n", (long long)st.st_size);

	memset(page, 0, sizeof(page));
	if (pread(fd, page, BLK, 0) < 0)
		exp_die("read");
	for (long i = 1; i < BLK; i++) {
		if (i == ways[way].at)
			continue;	/* the growth's own byte */
		if (i < st.st_size) {
			inside++;
			by_read += page[i] == STORED;
			by_map += p[i] == STORED;
		} else {
			past++;
			past_shown += p[i] == STORED;
		}
	}
	printf("  %ld stored bytes now inside EOF:", inside);
	printf(" read() sees %ld of them as 0x%02x, the mapping %ld\n", by_read, STORED, by_map);
	if (past) {
		printf("  %ld stored bytes still past EOF:", past);
		printf(" the mapping shows %ld of them as 0x%02x\n", past_shown, STORED);
	}
out:
	munmap(p, BLK);
	close(fd);
	if (unlink(MNT "/f"))
		exp_die("unlink " MNT "/f");
	return 0;
}

int main(int argc, char **argv)
{
	struct exp_fs where = { "ext2", "/dev/pmem0", "dax" };
	int fd, failed = 0;

	exp_fs_from_args(argc, argv, &where);
	daxfs_catch_sigbus();
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	if (fd < 0)
		exp_die("create " MNT "/f");
	close(fd);
	printf(MNT "/f: a DAX file: %s\n", is_dax(MNT "/f") == 1 ? "yes" : "no");
	printf("each time: a new 1-byte file, mapped with MAP_SHARED; 0x%02x stored through\n"
	       "the mapping into bytes 1-4095, past EOF; then the file grows\n", STORED);

	for (int way = 0; way < WAYS; way++) {
		printf("\n");
		failed |= try_way(way);
	}
	if (umount(MNT))
		exp_die("umount " MNT);
	return failed;
}
