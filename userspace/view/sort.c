// SPDX-License-Identifier: GPL-2.0
/*
 * view/sort.c - the order of a report's lines.
 *
 * Keys, as in prstat: "cpu" (USR+SYS+TRP, percent of the line's
 * elapsed time over the interval) and "time" (lifetime USR+SYS+TRP).
 * prstat's "pri", "size" and "rss" are not available: tsa-prstat
 * reads nothing but /proc/tsa/all.  Any column of the current view is
 * a key too (lower case; the rows of view/cols.c's table marked
 * COL_SORT, where each is defined), and in the TSA view "wait" = RUN +
 * LCK + APG, the states in which a thread wants to run and is held
 * back; it is that view's default.
 *
 * The system-call view sorts its lines (a call of a thread or process)
 * by "pct" (the call's time, percent of the line's elapsed time; the
 * default), "calls", "avg" (time per call; a line without a new call
 * counts as one), "max" (the longest as shown), or a column of its
 * state split, as the time in that state, percent of the line's
 * elapsed time (not of the call's, so that "-s lck" puts the most lock
 * time first, not a short call that was all lock).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cols.h"
#include "sort.h"
#include "table.h"

/* Keys are the rows of view/cols.c's table with COL_SORT. */
#define keys	tsa_cols_table

static const char *view_name(enum view v)
{
	return v == VIEW_CALLS ? "syscalls" : v == VIEW_TSA ? "TSA" : "-m";
}

int sort_default_key(enum view v)
{
	return sort_key_lookup(v == VIEW_CALLS ? "pct" :
			       v == VIEW_TSA ? "wait" : "cpu", v, NULL, 0);
}

int sort_key_lookup(const char *name, enum view v, char *why, size_t whylen)
{
	int i = col_lookup(name, v, COL_SORT);

	if (i >= 0 || !why)
		return i;
	if (!strcasecmp(name, "pri") || !strcasecmp(name, "size") ||
	    !strcasecmp(name, "rss"))
		snprintf(why, whylen, "sort key %s is not available "
			 "(tsa-prstat shows microstates only)", name);
	else if (col_lookup(name, VIEW_SOLARIS, COL_SORT) >= 0 ||
		 col_lookup(name, VIEW_TSA, COL_SORT) >= 0 ||
		 col_lookup(name, VIEW_CALLS, COL_SORT) >= 0)
		snprintf(why, whylen, "sort key %s is not a column of the %s "
			 "view", name, view_name(v));
	else
		snprintf(why, whylen, "invalid sort key -- %s", name);
	return -1;
}

int sort_key_next(int key, enum view v, int dir)
{
	unsigned want = v == VIEW_CALLS ? COL_CALLS :
			v == VIEW_TSA ? COL_TSA : COL_SOL;
	int i = key, n;

	for (n = 0; n < tsa_ncols; n++) {
		i = (i + dir + tsa_ncols) % tsa_ncols;
		if ((keys[i].views & want) && (keys[i].flags & COL_SORT))
			return i;
	}
	return key;
}

const char *sort_key_name(int key)
{
	return keys[key].name;
}

/* Interval times as a share of the line's time; the others as they are. */
double sort_key_value(int key, const struct tsa_delta *d)
{
	const struct col *k = &keys[key];

	switch (k->kind) {
	case CK_CPU:
	case CK_SOL:
	case CK_TSA:
	case CK_WAIT:
		return pct_of(col_value(k, d), d->elapsed);
	case CK_CNT:
		return (double)d->shown[k->arg];
	case CK_TIME:
		return (double)col_value(k, d);
	default:	/* the system-call view's: call_key_value() */
		break;
	}
	return 0;
}

/*
 * A compare sorts by how much time changed, not by share: a state's
 * (or column's) nanoseconds over the interval, so that a large group
 * with a little more lock time comes before a tiny one that is all
 * lock.  Other keys as in a report.
 */
double sort_key_time(int key, const struct tsa_delta *d)
{
	const struct col *k = &keys[key];

	switch (k->kind) {
	case CK_CPU:
	case CK_SOL:
	case CK_TSA:
	case CK_WAIT:
		return (double)col_value(k, d);
	default:
		return sort_key_value(key, d);
	}
}

double call_key_value(int key, const struct tsa_call_line *l)
{
	const struct col *k = &keys[key];
	uint64_t ns[CALL_NCOLS];

	switch (k->kind) {
	case CK_CPCT:
		return pct_of(l->d.ns, l->elapsed);
	case CK_CCALLS:
		return (double)l->d.calls;
	case CK_CAVG:
		return (double)l->d.ns / (double)(l->d.calls ? l->d.calls : 1);
	case CK_CMAX:
		return (double)l->d.max;
	case CK_CSPLIT:
		call_cols(&l->d, ns);
		return pct_of(ns[k->arg], l->elapsed);
	default:
		break;
	}
	return 0;
}

/* By key in @order, then pid and id: state and call lines alike. */
static int cmp_key_who(double xkey, double ykey, const struct tsa_delta *x,
		       const struct tsa_delta *y, int order)
{
	if (xkey != ykey)
		return (xkey < ykey ? -1 : 1) * order;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return 0;
}

/* @order: -1 descending, 1 ascending (qsort_r's argument). */
static int cmp(const void *a, const void *b, void *order)
{
	const struct tsa_delta *x = a, *y = b;

	return cmp_key_who(x->key, y->key, x, y, *(const int *)order);
}

/* Key the lines with @value and sort: report and compare differ in it. */
static void sort_by(struct tsa_delta *d, size_t n, int key, int order,
		    double (*value)(int key, const struct tsa_delta *d))
{
	size_t i;

	for (i = 0; i < n; i++)
		d[i].key = value(key, &d[i]);
	if (n)	/* no lines: d may be NULL, which qsort_r() refuses */
		qsort_r(d, n, sizeof(*d), cmp, &order);
}

void sort_lines(struct tsa_delta *d, size_t n, int key, int order)
{
	sort_by(d, n, key, order, sort_key_value);
}

void sort_lines_time(struct tsa_delta *d, size_t n, int key, int order)
{
	sort_by(d, n, key, order, sort_key_time);
}

static int call_cmp(const void *a, const void *b, void *order)
{
	const struct tsa_call_line *x = a, *y = b;
	int c = cmp_key_who(x->key, y->key, x->who, y->who,
			    *(const int *)order);

	if (c)
		return c;
	if (x->other != y->other)
		return x->other - y->other;
	return strcmp(x->name, y->name);
}

void sort_call_lines(struct tsa_call_line *l, size_t n, int key, int order)
{
	size_t i;

	for (i = 0; i < n; i++)
		l[i].key = call_key_value(key, &l[i]);
	if (n)	/* as above: l may be NULL */
		qsort_r(l, n, sizeof(*l), call_cmp, &order);
}
