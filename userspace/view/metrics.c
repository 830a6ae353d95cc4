// SPDX-License-Identifier: GPL-2.0
/*
 * view/metrics.c - one snapshot as Prometheus or OpenMetrics text.
 *
 * Families are named tsa_<group>_<what>, where <group> is process,
 * cgroup, user or threadname (--group), so that one family always has
 * the same labels.  Counters end in _total; times are in seconds with
 * every nanosecond kept (nine decimals), since rates of exact numbers
 * should stay exact.  The two formats differ only in the metadata:
 * Prometheus text names the family by its samples' name
 * ("# TYPE tsa_process_state_seconds_total counter"), OpenMetrics by
 * the name without _total, adds # UNIT and ends with "# EOF".
 *
 * Labels are the group's (pid, comm and user for a process; cgroup,
 * user or comm otherwise) and, where a family has them, state or kind:
 * never a thread id, so that the series are bounded by the processes
 * (or groups) and not by threads that come and go.
 */
#include <inttypes.h>
#include <string.h>

#include "metrics.h"
#include "util.h"

/* The prefix of each kind of group, and the word in the help text. */
static const char *const prefix[GROUP_NBY] = {
	"tsa_process", "tsa_cgroup", "tsa_user", "tsa_threadname",
};

static const char *const what[GROUP_NBY] = {
	"process", "cgroup", "user", "thread name (trailing number folded)",
};

void metrics_label_value(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	while (*s) {
		if (*s == '\\' || *s == '"') {
			fputc('\\', f);
			fputc(*s++, f);
		} else if (*s == '\n') {
			fputs("\\n", f);
			s++;
		} else if (*s < 0x20 || *s == 0x7f ||
			   (n = utf8_len(s)) == 0) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			s++;
		} else {
			fwrite(s, 1, (size_t)n, f);
			s += n;
		}
	}
}

/* The group's own labels, without braces. */
static void group_labels(FILE *f, enum group_by by, const struct tsa_group *g)
{
	switch (by) {
	case GROUP_PID:
		fprintf(f, "pid=\"%" PRIu64 "\",comm=\"", g->pid);
		metrics_label_value(f, g->comm ? g->comm : "");
		fputs("\",user=\"", f);
		metrics_label_value(f, user_name((uid_t)g->uid));
		break;
	case GROUP_CGROUP:
		fputs("cgroup=\"", f);
		metrics_label_value(f, g->key);
		break;
	case GROUP_USER:
		fputs("user=\"", f);
		metrics_label_value(f, g->key);
		break;
	default:
		fputs("comm=\"", f);
		metrics_label_value(f, g->key);
		break;
	}
	fputc('"', f);
}

/*
 * A family's metadata.  @name is without _total; @counter adds it to
 * the samples; @unit ("seconds" or NULL) is OpenMetrics' # UNIT.
 */
static void family(FILE *f, enum metrics_format fmt, enum group_by by,
		   const char *name, int counter, const char *unit,
		   const char *help)
{
	const char *sfx = counter && fmt == METRICS_PROMETHEUS ? "_total" : "";

	fprintf(f, "# HELP %s_%s%s %s, per %s.\n", prefix[by], name, sfx,
		help, what[by]);
	fprintf(f, "# TYPE %s_%s%s %s\n", prefix[by], name, sfx,
		counter ? "counter" : "gauge");
	if (unit && fmt == METRICS_OPENMETRICS)
		fprintf(f, "# UNIT %s_%s %s\n", prefix[by], name, unit);
}

/* One sample's name and labels, up to the space before the value. */
static void sample(FILE *f, enum group_by by, const struct tsa_group *g,
		   const char *name, int counter, const char *label,
		   const char *value)
{
	fprintf(f, "%s_%s%s{", prefix[by], name, counter ? "_total" : "");
	group_labels(f, by, g);
	if (label)
		fprintf(f, ",%s=\"%s\"", label, value);
	fputs("} ", f);
}

static void seconds(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64 "\n", ns / 1000000000,
		ns % 1000000000);
}

static void count(FILE *f, uint64_t v)
{
	fprintf(f, "%" PRIu64 "\n", v);
}

/* A counter family with one sample per group (and per @label value). */
struct cfam {
	const char *name, *help, *label;
	const char *values[2];		/* label values */
	int cnt[2];			/* the counters they show */
};

static const struct cfam cfams[] = {
	{ "context_switches", "Context switches (voluntary: the thread "
	  "slept; involuntary: it was preempted)", "kind",
	  { "voluntary", "involuntary" }, { C_VCX, C_ICX } },
	{ "syscalls", "System calls made", NULL, { NULL }, { C_SCL, -1 } },
	{ "signals", "Signals delivered", NULL, { NULL }, { C_SIG, -1 } },
	{ "page_faults", "Page faults, minor and major, as the kernel "
	  "counts them", "kind", { "minor", "major" }, { C_MINF, C_MAJF } },
	{ "migrations", "Times a thread started running on another CPU "
	  "than the one it last ran on", NULL, { NULL }, { C_MIG, -1 } },
};

void metrics_hist_compute(const struct tsa_snap *s,
			  const struct tsa_hist_snap *h, enum group_by by,
			  const uint64_t *pids, size_t npids,
			  const long *proc_group, const struct group_table *t,
			  struct metrics_hist *mh)
{
	struct group_who w;
	char key[4096];
	size_t i;
	long gi;
	int b;

	memset(mh, 0, t->n * sizeof(*mh));
	for (i = 0; i < h->n; i++) {
		const struct tsa_hline *l = &h->l[i];
		const struct tsa_proc *p = tsa_snap_proc(s, l->pid);
		const struct tsa_row *r = NULL;
		int st = l->state;

		/* States only: a call's line has no series of its own. */
		if (!l->has_b || st < 0 || !p || !p->nlwp ||
		    !tsa_pid_selected(pids, npids, l->pid))
			continue;
		if (l->tid) {
			r = tsa_snap_thread(s, l->tid);
			if (!r || r->v[F_PID] != l->pid)
				continue;
		}
		/*
		 * A process's group as group_compute() found it (its cgroup
		 * file is not read again); by name, the thread's.
		 */
		if (by == GROUP_COMM) {
			group_who_of(&w, s, p, r, r);
			group_key_of(key, sizeof(key), by, &w, NULL, NULL);
			gi = group_find(t, key);
		} else {
			gi = proc_group[p - s->procs];
		}
		if (gi < 0)
			continue;
		/* A stay in progress is not one of these yet. */
		mh[gi].sum_ns[st] += l->ns - l->open_ns;
		for (b = 0; b < TSA_HIST_NB; b++) {
			mh[gi].b[st][b] += l->b[b];
			mh[gi].count[st] += l->b[b];
		}
	}
}

/* Seconds, exactly, without a newline. */
static void seconds_le(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64, ns / 1000000000,
		ns % 1000000000);
}

/*
 * Bucket @b's upper bound in seconds, exactly, without a newline: the
 * same value a native histogram's power-of-two bound has. 2^-e is
 * 5^e / 10^e: e digits after the point (e <= 27: hist_header()).
 */
static void bound_le(FILE *f, struct tsa_hbounds k, int b)
{
	int e = b + k.exp, i;
	uint64_t p = 1;

	if (k.ns) {
		seconds_le(f, tsa_hist_edge(k, b));
		return;
	}
	if (e >= 0) {
		fprintf(f, "%" PRIu64, (uint64_t)1 << e);
		return;
	}
	for (i = 0; i < -e; i++)
		p *= 5;
	fprintf(f, "0.%0*" PRIu64, -e, p);
}

/*
 * tsa_<group>_stay_seconds: a classic histogram per group and state
 * with stays (at most 11 states, 30 series each: bounded by the groups).
 */
static void stay_histograms(FILE *f, enum metrics_format fmt,
			    enum group_by by, const struct tsa_group *g,
			    size_t n, const struct metrics_hist *mh,
			    struct tsa_hbounds k)
{
	const char *name = "stay_seconds";
	uint64_t run;
	size_t i;
	int s, b;

	fprintf(f, "# HELP %s_%s How long each stay of a thread in a state "
		"off CPU lasted, counted when it ended (/proc/tsa/hist), per %s.\n",
		prefix[by], name, what[by]);
	fprintf(f, "# TYPE %s_%s histogram\n", prefix[by], name);
	if (fmt == METRICS_OPENMETRICS)
		fprintf(f, "# UNIT %s_%s seconds\n", prefix[by], name);
	for (i = 0; i < n; i++)
		for (s = 0; s < TSA_NSTATES; s++) {
			if (!mh[i].count[s])
				continue;
			for (run = 0, b = 0; b < TSA_HIST_NB; b++) {
				run += mh[i].b[s][b];
				fprintf(f, "%s_%s_bucket{", prefix[by], name);
				group_labels(f, by, &g[i]);
				fprintf(f, ",state=\"%s\",le=\"",
					tsa_state_name[s]);
				if (b == TSA_HIST_NB - 1)
					fputs("+Inf", f);
				else
					bound_le(f, k, b);
				fprintf(f, "\"} %" PRIu64 "\n", run);
			}
			fprintf(f, "%s_%s_sum{", prefix[by], name);
			group_labels(f, by, &g[i]);
			fprintf(f, ",state=\"%s\"} ", tsa_state_name[s]);
			seconds(f, mh[i].sum_ns[s]);
			fprintf(f, "%s_%s_count{", prefix[by], name);
			group_labels(f, by, &g[i]);
			fprintf(f, ",state=\"%s\"} ", tsa_state_name[s]);
			count(f, mh[i].count[s]);
		}
}

void metrics_print(FILE *f, enum metrics_format fmt, enum group_by by,
		   const struct tsa_group *g, size_t n,
		   const struct metrics_hist *mh, struct tsa_hbounds bounds)
{
	size_t i, k;
	int s;

	family(f, fmt, by, "state_seconds", 1, "seconds",
	       "Time spent in each microstate by live and exited threads "
	       "(tsa(4); the states add up to elapsed_seconds)");
	for (i = 0; i < n; i++)
		for (s = 0; s < TSA_NSTATES; s++) {
			sample(f, by, &g[i], "state_seconds", 1, "state",
			       tsa_state_name[s]);
			seconds(f, g[i].ns[s]);
		}
	family(f, fmt, by, "elapsed_seconds", 1, "seconds",
	       "Sum of the elapsed times of live and exited threads since "
	       "their birth or the module's load");
	for (i = 0; i < n; i++) {
		sample(f, by, &g[i], "elapsed_seconds", 1, NULL, NULL);
		seconds(f, g[i].elapsed);
	}
	for (k = 0; k < sizeof(cfams) / sizeof(cfams[0]); k++) {
		const struct cfam *c = &cfams[k];

		family(f, fmt, by, c->name, 1, NULL, c->help);
		for (i = 0; i < n; i++)
			for (s = 0; s < 2 && c->cnt[s] >= 0; s++) {
				sample(f, by, &g[i], c->name, 1, c->label,
				       c->values[s]);
				count(f, g[i].cnt[c->cnt[s]]);
			}
	}
	family(f, fmt, by, "threads", 0, NULL, "Live threads");
	for (i = 0; i < n; i++) {
		sample(f, by, &g[i], "threads", 0, NULL, NULL);
		count(f, g[i].nlwps);
	}
	if (by != GROUP_PID) {
		family(f, fmt, by, "processes", 0, NULL,
		       "Processes with a live thread in the group");
		for (i = 0; i < n; i++) {
			sample(f, by, &g[i], "processes", 0, NULL, NULL);
			count(f, g[i].nprocs);
		}
	}
	if (mh)
		stay_histograms(f, fmt, by, g, n, mh, bounds);
	if (fmt == METRICS_OPENMETRICS)
		fputs("# EOF\n", f);
}
