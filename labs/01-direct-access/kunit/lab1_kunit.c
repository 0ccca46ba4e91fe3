// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 1, white box: the direct_access operations of brd and pmem, called
 * directly (not through bdev_direct_access(), which shortens requests), and
 * the helper's argument checks; and the helper against a fake driver on a
 * disk of the suite's own (lab1_helper).  Runs on the whole disks /dev/ram0 and
 * /dev/pmem0; the partition is checked from user space (direct_access.c).
 */
#include <kunit/test.h>
#include <linux/badblocks.h>
#include <linux/blkdev.h>
#include <linux/ioport.h>
#include <linux/mm.h>

struct lab1_dev {
	const char *path;
	bool contiguous;	/* pmem: one range; brd: a page at a time */
	const char *hint;	/* where a failure of its driver points */
};

static const struct lab1_dev lab1_devs[] = {
	{ "/dev/ram0", false, "brd_direct_access() in drivers/block/brd.c, TODO 2" },
	{ "/dev/pmem0", true, "pmem_direct_access() in drivers/nvdimm/pmem.c, TODO 3" },
};

/*
 * Every failure message says what was expected, then "(hint: ...)": where
 * to look.  The runner puts it first (vm/labvm/explain.py).
 */
#define DRIVER_HINT(test) \
	(((const struct lab1_dev *)(test)->param_value)->hint)
#define HELPER_HINT "bdev_direct_access() in block/bdev.c, TODO 1"

static void lab1_dev_desc(const struct lab1_dev *d, char *desc)
{
	strscpy(desc, d->path + 5, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(lab1_dev, lab1_devs, lab1_dev_desc);

/* Every case gets its device open in test->priv. */
static int lab1_init(struct kunit *test)
{
	const struct lab1_dev *d = test->param_value;
	struct block_device *bdev;

	bdev = blkdev_get_by_path(d->path, FMODE_READ | FMODE_WRITE, NULL);
	if (IS_ERR(bdev)) {
		kunit_err(test, "cannot open %s: %ld", d->path, PTR_ERR(bdev));
		return PTR_ERR(bdev);
	}
	test->priv = bdev;
	return 0;
}

static void lab1_exit(struct kunit *test)
{
	if (test->priv)
		blkdev_put(test->priv, FMODE_READ | FMODE_WRITE);
}

/* Call the driver's operation itself, as bdev_direct_access() would. */
static long lab1_op(struct kunit *test, sector_t sector, void **kaddr,
		    unsigned long *pfn, long size)
{
	struct block_device *bdev = test->priv;
	const struct block_device_operations *ops = bdev->bd_disk->fops;

	KUNIT_ASSERT_NOT_NULL_MSG(test, ops->direct_access,
				  "a .direct_access in the driver's block_device_operations (hint: %s)",
				  DRIVER_HINT(test));
	return ops->direct_access(bdev, sector, kaddr, pfn, size);
}

#define PAGE_SECTORS (PAGE_SIZE >> SECTOR_SHIFT)

/*
 * Asked for more than it has, a driver gives what is contiguous: one page
 * for brd, everything to the end of the device for pmem; asked for less,
 * exactly what was asked.
 */
static void driver_returns_what_is_available(struct kunit *test)
{
	const struct lab1_dev *d = test->param_value;
	sector_t nr = bdev_nr_sectors(test->priv);
	sector_t last = round_down(nr - 1, PAGE_SECTORS);
	unsigned long pfn;
	void *kaddr;

	KUNIT_EXPECT_EQ_MSG(test, lab1_op(test, 0, &kaddr, &pfn, SZ_1M),
			    d->contiguous ? (long)SZ_1M : (long)PAGE_SIZE,
			    "sector 0, 1 MiB asked: brd gives one page, pmem all of it (hint: %s)",
			    DRIVER_HINT(test));
	KUNIT_EXPECT_EQ_MSG(test, lab1_op(test, last, &kaddr, &pfn, SZ_1M),
			    (long)((nr - last) << SECTOR_SHIFT),
			    "the last page, 1 MiB asked: only what is left of the device (hint: %s)",
			    DRIVER_HINT(test));
	KUNIT_EXPECT_EQ_MSG(test, lab1_op(test, 0, &kaddr, &pfn, 100), 100L,
			    "100 bytes asked: never more than asked (hint: %s)",
			    DRIVER_HINT(test));
	KUNIT_EXPECT_EQ_MSG(test, lab1_op(test, PAGE_SECTORS, &kaddr, &pfn,
					  3 * PAGE_SIZE),
			    d->contiguous ? (long)(3 * PAGE_SIZE) : (long)PAGE_SIZE,
			    "3 pages asked at sector 8: brd gives one, pmem three (hint: %s)",
			    DRIVER_HINT(test));
}

/* The pfn is the physical page of kaddr, and for pmem inside pmem. */
static void pfn_is_the_page_of_kaddr(struct kunit *test)
{
	const struct lab1_dev *d = test->param_value;
	sector_t mid = round_down(bdev_nr_sectors(test->priv) / 2, PAGE_SECTORS);
	unsigned long pfn;
	void *kaddr;
	phys_addr_t phys;

	KUNIT_ASSERT_GT_MSG(test, lab1_op(test, mid, &kaddr, &pfn, PAGE_SIZE), 0L,
			    "a page at the middle sector (hint: %s)", DRIVER_HINT(test));
	phys = slow_virt_to_phys(kaddr);
	KUNIT_EXPECT_EQ_MSG(test, pfn, (unsigned long)PHYS_PFN(phys),
			    "pfn to be the physical address of kaddr >> PAGE_SHIFT (hint: %s)",
			    DRIVER_HINT(test));
	KUNIT_EXPECT_EQ_MSG(test, offset_in_page(kaddr), 0UL,
			    "a page-aligned sector to start a page (hint: %s)",
			    DRIVER_HINT(test));
	if (d->contiguous)
		KUNIT_EXPECT_EQ_MSG(test, region_intersects(phys, PAGE_SIZE,
					IORESOURCE_MEM,
					IORES_DESC_PERSISTENT_MEMORY_LEGACY),
				    REGION_INTERSECTS,
				    "pmem's pfn inside its persistent memory range, /proc/iomem (hint: %s)",
				    DRIVER_HINT(test));
}

/* pmem is one range: sector s is s * 512 bytes after sector 0. */
static void pmem_is_contiguous(struct kunit *test)
{
	const struct lab1_dev *d = test->param_value;
	unsigned long pfn0, pfn;
	void *kaddr0, *kaddr;

	if (!d->contiguous)
		kunit_skip(test, "brd's pages are not contiguous");
	KUNIT_ASSERT_GT_MSG(test, lab1_op(test, 0, &kaddr0, &pfn0, PAGE_SIZE), 0L,
			    "a page at sector 0 (hint: %s)", DRIVER_HINT(test));
	KUNIT_ASSERT_GT_MSG(test, lab1_op(test, 64 * PAGE_SECTORS, &kaddr, &pfn,
					  PAGE_SIZE), 0L,
			    "a page at sector 512 (hint: %s)", DRIVER_HINT(test));
	KUNIT_EXPECT_PTR_EQ_MSG(test, kaddr, kaddr0 + 64 * PAGE_SIZE,
				"page 64's address 64 pages after page 0's (hint: %s)",
				DRIVER_HINT(test));
	KUNIT_EXPECT_EQ_MSG(test, pfn, pfn0 + 64,
			    "page 64's pfn 64 after page 0's (hint: %s)", DRIVER_HINT(test));
}

/* The same sector twice: the same memory (brd must not allocate anew). */
static void same_sector_same_memory(struct kunit *test)
{
	unsigned long pfn1, pfn2;
	void *kaddr1, *kaddr2;

	KUNIT_ASSERT_GT_MSG(test, lab1_op(test, 24, &kaddr1, &pfn1, PAGE_SIZE), 0L,
			    "a page at sector 24 (hint: %s)", DRIVER_HINT(test));
	KUNIT_ASSERT_GT_MSG(test, lab1_op(test, 24, &kaddr2, &pfn2, PAGE_SIZE), 0L,
			    "a page at sector 24, asked again (hint: %s)", DRIVER_HINT(test));
	KUNIT_EXPECT_PTR_EQ_MSG(test, kaddr1, kaddr2,
				"the same address both times (hint: %s)", DRIVER_HINT(test));
	KUNIT_EXPECT_EQ_MSG(test, pfn1, pfn2,
			    "the same pfn both times (hint: %s)", DRIVER_HINT(test));
}

/* bdev_direct_access() refuses what the contract forbids. */
static void helper_refuses_bad_requests(struct kunit *test)
{
	struct block_device *bdev = test->priv;
	sector_t nr = bdev_nr_sectors(bdev);
	unsigned long pfn;
	void *kaddr;

	KUNIT_EXPECT_EQ_MSG(test, bdev_direct_access(bdev, 0, &kaddr, &pfn, 0),
			    (long)-EINVAL, "-EINVAL for size 0 (hint: " HELPER_HINT ")");
	KUNIT_EXPECT_EQ_MSG(test, bdev_direct_access(bdev, 0, &kaddr, &pfn, -4096),
			    (long)-EINVAL, "-EINVAL for a negative size (hint: " HELPER_HINT ")");
	KUNIT_EXPECT_EQ_MSG(test, bdev_direct_access(bdev, 1, &kaddr, &pfn, 4096),
			    (long)-EINVAL,
			    "-EINVAL for sector 1, not page aligned (hint: " HELPER_HINT ")");
	KUNIT_EXPECT_EQ_MSG(test, bdev_direct_access(bdev, nr, &kaddr, &pfn, 4096),
			    (long)-ERANGE,
			    "-ERANGE for the sector just past the end (hint: " HELPER_HINT ")");
	KUNIT_EXPECT_EQ_MSG(test, bdev_direct_access(bdev, nr + PAGE_SECTORS * 10,
						     &kaddr, &pfn, 4096),
			    (long)-ERANGE, "-ERANGE far past the end (hint: " HELPER_HINT ")");
}

/*
 * pmem refuses memory with known bad blocks: a load from poisoned memory is
 * fatal, while the bio path reports an error.  The bad range is marked on
 * the disk's own list for the length of the case, then cleared again.
 */
static void pmem_refuses_bad_blocks(struct kunit *test)
{
	const struct lab1_dev *d = test->param_value;
	struct block_device *bdev = test->priv;
	struct badblocks *bb = bdev->bd_disk->bb;
	const sector_t bad = 1024 * PAGE_SECTORS;	/* 4 MiB in: 512 pages each side */
	unsigned long pfn;
	void *kaddr;
	static const int pages_away[] = { -1, -2, -8, -9, -511, -512, -513, 1, 2, 512 };
	long ret_on, ret_before, ret_after, ret_head, ret_good[ARRAY_SIZE(pages_away)];
	unsigned int i;

	if (!d->contiguous || !bb)
		kunit_skip(test, "only pmem keeps a list of bad blocks");
	ret_before = lab1_op(test, bad - PAGE_SECTORS, &kaddr, &pfn, PAGE_SIZE);
	KUNIT_ASSERT_EQ_MSG(test, 0, badblocks_set(bb, bad, PAGE_SECTORS, 1),
			    "marking a bad block for the test to work (hint: the check itself)");
	ret_on = lab1_op(test, bad, &kaddr, &pfn, PAGE_SIZE);
	ret_after = lab1_op(test, bad - PAGE_SECTORS, &kaddr, &pfn, 2 * PAGE_SIZE);
	/* good pages on both sides of the bad one, near and far from it */
	for (i = 0; i < ARRAY_SIZE(pages_away); i++) {
		sector_t at = bad + pages_away[i] * (long)PAGE_SECTORS;

		ret_good[i] = lab1_op(test, at, &kaddr, &pfn, PAGE_SIZE);
	}
	ret_head = lab1_op(test, bad + 1, &kaddr, &pfn, 512);
	badblocks_clear(bb, bad, PAGE_SECTORS);

	KUNIT_EXPECT_EQ_MSG(test, ret_before, (long)PAGE_SIZE,
			    "a page before the bad one, with no bad blocks yet (hint: %s)",
			    DRIVER_HINT(test));
	KUNIT_EXPECT_EQ_MSG(test, ret_on, (long)-EIO,
			    "-EIO for a page marked bad (hint: %s; badblocks_check())",
			    DRIVER_HINT(test));
	KUNIT_EXPECT_EQ_MSG(test, ret_after, (long)-EIO,
			    "-EIO for two pages, the second marked bad (hint: %s; badblocks_check())",
			    DRIVER_HINT(test));
	KUNIT_EXPECT_EQ_MSG(test, ret_head, (long)-EIO,
			    "-EIO for 512 bytes at the second sector of a bad page (hint: %s; "
			    "badblocks_check())", DRIVER_HINT(test));
	for (i = 0; i < ARRAY_SIZE(pages_away); i++)
		KUNIT_EXPECT_EQ_MSG(test, ret_good[i], (long)PAGE_SIZE,
				    "a good page %d page(s) %s the bad one to be given, whole "
				    "(hint: %s; badblocks_check() takes a count of sectors, "
				    "not of bytes)", abs(pages_away[i]),
				    pages_away[i] < 0 ? "before" : "after", DRIVER_HINT(test));
}

static struct kunit_case lab1_cases[] = {
	KUNIT_CASE_PARAM(driver_returns_what_is_available, lab1_dev_gen_params),
	KUNIT_CASE_PARAM(pfn_is_the_page_of_kaddr, lab1_dev_gen_params),
	KUNIT_CASE_PARAM(pmem_is_contiguous, lab1_dev_gen_params),
	KUNIT_CASE_PARAM(same_sector_same_memory, lab1_dev_gen_params),
	KUNIT_CASE_PARAM(helper_refuses_bad_requests, lab1_dev_gen_params),
	KUNIT_CASE_PARAM(pmem_refuses_bad_blocks, lab1_dev_gen_params),
	{}
};

static struct kunit_suite lab1_suite = {
	.name = "lab1_drivers",
	.init = lab1_init,
	.exit = lab1_exit,
	.test_cases = lab1_cases,
};

/*
 * The helper against a driver of the test's own: a disk that is never
 * added, whose direct_access gives what the case sets, and whose size the
 * case chooses.  The real disks are never touched.
 */
static long lab1_fake_answer;	/* bytes the fake driver gives, < 0: error */

static long lab1_fake_direct_access(struct block_device *bdev, sector_t sector,
				    void **kaddr, unsigned long *pfn, long size)
{
	static u8 page[PAGE_SIZE] __aligned(PAGE_SIZE);

	*kaddr = page;
	*pfn = 0;
	return min(lab1_fake_answer, size);
}

static const struct block_device_operations lab1_fake_fops = {
	.owner = THIS_MODULE,
	.direct_access = lab1_fake_direct_access,
};

/* A fake disk of 4 pages and 3 sectors: its last page is partial. */
#define LAB1_FAKE_SECTORS (4 * PAGE_SECTORS + 3)

static int lab1_helper_init(struct kunit *test)
{
	struct gendisk *disk = blk_alloc_disk(NUMA_NO_NODE);

	if (!disk)
		return -ENOMEM;
	disk->fops = &lab1_fake_fops;
	set_capacity(disk, LAB1_FAKE_SECTORS);
	lab1_fake_answer = LONG_MAX;
	test->priv = disk;
	return 0;
}

static void lab1_helper_exit(struct kunit *test)
{
	put_disk(test->priv);
}

static long lab1_fake_call(struct kunit *test, sector_t sector, long size, long answer)
{
	struct gendisk *disk = test->priv;
	unsigned long pfn;
	void *kaddr;

	lab1_fake_answer = answer;
	return bdev_direct_access(disk->part0, sector, &kaddr, &pfn, size);
}

/*
 * Callers walk the device by the count they get back: an answer below
 * min(size, PAGE_SIZE) would have them ask for the same sector for ever.
 */
static void refuses_a_driver_that_gives_too_little(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, lab1_fake_call(test, 0, PAGE_SIZE, 0), (long)-EIO,
			    "-EIO when the driver gives 0 bytes of a page (hint: " HELPER_HINT
			    "; 0 would leave dax_clear_blocks() asking for the same sector "
			    "for ever)");
	KUNIT_EXPECT_EQ_MSG(test, lab1_fake_call(test, 0, PAGE_SIZE, 512), (long)-EIO,
			    "-EIO when the driver gives 512 bytes of a page (hint: " HELPER_HINT
			    "; the least a driver may give is min(size, PAGE_SIZE))");
	KUNIT_EXPECT_EQ_MSG(test, lab1_fake_call(test, 0, 2 * PAGE_SIZE, -ENOMEM),
			    (long)-ENOMEM,
			    "the driver's own error, unchanged (hint: " HELPER_HINT ")");
}

static void passes_on_what_the_contract_allows(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, lab1_fake_call(test, 0, 512, LONG_MAX), 512L,
			    "512 bytes for a request of 512 (hint: " HELPER_HINT
			    "; below a page, min(size, PAGE_SIZE) is the size)");
	KUNIT_EXPECT_EQ_MSG(test, lab1_fake_call(test, 0, 2 * PAGE_SIZE, PAGE_SIZE),
			    (long)PAGE_SIZE,
			    "a page for a request of two pages, when the driver has one "
			    "(hint: " HELPER_HINT ")");
}

static void refuses_a_partial_last_page(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, lab1_fake_call(test, 4 * PAGE_SECTORS, PAGE_SIZE, LONG_MAX),
			    (long)-ERANGE,
			    "-ERANGE for the last page of a disk of 4 pages and 3 sectors: "
			    "only 3 sectors of it are the device's (hint: " HELPER_HINT ")");
	KUNIT_EXPECT_EQ_MSG(test, lab1_fake_call(test, 3 * PAGE_SECTORS, PAGE_SIZE, LONG_MAX),
			    (long)PAGE_SIZE,
			    "a page for the last whole page (hint: " HELPER_HINT ")");
}

static struct kunit_case lab1_helper_cases[] = {
	KUNIT_CASE(refuses_a_driver_that_gives_too_little),
	KUNIT_CASE(passes_on_what_the_contract_allows),
	KUNIT_CASE(refuses_a_partial_last_page),
	{}
};

static struct kunit_suite lab1_helper_suite = {
	.name = "lab1_helper",
	.init = lab1_helper_init,
	.exit = lab1_helper_exit,
	.test_cases = lab1_helper_cases,
};
kunit_test_suites(&lab1_suite, &lab1_helper_suite);

MODULE_DESCRIPTION("DAX lab 1: the direct_access operations of brd and pmem");
MODULE_LICENSE("GPL");
