// SPDX-License-Identifier: GPL-2.0
/*
 * exporter/scrape.c - one scrape: the module's files read once, each
 * group's series written by view/metrics.c in both formats, the top
 * edges waker group -> woken group, then the exporter's own health. A cap on series (--max-series) keeps the groups
 * with the most time and drops whole groups beyond it, never part of
 * one, so that no group's states stop adding up; the health says how
 * many series were dropped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "all.h"
#include "calib.h"
#include "hist.h"
#include "scrape.h"
#include "util.h"
#include "wakers.h"

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Samples in a text: its lines that are not comments. */
static uint64_t samples(const char *t, size_t len)
{
	const char *p = t, *end = t + len;
	uint64_t n = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		n += *p != '#';
		p = nl ? nl + 1 : end;
	}
	return n;
}

struct groups {
	enum group_by by;
	struct tsa_group *g;
	struct metrics_hist *mh;	/* NULL: no distributions */
	struct tsa_hbounds bounds;
};

/* The first @n groups of @gs in @fmt, into a malloc'ed text. */
static char *render(const struct groups *gs, size_t n,
		    enum metrics_format fmt, size_t *len)
{
	char *t = NULL;
	FILE *f = open_memstream(&t, len);

	if (!f)
		die(EXIT_BADDATA, "open_memstream: %s", strerror(errno));
	metrics_print(f, fmt, gs->by, gs->g, n, gs->mh, gs->bounds);
	if (fclose(f))
		die(EXIT_BADDATA, "open_memstream: %s", strerror(errno));
	return t;
}

static uint64_t total_ns(const struct tsa_group *g)
{
	uint64_t t = 0;
	int s;

	for (s = 0; s < TSA_NSTATES; s++)
		t += g->ns[s];
	return t;
}

static int by_time(const void *a, const void *b, void *arg)
{
	const struct groups *gs = arg;
	uint64_t x = total_ns(&gs->g[*(const size_t *)a]);
	uint64_t y = total_ns(&gs->g[*(const size_t *)b]);

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * Reorder @gs's @n groups by their time, most first, and return how
 * many of them fit in @max samples (all when @max is 0 or they fit).
 * When all do, *@text is their Prometheus text (*@len bytes), which
 * had to be written to count them: the scrape uses it; else NULL.
 */
static size_t fit(struct groups *gs, size_t n, size_t max, uint64_t *all,
		  char **text, size_t *len)
{
	struct tsa_group *g = xmalloc((n + 1) * sizeof(*g));
	struct metrics_hist *mh = gs->mh ? xmalloc((n + 1) * sizeof(*mh)) : NULL;
	size_t *ix = xmalloc((n + 1) * sizeof(*ix)), i, lo, hi;
	char *t;

	*text = render(gs, n, METRICS_PROMETHEUS, len);
	*all = samples(*text, *len);
	if (!max || *all <= max) {
		free(g);
		free(mh);
		free(ix);
		return n;
	}
	free(*text);
	*text = NULL;
	for (i = 0; i < n; i++)
		ix[i] = i;
	qsort_r(ix, n, sizeof(*ix), by_time, gs);
	for (i = 0; i < n; i++) {
		g[i] = gs->g[ix[i]];
		if (mh)
			mh[i] = gs->mh[ix[i]];
	}
	memcpy(gs->g, g, n * sizeof(*g));
	if (mh)
		memcpy(gs->mh, mh, n * sizeof(*mh));
	/* The most groups whose samples fit: lo fits, hi does not. */
	for (lo = 0, hi = n; hi - lo > 1;) {
		size_t mid = lo + (hi - lo) / 2;

		size_t tlen;

		t = render(gs, mid, METRICS_PROMETHEUS, &tlen);
		if (samples(t, tlen) <= max)
			lo = mid;
		else
			hi = mid;
		free(t);
	}
	free(g);
	free(mh);
	free(ix);
	return lo;
}

static void family(FILE *f, enum metrics_format fmt, const char *name,
		   const char *type, const char *help)
{
	int counter = !strcmp(type, "counter");

	/* OpenMetrics names a counter's family without its _total. */
	fprintf(f, "# HELP %s%s %s\n", name,
		counter && fmt == METRICS_PROMETHEUS ? "_total" : "", help);
	fprintf(f, "# TYPE %s%s %s\n", name,
		counter && fmt == METRICS_PROMETHEUS ? "_total" : "", type);
}

/* The woken group's labels of an edge, as the groups' series name it. */
static void edge_labels(FILE *f, enum group_by by, const char *group)
{
	static const char *const key[GROUP_NBY] = {
		[GROUP_PID] = "pid", [GROUP_CGROUP] = "cgroup",
		[GROUP_USER] = "user", [GROUP_COMM] = "comm",
	};

	fprintf(f, "%s=\"", key[by]);
	metrics_label_value(f, group);
	fputc('"', f);
}

static int by_edge_time(const void *a, const void *b)
{
	const struct tsa_wview *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

/*
 * The edges waker group -> woken group of /proc/tsa/wakers over each
 * thread's life, the @c->waker_edges with the most time: their time,
 * wakeups and the LAT after, as gauges (a row that gives its place to
 * another waker moves its numbers to waker="other", so an edge can go
 * down: not a counter). @r: the grouped report (its "none" lines are
 * left out and the rest reordered here, once for both formats).
 */
static void edges_print(FILE *f, enum metrics_format fmt,
			const struct scrape_conf *c,
			struct tsa_wakers_report *r, struct scrape_out *o)
{
	static const char *const name[3] = {
		"tsa_waker_seconds", "tsa_waker_wakeups",
		"tsa_waker_lat_seconds",
	};
	static const char *const help[3] = {
		"Time of the stays asleep and stopped (by state) that a waker "
		"group's wakeups ended for a group's threads, over their "
		"lives; a waker beyond a thread's rows counts as waker=\"other\"",
		"Wakeups of a group's threads that ended such a stay, by "
		"waker group",
		"Run-queue latency that followed those wakeups",
	};
	size_t i, n = 0, k;

	for (i = 0; i < r->n; i++)		/* wakers only, not "none" */
		if (r->v[i].state >= 0 || !strcmp(r->v[i].kind, "other"))
			r->v[n++] = r->v[i];
	r->n = n;	/* each format's call sees the same edges */
	qsort(r->v, n, sizeof(*r->v), by_edge_time);
	k = n < c->waker_edges ? n : c->waker_edges;
	o->edges = k;
	o->edges_dropped = n - k;
	for (int m = 0; m < 3 && k; m++) {
		family(f, fmt, name[m], "gauge", help[m]);
		for (i = 0; i < k; i++) {
			const struct tsa_wview *x = &r->v[i];

			fprintf(f, "%s{", name[m]);
			edge_labels(f, c->by, x->group);
			fputs(",waker=\"", f);
			metrics_label_value(f, x->kind);
			fprintf(f, "\",state=\"%s\"} ", x->state >= 0 ?
				tsa_state_name[x->state] : "");
			if (m == 1)
				fprintf(f, "%" PRIu64 "\n", x->n);
			else
				fprintf(f, "%.9f\n",
					(double)(m ? x->lat : x->ns) / 1e9);
		}
	}
}

/* What the health says of the module, read once a scrape. */
struct module_info {
	char version[64], calib[16];
	uint64_t bytes;		/* read from its files */
};

static void module_info_read(const struct scrape_conf *c,
			     struct module_info *mi)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/version", c->sys_module);
	if (read_line(path, mi->version, sizeof(mi->version)))
		snprintf(mi->version, sizeof(mi->version), "unknown");
	tsa_calib_state(c->proc_dir, mi->calib, sizeof(mi->calib));
	if (!mi->calib[0])
		snprintf(mi->calib, sizeof(mi->calib), "unknown");
}

/* The exporter's own series, after the groups' (before # EOF). */
static void health(FILE *f, enum metrics_format fmt,
		   const struct scrape_health *h, const struct scrape_out *o,
		   const struct module_info *mi)
{
	family(f, fmt, "tsa_up", "gauge",
	       "1 when the last read of the module's /proc/tsa/all succeeded");
	fprintf(f, "tsa_up %d\n", o->up);
	family(f, fmt, "tsa_module_info", "gauge",
	       "tsa.ko's version and calibration state (applied: SYS has the "
	       "kernel's entry and exit paths; tsa(4))");
	fputs("tsa_module_info{version=\"", f);
	metrics_label_value(f, mi->version);
	fputs("\",calibration=\"", f);
	metrics_label_value(f, mi->calib);
	fputs("\"} 1\n", f);
	if (o->load_time > 0) {
		family(f, fmt, "tsa_module_load_time_seconds", "gauge",
		       "When tsa.ko was loaded, in Unix seconds, as the start "
		       "of the threads tracked since its load says it; a "
		       "later one is a reload, where every count starts "
		       "again (tsa-exporter(8))");
		fprintf(f, "tsa_module_load_time_seconds %.3f\n",
			o->load_time);
	}
	family(f, fmt, "tsa_exporter_build_info", "gauge",
	       "tsa-exporter's version");
	fprintf(f, "tsa_exporter_build_info{version=\"%s\"} 1\n",
		TSA_PRSTAT_VERSION);
	family(f, fmt, "tsa_exporter_scrape_duration_seconds", "gauge",
	       "How long this scrape's read of the module's files and its "
	       "writing took");
	fprintf(f, "tsa_exporter_scrape_duration_seconds %.6f\n", o->secs);
	family(f, fmt, "tsa_exporter_read_bytes", "gauge",
	       "Bytes this scrape read from the module's files");
	fprintf(f, "tsa_exporter_read_bytes %" PRIu64 "\n", mi->bytes);
	family(f, fmt, "tsa_exporter_reads", "counter",
	       "Reads of the module's files (concurrent scrapes share one)");
	fprintf(f, "tsa_exporter_reads_total %" PRIu64 "\n", h->reads);
	family(f, fmt, "tsa_exporter_read_errors", "counter",
	       "Reads of the module's files that failed");
	fprintf(f, "tsa_exporter_read_errors_total %" PRIu64 "\n",
		h->read_errors);
	family(f, fmt, "tsa_exporter_scrape_timeouts", "counter",
	       "Scrapes answered 503 because the read they waited for took "
	       "longer than their time limit");
	fprintf(f, "tsa_exporter_scrape_timeouts_total %" PRIu64 "\n",
		__atomic_load_n(&h->timeouts, __ATOMIC_RELAXED));
	family(f, fmt, "tsa_exporter_series", "gauge",
	       "Group series in this scrape");
	fprintf(f, "tsa_exporter_series %" PRIu64 "\n", o->series);
	family(f, fmt, "tsa_exporter_series_dropped", "gauge",
	       "Group series left out of this scrape by --max-series (whole "
	       "groups, those with the least time)");
	fprintf(f, "tsa_exporter_series_dropped %" PRIu64 "\n", o->dropped);
	family(f, fmt, "tsa_exporter_waker_edges", "gauge",
	       "Waker -> woken group edges in this scrape");
	fprintf(f, "tsa_exporter_waker_edges %" PRIu64 "\n", o->edges);
	family(f, fmt, "tsa_exporter_waker_edges_dropped", "gauge",
	       "Waker -> woken group edges left out of this scrape by "
	       "--waker-edges (those with the least time)");
	fprintf(f, "tsa_exporter_waker_edges_dropped %" PRIu64 "\n",
		o->edges_dropped);
	if (fmt == METRICS_OPENMETRICS)
		fputs("# EOF\n", f);
}

void scrape_run(const struct scrape_conf *c, struct scrape_health *h,
		struct scrape_out *o)
{
	double t0 = mono();
	struct tsa_snap s;
	struct tsa_hist_snap hs;
	struct tsa_wakers_snap ws;
	struct tsa_wakers_report wr;
	int have_edges = 0;
	struct group_table t;
	struct groups gs;
	struct module_info mi = { .bytes = 0 };
	char path[4096], msg[256], *prom = NULL;
	long *proc_group = NULL;
	uint64_t all = 0, load;
	size_t n = 0, k = 0, plen = 0;
	int fmt, rc;

	memset(o, 0, sizeof(*o));
	memset(&s, 0, sizeof(s));
	memset(&hs, 0, sizeof(hs));
	memset(&ws, 0, sizeof(ws));
	memset(&wr, 0, sizeof(wr));
	memset(&t, 0, sizeof(t));
	memset(&gs, 0, sizeof(gs));
	gs.by = c->by;
	h->reads++;
	snprintf(path, sizeof(path), "%s/all", c->proc_dir);
	rc = tsa_snap_read(&s, path, msg, sizeof(msg));
	if (rc == TSA_OK) {
		o->up = 1;
		mi.bytes = s.len;
		proc_group = xmalloc((s.nprocs + 1) * sizeof(*proc_group));
		group_compute(&s, c->by, c->pids, c->npids, c->procfs, NULL,
			      &t, proc_group);
		snprintf(path, sizeof(path), "%s/hist", c->proc_dir);
		rc = tsa_hist_read(&hs, path, msg, sizeof(msg));
		if (rc == TSA_OK) {
			mi.bytes += hs.len;
			gs.bounds = hs.bounds;
		} else if (rc != TSA_ENOENT) {
			/* The states without their distributions: said. */
			h->read_errors++;
			snprintf(o->err, sizeof(o->err), "%s: %s", path, msg);
		}
		/* The groups as the ledger keeps them: never going down. */
		n = ledger_update(&h->ledger, &s, rc == TSA_OK ? &hs : NULL,
				  c->pids, c->npids, &t, proc_group, mono(),
				  &gs.g, &gs.mh);
		load = ledger_load_time(&s);
		if (load && load <= s.now)
			o->load_time = (double)s.wall.tv_sec +
				       (double)s.wall.tv_nsec / 1e9 -
				       (double)(s.now - load) / 1e9;
		k = fit(&gs, n, c->max_series, &all, &prom, &plen);
		snprintf(path, sizeof(path), "%s/wakers", c->proc_dir);
		rc = c->waker_edges ? tsa_wakers_read(&ws, path, msg,
						      sizeof(msg)) :
		     TSA_ENOENT;
		if (rc == TSA_OK) {
			mi.bytes += ws.len;
			tsa_wakers_compute(&wr, NULL, &ws, 2, c->pids,
					   c->npids);
			/* Wakers by the groups of the same read. */
			struct tsa_wnames nm = { c->procfs, &s, NULL, NULL };

			tsa_wakers_group(&wr, c->by, &nm);
			have_edges = 1;
		} else if (rc != TSA_ENOENT) {
			h->read_errors++;
			snprintf(o->err, sizeof(o->err), "%s: %s", path, msg);
		}
	} else {
		h->read_errors++;
		snprintf(o->err, sizeof(o->err), "%s: %s", path, msg);
	}
	module_info_read(c, &mi);
	for (fmt = METRICS_PROMETHEUS; fmt <= METRICS_OPENMETRICS; fmt++) {
		char *text = fmt == METRICS_PROMETHEUS && prom ? prom :
			     render(&gs, k, (enum metrics_format)fmt, &plen);
		size_t len = plen;
		FILE *f;

		if (fmt == METRICS_PROMETHEUS) {
			o->series = samples(text, len);
			o->dropped = all - o->series;
		}
		/* Its # EOF comes after the health. */
		if (fmt == METRICS_OPENMETRICS && len >= 6 &&
		    !memcmp(text + len - 6, "# EOF\n", 6))
			len -= 6;
		f = open_memstream(&o->text[fmt], &o->len[fmt]);
		if (!f)
			die(EXIT_BADDATA, "open_memstream: %s", strerror(errno));
		fwrite(text, 1, len, f);
		if (have_edges)
			edges_print(f, (enum metrics_format)fmt, c, &wr, o);
		o->secs = mono() - t0;
		health(f, (enum metrics_format)fmt, h, o, &mi);
		if (fclose(f))
			die(EXIT_BADDATA, "open_memstream: %s", strerror(errno));
		free(text);
	}
	free(proc_group);
	tsa_wakers_report_free(&wr);
	tsa_wakers_free(&ws);
	tsa_hist_free(&hs);
	group_table_free(&t);
	tsa_snap_free(&s);
}

void scrape_out_free(struct scrape_out *o)
{
	free(o->text[0]);
	free(o->text[1]);
	memset(o, 0, sizeof(*o));
}
