// SPDX-License-Identifier: GPL-2.0
/*
 * What it shows: where write()'s bytes are when it returns, with and without dax
 *
 * The same workload twice, on a fresh filesystem each time: first mounted
 * without dax (through the page cache), then with -o dax.
 *  1. write() a FILE_MIB MiB file in 1 MiB pieces, without fsync(), and
 *     print how much Cached: and Dirty: in /proc/meminfo grew;
 *  2. count the file's blocks whose bytes are already on the device: each
 *     block's place on the device comes from FIEMAP, and is read from the
 *     device with O_DIRECT (so not from the device's own page cache);
 *  3. the same after fsync(), and Dirty: then;
 *  4. drop the clean caches (sync, then drop_caches), read the file back
 *     and print how much Cached: grew.
 *
 * Run it in the lab VM (lab 2 done: read and write of a dax file work):
 *	make experiment NAME=where-writes-go
 *	make experiment NAME=where-writes-go ARGS='/dev/ram0'
 * The arguments are the device (default /dev/pmem0) and the filesystem
 * (default ext2; ext4 accepts -o dax from lab 6 on).
 *
 * To see more: change FILE_MIB (ram0 holds 64 MiB); print Buffers: too,
 * where the block device's own page cache (ext2's metadata) is counted;
 * sleep 35 s before counting in the page cache run and watch writeback
 * put the bytes on the device (dirty_expire_centisecs is 30 s); or write
 * 100 bytes into the middle of a new block and print the raw block
 * around them.
 */
#include "experiment.h"

#define FILE_MIB 16
#define NBLOCKS (FILE_MIB * MIB / BLK)

static unsigned char data[FILE_MIB * MIB];
static unsigned char back[MIB];

/* The field of /proc/meminfo, in KiB. */
static long long meminfo_kib(const char *field)
{
	char line[128];
	size_t len = strlen(field);
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		exp_die("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':') {
			v = atoll(line + len + 1);
			break;
		}
	fclose(f);
	return v;
}

/* Write back everything dirty, then drop the clean page cache. */
static void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1)
		exp_die("/proc/sys/vm/drop_caches");
	close(fd);
}

/*
 * How many blocks of the file hold data[] on the device: FIEMAP says where
 * each extent is, O_DIRECT reads the device there.
 */
static long on_device(int fd, const char *dev)
{
	static unsigned char raw[MIB] __attribute__((aligned(4096)));
	struct {
		struct fiemap fm;
		struct fiemap_extent fe[64];
	} map;
	int dfd = open(dev, O_RDONLY | O_DIRECT);
	long same = 0;

	if (dfd < 0)
		exp_die(dev);
	memset(&map, 0, sizeof(map));
	map.fm.fm_length = sizeof(data);
	map.fm.fm_extent_count = 64;
	if (ioctl(fd, FS_IOC_FIEMAP, &map.fm))
		exp_die("FIEMAP");
	for (unsigned int e = 0; e < map.fm.fm_mapped_extents; e++) {
		struct fiemap_extent *x = &map.fm.fm_extents[e];

		if (x->fe_flags & FIEMAP_EXTENT_UNKNOWN)
			continue;	/* not on the device yet (ext4's delalloc) */
		for (unsigned long long o = 0; o < x->fe_length; o += sizeof(raw)) {
			unsigned long long at = x->fe_logical + o;
			unsigned long long n = x->fe_length - o;

			if (n > sizeof(raw))
				n = sizeof(raw);
			if (at + n > sizeof(data))	/* past the file's end */
				n = at < sizeof(data) ? sizeof(data) - at : 0;
			if (pread_all(dfd, raw, n, x->fe_physical + o))
				exp_die(dev);
			for (unsigned long long b = 0; b < n; b += BLK)
				same += !memcmp(raw + b, data + at + b, BLK);
		}
	}
	close(dfd);
	return same;
}

static void run(const char *dev, const char *fs, const char *opts,
		unsigned int seed)
{
	long long cached, dirty;
	long off;
	int fd;

	exp_mount(fs, dev, opts);
	fd = open(MNT "/f", O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		exp_die(MNT "/f");
	printf("%s/f: STATX_ATTR_DAX %s\n", MNT, is_dax(MNT "/f") > 0 ? "set" : "not set");
	pattern(data, sizeof(data), seed, 0);

	cached = meminfo_kib("Cached");
	dirty = meminfo_kib("Dirty");
	for (off = 0; off < FILE_MIB * MIB; off += MIB)
		if (pwrite_all(fd, data + off, MIB, off))
			exp_die("write()");
	printf("write() of %d MiB: Cached: %+lld KiB, Dirty: %+lld KiB\n",
	       FILE_MIB, meminfo_kib("Cached") - cached, meminfo_kib("Dirty") - dirty);
	printf("  blocks whose bytes are on %s: %ld of %ld\n", dev,
	       on_device(fd, dev), (long)NBLOCKS);

	if (fsync(fd))
		exp_die("fsync()");
	printf("then fsync(): Dirty: %+lld KiB\n", meminfo_kib("Dirty") - dirty);
	printf("  blocks whose bytes are on %s: %ld of %ld\n", dev,
	       on_device(fd, dev), (long)NBLOCKS);

	drop_caches();
	cached = meminfo_kib("Cached");
	for (off = 0; off < FILE_MIB * MIB; off += MIB) {
		if (pread_all(fd, back, MIB, off))
			exp_die("read()");
		if (memcmp(back, data + off, MIB)) {
			fprintf(stderr, "experiment: read() of %s/f at %ld: not the bytes written\n",
				MNT, off);
			exit(1);
		}
	}
	printf("read() of %d MiB, after dropping the page cache: Cached: %+lld KiB\n",
	       FILE_MIB, meminfo_kib("Cached") - cached);
	close(fd);
	if (umount(MNT))
		exp_die("umount " MNT);
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/pmem0";
	const char *fs = argc > 2 ? argv[2] : "ext2";

	setvbuf(stdout, NULL, _IOLBF, 0);
	run(dev, fs, "", 1);	/* the page cache: what you know */
	printf("\n");
	run(dev, fs, "dax", 2);
	return 0;
}
