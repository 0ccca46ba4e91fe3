// SPDX-License-Identifier: GPL-2.0
/*
 * What it shows: write() and read() copy a file into the page cache, even on pmem
 *
 * The program makes a fresh filesystem, writes a file of some MiB with
 * write(), syncs it, drops the page cache, reads the file back twice with
 * read(), and after each step prints three lines of /proc/meminfo as a
 * change since the start: Cached (pages of files), Dirty (pages not yet
 * written to the device) and Buffers (pages of the block device itself,
 * where the filesystem's metadata is).  The device is memory already, so
 * every kB that Cached grows by is a second copy of the file in RAM.
 *
 * Run it in the lab VM:
 *
 *	make experiment NAME=page-cache-copy
 *	make experiment NAME=page-cache-copy ARGS='-o dax'
 *
 * Options: -t ext2|ext4 (default ext2), -d DEV (default /dev/pmem0; try
 * /dev/ram0), -o MOUNT-OPTIONS (default none), -m MIB (default 16).
 *
 * Things to change: the size (-m); ext4 instead of ext2 (-t ext4, and see
 * what -o dax does to it); mmap() the file and read it through the mapping
 * instead of read().  Run it again with -o dax from lab 2 on.
 */
#include <stdio.h>

#include "experiment.h"

struct meminfo {
	long cached, dirty, buffers;	/* kB */
};

/* The value in kB of the /proc/meminfo line that starts with name. */
static long meminfo_kb(const char *text, const char *name)
{
	size_t len = strlen(name);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == ':')
			return atol(p + len + 1);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static struct meminfo meminfo(void)
{
	char text[8192];
	struct meminfo m;
	ssize_t n;
	int fd;

	fd = open("/proc/meminfo", O_RDONLY);
	if (fd < 0)
		exp_die("open /proc/meminfo");
	n = read(fd, text, sizeof(text) - 1);
	if (n < 0)
		exp_die("read /proc/meminfo");
	close(fd);
	text[n] = '\0';
	m.cached = meminfo_kb(text, "Cached");
	m.dirty = meminfo_kb(text, "Dirty");
	m.buffers = meminfo_kb(text, "Buffers");
	return m;
}

static struct meminfo start;

static void show(const char *when)
{
	struct meminfo m = meminfo();

	printf("%-34s %+8ld %+8ld %+8ld\n", when, m.cached - start.cached,
	       m.dirty - start.dirty, m.buffers - start.buffers);
}

/* Drop the clean pages of the page cache (what "echo 1 >" does). */
static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd < 0 || write(fd, "1", 1) != 1)
		exp_die("write /proc/sys/vm/drop_caches");
	close(fd);
}

/* The line of /proc/mounts for MNT: what the kernel says it mounted. */
static void show_mount(void)
{
	char line[512];
	FILE *f = fopen("/proc/mounts", "r");

	if (!f)
		exp_die("open /proc/mounts");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " " MNT " "))
			printf("/proc/mounts: %s", line);
	fclose(f);
}

static void read_file(int fd, unsigned char *buf, size_t len, const unsigned char *want)
{
	if (pread_all(fd, buf, len, 0))
		exp_die("read the file");
	if (first_diff(buf, want, len) >= 0)
		fprintf(stderr, "experiment: the file read back differs at byte %ld\n",
			first_diff(buf, want, len));
}

int main(int argc, char **argv)
{
	struct exp_fs where = { "ext2", "/dev/pmem0", "" };
	unsigned char *data, *buf;
	char label[64];
	long mib = 16;
	size_t len;
	int c, fd;

	while ((c = getopt(argc, argv, EXP_FS_OPTIONS "m:")) != -1) {
		if (c == 'm') {
			mib = atol(optarg);
		} else if (!exp_fs_option(&where, c, optarg)) {
			fprintf(stderr, "usage: %s " EXP_FS_USAGE " [-m MIB]\n", argv[0]);
			return 2;
		}
	}
	if (mib <= 0) {
		fprintf(stderr, "experiment: -m wants a positive number of MiB\n");
		return 2;
	}
	len = mib * MIB;
	data = malloc(len);
	buf = malloc(len);
	if (!data || !buf)
		exp_die("malloc");
	pattern(data, len, 7, 0);

	exp_mount(where.type, where.dev, where.opts);
	show_mount();
	fd = open(MNT "/file", O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		exp_die("create " MNT "/file");
	printf(MNT "/file is a DAX file (statx): %s\n",
	       is_dax(MNT "/file") == 1 ? "yes" : "no");

	sync();
	start = meminfo();
	printf("\n%-34s %8s %8s %8s   (kB, change since the start)\n", "",
	       "Cached", "Dirty", "Buffers");
	show("at the start");
	if (pwrite_all(fd, data, len, 0))
		exp_die("write the file");
	snprintf(label, sizeof(label), "after write() of %ld MiB", mib);
	show(label);
	if (fsync(fd))
		exp_die("fsync");
	show("after fsync()");
	drop_caches();
	show("after drop_caches");
	read_file(fd, buf, len, data);
	snprintf(label, sizeof(label), "after read() of %ld MiB", mib);
	show(label);
	read_file(fd, buf, len, data);
	show("after a second read()");

	close(fd);
	if (umount(MNT))
		exp_die("umount " MNT);
	show("after umount");
	return 0;
}
