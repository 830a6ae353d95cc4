// SPDX-License-Identifier: GPL-2.0
/*
 * app/pictures.c - the pictures of a window (--folded, --svg, --perfetto),
 * from any source: a recording's window (recorder.c hands its first and last
 * blocks; --svg reads its intervals again here), a compare (files.c: the
 * two captures) or a live run, which records into a directory of its
 * own and then draws that recording (docs/pictures.md).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "folded.h"
#include "svg.h"
#include "perfetto.h"
#include "record.h"
#include "sort.h"
#include "app.h"

static void write_failed(const char *what)
{
	die(EXIT_BADDATA, "%s: write error: %s", what, strerror(errno));
}

/* --svg's lines when -n is not given: two pages. */
#define SVG_LINES	40
#define SVG_PER_PAGE	20

/* What a window's lines are, computed once, for either picture. */
struct lines {
	struct group_report gr;
	struct tsa_wakers_report wr;
	struct tsa_delta *d;		/* gr.d or own */
	struct tsa_delta *own;
	struct tsa_call_line *cl;
	size_t n, ncl, cap, ccap;
	struct tsa_select sel;
	int grouped, wakers;
	struct ended ended;		/* lines that ended in the window */
	char (*pname)[64], (*tname)[64];	/* d[i]'s names */
};

/*
 * Line @d's process (@tid 0) or thread name: as the window's ends have
 * it, or as its last block had it if it ended inside the window.
 */
static void line_name(const struct window *w, const struct lines *l,
		      const struct tsa_delta *d, uint64_t tid, char *out,
		      size_t len)
{
	const struct ended_line *el = ended_find(&l->ended, d);

	if (el)
		snprintf(out, len, "%s", tid ? el->tname : el->pname);
	else
		tsa_thread_name(w->b, w->a, d->pid, tid, out, len);
}

/*
 * The call lines of the window's lines: those of its ends for the lines
 * that are still there, and their sums for those that ended.
 */
static void window_calls(const struct window *w, struct lines *l)
{
	struct tsa_delta *live = xmalloc((l->n + 1) * sizeof(*live));
	size_t *at = xmalloc((l->n + 1) * sizeof(*at));
	size_t i, k, nlive = 0, n = 0;
	long c;

	for (i = 0; i < l->n; i++) {
		if (ended_find(&l->ended, &l->d[i]))
			continue;
		live[nlive] = l->d[i];
		at[nlive++] = i;
	}
	if (w->ca && w->cb && nlive)
		n = tsa_calls_compute(w->a, w->b, w->ca, w->cb, &l->sel, live,
				      nlive, &l->cl, &l->ccap);
	for (k = 0; k < n; k++)
		l->cl[k].who = &l->d[at[l->cl[k].who - live]];
	for (i = 0; i < l->n; i++) {
		const struct ended_line *el = ended_find(&l->ended, &l->d[i]);

		for (c = el ? el->calls : -1; c >= 0; c = l->ended.c[c].next) {
			const struct ended_call *ec = &l->ended.c[c];
			struct tsa_call_line *cl;

			if (n == l->ccap) {
				l->ccap = l->ccap ? l->ccap * 2 : 64;
				l->cl = xrealloc(l->cl, l->ccap *
						 sizeof(*l->cl));
			}
			cl = &l->cl[n++];
			memset(cl, 0, sizeof(*cl));
			cl->who = &l->d[i];
			cl->name = ec->name;
			cl->other = ec->other;
			cl->d = ec->d;
			cl->total_calls = ec->d.calls;
			cl->total_ns = ec->d.ns;
			cl->elapsed = l->d[i].elapsed;
		}
	}
	l->ncl = n;
	free(live);
	free(at);
}

/*
 * The window's lines as the report would have them: per thread (-L),
 * process or group (--group), only -p's, sorted by -s, cut to -n;
 * in a recording also the threads or processes that ended inside the
 * window (intervals.c); their calls (not for groups) and, with
 * @wakers, their wakers.
 */
static void window_lines(const struct options *o, const struct window *w,
			 struct lines *l, int wakers, long ntop)
{
	const struct show *sh = &o->show;
	struct tsa_totals tot;
	struct options on = *o;
	size_t n, i;

	memset(l, 0, sizeof(*l));
	l->grouped = sh->group_by > GROUP_PID;
	l->wakers = wakers;
	l->sel.lwps = sh->lwps;
	l->sel.interval = (double)(w->b->now - w->a->now) / 1e9;
	l->sel.pids = sh->pids;
	l->sel.npids = sh->npids;
	/*
	 * The source's cgroups, lent: what the lookups add to them is
	 * handed back at the end (they may move), and lines_free() leaves
	 * them to their owner.
	 */
	if (w->cc)
		l->gr.cc = *w->cc;
	if (l->grouped) {
		n = group_report_compute(&l->gr, w->a, w->b,
					 (enum group_by)sh->group_by, &l->sel,
					 "/nonexistent", &tot);
		sort_lines_time(l->gr.d, n, sh->sort_key, sh->sort_order);
		l->d = l->gr.d;
	} else {
		n = tsa_delta_compute(w->a, w->b, &l->sel, &l->own, &l->cap,
				      &tot);
		if (w->dir)
			ended_lines(w, &l->sel, l->own, n, &l->ended);
		if (l->ended.n) {
			l->cap = n + l->ended.n;
			l->own = xrealloc(l->own, l->cap * sizeof(*l->own));
			for (i = 0; i < l->ended.n; i++)
				l->own[n++] = l->ended.l[i].d;
		}
		sort_lines_time(l->own, n, sh->sort_key, sh->sort_order);
		l->d = l->own;
	}
	on.show.ntop = ntop;
	l->n = lines_shown(&on, n, 0);
	if (!l->grouped) {
		l->pname = xmalloc((l->n + 1) * sizeof(*l->pname));
		l->tname = xmalloc((l->n + 1) * sizeof(*l->tname));
		for (i = 0; i < l->n; i++) {
			line_name(w, l, &l->d[i], 0, l->pname[i],
				  sizeof(l->pname[i]));
			line_name(w, l, &l->d[i], sh->lwps ? l->d[i].id : 0,
				  l->tname[i], sizeof(l->tname[i]));
		}
		window_calls(w, l);
	}
	if (wakers && w->wa && w->wb) {
		struct tsa_wnames nm = { "/nonexistent", w->b, &l->gr.cc,
					 w->a };

		tsa_wakers_compute(&l->wr, w->wa, w->wb, l->grouped ? 2 :
				   sh->lwps, sh->pids, sh->npids);
		if (l->grouped)
			tsa_wakers_group(&l->wr, sh->group_by, &nm);
	}
	if (w->cc)
		*w->cc = l->gr.cc;
}

static void lines_free(struct lines *l, const struct window *w)
{
	if (w->cc)	/* the owner's (window_lines()) */
		memset(&l->gr.cc, 0, sizeof(l->gr.cc));
	tsa_wakers_report_free(&l->wr);
	group_report_free(&l->gr);
	ended_free(&l->ended);
	free(l->own);
	free(l->cl);
	free(l->pname);
	free(l->tname);
}

static void folded_window(const struct options *o, const struct window *w)
{
	struct folded_in in;
	struct lines l;

	if (o->show.view == VIEW_WAKERS && (!w->wa || !w->wb))
		die(EXIT_NOMODULE, "%s: -w: no wakers in the window (the "
		    "module kept none, wakers=0, or an older tsa-prstat "
		    "recorded it)", w->src);
	window_lines(o, w, &l, o->show.view == VIEW_WAKERS, o->show.ntop);
	memset(&in, 0, sizeof(in));
	in.pname = l.pname;
	in.tname = l.tname;
	in.d = l.d;
	in.n = l.n;
	in.lwps = o->show.lwps;
	in.groups = l.grouped;
	in.cl = o->show.view == VIEW_WAKERS ? NULL : l.cl;
	in.ncl = in.cl ? l.ncl : 0;
	if (o->show.view == VIEW_WAKERS) {
		in.w = l.wr.v;
		in.nw = l.wr.n;
	}
	if (folded_print(stdout, &in))
		write_failed("stdout");
	lines_free(&l, w);
}

/* A band's key: the line it draws, found again in every interval. */
struct band_key {
	uint64_t pid, id;
	size_t band;
};

static int key_cmp(const void *x, const void *y)
{
	const struct band_key *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

struct svg_build {
	const struct options *o;
	const struct window *w;
	struct lines *l;
	struct svg_band *b;
	struct band_key *keys;
	struct tsa_delta *d;		/* an interval's lines */
	size_t cap;
	struct group_report gr;		/* an interval's groups */
	size_t ncols;
	double t0, len;			/* the window, wall clock seconds */
	uint64_t *heat;			/* [col * TSA_HIST_NB + bucket] */
	int have_heat;			/* an interval had distributions */
	struct tsa_hbounds bounds;
	struct tsa_hview *hv;
	size_t hcap;
	/* --perfetto: each line's cell of each column (NULL: --svg) */
	struct pf_cell *cells;
	size_t nd;			/* the last interval's lines in d */
	struct tsa_delta *sub;		/* those of the bands, and theirs */
	long *sub_band;
	struct tsa_call_line *cl;
	size_t ccap;
	struct tsa_wakers_report wr;
};

/* The band of thread (@lwps) or process @pid, @id, or -1. */
static long band_at(const struct svg_build *sb, uint64_t pid, uint64_t id)
{
	struct band_key k = { pid, sb->o->show.lwps ? id : 0, 0 }, *f;

	f = bsearch(&k, sb->keys, sb->l->n, sizeof(k), key_cmp);
	return f ? (long)f->band : -1;
}

/* The band of line @d of an interval, or -1. */
static long band_of(const struct svg_build *sb, const struct tsa_delta *d)
{
	size_t i;

	if (sb->l->grouped) {
		for (i = 0; i < sb->l->n; i++)
			if (!strcmp(sb->l->d[i].comm, d->comm))
				return (long)i;
		return -1;
	}
	return band_at(sb, d->pid, d->id);
}

/* The column of the interval from @p to @c: the one its middle is in. */
static size_t column_of(const struct svg_build *sb, const struct tsa_snap *p,
			const struct tsa_snap *c)
{
	double mid = (wall_s(&p->wall) + wall_s(&c->wall)) / 2;
	size_t col = mid <= sb->t0 ? 0 : (size_t)((mid - sb->t0) / sb->len *
						  (double)sb->ncols);

	return col < sb->ncols ? col : sb->ncols - 1;
}

/* The LAT stays that ended from @hp to @hc, of the bands' lines. */
static void heat_interval(struct svg_build *sb, size_t col,
			  const struct tsa_hist_snap *hp,
			  const struct tsa_hist_snap *hc)
{
	const struct show *sh = &sb->o->show;
	size_t n, i, k;

	if (!tsa_hist_same_bounds(hp, hc) || (sb->have_heat &&
	    (sb->bounds.exp != hc->bounds.exp ||
	     sb->bounds.ns != hc->bounds.ns)))
		return;
	sb->bounds = hc->bounds;
	sb->have_heat = 1;
	n = tsa_hist_compute(hp, hc, sh->lwps ? TSA_HIST_THREADS :
			     TSA_HIST_PROCS, sh->pids, sh->npids, &sb->hv,
			     &sb->hcap);
	for (i = 0; i < n; i++) {
		long b = sb->hv[i].state == S_LAT ?
			 band_at(sb, sb->hv[i].pid, sb->hv[i].tid) : -1;

		for (k = 0; b >= 0 && k < TSA_HIST_NB; k++)
			sb->heat[col * TSA_HIST_NB + k] += sb->hv[i].b[k];
	}
}

/* Interval @p to @c into its column of every band it has a line in. */
static void svg_interval(struct svg_build *sb, const struct tsa_snap *p,
			 const struct tsa_snap *c, struct cgroup_cache *cc)
{
	const struct show *sh = &sb->o->show;
	struct tsa_select sel = sb->l->sel;
	struct tsa_totals tot;
	struct tsa_delta *d;
	size_t n, i, col = column_of(sb, p, c);
	int s;

	sel.interval = (double)(c->now - p->now) / 1e9;
	if (sb->l->grouped) {
		if (cc)
			sb->gr.cc = *cc;
		n = group_report_compute(&sb->gr, p, c,
					 (enum group_by)sh->group_by, &sel,
					 "/nonexistent", &tot);
		if (cc) {
			*cc = sb->gr.cc;
			memset(&sb->gr.cc, 0, sizeof(sb->gr.cc));
		}
		d = sb->gr.d;
	} else {
		n = tsa_delta_compute(p, c, &sel, &sb->d, &sb->cap, &tot);
		d = sb->d;
		sb->nd = n;
	}
	for (i = 0; i < n; i++) {
		long b = band_of(sb, &d[i]);

		if (b < 0)
			continue;
		for (s = 0; s < TSA_NSTATES; s++)
			sb->b[b].ns[col * TSA_NSTATES + s] += d[i].ns[s];
	}
}

/* "other" and "none": no waker a line can be named by. */
static int named_waker(const struct tsa_wview *v)
{
	return v->wtid || (strncmp(v->kind, "other", 5) &&
			   strncmp(v->kind, "none", 4));
}

/*
 * --perfetto: the top system call and waker of each band's line in
 * column @col over the interval from @p to @c (svg_interval() has just
 * left its lines in sb->d), from the calls @cp, @cc and the wakers @wp,
 * @wc (any NULL: none).
 */
static void cells_interval(struct svg_build *sb, size_t col,
			   const struct tsa_snap *p, const struct tsa_snap *c,
			   const struct tsa_calls_snap *cp,
			   const struct tsa_calls_snap *cc,
			   const struct tsa_wakers_snap *wp,
			   const struct tsa_wakers_snap *wc)
{
	const struct show *sh = &sb->o->show;
	struct tsa_select sel = sb->l->sel;
	size_t i, n = 0, ncl;

	if (sb->l->grouped)
		return;
	sel.interval = (double)(c->now - p->now) / 1e9;
	sb->sub = xrealloc(sb->sub, (sb->nd + 1) * sizeof(*sb->sub));
	sb->sub_band = xrealloc(sb->sub_band, (sb->nd + 1) *
				sizeof(*sb->sub_band));
	for (i = 0; i < sb->nd; i++) {
		long b = band_of(sb, &sb->d[i]);

		if (b < 0)
			continue;
		sb->sub[n] = sb->d[i];
		sb->sub_band[n++] = b;
	}
	ncl = cp && cc ? tsa_calls_compute(p, c, cp, cc, &sel, sb->sub, n,
					   &sb->cl, &sb->ccap) : 0;
	for (i = 0; i < ncl; i++) {
		const struct tsa_call_line *l = &sb->cl[i];
		struct pf_cell *e = &sb->cells[(size_t)sb->sub_band[l->who -
					       sb->sub] * sb->ncols + col];

		if (l->d.ns > e->call_ns) {
			e->call_ns = l->d.ns;
			snprintf(e->call, sizeof(e->call), "%s", l->name);
		}
	}
	if (!wp || !wc)
		return;
	tsa_wakers_compute(&sb->wr, wp, wc, sh->lwps, sh->pids, sh->npids);
	for (i = 0; i < sb->wr.n; i++) {
		const struct tsa_wview *v = &sb->wr.v[i];
		long b = v->state >= 0 && v->ns && named_waker(v) ?
			 band_at(sb, v->pid, v->tid) : -1;
		struct pf_cell *e;
		const struct tsa_row *r;

		if (b < 0)
			continue;
		e = &sb->cells[(size_t)b * sb->ncols + col];
		if (v->ns <= e->waker_ns)
			continue;
		e->waker_ns = v->ns;
		e->waker_line = -1;
		if (v->wtid) {
			snprintf(e->waker, sizeof(e->waker), "%.*s/%" PRIu64,
				 v->name_len, v->name, v->wtid);
			r = tsa_snap_thread(c, v->wtid);
			if (r)
				e->waker_line = band_at(sb, r->v[F_PID],
							v->wtid);
		} else {
			snprintf(e->waker, sizeof(e->waker), "%.*s",
				 v->kind_len, v->kind);
		}
	}
}

/* An interval of a recording into the picture. */
static void svg_step(void *ctx, const struct interval *iv)
{
	struct svg_build *sb = ctx;
	size_t col = column_of(sb, iv->p, iv->c);

	svg_interval(sb, iv->p, iv->c, iv->cgroups);
	if (iv->hp)
		heat_interval(sb, col, iv->hp, iv->hc);
	if (sb->cells)
		cells_interval(sb, col, iv->p, iv->c, iv->cp, iv->cc, iv->wp,
			       iv->wc);
}

static int top_cmp(const void *x, const void *y)
{
	const struct svg_top *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(a->what, b->what);
}

/* The window's system calls over its lines, summed by name. */
static size_t top_calls(const struct lines *l, struct svg_top **out)
{
	struct svg_top *t = NULL;
	size_t n = 0, i, k;

	if (l->ncl)
		t = xmalloc(l->ncl * sizeof(*t));
	for (i = 0; i < l->ncl; i++) {
		for (k = 0; k < n; k++)
			if (!strcmp(t[k].what, l->cl[i].name))
				break;
		if (k == n) {
			memset(&t[n], 0, sizeof(t[n]));
			snprintf(t[n++].what, sizeof(t[0].what), "%s",
				 l->cl[i].name);
		}
		t[k].ns += l->cl[i].d.ns;
		t[k].n += l->cl[i].d.calls;
	}
	if (n)
		qsort(t, n, sizeof(*t), top_cmp);
	*out = t;
	return n;
}

/* The window's wakers of its lines: who ended whose time, how much. */
static size_t top_wakers(const struct options *o, const struct window *w,
			 const struct lines *l, struct svg_top **out)
{
	struct svg_top *t = NULL;
	size_t n = 0, i, k;
	char woken[64], waker[80];

	if (l->wr.n)
		t = xmalloc(l->wr.n * sizeof(*t));
	for (i = 0; i < l->wr.n; i++) {
		const struct tsa_wview *v = &l->wr.v[i];
		int in = 0;

		if (!v->ns || v->state < 0)
			continue;
		for (k = 0; k < l->n && !in; k++)
			in = l->grouped ? v->group && !strcmp(v->group,
							      l->d[k].comm) :
			     v->pid == l->d[k].pid &&
			     v->tid == (o->show.lwps ? l->d[k].id : 0);
		if (!in)
			continue;
		if (l->grouped)
			snprintf(woken, sizeof(woken), "%s", v->group);
		else
			tsa_thread_name(w->b, w->a, v->pid, v->tid, woken,
					sizeof(woken));
		if (v->wtid)
			snprintf(waker, sizeof(waker), "%.*s/%" PRIu64,
				 v->name_len, v->name, v->wtid);
		else
			snprintf(waker, sizeof(waker), "%.*s", v->kind_len,
				 v->kind);
		memset(&t[n], 0, sizeof(t[n]));
		snprintf(t[n].what, sizeof(t[n].what), "%s -> %s/%" PRIu64
			 ", %s", waker, woken, v->tid ? v->tid : v->pid,
			 tsa_state_name[v->state]);
		if (l->grouped)
			snprintf(t[n].what, sizeof(t[n].what), "%s -> %s, %s",
				 waker, woken, tsa_state_name[v->state]);
		t[n].ns = v->ns;
		t[n++].n = v->n;
	}
	if (n)
		qsort(t, n, sizeof(*t), top_cmp);
	*out = t;
	return n;
}

/* A band's label: its line, and whether it ended inside the window. */
static void band_name(char *out, size_t len, const struct lines *l,
		      size_t i, int lwps)
{
	const struct tsa_delta *d = &l->d[i];
	const char *ended = ended_find(&l->ended, d) ? ", ended" : "";

	if (l->grouped)
		snprintf(out, len, "%s", d->comm);
	else if (!lwps)
		snprintf(out, len, "%s/%" PRIu64 "%s", l->pname[i], d->pid,
			 ended);
	else
		snprintf(out, len, "%s/%" PRIu64 " in %s/%" PRIu64 "%s",
			 l->tname[i], d->id, l->pname[i], d->pid, ended);
}

/* Open @path to write ("-": stdout), or die. */
static FILE *open_out(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f)
		die(EXIT_BADDATA, "%s: %s", path, strerror(errno));
	return f;
}

/* Close @f (of @path): on an error, what was written is removed. */
static void close_out(FILE *f, const char *path, int err)
{
	if (err || (f != stdout && fclose(f) == EOF)) {
		if (f != stdout)
			unlink(path);
		write_failed(path);
	}
}

/* --perfetto: the bands, their columns and cells as a trace. */
static void perfetto_out(const struct options *o, const struct window *w,
			 const struct svg_build *sb, const struct lines *l)
{
	struct pf_line *pl = xmalloc((l->n + 1) * sizeof(*pl));
	struct pf_in in;
	uint64_t a = (uint64_t)w->a->wall.tv_sec * 1000000000ull +
		     (uint64_t)w->a->wall.tv_nsec;
	uint64_t b = (uint64_t)w->b->wall.tv_sec * 1000000000ull +
		     (uint64_t)w->b->wall.tv_nsec;
	size_t i;
	FILE *f;

	for (i = 0; i < l->n; i++) {
		const struct tsa_delta *d = &l->d[i];

		/* A thread's track is under its process's: its own name. */
		pl[i].name = o->show.lwps && !l->grouped ? l->tname[i] :
			     sb->b[i].name;
		pl[i].proc = l->grouped ? NULL : l->pname[i];
		pl[i].pid = l->grouped ? 0 : d->pid;
		pl[i].tid = l->grouped ? 0 : o->show.lwps ? d->id : d->pid;
		pl[i].ns = sb->b[i].ns;
		pl[i].cell = sb->cells ? &sb->cells[i * sb->ncols] : NULL;
	}
	in.t0 = a;
	in.len = b > a ? b - a : 1;
	in.ncols = sb->ncols;
	in.l = pl;
	in.n = l->n;
	f = open_out(o->perfetto);
	close_out(f, o->perfetto, perfetto_write(f, &in));
	free(pl);
}

/*
 * --svg (@pf 0) or --perfetto (@pf 1): the window's lines, their states
 * by column of time (and for --perfetto each column's top call and
 * waker), drawn.
 */
static void draw_window(const struct options *o, const struct window *w,
			int pf)
{
	struct svg_build sb;
	struct svg_in in;
	struct svg_top *wk = NULL, *sc = NULL;
	struct lines l;
	size_t i, nint = w->dir ? w->nint : 1;
	FILE *f;

	window_lines(o, w, &l, 1, o->show.ntop ? o->show.ntop : SVG_LINES);
	memset(&sb, 0, sizeof(sb));
	memset(&in, 0, sizeof(in));
	sb.o = o;
	sb.w = w;
	sb.l = &l;
	sb.ncols = !pf ? svg_columns(nint) : nint < PF_MAXCOLS ?
		   (nint ? nint : 1) : PF_MAXCOLS;
	if (pf && !l.grouped) {
		sb.cells = xmalloc((l.n ? l.n : 1) * sb.ncols *
				   sizeof(*sb.cells));
		memset(sb.cells, 0, (l.n ? l.n : 1) * sb.ncols *
		       sizeof(*sb.cells));
		for (i = 0; i < l.n * sb.ncols; i++)
			sb.cells[i].waker_line = -1;
	}
	sb.t0 = wall_s(&w->a->wall);
	sb.len = wall_s(&w->b->wall) - sb.t0;
	if (sb.len <= 0)
		sb.len = 1;
	sb.b = xmalloc((l.n ? l.n : 1) * sizeof(*sb.b));
	sb.heat = xmalloc(sb.ncols * TSA_HIST_NB * sizeof(*sb.heat));
	memset(sb.heat, 0, sb.ncols * TSA_HIST_NB * sizeof(*sb.heat));
	sb.keys = xmalloc((l.n ? l.n : 1) * sizeof(*sb.keys));
	for (i = 0; i < l.n; i++) {
		size_t sz = sb.ncols * TSA_NSTATES * sizeof(uint64_t);

		band_name(sb.b[i].name, sizeof(sb.b[i].name), &l, i,
			  o->show.lwps);
		sb.b[i].ns = xmalloc(sz);
		memset(sb.b[i].ns, 0, sz);
		sb.keys[i].pid = l.d[i].pid;
		sb.keys[i].id = o->show.lwps ? l.d[i].id : 0;
		sb.keys[i].band = i;
	}
	if (!l.grouped)
		qsort(sb.keys, l.n, sizeof(*sb.keys), key_cmp);
	if (w->dir) {
		walk_intervals(w, (l.grouped ? WALK_GROUPS : 0) |
			       (!l.grouped && !sb.cells ? WALK_HIST : 0) |
			       (sb.cells ? WALK_CALLS | WALK_WAKERS : 0),
			       svg_step, &sb);
	} else {
		svg_interval(&sb, w->a, w->b, w->cc);
		if (w->ha && w->hb && !l.grouped && !pf)
			heat_interval(&sb, 0, w->ha, w->hb);
		if (sb.cells)
			cells_interval(&sb, 0, w->a, w->b, w->ca, w->cb, w->wa,
				       w->wb);
	}
	if (pf) {
		perfetto_out(o, w, &sb, &l);
		goto out;
	}

	in.title = w->src;
	in.from = w->a->wall;
	in.to = w->b->wall;
	in.ncols = sb.ncols;
	in.b = sb.b;
	in.nb = l.n;
	in.per_page = SVG_PER_PAGE;
	in.heat = sb.have_heat ? sb.heat : NULL;
	in.bounds = sb.bounds;
	in.heat_why = l.grouped ? "not drawn for groups" : !w->dir ?
		      "the captures have no distributions (version 1, or the "
		      "module's hist=0)" : "the recording has no LAT "
		      "distributions (a recorder before tsa-record 2, or the "
		      "module's hist=0)";
	in.nsc = top_calls(&l, &sc);
	in.sc = sc;
	in.sc_why = l.grouped ? "not drawn for groups" : w->ca ? NULL :
		    "the source has no system-call rows";
	in.nwk = top_wakers(o, w, &l, &wk);
	in.wk = wk;
	in.wk_why = w->wa && w->wb ? NULL : "the source has no wakers";

	f = open_out(o->svg);
	close_out(f, o->svg, svg_write(f, &in));
out:
	for (i = 0; i < l.n; i++)
		free(sb.b[i].ns);
	free(sb.b);
	free(sb.keys);
	free(sb.heat);
	free(sb.hv);
	free(sb.d);
	free(sb.cells);
	free(sb.sub);
	free(sb.sub_band);
	free(sb.cl);
	tsa_wakers_report_free(&sb.wr);
	group_report_free(&sb.gr);
	free(wk);
	free(sc);
	lines_free(&l, w);
}

void picture_window(const struct options *o, const struct window *w)
{
	if (o->folded)
		folded_window(o, w);
	if (o->svg)
		draw_window(o, w, 0);
	if (o->perfetto)
		draw_window(o, w, 1);
}

/* Empty and remove the directory a live run recorded into. */
static void remove_recording(const char *dir)
{
	char path[PATH_MAX + 256];
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (unlink(path))
			warnmsg("%s: %s", path, strerror(errno));
	}
	if (d)
		closedir(d);
	if (rmdir(dir))
		warnmsg("%s: %s", dir, strerror(errno));
}

/* A live picture's recording: removed at exit, whatever ends the run. */
static char live_dir[PATH_MAX];

static void remove_live_dir(void)
{
	if (live_dir[0])
		remove_recording(live_dir);
	live_dir[0] = '\0';
}

/*
 * A live picture: count intervals (until a signal without one) recorded
 * into a directory under $TMPDIR, that recording drawn as --replay
 * draws one, the directory removed (at exit: a failed read dies).
 */
int picture_live(struct options *o, const char *allpath,
		 const char *callspath, volatile sig_atomic_t *stop)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = live_dir;
	int rc;

	snprintf(dir, sizeof(live_dir), "%s/tsa-prstat.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		int err = errno;

		live_dir[0] = '\0';
		die(EXIT_BADDATA, "%s/tsa-prstat.XXXXXX: %s", tmp && *tmp ?
		    tmp : "/tmp", strerror(err));
	}
	atexit(remove_live_dir);
	o->record = dir;
	/* count intervals are count + 1 reads; the first begins them. */
	if (o->count > 0)
		o->count++;
	record_loop(o, allpath, callspath, stop);
	o->record = NULL;
	o->replay = dir;
	rc = replay_recording(o);
	remove_live_dir();
	return rc;
}
