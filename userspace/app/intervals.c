// SPDX-License-Identifier: GPL-2.0
/*
 * app/intervals.c - a recording's window interval by interval, for the
 * pictures (pictures.c): the walk over its blocks, and the lines that
 * ended inside it.
 *
 * A window's lines are those of its last block (tsa_delta_compute() of
 * its two ends), but a thread or process that was born and died between
 * them, or died before the end, spent time in the window too: a cron
 * job at 03:00 in a picture of the night. ended_lines() finds them in
 * the intervals and sums each one's time over the intervals it was seen
 * in, so its time from its last block to its exit, which no block saw,
 * is the only time of it a picture leaves out.
 */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "record.h"
#include "app.h"

void walk_intervals(const struct window *w, int want,
		    void (*step)(void *ctx, const struct interval *iv),
		    void *ctx)
{
	struct tsa_snap snaps[2];
	struct tsa_hist_snap hs[2];
	struct tsa_calls_snap cs[2];
	struct tsa_wakers_snap ws[2];
	struct cgroup_cache cc;
	struct replay rec;
	char msg[256], boot[64] = "";
	int cur = 0, have = 0, hok[2] = { 0, 0 }, cok[2] = { 0, 0 };
	int wok[2] = { 0, 0 };

	memset(snaps, 0, sizeof(snaps));
	memset(hs, 0, sizeof(hs));
	memset(cs, 0, sizeof(cs));
	memset(ws, 0, sizeof(ws));
	memset(&cc, 0, sizeof(cc));
	if (replay_open(&rec, w->dir, w->a->wall.tv_sec, msg, sizeof(msg)))
		die(EXIT_BADDATA, "%s: %s", w->dir, msg);
	while (replay_next(&rec, &snaps[cur],
			   want & WALK_CALLS ? &cs[cur] : NULL,
			   want & WALK_WAKERS ? &ws[cur] : NULL) > 0) {
		struct tsa_snap *c = &snaps[cur], *p = &snaps[!cur];
		struct interval iv;

		if (wall_s(&c->wall) > wall_s(&w->b->wall))
			break;
		if (wall_s(&c->wall) < wall_s(&w->a->wall))
			continue;
		if (want & WALK_GROUPS)
			replay_cgroups(&rec, c, &cc);
		hok[cur] = (want & WALK_HIST) &&
			   replay_hist(&rec, &hs[cur]) == TSA_OK;
		cok[cur] = (want & WALK_CALLS) && rec.calls_err == TSA_OK;
		wok[cur] = (want & WALK_WAKERS) && rec.wakers_err == TSA_OK;
		/* An interval is two blocks of one boot, in order. */
		if (have && !strcmp(boot, rec.boot_id) && p->now < c->now) {
			memset(&iv, 0, sizeof(iv));
			iv.p = p;
			iv.c = c;
			if (hok[0] && hok[1]) {
				iv.hp = &hs[!cur];
				iv.hc = &hs[cur];
			}
			if (cok[0] && cok[1]) {
				iv.cp = &cs[!cur];
				iv.cc = &cs[cur];
			}
			if (wok[0] && wok[1]) {
				iv.wp = &ws[!cur];
				iv.wc = &ws[cur];
			}
			iv.cgroups = &cc;
			step(ctx, &iv);
		}
		snprintf(boot, sizeof(boot), "%s", rec.boot_id);
		have = 1;
		cur = !cur;
	}
	replay_close(&rec);
	tsa_hist_free(&hs[0]);
	tsa_hist_free(&hs[1]);
	tsa_calls_free(&cs[0]);
	tsa_calls_free(&cs[1]);
	tsa_wakers_free(&ws[0]);
	tsa_wakers_free(&ws[1]);
	cgroup_cache_free(&cc);
	tsa_snap_free(&snaps[0]);
	tsa_snap_free(&snaps[1]);
}

/* A line's key: its process, and its thread with -L (else 0). */
static uint64_t key_hash(uint64_t pid, uint64_t id)
{
	uint64_t h = pid * 0x9E3779B97F4A7C15ull ^ id * 0xC2B2AE3D27D4EB4Full;

	return h ^ (h >> 29);
}

/* The lines found so far, and what one interval's need. */
struct ended_walk {
	struct ended *e;
	const struct tsa_select *sel;
	int lwps;
	/* the window's own lines' keys, and the ended lines', hashed */
	size_t *slot;			/* index + 1 into keys; 0: empty */
	struct { uint64_t pid, id; long ended; } *keys;
	size_t nkeys, kcap, mask;
	struct tsa_delta *d, *sub;	/* an interval's lines; the ended */
	size_t *sub_line;
	size_t dcap, subcap;
	struct tsa_call_line *cl;
	size_t ccap;
	int calls_pass;			/* the second walk: calls only */
};

static void rehash(struct ended_walk *ew)
{
	size_t i, n = (ew->mask + 1) * 2;

	ew->slot = xrealloc(ew->slot, n * sizeof(*ew->slot));
	memset(ew->slot, 0, n * sizeof(*ew->slot));
	ew->mask = n - 1;
	for (i = 0; i < ew->nkeys; i++) {
		size_t h = key_hash(ew->keys[i].pid, ew->keys[i].id) &
			   ew->mask;

		while (ew->slot[h])
			h = (h + 1) & ew->mask;
		ew->slot[h] = i + 1;
	}
}

/*
 * The key (@pid, @id): its index in ew->keys, added with @ended (-1: a
 * line of the window's end) if @add and it is not there; -1 if not.
 */
static long key_find(struct ended_walk *ew, uint64_t pid, uint64_t id,
		     int add, long ended)
{
	size_t h = key_hash(pid, id) & ew->mask;

	for (; ew->slot[h]; h = (h + 1) & ew->mask) {
		size_t k = ew->slot[h] - 1;

		if (ew->keys[k].pid == pid && ew->keys[k].id == id)
			return (long)k;
	}
	if (!add)
		return -1;
	if (ew->nkeys == ew->kcap) {
		ew->kcap = ew->kcap ? ew->kcap * 2 : 256;
		ew->keys = xrealloc(ew->keys, ew->kcap * sizeof(*ew->keys));
	}
	ew->keys[ew->nkeys].pid = pid;
	ew->keys[ew->nkeys].id = id;
	ew->keys[ew->nkeys].ended = ended;
	ew->slot[h] = ++ew->nkeys;
	if (ew->nkeys * 2 > ew->mask)
		rehash(ew);
	return (long)ew->nkeys - 1;
}

/* Line @k's call @name (@other: the row of calls without one), made. */
static struct ended_call *call_of(struct ended *e, size_t k,
				  const char *name, int other)
{
	long i;

	for (i = e->l[k].calls; i >= 0; i = e->c[i].next)
		if (e->c[i].other == other && !strcmp(e->c[i].name, name))
			return &e->c[i];
	if (e->nc == e->ccap) {
		e->ccap = e->ccap ? e->ccap * 2 : 64;
		e->c = xrealloc(e->c, e->ccap * sizeof(*e->c));
	}
	i = (long)e->nc++;
	memset(&e->c[i], 0, sizeof(e->c[i]));
	e->c[i].name = xstrdup(name);
	e->c[i].other = other;
	e->c[i].next = e->l[k].calls;
	e->l[k].calls = i;
	return &e->c[i];
}

static void add_delta(struct ended_line *el, const struct tsa_delta *d)
{
	int s;

	if (!el->seen) {
		el->d = *d;
		el->d.now = NULL;
		el->seen = 1;
		return;
	}
	el->d.id = d->id;
	el->d.uid = d->uid;
	el->d.elapsed += d->elapsed;
	for (s = 0; s < TSA_NSTATES; s++)
		el->d.ns[s] += d->ns[s];
	for (s = 0; s < TSA_NCOUNTERS; s++) {
		el->d.cnt[s] += d->cnt[s];
		el->d.shown[s] += d->cnt[s];
	}
}

static void ended_step(void *ctx, const struct interval *iv)
{
	struct ended_walk *ew = ctx;
	struct ended *e = ew->e;
	struct tsa_select sel = *ew->sel;
	struct tsa_totals tot;
	size_t n, i, nsub = 0, ncl;

	sel.interval = (double)(iv->c->now - iv->p->now) / 1e9;
	n = tsa_delta_compute(iv->p, iv->c, &sel, &ew->d, &ew->dcap, &tot);
	if (n > ew->subcap) {
		ew->subcap = n;
		ew->sub = xrealloc(ew->sub, n * sizeof(*ew->sub));
		ew->sub_line = xrealloc(ew->sub_line,
					n * sizeof(*ew->sub_line));
	}
	for (i = 0; i < n; i++) {
		const struct tsa_delta *d = &ew->d[i];
		uint64_t id = ew->lwps ? d->id : 0;
		long k = key_find(ew, d->pid, id, !ew->calls_pass,
				  (long)e->n);
		struct ended_line *el;

		if (k < 0 || ew->keys[k].ended < 0)
			continue;	/* a line of the window's end */
		if (!ew->calls_pass) {
			if ((size_t)ew->keys[k].ended == e->n) {
				if (e->n == e->cap) {
					e->cap = e->cap ? e->cap * 2 : 64;
					e->l = xrealloc(e->l, e->cap *
							sizeof(*e->l));
				}
				memset(&e->l[e->n], 0, sizeof(e->l[e->n]));
				e->l[e->n++].calls = -1;
			}
			el = &e->l[ew->keys[k].ended];
			add_delta(el, d);
			tsa_thread_name(iv->c, iv->p, d->pid, 0, el->pname,
					sizeof(el->pname));
			if (ew->lwps)
				tsa_thread_name(iv->c, iv->p, d->pid, d->id,
						el->tname, sizeof(el->tname));
		}
		ew->sub[nsub] = *d;
		ew->sub_line[nsub++] = (size_t)ew->keys[k].ended;
	}
	if (!iv->cp || !nsub)
		return;
	ncl = tsa_calls_compute(iv->p, iv->c, iv->cp, iv->cc, &sel, ew->sub,
				nsub, &ew->cl, &ew->ccap);
	for (i = 0; i < ncl; i++) {
		const struct tsa_call_line *l = &ew->cl[i];
		struct ended_call *c = call_of(e, ew->sub_line[l->who -
							       ew->sub],
					       l->name, l->other);
		int s;

		c->d.calls += l->d.calls;
		c->d.ns += l->d.ns;
		c->d.rest += l->d.rest;
		if (l->d.max > c->d.max)
			c->d.max = l->d.max;
		for (s = 0; s < TSA_NSTATES; s++)
			c->d.st[s] += l->d.st[s];
	}
}

void ended_lines(const struct window *w, const struct tsa_select *sel,
		 const struct tsa_delta *d, size_t n, struct ended *e)
{
	struct ended_walk ew;
	size_t i;

	memset(e, 0, sizeof(*e));
	memset(&ew, 0, sizeof(ew));
	ew.e = e;
	ew.sel = sel;
	ew.lwps = sel->lwps;
	ew.mask = 255;
	ew.slot = xmalloc((ew.mask + 1) * sizeof(*ew.slot));
	memset(ew.slot, 0, (ew.mask + 1) * sizeof(*ew.slot));
	for (i = 0; i < n; i++)
		key_find(&ew, d[i].pid, ew.lwps ? d[i].id : 0, 1, -1);
	/*
	 * The lines first, then, if there are any, their calls: a window
	 * where no line ended (most) reads no call rows here.
	 */
	walk_intervals(w, 0, ended_step, &ew);
	ew.calls_pass = 1;
	if (e->n)
		walk_intervals(w, WALK_CALLS, ended_step, &ew);
	/* Names are the lines' own now: e->l no longer moves. */
	for (i = 0; i < e->n; i++)
		e->l[i].d.comm = ew.lwps ? e->l[i].tname : e->l[i].pname;
	free(ew.slot);
	free(ew.keys);
	free(ew.d);
	free(ew.sub);
	free(ew.sub_line);
	free(ew.cl);
}

const struct ended_line *ended_find(const struct ended *e,
				    const struct tsa_delta *d)
{
	const char *c = d->comm, *lo = (const char *)e->l;

	/* An ended line's comm is a name inside its own e->l[]. */
	if (!e->n || c < lo || c >= (const char *)(e->l + e->n))
		return NULL;
	return &e->l[(size_t)(c - lo) / sizeof(*e->l)];
}

void ended_free(struct ended *e)
{
	size_t i;

	for (i = 0; i < e->nc; i++)
		free(e->c[i].name);
	free(e->c);
	free(e->l);
	memset(e, 0, sizeof(*e));
}
