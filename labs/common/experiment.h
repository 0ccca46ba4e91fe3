/* SPDX-License-Identifier: GPL-2.0 */
/*
 * experiment.h - what the lab experiments share: a filesystem to try
 * things on, and stopping with a message that says what failed.
 *
 * An experiment is a starting point, not a check: it prints what it sees
 * and lets you judge.  Run one in the lab VM with
 *	make experiment NAME=<name> [ARGS='...']
 * then change it and run it again.
 */
#ifndef EXPERIMENT_H
#define EXPERIMENT_H

#include <limits.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "daxmem.h"

/* Say what failed, with errno's reason, and stop. */
static inline void exp_die(const char *what)
{
	fprintf(stderr, "experiment: %s: %s\n", what, strerror(errno));
	exit(1);
}

/*
 * A fresh filesystem fs ("ext2" or "ext4", 4 KiB blocks) on dev, mounted
 * on MNT with the mount options opts ("dax", or "" for the page cache).
 */
static inline void exp_mount(const char *fs, const char *dev, const char *opts)
{
	char cmd[256];
	int rc;

	umount(MNT);	/* an earlier run's, if any */
	snprintf(cmd, sizeof(cmd), "mkfs.%s -q -F -b 4096 %s", fs, dev);
	rc = system(cmd);
	if (rc) {
		fprintf(stderr, "experiment: %s: exit status %d\n", cmd,
			WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
		exit(1);
	}
	mkdir(MNT, 0755);
	if (mount(dev, MNT, fs, 0, opts)) {
		fprintf(stderr, "experiment: mount -t %s -o '%s' %s %s: %s\n",
			fs, opts, dev, MNT, strerror(errno));
		exit(1);
	}
	printf("%s on %s, mounted on %s with '%s'\n", fs, dev, MNT, opts);
}

/*
 * Where an experiment runs, from its options -t TYPE (ext2 or ext4), -d DEV
 * and -o MOUNT-OPTIONS ("none": no options, through the page cache).  Put
 * EXP_FS_OPTIONS in getopt()'s string and pass each option to
 * exp_fs_option().
 */
struct exp_fs {
	const char *type;
	const char *dev;
	const char *opts;
};

#define EXP_FS_OPTIONS "t:d:o:"
#define EXP_FS_USAGE "[-t ext2|ext4] [-d DEV] [-o OPTIONS|none]"

/* 1 if opt was one of -t, -d and -o (and is now in f), else 0. */
static inline int exp_fs_option(struct exp_fs *f, int opt, const char *arg)
{
	switch (opt) {
	case 't':
		f->type = arg;
		return 1;
	case 'd':
		f->dev = arg;
		return 1;
	case 'o':
		f->opts = strcmp(arg, "none") ? arg : "";
		return 1;
	}
	return 0;
}

/*
 * For an experiment whose only options are -t, -d and -o: read them into
 * where (which holds the defaults), or print the usage and exit 2; then
 * mount where->dev as exp_mount() does.
 */
static inline void exp_fs_from_args(int argc, char **argv, struct exp_fs *where)
{
	int opt;

	while ((opt = getopt(argc, argv, EXP_FS_OPTIONS)) != -1) {
		if (!exp_fs_option(where, opt, optarg)) {
			fprintf(stderr, "usage: %s " EXP_FS_USAGE "\n", argv[0]);
			exit(2);
		}
	}
	exp_mount(where->type, where->dev, where->opts);
}

/*
 * The first pfn of dev when it is one range of physical memory (pmem:
 * /sys/block/NAME/device/resource), else 0 (brd allocates ram0's pages one
 * by one).  Says which, on a line of its own.
 */
static inline unsigned long long exp_device_pfn_base(const char *dev)
{
	char real[PATH_MAX], path[PATH_MAX + 64], buf[64];
	unsigned long long base = 0;
	const char *name;
	FILE *f;

	name = realpath(dev, real) ? real : dev;
	name = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	snprintf(path, sizeof(path), "/sys/block/%s/device/resource", name);
	f = fopen(path, "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			base = strtoull(buf, NULL, 16) / BLK;
		fclose(f);
	}
	if (base)
		printf("%s is physical memory from %#llx: its byte N has pfn %#llx + N / 4096\n",
		       name, base * BLK, base);
	else
		printf("%s has no physical address in sysfs: its pages are not one range\n",
		       name);
	return base;
}

/* Where page of the file fd is on the device, by FIEMAP (no newline). */
static inline void exp_print_block(int fd, long page, unsigned long long pfn_base)
{
	long long phys = fiemap_physical(fd, page * BLK);

	if (phys < 0)
		printf("no block (a hole)");
	else if (pfn_base)
		printf("block at device byte %#llx, device pfn %#llx",
		       phys, pfn_base + phys / BLK);
	else
		printf("block at device byte %#llx", phys);
}

/*
 * "yes" if the page cache holds page of the file fd (of pages pages), by
 * mincore() on a new mapping that never faulted, else "no".
 */
static inline const char *exp_in_page_cache(int fd, long page, long pages)
{
	unsigned char vec[64];
	unsigned char *probe;
	int ret;

	if (pages > 64 || page >= pages) {
		errno = EINVAL;
		exp_die("exp_in_page_cache: at most 64 pages");
	}
	probe = daxfs_map(fd, pages * BLK, PROT_READ, MAP_SHARED);
	if (!probe)
		exp_die("mmap for mincore()");
	ret = mincore(probe, pages * BLK, vec);
	munmap(probe, pages * BLK);
	if (ret)
		exp_die("mincore");
	return vec[page] & 1 ? "yes" : "no";
}

/* A byte as 'c' if printable, else as a number (four results kept). */
static inline const char *exp_show_byte(unsigned char c)
{
	static char buf[4][8];
	static int i;

	i = (i + 1) % 4;
	if (c >= 0x21 && c < 0x7f)
		snprintf(buf[i], sizeof(buf[i]), "'%c'", c);
	else
		snprintf(buf[i], sizeof(buf[i]), "%d", c);
	return buf[i];
}

#endif /* EXPERIMENT_H */
