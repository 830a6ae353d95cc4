// SPDX-License-Identifier: GPL-2.0
/*
 * snap.c - the kernel's text formats, written from tables of numbers:
 * /proc/tsa/all, /proc/tsa/calls and /proc/tsa/hist snapshots for the
 * unit tests, the end-to-end tests and golden/ (its in/ came from
 * these).  No product code: the state names come from the module's own
 * list, module/tsa_states.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "snap.h"

static const char *const fx_state_name[TSA_NSTATES] = {
#define TSA_STATE(name, what)	#name,
#include "../../../module/tsa_states.h"
};

/*
 * A snapshot in the kernel's format.  An unknown column "future" is
 * put in the middle of the fields to check that readers map by name;
 * x_n and x_max are derived from x_ns (unused by the table).
 */
char *snapshot(uint64_t now, const struct fx *r, size_t n)
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
char *snap_a(void)
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
char *snap_b(void)
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

/* A /proc/tsa/calls snapshot in the kernel's format, every line
 * measured at @now (as the fixtures of /proc/tsa/all are); a name
 * "softirq:..." is a trap line, which the view leaves out. */
char *calls_snapshot(uint64_t now, const struct cfx *r, size_t n)
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
char *calls_a(void)
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
char *calls_b(void)
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

/*
 * Damaged captures: every one of 300 random single-byte changes in the
 * rows is refused (size or checksum); changes in the header never
 * crash the reader.
 */

char *rsnapshot(uint64_t now, const struct rx *r, size_t n)
{
	char *buf;
	size_t len, i;
	FILE *f = open_memstream(&buf, &len);
	int k;

	fprintf(f, "tsa-all 1\nnow %llu\nstates", (unsigned long long)now);
	for (k = 0; k < TSA_NSTATES; k++)
		fprintf(f, " %s", fx_state_name[k]);
	fputs("\nfields tid pid uid flags elapsed state state_ns", f);
	for (k = 0; k < TSA_NSTATES; k++) {
		char l[4] = { (char)(fx_state_name[k][0] | 0x20),
			      (char)(fx_state_name[k][1] | 0x20),
			      (char)(fx_state_name[k][2] | 0x20), 0 };

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
char *snap_x(int which)
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

/* 28 bucket counts, all 0 but the (bucket, count) pairs, -1 ended. */
const char *hb(int b1, int n1, int b2, int n2)
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
void hist_snaps(char *a, char *b, size_t len)
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

void hist_v2(char *s)
{
	char *at = strstr(s, "buckets 28 10\n");

	memcpy(strstr(s, "tsa-hist 1"), "tsa-hist 2", 10);
	memmove(at + 14, at + 13, strlen(at + 13) + 1);
	memcpy(at, "buckets 28 -20", 14);
}
