// SPDX-License-Identifier: GPL-2.0
/*
 * view/json.c - JSON lines: one object per thread (-L) or process per
 * report, in the report's order.  Every object carries the snapshot's
 * wall-clock time ("ts", seconds since the epoch) and kernel clock
 * ("now", ns: with -L the clock the thread's numbers are measured at,
 * the snapshot's or, for a thread that changed state while it was
 * taken, that change), "at" (ns: the latest clock any of the line's
 * numbers are measured at; with -L the same as "now"; for a process,
 * its threads and exited-threads totals are each measured between "now"
 * and "at"), the interval's numbers and the lifetime ones:
 *
 *   {"ts":1700000000.123,"now":123,"at":123,"pid":1,"tid":1,"uid":0,
 *    "user":"root","comm":"init","state":"SLP","state_ns":..,"since":"birth",
 *    "first":false,"elapsed_ns":..,"total_elapsed_ns":..,
 *    "states":{"USR":{"ns":..,"pct":..,"total_ns":..,"n":..,"max":..},..},
 *    "counters":{"VCX":{"delta":..,"total":..},..},
 *    "solaris":{"USR":pct,..},"tsa":{"EXEC":pct,..}}
 *
 * Without -L, "tid" is replaced by "nlwp"; "state" and "since" are
 * per thread and absent.  "pct" is of the line's own elapsed time over
 * the interval, like the table; "delta" is the raw increment (lifetime
 * value when "first" is true, never scaled).
 *
 * Group reports (--group cgroup|user|comm) have one object per group:
 *
 *   {"ts":..,"now":..,"group":"cgroup","name":"/system.slice/x.service",
 *    "nproc":2,"nlwp":9,"first":false,"elapsed_ns":..,
 *    "total_elapsed_ns":..,"states":{"USR":{"ns":..,"pct":..,
 *    "total_ns":..},..},"counters":{"VCX":{"delta":..,"total":..},..},
 *    "solaris":{..},"tsa":{..}}
 *
 * with "uid" too when grouped by user.  Totals include exited threads.
 *
 * The system-call view (-y) has one object per call of a thread or
 * process, in the report's order; "ts" and "now" are those of the
 * /proc/tsa/calls read, "at" the latest clock of the line's threads:
 *
 *   {"ts":..,"now":..,"at":..,"pid":1,"tid":1,"uid":0,"user":"root",
 *    "comm":"init","first":false,"elapsed_ns":..,"call":"futex",
 *    "other":false,"calls":..,"ns":..,"pct":..,"avg_ns":..,"max_ns":..,
 *    "total_calls":..,"total_ns":..,
 *    "states":{"SYS":{"ns":..,"pct":..},..},"split":{"SYS":pct,..}}
 *
 * "pct" is of "elapsed_ns" (the line's elapsed time over the interval,
 * as of the /proc/tsa/calls reads, the table's divisor);
 * each state's "pct" and "split" are of the call's "ns".  "avg_ns" is
 * null when no call began in the interval.  "unknown_ns", when present,
 * is time in states this version does not know.
 */
#include <string.h>

#include <inttypes.h>

#include "cols.h"
#include "json.h"
#include "jsonw.h"
#include "table.h"
#include "util.h"

void json_begin(struct jsonw *w, FILE *f)
{
	jw_line(w, f);
	jw_u64(w, "schema", TSA_JSON_SCHEMA);
}

void json_name(struct jsonw *w, const char *key, const char *name)
{
	if (!name || !name[0] || !strcmp(name, "-"))
		jw_null(w, key);
	else
		jw_str(w, key, name);
}

void json_user(struct jsonw *w, uint64_t uid)
{
	const char *name = user_name((uid_t)uid);
	char num[24];

	/* user_name() gives the number when there is no name. */
	snprintf(num, sizeof(num), "%" PRIu64, uid);
	if (!strcmp(name, num))
		jw_null(w, "user");
	else
		jw_str(w, "user", name);
}

/*
 * The "solaris" and "tsa" objects of a line, and its end: the state
 * columns of view/cols.c's table, keyed as it says.
 */
static void views(struct jsonw *w, const struct tsa_delta *d)
{
	static const struct { const char *key; unsigned view; } v[] = {
		{ "solaris", COL_SOL }, { "tsa", COL_TSA },
	};
	int i, k;

	for (k = 0; k < 2; k++) {
		jw_object(w, v[k].key);
		for (i = 0; i < tsa_ncols; i++) {
			const struct col *c = &tsa_cols_table[i];

			if (c->views != v[k].view || !(c->flags & COL_STATE))
				continue;
			jw_fixed(w, c->json, pct_of(col_value(c, d),
						    d->elapsed));
		}
		jw_close(w);
	}
	jw_end_line(w);
}

/* The "counters" object: thread, process and group lines write it alike. */
static void counters(struct jsonw *w, const uint64_t *delta,
		     const uint64_t *total)
{
	int i;

	jw_object(w, "counters");
	for (i = 0; i < TSA_NCOUNTERS; i++) {
		jw_object(w, tsa_counter_name[i]);
		jw_u64(w, "delta", delta[i]);
		jw_u64(w, "total", total[i]);
		jw_close(w);
	}
	jw_close(w);
}

/* "tid" or "nlwp", "uid", "user", "comm": state and call lines share them. */
static void who(struct jsonw *w, const struct show *o,
		const struct tsa_delta *d)
{
	jw_u64(w, o->lwps ? "tid" : "nlwp", d->id);
	jw_u64(w, "uid", d->uid);
	json_user(w, d->uid);
	json_name(w, "comm", d->comm);
}

static void one(struct jsonw *w, FILE *f, const struct show *o,
		const struct tsa_snap *cur, const struct tsa_delta *d)
{
	const struct tsa_row *r = d->now;
	int i;

	json_begin(w, f);
	jw_time(w, "ts", &cur->wall);
	jw_u64(w, "now", o->lwps ? r->v[F_AT] : cur->now);
	jw_u64(w, "at", r->v[F_AT]);
	if (cur->calib[0])
		jw_str(w, "calibration", cur->calib);
	jw_u64(w, "pid", d->pid);
	who(w, o, d);
	if (o->lwps) {
		uint64_t st = r->v[F_STATE];

		jw_str(w, "state", st < TSA_NSTATES ? tsa_state_name[st] : "?");
		jw_u64(w, "state_ns", r->v[F_STATE_NS]);
		jw_str(w, "since",
		       r->v[F_FLAGS] & TSA_F_LOAD ? "load" : "birth");
	}
	jw_bool(w, "first", d->first);
	jw_u64(w, "elapsed_ns", d->elapsed);
	jw_u64(w, "total_elapsed_ns", r->v[F_ELAPSED]);
	jw_object(w, "states");
	for (i = 0; i < TSA_NSTATES; i++) {
		jw_object(w, tsa_state_name[i]);
		jw_u64(w, "ns", d->ns[i]);
		jw_fixed(w, "pct", pct_of(d->ns[i], d->elapsed));
		jw_u64(w, "total_ns", r->v[F_NS + i]);
		jw_u64(w, "count", r->v[F_N + i]);
		jw_u64(w, "max_ns", r->v[F_MAX + i]);
		jw_close(w);
	}
	jw_close(w);
	counters(w, d->cnt, &r->v[F_CNT]);
	views(w, d);
}

void json_print(FILE *f, const struct show *o, const struct tsa_snap *cur,
		const struct tsa_delta *d, size_t n)
{
	struct jsonw w;
	size_t i;

	for (i = 0; i < n; i++)
		one(&w, f, o, cur, &d[i]);
}

static void one_group(struct jsonw *w, FILE *f, enum group_by by,
		      const struct tsa_snap *cur, const struct tsa_group *g,
		      const struct tsa_delta *d)
{
	int i;

	json_begin(w, f);
	jw_time(w, "ts", &cur->wall);
	jw_u64(w, "now", cur->now);
	if (cur->calib[0])
		jw_str(w, "calibration", cur->calib);
	jw_str(w, "group", group_by_name[by]);
	if (by == GROUP_USER)
		jw_u64(w, "uid", g->uid);
	jw_str(w, "name", g->key);
	jw_u64(w, "nproc", g->nprocs);
	jw_u64(w, "nlwp", g->nlwps);
	jw_bool(w, "first", d->first);
	jw_u64(w, "elapsed_ns", d->elapsed);
	jw_u64(w, "total_elapsed_ns", g->elapsed);
	jw_object(w, "states");
	for (i = 0; i < TSA_NSTATES; i++) {
		jw_object(w, tsa_state_name[i]);
		jw_u64(w, "ns", d->ns[i]);
		jw_fixed(w, "pct", pct_of(d->ns[i], d->elapsed));
		jw_u64(w, "total_ns", g->ns[i]);
		jw_close(w);
	}
	jw_close(w);
	counters(w, d->cnt, g->cnt);
	views(w, d);
}

void json_print_groups(FILE *f, enum group_by by, const struct tsa_snap *cur,
		       const struct group_report *r,
		       const struct tsa_delta *d, size_t n)
{
	struct jsonw w;
	size_t i;

	for (i = 0; i < n; i++)
		one_group(&w, f, by, cur, &r->t.g[d[i].id], &d[i]);
}

static void one_call(struct jsonw *w, FILE *f, const struct show *o,
		     const struct tsa_calls_snap *cur,
		     const struct tsa_call_line *l)
{
	const struct tsa_delta *d = l->who;
	uint64_t split[CALL_NCOLS];
	int i;

	json_begin(w, f);
	jw_time(w, "ts", &cur->wall);
	jw_u64(w, "now", cur->now);
	jw_u64(w, "at", l->at);
	jw_u64(w, "pid", d->pid);
	who(w, o, d);
	jw_bool(w, "first", d->first);
	jw_u64(w, "elapsed_ns", l->elapsed);
	jw_str(w, "call", l->name);
	jw_bool(w, "other", l->other);
	jw_u64(w, "calls", l->d.calls);
	jw_u64(w, "ns", l->d.ns);
	jw_fixed(w, "pct", pct_of(l->d.ns, l->elapsed));
	if (l->d.calls)
		jw_u64(w, "avg_ns", l->d.ns / l->d.calls);
	else
		jw_null(w, "avg_ns");
	jw_u64(w, "max_ns", l->d.max);
	jw_u64(w, "total_calls", l->total_calls);
	jw_u64(w, "total_ns", l->total_ns);
	if (l->d.rest)
		jw_u64(w, "unknown_ns", l->d.rest);
	jw_object(w, "states");
	for (i = 0; i < TSA_NSTATES; i++) {
		if (i == S_USR && !l->d.st[i])
			continue;	/* a thread in a call is not in USR */
		jw_object(w, tsa_state_name[i]);
		jw_u64(w, "ns", l->d.st[i]);
		jw_fixed(w, "pct", pct_of(l->d.st[i], l->d.ns));
		jw_close(w);
	}
	jw_close(w);
	call_cols(&l->d, split);
	jw_object(w, "split");	/* keyed as view/cols.c's split columns */
	for (i = 0; i < tsa_ncols; i++) {
		const struct col *c = &tsa_cols_table[i];

		if (c->kind == CK_CSPLIT)
			jw_fixed(w, c->json, pct_of(split[c->arg], l->d.ns));
	}
	jw_end_line(w);
}

void json_print_calls(FILE *f, const struct show *o,
		      const struct tsa_calls_snap *cur,
		      const struct tsa_call_line *l, size_t n)
{
	struct jsonw w;
	size_t i;

	for (i = 0; i < n; i++)
		one_call(&w, f, o, cur, &l[i]);
}
