// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 4, black box: a store to a MAP_PRIVATE mapping of a dax file gets a
 * private copy of the page, made by the fault handler in one fault
 * (VM_FAULT_DONE_COW), and never reaches the file.
 *
 * What is checked: that the private store stays private (read(), md5-like
 * digest of the file, shared mappings, the page's pfn outside the device),
 * that a store over a hole allocates nothing and adds no page cache page,
 * that a load maps the device and a later store replaces it with a copy of
 * the old bytes, fork, SIGBUS past EOF, one fault per store, and a race
 * with truncate and rewrite.  Every workload ends with e2fsck -fn.
 */
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>

#include "labcheck.h"
#include "daxfs.h"
#include "daxmodel.h"

#define HINT_COW "the COW branch of dax_fault(): dax_bh_cow() in fs/dax_bh.c (TODO 1-2)"

/* A store through a private mapping; the check goes no further without it. */
#define REQUIRE_PRIVATE_STORE(addr, val)					\
	REQUIRE_THAT(daxfs_touch(addr, 1, val, NULL) == 0,			\
		     EXPECTED("a store to a private mapping of the file to work"), \
		     SEEN("SIGBUS"), HINT(HINT_COW))

/* A digest of the whole file through read() (FNV-1a). */
static unsigned long long digest(int fd)
{
	unsigned char buf[4096];
	unsigned long long h = 1469598103934665603ULL;
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ULL;
		off += n;
	}
	return h;
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

DAX_DEVICE_FIXTURE(cow)

/*
 * The lab's model checker (labs/common/daxmodel.h) with a private mapping
 * beside the shared ones: a page not yet copied shows the file, a store
 * copies it, a cut drops the copies past the page of EOF.
 */
TEST_F(cow, random_operations_with_private_mappings_match_a_model)
{
	static const struct dm_run run = {
		.name = "random_operations_with_private_mappings", .lab = 4, .count = 1000,
		.ops = DM_TRUNCATE | DM_SHARED | DM_PRIVATE | DM_REMOUNT,
		.hint = HINT_COW,
	};

	daxmodel_run(_metadata, self->dev, &run);
}

TEST_F(cow, private_store_stays_private)
{
	unsigned long long before, after, pfn, pmem_start, pmem_end;
	unsigned char *priv, *shared;
	unsigned char back[16];
	int fd;

	ASSERT_EQ(0, labcheck_pmem_range(&pmem_start, &pmem_end));
	setup_dax_fs(_metadata, self->dev);
	fd = daxfs_make_file(MNT "/f", 4 * BLK, 51);
	ASSERT_LE(0, fd);
	before = digest(fd);
	shared = daxfs_map(fd, 4 * BLK, PROT_READ, MAP_SHARED);
	priv = daxfs_map(fd, 4 * BLK, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	ASSERT_NE(NULL, shared);
	REQUIRE_THAT(priv, EXPECTED("mmap(MAP_PRIVATE) of a dax file"),
		     SEEN("%s", strerror(errno)), HINT("see lab 3"));
	(void)shared[BLK];		/* the shared mapping maps the block */
	REQUIRE_THAT(daxfs_touch(priv + BLK + 10, 1, 0xAB, NULL) == 0,
		     EXPECTED("a store to a private mapping of the file to work"),
		     SEEN("SIGBUS"), HINT(HINT_COW));
	CHECK_THAT(priv[BLK + 10] == 0xAB, EXPECTED("the private mapping to see its store"),
		   SEEN("%#x", priv[BLK + 10]), HINT(HINT_COW));
	after = digest(fd);
	CHECK_THAT(after == before, EXPECTED("the file unchanged by a private store"),
		   SEEN("its contents changed"),
		   HINT("copy into vmf->cow_page; never write the device"));
	ASSERT_EQ(0, pread_all(fd, back, sizeof(back), BLK + 10));
	CHECK_THAT(shared[BLK + 10] != 0xAB && back[0] != 0xAB,
		   EXPECTED("a shared mapping and read() to see the old byte"),
		   SEEN("shared %#x, read() %#x", shared[BLK + 10], back[0]),
		   HINT("the private page must be a copy"));
	pfn = pagemap_pfn(priv + BLK);
	CHECK_THAT(pfn && (pfn << 12 < pmem_start || pfn << 12 > pmem_end) &&
		   pfn != direct_access_pfn(self->dev, fiemap_physical(fd, BLK) / 512),
		   EXPECTED("the private page to be anonymous memory, not the device's"),
		   SEEN("pfn %#llx", pfn), HINT(HINT_COW));
	munmap(priv, 4 * BLK);
	munmap(shared, 4 * BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

TEST_F(cow, a_private_store_changes_no_time_of_the_file)
{
	const struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	struct stat before, after;
	unsigned char *priv;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = daxfs_make_file(MNT "/f", 2 * BLK, 81);
	ASSERT_LE(0, fd);
	/* an mtime far in the past, and a ctime a new one would differ from */
	ASSERT_EQ(0, futimens(fd, old));
	ASSERT_EQ(0, fstat(fd, &before));
	while (time(NULL) <= before.st_ctim.tv_sec)
		usleep(20000);
	priv = daxfs_map(fd, 2 * BLK, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	ASSERT_NE(NULL, priv);
	REQUIRE_PRIVATE_STORE(priv + 10, 0x77);
	REQUIRE_PRIVATE_STORE(priv + BLK + 10, 0x77);
	munmap(priv, 2 * BLK);
	ASSERT_EQ(0, fstat(fd, &after));
	CHECK_THAT(after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
		   after.st_ctim.tv_sec == before.st_ctim.tv_sec,
		   EXPECTED("mtime %lld and ctime %lld unchanged by private stores",
			    (long long)before.st_mtim.tv_sec, (long long)before.st_ctim.tv_sec),
		   SEEN("mtime %lld, ctime %lld", (long long)after.st_mtim.tv_sec,
			(long long)after.st_ctim.tv_sec),
		   HINT("a private store changes a copy, not the file: only a write "
			"fault of a shared mapping calls file_update_time() "
			"(ext2_dax_bh_fault() in fs/ext2/file.c)"));
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

TEST_F(cow, private_store_over_a_hole_allocates_nothing)
{
	unsigned char *priv, *probe, vec[4];
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/sparse", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 4 * BLK));
	priv = daxfs_map(fd, 4 * BLK, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	ASSERT_NE(NULL, priv);
	REQUIRE_THAT(daxfs_touch(priv + 2 * BLK + 5, 1, 0x5C, NULL) == 0,
		     EXPECTED("a private store over a hole to work"), SEEN("SIGBUS"),
		     HINT(HINT_COW));
	CHECK_THAT(priv[2 * BLK + 5] == 0x5C && priv[2 * BLK] == 0 && priv[3 * BLK - 1] == 0,
		   EXPECTED("the store, and zeros around it"),
		   SEEN("%#x, %#x, %#x", priv[2 * BLK + 5], priv[2 * BLK], priv[3 * BLK - 1]),
		   HINT("over a hole, the copy is a zeroed page"));
	CHECK_THAT(st_blocks(fd) == 0, EXPECTED("no block allocated"),
		   SEEN("st_blocks = %lld", st_blocks(fd)),
		   HINT("a private store must not call get_block() with create = 1"));
	/* a mapping that never faulted: mincore() tells about the page cache */
	probe = daxfs_map(fd, 4 * BLK, PROT_READ, MAP_SHARED);
	ASSERT_NE(NULL, probe);
	ASSERT_EQ(0, mincore(probe, 4 * BLK, vec));
	CHECK_THAT(!(vec[2] & 1), EXPECTED("no page cache page for the hole"),
		   SEEN("one (a hole page was made to copy from)"),
		   HINT("zero vmf->cow_page directly (clear_user_highpage())"));
	munmap(probe, 4 * BLK);
	munmap(priv, 4 * BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

TEST_F(cow, load_maps_the_device_then_a_store_copies_it)
{
	unsigned char *priv, want[64];
	unsigned long long dev_pfn, pfn;
	long before, faults;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = daxfs_make_file(MNT "/f", 4 * BLK, 61);
	ASSERT_LE(0, fd);
	pattern(want, sizeof(want), 61, BLK);
	priv = daxfs_map(fd, 4 * BLK, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	ASSERT_NE(NULL, priv);
	dev_pfn = direct_access_pfn(self->dev, fiemap_physical(fd, BLK) / 512);
	ASSERT_NE(0, dev_pfn);
	CHECK_THAT(priv[BLK] == want[0] && pagemap_pfn(priv + BLK) == dev_pfn,
		   EXPECTED("a load from a private mapping to map the device page %#llx",
			    dev_pfn),
		   SEEN("pfn %#llx", pagemap_pfn(priv + BLK)),
		   HINT("a load is not a COW fault: it maps like lab 3"));
	REQUIRE_PRIVATE_STORE(priv + BLK + 1, 0x99);
	pfn = pagemap_pfn(priv + BLK);
	CHECK_THAT(pfn != dev_pfn, EXPECTED("the store to replace the device page by a copy"),
		   SEEN("still pfn %#llx", pfn), HINT(HINT_COW));
	want[1] = 0x99;
	CHECK_THAT(!memcmp(priv + BLK, want, sizeof(want)),
		   EXPECTED("the copy to hold the old bytes and the store"),
		   SEEN("other bytes"), HINT("fill the copy from the device"));

	/*
	 * One fault for a store to a page not mapped yet.  Two pages, and
	 * the fewer faults of the two: under TCG a rare spurious fault can
	 * add one to either, while a COW in two faults costs two on each.
	 */
	before = minflt();
	REQUIRE_PRIVATE_STORE(priv + 2 * BLK + 7, 1);
	faults = minflt() - before;
	before = minflt();
	REQUIRE_PRIVATE_STORE(priv + 3 * BLK + 7, 1);
	before = minflt() - before;
	if (before < faults)
		faults = before;
	CHECK_THAT(faults == 1, EXPECTED("one page fault for a private store"),
		   SEEN("%ld faults", faults),
		   HINT("map read-only and copy on the next fault costs two: fill "
			"vmf->cow_page, finish_fault() and return VM_FAULT_DONE_COW"));
	pattern(want, sizeof(want), 61, 3 * BLK);
	want[7] = 1;
	CHECK_THAT(!memcmp(priv + 3 * BLK, want, sizeof(want)),
		   EXPECTED("that copy, too, to hold the old bytes and the store"),
		   SEEN("other bytes from offset %ld",
			first_diff(priv + 3 * BLK, want, sizeof(want))),
		   HINT("copy the block into vmf->cow_page (TODO 1): mm copies only "
			"when the page was mapped before the store"));
	munmap(priv, 4 * BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

TEST_F(cow, copies_are_independent_after_fork)
{
	unsigned char *priv;
	int fd, status, pipefd[2];
	char c;
	pid_t pid;

	setup_dax_fs(_metadata, self->dev);
	fd = daxfs_make_file(MNT "/f", 2 * BLK, 71);
	ASSERT_LE(0, fd);
	priv = daxfs_map(fd, 2 * BLK, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	ASSERT_NE(NULL, priv);
	REQUIRE_PRIVATE_STORE(priv, 'P');
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int ok = priv[0] == 'P';

		priv[0] = 'C';
		priv[BLK] = 'C';
		ok = ok && write(pipefd[1], "x", 1) == 1;
		_exit(ok ? 0 : 1);
	}
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	CHECK_THAT(WIFEXITED(status) && !WEXITSTATUS(status),
		   EXPECTED("the child to inherit the parent's private copy"),
		   SEEN("it did not"), HINT(HINT_COW));
	CHECK_THAT(priv[0] == 'P' && priv[BLK] != 'C',
		   EXPECTED("the parent's pages untouched by the child's stores"),
		   SEEN("%c and %#x", priv[0], priv[BLK]), HINT(HINT_COW));
	priv[BLK] = 'P';
	CHECK_THAT(digest(fd) != 0 && priv[BLK] == 'P',
		   EXPECTED("the parent's own store to work"), SEEN("it did not"),
		   HINT(HINT_COW));
	munmap(priv, 2 * BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

TEST_F(cow, private_store_past_eof_is_sigbus)
{
	unsigned char *priv;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = daxfs_make_file(MNT "/f", 100, 81);
	ASSERT_LE(0, fd);
	priv = daxfs_map(fd, 3 * BLK, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	ASSERT_NE(NULL, priv);
	CHECK_THAT(daxfs_touch(priv + 200, 1, 1, NULL) == 0,
		   EXPECTED("a private store inside the EOF page to work"), SEEN("SIGBUS"),
		   HINT(HINT_COW));
	CHECK_THAT(daxfs_touch(priv + 2 * BLK, 1, 1, NULL) == -1,
		   EXPECTED("SIGBUS on a private store past the EOF page"),
		   SEEN("no signal"),
		   HINT("dax_fault() checks i_size before anything else, the COW "
			"branch too; do not skip it for a COW fault"));
	munmap(priv, 3 * BLK);
	/* the same edge at every size of the table */
	daxfs_eof_edges(_metadata, fd, MAP_PRIVATE, 1,
			"dax_fault() checks i_size before anything else, the COW branch too: "
			"the page that holds EOF is copied, the next one is VM_FAULT_SIGBUS");
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/* ---- a race with truncate and rewrite ------------------------------- */

#define RACE_PAGES 8
#define RACE_SECONDS 3

struct race {
	int fd;
	unsigned char *priv;
	volatile int stop;
	long long bad;		/* offset of a byte the file never held */
	unsigned char seen;
	unsigned long ops, eof_sigbus;
};

/* The file holds generation A or B of the pattern, or zeros past a cut. */
static int plausible(long long off, unsigned char v)
{
	unsigned char a, b;

	pattern(&a, 1, 100, off);
	pattern(&b, 1, 200, off);
	return v == 0 || v == a || v == b || v == 0xEE;
}

static void *race_cow(void *arg)
{
	struct race *r = arg;
	unsigned int st = (unsigned int)(uintptr_t)&st;

	while (!r->stop) {
		unsigned int page = rand_r(&st) % RACE_PAGES;
		long long off = page * BLK + rand_r(&st) % BLK;
		unsigned char v;

		switch (rand_r(&st) % 3) {
		case 0:
			if (!daxfs_touch(r->priv + off, 0, 0, &v) && !plausible(off, v) && r->bad < 0) {
				r->bad = off;
				r->seen = v;
			}
			break;
		case 1:	/* page 0 is always inside EOF: a store there must work */
			if (daxfs_touch(r->priv + off, 1, 0xEE, NULL) && page == 0)
				r->eof_sigbus++;
			break;
		default:
			madvise(r->priv + page * BLK, BLK, MADV_DONTNEED);
		}
		r->ops++;
	}
	return NULL;
}

TEST_F(cow, private_faults_race_with_truncate)
{
	static unsigned char a[RACE_PAGES * BLK], b[RACE_PAGES * BLK];
	struct race r = { .bad = -1 };
	pthread_t t[2];
	time_t end;
	int gen = 0;

	setup_dax_fs(_metadata, self->dev);
	pattern(a, sizeof(a), 100, 0);
	pattern(b, sizeof(b), 200, 0);
	r.fd = open(MNT "/race", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, pwrite_all(r.fd, a, sizeof(a), 0));
	r.priv = daxfs_map(r.fd, sizeof(a), PROT_READ | PROT_WRITE, MAP_PRIVATE);
	ASSERT_NE(NULL, r.priv);
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, race_cow, &r));
	end = time(NULL) + RACE_SECONDS;
	while (time(NULL) < end) {
		if (ftruncate(r.fd, BLK / 2) ||
		    pwrite_all(r.fd, gen ? a : b, sizeof(a), 0))
			break;
		gen ^= 1;
	}
	r.stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	TH_LOG("%lu loads, stores and MADV_DONTNEEDs", r.ops);
	CHECK_THAT(r.bad < 0,
		   EXPECTED("only bytes the file held at each offset (or the stores)"),
		   SEEN("%#x at offset %lld", r.seen, r.bad),
		   HINT("copy from the block get_block() gave, all under the "
			"invalidate_lock the caller holds, up to finish_fault() (TODO 2)"));
	CHECK_THAT(r.eof_sigbus == 0,
		   EXPECTED("private stores to page 0, always inside EOF, to work"),
		   SEEN("%lu of them raised SIGBUS", r.eof_sigbus), HINT(HINT_COW));
	CHECK_THAT(r.ops > 100, EXPECTED("the race to have run"), SEEN("%lu ops", r.ops),
		   HINT("see the errors above"));
	munmap(r.priv, sizeof(a));
	close(r.fd);
	unmount_and_fsck(_metadata, self->dev);
}

LABCHECK_MAIN
