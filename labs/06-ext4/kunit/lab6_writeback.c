// SPDX-License-Identifier: GPL-2.0
/*
 * lab6_writeback: let lab 6's guest program write a file back as the
 * flusher threads do.  A test fixture, not a check: the check is
 * opts.writeback_of_a_dax_file_succeeds in checks/ext4_dax.c.
 *
 * /sys/kernel/debug/lab6_writeback/writepages
 *	write "PATH": open PATH and call its mapping's ->writepages, as
 *	do_writepages() does for every dirty inode the flusher writes back
 *	(fsync() and sync_file_range() skip a mapping with no dirty page;
 *	the flusher does not);
 *	read: "ret=N" (0 too when the aops have no ->writepages).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/writeback.h>

static DEFINE_MUTEX(wb_lock);
static struct dentry *wb_dir;
static int wb_ret = -ENODATA;

static ssize_t writepages_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct writeback_control wbc = {
		.sync_mode = WB_SYNC_ALL,
		.nr_to_write = LONG_MAX,
		.range_start = 0,
		.range_end = LLONG_MAX,
	};
	struct address_space *mapping;
	char *path;
	struct file *f;
	int ret = 0;

	if (len >= PATH_MAX)
		return -EINVAL;
	path = memdup_user_nul(ubuf, len);
	if (IS_ERR(path))
		return PTR_ERR(path);
	f = filp_open(strim(path), O_RDWR, 0);
	kfree(path);
	if (IS_ERR(f))
		return PTR_ERR(f);
	mapping = f->f_mapping;
	if (mapping->a_ops->writepages)
		ret = mapping->a_ops->writepages(mapping, &wbc);
	filp_close(f, NULL);
	mutex_lock(&wb_lock);
	wb_ret = ret;
	mutex_unlock(&wb_lock);
	return len;
}

static ssize_t writepages_read(struct file *file, char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char buf[32];
	int n;

	mutex_lock(&wb_lock);
	n = scnprintf(buf, sizeof(buf), "ret=%d\n", wb_ret);
	mutex_unlock(&wb_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations writepages_fops = {
	.owner = THIS_MODULE,
	.read = writepages_read,
	.write = writepages_write,
};

static int __init wb_init(void)
{
	wb_dir = debugfs_create_dir("lab6_writeback", NULL);
	debugfs_create_file("writepages", 0600, wb_dir, NULL, &writepages_fops);
	return 0;
}

static void __exit wb_exit(void)
{
	debugfs_remove_recursive(wb_dir);
}

module_init(wb_init);
module_exit(wb_exit);
MODULE_DESCRIPTION("DAX lab 6: write a file back as the flusher does");
MODULE_LICENSE("GPL");
