/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hottest events' accounting, inlined into their probes: a switch, a
 * wakeup, and the system call edges' fast paths, on the state change of
 * tsa_state.h (__tsa_acct_enter()). A user thread that enters a call from
 * user mode and returns from it with nothing in between but kernel work
 * (the common case by far) costs a few stores a side. The fast paths do
 * what tsa_acct_sys_enter() and tsa_acct_sys_exit() (then
 * tsa_acct_set_head()) do in that case (the probes are in
 * tsa_hooks_syscall.c); anything else (a row the hints do not know, a
 * tracer's stop, a provisional record, the traced user/kernel boundary)
 * takes those. Pure logic, like tsa_state.c: KUnit drives these directly
 * and checks that both syscall paths leave the same record.
 */
#ifndef TSA_EDGE_H
#define TSA_EDGE_H

#include <linux/bitops.h>

#include "tsa_calls.h"
#include "tsa_state.h"

/*
 * On CPU in a syscall, a kernel thread, a page fault, or anywhere in the
 * kernel on a CPU that traces the user/kernel boundary: SYS.
 */
static __always_inline enum tsa_state
tsa_acct_cpu_state(const struct tsa_acct *a)
{
	return (a->flags & (TSA_F_IN_KERNEL | TSA_F_EDGE)) ||
		(a->ctx & TSA_C_FAULT) ? TSA_SYS : TSA_USR;
}

/*
 * The thread stops running. Voluntary and involuntary follow the kernel's
 * nvcsw/nivcsw rule: a switch is voluntary when the thread asked to sleep,
 * even if a pending signal then kept it runnable.
 */
static __always_inline bool tsa_acct_switch_out(struct tsa_acct *a, u64 now,
						enum tsa_switch_kind kind,
						enum tsa_state sleep)
{
	if (kind == TSA_SW_PREEMPT)
		a->count[TSA_ICX]++;
	else
		a->count[TSA_VCX]++;
	return __tsa_acct_enter(a, now, kind == TSA_SW_BLOCK ? sleep : TSA_LAT);
}

static __always_inline bool tsa_acct_switch_in(struct tsa_acct *a, u64 now,
					       int cpu)
{
	/* Written only when it changes: it is not in the lines a switch writes. */
	if (unlikely(a->last_cpu != cpu)) {
		if (a->last_cpu != TSA_NO_CPU)
			a->count[TSA_MIG]++;
		a->last_cpu = cpu;
	}
	return __tsa_acct_enter(a, now, tsa_acct_cpu_state(a));
}

/*
 * A wakeup makes a sleeping or stopped thread runnable. Wakeups also hit
 * threads that are still on CPU (they had set their state but not yet
 * switched out) or already runnable: those change nothing.
 */
static __always_inline bool tsa_acct_wakeup(struct tsa_acct *a, u64 now)
{
	if (!tsa_acct_wakes(a->state, a->flags))
		return false;
	return __tsa_acct_enter(a, now, TSA_LAT);
}

/*
 * The same, of a record its caller has already seen to be woken (by
 * tsa_acct_wakes(), and nothing could write it since).
 */
static __always_inline bool tsa_acct_wakeup_seen(struct tsa_acct *a, u64 now)
{
	return __tsa_acct_enter(a, now, TSA_LAT);
}

/*
 * The same, naming who woke it (@id): the stay it ends goes to that
 * waker's row, which @last keeps (its index + 1; 0: none) for the LAT
 * that follows.
 */
static __always_inline bool tsa_acct_wakeup_by(struct tsa_acct *a, u64 now,
					       struct tsa_waker_id id,
					       u8 *last)
{
	bool seen = !(a->flags & (TSA_F_DEAD | TSA_F_PROVISIONAL));
	unsigned int s = a->state;
	u64 from = a->stamp;
	bool clamped = __tsa_acct_enter(a, now, TSA_LAT);

	if (likely(seen))
		*last = tsa_wakers_end(&a->wk, id, s, a->stamp - from) + 1;
	return clamped;
}

/*
 * After a switch-in that closed the stay in state @s begun at @from: if
 * a wakeup's row is waiting for its LAT (@last), that stay is it.
 */
static __always_inline void tsa_acct_waker_lat(struct tsa_acct *a, u8 *last,
					       unsigned int s, u64 from)
{
	if (s == TSA_LAT && !(a->flags & TSA_F_DEAD))
		tsa_wakers_lat(&a->wk, *last - 1, a->stamp - from);
	*last = 0;
}

/* Flags that take a call's entry off the fast path. */
#define TSA_F_NOT_PLAIN	(TSA_F_IN_KERNEL | TSA_F_PROVISIONAL | TSA_F_DEAD | \
			 TSA_F_EDGE | TSA_F_CALL_EARLY)

/*
 * State, flags and hold as one word, so that a fast path's test of all
 * three is one load (and a fast edge's change of state and flags one
 * store).
 */
static __always_inline u32 tsa_acct_word(const struct tsa_acct *a)
{
	/* Pairs with the release that clears the hold (tsa_table.h). */
	return smp_load_acquire(&a->word);
}

#define TSA_STATE_NOT_PLAIN	TSA_ACCT_WORD(0xff, TSA_F_NOT_PLAIN, 0, 0xff)

/*
 * May the call @a's thread is entering from user mode go the fast way?
 * Out of the kernel it is in no call: a call begins with TSA_F_IN_KERNEL
 * set (tsa_acct_sys_enter(), tsa_acct_sys_enter_unseen(), a record made
 * inside one) and ends where it is cleared (tsa_acct_sys_exit() and the
 * fast exit), so the calls table need not be asked (debug kernels do).
 */
static __always_inline bool tsa_acct_sys_enter_plain(const struct tsa_acct *a)
{
	return (tsa_acct_word(a) & TSA_STATE_NOT_PLAIN) ==
		TSA_ACCT_WORD(TSA_USR, 0, 0, 0);
}

/*
 * tsa_acct_sys_enter() of a plain entry (call key @call), in two halves
 * around the clock read: first what does not depend on the clock (with
 * the record open, a reader sees none of it), so that only the record
 * lives across the read; then the USR stay closes at @now.
 */
static __always_inline void tsa_acct_sys_enter_fast_pre(struct tsa_acct *a,
							u16 call)
{
	struct tsa_calls *c = a->tab[TSA_T_CALLS];

	/* From USR, which is 0 (the entry is plain): one store of both. */
	BUILD_BUG_ON(TSA_USR != 0);
	a->state_flags |= TSA_STATE_FLAGS(TSA_SYS, TSA_F_IN_KERNEL);
	a->st[TSA_SYS].entries++;
	a->count[TSA_SCL]++;
	/*
	 * Out of a call, nothing is charged to one (mask is 0 already), and
	 * the key goes where the general entry puts it: the record's first
	 * line (tsa_acct_calls()), not the table's.
	 */
	if (IS_ENABLED(CONFIG_PROVE_LOCKING))
		WARN_ONCE(a->call != TSA_CALL_NONE ||
			  (c && (tsa_calls_in_call(c) || c->mask)),
			  "tsa: a call open in user mode (key %#x, table's %#x, mask %#x)\n",
			  a->call, c ? c->cur_key : 0, c ? c->mask : 0);
	a->call = call;
}

static __always_inline void tsa_acct_sys_enter_fast_at(struct tsa_acct *a,
						       u64 now)
{
	tsa_acct_close(a, TSA_USR, now, NULL);
}

static __always_inline void tsa_acct_sys_enter_fast(struct tsa_acct *a,
						    u64 now, u16 call)
{
	tsa_acct_sys_enter_fast_pre(a, call);
	tsa_acct_sys_enter_fast_at(a, now);
}

/* May the call @a's thread returns from go the fast way? */
static __always_inline bool tsa_acct_sys_exit_plain(const struct tsa_acct *a)
{
	return (tsa_acct_word(a) & TSA_STATE_NOT_PLAIN) ==
		TSA_ACCT_WORD(TSA_SYS, TSA_F_IN_KERNEL, 0, 0);
}

/*
 * Back to user mode from a plain call or fault, with @head the calibrated
 * head of the USR stay it begins. Independent of the clock: closing SYS
 * leaves the head alone (only a USR stay's close takes it), so a fast
 * edge may do this before or after that close.
 */
static __always_inline void tsa_acct_to_usr(struct tsa_acct *a, u16 head)
{
	/* USR is 0: the state and TSA_F_IN_KERNEL cleared in one store. */
	BUILD_BUG_ON(TSA_USR != 0);
	a->state_flags &= ~TSA_STATE_FLAGS(0xff, TSA_F_IN_KERNEL);
	a->st[TSA_USR].entries++;
	a->head = head;
}

/* The return to user mode of a plain call (and the head of that stay). */
static __always_inline u64 tsa_acct_sys_return(struct tsa_acct *a, u64 now,
					       u16 head)
{
	u64 sys = tsa_acct_close(a, TSA_SYS, now, NULL);

	tsa_acct_to_usr(a, head);
	return sys;
}

/*
 * The open call's key: in the record while the call has only been on CPU,
 * in the table once a stay was charged to it (tsa_acct_calls()).
 */
static __always_inline u16 tsa_acct_call_key(const struct tsa_acct *a,
					     const struct tsa_calls *c)
{
	return a->call != TSA_CALL_NONE ? a->call : c->cur_key;
}

/* How a call's return may go (tsa_acct_sys_exit_row()). */
enum tsa_exit_way {
	TSA_EXIT_GENERAL,	/* tsa_acct_sys_exit() */
	TSA_EXIT_ON_CPU,	/* to its row: a call that never left the CPU */
	TSA_EXIT_OFF_CPU,	/* to its row, with its stays off CPU */
	TSA_EXIT_NO_TABLE,	/* no calls table: the books alone */
	TSA_EXIT_UNHINTED,	/* ask tsa_acct_sys_exit_row_unhinted() */
};

/*
 * May the return of the call keyed @key go the fast way? A 64-bit call's
 * (the key is the entry's: the number at the return is not needed), but
 * not one that may hand over a signal (tsa_syscall_took_signal()).
 */
static __always_inline bool tsa_call_key_returns_plain(u16 key)
{
	return key <= TSA_CALL_NR_MASK && key != __NR_rt_sigtimedwait;
}

/*
 * tsa_acct_sys_exit_row() of the call keyed @key (tsa_call_key_returns_plain()
 * said yes), gone the way @way.
 */
static __always_inline enum tsa_exit_way
tsa_exit_row_hinted(struct tsa_calls *c, u16 key, enum tsa_exit_way way,
		    struct tsa_call_row **row)
{
	struct tsa_call_row *r;

	/*
	 * tsa_calls_hinted() written out, so that the first hint's hit
	 * (a row's address) is not tested for NULL as its result is, and
	 * the second is tried in line: a call before the clock's would
	 * keep this probe's values in saved registers.
	 */
	r = &c->row[c->hint[0]];
	if (unlikely(r->key != key)) {
		r = tsa_calls_hint_second(c, key);
		if (!r)
			return TSA_EXIT_UNHINTED;
	}
	/* Of the calls that left the CPU, SYS's bit alone is common. */
	if (way == TSA_EXIT_OFF_CPU && (c->mask & ~r->slots))
		return TSA_EXIT_GENERAL;
	*row = r;
	return way;
}

/*
 * Before the clock is read (the record need not be open: it reads only
 * what the thread alone writes): may the return of a call back on CPU in
 * SYS go the fast way? It may if its row is one of the hinted two and has
 * a slot for each state it spent time in (a sleep, a wait for the CPU),
 * or if there is no calls table: then @*row is that row, or NULL. A call
 * neither hint names may too, but finding its row is for
 * tsa_acct_sys_exit_row_unhinted(), out of the probe's line: that search
 * would keep the probe's values in saved registers. Each fast way is its
 * own case, so that what it decided here is not tested again after the
 * clock read.
 */
static __always_inline enum tsa_exit_way
tsa_acct_sys_exit_row(struct tsa_acct *a, struct tsa_call_row **row)
{
	struct tsa_calls *c = a->tab[TSA_T_CALLS];

	*row = NULL;
	/*
	 * Most calls never left the CPU: their key is still in the record,
	 * and nothing in cur[] (tsa_acct_call_key(), tested once: NONE is
	 * no plain key); without a table, the key stays in the record.
	 * Each way is its own copy, so the way is a constant in each.
	 */
	if (likely(tsa_call_key_returns_plain(a->call))) {
		if (unlikely(!c))
			return TSA_EXIT_NO_TABLE;
		return tsa_exit_row_hinted(c, a->call, TSA_EXIT_ON_CPU, row);
	}
	if (!c || a->call != TSA_CALL_NONE ||
	    !tsa_call_key_returns_plain(c->cur_key))
		return TSA_EXIT_GENERAL;
	return tsa_exit_row_hinted(c, c->cur_key, TSA_EXIT_OFF_CPU, row);
}

/*
 * The same for a call neither hint names: another row, or a free one
 * it takes (a new thread's first calls); TSA_EXIT_GENERAL if only the
 * general way can place it.
 */
static __always_inline enum tsa_exit_way
tsa_acct_sys_exit_row_unhinted(struct tsa_acct *a, struct tsa_call_row **row)
{
	struct tsa_calls *c = a->tab[TSA_T_CALLS];
	struct tsa_call_row *r = tsa_calls_find_fast(c,
						     tsa_acct_call_key(a, c));

	if (!r || (!tsa_calls_is_free(c, r) && (c->mask & ~r->slots)))
		return TSA_EXIT_GENERAL;
	*row = r;
	return a->call != TSA_CALL_NONE ? TSA_EXIT_ON_CPU : TSA_EXIT_OFF_CPU;
}

/*
 * tsa_acct_sys_exit() at @now, without a signal taken, of a call that
 * tsa_acct_sys_exit_row() let go the fast way @way, to row @r (@may_take:
 * tsa_acct_sys_exit_row_unhinted()'s, which may be free): its time in
 * each state and its last stay go to that row; then
 * tsa_acct_set_head(@head) of the stay in USR it begins.
 */
static __always_inline void __tsa_acct_sys_exit_fast_at(struct tsa_acct *a,
							u64 now, u16 head,
							struct tsa_call_row *r,
							enum tsa_exit_way way,
							bool may_take)
{
	struct tsa_calls *c;
	unsigned int mask, s;
	u64 sys, ns;

	sys = tsa_acct_sys_return(a, now, head);
	if (way == TSA_EXIT_NO_TABLE) {
		a->call = TSA_CALL_NONE;
		return;
	}
	c = a->tab[TSA_T_CALLS];
	if (may_take && tsa_calls_is_free(c, r))
		tsa_calls_take_free(c, tsa_acct_call_key(a, c));
	ns = sys;
	/*
	 * A call that stayed on CPU left the table's header alone (its key
	 * is in the record, cur[] empty): so does its return.
	 */
	if (way == TSA_EXIT_OFF_CPU) {
		for (mask = c->mask; mask; mask &= mask - 1) {
			s = __ffs(mask);
			tsa_call_row_add_ns(r, s, c->cur[s]);
			ns += c->cur[s];
		}
		c->mask = 0;
		c->cur_key = TSA_CALL_NONE;
	}
	a->call = TSA_CALL_NONE;
	r->calls++;
	r->ns += ns;
	tsa_call_row_add_ns(r, TSA_SYS, sys);
	if (ns > r->longest)
		r->longest = ns;
	tsa_calls_count_b(c, r, ns);
}

/* Of a row that tsa_acct_sys_exit_row() gave, the way it said. */
static __always_inline void tsa_acct_sys_exit_fast_at(struct tsa_acct *a,
						      u64 now, u16 head,
						      struct tsa_call_row *r,
						      enum tsa_exit_way way)
{
	__tsa_acct_sys_exit_fast_at(a, now, head, r, way, false);
}

/* Of one that tsa_acct_sys_exit_row_unhinted() gave: maybe free. */
static __always_inline void
tsa_acct_sys_exit_fast_unhinted_at(struct tsa_acct *a, u64 now, u16 head,
				   struct tsa_call_row *r,
				   enum tsa_exit_way way)
{
	__tsa_acct_sys_exit_fast_at(a, now, head, r, way, true);
}

/*
 * The two in one: false, with nothing changed, when the call may not go
 * the fast way.
 */
static __always_inline bool tsa_acct_sys_exit_fast(struct tsa_acct *a,
						   u64 now, u16 head)
{
	struct tsa_call_row *r;
	enum tsa_exit_way way = tsa_acct_sys_exit_row(a, &r);

	if (way == TSA_EXIT_UNHINTED) {
		way = tsa_acct_sys_exit_row_unhinted(a, &r);
		if (way == TSA_EXIT_GENERAL)
			return false;
		tsa_acct_sys_exit_fast_unhinted_at(a, now, head, r, way);
		return true;
	}
	if (way == TSA_EXIT_GENERAL)
		return false;
	tsa_acct_sys_exit_fast_at(a, now, head, r, way);
	return true;
}

/*
 * A fault from user mode, the other common way into the kernel: a
 * plain one (a thread in USR, in no fault or call) goes USR -> SYS and
 * back with the stores tsa_acct_fault_enter() and tsa_acct_fault_exit()
 * (then tsa_acct_set_head()) do in that case.
 */
static __always_inline bool tsa_acct_fault_enter_plain(const struct tsa_acct *a)
{
	return (tsa_acct_word(a) &
		TSA_ACCT_WORD(0xff, TSA_F_NOT_PLAIN, 0xff, 0xff)) ==
		TSA_ACCT_WORD(TSA_USR, 0, 0, 0);
}

/*
 * Each fast fault edge in two halves around the clock read, as the call's
 * entry: what does not depend on the clock first (with the record open,
 * a reader sees none of it), so that only the record lives across the
 * read; then the stay closes at @now.
 */
static __always_inline void tsa_acct_fault_enter_fast_pre(struct tsa_acct *a,
							  u8 kind)
{
	a->state = TSA_SYS;
	a->st[TSA_SYS].entries++;
	a->ctx = kind;
}

static __always_inline void tsa_acct_fault_enter_fast_at(struct tsa_acct *a,
							 u64 now)
{
	tsa_acct_close(a, TSA_USR, now, NULL);
}

static __always_inline void tsa_acct_fault_enter_fast(struct tsa_acct *a,
						      u64 now, u8 kind)
{
	tsa_acct_fault_enter_fast_pre(a, kind);
	tsa_acct_fault_enter_fast_at(a, now);
}

/*
 * May the return of a fault entered with outer context @saved, returning
 * @ret, go the fast way? Back on CPU in SYS, from user mode, done.
 */
static __always_inline bool tsa_acct_fault_exit_plain(const struct tsa_acct *a,
						      u8 saved,
						      unsigned int ret)
{
	u32 w = tsa_acct_word(a);

	return (w & TSA_ACCT_WORD(0xff, TSA_F_NOT_PLAIN,
				  (u8)~(TSA_C_FAULT_TEXT | TSA_C_FAULT_DATA |
					TSA_C_SWAP), 0xff)) ==
		TSA_ACCT_WORD(TSA_SYS, 0, 0, 0) &&
		(w & TSA_ACCT_WORD(0, 0, TSA_C_FAULT_TEXT | TSA_C_FAULT_DATA,
				   0)) &&
		!saved && !(ret & (VM_FAULT_RETRY | VM_FAULT_ERROR));
}

/* Its return to user mode goes before SYS closes (tsa_acct_to_usr()). */
static __always_inline void
tsa_acct_fault_exit_fast_pre(struct tsa_acct *a, unsigned int fault_flags,
			     unsigned int ret, u16 head)
{
	a->ctx = 0;
	if ((ret & VM_FAULT_MAJOR) || (fault_flags & FAULT_FLAG_TRIED))
		a->count[TSA_MAJF]++;
	else
		a->count[TSA_MINF]++;
	tsa_acct_to_usr(a, head);
}

static __always_inline void tsa_acct_fault_exit_fast_at(struct tsa_acct *a,
							u64 now)
{
	tsa_acct_close(a, TSA_SYS, now, NULL);
}

static __always_inline void tsa_acct_fault_exit_fast(struct tsa_acct *a,
						     u64 now,
						     unsigned int fault_flags,
						     unsigned int ret, u16 head)
{
	tsa_acct_fault_exit_fast_pre(a, fault_flags, ret, head);
	tsa_acct_fault_exit_fast_at(a, now);
}

#endif /* TSA_EDGE_H */
