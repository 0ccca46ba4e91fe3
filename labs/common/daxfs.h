/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daxfs.h - helpers for the checks that work on a filesystem mounted with
 * -o dax (labs 2 and on): the filesystem to use, mkfs + mount + "are the
 * files really DAX?", unmount + e2fsck, and the fixtures.  What needs no
 * test harness (patterns, whole reads and writes, pagemap, FIEMAP,
 * SIGBUS) is in daxmem.h, which the experiments share.  Include after
 * labcheck.h.
 */
#ifndef DAXFS_H
#define DAXFS_H

#include <sys/statvfs.h>

#include "daxmem.h"

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
			"the fault handlers and ext4_dax_write_iter() in fs/ext4/file.c; "
			"ext4_dax_get_block(), ext4_block_zero_page_range() (truncate's "
			"zeroing) and ext4_dax_zero_past_eof() (zeroing before the file "
			"grows) in fs/ext4/inode.c; ext4_dax_bh_usable() in "
			"fs/ext4/super.c; lab 6)" },
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

/*
 * How many 4 KiB blocks of dev hold nothing but the stale pattern; -1 if
 * dev cannot be read.
 */
static inline long long stale_blocks(const char *dev)
{
	static unsigned char buf[MIB] __attribute__((aligned(4096)));
	int fd = open(dev, O_RDONLY | O_DIRECT);
	long long n = 0;
	ssize_t got;

	if (fd < 0)
		return -1;
	for (long long off = 0; (got = pread(fd, buf, MIB, off)) > 0; off += got)
		for (ssize_t b = 0; b + BLK <= got; b += BLK)
			n += buf[b] == 0xA5 && !memcmp(buf + b, buf + b + 1, BLK - 1);
	close(fd);
	return got < 0 ? -1 : n;
}

/*
 * Dirty devices: every filesystem the checks make starts on a device
 * filled with 0xa5, so that a byte the code forgot to zero shows as 0xa5
 * (a zeroed device would hide it).  That only holds if mkfs leaves the
 * free blocks alone (no discard, no zeroing): seen once per boot, for each
 * filesystem and device, by counting the blocks that still hold the
 * pattern against the free blocks statfs() reports.
 */
static inline void daxfs_mkfs_dirty(struct __test_metadata *_metadata, const char *dev,
				    const char *opts)
{
	char seen[96];
	long long stale = -1;
	struct statvfs sv;
	int fresh;

	REQUIRE_THAT(fill_device(dev) == 0, EXPECTED("to fill %s with 0xa5 before mkfs", dev),
		     SEEN("%s", strerror(errno)), HINT("is %s a block device of the VM?", dev));
	ASSERT_EQ(0, daxfs_mkfs(dev, "4096"));
	snprintf(seen, sizeof(seen), "/tmp/mkfs-keeps-pattern-%s-%s", daxfs()->name,
		 strrchr(dev, '/') + 1);
	fresh = access(seen, F_OK) != 0;
	if (fresh)
		stale = stale_blocks(dev);
	REQUIRE_THAT(mount_fs(dev, opts) == 0,
		     EXPECTED("mount -t %s -o %s %s", daxfs()->name, opts, dev),
		     SEEN("%s", strerror(errno)),
		     HINT("see the check dax_mount_works_and_says_so first"));
	if (!fresh)
		return;
	REQUIRE_THAT(statvfs(MNT, &sv) == 0 && stale * BLK >= (long long)(sv.f_bfree * sv.f_frsize) / 100 * 95,
		     EXPECTED("mkfs.%s to leave the free blocks of %s holding the 0xa5 it was "
			      "filled with (at least 95%% of %llu free blocks)", daxfs()->name, dev,
			      (unsigned long long)sv.f_bfree),
		     SEEN("%lld blocks hold 0xa5", stale),
		     HINT("the stale-data checks need a dirty device: labcheck_mkfs() must pass "
			  "-E nodiscard, and the device must not zero on discard"));
	close(open(seen, O_CREAT | O_WRONLY, 0644));
}

/*
 * mkfs on a device filled with 0xa5, mount -o dax, and insist that files
 * there are DAX.
 */
static inline void setup_dax_fs(struct __test_metadata *_metadata, const char *dev)
{
	int fd;

	daxfs_mkfs_dirty(_metadata, dev, "dax");
	if (!_metadata->passed)
		return;
	fd = open(MNT "/probe", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	REQUIRE_THAT(is_dax(MNT "/probe") == 1, EXPECTED("files of a dax mount to be DAX"),
		     SEEN("STATX_ATTR_DAX not set"),
		     HINT("see the check dax_mount_works_and_says_so first"));
	unlink(MNT "/probe");
}


/*
 * The pfn of the memory behind sector of dev, as bdev_direct_access() says
 * (through lab 1's probe module, loaded on first use); 0 if it cannot say.
 */
#define LAB1_PROBE_QUERY "/sys/kernel/debug/lab1_probe/query"

static inline unsigned long long direct_access_pfn(const char *dev, long long sector)
{
	static const char probe[] = LAB1_PROBE_QUERY;
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

/* The probe holds the disk it asked about last open: let pmem0 go. */
static inline void direct_access_let_go(void)
{
	static const char ram0[] = "/dev/ram0 0 4096";
	int fd = open(LAB1_PROBE_QUERY, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, ram0, strlen(ram0)) < 0)
			perror(LAB1_PROBE_QUERY);
		close(fd);
	}
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
	CHECK_THAT(p, EXPECTED("mmap(MAP_SHARED) of a 1000-byte dax file to succeed"),
		   SEEN("%s", strerror(errno)),
		   HINT("mmap of dax files: ext2_file_mmap() (lab 3), ext4_file_mmap() (lab 6)"));
	ASSERT_NE(NULL, p);	/* ends the check */
	memset(p + 1000, 0xEE, 500);
	*fdp = fd;
	return p;
}

/*
 * The sizes at which the edge of a mapping is tried: a page multiple, one
 * byte either side of it, inside the first page, a file whose last page
 * is partial, and past 4 GiB.  Each both over a hole and over data.
 */
static const long long daxfs_eof_sizes[] = {
	1, BLK - 1, BLK, BLK + 1, 2 * BLK - 1, 3 * BLK + 700, (4LL << 30) + 1000,
};

/*
 * SIGBUS at every edge of EOF, for a mapping made with @flags
 * (MAP_SHARED, MAP_PRIVATE, MAP_SHARED_VALIDATE | MAP_SYNC): for each size
 * of daxfs_eof_sizes, over a hole and over data, an access (a store if
 * @store) to the last byte of the file and to the last byte of the page
 * that holds EOF goes through, and one to the next page and to the one
 * after it raises SIGBUS.  fd is emptied first.
 */
static inline void daxfs_eof_edges(struct __test_metadata *_metadata, int fd, int flags,
				   int store, const char *hint)
{
	static unsigned char data[2 * BLK];

	memset(data, 'D', sizeof(data));
	for (unsigned int i = 0; i < 2 * sizeof(daxfs_eof_sizes) / sizeof(long long); i++) {
		long long size = daxfs_eof_sizes[i / 2], edge = (size + BLK - 1) / BLK * BLK;
		long long base = edge > 2 * BLK ? edge - 2 * BLK : 0;
		const long long at[] = { size - 1, edge - 1, edge, edge + BLK };
		const char *over = i % 2 ? "data" : "a hole";
		unsigned char *p, v;

		ASSERT_EQ(0, ftruncate(fd, 0));
		ASSERT_EQ(0, ftruncate(fd, size));
		if (i % 2)	/* the last two blocks of the file hold data */
			ASSERT_EQ(0, pwrite_all(fd, data, size - base, base));
		p = mmap(NULL, edge - base + 2 * BLK, PROT_READ | PROT_WRITE, flags, fd, base);
		REQUIRE_THAT(p != MAP_FAILED,
			     EXPECTED("mmap of a dax file of %lld bytes from offset %lld", size, base),
			     SEEN("%s", strerror(errno)), HINT("%s", hint));
		for (unsigned int k = 0; k < 4; k++) {
			int bus = daxfs_touch(p + (at[k] - base), store, 'E', &v);
			int want = at[k] >= edge;

			CHECK_THAT(bus == -want,
				   EXPECTED("a %s at offset %lld of a file of %lld bytes (over %s) %s",
					    store ? "store" : "load", at[k], size, over,
					    want ? "to raise SIGBUS: it is past the page that holds EOF" :
					    "to go through: it is inside the page that holds EOF"),
				   SEEN("%s", bus ? "SIGBUS" : "it went through"), HINT("%s", hint));
		}
		munmap(p, edge - base + 2 * BLK);
	}
	ASSERT_EQ(0, ftruncate(fd, 0));
}

/* Write a short string to a sysfs file; 0, or -1 with errno set. */
static inline int write_sysfs(const char *path, const char *what)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, what, strlen(what));
	close(fd);
	return n == (ssize_t)strlen(what) ? 0 : -1;
}

/*
 * pmem's known bad blocks cannot be cleared through sysfs, and an emulated
 * range cannot clear its poison: bind the namespace to nd_pmem again, which
 * starts an empty list.  The unbind waits for pmem0's last close, so it is
 * not tried while MNT is still mounted (a file of it still open): that
 * would hang this check and leave pmem0 unbound for every check after it.
 * 0 once pmem0 is back.
 */
static inline int pmem0_forget_bad_blocks(void)
{
	char ns[64];
	int err;

	if (labcheck_mount_opts(MNT)[0]) {
		fprintf(stderr, "%s is still mounted: pmem0 keeps its bad blocks\n", MNT);
		errno = EBUSY;
		return -1;
	}
	direct_access_let_go();
	if (labcheck_pmem_namespace(ns, sizeof(ns)))
		return -1;
	err = labcheck_nd_pmem("unbind", ns);
	if (err) {
		errno = err;
		return -1;
	}
	if (labcheck_pmem_rebind(ns))
		return -1;
	for (int i = 0; i < 100; i++) {
		if (labcheck_blockdev_bytes("pmem0") > 0)
			return 0;
		usleep(50 * 1000);
	}
	return -1;
}

/*
 * The end of a check with bad blocks on pmem0: close *@fd, unmount MNT and
 * forget the bad blocks (*@injected back to 0).  0, or -1 once the check
 * has been failed with what went wrong: the check then returns.
 */
static inline int pmem0_unmount_and_forget(struct __test_metadata *_metadata, int *fd,
					   int *injected)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	if (umount(MNT)) {
		CHECK_THAT(0, EXPECTED("umount " MNT), SEEN("%s", strerror(errno)),
			   HINT("is a file still open?"));
		return -1;
	}
	if (pmem0_forget_bad_blocks()) {
		CHECK_THAT(0, EXPECTED("to bind pmem0's namespace to nd_pmem again"),
			   SEEN("%s", strerror(errno)), HINT("pmem_attach_disk(), drivers/nvdimm"));
		return -1;
	}
	*injected = 0;
	return 0;
}

/*
 * A fixture for checks that mark sectors of pmem0 bad (brd keeps no bad
 * blocks): self->injected once they did, self->fd a file of MNT to close
 * if the check stops early.  The teardown unmounts MNT and forgets the bad
 * blocks, so that the checks after it find pmem0 whole.
 */
#define PMEM0_BAD_BLOCKS_FIXTURE(name)					\
	FIXTURE(name) {							\
		int injected;						\
		int fd;							\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		umount(MNT);						\
		self->injected = 0;					\
		self->fd = -1;						\
		daxfs_catch_sigbus();					\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		if (self->fd >= 0)					\
			close(self->fd);				\
		umount(MNT);						\
		if (self->injected && pmem0_forget_bad_blocks())	\
			TH_LOG("could not clear the bad blocks of /dev/pmem0: " \
			       "the checks after this one may fail on them"); \
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
