// SPDX-License-Identifier: GPL-2.0
/*
 * A registered thread's mapped slot (uapi/tsa.h, struct tsa_slot): one
 * zeroed page that the thread's own events copy its numbers into, which
 * the thread maps read-only (tsa_proc_self.c).
 *
 * A registered record has TSA_HOLD_SLOT in its hold byte, so that all its
 * events take the general paths and its lock (tsa_table.h), and publish
 * in the locked branch of tsa_thread_own_end_irqs_off(): a thread that
 * has not registered runs exactly the instructions it ran before. Every
 * write of the page is under the record's lock: one writer at a time,
 * and the module's page reference is dropped under it or once nothing
 * can write the record any more, so no write reaches a page it let go.
 * The page lives on by its mappings' references (vm_insert_page()); no
 * mapping calls back into the module.
 */
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sched.h>

#include "tsa_table.h"
#include "uapi/tsa.h"

static_assert(sizeof(struct tsa_slot) == TSA_SLOT_SIZE_VER1);

static struct tsa_slot *tsa_slot_of(struct page *page)
{
	return page_address(page);
}

/* Open @s's sequence; the stores after it are seen after it. */
static u32 tsa_slot_begin(struct tsa_slot *s)
{
	u32 seq = READ_ONCE(s->seq) + 1;

	WRITE_ONCE(s->seq, seq);
	smp_wmb();	/* the odd count before the fields */
	return seq;
}

static void tsa_slot_end(struct tsa_slot *s, u32 seq)
{
	smp_wmb();	/* the fields before the even count */
	WRITE_ONCE(s->seq, seq + 1);
}

static void tsa_slot_set_ended(struct page *page)
{
	struct tsa_slot *s = tsa_slot_of(page);
	u32 seq = tsa_slot_begin(s);

	WRITE_ONCE(s->flags, s->flags | TSA_SLOT_ENDED);
	tsa_slot_end(s, seq);
}

/*
 * The record's lock held, and its numbers final for this event. An
 * exiting thread's record has handed its numbers over to its process
 * (tsa_thread_exit_begin()): its page keeps those of its last event
 * before, and ends.
 */
void tsa_slot_publish(struct tsa_thread *th)
{
	struct tsa_slot *s = tsa_slot_of(th->slot);
	const struct tsa_acct *a = &th->acct;
	u32 seq, flags = 0;
	int i;

	if (a->flags & (TSA_F_DEAD | TSA_F_EXITING)) {
		if (!(READ_ONCE(s->flags) & TSA_SLOT_ENDED))
			tsa_slot_set_ended(th->slot);
		return;
	}
	seq = tsa_slot_begin(s);
	if (a->flags & TSA_F_PROVISIONAL)
		flags |= TSA_SLOT_NOT_LIVE;
	if (a->flags & TSA_F_SINCE_LOAD)
		flags |= TSA_SLOT_SINCE_LOAD;
	WRITE_ONCE(s->flags, flags);
	WRITE_ONCE(s->state, a->state);
	WRITE_ONCE(s->head, a->state == TSA_USR ? a->head : 0);
	WRITE_ONCE(s->stamp, a->stamp);
	WRITE_ONCE(s->since, a->since);
	for (i = 0; i < TSA_NR_STATES; i++)
		WRITE_ONCE(s->ns[i], a->st[i].ns);
	for (i = 0; i < TSA_NR_COUNTERS; i++)
		WRITE_ONCE(s->count[i], a->count[i]);
	tsa_slot_end(s, seq);
}

/* A fresh page for @tid, or NULL: charged to the caller's memory cgroup. */
struct page *tsa_slot_alloc(pid_t tid)
{
	struct page *page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	struct tsa_slot *s;

	if (!page)
		return NULL;
	s = tsa_slot_of(page);
	s->version = TSA_SLOT_VERSION;
	s->size = sizeof(*s);
	s->generation = get_random_u64();
	s->tid = tid;
	s->nr_states = TSA_NR_STATES;
	s->nr_counters = TSA_NR_COUNTERS;
	s->flags = TSA_SLOT_NOT_LIVE;
	return page;
}

/*
 * @th (current's record, live) publishes to @page from now on. Returns
 * the page it published to before, ended, for the caller to put outside
 * the lock (freeing a page may sleep on PREEMPT_RT), or NULL.
 */
struct page *tsa_slot_install(struct tsa_thread *th, struct page *page)
{
	struct page *old;
	unsigned long flags;

	raw_spin_lock_irqsave(&th->lock, flags);
	old = th->slot;
	if (old && (th->acct.hold & TSA_HOLD_SLOT))
		tsa_slot_set_ended(old);
	th->slot = page;
	/*
	 * The bit before the first copy: an NMI's write that saw it clear
	 * is over before the copy (it runs whole on this CPU); one that sees
	 * it set finds the lock taken and writes nothing.
	 */
	smp_store_release(&th->acct.hold, th->acct.hold | TSA_HOLD_SLOT);
	tsa_slot_publish(th);
	raw_spin_unlock_irqrestore(&th->lock, flags);
	return old;
}

/* A reference to @th's page for a mapping, if it is registered. */
struct page *tsa_slot_get(struct tsa_thread *th)
{
	struct page *page = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&th->lock, flags);
	if (th->acct.hold & TSA_HOLD_SLOT) {
		page = th->slot;
		get_page(page);
	}
	raw_spin_unlock_irqrestore(&th->lock, flags);
	return page;
}

/*
 * The thread exec'd: its old mappings went with the old mm. The page
 * ends here and is no longer written; the module's reference goes with
 * the record (tsa_slot_release()) or a new registration, in a context
 * that may free a page.
 */
void tsa_slot_stop(struct tsa_thread *th)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&th->lock, flags);
	if (th->acct.hold & TSA_HOLD_SLOT) {
		tsa_slot_set_ended(th->slot);
		WRITE_ONCE(th->acct.hold, th->acct.hold & ~TSA_HOLD_SLOT);
	}
	raw_spin_unlock_irqrestore(&th->lock, flags);
}

/*
 * The record is being freed: nothing writes it any more (its task was
 * freed a grace period ago, or tsa's hooks are gone). Mappings keep the
 * page, ended.
 */
void tsa_slot_release(struct tsa_thread *th)
{
	if (!th->slot)
		return;
	tsa_slot_set_ended(th->slot);
	put_page(th->slot);
	th->slot = NULL;
}
