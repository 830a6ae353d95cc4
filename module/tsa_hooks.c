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
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>

#include "tsa_compat.h"
#include "tsa_hooks.h"
#include "tsa_proc.h"
#include "tsa_table.h"

bool tsa_param_syscalls = true;
module_param_named(syscalls, tsa_param_syscalls, bool, 0444);
MODULE_PARM_DESC(syscalls,
		 "Split on-CPU time exactly into USR and SYS and count SCL with the syscall tracepoints (costs every syscall the slow path; default 1). Off: user threads' on-CPU time is USR.");

enum tsa_event {
	TSA_EV_SWITCH, TSA_EV_WAKEUP, TSA_EV_WAKEUP_NEW, TSA_EV_FORK,
	TSA_EV_EXEC, TSA_EV_EXIT, TSA_EV_FREE, TSA_EV_SYS_ENTER,
	TSA_EV_SYS_EXIT, TSA_NR_EVENTS
};

static DEFINE_PER_CPU(u64[TSA_NR_EVENTS], tsa_events);
static atomic64_t tsa_clamps = ATOMIC64_INIT(0);
static atomic64_t tsa_seeded = ATOMIC64_INIT(0);

static inline void tsa_event(enum tsa_event ev)
{
	this_cpu_inc(tsa_events[ev]);
}

static inline void tsa_clamped(bool clamped)
{
	if (unlikely(clamped))
		atomic64_inc(&tsa_clamps);
}

/* What a thread that left the CPU is waiting for. */
static enum tsa_state tsa_sleep_state(struct task_struct *p,
				      unsigned int state)
{
	struct tsa_block_info bi = {
		.task_state = state,
		.kthread = p->flags & PF_KTHREAD,
	};

	return tsa_classify_sleep(&bi);
}

static TSA_PROBE_SCHED_SWITCH(tsa_sched_switch)
{
	u64 now = local_clock();
	struct tsa_thread *th;
	unsigned long flags;

	tsa_event(TSA_EV_SWITCH);
	th = tsa_thread_find(prev);
	if (th && (prev_state & TASK_DEAD)) {
		tsa_clamped(tsa_thread_exit(th, now));
	} else if (th) {
		enum tsa_switch_kind kind = TSA_SW_PREEMPT;
		enum tsa_state sleep = TSA_SLP;

		/* The kernel's own nvcsw rule; a pending signal undoes a sleep. */
		if (!preempt && prev_state) {
			unsigned int state = tsa_task_state(prev);

			kind = state == TASK_RUNNING ? TSA_SW_SIGNAL :
						       TSA_SW_BLOCK;
			if (kind == TSA_SW_BLOCK)
				sleep = tsa_sleep_state(prev, state);
		}
		tsa_thread_write_begin(th, flags);
		tsa_clamped(tsa_acct_switch_out(&th->acct, now, kind, sleep));
		tsa_thread_write_end(th, flags);
	}

	th = tsa_thread_find(next);
	if (th) {
		tsa_thread_write_begin(th, flags);
		tsa_clamped(tsa_acct_switch_in(&th->acct, now,
					       smp_processor_id()));
		tsa_thread_write_end(th, flags);
	}
}
TSA_CHECK_PROBE(sched_switch, tsa_sched_switch);

static void tsa_wake(struct task_struct *p, enum tsa_event ev)
{
	u64 now = local_clock();
	struct tsa_thread *th;
	unsigned long flags;

	tsa_event(ev);
	th = tsa_thread_find(p);
	if (!th)
		return;
	tsa_thread_write_begin(th, flags);
	tsa_clamped(tsa_acct_wakeup(&th->acct, now));
	tsa_thread_write_end(th, flags);
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

static u8 tsa_birth_flags(struct task_struct *p)
{
	/*
	 * A new user thread starts in the kernel and returns to user mode
	 * through the syscall exit path; without the syscall hooks all its
	 * on-CPU time is USR.
	 */
	if ((p->flags & PF_KTHREAD) || tsa_param_syscalls)
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
		tsa_thread_free(th);
	return in == th ? th : NULL;
}

static TSA_PROBE_FORK(tsa_sched_process_fork)
{
	struct tsa_thread *th;

	tsa_event(TSA_EV_FORK);
	/* Probes run with preemption off: no sleeping allocation. */
	th = tsa_thread_alloc(GFP_NOWAIT);
	if (!th)
		return;
	/* Born runnable: wake_up_new_task() queues it next. */
	tsa_acct_init(&th->acct, local_clock(), TSA_LAT,
		      tsa_birth_flags(child));
	if (tsa_track(th, child))
		tsa_proc_tid_changed(task_pid_nr(child));
}
TSA_CHECK_PROBE(sched_process_fork, tsa_sched_process_fork);

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

static TSA_PROBE_TASK(tsa_sched_process_exit)
{
	tsa_event(TSA_EV_EXIT);
	tsa_proc_tid_changed(task_pid_nr(p));
}
TSA_CHECK_PROBE(sched_process_exit, tsa_sched_process_exit);

static TSA_PROBE_TASK(tsa_sched_process_free)
{
	tsa_event(TSA_EV_FREE);
	tsa_thread_remove(p);
}
TSA_CHECK_PROBE(sched_process_free, tsa_sched_process_free);

static void tsa_syscall(enum tsa_event ev)
{
	u64 now = local_clock();
	struct tsa_thread *th;
	unsigned long flags;

	tsa_event(ev);
	th = tsa_thread_find(current);
	if (!th)
		return;
	tsa_thread_write_begin(th, flags);
	if (ev == TSA_EV_SYS_ENTER)
		tsa_clamped(tsa_acct_sys_enter(&th->acct, now));
	else
		tsa_clamped(tsa_acct_sys_exit(&th->acct, now));
	tsa_thread_write_end(th, flags);
}

static TSA_PROBE_SYS_ENTER(tsa_sys_enter)
{
	/* From 6.13 these probes may run preemptible. */
	preempt_disable_notrace();
	tsa_syscall(TSA_EV_SYS_ENTER);
	preempt_enable_notrace();
}
TSA_CHECK_PROBE(sys_enter, tsa_sys_enter);

static TSA_PROBE_SYS_EXIT(tsa_sys_exit)
{
	preempt_disable_notrace();
	tsa_syscall(TSA_EV_SYS_EXIT);
	preempt_enable_notrace();
}
TSA_CHECK_PROBE(sys_exit, tsa_sys_exit);

#define TSA_STATE_BIT(s)	(1U << (s))

struct tsa_hook {
	const char *name;
	void *probe;
	bool *enabled;		/* module parameter, NULL = always */
	u32 degrades;		/* states lost without this hook */
	struct tracepoint *tp;
	bool live;
};

static bool tsa_always = true;

/* Registration order: bookkeeping first, so no event finds half a world. */
static struct tsa_hook tsa_hooks[] = {
	{ "sched_process_free", tsa_sched_process_free, &tsa_always, ~0U },
	{ "sched_process_fork", tsa_sched_process_fork, &tsa_always, ~0U },
	{ "sched_process_exec", tsa_sched_process_exec, &tsa_always, 0 },
	{ "sched_process_exit", tsa_sched_process_exit, &tsa_always, 0 },
	{ "sched_switch", tsa_sched_switch, &tsa_always, ~0U },
	{ "sched_wakeup", tsa_sched_wakeup, &tsa_always, ~0U },
	{ "sched_wakeup_new", tsa_sched_wakeup_new, &tsa_always, ~0U },
	{ "sys_enter", tsa_sys_enter, &tsa_param_syscalls,
	  TSA_STATE_BIT(TSA_SYS) },
	{ "sys_exit", tsa_sys_exit, &tsa_param_syscalls,
	  TSA_STATE_BIT(TSA_SYS) },
};

static const char *const tsa_event_names[TSA_NR_EVENTS] = {
	[TSA_EV_SWITCH] = "sched_switch",
	[TSA_EV_WAKEUP] = "sched_wakeup",
	[TSA_EV_WAKEUP_NEW] = "sched_wakeup_new",
	[TSA_EV_FORK] = "sched_process_fork",
	[TSA_EV_EXEC] = "sched_process_exec",
	[TSA_EV_EXIT] = "sched_process_exit",
	[TSA_EV_FREE] = "sched_process_free",
	[TSA_EV_SYS_ENTER] = "sys_enter",
	[TSA_EV_SYS_EXIT] = "sys_exit",
};

static void tsa_find_tracepoint(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(tsa_hooks); i++) {
		if (!strcmp(tp->name, tsa_hooks[i].name))
			tsa_hooks[i].tp = tp;
	}
}

/* States that no live hook can tell apart on this kernel right now. */
u32 tsa_hooks_degraded(void)
{
	/* Not yet told apart by any hook: see docs/proc-format.md. */
	u32 lost = TSA_STATE_BIT(TSA_TRP) | TSA_STATE_BIT(TSA_TFL) |
		   TSA_STATE_BIT(TSA_DFL) | TSA_STATE_BIT(TSA_KFL) |
		   TSA_STATE_BIT(TSA_APG) | TSA_STATE_BIT(TSA_LCK) |
		   TSA_STATE_BIT(TSA_KLK) | TSA_STATE_BIT(TSA_IOW) |
		   TSA_STATE_BIT(TSA_IDL);
	int i;

	for (i = 0; i < ARRAY_SIZE(tsa_hooks); i++) {
		if (!tsa_hooks[i].live)
			lost |= tsa_hooks[i].degrades;
	}
	return lost & (TSA_STATE_BIT(TSA_NR_STATES) - 1);
}

u64 tsa_hooks_clamps(void)
{
	return atomic64_read(&tsa_clamps);
}

/*
 * The state a thread that was already alive is in now. Runs under the
 * record's lock: an event racing with us either came first (and the
 * record is no longer provisional) or waits for us and starts from here.
 */
static void tsa_seed_state(struct tsa_thread *th, struct task_struct *t)
{
	unsigned int state = tsa_task_state(t);
	unsigned long flags;
	enum tsa_state s;
	u8 f = TSA_F_SINCE_LOAD;

	if ((t->flags & PF_KTHREAD) ||
	    (tsa_param_syscalls && tsa_task_in_syscall(t)))
		f |= TSA_F_IN_KERNEL;

	tsa_thread_write_begin(th, flags);
	if (th->acct.flags & TSA_F_PROVISIONAL) {
		if (READ_ONCE(t->on_cpu))
			s = (f & TSA_F_IN_KERNEL) ? TSA_SYS : TSA_USR;
		else if (state == TASK_RUNNING)
			s = TSA_LAT;
		else
			s = tsa_sleep_state(t, state);
		tsa_acct_init(&th->acct, local_clock(), s, f);
	}
	tsa_thread_write_end(th, flags);
}

/*
 * Track every thread alive now. Hooks are live already, so threads born
 * from here on are tracked by the fork hook; double inserts are harmless.
 * Memory is allocated outside RCU, one thread at a time.
 */
static int tsa_seed(void)
{
	struct task_struct *g, *t, **tasks;
	unsigned int n = 0, max = 0, i;

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
		get_task_struct(t);
		tasks[n++] = t;
	}
	rcu_read_unlock();

	for (i = 0; i < n; i++) {
		struct tsa_thread *th;

		t = tasks[i];
		th = tsa_thread_alloc(GFP_KERNEL);
		if (th) {
			tsa_acct_init(&th->acct, local_clock(), TSA_SLP,
				      TSA_F_SINCE_LOAD | TSA_F_PROVISIONAL);
			th = tsa_track(th, t);
		}
		if (th) {
			tsa_seed_state(th, t);
			tsa_proc_tid_changed(task_pid_nr(t));
			atomic64_inc(&tsa_seeded);
		}
		put_task_struct(t);
		cond_resched();
	}
	kvfree(tasks);
	return 0;
}

static void tsa_unregister(void)
{
	int i;

	for (i = ARRAY_SIZE(tsa_hooks) - 1; i >= 0; i--) {
		if (tsa_hooks[i].live)
			tracepoint_probe_unregister(tsa_hooks[i].tp,
						    tsa_hooks[i].probe, NULL);
		tsa_hooks[i].live = false;
	}
	/* No probe runs after this returns. */
	tracepoint_synchronize_unregister();
}

int tsa_hooks_init(void)
{
	int i, ret;

	for_each_kernel_tracepoint(tsa_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(tsa_hooks); i++) {
		struct tsa_hook *h = &tsa_hooks[i];

		if (!*h->enabled)
			continue;
		if (!h->tp) {
			/* A required hook missing means no accounting at all. */
			if (h->degrades == ~0U) {
				pr_err("tsa: tracepoint %s not found\n", h->name);
				ret = -ENOENT;
				goto fail;
			}
			pr_warn("tsa: tracepoint %s not found, degraded\n",
				h->name);
			continue;
		}
		ret = tracepoint_probe_register(h->tp, h->probe, NULL);
		if (ret) {
			pr_err("tsa: cannot register %s: %d\n", h->name, ret);
			goto fail;
		}
		h->live = true;
	}
	ret = tsa_seed();
	if (ret)
		goto fail;
	return 0;
fail:
	tsa_unregister();
	return ret;
}

void tsa_hooks_exit(void)
{
	tsa_unregister();
}

void tsa_hooks_show(struct seq_file *m)
{
	u64 total[TSA_NR_EVENTS] = { 0 };
	int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < TSA_NR_EVENTS; i++)
			total[i] += per_cpu(tsa_events, cpu)[i];

	seq_puts(m, "#hook live enabled events\n");
	for (i = 0; i < ARRAY_SIZE(tsa_hooks); i++) {
		const struct tsa_hook *h = &tsa_hooks[i];
		int ev;

		for (ev = 0; ev < TSA_NR_EVENTS; ev++)
			if (!strcmp(tsa_event_names[ev], h->name))
				break;
		seq_printf(m, "hook %s %d %d %llu\n", h->name, h->live,
			   *h->enabled, ev < TSA_NR_EVENTS ? total[ev] : 0);
	}
	seq_printf(m, "seeded %lld\n", atomic64_read(&tsa_seeded));
	seq_printf(m, "clock_clamps %llu\n", tsa_hooks_clamps());
}
