// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 5, black box: when a dax file's size changes inside a block, the
 * rest of that block is zeroed on the device (dax_bh_truncate_page()).
 *
 * What is checked here: a seeded model of random truncates, writes and
 * mapped stores, on a device first filled with a pattern, never shows a
 * byte the file does not hold, and ends with e2fsck -fn.  The single
 * cases run from earlier labs, where ext2 zeroed with a helper of its
 * own (ext2_dax_zero_tail()): lab 2 (bytes cut by a truncate read zero
 * after growth; a truncate inside a hole allocates nothing) and lab 3
 * (stores past EOF do not become data when the file grows; a mapped last
 * page shows zeros past a cut).  This lab's skeleton takes that helper
 * out, so they fail until the TODOs are done.
 */
#include <time.h>

#include "labcheck.h"
#include "daxfs.h"

#define HINT_TRUNC "ext2_setsize() (TODO 3) calls dax_bh_truncate_page() (TODO 2), " \
		   "which zeroes with dax_bh_zero_page_range() (TODO 1), fs/dax_bh.c"

DAX_DEVICE_FIXTURE(zero)

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
