/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store/reccalls.h - the system-call rows in a recording: /proc/tsa/calls
 * as the recorder keeps it (every row in a key block, then what changed)
 * and as its replay rebuilds it, for -y.  See store/recfile.c for the
 * blocks.
 */
#ifndef STORE_RECCALLS_H
#define STORE_RECCALLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "calls.h"

#define CT_MAXCOL	48	/* columns of a row the recorder keeps */
#define CT_MAXHDR	8

/* A row: its kind and name, and its other columns as numbers. */
struct ct_row {
	char *kind, *name;
	uint64_t v[CT_MAXCOL];
	size_t order;		/* its place in the file, for the rebuild */
	int seen;		/* the replay: named by this block */
	int age_col, age_max;	/* ages in a call: that column, and max */
};

/*
 * A calls file cut up: its header lines (but "now"), the columns, the
 * rows and an index of them by tid, pid, kind and name.  The recorder's
 * point into its read buffer; the replay's are its own (owned).
 */
struct ct_file {
	char *buf;
	size_t len, cap;
	char *hdr[CT_MAXHDR];
	int nhdr, owned;
	uint64_t now;
	int ncol, kind_col, name_col;	/* of the fields line */
	int tid_v, pid_v, el_v, at_v;	/* those columns' places in v[] */
	int ns_v, max_v, st_v, nst;	/* ns, max, the first state's; states */
	struct ct_row *rows;
	size_t nrows, rows_cap;
	uint32_t *slot;
	size_t scap;
};

/*
 * Read @path into @f: TSA_OK, TSA_ENOENT (no such file: the module has
 * no tables), or another tsa_err with a reason in @msg.
 */
int ct_read(struct ct_file *f, const char *path, char *msg, size_t msglen);

/*
 * The block's lines for @cur: every row ("ch" header lines, "cr" rows)
 * when @prev is NULL or its columns differ, else "ch now", "cr" for new
 * rows, "c=" differences for changed ones and "c-" for rows gone; a row
 * whose only change is its thread's elapsed and at, both grown by the
 * two reads' time apart, is left out, and so is one that ages in a
 * call as it did in the block before ("c+" says how once: its ns and
 * one state's grown by that time too, and its longest or not; "c."
 * that it stopped).
 */
void ct_block(FILE *m, const struct ct_file *prev, const struct ct_file *cur);

/* The replay: begin a block (@key: a key block), take each of its c*
 * lines, end it. */
void ct_begin(struct ct_file *st, int key);
int ct_line(struct ct_file *st, char *line);
void ct_end(struct ct_file *st);

/*
 * The rebuilt file as a snapshot (its text made and parsed): TSA_OK,
 * TSA_ENOENT when the recording has none, or the parser's tsa_err.
 */
int ct_snapshot(const struct ct_file *st, struct tsa_calls_snap *s,
		char *msg, size_t msglen);

void ct_free(struct ct_file *f);

#endif /* STORE_RECCALLS_H */
