// SPDX-License-Identifier: GPL-2.0
/*
 * store/capture.c - captures: one snapshot in a file, for --compare.
 *
 * A capture is a small header and the rows of one /proc/tsa/all read
 * in the kernel's own format, cut to the columns a compare needs (no
 * x_n, x_max, state), so that one parser reads both and a capture is
 * about half the size of the file it came from:
 *
 *   tsa-capture 1
 *   wall 1700000000.123456789
 *   boot_id 6f1c...
 *   cgroup 4240 123456789 /system.slice/db.service
 *   ...
 *   size 123456 crc32 89abcdef
 *   tsa-all 1
 *   now ...
 *   fields tid pid uid flags elapsed at usr_ns ... stp_ns vcx ... mig comm
 *   ...
 *
 * "cgroup PID SINCE PATH" gives each process's cgroup at the capture
 * (SINCE tells it from a later process with its pid); "size" and
 * "crc32" cover every byte after their line, so a capture cut short or
 * damaged is refused rather than compared.  Names and paths escape
 * control bytes, DEL and the backslash as \ooo, as the kernel does.
 *
 * Version 2 carries the distributions (the module's /proc/tsa/hist) as
 * well: a "hist SIZE crc32 CRC" line in the header, and that file's
 * SIZE bytes after the rows ("size" and its "crc32" then cover the rows
 * only).  Version 3 may carry the wakers (/proc/tsa/wakers) the same
 * way: a "wakers SIZE crc32 CRC" line, and its bytes after the rows and
 * the distributions.  A capture is written in the lowest version that
 * holds what it carries, so that older readers read what they can.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "util.h"

/* The rows, with the columns a compare reads. */
static void write_rows(FILE *f, const struct tsa_snap *s)
{
	size_t i;

	tsa_write_head(f, s->now, TSA_LAYOUT_COMPARE);
	for (i = 0; i < s->nrows; i++)
		tsa_write_row(f, &s->rows[i], TSA_LAYOUT_COMPARE);
}

/* A part after the rows: its header line ("hist SIZE crc32 CRC"). */
static void part_head(FILE *f, const char *name, const struct capture_part *p)
{
	if (p->buf)
		fprintf(f, "%s %zu crc32 %08x\n", name, p->len,
			crc32_buf(p->buf, p->len));
}

int capture_write(FILE *f, const struct tsa_snap *s, const char *procfs,
		  const struct capture_part *hist,
		  const struct capture_part *wakers)
{
	char boot[64], path[4096];
	char *body;
	size_t blen, i;
	FILE *m;

	m = open_memstream(&body, &blen);
	if (!m)
		return -1;
	write_rows(m, s);
	if (fclose(m))
		return -1;
	read_boot_id(boot, sizeof(boot), procfs);
	fprintf(f, "tsa-capture %d\nwall %lld.%09ld\n",
		wakers->buf ? 3 : hist->buf ? 2 : 1,
		(long long)s->wall.tv_sec, s->wall.tv_nsec);
	if (boot[0])
		fprintf(f, "boot_id %s\n", boot);
	/* Each process's cgroup, at its first row. */
	for (i = 0; i < s->nrows; i++) {
		const struct tsa_row *r = &s->rows[i];
		const struct tsa_proc *p = tsa_snap_proc(s, r->v[F_PID]);

		if (!p || !p->nlwp ||
		    (i && s->rows[i - 1].v[F_PID] == r->v[F_PID]))
			continue;
		cgroup_of(path, sizeof(path), procfs, r->v[F_PID]);
		fprintf(f, "cgroup %" PRIu64 " %" PRIu64 " ", r->v[F_PID],
			proc_since(s, p, r));
		fput_escaped(f, path);
		fputc('\n', f);
	}
	part_head(f, "hist", hist);
	part_head(f, "wakers", wakers);
	fprintf(f, "size %zu crc32 %08x\n", blen, crc32_buf(body, blen));
	fwrite(body, 1, blen, f);
	free(body);
	if (hist->buf)
		fwrite(hist->buf, 1, hist->len, f);
	if (wakers->buf)
		fwrite(wakers->buf, 1, wakers->len, f);
	return fflush(f) == EOF || ferror(f) ? -1 : 0;
}

/* Where a part after the rows is, as its header line says. */
struct part_at {
	size_t size;
	unsigned long crc;
	int there;
};

/* A "cgroup PID SINCE PATH" line into the cache. */
static int cgroup_line(struct capture *c, char *line)
{
	const char *t = line;
	uint64_t pid, since;

	if (tsa_parse_u64(&t, &pid) || *t++ != ' ' ||
	    tsa_parse_u64(&t, &since) || *t++ != ' ')
		return -1;
	tsa_comm_unescape(line + (t - line));
	cgroup_cache_put(&c->cc, pid, since, t);
	return 0;
}

static int bad(char *msg, size_t msglen, const char *why, size_t lineno)
{
	snprintf(msg, msglen, "not a valid capture: %s (line %zu)", why,
		 lineno);
	return TSA_EFORMAT;
}

/* A "NAME SIZE crc32 CRC" line's numbers into @pt; -1 if malformed. */
static int part_line(const char *line, struct part_at *pt)
{
	const char *sp = strchr(line, ' ');

	if (!sp || sscanf(sp, " %zu crc32 %lx", &pt->size, &pt->crc) != 2)
		return -1;
	pt->there = 1;
	return 0;
}

/* A part's bytes at @p, checked, into a buffer of its own (NUL ended). */
static char *part_copy(const char *p, const struct part_at *pt, size_t *cap)
{
	char *buf;

	if (crc32_buf(p, pt->size) != (uint32_t)pt->crc)
		return NULL;
	*cap = pt->size + 1;
	buf = xmalloc(*cap);
	memcpy(buf, p, pt->size);
	buf[pt->size] = '\0';
	return buf;
}

int capture_read(struct capture *c, const char *path, char *msg,
		 size_t msglen)
{
	struct tsa_snap *s = &c->snap;
	struct part_at hist = { 0 }, wakers = { 0 };
	char *p, *end, *line, *q, pmsg[200];
	size_t lineno = 1, size = 0;
	unsigned long crc = 0;
	long major;
	int rc;

	rc = tsa_read_file(path, &s->buf, &s->len, &s->cap, msg, msglen);
	if (rc != TSA_OK)
		return rc;
	p = s->buf;
	end = s->buf + s->len;
	line = tsa_next_line(&p, end);
	if (!line || strncmp(line, "tsa-capture ", 12)) {
		snprintf(msg, msglen, "not a tsa-prstat capture (first line: "
			 "\"%.40s\")", line ? line : "");
		return TSA_EFORMAT;
	}
	errno = 0;
	major = strtol(line + 12, &q, 10);
	if (q == line + 12 || errno)
		return bad(msg, msglen, "bad version", lineno);
	if (major < 1 || major > 3) {
		snprintf(msg, msglen, "capture format version %.20s, this "
			 "tsa-prstat reads versions 1 to 3", line + 12);
		return TSA_EVERSION;
	}
	c->boot_id[0] = '\0';
	c->has_hist = 0;
	c->has_wakers = 0;
	for (;;) {
		line = tsa_next_line(&p, end);
		lineno++;
		if (!line)
			return bad(msg, msglen, "no \"size\" line", lineno);
		if (!strncmp(line, "size ", 5)) {
			if (sscanf(line, "size %zu crc32 %lx", &size, &crc) != 2)
				return bad(msg, msglen, "bad \"size\" line",
					   lineno);
			break;
		}
		if (!strncmp(line, "wall ", 5)) {
			long long sec;
			long nsec;

			if (sscanf(line, "wall %lld.%ld", &sec, &nsec) != 2)
				return bad(msg, msglen, "bad \"wall\" line",
					   lineno);
			c->wall.tv_sec = (time_t)sec;
			c->wall.tv_nsec = nsec;
		} else if (!strncmp(line, "boot_id ", 8)) {
			snprintf(c->boot_id, sizeof(c->boot_id), "%s",
				 line + 8);
		} else if (!strncmp(line, "cgroup ", 7)) {
			if (cgroup_line(c, line + 7))
				return bad(msg, msglen, "bad \"cgroup\" line",
					   lineno);
		} else if (major >= 2 && !strncmp(line, "hist ", 5)) {
			if (part_line(line, &hist))
				return bad(msg, msglen, "bad \"hist\" line",
					   lineno);
		} else if (major >= 3 && !strncmp(line, "wakers ", 7)) {
			if (part_line(line, &wakers))
				return bad(msg, msglen, "bad \"wakers\" line",
					   lineno);
		}	/* other header lines: a later minor version's */
	}
	if ((size_t)(end - p) != size + hist.size + wakers.size ||
	    size + hist.size + wakers.size < size ||
	    hist.size + wakers.size < hist.size) {
		snprintf(msg, msglen, "damaged capture: %zu bytes announced, "
			 "%zu found (cut short?)",
			 size + hist.size + wakers.size, (size_t)(end - p));
		return TSA_EFORMAT;
	}
	if (crc32_buf(p, size) != (uint32_t)crc)
		goto damaged;
	if (hist.there) {
		struct tsa_hist_snap *h = &c->hist;

		free(h->buf);
		h->buf = part_copy(p + size, &hist, &h->cap);
		if (!h->buf)
			goto damaged;
		h->len = hist.size;
		rc = tsa_hist_parse(h, pmsg, sizeof(pmsg));
		if (rc != TSA_OK) {
			snprintf(msg, msglen, "its distributions: %s", pmsg);
			return rc;
		}
		c->has_hist = 1;
	}
	if (wakers.there) {
		struct tsa_wakers_snap *w = &c->wakers;

		free(w->buf);
		w->buf = part_copy(p + size + hist.size, &wakers, &w->cap);
		if (!w->buf)
			goto damaged;
		w->len = wakers.size;
		rc = tsa_wakers_parse(w, pmsg, sizeof(pmsg));
		if (rc != TSA_OK) {
			snprintf(msg, msglen, "its wakers: %s", pmsg);
			return rc;
		}
		c->has_wakers = 1;
	}
	/* The rows, to the start of the buffer, for the usual parser. */
	memmove(s->buf, p, size);
	s->len = size;
	rc = tsa_snap_parse(s, msg, msglen);
	s->wall = c->wall;
	return rc;
damaged:
	snprintf(msg, msglen, "damaged capture: checksum mismatch");
	return TSA_EFORMAT;
}

void capture_free(struct capture *c)
{
	tsa_snap_free(&c->snap);
	cgroup_cache_free(&c->cc);
	tsa_hist_free(&c->hist);
	tsa_wakers_free(&c->wakers);
	memset(c, 0, sizeof(*c));
}
