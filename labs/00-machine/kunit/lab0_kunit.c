// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 0: prove the KUnit path of the lab machine.
 *
 * The host builds this file as a module against the lab kernel, the
 * initramfs carries it, the guest loads it and reads its results from
 * debugfs, and the host reports each case.  The cases are deliberately
 * simple; what they prove is that an in-kernel check runs and is reported.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

/* KUnit's own assertions work, and a failed one would be reported. */
static void kunit_assertions_run(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 4, 2 + 2);
	KUNIT_EXPECT_STREQ(test, "dax", "dax");
}

/* The case runs in the kernel: it can use kernel APIs and memory. */
static void kunit_runs_inside_the_kernel(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	int val;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	strscpy(buf, "4096", PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, 0, kstrtoint(buf, 10, &val));
	KUNIT_EXPECT_EQ(test, val, (int)PAGE_SIZE);
}

static struct kunit_case lab0_kunit_path_cases[] = {
	KUNIT_CASE(kunit_assertions_run),
	KUNIT_CASE(kunit_runs_inside_the_kernel),
	{}
};

static struct kunit_suite lab0_kunit_path_suite = {
	.name = "lab0_kunit_path",
	.test_cases = lab0_kunit_path_cases,
};
kunit_test_suite(lab0_kunit_path_suite);

MODULE_DESCRIPTION("DAX lab 0: the KUnit path of the lab machine works");
MODULE_LICENSE("GPL");
