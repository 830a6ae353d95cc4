// SPDX-License-Identifier: GPL-2.0
/*
 * tsa storage: the task-pointer hash tables of records and of groups
 * (a process's, found by its signal_struct), and what changes them:
 * insertion at fork and load, removal when a task is freed, the pins of
 * the late queue. See tsa_table.h.
 */
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "tsa_compat.h"
#include "tsa_table_internal.h"

#define TSA_GROUP_BITS	12

/*
 * The thread table is sized at load for the threads the machine can hold:
 * one bucket per 64 KiB of RAM (a thread takes at least a 16 KiB kernel
 * stack and its task_struct, so chains stay around two records even with
 * memory full of threads, and each sched_switch walks them), 8 bytes per
 * 64 KiB in all. Between 4096 and 2^20 buckets (8 MiB).
 */
static struct hlist_head *tsa_threads;
static unsigned int tsa_thread_bits;
static struct hlist_head tsa_groups[1 << TSA_GROUP_BITS];
/* Inserts and removals only: fork, load, and task free (softirq). */
static DEFINE_RAW_SPINLOCK(tsa_table_lock);
/*
 * Records and groups in the table, counted under tsa_table_lock (no
 * atomics at every fork and exit), read by the stats without it.
 */
static u64 tsa_nr_threads, tsa_nr_groups;
static u64 tsa_nr_kthreads, tsa_nr_kgroups;	/* of those, kernel */
/* Under tsa_table_lock: @n changes by @d. */
static void tsa_count(u64 *n, int d)
{
	lockdep_assert_held(&tsa_table_lock);
	WRITE_ONCE(*n, *n + d);
}

static struct hlist_head *tsa_thread_bucket(const struct task_struct *t)
{
	return &tsa_threads[hash_ptr(t, tsa_thread_bits)];
}

static struct hlist_head *tsa_group_bucket(const struct signal_struct *s)
{
	return &tsa_groups[hash_ptr(s, TSA_GROUP_BITS)];
}

int tsa_table_init(unsigned int calls_rows, unsigned int trap_rows,
		   enum tsa_hist_mode hist)
{
	unsigned long units = totalram_pages() >> (16 - PAGE_SHIFT);

	tsa_table_layout_set(calls_rows, trap_rows, hist);
	tsa_thread_bits = clamp(order_base_2(units), 12, 20);
	tsa_threads = kvcalloc(1UL << tsa_thread_bits, sizeof(*tsa_threads),
			       GFP_KERNEL);
	if (!tsa_threads)
		return -ENOMEM;
	if (tsa_pool_init()) {
		kvfree(tsa_threads);
		return -ENOMEM;
	}
	return 0;
}

/* Called once no hook and no reader can reach the table any more. */
void tsa_table_exit(void)
{
	struct tsa_thread *th;
	struct tsa_group *g;
	struct hlist_node *n;
	int i;

	tsa_pool_exit();
	for (i = 0; i < 1 << tsa_thread_bits; i++) {
		hlist_for_each_entry_safe(th, n, &tsa_threads[i], node) {
			hlist_del(&th->node);
			tsa_thread_obj_free(th);
		}
	}
	for (i = 0; i < ARRAY_SIZE(tsa_groups); i++) {
		hlist_for_each_entry_safe(g, n, &tsa_groups[i], node) {
			hlist_del(&g->node);
			tsa_group_obj_free(g);
		}
	}
	WRITE_ONCE(tsa_nr_threads, 0);
	WRITE_ONCE(tsa_nr_groups, 0);
	WRITE_ONCE(tsa_nr_kthreads, 0);
	WRITE_ONCE(tsa_nr_kgroups, 0);
	/* Wait for the call_rcu() frees of records removed before. */
	rcu_barrier();
	tsa_pool_destroy();
	kvfree(tsa_threads);
}

/* Caller holds rcu_read_lock() or runs with IRQs or preemption off. */
struct tsa_thread *tsa_thread_find(const struct task_struct *t)
{
	struct tsa_thread *th;

	hlist_for_each_entry_rcu(th, tsa_thread_bucket(t), node,
				 lockdep_is_held(&tsa_table_lock)) {
		if (th->key == t)
			return th;
	}
	return NULL;
}

static struct tsa_group *tsa_group_find(const struct signal_struct *s)
{
	struct tsa_group *g;

	hlist_for_each_entry_rcu(g, tsa_group_bucket(s), node,
				 lockdep_is_held(&tsa_table_lock)) {
		if (g->key == s)
			return g;
	}
	return NULL;
}

/*
 * Make @th the record of @t unless @t has one already (the fork hook and
 * the load-time seeding may both try). Returns the record in the table; if
 * that is not @th, the caller frees @th. NULL, with nothing done, when
 * @t's process has no group yet and @th brought no spare (a thread the
 * fork hook took for one of a tracked process's, which is not: the caller
 * tracks it later, with one). The caller holds rcu_read_lock()
 * and has checked that @t is not yet released, so its free hook has not
 * run and will find what is inserted here. @th->acct must be set up.
 */
struct tsa_thread *tsa_thread_insert(struct tsa_thread *th,
				     struct task_struct *t)
{
	struct tsa_group *g, *unused = NULL;
	struct tsa_thread *old;
	unsigned long flags;

	raw_spin_lock_irqsave(&tsa_table_lock, flags);
	old = tsa_thread_find(t);
	if (old) {
		raw_spin_unlock_irqrestore(&tsa_table_lock, flags);
		return old;
	}
	g = tsa_group_find(t->signal);
	if (!g && !th->spare) {
		raw_spin_unlock_irqrestore(&tsa_table_lock, flags);
		return NULL;
	}
	if (g) {
		refcount_inc(&g->ref);
		/* Taken off @th here: once @th is in, its task may free it. */
		unused = th->spare;
		th->spare = NULL;
	} else {
		g = th->spare;
		th->spare = NULL;
		g->key = t->signal;
		refcount_set(&g->ref, 1);
		raw_spin_lock_init(&g->lock);
		seqcount_raw_spinlock_init(&g->seq, &g->lock);
		g->exited.flags = TSA_F_DEAD;
		hlist_add_head_rcu(&g->node, tsa_group_bucket(t->signal));
		tsa_count(&tsa_nr_groups, 1);
		if (g->kern)
			tsa_count(&tsa_nr_kgroups, 1);
	}
	th->group = g;
	th->key = t;
	refcount_set(&th->users, 1);
	hlist_add_head_rcu(&th->node, tsa_thread_bucket(t));
	tsa_count(&tsa_nr_threads, 1);
	if (th->kern)
		tsa_count(&tsa_nr_kthreads, 1);
	raw_spin_unlock_irqrestore(&tsa_table_lock, flags);

	if (unused)
		tsa_group_drop(unused);
	return th;
}

static void tsa_group_put_locked(struct tsa_group *g)
{
	if (!refcount_dec_and_test(&g->ref))
		return;
	hlist_del_rcu(&g->node);
	tsa_count(&tsa_nr_groups, -1);
	if (g->kern)
		tsa_count(&tsa_nr_kgroups, -1);
	call_rcu(&g->rcu, tsa_group_free_rcu);
}

/*
 * The group of @s, if tsa has one, held for a thread of it that waits to
 * be tracked (the late queue): without it, the group would go with the
 * last tracked thread of the process, and the waiting thread would start
 * a new one without the exited threads' totals. Caller: RCU read side.
 */
struct tsa_group *tsa_group_pin(const struct signal_struct *s)
{
	struct tsa_group *g = tsa_group_find(s);

	return g && refcount_inc_not_zero(&g->ref) ? g : NULL;
}

/* Let go of a group tsa_group_pin() held (NULL: none). */
void tsa_group_unpin(struct tsa_group *g)
{
	unsigned long flags;

	if (!g)
		return;
	raw_spin_lock_irqsave(&tsa_table_lock, flags);
	tsa_group_put_locked(g);
	raw_spin_unlock_irqrestore(&tsa_table_lock, flags);
}

/* The task is being freed: nothing can switch it in or wake it again. */
void tsa_thread_remove(const struct task_struct *t)
{
	struct tsa_thread *th;
	unsigned long flags;

	raw_spin_lock_irqsave(&tsa_table_lock, flags);
	th = tsa_thread_find(t);
	if (th) {
		hlist_del_rcu(&th->node);
		tsa_count(&tsa_nr_threads, -1);
		if (th->kern)
			tsa_count(&tsa_nr_kthreads, -1);
		tsa_group_put_locked(th->group);
	}
	raw_spin_unlock_irqrestore(&tsa_table_lock, flags);
	if (th)
		call_rcu(&th->rcu, tsa_thread_free_rcu);
}

/*
 * Keep @th, found under rcu_read_lock(), after the section ends: it stays
 * readable (not findable) until tsa_thread_let_go(). Its users cannot be
 * 0 yet: the table's reference goes only after a grace period that this
 * section holds off.
 */
void tsa_thread_hold(struct tsa_thread *th)
{
	refcount_inc(&th->users);
}

/* Process context: the last user frees the record. */
void tsa_thread_let_go(struct tsa_thread *th)
{
	if (refcount_dec_and_test(&th->users))
		tsa_thread_obj_free(th);
}

void tsa_table_get_stats(struct tsa_table_stats *st)
{
	st->threads = READ_ONCE(tsa_nr_threads);
	st->groups = READ_ONCE(tsa_nr_groups);
	tsa_pool_get_stats(st);
	st->kthreads = READ_ONCE(tsa_nr_kthreads);
	st->kgroups = READ_ONCE(tsa_nr_kgroups);
	st->buckets = (1UL << tsa_thread_bits) + ARRAY_SIZE(tsa_groups);
	tsa_read_get_stats(st);
	st->bytes = (st->threads - st->kthreads) * st->thread_size +
		    st->kthreads * st->kthread_size +
		    (st->groups - st->kgroups) * st->group_size +
		    st->kgroups * st->kgroup_size +
		    st->buckets * sizeof(struct hlist_head);
}
