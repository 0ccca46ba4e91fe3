// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 7, black box: execute in place, the heritage of DAX.
 *
 * The program copies itself onto a dax mount and runs the copy, which
 * reports where its own text is in physical memory (/proc/self/pagemap):
 * every page of it must be a page of pmem0, mapped straight from the
 * device by dax_fault(), with no copy in the page cache.  The same copy on
 * a page cache mount (ext4 on ram0 without dax) runs from RAM: that shows
 * the probe can tell the two apart.
 */
#define DAXFS_DEFAULT "ext4"

#include "labcheck.h"
#include "daxfs.h"

#define PC_MNT "/mnt/pc"
#define PROBE "xip-probe"

struct text_report {
	long pages, on_pmem;
	int status;
};

/* In the copy: fault in every page of our text, say where each one is. */
static int report_text(void)
{
	unsigned long long pstart, pend, pfn;
	char exe[256], line[512], path[256];
	unsigned long start, end;
	long pages = 0, on_pmem = 0;
	ssize_t n;
	FILE *maps;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0 || labcheck_pmem_range(&pstart, &pend))
		return 2;
	exe[n] = '\0';
	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return 2;
	while (fgets(line, sizeof(line), maps)) {
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &start, &end, perms, path) != 4 ||
		    strcmp(perms, "r-xp") || strcmp(path, exe))
			continue;
		for (unsigned long a = start; a < end; a += BLK) {
			(void)*(volatile unsigned char *)a;
			pfn = pagemap_pfn((void *)a);
			pages++;
			on_pmem += pfn && pfn * BLK >= pstart && pfn * BLK <= pend;
		}
	}
	fclose(maps);
	printf("%ld %ld\n", pages, on_pmem);
	return 0;
}

/* Copy this program to dir and run the copy: what it reports. */
static struct text_report run_copy(struct __test_metadata *_metadata, const char *dir)
{
	struct text_report r = { .status = -1 };
	static char buf[1 << 16];
	char dst[128], out[128] = "";
	int in, fd, pipefd[2], st;
	ssize_t n;
	pid_t pid;

	snprintf(dst, sizeof(dst), "%s/" PROBE, dir);
	in = open("/proc/self/exe", O_RDONLY);
	fd = open(dst, O_CREAT | O_TRUNC | O_WRONLY, 0755);
	if (in < 0 || fd < 0) {
		TH_LOG("cannot copy the program to %s: %s", dst, strerror(errno));
		return r;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			TH_LOG("write to %s: %s", dst, strerror(errno));
	close(in);
	close(fd);
	if (pipe(pipefd))
		return r;
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		execl(dst, dst, "--text-report", (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	n = read(pipefd[0], out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	waitpid(pid, &st, 0);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (sscanf(out, "%ld %ld", &r.pages, &r.on_pmem) != 2)
		r.pages = r.on_pmem = -1;
	return r;
}

TEST(a_program_on_a_dax_mount_runs_from_the_device)
{
	struct text_report r;
	long long cached;

	umount(MNT);
	ASSERT_EQ(0, daxfs_mkfs("/dev/pmem0", "4096"));
	REQUIRE_THAT(mount_fs("/dev/pmem0", "dax") == 0, EXPECTED("mount -o dax /dev/pmem0"),
		     SEEN("%s", strerror(errno)), HINT("lab 6's checks first"));
	cached = cached_kib();
	r = run_copy(_metadata, MNT);
	REQUIRE_THAT(r.status == 0,
		     EXPECTED("the program copied onto the dax mount to run and exit 0"),
		     SEEN("exit status %d (127: exec failed)", r.status),
		     HINT("exec reads the ELF header with read() (dax_do_io()) and maps "
			  "the text MAP_PRIVATE: dax_fault() for a read fault of a private "
			  "mapping"));
	REQUIRE_THAT(r.pages > 0, EXPECTED("the copy to find its text in /proc/self/maps"),
		     SEEN("%ld pages", r.pages), HINT("is /proc mounted?"));
	CHECK_THAT(r.on_pmem == r.pages,
		   EXPECTED("all %ld pages of its text to be pages of pmem0 (pagemap)",
			    r.pages),
		   SEEN("%ld of them", r.on_pmem),
		   HINT("a read fault of a private mapping must map the device page "
			"itself (dax_fault() in fs/dax_bh.c); only a write copies"));
	CHECK_THAT(cached_kib() - cached < r.pages * BLK / 1024 / 2,
		   EXPECTED("no copy of the text in the page cache"),
		   SEEN("the page cache grew by %lld KiB", cached_kib() - cached),
		   HINT("exec must not read the program through the page cache"));
	umount(MNT);
}

TEST(the_same_program_on_a_page_cache_mount_runs_from_ram)
{
	struct text_report r;

	mkdir(PC_MNT, 0755);
	umount(PC_MNT);
	ASSERT_EQ(0, daxfs_mkfs("/dev/ram0", "4096"));
	ASSERT_EQ(0, mount("/dev/ram0", PC_MNT, "ext4", 0, NULL));
	r = run_copy(_metadata, PC_MNT);
	CHECK_THAT(r.status == 0 && r.pages > 0 && r.on_pmem == 0,
		   EXPECTED("the copy on a page cache mount to run with its text in RAM"),
		   SEEN("exit status %d, %ld of %ld text pages on pmem0", r.status,
			r.on_pmem, r.pages),
		   HINT("the probe itself is wrong if this fails: it reads "
			"/proc/self/maps and /proc/self/pagemap"));
	umount(PC_MNT);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--text-report"))
		return report_text();
	return labcheck_run();
}
