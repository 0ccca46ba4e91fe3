// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 7: the open problems of LSFMM 2014, as experiments on the finished
 * system.  Each test states what the 2014 design does on Linux 6.1's mm
 * and checks it; the lab page explains each result and what Linux did
 * later.
 *
 *  - msync() of a range: 6.1 syncs the range, as data only
 *    (vfs_fsync_range(..., datasync=1)): no journal commit when only the
 *    data and the times changed; fsync() commits the new mtime.
 *  - MAP_FIXED silently replaces what was mapped; MAP_FIXED_NOREPLACE
 *    (the "MAP_WEAK" of 2014) refuses.
 *  - get_user_pages() cannot reach dax memory (special page table entries,
 *    no struct page): O_DIRECT from a dax-mapped buffer, vmsplice() and a
 *    shared futex there fail, while the same calls on anonymous memory work.
 *  - So nothing can pin a dax page: truncate never waits, and a mapping of
 *    what it cut raises SIGBUS; mlock() succeeds and locks nothing.
 */
#define DAXFS_DEFAULT "ext4"

#include <linux/futex.h>
#include <linux/mman.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#include "labcheck.h"
#include "daxfs.h"

#define PC_MNT "/mnt/pc"
#define LEN (64 * BLK)

FIXTURE(exp) {
	int fd;			/* MNT/f: LEN bytes, written and synced */
	int pc;			/* PC_MNT/g on ram0 without dax, O_DIRECT */
	unsigned char *map;	/* MAP_SHARED of fd */
};

FIXTURE_SETUP(exp)
{
	unsigned char *buf = aligned_alloc(BLK, LEN);	/* O_DIRECT */

	umount(MNT);
	umount(PC_MNT);
	mkdir(PC_MNT, 0755);
	daxfs_catch_sigbus();
	ASSERT_EQ(0, daxfs_mkfs("/dev/pmem0", "4096"));
	REQUIRE_THAT(mount_fs("/dev/pmem0", "dax,commit=300") == 0,
		     EXPECTED("mount -o dax /dev/pmem0"), SEEN("%s", strerror(errno)),
		     HINT("lab 6's checks first"));
	ASSERT_EQ(0, daxfs_mkfs("/dev/ram0", "4096"));
	ASSERT_EQ(0, mount("/dev/ram0", PC_MNT, "ext4", 0, NULL));
	ASSERT_NE(NULL, buf);
	pattern(buf, LEN, 7, 0);
	self->fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pwrite_all(self->fd, buf, LEN, 0));
	ASSERT_EQ(0, fsync(self->fd));
	self->pc = open(PC_MNT "/g", O_CREAT | O_RDWR | O_DIRECT, 0644);
	ASSERT_LE(0, self->pc);
	ASSERT_EQ(0, pwrite_all(self->pc, buf, LEN, 0));	/* no holes to read */
	ASSERT_EQ(0, fsync(self->pc));
	free(buf);
	self->map = daxfs_map(self->fd, LEN, PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_NE(NULL, self->map);
}

FIXTURE_TEARDOWN(exp)
{
	munmap(self->map, LEN);
	close(self->fd);
	close(self->pc);
	umount(MNT);
	umount(PC_MNT);
}

TEST_F(exp, msync_of_a_range_commits_nothing_when_only_data_changed)
{
	long before, after_msync, after_fsync;

	usleep(20000);		/* a new mtime, whatever the clock's granularity */
	self->map[0] = 1;	/* the times change, nothing else */
	before = jbd2_commits_settled("pmem0");
	ASSERT_EQ(0, msync(self->map, BLK, MS_SYNC));
	after_msync = jbd2_commits_settled("pmem0");
	ASSERT_EQ(0, fsync(self->fd));
	after_fsync = jbd2_commits_after("pmem0", after_msync);
	CHECK_THAT(after_msync == before,
		   EXPECTED("msync() of one page to commit no transaction: 6.1 syncs the "
			    "range as data only (fdatasync), as asked in 2014"),
		   SEEN("%ld transactions, then %ld", before, after_msync),
		   HINT("msync_range in mm/msync.c calls vfs_fsync_range(..., 1)"));
	CHECK_THAT(after_fsync == after_msync + 1,
		   EXPECTED("fsync() to commit the new mtime: one transaction"),
		   SEEN("%ld, then %ld", after_msync, after_fsync),
		   HINT("ext4_dax_pfn_mkwrite() calls file_update_time()"));
}

TEST_F(exp, map_fixed_replaces_a_mapping_and_noreplace_refuses)
{
	unsigned char *anon, *p;

	anon = mmap(NULL, 2 * BLK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, anon);
	anon[0] = 0xee;
	p = mmap(anon, 2 * BLK, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE, self->fd, 0);
	CHECK_THAT(p == MAP_FAILED && errno == EEXIST && anon[0] == 0xee,
		   EXPECTED("MAP_FIXED_NOREPLACE over a mapping to fail with EEXIST and "
			    "leave it alone (the MAP_WEAK of 2014, Linux 4.17)"),
		   SEEN("%s, the old byte %#x", p == MAP_FAILED ? strerror(errno) : "mapped",
			anon[0]),
		   HINT("this is mm/mmap.c, not DAX"));
	p = mmap(anon, 2 * BLK, PROT_READ, MAP_SHARED | MAP_FIXED, self->fd, 0);
	ASSERT_EQ(anon, p);
	CHECK_THAT(p[0] == self->map[0],
		   EXPECTED("MAP_FIXED to replace the anonymous page silently with the file"),
		   SEEN("%#x, the file has %#x", p[0], self->map[0]),
		   HINT("this is mm/mmap.c, not DAX"));
	munmap(p, 2 * BLK);
}

TEST_F(exp, get_user_pages_cannot_reach_dax_memory)
{
	unsigned char *anon;
	struct iovec iov;
	ssize_t dax, ram;
	int pipefd[2];
	long r;

	anon = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, anon);
	memset(anon, 1, LEN);

	ram = pwrite(self->pc, anon, 16 * BLK, 0);
	dax = pwrite(self->pc, self->map, 16 * BLK, 0);
	CHECK_THAT(ram == 16 * BLK && dax < 0,
		   EXPECTED("O_DIRECT write() from an anonymous buffer to work, and from a "
			    "buffer mapped from a dax file to fail"),
		   SEEN("anonymous: %zd, dax: %zd (%s)", ram, dax,
			dax < 0 ? strerror(errno) : "worked"),
		   HINT("the 2014 core maps special page table entries (no struct page): "
			"get_user_pages() stops there"));
	dax = pread(self->pc, self->map, 16 * BLK, 0);
	CHECK_THAT(dax < 0, EXPECTED("O_DIRECT read() into a dax-mapped buffer to fail"),
		   SEEN("%zd", dax), HINT("as above"));

	ASSERT_EQ(0, pipe(pipefd));
	iov = (struct iovec){ .iov_base = self->map, .iov_len = BLK };
	dax = vmsplice(pipefd[1], &iov, 1, 0);
	CHECK_THAT(dax < 0, EXPECTED("vmsplice() of dax memory to fail"),
		   SEEN("%zd", dax), HINT("vmsplice pins pages with get_user_pages()"));
	close(pipefd[0]);
	close(pipefd[1]);

	r = syscall(SYS_futex, (uint32_t *)self->map, FUTEX_WAKE, 1, NULL, NULL, 0);
	CHECK_THAT(r < 0, EXPECTED("a shared futex in dax memory to fail"),
		   SEEN("%ld", r), HINT("a shared futex is keyed by its page"));
	r = syscall(SYS_futex, (uint32_t *)anon, FUTEX_WAKE, 1, NULL, NULL, 0);
	CHECK_THAT(r == 0, EXPECTED("a shared futex in anonymous memory to work"),
		   SEEN("%ld (%s)", r, strerror(errno)), HINT("futex(2)"));
	munmap(anon, LEN);
}

struct pinner {
	int pc;
	unsigned char *map;
	volatile int stop;
	long tries, pinned;
};

static void *try_to_pin(void *arg)
{
	struct pinner *p = arg;

	while (!p->stop) {
		p->tries++;
		if (pread(p->pc, p->map, 16 * BLK, 0) > 0)
			p->pinned++;
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

TEST_F(exp, nothing_pins_dax_pages_so_truncate_never_waits)
{
	struct pinner pin = { .pc = self->pc, .map = self->map };
	char status[4096], *lck;
	pthread_t t;
	double t0, took;
	int locked;

	locked = mlock(self->map, LEN);
	labcheck_read_file("/proc/self/status", status, sizeof(status));
	lck = strstr(status, "VmLck:");
	CHECK_THAT(locked == 0 && lck && atol(lck + 6) == 0,
		   EXPECTED("mlock() of a dax mapping to succeed and lock nothing (VmLck 0)"),
		   SEEN("mlock %d, %.24s", locked, lck ? lck : "no VmLck"),
		   HINT("mlock skips VM_MIXEDMAP mappings: there are no pages to lock"));
	munlock(self->map, LEN);

	ASSERT_EQ(0, pthread_create(&t, NULL, try_to_pin, &pin));
	usleep(200000);
	t0 = now_s();
	ASSERT_EQ(0, ftruncate(self->fd, 0));
	took = now_s() - t0;
	pin.stop = 1;
	pthread_join(t, NULL);
	CHECK_THAT(pin.tries > 0 && pin.pinned == 0,
		   EXPECTED("every O_DIRECT read into the mapping to fail: nothing pinned"),
		   SEEN("%ld of %ld worked", pin.pinned, pin.tries),
		   HINT("get_user_pages() on special entries"));
	CHECK_THAT(took < 2.0, EXPECTED("truncate to finish at once: nothing to wait for"),
		   SEEN("it took %.1f s", took), HINT("truncate waits for nobody in 2014"));
	CHECK_THAT(daxfs_touch(self->map, 0, 0, NULL) == -1,
		   EXPECTED("a load from the cut mapping to raise SIGBUS"),
		   SEEN("it read"), HINT("truncate_pagecache() removes dax mappings"));
}

LABCHECK_MAIN
