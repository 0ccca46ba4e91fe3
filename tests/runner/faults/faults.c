// SPDX-License-Identifier: GPL-2.0
/*
 * A guest check program whose tests pass, fail, or make the kernel fail
 * (through labvm_faults.ko), for recording the runner's test logs.
 * Run with LABCHECK_FILTER=<test name> to pick one.
 */
#include "labcheck.h"

static void trigger(struct __test_metadata *_metadata, const char *kind)
{
	int fd;

	if (access("/sys/kernel/debug/labvm_faults", F_OK)) {
		char *argv[] = { "insmod", "/checks/faults/labvm_faults.ko", NULL };

		ASSERT_EQ(0, labcheck_spawn(argv));
	}
	fd = open("/sys/kernel/debug/labvm_faults/trigger", O_WRONLY);
	ASSERT_LE(0, fd);
	if (write(fd, kind, strlen(kind)) < 0)
		TH_LOG("write: %s", strerror(errno));
	close(fd);
}

TEST(passes) { ASSERT_EQ(4, 2 + 2); }

TEST(fails)
{
	CHECK_THAT(2 + 2 == 5, EXPECTED("%d", 5), SEEN("%d", 2 + 2),
		   HINT("arithmetic is hard"));
}

TEST(warns) { trigger(_metadata, "warn"); }
TEST(oopses) { trigger(_metadata, "oops"); }
TEST(panics) { trigger(_metadata, "panic"); }
TEST(lockdep) { trigger(_metadata, "lockdep"); }
TEST(sleeps) { trigger(_metadata, "sleep"); }
TEST(spins) { trigger(_metadata, "spin"); }
TEST(after) { ASSERT_EQ(0, 0); }

LABCHECK_MAIN
