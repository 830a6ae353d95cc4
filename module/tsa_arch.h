/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every architecture-specific read tsa makes, in one place, for x86-64 and
 * arm64: where a task that is not running keeps its user registers, the
 * first two arguments of the system call in them, and whether the task
 * makes 32-bit (compat) calls. The call's number and return value come
 * from the kernel's own asm/syscall.h (syscall_get_nr(),
 * syscall_get_return_value()), which only read the registers they are
 * given, so they are safe under the rq lock and on a copy.
 *
 * What arm64 cannot give that x86-64 gives: names and wait classes for
 * the calls of 32-bit (AArch32) tasks, whose numbers are the arm ones
 * (tsa keeps no table of them): their calls show by number and their
 * sleeps by the other rules (a futex wait is SLP, not LCK). The debugfs
 * `degraded` line says so (TSA_ARCH_DEGRADED); see docs/kernels.md.
 */
#ifndef TSA_ARCH_H
#define TSA_ARCH_H

#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>

#if !defined(CONFIG_X86_64) && !defined(CONFIG_ARM64)
#error "tsa is built for x86-64 and arm64"
#endif

/* The x32 ABI's flag in an x86-64 call number; arm64 has none. */
#ifdef CONFIG_X86_64
#define TSA_ARCH_X32_BIT	0x40000000L	/* __X32_SYSCALL_BIT */
#else
#define TSA_ARCH_X32_BIT	0L
#endif

/* Words for debugfs' degraded line: what this architecture cannot tell. */
#if defined(CONFIG_ARM64) && defined(CONFIG_COMPAT)
#define TSA_ARCH_DEGRADED	"aarch32-calls"
#else
#define TSA_ARCH_DEGRADED	NULL
#endif

/*
 * Where the user registers of a task whose kernel stack begins at @stack
 * are saved on entry: at the top of that stack, below x86-64's padding
 * (task_pt_regs() of each architecture).
 */
static inline struct pt_regs *tsa_stack_user_regs(unsigned long stack)
{
#ifdef CONFIG_X86_64
	stack += THREAD_SIZE - TOP_OF_KERNEL_STACK_PADDING;
#else
	stack += THREAD_SIZE;
#endif
	return (struct pt_regs *)stack - 1;
}

/*
 * Copy the user registers of @p, which need not be current (seeding walks
 * every task). A task reference does not pin its stack: a thread that dies
 * meanwhile frees it at its last switch and sets ->stack to NULL (and
 * put_task_stack(), which would pin it, is not exported). The memory stays
 * mapped for an RCU grace period after that (thread_stack_delayed_free(),
 * or the per-CPU stack cache), so a nofault copy of a non-NULL ->stack
 * taken under RCU is safe; a dead task's copy is stale and harmless.
 * Returns false once the stack is gone.
 */
static inline bool tsa_task_user_regs(struct task_struct *p,
				      struct pt_regs *regs)
{
	unsigned long stack;
	bool ok = false;

	rcu_read_lock();
	stack = (unsigned long)READ_ONCE(p->stack);
	if (stack)
		ok = !copy_from_kernel_nofault(regs, tsa_stack_user_regs(stack),
					       sizeof(*regs));
	rcu_read_unlock();
	return ok;
}

/*
 * Whether a task that is not running was stopped inside a system call.
 * The number is -1 for every other entry from user mode: x86-64's orig_ax
 * for exceptions and interrupts, arm64's syscallno (NO_SYSCALL), which
 * its entry code sets before anything else.
 */
static inline bool tsa_task_in_syscall(struct task_struct *p)
{
	struct pt_regs regs;

	if (p->flags & PF_KTHREAD)
		return true;
	return tsa_task_user_regs(p, &regs) && syscall_get_nr(p, &regs) >= 0;
}

/*
 * A 32-bit task's call: x86-64 marks a compat call (TS_COMPAT) while it
 * runs; an arm64 AArch32 task makes nothing else (TIF_32BIT).
 */
static inline bool tsa_task_compat(struct task_struct *p)
{
#if defined(CONFIG_X86_64) && defined(CONFIG_IA32_EMULATION)
	return task_thread_info(p)->status & TS_COMPAT;
#elif defined(CONFIG_ARM64) && defined(CONFIG_COMPAT)
	return is_compat_thread(task_thread_info(p));
#else
	return false;
#endif
}

/*
 * The first two arguments of the system call in @regs, as
 * syscall_get_arguments() reads them, without its six-word copy (hot:
 * every sleep of a user thread looks at its call). arm64 returns a value
 * in x0 over the first argument, so that one is read from orig_x0, saved
 * at entry (AArch32 calls too: r0 and r1 are x0 and x1).
 */
static inline void tsa_syscall_args01(struct task_struct *p,
				      const struct pt_regs *regs,
				      unsigned long *a0, unsigned long *a1)
{
#ifdef CONFIG_X86_64
	if (tsa_task_compat(p)) {
		*a0 = regs->bx;
		*a1 = regs->cx;
	} else {
		*a0 = regs->di;
		*a1 = regs->si;
	}
#else
	*a0 = regs->orig_x0;
	*a1 = regs->regs[1];
#endif
}

#endif /* TSA_ARCH_H */
