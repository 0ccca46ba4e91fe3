// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 0: the lab machine itself.
 *
 * These checks prove the starting point every later lab builds on: the VM
 * runs the kernel that was just built, its memory-backed block devices are
 * there with the configured sizes, ext2 and ext4 work on them, and neither
 * filesystem gives DAX yet.  They also prove the guest-check path itself:
 * this is a kselftest-harness program, built statically on the host.
 */
#include "labcheck.h"

#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX 0x00200000
#endif

#define MNT "/mnt/lab0"

/* The running kernel's banner equals the one in build/obj/vmlinux. */
TEST(kernel_is_the_one_just_built)
{
	char running[512], built[512];

	ASSERT_LE(0, labcheck_read_file("/proc/version", running,
					sizeof(running)));
	ASSERT_LE(0, labcheck_read_file("/run/labvm/expected-banner", built,
					sizeof(built)));
	CHECK_THAT(!strcmp(running, built),
		   EXPECTED("%s", built), SEEN("%s", running),
		   HINT("the VM did not boot build/obj/arch/x86/boot/bzImage; "
			"run the same make command again: it rebuilds and reboots"));
}

static void check_size(struct __test_metadata *_metadata, const char *dev,
		       const char *var, const char *where)
{
	long long want = labcheck_conf_ll(var);
	long long got = labcheck_blockdev_bytes(dev);
	char seen[64];

	ASSERT_LT(0, want) TH_LOG("%s is not set by /init", var);
	if (got < 0)
		snprintf(seen, sizeof(seen), "no /dev/%s at all", dev);
	else
		snprintf(seen, sizeof(seen), "%lld bytes", got);
	CHECK_THAT(got == want,
		   EXPECTED("/dev/%s of %lld bytes", dev, want),
		   SEEN("%s", seen), HINT("%s", where));
}

TEST(pmem0_exists_with_the_configured_size)
{
	check_size(_metadata, "pmem0", "LABVM_PMEM_BYTES",
		   "the runner reserves it with memmap=SIZE!START on the kernel "
		   "command line (vm/labvm/machine.py); CONFIG_X86_PMEM_LEGACY and "
		   "CONFIG_BLK_DEV_PMEM must be =y");
}

TEST(ram0_exists_with_the_configured_size)
{
	check_size(_metadata, "ram0", "LABVM_RAM_BYTES",
		   "brd gets its size from brd.rd_size= on the kernel command "
		   "line (vm/labvm/machine.py); CONFIG_BLK_DEV_RAM must be =y");
}

/* ext2 and ext4 on both devices: make, mount, write, remount, read, fsck. */
FIXTURE(fs) {
	char dev[32];
};

FIXTURE_VARIANT(fs) {
	const char *dev;
	const char *fstype;
};

FIXTURE_VARIANT_ADD(fs, ext2_on_pmem0) { .dev = "pmem0", .fstype = "ext2" };
FIXTURE_VARIANT_ADD(fs, ext4_on_pmem0) { .dev = "pmem0", .fstype = "ext4" };
FIXTURE_VARIANT_ADD(fs, ext2_on_ram0) { .dev = "ram0", .fstype = "ext2" };
FIXTURE_VARIANT_ADD(fs, ext4_on_ram0) { .dev = "ram0", .fstype = "ext4" };

FIXTURE_SETUP(fs)
{
	snprintf(self->dev, sizeof(self->dev), "/dev/%s", variant->dev);
	mkdir(MNT, 0755);
	umount(MNT);
	ASSERT_EQ(0, labcheck_mkfs(variant->fstype, self->dev, "4096"))
		TH_LOG("mke2fs -t %s %s failed (its output is above)",
		       variant->fstype, self->dev);
}

FIXTURE_TEARDOWN(fs)
{
	umount(MNT);
}

TEST_F(fs, can_be_made_mounted_and_checked)
{
	static const char msg[] = "the lab machine works\n";
	char back[64] = "";
	int fd, r;

	r = mount(self->dev, MNT, variant->fstype, 0, NULL);
	REQUIRE_THAT(r == 0,
		     EXPECTED("mount -t %s %s to succeed", variant->fstype,
			      self->dev),
		     SEEN("%s", strerror(errno)),
		     HINT("is CONFIG_EXT2_FS / CONFIG_EXT4_FS =y in vm/lab.config?"));
	fd = open(MNT "/hello", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(msg), write(fd, msg, strlen(msg)));
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, umount(MNT));

	ASSERT_EQ(0, mount(self->dev, MNT, variant->fstype, MS_RDONLY, NULL));
	ASSERT_LE(0, labcheck_read_file(MNT "/hello", back, sizeof(back)));
	CHECK_THAT(!strcmp(back, msg),
		   EXPECTED("\"%.*s\"", (int)strlen(msg) - 1, msg),
		   SEEN("\"%s\"", back),
		   HINT("data written before unmount must read back after mount"));
	ASSERT_EQ(0, umount(MNT));

	r = labcheck_fsck(self->dev);
	CHECK_THAT(r == 0, EXPECTED("e2fsck -fn to exit with 0"),
		   SEEN("exit status %d", r),
		   HINT("the filesystem is damaged; e2fsck's report is above"));
}

/*
 * The baseline has no filesystem DAX (CONFIG_FS_DAX is off): ext4 refuses
 * -o dax, ext2 ignores it with a message.  Labs 2 and 6 change both.
 */
FIXTURE(nodax) {
	int kmsg;
};

FIXTURE_SETUP(nodax)
{
	mkdir(MNT, 0755);
	umount(MNT);
	self->kmsg = -1;
}

FIXTURE_TEARDOWN(nodax)
{
	umount(MNT);
	if (self->kmsg >= 0)
		close(self->kmsg);
}

TEST_F(nodax, ext4_refuses_the_dax_option)
{
	int r, err;

	if (labcheck_kernel_has("ext4_dax_get_block"))
		SKIP(return, "this kernel has ext4 dax of lab 6: lab 6 checks ext4 -o dax");
	ASSERT_EQ(0, labcheck_mkfs("ext4", "/dev/pmem0", "4096"));
	self->kmsg = labcheck_kmsg_open();
	r = mount("/dev/pmem0", MNT, "ext4", 0, "dax");
	err = errno;
	REQUIRE_THAT(r == -1 && err == EINVAL,
		     EXPECTED("mount -o dax to fail with EINVAL"),
		     SEEN("%s", r == 0 ? "it mounted" : strerror(err)),
		     HINT("on the baseline ext4 has no DAX: CONFIG_FS_DAX must be off"));
	CHECK_THAT(labcheck_kmsg_grep(self->kmsg, "dax option not supported"),
		   EXPECTED("the kernel log to say \"dax option not supported\""),
		   SEEN("no such message"),
		   HINT("see the Opt_dax case in fs/ext4/super.c"));
}

TEST_F(nodax, ext2_mounts_without_dax_and_says_so)
{
	struct statx stx;
	const char *opts;
	int fd;

	if (labcheck_kernel_has("dax_do_io"))
		SKIP(return, "this kernel has the DAX core of lab 2: lab 2 checks ext2 -o dax");
	ASSERT_EQ(0, labcheck_mkfs("ext2", "/dev/pmem0", "4096"));
	self->kmsg = labcheck_kmsg_open();
	REQUIRE_THAT(mount("/dev/pmem0", MNT, "ext2", 0, "dax") == 0,
		     EXPECTED("mount -o dax to succeed (without DAX)"),
		     SEEN("%s", strerror(errno)),
		     HINT("see the Opt_dax case in fs/ext2/super.c"));
	CHECK_THAT(labcheck_kmsg_grep(self->kmsg, "dax option not supported"),
		   EXPECTED("the kernel log to say \"dax option not supported\""),
		   SEEN("no such message"),
		   HINT("see the Opt_dax case in fs/ext2/super.c"));
	opts = labcheck_mount_opts(MNT);
	CHECK_THAT(!labcheck_has_opt(opts, "dax"),
		   EXPECTED("no \"dax\" among the options in /proc/mounts"),
		   SEEN("%s", opts),
		   HINT("ext2_show_options() prints dax only for a DAX mount"));

	fd = open(MNT "/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, statx(AT_FDCWD, MNT "/f", 0, STATX_BASIC_STATS, &stx));
	CHECK_THAT(stx.stx_attributes_mask & STATX_ATTR_DAX,
		   EXPECTED("statx to say whether a file is DAX (mask bit %#x)",
			    STATX_ATTR_DAX),
		   SEEN("attributes_mask %#llx",
			(unsigned long long)stx.stx_attributes_mask),
		   HINT("vfs_getattr_nosec() in fs/stat.c sets the mask bit"));
	CHECK_THAT(!(stx.stx_attributes & STATX_ATTR_DAX),
		   EXPECTED("a file without STATX_ATTR_DAX"),
		   SEEN("attributes %#llx", (unsigned long long)stx.stx_attributes),
		   HINT("IS_DAX() must be false on the baseline"));
}

LABCHECK_MAIN
