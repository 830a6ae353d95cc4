// SPDX-License-Identifier: GPL-2.0
/*
 * tsa hooks, a thread's life: records are made in the fork hook (no rq
 * lock held there, but preemption off: from the record pool) and at load,
 * handed to the process at exit and removed in the free hook. Threads
 * alive at load, and forks the pool could not serve, are seeded from
 * process context: a provisional record first, their state after a
 * grace period.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "tsa_probes.h"
#include "tsa_proc.h"

static atomic64_t tsa_seeded = ATOMIC64_INIT(0);
static atomic64_t tsa_late_tracked = ATOMIC64_INIT(0);
static atomic64_t tsa_late_walks = ATOMIC64_INIT(0);

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
 * Does @p get a kernel thread's record, which has no calls table (a
 * kernel thread makes no system call)? Before 5.19 a usermode helper
 * starts as a kernel thread too, forked by a workqueue worker (@parent,
 * NULL if not known), and then execs a program: it gets a user thread's.
 * An io_uring worker is a thread of a user process and shares its group:
 * a user thread's record as well.
 */
static bool tsa_kern_record(struct task_struct *p, struct task_struct *parent)
{
	return (p->flags & PF_KTHREAD) &&
	       !(parent && (parent->flags & PF_WQ_WORKER));
}

/*
 * Insert @th for @t unless @t already has a record or is already
 * released (then its free hook has run or is queued behind us); else
 * free it. *@orphan: not inserted only because @th had no group to
 * bring for a process tsa does not know (tsa_thread_insert()).
 */
static struct tsa_thread *tsa_track(struct tsa_thread *th,
				    struct task_struct *t, bool *orphan)
{
	struct tsa_thread *in = NULL;
	bool alive;

	rcu_read_lock();
	alive = pid_alive(t) && !t->exit_state;
	if (alive)
		in = tsa_thread_insert(th, t);
	rcu_read_unlock();
	*orphan = alive && !in;
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
TSA_PROBE_NEWTASK(tsa_task_newtask)
{
	struct task_struct *child = p;
	struct tsa_thread *th;
	bool orphan;

	tsa_event(TSA_EV_FORK);
	if (!task_pid_nr(child))
		return;
	/*
	 * Probes run with preemption off: no sleeping allocation. A new
	 * thread of a process whose forking thread tsa tracks joins that
	 * thread's group (the same signal_struct), which lives at least
	 * as long as that thread: it brings no spare group.
	 */
	th = tsa_thread_alloc_atomic(tsa_kern_record(child, current),
				     !(clone_flags & CLONE_THREAD) ||
				     !tsa_thread_current());
	if (!th) {
		tsa_track_later(child);
		return;
	}
	/* Born runnable: wake_up_new_task() queues it next. */
	tsa_acct_init_fresh(&th->acct, tsa_clock(), TSA_LAT,
			    tsa_kernel_flag(child, true));
	if (tsa_track(th, child, &orphan))
		tsa_proc_tid_changed(task_pid_nr(child));
	else if (orphan)
		tsa_track_later(child);
}
TSA_CHECK_PROBE(task_newtask, tsa_task_newtask);

/*
 * A non-leader thread that execs takes over the leader's tid. A usermode
 * helper (forked from a kernel thread before 5.19) is a user thread now.
 */
TSA_PROBE_EXEC(tsa_sched_process_exec)
{
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;

	tsa_event(TSA_EV_EXEC);
	th = tsa_thread_current();
	if (th && unlikely(READ_ONCE(th->acct.flags) & TSA_F_KTHREAD) &&
	    !(tsa_kernel_flag(p, false) & TSA_F_KTHREAD)) {
		locked = tsa_thread_own_begin(th, &flags);
		tsa_acct_exec(&th->acct, false);
		tsa_thread_own_end(th, flags, locked);
	}
	/* Its slot's mappings went with the old mm. */
	if (th && unlikely(READ_ONCE(th->acct.hold) & TSA_HOLD_SLOT))
		tsa_slot_stop(th);
	if (old_pid != task_pid_nr(p)) {
		tsa_proc_tid_changed(old_pid);
		tsa_proc_tid_changed(task_pid_nr(p));
	}
}
TSA_CHECK_PROBE(sched_process_exec, tsa_sched_process_exec);

TSA_PROBE_EXIT(tsa_sched_process_exit)
{
	struct tsa_thread *th;

	tsa_event(TSA_EV_EXIT);
	th = tsa_thread_find(p);
	if (th)
		tsa_clamped(tsa_thread_exit_begin(th));
	tsa_proc_tid_changed(task_pid_nr(p));
}
TSA_CHECK_PROBE(sched_process_exit, tsa_sched_process_exit);

/*
 * After the task's last switch (this runs once both its RCU users are
 * gone, the final switch's and release_task()'s): no CPU puts its record
 * in last_out again, and a CPU that read it there before this is done
 * with it before the grace period ends.
 */
TSA_PROBE_TASK(tsa_sched_process_free)
{
	struct tsa_thread *th;

	tsa_event(TSA_EV_FREE);
	th = tsa_thread_find(p);
	if (th)
		tsa_forget_out(th, READ_ONCE(th->acct.last_cpu));
	tsa_thread_remove(p);
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
	bool orphan;	/* never: this record brings its group */

	if (READ_ONCE(t->flags) & PF_EXITING)
		return false;
	/* A usermode helper seen before its exec (< 5.19): no calls rows. */
	th = tsa_thread_alloc(GFP_KERNEL, tsa_kern_record(t, NULL));
	if (!th)
		return false;
	/*
	 * Where its on-CPU time goes is known now: an event that comes
	 * before tsa_seed_state() keeps it.
	 */
	tsa_acct_init(&th->acct, tsa_clock(), TSA_SLP,
		      TSA_F_SINCE_LOAD | TSA_F_PROVISIONAL |
		      tsa_kernel_flag(t, tsa_task_in_syscall(t)));
	th->acct.hold = TSA_HOLD_SEEDER;
	return tsa_track(th, t, &orphan);
}

/*
 * Track @tasks[0..@n) from now on (at load, or after forks the pool could
 * not serve), adding how many to @count; their references are dropped.
 * Records go in first, all of them; then one grace period, so that no
 * switch that missed a record is still under way; then their states.
 *
 * @pins (or NULL) holds each task's group as tsa_group_pin() took it.
 * They are let go once the records are in (a record holds its group) and
 * before any task reference is dropped: the last put of a task may free
 * its signal_struct, and a group pinned past that would be found by the
 * next process the allocator gives the same address to.
 */
static void tsa_seed_batch(struct task_struct **tasks,
			   struct tsa_group **pins, unsigned int n,
			   atomic64_t *count)
{
	struct tsa_thread *th;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!tsa_seed_insert(tasks[i])) {
			if (pins)
				tsa_group_unpin(pins[i]);
			put_task_struct(tasks[i]);
			tasks[i] = NULL;
		}
		cond_resched();
	}
	for (i = 0; pins && i < n; i++)
		if (tasks[i])
			tsa_group_unpin(pins[i]);
	synchronize_rcu();
	for (i = 0; i < n; i++) {
		if (!tasks[i])
			continue;
		/*
		 * Used under RCU: the task reference holds the task, not
		 * its record, which the free hook may remove (and free
		 * after a grace period) once the task has exited.
		 */
		rcu_read_lock();
		th = tsa_thread_find(tasks[i]);
		if (th) {
			tsa_seed_state(th, tasks[i]);
			tsa_thread_seeded(th);
		}
		rcu_read_unlock();
		if (th) {
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
	tsa_seed_batch(tasks, NULL, n, count);
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
	unsigned int n;
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
		tsa_seed_batch(batch, groups, n, &tsa_late_tracked);
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

/* Before any hook is registered. */
int tsa_track_init(void)
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
void tsa_track_exit(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&tsa_late_lock, flags);
	tsa_late_live = false;
	raw_spin_unlock_irqrestore(&tsa_late_lock, flags);
	cancel_work_sync(&tsa_late_work);
	/* Process context, no lock: a put may free the task. */
	while (tsa_late_len) {
		tsa_group_unpin(tsa_late_groups[--tsa_late_len]);
		put_task_struct(tsa_late[tsa_late_len]);
	}
	kvfree(tsa_late);
	kvfree(tsa_late_groups);
	tsa_late = NULL;
	tsa_late_groups = NULL;
}

/* Hooks are live: track every thread alive now, and forks from here on. */
int tsa_track_start(void)
{
	int ret;

	tsa_late_live = true;
	ret = tsa_seed_untracked(&tsa_seeded);
	/* Once insmod returns, every thread alive before it has its file. */
	if (!ret)
		tsa_proc_flush();
	return ret;
}

void tsa_hooks_track_show(struct seq_file *m)
{
	seq_printf(m, "seeded %lld\n", atomic64_read(&tsa_seeded));
	seq_printf(m, "tracked_late %lld\n", atomic64_read(&tsa_late_tracked));
	seq_printf(m, "late_walks %lld\n", atomic64_read(&tsa_late_walks));
}
