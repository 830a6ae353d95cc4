// SPDX-License-Identifier: GPL-2.0
/*
 * tsa hooks, switch and wakeup: the scheduler's events, with the rq lock
 * held and IRQs off (a wakeup of current may come with IRQs on). They
 * only look records up, never allocate, sleep, print or queue work. A
 * thread switched out asleep is classified here: by its task state, the
 * context the other hooks gave it, and the system call it sleeps in.
 */
#include <linux/kernel.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "tsa_calib.h"
#include "tsa_edge.h"
#include "tsa_probes.h"

/* Switches the tracepoint's arguments alone would have miscounted. */
static atomic64_t tsa_switch_sig_running = ATOMIC64_INIT(0);
static atomic64_t tsa_switch_odd = ATOMIC64_INIT(0);
#ifdef TSA_SWITCH_NO_PREV_STATE
/* Before 5.18: sleeps whose kind a wakeup overwrote (TASK_WAKING). */
static atomic64_t tsa_switch_state_lost = ATOMIC64_INIT(0);
#endif

/* What call @nr of @p, with its first two arguments, is waiting for. */
static __always_inline enum tsa_wait tsa_call_wait(struct task_struct *p,
						   long nr, unsigned long a0,
						   unsigned long a1)
{
	enum tsa_wait w;

	if (nr < 0)
		return TSA_W_NONE;
	w = tsa_syscall_wait(nr, tsa_task_compat(p), a1);
	if (w == TSA_W_IDLE_IF_STREAM)
		w = p == current && tsa_current_fd_is_stream(a0) ?
			TSA_W_IDLE : TSA_W_NONE;
	return w;
}

/* A seeded thread's registers (it is not current): copied, off the hot path. */
static noinline enum tsa_wait tsa_task_wait_copy(struct task_struct *p)
{
	struct pt_regs copy;
	unsigned long a0, a1;

	if (!tsa_task_user_regs(p, &copy))
		return TSA_W_NONE;
	tsa_syscall_args01(p, &copy, &a0, &a1);
	return tsa_call_wait(p, syscall_get_nr(p, &copy), a0, a1);
}

/*
 * What the system call a user thread sleeps in is waiting for; @in_call:
 * it is in one. The number the call left in the registers outlives it:
 * a sleep on the way back to user mode after the call returned (task
 * work, a signal stop) is not that call's. Only the
 * current task's open files can be looked at without locks, so a seeded
 * thread (not current) reading a socket counts as SLP until it wakes.
 * No local of current's path has its address taken: the kernel zeroes
 * such stack variables (INIT_STACK_ALL_ZERO) and guards the frame, and
 * this runs at every sleep.
 */
static enum tsa_wait tsa_task_wait(struct task_struct *p, bool in_call)
{
	struct pt_regs *regs;
	unsigned long a0, a1;

	if (!in_call || (p->flags & (PF_KTHREAD | PF_IO_WORKER)))
		return TSA_W_NONE;
	if (p != current)
		return tsa_task_wait_copy(p);
	regs = task_pt_regs(p);
	tsa_syscall_args01(p, regs, &a0, &a1);
	return tsa_call_wait(p, syscall_get_nr(p, regs), a0, a1);
}

/*
 * What a thread that left the CPU is waiting for, by every rule: the
 * seeder's, and the switch's for the rare cases (tsa_switch_sleep()).
 */
noinline enum tsa_state tsa_sleep_state(struct task_struct *p,
					unsigned int state, u8 ctx,
					bool in_call)
{
	struct tsa_block_info bi = {
		.task_state = state,
		.frozen = tsa_task_cgroup_frozen(p),
		.ctx = ctx,
		/* io_uring workers wait for work as kernel threads do. */
		.kthread = p->flags & (PF_KTHREAD | PF_IO_WORKER),
		.iowait = p->in_iowait,
		.memstall = tsa_task_memstall(p),
		.wait = tsa_task_wait(p, in_call),
	};

	return tsa_classify_sleep(bi);
}

/*
 * The sleep of @p, current, switching out with IRQs off: the rules of
 * tsa_classify_sleep() in their order, each fact read only when its rule
 * is reached. A stop, a freeze, PREEMPT_RT's lock wait, a memory stall
 * or any context the hooks gave it (a fault, swap, a kernel lock) goes to
 * the full classification, out of line; what is left is decided by the
 * call it sleeps in (read only for a user thread in one), its I/O wait
 * and, for a kernel thread, its state.
 */
static __always_inline enum tsa_state
tsa_switch_sleep(struct task_struct *p, unsigned int state, u8 ctx,
		 bool in_call)
{
	bool kthread = p->flags & (PF_KTHREAD | PF_IO_WORKER);
	enum tsa_wait w = TSA_W_NONE;

	if (unlikely((state & (__TASK_STOPPED | __TASK_TRACED | TASK_FROZEN |
			       TASK_RTLOCK_WAIT)) || ctx ||
		     tsa_task_cgroup_frozen(p) || tsa_task_memstall(p)))
		return tsa_sleep_state(p, state, ctx, in_call);
	if (in_call && !kthread) {
		struct pt_regs *regs = task_pt_regs(p);
		unsigned long a0, a1;

		tsa_syscall_args01(p, regs, &a0, &a1);
		w = tsa_call_wait(p, syscall_get_nr(p, regs), a0, a1);
		if (w == TSA_W_FUTEX)
			return TSA_LCK;
	}
	if (p->in_iowait)
		return TSA_IOW;
	if (w == TSA_W_IDLE)
		return TSA_IDL;
	if (kthread && ((state & (TASK_NOLOAD | TASK_PARKED)) ||
			(state & TASK_NORMAL) == TASK_INTERRUPTIBLE))
		return TSA_IDL;
	return TSA_SLP;
}

/*
 * Is @p, switching out, stopped by its tracer at a system call's entry?
 * That stop comes before the kernel's sys_enter, which the tracer may
 * then skip (PTRACE_SYSEMU, or the number set to -1): the call begins
 * here. ptrace_stop() sets the message and the exit code before the
 * switch, and the tracer cannot touch them before it ends.
 */
static bool tsa_syscall_entry_stop(struct task_struct *p)
{
	return READ_ONCE(p->ptrace_message) == PTRACE_EVENTMSG_SYSCALL_ENTRY &&
		(READ_ONCE(p->exit_code) & ~0x80) == SIGTRAP;
}

/* The key of the call current is in, by its registers. */
static u16 tsa_current_call_key(void)
{
	return tsa_call_key(syscall_get_nr(current, task_pt_regs(current)),
			    tsa_task_compat(current));
}

#ifdef CONFIG_PREEMPT_RT
/*
 * PREEMPT_RT runs softirqs and threaded interrupt handlers in task
 * context, where they can be preempted or sleep: a CPU's trap nesting is
 * then the running thread's, not the CPU's. A switch keeps it with the
 * thread leaving (and reports whether that thread leaves a trap), and
 * gives the CPU the nesting of the thread coming in (none if untracked).
 */
static bool tsa_trap_switch_out(struct tsa_thread *pth, bool in_trap)
{
	if (!tsa_param_interrupts)
		return false;
	pth->trap_depth = clamp_t(int, this_cpu_read(tsa_trap_depth), 0, U8_MAX);
	memcpy(pth->trap_source, this_cpu_ptr(tsa_trap_source),
	       sizeof(pth->trap_source));
	return in_trap;
}

/* Whether @nth comes back into a trap: then TRP again. */
static bool tsa_trap_switch_in(struct tsa_thread *nth)
{
	if (!tsa_param_interrupts)
		return false;
	this_cpu_write(tsa_trap_depth, nth->trap_depth);
	memcpy(this_cpu_ptr(tsa_trap_source), nth->trap_source,
	       sizeof(nth->trap_source));
	return nth->trap_depth;
}

static void tsa_trap_switch_untracked(void)
{
	if (tsa_param_interrupts)
		this_cpu_write(tsa_trap_depth, 0);
}

static u16 tsa_trap_innermost(void)
{
	return tsa_trap_source_at(this_cpu_read(tsa_trap_depth));
}
#else
/* Elsewhere no switch happens inside a trap. */
static inline bool tsa_trap_switch_out(struct tsa_thread *pth, bool in_trap)
{
	return false;
}

static inline bool tsa_trap_switch_in(struct tsa_thread *nth)
{
	return false;
}

static inline void tsa_trap_switch_untracked(void)
{
}

static inline u16 tsa_trap_innermost(void)
{
	return TSA_CALL_OTHER;
}
#endif

TSA_PROBE_SCHED_SWITCH(tsa_sched_switch)
{
	struct tsa_thread *pth, *nth;
	bool plock = false, nlock = false;
	int cpu = smp_processor_id();
	u64 now;

	tsa_event(TSA_EV_SWITCH);
	pth = tsa_thread_current();	/* prev is current */
	if (pth && (prev_state & TASK_DEAD)) {
		tsa_clamped(tsa_thread_exit(pth));
		pth = NULL;
	}
	nth = tsa_thread_find_near(next);
	/*
	 * One clock read for both threads, taken with both records open: a
	 * read between two would be on nobody's CPU (a few microseconds a
	 * switch moved from on-CPU to LAT), and a read before opening a
	 * record would let a reader charge the old state past the stamp.
	 */
	if (pth)
		plock = tsa_thread_own_begin_irqs_off(pth, 0);
	if (nth)
		nlock = tsa_thread_own_begin_irqs_off(nth,
						      SINGLE_DEPTH_NESTING);
	now = tsa_clock();
	if (pth) {
		enum tsa_switch_kind kind = TSA_SW_PREEMPT;
		enum tsa_state sleep = TSA_SLP;
		bool in_trap = pth->acct.state == TSA_TRP;

		/*
		 * The kernel's own nvcsw rule. A pending signal undoes a
		 * sleep by setting __state back to running, which only a
		 * re-read shows; but the sleep is classified by prev_state,
		 * the state __schedule() saw: by now a wakeup on another
		 * CPU may have written TASK_WAKING over __state.
		 */
		if (!preempt && prev_state)
			kind = tsa_task_state(prev) == TASK_RUNNING ?
				TSA_SW_SIGNAL : TSA_SW_BLOCK;
		/*
		 * The kernel has already bumped the counter of this switch
		 * (++*switch_count comes before trace_sched_switch in
		 * __schedule()), so it says which one it was. The rule
		 * above misses one case: a pending signal undid the sleep
		 * and prev_state reads 0, as it does from 8feb053d5319
		 * ("sched: Fix trace_sched_switch(.prev_state)", 6.16, and
		 * 6.12.y stable): nvcsw counted it, the arguments look
		 * like a yield. Only a record switched in under tsa has
		 * the count to compare with; the first switch-out of a
		 * thread seeded at load goes by the rule alone.
		 */
		if (pth->nvcsw_known) {
			/* It moves by one at most: the low bits tell. */
			bool vol = (u8)READ_ONCE(prev->nvcsw) != pth->nvcsw_in;

			if (unlikely(vol && kind == TSA_SW_PREEMPT)) {
				kind = TSA_SW_SIGNAL;
				atomic64_inc(&tsa_switch_sig_running);
			} else if (unlikely(!vol && kind != TSA_SW_PREEMPT)) {
				/* Never seen: keep the sleep's state. */
				atomic64_inc(&tsa_switch_odd);
				if (kind == TSA_SW_SIGNAL)
					kind = TSA_SW_PREEMPT;
			}
		}
		/*
		 * In a call as the syscall hooks saw it; without them, as
		 * the registers say.
		 */
		if (kind == TSA_SW_BLOCK) {
			bool in_call = !READ_ONCE(tsa_syscalls_live) ||
				(pth->acct.flags & TSA_F_IN_KERNEL);

			sleep = tsa_switch_sleep(prev, prev_state,
						 pth->acct.ctx, in_call);
			/* Debug kernels check the short way against the rules. */
			if (IS_ENABLED(CONFIG_PROVE_LOCKING)) {
				enum tsa_state full =
					tsa_sleep_state(prev, prev_state,
							pth->acct.ctx, in_call);

				WARN_ONCE(sleep != full,
					  "tsa: a sleep classified %s in the switch, %s by the rules\n",
					  tsa_state_names[sleep],
					  tsa_state_names[full]);
			}
		}
		tsa_clamped(tsa_acct_switch_out(&pth->acct,
						tsa_stamp(TSA_STAMP_SWITCH_OUT,
							  &pth->acct, now),
						kind, sleep));
		if (tsa_trap_switch_out(pth, in_trap))
			tsa_acct_trap_suspend(&pth->acct);
		if (unlikely(prev_state & __TASK_TRACED) &&
		    kind == TSA_SW_BLOCK && tsa_syscall_entry_stop(prev))
			tsa_acct_sys_enter_unseen(&pth->acct,
						  tsa_current_call_key(),
						  true);
	}
	if (nth) {
		int last = nth->acct.last_cpu;
		unsigned int s;
		u64 from;

		/* Only its last CPU's last_out may hold it (tsa_cpu). */
		if (unlikely(last != cpu))
			tsa_forget_out(nth, last);
		/* Back in the kernel; user_enter will see it leave. */
		tsa_acct_set_edge(&nth->acct, tsa_edge_here());
		nth->nvcsw_in = (u8)READ_ONCE(next->nvcsw);
		nth->nvcsw_known = true;
		from = nth->acct.stamp;
		s = nth->acct.state;
		tsa_clamped(tsa_acct_switch_in(&nth->acct,
					       tsa_stamp(TSA_STAMP_SWITCH_IN,
							 &nth->acct, now),
					       cpu));
		/* Woken: its LAT goes to the waker too. */
		if (nth->wk_last)
			tsa_acct_waker_lat(&nth->acct, &nth->wk_last, s, from);
		/* Preempted in user mode: it returns through the exit path. */
		tsa_acct_set_head(&nth->acct, this_cpu_read(tsa_cross.sys));
		if (tsa_trap_switch_in(nth))
			tsa_clamped(tsa_acct_trap_enter(&nth->acct, now,
							 tsa_trap_innermost()));
		tsa_thread_own_end_irqs_off(nth, nlock);
		this_cpu_write(tsa_cpu.current_th, nth);
	} else {
		tsa_trap_switch_untracked();
		this_cpu_write(tsa_cpu.current_th, &tsa_no_thread);
	}
	if (pth) {
		tsa_thread_own_end_irqs_off(pth, plock);
		/* A thread seeded running has no last CPU yet (tsa_cpu). */
		if (likely(pth->acct.last_cpu == cpu))
			this_cpu_write(tsa_cpu.last_out, pth);
	}
}
#ifdef TSA_SWITCH_NO_PREV_STATE
TSA_PROBE_SCHED_SWITCH_OLD(tsa_sched_switch_old)
{
	bool lost;
	unsigned int state = tsa_switch_prev_state(preempt, prev, &lost);

	if (unlikely(lost))
		atomic64_inc(&tsa_switch_state_lost);
	tsa_sched_switch(data, preempt, prev, next, state);
}
#endif
TSA_CHECK_PROBE(sched_switch, TSA_SCHED_SWITCH_PROBE);

/*
 * The wakeup of @th, open, named by the sched_waking before it: its name
 * is taken, so that a wakeup sched_waking did not see (one at load) is
 * not charged to an earlier waker.
 */
static __always_inline void tsa_wake_by(struct tsa_thread *th, u64 now,
					bool locked)
{
	struct tsa_waker_id id = { .who = READ_ONCE(th->wk_who) };

	if (unlikely(!id.who))
		id.who = tsa_wk_ctx(TSA_WK_UNSEEN, TSA_WK_SRC_NONE);
	id.start = th->wk_start;
	WRITE_ONCE(th->wk_who, 0);
	/* A seeder may have written it meanwhile: the full rules. */
	if (unlikely(locked) && !tsa_acct_wakes(th->acct.state, th->acct.flags))
		return;
	tsa_clamped(tsa_acct_wakeup_by(&th->acct, now, id, &th->wk_last));
}

/*
 * IRQs may be on here: try_to_wake_up() wakes current without its locks
 * (a timer in softirq waking the task it interrupted).
 */
static __always_inline void tsa_wake(struct task_struct *p,
				     enum tsa_event ev)
{
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;
	u64 now;

	tsa_event(ev);
	th = tsa_thread_find_near(p);
	if (!th)
		return;
	/*
	 * Only a thread off CPU, asleep or stopped, has anything to wake;
	 * a running or runnable one's record may be open on its own CPU
	 * without the lock (tsa_thread_own_begin()), so it is left alone,
	 * looked at without the lock. This is stable: a thread is on CPU
	 * (on_cpu) from before its switch-in to after its switch-out, and a
	 * wakeup of a queued thread holds the rq lock its switches hold, so
	 * neither can change until this wakeup is over.
	 *
	 * Nor can anyone else write the record meanwhile: its own events
	 * need it on CPU, the rq lock held here keeps it off, and the waker
	 * is alone (p->pi_lock, or TASK_WAKING that no other wakeup
	 * matches). So it is written as its owner writes it, without the
	 * lock unless a seeder may write too.
	 */
	if (READ_ONCE(p->on_cpu) ||
	    !tsa_acct_wakes(READ_ONCE(th->acct.state),
			    READ_ONCE(th->acct.flags)))
		return;
	/* The clock is read with the record open: see tsa_sched_switch. */
	locked = tsa_thread_own_begin(th, &flags);
	now = tsa_stamp(TSA_STAMP_WAKEUP, &th->acct, tsa_clock());
	if (static_branch_likely(&tsa_wakers_on) && ev == TSA_EV_WAKEUP)
		tsa_wake_by(th, now, locked);
	/* A seeder, the one other writer, may have written it meanwhile. */
	else if (likely(!locked))
		tsa_clamped(tsa_acct_wakeup_seen(&th->acct, now));
	else
		tsa_clamped(tsa_acct_wakeup(&th->acct, now));
	tsa_thread_own_end(th, flags, locked);
}

TSA_PROBE_TASK(tsa_sched_wakeup)
{
	tsa_wake(p, TSA_EV_WAKEUP);
}
TSA_CHECK_PROBE(sched_wakeup, tsa_sched_wakeup);

TSA_PROBE_TASK(tsa_sched_wakeup_new)
{
	tsa_wake(p, TSA_EV_WAKEUP_NEW);
}
TSA_CHECK_PROBE(sched_wakeup_new, tsa_sched_wakeup_new);

void tsa_hooks_sched_show(struct seq_file *m)
{
	seq_printf(m, "switch_signal_running %lld\n",
		   atomic64_read(&tsa_switch_sig_running));
	seq_printf(m, "switch_odd %lld\n", atomic64_read(&tsa_switch_odd));
#ifdef TSA_SWITCH_NO_PREV_STATE
	seq_printf(m, "switch_state_lost %lld\n",
		   atomic64_read(&tsa_switch_state_lost));
#endif
}
