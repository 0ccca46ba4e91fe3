// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 2, black box: read() and write() on an ext2 "-o dax" mount go
 * through dax_do_io(), straight between user memory and the device.
 *
 * What is checked: which mounts are accepted and refused (with the reason
 * in the kernel log), that statx() says DAX, that thousands of random reads
 * and writes agree with a model of the file kept in memory, that the page
 * cache does not grow (and does, on the same device without dax), that the
 * bytes are on the device at the blocks FIEMAP names, that holes read as
 * zeroes without allocating, that new blocks never show what the device
 * held before (also when a write into a hole fails on a bad block of
 * pmem), and that bytes cut by a truncate inside a block read as
 * zeroes when the file grows again, by ftruncate() or write(), without a
 * hole in that block being allocated.  Every workload ends with
 * e2fsck -fn.
 */
#include <linux/fiemap.h>
#include <linux/fs.h>

#include "labcheck.h"
#include "daxfs.h"
#include "daxmodel.h"

#include <sys/uio.h>

#define HINT_IO "read/write of a dax file: ext2_dax_read_iter()/ext2_dax_write_iter() " \
		"in fs/ext2/file.c call dax_do_io() in fs/dax_bh.c (TODO 1-3)"

#define HINT_CUT "ext2_setsize() zeroes the rest of the block past a cut, on the device, " \
		 "fs/ext2/inode.c: ext2_dax_zero_tail() in labs 2-4; from lab 5 on, " \
		 "dax_bh_truncate_page() (lab 5, TODOs 1-3)"

/* ---- mounting -------------------------------------------------------- */

DAX_DEVICE_FIXTURE(mount)

TEST_F(mount, dax_mount_works_and_says_so)
{
	static unsigned char mine[2 * BLK + 100], back[sizeof(mine)];
	const char *opts;
	int fd;

	ASSERT_EQ(0, daxfs_mkfs(self->dev, "4096"));
	REQUIRE_THAT(mount_fs(self->dev, "dax") == 0,
		     EXPECTED("mount -t %s -o dax %s to succeed", daxfs()->name, self->dev),
		     SEEN("%s", strerror(errno)),
		     HINT("ext2_dax_bh_usable() in fs/ext2/super.c (TODO 4) refuses it"));
	opts = labcheck_mount_opts(MNT);
	CHECK_THAT(daxfs_shows_dax(opts),
		   EXPECTED("\"%s\" among the options in /proc/mounts", daxfs()->dax_shown),
		   SEEN("%s", opts), HINT("ext2_show_options() prints it for a DAX mount"));
	ASSERT_EQ(0, mkdir(MNT "/dir", 0755));
	fd = open(MNT "/dir/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	CHECK_THAT(is_dax(MNT "/dir/f") == 1,
		   EXPECTED("statx to report STATX_ATTR_DAX on a regular file"),
		   SEEN("%s", is_dax(MNT "/dir/f") ? "statx failed" : "not set"),
		   HINT("ext2_set_inode_flags() sets S_DAX; S_DAX must not be 0 "
			"with CONFIG_FS_DAX_BH (include/linux/fs.h)"));
	CHECK_THAT(is_dax(MNT "/dir") == 0,
		   EXPECTED("no STATX_ATTR_DAX on a directory"), SEEN("it is set"),
		   HINT("only regular files go through dax_do_io()"));

	pattern(mine, sizeof(mine), 2, 0);
	REQUIRE_THAT(pwrite_all(fd, mine, sizeof(mine), 0) == 0,
		     EXPECTED("write() of %zu bytes to a new file", sizeof(mine)),
		     SEEN("%s", strerror(errno)), HINT(HINT_IO));
	REQUIRE_THAT(pread_all(fd, back, sizeof(back), 0) == 0,
		     EXPECTED("read() of the %zu bytes back", sizeof(back)),
		     SEEN("%s", strerror(errno)), HINT(HINT_IO));
	CHECK_THAT(first_diff(mine, back, sizeof(mine)) < 0,
		   EXPECTED("the bytes written"),
		   SEEN("other bytes from offset %ld", first_diff(mine, back, sizeof(mine))),
		   HINT(HINT_IO));
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/* A refused mount: mount fails with EINVAL and the kernel log says why. */
static void expect_refusal(struct __test_metadata *_metadata, const char *dev,
			   const char *why, const char *needle, const char *hint)
{
	int kmsg = labcheck_kmsg_open();
	int r = mount_fs(dev, "dax"), err = errno;

	if (r == 0)
		umount(MNT);
	CHECK_THAT(r == -1 && err == EINVAL,
		   EXPECTED("mount -o dax of %s (%s) to fail with EINVAL", dev, why),
		   SEEN("%s", r == 0 ? "it mounted" : strerror(err)), HINT("%s", hint));
	CHECK_THAT(labcheck_kmsg_grep(kmsg, needle),
		   EXPECTED("a kernel message containing \"%s\"", needle),
		   SEEN("none (dmesg shows what %s said)", daxfs()->name), HINT("%s", hint));
	close(kmsg);
}

TEST(refuses_dax_with_1k_blocks)
{
	umount(MNT);
	ASSERT_EQ(0, daxfs_mkfs("/dev/pmem0", "1024"));
	expect_refusal(_metadata, "/dev/pmem0", "1 KiB blocks", "block size",
		       "TODO 4, ext2_dax_bh_usable() in fs/ext2/super.c: a block must "
		       "be a page, say \"dax needs a block size of ...\"");
}

TEST(refuses_dax_without_direct_access)
{
	char dev[32];
	int loop;

	umount(MNT);
	loop = labcheck_loop_attach("/tmp/lab2-loop", 16 * MIB, dev, sizeof(dev));
	ASSERT_LE(0, loop) TH_LOG("could not set up a loop device (the error is above)");
	if (daxfs_mkfs(dev, "4096") == 0)
		expect_refusal(_metadata, dev, "a loop device: no direct_access",
			       "does not support direct access",
			       "TODO 4, ext2_dax_bh_usable() in fs/ext2/super.c: ask "
			       "dax_bh_supported(), say \"... does not support direct access\"");
	else
		CHECK_THAT(0, EXPECTED("mke2fs on %s", dev), SEEN("it failed"),
			   HINT("its output is above"));
	labcheck_loop_detach(loop);
}

/* Write a new file of 2 blocks + 100 bytes at path and read it back. */
static void write_and_read_back(struct __test_metadata *_metadata, const char *path,
				unsigned int seed)
{
	static unsigned char mine[2 * BLK + 100], back[sizeof(mine)];
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);

	REQUIRE_THAT(fd >= 0, EXPECTED("to create %s", path), SEEN("%s", strerror(errno)),
		     HINT("is the mount read-only?"));
	errno = 0;
	pattern(mine, sizeof(mine), seed, 0);
	CHECK_THAT(pwrite_all(fd, mine, sizeof(mine), 0) == 0 &&
		   pread_all(fd, back, sizeof(back), 0) == 0 &&
		   first_diff(mine, back, sizeof(mine)) < 0,
		   EXPECTED("%zu bytes written to %s to read back", sizeof(mine), path),
		   SEEN("%s", errno ? strerror(errno) : "other bytes"), HINT(HINT_IO));
	close(fd);
}

/* Is dax on for the mount, by /proc/mounts and by statx of a new file? */
static void expect_dax_state(struct __test_metadata *_metadata, int want, const char *when)
{
	const char *opts = labcheck_mount_opts(MNT);
	int fd = open(MNT "/probe", O_CREAT | O_RDWR, 0644);

	close(fd);
	CHECK_THAT(daxfs_shows_dax(opts) == want,
		   EXPECTED("%s\"%s\" in /proc/mounts %s", want ? "" : "no ",
			    daxfs()->dax_shown, when),
		   SEEN("%s", opts),
		   HINT("a remount never switches the dax core on or off: files "
			"already open could not follow"));
	CHECK_THAT(is_dax(MNT "/probe") == want,
		   EXPECTED("a new file %sDAX %s", want ? "" : "not ", when),
		   SEEN("statx says %sDAX", want ? "not " : ""),
		   HINT("the remount must keep the old dax state"));
	unlink(MNT "/probe");
}

/*
 * A remount that asks to switch dax on or off is refused, or accepted with
 * a warning and without the switch (ext2 does that, as Linux 6.1 does):
 * either way the mount keeps working as it did, and the kernel says so.
 */
TEST_F(mount, remount_keeps_the_dax_state)
{
	const struct daxfs_type *fs = daxfs();
	int kmsg, r;

	ASSERT_EQ(0, daxfs_mkfs(self->dev, "4096"));
	REQUIRE_THAT(mount_fs(self->dev, "dax") == 0,
		     EXPECTED("mount -o dax %s", self->dev), SEEN("%s", strerror(errno)),
		     HINT("see the check dax_mount_works_and_says_so first"));
	write_and_read_back(_metadata, MNT "/before", 3);
	kmsg = labcheck_kmsg_open();
	r = mount(self->dev, MNT, fs->name, MS_REMOUNT, fs->dax_off ?: "");
	/* ext2 has no option to say "no dax": a remount keeps what it is not told */
	CHECK_THAT(!fs->dax_off || labcheck_kmsg_grep(kmsg, fs->remount_says),
		   EXPECTED("mount -o remount,%s to log \"%s\"", fs->dax_off, fs->remount_says),
		   SEEN("the remount %s, and no such message",
			r ? "was refused" : "succeeded"),
		   HINT("%s_remount() in fs/%s/super.c", fs->name, fs->name));
	close(kmsg);
	expect_dax_state(_metadata, 1, fs->dax_off ? "after a remount without dax" :
			 "after a remount");
	CHECK_THAT(is_dax(MNT "/before") == 1, EXPECTED("a file of before the remount still DAX"),
		   SEEN("it is not"), HINT("the remount must keep the old dax state"));
	write_and_read_back(_metadata, MNT "/after", 4);
	unmount_and_fsck(_metadata, self->dev);

	/* the other way: a mount without dax stays without */
	REQUIRE_THAT(mount_fs(self->dev, "") == 0, EXPECTED("mount %s without dax", self->dev),
		     SEEN("%s", strerror(errno)), HINT("dmesg says why"));
	kmsg = labcheck_kmsg_open();
	r = mount(self->dev, MNT, fs->name, MS_REMOUNT, "dax");
	CHECK_THAT(labcheck_kmsg_grep(kmsg, fs->remount_says),
		   EXPECTED("mount -o remount,dax to log \"%s\"", fs->remount_says),
		   SEEN("the remount %s, and no such message",
			r ? "was refused" : "succeeded"),
		   HINT("%s_remount() in fs/%s/super.c", fs->name, fs->name));
	close(kmsg);
	expect_dax_state(_metadata, 0, "after a remount with dax");
	unmount_and_fsck(_metadata, self->dev);
}

/* ext2's "xip" (execute in place, the ancestor of dax) is an old name for dax. */
TEST(xip_is_an_old_name_for_dax)
{
	const char *opts;
	int kmsg, r;

	if (strcmp(daxfs()->name, "ext2"))
		SKIP(return, "xip was an ext2 option only; %s never had it", daxfs()->name);
	umount(MNT);
	ASSERT_EQ(0, daxfs_mkfs("/dev/pmem0", "4096"));
	kmsg = labcheck_kmsg_open();
	r = mount_fs("/dev/pmem0", "xip");
	REQUIRE_THAT(r == 0, EXPECTED("mount -o xip to mount with dax"),
		     SEEN("%s", strerror(errno)),
		     HINT("the Opt_xip case of parse_options() in fs/ext2/super.c "
			  "falls through to Opt_dax"));
	CHECK_THAT(labcheck_kmsg_grep(kmsg, "use dax instead of xip"),
		   EXPECTED("the kernel to say \"use dax instead of xip\""),
		   SEEN("no such message"), HINT("parse_options() in fs/ext2/super.c"));
	close(kmsg);
	opts = labcheck_mount_opts(MNT);
	CHECK_THAT(daxfs_shows_dax(opts), EXPECTED("\"dax\" in /proc/mounts"),
		   SEEN("%s", opts), HINT("ext2_show_options()"));
	write_and_read_back(_metadata, MNT "/f", 5);
	CHECK_THAT(is_dax(MNT "/f") == 1, EXPECTED("files of an xip mount to be DAX"),
		   SEEN("not DAX"), HINT("ext2_set_inode_flags()"));
	unmount_and_fsck(_metadata, "/dev/pmem0");
}

/* ---- I/O on a dax mount ---------------------------------------------- */

/* pmem gives out all its memory at once, brd one page at a time */
DAX_DEVICE_FIXTURE(dax)

/*
 * The model: random pread/pwrite/preadv/pwritev, O_DIRECT or not, at
 * random places (unaligned, across pages, around and past EOF, creating
 * holes, of length 0), each checked against a copy of the file in memory.
 */
#define MODEL_MAX (2 * MIB)
#define MODEL_OPS 4000

struct model {
	unsigned char *data;
	long long size;
	unsigned int seed;
	int op;
	char last[160];		/* what the last operation was */
};

/* xorshift32: small, and the same sequence for the same seed everywhere */
static unsigned int rnd(unsigned int *state)
{
	unsigned int x = *state ?: 1;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

static long long pick_offset(unsigned int *st, long long size)
{
	long long near = size + (long long)(rnd(st) % 8192) - 4096;

	switch (rnd(st) % 6) {
	case 0:		/* around EOF */
		return near < 0 ? 0 : near;
	case 1:		/* past EOF: leaves a hole */
		return size + rnd(st) % (96 * 1024);
	case 2:		/* on a block boundary */
		return (long long)(rnd(st) % (MODEL_MAX / BLK)) * BLK;
	default:
		return rnd(st) % MODEL_MAX;
	}
}

static size_t pick_length(unsigned int *st)
{
	switch (rnd(st) % 8) {
	case 0:
		return 0;
	case 1:
	case 2:
		return rnd(st) % 64 + 1;
	case 3:
		return BLK;
	default:
		return rnd(st) % (5 * BLK) + 1;
	}
}

static void model_fail(struct __test_metadata *_metadata, struct model *m,
		       const char *what, long long at)
{
	CHECK_THAT(0, EXPECTED("operation %d (%s) to agree with the model of the file",
			       m->op, m->last),
		   SEEN("%s at file offset %lld", what, at),
		   HINT("replay with: make check-lab 2 T=random_io APPEND=daxlab.seed=%u; "
			"look at how dax_do_io() walks blocks and pages (TODO 1-3)",
			m->seed));
}

TEST_F(dax, random_io_matches_a_model)
{
	static unsigned char buf[6 * BLK + 4096] __attribute__((aligned(4096)));
	struct model m = { .seed = labcheck_seed(2014) };
	unsigned int st = m.seed;
	int fd, dfd;

	setup_dax_fs(_metadata, self->dev);
	m.data = calloc(1, MODEL_MAX + 200 * 1024);
	ASSERT_NE(NULL, m.data);
	fd = open(MNT "/model", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	dfd = open(MNT "/model", O_RDWR | O_DIRECT);
	REQUIRE_THAT(dfd >= 0, EXPECTED("open(O_DIRECT) of a dax file to succeed"),
		     SEEN("%s", strerror(errno)),
		     HINT("ext2_dax_aops needs a direct_IO method for open() to allow it"));

	for (m.op = 0; m.op < MODEL_OPS && _metadata->passed; m.op++) {
		unsigned int kind = rnd(&st) % 10;
		long long off = pick_offset(&st, m.size);
		size_t len = pick_length(&st);
		int direct = kind == 9;
		int write_it = kind < 5 || (direct && rnd(&st) % 2);
		int vec = kind == 3 || kind == 7;
		ssize_t n, want;
		long bad;

		if (direct) {	/* O_DIRECT: aligned, as its users are */
			off = off / BLK * BLK;
			len = (len + BLK - 1) / BLK * BLK;
		}
		if (off + (long long)len > MODEL_MAX + 128 * 1024)
			off = MODEL_MAX - len;	/* stays aligned for O_DIRECT */
		snprintf(m.last, sizeof(m.last), "%s%s%s of %zu bytes at %lld, size %lld",
			 write_it ? "pwrite" : "pread", vec ? "v" : "",
			 direct ? " O_DIRECT" : "", len, off, m.size);
		if (write_it)
			pattern(buf, len, m.seed + m.op, off);
		else
			memset(buf, 0x5A, len);

		if (vec) {	/* three pieces: the middle one empty */
			struct iovec iov[3] = {
				{ buf, len / 3 }, { buf + len / 3, 0 },
				{ buf + len / 3, len - len / 3 },
			};
			n = write_it ? pwritev(fd, iov, 3, off) : preadv(fd, iov, 3, off);
		} else {
			int f = direct ? dfd : fd;

			n = write_it ? pwrite(f, buf, len, off) : pread(f, buf, len, off);
		}

		if (write_it) {
			if (n != (ssize_t)len) {
				model_fail(_metadata, &m, n < 0 ? strerror(errno) :
					   "a short write", off);
				break;
			}
			memcpy(m.data + off, buf, len);
			if (len && off + (long long)len > m.size)
				m.size = off + len;
			continue;
		}
		want = off >= m.size ? 0 : (m.size - off < (long long)len ?
					    m.size - off : (long long)len);
		if (n != want) {
			char what[64];

			snprintf(what, sizeof(what), "%zd bytes read, %zd expected", n, want);
			model_fail(_metadata, &m, what, off);
			break;
		}
		bad = first_diff(buf, m.data + off, n);
		if (bad >= 0)
			model_fail(_metadata, &m, m.data[off + bad] ? "a wrong byte" :
				   "a wrong byte where the file holds a zero (a hole?)",
				   off + bad);
	}

	if (_metadata->passed) {	/* the whole file, at the end */
		struct stat stt;
		unsigned char *all = malloc(m.size + 1);

		ASSERT_NE(NULL, all);
		ASSERT_EQ(0, fstat(fd, &stt));
		snprintf(m.last, sizeof(m.last), "the end: the whole file");
		if (stt.st_size != m.size)
			model_fail(_metadata, &m, "a different st_size", stt.st_size);
		else if (pread_all(fd, all, m.size, 0) ||
			 first_diff(all, m.data, m.size) >= 0)
			model_fail(_metadata, &m, "other bytes", first_diff(all, m.data, m.size));
		free(all);
	}
	close(dfd);
	close(fd);
	free(m.data);
	unmount_and_fsck(_metadata, self->dev);
}

/*
 * The lab's model checker (labs/common/daxmodel.h), on a device filled
 * with 0xa5: reads, writes (some from a buffer that faults part way) and
 * truncates at the edges of EOF and of blocks, and 4 GiB past EOF.  A new
 * block that a write does not cover whole must read as zeros where the
 * write did not go.
 */
TEST_F(dax, random_io_and_truncates_match_a_model)
{
	static const struct dm_run run = {
		.name = "random_io_and_truncates", .lab = 2, .count = 1000,
		.ops = DM_TRUNCATE,
		.hint = "dax_bh_copy() zeroes the parts of a new block a write does not cover, "
			"dax_bh_zero_rest() the rest of the blocks of a write that stopped "
			"(TODO 1-3, fs/dax_bh.c); ext2_setsize() and ext2_dax_write_iter() "
			"zero the old tail when the file grows",
	};

	daxmodel_run(_metadata, self->dev, &run);
}

TEST_F(dax, holes_read_as_zeros_and_allocate_nothing)
{
	static unsigned char buf[3 * BLK];
	long long before, after;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/sparse", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	pattern(buf, BLK, 7, 0);
	REQUIRE_THAT(!pwrite_all(fd, buf, BLK, 0) && !pwrite_all(fd, buf, BLK, 64 * BLK),
		     EXPECTED("write() of blocks 0 and 64 of a new file to work"),
		     SEEN("%s", strerror(errno)), HINT(HINT_IO));
	before = st_blocks(fd);

	/* the hole: whole blocks, and across the edge of the data */
	memset(buf, 0x5A, sizeof(buf));
	CHECK_THAT(pread_all(fd, buf, sizeof(buf), 10 * BLK) == 0 &&
		   first_nonzero(buf, sizeof(buf)) < 0,
		   EXPECTED("%zu zero bytes read from the hole at %ld", sizeof(buf), 10 * BLK),
		   SEEN("%s", errno ? strerror(errno) : "non-zero bytes"),
		   HINT("a block get_block() does not map is a hole: iov_iter_zero() it (TODO 3)"));
	memset(buf, 0x5A, sizeof(buf));
	CHECK_THAT(pread_all(fd, buf, 2 * BLK - 100, 63 * BLK + 100) == 0 &&
		   first_nonzero(buf, BLK - 100) < 0 && buf[BLK - 100] != 0,
		   EXPECTED("zeros up to offset %ld, then the data", 64 * BLK),
		   SEEN("%s", errno ? strerror(errno) : "other bytes"),
		   HINT("a hole ends where get_block() maps the next block"));
	after = st_blocks(fd);
	CHECK_THAT(after == before, EXPECTED("st_blocks to stay %lld after reading holes", before),
		   SEEN("%lld", after), HINT("reads must call get_block() with create = 0"));
	CHECK_THAT(pread(fd, buf, sizeof(buf), 65 * BLK) == 0,
		   EXPECTED("read() at EOF to return 0"), SEEN("it did not"),
		   HINT("reads stop at i_size"));
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/*
 * Two pages of user memory whose second page is not mapped: a copy from
 * or to it stops at the page boundary with EFAULT.
 */
static unsigned char *half_mapped(struct __test_metadata *_metadata)
{
	unsigned char *p = mmap(NULL, 2 * BLK, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0x3C, BLK);
	if (munmap(p + BLK, BLK)) {
		TH_LOG("munmap: %s", strerror(errno));
		return NULL;
	}
	return p;
}

TEST_F(dax, io_that_fails_at_its_first_byte_returns_the_error)
{
	unsigned char *buf = half_mapped(_metadata);
	ssize_t n;
	int fd;

	ASSERT_NE(NULL, buf);
	setup_dax_fs(_metadata, self->dev);
	fd = daxfs_make_file(MNT "/f", 2 * BLK, 9);
	REQUIRE_THAT(fd >= 0, EXPECTED("a file of 2 blocks written with write()"),
		     SEEN("%s", strerror(errno)), HINT(HINT_IO));
	errno = 0;
	n = pwrite(fd, buf + BLK, 100, 0);
	CHECK_THAT(n == -1 && errno == EFAULT,
		   EXPECTED("write() from unmapped memory to fail with EFAULT"),
		   SEEN("%zd (%s)", n, n < 0 ? strerror(errno) : "no error"),
		   HINT("dax_do_io() returns the bytes done, or the error when none "
			"were (TODO 3)"));
	errno = 0;
	n = pread(fd, buf + BLK, 100, 0);
	CHECK_THAT(n == -1 && errno == EFAULT,
		   EXPECTED("read() into unmapped memory to fail with EFAULT"),
		   SEEN("%zd (%s)", n, n < 0 ? strerror(errno) : "no error"),
		   HINT("dax_do_io() returns the bytes done, or the error when none "
			"were (TODO 3)"));
	munmap(buf, BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

TEST_F(dax, a_short_write_leaves_no_block_past_eof)
{
	unsigned char *buf = half_mapped(_metadata);
	unsigned char back[BLK];
	ssize_t n;
	int fd;

	ASSERT_NE(NULL, buf);
	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	/* four blocks asked, from memory of which only the first page is there */
	n = pwrite(fd, buf, 4 * BLK, 0);
	CHECK_THAT(n == BLK,
		   EXPECTED("write() of 4 blocks from 1 page of memory to write %ld "
			    "bytes and stop", BLK),
		   SEEN("%zd (%s)", n, n < 0 ? strerror(errno) : "bytes"),
		   HINT("dax_do_io() returns what it copied before the fault (TODO 3)"));
	CHECK_THAT(lseek(fd, 0, SEEK_END) == BLK && st_blocks(fd) == BLK / 512,
		   EXPECTED("a file of %ld bytes in one block", BLK),
		   SEEN("size %lld, %lld sectors", (long long)lseek(fd, 0, SEEK_END),
			st_blocks(fd)),
		   HINT("blocks the write allocated past its new end of file must be "
			"freed: ext2_dax_write_iter() calls ext2_write_failed()"));
	CHECK_THAT(pread_all(fd, back, BLK, 0) == 0 && first_diff(back, buf, BLK) < 0,
		   EXPECTED("the block written to hold the bytes"), SEEN("other bytes"),
		   HINT(HINT_IO));
	munmap(buf, BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/*
 * A write that stops part way through blocks it allocated inside i_size
 * keeps them, zeroed where it wrote nothing; it must write no other
 * block.  On the dirty device every free block holds 0xa5: after the
 * write, exactly the blocks it took may have stopped holding it.  (In
 * ext2's first 12 blocks of a file: no indirect block is allocated.)
 */
TEST_F(dax, a_failed_write_changes_no_block_it_did_not_allocate)
{
	unsigned char *buf = half_mapped(_metadata);
	long long before, after, took;
	ssize_t n;
	int fd;

	ASSERT_NE(NULL, buf);
	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 8 * BLK));
	sync();
	before = stale_blocks(self->dev);
	/* four blocks asked into the hole, from memory of which one page is there */
	n = pwrite(fd, buf, 4 * BLK, 2 * BLK);
	REQUIRE_THAT(n == BLK,
		     EXPECTED("write() of 4 blocks from 1 page of memory to write %ld "
			      "bytes and stop", BLK),
		     SEEN("%zd (%s)", n, n < 0 ? strerror(errno) : "bytes"),
		     HINT("dax_do_io() returns what it copied before the fault (TODO 3)"));
	sync();
	after = stale_blocks(self->dev);
	took = st_blocks(fd) / (BLK / 512);
	CHECK_THAT(before >= 0 && after >= 0 && before - after == took,
		   EXPECTED("the %lld blocks the write kept to be the only free blocks "
			    "that stopped holding 0xa5", took),
		   SEEN("%lld blocks stopped holding it", before - after),
		   HINT("dax_bh_zero_rest() zeroes what is left of the blocks the "
			"write allocated, up to it->map_end, and nothing past them"));
	munmap(buf, BLK);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

TEST_F(dax, new_blocks_hold_no_stale_data)
{
	static unsigned char buf[4 * BLK];
	struct {
		long long off;
		size_t len;
		const char *what;
	} w[] = {
		{ 1000, 100, "100 bytes inside a new block" },
		{ 3 * BLK + 4000, BLK, "a page across two new blocks" },
		{ 10 * BLK + 10, 3 * BLK, "three pages over four new blocks" },
	};
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/new", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	for (unsigned int i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		long long first = w[i].off / BLK * BLK;
		long long last = (w[i].off + w[i].len + BLK - 1) / BLK * BLK;
		long bad;

		pattern(buf, w[i].len, i, w[i].off);
		REQUIRE_THAT(pwrite_all(fd, buf, w[i].len, w[i].off) == 0,
			     EXPECTED("write of %s", w[i].what), SEEN("%s", strerror(errno)),
			     HINT(HINT_IO));
		/* the blocks it touched, outside what it wrote, must be zero */
		ASSERT_EQ(0, pread_all(fd, buf, w[i].off - first, first));
		bad = first_nonzero(buf, w[i].off - first);
		CHECK_THAT(bad < 0, EXPECTED("zeros before %s", w[i].what),
			   SEEN("%#x at offset %lld (the device held 0xa5 there)",
				buf[bad], first + bad),
			   HINT("zero the start of a new block (buffer_new()) "
				"that the write does not cover (TODO 3)"));
		if (last - (w[i].off + (long long)w[i].len) > 0 &&
		    last <= w[i].off + (long long)w[i].len + BLK) {
			size_t tail = last - w[i].off - w[i].len;

			/* beyond EOF: read the device through a bigger file */
			ASSERT_EQ(0, ftruncate(fd, last));
			ASSERT_EQ(0, pread_all(fd, buf, tail, w[i].off + w[i].len));
			bad = first_nonzero(buf, tail);
			CHECK_THAT(bad < 0, EXPECTED("zeros after %s, to the block's end",
						     w[i].what),
				   SEEN("%#x at offset %lld (the device held 0xa5 there)",
					buf[bad], w[i].off + (long long)w[i].len + bad),
				   HINT("zero the end of the last new block that the write "
					"does not cover (TODO 3)"));
		}
	}
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/* ---- truncate inside a block ----------------------------------------- */

TEST_F(dax, cut_bytes_read_zero_after_extending)
{
	static unsigned char buf[2 * BLK], want[1000];
	long bad;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	pattern(buf, sizeof(buf), 1, 0);
	REQUIRE_THAT(!pwrite_all(fd, buf, sizeof(buf), 0),
		     EXPECTED("write() of two blocks to a new file to work"),
		     SEEN("%s", strerror(errno)), HINT(HINT_IO));
	ASSERT_EQ(0, ftruncate(fd, 1000));
	ASSERT_EQ(0, ftruncate(fd, 2 * BLK));
	ASSERT_EQ(0, pread_all(fd, buf, sizeof(buf), 0));
	bad = first_nonzero(buf + 1000, BLK - 1000);
	CHECK_THAT(bad < 0, EXPECTED("zeros from byte 1000 (the cut) to 4095, after "
				     "ftruncate() to 1000 and back to 2 blocks"),
		   SEEN("%#x at byte %ld", buf[1000 + bad], 1000 + bad), HINT(HINT_CUT));
	pattern(want, 1000, 1, 0);
	bad = first_diff(buf, want, 1000);
	CHECK_THAT(bad < 0, EXPECTED("bytes 0-999, before the cut, unchanged"),
		   SEEN("%#x at byte %ld, written as %#x", buf[bad], bad, want[bad]),
		   HINT("the zeroing starts at the cut's offset inside its block, not at "
			"the block's start; " HINT_CUT));

	/* the same cut, the file grown by a write() further on */
	pattern(buf, sizeof(buf), 2, 0);
	ASSERT_EQ(0, pwrite_all(fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, ftruncate(fd, 1000));
	ASSERT_EQ(0, pwrite_all(fd, "W", 1, BLK + 100));
	ASSERT_EQ(0, pread_all(fd, buf, BLK + 100, 0));
	bad = first_nonzero(buf + 1000, BLK - 1000);
	CHECK_THAT(bad < 0, EXPECTED("zeros from byte 1000 (the cut) to 4095, after "
				     "ftruncate() to 1000 and a write() at 4196"),
		   SEEN("%#x at byte %ld", buf[1000 + bad], 1000 + bad), HINT(HINT_CUT));
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
		   HINT("zero on the device, around the CPU cache (memcpy_flushcache())"));
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

TEST_F(dax, truncate_zeroes_a_block_but_allocates_no_hole)
{
	static unsigned char buf[BLK];
	long bad;
	int fd;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/sparse", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	pattern(buf, BLK, 4, 5 * BLK);
	REQUIRE_THAT(!pwrite_all(fd, buf, BLK, 5 * BLK),	/* blocks 0-4: holes */
		     EXPECTED("write() of block 5 of a new file to work"),
		     SEEN("%s", strerror(errno)), HINT(HINT_IO));
	ASSERT_EQ(0, ftruncate(fd, 5 * BLK + 123));		/* inside the block */
	ASSERT_EQ(0, ftruncate(fd, 8 * BLK));
	ASSERT_EQ(0, pread_all(fd, buf, BLK, 5 * BLK));
	bad = first_nonzero(buf + 123, BLK - 123);
	CHECK_THAT(bad < 0, EXPECTED("zeros from the cut (byte 123 of block 5) to its end"),
		   SEEN("%#x at byte %ld of the block", buf[123 + bad], 123 + bad),
		   HINT(HINT_CUT));
	ASSERT_EQ(0, ftruncate(fd, 2 * BLK + 5));		/* inside a hole */
	ASSERT_EQ(0, ftruncate(fd, 7 * BLK + 1));
	CHECK_THAT(st_blocks(fd) == 0, EXPECTED("no block after a truncate inside a hole"),
		   SEEN("st_blocks = %lld", st_blocks(fd)),
		   HINT("a hole reads as zeros already: look the block up with create = 0 "
			"(ext2_dax_zero_tail(); from lab 5 on, dax_bh_zero_page_range(), TODO 1)"));
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/* ---- a write that fails on a bad block --------------------------------- */

PMEM0_BAD_BLOCKS_FIXTURE(bad)

#define HINT_STALE "a write that stops inside blocks it allocated zeroes the rest of " \
		   "them, through the block layer where bdev_direct_access() fails: " \
		   "dax_bh_zero_rest(), fs/dax_bh.c (given)"

/* One block read back at file offset @off: zeroes, never the device's 0xa5. */
static void expect_zeroes(struct __test_metadata *_metadata, const unsigned char *buf,
			  long off, const char *when)
{
	long i = first_nonzero(buf, BLK);

	CHECK_THAT(i < 0, EXPECTED("file block %ld, allocated by a write that failed, to "
				   "read as zeroes %s", off / BLK, when),
		   SEEN("%#x at its byte %ld%s", buf[i], i,
			buf[i] == 0xa5 ? ": what the device held" : ""),
		   HINT(HINT_STALE));
}

/*
 * A write into a hole inside the file, whose second new block has a bad
 * sector: the device gives no memory for the two blocks, so the write
 * fails, but the blocks stay in the file, inside i_size.  They must read
 * as zeroes or fail, never show what the device held.  pmem0 only: brd
 * keeps no bad blocks.
 */
TEST_F(bad, a_write_that_fails_on_a_bad_block_leaves_no_stale_data)
{
	static unsigned char buf[2 * BLK];
	long long at, b2;
	char bad[64];
	ssize_t n;
	long off;
	int fd;

	/* ext4 zeroes new blocks before it links them, with bios */
	if (strcmp(daxfs()->name, "ext2"))
		SKIP(return, "%s zeroes new blocks through the block layer before it "
		     "links them", daxfs()->name);
	REQUIRE_THAT(fill_device("/dev/pmem0") == 0,
		     EXPECTED("to fill /dev/pmem0 with 0xa5"), SEEN("%s", strerror(errno)),
		     HINT("is pmem0 there? see lab 1"));
	setup_dax_fs(_metadata, "/dev/pmem0");
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	self->fd = fd;
	ASSERT_LE(0, fd);
	memset(buf, 'B', sizeof(buf));
	REQUIRE_THAT(!pwrite_all(fd, buf, BLK, 0),
		     EXPECTED("write() of block 0 of a new file to work"),
		     SEEN("%s", strerror(errno)), HINT(HINT_IO));
	ASSERT_EQ(0, ftruncate(fd, 8 * BLK));
	at = fiemap_physical(fd, 0);
	REQUIRE_THAT(at > 0, EXPECTED("FIEMAP to give the block of a written file"),
		     SEEN("%lld (%s)", at, strerror(errno)), HINT("ext2_fiemap()"));
	/* file blocks 1 and 2 go to the device blocks after block 0's */
	snprintf(bad, sizeof(bad), "%lld %ld\n", (at + 2 * BLK) / 512, BLK / 512);
	REQUIRE_THAT(write_sysfs("/sys/block/pmem0/badblocks", bad) == 0,
		     EXPECTED("to mark sectors %s of pmem0 bad", bad),
		     SEEN("%s", strerror(errno)), HINT("a kernel without pmem badblocks?"));
	self->injected = 1;

	n = pwrite(fd, buf, 2 * BLK, BLK);
	if (n == 2 * BLK) {
		b2 = fiemap_physical(fd, 2 * BLK);
		CHECK_THAT(b2 != at + 2 * BLK,
			   EXPECTED("write() into a block with a bad sector to fail"),
			   SEEN("it wrote %zd bytes", n),
			   HINT("bdev_direct_access() must fail on bad sectors: lab 1"));
		if (b2 != at + 2 * BLK)
			SKIP(return, "ext2 put file block 2 at byte %lld of pmem0, not at the "
			     "bad block (%lld)", b2, at + 2 * BLK);
	}
	CHECK_THAT(n < 0 && errno == EIO,
		   EXPECTED("write() of file blocks 1-2, the second on a bad sector, to "
			    "fail with EIO"),
		   SEEN("%zd (%s)", n, n < 0 ? strerror(errno) : "no error"),
		   HINT("dax_do_io() returns bdev_direct_access()'s error when it wrote "
			"nothing"));
	/* block 1 has no bad sector: it reads; block 2 may fail with EIO */
	for (off = BLK; off < 3 * BLK; off += BLK) {
		n = pread(fd, buf, BLK, off);
		CHECK_THAT(n == BLK || (off == 2 * BLK && n < 0 && errno == EIO),
			   EXPECTED("read() of file block %ld to give %ld bytes%s", off / BLK,
				    BLK, off == 2 * BLK ? ", or EIO (its bad sector)" : ""),
			   SEEN("%zd (%s)", n, n < 0 ? strerror(errno) : "short"),
			   HINT("dax_do_io() reads a block that exists; bdev_direct_access() "
				"refuses a bad sector"));
		if (n == BLK)
			expect_zeroes(_metadata, buf, off, "after the failed write");
	}
	if (pmem0_unmount_and_forget(_metadata, &self->fd, &self->injected))
		return;

	/* with no bad block left, nothing may show what the device held */
	ASSERT_EQ(0, mount_fs("/dev/pmem0", "dax"));
	fd = open(MNT "/f", O_RDONLY);
	self->fd = fd;
	ASSERT_LE(0, fd);
	for (off = BLK; off < 3 * BLK; off += BLK) {
		n = pread(fd, buf, BLK, off);
		CHECK_THAT(n == BLK, EXPECTED("read() of file block %ld to give %ld bytes, "
					      "with the bad blocks forgotten", off / BLK, BLK),
			   SEEN("%zd (%s)", n, n < 0 ? strerror(errno) : "short"),
			   HINT(HINT_STALE));
		if (n == BLK)
			expect_zeroes(_metadata, buf, off, "with the bad blocks forgotten");
	}
	close(fd);
	self->fd = -1;
	ASSERT_EQ(0, umount(MNT));
	CHECK_THAT(labcheck_fsck("/dev/pmem0") == 0,
		   EXPECTED("e2fsck -fn /dev/pmem0 to find the filesystem clean"),
		   SEEN("it did not (its report is above)"), HINT(HINT_STALE));
}

/* ---- where the bytes are --------------------------------------------- */

FIXTURE(media) {
	char dev[32];
};

FIXTURE_VARIANT(media) {
	const char *dev;
};

FIXTURE_VARIANT_ADD(media, pmem0) { .dev = "pmem0" };
FIXTURE_VARIANT_ADD(media, pmem0p1) { .dev = "pmem0p1" };

FIXTURE_SETUP(media)
{
	snprintf(self->dev, sizeof(self->dev), "/dev/%s", variant->dev);
	umount(MNT);
	if (!strcmp(variant->dev, "pmem0p1"))
		ASSERT_EQ(0, labcheck_pmem_partition());
}

FIXTURE_TEARDOWN(media)
{
	umount(MNT);
}

TEST_F(media, written_bytes_are_on_the_device)
{
	static unsigned char mine[5 * BLK + 333];
	static unsigned char raw[BLK] __attribute__((aligned(4096)));
	struct {
		struct fiemap fm;
		struct fiemap_extent fe[16];
	} map;
	long long checked = 0;
	int fd, dev;

	setup_dax_fs(_metadata, self->dev);
	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	pattern(mine, sizeof(mine), 11, 0);
	REQUIRE_THAT(pwrite_all(fd, mine, sizeof(mine), 0) == 0,
		     EXPECTED("write of %zu bytes", sizeof(mine)), SEEN("%s", strerror(errno)),
		     HINT(HINT_IO));

	/* no fsync, no unmount: with dax, write() put the bytes on the device */
	memset(&map, 0, sizeof(map));
	map.fm.fm_length = ~0ULL;
	map.fm.fm_extent_count = 16;
	ASSERT_EQ(0, ioctl(fd, FS_IOC_FIEMAP, &map.fm)) TH_LOG("FIEMAP: %s", strerror(errno));
	dev = open(self->dev, O_RDONLY | O_DIRECT);
	ASSERT_LE(0, dev);
	for (unsigned int e = 0; e < map.fm.fm_mapped_extents; e++) {
		struct fiemap_extent *x = &map.fm.fm_extents[e];

		for (unsigned long long o = 0; o < x->fe_length; o += BLK) {
			long long at = x->fe_logical + o;
			size_t n = sizeof(mine) - at < BLK ? sizeof(mine) - at : BLK;

			if (at >= (long long)sizeof(mine))
				break;
			ASSERT_EQ(0, pread_all(dev, raw, BLK, x->fe_physical + o));
			CHECK_THAT(first_diff(raw, mine + at, n) < 0,
				   EXPECTED("file bytes %lld..%lld at byte %llu of %s",
					    at, at + n - 1, x->fe_physical + o, self->dev),
				   SEEN("other bytes there (first difference at +%ld)",
					first_diff(raw, mine + at, n)),
				   HINT("write() must copy to the memory bdev_direct_access() "
					"gives for the block's sector (TODO 2)%s",
					strcmp(self->dev, "/dev/pmem0p1") ? "" :
					"; on a partition, bh.b_bdev is the partition"));
			checked += n;
		}
	}
	CHECK_THAT(checked == (long long)sizeof(mine),
		   EXPECTED("FIEMAP to map all %zu bytes", sizeof(mine)),
		   SEEN("%lld bytes mapped", checked), HINT(HINT_IO));
	close(dev);
	close(fd);
	unmount_and_fsck(_metadata, self->dev);
}

/* ---- the page cache --------------------------------------------------- */

#define BYPASS_FILE (128 * MIB)

/* Write then read a BYPASS_FILE file in 1 MiB pieces: *grown is how much
 * the page cache grew, in KiB, summed over both phases (it may be below 0:
 * other caches shrink).  0, or -1 on an I/O error, which is logged.
 */
static int cache_growth(struct __test_metadata *_metadata, const char *path,
			long long *grown)
{
	static unsigned char buf[MIB];
	long long before, off = 0;
	const char *step = "open";
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	int err = fd < 0;

	memset(buf, 0x42, sizeof(buf));
	drop_caches();
	before = cached_kib();
	for (step = "write"; !err && off < BYPASS_FILE; off += MIB)
		err = pwrite_all(fd, buf, MIB, off);
	*grown = cached_kib() - before;
	if (!err) {
		step = "fsync";
		err = fsync(fd);
	}
	drop_caches();
	before = cached_kib();
	for (off = 0, step = "read"; !err && off < BYPASS_FILE; off += MIB)
		err = pread_all(fd, buf, MIB, off);
	*grown += cached_kib() - before;
	if (err)
		TH_LOG("%s of %s at offset %lld: %s", step, path, off - MIB, strerror(errno));
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	return err ? -1 : 0;
}

TEST(page_cache_is_bypassed)
{
	long long moved_kib = 2 * BYPASS_FILE / 1024, dax, nodax;
	int err;

	umount(MNT);
	setup_dax_fs(_metadata, "/dev/pmem0");
	err = cache_growth(_metadata, MNT "/big", &dax);
	unmount_and_fsck(_metadata, "/dev/pmem0");
	REQUIRE_THAT(!err, EXPECTED("writing and reading a %ld MiB file on -o dax",
					BYPASS_FILE / MIB),
		     SEEN("an I/O error"), HINT(HINT_IO));

	/* the control: the same device and workload, through the page cache */
	ASSERT_EQ(0, daxfs_mkfs("/dev/pmem0", "4096"));
	ASSERT_EQ(0, mount_fs("/dev/pmem0", ""));
	err = cache_growth(_metadata, MNT "/big", &nodax);
	ASSERT_EQ(0, umount(MNT));
	ASSERT_EQ(0, err);

	TH_LOG("page cache growth for %lld KiB moved: %lld KiB with dax, %lld KiB without",
	       moved_kib, dax, nodax);
	CHECK_THAT(nodax >= moved_kib / 2,
		   EXPECTED("the page cache to grow by most of the %lld KiB moved "
			    "without dax (the control)", moved_kib),
		   SEEN("%lld KiB", nodax),
		   HINT("the measurement (Cached: in /proc/meminfo) is broken; "
			"this is not your code"));
	CHECK_THAT(dax * 100 <= moved_kib,
		   EXPECTED("the page cache to grow by at most 1%% of the %lld KiB moved "
			    "with dax", moved_kib),
		   SEEN("%lld KiB", dax),
		   HINT("dax files must not go through generic_file_read_iter()/"
			"generic_file_write_iter() (fs/ext2/file.c)"));
}

LABCHECK_MAIN
