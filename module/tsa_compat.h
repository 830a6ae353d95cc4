/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between kernel versions that tsa cares about, in one
 * place, so that no other file tests LINUX_VERSION_CODE.
 *
 * Checked: 6.1 (Debian generic and PREEMPT_RT). Known differences in newer
 * kernels are noted where they would bite; see docs/kernels.md.
 */
#ifndef TSA_COMPAT_H
#define TSA_COMPAT_H

#include <linux/version.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>
#include <asm/syscall.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 18, 0)
#error "tsa needs sched_switch with prev_state (Linux 5.18 or later)"
#endif

/*
 * Probe prototypes. A tracepoint's probe receives the registration's data
 * pointer first, then the tracepoint's arguments. 6.16 adds group_dead to
 * sched_process_exit; tsa ignores its arguments beyond the task.
 */
#define TSA_PROBE_SCHED_SWITCH(fn)					\
	void fn(void *data, bool preempt, struct task_struct *prev,	\
		struct task_struct *next, unsigned int prev_state)
#define TSA_PROBE_TASK(fn)						\
	void fn(void *data, struct task_struct *p)
#define TSA_PROBE_FORK(fn)						\
	void fn(void *data, struct task_struct *parent,			\
		struct task_struct *child)
#define TSA_PROBE_EXEC(fn)						\
	void fn(void *data, struct task_struct *p, pid_t old_pid,	\
		struct linux_binprm *bprm)
#define TSA_PROBE_SYS_ENTER(fn)						\
	void fn(void *data, struct pt_regs *regs, long id)
#define TSA_PROBE_SYS_EXIT(fn)						\
	void fn(void *data, struct pt_regs *regs, long ret)

/*
 * Compile-time check that a probe matches the tracepoint it is registered
 * on, without linking to the (unexported) register_trace_<name>().
 */
#define TSA_CHECK_PROBE(name, probe)					\
	static_assert(sizeof(register_trace_##name(probe, NULL)) ==	\
		      sizeof(int))

/*
 * Probes run with preemption disabled up to 6.12; from 6.13 syscall
 * probes may run preemptible. tsa disables preemption itself around
 * anything that needs a stable CPU, so both are fine.
 */

/* A task's real state word (6.1: __state; before 5.14: state). */
static inline unsigned int tsa_task_state(const struct task_struct *p)
{
	return READ_ONCE(p->__state);
}

/*
 * Whether a task that is not running was stopped inside a system call.
 * On x86 the syscall number (orig_ax) is -1 for exceptions and interrupts.
 */
static inline bool tsa_task_in_syscall(struct task_struct *p)
{
	if (p->flags & PF_KTHREAD)
		return true;
	return syscall_get_nr(p, task_pt_regs(p)) >= 0;
}

#endif /* TSA_COMPAT_H */
