// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 6, black box: what ext4 -o dax has beyond the checks of labs 2-5
 * (which lab 6 runs again on ext4, as the suites lab6_ext4_*).
 *
 * What is checked: unwritten extents (fallocate) read as zeros and take
 * stores and writes in their middle; punching a hole and zeroing a range,
 * both unaligned, zero the edge bytes on the device (seen through a
 * mapping made before), free the whole blocks, and leave the pages inside
 * EOF mapped or mappable (no SIGBUS); growing a file with fallocate()
 * does not make bytes stored past its end file data; loads and private
 * stores racing with hole punching and zero range map nothing of the
 * range once fallocate() returns, even when another file has taken its
 * freed blocks; EXT4_IOC_SWAP_BOOT
 * refuses dax files; data=journal cannot go with dax, at mount or at
 * remount; writeback of a dax file succeeds; each dax mode the mount
 * accepts (always, never, inode) is the one its files get, and a mode it
 * cannot honour is refused with a message.  Every workload ends with
 * e2fsck -fn.
 */
#define DAXFS_DEFAULT "ext4"

#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/mman.h>
#include <pthread.h>
#include <time.h>

#include "labcheck.h"
#include "daxfs.h"
#include "daxmodel.h"

#define HINT_ZERO "a dax file has no page cache to zero: ext4_block_zero_page_range() " \
		  "(fs/ext4/inode.c) must zero the partial blocks on the device with " \
		  "dax_bh_zero_page_range() (TODO 5)"
#define HINT_ALLOC "ext4_dax_get_block() (fs/ext4/inode.c, TODO 3): allocate, or convert " \
		   "an unwritten extent, with EXT4_GET_BLOCKS_CREATE_ZERO in a journal handle"

#define FILE_BLOCKS 8L
#define FILE_LEN (FILE_BLOCKS * BLK)
#define LARGE (40 * MIB)	/* ram0 is 64 MiB */

DAX_DEVICE_FIXTURE(ext4)

/*
 * Copy len bytes of a mapping into out, page by page; the offset of the
 * first page that raised SIGBUS, or -1.
 */
static long copy_from_mapping(unsigned char *out, unsigned char *map, long len)
{
	unsigned char c;

	for (long off = 0; off < len; off += BLK) {
		if (daxfs_touch(map + off, 0, 0, &c))
			return off;
		memcpy(out + off, map + off, len - off < BLK ? len - off : BLK);
	}
	return -1;
}

/* A file of FILE_BLOCKS blocks of pattern(seed), on a stale-filled device. */
static void make_patterned_file(struct __test_metadata *_metadata, const char *dev,
				unsigned char *expect, unsigned int seed, int *fdp)
{
	int fd;

	setup_dax_fs(_metadata, dev);
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	REQUIRE_THAT(fd >= 0, EXPECTED("to create " MNT "/f"), SEEN("%s", strerror(errno)),
		     HINT(HINT_ALLOC));
	pattern(expect, FILE_LEN, seed, 0);
	REQUIRE_THAT(pwrite_all(fd, expect, FILE_LEN, 0) == 0,
		     EXPECTED("write() of %ld bytes", FILE_LEN), SEEN("%s", strerror(errno)),
		     HINT(HINT_ALLOC));
	*fdp = fd;
}

/* Compare a file, by read() and through a mapping, with what it must hold. */
static void expect_contents(struct __test_metadata *_metadata, int fd, unsigned char *map,
			    const unsigned char *expect, const char *after, const char *hint)
{
	static unsigned char got[FILE_LEN];
	long bad, bus;

	ASSERT_EQ(0, pread_all(fd, got, FILE_LEN, 0));
	bad = first_diff(expect, got, FILE_LEN);
	CHECK_THAT(bad < 0, EXPECTED("after %s, read() to show byte %ld as %#x", after, bad,
				     bad < 0 ? 0 : expect[bad]),
		   SEEN("%#x", bad < 0 ? 0 : got[bad]), HINT("%s", hint));
	bus = copy_from_mapping(got, map, FILE_LEN);
	REQUIRE_THAT(bus < 0, EXPECTED("after %s, every page inside EOF to be mappable", after),
		     SEEN("SIGBUS at offset %ld", bus),
		     HINT("blocks freed or zeroed inside i_size are holes now: a load maps "
			  "a zero page, it must not fail"));
	bad = first_diff(expect, got, FILE_LEN);
	CHECK_THAT(bad < 0, EXPECTED("after %s, a mapping made before to show byte %ld as %#x",
				     after, bad, bad < 0 ? 0 : expect[bad]),
		   SEEN("%#x", bad < 0 ? 0 : got[bad]), HINT("%s", hint));
}

/*
 * The shared body of punch_hole and zero_range: fallocate(mode) over an
 * unaligned range of a file that is mapped, then check what the file holds
 * and how many blocks it has.
 */
static void zero_a_range(struct __test_metadata *_metadata, const char *dev, int mode,
			 long start, long len, long blocks_freed)
{
	static unsigned char expect[FILE_LEN];
	const char *what = mode & FALLOC_FL_PUNCH_HOLE ? "punching a hole" : "zeroing a range";
	long long before, after;
	unsigned char *map, c;
	int fd = -1;

	make_patterned_file(_metadata, dev, expect, 11, &fd);
	if (fd < 0)
		return;
	map = daxfs_map(fd, FILE_LEN, PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_NE(NULL, map);
	for (long off = 0; off < FILE_LEN; off += BLK)	/* map every page */
		ASSERT_EQ(0, daxfs_touch(map + off, 0, 0, &c));
	before = st_blocks(fd);

	REQUIRE_THAT(fallocate(fd, mode, start, len) == 0,
		     EXPECTED("%s over [%ld, %ld) to succeed", what, start, start + len),
		     SEEN("%s", strerror(errno)), HINT(HINT_ZERO));
	memset(expect + start, 0, len);
	expect_contents(_metadata, fd, map, expect, what, HINT_ZERO);
	after = st_blocks(fd);
	CHECK_THAT(before - after == blocks_freed * (BLK / 512),
		   EXPECTED("%s to free the %ld whole blocks inside it (st_blocks %lld -> %lld)",
			    what, blocks_freed, before, before - blocks_freed * (BLK / 512)),
		   SEEN("st_blocks %lld -> %lld", before, after),
		   HINT("ext4 frees or unwrites the whole blocks itself; the partial "
			"ones are zeroed, not freed"));
	CHECK_THAT(lseek(fd, 0, SEEK_END) == FILE_LEN,
		   EXPECTED("the size to stay %ld", FILE_LEN),
		   SEEN("%lld", (long long)lseek(fd, 0, SEEK_END)), HINT("FALLOC_FL_KEEP_SIZE"));

	/* the range takes stores again: the block must be allocated, zeroed */
	ASSERT_EQ(0, daxfs_touch(map + 3 * BLK + 10, 1, 0x5a, NULL));
	expect[3 * BLK + 10] = 0x5a;
	expect_contents(_metadata, fd, map, expect, "a store into the range", HINT_ALLOC);
	munmap(map, FILE_LEN);
	close(fd);
	unmount_and_fsck(_metadata, dev);
}

/*
 * The lab's model checker (labs/common/daxmodel.h) with everything ext4
 * adds: fallocate (allocate, keep size, punch hole, zero range) among
 * reads, writes, truncates, shared and private loads and stores, msync
 * and remounts.  Labs 3-5's runs of it repeat on ext4 (lab 6's rerun).
 */
TEST_F(ext4, random_operations_with_fallocate_match_a_model)
{
	static const struct dm_run run = {
		.name = "random_operations_with_fallocate", .lab = 6, .count = 1000,
		.ops = DM_TRUNCATE | DM_SHARED | DM_PRIVATE | DM_FALLOCATE | DM_REMOUNT,
		.hint = HINT_ZERO "; " HINT_ALLOC,
	};

	daxmodel_run(_metadata, self->dev, &run);
}

TEST_F(ext4, punch_hole_zeroes_the_edges_and_frees_the_blocks)
{
	/* [1 block + 100, 5 blocks + 200): blocks 2, 3 and 4 go */
	zero_a_range(_metadata, self->dev, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		     BLK + 100, 4 * BLK + 100, 3);
}

TEST_F(ext4, zero_range_zeroes_the_edges_and_unwrites_the_blocks)
{
	/* ext4 turns the whole blocks into unwritten extents: they stay allocated */
	zero_a_range(_metadata, self->dev, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
		     BLK + 300, 4 * BLK + 100, 0);
}

/*
 * fallocate() makes unwritten extents: allocated, but holding what the
 * device held before.  They must read as zeros, and a store or a write in
 * their middle must leave the rest of them zero.
 */
TEST_F(ext4, fallocated_blocks_read_as_zeros_until_written)
{
	static unsigned char expect[FILE_LEN], mine[100];
	unsigned char *map;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	REQUIRE_THAT(fallocate(fd, 0, 0, FILE_LEN) == 0,
		     EXPECTED("fallocate of %ld bytes", FILE_LEN), SEEN("%s", strerror(errno)),
		     HINT("is the filesystem full?"));
	CHECK_THAT(st_blocks(fd) == FILE_LEN / 512,
		   EXPECTED("%ld blocks allocated", FILE_BLOCKS),
		   SEEN("st_blocks %lld", st_blocks(fd)), HINT("ext4_fallocate()"));
	map = daxfs_map(fd, FILE_LEN, PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_NE(NULL, map);
	memset(expect, 0, sizeof(expect));
	expect_contents(_metadata, fd, map, expect, "fallocate",
			"an unwritten extent reads as a hole: zeros, not the device's "
			"0xa5 (dax_do_io() and dax_fault() check buffer_unwritten())");

	/* a store in the middle of block 5, and a write in the middle of block 2 */
	ASSERT_EQ(0, daxfs_touch(map + 5 * BLK + 123, 1, 0x77, NULL));
	expect[5 * BLK + 123] = 0x77;
	pattern(mine, sizeof(mine), 12, 0);
	REQUIRE_THAT(pwrite_all(fd, mine, sizeof(mine), 2 * BLK + 7) == 0,
		     EXPECTED("a write() into an unwritten extent"),
		     SEEN("%s", strerror(errno)), HINT(HINT_ALLOC));
	memcpy(expect + 2 * BLK + 7, mine, sizeof(mine));
	expect_contents(_metadata, fd, map, expect, "a store and a write", HINT_ALLOC);
	munmap(map, FILE_LEN);
	close(fd);

	/* on the device, and recorded as written: the same after a remount */
	ASSERT_EQ(0, umount(MNT));
	ASSERT_EQ(0, mount_fs(self->dev, "dax"));
	fd = open(MNT "/f", O_RDWR);
	ASSERT_LE(0, fd);
	map = daxfs_map(fd, FILE_LEN, PROT_READ, MAP_SHARED);
	ASSERT_NE(NULL, map);
	expect_contents(_metadata, fd, map, expect, "a remount",
			"the converted extent must be in the journal: ext4_dax_get_block() "
			"maps in a handle (TODO 3)");
	munmap(map, FILE_LEN);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/*
 * fallocate() grows a file too, without FALLOC_FL_KEEP_SIZE: bytes stored
 * through a mapping past the old end of file, in its last block, must not
 * become file data (as after ftruncate() and write(), lab 5's checks).
 */
static void store_past_eof_then_fallocate(struct __test_metadata *_metadata,
					  const char *dev, int mode, const char *what)
{
	static unsigned char buf[2 * BLK], expect[2 * BLK];
	const long size = BLK + 2000;
	unsigned char *p;
	long bad;
	int fd;

	p = daxfs_store_past_eof(_metadata, dev, 5, expect, &fd);
	REQUIRE_THAT(fallocate(fd, mode, 3000, size - 3000) == 0,
		     EXPECTED("%s of [3000, %ld) to succeed", what, size),
		     SEEN("%s", strerror(errno)), HINT("ext4_fallocate(), fs/ext4/extents.c"));
	ASSERT_EQ(0, pread_all(fd, buf, size, 0));
	bad = first_diff(expect, buf, size);
	CHECK_THAT(bad < 0, EXPECTED("after %s grew the file from 1000 to %ld bytes, read() "
				     "to show byte %ld as %#x (0xee was stored past the old "
				     "size through a mapping)", what, size, bad,
				     bad < 0 ? 0 : expect[bad]),
		   SEEN("%#x", bad < 0 ? 0 : buf[bad]),
		   HINT("ext4_fallocate() and ext4_zero_range() must zero from the old size "
			"to the end of its block before the size grows: "
			"ext4_dax_zero_past_eof(), fs/ext4/inode.c"));
	munmap(p, 2 * BLK);
	close(fd);
	unmount_and_fsck(_metadata, dev);
}

TEST_F(ext4, stores_past_eof_do_not_become_data_when_fallocate_grows_the_file)
{
	store_past_eof_then_fallocate(_metadata, self->dev, 0, "fallocate()");
	store_past_eof_then_fallocate(_metadata, self->dev, FALLOC_FL_ZERO_RANGE,
				      "fallocate(FALLOC_FL_ZERO_RANGE)");
}

/*
 * On a full filesystem, the blocks a delete frees are not free until the
 * journal commits the delete (ext4 must not hand them out before: a crash
 * would bring the deleted file back on top of the new data).  An
 * allocation that meets ENOSPC must commit and try again
 * (ext4_should_retry_alloc()), or a write right after a delete fails.
 * ram0 only (64 MiB to fill); commit=300, so no timer commits for us.
 */
TEST(ext4_allocates_blocks_a_delete_just_freed)
{
	static unsigned char buf[MIB];
	const char *dev = "/dev/ram0";
	long long filled = 0, written;
	unsigned char *p;
	ssize_t n;
	int fd, bus;

	umount(MNT);
	daxfs_catch_sigbus();
	daxfs_mkfs_dirty(_metadata, dev, "dax,commit=300");
	if (!_metadata->passed)
		return;
	fd = open(MNT "/full", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	REQUIRE_THAT(is_dax(MNT "/full") == 1, EXPECTED("files of an ext4 -o dax mount to be DAX"),
		     SEEN("STATX_ATTR_DAX not set"),
		     HINT("ext4_dax_bh_usable() and ext4_should_use_dax() (lab 6): the page "
			  "cache retries after ENOSPC on its own, DAX files must too"));
	memset(buf, 'F', sizeof(buf));
	while ((n = pwrite(fd, buf, sizeof(buf), filled)) > 0)
		filled += n;
	REQUIRE_THAT(n < 0 && errno == ENOSPC && filled > 16 * MIB,
		     EXPECTED("writing until the filesystem is full to end with ENOSPC"),
		     SEEN("%zd (%s) after %lld bytes", n, n < 0 ? strerror(errno) : "",
			  filled), HINT(HINT_ALLOC));
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	ASSERT_EQ(0, unlink(MNT "/full"));

	/*
	 * Half of what the deleted file held: more than the few blocks ext4
	 * keeps in reserve (s_resv_clusters), which are free already.
	 */
	fd = open(MNT "/next", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	for (written = 0; written < filled / 2; written += n)
		if ((n = pwrite(fd, buf, sizeof(buf), written)) <= 0)
			break;
	CHECK_THAT(written >= filled / 2,
		   EXPECTED("writes of %lld MiB right after deleting a file of %lld MiB to "
			    "succeed", filled / 2 / MIB, filled / MIB),
		   SEEN("%zd (%s) after %lld MiB", n, n < 0 ? strerror(errno) : "a short write",
			written / MIB),
		   HINT("ext4_dax_get_block() (TODO 3): on ENOSPC, ext4_should_retry_alloc() "
			"commits the journal, which frees the deleted blocks: then try again"));
	/* the fault's allocation: the same retry */
	ASSERT_EQ(0, ftruncate(fd, written + 2 * MIB));
	p = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, written);
	ASSERT_NE(MAP_FAILED, p);
	bus = daxfs_touch(p + MIB + BLK, 1, 'S', NULL);
	CHECK_THAT(!bus, EXPECTED("a store to a hole of a file made right after the delete "
				  "to allocate its block"), SEEN("SIGBUS"),
		   HINT("ext4_dax_get_block() (TODO 3) retries after ENOSPC for faults too"));
	munmap(p, 2 * MIB);
	close(fd);
	unmount_and_fsck(_metadata, dev);
}

/*
 * One write() of many megabytes: ext4 allocates it in pieces, each in a
 * journal handle of its own (a handle has a limited number of credits).
 */
TEST_F(ext4, one_large_write_is_allocated_and_reads_back)
{
	static unsigned char mine[LARGE], back[LARGE];
	long bad;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/big", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	pattern(mine, LARGE, 13, 0);
	REQUIRE_THAT(pwrite_all(fd, mine, LARGE, 0) == 0,
		     EXPECTED("one write() of %ld MiB", LARGE / MIB),
		     SEEN("%s", strerror(errno)),
		     HINT("ext4_dax_get_block() (TODO 3): map at most DIO_MAX_BLOCKS "
			  "blocks per journal handle; the core asks again for the rest"));
	ASSERT_EQ(0, pread_all(fd, back, LARGE, 0));
	bad = first_diff(mine, back, LARGE);
	CHECK_THAT(bad < 0, EXPECTED("the %ld MiB to read back", LARGE / MIB),
		   SEEN("other bytes from offset %ld", bad), HINT(HINT_ALLOC));
	CHECK_THAT(st_blocks(fd) >= LARGE / 512,
		   EXPECTED("at least %ld sectors allocated", LARGE / 512),
		   SEEN("st_blocks %lld", st_blocks(fd)), HINT(HINT_ALLOC));
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/*
 * EXT4_IOC_SWAP_BOOT gives a file's blocks to the boot loader inode and
 * drops its page cache with truncate_inode_pages(), which leaves the pfns
 * a dax mapping holds in place: the mapping would go on reaching blocks
 * that are no longer the file's.  It must refuse dax files.
 */
#define EXT4_IOC_SWAP_BOOT _IO('f', 17)

TEST_F(ext4, swap_boot_refuses_dax_files)
{
	static unsigned char buf[BLK];
	unsigned char *p;
	int fd, rc;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	pattern(buf, BLK, 13, 0);
	ASSERT_EQ(0, pwrite_all(fd, buf, BLK, 0));
	p = daxfs_map(fd, BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_NE(NULL, p);
	p[0] = 1;
	rc = ioctl(fd, EXT4_IOC_SWAP_BOOT);
	CHECK_THAT(rc == -1 && errno == EINVAL,
		   EXPECTED("EXT4_IOC_SWAP_BOOT on a mapped dax file to fail with EINVAL"),
		   SEEN("%s", rc == 0 ? "it swapped the file's blocks away" : strerror(errno)),
		   HINT("swap_inode_boot_loader() (fs/ext4/ioctl.c) must refuse dax files: "
			"truncate_inode_pages() does not remove their mappings"));
	munmap(p, BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/*
 * MAP_SYNC promises that a store is durable once its page fault returns:
 * lab 6 refuses it, and the kernel must survive asking.  Lab 7 adds it.
 */
TEST_F(ext4, map_sync_is_refused)
{
	unsigned char *p;
	int fd;

	if (labcheck_kernel_has("ext4_inode_datasync_dirty"))
		SKIP(return, "this kernel has lab 7's MAP_SYNC: lab 7 checks it");
	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, BLK));
	p = mmap(NULL, BLK, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
	CHECK_THAT(p == MAP_FAILED && errno == EOPNOTSUPP,
		   EXPECTED("mmap(MAP_SHARED_VALIDATE | MAP_SYNC) of a dax file to fail "
			    "with EOPNOTSUPP"),
		   SEEN("%s", p == MAP_FAILED ? strerror(errno) : "it mapped"),
		   HINT("ext4_file_mmap(): the get_block core cannot make a store durable "
			"when its fault returns, and has no dax_device to ask"));
	if (p != MAP_FAILED)
		munmap(p, BLK);
	p = daxfs_map(fd, BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	REQUIRE_THAT(p != NULL, EXPECTED("a plain shared mapping"), SEEN("%s", strerror(errno)),
		     HINT("ext4_file_mmap()"));
	CHECK_THAT(daxfs_touch(p, 1, 0x42, NULL) == 0, EXPECTED("a store through it"),
		   SEEN("SIGBUS"), HINT(HINT_ALLOC));
	munmap(p, BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/* ---- loads and private stores racing with hole punching, block reuse ---- */

#define REUSE_PAGES 32
#define REUSE_LEN (REUSE_PAGES * BLK)
#define REUSE_SLACK 8		/* blocks left free besides the victim's */
#define REUSE_SECONDS 3		/* then stop, once REUSE_MIN_ROUNDS are done */
#define REUSE_MIN_ROUNDS 50
#define REUSE_MAX_SECONDS 60	/* fewer rounds by then: something is slow */
#define REUSE_MARK 0x11		/* what a private store puts at a page's byte 0 */

struct reuse {
	unsigned char *shared, *private;	/* the victim's two mappings */
	pthread_barrier_t start, end;		/* main and the two faulters */
	int go, stop;				/* __atomic */
	unsigned long faults;			/* __atomic */
};

/* The byte a victim of round r holds: never 0, never REUSE_MARK. */
static unsigned char reuse_byte(int r)
{
	return 0x80 | (r & 0x7f);
}

/*
 * Fault, and fault again, on a random page whose page tables were just
 * dropped, for as long as the round goes on: a load through the shared
 * mapping, then through the private one either a load (which maps the
 * block itself, read-only) or a store (which copies it).
 */
static void *reuse_faulter(void *arg)
{
	struct reuse *r = arg;
	unsigned int st = (unsigned int)(uintptr_t)&st;

	for (;;) {
		pthread_barrier_wait(&r->start);
		if (__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
			return NULL;
		while (__atomic_load_n(&r->go, __ATOMIC_ACQUIRE)) {
			long page = rand_r(&st) % REUSE_PAGES;
			unsigned char *s = r->shared + page * BLK;
			unsigned char *p = r->private + page * BLK;

			madvise(s, BLK, MADV_DONTNEED);
			daxfs_touch(s + rand_r(&st) % BLK, 0, 0, NULL);
			madvise(p, BLK, MADV_DONTNEED);	/* the private copy goes */
			if (rand_r(&st) % 2)		/* maps the block read-only */
				daxfs_touch(p + 1 + rand_r(&st) % (BLK - 1), 0, 0, NULL);
			else				/* copies it */
				daxfs_touch(p, 1, REUSE_MARK, NULL);
			__atomic_add_fetch(&r->faults, 1, __ATOMIC_RELAXED);
		}
		pthread_barrier_wait(&r->end);
	}
}

/* A file of REUSE_LEN bytes of c, or -1 with errno. */
static int reuse_file(const char *path, unsigned char c)
{
	static unsigned char buf[REUSE_LEN];
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);

	memset(buf, c, sizeof(buf));
	if (fd >= 0 && (pwrite_all(fd, buf, REUSE_LEN, 0) || fsync(fd))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Fill the file system with unwritten extents until it has no room left. */
static void reuse_fill(struct __test_metadata *_metadata)
{
	int fd = open(MNT "/fill", O_CREAT | O_RDWR, 0644);
	int slack = open(MNT "/slack", O_CREAT | O_RDWR, 0644);
	off_t end = 0;

	ASSERT_LE(0, fd);
	ASSERT_LE(0, slack);
	ASSERT_EQ(0, fallocate(slack, 0, 0, REUSE_SLACK * BLK));
	for (long step = MIB; step >= BLK; step /= 16)
		while (fallocate(fd, 0, end, step) == 0)
			end += step;
	REQUIRE_THAT(errno == ENOSPC, EXPECTED("fallocate() to fill the file system"),
		     SEEN("%s after %lld bytes", strerror(errno), (long long)end),
		     HINT("ext4_fallocate() on a dax file"));
	close(fd);
	close(slack);
	ASSERT_EQ(0, unlink(MNT "/slack"));
	sync();		/* the slack's blocks can be allocated again */
}

/*
 * After the round's fallocate() returned, and another file may have taken
 * the freed blocks: every byte of the victim reads 0 through its shared
 * mapping, and through its private one, but for private copies.  A page
 * that a private store copied (its byte 0 is the store's mark) may have
 * been copied before the punch, and hole punching leaves such anonymous
 * pages alone: its other bytes are 0 or the victim's old byte.  The first
 * offset that does not read so (*seen: its byte, *which: the mapping), or
 * -1.  One guarded load a page catches SIGBUS; the rest are plain loads
 * of a page that is mapped by then.
 */
static long reuse_scan(struct reuse *r, unsigned char old, unsigned char *seen,
		       const char **which)
{
	for (long page = 0; page < REUSE_LEN; page += BLK) {
		const unsigned char *s = r->shared + page, *p = r->private + page;
		unsigned char c;
		int copy;

		*which = "shared";
		*seen = 0;			/* 0: SIGBUS inside EOF */
		if (daxfs_touch(r->shared + page, 0, 0, &c))
			return page;
		for (long i = 0; i < BLK; i++)
			if (s[i]) {
				*seen = s[i];
				return page + i;
			}
		*which = "private";
		if (daxfs_touch(r->private + page, 0, 0, &c))
			return page;
		copy = p[0] == REUSE_MARK;
		for (long i = copy; i < BLK; i++)
			if (p[i] && !(copy && p[i] == old)) {
				*seen = p[i];
				return page + i;
			}
	}
	return -1;
}

/*
 * A load or a private store that faults while a range is punched or
 * zeroed must not map a block of the range once fallocate() has returned:
 * the block is freed (punch) or unwritten (zero range), and the next
 * allocation gives a freed one to another file.  The file system is full,
 * so another file does take them, with another byte: a mapping that kept
 * one shows that file's data.  A private store's copy may predate the
 * punch, and keep the old bytes; it never holds another file's.
 */
TEST_F(ext4, faults_racing_with_punch_hole_never_map_a_freed_block)
{
	static unsigned char again[REUSE_LEN];
	struct reuse r = { 0 };
	unsigned char seen = 0;
	const char *which = "";
	const char *what = "";
	long bad = -1;
	int round, fd, victim = 0;	/* the file is MNT "/victimN" */
	pthread_t t[2];
	time_t start = time(NULL);

	setup_dax_fs(_metadata, self->dev);
	fd = reuse_file(MNT "/victim0", reuse_byte(0));
	REQUIRE_THAT(fd >= 0, EXPECTED("to write " MNT "/victim0"), SEEN("%s", strerror(errno)),
		     HINT(HINT_ALLOC));
	reuse_fill(_metadata);
	ASSERT_EQ(0, pthread_barrier_init(&r.start, NULL, 3));
	ASSERT_EQ(0, pthread_barrier_init(&r.end, NULL, 3));
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, reuse_faulter, &r));

	for (round = 0;; round++) {
		long elapsed = time(NULL) - start;
		int punch = round % 2 == 0;
		char path[64];
		int next = -1;

		if ((elapsed >= REUSE_SECONDS && round >= REUSE_MIN_ROUNDS) ||
		    elapsed >= REUSE_MAX_SECONDS)
			break;
		what = punch ? "punching a hole" : "zeroing a range";
		r.shared = daxfs_map(fd, REUSE_LEN, PROT_READ, MAP_SHARED);
		r.private = daxfs_map(fd, REUSE_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE);
		ASSERT_NE(NULL, r.shared);
		ASSERT_NE(NULL, r.private);
		__atomic_store_n(&r.go, 1, __ATOMIC_RELEASE);
		pthread_barrier_wait(&r.start);
		usleep(rand() % 500);		/* the faulters are at it */
		REQUIRE_THAT(fallocate(fd, FALLOC_FL_KEEP_SIZE | (punch ? FALLOC_FL_PUNCH_HOLE :
								  FALLOC_FL_ZERO_RANGE),
				       0, REUSE_LEN) == 0,
			     EXPECTED("%s over the whole file to succeed", what),
			     SEEN("%s", strerror(errno)), HINT(HINT_ZERO));
		__atomic_store_n(&r.go, 0, __ATOMIC_RELEASE);
		pthread_barrier_wait(&r.end);

		/* freed blocks can be allocated again once the journal commits */
		ASSERT_EQ(0, fsync(fd));
		if (punch) {
			snprintf(path, sizeof(path), MNT "/victim%d", victim + 1);
			next = reuse_file(path, reuse_byte(round + 1));
			REQUIRE_THAT(next >= 0,
				     EXPECTED("another file to take the blocks the hole freed"),
				     SEEN("%s", strerror(errno)),
				     HINT("were the blocks of the hole freed?"));
		}
		bad = reuse_scan(&r, reuse_byte(round), &seen, &which);
		munmap(r.shared, REUSE_LEN);
		munmap(r.private, REUSE_LEN);
		if (bad >= 0) {
			if (next >= 0)
				close(next);
			break;
		}
		if (punch) {			/* the new file is the next victim */
			close(fd);
			snprintf(path, sizeof(path), MNT "/victim%d", victim++);
			ASSERT_EQ(0, unlink(path));
			fd = next;
		} else {			/* written again, with the next byte */
			memset(again, reuse_byte(round + 1), REUSE_LEN);
			ASSERT_EQ(0, pwrite_all(fd, again, REUSE_LEN, 0));
		}
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_barrier_wait(&r.start);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	TH_LOG("%d rounds, %lu faults", round + (bad >= 0), r.faults);
	CHECK_THAT(bad < 0,
		   EXPECTED("once %s returned, only zeros through the shared mapping, and "
			    "zeros or copies made before through the private one", what),
		   SEEN("%#x at offset %ld of the %s mapping, in round %d: %s", seen, bad,
			which, round,
			seen == reuse_byte(round + 1) ? "another file's data, in a freed block" :
			seen == reuse_byte(round) ? "the bytes the range had: a stale mapping" :
			seen == REUSE_MARK ? "a private store's byte, in a shared mapping" :
			seen ? "a byte nobody wrote" : "SIGBUS inside EOF"),
		   HINT("a fault must map nothing of the range once fallocate() has unmapped "
			"it: ext4_dax_bh_fault() (fs/ext4/file.c, TODO 4) holds "
			"invalidate_lock shared across dax_fault(), loads and private "
			"stores too, and the punch holds it exclusive from the unmap to the "
			"free"));
	CHECK_THAT(round >= REUSE_MIN_ROUNDS || bad >= 0,
		   EXPECTED("%d rounds of the race", REUSE_MIN_ROUNDS),
		   SEEN("%d rounds, %lu faults, in %ld s", round, r.faults,
			(long)(time(NULL) - start)),
		   HINT("a round is a fallocate(), a fsync() and a write of %ld bytes: "
			"is one of them slow?", REUSE_LEN));
	pthread_barrier_destroy(&r.start);
	pthread_barrier_destroy(&r.end);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/* ---- mount options ------------------------------------------------------ */

FIXTURE(opts) {
	int kmsg;
};

FIXTURE_SETUP(opts)
{
	umount(MNT);
	self->kmsg = -1;
	ASSERT_EQ(0, daxfs_mkfs("/dev/pmem0", "4096"));
}

FIXTURE_TEARDOWN(opts)
{
	umount(MNT);
	if (self->kmsg >= 0)
		close(self->kmsg);
}

/*
 * The flusher writes back every dirty inode through do_writepages(), which
 * calls the mapping's ->writepages even when no page is dirty (a dax file
 * never has one): it must not fail.  fsync() cannot show it (it skips a
 * mapping with no dirty page), so lab 6's helper module makes the call.
 */
TEST_F(opts, writeback_of_a_dax_file_succeeds)
{
	static const char probe[] = "/sys/kernel/debug/lab6_writeback/writepages";
	char *insmod[] = { "insmod", "/checks/lab6/lab6_writeback.ko", NULL };
	static unsigned char buf[BLK];
	char got[64] = "";
	int fd, p, ret = -1;
	ssize_t n;

	REQUIRE_THAT(mount_fs("/dev/pmem0", "dax") == 0, EXPECTED("mount -o dax"),
		     SEEN("%s", strerror(errno)),
		     HINT("see lab6_ext4_dax_io.mount.*.dax_mount_works_and_says_so"));
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	REQUIRE_THAT(is_dax(MNT "/f") == 1, EXPECTED("files of the mount to be DAX"),
		     SEEN("STATX_ATTR_DAX not set"),
		     HINT("see lab6_ext4_dax_io.mount.*.dax_mount_works_and_says_so"));
	memset(buf, 0x5a, sizeof(buf));
	ASSERT_EQ(0, pwrite_all(fd, buf, BLK, 0));
	close(fd);
	REQUIRE_THAT(access(probe, F_OK) == 0 || labcheck_spawn(insmod) == 0,
		     EXPECTED("to load lab6_writeback.ko"), SEEN("insmod failed (above)"),
		     HINT("the check's own module: is the kernel built with modules?"));
	p = open(probe, O_RDWR);
	ASSERT_LE(0, p);
	n = write(p, MNT "/f", strlen(MNT "/f"));
	ASSERT_EQ((ssize_t)strlen(MNT "/f"), n);
	n = pread(p, got, sizeof(got) - 1, 0);
	close(p);
	if (n > 0)
		sscanf(got, "ret=%d", &ret);
	CHECK_THAT(ret == 0, EXPECTED("->writepages of a dax file, as the flusher calls it, "
				      "to return 0"),
		   SEEN("%d (%s)", ret, ret < 0 ? strerror(-ret) : "?"),
		   HINT("ext4_dax_aops (fs/ext4/inode.c): ext4_dax_writepages() writes back "
			"what the iomap DAX core keeps in the mapping, and without "
			"CONFIG_FS_DAX fails with EOPNOTSUPP: it must not be there"));
	unmount_and_fsck(_metadata, "/dev/pmem0");
}

#define HINT_MODES "ext4_parse_param() (fs/ext4/super.c): without CONFIG_FS_DAX, dax is " \
		   "all (dax, dax=always) or nothing (dax=never); dax=inode, which 6.1 " \
		   "documents as per file (FS_XFLAG_DAX), must be refused with a message"

/* Set FS_XFLAG_DAX on path (what chattr +x does); 0 or an errno. */
static int set_dax_xflag(const char *path)
{
	struct fsxattr fsx;
	int fd = open(path, O_RDONLY), err = 0;

	if (fd < 0)
		return errno;
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fsx))
		err = errno;
	fsx.fsx_xflags |= FS_XFLAG_DAX;
	if (!err && ioctl(fd, FS_IOC_FSSETXATTR, &fsx))
		err = errno;
	close(fd);
	return err;
}

/*
 * The mount on MNT says mode in /proc/mounts, and f and g are DAX files
 * (STATX_ATTR_DAX) as want_f and want_g say; what is the rule, in words.
 */
static void expect_dax_mode(struct __test_metadata *_metadata, const char *mode,
			    int want_f, int want_g, const char *what)
{
	CHECK_THAT(is_dax(MNT "/f") == want_f && is_dax(MNT "/g") == want_g,
		   EXPECTED("%s: %s (f %d, g %d)", mode, what, want_f, want_g),
		   SEEN("f %d, g %d (STATX_ATTR_DAX)", is_dax(MNT "/f"), is_dax(MNT "/g")),
		   HINT(HINT_MODES));
	CHECK_THAT(labcheck_has_opt(labcheck_mount_opts(MNT), mode),
		   EXPECTED("/proc/mounts to say %s", mode),
		   SEEN("%s", labcheck_mount_opts(MNT)), HINT(HINT_MODES));
}

/*
 * 6.1 documents three dax modes for ext4 (Documentation/filesystems/dax.rst):
 * always, every regular file; never, none; inode, the files that have
 * FS_XFLAG_DAX.  What /proc/mounts says must be what the files get: a mode
 * the mount accepts is honoured, one it cannot honour is refused, saying
 * so.  f carries FS_XFLAG_DAX, g does not.
 */
TEST_F(opts, each_dax_mode_is_honoured_or_refused)
{
	int fd, r, err;

	REQUIRE_THAT(mount_fs("/dev/pmem0", "dax=always") == 0,
		     EXPECTED("mount -o dax=always"), SEEN("%s", strerror(errno)),
		     HINT("see lab6_ext4_dax_io.mount.*.dax_mount_works_and_says_so"));
	fd = daxfs_make_file(MNT "/f", BLK, 1);
	ASSERT_LE(0, fd);
	close(fd);
	fd = daxfs_make_file(MNT "/g", BLK, 2);
	ASSERT_LE(0, fd);
	close(fd);
	expect_dax_mode(_metadata, "dax=always", 1, 1, "every regular file DAX");
	err = set_dax_xflag(MNT "/f");
	REQUIRE_THAT(err == 0, EXPECTED("FS_IOC_FSSETXATTR to set FS_XFLAG_DAX on a file"),
		     SEEN("%s", strerror(err)),
		     HINT("6.1 ext4 takes the flag whatever the mount's dax mode"));
	ASSERT_EQ(0, umount(MNT));

	ASSERT_EQ(0, mount_fs("/dev/pmem0", "dax=never"));
	expect_dax_mode(_metadata, "dax=never", 0, 0,
			"no DAX file, not even one with FS_XFLAG_DAX");
	ASSERT_EQ(0, umount(MNT));

	self->kmsg = labcheck_kmsg_open();
	r = mount_fs("/dev/pmem0", "dax=inode");
	err = errno;
	if (r == 0) {
		CHECK_THAT(is_dax(MNT "/f") == 1 && is_dax(MNT "/g") == 0,
			   EXPECTED("dax=inode, accepted: f (FS_XFLAG_DAX) DAX and g not, "
				    "or the mount refused"),
			   SEEN("it mounted (%s); f %d, g %d (STATX_ATTR_DAX)",
				labcheck_mount_opts(MNT), is_dax(MNT "/f"), is_dax(MNT "/g")),
			   HINT(HINT_MODES));
	} else {
		CHECK_THAT(err == EINVAL && labcheck_kmsg_grep(self->kmsg, "dax=inode"),
			   EXPECTED("dax=inode refused with EINVAL and a kernel message "
				    "naming dax=inode"),
			   SEEN("%s, %s", strerror(err),
				labcheck_kmsg_grep(self->kmsg, "dax=inode") ?
				"a message" : "no message"),
			   HINT(HINT_MODES));
		ASSERT_EQ(0, mount_fs("/dev/pmem0", "dax=never"));	/* for the fsck */
	}
	unmount_and_fsck(_metadata, "/dev/pmem0");
}

#define HINT_JOURNAL "data=journal puts file data in the journal before it reaches " \
		     "its blocks; a dax file has no copy to journal.  6.1's checks in " \
		     "fs/ext4/super.c test EXT4_MOUNT_DAX_ALWAYS: is it 0? (TODO 1)"

TEST_F(opts, data_journal_and_dax_are_refused_together)
{
	int r, err;

	self->kmsg = labcheck_kmsg_open();
	r = mount_fs("/dev/pmem0", "dax,data=journal");
	err = errno;
	if (r == 0)
		umount(MNT);
	CHECK_THAT(r == -1 && err == EINVAL,
		   EXPECTED("mount -o dax,data=journal to fail with EINVAL"),
		   SEEN("%s", r == 0 ? "it mounted" : strerror(err)), HINT(HINT_JOURNAL));
	CHECK_THAT(labcheck_kmsg_grep(self->kmsg, "both data=journal and dax"),
		   EXPECTED("the kernel to say \"can't mount with both data=journal and dax\""),
		   SEEN("no such message"), HINT(HINT_JOURNAL));
}

TEST_F(opts, remount_cannot_bring_dax_and_data_journal_together)
{
	int r;

	/* data=journal first, then dax */
	ASSERT_EQ(0, mount_fs("/dev/pmem0", "data=journal"));
	self->kmsg = labcheck_kmsg_open();
	r = mount("/dev/pmem0", MNT, "ext4", MS_REMOUNT, "dax");
	CHECK_THAT(r == -1 && errno == EINVAL,
		   EXPECTED("mount -o remount,dax of a data=journal mount to fail with EINVAL"),
		   SEEN("%s", r == 0 ? "it succeeded" : strerror(errno)), HINT(HINT_JOURNAL));
	CHECK_THAT(labcheck_kmsg_grep(self->kmsg, "both data=journal and dax"),
		   EXPECTED("the kernel to say \"can't mount with both data=journal and dax\""),
		   SEEN("no such message"), HINT(HINT_JOURNAL));
	CHECK_THAT(!daxfs_shows_dax(labcheck_mount_opts(MNT)),
		   EXPECTED("the mount still without dax"),
		   SEEN("%s", labcheck_mount_opts(MNT)), HINT(HINT_JOURNAL));
	ASSERT_EQ(0, umount(MNT));

	/* dax first, then data=journal */
	REQUIRE_THAT(mount_fs("/dev/pmem0", "dax") == 0, EXPECTED("mount -o dax"),
		     SEEN("%s", strerror(errno)),
		     HINT("see lab6_ext4_dax_io.mount.*.dax_mount_works_and_says_so"));
	close(self->kmsg);
	self->kmsg = labcheck_kmsg_open();
	r = mount("/dev/pmem0", MNT, "ext4", MS_REMOUNT, "data=journal");
	CHECK_THAT(r == -1 && errno == EINVAL,
		   EXPECTED("mount -o remount,data=journal of a dax mount to fail with EINVAL"),
		   SEEN("%s", r == 0 ? "it succeeded" : strerror(errno)),
		   HINT("ext4 never changes the data mode on remount"));
	CHECK_THAT(daxfs_shows_dax(labcheck_mount_opts(MNT)),
		   EXPECTED("the mount still with dax"),
		   SEEN("%s", labcheck_mount_opts(MNT)), HINT(HINT_JOURNAL));
}

LABCHECK_MAIN
