// SPDX-License-Identifier: GPL-2.0
/*
 * test_model.c - model/: the readers of /proc/tsa/all, calls, hist and
 * wakers,
 * and the arithmetic on them, fed hand-written snapshots (fx/snap.c);
 * every expected number was computed by hand (in the comments).
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
#include "calls.h"
#include "hist.h"
#include "wakers.h"
#include "group.h"
#include "tap.h"
#include "fx/load.h"
#include "fx/snap.h"
#include "fx/run.h"

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
	/*
	 * A column named twice: refused with the reason (issue 62: a second
	 * "comm" before the last word was parsed as a number into the slot
	 * past the row's last, and the file accepted).
	 */
	snap_set_text(&s, "tsa-all 1\nnow 1\nfields tid pid flags elapsed "
		      "comm majf comm\n1 1 0 5 7 8 a\n");
	msg[0] = '\0';
	is_long(tsa_snap_parse(&s, msg, sizeof(msg)), TSA_EFORMAT,
		"parser: comm named twice is refused");
	is_str(msg, "\"fields\" names \"comm\" twice (column 7)",
	       "parser: comm named twice: the reason");
	snap_set_text(&s, "tsa-all 1\nnow 1\nfields tid pid flags tid "
		      "elapsed comm\n1 1 0 2 5 a\n");
	msg[0] = '\0';
	is_long(tsa_snap_parse(&s, msg, sizeof(msg)), TSA_EFORMAT,
		"parser: tid named twice is refused");
	is_str(msg, "\"fields\" names \"tid\" twice (column 4)",
	       "parser: tid named twice: the reason");
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
	/*
	 * The first report shows a lifetime count per interval: 5e18
	 * switches in 40 ns of life is 1.25e26 a second, past 2^64 (a
	 * double out of uint64_t's range: UBSan, fuzz_all). The largest
	 * count, not what the conversion happens to give.
	 */
	snap_set_text(&s, "tsa-all 1\nnow 100\nfields tid pid flags elapsed "
		      "vcx icx comm\n7 7 0 40 5000000000000000000 4 x\n");
	{
		struct tsa_select sel = { .lwps = 1, .interval = 1 };
		struct tsa_delta *d = NULL;
		struct tsa_totals tot;
		size_t cap = 0, n = 0;

		if (tsa_snap_parse(&s, msg, sizeof(msg)) == TSA_OK)
			n = tsa_delta_compute(NULL, &s, &sel, &d, &cap, &tot);
		ok(n == 1 && d[0].shown[C_VCX] == UINT64_MAX &&
		   d[0].shown[C_ICX] == 100000000,
		   "first report: a count per interval past 2^64 is shown as "
		   "2^64 - 1 (saw %llu), a small one scaled (4 in 40 ns: "
		   "%llu a second)", n ? (unsigned long long)d[0].shown[C_VCX] :
		   0ULL, n ? (unsigned long long)d[0].shown[C_ICX] : 0ULL);
		free(d);
	}
	tsa_snap_free(&s);
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

static void test_hist_lib(void)
{
	const struct tsa_hbounds k1 = { 10, 1 }, k2 = { -20, 0 };
	static char a[4096], b[4096];
	struct tsa_hist_snap sa, sb, bad;
	struct tsa_hview *v = NULL;
	size_t cap = 0, n;
	uint64_t pid100 = 100, pid7 = 7;
	int rc;
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
	ok(sa.bounds.ns && sa.bounds.exp == 10,
	   "hist: tsa-hist 1's buckets end at 2^(b + 10) ns (saw exp %d ns %d)",
	   sa.bounds.exp, sa.bounds.ns);
	is_long((long)tsa_hist_edge(k1, 0), 1024, "hist: b0 ends at 2^10 ns");
	is_long((long)tsa_hist_edge(k1, 12), 4194304, "hist: b12 at 2^22 ns");
	ok(tsa_hist_edge(k1, 27) == UINT64_MAX, "hist: the last has no end");
	is_long((long)tsa_hist_edge(k2, 0), 953,
		"hist 2: b0 ends at 2^-20 s (953.67 ns)");
	is_long((long)tsa_hist_edge(k2, 10), 976562,
		"hist 2: b10 at 2^-10 s (976,562.5 ns)");
	is_long((long)tsa_hist_edge(k2, 20), 1000000000, "hist 2: b20 at 1 s");
	is_long((long)tsa_hist_edge(k2, 26), 64000000000,
		"hist 2: b26 at 64 s");
	ok(tsa_hist_edge(k2, 27) == UINT64_MAX, "hist 2: the last has no end");

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
		is_long((long)tsa_hist_quantile(&v[1], k1, 0.5), 1048576,
			"hist: p50 is the upper edge of its bucket (b10: 2^20 ns)");
		is_long((long)tsa_hist_quantile(&v[1], k2, 0.5), 976562,
			"hist 2: p50 is the upper edge of its bucket (b10: 2^-10 s)");
		is_long((long)tsa_hist_quantile(&v[1], k1, 0.9), 3000000,
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

	is_long(hist_parse_text(&bad, "tsa-hist 3\n", msg, sizeof(msg)),
		TSA_EVERSION, "hist: another format version is refused (%s)",
		msg);
	tsa_hist_free(&bad);

	/* Version 2, the module's today, and a change of version between
	 * two snapshots (a module reloaded). */
	hist_snaps(a, b, sizeof(a));
	hist_v2(b);
	rc = hist_parse_text(&bad, b, msg, sizeof(msg));
	is_long(rc, TSA_OK, "hist 2: a snapshot parses (%s)",
		rc ? msg : "ok");
	ok(!bad.bounds.ns && bad.bounds.exp == -20 && bad.n == 5,
	   "hist 2: its buckets end at 2^(b - 20) s (saw exp %d ns %d, %zu lines)",
	   bad.bounds.exp, bad.bounds.ns, bad.n);
	ok(!tsa_hist_same_bounds(&sa, &bad) && tsa_hist_same_bounds(&sa, &sb),
	   "hist: versions 1 and 2 have other bounds, two of 1 the same");
	v = NULL;
	cap = 0;
	n = tsa_hist_compute(&sa, &bad, 1, NULL, 0, &v, &cap);
	ok(n == 3 && v[0].first && v[1].first && v[2].first,
	   "hist: counts in other buckets are no base: lifetime (%zu lines)", n);
	free(v);
	v = NULL;
	tsa_hist_free(&bad);
	{
		static const char *const refused[] = {
			"tsa-hist 1\nnow 1\nbuckets 28 -20\n",
			"tsa-hist 2\nnow 1\nbuckets 28 -28\n",
			"tsa-hist 2\nnow 1\nbuckets 28 10\n",
			"tsa-hist 1\nnow 1\nbuckets 28 38\n",
			"tsa-hist 2\nnow 1\nbuckets 28 --1\n",
		};
		size_t i;

		for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
			const char *bk = strstr(refused[i], "buckets");

			snprintf(a, sizeof(a), "%sfields tid\n", refused[i]);
			is_long(hist_parse_text(&bad, a, msg, sizeof(msg)),
				TSA_EFORMAT, "hist: bounds out of range are refused (%.10s, %.*s: %s)",
				refused[i], (int)strcspn(bk, "\n"), bk, msg);
			tsa_hist_free(&bad);
		}
	}
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

/*
 * The one writer of the format, read back by the one reader: every
 * column of every row of snapshot B in the full layout (the recorder's),
 * and in the compare layout (a capture's) the columns it keeps.
 */
static void test_writer(void)
{
	static const char *const lname[] = { "full", "compare" };
	struct tsa_snap a = { 0 };
	char *text = snap_b();
	int l;

	load(&a, text);
	for (l = 0; l < 2; l++) {
		struct tsa_snap b = { 0 };
		char *out;
		size_t len, i, same = 0;
		FILE *f = open_memstream(&out, &len);
		int k;

		tsa_write_head(f, a.now, (enum tsa_layout)l);
		for (i = 0; i < a.nrows; i++)
			tsa_write_row(f, &a.rows[i], (enum tsa_layout)l);
		fclose(f);
		load(&b, out);
		for (i = 0; i < a.nrows && i < b.nrows; i++) {
			const struct tsa_row *x = &a.rows[i], *y = &b.rows[i];
			int eq = !strcmp(x->comm, y->comm);

			for (k = 0; k < F_NUM; k++) {
				int kept = l == TSA_LAYOUT_FULL ||
					   k < F_STATE || k == F_AT ||
					   (k >= F_NS && k < F_N) ||
					   k >= F_CNT;

				if (kept && x->v[k] != y->v[k])
					eq = 0;
			}
			same += eq;
		}
		is_long((long)same, (long)a.nrows, "tsa_write_*, %s layout: "
			"read back, every row the same (of %zu rows)",
			lname[l], a.nrows);
		tsa_snap_free(&b);
		free(out);
	}
	tsa_snap_free(&a);
	free(text);
}

static int wakers_parse_text(struct tsa_wakers_snap *s, const char *text,
			     char *msg, size_t msglen)
{
	memset(s, 0, sizeof(*s));
	s->len = strlen(text);
	s->cap = s->len + 1;
	s->buf = xmalloc(s->cap);
	memcpy(s->buf, text, s->len + 1);
	return tsa_wakers_parse(s, msg, msglen);
}


/*
 * /proc/tsa/wakers: thread 11 of process 10 woken by 12 and a softirq;
 * between the snapshots 13 took the softirq's row (its 30 ms went to
 * other), and thread 14 exited into the process's totals (tid 0).
 */
static void test_wakers(void)
{
	static const char a[] =
		"tsa-wakers 1\nnow 1000\nrows 2\nfields tid pid uid flags elapsed at state wakeups ns max lat_ns kind waker_tid name\n"
		"11 10 0 0 900 1000 LCK 3 60 30 6 thread 12 holder a\n"
		"11 10 0 0 900 1000 IDL 2 30 20 4 softirq:NET_RX 0 -\n"
		"11 10 0 0 900 1000 - 0 5 0 0 none 0 -\n"
		"14 10 0 0 500 1000 SLP 4 40 10 8 timer 0 -\n"
		"14 10 0 0 500 1000 - 0 0 0 0 none 0 -\n";
	static const char b[] =
		"tsa-wakers 1\nnow 2000\nrows 2\nfields tid pid uid flags elapsed at state wakeups ns max lat_ns kind waker_tid name\n"
		"11 10 0 0 1900 2000 LCK 5 100 30 10 thread 12 holder a\n"
		"11 10 0 0 1900 2000 STP 1 50 50 1 thread 13 -\n"
		"11 10 0 0 1900 2000 - 3 40 20 5 other 0 -\n"
		"11 10 0 0 1900 2000 - 0 0 0 0 none 0 -\n"
		"0 10 0 4 500 1500 SLP 6 70 12 9 timer 0 -\n"
		"0 10 0 4 500 1500 - 0 0 0 0 none 0 -\n";
	struct tsa_wakers_snap sa, sb, bad;
	struct tsa_wakers_report r = { 0 };
	char msg[256];
	const struct tsa_wview *v;
	uint64_t pid10 = 10;

	is_long(wakers_parse_text(&sa, a, msg, sizeof(msg)), TSA_OK,
		"wakers: a snapshot parses (%s)", msg);
	is_long(wakers_parse_text(&sb, b, msg, sizeof(msg)), TSA_OK,
		"wakers: the next parses (%s)", msg);
	ok(sa.n == 5 && sa.l[0].wtid == 12 && sa.l[0].name_len == 8 &&
	   !strncmp(sa.l[0].name, "holder a", 8) && sa.l[1].state == S_IDL &&
	   sa.l[2].state == -1 && sa.l[1].kind_len == 14,
	   "wakers: a name with a space is the rest of the line; - is no state");

	/*
	 * -L: thread 11 over the interval: 12 LCK 2 wakeups 40 ns (5-3,
	 * 100-60), 13 STP 1 (new) 50; other: the wakers' sums grew from
	 * 60+30 = 90 to 100+50+40 = 190, 100 in all, 40 + 50 of it in the
	 * rows, so 10 (not its 40: 30 of that was the softirq's before),
	 * and 1 wakeup (9 - 5 - 3); none -5 -> 0. Its time asleep and
	 * stopped: 100.
	 */
	tsa_wakers_compute(&r, &sa, &sb, 1, NULL, 0);
	v = r.v;
	ok(r.n == 3 && v[0].tid == 11 && v[0].wtid == 13 && v[0].ns == 50 &&
	   v[0].n == 1 && v[1].wtid == 12 && v[1].ns == 40 && v[1].n == 2 &&
	   v[1].lat == 4 && v[2].state == -1 && v[2].kind[0] == 'o' &&
	   v[2].ns == 10 && v[2].n == 1 && v[0].off == 100,
	   "wakers -L: a row's growth, a new waker's all, other the rest (saw %zu lines: %llu/%llu %llu/%llu %llu/%llu, off %llu)",
	   r.n, r.n > 0 ? (unsigned long long)v[0].wtid : 0ULL,
	   r.n > 0 ? (unsigned long long)v[0].ns : 0ULL,
	   r.n > 1 ? (unsigned long long)v[1].wtid : 0ULL,
	   r.n > 1 ? (unsigned long long)v[1].ns : 0ULL,
	   r.n > 2 ? (unsigned long long)v[2].n : 0ULL,
	   r.n > 2 ? (unsigned long long)v[2].ns : 0ULL,
	   r.n > 0 ? (unsigned long long)v[0].off : 0ULL);

	/*
	 * The process: 14's timer row (40) went into the totals (70): 30
	 * more; 11's as above. Lifetime first: all of b.
	 */
	tsa_wakers_compute(&r, &sa, &sb, 0, &pid10, 1);
	v = r.v;
	ok(r.n == 4 && v[0].tid == 0 && v[0].ns == 50 && v[1].ns == 40 &&
	   v[2].ns == 30 && v[2].state == S_SLP && v[3].ns == 10,
	   "wakers: a process folds its threads and exited threads by waker (saw %zu lines)",
	   r.n);
	tsa_wakers_compute(&r, NULL, &sb, 0, NULL, 0);
	ok(r.n == 4 && r.v[0].ns == 100 && r.v[0].off == 260,
	   "wakers: a first report is the lifetime's (saw %zu lines, %llu)",
	   r.n, r.n ? (unsigned long long)r.v[0].ns : 0ULL);

	is_long(wakers_parse_text(&bad, "tsa-wakers 2\n", msg, sizeof(msg)),
		TSA_EVERSION, "wakers: another major version is refused");
	tsa_wakers_free(&bad);
	is_long(wakers_parse_text(&bad, "tsa-wakers 1\nnow 1\nfields tid pid flags elapsed at state wakeups ns max lat_ns kind waker_tid name\n11 10 0 5 6 LCK x 1 1 1 thread 3 a\n",
				  msg, sizeof(msg)),
		TSA_EFORMAT, "wakers: a malformed line is refused (%s)", msg);
	tsa_wakers_free(&bad);
	is_long(wakers_parse_text(&bad, "tsa-wakers 1\nnow 1\nfields tid pid flags elapsed at state wakeups ns max lat_ns name kind waker_tid\n",
				  msg, sizeof(msg)),
		TSA_EFORMAT, "wakers: a name that is not last is refused (%s)",
		msg);
	tsa_wakers_free(&bad);
	tsa_wakers_report_free(&r);
	tsa_wakers_free(&sa);
	tsa_wakers_free(&sb);
}

/*
 * A group table's names stay theirs: after group_compute() sorted it,
 * group_add() of more groups (the strings' memory grows and moves) must
 * leave every group's key its name, and a group added so has one too.
 */
static void test_group_keys(void)
{
	struct tsa_snap s = { 0 };
	struct group_table t = { 0 };
	char *text = snap_a(), key[32], first[64];
	size_t n, i, k, bad = 0;
	long found;

	load(&s, text);
	n = group_compute(&s, GROUP_USER, NULL, 0, "/nonexistent", NULL, &t,
			  NULL);
	snprintf(first, sizeof(first), "%s", n ? group_key(&t, 0) : "");
	for (i = 0; i < 2000; i++) {
		snprintf(key, sizeof(key), "added-%zu", i);
		k = group_add(&t, key);
		if (!t.g[k].key || t.g[k].key != group_key(&t, k))
			bad++;
	}
	is_long((long)bad, 0, "group_add: each added group's key is its "
		"name (groups without one)");
	ok(n == 2 && t.g[0].key == group_key(&t, 0) &&
	   !strcmp(group_key(&t, 0), first),
	   "group_compute, then 2000 group_add: the first group's key still "
	   "points at its name (expected %p '%s', seen %p)",
	   (const void *)group_key(&t, 0), first, (const void *)t.g[0].key);
	found = bad ? -2 : group_find(&t, "added-1999");
	is_long(found, (long)n + 1999, "group_find of an added group");
	group_table_free(&t);
	tsa_snap_free(&s);
	free(text);
}

/*
 * The one naming rule (every view's): this read's name, else the read
 * before's (a thread gone since), else "-".  Snapshot B has lost thread
 * 101 of process 100 ("db worker" in A).
 */
static void test_thread_name(void)
{
	struct tsa_snap a = { 0 }, b = { 0 };
	char *ta = snap_a(), *tb = snap_b(), name[64];

	load(&a, ta);
	load(&b, tb);
	tsa_thread_name(&b, &a, 100, 101, name, sizeof(name));
	ok(!tsa_snap_thread(&b, 101) && !strcmp(name, "db worker"),
	   "a thread gone since the read before keeps that read's name "
	   "(expected 'db worker', seen '%s')", name);
	tsa_thread_name(&b, NULL, 100, 101, name, sizeof(name));
	ok(!strcmp(name, "-"), "without the read before: '-' (seen '%s')",
	   name);
	tsa_thread_name(&b, &a, 300, 300, name, sizeof(name));
	ok(!strcmp(name, "sleeper"), "a live thread: this read's name "
	   "(expected 'sleeper', seen '%s')", name);
	tsa_thread_name(&b, &a, 100, 0, name, sizeof(name));
	ok(!strcmp(name, "db server"), "tid 0: the process's name "
	   "(expected 'db server', seen '%s')", name);
	tsa_snap_free(&a);
	tsa_snap_free(&b);
	free(ta);
	free(tb);
}

int main(void)
{
	if (fx_init())
		return 2;

	test_parser();
	test_writer();
	test_calls_parser();
	test_calls_sums();
	test_hist_lib();
	test_wakers();
	test_group_keys();
	test_thread_name();

	fx_done(tap_failed);
	return tap_done();
}
