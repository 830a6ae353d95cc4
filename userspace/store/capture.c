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
 * only).  Without them a capture is written as version 1, which older
 * readers read.
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

int capture_write(FILE *f, const struct tsa_snap *s, const char *procfs,
		  const char *hist, size_t hist_len)
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
	fprintf(f, "tsa-capture %d\nwall %lld.%09ld\n", hist ? 2 : 1,
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
	if (hist)
		fprintf(f, "hist %zu crc32 %08x\n", hist_len,
			crc32_buf(hist, hist_len));
	fprintf(f, "size %zu crc32 %08x\n", blen, crc32_buf(body, blen));
	fwrite(body, 1, blen, f);
	free(body);
	if (hist)
		fwrite(hist, 1, hist_len, f);
	return fflush(f) == EOF || ferror(f) ? -1 : 0;
}

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

int capture_read(struct capture *c, const char *path, char *msg,
		 size_t msglen)
{
	struct tsa_snap *s = &c->snap;
	char *p, *end, *line, *q;
	size_t lineno = 1, size = 0, hsize = 0;
	unsigned long crc = 0, hcrc = 0;
	long major;
	int rc, hist = 0;

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
	if (major != 1 && major != 2) {
		snprintf(msg, msglen, "capture format version %.20s, this "
			 "tsa-prstat reads versions 1 and 2", line + 12);
		return TSA_EVERSION;
	}
	c->boot_id[0] = '\0';
	c->has_hist = 0;
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
			if (sscanf(line, "hist %zu crc32 %lx", &hsize,
				   &hcrc) != 2)
				return bad(msg, msglen, "bad \"hist\" line",
					   lineno);
			hist = 1;
		}	/* other header lines: a later minor version's */
	}
	if ((size_t)(end - p) != size + hsize || size + hsize < size) {
		snprintf(msg, msglen, "damaged capture: %zu bytes announced, "
			 "%zu found (cut short?)", size + hsize,
			 (size_t)(end - p));
		return TSA_EFORMAT;
	}
	if (crc32_buf(p, size) != (uint32_t)crc ||
	    (hist && crc32_buf(p + size, hsize) != (uint32_t)hcrc)) {
		snprintf(msg, msglen, "damaged capture: checksum mismatch");
		return TSA_EFORMAT;
	}
	if (hist) {
		struct tsa_hist_snap *h = &c->hist;
		char hmsg[200];

		h->cap = hsize + 1;
		h->buf = xrealloc(h->buf, h->cap);
		memcpy(h->buf, p + size, hsize);
		h->buf[hsize] = '\0';
		h->len = hsize;
		rc = tsa_hist_parse(h, hmsg, sizeof(hmsg));
		if (rc != TSA_OK) {
			snprintf(msg, msglen, "its distributions: %s", hmsg);
			return rc;
		}
		c->has_hist = 1;
	}
	/* The rows, to the start of the buffer, for the usual parser. */
	memmove(s->buf, p, size);
	s->len = size;
	rc = tsa_snap_parse(s, msg, msglen);
	s->wall = c->wall;
	return rc;
}

void capture_free(struct capture *c)
{
	tsa_snap_free(&c->snap);
	cgroup_cache_free(&c->cc);
	tsa_hist_free(&c->hist);
	memset(c, 0, sizeof(*c));
}
