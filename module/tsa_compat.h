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
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>
#include <trace/events/lock.h>
#include <linux/interrupt.h>
#include <trace/events/irq.h>
#include <trace/events/signal.h>
#include <trace/events/task.h>
#include <trace/events/timer.h>
#include <trace/events/context_tracking.h>
#include <linux/context_tracking_state.h>
#include <linux/fdtable.h>
#include <linux/fs.h>
#include <linux/rcupdate.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>
#include <linux/pid_namespace.h>
#include <linux/idr.h>
#include <linux/sched/coredump.h>
#ifdef TSA_HAVE_EXEC_STATE
#include <linux/sched/exec_state.h>
#endif
#include "tsa_arch.h"

/*
 * Features that stable backports add, so that no version tells: Kbuild
 * finds them in the headers (TSA_HAVE_*).
 */

#if KERNEL_VERSION(5, 10, 0) > LINUX_VERSION_CODE
#error "tsa needs Linux 5.10 or later"
#endif

/*
 * Probe prototypes. A tracepoint's probe receives the registration's data
 * pointer first, then the tracepoint's arguments. 6.16 adds group_dead to
 * sched_process_exit; tsa ignores its arguments beyond the task.
 */
#define TSA_PROBE_SCHED_SWITCH(fn)					\
	void fn(void *data, bool preempt, struct task_struct *prev,	\
		struct task_struct *next, unsigned int prev_state)
/*
 * Before 5.18 sched_switch has no prev_state: the probe registered there
 * (tsa_sched_switch_old) finds it in the task, see tsa_switch_prev_state().
 */
#if KERNEL_VERSION(5, 18, 0) > LINUX_VERSION_CODE
#define TSA_SWITCH_NO_PREV_STATE
#define TSA_PROBE_SCHED_SWITCH_OLD(fn)					\
	void fn(void *data, bool preempt, struct task_struct *prev,	\
		struct task_struct *next)
#endif
#define TSA_PROBE_TASK(fn)						\
	void fn(void *data, struct task_struct *p)
#if KERNEL_VERSION(6, 16, 0) <= LINUX_VERSION_CODE
#define TSA_PROBE_EXIT(fn)						\
	void fn(void *data, struct task_struct *p, bool group_dead)
#else
#define TSA_PROBE_EXIT(fn)	TSA_PROBE_TASK(fn)
#endif
/*
 * task_newtask passes clone_flags as unsigned long, as u64 in newer
 * kernels; the probe takes whichever type the tracepoint declares.
 */
#define TSA_NEWTASK_U64_T						\
	int (*)(void (*)(void *, struct task_struct *, u64), void *)
#define TSA_CLONE_FLAGS_T						\
	__typeof__(__builtin_choose_expr(				\
		__builtin_types_compatible_p(				\
			typeof(&register_trace_task_newtask),		\
			TSA_NEWTASK_U64_T), 0ULL, 0UL))
#define TSA_PROBE_NEWTASK(fn)						\
	void fn(void *data, struct task_struct *p,			\
		TSA_CLONE_FLAGS_T clone_flags)
#define TSA_PROBE_EXEC(fn)						\
	void fn(void *data, struct task_struct *p, pid_t old_pid,	\
		struct linux_binprm *bprm)
#define TSA_PROBE_SYS_ENTER(fn)						\
	void fn(void *data, struct pt_regs *regs, long id)
#define TSA_PROBE_SYS_EXIT(fn)						\
	void fn(void *data, struct pt_regs *regs, long ret)
#define TSA_PROBE_CONTENTION_BEGIN(fn)					\
	void fn(void *data, void *lock, unsigned int flags)
#define TSA_PROBE_CONTENTION_END(fn)					\
	void fn(void *data, void *lock, int ret)
#define TSA_PROBE_IRQ_ENTRY(fn)						\
	void fn(void *data, int irq, struct irqaction *action)
#define TSA_PROBE_IRQ_EXIT(fn)						\
	void fn(void *data, int irq, struct irqaction *action, int ret)
#define TSA_PROBE_SOFTIRQ(fn)						\
	void fn(void *data, unsigned int vec_nr)
/* hrtimer_expire_entry passes the base's time by value in 7.x (Kbuild). */
#ifdef TSA_HAVE_HRTIMER_NOW_VALUE
#define TSA_PROBE_HRTIMER_ENTRY(fn)					\
	void fn(void *data, struct hrtimer *hrtimer, ktime_t now)
#else
#define TSA_PROBE_HRTIMER_ENTRY(fn)					\
	void fn(void *data, struct hrtimer *hrtimer, ktime_t *now)
#endif
#define TSA_PROBE_HRTIMER_EXIT(fn)					\
	void fn(void *data, struct hrtimer *hrtimer)
#define TSA_PROBE_TIMER_ENTRY(fn)					\
	void fn(void *data, struct timer_list *timer, unsigned long baseclk)
#define TSA_PROBE_TIMER_EXIT(fn)					\
	void fn(void *data, struct timer_list *timer)
#define TSA_PROBE_USER_EDGE(fn)						\
	void fn(void *data, int dummy)
#define TSA_PROBE_SIGNAL_DELIVER(fn)					\
	void fn(void *data, int sig, struct kernel_siginfo *info,	\
		struct k_sigaction *ka)

/*
 * Compile-time check that a probe matches the tracepoint it is registered
 * on, without linking to the (unexported) register_trace_<name>().
 */
#define TSA_CHECK_PROBE(name, probe)					\
	static_assert(sizeof(register_trace_##name(probe, NULL)) ==	\
		      sizeof(int))

/*
 * Lock contention tracepoints came in 5.19. Before, the probes are built
 * but never registered (no tracepoint has their name) and KLK is degraded:
 * a sleep on a kernel lock is classified as any other sleep.
 */
#if KERNEL_VERSION(5, 19, 0) > LINUX_VERSION_CODE
#define TSA_CHECK_CONTENTION_PROBE(name, probe)	static_assert(1)
#ifndef LCB_F_SPIN
#define LCB_F_SPIN	(1U << 0)
#endif
#else
#define TSA_CHECK_CONTENTION_PROBE(name, probe)	TSA_CHECK_PROBE(name, probe)
#endif

/*
 * The first function of a swap-in fault's swap cache lookup, for APG's
 * kprobe: swap_cache_get_folio() from 6.1.y and 6.3, lookup_swap_cache()
 * before.
 */
#if KERNEL_VERSION(6, 1, 0) > LINUX_VERSION_CODE
#define TSA_SWAPIN_FUNC	"lookup_swap_cache"
#else
#define TSA_SWAPIN_FUNC	"swap_cache_get_folio"
#endif

/*
 * Probes run with preemption disabled up to 6.12; from 6.13 the syscall
 * tracepoints may fault and call their probes preemptible (found in the
 * headers by Kbuild, for backports): the syscall probes then disable it
 * themselves around anything that needs a stable CPU.
 */
#ifdef TSA_HAVE_FAULTABLE_SYSCALL_TP
#define tsa_syscall_preempt_disable()	preempt_disable_notrace()
#define tsa_syscall_preempt_enable()	preempt_enable_notrace()
#else
#define tsa_syscall_preempt_disable()	do { } while (0)
#define tsa_syscall_preempt_enable()	do { } while (0)
#endif

/*
 * A VMA's flags are changed through vm_flags_*() from 6.3 (which assert
 * the mmap lock); before, directly.
 */
#if KERNEL_VERSION(6, 3, 0) > LINUX_VERSION_CODE
static inline void tsa_vm_flags_mod(struct vm_area_struct *vma,
				    unsigned long set, unsigned long clear)
{
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
}
#else
#define tsa_vm_flags_mod(vma, set, clear)	vm_flags_mod(vma, set, clear)
#endif

/*
 * The clock of every timestamp: CLOCK_MONOTONIC, the same on every CPU.
 * local_clock() is cheaper on some machines but runs per CPU and may
 * disagree between CPUs by up to a tick when the TSC is unstable; then a
 * reader on one CPU could charge time that the thread's next event on
 * another takes back. This one is also NMI-safe and lockless.
 */
static inline u64 tsa_clock(void)
{
	return ktime_get_mono_fast_ns();
}

/* A task's real state word (6.1: __state; before 5.14: state). */
static inline unsigned int tsa_task_state(const struct task_struct *p)
{
#if KERNEL_VERSION(5, 14, 0) > LINUX_VERSION_CODE
	return READ_ONCE(p->state);
#else
	return READ_ONCE(p->__state);
#endif
}

#ifdef TSA_SWITCH_NO_PREV_STATE
/*
 * The state __schedule() switched @prev out in, as 5.18's prev_state says
 * it, read from the task under the rq lock. A task still on its run queue
 * was preempted, yielded, or had a sleep undone by a pending signal: 0,
 * as for a preemption; the kernel's nvcsw count tells the undone sleep
 * (tsa_sched_switch()). A task off it slept, in the state it set, unless
 * a wakeup on another CPU has already written TASK_WAKING over it
 * (try_to_wake_up() may once the task is off the queue): then the kind of
 * sleep is lost and @lost is set; it counts as interruptible.
 */
static inline unsigned int tsa_switch_prev_state(bool preempt,
						 struct task_struct *prev,
						 bool *lost)
{
	unsigned int state;

	*lost = false;
	if (preempt || READ_ONCE(prev->on_rq))
		return 0;
	state = tsa_task_state(prev);
	if (state == TASK_RUNNING || state == TASK_WAKING) {
		*lost = true;
		return TASK_INTERRUPTIBLE;
	}
	return state;
}
#endif

/*
 * In the cgroup v2 freezer's trap (cgroup.freeze, docker pause): the task
 * sleeps interruptibly in do_freezer_trap() with ->frozen set.
 */
static inline bool tsa_task_cgroup_frozen(struct task_struct *p)
{
#ifdef CONFIG_CGROUPS
	return p->frozen;
#else
	return false;
#endif
}

/*
 * The second half of ptrace_may_access() (not exported): a target that is
 * not dumpable by its owner (a setuid exec, PR_SET_DUMPABLE 0) may be read
 * only with CAP_SYS_PTRACE in the user namespace it exec'd in. Returns that
 * namespace, or NULL when the owner's credentials suffice. Caller holds
 * task_lock(@t) (it keeps ->mm and ->exec_state) until it has used it.
 *  - 7.2+: dumpability and namespace live in the task's ->exec_state.
 *  - before: in ->mm; a task without one (a kthread, or after exit_mm())
 *    by ->user_dumpable where the kernel has it (6.1.y/6.12.y backport),
 *    else the kernel let the credential match decide.
 */
static inline struct user_namespace *tsa_task_dump_ns(struct task_struct *t)
{
#ifdef TSA_HAVE_EXEC_STATE
	struct task_exec_state *es;

	es = rcu_dereference_check(t->exec_state,
				   lockdep_is_held(&t->alloc_lock));
	if (!es)
		return &init_user_ns;
	return es->dumpable == TASK_DUMPABLE_OWNER ? NULL : es->user_ns;
#else
	if (t->mm)
		return get_dumpable(t->mm) == SUID_DUMP_USER ? NULL :
							       t->mm->user_ns;
#ifdef TSA_HAVE_USER_DUMPABLE
	return t->user_dumpable ? NULL : &init_user_ns;
#else
	return NULL;
#endif
#endif
}

/*
 * The first pid at or above @nr in @ns: find_ge_pid() where the kernel
 * exports it (found in Module.symvers by Kbuild), else what it does.
 * Under rcu_read_lock().
 */
static inline struct pid *tsa_find_ge_pid(int nr, struct pid_namespace *ns)
{
#ifdef TSA_HAVE_FIND_GE_PID
	return find_ge_pid(nr, ns);
#else
	return idr_get_next(&ns->idr, &nr);
#endif
}

/* A /proc file's data: PDE_DATA() before 5.17. */
#if KERNEL_VERSION(5, 17, 0) > LINUX_VERSION_CODE
#include <linux/proc_fs.h>
#define pde_data(inode)	PDE_DATA(inode)
#endif

/*
 * Work that may run on any CPU: 6.17+ names the unbound queue system_dfl_wq
 * and warns at every use of the old name.
 */
#ifdef TSA_HAVE_SYSTEM_DFL_WQ
#define tsa_unbound_wq system_dfl_wq
#else
#define tsa_unbound_wq system_unbound_wq
#endif

static inline bool tsa_task_memstall(struct task_struct *p)
{
#ifdef CONFIG_PSI
	return p->in_memstall;
#else
	return false;
#endif
}

/*
 * Is @fd of the current task a socket or a pipe? Safe under the rq lock:
 * RCU only, no reference taken. files_lookup_fd_raw() is used because the
 * RCU helpers were renamed in 6.7 (and take a reference there). Before 6.7
 * a file is freed after a grace period, so the one found stays whole here.
 * From 6.7 files are SLAB_TYPESAFE_BY_RCU: one closed meanwhile may already
 * be another file, or one being set up with no inode yet. Its memory is
 * still a struct file and inodes are freed after a grace period, so
 * reading ->f_inode once and checking it is enough: the worst a recycled
 * file does is misname one sleep.
 */
/*
 * Called only with IRQs off (a switch, under the rq lock): already an RCU
 * read-side section since RCU's flavours were consolidated (5.0), so no
 * rcu_read_lock() call; files_lookup_fd_raw() checks nothing itself.
 */
static __always_inline bool tsa_current_fd_is_stream(unsigned long fd)
{
	struct inode *inode;
	struct file *f;
	umode_t mode = 0;

	lockdep_assert_irqs_disabled();
	if (fd > INT_MAX || !current->files)
		return false;
	f = files_lookup_fd_raw(current->files, fd);
	if (f) {
		inode = READ_ONCE(f->f_inode);
		if (inode)
			mode = READ_ONCE(inode->i_mode);
	}
	return S_ISSOCK(mode) || S_ISFIFO(mode);
}


#endif /* TSA_COMPAT_H */
