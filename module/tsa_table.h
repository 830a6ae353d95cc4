/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Storage: one struct tsa_thread per tracked task, found by task pointer.
 *
 * task_struct has no field to spare, so records live in a hash table
 * sized at load for the machine's memory, keyed by the task pointer (a
 * tid is reused as soon as the task is reaped, a pointer only after the
 * task is freed). Lookups are lockless under RCU, which the scheduler
 * hooks get for free from running with IRQs off. Records are inserted at
 * fork and at load (process context, never under the rq lock), removed
 * when the task is freed, and freed after a grace period.
 *
 * Each record is written by its own thread's events, by wakeups from
 * other CPUs and by a seeder (load, late tracking); readers copy under a
 * seqcount and never make a writer wait. A wakeup writes only the record
 * of a thread that is off CPU and asleep or stopped, so the thread's own
 * CPU writes a running or runnable thread's record alone, and the one
 * waker writes a sleeping one's alone: every event writes it with no
 * lock, and with local IRQs off only where an interrupt could write it
 * too (tsa_thread_own_begin()). Only while a seeder may write the record
 * (or a reader holds its writers off) do events serialise on its raw
 * spinlock (legal under the rq lock, and on PREEMPT_RT); the exit
 * hand-overs take it too, under their group's lock. Writers read the
 * clock inside their write section, or (a fault's entry, user_exit) stamp
 * no earlier than any reader's published clock: a reader that copied the record
 * before them charged the current state no later than their stamp, so
 * the time it saw is never taken back, but for one window: a writer that
 * opens the record and then reads the clock has no full barrier between
 * (x86-64 and arm64 both let the clock read pass the store that opened
 * the record), so a reader whose clock is later may still see the record
 * closed and charge the state in progress up to its clock, past the
 * stamp the writer then writes. What it saw is taken back by at most the
 * time a store takes to leave a CPU's store buffer (nanoseconds).
 * Closing it costs a locked instruction at every open: two a null system
 * call, fourteen a pipe round trip (make bench), where tsa adds none of
 * its own now; readers that difference two reads clamp at zero
 * (docs/proc-format.md).
 *
 * Threads of one process share a struct tsa_group, found by the
 * signal_struct they share: it keeps the totals of the process's exited
 * threads, so a process's numbers never go backwards. A thread's exit
 * moves its numbers into the group under the group's lock and seqcount
 * and numbers the move (group exits, thread exit_gen). A reader copies
 * the live threads one by one, then the totals under the seqcount (a
 * small, bounded copy), and drops every copied thread whose move the
 * totals already hold: no thread is counted twice or not at all, and no
 * reader ever holds the group lock. Lock order: rq, group, thread.
 */
#ifndef TSA_TABLE_H
#define TSA_TABLE_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/llist.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/gfp.h>
#include <linux/types.h>

#include "tsa_calls.h"
#include "tsa_state.h"

struct dentry;
struct page;
struct task_struct;
struct signal_struct;

struct tsa_group {
	struct hlist_node node;
	const struct signal_struct *key;
	refcount_t ref;
	raw_spinlock_t lock;
	seqcount_raw_spinlock_t seq;	/* covers exits of its threads */
	u32 exited_threads;
	u32 exits;		/* hand-overs so far: numbers them */
	bool kern;		/* a kernel thread's: no calls table */
	u64 at;			/* clock of the latest hand-over into exited */
	struct tsa_acct exited;	/* sum of exited threads; elapsed = stamp */
	struct tsa_calls *tab[TSA_NR_TABLES];	/* their tables, or NULL */
	struct tsa_hist *hist;		/* their distributions, or NULL */
	union {
		struct rcu_head rcu;
		struct llist_node unused;	/* a spare to free later */
		struct list_head pool;		/* in the pool of spare groups */
	};
};

/* Traps (hard and soft interrupts) one CPU can be inside at once. */
#define TSA_TRAP_NEST	4

/*
 * Allocated cache-line aligned (tsa_table_init()), with what every event
 * of its thread writes first: the seqcount, then the accounting, whose
 * first two lines hold all that a system call's edges write (see struct
 * tsa_acct).
 */
struct tsa_thread {
	seqcount_raw_spinlock_t seq;
	bool nvcsw_known;		/* nvcsw_in is set (switched in once) */
	u8 nvcsw_in;			/* low bits of its nvcsw at switch-in */
	u8 wk_last;			/* waker row + 1 of the LAT going on */
	struct tsa_acct acct;
	const struct task_struct *key;	/* never dereferenced via the table */
	union {
		struct hlist_node node;	/* in the table */
		struct list_head pool;	/* in the pool of spare records */
		struct llist_node unused;	/* not inserted, to free later */
	};
	struct tsa_group *group;
	struct tsa_group *spare;	/* preallocated, used by insert */
	const void *klock;		/* kernel lock being contended */
	raw_spinlock_t lock;
	u32 exit_gen;			/* its hand-over's number; 0: none yet */
	/*
	 * Its mapped slot's page (tsa_slot.c), written while acct.hold has
	 * TSA_HOLD_SLOT, and referenced until the record is freed.
	 */
	struct page *slot;
	/*
	 * Who is waking it (tsa_hooks_wake.c): written by sched_waking in
	 * the waker's context, read by the wakeup it leads to, wherever
	 * that runs. Between the two no other wakeup of it begins (it is
	 * TASK_WAKING, or the waker holds its pi_lock). In a line of its
	 * own, away from what the thread itself writes.
	 */
	u32 wk_who;
	bool kern;		/* a kernel thread's record: no calls table */
	u64 wk_start;
#ifdef CONFIG_PREEMPT_RT
	/* Traps it is inside while off CPU: see tsa_trap_switch(). */
	u8 trap_depth;
	u16 trap_source[TSA_TRAP_NEST];
#endif
	/*
	 * The table's reference (dropped by the free after a grace period)
	 * and those of readers that keep the record past their RCU read
	 * section (tsa_thread_hold()): the last one frees it.
	 */
	refcount_t users;
	struct rcu_head rcu;
};

/*
 * Those two lines, where the seqcount is the bare counter (no lockdep, no
 * PREEMPT_RT): line 0 the seqcount, stamp, state and flags, the open
 * call's key and SCL, line 1 the books of USR and SYS.
 */
#if !IS_ENABLED(CONFIG_LOCKDEP) && !IS_ENABLED(CONFIG_PREEMPT_RT) && \
	L1_CACHE_BYTES == 64
static_assert(offsetof(struct tsa_thread, acct.call) < 64 &&
	      offsetof(struct tsa_thread, acct.count[TSA_SCL]) < 64 &&
	      offsetof(struct tsa_thread, acct.st[TSA_USR]) >= 64 &&
	      offsetof(struct tsa_thread, acct.st[TSA_SYS + 1]) <= 128);
#endif

/*
 * The record's acct.hold: who makes its own events take its lock. Set
 * before insertion (a seeder) or under the lock (a reader that holds
 * writers off), and cleared under the lock, each its own bit. In the
 * word the fast edges test with the state (tsa_acct_word()), which the
 * accounting never writes whole.
 */
#define TSA_HOLD_SEEDER		0x01
#define TSA_HOLD_READER		0x02
#define TSA_HOLD_SLOT		0x04	/* a mapped slot to publish to */

/* tsa_slot.c: copy the record's numbers to its slot; its lock held. */
void tsa_slot_publish(struct tsa_thread *th);
struct page *tsa_slot_alloc(pid_t tid);
struct page *tsa_slot_install(struct tsa_thread *th, struct page *page);
struct page *tsa_slot_get(struct tsa_thread *th);
void tsa_slot_stop(struct tsa_thread *th);
void tsa_slot_release(struct tsa_thread *th);

/* Must @th's own events take its lock? */
static __always_inline u8 tsa_thread_held(const struct tsa_thread *th)
{
	/* Pairs with the release in tsa_thread_seeded() and readers'. */
	return smp_load_acquire(&th->acct.hold);
}

struct tsa_table_stats {
	u64 threads;
	u64 groups;
	u64 alloc_failures;
	u64 objects;		/* allocated, including those freed after RCU */
	u64 bytes;
	u64 thread_size;	/* slab object size of one record */
	u64 group_size;
	u64 kthreads;		/* of the threads, kernel threads */
	u64 kgroups;
	u64 kthread_size;	/* theirs: no calls table */
	u64 kgroup_size;
	u64 buckets;
	u64 reads;		/* record copies by readers */
	u64 read_retries;	/* copies redone: the owner wrote meanwhile */
	u64 read_retries_max;	/* the most of one copy */
	u64 read_locks;		/* copies that held the writers off */
};

int tsa_table_init(unsigned int calls_rows, unsigned int trap_rows,
		   enum tsa_hist_mode hist);
unsigned int tsa_table_rows(enum tsa_table k);
size_t tsa_table_size(void);
void tsa_table_exit(void);

struct tsa_thread *tsa_thread_find(const struct task_struct *t);
struct tsa_thread *tsa_thread_alloc(gfp_t gfp, bool kern);
struct tsa_thread *tsa_thread_alloc_atomic(bool kern, bool group);
void tsa_thread_free(struct tsa_thread *th);
void tsa_thread_drop(struct tsa_thread *th);
struct tsa_thread *tsa_thread_insert(struct tsa_thread *th,
				     struct task_struct *t);
void tsa_thread_remove(const struct task_struct *t);
struct tsa_group *tsa_group_pin(const struct signal_struct *s);
void tsa_group_unpin(struct tsa_group *g);
void tsa_thread_seeded(struct tsa_thread *th);
u64 tsa_reader_clock(void);
u64 tsa_thread_read(struct tsa_thread *th, u64 now, struct tsa_acct *out,
		    void *tables);
struct tsa_calls *tsa_table_in(void *tables, enum tsa_table k);
struct tsa_hist *tsa_table_hist(void *tables);
enum tsa_hist_mode tsa_table_hist_mode(void);
void tsa_tables_reset(void *tables);
void tsa_tables_merge(void *to, void *from);
void tsa_tables_sort(void *tables);
bool tsa_thread_exit_begin(struct tsa_thread *th);
bool tsa_thread_exit(struct tsa_thread *th);
u32 tsa_group_read(struct tsa_group *g, u64 now, struct tsa_acct *sum,
		   void *tables, u32 *threads, u64 *at);
bool tsa_thread_handed_over(const struct tsa_thread *th, u32 gen);
void tsa_thread_hold(struct tsa_thread *th);
void tsa_thread_let_go(struct tsa_thread *th);
void tsa_table_get_stats(struct tsa_table_stats *st);
void tsa_table_debugfs(struct dentry *dir);

/* A seeder: the record's lock, and the seqcount bumped. */
#define tsa_thread_write_begin(th, flags)			\
	do {							\
		raw_spin_lock_irqsave(&(th)->lock, flags);	\
		write_seqcount_begin(&(th)->seq);		\
	} while (0)

#define tsa_thread_write_end(th, flags)				\
	do {							\
		write_seqcount_end(&(th)->seq);			\
		raw_spin_unlock_irqrestore(&(th)->lock, flags);	\
	} while (0)

/*
 * The record's sole writer, IRQs off: its own thread on its own CPU
 * (sched_switch: prev, and next under the rq lock that any wakeup of it
 * must take; its exit's hand-overs, in do_exit() and at its last
 * switch), or the wakeup of a thread off CPU (tsa_wake()). No other
 * CPU writes the record meanwhile unless a seeder may (@th->acct.hold,
 * whose release orders the seeder's writes before ours); then the lock.
 * @sub is the lockdep subclass of a second record open at once: only a
 * CPU's own switch holds two, prev then next, and no thread is prev on
 * one CPU while next on another, so no other order exists. Returns
 * whether the lock was taken, for tsa_thread_own_end_irqs_off().
 */
static __always_inline bool tsa_thread_own_begin_irqs_off(struct tsa_thread *th,
							  int sub)
{
	lockdep_assert_irqs_disabled();
	if (unlikely(tsa_thread_held(th))) {
		raw_spin_lock_nested(&th->lock, sub);
		write_seqcount_begin_nested(&th->seq, sub);
		return true;
	}
	raw_write_seqcount_begin(&th->seq);
	return false;
}

static __always_inline void tsa_thread_own_end_irqs_off(struct tsa_thread *th,
							bool locked)
{
	if (unlikely(locked)) {
		/* Only a locked writer publishes: see tsa_slot.c. */
		if (unlikely(th->acct.hold & TSA_HOLD_SLOT))
			tsa_slot_publish(th);
		write_seqcount_end(&th->seq);
		raw_spin_unlock(&th->lock);
		return;
	}
	raw_write_seqcount_end(&th->seq);
}

extern atomic64_t tsa_readers_clock;

/*
 * The stamp of an event whose clock was read before its record was
 * opened: user_exit and a fault's entry read it first thing, so that
 * their own work is kernel time. A reader that copied
 * the record between that read and the open charged the old state up to
 * its own clock, which may be later; it published that clock first
 * (tsa_reader_clock()), and the open before this load makes sure one of
 * the two sees the other. The stamp then goes past that clock, not to
 * it: a reader that missed the event gives its copy that clock as its
 * time (/proc/tsa/all's "at"), and the event is after it, not at it (the
 * replay counts events up to "at"). Nor does a stamp go before the
 * state's own, which a seeder holding the lock may have set meanwhile.
 *
 * The barrier is a locked instruction: the system call edges, far more
 * frequent, open the record first and read the clock after, as a switch
 * does (tsa_hooks_syscall.c). Moving its cost to the readers (an IPI fence
 * every CPU runs, shared by readers within a few ms) was tried: the
 * readers' clocks then went up to that much stale, and a thread's file
 * read right after its work showed none of it.
 */
static __always_inline u64 tsa_thread_early_stamp(const struct tsa_thread *th,
						  u64 t)
{
	u64 r;

	smp_mb();	/* the open before the load: pairs with the reader's */
	r = atomic64_read(&tsa_readers_clock);
	if (unlikely(t <= r))
		t = r + 1;
	return max(t, th->acct.stamp);
}

/*
 * Whether anything writes the current thread's record from an interrupt
 * (the trap hooks, interrupts=1). Set before any hook is registered.
 */
extern bool tsa_irq_writers;

/*
 * The same from a probe that may run with IRQs on (system calls, sleeping
 * locks, wakeups), preemption off. Without interrupt writers, nothing an
 * interrupt on this CPU runs writes this record (a wakeup leaves a thread
 * on CPU alone), so the write section keeps IRQs on: no flag save, no cli.
 * A seeder's or a holding reader's lock is also taken by wakeups in
 * interrupts, so it is only ever taken with IRQs off; once the flag is
 * seen the lock is taken, whether or not the flag is still set.
 */
static __always_inline bool tsa_thread_own_begin(struct tsa_thread *th,
						 unsigned long *flags)
{
	bool held = tsa_thread_held(th);

	if (likely(!held && !READ_ONCE(tsa_irq_writers))) {
		*flags = 0;
		raw_write_seqcount_begin(&th->seq);
		return false;
	}
	local_irq_save(*flags);
	if (held) {
		raw_spin_lock(&th->lock);
		write_seqcount_begin(&th->seq);
		return true;
	}
	return tsa_thread_own_begin_irqs_off(th, 0);
}

static __always_inline void tsa_thread_own_end(struct tsa_thread *th,
					       unsigned long flags, bool locked)
{
	tsa_thread_own_end_irqs_off(th, locked);
	if (locked || READ_ONCE(tsa_irq_writers))
		local_irq_restore(flags);
}

#endif /* TSA_TABLE_H */
