/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lib/jsonw.h - a small streaming JSON writer, after bpftool's
 * json_writer: it places the commas and closes what it opened, and
 * escapes strings, so a printer says only what comes next.  tsa-prstat
 * writes JSON lines: jw_line() opens a line's object, jw_end_line()
 * closes everything still open and ends the line.  Nothing is built in
 * memory (10,000 lines an interval go straight to the stream).
 *
 * Every value call takes the member's key, or NULL inside an array.
 * Numbers are written as the callers' formats always were: integers in
 * full, percentages and seconds (jw_fixed) with three decimals, wall
 * clock times (jw_time) as seconds with milliseconds.
 */
#ifndef LIB_JSONW_H
#define LIB_JSONW_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define JSONW_DEPTH	8

struct jsonw {
	FILE *f;
	int depth;			/* open objects and arrays */
	char close[JSONW_DEPTH];	/* '}' or ']' for each */
	char more[JSONW_DEPTH];		/* each has a member: a comma next */
};

/* @s as a JSON string: quotes, escapes, invalid UTF-8 as U+FFFD. */
void jw_string(FILE *f, const char *s);

void jw_line(struct jsonw *w, FILE *f);
void jw_end_line(struct jsonw *w);

void jw_object(struct jsonw *w, const char *key);
void jw_array(struct jsonw *w, const char *key);
void jw_close(struct jsonw *w);		/* the last object or array */

void jw_u64(struct jsonw *w, const char *key, uint64_t v);
void jw_i64(struct jsonw *w, const char *key, int64_t v);
void jw_fixed(struct jsonw *w, const char *key, double v); /* %.3f */
void jw_time(struct jsonw *w, const char *key, const struct timespec *t);
void jw_str(struct jsonw *w, const char *key, const char *s);
void jw_bool(struct jsonw *w, const char *key, int v);
void jw_null(struct jsonw *w, const char *key);

#endif /* LIB_JSONW_H */
