// SPDX-License-Identifier: GPL-2.0
/*
 * tsa procfs: /proc/tsa/<tid> for people, /proc/tsa/all for tools. The
 * format is documented in docs/proc-format.md; bump the version lines
 * below when a change breaks a parser.
 *
 * A module cannot give a proc directory a lookup of its own, so the
 * per-thread entries are real proc entries, created and removed from
 * process context by one work item. The hooks only note which tids
 * changed (in a bounded ring; when it overflows the work item rescans
 * everything), and the work item makes each noted tid's entry match the
 * truth at the time it runs: entry present if and only if a live tracked
 * thread has that tid. That makes the order of notes irrelevant, which is
 * what tid reuse and exec (a thread taking over its leader's tid) need.
 * It also lets the work wait: it runs at once after a quiet spell, but
 * never sooner than TSA_ENTRY_DELAY after its last run, so a burst of
 * forks wakes a worker once a batch, and a thread of the burst that lives
 * shorter than that mostly never costs an entry made and removed.
 *
 * An entry is only a name: opening it finds the thread by tid and holds
 * the task, so a reused tid never shows another thread's numbers.
 */
#include <linux/cred.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "tsa_calib.h"
#include "tsa_compat.h"
#include "tsa_proc.h"
#include "tsa_table.h"

#define TSA_THREAD_FORMAT	"tsa-thread 1"
#define TSA_ALL_FORMAT		"tsa-all 1"
#define TSA_CALLS_FORMAT	"tsa-calls 1"
#define TSA_HIST_FORMAT		"tsa-hist 2"
#define TSA_WAKERS_FORMAT	"tsa-wakers 1"
#define TSA_ROW_TOTALS		0x4	/* a process's exited threads */
#define TSA_RING_SIZE		4096
/* The least time between two batches; see the top of the file. */
#define TSA_ENTRY_DELAY		msecs_to_jiffies(20)

static struct proc_dir_entry *tsa_dir;
static bool tsa_wakers_shown;	/* the wakers parameter */
static u32 tsa_degraded;

void tsa_proc_set_degraded(u32 lost)
{
	WRITE_ONCE(tsa_degraded, lost);
}

void tsa_proc_show_degraded(struct seq_file *m)
{
	u32 lost = READ_ONCE(tsa_degraded);
	int i;

	seq_puts(m, "degraded");
	for (i = 0; i < TSA_NR_STATES; i++)
		if (lost & TSA_STATE_BIT(i))
			seq_printf(m, " %s", tsa_state_names[i]);
	for (i = 0; i < TSA_NR_COUNTERS; i++)
		if (lost & TSA_COUNTER_BIT(i))
			seq_printf(m, " %s", tsa_counter_names[i]);
	seq_puts(m, lost ? "\n" : " -\n");
}

/*
 * What a reader's copies are allocated with: charged to its memory cgroup;
 * past its limit the read fails with ENOMEM, without the OOM killer and
 * without a warning in the kernel log (any user could fill it).
 */
#define TSA_READER_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/*
 * The rule of /proc/<pid>/io (ptrace_may_access() with
 * PTRACE_MODE_READ_FSCREDS), which is not exported to modules: same
 * process, or the same uid and gid in all three forms, or CAP_SYS_PTRACE
 * over the task; and a task that dropped privileges (not dumpable) only
 * with CAP_SYS_PTRACE. Security modules cannot be asked from a module;
 * see tsa(4).
 */
static bool tsa_may_read(struct task_struct *t)
{
	const struct cred *cred = current_cred(), *tcred;
	struct user_namespace *ns;
	bool ok;

	if (same_thread_group(t, current))
		return true;
	rcu_read_lock();
	tcred = __task_cred(t);
	ok = (uid_eq(cred->fsuid, tcred->euid) &&
	      uid_eq(cred->fsuid, tcred->suid) &&
	      uid_eq(cred->fsuid, tcred->uid) &&
	      gid_eq(cred->fsgid, tcred->egid) &&
	      gid_eq(cred->fsgid, tcred->sgid) &&
	      gid_eq(cred->fsgid, tcred->gid)) ||
	     ns_capable_noaudit(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (!ok)
		return false;
	/* Pairs with the write barrier in commit_creds(). */
	smp_rmb();
	task_lock(t);
	ns = tsa_task_dump_ns(t);
	ok = !ns || ns_capable_noaudit(ns, CAP_SYS_PTRACE);
	task_unlock(t);
	return ok;
}

/* --- per-thread entries ------------------------------------------------ */

static DEFINE_RAW_SPINLOCK(tsa_ring_lock);
static pid_t tsa_ring[TSA_RING_SIZE];
static unsigned int tsa_ring_len;
static bool tsa_ring_overflow;
static bool tsa_ring_live;
static bool tsa_ring_queued;	/* the work will drain the ring */
static unsigned long tsa_ring_next;	/* jiffies: the next run, at soonest */

static DEFINE_MUTEX(tsa_entries_lock);	/* tsa_entries, proc entries */
static DEFINE_XARRAY(tsa_entries);	/* tid -> struct proc_dir_entry */
static pid_t tsa_drain[TSA_RING_SIZE];	/* under tsa_entries_lock */
static u64 tsa_nr_entries;
static u64 tsa_nr_made;
static u64 tsa_nr_batches;
static u64 tsa_nr_resyncs;
static u64 tsa_entry_bytes;	/* slab size of one /proc/tsa/<tid> entry */

static void tsa_entries_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(tsa_entries_work, tsa_entries_work_fn);
static const struct proc_ops tsa_thread_ops;

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

static void tsa_entry_sync(pid_t tid)
{
	struct proc_dir_entry *pde = xa_load(&tsa_entries, tid);
	bool want = tsa_tid_wanted(tid);
	char name[16];

	lockdep_assert_held(&tsa_entries_lock);
	if (want && !pde) {
		snprintf(name, sizeof(name), "%d", tid);
		pde = proc_create_data(name, 0444, tsa_dir, &tsa_thread_ops,
				       (void *)(long)tid);
		if (!pde)
			return;
		if (xa_err(xa_store(&tsa_entries, tid, pde, GFP_KERNEL))) {
			proc_remove(pde);
			return;
		}
		tsa_nr_entries++;
		tsa_nr_made++;
		/* What one entry takes from proc's slab, for debugfs. */
		if (!tsa_entry_bytes)
			tsa_entry_bytes = ksize(pde);
	} else if (!want && pde) {
		xa_erase(&tsa_entries, tid);
		proc_remove(pde);
		tsa_nr_entries--;
	}
}

/* After the ring overflowed: check every thread and every entry. */
static void tsa_entries_resync(void)
{
	struct task_struct *g, *t;
	unsigned int n = 0, max = 0, i;
	struct proc_dir_entry *pde;
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
	xa_for_each(&tsa_entries, tid, pde) {
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

/* --- copies of threads and processes ------------------------------------ */

/* One line of /proc/tsa/all, copied at open so that reading is lock-free. */
struct tsa_row {
	pid_t tid;
	pid_t pid;
	uid_t uid;
	u32 flags;
	u32 nr;			/* threads this row stands for */
	u64 at;			/* the clock its numbers are measured at */
	u64 stay;		/* time in its current state, up to at */
	const struct tsa_thread *th;	/* while collecting, under RCU */
	struct tsa_acct a;
	char comm[TASK_COMM_LEN];
};

struct tsa_all {
	u64 now;
	unsigned int n;
	unsigned int max;
	char *tables;		/* the tables of each row, or NULL */
	size_t tables_size;
	/*
	 * The leader, if its own file copied its record at now: that copy,
	 * not a second one (each copy of a busy thread may hold its writers
	 * off). Compared, never dereferenced: it was found under another
	 * RCU section.
	 */
	const struct tsa_thread *seen;
	const struct tsa_acct *seen_a;
	const void *seen_tables;
	u64 seen_stay;
	struct tsa_row rows[];
};

static void *tsa_all_tables(const struct tsa_all *all, unsigned int i)
{
	return all->tables ? all->tables + i * all->tables_size : NULL;
}

/*
 * Room for @max rows, and their tables when @tables. Charged to the
 * reader's memory cgroup (TSA_READER_GFP).
 */
static struct tsa_all *tsa_all_alloc(unsigned int max, bool tables)
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

static void tsa_all_free(struct tsa_all *all)
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

void tsa_proc_get_stats(struct tsa_proc_stats *st)
{
	st->row_bytes = sizeof(struct tsa_row);
	mutex_lock(&tsa_entries_lock);
	st->entries = tsa_nr_entries;
	st->made = tsa_nr_made;
	st->batches = tsa_nr_batches;
	st->entry_bytes = tsa_entry_bytes;
	st->resyncs = tsa_nr_resyncs;
	mutex_unlock(&tsa_entries_lock);
}

static void tsa_row_fill(struct tsa_row *r, struct task_struct *t, pid_t tid)
{
	r->tid = tid;
	r->pid = task_tgid_nr(t);
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
static bool tsa_all_process(struct tsa_all *all, struct task_struct *p)
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
		tsa_row_fill(r, t, task_pid_nr(t));
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
	tsa_row_fill(r, p, 0);
	r->flags = TSA_ROW_TOTALS;
	r->nr = exited;
	all->n++;
	return true;
}

/* --- /proc/tsa/<tid> --------------------------------------------------- */

/*
 * A thread names itself (prctl, /proc/<tid>/comm), so its name may hold a
 * newline that would end a line of ours early and forge the next one.
 * Control bytes, DEL and the backslash are written as \ooo (octal), as
 * /proc/<pid>/mountinfo does; everything else as it is.
 */
static void tsa_seq_comm(struct seq_file *m, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			seq_printf(m, "\\%03o", c);
		else
			seq_putc(m, c);
	}
}

/* @num / @den as a percentage with two decimals, e.g. 1234 for 12.34 %. */
static u64 tsa_pct100(u64 num, u64 den)
{
	return den ? mul_u64_u64_div_u64(num, 10000, den) : 0;
}

/* The state and counter rows of a thread or, with a prefix, a process. */
static void tsa_show_acct(struct seq_file *m, const char *prefix,
			  const struct tsa_acct *a)
{
	u64 elapsed = tsa_acct_elapsed(a), pct;
	int i;

	seq_printf(m, "#%sstate ns pct entries longest\n", prefix);
	for (i = 0; i < TSA_NR_STATES; i++) {
		pct = tsa_pct100(a->st[i].ns, elapsed);
		seq_printf(m, "%s%s %llu %llu.%02llu %llu %llu\n", prefix,
			   tsa_state_names[i], a->st[i].ns, pct / 100, pct % 100,
			   a->st[i].entries, a->st[i].longest);
	}
	/* Of SYS's ns, what calibrated entry and exit costs gave. */
	seq_printf(m, "%ssys_calibrated %llu\n", prefix, a->head_ns);
	seq_printf(m, "#%scounter value\n", prefix);
	for (i = 0; i < TSA_NR_COUNTERS; i++)
		seq_printf(m, "%s%s %llu\n", prefix, tsa_counter_names[i],
			   a->count[i]);
}

/* The kind of a table's lines, in the thread file and in /proc/tsa/calls. */
static const char *const tsa_table_kind[TSA_NR_TABLES] = {
	[TSA_T_CALLS] = "syscall", [TSA_T_TRAPS] = "trap",
};

/*
 * A row's name token. Calls: "read", "ia32:read", "x32:#17", "#451".
 * Traps: "softirq:NET_RX", "irq:24". Both: "other".
 */
static void tsa_seq_row_name(struct seq_file *m, int k, u16 key)
{
	const char *name;

	if (key == TSA_CALL_OTHER) {
		seq_puts(m, "other");
		return;
	}
	if (k == TSA_T_TRAPS) {
		name = tsa_softirq_name(key);
		if (name)
			seq_printf(m, "softirq:%s", name);
		else
			seq_printf(m, "irq:%u", key & ~TSA_TRAP_IRQ);
		return;
	}
	name = tsa_call_name(key);
	if (key & TSA_CALL_IA32)
		seq_puts(m, "ia32:");
	else if (key & TSA_CALL_X32)
		seq_puts(m, "x32:");
	if (name)
		seq_puts(m, name);
	else
		seq_printf(m, "#%u", key & TSA_CALL_NR_MASK);
}

/* The states a call's time can be in: all but USR. */
static void tsa_seq_call_states(struct seq_file *m)
{
	int s;

	for (s = TSA_SYS; s < TSA_NR_STATES; s++) {
		seq_putc(m, ' ');
		seq_puts(m, tsa_state_names[s]);
	}
}

/* A trap's time is all TRP: its rows have no state columns. */
static void tsa_seq_table_row(struct seq_file *m, const char *prefix, int k,
			      const struct tsa_calls *c,
			      const struct tsa_call_row *r, u64 elapsed)
{
	u64 pct = tsa_pct100(r->ns, elapsed);
	int s;

	if (!r->calls && !r->ns)
		return;
	seq_printf(m, "%s%s ", prefix, tsa_table_kind[k]);
	tsa_seq_row_name(m, k, r->key);
	seq_printf(m, " %llu %llu %llu.%02llu %llu", r->calls, r->ns,
		   pct / 100, pct % 100, r->longest);
	for (s = TSA_SYS; k == TSA_T_CALLS && s < TSA_NR_STATES; s++)
		seq_put_decimal_ull(m, " ", tsa_call_row_ns(c, r, s));
	seq_putc(m, '\n');
}

/* A table (sorted), most time first, then the other row. */
static void tsa_show_table(struct seq_file *m, const char *prefix, int k,
			   const struct tsa_calls *c, u64 elapsed)
{
	unsigned int i;

	if (k == TSA_T_CALLS) {
		seq_printf(m, "#%ssyscall name calls ns pct longest", prefix);
		tsa_seq_call_states(m);
		seq_putc(m, '\n');
	} else {
		seq_printf(m, "#%strap name count ns pct longest\n", prefix);
	}
	for (i = 0; i < c->rows; i++)
		tsa_seq_table_row(m, prefix, k, c, &c->row[i], elapsed);
	tsa_seq_table_row(m, prefix, k, c, &c->other, elapsed);
}

static void tsa_show_tables(struct seq_file *m, const char *prefix,
			    void *tables, u64 elapsed)
{
	int k;

	for (k = 0; tables && k < TSA_NR_TABLES; k++)
		if (tsa_table_rows(k))
			tsa_show_table(m, prefix, k, tsa_table_in(tables, k),
				       elapsed);
}

/* --- wakers ------------------------------------------------------------ */

static const char *const tsa_wk_kind_names[TSA_WK_NR_KINDS] = {
	[TSA_WK_THREAD] = "thread", [TSA_WK_HARDIRQ] = "hardirq",
	[TSA_WK_SOFTIRQ] = "softirq", [TSA_WK_NMI] = "nmi",
	[TSA_WK_TIMER] = "timer", [TSA_WK_IDLE] = "idle",
	[TSA_WK_UNSEEN] = "unseen",
};

/*
 * A waker as this reader may see it: its kind token, its tid and its
 * name (the name last: it may hold spaces). A thread is named only if
 * the task with its tid started when it did (else "exited": a reused tid
 * is another task), is in the reader's pid namespace (its tid there),
 * and the reader may read that task's own files (else "-"). An exited
 * thread's tid is given only to a reader in the initial namespace.
 * Contexts: "softirq:NET_RX", "hardirq:irq24" where the trap hooks named
 * them (interrupts=1).
 */
static void tsa_seq_waker(struct seq_file *m, u32 who, u64 start)
{
	enum tsa_wk_kind k = tsa_wk_kind(who);
	struct task_struct *t = NULL;
	char comm[TASK_COMM_LEN] = "-";
	u16 src = who & TSA_WK_SRC_MASK;
	pid_t tid = 0;

	if (k != TSA_WK_THREAD) {
		seq_puts(m, k < TSA_WK_NR_KINDS ? tsa_wk_kind_names[k] : "?");
		if (src != TSA_WK_SRC_NONE && tsa_softirq_name(src))
			seq_printf(m, ":%s", tsa_softirq_name(src));
		else if (src != TSA_WK_SRC_NONE)
			seq_printf(m, ":irq%u", src & ~TSA_TRAP_IRQ);
		seq_puts(m, " 0 -");
		return;
	}
	rcu_read_lock();
	t = pid_task(find_pid_ns(who & TSA_WK_TID_MASK, &init_pid_ns),
		     PIDTYPE_PID);
	if (t && t->start_time == start)
		tid = task_pid_nr_ns(t, task_active_pid_ns(current));
	if (tid)
		get_task_struct(t);
	rcu_read_unlock();
	if (!tid) {
		if (task_active_pid_ns(current) == &init_pid_ns)
			tid = who & TSA_WK_TID_MASK;
		seq_printf(m, "exited %d -", tid);
		return;
	}
	if (tsa_may_read(t))
		get_task_comm(comm, t);
	put_task_struct(t);
	seq_printf(m, "thread %d ", tid);
	tsa_seq_comm(m, comm);
}

/* The time off CPU (asleep or stopped) in @a that no wakeup ended. */
static u64 tsa_wakers_none(const struct tsa_acct *a)
{
	u64 ns = a->st[TSA_STP].ns - a->wk.other_ns;
	int s, i;

	for (s = TSA_TFL; s <= TSA_SLP; s++)
		ns += a->st[s].ns;
	for (i = 0; i < TSA_WAKER_ROWS; i++)
		ns -= a->wk.row[i].ns;
	return ns;
}

/*
 * One waker line's numbers: state, wakeups, ns, pct of @elapsed (in the
 * thread's file, @pct), longest, lat_ns.
 */
static void tsa_seq_waker_numbers(struct seq_file *m, int state, u64 n,
				  u64 ns, bool pct, u64 elapsed, u64 longest,
				  u64 lat)
{
	u64 p = tsa_pct100(ns, elapsed);

	seq_printf(m, " %s %llu %llu", state < 0 ? "-" :
		   tsa_state_names[state], n, ns);
	if (pct)
		seq_printf(m, " %llu.%02llu", p / 100, p % 100);
	seq_printf(m, " %llu %llu ", longest, lat);
}

/*
 * The waker lines of @a, most time first: one a waker and state, then
 * the other row, then the time off CPU no wakeup ended. Together they
 * add up to the stays off CPU but LAT. Each line begins with @lead(@m,
 * @who) and has pct (of elapsed) with @pct: the thread file's and
 * /proc/tsa/wakers' lines differ only there.
 */
static void tsa_seq_waker_lines(struct seq_file *m, const struct tsa_acct *a,
				bool pct,
				void (*lead)(struct seq_file *m,
					     const void *who),
				const void *who)
{
	u64 elapsed = tsa_acct_elapsed(a);
	struct tsa_wakers w = a->wk;
	const struct tsa_waker *r;

	tsa_wakers_sort(&w);
	for (r = w.row; r < w.row + TSA_WAKER_ROWS && r->who; r++) {
		lead(m, who);
		tsa_seq_waker_numbers(m, tsa_wk_state(r->who), r->n, r->ns,
				      pct, elapsed, r->longest, r->lat);
		tsa_seq_waker(m, tsa_wk_waker(r->who), r->start);
		seq_putc(m, '\n');
	}
	if (w.other_n) {
		lead(m, who);
		tsa_seq_waker_numbers(m, -1, w.other_n, w.other_ns, pct,
				      elapsed, w.other_longest, w.other_lat);
		seq_puts(m, "other 0 -\n");
	}
	lead(m, who);
	tsa_seq_waker_numbers(m, -1, 0, tsa_wakers_none(a), pct, elapsed, 0,
			      0);
	seq_puts(m, "none 0 -\n");
}

/* The thread file's lines begin "waker" (a process's "process-waker"). */
static void tsa_seq_waker_lead(struct seq_file *m, const void *prefix)
{
	seq_printf(m, "%swaker", (const char *)prefix);
}

/* The wakers of a thread or a process (@prefix) in the thread file. */
static void tsa_show_wakers(struct seq_file *m, const char *prefix,
			    const struct tsa_acct *a)
{
	if (!tsa_wakers_shown)
		return;
	seq_printf(m, "#%swaker state wakeups ns pct longest lat_ns kind tid name\n",
		   prefix);
	tsa_seq_waker_lines(m, a, true, tsa_seq_waker_lead, prefix);
}

/*
 * A process leader's file also shows the process: its live threads plus
 * those that exited, summed; elapsed is the sum of the threads' elapsed.
 * The leader's record @th was copied at @now already (@a, @stay and
 * @ltables): that copy counts for it.
 */
static void tsa_process_show(struct seq_file *m, struct task_struct *leader,
			     u64 now, const struct tsa_thread *th,
			     const struct tsa_acct *a, u64 stay,
			     const void *ltables)
{
	unsigned int max = 1, i, live = 0, exited = 0;
	struct task_struct *t;
	struct tsa_all *all;
	struct tsa_acct *sum;
	void *tables = NULL;
	bool ok;

	rcu_read_lock();
	for_each_thread(leader, t)
		max++;
	rcu_read_unlock();
	max += max / 4 + 8;	/* threads born meanwhile */
	all = tsa_all_alloc(max, true);
	sum = kzalloc(sizeof(*sum), TSA_READER_GFP);
	if (all && all->tables)
		tables = kmalloc(all->tables_size, TSA_READER_GFP);
	if (!all || !sum || (all->tables && !tables))
		goto out;
	all->now = now;
	all->seen = th;
	all->seen_a = a;
	all->seen_stay = stay;
	all->seen_tables = ltables;
	rcu_read_lock();
	ok = pid_alive(leader) && tsa_all_process(all, leader);
	rcu_read_unlock();
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
	}
	seq_printf(m, "#process: live threads and those that exited, summed\nprocess-threads %u %u\nprocess-elapsed %llu\n",
		   live, exited, tsa_acct_elapsed(sum));
	tsa_show_acct(m, "process-", sum);
	if (tables)
		tsa_tables_sort(tables);
	tsa_show_tables(m, "process-", tables, tsa_acct_elapsed(sum));
	tsa_show_wakers(m, "process-", sum);
out:
	kfree(tables);
	kfree(sum);
	tsa_all_free(all);
}

static int tsa_thread_show(struct seq_file *m, void *v)
{
	struct task_struct *t = m->private;
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
		   task_pid_nr(t), task_tgid_nr(t));
	tsa_seq_comm(m, comm);
	seq_putc(m, '\n');
	seq_printf(m, "since %s\nstate %s %llu\nelapsed %llu\n",
		   (a.flags & TSA_F_SINCE_LOAD) ? "load" : "birth",
		   tsa_state_names[a.state], stay, tsa_acct_elapsed(&a));
	tsa_proc_show_degraded(m);
	seq_printf(m, "calibration %s\n", tsa_calib_state());
	tsa_show_acct(m, "", &a);
	tsa_show_tables(m, "", tables, tsa_acct_elapsed(&a));
	tsa_show_wakers(m, "", &a);
	if (thread_group_leader(t))
		tsa_process_show(m, t, now, th, &a, stay, tables);
out:
	up_read(&t->signal->exec_update_lock);
out_free:
	kfree(tables);
	return ret;
}

/* The files are read-only; say so clearly even to root. */
static ssize_t tsa_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	return -EINVAL;
}

static int tsa_thread_open(struct inode *inode, struct file *file)
{
	pid_t tid = (long)pde_data(inode);
	struct task_struct *t;
	int ret;

	rcu_read_lock();
	t = pid_task(find_pid_ns(tid, &init_pid_ns), PIDTYPE_PID);
	if (t && tsa_thread_find(t))
		get_task_struct(t);
	else
		t = NULL;
	rcu_read_unlock();
	if (!t)
		return -ENOENT;
	if (!tsa_may_read(t)) {
		put_task_struct(t);
		return -EACCES;
	}
	ret = single_open(file, tsa_thread_show, t);
	if (ret)
		put_task_struct(t);
	return ret;
}

static int tsa_thread_release(struct inode *inode, struct file *file)
{
	put_task_struct(((struct seq_file *)file->private_data)->private);
	return single_release(inode, file);
}

static const struct proc_ops tsa_thread_ops = {
	.proc_open = tsa_thread_open,
	.proc_read = seq_read,
	.proc_write = tsa_write,
	.proc_lseek = seq_lseek,
	.proc_release = tsa_thread_release,
};

/* --- /proc/tsa/all ----------------------------------------------------- */

/*
 * Rows for the threads this reader may see (and a totals row for each
 * process it may see), with room for some born meanwhile. The snapshot
 * is charged to the reader's memory cgroup, so what one user can hold
 * through open descriptors is bounded by its descriptor limit times the
 * threads it may see, and by its memcg limit.
 */
static unsigned int tsa_all_rows_wanted(void)
{
	struct task_struct *p, *t;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process(p) {
		n += tsa_may_read(p);
		for_each_thread(p, t)
			n += tsa_may_read(t);
	}
	rcu_read_unlock();
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
		pid = tsa_find_ge_pid(nr, &init_pid_ns);
		if (!pid) {
			rcu_read_unlock();
			break;
		}
		nr = pid_nr(pid) + 1;
		p = pid_task(pid, PIDTYPE_TGID);
		if (p)
			full = !tsa_all_process(all, p);
		rcu_read_unlock();
		cond_resched();
	}
	return full;
}

static struct tsa_all *tsa_all_collect(bool tables)
{
	unsigned int max = tsa_all_rows_wanted(), tries;
	struct tsa_all *all;
	bool full = false;

	for (tries = 0; tries < 4; tries++, max *= 2) {
		all = tsa_all_alloc(max, tables);
		if (!all)
			return ERR_PTR(-ENOMEM);
		all->now = tsa_reader_clock();
		full = tsa_all_walk(all);
		if (!full)
			return all;
		tsa_all_free(all);
		cond_resched();
	}
	return ERR_PTR(-EAGAIN);
}

static void *tsa_all_start(struct seq_file *m, loff_t *pos)
{
	struct tsa_all *all = m->private;

	if (*pos == 0)
		return SEQ_START_TOKEN;
	return *pos <= all->n ? &all->rows[*pos - 1] : NULL;
}

static void *tsa_all_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return tsa_all_start(m, pos);
}

static void tsa_all_stop(struct seq_file *m, void *v)
{
}

static int tsa_all_show(struct seq_file *m, void *v)
{
	struct tsa_all *all = m->private;
	const struct tsa_row *r = v;
	int i, j;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, TSA_ALL_FORMAT "\nnow %llu\nstates", all->now);
		for (i = 0; i < TSA_NR_STATES; i++) {
			seq_putc(m, ' ');
			seq_puts(m, tsa_state_names[i]);
		}
		seq_puts(m, "\nfields tid pid uid flags elapsed state state_ns");
		for (i = 0; i < TSA_NR_STATES; i++) {
			for (j = 0; j < 3; j++) {
				seq_putc(m, ' ');
				seq_printf(m, "%c%c%c_%s",
					   tsa_state_names[i][0] | 0x20,
					   tsa_state_names[i][1] | 0x20,
					   tsa_state_names[i][2] | 0x20,
					   j == 0 ? "ns" : j == 1 ? "n" : "max");
			}
		}
		for (i = 0; i < TSA_NR_COUNTERS; i++) {
			seq_putc(m, ' ');
			for (j = 0; tsa_counter_names[i][j]; j++)
				seq_putc(m, tsa_counter_names[i][j] | 0x20);
		}
		seq_puts(m, " at comm\n");
		return 0;
	}

	seq_put_decimal_ll(m, "", r->tid);
	seq_put_decimal_ll(m, " ", r->pid);
	seq_put_decimal_ull(m, " ", r->uid);
	seq_put_decimal_ull(m, " ", r->flags);
	seq_put_decimal_ull(m, " ", tsa_acct_elapsed(&r->a));
	seq_put_decimal_ull(m, " ", r->a.state);
	seq_put_decimal_ull(m, " ", r->stay);
	for (i = 0; i < TSA_NR_STATES; i++) {
		seq_put_decimal_ull(m, " ", r->a.st[i].ns);
		seq_put_decimal_ull(m, " ", r->a.st[i].entries);
		seq_put_decimal_ull(m, " ", r->a.st[i].longest);
	}
	for (i = 0; i < TSA_NR_COUNTERS; i++)
		seq_put_decimal_ull(m, " ", r->a.count[i]);
	seq_put_decimal_ull(m, " ", r->at);
	seq_putc(m, ' ');
	tsa_seq_comm(m, r->comm);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations tsa_all_seq_ops = {
	.start = tsa_all_start,
	.next = tsa_all_next,
	.stop = tsa_all_stop,
	.show = tsa_all_show,
};

/* The snapshot is taken at open, with the tables for that file. */
static int tsa_snapshot_open(struct file *file,
			     const struct seq_operations *ops, bool tables)
{
	struct tsa_all *all = tsa_all_collect(tables);
	int ret;

	if (IS_ERR(all))
		return PTR_ERR(all);
	ret = seq_open(file, ops);
	if (ret) {
		tsa_all_free(all);
		return ret;
	}
	((struct seq_file *)file->private_data)->private = all;
	return 0;
}

static int tsa_all_open(struct inode *inode, struct file *file)
{
	return tsa_snapshot_open(file, &tsa_all_seq_ops, false);
}

static int tsa_all_release(struct inode *inode, struct file *file)
{
	tsa_all_free(((struct seq_file *)file->private_data)->private);
	return seq_release(inode, file);
}

static const struct proc_ops tsa_all_ops = {
	.proc_open = tsa_all_open,
	.proc_read = seq_read,
	.proc_write = tsa_write,
	.proc_lseek = seq_lseek,
	.proc_release = tsa_all_release,
};

/* --- /proc/tsa/calls --------------------------------------------------- */

/* Who a line of the calls and hist files is of: tid pid uid flags elapsed at. */
static void tsa_seq_row_who(struct seq_file *m, const struct tsa_row *r)
{
	seq_put_decimal_ll(m, "", r->tid);
	seq_put_decimal_ll(m, " ", r->pid);
	seq_put_decimal_ull(m, " ", r->uid);
	seq_put_decimal_ull(m, " ", r->flags);
	seq_put_decimal_ull(m, " ", tsa_acct_elapsed(&r->a));
	seq_put_decimal_ull(m, " ", r->at);
}

/*
 * One line per table row of every thread of the snapshot: its system
 * calls, then (interrupts=1) the sources of its TRP time, whose line has
 * all its time in trp_ns.
 */
static int tsa_calls_show(struct seq_file *m, void *v)
{
	struct tsa_all *all = m->private;
	const struct tsa_row *r = v;
	const struct tsa_call_row *cr;
	const struct tsa_calls *c;
	unsigned int i;
	int k, s;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, TSA_CALLS_FORMAT "\nnow %llu\nrows %u %u\nstates",
			   all->now, tsa_table_rows(TSA_T_CALLS),
			   tsa_table_rows(TSA_T_TRAPS));
		tsa_seq_call_states(m);
		seq_puts(m, "\nfields tid pid uid flags elapsed at kind name calls ns max");
		for (s = TSA_SYS; s < TSA_NR_STATES; s++)
			seq_printf(m, " %c%c%c_ns", tsa_state_names[s][0] | 0x20,
				   tsa_state_names[s][1] | 0x20,
				   tsa_state_names[s][2] | 0x20);
		seq_putc(m, '\n');
		return 0;
	}
	for (k = 0; k < TSA_NR_TABLES; k++) {
		if (!all->tables || !tsa_table_rows(k))
			continue;
		c = tsa_table_in(tsa_all_tables(all, r - all->rows), k);
		for (i = 0; i <= c->rows; i++) {
			cr = i < c->rows ? &c->row[i] : &c->other;
			if (!cr->calls && !cr->ns)
				continue;
			tsa_seq_row_who(m, r);
			seq_printf(m, " %s ", tsa_table_kind[k]);
			tsa_seq_row_name(m, k, cr->key);
			seq_put_decimal_ull(m, " ", cr->calls);
			seq_put_decimal_ull(m, " ", cr->ns);
			seq_put_decimal_ull(m, " ", cr->longest);
			for (s = TSA_SYS; s < TSA_NR_STATES; s++)
				seq_put_decimal_ull(m, " ",
						    tsa_call_row_ns(c, cr, s));
			seq_putc(m, '\n');
		}
	}
	return 0;
}

static const struct seq_operations tsa_calls_seq_ops = {
	.start = tsa_all_start,
	.next = tsa_all_next,
	.stop = tsa_all_stop,
	.show = tsa_calls_show,
};

static int tsa_calls_open(struct inode *inode, struct file *file)
{
	return tsa_snapshot_open(file, &tsa_calls_seq_ops, true);
}

static const struct proc_ops tsa_calls_ops = {
	.proc_open = tsa_calls_open,
	.proc_read = seq_read,
	.proc_write = tsa_write,
	.proc_lseek = seq_lseek,
	.proc_release = tsa_all_release,
};

/* --- /proc/tsa/wakers -------------------------------------------------- */

/*
 * One line per waker row of every thread of the snapshot (and of each
 * process's exited threads, tid 0), then the other row and the time off
 * CPU no wakeup ended ("none"): a thread's lines add up to its time
 * asleep and stopped.
 */
/* /proc/tsa/wakers' lines begin with their thread's columns. */
static void tsa_seq_row_lead(struct seq_file *m, const void *row)
{
	tsa_seq_row_who(m, row);
}

static int tsa_wakers_show(struct seq_file *m, void *v)
{
	struct tsa_all *all = m->private;
	const struct tsa_row *r = v;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, TSA_WAKERS_FORMAT "\nnow %llu\nrows %u\nfields tid pid uid flags elapsed at state wakeups ns max lat_ns kind waker_tid name\n",
			   all->now, TSA_WAKER_ROWS);
		return 0;
	}
	tsa_seq_waker_lines(m, &r->a, false, tsa_seq_row_lead, r);
	return 0;
}

static const struct seq_operations tsa_wakers_seq_ops = {
	.start = tsa_all_start,
	.next = tsa_all_next,
	.stop = tsa_all_stop,
	.show = tsa_wakers_show,
};

static int tsa_wakers_open(struct inode *inode, struct file *file)
{
	return tsa_snapshot_open(file, &tsa_wakers_seq_ops, false);
}

static const struct proc_ops tsa_wakers_ops = {
	.proc_open = tsa_wakers_open,
	.proc_read = seq_read,
	.proc_write = tsa_write,
	.proc_lseek = seq_lseek,
	.proc_release = tsa_all_release,
};

/* --- /proc/tsa/hist ---------------------------------------------------- */

/*
 * The lines "syscall:NAME" of a calls table with buckets: per row, its
 * calls, time and longest (no time it ended: 0), whether the call in
 * progress is its (open, in no bucket yet; its time so far is not
 * given: 0), and the counts of its calls by duration.
 */
static void tsa_hist_show_calls(struct seq_file *m, const struct tsa_row *r,
				const struct tsa_calls *c)
{
	const struct tsa_call_row *cr;
	const u64 *bk;
	unsigned int i;
	int b;

	for (i = 0; i <= c->rows; i++) {
		cr = i < c->rows ? &c->row[i] : &c->other;
		if (!cr->calls)
			continue;
		bk = tsa_calls_b(c, cr);
		tsa_seq_row_who(m, r);
		seq_puts(m, " syscall:");
		tsa_seq_row_name(m, TSA_T_CALLS, cr->key);
		seq_put_decimal_ull(m, " ", cr->calls);
		seq_put_decimal_ull(m, " ", cr->ns);
		seq_put_decimal_ull(m, " ", cr->longest);
		seq_puts(m, " 0");
		seq_put_decimal_ull(m, " ", c->cur_key == cr->key);
		seq_puts(m, " 0");
		for (b = 0; b < TSA_HIST_BUCKETS; b++)
			seq_put_decimal_ull(m, " ", bk[b]);
		seq_putc(m, '\n');
	}
}

/*
 * One line per state each thread of the snapshot (and each process's
 * exited threads) has been in: its entries, time, longest stay and when
 * that ended, then for the states that have them whether a stay in it is
 * in progress (open, in no bucket yet) and how long so far, and the
 * counts of its ended stays by length; then one per row of its calls
 * table (docs/proc-format.md).
 */
static int tsa_hist_show(struct seq_file *m, void *v)
{
	struct tsa_all *all = m->private;
	const struct tsa_row *r = v;
	const struct tsa_stays *st;
	const struct tsa_calls *c;
	const struct tsa_hist *h;
	struct tsa_hist layout;
	void *tables;
	const u64 *n;
	bool open;
	int s, b;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, TSA_HIST_FORMAT "\nnow %llu\nbuckets %u %d\nstates",
			   all->now, TSA_HIST_BUCKETS, TSA_HIST_EXP);
		tsa_hist_layout(&layout, tsa_table_hist_mode());
		for (s = 0; s < TSA_NR_STATES; s++) {
			if (!tsa_hist_n(&layout, s))
				continue;
			seq_putc(m, ' ');
			seq_puts(m, tsa_state_names[s]);
		}
		seq_puts(m, "\nfields tid pid uid flags elapsed at state n ns max max_at open open_ns");
		for (b = 0; b < TSA_HIST_BUCKETS; b++)
			seq_printf(m, " b%d", b);
		seq_putc(m, '\n');
		return 0;
	}
	tables = tsa_all_tables(all, r - all->rows);
	h = tsa_table_hist(tables);
	if (!h)
		return 0;
	for (s = 0; s < TSA_NR_STATES; s++) {
		st = &r->a.st[s];
		if (!st->entries && !st->ns)
			continue;
		tsa_seq_row_who(m, r);
		seq_putc(m, ' ');
		seq_puts(m, tsa_state_names[s]);
		seq_put_decimal_ull(m, " ", st->entries);
		seq_put_decimal_ull(m, " ", st->ns);
		seq_put_decimal_ull(m, " ", st->longest);
		seq_put_decimal_ull(m, " ", st->longest ? h->longest_at[s] : 0);
		n = tsa_hist_n(h, s);
		if (n) {
			open = s == r->a.state && !(r->a.flags & TSA_F_DEAD);
			seq_put_decimal_ull(m, " ", open);
			seq_put_decimal_ull(m, " ",
					    open ? r->a.stamp - h->since : 0);
			for (b = 0; b < TSA_HIST_BUCKETS; b++)
				seq_put_decimal_ull(m, " ", n[b]);
		}
		seq_putc(m, '\n');
	}
	c = tsa_table_in(tables, TSA_T_CALLS);
	if (c && c->hist)
		tsa_hist_show_calls(m, r, c);
	return 0;
}

static const struct seq_operations tsa_hist_seq_ops = {
	.start = tsa_all_start,
	.next = tsa_all_next,
	.stop = tsa_all_stop,
	.show = tsa_hist_show,
};

static int tsa_hist_open(struct inode *inode, struct file *file)
{
	return tsa_snapshot_open(file, &tsa_hist_seq_ops, true);
}

static const struct proc_ops tsa_hist_ops = {
	.proc_open = tsa_hist_open,
	.proc_read = seq_read,
	.proc_write = tsa_write,
	.proc_lseek = seq_lseek,
	.proc_release = tsa_all_release,
};

/* --- /proc/tsa/calibration --------------------------------------------- */

static int tsa_calib_file_show(struct seq_file *m, void *v)
{
	tsa_calib_show(m);
	return 0;
}

static int tsa_calib_open(struct inode *inode, struct file *file)
{
	return single_open(file, tsa_calib_file_show, NULL);
}

/*
 * The whole calibration in one write (tsa-prstat --calibrate writes it):
 * bad input is refused whole, and changes nothing.
 */
static ssize_t tsa_calib_file_write(struct file *file, const char __user *buf,
				    size_t count, loff_t *ppos)
{
	char *copy;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (*ppos || count > (nr_cpu_ids + 1) * 40UL)
		return -EINVAL;
	copy = memdup_user(buf, count);
	if (IS_ERR(copy))
		return PTR_ERR(copy);
	ret = tsa_calib_write(copy, count);
	kfree(copy);
	return ret ? ret : count;
}

static const struct proc_ops tsa_calib_ops = {
	.proc_open = tsa_calib_open,
	.proc_read = seq_read,
	.proc_write = tsa_calib_file_write,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

/* --- setup ------------------------------------------------------------- */

int tsa_proc_init(bool wakers)
{
	tsa_wakers_shown = wakers;
	tsa_dir = proc_mkdir("tsa", NULL);
	if (!tsa_dir)
		return -ENOMEM;
	if (!proc_create("all", 0444, tsa_dir, &tsa_all_ops) ||
	    !proc_create("calibration", 0644, tsa_dir, &tsa_calib_ops) ||
	    ((tsa_table_rows(TSA_T_CALLS) || tsa_table_rows(TSA_T_TRAPS)) &&
	     !proc_create("calls", 0444, tsa_dir, &tsa_calls_ops)) ||
	    (tsa_table_hist_mode() != TSA_HIST_NONE &&
	     !proc_create("hist", 0444, tsa_dir, &tsa_hist_ops)) ||
	    (wakers &&
	     !proc_create("wakers", 0444, tsa_dir, &tsa_wakers_ops))) {
		proc_remove(tsa_dir);
		return -ENOMEM;
	}
	raw_spin_lock_irq(&tsa_ring_lock);
	tsa_ring_live = true;
	tsa_ring_next = jiffies;
	raw_spin_unlock_irq(&tsa_ring_lock);
	return 0;
}

/* Called after the hooks are gone: nothing queues work any more. */
void tsa_proc_exit(void)
{
	raw_spin_lock_irq(&tsa_ring_lock);
	tsa_ring_live = false;
	raw_spin_unlock_irq(&tsa_ring_lock);
	cancel_delayed_work_sync(&tsa_entries_work);
	/* Waits for readers of every entry below. */
	proc_remove(tsa_dir);
	xa_destroy(&tsa_entries);
	tsa_nr_entries = 0;
	tsa_ring_len = 0;
	tsa_ring_overflow = false;
	tsa_ring_queued = false;
}
