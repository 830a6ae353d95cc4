// SPDX-License-Identifier: GPL-2.0
/*
 * prhist.c - the distributions view (-H): for each thread (-L) or
 * process and each off-CPU state it had stays end in over the interval
 * (the lifetime, in the first report), how many, the time, and where
 * their median, 90th and 99th percentiles and the longest lie. The
 * percentiles are the upper edges of the log2 buckets they fall in (at
 * most twice the true value, never above the longest stay); the longest
 * is exact when it ended in the interval, else shown as "<" a bound.
 *
 *   PID LWPID STATE   COUNT    TIME     P50     P90     P99      MAX OPEN PROCESS/LWPID
 *   812   815 LAT        93   212ms  4.19ms  8.38ms  8.38ms   6.01ms    0 spin/815
 *
 * JSON lines: one object per thread or process and report:
 *
 *   {"ts":..,"now":..,"pid":812,"tid":815,"comm":"spin","first":false,
 *    "states":[{"state":"LAT","count":93,"ns":..,"p50_ns":..,
 *    "p90_ns":..,"p99_ns":..,"max_ns":..,"max_exact":true,"open":0,
 *    "buckets":[0,..]},..]}
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prhist.h"
#include "prjson.h"
#include "prutil.h"

/* The thread's (or process's) name from procfs, or "-". */
static void who_comm(const struct options *o, const struct tsa_hview *v,
		     char *out, size_t len)
{
	char path[256], raw[64];
	FILE *f;

	if (v->tid)
		snprintf(path, sizeof(path), "%s/%llu/task/%llu/comm",
			 o->procfs, (unsigned long long)v->pid,
			 (unsigned long long)v->tid);
	else
		snprintf(path, sizeof(path), "%s/%llu/comm", o->procfs,
			 (unsigned long long)v->pid);
	f = fopen(path, "r");
	if (!f || !fgets(raw, sizeof(raw), f))
		snprintf(raw, sizeof(raw), "-");
	if (f)
		fclose(f);
	raw[strcspn(raw, "\n")] = '\0';
	strip_comm(out, len, raw);
}

/* The lines of one thread or process: [i, end). */
static size_t who_end(const struct tsa_hview *v, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && v[j].pid == v[i].pid && v[j].tid == v[i].tid)
		j++;
	return j;
}

void hist_print(FILE *f, const struct options *o,
		const struct tsa_hist_snap *cur, double secs,
		const struct tsa_hview *v, size_t n)
{
	char comm[64], p50[24], p90[24], p99[24], dur[24], max[26], ns[24];
	char cnt[24], tid[24];
	size_t i, j, whos = 0, shown = 0;

	fprintf(f, "%6s %5s %-5s %7s %7s %7s %7s %7s %8s %4s %s\n", "PID",
		o->lwps ? "LWPID" : "", "STATE", "COUNT", "TIME", "P50", "P90",
		"P99", "MAX", "OPEN", o->lwps ? "PROCESS/LWPID" : "PROCESS");
	for (i = 0; i < n; i = j) {
		j = who_end(v, n, i);
		whos++;
		if (o->ntop && shown >= (size_t)o->ntop)
			continue;
		shown++;
		who_comm(o, &v[i], comm, sizeof(comm));
		for (size_t k = i; k < j; k++) {
			const struct tsa_hview *x = &v[k];

			format_dur(p50, tsa_hist_quantile(x, cur->shift, 0.5));
			format_dur(p90, tsa_hist_quantile(x, cur->shift, 0.9));
			format_dur(p99, tsa_hist_quantile(x, cur->shift, 0.99));
			format_dur(ns, x->ns);
			format_count(cnt, x->count);
			format_dur(dur, x->max);
			snprintf(max, sizeof(max), "%s%s",
				 x->max_exact ? "" : "<", dur);
			if (o->lwps)
				snprintf(tid, sizeof(tid), "%llu",
					 (unsigned long long)x->tid);
			fprintf(f, "%6llu %5s %-5s %7s %7s %7s %7s %7s %8s %4llu ",
				(unsigned long long)x->pid, o->lwps ? tid : "",
				tsa_state_name[x->state],
				cnt, ns, x->count ? p50 : "-",
				x->count ? p90 : "-", x->count ? p99 : "-",
				x->max ? max : "-",
				(unsigned long long)x->open);
			if (o->lwps)
				fprintf(f, "%s/%llu\n", comm,
					(unsigned long long)x->tid);
			else
				fprintf(f, "%s\n", comm);
		}
	}
	fprintf(f, "Total: %zu %s with stays off CPU%s", whos,
		o->lwps ? "threads" : "processes",
		shown < whos ? " (the busiest shown)" : "");
	if (secs > 0)
		fprintf(f, ", over %.2f s\n", secs);
	else
		fputs(", since each began\n", f);
}

void hist_print_json(FILE *f, const struct options *o,
		     const struct tsa_hist_snap *cur, const struct tsa_hview *v,
		     size_t n)
{
	struct timespec ts;
	size_t i, j, shown = 0;
	char comm[64];
	int b;

	clock_gettime(CLOCK_REALTIME, &ts);
	for (i = 0; i < n; i = j) {
		j = who_end(v, n, i);
		if (o->ntop && shown++ >= (size_t)o->ntop)
			continue;
		who_comm(o, &v[i], comm, sizeof(comm));
		fprintf(f, "{\"ts\":%lld.%03ld,\"now\":%llu,\"pid\":%llu,",
			(long long)ts.tv_sec, ts.tv_nsec / 1000000,
			(unsigned long long)cur->now,
			(unsigned long long)v[i].pid);
		if (o->lwps)
			fprintf(f, "\"tid\":%llu,", (unsigned long long)v[i].tid);
		fputs("\"comm\":", f);
		json_string(f, comm);
		fprintf(f, ",\"first\":%s,\"states\":[",
			v[i].first ? "true" : "false");
		for (size_t k = i; k < j; k++) {
			const struct tsa_hview *x = &v[k];

			fprintf(f, "%s{\"state\":\"%s\",\"count\":%llu,"
				"\"ns\":%llu,\"p50_ns\":%llu,\"p90_ns\":%llu,"
				"\"p99_ns\":%llu,\"max_ns\":%llu,"
				"\"max_exact\":%s,\"open\":%llu,\"buckets\":[",
				k > i ? "," : "", tsa_state_name[x->state],
				(unsigned long long)x->count,
				(unsigned long long)x->ns,
				(unsigned long long)tsa_hist_quantile(x, cur->shift, 0.5),
				(unsigned long long)tsa_hist_quantile(x, cur->shift, 0.9),
				(unsigned long long)tsa_hist_quantile(x, cur->shift, 0.99),
				(unsigned long long)x->max,
				x->max_exact ? "true" : "false",
				(unsigned long long)x->open);
			for (b = 0; b < TSA_HIST_NB; b++)
				fprintf(f, "%s%llu", b ? "," : "",
					(unsigned long long)x->b[b]);
			fputs("]}", f);
		}
		fputs("]}\n", f);
	}
}

static void fail_read_hist(int rc, const char *path, const char *msg)
{
	switch (rc) {
	case TSA_ENOENT:
		die(EXIT_NOMODULE, "%s: not found; the tsa module must be "
		    "loaded with hist=1 for -H (sudo modprobe -r tsa; sudo "
		    "modprobe tsa hist=1)", path);
	case TSA_EACCES:
		die(EXIT_ACCESS, "%s: permission denied", path);
	default:
		die(EXIT_BADDATA, "%s: %s", path, msg);
	}
}

int hist_run(const struct options *o, volatile sig_atomic_t *stop)
{
	struct tsa_hist_snap snaps[2], *prev = NULL, *cur = &snaps[0];
	struct tsa_hview *v = NULL;
	struct timespec deadline;
	char path[4096], msg[256];
	size_t cap = 0, n;
	long done;

	snprintf(path, sizeof(path), "%s/hist", o->proc_dir);
	memset(snaps, 0, sizeof(snaps));
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (done = 0; !*stop && (o->count < 0 || done < o->count); done++) {
		if (done) {
			next_deadline(&deadline, o->interval);
			while (!*stop &&
			       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					       &deadline, NULL) == EINTR)
				;
			if (*stop)
				break;
		}
		n = tsa_hist_read(cur, path, msg, sizeof(msg));
		if (n != TSA_OK)
			fail_read_hist((int)n, path, msg);
		n = tsa_hist_compute(prev, cur, o->lwps, o->pids, o->npids,
				     &v, &cap);
		if (o->json)
			hist_print_json(stdout, o, cur, v, n);
		else
			hist_print(stdout, o, cur, prev ?
				   (double)(cur->now - prev->now) / 1e9 : 0,
				   v, n);
		if (!o->json && (o->count < 0 || done + 1 < o->count))
			putchar('\n');
		if (fflush(stdout) == EOF || ferror(stdout))
			die(EXIT_BADDATA, "write error: %s", strerror(errno));
		prev = cur;
		cur = cur == &snaps[0] ? &snaps[1] : &snaps[0];
	}
	free(v);
	tsa_hist_free(&snaps[0]);
	tsa_hist_free(&snaps[1]);
	return 0;
}
