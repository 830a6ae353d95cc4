// SPDX-License-Identifier: GPL-2.0
/*
 * model/hist.c - /proc/tsa/hist: parse a snapshot, and compute the lines of
 * the distributions view from two (see model/hist.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "hist.h"

/* The columns this reader knows, by their "fields" names. */
enum hfield {
	HF_TID, HF_PID, HF_FLAGS, HF_ELAPSED, HF_AT, HF_STATE, HF_N, HF_NS,
	HF_MAX, HF_MAX_AT, HF_OPEN, HF_OPEN_NS,
	HF_UID,			/* known, not required */
	HF_B0,
	HF_NUM = HF_B0 + TSA_HIST_NB,
	HF_SKIP = -1		/* a column this reader does not know */
};

#define MAX_HCOLUMNS	128

static const char *const hfield_name[HF_B0] = {
	"tid", "pid", "flags", "elapsed", "at", "state", "n", "ns", "max",
	"max_at", "open", "open_ns", "uid",
};

static int hfield_index(const char *name, size_t len)
{
	char *end;
	long b;
	int i;

	for (i = 0; i < HF_B0; i++)
		if (strlen(hfield_name[i]) == len &&
		    !strncmp(name, hfield_name[i], len))
			return i;
	if (len >= 2 && name[0] == 'b') {
		b = strtol(name + 1, &end, 10);
		if (end == name + len && b >= 0 && b < TSA_HIST_NB)
			return HF_B0 + (int)b;
	}
	return HF_SKIP;
}

int tsa_hist_read(struct tsa_hist_snap *s, const char *path,
		  char *msg, size_t msglen)
{
	int rc = tsa_read_file(path, &s->buf, &s->len, &s->cap, msg, msglen);

	if (rc != TSA_OK)
		return rc;
	return tsa_hist_parse(s, msg, msglen);
}

/*
 * A header line of tsa-hist: "buckets COUNT EXP", bucket b's bound being
 * 2^(b + EXP) s in version 2, 2^(b + EXP) ns in version 1 (this reader
 * knows TSA_HIST_NB buckets, and bounds from 2^-27 s (5^27 fits in 64
 * bits: metrics' le), or 1 ns, to what fits in 64 bits of ns;
 * s->buckets_seen says it came).
 */
static int hist_header(void *ctx, const char *line, size_t lineno,
		       char *msg, size_t msglen)
{
	struct tsa_hist_snap *s = ctx;
	const char *t = line + 8;
	uint64_t nb, e;
	int neg, exp;

	if (strncmp(line, "buckets ", 8))
		return TSA_OK;
	if (tsa_parse_u64(&t, &nb) || *t++ != ' ')
		goto bad;
	neg = *t == '-';
	t += neg;
	if (tsa_parse_u64(&t, &e) || *t || nb != TSA_HIST_NB || e > 40)
		goto bad;
	exp = neg ? -(int)e : (int)e;
	/* The last bound in ns must fit in 64 bits (tsa_hist_edge()). */
	if (s->bounds.ns ? exp < 0 || exp + TSA_HIST_NB - 2 > 63 :
	    exp < -27 || exp + TSA_HIST_NB - 2 > 34)
		goto bad;
	s->bounds.exp = exp;
	s->buckets_seen = 1;
	return TSA_OK;
bad:
	snprintf(msg, msglen, "line %zu: buckets \"%.30s\", this tsa-prstat "
		 "reads %d, their bounds from 2^-27 s (or 1 ns) within 64 bits "
		 "of ns", lineno, line + 8, TSA_HIST_NB);
	return TSA_EFORMAT;
}

int tsa_hist_parse(struct tsa_hist_snap *s, char *msg, size_t msglen)
{
	int colmap[MAX_HCOLUMNS], have[HF_NUM] = { 0 };
	char *p, *end, *line;
	size_t ncols = 0, lineno = 1, c;
	int n, major = 2;

	s->n = 0;
	s->now = 0;
	s->buckets_seen = 0;
	n = tsa_parse_begin(&s->buf, s->len, &s->cap, "tsa-hist", &major,
			    &p, &end, msg, msglen);
	if (n != TSA_OK)
		return n;
	s->bounds.ns = major == 1;
	n = tsa_parse_header(&p, end, &lineno, &s->now, hist_header, s,
			     colmap, MAX_HCOLUMNS, hfield_index, have, msg,
			     msglen);
	if (n < 0)
		return TSA_EFORMAT;
	ncols = (size_t)n;
	for (c = 0; c < HF_UID; c++) {
		if (!have[c]) {
			snprintf(msg, msglen, "line %zu: \"fields\" lacks %s",
				 lineno, hfield_name[c]);
			return TSA_EFORMAT;
		}
	}
	if (!s->buckets_seen) {
		snprintf(msg, msglen, "no \"buckets\" line");
		return TSA_EFORMAT;
	}

	while ((line = tsa_next_line(&p, end))) {
		struct tsa_hline *l;
		const char *t = line;
		uint64_t v;

		lineno++;
		if (!*line)
			continue;
		if (s->n == s->lcap) {
			s->lcap = s->lcap ? 2 * s->lcap : 1024;
			s->l = xrealloc(s->l, s->lcap * sizeof(*s->l));
		}
		l = &s->l[s->n];
		memset(l, 0, sizeof(*l));
		l->state = -1;
		for (c = 0; c < ncols && *t; c++) {
			int f = colmap[c];

			if (c && *t++ != ' ')
				break;
			if (f == HF_STATE) {
				const char *w = t;
				size_t k;

				while (*t && *t != ' ')
					t++;
				if (t - w > 8 && !strncmp(w, "syscall:", 8)) {
					l->state = TSA_HIST_CALL;
					l->call = w + 8;
					l->call_len = (int)(t - w - 8);
					continue;
				}
				for (k = 0; k < TSA_NSTATES; k++)
					if (strlen(tsa_state_name[k]) ==
					    (size_t)(t - w) &&
					    !strncmp(w, tsa_state_name[k], t - w))
						l->state = (int)k;
				continue;
			}
			if (tsa_parse_u64(&t, &v))
				break;
			switch (f) {
			case HF_TID: l->tid = v; break;
			case HF_PID: l->pid = v; break;
			case HF_UID: l->uid = v; break;
			case HF_FLAGS: l->flags = v; break;
			case HF_ELAPSED: l->elapsed = v; break;
			case HF_AT: l->at = v; break;
			case HF_N: l->n = v; break;
			case HF_NS: l->ns = v; break;
			case HF_MAX: l->max = v; break;
			case HF_MAX_AT: l->max_at = v; break;
			case HF_OPEN: l->open = v != 0; l->has_b = 1; break;
			case HF_OPEN_NS: l->open_ns = v; break;
			default:
				if (f >= HF_B0 && f < HF_NUM)
					l->b[f - HF_B0] = v;
			}
		}
		/* Up to max_at at least; an off-CPU state's line to the end. */
		if (*t || c <= (size_t)HF_MAX_AT ||
		    (l->has_b && c != ncols)) {
			snprintf(msg, msglen, "line %zu: malformed", lineno);
			return TSA_EFORMAT;
		}
		if (l->state == -1)
			continue;	/* a newer module's state */
		s->n++;
	}
	return TSA_OK;
}

void tsa_hist_free(struct tsa_hist_snap *s)
{
	free(s->buf);
	free(s->l);
	memset(s, 0, sizeof(*s));
}

uint64_t tsa_hist_edge(struct tsa_hbounds k, int b)
{
	int e = b + k.exp;

	if (b >= TSA_HIST_NB - 1)
		return UINT64_MAX;
	if (k.ns)
		return 1ULL << e;
	/* 10^9 ns * 2^e, e from -27 to 34 (hist_header()). */
	return e < 0 ? 1000000000ULL >> -e : 1000000000ULL << e;
}

int tsa_hist_same_bounds(const struct tsa_hist_snap *a,
			 const struct tsa_hist_snap *b)
{
	return a->bounds.exp == b->bounds.exp && a->bounds.ns == b->bounds.ns;
}

uint64_t tsa_hist_quantile(const struct tsa_hview *v, struct tsa_hbounds k,
			   double q)
{
	uint64_t run = 0, edge;
	int b;

	if (!v->count)
		return 0;
	for (b = 0; b < TSA_HIST_NB; b++) {
		run += v->b[b];
		if (v->b[b] && (double)run >= q * (double)v->count)
			break;
	}
	edge = tsa_hist_edge(k, b < TSA_HIST_NB ? b : TSA_HIST_NB - 1);
	return edge < v->max ? edge : v->max;
}

/* A thread, or a process, at one snapshot: the sum of its lines. */
struct hsum {
	uint64_t n, ns, max, max_at, open;
	uint64_t b[TSA_HIST_NB];
	int lines;
};

static uint64_t line_since(const struct tsa_hline *l)
{
	return l->at - l->elapsed;
}

/*
 * Lines @a and @b are of one thread (@lwps) or process. The module
 * writes a thread's lines together, and a process's (its threads, then
 * its exited threads' totals) together.  The totals (tid 0) have no
 * start of their own: their elapsed grows as threads exit.
 */
static int same_run(const struct tsa_hline *a, const struct tsa_hline *b,
		    int lwps)
{
	if (a->pid != b->pid)
		return 0;
	return !lwps || (a->tid == b->tid &&
			 (!a->tid || line_since(a) == line_since(b)));
}

static size_t run_end(const struct tsa_hist_snap *s, size_t i, int lwps)
{
	size_t j = i + 1;

	while (j < s->n && same_run(&s->l[i], &s->l[j], lwps))
		j++;
	return j;
}

/* Add line @l into @x. */
static void hsum_add(struct hsum *x, const struct tsa_hline *l)
{
	int b;

	x->lines++;
	x->n += l->n;
	x->ns += l->ns;
	x->open += l->open;
	if (l->max > x->max) {
		x->max = l->max;
		x->max_at = l->max_at;
	}
	for (b = 0; b < TSA_HIST_NB; b++)
		x->b[b] += l->b[b];
}

/* The lines [@i, @j) summed by state; the calls' are left to call_lines(). */
static void run_sums(const struct tsa_hist_snap *s, size_t i, size_t j,
		     struct hsum *h)
{
	memset(h, 0, TSA_NSTATES * sizeof(*h));
	for (; i < j; i++)
		if (s->l[i].state >= 0)
			hsum_add(&h[s->l[i].state], &s->l[i]);
}

/* Where each run of the earlier snapshot starts, by tid or pid. */
static void index_build(struct tsa_index *x, const struct tsa_hist_snap *s,
			int lwps)
{
	size_t i;

	tsa_index_clear(x, s->n, 64);
	for (i = 0; i < s->n; i = run_end(s, i, lwps))
		tsa_index_put(x, tsa_hash_u64(lwps && s->l[i].tid ?
					      s->l[i].tid : s->l[i].pid), i);
}

/* The run of @s that is the thread or process of line @l, or -1. */
static long index_find(const struct tsa_index *x,
		       const struct tsa_hist_snap *s,
		       const struct tsa_hline *l, int lwps)
{
	size_t k;

	tsa_index_each(x, tsa_hash_u64(lwps && l->tid ? l->tid : l->pid), k)
		if (same_run(&s->l[tsa_index_at(x, k)], l, lwps))
			return (long)tsa_index_at(x, k);
	return -1;
}

/* Two names of @alen and @blen bytes, as strcmp orders them. */
static int name_cmp(const char *a, int alen, const char *b, int blen)
{
	int c = memcmp(a, b, (size_t)(alen < blen ? alen : blen));

	return c ? c : alen - blen;
}

/* Two call lines by name. */
static int call_cmp(const struct tsa_hline *a, const struct tsa_hline *b)
{
	return name_cmp(a->call, a->call_len, b->call, b->call_len);
}

static int cmp_call_line(const void *a, const void *b)
{
	return call_cmp(*(const struct tsa_hline *const *)a,
			*(const struct tsa_hline *const *)b);
}

/* The call lines of [@i, @j) of @s into @out (grown), sorted by name. */
static size_t call_lines(const struct tsa_hist_snap *s, size_t i, size_t j,
			 const struct tsa_hline ***out, size_t *cap)
{
	size_t n = 0;

	for (; i < j; i++) {
		if (s->l[i].state != TSA_HIST_CALL)
			continue;
		if (n == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			*out = xrealloc(*out, *cap * sizeof(**out));
		}
		(*out)[n++] = &s->l[i];
	}
	if (n > 1)
		qsort(*out, n, sizeof(**out), cmp_call_line);
	return n;
}

/*
 * The longest stay of the interval: exact when it ended in it (after the
 * earlier snapshot; for a call, which has no time it ended, when the
 * longest grew), else under the edge of the highest bucket that gained a
 * stay (and never above the lifetime longest).
 */
static void interval_max(struct tsa_hview *v, const struct hsum *c,
			 uint64_t prev_now, struct tsa_hbounds k, int first,
			 int grew)
{
	int b;

	if (first || grew || c->max_at > prev_now) {
		v->max = c->max;
		v->max_exact = 1;
		return;
	}
	for (b = TSA_HIST_NB - 1; b >= 0 && !v->b[b]; b--)
		;
	v->max = b < 0 ? 0 : tsa_hist_edge(k, b);
	if (v->max > c->max)
		v->max = c->max;
	v->max_exact = 0;
}

int view_call_cmp(const struct tsa_hview *x, const struct tsa_hview *y)
{
	return name_cmp(x->call, x->call_len, y->call, y->call_len);
}

static int cmp_view(const void *a, const void *b)
{
	const struct tsa_hview *x = a, *y = b;

	if (x->who_wait != y->who_wait)
		return x->who_wait < y->who_wait ? 1 : -1;
	if (x->who_ns != y->who_ns)
		return x->who_ns < y->who_ns ? 1 : -1;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	/* A thread's (process's, group's) states first, then its calls. */
	if ((x->state == TSA_HIST_CALL) != (y->state == TSA_HIST_CALL))
		return x->state == TSA_HIST_CALL ? 1 : -1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->state == TSA_HIST_CALL)
		return view_call_cmp(x, y);
	return x->state - y->state;
}

/*
 * The view line of a state (or call) whose sums are @c now and @p (NULL:
 * none) before, into @v: 0 when no stay ended in the interval.
 */
static int view_make(struct tsa_hview *v, const struct hsum *c,
		     const struct hsum *p0, uint64_t prev_now,
		     struct tsa_hbounds k)
{
	static const struct hsum none;
	const struct hsum *p = p0 ? p0 : &none;
	int b, back;

	/* Counts never go down for one thread or process: if they did,
	 * the pid is another one's now. */
	back = !p0 || p->n > c->n || p->ns > c->ns;
	for (b = 0; b < TSA_HIST_NB && !back; b++)
		back = p->b[b] > c->b[b];
	if (back)
		p = &none;
	v->first = back;
	v->ns = c->ns - p->ns;
	v->open = c->open;
	for (b = 0; b < TSA_HIST_NB; b++) {
		v->b[b] = c->b[b] - p->b[b];
		v->count += v->b[b];
	}
	/* A state is shown for the stays that ended in it. */
	if (!v->count)
		return 0;
	interval_max(v, c, back ? 0 : prev_now, k, back,
		     v->state == TSA_HIST_CALL && c->max > p->max);
	return 1;
}

/* A new line at the end of *@out (grown), zeroed. */
static struct tsa_hview *view_new(struct tsa_hview **out, size_t *cap,
				  size_t n)
{
	if (n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*out = xrealloc(*out, *cap * sizeof(**out));
	}
	memset(&(*out)[n], 0, sizeof(**out));
	return &(*out)[n];
}

size_t tsa_hist_compute(const struct tsa_hist_snap *prev,
			const struct tsa_hist_snap *cur, int lwps,
			const uint64_t *pids, size_t npids,
			struct tsa_hview **out, size_t *cap)
{
	struct hsum c[TSA_NSTATES], p[TSA_NSTATES], cc, pc;
	const struct tsa_hline **cl = NULL, **pl = NULL;
	struct tsa_index x = { NULL, 0, 0 };
	size_t i, j, k, n = 0, start, ncl, npl, clcap = 0, plcap = 0, a, e, q;
	uint64_t who_ns, who_wait;
	int s;
	long r;

	/* Counts in other buckets (a module of another version) are no
	 * base to take differences from. */
	if (prev && !tsa_hist_same_bounds(prev, cur))
		prev = NULL;
	if (prev)
		index_build(&x, prev, lwps);
	for (i = 0; i < cur->n; i = j) {
		const struct tsa_hline *l = &cur->l[i];

		j = run_end(cur, i, lwps);
		if (!tsa_pid_selected(pids, npids, l->pid) ||
		    (lwps == TSA_HIST_THREADS && !l->tid))
			continue;
		run_sums(cur, i, j, c);
		r = prev ? index_find(&x, prev, l, lwps) : -1;
		if (r >= 0)
			run_sums(prev, (size_t)r, run_end(prev, (size_t)r, lwps),
				 p);
		start = n;
		who_ns = who_wait = 0;
		for (s = S_TFL; s < TSA_NSTATES; s++) {
			struct tsa_hview *v;

			if (!c[s].lines)
				continue;
			v = view_new(out, cap, n);
			v->pid = l->pid;
			v->tid = lwps ? l->tid : 0;
			v->uid = l->uid;
			v->state = s;
			if (!view_make(v, &c[s], r >= 0 ? &p[s] : NULL,
				       prev ? prev->now : 0, cur->bounds))
				continue;
			who_ns += v->ns;
			if (s != S_IDL && s != S_SLP && s != S_STP)
				who_wait += v->ns;
			n++;
		}
		/* Its calls, by name (a process's threads' summed). */
		ncl = call_lines(cur, i, j, &cl, &clcap);
		npl = r >= 0 ? call_lines(prev, (size_t)r,
					  run_end(prev, (size_t)r, lwps),
					  &pl, &plcap) : 0;
		for (a = 0, q = 0; a < ncl; a = e) {
			struct tsa_hview *v;
			int found = 0;

			memset(&cc, 0, sizeof(cc));
			memset(&pc, 0, sizeof(pc));
			for (e = a; e < ncl && !call_cmp(cl[a], cl[e]); e++)
				hsum_add(&cc, cl[e]);
			while (q < npl && call_cmp(pl[q], cl[a]) < 0)
				q++;
			for (; q < npl && !call_cmp(pl[q], cl[a]); q++, found = 1)
				hsum_add(&pc, pl[q]);
			v = view_new(out, cap, n);
			v->pid = l->pid;
			v->tid = lwps ? l->tid : 0;
			v->uid = l->uid;
			v->state = TSA_HIST_CALL;
			v->call = cl[a]->call;
			v->call_len = cl[a]->call_len;
			if (view_make(v, &cc, found ? &pc : NULL,
				      prev ? prev->now : 0, cur->bounds))
				n++;
		}
		for (k = start; k < n; k++) {
			(*out)[k].who_ns = who_ns;
			(*out)[k].who_wait = who_wait;
		}
	}
	tsa_index_free(&x);
	free(cl);
	free(pl);
	tsa_hist_sort(*out, n);
	return n;
}

void tsa_hist_fold(struct tsa_hview *acc, const struct tsa_hview *x)
{
	int b;

	acc->count += x->count;
	acc->ns += x->ns;
	acc->open += x->open;
	for (b = 0; b < TSA_HIST_NB; b++)
		acc->b[b] += x->b[b];
	if (x->max > acc->max || (x->max == acc->max && x->max_exact)) {
		acc->max = x->max;
		acc->max_exact = x->max_exact;
	}
}

void tsa_hist_sort(struct tsa_hview *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), cmp_view);
}
