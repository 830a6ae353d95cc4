// SPDX-License-Identifier: GPL-2.0
/*
 * tsa hooks, wakers: who ends a thread's sleep. sched_waking runs in the
 * waker's context (try_to_wake_up(), the wakee's pi_lock held, IRQs
 * off) and names it in the wakee's record; the wakeup that follows may
 * run on the wakee's CPU, from an IPI or the idle loop (the wake list),
 * where current is not the waker, so it only reads the name
 * (tsa_wake()). The timers' expiry hooks tell a timer's wakeup from any
 * other in the same interrupt. Nothing here takes a lock or allocates.
 */
#include <linux/hardirq.h>
#include <linux/preempt.h>
#include <linux/sched.h>

#include "tsa_probes.h"

DEFINE_STATIC_KEY_FALSE(tsa_wakers_on);

/* The timers expiring on this CPU (tsa_wakers.h). */
static DEFINE_PER_CPU(struct tsa_wk_timers, tsa_wk_timers);
#define TSA_WK_HARD	(NMI_MASK | HARDIRQ_MASK)

static __always_inline unsigned int tsa_wk_level(void)
{
	return (preempt_count() & (NMI_MASK | HARDIRQ_MASK)) |
		(softirq_count() & SOFTIRQ_OFFSET);
}

/* The trap the CPU is in, if the trap hooks know it and it is @hard's. */
static u16 tsa_wk_source(bool hard)
{
	int depth;
	u16 src;

	if (!tsa_param_interrupts)
		return TSA_WK_SRC_NONE;
	depth = this_cpu_read(tsa_trap_depth);
	if (depth < 1)
		return TSA_WK_SRC_NONE;
	src = tsa_trap_source_at(depth);
	return src != TSA_CALL_OTHER && !!(src & TSA_TRAP_IRQ) == hard ?
		src : TSA_WK_SRC_NONE;
}

/* Who is waking a thread from here: an interrupt context (out of line). */
static noinline u32 tsa_wk_context(unsigned int level)
{
	if (tsa_wk_timers_own(this_cpu_ptr(&tsa_wk_timers), level,
			      TSA_WK_HARD))
		return tsa_wk_ctx(TSA_WK_TIMER, TSA_WK_SRC_NONE);
	if (level & NMI_MASK)
		return tsa_wk_ctx(TSA_WK_NMI, TSA_WK_SRC_NONE);
	if (level & HARDIRQ_MASK)
		return tsa_wk_ctx(TSA_WK_HARDIRQ, tsa_wk_source(true));
	return tsa_wk_ctx(TSA_WK_SOFTIRQ, tsa_wk_source(false));
}

TSA_PROBE_TASK(tsa_sched_waking)
{
	struct tsa_thread *th = tsa_thread_find_near(p);
	unsigned int level;
	u64 start = 0;
	u32 who;

	tsa_event(TSA_EV_WAKING);
	if (!th)
		return;
	level = tsa_wk_level();
	if (unlikely(level)) {
		who = tsa_wk_context(level);
	} else if (unlikely(!current->pid)) {
		/* An idle task outside interrupts: the wake list's flush. */
		who = tsa_wk_ctx(TSA_WK_IDLE, TSA_WK_SRC_NONE);
	} else {
		who = current->pid & TSA_WK_TID_MASK;
		start = tsa_wk_ident(current->start_time, current);
	}
	th->wk_start = start;
	WRITE_ONCE(th->wk_who, who);
}
TSA_CHECK_PROBE(sched_waking, tsa_sched_waking);

static __always_inline void tsa_wk_timer_enter(void)
{
	tsa_event(TSA_EV_TIMER);
	tsa_wk_timers_enter(this_cpu_ptr(&tsa_wk_timers), tsa_wk_level(),
			    TSA_WK_HARD);
}

static __always_inline void tsa_wk_timer_leave(void)
{
	tsa_wk_timers_leave(this_cpu_ptr(&tsa_wk_timers), tsa_wk_level(),
			    TSA_WK_HARD);
}

TSA_PROBE_HRTIMER_ENTRY(tsa_hrtimer_expire_entry)
{
	tsa_wk_timer_enter();
}
TSA_CHECK_PROBE(hrtimer_expire_entry, tsa_hrtimer_expire_entry);

TSA_PROBE_HRTIMER_EXIT(tsa_hrtimer_expire_exit)
{
	tsa_wk_timer_leave();
}
TSA_CHECK_PROBE(hrtimer_expire_exit, tsa_hrtimer_expire_exit);

TSA_PROBE_TIMER_ENTRY(tsa_timer_expire_entry)
{
	tsa_wk_timer_enter();
}
TSA_CHECK_PROBE(timer_expire_entry, tsa_timer_expire_entry);

TSA_PROBE_TIMER_EXIT(tsa_timer_expire_exit)
{
	tsa_wk_timer_leave();
}
TSA_CHECK_PROBE(timer_expire_exit, tsa_timer_expire_exit);
