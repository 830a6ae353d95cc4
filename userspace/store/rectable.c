// SPDX-License-Identifier: GPL-2.0
/*
 * store/rectable.c - the module's tables in a recording: the system-call
 * rows (/proc/tsa/calls, lines "c...") and the wakers (/proc/tsa/wakers,
 * lines "w...", added on 2026-11-29: a replay before that skips them).
 *
 * A row of a table is known by its thread (tid, pid), the kind's other
 * key columns (a waker's tid) and its text columns (a call's kind and
 * name; a waker row's state, kind and name); its other columns are
 * numbers.  With X the kind's letter: a key block has the file's header
 * lines ("Xh ...") and every row ("Xr", in the file's own column order);
 * a delta block its clock ("Xh now N"), new rows whole, and a changed
 * row as "X= KEY" and each number's difference, KEY being "TID PID" and
 * the other key columns and the text columns ("c= TID PID KIND NAME",
 * "w= TID PID WAKER_TID STATE KIND NAME").  A row that only aged (its
 * thread's elapsed and at both grown by the time between the two reads,
 * nothing else) is left out, and the replay ages it so; a row no longer
 * there is "X- KEY".  A row that ages in a stay also grows its ns (and,
 * in a table with states, that stay's state; a call's longest, when this
 * call is it) by the same time: "X+ KEY COL MAX" says so once (COL -1:
 * no state), and the row ages so in every block after that does not
 * name it, until "X." (it ages plainly again), "X=" or "Xr" does.  In
 * a block a text column's spaces are written \040, so that a thread's
 * name (the wakers' last column) stays one word; nothing else changes.
 *
 * Longer than the ~600 lines a file here keeps to: the writer's and the
 * replay's sides of these lines are kept together, so that the two
 * cannot drift apart.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "all.h"
#include "rectable.h"
#include "util.h"

const struct ct_kind ct_calls = { "tsa-calls 1", 'c', "kind name", "", 1,
				  NULL };
const struct ct_kind ct_wakers = {
	"tsa-wakers 1", 'w', "state kind name", "waker_tid", 0, NULL
};
/*
 * The distributions' LAT rows: every thread has one (hist=lat, the
 * module's default, keeps no other state's buckets), of the same
 * columns; the other states' rows (USR and SYS without buckets, calls)
 * are not kept.
 */
const struct ct_kind ct_hist = { "tsa-hist ", 'h', "state", "", 0, "LAT" };

/* A row's key: its key columns' numbers and its text columns. */
struct ct_key {
	uint64_t v[CT_MAXKEY];
	const char *s[CT_MAXSTR];
};

static void row_key(const struct ct_file *f, const struct ct_row *r,
		    struct ct_key *k)
{
	int i;

	for (i = 0; i < f->nkey; i++)
		k->v[i] = r->v[f->key_v[i]];
	for (i = 0; i < f->nstr; i++)
		k->s[i] = r->s[i];
}

static uint64_t ct_hash(const struct ct_file *f, const struct ct_key *k)
{
	uint64_t h = 1469598103934665603ull;
	const char *s;
	int i;

	for (i = 0; i < f->nkey; i++)
		h = (h ^ k->v[i]) * 1099511628211ull;
	for (i = 0; i < f->nstr; i++)
		for (s = k->s[i]; *s; s++)
			h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return tsa_hash_u64(h);
}

static int key_is(const struct ct_file *f, const struct ct_row *r,
		  const struct ct_key *k)
{
	int i;

	for (i = 0; i < f->nkey; i++)
		if (r->v[f->key_v[i]] != k->v[i])
			return 0;
	for (i = 0; i < f->nstr; i++)
		if (strcmp(r->s[i], k->s[i]))
			return 0;
	return 1;
}

static long ct_find(const struct ct_file *f, const struct ct_key *k)
{
	size_t h;

	tsa_index_each(&f->idx, ct_hash(f, k), h)
		if (key_is(f, &f->rows[tsa_index_at(&f->idx, h)], k))
			return (long)tsa_index_at(&f->idx, h);
	return -1;
}

static void ct_index(struct ct_file *f)
{
	struct ct_key k;
	size_t i;

	tsa_index_clear(&f->idx, f->nrows, 16);
	for (i = 0; i < f->nrows; i++) {
		row_key(f, &f->rows[i], &k);
		tsa_index_put(&f->idx, ct_hash(f, &k), i);
	}
}

/* The place of the word @p (@n bytes) in the space-separated @list, or -1. */
static int word_in(const char *list, const char *p, size_t n)
{
	int i = 0;

	while (*list) {
		size_t l = strcspn(list, " ");

		if (l == n && !memcmp(list, p, n))
			return i;
		list += l + (list[l] == ' ');
		i++;
	}
	return -1;
}

static int words(const char *list)
{
	int n = 0;

	while (*list) {
		list += strcspn(list, " ");
		list += *list == ' ';
		n++;
	}
	return n;
}

/* The text column @col is, or -1 for a number. */
static int str_of(const struct ct_file *f, int col)
{
	int i;

	for (i = 0; i < f->nstr; i++)
		if (f->str_col[i] == col)
			return i;
	return -1;
}

/* The columns of a "fields ..." line. */
static int ct_columns(struct ct_file *f, const char *fields)
{
	const struct ct_kind *k = f->k;
	const char *p = fields + 7, *e;
	int col = 0, v = 0, i, want_s = words(k->strs);
	int want_k = 2 + words(k->keys);

	for (i = 0; i < CT_MAXSTR; i++)
		f->str_col[i] = -1;
	for (i = 0; i < CT_MAXKEY; i++)
		f->key_v[i] = -1;
	f->nstr = want_s;
	f->nkey = want_k;
	f->el_v = f->at_v = -1;
	f->ns_v = f->max_v = f->st_v = -1;
	f->nst = 0;
	for (; *p; p = *e ? e + 1 : e, col++) {
		size_t n;

		e = strchr(p, ' ');
		if (!e)
			e = p + strlen(p);
		n = (size_t)(e - p);
		i = word_in(k->strs, p, n);
		if (i >= 0) {
			f->str_col[i] = col;
			continue;
		}
		if (v == CT_MAXCOL)
			return -1;
		if (n == 2 && !memcmp(p, "ns", 2))
			f->ns_v = v;
		else if (n == 3 && !memcmp(p, "max", 3))
			f->max_v = v;
		else if (k->states && n > 3 && !memcmp(p + n - 3, "_ns", 3) &&
			 !f->nst++)
			f->st_v = v;
		if (n == 3 && !memcmp(p, "tid", 3))
			f->key_v[0] = v;
		else if (n == 3 && !memcmp(p, "pid", 3))
			f->key_v[1] = v;
		else if (n == 7 && !memcmp(p, "elapsed", 7))
			f->el_v = v;
		else if (n == 2 && !memcmp(p, "at", 2))
			f->at_v = v;
		else if ((i = word_in(k->keys, p, n)) >= 0)
			f->key_v[2 + i] = v;
		v++;
	}
	f->ncol = col;
	for (i = 0; i < want_s; i++)
		if (f->str_col[i] < 0)
			return -1;
	for (i = 0; i < want_k; i++)
		if (f->key_v[i] < 0)
			return -1;
	return f->el_v < 0 || f->at_v < 0 || f->ns_v < 0 || f->max_v < 0 ||
	       (k->states && f->st_v < 0) ? -1 : 0;
}

static struct ct_row *ct_new_row(struct ct_file *f)
{
	if (f->nrows == f->rows_cap) {
		f->rows_cap = f->rows_cap ? 2 * f->rows_cap : 256;
		f->rows = xrealloc(f->rows, f->rows_cap * sizeof(*f->rows));
	}
	memset(&f->rows[f->nrows], 0, sizeof(f->rows[0]));
	f->rows[f->nrows].order = f->nrows;
	f->rows[f->nrows].age_col = -1;
	return &f->rows[f->nrows++];
}

/* A block's text column: "\040" back to a space (other escapes stay). */
static void unescape_sp(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && !strncmp(s + 1, "040", 3)) {
			*o++ = ' ';
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/*
 * A row's text, cut in place into @r (its strings point into it): as
 * the kernel writes it (@raw: the last column, when it is text, to the
 * end of the line), or as a block does.
 */
static int ct_row_parse(const struct ct_file *f, char *line, struct ct_row *r,
			int raw)
{
	char *p = line, *e;
	int col, v = 0;

	for (col = 0; col < f->ncol; col++, p = e + 1) {
		int si = str_of(f, col), last = col == f->ncol - 1;

		e = raw && last && si >= 0 ? NULL : strchr(p, ' ');
		if ((e == NULL) != last)
			return -1;
		if (e)
			*e = '\0';
		else
			e = p + strlen(p) - 1;
		if (si >= 0) {
			if (!raw)
				unescape_sp(p);
			r->s[si] = p;
		} else {
			const char *q = p;

			if (tsa_parse_u64(&q, &r->v[v++]) || *q)
				return -1;
		}
	}
	return 0;
}

/* A text column into a block: spaces as \040. */
static void put_str(FILE *m, const char *s)
{
	for (; *s; s++)
		if (*s == ' ')
			fputs("\\040", m);
		else
			fputc(*s, m);
}

/* A row in its file's column order: for a block (@esc) or the file. */
static void ct_put_row(FILE *m, const struct ct_file *f,
		       const struct ct_row *r, int esc)
{
	int col, v = 0;

	for (col = 0; col < f->ncol; col++) {
		int si = str_of(f, col);

		if (col)
			fputc(' ', m);
		if (si < 0)
			fprintf(m, "%" PRIu64, r->v[v++]);
		else if (esc)
			put_str(m, r->s[si]);
		else
			fputs(r->s[si], m);
	}
	fputc('\n', m);
}

/* "TID PID [KEYS...] TEXT..." of @r, after a space. */
static void put_key(FILE *m, const struct ct_file *f, const struct ct_row *r)
{
	int i;

	for (i = 0; i < f->nkey; i++)
		fprintf(m, " %" PRIu64, r->v[f->key_v[i]]);
	for (i = 0; i < f->nstr; i++) {
		fputc(' ', m);
		put_str(m, r->s[i]);
	}
}

/* Is @line's first text column its kind's only one (ct_kind.only)? */
static int has_only(const struct ct_file *f, const char *line)
{
	const char *p = line;
	size_t n = strlen(f->k->only);
	int col;

	for (col = 0; col < f->str_col[0]; col++) {
		p = strchr(p, ' ');
		if (!p)
			return 0;
		p++;
	}
	return !strncmp(p, f->k->only, n) && (p[n] == ' ' || !p[n]);
}

int ct_read(struct ct_file *f, const struct ct_kind *k, const char *path,
	    char *msg, size_t msglen)
{
	char *p, *end, *line;
	int rc;

	rc = tsa_read_file(path, &f->buf, &f->len, &f->cap, msg, msglen);
	if (rc != TSA_OK)
		return rc;
	f->k = k;
	p = f->buf;
	end = f->buf + f->len;
	f->nhdr = 0;
	f->nrows = 0;
	f->now = 0;
	while ((line = tsa_next_line(&p, end)) != NULL) {
		if (!strncmp(line, "now ", 4)) {
			const char *q = line + 4;

			if (tsa_parse_u64(&q, &f->now))
				break;
			continue;
		}
		if (f->nhdr == CT_MAXHDR)
			break;
		f->hdr[f->nhdr++] = line;
		if (!strncmp(line, "fields ", 7))
			break;
	}
	if (!line || strncmp(f->hdr[0], k->magic, strlen(k->magic)) ||
	    strncmp(line, "fields ", 7) || ct_columns(f, line)) {
		snprintf(msg, msglen, "not a %s file this recorder knows",
			 k->magic);
		return TSA_EFORMAT;
	}
	while ((line = tsa_next_line(&p, end)) != NULL)
		if (k->only && !has_only(f, line))
			continue;
		else if (ct_row_parse(f, line, ct_new_row(f), 1)) {
			snprintf(msg, msglen, "a malformed row");
			return TSA_EFORMAT;
		}
	ct_index(f);
	return TSA_OK;
}

/*
 * How @r is @p @d later: 1 it only aged (its thread's elapsed and at);
 * 2 it aged in a stay too (ns grown by @d as well, and with states the
 * state column *@col, -1 without; max by @d when *@mx); 0 it changed
 * otherwise.
 */
static int ct_aging(const struct ct_file *f, const struct ct_row *p,
		    const struct ct_row *r, uint64_t d, int *col, int *mx)
{
	int v, in_stay = 0;

	*col = -1;
	*mx = 0;
	for (v = 0; v < f->ncol - f->nstr; v++) {
		uint64_t dv = r->v[v] - p->v[v];

		if (v == f->el_v || v == f->at_v) {
			if (dv != d)
				return 0;
		} else if (v == f->ns_v) {
			in_stay = dv == d && d;
			if (dv && !in_stay)
				return 0;
		} else if (v == f->max_v) {
			*mx = dv == d && d;
			if (dv && !*mx)
				return 0;
		} else if (v >= f->st_v && v < f->st_v + f->nst && dv) {
			if (dv != d || *col >= 0)
				return 0;
			*col = v - f->st_v;
		} else if (dv) {
			return 0;
		}
	}
	if (!in_stay)
		return *col < 0 && !*mx ? 1 : 0;
	return *col >= 0 || !f->nst ? 2 : 0;
}

void ct_block(FILE *m, const struct ct_file *prev, const struct ct_file *cur)
{
	uint64_t d = prev ? cur->now - prev->now : 0;
	int full = !prev || prev->nhdr != cur->nhdr, i;
	char tag = cur->k->tag;
	struct ct_key key;
	size_t k;

	for (i = 0; !full && i < cur->nhdr; i++)
		full = strcmp(prev->hdr[i], cur->hdr[i]) != 0;
	if (full)
		for (i = 0; i < cur->nhdr; i++)
			fprintf(m, "%ch %s\n", tag, cur->hdr[i]);
	fprintf(m, "%ch now %" PRIu64 "\n", tag, cur->now);
	for (k = 0; k < cur->nrows; k++) {
		const struct ct_row *r = &cur->rows[k], *p;
		int v, age, col = 0, mx = 0;
		long j = -1;

		if (!full) {
			row_key(cur, r, &key);
			j = ct_find(prev, &key);
		}
		if (j < 0) {
			fprintf(m, "%cr ", tag);
			ct_put_row(m, cur, r, 1);
			continue;
		}
		p = &prev->rows[j];
		age = ct_aging(cur, p, r, d, &col, &mx);
		/* cur is the recorder's own: it keeps what it declared. */
		((struct ct_row *)r)->aging = age == 2;
		((struct ct_row *)r)->age_col = age == 2 ? col : -1;
		((struct ct_row *)r)->age_max = age == 2 ? mx : 0;
		if (age == 1 && !p->aging)
			continue;	/* it only aged */
		if (age == 2 && p->aging && p->age_col == col &&
		    p->age_max == mx)
			continue;	/* it ages in its stay, as before */
		fprintf(m, "%c%c", tag, age == 1 ? '.' : age == 2 ? '+' : '=');
		put_key(m, cur, r);
		if (age == 2)
			fprintf(m, " %d %d", col, mx);
		for (v = 0; !age && v < cur->ncol - cur->nstr; v++)
			fprintf(m, " %" PRId64, (int64_t)(r->v[v] - p->v[v]));
		fputc('\n', m);
	}
	for (k = 0; !full && k < prev->nrows; k++) {
		const struct ct_row *p = &prev->rows[k];

		row_key(prev, p, &key);
		if (ct_find(cur, &key) < 0) {
			fprintf(m, "%c-", tag);
			put_key(m, prev, p);
			fputc('\n', m);
		}
	}
}

/* ---- the replay's side -------------------------------------------------- */

static void ct_clear_rows(struct ct_file *st)
{
	size_t i;
	int k;

	for (i = 0; i < st->nrows; i++)
		for (k = 0; k < CT_MAXSTR; k++)
			free(st->rows[i].s[k]);
	st->nrows = 0;
}

static void ct_clear(struct ct_file *st)
{
	int i;

	for (i = 0; i < st->nhdr; i++)
		free(st->hdr[i]);
	st->nhdr = 0;
	st->ncol = 0;
	ct_clear_rows(st);
	if (st->idx.cap)	/* no index to rows that are gone */
		tsa_index_clear(&st->idx, 0, 16);
}

void ct_begin(struct ct_file *st, const struct ct_kind *k, int key)
{
	size_t i;

	st->k = k;
	st->owned = 1;
	if (key)
		ct_clear(st);	/* a key block has the whole table, or none */
	st->prev_now = st->now;
	st->headed = 0;
	for (i = 0; i < st->nrows; i++)
		st->rows[i].seen = 0;
}

/* A row's KEY at *@pp, cut in place: the row, or -1; *@pp past it. */
static long ct_key(struct ct_file *st, char **pp)
{
	struct ct_key k;
	const char *q = *pp;
	char *p, *e = NULL;
	int i;

	for (i = 0; i < st->nkey; i++)
		if (tsa_parse_u64(&q, &k.v[i]) || *q++ != ' ')
			return -2;
	p = (char *)q;
	for (i = 0; i < st->nstr; i++) {
		if (i && !e)
			return -2;	/* a text column missing */
		e = strchr(p, ' ');
		if (e)
			*e = '\0';
		unescape_sp(p);
		k.s[i] = p;
		if (e)
			p = e + 1;
	}
	*pp = e ? p : (char *)k.s[st->nstr - 1] + strlen(k.s[st->nstr - 1]);
	return ct_find(st, &k);
}

int ct_line(struct ct_file *st, char *line)
{
	const char *q;
	int i;

	switch (line[1]) {
	case 'h':
		if (!strncmp(line + 3, "now ", 4)) {
			q = line + 7;
			return tsa_parse_u64(&q, &st->now) || *q ? -1 : 0;
		}
		if (!st->headed) {
			ct_clear(st);	/* a whole table follows */
			st->headed = 1;
		}
		if (st->nhdr == CT_MAXHDR)
			return -1;
		st->hdr[st->nhdr++] = xstrdup(line + 3);
		if (!strncmp(line + 3, "fields ", 7))
			return ct_columns(st, st->hdr[st->nhdr - 1]);
		return 0;
	}
	if (!st->ncol)
		return -1;	/* rows before any header */
	if (line[1] == 'r') {
		struct ct_row r, *t;
		struct ct_key k;
		long n = -1;

		memset(&r, 0, sizeof(r));
		if (ct_row_parse(st, line + 3, &r, 0))
			return -1;
		/* A whole table's rows are all new; the index comes at the end. */
		if (!st->headed) {
			row_key(st, &r, &k);
			n = ct_find(st, &k);
		}
		if (n >= 0) {
			t = &st->rows[n];
		} else {
			t = ct_new_row(st);
			for (i = 0; i < st->nstr; i++)
				t->s[i] = xstrdup(r.s[i]);
		}
		memcpy(t->v, r.v, sizeof(r.v));
		t->aging = 0;
		t->age_col = -1;
		t->seen = 1;
		return 0;
	}
	if (line[1] == '+' || line[1] == '.') {
		char *p = line + 3;
		long k = ct_key(st, &p);
		int col = -1, mx = 0, n = 0;

		if (k < 0 || (line[1] == '+' &&
			      (sscanf(p, "%d %d%n", &col, &mx, &n) != 2 ||
			       p[n] || col < -1 || col >= st->nst ||
			       (col < 0) != !st->nst)) ||
		    (line[1] == '.' && *p))
			return -1;
		st->rows[k].aging = line[1] == '+';
		st->rows[k].age_col = col;
		st->rows[k].age_max = mx;
		st->rows[k].seen = 3;	/* ages at the end, as it now does */
		return 0;
	}
	if (line[1] == '=' || line[1] == '-') {
		char *p = line + 3, *e;
		long k = ct_key(st, &p);
		int v;

		if (k < 0)
			return -1;
		if (line[1] == '-') {
			st->rows[k].seen = 2;
			return *p ? -1 : 0;
		}
		st->rows[k].aging = 0;
		st->rows[k].age_col = -1;
		for (v = 0; v < st->ncol - st->nstr; v++) {
			int64_t d;

			errno = 0;
			d = strtoll(p, &e, 10);
			if (e == p || errno || (*e != ' ' && *e))
				return -1;
			st->rows[k].v[v] += (uint64_t)d;
			p = *e ? e + 1 : e;
		}
		st->rows[k].seen = 1;
		return *p ? -1 : 0;
	}
	return -1;
}

void ct_end(struct ct_file *st)
{
	uint64_t d = st->now - st->prev_now;
	size_t i, n = 0;
	int k;

	for (i = 0; i < st->nrows; i++) {
		struct ct_row *r = &st->rows[i];

		if (r->seen == 2) {
			for (k = 0; k < CT_MAXSTR; k++)
				free(r->s[k]);
			continue;
		}
		if ((!r->seen || r->seen == 3) && !st->headed) {
			r->v[st->el_v] += d;	/* it aged */
			r->v[st->at_v] += d;
			if (r->aging) {		/* in its stay too */
				r->v[st->ns_v] += d;
				if (r->age_col >= 0)
					r->v[st->st_v + r->age_col] += d;
				if (r->age_max)
					r->v[st->max_v] += d;
			}
		}
		st->rows[n++] = *r;
	}
	st->nrows = n;
	ct_index(st);
}

/* By pid, then tid (a process's exited threads, tid 0, last), then as read. */
static int ct_cmp(const void *a, const void *b, void *file)
{
	const struct ct_row *x = a, *y = b;
	const struct ct_file *f = file;
	int tid_v = f->key_v[0], pid_v = f->key_v[1];
	uint64_t tx = x->v[tid_v] ? x->v[tid_v] : UINT64_MAX;
	uint64_t ty = y->v[tid_v] ? y->v[tid_v] : UINT64_MAX;

	if (x->v[pid_v] != y->v[pid_v])
		return x->v[pid_v] < y->v[pid_v] ? -1 : 1;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int ct_text(const struct ct_file *st, char **buf, size_t *len, size_t *cap)
{
	struct ct_row *sorted;
	FILE *m;
	size_t i;
	int k;

	if (!st->ncol || !st->nhdr)
		return TSA_ENOENT;
	sorted = xmalloc((st->nrows + 1) * sizeof(*sorted));
	if (st->nrows)	/* no rows: st->rows may be NULL */
		memcpy(sorted, st->rows, st->nrows * sizeof(*sorted));
	qsort_r(sorted, st->nrows, sizeof(*sorted), ct_cmp, (void *)st);
	free(*buf);
	*buf = NULL;
	m = open_memstream(buf, len);
	if (!m)
		die(EXIT_BADDATA, "out of memory");
	fprintf(m, "%s\nnow %" PRIu64 "\n", st->hdr[0], st->now);
	for (k = 1; k < st->nhdr; k++)
		fprintf(m, "%s\n", st->hdr[k]);
	for (i = 0; i < st->nrows; i++)
		ct_put_row(m, st, &sorted[i], 0);
	if (fclose(m))
		die(EXIT_BADDATA, "out of memory");
	free(sorted);
	*cap = *len + 1;
	return TSA_OK;
}

void ct_free(struct ct_file *f)
{
	if (f->owned)
		ct_clear(f);
	else
		free(f->buf);
	free(f->rows);
	tsa_index_free(&f->idx);
	memset(f, 0, sizeof(*f));
}
