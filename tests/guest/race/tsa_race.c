// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: widens the window in which a wakeup on another CPU
 * writes TASK_WAKING over the __state of a task that is still switching
 * out, so that the wait suite can show how tsa classifies that sleep.
 *
 * Its sched_switch probe runs before tsa's (a higher priority). When the
 * task leaving the CPU is named @comm and stops (prev_state has
 * __TASK_STOPPED), it asks another CPU, by an IPI, to send the task's
 * process SIGCONT, and spins, IRQs off and the rq lock held as the
 * tracepoint runs, until that SIGCONT's try_to_wake_up() has written
 * TASK_WAKING to the task's __state (after the task was deactivated and
 * before the switch ends), or @max_ms pass. tsa's probe then sees the
 * sleep with __state TASK_WAKING and prev_state still TASK_STOPPED.
 *
 * The wakeup comes from the IPI, not from user space: anything the other
 * CPU did on the way that needs this CPU's rq lock (a fork placed here,
 * a wakeup, the nohz blocked-load update of a CPU going idle) or a
 * synchronous IPI here (a TLB flush) would spin until the hold gave up.
 * A sender in user space missed 1 stop in 20 in the 6.12 wait suite, and
 * about 1 in 5 beside a shell loop on its CPU. Not on PREEMPT_RT, whose
 * siglock sleeps.
 *
 * Also (issue 15): writing N to its "sigundo" parameter runs a kernel
 * thread, "tsa-sigundo", bound to CPU 0, that N times sets TIF_SIGPENDING
 * on itself, sets TASK_INTERRUPTIBLE and calls schedule(): __schedule()
 * finds the signal pending and undoes the sleep, counting the switch, if
 * another task is picked, in nvcsw. The write returns once it is done
 * and parked (a plain sleep); "sigundo_tid" names it and
 * "sigundo_switches" counts its switches in that state (a test keeps
 * CPU 0 busy, so that the pick often prefers another task).
 *
 * Also (issue 31): writing "TID MS" to its "twsleep" parameter queues task
 * work on thread TID that sleeps MS milliseconds (a plain uninterruptible
 * sleep): the thread runs it on its way back to user mode, after its
 * current system call's sys_exit, with that call's number still in its
 * registers.
 *
 * Also: writing MS to "bhspin" runs a tasklet that spins MS milliseconds,
 * from the writer's own local_bh_enable(): on PREEMPT_RT the softirq runs
 * in the writer's task context, where other threads may preempt it.
 *
 * Also (issue 31): writing "TID MS" to "swstall" makes the next switch
 * that puts TID on a CPU, once tsa's hooks are all registered (its last,
 * signal_deliver, is enabled), spin MS ms after tsa's probe has run for
 * it (a lower priority) and before __schedule() sets TID's on_cpu, IRQs
 * off and the rq lock held. A load-time seeder that runs meanwhile finds
 * a thread that is on its CPU with on_cpu still clear. One switch only;
 * "swstalled" counts them.
 *
 * Never load it anywhere but a test guest.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/tracepoint.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/sched/signal.h>
#include <linux/smp.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/interrupt.h>
#include <linux/bottom_half.h>
#include <trace/events/sched.h>
#include <linux/version.h>

/* Older kernels: the state word's name (5.14) and prev_state (5.18). */
#if KERNEL_VERSION(5, 14, 0) > LINUX_VERSION_CODE
#define race_state(p)	READ_ONCE((p)->state)
#else
#define race_state(p)	READ_ONCE((p)->__state)
#endif
#if KERNEL_VERSION(5, 18, 0) > LINUX_VERSION_CODE
#define RACE_SWITCH_PROBE(fn)						\
	void fn(void *data, bool preempt, struct task_struct *prev,	\
		struct task_struct *next)
/* Read before tsa's probe, so before a wakeup could overwrite it. */
#define race_prev_state(preempt, prev)	((preempt) ? 0 : race_state(prev))
#else
#define RACE_SWITCH_PROBE(fn)						\
	void fn(void *data, bool preempt, struct task_struct *prev,	\
		struct task_struct *next, unsigned int prev_state)
#define race_prev_state(preempt, prev)	prev_state
#endif

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

/* Why a hold missed its wakeup, for the test's message. */
static uint held_max_us;
module_param(held_max_us, uint, 0444);
MODULE_PARM_DESC(held_max_us, "Longest hold of a stop, in us");
static int missed_state = -1;
module_param(missed_state, int, 0444);
MODULE_PARM_DESC(missed_state, "__state of the last stop whose hold timed out");

static struct tracepoint *race_tp, *signal_tp;

/* The SIGCONT of the stop being held; one at a time (the task stops). */
static struct pid *cont_pid;
static atomic_t cont_busy = ATOMIC_INIT(0);
static void cont_fn(void *info);
static call_single_data_t cont_csd = { .func = cont_fn };

/* Hard IRQ on another CPU: siglock and pi_lock are IRQ-safe. */
static void cont_fn(void *info)
{
	kill_pid(cont_pid, SIGCONT, 1);
	put_pid(cont_pid);
	atomic_set_release(&cont_busy, 0);
}

/* Ask another online CPU for the SIGCONT; false if none or one is due. */
static bool cont_send(struct task_struct *p)
{
	int cpu = cpumask_any_but(cpu_online_mask, smp_processor_id());

	if (cpu >= nr_cpu_ids || atomic_cmpxchg(&cont_busy, 0, 1))
		return false;
	cont_pid = get_pid(task_tgid(p));
	if (smp_call_function_single_async(cpu, &cont_csd)) {
		put_pid(cont_pid);
		atomic_set(&cont_busy, 0);
		return false;
	}
	return true;
}

static struct task_struct *sigundo_task;
static DECLARE_COMPLETION(sigundo_done);
static int sigundo_tid;
static atomic_t sigundo_switches = ATOMIC_INIT(0);
module_param(sigundo_tid, int, 0444);
module_param_named(sigundo_switches, sigundo_switches.counter, int, 0444);

/*
 * Spin on the CPU for @ns by the clock (mdelay()'s loops are short under
 * TCG); returns how long it spun.
 */
static u64 race_spin(u64 ns)
{
	u64 t0 = ktime_get_mono_fast_ns(), t;

	while ((t = ktime_get_mono_fast_ns()) < t0 + ns)
		cpu_relax();
	return t - t0;
}

static int sigundo_fn(void *arg)
{
	long i, n = (long)arg;

	/* Lighter than the hog: its vruntime runs ahead, another is picked. */
	set_user_nice(current, 5);
	for (i = 0; i < n; i++) {
		/* Use up some of its slice: the pick prefers the hog. */
		race_spin(2 * NSEC_PER_MSEC);
		set_tsk_thread_flag(current, TIF_SIGPENDING);
		set_current_state(TASK_INTERRUPTIBLE);
		schedule();	/* undone: a signal is pending */
		clear_tsk_thread_flag(current, TIF_SIGPENDING);
	}
	complete(&sigundo_done);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void sigundo_stop(void)
{
	if (sigundo_task) {
		kthread_stop(sigundo_task);
		put_task_struct(sigundo_task);
		sigundo_task = NULL;
	}
}

static int sigundo_set(const char *val, const struct kernel_param *kp)
{
	struct task_struct *t;
	long n;
	int ret = kstrtol(val, 0, &n);

	if (ret || n < 0)
		return ret ? ret : -EINVAL;
	sigundo_stop();
	if (!n)
		return 0;
	atomic_set(&sigundo_switches, 0);
	reinit_completion(&sigundo_done);
	t = kthread_create(sigundo_fn, (void *)n, "tsa-sigundo");
	if (IS_ERR(t))
		return PTR_ERR(t);
	get_task_struct(t);
	kthread_bind(t, 0);
	sigundo_tid = task_pid_nr(t);
	sigundo_task = t;
	wake_up_process(t);
	wait_for_completion(&sigundo_done);
	return 0;
}

static const struct kernel_param_ops sigundo_ops = { .set = sigundo_set };
module_param_cb(sigundo, &sigundo_ops, NULL, 0200);
MODULE_PARM_DESC(sigundo, "Run N undone sleeps in the tsa-sigundo thread");

struct twsleep {
	struct callback_head cb;
	unsigned int ms;
};

/* Queued and not yet run: the module stays until they have. */
static atomic_t twsleep_pending = ATOMIC_INIT(0);

static void twsleep_fn(struct callback_head *cb)
{
	struct twsleep *tw = container_of(cb, struct twsleep, cb);

	msleep(tw->ms);
	kfree(tw);
	atomic_dec(&twsleep_pending);
}

static int twsleep_set(const char *val, const struct kernel_param *kp)
{
	struct task_struct *t;
	struct twsleep *tw;
	unsigned int ms;
	int tid, ret;

	if (sscanf(val, "%d %u", &tid, &ms) != 2 || ms > 10000)
		return -EINVAL;
	tw = kzalloc(sizeof(*tw), GFP_KERNEL);
	if (!tw)
		return -ENOMEM;
	tw->ms = ms;
	init_task_work(&tw->cb, twsleep_fn);
	rcu_read_lock();
	t = pid_task(find_vpid(tid), PIDTYPE_PID);
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	if (!t) {
		kfree(tw);
		return -ESRCH;
	}
	atomic_inc(&twsleep_pending);
	ret = task_work_add(t, &tw->cb, TWA_RESUME);
	if (ret) {
		atomic_dec(&twsleep_pending);
		kfree(tw);
	}
	put_task_struct(t);
	return ret;
}

static const struct kernel_param_ops twsleep_ops = { .set = twsleep_set };
module_param_cb(twsleep, &twsleep_ops, NULL, 0200);
MODULE_PARM_DESC(twsleep, "\"TID MS\": TID sleeps MS ms on its way to user mode");

static unsigned int bhspin_ms;

static void bhspin_fn(struct tasklet_struct *t)
{
	race_spin((u64)bhspin_ms * NSEC_PER_MSEC);
}

static DECLARE_TASKLET(bhspin_tasklet, bhspin_fn);

static int bhspin_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;

	if (kstrtouint(val, 0, &ms) || ms > 1000)
		return -EINVAL;
	bhspin_ms = ms;
	local_bh_disable();
	tasklet_schedule(&bhspin_tasklet);
	local_bh_enable();
	/* Ran here, unless ksoftirqd took it: wait for it either way. */
	tasklet_unlock_wait(&bhspin_tasklet);
	return 0;
}

static const struct kernel_param_ops bhspin_ops = { .set = bhspin_set };
module_param_cb(bhspin, &bhspin_ops, NULL, 0200);
MODULE_PARM_DESC(bhspin, "Spin MS ms in a tasklet run from the writer's local_bh_enable()");

static RACE_SWITCH_PROBE(race_probe)
{
	u64 start, end, held;
	unsigned int state;

	if (prev == READ_ONCE(sigundo_task) && !preempt &&
	    test_tsk_thread_flag(prev, TIF_SIGPENDING) &&
	    race_state(prev) == TASK_RUNNING)
		atomic_inc(&sigundo_switches);
	if (IS_ENABLED(CONFIG_PREEMPT_RT) || preempt ||
	    !(race_prev_state(preempt, prev) & __TASK_STOPPED) ||
	    strncmp(prev->comm, comm, TASK_COMM_LEN))
		return;
	atomic_inc(&widened);
	if (!cont_send(prev))
		return;
	start = ktime_get_mono_fast_ns();
	end = start + (u64)max_ms * NSEC_PER_MSEC;
	while ((state = race_state(prev)) != TASK_WAKING &&
	       ktime_get_mono_fast_ns() <= end)
		cpu_relax();
	/* Only one CPU holds a stop at a time: plain stores will do. */
	held = div_u64(ktime_get_mono_fast_ns() - start, NSEC_PER_USEC);
	if (held > READ_ONCE(held_max_us))
		WRITE_ONCE(held_max_us, held);
	if (state != TASK_WAKING) {
		WRITE_ONCE(missed_state, state);
		return;
	}
	atomic_inc(&woken);
}

static void race_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		race_tp = tp;
	else if (!strcmp(tp->name, "signal_deliver"))
		signal_tp = tp;
}

static int swstall_tid;
static unsigned int swstall_ms;
static atomic_t swstall_armed = ATOMIC_INIT(0);
static atomic_t swstalled = ATOMIC_INIT(0);
module_param_named(swstalled, swstalled.counter, int, 0444);
static ulong swstall_ns;
module_param(swstall_ns, ulong, 0444);
MODULE_PARM_DESC(swstall_ns, "How long the last hold lasted, in ns");

static int swstall_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int tid;

	if (sscanf(val, "%d %u", &tid, &ms) != 2 || tid <= 0 || ms > 2000)
		return -EINVAL;
	WRITE_ONCE(swstall_ms, ms);
	WRITE_ONCE(swstall_tid, tid);
	atomic_set_release(&swstall_armed, 1);
	return 0;
}

static const struct kernel_param_ops swstall_ops = { .set = swstall_set };
module_param_cb(swstall, &swstall_ops, NULL, 0200);
MODULE_PARM_DESC(swstall, "\"TID MS\": hold TID's next switch-in MS ms once tsa is live");

/* After tsa's probe: see swstall above. */
static RACE_SWITCH_PROBE(race_stall_probe)
{
	if (!atomic_read(&swstall_armed) || next->pid != READ_ONCE(swstall_tid) ||
	    !signal_tp || !static_key_enabled(&signal_tp->key) ||
	    !atomic_xchg(&swstall_armed, 0))
		return;
	WRITE_ONCE(swstall_ns,
		   race_spin((u64)READ_ONCE(swstall_ms) * NSEC_PER_MSEC));
	atomic_inc(&swstalled);
}

static int __init race_init(void)
{
	int ret;

	for_each_kernel_tracepoint(race_find, NULL);
	if (!race_tp)
		return -ENOENT;
	/* Before tsa's probe, whichever was loaded first. */
	ret = tracepoint_probe_register_prio(race_tp, race_probe, NULL,
					     TRACEPOINT_DEFAULT_PRIO + 1);
	if (ret)
		return ret;
	/* And one after it. */
	ret = tracepoint_probe_register_prio(race_tp, race_stall_probe, NULL,
					     TRACEPOINT_DEFAULT_PRIO - 1);
	if (ret)
		tracepoint_probe_unregister(race_tp, race_probe, NULL);
	return ret;
}

static void __exit race_exit(void)
{
	tasklet_kill(&bhspin_tasklet);
	sigundo_stop();
	tracepoint_probe_unregister(race_tp, race_stall_probe, NULL);
	tracepoint_probe_unregister(race_tp, race_probe, NULL);
	tracepoint_synchronize_unregister();
	/* An IPI still due, then its handler's return (IRQs off: RCU). */
	while (atomic_read_acquire(&cont_busy) ||
	       atomic_read(&twsleep_pending))
		usleep_range(1000, 2000);
	synchronize_rcu();
}

module_init(race_init);
module_exit(race_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tsa test: widen the TASK_WAKING window of a stop");
