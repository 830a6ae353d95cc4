// SPDX-License-Identifier: GPL-2.0
/*
 * tsa hooks, the system call edges: sys_enter and sys_exit on every CPU,
 * and where context tracking reports it (nohz_full), the user/kernel
 * boundary itself. The syscall edges open the record, then read the
 * clock (as a switch does); the boundary's entry reads it first, so that
 * its own work is SYS (tsa_thread_early_stamp()).
 */
#include <linux/kernel.h>
#include <linux/jump_label.h>
#include <linux/sched.h>
#include <asm/syscall.h>

#include "tsa_calib.h"
#include "tsa_edge.h"
#include "tsa_probes.h"

/*
 * The general path: any call tsa_edge.h's fast paths do not take. The
 * call's number (as the task passed it) and return value are read from
 * the task's registers, which the tracepoints pass too (the number after
 * seccomp and a tracer changed it): the probes need not keep them. As on
 * the fast paths, the clock is read with the record open: see
 * tsa_sched_switch().
 */
static noinline void tsa_syscall(enum tsa_event ev)
{
	struct pt_regs *regs = current_pt_regs();
	long nr = syscall_get_nr(current, regs);
	bool compat = tsa_task_compat(current);
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;
	u16 call;
	u64 now;

	th = tsa_thread_current();
	if (!th)
		return;
	call = tsa_call_key(nr, compat);
	locked = tsa_thread_own_begin(th, &flags);
	now = tsa_stamp(ev == TSA_EV_SYS_ENTER ? TSA_STAMP_SYS_ENTER :
			TSA_STAMP_SYS_EXIT, &th->acct, tsa_clock());
	if (ev == TSA_EV_SYS_ENTER) {
		if (unlikely(tsa_acct_fault_stale(&th->acct,
						  TSA_C_FAULT_DATA)))
			tsa_fault_stale_seen();
		tsa_clamped(tsa_acct_sys_enter(&th->acct, now, call));
	} else {
		long ret = syscall_get_return_value(current, regs);

		tsa_clamped(tsa_acct_sys_exit(&th->acct, now, call,
					      tsa_syscall_took_signal(nr, compat,
								      ret)));
		tsa_acct_set_head(&th->acct, this_cpu_read(tsa_cross.sys));
	}
	tsa_thread_own_end(th, flags, locked);
}

/* A 64-bit call by a 64-bit task: its number is its calls-table key. */
static __always_inline bool tsa_edge_call(long nr)
{
	return (unsigned long)nr <= TSA_CALL_NR_MASK &&
		!tsa_task_compat(current);
}

/*
 * The edges themselves: one probe each, the fast path inlined. The record
 * is opened before the clock is read, as at a switch, so that a reader
 * that copied it before the open charged the old state no later than the
 * stamp; the probe's work before that is the user's time (a few
 * instructions), after it the kernel's.
 */
TSA_PROBE_SYS_ENTER(tsa_sys_enter)
{
	struct tsa_thread *th;

	tsa_syscall_preempt_disable();
	tsa_event(TSA_EV_SYS_ENTER);
	th = this_cpu_read(tsa_cpu.current_th);
	if (likely(tsa_thread_mine(th) && tsa_acct_sys_enter_plain(&th->acct) &&
		   tsa_edge_call(id))) {
		raw_write_seqcount_begin(&th->seq);
		tsa_acct_sys_enter_fast_pre(&th->acct, id);
		tsa_acct_sys_enter_fast_at(&th->acct,
					   tsa_stamp(TSA_STAMP_SYS_ENTER,
						     &th->acct, tsa_clock()));
		raw_write_seqcount_end(&th->seq);
	} else {
		tsa_syscall(TSA_EV_SYS_ENTER);
	}
	tsa_syscall_preempt_enable();
}
TSA_CHECK_PROBE(sys_enter, tsa_sys_enter);

/*
 * The fast return to row @r, the way tsa_acct_sys_exit_row() decided
 * (@unhinted: tsa_acct_sys_exit_row_unhinted() did, and the row may be
 * free).
 */
static __always_inline void tsa_sys_exit_fast(struct tsa_thread *th,
					      struct tsa_call_row *r,
					      enum tsa_exit_way way,
					      bool unhinted)
{
	u64 now;
	u16 head;

	raw_write_seqcount_begin(&th->seq);
	now = tsa_stamp(TSA_STAMP_SYS_EXIT, &th->acct, tsa_clock());
	head = this_cpu_read(tsa_cross.sys);
	if (unhinted)
		tsa_acct_sys_exit_fast_unhinted_at(&th->acct, now, head, r,
						   way);
	else
		tsa_acct_sys_exit_fast_at(&th->acct, now, head, r, way);
	raw_write_seqcount_end(&th->seq);
}

/*
 * The return of a call neither hint names (another row, or a new
 * thread's first calls): the rows searched out of the probe's line.
 */
static noinline void tsa_sys_exit_unhinted(struct tsa_thread *th)
{
	struct tsa_call_row *r;
	enum tsa_exit_way way = tsa_acct_sys_exit_row_unhinted(&th->acct, &r);

	if (way != TSA_EXIT_GENERAL)
		tsa_sys_exit_fast(th, r, way, true);
	else
		tsa_syscall(TSA_EV_SYS_EXIT);
}

/*
 * Which way the return goes (and its row) is decided by the key its
 * entry left, before the record is opened, so that only the record and
 * the row live across the clock read; the call's number is read only on
 * the general paths (tsa_syscall()). Each fast way is inlined on its own.
 */
TSA_PROBE_SYS_EXIT(tsa_sys_exit)
{
	enum tsa_exit_way way = TSA_EXIT_GENERAL;
	struct tsa_call_row *r;
	struct tsa_thread *th;

	tsa_syscall_preempt_disable();
	tsa_event(TSA_EV_SYS_EXIT);
	th = this_cpu_read(tsa_cpu.current_th);
	if (likely(tsa_thread_mine(th) && tsa_acct_sys_exit_plain(&th->acct)))
		way = tsa_acct_sys_exit_row(&th->acct, &r);
	if (likely(way == TSA_EXIT_ON_CPU))
		tsa_sys_exit_fast(th, r, TSA_EXIT_ON_CPU, false);
	else if (way == TSA_EXIT_OFF_CPU)
		tsa_sys_exit_fast(th, r, TSA_EXIT_OFF_CPU, false);
	else if (way == TSA_EXIT_NO_TABLE)
		tsa_sys_exit_fast(th, NULL, TSA_EXIT_NO_TABLE, false);
	else if (way == TSA_EXIT_UNHINTED)
		tsa_sys_exit_unhinted(th);
	else
		/* Not plain (a row to take over, a slot). */
		tsa_syscall(TSA_EV_SYS_EXIT);
	tsa_syscall_preempt_enable();
}
TSA_CHECK_PROBE(sys_exit, tsa_sys_exit);

/* With interrupt writers: every call the general way, IRQs off. */
TSA_PROBE_SYS_ENTER(tsa_sys_enter_general)
{
	tsa_syscall_preempt_disable();
	tsa_event(TSA_EV_SYS_ENTER);
	tsa_syscall(TSA_EV_SYS_ENTER);
	tsa_syscall_preempt_enable();
}
TSA_CHECK_PROBE(sys_enter, tsa_sys_enter_general);

TSA_PROBE_SYS_EXIT(tsa_sys_exit_general)
{
	tsa_syscall_preempt_disable();
	tsa_event(TSA_EV_SYS_EXIT);
	tsa_syscall(TSA_EV_SYS_EXIT);
	tsa_syscall_preempt_enable();
}
TSA_CHECK_PROBE(sys_exit, tsa_sys_exit_general);

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

/* The clock first on the way in, last on the way out: SYS between. */
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
