// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 5, black box: when a dax file's size changes inside a block, the
 * rest of that block is zeroed on the device (dax_bh_truncate_page()).
 *
 * What is checked: bytes past a cut read zero through read() and through
 * a mapping, also after a remount; the last page of a mapped file shows
 * zeros past EOF after a truncate; bytes stored through a mapping past EOF
 * do not become file data when the file grows, by ftruncate() or by a
 * write() in the old last block or past it; truncating inside a hole
 * allocates nothing; and a seeded model of random truncates, writes and
 * mapped stores, on a device first filled with a pattern, never shows a
 * byte the file does not hold.  Every workload ends with e2fsck -fn.
 */
#include <time.h>

#include "labcheck.h"
#include "daxfs.h"

#define HINT_TRUNC "ext2_setsize() (TODO 3) calls dax_bh_truncate_page() (TODO 2), " \
		   "which zeroes with dax_bh_zero_page_range() (TODO 1), fs/dax_bh.c"

DAX_DEVICE_FIXTURE(zero)

TEST_F(zero, cut_bytes_read_zero_after_extending)
{
	static unsigned char buf[2 * BLK];
	unsigned char *p;
	long bad;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	pattern(buf, sizeof(buf), 1, 0);
	ASSERT_EQ(0, pwrite_all(fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, ftruncate(fd, 1000));
	ASSERT_EQ(0, ftruncate(fd, 2 * BLK));

	ASSERT_EQ(0, pread_all(fd, buf, sizeof(buf), 0));
	bad = first_nonzero(buf + 1000, BLK - 1000);
	CHECK_THAT(bad < 0, EXPECTED("zeros from byte 1000 (the cut) to 4095, by read()"),
		   SEEN("%#x at byte %ld", buf[1000 + bad], 1000 + bad), HINT(HINT_TRUNC));
	p = daxfs_map(fd, 2 * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_NE(NULL, p);
	bad = first_nonzero(p + 1000, BLK - 1000);
	CHECK_THAT(bad < 0, EXPECTED("zeros from byte 1000 to 4095, through a mapping"),
		   SEEN("%#x at byte %ld", p[1000 + bad], 1000 + bad), HINT(HINT_TRUNC));
	munmap(p, 2 * BLK);
	close(fd);

	/* on the device, not in some cache: still zero after a remount */
	ASSERT_EQ(0, umount(MNT));
	ASSERT_EQ(0, mount_fs(self->dev, "dax"));
	fd = open(MNT "/f", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pread_all(fd, buf, BLK, 0));
	bad = first_nonzero(buf + 1000, BLK - 1000);
	CHECK_THAT(bad < 0, EXPECTED("the zeros still there after a remount"),
		   SEEN("%#x at byte %ld", buf[1000 + bad], 1000 + bad),
		   HINT("zero on the device: dax_bh_zero() the block's memory"));
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

TEST_F(zero, eof_page_of_a_mapping_shows_zeros_after_truncate)
{
	static unsigned char buf[BLK];
	unsigned char *p;
	long bad;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	pattern(buf, sizeof(buf), 2, 0);
	ASSERT_EQ(0, pwrite_all(fd, buf, sizeof(buf), 0));
	p = daxfs_map(fd, BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_NE(NULL, p);
	CHECK_THAT(p[3000] == buf[3000], EXPECTED("the file's bytes through the mapping"),
		   SEEN("other bytes"), HINT("see lab 3"));
	ASSERT_EQ(0, ftruncate(fd, 2500));
	bad = first_nonzero(p + 2500, BLK - 2500);
	CHECK_THAT(bad < 0, EXPECTED("zeros past the new EOF (2500) in the mapped last page"),
		   SEEN("%#x at byte %ld", p[2500 + bad], 2500 + bad), HINT(HINT_TRUNC));
	CHECK_THAT(!memcmp(p, buf, 2500), EXPECTED("the bytes before EOF unchanged"),
		   SEEN("changed at byte %ld", first_diff(p, buf, 2500)),
		   HINT("bytes before the cut were zeroed: the zeroing starts at the "
			"cut's offset inside its block, not at the block's start (TODO 1)"));
	munmap(p, BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/* The ways a file grows that every filesystem of the labs has. */
enum growth { BY_TRUNCATE, BY_A_WRITE_IN_THE_BLOCK, BY_A_WRITE_FURTHER_ON };

/*
 * A 1000-byte file, mapped shared; 500 bytes stored past EOF through the
 * mapping, in the file's last block; then the file grows.  Only what the
 * growth wrote may show past byte 1000, through read() and through the
 * mapping, which stays in place across the growth.
 */
static void store_past_eof_then_grow(struct __test_metadata *_metadata, const char *dev,
				     enum growth how)
{
	static const char *const what[] = {
		"ftruncate() to 2 blocks", "a 1-byte write() at 1200, in the same block",
		"a 1-byte write() at 4196, in the next block",
	};
	static unsigned char buf[2 * BLK], expect[2 * BLK];
	long size = 2 * BLK, bad;
	unsigned char *p;
	int fd;

	p = daxfs_store_past_eof(_metadata, dev, 3, expect, &fd);
	if (how == BY_TRUNCATE) {
		ASSERT_EQ(0, ftruncate(fd, size));
	} else {
		long at = how == BY_A_WRITE_IN_THE_BLOCK ? 1200 : BLK + 100;

		size = at + 1;
		expect[at] = 'W';
		ASSERT_EQ(0, pwrite_all(fd, expect + at, 1, at));
	}
	ASSERT_EQ(0, pread_all(fd, buf, size, 0));
	bad = first_diff(expect, buf, size);
	CHECK_THAT(bad < 0, EXPECTED("after %s, read() to show byte %ld as %#x (the old size "
				     "was 1000; 0xee was stored past it through a mapping)",
				     what[how], bad, bad < 0 ? 0 : expect[bad]),
		   SEEN("%#x", bad < 0 ? 0 : buf[bad]),
		   HINT("every way a file grows must first zero what lies past the old "
			"size in its block: ext2_setsize() (TODO 3) and ext2_dax_write_iter() "
			"(TODO 4), fs/ext2/; ext4: ext4_dax_zero_past_eof()"));
	bad = first_diff(expect, p, size);
	CHECK_THAT(bad < 0, EXPECTED("after %s, the mapping made before to show byte %ld as %#x",
				     what[how], bad, bad < 0 ? 0 : expect[bad]),
		   SEEN("%#x", bad < 0 ? 0 : p[bad]),
		   HINT("the zeroes go to the device, where the mapping points"));
	munmap(p, 2 * BLK);
	close(fd);
	unmount_and_fsck(_metadata, dev);
}

TEST_F(zero, stores_past_eof_do_not_become_data)
{
	store_past_eof_then_grow(_metadata, self->dev, BY_TRUNCATE);
}

TEST_F(zero, stores_past_eof_do_not_become_data_when_a_write_grows_the_file)
{
	store_past_eof_then_grow(_metadata, self->dev, BY_A_WRITE_IN_THE_BLOCK);
	store_past_eof_then_grow(_metadata, self->dev, BY_A_WRITE_FURTHER_ON);
}

TEST_F(zero, truncate_zeroes_a_block_but_allocates_no_hole)
{
	static unsigned char buf[BLK];
	long bad;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/sparse", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	pattern(buf, BLK, 4, 5 * BLK);
	ASSERT_EQ(0, pwrite_all(fd, buf, BLK, 5 * BLK));	/* blocks 0-4: holes */
	ASSERT_EQ(0, ftruncate(fd, 5 * BLK + 123));		/* inside the block */
	ASSERT_EQ(0, ftruncate(fd, 8 * BLK));
	ASSERT_EQ(0, pread_all(fd, buf, BLK, 5 * BLK));
	bad = first_nonzero(buf + 123, BLK - 123);
	CHECK_THAT(bad < 0, EXPECTED("zeros from the cut (byte 123 of block 5) to its end"),
		   SEEN("%#x at byte %ld of the block", buf[123 + bad], 123 + bad),
		   HINT(HINT_TRUNC));
	ASSERT_EQ(0, ftruncate(fd, 2 * BLK + 5));		/* inside a hole */
	ASSERT_EQ(0, ftruncate(fd, 7 * BLK + 1));
	CHECK_THAT(st_blocks(fd) == 0, EXPECTED("no block after a truncate inside a hole"),
		   SEEN("st_blocks = %lld", st_blocks(fd)),
		   HINT("a hole reads as zeros already: get_block() with create = 0 (TODO 1)"));
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/*
 * The model: random truncates (up, down, inside blocks), pwrites and
 * stores through a shared mapping (inside EOF), on a device first filled
 * with 0xa5, each followed by a check of a random range against the model.
 */
#define ZMODEL_MAX (64 * BLK)
#define ZMODEL_OPS 1500

static unsigned int zrnd(unsigned int *s)
{
	unsigned int x = *s ?: 1;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

TEST_F(zero, random_truncates_writes_and_stores_match_a_model)
{
	static unsigned char model[ZMODEL_MAX], buf[ZMODEL_MAX];
	unsigned int seed = labcheck_seed(2014), st = seed;
	long long size = 0;
	unsigned char *p;
	char last[128] = "none";
	int fd, op;

	ASSERT_EQ(0, fill_device(self->dev)) TH_LOG("filling %s failed", self->dev);
	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/model", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	p = daxfs_map(fd, ZMODEL_MAX, PROT_READ | PROT_WRITE, MAP_SHARED);	/* a mapping of the whole range */
	ASSERT_NE(NULL, p);

	for (op = 0; op < ZMODEL_OPS; op++) {
		unsigned int kind = zrnd(&st) % 4;
		long long off = zrnd(&st) % ZMODEL_MAX, len, bad;

		if (kind == 0) {		/* truncate */
			long long to = zrnd(&st) % 3 ? off : off / BLK * BLK;

			snprintf(last, sizeof(last), "truncate from %lld to %lld", size, to);
			ASSERT_EQ(0, ftruncate(fd, to));
			if (to > size)
				memset(model + size, 0, to - size);
			size = to;
		} else if (kind == 1) {		/* pwrite */
			len = zrnd(&st) % (2 * BLK) + 1;
			if (off + len > ZMODEL_MAX)
				len = ZMODEL_MAX - off;
			snprintf(last, sizeof(last), "pwrite of %lld at %lld, size %lld",
				 len, off, size);
			pattern(buf, len, seed + op, off);
			ASSERT_EQ(0, pwrite_all(fd, buf, len, off));
			if (off > size)
				memset(model + size, 0, off - size);
			memcpy(model + off, buf, len);
			if (off + len > size)
				size = off + len;
		} else if (kind == 2 && size > 0) {	/* a store inside EOF */
			off %= size;
			len = zrnd(&st) % 300 + 1;
			if (off + len > size)
				len = size - off;
			snprintf(last, sizeof(last), "store of %lld through the mapping at %lld, size %lld",
				 len, off, size);
			pattern(buf, len, seed + op + 7, off);
			memcpy(p + off, buf, len);
			memcpy(model + off, buf, len);
		}

		/* check: a random range through read(), and the tail of the last block */
		off = size ? zrnd(&st) % size : 0;
		len = size - off < 3 * BLK ? size - off : 3 * BLK;
		ASSERT_EQ(0, pread_all(fd, buf, len, off));
		bad = first_diff(buf, model + off, len);
		if (bad >= 0) {
			CHECK_THAT(0, EXPECTED("after op %d (%s), the file to match the model", op, last),
				   SEEN("%#x at offset %lld, the model has %#x%s", buf[bad], off + bad,
					model[off + bad], buf[bad] == 0xa5 ? " (0xa5: stale device data)" : ""),
				   HINT("replay: make check-lab 5 T=random_truncates "
					"APPEND=daxlab.seed=%u; %s", seed, HINT_TRUNC));
			break;
		}
	}
	munmap(p, ZMODEL_MAX);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

LABCHECK_MAIN
