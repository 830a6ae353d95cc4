// SPDX-License-Identifier: GPL-2.0
/*
 * store/recfile.c - the flight recorder's files (tsa-record 1), what
 * the writer (record.c) and the reader (replay.c) share.
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
 *   ch, cr, c=, c-, c+, c. ...	(/proc/tsa/calls: store/rectable.c)
 *   wh, wr, w=, w-, w+, w. ...	(/proc/tsa/wakers: the same)
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

#include "recfile.h"
#include "util.h"

/* ---- lines, and what an unchanged one becomes ------------------------- */

uint64_t row_key(const struct tsa_row *r)
{
	return r->v[F_FLAGS] & TSA_F_TOTALS ? TOTALS_KEY | r->v[F_PID] :
	       r->v[F_TID];
}

/*
 * @p as a read at @now would show it had only its current stay gone on;
 * 0 if it cannot be (a clock before the line's).
 */
int rec_extend(struct tsa_row *e, const struct tsa_row *p, uint64_t now)
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

void keyidx_build(struct tsa_index *k, size_t n,
		  uint64_t (*key)(const void *, size_t), const void *arr)
{
	size_t i;

	tsa_index_clear(k, n, 16);
	for (i = 0; i < n; i++)
		tsa_index_put(k, tsa_hash_u64(key(arr, i)), i);
}

long keyidx_find(const struct tsa_index *k, uint64_t want,
		 uint64_t (*key)(const void *, size_t), const void *arr)
{
	size_t h;

	tsa_index_each(k, tsa_hash_u64(want), h)
		if (key(arr, tsa_index_at(k, h)) == want)
			return (long)tsa_index_at(k, h);
	return -1;
}

uint64_t snap_key(const void *arr, size_t i)
{
	return row_key(&((const struct tsa_row *)arr)[i]);
}

uint64_t u64_key(const void *arr, size_t i)
{
	return ((const uint64_t *)arr)[i];
}

void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

void hour_name(char *out, size_t len, time_t hour)
{
	struct tm tm;

	gmtime_r(&hour, &tm);
	strftime(out, len, "tsa-%Y%m%d-%H.rec", &tm);
}

/* The hour a file name stands for, or -1 if it is not a recording's. */
time_t name_hour(const char *name)
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
char **list_files(const char *dir, size_t *n)
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

void free_files(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}
