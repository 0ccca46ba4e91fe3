/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daxfs.h - helpers for the checks that work on a filesystem mounted with
 * -o dax (labs 2 and on): the filesystem to use, known data patterns,
 * whole reads and writes, mkfs + mount + "are the files really DAX?",
 * unmount + e2fsck, and where
 * a page of memory is (pagemap, /proc/iomem).  Include after labcheck.h.
 */
#ifndef DAXFS_H
#define DAXFS_H

#include <linux/fiemap.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

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

static inline long long cached_kib(void)
{
	char buf[8192], *p;

	if (labcheck_read_file("/proc/meminfo", buf, sizeof(buf)) < 0 ||
	    !(p = strstr(buf, "\nCached:")))
		return -1;
	return strtoll(p + strlen("\nCached:"), NULL, 10);
}

static inline void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd >= 0) {
		if (write(fd, "3", 1) != 1)
			perror("drop_caches");
		close(fd);
	}
}

/* Fill the whole of dev with the stale pattern (0xA5 bytes). */
static inline int fill_device(const char *dev)
{
	static unsigned char buf[MIB] __attribute__((aligned(4096)));
	int fd = open(dev, O_WRONLY | O_DIRECT);
	long long size = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	int ret = 0;

	if (size < 0)
		return -1;
	memset(buf, 0xA5, sizeof(buf));
	for (long long off = 0; off < size && !ret; off += sizeof(buf))
		ret = pwrite_all(fd, buf, size - off < MIB ? size - off : MIB, off);
	close(fd);
	return ret;
}

/*
 * The filesystem the checks of labs 2-5 run on: ext2 (whose functions
 * their hints name), or another one named by DAXLAB_FS in the environment.
 * Lab 6 runs the same programs again with DAXLAB_FS=ext4.
 */
struct daxfs_type {
	const char *name;
	const char *hint_note;	/* shown under every hint, or NULL */
	const char *dax_off;	/* options that ask for no dax, or NULL: none */
	const char *remount_says; /* what a remount that toggles dax logs */
	const char *dax_shown;	/* how /proc/mounts shows dax */
};

#ifndef DAXFS_DEFAULT
#define DAXFS_DEFAULT "ext2"	/* a program may choose another default */
#endif

static inline const struct daxfs_type *daxfs(void)
{
	static const struct daxfs_type types[] = {
		{ .name = "ext2", .dax_off = NULL, .dax_shown = "dax",
		  .remount_says = "refusing change of dax flag" },
		{ .name = "ext4", .dax_off = "dax=never", .dax_shown = "dax=always",
		  .remount_says = "can't change dax mount option",
		  .hint_note = "(on ext4: where a hint names an ext2_* function, "
			"read its ext4 counterpart (and TODO n is that lab's, not lab 6's): "
			"ext4_dax_* in fs/ext4/file.c, "
			"ext4_dax_get_block() and ext4_block_zero_page_range() in "
			"fs/ext4/inode.c, ext4_dax_bh_usable() in fs/ext4/super.c; "
			"lab 6)" },
	};
	static const struct daxfs_type *chosen;
	const char *want = getenv("DAXLAB_FS") ?: DAXFS_DEFAULT;

	if (chosen)
		return chosen;
	chosen = &types[0];
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(want, types[i].name))
			chosen = &types[i];
	if (strcmp(want, chosen->name))
		ksft_exit_fail_msg("DAXLAB_FS=%s: the checks know ext2 and ext4\n", want);
	/* the hints name the program's own filesystem: note only another */
	if (strcmp(want, DAXFS_DEFAULT))
		labcheck_hint_note = chosen->hint_note;
	return chosen;
}

/* Choose before the first test, so that every hint carries the note. */
__attribute__((constructor)) static void daxfs_choose(void)
{
	daxfs();
}

/* Do the mount options opts (from /proc/mounts) say dax? */
static inline int daxfs_shows_dax(const char *opts)
{
	return labcheck_has_opt(opts, daxfs()->dax_shown);
}

/* mkfs the checks' filesystem on dev with the given block size. */
static inline int daxfs_mkfs(const char *dev, const char *blocksize)
{
	return labcheck_mkfs(daxfs()->name, dev, blocksize);
}

/* Mount dev on MNT with the checks' filesystem. */
static inline int mount_fs(const char *dev, const char *opts)
{
	mkdir(MNT, 0755);
	return mount(dev, MNT, daxfs()->name, 0, opts);
}

/* Unmount and run e2fsck -fn: the last step of every workload. */
static inline void unmount_and_fsck(struct __test_metadata *_metadata, const char *dev)
{
	int rc;

	REQUIRE_THAT(umount(MNT) == 0, EXPECTED("umount " MNT " to succeed"),
		     SEEN("%s", strerror(errno)), HINT("is a file still open?"));
	rc = labcheck_fsck(dev);
	CHECK_THAT(rc == 0, EXPECTED("e2fsck -fn %s to find the filesystem clean", dev),
		   SEEN("exit status %d (its report is above)", rc),
		   HINT("blocks allocated but not in the file, or an i_size that "
			"does not match the blocks"));
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

/* mkfs, mount -o dax, and insist that files there are DAX. */
static inline void setup_dax_fs(struct __test_metadata *_metadata, const char *dev)
{
	int fd;

	ASSERT_EQ(0, daxfs_mkfs(dev, "4096"));
	REQUIRE_THAT(mount_fs(dev, "dax") == 0,
		     EXPECTED("mount -t %s -o dax %s", daxfs()->name, dev),
		     SEEN("%s", strerror(errno)),
		     HINT("see the check dax_mount_works_and_says_so first"));
	fd = open(MNT "/probe", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	REQUIRE_THAT(is_dax(MNT "/probe") == 1, EXPECTED("files of a dax mount to be DAX"),
		     SEEN("STATX_ATTR_DAX not set"),
		     HINT("see the check dax_mount_works_and_says_so first"));
	unlink(MNT "/probe");
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
 * The pfn of the memory behind sector of dev, as bdev_direct_access() says
 * (through lab 1's probe module, loaded on first use); 0 if it cannot say.
 */
static inline unsigned long long direct_access_pfn(const char *dev, long long sector)
{
	static const char probe[] = "/sys/kernel/debug/lab1_probe/query";
	char *argv[] = { "insmod", "/checks/lab1/lab1_probe.ko", NULL };
	unsigned long long pfn = 0;
	char buf[256];
	long ret = -1;
	int fd, n;

	if (access(probe, F_OK) && labcheck_spawn(argv))
		return 0;
	fd = open(probe, O_RDWR);
	if (fd < 0)
		return 0;
	n = snprintf(buf, sizeof(buf), "%s %lld 4096", dev, sector);
	if (write(fd, buf, n) == n && (n = pread(fd, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = '\0';
		if (sscanf(buf, "ret=%ld pfn=%llx", &ret, &pfn) != 2 || ret <= 0)
			pfn = 0;
	}
	close(fd);
	return pfn;
}

/*
 * How many transactions the journal of the filesystem on dev (a name such
 * as "pmem0") has committed (/proc/fs/jbd2/DEV-8/info), or -1.
 */
static inline long jbd2_commits(const char *dev)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/fs/jbd2/%s-8/info", dev);
	if (labcheck_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return atol(buf);
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

/* A new file of len bytes of pattern(seed), written with write(); its fd. */
static inline int daxfs_make_file(const char *path, size_t len, unsigned int seed)
{
	unsigned char *buf = malloc(len);
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);

	if (fd >= 0 && buf) {
		pattern(buf, len, seed, 0);
		if (pwrite_all(fd, buf, len, 0)) {
			close(fd);
			fd = -1;
		}
	}
	free(buf);
	return fd;
}

/* A MAP_SHARED or MAP_PRIVATE mapping of fd from 0, or NULL. */
static inline unsigned char *daxfs_map(int fd, size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * A dax file MNT "/f" of 1000 bytes of pattern(seed), mapped shared over
 * two blocks, with 500 bytes of 0xee stored through the mapping past its
 * end, inside its last page: bytes that no growth of the file may turn
 * into file data.  expect (2 * BLK bytes) gets what the file must read as
 * once grown: zeros past byte 1000.  Returns the mapping; *fdp is the file.
 */
static inline unsigned char *daxfs_store_past_eof(struct __test_metadata *_metadata,
						  const char *dev, unsigned int seed,
						  unsigned char *expect, int *fdp)
{
	unsigned char *p;
	int fd;

	setup_dax_fs(_metadata, dev);
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	memset(expect, 0, 2 * BLK);
	pattern(expect, 1000, seed, 0);
	ASSERT_EQ(0, pwrite_all(fd, expect, 1000, 0));
	p = daxfs_map(fd, 2 * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	ASSERT_NE(NULL, p);
	memset(p + 1000, 0xEE, 500);
	*fdp = fd;
	return p;
}

/*
 * A fixture whose tests run once on each memory-backed device: pmem0 (one
 * contiguous range) and ram0 (brd: a page at a time).  self->dev is
 * "/dev/pmem0" or "/dev/ram0"; nothing is mounted on MNT before or after a
 * test, and daxfs_touch() catches SIGBUS.
 */
#define DAX_DEVICE_FIXTURE(name)					\
	FIXTURE(name) {							\
		char dev[32];						\
	};								\
	FIXTURE_VARIANT(name) {						\
		const char *dev;					\
	};								\
	FIXTURE_VARIANT_ADD(name, pmem0) { .dev = "pmem0" };		\
	FIXTURE_VARIANT_ADD(name, ram0) { .dev = "ram0" };		\
	FIXTURE_SETUP(name)						\
	{								\
		snprintf(self->dev, sizeof(self->dev), "/dev/%s",	\
			 variant->dev);					\
		umount(MNT);						\
		daxfs_catch_sigbus();					\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		umount(MNT);						\
	}

#endif /* DAXFS_H */
