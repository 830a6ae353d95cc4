// SPDX-License-Identifier: GPL-2.0
/*
 * tsa storage: the task-pointer hash table. See tsa_table.h.
 */
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/llist.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "tsa_compat.h"
#include "tsa_table.h"

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
 * Records and groups of user threads, and of kernel threads (tsa_kern):
 * a kernel thread never makes a system call, so its objects are the same
 * but for the calls table, which is laid out last to be left off. With
 * calls=0 both kinds share one cache.
 */
static struct kmem_cache *tsa_thread_cache, *tsa_kthread_cache;
static struct kmem_cache *tsa_group_cache, *tsa_kgroup_cache;
/*
 * Rows of each record's tables (0: none): they follow the record, and
 * each group, in its slab object: the interrupts table, the
 * distributions, then the calls table.
 */
static unsigned int tsa_rows[TSA_NR_TABLES];
static enum tsa_hist_mode tsa_hist_mode;	/* a tsa_hist after the tables */
/*
 * Records and groups in the table, counted under tsa_table_lock (no
 * atomics at every fork and exit), read by the stats without it.
 */
static u64 tsa_nr_threads, tsa_nr_groups;
static u64 tsa_nr_kthreads, tsa_nr_kgroups;	/* of those, kernel */
static atomic64_t tsa_nr_alloc_failures = ATOMIC64_INIT(0);
/*
 * Objects allocated and not yet freed: must be zero after unload. Per
 * CPU, summed by the readers: freed by RCU callbacks on any CPU, an
 * object is counted in one CPU's count and out of another's.
 */
static DEFINE_PER_CPU(long, tsa_nr_objects);

/* Under tsa_table_lock: @n changes by @d. */
static void tsa_count(u64 *n, int d)
{
	lockdep_assert_held(&tsa_table_lock);
	WRITE_ONCE(*n, *n + d);
}

static long tsa_objects(void)
{
	long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(tsa_nr_objects, cpu);
	return n;
}

static struct kmem_cache *tsa_thread_cache_of(bool kern)
{
	return kern ? tsa_kthread_cache : tsa_thread_cache;
}

static struct kmem_cache *tsa_group_cache_of(bool kern)
{
	return kern ? tsa_kgroup_cache : tsa_group_cache;
}

static void *tsa_obj_alloc(struct kmem_cache *c, gfp_t gfp)
{
	void *p = kmem_cache_zalloc(c, gfp | __GFP_NOWARN);

	if (p)
		this_cpu_inc(tsa_nr_objects);
	return p;
}

static void tsa_obj_free(struct kmem_cache *c, void *p)
{
	this_cpu_dec(tsa_nr_objects);
	kmem_cache_free(c, p);
}

/*
 * Records for the fork hook, which runs with preemption off: on
 * PREEMPT_RT the slab allocator may not be called there at all, and
 * elsewhere an atomic allocation can fail under memory pressure. A pool
 * refilled from a work item serves it; on non-RT kernels an empty pool
 * falls back to GFP_NOWAIT.
 */
struct tsa_pool {
	struct list_head list;
	unsigned int len;
	unsigned int size;
};

/* User threads' records, and kernel threads' (rarer: kthreadd's forks). */
static struct tsa_pool tsa_pools[2] = {
	{ .list = LIST_HEAD_INIT(tsa_pools[0].list), .size = 256 },
	{ .list = LIST_HEAD_INIT(tsa_pools[1].list), .size = 32 },
};

/*
 * Groups for the new processes among those forks, apart: a new thread of
 * a tracked process needs none, and most forks of a threaded program are
 * threads.
 */
static struct tsa_pool tsa_gpools[2] = {
	{ .list = LIST_HEAD_INIT(tsa_gpools[0].list), .size = 64 },
	{ .list = LIST_HEAD_INIT(tsa_gpools[1].list), .size = 16 },
};
static DEFINE_RAW_SPINLOCK(tsa_pool_lock);
static bool tsa_pool_live;

/* Under tsa_pool_lock (or alone, at unload): @pool's first entry, or NULL. */
static struct list_head *tsa_pool_take(struct tsa_pool *pool)
{
	struct list_head *e = pool->list.next;

	if (e == &pool->list)
		return NULL;
	list_del(e);
	pool->len--;
	return e;
}

/* @e into @pool, unless it is full or tsa is unloading: false then. */
static bool tsa_pool_put(struct tsa_pool *pool, struct list_head *e)
{
	unsigned long flags;
	bool full;

	raw_spin_lock_irqsave(&tsa_pool_lock, flags);
	full = !tsa_pool_live || pool->len >= pool->size;
	if (!full) {
		list_add(e, &pool->list);
		pool->len++;
	}
	raw_spin_unlock_irqrestore(&tsa_pool_lock, flags);
	return !full;
}

static void tsa_pool_refill(struct work_struct *work);
static DECLARE_WORK(tsa_pool_work, tsa_pool_refill);

/*
 * Records and spare groups that the fork hook took but did not use. The
 * hook runs with preemption off, where PREEMPT_RT forbids slab calls
 * (their locks sleep): there they are freed by the pool's work item.
 */
static LLIST_HEAD(tsa_unused_threads);
static LLIST_HEAD(tsa_unused_groups);
static void tsa_free_unused(void);

static struct hlist_head *tsa_thread_bucket(const struct task_struct *t)
{
	return &tsa_threads[hash_ptr(t, tsa_thread_bits)];
}

static struct hlist_head *tsa_group_bucket(const struct signal_struct *s)
{
	return &tsa_groups[hash_ptr(s, TSA_GROUP_BITS)];
}

unsigned int tsa_table_rows(enum tsa_table k)
{
	return tsa_rows[k];
}

/* With every distribution, the calls table has its calls' durations. */
static bool tsa_table_has_hist(enum tsa_table k)
{
	return tsa_hist_mode == TSA_HIST_ALL && k == TSA_T_CALLS;
}

static size_t tsa_table_bytes(enum tsa_table k)
{
	return tsa_rows[k] ? tsa_calls_size(tsa_rows[k], tsa_table_has_hist(k)) :
		0;
}

/*
 * Where table @k starts at @off or after it: so that its rows each fill
 * a cache line of the record (the slab aligns records to lines), since a
 * call's return writes its row; a row across two lines made a null call
 * write five lines, not four. A group's and a reader's copy of the
 * tables are laid out alike, unaligned.
 */
static size_t tsa_table_align(enum tsa_table k, size_t off)
{
	size_t rows = sizeof(struct tsa_thread) + off + sizeof(struct tsa_calls);

	return tsa_rows[k] ? off + (-rows & (L1_CACHE_BYTES - 1)) : off;
}

/* Where each part starts: interrupts, distributions, calls (last). */
static size_t tsa_traps_off(void)
{
	return tsa_table_align(TSA_T_TRAPS, 0);
}

static size_t tsa_hist_off(void)
{
	return tsa_traps_off() + tsa_table_bytes(TSA_T_TRAPS);
}

/* The end of the distributions: all a kernel thread's record has. */
static size_t tsa_hist_end(void)
{
	return tsa_hist_off() + tsa_hist_size(tsa_hist_mode);
}

static size_t tsa_calls_off(void)
{
	return tsa_table_align(TSA_T_CALLS, tsa_hist_end());
}

/* The bytes of all tables of one record (0: none). */
size_t tsa_table_size(void)
{
	return tsa_calls_off() + tsa_table_bytes(TSA_T_CALLS);
}

/* The bytes of the tables of a kernel thread's record: all but calls. */
static size_t tsa_table_size_of(bool kern)
{
	return kern ? tsa_hist_end() : tsa_table_size();
}

enum tsa_hist_mode tsa_table_hist_mode(void)
{
	return tsa_hist_mode;
}

/* The distributions in a block of tables laid out as after each record. */
struct tsa_hist *tsa_table_hist(void *tables)
{
	if (tsa_hist_mode == TSA_HIST_NONE || !tables)
		return NULL;
	return (struct tsa_hist *)((char *)tables + tsa_hist_off());
}

/* Table @k in a block of tables laid out as after each record. */
struct tsa_calls *tsa_table_in(void *tables, enum tsa_table k)
{
	BUILD_BUG_ON(TSA_NR_TABLES != 2);
	if (!tsa_rows[k])
		return NULL;
	return (struct tsa_calls *)((char *)tables +
				    (k == TSA_T_CALLS ? tsa_calls_off() :
				     tsa_traps_off()));
}

/*
 * In a copy of a kernel thread's tables, which has none, an empty calls
 * table: as the record of a thread that never made a call would have.
 */
static void tsa_tables_reset_calls(void *tables)
{
	if (tsa_rows[TSA_T_CALLS])
		tsa_calls_reset(tsa_table_in(tables, TSA_T_CALLS),
				tsa_rows[TSA_T_CALLS],
				tsa_table_has_hist(TSA_T_CALLS), false);
}

/*
 * Empty tables, laid out as after a record (a reader's sum); the
 * distributions among them are not summed (the thread file shows none).
 */
void tsa_tables_reset(void *tables)
{
	int k;

	for (k = 0; k < TSA_NR_TABLES; k++)
		if (tsa_rows[k])
			tsa_calls_reset(tsa_table_in(tables, k), tsa_rows[k],
					tsa_table_has_hist(k), false);
}

/* Add the tables @from into @to (both laid out as after a record). */
void tsa_tables_merge(void *to, void *from)
{
	int k;

	for (k = 0; k < TSA_NR_TABLES; k++)
		if (tsa_rows[k])
			tsa_calls_merge(tsa_table_in(to, k),
					tsa_table_in(from, k));
}

/* Each table's rows, most time first. */
void tsa_tables_sort(void *tables)
{
	int k;

	for (k = 0; k < TSA_NR_TABLES; k++)
		if (tsa_rows[k])
			tsa_calls_sort(tsa_table_in(tables, k));
}

/*
 * Point @tab at the tables after an object and say their size, and @hist
 * at its distributions; a kernel thread's (@kern) has no calls table.
 */
static void tsa_tables_attach(struct tsa_calls **tab, struct tsa_hist **hist,
			      void *end, bool kern)
{
	int k;

	for (k = 0; k < TSA_NR_TABLES; k++) {
		tab[k] = kern && k == TSA_T_CALLS ? NULL : tsa_table_in(end, k);
		if (tab[k]) {
			tab[k]->max = tsa_rows[k];
			tab[k]->hist = tsa_table_has_hist(k);
		}
	}
	*hist = tsa_table_hist(end);
	if (*hist)
		tsa_hist_layout(*hist, tsa_hist_mode);
}

static void tsa_caches_destroy(void)
{
	if (tsa_kthread_cache != tsa_thread_cache)
		kmem_cache_destroy(tsa_kthread_cache);
	if (tsa_kgroup_cache != tsa_group_cache)
		kmem_cache_destroy(tsa_kgroup_cache);
	kmem_cache_destroy(tsa_thread_cache);
	kmem_cache_destroy(tsa_group_cache);
	tsa_thread_cache = tsa_kthread_cache = NULL;
	tsa_group_cache = tsa_kgroup_cache = NULL;
}

/* The caches of one kind's records and groups (@kern: kernel threads'). */
static void tsa_caches_create(bool kern)
{
	size_t extra = tsa_table_size_of(kern);
	struct kmem_cache *t, *g;

	/* Aligned for the lines the syscall edges write (tsa_table.h). */
	t = kmem_cache_create(kern ? "tsa_kthread" : "tsa_thread",
			      sizeof(struct tsa_thread) + extra,
			      __alignof__(struct tsa_thread), SLAB_HWCACHE_ALIGN,
			      NULL);
	g = kmem_cache_create(kern ? "tsa_kgroup" : "tsa_group",
			      sizeof(struct tsa_group) + extra,
			      __alignof__(struct tsa_group), 0, NULL);
	if (kern) {
		tsa_kthread_cache = t;
		tsa_kgroup_cache = g;
	} else {
		tsa_thread_cache = t;
		tsa_group_cache = g;
	}
}

int tsa_table_init(unsigned int calls_rows, unsigned int trap_rows,
		   enum tsa_hist_mode hist)
{
	unsigned long units = totalram_pages() >> (16 - PAGE_SHIFT);

	tsa_rows[TSA_T_CALLS] = min_t(unsigned int, calls_rows, TSA_CALLS_MAX_ROWS);
	tsa_rows[TSA_T_TRAPS] = min_t(unsigned int, trap_rows, TSA_CALLS_MAX_ROWS);
	tsa_hist_mode = hist;
	tsa_thread_bits = clamp(order_base_2(units), 12, 20);
	tsa_threads = kvcalloc(1UL << tsa_thread_bits, sizeof(*tsa_threads),
			       GFP_KERNEL);
	tsa_caches_create(false);
	tsa_kthread_cache = tsa_thread_cache;
	tsa_kgroup_cache = tsa_group_cache;
	if (tsa_rows[TSA_T_CALLS])
		tsa_caches_create(true);
	if (!tsa_threads || !tsa_thread_cache || !tsa_group_cache ||
	    !tsa_kthread_cache || !tsa_kgroup_cache) {
		tsa_caches_destroy();
		kvfree(tsa_threads);
		return -ENOMEM;
	}
	tsa_pool_live = true;
	tsa_pool_refill(NULL);
	return 0;
}

/* Called once no hook and no reader can reach the table any more. */
void tsa_table_exit(void)
{
	struct tsa_thread *th;
	struct tsa_group *g;
	struct list_head *e;
	struct hlist_node *n;
	int i;

	raw_spin_lock_irq(&tsa_pool_lock);
	tsa_pool_live = false;
	raw_spin_unlock_irq(&tsa_pool_lock);
	cancel_work_sync(&tsa_pool_work);
	tsa_free_unused();
	for (i = 0; i < ARRAY_SIZE(tsa_pools); i++) {
		while ((e = tsa_pool_take(&tsa_pools[i])))
			tsa_thread_free(list_entry(e, struct tsa_thread, pool));
		while ((e = tsa_pool_take(&tsa_gpools[i])))
			tsa_obj_free(tsa_group_cache_of(i),
				     list_entry(e, struct tsa_group, pool));
	}

	for (i = 0; i < 1 << tsa_thread_bits; i++) {
		hlist_for_each_entry_safe(th, n, &tsa_threads[i], node) {
			hlist_del(&th->node);
			tsa_obj_free(tsa_thread_cache_of(th->kern), th);
		}
	}
	for (i = 0; i < ARRAY_SIZE(tsa_groups); i++) {
		hlist_for_each_entry_safe(g, n, &tsa_groups[i], node) {
			hlist_del(&g->node);
			tsa_obj_free(tsa_group_cache_of(g->kern), g);
		}
	}
	WRITE_ONCE(tsa_nr_threads, 0);
	WRITE_ONCE(tsa_nr_groups, 0);
	WRITE_ONCE(tsa_nr_kthreads, 0);
	WRITE_ONCE(tsa_nr_kgroups, 0);
	/* Wait for the call_rcu() frees of records removed before. */
	rcu_barrier();
	WARN(tsa_objects(), "tsa: %ld objects leaked\n", tsa_objects());
	tsa_caches_destroy();
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
 * A group, for a process new to tsa (a kernel thread's has no calls
 * table): zeroed, its tables laid out and empty, so insertion only links it.
 */
static struct tsa_group *tsa_group_alloc(gfp_t gfp, bool kern)
{
	struct tsa_group *g = tsa_obj_alloc(tsa_group_cache_of(kern), gfp);

	if (!g)
		return NULL;
	g->kern = kern;
	tsa_tables_attach(g->tab, &g->hist, g + 1, kern);
	tsa_tables_prepare(g->tab);
	return g;
}

/* A record alone, with no group (@kern: a kernel thread's, no calls table). */
static struct tsa_thread *tsa_thread_alloc_bare(gfp_t gfp, bool kern)
{
	struct tsa_thread *th;

	th = tsa_obj_alloc(tsa_thread_cache_of(kern), gfp);
	if (!th)
		return NULL;
	th->kern = kern;
	raw_spin_lock_init(&th->lock);
	seqcount_raw_spinlock_init(&th->seq, &th->lock);
	/* Empty tables: the fork hook's tsa_acct_init_fresh() keeps them. */
	tsa_tables_attach(th->acct.tab, &th->acct.hist, th + 1, kern);
	tsa_tables_prepare(th->acct.tab);
	return th;
}

/*
 * Memory for a record and, in case its process is new to tsa, for its
 * group: allocated before any lock is taken, so that insertion never
 * allocates. A kernel thread (@kern) is a process of its own: its
 * group has no calls table either.
 */
struct tsa_thread *tsa_thread_alloc(gfp_t gfp, bool kern)
{
	struct tsa_thread *th = tsa_thread_alloc_bare(gfp, kern);

	if (th)
		th->spare = tsa_group_alloc(gfp, kern);
	if (!th || !th->spare) {
		if (th)
			tsa_obj_free(tsa_thread_cache_of(kern), th);
		atomic64_inc(&tsa_nr_alloc_failures);
		return NULL;
	}
	return th;
}

static void tsa_free_unused(void)
{
	struct tsa_thread *th, *tn;
	struct tsa_group *g, *gn;

	llist_for_each_entry_safe(th, tn, llist_del_all(&tsa_unused_threads),
				  unused)
		tsa_thread_free(th);
	llist_for_each_entry_safe(g, gn, llist_del_all(&tsa_unused_groups),
				  unused)
		tsa_obj_free(tsa_group_cache_of(g->kern), g);
}

/* The pools @kern (a kernel thread's, or a user thread's), refilled. */
static void tsa_pool_fill(bool kern)
{
	struct tsa_thread *th;
	struct tsa_group *g;

	while ((th = tsa_thread_alloc_bare(GFP_KERNEL, kern))) {
		if (!tsa_pool_put(&tsa_pools[kern], &th->pool)) {
			tsa_thread_free(th);
			break;
		}
	}
	while ((g = tsa_group_alloc(GFP_KERNEL, kern))) {
		if (!tsa_pool_put(&tsa_gpools[kern], &g->pool)) {
			tsa_obj_free(tsa_group_cache_of(kern), g);
			break;
		}
	}
}

static void tsa_pool_refill(struct work_struct *work)
{
	tsa_free_unused();
	tsa_pool_fill(false);
	tsa_pool_fill(true);
}


#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
#include <linux/fault-inject.h>

/*
 * Kernels built for fault injection: debugfs tsa/fail_fork fails the fork
 * hook's record on demand (the kernel's fault attributes: probability,
 * times, task-filter), so that a test can put a given thread in the late
 * queue. Compiled out elsewhere.
 */
static DECLARE_FAULT_ATTR(tsa_fail_fork);

void tsa_table_debugfs(struct dentry *dir)
{
	fault_create_debugfs_attr("fail_fork", dir, &tsa_fail_fork);
}

static bool tsa_fork_fails(void)
{
	return should_fail(&tsa_fail_fork, 1);
}
#else
void tsa_table_debugfs(struct dentry *dir)
{
}

static bool tsa_fork_fails(void)
{
	return false;
}
#endif

/*
 * A record for the fork hook: from the pool, never sleeping; with a
 * spare group if @group (a new process, or a thread whose process tsa
 * may not know).
 */
struct tsa_thread *tsa_thread_alloc_atomic(bool kern, bool group)
{
	struct tsa_pool *pool = &tsa_pools[kern], *gpool = &tsa_gpools[kern];
	struct tsa_thread *th = NULL;
	struct list_head *e;
	unsigned long flags;
	bool refill;

	if (tsa_fork_fails())
		return NULL;

	raw_spin_lock_irqsave(&tsa_pool_lock, flags);
	e = tsa_pool_take(pool);
	if (e) {
		th = list_entry(e, struct tsa_thread, pool);
		e = group ? tsa_pool_take(gpool) : NULL;
		if (e)
			th->spare = list_entry(e, struct tsa_group, pool);
	}
	refill = tsa_pool_live && (pool->len < pool->size / 2 ||
				   gpool->len < gpool->size / 2);
	raw_spin_unlock_irqrestore(&tsa_pool_lock, flags);
	if (refill)
		queue_work(tsa_unbound_wq, &tsa_pool_work);
	if (!th && !IS_ENABLED(CONFIG_PREEMPT_RT))
		return tsa_thread_alloc(GFP_NOWAIT, kern);
	if (th && group && !th->spare && !IS_ENABLED(CONFIG_PREEMPT_RT))
		th->spare = tsa_group_alloc(GFP_NOWAIT, kern);
	if (th && group && !th->spare) {
		tsa_thread_drop(th);
		th = NULL;
	}
	if (!th)
		atomic64_inc(&tsa_nr_alloc_failures);
	return th;
}

void tsa_thread_free(struct tsa_thread *th)
{
	if (th->spare)
		tsa_obj_free(tsa_group_cache_of(th->spare->kern), th->spare);
	tsa_obj_free(tsa_thread_cache_of(th->kern), th);
}

/* Free a record that was never inserted; legal with preemption off. */
void tsa_thread_drop(struct tsa_thread *th)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		tsa_thread_free(th);
		return;
	}
	llist_add(&th->unused, &tsa_unused_threads);
	queue_work(tsa_unbound_wq, &tsa_pool_work);
}

static void tsa_group_drop(struct tsa_group *g)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		tsa_obj_free(tsa_group_cache_of(g->kern), g);
		return;
	}
	llist_add(&g->unused, &tsa_unused_groups);
	queue_work(tsa_unbound_wq, &tsa_pool_work);
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
	hlist_add_head_rcu(&th->node, tsa_thread_bucket(t));
	tsa_count(&tsa_nr_threads, 1);
	if (th->kern)
		tsa_count(&tsa_nr_kthreads, 1);
	raw_spin_unlock_irqrestore(&tsa_table_lock, flags);

	if (unused)
		tsa_group_drop(unused);
	return th;
}

/*
 * call_rcu() rather than kfree_rcu(): on 6.1 rcu_barrier() does not wait
 * for kfree_rcu() batches, and the caches must be empty at unload.
 */
static void tsa_group_free_rcu(struct rcu_head *head)
{
	struct tsa_group *g = container_of(head, struct tsa_group, rcu);

	tsa_obj_free(tsa_group_cache_of(g->kern), g);
}

static void tsa_thread_free_rcu(struct rcu_head *head)
{
	struct tsa_thread *th = container_of(head, struct tsa_thread, rcu);

	tsa_obj_free(tsa_thread_cache_of(th->kern), th);
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
		if (tsa_rows[k])
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

void tsa_table_get_stats(struct tsa_table_stats *st)
{
	st->threads = READ_ONCE(tsa_nr_threads);
	st->groups = READ_ONCE(tsa_nr_groups);
	st->alloc_failures = atomic64_read(&tsa_nr_alloc_failures);
	st->objects = tsa_objects();
	/* Its slot: SLAB_HWCACHE_ALIGN rounds each one to a cache line. */
	st->thread_size = ALIGN(kmem_cache_size(tsa_thread_cache),
				cache_line_size());
	st->kthread_size = ALIGN(kmem_cache_size(tsa_kthread_cache),
				 cache_line_size());
	st->group_size = kmem_cache_size(tsa_group_cache);
	st->kgroup_size = kmem_cache_size(tsa_kgroup_cache);
	st->kthreads = READ_ONCE(tsa_nr_kthreads);
	st->kgroups = READ_ONCE(tsa_nr_kgroups);
	st->buckets = (1UL << tsa_thread_bits) + ARRAY_SIZE(tsa_groups);
	st->reads = atomic64_read(&tsa_nr_reads);
	st->read_retries = atomic64_read(&tsa_nr_read_retries);
	st->read_retries_max = atomic_read(&tsa_read_retries_max);
	st->read_locks = atomic64_read(&tsa_nr_read_locks);
	st->bytes = (st->threads - st->kthreads) * st->thread_size +
		    st->kthreads * st->kthread_size +
		    (st->groups - st->kgroups) * st->group_size +
		    st->kgroups * st->kgroup_size +
		    st->buckets * sizeof(struct hlist_head);
}
