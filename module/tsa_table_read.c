// SPDX-License-Identifier: GPL-2.0
/*
 * Reading records and groups while their owners write them (the reader
 * protocol: see tsa_table.h), and a thread's exit, which hands its
 * numbers over to its process's group in one step as readers see it.
 */
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/sched.h>

#include "tsa_compat.h"
#include "tsa_table_internal.h"

/* The latest clock a reader charged a state in progress up to. */
atomic64_t tsa_readers_clock = ATOMIC64_INIT(0);
bool tsa_irq_writers __read_mostly;

/*
 * The clock for a reader's copies, published before any record is read:
 * a writer that read its clock before opening the record then stamps no
 * earlier than this (tsa_thread_early_stamp()), so no state's time seen
 * here is taken back.
 */
u64 tsa_reader_clock(void)
{
	u64 now = tsa_clock();
	s64 seen = atomic64_read(&tsa_readers_clock);

	while (seen < (s64)now &&
	       !atomic64_try_cmpxchg(&tsa_readers_clock, &seen, now))
		;
	smp_mb();	/* published before the records are read */
	return now;
}

/*
 * The seeder is done: the record's own events may write it without the
 * lock again, unless a reader holds them off. Cleared under the lock, so
 * a reader's bit is never lost; the release pairs with
 * tsa_thread_own_begin_irqs_off(): the seeder's writes come first.
 */
void tsa_thread_seeded(struct tsa_thread *th)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&th->lock, flags);
	/* Our writes before the clear: see above. */
	smp_store_release(&th->acct.hold, th->acct.hold & ~TSA_HOLD_SEEDER);
	raw_spin_unlock_irqrestore(&th->lock, flags);
}

/* What readers cost the threads they read (debugfs). */
static atomic64_t tsa_nr_reads = ATOMIC64_INIT(0);
static atomic64_t tsa_nr_read_retries = ATOMIC64_INIT(0);
static atomic64_t tsa_nr_read_locks = ATOMIC64_INIT(0);
static atomic_t tsa_read_retries_max = ATOMIC_INIT(0);

/*
 * Lockless copies a reader tries before it holds the owner off: a thread
 * in a syscall loop writes its record every few hundred nanoseconds, as
 * long as a copy of the record and its tables takes, so a reader could
 * retry for ever (milliseconds were seen) and slow the thread it reads.
 */
#define TSA_READ_TRIES	3

/*
 * Make the record's writers take its lock, as while a seeder writes it
 * (tsa_thread_own_begin_irqs_off()), and hold it: no new write starts.
 * A write that saw the flag clear before the store below may still be
 * under way; the seqcount tells, and the next copy waits for its end.
 */
static void tsa_thread_hold_writers(struct tsa_thread *th,
				    unsigned long *flags)
{
	raw_spin_lock_irqsave(&th->lock, *flags);
	WRITE_ONCE(th->acct.hold, th->acct.hold | TSA_HOLD_READER);
	smp_mb();	/* the flag before the seqcount is read again */
}

static void tsa_thread_release_writers(struct tsa_thread *th,
				       unsigned long flags)
{
	/* Pairs with tsa_thread_own_begin_irqs_off(), as the seeder's. */
	smp_store_release(&th->acct.hold, th->acct.hold & ~TSA_HOLD_READER);
	raw_spin_unlock_irqrestore(&th->lock, flags);
}

/*
 * A consistent copy of @th's accounting as of @now; returns the stay.
 * With @tables (tsa_table_size() bytes, laid out as after the record),
 * a copy of its tables too, as of @now, sorted.
 *
 * Readers copy under the seqcount with IRQs on and no record lock held,
 * and so never make a writer wait, unless the owner writes faster than
 * they copy: after TSA_READ_TRIES failed copies a reader holds the
 * writers off for one copy (a couple of KiB, well under a microsecond
 * with IRQs off), so that a read is bounded and costs the owner at most
 * that wait. Lockdep checks that no reader comes here with IRQs off.
 */
u64 tsa_thread_read(struct tsa_thread *th, u64 now, struct tsa_acct *out,
		    void *tables)
{
	unsigned int seq, tries = 0, max;
	unsigned long flags = 0;
	struct tsa_acct copy;
	u64 stay;
	int k;

	lockdep_assert_irqs_enabled();
	for (;;) {
		seq = read_seqcount_begin(&th->seq);
		copy = th->acct;
		if (tables)
			memcpy(tables, th + 1, tsa_table_size_of(th->kern));
		if (!read_seqcount_retry(&th->seq, seq))
			break;
		if (++tries == TSA_READ_TRIES) {
			tsa_thread_hold_writers(th, &flags);
			atomic64_inc(&tsa_nr_read_locks);
		}
	}
	if (tries >= TSA_READ_TRIES)
		tsa_thread_release_writers(th, flags);
	if (tables && th->kern)
		tsa_tables_reset_calls(tables);
	atomic64_inc(&tsa_nr_reads);
	if (tries) {
		atomic64_add(tries, &tsa_nr_read_retries);
		max = atomic_read(&tsa_read_retries_max);
		while (tries > max &&
		       !atomic_try_cmpxchg(&tsa_read_retries_max, &max, tries))
			;
	}
	for (k = 0; tables && k < TSA_NR_TABLES; k++)
		if (tsa_table_rows(k))
			tsa_acct_table_snapshot(&copy, k, now,
						tsa_table_in(tables, k));
	stay = tsa_acct_snapshot(&copy, now, out);
	if (tsa_table_hist(tables))
		tsa_acct_hist_snapshot(&copy, out, tsa_table_hist(tables));
	return stay;
}

/* Number a hand-over; never 0, which means "not handed over". */
static u32 tsa_group_next_exit(struct tsa_group *g)
{
	if (++g->exits == 0)
		g->exits = 1;
	return g->exits;
}

/*
 * The totals of @g's exited threads, as a consistent copy: a few hundred
 * bytes under the seqcount, retried while exits write them (each write is
 * as short), never with the group lock held. Returns the number of the
 * latest hand-over they hold.
 */
u32 tsa_group_read(struct tsa_group *g, u64 now, struct tsa_acct *sum,
		   void *tables, u32 *threads, u64 *at)
{
	unsigned int seq;
	u32 gen;

	lockdep_assert_irqs_enabled();	/* see tsa_thread_read() */
	do {
		seq = read_seqcount_begin(&g->seq);
		*sum = g->exited;
		if (tables)
			memcpy(tables, g + 1, tsa_table_size_of(g->kern));
		*threads = g->exited_threads;
		*at = max(now, g->at);
		gen = g->exits;
	} while (read_seqcount_retry(&g->seq, seq));
	if (tables && g->kern)
		tsa_tables_reset_calls(tables);
	if (tables)
		tsa_tables_sort(tables);
	return gen;
}

/*
 * Did @th hand its numbers over in a move that totals read as of hand-over
 * @gen hold? Read after tsa_group_read(), whose seqcount orders it.
 */
bool tsa_thread_handed_over(const struct tsa_thread *th, u32 gen)
{
	u32 mine = READ_ONCE(th->exit_gen);

	return mine && (s32)(gen - mine) >= 0;
}

/*
 * The thread enters do_exit(): its numbers so far move into its process's
 * exited totals, in one step as readers of the group see it (they skip an
 * exiting record), and it counts as exited from here on.
 */
bool tsa_thread_exit_begin(struct tsa_thread *th)
{
	struct tsa_group *g = th->group;
	unsigned long flags;
	bool clamped, locked;

	raw_spin_lock_irqsave(&g->lock, flags);
	write_seqcount_begin(&g->seq);
	locked = tsa_thread_own_begin_irqs_off(th, 0);
	if (!(th->acct.flags & TSA_F_NOT_LIVE)) {
		g->exited_threads++;
		th->exit_gen = tsa_group_next_exit(g);
	}
	clamped = tsa_acct_exit_begin(&th->acct, tsa_clock(), &g->exited,
				      g->tab, g->hist);
	g->at = max(g->at, th->acct.stamp);
	tsa_thread_own_end_irqs_off(th, locked);
	write_seqcount_end(&g->seq);
	raw_spin_unlock_irqrestore(&g->lock, flags);
	return clamped;
}

/*
 * The thread's last switch-out: freeze its numbers and fold them (all of
 * them, or the tail since its exit began) into its process's exited
 * totals, in one step as readers of the group see it.
 */
bool tsa_thread_exit(struct tsa_thread *th)
{
	struct tsa_group *g = th->group;
	unsigned long flags;
	bool clamped, counted, exiting, locked;
	int k;

	raw_spin_lock_irqsave(&g->lock, flags);
	write_seqcount_begin(&g->seq);
	locked = tsa_thread_own_begin_irqs_off(th, 0);
	counted = !(th->acct.flags & (TSA_F_DEAD | TSA_F_PROVISIONAL));
	exiting = th->acct.flags & TSA_F_EXITING;
	clamped = tsa_acct_exit(&th->acct, tsa_clock());
	for (k = 0; counted && k < TSA_NR_TABLES; k++)
		if (g->tab[k] && th->acct.tab[k])
			tsa_calls_merge(g->tab[k], th->acct.tab[k]);
	tsa_thread_own_end_irqs_off(th, locked);
	if (counted) {
		if (g->hist && th->acct.hist)
			tsa_hist_merge(g->hist, g->exited.st, th->acct.hist,
				       th->acct.st);
		tsa_acct_add(&g->exited, &th->acct);
		g->at = max(g->at, th->acct.stamp);
		if (!exiting) {
			g->exited_threads++;
			th->exit_gen = tsa_group_next_exit(g);
		}
	}
	write_seqcount_end(&g->seq);
	raw_spin_unlock_irqrestore(&g->lock, flags);
	return clamped;
}


void tsa_read_get_stats(struct tsa_table_stats *st)
{
	st->reads = atomic64_read(&tsa_nr_reads);
	st->read_retries = atomic64_read(&tsa_nr_read_retries);
	st->read_retries_max = atomic_read(&tsa_read_retries_max);
	st->read_locks = atomic64_read(&tsa_nr_read_locks);
}
