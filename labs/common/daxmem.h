/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daxmem.h - what the checks and the lab experiments (experiments/ of a lab)
 * share, with no test harness: known data patterns, whole reads and
 * writes, "is this file DAX?", where a page of a mapping is (pagemap) and
 * where a file byte is on the device (FIEMAP), and touching memory that
 * may raise SIGBUS.
 */
#ifndef DAXMEM_H
#define DAXMEM_H

#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FS_IOC_FIEMAP
#define FS_IOC_FIEMAP _IOWR('f', 11, struct fiemap)	/* as in <linux/fs.h> */
#endif

#define MNT "/mnt/dax"
#define BLK 4096L
#define MIB (1L << 20)

#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX 0x00200000
#endif

/* Fill p with bytes that depend on (seed, offset): any misplaced byte shows. */
static inline void pattern(unsigned char *p, size_t len, unsigned int seed, long long off)
{
	for (size_t i = 0; i < len; i++) {
		unsigned long long x = (off + i) * 0x9E3779B97F4A7C15ULL + seed;

		p[i] = (unsigned char)((x >> 29) ^ (x >> 41)) | 1;	/* never 0 */
	}
}

/* Write all of buf at off, or fail with the reason. */
static inline int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n = pwrite(fd, buf, len, off);

	if (n == (ssize_t)len)
		return 0;
	if (n >= 0)
		errno = EIO;	/* a short write counts as an error here */
	return -1;
}

static inline int pread_all(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	if (n == (ssize_t)len)
		return 0;
	if (n >= 0)
		errno = EIO;
	return -1;
}

/* The first offset where a and b differ, or -1. */
static inline long first_diff(const unsigned char *a, const unsigned char *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return i;
	return -1;
}

static inline long first_nonzero(const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return i;
	return -1;
}

/* Is path a DAX file, by statx()?  1, 0, or -1 if statx failed. */
static inline int is_dax(const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &stx))
		return -1;
	return !!(stx.stx_attributes & STATX_ATTR_DAX);
}

static inline long long st_blocks(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : (long long)st.st_blocks;
}

/* The pfn mapped at addr in this process (/proc/self/pagemap), or 0. */
static inline unsigned long long pagemap_pfn(const void *addr)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &e, sizeof(e), (uintptr_t)addr / 4096 * sizeof(e)) != sizeof(e))
		e = 0;
	close(fd);
	return (e >> 63) & 1 ? e & ((1ULL << 55) - 1) : 0;
}

/* The device byte offset of file byte off (FIEMAP), or -1 for a hole. */
static inline long long fiemap_physical(int fd, long long off)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent fe[1];
	} map;

	memset(&map, 0, sizeof(map));
	map.fm.fm_start = off;
	map.fm.fm_length = 1;
	map.fm.fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, &map.fm) || !map.fm.fm_mapped_extents ||
	    map.fe[0].fe_logical > (unsigned long long)off)
		return -1;
	return map.fe[0].fe_physical + (off - map.fe[0].fe_logical);
}

/*
 * How many transactions the journal of the filesystem on dev (a name such
 * as "pmem0") has committed (/proc/fs/jbd2/DEV-8/info), or -1.
 */
static inline long jbd2_commits(const char *dev)
{
	char path[96], text[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/fs/jbd2/%s-8/info", dev);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	return atol(text);
}

/*
 * jbd2 counts a commit in that file only after it has woken the tasks
 * that waited for the commit (jbd2_journal_commit_transaction()), so a
 * task back from fsync() or from a MAP_SYNC fault can read the count
 * before it moves.  jbd2_commits_after() waits for the count to pass
 * before, jbd2_commits_settled() for it to stay the same for 50 ms; both
 * give up after 2 s and return what they read last.
 */
static inline long jbd2_commits_after(const char *dev, long before)
{
	long n = jbd2_commits(dev);

	for (int i = 0; i < 200 && n >= 0 && n <= before; i++) {
		usleep(10000);
		n = jbd2_commits(dev);
	}
	return n;
}

static inline long jbd2_commits_settled(const char *dev)
{
	long n = jbd2_commits(dev), m;

	for (int i = 0; i < 40; i++) {
		usleep(50000);
		m = jbd2_commits(dev);
		if (m == n)
			break;
		n = m;
	}
	return n;
}

/* ---- memory that may raise SIGBUS ---------------------------------- */

static __thread sigjmp_buf daxfs_bus_jmp;
static __thread volatile int daxfs_bus_armed;

static inline void daxfs_on_sigbus(int sig)
{
	(void)sig;
	if (daxfs_bus_armed)
		siglongjmp(daxfs_bus_jmp, 1);
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

/* Let daxfs_touch() catch SIGBUS (in every thread of the process). */
static inline void daxfs_catch_sigbus(void)
{
	struct sigaction sa = { .sa_handler = daxfs_on_sigbus, .sa_flags = SA_NODEFER };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

/*
 * Store val at *p, or load *p into *loaded (if loaded is not NULL): 0, or
 * -1 if the access raised SIGBUS.
 */
static inline int daxfs_touch(volatile unsigned char *p, int store,
			      unsigned char val, unsigned char *loaded)
{
	unsigned char v;

	if (sigsetjmp(daxfs_bus_jmp, 1)) {
		daxfs_bus_armed = 0;
		return -1;
	}
	daxfs_bus_armed = 1;
	if (store) {
		*p = val;
	} else {
		v = *p;
		if (loaded)
			*loaded = v;
	}
	daxfs_bus_armed = 0;
	return 0;
}

/* A MAP_SHARED or MAP_PRIVATE mapping of fd from 0, or NULL. */
static inline unsigned char *daxfs_map(int fd, size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

#endif /* DAXMEM_H */
