// SPDX-License-Identifier: GPL-2.0
/*
 * What it shows: a private mapping shows the device until a store, then a copy that write() no longer reaches
 *
 * The program makes a file of four pages: pages 0 and 1 written with
 * write(), pages 2 and 3 holes.  It maps the file once with MAP_PRIVATE
 * (P) and opens it a second time for write().  Page 0 is loaded, written
 * with write(), stored to through P, and written again; page 1 is stored
 * to without a load first; page 2, a hole, is stored to and then written;
 * page 3, a hole, is loaded and then stored to.  At the end the file is
 * cut to one page.  For each access it prints the faults it cost
 * (getrusage()), the pfn P maps then (/proc/self/pagemap; 0 when there is
 * no entry), the device's pfn for the block (FIEMAP), st_blocks, whether
 * the page cache holds the page (mincore() on a mapping that never
 * faulted), and the bytes P and read() see.
 *
 * Run it in the lab VM:
 *
 *	make experiment NAME=private-copies
 *	make experiment NAME=private-copies ARGS='-d /dev/ram0'
 *	make experiment NAME=private-copies ARGS='-o none'
 *
 * Options: -t ext2|ext4 (default ext2; ext4 from lab 6), -d DEV (default
 * /dev/pmem0), -o MOUNT-OPTIONS (default dax; none mounts without options,
 * through the page cache).  On ram0 the device's pfns are not known (brd
 * allocates its pages one by one): compare P's pfns with each other.
 *
 * Things to change: run it on your lab 3 kernel and count the faults of
 * the store to page 1; fork() after the stores and store again in the
 * child; add a MAP_SHARED mapping and store through it instead of
 * write(); cut the file to two pages instead of one.
 */
#include <sys/resource.h>

#include "experiment.h"

#define PAGES 4

static unsigned long long pfn_base;	/* the device's first pfn, 0 if unknown */
static int fd, failed;
static unsigned char *p;		/* the MAP_PRIVATE mapping */

/*
 * Where page of the file is on the device (FIEMAP), st_blocks, and
 * whether the page cache holds the page: on a line of its own if first,
 * else as the state of the page now.
 */
static void print_block(long page, int first)
{
	if (first)
		printf("\npage %ld: ", page);
	else
		printf("    now: ");
	exp_print_block(fd, page, pfn_base);
	printf(", st_blocks %lld, in the page cache: %s\n", st_blocks(fd),
	       exp_in_page_cache(fd, page, PAGES));
}

static long faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

/*
 * A load (store = 0) or a store of val at byte off of page through P:
 * print what it read or stored, the faults it cost, and the pfn P maps.
 */
static void touch(long page, long off, int store, unsigned char val)
{
	unsigned char c = 0;
	long before = faults();
	int ret = daxfs_touch(p + page * BLK + off, store, val, &c);
	long cost = faults() - before;

	if (store)
		printf("  store %s through P at byte %ld: ", exp_show_byte(val), off);
	else
		printf("  load through P at byte %ld: ", off);
	if (ret) {
		printf("SIGBUS\n");
		failed = 1;
		return;
	}
	if (!store)
		printf("%s, ", exp_show_byte(c));
	printf("%ld fault%s, P maps pfn %#llx\n", cost, cost == 1 ? "" : "s",
	       pagemap_pfn(p + page * BLK));
}

/* What P and read() see at byte off of page, without a fault if mapped. */
static void compare(long page, long off)
{
	unsigned char c, back;

	if (pread(fd, &back, 1, page * BLK + off) != 1)
		exp_die("read");
	if (daxfs_touch(p + page * BLK + off, 0, 0, &c)) {
		printf("    byte %ld: P raises SIGBUS, read() reads %s\n", off,
		       exp_show_byte(back));
		failed = 1;
		return;
	}
	printf("    byte %ld: P reads %s, read() reads %s\n", off, exp_show_byte(c),
	       exp_show_byte(back));
}

static void write_byte(int wfd, long page, long off, unsigned char val)
{
	if (pwrite_all(wfd, &val, 1, page * BLK + off))
		exp_die("pwrite");
	printf("  write() of %s at byte %ld through the other fd\n", exp_show_byte(val), off);
}

int main(int argc, char **argv)
{
	struct exp_fs where = { "ext2", "/dev/pmem0", "dax" };
	unsigned char data[2 * BLK], warm = 0;
	int wfd;

	exp_fs_from_args(argc, argv, &where);
	pfn_base = exp_device_pfn_base(where.dev);
	fd = open(MNT "/f", O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		exp_die("create " MNT "/f");
	pattern(data, sizeof(data), 4, 0);
	if (pwrite_all(fd, data, sizeof(data), 0) || ftruncate(fd, PAGES * BLK))
		exp_die("write pages 0-1, make pages 2-3 holes");
	wfd = open(MNT "/f", O_RDWR);
	if (wfd < 0)
		exp_die("open " MNT "/f again");
	printf(MNT "/f: 4 pages, 0-1 written, 2-3 holes; a DAX file: %s\n",
	       is_dax(MNT "/f") == 1 ? "yes" : "no");
	p = daxfs_map(fd, PAGES * BLK, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	if (!p)
		exp_die("mmap(MAP_PRIVATE)");
	daxfs_catch_sigbus();
	daxfs_touch(&warm, 0, 0, &warm);	/* fault in what touch() uses */
	faults();

	print_block(0, 1);
	touch(0, 8, 0, 0);
	write_byte(wfd, 0, 8, 'W');
	compare(0, 8);
	touch(0, 0, 1, 'p');
	compare(0, 0);
	write_byte(wfd, 0, 8, 'V');
	compare(0, 8);

	print_block(1, 1);
	touch(1, 0, 1, 'p');
	compare(1, 0);
	compare(1, 8);

	print_block(2, 1);
	touch(2, 0, 1, 'p');
	print_block(2, 0);
	write_byte(wfd, 2, 8, 'V');
	print_block(2, 0);
	compare(2, 8);

	print_block(3, 1);
	touch(3, 8, 0, 0);
	print_block(3, 0);
	touch(3, 0, 1, 'p');
	print_block(3, 0);

	if (ftruncate(fd, BLK))
		exp_die("ftruncate");
	printf("\nftruncate() to 1 page; then page 0, and page 1\n");
	compare(0, 0);
	if (daxfs_touch(p + BLK, 0, 0, &warm))
		printf("    byte 0: P raises SIGBUS\n");
	else
		printf("    byte 0: P reads %s\n", exp_show_byte(warm));

	munmap(p, PAGES * BLK);
	close(wfd);
	close(fd);
	if (umount(MNT))
		exp_die("umount " MNT);
	return failed;
}
