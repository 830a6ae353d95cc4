// SPDX-License-Identifier: GPL-2.0
/*
 * model/calls.c - the /proc/tsa/calls reader and the call lines of the
 * system-call view (-y, --syscalls).
 *
 * Reading.  As model/all.c: one read into a buffer that only grows, then
 * an in-place parse: the version line ("tsa-calls 1"; another major
 * version is refused), "now", "rows" (its first number: the rows of
 * the system-call table; 0: the module counts no calls), the "fields"
 * line (columns by name, unknown ones skipped; the x_ns columns by
 * state name), then one line per thread and table row.  The row's name
 * is the "name" column, or "call" in the first cut of the format; with
 * a "kind" column, only "syscall" lines are read ("trap" lines are the
 * sources of interrupt time, not calls).  Consecutive lines of one
 * thread (same tid, pid, flags, elapsed and at) form a group.  Call
 * names are interned per snapshot.
 *
 * Identity.  A thread's group is found by its tid and its start,
 * at - elapsed, which the calls file and /proc/tsa/all give alike: a
 * thread that reused a tid is another thread.  A line of the view
 * belongs to a thread or process of tsa_delta_compute(), which decides
 * whether it has an earlier sample (d->first); without one, its call
 * lines show lifetime values too.
 *
 * Deltas.  A thread's table is bounded: a call without a row takes the
 * row with the least time, whose numbers move to "other", so a row can
 * vanish, or start again from zero, between two reads.  A row's own
 * numbers can thus go down; the sum of a thread's rows and "other"
 * cannot.  So, per call name, from one read of a thread to the next:
 *
 *   - a row that did not go down (no number smaller): now - before;
 *   - a row that went down or is new: all of it is counted as new, and
 *     what it had before is taken to have moved to "other";
 *   - a row that vanished: what it had moved to "other";
 *   - "other": now - before - what moved to it.
 *
 * Should "other" come out negative in some column (the module's copy
 * of a call in progress that it could not name yet, or that took the
 * least row only in the copy, is in "other" at one read and in a row at
 * the next), the shortfall is taken back from the new rows, largest
 * first, then from the others that grew.  Every column of a thread then
 * adds up to exactly its growth over the interval, and no number is
 * negative.  "max" is not a sum: it is shown as the module reports it
 * (for a process, the largest of its threads' and exited threads').
 *
 * A process's line is the sum of its live threads' changes (a thread
 * without an earlier read: all of it), and of the change of its
 * exited-threads table, taken the same way, against that table before
 * plus the threads of the previous read that are gone since: an exited
 * thread's rows are merged into the table, where a call may land in
 * "other" too.
 *
 * Divisor.  A line's PCT is of its elapsed time over the interval as of
 * the calls reads, which come a little after the /proc/tsa/all reads
 * tsa_delta_compute() measured: each live thread has lived that gap
 * longer, so that a thread asleep in one call all through shows 100.
 *
 * Longer than the ~600 lines a file here keeps to, for the reason
 * model/all.c is: one format's reader and its deltas in one place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "calls.h"

/* ---- parsing ---------------------------------------------------------- */

enum {
	CF_TID, CF_PID, CF_UID, CF_FLAGS, CF_ELAPSED, CF_AT,
	CF_CALL, CF_CALLS, CF_NS, CF_MAX, CF_NAME, CF_KIND,
	CF_STATE,			/* + state index: x_ns */
	CF_NUM = CF_STATE + TSA_NSTATES
};

#define MAX_COLUMNS	1024

static int cfield_index(const char *name, size_t len)
{
	static const char *const fixed[] = {
		"tid", "pid", "uid", "flags", "elapsed", "at",
		"call", "calls", "ns", "max", "name", "kind",
	};
	size_t i;
	int st;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strlen(fixed[i]) == len && !memcmp(fixed[i], name, len))
			return (int)i;
	if (len != 6 || memcmp(name + 3, "_ns", 3) ||
	    (st = tsa_state_prefix(name)) < 0)
		return -1;
	return CF_STATE + st;
}

/*
 * A name token at *@t (printable ASCII, no space), NUL-terminated in
 * place; *@t moves past it.  NULL if a byte is not printable.
 */
static char *name_token(char **t)
{
	char *w, *tok = *t;

	for (w = tok; *w && *w != ' '; w++)
		if (*w < '!' || *w > '~')
			return NULL;
	*t = *w ? w + 1 : w;
	*w = '\0';
	return tok;
}

uint32_t tsa_calls_name(const struct tsa_calls_snap *s, const char *name)
{
	size_t i;

	tsa_index_each(&s->name_idx, tsa_hash_str(name), i)
		if (!strcmp(s->names[tsa_index_at(&s->name_idx, i)], name))
			return (uint32_t)tsa_index_at(&s->name_idx, i);
	return TSA_NONAME;
}

/* The index of @name, added if new. */
static uint32_t intern(struct tsa_calls_snap *s, const char *name)
{
	uint32_t id = tsa_calls_name(s, name);
	size_t j;

	if (id != TSA_NONAME)
		return id;
	if (tsa_index_full(&s->name_idx)) {
		tsa_index_clear(&s->name_idx, 2 * (s->nnames + 1), 256);
		for (j = 0; j < s->nnames; j++)
			tsa_index_put(&s->name_idx, tsa_hash_str(s->names[j]),
				      j);
	}
	if (s->nnames == s->names_cap) {
		s->names_cap = s->names_cap ? 2 * s->names_cap : 256;
		s->names = xrealloc(s->names, s->names_cap * sizeof(*s->names));
	}
	tsa_index_put(&s->name_idx, tsa_hash_str(name), s->nnames);
	s->names[s->nnames] = name;
	return (uint32_t)s->nnames++;
}

static uint64_t since(uint64_t at, uint64_t elapsed)
{
	return elapsed > at ? 0 : at - elapsed;
}

const struct tsa_cgroup *tsa_calls_thread(const struct tsa_calls_snap *s,
					  uint64_t tid, uint64_t start)
{
	size_t i;

	if (!s)
		return NULL;
	tsa_index_each(&s->tids, tsa_hash_u64(tid), i) {
		const struct tsa_cgroup *g = &s->groups[tsa_index_at(&s->tids, i)];

		if (g->tid == tid)
			return since(g->at, g->elapsed) == start ? g : NULL;
	}
	return NULL;
}

/* The tid and pid indexes.  -1 (and @msg) for a thread listed twice. */
static int build_index(struct tsa_calls_snap *s, char *msg, size_t msglen,
		       const uint32_t *lineof)
{
	size_t i, j;

	tsa_index_clear(&s->tids, s->ngroups, 16);
	tsa_index_clear(&s->pids, s->ngroups, 16);
	for (i = 0; i < s->ngroups; i++) {
		struct tsa_cgroup *g = &s->groups[i];

		tsa_index_each(&s->pids, tsa_hash_u64(g->pid), j)
			if (s->groups[tsa_index_at(&s->pids, j)].pid == g->pid)
				break;
		g->next = s->pids.slot[j];	/* first in the pid's chain */
		s->pids.slot[j] = (uint32_t)(i + 1);
		if (g->flags & TSA_F_TOTALS)
			continue;
		tsa_index_each(&s->tids, tsa_hash_u64(g->tid), j) {
			if (s->groups[tsa_index_at(&s->tids, j)].tid == g->tid) {
				snprintf(msg, msglen, "line %u: thread %llu "
					 "is listed again, apart from its "
					 "other lines", lineof[i],
					 (unsigned long long)g->tid);
				return -1;
			}
		}
		tsa_index_put(&s->tids, tsa_hash_u64(g->tid), i);
	}
	return 0;
}

int tsa_calls_read(struct tsa_calls_snap *s, const char *path,
		   char *msg, size_t msglen)
{
	int rc = tsa_read_file(path, &s->buf, &s->len, &s->cap, msg, msglen);

	if (rc != TSA_OK)
		return rc;
	clock_gettime(CLOCK_REALTIME, &s->wall);
	return tsa_calls_parse(s, msg, msglen);
}

/* A calls file's header as read: its snapshot, and whether "rows" came. */
struct calls_head {
	struct tsa_calls_snap *s;
	int have_rows;
};

/*
 * A header line of tsa-calls: "rows N ..." (the calls table's rows, then
 * others' to come); "states", or a line unknown, is skipped.
 */
static int calls_header(void *ctx, const char *line, size_t lineno,
			char *msg, size_t msglen)
{
	struct calls_head *h = ctx;
	const char *t = line + 5;

	if (strncmp(line, "rows ", 5))
		return TSA_OK;
	if (tsa_parse_u64(&t, &h->s->table_rows) || (*t && *t != ' ')) {
		snprintf(msg, msglen, "line %zu: bad \"rows\"", lineno);
		return TSA_EFORMAT;
	}
	h->have_rows = 1;
	return TSA_OK;
}

int tsa_calls_parse(struct tsa_calls_snap *s, char *msg, size_t msglen)
{
	int major = 1;
	static int colmap[MAX_COLUMNS];
	static const int need[] = {
		CF_TID, CF_PID, CF_FLAGS, CF_ELAPSED, CF_AT, CF_CALLS, CF_NS,
	};
	static const char *const need_name[] = {
		"tid", "pid", "flags", "elapsed", "at", "calls", "ns",
	};
	uint32_t *lineof = NULL;	/* first line of each group */
	size_t lineof_cap = 0;
	char *p, *end, *line;
	size_t ncols = 0, lineno = 1, c, i;
	struct calls_head head = { s, 0 };
	int have[CF_NUM] = { 0 }, rc, n;

	s->nrows = s->ngroups = s->nnames = 0;
	s->now = s->table_rows = 0;
	s->other = TSA_NONAME;
	tsa_index_clear(&s->name_idx, 0, 256);
	rc = tsa_parse_begin(&s->buf, s->len, &s->cap, "tsa-calls", &major,
			     &p, &end, msg, msglen);
	if (rc != TSA_OK)
		return rc;
	rc = TSA_EFORMAT;	/* what a bad line below returns */

	/* Header lines up to and including "fields". */
	n = tsa_parse_header(&p, end, &lineno, &s->now, calls_header, &head,
			     colmap, MAX_COLUMNS, cfield_index, have, msg,
			     msglen);
	if (n < 0)
		return TSA_EFORMAT;
	ncols = (size_t)n;
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (!have[need[i]]) {
			snprintf(msg, msglen, "line %zu: \"fields\" lacks %s",
				 lineno, need_name[i]);
			return TSA_EFORMAT;
		}
	}
	if (!have[CF_NAME] && !have[CF_CALL]) {
		snprintf(msg, msglen, "line %zu: \"fields\" lacks name",
			 lineno);
		return TSA_EFORMAT;
	}
	if (head.have_rows && !s->table_rows) {
		snprintf(msg, msglen, "the module keeps no system-call rows "
			 "(\"rows 0\")");
		return TSA_ENOCALLS;
	}

	/* Rows. */
	while ((line = tsa_next_line(&p, end)) != NULL) {
		uint64_t f[CF_STATE] = { 0 }, sum = 0;
		struct tsa_cgroup *g;
		struct tsa_crow *r;
		char *t = line, *call = NULL, *kind = NULL;

		lineno++;
		if (!*line)
			continue;
		if (s->nrows == s->rows_cap) {
			s->rows_cap = s->rows_cap ? s->rows_cap * 2 : 1024;
			s->rows = xrealloc(s->rows,
					   s->rows_cap * sizeof(*s->rows));
		}
		r = &s->rows[s->nrows];
		memset(r, 0, sizeof(*r));
		for (c = 0; c < ncols; c++) {
			uint64_t v;
			char *w;

			while (*t == ' ')
				t++;
			if (!*t) {
				snprintf(msg, msglen, "line %zu, column %zu: "
					 "missing (\"fields\" names %zu)",
					 lineno, c + 1, ncols);
				goto out;
			}
			if (colmap[c] == CF_CALL || colmap[c] == CF_NAME ||
			    colmap[c] == CF_KIND) {
				w = name_token(&t);
				if (!w) {
					snprintf(msg, msglen, "line %zu, "
						 "column %zu: bad %s", lineno,
						 c + 1, colmap[c] == CF_KIND ?
						 "kind" : "call name");
					goto out;
				}
				if (colmap[c] == CF_KIND)
					kind = w;
				else if (colmap[c] == CF_NAME || !call)
					call = w;
				continue;
			}
			if (tsa_parse_u64((const char **)&t, &v) ||
			    (*t && *t != ' ')) {
				snprintf(msg, msglen,
					 "line %zu, column %zu: not a number",
					 lineno, c + 1);
				goto out;
			}
			if (colmap[c] >= CF_STATE)
				r->v.st[colmap[c] - CF_STATE] = v;
			else if (colmap[c] >= 0)
				f[colmap[c]] = v;
		}
		while (*t == ' ')
			t++;
		if (*t) {
			snprintf(msg, msglen, "line %zu, column %zu: more "
				 "columns than \"fields\" names", lineno,
				 ncols + 1);
			goto out;
		}
		if (!f[CF_TID] && !(f[CF_FLAGS] & TSA_F_TOTALS)) {
			snprintf(msg, msglen, "line %zu: tid 0", lineno);
			goto out;
		}
		if (kind && strcmp(kind, "syscall"))
			continue;	/* a trap's row, or a kind to come */
		r->v.calls = f[CF_CALLS];
		r->v.ns = f[CF_NS];
		r->v.max = f[CF_MAX];
		for (i = 0; i < TSA_NSTATES; i++) {
			if (r->v.st[i] > UINT64_MAX - sum)
				sum = UINT64_MAX;
			else
				sum += r->v.st[i];
		}
		if (sum > r->v.ns) {
			snprintf(msg, msglen, "line %zu: the state columns "
				 "add up to more than ns", lineno);
			goto out;
		}
		r->v.rest = r->v.ns - sum;
		r->name = intern(s, call);
		if (s->other == TSA_NONAME && !strcmp(call, "other"))
			s->other = r->name;

		/* The thread's group: this line's, or the one it goes on. */
		g = s->ngroups ? &s->groups[s->ngroups - 1] : NULL;
		if (!g || g->tid != f[CF_TID] || g->pid != f[CF_PID] ||
		    g->flags != f[CF_FLAGS] || g->elapsed != f[CF_ELAPSED] ||
		    g->at != f[CF_AT]) {
			if (s->ngroups == s->groups_cap) {
				s->groups_cap = s->groups_cap ?
					s->groups_cap * 2 : 256;
				s->groups = xrealloc(s->groups, s->groups_cap *
						     sizeof(*s->groups));
			}
			if (s->ngroups == lineof_cap) {
				lineof_cap = s->groups_cap;
				lineof = xrealloc(lineof, lineof_cap *
						  sizeof(*lineof));
			}
			lineof[s->ngroups] = (uint32_t)lineno;
			g = &s->groups[s->ngroups++];
			g->tid = f[CF_TID];
			g->pid = f[CF_PID];
			g->uid = f[CF_UID];
			g->flags = f[CF_FLAGS];
			g->elapsed = f[CF_ELAPSED];
			g->at = f[CF_AT];
			g->first = (uint32_t)s->nrows;
			g->n = 0;
			g->next = 0;
		}
		g->n++;
		s->nrows++;
	}
	rc = build_index(s, msg, msglen, lineof) ? TSA_EFORMAT : TSA_OK;
out:
	free(lineof);
	return rc;
}

void tsa_calls_free(struct tsa_calls_snap *s)
{
	free(s->buf);
	free(s->rows);
	free(s->groups);
	free(s->names);
	tsa_index_free(&s->name_idx);
	tsa_index_free(&s->tids);
	tsa_index_free(&s->pids);
	memset(s, 0, sizeof(*s));
}

/* ---- deltas ----------------------------------------------------------- */

/* The columns that add up: calls, then the states, then rest. */
#define NCOMP	(TSA_NSTATES + 2)

static uint64_t *comp(struct tsa_cvec *v, int k)
{
	if (k == 0)
		return &v->calls;
	if (k <= TSA_NSTATES)
		return &v->st[k - 1];
	return &v->rest;
}

static uint64_t ccomp(const struct tsa_cvec *v, int k)
{
	return *comp((struct tsa_cvec *)v, k);
}

static void vadd(struct tsa_cvec *a, const struct tsa_cvec *b)
{
	int k;

	for (k = 0; k < NCOMP; k++)
		*comp(a, k) += ccomp(b, k);
	a->ns += b->ns;
	if (b->max > a->max)
		a->max = b->max;
}

/* No number of @a smaller than @b's. */
static int vge(const struct tsa_cvec *a, const struct tsa_cvec *b)
{
	int k;

	for (k = 0; k < NCOMP; k++)
		if (ccomp(a, k) < ccomp(b, k))
			return 0;
	return a->ns >= b->ns && a->max >= b->max;
}

/* ns from the parts, which is what it is in the file. */
static void vsum(struct tsa_cvec *v)
{
	int k;

	v->ns = 0;
	for (k = 1; k < NCOMP; k++)
		v->ns += *comp(v, k);
}

/* Per report: sums by name, for one thread or process at a time. */
struct acc {
	struct tsa_cvec *v;		/* by current-snapshot name */
	uint8_t *mark;
	uint32_t *touched;
	size_t ntouched;
	struct tsa_cvec other;
	uint64_t at;			/* latest at of the groups added */
};

static void acc_init(struct acc *a, size_t nnames)
{
	a->v = xmalloc((nnames + 1) * sizeof(*a->v));
	a->mark = xmalloc(nnames + 1);
	memset(a->mark, 0, nnames + 1);
	a->touched = xmalloc((nnames + 1) * sizeof(*a->touched));
	a->ntouched = 0;
	memset(&a->other, 0, sizeof(a->other));
	a->at = 0;
}

static void acc_free(struct acc *a)
{
	free(a->v);
	free(a->mark);
	free(a->touched);
}

static void acc_reset(struct acc *a)
{
	size_t i;

	for (i = 0; i < a->ntouched; i++)
		a->mark[a->touched[i]] = 0;
	a->ntouched = 0;
	memset(&a->other, 0, sizeof(a->other));
	a->at = 0;
}

/* @a's sum for name @id, zero the first time. */
static struct tsa_cvec *acc_slot(struct acc *a, uint32_t id)
{
	if (!a->mark[id]) {
		a->mark[id] = 1;
		a->touched[a->ntouched++] = id;
		memset(&a->v[id], 0, sizeof(a->v[id]));
	}
	return &a->v[id];
}

/*
 * Add @g's rows to @a; @map turns @s's name indexes into the current
 * snapshot's (NULL: @s is the current one).  A name the current
 * snapshot lacks (a row since evicted) goes to @gone.
 */
static void acc_group(struct acc *a, const struct tsa_calls_snap *s,
		      const struct tsa_cgroup *g, const uint32_t *map,
		      struct tsa_cvec *gone)
{
	uint32_t i;

	for (i = g->first; i < g->first + g->n; i++) {
		const struct tsa_crow *r = &s->rows[i];
		uint32_t id = map ? map[r->name] : r->name;

		if (r->name == s->other)
			vadd(&a->other, &r->v);
		else if (id == TSA_NONAME)
			vadd(gone, &r->v);
		else
			vadd(acc_slot(a, id), &r->v);
	}
	if (g->at > a->at)
		a->at = g->at;
}

/* The first group of @pid in @s, as a chain index (group + 1), or 0. */
static uint32_t pid_chain(const struct tsa_calls_snap *s, uint64_t pid)
{
	size_t j;

	if (!s)
		return 0;
	tsa_index_each(&s->pids, tsa_hash_u64(pid), j)
		if (s->groups[tsa_index_at(&s->pids, j)].pid == pid)
			return s->pids.slot[j];
	return 0;
}

/* The same live thread, in @s, as group @g: its tid, start and pid. */
static const struct tsa_cgroup *same_in(const struct tsa_calls_snap *s,
					const struct tsa_cgroup *g)
{
	const struct tsa_cgroup *o;

	o = tsa_calls_thread(s, g->tid, since(g->at, g->elapsed));
	return o && o->pid == g->pid ? o : NULL;
}

/* Scratch of one report: a call's change, and the accumulators. */
struct item {
	uint32_t id;
	int fresh;		/* taken as new: all of it counted */
	struct tsa_cvec d;
};

struct work {
	struct acc cur, prev;	/* one thread (or exited threads) */
	struct acc res;		/* its changes, summed for the line */
	struct acc tot;		/* the line's numbers as reported */
	struct tsa_cvec gone;	/* prev rows whose name cur lacks */
	struct item *items;
};

/* New rows first, then by time, largest first. */
static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->fresh != y->fresh)
		return y->fresh - x->fresh;
	if (x->d.ns != y->d.ns)
		return x->d.ns < y->d.ns ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The change from w->prev to w->cur (one thread, or a process's
 * exited threads), added to w->res: see the top of this file.
 */
static void change(struct work *w)
{
	struct acc *c = &w->cur, *p = &w->prev;
	struct tsa_cvec moved = w->gone, other = c->other;
	size_t i, n = 0;
	int k;

	for (i = 0; i < c->ntouched; i++) {
		uint32_t id = c->touched[i];
		struct item *it = &w->items[n++];

		it->id = id;
		it->d = c->v[id];
		it->fresh = 1;
		if (p->mark[id] && vge(&c->v[id], &p->v[id])) {
			for (k = 0; k < NCOMP; k++)
				*comp(&it->d, k) -= ccomp(&p->v[id], k);
			it->d.ns -= p->v[id].ns;
			it->fresh = 0;
		} else if (p->mark[id]) {
			vadd(&moved, &p->v[id]);
		}
	}
	for (i = 0; i < p->ntouched; i++)
		if (!c->mark[p->touched[i]])
			vadd(&moved, &p->v[p->touched[i]]);
	qsort(w->items, n, sizeof(*w->items), item_cmp);

	/*
	 * "other": its growth less what moved to it.  Short in a column:
	 * that much of the earlier "other" is in a row now; take it back
	 * from the new rows, then from the others that grew.
	 */
	for (k = 0; k < NCOMP; k++) {
		uint64_t *x = comp(&other, k);
		uint64_t was = ccomp(&p->other, k) + ccomp(&moved, k);
		uint64_t short_by;

		if (*x >= was) {
			*x -= was;
			continue;
		}
		short_by = was - *x;
		*x = 0;
		for (i = 0; i < n && short_by; i++) {
			uint64_t *y = comp(&w->items[i].d, k);
			uint64_t t = *y < short_by ? *y : short_by;

			*y -= t;
			short_by -= t;
		}
	}
	for (i = 0; i < n; i++) {
		vsum(&w->items[i].d);
		vadd(acc_slot(&w->res, w->items[i].id), &w->items[i].d);
	}
	vsum(&other);
	vadd(&w->res.other, &other);
}

/* Start a change: empty cur and prev. */
static void change_begin(struct work *w)
{
	acc_reset(&w->cur);
	acc_reset(&w->prev);
	memset(&w->gone, 0, sizeof(w->gone));
}

static struct tsa_call_line *grow(struct tsa_call_line **out, size_t *cap,
				  size_t n)
{
	if (n == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		*out = xrealloc(*out, *cap * sizeof(**out));
	}
	return &(*out)[n];
}

/* The lines of @d from w->res (changes) and w->tot (as reported). */
static size_t emit(struct work *w, const struct tsa_delta *d,
		   const struct tsa_calls_snap *cur,
		   struct tsa_call_line **out, size_t *cap, size_t n)
{
	size_t i;

	for (i = 0; i <= w->tot.ntouched; i++) {
		int other = i == w->tot.ntouched;
		uint32_t id = other ? 0 : w->tot.touched[i];
		const struct tsa_cvec *t = other ? &w->tot.other :
			&w->tot.v[id];
		const struct tsa_cvec *c = other ? &w->res.other :
			w->res.mark[id] ? &w->res.v[id] : NULL;
		struct tsa_call_line *l;

		if (!c || (!c->calls && !c->ns))
			continue;	/* nothing in the interval */
		l = grow(out, cap, n++);
		l->who = d;
		l->name = other ? "other" : cur->names[id];
		l->other = other;
		l->d = *c;
		l->d.max = t->max;
		l->total_calls = t->calls;
		l->total_ns = t->ns;
		l->at = w->tot.at;
		l->key = 0;
	}
	return n;
}

/* The thread @d: its group now, and then.  0 if it has none now. */
static int thread_changes(struct work *w, const struct tsa_delta *d,
			  const struct tsa_calls_snap *pv,
			  const struct tsa_calls_snap *cur, const uint32_t *map)
{
	struct tsa_cvec unused = { 0 };	/* no name is gone from cur */
	const struct tsa_cgroup *g, *pg;

	g = tsa_calls_thread(cur, d->id, since(d->now->v[F_AT],
					       d->now->v[F_ELAPSED]));
	if (!g || g->pid != d->pid)
		return 0;
	acc_group(&w->tot, cur, g, NULL, &unused);
	change_begin(w);
	acc_group(&w->cur, cur, g, NULL, &unused);
	if (pv && (pg = same_in(pv, g)) != NULL)
		acc_group(&w->prev, pv, pg, map, &w->gone);
	change(w);
	return 1;
}

/*
 * The process @d: each live thread's change, then that of the exited
 * threads' tables, which now also hold the threads that were live at
 * the previous read and are gone.  0 if it has no group now.
 */
static int process_changes(struct work *w, const struct tsa_delta *d,
			   const struct tsa_calls_snap *pv,
			   const struct tsa_calls_snap *cur,
			   const uint32_t *map)
{
	struct tsa_cvec unused = { 0 };
	const struct tsa_cgroup *g, *pg;
	uint32_t j;

	for (j = pid_chain(cur, d->pid); j; j = g->next) {
		g = &cur->groups[j - 1];
		acc_group(&w->tot, cur, g, NULL, &unused);
		if (g->flags & TSA_F_TOTALS)
			continue;
		change_begin(w);
		acc_group(&w->cur, cur, g, NULL, &unused);
		if (pv && (pg = same_in(pv, g)) != NULL)
			acc_group(&w->prev, pv, pg, map, &w->gone);
		change(w);
	}
	if (!w->tot.ntouched && !w->tot.other.calls && !w->tot.other.ns)
		return 0;
	change_begin(w);
	for (j = pid_chain(cur, d->pid); j; j = g->next) {
		g = &cur->groups[j - 1];
		if (g->flags & TSA_F_TOTALS)
			acc_group(&w->cur, cur, g, NULL, &unused);
	}
	for (j = pid_chain(pv, d->pid); j; j = g->next) {
		g = &pv->groups[j - 1];
		if ((g->flags & TSA_F_TOTALS) || !same_in(cur, g))
			acc_group(&w->prev, pv, g, map, &w->gone);
	}
	change(w);
	return 1;
}

/*
 * The divisor of a line's PCT: its elapsed time over the interval as of
 * the calls reads, which come a little after the /proc/tsa/all reads
 * that tsa_delta_compute() measured: each live thread's elapsed time
 * grew by that gap, @gap_cur at this read and @gap_prev at the one
 * before.
 */
static uint64_t calls_elapsed(const struct tsa_delta *d, int lwps,
			      const struct tsa_snap *aprev,
			      int64_t gap_cur, int64_t gap_prev)
{
	int64_t live_cur = lwps ? 1 : (int64_t)d->id, live_prev = 0;
	int64_t e;

	if (!d->first) {
		const struct tsa_proc *pp = lwps ? NULL :
			tsa_snap_proc(aprev, d->pid);

		live_prev = lwps ? 1 : pp ? (int64_t)pp->nlwp : 0;
	}
	e = (int64_t)d->elapsed + live_cur * gap_cur - live_prev * gap_prev;
	return e > 0 ? (uint64_t)e : d->elapsed;
}

size_t tsa_calls_compute(const struct tsa_snap *aprev,
			 const struct tsa_snap *acur,
			 const struct tsa_calls_snap *prev,
			 const struct tsa_calls_snap *cur,
			 const struct tsa_select *sel,
			 const struct tsa_delta *who, size_t nwho,
			 struct tsa_call_line **out, size_t *cap)
{
	struct work w;
	uint32_t *map = NULL;
	size_t i, n = 0, base;
	int64_t gap_cur = (int64_t)(cur->now - acur->now);
	int64_t gap_prev = prev && aprev ?
		(int64_t)(prev->now - aprev->now) : 0;

	acc_init(&w.cur, cur->nnames);
	acc_init(&w.prev, cur->nnames);
	acc_init(&w.res, cur->nnames);
	acc_init(&w.tot, cur->nnames);
	w.items = xmalloc((cur->nnames + 1) * sizeof(*w.items));
	if (prev) {
		map = xmalloc((prev->nnames + 1) * sizeof(*map));
		for (i = 0; i < prev->nnames; i++)
			map[i] = tsa_calls_name(cur, prev->names[i]);
	}

	for (i = 0; i < nwho; i++) {
		const struct tsa_delta *d = &who[i];
		const struct tsa_calls_snap *pv = d->first ? NULL : prev;
		uint64_t e;

		acc_reset(&w.res);
		acc_reset(&w.tot);
		if (!(sel->lwps ? thread_changes(&w, d, pv, cur, map) :
		      process_changes(&w, d, pv, cur, map)))
			continue;	/* no call at all */
		base = n;
		n = emit(&w, d, cur, out, cap, n);
		e = calls_elapsed(d, sel->lwps, aprev, gap_cur, gap_prev);
		for (; base < n; base++)
			(*out)[base].elapsed = e;
	}
	free(map);
	free(w.items);
	acc_free(&w.cur);
	acc_free(&w.prev);
	acc_free(&w.res);
	acc_free(&w.tot);
	return n;
}
