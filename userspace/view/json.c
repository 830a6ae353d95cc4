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

#include "json.h"
#include "table.h"
#include "util.h"

void json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		int n;

		if (*s == '"' || *s == '\\') {
			fputc('\\', f);
			fputc(*s++, f);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s++);
		} else if ((n = utf8_len(s)) == 0) {
			fputs("\\ufffd", f);
			s++;
		} else {
			fwrite(s, 1, (size_t)n, f);
			s += n;
		}
	}
	fputc('"', f);
}

/* The "solaris" and "tsa" objects of a line, and its end. */
static void views(FILE *f, const struct tsa_delta *d)
{
	uint64_t sol[SOL_NCOLS], tsa[TSA_NCOLS];
	int i;

	sol_cols(d, sol);
	fputs(",\"solaris\":{", f);
	for (i = 0; i < SOL_NCOLS; i++)
		fprintf(f, "%s\"%s\":%.3f", i ? "," : "", sol_col_name[i],
			pct_of(sol[i], d->elapsed));
	tsa_cols(d, tsa);
	fputs("},\"tsa\":{", f);
	for (i = 0; i < TSA_NCOLS; i++)
		fprintf(f, "%s\"%s\":%.3f", i ? "," : "", tsa_col_name[i],
			pct_of(tsa[i], d->elapsed));
	fputs("}}\n", f);
}

/* The "counters" object: thread, process and group lines write it alike. */
static void counters(FILE *f, const uint64_t *delta, const uint64_t *total)
{
	int i;

	fputs("},\"counters\":{", f);
	for (i = 0; i < TSA_NCOUNTERS; i++)
		fprintf(f, "%s\"%s\":{\"delta\":%llu,\"total\":%llu}",
			i ? "," : "", tsa_counter_name[i],
			(unsigned long long)delta[i],
			(unsigned long long)total[i]);
}

/* "tid" or "nlwp", "uid", "user", "comm": state and call lines share them. */
static void who(FILE *f, const struct show *o, const struct tsa_delta *d)
{
	fprintf(f, o->lwps ? "\"tid\":%llu," : "\"nlwp\":%llu,",
		(unsigned long long)d->id);
	fprintf(f, "\"uid\":%llu,\"user\":", (unsigned long long)d->uid);
	json_string(f, user_name((uid_t)d->uid));
	fputs(",\"comm\":", f);
	json_string(f, d->comm);
}

static void one(FILE *f, const struct show *o, const struct tsa_snap *cur,
		const struct tsa_delta *d)
{
	const struct tsa_row *r = d->now;
	int i;

	fprintf(f, "{\"ts\":%lld.%03ld,\"now\":%llu,\"at\":%llu,\"pid\":%llu,",
		(long long)cur->wall.tv_sec, cur->wall.tv_nsec / 1000000,
		(unsigned long long)(o->lwps ? r->v[F_AT] : cur->now),
		(unsigned long long)r->v[F_AT], (unsigned long long)d->pid);
	who(f, o, d);
	if (o->lwps) {
		uint64_t st = r->v[F_STATE];

		fprintf(f, ",\"state\":\"%s\",\"state_ns\":%llu,"
			"\"since\":\"%s\"",
			st < TSA_NSTATES ? tsa_state_name[st] : "?",
			(unsigned long long)r->v[F_STATE_NS],
			r->v[F_FLAGS] & TSA_F_LOAD ? "load" : "birth");
	}
	fprintf(f, ",\"first\":%s,\"elapsed_ns\":%llu,"
		"\"total_elapsed_ns\":%llu,\"states\":{",
		d->first ? "true" : "false", (unsigned long long)d->elapsed,
		(unsigned long long)r->v[F_ELAPSED]);
	for (i = 0; i < TSA_NSTATES; i++)
		fprintf(f, "%s\"%s\":{\"ns\":%llu,\"pct\":%.3f,"
			"\"total_ns\":%llu,\"n\":%llu,\"max\":%llu}",
			i ? "," : "", tsa_state_name[i],
			(unsigned long long)d->ns[i],
			pct_of(d->ns[i], d->elapsed),
			(unsigned long long)r->v[F_NS + i],
			(unsigned long long)r->v[F_N + i],
			(unsigned long long)r->v[F_MAX + i]);
	counters(f, d->cnt, &r->v[F_CNT]);
	fputc('}', f);
	views(f, d);
}

void json_print(FILE *f, const struct show *o, const struct tsa_snap *cur,
		const struct tsa_delta *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		one(f, o, cur, &d[i]);
}

static void one_group(FILE *f, enum group_by by, const struct tsa_snap *cur,
		      const struct tsa_group *g, const struct tsa_delta *d)
{
	int i;

	fprintf(f, "{\"ts\":%lld.%03ld,\"now\":%llu,\"group\":\"%s\",",
		(long long)cur->wall.tv_sec, cur->wall.tv_nsec / 1000000,
		(unsigned long long)cur->now, group_by_name[by]);
	if (by == GROUP_USER)
		fprintf(f, "\"uid\":%llu,", (unsigned long long)g->uid);
	fputs("\"name\":", f);
	json_string(f, g->key);
	fprintf(f, ",\"nproc\":%lu,\"nlwp\":%lu,\"first\":%s,"
		"\"elapsed_ns\":%llu,\"total_elapsed_ns\":%llu,\"states\":{",
		g->nprocs, g->nlwps, d->first ? "true" : "false",
		(unsigned long long)d->elapsed,
		(unsigned long long)g->elapsed);
	for (i = 0; i < TSA_NSTATES; i++)
		fprintf(f, "%s\"%s\":{\"ns\":%llu,\"pct\":%.3f,"
			"\"total_ns\":%llu}", i ? "," : "", tsa_state_name[i],
			(unsigned long long)d->ns[i],
			pct_of(d->ns[i], d->elapsed),
			(unsigned long long)g->ns[i]);
	counters(f, d->cnt, g->cnt);
	fputc('}', f);
	views(f, d);
}

void json_print_groups(FILE *f, enum group_by by, const struct tsa_snap *cur,
		       const struct group_report *r,
		       const struct tsa_delta *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		one_group(f, by, cur, &r->t.g[d[i].id], &d[i]);
}

static void one_call(FILE *f, const struct show *o,
		     const struct tsa_calls_snap *cur,
		     const struct tsa_call_line *l)
{
	const struct tsa_delta *d = l->who;
	uint64_t split[CALL_NCOLS];
	int i, first = 1;

	fprintf(f, "{\"ts\":%lld.%03ld,\"now\":%llu,\"at\":%llu,\"pid\":%llu,",
		(long long)cur->wall.tv_sec, cur->wall.tv_nsec / 1000000,
		(unsigned long long)cur->now, (unsigned long long)l->at,
		(unsigned long long)d->pid);
	who(f, o, d);
	fprintf(f, ",\"first\":%s,\"elapsed_ns\":%llu,\"call\":",
		d->first ? "true" : "false", (unsigned long long)l->elapsed);
	json_string(f, l->name);
	fprintf(f, ",\"other\":%s,\"calls\":%llu,\"ns\":%llu,\"pct\":%.3f,",
		l->other ? "true" : "false", (unsigned long long)l->d.calls,
		(unsigned long long)l->d.ns, pct_of(l->d.ns, l->elapsed));
	if (l->d.calls)
		fprintf(f, "\"avg_ns\":%llu,",
			(unsigned long long)(l->d.ns / l->d.calls));
	else
		fputs("\"avg_ns\":null,", f);
	fprintf(f, "\"max_ns\":%llu,\"total_calls\":%llu,\"total_ns\":%llu,",
		(unsigned long long)l->d.max,
		(unsigned long long)l->total_calls,
		(unsigned long long)l->total_ns);
	if (l->d.rest)
		fprintf(f, "\"unknown_ns\":%llu,",
			(unsigned long long)l->d.rest);
	fputs("\"states\":{", f);
	for (i = 0; i < TSA_NSTATES; i++) {
		if (i == S_USR && !l->d.st[i])
			continue;	/* a thread in a call is not in USR */
		fprintf(f, "%s\"%s\":{\"ns\":%llu,\"pct\":%.3f}",
			first ? "" : ",", tsa_state_name[i],
			(unsigned long long)l->d.st[i],
			pct_of(l->d.st[i], l->d.ns));
		first = 0;
	}
	call_cols(&l->d, split);
	fputs("},\"split\":{", f);
	for (i = 0; i < CALL_NCOLS; i++)
		fprintf(f, "%s\"%s\":%.3f", i ? "," : "", call_col_name[i],
			pct_of(split[i], l->d.ns));
	fputs("}}\n", f);
}

void json_print_calls(FILE *f, const struct show *o,
		      const struct tsa_calls_snap *cur,
		      const struct tsa_call_line *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		one_call(f, o, cur, &l[i]);
}
