// SPDX-License-Identifier: GPL-2.0
/*
 * view/cols.c - one definition per column (issue 62).
 *
 * Each row of tsa_cols_table[] is a column as every part of tsa-prstat sees it:
 * its name (what -o, -s and --csv's header say), the table's header and
 * width, what its value is (kind and arg: a fold of view/table.c, a
 * counter, an id), its key in --json, its unit in --csv and its help
 * line (-o help).  Adding a column to the -m or -A table is one row;
 * a default table is a list of names (col_default()).
 *
 * The rows that are sort keys come first, in the order the s and S
 * keys step through them (and the old keys[] of view/sort.c had).  A
 * name may have a row per view: slp is SLP+KLK+IOW+IDL in -m and
 * TFL+DFL+KFL+IOW+SLP in -A, as the two tables' SLP columns are.
 *
 * Values are in base units: ns for the state columns (the table
 * shows them as a percentage of the line's elapsed time, --csv as ns),
 * counts for the counters (the table shows them scaled to the interval
 * on a first report and in 3 characters, --csv the raw increment).
 */
#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "cols.h"
#include "table.h"
#include "util.h"

/* Not in a table line: --csv only. */
#define COL_CSV		8u
/* Only in group lines. */
#define COL_GONLY	32u

#define SORT_SOL(n, h, a, hl) \
	{ n, NULL, h, NULL, 3, COL_SOL, \
	  COL_SORT | COL_SHOW | COL_STATE | COL_GROUP, CK_SOL, a, h, "ns", hl }
#define SORT_TSA(n, h, a, hl) \
	{ n, NULL, h, NULL, 4, COL_TSA, \
	  COL_SORT | COL_SHOW | COL_STATE | COL_GROUP, CK_TSA, a, h, "ns", hl }
#define SORT_CNT(n, h, a, hl) \
	{ n, NULL, h, NULL, 4, COL_LINES, \
	  COL_SORT | COL_SHOW | COL_STATE | COL_GROUP, CK_CNT, a, h, "count", \
	  hl }
#define SORT_CALL(n, h, w, k, a, j, u, hl) \
	{ n, NULL, h, NULL, w, COL_CALLS, COL_SORT | COL_SHOW, k, a, j, u, hl }
#define SORT_SPLIT(n, h, a, hl) \
	SORT_CALL(n, h, 3, CK_CSPLIT, a, h, "ns", hl)

const struct col tsa_cols_table[] = {
	{ "cpu", NULL, "CPU", NULL, 4, COL_LINES,
	  COL_SORT | COL_SHOW | COL_GROUP,
	  CK_CPU, 0, NULL, "ns",
	  "USR+SYS+TRP over the interval (on CPU), % of the line's time" },
	{ "time", NULL, "TIME", NULL, 6, COL_LINES,
	  COL_SORT | COL_SHOW | COL_GROUP,
	  CK_TIME, 0, NULL, "ns", "lifetime USR+SYS+TRP" },
	SORT_SOL("usr", "USR", SOL_USR, "user mode"),
	SORT_SOL("sys", "SYS", SOL_SYS, "system calls and the kernel"),
	SORT_SOL("trp", "TRP", SOL_TRP, "traps other than page faults"),
	SORT_SOL("tfl", "TFL", SOL_TFL, "text page faults"),
	SORT_SOL("dfl", "DFL", SOL_DFL, "data page faults (and APG)"),
	SORT_SOL("lck", "LCK", SOL_LCK, "waiting on user locks (futex)"),
	SORT_SOL("slp", "SLP", SOL_SLP, "sleeping (SLP+KLK+IOW+IDL)"),
	SORT_SOL("lat", "LAT", SOL_LAT, "waiting for a CPU"),
	SORT_CNT("vcx", "VCX", C_VCX, "voluntary context switches"),
	SORT_CNT("icx", "ICX", C_ICX, "involuntary context switches"),
	SORT_CNT("scl", "SCL", C_SCL, "system calls"),
	SORT_CNT("sig", "SIG", C_SIG, "signals received"),
	SORT_TSA("exec", "EXEC", TSA_EXEC, "on CPU (USR+SYS+TRP)"),
	SORT_TSA("run", "RUN", TSA_RUN, "runnable, waiting for a CPU (LAT)"),
	SORT_TSA("apg", "APG", TSA_APG, "anonymous paging (swap-in)"),
	SORT_TSA("slp", "SLP", TSA_SLP, "sleeping (TFL+DFL+KFL+IOW+SLP)"),
	SORT_TSA("lck", "LCK", TSA_LCK, "lock waits, user and kernel"),
	SORT_TSA("idl", "IDL", TSA_IDL, "idle waits (IDL)"),
	SORT_TSA("stp", "STP", TSA_STP, "stopped (job control, ptrace)"),
	{ "wait", NULL, "WAIT", NULL, 4, COL_TSA,
	  COL_SORT | COL_SHOW | COL_GROUP,
	  CK_WAIT, 0, NULL, "ns",
	  "RUN+LCK+APG: wanting to run, held back" },
	SORT_CALL("pct", "PCT", 3, CK_CPCT, 0, "pct", "ns",
		  "the call's time, % of the line's (--csv: its ns)"),
	SORT_CALL("calls", "CALLS", 5, CK_CCALLS, 0, "calls", "count",
		  "calls begun"),
	SORT_CALL("avg", "AVG", 6, CK_CAVG, 0, "avg_ns", "ns",
		  "time per call"),
	SORT_CALL("max", "MAX", 6, CK_CMAX, 0, "max_ns", "ns",
		  "the longest call"),
	SORT_SPLIT("sys", "SYS", CALL_SYS, "on CPU in the call (SYS+TRP)"),
	SORT_SPLIT("lat", "LAT", CALL_LAT, "waiting for a CPU in it"),
	SORT_SPLIT("flt", "FLT", CALL_FLT, "page faults in it"),
	SORT_SPLIT("apg", "APG", CALL_APG, "anonymous paging in it"),
	SORT_SPLIT("lck", "LCK", CALL_LCK, "user lock waits in it"),
	SORT_SPLIT("klk", "KLK", CALL_KLK, "kernel lock waits in it"),
	SORT_SPLIT("iow", "IOW", CALL_IOW, "I/O waits in it"),
	SORT_SPLIT("idl", "IDL", CALL_IDL, "idle waits in it"),
	SORT_SPLIT("slp", "SLP", CALL_SLP, "other sleeps in it"),
	{ "call", NULL, "SYSCALL", NULL, -16, COL_CALLS, COL_SHOW, CK_CNAME,
	  0, "call", "", "the system call (other: those without a row)" },
	/* Who the line is: not sort keys (ties go by pid, then tid). */
	{ "pid", NULL, "PID", NULL, 6, COL_ALL, COL_SHOW, CK_PID, 0,
	  "pid", "", "process id" },
	{ "user", NULL, "USERNAME", NULL, -8, COL_ALL, COL_SHOW, CK_USER,
	  0, "user", "", "user name (the real uid's)" },
	{ "tid", "nlwp", "LWPID", "NLWP", 5, COL_ALL, COL_SHOW | COL_GROUP,
	  CK_LWP, 0, "tid", "",
	  "thread id with -L; without, nlwp: its (a group's) threads" },
	{ "comm", NULL, "COMM", NULL, -15, COL_ALL, COL_SHOW, CK_COMM, 0,
	  "comm", "", "the thread's (process's: its leader's) name" },
	{ "process", NULL, "PROCESS/LWPID", "PROCESS/NLWP", -14, COL_ALL,
	  COL_SHOW, CK_PROCESS, 0, NULL, "",
	  "the name cut to 12 characters, '/', tid or nlwp (prstat's)" },
	{ "elapsed", NULL, "ELAPSED", NULL, 7, COL_ALL,
	  COL_SHOW | COL_GROUP, CK_ELAPSED, 0, "elapsed_ns", "ns",
	  "the line's time over the interval: what % columns divide" },
	{ "ts", NULL, "TS", NULL, 14, COL_ALL, COL_CSV | COL_GROUP, CK_TS,
	  0, "ts", "s", "the read's wall-clock time, seconds since the epoch" },
	/* --csv --group's: who a group line is. */
	{ "group", NULL, "GROUP", NULL, -8, COL_LINES,
	  COL_CSV | COL_GROUP | COL_GONLY, CK_GBY, 0, "group", "",
	  "--group's by: cgroup, user or comm" },
	{ "name", NULL, "NAME", NULL, -16, COL_LINES,
	  COL_CSV | COL_GROUP | COL_GONLY, CK_GNAME, 0, "name", "",
	  "the group's name: a cgroup path, a user, a folded comm" },
	{ "nproc", NULL, "NPROC", NULL, 6, COL_LINES,
	  COL_CSV | COL_GROUP | COL_GONLY, CK_NPROC, 0, "nproc", "",
	  "the group's processes with a live thread" },
};

const int tsa_ncols = (int)(sizeof(tsa_cols_table) /
			    sizeof(tsa_cols_table[0]));

static unsigned view_bit(enum view v)
{
	return v == VIEW_CALLS ? COL_CALLS : v == VIEW_TSA ? COL_TSA : COL_SOL;
}

const char *col_name(const struct col *c, int lwps)
{
	return !lwps && c->name_proc ? c->name_proc : c->name;
}

int col_lookup(const char *name, enum view v, unsigned need)
{
	unsigned want = view_bit(v);
	int i;

	for (i = 0; i < tsa_ncols; i++) {
		const struct col *c = &tsa_cols_table[i];

		if (!(c->views & want) || (need && !(c->flags & need)))
			continue;
		if (!strcasecmp(c->name, name) ||
		    (c->name_proc && !strcasecmp(c->name_proc, name)))
			return i;
	}
	return -1;
}

const char *col_default(enum view v, unsigned ctx)
{
	if (ctx & COLP_GROUP)
		return v == VIEW_TSA ?
		       "ts,group,name,nproc,nlwp,elapsed,exec,run,apg,slp,lck,"
		       "idl,stp,vcx,icx,scl,sig" :
		       "ts,group,name,nproc,nlwp,elapsed,usr,sys,trp,tfl,dfl,"
		       "lck,slp,lat,vcx,icx,scl,sig";
	if (v == VIEW_CALLS)
		return ctx & COLP_CSV ?
		       "ts,pid,tid,comm,call,elapsed,pct,calls,avg,max,sys,lat,"
		       "flt,apg,lck,klk,iow,idl,slp" :
		       "pid,call,pct,calls,avg,max,sys,lat,flt,apg,lck,klk,iow,"
		       "idl,slp,process";
	if (ctx & COLP_CSV)
		return v == VIEW_TSA ?
		       "ts,pid,tid,user,comm,elapsed,exec,run,apg,slp,lck,"
		       "idl,stp,vcx,icx,scl,sig" :
		       "ts,pid,tid,user,comm,elapsed,usr,sys,trp,tfl,dfl,lck,"
		       "slp,lat,vcx,icx,scl,sig";
	return v == VIEW_TSA ?
	       "pid,user,exec,run,apg,slp,lck,idl,stp,process" :
	       "pid,user,usr,sys,trp,tfl,dfl,lck,slp,lat,vcx,icx,scl,sig,"
	       "process";
}

static const char *view_title(enum view v)
{
	return v == VIEW_CALLS ? "system-call (-y)" :
	       v == VIEW_TSA ? "TSA (-A)" : "-m";
}

int col_parse(const char *list, enum view v, unsigned ctx,
	      struct colset *set, char *why, size_t whylen)
{
	char name[64];
	const char *p = list;
	unsigned flags;
	int i;

	set->n = 0;
	while (*p) {
		size_t len = strcspn(p, ", ");

		if (!len) {
			p++;
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		p += len;
		i = col_lookup(name, v, 0);
		if (i < 0 || !(tsa_cols_table[i].flags & (COL_SHOW | COL_CSV))) {
			if (col_lookup(name, VIEW_SOLARIS, COL_SHOW) >= 0 ||
			    col_lookup(name, VIEW_TSA, COL_SHOW) >= 0 ||
			    col_lookup(name, VIEW_CALLS, COL_SHOW) >= 0)
				snprintf(why, whylen, "column %s is not one of "
					 "the %s view ('-o help' lists them)",
					 name, view_title(v));
			else
				snprintf(why, whylen, "invalid column -- %s "
					 "('-o help' lists them)", name);
			return -1;
		}
		flags = tsa_cols_table[i].flags;
		if (!(ctx & COLP_CSV) && !(flags & COL_SHOW)) {
			snprintf(why, whylen, "column %s is in --csv only",
				 name);
			return -1;
		}
		if ((ctx & COLP_GROUP) ? !(flags & COL_GROUP) :
		    !!(flags & COL_GONLY)) {
			snprintf(why, whylen, "column %s is not one of %s "
				 "lines", name, ctx & COLP_GROUP ?
				 "--group's" : "process and thread");
			return -1;
		}
		if (set->n == COLS_MAX) {
			snprintf(why, whylen, "-o: at most %d columns",
				 COLS_MAX);
			return -1;
		}
		set->c[set->n++] = i;
	}
	if (!set->n) {
		snprintf(why, whylen, "-o: no column named");
		return -1;
	}
	return 0;
}

/*
 * -o's list is checked by parse_args() for the view it was given with;
 * after the m or A key, a list the other view cannot show gives way to
 * that view's defaults.
 */
void col_set_of(const struct show *o, struct colset *set)
{
	unsigned ctx = (o->csv ? COLP_CSV : 0) |
		       (o->group_by > GROUP_PID ? COLP_GROUP : 0);
	char why[128];

	if (!o->cols[0] ||
	    col_parse(o->cols, o->view, ctx, set, why, sizeof(why)) < 0)
		col_parse(col_default(o->view, ctx), o->view, ctx, set, why,
			  sizeof(why));
}

uint64_t col_value(const struct col *c, const struct tsa_delta *d)
{
	uint64_t sol[SOL_NCOLS], tsa[TSA_NCOLS];

	switch (c->kind) {
	case CK_PID:
		return d->pid;
	case CK_LWP:
		return d->id;
	case CK_ELAPSED:
		return d->elapsed;
	case CK_SOL:
		sol_cols(d, sol);
		return sol[c->arg];
	case CK_TSA:
		tsa_cols(d, tsa);
		return tsa[c->arg];
	case CK_CNT:
		return d->cnt[c->arg];
	case CK_CPU:
		return d->ns[S_USR] + d->ns[S_SYS] + d->ns[S_TRP];
	case CK_TIME:
		return d->now->v[F_NS + S_USR] + d->now->v[F_NS + S_SYS] +
		       d->now->v[F_NS + S_TRP];
	case CK_WAIT:
		tsa_cols(d, tsa);
		return tsa[TSA_RUN] + tsa[TSA_LCK] + tsa[TSA_APG];
	default:	/* text, the wall clock, the system-call view's */
		return 0;
	}
}

static int is_pct(const struct col *c)
{
	return c->kind == CK_SOL || c->kind == CK_TSA || c->kind == CK_CPU ||
	       c->kind == CK_WAIT;
}

static const char *col_hdr(const struct col *c, int lwps)
{
	return !lwps && c->hdr_proc ? c->hdr_proc : c->hdr;
}

void col_header(char *out, size_t len, const struct colset *set, int lwps)
{
	size_t at = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < set->n && at < len; i++) {
		const struct col *c = &tsa_cols_table[set->c[i]];

		at += (size_t)snprintf(out + at, len - at, "%s%*s",
				       i ? " " : "", c->width,
				       col_hdr(c, lwps));
	}
}

/* The text of @c for @d, as the table shows it. */
static void col_text(char *out, size_t len, const struct col *c,
		     const struct tsa_delta *d, int trunc_names)
{
	char comm[64];

	if (is_pct(c)) {
		format_pct(out, (float)pct_of(col_value(c, d), d->elapsed));
		return;
	}
	switch (c->kind) {
	case CK_PID:
	case CK_LWP:
		snprintf(out, len, "%d", (int)col_value(c, d));
		break;
	case CK_USER:
		format_user(out, len, user_name((uid_t)d->uid), trunc_names);
		break;
	case CK_COMM:
		strip_comm(out, len, d->comm);
		break;
	case CK_PROCESS:
		strip_comm(comm, sizeof(comm), d->comm);
		snprintf(out, len, "%.12s/%d", comm, (int)d->id);
		break;
	case CK_CNT:
		format_num(out, d->shown[c->arg]);
		break;
	case CK_TIME:
	case CK_ELAPSED:
		format_dur(out, col_value(c, d));
		break;
	default:
		snprintf(out, len, "-");
		break;
	}
}

/* The text of @c for call line @l, as the -y table shows it. */
static void call_text(char *out, size_t len, const struct col *c,
		      const struct tsa_call_line *l, int trunc_names)
{
	uint64_t ns[CALL_NCOLS];

	switch (c->kind) {
	case CK_CPCT:
		format_pct(out, (float)pct_of(l->d.ns, l->elapsed));
		break;
	case CK_CCALLS:
		format_count(out, l->d.calls);
		break;
	case CK_CAVG:
		if (l->d.calls)
			format_dur(out, l->d.ns / l->d.calls);
		else
			snprintf(out, len, "-");
		break;
	case CK_CMAX:
		format_dur(out, l->d.max);
		break;
	case CK_CSPLIT:
		call_cols(&l->d, ns);
		format_pct(out, (float)pct_of(ns[c->arg], l->d.ns));
		break;
	case CK_CNAME:
		format_cut(out, len, l->name, 16, trunc_names);
		break;
	case CK_ELAPSED:
		format_dur(out, l->elapsed);
		break;
	default:	/* who: the line's thread or process */
		col_text(out, len, c, l->who, trunc_names);
		break;
	}
}

/*
 * The cells of @set: with @line, joined by spaces, the last one (when
 * left-aligned) not padded, and the line's end; else each cell and a
 * space after it (the state columns of a group line).
 */
static void cells(FILE *f, const struct colset *set,
		  const struct tsa_delta *d, const struct tsa_call_line *l,
		  int trunc_names, int line)
{
	char buf[128];
	int i;

	for (i = 0; i < set->n; i++) {
		const struct col *c = &tsa_cols_table[set->c[i]];
		int last = line && i == set->n - 1;

		if (l)
			call_text(buf, sizeof(buf), c, l, trunc_names);
		else
			col_text(buf, sizeof(buf), c, d, trunc_names);
		if (i && line)
			fputc(' ', f);
		if (is_pct(c) || c->kind == CK_CNT || c->kind == CK_CPCT ||
		    c->kind == CK_CSPLIT)	/* as prstat: cut */
			fprintf(f, "%*.*s", c->width, c->width, buf);
		else if (last && c->width < 0)
			fputs(buf, f);
		else
			fprintf(f, "%*s", c->width, buf);
		if (!line)
			fputc(' ', f);
	}
	if (line)
		fputc('\n', f);
}

void col_line(FILE *f, const struct colset *set, const struct show *o,
	      const struct tsa_delta *d, int trunc_names)
{
	(void)o;
	cells(f, set, d, NULL, trunc_names, 1);
}

void col_call_line(FILE *f, const struct colset *set,
		   const struct tsa_call_line *l, int trunc_names)
{
	cells(f, set, NULL, l, trunc_names, 1);
}

void col_line_cols(FILE *f, const struct colset *set,
		   const struct tsa_delta *d)
{
	cells(f, set, d, NULL, 0, 0);
}

void col_csv_header(FILE *f, const struct colset *set, int lwps)
{
	int i;

	for (i = 0; i < set->n; i++)
		fprintf(f, "%s%s", i ? "," : "",
			col_name(&tsa_cols_table[set->c[i]], lwps));
	fputc('\n', f);
}

/* RFC 4180: quoted when it has a comma, a quote, a line end or spaces. */
static void csv_str(FILE *f, const char *s)
{
	const char *p;

	if (!s[strcspn(s, ",\"\r\n")] && s[0] != ' ' &&
	    (!s[0] || s[strlen(s) - 1] != ' ')) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

/* A call line's cell of --csv, in its unit; 0 when it is not one. */
static int csv_call(FILE *f, const struct col *c,
		    const struct tsa_call_line *l)
{
	uint64_t ns[CALL_NCOLS];

	switch (c->kind) {
	case CK_CPCT:
		fprintf(f, "%" PRIu64, l->d.ns);
		return 1;
	case CK_CCALLS:
		fprintf(f, "%" PRIu64, l->d.calls);
		return 1;
	case CK_CAVG:	/* empty when no call began: JSON's null */
		if (l->d.calls)
			fprintf(f, "%" PRIu64, l->d.ns / l->d.calls);
		return 1;
	case CK_CMAX:
		fprintf(f, "%" PRIu64, l->d.max);
		return 1;
	case CK_CSPLIT:
		call_cols(&l->d, ns);
		fprintf(f, "%" PRIu64, ns[c->arg]);
		return 1;
	case CK_CNAME:
		csv_str(f, l->name);
		return 1;
	case CK_ELAPSED:
		fprintf(f, "%" PRIu64, l->elapsed);
		return 1;
	default:
		return 0;
	}
}

/*
 * A row of --csv: a process's or thread's (@g and @l NULL), a group's
 * (@g), or a call line's (@l, whose thread or process is @d).
 */
static void csv_line(FILE *f, const struct colset *set,
		     const struct timespec *wall, enum group_by by,
		     const struct tsa_group *g, const struct tsa_delta *d,
		     const struct tsa_call_line *l)
{
	char buf[128], comm[64];
	int i;

	for (i = 0; i < set->n; i++) {
		const struct col *c = &tsa_cols_table[set->c[i]];

		if (i)
			fputc(',', f);
		if (l && csv_call(f, c, l))
			continue;
		switch (c->kind) {
		case CK_USER:
			csv_str(f, user_name((uid_t)d->uid));
			break;
		case CK_COMM:
			strip_comm(comm, sizeof(comm), d->comm);
			csv_str(f, comm);
			break;
		case CK_PROCESS:
			strip_comm(comm, sizeof(comm), d->comm);
			snprintf(buf, sizeof(buf), "%s/%d", comm, (int)d->id);
			csv_str(f, buf);
			break;
		case CK_TS:
			fprintf(f, "%lld.%03ld", (long long)wall->tv_sec,
				wall->tv_nsec / 1000000);
			break;
		case CK_GBY:
			csv_str(f, group_by_name[by]);
			break;
		case CK_GNAME:
			csv_str(f, g ? g->key : "");
			break;
		case CK_NPROC:
			fprintf(f, "%lu", g ? g->nprocs : 0);
			break;
		case CK_LWP:
			if (g) {	/* a group line's id is its index */
				fprintf(f, "%lu", g->nlwps);
				break;
			}
			/* fall through */
		default:
			fprintf(f, "%" PRIu64, col_value(c, d));
			break;
		}
	}
	fputc('\n', f);
}

void col_csv_line(FILE *f, const struct colset *set,
		  const struct timespec *wall, const struct tsa_delta *d)
{
	csv_line(f, set, wall, GROUP_PID, NULL, d, NULL);
}

void col_csv_call(FILE *f, const struct colset *set,
		  const struct timespec *wall, const struct tsa_call_line *l)
{
	csv_line(f, set, wall, GROUP_PID, NULL, l->who, l);
}

void col_csv_group(FILE *f, const struct colset *set,
		   const struct timespec *wall, enum group_by by,
		   const struct tsa_group *g, const struct tsa_delta *d)
{
	csv_line(f, set, wall, by, g, d, NULL);
}

static const char *views_of(const struct col *c)
{
	switch (c->views) {
	case COL_SOL:
		return "-m";
	case COL_TSA:
		return "-A";
	case COL_CALLS:
		return "-y";
	case COL_LINES:
		return "-m,-A";
	default:
		return "-m,-A,-y";
	}
}

void col_help(FILE *f)
{
	int i;

	fprintf(f, "Columns of -o and --csv (s: a -s key too; c: --csv only; "
		"g: --csv --group only):\n");
	fprintf(f, "  %-8s %-13s %-6s %-5s %s\n", "NAME", "HEADER", "VIEWS",
		"UNIT", "");
	for (i = 0; i < tsa_ncols; i++) {
		const struct col *c = &tsa_cols_table[i];
		char name[24];

		snprintf(name, sizeof(name), "%s%s%s", c->name,
			 c->name_proc ? "|" : "",
			 c->name_proc ? c->name_proc : "");
		fprintf(f, "%c %-8s %-13s %-6s %-5s %s\n",
			c->flags & COL_SORT ? 's' : c->flags & COL_GONLY ? 'g' :
			c->flags & COL_CSV ? 'c' : ' ', name,
			c->hdr ? c->hdr : "-", views_of(c),
			c->unit[0] ? c->unit : "-", c->help);
	}
	fprintf(f, "Defaults: -m %s\n          -A %s\n",
		col_default(VIEW_SOLARIS, 0), col_default(VIEW_TSA, 0));
	fprintf(f, "--csv --group (-m): %s\n",
		col_default(VIEW_SOLARIS, COLP_CSV | COLP_GROUP));
}
