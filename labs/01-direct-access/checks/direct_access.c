// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 1, black box: bdev_direct_access() on /dev/ram0, /dev/pmem0 and a
 * partition of pmem0, seen from user space through lab1_probe.ko (which
 * calls the helper and lets us read and write the memory it returns).
 *
 * What is checked: the bytes returned, that the pfn is the memory's
 * physical page (and for pmem where it must be), that bytes written at the
 * address are the device's bytes and the other way round (the partition's
 * offset honoured), that asking twice gives the same memory, and the
 * documented errors, including a device without the operation, and that
 * unbinding pmem's namespace waits while the probe holds pmem0 open.
 */
#include <linux/fs.h>
#include <sys/ioctl.h>

#include "labcheck.h"

#define PROBE "/sys/kernel/debug/lab1_probe"
#define PAGE 4096L
#define PART_START LABCHECK_PART_START

struct da {
	long ret;
	unsigned long long pfn, phys, kaddr;
};

/* Ask the probe: bdev_direct_access(dev, sector, size). */
static int da_query(const char *dev, long long sector, long size, struct da *r)
{
	char buf[256];
	int fd, n;

	memset(r, 0, sizeof(*r));
	fd = open(PROBE "/query", O_RDWR);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%s %lld %ld", dev, sector, size);
	if (write(fd, buf, n) != n) {
		n = -errno;
		close(fd);
		return n;
	}
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	sscanf(buf, "ret=%ld pfn=%llx phys=%llx kaddr=%llx",
	       &r->ret, &r->pfn, &r->phys, &r->kaddr);
	return 0;
}

static int probe_data(void *buf, size_t len, int write_it)
{
	int fd = open(PROBE "/data", O_RDWR);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write_it ? pwrite(fd, buf, len, 0) : pread(fd, buf, len, 0);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* O_DIRECT I/O on the block device: what is on the device, no cache. */
static int dev_io(const char *dev, long long sector, void *buf, size_t len,
		  int write_it)
{
	int fd = open(dev, O_RDWR | O_DIRECT);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write_it ? pwrite(fd, buf, len, sector * 512) :
		       pread(fd, buf, len, sector * 512);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

static void load_probe(struct __test_metadata *_metadata)
{
	char *argv[] = { "insmod", "/checks/lab1/lab1_probe.ko", NULL };

	if (access(PROBE, F_OK))
		ASSERT_EQ(0, labcheck_spawn(argv))
			TH_LOG("could not load lab1_probe.ko (its error is above)");
}

FIXTURE(dev) {
	char path[32];
	long long sectors;
	unsigned long long pmem_start, pmem_end;
};

FIXTURE_VARIANT(dev) {
	const char *name;
	int pmem;		/* 0: brd, 1: pmem0, 2: pmem0p1 */
};

FIXTURE_VARIANT_ADD(dev, ram0) { .name = "ram0", .pmem = 0 };
FIXTURE_VARIANT_ADD(dev, pmem0) { .name = "pmem0", .pmem = 1 };
FIXTURE_VARIANT_ADD(dev, pmem0p1) { .name = "pmem0p1", .pmem = 2 };

FIXTURE_SETUP(dev)
{
	char sys[96], buf[32];

	load_probe(_metadata);
	if (variant->pmem == 2)
		ASSERT_EQ(0, labcheck_pmem_partition());
	snprintf(self->path, sizeof(self->path), "/dev/%s", variant->name);
	snprintf(sys, sizeof(sys), "/sys/class/block/%s/size", variant->name);
	ASSERT_LT(0, labcheck_read_file(sys, buf, sizeof(buf)));
	self->sectors = atoll(buf);
	if (variant->pmem)
		ASSERT_EQ(0, labcheck_pmem_range(&self->pmem_start, &self->pmem_end))
			TH_LOG("no Persistent Memory range in /proc/iomem");
}

FIXTURE_TEARDOWN(dev)
{
}

/* Where the bytes of a sector of this device are, physically (pmem). */
static unsigned long long pmem_phys(FIXTURE_DATA(dev) *self, int pmem,
				    long long sector)
{
	return self->pmem_start + (sector + (pmem == 2 ? PART_START : 0)) * 512;
}

TEST_F(dev, returns_what_is_available_never_more_than_asked)
{
	long long last = (self->sectors - 1) / 8 * 8;
	long long sectors[] = { 0, self->sectors / 2 / 8 * 8, last };
	long sizes[] = { 512, PAGE, 3 * PAGE + 100, 1L << 20 };
	struct da r;

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++) {
			long long left = (self->sectors - sectors[i]) * 512;
			long want = sizes[j] < left ? sizes[j] : left;

			if (!variant->pmem && want > PAGE)
				want = PAGE;
			ASSERT_EQ(0, da_query(self->path, sectors[i], sizes[j], &r));
			REQUIRE_THAT(r.ret == want,
				   EXPECTED("%ld bytes at sector %lld of %s, %ld asked",
					    want, sectors[i], self->path, sizes[j]),
				   SEEN("%ld", r.ret),
				   HINT("%s", variant->pmem ?
					"pmem has everything up to the end of the device "
					"(of the partition: bdev_direct_access() shortens the request)" :
					"brd has one page; never return more than asked"));
		}
}

TEST_F(dev, pfn_is_the_physical_page_of_the_address)
{
	long long sector = self->sectors / 2 / 8 * 8;
	struct da r;

	ASSERT_EQ(0, da_query(self->path, sector, PAGE, &r));
	REQUIRE_THAT(r.ret > 0, EXPECTED("a page at sector %lld", sector),
		     SEEN("ret=%ld", r.ret), HINT("see returns_what_is_available_never_more_than_asked first"));
	CHECK_THAT(r.pfn << 12 == r.phys,
		   EXPECTED("pfn %#llx (the page of kaddr)", r.phys >> 12),
		   SEEN("pfn %#llx", r.pfn),
		   HINT("brd: page_to_pfn(); pmem: PHYS_PFN(phys_addr + offset)"));
	if (variant->pmem)
		CHECK_THAT(r.phys == pmem_phys(self, variant->pmem, sector),
			   EXPECTED("physical address %#llx (pmem at %#llx, sector %lld%s)",
				    pmem_phys(self, variant->pmem, sector),
				    self->pmem_start, sector,
				    variant->pmem == 2 ? " of a partition at sector 2048" : ""),
			   SEEN("%#llx", r.phys),
			   HINT("is the partition's start added (get_start_sect())? "
				"is pmem's data_offset?"));
}

TEST_F(dev, bytes_written_at_the_address_are_on_the_device)
{
	static unsigned char mine[PAGE], back[PAGE] __attribute__((aligned(4096)));
	long long sector = 8 * 40;
	struct da r;

	fill(mine, sizeof(mine), variant->pmem + 1);
	ASSERT_EQ(0, da_query(self->path, sector, PAGE, &r));
	REQUIRE_THAT(r.ret == PAGE, EXPECTED("a page at sector %lld", sector),
		     SEEN("ret=%ld", r.ret), HINT("see returns_what_is_available_never_more_than_asked first"));
	ASSERT_EQ(0, probe_data(mine, sizeof(mine), 1));
	ASSERT_EQ(0, dev_io(self->path, sector, back, sizeof(back), 0));
	CHECK_THAT(!memcmp(mine, back, sizeof(back)),
		   EXPECTED("bytes stored at kaddr read back from %s at byte %lld",
			    self->path, sector * 512),
		   SEEN("other bytes (first: %#x, wanted %#x)", back[0], mine[0]),
		   HINT("kaddr must be the memory the driver reads and writes for this sector"));
}

TEST_F(dev, bytes_written_to_the_device_are_at_the_address)
{
	static unsigned char mine[PAGE] __attribute__((aligned(4096)));
	static unsigned char back[PAGE];
	long long sector = 8 * 41;
	struct da r;

	fill(mine, sizeof(mine), variant->pmem + 7);
	ASSERT_EQ(0, dev_io(self->path, sector, mine, sizeof(mine), 1));
	ASSERT_EQ(0, da_query(self->path, sector, PAGE, &r));
	REQUIRE_THAT(r.ret == PAGE, EXPECTED("a page at sector %lld", sector),
		     SEEN("ret=%ld", r.ret), HINT("see returns_what_is_available_never_more_than_asked first"));
	ASSERT_EQ(0, probe_data(back, sizeof(back), 0));
	CHECK_THAT(!memcmp(mine, back, sizeof(back)),
		   EXPECTED("bytes written to %s at byte %lld seen at kaddr",
			    self->path, sector * 512),
		   SEEN("other bytes (first: %#x, wanted %#x)", back[0], mine[0]),
		   HINT("off by the partition's start? by a page?"));
}

TEST_F(dev, the_same_sector_twice_is_the_same_memory)
{
	struct da a, b;

	ASSERT_EQ(0, da_query(self->path, 8 * 50, PAGE, &a));
	ASSERT_EQ(0, da_query(self->path, 8 * 50, PAGE, &b));
	REQUIRE_THAT(a.ret > 0, EXPECTED("a page"), SEEN("ret=%ld", a.ret),
		     HINT("see returns_what_is_available_never_more_than_asked first"));
	CHECK_THAT(a.kaddr == b.kaddr && a.pfn == b.pfn,
		   EXPECTED("kaddr %#llx pfn %#llx again", a.kaddr, a.pfn),
		   SEEN("kaddr %#llx pfn %#llx", b.kaddr, b.pfn),
		   HINT("brd: allocate a page only when the sector has none"));
}

TEST_F(dev, bad_requests_get_the_documented_errors)
{
	struct {
		long long sector;
		long size;
		long err;
		const char *what;
	} bad[] = {
		{ 0, 0, -EINVAL, "size 0" },
		{ 0, -1, -EINVAL, "size -1" },
		{ 1, PAGE, -EINVAL, "sector 1 (not page aligned)" },
		{ self->sectors, PAGE, -ERANGE, "the first sector past the end" },
		{ self->sectors + 800, PAGE, -ERANGE, "far past the end" },
	};
	struct da r;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(0, da_query(self->path, bad[i].sector, bad[i].size, &r));
		CHECK_THAT(r.ret == bad[i].err,
			   EXPECTED("%ld for %s", bad[i].err, bad[i].what),
			   SEEN("%ld", r.ret),
			   HINT("see the Return: section of bdev_direct_access()"));
	}
}

/*
 * A partition that starts off a page boundary of its disk has no page of
 * memory that starts at its sector 0: the helper refuses it.
 */
TEST(a_partition_off_a_page_boundary_is_refused)
{
	struct da r;
	int i;

	load_probe(_metadata);
	ASSERT_EQ(0, labcheck_pmem_partition());
	for (i = 0; i < 100 && access("/dev/pmem0p2", F_OK); i++)
		usleep(20000);
	ASSERT_EQ(0, da_query("/dev/pmem0p2", 0, PAGE, &r));
	CHECK_THAT(r.ret == -EINVAL,
		   EXPECTED("%d (EINVAL) for sector 0 of /dev/pmem0p2, a partition "
			    "that starts at disk sector %lld", -EINVAL, LABCHECK_PART2_START),
		   SEEN("%ld", r.ret),
		   HINT("bdev_direct_access() in block/bdev.c (TODO 1): the partition's "
			"start (get_start_sect()) must be page aligned too"));
}

/* A loop device has no direct_access: the helper says so. */
TEST(a_device_without_the_operation_is_unsupported)
{
	char dev[32];
	struct da r;
	int loop;

	load_probe(_metadata);
	loop = labcheck_loop_attach("/tmp/lab1-loop", 1 << 20, dev, sizeof(dev));
	ASSERT_LE(0, loop) TH_LOG("could not set up a loop device (the error is above)");
	ASSERT_EQ(0, da_query(dev, 0, PAGE, &r));
	labcheck_loop_detach(loop);
	CHECK_THAT(r.ret == -EOPNOTSUPP,
		   EXPECTED("%d (EOPNOTSUPP) for %s", -EOPNOTSUPP, dev),
		   SEEN("%ld", r.ret),
		   HINT("bdev_direct_access() must check that the driver has the operation"));
}

/*
 * Unbinding pmem's namespace deletes the disk at once, but memory that
 * bdev_direct_access() gave out must stay until the last opener closes
 * the disk: here lab1_probe holds /dev/pmem0 open with such an address.
 * The probe then lets go, the unbind finishes, and the namespace bound
 * again has the bytes written through the address.  Last in the file: if
 * the unbind never finishes, pmem0 is gone for good.
 */
FIXTURE(unbind) {};
FIXTURE_SETUP(unbind) {}
FIXTURE_TEARDOWN(unbind) {}

TEST_F(unbind, pmem_waits_for_the_last_close)
{
	static unsigned char want[PAGE], got[PAGE] __attribute__((aligned(4096)));
	const long long sector = 1024;	/* between the MBR and pmem0p1 */
	int status, readable, let_go;
	char ns[64], what[128];
	struct da r;
	pid_t pid;

	load_probe(_metadata);
	ASSERT_EQ(0, labcheck_pmem_namespace(ns, sizeof(ns)))
		TH_LOG("/sys/class/block/pmem0/device: no nvdimm namespace behind pmem0");
	ASSERT_EQ(0, da_query("/dev/pmem0", sector, PAGE, &r));
	REQUIRE_THAT(r.ret >= PAGE, EXPECTED("a page at sector %lld of /dev/pmem0", sector),
		     SEEN("%ld", r.ret), HINT("see the checks of /dev/pmem0 above first"));
	fill(want, PAGE, 71);
	ASSERT_EQ(0, probe_data(want, PAGE, 1));

	pid = labcheck_pmem_unbind(ns, &status, what, sizeof(what));
	ASSERT_LT(0, pid) TH_LOG("fork: %s", strerror(errno));
	CHECK_THAT(status == -1,
		   EXPECTED("the unbind of %s to delete the disk, then wait in "
			    "pmem_release_disk() while lab1_probe holds /dev/pmem0 open "
			    "with an address from bdev_direct_access()", ns),
		   SEEN("%s", what),
		   HINT("pmem_release_disk() in drivers/nvdimm/pmem.c: after del_gendisk(), "
			"wait until disk_openers() is 0 (pmem_release() wakes it up)"));
	/*
	 * On a kernel that freed the memory this reads through a stale
	 * address: the copy may fail or see old bytes, not oops.  The status
	 * above, and KASAN (make check-lab 1 KASAN=1), are what see it.
	 */
	readable = !probe_data(got, PAGE, 0) && !memcmp(got, want, PAGE);
	CHECK_THAT(readable,
		   EXPECTED("the probe's address to still hold the bytes written through it"),
		   SEEN("other bytes, or a failed copy"),
		   HINT("pmem_release_disk() in drivers/nvdimm/pmem.c"));

	let_go = da_query("/dev/ram0", 0, PAGE, &r);	/* the probe closes pmem0 */
	if (status < 0)
		status = labcheck_wait_child(pid, 10000);
	REQUIRE_THAT(status >= 0,
		     EXPECTED("the unbind to finish within 10 s of the last close"),
		     SEEN("it still waits%s: pmem0 is gone for the rest of this boot",
			  let_go ? " (and the probe did not let go of pmem0)" : ""),
		     HINT("pmem_release() must wake pmem_release_disk() up "
			  "(wake_up_var() on the disk it waits on)"));
	CHECK_THAT(status == 0, EXPECTED("the unbind to succeed"),
		   SEEN("exit status %d", status), HINT("the console log says why"));
	REQUIRE_THAT(labcheck_pmem_rebind(ns) == 0, EXPECTED("%s to bind to nd_pmem again", ns),
		     SEEN("it did not (the reason is above)"),
		     HINT("the checks after this one need /dev/pmem0"));
	ASSERT_EQ(0, dev_io("/dev/pmem0", sector, got, PAGE, 0));
	CHECK_THAT(!memcmp(got, want, PAGE),
		   EXPECTED("sector %lld of the rebound /dev/pmem0 to hold the bytes "
			    "written before the unbind", sector),
		   SEEN("other bytes"), HINT("pmem_direct_access() in drivers/nvdimm/pmem.c"));
}

LABCHECK_MAIN
