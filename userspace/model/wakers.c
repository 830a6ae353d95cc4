// SPDX-License-Identifier: GPL-2.0
/*
 * model/wakers.c - /proc/tsa/wakers: parse a snapshot, and compute the
 * lines of the wakers view from two (see model/wakers.h).
 *
 * Longer than the ~600 lines a file here keeps to, for the reason
 * model/all.c is: one format's reader and its deltas in one place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "all.h"
#include "group.h"
#include "util.h"
#include "wakers.h"

enum wfield {
	WF_TID, WF_PID, WF_UID, WF_FLAGS, WF_ELAPSED, WF_AT, WF_STATE, WF_N,
	WF_NS, WF_MAX, WF_LAT, WF_KIND, WF_WTID, WF_NAME,
	WF_NUM,
	WF_SKIP = -1		/* a column this reader does not know */
};

#define MAX_WCOLUMNS	64

static const char *const wfield_name[WF_NUM] = {
	"tid", "pid", "uid", "flags", "elapsed", "at", "state", "wakeups",
	"ns", "max", "lat_ns", "kind", "waker_tid", "name",
};

static int wfield_index(const char *name, size_t len)
{
	int i;

	for (i = 0; i < WF_NUM; i++)
		if (strlen(wfield_name[i]) == len &&
		    !strncmp(name, wfield_name[i], len))
			return i;
	return WF_SKIP;
}

int tsa_wakers_read(struct tsa_wakers_snap *s, const char *path,
		    char *msg, size_t msglen)
{
	int rc = tsa_read_file(path, &s->buf, &s->len, &s->cap, msg, msglen);

	if (rc != TSA_OK)
		return rc;
	return tsa_wakers_parse(s, msg, msglen);
}

/* The word at *@t (up to a space or the end); *@t moves past it. */
static const char *word(const char **t, int *len)
{
	const char *w = *t;

	while (**t && **t != ' ')
		(*t)++;
	*len = (int)(*t - w);
	return w;
}

/* "LCK": its index; "-" (other, none) or a newer module's state: -1. */
static int state_of(const char *w, int len)
{
	int k;

	for (k = 0; k < TSA_NSTATES; k++)
		if ((int)strlen(tsa_state_name[k]) == len &&
		    !strncmp(w, tsa_state_name[k], (size_t)len))
			return k;
	return -1;
}

/* One line's columns into @l; -1 if malformed. */
static int parse_line(const char *t, const int *colmap, size_t ncols,
		      struct tsa_wline *l)
{
	size_t c;
	uint64_t v;
	int len;

	memset(l, 0, sizeof(*l));
	for (c = 0; c < ncols; c++) {
		int f = colmap[c];
		const char *w;

		if (c && *t++ != ' ')
			return -1;
		if (f == WF_NAME) {		/* last: to the end */
			l->name = t;
			l->name_len = (int)strlen(t);
			return c + 1 == ncols && l->name_len ? 0 : -1;
		}
		if (f == WF_STATE || f == WF_KIND || f == WF_SKIP) {
			w = word(&t, &len);
			if (!len)
				return -1;
			if (f == WF_KIND) {
				l->kind = w;
				l->kind_len = len;
			} else if (f == WF_STATE) {
				l->state = state_of(w, len);
			}
			continue;
		}
		if (tsa_parse_u64(&t, &v))
			return -1;
		switch (f) {
		case WF_TID: l->tid = v; break;
		case WF_PID: l->pid = v; break;
		case WF_UID: l->uid = v; break;
		case WF_FLAGS: l->flags = v; break;
		case WF_ELAPSED: l->elapsed = v; break;
		case WF_AT: l->at = v; break;
		case WF_N: l->n = v; break;
		case WF_NS: l->ns = v; break;
		case WF_MAX: l->max = v; break;
		case WF_LAT: l->lat = v; break;
		case WF_WTID: l->wtid = v; break;
		}
	}
	return -1;	/* no name */
}

int tsa_wakers_parse(struct tsa_wakers_snap *s, char *msg, size_t msglen)
{
	int major = 1;
	int colmap[MAX_WCOLUMNS], have[WF_NUM] = { 0 }, n;
	char *p, *end, *line;
	size_t ncols = 0, lineno = 1, c;

	s->n = 0;
	s->now = 0;
	n = tsa_parse_begin(&s->buf, s->len, &s->cap, "tsa-wakers", &major,
			    &p, &end, msg, msglen);
	if (n != TSA_OK)
		return n;
	n = tsa_parse_header(&p, end, &lineno, &s->now, NULL, NULL, colmap,
			     MAX_WCOLUMNS, wfield_index, have, msg, msglen);
	if (n < 0)
		return TSA_EFORMAT;
	ncols = (size_t)n;
	for (c = 0; c < WF_NUM; c++) {
		if (!have[c] && c != WF_UID) {
			snprintf(msg, msglen, "line %zu: \"fields\" lacks %s",
				 lineno, wfield_name[c]);
			return TSA_EFORMAT;
		}
	}
	if (!ncols || colmap[ncols - 1] != WF_NAME) {
		snprintf(msg, msglen, "line %zu: \"name\" is not last", lineno);
		return TSA_EFORMAT;
	}
	while ((line = tsa_next_line(&p, end))) {
		lineno++;
		if (!*line)
			continue;
		if (s->n == s->lcap) {
			s->lcap = s->lcap ? 2 * s->lcap : 1024;
			s->l = xrealloc(s->l, s->lcap * sizeof(*s->l));
		}
		if (parse_line(line, colmap, ncols, &s->l[s->n])) {
			snprintf(msg, msglen, "line %zu: malformed", lineno);
			return TSA_EFORMAT;
		}
		s->n++;
	}
	return TSA_OK;
}

void tsa_wakers_free(struct tsa_wakers_snap *s)
{
	free(s->buf);
	free(s->l);
	memset(s, 0, sizeof(*s));
}

/* --- the view's lines ------------------------------------------------- */

/*
 * One waker of one thread or process, summed over its lines in both
 * snapshots (a process's threads and exited threads fold by waker).
 */
struct witem {
	uint64_t pid, tid, start;	/* the thread's (or 0s: a process) */
	const struct tsa_wline *l;	/* cur's first line: names */
	uint64_t n[2], ns[2], lat[2], max;	/* [0] prev, [1] cur */
	int seen[2];
};

struct wtab {
	struct witem *it;
	size_t n, cap;
	struct tsa_index idx;		/* the items by hash_item() */
};

static int is_kind(const struct tsa_wline *l, const char *k)
{
	return l->kind_len == (int)strlen(k) && !strncmp(l->kind, k, strlen(k));
}

static int is_kind_str(const struct tsa_wview *v, const char *k)
{
	return v->kind_len == (int)strlen(k) && !strncmp(v->kind, k, strlen(k));
}

static uint64_t hash_item(uint64_t pid, uint64_t tid, uint64_t start,
			  const struct tsa_wline *l)
{
	uint64_t h = 1469598103934665603ULL;
	int i;

	h = (h ^ pid) * 1099511628211ULL;
	h = (h ^ tid) * 1099511628211ULL;
	h = (h ^ start) * 1099511628211ULL;
	h = (h ^ l->wtid) * 1099511628211ULL;
	h = (h ^ (uint64_t)(l->state + 2)) * 1099511628211ULL;
	for (i = 0; i < l->kind_len; i++)
		h = (h ^ (unsigned char)l->kind[i]) * 1099511628211ULL;
	return h;
}

static int same_item(const struct witem *it, uint64_t pid, uint64_t tid,
		     uint64_t start, const struct tsa_wline *l)
{
	return it->pid == pid && it->tid == tid && it->start == start &&
		it->l->wtid == l->wtid && it->l->state == l->state &&
		it->l->kind_len == l->kind_len &&
		!strncmp(it->l->kind, l->kind, (size_t)l->kind_len);
}

static void wtab_grow(struct wtab *t)
{
	size_t i;

	tsa_index_clear(&t->idx, 2 * (t->n + 1), 4096);
	for (i = 0; i < t->n; i++)
		tsa_index_put(&t->idx, hash_item(t->it[i].pid, t->it[i].tid,
						 t->it[i].start, t->it[i].l),
			      i);
}

/* The item of @l in its thread or process, made if new. */
static struct witem *wtab_get(struct wtab *t, uint64_t pid, uint64_t tid,
			      uint64_t start, const struct tsa_wline *l)
{
	uint64_t h = hash_item(pid, tid, start, l);
	struct witem *it;
	size_t j;

	if (!t->idx.cap || tsa_index_full(&t->idx))
		wtab_grow(t);
	tsa_index_each(&t->idx, h, j)
		if (same_item(&t->it[tsa_index_at(&t->idx, j)], pid, tid,
			      start, l))
			return &t->it[tsa_index_at(&t->idx, j)];
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->it = xrealloc(t->it, t->cap * sizeof(*t->it));
	}
	it = &t->it[t->n];
	memset(it, 0, sizeof(*it));
	it->pid = pid;
	it->tid = tid;
	it->start = start;
	it->l = l;
	tsa_index_put(&t->idx, h, t->n++);
	return it;
}

static void add_line(struct wtab *t, const struct tsa_wline *l, int k,
		     int lwps, const uint64_t *pids, size_t npids)
{
	uint64_t tid = lwps ? l->tid : 0;
	uint64_t start = lwps && l->tid ? l->at - l->elapsed : 0;
	struct witem *it;

	/* lwps 2 (--group): threads, and each process's exited ones. */
	if (!tsa_pid_selected(pids, npids, l->pid) || (lwps == 1 && !l->tid))
		return;
	/* Lines of prev alone count too: the other row's share. */
	it = wtab_get(t, l->pid, tid, start, l);
	it->n[k] += l->n;
	it->ns[k] += l->ns;
	it->lat[k] += l->lat;
	it->seen[k] = 1;
	if (k == 1 && l->max > it->max)
		it->max = l->max;
}

static uint64_t grown(uint64_t prev, uint64_t cur)
{
	return cur >= prev ? cur - prev : cur;	/* a row taken again */
}

/* Within a thread or process: wakers first, the most time first. */
static int cmp_view(const void *a, const void *b)
{
	const struct tsa_wview *x = a, *y = b;
	int ox = x->state < 0, oy = y->state < 0;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (ox != oy)
		return ox - oy;
	if (ox)		/* other before none */
		return (y->kind[0] == 'o') - (x->kind[0] == 'o');
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return 0;
}

/*
 * A row whose waker lost its place to another moved its numbers to the
 * other row: with rows taken again counted from then, the rows would
 * count those numbers twice. The other row gets the rest of what the
 * wakers ended over the interval (the snapshots' sums differ by exactly
 * that), so the lines of one thread or process add up. @v: its lines
 * (sorted: other and none last).
 */
static void settle_other(struct tsa_wview *v, size_t n)
{
	uint64_t c[3] = { 0 }, p[3] = { 0 }, rows[3] = { 0 }, d;
	struct tsa_wview *other = NULL;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		if (v[i].state < 0 && v[i].kind[0] == 'n')
			continue;		/* none */
		c[0] += v[i].raw_ns[1], p[0] += v[i].raw_ns[0];
		c[1] += v[i].raw_n[1], p[1] += v[i].raw_n[0];
		c[2] += v[i].raw_lat[1], p[2] += v[i].raw_lat[0];
		if (v[i].state < 0) {
			other = &v[i];
			continue;
		}
		rows[0] += v[i].ns, rows[1] += v[i].n, rows[2] += v[i].lat;
	}
	if (!other)
		return;
	for (k = 0; k < 3; k++) {
		d = c[k] >= p[k] ? c[k] - p[k] : c[k];
		d = d > rows[k] ? d - rows[k] : 0;
		if (k == 0)
			other->ns = d;
		else if (k == 1)
			other->n = d;
		else
			other->lat = d;
	}
}

/* A thread's or process's time ended by wakers, for the order. */
struct wsum {
	uint64_t pid, tid, woke;
};

static int cmp_sum(const void *a, const void *b)
{
	const struct wsum *x = a, *y = b;

	if (x->woke != y->woke)
		return x->woke > y->woke ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void tsa_wakers_compute(struct tsa_wakers_report *r,
			const struct tsa_wakers_snap *prev,
			const struct tsa_wakers_snap *cur, int lwps,
			const uint64_t *pids, size_t npids)
{
	struct wtab t = { 0 };
	struct tsa_wview *v, *out;
	struct wsum *sums;
	size_t i, j, k, ns = 0;

	for (i = 0; i < cur->n; i++)
		add_line(&t, &cur->l[i], 1, lwps, pids, npids);
	for (i = 0; prev && i < prev->n; i++)
		add_line(&t, &prev->l[i], 0, lwps, pids, npids);
	r->n = 0;
	if (r->cap < t.n) {
		r->cap = t.n;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	for (i = 0; i < t.n; i++) {
		const struct witem *it = &t.it[i];

		v = &r->v[r->n++];
		memset(v, 0, sizeof(*v));
		v->pid = it->pid;
		v->tid = it->tid;
		v->uid = it->l->uid;
		v->state = it->l->state;
		v->kind = it->l->kind;
		v->kind_len = it->l->kind_len;
		v->wtid = it->l->wtid;
		v->name = it->l->name;
		v->name_len = it->l->name_len;
		v->max = it->max;
		v->raw_ns[0] = it->ns[0];
		v->raw_ns[1] = it->ns[1];
		v->raw_n[0] = it->n[0];
		v->raw_n[1] = it->n[1];
		v->raw_lat[0] = it->lat[0];
		v->raw_lat[1] = it->lat[1];
		v->n = grown(it->n[0], it->n[1]);
		v->ns = grown(it->ns[0], it->ns[1]);
		v->lat = grown(it->lat[0], it->lat[1]);
		if (is_kind(it->l, "none"))	/* the open stay: may shrink */
			v->ns = it->ns[1] > it->ns[0] ? it->ns[1] - it->ns[0] : 0;
	}
	free(t.it);
	tsa_index_free(&t.idx);
	if (r->n)	/* no lines: r->v may be NULL, which qsort() refuses */
		qsort(r->v, r->n, sizeof(*r->v), cmp_view);
	/* Each thread's or process's time off CPU, and the order. */
	sums = xmalloc((r->n + 1) * sizeof(*sums));
	for (i = 0; i < r->n; i = j) {
		uint64_t off = 0, woke = 0;

		for (j = i; j < r->n && r->v[j].pid == r->v[i].pid &&
			    r->v[j].tid == r->v[i].tid; j++)
			;
		settle_other(r->v + i, j - i);
		for (k = i; k < j; k++) {
			off += r->v[k].ns;
			if (r->v[k].state >= 0 || r->v[k].kind[0] == 'o')
				woke += r->v[k].ns;
		}
		for (k = i; k < j; k++)
			r->v[k].off = off;
		sums[ns].pid = r->v[i].pid;
		sums[ns].tid = r->v[i].tid;
		sums[ns++].woke = woke;
	}
	qsort(sums, ns, sizeof(*sums), cmp_sum);
	out = xmalloc((r->n + 1) * sizeof(*out));
	for (i = 0, k = 0; i < ns; i++) {
		for (j = 0; j < r->n; j++)	/* the sorted run of this one */
			if (r->v[j].pid == sums[i].pid &&
			    r->v[j].tid == sums[i].tid)
				break;
		for (; j < r->n && r->v[j].pid == sums[i].pid &&
		       r->v[j].tid == sums[i].tid; j++)
			if (r->v[j].n || r->v[j].ns)
				out[k++] = r->v[j];
	}
	free(r->v);
	r->v = out;
	r->n = k;
	r->cap = r->n + 1;
	free(sums);
}

void tsa_wakers_report_free(struct tsa_wakers_report *r)
{
	free(r->v);
	free(r->strs);
	memset(r, 0, sizeof(*r));
}

void tsa_wakers_comm(const struct tsa_wnames *nm, uint64_t pid,
		     uint64_t tid, char *out, size_t len)
{
	tsa_thread_name(nm->snap, nm->prev, pid, tid, out, len);
}

/* Add @s to @r's names; its offset. */
static size_t str_add(struct tsa_wakers_report *r, const char *s)
{
	size_t n = strlen(s) + 1, off = r->slen;

	if (r->slen + n > r->scap) {
		r->scap = 2 * (r->slen + n) + 4096;
		r->strs = xrealloc(r->strs, r->scap);
	}
	memcpy(r->strs + off, s, n);
	r->slen += n;
	return off;
}

/*
 * The group_who of thread @tid (0: process @pid's exited threads), from
 * @nm's snapshot, else the one before (a thread gone since): 0 if
 * neither has it.
 */
static int who_of(const struct tsa_wnames *nm, uint64_t pid, uint64_t tid,
		  struct group_who *w)
{
	const struct tsa_snap *s[2] = { nm->snap, nm->prev };
	const struct tsa_proc *p;
	const struct tsa_row *t = NULL;
	int k;

	memset(w, 0, sizeof(*w));
	w->pid = pid;
	for (k = 0; k < 2; k++) {
		if (!s[k])
			continue;
		t = tid ? tsa_snap_thread(s[k], tid) : NULL;
		if (tid && !t)
			continue;
		p = tsa_snap_proc(s[k], t ? t->v[F_PID] : pid);
		if (!p)
			continue;
		group_who_of(w, s[k], p, t, NULL);
		return 1;
	}
	return 0;
}

/*
 * The group of a woken line's thread (tid 0: a process's exited ones),
 * by the group rule (group_key_of()).
 */
static void woken_group(char *out, size_t len, int by,
			const struct tsa_wnames *nm, const struct tsa_wview *x)
{
	struct group_who w;
	char comm[64];

	who_of(nm, x->pid, 0, &w);	/* its start, where it is known */
	w.pid = x->pid;
	w.uid = x->uid;			/* the line's own */
	if (by == GROUP_COMM)
		tsa_wakers_comm(nm, x->pid, x->tid, comm, sizeof(comm));
	w.comm = comm;
	group_key_of(out, len, (enum group_by)by, &w, nm->procfs, nm->cc);
}

/*
 * The group of a line's waker: a thread's by the group rule (by name:
 * the name the kernel gave; "?" when the thread is gone), a context
 * itself.
 */
static void waker_group(char *out, size_t len, int by,
			const struct tsa_wnames *nm, const struct tsa_wview *x)
{
	struct group_who w;
	char name[64];

	if (!is_kind_str(x, "thread")) {
		snprintf(out, len, "%.*s", x->kind_len, x->kind);
		return;
	}
	snprintf(name, sizeof(name), "%.*s", x->name_len, x->name);
	tsa_comm_unescape(name);
	if (by != GROUP_COMM && !who_of(nm, 0, x->wtid, &w)) {
		snprintf(out, len, "?");
		return;
	}
	w.comm = name;
	group_key_of(out, len, (enum group_by)by, &w, nm->procfs, nm->cc);
}

/* By woken group, then waker group and state (names compared). */
static int cmp_group_line(const void *a, const void *b)
{
	const struct tsa_wview *x = a, *y = b;
	int c = strcmp(x->group, y->group);

	if (c)
		return c;
	if (x->state != y->state)
		return x->state - y->state;
	return strcmp(x->kind, y->kind);
}

void tsa_wakers_group(struct tsa_wakers_report *r, int by,
		      const struct tsa_wnames *nm)
{
	char g[4096], w[4096];
	size_t i, j, k, n = r->n, *goff, *woff;
	struct tsa_wview *v = r->v, *out;
	struct wsum *sums;
	size_t ns = 0;

	goff = xmalloc((n + 1) * sizeof(*goff));
	woff = xmalloc((n + 1) * sizeof(*woff));
	r->slen = 0;
	for (i = 0; i < n; i++) {
		woken_group(g, sizeof(g), by, nm, &v[i]);
		goff[i] = str_add(r, g);
		if (v[i].state < 0)	/* other, none */
			snprintf(w, sizeof(w), "%.*s", v[i].kind_len,
				 v[i].kind);
		else
			waker_group(w, sizeof(w), by, nm, &v[i]);
		woff[i] = str_add(r, w);
	}
	/* The pool is final now: point into it. */
	for (i = 0; i < n; i++) {
		v[i].group = r->strs + goff[i];
		v[i].kind = r->strs + woff[i];
		v[i].kind_len = (int)strlen(v[i].kind);
		v[i].name = "-";
		v[i].name_len = 1;
		v[i].wtid = 0;
		v[i].pid = 0;
		v[i].tid = 0;
	}
	free(goff);
	free(woff);
	if (n)		/* as above: v may be NULL */
		qsort(v, n, sizeof(*v), cmp_group_line);
	/* Fold equal lines; each group's time asleep and stopped. */
	for (i = k = 0; i < n; i = j) {
		struct tsa_wview *x = &v[k];

		if (k != i)
			*x = v[i];
		for (j = i + 1; j < n && !cmp_group_line(&v[i], &v[j]); j++) {
			x->n += v[j].n;
			x->ns += v[j].ns;
			x->lat += v[j].lat;
			if (v[j].max > x->max)
				x->max = v[j].max;
		}
		k++;
	}
	n = k;
	sums = xmalloc((n + 1) * sizeof(*sums));
	for (i = 0; i < n; i = j) {
		uint64_t off = 0, woke = 0;

		for (j = i; j < n && !strcmp(v[j].group, v[i].group); j++) {
			off += v[j].ns;
			if (v[j].state >= 0 || v[j].kind[0] == 'o')
				woke += v[j].ns;
		}
		for (k = i; k < j; k++)
			v[k].off = off;
		sums[ns].pid = i;	/* its first line */
		sums[ns].tid = 0;
		sums[ns++].woke = woke;
	}
	qsort(sums, ns, sizeof(*sums), cmp_sum);
	out = xmalloc((n + 1) * sizeof(*out));
	for (i = 0, k = 0; i < ns; i++) {
		size_t first = (size_t)sums[i].pid, e;

		for (e = first; e < n && !strcmp(v[e].group, v[first].group);
		     e++)
			;
		/* Wakers first, the most time first; other, none last. */
		qsort(v + first, e - first, sizeof(*v), cmp_view);
		for (j = first; j < e; j++)
			if (v[j].n || v[j].ns)
				out[k++] = v[j];
	}
	free(v);
	free(sums);
	r->v = out;
	r->n = k;
	r->cap = k + 1;
}

/* The first line of thread @tid in @r, or r->n. */
static size_t first_of(const struct tsa_wakers_report *r, uint64_t tid)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].tid == tid)
			break;
	return i;
}

size_t tsa_wakers_chain(const struct tsa_wakers_report *r, uint64_t tid,
			size_t depth, size_t *step)
{
	size_t n = 0, i, k;

	while (n < depth) {
		i = first_of(r, tid);
		/* Its wakers come first, the most time first. */
		if (i == r->n || r->v[i].state < 0 || !r->v[i].ns)
			break;
		step[n++] = i;
		if (!is_kind_str(&r->v[i], "thread"))
			break;
		tid = r->v[i].wtid;
		for (k = 0; k < n; k++)
			if (r->v[step[k]].tid == tid)
				return n;	/* a cycle: it ends there */
	}
	return n;
}
