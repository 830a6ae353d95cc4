// SPDX-License-Identifier: GPL-2.0
/*
 * tsa hooks, what happens to a running thread inside the kernel: page
 * faults and swap-ins (kprobes), sleeping-lock contention, interrupts
 * and softirqs (charged to the thread they interrupt, as TRP), and
 * signals delivered. Each writes only the current thread's record.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>

#include "tsa_calib.h"
#include "tsa_edge.h"
#include "tsa_probes.h"

DEFINE_PER_CPU(int, tsa_trap_depth);
/*
 * The source of each trap a CPU is in, outermost first: a hard interrupt
 * can come during a softirq, and its time is its own.
 */
DEFINE_PER_CPU(u16[TSA_TRAP_NEST], tsa_trap_source);

/*
 * kprobe handlers run from the int3 trap when the probe cannot go through
 * ftrace, and the kernel counts that trap as NMI. They write the current
 * thread's record as its other events do (tsa_thread_own_begin()): no
 * record is ever open where the probed functions run, so the trap never
 * lands inside a write section. Only the lock a seeder may hold is a
 * question there: in NMI it may only be tried, never waited for (lockdep
 * checks nothing else in NMI either, so the seqcount is bumped without
 * its annotation). A failed try is counted and the event dropped whole.
 */
static atomic64_t tsa_probe_misses = ATOMIC64_INIT(0);

static __always_inline bool tsa_probe_write_begin(struct tsa_thread *th,
						  unsigned long *flags,
						  bool *locked)
{
	if (!in_nmi()) {
		*locked = tsa_thread_own_begin(th, flags);
		return true;
	}
	local_irq_save(*flags);
	*locked = tsa_thread_held(th);
	if (*locked && !raw_spin_trylock(&th->lock)) {
		local_irq_restore(*flags);
		atomic64_inc(&tsa_probe_misses);
		return false;
	}
	raw_write_seqcount_begin(&th->seq);
	return true;
}

static __always_inline void tsa_probe_write_end(struct tsa_thread *th,
						unsigned long flags,
						bool locked)
{
	if (!in_nmi()) {
		tsa_thread_own_end(th, flags, locked);
		return;
	}
	/* A registered slot is published as by tsa_thread_own_end(). */
	if (locked && unlikely(th->acct.hold & TSA_HOLD_SLOT))
		tsa_slot_publish(th);
	raw_write_seqcount_end(&th->seq);
	if (locked)
		raw_spin_unlock(&th->lock);
	local_irq_restore(flags);
}

/*
 * Page faults: a kretprobe on handle_mm_fault(), whose entry and return
 * are the exact boundaries of the fault. The instance data carries the
 * fault's flags and the context of an outer fault to the return. A
 * plain user fault takes tsa_edge.h's fast edges, as a system call does:
 * the record opened, then the clock read, with no lock and IRQs on.
 */
struct tsa_fault_data {
	unsigned int flags;
	u8 saved;
};

/*
 * May a fault take the fast edges of @th, this CPU's current_th: not in
 * NMI (an int3 kprobe), with no IRQ writers, and @th current's? Whether
 * its writers are held the plain tests ask, with the state.
 */
static __always_inline bool tsa_fault_fast(const struct tsa_thread *th)
{
	return likely(!in_nmi() && !READ_ONCE(tsa_irq_writers)) &&
		tsa_thread_mine(th);
}

/*
 * Fault bits that should not be there (tsa_acct_fault_stale(), seen at a
 * user fault's entry or a system call's): a return handler that could
 * not write (in NMI, behind a seeder's lock) left them. The accounting
 * drops them; say so once.
 */
void tsa_fault_stale_seen(void)
{
	WARN_ONCE(1, "tsa: a fault's return was not accounted; its context is dropped\n");
}
NOKPROBE_SYMBOL(tsa_fault_stale_seen);

static noinline int tsa_fault_entry_slow(struct tsa_fault_data *d)
{
	u8 kind = tsa_fault_kind(d->flags);
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;

	th = tsa_thread_current();
	if (!th)
		return 1;	/* no return probe for untracked tasks */
	if (!tsa_probe_write_begin(th, &flags, &locked))
		return 1;	/* not followed: no half a fault */
	if (unlikely(tsa_acct_fault_stale(&th->acct, kind)))
		tsa_fault_stale_seen();
	tsa_clamped(tsa_acct_fault_enter(&th->acct, tsa_clock(), kind,
					 &d->saved));
	tsa_probe_write_end(th, flags, locked);
	return 0;
}
NOKPROBE_SYMBOL(tsa_fault_entry_slow);

static int tsa_fault_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct tsa_fault_data *d = (struct tsa_fault_data *)ri->data;
	struct tsa_thread *th;

	tsa_event(TSA_EV_FAULT);
	d->flags = regs_get_kernel_argument(regs, 2);
	d->saved = 0;
	th = this_cpu_read(tsa_cpu.current_th);
	if (likely(tsa_fault_fast(th) &&
		   tsa_acct_fault_enter_plain(&th->acct))) {
		raw_write_seqcount_begin(&th->seq);
		tsa_acct_fault_enter_fast_pre(&th->acct,
					      tsa_fault_kind(d->flags));
		tsa_acct_fault_enter_fast_at(&th->acct, tsa_clock());
		raw_write_seqcount_end(&th->seq);
		return 0;
	}
	return tsa_fault_entry_slow(d);
}
NOKPROBE_SYMBOL(tsa_fault_entry);

static noinline void tsa_fault_return_slow(const struct tsa_fault_data *d,
					   unsigned int ret)
{
	struct tsa_thread *th;
	unsigned long flags;
	bool locked, was_sys;

	th = tsa_thread_current();
	if (!th || !tsa_probe_write_begin(th, &flags, &locked))
		return;
	was_sys = th->acct.state == TSA_SYS;
	tsa_clamped(tsa_acct_fault_exit(&th->acct, tsa_clock(), d->saved,
					d->flags, ret));
	/* Back to user mode: the exception's exit path is unseen. */
	if (was_sys)
		tsa_acct_set_head(&th->acct, this_cpu_read(tsa_cross.fault));
	tsa_probe_write_end(th, flags, locked);
}
NOKPROBE_SYMBOL(tsa_fault_return_slow);

static int tsa_fault_return(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct tsa_fault_data *d = (struct tsa_fault_data *)ri->data;
	unsigned int ret = regs_return_value(regs);
	struct tsa_thread *th;

	th = this_cpu_read(tsa_cpu.current_th);
	if (likely(tsa_fault_fast(th) &&
		   tsa_acct_fault_exit_plain(&th->acct, d->saved, ret))) {
		raw_write_seqcount_begin(&th->seq);
		tsa_acct_fault_exit_fast_pre(&th->acct, d->flags, ret,
					     this_cpu_read(tsa_cross.fault));
		tsa_acct_fault_exit_fast_at(&th->acct, tsa_clock());
		raw_write_seqcount_end(&th->seq);
		return 0;
	}
	tsa_fault_return_slow(d, ret);
	return 0;
}
NOKPROBE_SYMBOL(tsa_fault_return);

struct kretprobe tsa_fault_probe = {
	.kp.symbol_name = "handle_mm_fault",
	.entry_handler = tsa_fault_entry,
	.handler = tsa_fault_return,
	.data_size = sizeof(struct tsa_fault_data),
};

/* The first thing do_swap_page() does: this fault waits for swap. */
static int tsa_swapin_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;

	tsa_event(TSA_EV_SWAPIN);
	th = tsa_thread_current();
	if (!th || !(READ_ONCE(th->acct.ctx) & TSA_C_FAULT) ||
	    !tsa_probe_write_begin(th, &flags, &locked))
		return 0;
	th->acct.ctx |= TSA_C_SWAP;
	tsa_probe_write_end(th, flags, locked);
	return 0;
}
NOKPROBE_SYMBOL(tsa_swapin_pre);

struct kprobe tsa_swapin_probe = {
	.symbol_name = TSA_SWAPIN_FUNC,
	.pre_handler = tsa_swapin_pre,
};

/*
 * Kernel lock contention. Spinning is on-CPU time, so spin contention
 * (which includes the rq lock and tsa's own locks) returns at once. The
 * end probe acts only for the lock that began the contention: it also
 * fires after a contended spinlock, possibly one of tsa's own.
 */
TSA_PROBE_CONTENTION_BEGIN(tsa_contention_begin)
{
	struct tsa_thread *th;
	unsigned long irqf;
	bool locked;

	if (flags & LCB_F_SPIN)
		return;
	tsa_event(TSA_EV_CONTENTION);
	th = tsa_thread_current();
	if (!th)
		return;
	locked = tsa_thread_own_begin(th, &irqf);
	th->klock = lock;
	th->acct.ctx |= TSA_C_KLOCK;
	tsa_thread_own_end(th, irqf, locked);
}
TSA_CHECK_CONTENTION_PROBE(contention_begin, tsa_contention_begin);

TSA_PROBE_CONTENTION_END(tsa_contention_end)
{
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;

	th = tsa_thread_current();
	if (!th || READ_ONCE(th->klock) != lock)
		return;
	tsa_event(TSA_EV_CONTENTION_END);
	locked = tsa_thread_own_begin(th, &flags);
	th->klock = NULL;
	th->acct.ctx &= ~TSA_C_KLOCK;
	tsa_thread_own_end(th, flags, locked);
}
TSA_CHECK_CONTENTION_PROBE(contention_end, tsa_contention_end);

/*
 * Interrupts are charged to the thread they interrupt. Hard and soft
 * interrupts nest on a CPU; only the outermost changes the state.
 */
static void tsa_trap(bool enter, enum tsa_event ev, u16 source)
{
	struct tsa_thread *th;
	unsigned long flags;
	int depth;
	bool nest, locked;

	tsa_event(ev);
	if (enter) {
		depth = this_cpu_inc_return(tsa_trap_depth);
		if (depth <= TSA_TRAP_NEST)
			this_cpu_write(tsa_trap_source[depth - 1], source);
		nest = depth != 1;
	} else {
		depth = this_cpu_dec_return(tsa_trap_depth);
		if (depth < 0)		/* began before the hook was live */
			this_cpu_write(tsa_trap_depth, 0);
		nest = depth > 0;
		/* Back to the outer trap's source. */
		if (nest)
			source = tsa_trap_source_at(depth);
	}
	th = tsa_thread_current();
	if (!th || (nest && !th->acct.tab[TSA_T_TRAPS]))
		return;
	locked = tsa_thread_own_begin(th, &flags);
	if (nest)
		tsa_clamped(tsa_acct_trap_nest(&th->acct, tsa_clock(), source,
					       !enter));
	else if (enter)
		tsa_clamped(tsa_acct_trap_enter(&th->acct, tsa_clock(),
						source));
	else
		tsa_clamped(tsa_acct_trap_exit(&th->acct, tsa_clock()));
	tsa_thread_own_end(th, flags, locked);
}

TSA_PROBE_IRQ_ENTRY(tsa_irq_entry)
{
	tsa_trap(true, TSA_EV_IRQ, tsa_trap_key(true, irq));
}
TSA_CHECK_PROBE(irq_handler_entry, tsa_irq_entry);

TSA_PROBE_IRQ_EXIT(tsa_irq_exit)
{
	tsa_trap(false, TSA_EV_IRQ_EXIT, 0);
}
TSA_CHECK_PROBE(irq_handler_exit, tsa_irq_exit);

TSA_PROBE_SOFTIRQ(tsa_softirq_entry)
{
	tsa_trap(true, TSA_EV_SOFTIRQ, tsa_trap_key(false, vec_nr));
}
TSA_CHECK_PROBE(softirq_entry, tsa_softirq_entry);

TSA_PROBE_SOFTIRQ(tsa_softirq_exit)
{
	tsa_trap(false, TSA_EV_SOFTIRQ_EXIT, 0);
}
TSA_CHECK_PROBE(softirq_exit, tsa_softirq_exit);

TSA_PROBE_SIGNAL_DELIVER(tsa_signal_deliver)
{
	struct tsa_thread *th;
	unsigned long flags;
	bool locked;

	tsa_event(TSA_EV_SIGNAL);
	th = tsa_thread_current();
	if (!th)
		return;
	locked = tsa_thread_own_begin(th, &flags);
	th->acct.count[TSA_SIG]++;
	/* Out of a fault that was to be retried, to a handler. */
	if (unlikely(th->acct.ctx & TSA_C_RETRY))
		tsa_clamped(tsa_acct_fault_abandon(&th->acct, tsa_clock()));
	tsa_thread_own_end(th, flags, locked);
}
TSA_CHECK_PROBE(signal_deliver, tsa_signal_deliver);

void tsa_hooks_kernel_show(struct seq_file *m)
{
	seq_printf(m, "fault_probe_missed %d\n", tsa_fault_probe.nmissed);
	seq_printf(m, "probe_lock_misses %lld\n",
		   atomic64_read(&tsa_probe_misses));
}
