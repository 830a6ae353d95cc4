// SPDX-License-Identifier: GPL-2.0
/*
 * view/sort.c - the order of a report's lines.
 *
 * Keys, as in prstat: "cpu" (USR+SYS+TRP, percent of the line's
 * elapsed time over the interval) and "time" (lifetime USR+SYS+TRP).
 * prstat's "pri", "size" and "rss" are not available: tsa-prstat
 * reads nothing but /proc/tsa/all.  Any column of the current view is
 * a key too (lower case), and in the TSA view "wait" = RUN + LCK + APG,
 * the states in which a thread wants to run and is held back; it is
 * that view's default.
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

#include "sort.h"
#include "table.h"

enum kind {
	K_CPU, K_TIME, K_SOL, K_TSA, K_CNT, K_WAIT,
	K_CPCT, K_CCALLS, K_CAVG, K_CMAX, K_CSPLIT,
};

#define V_SOL	1
#define V_TSA	2
#define V_CALLS	4
#define V_ALL	(V_SOL | V_TSA)

static const struct key {
	const char *name;
	int views;
	enum kind kind;
	int col;
} keys[] = {
	{ "cpu",  V_ALL, K_CPU,  0 },
	{ "time", V_ALL, K_TIME, 0 },
	{ "usr",  V_SOL, K_SOL,  SOL_USR },
	{ "sys",  V_SOL, K_SOL,  SOL_SYS },
	{ "trp",  V_SOL, K_SOL,  SOL_TRP },
	{ "tfl",  V_SOL, K_SOL,  SOL_TFL },
	{ "dfl",  V_SOL, K_SOL,  SOL_DFL },
	{ "lck",  V_SOL, K_SOL,  SOL_LCK },
	{ "slp",  V_SOL, K_SOL,  SOL_SLP },
	{ "lat",  V_SOL, K_SOL,  SOL_LAT },
	{ "vcx",  V_ALL, K_CNT,  C_VCX },
	{ "icx",  V_ALL, K_CNT,  C_ICX },
	{ "scl",  V_ALL, K_CNT,  C_SCL },
	{ "sig",  V_ALL, K_CNT,  C_SIG },
	{ "exec", V_TSA, K_TSA,  TSA_EXEC },
	{ "run",  V_TSA, K_TSA,  TSA_RUN },
	{ "apg",  V_TSA, K_TSA,  TSA_APG },
	{ "slp",  V_TSA, K_TSA,  TSA_SLP },
	{ "lck",  V_TSA, K_TSA,  TSA_LCK },
	{ "idl",  V_TSA, K_TSA,  TSA_IDL },
	{ "stp",  V_TSA, K_TSA,  TSA_STP },
	{ "wait", V_TSA, K_WAIT, 0 },
	{ "pct",   V_CALLS, K_CPCT,   0 },
	{ "calls", V_CALLS, K_CCALLS, 0 },
	{ "avg",   V_CALLS, K_CAVG,   0 },
	{ "max",   V_CALLS, K_CMAX,   0 },
	{ "sys",   V_CALLS, K_CSPLIT, CALL_SYS },
	{ "lat",   V_CALLS, K_CSPLIT, CALL_LAT },
	{ "flt",   V_CALLS, K_CSPLIT, CALL_FLT },
	{ "apg",   V_CALLS, K_CSPLIT, CALL_APG },
	{ "lck",   V_CALLS, K_CSPLIT, CALL_LCK },
	{ "klk",   V_CALLS, K_CSPLIT, CALL_KLK },
	{ "iow",   V_CALLS, K_CSPLIT, CALL_IOW },
	{ "idl",   V_CALLS, K_CSPLIT, CALL_IDL },
	{ "slp",   V_CALLS, K_CSPLIT, CALL_SLP },
};

static int view_bit(enum view v)
{
	return v == VIEW_CALLS ? V_CALLS : v == VIEW_TSA ? V_TSA : V_SOL;
}

static const char *view_name(enum view v)
{
	return v == VIEW_CALLS ? "syscalls" : v == VIEW_TSA ? "TSA" : "-m";
}

#define NKEYS	((int)(sizeof(keys) / sizeof(keys[0])))

int sort_default_key(enum view v)
{
	return sort_key_lookup(v == VIEW_CALLS ? "pct" :
			       v == VIEW_TSA ? "wait" : "cpu", v, NULL, 0);
}

int sort_key_lookup(const char *name, enum view v, char *why, size_t whylen)
{
	int want = view_bit(v), i, other = 0;

	for (i = 0; i < NKEYS; i++) {
		if (strcasecmp(keys[i].name, name))
			continue;
		if (keys[i].views & want)
			return i;
		other = 1;
	}
	if (!why)
		return -1;
	if (!strcasecmp(name, "pri") || !strcasecmp(name, "size") ||
	    !strcasecmp(name, "rss"))
		snprintf(why, whylen, "sort key %s is not available "
			 "(tsa-prstat shows microstates only)", name);
	else if (other)
		snprintf(why, whylen, "sort key %s is not a column of the %s "
			 "view", name, view_name(v));
	else
		snprintf(why, whylen, "invalid sort key -- %s", name);
	return -1;
}

int sort_key_next(int key, enum view v, int dir)
{
	int want = view_bit(v), i = key, n;

	for (n = 0; n < NKEYS; n++) {
		i = (i + dir + NKEYS) % NKEYS;
		if (keys[i].views & want)
			return i;
	}
	return key;
}

const char *sort_key_name(int key)
{
	return keys[key].name;
}

double sort_key_value(int key, const struct tsa_delta *d)
{
	const struct key *k = &keys[key];
	uint64_t sol[SOL_NCOLS], tsa[TSA_NCOLS];

	switch (k->kind) {
	case K_CPU:
		return pct_of(d->ns[S_USR] + d->ns[S_SYS] + d->ns[S_TRP],
			      d->elapsed);
	case K_TIME:
		return (double)(d->now->v[F_NS + S_USR] +
				d->now->v[F_NS + S_SYS] +
				d->now->v[F_NS + S_TRP]);
	case K_SOL:
		sol_cols(d, sol);
		return pct_of(sol[k->col], d->elapsed);
	case K_TSA:
		tsa_cols(d, tsa);
		return pct_of(tsa[k->col], d->elapsed);
	case K_CNT:
		return (double)d->shown[k->col];
	case K_WAIT:
		tsa_cols(d, tsa);
		return pct_of(tsa[TSA_RUN] + tsa[TSA_LCK] + tsa[TSA_APG],
			      d->elapsed);
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
	const struct key *k = &keys[key];
	uint64_t sol[SOL_NCOLS], tsa[TSA_NCOLS];

	switch (k->kind) {
	case K_CPU:
		return (double)(d->ns[S_USR] + d->ns[S_SYS] + d->ns[S_TRP]);
	case K_SOL:
		sol_cols(d, sol);
		return (double)sol[k->col];
	case K_TSA:
		tsa_cols(d, tsa);
		return (double)tsa[k->col];
	case K_WAIT:
		tsa_cols(d, tsa);
		return (double)(tsa[TSA_RUN] + tsa[TSA_LCK] + tsa[TSA_APG]);
	default:
		return sort_key_value(key, d);
	}
}

double call_key_value(int key, const struct tsa_call_line *l)
{
	const struct key *k = &keys[key];
	uint64_t ns[CALL_NCOLS];

	switch (k->kind) {
	case K_CPCT:
		return pct_of(l->d.ns, l->elapsed);
	case K_CCALLS:
		return (double)l->d.calls;
	case K_CAVG:
		return (double)l->d.ns / (double)(l->d.calls ? l->d.calls : 1);
	case K_CMAX:
		return (double)l->d.max;
	case K_CSPLIT:
		call_cols(&l->d, ns);
		return pct_of(ns[k->col], l->elapsed);
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
	qsort_r(l, n, sizeof(*l), call_cmp, &order);
}
