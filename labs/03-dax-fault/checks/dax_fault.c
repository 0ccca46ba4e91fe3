// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 3, black box: mmap() of a file on an ext2 -o dax mount maps the
 * device's own memory (dax_fault()), holes map zeroed pages that a store
 * replaces, and nothing survives a truncate that should not.
 *
 * What is checked: that a mapped page is the device page bdev_direct_access()
 * gives for the file's block (pagemap), coherence between stores, read(),
 * write() and other processes' mappings without msync, holes (zeros, no
 * allocation, replaced everywhere once written, also by a write() that
 * fails or stops short), SIGBUS past EOF and after
 * truncate (also once the blocks belong to another file), a race between
 * faults and truncate, stale data in blocks a store allocates, a store and
 * a write() racing to allocate the same block, file times, blocks the
 * device cannot zero (pmem bad blocks) given back, bytes stored past EOF
 * through a mapping that must not become data when the file grows (by
 * ftruncate() or write()) and a mapped last page zeroed past a cut, and
 * an unbind of pmem under the mount waiting for the unmount.  Every workload ends with
 * e2fsck -fn, but that one.
 */
#include <linux/fs.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "labcheck.h"
#include "daxfs.h"
#include "daxmodel.h"

#define HINT_FAULT "dax_fault() in fs/dax_bh.c (TODO 2-4), called from ext2_dax_bh_fault()"
#define HINT_GROW "every way a file grows must first zero what lies past the old size " \
		  "in its block: ext2_setsize() from the lower of the two sizes, " \
		  "ext2_dax_write_iter() before a write past EOF (fs/ext2/; " \
		  "ext2_dax_zero_tail() in labs 2-4, lab 5's TODOs 3 and 4 from then " \
		  "on); ext4: ext4_dax_zero_past_eof()"
#define HINT_MMAP "ext2_file_mmap() must set vm_ops and VM_MIXEDMAP for dax files (TODO 5)"

/* A shared mapping of a dax file: the check goes no further without it. */
#define REQUIRE_MAPPED(p)						\
	REQUIRE_THAT(p, EXPECTED("mmap(MAP_SHARED) of a dax file to succeed"),	\
		     SEEN("%s", strerror(errno)), HINT(HINT_MMAP))

DAX_DEVICE_FIXTURE(map)

/*
 * The lab's model checker (labs/common/daxmodel.h): random reads, writes,
 * truncates, loads and stores through shared mappings (past EOF too),
 * msync and remounts, at the edges of EOF, of blocks and past 4 GiB.
 */
TEST_F(map, random_operations_match_a_model)
{
	static const struct dm_run run = {
		.name = "random_operations_match_a_model", .lab = 3, .count = 1000,
		.ops = DM_TRUNCATE | DM_SHARED | DM_REMOUNT,
		.hint = HINT_FAULT "; " HINT_GROW,
	};

	daxmodel_run(_metadata, self->dev, &run);
}

TEST_F(map, mapped_pages_are_the_device_pages)
{
	static unsigned char want[3 * BLK];
	unsigned char *p;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = daxfs_make_file(MNT "/f", sizeof(want), 3);
	ASSERT_LE(0, fd);
	pattern(want, sizeof(want), 3, 0);
	p = daxfs_map(fd, sizeof(want), PROT_READ, MAP_SHARED);
	REQUIRE_MAPPED(p);
	CHECK_THAT(first_diff(p, want, sizeof(want)) < 0,
		   EXPECTED("the file's bytes through the mapping"),
		   SEEN("other bytes from offset %ld", first_diff(p, want, sizeof(want))),
		   HINT(HINT_FAULT));
	for (int i = 0; i < 3; i++) {
		long long phys = fiemap_physical(fd, i * BLK);
		unsigned long long got = pagemap_pfn(p + i * BLK);
		unsigned long long dev_pfn = phys < 0 ? 0 :
			direct_access_pfn(self->dev, phys / 512);

		ASSERT_NE(0, dev_pfn) TH_LOG("cannot find the device page of block %d", i);
		CHECK_THAT(got == dev_pfn,
			   EXPECTED("page %d mapped to pfn %#llx, the device's page for "
				    "its block (byte %lld of %s)", i, dev_pfn, phys, self->dev),
			   SEEN("pfn %#llx%s", got,
				got ? " (a copy?)" : " (not mapped: a page cache page would be)"),
			   HINT("map the pfn bdev_direct_access() gives with "
				"vmf_insert_mixed() (TODO 4)"));
	}
	munmap(p, sizeof(want));
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

TEST_F(map, stores_are_seen_without_msync)
{
	static unsigned char buf[2 * BLK];
	unsigned char *p, seen;
	pid_t pid;
	int fd, status;

	setup_dax_fs(_metadata, self->dev);
	fd = daxfs_make_file(MNT "/f", sizeof(buf), 5);
	ASSERT_LE(0, fd);
	p = daxfs_map(fd, sizeof(buf), PROT_READ | PROT_WRITE, MAP_SHARED);
	REQUIRE_MAPPED(p);

	memcpy(p + 100, "stored through the mapping", 26);
	ASSERT_EQ(0, pread_all(fd, buf, sizeof(buf), 0));
	CHECK_THAT(!memcmp(buf + 100, "stored through the mapping", 26),
		   EXPECTED("read() to see a store through a shared mapping at once"),
		   SEEN("the old bytes"), HINT(HINT_FAULT "; a write fault must map the "
					       "block writable"));

	/* another process, its own mapping of the file */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int cfd = open(MNT "/f", O_RDONLY);
		unsigned char *q = cfd < 0 ? NULL : daxfs_map(cfd, sizeof(buf), PROT_READ, MAP_SHARED);

		_exit(q && !memcmp(q + 100, "stored through the mapping", 26) ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	CHECK_THAT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   EXPECTED("another process's mapping to see the store"),
		   SEEN("the old bytes"), HINT(HINT_FAULT));

	ASSERT_EQ(0, pwrite_all(fd, "written with write()", 20, BLK + 7));
	seen = p[BLK + 7];
	CHECK_THAT(!memcmp(p + BLK + 7, "written with write()", 20),
		   EXPECTED("an existing mapping to see what write() wrote"),
		   SEEN("%#x at the first byte", seen),
		   HINT("the mapping and write() must reach the same device memory"));
	CHECK_THAT(msync(p, sizeof(buf), MS_SYNC) == 0 && fsync(fd) == 0,
		   EXPECTED("msync() and fsync() to succeed"), SEEN("%s", strerror(errno)),
		   HINT("a dax mapping has nothing to write back: nothing may fail"));
	munmap(p, sizeof(buf));
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

TEST_F(map, holes_map_zeros_until_written)
{
	unsigned char *p, *q;
	int fd, to_child[2], to_parent[2], status;
	long long blocks;
	char c;
	pid_t pid;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/sparse", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 4 * BLK));
	q = daxfs_map(fd, 4 * BLK, PROT_READ, MAP_SHARED);
	REQUIRE_MAPPED(q);
	CHECK_THAT(first_nonzero(q, 4 * BLK) < 0, EXPECTED("a hole to map zeros"),
		   SEEN("non-zero bytes"), HINT("a read fault on a hole maps a zeroed page"));
	blocks = st_blocks(fd);
	CHECK_THAT(blocks == 0, EXPECTED("no blocks after reading holes through a mapping"),
		   SEEN("st_blocks = %lld", blocks),
		   HINT("a read fault calls get_block() with create = 0 (TODO 2)"));

	/* a second process that has the hole mapped and read */
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		unsigned char *r = daxfs_map(fd, 4 * BLK, PROT_READ, MAP_SHARED);
		int ok = r && r[BLK] == 0 && r[2 * BLK] == 0;

		ok = write(to_parent[1], "r", 1) == 1 && ok;
		ok = read(to_child[0], &c, 1) == 1 && ok;
		/* now page 1 was stored to, page 2 written with write() */
		ok = ok && !memcmp(r + BLK, "mapped store", 12) &&
		     !memcmp(r + 2 * BLK, "write()", 7);
		_exit(ok ? 0 : 1);
	}
	ASSERT_EQ(1, read(to_parent[0], &c, 1));

	p = daxfs_map(fd, 4 * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	REQUIRE_MAPPED(p);
	memcpy(p + BLK, "mapped store", 12);
	ASSERT_EQ(0, pwrite_all(fd, "write()", 7, 2 * BLK));
	CHECK_THAT(st_blocks(fd) > 0, EXPECTED("a store to a hole to allocate a block"),
		   SEEN("st_blocks = %lld", st_blocks(fd)),
		   HINT("a write fault calls get_block() with create = 1 (TODO 3)"));
	CHECK_THAT(!memcmp(q + BLK, "mapped store", 12) && !memcmp(q + 2 * BLK, "write()", 7),
		   EXPECTED("this process's read-only mapping of the holes to see "
			    "the store and the write()"),
		   SEEN("%s", q[BLK] ? "only the store" : "zeros: the old hole page"),
		   HINT("once the block exists, the hole page must leave every "
			"mapping and the page cache (TODO 3; dax_do_io() for write())"));
	ASSERT_EQ(1, write(to_child[1], "w", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	CHECK_THAT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   EXPECTED("another process that had mapped the holes to see the "
			    "store and the write()"),
		   SEEN("the old zeros"), HINT("the same: the hole page must go (TODO 3)"));
	munmap(p, 4 * BLK);
	munmap(q, 4 * BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/*
 * A write() that fails (EFAULT) or stops short still may have allocated
 * blocks under holes that a mapping shows as zeroed hole pages.  The
 * blocks stay in the file (they are inside i_size), so the hole pages
 * must go: otherwise the mapping keeps showing zeros while read() and
 * other mappings see what is stored in the block.
 */
static void hole_page_then_a_write_that_fails(struct __test_metadata *_metadata,
					      const char *dev, int shortly)
{
	const char *what = shortly ? "a short write() (its source's second page unmapped)"
				   : "a write() that fails with EFAULT";
	unsigned char *q, *p, *src, got;
	long page = shortly ? 1 : 0;	/* the page whose hole page must go */
	char buf[8];
	ssize_t n;
	int fd;

	setup_dax_fs(_metadata, dev);
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 2 * BLK));
	q = daxfs_map(fd, 2 * BLK, PROT_READ, MAP_SHARED);
	REQUIRE_MAPPED(q);
	ASSERT_EQ(0, daxfs_touch(q + page * BLK, 0, 0, &got));	/* the hole page */

	/* two pages of source, the second one unmapped */
	src = mmap(NULL, 2 * BLK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, src);
	memset(src, 'S', BLK);
	ASSERT_EQ(0, munmap(src + BLK, BLK));
	if (shortly)
		n = pwrite(fd, src, 2 * BLK, 0);
	else
		n = pwrite(fd, src + BLK, BLK, 0);
	CHECK_THAT(shortly ? n == BLK : n < 0 && errno == EFAULT,
		   EXPECTED("%s to return %s", what, shortly ? "4096" : "-1 (EFAULT)"),
		   SEEN("%zd (%s)", n, n < 0 ? strerror(errno) : "no error"),
		   HINT("dax_do_io() returns what it copied, or the error if it copied "
			"nothing (lab 2)"));

	/* another mapping reads the page (a read fault), then stores 7 */
	p = daxfs_map(fd, 2 * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, daxfs_touch(p + page * BLK, 0, 0, &got));
	ASSERT_EQ(0, daxfs_touch(p + page * BLK, 1, 7, NULL));
	ASSERT_EQ(1, pread(fd, buf, 1, page * BLK));
	ASSERT_EQ(0, daxfs_touch(q + page * BLK, 0, 0, &got));
	CHECK_THAT(got == buf[0],
		   EXPECTED("after %s, then a store of 7 through another mapping, the first "
			    "mapping to show what read() shows at byte %ld (%d)", what,
			    page * BLK, buf[0]),
		   SEEN("%d: the old hole page is still mapped over a block the write "
			"allocated", got),
		   HINT("dax_do_io() (fs/dax_bh.c) must drop the hole pages over the whole "
			"range it was asked to write, not only over what it copied: "
			"get_block() may have allocated past it"));
	munmap(src, BLK);
	munmap(p, 2 * BLK);
	munmap(q, 2 * BLK);
	close(fd);
	unmount_and_fsck(_metadata, dev);
}

/*
 * An unaligned write() across several hole pages, ending part way into the
 * last: every one of them must leave every mapping, the last too.
 */
TEST_F(map, a_write_across_hole_pages_replaces_each_of_them)
{
	static unsigned char data[3 * BLK];
	unsigned char *q;
	long at;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/sparse", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 5 * BLK));
	q = daxfs_map(fd, 5 * BLK, PROT_READ, MAP_SHARED);
	REQUIRE_MAPPED(q);
	CHECK_THAT(first_nonzero(q, 5 * BLK) < 0, EXPECTED("the holes to map zeros"),
		   SEEN("non-zero bytes"), HINT("a read fault on a hole maps a zeroed page"));
	/* from byte 100 of page 1 to byte 100 of page 4 */
	pattern(data, sizeof(data), 17, BLK + 100);
	ASSERT_EQ(0, pwrite_all(fd, data, sizeof(data), BLK + 100));
	at = first_diff(q + BLK + 100, data, sizeof(data));
	CHECK_THAT(at < 0,
		   EXPECTED("a mapping that read the holes to see all %zu bytes written "
			    "from offset %ld", sizeof(data), BLK + 100),
		   SEEN("old zeros from offset %ld (page %ld)", at < 0 ? 0 : BLK + 100 + at,
			at < 0 ? 0 : (BLK + 100 + at) / BLK),
		   HINT("dax_do_io() must drop the hole pages of every page the write "
			"touched, the partly written last one included"));
	munmap(q, 5 * BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

TEST_F(map, a_failed_write_leaves_no_hole_page_over_its_block)
{
	hole_page_then_a_write_that_fails(_metadata, self->dev, 0);
}

TEST_F(map, a_short_write_leaves_no_hole_page_over_its_blocks)
{
	hole_page_then_a_write_that_fails(_metadata, self->dev, 1);
}

PMEM0_BAD_BLOCKS_FIXTURE(bad)

#define HINT_BAD "dax_clear_blocks() failed: ext2_get_blocks() (fs/ext2/inode.c) must " \
		 "give back the branch ext2_alloc_branch() made (blocks, i_blocks, " \
		 "quota), as ext2_alloc_branch() does when it fails itself"

/*
 * Blocks the filesystem cannot zero before it links them (the device
 * reports them bad) must not stay allocated: write() fails with EIO, a
 * store raises SIGBUS, and neither leaves a block behind.  pmem0 only:
 * brd keeps no bad blocks.
 */
TEST_F(bad, blocks_that_cannot_be_zeroed_are_given_back)
{
	static const struct { long long at, len; const char *what; } w[] = {
		{ BLK, BLK, "block 1" },
		{ 2 * BLK, 4 * BLK, "blocks 2-5 in one allocation" },
		{ 3 * BLK + 100, 3 * BLK, "blocks 3-6 from the middle of block 3" },
		{ 12 * BLK, BLK, "block 12 (a new indirect block and a data block)" },
		{ 13 * BLK - 1, 2 * BLK, "blocks 12-14 from the last byte of block 12" },
	};
	static unsigned char buf[4 * BLK];
	long long at, before;
	char bad[64];
	unsigned char *p;
	ssize_t n;
	int fd, bus;

	/*
	 * ext4 zeroes new blocks with bios (EXT4_GET_BLOCKS_CREATE_ZERO), and
	 * a write bio clears the bad blocks of an emulated pmem range: the
	 * zeroing succeeds, and there is nothing to give back.
	 */
	if (strcmp(daxfs()->name, "ext2"))
		SKIP(return, "%s zeroes through the block layer, which clears bad blocks",
		     daxfs()->name);
	setup_dax_fs(_metadata, "/dev/pmem0");
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	self->fd = fd;
	ASSERT_LE(0, fd);
	memset(buf, 'B', sizeof(buf));
	ASSERT_EQ(0, pwrite_all(fd, buf, BLK, 0));
	at = fiemap_physical(fd, 0);
	REQUIRE_THAT(at > 0, EXPECTED("FIEMAP to give the block of a written file"),
		     SEEN("%lld (%s)", at, strerror(errno)), HINT("ext2_fiemap()"));
	/* the 64 blocks after it: where the file's next block goes */
	snprintf(bad, sizeof(bad), "%lld %ld\n", at / 512 + BLK / 512, 64 * BLK / 512);
	REQUIRE_THAT(write_sysfs("/sys/block/pmem0/badblocks", bad) == 0,
		     EXPECTED("to mark sectors %s of pmem0 bad", bad),
		     SEEN("%s", strerror(errno)), HINT("a kernel without pmem badblocks?"));
	self->injected = 1;
	before = st_blocks(fd);

	/*
	 * Writes into the bad range, each one allocation: one block, several
	 * at once (all must be given back, not the first alone), and a data
	 * block behind a new indirect block (block 12: a branch of two).
	 */
	for (unsigned int i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		n = pwrite(fd, buf, w[i].len, w[i].at);
		CHECK_THAT(n < 0 && errno == EIO,
			   EXPECTED("write() of %s, which the device cannot zero, to fail "
				    "with EIO", w[i].what),
			   SEEN("%zd (%s)", n, n < 0 ? strerror(errno) : "no error"),
			   HINT("dax_do_io() returns get_block()'s error when it wrote nothing"));
		CHECK_THAT(st_blocks(fd) == before && lseek(fd, 0, SEEK_END) == BLK,
			   EXPECTED("after the failed write of %s, st_blocks %lld and size %ld",
				    w[i].what, before, BLK),
			   SEEN("st_blocks %lld, size %lld", st_blocks(fd),
				(long long)lseek(fd, 0, SEEK_END)),
			   HINT(HINT_BAD "; every block of the allocation, and the "
				"indirect block too"));
	}

	ASSERT_EQ(0, ftruncate(fd, 2 * BLK));
	p = daxfs_map(fd, 2 * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	REQUIRE_MAPPED(p);
	bus = daxfs_touch(p + BLK, 1, 'S', NULL);
	CHECK_THAT(bus, EXPECTED("a store to a hole the device cannot zero to raise SIGBUS"),
		   SEEN("the store went through"),
		   HINT("dax_fault() turns get_block()'s error into VM_FAULT_SIGBUS"));
	CHECK_THAT(st_blocks(fd) == before,
		   EXPECTED("after the failed store, st_blocks %lld", before),
		   SEEN("%lld", st_blocks(fd)), HINT(HINT_BAD));
	munmap(p, 2 * BLK);
	if (pmem0_unmount_and_forget(_metadata, &self->fd, &self->injected))
		return;
	CHECK_THAT(labcheck_fsck("/dev/pmem0") == 0,
		   EXPECTED("e2fsck -fn /dev/pmem0 to find the filesystem clean"),
		   SEEN("it did not (its report is above)"), HINT(HINT_BAD));
}

TEST_F(map, eof_page_of_a_mapping_shows_zeros_after_truncate)
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
	REQUIRE_MAPPED(p);
	CHECK_THAT(p[3000] == buf[3000], EXPECTED("the file's bytes through the mapping"),
		   SEEN("other bytes"), HINT(HINT_FAULT));
	ASSERT_EQ(0, ftruncate(fd, 2500));
	bad = first_nonzero(p + 2500, BLK - 2500);
	CHECK_THAT(bad < 0, EXPECTED("zeros past the new EOF (2500) in the mapped last page"),
		   SEEN("%#x at byte %ld", p[2500 + bad], 2500 + bad), HINT(HINT_GROW));
	CHECK_THAT(!memcmp(p, buf, 2500), EXPECTED("the bytes before EOF unchanged"),
		   SEEN("changed at byte %ld", first_diff(p, buf, 2500)),
		   HINT("bytes before the cut were zeroed: the zeroing starts at the "
			"cut's offset inside its block, not at the block's start "
			"(lab 5: TODO 1)"));
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
		   HINT(HINT_GROW));
	bad = first_diff(expect, p, size);
	CHECK_THAT(bad < 0, EXPECTED("after %s, the mapping made before to show byte %ld as %#x",
				     what[how], bad, bad < 0 ? 0 : expect[bad]),
		   SEEN("%#x", bad < 0 ? 0 : p[bad]),
		   HINT("the zeroes go to the device, where the mapping points"));
	munmap(p, 2 * BLK);
	close(fd);
	unmount_and_fsck(_metadata, dev);
}

TEST_F(map, stores_past_eof_do_not_become_data)
{
	store_past_eof_then_grow(_metadata, self->dev, BY_TRUNCATE);
}

TEST_F(map, stores_past_eof_do_not_become_data_when_a_write_grows_the_file)
{
	store_past_eof_then_grow(_metadata, self->dev, BY_A_WRITE_IN_THE_BLOCK);
	store_past_eof_then_grow(_metadata, self->dev, BY_A_WRITE_FURTHER_ON);
}

TEST_F(map, past_eof_is_sigbus)
{
	unsigned char *p, v = 1;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = daxfs_make_file(MNT "/f", 5000, 9);
	ASSERT_LE(0, fd);
	p = daxfs_map(fd, 4 * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	REQUIRE_MAPPED(p);
	CHECK_THAT(daxfs_touch(p + 6000, 0, 0, &v) == 0 && v == 0,
		   EXPECTED("the rest of the last page (past EOF, inside the page) to read 0"),
		   SEEN("%s", v ? "non-zero" : "SIGBUS"), HINT(HINT_FAULT));
	CHECK_THAT(daxfs_touch(p + 2 * BLK, 0, 0, NULL) == -1,
		   EXPECTED("SIGBUS on a load from the page past the EOF page"),
		   SEEN("no signal"), HINT("dax_fault(): pgoff past i_size is VM_FAULT_SIGBUS"));
	CHECK_THAT(daxfs_touch(p + 2 * BLK + 10, 1, 7, NULL) == -1,
		   EXPECTED("SIGBUS on a store to the first page past the EOF page"),
		   SEEN("no signal"), HINT("dax_fault(): pgoff past i_size is VM_FAULT_SIGBUS"));
	CHECK_THAT(daxfs_touch(p + 3 * BLK, 1, 7, NULL) == -1,
		   EXPECTED("SIGBUS on a store two pages past the EOF page"),
		   SEEN("no signal"), HINT("dax_fault(): pgoff past i_size is VM_FAULT_SIGBUS"));
	CHECK_THAT(st_blocks(fd) <= 16,
		   EXPECTED("no block allocated past EOF"), SEEN("st_blocks = %lld", st_blocks(fd)),
		   HINT("check i_size before get_block(create = 1)"));
	munmap(p, 4 * BLK);
	/* the same edge at every size of the table, for loads and for stores */
	daxfs_eof_edges(_metadata, fd, MAP_SHARED, 0,
			"dax_fault(): a page at or past DIV_ROUND_UP(i_size, PAGE_SIZE) is "
			"VM_FAULT_SIGBUS, the page that holds EOF is not");
	daxfs_eof_edges(_metadata, fd, MAP_SHARED, 1,
			"dax_fault() and dax_mkwrite(): a page at or past "
			"DIV_ROUND_UP(i_size, PAGE_SIZE) is VM_FAULT_SIGBUS, the page that "
			"holds EOF is not");
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

TEST_F(map, truncated_pages_are_sigbus_not_stale_data)
{
	static unsigned char other[8 * BLK], back[8 * BLK];
	unsigned char *p, v = 0;
	int fd, ofd;

	setup_dax_fs(_metadata, self->dev);
	fd = daxfs_make_file(MNT "/f", 8 * BLK, 21);
	ASSERT_LE(0, fd);
	p = daxfs_map(fd, 8 * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	REQUIRE_MAPPED(p);
	for (int i = 0; i < 8; i++)	/* map every page */
		v ^= p[i * BLK];
	ASSERT_EQ(0, ftruncate(fd, BLK));
	CHECK_THAT(daxfs_touch(p + 5 * BLK, 0, 0, &v) == -1,
		   EXPECTED("SIGBUS from the old pointer into the cut pages"),
		   SEEN("a load that worked (byte %#x)", v),
		   HINT("truncate unmaps pages past the new size; dax_fault() must "
			"not map them again: it checks i_size with invalidate_lock "
			"held, from the check to the insert (TODO 4)"));

	/* the freed blocks go to another file: still no way in through p */
	pattern(other, sizeof(other), 77, 0);
	ofd = daxfs_make_file(MNT "/other", sizeof(other), 77);
	ASSERT_LE(0, ofd);
	CHECK_THAT(daxfs_touch(p + 6 * BLK, 1, 0xEE, NULL) == -1,
		   EXPECTED("SIGBUS from a store through the old pointer once the "
			    "blocks are reused"),
		   SEEN("the store went somewhere"), HINT(HINT_FAULT));
	ASSERT_EQ(0, pread_all(ofd, back, sizeof(back), 0));
	CHECK_THAT(first_diff(back, other, sizeof(other)) < 0,
		   EXPECTED("the other file unchanged"),
		   SEEN("changed at offset %ld", first_diff(back, other, sizeof(other))),
		   HINT("a mapping of a freed block survived the truncate"));
	munmap(p, 8 * BLK);
	close(ofd);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/* ---- faults racing with truncate --------------------------------------- */

#define RACE_PAGES 16
#define RACE_LOW 4		/* pages [0, RACE_LOW) are never cut */
#define RACE_SECONDS 3

struct race {
	int fd;
	unsigned char *map;
	volatile int stop;
	long long stale;	/* a non-zero byte seen past the cut: where */
	unsigned long faults, cuts, sigbus;
};

static void *race_faulter(void *arg)
{
	struct race *r = arg;
	unsigned int st = (unsigned int)(uintptr_t)&st;

	while (!r->stop) {
		unsigned int page = rand_r(&st) % RACE_PAGES;
		unsigned char *at = r->map + page * BLK + rand_r(&st) % BLK;
		unsigned char v = 0;

		if (page < RACE_LOW) {		/* inside EOF: a real store */
			if (daxfs_touch(at, 1, 0x11, NULL))
				r->sigbus++;
		} else if (rand_r(&st) % 2) {	/* past the cut: zero or nothing */
			if (daxfs_touch(at, 1, 0, NULL))
				r->sigbus++;
		} else if (daxfs_touch(at, 0, 0, &v)) {
			r->sigbus++;
		} else if (v && r->stale < 0) {
			r->stale = page * BLK + (at - r->map) % BLK;
		}
		r->faults++;
		if (rand_r(&st) % 8 == 0)	/* drop the page tables: fault again */
			madvise(r->map + page * BLK, BLK, MADV_DONTNEED);
	}
	return NULL;
}

TEST_F(map, faults_race_with_truncate)
{
	struct race r = { .stale = -1 };
	pthread_t t[2];
	time_t end;

	setup_dax_fs(_metadata, self->dev);
	r.fd = daxfs_make_file(MNT "/race", RACE_PAGES * BLK, 31);
	ASSERT_LE(0, r.fd);
	r.map = daxfs_map(r.fd, RACE_PAGES * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	REQUIRE_MAPPED(r.map);
	/* the data past RACE_LOW goes: those blocks now hold stale bytes */
	ASSERT_EQ(0, ftruncate(r.fd, RACE_LOW * BLK));
	ASSERT_EQ(0, ftruncate(r.fd, RACE_PAGES * BLK));

	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, race_faulter, &r));
	end = time(NULL) + RACE_SECONDS;
	while (time(NULL) < end) {
		if (ftruncate(r.fd, RACE_LOW * BLK) || ftruncate(r.fd, RACE_PAGES * BLK))
			break;
		r.cuts++;
	}
	r.stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	TH_LOG("%lu faults, %lu SIGBUS, %lu truncates down and up", r.faults, r.sigbus, r.cuts);
	CHECK_THAT(r.stale < 0,
		   EXPECTED("only zeros past page %d, which is cut and re-extended", RACE_LOW),
		   SEEN("a non-zero byte at file offset %lld: a mapping of a freed block",
			r.stale),
		   HINT("a fault must hold invalidate_lock from its i_size check to "
			"its insert, as ext2_dax_bh_fault() takes it: is dax_fault() "
			"called without it (TODO 4)?"));
	CHECK_THAT(r.cuts > 10 && r.faults > 100,
		   EXPECTED("the race to have run"), SEEN("%lu truncates, %lu faults",
							  r.cuts, r.faults),
		   HINT("ftruncate() failed: %s", strerror(errno)));
	munmap(r.map, RACE_PAGES * BLK);
	close(r.fd);
	unmount_and_fsck(_metadata, self->dev);
}

/* ---- a store fault and write() allocating the same block -------------- */

#define FILL_ROUNDS 20000
#define FILL_SECONDS 6		/* then stop, once FILL_MIN_ROUNDS are done */
#define FILL_MIN_ROUNDS 500
#define FILL_MAX_SECONDS 60	/* fewer rounds by then: something is slow */
#define FILL_SPINS 1000		/* then yield while waiting for the other thread */
#define FILL_STORE_AT 100	/* the byte the mapping stores */
#define FILL_WRITE_AT 3000	/* the byte write() writes, same block */

struct fill {
	int fd;
	unsigned char *map;
	int round, done, stop;	/* __atomic: the threads' handshake */
};

/* The byte both threads put in the block in round r: never 0. */
static unsigned char fill_byte(int r)
{
	return 0x80 | (r & 0x7f);
}

/*
 * Wait by spinning, so that the two threads start a round together, but
 * not for ever: on a loaded host the vCPU that runs the other thread may
 * be descheduled, and a spinning vCPU only keeps it from running.
 */
static void fill_spin(long *spins)
{
	if (++*spins > FILL_SPINS)
		sched_yield();
}

static void *fill_writer(void *arg)
{
	struct fill *f = arg;
	int seen = 0;

	for (;;) {
		unsigned char c;
		long spins = 0;

		while (__atomic_load_n(&f->round, __ATOMIC_ACQUIRE) == seen &&
		       !__atomic_load_n(&f->stop, __ATOMIC_RELAXED))
			fill_spin(&spins);
		if (__atomic_load_n(&f->stop, __ATOMIC_RELAXED))
			return NULL;
		seen = __atomic_load_n(&f->round, __ATOMIC_ACQUIRE);
		c = fill_byte(seen);
		/* a failed write() shows as a lost byte */
		(void)!pwrite(f->fd, &c, 1, FILL_WRITE_AT);
		__atomic_store_n(&f->done, seen, __ATOMIC_RELEASE);
	}
}

/*
 * Each round makes block 0 a hole again, then one thread stores a byte
 * through the mapping while another write()s a byte elsewhere in the
 * block: both allocate it, and whichever comes second finds it allocated
 * and zeroed.  Zeroing it again after it is in the file (because
 * get_block() called it new) wipes what the other one put there.
 */
TEST_F(map, a_store_and_a_write_into_a_new_block_both_stay)
{
	struct fill f = { 0 };
	unsigned char back[BLK];
	long lost_store = 0, lost_write = 0, rounds = 0;
	const char *failed = NULL;
	struct timespec start, now;
	int err = 0;
	pthread_t t;

	setup_dax_fs(_metadata, self->dev);
	f.fd = open(MNT "/fill", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, f.fd);
	ASSERT_EQ(0, ftruncate(f.fd, BLK));
	f.map = daxfs_map(f.fd, BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	REQUIRE_MAPPED(f.map);
	ASSERT_EQ(0, pthread_create(&t, NULL, fill_writer, &f));
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (rounds < FILL_ROUNDS) {
		unsigned char v = fill_byte(rounds + 1);
		long spins = 0, elapsed;

		if (ftruncate(f.fd, 0) || ftruncate(f.fd, BLK)) {
			failed = "ftruncate()";
			err = errno;
			break;
		}
		__atomic_store_n(&f.round, (int)rounds + 1, __ATOMIC_RELEASE);
		if (daxfs_touch(f.map + FILL_STORE_AT, 1, v, NULL))
			failed = "a store (SIGBUS)";
		while (__atomic_load_n(&f.done, __ATOMIC_ACQUIRE) != rounds + 1)
			fill_spin(&spins);
		if (failed)
			break;
		if (pread_all(f.fd, back, BLK, 0)) {
			failed = "pread()";
			err = errno;
			break;
		}
		rounds++;
		lost_store += back[FILL_STORE_AT] != v;
		lost_write += back[FILL_WRITE_AT] != v;
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed = now.tv_sec - start.tv_sec;
		if ((elapsed >= FILL_SECONDS && rounds >= FILL_MIN_ROUNDS) ||
		    elapsed >= FILL_MAX_SECONDS)
			break;
	}
	__atomic_store_n(&f.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	TH_LOG("%ld rounds: %ld stores and %ld writes lost", rounds, lost_store, lost_write);
	CHECK_THAT(!failed,
		   EXPECTED("every round's ftruncate(), store and pread() to succeed"),
		   SEEN("%s failed in round %ld%s%s", failed ?: "", rounds + 1,
			err ? ": " : "", err ? strerror(err) : ""),
		   HINT(HINT_FAULT));
	CHECK_THAT(lost_store == 0 && lost_write == 0,
		   EXPECTED("every byte stored through the mapping and every byte "
			    "written with write() to stay, in %ld rounds", rounds),
		   SEEN("%ld stores and %ld writes lost: zeroed after they were made",
			lost_store, lost_write),
		   HINT("nothing may zero a block once it is in the file, where another "
			"thread can already be writing to it: not dax_fault() (TODO 3), "
			"and not write(), so ext2_get_block() must not report it new "
			"(TODO 6)"));
	CHECK_THAT(rounds >= FILL_MIN_ROUNDS,
		   EXPECTED("the race to run at least %d rounds in %d s", FILL_MIN_ROUNDS,
			    FILL_MAX_SECONDS),
		   SEEN("%ld rounds", rounds),
		   HINT("a fault or a write() into a hole is very slow: look for a "
			"loop in dax_fault() or dax_do_io()"));
	munmap(f.map, BLK);
	close(f.fd);
	unmount_and_fsck(_metadata, self->dev);
}

/* ---- new blocks, times ------------------------------------------------ */

TEST_F(map, store_into_a_new_block_leaves_zeros)
{
	static unsigned char back[BLK];
	unsigned char *p;
	long bad;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/new", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 4 * BLK));
	p = daxfs_map(fd, 4 * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	REQUIRE_MAPPED(p);
	p[2 * BLK + 1234] = 0x77;
	ASSERT_EQ(0, pread_all(fd, back, BLK, 2 * BLK));
	back[1234] ^= 0x77;	/* the byte stored, made zero */
	bad = first_nonzero(back, BLK);
	CHECK_THAT(bad < 0 && p[2 * BLK] == 0,
		   EXPECTED("a block allocated by a store to hold zeros but the byte stored"),
		   SEEN("%#x at offset %ld of the block (the device held 0xa5)",
			bad < 0 ? p[2 * BLK] : back[bad], bad < 0 ? 0 : bad),
		   HINT("zero new blocks before mapping them: dax_clear_blocks() "
			"(TODO 1; ext2_get_blocks() calls it for dax files; and TODO 6)"));
	munmap(p, 4 * BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

static long long mtime_ns(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	return st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

/*
 * Set the file's mtime far into the past (1970), so that any update moves
 * it, whatever the clock's granularity: no waiting for the next second.
 * The mappings are left as they are.  Its new mtime, in ns.
 */
static long long age_mtime(int fd)
{
	const struct timespec times[2] = { { 0, UTIME_OMIT }, { 1, 0 } };

	if (futimens(fd, times))
		return -1;
	return mtime_ns(fd);
}

TEST_F(map, mtime_follows_stores_not_loads)
{
	long long t0, t1, t2, t3;
	unsigned char *p, v;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = daxfs_make_file(MNT "/f", 4 * BLK, 41);
	ASSERT_LE(0, fd);
	p = daxfs_map(fd, 4 * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	REQUIRE_MAPPED(p);
	t0 = age_mtime(fd);
	REQUIRE_THAT(t0 == 1000000000LL, EXPECTED("futimens() to set mtime to 1970 + 1 s"),
		     SEEN("%lld ns (%s)", t0, t0 < 0 ? strerror(errno) : "another time"),
		     HINT("the check's set-up: ext2_setattr() (fs/ext2/inode.c), not this lab"));
	v = p[0] + p[BLK];		/* loads */
	t1 = mtime_ns(fd);
	CHECK_THAT(t1 == t0, EXPECTED("mtime unchanged by loads"),
		   SEEN("it moved by %lld ns", t1 - t0),
		   HINT("only write faults update the file's times"));
	p[BLK] = v + 1;			/* a store to a page mapped by a load */
	t2 = mtime_ns(fd);
	CHECK_THAT(t2 > t1, EXPECTED("mtime to move on a store to a page a load mapped"),
		   SEEN("unchanged"),
		   HINT("that store is a pfn_mkwrite fault: ext2_dax_pfn_mkwrite() "
			"calls file_update_time()"));
	t2 = age_mtime(fd);
	p[3 * BLK] = 1;			/* a store to a page not mapped yet */
	t3 = mtime_ns(fd);
	CHECK_THAT(t3 > t2, EXPECTED("mtime to move on a store to an unmapped page"),
		   SEEN("unchanged"), HINT("ext2_dax_bh_fault(): file_update_time() for write faults"));
	CHECK_THAT(msync(p, 4 * BLK, MS_SYNC) == 0 && fsync(fd) == 0,
		   EXPECTED("msync() and fsync() to succeed"), SEEN("%s", strerror(errno)),
		   HINT("nothing to write back, nothing may fail"));
	munmap(p, 4 * BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/*
 * Unbinding pmem's namespace under a dax mount must not free the memory
 * the mount maps and copies through: the unbind waits for the unmount.
 * Until then a mapped page still shows the file, a new fault maps the
 * file's page or raises SIGBUS, and read() gets the file's bytes or an
 * error.  Once unmounted the unbind finishes, and the device bound again
 * holds the file.  On pmem0p1: a partition keeps its size when its disk
 * is deleted, so the mount's calls still reach pmem's direct_access.
 * Last in the file: if the unbind never finishes, pmem0 is gone for good.
 */
FIXTURE(unbind) {};
FIXTURE_SETUP(unbind) {}
FIXTURE_TEARDOWN(unbind) {}

TEST_F(unbind, pmem_under_a_dax_mount_waits_for_the_unmount)
{
	static unsigned char want[4 * BLK], got[4 * BLK];
	const char *dev = "/dev/pmem0p1";
	int fd, status, unmounted, shown, faulted, copied;
	char ns[64], what[128];
	unsigned char *p, v;
	ssize_t n;
	pid_t pid;

	if (strcmp(daxfs()->name, "ext2"))
		SKIP(return, "the driver's part is lab 1's; ext4 adds nothing to it");
	umount(MNT);
	daxfs_catch_sigbus();
	direct_access_let_go();
	REQUIRE_THAT(labcheck_pmem_partition() == 0 &&
		     labcheck_pmem_namespace(ns, sizeof(ns)) == 0,
		     EXPECTED("/dev/pmem0, partitioned, on an nvdimm namespace"),
		     SEEN("not there (the reason is above)"),
		     HINT("a check before this one left pmem0 unbound: its failure comes "
			  "first"));
	setup_dax_fs(_metadata, dev);
	fd = daxfs_make_file(MNT "/f", sizeof(want), 23);
	ASSERT_LE(0, fd);
	pattern(want, sizeof(want), 23, 0);
	p = daxfs_map(fd, sizeof(want), PROT_READ, MAP_SHARED);
	REQUIRE_MAPPED(p);
	ASSERT_EQ(0, daxfs_touch(p, 0, 0, &v));
	sync();		/* the block layer's metadata writes fail once unbound */

	pid = labcheck_pmem_unbind(ns, &status, what, sizeof(what));
	ASSERT_LT(0, pid) TH_LOG("fork: %s", strerror(errno));
	CHECK_THAT(status == -1,
		   EXPECTED("the unbind of %s to delete the disk, then wait in "
			    "pmem_release_disk() while %s is mounted with a file mapped",
			    ns, dev),
		   SEEN("%s", what),
		   HINT("lab 1: pmem_release_disk() in drivers/nvdimm/pmem.c must wait "
			"for the disk's last close after del_gendisk()"));
	/*
	 * On a kernel that freed the memory, the mapped page still shows it
	 * (its pte names the physical page), and the fault and read() go
	 * through the freed driver without an oops: the status above, and
	 * KASAN (make check-lab 3 KASAN=1), are what see it.
	 */
	shown = first_diff(p, want, BLK) < 0;
	faulted = daxfs_touch(p + 2 * BLK, 0, 0, &v) == -1 ||
		  first_diff(p + 2 * BLK, want + 2 * BLK, BLK) < 0;
	n = pread(fd, got, BLK, BLK);
	copied = n < 0 || (n == BLK && first_diff(got, want + BLK, BLK) < 0);
	CHECK_THAT(shown && faulted && copied,
		   EXPECTED("the mapped page, a new fault (or SIGBUS) and read() (or an "
			    "error) to show the file while the unbind waits"),
		   SEEN("other bytes: the mapped page %s, the fault %s, read() %s",
			shown ? "right" : "wrong", faulted ? "right" : "wrong",
			copied ? "right" : "wrong"),
		   HINT("lab 1: pmem's memory must stay mapped until the last close"));
	munmap(p, sizeof(want));
	close(fd);
	unmounted = umount(MNT) == 0;
	CHECK_THAT(unmounted, EXPECTED("umount " MNT " to succeed"),
		   SEEN("%s (detached instead)", strerror(errno)),
		   HINT("nothing of the mount is open now"));
	if (!unmounted)
		umount2(MNT, MNT_DETACH);
	if (status < 0)
		status = labcheck_wait_child(pid, 10000);
	REQUIRE_THAT(status >= 0,
		     EXPECTED("the unbind to finish within 10 s of the unmount"),
		     SEEN("it still waits: pmem0 is gone for the rest of this boot"),
		     HINT("lab 1: pmem_release() must wake pmem_release_disk() up"));
	CHECK_THAT(status == 0, EXPECTED("the unbind to succeed"),
		   SEEN("exit status %d", status), HINT("the console log says why"));
	REQUIRE_THAT(labcheck_pmem_rebind(ns) == 0, EXPECTED("%s to bind to nd_pmem again", ns),
		     SEEN("it did not (the reason is above)"),
		     HINT("the checks after this one need /dev/pmem0"));
	REQUIRE_THAT(labcheck_pmem_partition() == 0, EXPECTED("%s back", dev),
		     SEEN("not there"), HINT("the rebound disk's partition table was rescanned"));
	REQUIRE_THAT(mount_fs(dev, "dax") == 0, EXPECTED("%s to mount again", dev),
		     SEEN("%s", strerror(errno)), HINT("see the unbind's steps above"));
	fd = open(MNT "/f", O_RDONLY);
	n = fd < 0 ? -1 : pread(fd, got, sizeof(got), 0);
	CHECK_THAT(n == sizeof(got) && first_diff(got, want, sizeof(got)) < 0,
		   EXPECTED("the file written before the unbind, whole"),
		   SEEN("%zd bytes, %s", n, n < 0 ? strerror(errno) : "other bytes"),
		   HINT("lab 1: pmem's memory must outlive the mount that wrote it"));
	if (fd >= 0)
		close(fd);
	umount(MNT);
}

LABCHECK_MAIN
