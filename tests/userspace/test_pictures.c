// SPDX-License-Identifier: GPL-2.0
/*
 * test_pictures.c - --folded against an oracle of its own source: for
 * every line of a window (a thread with -L, else a process), the counts
 * of its folded stacks add up to the elapsed ns the same window's
 * --json report gives it (--replay --summary; --compare --json for
 * processes). The golden outputs (byte for byte) are test_golden's.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <limits.h>
#include <unistd.h>

#include "fx/run.h"
#include "tap.h"

#define MAXL 64

static char abs_testdir[4096];	/* testdir, before the chdir */
static char abs_prstat[4096];	/* prstat_bin, before the chdir */

struct line_sum {
	uint64_t id;		/* tid with -L, else pid */
	uint64_t folded, json;
	int in_json;
};

static struct line_sum *find(struct line_sum *l, size_t *n, uint64_t id)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (l[i].id == id)
			return &l[i];
	if (*n == MAXL)
		return NULL;
	memset(&l[*n], 0, sizeof(l[*n]));
	l[*n].id = id;
	return &l[(*n)++];
}

/* The id after the last '/' of the @frame'th frame (0-based) of @s. */
static int frame_id(const char *s, int frame, uint64_t *id)
{
	const char *end, *slash;

	while (frame--) {
		s = strchr(s, ';');
		if (!s)
			return -1;
		s++;
	}
	end = strchr(s, ';');
	if (!end)
		return -1;
	for (slash = end; slash > s && *slash != '/'; slash--)
		;
	return *slash == '/' && sscanf(slash + 1, "%" SCNu64, id) == 1 ?
	       0 : -1;
}

static uint64_t json_u64(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : UINT64_MAX;
}

/*
 * Run @folded and @json (argument lists) and check each line's sum;
 * @lwps: the lines are threads; @idkey: the JSON key before their id.
 * @ended ("ID:NS", or NULL): the one line that ended inside the window,
 * which the report (of the window's end) has not, and its known sum.
 * @what names the case.
 */
static void check_sums(const char *what, const char *const *folded,
		       const char *const *json, int lwps, const char *idkey,
		       const char *ended)
{
	const char *want_ended = ended;
	struct line_sum l[MAXL];
	size_t n = 0, i, bad = 0, lines = 0;
	char *fo, *fe, *jo, *je, *p, *nl, why[512] = "", known[128] = "";
	int rc1, rc2;

	rc1 = run(testdir, folded, &fo, &fe, 0);
	rc2 = run(testdir, json, &jo, &je, 0);
	for (p = fo; *p; p = nl + 1) {
		struct line_sum *s;
		const char *sp;
		uint64_t id;

		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		sp = strrchr(p, ' ');
		if (!sp || frame_id(p, lwps, &id) || !(s = find(l, &n, id))) {
			bad++;
			continue;
		}
		s->folded += strtoull(sp + 1, NULL, 10);
		lines++;
	}
	for (p = jo; *p; p = nl + 1) {
		struct line_sum *s;

		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (!strstr(p, "\"elapsed_ns\":"))
			continue;
		s = find(l, &n, json_u64(p, idkey));
		if (!s)
			continue;
		s->json = json_u64(p, "\"elapsed_ns\":");
		s->in_json = 1;
	}
	for (i = 0; i < n; i++) {
		size_t k = strlen(why);
		char mine[64];

		snprintf(mine, sizeof(mine), "%" PRIu64 ":%" PRIu64, l[i].id,
			 l[i].folded);
		if (!l[i].in_json && ended && !strcmp(mine, ended))
			ended = NULL;	/* seen, as known */
		else if (!l[i].in_json || l[i].json != l[i].folded)
			bad++;
		snprintf(why + k, sizeof(why) - k, " %" PRIu64 ":%" PRIu64
			 "/%" PRIu64, l[i].id, l[i].folded, l[i].json);
	}
	if (want_ended)
		snprintf(known, sizeof(known), "; the one that ended inside "
			 "the window, not in --json: expected %s, %s",
			 want_ended, ended ? "not seen" : "seen");
	ok(rc1 == 0 && rc2 == 0 && n >= 2 && lines > n && !bad && !ended,
	   "%s: each %s's folded counts add up to its elapsed ns in --json "
	   "(%zu lines, %zu stacks; id:folded/json%s%s; exits %d %d)", what,
	   lwps ? "thread" : "process", n, lines, why, known, rc1, rc2);
	if (bad)
		tap_diag("folded", fe);
	free(fo);
	free(fe);
	free(jo);
	free(je);
}

/*
 * Three processes of one thread each over 10 s: one spins (USR), one
 * sleeps (SLP), one waits for a lock (LCK), the whole time.
 */
static char *fixture(const char *now, const char *el)
{
	char *s = NULL;

	if (asprintf(&s, "tsa-all 1\nnow %s\nfields tid pid uid flags elapsed "
		     "state state_ns usr_ns lck_ns slp_ns comm\n500 500 0 0 "
		     "%s 0 0 %s 0 0 spin\n600 600 0 0 %s 11 0 0 0 %s sleep\n"
		     "700 700 0 0 %s 7 0 0 %s 0 lock\n", now, el, el, el, el,
		     el, el) < 0)
		exit(2);
	return s;
}

/* Draw @svg into @png with @how: "rsvg-convert" or "chromium". */
static int render(const char *how, const char *svg, const char *png,
		  char **err)
{
	char *text = slurp(svg), *h = strstr(text, "height=\""), size[64];
	char shot[512], url[512];
	char *out;
	int rc;

	snprintf(size, sizeof(size), "--window-size=%d,%ld", 1200,
		 h ? strtol(h + 8, NULL, 10) : 0L);
	free(text);
	if (!strcmp(how, "rsvg-convert")) {
		rc = run_prog("/usr/bin/rsvg-convert", ".", (const char *[]){
			      svg, "-o", png, NULL }, &out, err);
		free(out);
		return rc;
	}
	/* 1 px a unit, no scroll bars: the SVG's own pixels. */
	snprintf(shot, sizeof(shot), "--screenshot=%s", png);
	snprintf(url, sizeof(url), "file://%s", svg);
	rc = run_prog("/usr/bin/chromium", ".", (const char *[]){
		      "--headless", "--no-sandbox", "--disable-gpu",
		      "--hide-scrollbars", "--force-device-scale-factor=1",
		      size, shot, url, NULL }, &out, err);
	free(out);
	return rc;
}

/*
 * @how draws @svg into @png, then each band's middle row: the spinner
 * USR, the sleeper SLP, the lock waiter LCK over >= 95 % of its width.
 */
static void check_pixels(const char *what, const char *how, const char *svg,
			 const char *png)
{
	static const char *const want[][2] = {
		{ "spin/500 in spin/500", "USR" },
		{ "sleep/600 in sleep/600", "SLP" },
		{ "lock/700 in lock/700", "LCK" },
	};
	char *out, *err, script[4200];
	size_t i;
	int rc;

	unlink(png);
	rc = render(how, svg, png, &err);
	ok(rc == 0 && access(png, R_OK) == 0, "%s: %s draws it (exit %d, "
	   "'%.300s')", what, how, rc, err);
	free(err);
	snprintf(script, sizeof(script), "%s/fx/pixels.py", abs_testdir);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		double f = 0;

		rc = run_prog("/usr/bin/python3", ".", (const char *[]){
			      script, svg, png, want[i][0], want[i][1], NULL },
			      &out, &err);
		f = atof(out);
		ok(rc == 0 && f >= 0.95, "%s, drawn by %s: %s's band is %s's "
		   "colour over %.1f %% of its width (expected >= 95; %s%s)",
		   what, how, want[i][0], want[i][1], 100 * f, out, err);
		free(out);
		free(err);
	}
}

/*
 * A live picture where the module is not loaded: exit 2 with the
 * reason, and the directory it recorded into is gone from $TMPDIR.
 */
static void test_live_fails(void)
{
	char tdir[300], *out, *err, *old = getenv("TMPDIR");
	char *keep = old ? strdup(old) : NULL;
	DIR *d;
	struct dirent *e;
	int rc, left = 0;

	snprintf(tdir, sizeof(tdir), "%s", mkdir_in_tmp("tmpdir"));
	setenv("TMPDIR", tdir, 1);
	rc = run(mkdir_in_tmp("nomodule"), (const char *[]){ "--svg", "x.svg",
		 "0.1", "1", NULL }, &out, &err, 0);
	if (keep)
		setenv("TMPDIR", keep, 1);
	else
		unsetenv("TMPDIR");
	free(keep);
	d = opendir(tdir);
	while (d && (e = readdir(d)))
		left += e->d_name[0] != '.';
	if (d)
		closedir(d);
	ok(rc == 2 && !left && strstr(err, "/all"), "a live --svg without "
	   "the module: exit 2, said, its recording removed from $TMPDIR "
	   "(saw %d, %d left, '%s')", rc, left, err);
	free(out);
	free(err);
}

/*
 * tsa-prstat @args in @dir while a child hands @snaps[0..n) to its FIFOs
 * @fifos[0..nf) in turn (fx/run.h): its exit status, stdout and stderr.
 */
static int run_fed(const char *const *fifos, int nf, char *const *snaps,
		   int n, const char *dir, const char *const *args,
		   char **out, char **err)
{
	pid_t feeder = feed_fifos(fifos, nf, snaps, n);
	int rc = run(dir, args, out, err, 0);

	waitpid(feeder, NULL, 0);
	return rc;
}

/*
 * fx/perfetto_check.py on @trace, --whole (every line has time in every
 * interval) unless @part, @want its TRACK=STATE arguments.
 */
static int check_trace_part(const char *trace, const char *const *want,
			    char **out, int part)
{
	char script[4200], proto[4200], *err;
	const char *args[9] = { script, "--whole", proto, trace };
	int rc, i;

	snprintf(script, sizeof(script), "%s/fx/perfetto_check.py",
		 abs_testdir);
	snprintf(proto, sizeof(proto), "%s/perfetto.proto", abs_testdir);
	for (i = 0; want && want[i] && i < 4; i++)
		args[4 + i] = want[i];
	rc = run_prog("/usr/bin/python3", ".", part ? (const char *[]){
		      script, proto, trace, NULL } : args, out, &err);
	free(err);
	return rc;
}

static int check_trace(const char *trace, const char *const *want,
		       char **out)
{
	return check_trace_part(trace, want, out, 0);
}

/*
 * --perfetto of a golden source, byte for byte against golden/pb/@name
 * (TSA_GOLDEN_WRITE=1: written there), and decoded by protoc.
 */
static void perfetto_golden(const char *name, const char *const *args,
			    const char *expect)
{
	char path[4300], frozen[4300], *out, *err, *seen, *want;
	const char *argv[12];
	int rc, i;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s.pb", tmp, name);
	for (i = 0; args[i] && i < 8; i++)
		argv[i] = args[i];
	argv[i++] = "--perfetto";
	argv[i++] = path;
	argv[i] = NULL;
	rc = run(testdir, argv, &out, &err, 0);
	free(out);
	free(err);
	snprintf(frozen, sizeof(frozen), "%s/golden/pb/%s.pb", abs_testdir,
		 name);
	if (getenv("TSA_GOLDEN_WRITE")) {
		char cmd[13000];

		snprintf(cmd, sizeof(cmd), "mkdir -p %s/golden/pb && cp %s %s",
			 abs_testdir, path, frozen);
		if (system(cmd))
			exit(2);
	}
	{
		FILE *a = fopen(path, "rb"), *b = fopen(frozen, "rb");
		int ca = 0, cb = 0;

		while (a && b && (ca = fgetc(a)) == (cb = fgetc(b)) &&
		       ca != EOF)
			n++;
		ok(rc == 0 && a && b && ca == EOF && cb == EOF, "--perfetto "
		   "%s: byte for byte golden/pb/%s.pb (exit %d; the same up "
		   "to byte %zu)", name, name, rc, n);
		if (a)
			fclose(a);
		if (b)
			fclose(b);
	}
	rc = check_trace(path, NULL, &seen);
	want = strstr(seen, expect);
	ok(rc == 0 && want, "--perfetto %s decoded by protoc: every byte a "
	   "known field, each line's slices adding up to the window (%s; "
	   "expected '%s')", name, seen, expect);
	free(seen);
}

/*
 * Two intervals of 10 s, a thread (800) born 2 s before the first ends:
 * each thread's slices' states add up to its time over the window, the
 * fixture's (20 s each, 800's 12 s), and the slices to the window.
 */
static void test_perfetto_intervals(const char *fifo, const char *dir)
{
	static const char late1[] = "800 800 0 0 2000000000 0 0 2000000000 0 "
				    "0 late\n";
	static const char late2[] = "800 800 0 0 12000000000 0 0 12000000000 "
				    "0 0 late\n";
	char *snaps[3], *a, *b, *out, *err, pb[400];
	int rc;

	snaps[0] = fixture("10000000000", "1000000000");
	a = fixture("20000000000", "11000000000");
	b = fixture("30000000000", "21000000000");
	if (asprintf(&snaps[1], "%s%s", a, late1) < 0 ||
	    asprintf(&snaps[2], "%s%s", b, late2) < 0)
		exit(2);
	snprintf(pb, sizeof(pb), "%s/two.pb", tmp);
	rc = run_fed((const char *[]){ fifo }, 1, snaps, 3, dir,
		     (const char *[]){ "--perfetto", pb, "-L", "0.1", "2",
		     NULL }, &out, &err);
	free(out);
	free(err);
	rc = rc ? rc : check_trace(pb, (const char *[]){ "late=USR", NULL },
				   &out);
	ok(rc == 0 && strstr(out, "8 slices") &&
	   strstr(out, "500=20000000000 600=20000000000 700=20000000000 "
		  "800=12000000000"),
	   "--perfetto of two live intervals and a thread born in the first: "
	   "8 slices, each thread's states adding up to its time (500, 600, "
	   "700: 20 s, 800: 12 s) and its slices to the window (%s)",
	   rc ? "failed" : out);
	if (!rc)
		free(out);
	free(a);
	free(b);
	free(snaps[0]);
	free(snaps[1]);
	free(snaps[2]);
}

/*
 * Three intervals of 10 s; a thread of its own process (900, "brief")
 * born 4 s before the first ends, seen at the second's end, gone by the
 * third's: a line in every picture, with its 14 s of SLP (its life up
 * to the last block it was seen in), as a thread and as a process.
 */
static void test_ended(const char *fifo, const char *dir)
{
	static const char chead[] = "tsa-calls 1\nnow %s\nrows 1 1\nstates "
		"SYS TRP TFL DFL KFL APG LCK KLK IOW IDL SLP LAT STP\nfields "
		"tid pid uid flags elapsed at kind name calls ns max sys_ns "
		"trp_ns tfl_ns dfl_ns kfl_ns apg_ns lck_ns klk_ns iow_ns "
		"idl_ns slp_ns lat_ns stp_ns\n%s";
	static const char *const cnow[] = { "10000000000", "20000000000",
					    "30000000000", "40000000000" };
	static const char *const crow[] = { "", "900 900 0 0 4000000000 "
		"20000000000 syscall clock_nanosleep 2 4000000000 3000000000 "
		"0 0 0 0 0 0 0 0 0 0 4000000000 0 0\n", "900 900 0 0 "
		"14000000000 30000000000 syscall clock_nanosleep 5 14000000000 "
		"3000000000 0 0 0 0 0 0 0 0 0 0 14000000000 0 0\n", "" };
	char cdir[300], fifos[2][400], *both[8];
	const char *fnames[2] = { fifos[0], fifos[1] };
	static const char b1[] = "900 900 0 0 4000000000 11 0 0 0 4000000000 "
				 "brief\n";
	static const char b2[] = "900 900 0 0 14000000000 11 0 0 0 "
				 "14000000000 brief\n";
	static const char *const want[][3] = {
		{ "-L", "brief/900;brief/900;SLP 14000000000\n",
		  "spin/500;spin/500;USR 30000000000\n" },
		{ "(processes)", "brief/900;SLP 14000000000\n",
		  "sleep/600;SLP 30000000000\n" },
	};
	char *snaps[4], *a, *b, *out, *err, path[400];
	size_t i;
	int rc;

	snaps[0] = fixture("10000000000", "1000000000");
	a = fixture("20000000000", "11000000000");
	b = fixture("30000000000", "21000000000");
	snaps[3] = fixture("40000000000", "31000000000");
	if (asprintf(&snaps[1], "%s%s", a, b1) < 0 ||
	    asprintf(&snaps[2], "%s%s", b, b2) < 0)
		exit(2);
	for (i = 0; i < 2; i++) {
		rc = run_fed((const char *[]){ fifo }, 1, snaps, 4, dir, i ?
			     (const char *[]){ "--folded", "0.1", "3", NULL } :
			     (const char *[]){ "--folded", "-L", "0.1", "3",
			     NULL }, &out, &err);
		ok(rc == 0 && strstr(out, want[i][1]) &&
		   strstr(out, want[i][2]), "--folded %s of a thread born and "
		   "gone inside the window: its line, its 14 s of SLP to its "
		   "last block, beside the others' 30 s (expected '%.*s' and "
		   "'%.*s'; saw exit %d, '%s')", want[i][0],
		   (int)strlen(want[i][1]) - 1, want[i][1],
		   (int)strlen(want[i][2]) - 1, want[i][2], rc, out);
		free(out);
		free(err);
	}
	/* With its system call: its time under it, summed. */
	snprintf(cdir, sizeof(cdir), "%s", mkdir_in_tmp("ended-calls"));
	snprintf(fifos[0], sizeof(fifos[0]), "%s/all", cdir);
	snprintf(fifos[1], sizeof(fifos[1]), "%s/calls", cdir);
	if (mkfifo(fifos[0], 0600) || mkfifo(fifos[1], 0600))
		exit(2);
	for (i = 0; i < 4; i++) {
		both[2 * i] = snaps[i];
		if (asprintf(&both[2 * i + 1], chead, cnow[i], crow[i]) < 0)
			exit(2);
	}
	rc = run_fed(fnames, 2, both, 8, cdir, (const char *[]){ "--folded",
		     "-L", "0.1", "3", NULL }, &out, &err);
	ok(rc == 0 && strstr(out, "brief/900;brief/900;SLP;clock_nanosleep "
			     "14000000000\n"), "--folded -L of it with its "
	   "calls: its 14 s of SLP under clock_nanosleep (saw exit %d, '%s', "
	   "'%s')", rc, out, err);
	free(out);
	free(err);
	for (i = 0; i < 4; i++)
		free(both[2 * i + 1]);

	snprintf(path, sizeof(path), "%s/ended.pb", tmp);
	rc = run_fed((const char *[]){ fifo }, 1, snaps, 4, dir,
		     (const char *[]){ "--perfetto", path, "-L", "0.1", "3",
		     NULL }, &out, &err);
	free(out);
	free(err);
	rc = rc ? rc : check_trace_part(path, NULL, &out, 1);
	ok(rc == 0 && strstr(out, "4 line tracks") &&
	   strstr(out, "900=14000000000"), "--perfetto of it: a track of "
	   "its own among 4, its slices' states adding up to its 14 s (%s)",
	   rc ? "failed" : out);
	if (!rc)
		free(out);
	snprintf(path, sizeof(path), "%s/ended.svg", tmp);
	rc = run_fed((const char *[]){ fifo }, 1, snaps, 4, dir,
		     (const char *[]){ "--svg", path, "-L", "0.1", "3", NULL },
		     &out, &err);
	free(out);
	free(err);
	out = rc ? NULL : slurp(path);
	ok(out && strstr(out, ">brief/900 in brief/900, ended<") &&
	   strstr(out, "4 lines"), "--svg of it: 4 lines, one its band, "
	   "labelled as ended (exit %d)", rc);
	free(out);
	free(a);
	free(b);
	for (i = 0; i < 4; i++)
		free(snaps[i]);
}

/*
 * golden/record-guest: tsa-record 2 made at 1 s in a 6.1 guest while
 * tsa-ptest's "phases" thread (136) spun, slept and waited for a lock,
 * 4 s each (tests/pictures-demo.sh). Each phase's whole seconds drawn,
 * by both renderers: the thread's band in the phase's state's colour.
 */
static void test_guest_phases(void)
{
	static const char *const ph[][4] = {
		{ "spin", "@1796607330", "@1796607332", "USR" },
		{ "sleep", "@1796607335", "@1796607337", "SLP" },
		{ "lock", "@1796607339", "@1796607341", "LCK" },
	};
	static const char *const how[] = { "rsvg-convert", "chromium" };
	char svg[400], png[400], script[4200], *out, *err, what[64];
	size_t i, k;
	int rc;

	snprintf(script, sizeof(script), "%s/fx/pixels.py", abs_testdir);
	for (i = 0; i < 3; i++) {
		snprintf(svg, sizeof(svg), "%s/guest-%s.svg", tmp, ph[i][0]);
		rc = run(testdir, (const char *[]){ "--replay", "record-guest",
			 "--from", ph[i][1], "--to", ph[i][2], "-L", "-p",
			 "136", "--svg", svg, NULL }, &out, &err, 0);
		ok(rc == 0, "the guest recording's %s phase drawn (exit %d, "
		   "'%s')", ph[i][0], rc, err);
		free(out);
		free(err);
		for (k = 0; k < 2; k++) {
			double f;

			snprintf(png, sizeof(png), "%s/guest-%s-%zu.png", tmp,
				 ph[i][0], k);
			rc = render(how[k], svg, png, &err);
			free(err);
			rc = rc ? rc : run_prog("/usr/bin/python3", ".",
				(const char *[]){ script, svg, png,
				"phases/136 in phases/136", ph[i][3], NULL },
				&out, &err);
			f = rc ? 0 : atof(out);
			snprintf(what, sizeof(what), "%s", rc ? "" : out);
			what[strcspn(what, "\n")] = '\0';
			ok(rc == 0 && f >= 0.95, "the guest's %s phase, drawn "
			   "by %s: the phases thread's band is %s's colour over "
			   "%.1f %% of its width (expected >= 95; %s)",
			   ph[i][0], how[k], ph[i][3], 100 * f, what);
			if (!rc) {
				free(out);
				free(err);
			}
		}
	}
}

int main(void)
{
	char *out, *err, *snaps[2], dir[300], fifo[400], svg[400], png[400];
	int rc;

	if (fx_init())
		return 2;
	setenv("TZ", "UTC", 1);
	/* The cases run in golden/, as test_golden's do. */
	if (!realpath(testdir, abs_testdir) ||
	    !realpath(prstat_bin, abs_prstat) || chdir(testdir) ||
	    chdir("golden"))
		return 2;
	prstat_bin = abs_prstat;
	testdir = ".";

	/* A live run (its recording drawn), fed through a FIFO. */
	snprintf(dir, sizeof(dir), "%s", mkdir_in_tmp("live"));
	snprintf(fifo, sizeof(fifo), "%s/all", dir);
	snprintf(svg, sizeof(svg), "%s/live.svg", tmp);
	snprintf(png, sizeof(png), "%s/live.png", tmp);
	if (mkfifo(fifo, 0600))
		return 2;
	snaps[0] = fixture("10000000000", "1000000000");
	snaps[1] = fixture("20000000000", "11000000000");
	rc = run_fed((const char *[]){ fifo }, 1, snaps, 2, dir,
		     (const char *[]){ "--svg", svg, "-L", "0.1", "1", NULL },
		     &out, &err);
	ok(rc == 0 && !*out, "a live --svg of a spinner, a sleeper and a lock "
	   "waiter: exit 0, nothing on stdout (saw %d, '%s')", rc, err);
	free(out);
	free(err);
	check_pixels("live --svg", "rsvg-convert", svg, png);
	check_pixels("live --svg", "chromium", svg, png);

	/* The same live run as a Perfetto trace. */
	snprintf(svg, sizeof(svg), "%s/live.pb", tmp);
	rc = run_fed((const char *[]){ fifo }, 1, snaps, 2, dir,
		     (const char *[]){ "--perfetto", svg, "-L", "0.1", "1",
		     NULL }, &out, &err);
	free(out);
	free(err);
	rc = rc ? rc : check_trace(svg, (const char *[]){ "spin=USR",
				   "sleep=SLP", "lock=LCK", NULL }, &out);
	ok(rc == 0 && strstr(out, "3 line tracks") && strstr(out, "3 slices"),
	   "a live --perfetto of them, decoded by protoc: 3 thread tracks, "
	   "a slice each named USR, SLP, LCK, adding up to the window (%s)",
	   rc ? "failed" : out);
	if (!rc)
		free(out);
	test_perfetto_intervals(fifo, dir);
	test_ended(fifo, dir);
	free(snaps[0]);
	free(snaps[1]);

	check_sums("replay with system calls, -L",
		   (const char *[]){ "--replay", "record-calls", "--folded",
				     "-L", NULL },
		   (const char *[]){ "--replay", "record-calls", "--summary",
				     "--json", "-L", NULL }, 1, "\"tid\":",
		   NULL);
	check_sums("replay with system calls, processes",
		   (const char *[]){ "--replay", "record-calls", "--folded",
				     NULL },
		   (const char *[]){ "--replay", "record-calls", "--summary",
				     "--json", NULL }, 0, "\"pid\":", NULL);
	check_sums("replay with wakers, -L -w",
		   (const char *[]){ "--replay", "record-wakers", "--folded",
				     "-L", "-w", NULL },
		   (const char *[]){ "--replay", "record-wakers", "--summary",
				     "--json", "-L", NULL }, 1, "\"tid\":",
		   NULL);
	/* idle 12: 1 s of IDL from in/x1 to in/x2, gone in x3. */
	check_sums("replay of three blocks, a thread gone, -L",
		   (const char *[]){ "--replay", "record-1", "--folded", "-L",
				     NULL },
		   (const char *[]){ "--replay", "record-1", "--summary",
				     "--json", "-L", NULL }, 1, "\"tid\":",
		   "12:1000000000");
	check_sums("compare of two captures, -w",
		   (const char *[]){ "--compare", "capture-3/a", "capture-3/b",
				     "--folded", "-w", NULL },
		   (const char *[]){ "--compare", "capture-3/a", "capture-3/b",
				     "--json", NULL }, 0, "\"name\":\"",
		   NULL);

	rc = run(testdir, (const char *[]){ "--folded", "-A", "--replay",
		 "record-1", NULL }, &out, &err, 0);
	ok(rc == 1 && !*out && strstr(err, "--folded, --svg and --perfetto draw the"),
	   "--folded -A: a usage error, exit 1, nothing out (saw %d, '%s')",
	   rc, err);
	free(out);
	free(err);
	rc = run(testdir, (const char *[]){ "--folded", "--replay",
		 "record-1", "--from", "2030-01-01", NULL }, &out, &err, 0);
	ok(rc == 5 && !*out && strstr(err, "a picture needs two blocks"),
	   "--folded of an empty window: said, exit 5 (saw %d, '%s')", rc,
	   err);
	free(out);
	free(err);
	rc = run(testdir, (const char *[]){ "--replay", "record-1", "--svg",
		 "/nonexistent/x.svg", NULL }, &out, &err, 0);
	ok(rc == 5 && !*out && count_str(err, "\n") == 1 &&
	   strstr(err, "/nonexistent/x.svg: No such file or directory"),
	   "--svg into a directory that is not there: one line, exit 5 (saw "
	   "%d, '%s')", rc, err);
	free(out);
	free(err);
	rc = run(testdir, (const char *[]){ "--replay", "record-1", "--svg",
		 "", NULL }, &out, &err, 0);
	ok(rc == 1 && strstr(err, "--svg needs a file name"),
	   "--svg '': a usage error, exit 1 (saw %d, '%s')", rc, err);
	free(out);
	free(err);
	perfetto_golden("record-2-L", (const char *[]){ "--replay",
			"record-2", "-L", NULL }, "5 line tracks");
	/* db server/100 woke db worker/102: a flow between their slices */
	perfetto_golden("record-2-L-flow", (const char *[]){ "--replay",
			"record-2", "-L", "-p", "100", NULL }, "1 flows");
	perfetto_golden("cmp-group", (const char *[]){ "--compare",
			"capture-3/a", "capture-3/b", "--group", "comm",
			NULL }, "4 line tracks");
	test_guest_phases();
	test_live_fails();
	fx_done(tap_failed);
	return tap_done();
}
