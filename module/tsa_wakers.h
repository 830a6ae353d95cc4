/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsa wakeup attribution: who ended a thread's stays off CPU.
 *
 * A wakeup that ends a stay asleep or stopped (SLP, LCK, IOW, ...) names
 * who did it: a thread, or the context it came from (a hard interrupt, a
 * softirq, an NMI, a timer's expiry). Each record keeps its top wakers,
 * a row for each pair of waker and state ended: the wakeups, the time of
 * the stays they ended, the longest of those, and the run-queue latency
 * that followed (LAT from the wakeup to the switch-in). The table is
 * bounded: a new waker takes a free row, or else the row with the least
 * time, whose numbers move to the other row; a row whose wakeups would
 * overflow moves there too and starts again. So the rows and the other
 * row hold exactly the time of the stays that wakeups ended; the rest of
 * a thread's time off CPU (the stay in progress, one that began before
 * tsa saw the thread) was ended by no wakeup.
 *
 * A thread waker is its tid (the initial namespace's) and its identity:
 * its start time mixed with its task's address (tsa_wk_ident()). A reader
 * names it only if the task with that tid has that identity now, so a
 * reused tid never names the new task, nor does a tid that changed hands
 * at a non-leader exec (de_thread() gives the leader's tid and start time
 * to the thread that execs: its address tells it from the old leader).
 *
 * Pure logic, like tsa_state.c: KUnit drives it directly.
 */
#ifndef TSA_WAKERS_H
#define TSA_WAKERS_H

#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/types.h>

/*
 * struct tsa_waker.who: bits 0-21 a thread's tid (PID_MAX_LIMIT is 2^22),
 * or with TSA_WK_CTX, the context's kind (bits 28-30) and source (bits
 * 0-15: a softirq vector, or TSA_TRAP_IRQ | the interrupt line, as the
 * traps table keys them; TSA_WK_SRC_NONE when not known); bits 24-27 the
 * state whose stay it ended. 0 is a free row: no wakeup ends a USR stay.
 */
#define TSA_WK_TID_MASK		0x003fffffu
#define TSA_WK_STATE_SHIFT	24
#define TSA_WK_STATE_MASK	(15u << TSA_WK_STATE_SHIFT)
#define TSA_WK_CTX		0x80000000u
#define TSA_WK_KIND_SHIFT	28
#define TSA_WK_SRC_MASK		0x0000ffffu
#define TSA_WK_SRC_NONE		0xffffu

enum tsa_wk_kind {
	TSA_WK_THREAD,		/* a thread (not a context) */
	TSA_WK_HARDIRQ,		/* a hard interrupt handler */
	TSA_WK_SOFTIRQ,		/* a softirq (or, PREEMPT_RT, its thread) */
	TSA_WK_NMI,		/* an NMI handler */
	TSA_WK_TIMER,		/* a timer's expiry (hrtimer or timer wheel) */
	TSA_WK_IDLE,		/* a CPU's idle task, outside interrupts */
	TSA_WK_UNSEEN,		/* a wakeup whose waker tsa did not see */
	TSA_WK_NR_KINDS
};

/*
 * The timers expiring on a CPU, one a class: a hard interrupt's (an
 * hrtimer in hardirq context) and a softirq's (the timer wheel, a soft
 * hrtimer, or on PREEMPT_RT their thread). Timers of one class never
 * nest on a CPU, but a hard one may expire inside a soft one's callback:
 * its exit must leave the soft one's mark, so that the soft callback's
 * later wakeups are still the timer's. Each mark is the context level
 * (preempt_count()'s NMI, hardirq and serving-softirq bits) the timer
 * runs at, with bit 0 set; 0 when none.
 */
struct tsa_wk_timers {
	unsigned int level[2];
};

/* A level's class: 1 for hard interrupt (or NMI) context, else 0. */
static inline unsigned int tsa_wk_timer_class(unsigned int level,
					      unsigned int hard_mask)
{
	return !!(level & hard_mask);
}

static inline void tsa_wk_timers_enter(struct tsa_wk_timers *t,
				       unsigned int level,
				       unsigned int hard_mask)
{
	t->level[tsa_wk_timer_class(level, hard_mask)] = level | 1;
}

static inline void tsa_wk_timers_leave(struct tsa_wk_timers *t,
				       unsigned int level,
				       unsigned int hard_mask)
{
	t->level[tsa_wk_timer_class(level, hard_mask)] = 0;
}

/* Is a wakeup at @level the expiring timer's (not an interrupt's in it)? */
static inline bool tsa_wk_timers_own(const struct tsa_wk_timers *t,
				     unsigned int level,
				     unsigned int hard_mask)
{
	return t->level[tsa_wk_timer_class(level, hard_mask)] == (level | 1);
}

/*
 * Who a thread waker is, beyond its tid: its start time and its task's
 * address, mixed. Only ever compared with the same mix of a task a reader
 * found by tid, never shown or used as an address.
 */
static inline u64 tsa_wk_ident(u64 start_time, const void *task)
{
	return start_time ^ (u64)(unsigned long)task;
}

static inline u32 tsa_wk_ctx(enum tsa_wk_kind kind, u16 src)
{
	return TSA_WK_CTX | (u32)kind << TSA_WK_KIND_SHIFT | src;
}

static inline enum tsa_wk_kind tsa_wk_kind(u32 who)
{
	return who & TSA_WK_CTX ? (who >> TSA_WK_KIND_SHIFT) & 7 :
		TSA_WK_THREAD;
}

static inline unsigned int tsa_wk_state(u32 who)
{
	return (who & TSA_WK_STATE_MASK) >> TSA_WK_STATE_SHIFT;
}

/* A row's waker, without the state it ended. */
static inline u32 tsa_wk_waker(u32 who)
{
	return who & ~TSA_WK_STATE_MASK;
}

/* A waker: who, without the state, and a thread's identity (else 0). */
struct tsa_waker_id {
	u32 who;
	u64 start;
};

#define TSA_WAKER_ROWS		2

/* One waker's wakeups that ended stays in one state. */
struct tsa_waker {
	u32 who;		/* waker and state; 0: free */
	u32 n;			/* wakeups */
	u64 start;		/* a thread's identity (tsa_wk_ident()) */
	u64 ns;			/* time of the stays they ended */
	u64 lat;		/* LAT from those wakeups to the CPU */
	u64 longest;		/* the longest of those stays */
};

struct tsa_wakers {
	struct tsa_waker row[TSA_WAKER_ROWS];
	u64 other_n;
	u64 other_ns;
	u64 other_lat;
	u64 other_longest;
};

void tsa_wakers_fold(struct tsa_wakers *w, struct tsa_waker *r);
unsigned int tsa_wakers_take(struct tsa_wakers *w, u32 who, u64 start);
void tsa_wakers_merge(struct tsa_wakers *to, const struct tsa_wakers *from);
void tsa_wakers_sort(struct tsa_wakers *w);

/*
 * A wakeup by @id ended a stay of @stay ns in state @s. Returns the row it
 * went to, where its LAT goes. At every wakeup that ends a stay: the
 * rows are looked at in line, a new waker's row taken out of line.
 */
static __always_inline unsigned int tsa_wakers_end(struct tsa_wakers *w,
						   struct tsa_waker_id id,
						   unsigned int s, u64 stay)
{
	u32 who = id.who | s << TSA_WK_STATE_SHIFT;
	struct tsa_waker *r;
	unsigned int i;

	if (likely(w->row[0].who == who && w->row[0].start == id.start))
		i = 0;
	else if (w->row[1].who == who && w->row[1].start == id.start)
		i = 1;
	else
		i = tsa_wakers_take(w, who, id.start);
	r = &w->row[i];
	if (unlikely(r->n == U32_MAX))
		tsa_wakers_fold(w, r);
	r->n++;
	r->ns += stay;
	if (stay > r->longest)
		r->longest = stay;
	return i;
}

/* The LAT stay @lat that followed a wakeup that went to row @i. */
static __always_inline void tsa_wakers_lat(struct tsa_wakers *w,
					   unsigned int i, u64 lat)
{
	if (likely(i < TSA_WAKER_ROWS))
		w->row[i].lat += lat;
}

#endif /* TSA_WAKERS_H */
