// SPDX-License-Identifier: GPL-2.0
/*
 * store/replay.c - a recording read back: the blocks of its files in
 * order, each applied to the snapshot rebuilt so far (damaged and torn
 * blocks skipped, with a message), a recording at a time as a capture,
 * and the times and sizes the command line gives the recorder and the
 * replay.
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
		if (rp->len >= strlen(REC_HEADER) &&
		    !memcmp(rp->data, REC_HEADER, strlen(REC_HEADER))) {
			rp->version = 2;
		} else if (rp->len >= strlen(REC_HEADER_V1) &&
			   !memcmp(rp->data, REC_HEADER_V1,
				   strlen(REC_HEADER_V1))) {
			rp->version = 1;
		} else {
			warnmsg("%s: not a tsa recording (no \"tsa-record 1\" "
				"or \"tsa-record 2\" line): skipped", path);
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

/*
 * Apply one block: its header lines, then its lines over the rebuilt
 * snapshot.  -1 if the block is not what a recorder writes.
 */
static int apply_block(struct replay *rp, char *text, size_t len,
		       struct tsa_snap *blk, struct timespec *wall)
{
	struct tsa_index gone = { NULL, 0, 0 }, mine = { NULL, 0, 0 },
			 eqi = { NULL, 0, 0 };
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
			ct_begin(&rp->calls, &ct_calls, 1);
			ct_begin(&rp->wakers, &ct_wakers, 1);
			ct_begin(&rp->hist, &ct_hist, 1);
		} else if (!strcmp(line, "block 1 delta")) {
			key = 0;
			if (rp->need_key)
				return 0;	/* no base to apply it to */
			ct_begin(&rp->calls, &ct_calls, 0);
			ct_begin(&rp->wakers, &ct_wakers, 0);
			ct_begin(&rp->hist, &ct_hist, 0);
		} else if ((line[0] == 'c' || line[0] == 'w' ||
			    (line[0] == 'h' && rp->version >= 2)) && line[1] &&
			   strchr("hr=-+.", line[1]) && line[2] == ' ') {
			if (key < 0 || ct_line(line[0] == 'c' ? &rp->calls :
					       line[0] == 'w' ? &rp->wakers :
					       &rp->hist, line))
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
	ct_end(&rp->wakers);
	ct_end(&rp->hist);
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
	tsa_index_free(&mine);
	tsa_index_free(&gone);
	tsa_index_free(&eqi);
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

int replay_hist(struct replay *rp, struct tsa_hist_snap *hs)
{
	char msg[128];
	int rc;

	hs->n = 0;
	rc = ct_text(&rp->hist, &hs->buf, &hs->len, &hs->cap);
	if (rc == TSA_OK)
		rc = tsa_hist_parse(hs, msg, sizeof(msg));
	return rc;
}

int replay_next(struct replay *rp, struct tsa_snap *s,
		struct tsa_calls_snap *cs, struct tsa_wakers_snap *ws)
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
	/* A block of no rows leaves rows NULL: qsort() may not have that. */
	if (rp->nrows)
		qsort(rp->rows, rp->nrows, sizeof(*rp->rows), rec_row_cmp);
	free(s->buf);
	s->buf = NULL;
	m = open_memstream(&s->buf, &s->len);
	if (!m)
		die(EXIT_BADDATA, "out of memory");
	tsa_write_head(m, blk.now, TSA_LAYOUT_FULL);
	for (i = 0; i < rp->nrows; i++)
		tsa_write_row(m, &rp->rows[i].row, TSA_LAYOUT_FULL);
	if (fclose(m))
		die(EXIT_BADDATA, "out of memory");
	s->cap = s->len + 1;
	rc = tsa_snap_parse(s, msg, sizeof(msg));
	if (rc == TSA_OK && cs) {
		cs->nrows = 0;
		rp->calls_err = ct_text(&rp->calls, &cs->buf, &cs->len,
					&cs->cap);
		if (rp->calls_err == TSA_OK)
			rp->calls_err = tsa_calls_parse(cs, msg, sizeof(msg));
		cs->wall = wall;
	}
	if (rc == TSA_OK && ws) {
		ws->n = 0;
		rp->wakers_err = ct_text(&rp->wakers, &ws->buf, &ws->len,
					 &ws->cap);
		if (rp->wakers_err == TSA_OK)
			rp->wakers_err = tsa_wakers_parse(ws, msg,
							  sizeof(msg));
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
	ct_free(&rp->wakers);
	ct_free(&rp->hist);
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
	struct tsa_wakers_snap w[2];
	struct tsa_snap s[2];
	struct replay rp;
	int k = 0, have = 0, werr = TSA_ENOENT;
	char boot[64] = "";

	memset(s, 0, sizeof(s));
	memset(w, 0, sizeof(w));
	memset(c, 0, sizeof(*c));
	if (replay_open(&rp, dir, t, msg, msglen))
		return -1;
	/* The last block at or before @t, of one boot. */
	while (replay_next(&rp, &s[k], NULL, &w[k]) > 0 &&
	       s[k].wall.tv_sec <= t) {
		have = 1;
		werr = rp.wakers_err;
		k = !k;
		snprintf(boot, sizeof(boot), "%s", rp.boot_id);
	}
	if (!have) {
		snprintf(msg, msglen, "no block recorded at or before that "
			 "time");
		replay_close(&rp);
		tsa_snap_free(&s[0]);
		tsa_snap_free(&s[1]);
		tsa_wakers_free(&w[0]);
		tsa_wakers_free(&w[1]);
		return -1;
	}
	c->snap = s[!k];
	memset(&s[!k], 0, sizeof(s[!k]));
	c->wall = c->snap.wall;
	if (werr == TSA_OK) {
		c->wakers = w[!k];
		c->has_wakers = 1;
		memset(&w[!k], 0, sizeof(w[!k]));
	}
	snprintf(c->boot_id, sizeof(c->boot_id), "%s", boot);
	replay_cgroups(&rp, &c->snap, &c->cc);
	replay_close(&rp);
	tsa_snap_free(&s[k]);
	tsa_wakers_free(&w[0]);
	tsa_wakers_free(&w[1]);
	return 0;
}
