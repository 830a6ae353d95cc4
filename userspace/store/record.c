// SPDX-License-Identifier: GPL-2.0
/*
 * store/record.c - the flight recorder and its replay.
 *
 * A recording is a directory of files, one an hour (UTC, by name:
 * tsa-YYYYMMDD-HH.rec), each a line "tsa-record 1" and then blocks:
 *
 *   "TSAB", zlen, rawlen, crc, hcrc	(20 bytes, little-endian u32s)
 *   zlen bytes: one zstd frame of rawlen bytes of text
 *
 * crc covers the frame, hcrc the 16 bytes before it, so a reader finds
 * a torn tail or a damaged block, skips it and looks for the next
 * "TSAB".  A block's text is one snapshot of /proc/tsa/all:
 *
 *   block 1 key|delta
 *   wall SEC.NSEC
 *   boot_id ...
 *   loadavg 0.10 0.20 0.30
 *   interval 10.000		(the recorder's)
 *   cgroup PID SINCE PATH	(processes new since the last block)
 *   gone TID PID		(lines of the last block no longer there)
 *   = KEY D...		(a line as differences from the last block's)
 *   ch, cr, c=, c-, c+, c. ...	(/proc/tsa/calls: store/reccalls.c)
 *   tsa-all 1
 *   now ...			(then the kernel's own format, every column)
 *
 * A key block has every line; a delta block only the lines that differ
 * from what the last block's line becomes when nothing but its current
 * stay went on (rec_extend(): elapsed, state_ns and that state's ns grow
 * by the time between the two, its longest with them), so an idle
 * thread costs nothing.  That rule is checked, not assumed: a line is
 * left out only if extending the old one gives it exactly.  A line that
 * changed otherwise is written as "=", its key (the tid, or 2^63 + pid
 * for a process's exited-threads line) and each column's difference
 * from the last block's, in model/all.h's order (enum tsa_field); a line
 * of a new thread (or one renamed) in the kernel's format.  Every file
 * begins with a key block, and a key block follows at most 10 minutes
 * after the last, so a lost block costs at most the blocks up to the
 * next key block.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>

#include "capture.h"
#include "record.h"
#include "util.h"

#define REC_HEADER	"tsa-record 1\n"
#define REC_MAGIC	"TSAB"
#define REC_HDR_LEN	20
#define REC_KEY_SECS	600		/* at most between key blocks */
#define REC_ZLEVEL	3
#define REC_MAX_RAW	(1u << 30)	/* a block's text: larger is not ours */
#define TOTALS_KEY	(UINT64_C(1) << 63)

/* ---- lines, and what an unchanged one becomes ------------------------- */

static uint64_t row_key(const struct tsa_row *r)
{
	return r->v[F_FLAGS] & TSA_F_TOTALS ? TOTALS_KEY | r->v[F_PID] :
	       r->v[F_TID];
}

/*
 * @p as a read at @now would show it had only its current stay gone on;
 * 0 if it cannot be (a clock before the line's).
 */
static int rec_extend(struct tsa_row *e, const struct tsa_row *p,
		      uint64_t now)
{
	uint64_t d, st = p->v[F_STATE];

	*e = *p;
	if (now < p->v[F_AT])
		return 0;
	d = now - p->v[F_AT];
	e->v[F_AT] = now;
	if (p->v[F_FLAGS] & TSA_F_TOTALS)
		return 1;	/* exited threads: nothing goes on */
	if (st >= TSA_NSTATES)
		return 0;
	e->v[F_ELAPSED] += d;
	e->v[F_STATE_NS] += d;
	e->v[F_NS + st] += d;
	if (e->v[F_MAX + st] < e->v[F_STATE_NS])
		e->v[F_MAX + st] = e->v[F_STATE_NS];
	return 1;
}

/* Open-addressing index of lines by key: slot -> line index + 1. */
struct keyidx {
	uint32_t *slot;
	size_t cap;
};

static void keyidx_build(struct keyidx *k, size_t n,
			 uint64_t (*key)(const void *, size_t),
			 const void *arr)
{
	size_t i, cap = 16;

	while (cap < 2 * n + 2)
		cap *= 2;
	if (cap > k->cap) {
		free(k->slot);
		k->slot = xmalloc(cap * sizeof(*k->slot));
		k->cap = cap;
	}
	memset(k->slot, 0, k->cap * sizeof(*k->slot));
	for (i = 0; i < n; i++) {
		size_t h = tsa_hash_slot(key(arr, i), k->cap);

		while (k->slot[h])
			h = (h + 1) & (k->cap - 1);
		k->slot[h] = (uint32_t)(i + 1);
	}
}

/* The index of @want's line, or -1. */
static long keyidx_find(const struct keyidx *k, uint64_t want,
			uint64_t (*key)(const void *, size_t),
			const void *arr)
{
	size_t h;

	if (!k->cap)
		return -1;
	for (h = tsa_hash_slot(want, k->cap); k->slot[h];
	     h = (h + 1) & (k->cap - 1))
		if (key(arr, k->slot[h] - 1) == want)
			return (long)k->slot[h] - 1;
	return -1;
}

static uint64_t snap_key(const void *arr, size_t i)
{
	return row_key(&((const struct tsa_row *)arr)[i]);
}

static uint64_t u64_key(const void *arr, size_t i)
{
	return ((const uint64_t *)arr)[i];
}

/* The "fields" line and a line in that order: every column tsa-all has. */
static void put_fields(FILE *f)
{
	int k, j;

	fputs("fields tid pid uid flags elapsed state state_ns", f);
	for (k = 0; k < TSA_NSTATES; k++) {
		char name[8];

		for (j = 0; tsa_state_name[k][j] && j < 7; j++)
			name[j] = (char)(tsa_state_name[k][j] | 0x20);
		name[j] = '\0';
		fprintf(f, " %s_ns %s_n %s_max", name, name, name);
	}
	for (k = 0; k < TSA_NCOUNTERS; k++) {
		fputc(' ', f);
		for (j = 0; tsa_counter_name[k][j]; j++)
			fputc(tsa_counter_name[k][j] | 0x20, f);
	}
	fputs(" at comm\n", f);
}

static void put_row(FILE *f, const struct tsa_row *r)
{
	int k;

	fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRIu64 " %" PRIu64, r->v[F_TID], r->v[F_PID],
		r->v[F_UID], r->v[F_FLAGS], r->v[F_ELAPSED], r->v[F_STATE],
		r->v[F_STATE_NS]);
	for (k = 0; k < TSA_NSTATES; k++)
		fprintf(f, " %" PRIu64 " %" PRIu64 " %" PRIu64,
			r->v[F_NS + k], r->v[F_N + k], r->v[F_MAX + k]);
	for (k = 0; k < TSA_NCOUNTERS; k++)
		fprintf(f, " %" PRIu64, r->v[F_CNT + k]);
	fprintf(f, " %" PRIu64 " ", r->v[F_AT]);
	fput_escaped(f, r->comm);
	fputc('\n', f);
}

static void put_tsa_all_head(FILE *f, uint64_t now)
{
	int k;

	fprintf(f, "tsa-all 1\nnow %" PRIu64 "\nstates", now);
	for (k = 0; k < TSA_NSTATES; k++)
		fprintf(f, " %s", tsa_state_name[k]);
	fputc('\n', f);
	put_fields(f);
}

/* ---- recording --------------------------------------------------------- */

struct recorder {
	const struct rec_config *o;
	int dirfd;
	int fd;			/* the current hour's file, or -1 */
	time_t hour;		/* its hour (UTC, seconds) */
	uint64_t key_now;	/* the last key block's snapshot clock */
	unsigned long blocks;	/* blocks written */
	ZSTD_CCtx *zc;
	void *zbuf;
	size_t zcap;
	struct keyidx prev_idx;
	struct cgroup_cache cc;	/* cgroups of the last block's processes */
	char boot_id[64];
};

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void hour_name(char *out, size_t len, time_t hour)
{
	struct tm tm;

	gmtime_r(&hour, &tm);
	strftime(out, len, "tsa-%Y%m%d-%H.rec", &tm);
}

/* The hour a file name stands for, or -1 if it is not a recording's. */
static time_t name_hour(const char *name)
{
	struct tm tm;
	int y, mo, d, h, n = 0;

	if (sscanf(name, "tsa-%4d%2d%2d-%2d.rec%n", &y, &mo, &d, &h, &n) != 4 ||
	    (size_t)n != strlen(name))
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	return timegm(&tm);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The recording's files in @dir (names only), in time order. */
static char **list_files(const char *dir, size_t *n)
{
	char **v = NULL;
	struct dirent *de;
	DIR *d = opendir(dir);

	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		if (name_hour(de->d_name) < 0)
			continue;
		v = xrealloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = strdup(de->d_name);
		if (!v[*n - 1])
			die(EXIT_BADDATA, "out of memory");
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), name_cmp);
	return v;
}

static void free_files(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

/*
 * Retention: remove the files whose hour ended more than keep_secs ago,
 * then the oldest while all of them take more than max_bytes; never
 * the one being written.
 */
static void retain(struct recorder *rc, time_t now)
{
	const struct rec_config *o = rc->o;
	char cur[32] = "";
	long long total = 0;
	size_t n, i;
	struct stat st;
	char **v;

	if (!o->keep_secs && !o->max_bytes)
		return;
	if (rc->fd >= 0)
		hour_name(cur, sizeof(cur), rc->hour);
	v = list_files(o->dir, &n);
	for (i = 0; i < n; i++)
		if (!fstatat(rc->dirfd, v[i], &st, 0))
			total += st.st_size;
	for (i = 0; i < n; i++) {
		time_t h = name_hour(v[i]);
		int old = o->keep_secs && h + 3600 + o->keep_secs <= now;
		int big = o->max_bytes && total > o->max_bytes;

		if (!strcmp(v[i], cur) || (!old && !big))
			continue;
		if (fstatat(rc->dirfd, v[i], &st, 0))
			continue;
		if (unlinkat(rc->dirfd, v[i], 0)) {
			warnmsg("%s/%s: cannot remove: %s", o->dir, v[i],
				strerror(errno));
			continue;
		}
		total -= st.st_size;
	}
	free_files(v, n);
}

/*
 * The hour's file, opened (and begun) when the hour changes: 1 then
 * (every file begins with a key block), else 0; -1 with @msg on error.
 */
static int rec_file(struct recorder *rc, time_t wall, char *msg,
		    size_t msglen)
{
	time_t hour = wall - wall % 3600;
	char name[32];
	struct stat st;

	if (rc->fd >= 0 && hour == rc->hour)
		return 0;
	if (rc->fd >= 0)
		close(rc->fd);
	hour_name(name, sizeof(name), hour);
	rc->fd = openat(rc->dirfd, name, O_WRONLY | O_APPEND | O_CREAT |
			O_CLOEXEC, 0640);
	if (rc->fd < 0) {
		snprintf(msg, msglen, "%s/%s: %s", rc->o->dir, name,
			 strerror(errno));
		return -1;
	}
	rc->hour = hour;
	if (fstat(rc->fd, &st) == 0 && st.st_size == 0 &&
	    write(rc->fd, REC_HEADER, strlen(REC_HEADER)) !=
	    (ssize_t)strlen(REC_HEADER)) {
		snprintf(msg, msglen, "%s/%s: write error: %s", rc->o->dir,
			 name, strerror(errno));
		return -1;
	}
	retain(rc, wall);
	return 1;
}

/* One block's text: @cur against @prev (NULL: a key block). */
static void rec_text(struct recorder *rc, FILE *m, const struct tsa_snap *prev,
		     const struct tsa_snap *cur, const struct ct_file *cprev,
		     const struct ct_file *ccur, const double la[3])
{
	const char *procfs = rc->o->procfs;
	struct keyidx cur_idx = { NULL, 0 };
	char path[4096];
	struct tsa_row e;
	size_t i;

	fprintf(m, "block 1 %s\nwall %lld.%09ld\n", prev ? "delta" : "key",
		(long long)cur->wall.tv_sec, cur->wall.tv_nsec);
	if (rc->boot_id[0])
		fprintf(m, "boot_id %s\n", rc->boot_id);
	fprintf(m, "loadavg %.2f %.2f %.2f\ninterval %.3f\n", la[0], la[1],
		la[2], rc->o->interval);
	/* Each process's cgroup once: in a key block, or when it is new. */
	for (i = 0; i < cur->nrows; i++) {
		const struct tsa_row *r = &cur->rows[i];
		const struct tsa_proc *p = tsa_snap_proc(cur, r->v[F_PID]);
		const struct tsa_proc *pp;
		uint64_t since;

		if (!p || (i && cur->rows[i - 1].v[F_PID] == r->v[F_PID]))
			continue;
		since = proc_since(cur, p, r);
		cgroup_lookup(&rc->cc, path, sizeof(path), procfs,
			      r->v[F_PID], since);
		/* Known by its leader's line in the last block: not new. */
		pp = prev ? tsa_snap_proc(prev, r->v[F_PID]) : NULL;
		if (pp && pp->leader >= 0 &&
		    tsa_row_since(&prev->rows[pp->leader]) == since)
			continue;
		fprintf(m, "cgroup %" PRIu64 " %" PRIu64 " ", r->v[F_PID],
			since);
		fput_escaped(m, path);
		fputc('\n', m);
	}
	cgroup_cache_swap(&rc->cc);
	if (prev) {
		keyidx_build(&cur_idx, cur->nrows, snap_key, cur->rows);
		for (i = 0; i < prev->nrows; i++) {
			const struct tsa_row *p = &prev->rows[i];

			if (keyidx_find(&cur_idx, row_key(p), snap_key,
					cur->rows) < 0)
				fprintf(m, "gone %" PRIu64 " %" PRIu64 "\n",
					p->v[F_TID], p->v[F_PID]);
		}
		free(cur_idx.slot);
	}
	/*
	 * A line that changed otherwise, of the same thread and name: its
	 * columns as differences from the last block's (small numbers,
	 * zero for every state it did not touch, which compress well).
	 */
	for (i = 0; i < cur->nrows && prev; i++) {
		const struct tsa_row *r = &cur->rows[i], *p;
		long k = keyidx_find(&rc->prev_idx, row_key(r), snap_key,
				     prev->rows);
		int f;

		if (k < 0)
			continue;
		p = &prev->rows[k];
		if (rec_extend(&e, p, r->v[F_AT]) && r->v[F_AT] == cur->now &&
		    !memcmp(e.v, r->v, sizeof(e.v)) && !strcmp(e.comm, r->comm))
			continue;	/* only its stay went on */
		if (tsa_row_since(p) != tsa_row_since(r) ||
		    strcmp(p->comm, r->comm))
			continue;	/* another thread, or renamed: whole */
		fprintf(m, "= %" PRIu64, row_key(r));
		for (f = 0; f < F_NUM; f++)
			fprintf(m, " %" PRId64, (int64_t)(r->v[f] - p->v[f]));
		fputc('\n', m);
	}
	if (ccur)
		ct_block(m, prev ? cprev : NULL, ccur);
	put_tsa_all_head(m, cur->now);
	for (i = 0; i < cur->nrows; i++) {
		const struct tsa_row *r = &cur->rows[i];
		long k = prev ? keyidx_find(&rc->prev_idx, row_key(r), snap_key,
					    prev->rows) : -1;

		if (k >= 0 && ((rec_extend(&e, &prev->rows[k], r->v[F_AT]) &&
				r->v[F_AT] == cur->now &&
				!memcmp(e.v, r->v, sizeof(e.v)) &&
				!strcmp(e.comm, r->comm)) ||
			       (tsa_row_since(&prev->rows[k]) ==
				tsa_row_since(r) &&
				!strcmp(prev->rows[k].comm, r->comm))))
			continue;	/* left out, or a "=" line above */
		put_row(m, r);
	}
}

/* Compress @raw and append it as one block, durably; 0, or -1 (@msg). */
static int rec_append(struct recorder *rc, const char *raw, size_t rawlen,
		      char *msg, size_t msglen)
{
	unsigned char hdr[REC_HDR_LEN];
	size_t bound = ZSTD_compressBound(rawlen), z;
	struct iovec iov[2];
	ssize_t w;

	if (bound > rc->zcap) {
		free(rc->zbuf);
		rc->zbuf = xmalloc(bound);
		rc->zcap = bound;
	}
	z = ZSTD_compressCCtx(rc->zc, rc->zbuf, rc->zcap, raw, rawlen,
			      REC_ZLEVEL);
	if (ZSTD_isError(z)) {
		snprintf(msg, msglen, "zstd: %s", ZSTD_getErrorName(z));
		return -1;
	}
	memcpy(hdr, REC_MAGIC, 4);
	put32(hdr + 4, (uint32_t)z);
	put32(hdr + 8, (uint32_t)rawlen);
	put32(hdr + 12, crc32_buf(rc->zbuf, z));
	put32(hdr + 16, crc32_buf(hdr, 16));
	iov[0].iov_base = hdr;
	iov[0].iov_len = sizeof(hdr);
	iov[1].iov_base = rc->zbuf;
	iov[1].iov_len = z;
	w = writev(rc->fd, iov, 2);
	if (w != (ssize_t)(sizeof(hdr) + z) || fdatasync(rc->fd)) {
		snprintf(msg, msglen, "%s: write error: %s", rc->o->dir,
			 w < 0 ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

struct recorder *recorder_open(const struct rec_config *o, int *err,
			       char *msg, size_t msglen)
{
	struct recorder *rc = xmalloc(sizeof(*rc));

	memset(rc, 0, sizeof(*rc));
	rc->o = o;
	rc->fd = -1;
	*err = TSA_EIO;
	if (mkdir(o->dir, 0750) && errno != EEXIST) {
		snprintf(msg, msglen, "%s: %s", o->dir, strerror(errno));
		goto fail;
	}
	rc->dirfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rc->dirfd < 0) {
		if (errno == EACCES)
			*err = TSA_EACCES;
		snprintf(msg, msglen, "%s: %s", o->dir, strerror(errno));
		goto fail;
	}
	/* One recorder a directory: two would interleave their blocks. */
	if (flock(rc->dirfd, LOCK_EX | LOCK_NB)) {
		snprintf(msg, msglen, "%s: another tsa-prstat is recording "
			 "there", o->dir);
		close(rc->dirfd);
		goto fail;
	}
	rc->zc = ZSTD_createCCtx();
	if (!rc->zc)
		die(EXIT_BADDATA, "out of memory");
	read_boot_id(rc->boot_id, sizeof(rc->boot_id), o->procfs);
	*err = TSA_OK;
	return rc;
fail:
	free(rc);
	return NULL;
}

int recorder_block(struct recorder *rc, const struct tsa_snap *prev,
		   const struct tsa_snap *cur, const struct ct_file *cprev,
		   const struct ct_file *ccur, const double la[3], char *msg,
		   size_t msglen)
{
	char *raw = NULL;
	size_t rawlen = 0;
	FILE *m;
	int nf, err;

	/* By the snapshots' own clock, which no one sets. */
	nf = rec_file(rc, cur->wall.tv_sec, msg, msglen);
	if (nf < 0)
		return TSA_EIO;
	if (nf ||
	    cur->now - rc->key_now >= REC_KEY_SECS * UINT64_C(1000000000) ||
	    (prev && prev->now > cur->now))
		prev = NULL;
	if (!prev)
		rc->key_now = cur->now;
	m = open_memstream(&raw, &rawlen);
	if (!m)
		die(EXIT_BADDATA, "out of memory");
	rec_text(rc, m, prev, cur, cprev, ccur, la);
	if (fclose(m))
		die(EXIT_BADDATA, "out of memory");
	err = rec_append(rc, raw, rawlen, msg, msglen);
	free(raw);
	if (err)
		return TSA_EIO;
	/* The size limit, checked now and then within the hour. */
	if (rc->o->max_bytes && ++rc->blocks % 60 == 0)
		retain(rc, cur->wall.tv_sec);
	keyidx_build(&rc->prev_idx, cur->nrows, snap_key, cur->rows);
	return TSA_OK;
}

int recorder_close(struct recorder *rc, char *msg, size_t msglen)
{
	int err = TSA_OK;

	if (rc->fd >= 0 && close(rc->fd)) {
		snprintf(msg, msglen, "%s: %s", rc->o->dir, strerror(errno));
		err = TSA_EIO;
	}
	close(rc->dirfd);
	ZSTD_freeCCtx(rc->zc);
	free(rc->zbuf);
	free(rc->prev_idx.slot);
	cgroup_cache_free(&rc->cc);
	free(rc);
	return err;
}

/* ---- replay ------------------------------------------------------------ */

int replay_open(struct replay *rp, const char *dir, time_t from, char *msg,
		size_t msglen)
{
	struct stat st;
	size_t i;

	memset(rp, 0, sizeof(*rp));
	if (stat(dir, &st)) {
		snprintf(msg, msglen, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(msg, msglen, "not a directory");
		return -1;
	}
	rp->files = list_files(dir, &rp->nfiles);
	if (!rp->nfiles) {
		snprintf(msg, msglen, "no recording there (no "
			 "tsa-YYYYMMDD-HH.rec file)");
		return -1;
	}
	/* Full paths from here on. */
	for (i = 0; i < rp->nfiles; i++) {
		char *p = xmalloc(strlen(dir) + strlen(rp->files[i]) + 2);

		sprintf(p, "%s/%s", dir, rp->files[i]);
		free(rp->files[i]);
		rp->files[i] = p;
	}
	rp->from = from;
	rp->need_key = 1;
	return 0;
}

static void rows_free(struct replay *rp)
{
	size_t i;

	for (i = 0; i < rp->nrows; i++)
		free((char *)rp->rows[i].row.comm);
	rp->nrows = 0;
}

static void cg_clear(struct replay *rp)
{
	size_t i;

	for (i = 0; i < rp->ncg; i++)
		free(rp->cg[i].path);
	rp->ncg = 0;
}

static const char *cg_find(const struct replay *rp, uint64_t pid,
			   uint64_t since)
{
	size_t i;

	for (i = rp->ncg; i-- > 0;)
		if (rp->cg[i].pid == pid && rp->cg[i].since == since)
			return rp->cg[i].path;
	return NULL;
}

/* Load the next file that is not wholly before rp->from; 0 if none. */
static int next_file(struct replay *rp)
{
	for (; rp->fi < rp->nfiles; rp->fi++) {
		const char *path = rp->files[rp->fi];
		char msg[256];
		size_t cap = 0;
		char *buf = NULL;

		/*
		 * Every block of it is before the hour of the file after
		 * next (the next one's first block may come just after
		 * @from, so the last before it may be this file's).
		 */
		if (rp->from && rp->fi + 2 < rp->nfiles &&
		    name_hour(strrchr(rp->files[rp->fi + 2], '/') + 1) <=
		    rp->from)
			continue;
		free(rp->data);
		rp->data = NULL;
		if (tsa_read_file(path, &buf, &rp->len, &cap, msg,
				  sizeof(msg)) != TSA_OK) {
			warnmsg("%s: %s: skipped", path, msg);
			free(buf);
			continue;
		}
		rp->data = (unsigned char *)buf;
		if (rp->len < strlen(REC_HEADER) ||
		    memcmp(rp->data, REC_HEADER, strlen(REC_HEADER))) {
			warnmsg("%s: not a tsa recording (no \"tsa-record 1\" "
				"line): skipped", path);
			continue;
		}
		rp->pos = strlen(REC_HEADER);
		rp->fi++;
		return 1;
	}
	return 0;
}

/* The next intact block's text into rp->raw; 0 at the end. */
static int next_block(struct replay *rp, size_t *rawlen)
{
	for (;;) {
		const unsigned char *h;
		const char *why = NULL, *path;
		uint32_t zlen = 0, len = 0;
		size_t got;

		if (!rp->data || rp->pos >= rp->len) {
			if (!next_file(rp))
				return 0;
			continue;	/* it may have no block yet */
		}
		path = rp->files[rp->fi - 1];
		h = rp->data + rp->pos;
		if (rp->len - rp->pos < REC_HDR_LEN) {
			why = "a torn block (cut short)";
		} else if (memcmp(h, REC_MAGIC, 4) ||
			   get32(h + 16) != crc32_buf(h, 16)) {
			why = "a damaged block header";
		} else {
			zlen = get32(h + 4);
			len = get32(h + 8);
			if (rp->len - rp->pos - REC_HDR_LEN < zlen)
				why = "a torn block (cut short)";
			else if (get32(h + 12) != crc32_buf(h + REC_HDR_LEN, zlen))
				why = "a damaged block (checksum)";
			else if (len > REC_MAX_RAW ||
				 ZSTD_getFrameContentSize(h + REC_HDR_LEN, zlen) !=
				 len)
				why = "a block whose header and frame disagree";
		}
		if (!why) {
			if ((size_t)len + 1 > rp->rawcap) {
				free(rp->raw);
				rp->rawcap = (size_t)len + 1;
				rp->raw = xmalloc(rp->rawcap);
			}
			got = ZSTD_decompress(rp->raw, len, h + REC_HDR_LEN, zlen);
			if (ZSTD_isError(got) || got != len)
				why = "a block that does not decompress";
		}
		if (!why) {
			rp->raw[len] = '\0';
			*rawlen = len;
			rp->pos += REC_HDR_LEN + zlen;
			return 1;
		}
		/* Skip it: on to the next block header, if any. */
		{
			const unsigned char *next = rp->len - rp->pos > 1 ?
				memmem(h + 1, rp->len - rp->pos - 1, REC_MAGIC,
				       4) : NULL;
			size_t skip = next ? (size_t)(next - h) :
				      rp->len - rp->pos;

			warnmsg("%s: %s at byte %zu (%zu bytes) skipped%s",
				path, why, rp->pos, skip, rp->need_key ? "" :
				"; the blocks after it wait for the next full "
				"one");
			rp->pos += skip;
			rp->damaged++;
			rp->need_key = 1;
		}
	}
}

/*
 * The kernel's order: process by process, its threads as it listed
 * them (first seen first), then its exited threads' line.
 */
static int rec_row_cmp(const void *a, const void *b)
{
	const struct rec_row *x = a, *y = b;
	int tx = !!(x->row.v[F_FLAGS] & TSA_F_TOTALS);
	int ty = !!(y->row.v[F_FLAGS] & TSA_F_TOTALS);

	if (x->row.v[F_PID] != y->row.v[F_PID])
		return x->row.v[F_PID] < y->row.v[F_PID] ? -1 : 1;
	if (tx != ty)
		return tx - ty;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die(EXIT_BADDATA, "out of memory");
	return d;
}

/*
 * Apply one block: its header lines, then its lines over the rebuilt
 * snapshot.  -1 if the block is not what a recorder writes.
 */
static int apply_block(struct replay *rp, char *text, size_t len,
		       struct tsa_snap *blk, struct timespec *wall)
{
	struct keyidx gone = { NULL, 0 }, mine = { NULL, 0 }, eqi = { NULL, 0 };
	uint64_t *gk = NULL, *ek = NULL, now;
	int64_t *ed = NULL;
	size_t ngone = 0, neq = 0, i, n;
	char *p = text, *end = text + len, *line, msg[128];
	int key = -1;
	struct tsa_row e;

	while ((line = tsa_next_line(&p, end)) != NULL) {
		if (!strcmp(line, "block 1 key")) {
			key = 1;
			cg_clear(rp);	/* it names every process's */
			ct_begin(&rp->calls, 1);
		} else if (!strcmp(line, "block 1 delta")) {
			key = 0;
			if (rp->need_key)
				return 0;	/* no base to apply it to */
			ct_begin(&rp->calls, 0);
		} else if (line[0] == 'c' && line[1] && strchr("hr=-+.", line[1]) &&
			   line[2] == ' ') {
			if (key < 0 || ct_line(&rp->calls, line))
				goto bad;
		} else if (!strncmp(line, "wall ", 5)) {
			long long sec;
			long nsec;

			if (sscanf(line, "wall %lld.%ld", &sec, &nsec) != 2)
				goto bad;
			wall->tv_sec = (time_t)sec;
			wall->tv_nsec = nsec;
		} else if (!strncmp(line, "boot_id ", 8)) {
			snprintf(rp->boot_id, sizeof(rp->boot_id), "%s",
				 line + 8);
		} else if (!strncmp(line, "interval ", 9)) {
			if (sscanf(line, "interval %lf", &rp->interval) != 1)
				goto bad;
		} else if (!strncmp(line, "loadavg ", 8)) {
			if (sscanf(line, "loadavg %lf %lf %lf", &rp->loadavg[0],
				   &rp->loadavg[1], &rp->loadavg[2]) != 3)
				goto bad;
		} else if (!strncmp(line, "cgroup ", 7)) {
			const char *t = line + 7;
			uint64_t pid, since;

			if (key < 0 || tsa_parse_u64(&t, &pid) || *t++ != ' ' ||
			    tsa_parse_u64(&t, &since) || *t++ != ' ')
				goto bad;
			if (rp->ncg == rp->cg_cap) {
				rp->cg_cap = rp->cg_cap ? 2 * rp->cg_cap : 64;
				rp->cg = xrealloc(rp->cg, rp->cg_cap *
						  sizeof(*rp->cg));
			}
			rp->cg[rp->ncg].pid = pid;
			rp->cg[rp->ncg].since = since;
			rp->cg[rp->ncg].path = xstrdup(t);
			tsa_comm_unescape(rp->cg[rp->ncg].path);
			rp->ncg++;
		} else if (!strncmp(line, "gone ", 5)) {
			const char *t = line + 5;
			uint64_t tid, pid;

			if (tsa_parse_u64(&t, &tid) || *t++ != ' ' ||
			    tsa_parse_u64(&t, &pid))
				goto bad;
			gk = xrealloc(gk, (ngone + 1) * sizeof(*gk));
			gk[ngone++] = tid ? tid : TOTALS_KEY | pid;
		} else if (!strncmp(line, "= ", 2)) {
			const char *t = line + 2;
			int f;

			ek = xrealloc(ek, (neq + 1) * sizeof(*ek));
			ed = xrealloc(ed, (neq + 1) * F_NUM * sizeof(*ed));
			if (tsa_parse_u64(&t, &ek[neq]))
				goto bad;
			for (f = 0; f < F_NUM; f++) {
				char *q;

				if (*t++ != ' ')
					goto bad;
				errno = 0;
				ed[neq * F_NUM + f] = strtoll(t, &q, 10);
				if (q == t || errno)
					goto bad;
				t = q;
			}
			if (*t)
				goto bad;
			neq++;
		} else if (!strcmp(line, "tsa-all 1")) {
			/* The rest is the kernel's format: put it back. */
			line[strlen(line)] = '\n';
			p = line;
			break;
		}
	}
	if (key < 0 || !line)
		goto bad;
	if (key)
		rp->need_key = 0;
	ct_end(&rp->calls);
	blk->len = (size_t)(end - p);
	if (blk->len + 1 > blk->cap) {
		blk->cap = blk->len + 1;
		blk->buf = xrealloc(blk->buf, blk->cap);
	}
	memcpy(blk->buf, p, blk->len);
	blk->buf[blk->len] = '\0';
	if (tsa_snap_parse(blk, msg, sizeof(msg)) != TSA_OK)
		goto bad;
	now = blk->now;
	if (key)
		rows_free(rp);
	/*
	 * The last block's lines go on, extended to this one's clock,
	 * unless they are gone or this block has them anew.
	 */
	keyidx_build(&gone, ngone, u64_key, gk);
	keyidx_build(&mine, blk->nrows, snap_key, blk->rows);
	keyidx_build(&eqi, neq, u64_key, ek);
	for (i = n = 0; i < rp->nrows; i++) {
		struct rec_row *r = &rp->rows[i];
		long q = keyidx_find(&eqi, r->key, u64_key, ek);

		if (q >= 0) {
			int f;

			e = r->row;
			for (f = 0; f < F_NUM; f++)
				e.v[f] += (uint64_t)ed[q * F_NUM + f];
		} else if (keyidx_find(&mine, r->key, snap_key,
				       blk->rows) >= 0 ||
			   keyidx_find(&gone, r->key, u64_key, gk) >= 0 ||
			   !rec_extend(&e, &r->row, now)) {
			free((char *)r->row.comm);
			continue;
		}
		e.comm = r->row.comm;
		rp->rows[n].key = r->key;
		rp->rows[n].seq = r->seq;
		rp->rows[n++].row = e;
	}
	rp->nrows = n;
	for (i = 0; i < blk->nrows; i++) {
		if (rp->nrows == rp->rows_cap) {
			rp->rows_cap = rp->rows_cap ? 2 * rp->rows_cap : 256;
			rp->rows = xrealloc(rp->rows, rp->rows_cap *
					    sizeof(*rp->rows));
		}
		rp->rows[rp->nrows].key = row_key(&blk->rows[i]);
		rp->rows[rp->nrows].seq = rp->seq++;
		rp->rows[rp->nrows].row = blk->rows[i];
		rp->rows[rp->nrows].row.comm = xstrdup(blk->rows[i].comm);
		rp->nrows++;
	}
	free(mine.slot);
	free(gone.slot);
	free(eqi.slot);
	free(gk);
	free(ek);
	free(ed);
	return 1;
bad:
	free(gk);
	free(ek);
	free(ed);
	return -1;
}

int replay_next(struct replay *rp, struct tsa_snap *s,
		struct tsa_calls_snap *cs)
{
	static struct tsa_snap blk;
	struct timespec wall = { 0, 0 };
	char msg[128];
	size_t rawlen, i;
	FILE *m;
	int rc;

again:
	for (;;) {
		if (!next_block(rp, &rawlen))
			return 0;
		rc = apply_block(rp, rp->raw, rawlen, &blk, &wall);
		if (rc < 0) {
			warnmsg("%s: a block that is not a recorder's: skipped",
				rp->files[rp->fi - 1]);
			rp->damaged++;
			rp->need_key = 1;
			continue;
		}
		if (rc > 0)
			break;
	}
	qsort(rp->rows, rp->nrows, sizeof(*rp->rows), rec_row_cmp);
	free(s->buf);
	s->buf = NULL;
	m = open_memstream(&s->buf, &s->len);
	if (!m)
		die(EXIT_BADDATA, "out of memory");
	put_tsa_all_head(m, blk.now);
	for (i = 0; i < rp->nrows; i++)
		put_row(m, &rp->rows[i].row);
	if (fclose(m))
		die(EXIT_BADDATA, "out of memory");
	s->cap = s->len + 1;
	rc = tsa_snap_parse(s, msg, sizeof(msg));
	if (rc == TSA_OK && cs) {
		cs->nrows = 0;
		rp->calls_err = ct_snapshot(&rp->calls, cs, msg, sizeof(msg));
		cs->wall = wall;
	}
	if (rc != TSA_OK) {
		/* A block whose checksum held but whose lines do not. */
		warnmsg("%s: a block that rebuilds no snapshot (%s): skipped; "
			"the blocks after it wait for the next full one",
			rp->files[rp->fi - 1], msg);
		rp->damaged++;
		rp->need_key = 1;
		goto again;
	}
	s->wall = wall;
	return 1;
}

void replay_cgroups(const struct replay *rp, const struct tsa_snap *s,
		    struct cgroup_cache *cc)
{
	size_t i;

	for (i = 0; i < s->nrows; i++) {
		const struct tsa_row *r = &s->rows[i];
		const struct tsa_proc *p = tsa_snap_proc(s, r->v[F_PID]);
		uint64_t since;
		const char *path;

		if (!p || (i && s->rows[i - 1].v[F_PID] == r->v[F_PID]))
			continue;
		since = proc_since(s, p, r);
		path = cg_find(rp, r->v[F_PID], since);
		cgroup_cache_put(cc, r->v[F_PID], since, path ? path : "?");
	}
}

void replay_close(struct replay *rp)
{
	ct_free(&rp->calls);
	rows_free(rp);
	free(rp->rows);
	cg_clear(rp);
	free(rp->cg);
	free(rp->raw);
	free(rp->data);
	free_files(rp->files, rp->nfiles);
	memset(rp, 0, sizeof(*rp));
}

int replay_at(struct capture *c, const char *dir, time_t t, char *msg,
	      size_t msglen)
{
	struct tsa_snap s[2];
	struct replay rp;
	int k = 0, have = 0;
	char boot[64] = "";

	memset(s, 0, sizeof(s));
	memset(c, 0, sizeof(*c));
	if (replay_open(&rp, dir, t, msg, msglen))
		return -1;
	/* The last block at or before @t, of one boot. */
	while (replay_next(&rp, &s[k], NULL) > 0 && s[k].wall.tv_sec <= t) {
		have = 1;
		k = !k;
		snprintf(boot, sizeof(boot), "%s", rp.boot_id);
	}
	if (!have) {
		snprintf(msg, msglen, "no block recorded at or before that "
			 "time");
		replay_close(&rp);
		tsa_snap_free(&s[0]);
		tsa_snap_free(&s[1]);
		return -1;
	}
	c->snap = s[!k];
	memset(&s[!k], 0, sizeof(s[!k]));
	c->wall = c->snap.wall;
	snprintf(c->boot_id, sizeof(c->boot_id), "%s", boot);
	replay_cgroups(&rp, &c->snap, &c->cc);
	replay_close(&rp);
	tsa_snap_free(&s[k]);
	return 0;
}

/* ---- the command line's times and sizes -------------------------------- */

time_t parse_when(const char *s, time_t now)
{
	int y, mo, d, h, mi, n = 0;
	struct tm tm;
	char *end;
	long long v;

	if (s[0] == '@') {
		errno = 0;
		v = strtoll(s + 1, &end, 10);
		return errno || end == s + 1 || *end || v < 0 ? -1 : (time_t)v;
	}
	if (s[0] == '-') {
		v = parse_age(s + 1);
		return v < 0 || v > now ? -1 : now - (time_t)v;
	}
	localtime_r(&now, &tm);
	tm.tm_sec = 0;
	if (sscanf(s, "%d-%d-%d %d:%d%n", &y, &mo, &d, &h, &mi, &n) == 5) {
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
	} else if (sscanf(s, "%d:%d%n", &h, &mi, &n) != 2) {
		return -1;
	}
	tm.tm_hour = h;
	tm.tm_min = mi;
	if (s[n] == ':') {
		int n2 = 0;

		if (sscanf(s + n, ":%d%n", &tm.tm_sec, &n2) != 1)
			return -1;
		n += n2;
	}
	if (s[n] || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60 ||
	    tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31)
		return -1;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

static long long scaled(const char *s, const char *units,
			const long long *mult)
{
	char *end;
	long long v;
	const char *u;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || v < 0)
		return -1;
	if (!*end)
		return v;
	u = strchr(units, *end);
	if (!u || end[1] || v > INT64_MAX / mult[u - units])
		return -1;
	return v * mult[u - units];
}

long long parse_age(const char *s)
{
	static const long long mult[] = { 1, 60, 3600, 86400, 604800 };

	return scaled(s, "smhdw", mult);
}

long long parse_size(const char *s)
{
	static const long long mult[] = { 1024, 1LL << 20, 1LL << 30,
					  1LL << 40 };

	return scaled(s, "KMGT", mult);
}
