// SPDX-License-Identifier: GPL-2.0
/*
 * tsa microstate accounting: charging time to states. See tsa_state.h for
 * the model and the state change itself; this file and tsa_edge.h
 * (switches, wakeups and the system call edges' fast paths, inlined into
 * the probes) are the whole of it.
 */
#include <linux/minmax.h>
#include <linux/mm_types.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/futex.h>
#include <asm/unistd.h>

#include "tsa_calls.h"
#include "tsa_state.h"

static_assert(CONFIG_NR_CPUS <= S16_MAX);	/* struct tsa_acct.last_cpu */

const char *const tsa_state_names[TSA_NR_STATES] = {
#define TSA_STATE(name, what)	__stringify(name),
#include "tsa_states.h"
};

const char *const tsa_counter_names[TSA_NR_COUNTERS] = {
#define TSA_COUNTER(name, what)	__stringify(name),
#include "tsa_states.h"
};

/*
 * Empty tables @tab (a record's or a group's, laid out: max and hist set),
 * as allocation leaves them, so that a fork writes only what it must
 * (tsa_acct_init_fresh()).
 */
void tsa_tables_prepare(struct tsa_calls *const *tab)
{
	int k;

	for (k = 0; k < TSA_NR_TABLES; k++)
		if (tab[k])
			tsa_calls_reset(tab[k], tab[k]->max, tab[k]->hist,
					false);
}

/*
 * A record starts counting. Its calls table (kept across) starts empty;
 * a user thread that starts inside the kernel is inside a call.
 */
void tsa_acct_init(struct tsa_acct *a, u64 now, enum tsa_state s, u8 flags)
{
	struct tsa_calls *c = a->tab[TSA_T_CALLS], *t = a->tab[TSA_T_TRAPS];
	struct tsa_hist *h = a->hist;

	/* All but the hold, which only its owner (tsa_table.h) writes. */
	memset(a, 0, offsetof(struct tsa_acct, hold));
	memset((char *)a + offsetofend(struct tsa_acct, hold), 0,
	       sizeof(*a) - offsetofend(struct tsa_acct, hold));
	a->tab[TSA_T_CALLS] = c;
	a->tab[TSA_T_TRAPS] = t;
	a->hist = h;
	if (h)
		tsa_hist_clear(h);
	tsa_tables_prepare(a->tab);
	tsa_acct_init_fresh(a, now, s, flags);
}

/*
 * The same of a record as tsa_tables_prepare() left it, never used since:
 * the fork hook's, which need not zero its books and tables again
 * (about 1.5 KB a thread, in lines another CPU's refill wrote last).
 */
void tsa_acct_init_fresh(struct tsa_acct *a, u64 now, enum tsa_state s,
			 u8 flags)
{
	if (a->hist)
		a->hist->since = now;
	if (a->tab[TSA_T_CALLS] && (flags & TSA_F_IN_KERNEL) &&
	    !(flags & TSA_F_KTHREAD))
		a->tab[TSA_T_CALLS]->cur_key = TSA_CALL_UNKNOWN;
	a->since = now;
	a->stamp = now;
	a->state = s;
	a->flags = flags;
	a->st[s].entries = 1;
	a->call = TSA_CALL_NONE;
	a->last_cpu = TSA_NO_CPU;
}

/*
 * A provisional record (seeded at load, racing with its thread) starts
 * counting at the first event that tells for sure what the thread is
 * doing. Counters and context seen meanwhile stay.
 */
noinline void tsa_acct_settle(struct tsa_acct *a, u64 now, enum tsa_state s)
{
	u64 count[TSA_NR_COUNTERS];
	u8 keep = a->flags & ~TSA_F_PROVISIONAL, ctx = a->ctx;
	s16 cpu = a->last_cpu;

	memcpy(count, a->count, sizeof(count));
	tsa_acct_init(a, now, s, keep);
	memcpy(a->count, count, sizeof(count));
	a->last_cpu = cpu;
	a->ctx = ctx;
}

atomic64_t tsa_acct_fast_clamps = ATOMIC64_INIT(0);

bool tsa_acct_enter(struct tsa_acct *a, u64 now, enum tsa_state s)
{
	return __tsa_acct_enter(a, now, s);
}

/*
 * The thread enters call @call (one still open is closed first): its key
 * waits in the record, as the fast entry leaves it (tsa_acct_calls()).
 */
static void tsa_acct_call_begin(struct tsa_acct *a, u16 call)
{
	struct tsa_calls *c = tsa_acct_calls(a);

	if (c && unlikely(tsa_calls_in_call(c))) {
		tsa_calls_fold(c, true, NULL);
		c->cur_key = TSA_CALL_NONE;
	}
	a->call = call;
}

/*
 * A call begins before its sys_enter, or without one: the kernel's entry
 * work (a tracer, seccomp) runs before that tracepoint and may skip it.
 * @early: at a tracer's syscall-entry stop, where the thread is about to
 * sleep (its sys_enter may follow, and then counts nothing again); else
 * at the return of a call whose entry no hook saw. A user thread only,
 * and only outside a call.
 */
void tsa_acct_sys_enter_unseen(struct tsa_acct *a, u16 call, bool early)
{
	if (a->flags & (TSA_F_IN_KERNEL | TSA_F_KTHREAD | TSA_F_PROVISIONAL |
			TSA_F_DEAD))
		return;
	a->count[TSA_SCL]++;
	a->flags |= TSA_F_IN_KERNEL | (early ? TSA_F_CALL_EARLY : 0);
	tsa_acct_call_begin(a, call);
}

/* sys_enter of a call entered at a tracer's stop: renamed, not counted. */
static noinline bool tsa_acct_sys_enter_late(struct tsa_acct *a, u64 now,
					     u16 call)
{
	struct tsa_calls *c = tsa_acct_calls(a);

	a->flags &= ~TSA_F_CALL_EARLY;
	/*
	 * The tracer may have changed the number; -1 (no call: skip it)
	 * leaves the call the stop began.
	 */
	if (c && tsa_calls_in_call(c) && call < TSA_CALL_OTHER)
		c->cur_key = call;
	else if (!c && call < TSA_CALL_OTHER)
		a->call = call;
	return a->state == TSA_SYS ? false : __tsa_acct_enter(a, now, TSA_SYS);
}

/* @call: the call's key (tsa_call_key()), for the calls table. */
bool tsa_acct_sys_enter(struct tsa_acct *a, u64 now, u16 call)
{
	bool clamped = false;

	if (unlikely(a->flags & TSA_F_CALL_EARLY))
		return tsa_acct_sys_enter_late(a, now, call);
	/* No system call is made from inside a fault. */
	if (unlikely(a->ctx & (TSA_C_FAULT | TSA_C_RETRY)) &&
	    !(a->flags & TSA_F_IN_KERNEL))
		a->ctx &= ~(TSA_C_FAULT | TSA_C_SWAP | TSA_C_RETRY);
	a->count[TSA_SCL]++;
	/*
	 * The hottest path of all: the state change inlined. In SYS since
	 * user_exit, the entry code's time is charged here: not the call's.
	 */
	if (a->state == TSA_USR ||
	    (a->flags & (TSA_F_PROVISIONAL | TSA_F_EDGE)))
		clamped = __tsa_acct_enter(a, now, TSA_SYS);
	a->flags |= TSA_F_IN_KERNEL;
	tsa_acct_call_begin(a, call);
	return clamped;
}

/*
 * A system call returns at @now. @call names the call if it was entered
 * before tracking began; @sig: it handed the thread a signal
 * (tsa_syscall_took_signal()). The call's row takes its time so far and
 * its last stay.
 */
bool tsa_acct_sys_exit(struct tsa_acct *a, u64 now, u16 call, bool sig)
{
	struct tsa_call_row *row = NULL, *counted = NULL;
	struct tsa_calls *c;
	u64 stamp, ns = 0;
	bool clamped = false;

	/* Seccomp or a tracer refused a call before its sys_enter. */
	if (unlikely(!(a->flags & TSA_F_IN_KERNEL)))
		tsa_acct_sys_enter_unseen(a, call, false);
	a->flags &= ~(TSA_F_IN_KERNEL | TSA_F_CALL_EARLY);
	a->count[TSA_SIG] += sig;
	c = tsa_acct_calls(a);
	a->call = TSA_CALL_NONE;
	if (c) {
		row = tsa_calls_end(c, call, &ns);
		/* A provisional record's tables start again when it settles. */
		if (!(a->flags & TSA_F_PROVISIONAL))
			counted = row;
		/* No stay of the call to close: nothing more for its row. */
		if (a->state != TSA_SYS ||
		    (a->flags & (TSA_F_DEAD | TSA_F_PROVISIONAL)))
			row = NULL;
	}
	stamp = a->stamp;
	/*
	 * With the boundary traced, user mode starts at user_enter; the
	 * call's time is charged here all the same.
	 */
	if (a->state == TSA_SYS || (a->flags & TSA_F_PROVISIONAL))
		clamped = __tsa_acct_enter(a, now, (a->flags & TSA_F_EDGE) ?
					   TSA_SYS : TSA_USR);
	if (row) {
		tsa_calls_add_sys(c, row, ns, a->stamp - stamp);
		ns += a->stamp - stamp;
	}
	if (counted)
		tsa_calls_count_b(c, counted, ns);
	return clamped;
}

/*
 * do_exit() has begun. It unlinks the thread from its process (in
 * exit_notify()) before the thread's last switch-out, so a reader walking
 * the process would lose it for that long: its numbers so far go into
 * @sum (the process's exited totals) now, and the record goes on with the
 * tail alone, which its last switch-out adds. A stay that spans the two is
 * counted once, its longest in two parts.
 */
bool tsa_acct_exit_begin(struct tsa_acct *a, u64 now, struct tsa_acct *sum,
			 struct tsa_calls *const *sum_tab,
			 struct tsa_hist *sum_hist)
{
	bool clamped;
	int k;

	if (a->flags & TSA_F_NOT_LIVE)
		return false;
	clamped = tsa_acct_charge(a, now);
	if (a->hist) {
		u64 since = a->hist->since;

		if (sum_hist)
			tsa_hist_merge(sum_hist, sum->st, a->hist, a->st);
		tsa_hist_clear(a->hist);
		a->hist->since = since;
	}
	tsa_acct_add(sum, a);
	/* The call it exits in (exit_group) counts here; its tail later. */
	for (k = 0; k < TSA_NR_TABLES; k++) {
		if (!a->tab[k])
			continue;
		tsa_calls_fold(a->tab[k], true, NULL);
		if (sum_tab && sum_tab[k])
			tsa_calls_merge(sum_tab[k], a->tab[k]);
		tsa_calls_clear_rows(a->tab[k]);
	}
	memset(a->st, 0, sizeof(a->st));
	memset(a->count, 0, sizeof(a->count));
	memset(&a->wk, 0, sizeof(a->wk));
	a->clamps = 0;
	a->head_ns = 0;
	a->since = a->stamp;
	a->flags |= TSA_F_EXITING;
	return clamped;
}

/* The last switch-out of a dead thread: its numbers freeze. */
bool tsa_acct_exit(struct tsa_acct *a, u64 now)
{
	bool clamped;
	int k;

	if (a->flags & (TSA_F_DEAD | TSA_F_PROVISIONAL)) {
		a->flags |= TSA_F_DEAD;
		return false;
	}
	a->count[TSA_VCX]++;
	clamped = tsa_acct_charge(a, now);
	for (k = 0; k < TSA_NR_TABLES; k++)
		if (a->tab[k])
			tsa_calls_fold(a->tab[k], !(a->flags & TSA_F_EXITING), NULL);
	a->flags |= TSA_F_DEAD;
	return clamped;
}

/*
 * Page faults. The on-CPU time of a fault handler is SYS, as on Solaris;
 * the fault only names the sleeps inside it (TFL, DFL, KFL, APG). @saved
 * keeps the context of an interrupted outer fault for the matching exit.
 */
bool tsa_acct_fault_enter(struct tsa_acct *a, u64 now, u8 kind, u8 *saved)
{
	/*
	 * Only a fault taken in kernel mode can be inside another; a
	 * retry's entry is the same fault's. Fault bits left by a return
	 * never written (tsa_acct_fault_stale()) are dropped here.
	 */
	*saved = kind == TSA_C_FAULT_KERN && !(a->ctx & TSA_C_RETRY) ?
		a->ctx & (TSA_C_FAULT | TSA_C_SWAP) : 0;
	a->ctx = (a->ctx & ~(TSA_C_FAULT | TSA_C_SWAP | TSA_C_RETRY)) | kind;
	if (a->state != TSA_USR && !(a->flags & TSA_F_PROVISIONAL))
		return false;
	return tsa_acct_enter(a, now, TSA_SYS);
}

/*
 * Faults are counted as the kernel counts them (mm_account_fault()): not
 * when they fail or will be retried; major when they did I/O or were
 * retried before. A retried fault stays in the kernel, so stays SYS, and
 * a user fault stays in its context (TSA_C_RETRY) until the retry: a
 * sleep for mmap_lock on the way is the fault's, and a switch back in is
 * SYS. A failed user fault returns to user mode (into a SIGSEGV or SIGBUS
 * handler, or to fault again after an OOM kill elsewhere): USR.
 */
bool tsa_acct_fault_exit(struct tsa_acct *a, u64 now, u8 saved,
			 unsigned int fault_flags, unsigned int ret)
{
	if ((ret & VM_FAULT_RETRY) && (a->ctx & TSA_C_FAULT) &&
	    (a->ctx & TSA_C_FAULT) != TSA_C_FAULT_KERN) {
		a->ctx = (a->ctx & ~TSA_C_SWAP) | TSA_C_RETRY;
		return false;
	}
	a->ctx = (a->ctx & ~(TSA_C_FAULT | TSA_C_SWAP)) | saved;
	if (ret & VM_FAULT_RETRY)
		return false;
	if (!(ret & VM_FAULT_ERROR)) {
		if ((ret & VM_FAULT_MAJOR) || (fault_flags & FAULT_FLAG_TRIED))
			a->count[TSA_MAJF]++;
		else
			a->count[TSA_MINF]++;
	}
	if (a->state != TSA_SYS ||
	    (a->flags & (TSA_F_IN_KERNEL | TSA_F_EDGE)) ||
	    (saved & TSA_C_FAULT))
		return false;
	return tsa_acct_enter(a, now, TSA_USR);
}

/*
 * A user fault that returned to be retried goes back to user mode
 * instead (a signal to deliver first, a fatal one, or a system call seen
 * next): it has left the fault.
 */
bool tsa_acct_fault_abandon(struct tsa_acct *a, u64 now)
{
	if (!(a->ctx & TSA_C_RETRY))
		return false;
	a->ctx &= ~(TSA_C_FAULT | TSA_C_SWAP | TSA_C_RETRY);
	if (a->state != TSA_SYS ||
	    (a->flags & (TSA_F_IN_KERNEL | TSA_F_EDGE | TSA_F_PROVISIONAL)))
		return false;
	return tsa_acct_enter(a, now, TSA_USR);
}

/*
 * A thread execs. A usermode helper (before 5.19, forked from a kernel
 * thread) stops being a kernel thread here: from now on its system calls
 * are a user thread's, those refused before sys_enter included.
 */
void tsa_acct_exec(struct tsa_acct *a, bool kthread)
{
	if (!kthread)
		a->flags &= ~TSA_F_KTHREAD;
}

/*
 * Context tracking's user_exit and user_enter (on nohz_full CPUs) fire at
 * the user/kernel boundary itself: in enter_from_user_mode() on every
 * syscall, exception and interrupt from user mode, and in
 * exit_to_user_mode(). Between them all is kernel time, the entry and
 * exit code included, which sys_enter and sys_exit fire too late and too
 * early to see (and, without a trap hook, interrupt time too).
 */
bool tsa_acct_user_exit(struct tsa_acct *a, u64 now)
{
	a->flags |= TSA_F_EDGE;
	if (a->state != TSA_USR && !(a->flags & TSA_F_PROVISIONAL))
		return false;
	return tsa_acct_enter(a, now, TSA_SYS);
}

/* Back to user mode: any syscall or fault it was in has been left. */
bool tsa_acct_user_enter(struct tsa_acct *a, u64 now)
{
	a->flags &= ~TSA_F_EDGE;
	if (unlikely(a->ctx & TSA_C_RETRY))
		a->ctx &= ~(TSA_C_FAULT | TSA_C_SWAP | TSA_C_RETRY);
	if ((a->state != TSA_SYS || (a->flags & TSA_F_IN_KERNEL) ||
	     (a->ctx & TSA_C_FAULT)) && !(a->flags & TSA_F_PROVISIONAL))
		return false;
	return tsa_acct_enter(a, now, TSA_USR);
}

/*
 * Interrupts (hard and soft) that arrive while the thread is on CPU are
 * TRP; the state they interrupted resumes when they end.
 */
bool tsa_acct_trap_enter(struct tsa_acct *a, u64 now, u16 source)
{
	bool clamped;

	if (!tsa_state_on_cpu(a->state) || a->state == TSA_TRP ||
	    (a->flags & TSA_F_PROVISIONAL))
		return false;
	a->trp_from = a->state;
	clamped = tsa_acct_enter(a, now, TSA_TRP);
	if (a->tab[TSA_T_TRAPS])
		tsa_calls_begin(a->tab[TSA_T_TRAPS], source);
	return clamped;
}

bool tsa_acct_trap_exit(struct tsa_acct *a, u64 now)
{
	bool clamped;
	u64 ns;

	if (a->state != TSA_TRP)
		return false;
	clamped = tsa_acct_enter(a, now, a->trp_from);
	if (a->tab[TSA_T_TRAPS])
		tsa_calls_end(a->tab[TSA_T_TRAPS], TSA_CALL_OTHER, &ns);
	return clamped;
}

/*
 * A trap inside a trap (a hard interrupt in a softirq), or back to the
 * outer one: the TRP time so far goes to the source that had it (as a
 * trap of its own when @count: the inner one ended), then @source has it.
 * The state stays TRP: one stay for the thread, split for the sources.
 */
bool tsa_acct_trap_nest(struct tsa_acct *a, u64 now, u16 source, bool count)
{
	struct tsa_calls *t = a->tab[TSA_T_TRAPS];
	bool clamped;

	if (a->state != TSA_TRP || !t || !tsa_calls_in_call(t))
		return false;
	clamped = tsa_acct_charge(a, now);
	tsa_calls_fold(t, count, NULL);
	t->cur_key = source;
	return clamped;
}

/*
 * PREEMPT_RT runs softirqs and threaded interrupt handlers in task
 * context, where they can be preempted or sleep. A thread that switches
 * out inside a trap leaves it while it is off CPU: call this after its
 * switch-out. Its trap's time so far goes to the source's row, not as a
 * trap of its own; the time off CPU is not the trap's. At its switch-in,
 * tsa_acct_trap_enter() puts it back in the trap: the call is not open,
 * so the source's row counts the trap once, when it ends.
 */
void tsa_acct_trap_suspend(struct tsa_acct *a)
{
	struct tsa_calls *t = a->tab[TSA_T_TRAPS];

	if (!t || !tsa_calls_in_call(t))
		return;
	tsa_calls_fold(t, false, NULL);
	t->cur_key = TSA_CALL_NONE;
}

/*
 * A copy of @a as seen at @now: the current stay is charged up to @now, so
 * the copy's states sum to its elapsed time. A reader's clock may lag the
 * CPU that wrote the record; that is not a step of the thread's clock, so
 * it is clamped without being counted. Returns how long the thread has
 * been in its current state.
 */
u64 tsa_acct_snapshot(const struct tsa_acct *a, u64 now, struct tsa_acct *out)
{
	*out = *a;
	/* A copy charges nothing to the record's tables. */
	memset(out->tab, 0, sizeof(out->tab));
	out->hist = NULL;
	if (a->flags & TSA_F_DEAD)
		return 0;
	now = max(now, a->stamp);
	tsa_acct_charge(out, now);
	return now - a->stamp;
}

/*
 * A copy @c of @a's table @k as seen at @now, @a being the copy of the
 * record taken with it: the call in progress counts, up to @now, as a
 * call of its own, in no bucket (c->cur_key: its row's key); rows sorted
 * by time.
 */
void tsa_acct_table_snapshot(const struct tsa_acct *a, unsigned int k,
			     u64 now, struct tsa_calls *c)
{
	bool count = !(a->flags & TSA_F_EXITING);
	struct tsa_call_row *r;

	/* Its key still in the record: it has only been on CPU. */
	if (k == TSA_T_CALLS && a->call != TSA_CALL_NONE)
		c->cur_key = a->call;

	if (!(a->flags & TSA_F_DEAD) && tsa_calls_in_call(c))
		tsa_calls_charge(c, a->state, max(now, a->stamp) - a->stamp);
	/* Counted, but in no bucket until it returns: the row's open call. */
	r = __tsa_calls_fold(c, count, NULL);
	c->cur_key = r && count ? r->key : TSA_CALL_NONE;
	tsa_calls_sort(c);
}

/*
 * A copy @h of @a's distributions as seen by the snapshot @out taken of
 * @a: the stay in progress is in no bucket yet (it is open, from
 * h->since), but if it is now its state's longest, it ended at the
 * snapshot's clock.
 */
void tsa_acct_hist_snapshot(const struct tsa_acct *a,
			    const struct tsa_acct *out, struct tsa_hist *h)
{
	unsigned int s = a->state;

	if (!(a->flags & TSA_F_DEAD) &&
	    out->st[s].longest != a->st[s].longest)
		h->longest_at[s] = out->stamp;
}

/*
 * Add the distributions @from into @to; @to_st and @from_st are the books
 * they go with, before the books are added (tsa_acct_add()): a longest
 * stay's end goes with the longer.
 */
void tsa_hist_merge(struct tsa_hist *to, const struct tsa_stays *to_st,
		    const struct tsa_hist *from,
		    const struct tsa_stays *from_st)
{
	int s, b;

	for (s = 0; s < TSA_NR_STATES; s++)
		if (from_st[s].longest > to_st[s].longest)
			to->longest_at[s] = from->longest_at[s];
	/*
	 * Both are laid out alike (tsa_table.c). A stay is counted when it
	 * ends, so a state never entered has none; nor has one entered
	 * only before an exit's hand-over (tsa_acct_exit_begin()), which
	 * the thread makes running, in a state without buckets.
	 */
	for (s = 0; s < min(to->states, from->states); s++) {
		if (!from_st[from->first + s].entries)
			continue;
		for (b = 0; b < TSA_HIST_BUCKETS; b++)
			to->n[s][b] += from->n[s][b];
	}
}

u64 tsa_acct_elapsed(const struct tsa_acct *a)
{
	return a->stamp - a->since;
}

/* Accumulate a snapshot into process totals. */
void tsa_acct_add(struct tsa_acct *sum, const struct tsa_acct *a)
{
	int i;

	for (i = 0; i < TSA_NR_STATES; i++) {
		sum->st[i].ns += a->st[i].ns;
		sum->st[i].entries += a->st[i].entries;
		sum->st[i].longest = max(sum->st[i].longest, a->st[i].longest);
	}
	for (i = 0; i < TSA_NR_COUNTERS; i++)
		sum->count[i] += a->count[i];
	sum->clamps += a->clamps;
	sum->head_ns += a->head_ns;
	tsa_wakers_merge(&sum->wk, &a->wk);
	/* Totals keep elapsed as the sum of their threads' elapsed. */
	sum->stamp += tsa_acct_elapsed(a);
}

/*
 * The idle table: system calls in which a sleeping thread is waiting for
 * work rather than for a resource, and the user-lock calls. Documented
 * in docs/proc-format.md and tsa(4); change them together. Indexed by
 * system call number (every sleep looks its call up): unlisted numbers
 * are 0, TSA_W_NONE.
 */
static const u8 tsa_wait_table[] = {
#ifdef __NR_poll
	[__NR_poll] = TSA_W_IDLE,
#endif
#ifdef __NR_select
	[__NR_select] = TSA_W_IDLE,
#endif
#ifdef __NR_pause
	[__NR_pause] = TSA_W_IDLE,
#endif
#ifdef __NR_epoll_wait
	[__NR_epoll_wait] = TSA_W_IDLE,
#endif
	[__NR_pselect6] = TSA_W_IDLE,
	[__NR_ppoll] = TSA_W_IDLE,
	[__NR_epoll_pwait] = TSA_W_IDLE,
#ifdef __NR_epoll_pwait2	/* 5.11 */
	[__NR_epoll_pwait2] = TSA_W_IDLE,
#endif
	[__NR_accept] = TSA_W_IDLE,
	[__NR_accept4] = TSA_W_IDLE,
	[__NR_rt_sigsuspend] = TSA_W_IDLE,
	[__NR_rt_sigtimedwait] = TSA_W_IDLE,
	[__NR_read] = TSA_W_IDLE_IF_STREAM,
	[__NR_readv] = TSA_W_IDLE_IF_STREAM,
	[__NR_recvfrom] = TSA_W_IDLE_IF_STREAM,
	[__NR_recvmsg] = TSA_W_IDLE_IF_STREAM,
	[__NR_recvmmsg] = TSA_W_IDLE_IF_STREAM,
#ifdef __NR_futex_waitv	/* 5.16 */
	[__NR_futex_waitv] = TSA_W_FUTEX,
#endif
};

/* 32-bit tasks on a 64-bit kernel use other numbers. */
#ifdef CONFIG_IA32_EMULATION
#include <asm/unistd_32_ia32.h>
static const u8 tsa_wait_table_ia32[] = {
	[__NR_ia32_poll] = TSA_W_IDLE,
	[__NR_ia32_select] = TSA_W_IDLE,
	[__NR_ia32__newselect] = TSA_W_IDLE,
	[__NR_ia32_pselect6] = TSA_W_IDLE,
	[__NR_ia32_pselect6_time64] = TSA_W_IDLE,
	[__NR_ia32_ppoll] = TSA_W_IDLE,
	[__NR_ia32_ppoll_time64] = TSA_W_IDLE,
	[__NR_ia32_epoll_wait] = TSA_W_IDLE,
	[__NR_ia32_epoll_pwait] = TSA_W_IDLE,
#ifdef __NR_ia32_epoll_pwait2	/* 5.11 */
	[__NR_ia32_epoll_pwait2] = TSA_W_IDLE,
#endif
	[__NR_ia32_accept4] = TSA_W_IDLE,
	[__NR_ia32_pause] = TSA_W_IDLE,
	[__NR_ia32_rt_sigsuspend] = TSA_W_IDLE,
	[__NR_ia32_rt_sigtimedwait] = TSA_W_IDLE,
	[__NR_ia32_rt_sigtimedwait_time64] = TSA_W_IDLE,
	[__NR_ia32_read] = TSA_W_IDLE_IF_STREAM,
	[__NR_ia32_readv] = TSA_W_IDLE_IF_STREAM,
	[__NR_ia32_recvfrom] = TSA_W_IDLE_IF_STREAM,
	[__NR_ia32_recvmsg] = TSA_W_IDLE_IF_STREAM,
	[__NR_ia32_recvmmsg] = TSA_W_IDLE_IF_STREAM,
	[__NR_ia32_recvmmsg_time64] = TSA_W_IDLE_IF_STREAM,
#ifdef __NR_ia32_futex_waitv	/* 5.16 */
	[__NR_ia32_futex_waitv] = TSA_W_FUTEX,
#endif
};
#define TSA_NR_FUTEX_IA32	__NR_ia32_futex
#define TSA_NR_FUTEX_TIME64_IA32 __NR_ia32_futex_time64
#endif

/* futex operations that wait: a user lock or condition (LCK). */
static bool tsa_futex_waits(unsigned long op)
{
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
	case FUTEX_WAIT_REQUEUE_PI:
	case FUTEX_LOCK_PI:
#ifdef FUTEX_LOCK_PI2	/* 5.14 */
	case FUTEX_LOCK_PI2:
#endif
		return true;
	}
	return false;
}

static enum tsa_wait tsa_wait_lookup(const u8 *t, long n, long nr)
{
	return nr < n ? t[nr] : TSA_W_NONE;
}

/* @arg1 is the syscall's second argument (the futex op). */
enum tsa_wait tsa_syscall_wait(long nr, bool compat, unsigned long arg1)
{
	if (nr < 0)
		return TSA_W_NONE;
	/* A compat call's number is not the 64-bit table's (arm64: no table). */
	if (compat) {
#ifdef CONFIG_IA32_EMULATION
		if (nr == TSA_NR_FUTEX_IA32 || nr == TSA_NR_FUTEX_TIME64_IA32)
			return tsa_futex_waits(arg1) ? TSA_W_FUTEX : TSA_W_NONE;
		return tsa_wait_lookup(tsa_wait_table_ia32,
				       ARRAY_SIZE(tsa_wait_table_ia32), nr);
#else
		return TSA_W_NONE;
#endif
	}
	if (nr == __NR_futex)
		return tsa_futex_waits(arg1) ? TSA_W_FUTEX : TSA_W_NONE;
	return tsa_wait_lookup(tsa_wait_table, ARRAY_SIZE(tsa_wait_table), nr);
}
