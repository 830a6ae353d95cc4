// SPDX-License-Identifier: GPL-2.0
/*
 * test_prstat.c - unit and end-to-end tests of tsa-prstat.
 *
 * Unit tests link the reader, table, sort and format code directly and
 * feed it hand-written /proc/tsa/all snapshots; every expected line
 * below was computed by hand (the arithmetic is in the comments).
 * End-to-end tests run the binary ($TSA_PRSTAT) against snapshots in a
 * temporary $TSA_PROC_DIR; a FIFO named "all" hands it one snapshot per
 * interval, deterministically.
 *
 * Output is TAP; the last line is "userspace: N passed, N failed".
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "prjson.h"
#include "prsort.h"
#include "prstat.h"
#include "prtable.h"
#include "prutil.h"
#include "tsaall.h"
#include "tap.h"

#define MS(x)	((uint64_t)(x) * 1000000ull)

static const char *prstat_bin = "./tsa-prstat";
static const char *testdir = "../tests/userspace";
static char tmp[256];

/* ---- fixtures ---------------------------------------------------------- */

struct fx {
	uint64_t tid, pid, uid, flags, elapsed;
	int state;
	uint64_t ns[TSA_NSTATES];
	uint64_t vcx, icx, scl, sig;
	const char *comm;
};

/*
 * A snapshot in the kernel's format.  An unknown column "future" is
 * put in the middle of the fields to check that readers map by name;
 * x_n and x_max are derived from x_ns (unused by the table).
 */
static char *snapshot(uint64_t now, const struct fx *r, size_t n)
{
	static const char *st[] = { "usr", "sys", "trp", "tfl", "dfl", "kfl",
		"apg", "lck", "klk", "iow", "idl", "slp", "lat", "stp" };
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	size_t i;
	int s;

	fprintf(f, "tsa-all 1\nnow %llu\nfields tid pid uid flags elapsed "
		"state state_ns", (unsigned long long)now);
	for (s = 0; s < TSA_NSTATES; s++) {
		fprintf(f, " %s_ns %s_n %s_max", st[s], st[s], st[s]);
		if (s == 6)
			fputs(" future", f);
	}
	fputs(" vcx icx scl sig minf majf mig comm\n", f);
	for (i = 0; i < n; i++) {
		/* Time in its state: tid microseconds, known per thread. */
		fprintf(f, "%llu %llu %llu %llu %llu %d %llu",
			(unsigned long long)r[i].tid,
			(unsigned long long)r[i].pid,
			(unsigned long long)r[i].uid,
			(unsigned long long)r[i].flags,
			(unsigned long long)r[i].elapsed, r[i].state,
			(unsigned long long)r[i].tid * 1000);
		for (s = 0; s < TSA_NSTATES; s++) {
			fprintf(f, " %llu %llu %llu",
				(unsigned long long)r[i].ns[s],
				(unsigned long long)(r[i].ns[s] / 1000000),
				(unsigned long long)(r[i].ns[s] / 2));
			if (s == 6)
				fputs(" 77", f);
		}
		fprintf(f, " %llu %llu %llu %llu 0 0 0 %s\n",
			(unsigned long long)r[i].vcx,
			(unsigned long long)r[i].icx,
			(unsigned long long)r[i].scl,
			(unsigned long long)r[i].sig, r[i].comm);
	}
	fclose(f);
	return buf;
}

/*
 * Snapshot A, at 10 s.
 *   pid 100 "db server": tid 100 (4 s: USR 1, SYS 1, SLP 2),
 *     tid 101 "db worker" (2 s: LCK 1, LAT 1), exited-threads line
 *     (1 s: USR 0.5, IOW 0.5).
 *   pid 200 "spin", uid 4000000 (no passwd entry): tid 200 (1 s USR).
 *   pid 300 "sleeper": tids 300 and 301 asleep for 5 s each.
 */
static char *snap_a(void)
{
	struct fx r[] = {
		{ 0, 100, 0, 4, MS(1000), 0,
		  { [S_USR] = MS(500), [S_IOW] = MS(500) },
		  3, 0, 0, 0, "db server" },
		{ 100, 100, 0, 0, MS(4000), S_SLP,
		  { [S_USR] = MS(1000), [S_SYS] = MS(1000),
		    [S_SLP] = MS(2000) },
		  10, 5, 100, 0, "db server" },
		{ 101, 100, 0, 0, MS(2000), S_LCK,
		  { [S_LCK] = MS(1000), [S_LAT] = MS(1000) },
		  20, 2, 50, 1, "db worker" },
		{ 200, 200, 4000000, 0, MS(1000), S_USR,
		  { [S_USR] = MS(1000) }, 0, 7, 0, 0, "spin" },
		{ 300, 300, 0, 0, MS(5000), S_SLP, { [S_SLP] = MS(5000) },
		  0, 0, 0, 0, "sleeper" },
		{ 301, 300, 0, 1, MS(5000), S_SLP, { [S_SLP] = MS(5000) },
		  0, 0, 0, 0, "sleeper" },
	};

	return snapshot(MS(10000), r, sizeof(r) / sizeof(r[0]));
}

/*
 * Snapshot B, at 11 s (1 s later).
 *   tid 100: +1 s = USR 0.5, SYS 0.1, APG 0.1, KLK 0.1, IOW 0.1,
 *     IDL 0.1; VCX +1500, ICX +999, SCL +100000, SIG +1.
 *   tid 101 exited after 0.5 s more (LCK +0.25, LAT +0.25; VCX +5,
 *     ICX +1, SCL +10): its lifetime (2.5 s) moved into the
 *     exited-threads line: 3.5 s = USR 0.5 IOW 0.5 LCK 1.25 LAT 1.25.
 *   tid 102 "db worker" born 0.5 s ago: USR 10 %, TFL 9.95 %,
 *     DFL 9.94 %, LAT 9.96 %, SLP 60.15 % of 0.5 s; VCX 1234, SCL 99999.
 *   tid 200: +1 s = USR 0.5, LAT 0.5; ICX +1000000.
 *   tid 300: +1 s SLP.
 *   tid 301 exited 0.2 s after A (exited line of pid 300: 5.2 s SLP)
 *     and its tid was reused 0.8 s ago by a new thread: USR 0.2,
 *     SLP 0.6, VCX 5.
 *   pid 400 has an exited-threads line and no threads: not shown.
 */
static char *snap_b(void)
{
	struct fx r[] = {
		{ 0, 100, 0, 4, MS(3500), 0,
		  { [S_USR] = MS(500), [S_IOW] = MS(500), [S_LCK] = MS(1250),
		    [S_LAT] = MS(1250) },
		  28, 3, 60, 1, "db server" },
		{ 100, 100, 0, 0, MS(5000), S_SYS,
		  { [S_USR] = MS(1500), [S_SYS] = MS(1100),
		    [S_SLP] = MS(2000), [S_APG] = MS(100), [S_KLK] = MS(100),
		    [S_IOW] = MS(100), [S_IDL] = MS(100) },
		  1510, 1004, 100100, 1, "db server" },
		{ 102, 100, 0, 0, 500000000, S_LAT,
		  { [S_USR] = 50000000, [S_TFL] = 49750000,
		    [S_DFL] = 49700000, [S_LAT] = 49800000,
		    [S_SLP] = 300750000 },
		  1234, 0, 99999, 0, "db worker" },
		{ 200, 200, 4000000, 0, MS(2000), S_USR,
		  { [S_USR] = MS(1500), [S_LAT] = MS(500) },
		  0, 1000007, 0, 0, "spin" },
		{ 0, 300, 0, 4, MS(5200), 0, { [S_SLP] = MS(5200) },
		  0, 0, 0, 0, "sleeper" },
		{ 300, 300, 0, 0, MS(6000), S_SLP, { [S_SLP] = MS(6000) },
		  0, 0, 0, 0, "sleeper" },
		{ 301, 300, 0, 0, MS(800), S_SLP,
		  { [S_USR] = MS(200), [S_SLP] = MS(600) },
		  5, 0, 0, 0, "sleeper" },
		{ 0, 400, 0, 4, MS(100), 0, { [S_SLP] = MS(100) },
		  0, 0, 0, 0, "gone" },
	};

	return snapshot(MS(11000), r, sizeof(r) / sizeof(r[0]));
}

/* ---- the library, driven directly ------------------------------------- */

static void load(struct tsa_snap *s, const char *text)
{
	char msg[256];
	int rc;

	s->len = strlen(text);
	s->buf = xrealloc(s->buf, s->len + 1);
	s->cap = s->len + 1;
	memcpy(s->buf, text, s->len);
	rc = tsa_snap_parse(s, msg, sizeof(msg));
	if (rc != TSA_OK) {
		printf("# parse failed: %s\n", msg);
		exit(2);
	}
}

static void opts_init(struct options *o, enum view v, int lwps)
{
	memset(o, 0, sizeof(*o));
	o->view = v;
	o->lwps = lwps;
	o->sort_key = sort_default_key(v);
	o->sort_order = -1;
	o->interval = 1;
	o->count = -1;
}

/* One report of @cur against @prev (NULL: first report), as text. */
static char *report(const char *prev, const char *cur,
		    const struct options *o)
{
	static const double la[3] = { 1.0, 2.5, 10.0 };
	struct tsa_snap a = { 0 }, b = { 0 };
	struct tsa_select sel = { o->lwps, o->interval, o->pids, o->npids };
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

static void test_format_pct(void)
{
	static const struct { float v; const char *want; } t[] = {
		{ 0, "0.0" }, { 0.04f, "0.0" }, { 0.05f, "0.1" },
		{ 5, "5.0" }, { 9.94f, "9.9" }, { 9.949f, "9.9" },
		{ 9.95f, "10" }, { 9.96f, "10" }, { 10, "10" },
		{ 12.5f, "12" },	/* printf rounds a tie to even */
		{ 27.5f, "28" }, { 60.15f, "60" }, { 99.4f, "99" },
		{ 99.5f, "100" }, { 100, "100" }, { 100.01f, "100" },
		{ 250, "100" }, { -0.5f, "0.0" }, { -100, "0.0" },
	};
	char out[4];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		format_pct(out, t[i].v);
		is_str(out, t[i].want, "format_pct(%g) is \"%s\"",
		       (double)t[i].v, t[i].want);
	}
}

static void test_format_num(void)
{
	static const struct { uint64_t v; const char *want; } t[] = {
		{ 0, "  0" }, { 7, "  7" }, { 999, "999" }, { 1000, " 1K" },
		{ 1999, " 1K" }, { 9999, " 9K" }, { 10000, "10K" },
		{ 99999, "99K" }, { 100000, ".1M" }, { 199999, ".1M" },
		{ 999999, ".9M" },
		/* Solaris cuts ".10M" to its buffer: 1M and up read ".10" */
		{ 1000000, ".10" }, { 1234567, ".12" }, { 99999999, ".99" },
		{ 100000000, ".10" }, { UINT64_MAX, ".18" },
	};
	char out[4];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		format_num(out, t[i].v);
		is_str(out, t[i].want, "format_num(%llu) is \"%s\"",
		       (unsigned long long)t[i].v, t[i].want);
	}
}

static void test_names(void)
{
	char out[64];

	format_user(out, sizeof(out), "postgres", 1);
	is_str(out, "postgres", "an 8-character user name is not cut");
	format_user(out, sizeof(out), "verylongname", 1);
	is_str(out, "verylon*", "a long user name is cut to 7 and '*'");
	format_user(out, sizeof(out), "verylongname", 0);
	is_str(out, "verylongname", "without truncation it is whole");
	is_str(user_name(0), "root", "uid 0 is root");
	is_str(user_name(4000000), "4000000", "a uid without a name is "
	       "its number");
	strip_comm(out, sizeof(out), "a\tb\x7f" "c d");
	is_str(out, "abc d", "unprintable characters leave comm");
}

static void test_headers(void)
{
	struct options o;

	opts_init(&o, VIEW_SOLARIS, 1);
	is_str(table_header(&o),
	       "   PID USERNAME USR SYS TRP TFL DFL LCK SLP LAT VCX ICX SCL "
	       "SIG PROCESS/LWPID ", "-mL header, byte for byte");
	o.lwps = 0;
	is_str(table_header(&o),
	       "   PID USERNAME USR SYS TRP TFL DFL LCK SLP LAT VCX ICX SCL "
	       "SIG PROCESS/NLWP  ", "-m header, byte for byte");
	is_long((long)strlen(table_header(&o)), 78,
		"-m header is 78 columns, as on Solaris");
	o.view = VIEW_TSA;
	is_str(table_header(&o),
	       "   PID USERNAME EXEC  RUN  APG  SLP  LCK  IDL  STP "
	       "PROCESS/NLWP  ", "TSA header");
	o.lwps = 1;
	is_str(table_header(&o),
	       "   PID USERNAME EXEC  RUN  APG  SLP  LCK  IDL  STP "
	       "PROCESS/LWPID ", "TSA -L header");
}

#define HDR_L \
"   PID USERNAME USR SYS TRP TFL DFL LCK SLP LAT VCX ICX SCL SIG PROCESS/LWPID \n"
#define HDR_P \
"   PID USERNAME USR SYS TRP TFL DFL LCK SLP LAT VCX ICX SCL SIG PROCESS/NLWP  \n"
#define TOTAL "Total: 3 processes, 5 lwps, load averages: 1.00, 2.50, 10.00\n"

/*
 * -mL, B against A, default sort cpu = USR+SYS+TRP descending:
 *   100  (60): USR 0.5/1 = 50, SYS 10, DFL = APG 10,
 *              SLP = KLK+IOW+IDL = 30; VCX 1500 -> 1K, SCL 100000 -> .1M
 *   200  (50): USR 50, LAT 50, ICX 1000000 -> ".10"
 *   301  (25): new thread on a reused tid: lifetime, USR 0.2/0.8 = 25,
 *              SLP 75, VCX 5 (born after A: raw count, not scaled)
 *   102  (10): born in the interval: lifetime over 0.5 s: TFL 9.95 ->
 *              10, DFL 9.94 -> 9.9, LAT 9.96 -> 10, SLP 60.15 -> 60
 *   300   (0): SLP 100
 */
static const char want_mL[] = HDR_L
"   100 root      50  10 0.0 0.0  10 0.0  30 0.0  1K 999 .1M   1 db server/100\n"
"   200 4000000   50 0.0 0.0 0.0 0.0 0.0 0.0  50   0 .10   0   0 spin/200\n"
"   300 root      25 0.0 0.0 0.0 0.0 0.0  75 0.0   5   0   0   0 sleeper/301\n"
"   100 root      10 0.0 0.0  10 9.9 0.0  60  10  1K   0 99K   0 db worker/102\n"
"   300 root     0.0 0.0 0.0 0.0 0.0 0.0 100 0.0   0   0   0   0 sleeper/300\n"
TOTAL;

static void test_report_mL(void)
{
	char *a = snap_a(), *b = snap_b(), *out;
	struct options o;

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
"   200 4000000  100 0.0 0.0 0.0 0.0 0.0 0.0 0.0   0   7   0   0 spin/200\n"
"   100 root      25  25 0.0 0.0 0.0 0.0  50 0.0   2   1  25   0 db server/100\n"
"   100 root     0.0 0.0 0.0 0.0 0.0  50 0.0  50  10   1  25   0 db worker/101\n"
"   300 root     0.0 0.0 0.0 0.0 0.0 0.0 100 0.0   0   0   0   0 sleeper/300\n"
"   300 root     0.0 0.0 0.0 0.0 0.0 0.0 100 0.0   0   0   0   0 sleeper/301\n"
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
 *   VCX 2772 - 33 = 2739 -> 2K, ICX 1007 - 7 -> 1K,
 *   SCL 200159 - 150 = 200009 -> .2M, SIG 2 - 1 -> 1; 2 threads.
 * pid 200: as its thread.  pid 300: A 10 s, B 6 + 5.2 + 0.8 = 12 s:
 *   USR 0.2 / 2 = 10, SLP 1.8 / 2 = 90, VCX 5.
 * Sort cpu: 200 (50), 100 (32.5), 300 (10).  pid 400: no threads.
 */
static const char want_m[] = HDR_P
"   200 4000000   50 0.0 0.0 0.0 0.0 0.0 0.0  50   0 .10   0   0 spin/1\n"
"   100 root      28 5.0 0.0 2.5 7.5  12  30  15  2K  1K .2M   1 db server/2\n"
"   300 root      10 0.0 0.0 0.0 0.0 0.0  90 0.0   5   0   0   0 sleeper/2\n"
TOTAL;

static void test_report_m(void)
{
	char *a = snap_a(), *b = snap_b(), *out;
	struct options o;

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
	struct options o;

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
	struct options o;

	opts_init(&o, VIEW_SOLARIS, 1);
	o.pids = &pid300;
	o.npids = 1;
	out = report(a, b, &o);
	is_str(out, HDR_L
"   300 root      25 0.0 0.0 0.0 0.0 0.0  75 0.0   5   0   0   0 sleeper/301\n"
"   300 root     0.0 0.0 0.0 0.0 0.0 0.0 100 0.0   0   0   0   0 sleeper/300\n"
"Total: 1 processes, 2 lwps, load averages: 1.00, 2.50, 10.00\n",
	       "-p 300 shows that process only, and counts only it");
	free(out);

	opts_init(&o, VIEW_SOLARIS, 1);
	o.ntop = 2;
	out = report(a, b, &o);
	is_str(out, HDR_L
"   100 root      50  10 0.0 0.0  10 0.0  30 0.0  1K 999 .1M   1 db server/100\n"
"   200 4000000   50 0.0 0.0 0.0 0.0 0.0 0.0  50   0 .10   0   0 spin/200\n"
TOTAL, "-n 2 keeps the first two lines; Total counts all");
	free(out);

	/* -S cpu: 300 (0), 102 (10), 301 (25), 200 (50), 100 (60) */
	o.ntop = 0;
	o.sort_order = 1;
	out = report(a, b, &o);
	is_str(out, HDR_L
"   300 root     0.0 0.0 0.0 0.0 0.0 0.0 100 0.0   0   0   0   0 sleeper/300\n"
"   100 root      10 0.0 0.0  10 9.9 0.0  60  10  1K   0 99K   0 db worker/102\n"
"   300 root      25 0.0 0.0 0.0 0.0 0.0  75 0.0   5   0   0   0 sleeper/301\n"
"   200 4000000   50 0.0 0.0 0.0 0.0 0.0 0.0  50   0 .10   0   0 spin/200\n"
"   100 root      50  10 0.0 0.0  10 0.0  30 0.0  1K 999 .1M   1 db server/100\n"
TOTAL, "-S cpu sorts ascending");
	free(out);

	/* -s lat: 200 (50), 102 (9.96), then 0 by pid, tid */
	o.sort_order = -1;
	o.sort_key = sort_key_lookup("lat", VIEW_SOLARIS, why, sizeof(why));
	o.ntop = 2;
	out = report(a, b, &o);
	is_str(out, HDR_L
"   200 4000000   50 0.0 0.0 0.0 0.0 0.0 0.0  50   0 .10   0   0 spin/200\n"
"   100 root      10 0.0 0.0  10 9.9 0.0  60  10  1K   0 99K   0 db worker/102\n"
TOTAL, "-s lat sorts by LAT");
	free(out);

	/* -s vcx: 100 (1500), 102 (1234), 301 (5) */
	o.sort_key = sort_key_lookup("vcx", VIEW_SOLARIS, why, sizeof(why));
	o.ntop = 3;
	out = report(a, b, &o);
	is_str(out, HDR_L
"   100 root      50  10 0.0 0.0  10 0.0  30 0.0  1K 999 .1M   1 db server/100\n"
"   100 root      10 0.0 0.0  10 9.9 0.0  60  10  1K   0 99K   0 db worker/102\n"
"   300 root      25 0.0 0.0 0.0 0.0 0.0  75 0.0   5   0   0   0 sleeper/301\n"
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

/* Make @text the snapshot's raw /proc/tsa/all text, as a read would. */
static void snap_set_text(struct tsa_snap *s, const char *text)
{
	s->len = strlen(text);
	s->buf = xrealloc(s->buf, s->len + 1);
	s->cap = s->len + 1;
	memcpy(s->buf, text, s->len);
}

static void test_parser(void)
{
	struct tsa_snap s = { 0 };
	char msg[256];
	static const char *bad[] = {
		"tsa-all 2\nnow 1\nfields tid pid flags elapsed comm\n",
		"tsa-thread 1\n",
		"tsa-all 1\nnow 1\nfields tid pid flags elapsed\n",
		"tsa-all 1\nnow 1\nfields tid pid flags comm\n",
		"tsa-all 1\nnow 1\nfields tid pid flags elapsed comm\n1 1 x 5 a\n",
		"tsa-all 1\nnow 1\n",
	};
	static const int want[] = { TSA_EVERSION, TSA_EFORMAT, TSA_EFORMAT,
		TSA_EFORMAT, TSA_EFORMAT, TSA_EFORMAT };
	static const char *what[] = {
		"version 2 is refused", "another file kind is refused",
		"fields without comm last are refused",
		"fields without elapsed are refused",
		"a row that is not numbers is refused",
		"a file without fields is refused",
	};
	const char *good = "tsa-all 1.3\nnow 99\nnewthing 7\n"
		"fields pid tid extra flags elapsed comm\n"
		"5 6 123 0 40 name with  spaces\n\n"
		"5 7 0 2 30 \n";
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snap_set_text(&s, bad[i]);
		is_long(tsa_snap_parse(&s, msg, sizeof(msg)), want[i],
			"parser: %s", what[i]);
	}
	snap_set_text(&s, good);
	is_long(tsa_snap_parse(&s, msg, sizeof(msg)), TSA_OK,
		"parser: minor version, unknown header line and column, "
		"columns in any order");
	is_long((long)s.nrows, 2, "parser: blank lines are skipped");
	is_long((long)s.now, 99, "parser: now");
	is_str(s.rows[0].comm, "name with  spaces",
	       "parser: comm runs to the end of the line");
	is_str(s.rows[1].comm, "", "parser: an empty comm");
	ok(tsa_snap_thread(&s, 6) && tsa_snap_thread(&s, 6)->v[F_PID] == 5 &&
	   tsa_snap_thread(&s, 6)->v[F_ELAPSED] == 40,
	   "parser: columns are mapped by name");
	ok(tsa_snap_proc(&s, 5) && tsa_snap_proc(&s, 5)->nlwp == 2 &&
	   tsa_snap_proc(&s, 5)->agg.v[F_ELAPSED] == 70,
	   "parser: process sums");
	is_long((long)s.rows[0].v[F_AT], 99,
		"parser: without an at column a row is measured at now");
	tsa_snap_free(&s);
	good = "tsa-all 1\nnow 99\nfields tid pid flags elapsed at comm\n"
		"6 5 0 40 120 x\n";
	snap_set_text(&s, good);
	ok(tsa_snap_parse(&s, msg, sizeof(msg)) == TSA_OK &&
	   s.rows[0].v[F_AT] == 120,
	   "parser: the at column (a thread measured after now)");
	tsa_snap_free(&s);
	/* The module names its state numbers; a reader maps them by name. */
	good = "tsa-all 1\nnow 99\nstates SYS USR NEW LAT\n"
		"fields tid pid flags elapsed state state_ns comm\n"
		"6 5 0 40 0 7 a\n7 5 0 40 3 8 b\n8 5 0 40 2 9 c\n9 5 0 40 9 1 d\n";
	snap_set_text(&s, good);
	ok(tsa_snap_parse(&s, msg, sizeof(msg)) == TSA_OK && s.nrows == 4 &&
	   s.rows[0].v[F_STATE] == 1 && s.rows[1].v[F_STATE] == 12 &&
	   s.rows[2].v[F_STATE] == TSA_NSTATES &&
	   s.rows[3].v[F_STATE] == TSA_NSTATES,
	   "parser: state numbers are mapped through the states line "
	   "(SYS, LAT; an unknown name and a number past the line: unknown)");
	is_long((long)s.rows[1].v[F_STATE_NS], 8, "parser: the state_ns column");
	tsa_snap_free(&s);
	/* A thread named "a\nUSR 9 9" with a backslash: the module writes
	 * \012 and \134; bad escapes stay as they are. */
	good = "tsa-all 1\nnow 99\nfields tid pid flags elapsed comm\n"
		"6 5 0 40 a\\012USR 9 9\\134\\8\\47 \n7 5 0 1 b\n";
	snap_set_text(&s, good);
	ok(tsa_snap_parse(&s, msg, sizeof(msg)) == TSA_OK && s.nrows == 2,
	   "parser: an escaped newline in a name is one row, not two");
	is_str(s.rows[0].comm, "a\nUSR 9 9\\\\8\\47 ",
	       "parser: \\ooo escapes in comm are decoded, others kept");
	{
		char out[64];

		strip_comm(out, sizeof(out), s.rows[0].comm);
		is_str(out, "aUSR 9 9\\\\8\\47 ",
		       "table: control bytes of a name are left out");
	}
	tsa_snap_free(&s);
}

static void test_json_lib(void)
{
	char *a = snap_a(), *b = snap_b(), *out;
	struct options o;

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

/* ---- the binary, end to end ------------------------------------------- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	m = open_memstream(&buf, &len);
	if (f) {
		while ((c = fgetc(f)) != EOF)
			fputc(c, m);
		fclose(f);
	}
	fclose(m);
	return buf;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) == EOF || fclose(f)) {
		printf("# cannot write %s\n", path);
		exit(2);
	}
}

/*
 * Run tsa-prstat with @args (NULL-terminated) and TSA_PROC_DIR=@dir;
 * stdout and stderr into *out and *err.  @as_nobody: drop to uid
 * 65534 first (used only when running as root).  Returns the exit
 * status, or 128 + signal.
 */
static int run(const char *dir, const char *const *args, char **out,
	       char **err, int as_nobody)
{
	char opath[300], epath[300];
	const char *argv[32];
	int i, status;
	pid_t pid;

	snprintf(opath, sizeof(opath), "%s/stdout", tmp);
	snprintf(epath, sizeof(epath), "%s/stderr", tmp);
	argv[0] = prstat_bin;
	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int o = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int e = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		dup2(o, 1);
		dup2(e, 2);
		if (dir)
			setenv("TSA_PROC_DIR", dir, 1);
		if (as_nobody && (setgid(65534) || setuid(65534)))
			_exit(126);
		alarm(20);
		execv(prstat_bin, (char *const *)argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	*out = slurp(opath);
	*err = slurp(epath);
	return WIFEXITED(status) ? WEXITSTATUS(status) :
		128 + WTERMSIG(status);
}

static char *mkdir_in_tmp(const char *name)
{
	static char path[300];

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	mkdir(path, 0755);
	return path;
}

static void test_errors(void)
{
	char *out, *err, path[400], *dir;
	int rc;

	rc = run("/nonexistent/tsa", (const char *[]){ "-mL", "1", "1", NULL },
		 &out, &err, 0);
	is_long(rc, 2, "module not loaded: exit 2");
	is_str(err, "tsa-prstat: /nonexistent/tsa/all: not found; is the tsa "
	       "module loaded? (sudo modprobe tsa)\n",
	       "module not loaded: the one-line message");
	free(out);
	free(err);

	dir = mkdir_in_tmp("v2");
	snprintf(path, sizeof(path), "%s/all", dir);
	put(path, "tsa-all 2\nnow 1\nfields tid comm\n1 x\n");
	rc = run(dir, (const char *[]){ "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 5, "format version 2: exit 5");
	ok(strstr(err, "version 2") && strstr(err, "reads version 1") &&
	   strchr(err, '\n') && !strchr(err, '\n')[1],
	   "format version 2: one line naming both versions");
	free(out);
	free(err);

	dir = mkdir_in_tmp("a");
	snprintf(path, sizeof(path), "%s/all", dir);
	out = snap_a();
	put(path, out);
	free(out);

	rc = run(dir, (const char *[]){ "-p", "999999,888888", "1", "1", NULL },
		 &out, &err, 0);
	is_long(rc, 4, "-p with no existing pid: exit 4");
	is_str(err, "tsa-prstat: no such process: 999999,888888\n",
	       "-p with no existing pid: message");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-p", "999999 200", "1", "1", NULL },
		 &out, &err, 0);
	is_long(rc, 0, "-p with one existing pid of two: exit 0");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-Q", NULL }, &out, &err, 0);
	is_long(rc, 1, "bad option: exit 1");
	ok(strstr(err, "Usage:") != NULL && !*out, "bad option: usage on "
	   "stderr only");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-s", "size", NULL }, &out, &err, 0);
	is_long(rc, 1, "-s size: exit 1");
	ok(strstr(err, "not available") != NULL, "-s size: not available");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-n", "0", NULL }, &out, &err, 0);
	is_long(rc, 1, "-n 0: exit 1");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "1", "0", NULL }, &out, &err, 0);
	is_long(rc, 1, "count 0: exit 1");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "1", "2", "3", NULL }, &out, &err, 0);
	is_long(rc, 1, "three operands: exit 1");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "--version", NULL }, &out, &err, 0);
	ok(rc == 0 && !strncmp(out, "tsa-prstat ", 11), "--version: %s",
	   out);
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-h", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, "Usage:") && !*err, "-h: usage on stdout, "
	   "exit 0");
	free(out);
	free(err);

	/* Permission denied: a file nobody may read. */
	dir = mkdir_in_tmp("noperm");
	snprintf(path, sizeof(path), "%s/all", dir);
	out = snap_a();
	put(path, out);
	free(out);
	chmod(path, 0);
	if (geteuid() == 0 && access(prstat_bin, X_OK) == 0) {
		chmod(tmp, 0755);
		rc = run(dir, (const char *[]){ "1", "1", NULL }, &out, &err,
			 1);
		chmod(tmp, 0700);
		if (rc == 126 || rc == 127) {
			skip("permission denied (cannot run as nobody)");
		} else {
			is_long(rc, 3, "permission denied: exit 3");
			snprintf(path, sizeof(path), "tsa-prstat: %s/all: "
				 "permission denied\n", dir);
			is_str(err, path, "permission denied: message");
		}
	} else {
		rc = run(dir, (const char *[]){ "1", "1", NULL }, &out, &err,
			 0);
		is_long(rc, 3, "permission denied: exit 3");
	}
	free(out);
	free(err);
}

/*
 * The writer side of the FIFO: each open by the reader gets one
 * snapshot.  Before the next one, wait until the reader has closed
 * (a non-blocking open fails with ENXIO) and opened again, so that two
 * snapshots never run together; the reader's interval (0.2 s) keeps
 * that window wide.
 */
static pid_t feed_fifo(const char *fifo, char *const *snaps, int n)
{
	struct timespec ms = { 0, 1000000 };
	pid_t pid;
	int i;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	alarm(20);
	for (i = 0; i < n; i++) {
		size_t len = strlen(snaps[i]), done = 0;
		int fd, closed = i == 0;

		for (;;) {
			fd = open(fifo, O_WRONLY | O_NONBLOCK);
			if (fd >= 0 && closed)
				break;
			if (fd >= 0)
				close(fd);
			else if (errno == ENXIO)
				closed = 1;
			else
				_exit(1);
			nanosleep(&ms, NULL);
		}
		fcntl(fd, F_SETFL, 0);
		while (done < len) {
			ssize_t w = write(fd, snaps[i] + done, len - done);

			if (w <= 0)
				_exit(1);
			done += (size_t)w;
		}
		close(fd);
	}
	_exit(0);
}

/* Drop the load averages, which are the machine's, from Total lines. */
static void cut_loadavg(char *s)
{
	char *p;

	while ((p = strstr(s, " load averages: ")) != NULL) {
		char *nl = strchr(p, '\n');

		memmove(p, nl, strlen(nl) + 1);
		s = p + 1;
	}
}

static void test_end_to_end(void)
{
	char *out, *err, path[400], *dir, *snaps[2], *want, *p;
	int rc, status;
	pid_t w;

	dir = mkdir_in_tmp("fifo");
	snprintf(path, sizeof(path), "%s/all", dir);
	if (mkfifo(path, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	snaps[0] = snap_a();
	snaps[1] = snap_b();

	w = feed_fifo(path, snaps, 2);
	rc = run(dir, (const char *[]){ "-mL", "0.2", "2", NULL }, &out, &err,
		 0);
	waitpid(w, &status, 0);
	is_long(rc, 0, "two reports through a FIFO: exit 0");
	ok(!strchr(out, '\033'), "not a terminal: no escape sequences");
	p = strstr(out + 1, "   PID USERNAME");
	want = strdup(want_mL);
	cut_loadavg(want);
	if (p)
		cut_loadavg(p);
	is_str(p, want, "second report of the binary (-mL) is the hand-"
	       "computed one");
	free(want);
	free(out);
	free(err);

	/* JSON, checked by python3 when there is one. */
	w = feed_fifo(path, snaps, 2);
	rc = run(dir, (const char *[]){ "--json", "-L", "-c", "0.2", "2",
		 NULL }, &out, &err, 0);
	waitpid(w, &status, 0);
	is_long(rc, 0, "--json -L: exit 0");
	{
		int lines = 0;

		for (p = out; *p; p++)
			lines += *p == '\n';
		is_long(lines, 5 + 5, "--json -L: one line per thread and "
			"report");
	}
	if (system("python3 -c '' 2>/dev/null") == 0) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys\n"
			 "for l in open(sys.argv[1]):\n"
			 "    o = json.loads(l)\n"
			 "    assert \"ts\" in o and \"states\" in o, l\n"
			 "    assert len(o[\"states\"]) == 14, l\n' %s/stdout",
			 tmp);
		is_long(system(cmd), 0, "--json: every line parses "
			"(python3 json.loads) and has ts and 14 states");
	} else {
		skip("--json: python3 not found");
	}
	free(out);
	free(err);

	/* TSA view, processes, through the binary. */
	w = feed_fifo(path, snaps, 2);
	rc = run(dir, (const char *[]){ "--tsa", "-n", "2", "0.2", "2",
		 NULL }, &out, &err, 0);
	waitpid(w, &status, 0);
	p = strstr(out + 1, "   PID");
	if (p)
		cut_loadavg(p);
	/*
	 * pid 100: 2 s; EXEC (0.55+0.1)/2 = 32.5 -> 32 (tie to even),
	 * RUN 14.99 -> 15, APG 5.0, SLP = TFL .04975 + DFL .0497 + IOW .1
	 * + SLP .30075 = .5 -> 25, LCK = .25 + KLK .1 -> 17.5 -> 18,
	 * IDL 5.0; wait = 15 + 17.5 + 5 = 37.5, after pid 200's 50.
	 */
	is_str(p, "   PID USERNAME EXEC  RUN  APG  SLP  LCK  IDL  STP "
	       "PROCESS/NLWP  \n"
	       "   200 4000000    50   50  0.0  0.0  0.0  0.0  0.0 spin/1\n"
	       "   100 root       32   15  5.0   25   18  5.0  0.0 "
	       "db server/2\n"
	       "Total: 3 processes, 5 lwps,\n",
	       "--tsa -n 2: processes in the TSA view");
	free(out);
	free(err);

	free(snaps[0]);
	free(snaps[1]);
	unlink(path);
}

static void test_sigterm(void)
{
	char opath[300], *dir, path[400], *s;
	struct timespec ts = { 0, 10000000 };
	int status, i;
	pid_t pid;

	dir = mkdir_in_tmp("term");
	snprintf(path, sizeof(path), "%s/all", dir);
	s = snap_a();
	put(path, s);
	free(s);
	snprintf(opath, sizeof(opath), "%s/term.out", tmp);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int o = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		dup2(o, 1);
		setenv("TSA_PROC_DIR", dir, 1);
		alarm(20);
		execl(prstat_bin, prstat_bin, "-m", "30", (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 500; i++) {
		struct stat st;

		if (stat(opath, &st) == 0 && st.st_size > 0)
			break;
		nanosleep(&ts, NULL);
	}
	nanosleep(&ts, NULL);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "SIGTERM during the interval: exit 0");
	s = slurp(opath);
	ok(strstr(s, "Total: 3 processes, 5 lwps") != NULL,
	   "SIGTERM: the report was flushed");
	free(s);
}

/* Run the binary on a pseudo-terminal of @rows rows; its output. */
static char *run_pty(const char *dir, const char *const *args, int rows)
{
	struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = 80 };
	const char *argv[32];
	char *buf = NULL, chunk[4096];
	size_t len = 0;
	FILE *m;
	int master, i, status;
	ssize_t n;
	pid_t pid;

	argv[0] = prstat_bin;
	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	fflush(stdout);
	pid = forkpty(&master, NULL, NULL, &ws);
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		setenv("TSA_PROC_DIR", dir, 1);
		alarm(20);
		execv(prstat_bin, (char *const *)argv);
		_exit(127);
	}
	m = open_memstream(&buf, &len);
	while ((n = read(master, chunk, sizeof(chunk))) > 0)
		fwrite(chunk, 1, (size_t)n, m);
	fclose(m);
	close(master);
	waitpid(pid, &status, 0);
	return buf;
}

static void test_tty(void)
{
	char *dir, path[400], *s, *p;
	int lines = 0;

	dir = mkdir_in_tmp("tty");
	snprintf(path, sizeof(path), "%s/all", dir);
	s = snap_a();
	put(path, s);
	free(s);

	s = run_pty(dir, (const char *[]){ "-mL", "1", "1", NULL }, 6);
	if (!s) {
		skip("forkpty: %s", strerror(errno));
		return;
	}
	ok(!strncmp(s, "\033[H\033[J", 6), "terminal: the report starts by "
	   "clearing the screen");
	for (p = s; (p = strstr(p, " root ")) != NULL; p++)
		lines++;
	for (p = s; (p = strstr(p, " 4000000 ")) != NULL; p++)
		lines++;
	is_long(lines, 6 - 3, "terminal of 6 rows: 3 lines (rows less "
		"header, Total and cursor)");
	free(s);

	s = run_pty(dir, (const char *[]){ "-mL", "-c", "1", "1", NULL }, 6);
	ok(s && !strchr(s, '\033') && strstr(s, "sleeper/301"),
	   "terminal with -c: no escape sequences, every line");
	free(s);
}

static void test_big(void)
{
	char cmd[600], *dir, *out, *err, *p;
	struct timespec t0, t1;
	long lines = 0;
	int rc;

	dir = mkdir_in_tmp("big");
	snprintf(cmd, sizeof(cmd), "sh %s/gen-all.sh 10000 > %s/all",
		 testdir, dir);
	if (system(cmd)) {
		skip("gen-all.sh failed");
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = run(dir, (const char *[]){ "-mL", "-c", "0.001", "2", NULL },
		 &out, &err, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (p = out; *p; p++)
		lines += *p == '\n';
	is_long(rc, 0, "10,000 threads: exit 0");
	is_long(lines, 2 * (10000 + 2), "10,000 threads: every thread, "
		"twice");
	printf("# 10,000 threads, two reports: %.0f ms\n",
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	free(out);
	free(err);
}

int main(void)
{
	const char *env;

	if ((env = getenv("TSA_PRSTAT")) != NULL)
		prstat_bin = env;
	if ((env = getenv("TSA_TESTDIR")) != NULL)
		testdir = env;
	snprintf(tmp, sizeof(tmp), "%s/tsa-prstat-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 2;
	}

	test_format_pct();
	test_format_num();
	test_names();
	test_headers();
	test_parser();
	test_report_mL();
	test_report_m();
	test_report_tsa();
	test_select_sort();
	test_json_lib();
	test_errors();
	test_end_to_end();
	test_sigterm();
	test_tty();
	test_big();

	if (!tap_failed) {
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd))
			printf("# could not remove %s\n", tmp);
	} else {
		printf("# files kept in %s\n", tmp);
	}
	return tap_done();
}
