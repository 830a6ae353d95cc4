/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/cols.h - one definition per column (issue 62): the table of
 * view/cols.c gives each column of a report its name (-o, -s, the CSV
 * header), header, width, value, JSON key and help line, as procps
 * top's field table does.  The -m and -A tables (process and thread
 * lines, and the state columns of group lines), -o, --csv, the sort
 * keys of every view and the "solaris"/"tsa" objects of --json read it.
 */
#ifndef VIEW_COLS_H
#define VIEW_COLS_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "group.h"
#include "show.h"
#include "all.h"
#include "calls.h"

/* The views a column belongs to. */
#define COL_SOL		1u
#define COL_TSA		2u
#define COL_CALLS	4u
#define COL_LINES	(COL_SOL | COL_TSA)
#define COL_ALL		(COL_LINES | COL_CALLS)

/* Its flags. */
#define COL_SORT	1u	/* a -s key */
#define COL_SHOW	2u	/* printable in a -m or -A line (-o) */
#define COL_STATE	4u	/* a state column: in group lines too */
#define COL_GROUP	16u	/* in --csv --group's lines */

enum col_kind {
	CK_PID, CK_USER, CK_LWP, CK_COMM, CK_PROCESS, CK_ELAPSED, CK_TS,
	CK_GBY, CK_GNAME, CK_NPROC,
	CK_SOL, CK_TSA, CK_CNT, CK_CPU, CK_TIME, CK_WAIT,
	/* the system-call view's (-y) */
	CK_CPCT, CK_CCALLS, CK_CAVG, CK_CMAX, CK_CSPLIT, CK_CNAME,
};

struct col {
	const char *name;	/* -o, -s, --csv: lower case */
	const char *name_proc;	/* without -L, when it differs */
	const char *hdr;	/* the table's header */
	const char *hdr_proc;	/* without -L, when it differs */
	int width;		/* in the table; < 0 left-aligned */
	unsigned views;		/* COL_SOL, COL_TSA, COL_CALLS */
	unsigned flags;		/* COL_SORT, COL_SHOW, COL_STATE */
	enum col_kind kind;
	int arg;		/* the fold's column, the counter */
	const char *json;	/* its key in --json (docs/json.md) */
	const char *unit;	/* in --csv: "ns", "count", "" */
	const char *help;	/* -o help, tsa-prstat(8) */
};

extern const struct col tsa_cols_table[];
extern const int tsa_ncols;

#define COLS_MAX	32

/* A report's columns: indices into tsa_cols_table. */
struct colset {
	int c[COLS_MAX];
	int n;
};

/* @v's column @name (or its _proc name), or -1. */
int col_lookup(const char *name, enum view v, unsigned need);

/* What col_parse() is parsing for. */
#define COLP_CSV	1u	/* --csv: its own columns (ts) too */
#define COLP_GROUP	2u	/* --group: group lines' columns only */

/*
 * @list ("pid,comm,usr", comma or space separated) for view @v into
 * @set, for @ctx (COLP_*).  Returns 0, or -1 with a one-line reason in
 * @why.
 */
int col_parse(const char *list, enum view v, unsigned ctx,
	      struct colset *set, char *why, size_t whylen);

/* The columns a report of @o shows: -o's, or its view's defaults. */
void col_set_of(const struct show *o, struct colset *set);

/* The view's default list for @ctx (COLP_*), as -o would spell it. */
const char *col_default(enum view v, unsigned ctx);

const char *col_name(const struct col *c, int lwps);

/* A line's value in its base unit: ns, a count, an id. */
uint64_t col_value(const struct col *c, const struct tsa_delta *d);

/* The header of @set, each column padded to its width, joined by ' '. */
void col_header(char *out, size_t len, const struct colset *set, int lwps);

/* One line of @set; the last column, left-aligned, is not padded. */
void col_line(FILE *f, const struct colset *set, const struct show *o,
	      const struct tsa_delta *d, int trunc_names);

/* A line of the system-call view (-y). */
void col_call_line(FILE *f, const struct colset *set,
		   const struct tsa_call_line *l, int trunc_names);
void col_csv_call(FILE *f, const struct colset *set,
		  const struct timespec *wall, const struct tsa_call_line *l);

/* Only the cells, each followed by a space: a group line's states. */
void col_line_cols(FILE *f, const struct colset *set,
		   const struct tsa_delta *d);

/* --csv: the header line, and one line per row in base units. */
void col_csv_header(FILE *f, const struct colset *set, int lwps);
void col_csv_line(FILE *f, const struct colset *set,
		  const struct timespec *wall, const struct tsa_delta *d);
/* A group's line (--group @by): @g is the group, @d its numbers. */
void col_csv_group(FILE *f, const struct colset *set,
		   const struct timespec *wall, enum group_by by,
		   const struct tsa_group *g, const struct tsa_delta *d);

/* -o help: every column, its views, unit and help line. */
void col_help(FILE *f);

#endif /* VIEW_COLS_H */
