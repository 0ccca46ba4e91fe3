/* SPDX-License-Identifier: GPL-2.0 */
/*
 * labcheck.h - what every guest check of the DAX lab includes.
 *
 * It wraps the kernel's own tools/testing/selftests/kselftest_harness.h
 * (taken from the pristine tree, never from the student's branch) and adds:
 *
 *  - LABCHECK_MAIN: a main() that runs only the tests whose name matches
 *    $LABCHECK_FILTER (make check-lab N T=...), announces the plan so the
 *    host can name tests that never ran, and writes a marker into the kernel
 *    log before each test, so that a kernel splat is blamed on the test
 *    that was running when it happened.
 *  - CHECK_THAT(): a failure report in the lab's format: what was expected,
 *    what was seen, and a hint where to look.
 *  - small helpers that many checks need: run a program, read a sysfs
 *    number, read new kernel log lines, mkfs and mount.
 */
#ifndef LABCHECK_H
#define LABCHECK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

/*
 * Report a failed expectation in the lab's format and fail the test: what
 * was expected, what was seen, and a hint where to look.
 *
 *	CHECK_THAT(got == want,
 *		   EXPECTED("/dev/%s of %lld bytes", dev, want),
 *		   SEEN("%lld bytes", got),
 *		   HINT("look at brd_alloc() in drivers/block/brd.c"));
 *
 * REQUIRE_THAT() does the same and ends the test (like ASSERT_*).
 */
#define EXPECTED(...)	TH_LOG("expected: " __VA_ARGS__)
#define SEEN(...)	TH_LOG("seen:     " __VA_ARGS__)
#define HINT(...)	do {						\
	TH_LOG("hint:     " __VA_ARGS__);				\
	if (labcheck_hint_note)						\
		TH_LOG("          %s", labcheck_hint_note);		\
} while (0)

/*
 * A line shown under every hint, or NULL: a suite run on another
 * filesystem than the one its hints name says so here (see daxfs.h).
 */
static const char *labcheck_hint_note;

#define CHECK_THAT(cond, expected, seen, hint) do {			\
	if (!(cond)) {							\
		expected;						\
		seen;							\
		hint;							\
		_metadata->passed = 0;					\
	}								\
} while (0)

#define REQUIRE_THAT(cond, expected, seen, hint) do {			\
	if (!(cond)) {							\
		CHECK_THAT(0, expected, seen, hint);			\
		return;							\
	}								\
} while (0)

/*
 * Filter syntax shared with the host (vm/labvm/selection.py): comma-separated
 * patterns; a pattern with glob characters is a glob, else a substring.
 */
static inline int labcheck_match(const char *filter, const char *name)
{
	char buf[4096], *pat, *save;	/* make test's skeleton filters are long */

	if (!filter || !*filter)
		return 1;
	snprintf(buf, sizeof(buf), "%s", filter);
	for (pat = strtok_r(buf, ",", &save); pat;
	     pat = strtok_r(NULL, ",", &save)) {
		if (strpbrk(pat, "*?[") ? !fnmatch(pat, name, 0) :
					  strstr(name, pat) != NULL)
			return 1;
	}
	return 0;
}

static inline void labcheck_test_name(char *buf, size_t len,
				      struct __fixture_metadata *f,
				      struct __fixture_variant_metadata *v,
				      struct __test_metadata *t)
{
	/* TEST()s live in fixture "global": leave that out of their names */
	if (!strcmp(f->name, "global") && !v->name[0])
		snprintf(buf, len, "%s", t->name);
	else
		snprintf(buf, len, "%s%s%s.%s", f->name, v->name[0] ? "." : "",
			 v->name, t->name);
}

/* Write one line into the kernel log (shows on the console, in order with
 * any splat the kernel prints).
 */
static inline void labcheck_kmsg(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, line, n > 0 && n < (int)sizeof(line) ? n : 0) < 0)
		n = 0;
	close(fd);
}

#define LABCHECK_MAX_TESTS 512

static int labcheck_run(void)
{
	static struct {
		struct __fixture_metadata *f;
		struct __fixture_variant_metadata *v;
		struct __test_metadata *t;
		char name[256];
	} sel[LABCHECK_MAX_TESTS];
	struct __fixture_variant_metadata no_variant = { .name = "", };
	const char *filter = getenv("LABCHECK_FILTER");
	const char *suite = getenv("LABCHECK_SUITE");
	const char *nonce = getenv("LABVM_NONCE");
	struct __fixture_variant_metadata *v;
	struct __fixture_metadata *f;
	struct __test_results *results;
	struct __test_metadata *t;
	unsigned int i, n = 0, pass_count = 0;
	char full[320];
	int ret = 0;

	(void)test_harness_run;	/* replaced by this function */
	if (!suite)
		suite = program_invocation_short_name;

	/* The tests the filter selects, in the harness's order. */
	for (f = __fixture_list; f; f = f->next)
		for (v = f->variant ?: &no_variant; v; v = v->next)
			for (t = f->tests; t; t = t->next) {
				if (n == LABCHECK_MAX_TESTS)
					ksft_exit_fail_msg("more than %d tests\n",
							   LABCHECK_MAX_TESTS);
				labcheck_test_name(sel[n].name,
						   sizeof(sel[n].name), f, v, t);
				snprintf(full, sizeof(full), "%s.%s", suite,
					 sel[n].name);
				if (!labcheck_match(filter, full))
					continue;
				sel[n].f = f;
				sel[n].v = v;
				sel[n].t = t;
				n++;
			}

	results = mmap(NULL, sizeof(*results), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ksft_print_header();
	/* The plan by name, so the host can name tests a crash kept from running */
	for (i = 0; i < n; i++)
		ksft_print_msg("labcheck-plan %s\n", sel[i].name);
	ksft_set_plan(n);
	for (i = 0; i < n; i++) {
		if (nonce)
			labcheck_kmsg("labvm: %s RUN %s.%s\n", nonce, suite,
				      sel[i].name);
		sel[i].t->results = results;
		__run_test(sel[i].f, sel[i].v, sel[i].t);
		sel[i].t->results = NULL;
		if (sel[i].t->passed)
			pass_count++;
		else
			ret = 1;
	}
	if (nonce)
		labcheck_kmsg("labvm: %s RUN -\n", nonce);
	munmap(results, sizeof(*results));
	ksft_print_msg("%s: %u / %u tests passed.\n", ret ? "FAILED" : "PASSED",
		       pass_count, n);
	ksft_exit(ret == 0);
	return KSFT_FAIL;
}

#define LABCHECK_MAIN int main(void) { return labcheck_run(); }

/* ---- helpers ---------------------------------------------------------- */

/* Run a program (argv[0] looked up in $PATH) with its output sent to
 * stderr of the test; return its exit status, or -1 if it could not run.
 */
static inline int labcheck_spawn(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(2, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Read a whole small file into buf (NUL-terminated); -1 on error. */
static inline ssize_t labcheck_read_file(const char *path, char *buf,
					 size_t len)
{
	ssize_t n, done = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (done < (ssize_t)len - 1 &&
	       (n = read(fd, buf + done, len - 1 - done)) > 0)
		done += n;
	close(fd);
	buf[done] = '\0';
	return done;
}

/* Size in bytes of block device "name" from sysfs; -1 if it does not exist. */
static inline long long labcheck_blockdev_bytes(const char *name)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), "/sys/block/%s/size", name);
	if (labcheck_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtoll(buf, NULL, 10) * 512;
}

/* A number from the VM's configuration (exported by /init). */
static inline long long labcheck_conf_ll(const char *var)
{
	const char *s = getenv(var);

	return s ? strtoll(s, NULL, 0) : -1;
}

/*
 * Kernel log cursor: labcheck_kmsg_open() positions at the end of the log;
 * labcheck_kmsg_grep() reports whether a message containing needle was
 * logged since.
 */
static inline int labcheck_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

static inline int labcheck_kmsg_grep(int fd, const char *needle)
{
	char rec[1024];
	ssize_t n;
	int found = 0;

	while ((n = read(fd, rec, sizeof(rec) - 1)) != 0) {
		if (n < 0) {
			if (errno == EPIPE)	/* overwritten records: go on */
				continue;
			break;			/* EAGAIN: no more records */
		}
		rec[n] = '\0';
		if (strstr(rec, needle))
			found = 1;
	}
	return found;
}

/*
 * mke2fs -t fstype on dev with the given block size (quietly); 0 on
 * success.  Without discard: on brd a discard would zero the device, and
 * the stale-data checks fill it with a pattern first.  One inode per
 * 64 KiB, not mke2fs's one per 4 KiB for a small device: no check makes
 * more than a few hundred files, and the inode tables are most of what
 * mke2fs writes and e2fsck -fn reads (ext2 has no uninitialised groups),
 * which every check does once: about 0.3 s a check under TCG.  ext4's
 * inode tables and journal are written here, not left to the kernel's
 * lazy init thread, which would write them under a running check (and
 * over a device's 0xa5 that a check counts).
 */
static inline int labcheck_mkfs(const char *fstype, const char *dev,
				const char *blocksize)
{
	char *argv[] = { "mke2fs", "-q", "-F", "-i", "65536",
			 "-E", "nodiscard,lazy_itable_init=0,lazy_journal_init=0",
			 "-t", (char *)fstype, "-b", (char *)blocksize,
			 (char *)dev, NULL };

	return labcheck_spawn(argv);
}

/* e2fsck -fn: 0 when the filesystem is clean. */
static inline int labcheck_fsck(const char *dev)
{
	char *argv[] = { "e2fsck", "-fn", (char *)dev, NULL };

	return labcheck_spawn(argv);
}

/* The mount options /proc/mounts shows for mount point dir, or "" */
static inline const char *labcheck_mount_opts(const char *dir)
{
	static char buf[16384];
	static char opts[512];
	char *line, *save;

	opts[0] = '\0';
	if (labcheck_read_file("/proc/mounts", buf, sizeof(buf)) < 0)
		return opts;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char dev[128], mnt[256], type[32], o[512];

		if (sscanf(line, "%127s %255s %31s %511s", dev, mnt, type, o) == 4 &&
		    !strcmp(mnt, dir))
			snprintf(opts, sizeof(opts), "%s", o);
	}
	return opts;
}

/* Is option opt one of the comma-separated options in opts? */
static inline int labcheck_has_opt(const char *opts, const char *opt)
{
	size_t len = strlen(opt);
	const char *p = opts;

	while ((p = strstr(p, opt))) {
		if ((p == opts || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return 1;
		p += len;
	}
	return 0;
}

/* The physical range of the legacy pmem device, from /proc/iomem. */
static inline int labcheck_pmem_range(unsigned long long *start, unsigned long long *end)
{
	static char buf[16384];
	char *line, *save;

	if (labcheck_read_file("/proc/iomem", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strstr(line, "Persistent Memory") &&
		    sscanf(line, " %llx-%llx", start, end) == 2)
			return 0;
	return -1;
}

/*
 * A loop device over a new file of size bytes at backing (a device without
 * direct_access): its name goes to dev.  Returns the open loop device, to
 * give to labcheck_loop_detach(), or -1 with the reason on stderr.
 */
#ifndef LOOP_SET_FD
#define LOOP_SET_FD		0x4C00	/* as in <linux/loop.h> */
#define LOOP_CLR_FD		0x4C01
#define LOOP_CTL_GET_FREE	0x4C82
#endif

static inline int labcheck_loop_attach(const char *backing, long long size,
				       char *dev, size_t len)
{
	int back, ctl, n = -1, loop = -1;

	back = open(backing, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ctl = open("/dev/loop-control", O_RDWR);
	if (back < 0 || ctl < 0 || ftruncate(back, size))
		perror("a loop device (is CONFIG_BLK_DEV_LOOP on?)");
	else if ((n = ioctl(ctl, LOOP_CTL_GET_FREE)) < 0)
		perror("LOOP_CTL_GET_FREE");
	if (n >= 0) {
		snprintf(dev, len, "/dev/loop%d", n);
		loop = open(dev, O_RDWR);
		if (loop < 0 || ioctl(loop, LOOP_SET_FD, back)) {
			perror(dev);
			if (loop >= 0)
				close(loop);
			loop = -1;
		}
	}
	if (ctl >= 0)
		close(ctl);
	if (back >= 0)
		close(back);
	unlink(backing);	/* the loop device keeps the file */
	return loop;
}

static inline void labcheck_loop_detach(int loop)
{
	ioctl(loop, LOOP_CLR_FD, 0);
	close(loop);
}

/* Does the running kernel have function or variable sym (/proc/kallsyms)? */
static inline int labcheck_kernel_has(const char *sym)
{
	char line[512], name[256], type;
	unsigned long long addr;
	int found = 0;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
			!strcmp(name, sym);
	fclose(f);
	return found;
}

/*
 * The seed of a randomized check: daxlab.seed=N on the kernel command line
 * (make check-lab N APPEND=daxlab.seed=N), else dflt.  Checks print it when
 * they fail, so that a failure can be replayed.
 */
static inline unsigned int labcheck_seed(unsigned int dflt)
{
	char buf[4096], *p;

	if (labcheck_read_file("/proc/cmdline", buf, sizeof(buf)) > 0 &&
	    (p = strstr(buf, "daxlab.seed=")))
		return strtoul(p + strlen("daxlab.seed="), NULL, 0);
	return dflt;
}

/*
 * The partitions of pmem0 the checks use: pmem0p1, 64 MiB at 1 MiB (a page
 * aligned start), and pmem0p2, 1 MiB one sector after it (a start that is
 * no page boundary), made on first use by writing an MBR and rescanning.
 * Returns 0, or -1 with the reason on stderr.
 */
#ifndef BLKRRPART
#define BLKRRPART _IO(0x12, 95)		/* as in <linux/fs.h> */
#endif
#define LABCHECK_PART_START	2048LL		/* sectors */
#define LABCHECK_PART_SECTORS	(64LL << 11)
/* pmem0p2: a small partition that starts off a page boundary (one sector on) */
#define LABCHECK_PART2_START	(LABCHECK_PART_START + LABCHECK_PART_SECTORS + 1)
#define LABCHECK_PART2_SECTORS	2048LL

static inline int labcheck_pmem_partition(void)
{
	unsigned char mbr[512] __attribute__((aligned(4096))) = { 0 };
	unsigned char *e = mbr + 446;
	int fd, i, ok;

	if (!access("/dev/pmem0p1", F_OK))
		return 0;
	e[4] = 0x83;
	e[16 + 4] = 0x83;
	for (i = 0; i < 4; i++) {
		e[8 + i] = (LABCHECK_PART_START >> (8 * i)) & 0xff;
		e[12 + i] = (LABCHECK_PART_SECTORS >> (8 * i)) & 0xff;
		e[16 + 8 + i] = (LABCHECK_PART2_START >> (8 * i)) & 0xff;
		e[16 + 12 + i] = (LABCHECK_PART2_SECTORS >> (8 * i)) & 0xff;
	}
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	fd = open("/dev/pmem0", O_RDWR);
	if (fd < 0) {
		perror("/dev/pmem0");
		return -1;
	}
	ok = pwrite(fd, mbr, 512, 0) == 512 && !fsync(fd) &&
	     !ioctl(fd, BLKRRPART);
	if (!ok)
		perror("writing a partition table on /dev/pmem0");
	close(fd);
	for (i = 0; ok && i < 100 && access("/dev/pmem0p1", F_OK); i++)
		usleep(20000);
	if (ok && access("/dev/pmem0p1", F_OK)) {
		fprintf(stderr, "/dev/pmem0p1 did not appear after writing a partition table\n");
		ok = 0;
	}
	return ok ? 0 : -1;
}

/* ---- unbinding pmem0 from its driver -------------------------------------- */

#define LABCHECK_ND_PMEM "/sys/bus/nd/drivers/nd_pmem/"

/* pmem0's nvdimm namespace ("namespace0.0") into ns: 0, or -1. */
static inline int labcheck_pmem_namespace(char *ns, size_t len)
{
	char link[256], *base;
	ssize_t n = readlink("/sys/class/block/pmem0/device", link, sizeof(link) - 1);

	if (n <= 0)
		return -1;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (strlen(base) >= len)
		return -1;
	memcpy(ns, base, strlen(base) + 1);
	return 0;
}

/* Write ns to nd_pmem's "bind" or "unbind": 0, or an errno. */
static inline int labcheck_nd_pmem(const char *what, const char *ns)
{
	char path[96];
	int fd, err = 0;

	snprintf(path, sizeof(path), LABCHECK_ND_PMEM "%s", what);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, ns, strlen(ns)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* Wait up to ms for the child pid: its exit status, or -1 while it runs. */
static inline int labcheck_wait_child(pid_t pid, int ms)
{
	int status;

	for (;;) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) :
						   128 + WTERMSIG(status);
		if (ms <= 0)
			return -1;
		usleep(10000);
		ms -= 10;
	}
}

/*
 * Unbind pmem0's namespace ns from nd_pmem in a child, since the unbind
 * may wait for the disk's last close.  The child moves to / and execs a
 * shell at once, so it holds none of the caller's files, mappings or
 * directories (which would keep a mount busy).  Then wait, at most 10 s
 * (a loaded host slows the exec and the unbind down), until the unbind
 * has finished, or sleeps in pmem_release_disk() (its wchan) with pmem0
 * gone from sysfs, the disk deleted.  Returns the
 * child's pid, with *status its exit status (0: unbound) if it finished,
 * -1 if it sleeps there, -2 if neither; what says which, in words.  Or
 * returns -1 if the child could not start.
 */
static inline pid_t labcheck_pmem_unbind(const char *ns, int *status,
					 char *what, size_t len)
{
	char path[64], wchan[64] = "";
	int i, gone = 0;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		for (i = 3; i < 1024; i++)
			close(i);
		if (chdir("/"))
			_exit(126);
		execl("/bin/sh", "sh", "-c", "printf %s \"$1\" > " LABCHECK_ND_PMEM "unbind",
		      "sh", ns, (char *)NULL);
		_exit(127);
	}
	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	for (i = 0; i < 1000; i++) {
		*status = labcheck_wait_child(pid, 0);
		if (*status >= 0) {
			snprintf(what, len, "it finished, exit status %d", *status);
			return pid;
		}
		gone = access("/sys/class/block/pmem0", F_OK) != 0;
		if (labcheck_read_file(path, wchan, sizeof(wchan)) < 0)
			wchan[0] = '\0';
		if (gone && !strcmp(wchan, "pmem_release_disk")) {
			snprintf(what, len, "it sleeps in pmem_release_disk(), pmem0 deleted");
			*status = -1;
			return pid;
		}
		usleep(10000);
	}
	snprintf(what, len, "after 10 s it sleeps in %s, pmem0 %s", wchan[0] ? wchan : "(?)",
		 gone ? "deleted" : "still in sysfs");
	*status = -2;
	return pid;
}

/* Bind ns back to nd_pmem and wait for /dev/pmem0: 0, or -1. */
static inline int labcheck_pmem_rebind(const char *ns)
{
	int i, err = labcheck_nd_pmem("bind", ns);

	if (err) {
		fprintf(stderr, "binding %s to nd_pmem: %s\n", ns, strerror(err));
		return -1;
	}
	for (i = 0; i < 300 && access("/dev/pmem0", F_OK); i++)
		usleep(10000);
	if (access("/dev/pmem0", F_OK)) {
		fprintf(stderr, "/dev/pmem0 did not come back after binding %s\n", ns);
		return -1;
	}
	return 0;
}

#endif /* LABCHECK_H */
