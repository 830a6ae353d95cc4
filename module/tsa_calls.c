// SPDX-License-Identifier: GPL-2.0
/*
 * tsa system-call attribution: the table of a thread's calls. See
 * tsa_calls.h for the model and the eviction rule.
 */
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/unistd.h>

#include "tsa_arch.h"
#include "tsa_calls.h"

/*
 * System call names, by number, from the kernel the module is built for
 * (Kbuild generates them from its unistd headers).
 */
static const char *const tsa_call_names[] = {
#include "tsa_syscalls_64.inc"
};

#ifdef CONFIG_IA32_EMULATION
static const char *const tsa_call_names_ia32[] = {
#include "tsa_syscalls_ia32.inc"
};
#endif

#define TSA_X32_BIT	TSA_ARCH_X32_BIT

/* tsa_call_key() for what is not a plain 64-bit number. */
u16 tsa_call_key_slow(long nr, bool ia32)
{
	u16 abi = 0;

	if (!ia32 && nr >= 0 && (nr & TSA_X32_BIT)) {
		nr &= ~TSA_X32_BIT;
		abi = TSA_CALL_X32;
	}
	if (nr < 0 || nr > TSA_CALL_NR_MASK)
		return TSA_CALL_OTHER;
	return (ia32 ? TSA_CALL_IA32 : abi) | nr;
}

/* The name of a call's number, or NULL if the tables have none. */
const char *tsa_call_name(u16 key)
{
	unsigned int nr = key & TSA_CALL_NR_MASK;

	if (key >= TSA_CALL_OTHER || (key & TSA_CALL_X32))
		return NULL;
#ifdef CONFIG_IA32_EMULATION
	if (key & TSA_CALL_IA32)
		return nr < ARRAY_SIZE(tsa_call_names_ia32) ?
			tsa_call_names_ia32[nr] : NULL;
#else
	if (key & TSA_CALL_IA32)
		return NULL;
#endif
	return nr < ARRAY_SIZE(tsa_call_names) ? tsa_call_names[nr] : NULL;
}

/* The kernel's names of the softirq vectors (softirq_to_name[]). */
static const char *const tsa_softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

/* A traps-table key's softirq name, or NULL (a hard interrupt). */
const char *tsa_softirq_name(u16 key)
{
	return key < ARRAY_SIZE(tsa_softirq_names) ?
		tsa_softirq_names[key] : NULL;
}

/* The states row @r (of @c) has time in. */
static unsigned int tsa_call_row_mask(const struct tsa_calls *c,
				      const struct tsa_call_row *r)
{
	unsigned int states = r == &c->other ?
		GENMASK(TSA_NR_STATES - 1, 0) : r->slots;
	unsigned int mask = 0, s;

	/* A row has time only in the states it has slots for. */
	for (; states; states &= states - 1) {
		s = __ffs(states);
		if (tsa_call_row_ns(c, r, s))
			mask |= BIT(s);
	}
	return mask;
}

/*
 * Add row @from (of @fc) to row @to (of @tc), which has room for its
 * states (tsa_calls_room()); the longest call stays the longest.
 */
static void tsa_call_row_add(struct tsa_calls *tc, struct tsa_call_row *to,
			     const struct tsa_calls *fc,
			     const struct tsa_call_row *from)
{
	/* A row's time is in the states it has slots for; other's in any. */
	unsigned int s, b, states = from == &fc->other ?
		GENMASK(TSA_NR_STATES - 1, 0) : from->slots;

	/* No call and no time (an other row left empty): nothing to add. */
	if (!from->calls && !from->ns)
		return;
	if (tc->hist && fc->hist) {
		u64 *tb = tsa_calls_b(tc, to);
		const u64 *fb = tsa_calls_b(fc, from);

		for (b = 0; b < TSA_HIST_BUCKETS; b++)
			tb[b] += fb[b];
	}
	to->calls += from->calls;
	to->ns += from->ns;
	to->longest = max(to->longest, from->longest);
	for (; states; states &= states - 1) {
		u64 ns;

		s = __ffs(states);
		ns = tsa_call_row_ns(fc, from, s);
		if (ns)
			tsa_call_row_put(tc, to, s, ns);
	}
}

/* Row @r of @c: its numbers to the other row, and a new start for @key. */
static void tsa_calls_evict(struct tsa_calls *c, struct tsa_call_row *r,
			    u16 key)
{
	tsa_call_row_add(c, &c->other, c, r);
	tsa_call_row_clear(r, key);
	if (c->hist)
		memset(tsa_calls_b(c, r), 0, TSA_HIST_BUCKETS * sizeof(u64));
}

/*
 * Row @r of @c with room for time in the states of @mask: when it has
 * none, it is evicted and starts again; the other row if even an empty
 * row has too few slots.
 */
static struct tsa_call_row *tsa_calls_room(struct tsa_calls *c,
					   struct tsa_call_row *r,
					   unsigned int mask)
{
	if (r == &c->other || tsa_call_row_take(r, mask))
		return r;
	tsa_calls_evict(c, r, r->key);
	return tsa_call_row_take(r, mask) ? r : &c->other;
}

/*
 * An empty table of @max rows; @in_call when the thread is inside a call
 * it entered before tsa saw it (its number is known when it returns).
 */
void tsa_calls_reset(struct tsa_calls *c, unsigned int max, bool hist,
		     bool in_call)
{
	unsigned int i;

	/*
	 * Not the rows: a free row is cleared when a call takes it
	 * (tsa_calls_row()), and cur[] is read only under mask. A fork
	 * resets two tables (the thread's, a new process's): 808 bytes each
	 * by default, of which these are 184.
	 */
	memset(c, 0, offsetof(struct tsa_calls, cur));
	memset(c->other_ns, 0, sizeof(c->other_ns));
	c->max = max;
	c->hist = hist;
	c->cur_key = in_call ? TSA_CALL_UNKNOWN : TSA_CALL_NONE;
	tsa_call_row_clear(&c->other, TSA_CALL_OTHER);
	for (i = 0; i < max; i++)
		c->row[i].key = TSA_CALL_FREE;
	/* A free row's buckets must be empty, though. */
	if (hist)
		memset(tsa_calls_b(c, c->row), 0,
		       (max + 1) * TSA_HIST_BUCKETS * sizeof(u64));
}

noinline struct tsa_call_row *tsa_calls_hinted_second(struct tsa_calls *c,
						      u16 key)
{
	return tsa_calls_hint_second(c, key);
}

/*
 * The row of @key. A call without one takes a free row; when none is
 * free, the row with the least time (whose numbers move to the other row)
 * if @take or if that row has less than @ns; else it goes to the other row.
 */
static struct tsa_call_row *tsa_calls_row(struct tsa_calls *c, u16 key,
					  u64 ns, bool take)
{
	struct tsa_call_row *r, *least;
	unsigned int i;

	if (key >= TSA_CALL_OTHER)
		return &c->other;
	r = tsa_calls_hinted(c, key);
	if (!r)
		r = tsa_calls_search(c, key);
	if (r)
		return r;
	if (c->rows < c->max)
		return tsa_calls_take_free(c, key);
	least = &c->row[0];
	for (i = 1; i < c->rows; i++)
		if (c->row[i].ns < least->ns)
			least = &c->row[i];
	if (!take && least->ns >= ns)
		return &c->other;
	tsa_calls_evict(c, least, key);
	tsa_calls_hint(c, least - c->row);
	return least;
}

/*
 * Move the call in progress so far into its row: as a call of its own
 * when @count, or as more of one already counted (the rest of a call
 * after an exit's hand-over). The call goes on, with nothing in cur[].
 * Returns the row (NULL if none) and, in @ns if given, the time moved.
 * Its duration goes to no bucket (tsa_calls_fold() does that).
 */
struct tsa_call_row *__tsa_calls_fold(struct tsa_calls *c, bool count,
				      u64 *ns)
{
	struct tsa_call_row *r;
	unsigned int mask = c->mask, s;
	u64 total = 0;

	if (ns)
		*ns = 0;
	/* Nothing known of a call entered before tracking: no row. */
	if (!tsa_calls_in_call(c) ||
	    (c->cur_key == TSA_CALL_UNKNOWN && !mask))
		return NULL;
	r = tsa_calls_room(c, tsa_calls_row(c, c->cur_key, 0, true), mask);
	/* Most calls were only on CPU: one bit, one pass. */
	for (; mask; mask &= mask - 1) {
		s = __ffs(mask);
		tsa_call_row_put(c, r, s, c->cur[s]);
		total += c->cur[s];
	}
	r->calls += count;
	r->ns += total;
	r->longest = max(r->longest, total);
	c->mask = 0;
	if (ns)
		*ns = total;
	return r;
}

/* __tsa_calls_fold(), and a call counted has its duration so far counted. */
struct tsa_call_row *tsa_calls_fold(struct tsa_calls *c, bool count, u64 *ns)
{
	struct tsa_call_row *r;
	u64 total;

	r = __tsa_calls_fold(c, count, &total);
	if (r && count)
		tsa_calls_count_b(c, r, total);
	if (ns)
		*ns = total;
	return r;
}

/* After a hand-over: the rows start again; a call in progress goes on. */
void tsa_calls_clear_rows(struct tsa_calls *c)
{
	while (c->rows)
		c->row[--c->rows].key = TSA_CALL_FREE;
	c->hint[0] = 0;
	c->hint[1] = 0;
	tsa_call_row_clear(&c->other, TSA_CALL_OTHER);
	memset(c->other_ns, 0, sizeof(c->other_ns));
	if (c->hist)
		memset(tsa_calls_b(c, c->row), 0,
		       (c->max + 1) * TSA_HIST_BUCKETS * sizeof(u64));
}

/*
 * Add @from's rows into @to (a thread's table into its process's): a
 * call with a row in @to adds to it; one without takes a free row, or
 * the least row if it has more time, else goes to @to's other row.
 */
void tsa_calls_merge(struct tsa_calls *to, const struct tsa_calls *from)
{
	const struct tsa_call_row *fr;
	struct tsa_call_row *r;
	unsigned int i;

	for (i = 0; i < from->rows; i++) {
		fr = &from->row[i];
		r = tsa_calls_row(to, fr->key, fr->ns, false);
		r = tsa_calls_room(to, r, tsa_call_row_mask(from, fr));
		tsa_call_row_add(to, r, from, fr);
	}
	tsa_call_row_add(to, &to->other, from, &from->other);
}

static bool tsa_call_row_before(const struct tsa_call_row *x,
				const struct tsa_call_row *y)
{
	if (x->ns != y->ns)
		return x->ns > y->ns;
	return x->key < y->key;
}

/* Row @k of @c is now row @from's (and its buckets). */
static void tsa_calls_move(struct tsa_calls *c, unsigned int k,
			   unsigned int from)
{
	c->row[k] = c->row[from];
	if (c->hist)
		memcpy(tsa_calls_b(c, &c->row[k]), tsa_calls_b(c, &c->row[from]),
		       TSA_HIST_BUCKETS * sizeof(u64));
}

/*
 * Most time first (a reader's copy: it forgets the hints). The order is
 * found on indexes (an insertion sort of at most TSA_CALLS_MAX_ROWS), then
 * each row and its buckets move once, cycle by cycle.
 */
void tsa_calls_sort(struct tsa_calls *c)
{
	u8 idx[TSA_CALLS_MAX_ROWS];	/* row k takes row idx[k] */
	u64 b[TSA_HIST_BUCKETS];
	struct tsa_call_row r;
	unsigned int i, j, k, n = c->rows;
	u8 x;

	for (i = 0; i < n; i++) {
		x = i;
		for (j = i; j > 0 && tsa_call_row_before(&c->row[x],
							 &c->row[idx[j - 1]]); j--)
			idx[j] = idx[j - 1];
		idx[j] = x;
	}
	for (k = 0; k < n; k++) {
		if (idx[k] == k)
			continue;
		r = c->row[k];
		if (c->hist)
			memcpy(b, tsa_calls_b(c, &c->row[k]), sizeof(b));
		for (j = k; idx[j] != k; j = i) {
			i = idx[j];
			tsa_calls_move(c, j, i);
			idx[j] = j;
		}
		c->row[j] = r;
		if (c->hist)
			memcpy(tsa_calls_b(c, &c->row[j]), b, sizeof(b));
		idx[j] = j;
	}
	c->hint[0] = 0;
	c->hint[1] = 0;
}
