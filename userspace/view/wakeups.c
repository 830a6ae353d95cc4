// SPDX-License-Identifier: GPL-2.0
/*
 * view/wakeups.c - the wakers view (see view/wakeups.h).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "all.h"
#include "jsonw.h"
#include "util.h"
#include "wakers.h"
#include "wakeups.h"

/* The name of the woken thread or process, from procfs ("-": gone). */
static void woken_comm(const char *procfs, uint64_t pid, uint64_t tid,
		       char *out, size_t len)
{
	char path[256], raw[64];

	if (tid)
		snprintf(path, sizeof(path), "%s/%llu/task/%llu/comm", procfs,
			 (unsigned long long)pid, (unsigned long long)tid);
	else
		snprintf(path, sizeof(path), "%s/%llu/comm", procfs,
			 (unsigned long long)pid);
	if (read_line(path, raw, sizeof(raw)))
		snprintf(raw, sizeof(raw), "-");
	strip_comm(out, len, raw);
}

/* The end of the lines of the thread or process at @i. */
static size_t who_end(const struct tsa_wview *v, size_t n, size_t i)
{
	size_t j = i;

	while (j < n && v[j].pid == v[i].pid && v[j].tid == v[i].tid)
		j++;
	return j;
}

/* "thread 214 holder-a", "softirq:NET_RX", "other", "none". */
static void waker_name(const struct tsa_wview *x, char *out, size_t len)
{
	char name[64];

	snprintf(name, sizeof(name), "%.*s", x->name_len, x->name);
	tsa_comm_unescape(name);
	if (x->kind_len == 6 && !strncmp(x->kind, "thread", 6))
		snprintf(out, len, "%s/%llu", name,
			 (unsigned long long)x->wtid);
	else if (x->kind_len == 6 && !strncmp(x->kind, "exited", 6))
		snprintf(out, len, "exited/%llu",
			 (unsigned long long)x->wtid);
	else
		snprintf(out, len, "%.*s", x->kind_len, x->kind);
}

void wakers_print(FILE *f, const struct show *o, const char *procfs,
		  double secs, const struct tsa_wakers_report *r)
{
	char who[64], woken[128], waker[96], ns[24], avg[24], max[24],
	     lat[24], cnt[24];
	const struct tsa_wview *v = r->v;
	size_t i, j, k, whos = 0, shown = 0;

	fprintf(f, "%6s %5s %-5s %7s %5s %7s %7s %8s %8s %-22s %s\n", "PID",
		o->lwps ? "LWPID" : "", "STATE", "WAKEUPS", "OFF%", "TIME",
		"AVG", "MAX", "LAT/WK", "WAKER",
		o->lwps ? "PROCESS/LWPID" : "PROCESS");
	for (i = 0; i < r->n; i = j) {
		j = who_end(v, r->n, i);
		whos++;
		if (o->ntop && shown >= (size_t)o->ntop)
			continue;
		shown++;
		woken_comm(procfs, v[i].pid, v[i].tid, who, sizeof(who));
		if (o->lwps)
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
			fprintf(f, "%6llu %5s %-5s %7s %5.1f %7s %7s %8s %8s %-22s %s\n",
				(unsigned long long)x->pid,
				o->lwps ? who : "",
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
		o->lwps ? "threads" : "processes",
		shown < whos ? " (those most woken shown)" : "");
	if (secs > 0)
		fprintf(f, ", over %.2f s\n", secs);
	else
		fputs(", since each began\n", f);
}

void wakers_print_json(FILE *f, const struct show *o, const char *procfs,
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
		jw_line(&w, f);
		jw_time(&w, "ts", &ts);
		jw_u64(&w, "now", now);
		jw_u64(&w, "pid", v[i].pid);
		if (o->lwps)
			jw_u64(&w, "tid", v[i].tid);
		woken_comm(procfs, v[i].pid, v[i].tid, comm, sizeof(comm));
		jw_str(&w, "comm", comm);
		jw_u64(&w, "off_ns", v[i].off);
		jw_array(&w, "wakers");
		for (size_t k = i; k < j; k++) {
			const struct tsa_wview *x = &v[k];

			jw_object(&w, NULL);
			snprintf(buf, sizeof(buf), "%.*s", x->kind_len,
				 x->kind);
			jw_str(&w, "kind", buf);
			if (x->state >= 0)
				jw_str(&w, "state", tsa_state_name[x->state]);
			else
				jw_null(&w, "state");
			if (x->wtid) {
				jw_u64(&w, "waker_tid", x->wtid);
				snprintf(buf, sizeof(buf), "%.*s",
					 x->name_len, x->name);
				tsa_comm_unescape(buf);
				jw_str(&w, "waker_comm", buf);
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

void wakers_print_chain(FILE *f, const struct show *o, const char *procfs,
			double secs, const struct tsa_wakers_report *r,
			uint64_t tid, const size_t *step, size_t n)
{
	char comm[64], waker[96], ns[24], lat[24], cnt[24];
	struct timespec ts;
	struct jsonw w;
	size_t k;

	if (o->json) {
		clock_gettime(CLOCK_REALTIME, &ts);
		jw_line(&w, f);
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

		woken_comm(procfs, x->pid, x->tid, comm, sizeof(comm));
		waker_name(x, waker, sizeof(waker));
		if (o->json) {
			char kind[64];

			jw_object(&w, NULL);
			jw_u64(&w, "tid", x->tid);
			jw_u64(&w, "pid", x->pid);
			jw_str(&w, "comm", comm);
			jw_str(&w, "state", tsa_state_name[x->state]);
			snprintf(kind, sizeof(kind), "%.*s", x->kind_len,
				 x->kind);
			jw_str(&w, "kind", kind);
			if (x->wtid)
				jw_u64(&w, "waker_tid", x->wtid);
			jw_str(&w, "waker", waker);
			jw_u64(&w, "wakeups", x->n);
			jw_u64(&w, "ns", x->ns);
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
