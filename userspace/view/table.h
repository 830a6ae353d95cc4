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

extern const char *const sol_col_name[SOL_NCOLS];
extern const char *const tsa_col_name[TSA_NCOLS];
extern const char *const call_col_name[CALL_NCOLS];

#define HDR_SOL_LWP \
"   PID USERNAME USR SYS TRP TFL DFL LCK SLP LAT  VCX  ICX  SCL  SIG PROCESS/LWPID "
#define HDR_SOL_PROC \
"   PID USERNAME USR SYS TRP TFL DFL LCK SLP LAT  VCX  ICX  SCL  SIG PROCESS/NLWP  "
#define HDR_TSA_LWP \
"   PID USERNAME EXEC  RUN  APG  SLP  LCK  IDL  STP PROCESS/LWPID "
#define HDR_TSA_PROC \
"   PID USERNAME EXEC  RUN  APG  SLP  LCK  IDL  STP PROCESS/NLWP  "

#define HDR_CALLS_LWP \
"   PID SYSCALL          PCT CALLS    AVG    MAX SYS LAT FLT APG LCK KLK IOW " \
"IDL SLP PROCESS/LWPID "
#define HDR_CALLS_PROC \
"   PID SYSCALL          PCT CALLS    AVG    MAX SYS LAT FLT APG LCK KLK IOW " \
"IDL SLP PROCESS/NLWP  "

/* Group reports (--group): the name column's title follows. */
#define HDR_SOL_GROUP \
" NPROC  NLWP USR SYS TRP TFL DFL LCK SLP LAT  VCX  ICX  SCL  SIG "
#define HDR_TSA_GROUP \
" NPROC  NLWP EXEC  RUN  APG  SLP  LCK  IDL  STP "

/* Fold a line's interval ns into the columns of each view. */
void sol_cols(const struct tsa_delta *d, uint64_t ns[SOL_NCOLS]);
void tsa_cols(const struct tsa_delta *d, uint64_t ns[TSA_NCOLS]);
void call_cols(const struct tsa_cvec *v, uint64_t ns[CALL_NCOLS]);

/* @part of @whole as a percentage; 0 when @whole is 0. */
double pct_of(uint64_t part, uint64_t whole);

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
