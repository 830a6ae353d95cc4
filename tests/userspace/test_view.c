// SPDX-License-Identifier: GPL-2.0
/*
 * test_view.c - view/: tables, sort, JSON, the metrics text and group
 * reports, printed from hand-written snapshots through the model; every
 * expected line was computed by hand (the arithmetic is in the
 * comments).
 *
 * Output is TAP (tap.h); run-tests.sh sums every program's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "all.h"
#include "cols.h"
#include "calls.h"
#include "group.h"
#include "hist.h"
#include "json.h"
#include "metrics.h"
#include "show.h"
#include "sort.h"
#include "table.h"
#include "tap.h"
#include "fx/load.h"
#include "fx/run.h"
#include "fx/snap.h"
#include "fx/want.h"

static void opts_init(struct show *o, enum view v, int lwps)
{
	memset(o, 0, sizeof(*o));
	o->view = v;
	o->lwps = lwps;
	o->sort_key = sort_default_key(v);
	o->sort_order = -1;
}

/* One report of @cur against @prev (NULL: first report), as text. */
static char *report(const char *prev, const char *cur,
		    const struct show *o)
{
	static const double la[3] = { 1.0, 2.5, 10.0 };
	struct tsa_snap a = { 0 }, b = { 0 };
	struct tsa_select sel = { o->lwps, 1, o->pids, o->npids };
	struct tsa_delta *d = NULL;
	struct tsa_totals tot;
	size_t cap = 0, n;
	char *out;
	size_t len;
	FILE *f;

	if (prev)
		load(&a, prev);
	load(&b, cur);
	n = tsa_delta_compute(prev ? &a : NULL, &b, &sel, &d, &cap, &tot);
	sort_lines(d, n, o->sort_key, o->sort_order);
	if (o->ntop && (size_t)o->ntop < n)
		n = (size_t)o->ntop;
	f = open_memstream(&out, &len);
	if (o->json)
		json_print(f, o, &b, d, n);
	else
		table_print(f, o, d, n, &tot, la, o->trunc);
	fclose(f);
	free(d);
	tsa_snap_free(&a);
	tsa_snap_free(&b);
	return out;
}

static void test_headers(void)
{
	struct show o;

	opts_init(&o, VIEW_SOLARIS, 1);
	is_str(table_header(&o),
	       "   PID USERNAME USR SYS TRP TFL DFL LCK SLP LAT  VCX  ICX  SCL "
	       " SIG PROCESS/LWPID ", "-mL header, byte for byte");
	o.lwps = 0;
	is_str(table_header(&o),
	       "   PID USERNAME USR SYS TRP TFL DFL LCK SLP LAT  VCX  ICX  SCL "
	       " SIG PROCESS/NLWP  ", "-m header, byte for byte");
	is_long((long)strlen(table_header(&o)), 82,
		"-m header is 82 columns: Solaris's 78, and a fourth "
		"character for each count (\"4.4M\", never \".43\")");
	o.view = VIEW_TSA;
	is_str(table_header(&o),
	       "   PID USERNAME EXEC  RUN  APG  SLP  LCK  IDL  STP "
	       "PROCESS/NLWP  ", "TSA header");
	o.lwps = 1;
	is_str(table_header(&o),
	       "   PID USERNAME EXEC  RUN  APG  SLP  LCK  IDL  STP "
	       "PROCESS/LWPID ", "TSA -L header");
}

static void test_report_mL(void)
{
	char *a = snap_a(), *b = snap_b(), *out;
	struct show o;

	opts_init(&o, VIEW_SOLARIS, 1);
	out = report(a, b, &o);
	is_str(out, want_mL, "-mL report from two snapshots (deltas, "
	       "own-elapsed percentages, folding, reused tid, new thread)");
	free(out);

	/*
	 * First report, interval 1 s: lifetime percentages; counts are
	 * lifetime averages per interval (count * 1 s / lifetime):
	 * tid 100: 4 s, VCX 10 -> 2, ICX 5 -> 1, SCL 100 -> 25.
	 * tid 101: 2 s, VCX 20 -> 10, ICX 2 -> 1, SCL 50 -> 25, SIG 1 -> 0.
	 * Sort: 100 (50), 200 (100 -> first), 101 (0), 300, 301 (0).
	 */
	out = report(NULL, a, &o);
	is_str(out, HDR_L
"   200 4000000  100 0.0 0.0 0.0 0.0 0.0 0.0 0.0    0    7    0    0 spin/200\n"
"   100 root      25  25 0.0 0.0 0.0 0.0  50 0.0    2    1   25    0 db server/100\n"
"   100 root     0.0 0.0 0.0 0.0 0.0  50 0.0  50   10    1   25    0 db worker/101\n"
"   300 root     0.0 0.0 0.0 0.0 0.0 0.0 100 0.0    0    0    0    0 sleeper/300\n"
"   300 root     0.0 0.0 0.0 0.0 0.0 0.0 100 0.0    0    0    0    0 sleeper/301\n"
"Total: 3 processes, 5 lwps, load averages: 1.00, 2.50, 10.00\n",
	       "first report: lifetime percentages, counts per interval");
	free(out);
	free(a);
	free(b);
}

/*
 * -m (processes), B against A.  Sums include the exited-threads line.
 * pid 100: A = 4 + 2 + 1 = 7 s, B = 5 + 0.5 + 3.5 = 9 s: 2 s elapsed.
 *   USR (1.5+0.05+0.5) - (1+0+0.5) = 0.55 -> 27.5 -> 28
 *   SYS 0.1 -> 5.0; TFL 0.04975 -> 2.4875 -> 2.5
 *   DFL = DFL + APG = 0.0497 + 0.1 -> 7.485 -> 7.5
 *   LCK 1.25 - 1 = 0.25 -> 12.5 -> 12 (tie to even)
 *   SLP = SLP 0.30075 + KLK 0.1 + IOW 0.1 + IDL 0.1 -> 30.04 -> 30
 *   LAT (0.0498 + 1.25) - 1 -> 14.99 -> 15
 *   VCX 2772 - 33 = 2739, ICX 1007 - 7 = 1000,
 *   SCL 200159 - 150 = 200009 -> 200K, SIG 2 - 1 -> 1; 2 threads.
 * pid 200: as its thread.  pid 300: A 10 s, B 6 + 5.2 + 0.8 = 12 s:
 *   USR 0.2 / 2 = 10, SLP 1.8 / 2 = 90, VCX 5.
 * Sort cpu: 200 (50), 100 (32.5), 300 (10).  pid 400: no threads.
 */
static const char want_m[] = HDR_P
"   200 4000000   50 0.0 0.0 0.0 0.0 0.0 0.0  50    0 1.0M    0    0 spin/1\n"
"   100 root      28 5.0 0.0 2.5 7.5  12  30  15 2739 1000 200K    1 db server/2\n"
"   300 root      10 0.0 0.0 0.0 0.0 0.0  90 0.0    5    0    0    0 sleeper/2\n"
TOTAL;

static void test_report_m(void)
{
	char *a = snap_a(), *b = snap_b(), *out;
	struct show o;

	opts_init(&o, VIEW_SOLARIS, 0);
	out = report(a, b, &o);
	is_str(out, want_m, "-m report: process sums with the exited-threads "
	       "line, divided by the sum of the threads' elapsed");
	free(out);
	free(a);
	free(b);
}

/*
 * TSA view, -L, B against A.  Default sort: wait = RUN+LCK+APG.
 *   200: EXEC 50, RUN 50                        wait 50
 *   100: EXEC 60, APG 10, SLP = IOW 10, LCK = KLK 10, IDL 10   wait 20
 *   102: EXEC 10, RUN 9.96 -> 10, SLP = TFL+DFL+SLP 80.04 -> 80 wait 10
 *   300, 301: wait 0, by pid then tid.
 */
static const char want_tsa[] =
"   PID USERNAME EXEC  RUN  APG  SLP  LCK  IDL  STP PROCESS/LWPID \n"
"   200 4000000    50   50  0.0  0.0  0.0  0.0  0.0 spin/200\n"
"   100 root       60  0.0   10   10   10   10  0.0 db server/100\n"
"   100 root       10   10  0.0   80  0.0  0.0  0.0 db worker/102\n"
"   300 root      0.0  0.0  0.0  100  0.0  0.0  0.0 sleeper/300\n"
"   300 root       25  0.0  0.0   75  0.0  0.0  0.0 sleeper/301\n"
TOTAL;

static void test_report_tsa(void)
{
	char *a = snap_a(), *b = snap_b(), *out;
	struct show o;

	opts_init(&o, VIEW_TSA, 1);
	out = report(a, b, &o);
	is_str(out, want_tsa, "TSA view: folding and default sort by "
	       "RUN+LCK+APG");
	free(out);
	free(a);
	free(b);
}

static void test_select_sort(void)
{
	char *a = snap_a(), *b = snap_b(), *out, why[128];
	uint64_t pid300 = 300;
	struct show o;

	opts_init(&o, VIEW_SOLARIS, 1);
	o.pids = &pid300;
	o.npids = 1;
	out = report(a, b, &o);
	is_str(out, HDR_L
"   300 root      25 0.0 0.0 0.0 0.0 0.0  75 0.0    5    0    0    0 sleeper/301\n"
"   300 root     0.0 0.0 0.0 0.0 0.0 0.0 100 0.0    0    0    0    0 sleeper/300\n"
"Total: 1 processes, 2 lwps, load averages: 1.00, 2.50, 10.00\n",
	       "-p 300 shows that process only, and counts only it");
	free(out);

	opts_init(&o, VIEW_SOLARIS, 1);
	o.ntop = 2;
	out = report(a, b, &o);
	is_str(out, HDR_L
"   100 root      50  10 0.0 0.0  10 0.0  30 0.0 1500  999 100K    1 db server/100\n"
"   200 4000000   50 0.0 0.0 0.0 0.0 0.0 0.0  50    0 1.0M    0    0 spin/200\n"
TOTAL, "-n 2 keeps the first two lines; Total counts all");
	free(out);

	/* -S cpu: 300 (0), 102 (10), 301 (25), 200 (50), 100 (60) */
	o.ntop = 0;
	o.sort_order = 1;
	out = report(a, b, &o);
	is_str(out, HDR_L
"   300 root     0.0 0.0 0.0 0.0 0.0 0.0 100 0.0    0    0    0    0 sleeper/300\n"
"   100 root      10 0.0 0.0  10 9.9 0.0  60  10 1234    0 100K    0 db worker/102\n"
"   300 root      25 0.0 0.0 0.0 0.0 0.0  75 0.0    5    0    0    0 sleeper/301\n"
"   200 4000000   50 0.0 0.0 0.0 0.0 0.0 0.0  50    0 1.0M    0    0 spin/200\n"
"   100 root      50  10 0.0 0.0  10 0.0  30 0.0 1500  999 100K    1 db server/100\n"
TOTAL, "-S cpu sorts ascending");
	free(out);

	/* -s lat: 200 (50), 102 (9.96), then 0 by pid, tid */
	o.sort_order = -1;
	o.sort_key = sort_key_lookup("lat", VIEW_SOLARIS, why, sizeof(why));
	o.ntop = 2;
	out = report(a, b, &o);
	is_str(out, HDR_L
"   200 4000000   50 0.0 0.0 0.0 0.0 0.0 0.0  50    0 1.0M    0    0 spin/200\n"
"   100 root      10 0.0 0.0  10 9.9 0.0  60  10 1234    0 100K    0 db worker/102\n"
TOTAL, "-s lat sorts by LAT");
	free(out);

	/* -s vcx: 100 (1500), 102 (1234), 301 (5) */
	o.sort_key = sort_key_lookup("vcx", VIEW_SOLARIS, why, sizeof(why));
	o.ntop = 3;
	out = report(a, b, &o);
	is_str(out, HDR_L
"   100 root      50  10 0.0 0.0  10 0.0  30 0.0 1500  999 100K    1 db server/100\n"
"   100 root      10 0.0 0.0  10 9.9 0.0  60  10 1234    0 100K    0 db worker/102\n"
"   300 root      25 0.0 0.0 0.0 0.0 0.0  75 0.0    5    0    0    0 sleeper/301\n"
TOTAL, "-s vcx sorts by voluntary switches");
	free(out);

	/* -s slp in the TSA view is the TSA SLP column */
	opts_init(&o, VIEW_TSA, 1);
	o.sort_key = sort_key_lookup("slp", VIEW_TSA, why, sizeof(why));
	o.ntop = 3;
	out = report(a, b, &o);
	is_str(out,
"   PID USERNAME EXEC  RUN  APG  SLP  LCK  IDL  STP PROCESS/LWPID \n"
"   300 root      0.0  0.0  0.0  100  0.0  0.0  0.0 sleeper/300\n"
"   100 root       10   10  0.0   80  0.0  0.0  0.0 db worker/102\n"
"   300 root       25  0.0  0.0   75  0.0  0.0  0.0 sleeper/301\n"
TOTAL, "-s slp in the TSA view sorts by TSA SLP");
	free(out);

	is_long(sort_key_lookup("pri", VIEW_SOLARIS, why, sizeof(why)), -1,
		"sort key pri is refused");
	ok(strstr(why, "not available") != NULL, "... as not available");
	is_long(sort_key_lookup("exec", VIEW_SOLARIS, why, sizeof(why)), -1,
		"sort key exec is refused in the -m view");
	is_long(sort_key_lookup("bogus", VIEW_TSA, why, sizeof(why)), -1,
		"an unknown sort key is refused");
	ok(sort_key_lookup("TIME", VIEW_TSA, why, sizeof(why)) >= 0,
	   "sort keys are case-insensitive");
	free(a);
	free(b);
}

static void test_json_lib(void)
{
	char *a = snap_a(), *b = snap_b(), *out;
	struct show o;

	opts_init(&o, VIEW_SOLARIS, 1);
	o.json = 1;
	out = report(a, b, &o);
	ok(strstr(out, "\"pid\":100,\"tid\":100,") &&
	   strstr(out, "\"comm\":\"db server\"") &&
	   strstr(out, "\"APG\":{\"ns\":100000000,\"pct\":10.000,"
		  "\"total_ns\":100000000,"),
	   "JSON has per-state deltas, percentages and totals");
	ok(strstr(out, "\"VCX\":{\"delta\":1500,\"total\":1510}") != NULL,
	   "JSON has counter deltas and totals");
	ok(strstr(out, "\"solaris\":{\"USR\":50.000,\"SYS\":10.000,"
		  "\"TRP\":0.000,\"TFL\":0.000,\"DFL\":10.000,") != NULL,
	   "JSON has the Solaris view's columns");
	/* Thread 100 is in SYS in snapshot B, for 100 us (the fixture). */
	ok(strstr(out, "\"tid\":100,") &&
	   strstr(out, "\"state\":\"SYS\",\"state_ns\":100000,") &&
	   !strstr(out, "\"exited\""),
	   "JSON -L gives each thread's state and time in it (state_ns), and no exited key");
	free(out);
	free(a);
	free(b);
}

/*
 * The tables' headers as they were before the column table (the
 * defines of view/table.h until then): its default lists must print
 * them byte for byte.
 */
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


/*
 * The column table (view/cols.c): the default lists print the headers
 * the tables always had; every sort key is a row; JSON's schema and
 * renamed keys.
 */
static void test_cols(void)
{
	static const struct { enum view v; int lwps; const char *hdr; } h[] = {
		{ VIEW_SOLARIS, 1, HDR_SOL_LWP }, { VIEW_SOLARIS, 0, HDR_SOL_PROC },
		{ VIEW_TSA, 1, HDR_TSA_LWP }, { VIEW_TSA, 0, HDR_TSA_PROC },
		{ VIEW_CALLS, 1, HDR_CALLS_LWP },
		{ VIEW_CALLS, 0, HDR_CALLS_PROC },
	};
	static const char *const sol_keys[] = { "cpu", "time", "usr", "sys",
		"trp", "tfl", "dfl", "lck", "slp", "lat", "vcx", "icx", "scl",
		"sig" };
	char *a = snap_a(), *b = snap_b(), *out, hdr[512], why[160];
	struct colset set;
	struct show o;
	size_t i;
	int k;

	for (i = 0; i < sizeof(h) / sizeof(h[0]); i++) {
		opts_init(&o, h[i].v, h[i].lwps);
		col_set_of(&o, &set);
		col_header(hdr, sizeof(hdr), &set, h[i].lwps);
		is_str(hdr, h[i].hdr, "cols: the default %s%s header is the "
		       "table's as it was", h[i].v == VIEW_CALLS ? "-y" :
		       h[i].v == VIEW_TSA ? "-A" : "-m", h[i].lwps ? "L" : "");
	}
	for (i = 0; i < sizeof(sol_keys) / sizeof(sol_keys[0]); i++) {
		k = sort_key_lookup(sol_keys[i], VIEW_SOLARIS, why,
				    sizeof(why));
		ok(k >= 0 && !strcmp(sort_key_name(k), sol_keys[i]) &&
		   col_lookup(sol_keys[i], VIEW_SOLARIS, COL_SHOW) == k,
		   "cols: -s %s is the -m column of that name (key %d)",
		   sol_keys[i], k);
	}
	k = col_lookup("slp", VIEW_TSA, COL_SORT);
	ok(k >= 0 && k != col_lookup("slp", VIEW_SOLARIS, COL_SORT) &&
	   tsa_cols_table[k].arg == TSA_SLP,
	   "cols: slp is its own row in -A (TSA_SLP), not -m's (key %d)", k);
	{
		struct group_report r;
		char *buf = NULL, want[256];
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		memset(&r, 0, sizeof(r));
		opts_init(&o, VIEW_TSA, 0);
		group_lines_print(f, &o, GROUP_USER, &r, NULL, 0, 0);
		opts_init(&o, VIEW_SOLARIS, 0);
		group_lines_print(f, &o, GROUP_CGROUP, &r, NULL, 0, 1);
		fclose(f);
		/* TIME goes after NLWP, the 12 columns of " NPROC  NLWP". */
		snprintf(want, sizeof(want), "%sUSERNAME\n%.12s   TIME%s"
			 "CGROUP\n", HDR_TSA_GROUP, HDR_SOL_GROUP,
			 &HDR_SOL_GROUP[12]);
		is_str(buf, want, "cols: group headers, with and without "
		       "TIME, are the table's as they were");
		free(buf);
	}
	is_long(col_parse("pid,nosuch", VIEW_SOLARIS, 0, &set, why,
			  sizeof(why)), -1, "cols: an unknown name is refused");
	is_str(why, "invalid column -- nosuch ('-o help' lists them)",
	       "cols: and the reason names it");
	is_long(col_parse("exec", VIEW_SOLARIS, 0, &set, why, sizeof(why)),
		-1, "cols: -A's exec is not a -m column");
	is_long(col_parse("pid comm,lat", VIEW_SOLARIS, 0, &set, why,
			  sizeof(why)), 0, "cols: names by comma or space");
	ok(set.n == 3 && !strcmp(tsa_cols_table[set.c[0]].name, "pid") &&
	   !strcmp(tsa_cols_table[set.c[1]].name, "comm") &&
	   !strcmp(tsa_cols_table[set.c[2]].name, "lat"),
	   "cols: in the order given (%d columns)", set.n);

	opts_init(&o, VIEW_SOLARIS, 1);
	o.json = 1;
	out = report(a, b, &o);
	ok(!strncmp(out, "{\"schema\":1,\"ts\":", 16),
	   "JSON: each object begins with its schema (%.24s)", out);
	ok(strstr(out, "\"APG\":{\"ns\":100000000,\"pct\":10.000,"
		  "\"total_ns\":100000000,\"count\":") &&
	   !strstr(out, "\"n\":") && !strstr(out, "\"max\":"),
	   "JSON: a state's entries are \"count\" and \"max_ns\" as in -H "
	   "and -w, no \"n\" or \"max\"");
	free(out);
	free(a);
	free(b);
}

/* One report of the system-call view, as report() does for the others. */
static char *calls_report(const char *prev, const char *cur,
			  const char *cprev, const char *ccur,
			  const struct show *o)
{
	static const double la[3] = { 1.0, 2.5, 10.0 };
	struct tsa_snap a = { 0 }, b = { 0 };
	struct tsa_calls_snap ca = { 0 }, cb = { 0 };
	struct tsa_select sel = { o->lwps, 1, o->pids, o->npids };
	struct tsa_delta *d = NULL;
	struct tsa_call_line *l = NULL;
	struct tsa_totals tot;
	size_t cap = 0, lcap = 0, n;
	char *out;
	size_t len;
	FILE *f;

	if (prev) {
		load(&a, prev);
		cload(&ca, cprev);
	}
	load(&b, cur);
	cload(&cb, ccur);
	n = tsa_delta_compute(prev ? &a : NULL, &b, &sel, &d, &cap, &tot);
	n = tsa_calls_compute(prev ? &a : NULL, &b, prev ? &ca : NULL, &cb,
			      &sel, d, n, &l, &lcap);
	sort_call_lines(l, n, o->sort_key, o->sort_order);
	if (o->ntop && (size_t)o->ntop < n)
		n = (size_t)o->ntop;
	f = open_memstream(&out, &len);
	if (o->json)
		json_print_calls(f, o, &cb, l, n);
	else
		calls_table_print(f, o, l, n, &tot, la, o->trunc);
	fclose(f);
	free(d);
	free(l);
	tsa_snap_free(&a);
	tsa_snap_free(&b);
	tsa_calls_free(&ca);
	tsa_calls_free(&cb);
	return out;
}

/*
 * -y (processes), B against A; percentages of the process's summed
 * elapsed time, 2 s for both.  Each thread's change, as with -L, then
 * that of the exited threads' tables, summed by name.
 * pid 100:
 *   futex: tid 100 +2, 0.3 s; tid 101 exited: the exited-threads
 *     table's futex (5 calls, 1.25 s) less tid 101's 4 calls, 1 s
 *     then: +1, 0.25 s LCK; tid 102 new: 1, 10 ms SYS.  4 calls,
 *     0.56 s = 28, avg 140ms, SYS 35 ms = 6.25 -> 6.2, LAT 4.5, LCK 89.
 *   read: tid 100's, as with -L: 1 call, 50 ms = 2.5, SYS 20, IOW 80;
 *     longest as reported, the largest of the process's: 150ms (the
 *     exited threads' row).
 *   other: tid 100's, as with -L: 3 calls, 60 ms = 3.0.
 *   write 100 calls, 0.1 s = 5.0; mmap 20 ms = 1.0.
 * pid 300: clock_nanosleep +1, 1 s = 50.  The exited threads' table
 *   now holds tid 301, which was in an epoll_wait the module could not
 *   name yet (other, 1 call, 5 s IDL): epoll_wait 1 call, 5.1 s and
 *   exit_group 1 call, 0.1 s.  Against tid 301's then, other is short
 *   by 1 call and 5 s of IDL, taken back from epoll_wait, the largest
 *   new row: 0 calls (AVG -), 0.1 s = 5.0, longest 5.10s; exit_group
 *   5.0.  The new thread 301: read 2, 0.6 s = 30.
 * Ties (5.0) by pid, then name.
 */
static const char want_y[] = HDR_CP
"   300 clock_nanosleep   50     1  1.00s  1.00s 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 100 sleeper/2\n"
"   300 read              30     2  300ms  500ms 0.0 0.0 0.0 0.0 0.0 0.0 0.0 100 0.0 sleeper/2\n"
"   100 futex             28     4  140ms  500ms 6.2 4.5 0.0 0.0  89 0.0 0.0 0.0 0.0 db server/2\n"
"   100 write            5.0   100 1.00ms 5.00ms 100 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 db server/2\n"
"   300 epoll_wait       5.0     0      -  5.10s 0.0 0.0 0.0 0.0 0.0 0.0 0.0 100 0.0 sleeper/2\n"
"   300 exit_group       5.0     1  100ms  100ms 100 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 sleeper/2\n"
"   100 other            3.0     3 20.0ms  100ms  17 0.0 0.0 0.0 0.0 0.0  83 0.0 0.0 db server/2\n"
"   100 read             2.5     1 50.0ms  150ms  20 0.0 0.0 0.0 0.0 0.0  80 0.0 0.0 db server/2\n"
"   100 mmap             1.0     3 6.66ms 12.0ms  25 0.0  25  50 0.0 0.0 0.0 0.0 0.0 db server/2\n"
TOTAL;

static void test_calls_report(void)
{
	char *a = snap_a(), *b = snap_b(), *ca = calls_a(), *cb = calls_b();
	char *out, why[128];
	struct show o;

	opts_init(&o, VIEW_CALLS, 1);
	out = calls_report(a, b, ca, cb, &o);
	is_str(out, want_yL, "-yL report from two snapshots (deltas, an "
	       "evicted and retaken row, other, new and reused threads)");
	free(out);

	/*
	 * First report: lifetime values of each thread.
	 *   300 clock_nanosleep 5 s of 5 s; 301 other 5 s of 5 s (IDL);
	 *   101 futex 1 of 2 s = 50; 100 futex 1 of 4 s = 25, avg 100ms,
	 *   SYS 5.0 LAT 5.0 LCK 90; read 10, IOW 75; other 2.5.
	 */
	out = calls_report(NULL, a, NULL, ca, &o);
	is_str(out, HDR_CL
"   300 clock_nanosleep  100     5  1.00s  1.00s 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 100 sleeper/300\n"
"   300 other            100     1  5.00s  5.00s 0.0 0.0 0.0 0.0 0.0 0.0 0.0 100 0.0 sleeper/301\n"
"   100 futex             50     4  250ms  400ms 0.0 0.0 0.0 0.0 100 0.0 0.0 0.0 0.0 db worker/101\n"
"   100 futex             25    10  100ms  500ms 5.0 5.0 0.0 0.0  90 0.0 0.0 0.0 0.0 db server/100\n"
"   100 read              10    20 20.0ms  100ms  25 0.0 0.0 0.0 0.0 0.0  75 0.0 0.0 db server/100\n"
"   100 other            2.5     5 20.0ms 30.0ms 100 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 db server/100\n"
"Total: 3 processes, 5 lwps, load averages: 1.00, 2.50, 10.00\n",
	       "-yL first report: lifetime values");
	free(out);

	opts_init(&o, VIEW_CALLS, 0);
	out = calls_report(a, b, ca, cb, &o);
	is_str(out, want_y, "-y report: calls merged by name over live "
	       "threads and exited-threads tables, deltas that add up");
	free(out);

	/*
	 * First report, processes: pid 100 sums 4 + 2 + 1 = 7 s: futex 2 s
	 * = 29 (28.57), 14 calls; read 0.6 s = 8.6, 22 calls, longest
	 * 150ms (the exited threads'); other 1.4.  pid 300, 10 s:
	 * clock_nanosleep 50, other 50.
	 */
	out = calls_report(NULL, a, NULL, ca, &o);
	is_str(out, HDR_CP
"   300 clock_nanosleep   50     5  1.00s  1.00s 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 100 sleeper/2\n"
"   300 other             50     1  5.00s  5.00s 0.0 0.0 0.0 0.0 0.0 0.0 0.0 100 0.0 sleeper/2\n"
"   100 futex             29    14  142ms  500ms 2.5 2.5 0.0 0.0  95 0.0 0.0 0.0 0.0 db server/2\n"
"   100 read             8.6    22 27.2ms  150ms  17 0.0 0.0 0.0 0.0 0.0  83 0.0 0.0 db server/2\n"
"   100 other            1.4     5 20.0ms 30.0ms 100 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 db server/2\n"
"Total: 3 processes, 5 lwps, load averages: 1.00, 2.50, 10.00\n",
	       "-y first report: lifetime sums, exited threads included");
	free(out);

	/* -p, -n, and sort keys of the view. */
	{
		uint64_t pid100 = 100;

		opts_init(&o, VIEW_CALLS, 1);
		o.pids = &pid100;
		o.npids = 1;
		o.ntop = 2;
		out = calls_report(a, b, ca, cb, &o);
		is_str(out, HDR_CL
"   100 futex             30     2  150ms  500ms 8.3 8.3 0.0 0.0  83 0.0 0.0 0.0 0.0 db server/100\n"
"   100 write             10   100 1.00ms 5.00ms 100 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 db server/100\n"
"Total: 1 processes, 2 lwps, load averages: 1.00, 2.50, 10.00\n",
		       "-yL -p 100 -n 2: that process's top two calls");
		free(out);

		/* -s calls: write 100, other 3, then 2: mmap... no: 102
		 * mmap 3 (pid 100 tid 102) after 100 other 3 (tid 100). */
		o.ntop = 3;
		o.sort_key = sort_key_lookup("calls", VIEW_CALLS, why,
					     sizeof(why));
		out = calls_report(a, b, ca, cb, &o);
		is_str(out, HDR_CL
"   100 write             10   100 1.00ms 5.00ms 100 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 db server/100\n"
"   100 other            6.0     3 20.0ms  100ms  17 0.0 0.0 0.0 0.0 0.0  83 0.0 0.0 db server/100\n"
"   100 mmap             4.0     3 6.66ms 12.0ms  25 0.0  25  50 0.0 0.0 0.0 0.0 0.0 db worker/102\n"
"Total: 1 processes, 2 lwps, load averages: 1.00, 2.50, 10.00\n",
		       "-y -s calls sorts by the number of calls");
		free(out);

		/* -s iow: IOW time, percent of elapsed: other 50 ms,
		 * read 40 ms. */
		o.ntop = 2;
		o.sort_key = sort_key_lookup("iow", VIEW_CALLS, why,
					     sizeof(why));
		out = calls_report(a, b, ca, cb, &o);
		is_str(out, HDR_CL
"   100 other            6.0     3 20.0ms  100ms  17 0.0 0.0 0.0 0.0 0.0  83 0.0 0.0 db server/100\n"
"   100 read             5.0     1 50.0ms 50.0ms  20 0.0 0.0 0.0 0.0 0.0  80 0.0 0.0 db server/100\n"
"Total: 1 processes, 2 lwps, load averages: 1.00, 2.50, 10.00\n",
		       "-y -s iow sorts by time in IOW");
		free(out);

		/* -S max: the shortest longest first. */
		o.sort_key = sort_key_lookup("max", VIEW_CALLS, why,
					     sizeof(why));
		o.sort_order = 1;
		out = calls_report(a, b, ca, cb, &o);
		is_str(out, HDR_CL
"   100 write             10   100 1.00ms 5.00ms 100 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 db server/100\n"
"   100 futex            2.0     1 10.0ms 10.0ms 100 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 db worker/102\n"
"Total: 1 processes, 2 lwps, load averages: 1.00, 2.50, 10.00\n",
		       "-y -S max sorts ascending by the longest");
		free(out);
	}
	is_long(sort_key_lookup("cpu", VIEW_CALLS, why, sizeof(why)), -1,
		"sort key cpu is refused in the syscalls view");
	ok(strstr(why, "syscalls view") != NULL, "... naming the view: %s",
	   why);
	is_long(sort_key_lookup("avg", VIEW_SOLARIS, why, sizeof(why)), -1,
		"sort key avg is refused in the -m view");

	/* JSON: the same numbers. */
	opts_init(&o, VIEW_CALLS, 0);
	o.json = 1;
	out = calls_report(a, b, ca, cb, &o);
	ok(strstr(out, "\"pid\":300,\"nlwp\":2,") &&
	   strstr(out, "\"call\":\"epoll_wait\",\"other\":false,\"calls\":0,"
		  "\"ns\":100000000,\"pct\":5.000,\"avg_ns\":null,"
		  "\"max_ns\":5100000000,\"total_calls\":1,"
		  "\"total_ns\":5100000000,\"states\":{\"SYS\":{\"ns\":0,"),
	   "JSON -y: a call's interval numbers, null average, lifetime "
	   "totals");
	ok(strstr(out, "\"pid\":100,\"nlwp\":2,") &&
	   strstr(out, "\"call\":\"read\",\"other\":false,\"calls\":1,"
		  "\"ns\":50000000,\"pct\":2.500,\"avg_ns\":50000000,"
		  "\"max_ns\":150000000,\"total_calls\":3,"
		  "\"total_ns\":250000000,") &&
	   strstr(out, "\"IOW\":{\"ns\":40000000,\"pct\":80.000}") &&
	   strstr(out, "\"split\":{\"SYS\":20.000,\"LAT\":0.000,"
		  "\"FLT\":0.000,\"APG\":0.000,\"LCK\":0.000,\"KLK\":0.000,"
		  "\"IOW\":80.000,\"IDL\":0.000,\"SLP\":0.000}}"),
	   "JSON -y: states as ns and percent of the call, and the split");
	ok(strstr(out, "\"call\":\"other\",\"other\":true,\"calls\":3,") &&
	   !strstr(out, "\"USR\""),
	   "JSON -y: the other row is marked; no USR state");
	{
		int lines = 0;
		char *p;

		for (p = out; *p; p++)
			lines += *p == '\n';
		is_long(lines, 9, "JSON -y: one object per line of the table");
	}
	free(out);

	free(a);
	free(b);
	free(ca);
	free(cb);
}

/*
 * The calls file is read a little after /proc/tsa/all: its threads have
 * lived that much longer.  pid 7's two threads sleep all through, one in
 * clock_nanosleep, one in a read of a pipe; /proc/tsa/all is read at
 * 10 s and 11 s, /proc/tsa/calls 1 ms and 3 ms after.  Each call took
 * 1.002 s of the 1.002 s between the calls reads: 100 %, not 100.2;
 * the process 2.004 s of 2.004 s.
 */
static void test_calls_gap(void)
{
	static const char *const all[2] = {
		"tsa-all 1\nnow 10000000000\nfields tid pid flags elapsed comm\n"
		"7 7 0 5000000000 a\n8 7 0 5000000000 b\n",
		"tsa-all 1\nnow 11000000000\nfields tid pid flags elapsed comm\n"
		"7 7 0 6000000000 a\n8 7 0 6000000000 b\n",
	};
	static const char *const calls[2] = {
		"tsa-calls 1\nnow 10001000000\nfields tid pid flags elapsed at "
		"call calls ns max slp_ns idl_ns\n"
		"7 7 0 5001000000 10001000000 clock_nanosleep 1 5001000000 "
		"5001000000 5001000000 0\n"
		"8 7 0 5001000000 10001000000 read 1 5001000000 5001000000 "
		"0 5001000000\n",
		"tsa-calls 1\nnow 11003000000\nfields tid pid flags elapsed at "
		"call calls ns max slp_ns idl_ns\n"
		"7 7 0 6003000000 11003000000 clock_nanosleep 1 6003000000 "
		"6003000000 6003000000 0\n"
		"8 7 0 6003000000 11003000000 read 1 6003000000 6003000000 "
		"0 6003000000\n",
	};
	struct show o;
	char *out;

	opts_init(&o, VIEW_CALLS, 1);
	o.json = 1;
	out = calls_report(all[0], all[1], calls[0], calls[1], &o);
	ok(strstr(out, "\"tid\":7,") &&
	   strstr(out, "\"elapsed_ns\":1002000000,\"call\":\"clock_nanosleep\","
		  "\"other\":false,\"calls\":0,\"ns\":1002000000,"
		  "\"pct\":100.000,\"avg_ns\":null,") &&
	   strstr(out, "\"elapsed_ns\":1002000000,\"call\":\"read\",\"other\""
		  ":false,\"calls\":0,\"ns\":1002000000,\"pct\":100.000,"),
	   "calls: -yL divides by the thread's elapsed time between the "
	   "calls reads (1.002 s), not the all reads' (1 s)");
	free(out);
	opts_init(&o, VIEW_CALLS, 0);
	o.json = 1;
	out = calls_report(all[0], all[1], calls[0], calls[1], &o);
	ok(strstr(out, "\"nlwp\":2,") &&
	   strstr(out, "\"elapsed_ns\":2004000000,\"call\":\"clock_nanosleep\""
		  ",\"other\":false,\"calls\":0,\"ns\":1002000000,"
		  "\"pct\":50.000,"),
	   "calls: -y divides by the process's threads' elapsed time "
	   "between the calls reads (2.004 s)");
	free(out);
	/* First report: lifetimes as of the calls read: 5.001 s. */
	opts_init(&o, VIEW_CALLS, 1);
	o.json = 1;
	out = calls_report(NULL, all[0], NULL, calls[0], &o);
	ok(strstr(out, "\"elapsed_ns\":5001000000,\"call\":\"clock_nanosleep\""
		  ",\"other\":false,\"calls\":1,\"ns\":5001000000,"
		  "\"pct\":100.000,") != NULL,
	   "calls: a first report divides by the lifetime as of the calls "
	   "read");
	free(out);
}

/*
 * A model of the module's call tables (tsa_calls.c: bounded rows, the
 * least row evicted to other, the merge into a process's exited-threads
 * table, a call in progress folded into the reader's copy, a call
 * entered before tracking that has no name until it returns), driven at
 * random; at every read, each thread's and each process's call lines
 * must add up, column by column, to exactly what its rows and other
 * grew by (or hold, for a line without an earlier sample).
 */
#define SIM_ROWS	2
#define SIM_THREADS	12
#define SIM_PROCS	3
#define SIM_UNKNOWN	(-2)
#define SIM_OTHER	(-1)

/* A row's columns that add up: calls, the states, then rest. */
#define SIM_NCOMP	(TSA_NSTATES + 2)

static uint64_t sim_comp(const struct tsa_cvec *v, int k)
{
	return k == 0 ? v->calls : k <= TSA_NSTATES ? v->st[k - 1] : v->rest;
}

static void sim_add(struct tsa_cvec *a, const struct tsa_cvec *b)
{
	int s;

	a->calls += b->calls;
	a->ns += b->ns;
	a->rest += b->rest;
	for (s = 0; s < TSA_NSTATES; s++)
		a->st[s] += b->st[s];
	if (b->max > a->max)
		a->max = b->max;
}

struct simrow {
	int key;
	struct tsa_cvec v;
};

struct simtab {
	int n;
	struct simrow row[SIM_ROWS];
	struct tsa_cvec other;
};

struct simthr {
	int live;
	uint64_t tid, pid, birth;
	struct simtab t;
	int in_call, key;
	struct tsa_cvec cur;
};

static const char *const sim_name[] = {
	"read", "write", "futex", "poll", "mmap", "ia32:read", "#451",
};
#define SIM_NAMES	((int)(sizeof(sim_name) / sizeof(sim_name[0])))

static unsigned long sim_seed = 1;

static unsigned sim_rand(unsigned n)
{
	sim_seed = sim_seed * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)(sim_seed >> 33) % n;
}

/* tsa_calls_row(): the row of @key, or other. */
static struct tsa_cvec *sim_row(struct simtab *t, int key, uint64_t ns,
				int take)
{
	int i, least = 0;

	if (key < 0)
		return &t->other;
	for (i = 0; i < t->n; i++)
		if (t->row[i].key == key)
			return &t->row[i].v;
	if (t->n < SIM_ROWS) {
		memset(&t->row[t->n], 0, sizeof(t->row[0]));
		t->row[t->n].key = key;
		return &t->row[t->n++].v;
	}
	for (i = 1; i < t->n; i++)
		if (t->row[i].v.ns < t->row[least].v.ns)
			least = i;
	if (!take && t->row[least].v.ns >= ns)
		return &t->other;
	sim_add(&t->other, &t->row[least].v);
	memset(&t->row[least], 0, sizeof(t->row[0]));
	t->row[least].key = key;
	return &t->row[least].v;
}

/* tsa_calls_fold(): the call in progress into its row. */
static void sim_fold(struct simtab *t, int key, const struct tsa_cvec *c,
		     int count)
{
	struct tsa_cvec *r;

	if (key == SIM_UNKNOWN && !c->ns)
		return;
	r = sim_row(t, key, c->ns, 1);
	r->calls += count;
	sim_add(r, c);
	if (c->ns > r->max)
		r->max = c->ns;
}

static void sim_merge(struct simtab *to, const struct simtab *from)
{
	int i;

	for (i = 0; i < from->n; i++)
		sim_add(sim_row(to, from->row[i].key, from->row[i].v.ns, 0),
		     &from->row[i].v);
	sim_add(&to->other, &from->other);
}

static uint64_t sim_total(const struct simtab *t, int k)
{
	uint64_t x = sim_comp(&t->other, k);
	int i;

	for (i = 0; i < t->n; i++)
		x += sim_comp(&t->row[i].v, k);
	return x;
}

static void sim_print_tab(FILE *f, const struct simtab *t, uint64_t tid,
			  uint64_t pid, uint64_t flags, uint64_t el,
			  uint64_t now)
{
	static const int order[] = { S_SYS, S_TRP, S_TFL, S_DFL, S_KFL,
		S_APG, S_LCK, S_KLK, S_IOW, S_IDL, S_SLP, S_LAT, S_STP };
	int i, s;

	for (i = 0; i <= t->n; i++) {
		const struct tsa_cvec *v = i < t->n ? &t->row[i].v : &t->other;

		if (!v->calls && !v->ns)
			continue;
		fprintf(f, "%llu %llu 0 %llu %llu %llu %s %llu %llu %llu",
			(unsigned long long)tid, (unsigned long long)pid,
			(unsigned long long)flags, (unsigned long long)el,
			(unsigned long long)now,
			i < t->n ? sim_name[t->row[i].key] : "other",
			(unsigned long long)v->calls,
			(unsigned long long)v->ns, (unsigned long long)v->max);
		for (s = 0; s < 13; s++)
			fprintf(f, " %llu", (unsigned long long)v->st[order[s]]);
		fputc('\n', f);
	}
}

struct simstate {
	struct simthr th[SIM_THREADS];
	struct simtab totals[SIM_PROCS];
	uint64_t exited_el[SIM_PROCS];
	uint64_t now, next_tid;
};

/* The reader's copy of thread @t: its table with its call folded in. */
static void sim_copy(const struct simthr *t, struct simtab *c)
{
	*c = t->t;
	if (t->in_call)
		sim_fold(c, t->key, &t->cur, 1);
}

/* Both files at this moment, and each entity's true sums. */
static void sim_snap(struct simstate *m, char **all, char **calls,
		     uint64_t tsum[SIM_THREADS][SIM_NCOMP],
		     uint64_t psum[SIM_PROCS][SIM_NCOMP])
{
	FILE *fa, *fc;
	size_t la, lc;
	int p, i, k;

	fa = open_memstream(all, &la);
	fc = open_memstream(calls, &lc);
	fprintf(fa, "tsa-all 1\nnow %llu\nfields tid pid flags elapsed at "
		"comm\n", (unsigned long long)m->now);
	fprintf(fc, "tsa-calls 1\nnow %llu\nrows %d\nfields tid pid uid flags "
		"elapsed at call calls ns max sys_ns trp_ns tfl_ns dfl_ns "
		"kfl_ns apg_ns lck_ns klk_ns iow_ns idl_ns slp_ns lat_ns "
		"stp_ns\n", (unsigned long long)m->now, SIM_ROWS);
	memset(psum, 0, sizeof(uint64_t) * SIM_PROCS * SIM_NCOMP);
	for (p = 0; p < SIM_PROCS; p++) {
		uint64_t pid = 1000 + (uint64_t)p;

		for (i = 0; i < SIM_THREADS; i++) {
			struct simthr *t = &m->th[i];
			struct simtab c;

			if (!t->live || t->pid != pid)
				continue;
			sim_copy(t, &c);
			fprintf(fa, "%llu %llu 0 %llu %llu t\n",
				(unsigned long long)t->tid,
				(unsigned long long)pid,
				(unsigned long long)(m->now - t->birth),
				(unsigned long long)m->now);
			sim_print_tab(fc, &c, t->tid, pid, 0,
				      m->now - t->birth, m->now);
			for (k = 0; k < SIM_NCOMP; k++) {
				tsum[i][k] = sim_total(&c, k);
				psum[p][k] += tsum[i][k];
			}
		}
		fprintf(fa, "0 %llu 4 %llu %llu t\n", (unsigned long long)pid,
			(unsigned long long)m->exited_el[p],
			(unsigned long long)m->now);
		sim_print_tab(fc, &m->totals[p], 0, pid, 4, m->exited_el[p],
			      m->now);
		for (k = 0; k < SIM_NCOMP; k++)
			psum[p][k] += sim_total(&m->totals[p], k);
	}
	fclose(fa);
	fclose(fc);
}

/* A thread is born in slot @t; half the time it reuses the tid of the
 * slot's last thread (when that one was not a leader). */
static void sim_birth(struct simstate *m, struct simthr *t, uint64_t pid,
		      int in_unknown)
{
	uint64_t old = t->tid;

	memset(t, 0, sizeof(*t));
	t->live = 1;
	t->pid = pid;
	t->tid = t == &m->th[pid - 1000] ? pid :
		 old >= 2000 && sim_rand(2) ? old : m->next_tid++;
	t->birth = m->now;
	t->in_call = in_unknown;
	t->key = SIM_UNKNOWN;
}

static void sim_step(struct simstate *m)
{
	static const int st[] = { S_SYS, S_LCK, S_IDL, S_IOW, S_LAT };
	struct simthr *t = &m->th[sim_rand(SIM_THREADS)];
	unsigned r = sim_rand(100);

	m->now += 1 + sim_rand(1000);
	if (!t->live) {
		if (r < 30)
			sim_birth(m, t, 1000 + (uint64_t)sim_rand(SIM_PROCS),
				  0);
		return;
	}
	if (r < 4 && t->tid != t->pid) {	/* exit, through the hand-over */
		int p = (int)(t->pid - 1000);

		if (t->in_call)
			sim_fold(&t->t, t->key, &t->cur, 1);
		sim_merge(&m->totals[p], &t->t);
		m->exited_el[p] += m->now - t->birth;
		t->live = 0;
		return;
	}
	if (!t->in_call) {
		t->in_call = 1;
		t->key = (int)sim_rand(SIM_NAMES);
		memset(&t->cur, 0, sizeof(t->cur));
		return;
	}
	if (r < 60) {	/* more time in the call */
		uint64_t ns = 1 + sim_rand(100000);

		t->cur.st[st[sim_rand(5)]] += ns;
		t->cur.ns += ns;
		return;
	}
	if (t->key == SIM_UNKNOWN)		/* named at its return */
		t->key = (int)sim_rand(SIM_NAMES);
	sim_fold(&t->t, t->key, &t->cur, 1);
	t->in_call = 0;
}

static void test_calls_model(void)
{
	static struct simstate m;
	uint64_t tsum[2][SIM_THREADS][SIM_NCOMP], psum[2][SIM_PROCS][SIM_NCOMP];
	char *all[2] = { NULL, NULL }, *calls[2] = { NULL, NULL };
	long bad_l = 0, bad_p = 0, lines = 0, moved = 0;
	int round, i, p, k, cur = 0;

	memset(&m, 0, sizeof(m));
	m.now = 1000000;
	m.next_tid = 2000;
	for (p = 0; p < SIM_PROCS; p++)
		sim_birth(&m, &m.th[p], 1000 + (uint64_t)p, 1);
	for (i = SIM_PROCS; i < SIM_THREADS; i++)
		sim_birth(&m, &m.th[i], 1000 + (uint64_t)(i % SIM_PROCS),
			  i % 2);
	for (round = 0; round < 400; round++) {
		struct show o;
		int lwps;

		for (i = 0; i < 40; i++)
			sim_step(&m);
		free(all[cur]);
		free(calls[cur]);
		sim_snap(&m, &all[cur], &calls[cur], tsum[cur], psum[cur]);
		for (lwps = 0; lwps < 2; lwps++) {
			struct tsa_snap a = { 0 }, b = { 0 };
			struct tsa_calls_snap ca = { 0 }, cb = { 0 };
			struct tsa_select sel = { lwps, 1, NULL, 0 };
			struct tsa_delta *d = NULL;
			struct tsa_call_line *l = NULL;
			struct tsa_totals tot;
			size_t cap = 0, lcap = 0, n, j, w;
			int first = round == 0;

			opts_init(&o, VIEW_CALLS, lwps);
			if (!first) {
				load(&a, all[!cur]);
				cload(&ca, calls[!cur]);
			}
			load(&b, all[cur]);
			cload(&cb, calls[cur]);
			n = tsa_delta_compute(first ? NULL : &a, &b, &sel, &d,
					      &cap, &tot);
			w = n;
			n = tsa_calls_compute(first ? NULL : &a, &b,
					      first ? NULL : &ca, &cb, &sel, d,
					      w, &l, &lcap);
			lines += (long)n;
			for (j = 0; j < w; j++) {
				uint64_t got[SIM_NCOMP] = { 0 }, want[SIM_NCOMP];
				const uint64_t *now, *then = NULL;
				size_t x;

				if (lwps) {
					for (i = 0; i < SIM_THREADS; i++)
						if (m.th[i].live &&
						    m.th[i].tid == d[j].id)
							break;
					now = tsum[cur][i];
					if (!d[j].first)
						then = tsum[!cur][i];
				} else {
					p = (int)(d[j].pid - 1000);
					now = psum[cur][p];
					if (!d[j].first)
						then = psum[!cur][p];
				}
				for (k = 0; k < SIM_NCOMP; k++)
					want[k] = now[k] - (then ? then[k] : 0);
				for (x = 0; x < n; x++) {
					if (l[x].who != &d[j])
						continue;
					for (k = 0; k < SIM_NCOMP; k++)
						got[k] += sim_comp(&l[x].d, k);
					moved += l[x].other;
				}
				if (memcmp(got, want, sizeof(got))) {
					if (lwps)
						bad_l++;
					else
						bad_p++;
					if (bad_l + bad_p < 4)
						printf("# round %d %s %llu: "
						       "calls %llu want %llu, "
						       "SYS %llu want %llu\n",
						       round, lwps ? "tid" :
						       "pid",
						       (unsigned long long)
						       d[j].id,
						       (unsigned long long)
						       got[0],
						       (unsigned long long)
						       want[0],
						       (unsigned long long)
						       got[1 + S_SYS],
						       (unsigned long long)
						       want[1 + S_SYS]);
				}
			}
			free(d);
			free(l);
			tsa_snap_free(&a);
			tsa_snap_free(&b);
			tsa_calls_free(&ca);
			tsa_calls_free(&cb);
		}
		/* Thread sums are kept by slot: a slot that holds a new
		 * thread now is one tsa_delta_compute calls first. */
		cur = !cur;
	}
	printf("# model: 400 reads, %ld call lines, %ld of them other\n",
	       lines, moved);
	is_long(bad_l, 0, "calls model: every thread's lines add up to its "
		"calls' growth, column by column, at every read");
	is_long(bad_p, 0, "calls model: every process's lines add up to its "
		"calls' growth (live and exited threads), column by column");
	free(all[0]);
	free(all[1]);
	free(calls[0]);
	free(calls[1]);
}

/* ---- groups and the metrics export (--prometheus, --openmetrics) ------ */

static void test_fold_escape(void)
{
	static const struct { const char *in, *want; } t[] = {
		{ "worker-0", "worker-{N}" }, { "worker-12", "worker-{N}" },
		{ "kworker/3:1H", "kworker/3:1H" }, { "42", "{N}" },
		{ "db server", "db server" }, { "", "" },
		{ "pool2-7", "pool2-{N}" },
	};
	char out[64], *buf;
	size_t i, len;
	FILE *f;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		fold_comm(out, sizeof(out), t[i].in);
		is_str(out, t[i].want, "fold_comm(\"%s\") is \"%s\"", t[i].in,
		       t[i].want);
	}
	f = open_memstream(&buf, &len);
	metrics_label_value(f, "a\"b\\c\nd\te\xff" "f\xc3\xa9" "g\xed\xa0\x80");
	fclose(f);
	is_str(buf, "a\\\"b\\\\c\\nd\xef\xbf\xbd" "e\xef\xbf\xbd" "f\xc3\xa9"
	       "g\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
	       "label values: \\ \" and newline escaped; other control bytes, "
	       "invalid UTF-8 and surrogates are U+FFFD; UTF-8 kept");
	free(buf);
	is_long(group_by_lookup("cgroup"), GROUP_CGROUP, "--group cgroup");
	is_long(group_by_lookup("tid"), -1, "--group tid is not a group");
}

/* The export of snapshot B grouped by @by, as text. */
static char *export_b(enum group_by by, enum metrics_format fmt,
		      const char *procfs)
{
	struct tsa_snap s = { 0 };
	struct group_table t = { 0 };
	char *text = snap_b(), *out;
	size_t n, len;
	FILE *f;

	load(&s, text);
	n = group_compute(&s, by, NULL, 0, procfs, NULL, &t, NULL);
	f = open_memstream(&out, &len);
	metrics_print(f, fmt, by, t.g, n, NULL, (struct tsa_hbounds){ 0 });
	fclose(f);
	group_table_free(&t);
	tsa_snap_free(&s);
	free(text);
	return out;
}

static void test_metrics_lib(void)
{
	char *out, procfs[300], path[400];

	/*
	 * Per process, snapshot B.  pid 100 = exited line + tids 100, 102:
	 * USR 0.5 + 1.5 + 0.05 = 2.05 s; LCK 1.25 (exited tid 101 only);
	 * elapsed 3.5 + 5 + 0.5 = 9 s; VCX 28 + 1510 + 1234 = 2772;
	 * SCL 60 + 100100 + 99999 = 200159; threads 2 (live).
	 * pid 300 = exited 301 (5.2 s SLP) + 300 (6 s SLP) + new 301
	 * (USR 0.2, SLP 0.6): SLP 11.8 s.  pid 400 has no live thread.
	 */
	out = export_b(GROUP_PID, METRICS_PROMETHEUS, "/nonexistent");
	ok(has_line(out, "# TYPE tsa_process_state_seconds_total counter"),
	   "prometheus: TYPE names the samples' family, with _total");
	ok(has_line(out, "tsa_process_state_seconds_total{pid=\"100\","
		    "comm=\"db server\",user=\"root\",state=\"USR\"} "
		    "2.050000000"),
	   "pid 100 USR: 0.5 exited + 1.5 + 0.05 = 2.05 s");
	ok(has_line(out, "tsa_process_state_seconds_total{pid=\"100\","
		    "comm=\"db server\",user=\"root\",state=\"LCK\"} "
		    "1.250000000"),
	   "pid 100 LCK: the exited thread's 1.25 s counts");
	ok(has_line(out, "tsa_process_elapsed_seconds_total{pid=\"100\","
		    "comm=\"db server\",user=\"root\"} 9.000000000"),
	   "pid 100 elapsed: 3.5 + 5 + 0.5 = 9 s");
	ok(has_line(out, "tsa_process_context_switches_total{pid=\"100\","
		    "comm=\"db server\",user=\"root\",kind=\"voluntary\"} "
		    "2772"), "pid 100 VCX: 28 + 1510 + 1234");
	ok(has_line(out, "tsa_process_syscalls_total{pid=\"100\","
		    "comm=\"db server\",user=\"root\"} 200159"),
	   "pid 100 SCL: 60 + 100100 + 99999");
	ok(has_line(out, "tsa_process_threads{pid=\"100\",comm=\"db server\","
		    "user=\"root\"} 2"), "pid 100: 2 live threads");
	ok(has_line(out, "tsa_process_state_seconds_total{pid=\"300\","
		    "comm=\"sleeper\",user=\"root\",state=\"SLP\"} "
		    "11.800000000"),
	   "pid 300 SLP: 5.2 exited + 6 + 0.6 (a reused tid is new) = 11.8 s");
	ok(has_line(out, "tsa_process_state_seconds_total{pid=\"200\","
		    "comm=\"spin\",user=\"4000000\",state=\"USR\"} "
		    "1.500000000"), "pid 200 USR 1.5 s, user without a name");
	ok(!strstr(out, "pid=\"400\""),
	   "a process without a live thread is not exported (as prstat)");
	ok(!strstr(out, "# EOF") && !strstr(out, "# UNIT"),
	   "prometheus: no # EOF, no # UNIT");
	ok(!strstr(out, "processes{"), "per process: no processes gauge");
	free(out);

	out = export_b(GROUP_PID, METRICS_OPENMETRICS, "/nonexistent");
	ok(has_line(out, "# TYPE tsa_process_state_seconds counter") &&
	   has_line(out, "# UNIT tsa_process_state_seconds seconds"),
	   "openmetrics: TYPE and UNIT name the family without _total");
	ok(strlen(out) > 6 && !strcmp(out + strlen(out) - 6, "# EOF\n"),
	   "openmetrics: ends with # EOF");
	free(out);

	/*
	 * By thread name: "db server" = tid 100 + pid 100's exited line
	 * (its name is the process's): USR 1.5 + 0.5 = 2 s; "db worker"
	 * = tid 102 alone: USR 0.05 s; "sleeper": 2 processes? no: pid
	 * 300 only, 2 live threads.
	 */
	out = export_b(GROUP_COMM, METRICS_PROMETHEUS, "/nonexistent");
	ok(has_line(out, "tsa_threadname_state_seconds_total{comm="
		    "\"db server\",state=\"USR\"} 2.000000000"),
	   "by comm: db server = tid 100 and the exited threads: 2 s USR");
	ok(has_line(out, "tsa_threadname_state_seconds_total{comm="
		    "\"db worker\",state=\"USR\"} 0.050000000"),
	   "by comm: db worker = tid 102: 0.05 s USR");
	ok(has_line(out, "tsa_threadname_threads{comm=\"sleeper\"} 2") &&
	   has_line(out, "tsa_threadname_processes{comm=\"sleeper\"} 1"),
	   "by comm: sleeper has 2 live threads of 1 process");
	free(out);

	/* By user: root = pids 100 and 300; USR 2.05 + 0.2 = 2.25 s. */
	out = export_b(GROUP_USER, METRICS_PROMETHEUS, "/nonexistent");
	ok(has_line(out, "tsa_user_state_seconds_total{user=\"root\","
		    "state=\"USR\"} 2.250000000") &&
	   has_line(out, "tsa_user_processes{user=\"root\"} 2"),
	   "by user: root = pids 100 and 300, USR 2.05 + 0.2 s");
	free(out);

	/*
	 * By cgroup, from a fake /proc: 100 in /db.slice (v2 line after
	 * a v1 one), 200 in /db.slice too, 300 without a file: "?".
	 */
	snprintf(procfs, sizeof(procfs), "%s", mkdir_in_tmp("procfs"));
	snprintf(path, sizeof(path), "%s/100", procfs);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/100/cgroup", procfs);
	put(path, "12:cpu,cpuacct:/old\n0::/db.slice\n");
	snprintf(path, sizeof(path), "%s/200", procfs);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/200/cgroup", procfs);
	put(path, "0::/db.slice\n");
	out = export_b(GROUP_CGROUP, METRICS_PROMETHEUS, procfs);
	ok(has_line(out, "tsa_cgroup_state_seconds_total{cgroup=\"/db.slice\","
		    "state=\"USR\"} 3.550000000"),
	   "by cgroup: /db.slice = pids 100 and 200, USR 2.05 + 1.5 s");
	ok(has_line(out, "tsa_cgroup_state_seconds_total{cgroup=\"?\","
		    "state=\"SLP\"} 11.800000000"),
	   "by cgroup: pid 300 without a cgroup file is in \"?\"");
	ok(has_line(out, "tsa_cgroup_threads{cgroup=\"/db.slice\"} 3"),
	   "by cgroup: /db.slice has 3 live threads");
	free(out);
}

/* One group report of @cur against @prev (NULL: first), as text. */
static char *group_report_text(const char *prev, const char *cur,
			       enum group_by by, const struct show *o,
			       const char *procfs)
{
	static const double la[3] = { 1.0, 2.5, 10.0 };
	struct tsa_snap a = { 0 }, b = { 0 };
	struct tsa_select sel = { 0, 1, o->pids, o->npids };
	struct group_report r = { 0 };
	struct tsa_totals tot;
	char *out;
	size_t n, len;
	FILE *f;

	if (prev)
		load(&a, prev);
	load(&b, cur);
	n = group_report_compute(&r, prev ? &a : NULL, &b, by, &sel, procfs,
				 &tot);
	sort_lines(r.d, n, o->sort_key, o->sort_order);
	f = open_memstream(&out, &len);
	if (o->json)
		json_print_groups(f, by, &b, &r, r.d, n);
	else
		group_table_print(f, o, by, &r, r.d, n, &tot, la);
	fclose(f);
	group_report_free(&r);
	tsa_snap_free(&a);
	tsa_snap_free(&b);
	return out;
}

static void test_group_report(void)
{
	char *a = snap_a(), *b = snap_b(), *out, procfs[300];
	struct show o;

	/*
	 * By user, A -> B (1 s).  Process intervals (exited threads in):
	 * pid 100: 2 s = USR .55 SYS .1 TFL .04975 DFL .0497 APG .1
	 *   LCK .25 KLK .1 IOW .1 IDL .1 SLP .30075 LAT .2998;
	 *   VCX 2772 - 33, ICX 1007 - 7, SCL 200159 - 150, SIG 2 - 1.
	 * pid 300: 2 s = USR .2 SLP 1.8 (its tid 301 reused); VCX 5.
	 * root = both, 4 s: USR .75 = 18.75 %, SYS 2.5 %, TFL 1.24 %,
	 * DFL+APG 3.74 %, LCK 6.25 %, SLP+KLK+IOW+IDL 2.40075 = 60.0 %,
	 * LAT 7.495 %; VCX 2744, ICX 1000, SCL 200009, SIG 1.
	 * 4000000 = pid 200: USR 50 LAT 50, ICX 1000000.
	 */
	opts_init(&o, VIEW_SOLARIS, 0);
	out = group_report_text(a, b, GROUP_USER, &o, "/nonexistent");
	is_str(out,
	       " NPROC  NLWP USR SYS TRP TFL DFL LCK SLP LAT  VCX  ICX  SCL  SIG "
	       "USERNAME\n"
	       "     1     1  50 0.0 0.0 0.0 0.0 0.0 0.0  50    0 1.0M    0    0 "
	       "4000000\n"
	       "     2     4  19 2.5 0.0 1.2 3.7 6.2  60 7.5 2744 1000 200K    1 "
	       "root\n"
	       "Total: 3 processes, 5 lwps, load averages: 1.00, 2.50, "
	       "10.00\n",
	       "--group user: the processes' intervals summed, exited "
	       "threads included (numbers by hand)");
	free(out);

	/*
	 * By thread name, A -> B.  Live threads: "db server" tid 100 1 s
	 * (USR .5 SYS .1 APG .1 KLK .1 IOW .1 IDL .1), "db worker" tid 102
	 * born: .5 s, "sleeper" 300 (1 s SLP) and the reused 301 (.8 s:
	 * USR .2 SLP .6).  What the processes had besides: pid 100's
	 * exited tid 101, its last .5 s (LCK .25 LAT .25), to "db server"
	 * (the process's name); pid 300's exited 301, its last .2 s SLP,
	 * to "sleeper".  db server: 1.5 s = USR 33.3 SYS 6.7 DFL 6.7
	 * LCK 16.7 SLP 20 LAT 16.7.  sleeper: 2 s = USR 10 SLP 90.
	 */
	o.view = VIEW_SOLARIS;
	o.sort_key = sort_key_lookup("slp", VIEW_SOLARIS, NULL, 0);
	out = group_report_text(a, b, GROUP_COMM, &o, "/nonexistent");
	is_str(out,
	       " NPROC  NLWP USR SYS TRP TFL DFL LCK SLP LAT  VCX  ICX  SCL  SIG "
	       "THREADNAME\n"
	       "     1     2  10 0.0 0.0 0.0 0.0 0.0  90 0.0    5    0    0    0 "
	       "sleeper\n"
	       "     1     1  10 0.0 0.0  10 9.9 0.0  60  10 1234    0 100K    0 "
	       "db worker\n"
	       "     1     1  33 6.7 0.0 0.0 6.7  17  20  17 1505 1000 100K    1 "
	       "db server\n"
	       "     1     1  50 0.0 0.0 0.0 0.0 0.0 0.0  50    0 1.0M    0    0 "
	       "spin\n"
	       "Total: 3 processes, 5 lwps, load averages: 1.00, 2.50, "
	       "10.00\n",
	       "--group comm -s slp: an exited thread's last interval counts "
	       "in its process's name (numbers by hand)");
	free(out);

	/* The TSA view of the same: EXEC RUN APG SLP LCK IDL STP. */
	opts_init(&o, VIEW_TSA, 0);
	out = group_report_text(a, b, GROUP_COMM, &o, "/nonexistent");
	ok(strstr(out, " NPROC  NLWP EXEC  RUN  APG  SLP  LCK  IDL  STP "
		  "THREADNAME\n") &&
	   strstr(out, "     1     1   40   17  6.7  6.7   23  6.7  0.0 "
		  "db server\n"),
	   "--group comm -A: db server EXEC .6/1.5, RUN .25, APG .1, "
	   "SLP .1 (IOW), LCK .35, IDL .1");
	free(out);

	/*
	 * By cgroup, through the cache: A reads 100, 200, 300; then pid
	 * 100 moves (its file changes) and pid 200 is a new process with
	 * the same pid in another cgroup.  B: 100 stays in /db.slice
	 * (read once per process), 200 is read again (/other), 300 has
	 * no file ("?").
	 */
	snprintf(procfs, sizeof(procfs), "%s", mkdir_in_tmp("procfs2"));
	put_cgroup(procfs, 100, "0::/db.slice\n");
	put_cgroup(procfs, 200, "0::/db.slice\n");
	{
		struct tsa_snap sa = { 0 }, sb = { 0 }, sc = { 0 };
		struct tsa_select sel = { 0, 1, NULL, 0 };
		struct group_report r = { 0 };
		struct tsa_totals tot;
		struct fx c[] = {
			{ 100, 100, 0, 0, MS(6000), S_SLP,
			  { [S_USR] = MS(1000), [S_SYS] = MS(1000),
			    [S_SLP] = MS(4000) }, 0, 0, 0, 0, "db server" },
			/* pid 200 again, born 0.5 s before C (12 s) */
			{ 200, 200, 0, 0, MS(500), S_USR,
			  { [S_USR] = MS(500) }, 0, 0, 0, 0, "spin2" },
		};
		char *ctext = snapshot(MS(12000), c, 2);
		size_t n, i;
		long g;

		load(&sa, a);
		load(&sb, b);
		load(&sc, ctext);
		n = group_report_compute(&r, NULL, &sa, GROUP_CGROUP, &sel,
					 procfs, &tot);
		is_long((long)n, 2, "cgroups of A: /db.slice and ?");
		is_long((long)r.cc.reads, 3, "A: three processes read");
		put_cgroup(procfs, 100, "0::/moved.slice\n");
		put_cgroup(procfs, 200, "0::/other.slice\n");
		n = group_report_compute(&r, &sa, &sb, GROUP_CGROUP, &sel,
					 procfs, &tot);
		is_long((long)r.cc.reads, 3, "B: the same processes, no read");
		g = group_find(&r.t, "/db.slice");
		ok(g >= 0 && r.t.g[g].nprocs == 2,
		   "B: pids 100 and 200 still in /db.slice (cached)");
		for (i = 0; g >= 0 && i < n && r.d[i].id != (uint64_t)g; i++)
			;
		ok(g >= 0 && i < n && r.d[i].elapsed == MS(3000) &&
		   r.d[i].ns[S_USR] == MS(1050),
		   "B: /db.slice's interval: pid 100 2 s + pid 200 1 s, "
		   "USR .55 + .5");
		n = group_report_compute(&r, &sb, &sc, GROUP_CGROUP, &sel,
					 procfs, &tot);
		is_long((long)r.cc.reads, 4, "C: the new pid 200 is read "
			"again");
		ok(group_find(&r.t, "/other.slice") >= 0 &&
		   group_find(&r.t, "/db.slice") >= 0 &&
		   group_find(&r.t, "?") < 0,
		   "C: the reused pid 200 in /other.slice, 100 still in "
		   "/db.slice, 300 gone");
		group_report_free(&r);
		tsa_snap_free(&sa);
		tsa_snap_free(&sb);
		tsa_snap_free(&sc);
		free(ctext);
	}

	/* JSON: one object per group; lifetime totals with exits. */
	opts_init(&o, VIEW_SOLARIS, 0);
	o.json = 1;
	out = group_report_text(a, b, GROUP_COMM, &o, "/nonexistent");
	ok(strstr(out, "\"group\":\"comm\",\"name\":\"db server\",\"nproc\":1,"
		  "\"nlwp\":1,\"first\":false,\"elapsed_ns\":1500000000,"
		  "\"total_elapsed_ns\":8500000000,") != NULL,
	   "--group comm --json: db server's interval 1.5 s, lifetime "
	   "3.5 s exited + 5 s");
	free(out);
	free(a);
	free(b);
}

int main(void)
{
	if (fx_init())
		return 2;

	test_headers();
	test_report_mL();
	test_report_m();
	test_report_tsa();
	test_select_sort();
	test_json_lib();
	test_cols();
	test_calls_report();
	test_calls_gap();
	test_calls_model();
	test_fold_escape();
	test_metrics_lib();
	test_group_report();

	fx_done(tap_failed);
	return tap_done();
}
