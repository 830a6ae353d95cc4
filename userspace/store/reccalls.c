// SPDX-License-Identifier: GPL-2.0
/*
 * store/reccalls.c - the system-call rows in a recording.
 *
 * A row of /proc/tsa/calls is known by its thread (tid, pid) and its
 * kind and name; its other columns are numbers.  A key block has the
 * file's header lines ("ch ...") and every row ("cr", in the file's own
 * format); a delta block its clock ("ch now N"), new rows whole, and a
 * changed row as "c= TID PID KIND NAME" and each number's difference.
 * A row that only aged (its thread's elapsed and at both grown by the
 * time between the two reads, nothing else) is left out, and the replay
 * ages it so; a row no longer there is "c- TID PID KIND NAME".  A row
 * of the call a thread sleeps in also grows its ns and that sleep's
 * state by the same time (and its longest, when this call is it):
 * "c+ TID PID KIND NAME COL MAX" says so once, and the row ages so in
 * every block after that does not name it, until "c." (it ages plainly
 * again), "c=" or "cr" does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reccalls.h"
#include "util.h"

static size_t ct_hash(uint64_t tid, uint64_t pid, const char *kind,
		      const char *name, size_t cap)
{
	uint64_t h = 1469598103934665603ull ^ tid ^ (pid << 32);
	const char *s;

	for (s = kind; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	for (s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return tsa_hash_slot(h, cap);
}

static long ct_find(const struct ct_file *f, uint64_t tid, uint64_t pid,
		    const char *kind, const char *name)
{
	size_t h;

	if (!f->scap)
		return -1;
	for (h = ct_hash(tid, pid, kind, name, f->scap); f->slot[h];
	     h = (h + 1) & (f->scap - 1)) {
		const struct ct_row *r = &f->rows[f->slot[h] - 1];

		if (r->v[f->tid_v] == tid && r->v[f->pid_v] == pid &&
		    !strcmp(r->kind, kind) && !strcmp(r->name, name))
			return (long)f->slot[h] - 1;
	}
	return -1;
}

static void ct_index(struct ct_file *f)
{
	size_t i, cap = 16;

	while (cap < 2 * f->nrows + 2)
		cap *= 2;
	if (cap > f->scap) {
		free(f->slot);
		f->slot = xmalloc(cap * sizeof(*f->slot));
		f->scap = cap;
	}
	memset(f->slot, 0, f->scap * sizeof(*f->slot));
	for (i = 0; i < f->nrows; i++) {
		const struct ct_row *r = &f->rows[i];
		size_t h = ct_hash(r->v[f->tid_v], r->v[f->pid_v], r->kind,
				   r->name, f->scap);

		while (f->slot[h])
			h = (h + 1) & (f->scap - 1);
		f->slot[h] = (uint32_t)(i + 1);
	}
}

/* The columns of a "fields ..." line. */
static int ct_columns(struct ct_file *f, const char *fields)
{
	const char *p = fields + 7, *e;
	int col = 0, v = 0;

	f->kind_col = f->name_col = -1;
	f->tid_v = f->pid_v = f->el_v = f->at_v = -1;
	f->ns_v = f->max_v = f->st_v = -1;
	f->nst = 0;
	for (; *p; p = *e ? e + 1 : e, col++) {
		size_t n;

		e = strchr(p, ' ');
		if (!e)
			e = p + strlen(p);
		n = (size_t)(e - p);
		if (n == 4 && !memcmp(p, "kind", 4)) {
			f->kind_col = col;
			continue;
		}
		if (n == 4 && !memcmp(p, "name", 4)) {
			f->name_col = col;
			continue;
		}
		if (v == CT_MAXCOL)
			return -1;
		if (n == 2 && !memcmp(p, "ns", 2))
			f->ns_v = v;
		else if (n == 3 && !memcmp(p, "max", 3))
			f->max_v = v;
		else if (n > 3 && !memcmp(p + n - 3, "_ns", 3) && !f->nst++)
			f->st_v = v;
		if (n == 3 && !memcmp(p, "tid", 3))
			f->tid_v = v;
		else if (n == 3 && !memcmp(p, "pid", 3))
			f->pid_v = v;
		else if (n == 7 && !memcmp(p, "elapsed", 7))
			f->el_v = v;
		else if (n == 2 && !memcmp(p, "at", 2))
			f->at_v = v;
		v++;
	}
	f->ncol = col;
	return f->kind_col < 0 || f->name_col < 0 || f->tid_v < 0 ||
	       f->pid_v < 0 || f->el_v < 0 || f->at_v < 0 || f->ns_v < 0 ||
	       f->max_v < 0 || f->st_v < 0 ? -1 : 0;
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

/* A row's text, cut in place into @r (its strings point into it). */
static int ct_row_parse(const struct ct_file *f, char *line, struct ct_row *r)
{
	char *p = line, *e;
	int col, v = 0;

	for (col = 0; col < f->ncol; col++, p = e + 1) {
		e = strchr(p, ' ');
		if (!e != (col == f->ncol - 1))
			return -1;
		if (e)
			*e = '\0';
		else
			e = p + strlen(p) - 1;
		if (col == f->kind_col) {
			r->kind = p;
		} else if (col == f->name_col) {
			r->name = p;
		} else {
			const char *q = p;

			if (tsa_parse_u64(&q, &r->v[v++]) || *q)
				return -1;
		}
	}
	return 0;
}

static void ct_put_row(FILE *m, const struct ct_file *f,
		       const struct ct_row *r)
{
	int col, v = 0;

	for (col = 0; col < f->ncol; col++) {
		if (col)
			fputc(' ', m);
		if (col == f->kind_col)
			fputs(r->kind, m);
		else if (col == f->name_col)
			fputs(r->name, m);
		else
			fprintf(m, "%" PRIu64, r->v[v++]);
	}
	fputc('\n', m);
}

int ct_read(struct ct_file *f, const char *path, char *msg, size_t msglen)
{
	char *p, *end, *line;
	int rc;

	rc = tsa_read_file(path, &f->buf, &f->len, &f->cap, msg, msglen);
	if (rc != TSA_OK)
		return rc;
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
	if (!line || strncmp(f->hdr[0], "tsa-calls 1", 11) ||
	    strncmp(line, "fields ", 7) || ct_columns(f, line)) {
		snprintf(msg, msglen, "not a tsa-calls 1 file this recorder "
			 "knows");
		return TSA_EFORMAT;
	}
	while ((line = tsa_next_line(&p, end)) != NULL)
		if (ct_row_parse(f, line, ct_new_row(f))) {
			snprintf(msg, msglen, "a malformed row");
			return TSA_EFORMAT;
		}
	ct_index(f);
	return TSA_OK;
}

/*
 * How @r is @p @d later: 1 it only aged (its thread's elapsed and at);
 * 2 it aged in its call too (ns and state column *@col grown by @d as
 * well, and max by @d when *@mx); 0 it changed otherwise.
 */
static int ct_aging(const struct ct_file *f, const struct ct_row *p,
		    const struct ct_row *r, uint64_t d, int *col, int *mx)
{
	int v, in_call = 0;

	*col = -1;
	*mx = 0;
	for (v = 0; v < f->ncol - 2; v++) {
		uint64_t dv = r->v[v] - p->v[v];

		if (v == f->el_v || v == f->at_v) {
			if (dv != d)
				return 0;
		} else if (v == f->ns_v) {
			in_call = dv == d && d;
			if (dv && !in_call)
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
	if (!in_call)
		return *col < 0 && !*mx ? 1 : 0;
	return *col >= 0 ? 2 : 0;
}

void ct_block(FILE *m, const struct ct_file *prev, const struct ct_file *cur)
{
	uint64_t d = prev ? cur->now - prev->now : 0;
	int full = !prev || prev->nhdr != cur->nhdr, i;
	size_t k;

	for (i = 0; !full && i < cur->nhdr; i++)
		full = strcmp(prev->hdr[i], cur->hdr[i]) != 0;
	if (full)
		for (i = 0; i < cur->nhdr; i++)
			fprintf(m, "ch %s\n", cur->hdr[i]);
	fprintf(m, "ch now %" PRIu64 "\n", cur->now);
	for (k = 0; k < cur->nrows; k++) {
		const struct ct_row *r = &cur->rows[k], *p;
		long j = full ? -1 : ct_find(prev, r->v[cur->tid_v],
					     r->v[cur->pid_v], r->kind, r->name);
		int v, age, col = 0, mx = 0;

		if (j < 0) {
			fputs("cr ", m);
			ct_put_row(m, cur, r);
			continue;
		}
		p = &prev->rows[j];
		age = ct_aging(cur, p, r, d, &col, &mx);
		/* cur is the recorder's own: it keeps what it declared. */
		((struct ct_row *)r)->age_col = age == 2 ? col : -1;
		((struct ct_row *)r)->age_max = age == 2 ? mx : 0;
		if (age == 1 && p->age_col < 0)
			continue;	/* it only aged */
		if (age == 2 && p->age_col == col && p->age_max == mx)
			continue;	/* it ages in its call, as before */
		fprintf(m, "%s %" PRIu64 " %" PRIu64 " %s %s", age == 1 ? "c." :
			age == 2 ? "c+" : "c=", r->v[cur->tid_v],
			r->v[cur->pid_v], r->kind, r->name);
		if (age == 2)
			fprintf(m, " %d %d", col, mx);
		for (v = 0; !age && v < cur->ncol - 2; v++)
			fprintf(m, " %" PRId64, (int64_t)(r->v[v] - p->v[v]));
		fputc('\n', m);
	}
	for (k = 0; !full && k < prev->nrows; k++) {
		const struct ct_row *p = &prev->rows[k];

		if (ct_find(cur, p->v[prev->tid_v], p->v[prev->pid_v], p->kind,
			    p->name) < 0)
			fprintf(m, "c- %" PRIu64 " %" PRIu64 " %s %s\n",
				p->v[prev->tid_v], p->v[prev->pid_v], p->kind,
				p->name);
	}
}

/* ---- the replay's side -------------------------------------------------- */

static uint64_t ct_prev_now;
static int ct_headed;	/* this block began the header anew */

static void ct_clear_rows(struct ct_file *st)
{
	size_t i;

	for (i = 0; i < st->nrows; i++) {
		free(st->rows[i].kind);
		free(st->rows[i].name);
	}
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
	if (st->slot)	/* no index to rows that are gone */
		memset(st->slot, 0, st->scap * sizeof(*st->slot));
}

void ct_begin(struct ct_file *st, int key)
{
	size_t i;

	st->owned = 1;
	if (key)
		ct_clear(st);	/* a key block has the whole table, or none */
	ct_prev_now = st->now;
	ct_headed = 0;
	for (i = 0; i < st->nrows; i++)
		st->rows[i].seen = 0;
}

/* "TID PID KIND NAME" at *@pp: the row, or -1; *@pp past it. */
static long ct_key(struct ct_file *st, char **pp)
{
	uint64_t tid, pid;
	const char *q = *pp;
	char *kind, *name, *e;
	long r;

	if (tsa_parse_u64(&q, &tid) || *q++ != ' ' ||
	    tsa_parse_u64(&q, &pid) || *q++ != ' ')
		return -2;
	kind = (char *)q;
	name = strchr(kind, ' ');
	if (!name)
		return -2;
	*name++ = '\0';
	e = strchr(name, ' ');
	if (e)
		*e = '\0';
	r = ct_find(st, tid, pid, kind, name);
	*pp = e ? e + 1 : name + strlen(name);
	return r;
}

int ct_line(struct ct_file *st, char *line)
{
	if (!strncmp(line, "ch now ", 7)) {
		const char *q = line + 7;

		return tsa_parse_u64(&q, &st->now) || *q ? -1 : 0;
	}
	if (!strncmp(line, "ch ", 3)) {
		if (!ct_headed) {
			ct_clear(st);	/* a whole table follows */
			ct_headed = 1;
		}
		if (st->nhdr == CT_MAXHDR)
			return -1;
		st->hdr[st->nhdr++] = strdup(line + 3);
		if (!st->hdr[st->nhdr - 1])
			die(EXIT_BADDATA, "out of memory");
		if (!strncmp(line + 3, "fields ", 7))
			return ct_columns(st, st->hdr[st->nhdr - 1]);
		return 0;
	}
	if (!st->ncol)
		return -1;	/* rows before any header */
	if (!strncmp(line, "cr ", 3)) {
		struct ct_row r, *t;
		long k;

		memset(&r, 0, sizeof(r));
		if (ct_row_parse(st, line + 3, &r))
			return -1;
		/* A whole table's rows are all new; the index comes at the end. */
		k = ct_headed ? -1 : ct_find(st, r.v[st->tid_v],
					     r.v[st->pid_v], r.kind, r.name);
		if (k >= 0) {
			t = &st->rows[k];
		} else {
			t = ct_new_row(st);
			t->kind = strdup(r.kind);
			t->name = strdup(r.name);
			if (!t->kind || !t->name)
				die(EXIT_BADDATA, "out of memory");
		}
		memcpy(t->v, r.v, sizeof(r.v));
		t->age_col = -1;
		t->seen = 1;
		return 0;
	}
	if (!strncmp(line, "c+ ", 3) || !strncmp(line, "c. ", 3)) {
		char *p = line + 3;
		long k = ct_key(st, &p);
		int col = -1, mx = 0, n = 0;

		if (k < 0 || (line[1] == '+' &&
			      (sscanf(p, "%d %d%n", &col, &mx, &n) != 2 ||
			       p[n] || col < 0 || col >= st->nst)) ||
		    (line[1] == '.' && *p))
			return -1;
		st->rows[k].age_col = col;
		st->rows[k].age_max = mx;
		st->rows[k].seen = 3;	/* ages at the end, as it now does */
		return 0;
	}
	if (!strncmp(line, "c= ", 3) || !strncmp(line, "c- ", 3)) {
		char *p = line + 3, *e;
		long k = ct_key(st, &p);
		int v;

		if (k < 0)
			return -1;
		if (line[1] == '-') {
			st->rows[k].seen = 2;
			return 0;
		}
		st->rows[k].age_col = -1;
		for (v = 0; v < st->ncol - 2; v++) {
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
	uint64_t d = st->now - ct_prev_now;
	size_t i, n = 0;

	for (i = 0; i < st->nrows; i++) {
		struct ct_row *r = &st->rows[i];

		if (r->seen == 2) {
			free(r->kind);
			free(r->name);
			continue;
		}
		if ((!r->seen || r->seen == 3) && !ct_headed) {
			r->v[st->el_v] += d;	/* it aged */
			r->v[st->at_v] += d;
			if (r->age_col >= 0) {	/* in its call too */
				r->v[st->ns_v] += d;
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
	uint64_t tx = x->v[f->tid_v] ? x->v[f->tid_v] : UINT64_MAX;
	uint64_t ty = y->v[f->tid_v] ? y->v[f->tid_v] : UINT64_MAX;

	if (x->v[f->pid_v] != y->v[f->pid_v])
		return x->v[f->pid_v] < y->v[f->pid_v] ? -1 : 1;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int ct_snapshot(const struct ct_file *st, struct tsa_calls_snap *s,
		char *msg, size_t msglen)
{
	struct ct_row *sorted;
	FILE *m;
	size_t i;
	int k;

	if (!st->ncol || !st->nhdr)
		return TSA_ENOENT;
	sorted = xmalloc((st->nrows + 1) * sizeof(*sorted));
	memcpy(sorted, st->rows, st->nrows * sizeof(*sorted));
	qsort_r(sorted, st->nrows, sizeof(*sorted), ct_cmp, (void *)st);
	free(s->buf);
	s->buf = NULL;
	m = open_memstream(&s->buf, &s->len);
	if (!m)
		die(EXIT_BADDATA, "out of memory");
	fprintf(m, "%s\nnow %" PRIu64 "\n", st->hdr[0], st->now);
	for (k = 1; k < st->nhdr; k++)
		fprintf(m, "%s\n", st->hdr[k]);
	for (i = 0; i < st->nrows; i++)
		ct_put_row(m, st, &sorted[i]);
	if (fclose(m))
		die(EXIT_BADDATA, "out of memory");
	free(sorted);
	s->cap = s->len + 1;
	return tsa_calls_parse(s, msg, msglen);
}

void ct_free(struct ct_file *f)
{
	if (f->owned)
		ct_clear(f);
	else
		free(f->buf);
	free(f->rows);
	free(f->slot);
	memset(f, 0, sizeof(*f));
}
