// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 7, black box: MAP_SYNC on ext4 -o dax (TODOs 1-3).
 *
 * A program that maps a dax file with MAP_SYNC never calls fsync(): it
 * makes its stores durable with CPU cache flushes, so the metadata that
 * locates a block (the extent, the file size) must be committed before a
 * store can reach the block.  What is checked, with the journal's count
 * of committed transactions (/proc/fs/jbd2/pmem0-8/info): a store to a
 * hole commits the new block before it returns; so does a store to a
 * block that write() allocated and nobody synced; a store to blocks that
 * are already committed commits nothing; past EOF, SIGBUS and no block;
 * a store killed before its retry leaves no hole page in another mapping.
 * MAP_SYNC is refused for files that are not dax files, and without a
 * journal or with fast commits.  The lab's
 * persistence suite shows the same thing end to end, across a power-off.
 */
#define DAXFS_DEFAULT "ext4"

#include <linux/mman.h>

#include "labcheck.h"
#include "daxfs.h"
#include "daxmodel.h"

#define DEV "pmem0"
#define PAGES 16L

#define HINT_MMAP "ext4_dax_bh_map_sync_ok() (fs/ext4/file.c, TODO 1): MAP_SYNC for " \
		  "dax files with a journal and no fast commits; ext4_file_mmap() refuses " \
		  "the others with EOPNOTSUPP"
#define HINT_FAULT "ext4_dax_bh_sync_check() (fs/ext4/file.c, TODO 2): allocate the " \
		   "block, then return VM_FAULT_NEEDDSYNC if ext4_inode_datasync_dirty(); " \
		   "ext4_dax_bh_sync_commit() (TODO 3) commits and has the access retried"
#define HINT_PFN "ext4_dax_pfn_mkwrite() (fs/ext4/file.c): a store to a block mapped " \
		 "read-only also calls ext4_dax_bh_sync_check() (without allocating)"

FIXTURE(map_sync) {
	int fd;
};

FIXTURE_SETUP(map_sync)
{
	self->fd = -1;
	umount(MNT);
	daxfs_catch_sigbus();
	/* commit=300: nothing but fsync() and MAP_SYNC commits here */
	daxfs_mkfs_dirty(_metadata, "/dev/" DEV, "dax,commit=300");
	if (!_metadata->passed)
		return;
	REQUIRE_THAT(jbd2_commits(DEV) >= 0, EXPECTED("/proc/fs/jbd2/" DEV "-8/info"),
		     SEEN("it is missing"), HINT("is the filesystem ext4 with a journal?"));
	self->fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(map_sync)
{
	if (self->fd >= 0)
		close(self->fd);
	umount(MNT);
}

static unsigned char *map_sync(int fd, long len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

#define REQUIRE_MAP_SYNC(p, fd, len) do {					\
	(p) = map_sync((fd), (len));						\
	REQUIRE_THAT((p) != NULL,						\
		     EXPECTED("mmap(MAP_SHARED_VALIDATE | MAP_SYNC) of a dax file"), \
		     SEEN("%s", strerror(errno)), HINT(HINT_MMAP));		\
} while (0)

/* MAP_SYNC of a file of a fresh ext4 made with mkfs_opts, or NULL */
static int map_sync_on(const char *mkfs_opts, const char *mount_opts)
{
	char cmd[256];
	void *p;
	int fd, ok;

	umount(MNT);
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F -b 4096 %s /dev/" DEV " >/dev/null 2>&1",
		 mkfs_opts);
	if (system(cmd) || mount_fs("/dev/" DEV, mount_opts))
		return -1;
	fd = open(MNT "/g", O_CREAT | O_RDWR, 0644);
	if (fd < 0 || ftruncate(fd, BLK))
		return -1;
	p = map_sync(fd, BLK);
	ok = p != NULL;
	if (p)
		munmap(p, BLK);
	close(fd);
	umount(MNT);
	return ok;
}

/*
 * The lab's model checker (labs/common/daxmodel.h) with MAP_SYNC shared
 * mappings: every store, inside EOF, in the page of EOF past it, and past
 * that page (SIGBUS), among writes, truncates and fallocate.
 */
TEST(random_operations_with_map_sync_match_a_model)
{
	static const struct dm_run run = {
		.name = "random_operations_with_map_sync", .lab = 7, .count = 1000,
		.ops = DM_TRUNCATE | DM_SHARED | DM_MAP_SYNC | DM_FALLOCATE | DM_REMOUNT,
		.hint = HINT_FAULT " " HINT_PFN,
	};

	umount(MNT);
	daxfs_catch_sigbus();
	daxmodel_run(_metadata, "/dev/" DEV, &run);
}

TEST_F(map_sync, map_sync_is_for_dax_files_only)
{
	unsigned char *p;
	int fd;

	ASSERT_EQ(0, ftruncate(self->fd, BLK));
	p = map_sync(self->fd, BLK);
	CHECK_THAT(p != NULL, EXPECTED("MAP_SYNC to map a file of a dax mount"),
		   SEEN("%s", strerror(errno)), HINT(HINT_MMAP));
	if (p)
		munmap(p, BLK);
	close(self->fd);
	self->fd = -1;

	ASSERT_EQ(0, umount(MNT));
	ASSERT_EQ(0, mount_fs("/dev/" DEV, "dax=never"));
	fd = open(MNT "/f", O_RDWR);
	ASSERT_LE(0, fd);
	p = map_sync(fd, BLK);
	CHECK_THAT(p == NULL && errno == EOPNOTSUPP,
		   EXPECTED("MAP_SYNC of a page cache file (dax=never) to fail with "
			    "EOPNOTSUPP: its stores sit in the page cache until writeback"),
		   SEEN("%s", p ? "it mapped" : strerror(errno)), HINT(HINT_MMAP));
	if (p)
		munmap(p, BLK);
	close(fd);
}

TEST_F(map_sync, map_sync_needs_a_journal_that_commits_allocations)
{
	int ok;

	close(self->fd);
	self->fd = -1;
	ok = map_sync_on("-O ^has_journal", "dax");
	CHECK_THAT(ok == 0, EXPECTED("MAP_SYNC refused on ext4 without a journal: "
				     "nothing commits the allocation a fault makes"),
		   SEEN("%s", ok < 0 ? "the setup failed" : "it mapped"), HINT(HINT_MMAP));
	ok = map_sync_on("-O fast_commit", "dax");
	CHECK_THAT(ok == 0, EXPECTED("MAP_SYNC refused on ext4 with fast commits, "
				     "which do not commit the allocation"),
		   SEEN("%s", ok < 0 ? "the setup failed" : "it mapped"), HINT(HINT_MMAP));
	ok = map_sync_on("", "dax");
	CHECK_THAT(ok == 1, EXPECTED("MAP_SYNC on ext4 with a journal, mounted -o dax"),
		   SEEN("%s", ok < 0 ? "the setup failed" : "refused"), HINT(HINT_MMAP));
}

TEST_F(map_sync, a_store_to_a_hole_commits_the_new_block_first)
{
	long before, after, again;
	unsigned char *p;

	ASSERT_EQ(0, ftruncate(self->fd, PAGES * BLK));
	ASSERT_EQ(0, fsync(self->fd));
	REQUIRE_MAP_SYNC(p, self->fd, PAGES * BLK);
	before = jbd2_commits_settled(DEV);
	for (long i = 0; i < PAGES; i++) {
		REQUIRE_THAT(daxfs_touch(p + i * BLK, 1, 0x5a, NULL) == 0,
			     EXPECTED("a store to page %ld", i), SEEN("SIGBUS"),
			     HINT(HINT_FAULT));
		after = jbd2_commits_after(DEV, before);
		REQUIRE_THAT(after > before,
			     EXPECTED("the store into the hole at page %ld to commit the "
				      "journal before it returns (%ld transactions before)",
				      i, before),
			     SEEN("%ld after", after), HINT(HINT_FAULT));
		p[i * BLK + 1] = 0x5b;
		again = jbd2_commits_settled(DEV);
		CHECK_THAT(again == after,
			   EXPECTED("a second store to the same page to commit nothing"),
			   SEEN("%ld transactions, not %ld", again, after),
			   HINT("once committed, the fault maps the page writable"));
		before = again;
	}
	CHECK_THAT(st_blocks(self->fd) == PAGES * BLK / 512,
		   EXPECTED("%ld sectors allocated", PAGES * BLK / 512),
		   SEEN("%lld", st_blocks(self->fd)), HINT(HINT_FAULT));
	munmap(p, PAGES * BLK);
}

TEST_F(map_sync, a_store_to_a_block_nobody_synced_commits_it_first)
{
	unsigned char buf[BLK];
	unsigned char *p, c;
	long before, after;

	memset(buf, 0x33, sizeof(buf));
	for (long i = 0; i < PAGES; i++)
		ASSERT_EQ(0, pwrite_all(self->fd, buf, BLK, i * BLK));
	REQUIRE_MAP_SYNC(p, self->fd, PAGES * BLK);
	/* a load maps the block read-only; the store comes by pfn_mkwrite */
	ASSERT_EQ(0, daxfs_touch(p, 0, 0, &c));
	before = jbd2_commits_settled(DEV);
	REQUIRE_THAT(daxfs_touch(p, 1, 0x44, NULL) == 0, EXPECTED("a store to page 0"),
		     SEEN("SIGBUS"), HINT(HINT_PFN));
	after = jbd2_commits_after(DEV, before);
	CHECK_THAT(after > before,
		   EXPECTED("a store to a block that write() allocated without fsync() "
			    "to commit the allocation before it returns (%ld transactions "
			    "before)", before),
		   SEEN("%ld after", after), HINT(HINT_PFN));
	munmap(p, PAGES * BLK);
}

TEST_F(map_sync, a_store_to_committed_blocks_commits_nothing)
{
	unsigned char buf[BLK], *p, c;
	long before, after;

	memset(buf, 0x11, sizeof(buf));
	for (long i = 0; i < PAGES; i++)
		ASSERT_EQ(0, pwrite_all(self->fd, buf, BLK, i * BLK));
	ASSERT_EQ(0, fsync(self->fd));
	REQUIRE_MAP_SYNC(p, self->fd, PAGES * BLK);
	before = jbd2_commits_settled(DEV);	/* the fsync()'s commit counted */
	for (long i = 0; i < PAGES; i++) {
		/* half by a write fault, half by a load then pfn_mkwrite */
		if (i % 2)
			ASSERT_EQ(0, daxfs_touch(p + i * BLK, 0, 0, &c));
		REQUIRE_THAT(daxfs_touch(p + i * BLK, 1, 0x22, NULL) == 0,
			     EXPECTED("a store to page %ld", i), SEEN("SIGBUS"),
			     HINT(HINT_FAULT));
	}
	after = jbd2_commits_settled(DEV);
	CHECK_THAT(after == before,
		   EXPECTED("stores to blocks whose metadata is committed to commit "
			    "nothing (the new mtime is not fdatasync metadata)"),
		   SEEN("%ld transactions, not %ld", after, before),
		   HINT("commit only when ext4_inode_datasync_dirty(): a commit per "
			"fault would make MAP_SYNC slower than msync()"));
	ASSERT_EQ(0, pread_all(self->fd, buf, BLK, (PAGES - 1) * BLK));
	CHECK_THAT(buf[0] == 0x22, EXPECTED("read() to see the store (0x22)"),
		   SEEN("%#x", buf[0]), HINT(HINT_FAULT));
	munmap(p, PAGES * BLK);
}

/*
 * A MAP_SYNC store into a hole allocates the block, commits, and has the
 * store retried; the retry is what maps the block.  A task killed before
 * its retry never makes it, but the block stays in the file.  A hole page
 * that another mapping holds for that page must be gone by then: a load
 * and then a store through a third mapping (pfn_mkwrite, which removes no
 * hole page) must show in it.  A child makes the store; it is killed as
 * soon as the file's blocks grow (the allocation), long before the
 * commit ends.  A round whose store was retried before the kill (the byte
 * is there) shows nothing, and the next page is tried.
 */
#define KILL_PAGES 64L

TEST_F(map_sync, a_store_killed_before_its_retry_leaves_no_hole_page)
{
	unsigned char *seen, *other, v, got;
	int landed = 0, tries = 0, status, reaped;
	long long before;
	pid_t pid;

	ASSERT_EQ(0, ftruncate(self->fd, KILL_PAGES * BLK));
	ASSERT_EQ(0, fsync(self->fd));
	seen = daxfs_map(self->fd, KILL_PAGES * BLK, PROT_READ, MAP_SHARED);
	other = daxfs_map(self->fd, KILL_PAGES * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_TRUE(seen && other) TH_LOG("mmap: %s", strerror(errno));
	for (long i = 0; i < KILL_PAGES && landed < 3; i++) {
		/* a load of the hole: a zeroed page cache page in "seen" */
		ASSERT_EQ(0, daxfs_touch(seen + i * BLK, 0, 0, &v));
		before = st_blocks(self->fd);
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			unsigned char *p = map_sync(self->fd, KILL_PAGES * BLK);

			if (p)
				p[i * BLK] = 0x5a;
			_exit(p ? 0 : 1);
		}
		reaped = 0;
		for (long t = 0; t < 100000000L && st_blocks(self->fd) == before; t++) {
			reaped = waitpid(pid, &status, WNOHANG) == pid;
			if (reaped)
				break;
		}
		if (!reaped) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		tries++;
		REQUIRE_THAT(st_blocks(self->fd) > before,
			     EXPECTED("the child's MAP_SYNC store into the hole at page %ld "
				      "to allocate its block", i),
			     SEEN("st_blocks %lld, as before; the child %s", before,
				  WIFEXITED(status) && WEXITSTATUS(status) ?
				  "could not map the file" : "ended"),
			     HINT(HINT_FAULT));
		ASSERT_EQ(0, pread_all(self->fd, &got, 1, i * BLK));
		if (got)
			continue;	/* retried and stored before the kill */
		landed++;
		ASSERT_EQ(0, daxfs_touch(other + i * BLK, 0, 0, &v));
		ASSERT_EQ(0, daxfs_touch(other + i * BLK, 1, 7, NULL));
		ASSERT_EQ(0, daxfs_touch(seen + i * BLK, 0, 0, &v));
		CHECK_THAT(v == 7,
			   EXPECTED("page %ld, read in one mapping while a hole, to show the "
				    "7 stored through another after a MAP_SYNC store "
				    "allocated its block and was killed before its retry", i),
			   SEEN("%#x: that mapping still has the zeroed hole page", v),
			   HINT("ext4_dax_bh_sync_check() (fs/ext4/file.c, TODO 2): after "
				"allocating, remove the page's hole pages as dax_fault() "
				"does; the retry that reaches dax_fault() may never come"));
		if (v != 7)
			break;
	}
	munmap(seen, KILL_PAGES * BLK);
	munmap(other, KILL_PAGES * BLK);
	if (!landed)
		SKIP(return, "each of %d MAP_SYNC stores was retried before its kill: "
		     "the host was too slow to kill one in time", tries);
}

TEST_F(map_sync, a_store_past_eof_is_sigbus_and_allocates_nothing)
{
	unsigned char *p;
	long long blocks;
	long commits, after;

	ASSERT_EQ(0, ftruncate(self->fd, BLK));
	ASSERT_EQ(0, fsync(self->fd));
	REQUIRE_MAP_SYNC(p, self->fd, 4 * BLK);
	commits = jbd2_commits_settled(DEV);	/* the fsync()'s commit counted */
	/* the edge: the first page past EOF; then one further on */
	CHECK_THAT(daxfs_touch(p + BLK, 1, 0x65, NULL) == -1,
		   EXPECTED("SIGBUS for a store to the first page past EOF"),
		   SEEN("the store went in"),
		   HINT("ext4_dax_bh_sync_check(): allocate nothing past EOF; dax_fault() "
			"then sends SIGBUS"));
	CHECK_THAT(daxfs_touch(p + 2 * BLK, 1, 0x66, NULL) == -1,
		   EXPECTED("SIGBUS for a store two pages past EOF"), SEEN("the store went in"),
		   HINT("ext4_dax_bh_sync_check(): allocate nothing past EOF; dax_fault() "
			"then sends SIGBUS"));
	blocks = st_blocks(self->fd);
	CHECK_THAT(blocks == 0, EXPECTED("no block allocated"), SEEN("st_blocks %lld", blocks),
		   HINT("ext4_dax_bh_sync_check(): check i_size before ext4_dax_get_block()"));
	after = jbd2_commits_settled(DEV);
	CHECK_THAT(after == commits,
		   EXPECTED("no journal commit for stores that raise SIGBUS (%ld before)",
			    commits),
		   SEEN("%ld after", after),
		   HINT("ext4_dax_bh_sync_check(): past EOF, return VM_FAULT_SIGBUS before "
			"asking whether to commit"));
	CHECK_THAT(daxfs_touch(p, 1, 0x67, NULL) == 0, EXPECTED("a store inside EOF"),
		   SEEN("SIGBUS"), HINT(HINT_FAULT));
	munmap(p, 4 * BLK);
	/* the same edge at every size of the table: the page of EOF is inside */
	daxfs_eof_edges(_metadata, self->fd, MAP_SHARED_VALIDATE | MAP_SYNC, 1,
			"ext4_dax_bh_sync_check(): a page at or past "
			"DIV_ROUND_UP(i_size, PAGE_SIZE) is past EOF; the page that holds "
			"EOF is not, also when i_size is not a page multiple");
	close(self->fd);
	self->fd = -1;
	unmount_and_fsck(_metadata, "/dev/" DEV);
}

LABCHECK_MAIN
