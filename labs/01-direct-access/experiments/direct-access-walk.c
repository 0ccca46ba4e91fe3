// SPDX-License-Identifier: GPL-2.0
/*
 * What it shows: what one direct_access answer covers on brd, pmem, a partition
 *
 * Nothing in the kernel calls bdev_direct_access() yet, so this program asks
 * it through lab1_probe.ko, the module lab 1's checks use: write "DEVICE
 * SECTOR SIZE" to /sys/kernel/debug/lab1_probe/query and the module calls
 * the helper; read the file to get the answer; .../data reads and writes
 * the memory at kaddr.
 *
 * For each device it prints:
 *  - the answer for each of the first PAGES pages, asking for ASK bytes
 *    (more than any of the devices holds): how many bytes it gave, and the
 *    pfn.  Before that the pages are asked for once, one page each, in
 *    the order of first_use[]: brd_direct_access() allocates a page the
 *    first time its sector is asked for;
 *  - the answer for the last page of the device;
 *  - the second copy: read() a few bytes of page COPY_PAGE (through the
 *    block device's page cache), store other bytes there through kaddr,
 *    then read them with read(), with O_DIRECT, and with read() after
 *    BLKFLSBUF.
 * /dev/pmem0p1 is a partition that the program writes on /dev/pmem0:
 * PART_SECTORS sectors from sector PART_START.
 *
 * Run it in the lab VM (lab 1 done; the probe is built with the checks):
 *	make experiment NAME=direct-access-walk
 *	make experiment NAME=direct-access-walk ARGS='/dev/pmem0p1'
 * The arguments are the devices to look at; by default /dev/ram0,
 * /dev/pmem0 and /dev/pmem0p1.
 *
 * To see more: change the order in first_use[]; set ASK to 4096 or to
 * 3 * 4096 + 100; ask for sector 1, or for the sector just past the end,
 * and compare with the errors that
 * Documentation/filesystems/bdev-direct-access.rst promises; set PART_START
 * to 63 (where old DOS tools started a partition) and look at pmem0p1's
 * answers.
 */
#include <sys/syscall.h>

#include "experiment.h"

#define PROBE "/sys/kernel/debug/lab1_probe"
#define PROBE_KO "/checks/lab1/lab1_probe.ko"
#define PAGES 8
#define ASK (1L << 30)			/* bytes asked for: 1 GiB */
#define COPY_PAGE 100			/* the page of the second-copy test */
#define PART_START 2048LL		/* sectors */
#define PART_SECTORS (64LL << 11)	/* 64 MiB */

static const int first_use[PAGES] = { 0, 5, 2, 7, 4, 1, 6, 3 };

struct answer {
	long ret;
	unsigned long long pfn, phys;
};

static void load_probe(void)
{
	int fd;

	if (!access(PROBE, F_OK))
		return;
	fd = open(PROBE_KO, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "experiment: %s: %s (the probe is built with the checks of lab 1 and later)\n",
			PROBE_KO, strerror(errno));
		exit(1);
	}
	if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST)
		exp_die("loading " PROBE_KO);
	close(fd);
	printf("loaded %s\n", PROBE_KO);
}

/* bdev_direct_access(dev, sector, &kaddr, &pfn, size), through the probe. */
static void ask(const char *dev, long long sector, long size, struct answer *a)
{
	char buf[256];
	int fd, n;

	memset(a, 0, sizeof(*a));
	fd = open(PROBE "/query", O_RDWR);
	if (fd < 0)
		exp_die(PROBE "/query");
	n = snprintf(buf, sizeof(buf), "%s %lld %ld", dev, sector, size);
	if (write(fd, buf, n) != n)
		exp_die(dev);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		exp_die("reading " PROBE "/query");
	buf[n] = '\0';
	close(fd);
	if (sscanf(buf, "ret=%ld pfn=%llx phys=%llx", &a->ret, &a->pfn, &a->phys) < 1) {
		fprintf(stderr, "experiment: the probe said \"%s\"\n", buf);
		exit(1);
	}
}

/* The probe's answer, as "got N  pfn 0x..." or the error. */
static void print_answer(const struct answer *a)
{
	if (a->ret <= 0) {
		printf("%ld (%s)", a->ret, a->ret ? strerror(-a->ret) : "no bytes");
		return;
	}
	printf("got %10ld  pfn %#llx", a->ret, a->pfn);
	if (a->phys >> 12 != a->pfn)	/* the probe walked the page tables */
		printf(" (the page tables say %#llx)", a->phys >> 12);
}

/* /sys/class/block/NAME/WHAT as a number, or -1. */
static long long sys_number(const char *dev, const char *what)
{
	const char *name = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	char path[128], buf[32];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/block/%s/%s", name, what);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* An MBR on /dev/pmem0 with one partition, as lab 1's checks make it. */
static void make_partition(void)
{
	static unsigned char mbr[512];
	unsigned char *e = mbr + 446;
	int fd, i;

	if (!access("/dev/pmem0p1", F_OK) &&
	    sys_number("/dev/pmem0p1", "start") == PART_START)
		return;
	e[4] = 0x83;
	for (i = 0; i < 4; i++) {
		e[8 + i] = (PART_START >> (8 * i)) & 0xff;
		e[12 + i] = (PART_SECTORS >> (8 * i)) & 0xff;
	}
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	fd = open("/dev/pmem0", O_RDWR);
	if (fd < 0)
		exp_die("/dev/pmem0");
	if (pwrite(fd, mbr, 512, 0) != 512 || fsync(fd) || ioctl(fd, BLKRRPART))
		exp_die("writing a partition table on /dev/pmem0");
	close(fd);
	for (i = 0; i < 100 && access("/dev/pmem0p1", F_OK); i++)
		usleep(20000);
	if (access("/dev/pmem0p1", F_OK))
		exp_die("/dev/pmem0p1 after writing a partition table");
	printf("wrote a partition table on /dev/pmem0: pmem0p1 is sectors %lld..%lld\n",
	       PART_START, PART_START + PART_SECTORS - 1);
}

static void walk(const char *dev)
{
	long long sectors = sys_number(dev, "size");
	long long start = sys_number(dev, "start");
	unsigned long long prev = 0;
	struct answer a;
	int p;

	if (sectors < 0)
		exp_die(dev);
	printf("\n%s: %lld sectors (%lld MiB)", dev, sectors, sectors >> 11);
	if (start >= 0)
		printf(", from sector %lld of the whole disk", start);
	printf("\n  first use of pages 0..%d in the order", PAGES - 1);
	for (p = 0; p < PAGES; p++) {
		ask(dev, first_use[p] * 8LL, BLK, &a);
		printf(" %d", first_use[p]);
	}
	printf(", one page each\n  then each asked for %ld bytes:\n", ASK);
	for (p = 0; p < PAGES; p++) {
		ask(dev, p * 8LL, ASK, &a);
		printf("  page %d  sector %3d  ", p, p * 8);
		print_answer(&a);
		if (p && a.ret > 0 && prev)
			printf("  (%+lld from page %d)", (long long)(a.pfn - prev), p - 1);
		printf("\n");
		prev = a.ret > 0 ? a.pfn : 0;
	}
	ask(dev, (sectors / 8 - 1) * 8, ASK, &a);
	printf("  last page, sector %lld  ", (sectors / 8 - 1) * 8);
	print_answer(&a);
	printf("\n");
}

static void print_bytes(const char *how, const unsigned char *p,
			const unsigned char *old, const unsigned char *stored)
{
	printf("  %-30s", how);
	for (int i = 0; i < 8; i++)
		printf(" %02x", p[i]);
	if (!stored)
		printf("\n");
	else
		printf("  %s\n", !memcmp(p, stored, 8) ? "(the bytes stored)" :
		       !memcmp(p, old, 8) ? "(the bytes from before the store)" :
		       "(neither)");
}

/* Store through kaddr; read the bytes back through the page cache and not. */
static void second_copy(const char *dev)
{
	static unsigned char direct[BLK] __attribute__((aligned(4096)));
	long long sector = COPY_PAGE * 8LL;
	unsigned char old[8], stored[8], got[8];
	off_t off = sector * 512;
	struct answer a;
	int fd, dfd, data;

	/*
	 * Keep fd open until the end: the last close of a block device
	 * drops its page cache (blkdev_put() -> kill_bdev()).
	 */
	fd = open(dev, O_RDONLY);
	dfd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || dfd < 0)
		exp_die(dev);
	printf("  page %d (sector %lld), through the page cache and around it:\n",
	       COPY_PAGE, sector);
	if (pread_all(fd, old, sizeof(old), off))
		exp_die("read()");
	print_bytes("read(), before the store:", old, old, NULL);

	ask(dev, sector, BLK, &a);
	if (a.ret <= 0) {
		printf("  no memory to store to: ");
		print_answer(&a);
		printf("\n");
		goto out;
	}
	pattern(stored, sizeof(stored), (unsigned int)sector, off);
	if (!memcmp(stored, old, sizeof(old)))
		pattern(stored, sizeof(stored), (unsigned int)sector + 1, off);
	data = open(PROBE "/data", O_RDWR);
	if (data < 0 || pwrite_all(data, stored, sizeof(stored), 0))
		exp_die("storing through kaddr (" PROBE "/data)");
	close(data);
	print_bytes("stored through kaddr:", stored, old, NULL);

	if (pread_all(fd, got, sizeof(got), off))
		exp_die("read()");
	print_bytes("read():", got, old, stored);
	if (pread_all(dfd, direct, BLK, off))
		exp_die("read() with O_DIRECT");
	print_bytes("read() with O_DIRECT:", direct, old, stored);
	if (ioctl(fd, BLKFLSBUF))
		exp_die("BLKFLSBUF");
	if (pread_all(fd, got, sizeof(got), off))
		exp_die("read()");
	print_bytes("read() after BLKFLSBUF:", got, old, stored);
out:
	close(dfd);
	close(fd);
}

int main(int argc, char **argv)
{
	static char *defaults[] = { "/dev/ram0", "/dev/pmem0", "/dev/pmem0p1" };
	char **devs = argc > 1 ? argv + 1 : defaults;
	int n = argc > 1 ? argc - 1 : 3;

	setvbuf(stdout, NULL, _IOLBF, 0);
	load_probe();
	for (int i = 0; i < n; i++)
		if (!strncmp(devs[i], "/dev/pmem0p", 11)) {
			make_partition();
			break;
		}
	for (int i = 0; i < n; i++) {
		walk(devs[i]);
		second_copy(devs[i]);
	}
	return 0;
}
