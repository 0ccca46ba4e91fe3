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

#endif /* EXPERIMENT_H */
