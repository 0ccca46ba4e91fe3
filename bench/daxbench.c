// SPDX-License-Identifier: GPL-2.0
/*
 * daxbench: the guest side of "make bench".  One run of every workload
 * asked for, on a filesystem it makes on /dev/pmem0, one result per line:
 *
 *	bench: WORKLOAD VALUE UNIT
 *
 * Usage: daxbench FSTYPE MOUNT_OPTIONS WORKLOAD...
 * (MOUNT_OPTIONS "-" for none).  The host (bench/bench.py) boots one VM
 * per configuration and round, and computes the statistics.
 *
 * Workloads, on a FILE_MIB file, each moving FILE_MIB:
 *   {seq,rand}-{read,write}-{4k,64k,1m}  read() of a file read once
 *		before (warm) or write() over its blocks then fsync(); MB/s
 *   cold-read	sequential 1 MiB reads after the page cache is dropped; MB/s
 *   mmap-read-faults	a load from every page of a new mapping; pages/s
 *		(a fault per page: no huge pages in the lab config)
 *   mmap-write-faults	a store to every page of a new mapping of a sparse
 *		file (each fault allocates); pages/s
 *   pagecache-growth	the page cache's growth while a write pass over a new
 *		file and a cold read pass over another move 2 * FILE_MIB, in
 *		1 MiB calls; percent of the bytes moved
 *
 * DAXBENCH_READ in the environment replaces the read workloads' read():
 *   memcpy	copy from a mapping of the file, faulted in before the clock
 *		starts: on a dax mount that mapping is the pmem itself, so the
 *		figure is one memcpy() from the same memory into the same
 *		buffer, the ceiling that read() can approach.
 *   pmem-direct	pread() of DEV opened O_DIRECT, at the same offsets:
 *		the block driver copies the same pmem into the same buffer,
 *		with no filesystem; the kernel's own copy, to tell what the
 *		copy costs from what DAX adds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEV "/dev/pmem0"
#define MNT "/mnt/bench"
#define FILE_MIB 64L
#define FILE_LEN (FILE_MIB << 20)
#define PAGE 4096L

static unsigned char *buf;

static void die(const char *what)
{
	printf("bench-error: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long long cached_bytes(void)
{
	char line[256];
	long long kib = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Cached: %lld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib * 1024;
}

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd < 0 || write(fd, "3", 1) != 1)
		die("drop_caches");
	close(fd);
}

static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void setup(const char *fs, const char *opts)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "mkfs.%s -q -F -b 4096 " DEV " >/dev/null 2>&1", fs);
	if (run(cmd))
		die(cmd);
	mkdir(MNT, 0755);
	if (mount(DEV, MNT, fs, 0, strcmp(opts, "-") ? opts : NULL))
		die("mount");
}

/*
 * The FILE_LEN file of allocated, written blocks that the workloads read
 * and overwrite: written once, then kept.  Its fd (not to be closed).
 */
static int data_file(const char *name)
{
	static int fd = -1;
	char path[64];

	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), MNT "/%s", name);
	fd = open(path, O_CREAT | O_RDWR, 0644);
	if (fd < 0)
		die(path);
	for (long off = 0; off < FILE_LEN; off += 1 << 20)
		if (pwrite(fd, buf, 1 << 20, off) != 1 << 20)
			die("pwrite");
	if (fsync(fd))
		die("fsync");
	return fd;
}

static uint64_t rnd = 88172645463325252ULL;

static uint64_t next_random(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 7;
	rnd ^= rnd << 17;
	return rnd;
}

/* Move FILE_LEN bytes in blocks of bs; MB/s. */
static double io_pass(int fd, long bs, int write, int random)
{
	long n = FILE_LEN / bs;
	double t0 = now();

	for (long i = 0; i < n; i++) {
		off_t off = (random ? (off_t)(next_random() % n) : i) * bs;
		ssize_t r = write ? pwrite(fd, buf, bs, off) : pread(fd, buf, bs, off);

		if (r != bs)
			die(write ? "pwrite" : "pread");
	}
	if (write && fsync(fd))
		die("fsync");
	return FILE_LEN / (now() - t0) / 1e6;
}

/* The same reads as io_pass(), as memcpy() from a faulted-in mapping. */
static double copy_pass(int fd, long bs, int random)
{
	const unsigned char *p = mmap(NULL, FILE_LEN, PROT_READ, MAP_SHARED, fd, 0);
	long n = FILE_LEN / bs;
	unsigned char sum = 0;
	double t0, t;

	if (p == MAP_FAILED)
		die("mmap");
	for (long off = 0; off < FILE_LEN; off += PAGE)
		sum += ((const volatile unsigned char *)p)[off];
	t0 = now();
	for (long i = 0; i < n; i++) {
		off_t off = (random ? (off_t)(next_random() % n) : i) * bs;

		memcpy(buf, p + off, bs);
		/* the copy is used, so the compiler keeps it */
		sum += ((volatile unsigned char *)buf)[bs - 1];
	}
	t = now() - t0;
	munmap((void *)p, FILE_LEN);
	(void)sum;
	return FILE_LEN / t / 1e6;
}

static double fault_pass(int fd, int write)
{
	volatile unsigned char *p = mmap(NULL, FILE_LEN, PROT_READ | PROT_WRITE,
					 MAP_SHARED, fd, 0);
	unsigned char sum = 0;
	double t0, t;

	if (p == MAP_FAILED)
		die("mmap");
	t0 = now();
	for (long off = 0; off < FILE_LEN; off += PAGE) {
		if (write)
			p[off] = 1;
		else
			sum += p[off];
	}
	t = now() - t0;
	munmap((void *)p, FILE_LEN);
	(void)sum;
	return FILE_LEN / PAGE / t;
}

static void workload(const char *w)
{
	long bs = 0;
	int write = 0, random = 0, fd;
	const char *how;
	char kind[16], dir[16], size[16];
	double v;

	if (sscanf(w, "%15[a-z]-%15[a-z]-%15[0-9km]", kind, dir, size) == 3 &&
	    (!strcmp(kind, "seq") || !strcmp(kind, "rand"))) {
		random = !strcmp(kind, "rand");
		write = !strcmp(dir, "write");
		bs = !strcmp(size, "4k") ? 4096 : !strcmp(size, "64k") ? 65536 : 1 << 20;
		fd = data_file("f");
		if (!write)
			io_pass(fd, 1 << 20, 0, 0);	/* warm */
		how = write ? NULL : getenv("DAXBENCH_READ");
		if (how && !strcmp(how, "memcpy")) {
			v = copy_pass(fd, bs, random);
		} else if (how && !strcmp(how, "pmem-direct")) {
			int raw = open(DEV, O_RDONLY | O_DIRECT);

			if (raw < 0)
				die("open " DEV " O_DIRECT");
			io_pass(raw, 1 << 20, 0, 0);	/* warm, as above */
			v = io_pass(raw, bs, 0, random);
			close(raw);
		} else {
			v = io_pass(fd, bs, write, random);
		}
		printf("bench: %s %.1f MB/s\n", w, v);
	} else if (!strcmp(w, "cold-read")) {
		fd = data_file("f");
		drop_caches();
		v = io_pass(fd, 1 << 20, 0, 0);
		printf("bench: %s %.1f MB/s\n", w, v);
	} else if (!strcmp(w, "mmap-read-faults")) {
		fd = data_file("f");
		drop_caches();
		printf("bench: %s %.0f pages/s\n", w, fault_pass(fd, 0));
	} else if (!strcmp(w, "mmap-write-faults")) {
		fd = open(MNT "/sparse", O_CREAT | O_TRUNC | O_RDWR, 0644);
		if (fd < 0 || ftruncate(fd, FILE_LEN))
			die("sparse file");
		printf("bench: %s %.0f pages/s\n", w, fault_pass(fd, 1));
	} else if (!strcmp(w, "pagecache-growth")) {
		long long before;
		int wfd;

		fd = data_file("f");		/* read back, cold */
		wfd = open(MNT "/sparse", O_CREAT | O_TRUNC | O_RDWR, 0644);
		if (wfd < 0)
			die("open");
		drop_caches();
		before = cached_bytes();
		io_pass(wfd, 1 << 20, 1, 0);
		io_pass(fd, 1 << 20, 0, 0);
		printf("bench: %s %.3f %%\n", w,
		       100.0 * (cached_bytes() - before) / (2.0 * FILE_LEN));
		close(wfd);
	} else {
		printf("bench-error: unknown workload %s\n", w);
		exit(2);
	}
	if (fd != data_file("f"))
		close(fd);
	unlink(MNT "/sparse");
	sync();
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: daxbench FSTYPE MOUNT_OPTIONS WORKLOAD...\n");
		return 2;
	}
	buf = aligned_alloc(PAGE, 1 << 20);
	if (!buf)
		die("malloc");
	memset(buf, 0x5a, 1 << 20);
	setup(argv[1], argv[2]);
	for (int i = 3; i < argc; i++) {
		drop_caches();
		workload(argv[i]);
		fflush(stdout);
	}
	umount(MNT);
	return 0;
}
