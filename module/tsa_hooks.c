// SPDX-License-Identifier: GPL-2.0
/*
 * tsa hooks: where kernel events become microstate transitions.
 *
 * Each probe does the same three things: take the timestamp first, find
 * the record of the task the event is about, and call the accounting
 * function named for the event under the record's lock. The scheduler
 * probes run with the rq lock held and IRQs off: they only look records
 * up, never allocate, sleep, print or queue work. Records are created in
 * the fork probe (no rq lock held there) and at load, and removed in the
 * free probe.
 *
 * Tracepoints are not exported to modules by name, so they are found by
 * walking the kernel's tracepoint list and registered through the one
 * table below, which also says what is lost when a hook is missing.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>

#include "tsa_compat.h"
#include "tsa_hooks.h"
#include "tsa_proc.h"
#include "tsa_table.h"

static bool tsa_param_syscalls = true;
module_param_named(syscalls, tsa_param_syscalls, bool, 0444);
MODULE_PARM_DESC(syscalls,
		 "Split on-CPU time exactly into USR and SYS and count SCL with the syscall tracepoints (costs every syscall the slow path; default 1). Off: user threads' on-CPU time is USR.");

static unsigned int tsa_param_calls = 8;
module_param_named(calls, tsa_param_calls, uint, 0444);
MODULE_PARM_DESC(calls,
		 "Rows of each thread's table of the system calls it spent most time in (default 8, at most 64; 0: no table). Needs syscalls=1.");

static bool tsa_param_faults = true;
module_param_named(faults, tsa_param_faults, bool, 0444);
MODULE_PARM_DESC(faults,
		 "Probe page faults (kretprobe on handle_mm_fault) for TFL, DFL, KFL, swap-in APG, MINF and MAJF (default 1). Off: fault sleeps are SLP or IOW, fault time is USR.");

static bool tsa_param_locks = true;
module_param_named(locks, tsa_param_locks, bool, 0444);
MODULE_PARM_DESC(locks,
		 "Hook lock contention tracepoints for KLK (default 1). Off: kernel lock sleeps are SLP.");

static bool tsa_param_interrupts;
module_param_named(interrupts, tsa_param_interrupts, bool, 0444);
MODULE_PARM_DESC(interrupts,
		 "Hook hard and soft interrupt tracepoints for TRP (default 0: every interrupt pays a lookup). Off: interrupt time is charged to the interrupted USR or SYS.");

static bool tsa_param_signals = true;
module_param_named(signals, tsa_param_signals, bool, 0444);
MODULE_PARM_DESC(signals, "Count signals delivered (SIG) (default 1).");

static unsigned int tsa_param_fault_maxactive = 1024;
module_param_named(fault_maxactive, tsa_param_fault_maxactive, uint, 0444);
MODULE_PARM_DESC(fault_maxactive,
		 "Page faults that can be followed at once, across all CPUs (default 1024); more are counted as missed in debugfs.");

static unsigned int tsa_param_late_queue = 4096;
module_param_named(late_queue, tsa_param_late_queue, uint, 0444);
MODULE_PARM_DESC(late_queue,
		 "New threads the record pool could not serve that wait by name to be tracked a moment later (default 4096); past that, the work item walks all threads for untracked ones.");

static char *tsa_param_skip_hooks;
module_param_named(skip_hooks, tsa_param_skip_hooks, charp, 0444);
MODULE_PARM_DESC(skip_hooks,
		 "Hooks not to register, as if this kernel lacked them (comma-separated names, as in debugfs stats): to see and test what tsa degrades to.");

enum tsa_event {
	TSA_EV_SWITCH, TSA_EV_WAKEUP, TSA_EV_WAKEUP_NEW, TSA_EV_FORK,
	TSA_EV_EXEC, TSA_EV_EXIT, TSA_EV_FREE, TSA_EV_SYS_ENTER,
	TSA_EV_SYS_EXIT, TSA_EV_FAULT, TSA_EV_SWAPIN, TSA_EV_CONTENTION,
	TSA_EV_CONTENTION_END, TSA_EV_IRQ, TSA_EV_IRQ_EXIT, TSA_EV_SOFTIRQ,
	TSA_EV_SOFTIRQ_EXIT, TSA_EV_SIGNAL, TSA_EV_USER_EXIT,
	TSA_EV_USER_ENTER, TSA_NR_EVENTS
};

static DEFINE_PER_CPU(u64[TSA_NR_EVENTS], tsa_events);
static DEFINE_PER_CPU(int, tsa_trap_depth);
/*
 * The source of each trap a CPU is in, outermost first: a hard interrupt
 * can come during a softirq, and its time is its own.
 */
static DEFINE_PER_CPU(u16[TSA_TRAP_NEST], tsa_trap_source);
/*
 * The record of the task each CPU switched in last, i.e. of its current
 * task: saves a hash lookup on the hottest paths (syscalls, faults,
 * interrupts). Only sched_switch writes it, for next, so it can never
 * point at a record freed under a running task.
 */
static DEFINE_PER_CPU(struct tsa_thread *, tsa_current);

/* Caller runs with preemption off. */
static struct tsa_thread *tsa_thread_current(void)
{
	struct tsa_thread *th = this_cpu_read(tsa_current);

	if (likely(th && th->key == current))
		return th;
	return tsa_thread_find(current);
}

/* Both boundary hooks are registered (user_enter and user_exit). */
static bool tsa_edge_live;

/* Does this CPU report the user/kernel boundary (nohz_full)? */
static __always_inline bool tsa_edge_here(void)
{
	return context_tracking_enabled_this_cpu() && READ_ONCE(tsa_edge_live);
}
static atomic64_t tsa_clamps = ATOMIC64_INIT(0);
/* Switches the tracepoint's arguments alone would have miscounted. */
static atomic64_t tsa_switch_sig_running = ATOMIC64_INIT(0);
static atomic64_t tsa_switch_odd = ATOMIC64_INIT(0);
static atomic64_t tsa_seeded = ATOMIC64_INIT(0);
static atomic64_t tsa_late_tracked = ATOMIC64_INIT(0);
static atomic64_t tsa_late_walks = ATOMIC64_INIT(0);

static inline void tsa_event(enum tsa_event ev)
{
	this_cpu_inc(tsa_events[ev]);
}

static inline void tsa_clamped(bool clamped)
{
	if (unlikely(clamped))
		atomic64_inc(&tsa_clamps);
}

/* A seeded thread's registers (it is not current): copied, off the hot path. */
static noinline long tsa_task_syscall_copy(struct task_struct *p,
					   unsigned long *a0,
					   unsigned long *a1)
{
	struct pt_regs copy;

	if (!tsa_task_user_regs(p, &copy))
		return -1;
	tsa_syscall_args01(p, &copy, a0, a1);
	return syscall_get_nr(p, &copy);
}

/* Both syscall hooks are registered: they will see threads leave. */
static bool tsa_syscalls_live;

/*
 * What the system call a user thread sleeps in is waiting for; @in_call:
 * it is in one. The number the call left in the registers outlives it:
 * a sleep on the way back to user mode after the call returned (task
 * work, a signal stop) is not that call's. Only the
 * current task's open files can be looked at without locks, so a seeded
 * thread (not current) reading a socket counts as SLP until it wakes.
 * No pt_regs copy on the stack for current: the kernel zeroes stack
 * variables (INIT_STACK_ALL_ZERO), and this runs at every sleep.
 */
static enum tsa_wait tsa_task_wait(struct task_struct *p, bool in_call)
{
	unsigned long a0, a1;
	enum tsa_wait w;
	long nr;

	if (!in_call || (p->flags & (PF_KTHREAD | PF_IO_WORKER)))
		return TSA_W_NONE;
	if (p == current) {
		struct pt_regs *regs = task_pt_regs(p);

		nr = syscall_get_nr(p, regs);
		tsa_syscall_args01(p, regs, &a0, &a1);
	} else {
		nr = tsa_task_syscall_copy(p, &a0, &a1);
	}
	if (nr < 0)
		return TSA_W_NONE;
	w = tsa_syscall_wait(nr, tsa_task_compat(p), a1);
	if (w == TSA_W_IDLE_IF_STREAM)
		w = p == current && tsa_current_fd_is_stream(a0) ?
			TSA_W_IDLE : TSA_W_NONE;
	return w;
}

/* What a thread that left the CPU is waiting for. */
static enum tsa_state tsa_sleep_state(struct task_struct *p,
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

	return tsa_classify_sleep(&bi);
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
static u16 tsa_current_call_key(const struct tsa_thread *th)
{
	if (!th->acct.tab[TSA_T_CALLS])
		return 0;
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
	pth->trap_depth = clamp(this_cpu_read(tsa_trap_depth), 0, U8_MAX);
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
	int depth = this_cpu_read(tsa_trap_depth);

	return depth <= TSA_TRAP_NEST ?
		this_cpu_read(tsa_trap_source[depth - 1]) : TSA_CALL_OTHER;
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

static TSA_PROBE_SCHED_SWITCH(tsa_sched_switch)
{
	struct tsa_thread *pth, *nth;
	bool plock = false, nlock = false;
	u64 now;

	tsa_event(TSA_EV_SWITCH);
	pth = tsa_thread_current();	/* prev is current */
	if (pth && (prev_state & TASK_DEAD)) {
		tsa_clamped(tsa_thread_exit(pth));
		pth = NULL;
	}
	nth = tsa_thread_find(next);
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
		if (kind == TSA_SW_BLOCK)
			sleep = tsa_sleep_state(prev, prev_state,
						pth->acct.ctx,
						!READ_ONCE(tsa_syscalls_live) ||
						(pth->acct.flags &
						 TSA_F_IN_KERNEL));
		tsa_clamped(tsa_acct_switch_out(&pth->acct, now, kind, sleep));
		if (tsa_trap_switch_out(pth, in_trap))
			tsa_acct_trap_suspend(&pth->acct);
		if (unlikely(prev_state & __TASK_TRACED) &&
		    kind == TSA_SW_BLOCK && tsa_syscall_entry_stop(prev))
			tsa_acct_sys_enter_unseen(&pth->acct,
						  tsa_current_call_key(pth),
						  true);
	}
	if (nth) {
		/* Back in the kernel; user_enter will see it leave. */
		tsa_acct_set_edge(&nth->acct, tsa_edge_here());
		nth->nvcsw_in = (u8)READ_ONCE(next->nvcsw);
		nth->nvcsw_known = true;
		tsa_clamped(tsa_acct_switch_in(&nth->acct, now,
					       smp_processor_id()));
		if (tsa_trap_switch_in(nth))
			tsa_clamped(tsa_acct_trap_enter(&nth->acct, now,
							 tsa_trap_innermost()));
		tsa_thread_own_end_irqs_off(nth, nlock);
	} else {
		tsa_trap_switch_untracked();
	}
	if (pth)
		tsa_thread_own_end_irqs_off(pth, plock);
	this_cpu_write(tsa_current, nth);
}
TSA_CHECK_PROBE(sched_switch, tsa_sched_switch);

/*
 * IRQs may be on here: try_to_wake_up() wakes current without its locks
 * (a timer in softirq waking the task it interrupted).
 */
static void tsa_wake(struct task_struct *p, enum tsa_event ev)
{
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;

	tsa_event(ev);
	th = tsa_thread_find(p);
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
	tsa_clamped(tsa_acct_wakeup(&th->acct, tsa_clock()));
	tsa_thread_own_end(th, flags, locked);
}

static TSA_PROBE_TASK(tsa_sched_wakeup)
{
	tsa_wake(p, TSA_EV_WAKEUP);
}
TSA_CHECK_PROBE(sched_wakeup, tsa_sched_wakeup);

static TSA_PROBE_TASK(tsa_sched_wakeup_new)
{
	tsa_wake(p, TSA_EV_WAKEUP_NEW);
}
TSA_CHECK_PROBE(sched_wakeup_new, tsa_sched_wakeup_new);

/*
 * Is the on-CPU time of @p SYS? Always for a kernel thread or an io_uring
 * worker; for a user thread inside the kernel (a new thread starts there
 * and returns through the syscall exit path) only if the syscall hooks
 * are live to see it leave: without them all its on-CPU time is USR,
 * whether they were turned off or failed to register.
 */
static u8 tsa_kernel_flag(struct task_struct *p, bool in_kernel)
{
	if (p->flags & (PF_KTHREAD | PF_IO_WORKER))
		return TSA_F_IN_KERNEL | TSA_F_KTHREAD;
	if (in_kernel && READ_ONCE(tsa_syscalls_live))
		return TSA_F_IN_KERNEL;
	return 0;
}

/*
 * Insert @th for @t unless @t already has a record or is already
 * released (then its free hook has run or is queued behind us).
 */
static struct tsa_thread *tsa_track(struct tsa_thread *th,
				    struct task_struct *t)
{
	struct tsa_thread *in = NULL;

	rcu_read_lock();
	if (pid_alive(t) && !t->exit_state)
		in = tsa_thread_insert(th, t);
	rcu_read_unlock();
	if (in != th)
		tsa_thread_drop(th);
	return in == th ? th : NULL;
}

static void tsa_track_later(struct task_struct *t);

/*
 * Every new task passes here, in copy_process() before it first runs:
 * fork, clone and kernel threads as sched_process_fork sees them, and
 * also io_uring workers (create_io_thread()) and other tasks the kernel
 * copies without kernel_clone(). Idle tasks (pid 0) are not tracked.
 */
static TSA_PROBE_NEWTASK(tsa_task_newtask)
{
	struct task_struct *child = p;
	struct tsa_thread *th;

	tsa_event(TSA_EV_FORK);
	if (!task_pid_nr(child))
		return;
	/* Probes run with preemption off: no sleeping allocation. */
	th = tsa_thread_alloc_atomic();
	if (!th) {
		tsa_track_later(child);
		return;
	}
	/* Born runnable: wake_up_new_task() queues it next. */
	tsa_acct_init(&th->acct, tsa_clock(), TSA_LAT,
		      tsa_kernel_flag(child, true));
	if (tsa_track(th, child))
		tsa_proc_tid_changed(task_pid_nr(child));
}
TSA_CHECK_PROBE(task_newtask, tsa_task_newtask);

/* A non-leader thread that execs takes over the leader's tid. */
static TSA_PROBE_EXEC(tsa_sched_process_exec)
{
	tsa_event(TSA_EV_EXEC);
	if (old_pid != task_pid_nr(p)) {
		tsa_proc_tid_changed(old_pid);
		tsa_proc_tid_changed(task_pid_nr(p));
	}
}
TSA_CHECK_PROBE(sched_process_exec, tsa_sched_process_exec);

static TSA_PROBE_EXIT(tsa_sched_process_exit)
{
	struct tsa_thread *th;

	tsa_event(TSA_EV_EXIT);
	th = tsa_thread_find(p);
	if (th)
		tsa_clamped(tsa_thread_exit_begin(th));
	tsa_proc_tid_changed(task_pid_nr(p));
}
TSA_CHECK_PROBE(sched_process_exit, tsa_sched_process_exit);

static TSA_PROBE_TASK(tsa_sched_process_free)
{
	tsa_event(TSA_EV_FREE);
	tsa_thread_remove(p);
}
TSA_CHECK_PROBE(sched_process_free, tsa_sched_process_free);

/* The clock last: everything else a return does comes before it. */
static __always_inline void tsa_syscall_return(struct tsa_thread *th,
					       u16 call, bool sig)
{
	struct tsa_sys_exit x;

	tsa_acct_sys_exit_begin(&th->acct, call, sig, &x);
	tsa_clamped(tsa_acct_sys_exit_end(&th->acct, tsa_clock(), &x));
}

/*
 * @nr: the call's number, as the task passed it; @compat: the task is a
 * 32-bit one; @sig: the call handed it a signal; @t: sys_enter's clock.
 */
static void tsa_syscall(enum tsa_event ev, long nr, bool compat, bool sig,
			u64 t)
{
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;
	u16 call;

	tsa_event(ev);
	th = tsa_thread_current();
	if (!th)
		return;
	call = th->acct.tab[TSA_T_CALLS] ? tsa_call_key(nr, compat) : 0;
	locked = tsa_thread_own_begin(th, &flags);
	if (ev == TSA_EV_SYS_ENTER)
		tsa_clamped(tsa_acct_sys_enter(&th->acct,
					       tsa_thread_early_stamp(th, t),
					       call));
	else
		tsa_syscall_return(th, call, sig);
	tsa_thread_own_end(th, flags, locked);
}

/*
 * The clock is read first thing on the way into the kernel, and last on
 * the way out (with only the charge after it): the probe's own work is
 * the kernel's time, SYS, not the user's.
 */
static TSA_PROBE_SYS_ENTER(tsa_sys_enter)
{
	u64 t;

	/* From 6.13 these probes may run preemptible. */
	preempt_disable_notrace();
	t = tsa_clock();
	tsa_syscall(TSA_EV_SYS_ENTER, id, tsa_task_compat(current), false, t);
	preempt_enable_notrace();
}
TSA_CHECK_PROBE(sys_enter, tsa_sys_enter);

/* The number names a call entered before the thread was tracked. */
static TSA_PROBE_SYS_EXIT(tsa_sys_exit)
{
	long nr = syscall_get_nr(current, regs);
	bool compat = tsa_task_compat(current);

	preempt_disable_notrace();
	tsa_syscall(TSA_EV_SYS_EXIT, nr, compat,
		    tsa_syscall_took_signal(nr, compat, ret), 0);
	preempt_enable_notrace();
}
TSA_CHECK_PROBE(sys_exit, tsa_sys_exit);

/*
 * Context tracking's boundary events, on CPUs that track user mode: the
 * first and last the kernel does on every entry from user mode and exit
 * to it, with IRQs off. Only the current task's record is written.
 */
static void tsa_user_edge(enum tsa_event ev, u64 t)
{
	struct tsa_thread *th;
	bool locked;

	tsa_event(ev);
	th = tsa_thread_current();
	if (!th)
		return;
	locked = tsa_thread_own_begin_irqs_off(th, 0);
	if (ev == TSA_EV_USER_EXIT)
		tsa_clamped(tsa_acct_user_exit(&th->acct,
					       tsa_thread_early_stamp(th, t)));
	else
		tsa_clamped(tsa_acct_user_enter(&th->acct, tsa_clock()));
	tsa_thread_own_end_irqs_off(th, locked);
}

/* The clock first on the way in, last on the way out: see tsa_sys_enter. */
static TSA_PROBE_USER_EDGE(tsa_user_exit)
{
	tsa_user_edge(TSA_EV_USER_EXIT, tsa_clock());
}
TSA_CHECK_PROBE(user_exit, tsa_user_exit);

static TSA_PROBE_USER_EDGE(tsa_user_enter)
{
	tsa_user_edge(TSA_EV_USER_ENTER, 0);
}
TSA_CHECK_PROBE(user_enter, tsa_user_enter);

/*
 * kprobe handlers run from the int3 trap when the probe cannot go through
 * ftrace, and the kernel counts that trap as NMI. They write the current
 * thread's record as its other events do (tsa_thread_own_begin()): no
 * record is ever open where the probed functions run, so the trap never
 * lands inside a write section. Only the lock a seeder may hold is a
 * question there: in NMI it may only be tried, never waited for (lockdep
 * checks nothing else in NMI either, so the seqcount is bumped without
 * its annotation). A failed try is counted and the event dropped whole.
 */
static atomic64_t tsa_probe_misses = ATOMIC64_INIT(0);

static bool tsa_probe_write_begin(struct tsa_thread *th, unsigned long *flags,
				  bool *locked)
{
	if (!in_nmi()) {
		*locked = tsa_thread_own_begin(th, flags);
		return true;
	}
	local_irq_save(*flags);
	/* Pairs with the release in tsa_thread_seeded(). */
	*locked = smp_load_acquire(&th->seeding);
	if (*locked && !raw_spin_trylock(&th->lock)) {
		local_irq_restore(*flags);
		atomic64_inc(&tsa_probe_misses);
		return false;
	}
	raw_write_seqcount_begin(&th->seq);
	return true;
}

static void tsa_probe_write_end(struct tsa_thread *th, unsigned long flags,
				bool locked)
{
	if (!in_nmi()) {
		tsa_thread_own_end(th, flags, locked);
		return;
	}
	raw_write_seqcount_end(&th->seq);
	if (locked)
		raw_spin_unlock(&th->lock);
	local_irq_restore(flags);
}

/*
 * Page faults: a kretprobe on handle_mm_fault(), whose entry and return
 * are the exact boundaries of the fault. The instance data carries the
 * context of an outer fault back to the return.
 */
struct tsa_fault_data {
	unsigned int flags;
	u8 saved;
};

static int tsa_fault_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct tsa_fault_data *d = (struct tsa_fault_data *)ri->data;
	u64 t = tsa_clock();	/* first: see tsa_sys_enter */
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;

	tsa_event(TSA_EV_FAULT);
	th = tsa_thread_current();
	if (!th)
		return 1;	/* no return probe for untracked tasks */
	d->flags = regs_get_kernel_argument(regs, 2);
	if (!tsa_probe_write_begin(th, &flags, &locked))
		return 1;	/* not followed: no half a fault */
	tsa_clamped(tsa_acct_fault_enter(&th->acct,
					 tsa_thread_early_stamp(th, t),
					 tsa_fault_kind(d->flags), &d->saved));
	tsa_probe_write_end(th, flags, locked);
	return 0;
}
NOKPROBE_SYMBOL(tsa_fault_entry);

static int tsa_fault_return(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct tsa_fault_data *d = (struct tsa_fault_data *)ri->data;
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;

	th = tsa_thread_current();
	if (!th || !tsa_probe_write_begin(th, &flags, &locked))
		return 0;
	tsa_clamped(tsa_acct_fault_exit(&th->acct, tsa_clock(), d->saved,
					d->flags, regs_return_value(regs)));
	tsa_probe_write_end(th, flags, locked);
	return 0;
}
NOKPROBE_SYMBOL(tsa_fault_return);

static struct kretprobe tsa_fault_probe = {
	.kp.symbol_name = "handle_mm_fault",
	.entry_handler = tsa_fault_entry,
	.handler = tsa_fault_return,
	.data_size = sizeof(struct tsa_fault_data),
};

/* The first thing do_swap_page() does: this fault waits for swap. */
static int tsa_swapin_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;

	tsa_event(TSA_EV_SWAPIN);
	th = tsa_thread_current();
	if (!th || !(READ_ONCE(th->acct.ctx) & TSA_C_FAULT) ||
	    !tsa_probe_write_begin(th, &flags, &locked))
		return 0;
	th->acct.ctx |= TSA_C_SWAP;
	tsa_probe_write_end(th, flags, locked);
	return 0;
}
NOKPROBE_SYMBOL(tsa_swapin_pre);

static struct kprobe tsa_swapin_probe = {
	.symbol_name = "swap_cache_get_folio",
	.pre_handler = tsa_swapin_pre,
};

/*
 * Kernel lock contention. Spinning is on-CPU time, so spin contention
 * (which includes the rq lock and tsa's own locks) returns at once. The
 * end probe acts only for the lock that began the contention: it also
 * fires after a contended spinlock, possibly one of tsa's own.
 */
static TSA_PROBE_CONTENTION_BEGIN(tsa_contention_begin)
{
	struct tsa_thread *th;
	unsigned long irqf;
	bool locked;

	if (flags & LCB_F_SPIN)
		return;
	tsa_event(TSA_EV_CONTENTION);
	th = tsa_thread_current();
	if (!th)
		return;
	locked = tsa_thread_own_begin(th, &irqf);
	th->klock = lock;
	th->acct.ctx |= TSA_C_KLOCK;
	tsa_thread_own_end(th, irqf, locked);
}
TSA_CHECK_PROBE(contention_begin, tsa_contention_begin);

static TSA_PROBE_CONTENTION_END(tsa_contention_end)
{
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;

	th = tsa_thread_current();
	if (!th || READ_ONCE(th->klock) != lock)
		return;
	tsa_event(TSA_EV_CONTENTION_END);
	locked = tsa_thread_own_begin(th, &flags);
	th->klock = NULL;
	th->acct.ctx &= ~TSA_C_KLOCK;
	tsa_thread_own_end(th, flags, locked);
}
TSA_CHECK_PROBE(contention_end, tsa_contention_end);

/*
 * Interrupts are charged to the thread they interrupt. Hard and soft
 * interrupts nest on a CPU; only the outermost changes the state.
 */
static void tsa_trap(bool enter, enum tsa_event ev, u16 source)
{
	struct tsa_thread *th;
	unsigned long flags;
	int depth;
	bool nest, locked;

	tsa_event(ev);
	if (enter) {
		depth = this_cpu_inc_return(tsa_trap_depth);
		if (depth <= TSA_TRAP_NEST)
			this_cpu_write(tsa_trap_source[depth - 1], source);
		nest = depth != 1;
	} else {
		depth = this_cpu_dec_return(tsa_trap_depth);
		if (depth < 0)		/* began before the hook was live */
			this_cpu_write(tsa_trap_depth, 0);
		nest = depth > 0;
		/* Back to the outer trap's source. */
		if (nest)
			source = depth <= TSA_TRAP_NEST ?
				this_cpu_read(tsa_trap_source[depth - 1]) :
				TSA_CALL_OTHER;
	}
	th = tsa_thread_current();
	if (!th || (nest && !th->acct.tab[TSA_T_TRAPS]))
		return;
	locked = tsa_thread_own_begin(th, &flags);
	if (nest)
		tsa_clamped(tsa_acct_trap_nest(&th->acct, tsa_clock(), source,
					       !enter));
	else if (enter)
		tsa_clamped(tsa_acct_trap_enter(&th->acct, tsa_clock(),
						source));
	else
		tsa_clamped(tsa_acct_trap_exit(&th->acct, tsa_clock()));
	tsa_thread_own_end(th, flags, locked);
}

static TSA_PROBE_IRQ_ENTRY(tsa_irq_entry)
{
	tsa_trap(true, TSA_EV_IRQ, tsa_trap_key(true, irq));
}
TSA_CHECK_PROBE(irq_handler_entry, tsa_irq_entry);

static TSA_PROBE_IRQ_EXIT(tsa_irq_exit)
{
	tsa_trap(false, TSA_EV_IRQ_EXIT, 0);
}
TSA_CHECK_PROBE(irq_handler_exit, tsa_irq_exit);

static TSA_PROBE_SOFTIRQ(tsa_softirq_entry)
{
	tsa_trap(true, TSA_EV_SOFTIRQ, tsa_trap_key(false, vec_nr));
}
TSA_CHECK_PROBE(softirq_entry, tsa_softirq_entry);

static TSA_PROBE_SOFTIRQ(tsa_softirq_exit)
{
	tsa_trap(false, TSA_EV_SOFTIRQ_EXIT, 0);
}
TSA_CHECK_PROBE(softirq_exit, tsa_softirq_exit);

static TSA_PROBE_SIGNAL_DELIVER(tsa_signal_deliver)
{
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;

	tsa_event(TSA_EV_SIGNAL);
	th = tsa_thread_current();
	if (!th)
		return;
	locked = tsa_thread_own_begin(th, &flags);
	th->acct.count[TSA_SIG]++;
	tsa_thread_own_end(th, flags, locked);
}
TSA_CHECK_PROBE(signal_deliver, tsa_signal_deliver);

#define TSA_STATE_BIT(s)	(1U << (s))

#define TSA_COUNTER_BIT(c)	(1U << (16 + (c)))
#define TSA_ALL			(~0U)	/* required: no accounting without */

enum tsa_hook_kind { TSA_TRACEPOINT, TSA_KPROBE, TSA_KRETPROBE };

struct tsa_hook {
	const char *name;
	enum tsa_hook_kind kind;
	void *probe;		/* tracepoint probe, kprobe or kretprobe */
	bool *enabled;		/* module parameter */
	u32 degrades;		/* states and counters lost without it */
	enum tsa_event ev;	/* its event counter */
	const char *exit;	/* an entry's exit: hooked only after it */
	struct tracepoint *tp;
	bool skip;		/* named in skip_hooks */
	bool live;
};

static bool tsa_always = true;

#define TSA_DEG_FAULTS	(TSA_STATE_BIT(TSA_TFL) | TSA_STATE_BIT(TSA_DFL) | \
			 TSA_STATE_BIT(TSA_KFL) | TSA_STATE_BIT(TSA_APG) | \
			 TSA_COUNTER_BIT(TSA_MINF) | TSA_COUNTER_BIT(TSA_MAJF))
#define TSA_DEG_TRP	TSA_STATE_BIT(TSA_TRP)

/*
 * Registration order: bookkeeping first, so no event finds half a world;
 * of a pair, the exit first, and the entry only once its exit is live:
 * an event caught half-way at load then shows an exit without its entry
 * (harmless), never an entry without an exit (a contention_begin whose
 * end is missed would make every later sleep of that thread KLK; a
 * sys_enter without sys_exit, 100 % SYS). Unregistration runs in reverse.
 */
static struct tsa_hook tsa_hooks[] = {
	{ "sched_process_free", TSA_TRACEPOINT, tsa_sched_process_free,
	  &tsa_always, TSA_ALL, TSA_EV_FREE },
	{ "task_newtask", TSA_TRACEPOINT, tsa_task_newtask,
	  &tsa_always, TSA_ALL, TSA_EV_FORK },
	{ "sched_process_exec", TSA_TRACEPOINT, tsa_sched_process_exec,
	  &tsa_always, 0, TSA_EV_EXEC },
	{ "sched_process_exit", TSA_TRACEPOINT, tsa_sched_process_exit,
	  &tsa_always, 0, TSA_EV_EXIT },
	{ "sched_switch", TSA_TRACEPOINT, tsa_sched_switch, &tsa_always,
	  TSA_ALL, TSA_EV_SWITCH },
	{ "sched_wakeup", TSA_TRACEPOINT, tsa_sched_wakeup, &tsa_always,
	  TSA_ALL, TSA_EV_WAKEUP },
	{ "sched_wakeup_new", TSA_TRACEPOINT, tsa_sched_wakeup_new,
	  &tsa_always, TSA_ALL, TSA_EV_WAKEUP_NEW },
	{ "sys_exit", TSA_TRACEPOINT, tsa_sys_exit, &tsa_param_syscalls,
	  TSA_STATE_BIT(TSA_SYS) | TSA_COUNTER_BIT(TSA_SCL), TSA_EV_SYS_EXIT },
	{ "sys_enter", TSA_TRACEPOINT, tsa_sys_enter, &tsa_param_syscalls,
	  TSA_STATE_BIT(TSA_SYS) | TSA_COUNTER_BIT(TSA_SCL),
	  TSA_EV_SYS_ENTER, "sys_exit" },
	/*
	 * The user/kernel boundary, where context tracking reports it: the
	 * kernel's entry and exit code become SYS too. They lose nothing
	 * when missing (sys_enter and sys_exit bracket the calls).
	 */
	{ "user_enter", TSA_TRACEPOINT, tsa_user_enter, &tsa_param_syscalls,
	  0, TSA_EV_USER_ENTER },
	{ "user_exit", TSA_TRACEPOINT, tsa_user_exit, &tsa_param_syscalls,
	  0, TSA_EV_USER_EXIT, "user_enter" },
	{ "handle_mm_fault", TSA_KRETPROBE, &tsa_fault_probe,
	  &tsa_param_faults, TSA_DEG_FAULTS, TSA_EV_FAULT },
	{ "swap_cache_get_folio", TSA_KPROBE, &tsa_swapin_probe,
	  &tsa_param_faults, TSA_STATE_BIT(TSA_APG), TSA_EV_SWAPIN },
	{ "contention_end", TSA_TRACEPOINT, tsa_contention_end,
	  &tsa_param_locks, TSA_STATE_BIT(TSA_KLK), TSA_EV_CONTENTION_END },
	{ "contention_begin", TSA_TRACEPOINT, tsa_contention_begin,
	  &tsa_param_locks, TSA_STATE_BIT(TSA_KLK), TSA_EV_CONTENTION,
	  "contention_end" },
	/* An interrupt entry without its exit would leave the nesting off. */
	{ "irq_handler_exit", TSA_TRACEPOINT, tsa_irq_exit,
	  &tsa_param_interrupts, TSA_DEG_TRP, TSA_EV_IRQ_EXIT },
	{ "softirq_exit", TSA_TRACEPOINT, tsa_softirq_exit,
	  &tsa_param_interrupts, TSA_DEG_TRP, TSA_EV_SOFTIRQ_EXIT },
	{ "irq_handler_entry", TSA_TRACEPOINT, tsa_irq_entry,
	  &tsa_param_interrupts, TSA_DEG_TRP, TSA_EV_IRQ,
	  "irq_handler_exit" },
	{ "softirq_entry", TSA_TRACEPOINT, tsa_softirq_entry,
	  &tsa_param_interrupts, TSA_DEG_TRP, TSA_EV_SOFTIRQ,
	  "softirq_exit" },
	{ "signal_deliver", TSA_TRACEPOINT, tsa_signal_deliver,
	  &tsa_param_signals, TSA_COUNTER_BIT(TSA_SIG), TSA_EV_SIGNAL },
};

static void tsa_find_tracepoint(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(tsa_hooks); i++) {
		if (tsa_hooks[i].kind == TSA_TRACEPOINT &&
		    !strcmp(tp->name, tsa_hooks[i].name))
			tsa_hooks[i].tp = tp;
	}
}

/*
 * States (bits 0-15) and counters (bits 16-31) that no live hook can
 * tell apart on this kernel with these parameters.
 */
static u32 tsa_hooks_degraded(void)
{
	u32 lost = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(tsa_hooks); i++) {
		if (!tsa_hooks[i].live)
			lost |= tsa_hooks[i].degrades;
	}
	return lost;
}

/* "degraded" and what is lost, or " -": the same line in /proc and debugfs. */
void tsa_hooks_show_degraded(struct seq_file *m)
{
	u32 lost = tsa_hooks_degraded();
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

static u64 tsa_hooks_clamps(void)
{
	return atomic64_read(&tsa_clamps);
}

/*
 * The state a thread that was already alive is in now. Runs under the
 * record's lock: an event racing with us either came first (and the
 * record is no longer provisional) or waits for us and starts from here.
 * A grace period has passed since the record went in (tsa_seed_batch()),
 * so every switch that missed it has ended: on_cpu is set for a thread
 * that one of them switched in (sched_switch fires before next->on_cpu
 * is set, in the same IRQs-off section).
 *
 * A thread whose exit began stays provisional, untracked: its exit hook
 * may have come before the record (that hook hands a live record over
 * to its process, and would never run again). The barrier pairs with the
 * one between do_exit()'s PF_EXITING and its exit hook (the
 * atomic_dec_and_test() of signal->live): either the hook finds the
 * record, or this sees the flag.
 */
static void tsa_seed_state(struct tsa_thread *th, struct task_struct *t)
{
	unsigned int state;
	unsigned long flags;
	enum tsa_state s;
	u8 f;

	smp_mb();	/* the record in the table before PF_EXITING is read */
	tsa_thread_write_begin(th, flags);
	state = tsa_task_state(t);
	f = TSA_F_SINCE_LOAD | tsa_kernel_flag(t, tsa_task_in_syscall(t));
	/* Not if an event came first, nor if the thread died meanwhile. */
	if ((th->acct.flags & (TSA_F_PROVISIONAL | TSA_F_DEAD)) ==
	    TSA_F_PROVISIONAL && !(READ_ONCE(t->flags) & PF_EXITING)) {
		if (READ_ONCE(t->on_cpu))
			s = (f & TSA_F_IN_KERNEL) ? TSA_SYS : TSA_USR;
		else if (state == TASK_RUNNING)
			s = TSA_LAT;
		else
			s = tsa_sleep_state(t, state, 0, true);
		tsa_acct_init(&th->acct, tsa_clock(), s, f);
	}
	tsa_thread_write_end(th, flags);
}

/*
 * The first half of tracking @t from now on, in process context: a
 * provisional record in the table, its own events taking the lock until
 * tsa_seed_state(). False if @t is gone, exiting or memory is short.
 */
static bool tsa_seed_insert(struct task_struct *t)
{
	struct tsa_thread *th;

	if (READ_ONCE(t->flags) & PF_EXITING)
		return false;
	th = tsa_thread_alloc(GFP_KERNEL);
	if (!th)
		return false;
	/*
	 * Where its on-CPU time goes is known now: an event that comes
	 * before tsa_seed_state() keeps it.
	 */
	tsa_acct_init(&th->acct, tsa_clock(), TSA_SLP,
		      TSA_F_SINCE_LOAD | TSA_F_PROVISIONAL |
		      tsa_kernel_flag(t, tsa_task_in_syscall(t)));
	th->seeding = TSA_SEEDING_SEEDER;
	return tsa_track(th, t);
}

/*
 * Track @tasks[0..@n) from now on (at load, or after forks the pool could
 * not serve), adding how many to @count; their references are dropped.
 * Records go in first, all of them; then one grace period, so that no
 * switch that missed a record is still under way; then their states.
 */
static void tsa_seed_batch(struct task_struct **tasks, unsigned int n,
			   atomic64_t *count)
{
	struct tsa_thread *th;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!tsa_seed_insert(tasks[i])) {
			put_task_struct(tasks[i]);
			tasks[i] = NULL;
		}
		cond_resched();
	}
	synchronize_rcu();
	for (i = 0; i < n; i++) {
		if (!tasks[i])
			continue;
		/* Ours: held by the task reference until it is freed. */
		rcu_read_lock();
		th = tsa_thread_find(tasks[i]);
		rcu_read_unlock();
		if (th) {
			tsa_seed_state(th, tasks[i]);
			tsa_thread_seeded(th);
			tsa_proc_tid_changed(task_pid_nr(tasks[i]));
			atomic64_inc(count);
		}
		put_task_struct(tasks[i]);
		cond_resched();
	}
}

/*
 * Track every thread alive now that is not tracked yet (at load: all of
 * them), adding how many to @count. Hooks are live already, so threads
 * born from here on are tracked by the fork hook; double inserts are
 * harmless. Memory is allocated outside RCU, one thread at a time.
 */
static int tsa_seed_untracked(atomic64_t *count)
{
	struct task_struct *g, *t, **tasks;
	unsigned int n = 0, max = 0;

	rcu_read_lock();
	for_each_process_thread(g, t)
		max++;
	rcu_read_unlock();

	tasks = kvmalloc_array(max, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return -ENOMEM;
	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (n == max)
			break;
		if (tsa_thread_find(t))
			continue;
		get_task_struct(t);
		tasks[n++] = t;
	}
	rcu_read_unlock();
	tsa_seed_batch(tasks, n, count);
	kvfree(tasks);
	return 0;
}

/*
 * Forks that the record pool could not serve (a burst faster than its
 * refill; on PREEMPT_RT the fork hook may not allocate at all) are
 * tracked a moment later from process context, as threads alive at load
 * are: TSA_F_SINCE_LOAD says their first moments are not in the numbers.
 * They wait by name in a queue of late_queue tasks; when it is full, the
 * work item walks all threads instead, so none stays untracked.
 */
static struct task_struct **tsa_late;
static struct tsa_group **tsa_late_groups;	/* each one's, pinned */
static unsigned int tsa_late_len;
static bool tsa_late_live, tsa_late_walk;
static DEFINE_RAW_SPINLOCK(tsa_late_lock);

/* Late forks seeded per grace period (tsa_seed_batch()). */
#define TSA_LATE_BATCH	32

static void tsa_late_fn(struct work_struct *work)
{
	struct task_struct *batch[TSA_LATE_BATCH];
	struct tsa_group *groups[TSA_LATE_BATCH];
	unsigned int n, i;
	unsigned long flags;
	bool walk;

	for (;;) {
		raw_spin_lock_irqsave(&tsa_late_lock, flags);
		for (n = 0; n < TSA_LATE_BATCH && tsa_late_len; n++) {
			batch[n] = tsa_late[--tsa_late_len];
			groups[n] = tsa_late_groups[tsa_late_len];
		}
		walk = !n && tsa_late_walk;
		if (walk)
			tsa_late_walk = false;
		raw_spin_unlock_irqrestore(&tsa_late_lock, flags);
		if (!n)
			break;
		tsa_seed_batch(batch, n, &tsa_late_tracked);
		/* Their records hold their groups now, if they went in. */
		for (i = 0; i < n; i++)
			tsa_group_unpin(groups[i]);
	}
	if (!walk)
		return;
	atomic64_inc(&tsa_late_walks);
	/* Out of memory: the next pool miss asks again. */
	if (tsa_seed_untracked(&tsa_late_tracked))
		pr_warn_ratelimited("tsa: no memory to look for untracked threads\n");
}
static DECLARE_WORK(tsa_late_work, tsa_late_fn);

/* From the fork hook: preemption off, @t not yet running. */
static void tsa_track_later(struct task_struct *t)
{
	unsigned long flags;
	bool queue;

	raw_spin_lock_irqsave(&tsa_late_lock, flags);
	queue = tsa_late_live;
	if (queue && tsa_late_len < tsa_param_late_queue) {
		get_task_struct(t);
		tsa_late_groups[tsa_late_len] = tsa_group_pin(t->signal);
		tsa_late[tsa_late_len++] = t;
	} else if (queue) {
		tsa_late_walk = true;
	}
	raw_spin_unlock_irqrestore(&tsa_late_lock, flags);
	if (queue)
		queue_work(tsa_unbound_wq, &tsa_late_work);
}

#define TSA_LATE_QUEUE_MAX	(1U << 20)

static int tsa_late_init(void)
{
	if (tsa_param_late_queue > TSA_LATE_QUEUE_MAX) {
		pr_err("tsa: late_queue=%u is more than %u\n",
		       tsa_param_late_queue, TSA_LATE_QUEUE_MAX);
		return -EINVAL;
	}
	if (!tsa_param_late_queue)
		return 0;
	tsa_late = kvcalloc(tsa_param_late_queue, sizeof(*tsa_late),
			    GFP_KERNEL);
	tsa_late_groups = kvcalloc(tsa_param_late_queue,
				   sizeof(*tsa_late_groups), GFP_KERNEL);
	if (tsa_late && tsa_late_groups)
		return 0;
	kvfree(tsa_late);
	kvfree(tsa_late_groups);
	tsa_late = NULL;
	tsa_late_groups = NULL;
	return -ENOMEM;
}

/* After the hooks are gone: nothing adds to the list any more. */
static void tsa_late_exit(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&tsa_late_lock, flags);
	tsa_late_live = false;
	raw_spin_unlock_irqrestore(&tsa_late_lock, flags);
	cancel_work_sync(&tsa_late_work);
	/* Process context, no lock: a put may free the task. */
	while (tsa_late_len) {
		put_task_struct(tsa_late[--tsa_late_len]);
		tsa_group_unpin(tsa_late_groups[tsa_late_len]);
	}
	kvfree(tsa_late);
	kvfree(tsa_late_groups);
	tsa_late = NULL;
	tsa_late_groups = NULL;
}

/* The hook named by the @n bytes at @name, or NULL. */
static struct tsa_hook *tsa_hook_find(const char *name, size_t n)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(tsa_hooks); i++)
		if (strlen(tsa_hooks[i].name) == n &&
		    !strncmp(tsa_hooks[i].name, name, n))
			return &tsa_hooks[i];
	return NULL;
}

static bool tsa_hook_live(const char *name)
{
	const struct tsa_hook *h = tsa_hook_find(name, strlen(name));

	return h && h->live;
}

/* Mark the hooks skip_hooks names; an unknown name fails the load. */
static int tsa_skip_hooks_parse(void)
{
	const char *p = tsa_param_skip_hooks;

	while (p && *p) {
		size_t n = strcspn(p, ",");
		struct tsa_hook *h = tsa_hook_find(p, n);

		if (!h) {
			pr_err("tsa: skip_hooks: no hook named '%.*s'\n",
			       (int)n, p);
			return -EINVAL;
		}
		h->skip = true;
		p += n + (p[n] == ',');
	}
	return 0;
}

static int tsa_hook_register(struct tsa_hook *h)
{
	struct kretprobe *rp;

	switch (h->kind) {
	case TSA_TRACEPOINT:
		if (!h->tp)
			return -ENOENT;
		return tracepoint_probe_register(h->tp, h->probe, NULL);
	case TSA_KPROBE:
		return register_kprobe(h->probe);
	case TSA_KRETPROBE:
		/* Faults sleep: many can be in flight on one CPU. */
		rp = h->probe;
		rp->maxactive = max(tsa_param_fault_maxactive, 1U);
		return register_kretprobe(rp);
	}
	return -EINVAL;
}

static void tsa_unregister(void)
{
	bool tracepoints = false;
	int i;

	for (i = ARRAY_SIZE(tsa_hooks) - 1; i >= 0; i--) {
		struct tsa_hook *h = &tsa_hooks[i];

		if (!h->live)
			continue;
		h->live = false;
		if (h->kind == TSA_TRACEPOINT) {
			tracepoint_probe_unregister(h->tp, h->probe, NULL);
			tracepoints = true;
		} else if (h->kind == TSA_KPROBE) {
			unregister_kprobe(h->probe);
		} else {
			unregister_kretprobe(h->probe);
		}
	}
	/* No probe runs after this returns (kprobes wait themselves). */
	if (tracepoints)
		tracepoint_synchronize_unregister();
	WRITE_ONCE(tsa_syscalls_live, false);
	WRITE_ONCE(tsa_edge_live, false);
}

int tsa_hooks_init(void)
{
	int i, ret;

	ret = tsa_skip_hooks_parse();
	if (ret)
		return ret;
	ret = tsa_late_init();
	if (ret)
		return ret;
	/* Before any hook runs: see tsa_thread_own_begin(). */
	tsa_irq_writers = tsa_param_interrupts;
	for_each_kernel_tracepoint(tsa_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(tsa_hooks); i++) {
		struct tsa_hook *h = &tsa_hooks[i];

		if (!*h->enabled)
			continue;
		/* An entry whose exit is missing would never be left. */
		if (h->exit && !tsa_hook_live(h->exit)) {
			if (h->degrades)
				pr_warn("tsa: not hooking %s: %s is not hooked; degraded, see /sys/kernel/debug/tsa/stats\n",
					h->name, h->exit);
			continue;
		}
		if (h->skip) {
			pr_info("tsa: not hooking %s: skip_hooks\n", h->name);
			ret = -ENOENT;
		} else {
			ret = tsa_hook_register(h);
		}
		if (ret && h->degrades == TSA_ALL) {
			pr_err("tsa: cannot hook %s (%d): no accounting possible\n",
			       h->name, ret);
			goto fail;
		}
		/* Losing nothing, it is no news (debugfs shows it). */
		if (ret && !h->degrades) {
			pr_debug("tsa: %s not hooked (%d)\n", h->name, ret);
			continue;
		}
		if (ret) {
			pr_warn("tsa: cannot hook %s (%d): degraded, see /sys/kernel/debug/tsa/stats\n",
				h->name, ret);
			continue;
		}
		h->live = true;
	}
	WRITE_ONCE(tsa_syscalls_live, tsa_hook_live("sys_enter") &&
				      tsa_hook_live("sys_exit"));
	WRITE_ONCE(tsa_edge_live, tsa_hook_live("user_enter") &&
				  tsa_hook_live("user_exit"));
	tsa_late_live = true;
	ret = tsa_seed_untracked(&tsa_seeded);
	if (ret)
		goto fail;
	return 0;
fail:
	tsa_unregister();
	tsa_late_exit();
	return ret;
}

void tsa_hooks_exit(void)
{
	tsa_unregister();
	tsa_late_exit();
}

/* Rows of the calls tables (none without the syscall hooks), or -EINVAL. */
int tsa_hooks_calls_rows(void)
{
	if (tsa_param_calls > TSA_CALLS_MAX_ROWS) {
		pr_err("tsa: calls=%u is more than %u\n", tsa_param_calls,
		       TSA_CALLS_MAX_ROWS);
		return -EINVAL;
	}
	return tsa_param_syscalls ? tsa_param_calls : 0;
}

/* Rows of the traps tables: only with the interrupt hooks. */
unsigned int tsa_hooks_trap_rows(void)
{
	return tsa_param_interrupts ? TSA_TRAP_ROWS : 0;
}

/* CPUs on which user_enter/user_exit bracket kernel time for tsa. */
static unsigned int tsa_edge_cpus(void)
{
	unsigned int n = 0;
	int cpu;

	if (!READ_ONCE(tsa_edge_live))
		return 0;
	for_each_online_cpu(cpu)
		n += context_tracking_enabled_cpu(cpu);
	return n;
}

void tsa_hooks_show(struct seq_file *m)
{
	u64 total[TSA_NR_EVENTS] = { 0 };
	int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < TSA_NR_EVENTS; i++)
			total[i] += per_cpu(tsa_events, cpu)[i];

	seq_puts(m, "#hook name live enabled events\n");
	for (i = 0; i < ARRAY_SIZE(tsa_hooks); i++) {
		const struct tsa_hook *h = &tsa_hooks[i];

		seq_printf(m, "hook %s %d %d %llu\n", h->name, h->live,
			   *h->enabled, total[h->ev]);
	}
	seq_printf(m, "fault_probe_missed %d\n", tsa_fault_probe.nmissed);
	seq_printf(m, "probe_lock_misses %lld\n",
		   atomic64_read(&tsa_probe_misses));
	seq_printf(m, "seeded %lld\n", atomic64_read(&tsa_seeded));
	seq_printf(m, "tracked_late %lld\n", atomic64_read(&tsa_late_tracked));
	seq_printf(m, "late_walks %lld\n", atomic64_read(&tsa_late_walks));
	seq_printf(m, "clock_clamps %llu\n", tsa_hooks_clamps());
	seq_printf(m, "switch_signal_running %lld\n",
		   atomic64_read(&tsa_switch_sig_running));
	seq_printf(m, "switch_odd %lld\n", atomic64_read(&tsa_switch_odd));
	seq_printf(m, "edge_cpus %u\n", tsa_edge_cpus());
}
