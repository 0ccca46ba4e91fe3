// SPDX-License-Identifier: GPL-2.0
/*
 * lab1_probe: let lab 1's guest program call bdev_direct_access() and use
 * the memory it returns.  A test fixture, not a check: the checks are in
 * checks/direct_access.c.
 *
 * /sys/kernel/debug/lab1_probe/query
 *	write "DEVICE SECTOR SIZE": open DEVICE, call bdev_direct_access();
 *	read: "ret=N pfn=0x.. phys=0x.. kaddr=0x.." (pfn, phys and kaddr
 *	only when N > 0; phys is the physical address of kaddr, found by
 *	walking the page tables, so it checks pfn independently).
 * /sys/kernel/debug/lab1_probe/data
 *	read and write the N bytes at kaddr, offset 0 being kaddr.
 */
#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

static DEFINE_MUTEX(probe_lock);
static struct dentry *probe_dir;
static struct block_device *probe_bdev;
static long probe_ret = -ENODATA;
static void *probe_kaddr;
static unsigned long probe_pfn;

static void probe_put(void)
{
	if (probe_bdev)
		blkdev_put(probe_bdev, FMODE_READ | FMODE_WRITE);
	probe_bdev = NULL;
	probe_ret = -ENODATA;
}

static ssize_t query_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	char buf[160], path[128];
	unsigned long long sector;
	struct block_device *bdev;
	long size;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%127s %llu %ld", path, &sector, &size) != 3)
		return -EINVAL;
	bdev = blkdev_get_by_path(path, FMODE_READ | FMODE_WRITE, NULL);
	if (IS_ERR(bdev))
		return PTR_ERR(bdev);

	mutex_lock(&probe_lock);
	probe_put();
	probe_bdev = bdev;
	probe_kaddr = NULL;
	probe_pfn = 0;
	probe_ret = bdev_direct_access(bdev, sector, &probe_kaddr, &probe_pfn,
				       size);
	mutex_unlock(&probe_lock);
	return len;
}

static ssize_t query_read(struct file *file, char __user *ubuf, size_t len,
			  loff_t *ppos)
{
	char buf[160];
	int n;

	mutex_lock(&probe_lock);
	if (probe_ret > 0)
		n = scnprintf(buf, sizeof(buf),
			      "ret=%ld pfn=%#lx phys=%#llx kaddr=%#lx\n",
			      probe_ret, probe_pfn,
			      (unsigned long long)slow_virt_to_phys(probe_kaddr),
			      (unsigned long)probe_kaddr);
	else
		n = scnprintf(buf, sizeof(buf), "ret=%ld\n", probe_ret);
	mutex_unlock(&probe_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static ssize_t data_rw(char __user *ubuf, size_t len, loff_t *ppos, bool write)
{
	ssize_t done = 0;

	mutex_lock(&probe_lock);
	if (probe_ret <= 0) {
		done = -ENODATA;
	} else if (*ppos < probe_ret) {
		done = min_t(loff_t, len, probe_ret - *ppos);
		if (write ? copy_from_user(probe_kaddr + *ppos, ubuf, done) :
			    copy_to_user(ubuf, probe_kaddr + *ppos, done))
			done = -EFAULT;
		else
			*ppos += done;
	}
	mutex_unlock(&probe_lock);
	return done;
}

static ssize_t data_read(struct file *file, char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	return data_rw(ubuf, len, ppos, false);
}

static ssize_t data_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	return data_rw((char __user *)ubuf, len, ppos, true);
}

static const struct file_operations query_fops = {
	.owner = THIS_MODULE,
	.read = query_read,
	.write = query_write,
};

static const struct file_operations data_fops = {
	.owner = THIS_MODULE,
	.read = data_read,
	.write = data_write,
	.llseek = default_llseek,
};

static int __init probe_init(void)
{
	probe_dir = debugfs_create_dir("lab1_probe", NULL);
	debugfs_create_file("query", 0600, probe_dir, NULL, &query_fops);
	debugfs_create_file("data", 0600, probe_dir, NULL, &data_fops);
	return 0;
}

static void __exit probe_exit(void)
{
	debugfs_remove_recursive(probe_dir);
	mutex_lock(&probe_lock);
	probe_put();
	mutex_unlock(&probe_lock);
}

module_init(probe_init);
module_exit(probe_exit);
MODULE_DESCRIPTION("DAX lab 1: call bdev_direct_access() from user space");
MODULE_LICENSE("GPL");
