// SPDX-License-Identifier: GPL-2.0
/*
 * prtable.c - what a report shows.
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
 * a slash and the thread id (-L) or the number of threads.
 */
#include <string.h>

#include "prtable.h"
#include "prutil.h"

const char *const sol_col_name[SOL_NCOLS] = {
	"USR", "SYS", "TRP", "TFL", "DFL", "LCK", "SLP", "LAT",
};

const char *const tsa_col_name[TSA_NCOLS] = {
	"EXEC", "RUN", "APG", "SLP", "LCK", "IDL", "STP",
};

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

double pct_of(uint64_t part, uint64_t whole)
{
	return whole ? (double)part * 100.0 / (double)whole : 0.0;
}

const char *table_header(const struct options *o)
{
	if (o->view == VIEW_TSA)
		return o->lwps ? HDR_TSA_LWP : HDR_TSA_PROC;
	return o->lwps ? HDR_SOL_LWP : HDR_SOL_PROC;
}

static void print_line(FILE *f, const struct options *o,
		       const struct tsa_delta *d, int trunc_names)
{
	char user[64], comm[64], c[SOL_NCOLS + TSA_NCOLS][4], n[4][4];
	uint64_t ns[SOL_NCOLS];	/* the wider of the two views */
	int i;

	format_user(user, sizeof(user), user_name((uid_t)d->uid),
		    trunc_names);
	strip_comm(comm, sizeof(comm), d->comm);

	if (o->view == VIEW_TSA) {
		tsa_cols(d, ns);
		for (i = 0; i < TSA_NCOLS; i++)
			format_pct(c[i], (float)pct_of(ns[i], d->elapsed));
		fprintf(f, "%6d %-8s %4.4s %4.4s %4.4s %4.4s %4.4s %4.4s "
			"%4.4s %-.12s/%d\n", (int)d->pid, user,
			c[0], c[1], c[2], c[3], c[4], c[5], c[6],
			comm, (int)d->id);
		return;
	}
	sol_cols(d, ns);
	for (i = 0; i < SOL_NCOLS; i++)
		format_pct(c[i], (float)pct_of(ns[i], d->elapsed));
	format_num(n[0], d->shown[C_VCX]);
	format_num(n[1], d->shown[C_ICX]);
	format_num(n[2], d->shown[C_SCL]);
	format_num(n[3], d->shown[C_SIG]);
	fprintf(f, "%6d %-8s %3.3s %3.3s %3.3s %3.3s %3.3s %3.3s %3.3s %3.3s "
		"%3.3s %3.3s %3.3s %3.3s %-.12s/%d\n", (int)d->pid, user,
		c[SOL_USR], c[SOL_SYS], c[SOL_TRP], c[SOL_TFL], c[SOL_DFL],
		c[SOL_LCK], c[SOL_SLP], c[SOL_LAT],
		n[0], n[1], n[2], n[3], comm, (int)d->id);
}

void table_print(FILE *f, const struct options *o,
		 const struct tsa_delta *d, size_t n,
		 const struct tsa_totals *tot, const double loadavg[3],
		 int trunc_names)
{
	size_t i;

	fputs(table_header(o), f);
	fputc('\n', f);
	for (i = 0; i < n; i++)
		print_line(f, o, &d[i], trunc_names);
	fprintf(f, "Total: %lu processes, %lu lwps, load averages: "
		"%3.2f, %3.2f, %3.2f\n", tot->nprocs, tot->nlwps,
		loadavg[0], loadavg[1], loadavg[2]);
}
