/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store/rectable.h - the module's tables in a recording: /proc/tsa/calls
 * (for -y), /proc/tsa/wakers (for -w) and /proc/tsa/hist's LAT rows (the
 * pictures' heat map, -H) as the recorder keeps them
 * (every row in a key block, then what changed) and as its replay
 * rebuilds them.  See store/rectable.c for the lines.
 */
#ifndef STORE_RECTABLE_H
#define STORE_RECTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "index.h"
#include <stdio.h>

#define CT_MAXCOL	48	/* columns of a row the recorder keeps */
#define CT_MAXHDR	8
#define CT_MAXSTR	3	/* text columns */
#define CT_MAXKEY	3	/* numeric columns that key a row */

/*
 * A table: its file's first line, the letter its lines begin with in a
 * block, its text columns and the numeric columns beside tid and pid
 * that tell its rows apart (space separated), and whether its "*_ns"
 * columns are states a row ages in.
 */
struct ct_kind {
	const char *magic;
	char tag;
	const char *strs, *keys;
	int states;
	/* NULL, or the only rows kept: those whose first text column is it */
	const char *only;
};

extern const struct ct_kind ct_calls;	/* tsa-calls 1: lines "c..." */
extern const struct ct_kind ct_wakers;	/* tsa-wakers 1: lines "w..." */
/* tsa-hist 1 or 2, its LAT rows alone: lines "h..." (tsa-record 2) */
extern const struct ct_kind ct_hist;

/* A row: its text columns, and its other columns as numbers. */
struct ct_row {
	char *s[CT_MAXSTR];
	uint64_t v[CT_MAXCOL];
	size_t order;		/* its place in the file, for the rebuild */
	int seen;		/* the replay: named by this block */
	int aging;		/* it ages in a stay: ns (and...) grow too */
	int age_col, age_max;	/* ...that state column (-1: none), max */
};

/*
 * A table's file cut up: its header lines (but "now"), the columns, the
 * rows and an index of them by their key.  The recorder's point into
 * its read buffer; the replay's are its own (owned).
 */
struct ct_file {
	const struct ct_kind *k;
	char *buf;
	size_t len, cap;
	char *hdr[CT_MAXHDR];
	int nhdr, owned;
	uint64_t now, prev_now;	/* the replay: this block's, the last's */
	int headed;		/* the replay: this block began it anew */
	int ncol, nstr, str_col[CT_MAXSTR];	/* of the fields line */
	int nkey, key_v[CT_MAXKEY];	/* tid, pid, then the kind's keys */
	int el_v, at_v;			/* those columns' places in v[] */
	int ns_v, max_v, st_v, nst;	/* ns, max, the first state's; states */
	struct ct_row *rows;
	size_t nrows, rows_cap;
	struct tsa_index idx;		/* rows by key */
};

/*
 * Read @path, a table of kind @k, into @f: TSA_OK, TSA_ENOENT (no such
 * file: the module keeps no such table), or another tsa_err with a
 * reason in @msg.
 */
int ct_read(struct ct_file *f, const struct ct_kind *k, const char *path,
	    char *msg, size_t msglen);

/*
 * The block's lines for @cur (X its kind's letter): every row ("Xh"
 * header lines, "Xr" rows) when @prev is NULL or its columns differ,
 * else "Xh now", "Xr" for new rows, "X=" differences for changed ones
 * and "X-" for rows gone; a row whose only change is its thread's
 * elapsed and at, both grown by the two reads' time apart, is left out,
 * and so is one that ages in a stay as it did in the block before ("X+"
 * says how once: its ns, and one state's when the kind has states,
 * grown by that time too, and its longest or not; "X." that it
 * stopped).
 */
void ct_block(FILE *m, const struct ct_file *prev, const struct ct_file *cur);

/* The replay: begin a block (@key: a key block), take each of its lines
 * of @st's kind, end it. */
void ct_begin(struct ct_file *st, const struct ct_kind *k, int key);
int ct_line(struct ct_file *st, char *line);
void ct_end(struct ct_file *st);

/*
 * The rebuilt file's text into @buf (@len bytes, @cap allocated; NUL
 * ended), for the kind's parser: TSA_OK, or TSA_ENOENT when the
 * recording has none.
 */
int ct_text(const struct ct_file *st, char **buf, size_t *len, size_t *cap);

void ct_free(struct ct_file *f);

#endif /* STORE_RECTABLE_H */
