// SPDX-License-Identifier: GPL-2.0
/*
 * What it shows: a hole is one page-cache page in every mapping until a store removes it from all
 *
 * The program makes a file of two pages: page 0 written with write(),
 * page 1 a hole.  It maps the file twice with MAP_SHARED, A read-only and
 * B read-write, loads page 1 through A and then B, and stores one byte
 * through B.  After each step it prints the pfn each mapping maps
 * (/proc/self/pagemap; 0 when there is no entry), where the file's block
 * is on the device (FIEMAP) and the device's pfn for it, st_blocks,
 * whether the page cache holds page 1 (mincore() on a mapping that never
 * faulted), and the byte that A and read() see.
 *
 * Run it in the lab VM:
 *
 *	make experiment NAME=two-mappings-of-a-hole
 *	make experiment NAME=two-mappings-of-a-hole ARGS='-d /dev/ram0'
 *	make experiment NAME=two-mappings-of-a-hole ARGS='-o none'
 *
 * Options: -t ext2|ext4 (default ext2; ext4 from lab 6), -d DEV (default
 * /dev/pmem0), -o MOUNT-OPTIONS (default dax; none mounts without options,
 * through the page cache).  pmem0 is one range of physical memory, so its
 * device pfns are known (/sys/block/pmem0/device/resource); brd allocates
 * ram0's pages one by one, and there only the pfns of the mappings can be
 * compared with each other.
 *
 * Things to change: map A in a child process instead (fork() after the
 * loads): another process is one more mapping in the same list; store with
 * pwrite() instead of through B; load through a third mapping after the
 * store.  Take B's load out, then the invalidate_inode_pages2_range() call
 * out of your dax_fault(): which mapping keeps the zeros?  (With B's load
 * left in, B's store never completes: read insert_pfn() in mm/memory.c.)
 */
#include "experiment.h"

#define STORE_AT 100	/* the byte of page 1 that B stores to */

static unsigned long long pfn_base;	/* the device's first pfn, 0 if unknown */
static int failed;

/* A load through a mapping; "SIGBUS" if it raised one. */
static const char *load(unsigned char *p)
{
	unsigned char c;

	if (daxfs_touch(p, 0, 0, &c)) {
		failed = 1;
		return "SIGBUS";
	}
	return exp_show_byte(c);
}

static void print_pfns(const char *when, unsigned char *a, unsigned char *b, long page)
{
	printf("  %s: A maps pfn %#llx, B maps pfn %#llx\n", when,
	       pagemap_pfn(a + page * BLK), pagemap_pfn(b + page * BLK));
}

int main(int argc, char **argv)
{
	struct exp_fs where = { "ext2", "/dev/pmem0", "dax" };
	unsigned char data[BLK], c;
	unsigned char *a, *b;
	int fd;

	exp_fs_from_args(argc, argv, &where);
	pfn_base = exp_device_pfn_base(where.dev);
	fd = open(MNT "/f", O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		exp_die("create " MNT "/f");
	pattern(data, sizeof(data), 1, 0);
	if (pwrite_all(fd, data, sizeof(data), 0) || ftruncate(fd, 2 * BLK))
		exp_die("write page 0, make page 1 a hole");
	printf(MNT "/f: 2 pages, page 0 written, page 1 a hole; a DAX file: %s\n\n",
	       is_dax(MNT "/f") == 1 ? "yes" : "no");

	a = daxfs_map(fd, 2 * BLK, PROT_READ, MAP_SHARED);
	b = daxfs_map(fd, 2 * BLK, PROT_READ | PROT_WRITE, MAP_SHARED);
	if (!a || !b)
		exp_die("mmap(MAP_SHARED)");
	daxfs_catch_sigbus();

	printf("page 0: ");
	exp_print_block(fd, 0, pfn_base);
	printf("\n  loads: A reads %s, B reads %s\n", load(a), load(b));
	print_pfns("then", a, b, 0);

	printf("page 1: ");
	exp_print_block(fd, 1, pfn_base);
	printf(", st_blocks %lld, in the page cache: %s\n", st_blocks(fd),
	       exp_in_page_cache(fd, 1, 2));
	printf("  load through A reads %s\n", load(a + BLK));
	print_pfns("then", a, b, 1);
	printf("  load through B reads %s\n", load(b + BLK));
	print_pfns("then", a, b, 1);
	printf("  st_blocks %lld, in the page cache: %s\n\n", st_blocks(fd),
	       exp_in_page_cache(fd, 1, 2));

	printf("store 'x' through B at byte %d of page 1\n", STORE_AT);
	if (daxfs_touch(b + BLK + STORE_AT, 1, 'x', NULL)) {
		printf("  SIGBUS\n");
		failed = 1;
	}
	printf("page 1: ");
	exp_print_block(fd, 1, pfn_base);
	printf(", st_blocks %lld, in the page cache: %s\n", st_blocks(fd),
	       exp_in_page_cache(fd, 1, 2));
	print_pfns("before A loads again", a, b, 1);
	printf("  A reads %s", load(a + BLK + STORE_AT));
	if (pread(fd, &c, 1, BLK + STORE_AT) != 1)
		exp_die("read");
	printf(", read() reads %s\n", exp_show_byte(c));
	print_pfns("then", a, b, 1);

	munmap(a, 2 * BLK);
	munmap(b, 2 * BLK);
	close(fd);
	if (umount(MNT))
		exp_die("umount " MNT);
	return failed;
}
