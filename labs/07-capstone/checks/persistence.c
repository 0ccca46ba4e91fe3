// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 7, black box: data on a dax mount survive a power-off.
 * labcheck: power-cycle
 *
 * The line above makes the host run this program across two boots of the
 * VM with the same file-backed emulated NVDIMM (/dev/pmem-nvdimm), not in
 * the boot of the other checks (vm/labvm/run.py, power_cycle()):
 *
 *  1. DAXLAB_PERSIST=write:SEED: mkfs.ext4, mount -o dax,commit=300, then
 *     write four files: one with write() + fsync(), one with stores
 *     through a shared mapping + msync(), one with stores through a
 *     MAP_SYNC mapping and no sync at all (half of it first written by
 *     write() and never synced), and one with write() and no sync.  Then
 *     power off at once: reboot(RB_POWER_OFF), no sync, no unmount.
 *     commit=300 keeps the journal from committing on its own meanwhile.
 *  2. DAXLAB_PERSIST=verify:SEED, in a new QEMU: mount (ext4 replays its
 *     journal), compare the first three files byte for byte, insist that
 *     the fourth is gone (the control: were it there, this check could not
 *     tell synced data from unsynced), unmount and e2fsck -fn.
 *
 * A VM cannot show what real persistent memory adds: stores sit in the CPU
 * cache until written back, and QEMU's NVDIMM is a file, coherent with the
 * guest's stores.  What it does show is the part that is the filesystem's:
 * the metadata that locates the data.
 */
#define DAXFS_DEFAULT "ext4"

#include <linux/mman.h>
#include <sys/reboot.h>
#include <termios.h>

#include "labcheck.h"
#include "daxfs.h"

#define NV_DEV "/dev/pmem-nvdimm"
#define NV_MNT "/mnt/nv"

static const struct {
	const char *name;
	long len;
	const char *how;
	const char *hint;
} files[] = {
	{ "fsynced", 3 * MIB, "write() then fsync()",
	  "ext4_sync_file() commits what ext4_dax_get_block() allocated (lab 6)" },
	{ "msynced", 2 * MIB, "stores through a shared mapping, then msync()",
	  "msync() calls vfs_fsync_range(); the faults allocated in journal handles "
	  "(ext4_dax_get_block(), lab 6)" },
	{ "mapsync", 2 * MIB, "stores through a MAP_SYNC mapping, no sync",
	  "each store fault must commit before the store goes in: "
	  "ext4_dax_bh_sync_check() and ext4_dax_bh_sync_commit() (TODOs 2, 3); "
	  "the first boot's messages are in the check power_off_without_sync" },
	{ "unsynced", 1 * MIB, "write(), no sync", NULL },
};

enum { FSYNCED, MSYNCED, MAPSYNC, UNSYNCED };

static int failures;

/*
 * A step of the first boot failed: say which, why, and where to look.  The
 * host makes the first of these lines the check power_off_without_sync's
 * "seen:" and "hint:" (vm/labvm/run.py, power_cycle()).
 */
static void failed_hint(const char *what, const char *hint)
{
	printf("persistence: %s failed: %s (hint: %s)\n", what, strerror(errno), hint);
	failures++;
}

#define HINT_SETUP "lab 6's checks first: ext4 -o dax on a pmem device"

static void failed(const char *what)
{
	failed_hint(what, HINT_SETUP);
}

static int create(int i)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), NV_MNT "/%s", files[i].name);
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		failed(path);
	return fd;
}

/* Stores of pattern(seed) through a mapping of fd; 0 or -1. */
static int store_through(int fd, long len, unsigned int seed, int flags, int load_first)
{
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);
	unsigned char c;

	if (p == MAP_FAILED) {
		if (flags & MAP_SYNC)
			failed_hint("mmap(MAP_SHARED_VALIDATE | MAP_SYNC)",
				    "ext4_dax_bh_map_sync_ok() in fs/ext4/file.c, TODO 1; "
				    "the check lab7_map_sync says more");
		else
			failed("mmap(MAP_SHARED)");
		return -1;
	}
	for (long off = 0; load_first && off < len; off += BLK)
		if (daxfs_touch(p + off, 0, 0, &c))
			break;
	for (long off = 0; off < len; off += BLK) {
		unsigned char page[BLK];

		pattern(page, BLK, seed, off);
		if (sigsetjmp(daxfs_bus_jmp, 1)) {
			daxfs_bus_armed = 0;
			errno = EFAULT;
			failed_hint("a store through the mapping (SIGBUS)",
				    "a store fault of a MAP_SYNC mapping: "
				    "ext4_dax_bh_sync_check() and ext4_dax_bh_sync_commit() "
				    "in fs/ext4/file.c, TODOs 2 and 3");
			break;
		}
		daxfs_bus_armed = 1;
		memcpy(p + off, page, BLK);
		daxfs_bus_armed = 0;
	}
	if (!(flags & MAP_SYNC) && msync(p, len, MS_SYNC))
		failed("msync()");
	munmap(p, len);
	return 0;
}

static int write_phase(unsigned int seed)
{
	unsigned char *buf = malloc(3 * MIB);
	int fd;

	daxfs_catch_sigbus();
	mkdir(NV_MNT, 0755);
	if (!buf || labcheck_mkfs("ext4", NV_DEV, "4096") ||
	    mount(NV_DEV, NV_MNT, "ext4", 0, "dax,commit=300")) {
		failed("mkfs.ext4 and mount -o dax,commit=300 " NV_DEV);
		goto off;
	}

	fd = create(FSYNCED);
	pattern(buf, files[FSYNCED].len, seed + FSYNCED, 0);
	if (fd >= 0 && (pwrite_all(fd, buf, files[FSYNCED].len, 0) || fsync(fd)))
		failed("write() and fsync()");

	fd = create(MSYNCED);
	if (fd >= 0 && ftruncate(fd, files[MSYNCED].len))
		failed("ftruncate()");
	if (fd >= 0)
		store_through(fd, files[MSYNCED].len, seed + MSYNCED, MAP_SHARED, 0);

	/* the size is committed; half the blocks come from an unsynced write() */
	fd = create(MAPSYNC);
	if (fd >= 0 && (ftruncate(fd, files[MAPSYNC].len) || fsync(fd)))
		failed("ftruncate() and fsync()");
	pattern(buf, files[MAPSYNC].len / 2, seed + 100, 0);
	if (fd >= 0 && pwrite_all(fd, buf, files[MAPSYNC].len / 2, 0))
		failed("write()");
	if (fd >= 0)
		store_through(fd, files[MAPSYNC].len, seed + MAPSYNC,
			      MAP_SHARED_VALIDATE | MAP_SYNC, 1);

	/* last: no commit may come after it */
	fd = create(UNSYNCED);
	pattern(buf, files[UNSYNCED].len, seed + UNSYNCED, 0);
	if (fd >= 0 && pwrite_all(fd, buf, files[UNSYNCED].len, 0))
		failed("write()");
off:
	printf("persistence: %d step(s) failed; powering off without sync\n", failures);
	fflush(stdout);
	tcdrain(1);
	reboot(RB_POWER_OFF);
	failed("reboot(RB_POWER_OFF)");
	return 1;
}

/* ---- the second boot ---------------------------------------------------- */

static unsigned int seed;

FIXTURE(nv) {
	int unused;
};

FIXTURE_SETUP(nv)
{
	if (!strstr(labcheck_mount_opts(NV_MNT) ?: "", "dax")) {
		mkdir(NV_MNT, 0755);
		REQUIRE_THAT(access(NV_DEV, F_OK) == 0,
			     EXPECTED("an emulated NVDIMM, " NV_DEV),
			     SEEN("none"), HINT("the host runs this check with NVDIMM="));
		REQUIRE_THAT(mount(NV_DEV, NV_MNT, "ext4", 0, "dax") == 0,
			     EXPECTED("the filesystem of the first boot on " NV_DEV),
			     SEEN("mount: %s", strerror(errno)),
			     HINT("nothing survived the power-off: is the NVDIMM backed by "
				  "a file (memory-backend-file, share=on)?  Did the first "
				  "boot get as far as mkfs (see power_off_without_sync)?"));
	}
}

FIXTURE_TEARDOWN(nv)
{
}

static void expect_file(struct __test_metadata *_metadata, int i)
{
	static unsigned char want[3 * MIB], got[3 * MIB];
	char path[64];
	struct stat st;
	long bad;
	int fd;

	snprintf(path, sizeof(path), NV_MNT "/%s", files[i].name);
	fd = open(path, O_RDONLY);
	REQUIRE_THAT(fd >= 0 && !fstat(fd, &st) && st.st_size == files[i].len,
		     EXPECTED("%s, written by %s in the first boot, with %ld bytes",
			      path, files[i].how, files[i].len),
		     SEEN("%s", fd < 0 ? strerror(errno) : "another size"),
		     HINT("%s", files[i].hint));
	pattern(want, files[i].len, seed + i, 0);
	ASSERT_EQ(0, pread_all(fd, got, files[i].len, 0));
	close(fd);
	bad = first_diff(want, got, files[i].len);
	CHECK_THAT(bad < 0,
		   EXPECTED("%s to hold what the first boot wrote, byte for byte", path),
		   SEEN("byte %ld is %#x, not %#x (seed %u)", bad, bad < 0 ? 0 : got[bad],
			bad < 0 ? 0 : want[bad], seed),
		   HINT("%s", files[i].hint));
}

TEST_F(nv, data_written_and_fsynced_survives_power_off)
{
	expect_file(_metadata, FSYNCED);
}

TEST_F(nv, stores_msynced_through_a_mapping_survive_power_off)
{
	expect_file(_metadata, MSYNCED);
}

TEST_F(nv, map_sync_stores_survive_power_off_without_any_sync)
{
	expect_file(_metadata, MAPSYNC);
}

TEST_F(nv, a_file_never_synced_is_lost_with_the_power)
{
	struct stat st;
	int gone = stat(NV_MNT "/unsynced", &st) && errno == ENOENT;

	CHECK_THAT(gone,
		   EXPECTED(NV_MNT "/unsynced, written with no sync just before the "
			    "power-off, to be gone"),
		   SEEN("it is there, %lld bytes", (long long)st.st_size),
		   HINT("something committed the journal after it: a commit on every "
			"write or fault, or a sync before the power-off.  Then the "
			"other checks here cannot tell synced data from unsynced"));
}

TEST_F(nv, journal_recovery_leaves_the_filesystem_clean)
{
	int rc;

	REQUIRE_THAT(umount(NV_MNT) == 0, EXPECTED("umount " NV_MNT),
		     SEEN("%s", strerror(errno)), HINT("a file still open?"));
	rc = labcheck_fsck(NV_DEV);
	CHECK_THAT(rc == 0, EXPECTED("e2fsck -fn " NV_DEV " to find it clean after the "
				     "journal was replayed"),
		   SEEN("exit status %d (its report is above)", rc),
		   HINT("a block mapped by a committed extent but zeroed or allocated "
			"outside the journal"));
}

int main(void)
{
	const char *how = getenv("DAXLAB_PERSIST") ?: "";
	const char *colon = strchr(how, ':');

	if (!colon) {
		fprintf(stderr, "persistence: set DAXLAB_PERSIST=write:SEED or verify:SEED "
			"(the host does, across two boots)\n");
		return 2;
	}
	seed = strtoul(colon + 1, NULL, 0);
	if (!strncmp(how, "write:", 6))
		return write_phase(seed);
	return labcheck_run();
}
