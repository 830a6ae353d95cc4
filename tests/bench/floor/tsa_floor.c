// SPDX-License-Identifier: GPL-2.0
/*
 * tsa_floor: the floor every tracepoint design pays. It hooks what tsa.ko
 * hooks with its default parameters (scheduler, task life cycle, system
 * calls, the fault kretprobe, the swap-in kprobe, lock contention, signal
 * delivery, and for the wakers sched_waking and the timers' expiry) and
 * each probe only reads tsa's clock into a per-CPU slot.
 * `make bench` compares tsa's added cost with this module's.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/tracepoint.h>
#include "tsa_compat.h"

static DEFINE_PER_CPU(u64, tsa_floor_ns);

static __always_inline void floor_tick(void)
{
	this_cpu_write(tsa_floor_ns, tsa_clock());
}

static TSA_PROBE_SCHED_SWITCH(floor_switch) { floor_tick(); }
static TSA_PROBE_TASK(floor_task) { floor_tick(); }
static TSA_PROBE_EXIT(floor_exit) { floor_tick(); }
static TSA_PROBE_NEWTASK(floor_newtask) { floor_tick(); }
static TSA_PROBE_EXEC(floor_exec) { floor_tick(); }
static TSA_PROBE_SYS_ENTER(floor_sys_enter) { floor_tick(); }
static TSA_PROBE_SYS_EXIT(floor_sys_exit) { floor_tick(); }
static TSA_PROBE_CONTENTION_BEGIN(floor_cont_begin) { floor_tick(); }
static TSA_PROBE_CONTENTION_END(floor_cont_end) { floor_tick(); }
static TSA_PROBE_SIGNAL_DELIVER(floor_signal) { floor_tick(); }
static TSA_PROBE_HRTIMER_ENTRY(floor_hrtimer_entry) { floor_tick(); }
static TSA_PROBE_HRTIMER_EXIT(floor_hrtimer_exit) { floor_tick(); }
static TSA_PROBE_TIMER_ENTRY(floor_timer_entry) { floor_tick(); }
static TSA_PROBE_TIMER_EXIT(floor_timer_exit) { floor_tick(); }

static int floor_fault_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	floor_tick();
	return 0;
}

static int floor_fault_return(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	floor_tick();
	return 0;
}

static int floor_swapin(struct kprobe *kp, struct pt_regs *regs)
{
	floor_tick();
	return 0;
}

static struct kretprobe floor_fault = {
	.kp.symbol_name = "handle_mm_fault",
	.entry_handler = floor_fault_entry,
	.handler = floor_fault_return,
	.maxactive = 64,
};

static struct kprobe floor_swap = {
	.symbol_name = "swap_cache_get_folio",
	.pre_handler = floor_swapin,
};

static struct {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool live;
} floor_tps[] = {
	{ "sched_process_free", floor_task },
	{ "task_newtask", floor_newtask },
	{ "sched_process_exec", floor_exec },
	{ "sched_process_exit", floor_exit },
	{ "sched_switch", floor_switch },
	{ "sched_wakeup", floor_task },
	{ "sched_wakeup_new", floor_task },
	{ "hrtimer_expire_exit", floor_hrtimer_exit },
	{ "hrtimer_expire_entry", floor_hrtimer_entry },
	{ "timer_expire_exit", floor_timer_exit },
	{ "timer_expire_entry", floor_timer_entry },
	{ "sched_waking", floor_task },
	{ "sys_exit", floor_sys_exit },
	{ "sys_enter", floor_sys_enter },
	{ "contention_end", floor_cont_end },
	{ "contention_begin", floor_cont_begin },
	{ "signal_deliver", floor_signal },
};
static bool fault_live, swap_live;

static void floor_find(struct tracepoint *tp, void *priv)
{
	for (int i = 0; i < ARRAY_SIZE(floor_tps); i++)
		if (!strcmp(tp->name, floor_tps[i].name))
			floor_tps[i].tp = tp;
}

static void floor_unregister(void)
{
	for (int i = ARRAY_SIZE(floor_tps) - 1; i >= 0; i--)
		if (floor_tps[i].live)
			tracepoint_probe_unregister(floor_tps[i].tp,
						    floor_tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
	if (fault_live)
		unregister_kretprobe(&floor_fault);
	if (swap_live)
		unregister_kprobe(&floor_swap);
}

static int __init floor_init(void)
{
	int missing = 0;

	for_each_kernel_tracepoint(floor_find, NULL);
	for (int i = 0; i < ARRAY_SIZE(floor_tps); i++) {
		floor_tps[i].live = floor_tps[i].tp &&
			!tracepoint_probe_register(floor_tps[i].tp,
						   floor_tps[i].probe, NULL);
		missing += !floor_tps[i].live;
	}
	fault_live = !register_kretprobe(&floor_fault);
	swap_live = !register_kprobe(&floor_swap);
	missing += !fault_live + !swap_live;
	if (missing) {
		/* A floor with holes would flatter tsa: refuse it. */
		floor_unregister();
		pr_err("tsa_floor: %d hooks missing\n", missing);
		return -ENOENT;
	}
	return 0;
}

static void __exit floor_exit_module(void)
{
	floor_unregister();
}

module_init(floor_init);
module_exit(floor_exit_module);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tsa bench: empty probes on tsa's hooks (the floor)");
