// SPDX-License-Identifier: GPL-2.0
/*
 * view/dist.c - the distributions view (-H): for each thread (-L), process
 * or group (--group) and each off-CPU state it had stays end in over the
 * interval (the lifetime, in the first report), how many, the time, and
 * where their median, 90th and 99th percentiles and the longest lie. The
 * percentiles are the upper edges of the log2 buckets they fall in (at
 * most twice the true value, never above the longest stay); the longest
 * is exact when it ended in the interval, else shown as "<" a bound.
 *
 *   PID LWPID STATE   COUNT    TIME     P50     P90     P99      MAX OPEN PROCESS/LWPID
 *   812   815 LAT        93   212ms  3.90ms  6.01ms  6.01ms   6.01ms    0 spin/815
 *
 * With --draw, each line's buckets as bcc's runqlat draws them.  JSON
 * lines: one object per thread, process or group and report:
 *
 *   {"ts":..,"now":..,"pid":812,"tid":815,"comm":"spin","first":false,
 *    "buckets_exp":-20,"buckets_unit":"s",
 *    "states":[{"state":"LAT","count":93,"ns":..,"p50_ns":..,
 *    "p90_ns":..,"p99_ns":..,"max_ns":..,"max_exact":true,"open":0,
 *    "buckets":[0,..]},..]}
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist.h"
#include "json.h"
#include "jsonw.h"
#include "table.h"
#include "util.h"

/*
 * The thread's (or process's) name: the one rule, tsa_thread_name(), over
 * the reads of /proc/tsa/all (live) or the capture's; "-" when gone.
 */
static void who_comm(const struct hist_report *r, uint64_t pid,
		     uint64_t tid, char *out, size_t len)
{
	tsa_thread_name(r->names, r->names_prev, pid, tid, out, len);
}

/* The lines of one thread, process or group: [i, end). */
static size_t who_end(const struct tsa_hview *v, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && v[j].pid == v[i].pid && v[j].tid == v[i].tid &&
	       v[j].group == v[i].group)
		j++;
	return j;
}

/* ---- --group: the parts (threads, exited threads) folded by group ---- */


static const struct hproc *procs_find(const struct hist_report *r,
				      uint64_t pid)
{
	size_t k;

	tsa_index_each(&r->pids, tsa_hash_u64(pid), k)
		if (r->procs[tsa_index_at(&r->pids, k)].pid == pid)
			return &r->procs[tsa_index_at(&r->pids, k)];
	return NULL;
}

static void procs_build(struct hist_report *r, const struct tsa_hist_snap *s)
{
	size_t i;

	if (s->n > r->pcap) {
		r->pcap = s->n;
		r->procs = xrealloc(r->procs, r->pcap * sizeof(*r->procs));
	}
	tsa_index_clear(&r->pids, s->n, 64);
	for (i = 0; i < s->n; i++) {
		const struct tsa_hline *l = &s->l[i];
		struct hproc *p = (struct hproc *)procs_find(r, l->pid);

		if (p && l->tid != l->pid)
			continue;
		if (!p) {
			p = &r->procs[r->pids.n];
			tsa_index_put(&r->pids, tsa_hash_u64(l->pid), r->pids.n);
		}
		p->pid = l->pid;
		p->uid = l->uid;
		/* As proc_since(): the leader's start, else the first's. */
		p->since = l->tid ? l->at - l->elapsed : 0;
	}
}

/*
 * The group of a thread (tid) or a process's exited threads (tid 0), by
 * the group rule; its name read only when the group is by name.
 */
static void part_key(struct hist_report *r, enum group_by by, uint64_t pid,
		     uint64_t tid, char *key, size_t len)
{
	const struct hproc *p = procs_find(r, pid);
	struct group_who w = { pid, p ? p->uid : 0, p ? p->since : 0, NULL };
	char comm[64];

	if (by == GROUP_COMM) {
		/* Exited threads: under their process's (leader's) name. */
		who_comm(r, pid, tid, comm, sizeof(comm));
		w.comm = comm;
	}
	group_key_of(key, len, by, &w, r->procfs, &r->cc);
}

/* A call's line of a part, and the group it goes to. */
struct hcall {
	size_t group;
	const struct tsa_hview *v;
};

static int cmp_hcall(const void *a, const void *b)
{
	const struct hcall *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return view_call_cmp(x->v, y->v);
}

static int cmp_member(const void *a, const void *b)
{
	const struct hmember *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * Fold the parts @v (TSA_HIST_PARTS lines) into one line per group and
 * state in r->v, and count each group's processes and threads.
 */
static void groups_fold(struct hist_report *r, enum group_by by,
			const struct tsa_hist_snap *cur, int first,
			const struct tsa_hview *v, size_t n)
{
	struct tsa_hview *acc;
	struct hcall *hc = NULL;
	char key[4096];
	size_t i, j, k, g, nm = 0, nc = 0, c = 0;
	uint64_t who_ns, who_wait;
	int s;

	group_table_reset(&r->t);
	procs_build(r, cur);
	if (n > r->mcap) {
		r->mcap = n;
		r->m = xrealloc(r->m, r->mcap * sizeof(*r->m));
	}
	for (i = 0; i < n; i = j) {
		const struct hproc *p = procs_find(r, v[i].pid);

		j = who_end(v, n, i);
		part_key(r, by, v[i].pid, v[i].tid, key, sizeof(key));
		g = group_add(&r->t, key);
		r->t.g[g].uid = p ? p->uid : 0;
		r->m[nm++] = (struct hmember){ g, v[i].pid, v[i].tid, i, j };
	}
	if (by == GROUP_CGROUP)
		cgroup_cache_swap(&r->cc);
	qsort(r->m, nm, sizeof(*r->m), cmp_member);
	acc = xmalloc(r->t.n * TSA_NSTATES * sizeof(*acc));
	memset(acc, 0, r->t.n * TSA_NSTATES * sizeof(*acc));
	hc = xmalloc((n ? n : 1) * sizeof(*hc));
	for (i = 0; i < nm; i++) {
		const struct hmember *m = &r->m[i];

		if (!i || m->group != m[-1].group || m->pid != m[-1].pid)
			r->t.g[m->group].nprocs++;
		r->t.g[m->group].nlwps += m->tid != 0;
		for (k = m->from; k < m->to; k++) {
			if (v[k].state == TSA_HIST_CALL)
				hc[nc++] = (struct hcall){ m->group, &v[k] };
			else
				tsa_hist_fold(&acc[m->group * TSA_NSTATES +
						   v[k].state], &v[k]);
		}
	}
	qsort(hc, nc, sizeof(*hc), cmp_hcall);
	r->n = 0;
	if (r->t.n * TSA_NSTATES + nc > r->cap) {
		r->cap = r->t.n * TSA_NSTATES + nc;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	for (g = 0; g < r->t.n; g++) {
		size_t from = r->n;

		who_ns = who_wait = 0;
		for (s = 0; s < TSA_NSTATES; s++) {
			struct tsa_hview *x = &acc[g * TSA_NSTATES + s];

			if (!x->count)
				continue;
			x->state = s;
			x->group = g + 1;
			x->first = first;
			who_ns += x->ns;
			if (s != S_IDL && s != S_SLP && s != S_STP)
				who_wait += x->ns;
			r->v[r->n++] = *x;
		}
		/* Its calls: each name's lines folded into one. */
		for (; c < nc && hc[c].group == g; c = i) {
			struct tsa_hview *x = &r->v[r->n++];

			memset(x, 0, sizeof(*x));
			for (i = c; i < nc && hc[i].group == g &&
			     !view_call_cmp(hc[c].v, hc[i].v); i++)
				tsa_hist_fold(x, hc[i].v);
			x->state = TSA_HIST_CALL;
			x->call = hc[c].v->call;
			x->call_len = hc[c].v->call_len;
			x->group = g + 1;
			x->first = first;
		}
		for (k = from; k < r->n; k++) {
			r->v[k].who_ns = who_ns;
			r->v[k].who_wait = who_wait;
		}
	}
	free(acc);
	free(hc);
	tsa_hist_sort(r->v, r->n);
}

void hist_report_compute(struct hist_report *r, const struct show *o,
			 const struct tsa_hist_snap *prev,
			 const struct tsa_hist_snap *cur)
{
	enum group_by by = o->group_by < 0 ? GROUP_PID :
			   (enum group_by)o->group_by;

	if (by == GROUP_PID) {	/* the process view */
		r->n = tsa_hist_compute(prev, cur, o->lwps, o->pids, o->npids,
					&r->v, &r->cap);
		return;
	}
	r->pn = tsa_hist_compute(prev, cur, TSA_HIST_PARTS, o->pids,
				 o->npids, &r->parts, &r->partcap);
	groups_fold(r, by, cur, !prev, r->parts, r->pn);
}

void hist_report_free(struct hist_report *r)
{
	group_table_free(&r->t);
	free(r->m);
	free(r->procs);
	tsa_index_free(&r->pids);
	free(r->v);
	free(r->parts);
	cgroup_cache_free(&r->cc);
	memset(r, 0, sizeof(*r));
}

/* ---- printing --------------------------------------------------------- */

/* The name of the thread, process or group of line @x. */
static void line_name(const struct show *o, const struct hist_report *r,
		      const struct tsa_hview *x, char *out, size_t len)
{
	char comm[64];

	if (x->group) {
		strip_comm(out, len, group_key(&r->t, x->group - 1));
		return;
	}
	who_comm(r, x->pid, o->lwps ? x->tid : 0, comm, sizeof(comm));
	if (o->lwps)
		snprintf(out, len, "%s/%llu", comm, (unsigned long long)x->tid);
	else
		snprintf(out, len, "%s", comm);
}

/* The range of bucket @b as runqlat prints its rows, "3.90ms -> 7.81ms". */
static void bucket_range(char *out, size_t len, struct tsa_hbounds k,
			 int b)
{
	char lo[24], hi[24];

	if (b)
		format_dur(lo, tsa_hist_edge(k, b - 1));
	else
		snprintf(lo, sizeof(lo), "0");
	if (b < TSA_HIST_NB - 1)
		format_dur(hi, tsa_hist_edge(k, b));
	else
		snprintf(hi, sizeof(hi), "...");
	snprintf(out, len, "%6s -> %-6s", lo, hi);
}

#define DRAW_WIDTH	40

/*
 * What line @x is of: "LAT", or a call's name with "()": "read()"; the
 * calls without a row of their own, "other".
 */
static const char *line_what(const struct tsa_hview *x, char *buf, size_t len)
{
	if (x->state != TSA_HIST_CALL)
		return tsa_state_name[x->state];
	snprintf(buf, len, "%.*s%s", x->call_len, x->call,
		 x->call_len == 5 && !memcmp(x->call, "other", 5) ? "" : "()");
	return buf;
}

/*
 * --draw: line @x's buckets from its first stay's to its last's, each
 * with a bar as long as its count against the fullest's (runqlat's
 * layout); a bucket with a stay gets at least one star.
 */
static void draw_line(FILE *f, const struct tsa_hist_snap *cur,
		      const struct tsa_hview *x, const char *name)
{
	char p50[24], p99[24], max[24], ns[24], range[64], what[80];
	char bar[DRAW_WIDTH + 1];
	uint64_t top = 0;
	int b, lo = -1, hi = -1, w;

	for (b = 0; b < TSA_HIST_NB; b++) {
		if (!x->b[b])
			continue;
		if (lo < 0)
			lo = b;
		hi = b;
		if (x->b[b] > top)
			top = x->b[b];
	}
	format_dur(p50, tsa_hist_quantile(x, cur->bounds, 0.5));
	format_dur(p99, tsa_hist_quantile(x, cur->bounds, 0.99));
	format_dur(max, x->max);
	format_dur(ns, x->ns);
	fprintf(f, "%s %s: %llu %s ended, %s; p50 %s p99 %s max %s%s\n",
		name, line_what(x, what, sizeof(what)),
		(unsigned long long)x->count,
		x->state == TSA_HIST_CALL ? "calls" : "stays", ns, p50, p99,
		x->max_exact ? "" : "<", max);
	fprintf(f, "%18s : %-10s distribution\n", "range", "count");
	for (b = lo; b >= 0 && b <= hi; b++) {
		w = (int)((x->b[b] * DRAW_WIDTH + top - 1) / top);
		memset(bar, '*', (size_t)w);
		memset(bar + w, ' ', (size_t)(DRAW_WIDTH - w));
		bar[DRAW_WIDTH] = '\0';
		bucket_range(range, sizeof(range), cur->bounds, b);
		fprintf(f, "%18s : %-10llu |%s|\n", range,
			(unsigned long long)x->b[b], bar);
	}
}

void hist_print(FILE *f, const struct show *o,
		const struct tsa_hist_snap *cur, double secs,
		const struct hist_report *r)
{
	char name[4200], p50[24], p90[24], p99[24], dur[24], max[26], ns[24];
	char cnt[24], who[24], what[80];
	const struct tsa_hview *v = r->v;
	size_t i, j, whos = 0, shown = 0, n = r->n;
	int grouped = o->group_by > GROUP_PID;

	if (!o->draw && grouped)
		fprintf(f, " NPROC  NLWP %-5s %7s %7s %7s %7s %7s %8s %4s %s\n",
			"STATE", "COUNT", "TIME", "P50", "P90", "P99", "MAX",
			"OPEN", group_title((enum group_by)o->group_by));
	else if (!o->draw)
		fprintf(f, "%6s %5s %-5s %7s %7s %7s %7s %7s %8s %4s %s\n",
			"PID", o->lwps ? "LWPID" : "", "STATE", "COUNT", "TIME",
			"P50", "P90", "P99", "MAX", "OPEN",
			o->lwps ? "PROCESS/LWPID" : "PROCESS");
	for (i = 0; i < n; i = j) {
		j = who_end(v, n, i);
		whos++;
		if (o->ntop && shown >= (size_t)o->ntop)
			continue;
		shown++;
		line_name(o, r, &v[i], name, sizeof(name));
		for (size_t k = i; k < j; k++) {
			const struct tsa_hview *x = &v[k];

			if (o->draw) {
				if (k > i || shown > 1)
					fputc('\n', f);
				draw_line(f, cur, x, name);
				continue;
			}
			format_dur(p50, tsa_hist_quantile(x, cur->bounds, 0.5));
			format_dur(p90, tsa_hist_quantile(x, cur->bounds, 0.9));
			format_dur(p99, tsa_hist_quantile(x, cur->bounds, 0.99));
			format_dur(ns, x->ns);
			format_count(cnt, x->count);
			format_dur(dur, x->max);
			snprintf(max, sizeof(max), "%s%s",
				 x->max_exact ? "" : "<", dur);
			if (grouped) {
				const struct tsa_group *g =
					&r->t.g[x->group - 1];

				fprintf(f, "%6lu %5lu ", g->nprocs, g->nlwps);
			} else {
				snprintf(who, sizeof(who), "%llu",
					 (unsigned long long)x->tid);
				fprintf(f, "%6llu %5s ",
					(unsigned long long)x->pid,
					o->lwps ? who : "");
			}
			/* A call: SCL, its name after the name's. */
			fprintf(f, "%-5s %7s %7s %7s %7s %7s %8s %4llu %s",
				x->state == TSA_HIST_CALL ? "SCL" :
				tsa_state_name[x->state], cnt, ns,
				x->count ? p50 : "-", x->count ? p90 : "-",
				x->count ? p99 : "-", x->max ? max : "-",
				(unsigned long long)x->open, name);
			if (x->state == TSA_HIST_CALL)
				fprintf(f, " %s",
					line_what(x, what, sizeof(what)));
			fputc('\n', f);
		}
	}
	if (o->draw)
		fputc('\n', f);
	fprintf(f, "Total: %zu %s with stays off CPU%s", whos,
		grouped ? "groups" : o->lwps ? "threads" : "processes",
		shown < whos ? " (the busiest shown)" : "");
	if (secs > 0)
		fprintf(f, ", over %.2f s\n", secs);
	else
		fputs(", since each began\n", f);
}

void hist_print_json(FILE *f, const struct show *o,
		     const struct tsa_hist_snap *cur,
		     const struct hist_report *r)
{
	const struct tsa_hview *v = r->v;
	struct timespec ts;
	struct jsonw w;
	size_t i, j, shown = 0, n = r->n;
	char comm[64];
	int b;

	clock_gettime(CLOCK_REALTIME, &ts);
	for (i = 0; i < n; i = j) {
		j = who_end(v, n, i);
		if (o->ntop && shown++ >= (size_t)o->ntop)
			continue;
		json_begin(&w, f);
		jw_time(&w, "ts", &ts);
		jw_u64(&w, "now", cur->now);
		if (v[i].group) {
			const struct tsa_group *g = &r->t.g[v[i].group - 1];

			jw_str(&w, "group", group_by_name[o->group_by]);
			if (o->group_by == GROUP_USER)
				jw_u64(&w, "uid", g->uid);
			jw_str(&w, "name", group_key(&r->t, v[i].group - 1));
			jw_u64(&w, "nproc", g->nprocs);
			jw_u64(&w, "nlwp", g->nlwps);
		} else {
			jw_u64(&w, "pid", v[i].pid);
			if (o->lwps)
				jw_u64(&w, "tid", v[i].tid);
			who_comm(r, v[i].pid, o->lwps ? v[i].tid : 0, comm,
				 sizeof(comm));
			json_name(&w, "comm", comm);
		}
		jw_bool(&w, "first", v[i].first);
		/* Where the buckets end: bucket b at 2^(b + exp) units. */
		jw_i64(&w, "buckets_exp", cur->bounds.exp);
		jw_str(&w, "buckets_unit", cur->bounds.ns ? "ns" : "s");
		jw_array(&w, "hists");
		for (size_t k = i; k < j; k++) {
			const struct tsa_hview *x = &v[k];

			jw_object(&w, NULL);
			if (x->state == TSA_HIST_CALL) {
				char call[80];

				snprintf(call, sizeof(call), "%.*s",
					 x->call_len, x->call);
				jw_str(&w, "call", call);
			} else {
				jw_str(&w, "state", tsa_state_name[x->state]);
			}
			jw_u64(&w, "count", x->count);
			jw_u64(&w, "ns", x->ns);
			jw_u64(&w, "p50_ns",
			       tsa_hist_quantile(x, cur->bounds, 0.5));
			jw_u64(&w, "p90_ns",
			       tsa_hist_quantile(x, cur->bounds, 0.9));
			jw_u64(&w, "p99_ns",
			       tsa_hist_quantile(x, cur->bounds, 0.99));
			jw_u64(&w, "max_ns", x->max);
			jw_bool(&w, "max_exact", x->max_exact);
			jw_u64(&w, "open", x->open);
			jw_array(&w, "buckets");
			for (b = 0; b < TSA_HIST_NB; b++)
				jw_u64(&w, NULL, x->b[b]);
			jw_close(&w);	/* buckets */
			jw_close(&w);	/* the state's object */
		}
		jw_end_line(&w);
	}
}
