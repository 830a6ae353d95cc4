// SPDX-License-Identifier: GPL-2.0
/*
 * tsa hooks, the system call edges: sys_enter and sys_exit on every CPU,
 * and where context tracking reports it (nohz_full), the user/kernel
 * boundary itself. The clock is read first on the way in and last on the
 * way out, so the probes' own work is the kernel's time, SYS.
 */
#include <linux/kernel.h>
#include <linux/sched.h>

#include "tsa_probes.h"


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
TSA_PROBE_SYS_ENTER(tsa_sys_enter)
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
TSA_PROBE_SYS_EXIT(tsa_sys_exit)
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
TSA_PROBE_USER_EDGE(tsa_user_exit)
{
	tsa_user_edge(TSA_EV_USER_EXIT, tsa_clock());
}
TSA_CHECK_PROBE(user_exit, tsa_user_exit);

TSA_PROBE_USER_EDGE(tsa_user_enter)
{
	tsa_user_edge(TSA_EV_USER_ENTER, 0);
}
TSA_CHECK_PROBE(user_enter, tsa_user_enter);
