// SPDX-License-Identifier: GPL-2.0
/*
 * view/wakeups.c - the wakers view (see view/wakeups.h).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "all.h"
#include "json.h"
#include "jsonw.h"
#include "group.h"
#include "table.h"
#include "util.h"
#include "wakers.h"
#include "wakeups.h"

/* The end of the lines of the thread, process or group at @i. */
static size_t who_end(const struct tsa_wview *v, size_t n, size_t i)
{
	size_t j = i;

	while (j < n && v[j].pid == v[i].pid && v[j].tid == v[i].tid &&
	       (!v[i].group || !strcmp(v[j].group, v[i].group)))
		j++;
	return j;
}

/* "thread 214 holder-a", "softirq:NET_RX", "other", "none". */
static void waker_name(const struct tsa_wview *x, char *out, size_t len)
{
	char name[64];

	snprintf(name, sizeof(name), "%.*s", x->name_len, x->name);
	tsa_comm_unescape(name);
	if (x->group)	/* a group's waker: a group, or a context */
		snprintf(out, len, "%.*s", x->kind_len, x->kind);
	else if (x->kind_len == 6 && !strncmp(x->kind, "thread", 6))
		snprintf(out, len, "%s/%llu", name,
			 (unsigned long long)x->wtid);
	else if (x->kind_len == 6 && !strncmp(x->kind, "exited", 6))
		snprintf(out, len, "exited/%llu",
			 (unsigned long long)x->wtid);
	else
		snprintf(out, len, "%.*s", x->kind_len, x->kind);
}

void wakers_print(FILE *f, const struct show *o, const struct tsa_wnames *nm,
		  double secs, const struct tsa_wakers_report *r)
{
	char who[64], woken[128], waker[96], ns[24], avg[24], max[24],
	     lat[24], cnt[24];
	const struct tsa_wview *v = r->v;
	size_t i, j, k, whos = 0, shown = 0;

	int grouped = o->group_by > GROUP_PID;

	if (grouped)
		fprintf(f, "%-5s %7s %5s %7s %7s %8s %8s %-22s %s\n", "STATE",
			"WAKEUPS", "OFF%", "TIME", "AVG", "MAX", "LAT/WK",
			"WAKER", group_title((enum group_by)o->group_by));
	else
		fprintf(f, "%6s %5s %-5s %7s %5s %7s %7s %8s %8s %-22s %s\n",
			"PID", o->lwps ? "LWPID" : "", "STATE", "WAKEUPS",
			"OFF%", "TIME", "AVG", "MAX", "LAT/WK", "WAKER",
			o->lwps ? "PROCESS/LWPID" : "PROCESS");
	for (i = 0; i < r->n; i = j) {
		j = who_end(v, r->n, i);
		whos++;
		if (o->ntop && shown >= (size_t)o->ntop)
			continue;
		shown++;
		tsa_wakers_comm(nm, v[i].pid, v[i].tid, who, sizeof(who));
		if (grouped)
			strip_comm(woken, sizeof(woken), v[i].group);
		else if (o->lwps)
			snprintf(woken, sizeof(woken), "%s/%llu", who,
				 (unsigned long long)v[i].tid);
		else
			snprintf(woken, sizeof(woken), "%s", who);
		for (k = i; k < j; k++) {
			const struct tsa_wview *x = &v[k];
			int none = x->state < 0 && x->kind[0] == 'n';

			format_dur(ns, x->ns);
			format_dur(avg, x->n ? x->ns / x->n : 0);
			format_dur(max, x->max);
			format_dur(lat, x->n ? x->lat / x->n : 0);
			format_count(cnt, x->n);
			waker_name(x, waker, sizeof(waker));
			snprintf(who, sizeof(who), "%llu",
				 (unsigned long long)x->tid);
			if (!grouped)
				fprintf(f, "%6llu %5s ",
					(unsigned long long)x->pid,
					o->lwps ? who : "");
			fprintf(f, "%-5s %7s %5.1f %7s %7s %8s %8s %-22s %s\n",
				x->state >= 0 ? tsa_state_name[x->state] : "-",
				none ? "-" : cnt,
				x->off ? 100.0 * (double)x->ns / (double)x->off
				       : 0.0,
				ns, none || !x->n ? "-" : avg,
				none || x->state < 0 ? "-" : max,
				none || !x->n ? "-" : lat, waker,
				k == i ? woken : "");
		}
	}
	fprintf(f, "Total: %zu %s with stays asleep or stopped%s", whos,
		grouped ? "groups" : o->lwps ? "threads" : "processes",
		shown < whos ? " (those most woken shown)" : "");
	if (secs > 0)
		fprintf(f, ", over %.2f s\n", secs);
	else
		fputs(", since each began\n", f);
}

void wakers_print_json(FILE *f, const struct show *o,
		       const struct tsa_wnames *nm,
		       uint64_t now, const struct tsa_wakers_report *r)
{
	const struct tsa_wview *v = r->v;
	struct timespec ts;
	struct jsonw w;
	size_t i, j, shown = 0;
	char comm[64], buf[96];

	clock_gettime(CLOCK_REALTIME, &ts);
	for (i = 0; i < r->n; i = j) {
		j = who_end(v, r->n, i);
		if (o->ntop && shown++ >= (size_t)o->ntop)
			continue;
		json_begin(&w, f);
		jw_time(&w, "ts", &ts);
		jw_u64(&w, "now", now);
		if (v[i].group) {
			jw_str(&w, "group", group_by_name[o->group_by]);
			jw_str(&w, "name", v[i].group);
		} else {
			jw_u64(&w, "pid", v[i].pid);
			if (o->lwps)
				jw_u64(&w, "tid", v[i].tid);
			tsa_wakers_comm(nm, v[i].pid, v[i].tid, comm,
				   sizeof(comm));
			json_name(&w, "comm", comm);
		}
		jw_u64(&w, "off_ns", v[i].off);
		jw_array(&w, "wakers");
		for (size_t k = i; k < j; k++) {
			const struct tsa_wview *x = &v[k];

			jw_object(&w, NULL);
			snprintf(buf, sizeof(buf), "%.*s", x->kind_len,
				 x->kind);
			/* A group's waker is a group, or a context. */
			jw_str(&w, x->group ? "waker" : "kind", buf);
			if (x->state >= 0)
				jw_str(&w, "state", tsa_state_name[x->state]);
			else
				jw_null(&w, "state");
			if (x->wtid) {
				jw_u64(&w, "waker_tid", x->wtid);
				snprintf(buf, sizeof(buf), "%.*s",
					 x->name_len, x->name);
				tsa_comm_unescape(buf);
				json_name(&w, "waker_comm", buf);
			}
			jw_u64(&w, "wakeups", x->n);
			jw_u64(&w, "ns", x->ns);
			jw_u64(&w, "max_ns", x->max);
			jw_u64(&w, "lat_ns", x->lat);
			jw_close(&w);
		}
		jw_end_line(&w);
	}
}

void wakers_print_chain(FILE *f, const struct show *o,
			const struct tsa_wnames *nm,
			double secs, const struct tsa_wakers_report *r,
			uint64_t tid, const size_t *step, size_t n)
{
	char comm[64], waker[96], ns[24], lat[24], cnt[24];
	struct timespec ts;
	struct jsonw w;
	size_t k;

	if (o->json) {
		clock_gettime(CLOCK_REALTIME, &ts);
		json_begin(&w, f);
		jw_time(&w, "ts", &ts);
		jw_u64(&w, "tid", tid);
		jw_array(&w, "chain");
	} else {
		fprintf(f, "%6s %7s %-5s %7s %5s %7s %8s  %s\n", "LWPID",
			"PID", "STATE", "WAKEUPS", "OFF%", "TIME", "LAT/WK",
			"THREAD <- WAKER");
	}
	for (k = 0; k < n; k++) {
		const struct tsa_wview *x = &r->v[step[k]];

		tsa_wakers_comm(nm, x->pid, x->tid, comm, sizeof(comm));
		waker_name(x, waker, sizeof(waker));
		if (o->json) {
			char kind[64];

			jw_object(&w, NULL);
			jw_u64(&w, "tid", x->tid);
			jw_u64(&w, "pid", x->pid);
			json_name(&w, "comm", comm);
			jw_str(&w, "state", tsa_state_name[x->state]);
			snprintf(kind, sizeof(kind), "%.*s", x->kind_len,
				 x->kind);
			jw_str(&w, "kind", kind);
			/* As -w's: the waker's tid and name apart. */
			if (x->wtid) {
				char name[64];

				jw_u64(&w, "waker_tid", x->wtid);
				snprintf(name, sizeof(name), "%.*s",
					 x->name_len, x->name);
				tsa_comm_unescape(name);
				json_name(&w, "waker_comm", name);
			}
			jw_u64(&w, "wakeups", x->n);
			jw_u64(&w, "ns", x->ns);
			jw_u64(&w, "max_ns", x->max);
			jw_u64(&w, "off_ns", x->off);
			jw_u64(&w, "lat_ns", x->lat);
			jw_close(&w);
			continue;
		}
		format_dur(ns, x->ns);
		format_dur(lat, x->n ? x->lat / x->n : 0);
		format_count(cnt, x->n);
		fprintf(f, "%6llu %7llu %-5s %7s %5.1f %7s %8s  %*s%s/%llu <- %s\n",
			(unsigned long long)x->tid,
			(unsigned long long)x->pid, tsa_state_name[x->state],
			cnt, x->off ? 100.0 * (double)x->ns / (double)x->off :
			0.0, ns, x->n ? lat : "-", (int)(2 * k), "", comm,
			(unsigned long long)x->tid, waker);
	}
	if (o->json) {
		jw_close(&w);
		jw_end_line(&w);
		return;
	}
	if (!n)
		fprintf(f, "Thread %llu: no waker ended its stays%s\n",
			(unsigned long long)tid,
			secs > 0 ? " over the interval" : "");
	else if (secs > 0)
		fprintf(f, "Chain: %zu steps, over %.2f s\n", n, secs);
	else
		fprintf(f, "Chain: %zu steps, since each began\n", n);
}
