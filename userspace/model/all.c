// SPDX-License-Identifier: GPL-2.0
/*
 * model/all.c - the /proc/tsa/all reader and the delta computation.
 *
 * Reading.  One open and a few large read(2)s per interval into a
 * buffer that only grows, then an in-place parse: the version line
 * ("tsa-all 1"; another major version is refused), the "now" line, the
 * "fields" line (columns are mapped by name, unknown ones skipped, and
 * "comm" must be last because it runs to the end of the line), then one
 * row per thread or per process-totals line.  Header lines this reader
 * does not know are ignored, as the format allows new ones.
 *
 * Identity.  A tid can be reused.  A row is the same thread as the
 * previous snapshot's row with that tid only if it has the same pid,
 * its elapsed time did not go backwards, and it started (at - elapsed)
 * no later than the previous row was measured (its "at", or the
 * snapshot's "now" from a module without that column).  Otherwise it is a new
 * thread and shows its lifetime values.  A process is the same process
 * if its aggregate did not go backwards and its leader thread (tid ==
 * pid), when present, is the same thread.
 *
 * Deltas.  Percentages are of each line's own elapsed time over the
 * interval; for a process that is the sum of its threads' elapsed
 * times, exited threads included (the tid-0 totals line keeps them, so
 * a process's sums never go backwards: a thread that exits moves from
 * its own row into the totals line).  A line with no earlier sample
 * uses its lifetime values.  Counters are shown as increments over the
 * interval; for a line whose lifetime started before the previous
 * snapshot (every line of the first report), the lifetime count is
 * shown as an average per interval, count * interval / lifetime, as
 * Solaris prstat does for its first screen.
 *
 * Longer than the ~600 lines a file here keeps to: it is the one reader
 * of the module's main format, parse, index and deltas together, so
 * that a change of the format is made in one place.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "all.h"

const char *const tsa_state_name[TSA_NSTATES] = {
#define TSA_STATE(name, what)	#name,
#include "../../module/tsa_states.h"
};

const char *const tsa_counter_name[TSA_NCOUNTERS] = {
#define TSA_COUNTER(name, what)	#name,
#include "../../module/tsa_states.h"
};

#define READ_CHUNK	(256 * 1024)
#define MAX_COLUMNS	4096

/* ---- reading ---------------------------------------------------------- */

#define MAX_STATES	64

/*
 * The space-separated word at *@p (NULL at the end), *@p moved past it:
 * the "states" and "fields" header lines are both lists of words.
 */
static const char *next_word(const char **p)
{
	const char *w;

	while (**p == ' ')
		(*p)++;
	if (!**p)
		return NULL;
	w = *p;
	while (**p && **p != ' ')
		(*p)++;
	return w;
}

/*
 * The "states" header line names the module's state numbers in order
 * ("states USR SYS ..."); map each to ours (TSA_NSTATES: unknown).
 */
static void statemap_parse(const char *p, uint64_t *map, uint64_t *n)
{
	const char *w;

	*n = 0;
	while (*n < MAX_STATES && (w = next_word(&p))) {
		uint64_t i;

		for (i = 0; i < TSA_NSTATES; i++)
			if (strlen(tsa_state_name[i]) == (size_t)(p - w) &&
			    !memcmp(tsa_state_name[i], w, (size_t)(p - w)))
				break;
		map[(*n)++] = i;
	}
}

/* The module's states, as its "states" line numbers them. */
struct statemap {
	uint64_t map[MAX_STATES], n;
};

/* A header line of tsa-all: "states" is the one this reader needs. */
static int all_header(void *ctx, const char *line, size_t lineno, char *msg,
		      size_t msglen)
{
	struct statemap *sm = ctx;

	(void)lineno;
	(void)msg;
	(void)msglen;
	if (!strncmp(line, "states ", 7))
		statemap_parse(line + 7, sm->map, &sm->n);
	return TSA_OK;
}

/*
 * The module writes control bytes, DEL and the backslash of a thread's
 * name as \ooo (a name must not end or forge a line); decode in place.
 */
void tsa_comm_unescape(char *s)
{
	char *o = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
}

/*
 * Read all of @path into *@buf (grown as needed, never shrunk), for the
 * parsers here and in model/calls.c.  A NUL follows the data.
 */
int tsa_read_file(const char *path, char **buf, size_t *len, size_t *cap,
		  char *msg, size_t msglen)
{
	int fd, err, tries = 0;
	ssize_t n;

	/* The module may refuse an open (EAGAIN) while threads are being
	 * created faster than it can size its copy: try again. */
	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && (errno == EAGAIN || errno == EINTR) && ++tries < 5);
	if (fd < 0) {
		err = errno;
		snprintf(msg, msglen, "%s", strerror(err));
		if (err == ENOENT || err == ENOTDIR)
			return TSA_ENOENT;
		if (err == EACCES || err == EPERM)
			return TSA_EACCES;
		return TSA_EIO;
	}
	*len = 0;
	for (;;) {
		if (*cap - *len < READ_CHUNK + 1) {
			size_t ncap = *cap ? *cap * 2 : 4 * READ_CHUNK;

			while (ncap - *len < READ_CHUNK + 1)
				ncap *= 2;
			*buf = xrealloc(*buf, ncap);
			*cap = ncap;
		}
		n = read(fd, *buf + *len, *cap - *len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			close(fd);
			snprintf(msg, msglen, "%s", strerror(err));
			return (err == EACCES || err == EPERM) ?
				TSA_EACCES : TSA_EIO;
		}
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	close(fd);
	(*buf)[*len] = '\0';
	return TSA_OK;
}

int tsa_snap_read(struct tsa_snap *s, const char *path,
		  char *msg, size_t msglen)
{
	int rc = tsa_read_file(path, &s->buf, &s->len, &s->cap, msg, msglen);

	if (rc != TSA_OK)
		return rc;
	clock_gettime(CLOCK_REALTIME, &s->wall);
	return tsa_snap_parse(s, msg, msglen);
}

/* ---- parsing ---------------------------------------------------------- */

int tsa_state_prefix(const char *name)
{
	char lower[3];
	int i, k;

	for (i = 0; i < TSA_NSTATES; i++) {
		for (k = 0; k < 3; k++)
			lower[k] = (char)(tsa_state_name[i][k] | 0x20);
		if (!memcmp(lower, name, 3))
			return i;
	}
	return -1;
}

/* Map a column name to a field index, or -1 for a column we skip. */
static int field_index(const char *name, size_t len)
{
	static const char *const fixed[] = {
		"tid", "pid", "uid", "flags", "elapsed", "state", "state_ns",
		"at",
	};
	static const char *const suffix[] = { "_ns", "_n", "_max" };
	size_t i, k;
	int st;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strlen(fixed[i]) == len && !memcmp(fixed[i], name, len))
			return (int)i;
	for (i = 0; i < TSA_NCOUNTERS; i++) {
		k = strlen(tsa_counter_name[i]);
		if (k == len && !strncasecmp(tsa_counter_name[i], name, len))
			return F_CNT + (int)i;
	}
	if (len < 4 || name[3] != '_' || (st = tsa_state_prefix(name)) < 0)
		return -1;
	for (k = 0; k < 3; k++)
		if (strlen(suffix[k]) == len - 3 &&
		    !memcmp(suffix[k], name + 3, len - 3))
			return (int)(F_NS + k * TSA_NSTATES) + st;
	return -1;
}

/* comm, last on the line, is marked F_NUM. */
static int all_field_index(const char *name, size_t len)
{
	if (len == 4 && !memcmp(name, "comm", 4))
		return F_NUM;
	return field_index(name, len);
}

/*
 * Map the words of a "fields" line to columns with @index (negative:
 * unknown, skipped), setting @have[i] for each column i >= 0 found.
 * Returns the number of words, or -1 with the reason in @msg: more than
 * @max, or a column this reader knows named twice (each has one slot in
 * a row: a second "comm" before the last word would be parsed as a
 * number into the slot after the row's last one).
 */
int tsa_parse_fields(char *list, int *colmap, int max,
		     int (*index)(const char *name, size_t len), int *have,
		     char *msg, size_t msglen)
{
	int ncols = 0;
	const char *q = list, *w;

	while ((w = next_word(&q))) {
		if (ncols == max) {
			snprintf(msg, msglen, "too many columns");
			return -1;
		}
		colmap[ncols] = index(w, (size_t)(q - w));
		if (colmap[ncols] >= 0) {
			if (have[colmap[ncols]]) {
				snprintf(msg, msglen, "\"fields\" names "
					 "\"%.*s\" twice (column %d)",
					 (int)(q - w) > 32 ? 32 : (int)(q - w),
					 w, ncols + 1);
				return -1;
			}
			have[colmap[ncols]] = 1;
		}
		ncols++;
	}
	return ncols;
}

int tsa_parse_header(char **p, char *end, size_t *lineno, uint64_t *now,
		     int (*other)(void *ctx, const char *line, size_t lineno,
				  char *msg, size_t msglen), void *ctx,
		     int *colmap, int max,
		     int (*index)(const char *name, size_t len), int *have,
		     char *msg, size_t msglen)
{
	char *line;

	for (;;) {
		const char *t;

		line = tsa_next_line(p, end);
		++*lineno;
		if (!line) {
			snprintf(msg, msglen, "no \"fields\" line");
			return -1;
		}
		if (!strncmp(line, "now ", 4)) {
			t = line + 4;
			if (tsa_parse_u64(&t, now) || *t) {
				snprintf(msg, msglen, "line %zu: bad \"now\"",
					 *lineno);
				return -1;
			}
		} else if (!strncmp(line, "fields ", 7)) {
			break;
		} else if (other &&
			   other(ctx, line, *lineno, msg, msglen) != TSA_OK) {
			return -1;
		}	/* else a header line this reader does not know */
	}
	return tsa_parse_fields(line + 7, colmap, max, index, have, msg,
				msglen);
}

/* The line at *@p, NUL-terminated in place; *@p moves past it. */
char *tsa_next_line(char **p, char *end)
{
	char *line = *p, *nl;

	if (line >= end)
		return NULL;
	nl = memchr(line, '\n', (size_t)(end - line));
	if (!nl)
		nl = end;
	*nl = '\0';
	*p = nl + 1;
	return line;
}

/* A decimal number at *@pp (no sign, no overflow); *@pp moves past it. */
int tsa_parse_u64(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;

	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p++ - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*pp = p;
	*v = x;
	return 0;
}

const struct tsa_row *tsa_snap_thread(const struct tsa_snap *s, uint64_t tid)
{
	size_t i;

	tsa_index_each(&s->tids, tsa_hash_u64(tid), i)
		if (s->rows[tsa_index_at(&s->tids, i)].v[F_TID] == tid)
			return &s->rows[tsa_index_at(&s->tids, i)];
	return NULL;
}

const struct tsa_proc *tsa_snap_proc(const struct tsa_snap *s, uint64_t pid)
{
	size_t i;

	tsa_index_each(&s->pids, tsa_hash_u64(pid), i)
		if (s->procs[tsa_index_at(&s->pids, i)].agg.v[F_PID] == pid)
			return &s->procs[tsa_index_at(&s->pids, i)];
	return NULL;
}

/* @s's name of @tid (0: process @pid's) into @out; 0 if it has none. */
static int snap_name(const struct tsa_snap *s, uint64_t pid, uint64_t tid,
		     char *out, size_t len)
{
	const struct tsa_row *t = tid ? tsa_snap_thread(s, tid) : NULL;
	const struct tsa_proc *p = tsa_snap_proc(s, pid);

	if (t && t->v[F_PID] == pid)
		strip_comm(out, len, t->comm);
	else if (!tid && p && p->agg.comm)
		strip_comm(out, len, p->agg.comm);
	else
		return 0;
	return 1;
}

void tsa_snap_comm(const struct tsa_snap *s, uint64_t pid, uint64_t tid,
		   char *out, size_t len)
{
	tsa_thread_name(s, NULL, pid, tid, out, len);
}

void tsa_thread_name(const struct tsa_snap *cur, const struct tsa_snap *prev,
		     uint64_t pid, uint64_t tid, char *out, size_t len)
{
	if ((!cur || !snap_name(cur, pid, tid, out, len)) &&
	    (!prev || !snap_name(prev, pid, tid, out, len)))
		snprintf(out, len, "-");
}

static void agg_add(struct tsa_row *a, const struct tsa_row *r)
{
	int i;

	a->v[F_ELAPSED] += r->v[F_ELAPSED];
	/* A process is measured between the snapshot's now and this. */
	if (r->v[F_AT] > a->v[F_AT])
		a->v[F_AT] = r->v[F_AT];
	for (i = 0; i < TSA_NSTATES; i++) {
		a->v[F_NS + i] += r->v[F_NS + i];
		a->v[F_N + i] += r->v[F_N + i];
		if (r->v[F_MAX + i] > a->v[F_MAX + i])
			a->v[F_MAX + i] = r->v[F_MAX + i];
	}
	for (i = 0; i < TSA_NCOUNTERS; i++)
		a->v[F_CNT + i] += r->v[F_CNT + i];
}

/* Build the tid and pid indexes and the per-process sums. */
static void build_index(struct tsa_snap *s)
{
	size_t i;

	tsa_index_clear(&s->tids, s->nrows, 16);
	tsa_index_clear(&s->pids, s->nrows, 16);
	if (s->procs_cap < s->nrows) {
		s->procs_cap = s->nrows;
		s->procs = xrealloc(s->procs, s->procs_cap * sizeof(*s->procs));
	}
	s->nprocs = 0;

	for (i = 0; i < s->nrows; i++) {
		struct tsa_row *r = &s->rows[i];
		uint64_t pid = r->v[F_PID];
		struct tsa_proc *p = (struct tsa_proc *)tsa_snap_proc(s, pid);

		if (!p) {
			tsa_index_put(&s->pids, tsa_hash_u64(pid), s->nprocs);
			p = &s->procs[s->nprocs++];
			memset(p, 0, sizeof(*p));
			p->leader = -1;
			p->agg.v[F_PID] = pid;
			p->agg.v[F_UID] = r->v[F_UID];
			p->agg.v[F_FLAGS] = TSA_F_TOTALS;
			p->agg.comm = r->comm;
		}
		agg_add(&p->agg, r);
		if (r->v[F_FLAGS] & TSA_F_TOTALS)
			continue;

		/* A thread row: index it and let it name the process. */
		if (p->nlwp++ == 0 || r->v[F_TID] == pid) {
			p->agg.v[F_UID] = r->v[F_UID];
			p->agg.comm = r->comm;
		}
		if (r->v[F_TID] == pid)
			p->leader = (int32_t)i;
		tsa_index_put(&s->tids, tsa_hash_u64(r->v[F_TID]), i);
	}
}

int tsa_pid_selected(const uint64_t *pids, size_t npids, uint64_t pid)
{
	size_t i;

	for (i = 0; i < npids; i++)
		if (pids[i] == pid)
			return 1;
	return !npids;
}

int tsa_parse_begin(char **buf, size_t len, size_t *cap, const char *kind,
		    int *major, char **p, char **end, char *msg,
		    size_t msglen)
{
	size_t k = strlen(kind);
	char *line, *q;
	long v;

	if (*cap < len + 1) {
		*buf = xrealloc(*buf, len + 1);
		*cap = len + 1;
	}
	(*buf)[len] = '\0';
	*p = *buf;
	*end = *buf + len;
	line = tsa_next_line(p, *end);
	if (!line || strncmp(line, kind, k) || line[k] != ' ') {
		snprintf(msg, msglen, "not a %s file (first line: \"%.40s\")",
			 kind, line ? line : "");
		return TSA_EFORMAT;
	}
	errno = 0;
	v = strtol(line + k + 1, &q, 10);
	if (q == line + k + 1 || errno || (*q && *q != '.' && *q != ' ')) {
		snprintf(msg, msglen, "bad version line \"%.40s\"", line);
		return TSA_EFORMAT;
	}
	if (v < 1 || v > *major) {
		if (*major == 1)
			snprintf(msg, msglen, "format version %.20s, this "
				 "tsa-prstat reads version 1", line + k + 1);
		else
			snprintf(msg, msglen, "format version %.20s, this "
				 "tsa-prstat reads versions 1 to %d",
				 line + k + 1, *major);
		return TSA_EVERSION;
	}
	*major = (int)v;
	return TSA_OK;
}

int tsa_snap_parse(struct tsa_snap *s, char *msg, size_t msglen)
{
	int major = 1;
	static int colmap[MAX_COLUMNS];
	struct statemap sm = { .n = 0 };
	char *p, *end, *line;
	size_t ncols = 0, lineno = 1, c;
	int have[F_NUM + 1] = { 0 }, n, rc;	/* have[F_NUM]: comm */

	s->nrows = 0;
	s->nprocs = 0;
	s->now = 0;
	s->calib[0] = '\0';
	rc = tsa_parse_begin(&s->buf, s->len, &s->cap, "tsa-all", &major,
			     &p, &end, msg, msglen);
	if (rc != TSA_OK)
		return rc;

	/* Header lines up to and including "fields". */
	n = tsa_parse_header(&p, end, &lineno, &s->now, all_header, &sm,
			     colmap, MAX_COLUMNS, all_field_index, have, msg,
			     msglen);
	if (n < 0)
		return TSA_EFORMAT;
	ncols = (size_t)n;
	if (!ncols || colmap[ncols - 1] != F_NUM) {
		snprintf(msg, msglen, "\"fields\" does not end with comm");
		return TSA_EFORMAT;
	}
	if (!have[F_TID] || !have[F_PID] || !have[F_FLAGS] ||
	    !have[F_ELAPSED]) {
		snprintf(msg, msglen,
			 "\"fields\" lacks one of tid pid flags elapsed");
		return TSA_EFORMAT;
	}

	/* Rows. */
	while ((line = tsa_next_line(&p, end)) != NULL) {
		const char *t = line;
		struct tsa_row *r;

		lineno++;
		if (!*line)
			continue;
		if (s->nrows == s->rows_cap) {
			s->rows_cap = s->rows_cap ? s->rows_cap * 2 : 1024;
			s->rows = xrealloc(s->rows,
					   s->rows_cap * sizeof(*s->rows));
		}
		r = &s->rows[s->nrows];
		memset(r->v, 0, sizeof(r->v));
		for (c = 0; c + 1 < ncols; c++) {
			uint64_t v;

			while (*t == ' ')
				t++;
			if (tsa_parse_u64(&t, &v)) {
				snprintf(msg, msglen,
					 "line %zu, column %zu: not a number",
					 lineno, c + 1);
				return TSA_EFORMAT;
			}
			if (colmap[c] >= 0)
				r->v[colmap[c]] = v;
		}
		if (!have[F_AT])
			r->v[F_AT] = s->now;
		/* The module's state numbers, as its "states" line names them. */
		if (sm.n)
			r->v[F_STATE] = r->v[F_STATE] < sm.n ?
					sm.map[r->v[F_STATE]] : TSA_NSTATES;
		if (*t == ' ')
			t++;
		else if (*t) {
			snprintf(msg, msglen, "line %zu: no comm", lineno);
			return TSA_EFORMAT;
		}
		r->comm = t;
		/* t is in our buffer */
		tsa_comm_unescape(s->buf + (t - s->buf));
		if (!(r->v[F_FLAGS] & TSA_F_TOTALS) && r->v[F_TID] == 0) {
			snprintf(msg, msglen, "line %zu: tid 0", lineno);
			return TSA_EFORMAT;
		}
		s->nrows++;
	}
	build_index(s);
	return TSA_OK;
}

void tsa_snap_free(struct tsa_snap *s)
{
	free(s->buf);
	free(s->rows);
	free(s->procs);
	tsa_index_free(&s->tids);
	tsa_index_free(&s->pids);
	memset(s, 0, sizeof(*s));
}

/* ---- deltas ----------------------------------------------------------- */

uint64_t tsa_row_since(const struct tsa_row *r)
{
	return r->v[F_ELAPSED] > r->v[F_AT] ? 0 : r->v[F_AT] - r->v[F_ELAPSED];
}

static uint64_t since(const struct tsa_row *r)
{
	return tsa_row_since(r);
}

/* Started no later than the earlier row was measured: not a reused tid. */
int tsa_same_thread(const struct tsa_row *p, const struct tsa_row *r)
{
	return p && p->v[F_PID] == r->v[F_PID] &&
	       r->v[F_ELAPSED] >= p->v[F_ELAPSED] &&
	       since(r) <= p->v[F_AT];
}

static int same_thread(const struct tsa_row *p, const struct tsa_row *r)
{
	return tsa_same_thread(p, r);
}

static int not_backwards(const struct tsa_row *p, const struct tsa_row *r)
{
	int i;

	if (r->v[F_ELAPSED] < p->v[F_ELAPSED])
		return 0;
	for (i = 0; i < TSA_NSTATES; i++)
		if (r->v[F_NS + i] < p->v[F_NS + i])
			return 0;
	return 1;
}

static int pid_selected(const struct tsa_select *sel, uint64_t pid)
{
	size_t i;

	if (!sel->npids)
		return 1;
	for (i = 0; i < sel->npids; i++)
		if (sel->pids[i] == pid)
			return 1;
	return 0;
}

/*
 * Fill @d from the current lifetime row @r and, when it is the same
 * thread or process, the previous one @p.  @scale: show lifetime
 * counts as an average per interval.
 */
static void fill(struct tsa_delta *d, const struct tsa_row *r,
		 const struct tsa_row *p, int scale, double interval)
{
	int i;

	d->uid = r->v[F_UID];
	d->comm = r->comm;
	d->now = r;
	d->first = !p;
	d->key = 0;
	d->elapsed = r->v[F_ELAPSED] - (p ? p->v[F_ELAPSED] : 0);
	for (i = 0; i < TSA_NSTATES; i++) {
		uint64_t a = r->v[F_NS + i], b = p ? p->v[F_NS + i] : 0;

		d->ns[i] = a > b ? a - b : 0;
	}
	for (i = 0; i < TSA_NCOUNTERS; i++) {
		uint64_t a = r->v[F_CNT + i], b = p ? p->v[F_CNT + i] : 0;

		d->cnt[i] = a > b ? a - b : 0;
		d->shown[i] = d->cnt[i];
		if (!p && scale) {
			double secs = (double)r->v[F_ELAPSED] / 1e9;
			double x = secs > 0 ?
				   interval * ((double)d->cnt[i] / secs) : 0;

			/* A count over nanoseconds of life can pass 2^64. */
			d->shown[i] = x < 0x1p64 ? (uint64_t)x : UINT64_MAX;
		}
	}
}

static struct tsa_delta *grow(struct tsa_delta **out, size_t *cap, size_t n)
{
	if (n == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		*out = xrealloc(*out, *cap * sizeof(**out));
	}
	return &(*out)[n];
}

size_t tsa_delta_compute(const struct tsa_snap *prev,
			 const struct tsa_snap *cur,
			 const struct tsa_select *sel,
			 struct tsa_delta **out, size_t *cap,
			 struct tsa_totals *tot)
{
	size_t i, n = 0;

	tot->nprocs = tot->nlwps = 0;
	tot->calib = cur->calib[0] && strcmp(cur->calib, "applied") ?
		     cur->calib : NULL;
	for (i = 0; i < cur->nprocs; i++) {
		const struct tsa_proc *pr = &cur->procs[i];

		if (!pr->nlwp || !pid_selected(sel, pr->agg.v[F_PID]))
			continue;
		tot->nprocs++;
		tot->nlwps += pr->nlwp;
	}

	if (sel->lwps) {
		for (i = 0; i < cur->nrows; i++) {
			const struct tsa_row *r = &cur->rows[i], *p = NULL;
			struct tsa_delta *d;
			int scale;

			if ((r->v[F_FLAGS] & TSA_F_TOTALS) ||
			    !pid_selected(sel, r->v[F_PID]))
				continue;
			if (prev) {
				p = tsa_snap_thread(prev, r->v[F_TID]);
				if (!same_thread(p, r))
					p = NULL;
			}
			scale = !prev || since(r) < prev->now;
			d = grow(out, cap, n++);
			d->pid = r->v[F_PID];
			d->id = r->v[F_TID];
			fill(d, r, p, scale, sel->interval);
		}
		return n;
	}

	for (i = 0; i < cur->nprocs; i++) {
		const struct tsa_proc *pr = &cur->procs[i], *pp = NULL;
		struct tsa_delta *d;
		uint64_t pid = pr->agg.v[F_PID];

		if (!pr->nlwp || !pid_selected(sel, pid))
			continue;
		if (prev) {
			pp = tsa_snap_proc(prev, pid);
			if (pp && !not_backwards(&pp->agg, &pr->agg))
				pp = NULL;
			if (pp && pr->leader >= 0 &&
			    !same_thread(tsa_snap_thread(prev, pid),
					 &cur->rows[pr->leader]))
				pp = NULL;
		}
		d = grow(out, cap, n++);
		d->pid = pid;
		d->id = pr->nlwp;
		fill(d, &pr->agg, pp ? &pp->agg : NULL, !prev, sel->interval);
	}
	return n;
}
