// SPDX-License-Identifier: GPL-2.0
/*
 * What it shows: a store into a hole through MAP_SYNC commits the journal before it returns
 *
 * The program makes ext4 on /dev/pmem0, mounts it with dax (and
 * commit=300, so that only fdatasync() and MAP_SYNC faults commit), and
 * stores one byte into each page of a file of holes, twice: once through a
 * plain MAP_SHARED mapping and once through MAP_SHARED_VALIDATE | MAP_SYNC.
 * Around every store it reads the journal's count of committed
 * transactions (the first number in /proc/fs/jbd2/pmem0-8/info) and prints
 * by how much the store moved it.  Then it asks for MAP_SYNC where it
 * cannot be had: on ext4 mounted dax=never, and on ext2 mounted with dax.
 *
 * Run it in the lab VM:
 *
 *	make experiment NAME=map-sync-commits
 *	make experiment NAME=map-sync-commits ARGS='-w'
 *
 * Options: -n PAGES (default 16); -o MOUNT-OPTIONS for ext4 (default
 * dax,commit=300); -w: fill each file with write() first and do not sync
 * it, so that the stores reach blocks that are allocated but not
 * committed.
 *
 * Things to change: -o dax (the journal thread commits every 5 s, and may
 * commit for the plain mapping too if the run is slow); MAP_SHARED_VALIDATE
 * to MAP_SHARED in map_sync() (mmap() then drops MAP_SYNC without a word);
 * a load before each store (the store then comes by pfn_mkwrite).
 */
#include <libgen.h>
#include <stdio.h>

#include "experiment.h"

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif

static char jbd2_info[64];
static const char *jbd2_dev;	/* "pmem0": the journal's device */

/* Transactions the journal has committed since the mount, once counted. */
static long commits(void)
{
	long n = jbd2_commits_settled(jbd2_dev);

	if (n < 0) {
		errno = ENOENT;
		exp_die(jbd2_info);
	}
	return n;
}

/* A new file of pages pages: holes, or with -w written and not synced. */
static int make_file(const char *path, long pages, int written)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	unsigned char buf[BLK];

	if (fd < 0)
		exp_die(path);
	if (ftruncate(fd, pages * BLK) || fsync(fd))
		exp_die("ftruncate and fsync");
	for (long i = 0; written && i < pages; i++) {
		pattern(buf, BLK, 3, i * BLK);
		if (pwrite_all(fd, buf, BLK, i * BLK))
			exp_die("write");
	}
	return fd;
}

static unsigned char *map_sync(int fd, long len)
{
	return daxfs_map(fd, len, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC);
}

/* Store into every page, twice; print the commits each store made. */
static void stores(const char *what, unsigned char *p, long pages)
{
	long before, made, total;

	for (int round = 1; round <= 2; round++) {
		printf("%-31s %s stores:", what, round == 1 ? "first " : "second");
		total = 0;
		for (long i = 0; i < pages; i++) {
			before = commits();
			if (daxfs_touch(p + i * BLK, 1, 0x5a, NULL)) {
				printf(" SIGBUS\n");
				return;
			}
			made = commits() - before;
			printf(" %ld", made);
			total += made;
		}
		printf("  (%ld in all)\n", total);
	}
}

static void fdatasync_commits(const char *what, int fd)
{
	long before = commits();

	if (fdatasync(fd))
		exp_die("fdatasync");
	printf("%-31s then fdatasync(): %ld\n", what, commits() - before);
}

/* Does mmap() accept MAP_SYNC for this file?  Say so, with why not. */
static void ask_map_sync(const char *path)
{
	int fd = open(path, O_CREAT | O_RDWR, 0644);
	unsigned char *p;

	if (fd < 0 || ftruncate(fd, BLK))
		exp_die(path);
	p = map_sync(fd, BLK);
	printf("%s: a DAX file: %s; mmap(MAP_SHARED_VALIDATE | MAP_SYNC): %s\n", path,
	       is_dax(path) == 1 ? "yes" : "no", p ? "mapped" : strerror(errno));
	if (p)
		munmap(p, BLK);
	close(fd);
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/pmem0", *opts = "dax,commit=300";
	char devname[32];
	long pages = 16;
	int c, fd, written = 0;
	unsigned char *p;

	while ((c = getopt(argc, argv, "n:o:w")) != -1) {
		switch (c) {
		case 'n':
			pages = atol(optarg);
			break;
		case 'o':
			opts = optarg;
			break;
		case 'w':
			written = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-n PAGES] [-o OPTS] [-w]\n", argv[0]);
			return 2;
		}
	}
	if (pages <= 0) {
		fprintf(stderr, "experiment: -n wants a positive number of pages\n");
		return 2;
	}
	snprintf(devname, sizeof(devname), "%s", dev);
	jbd2_dev = basename(devname);
	snprintf(jbd2_info, sizeof(jbd2_info), "/proc/fs/jbd2/%s-8/info", jbd2_dev);
	daxfs_catch_sigbus();

	exp_mount("ext4", dev, opts);
	printf("commits counted in %s; %ld pages per file, %s\n\n", jbd2_info, pages,
	       written ? "written with write() and not synced" : "all holes");

	fd = make_file(MNT "/plain", pages, written);
	printf("%s: a DAX file: %s\n", MNT "/plain", is_dax(MNT "/plain") == 1 ? "yes" : "no");
	p = daxfs_map(fd, pages * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	if (!p)
		exp_die("mmap(MAP_SHARED)");
	stores("MAP_SHARED", p, pages);
	fdatasync_commits("MAP_SHARED", fd);
	munmap(p, pages * BLK);
	close(fd);

	fd = make_file(MNT "/sync", pages, written);
	p = map_sync(fd, pages * BLK);
	if (p) {
		stores("MAP_SHARED_VALIDATE | MAP_SYNC", p, pages);
		fdatasync_commits("MAP_SHARED_VALIDATE | MAP_SYNC", fd);
		munmap(p, pages * BLK);
	} else {
		printf("mmap(MAP_SHARED_VALIDATE | MAP_SYNC) of %s: %s\n", MNT "/sync",
		       strerror(errno));
	}
	close(fd);

	printf("\nWhere MAP_SYNC is refused:\n");
	if (umount(MNT))
		exp_die("umount " MNT);
	if (mount(dev, MNT, "ext4", 0, "dax=never"))
		exp_die("mount -t ext4 -o dax=never");
	printf("ext4 on %s, mounted on %s with 'dax=never'\n", dev, MNT);
	ask_map_sync(MNT "/sync");
	exp_mount("ext2", dev, "dax");
	ask_map_sync(MNT "/f");
	if (umount(MNT))
		exp_die("umount " MNT);
	return 0;
}
