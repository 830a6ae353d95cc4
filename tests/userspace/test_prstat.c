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
#include <zstd.h>

#include "capture.h"
#include "group.h"
#include "json.h"
#include "metrics.h"
#include "record.h"
#include "sort.h"
#include "show.h"
#include "table.h"
#include "util.h"
#include "all.h"
#include "calls.h"
#include "hist.h"
#include "dist.h"
#include "tap.h"
#include "fx/run.h"

#define MS(x)	((uint64_t)(x) * 1000000ull)


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
	struct show o;

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

/* ---- the system-call view (-y, /proc/tsa/calls) ----------------------- */

struct cfx {
	uint64_t tid, pid, flags, elapsed;
	const char *call;
	uint64_t calls, max;
	uint64_t st[TSA_NSTATES];	/* ns is their sum */
};

/* A /proc/tsa/calls snapshot in the kernel's format, every line
 * measured at @now (as the fixtures of /proc/tsa/all are); a name
 * "softirq:..." is a trap line, which the view leaves out. */
static char *calls_snapshot(uint64_t now, const struct cfx *r, size_t n)
{
	static const int order[] = { S_SYS, S_TRP, S_TFL, S_DFL, S_KFL, S_APG,
		S_LCK, S_KLK, S_IOW, S_IDL, S_SLP, S_LAT, S_STP };
	char *buf;
	size_t len, i, s;
	FILE *f = open_memstream(&buf, &len);

	fprintf(f, "tsa-calls 1\nnow %llu\nrows 8 6\nstates SYS TRP TFL DFL "
		"KFL APG LCK KLK IOW IDL SLP LAT STP\nfields tid pid uid flags "
		"elapsed at kind name calls ns max sys_ns trp_ns tfl_ns dfl_ns "
		"kfl_ns apg_ns lck_ns klk_ns iow_ns idl_ns slp_ns lat_ns "
		"stp_ns\n", (unsigned long long)now);
	for (i = 0; i < n; i++) {
		uint64_t ns = 0;
		int trap = !strncmp(r[i].call, "softirq:", 8);

		for (s = 0; s < TSA_NSTATES; s++)
			ns += r[i].st[s];
		fprintf(f, "%llu %llu 0 %llu %llu %llu %s %s %llu %llu %llu",
			(unsigned long long)r[i].tid,
			(unsigned long long)r[i].pid,
			(unsigned long long)r[i].flags,
			(unsigned long long)r[i].elapsed,
			(unsigned long long)now, trap ? "trap" : "syscall",
			r[i].call, (unsigned long long)r[i].calls,
			(unsigned long long)ns, (unsigned long long)r[i].max);
		for (s = 0; s < sizeof(order) / sizeof(order[0]); s++)
			fprintf(f, " %llu",
				(unsigned long long)r[i].st[order[s]]);
		fputc('\n', f);
	}
	fclose(f);
	return buf;
}

/*
 * The calls of snapshot A's threads (at 10 s):
 *   tid 100 (4 s): futex 10 calls, 1 s (LCK 0.9, SYS 0.05, LAT 0.05),
 *     longest 0.5 s; read 20, 0.4 s (IOW 0.3, SYS 0.1), longest 0.1 s;
 *     other 5, 0.1 s SYS, longest 30 ms.
 *   tid 101 (2 s): futex 4, 1 s LCK, longest 0.4 s.
 *   pid 100's exited threads: read 2, 0.2 s IOW, longest 150 ms.
 *   tid 200 (the spinner) made no call: no line.
 *   tid 300 (5 s): clock_nanosleep 5, 5 s SLP, longest 1 s.
 *   tid 301 (5 s, since load): in an epoll_wait since before the load,
 *     which the module cannot name yet: other, 1 call, 5 s IDL.
 *   (tid 100 also has a trap line, softirq:TIMER: not a call.)
 */
static char *calls_a(void)
{
	struct cfx r[] = {
		{ 100, 100, 0, MS(4000), "futex", 10, MS(500),
		  { [S_LCK] = MS(900), [S_SYS] = MS(50), [S_LAT] = MS(50) } },
		{ 100, 100, 0, MS(4000), "read", 20, MS(100),
		  { [S_IOW] = MS(300), [S_SYS] = MS(100) } },
		{ 100, 100, 0, MS(4000), "other", 5, MS(30),
		  { [S_SYS] = MS(100) } },
		{ 100, 100, 0, MS(4000), "softirq:TIMER", 40, MS(1),
		  { [S_TRP] = MS(20) } },
		{ 101, 100, 0, MS(2000), "futex", 4, MS(400),
		  { [S_LCK] = MS(1000) } },
		{ 0, 100, 4, MS(1000), "read", 2, MS(150),
		  { [S_IOW] = MS(200) } },
		{ 300, 300, 0, MS(5000), "clock_nanosleep", 5, MS(1000),
		  { [S_SLP] = MS(5000) } },
		{ 301, 300, 1, MS(5000), "other", 1, MS(5000),
		  { [S_IDL] = MS(5000) } },
	};

	return calls_snapshot(MS(10000), r, sizeof(r) / sizeof(r[0]));
}

/*
 * At 11 s (snapshot B's threads):
 *   tid 100 (5 s): futex +2 calls, +0.3 s (LCK 0.25, SYS 0.025,
 *     LAT 0.025).  Its table was full: read was evicted to other after
 *     3 more calls (60 ms: IOW 50, SYS 10), and took a row again for
 *     1 call (50 ms: IOW 40, SYS 10), so other = 5 + 20 + 3 calls,
 *     0.1 + 0.4 + 0.06 s (SYS 0.21, IOW 0.35), longest 0.1 s (read's).
 *     write is new: 100 calls, 0.1 s SYS, longest 5 ms.
 *   tid 101 exited; its futex (1 more call, 0.25 s LCK) went to the
 *     exited-threads table: futex 5, 1.25 s LCK, beside read 2, 0.2 s.
 *   tid 102 (born 0.5 s ago): mmap 3 calls, 20 ms (SYS 5, KFL 5,
 *     APG 10), longest 12 ms; futex 1, 10 ms SYS.
 *   tid 300 (6 s): clock_nanosleep +1, +1 s.
 *   tid 301 exited 0.2 s after A: its epoll_wait returned after 0.1 s
 *     (the row epoll_wait: 1 call, 5.1 s IDL), exit_group 1, 0.1 s SYS,
 *     now in pid 300's exited-threads table.  The new thread 301
 *     (0.8 s): read 2 calls, 0.6 s IDL, longest 0.5 s.
 */
static char *calls_b(void)
{
	struct cfx r[] = {
		{ 0, 100, 4, MS(3500), "futex", 5, MS(400),
		  { [S_LCK] = MS(1250) } },
		{ 0, 100, 4, MS(3500), "read", 2, MS(150),
		  { [S_IOW] = MS(200) } },
		{ 100, 100, 0, MS(5000), "futex", 12, MS(500),
		  { [S_LCK] = MS(1150), [S_SYS] = MS(75), [S_LAT] = MS(75) } },
		{ 100, 100, 0, MS(5000), "write", 100, MS(5),
		  { [S_SYS] = MS(100) } },
		{ 100, 100, 0, MS(5000), "read", 1, MS(50),
		  { [S_IOW] = MS(40), [S_SYS] = MS(10) } },
		{ 100, 100, 0, MS(5000), "other", 28, MS(100),
		  { [S_SYS] = MS(210), [S_IOW] = MS(350) } },
		{ 100, 100, 0, MS(5000), "softirq:TIMER", 50, MS(1),
		  { [S_TRP] = MS(25) } },
		{ 102, 100, 0, 500000000, "mmap", 3, MS(12),
		  { [S_SYS] = MS(5), [S_KFL] = MS(5), [S_APG] = MS(10) } },
		{ 102, 100, 0, 500000000, "futex", 1, MS(10),
		  { [S_SYS] = MS(10) } },
		{ 0, 300, 4, MS(5200), "epoll_wait", 1, MS(5100),
		  { [S_IDL] = MS(5100) } },
		{ 0, 300, 4, MS(5200), "exit_group", 1, MS(100),
		  { [S_SYS] = MS(100) } },
		{ 300, 300, 0, MS(6000), "clock_nanosleep", 6, MS(1000),
		  { [S_SLP] = MS(6000) } },
		{ 301, 300, 0, MS(800), "read", 2, MS(500),
		  { [S_IDL] = MS(600) } },
	};

	return calls_snapshot(MS(11000), r, sizeof(r) / sizeof(r[0]));
}

static void cload(struct tsa_calls_snap *s, const char *text)
{
	char msg[256];
	int rc;

	s->len = strlen(text);
	s->buf = xrealloc(s->buf, s->len + 1);
	s->cap = s->len + 1;
	memcpy(s->buf, text, s->len);
	rc = tsa_calls_parse(s, msg, sizeof(msg));
	if (rc != TSA_OK) {
		printf("# calls parse failed: %s\n", msg);
		exit(2);
	}
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

static void test_format_count_dur(void)
{
	static const struct { uint64_t v; const char *want; } c[] = {
		{ 0, "0" }, { 99999, "99999" }, { 100000, "100K" },
		{ 123456, "123K" }, { 9999999, "9999K" }, { 12345678, "12M" },
		{ 9999999999ull, "9999M" }, { 10000000000ull, "10G" },
		{ UINT64_MAX, "18E" },
	}, t[] = {
		{ 0, "0ns" }, { 999, "999ns" }, { 1000, "1.00us" },
		{ 1999, "1.99us" }, { 12345, "12.3us" }, { 999999, "999us" },
		{ 6666666, "6.66ms" }, { 140000000, "140ms" },
		{ 1000000000, "1.00s" }, { 99990000000ull, "99.9s" },
		{ 999999999999ull, "999s" }, { 3600000000000ull, "3600s" },
	};
	char out[24];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		format_count(out, c[i].v);
		is_str(out, c[i].want, "format_count(%llu) is \"%s\"",
		       (unsigned long long)c[i].v, c[i].want);
	}
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		format_dur(out, t[i].v);
		is_str(out, t[i].want, "format_dur(%llu) is \"%s\"",
		       (unsigned long long)t[i].v, t[i].want);
	}
}

static void test_calls_parser(void)
{
	struct tsa_calls_snap s = { 0 };
	const struct tsa_cgroup *g;
	char msg[256], *text = calls_a();
	const char *hdr = "tsa-calls 1\nnow 50\nrows 8 0\n"
		"fields tid pid uid flags elapsed at kind name calls ns max "
		"sys_ns lck_ns\n";
	static const struct {
		const char *rows;
		int rc;
		const char *msg, *what;
	} bad[] = {
		{ "7 7 0 0 40 50 syscall read 2 10 5 4 6\n"
		  "7 7 0 0 40 50 syscall write 2 1x 5 4 6\n", TSA_EFORMAT,
		  "line 6, column 10: not a number", "a bad number" },
		{ "7 7 0 0 40 50 syscall read 2 10 5 4\n", TSA_EFORMAT,
		  "line 5, column 13: missing (\"fields\" names 13)",
		  "a short line" },
		{ "7 7 0 0 40 50 syscall read 2 10 5 4 6 9\n", TSA_EFORMAT,
		  "line 5, column 14: more columns than \"fields\" names",
		  "a long line" },
		{ "7 7 0 0 40 50 syscall re\001ad 2 10 5 4 6\n", TSA_EFORMAT,
		  "line 5, column 8: bad call name",
		  "a call name with a control byte" },
		{ "7 7 0 0 40 50 syscall read 2 10 5 4 7\n", TSA_EFORMAT,
		  "line 5: the state columns add up to more than ns",
		  "states that add up to more than ns" },
		{ "0 7 0 0 40 50 syscall read 2 10 5 4 6\n", TSA_EFORMAT,
		  "line 5: tid 0", "tid 0 on a thread line" },
		{ "7 7 0 0 40 50 syscall read 2 10 5 4 6\n"
		  "8 7 0 0 40 50 syscall read 2 10 5 4 6\n"
		  "7 7 0 0 40 50 syscall write 2 10 5 4 6\n", TSA_EFORMAT,
		  "line 7: thread 7 is listed again, apart from its other "
		  "lines", "a thread's lines apart" },
	};
	size_t i;

	cload(&s, text);
	free(text);
	is_long((long)s.nrows, 7, "calls parser: one row per syscall line "
		"(the trap line left out)");
	is_long((long)s.ngroups, 5, "calls parser: a group per thread and "
		"per exited-threads table");
	is_long((long)s.now, (long)MS(10000), "calls parser: now");
	is_long((long)s.table_rows, 8, "calls parser: rows");
	is_long((long)s.nnames, 4, "calls parser: call names interned "
		"(futex read other clock_nanosleep)");
	g = tsa_calls_thread(&s, 100, MS(6000));
	ok(g && g->n == 3 && !strcmp(s.names[s.rows[g->first].name], "futex")
	   && s.rows[g->first].v.ns == MS(1000) &&
	   s.rows[g->first].v.st[S_LCK] == MS(900) &&
	   s.rows[g->first].v.max == MS(500) && !s.rows[g->first].v.rest,
	   "calls parser: a thread's rows, columns by name");
	ok(!tsa_calls_thread(&s, 100, MS(6001)),
	   "calls parser: a thread is its tid and its start (at - elapsed)");
	ok(s.other != TSA_NONAME && !strcmp(s.names[s.other], "other"),
	   "calls parser: the other row is known");
	tsa_calls_free(&s);

	/* The first cut of the format (a "call" column, no "kind");
	 * columns in another order, an unknown column and an unknown
	 * state's column: its time is in ns, not in a known state. */
	cload(&s, "tsa-calls 1.2\nnow 9\nrows 8\nnewline x\n"
	      "fields call pid tid flags elapsed at calls ns future "
	      "foo_ns sys_ns\n"
	      "ia32:read 5 6 0 40 9 2 30 77 12 18\n"
	      "#451 5 6 0 40 9 1 1 0 1 0\n");
	ok(s.nrows == 2 && !strcmp(s.names[s.rows[0].name], "ia32:read") &&
	   s.rows[0].v.st[S_SYS] == 18 && s.rows[0].v.rest == 12 &&
	   s.rows[0].v.calls == 2 && s.groups[0].tid == 6 &&
	   !strcmp(s.names[s.rows[1].name], "#451"),
	   "calls parser: the call column, minor version, columns in any "
	   "order, unknown columns skipped, unknown states' time kept "
	   "apart");
	tsa_calls_free(&s);

	/* A kind this reader does not know is left out, as traps are. */
	cload(&s, "tsa-calls 1\nnow 9\nrows 8 6 4\nfields tid pid flags "
	      "elapsed at kind name calls ns\n"
	      "6 5 0 40 9 syscall read 2 30\n6 5 0 40 9 trap irq:24 1 5\n"
	      "6 5 0 40 9 future x 1 1\n6 5 0 40 9 syscall other 1 1\n");
	ok(s.nrows == 2 && s.ngroups == 1 && s.table_rows == 8 &&
	   !strcmp(s.names[s.rows[0].name], "read") && s.rows[1].name ==
	   s.other, "calls parser: only syscall lines; rows with more numbers");
	tsa_calls_free(&s);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *t;

		if (asprintf(&t, "%s%s", hdr, bad[i].rows) < 0)
			exit(2);
		s.len = strlen(t);
		s.buf = xrealloc(s.buf, s.len + 1);
		s.cap = s.len + 1;
		memcpy(s.buf, t, s.len);
		msg[0] = '\0';
		is_long(tsa_calls_parse(&s, msg, sizeof(msg)), bad[i].rc,
			"calls parser: %s is refused", bad[i].what);
		is_str(msg, bad[i].msg, "calls parser: ... saying where");
		free(t);
	}
	{
		static const struct {
			const char *text, *msg;
			int rc;
		} head[] = {
			{ "tsa-calls 2\nfields tid\n",
			  "format version 2, this tsa-prstat reads version 1",
			  TSA_EVERSION },
			{ "tsa-all 1\n", "not a tsa-calls file (first line: "
			  "\"tsa-all 1\")", TSA_EFORMAT },
			{ "tsa-calls 1\nnow 1\n", "no \"fields\" line",
			  TSA_EFORMAT },
			{ "tsa-calls 1\nfields tid pid flags elapsed at kind "
			  "calls ns\n", "line 2: \"fields\" lacks name",
			  TSA_EFORMAT },
			{ "tsa-calls 1\nrows 0 6\nfields tid pid flags elapsed "
			  "at kind name calls ns\n", "the module keeps no "
			  "system-call rows (\"rows 0\")", TSA_ENOCALLS },
			{ "tsa-calls 1\nrows 8x\nfields tid\n",
			  "line 2: bad \"rows\"", TSA_EFORMAT },
		};

		for (i = 0; i < sizeof(head) / sizeof(head[0]); i++) {
			s.len = strlen(head[i].text);
			s.buf = xrealloc(s.buf, s.len + 1);
			s.cap = s.len + 1;
			memcpy(s.buf, head[i].text, s.len);
			msg[0] = '\0';
			is_long(tsa_calls_parse(&s, msg, sizeof(msg)),
				head[i].rc, "calls parser: header %zu refused",
				i + 1);
			is_str(msg, head[i].msg, "calls parser: ... as %s",
			       head[i].msg);
		}
	}
	tsa_calls_free(&s);
}

#define HDR_CL \
"   PID SYSCALL          PCT CALLS    AVG    MAX SYS LAT FLT APG LCK KLK IOW IDL SLP PROCESS/LWPID \n"
#define HDR_CP \
"   PID SYSCALL          PCT CALLS    AVG    MAX SYS LAT FLT APG LCK KLK IOW IDL SLP PROCESS/NLWP  \n"

/*
 * -yL, B against A (1 s; percentages of each thread's own elapsed):
 *   300 clock_nanosleep: +1 call, +1 s of 1 s: 100, 1.00s, SLP 100.
 *   301 is a new thread on a reused tid: lifetime, read 0.6 of 0.8 s
 *     = 75, 2 calls, avg 300ms, longest 500ms, IDL 100.
 *   100 futex: +2, +0.3 s = 30, avg 150ms, longest 500ms (as
 *     reported), SYS 0.025/0.3 = 8.3, LAT 8.3, LCK 83.
 *   100 write: new row, 100 calls, 0.1 s = 10, avg 1.00ms, SYS 100.
 *   100 other: 28 - 5 - 20 (read's, moved) = 3 calls, 0.56 - 0.1 - 0.4
 *     = 60 ms = 6.0, avg 20.0ms, longest 100ms; SYS 10/60 = 17,
 *     IOW 50/60 = 83.
 *   100 read: fewer calls than before, so taken again: all of it, 1 call,
 *     50 ms = 5.0, SYS 20, IOW 80.
 *   102 (born in the interval, 0.5 s): mmap 20 ms = 4.0, 3 calls,
 *     avg 6.66ms, SYS 25, FLT (KFL) 25, APG 50; futex 10 ms = 2.0.
 *   200 made no call: no line.
 */
static const char want_yL[] = HDR_CL
"   300 clock_nanosleep  100     1  1.00s  1.00s 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 100 sleeper/300\n"
"   300 read              75     2  300ms  500ms 0.0 0.0 0.0 0.0 0.0 0.0 0.0 100 0.0 sleeper/301\n"
"   100 futex             30     2  150ms  500ms 8.3 8.3 0.0 0.0  83 0.0 0.0 0.0 0.0 db server/100\n"
"   100 write             10   100 1.00ms 5.00ms 100 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 db server/100\n"
"   100 other            6.0     3 20.0ms  100ms  17 0.0 0.0 0.0 0.0 0.0  83 0.0 0.0 db server/100\n"
"   100 read             5.0     1 50.0ms 50.0ms  20 0.0 0.0 0.0 0.0 0.0  80 0.0 0.0 db server/100\n"
"   100 mmap             4.0     3 6.66ms 12.0ms  25 0.0  25  50 0.0 0.0 0.0 0.0 0.0 db worker/102\n"
"   100 futex            2.0     1 10.0ms 10.0ms 100 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 db worker/102\n"
TOTAL;

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
 * The sums are exact: over any interval, a thread's or process's call
 * lines add up, column by column, to the growth of all its rows and
 * other, even when rows are evicted, come back, or move to the exited
 * threads' table.
 */
static void test_calls_sums(void)
{
	char *a = snap_a(), *b = snap_b(), *ca = calls_a(), *cb = calls_b();
	struct tsa_snap sa = { 0 }, sb = { 0 };
	struct tsa_calls_snap xa = { 0 }, xb = { 0 };
	struct tsa_select sel = { 0, 1, NULL, 0 };
	struct tsa_delta *d = NULL;
	struct tsa_call_line *l = NULL;
	struct tsa_totals tot;
	size_t cap = 0, lcap = 0, n, i;
	uint64_t calls100 = 0, ns100 = 0, iow100 = 0, idl300 = 0;

	load(&sa, a);
	load(&sb, b);
	cload(&xa, ca);
	cload(&xb, cb);
	n = tsa_delta_compute(&sa, &sb, &sel, &d, &cap, &tot);
	n = tsa_calls_compute(&sa, &sb, &xa, &xb, &sel, d, n, &l, &lcap);
	for (i = 0; i < n; i++) {
		uint64_t sum = l[i].d.rest;
		int s;

		for (s = 0; s < TSA_NSTATES; s++)
			sum += l[i].d.st[s];
		if (sum != l[i].d.ns)
			break;
		if (l[i].who->pid == 100) {
			calls100 += l[i].d.calls;
			ns100 += l[i].d.ns;
			iow100 += l[i].d.st[S_IOW];
		} else {
			idl300 += l[i].d.st[S_IDL];
		}
	}
	is_long((long)i, (long)n, "calls: each line's states add up to its "
		"time");
	/* pid 100: B's rows sum to 18+3+28+100+3 = 152 calls, 3.49 s;
	 * A's to 14+22+5 = 41 calls, 2.7 s. */
	is_long((long)calls100, 152 - 41, "calls: pid 100's lines add up to "
		"the growth of its calls");
	is_long((long)ns100, (long)(MS(3490) - MS(2700)), "calls: ... and "
		"of its time");
	is_long((long)iow100, (long)(MS(590) - MS(500)), "calls: ... and "
		"of its time in each state (IOW)");
	is_long((long)idl300, (long)(MS(5700) - MS(5000)), "calls: ... pid "
		"300's IDL too, though its other went down");
	free(d);
	free(l);
	tsa_snap_free(&sa);
	tsa_snap_free(&sb);
	tsa_calls_free(&xa);
	tsa_calls_free(&xb);
	free(a);
	free(b);
	free(ca);
	free(cb);
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

/* ---- the binary, end to end ------------------------------------------- */




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
/*
 * Hand snaps[i] to the reader of fifos[i % nf], one at a time: each
 * only once the reader has closed that FIFO after the one before (a
 * FIFO has no end of file of its own).  With one FIFO the writer looks
 * for the moment no reader has it open; with two or more read in turn
 * (/proc/tsa/all and calls) a blocking open is enough, since the reader
 * opens the next only after it closed the last (and a probing open and
 * close would end a read that just began).
 */



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
	snprintf(cmd, sizeof(cmd), "CALLS=%s/calls sh %s/gen-all.sh 10000 > "
		 "%s/all", dir, testdir, dir);
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

	/*
	 * Groups of the same threads: ten reports each (the first reads
	 * every process's cgroup file, the next ones take it from the
	 * cache); a fake /proc with one cgroup file per process, in 50
	 * cgroups.
	 */
	snprintf(cmd, sizeof(cmd), "cd %s && mkdir -p proc && for p in "
		 "$(awk 'NR > 4 { print $2 }' all | uniq); do mkdir -p "
		 "proc/$p && echo 0::/system.slice/svc$((p %% 50)).service "
		 "> proc/$p/cgroup; done", dir);
	if (system(cmd) == 0) {
		static const char *const by[] = { "user", "comm", "cgroup" };
		char procfs[400];
		size_t i;

		snprintf(procfs, sizeof(procfs), "%s/proc", dir);
		setenv("TSA_PROCFS", procfs, 1);
		for (i = 0; i < 3; i++) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			rc = run(dir, (const char *[]){ "--group", by[i], "-c",
				 "0.001", "10", NULL }, &out, &err, 0);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			is_long(rc, 0, "10,000 threads, --group %s: exit 0",
				by[i]);
			if (i == 2)
				ok(strstr(out, " /system.slice/svc49.service\n")
				   && !strstr(out, " ?\n"),
				   "10,000 threads, --group cgroup: every "
				   "process in its cgroup");
			printf("# 10,000 threads, --group %s, ten reports: "
			       "%.0f ms\n", by[i],
			       (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			       (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
			free(out);
			free(err);
		}
		unsetenv("TSA_PROCFS");
	} else {
		skip("10,000 threads: no fake /proc for --group cgroup");
	}

	/*
	 * The system-call view of the same threads: the first report has a
	 * line per thread's call row; the second, of the same snapshot,
	 * none (nothing happened in between).
	 */
	{
		char path[400], *calls, *q;
		long rows = 0;

		snprintf(path, sizeof(path), "%s/calls", dir);
		calls = slurp(path);
		/* Lines of live threads (tid not 0), system calls only. */
		for (q = calls; (q = strchr(q, '\n')) != NULL; q++) {
			char *nl = strchr(q + 1, '\n'), *sc;

			sc = strstr(q + 1, " syscall ");
			rows += q[1] >= '1' && q[1] <= '9' && sc &&
				(!nl || sc < nl);
		}
		free(calls);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = run(dir, (const char *[]){ "-yL", "-c", "0.001", "2",
			 NULL }, &out, &err, 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		for (lines = 0, p = out; *p; p++)
			lines += *p == '\n';
		is_long(rc, 0, "10,000 threads, -yL: exit 0");
		is_long(lines, rows + 2 + 2, "10,000 threads, -yL: every "
			"thread's calls, then none (the same snapshot again)");
		printf("# 10,000 threads, -yL, two reports (%ld call rows): "
		       "%.0f ms\n", rows,
		       (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
		free(out);
		free(err);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = run(dir, (const char *[]){ "-y", "-c", "0.001", "2",
			 NULL }, &out, &err, 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		is_long(rc, 0, "10,000 threads, -y (calls merged per "
			"process): exit 0");
		printf("# 10,000 threads, -y, two reports: %.0f ms\n",
		       (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
		free(out);
		free(err);
	}
}

/* The system-call view through the binary: errors, and two reports
 * through two FIFOs ("all" and "calls"). */
static void test_calls_binary(void)
{
	char *out, *err, path[400], cpath[400], want[600], *dir, *p;
	char *snaps[2], *csnaps[2], *w;
	int rc, status;
	pid_t fa, fc;

	dir = mkdir_in_tmp("nocalls");
	snprintf(path, sizeof(path), "%s/all", dir);
	out = snap_a();
	put(path, out);
	free(out);
	rc = run(dir, (const char *[]){ "-y", "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 2, "-y without /proc/tsa/calls: exit 2");
	snprintf(want, sizeof(want), "tsa-prstat: %s/calls: not found; the "
		 "tsa module must be loaded with calls=N (N > 0) and "
		 "syscalls=1 for -y (sudo modprobe -r tsa; sudo modprobe tsa "
		 "calls=8 syscalls=1)\n", dir);
	is_str(err, want, "-y without /proc/tsa/calls: the one-line message");
	ok(!*out, "-y without /proc/tsa/calls: no report");
	free(out);
	free(err);

	rc = run("/nonexistent/tsa", (const char *[]){ "--syscalls", "1", "1",
		 NULL }, &out, &err, 0);
	is_long(rc, 2, "--syscalls without the module: exit 2, as the others");
	ok(strstr(err, "is the tsa module loaded?") != NULL,
	   "--syscalls without the module: the module message first");
	free(out);
	free(err);

	/* A calls file for traps only (calls=0, interrupts=1). */
	snprintf(cpath, sizeof(cpath), "%s/calls", dir);
	put(cpath, "tsa-calls 1\nnow 1\nrows 0 6\nfields tid pid uid flags "
	    "elapsed at kind name calls ns max trp_ns\n"
	    "100 100 0 0 4000000000 10000000000 trap irq:24 1 5 5 5\n");
	rc = run(dir, (const char *[]){ "-y", "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 2, "-y with a calls file of traps only: exit 2");
	snprintf(want, sizeof(want), "tsa-prstat: %s/calls: no system-call "
		 "rows; the tsa module must be loaded with calls=N (N > 0) and "
		 "syscalls=1 for -y (sudo modprobe -r tsa; sudo modprobe tsa "
		 "calls=8 syscalls=1)\n", dir);
	is_str(err, want, "-y with a calls file of traps only: the message");
	free(out);
	free(err);

	/* A malformed calls file: where it is. */
	snprintf(cpath, sizeof(cpath), "%s/calls", dir);
	out = calls_a();
	p = strstr(out, "\n101 100 ");
	p = strchr(p + 1, ' ');			/* after the tid */
	for (rc = 0; rc < 7; rc++)
		p = strchr(p + 1, ' ');		/* to column 9: calls */
	p[1] = 'x';
	put(cpath, out);
	free(out);
	rc = run(dir, (const char *[]){ "-y", "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 5, "-y with a malformed calls file: exit 5");
	snprintf(want, sizeof(want), "tsa-prstat: %s/calls: line 10, column "
		 "9: not a number\n", dir);
	is_str(err, want, "-y with a malformed calls file: file, line and "
	       "column");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-A", "-y", NULL }, &out, &err, 0);
	is_long(rc, 1, "-A with -y: exit 1");
	ok(strstr(err, "choose one") != NULL, "-A with -y: two views");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-y", "-s", "cpu", NULL }, &out, &err,
		 0);
	is_long(rc, 1, "-y -s cpu: exit 1");
	ok(strstr(err, "not a column of the syscalls view") != NULL,
	   "-y -s cpu: not a column of the view");
	free(out);
	free(err);

	/* Two reports, the second against the first. */
	dir = mkdir_in_tmp("cfifo");
	snprintf(path, sizeof(path), "%s/all", dir);
	snprintf(cpath, sizeof(cpath), "%s/calls", dir);
	if (mkfifo(path, 0600) || mkfifo(cpath, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	snaps[0] = snap_a();
	snaps[1] = snap_b();
	csnaps[0] = calls_a();
	csnaps[1] = calls_b();
	fa = feed_fifo(path, snaps, 2);
	fc = feed_fifo(cpath, csnaps, 2);
	rc = run(dir, (const char *[]){ "-yL", "0.2", "2", NULL }, &out, &err,
		 0);
	waitpid(fa, &status, 0);
	waitpid(fc, &status, 0);
	is_long(rc, 0, "-yL, two reports through FIFOs: exit 0");
	p = strstr(out + 1, "   PID SYSCALL");
	w = strdup(want_yL);
	cut_loadavg(w);
	if (p)
		cut_loadavg(p);
	is_str(p, w, "second report of the binary (-yL) is the hand-computed "
	       "one");
	free(w);
	free(out);
	free(err);

	fa = feed_fifo(path, snaps, 2);
	fc = feed_fifo(cpath, csnaps, 2);
	rc = run(dir, (const char *[]){ "--syscalls", "--json", "0.2", "2",
		 NULL }, &out, &err, 0);
	waitpid(fa, &status, 0);
	waitpid(fc, &status, 0);
	is_long(rc, 0, "--syscalls --json: exit 0");
	{
		int lines = 0;

		for (p = out; *p; p++)
			lines += *p == '\n';
		is_long(lines, 5 + 9, "--syscalls --json: one object per "
			"line of each report");
	}
	if (system("python3 -c '' 2>/dev/null") == 0) {
		char cmd[800];

		/* Every line parses; a line's states add up to its ns. */
		snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys\n"
			 "for l in open(sys.argv[1]):\n"
			 "    o = json.loads(l)\n"
			 "    assert o[\"call\"] and \"nlwp\" in o, l\n"
			 "    assert sum(s[\"ns\"] for s in "
			 "o[\"states\"].values()) == o[\"ns\"], l\n' %s/stdout",
			 tmp);
		is_long(system(cmd), 0, "--syscalls --json: every line parses "
			"(python3 json.loads), its states add up to its ns");
	} else {
		skip("--syscalls --json: python3 not found");
	}
	free(out);
	free(err);
	free(snaps[0]);
	free(snaps[1]);
	free(csnaps[0]);
	free(csnaps[1]);
	unlink(path);
	unlink(cpath);
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
	metrics_print(f, fmt, by, t.g, n, NULL, 0);
	fclose(f);
	group_table_free(&t);
	tsa_snap_free(&s);
	free(text);
	return out;
}

/* Does @text have the line @line (whole)? */
static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
		p++;
	}
	return 0;
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

/* Run @cmd with the file @path on its stdin or as "%s"; 0 if it passes. */
static int check_cmd(const char *fmt, const char *path)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), fmt, path, path, path);
	fflush(stdout);
	return system(cmd);
}

static void test_metrics_binary(void)
{
	static const char *const groups[] = { "pid", "cgroup", "user",
					      "comm" };
	char *out, *err, path[400], mpath[400], *dir, *text;
	int rc, have_promtool;
	size_t i;
	struct fx r[] = {
		{ 500, 500, 0, 0, MS(1000), S_USR, { [S_USR] = MS(1000) },
		  1, 2, 3, 4, "we\"ird\\134na me\\012x\\377\\001" },
		{ 501, 500, 0, 0, MS(1000), S_SLP, { [S_SLP] = MS(1000) },
		  0, 0, 0, 0, "worker-1" },
		{ 502, 500, 0, 0, MS(1000), S_SLP, { [S_SLP] = MS(1000) },
		  0, 0, 0, 0, "worker-2" },
		{ 0, 500, 0, 4, MS(3000), 0, { [S_LCK] = MS(3000) },
		  9, 0, 0, 0, "we\"ird\\134na me\\012x\\377\\001" },
	};

	dir = mkdir_in_tmp("metrics");
	snprintf(path, sizeof(path), "%s/all", dir);
	snprintf(mpath, sizeof(mpath), "%s/out.prom", tmp);
	text = snap_b();
	{
		/* Snapshot B and a process with an awkward name after it. */
		char *more = snapshot(MS(11000), r, sizeof(r) / sizeof(r[0]));
		char *rows = strstr(more, "\n500 ");
		FILE *f = fopen(path, "w");

		fputs(text, f);
		fputs(rows + 1, f);
		fclose(f);
		free(more);
	}
	free(text);

	rc = run(dir, (const char *[]){ "--openmetrics", "-p", "500", NULL },
		 &out, &err, 0);
	is_long(rc, 0, "--openmetrics -p 500: exit 0");
	ok(has_line(out, "tsa_process_state_seconds_total{pid=\"500\",comm="
		    "\"we\\\"ird\\\\na me\\nx\xef\xbf\xbd\xef\xbf\xbd\","
		    "user=\"root\",state=\"LCK\"} 3.000000000"),
	   "a name with a quote, backslash, space, newline, 0xff and 0x01 "
	   "is escaped; the exited threads' 3 s LCK count");
	ok(!strstr(out, "pid=\"100\""), "-p selects the process");
	free(out);
	free(err);

	have_promtool = system("command -v promtool >/dev/null") == 0;
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		rc = run(dir, (const char *[]){ "--prometheus", "--group",
			 groups[i], NULL }, &out, &err, 0);
		is_long(rc, 0, "--prometheus --group %s: exit 0", groups[i]);
		put(mpath, out);
		if (have_promtool)
			is_long(check_cmd("promtool check metrics < %s",
					  mpath), 0,
				"promtool check metrics accepts --prometheus "
				"--group %s", groups[i]);
		else
			ok(0, "promtool not found (tests/deps.sh installs "
			   "Debian's prometheus)");
		free(out);
		free(err);

		rc = run(dir, (const char *[]){ "--openmetrics", "--group",
			 groups[i], NULL }, &out, &err, 0);
		is_long(rc, 0, "--openmetrics --group %s: exit 0", groups[i]);
		put(mpath, out);
		/*
		 * promtool's OpenMetrics parser is Prometheus's own, in the
		 * backfill command, which wants a timestamp on each sample.
		 */
		if (have_promtool)
			is_long(check_cmd("d=$(mktemp -d) && sed -E "
				"'/^[^#]/ s/$/ 1700000000/' %s > $d/ts && "
				"promtool tsdb create-blocks-from openmetrics "
				"$d/ts $d/blocks >/dev/null; rc=$?; "
				"rm -rf $d; exit $rc", mpath), 0,
				"promtool's OpenMetrics parser accepts "
				"--openmetrics --group %s", groups[i]);
		/* Debian's python3-prometheus-client is in /usr/bin's. */
		if (system("/usr/bin/python3 -c 'import prometheus_client' "
			   "2>/dev/null") == 0)
			is_long(check_cmd("/usr/bin/python3 -c 'import sys\n"
				"from prometheus_client.openmetrics.parser "
				"import text_string_to_metric_families as p\n"
				"n = sum(len(f.samples) for f in "
				"p(open(sys.argv[1]).read()))\n"
				"assert n > 0' %s", mpath), 0,
				"prometheus_client's OpenMetrics parser accepts "
				"--openmetrics --group %s", groups[i]);
		else
			skip("python3-prometheus-client not installed");
		free(out);
		free(err);
	}
	/* The lint really runs: a counter without _total fails it. */
	if (have_promtool) {
		put(mpath, "# HELP x_seconds a\n# TYPE x_seconds counter\n"
		    "x_seconds 1\n");
		ok(check_cmd("promtool check metrics < %s >/dev/null 2>&1",
			     mpath) != 0,
		   "promtool check metrics rejects a counter without _total");
	}

	rc = run(dir, (const char *[]){ "--prometheus", "-L", NULL }, &out,
		 &err, 0);
	ok(rc == 1 && strstr(err, "per-thread"),
	   "--prometheus -L: exit 1, no per-thread series");
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--openmetrics", "1", NULL }, &out,
		 &err, 0);
	ok(rc == 1 && strstr(err, "one snapshot"),
	   "--openmetrics with an interval: exit 1");
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--prometheus", "--group", "tid",
		 NULL }, &out, &err, 0);
	ok(rc == 1 && strstr(err, "--group: 'tid'"),
	   "--group tid: exit 1");
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--group", "user", "-L", NULL },
		 &out, &err, 0);
	ok(rc == 1 && strstr(err, "not with -L or -y"),
	   "--group with -L: exit 1");
	free(out);
	free(err);
	rc = run("/nonexistent/tsa", (const char *[]){ "--prometheus", NULL },
		 &out, &err, 0);
	ok(rc == 2 && !*out, "--prometheus, module not loaded: exit 2, "
	   "no output");
	free(out);
	free(err);
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

/* A fake /proc/PID/cgroup under @procfs. */
static void put_cgroup(const char *procfs, int pid, const char *text)
{
	char path[400];

	snprintf(path, sizeof(path), "%s/%d", procfs, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/cgroup", procfs, pid);
	put(path, text);
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
	       " NPROC  NLWP USR SYS TRP TFL DFL LCK SLP LAT VCX ICX SCL SIG "
	       "USERNAME\n"
	       "     1     1  50 0.0 0.0 0.0 0.0 0.0 0.0  50   0 .10   0   0 "
	       "4000000\n"
	       "     2     4  19 2.5 0.0 1.2 3.7 6.2  60 7.5  2K  1K .2M   1 "
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
	       " NPROC  NLWP USR SYS TRP TFL DFL LCK SLP LAT VCX ICX SCL SIG "
	       "THREADNAME\n"
	       "     1     2  10 0.0 0.0 0.0 0.0 0.0  90 0.0   5   0   0   0 "
	       "sleeper\n"
	       "     1     1  10 0.0 0.0  10 9.9 0.0  60  10  1K   0 99K   0 "
	       "db worker\n"
	       "     1     1  33 6.7 0.0 0.0 6.7  17  20  17  1K  1K .1M   1 "
	       "db server\n"
	       "     1     1  50 0.0 0.0 0.0 0.0 0.0 0.0  50   0 .10   0   0 "
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

/* Group reports through the binary: two snapshots through a FIFO. */
static void test_group_binary(void)
{
	char *out, *err, path[400], *dir, *snaps[2], *p;
	int rc, status;
	pid_t w;

	dir = mkdir_in_tmp("gfifo");
	snprintf(path, sizeof(path), "%s/all", dir);
	if (mkfifo(path, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	snaps[0] = snap_a();
	snaps[1] = snap_b();
	w = feed_fifo(path, snaps, 2);
	rc = run(dir, (const char *[]){ "--group", "user", "0.2", "2", NULL },
		 &out, &err, 0);
	waitpid(w, &status, 0);
	is_long(rc, 0, "--group user, two reports through a FIFO: exit 0");
	p = strstr(out + 1, " NPROC");
	ok(p && strstr(p, "\n     2     4  19 2.5 0.0 1.2 3.7 6.2  60 7.5  "
			   "2K  1K .2M   1 root\n"),
	   "--group user: the second report's root line is the hand-"
	   "computed one");
	free(out);
	free(err);

	w = feed_fifo(path, snaps, 2);
	rc = run(dir, (const char *[]){ "--group", "comm", "--json", "0.2",
		 "2", NULL }, &out, &err, 0);
	waitpid(w, &status, 0);
	is_long(rc, 0, "--group comm --json: exit 0");
	if (system("python3 -c '' 2>/dev/null") == 0) {
		char cmd[800];

		/* Every line parses; its states add up to its elapsed. */
		snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys\n"
			 "n = 0\n"
			 "for l in open(sys.argv[1]):\n"
			 "    o = json.loads(l); n += 1\n"
			 "    assert o[\"group\"] == \"comm\", l\n"
			 "    assert sum(s[\"ns\"] for s in "
			 "o[\"states\"].values()) == o[\"elapsed_ns\"], l\n"
			 "assert n == 8, n\n' %s/stdout", tmp);
		is_long(system(cmd), 0, "--group comm --json: 4 groups "
			"twice, every line parses, states add up to "
			"elapsed_ns");
	} else {
		skip("--group --json: python3 not found");
	}
	free(out);
	free(err);
	free(snaps[0]);
	free(snaps[1]);
	unlink(path);

	/* --group pid is the usual process report. */
	dir = mkdir_in_tmp("gpid");
	snprintf(path, sizeof(path), "%s/all", dir);
	snaps[0] = snap_b();
	put(path, snaps[0]);
	{
		char *out2, *err2;

		rc = run(dir, (const char *[]){ "--group", "pid", "1", "1",
			 NULL }, &out, &err, 0);
		run(dir, (const char *[]){ "1", "1", NULL }, &out2, &err2, 0);
		cut_loadavg(out);
		cut_loadavg(out2);
		ok(rc == 0 && !strcmp(out, out2),
		   "--group pid is the default per-process report");
		free(out2);
		free(err2);
	}
	free(out);
	free(err);
	free(snaps[0]);
}

/* ---- captures: --save and --compare ------------------------------------ */

/* Save the snapshot @text through the binary into @cap; its exit. */
static int save_via_binary(const char *name, const char *text,
			   const char *cap)
{
	char path[400], *dir, *out, *err;
	int rc;

	dir = mkdir_in_tmp(name);
	snprintf(path, sizeof(path), "%s/all", dir);
	put(path, text);
	rc = run(dir, (const char *[]){ "--save", cap, NULL }, &out, &err, 0);
	free(out);
	free(err);
	return rc;
}

static void test_capture_roundtrip(void)
{
	struct tsa_snap s = { 0 };
	struct capture c = { 0 };
	char *text = snap_a(), path[400], msg[256], procfs[300];
	size_t i, same = 0;
	FILE *f;
	int rc, k;

	/* A name the kernel escaped: a backslash, a tab, a newline. */
	text = xrealloc(text, strlen(text) + 400);
	strcat(text, "400 400 0 0 1000 0 0");
	for (k = 0; k < 3 * TSA_NSTATES + 1; k++)	/* + "future" */
		strcat(text, k == 0 ? " 1000" : " 0");
	strcat(text, " 0 0 0 0 0 0 0 a\\134b\\011c\\012d\n");
	load(&s, text);
	snprintf(procfs, sizeof(procfs), "%s", mkdir_in_tmp("procfs3"));
	put_cgroup(procfs, 100, "0::/db slice\\x\n");
	snprintf(path, sizeof(path), "%s/roundtrip.cap", tmp);
	f = fopen(path, "w");
	rc = capture_write(f, &s, procfs, NULL, 0);
	fclose(f);
	is_long(rc, 0, "capture_write: 0");
	rc = capture_read(&c, path, msg, sizeof(msg));
	is_long(rc, TSA_OK, "capture_read of it: ok%s%s", rc ? ": " : "",
		rc ? msg : "");
	if (rc == TSA_OK && c.snap.nrows == s.nrows) {
		for (i = 0; i < s.nrows; i++) {
			const struct tsa_row *x = &s.rows[i], *y = &c.snap.rows[i];
			int eq = !strcmp(x->comm, y->comm) &&
				 x->v[F_TID] == y->v[F_TID] &&
				 x->v[F_PID] == y->v[F_PID] &&
				 x->v[F_UID] == y->v[F_UID] &&
				 x->v[F_FLAGS] == y->v[F_FLAGS] &&
				 x->v[F_ELAPSED] == y->v[F_ELAPSED] &&
				 x->v[F_AT] == y->v[F_AT];

			for (k = 0; k < TSA_NSTATES; k++)
				eq &= x->v[F_NS + k] == y->v[F_NS + k];
			for (k = 0; k < TSA_NCOUNTERS; k++)
				eq &= x->v[F_CNT + k] == y->v[F_CNT + k];
			same += eq;
		}
	}
	is_long((long)same, (long)s.nrows, "a capture read back has every "
		"row's states, counters, ids, times and name (\\, tab, "
		"newline) as saved");
	{
		char cg[256];

		cgroup_lookup(&c.cc, cg, sizeof(cg), "/nonexistent", 100,
			      tsa_row_since(&s.rows[s.procs[0].leader]));
		is_str(cg, "/db slice\\x", "the capture keeps pid 100's "
		       "cgroup (a space and a backslash in it)");
	}
	capture_free(&c);
	tsa_snap_free(&s);
	free(text);
}

static void test_compare_binary(void)
{
	char a[400], b[400], b2[400], path[400], *out, *err, *text, *p;
	int rc;

	snprintf(a, sizeof(a), "%s/a.cap", tmp);
	snprintf(b, sizeof(b), "%s/b.cap", tmp);
	text = snap_a();
	is_long(save_via_binary("capa", text, a), 0, "--save a.cap: exit 0");
	free(text);
	text = snap_b();
	is_long(save_via_binary("capb", text, b), 0, "--save b.cap: exit 0");
	free(text);

	/*
	 * A -> B by thread name: the group report's numbers (see
	 * test_group_report), and TIME, the threads' time in it: db
	 * server 1.5 s, sleeper 2 s, db worker .5 s, spin 1 s.  Only in
	 * A: tid 101 (exited) and the first 301; only in B: 102 and the
	 * second 301; no process gone.  Sorted by SLP time (the column:
	 * SLP + KLK + IOW + IDL), not share.
	 */
	rc = run(NULL, (const char *[]){ "--compare", a, b, "--group", "comm",
		 "-s", "slp", NULL }, &out, &err, 0);
	is_long(rc, 0, "--compare a b --group comm: exit 0");
	p = strchr(out, '\n');
	is_str(p ? p + 1 : out,
	       " NPROC  NLWP   TIME USR SYS TRP TFL DFL LCK SLP LAT VCX ICX "
	       "SCL SIG THREADNAME\n"
	       "     1     2  2.00s  10 0.0 0.0 0.0 0.0 0.0  90 0.0   5   0 "
	       "  0   0 sleeper\n"
	       "     1     1  500ms  10 0.0 0.0  10 9.9 0.0  60  10  1K   0 "
	       "99K   0 db worker\n"
	       "     1     1  1.50s  33 6.7 0.0 0.0 6.7  17  20  17  1K  1K "
	       ".1M   1 db server\n"
	       "     1     1  1.00s  50 0.0 0.0 0.0 0.0 0.0 0.0  50   0 .10 "
	       "  0   0 spin\n"
	       "Total: 3 processes, 5 lwps in B; only in A: 2 threads "
	       "(exited), 0 processes gone (their time after A is not "
	       "counted); only in B: 2 threads (new, counted from their "
	       "start)\n",
	       "--compare: per thread name by SLP time (sleeper 1.8 s, db "
	       "worker .30075 s, db server .3 s: though its share is "
	       "lower), threads in one capture only counted");
	ok(!strncmp(out, "Compare: ", 9) && strstr(out, ", 1.000 s apart\n"),
	   "--compare: the first line names the two times, 1 s apart");
	free(out);
	free(err);

	/* Per process (the default), JSON: B's process 200 gone. */
	snprintf(b2, sizeof(b2), "%s/b2.cap", tmp);
	text = snap_b();
	p = strstr(text, "\n200 200 ");
	if (p) {
		char *nl = strchr(p + 1, '\n');

		memmove(p + 1, nl + 1, strlen(nl + 1) + 1);
	}
	is_long(save_via_binary("capb2", text, b2), 0, "--save b2.cap "
		"(pid 200 gone): exit 0");
	free(text);
	rc = run(NULL, (const char *[]){ "--compare", a, b2, "--json", NULL },
		 &out, &err, 0);
	is_long(rc, 0, "--compare --json: exit 0");
	ok(strstr(out, "\"group\":\"pid\",\"name\":\"100\",\"nproc\":1,"
		  "\"nlwp\":2,\"first\":false,\"elapsed_ns\":2000000000,") &&
	   strstr(out, "\"only_a_threads\":3,\"gone_processes\":1,"
		  "\"only_b_threads\":2}}\n"),
	   "--compare --json: pid 100's 2 s, exited tid 101 within; pid 200 "
	   "gone, its 3 threads of A counted as only in A");
	free(out);
	free(err);

	/* Errors: clear, one line, non-zero. */
	rc = run(NULL, (const char *[]){ "--compare", a, "/nonexistent/x.cap",
		 NULL }, &out, &err, 0);
	is_str(err, "tsa-prstat: /nonexistent/x.cap: No such file or "
	       "directory\n", "--compare, a missing capture: its name and "
	       "why");
	is_long(rc, 5, "--compare, a missing capture: exit 5");
	free(out);
	free(err);

	snprintf(path, sizeof(path), "%s/capa/all", tmp);
	rc = run(NULL, (const char *[]){ "--compare", path, b, NULL }, &out,
		 &err, 0);
	ok(rc == 5 && strstr(err, "all: not a tsa-prstat capture (first "
			     "line: \"tsa-all 1\")\n"),
	   "--compare, a /proc/tsa/all that is not a capture: exit 5");
	free(out);
	free(err);

	/* Cut short, then one byte changed. */
	text = slurp(b);
	snprintf(path, sizeof(path), "%s/cut.cap", tmp);
	text[strlen(text) - 7] = '\0';
	put(path, text);
	rc = run(NULL, (const char *[]){ "--compare", a, path, NULL }, &out,
		 &err, 0);
	ok(rc == 5 && strstr(err, "cut.cap: damaged capture: ") &&
	   strstr(err, "(cut short?)\n"),
	   "--compare, a capture cut short: exit 5, \"damaged capture\"");
	free(out);
	free(err);
	free(text);
	text = slurp(b);
	p = strstr(text, "\n100 100 0 0 5000000000 ");
	if (p)
		p[20] = '6';	/* elapsed 5 s -> 6 s */
	snprintf(path, sizeof(path), "%s/flip.cap", tmp);
	put(path, text);
	rc = run(NULL, (const char *[]){ "--compare", a, path, NULL }, &out,
		 &err, 0);
	ok(p && rc == 5 && strstr(err, "flip.cap: damaged capture: checksum "
				  "mismatch\n"),
	   "--compare, a capture with one digit changed: exit 5, checksum");
	free(out);
	free(err);
	p = strstr(text, "tsa-capture 1");
	if (p)
		p[12] = '3';
	snprintf(path, sizeof(path), "%s/v3.cap", tmp);
	put(path, text);
	rc = run(NULL, (const char *[]){ "--compare", a, path, NULL }, &out,
		 &err, 0);
	ok(rc == 5 && strstr(err, "capture format version 3, this "
			     "tsa-prstat reads versions 1 and 2\n"),
	   "--compare, a capture of format version 3: exit 5, named");
	free(out);
	free(err);
	free(text);

	rc = run(NULL, (const char *[]){ "--compare", tmp, b, NULL }, &out,
		 &err, 0);
	ok(rc == 5 && strstr(err, "Is a directory"),
	   "--compare, a directory: exit 5");
	free(out);
	free(err);
	rc = run(NULL, (const char *[]){ "--compare", b, a, NULL }, &out,
		 &err, 0);
	ok(rc == 5 && strstr(err, "give the earlier capture first"),
	   "--compare b a (the later first): exit 5");
	free(out);
	free(err);
	rc = run(NULL, (const char *[]){ "--compare", a, NULL }, &out, &err,
		 0);
	ok(rc == 1 && strstr(err, "needs two captures"),
	   "--compare with one capture: exit 1");
	free(out);
	free(err);
	if (geteuid() == 0) {
		chmod(a, 0600);
		rc = run(NULL, (const char *[]){ "--compare", a, b, NULL },
			 &out, &err, 1);
		ok(rc == 3 && strstr(err, "a.cap: Permission denied\n"),
		   "--compare, a capture the user may not read: exit 3");
		free(out);
		free(err);
	} else {
		skip("not root: no unreadable capture");
	}
	rc = run("/nonexistent/tsa", (const char *[]){ "--save", b, NULL },
		 &out, &err, 0);
	ok(rc == 2 && access(b, F_OK) == 0,
	   "--save, module not loaded: exit 2, the old file kept");
	free(out);
	free(err);
	rc = run(mkdir_in_tmp("capa"), (const char *[]){ "--save",
		 "/nonexistent/dir/x.cap", NULL }, &out, &err, 0);
	ok(rc == 5 && strstr(err, "/nonexistent/dir/x.cap: No such file"),
	   "--save to a directory that does not exist: exit 5");
	free(out);
	free(err);
	if (access("/dev/full", W_OK) == 0) {
		rc = run(mkdir_in_tmp("capa"), (const char *[]){ "--save",
			 "/dev/full", NULL }, &out, &err, 0);
		ok(rc == 5 && strstr(err, "/dev/full: write error: No space"),
		   "--save to a full device: exit 5, write error");
		ok(access("/dev/full", W_OK) == 0,
		   "--save to a full device leaves the device in place (a failed capture removes only a regular file)");
		free(out);
		free(err);
	}
	rc = run(mkdir_in_tmp("capa"), (const char *[]){ "--save", b, "-L",
		 NULL }, &out, &err, 0);
	ok(rc == 1, "--save -L: exit 1");
	free(out);
	free(err);
}

/*
 * Damaged captures: every one of 300 random single-byte changes in the
 * rows is refused (size or checksum); changes in the header never
 * crash the reader.
 */

/* ---- the flight recorder ------------------------------------------------ */

/*
 * A snapshot with every column the kernel writes, "states" and "at"
 * included: one line per thread of @r (tid, pid, state, state_ns, ns
 * and entries and longest of each state).
 */
struct rx {
	uint64_t tid, pid, flags, elapsed;
	int state;
	uint64_t state_ns, ns[TSA_NSTATES], n[TSA_NSTATES], max[TSA_NSTATES];
	uint64_t scl, at;
	const char *comm;
};

static char *rsnapshot(uint64_t now, const struct rx *r, size_t n)
{
	char *buf;
	size_t len, i;
	FILE *f = open_memstream(&buf, &len);
	int k;

	fprintf(f, "tsa-all 1\nnow %llu\nstates", (unsigned long long)now);
	for (k = 0; k < TSA_NSTATES; k++)
		fprintf(f, " %s", tsa_state_name[k]);
	fputs("\nfields tid pid uid flags elapsed state state_ns", f);
	for (k = 0; k < TSA_NSTATES; k++) {
		char l[4] = { (char)(tsa_state_name[k][0] | 0x20),
			      (char)(tsa_state_name[k][1] | 0x20),
			      (char)(tsa_state_name[k][2] | 0x20), 0 };

		fprintf(f, " %s_ns %s_n %s_max", l, l, l);
	}
	fputs(" vcx icx scl sig minf majf mig at comm\n", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%llu %llu 0 %llu %llu %d %llu",
			(unsigned long long)r[i].tid,
			(unsigned long long)r[i].pid,
			(unsigned long long)r[i].flags,
			(unsigned long long)r[i].elapsed, r[i].state,
			(unsigned long long)r[i].state_ns);
		for (k = 0; k < TSA_NSTATES; k++)
			fprintf(f, " %llu %llu %llu",
				(unsigned long long)r[i].ns[k],
				(unsigned long long)r[i].n[k],
				(unsigned long long)r[i].max[k]);
		fprintf(f, " 0 0 %llu 0 0 0 0 %llu %s\n",
			(unsigned long long)r[i].scl,
			(unsigned long long)(r[i].at ? r[i].at : now),
			r[i].comm);
	}
	fclose(f);
	return buf;
}

/*
 * X1 at 10 s, X2 at 11 s, X3 = X2.  Thread 10 sleeps all along: in X2
 * its line is X1's with the stay 1 s longer (elapsed, state_ns, SLP ns
 * and SLP longest), so a delta block leaves it out.  Thread 11 runs,
 * then makes a call: its line changes.  Thread 12 goes away in X3; the
 * exited-threads line of pid 10 comes in X2.
 */
static char *snap_x(int which)
{
	struct rx r[4];

	memset(r, 0, sizeof(r));
	r[0] = (struct rx){ .tid = 10, .pid = 10, .elapsed = MS(5000),
		.state = S_SLP, .state_ns = MS(2000), .scl = 7,
		.comm = "sleepy" };
	r[0].ns[S_USR] = MS(1000); r[0].n[S_USR] = 3; r[0].max[S_USR] = MS(500);
	r[0].ns[S_SLP] = MS(4000); r[0].n[S_SLP] = 3; r[0].max[S_SLP] = MS(2500);
	r[1] = (struct rx){ .tid = 11, .pid = 10, .elapsed = MS(3000),
		.state = S_USR, .state_ns = MS(100), .scl = 50,
		.comm = "busy" };
	r[1].ns[S_USR] = MS(2000); r[1].n[S_USR] = 9; r[1].max[S_USR] = MS(900);
	r[1].ns[S_SYS] = MS(1000); r[1].n[S_SYS] = 8; r[1].max[S_SYS] = MS(300);
	r[2] = (struct rx){ .tid = 12, .pid = 10, .elapsed = MS(1000),
		.state = S_IDL, .state_ns = MS(1000), .comm = "idle 12" };
	r[2].ns[S_IDL] = MS(1000); r[2].n[S_IDL] = 1; r[2].max[S_IDL] = MS(1000);
	if (which == 1)
		return rsnapshot(MS(10000), r, 3);
	/* 1 s later. */
	r[0].elapsed += MS(1000); r[0].state_ns += MS(1000);
	r[0].ns[S_SLP] += MS(1000); r[0].max[S_SLP] = MS(3000);
	r[1].elapsed += MS(1000); r[1].state = S_SYS; r[1].state_ns = MS(200);
	r[1].ns[S_USR] += MS(800); r[1].n[S_SYS]++; r[1].ns[S_SYS] += MS(200);
	r[1].scl++;
	r[2].elapsed += MS(1000); r[2].state_ns += MS(1000);
	r[2].ns[S_IDL] += MS(1000); r[2].max[S_IDL] += MS(1000);
	r[3] = (struct rx){ .tid = 0, .pid = 10, .flags = 4,
		.elapsed = MS(700), .comm = "sleepy" };
	r[3].ns[S_LAT] = MS(700); r[3].n[S_LAT] = 2; r[3].max[S_LAT] = MS(400);
	if (which == 2)
		return rsnapshot(MS(11000), r, 4);
	r[2] = r[3];	/* X3: thread 12 gone, the same clock */
	return rsnapshot(MS(11000), r, 3);
}

/* Record @n snapshots handed through the FIFO @procdir/all into @rec. */
static int record_fifo(const char *procdir, const char *rec, char **snaps,
		       int n, char **err)
{
	char fifo[400], count[16], *out;
	int rc, status;
	pid_t w;

	snprintf(fifo, sizeof(fifo), "%s/all", procdir);
	snprintf(count, sizeof(count), "%d", n);
	w = feed_fifo(fifo, snaps, n);
	/* 0.1 s: the writer sees the reader gone before its next read. */
	rc = run(procdir, (const char *[]){ "--record", rec, "--interval",
		 "0.1", count, NULL }, &out, err, 0);
	waitpid(w, &status, 0);
	free(out);
	return rc;
}

/* The same snapshots reported live through the FIFO, with @args. */
static char *live_fifo(const char *procdir, char **snaps, int n,
		       const char *const *args)
{
	char fifo[400], count[16], *out, *err;
	const char *argv[32];
	int i, status;
	pid_t w;

	snprintf(fifo, sizeof(fifo), "%s/all", procdir);
	snprintf(count, sizeof(count), "%d", n);
	for (i = 0; args[i]; i++)
		argv[i] = args[i];
	argv[i++] = "-c";
	argv[i++] = "0.1";
	argv[i++] = count;
	argv[i] = NULL;
	w = feed_fifo(fifo, snaps, n);
	run(procdir, argv, &out, &err, 0);
	waitpid(w, &status, 0);
	free(err);
	return out;
}


/* Per block of the recording's files in @dir: its kind and lines. */
struct blockinfo {
	int key, rows, eq, gone, cgroups;
	char calls[160];	/* its system-call lines' kinds, in order */
};

static int read_blocks(const char *dir, struct blockinfo *b, int max)
{
	char cmd[500], path[600], name[64];
	int n = 0;
	FILE *ls;

	snprintf(cmd, sizeof(cmd), "ls %s | grep '^tsa-.*\\.rec$' | sort", dir);
	ls = popen(cmd, "r");
	while (ls && fgets(name, sizeof(name), ls)) {
		size_t len, pos = strlen("tsa-record 1\n");
		unsigned char *d;

		name[strcspn(name, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		d = (unsigned char *)slurp(path);
		{
			struct stat st;

			len = stat(path, &st) ? 0 : (size_t)st.st_size;
		}
		while (d && pos + 20 <= len && n < max) {
			uint32_t z = d[pos + 4] | d[pos + 5] << 8 |
				     d[pos + 6] << 16 | (uint32_t)d[pos + 7] << 24;
			uint32_t r = d[pos + 8] | d[pos + 9] << 8 |
				     d[pos + 10] << 16 | (uint32_t)d[pos + 11] << 24;
			char *raw = malloc(r + 1), *line, *save = NULL;
			int fields = 0;

			if (pos + 20 + z > len || ZSTD_decompress(raw, r,
			    d + pos + 20, z) != r) {
				free(raw);
				break;
			}
			raw[r] = '\0';
			memset(&b[n], 0, sizeof(b[n]));
			for (line = strtok_r(raw, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save)) {
				if (!strcmp(line, "block 1 key"))
					b[n].key = 1;
				else if (!strncmp(line, "gone ", 5))
					b[n].gone++;
				else if (!strncmp(line, "cgroup ", 7))
					b[n].cgroups++;
				else if (!strncmp(line, "= ", 2))
					b[n].eq++;
				else if (line[0] == 'c' && line[1] &&
					 strchr("r=+.-", line[1]) &&
					 line[2] == ' ') {
					size_t l = strlen(b[n].calls);

					snprintf(b[n].calls + l,
						 sizeof(b[n].calls) - l,
						 "%s%.2s%s%.*s", l ? " " : "", line,
						 line[1] == '+' || line[1] == '.' ?
						 ":" : "", line[1] == '+' ||
						 line[1] == '.' ? 2 : 0, line + 3);
				}
				else if (!strncmp(line, "fields ", 7))
					fields = 1;
				else if (fields)
					b[n].rows++;
			}
			free(raw);
			n++;
			pos += 20 + z;
		}
		free(d);
	}
	if (ls)
		pclose(ls);
	return n;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/*
 * A copy of the one-file recording @rec as tmp/@name (into @dir), and
 * that file's path (into @file, "" if none): for tests that damage it.
 * Returns system()'s status of the copy.
 */
static int copy_recording(const char *rec, const char *name, char *dir,
			  size_t dlen, char *file, size_t flen)
{
	char cmd[1600];
	FILE *p;
	int rc;

	snprintf(dir, dlen, "%s/%s", tmp, name);
	snprintf(cmd, sizeof(cmd), "rm -rf %s && cp -r %s %s", dir, rec, dir);
	rc = system(cmd);
	snprintf(cmd, sizeof(cmd), "ls %s/*.rec", dir);
	p = popen(cmd, "r");
	if (!p || !fgets(file, (int)flen, p))
		file[0] = '\0';
	if (p)
		pclose(p);
	file[strcspn(file, "\n")] = '\0';
	return rc;
}

static void test_record_replay(void)
{
	char *snaps[3], *out, *err, *live, rec[400], procfs[400], dir[400];
	char path[700], cmd[2000];
	struct blockinfo b[8];
	int rc, n;

	snprintf(dir, sizeof(dir), "%s", mkdir_in_tmp("recfifo"));
	snprintf(path, sizeof(path), "%s/all", dir);
	if (mkfifo(path, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	snprintf(procfs, sizeof(procfs), "%s", mkdir_in_tmp("recprocfs"));
	put_cgroup(procfs, 10, "0::/lab/sleepers\n");
	setenv("TSA_PROCFS", procfs, 1);
	snaps[0] = snap_x(1);
	snaps[1] = snap_x(2);
	snaps[2] = snap_x(3);
	snprintf(rec, sizeof(rec), "%s/rec", tmp);

	rc = record_fifo(dir, rec, snaps, 3, &err);
	is_long(rc, 0, "--record of 3 snapshots: exit 0 (stderr: %s)", err);
	free(err);
	n = read_blocks(rec, b, 8);
	is_long(n, 3, "the recording has 3 blocks");
	ok(n == 3 && b[0].key && !b[1].key && !b[2].key,
	   "the first is a key block, the next two are deltas");
	ok(n == 3 && b[0].rows == 3 && b[0].eq == 0 && b[1].rows == 1 &&
	   b[1].eq == 1 && b[2].rows == 0 && b[2].eq == 0,
	   "lines: 3 in the key block; in the second, the new totals line "
	   "whole and thread 11 as differences (10 and 12 only slept on: "
	   "left out); nothing in the third (nothing changed) (saw %d+%d "
	   "%d+%d %d+%d)", n ? b[0].rows : -1, n ? b[0].eq : -1,
	   n > 1 ? b[1].rows : -1, n > 1 ? b[1].eq : -1,
	   n > 2 ? b[2].rows : -1, n > 2 ? b[2].eq : -1);
	ok(n == 3 && b[0].cgroups == 1 && b[1].cgroups == 0 &&
	   b[2].gone == 1 && b[1].gone == 0,
	   "one cgroup line (pid 10, in the key block); thread 12 gone in "
	   "the third");

	/* What a replay shows is what tsa-prstat showed live. */
	{
		static const char *const views[][6] = {
			{ "--json", "-L", NULL },
			{ "--json", NULL },
			{ "--json", "--group", "cgroup", NULL },
			{ "--json", "-A", "-L", "-s", "run" },
		};
		size_t v;

		for (v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
			const char *args[8] = { "--replay", rec };
			int k;

			for (k = 0; k < 5 && views[v][k]; k++)
				args[2 + k] = views[v][k];
			live = mask_ts(live_fifo(dir, snaps, 3, views[v]));
			rc = run(NULL, args, &out, &err, 0);
			mask_ts(out);
			is_long(rc, 0, "--replay %s %s %s: exit 0", views[v][0],
				views[v][1] ? views[v][1] : "",
				views[v][1] && views[v][2] ? views[v][2] : "");
			is_str(out, live, "--replay %s %s %s: the reports of "
			       "the live run, line for line (%d lines)",
			       views[v][0], views[v][1] ? views[v][1] : "",
			       views[v][1] && views[v][2] ? views[v][2] : "",
			       count_lines(live));
			free(live);
			free(out);
			free(err);
		}
	}
	rc = run(NULL, (const char *[]){ "--replay", rec, "-L", NULL }, &out,
		 &err, 0);
	ok(rc == 0 && !strncmp(out, "Replay: ", 8) &&
	   strstr(out, ", since each thread began\n") &&
	   strstr(out, ", 1.0 s\n") && strstr(out, ", 0.0 s\n") &&
	   strstr(out, "Total: 1 processes, 3 lwps, load averages: ") &&
	   strstr(out, "Total: 1 processes, 2 lwps, load averages: "),
	   "--replay as a table: each report under its time and interval "
	   "(the first since each thread began), the recorded loads");
	free(out);
	free(err);

	/* A summary of the window is the report of its two ends. */
	{
		char *ends[2] = { snaps[0], snaps[2] };

		live = mask_ts(live_fifo(dir, ends, 2, (const char *[]){
				"--json", "-L", NULL }));
		rc = run(NULL, (const char *[]){ "--replay", rec, "--summary",
			 "--json", "-L", NULL }, &out, &err, 0);
		mask_ts(out);
		/* The live run's second report only. */
		{
			char *p = live;
			int k;

			for (k = 0; k < 3 && p; k++)	/* X1's 3 lines */
				p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
			is_str(out, p, "--replay --summary --json -L: X1 to X3 "
			       "as one report (exit %d)", rc);
		}
		free(live);
		free(out);
		free(err);
	}
	/* --compare of a recording at a time, as of captures. */
	{
		char a[500], c3[500], pt[500], *want;

		snprintf(a, sizeof(a), "%s/x1.cap", tmp);
		snprintf(c3, sizeof(c3), "%s/x3.cap", tmp);
		save_via_binary("capx1", snaps[0], a);
		save_via_binary("capx3", snaps[2], c3);
		run(NULL, (const char *[]){ "--compare", a, c3, "--json",
		    NULL }, &want, &err, 0);
		free(err);
		snprintf(pt, sizeof(pt), "%s@@4000000000", rec);
		rc = run(NULL, (const char *[]){ "--compare", a, pt, "--json",
			 NULL }, &out, &err, 0);
		/* The last line has the two walls: not theirs alike. */
		if (strstr(want, "{\"compare\""))
			*strstr(want, "{\"compare\"") = '\0';
		if (strstr(out, "{\"compare\""))
			*strstr(out, "{\"compare\"") = '\0';
		mask_ts(out);
		mask_ts(want);
		is_str(out, want, "--compare X1.cap REC@TIME: the recording's "
		       "last block before TIME is B, as the capture of X3 "
		       "(exit %d)", rc);
		free(want);
		free(out);
		free(err);
		snprintf(pt, sizeof(pt), "%s@@1", rec);
		rc = run(NULL, (const char *[]){ "--compare", pt, a, NULL },
			 &out, &err, 0);
		ok(rc == 5 && strstr(err, "no block recorded at or before"),
		   "--compare REC@@1: exit 5, nothing recorded then (%d: %s)",
		   rc, err);
		free(out);
		free(err);
		snprintf(pt, sizeof(pt), "%s@25:00", rec);
		rc = run(NULL, (const char *[]){ "--compare", pt, a, NULL },
			 &out, &err, 0);
		ok(rc == 1 && strstr(err, "invalid time '25:00'"),
		   "--compare REC@25:00: exit 1, invalid time (%d: %s)", rc,
		   err);
		free(out);
		free(err);
	}
	rc = run(NULL, (const char *[]){ "--replay", rec, "--from", "@4000000000",
		 NULL }, &out, &err, 0);
	ok(rc == EXIT_BADDATA && strstr(err, "no recorded interval in that "
				      "window"),
	   "--from after the recording: exit 5, 'no recorded interval' "
	   "(%d: %s)", rc, err);
	free(out);
	free(err);
	rc = run(NULL, (const char *[]){ "--replay", rec, "--from", "-1h",
		 "--to", "@4000000000", "--json", NULL }, &out, &err, 0);
	is_long(count_lines(out), 3, "--from -1h --to the future: every block's "
		"report (3 lines of one process)");
	free(out);
	free(err);

	/* Damage: a flipped byte in the second block, a torn tail. */
	{
		char copy[500], file[600];
		struct stat st;
		long off;
		int fd;
		unsigned char c;

		ok(copy_recording(rec, "rec-damaged", copy, sizeof(copy), file,
				  sizeof(file)) == 0,
		   "a copy of the recording to damage");
		fd = open(file, O_RDWR);
		/* Block 2 starts after the header line and block 1. */
		{
			unsigned char h[20];
			uint32_t z;

			off = (long)strlen("tsa-record 1\n");
			if (pread(fd, h, 20, off) == 20) {
				z = h[4] | h[5] << 8 | h[6] << 16 |
				    (uint32_t)h[7] << 24;
				off += 20 + (long)z + 20 + 3;
			}
		}
		if (pread(fd, &c, 1, off) == 1) {
			c ^= 0x55;
			if (pwrite(fd, &c, 1, off) != 1)
				c = 0;
		}
		close(fd);
		rc = run(NULL, (const char *[]){ "--replay", copy, "--json",
			 NULL }, &out, &err, 0);
		ok(rc == 0 && count_lines(out) == 1 &&
		   strstr(err, "a damaged block (checksum) at byte ") &&
		   strstr(err, "the blocks after it wait for the next full one"),
		   "a damaged block: skipped with a message, the delta after "
		   "it too (no base), the key block's report kept (exit %d, "
		   "%d lines; stderr: %s)", rc, count_lines(out), err);
		free(out);
		free(err);

		/* Undo, then cut the last block short. */
		fd = open(file, O_RDWR);
		if (pread(fd, &c, 1, off) == 1) {
			c ^= 0x55;
			if (pwrite(fd, &c, 1, off) != 1)
				c = 0;
		}
		if (!fstat(fd, &st) && ftruncate(fd, st.st_size - 3))
			st.st_size = 0;
		close(fd);
		rc = run(NULL, (const char *[]){ "--replay", copy, "--json",
			 NULL }, &out, &err, 0);
		ok(rc == 0 && count_lines(out) == 2 &&
		   strstr(err, "a torn block (cut short) at byte "),
		   "a torn tail (a recorder killed mid-write): the last block "
		   "skipped with a message, the others reported (exit %d, %d "
		   "lines; stderr: %s)", rc, count_lines(out), err);
		free(out);
		free(err);

		/* A file of the recording's name that is not one. */
		snprintf(file, sizeof(file), "%s/tsa-20000101-00.rec", copy);
		put(file, "hello\n");
		rc = run(NULL, (const char *[]){ "--replay", copy, "--json",
			 NULL }, &out, &err, 0);
		ok(rc == 0 && count_lines(out) == 2 &&
		   strstr(err, "tsa-20000101-00.rec: not a tsa recording"),
		   "a file that is not a recording is skipped with a message "
		   "(exit %d; stderr: %s)", rc, err);
		free(out);
		free(err);
	}

	/* Any byte of a recording damaged: a message, never a crash. */
	{
		char fz[500], file[700];
		unsigned char *orig;
		struct stat st;
		int i, crashed = 0, refused = 0, fd;
		uint64_t seed = 7;

		if (copy_recording(rec, "rec-fuzz", fz, sizeof(fz), file,
				   sizeof(file)))
			printf("# could not copy %s\n", rec);
		orig = (unsigned char *)slurp(file);
		st.st_size = stat(file, &st) ? 0 : st.st_size;
		for (i = 0; i < 200 && orig && st.st_size > 0; i++) {
			unsigned char *d = malloc((size_t)st.st_size);
			size_t at;

			memcpy(d, orig, (size_t)st.st_size);
			seed = seed * 6364136223846793005ull + 1;
			at = (size_t)(seed >> 33) % (size_t)st.st_size;
			d[at] ^= (unsigned char)(1 + (seed >> 20) % 255);
			fd = open(file, O_WRONLY | O_TRUNC);
			if (fd < 0 || write(fd, d, (size_t)st.st_size) !=
			    st.st_size)
				printf("# could not write %s\n", file);
			if (fd >= 0)
				close(fd);
			free(d);
			rc = run(NULL, (const char *[]){ "--replay", fz, "-L",
				 "--json", NULL }, &out, &err, 0);
			crashed += rc > 5;
			refused += rc != 0;
			free(out);
			free(err);
		}
		free(orig);
		ok(crashed == 0, "200 recordings with one byte changed: every "
		   "replay ends with exit 0 or 5, none crashes (%d refused "
		   "whole: nothing left to report)", refused);
	}

	/*
	 * A block whose checksums hold but whose header lies about its
	 * text's length (4 GiB), then one whose text is not a recorder's.
	 */
	{
		char crafted[500], file[600];
		unsigned char hdr[20], *frame;
		size_t fl, zb;
		FILE *f;
		int i;
		static const char *const texts[] = {
			"block 1 key\nwall 1.0\n",
			"block 1 key\nwall 1.0\n= 5 1 2\ntsa-all 1\nnow 1\n",
		};

		if (copy_recording(rec, "rec-crafted", crafted, sizeof(crafted),
				   file, sizeof(file)))
			printf("# could not copy %s\n", rec);
		f = fopen(file, "ab");
		for (i = 0; f && i < 2; i++) {
			zb = ZSTD_compressBound(strlen(texts[i]));
			frame = malloc(zb);
			fl = ZSTD_compress(frame, zb, texts[i], strlen(texts[i]), 1);
			memcpy(hdr, "TSAB", 4);
			{
				uint32_t v[3] = { (uint32_t)fl, i ? (uint32_t)
						  strlen(texts[i]) : 0xffffffffu,
						  crc32_buf(frame, fl) };
				int k, j;

				for (k = 0; k < 3; k++)
					for (j = 0; j < 4; j++)
						hdr[4 + 4 * k + j] = (unsigned char)
							(v[k] >> (8 * j));
				v[0] = crc32_buf(hdr, 16);
				for (j = 0; j < 4; j++)
					hdr[16 + j] = (unsigned char)(v[0] >> (8 * j));
			}
			fwrite(hdr, 1, 20, f);
			fwrite(frame, 1, fl, f);
			free(frame);
		}
		if (f)
			fclose(f);
		/* A file of an hour whose recorder stopped after its header. */
		snprintf(file, sizeof(file), "%s/tsa-20000101-00.rec", crafted);
		put(file, "tsa-record 1\n");
		rc = run(NULL, (const char *[]){ "--replay", crafted, "--json",
			 NULL }, &out, &err, 0);
		ok(rc == 0 && count_lines(out) == 3 &&
		   strstr(err, "a block whose header and frame disagree") &&
		   strstr(err, "a block that is not a recorder's") &&
		   !strstr(err, "tsa-20000101-00.rec"),
		   "blocks with good checksums but a 4 GiB length, or lines "
		   "no recorder writes: skipped with a message, the others "
		   "reported; a file of a header alone: nothing to say (exit "
		   "%d, %d lines; %s)", rc, count_lines(out), err);
		free(out);
		free(err);
	}

	/* Retention: by age, then by size; the file being written stays. */
	{
		char rdir[500], old[600];
		static char big[100 * 1024];
		const char *names[] = { "tsa-20200101-00.rec",
			"tsa-20200101-01.rec", "tsa-20200101-02.rec" };
		int i, status;
		pid_t w;

		snprintf(rdir, sizeof(rdir), "%s/retain", tmp);
		mkdir(rdir, 0755);
		memset(big, 'x', sizeof(big) - 1);
		for (i = 0; i < 3; i++) {
			snprintf(old, sizeof(old), "%s/%s", rdir, names[i]);
			put(old, big);
		}
		snprintf(old, sizeof(old), "%s/notes.txt", rdir);
		put(old, "not ours\n");
		w = feed_fifo(path, snaps, 1);
		rc = run(dir, (const char *[]){ "--record", rdir, "--max-size",
			 "150K", "--interval", "1", "1", NULL }, &out, &err, 0);
		waitpid(w, &status, 0);
		snprintf(cmd, sizeof(cmd), "ls %s | tr '\\n' ' '", rdir);
		free(out);
		free(err);
		out = NULL;
		{
			FILE *p = popen(cmd, "r");
			char buf[400] = "";

			if (p) {
				if (!fgets(buf, sizeof(buf), p))
					buf[0] = '\0';
				pclose(p);
			}
			ok(rc == 0 && !strstr(buf, names[0]) &&
			   !strstr(buf, names[1]) && strstr(buf, names[2]) &&
			   strstr(buf, "notes.txt") && strstr(buf, "tsa-2"),
			   "--max-size 150K over 3 old files of 100 KiB: the "
			   "two oldest removed, the newest old one, the new "
			   "file and other files kept (exit %d: %s)", rc, buf);
		}
		w = feed_fifo(path, snaps, 1);
		rc = run(dir, (const char *[]){ "--record", rdir, "--keep",
			 "1d", "--interval", "1", "1", NULL }, &out, &err, 0);
		waitpid(w, &status, 0);
		snprintf(old, sizeof(old), "%s/%s", rdir, names[2]);
		ok(rc == 0 && access(old, F_OK) && errno == ENOENT,
		   "--keep 1d: a file of 2020 removed (exit %d)", rc);
		free(out);
		free(err);
	}
	unsetenv("TSA_PROCFS");

	/* An idle machine costs a key block, and then next to nothing. */
	{
		char *gen[21], gcmd[500], idle[500], name[64];
		struct stat st0, st1;
		FILE *p;
		int i;

		snprintf(gcmd, sizeof(gcmd), "sh %s/gen-all.sh 2000", testdir);
		p = popen(gcmd, "r");
		gen[0] = NULL;
		if (p) {
			size_t cap = 0, len = 0;
			char chunk[65536];
			size_t k;

			while ((k = fread(chunk, 1, sizeof(chunk), p)) > 0) {
				if (len + k + 1 > cap) {
					cap = 2 * (len + k + 1);
					gen[0] = realloc(gen[0], cap);
				}
				memcpy(gen[0] + len, chunk, k);
				len += k;
			}
			if (gen[0])
				gen[0][len] = '\0';
			pclose(p);
		}
		for (i = 1; i < 21; i++)
			gen[i] = gen[0];
		snprintf(idle, sizeof(idle), "%s/idle1", tmp);
		rc = record_fifo(dir, idle, gen, 1, &err);
		free(err);
		snprintf(cmd, sizeof(cmd), "ls %s", idle);
		p = popen(cmd, "r");
		if (!p || !fgets(name, sizeof(name), p))
			name[0] = '\0';
		if (p)
			pclose(p);
		name[strcspn(name, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s/%s", idle, name);
		st0.st_size = stat(path, &st0) ? 0 : st0.st_size;
		snprintf(idle, sizeof(idle), "%s/idle21", tmp);
		rc |= record_fifo(dir, idle, gen, 21, &err);
		free(err);
		snprintf(path, sizeof(path), "%s/%s", idle, name);
		st1.st_size = stat(path, &st1) ? 0 : st1.st_size;
		ok(rc == 0 && st0.st_size > 100000 &&
		   st1.st_size < st0.st_size + 20 * 2048,
		   "2000 idle threads: a key block of %lld bytes, and 20 "
		   "more blocks of nothing changed add %lld bytes (exit %d, "
		   "file %s)", (long long)st0.st_size,
		   (long long)(st1.st_size - st0.st_size), rc, name);
		free(gen[0]);
	}

	/* Bad input gets a clear error and changes nothing. */
	{
		static const struct {
			const char *args[8];
			int rc;
			const char *msg;
		} bad[] = {
			{ { "--record", "/tmp/x", "-L", NULL }, 1,
			  "--record keeps every visible thread" },
			{ { "--record", "/tmp/x", "--keep", "7y", NULL }, 1,
			  "invalid argument for --keep: '7y'" },
			{ { "--record", "/tmp/x", "--max-size", "2X", NULL }, 1,
			  "invalid argument for --max-size: '2X'" },
			{ { "--record", "/tmp/x", "--interval", "0", NULL }, 1,
			  "invalid interval '0'" },
			{ { "--interval", "5", NULL }, 1,
			  "--interval is the recorder's" },
			{ { "--summary", NULL }, 1, "with --replay" },
			{ { "--replay", "/tmp", "--from", "25:00", NULL }, 1,
			  "invalid time for --from: '25:00'" },
			{ { "--replay", "/tmp", "--from", "10:00", "--to",
			    "09:00", NULL }, 1, "--to is before --from" },
			{ { "--replay", "/tmp", "5", NULL }, 1,
			  "its reports are the recording's intervals" },
			{ { "--replay", "/nonexistent/rec", NULL }, 5,
			  "/nonexistent/rec: No such file or directory" },
			{ { "--replay", "/tmp/tsa-prstat-norec", NULL }, 5,
			  "no recording there" },
			{ { "--record", "/tmp/x", "--replay", "/tmp", NULL }, 1,
			  "choose one" },
		};
		size_t i;

		mkdir("/tmp/tsa-prstat-norec", 0755);
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			rc = run("/nonexistent", bad[i].args, &out, &err, 0);
			err[strcspn(err, "\n")] = '\0';
			ok(rc == bad[i].rc && strstr(err, bad[i].msg),
			   "%s %s %s: exit %d and '%s' (saw %d: %.100s)",
			   bad[i].args[0], bad[i].args[1] ? bad[i].args[1] : "",
			   bad[i].args[1] && bad[i].args[2] ? bad[i].args[2] : "",
			   bad[i].rc, bad[i].msg, rc, err);
			free(out);
			free(err);
		}
		rmdir("/tmp/tsa-prstat-norec");
		ok(access("/tmp/x", F_OK) != 0, "nothing was created by the "
		   "refused --record runs");
	}

	/* -y: the system-call rows recorded too, replayed as shown live. */
	{
		char cdir[400], fa[500], fc[500], gcmd[700], *gen[6], *o2;
		const char *fifos[2];
		char count[8] = "3";
		int k, status;
		pid_t w;

		snprintf(cdir, sizeof(cdir), "%s", mkdir_in_tmp("reccalls"));
		snprintf(fa, sizeof(fa), "%s/all", cdir);
		snprintf(fc, sizeof(fc), "%s/calls", cdir);
		mkfifo(fa, 0600);
		mkfifo(fc, 0600);
		fifos[0] = fa;
		fifos[1] = fc;
		for (k = 0; k < 3; k++) {
			snprintf(gcmd, sizeof(gcmd), "STEP=%d CALLS=%s/calls.%d "
				 "sh %s/gen-all.sh 300 > %s/all.%d", k, tmp, k,
				 testdir, tmp, k);
			if (system(gcmd))
				printf("# %s failed\n", gcmd);
			snprintf(gcmd, sizeof(gcmd), "%s/all.%d", tmp, k);
			gen[2 * k] = slurp(gcmd);
			snprintf(gcmd, sizeof(gcmd), "%s/calls.%d", tmp, k);
			gen[2 * k + 1] = slurp(gcmd);
		}
		snprintf(rec, sizeof(rec), "%s/rec-calls", tmp);
		w = feed_fifos(fifos, 2, gen, 6);
		rc = run(cdir, (const char *[]){ "--record", rec, "--interval",
			 "0.01", count, NULL }, &out, &err, 0);
		waitpid(w, &status, 0);
		is_long(rc, 0, "--record with /proc/tsa/calls there: exit 0 "
			"(%s)", err);
		free(out);
		free(err);
		n = read_blocks(rec, b, 8);
		ok(n == 3, "3 blocks with the system-call rows (saw %d)", n);
		w = feed_fifos(fifos, 2, gen, 6);
		run(cdir, (const char *[]){ "-yL", "--json", "-c", "0.01", count,
		    NULL }, &o2, &err, 0);
		waitpid(w, &status, 0);
		free(err);
		rc = run(NULL, (const char *[]){ "--replay", rec, "-yL", "--json",
			 NULL }, &out, &err, 0);
		mask_ts(out);
		mask_ts(o2);
		is_str(out, o2, "--replay -yL --json: the system-call lines of "
		       "the live run, line for line (exit %d, %d lines)", rc,
		       count_lines(o2));
		free(out);
		free(err);
		free(o2);
		w = feed_fifos(fifos, 2, gen, 6);
		run(cdir, (const char *[]){ "-y", "-s", "calls", "-c", "0.01",
		    count, NULL }, &o2, &err, 0);
		waitpid(w, &status, 0);
		free(err);
		rc = run(NULL, (const char *[]){ "--replay", rec, "-y", "-s",
			 "calls", NULL }, &out, &err, 0);
		{
			/* The tables, less the replay's time lines and loads. */
			char *p, *q;

			for (p = out; (p = strstr(p, "Replay: ")) != NULL;) {
				q = strchr(p, '\n');
				memmove(p, q + 1, strlen(q + 1) + 1);
			}
			cut_loadavg(out);
			cut_loadavg(o2);
		}
		is_str(out, o2, "--replay -y -s calls: the live tables (exit %d)",
		       rc);
		free(out);
		free(err);
		free(o2);
		for (k = 0; k < 6; k++)
			free(gen[k]);
		unlink(fa);
		unlink(fc);
	}
	free(snaps[0]);
	free(snaps[1]);
	free(snaps[2]);
	unlink(path);
}

/*
 * Block b (0..3) of three threads that sleep inside calls, at 10 + b s:
 * 21 sleeps in read, its call the longest it made (max grows with it);
 * 22 waits in futex behind a longer one (max stays); 23 sleeps in
 * poll until its call returns after block 1 (then it only ages).
 */
static void calls_aging(int b, char **all, char **calls)
{
	struct rx r[3];
	uint64_t now = MS(10000 + 1000 * b), d = MS(1000 * b);
	size_t len;
	FILE *f;
	int k;

	memset(r, 0, sizeof(r));
	for (k = 0; k < 3; k++) {
		r[k].tid = 21 + k;
		r[k].pid = 21;
		r[k].elapsed = MS(5000) + d;
		r[k].state = k == 2 && b > 1 ? S_USR : S_IDL;
		r[k].state_ns = MS(2000) + d;
		r[k].ns[S_USR] = MS(3000);
		r[k].ns[S_IDL] = MS(2000) + d;
		r[k].n[S_IDL] = 1;
		r[k].max[S_IDL] = MS(2000) + d;
		r[k].comm = "sleeper";
	}
	r[2].state_ns = b > 1 ? MS(1000) * (b - 1) : r[2].state_ns;
	*all = rsnapshot(now, r, 3);
	f = open_memstream(calls, &len);
	fprintf(f, "tsa-calls 1\nnow %llu\nrows 8 0\nstates SYS TRP TFL DFL "
		"KFL APG LCK KLK IOW IDL SLP LAT STP\nfields tid pid uid flags "
		"elapsed at kind name calls ns max sys_ns trp_ns tfl_ns dfl_ns "
		"kfl_ns apg_ns lck_ns klk_ns iow_ns idl_ns slp_ns lat_ns "
		"stp_ns\n", (unsigned long long)now);
	for (k = 0; k < 3; k++) {
		uint64_t grow = k == 2 ? (b > 1 ? MS(1000) : d) : d;
		uint64_t mx = k == 0 ? MS(2000) + d : MS(9000);

		fprintf(f, "%d 21 0 0 %llu %llu syscall %s 4 %llu %llu 1000 0 0 "
			"0 0 0 0 0 0 %llu 0 0 0\n", 21 + k,
			(unsigned long long)(MS(5000) + d),
			(unsigned long long)now, k == 0 ? "read" : k == 1 ?
			"futex" : "poll",
			(unsigned long long)(MS(2000) + 1000 + grow),
			(unsigned long long)(k == 2 ? MS(9000) : mx),
			(unsigned long long)(MS(2000) + grow));
		fprintf(f, "%d 21 0 0 %llu %llu syscall other 9 5000 900 5000 0 "
			"0 0 0 0 0 0 0 0 0 0 0\n", 21 + k,
			(unsigned long long)(MS(5000) + d),
			(unsigned long long)now);
	}
	fclose(f);
}

static void test_record_calls_aging(void)
{
	char cdir[400], fa[500], fc[500], rec[500], *gen[8], *out, *err, *live;
	const char *fifos[2];
	struct blockinfo b[8];
	int k, rc, status, n;
	pid_t w;

	snprintf(cdir, sizeof(cdir), "%s", mkdir_in_tmp("recaging"));
	snprintf(fa, sizeof(fa), "%s/all", cdir);
	snprintf(fc, sizeof(fc), "%s/calls", cdir);
	if (mkfifo(fa, 0600) || mkfifo(fc, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	fifos[0] = fa;
	fifos[1] = fc;
	for (k = 0; k < 4; k++)
		calls_aging(k, &gen[2 * k], &gen[2 * k + 1]);
	snprintf(rec, sizeof(rec), "%s/rec-aging", tmp);
	w = feed_fifos(fifos, 2, gen, 8);
	rc = run(cdir, (const char *[]){ "--record", rec, "--interval", "0.01",
		 "4", NULL }, &out, &err, 0);
	waitpid(w, &status, 0);
	is_long(rc, 0, "--record of calls that age: exit 0 (%s)", err);
	free(out);
	free(err);
	n = read_blocks(rec, b, 8);
	ok(n == 4, "4 blocks (saw %d)", n);
	{
		char text[700] = "";
		int i;

		for (i = 0; i < n; i++) {
			size_t l = strlen(text);

			snprintf(text + l, sizeof(text) - l, "%s\n",
				 b[i].calls[0] ? b[i].calls : "-");
		}
		/* The lines: what each block says of the system-call rows. */
		is_str(text, "cr cr cr cr cr cr\nc+:21 c+:22 c+:23\nc.:23\n-\n",
		       "calls that age: a key block of 6 rows; then each "
		       "sleeping call said once to age (c+), then nothing while "
		       "it goes on, c. when 23's call returned, nothing in the "
		       "last block");
	}

	w = feed_fifos(fifos, 2, gen, 8);
	run(cdir, (const char *[]){ "-yL", "--json", "-c", "0.01", "4", NULL },
	    &live, &err, 0);
	waitpid(w, &status, 0);
	free(err);
	rc = run(NULL, (const char *[]){ "--replay", rec, "-yL", "--json",
		 NULL }, &out, &err, 0);
	mask_ts(out);
	mask_ts(live);
	is_str(out, live, "--replay -yL --json of calls that age: the live "
	       "run's lines (exit %d, %d lines)", rc, count_lines(live));
	free(out);
	free(err);
	free(live);
	for (k = 0; k < 8; k++)
		free(gen[k]);
	unlink(fa);
	unlink(fc);
}

static void test_record_parsers(void)
{
	time_t now = 1790000000, t;
	struct tm tm;

	is_long(parse_age("7d"), 7 * 86400, "parse_age 7d");
	is_long(parse_age("90m"), 5400, "parse_age 90m");
	is_long(parse_age("3600"), 3600, "parse_age 3600 (seconds)");
	is_long(parse_age("2w"), 14 * 86400, "parse_age 2w");
	is_long(parse_age("7y"), -1, "parse_age 7y: refused");
	is_long(parse_age("-1h"), -1, "parse_age -1h: refused");
	is_long(parse_size("2G"), 2LL << 30, "parse_size 2G");
	is_long(parse_size("150K"), 150 * 1024, "parse_size 150K");
	is_long(parse_size("12345"), 12345, "parse_size 12345");
	is_long(parse_size("1.5G"), -1, "parse_size 1.5G: refused");
	is_long(parse_when("@100", now), 100, "parse_when @100");
	is_long(parse_when("-2h", now), now - 7200, "parse_when -2h");
	localtime_r(&now, &tm);
	tm.tm_hour = 3;
	tm.tm_min = 0;
	tm.tm_sec = 30;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	is_long(parse_when("03:00:30", now), t, "parse_when 03:00:30: today");
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = 126;
	tm.tm_mon = 10;
	tm.tm_mday = 26;
	tm.tm_hour = 3;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	is_long(parse_when("2026-11-26 03:00", now), t,
		"parse_when 2026-11-26 03:00");
	is_long(parse_when("24:00", now), -1, "parse_when 24:00: refused");
	is_long(parse_when("3pm", now), -1, "parse_when 3pm: refused");
	is_long(parse_when("03:00 x", now), -1, "parse_when '03:00 x': refused");
}

/* ---- the keys of the redraw mode, under tmux ------------------------------ */

static char *tmux_capture(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	FILE *p = popen("tmux -L tsa-prstat-test capture-pane -p -t keys "
			"2>/dev/null", "r");
	int c;

	while (p && (c = fgetc(p)) != EOF)
		fputc(c, m);
	if (p)
		pclose(p);
	fclose(m);
	return buf;
}

/* Wait up to 10 s for the pane to show @want (and, if set, not @not). */
static char *tmux_wait(const char *want, const char *not)
{
	struct timespec ms = { 0, 50000000 };
	char *s = NULL;
	int i;

	for (i = 0; i < 200; i++) {
		free(s);
		s = tmux_capture();
		/* A whole screen: a report ends with its status line. */
		if (strstr(s, want) && (!not || !strstr(s, not)) &&
		    (strstr(s, "h: keys") || strstr(s, "Any key goes back.") ||
		     strstr(s, "$ ")))
			return s;
		nanosleep(&ms, NULL);
	}
	return s;
}

static void tmux_keys(const char *keys)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "tmux -L tsa-prstat-test send-keys -t keys "
		 "%s", keys);
	if (system(cmd))
		printf("# %s failed\n", cmd);
}

static int count_str(const char *s, const char *what)
{
	int n = 0;

	while (s && (s = strstr(s, what)) != NULL) {
		n++;
		s++;
	}
	return n;
}

/* The state letter of process @pid (ps's first), or '?'. */
static char proc_state(const char *pid)
{
	char cmd[100], st[16] = "?";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ps -o stat= -p %s", pid);
	p = popen(cmd, "r");
	if (p) {
		if (!fgets(st, sizeof(st), p))
			st[0] = '?';
		pclose(p);
	}
	return st[0];
}

static void test_keys(void)
{
	char *dir, path[400], cmd[1200], *s, bin[300];
	int k;

	if (system("command -v tmux >/dev/null 2>&1")) {
		skip("keys: tmux not found");
		return;
	}
	dir = mkdir_in_tmp("keys");
	snprintf(path, sizeof(path), "%s/all", dir);
	s = snap_a();
	put(path, s);
	free(s);
	if (!realpath(prstat_bin, bin))
		snprintf(bin, sizeof(bin), "%s", prstat_bin);
	system("tmux -L tsa-prstat-test kill-server 2>/dev/null");
	/* An interactive shell, for job control (^Z, fg). */
	if (system("tmux -L tsa-prstat-test -f /dev/null new-session -d -s "
		   "keys -x 100 -y 24 'PS1=\"$ \" bash --norc --noprofile -i'")) {
		skip("keys: tmux new-session failed");
		return;
	}
	/* A subshell: ^Z stops the whole job, fg goes on with all of it. */
	snprintf(cmd, sizeof(cmd), "tmux -L tsa-prstat-test send-keys -t keys "
		 "\"(TSA_PROC_DIR=%s TSA_PROCFS=/nonexistent %s -m 0.2; echo "
		 "EXITED \\$?; stty -a | grep -o -- ' -*icanon\\| -*echo ' | "
		 "tr -d ' ' | tr '\\n' ' '; echo)\" Enter", dir, bin);
	if (system(cmd)) {
		skip("keys: tmux send-keys failed");
		return;
	}
	/*
	 * Each step: keys sent, the screen waited for (and, if set, a text
	 * it must no longer have), then what it must show and must not.
	 */
	{
		static const struct {
			const char *keys, *wait, *gone, *has[3], *hasnt[3];
			int count;	/* times has[0] must appear; 0: any */
			const char *what;
		} step[] = {
			{ NULL, "Total: 3 processes", NULL,
			  { "PROCESS/NLWP", "sort cpu | h: keys" }, { NULL }, 0,
			  "the redraw mode shows processes, and a status line "
			  "on the cursor's row" },
			{ "L", "PROCESS/LWPID", NULL,
			  { "PROCESS/LWPID", "sleeper/301" }, { NULL }, 0,
			  "L shows a line per thread" },
			{ "A", "EXEC  RUN", NULL, { "EXEC  RUN", "sort cpu" },
			  { NULL }, 0, "A switches to the TSA view (the sort key "
			  "cpu is one of its keys too)" },
			{ "s", "sort time", NULL, { "sort time |" }, { NULL }, 0,
			  "s takes the next sort key" },
			{ "r", "sort time ascending", NULL,
			  { "sort time ascending" }, { NULL }, 0,
			  "r reverses the order" },
			{ "m", "USR SYS TRP", NULL,
			  { "USR SYS TRP", "PROCESS/LWPID" }, { NULL }, 0,
			  "m goes back to the Solaris view, still per thread" },
			{ "/ sleeper Enter", "name has 'sleeper'", "spin/200",
			  { "sleeper/30" }, { "db server", "spin/200" }, 2,
			  "/ sleeper keeps the lines whose name has it" },
			{ "/ Enter p 200 Enter", "pid 200", "sleeper",
			  { "spin/200" }, { "sleeper", "name has" }, 0,
			  "/ with nothing shows every name again; p 200 one "
			  "process" },
			{ "p Enter g", "by cgroup", NULL,
			  { "CGROUP", "by cgroup" }, { "LWPID" }, 0,
			  "p with nothing shows every process; g groups by "
			  "cgroup (threads off)" },
			{ "g g g", "by pid", NULL, { "PROCESS/NLWP", "by pid" },
			  { NULL }, 0, "g in turn: user, thread name, then "
			  "processes again" },
			{ "Space", "paused", NULL, { "| paused" }, { NULL }, 0,
			  "space pauses" },
			{ "Space h", "tsa-prstat keys", NULL,
			  { "tsa-prstat keys", "Any key goes back." }, { NULL },
			  0, "h shows the keys" },
			{ "x", "Total: 3 processes", NULL,
			  { "Total: 3 processes" }, { "paused" }, 0,
			  "any key goes back to the report (space went on)" },
		};
		size_t i;
		int k, good;

		for (i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
			if (step[i].keys)
				tmux_keys(step[i].keys);
			s = tmux_wait(step[i].wait, step[i].gone);
			good = 1;
			for (k = 0; k < 3; k++) {
				if (step[i].has[k] && !strstr(s, step[i].has[k]))
					good = 0;
				if (step[i].hasnt[k] &&
				    strstr(s, step[i].hasnt[k]))
					good = 0;
			}
			if (step[i].count &&
			    count_str(s, step[i].has[0]) != step[i].count)
				good = 0;
			ok(good, "keys: %s", step[i].what);
			if (!good) {
				/* What the pane showed instead. */
				char *l = s, *e;

				printf("# expected '%s' on the screen after "
				       "keys '%s'; saw:\n", step[i].wait,
				       step[i].keys ? step[i].keys : "");
				for (; l && *l; l = e ? e + 1 : NULL) {
					e = strchr(l, '\n');
					printf("#   %.*s\n",
					       e ? (int)(e - l) : (int)strlen(l), l);
				}
			}
			free(s);
		}
	}
	/* ^Z: stopped with the terminal as it was; fg: its keys again. */
	{
		char tty[100] = "", st[32] = "", mode[64] = "", pid[16] = "";
		FILE *p = popen("tmux -L tsa-prstat-test display -p -t keys "
				"'#{pane_tty}'", "r");

		if (p) {
			if (!fgets(tty, sizeof(tty), p))
				tty[0] = '\0';
			pclose(p);
		}
		tty[strcspn(tty, "\n")] = '\0';
		p = popen("pgrep -f '^/[^ ]*/tsa-prstat -m 0.2' | head -n 1", "r");
		if (p) {
			if (!fgets(pid, sizeof(pid), p))
				pid[0] = '\0';
			pclose(p);
		}
		pid[strcspn(pid, "\n")] = '\0';
		tmux_keys("C-z");
		s = tmux_wait("Stopped", NULL);
		free(s);
		snprintf(cmd, sizeof(cmd), "ps -o stat= -p %s; stty -a <%s | "
			 "grep -o -- ' -*icanon'", pid, tty);
		p = popen(cmd, "r");
		if (p) {
			if (!fgets(st, sizeof(st), p) || !fgets(mode, sizeof(mode), p))
				mode[0] = '\0';
			pclose(p);
		}
		/* (The shell then sets the terminal its own way.) */
		ok(pid[0] && st[0] == 'T', "keys: ^Z stops it (state %.2s): "
		   "no loop of its stop handler", st);
		tmux_keys("fg Enter");
		/* The shell took fg; then drawn again, its fg cleared away. */
		s = tmux_wait("$ fg", NULL);
		free(s);
		s = tmux_wait("Total: 3 processes", "$ fg");
		snprintf(cmd, sizeof(cmd), "stty -a <%s | grep -o -- ' -*icanon'",
			 tty);
		p = popen(cmd, "r");
		mode[0] = '\0';
		if (p) {
			if (!fgets(mode, sizeof(mode), p))
				mode[0] = '\0';
			pclose(p);
		}
		ok(strstr(mode, " -icanon") && strstr(s, "Total: 3 processes"),
		   "keys: fg: its keys again ('%.9s'), the report drawn", mode);
		free(s);
		/*
		 * A ^Z's race made certain: the shell takes the terminal
		 * back once the subshell it waits for has stopped, and only
		 * then does tsa-prstat's stop handler run, in the background.
		 * fg must find it stopped once, not again behind its back.
		 */
		snprintf(cmd, sizeof(cmd), "kill -STOP $(ps -o ppid= -p %s)",
			 pid);
		if (system(cmd))
			printf("# %s failed\n", cmd);
		s = tmux_wait("Stopped", NULL);
		free(s);
		snprintf(cmd, sizeof(cmd), "kill -TSTP %s", pid);
		if (system(cmd))
			printf("# %s failed\n", cmd);
		for (k = 0; k < 100 && proc_state(pid) != 'T'; k++) {
			struct timespec ms = { 0, 50000000 };

			nanosleep(&ms, NULL);
		}
		tmux_keys("fg Enter");
		s = tmux_wait("$ fg", NULL);
		free(s);
		s = tmux_wait("Total: 3 processes", "$ fg");
		ok(strstr(s, "Total: 3 processes") && !strstr(s, "$ fg") &&
		   proc_state(pid) != 'T',
		   "keys: stopped from the background (the shell had taken "
		   "the terminal back first), fg draws it again (state %c)",
		   proc_state(pid));
		free(s);
	}
	system("tmux -L tsa-prstat-test resize-window -t keys -y 5 "
	       "2>/dev/null");
	/* tmux keeps the old screen's last rows until the report is drawn. */
	s = tmux_wait("Total:", NULL);
	for (k = 0; k < 100 && !strstr(s, "PROCESS/NLWP"); k++) {
		struct timespec ms = { 0, 50000000 };

		nanosleep(&ms, NULL);
		free(s);
		s = tmux_capture();
	}
	{
		int rows = 0;
		char *p;

		for (p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 :
		     NULL)
			rows += *p != '\n';
		ok(strstr(s, "Total:") && rows == 5 &&
		   count_str(s, "PROCESS/NLWP") == 1,
		   "keys: a resize to 5 rows draws the report again: header, "
		   "2 lines, Total, status (saw %d rows)", rows);
	}
	free(s);
	system("tmux -L tsa-prstat-test resize-window -t keys -y 24 "
	       "2>/dev/null");
	tmux_keys("q");
	s = tmux_wait("icanon", NULL);
	ok(strstr(s, "EXITED 0") && strstr(s, "icanon echo"),
	   "keys: q quits with exit 0, the terminal as it was (icanon, "
	   "echo)");
	free(s);
	system("tmux -L tsa-prstat-test kill-server 2>/dev/null");
}

static void test_capture_fuzz(void)
{
	char path[400], src[400], msg[256], *text, *rows;
	unsigned long seed = 12345;
	int i, refused = 0, tries = 0, crashed = 0;
	size_t len, hdr;

	snprintf(src, sizeof(src), "%s/b.cap", tmp);
	text = slurp(src);
	len = strlen(text);
	rows = strstr(text, "\ntsa-all 1\n");
	if (!rows || !len) {
		skip("capture fuzz: no b.cap");
		free(text);
		return;
	}
	hdr = (size_t)(rows - text) + 1;
	snprintf(path, sizeof(path), "%s/fuzz.cap", tmp);
	for (i = 0; i < 400; i++) {
		struct capture c = { 0 };
		size_t at;
		char old;
		int rc;

		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		at = i < 300 ? hdr + (seed >> 33) % (len - hdr) :
		     (seed >> 33) % hdr;
		old = text[at];
		text[at] = (char)(old ^ (1 + (seed >> 20) % 255));
		put(path, text);
		text[at] = old;
		rc = capture_read(&c, path, msg, sizeof(msg));
		if (i < 300) {
			tries++;
			refused += rc == TSA_EFORMAT &&
				   (strstr(msg, "checksum") ||
				    strstr(msg, "cut short"));
		} else {
			crashed += rc != TSA_OK && !*msg;
		}
		capture_free(&c);
	}
	is_long(refused, tries, "capture fuzz: all %d one-byte changes in the "
		"rows refused as damaged", tries);
	is_long(crashed, 0, "capture fuzz: 100 changes in the header read or "
		"refused with a reason");
	free(text);
}

/* ---- -H: /proc/tsa/hist ------------------------------------------------ */

#define HIST_HEAD "tsa-hist 1\nnow %llu\nbuckets 28 10\n" \
	"states TFL DFL KFL APG LCK KLK IOW IDL SLP LAT STP\n" \
	"fields tid pid uid flags elapsed at state n ns max max_at open " \
	"open_ns b0 b1 b2 b3 b4 b5 b6 b7 b8 b9 b10 b11 b12 b13 b14 b15 b16 " \
	"b17 b18 b19 b20 b21 b22 b23 b24 b25 b26 b27\n"

/* 28 bucket counts, all 0 but the (bucket, count) pairs, -1 ended. */
static const char *hb(int b1, int n1, int b2, int n2)
{
	static char buf[8][200];
	static int k;
	char *o = buf[k++ & 7];
	int b, len = 0;

	for (b = 0; b < 28; b++)
		len += snprintf(o + len, 200 - len, " %d",
				b == b1 ? n1 : b == b2 ? n2 : 0);
	return o;
}

/*
 * Two snapshots a second apart, computed by hand: thread 100's LAT
 * gained 8 stays in b10 and 2 in b12 (its longest, 3 ms, ended before);
 * 101's LCK 2 in b14, with a new longest (12 ms) in the interval and
 * its stay in progress ended; 102 is new; the process's exited threads
 * (tid 0) did nothing.
 */
static void hist_snaps(char *a, char *b, size_t len)
{
	snprintf(a, len, HIST_HEAD
		 "100 100 0 0 5000000000 10000000000 USR 10 100 50 9000000000\n"
		 "100 100 0 0 5000000000 10000000000 LAT 10 5000000 3000000 9500000000 0 0%s\n"
		 "101 100 0 0 4000000000 10000000000 LCK 5 20000000 9000000 9900000000 1 1000000%s\n"
		 "0 100 0 4 6000000000 10000000000 LAT 3 3000 2000 8000000000 0 0%s\n",
		 10000000000ULL, hb(10, 8, 12, 2), hb(13, 2, 14, 2), hb(1, 3, -1, 0));
	snprintf(b, len, HIST_HEAD
		 "100 100 0 0 6000000000 11000000000 USR 20 200 50 9000000000\n"
		 "100 100 0 0 6000000000 11000000000 LAT 20 9000000 3000000 9500000000 0 0%s\n"
		 "101 100 0 0 5000000000 11000000000 LCK 6 30000000 12000000 10600000000 0 0%s\n"
		 "102 100 0 0 500000000 11000000000 LAT 1 100 100 10900000000 0 0%s\n"
		 "0 100 0 4 7000000000 11000000000 LAT 3 3000 2000 8000000000 0 0%s\n",
		 11000000000ULL, hb(10, 16, 12, 4), hb(13, 2, 14, 4), hb(0, 1, -1, 0),
		 hb(1, 3, -1, 0));
}

static int hist_parse_text(struct tsa_hist_snap *s, const char *text,
			   char *msg, size_t msglen)
{
	memset(s, 0, sizeof(*s));
	s->len = strlen(text);
	s->cap = s->len + 1;
	s->buf = xmalloc(s->cap);
	memcpy(s->buf, text, s->len + 1);
	return tsa_hist_parse(s, msg, msglen);
}

static void test_hist_lib(void)
{
	static char a[4096], b[4096];
	struct tsa_hist_snap sa, sb, bad;
	struct tsa_hview *v = NULL;
	size_t cap = 0, n;
	uint64_t pid100 = 100, pid7 = 7;
	char msg[200];

	hist_snaps(a, b, sizeof(a));
	is_long(hist_parse_text(&sa, a, msg, sizeof(msg)), TSA_OK,
		"hist: a snapshot parses (%s)", msg);
	is_long(hist_parse_text(&sb, b, msg, sizeof(msg)), TSA_OK,
		"hist: the next parses (%s)", msg);
	is_long((long)sa.n, 4, "hist: one line per state, USR's without buckets");
	ok(sa.l[1].has_b && !sa.l[0].has_b && sa.l[2].open &&
	   sa.l[2].open_ns == 1000000 && sa.l[1].b[12] == 2,
	   "hist: open, open_ns and buckets where the state has them");
	is_long((long)tsa_hist_edge(10, 0), 1024, "hist: b0 ends at 2^10 ns");
	is_long((long)tsa_hist_edge(10, 12), 4194304, "hist: b12 at 2^22 ns");
	ok(tsa_hist_edge(10, 27) == UINT64_MAX, "hist: the last has no end");

	/* Threads: 101 (10 ms of LCK), 100 (4 ms of LAT), 102 (new). */
	n = tsa_hist_compute(&sa, &sb, 1, NULL, 0, &v, &cap);
	is_long((long)n, 3, "hist -L: a line per thread and state with stays that ended");
	ok(n == 3 && v[0].tid == 101 && v[1].tid == 100 && v[2].tid == 102,
	   "hist -L: the longest waits first (101 LCK, 100 LAT, 102)");
	if (n == 3) {
		ok(v[0].state == S_LCK && v[0].count == 2 && v[0].b[14] == 2 &&
		   v[0].ns == 10000000 && v[0].max == 12000000 &&
		   v[0].max_exact && !v[0].open && !v[0].first,
		   "hist -L: 101's LCK: 2 stays in b14, 10 ms, its new longest exact (saw count %llu ns %llu max %llu exact %d)",
		   (unsigned long long)v[0].count, (unsigned long long)v[0].ns,
		   (unsigned long long)v[0].max, v[0].max_exact);
		ok(v[1].count == 10 && v[1].b[10] == 8 && v[1].b[12] == 2 &&
		   v[1].ns == 4000000 && v[1].max == 3000000 && !v[1].max_exact,
		   "hist -L: 100's LAT: 10 stays; the longest (3 ms) ended before: a bound");
		is_long((long)tsa_hist_quantile(&v[1], 10, 0.5), 1048576,
			"hist: p50 is the upper edge of its bucket (b10: 2^20 ns)");
		is_long((long)tsa_hist_quantile(&v[1], 10, 0.9), 3000000,
			"hist: p90's edge (b12, 4.19 ms) capped by the longest stay");
		ok(v[2].first && v[2].count == 1 && v[2].b[0] == 1,
		   "hist -L: a thread new in the interval: its lifetime");
	}
	/* Processes: pid 100 sums its threads and its exited ones. */
	n = tsa_hist_compute(&sa, &sb, 0, &pid100, 1, &v, &cap);
	ok(n == 2 && v[0].state == S_LCK && v[1].state == S_LAT &&
	   v[1].count == 11 && v[1].b[0] == 1 && v[1].b[1] == 0 &&
	   v[1].max == 3000000 && !v[1].max_exact,
	   "hist: process 100: LCK then LAT, 11 stays (8 + 2 + the new thread's 1)");
	n = tsa_hist_compute(&sa, &sb, 0, &pid7, 1, &v, &cap);
	is_long((long)n, 0, "hist -p 7: nothing of pid 100");
	/* First report: lifetime. */
	n = tsa_hist_compute(NULL, &sa, 1, NULL, 0, &v, &cap);
	ok(n == 2 && v[0].first && v[0].count == 4 && v[0].open == 1 &&
	   v[0].max_exact,
	   "hist: a first report: lifetime counts, the open stay apart");
	/* A pid reused: counts would go down, so it is a new process. */
	n = tsa_hist_compute(&sb, &sa, 0, NULL, 0, &v, &cap);
	ok(n == 2 && v[0].first && v[1].first,
	   "hist: counts that go down are a reused pid: lifetime again");
	free(v);

	is_long(hist_parse_text(&bad, "tsa-hist 2\n", msg, sizeof(msg)),
		TSA_EVERSION, "hist: another format version is refused");
	tsa_hist_free(&bad);
	snprintf(a, sizeof(a), "%s", "tsa-hist 1\nnow 1\nbuckets 30 10\nfields tid\n");
	is_long(hist_parse_text(&bad, a, msg, sizeof(msg)), TSA_EFORMAT,
		"hist: buckets it does not know are refused (%s)", msg);
	tsa_hist_free(&bad);
	hist_snaps(a, b, sizeof(a));
	*strstr(a, " 8 0 2") = 'x';
	ok(hist_parse_text(&bad, a, msg, sizeof(msg)) == TSA_EFORMAT &&
	   strstr(msg, "line 7"), "hist: a malformed line is named (%s)", msg);
	tsa_hist_free(&bad);
	tsa_hist_free(&sa);
	tsa_hist_free(&sb);
}

static void test_hist_binary(void)
{
	char *out, *err, path[400], *dir, a[4096], b[4096];
	int rc;

	dir = mkdir_in_tmp("hist");
	rc = run(dir, (const char *[]){ "-H", "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 2, "-H without /proc/tsa/hist: exit 2");
	ok(strstr(err, "must be loaded with hist=1 for -H") != NULL,
	   "-H without /proc/tsa/hist: says to load tsa with hist=1");
	free(out);
	free(err);
	hist_snaps(a, b, sizeof(a));
	snprintf(path, sizeof(path), "%s/hist", dir);
	put(path, b);
	snprintf(path, sizeof(path), "%s/100", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/100/comm", dir);
	put(path, "server\n");
	setenv("TSA_PROCFS", dir, 1);
	rc = run(dir, (const char *[]){ "-H", "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 0, "-H: exit 0");
	/*
	 * Lifetime: LCK 6 stays (b13 2, b14 4): the 3rd is in b14, whose
	 * edge (16.8 ms) is above the longest, 12 ms; LAT 24 (b0 1, b1 3,
	 * b10 16, b12 4): the 12th in b10 (1.05 ms), the 22nd in b12.
	 */
	is_str(out,
	       "   PID       STATE   COUNT    TIME     P50     P90     P99      MAX OPEN PROCESS\n"
	       "   100       LCK         6  30.0ms  12.0ms  12.0ms  12.0ms   12.0ms    0 server\n"
	       "   100       LAT        24  9.00ms  1.04ms  3.00ms  3.00ms   3.00ms    0 server\n"
	       "Total: 1 processes with stays off CPU, since each began\n",
	       "-H: the process's states, lifetime, by time waited");
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "--json", "-L", "-p", "100", "1",
		 "1", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, "\"tid\":101,\"comm\":\"-\",\"first\":true,"
			     "\"states\":[{\"state\":\"LCK\",\"count\":6,\"ns\":30000000,"
			     "\"p50_ns\":12000000,\"p90_ns\":12000000,\"p99_ns\":12000000,"
			     "\"max_ns\":12000000,\"max_exact\":true,\"open\":0,"
			     "\"buckets\":[0,0,0,0,0,0,0,0,0,0,0,0,0,2,4,"),
	   "-H --json -L: a thread's states as objects with count and percentiles");
	free(out);
	free(err);
	/*
	 * The export, with /proc/tsa/all for the same threads: process
	 * 100's LAT is thread 100's 20 stays (b10 16, b12 4), 102's one
	 * (b0) and the exited threads' 3 (b1): 24, cumulative by bucket;
	 * its sum the time of the ended stays, 9 ms + 100 ns + 3 us.
	 */
	{
		struct fx r[] = {
			{ 100, 100, 0, 0, MS(6000), S_USR, { [S_USR] = MS(6000) },
			  0, 0, 0, 0, "server" },
			{ 101, 100, 0, 0, MS(5000), S_LCK, { [S_LCK] = MS(5000) },
			  0, 0, 0, 0, "server" },
			{ 102, 100, 0, 0, MS(500), S_USR, { [S_USR] = MS(500) },
			  0, 0, 0, 0, "server" },
			{ 0, 100, 0, 4, MS(7000), 0, { [S_LAT] = MS(7000) },
			  0, 0, 0, 0, "server" },
		};
		char *all = snapshot(11000000000ULL, r, 4);
		const char *want[] = {
			"# TYPE tsa_process_stay_seconds histogram\n",
			"tsa_process_stay_seconds_bucket{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\",le=\"0.000001024\"} 1\n",
			"tsa_process_stay_seconds_bucket{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\",le=\"0.000002048\"} 4\n",
			"tsa_process_stay_seconds_bucket{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\",le=\"0.001048576\"} 20\n",
			"tsa_process_stay_seconds_bucket{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\",le=\"0.004194304\"} 24\n",
			"tsa_process_stay_seconds_bucket{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\",le=\"+Inf\"} 24\n",
			"tsa_process_stay_seconds_sum{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\"} 0.009003100\n",
			"tsa_process_stay_seconds_count{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\"} 24\n",
			"tsa_process_stay_seconds_count{pid=\"100\",comm=\"server\",user=\"root\",state=\"LCK\"} 6\n",
			"tsa_process_stay_seconds_sum{pid=\"100\",comm=\"server\",user=\"root\",state=\"LCK\"} 0.030000000\n",
		};
		size_t k, missing = 0;
		char first[300] = "";

		snprintf(path, sizeof(path), "%s/all", dir);
		put(path, all);
		free(all);
		rc = run(dir, (const char *[]){ "--prometheus", NULL }, &out,
			 &err, 0);
		for (k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			if (!strstr(out, want[k]) && !missing++)
				snprintf(first, sizeof(first), "%s", want[k]);
		ok(rc == 0 && !missing && !strstr(out, "state=\"USR\",le="),
		   "--prometheus with hist=1: a cumulative histogram per process "
		   "and state with stays, its sum the ended stays' time "
		   "(%zu lines missing, the first: %s; %s)", missing, first, err);
		if (!system("command -v promtool >/dev/null 2>&1")) {
			char cmd[600];
			FILE *pf;

			snprintf(cmd, sizeof(cmd), "%s/hist.prom", tmp);
			pf = fopen(cmd, "w");
			fputs(out, pf);
			fclose(pf);
			snprintf(cmd, sizeof(cmd), "promtool check metrics "
				 "<%s/hist.prom >/dev/null 2>&1", tmp);
			ok(!system(cmd), "--prometheus with hist=1: promtool "
			   "check metrics accepts it");
		}
		free(out);
		free(err);
		rc = run(dir, (const char *[]){ "--openmetrics", "--group",
			 "comm", NULL }, &out, &err, 0);
		ok(rc == 0 && strstr(out, "# UNIT tsa_threadname_stay_seconds seconds\n") &&
		   strstr(out, "tsa_threadname_stay_seconds_count{comm=\"server\",state=\"LAT\"} 24\n") &&
		   strstr(out, "# EOF\n"),
		   "--openmetrics --group comm with hist=1: the thread name's "
		   "histogram, exited threads under the process's name");
		free(out);
		free(err);
	}
	rc = run(dir, (const char *[]){ "-H", "-y", NULL }, &out, &err, 0);
	is_long(rc, 1, "-H with -y: exit 1");
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "-L", "--group", "user", NULL },
		 &out, &err, 0);
	is_long(rc, 1, "-H --group with -L: exit 1");
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--draw", "1", "1", NULL }, &out, &err,
		 0);
	ok(rc == 1 && strstr(err, "only with -H"), "--draw without -H: exit 1 (%s)",
	   err);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "--draw", "--json", NULL }, &out,
		 &err, 0);
	is_long(rc, 1, "-H --draw with --json: exit 1");
	free(out);
	free(err);
	/*
	 * --draw: process 100's lifetime; LCK has 2 stays in b13 and 4 in
	 * b14, so the fuller bucket's bar is 40 stars and the other's 20.
	 */
	rc = run(dir, (const char *[]){ "-H", "--draw", "-n", "1", "1", "1",
		 NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out,
	   "server LCK: 6 stays ended, 30.0ms; p50 12.0ms p99 12.0ms max 12.0ms\n"
	   "             range : count      distribution\n"
	   "  4.19ms -> 8.38ms : 2          |********************                    |\n"
	   "  8.38ms -> 16.7ms : 4          |****************************************|\n"
	   "\nserver LAT: 24 stays ended, 9.00ms; p50 1.04ms p99 3.00ms max 3.00ms\n"
	   "             range : count      distribution\n"
	   "       0 -> 1.02us : 1          |***                                     |\n"
	   "  1.02us -> 2.04us : 3          |********                                |\n"
	   "  2.04us -> 4.09us : 0          |                                        |\n"),
	   "-H --draw: each state's buckets as runqlat draws them, from the "
	   "first stay's bucket to the last's (%s)", out);
	ok(strstr(out, "  2.09ms -> 4.19ms : 4          |**********                              |\n"
		  "\nTotal: 1 processes with stays off CPU, since each began\n") != NULL,
	   "-H --draw: the last bucket with a stay ends it, then the total");
	free(out);
	free(err);
	unsetenv("TSA_PROCFS");
}

/*
 * --save carries /proc/tsa/hist (a version 2 capture) and --compare -H
 * shows the stays that ended between two captures: hist_snaps' interval.
 */
static void test_hist_capture(void)
{
	static char a[4096], b[4096];
	struct fx ra[] = {
		{ 100, 100, 0, 0, MS(5000), S_USR, { [S_USR] = MS(5000) },
		  0, 0, 0, 0, "server" },
		{ 101, 100, 0, 0, MS(4000), S_LCK, { [S_LCK] = MS(4000) },
		  0, 0, 0, 0, "server" },
	};
	struct fx rb[] = {
		{ 100, 100, 0, 0, MS(6000), S_USR, { [S_USR] = MS(6000) },
		  0, 0, 0, 0, "server" },
		{ 101, 100, 0, 0, MS(5000), S_LCK, { [S_LCK] = MS(5000) },
		  0, 0, 0, 0, "server" },
		{ 102, 100, 0, 0, MS(500), S_USR, { [S_USR] = MS(500) },
		  0, 0, 0, 0, "server" },
	};
	char *out, *err, path[400], ca[400], cb[400], c1[400], msg[256];
	char *dir, *all;
	struct capture c;
	FILE *f;
	int rc;

	dir = mkdir_in_tmp("histcap");
	hist_snaps(a, b, sizeof(a));
	snprintf(ca, sizeof(ca), "%s/a.cap", tmp);
	snprintf(cb, sizeof(cb), "%s/b.cap", tmp);
	snprintf(c1, sizeof(c1), "%s/v1.cap", tmp);
	all = snapshot(10000000000ULL, ra, 2);
	snprintf(path, sizeof(path), "%s/all", dir);
	put(path, all);
	free(all);
	rc = run(dir, (const char *[]){ "--save", c1, NULL }, &out, &err, 0);
	is_long(rc, 0, "--save without /proc/tsa/hist: exit 0 (%s)", err);
	free(out);
	free(err);
	snprintf(path, sizeof(path), "%s/hist", dir);
	put(path, a);
	rc = run(dir, (const char *[]){ "--save", ca, NULL }, &out, &err, 0);
	free(out);
	free(err);
	all = snapshot(11000000000ULL, rb, 3);
	snprintf(path, sizeof(path), "%s/all", dir);
	put(path, all);
	free(all);
	snprintf(path, sizeof(path), "%s/hist", dir);
	put(path, b);
	rc |= run(dir, (const char *[]){ "--save", cb, NULL }, &out, &err, 0);
	is_long(rc, 0, "--save with /proc/tsa/hist: exit 0 (%s)", err);
	free(out);
	free(err);

	memset(&c, 0, sizeof(c));
	rc = capture_read(&c, c1, msg, sizeof(msg));
	ok(rc == TSA_OK && !c.has_hist, "a capture without hist=1 is "
	   "version 1, with no distributions (%s)", rc ? msg : "ok");
	capture_free(&c);
	rc = capture_read(&c, cb, msg, sizeof(msg));
	ok(rc == TSA_OK && c.has_hist && c.hist.n == 5 && c.snap.nrows == 3,
	   "a capture with hist=1 is read back with its 5 lines of "
	   "distributions beside its rows (%s)", rc ? msg : "ok");
	capture_free(&c);
	{	/* A bucket count changed in the hist section. */
		char *text, *at;
		size_t len;

		f = fopen(cb, "r");
		text = xmalloc(8192);
		len = fread(text, 1, 8191, f);
		fclose(f);
		text[len] = '\0';
		at = strstr(text, "tsa-hist 1");
		at = at ? strstr(at, " 16 ") : NULL;
		if (at)
			at[1] = '7';
		snprintf(path, sizeof(path), "%s/bad.cap", tmp);
		f = fopen(path, "w");
		fwrite(text, 1, len, f);
		fclose(f);
		free(text);
		rc = capture_read(&c, path, msg, sizeof(msg));
		ok(at && rc == TSA_EFORMAT && strstr(msg, "checksum"),
		   "a capture whose distributions were changed is refused "
		   "(%s)", msg);
		capture_free(&c);
	}

	rc = run(dir, (const char *[]){ "--compare", ca, cb, "-H", NULL },
		 &out, &err, 0);
	/*
	 * LCK: b14 gained 2, 10 ms, its new longest (12 ms) ended after
	 * A; LAT: thread 100's 8 in b10 and 2 in b12, 102's one in b0, the
	 * longest (3 ms) before A, so only a bound.
	 */
	ok(rc == 0 && strstr(out, "Compare: ") && strstr(out, ", 1.000 s apart\n"
	   "   PID       STATE   COUNT    TIME     P50     P90     P99      MAX OPEN PROCESS\n"
	   "   100       LCK         2  10.0ms  12.0ms  12.0ms  12.0ms   12.0ms    0 server\n"
	   "   100       LAT        11  4.00ms  1.04ms  3.00ms  3.00ms  <3.00ms    0 server\n"
	   "Total: 1 processes with stays off CPU, over 1.00 s\n"),
	   "--compare A B -H: the stays that ended between them, named as "
	   "in B (%s%s)", out, err);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--compare", ca, cb, "-H", "--group",
		 "comm", "--json", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, "\"name\":\"server\",\"nproc\":1,\"nlwp\":3,"
			     "\"first\":false,\"states\":[{\"state\":\"LCK\","
			     "\"count\":2,"),
	   "--compare -H --group comm --json: the group of the name in B (%s%s)",
	   out, err);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--compare", c1, cb, "-H", NULL },
		 &out, &err, 0);
	ok(rc == 5 && strstr(err, "has no distributions"),
	   "--compare -H with a capture without them: exit 5 (%s)", err);
	free(out);
	free(err);
}

/*
 * The durations of system calls (lines "syscall:NAME"), a second apart:
 * thread 100's read gained 8 calls in b10 and 2 in b12 (its longest,
 * 3 ms, from before); 101's read in progress at A (counted, open)
 * returned after 0.5 ms, its longest; 101's futex did nothing.
 */
static void test_hist_calls(void)
{
	static char a[4096], b[4096];
	char *out, *err, path[400], msg[256], *dir;
	struct tsa_hist_snap sa, sb;
	struct tsa_hview *v = NULL;
	size_t cap = 0, n;
	int rc;

	snprintf(a, sizeof(a), HIST_HEAD
		 "100 100 0 0 5000000000 10000000000 LAT 3 3000 2000 9000000000 0 0%s\n"
		 "100 100 0 0 5000000000 10000000000 syscall:read 10 9000000 3000000 0 0 0%s\n"
		 "101 100 0 0 5000000000 10000000000 syscall:read 1 100000 100000 0 1 0%s\n"
		 "101 100 0 0 5000000000 10000000000 syscall:futex 5 90000000 20000000 0 0 0%s\n",
		 10000000000ULL, hb(1, 3, -1, 0), hb(10, 8, 12, 2), hb(-1, 0, -1, 0),
		 hb(14, 5, -1, 0));
	snprintf(b, sizeof(b), HIST_HEAD
		 "100 100 0 0 6000000000 11000000000 LAT 3 3000 2000 9000000000 0 0%s\n"
		 "100 100 0 0 6000000000 11000000000 syscall:read 20 18000000 3000000 0 0 0%s\n"
		 "101 100 0 0 6000000000 11000000000 syscall:read 1 500000 500000 0 0 0%s\n"
		 "101 100 0 0 6000000000 11000000000 syscall:futex 5 90000000 20000000 0 0 0%s\n",
		 11000000000ULL, hb(1, 3, -1, 0), hb(10, 16, 12, 4), hb(9, 1, -1, 0),
		 hb(14, 5, -1, 0));
	is_long(hist_parse_text(&sa, a, msg, sizeof(msg)), TSA_OK,
		"hist calls: lines \"syscall:NAME\" parse (%s)", msg);
	is_long(hist_parse_text(&sb, b, msg, sizeof(msg)), TSA_OK,
		"hist calls: the next parses (%s)", msg);
	ok(sa.n == 4 && sa.l[1].state == TSA_HIST_CALL &&
	   sa.l[1].call_len == 4 && !strncmp(sa.l[1].call, "read", 4),
	   "hist calls: a call's line is named by its call");
	n = tsa_hist_compute(&sa, &sb, 0, NULL, 0, &v, &cap);
	ok(n == 1 && v[0].state == TSA_HIST_CALL && v[0].count == 11 &&
	   v[0].ns == 9400000 && v[0].b[10] == 8 && v[0].b[12] == 2 &&
	   v[0].b[9] == 1 && v[0].max == 3000000 && !v[0].max_exact,
	   "hist calls: a process's read over the interval: its threads' "
	   "calls summed by name (10 + the one that was open), the longest "
	   "from before only a bound; the futex with none returned: no line "
	   "(saw %zu lines, count %llu ns %llu max %llu exact %d)", n,
	   n ? (unsigned long long)v[0].count : 0ULL,
	   n ? (unsigned long long)v[0].ns : 0ULL,
	   n ? (unsigned long long)v[0].max : 0ULL, n ? v[0].max_exact : -1);
	n = tsa_hist_compute(&sa, &sb, 1, NULL, 0, &v, &cap);
	ok(n == 2 && v[1].tid == 101 && v[1].count == 1 &&
	   v[1].max == 500000 && v[1].max_exact,
	   "hist calls -L: 101's read that returned: its longest grew, so "
	   "exact (saw %zu lines)", n);
	n = tsa_hist_compute(NULL, &sa, 1, NULL, 0, &v, &cap);
	ok(n == 3 && v[0].state == S_LAT && v[1].state == TSA_HIST_CALL &&
	   v[1].count == 10 && v[2].tid == 101 && v[2].count == 5 &&
	   v[2].call_len == 5,
	   "hist calls: lifetime: a thread's states, then its calls; the "
	   "read in progress (open) is in no bucket, so not shown (saw %zu)",
	   n);
	free(v);
	tsa_hist_free(&sa);
	tsa_hist_free(&sb);

	dir = mkdir_in_tmp("histcalls");
	snprintf(path, sizeof(path), "%s/hist", dir);
	put(path, b);
	setenv("TSA_PROCFS", "/nonexistent", 1);
	rc = run(dir, (const char *[]){ "-H", "-L", "1", "1", NULL }, &out,
		 &err, 0);
	ok(rc == 0 && strstr(out,
	   "   100   100 LAT         3  3.00us  2.00us  2.00us  2.00us   2.00us    0 -/100\n"
	   "   100   100 SCL        20  18.0ms  1.04ms  3.00ms  3.00ms   3.00ms    0 -/100 read()\n"
	   "   100   101 SCL         5  90.0ms  16.7ms  16.7ms  16.7ms   20.0ms    0 -/101 futex()\n"
	   "   100   101 SCL         1   500us   500us   500us   500us    500us    0 -/101 read()\n"),
	   "-H -L: a thread's calls as SCL lines, the call after the name (%s%s)",
	   out, err);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "-L", "--json", "-p", "100", "1",
		 "1", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, "{\"call\":\"read\",\"count\":20,\"ns\":18000000,"),
	   "-H --json: a call's object is named by \"call\" (%s)", out);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "--group", "user", "--draw", "1",
		 "1", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, "root read(): 21 calls ended, 18.5ms; p50 1.04ms p99 3.00ms max 3.00ms\n"),
	   "-H --group --draw: a group's calls summed by name and drawn (%s)",
	   out);
	free(out);
	free(err);
	unsetenv("TSA_PROCFS");
}

/*
 * -H --group: two processes, of root (100: "server" and "worker-1",
 * its exited threads' LAT) and of uid 4000000, which has no name (200:
 * "worker-2", "worker-3"), all in their first report.
 */
static void test_hist_groups(void)
{
	static char a[8192];
	char *out, *err, path[400], *dir;
	struct tsa_hview acc, x;
	int rc;

	memset(&acc, 0, sizeof(acc));
	memset(&x, 0, sizeof(x));
	x.count = 2;
	x.b[3] = 2;
	x.max = 5000;
	x.max_exact = 1;
	tsa_hist_fold(&acc, &x);
	x.max = 8000;
	x.max_exact = 0;
	tsa_hist_fold(&acc, &x);
	ok(acc.count == 4 && acc.b[3] == 4 && acc.max == 8000 && !acc.max_exact,
	   "hist fold: counts add; a larger bound hides an exact longest");
	x.max = 8000;
	x.max_exact = 1;
	tsa_hist_fold(&acc, &x);
	ok(acc.max == 8000 && acc.max_exact,
	   "hist fold: an exact longest equal to the bound is exact");

	dir = mkdir_in_tmp("histgroups");
	snprintf(a, sizeof(a), HIST_HEAD
		 "100 100 0 0 5000000000 10000000000 LAT 4 6000000 2000000 9000000000 0 0%s\n"
		 "101 100 0 0 5000000000 10000000000 LAT 2 600000 500000 9100000000 1 100000%s\n"
		 "0 100 0 4 6000000000 10000000000 LAT 3 40000 20000 8000000000 0 0%s\n"
		 "200 200 4000000 0 4000000000 10000000000 LAT 1 9000000 9000000 9200000000 0 0%s\n"
		 "200 200 4000000 0 4000000000 10000000000 SLP 5 50000000 10000000 9300000000 0 0%s\n"
		 "201 200 4000000 0 4000000000 10000000000 LCK 1 3000000 3000000 9400000000 0 0%s\n",
		 10000000000ULL, hb(11, 4, -1, 0), hb(9, 1, -1, 0),
		 hb(4, 2, 5, 1), hb(14, 1, -1, 0), hb(14, 5, -1, 0),
		 hb(12, 1, -1, 0));
	snprintf(path, sizeof(path), "%s/hist", dir);
	put(path, a);
	{
		static const char *const comm[][2] = {
			{ "100", "server" }, { "100/task/100", "server" },
			{ "100/task/101", "worker-1" }, { "200", "worker-2" },
			{ "200/task/200", "worker-2" },
			{ "200/task/201", "worker-3" },
		};
		size_t k;

		for (k = 0; k < sizeof(comm) / sizeof(comm[0]); k++) {
			char *slash;

			snprintf(path, sizeof(path), "%s/%s", dir, comm[k][0]);
			for (slash = path + strlen(dir) + 1; *slash; slash++)
				if (*slash == '/') {
					*slash = '\0';
					mkdir(path, 0755);
					*slash = '/';
				}
			mkdir(path, 0755);
			strcat(path, "/comm");
			put(path, comm[k][1]);
		}
	}
	setenv("TSA_PROCFS", dir, 1);
	rc = run(dir, (const char *[]){ "-H", "--group", "user", "1", "1", NULL },
		 &out, &err, 0);
	/*
	 * 4000000 waited 12 ms for a CPU or a lock (root 6.64 ms), so it
	 * comes first; root's LAT: thread 100's 4 (b11), 101's ended one
	 * (b9; the open one is in no bucket) and the exited threads' 3 (b4,
	 * b5): the 4th of 8 is in b9 (524 us), the 8th in b11, whose edge
	 * (2.1 ms) is above the longest.
	 */
	is_str(out,
	       " NPROC  NLWP STATE   COUNT    TIME     P50     P90     P99      MAX OPEN USERNAME\n"
	       "     1     2 SLP         5  50.0ms  10.0ms  10.0ms  10.0ms   10.0ms    0 4000000\n"
	       "     1     2 LAT         1  9.00ms  9.00ms  9.00ms  9.00ms   9.00ms    0 4000000\n"
	       "     1     2 LCK         1  3.00ms  3.00ms  3.00ms  3.00ms   3.00ms    0 4000000\n"
	       "     1     2 LAT         8  6.64ms   524us  2.00ms  2.00ms   2.00ms    1 root\n"
	       "Total: 2 groups with stays off CPU, since each began\n",
	       "-H --group user: a line per user and state, exited threads "
	       "included, the longest wait for a resource first (%s)", err);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "--group", "comm", "--json", "1",
		 "1", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, "\"group\":\"comm\",\"name\":\"worker-{N}\","
			     "\"nproc\":2,\"nlwp\":3,\"first\":true,\"states\":"
			     "[{\"state\":\"SLP\",\"count\":5,") &&
	   strstr(out, "\"name\":\"server\",\"nproc\":1,\"nlwp\":1,"
		  "\"first\":true,\"states\":[{\"state\":\"LAT\",\"count\":7,"
		  "\"ns\":6040000,"),
	   "-H --group comm --json: worker-1, -2 and -3 in one group of two "
	   "processes; the exited threads under their process's name (%s)",
	   out);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "--group", "user", "-p", "100",
		 "1", "1", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, " root\n") && !strstr(out, "4000000"),
	   "-H --group user -p 100: only that process's user");
	free(out);
	free(err);
	unsetenv("TSA_PROCFS");
}

/*
 * A process that moves to another cgroup while an export runs.  Its
 * /proc/PID/cgroup is a FIFO that answers /a the first time it is read
 * and /b the second: an export that reads it once (the group rule, one
 * read per process) has pid 100 and its stays in /a; one that read it
 * again for the distributions found no group /b and dropped them.
 */
static void test_metrics_cgroup_move(void)
{
	static char a[4096], b[4096];
	char *dir, procfs[300], path[400], *out, *err, *say[2];
	int rc, status;
	pid_t w;

	dir = mkdir_in_tmp("move");
	snprintf(procfs, sizeof(procfs), "%s", mkdir_in_tmp("move-procfs"));
	hist_snaps(a, b, sizeof(a));
	snprintf(path, sizeof(path), "%s/all", dir);
	put(path, snap_a());
	snprintf(path, sizeof(path), "%s/hist", dir);
	put(path, a);
	put_cgroup(procfs, 200, "0::/c\n");
	put_cgroup(procfs, 300, "0::/c\n");
	snprintf(path, sizeof(path), "%s/100", procfs);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/100/cgroup", procfs);
	if (mkfifo(path, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	say[0] = "0::/a\n";
	say[1] = "0::/b\n";
	w = feed_fifo(path, say, 2);
	setenv("TSA_PROCFS", procfs, 1);
	rc = run(dir, (const char *[]){ "--prometheus", "--group", "cgroup",
		 NULL }, &out, &err, 0);
	unsetenv("TSA_PROCFS");
	/* The second answer is never asked for: stop the feeder. */
	kill(w, SIGKILL);
	waitpid(w, &status, 0);
	is_long(rc, 0, "export while pid 100 moves from cgroup /a to /b: "
		"exit 0");
	ok(has_line(out, "tsa_cgroup_state_seconds_total{cgroup=\"/a\","
		    "state=\"USR\"} 1.500000000"),
	   "pid 100's states in /a, the cgroup of its first read");
	ok(has_line(out, "tsa_cgroup_stay_seconds_count{cgroup=\"/a\","
		    "state=\"LAT\"} 13") &&
	   has_line(out, "tsa_cgroup_stay_seconds_count{cgroup=\"/a\","
		    "state=\"LCK\"} 4"),
	   "its stays in /a too (LAT 13, LCK 4): its cgroup file read once, "
	   "not again for the distributions");
	if (!ok(!strstr(out, "cgroup=\"/b\""), "no line of /b"))
		tap_diag("seen", out);
	free(out);
	free(err);
}

int main(void)
{
	if (fx_init())
		return 2;

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
	test_format_count_dur();
	test_calls_parser();
	test_calls_report();
	test_calls_gap();
	test_calls_sums();
	test_calls_model();
	test_errors();
	test_end_to_end();
	test_calls_binary();
	test_sigterm();
	test_tty();
	test_fold_escape();
	test_metrics_lib();
	test_metrics_binary();
	test_group_report();
	test_group_binary();
	test_capture_roundtrip();
	test_compare_binary();
	test_capture_fuzz();
	test_record_parsers();
	test_record_replay();
	test_record_calls_aging();
	test_keys();
	test_hist_lib();
	test_hist_binary();
	test_hist_groups();
	test_metrics_cgroup_move();
	test_hist_capture();
	test_hist_calls();
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
