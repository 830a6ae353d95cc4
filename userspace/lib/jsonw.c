// SPDX-License-Identifier: GPL-2.0
/*
 * lib/jsonw.c - the streaming JSON writer (see jsonw.h).
 */
#include <stdlib.h>

#include "jsonw.h"
#include "util.h"

void jw_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		int n;

		if (*s == '"' || *s == '\\') {
			fputc('\\', f);
			fputc(*s++, f);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s++);
		} else if ((n = utf8_len(s)) == 0) {
			fputs("\\ufffd", f);
			s++;
		} else {
			fwrite(s, 1, (size_t)n, f);
			s += n;
		}
	}
	fputc('"', f);
}

/* The comma before a member, if it is not the first, and its key. */
static void member(struct jsonw *w, const char *key)
{
	if (w->more[w->depth - 1])
		fputc(',', w->f);
	w->more[w->depth - 1] = 1;
	if (key) {
		jw_string(w->f, key);
		fputc(':', w->f);
	}
}

static void open_one(struct jsonw *w, const char *key, char open, char close)
{
	if (w->depth >= JSONW_DEPTH)
		abort();	/* a printer's mistake, not the input's */
	if (w->depth)
		member(w, key);
	fputc(open, w->f);
	w->close[w->depth] = close;
	w->more[w->depth] = 0;
	w->depth++;
}

void jw_line(struct jsonw *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	open_one(w, NULL, '{', '}');
}

void jw_close(struct jsonw *w)
{
	if (w->depth > 0)
		fputc(w->close[--w->depth], w->f);
}

void jw_end_line(struct jsonw *w)
{
	while (w->depth > 0)
		jw_close(w);
	fputc('\n', w->f);
}

void jw_object(struct jsonw *w, const char *key)
{
	open_one(w, key, '{', '}');
}

void jw_array(struct jsonw *w, const char *key)
{
	open_one(w, key, '[', ']');
}

void jw_u64(struct jsonw *w, const char *key, uint64_t v)
{
	member(w, key);
	fprintf(w->f, "%llu", (unsigned long long)v);
}

void jw_i64(struct jsonw *w, const char *key, int64_t v)
{
	member(w, key);
	fprintf(w->f, "%lld", (long long)v);
}

void jw_fixed(struct jsonw *w, const char *key, double v)
{
	member(w, key);
	fprintf(w->f, "%.3f", v);
}

void jw_time(struct jsonw *w, const char *key, const struct timespec *t)
{
	member(w, key);
	fprintf(w->f, "%lld.%03ld", (long long)t->tv_sec,
		t->tv_nsec / 1000000);
}

void jw_str(struct jsonw *w, const char *key, const char *s)
{
	member(w, key);
	jw_string(w->f, s);
}

void jw_bool(struct jsonw *w, const char *key, int v)
{
	member(w, key);
	fputs(v ? "true" : "false", w->f);
}

void jw_null(struct jsonw *w, const char *key)
{
	member(w, key);
	fputs("null", w->f);
}
