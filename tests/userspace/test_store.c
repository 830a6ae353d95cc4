// SPDX-License-Identifier: GPL-2.0
/*
 * test_store.c - store/: captures written and read back, damaged
 * captures refused, the recorder's time and size syntax.
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
#include "group.h"
#include "capture.h"
#include "record.h"
#include "tap.h"
#include "fx/load.h"
#include "fx/run.h"
#include "fx/snap.h"

static const struct capture_part none;

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
	rc = capture_write(f, &s, procfs, &none, &none);
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

/*
 * A version 3 capture: the distributions and the wakers after the rows,
 * each read back whole, and each refused when cut or changed.
 */
static void test_capture_parts(void)
{
	static const char wk[] =
		"tsa-wakers 1\nnow 10000000000\nrows 2\nfields tid pid uid "
		"flags elapsed at state wakeups ns max lat_ns kind waker_tid "
		"name\n101 100 0 0 2000000000 10000000000 LCK 1000 1000000000 "
		"500000000 1000000000 thread 100 db server\n101 100 0 0 "
		"2000000000 10000000000 - 0 0 0 0 none 0 -\n";
	char ha[8192], hb[8192], path[400], msg[256], *text, *rows = snap_a();
	struct capture_part hist, wakers = { wk, sizeof(wk) - 1 };
	struct tsa_snap s = { 0 };
	struct capture c = { 0 };
	size_t len;
	FILE *f;
	int rc;

	hist_snaps(ha, hb, sizeof(ha));
	hist.buf = ha;
	hist.len = strlen(ha);
	load(&s, rows);
	snprintf(path, sizeof(path), "%s/parts.cap", tmp);
	f = fopen(path, "w");
	rc = f ? capture_write(f, &s, "/nonexistent", &hist, &wakers) : -1;
	if (f)
		fclose(f);
	text = slurp(path);
	ok(rc == 0 && text && !strncmp(text, "tsa-capture 3\n", 14),
	   "a capture with the wakers is version 3 (first line: %.13s)",
	   text ? text : "(none)");
	rc = capture_read(&c, path, msg, sizeof(msg));
	ok(rc == TSA_OK && c.has_hist && c.has_wakers && c.wakers.n == 2 &&
	   c.wakers.len == sizeof(wk) - 1 && c.wakers.l[0].n == 1000 &&
	   c.wakers.l[0].wtid == 100 && c.wakers.l[0].name_len == 9 &&
	   c.hist.len == hist.len && c.snap.nrows == s.nrows,
	   "read back: its rows, its distributions and its %zu waker lines "
	   "as written (rc %d%s%s)", c.wakers.n, rc, rc ? ": " : "",
	   rc ? msg : "");
	capture_free(&c);
	len = strlen(text);
	/* The last byte (the wakers') gone: cut short. */
	text[len - 1] = '\0';
	put(path, text);
	rc = capture_read(&c, path, msg, sizeof(msg));
	ok(rc == TSA_EFORMAT && strstr(msg, "cut short"),
	   "a capture without the wakers' last byte: refused (%s)", msg);
	capture_free(&c);
	/* A digit of the wakers changed: the checksum says so. */
	text[len - 1] = '\n';
	text[len - 3] = text[len - 3] == '0' ? '1' : '0';
	put(path, text);
	rc = capture_read(&c, path, msg, sizeof(msg));
	ok(rc == TSA_EFORMAT && strstr(msg, "checksum"),
	   "a capture with a byte of its wakers changed: refused (%s)", msg);
	capture_free(&c);
	/* Without the distributions: the wakers right after the rows. */
	f = fopen(path, "w");
	rc = f ? capture_write(f, &s, "/nonexistent", &none, &wakers) : -1;
	if (f)
		fclose(f);
	rc = rc ? rc : capture_read(&c, path, msg, sizeof(msg));
	ok(rc == TSA_OK && !c.has_hist && c.has_wakers && c.wakers.n == 2,
	   "a version 3 capture with the wakers only reads back (rc %d)",
	   rc);
	capture_free(&c);
	tsa_snap_free(&s);
	free(text);
	free(rows);
}

static void test_capture_fuzz(void)
{
	char path[400], src[400], msg[256], *text, *rows;
	unsigned long seed = 12345;
	int i, refused = 0, tries = 0, crashed = 0;
	size_t len, hdr;

	/* Snapshot B as --save writes it, its processes' cgroups and all. */
	{
		struct tsa_snap s = { 0 };
		char *b = snap_b(), procfs[300];
		FILE *f;

		snprintf(procfs, sizeof(procfs), "%s",
			 mkdir_in_tmp("fuzz-procfs"));
		put_cgroup(procfs, 100, "0::/system.slice/db.service\n");
		put_cgroup(procfs, 200, "0::/user.slice\n");
		put_cgroup(procfs, 300, "0::/system.slice/sleeper.service\n");
		load(&s, b);
		snprintf(src, sizeof(src), "%s/b.cap", tmp);
		f = fopen(src, "w");
		if (!f || capture_write(f, &s, procfs, &none, &none) || fclose(f)) {
			printf("# cannot write %s\n", src);
			exit(2);
		}
		tsa_snap_free(&s);
		free(b);
	}
	text = slurp(src);
	len = strlen(text);
	rows = strstr(text, "\ntsa-all 1\n");
	if (!ok(rows && len, "capture fuzz: a capture of B to change")) {
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

int main(void)
{
	if (fx_init())
		return 2;

	test_capture_roundtrip();
	test_capture_parts();
	test_capture_fuzz();

	fx_done(tap_failed);
	return tap_done();
}
