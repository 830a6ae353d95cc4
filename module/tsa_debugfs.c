// SPDX-License-Identifier: GPL-2.0
/*
 * tsa debugfs: /sys/kernel/debug/tsa/stats tells how the module itself is
 * doing: what it tracks, what that costs in memory, which hooks are live
 * on this kernel and which states are degraded without them. debugfs is
 * optional: tsa works without it, so failures here are not fatal.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "tsa_arch.h"
#include "tsa_calib.h"
#include "tsa_debugfs.h"
#include "tsa_hooks.h"
#include "tsa_proc.h"
#include "tsa_table.h"
#include "tsa_version.h"

static struct dentry *tsa_debugfs_dir;

static int tsa_stats_show(struct seq_file *m, void *v)
{
	struct tsa_table_stats st;
	struct tsa_proc_stats ps;

	tsa_table_get_stats(&st);
	tsa_proc_get_stats(&ps);
	seq_printf(m, "version %s\n", TSA_VERSION);
	seq_printf(m, "threads %llu\nprocesses %llu\n", st.threads, st.groups);
	seq_printf(m, "memory_bytes %llu\nthread_record_bytes %llu\n",
		   st.bytes + ps.entries * ps.entry_bytes, st.thread_size);
	/* A thread: its record and its /proc/tsa entry. */
	seq_printf(m, "proc_entry_bytes %llu\nthread_bytes %llu\n",
		   ps.entry_bytes, st.thread_size + ps.entry_bytes);
	seq_printf(m, "process_record_bytes %llu\nhash_buckets %llu\n",
		   st.group_size, st.buckets);
	/* Kernel threads' records and processes: no calls table. */
	seq_printf(m, "kthreads %llu\nkthread_record_bytes %llu\nkthread_bytes %llu\nkprocess_record_bytes %llu\n",
		   st.kthreads, st.kthread_size, st.kthread_size + ps.entry_bytes,
		   st.kgroup_size);
	/* Rows of the tables each record carries (calls, interrupts). */
	seq_printf(m, "calls_rows %u\ntrap_rows %u\n",
		   tsa_table_rows(TSA_T_CALLS), tsa_table_rows(TSA_T_TRAPS));
	seq_printf(m, "alloc_failures %llu\nobjects %llu\n", st.alloc_failures,
		   st.objects);
	/* Made in batches, at most one every 20 ms (tsa_proc.c). */
	seq_printf(m, "proc_entries %llu\nproc_entries_made %llu\nproc_entry_batches %llu\nproc_resyncs %llu\nproc_removals_deferred %llu\n",
		   ps.entries, ps.made, ps.batches, ps.resyncs, ps.deferred);
	seq_printf(m, "reader_row_bytes %llu\n", ps.row_bytes);
	/* Bulk copies go a process's threads in sections (tsa_proc_snap.c). */
	seq_printf(m, "reader_sections %llu\nreader_section_max_ns %llu\nreader_restarts %llu\n",
		   ps.sections, ps.section_max_ns, ps.restarts);
	/* Copies redone because the owner wrote meanwhile, and held. */
	seq_printf(m, "reader_copies %llu\nreader_retries %llu\nreader_retries_max %llu\nreader_holds %llu\n",
		   st.reads, st.read_retries, st.read_retries_max,
		   st.read_locks);
	tsa_hooks_show(m);
	tsa_calib_stats(m);
	tsa_proc_show_degraded(m, TSA_ARCH_DEGRADED);
	return 0;
}

static int tsa_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, tsa_stats_show, NULL);
}

/* Read-only, and a write says so rather than failing obscurely. */
static ssize_t tsa_stats_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	return -EINVAL;
}

static const struct file_operations tsa_stats_fops = {
	.owner = THIS_MODULE,
	.open = tsa_stats_open,
	.read = seq_read,
	.write = tsa_stats_write,
	.llseek = seq_lseek,
	.release = single_release,
};

void tsa_debugfs_init(void)
{
	tsa_debugfs_dir = debugfs_create_dir("tsa", NULL);
	/* 0444: under lockdown only read-only debugfs files work. */
	debugfs_create_file("stats", 0444, tsa_debugfs_dir, NULL,
			    &tsa_stats_fops);
	tsa_table_debugfs(tsa_debugfs_dir);
}

void tsa_debugfs_exit(void)
{
	debugfs_remove(tsa_debugfs_dir);
}
