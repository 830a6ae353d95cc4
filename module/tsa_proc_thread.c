// SPDX-License-Identifier: GPL-2.0
/*
 * A thread's file: /proc/tsa/<tid> (tsa_proc_entries.c makes those),
 * /proc/tsa/thread-self (the reader's own thread) and /proc/tsa/self (its
 * process's leader, whose file also holds the process), as /proc names
 * them. An open file holds its task, never its record: every read finds
 * the record anew, so a reused tid never shows another thread's numbers.
 * Ids are those of the pid namespace of the procfs mount it was opened
 * through.
 */
#include <linux/proc_fs.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "tsa_calib.h"
#include "tsa_proc.h"
#include "tsa_proc_internal.h"

/*
 * A leader's file also shows the process: its live threads plus those
 * that exited, summed; elapsed is the sum of the threads' elapsed.
 * The leader's record @th was copied at @now already (@a, @stay and
 * @ltables): that copy counts for it.
 */
static void tsa_process_show(struct seq_file *m, struct task_struct *leader,
			     u64 now, const struct tsa_thread *th,
			     const struct tsa_acct *a, u64 stay,
			     const void *ltables)
{
	unsigned int max, i, live = 0, exited = 0;
	struct tsa_all *all;
	struct tsa_acct *sum;
	void *tables = NULL;
	bool ok;

	max = get_nr_threads(leader) + 1;
	max += max / 4 + 8;	/* threads born meanwhile */
	all = tsa_all_alloc(max, true);
	sum = kzalloc(sizeof(*sum), TSA_READER_GFP);
	if (all && all->tables)
		tables = kmalloc(all->tables_size, TSA_READER_GFP);
	if (!all || !sum || (all->tables && !tables))
		goto out;
	all->now = now;
	all->ns = tsa_proc_ns(m->file);
	all->seen = th;
	all->seen_a = a;
	all->seen_stay = stay;
	all->seen_tables = ltables;
	ok = pid_alive(leader) && tsa_all_process(all, leader);
	if (!ok)
		goto out;
	if (tables)
		tsa_tables_reset(tables);
	for (i = 0; i < all->n; i++) {
		tsa_acct_add(sum, &all->rows[i].a);
		if (tables)
			tsa_tables_merge(tables, tsa_all_tables(all, i));
		if (all->rows[i].flags & TSA_ROW_TOTALS)
			exited += all->rows[i].nr;
		else
			live++;
		if (!(i % 256))
			cond_resched();
	}
	seq_printf(m, "#process: live threads and those that exited, summed\nprocess-threads %u %u\nprocess-elapsed %llu\n",
		   live, exited, tsa_acct_elapsed(sum));
	tsa_show_acct(m, "process-", sum);
	if (tables)
		tsa_tables_sort(tables);
	tsa_show_tables(m, "process-", tables, tsa_acct_elapsed(sum));
	tsa_show_wakers(m, all->ns, "process-", sum);
out:
	kfree(tables);
	kfree(sum);
	tsa_all_free(all);
}

static int tsa_thread_show(struct seq_file *m, void *v)
{
	struct task_struct *t = m->private;
	struct pid_namespace *ns = tsa_proc_ns(m->file);
	size_t size = tsa_table_size();
	char comm[TASK_COMM_LEN];
	void *tables = NULL;
	struct tsa_thread *th;
	struct tsa_acct a;
	u64 now, stay = 0;
	bool live = false;
	int ret;

	if (size) {
		tables = kmalloc(size, TSA_READER_GFP);
		if (!tables)
			return -ENOMEM;
	}

	/*
	 * Checked again at every read, as /proc/<pid>/io does: the thread
	 * may have exec'd a setuid program since the open. Holding
	 * exec_update_lock keeps an exec from changing its credentials
	 * until the numbers are out.
	 */
	ret = down_read_killable(&t->signal->exec_update_lock);
	if (ret)
		goto out_free;
	if (!tsa_may_read(t)) {
		ret = -EACCES;
		goto out;
	}
	now = tsa_reader_clock();
	rcu_read_lock();
	th = tsa_thread_find(t);
	if (th) {
		stay = tsa_thread_read(th, now, &a, tables);
		live = !(a.flags & TSA_F_NOT_LIVE);
	}
	rcu_read_unlock();
	if (!live) {
		ret = -ESRCH;
		goto out;
	}

	get_task_comm(comm, t);
	seq_printf(m, TSA_THREAD_FORMAT "\ntid %d\npid %d\ncomm ",
		   task_pid_nr_ns(t, ns), task_tgid_nr_ns(t, ns));
	tsa_seq_comm(m, comm);
	seq_putc(m, '\n');
	seq_printf(m, "since %s\nstate %s %llu\nelapsed %llu\n",
		   (a.flags & TSA_F_SINCE_LOAD) ? "load" : "birth",
		   tsa_state_names[a.state], stay, tsa_acct_elapsed(&a));
	tsa_proc_show_degraded(m, NULL);
	seq_printf(m, "calibration %s\n", tsa_calib_state());
	tsa_show_acct(m, "", &a);
	tsa_show_tables(m, "", tables, tsa_acct_elapsed(&a));
	tsa_show_wakers(m, ns, "", &a);
	if (thread_group_leader(t))
		tsa_process_show(m, t, now, th, &a, stay, tables);
out:
	up_read(&t->signal->exec_update_lock);
out_free:
	kfree(tables);
	return ret;
}

/*
 * What one show of @t's file writes, roughly: its states, counters and
 * tables, twice for a leader (the process's too). seq_read() grows the
 * buffer and shows again when this falls short; a leader's show copies
 * every thread of its process, which should happen once a read.
 */
static size_t tsa_thread_file_size(struct task_struct *t)
{
	size_t lines = 48 + tsa_table_rows(TSA_T_CALLS) +
		       tsa_table_rows(TSA_T_TRAPS) + TSA_WAKER_ROWS;

	return lines * 160 * (thread_group_leader(t) ? 2 : 1);
}

int tsa_thread_file_open(struct inode *inode, struct file *file,
			 struct task_struct *t)
{
	int ret = tsa_may_open(inode, t);

	if (!ret)
		ret = single_open_size(file, tsa_thread_show, t,
				       tsa_thread_file_size(t));
	if (ret)
		put_task_struct(t);
	return ret;
}

int tsa_thread_file_release(struct inode *inode, struct file *file)
{
	put_task_struct(((struct seq_file *)file->private_data)->private);
	return single_release(inode, file);
}

/* The reader's own thread (@self: its process's leader), if tracked. */
static int tsa_self_open_task(struct inode *inode, struct file *file,
			      bool self)
{
	struct task_struct *t;

	rcu_read_lock();
	t = self ? current->group_leader : current;
	if (pid_alive(t) && tsa_thread_find(t))
		get_task_struct(t);
	else
		t = NULL;
	rcu_read_unlock();
	return t ? tsa_thread_file_open(inode, file, t) : -ENOENT;
}

static int tsa_self_open(struct inode *inode, struct file *file)
{
	return tsa_self_open_task(inode, file, true);
}

static int tsa_thread_self_open(struct inode *inode, struct file *file)
{
	return tsa_self_open_task(inode, file, false);
}

static const struct proc_ops tsa_self_ops = {
	.proc_open = tsa_self_open,
	.proc_read = seq_read,
	.proc_write = tsa_write,
	.proc_lseek = seq_lseek,
	.proc_ioctl = tsa_self_ioctl,
	.proc_mmap = tsa_self_mmap,
#ifdef CONFIG_COMPAT
	.proc_compat_ioctl = tsa_self_compat_ioctl,
#endif
	.proc_release = tsa_thread_file_release,
};

static const struct proc_ops tsa_thread_self_ops = {
	.proc_open = tsa_thread_self_open,
	.proc_read = seq_read,
	.proc_write = tsa_write,
	.proc_lseek = seq_lseek,
	.proc_ioctl = tsa_self_ioctl,
	.proc_mmap = tsa_self_mmap,
#ifdef CONFIG_COMPAT
	.proc_compat_ioctl = tsa_self_compat_ioctl,
#endif
	.proc_release = tsa_thread_file_release,
};

int tsa_thread_files_init(struct proc_dir_entry *dir)
{
	if (!proc_create("self", 0444, dir, &tsa_self_ops) ||
	    !proc_create("thread-self", 0444, dir, &tsa_thread_self_ops))
		return -ENOMEM;
	return 0;
}
