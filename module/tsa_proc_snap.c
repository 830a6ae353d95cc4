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
#include <linux/sched/clock.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/user_namespace.h>

#include "tsa_compat.h"
#include "tsa_proc.h"
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
 * How long one RCU read section of a copy may run before it lets the CPU
 * and grace periods go on (at least one thread is copied in each), and
 * how many of the last threads it visited a copy keeps to go on from.
 */
#define TSA_SECTION_NS		(100 * NSEC_PER_USEC)
#define TSA_TRAIL		8

static atomic64_t tsa_nr_sections = ATOMIC64_INIT(0);
static atomic64_t tsa_section_max_ns = ATOMIC64_INIT(0);
static atomic64_t tsa_nr_restarts = ATOMIC64_INIT(0);

static void tsa_section_end(u64 t0)
{
	u64 d = local_clock() - t0;
	s64 old = atomic64_read(&tsa_section_max_ns);

	atomic64_inc(&tsa_nr_sections);
	while (d > old && !atomic64_try_cmpxchg(&tsa_section_max_ns, &old, d))
		;
}

void tsa_snap_get_stats(struct tsa_proc_stats *st)
{
	st->sections = atomic64_read(&tsa_nr_sections);
	st->section_max_ns = atomic64_read(&tsa_section_max_ns);
	st->restarts = atomic64_read(&tsa_nr_restarts);
}

/*
 * Where a copy of a process's threads goes on from after a section: the
 * last threads it visited, each with a reference. One still in the
 * thread list continues it (the list only grows at its tail, and a
 * thread that leaves it leaves its successor in place); when all have
 * left, the copy starts over from the head and skips the threads it
 * holds already (@sorted, their records in address order).
 */
struct tsa_trail {
	struct task_struct *t[TSA_TRAIL];
	unsigned int n;
	struct tsa_thread **sorted;
	unsigned int nr_sorted;
};

static void tsa_trail_drop(struct tsa_trail *tr)
{
	while (tr->n)
		put_task_struct(tr->t[--tr->n]);
}

static int tsa_ptr_cmp(const void *a, const void *b)
{
	const void *x = *(void * const *)a, *y = *(void * const *)b;

	return x < y ? -1 : x > y;
}

static bool tsa_trail_holds(const struct tsa_trail *tr,
			    const struct tsa_thread *th)
{
	unsigned int lo = 0, hi = tr->nr_sorted, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tr->sorted[mid] == th)
			return true;
		if (tr->sorted[mid] < th)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Starting over: note the records rows @start.. hold, to skip them. */
static int tsa_trail_restart(struct tsa_trail *tr, struct tsa_all *all,
			     unsigned int start)
{
	unsigned int i;

	atomic64_inc(&tsa_nr_restarts);
	kvfree(tr->sorted);
	tr->nr_sorted = all->n - start;
	tr->sorted = kvmalloc_array(max(tr->nr_sorted, 1U),
				    sizeof(*tr->sorted), TSA_READER_GFP);
	if (!tr->sorted)
		return -ENOMEM;
	for (i = 0; i < tr->nr_sorted; i++)
		tr->sorted[i] = all->rows[start + i].th;
	sort(tr->sorted, tr->nr_sorted, sizeof(*tr->sorted), tsa_ptr_cmp,
	     NULL);
	return 0;
}

/*
 * The thread to go on after, or NULL (the head). Under rcu_read_lock()
 * for going on; outside it, a first look (the trail holds its tasks).
 */
static struct task_struct *tsa_trail_resume(struct tsa_trail *tr)
{
	unsigned int i = tr->n;

	while (i--)
		if (pid_alive(tr->t[i]))
			return tr->t[i];
	return NULL;
}

/*
 * Copy thread @t of the process into the next row, holding its record.
 * Under rcu_read_lock(). False when @all is full.
 */
static bool tsa_all_thread(struct tsa_all *all, struct task_struct *t,
			   bool leader, const struct tsa_trail *tr)
{
	struct tsa_thread *th = tsa_thread_find(t);
	struct tsa_row *r;

	if (!th || (tr->sorted && tsa_trail_holds(tr, th)) ||
	    !tsa_may_read(t))
		return true;
	if (all->n == all->max)
		return false;
	r = &all->rows[all->n];
	if (th == all->seen && leader) {
		r->stay = all->seen_stay;
		r->a = *all->seen_a;
		if (all->tables)
			memcpy(tsa_all_tables(all, all->n), all->seen_tables,
			       all->tables_size);
	} else {
		r->stay = tsa_thread_read(th, all->now, &r->a,
					  tsa_all_tables(all, all->n));
	}
	if (r->a.flags & TSA_F_NOT_LIVE)
		return true;
	/*
	 * all->now, or the thread's last event if it came during the copy:
	 * a snapshot charges up to it, never rewinds it.
	 */
	r->at = r->a.stamp;
	tsa_thread_hold(th);
	r->th = th;
	tsa_row_fill(r, t, task_pid_nr_ns(t, all->ns), all->ns);
	all->n++;
	return true;
}

/*
 * Copy the threads of @p, in RCU read sections of about TSA_SECTION_NS
 * each, rescheduling between them. 0, -ENOSPC (@all full) or -ENOMEM.
 * Every thread in the list throughout is copied once; one that leaves
 * the list before the copy reaches it has begun its exit, and so handed
 * its numbers to the process's totals, which are read after this.
 */
static int tsa_all_threads(struct tsa_all *all, struct task_struct *p,
			   unsigned int start)
{
	struct list_head *head = &p->signal->thread_head;
	struct tsa_trail tr = { .n = 0, .sorted = NULL }, last;
	struct task_struct *t, *ring[TSA_TRAIL];
	unsigned int seen, i;
	int err = 0;
	bool more;
	u64 t0;

	do {
		/* Every thread the trail holds has died: start over. */
		if (tr.n && !tsa_trail_resume(&tr)) {
			tsa_trail_drop(&tr);
			err = tsa_trail_restart(&tr, all, start);
			if (err)
				break;
		}
		rcu_read_lock();
		t0 = local_clock();
		t = tsa_trail_resume(&tr);
		seen = 0;
		/* If the last of them died just now, start over next time. */
		more = !t && tr.n;
		if (!t)
			t = list_entry_rcu(head, struct task_struct,
					   thread_node);
		list_for_each_entry_continue_rcu(t, head, thread_node) {
			if (more)
				break;
			if (!tsa_all_thread(all, t, t == p, &tr)) {
				err = -ENOSPC;
				break;
			}
			ring[seen++ % TSA_TRAIL] = t;
			if (local_clock() - t0 >= TSA_SECTION_NS) {
				more = true;
				break;
			}
		}
		/*
		 * The new trail, its references taken while the list holds
		 * its threads; the old one let go outside the section, where
		 * a last put may free a task.
		 */
		last = tr;
		if (seen) {
			tr.n = 0;
			for (i = seen > TSA_TRAIL ? seen - TSA_TRAIL : 0;
			     i < seen && more; i++) {
				tr.t[tr.n] = ring[i % TSA_TRAIL];
				get_task_struct(tr.t[tr.n++]);
			}
		} else {
			last.n = 0;
		}
		tsa_section_end(t0);
		rcu_read_unlock();
		tsa_trail_drop(&last);
		cond_resched();
	} while (more && !err);
	tsa_trail_drop(&tr);
	kvfree(tr.sorted);
	return err;
}

/* Let go of the records rows @from.. hold. */
static void tsa_all_let_go(struct tsa_all *all, unsigned int from)
{
	unsigned int i;

	for (i = from; i < all->n; i++) {
		tsa_thread_let_go(all->rows[i].th);
		all->rows[i].th = NULL;
		if (!(i % 256))
			cond_resched();
	}
}

/*
 * Copy one process: its live threads the reader may see, each on its own
 * (tsa_all_threads()), then the totals of its exited threads, in a small
 * consistent copy; then drop every copied thread whose exit those totals
 * already hold, so that a thread exiting meanwhile is counted exactly
 * once. The copied records are held until then, so that their hand-over
 * numbers can be asked after the totals are read. Nothing here takes a
 * lock that an exiting thread needs in sched_switch. The caller holds a
 * reference to @p (which keeps its signal_struct) and no RCU read lock.
 * Returns false when @all is full (or memory ran out).
 */
bool tsa_all_process(struct tsa_all *all, struct task_struct *p)
{
	unsigned int start = all->n, i, j;
	struct tsa_group *g;
	struct tsa_row *r;
	u32 gen, exited;
	bool full, keep, may;
	u64 at;

	if (tsa_all_threads(all, p, start)) {
		tsa_all_let_go(all, start);
		all->n = start;
		return false;
	}
	rcu_read_lock();
	g = tsa_group_pin(p->signal);
	rcu_read_unlock();
	if (!g) {
		/* Its threads are gone, and their totals with them. */
		tsa_all_let_go(all, start);
		all->n = start;
		return true;
	}
	/* No totals row for a reader who may not read the process. */
	may = tsa_may_read(p);
	full = may && all->n == all->max;
	if (!may || full) {
		tsa_group_unpin(g);
		tsa_all_let_go(all, start);
		if (full)
			all->n = start;
		return !full;
	}
	/* The totals go in the next free row; it moves down below. */
	gen = tsa_group_read(g, all->now, &all->rows[all->n].a,
			     tsa_all_tables(all, all->n), &exited, &at);
	tsa_group_unpin(g);
	/* Each record is let go once its hand-over number is asked. */
	for (i = j = start; i < all->n; i++) {
		keep = !tsa_thread_handed_over(all->rows[i].th, gen);
		tsa_thread_let_go(all->rows[i].th);
		all->rows[i].th = NULL;
		if (keep) {
			if (j != i)
				tsa_all_move(all, j, i);
			j++;
		}
		if (!(i % 256))
			cond_resched();
	}
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
 * The process of the lowest id in @ns from *@nr on, held (the caller puts
 * it), with *@nr moved past it; NULL after the last. A pid at a time, in
 * an RCU read section of its own: the ids of a process's many threads
 * are passed over with a reschedule between them.
 */
static struct task_struct *tsa_next_process(struct pid_namespace *ns,
					    int *nr)
{
	struct task_struct *p;
	struct pid *pid;

	for (;;) {
		rcu_read_lock();
		pid = tsa_find_ge_pid(*nr, ns);
		if (!pid) {
			rcu_read_unlock();
			return NULL;
		}
		*nr = pid_nr_ns(pid, ns) + 1;
		p = pid_task(pid, PIDTYPE_TGID);
		if (p)
			get_task_struct(p);
		rcu_read_unlock();
		if (p)
			return p;
		cond_resched();
	}
}

/*
 * Rows for the threads this reader may see (and a totals row for each
 * process it may see), with room for some born meanwhile. The snapshot
 * is charged to the reader's memory cgroup, so what one user can hold
 * through open descriptors is bounded by its descriptor limit times the
 * threads it may see, and by its memcg limit. Counted by process id, a
 * process's thread count in an RCU read section of its own, rescheduling
 * between them, so that a machine of many threads is never walked whole
 * with preemption or a grace period held off.
 */
static unsigned int tsa_all_rows_wanted(struct pid_namespace *ns)
{
	struct task_struct *p;
	unsigned int n = 0;
	int nr = 1;

	while ((p = tsa_next_process(ns, &nr))) {
		/* A thread it may read in a process it may not: see below. */
		if (tsa_may_read(p))
			n += get_nr_threads(p) + 1;
		put_task_struct(p);
		cond_resched();
	}
	return n + n / 8 + 16;
}

/*
 * Copy every process into @all, by process id as /proc lists them, each
 * on its own (tsa_all_process()) with a chance to reschedule after it: a
 * walk of ten thousand threads neither holds off RCU grace periods nor
 * the CPU for all of them at once. A process is copied whole or not
 * at all; one born meanwhile with a lower id than the walk has reached
 * is not in this snapshot. Returns true when @all filled up (the caller
 * tries again, larger: the count above leaves out the rare thread a
 * reader may read in a process it may not).
 */
static bool tsa_all_walk(struct tsa_all *all)
{
	struct task_struct *p;
	bool full = false;
	int nr = 1;

	while (!full && (p = tsa_next_process(all->ns, &nr))) {
		full = !tsa_all_process(all, p);
		put_task_struct(p);
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
