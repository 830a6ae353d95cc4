// SPDX-License-Identifier: GPL-2.0
/*
 * model/group.c - a snapshot's lifetime numbers summed per group.
 *
 * Rows come process by process (docs/proc-format.md), so a process's
 * cgroup is read once, at its first row, and its exited-threads line
 * joins the group of its process (cgroup, pid), of its uid (user), or
 * of the name on it (comm: the process's, since an exited thread's own
 * name is gone).  Groups are found through a hash of their keys: the
 * cost is one pass over the rows and, for cgroups, one small read per
 * process the cache has not seen (pid and start: a reused pid is read
 * again).
 *
 * A group report's interval numbers are built from the per-process
 * deltas of model/all.c, which already hold the exited threads (a thread
 * that exits moves from its live row to its process's totals line):
 * summing processes never loses or counts twice the interval of a
 * thread that exited in it.  By thread name, the live threads' deltas
 * go to their names and each process's remainder (its exited threads')
 * to the process's name.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"
#include "procfs.h"
#include "util.h"

const char *const group_by_name[GROUP_NBY] = {
	"pid", "cgroup", "user", "comm",
};

uint64_t proc_since(const struct tsa_snap *s, const struct tsa_proc *p,
		    const struct tsa_row *first)
{
	return tsa_row_since(p->leader >= 0 ? &s->rows[p->leader] : first);
}

int group_by_lookup(const char *name)
{
	int i;

	for (i = 0; i < GROUP_NBY; i++)
		if (!strcmp(name, group_by_name[i]))
			return i;
	return -1;
}

void fold_comm(char *out, size_t len, const char *comm)
{
	size_t n = strlen(comm), k = n;

	while (k > 0 && isdigit((unsigned char)comm[k - 1]))
		k--;
	if (k == n)
		snprintf(out, len, "%s", comm);
	else
		snprintf(out, len, "%.*s{N}", (int)k, comm);
}

/*
 * The cgroup cache: one generation per snapshot.  A process found in
 * the last one with the same start (its leader's since, or its first
 * row's when the leader has exited) takes its path from there; any
 * other is read.  Processes not seen again are dropped with the old
 * generation.
 */
static void cg_insert(struct cg_gen *g, uint64_t pid, uint64_t since,
		      const char *path)
{
	size_t len = strlen(path) + 1, i;

	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1024;
		g->e = xrealloc(g->e, g->cap * sizeof(*g->e));
	}
	if (!g->idx.cap || tsa_index_full(&g->idx)) {
		tsa_index_clear(&g->idx, 2 * (g->n + 1), 1024);
		for (i = 0; i < g->n; i++)
			tsa_index_put(&g->idx, tsa_hash_u64(g->e[i].pid), i);
	}
	if (g->len + len > g->scap) {
		while (g->len + len > g->scap)
			g->scap = g->scap ? g->scap * 2 : 16384;
		g->strs = xrealloc(g->strs, g->scap);
	}
	g->e[g->n].pid = pid;
	g->e[g->n].since = since;
	g->e[g->n].off = g->len;
	memcpy(g->strs + g->len, path, len);
	g->len += len;
	tsa_index_put(&g->idx, tsa_hash_u64(pid), g->n++);
}

static const char *cg_find(const struct cg_gen *g, uint64_t pid,
			   uint64_t since)
{
	const struct cg_ent *e;
	size_t j;

	tsa_index_each(&g->idx, tsa_hash_u64(pid), j) {
		e = &g->e[tsa_index_at(&g->idx, j)];
		if (e->pid == pid)
			return e->since == since ? g->strs + e->off : NULL;
	}
	return NULL;
}

void cgroup_lookup(struct cgroup_cache *cc, char *out, size_t len,
		   const char *procfs, uint64_t pid, uint64_t since)
{
	const char *hit = cc ? cg_find(&cc->gen[cc->cur], pid, since) : NULL;

	if (hit) {
		snprintf(out, len, "%s", hit);
		cc->hits++;
	} else {
		cgroup_of(out, len, procfs, pid);
		if (cc)
			cc->reads++;
	}
	if (cc && !cg_find(&cc->gen[!cc->cur], pid, since))
		cg_insert(&cc->gen[!cc->cur], pid, since, out);
}

void cgroup_cache_put(struct cgroup_cache *cc, uint64_t pid, uint64_t since,
		      const char *path)
{
	if (!cg_find(&cc->gen[cc->cur], pid, since))
		cg_insert(&cc->gen[cc->cur], pid, since, path);
}

void cgroup_cache_swap(struct cgroup_cache *cc)
{
	struct cg_gen *old = &cc->gen[cc->cur];

	/* The old generation becomes the next one, emptied. */
	if (old->idx.cap)
		tsa_index_clear(&old->idx, 0, 1024);
	old->n = 0;
	old->len = 0;
	cc->cur = !cc->cur;
}

void cgroup_cache_free(struct cgroup_cache *cc)
{
	int i;

	for (i = 0; i < 2; i++) {
		free(cc->gen[i].e);
		free(cc->gen[i].strs);
		tsa_index_free(&cc->gen[i].idx);
	}
	memset(cc, 0, sizeof(*cc));
}

/* A block of keys; a full one is kept, a new one goes in front. */
struct group_strs {
	struct group_strs *next;
	size_t len, cap;
	char s[];
};

/* @key kept in @t's blocks: it stays there until the table is reset. */
static const char *keep_key(struct group_table *t, const char *key)
{
	struct group_strs *b = t->strs;
	size_t klen = strlen(key) + 1;
	char *k;

	if (!b || b->len + klen > b->cap) {
		size_t cap = b ? 2 * b->cap : 4096;

		while (cap < klen)
			cap *= 2;
		b = xmalloc(sizeof(*b) + cap);
		b->next = t->strs;
		b->len = 0;
		b->cap = cap;
		t->strs = b;
	}
	k = memcpy(b->s + b->len, key, klen);
	b->len += klen;
	return k;
}

/* Forget the keys, keeping the newest (largest) block; @all: it too. */
static void drop_keys(struct group_table *t, int all)
{
	struct group_strs *b = t->strs ? t->strs->next : NULL, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	if (t->strs && all) {
		free(t->strs);
		t->strs = NULL;
	}
	if (t->strs) {
		t->strs->next = NULL;
		t->strs->len = 0;
	}
}

/* Index the groups again, with room for as many more when @grow. */
static void rehash(struct group_table *t, int grow)
{
	size_t i;

	tsa_index_clear(&t->idx, grow ? 2 * (t->n + 1) : t->n, 256);
	for (i = 0; i < t->n; i++)
		tsa_index_put(&t->idx, tsa_hash_str(t->g[i].key), i);
}

/* The group named @key, added (zeroed) when it is new. */
static struct tsa_group *group_get(struct group_table *t, const char *key)
{
	struct tsa_group *g;
	size_t j;

	if (!t->idx.cap || tsa_index_full(&t->idx))
		rehash(t, 1);
	tsa_index_each(&t->idx, tsa_hash_str(key), j)
		if (!strcmp(t->g[tsa_index_at(&t->idx, j)].key, key))
			return &t->g[tsa_index_at(&t->idx, j)];
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->g = xrealloc(t->g, t->cap * sizeof(*t->g));
	}
	g = &t->g[t->n];
	memset(g, 0, sizeof(*g));
	g->key = keep_key(t, key);
	g->last_pid = UINT64_MAX;
	g->orig = t->n;
	tsa_index_put(&t->idx, tsa_hash_str(key), t->n++);
	return g;
}

size_t group_add(struct group_table *t, const char *key)
{
	return (size_t)(group_get(t, key) - t->g);
}

void group_table_reset(struct group_table *t)
{
	t->n = 0;
	drop_keys(t, 0);
	if (t->idx.cap)
		tsa_index_clear(&t->idx, 0, 256);
}

static void add_row(struct tsa_group *g, const struct tsa_row *r)
{
	int i;

	if (g->last_pid != r->v[F_PID]) {
		g->nprocs++;
		g->last_pid = r->v[F_PID];
	}
	if (!(r->v[F_FLAGS] & TSA_F_TOTALS))
		g->nlwps++;
	g->elapsed += r->v[F_ELAPSED];
	for (i = 0; i < TSA_NSTATES; i++)
		g->ns[i] += r->v[F_NS + i];
	for (i = 0; i < TSA_NCOUNTERS; i++)
		g->cnt[i] += r->v[F_CNT + i];
}

/* By pid, uid or name, as @by (qsort_r's argument) groups. */
static int cmp_group(const void *a, const void *b, void *by)
{
	const struct tsa_group *x = a, *y = b;
	enum group_by sort_by = *(const enum group_by *)by;

	if (sort_by == GROUP_PID && x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (sort_by == GROUP_USER && x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	return strcmp(x->key, y->key);
}

void group_who_of(struct group_who *w, const struct tsa_snap *s,
		  const struct tsa_proc *p, const struct tsa_row *r,
		  const struct tsa_row *first)
{
	w->pid = p->agg.v[F_PID];
	w->uid = p->agg.v[F_UID];
	w->since = p->leader >= 0 || first ? proc_since(s, p, first) : 0;
	w->comm = !r || r->v[F_FLAGS] & TSA_F_TOTALS ? p->agg.comm : r->comm;
}

void group_key_of(char *key, size_t len, enum group_by by,
		  const struct group_who *w, const char *procfs,
		  struct cgroup_cache *cc)
{
	switch (by) {
	case GROUP_PID:
		snprintf(key, len, "%" PRIu64, w->pid);
		break;
	case GROUP_CGROUP:
		cgroup_lookup(cc, key, len, procfs, w->pid, w->since);
		break;
	case GROUP_USER:
		/* A process's threads under its uid (its leader's). */
		snprintf(key, len, "%s", user_name((uid_t)w->uid));
		break;
	default:
		fold_comm(key, len, w->comm);
		break;
	}
}

size_t group_compute(const struct tsa_snap *s, enum group_by by,
		     const uint64_t *pids, size_t npids, const char *procfs,
		     struct cgroup_cache *cc, struct group_table *t,
		     long *proc_group)
{
	const struct tsa_row *first = NULL;
	struct group_who w;
	char key[4096];
	size_t i;

	group_table_reset(t);
	if (proc_group)
		for (i = 0; i < s->nprocs; i++)
			proc_group[i] = -1;
	for (i = 0; i < s->nrows; i++) {
		const struct tsa_row *r = &s->rows[i];
		uint64_t pid = r->v[F_PID];
		const struct tsa_proc *p = tsa_snap_proc(s, pid);
		struct tsa_group *g;

		if (!p || !p->nlwp || !tsa_pid_selected(pids, npids, pid))
			continue;
		/* A process's rows come together: its first is here. */
		if (i == 0 || s->rows[i - 1].v[F_PID] != pid)
			first = r;
		/* The cgroup once per process: at its first row. */
		if (by != GROUP_CGROUP || first == r) {
			group_who_of(&w, s, p, r, first);
			group_key_of(key, sizeof(key), by, &w, procfs, cc);
		}
		g = group_get(t, key);
		if (by == GROUP_PID) {
			g->pid = pid;
			g->uid = p->agg.v[F_UID];
			g->comm = p->agg.comm;
		} else if (by == GROUP_USER) {
			g->uid = p->agg.v[F_UID];
		}
		if (proc_group)
			proc_group[p - s->procs] = (long)(g - t->g);
		add_row(g, r);
	}
	qsort_r(t->g, t->n, sizeof(*t->g), cmp_group, &by);
	rehash(t, 0);	/* the hash pointed at the order before the sort */
	if (cc)
		cgroup_cache_swap(cc);
	if (proc_group) {
		/* Group indexes from before the sort to after it. */
		size_t *to = xmalloc((t->n + 1) * sizeof(*to));

		for (i = 0; i < t->n; i++)
			to[t->g[i].orig] = i;
		for (i = 0; i < s->nprocs; i++)
			if (proc_group[i] >= 0)
				proc_group[i] = (long)to[proc_group[i]];
		free(to);
	}
	return t->n;
}

/* ---- one report of groups --------------------------------------------- */

static void delta_add(struct tsa_delta *to, const struct tsa_delta *d)
{
	int i;

	to->elapsed += d->elapsed;
	for (i = 0; i < TSA_NSTATES; i++)
		to->ns[i] += d->ns[i];
	for (i = 0; i < TSA_NCOUNTERS; i++) {
		to->cnt[i] += d->cnt[i];
		to->shown[i] += d->shown[i];
	}
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* @from less @d, each number no lower than 0. */
static void delta_sub(struct tsa_delta *from, const struct tsa_delta *d)
{
	int i;

	from->elapsed = sub0(from->elapsed, d->elapsed);
	for (i = 0; i < TSA_NSTATES; i++)
		from->ns[i] = sub0(from->ns[i], d->ns[i]);
	for (i = 0; i < TSA_NCOUNTERS; i++) {
		from->cnt[i] = sub0(from->cnt[i], d->cnt[i]);
		from->shown[i] = sub0(from->shown[i], d->shown[i]);
	}
}

/* The group's lifetime sums as a row, for the "time" key and JSON. */
static void life_row(struct tsa_row *r, const struct tsa_group *g)
{
	int i;

	memset(r, 0, sizeof(*r));
	r->v[F_ELAPSED] = g->elapsed;
	r->v[F_UID] = g->uid;
	for (i = 0; i < TSA_NSTATES; i++)
		r->v[F_NS + i] = g->ns[i];
	for (i = 0; i < TSA_NCOUNTERS; i++)
		r->v[F_CNT + i] = g->cnt[i];
	r->comm = g->key;
}

/*
 * Thread names: each live thread's interval goes to its own name; what
 * is left of its process's interval (the part of threads that exited
 * meanwhile: the process's numbers include them, the live threads'
 * lines do not) goes to the process's name, as in the lifetime sums.
 */
static void add_by_comm(struct group_report *r, const struct tsa_snap *cur,
			const struct tsa_select *sel, size_t np)
{
	struct tsa_select ts = *sel;
	struct tsa_totals tt;
	char key[4096];
	size_t i, nt;
	long g;

	ts.lwps = 1;
	nt = tsa_delta_compute(r->prev, cur, &ts, &r->tl, &r->tcap, &tt);
	for (i = 0; i < nt; i++) {
		const struct tsa_proc *p = tsa_snap_proc(cur, r->tl[i].pid);
		long k = r->procline[p - cur->procs];

		fold_comm(key, sizeof(key), r->tl[i].comm);
		g = group_find(&r->t, key);
		if (g >= 0)
			delta_add(&r->d[g], &r->tl[i]);
		if (k >= 0)
			delta_sub(&r->pl[k], &r->tl[i]);
	}
	for (i = 0; i < np; i++) {
		fold_comm(key, sizeof(key), r->pl[i].comm);
		g = group_find(&r->t, key);
		if (g >= 0)
			delta_add(&r->d[g], &r->pl[i]);
	}
}

size_t group_report_compute(struct group_report *r,
			    const struct tsa_snap *prev,
			    const struct tsa_snap *cur, enum group_by by,
			    const struct tsa_select *sel, const char *procfs,
			    struct tsa_totals *tot)
{
	struct tsa_select ps = *sel;
	size_t n, i, np;

	if (r->proc_cap < cur->nprocs + 1) {
		r->proc_cap = cur->nprocs + 1;
		r->proc_group = xrealloc(r->proc_group,
					 r->proc_cap * sizeof(long));
		r->procline = xrealloc(r->procline,
				       r->proc_cap * sizeof(long));
	}
	for (i = 0; i < cur->nprocs; i++)
		r->procline[i] = -1;
	n = group_compute(cur, by, sel->pids, sel->npids, procfs, &r->cc,
			      &r->t, r->proc_group);
	if (r->cap < n + 1) {
		r->cap = n + 1;
		r->d = xrealloc(r->d, r->cap * sizeof(*r->d));
		r->life = xrealloc(r->life, r->cap * sizeof(*r->life));
	}
	for (i = 0; i < n; i++) {
		struct tsa_delta *d = &r->d[i];

		memset(d, 0, sizeof(*d));
		life_row(&r->life[i], &r->t.g[i]);
		d->id = i;	/* ties sort in the groups' order */
		d->uid = r->t.g[i].uid;
		d->comm = r->t.g[i].key;
		d->now = &r->life[i];
		d->first = !prev;
	}

	/* Processes: their interval, exited threads included. */
	ps.lwps = 0;
	r->prev = prev;
	np = tsa_delta_compute(prev, cur, &ps, &r->pl, &r->pcap, tot);
	for (i = 0; i < np; i++)
		r->procline[tsa_snap_proc(cur, r->pl[i].pid) - cur->procs] =
			(long)i;
	if (by == GROUP_COMM) {
		add_by_comm(r, cur, sel, np);
		return n;
	}
	for (i = 0; i < np; i++) {
		long g = r->proc_group[tsa_snap_proc(cur, r->pl[i].pid) -
				       cur->procs];

		if (g >= 0)
			delta_add(&r->d[g], &r->pl[i]);
	}
	return n;
}

void group_report_free(struct group_report *r)
{
	group_table_free(&r->t);
	cgroup_cache_free(&r->cc);
	free(r->d);
	free(r->life);
	free(r->pl);
	free(r->tl);
	free(r->proc_group);
	free(r->procline);
	memset(r, 0, sizeof(*r));
}

long group_find(const struct group_table *t, const char *key)
{
	size_t j;

	tsa_index_each(&t->idx, tsa_hash_str(key), j)
		if (!strcmp(t->g[tsa_index_at(&t->idx, j)].key, key))
			return (long)tsa_index_at(&t->idx, j);
	return -1;
}

void group_table_free(struct group_table *t)
{
	free(t->g);
	tsa_index_free(&t->idx);
	drop_keys(t, 1);
	memset(t, 0, sizeof(*t));
}
