/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the hook families share: the probes each file defines (for the
 * registration table in tsa_hooks.c), the per-CPU record of the current
 * task, the event counters, and the parameters more than one of them
 * reads. Only the tsa_hooks*.c files include this.
 *
 *	tsa_hooks.c		parameters, registration, debugfs lines
 *	tsa_hooks_syscall.c	system call edges, the user/kernel boundary
 *	tsa_hooks_sched.c	switch and wakeup, what a sleep waits for
 *	tsa_hooks_wake.c	who wakes a thread: sched_waking, timers
 *	tsa_hooks_kernel.c	faults, lock contention, interrupts, signals
 *	tsa_hooks_track.c	fork, exec, exit and free; seeding at load
 *				and of forks tracked late
 */
#ifndef TSA_PROBES_H
#define TSA_PROBES_H

#include <linux/atomic.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>

#include "tsa_compat.h"
#include "tsa_table.h"

extern bool tsa_param_interrupts;
extern unsigned int tsa_param_late_queue;

/* Events counted per hook; the most frequent first (struct tsa_cpu). */
enum tsa_event {
	TSA_EV_SYS_ENTER, TSA_EV_SYS_EXIT, TSA_EV_SWITCH, TSA_EV_WAKEUP,
	TSA_EV_FAULT, TSA_EV_IRQ, TSA_EV_IRQ_EXIT, TSA_EV_SOFTIRQ,
	TSA_EV_SOFTIRQ_EXIT, TSA_EV_WAKEUP_NEW, TSA_EV_FORK, TSA_EV_EXEC,
	TSA_EV_EXIT, TSA_EV_FREE, TSA_EV_SWAPIN, TSA_EV_CONTENTION,
	TSA_EV_CONTENTION_END, TSA_EV_SIGNAL, TSA_EV_USER_EXIT,
	TSA_EV_USER_ENTER, TSA_EV_WAKING, TSA_EV_TIMER, TSA_NR_EVENTS
};

/*
 * Each CPU's own: the record of the task it switched in last, i.e. of its
 * current task (saves a hash lookup on the hottest paths: syscalls,
 * faults, interrupts; only sched_switch writes it, for next, so it never
 * points at a record freed under a running task), or tsa_no_thread, never
 * NULL, so that the hot paths test only its key; the record of the task
 * it switched out last, which is often the next one a switch or wakeup
 * looks up (two threads that hand work back and forth); and its event
 * counts, the hottest in the same cache line.
 *
 * last_out may hold a record whose task is gone, so it must be cleared
 * before the record is freed. A record is in no CPU's last_out but that
 * of the CPU it last ran on (acct.last_cpu): a switch-out puts it in its
 * own CPU's only if that is its last_cpu (not a thread seeded running);
 * a switch-in on another CPU first takes it out of the old one's; and
 * the free hook takes it out of that of its last_cpu before the record
 * leaves the table (tsa_forget_out()). Those are plain stores of NULL
 * when the slot still holds that record: at worst they drop another
 * record put there meanwhile, which costs a lookup, not a wrong record.
 */
struct tsa_cpu {
	struct tsa_thread *current_th;
	struct tsa_thread *last_out;
	u64 events[TSA_NR_EVENTS];
};

DECLARE_PER_CPU_ALIGNED(struct tsa_cpu, tsa_cpu);

/* No task's: a CPU's current_th until it switches a record in. */
extern struct tsa_thread tsa_no_thread;

/*
 * Each hook's events, for debugfs, only with events=1: off, the count is
 * a nop, not a store to a line of its own on every system call.
 */
DECLARE_STATIC_KEY_FALSE(tsa_count_events);

static __always_inline void tsa_event(enum tsa_event ev)
{
	if (static_branch_unlikely(&tsa_count_events))
		this_cpu_inc(tsa_cpu.events[ev]);
}

/*
 * Is @th, this CPU's current_th (never NULL), current's? The syscall and
 * fault probes test this and go on with @th, with no test of a NULL;
 * their fast edges test the hold with the state (tsa_acct_word()): then
 * the record's own event may write it with no lock and IRQs on. The
 * interrupt writers (the trap hooks) register the general syscall
 * probes instead (tsa_hooks_init()); the fault probe, the same in both
 * modes, asks tsa_irq_writers itself.
 */
static __always_inline bool tsa_thread_mine(const struct tsa_thread *th)
{
	return likely(th->key == current);
}

/* The record this CPU switched in last, if it is current's, or NULL. */
static __always_inline struct tsa_thread *tsa_thread_on_cpu(void)
{
	struct tsa_thread *th = this_cpu_read(tsa_cpu.current_th);

	return tsa_thread_mine(th) ? th : NULL;
}

/*
 * The record of @t, a task not current: the one this CPU switched out
 * last if it is @t's, else the table's. Preemption off.
 */
static __always_inline struct tsa_thread *
tsa_thread_find_near(const struct task_struct *t)
{
	struct tsa_thread *th = this_cpu_read(tsa_cpu.last_out);

	return th && th->key == t ? th : tsa_thread_find(t);
}

/* Take @th, on no CPU, out of the last_out of @cpu (TSA_NO_CPU: none). */
static __always_inline void tsa_forget_out(struct tsa_thread *th, int cpu)
{
	struct tsa_thread **slot;

	if (cpu == TSA_NO_CPU)
		return;
	slot = per_cpu_ptr(&tsa_cpu.last_out, cpu);
	if (READ_ONCE(*slot) == th)
		WRITE_ONCE(*slot, NULL);
}

/* Caller runs with preemption off. */
static __always_inline struct tsa_thread *tsa_thread_current(void)
{
	struct tsa_thread *th = tsa_thread_on_cpu();

	return likely(th) ? th : tsa_thread_find(current);
}

/* Both syscall hooks are registered: they will see threads leave. */
extern bool tsa_syscalls_live;
/* Both boundary hooks are registered (user_enter and user_exit). */
extern bool tsa_edge_live;

/* Does this CPU report the user/kernel boundary (nohz_full)? */
static __always_inline bool tsa_edge_here(void)
{
	return context_tracking_enabled_this_cpu() && READ_ONCE(tsa_edge_live);
}

/* A fault's return was never written: said once (tsa_hooks_kernel.c). */
void tsa_fault_stale_seen(void);

/* Timestamps that went backwards, all records together. */
extern atomic64_t tsa_clamps;

static inline void tsa_clamped(bool clamped)
{
	if (unlikely(clamped))
		atomic64_inc(&tsa_clamps);
}

/* The trap nesting of each CPU (tsa_hooks_kernel.c). */
DECLARE_PER_CPU(int, tsa_trap_depth);
DECLARE_PER_CPU(u16[TSA_TRAP_NEST], tsa_trap_source);

/* The source of this CPU's trap at nesting @depth (1: the outermost). */
static __always_inline u16 tsa_trap_source_at(int depth)
{
	return depth <= TSA_TRAP_NEST ?
		this_cpu_read(tsa_trap_source[depth - 1]) : TSA_CALL_OTHER;
}

/*
 * Wakeup attribution (wakers=1, the default): sched_waking names the
 * waker in the wakee's record (tsa_hooks_wake.c), the wakeup charges the
 * stay it ends to that waker (tsa_hooks_sched.c). Set at load.
 */
DECLARE_STATIC_KEY_FALSE(tsa_wakers_on);

/* What a thread that left the CPU is waiting for (tsa_hooks_sched.c). */
enum tsa_state tsa_sleep_state(struct task_struct *p, unsigned int state,
			       u8 ctx, bool in_call);

/* tsa_hooks_track.c: tracking threads born before or beside the hooks. */
int tsa_track_init(void);
int tsa_track_start(void);
void tsa_track_exit(void);

/* The debugfs lines of each family, in the order they always had. */
void tsa_hooks_kernel_show(struct seq_file *m);
void tsa_hooks_track_show(struct seq_file *m);
void tsa_hooks_sched_show(struct seq_file *m);

/*
 * The clock a system call's edge, a switch or a wakeup charges at, for
 * the replay referee's kprobes (tests/guest/replay-tests.sh): their
 * accounting is inlined into the probes, so there is no function of
 * theirs to probe. With stamp_probes=1 each calls tsa_stamp_*() (in
 * tsa_hooks.c) with its record and clock; off, it pays one no-op
 * instruction (a static key set at load).
 */
DECLARE_STATIC_KEY_FALSE(tsa_stamp_probes);

enum tsa_stamp_event {
	TSA_STAMP_SYS_ENTER, TSA_STAMP_SYS_EXIT, TSA_STAMP_SWITCH_OUT,
	TSA_STAMP_SWITCH_IN, TSA_STAMP_WAKEUP
};

u64 tsa_stamp_sys_enter(struct tsa_acct *a, u64 now);
u64 tsa_stamp_sys_exit(struct tsa_acct *a, u64 now);
u64 tsa_stamp_switch_out(struct tsa_acct *a, u64 now);
u64 tsa_stamp_switch_in(struct tsa_acct *a, u64 now);
u64 tsa_stamp_wakeup(struct tsa_acct *a, u64 now);

/* @now, the clock @a is charged at by @ev, after the stamp's call. */
static __always_inline u64 tsa_stamp(enum tsa_stamp_event ev,
				     struct tsa_acct *a, u64 now)
{
	if (!static_branch_unlikely(&tsa_stamp_probes))
		return now;
	switch (ev) {
	case TSA_STAMP_SYS_ENTER:
		return tsa_stamp_sys_enter(a, now);
	case TSA_STAMP_SYS_EXIT:
		return tsa_stamp_sys_exit(a, now);
	case TSA_STAMP_SWITCH_OUT:
		return tsa_stamp_switch_out(a, now);
	case TSA_STAMP_SWITCH_IN:
		return tsa_stamp_switch_in(a, now);
	case TSA_STAMP_WAKEUP:
		return tsa_stamp_wakeup(a, now);
	}
	return now;
}

/* The probes, for the registration table. */
TSA_PROBE_SCHED_SWITCH(tsa_sched_switch);
#ifdef TSA_SWITCH_NO_PREV_STATE
TSA_PROBE_SCHED_SWITCH_OLD(tsa_sched_switch_old);
#define TSA_SCHED_SWITCH_PROBE	tsa_sched_switch_old
#else
#define TSA_SCHED_SWITCH_PROBE	tsa_sched_switch
#endif
TSA_PROBE_TASK(tsa_sched_wakeup);
TSA_PROBE_TASK(tsa_sched_wakeup_new);
TSA_PROBE_TASK(tsa_sched_waking);
TSA_PROBE_HRTIMER_ENTRY(tsa_hrtimer_expire_entry);
TSA_PROBE_HRTIMER_EXIT(tsa_hrtimer_expire_exit);
TSA_PROBE_TIMER_ENTRY(tsa_timer_expire_entry);
TSA_PROBE_TIMER_EXIT(tsa_timer_expire_exit);
TSA_PROBE_NEWTASK(tsa_task_newtask);
TSA_PROBE_EXEC(tsa_sched_process_exec);
TSA_PROBE_EXIT(tsa_sched_process_exit);
TSA_PROBE_TASK(tsa_sched_process_free);
TSA_PROBE_SYS_ENTER(tsa_sys_enter);
TSA_PROBE_SYS_EXIT(tsa_sys_exit);
TSA_PROBE_SYS_ENTER(tsa_sys_enter_general);
TSA_PROBE_SYS_EXIT(tsa_sys_exit_general);
TSA_PROBE_USER_EDGE(tsa_user_enter);
TSA_PROBE_USER_EDGE(tsa_user_exit);
TSA_PROBE_CONTENTION_BEGIN(tsa_contention_begin);
TSA_PROBE_CONTENTION_END(tsa_contention_end);
TSA_PROBE_IRQ_ENTRY(tsa_irq_entry);
TSA_PROBE_IRQ_EXIT(tsa_irq_exit);
TSA_PROBE_SOFTIRQ(tsa_softirq_entry);
TSA_PROBE_SOFTIRQ(tsa_softirq_exit);
TSA_PROBE_SIGNAL_DELIVER(tsa_signal_deliver);
extern struct kretprobe tsa_fault_probe;
extern struct kprobe tsa_swapin_probe;

#endif /* TSA_PROBES_H */
