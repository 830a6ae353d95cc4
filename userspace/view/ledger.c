// SPDX-License-Identifier: GPL-2.0
/*
 * view/ledger.c - group counters that never go down (ledger.h).
 *
 * A contributor is what one process (pid and start, so that a reused
 * pid is another) adds to one group at a read: its rows', or by thread
 * name those of its rows with that name; and its /proc/tsa/hist lines'.
 * Each read recomputes the contributors it sees; one it no longer sees
 * hands its last numbers to its group's departed sums. A group's export
 * is departed + live, at least its export of the read before.
 */
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "util.h"

/* elapsed, then the states' ns, then the counters */
#define LV_ELAPSED	0
#define LV_NS		1
#define LV_CNT		(LV_NS + TSA_NSTATES)
#define LV_NUM		(LV_CNT + TSA_NCOUNTERS)
/* a state's distribution: count, sum_ns, then its buckets */
#define LH_NUM		(2 + TSA_HIST_NB)

static void *xzalloc(size_t n)
{
	void *p = xmalloc(n);

	memset(p, 0, n);
	return p;
}

struct ledger_contrib {
	uint64_t pid, since;
	size_t slot;
	uint64_t gen;			/* the read that last saw it */
	uint64_t v[LV_NUM];
	uint64_t *h[TSA_NSTATES];	/* NULL, or LH_NUM numbers */
};

struct ledger_slot {
	char *key;
	char *comm;			/* GROUP_PID: the process's name */
	uint64_t pid, uid;
	double seen;			/* when it last had a contributor */
	uint64_t dep[LV_NUM];		/* departed contributors' */
	uint64_t deph[TSA_NSTATES][LH_NUM];
	uint64_t out[LV_NUM];		/* the last export */
	uint64_t outh[TSA_NSTATES][LH_NUM];
	uint64_t live[LV_NUM];		/* this read's contributors' */
	uint64_t liveh[TSA_NSTATES][LH_NUM];
	long group;			/* its index in this read's table, -1 */
	int gone;			/* GROUP_PID: its pid is another's now */
};

void ledger_init(struct ledger *l, enum group_by by, double stale_after)
{
	memset(l, 0, sizeof(*l));
	l->by = by;
	l->stale_after = stale_after;
}

static void contrib_free(struct ledger_contrib *c)
{
	int s;

	for (s = 0; s < TSA_NSTATES; s++)
		free(c->h[s]);
}

static void slot_free(struct ledger_slot *sl)
{
	free(sl->key);
	free(sl->comm);
}

/* Forget every group and contributor (a reload), keeping the memory. */
static void forget_all(struct ledger *l)
{
	size_t i;

	for (i = 0; i < l->nc; i++)
		contrib_free(&l->c[i]);
	for (i = 0; i < l->nslots; i++)
		slot_free(&l->slot[i]);
	l->nc = 0;
	l->nslots = 0;
	tsa_index_clear(&l->c_idx, 0, 256);
	tsa_index_clear(&l->slot_idx, 0, 64);
}

void ledger_free(struct ledger *l)
{
	forget_all(l);
	free(l->c);
	free(l->slot);
	free(l->g);
	free(l->mh);
	tsa_index_free(&l->c_idx);
	tsa_index_free(&l->slot_idx);
	memset(l, 0, sizeof(*l));
}

uint64_t ledger_load_time(const struct tsa_snap *s)
{
	uint64_t load = 0, since;
	size_t i;

	for (i = 0; i < s->nrows; i++) {
		const struct tsa_row *r = &s->rows[i];

		if (!(r->v[F_FLAGS] & TSA_F_LOAD) ||
		    r->v[F_FLAGS] & TSA_F_TOTALS)
			continue;
		since = tsa_row_since(r);
		if (since && (!load || since < load))
			load = since;
	}
	return load;
}

static void slot_reindex(struct ledger *l)
{
	size_t i;

	tsa_index_clear(&l->slot_idx, 2 * (l->nslots + 1), 64);
	for (i = 0; i < l->nslots; i++)
		tsa_index_put(&l->slot_idx, tsa_hash_str(l->slot[i].key), i);
}

static size_t slot_get(struct ledger *l, const char *key)
{
	struct ledger_slot *sl;
	size_t j;

	tsa_index_each(&l->slot_idx, tsa_hash_str(key), j)
		if (!strcmp(l->slot[tsa_index_at(&l->slot_idx, j)].key, key))
			return tsa_index_at(&l->slot_idx, j);
	if (l->nslots == l->slot_cap) {
		l->slot_cap = l->slot_cap ? 2 * l->slot_cap : 64;
		l->slot = xrealloc(l->slot, l->slot_cap * sizeof(*l->slot));
	}
	sl = &l->slot[l->nslots];
	memset(sl, 0, sizeof(*sl));
	sl->key = xstrdup(key);
	sl->group = -1;
	if (!l->slot_idx.cap || tsa_index_full(&l->slot_idx)) {
		l->nslots++;
		slot_reindex(l);
	} else {
		tsa_index_put(&l->slot_idx, tsa_hash_str(key), l->nslots++);
	}
	return l->nslots - 1;
}

static uint64_t c_hash(uint64_t pid, uint64_t since, size_t slot)
{
	return tsa_hash_u64(pid ^ tsa_hash_u64(since ^ tsa_hash_u64(slot)));
}

static void c_reindex(struct ledger *l)
{
	size_t i;

	tsa_index_clear(&l->c_idx, 2 * (l->nc + 1), 256);
	for (i = 0; i < l->nc; i++)
		tsa_index_put(&l->c_idx, c_hash(l->c[i].pid, l->c[i].since,
						 l->c[i].slot), i);
}

/* Contributor (@pid, @since) of @slot, zeroed at its first use a read. */
static struct ledger_contrib *contrib_get(struct ledger *l, uint64_t pid,
					  uint64_t since, size_t slot)
{
	uint64_t hash = c_hash(pid, since, slot);
	struct ledger_contrib *c = NULL;
	size_t j;
	int s;

	tsa_index_each(&l->c_idx, hash, j) {
		struct ledger_contrib *x = &l->c[tsa_index_at(&l->c_idx, j)];

		if (x->pid == pid && x->since == since && x->slot == slot) {
			c = x;
			break;
		}
	}
	if (!c) {
		if (l->nc == l->c_cap) {
			l->c_cap = l->c_cap ? 2 * l->c_cap : 256;
			l->c = xrealloc(l->c, l->c_cap * sizeof(*l->c));
		}
		c = &l->c[l->nc];
		memset(c, 0, sizeof(*c));
		c->pid = pid;
		c->since = since;
		c->slot = slot;
		c->gen = l->gen;
		if (!l->c_idx.cap || tsa_index_full(&l->c_idx)) {
			l->nc++;
			c_reindex(l);
		} else {
			tsa_index_put(&l->c_idx, hash, l->nc++);
		}
		return c;
	}
	if (c->gen != l->gen) {
		c->gen = l->gen;
		memset(c->v, 0, sizeof(c->v));
		for (s = 0; s < TSA_NSTATES; s++)
			if (c->h[s])
				memset(c->h[s], 0, LH_NUM * sizeof(uint64_t));
	}
	return c;
}

static void add_row(uint64_t *v, const struct tsa_row *r)
{
	int i;

	v[LV_ELAPSED] += r->v[F_ELAPSED];
	for (i = 0; i < TSA_NSTATES; i++)
		v[LV_NS + i] += r->v[F_NS + i];
	for (i = 0; i < TSA_NCOUNTERS; i++)
		v[LV_CNT + i] += r->v[F_CNT + i];
}

/* The slot of row @r's group (@r NULL: a process's hist line). */
static long slot_of(struct ledger *l, const struct tsa_snap *s,
		    const struct tsa_proc *p, const struct tsa_row *r,
		    const struct group_table *t, const long *proc_group,
		    const long *gslot)
{
	struct group_who w;
	char key[4096];
	long gi;

	if (l->by == GROUP_COMM) {
		group_who_of(&w, s, p, r, r);
		group_key_of(key, sizeof(key), l->by, &w, NULL, NULL);
		gi = group_find(t, key);
	} else {
		gi = proc_group[p - s->procs];
	}
	return gi < 0 ? -1 : gslot[gi];
}

/* Each process's start (ledger.h: with its pid, what tells it). */
static void proc_starts(const struct tsa_snap *s, uint64_t *psince)
{
	size_t i;

	for (i = 0; i < s->nrows; i++) {
		const struct tsa_row *r = &s->rows[i];
		const struct tsa_proc *p;

		/* A process's rows come together: its first is here. */
		if (i && s->rows[i - 1].v[F_PID] == r->v[F_PID])
			continue;
		p = tsa_snap_proc(s, r->v[F_PID]);
		if (p)
			psince[p - s->procs] = proc_since(s, p, r);
	}
}

/* This read's contributors from @s's rows and @h's lines. */
static void contributions(struct ledger *l, const struct tsa_snap *s,
			  const struct tsa_hist_snap *h, const uint64_t *pids,
			  size_t npids, const struct group_table *t,
			  const long *proc_group, const long *gslot,
			  const uint64_t *psince)
{
	size_t i;
	int b;

	for (i = 0; i < s->nrows; i++) {
		const struct tsa_row *r = &s->rows[i];
		uint64_t pid = r->v[F_PID];
		const struct tsa_proc *p = tsa_snap_proc(s, pid);
		long sl;

		if (!p || !p->nlwp || !tsa_pid_selected(pids, npids, pid))
			continue;
		sl = slot_of(l, s, p, r, t, proc_group, gslot);
		if (sl >= 0)
			add_row(contrib_get(l, pid, psince[p - s->procs],
					    (size_t)sl)->v, r);
	}
	for (i = 0; h && i < h->n; i++) {
		const struct tsa_hline *hl = &h->l[i];
		const struct tsa_proc *p = tsa_snap_proc(s, hl->pid);
		const struct tsa_row *r = NULL;
		struct ledger_contrib *c;
		int st = hl->state;
		uint64_t *x;
		long sl;

		/* As metrics_hist_compute() takes them. */
		if (!hl->has_b || st < 0 || !p || !p->nlwp ||
		    !tsa_pid_selected(pids, npids, hl->pid))
			continue;
		if (hl->tid) {
			r = tsa_snap_thread(s, hl->tid);
			if (!r || r->v[F_PID] != hl->pid)
				continue;
		}
		sl = slot_of(l, s, p, r, t, proc_group, gslot);
		if (sl < 0)
			continue;
		c = contrib_get(l, hl->pid, psince[p - s->procs], (size_t)sl);
		if (!c->h[st])
			c->h[st] = xzalloc(LH_NUM * sizeof(uint64_t));
		x = c->h[st];
		x[1] += hl->ns - hl->open_ns;
		for (b = 0; b < TSA_HIST_NB; b++) {
			x[2 + b] += hl->b[b];
			x[0] += hl->b[b];
		}
	}
}

/* Contributors not seen in this read: their numbers to their groups. */
static void depart(struct ledger *l)
{
	size_t i, n = 0;
	int s, k;

	for (i = 0; i < l->nc; i++) {
		struct ledger_contrib *c = &l->c[i];
		struct ledger_slot *sl = &l->slot[c->slot];

		if (c->gen == l->gen) {
			l->c[n++] = *c;
			continue;
		}
		for (k = 0; k < LV_NUM; k++)
			sl->dep[k] += c->v[k];
		for (s = 0; s < TSA_NSTATES; s++)
			for (k = 0; c->h[s] && k < LH_NUM; k++)
				sl->deph[s][k] += c->h[s][k];
		contrib_free(c);
	}
	if (n != l->nc) {
		l->nc = n;
		c_reindex(l);
	}
}

/*
 * Forget the groups stale for longer than @l->stale_after, and those
 * gone (a process whose pid another has now); @gslot's @ng
 * slots (of this read's groups, never forgotten) follow their moves.
 */
static void expire(struct ledger *l, double now, long *gslot, size_t ng)
{
	size_t i, n = 0, *to;

	to = xmalloc((l->nslots + 1) * sizeof(*to));
	for (i = 0; i < l->nslots; i++) {
		if (l->slot[i].group < 0 && (l->slot[i].gone ||
		    (l->stale_after > 0 &&
		     now - l->slot[i].seen > l->stale_after))) {
			slot_free(&l->slot[i]);
			continue;
		}
		to[i] = n;
		l->slot[n++] = l->slot[i];
	}
	if (n != l->nslots) {
		/* A stale group has no contributor: none points at it. */
		for (i = 0; i < l->nc; i++)
			l->c[i].slot = to[l->c[i].slot];
		for (i = 0; i < ng; i++)
			gslot[i] = (long)to[gslot[i]];
		l->nslots = n;
		slot_reindex(l);
		c_reindex(l);
	}
	free(to);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Slot @sl's export now: departed + live, never below the last one. */
static void slot_out(struct ledger_slot *sl, struct tsa_group *g,
		     struct metrics_hist *mh)
{
	int k, s, b;

	for (k = 0; k < LV_NUM; k++)
		sl->out[k] = max_u64(sl->out[k], sl->dep[k] + sl->live[k]);
	for (s = 0; s < TSA_NSTATES; s++)
		for (k = 0; k < LH_NUM; k++)
			sl->outh[s][k] = max_u64(sl->outh[s][k],
						 sl->deph[s][k] +
						 sl->liveh[s][k]);
	g->elapsed = sl->out[LV_ELAPSED];
	for (s = 0; s < TSA_NSTATES; s++)
		g->ns[s] = sl->out[LV_NS + s];
	for (k = 0; k < TSA_NCOUNTERS; k++)
		g->cnt[k] = sl->out[LV_CNT + k];
	if (!mh)
		return;
	for (s = 0; s < TSA_NSTATES; s++) {
		/*
		 * Buckets are kept each at least what it was; the count is
		 * their sum, so it and the cumulative buckets stay in step.
		 */
		mh->count[s] = 0;
		for (b = 0; b < TSA_HIST_NB; b++) {
			mh->b[s][b] = sl->outh[s][2 + b];
			mh->count[s] += mh->b[s][b];
		}
		mh->sum_ns[s] = sl->outh[s][1];
	}
}

static int by_key(const void *a, const void *b, void *arg)
{
	const struct ledger *l = arg;

	return strcmp(l->slot[*(const size_t *)a].key,
		      l->slot[*(const size_t *)b].key);
}

size_t ledger_update(struct ledger *l, const struct tsa_snap *s,
		     const struct tsa_hist_snap *h, const uint64_t *pids,
		     size_t npids, const struct group_table *t,
		     const long *proc_group, double now,
		     struct tsa_group **g, struct metrics_hist **mh)
{
	uint64_t load = ledger_load_time(s), *psince;
	size_t i, n = 0, nstale = 0, *stale;
	long *gslot;

	/*
	 * Another load: the module was loaded again, every count anew (an
	 * earlier one, in a state file: another boot).
	 */
	if (load && l->load && load != l->load) {
		forget_all(l);
		l->resets++;
	}
	if (load)
		l->load = load;
	l->gen++;
	gslot = xmalloc((t->n + 1) * sizeof(*gslot));
	psince = xzalloc((s->nprocs + 1) * sizeof(*psince));
	for (i = 0; i < l->nslots; i++)
		l->slot[i].group = -1;
	proc_starts(s, psince);
	for (i = 0; i < t->n; i++) {
		struct ledger_slot *sl;
		char key[64];
		size_t was = l->nslots, j;

		/*
		 * A process is its pid and start: a pid used again is another
		 * process, whose series start anew (the old one's go, not to
		 * print two series of one pid).
		 */
		if (l->by == GROUP_PID) {
			const struct tsa_proc *p = tsa_snap_proc(s, t->g[i].pid);

			snprintf(key, sizeof(key), "%llu@%llu",
				 (unsigned long long)t->g[i].pid,
				 (unsigned long long)(p ? psince[p - s->procs] :
						      0));
			gslot[i] = (long)slot_get(l, key);
			for (j = 0; l->nslots > was && j < was; j++)
				if (l->slot[j].pid == t->g[i].pid)
					l->slot[j].gone = 1;
		} else {
			gslot[i] = (long)slot_get(l, t->g[i].key);
		}
		sl = &l->slot[gslot[i]];
		sl->group = (long)i;
		sl->seen = now;
		sl->pid = t->g[i].pid;
		sl->uid = t->g[i].uid;
		if (t->g[i].comm) {
			free(sl->comm);
			sl->comm = xstrdup(t->g[i].comm);
		}
	}
	contributions(l, s, h, pids, npids, t, proc_group, gslot, psince);
	depart(l);
	expire(l, now, gslot, t->n);
	for (i = 0; i < l->nslots; i++) {
		memset(l->slot[i].live, 0, sizeof(l->slot[i].live));
		memset(l->slot[i].liveh, 0, sizeof(l->slot[i].liveh));
	}
	for (i = 0; i < l->nc; i++) {
		struct ledger_contrib *c = &l->c[i];
		struct ledger_slot *sl = &l->slot[c->slot];
		int k, st;

		for (k = 0; k < LV_NUM; k++)
			sl->live[k] += c->v[k];
		for (st = 0; st < TSA_NSTATES; st++)
			for (k = 0; c->h[st] && k < LH_NUM; k++)
				sl->liveh[st][k] += c->h[st][k];
	}
	if (l->nslots + 1 > l->g_cap) {
		l->g_cap = 2 * (l->nslots + 1);
		l->g = xrealloc(l->g, l->g_cap * sizeof(*l->g));
		l->mh = xrealloc(l->mh, l->g_cap * sizeof(*l->mh));
	}
	/* This read's groups in its order, then the stale ones by key. */
	stale = xmalloc((l->nslots + 1) * sizeof(*stale));
	for (i = 0; i < l->nslots; i++)
		if (l->slot[i].group < 0)
			stale[nstale++] = i;
	qsort_r(stale, nstale, sizeof(*stale), by_key, l);
	for (i = 0; i < t->n + nstale; i++) {
		size_t si = i < t->n ? (size_t)gslot[i] : stale[i - t->n];
		struct ledger_slot *sl = &l->slot[si];
		struct tsa_group *o = &l->g[n];

		if (i < t->n) {
			*o = t->g[i];
		} else {
			memset(o, 0, sizeof(*o));
			o->pid = sl->pid;
			o->uid = sl->uid;
		}
		o->key = sl->key;
		o->comm = sl->comm;
		slot_out(sl, o, h ? &l->mh[n] : NULL);
		n++;
	}
	free(stale);
	free(gslot);
	free(psince);
	*g = l->g;
	*mh = h ? l->mh : NULL;
	return n;
}

/* ---- the ledger as text ------------------------------------------------ */

/* @s on one line: a backslash and a newline escaped. */
static void put_text(FILE *f, const char *s)
{
	for (; s && *s; s++)
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
}

static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (*s == '\\' && (s[1] == '\\' || s[1] == 'n')) {
			*o++ = s[1] == 'n' ? '\n' : '\\';
			s++;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

static void put_nums(FILE *f, const char *what, const uint64_t *v, int n)
{
	int k;

	fputs(what, f);
	for (k = 0; k < n; k++)
		fprintf(f, " %llu", (unsigned long long)v[k]);
	fputc('\n', f);
}

static int any(const uint64_t *v, int n)
{
	while (n--)
		if (v[n])
			return 1;
	return 0;
}

void ledger_write(FILE *f, const struct ledger *l, const char *boot_id)
{
	size_t i;
	int s;

	fprintf(f, "tsa-ledger 1\nby %s\nboot_id %s\nload %llu\n",
		group_by_name[l->by], boot_id, (unsigned long long)l->load);
	for (i = 0; i < l->nslots; i++) {
		const struct ledger_slot *sl = &l->slot[i];

		fprintf(f, "slot %.3f %llu %llu\nkey ", sl->seen,
			(unsigned long long)sl->pid,
			(unsigned long long)sl->uid);
		put_text(f, sl->key);
		fputs("\ncomm ", f);
		put_text(f, sl->comm ? sl->comm : "");
		fputc('\n', f);
		put_nums(f, "dep", sl->dep, LV_NUM);
		put_nums(f, "out", sl->out, LV_NUM);
		for (s = 0; s < TSA_NSTATES; s++) {
			char what[32];

			if (any(sl->deph[s], LH_NUM)) {
				snprintf(what, sizeof(what), "deph %d", s);
				put_nums(f, what, sl->deph[s], LH_NUM);
			}
			if (any(sl->outh[s], LH_NUM)) {
				snprintf(what, sizeof(what), "outh %d", s);
				put_nums(f, what, sl->outh[s], LH_NUM);
			}
		}
	}
	for (i = 0; i < l->nc; i++) {
		const struct ledger_contrib *c = &l->c[i];
		char what[80];

		snprintf(what, sizeof(what), "c %llu %llu %zu",
			 (unsigned long long)c->pid,
			 (unsigned long long)c->since, c->slot);
		put_nums(f, what, c->v, LV_NUM);
		for (s = 0; s < TSA_NSTATES; s++)
			if (c->h[s]) {
				snprintf(what, sizeof(what), "ch %d", s);
				put_nums(f, what, c->h[s], LH_NUM);
			}
	}
	fputs("end\n", f);
}

/* @n numbers after *@p into @v; 0 when they are all there. */
static int get_nums(const char *p, uint64_t *v, int n)
{
	char *end;
	int k;

	for (k = 0; k < n; k++) {
		if (*p != ' ')
			return -1;
		v[k] = strtoull(p + 1, &end, 10);
		if (end == p + 1)
			return -1;
		p = end;
	}
	return *p ? -1 : 0;
}

int ledger_read(FILE *f, struct ledger *l, const char *boot_id, char *msg,
		size_t msglen)
{
	char *line = NULL, *nl;
	size_t cap = 0, lineno = 0;
	struct ledger_slot *sl = NULL;
	struct ledger_contrib *c = NULL;
	unsigned long long a, b;
	double seen;
	int st, n, rc = -1, done = 0;
	size_t k;

	snprintf(msg, msglen, "not a tsa-ledger 1 file");
	while (!done && getline(&line, &cap, f) > 0) {
		lineno++;
		nl = strchr(line, '\n');
		if (!nl)
			goto bad;
		*nl = '\0';
		if (lineno == 1) {
			if (strcmp(line, "tsa-ledger 1"))
				goto out;
		} else if (!strncmp(line, "by ", 3)) {
			if (group_by_lookup(line + 3) != (int)l->by) {
				rc = 0;		/* another grouping's */
				goto out;
			}
		} else if (!strncmp(line, "boot_id ", 8)) {
			if (strcmp(line + 8, boot_id)) {
				rc = 0;		/* another boot's */
				goto out;
			}
		} else if (sscanf(line, "load %llu%n", &a, &n) == 1 && !line[n]) {
			l->load = a;
		} else if (sscanf(line, "slot %lf %llu %llu%n", &seen, &a, &b,
				  &n) == 3 && !line[n]) {
			sl = NULL;
			c = NULL;
			if (getline(&line, &cap, f) <= 0 ||
			    strncmp(line, "key ", 4) || !strchr(line, '\n'))
				goto bad;
			lineno++;
			*strchr(line, '\n') = '\0';
			unescape(line + 4);
			k = slot_get(l, line + 4);
			if (k != l->nslots - 1)
				goto bad;	/* a key twice */
			sl = &l->slot[k];
			sl->seen = seen;
			sl->pid = a;
			sl->uid = b;
		} else if (sl && !strncmp(line, "comm ", 5)) {
			unescape(line + 5);
			free(sl->comm);
			sl->comm = line[5] ? xstrdup(line + 5) : NULL;
		} else if (sl && !strncmp(line, "dep", 3) && line[3] == ' ') {
			if (get_nums(line + 3, sl->dep, LV_NUM))
				goto bad;
		} else if (sl && !strncmp(line, "out", 3) && line[3] == ' ') {
			if (get_nums(line + 3, sl->out, LV_NUM))
				goto bad;
		} else if (sl && sscanf(line, "deph %d%n", &st, &n) == 1 &&
			   st >= 0 && st < TSA_NSTATES) {
			if (get_nums(line + n, sl->deph[st], LH_NUM))
				goto bad;
		} else if (sl && sscanf(line, "outh %d%n", &st, &n) == 1 &&
			   st >= 0 && st < TSA_NSTATES) {
			if (get_nums(line + n, sl->outh[st], LH_NUM))
				goto bad;
		} else if (sscanf(line, "c %llu %llu %zu%n", &a, &b, &k,
				  &n) == 3) {
			sl = NULL;
			if (k >= l->nslots)
				goto bad;
			c = contrib_get(l, a, b, k);
			if (get_nums(line + n, c->v, LV_NUM))
				goto bad;
		} else if (c && sscanf(line, "ch %d%n", &st, &n) == 1 &&
			   st >= 0 && st < TSA_NSTATES) {
			if (!c->h[st])
				c->h[st] = xzalloc(LH_NUM * sizeof(uint64_t));
			if (get_nums(line + n, c->h[st], LH_NUM))
				goto bad;
		} else if (!strcmp(line, "end")) {
			done = 1;
		} else {
			goto bad;
		}
	}
	if (!done) {
		snprintf(msg, msglen, "cut short at line %zu", lineno + 1);
		goto out;
	}
	rc = 0;
	goto out;
bad:
	snprintf(msg, msglen, "line %zu: not understood", lineno);
out:
	free(line);
	if (rc || !done) {
		forget_all(l);		/* nothing half read */
		l->load = 0;
	}
	/* The contributors read are the last read's: gen 0, as they are. */
	return rc;
}
