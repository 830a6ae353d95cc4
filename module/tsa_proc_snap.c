// SPDX-License-Identifier: GPL-2.0
/*
 * Copies of threads and processes for the procfs files: every file is
 * formatted from a copy taken at open (or at each read of a thread's
 * file), so that reading never holds anything the hooks need. A copy
 * holds the tasks of one pid namespace, by their ids there, that the
 * reader may read (tsa_may_read()).
 */
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>

#include "tsa_compat.h"
#include "tsa_proc_internal.h"

/*
 * Room for @max rows, and their tables when @tables. Charged to the
 * reader's memory cgroup (TSA_READER_GFP).
 */
struct tsa_all *tsa_all_alloc(unsigned int max, bool tables)
{
	struct tsa_all *all;

	all = kvmalloc(struct_size(all, rows, max), TSA_READER_GFP);
	if (!all)
		return NULL;
	all->n = 0;
	all->max = max;
	all->seen = NULL;
	all->tables = NULL;
	all->tables_size = tsa_table_size();
	if (tables && all->tables_size) {
		all->tables = kvmalloc_array(max, all->tables_size,
					     TSA_READER_GFP);
		if (!all->tables) {
			kvfree(all);
			return NULL;
		}
	}
	return all;
}

void tsa_all_free(struct tsa_all *all)
{
	if (!IS_ERR_OR_NULL(all))
		kvfree(all->tables);
	if (!IS_ERR(all))
		kvfree(all);
}

/* Row @j takes row @i's place, with its tables. */
static void tsa_all_move(struct tsa_all *all, unsigned int j, unsigned int i)
{
	all->rows[j] = all->rows[i];
	if (all->tables)
		memcpy(tsa_all_tables(all, j), tsa_all_tables(all, i),
		       all->tables_size);
}

static void tsa_row_fill(struct tsa_row *r, struct task_struct *t, pid_t tid,
			 struct pid_namespace *ns)
{
	r->tid = tid;
	r->pid = task_tgid_nr_ns(t, ns);
	r->uid = from_kuid_munged(current_user_ns(), task_uid(t));
	r->flags = 0;
	r->nr = 1;
	if (r->a.flags & TSA_F_SINCE_LOAD)
		r->flags |= 1;
	/* Without task_lock(): it may sleep on PREEMPT_RT. */
	memcpy(r->comm, t->comm, sizeof(r->comm));
	r->comm[sizeof(r->comm) - 1] = '\0';
}

/*
 * Copy one process: its live threads the reader may see, each on its own,
 * then the totals of its exited threads, in a small consistent copy; then
 * drop every copied thread whose exit those totals already hold, so that
 * a thread exiting meanwhile is counted exactly once. Nothing here takes
 * a lock that an exiting thread needs in sched_switch, and the work is
 * bounded by the threads copied. Returns false when @all is full. Caller
 * holds rcu_read_lock() (records are freed after a grace period).
 */
bool tsa_all_process(struct tsa_all *all, struct task_struct *p)
{
	unsigned int start = all->n, i, j;
	struct tsa_group *g = NULL;
	struct tsa_thread *th;
	struct task_struct *t;
	struct tsa_row *r;
	u32 gen, exited;
	u64 at;

	for_each_thread(p, t) {
		th = tsa_thread_find(t);
		if (!th || !tsa_may_read(t))
			continue;
		if (all->n == all->max)
			return false;
		r = &all->rows[all->n];
		if (th == all->seen && t == p) {
			r->stay = all->seen_stay;
			r->a = *all->seen_a;
			if (all->tables)
				memcpy(tsa_all_tables(all, all->n),
				       all->seen_tables, all->tables_size);
		} else {
			r->stay = tsa_thread_read(th, all->now, &r->a,
						  tsa_all_tables(all, all->n));
		}
		if (r->a.flags & TSA_F_NOT_LIVE)
			continue;
		/*
		 * all->now, or the thread's last event if it came during
		 * the copy: a snapshot charges up to it, never rewinds it.
		 */
		r->at = r->a.stamp;
		r->th = th;
		g = th->group;
		tsa_row_fill(r, t, task_pid_nr_ns(t, all->ns), all->ns);
		all->n++;
	}
	if (!g) {
		for_each_thread(p, t) {
			th = tsa_thread_find(t);
			if (th) {
				g = th->group;
				break;
			}
		}
	}
	if (!g || !tsa_may_read(p))
		return true;
	if (all->n == all->max)
		return false;
	/* The totals go in the next free row; it moves down below. */
	gen = tsa_group_read(g, all->now, &all->rows[all->n].a,
			     tsa_all_tables(all, all->n), &exited, &at);
	for (i = j = start; i < all->n; i++)
		if (!tsa_thread_handed_over(all->rows[i].th, gen))
			tsa_all_move(all, j++, i);
	if (!exited) {
		all->n = j;
		return true;
	}
	r = &all->rows[j];
	if (j != i)
		tsa_all_move(all, j, i);
	all->n = j;
	/* A hand-over during the copy holds numbers up to its clock. */
	r->at = at;
	r->stay = 0;
	tsa_row_fill(r, p, 0, all->ns);
	r->flags = TSA_ROW_TOTALS;
	r->nr = exited;
	all->n++;
	return true;
}

/*
 * Rows for the threads this reader may see (and a totals row for each
 * process it may see), with room for some born meanwhile. The snapshot
 * is charged to the reader's memory cgroup, so what one user can hold
 * through open descriptors is bounded by its descriptor limit times the
 * threads it may see, and by its memcg limit. Counted as the copy walks
 * (by process id, an RCU read section a process, rescheduling between
 * them), so that a machine of many threads is never walked whole with
 * preemption or a grace period held off.
 */
static unsigned int tsa_all_rows_wanted(struct pid_namespace *ns)
{
	struct task_struct *p, *t;
	unsigned int n = 0;
	struct pid *pid;
	int nr = 1;

	for (;;) {
		rcu_read_lock();
		pid = tsa_find_ge_pid(nr, ns);
		if (!pid) {
			rcu_read_unlock();
			break;
		}
		nr = pid_nr_ns(pid, ns) + 1;
		p = pid_task(pid, PIDTYPE_TGID);
		if (p) {
			n += tsa_may_read(p);
			for_each_thread(p, t)
				n += tsa_may_read(t);
		}
		rcu_read_unlock();
		cond_resched();
	}
	return n + n / 8 + 16;
}

/*
 * Copy every process into @all, by process id as /proc lists them, each
 * in an RCU read section of its own with a chance to reschedule after
 * it: a walk of ten thousand threads neither holds off RCU grace periods
 * nor the CPU for all of them at once. A process is copied whole or not
 * at all (tsa_all_process()); one born meanwhile with a lower id than
 * the walk has reached is not in this snapshot. Returns true when @all
 * filled up.
 */
static bool tsa_all_walk(struct tsa_all *all)
{
	struct task_struct *p;
	struct pid *pid;
	bool full = false;
	int nr = 1;

	while (!full) {
		rcu_read_lock();
		pid = tsa_find_ge_pid(nr, all->ns);
		if (!pid) {
			rcu_read_unlock();
			break;
		}
		nr = pid_nr_ns(pid, all->ns) + 1;
		p = pid_task(pid, PIDTYPE_TGID);
		if (p)
			full = !tsa_all_process(all, p);
		rcu_read_unlock();
		cond_resched();
	}
	return full;
}

struct tsa_all *tsa_all_collect(struct pid_namespace *ns, bool tables)
{
	unsigned int max = tsa_all_rows_wanted(ns), tries;
	struct tsa_all *all;
	bool full = false;

	for (tries = 0; tries < 4; tries++, max *= 2) {
		all = tsa_all_alloc(max, tables);
		if (!all)
			return ERR_PTR(-ENOMEM);
		all->ns = ns;
		all->now = tsa_reader_clock();
		full = tsa_all_walk(all);
		if (!full)
			return all;
		tsa_all_free(all);
		cond_resched();
	}
	return ERR_PTR(-EAGAIN);
}
