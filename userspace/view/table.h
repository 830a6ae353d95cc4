/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/table.h - what a report shows: the two views' columns (how the
 * kernel's fourteen states fold into them), headers and lines.
 */
#ifndef VIEW_TABLE_H
#define VIEW_TABLE_H

#include <stdio.h>

#include "group.h"
#include "show.h"
#include "all.h"
#include "calls.h"

/* The Solaris view (-m): LMS_* states as prstat -m shows them. */
enum sol_col {
	SOL_USR, SOL_SYS, SOL_TRP, SOL_TFL, SOL_DFL, SOL_LCK, SOL_SLP, SOL_LAT,
	SOL_NCOLS
};

/* The TSA view (-A, --tsa): the TSA Method's states. */
enum tsa_col {
	TSA_EXEC, TSA_RUN, TSA_APG, TSA_SLP, TSA_LCK, TSA_IDL, TSA_STP,
	TSA_NCOLS
};

/* The system-call view (-y, --syscalls): where a call's time went. */
enum call_col {
	CALL_SYS, CALL_LAT, CALL_FLT, CALL_APG, CALL_LCK, CALL_KLK, CALL_IOW,
	CALL_IDL, CALL_SLP,
	CALL_NCOLS
};

/*
 * Headers, widths and names of the columns are view/cols.c's; a line's
 * interval ns fold into each view's columns here.
 */
/* Fold a line's interval ns into the columns of each view. */
void sol_cols(const struct tsa_delta *d, uint64_t ns[SOL_NCOLS]);
void tsa_cols(const struct tsa_delta *d, uint64_t ns[TSA_NCOLS]);
void call_cols(const struct tsa_cvec *v, uint64_t ns[CALL_NCOLS]);

/* @part of @whole as a percentage; 0 when @whole is 0. */
double pct_of(uint64_t part, uint64_t whole);

/* The header of @o's table (-m, -A, -y; -o's columns), no line end. */
const char *table_header(const struct show *o);

/* One report: header, @n lines, the Total line. */
void table_print(FILE *f, const struct show *o,
		 const struct tsa_delta *d, size_t n,
		 const struct tsa_totals *tot, const double loadavg[3],
		 int trunc_names);

/* The name column's title of a group report: CGROUP, USERNAME, ... */
const char *group_title(enum group_by by);

/* A group report's header and @n lines; @with_time adds TIME. */
void group_lines_print(FILE *f, const struct show *o, enum group_by by,
		       const struct group_report *r, const struct tsa_delta *d,
		       size_t n, int with_time);

/* One report of groups: header, @n lines of @r, the Total line. */
void group_table_print(FILE *f, const struct show *o, enum group_by by,
		       const struct group_report *r, const struct tsa_delta *d,
		       size_t n, const struct tsa_totals *tot,
		       const double loadavg[3]);

/* One report of the system-call view: header, @n lines, Total line. */
void calls_table_print(FILE *f, const struct show *o,
		       const struct tsa_call_line *l, size_t n,
		       const struct tsa_totals *tot, const double loadavg[3],
		       int trunc_names);

#endif /* VIEW_TABLE_H */
