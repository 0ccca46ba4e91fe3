// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 5, black box: when a dax file's size changes inside a block, the
 * rest of that block is zeroed on the device (dax_bh_truncate_page()).
 *
 * What is checked here: a seeded model of random truncates, writes and
 * mapped stores, on a device first filled with a pattern, never shows a
 * byte the file does not hold, and ends with e2fsck -fn.  The single
 * cases run from earlier labs, where ext2 zeroed with a helper of its
 * own (ext2_dax_zero_tail()): lab 2 (bytes cut by a truncate read zero
 * after growth; a truncate inside a hole allocates nothing) and lab 3
 * (stores past EOF do not become data when the file grows; a mapped last
 * page shows zeros past a cut).  This lab's skeleton takes that helper
 * out, so they fail until the TODOs are done.
 */
#include "labcheck.h"
#include "daxfs.h"
#include "daxmodel.h"

#define HINT_TRUNC "ext2_setsize() (TODO 3) calls dax_bh_truncate_page() (TODO 2), " \
		   "which zeroes with dax_bh_zero_page_range() (TODO 1), fs/dax_bh.c"

DAX_DEVICE_FIXTURE(zero)

/*
 * The lab's model checker (labs/common/daxmodel.h), where this lab's code
 * does the work: truncates up and down, inside blocks and at their edges,
 * pwrites that grow the file from every position past EOF (one block
 * further, more than 4 GiB further), and stores through a shared mapping
 * inside EOF and in the page of EOF past it, on a device filled with 0xa5.
 */
TEST_F(zero, random_truncates_writes_and_stores_match_a_model)
{
	static const struct dm_run run = {
		.name = "random_truncates", .lab = 5, .count = 1000,
		.ops = DM_TRUNCATE | DM_SHARED,
		.hint = HINT_TRUNC,
	};

	daxmodel_run(_metadata, self->dev, &run);
}

LABCHECK_MAIN
