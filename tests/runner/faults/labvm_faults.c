// SPDX-License-Identifier: GPL-2.0
/*
 * labvm_faults: make the kernel misbehave on request, so the lab runner's
 * own tests can record real console logs of every kind of failure it must
 * recognise.  Never loaded by the labs' checks.
 *
 * echo KIND > /sys/kernel/debug/labvm_faults/trigger, KIND one of:
 *   warn     WARN_ON() - a WARNING with a stack trace, the kernel goes on
 *   oops     a NULL pointer dereference - an oops that kills the writer
 *   panic    panic()
 *   lockdep  take two mutexes in both orders - a lockdep report
 *   sleep    sleep uninterruptibly forever - the writer cannot be killed
 *   spin     spin forever with interrupts off - a CPU is lost, the VM hangs
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>

static DEFINE_MUTEX(lock_a);
static DEFINE_MUTEX(lock_b);
static struct dentry *dir;

static noinline void faults_oops(void)
{
	int *volatile p = NULL;

	*p = 1;
}

static void faults_lockdep(void)
{
	mutex_lock(&lock_a);
	mutex_lock(&lock_b);
	mutex_unlock(&lock_b);
	mutex_unlock(&lock_a);

	mutex_lock(&lock_b);
	mutex_lock(&lock_a);	/* AB-BA: lockdep reports it on first sight */
	mutex_unlock(&lock_a);
	mutex_unlock(&lock_b);
}

static ssize_t trigger_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char kind[16] = "";

	if (copy_from_user(kind, ubuf, min(len, sizeof(kind) - 1)))
		return -EFAULT;
	strim(kind);
	if (!strcmp(kind, "warn"))
		WARN_ON(1);
	else if (!strcmp(kind, "oops"))
		faults_oops();
	else if (!strcmp(kind, "panic"))
		panic("labvm_faults: panic on request");
	else if (!strcmp(kind, "lockdep"))
		faults_lockdep();
	else if (!strcmp(kind, "sleep"))
		for (;;)
			msleep(1000000);
	else if (!strcmp(kind, "spin")) {
		local_irq_disable();
		for (;;)
			cpu_relax();
	}
	else
		return -EINVAL;
	return len;
}

static const struct file_operations trigger_fops = {
	.owner = THIS_MODULE,
	.write = trigger_write,
};

static int __init faults_init(void)
{
	dir = debugfs_create_dir("labvm_faults", NULL);
	debugfs_create_file("trigger", 0200, dir, NULL, &trigger_fops);
	return 0;
}

static void __exit faults_exit(void)
{
	debugfs_remove_recursive(dir);
}

module_init(faults_init);
module_exit(faults_exit);
MODULE_DESCRIPTION("DAX lab: provoke kernel failures for the runner's tests");
MODULE_LICENSE("GPL");
