// SPDX-License-Identifier: GPL-2.0
/*
 * store/record.c - the flight recorder: each snapshot as a key or delta
 * block (the format: recfile.c) appended to the hour's file, and the
 * directory kept to its age and size limits.
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
#include "recfile.h"
#include "util.h"

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
	struct tsa_index prev_idx;
	struct cgroup_cache cc;	/* cgroups of the last block's processes */
	char boot_id[64];
};

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
		     const struct tsa_snap *cur, const struct rec_tables *tprev,
		     const struct rec_tables *tcur, const double la[3])
{
	const char *procfs = rc->o->procfs;
	struct tsa_index cur_idx = { NULL, 0, 0 };
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
		tsa_index_free(&cur_idx);
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
	if (tcur->calls)
		ct_block(m, prev ? tprev->calls : NULL, tcur->calls);
	if (tcur->wakers)
		ct_block(m, prev ? tprev->wakers : NULL, tcur->wakers);
	if (tcur->hist)
		ct_block(m, prev ? tprev->hist : NULL, tcur->hist);
	tsa_write_head(m, cur->now, TSA_LAYOUT_FULL);
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
		tsa_write_row(m, r, TSA_LAYOUT_FULL);
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
		   const struct tsa_snap *cur, const struct rec_tables *tprev,
		   const struct rec_tables *tcur, const double la[3],
		   char *msg, size_t msglen)
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
	rec_text(rc, m, prev, cur, tprev, tcur, la);
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
	tsa_index_free(&rc->prev_idx);
	cgroup_cache_free(&rc->cc);
	free(rc);
	return err;
}
