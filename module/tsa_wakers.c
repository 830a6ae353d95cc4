// SPDX-License-Identifier: GPL-2.0
/*
 * tsa wakeup attribution: the table's rarer paths (see tsa_wakers.h).
 * Pure logic: KUnit drives it directly.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "tsa_wakers.h"

/* Row @r's numbers move to the other row; it keeps its waker. */
void tsa_wakers_fold(struct tsa_wakers *w, struct tsa_waker *r)
{
	w->other_n += r->n;
	w->other_ns += r->ns;
	w->other_lat += r->lat;
	w->other_longest = max(w->other_longest, r->longest);
	r->n = 0;
	r->ns = 0;
	r->lat = 0;
	r->longest = 0;
}

/* The row with the least time (the first free one: no time). */
static struct tsa_waker *tsa_wakers_least(struct tsa_wakers *w)
{
	struct tsa_waker *least = NULL, *r;

	for (r = w->row; r < w->row + TSA_WAKER_ROWS; r++) {
		if (!r->who)
			return r;
		if (!least || r->ns < least->ns)
			least = r;
	}
	return least;
}

/*
 * A row for waker @who (with its state) and @start, which has none: a
 * free one, or the one with the least time, whose numbers go to the
 * other row. Returns its index.
 */
unsigned int tsa_wakers_take(struct tsa_wakers *w, u32 who, u64 start)
{
	struct tsa_waker *r = tsa_wakers_least(w);

	if (r->who)
		tsa_wakers_fold(w, r);
	memset(r, 0, sizeof(*r));
	r->who = who;
	r->start = start;
	return r - w->row;
}

/* The row of @w with @r's waker and state, or NULL. */
static struct tsa_waker *tsa_wakers_find(struct tsa_wakers *w,
					 const struct tsa_waker *r)
{
	unsigned int i;

	for (i = 0; i < TSA_WAKER_ROWS; i++)
		if (w->row[i].who == r->who && w->row[i].start == r->start)
			return &w->row[i];
	return NULL;
}

static void tsa_waker_add(struct tsa_waker *to, const struct tsa_waker *from)
{
	to->n += from->n;
	to->ns += from->ns;
	to->lat += from->lat;
	to->longest = max(to->longest, from->longest);
}

/*
 * Add @from to @to (a thread's wakers to its process's at exit): a row of
 * the same waker adds up; a new waker takes a free row, or the least
 * row's place if it has more time (that row going to the other row), or
 * else goes to the other row. Nothing is lost or counted twice.
 */
void tsa_wakers_merge(struct tsa_wakers *to, const struct tsa_wakers *from)
{
	const struct tsa_waker *f;
	struct tsa_waker *r;
	unsigned int i;

	for (i = 0; i < TSA_WAKER_ROWS; i++) {
		f = &from->row[i];
		if (!f->who)
			continue;
		r = tsa_wakers_find(to, f);
		if (r && (u64)r->n + f->n > U32_MAX)
			tsa_wakers_fold(to, r);
		if (r) {
			tsa_waker_add(r, f);
			continue;
		}
		r = tsa_wakers_least(to);
		if (r->who && r->ns >= f->ns) {
			to->other_n += f->n;
			to->other_ns += f->ns;
			to->other_lat += f->lat;
			to->other_longest = max(to->other_longest, f->longest);
			continue;
		}
		if (r->who)
			tsa_wakers_fold(to, r);
		*r = *f;
	}
	to->other_n += from->other_n;
	to->other_ns += from->other_ns;
	to->other_lat += from->other_lat;
	to->other_longest = max(to->other_longest, from->other_longest);
}

static int tsa_waker_cmp(const void *a, const void *b)
{
	const struct tsa_waker *x = a, *y = b;

	if (!x->who != !y->who)
		return x->who ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return 0;
}

/* Rows in use first, the most time first (a reader's copy). */
void tsa_wakers_sort(struct tsa_wakers *w)
{
	sort(w->row, TSA_WAKER_ROWS, sizeof(w->row[0]), tsa_waker_cmp, NULL);
}
