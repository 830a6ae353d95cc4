// SPDX-License-Identifier: GPL-2.0
/*
 * tsa hooks: where kernel events become microstate transitions.
 *
 * Each probe does the same three things: take the timestamp first, find
 * the record of the task the event is about, and call the accounting
 * function named for the event under the record's lock. The probes live
 * in a file per hook family (see tsa_probes.h); this one holds the
 * module parameters that choose them and registers them.
 *
 * Tracepoints are not exported to modules by name, so they are found by
 * walking the kernel's tracepoint list and registered through the one
 * table below, which also says what is lost when a hook is missing.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/tracepoint.h>

#include "tsa_hooks.h"
#include "tsa_probes.h"
#include "tsa_proc.h"

static bool tsa_param_syscalls = true;
module_param_named(syscalls, tsa_param_syscalls, bool, 0444);
MODULE_PARM_DESC(syscalls,
		 "Split on-CPU time exactly into USR and SYS and count SCL with the syscall tracepoints (costs every syscall the slow path; default 1). Off: user threads' on-CPU time is USR.");

static unsigned int tsa_param_calls = 8;
module_param_named(calls, tsa_param_calls, uint, 0444);
MODULE_PARM_DESC(calls,
		 "Rows of each thread's table of the system calls it spent most time in (default 8, at most 64; 0: no table). Needs syscalls=1.");

/* hist=0, lat or all; 1 (and y, on) is all, as before lat was the default. */
static int tsa_param_hist = TSA_HIST_LAT;
static const char *const tsa_hist_names[] = {
	[TSA_HIST_NONE] = "0", [TSA_HIST_LAT] = "lat", [TSA_HIST_ALL] = "all",
};

static int tsa_hist_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(tsa_hist_names, val);
	bool on;

	if (i < 0) {
		if (kstrtobool(val, &on))
			return -EINVAL;
		i = on ? TSA_HIST_ALL : TSA_HIST_NONE;
	}
	*(int *)kp->arg = i;
	return 0;
}

static int tsa_hist_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", tsa_hist_names[*(int *)kp->arg]);
}

static const struct kernel_param_ops tsa_hist_ops = {
	.set = tsa_hist_set,
	.get = tsa_hist_get,
};
module_param_cb(hist, &tsa_hist_ops, &tsa_param_hist, 0444);
MODULE_PARM_DESC(hist,
		 "Distributions of stays (log2 buckets, /proc/tsa/hist) and when each state's longest stay ended: lat (the default) keeps LAT's, the run-queue latency (352 bytes a thread); all (or 1) every off-CPU state's and each system call row's durations (2,584 bytes a thread, and 224 a row); 0 none.");

static bool tsa_param_faults = true;
module_param_named(faults, tsa_param_faults, bool, 0444);
MODULE_PARM_DESC(faults,
		 "Probe page faults (kretprobe on handle_mm_fault) for TFL, DFL, KFL, swap-in APG, MINF and MAJF (default 1). Off: fault sleeps are SLP or IOW, fault time is USR.");

static bool tsa_param_locks = true;
module_param_named(locks, tsa_param_locks, bool, 0444);
MODULE_PARM_DESC(locks,
		 "Hook lock contention tracepoints for KLK (default 1). Off: kernel lock sleeps are SLP.");

bool tsa_param_interrupts;
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

unsigned int tsa_param_late_queue = 4096;
module_param_named(late_queue, tsa_param_late_queue, uint, 0444);
MODULE_PARM_DESC(late_queue,
		 "New threads the record pool could not serve that wait by name to be tracked a moment later (default 4096); past that, the work item walks all threads for untracked ones.");

static bool tsa_param_stamp_probes;
module_param_named(stamp_probes, tsa_param_stamp_probes, bool, 0444);
MODULE_PARM_DESC(stamp_probes,
		 "Call tsa_stamp_sys_enter(), _sys_exit(), _switch_out(), _switch_in() and _wakeup() with the clock of each such event, for kprobes that check tsa's stamps (the replay referee; default 0).");

static bool tsa_param_wakers = true;
module_param_named(wakers, tsa_param_wakers, bool, 0444);
MODULE_PARM_DESC(wakers,
		 "Name who ended each stay off CPU (a thread, an interrupt, a softirq, a timer) in a small table per thread (default 1).");

static char *tsa_param_skip_hooks;
module_param_named(skip_hooks, tsa_param_skip_hooks, charp, 0444);
MODULE_PARM_DESC(skip_hooks,
		 "Hooks not to register, as if this kernel lacked them (comma-separated names, as in debugfs stats): to see and test what tsa degrades to.");

DEFINE_STATIC_KEY_FALSE(tsa_stamp_probes);

static bool tsa_param_events;
module_param_named(events, tsa_param_events, bool, 0444);
MODULE_PARM_DESC(events,
		 "Count each hook's events for debugfs stats (default 0: a per-CPU counter's store on every event, a cache line a system call).");
DEFINE_STATIC_KEY_FALSE(tsa_count_events);

/*
 * The arguments in their registers (%di, %si) at the kprobe: used, so
 * that the compiler neither drops them nor calls a clone without them;
 * and a distinct constant each, so that no two are folded into one body
 * (identical code folding), whose kprobe would see every event. @now
 * comes back, so that the caller need not keep it across the call.
 */
#define TSA_STAMP_FN(name, n)						\
	noinline u64 tsa_stamp_##name(struct tsa_acct *a, u64 now)	\
	{								\
		asm volatile("" : : "r" (a), "r" (now), "i" (n));	\
		return now;						\
	}

TSA_STAMP_FN(sys_enter, TSA_STAMP_SYS_ENTER)
TSA_STAMP_FN(sys_exit, TSA_STAMP_SYS_EXIT)
TSA_STAMP_FN(switch_out, TSA_STAMP_SWITCH_OUT)
TSA_STAMP_FN(switch_in, TSA_STAMP_SWITCH_IN)
TSA_STAMP_FN(wakeup, TSA_STAMP_WAKEUP)

DEFINE_PER_CPU_ALIGNED(struct tsa_cpu, tsa_cpu);
struct tsa_thread tsa_no_thread;	/* key NULL: current on no CPU */
bool tsa_syscalls_live;
bool tsa_edge_live;
atomic64_t tsa_clamps = ATOMIC64_INIT(0);

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
	{ "sched_switch", TSA_TRACEPOINT, TSA_SCHED_SWITCH_PROBE, &tsa_always,
	  TSA_ALL, TSA_EV_SWITCH },
	{ "sched_wakeup", TSA_TRACEPOINT, tsa_sched_wakeup, &tsa_always,
	  TSA_ALL, TSA_EV_WAKEUP },
	{ "sched_wakeup_new", TSA_TRACEPOINT, tsa_sched_wakeup_new,
	  &tsa_always, TSA_ALL, TSA_EV_WAKEUP_NEW },
	/* Who wakes: without them every wakeup's waker is unseen. */
	{ "hrtimer_expire_exit", TSA_TRACEPOINT, tsa_hrtimer_expire_exit,
	  &tsa_param_wakers, 0, TSA_EV_TIMER },
	{ "hrtimer_expire_entry", TSA_TRACEPOINT, tsa_hrtimer_expire_entry,
	  &tsa_param_wakers, 0, TSA_EV_TIMER, "hrtimer_expire_exit" },
	{ "timer_expire_exit", TSA_TRACEPOINT, tsa_timer_expire_exit,
	  &tsa_param_wakers, 0, TSA_EV_TIMER },
	{ "timer_expire_entry", TSA_TRACEPOINT, tsa_timer_expire_entry,
	  &tsa_param_wakers, 0, TSA_EV_TIMER, "timer_expire_exit" },
	{ "sched_waking", TSA_TRACEPOINT, tsa_sched_waking, &tsa_param_wakers,
	  0, TSA_EV_WAKING },
	/*
	 * Before the system-call and signal hooks, so unregistered after
	 * them: a fault in flight when its kretprobe goes loses its return
	 * handler, and its fault context would be stale to a later hook
	 * (tsa_fault_stale_seen()). Once they are gone nothing reads it.
	 */
	{ "handle_mm_fault", TSA_KRETPROBE, &tsa_fault_probe,
	  &tsa_param_faults, TSA_DEG_FAULTS, TSA_EV_FAULT },
	{ TSA_SWAPIN_FUNC, TSA_KPROBE, &tsa_swapin_probe,
	  &tsa_param_faults, TSA_STATE_BIT(TSA_APG), TSA_EV_SWAPIN },
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

/* The hook named @name: one of the table's. */
static struct tsa_hook *tsa_hook_named(const char *name)
{
	return tsa_hook_find(name, strlen(name));
}

static bool tsa_hook_live(const char *name)
{
	const struct tsa_hook *h = tsa_hook_named(name);

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
	int cpu, i, ret;

	ret = tsa_skip_hooks_parse();
	if (ret)
		return ret;
	ret = tsa_track_init();
	if (ret)
		return ret;
	/* Before any hook runs: see tsa_thread_own_begin(), tsa_cpu. */
	tsa_irq_writers = tsa_param_interrupts;
	for_each_possible_cpu(cpu)
		per_cpu(tsa_cpu.current_th, cpu) = &tsa_no_thread;
	if (tsa_param_stamp_probes)
		static_branch_enable(&tsa_stamp_probes);
	if (tsa_param_events)
		static_branch_enable(&tsa_count_events);
	/* The syscall edges' fast paths leave IRQs on: not with those. */
	if (tsa_irq_writers) {
		tsa_hook_named("sys_enter")->probe = tsa_sys_enter_general;
		tsa_hook_named("sys_exit")->probe = tsa_sys_exit_general;
	}
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
	if (tsa_hook_live("sched_waking"))
		static_branch_enable(&tsa_wakers_on);
	tsa_proc_set_degraded(tsa_hooks_degraded());
	ret = tsa_track_start();
	if (ret)
		goto fail;
	return 0;
fail:
	tsa_unregister();
	tsa_track_exit();
	return ret;
}

void tsa_hooks_exit(void)
{
	tsa_unregister();
	tsa_track_exit();
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

/* An enum tsa_hist_mode. */
unsigned int tsa_hooks_hist(void)
{
	return tsa_param_hist;
}

bool tsa_hooks_wakers(void)
{
	return tsa_param_wakers;
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
			total[i] += per_cpu(tsa_cpu, cpu).events[i];

	seq_puts(m, "#hook name live enabled events\n");
	for (i = 0; i < ARRAY_SIZE(tsa_hooks); i++) {
		const struct tsa_hook *h = &tsa_hooks[i];

		seq_printf(m, "hook %s %d %d ", h->name, h->live, *h->enabled);
		if (tsa_param_events)
			seq_printf(m, "%llu\n", total[h->ev]);
		else
			seq_puts(m, "-\n");
	}
	tsa_hooks_kernel_show(m);
	tsa_hooks_track_show(m);
	seq_printf(m, "clock_clamps %lld\n", atomic64_read(&tsa_clamps) +
		   atomic64_read(&tsa_acct_fast_clamps));
	tsa_hooks_sched_show(m);
	seq_printf(m, "edge_cpus %u\n", tsa_edge_cpus());
}
