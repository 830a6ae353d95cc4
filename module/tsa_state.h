/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsa microstate accounting: the pure logic.
 *
 * Every tracked thread owns one struct tsa_acct. At any instant the thread
 * is in exactly one microstate (enum tsa_state); every event that changes
 * what the thread is doing calls one of the tsa_acct_*() functions below
 * (or of tsa_edge.h, those inlined into the probes) with the event's own
 * timestamp, and the time since the previous transition is charged to
 * the state being left (the rule of illumos new_mstate()). Nothing else
 * ever adds time, so for every thread
 *
 *	sum(ns[]) + (now - stamp) == now - since
 *
 * holds exactly; a snapshot charges the current stay up to "now" so the
 * same sum equals "elapsed" at the moment of a read.
 *
 * Timestamps come from CLOCK_MONOTONIC (tsa_clock() in tsa_compat.h).
 * Two events racing for one record may still arrive out of order; a
 * timestamp older than the last one seen is clamped to it (and counted),
 * so time never runs backwards inside a record.
 *
 * This file, tsa_state.c and tsa_edge.h know nothing of tracepoints,
 * locks or task structs: the hooks turn kernel events into plain values
 * and call in here, and KUnit drives the same functions directly. Callers serialise
 * access to one record (see tsa_table.h).
 */
#ifndef TSA_STATE_H
#define TSA_STATE_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/unistd.h>

#include "tsa_calls.h"
#include "tsa_model.h"
#include "tsa_wakers.h"

/*
 * Sleep states older kernels lack (see tsa_compat.h for the rest): before
 * 6.1 a frozen task sleeps uninterruptibly in the refrigerator, before
 * 5.15 PREEMPT_RT's spinlock waits are uninterruptible sleeps too; there
 * they are classified as such.
 */
#ifndef TASK_FROZEN
#define TASK_FROZEN		0
#endif
#ifndef TASK_RTLOCK_WAIT
#define TASK_RTLOCK_WAIT	0
#endif

/* struct tsa_acct.flags */
#define TSA_F_SINCE_LOAD	0x01	/* seeded at load, not seen born */
#define TSA_F_DEAD		0x02	/* switched out for the last time */
#define TSA_F_IN_KERNEL		0x04	/* on-CPU time is SYS, not USR */
#define TSA_F_PROVISIONAL	0x08	/* seeded, state not yet known */
#define TSA_F_EXITING		0x10	/* in do_exit(): numbers so far handed on */
#define TSA_F_KTHREAD		0x20	/* kernel thread: never in a system call */
/*
 * In the kernel on a CPU whose user/kernel boundary is traced (context
 * tracking, nohz_full): the return to user mode is seen by user_enter,
 * so on-CPU time is SYS until then, whatever the other hooks say.
 */
#define TSA_F_EDGE		0x40
/*
 * In a call entered at a tracer's syscall-entry stop: its sys_enter, if
 * the tracer lets it run, is not a new call.
 */
#define TSA_F_CALL_EARLY	0x80
/* Not a live thread for readers: its numbers are elsewhere or unknown. */
#define TSA_F_NOT_LIVE		(TSA_F_DEAD | TSA_F_PROVISIONAL | TSA_F_EXITING)

/*
 * struct tsa_acct.ctx: what the thread is inside of, as told by hooks.
 * Context does not change the state of a running thread (except that a
 * fault makes user time SYS); it decides what a sleep is charged to.
 */
#define TSA_C_FAULT_TEXT	0x01	/* user instruction fetch fault */
#define TSA_C_FAULT_DATA	0x02	/* user data fault */
#define TSA_C_FAULT_KERN	0x04	/* fault taken in kernel mode */
#define TSA_C_FAULT		0x07
#define TSA_C_SWAP		0x08	/* the fault is reading from swap */
#define TSA_C_KLOCK		0x10	/* contending a sleeping kernel lock */
/*
 * A user fault returned VM_FAULT_RETRY: it is still in the fault, which
 * the kernel retries (retaking mmap_lock first, which may sleep), and
 * keeps its kind. Cleared by the retry's entry, or where the thread is
 * seen back at the boundary without it (a signal, a system call).
 */
#define TSA_C_RETRY		0x20

#define TSA_NO_CPU		(-1)

/* The tables a record may have (tsa_calls.h): in which call, which trap. */
enum tsa_table {
	TSA_T_CALLS,		/* system calls */
	TSA_T_TRAPS,		/* interrupt sources of TRP time */
	TSA_NR_TABLES
};

/* A state's book: time in it, its longest single stay, entries into it. */
struct tsa_stays {
	u64 ns;
	u64 longest;
	u64 entries;
};

/*
 * Distributions of stays (the hist parameter): for LAT (hist=lat, the
 * default) or each state a thread waits in off CPU (hist=all: the sleeps,
 * LAT and STP), how many of its stays lasted how long, in log2 buckets
 * (tsa_model.h: bounds at powers of two of a second); and for every
 * state, when its longest stay ended. A
 * stay is counted when it ends, so that counts only grow (as a reader of
 * deltas, or a Prometheus histogram, needs): a state's buckets add up to
 * its entries, but for the stay in progress, which a reader sees as open
 * (since @since).
 */
#define TSA_HIST_FIRST		TSA_TFL
#define TSA_HIST_STATES		(TSA_NR_STATES - TSA_HIST_FIRST)

enum tsa_hist_mode {
	TSA_HIST_NONE,
	TSA_HIST_LAT,		/* LAT's buckets: the run-queue latency */
	TSA_HIST_ALL,		/* every off-CPU state's, and the calls' */
};

struct tsa_hist {
	u64 since;			/* when the stay in progress began */
	u8 first;			/* the first state with buckets */
	u8 states;			/* how many have them, in order */
	u64 longest_at[TSA_NR_STATES];	/* when st[].longest ended */
	u64 n[][TSA_HIST_BUCKETS];	/* @states rows */
};

static inline unsigned int tsa_hist_rows(enum tsa_hist_mode m)
{
	return m == TSA_HIST_ALL ? TSA_HIST_STATES : 1;
}

/* The bytes of a struct tsa_hist in mode @m (0: none). */
static inline size_t tsa_hist_size(enum tsa_hist_mode m)
{
	return m == TSA_HIST_NONE ? 0 :
		sizeof(struct tsa_hist) +
		tsa_hist_rows(m) * sizeof(u64[TSA_HIST_BUCKETS]);
}

/* Lay out @h, zeroed, for mode @m. */
static inline void tsa_hist_layout(struct tsa_hist *h, enum tsa_hist_mode m)
{
	h->first = m == TSA_HIST_ALL ? TSA_HIST_FIRST : TSA_LAT;
	h->states = tsa_hist_rows(m);
}

/* The buckets of state @s in @h, or NULL if it has none. */
static inline u64 *tsa_hist_n(const struct tsa_hist *h, unsigned int s)
{
	unsigned int i = s - h->first;	/* below first: wraps, too big */

	return i < h->states ? (u64 *)h->n[i] : NULL;
}

/*
 * A stay in @s ends at @t (the stamp it was charged up to): its bucket,
 * if @s has them, counts it, and the next stay begins. In line: a call
 * at every state change would keep its callers' values in saved
 * registers.
 */
static __always_inline void tsa_hist_stay_end(struct tsa_hist *h,
					      unsigned int s, u64 t)
{
	u64 *n = tsa_hist_n(h, s);

	if (n)
		n[tsa_hist_bucket(t - h->since)]++;
	h->since = t;
}

/* Zero @h's counts, keeping its layout. */
static inline void tsa_hist_clear(struct tsa_hist *h)
{
	h->since = 0;
	memset(h->longest_at, 0, sizeof(h->longest_at));
	memset(h->n, 0, h->states * sizeof(h->n[0]));
}

/*
 * Laid out for the hottest transitions, a system call's edges: what they
 * write (the stamp, state and flags, SCL, and the books of USR and SYS,
 * adjacent) falls in two cache lines of a record (struct tsa_thread).
 */
struct tsa_acct {
	u64 stamp;		/* when the current state was entered */
	union {
		struct {
			u8 state;	/* enum tsa_state */
			u8 flags;
			u8 ctx;		/* TSA_C_* */
			/*
			 * Not the books': nonzero while the record's own
			 * events must take its lock (tsa_table.h), written
			 * only under it and never by the accounting.
			 */
			u8 hold;
		};
		u16 state_flags;	/* state and flags: TSA_STATE_FLAGS() */
		u32 word;		/* all four: TSA_ACCT_WORD() */
	};
	u16 call;		/* the open call's key: tsa_acct_calls() */
	u16 head;		/* of this USR stay, SYS's: tsa_calib.h */
	u64 count[TSA_NR_COUNTERS];
	struct tsa_stays st[TSA_NR_STATES];
	u64 since;		/* birth, or when tracking started */
	u64 clamps;		/* timestamps that went backwards */
	u64 head_ns;		/* SYS time that heads gave: calibrated */
	s16 last_cpu;		/* CPU it last ran on: MIG, and tsa_cpu */
	u8 trp_from;		/* state interrupted by TRP */
	struct tsa_wakers wk;		/* who ended its stays off CPU */
	struct tsa_calls *tab[TSA_NR_TABLES];	/* or NULL (and in copies) */
	struct tsa_hist *hist;		/* or NULL (and in copies) */
};

/*
 * State @s and flags @f as one tsa_acct.state_flags; with context @c and
 * hold @h, as one tsa_acct.word.
 */
#ifdef __LITTLE_ENDIAN
#define TSA_STATE_FLAGS(s, f)	((u16)((s) | (f) << 8))
#define TSA_ACCT_WORD(s, f, c, h) \
	((u32)(s) | (u32)(f) << 8 | (u32)(c) << 16 | (u32)(h) << 24)
#else
#define TSA_STATE_FLAGS(s, f)	((u16)((s) << 8 | (f)))
#define TSA_ACCT_WORD(s, f, c, h) \
	((u32)(s) << 24 | (u32)(f) << 16 | (u32)(c) << 8 | (u32)(h))
#endif

/* Why a thread that stops running left the CPU. */
enum tsa_switch_kind {
	TSA_SW_PREEMPT,		/* preempted or yielded: involuntary */
	TSA_SW_BLOCK,		/* went to sleep: voluntary */
	TSA_SW_SIGNAL,		/* tried to sleep, a signal kept it runnable */
};

extern const char *const tsa_state_names[TSA_NR_STATES];
extern const char *const tsa_counter_names[TSA_NR_COUNTERS];

static inline bool tsa_state_on_cpu(unsigned int s)
{
	return s <= TSA_TRP;
}

void tsa_tables_prepare(struct tsa_calls *const *tab);
void tsa_acct_init(struct tsa_acct *a, u64 now, enum tsa_state s,
		   u8 flags);
void tsa_acct_init_fresh(struct tsa_acct *a, u64 now, enum tsa_state s,
			 u8 flags);
bool tsa_acct_enter(struct tsa_acct *a, u64 now, enum tsa_state s);
void tsa_acct_settle(struct tsa_acct *a, u64 now, enum tsa_state s);

/*
 * Events, named for what happened to the thread (a switch's and a
 * wakeup's, inlined into their probes, are in tsa_edge.h). Before a
 * switch-in: @edge, the CPU traces the user/kernel boundary, so
 * the thread (back in the kernel) is seen when it returns to user mode.
 */
static inline void tsa_acct_set_edge(struct tsa_acct *a, bool edge)
{
	if (edge)
		a->flags |= TSA_F_EDGE;
	else
		a->flags &= ~TSA_F_EDGE;
}

/*
 * Does a wakeup change a record in @state with @flags? Not a thread still
 * on CPU (it set its state but has not switched out) or already runnable;
 * a provisional record takes the first event it sees.
 */
static inline bool tsa_acct_wakes(u8 state, u8 flags)
{
	return (flags & TSA_F_PROVISIONAL) ||
		!(tsa_state_on_cpu(state) || state == TSA_LAT);
}

/*
 * After a return to user mode (a system call's or a fault's): the stay in
 * USR that began has @cost ns of the kernel's unseen paths at its head,
 * SYS's when it closes (tsa_acct_close()). The exact boundary (nohz_full)
 * leaves the thread in SYS here, and so takes none.
 */
static inline void tsa_acct_set_head(struct tsa_acct *a, u16 cost)
{
	if (a->state == TSA_USR)
		a->head = cost;
}
bool tsa_acct_sys_enter(struct tsa_acct *a, u64 now, u16 call);
bool tsa_acct_sys_exit(struct tsa_acct *a, u64 now, u16 call, bool sig);
void tsa_acct_sys_enter_unseen(struct tsa_acct *a, u16 call, bool early);
bool tsa_acct_user_exit(struct tsa_acct *a, u64 now);
bool tsa_acct_user_enter(struct tsa_acct *a, u64 now);
bool tsa_acct_exit_begin(struct tsa_acct *a, u64 now, struct tsa_acct *sum,
			 struct tsa_calls *const *sum_tab,
			 struct tsa_hist *sum_hist);
bool tsa_acct_exit(struct tsa_acct *a, u64 now);
bool tsa_acct_fault_enter(struct tsa_acct *a, u64 now, u8 kind, u8 *saved);
bool tsa_acct_fault_exit(struct tsa_acct *a, u64 now, u8 saved,
			 unsigned int fault_flags, unsigned int ret);
bool tsa_acct_fault_abandon(struct tsa_acct *a, u64 now);
void tsa_acct_exec(struct tsa_acct *a, bool kthread);

/* The context a fault with @fault_flags (handle_mm_fault()'s) runs in. */
static inline u8 tsa_fault_kind(unsigned int fault_flags)
{
	if (fault_flags & FAULT_FLAG_INSTRUCTION)
		return TSA_C_FAULT_TEXT;
	if (fault_flags & FAULT_FLAG_USER)
		return TSA_C_FAULT_DATA;
	return TSA_C_FAULT_KERN;
}

/*
 * Is @a in a fault it can no longer be in? A fault from user mode is
 * never inside another, and a thread entering a system call is in none:
 * fault bits seen there (without a retry's) are a fault return that
 * was never written (a return handler that could not take the record).
 */
static inline bool tsa_acct_fault_stale(const struct tsa_acct *a, u8 kind)
{
	return (a->ctx & TSA_C_FAULT) && !(a->ctx & TSA_C_RETRY) &&
		kind != TSA_C_FAULT_KERN;
}
bool tsa_acct_trap_enter(struct tsa_acct *a, u64 now, u16 source);
bool tsa_acct_trap_exit(struct tsa_acct *a, u64 now);
bool tsa_acct_trap_nest(struct tsa_acct *a, u64 now, u16 source, bool count);
void tsa_acct_trap_suspend(struct tsa_acct *a);

u64 tsa_acct_snapshot(const struct tsa_acct *a, u64 now,
		      struct tsa_acct *out);
void tsa_acct_table_snapshot(const struct tsa_acct *a, unsigned int k,
			     u64 now, struct tsa_calls *c);
void tsa_acct_hist_snapshot(const struct tsa_acct *a,
			    const struct tsa_acct *out, struct tsa_hist *h);
void tsa_hist_merge(struct tsa_hist *to, const struct tsa_stays *to_st,
		    const struct tsa_hist *from,
		    const struct tsa_stays *from_st);
u64 tsa_acct_elapsed(const struct tsa_acct *a);
void tsa_acct_add(struct tsa_acct *sum, const struct tsa_acct *a);

/* What a blocking system call is waiting for (the idle table). */
enum tsa_wait {
	TSA_W_NONE,
	TSA_W_FUTEX,		/* a user lock: LCK */
	TSA_W_IDLE,		/* waiting for work: IDL */
	TSA_W_IDLE_IF_STREAM,	/* IDL if reading a socket or pipe */
};

enum tsa_wait tsa_syscall_wait(long nr, bool compat, unsigned long arg1);

/*
 * Clocks behind a record's stamp that the fast edges clamped, all records
 * together (debugfs clock_clamps adds the hooks' own count).
 */
extern atomic64_t tsa_acct_fast_clamps;

/*
 * The calls table, with the open call's key in it. A call begins with its
 * key in the record's first line (@a->call), which its edges write anyway,
 * so that a call that stays on CPU writes no line of the table but its
 * row's (tsa_edge.h); the key moves into the table (cur_key) at the first
 * stay charged to the call, or when a general path looks at the table.
 * Without a table the key stays in the record until the call returns.
 */
static __always_inline struct tsa_calls *tsa_acct_calls(struct tsa_acct *a)
{
	struct tsa_calls *c = a->tab[TSA_T_CALLS];

	if (c && a->call != TSA_CALL_NONE) {
		c->cur_key = a->call;
		a->call = TSA_CALL_NONE;
	}
	return c;
}

/*
 * Close the stay in @s, the current state, at @now: a clock behind the
 * stamp is clamped to it, and counted: *@clamped set true for the caller
 * (which starts it false), or (@clamped NULL, the fast edges) in
 * tsa_acct_fast_clamps. Returns its length. The tables' share is the
 * caller's. Every event passes here: inline.
 */
static __always_inline u64 tsa_acct_close(struct tsa_acct *a, unsigned int s,
					  u64 now, bool *clamped)
{
	u64 stay;
	/* The subtraction's borrow is the test: no compare before it. */
	bool back = check_sub_overflow(now, a->stamp, &stay);

	if (unlikely(back)) {
		a->clamps++;
		/* In line: a call here would keep values in saved registers. */
		if (clamped)
			*clamped = true;
		else
			atomic64_inc(&tsa_acct_fast_clamps);
		now = a->stamp;
		stay = 0;
	}
	/*
	 * A user-mode stay begins with the kernel's unseen exit path: its
	 * calibrated cost, never more than the stay, is SYS (tsa_calib.h).
	 */
	if (s == TSA_USR && a->head) {
		u64 head = min_t(u64, a->head, stay);

		a->st[TSA_SYS].ns += head;
		a->head_ns += head;
		stay -= head;
		a->head = 0;
	}
	a->st[s].ns += stay;
	if (stay > a->st[s].longest) {
		a->st[s].longest = stay;
		if (a->hist)
			a->hist->longest_at[s] = now;
	}
	a->stamp = now;
	return stay;
}

/*
 * Close the current stay at @now; true when @now had to be clamped.
 * Every event passes here: inline.
 */
static __always_inline bool tsa_acct_charge(struct tsa_acct *a, u64 now)
{
	bool clamped = false;
	u64 stay = tsa_acct_close(a, a->state, now, &clamped);
	struct tsa_calls *c = tsa_acct_calls(a);

	if (c && tsa_calls_in_call(c))
		tsa_calls_charge(c, a->state, stay);
	if (unlikely(a->tab[TSA_T_TRAPS]) &&
	    tsa_calls_in_call(a->tab[TSA_T_TRAPS]))
		tsa_calls_charge(a->tab[TSA_T_TRAPS], a->state, stay);
	return clamped;
}

/*
 * The one place a state changes (illumos new_mstate()); every event
 * passes here, so the common case is kept short. Returns true when the
 * clock had to be clamped.
 */
static __always_inline bool __tsa_acct_enter(struct tsa_acct *a, u64 now,
					     enum tsa_state s)
{
	bool clamped;

	if (unlikely(a->flags & (TSA_F_DEAD | TSA_F_PROVISIONAL))) {
		if (!(a->flags & TSA_F_DEAD))
			tsa_acct_settle(a, now, s);
		return false;
	}
	clamped = tsa_acct_charge(a, now);
	if (a->state != s) {
		if (unlikely(a->hist))
			tsa_hist_stay_end(a->hist, a->state, a->stamp);
		a->state = s;
		a->st[s].entries++;
	}
	return clamped;
}

#ifdef CONFIG_IA32_EMULATION
#include <asm/unistd_32_ia32.h>
#endif

/*
 * Does call @nr, returning @ret, hand the thread a signal? sigtimedwait
 * (sigwaitinfo, sigwait) returns the number of the signal it took, which
 * is then received without being delivered to a handler: SIG counts it.
 * Every system call exit asks: inline.
 */
static inline bool tsa_syscall_took_signal(long nr, bool compat, long ret)
{
#ifdef CONFIG_IA32_EMULATION
	if (unlikely(nr == __NR_ia32_rt_sigtimedwait ||
		     nr == __NR_ia32_rt_sigtimedwait_time64))
		return compat && ret > 0;
#endif
	return unlikely(nr == __NR_rt_sigtimedwait) && !compat && ret > 0;
}

/* The facts about a thread going to sleep that decide its sleep state. */
struct tsa_block_info {
	unsigned int task_state;	/* prev_state at switch-out */
	bool frozen;			/* in the cgroup v2 freezer's trap */
	u8 ctx;				/* TSA_C_* */
	bool kthread;			/* a kernel thread or io_uring worker */
	bool iowait;			/* in io_schedule() */
	bool memstall;			/* in a PSI memory stall */
	enum tsa_wait wait;		/* resolved: never IDLE_IF_STREAM */
};

/*
 * Why is a thread that left the CPU asleep? The first rule that matches
 * wins; the order is that of docs/proc-format.md. At every sleep, in
 * the switch: inline.
 */
static __always_inline enum tsa_state
tsa_classify_sleep(struct tsa_block_info bi)
{
	unsigned int state = bi.task_state;

	/*
	 * ->frozen stays set from the freezer's trap (an interruptible
	 * sleep) or a signal stop until the task, woken, leaves the trap:
	 * a block on the way out (PREEMPT_RT: siglock) is not a stop.
	 */
	if ((state & (__TASK_STOPPED | __TASK_TRACED | TASK_FROZEN)) ||
	    (bi.frozen && (state & TASK_INTERRUPTIBLE)))
		return TSA_STP;
	/* PREEMPT_RT: a spinlock_t or rwlock_t is a sleeping kernel lock. */
	if (state & TASK_RTLOCK_WAIT)
		return TSA_KLK;
	if (bi.ctx & TSA_C_SWAP)
		return TSA_APG;
	if (bi.memstall)
		return TSA_APG;
	if (bi.ctx & TSA_C_FAULT_TEXT)
		return TSA_TFL;
	if (bi.ctx & TSA_C_FAULT_DATA)
		return TSA_DFL;
	if (bi.ctx & TSA_C_FAULT_KERN)
		return TSA_KFL;
	if (bi.ctx & TSA_C_KLOCK)
		return TSA_KLK;
	if (bi.wait == TSA_W_FUTEX)
		return TSA_LCK;
	if (bi.iowait)
		return TSA_IOW;
	if (bi.wait == TSA_W_IDLE)
		return TSA_IDL;
	/* Kernel threads waiting for work sleep interruptibly or idle. */
	if (bi.kthread && ((state & (TASK_NOLOAD | TASK_PARKED)) ||
			    (state & TASK_NORMAL) == TASK_INTERRUPTIBLE))
		return TSA_IDL;
	return TSA_SLP;
}

#endif /* TSA_STATE_H */
