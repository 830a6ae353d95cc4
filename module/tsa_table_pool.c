// SPDX-License-Identifier: GPL-2.0
/*
 * Where records and groups come from: slab caches (a kernel thread's
 * objects, which have no calls table, in caches of their own), pools for
 * the fork hook (which runs with preemption off, where PREEMPT_RT may not
 * call the slab allocator), refilled by a work item, and the frees that
 * must wait for a grace period or for process context. Counts every
 * object, so that unload can tell a leak.
 */
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "tsa_compat.h"
#include "tsa_table_internal.h"

/*
 * Records and groups of user threads, and of kernel threads (tsa_kern):
 * a kernel thread never makes a system call, so its objects are the same
 * but for the calls table, which is laid out last to be left off. With
 * calls=0 both kinds share one cache.
 */
static struct kmem_cache *tsa_thread_cache, *tsa_kthread_cache;
static struct kmem_cache *tsa_group_cache, *tsa_kgroup_cache;
static atomic64_t tsa_nr_alloc_failures = ATOMIC64_INIT(0);
/*
 * Objects allocated and not yet freed: must be zero after unload. Per
 * CPU, summed by the readers: freed by RCU callbacks on any CPU, an
 * object is counted in one CPU's count and out of another's.
 */
static DEFINE_PER_CPU(long, tsa_nr_objects);

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

void tsa_group_drop(struct tsa_group *g)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		tsa_obj_free(tsa_group_cache_of(g->kern), g);
		return;
	}
	llist_add(&g->unused, &tsa_unused_groups);
	queue_work(tsa_unbound_wq, &tsa_pool_work);
}

/*
 * call_rcu() rather than kfree_rcu(): on 6.1 rcu_barrier() does not wait
 * for kfree_rcu() batches, and the caches must be empty at unload.
 */
void tsa_group_free_rcu(struct rcu_head *head)
{
	struct tsa_group *g = container_of(head, struct tsa_group, rcu);

	tsa_obj_free(tsa_group_cache_of(g->kern), g);
}

void tsa_thread_free_rcu(struct rcu_head *head)
{
	struct tsa_thread *th = container_of(head, struct tsa_thread, rcu);

	/* A reader may still hold it (tsa_thread_hold()). */
	if (refcount_dec_and_test(&th->users))
		tsa_thread_obj_free(th);
}


void tsa_thread_obj_free(struct tsa_thread *th)
{
	tsa_slot_release(th);
	tsa_obj_free(tsa_thread_cache_of(th->kern), th);
}

void tsa_group_obj_free(struct tsa_group *g)
{
	tsa_obj_free(tsa_group_cache_of(g->kern), g);
}

int tsa_pool_init(void)
{
	tsa_caches_create(false);
	tsa_kthread_cache = tsa_thread_cache;
	tsa_kgroup_cache = tsa_group_cache;
	if (tsa_table_rows(TSA_T_CALLS))
		tsa_caches_create(true);
	if (!tsa_thread_cache || !tsa_group_cache || !tsa_kthread_cache ||
	    !tsa_kgroup_cache) {
		tsa_caches_destroy();
		return -ENOMEM;
	}
	tsa_pool_live = true;
	tsa_pool_refill(NULL);
	return 0;
}

void tsa_pool_exit(void)
{
	struct list_head *e;
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
}

void tsa_pool_destroy(void)
{
	WARN(tsa_objects(), "tsa: %ld objects leaked\n", tsa_objects());
	tsa_caches_destroy();
}

void tsa_pool_get_stats(struct tsa_table_stats *st)
{
	st->alloc_failures = atomic64_read(&tsa_nr_alloc_failures);
	st->objects = tsa_objects();
	/* Its slot: SLAB_HWCACHE_ALIGN rounds each one to a cache line. */
	st->thread_size = ALIGN(kmem_cache_size(tsa_thread_cache),
				cache_line_size());
	st->kthread_size = ALIGN(kmem_cache_size(tsa_kthread_cache),
				 cache_line_size());
	st->group_size = kmem_cache_size(tsa_group_cache);
	st->kgroup_size = kmem_cache_size(tsa_kgroup_cache);
}
