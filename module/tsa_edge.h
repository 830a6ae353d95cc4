/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system call edges' fast paths: a user thread that enters a call
 * from user mode and returns from it with nothing in between but kernel
 * work (the common case by far) costs a few stores a side. They do what
 * tsa_acct_sys_enter() and tsa_acct_sys_exit() (then tsa_acct_set_head())
 * do in that case, and are inlined into the probes (tsa_hooks_syscall.c);
 * anything else (a row the hints do not know, a tracer's stop, a
 * provisional record, the traced user/kernel boundary) takes those. Pure
 * logic, like tsa_state.c: KUnit checks that both paths leave the same
 * record.
 */
#ifndef TSA_EDGE_H
#define TSA_EDGE_H

#include <linux/bitops.h>

#include "tsa_calls.h"
#include "tsa_state.h"

/* Flags that take a call's entry off the fast path. */
#define TSA_F_NOT_PLAIN	(TSA_F_IN_KERNEL | TSA_F_PROVISIONAL | TSA_F_DEAD | \
			 TSA_F_EDGE | TSA_F_CALL_EARLY)

/* May the call @a's thread is entering from user mode go the fast way? */
static __always_inline bool tsa_acct_sys_enter_plain(const struct tsa_acct *a)
{
	const struct tsa_calls *c = a->tab[TSA_T_CALLS];

	return a->state == TSA_USR && !(a->flags & TSA_F_NOT_PLAIN) &&
		(!c || !tsa_calls_in_call(c));
}

/* tsa_acct_sys_enter() of a plain entry (call key @call) at @now. */
static __always_inline bool tsa_acct_sys_enter_fast(struct tsa_acct *a,
						    u64 now, u16 call)
{
	struct tsa_calls *c = a->tab[TSA_T_CALLS];
	bool clamped;

	tsa_acct_close(a, TSA_USR, now, &clamped);
	a->state = TSA_SYS;
	a->st[TSA_SYS].entries++;
	a->count[TSA_SCL]++;
	a->flags |= TSA_F_IN_KERNEL;
	/* Out of a call, nothing is charged to it: mask is 0 already. */
	if (c)
		c->cur_key = call;
	return clamped;
}

/* May the call @a's thread returns from go the fast way? */
static __always_inline bool tsa_acct_sys_exit_plain(const struct tsa_acct *a)
{
	return a->state == TSA_SYS &&
		(a->flags & TSA_F_NOT_PLAIN) == TSA_F_IN_KERNEL;
}

/* The return to user mode of a plain call (and the head of that stay). */
static __always_inline u64 tsa_acct_sys_return(struct tsa_acct *a, u64 now,
					       u16 head, bool *clamped)
{
	u64 sys = tsa_acct_close(a, TSA_SYS, now, clamped);

	a->state = TSA_USR;
	a->st[TSA_USR].entries++;
	a->flags &= ~TSA_F_IN_KERNEL;
	a->head = head;
	return sys;
}

/*
 * tsa_acct_sys_exit() at @now, without a signal taken, of a call back on
 * CPU in SYS whose row is one of the hinted two: its time in each state
 * (a sleep, a wait for the CPU) and its last stay go to that row; then
 * tsa_acct_set_head(@head) of the stay in USR it begins. False, with
 * nothing changed (but the hints' order), when it is not such a call or
 * the row has no room for its states.
 */
static __always_inline bool tsa_acct_sys_exit_fast(struct tsa_acct *a,
						   u64 now, u16 head,
						   bool *clamped)
{
	struct tsa_calls *c = a->tab[TSA_T_CALLS];
	struct tsa_call_row *r;
	unsigned int mask, s;
	u64 sys, ns;

	if (!c) {
		tsa_acct_sys_return(a, now, head, clamped);
		return true;
	}
	r = tsa_calls_hinted(c, c->cur_key);
	if (!r)
		return false;
	/* Most calls never left the CPU: no bit, or SYS's alone. */
	mask = c->mask;
	if (mask && !tsa_call_row_take(r, mask))
		return false;
	sys = tsa_acct_sys_return(a, now, head, clamped);
	ns = sys;
	for (; mask; mask &= mask - 1) {
		s = __ffs(mask);
		tsa_call_row_add_ns(r, s, c->cur[s]);
		ns += c->cur[s];
	}
	r->calls++;
	r->ns += ns;
	tsa_call_row_add_ns(r, TSA_SYS, sys);
	if (ns > r->longest)
		r->longest = ns;
	tsa_calls_count_b(c, r, ns);
	c->mask = 0;
	c->cur_key = TSA_CALL_NONE;
	return true;
}

#endif /* TSA_EDGE_H */
