// SPDX-License-Identifier: GPL-2.0
/*
 * The lines tsa's procfs files are made of: a thread's or a process's
 * states and counters, its call and trap tables, its wakers. The formats
 * are documented in docs/proc-format.md; a change that breaks a parser
 * bumps the version line of each file it touches.
 */
#include <linux/math64.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/task.h>

#include "tsa_calib.h"
#include "tsa_proc.h"
#include "tsa_proc_internal.h"

bool tsa_wakers_shown;
static u32 tsa_degraded;

void tsa_proc_set_degraded(u32 lost)
{
	WRITE_ONCE(tsa_degraded, lost);
}

u32 tsa_proc_degraded(void)
{
	return READ_ONCE(tsa_degraded);
}

/* @more: words of what else is lost (debugfs: the architecture's), or NULL. */
void tsa_proc_show_degraded(struct seq_file *m, const char *more)
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
	if (more)
		seq_printf(m, " %s", more);
	seq_puts(m, lost || more ? "\n" : " -\n");
}


/*
 * A thread names itself (prctl, /proc/<tid>/comm), so its name may hold a
 * newline that would end a line of ours early and forge the next one.
 * Control bytes, DEL and the backslash are written as \ooo (octal), as
 * /proc/<pid>/mountinfo does; everything else as it is.
 */
void tsa_seq_comm(struct seq_file *m, const char *s)
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
void tsa_show_acct(struct seq_file *m, const char *prefix,
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
const char *const tsa_table_kind[TSA_NR_TABLES] = {
	[TSA_T_CALLS] = "syscall", [TSA_T_TRAPS] = "trap",
};

/*
 * A row's name token. Calls: "read", "ia32:read", "x32:#17", "#451".
 * Traps: "softirq:NET_RX", "irq:24". Both: "other".
 */
void tsa_seq_row_name(struct seq_file *m, int k, u16 key)
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
void tsa_seq_call_states(struct seq_file *m)
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

void tsa_show_tables(struct seq_file *m, const char *prefix,
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
 * A waker as this reader may see it, through a procfs mount of pid
 * namespace @ns: its kind token, its tid and its name (the name last: it
 * may hold spaces). A thread is named only if the task with its tid is
 * the one that woke (tsa_wk_ident(); else "exited": a reused tid, or one
 * a non-leader exec gave to another thread, is another task), and
 * by its tid in @ns; one that @ns cannot see is "outside", a context like
 * an interrupt, with no tid. Its name is given only if the reader may
 * read that task's own files (else "-"). An exited thread's tid is given
 * only in the initial namespace, where tids are the ones kept. Contexts:
 * "softirq:NET_RX", "hardirq:irq24" where the trap hooks named them
 * (interrupts=1).
 */
static void tsa_seq_waker(struct seq_file *m, struct pid_namespace *ns,
			  u32 who, u64 start)
{
	enum tsa_wk_kind k = tsa_wk_kind(who);
	struct task_struct *t = NULL;
	char comm[TASK_COMM_LEN] = "-";
	u16 src = who & TSA_WK_SRC_MASK;
	bool same = false;
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
	same = t && tsa_wk_ident(t->start_time, t) == start;
	if (same)
		tid = task_pid_nr_ns(t, ns);
	if (tid)
		get_task_struct(t);
	rcu_read_unlock();
	if (same && !tid) {
		seq_puts(m, "outside 0 -");
		return;
	}
	if (!tid) {
		seq_printf(m, "exited %d -", ns == &init_pid_ns ?
			   (int)(who & TSA_WK_TID_MASK) : 0);
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
void tsa_seq_waker_lines(struct seq_file *m, struct pid_namespace *ns,
			 const struct tsa_acct *a, bool pct,
			 void (*lead)(struct seq_file *m, const void *who),
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
		tsa_seq_waker(m, ns, tsa_wk_waker(r->who), r->start);
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
void tsa_show_wakers(struct seq_file *m, struct pid_namespace *ns,
		     const char *prefix, const struct tsa_acct *a)
{
	if (!tsa_wakers_shown)
		return;
	seq_printf(m, "#%swaker state wakeups ns pct longest lat_ns kind tid name\n",
		   prefix);
	tsa_seq_waker_lines(m, ns, a, true, tsa_seq_waker_lead, prefix);
}

/* The files are read-only; say so clearly even to root. */
ssize_t tsa_write(struct file *file, const char __user *buf, size_t count,
		  loff_t *ppos)
{
	return -EINVAL;
}
