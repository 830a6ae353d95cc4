/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsa system-call attribution: in which call a thread spent its time.
 *
 * With the calls parameter set, each record has a small table of the
 * system calls its thread spent the most time in. While the thread is
 * inside a call, every stay tsa_state.c charges is also added, by state,
 * to the call in progress (cur[]); when the call returns, that goes to
 * the call's row: one more call, its time, its longest, and its time per
 * state (SYS on CPU; LCK, IDL, IOW, SLP, ... asleep; LAT waiting for a
 * CPU). So the rows, with the other row, hold exactly the time the thread
 * spent inside system calls, split exactly as the thread's states are.
 *
 * The table is bounded. A call that has no row takes a free one; when
 * none is free, it takes the row with the least time, whose numbers move
 * to the other row (rows count from when their call took them). A row is
 * one cache line: SYS and up to three other states (a sleep, LAT).
 * A row that would need one more moves to the other row as an evicted
 * row does, and starts again with the call that needed it. A merge
 * of a table into another (a thread's into its process's at exit) only
 * takes a row for a call with more time than the least row; otherwise
 * the call goes to the other row. Nothing is ever lost or counted twice.
 *
 * Pure logic, like tsa_state.c: KUnit drives it directly.
 */
#ifndef TSA_CALLS_H
#define TSA_CALLS_H

#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

#include "tsa_model.h"

/*
 * A call's key: its number, and which table the number is from (a 32-bit
 * task's numbers are not the 64-bit ones). Keys at and above
 * TSA_CALL_OTHER are not calls.
 */
#define TSA_CALL_IA32		0x8000	/* number of the ia32 table */
#define TSA_CALL_X32		0x4000	/* number of the x32 ABI */
#define TSA_CALL_NR_MASK	0x3fff
#define TSA_CALL_OTHER		0xfffd	/* the other row */
#define TSA_CALL_UNKNOWN	0xfffe	/* in a call entered before tracking */
#define TSA_CALL_NONE		0xffff	/* not in a call */
/*
 * The key of a row not in use: both ABI bits, which no call's key has
 * (nor a trap's), so a lookup never matches it and needs no bound.
 */
#define TSA_CALL_FREE		(TSA_CALL_IA32 | TSA_CALL_X32)

#define TSA_CALLS_MAX_ROWS	64

/*
 * The traps table (interrupts=1) uses the same rows, keyed by source: a
 * softirq vector, or TSA_TRAP_IRQ | the hard interrupt's number.
 */
#define TSA_TRAP_IRQ		0x2000
#define TSA_TRAP_ROWS		6

static inline u16 tsa_trap_key(bool hard, unsigned int nr)
{
	if (nr >= TSA_TRAP_IRQ)
		return TSA_CALL_OTHER;
	return hard ? TSA_TRAP_IRQ | nr : nr;
}

/*
 * A row's time by state: a slot for each state it has time in, where
 * says which (2 bits a state). SYS has slot 0 from the start; a row has
 * up to three more.
 */
#define TSA_ROW_SLOTS		4
static_assert(TSA_NR_STATES * 2 <= 32);

struct tsa_call_row {
	u16 key;
	u16 slots;			/* the states that have a slot */
	u32 where;			/* each one's slot, 2 bits a state */
	u64 calls;
	u64 ns;				/* time inside, in all states */
	u64 longest;			/* the longest single call */
	u64 slot[TSA_ROW_SLOTS];	/* ns, split by state; SYS's first */
};

/*
 * A table of @max rows (at least one: with none there is no table), the
 * first @rows in use; the others are keyed TSA_CALL_FREE, and the hints
 * are always below @max. With @hist (the hist parameter, calls table
 * only), each row and the other row have the calls' durations in log2
 * buckets (as a state's stays, tsa_hist_bucket()) after the rows: a call
 * is counted there once, with its whole duration, when it returns (or
 * is handed over at exit, with its time until then). In a reader's copy
 * (tsa_acct_table_snapshot()), cur_key is the key of the row that counts
 * the call in progress, which is in no bucket yet.
 */
struct tsa_calls {
	u16 cur_key;		/* the call in progress, or TSA_CALL_NONE */
	u16 mask;		/* states with time in cur[] */
	u8 rows;		/* rows in use */
	u8 max:7;		/* rows the table has */
	u8 hist:1;		/* the buckets follow the rows */
	u8 hint[2];		/* rows of the last two calls, latest first */
	u64 cur[TSA_NR_STATES];	/* the call in progress, by state */
	u64 other_ns[TSA_NR_STATES];
	/* Last, so that where the rows fill lines (tsa_table.c) it does too. */
	struct tsa_call_row other;	/* its split is other_ns[] */
	struct tsa_call_row row[];
};

static_assert(offsetof(struct tsa_calls, row) -
	      offsetof(struct tsa_calls, other) == sizeof(struct tsa_call_row));

static_assert(TSA_CALLS_MAX_ROWS < 128);	/* max's 7 bits */

static inline size_t tsa_calls_size(unsigned int rows, bool hist)
{
	return sizeof(struct tsa_calls) + rows * sizeof(struct tsa_call_row) +
		(hist ? (rows + 1) * TSA_HIST_BUCKETS * sizeof(u64) : 0);
}

/* Row @r's buckets (@c->hist): the rows', then the other row's. */
static inline u64 *tsa_calls_b(const struct tsa_calls *c,
			       const struct tsa_call_row *r)
{
	unsigned int i = r == &c->other ? c->max : r - c->row;

	return (u64 *)&c->row[c->max] + i * TSA_HIST_BUCKETS;
}

/* A call of row @r returned after @ns in all. */
static __always_inline void tsa_calls_count_b(struct tsa_calls *c,
					      const struct tsa_call_row *r,
					      u64 ns)
{
	if (c->hist)
		tsa_calls_b(c, r)[tsa_hist_bucket(ns)]++;
}

/* The slot of state @s, which row @r has. */
static __always_inline unsigned int tsa_call_row_at(const struct tsa_call_row *r,
						    unsigned int s)
{
	return (r->where >> (2 * s)) & 3;
}

/* Row @r's time in state @s (@r is in @c). */
static inline u64 tsa_call_row_ns(const struct tsa_calls *c,
				  const struct tsa_call_row *r, unsigned int s)
{
	if (r == &c->other)
		return c->other_ns[s];
	return r->slots & BIT(s) ? r->slot[tsa_call_row_at(r, s)] : 0;
}

/* An empty row for call @key: SYS has its slot, the first. */
static __always_inline void tsa_call_row_clear(struct tsa_call_row *r, u16 key)
{
	memset(r, 0, sizeof(*r));
	r->key = key;
	r->slots = BIT(TSA_SYS);
}

/* Slots for the states of @want, which have none: false if too few. */
static noinline bool tsa_call_row_take_slow(struct tsa_call_row *r,
					    unsigned int want)
{
	unsigned int used = hweight16(r->slots), s;

	if (used + hweight16(want) > TSA_ROW_SLOTS)
		return false;
	for (; want; want &= want - 1, used++) {
		s = __ffs(want);
		r->slot[used] = 0;
		r->where |= used << (2 * s);
		r->slots |= BIT(s);
	}
	return true;
}

/*
 * Can row @r (not the other row) take time in every state of @mask? Each
 * such state without a slot takes a free one; false, with none taken, if
 * too few are free.
 */
static __always_inline bool tsa_call_row_take(struct tsa_call_row *r,
					      unsigned int mask)
{
	unsigned int want = mask & ~r->slots;

	return likely(!want) || tsa_call_row_take_slow(r, want);
}

/* Add @ns in state @s to row @r, which has taken it (not the other row). */
static __always_inline void tsa_call_row_add_ns(struct tsa_call_row *r,
						unsigned int s, u64 ns)
{
	r->slot[s == TSA_SYS ? 0 : tsa_call_row_at(r, s)] += ns;
}

/* Add @ns in state @s to row @r of @c, the other row or one that took @s. */
static __always_inline void tsa_call_row_put(struct tsa_calls *c,
					     struct tsa_call_row *r,
					     unsigned int s, u64 ns)
{
	if (r == &c->other)
		c->other_ns[s] += ns;
	else
		tsa_call_row_add_ns(r, s, ns);
}

/* tsa_acct_charge() calls this for every stay charged inside a call. */
static inline void tsa_calls_charge(struct tsa_calls *c, unsigned int state,
				    u64 stay)
{
	if (c->mask & BIT(state)) {
		c->cur[state] += stay;
	} else {
		c->mask |= BIT(state);
		c->cur[state] = stay;
	}
}

static inline bool tsa_calls_in_call(const struct tsa_calls *c)
{
	return c->cur_key != TSA_CALL_NONE;
}

u16 tsa_call_key_slow(long nr, bool ia32);

/* @nr as the task passed it (x32 calls carry the x32 bit). */
static inline u16 tsa_call_key(long nr, bool ia32)
{
	if (likely(!ia32 && (unsigned long)nr <= TSA_CALL_NR_MASK))
		return nr;
	return tsa_call_key_slow(nr, ia32);
}

void tsa_calls_reset(struct tsa_calls *c, unsigned int max, bool hist,
		     bool in_call);

/*
 * The row of @key if the second hint names it, or NULL. The hints keep
 * their order: calls that alternate (a pipe's read and write) then hit
 * the first hint every other time, where swapping them made every call
 * miss it, and a hit writes nothing to the table.
 */
static __always_inline struct tsa_call_row *
tsa_calls_hint_second(struct tsa_calls *c, u16 key)
{
	struct tsa_call_row *r = &c->row[c->hint[1]];

	return r->key == key ? r : NULL;
}

/* The same out of line, for the general paths. */
struct tsa_call_row *tsa_calls_hinted_second(struct tsa_calls *c, u16 key);

/*
 * The row of @key if it is one of the last two calls' (NULL if not):
 * calls repeat (a poll loop) or alternate (read, write: a pipe, a
 * socket), and then no row is searched. @key is a call's (or a trap's),
 * never TSA_CALL_FREE: a free row does not match, so the hints need no
 * check against @rows.
 */
static __always_inline struct tsa_call_row *
tsa_calls_hinted(struct tsa_calls *c, u16 key)
{
	struct tsa_call_row *r = &c->row[c->hint[0]];

	return likely(r->key == key) ? r : tsa_calls_hinted_second(c, key);
}

/* Row @i is the latest call's. */
static inline void tsa_calls_hint(struct tsa_calls *c, unsigned int i)
{
	if (c->hint[0] != i) {
		c->hint[1] = c->hint[0];
		c->hint[0] = i;
	}
}

/* The row in use of @key, searched (and hinted), or NULL. */
static __always_inline struct tsa_call_row *tsa_calls_search(struct tsa_calls *c,
							     u16 key)
{
	unsigned int i;

	for (i = 0; i < c->rows; i++) {
		if (c->row[i].key == key) {
			tsa_calls_hint(c, i);
			return &c->row[i];
		}
	}
	return NULL;
}

/*
 * The first free row, taken for @key (there is one: @rows < @max). Its
 * buckets are empty: reset, or cleared rows.
 */
static __always_inline struct tsa_call_row *
tsa_calls_take_free(struct tsa_calls *c, u16 key)
{
	struct tsa_call_row *r = &c->row[c->rows];

	tsa_calls_hint(c, c->rows);
	c->rows++;
	tsa_call_row_clear(r, key);
	return r;
}

/*
 * For a fast return whose call (@key) neither hint names: its row, hinted as
 * tsa_calls_row() hints it; else, if the call has none and a row is free,
 * the first free row (not yet taken: tsa_calls_take_free() does that,
 * where readers may not look), for a call that was only on CPU and is
 * named (one entered before tracking takes the general way); else NULL.
 */
static __always_inline struct tsa_call_row *tsa_calls_find_fast(struct tsa_calls *c,
								u16 key)
{
	struct tsa_call_row *r = tsa_calls_search(c, key);

	if (r)
		return r;
	if (c->rows < c->max && key < TSA_CALL_OTHER &&
	    !(c->mask & ~BIT(TSA_SYS)))
		return &c->row[c->rows];
	return NULL;
}

/* Is @r the free row tsa_calls_find_fast() gave? */
static __always_inline bool tsa_calls_is_free(const struct tsa_calls *c,
					      const struct tsa_call_row *r)
{
	return r == &c->row[c->rows];
}
struct tsa_call_row *tsa_calls_fold(struct tsa_calls *c, bool count, u64 *ns);
struct tsa_call_row *__tsa_calls_fold(struct tsa_calls *c, bool count,
				      u64 *ns);

/* The thread enters call @key (a call still open is closed first). */
static inline void tsa_calls_begin(struct tsa_calls *c, u16 key)
{
	if (unlikely(tsa_calls_in_call(c)))
		tsa_calls_fold(c, true, NULL);
	c->cur_key = key;
	c->mask = 0;
}

/*
 * The call returns, with the time charged to it so far. @key is the
 * number the task returns from, which names a call entered before tsa saw
 * it. Returns the call's row (NULL if none) and its time in @ns, so that
 * a last stay charged after this can be added (tsa_calls_add_sys()), and
 * then its duration counted (tsa_calls_count_b()).
 */
static inline struct tsa_call_row *tsa_calls_end(struct tsa_calls *c,
						 u16 key, u64 *ns)
{
	struct tsa_call_row *r;

	/*
	 * Most calls repeat or alternate with the last ones and never leave
	 * the CPU: their SYS time, if any, goes to the hinted row without
	 * the general fold.
	 */
	r = c->mask & ~BIT(TSA_SYS) ? NULL : tsa_calls_hinted(c, c->cur_key);
	if (likely(r)) {
		u64 sys = c->mask ? c->cur[TSA_SYS] : 0;

		r->calls++;
		r->ns += sys;
		tsa_call_row_add_ns(r, TSA_SYS, sys);
		if (sys > r->longest)
			r->longest = sys;
		*ns = sys;
	} else {
		if (unlikely(c->cur_key == TSA_CALL_UNKNOWN))
			c->cur_key = key;
		/* Its bucket once its last stay is known (the caller's). */
		r = __tsa_calls_fold(c, true, ns);
	}
	c->mask = 0;
	c->cur_key = TSA_CALL_NONE;
	return r;
}

/*
 * A call's last stay, in SYS, after tsa_calls_end() gave its row (of @c)
 * and @ns.
 */
static inline void tsa_calls_add_sys(struct tsa_calls *c,
				     struct tsa_call_row *r, u64 ns, u64 stay)
{
	r->ns += stay;
	tsa_call_row_put(c, r, TSA_SYS, stay);
	if (ns + stay > r->longest)
		r->longest = ns + stay;
}

void tsa_calls_merge(struct tsa_calls *to, const struct tsa_calls *from);
void tsa_calls_clear_rows(struct tsa_calls *c);
void tsa_calls_sort(struct tsa_calls *c);
const char *tsa_call_name(u16 key);
const char *tsa_softirq_name(u16 key);

#endif /* TSA_CALLS_H */
