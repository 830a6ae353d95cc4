// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: widens the window in which a wakeup on another CPU
 * writes TASK_WAKING over the __state of a task that is still switching
 * out, so that the wait suite can show how tsa classifies that sleep.
 *
 * Its sched_switch probe runs before tsa's (a higher priority). When the
 * task leaving the CPU is named @comm and stops (prev_state has
 * __TASK_STOPPED), it spins, IRQs off and the rq lock held as the
 * tracepoint runs, until another CPU's try_to_wake_up() has written
 * TASK_WAKING to the task's __state (after it deactivated the task and
 * before the switch ends), or @max_ms pass. tsa's probe then sees the
 * sleep with __state TASK_WAKING and prev_state still TASK_STOPPED.
 *
 * Never load it anywhere but a test guest.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>

static char *comm = "tsa-stopper";
module_param(comm, charp, 0444);
MODULE_PARM_DESC(comm, "Name of the task whose stops are widened");

static uint max_ms = 2000;
module_param(max_ms, uint, 0444);
MODULE_PARM_DESC(max_ms, "Longest wait for the wakeup, in ms");

/* Stops widened, and of those, ones a wakeup overwrote in the window. */
static atomic_t widened = ATOMIC_INIT(0), woken = ATOMIC_INIT(0);
module_param_named(widened, widened.counter, int, 0444);
module_param_named(woken, woken.counter, int, 0444);

static struct tracepoint *race_tp;

static void race_probe(void *data, bool preempt, struct task_struct *prev,
		       struct task_struct *next, unsigned int prev_state)
{
	u64 end;

	if (preempt || !(prev_state & __TASK_STOPPED) ||
	    strncmp(prev->comm, comm, TASK_COMM_LEN))
		return;
	atomic_inc(&widened);
	end = ktime_get_mono_fast_ns() + (u64)max_ms * NSEC_PER_MSEC;
	while (READ_ONCE(prev->__state) != TASK_WAKING) {
		if (ktime_get_mono_fast_ns() > end)
			return;
		cpu_relax();
	}
	atomic_inc(&woken);
}

static void race_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		race_tp = tp;
}

static int __init race_init(void)
{
	for_each_kernel_tracepoint(race_find, NULL);
	if (!race_tp)
		return -ENOENT;
	/* Before tsa's probe, whichever was loaded first. */
	return tracepoint_probe_register_prio(race_tp, race_probe, NULL,
					      TRACEPOINT_DEFAULT_PRIO + 1);
}

static void __exit race_exit(void)
{
	tracepoint_probe_unregister(race_tp, race_probe, NULL);
	tracepoint_synchronize_unregister();
}

module_init(race_init);
module_exit(race_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tsa test: widen the TASK_WAKING window of a stop");
