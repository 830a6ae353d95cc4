// SPDX-License-Identifier: GPL-2.0
/*
 * The /proc/tsa/<tid> entries: a name per tracked live thread, by its tid
 * in the initial pid namespace (a proc entry is the same in every procfs
 * mount; tsa_may_open() refuses a task the mount cannot see).
 *
 * A module cannot give a proc directory a lookup of its own, so the
 * entries are real proc entries, created and removed from process context
 * by one work item. The hooks only note which tids changed (in a bounded
 * ring; when it overflows the work item rescans everything), and the work
 * item makes each noted tid's entry match the truth at the time it runs:
 * entry present if and only if a live tracked thread has that tid. That
 * makes the order of notes irrelevant, which is what tid reuse and exec
 * (a thread taking over its leader's tid) need. It also lets the work
 * wait: it runs at once after a quiet spell, but never sooner than
 * TSA_ENTRY_DELAY after its last run, so a burst of forks wakes a worker
 * once a batch, and a thread of the burst that lives shorter than that
 * mostly never costs an entry made and removed.
 *
 * Removing a proc entry waits until every read in it has returned, and a
 * read can be held for as long as its reader likes (a buffer whose page
 * fault userfaultfd or a stalled FUSE server holds). So the batch never
 * waits for a reader: each entry counts the reads in it, and one with a
 * read in progress is removed by a work item of its own, which waits for
 * that reader alone. The batch marks an entry dying before it counts
 * its readers and a read counts itself before it looks at the mark (full
 * barriers on both sides), so either the batch sees the read or the read
 * sees the mark and returns at once, without touching its buffer.
 */
#include <linux/compat.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "tsa_compat.h"
#include "tsa_proc.h"
#include "tsa_proc_internal.h"

#define TSA_RING_SIZE		4096
/* The least time between two batches; see the top of the file. */
#define TSA_ENTRY_DELAY		msecs_to_jiffies(20)

/* One /proc/tsa/<tid>: its proc entry's data. */
struct tsa_entry {
	struct proc_dir_entry *pde;
	pid_t tid;
	bool dying;		/* no read may start its work any more */
	atomic_t readers;	/* reads and seeks in progress */
	struct work_struct remove;	/* when a reader held it up */
};

static struct proc_dir_entry *tsa_dir;

static DEFINE_RAW_SPINLOCK(tsa_ring_lock);
static pid_t tsa_ring[TSA_RING_SIZE];
static unsigned int tsa_ring_len;
static bool tsa_ring_overflow;
static bool tsa_ring_live;
static bool tsa_ring_queued;	/* the work will drain the ring */
static unsigned long tsa_ring_next;	/* jiffies: the next run, at soonest */

/*
 * Held only for work that never waits on a reader: by the batch, by a
 * deferred removal once its entry is gone, and by stats.
 */
static DEFINE_MUTEX(tsa_entries_lock);
static DEFINE_XARRAY(tsa_entries);	/* tid -> struct tsa_entry */
static pid_t tsa_drain[TSA_RING_SIZE];	/* under tsa_entries_lock */
static u64 tsa_nr_entries;
static u64 tsa_nr_made;
static u64 tsa_nr_batches;
static u64 tsa_nr_resyncs;
static u64 tsa_nr_deferred;	/* removals a reader held up */
static u64 tsa_entry_bytes;	/* slab size of one /proc/tsa/<tid> entry */

/* Deferred removals: each may wait for its reader as long as that takes. */
static struct workqueue_struct *tsa_remove_wq;

static void tsa_entries_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(tsa_entries_work, tsa_entries_work_fn);
static const struct proc_ops tsa_entry_ops;

/*
 * Called from the fork, exec and exit hooks and at load; never with an rq
 * lock held (queueing work may wake a worker). Only the note that starts
 * a batch queues the work (tsa_ring_queued, cleared by the drain under
 * the same lock), so the notes after it take no locked instruction but
 * the ring's lock; a ring half full runs the work at once.
 */
void tsa_proc_tid_changed(pid_t tid)
{
	unsigned long flags, delay = 0;
	bool kick;

	raw_spin_lock_irqsave(&tsa_ring_lock, flags);
	if (tsa_ring_len < TSA_RING_SIZE)
		tsa_ring[tsa_ring_len++] = tid;
	else
		tsa_ring_overflow = true;
	kick = tsa_ring_live && !tsa_ring_queued;
	if (kick && time_before(jiffies, tsa_ring_next))
		delay = tsa_ring_next - jiffies;
	if (tsa_ring_live && tsa_ring_len == TSA_RING_SIZE / 2) {
		kick = true;
		delay = 0;
	}
	if (kick)
		tsa_ring_queued = true;
	raw_spin_unlock_irqrestore(&tsa_ring_lock, flags);
	if (kick)
		mod_delayed_work(tsa_unbound_wq, &tsa_entries_work, delay);
}

/* Make every entry noted so far match its thread now (at load). */
void tsa_proc_flush(void)
{
	flush_delayed_work(&tsa_entries_work);
}

/* Does a live, tracked thread have this tid right now? */
static bool tsa_tid_wanted(pid_t tid)
{
	struct task_struct *t;
	bool want;

	rcu_read_lock();
	t = pid_task(find_pid_ns(tid, &init_pid_ns), PIDTYPE_PID);
	want = t && !(t->flags & PF_EXITING) && tsa_thread_find(t);
	rcu_read_unlock();
	return want;
}

/*
 * A removal a reader held up: wait for it here, then forget the entry
 * and look at its tid again (a new thread may have it by now, and could
 * not get an entry while the old one had the name).
 */
static void tsa_entry_remove_fn(struct work_struct *work)
{
	struct tsa_entry *e = container_of(work, struct tsa_entry, remove);
	pid_t tid = e->tid;

	proc_remove(e->pde);
	mutex_lock(&tsa_entries_lock);
	xa_erase(&tsa_entries, tid);
	tsa_nr_entries--;
	mutex_unlock(&tsa_entries_lock);
	kfree(e);
	tsa_proc_tid_changed(tid);
}

/* Begin the end of @e: now, if no read is in it, else in its own work. */
static void tsa_entry_remove(struct tsa_entry *e)
{
	lockdep_assert_held(&tsa_entries_lock);
	WRITE_ONCE(e->dying, true);
	/* Pairs with the barrier in tsa_entry_enter(). */
	smp_mb();
	if (atomic_read(&e->readers)) {
		tsa_nr_deferred++;
		queue_work(tsa_remove_wq, &e->remove);
		return;
	}
	/* Any read from here on leaves at once: this waits for none. */
	proc_remove(e->pde);
	xa_erase(&tsa_entries, e->tid);
	tsa_nr_entries--;
	kfree(e);
}

static void tsa_entry_sync(pid_t tid)
{
	struct tsa_entry *e = xa_load(&tsa_entries, tid);
	bool want = tsa_tid_wanted(tid);
	char name[16];

	lockdep_assert_held(&tsa_entries_lock);
	/* A dying entry's own work looks at its tid again when it is gone. */
	if (e && e->dying)
		return;
	if (want && !e) {
		e = kzalloc(sizeof(*e), GFP_KERNEL);
		if (!e)
			return;
		e->tid = tid;
		INIT_WORK(&e->remove, tsa_entry_remove_fn);
		if (xa_err(xa_store(&tsa_entries, tid, e, GFP_KERNEL))) {
			kfree(e);
			return;
		}
		snprintf(name, sizeof(name), "%d", tid);
		e->pde = proc_create_data(name, 0444, tsa_dir, &tsa_entry_ops,
					  e);
		if (!e->pde) {
			xa_erase(&tsa_entries, tid);
			kfree(e);
			return;
		}
		tsa_nr_entries++;
		tsa_nr_made++;
		/* What one entry takes from the slabs, for debugfs. */
		if (!tsa_entry_bytes)
			tsa_entry_bytes = ksize(e->pde) + ksize(e);
	} else if (!want && e) {
		tsa_entry_remove(e);
	}
}

/* After the ring overflowed: check every thread and every entry. */
static void tsa_entries_resync(void)
{
	struct task_struct *g, *t;
	unsigned int n = 0, max = 0, i;
	struct tsa_entry *e;
	unsigned long tid;
	pid_t *tids;

	tsa_nr_resyncs++;
	rcu_read_lock();
	for_each_process_thread(g, t)
		max++;
	rcu_read_unlock();
	tids = kvmalloc_array(max, sizeof(*tids), GFP_KERNEL);
	if (tids) {
		rcu_read_lock();
		for_each_process_thread(g, t) {
			if (n == max)
				break;
			tids[n++] = task_pid_nr(t);
		}
		rcu_read_unlock();
		for (i = 0; i < n; i++) {
			tsa_entry_sync(tids[i]);
			cond_resched();
		}
		kvfree(tids);
	}
	xa_for_each(&tsa_entries, tid, e) {
		tsa_entry_sync(tid);
		cond_resched();
	}
}

static void tsa_entries_work_fn(struct work_struct *work)
{
	unsigned int n, i;
	bool overflow;

	mutex_lock(&tsa_entries_lock);
	raw_spin_lock_irq(&tsa_ring_lock);
	n = tsa_ring_len;
	overflow = tsa_ring_overflow;
	memcpy(tsa_drain, tsa_ring, n * sizeof(pid_t));
	tsa_ring_len = 0;
	tsa_ring_overflow = false;
	tsa_ring_queued = false;
	tsa_ring_next = jiffies + TSA_ENTRY_DELAY;
	raw_spin_unlock_irq(&tsa_ring_lock);
	tsa_nr_batches++;

	/* Bursts of thousands of threads: yield between entries. */
	if (overflow) {
		tsa_entries_resync();
	} else {
		for (i = 0; i < n; i++) {
			tsa_entry_sync(tsa_drain[i]);
			cond_resched();
		}
	}
	mutex_unlock(&tsa_entries_lock);
}

void tsa_proc_get_stats(struct tsa_proc_stats *st)
{
	st->row_bytes = sizeof(struct tsa_row);
	mutex_lock(&tsa_entries_lock);
	st->entries = tsa_nr_entries;
	st->made = tsa_nr_made;
	st->batches = tsa_nr_batches;
	st->entry_bytes = tsa_entry_bytes;
	st->resyncs = tsa_nr_resyncs;
	st->deferred = tsa_nr_deferred;
	mutex_unlock(&tsa_entries_lock);
	tsa_snap_get_stats(st);
}

/* --- the entries' file operations -------------------------------------- */

/* A read or seek begins: false if its entry is dying (leave at once). */
static bool tsa_entry_enter(struct tsa_entry *e)
{
	atomic_inc(&e->readers);
	/* Pairs with the barrier in tsa_entry_remove(). */
	smp_mb__after_atomic();
	if (!READ_ONCE(e->dying))
		return true;
	atomic_dec(&e->readers);
	return false;
}

static int tsa_entry_open(struct inode *inode, struct file *file)
{
	struct tsa_entry *e = pde_data(inode);
	struct task_struct *t;

	rcu_read_lock();
	t = pid_task(find_pid_ns(e->tid, &init_pid_ns), PIDTYPE_PID);
	if (t && tsa_thread_find(t))
		get_task_struct(t);
	else
		t = NULL;
	rcu_read_unlock();
	return t ? tsa_thread_file_open(inode, file, t) : -ENOENT;
}

/*
 * seq_read() copies to the reader's buffer, and seq_lseek() takes the
 * lock a read holds while it does: either may wait on the reader.
 */
static ssize_t tsa_entry_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	struct tsa_entry *e = pde_data(file_inode(file));
	ssize_t ret;

	if (!tsa_entry_enter(e))
		return -ESRCH;
	ret = seq_read(file, buf, count, ppos);
	atomic_dec(&e->readers);
	return ret;
}

static loff_t tsa_entry_lseek(struct file *file, loff_t off, int whence)
{
	struct tsa_entry *e = pde_data(file_inode(file));
	loff_t ret;

	if (!tsa_entry_enter(e))
		return -ESRCH;
	ret = seq_lseek(file, off, whence);
	atomic_dec(&e->readers);
	return ret;
}

/* Its copy to the caller's buffer may wait on the caller too. */
static long tsa_entry_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct tsa_entry *e = pde_data(file_inode(file));
	long ret;

	if (!tsa_entry_enter(e))
		return -ESRCH;
	ret = tsa_self_ioctl(file, cmd, arg);
	atomic_dec(&e->readers);
	return ret;
}

static int tsa_entry_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct tsa_entry *e = pde_data(file_inode(file));
	int ret;

	if (!tsa_entry_enter(e))
		return -ESRCH;
	ret = tsa_self_mmap(file, vma);
	atomic_dec(&e->readers);
	return ret;
}

#ifdef CONFIG_COMPAT
static long tsa_entry_compat_ioctl(struct file *file, unsigned int cmd,
				   unsigned long arg)
{
	return tsa_entry_ioctl(file, cmd, (unsigned long)compat_ptr(arg));
}
#endif

static const struct proc_ops tsa_entry_ops = {
	.proc_open = tsa_entry_open,
	.proc_read = tsa_entry_read,
	.proc_write = tsa_write,
	.proc_lseek = tsa_entry_lseek,
	.proc_ioctl = tsa_entry_ioctl,
	.proc_mmap = tsa_entry_mmap,
#ifdef CONFIG_COMPAT
	.proc_compat_ioctl = tsa_entry_compat_ioctl,
#endif
	.proc_release = tsa_thread_file_release,
};

/* --- setup -------------------------------------------------------------- */

int tsa_entries_init(struct proc_dir_entry *dir)
{
	/* Unbound, and as many at once as waits: one per stuck reader. */
	tsa_remove_wq = alloc_workqueue("tsa_remove", WQ_UNBOUND, 0);
	if (!tsa_remove_wq)
		return -ENOMEM;
	tsa_dir = dir;
	raw_spin_lock_irq(&tsa_ring_lock);
	tsa_ring_live = true;
	tsa_ring_next = jiffies;
	raw_spin_unlock_irq(&tsa_ring_lock);
	return 0;
}

/*
 * After the hooks are gone: nothing notes tids any more but the deferred
 * removals, which find the ring closed. Waits for the reads in progress
 * in tsa's entries, as removing any proc entry does; the directory's
 * removal (the caller's) removes the entries left.
 */
void tsa_entries_exit(void)
{
	struct tsa_entry *e;
	unsigned long tid;

	raw_spin_lock_irq(&tsa_ring_lock);
	tsa_ring_live = false;
	raw_spin_unlock_irq(&tsa_ring_lock);
	cancel_delayed_work_sync(&tsa_entries_work);
	destroy_workqueue(tsa_remove_wq);
	tsa_remove_wq = NULL;
	xa_for_each(&tsa_entries, tid, e) {
		proc_remove(e->pde);
		kfree(e);
	}
	xa_destroy(&tsa_entries);
	tsa_nr_entries = 0;
	tsa_ring_len = 0;
	tsa_ring_overflow = false;
	tsa_ring_queued = false;
}
