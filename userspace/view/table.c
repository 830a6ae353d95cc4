// SPDX-License-Identifier: GPL-2.0
/*
 * view/table.c - what a report shows.
 *
 * The kernel keeps fourteen states; each view folds them into fewer
 * columns that always add up to the line's elapsed time (less KFL and
 * STP in the Solaris view, which, as on Solaris, are not shown):
 *
 *   Solaris view (-m)          TSA view (-A, --tsa)
 *   USR = USR                  EXEC = USR + SYS + TRP
 *   SYS = SYS                  RUN  = LAT
 *   TRP = TRP                  APG  = APG
 *   TFL = TFL                  SLP  = TFL + DFL + KFL + IOW + SLP
 *   DFL = DFL + APG            LCK  = LCK + KLK
 *   LCK = LCK                  IDL  = IDL
 *   SLP = SLP + KLK + IOW + IDL  STP = STP
 *   LAT = LAT
 *
 * Line layouts follow illumos prstat's USAGE_LINE: "%6d %-8s" then
 * three-character fields, then the process name cut to 12 characters,
 * a slash and the thread id (-L) or the number of threads; but the
 * counts (VCX ICX SCL SIG) have four characters, not three: no count
 * fits three without a fraction of a unit from 100,000 on (prstat's
 * ".1M", and its ".43" for 4,365,500), and "4.4M" needs four.  The
 * header is 82 characters wide, not 78.
 *
 * The system-call view (-y, --syscalls) has one line per call of a
 * thread or process: its time as a percentage of the line's elapsed
 * time, calls, average, longest, and where the call's time went, as
 * percentages of it, in nine columns that add up to 100:
 *
 *   SYS = SYS + TRP (on CPU)        KLK = KLK
 *   LAT = LAT                       IOW = IOW
 *   FLT = TFL + DFL + KFL           IDL = IDL
 *   APG = APG                       SLP = SLP + STP, and states this
 *   LCK = LCK                             reader does not know
 *
 * No USERNAME column: the lines are wide enough without it.
 */
#include <string.h>

#include "cols.h"
#include "table.h"
#include "util.h"

void sol_cols(const struct tsa_delta *d, uint64_t ns[SOL_NCOLS])
{
	const uint64_t *s = d->ns;

	ns[SOL_USR] = s[S_USR];
	ns[SOL_SYS] = s[S_SYS];
	ns[SOL_TRP] = s[S_TRP];
	ns[SOL_TFL] = s[S_TFL];
	ns[SOL_DFL] = s[S_DFL] + s[S_APG];
	ns[SOL_LCK] = s[S_LCK];
	ns[SOL_SLP] = s[S_SLP] + s[S_KLK] + s[S_IOW] + s[S_IDL];
	ns[SOL_LAT] = s[S_LAT];
}

void tsa_cols(const struct tsa_delta *d, uint64_t ns[TSA_NCOLS])
{
	const uint64_t *s = d->ns;

	ns[TSA_EXEC] = s[S_USR] + s[S_SYS] + s[S_TRP];
	ns[TSA_RUN] = s[S_LAT];
	ns[TSA_APG] = s[S_APG];
	ns[TSA_SLP] = s[S_TFL] + s[S_DFL] + s[S_KFL] + s[S_IOW] + s[S_SLP];
	ns[TSA_LCK] = s[S_LCK] + s[S_KLK];
	ns[TSA_IDL] = s[S_IDL];
	ns[TSA_STP] = s[S_STP];
}

void call_cols(const struct tsa_cvec *v, uint64_t ns[CALL_NCOLS])
{
	const uint64_t *s = v->st;

	ns[CALL_SYS] = s[S_SYS] + s[S_TRP];
	ns[CALL_LAT] = s[S_LAT];
	ns[CALL_FLT] = s[S_TFL] + s[S_DFL] + s[S_KFL];
	ns[CALL_APG] = s[S_APG];
	ns[CALL_LCK] = s[S_LCK];
	ns[CALL_KLK] = s[S_KLK];
	ns[CALL_IOW] = s[S_IOW];
	ns[CALL_IDL] = s[S_IDL];
	ns[CALL_SLP] = s[S_SLP] + s[S_STP] + s[S_USR] + v->rest;
}

double pct_of(uint64_t part, uint64_t whole)
{
	return whole ? (double)part * 100.0 / (double)whole : 0.0;
}

const char *table_header(const struct show *o)
{
	static char hdr[1024];
	struct colset set;

	col_set_of(o, &set);
	col_header(hdr, sizeof(hdr), &set, o->lwps);
	return hdr;
}

/*
 * The view's state columns (view/cols.c), each followed by a space:
 * group lines differ from a process's in what comes before and after.
 */
static void state_cols(const struct show *o, struct colset *st)
{
	struct colset all;
	struct show def = *o;
	int i;

	def.cols[0] = '\0';
	def.csv = 0;
	def.group_by = -1;	/* the view's columns, of which the states */
	col_set_of(&def, &all);
	st->n = 0;
	for (i = 0; i < all.n; i++)
		if (tsa_cols_table[all.c[i]].flags & COL_STATE)
			st->c[st->n++] = all.c[i];
}

static void print_cols(FILE *f, const struct show *o,
		       const struct tsa_delta *d)
{
	struct colset st;

	state_cols(o, &st);
	col_line_cols(f, &st, d);
}

static void print_total(FILE *f, const struct tsa_totals *tot,
			const double loadavg[3])
{
	fprintf(f, "Total: %lu processes, %lu lwps, load averages: "
		"%3.2f, %3.2f, %3.2f", tot->nprocs, tot->nlwps,
		loadavg[0], loadavg[1], loadavg[2]);
	/* In the line, not below it: scripts read the lines they know. */
	if (tot->calib)
		fprintf(f, "; calibration %s: SYS misses the kernel's entry "
			"and exit paths (tsa-prstat --calibrate)", tot->calib);
	fputc('\n', f);
}

void table_print(FILE *f, const struct show *o,
		 const struct tsa_delta *d, size_t n,
		 const struct tsa_totals *tot, const double loadavg[3],
		 int trunc_names)
{
	struct colset set;
	size_t i;

	col_set_of(o, &set);
	fputs(table_header(o), f);
	fputc('\n', f);
	for (i = 0; i < n; i++)
		col_line(f, &set, o, &d[i], trunc_names);
	print_total(f, tot, loadavg);
}

const char *group_title(enum group_by by)
{
	static const char *const title[GROUP_NBY] = {
		"PID COMM", "CGROUP", "USERNAME", "THREADNAME",
	};

	return title[by];
}

/*
 * A group's line: as a process's, with the processes and live threads
 * it has instead of PID and USERNAME, and its whole name last (a cgroup
 * path can be long; it is the last column so nothing is cut).  With
 * @with_time (a compare), TIME: the threads' time over the interval.
 */
static void print_group_line(FILE *f, const struct show *o,
			     enum group_by by, const struct tsa_group *g,
			     const struct tsa_delta *d, int with_time)
{
	char name[4096], comm[64], t[24];

	strip_comm(name, sizeof(name), g->key);
	if (by == GROUP_PID) {	/* "PID comm" */
		strip_comm(comm, sizeof(comm), g->comm ? g->comm : "");
		snprintf(name + strlen(name), sizeof(name) - strlen(name),
			 " %s", comm);
	}
	fprintf(f, "%6lu %5lu ", g->nprocs, g->nlwps);
	if (with_time) {
		format_dur(t, d->elapsed);
		fprintf(f, "%6s ", t);
	}
	print_cols(f, o, d);
	fprintf(f, "%s\n", name);
}

void group_lines_print(FILE *f, const struct show *o, enum group_by by,
		       const struct group_report *r, const struct tsa_delta *d,
		       size_t n, int with_time)
{
	struct colset st;
	char hdr[512];
	size_t i;

	state_cols(o, &st);
	col_header(hdr, sizeof(hdr), &st, 0);
	fprintf(f, " NPROC  NLWP%s %s %s\n", with_time ? "   TIME" : "",
		hdr, group_title(by));
	for (i = 0; i < n; i++)
		print_group_line(f, o, by, &r->t.g[d[i].id], &d[i],
				 with_time);
}

void group_table_print(FILE *f, const struct show *o, enum group_by by,
		       const struct group_report *r, const struct tsa_delta *d,
		       size_t n, const struct tsa_totals *tot,
		       const double loadavg[3])
{
	group_lines_print(f, o, by, r, d, n, 0);
	print_total(f, tot, loadavg);
}

void calls_table_print(FILE *f, const struct show *o,
		       const struct tsa_call_line *l, size_t n,
		       const struct tsa_totals *tot, const double loadavg[3],
		       int trunc_names)
{
	struct colset set;
	size_t i;

	col_set_of(o, &set);
	fputs(table_header(o), f);
	fputc('\n', f);
	for (i = 0; i < n; i++)
		col_call_line(f, &set, &l[i], trunc_names);
	print_total(f, tot, loadavg);
}
