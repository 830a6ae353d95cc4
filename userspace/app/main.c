// SPDX-License-Identifier: GPL-2.0
/*
 * app/main.c - tsa-prstat: the modes and their loops (the command line
 * is app/args.c's).
 *
 * Every interval: one read of /proc/tsa/all (model/all.c), deltas
 * against the previous read (summed per group with --group:
 * model/group.c), sort (view/sort.c), then a table (view/table.c) or
 * JSON lines (view/json.c).  The system-call view (-y) also reads
 * /proc/tsa/calls (model/calls.c) right after, and shows the calls of the
 * threads or processes the first read found.  On a terminal, without
 * -c, each report redraws the screen and is cut to its height, as
 * prstat does; otherwise reports follow one another and contain no
 * escape sequences.
 *
 * Three modes run once and exit: --prometheus / --openmetrics (one
 * snapshot as metrics, view/metrics.c), --save (one snapshot as a capture
 * file) and --compare (two captures, store/capture.c).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "all.h"
#include "calls.h"
#include "group.h"
#include "unmatched.h"
#include "compare.h"
#include "dist.h"
#include "wakeups.h"
#include "json.h"
#include "metrics.h"
#include "sort.h"
#include "table.h"
#include "capture.h"
#include "record.h"
#include "keys.h"
#include "calib.h"
#include "calibrate.h"
#include "args.h"
#include "options.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void set_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: wake the sleep */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Lines a report may have on this terminal: rows less header, Total
 * and the cursor's line, as prstat computes it. */
static long screen_lines(void)
{
	struct winsize ws;
	const char *env;
	long n = 0;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0)
		n = ws.ws_row;
	else if ((env = getenv("LINES")) != NULL)
		n = strtol(env, NULL, 10);
	if (n <= 0)
		return 0;	/* unknown: no limit */
	return n - 3 > 1 ? n - 3 : 1;
}

static void fail_read(int rc, const char *path, const char *msg)
{
	switch (rc) {
	case TSA_ENOENT:
		die(EXIT_NOMODULE, "%s: not found; is the tsa module loaded? "
		    "(sudo modprobe tsa)", path);
	case TSA_EACCES:
		die(EXIT_ACCESS, "%s: permission denied", path);
	default:
		die(EXIT_BADDATA, "%s: %s", path, msg);
	}
}

/*
 * /proc/tsa/calls: absent unless the module counts calls (or traps:
 * then it says "rows 0 ...").
 */
static void fail_read_calls(int rc, const char *path, const char *msg)
{
	if (rc == TSA_ENOENT || rc == TSA_ENOCALLS)
		die(EXIT_NOMODULE, "%s: %s; the tsa module must be loaded "
		    "with calls=N (N > 0) and syscalls=1 for -y "
		    "(sudo modprobe -r tsa; sudo modprobe tsa calls=8 "
		    "syscalls=1)", path, rc == TSA_ENOENT ? "not found" :
		    "no system-call rows");
	fail_read(rc, path, msg);
}

/* /proc/tsa/hist: absent when the module keeps none (hist=0). */
static void fail_read_hist(int rc, const char *path, const char *msg)
{
	if (rc == TSA_ENOENT)
		die(EXIT_NOMODULE, "%s: not found; the tsa module must be "
		    "loaded without hist=0 for -H (sudo modprobe -r tsa; sudo "
		    "modprobe tsa)", path);
	fail_read(rc, path, msg);
}

/* What a key asks of the loop: nothing more, a report now, the end. */
enum { ACT_WAIT, ACT_READ, ACT_QUIT };

/* A view's redraw mode: on a terminal, without -c and --json. */
static int redraws(const struct options *o)
{
	return isatty(STDOUT_FILENO) && !o->no_clear && !o->show.json;
}

/*
 * The live loop of a view that reads one file a report (-H, -w): every
 * o->interval seconds until @stop or o->count reports, @report(@ctx)
 * prints one (the first over each thread's life).  With @key, in the
 * redraw mode, keys between reports go to @key(@ctx, KEY): an ACT_*.
 */
static void each_interval(const struct options *o,
			  volatile sig_atomic_t *stop,
			  void (*report)(void *ctx),
			  int (*key)(void *ctx, int k), void *ctx)
{
	struct timespec deadline;
	int keys = key && redraws(o) && keys_start(), act;
	long done;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (done = 0; !*stop && (o->count < 0 || done < o->count); done++) {
		if (done) {
			next_deadline(&deadline, o->interval);
			for (act = ACT_WAIT; keys && act == ACT_WAIT;) {
				int k = keys_wait(&deadline, stop);

				if (k == KEY_NONE)
					break;
				act = k == KEY_STOP ? ACT_QUIT : key(ctx, k);
			}
			if (keys && act == ACT_QUIT)
				break;
			while (!keys && !*stop &&
			       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					       &deadline, NULL) == EINTR)
				;
			if (*stop)
				break;
			if (act == ACT_READ)
				clock_gettime(CLOCK_MONOTONIC, &deadline);
		}
		report(ctx);
		if (!keys && !o->show.json &&
		    (o->count < 0 || done + 1 < o->count))
			putchar('\n');
		if (fflush(stdout) == EOF || ferror(stdout))
			die(EXIT_BADDATA, "write error: %s", strerror(errno));
	}
	if (keys) {
		keys_stop();
		putchar('\n');
	}
}

/* -H: two snapshots of /proc/tsa/hist, the older one prev. */
struct hist_live {
	const struct options *o;
	char path[4096];
	struct tsa_hist_snap snaps[2], *prev, *cur;
	struct hist_report r;
};

static void hist_report(void *ctx)
{
	struct hist_live *h = ctx;
	const struct options *o = h->o;
	char msg[256];
	int rc;

	rc = tsa_hist_read(h->cur, h->path, msg, sizeof(msg));
	if (rc != TSA_OK)
		fail_read_hist(rc, h->path, msg);
	hist_report_compute(&h->r, &o->show, h->prev, h->cur);
	if (o->show.json)
		hist_print_json(stdout, &o->show, h->cur, &h->r);
	else
		hist_print(stdout, &o->show, h->cur, h->prev ?
			   (double)(h->cur->now - h->prev->now) / 1e9 : 0,
			   &h->r);
	h->prev = h->cur;
	h->cur = h->cur == &h->snaps[0] ? &h->snaps[1] : &h->snaps[0];
}

/* -H, live: until @stop or o->count reports. */
static int hist_run(const struct options *o, volatile sig_atomic_t *stop)
{
	struct hist_live *h = xmalloc(sizeof(*h));

	memset(h, 0, sizeof(*h));
	h->o = o;
	snprintf(h->path, sizeof(h->path), "%s/hist", o->proc_dir);
	h->cur = &h->snaps[0];
	h->r.procfs = o->procfs;
	each_interval(o, stop, hist_report, NULL, h);
	hist_report_free(&h->r);
	tsa_hist_free(&h->snaps[0]);
	tsa_hist_free(&h->snaps[1]);
	free(h);
	return 0;
}

/* /proc/tsa/wakers: absent when the module keeps none (wakers=0). */
static void fail_read_wakers(int rc, const char *path, const char *msg)
{
	if (rc == TSA_ENOENT)
		die(EXIT_NOMODULE, "%s: not found; the tsa module must be "
		    "loaded without wakers=0 for -w (sudo modprobe -r tsa; "
		    "sudo modprobe tsa)", path);
	fail_read(rc, path, msg);
}

/*
 * One wakers report (-w) of @cur over the interval since @prev (NULL:
 * each thread's life), its names and groups from @nm: a table, JSON
 * lines, or --chain.
 */
static void wakers_show(const struct options *o, struct tsa_wakers_report *r,
			const struct tsa_wakers_snap *prev,
			const struct tsa_wakers_snap *cur,
			const struct tsa_wnames *nm)
{
	int grouped = o->show.group_by > GROUP_PID;
	double secs = prev ? (double)(cur->now - prev->now) / 1e9 : 0;

	tsa_wakers_compute(r, prev, cur, grouped ? 2 : o->show.lwps,
			   o->show.pids, o->show.npids);
	if (grouped)
		tsa_wakers_group(r, o->show.group_by, nm);
	if (o->chain) {
		size_t step[64], depth = o->show.ntop > 0 ?
			(size_t)o->show.ntop : 8;

		if (depth > 64)
			depth = 64;
		wakers_print_chain(stdout, &o->show, nm, secs, r, o->chain,
				   step, tsa_wakers_chain(r, o->chain, depth,
							  step));
	} else if (o->show.json) {
		wakers_print_json(stdout, &o->show, nm, cur->now, r);
	} else {
		wakers_print(stdout, &o->show, nm, secs, r);
	}
}

#define WAKERS_FOLLOW	16	/* threads a walk down a chain holds */

/*
 * -w: two snapshots of /proc/tsa/wakers, the older one prev; in the
 * redraw mode the report shown (its two snapshots) and the threads
 * the f key has followed, the last one shown alone.
 */
struct wakers_live {
	const struct options *o;
	char path[4096];
	struct tsa_wakers_snap snaps[2], *prev, *cur;
	const struct tsa_wakers_snap *shown_prev, *shown_cur;
	struct tsa_wakers_report r;
	struct cgroup_cache cc;	/* the processes' cgroups, for --group */
	struct tsa_wnames nm;	/* the live system's */
	int redraw;
	uint64_t follow[WAKERS_FOLLOW];
	int nfollow;
	char note[128];
};

/* Keep only thread @tid's lines of @r (a per-thread report). */
static void wakers_only(struct tsa_wakers_report *r, uint64_t tid)
{
	size_t i, k = 0;

	for (i = 0; i < r->n; i++)
		if (r->v[i].tid == tid)
			r->v[k++] = r->v[i];
	r->n = k;
}

/* The report shown, drawn (again): the view, or the thread followed. */
static void wakers_draw(struct wakers_live *w)
{
	const struct tsa_wakers_snap *p = w->shown_prev, *c = w->shown_cur;
	struct options o = *w->o;
	struct show one;
	long rows = w->redraw ? screen_lines() : 0;
	int i;

	/* On a redrawn screen, as many threads as fit (a few lines each). */
	if (rows > 0 && !o.show.ntop)
		o.show.ntop = rows > 12 ? (int)(rows - 4) / 4 : 2;
	one = o.show;
	if (w->redraw)
		fputs("\033[H\033[J", stdout);
	if (!w->nfollow) {
		wakers_show(&o, &w->r, p, c, &w->nm);
	} else {
		printf("Following:");
		for (i = 0; i < w->nfollow; i++)
			printf("%s %llu", i ? " <-" : "",
			       (unsigned long long)w->follow[i]);
		putchar('\n');
		one.lwps = 1;
		one.group_by = -1;
		tsa_wakers_compute(&w->r, p, c, 1, NULL, 0);
		wakers_only(&w->r, w->follow[w->nfollow - 1]);
		wakers_print(stdout, &one, &w->nm, p ? (double)(c->now -
			     p->now) / 1e9 : 0, &w->r);
	}
	if (w->redraw && isatty(STDIN_FILENO)) {
		printf("f: follow a waker | b: back | q: quit%s%s",
		       w->note[0] ? " | " : "", w->note);
		w->note[0] = '\0';
	}
}

static void wakers_report(void *ctx)
{
	struct wakers_live *w = ctx;
	char msg[256];
	int rc;

	rc = tsa_wakers_read(w->cur, w->path, msg, sizeof(msg));
	if (rc != TSA_OK)
		fail_read_wakers(rc, w->path, msg);
	w->shown_prev = w->prev;
	w->shown_cur = w->cur;
	wakers_draw(w);
	cgroup_cache_swap(&w->cc);
	w->prev = w->cur;
	w->cur = w->cur == &w->snaps[0] ? &w->snaps[1] : &w->snaps[0];
}

/*
 * The thread the f key offers: the top waker of the thread followed
 * (0, with why in w->note, when it is no thread), or at first the
 * most woken thread of the view.
 */
static uint64_t wakers_next(struct wakers_live *w)
{
	const struct options *o = w->o;
	uint64_t at = w->nfollow ? w->follow[w->nfollow - 1] : 0;
	const struct tsa_wview *x;
	size_t i, step;

	tsa_wakers_compute(&w->r, w->shown_prev, w->shown_cur, 1,
			   o->show.pids, o->show.npids);
	if (!at) {
		for (i = 0; i < w->r.n; i++)
			if (w->r.v[i].state >= 0 && w->r.v[i].tid)
				return w->r.v[i].tid;
		snprintf(w->note, sizeof(w->note), "no thread was woken");
		return 0;
	}
	if (!tsa_wakers_chain(&w->r, at, 1, &step)) {
		snprintf(w->note, sizeof(w->note), "%llu: no waker",
			 (unsigned long long)at);
		return 0;
	}
	x = &w->r.v[step];
	if (x->kind_len == 6 && !strncmp(x->kind, "thread", 6) && x->wtid)
		return x->wtid;
	snprintf(w->note, sizeof(w->note), "%llu was woken by %.*s: the "
		 "chain ends there", (unsigned long long)at, x->kind_len,
		 x->kind);
	return 0;
}

/* A key of the redraw mode of -w: f follows a waker, b goes back. */
static int wakers_key(void *ctx, int k)
{
	struct wakers_live *w = ctx;
	char buf[64], prompt[96], *end;
	uint64_t next, tid;

	switch (k) {
	case 'q':
		return ACT_QUIT;
	case 'f':
		next = wakers_next(w);
		snprintf(prompt, sizeof(prompt), "follow thread (empty: %s): ",
			 next ? "" : "none");
		if (next)
			snprintf(prompt, sizeof(prompt), "follow thread (empty: "
				 "%llu): ", (unsigned long long)next);
		if (!keys_prompt(prompt, buf, sizeof(buf)))
			break;
		errno = 0;
		tid = buf[0] ? strtoull(buf, &end, 10) : next;
		if (buf[0] && (errno || *end || !tid)) {
			snprintf(w->note, sizeof(w->note), "not a thread id: "
				 "%.40s", buf);
			break;
		}
		if (!tid)
			break;
		if (w->nfollow == WAKERS_FOLLOW) {
			memmove(w->follow, w->follow + 1,
				(WAKERS_FOLLOW - 1) * sizeof(*w->follow));
			w->nfollow--;
		}
		w->follow[w->nfollow++] = tid;
		break;
	case 'b':
		if (w->nfollow)
			w->nfollow--;
		break;
	case KEY_REDRAW:
		break;
	default:
		return ACT_WAIT;	/* not ours: nothing changes */
	}
	if (w->shown_cur)
		wakers_draw(w);
	fflush(stdout);
	return ACT_WAIT;
}

/* -w, live: until @stop or o->count reports. */
static int wakers_run(const struct options *o, volatile sig_atomic_t *stop)
{
	struct wakers_live *w = xmalloc(sizeof(*w));

	memset(w, 0, sizeof(*w));
	w->o = o;
	snprintf(w->path, sizeof(w->path), "%s/wakers", o->proc_dir);
	w->cur = &w->snaps[0];
	w->nm.procfs = o->procfs;
	w->nm.cc = &w->cc;
	/* Keys (f, b) only where the report is drawn anew. */
	w->redraw = !o->chain && redraws(o);
	each_interval(o, stop, wakers_report, w->redraw ? wakers_key : NULL,
		      w);
	cgroup_cache_free(&w->cc);
	tsa_wakers_report_free(&w->r);
	tsa_wakers_free(&w->snaps[0]);
	tsa_wakers_free(&w->snaps[1]);
	free(w);
	return 0;
}

/*
 * A table of the recorder (/proc/tsa/calls, wakers): read into
 * @f when the module kept it at the first read (*@with, set then),
 * else skipped; an error after that ends the recording.
 */
static void record_table(struct ct_file *f, const struct ct_kind *k,
			 const char *path, long done, int *with)
{
	char msg[4400];
	int err;

	err = done && !*with ? TSA_ENOENT :
	      ct_read(f, k, path, msg, sizeof(msg));
	if (!done)
		*with = err != TSA_ENOENT;
	if (*with && err != TSA_OK)
		die(err == TSA_EACCES ? EXIT_ACCESS : EXIT_BADDATA, "%s: %s",
		    path, msg);
}

/*
 * --record: every o->interval seconds until a signal (or o->count
 * blocks), /proc/tsa/all, and /proc/tsa/calls and wakers when the
 * module keeps them, into the recorder.
 */
static int record_loop(const struct options *o, const char *allpath,
		       const char *callspath, volatile sig_atomic_t *stop)
{
	struct rec_config c = { o->record, o->interval, o->count,
				o->keep_secs, o->max_bytes, o->procfs };
	struct tsa_snap snaps[2], *prev = NULL, *cur = &snaps[0];
	struct ct_file calls[2], wakers[2];
	struct rec_tables t[2];
	struct recorder *rec;
	struct timespec deadline;
	char msg[4400], wpath[4096];
	double la[3];
	int ck = 0, with_calls = 0, with_wakers = 0, err, i;
	long done;

	memset(snaps, 0, sizeof(snaps));
	memset(calls, 0, sizeof(calls));
	memset(wakers, 0, sizeof(wakers));
	snprintf(wpath, sizeof(wpath), "%s/wakers", o->proc_dir);
	rec = recorder_open(&c, &err, msg, sizeof(msg));
	if (!rec)
		die(err == TSA_EACCES ? EXIT_ACCESS : EXIT_BADDATA, "%s", msg);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (done = 0; !*stop && (o->count < 0 || done < o->count); done++) {
		if (done) {
			next_deadline(&deadline, o->interval);
			while (!*stop &&
			       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					       &deadline, NULL) == EINTR)
				;
			if (*stop)
				break;
		}
		err = tsa_snap_read(cur, allpath, msg, sizeof(msg));
		if (err != TSA_OK)
			fail_read(err, allpath, msg);
		record_table(&calls[ck], &ct_calls, callspath, done,
			     &with_calls);
		record_table(&wakers[ck], &ct_wakers, wpath, done,
			     &with_wakers);
		read_loadavg(la);
		for (i = 0; i < 2; i++) {
			t[i].calls = with_calls ? &calls[i ^ ck] : NULL;
			t[i].wakers = with_wakers ? &wakers[i ^ ck] : NULL;
		}
		/* t[0]: this read's; t[1]: the last block's. */
		if (recorder_block(rec, prev, cur, &t[1], &t[0], la, msg,
				   sizeof(msg)))
			die(EXIT_BADDATA, "%s", msg);
		prev = cur;
		cur = cur == &snaps[0] ? &snaps[1] : &snaps[0];
		ck = !ck;
	}
	for (i = 0; i < 2; i++) {
		ct_free(&calls[i]);
		ct_free(&wakers[i]);
	}
	if (recorder_close(rec, msg, sizeof(msg)))
		die(EXIT_BADDATA, "%s", msg);
	tsa_snap_free(&snaps[0]);
	tsa_snap_free(&snaps[1]);
	return 0;
}

/* With -p: complain about pids that are not there; exit if none is. */
static void check_pids(const struct options *o, const struct tsa_snap *s)
{
	size_t i, found = 0;

	for (i = 0; i < o->show.npids; i++) {
		const struct tsa_proc *p = tsa_snap_proc(s, o->show.pids[i]);

		if (p && p->nlwp)
			found++;
	}
	if (found)
		return;
	fflush(stdout);
	fprintf(stderr, "%s: no such process:", progname);
	for (i = 0; i < o->show.npids; i++)
		fprintf(stderr, "%s%llu", i ? "," : " ",
			(unsigned long long)o->show.pids[i]);
	fputc('\n', stderr);
	exit(EXIT_NOPID);
}

static void sleep_until(struct timespec *deadline, double interval)
{
	next_deadline(deadline, interval);
	while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					deadline, NULL) == EINTR)
		;
}

/* At most the -n lines, or on a redrawn terminal its height. */
static size_t lines_shown(const struct options *o, size_t n, int redraw)
{
	if (o->show.ntop && (size_t)o->show.ntop < n)
		n = (size_t)o->show.ntop;
	if (redraw && !o->show.ntop) {
		long rows = screen_lines();

		if (rows > 0 && (size_t)rows < n)
			n = (size_t)rows;
	}
	return n;
}

/* A copy of @buf parsed as /proc/tsa/hist (@wakers 0) or wakers. */
static int part_parses(const char *buf, size_t len, int wakers, char *msg,
		       size_t msglen)
{
	struct tsa_hist_snap h = { .len = len, .cap = len + 1 };
	struct tsa_wakers_snap w = { .len = len, .cap = len + 1 };
	char *copy = xmalloc(len + 1);
	int rc;

	memcpy(copy, buf, len);
	if (wakers) {
		w.buf = copy;
		rc = tsa_wakers_parse(&w, msg, msglen);
		tsa_wakers_free(&w);
	} else {
		h.buf = copy;
		rc = tsa_hist_parse(&h, msg, msglen);
		tsa_hist_free(&h);
	}
	return rc;
}

/*
 * A file of the module that a capture carries (/proc/tsa/hist, wakers)
 * into @pt, as read once a copy has parsed; a module that keeps none
 * leaves it out, one that cannot be read or parsed is said (@what) and
 * left out too.
 */
static void save_part(const struct options *o, const char *name,
		      const char *what, struct capture_part *pt, char **raw)
{
	char path[4096], msg[256];
	size_t len = 0, cap = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", o->proc_dir, name);
	rc = tsa_read_file(path, raw, &len, &cap, msg, sizeof(msg));
	if (rc == TSA_OK)
		rc = part_parses(*raw, len, !strcmp(name, "wakers"), msg,
				 sizeof(msg));
	if (rc != TSA_OK && rc != TSA_ENOENT)
		warnmsg("%s: %s: the capture is written without %s", path,
			msg, what);
	pt->buf = rc == TSA_OK ? *raw : NULL;
	pt->len = len;
}

/* --save: one capture, to a file or stdout. */
static int save_capture(const struct options *o, const char *path)
{
	struct capture_part hist, wakers;
	struct tsa_snap s;
	struct stat st;
	char msg[256], *hraw = NULL, *wraw = NULL;
	int rc, regular, to_stdout = !strcmp(o->save, "-");
	FILE *f;

	memset(&s, 0, sizeof(s));
	rc = tsa_snap_read(&s, path, msg, sizeof(msg));
	if (rc != TSA_OK)
		fail_read(rc, path, msg);
	/* The distributions and the wakers too, where the module keeps them. */
	save_part(o, "hist", "the distributions", &hist, &hraw);
	save_part(o, "wakers", "the wakers", &wakers, &wraw);
	f = to_stdout ? stdout : fopen(o->save, "we");
	if (!f)
		die(errno == EACCES ? EXIT_ACCESS : EXIT_BADDATA, "%s: %s",
		    o->save, strerror(errno));
	regular = !to_stdout && fstat(fileno(f), &st) == 0 &&
		  S_ISREG(st.st_mode);
	if (capture_write(f, &s, o->procfs, &hist, &wakers) ||
	    (!to_stdout && fclose(f) == EOF)) {
		int err = errno;

		/* Never half a capture; never a device, FIFO or socket. */
		if (regular)
			unlink(o->save);
		die(EXIT_BADDATA, "%s: write error: %s", o->save,
		    strerror(err));
	}
	tsa_snap_free(&s);
	free(hraw);
	free(wraw);
	return 0;
}

/*
 * "DIR@TIME": a recording at a time (the first "@" after which comes a
 * time and before which a directory); 1 with them set, else 0.
 */
static int recording_point(const char *arg, char *dir, size_t len,
			   time_t *t)
{
	const char *at;
	struct stat st;

	for (at = strchr(arg, '@'); at; at = strchr(at + 1, '@')) {
		if ((size_t)(at - arg) >= len)
			break;
		snprintf(dir, len, "%.*s", (int)(at - arg), arg);
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			continue;
		*t = parse_when(at + 1, time(NULL));
		if (*t < 0)
			die(EXIT_USAGE, "%s: invalid time '%s' (YYYY-MM-DD "
			    "HH:MM[:SS], HH:MM[:SS], -2h or @SECONDS)", arg,
			    at + 1);
		return 1;
	}
	return 0;
}

static void load_capture(struct capture *c, const char *path)
{
	char msg[256], dir[PATH_MAX];
	time_t t;
	int rc;

	if (recording_point(path, dir, sizeof(dir), &t)) {
		if (replay_at(c, dir, t, msg, sizeof(msg)))
			die(EXIT_BADDATA, "%s: %s", path, msg);
		return;
	}
	rc = capture_read(c, path, msg, sizeof(msg));

	if (rc == TSA_EACCES)
		die(EXIT_ACCESS, "%s: %s", path, msg);
	if (rc != TSA_OK)
		die(EXIT_BADDATA, "%s: %s", path, msg);
}

/*
 * --compare A B -H: the stays that ended between two captures that
 * carry the distributions, per process or group, named as in B.
 */
static void compare_hist(const struct options *o, struct capture *a,
			 struct capture *b)
{
	struct hist_report r;
	char wa[64], wb[64];
	int k;

	for (k = 0; k < 2; k++)
		if (!(k ? b : a)->has_hist)
			die(EXIT_BADDATA, "%s: -H: the capture has no "
			    "distributions (saved without the module's "
			    "hist=1 or by an older tsa-prstat; recordings "
			    "do not keep them)", o->compare[k]);
	memset(&r, 0, sizeof(r));
	r.names = &b->snap;
	r.procfs = "/nonexistent";
	r.cc = b->cc;
	memset(&b->cc, 0, sizeof(b->cc));
	hist_report_compute(&r, &o->show, &a->hist, &b->hist);
	if (o->show.json) {
		hist_print_json(stdout, &o->show, &b->hist, &r);
	} else {
		compare_wall(wa, sizeof(wa), &a->wall);
		compare_wall(wb, sizeof(wb), &b->wall);
		printf("Compare: %s -> %s, %.3f s apart\n", wa, wb,
		       (double)(b->snap.now - a->snap.now) / 1e9);
		hist_print(stdout, &o->show, &b->hist,
			   (double)(b->hist.now - a->hist.now) / 1e9, &r);
	}
	hist_report_free(&r);
}

/*
 * --compare A B -w: who ended the stays of B's threads or processes
 * since A, named and grouped as B saw them.
 */
static void compare_wakers(const struct options *o, struct capture *a,
			   struct capture *b)
{
	struct tsa_wnames nm = { "/nonexistent", &b->snap, &b->cc };
	struct tsa_wakers_report r;
	char wa[64], wb[64];
	int k;

	for (k = 0; k < 2; k++)
		if (!(k ? b : a)->has_wakers)
			die(EXIT_BADDATA, "%s: -w: the capture has no wakers "
			    "(saved with the module's wakers=0 or by an older "
			    "tsa-prstat)", o->compare[k]);
	if (b->wakers.now < a->wakers.now)
		die(EXIT_BADDATA, "%s: -w: its wakers were read before %s's",
		    o->compare[1], o->compare[0]);
	memset(&r, 0, sizeof(r));
	if (!o->show.json && !o->chain) {
		compare_wall(wa, sizeof(wa), &a->wall);
		compare_wall(wb, sizeof(wb), &b->wall);
		printf("Compare: %s -> %s, %.3f s apart\n", wa, wb,
		       (double)(b->snap.now - a->snap.now) / 1e9);
	}
	wakers_show(o, &r, &a->wakers, &b->wakers, &nm);
	tsa_wakers_report_free(&r);
}

/* --compare A B: one report of B against A. */
static int compare_captures(const struct options *o)
{
	const struct show *sh = &o->show;
	struct capture a, b;
	struct group_report r;
	struct tsa_select sel;
	struct tsa_totals tot;
	struct compare_sum sum;
	enum group_by by = sh->group_by < 0 ? GROUP_PID :
			   (enum group_by)sh->group_by;
	size_t n;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&r, 0, sizeof(r));
	load_capture(&a, o->compare[0]);
	load_capture(&b, o->compare[1]);
	if (a.boot_id[0] && b.boot_id[0] && strcmp(a.boot_id, b.boot_id))
		die(EXIT_BADDATA, "%s and %s: captures of two different "
		    "boots cannot be compared", o->compare[0], o->compare[1]);
	if (b.snap.now < a.snap.now)
		die(EXIT_BADDATA, "%s was taken before %s: give the earlier "
		    "capture first", o->compare[1], o->compare[0]);
	if (sh->view == VIEW_HIST) {
		compare_hist(o, &a, &b);
		goto out;
	}
	if (sh->view == VIEW_WAKERS) {
		compare_wakers(o, &a, &b);
		goto out;
	}
	sel.lwps = 0;
	sel.interval = (double)(b.snap.now - a.snap.now) / 1e9;
	sel.pids = sh->pids;
	sel.npids = sh->npids;
	/* B's cgroups are the capture's, never the live system's. */
	r.cc = b.cc;
	memset(&b.cc, 0, sizeof(b.cc));
	n = group_report_compute(&r, &a.snap, &b.snap, by, &sel,
				 "/nonexistent", &tot);
	sort_lines_time(r.d, n, sh->sort_key, sh->sort_order);
	compare_count(&a.snap, &b.snap, &sum);
	compare_print(stdout, sh, by, &a.snap, &b.snap, &r,
		      lines_shown(o, n, 0), &tot, &sum);
out:
	if (fflush(stdout) == EOF || ferror(stdout))
		die(EXIT_BADDATA, "write error: %s", strerror(errno));
	group_report_free(&r);
	capture_free(&a);
	capture_free(&b);
	free(sh->pids);
	return 0;
}

/* --prometheus / --openmetrics: one snapshot, written once. */
/*
 * The export: one snapshot of /proc/tsa/all per process or group, and
 * where the module keeps them (hist=1), their distributions of stays
 * from /proc/tsa/hist, read right after.
 */
static int export_metrics(const struct options *o, const char *path)
{
	const struct show *sh = &o->show;
	enum group_by by = sh->group_by < 0 ? GROUP_PID :
			   (enum group_by)sh->group_by;
	struct metrics_hist *mh = NULL;
	long *proc_group;
	struct tsa_hist_snap h;
	struct tsa_snap s;
	struct group_table t;
	char msg[256], hpath[PATH_MAX];
	size_t n;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	memset(&h, 0, sizeof(h));
	rc = tsa_snap_read(&s, path, msg, sizeof(msg));
	if (rc != TSA_OK)
		fail_read(rc, path, msg);
	if (sh->npids)
		check_pids(o, &s);
	/* Each process's group, once: its distributions go there too. */
	proc_group = xmalloc((s.nprocs + 1) * sizeof(*proc_group));
	n = group_compute(&s, by, sh->pids, sh->npids, o->procfs, NULL, &t,
			  proc_group);
	snprintf(hpath, sizeof(hpath), "%s/hist", o->proc_dir);
	rc = tsa_hist_read(&h, hpath, msg, sizeof(msg));
	if (rc == TSA_OK) {
		mh = xmalloc((n + 1) * sizeof(*mh));
		metrics_hist_compute(&s, &h, by, sh->pids, sh->npids,
				     proc_group, &t, mh);
	} else if (rc != TSA_ENOENT) {
		fail_read(rc, hpath, msg);
	}
	metrics_print(stdout, (enum metrics_format)(o->metrics - 1), by, t.g,
		      n, mh, h.shift);
	if (fflush(stdout) == EOF || ferror(stdout))
		die(EXIT_BADDATA, "write error: %s", strerror(errno));
	free(mh);
	free(proc_group);
	tsa_hist_free(&h);
	group_table_free(&t);
	tsa_snap_free(&s);
	free(sh->pids);
	return 0;
}

/* What one report needs from one interval to the next. */
struct reporter {
	struct tsa_delta *lines;
	struct tsa_call_line *clines;
	size_t cap, ccap;
	struct group_report groups;
	struct tsa_wakers_report wakers;	/* -w in a replay */
	struct tsa_select sel;
	int redraw;
	int tty;	/* stdout is a terminal: a person reads it */
};

/* The / key: only the lines whose name has @f (all when it is ""). */
static size_t filter_lines(struct tsa_delta *d, size_t n, const char *f)
{
	size_t i, k = 0;

	if (!f[0])
		return n;
	for (i = 0; i < n; i++)
		if (d[i].comm && strstr(d[i].comm, f))
			d[k++] = d[i];
	return k;
}

/*
 * One report of @cur against @prev (NULL: lifetime numbers), with its
 * system calls from @ccur and @cprev for -y.
 */
static void report(struct reporter *rp, const struct options *o,
		   const struct tsa_snap *prev, const struct tsa_snap *cur,
		   const struct tsa_calls_snap *cprev,
		   const struct tsa_calls_snap *ccur, const double la[3])
{
	const struct show *sh = &o->show;
	int calls = sh->view == VIEW_CALLS;
	int grouped = sh->group_by > GROUP_PID;	/* pid: the usual report */
	struct tsa_totals tot;
	size_t n, show;

	if (grouped) {
		n = group_report_compute(&rp->groups, prev, cur,
					 (enum group_by)sh->group_by, &rp->sel,
					 o->replay ? "/nonexistent" : o->procfs,
					 &tot);
		n = filter_lines(rp->groups.d, n, sh->filter);
		sort_lines(rp->groups.d, n, sh->sort_key, sh->sort_order);
	} else {
		n = tsa_delta_compute(prev, cur, &rp->sel, &rp->lines, &rp->cap,
				      &tot);
		n = filter_lines(rp->lines, n, sh->filter);
		if (calls) {
			/* Call lines point at the (unsorted) lines. */
			n = tsa_calls_compute(prev, cur, cprev, ccur, &rp->sel,
					      rp->lines, n, &rp->clines,
					      &rp->ccap);
			sort_call_lines(rp->clines, n, sh->sort_key,
					sh->sort_order);
		} else {
			sort_lines(rp->lines, n, sh->sort_key, sh->sort_order);
		}
	}
	show = lines_shown(o, n, rp->redraw);
	/*
	 * An uncalibrated module is said in the Total line to a person;
	 * a pipe keeps the line scripts parse as Solaris prints it (and
	 * --json has "calibration").
	 */
	if (!rp->tty)
		tot.calib = NULL;

	if (sh->json) {
		if (grouped)
			json_print_groups(stdout, (enum group_by)sh->group_by,
					  cur, &rp->groups, rp->groups.d, show);
		else if (calls)
			json_print_calls(stdout, sh, ccur, rp->clines, show);
		else
			json_print(stdout, sh, cur, rp->lines, show);
	} else {
		if (rp->redraw)
			fputs("\033[H\033[J", stdout);
		if (grouped)
			group_table_print(stdout, sh,
					  (enum group_by)sh->group_by,
					  &rp->groups, rp->groups.d, show,
					  &tot, la);
		else if (calls)
			calls_table_print(stdout, sh, rp->clines, show, &tot,
					  la, sh->trunc || rp->redraw);
		else
			table_print(stdout, sh, rp->lines, show, &tot, la,
				    sh->trunc || rp->redraw);
	}
	if (fflush(stdout) == EOF || ferror(stdout))
		die(EXIT_BADDATA, "write error: %s", strerror(errno));
}

static void reporter_free(struct reporter *rp, struct options *o)
{
	free(rp->lines);
	free(rp->clines);
	group_report_free(&rp->groups);
	tsa_wakers_report_free(&rp->wakers);
	free(o->show.pids);
}

static void reporter_init(struct reporter *rp, const struct options *o,
			  int redraw)
{
	memset(rp, 0, sizeof(*rp));
	rp->sel.lwps = o->show.lwps;
	rp->sel.interval = o->interval;
	rp->sel.pids = o->show.pids;
	rp->sel.npids = o->show.npids;
	rp->redraw = redraw;
	rp->tty = isatty(STDOUT_FILENO);
}

static void fmt_local(char *out, size_t len, const struct timespec *t)
{
	struct tm tm;

	localtime_r(&t->tv_sec, &tm);
	strftime(out, len, "%Y-%m-%d %H:%M:%S %Z", &tm);
}

static const char *fmt_now(const struct timespec *t)
{
	static char buf[64];

	fmt_local(buf, sizeof(buf), t);
	return buf;
}

/*
 * One replayed report of @c against @p (NULL: lifetime): the wakers
 * view's over @wp and @wc, named as @c recorded them, or report()'s.
 */
static void replay_report(struct reporter *rp, const struct options *o,
			  const struct tsa_snap *p, const struct tsa_snap *c,
			  const struct tsa_calls_snap *cp,
			  const struct tsa_calls_snap *cc,
			  const struct tsa_wakers_snap *wp,
			  const struct tsa_wakers_snap *wc, const double la[3])
{
	struct tsa_wnames nm = { "/nonexistent", c, &rp->groups.cc };

	if (o->show.view == VIEW_WAKERS) {
		wakers_show(o, &rp->wakers, wp, wc, &nm);
		if (fflush(stdout) == EOF || ferror(stdout))
			die(EXIT_BADDATA, "write error: %s", strerror(errno));
		return;
	}
	report(rp, o, p, c, cp, cc, la);
}

/* A replayed block's tables for the view: there, or the reason why not. */
static void replay_tables(const struct options *o, const struct replay *rec,
			  const struct timespec *wall)
{
	int calls = o->show.view == VIEW_CALLS;

	if (calls && rec->calls_err == TSA_ENOCALLS)
		die(EXIT_NOMODULE, "%s: -y: the module kept no system-call "
		    "rows then (calls=0 or syscalls=0; the rows there are "
		    "traps)", o->replay);
	if (calls && rec->calls_err == TSA_ENOENT)
		die(EXIT_NOMODULE, "%s: -y: no system-call rows recorded at "
		    "%s (the module kept none: calls=0 and interrupts=0)",
		    o->replay, fmt_now(wall));
	if (calls && rec->calls_err != TSA_OK)
		die(EXIT_BADDATA, "%s: -y: the system-call rows recorded at "
		    "%s do not parse", o->replay, fmt_now(wall));
	if (o->show.view != VIEW_WAKERS)
		return;
	if (rec->wakers_err == TSA_ENOENT)
		die(EXIT_NOMODULE, "%s: -w: no wakers recorded at %s (the "
		    "module kept none, wakers=0, or an older tsa-prstat "
		    "recorded it)", o->replay, fmt_now(wall));
	if (rec->wakers_err != TSA_OK)
		die(EXIT_BADDATA, "%s: -w: the wakers recorded at %s do not "
		    "parse", o->replay, fmt_now(wall));
}

/*
 * --replay: every recorded interval in the window, reported as live
 * (with its time above it), or one report over the window (--summary).
 */
static int replay_recording(struct options *o)
{
	struct tsa_snap snaps[3];
	struct tsa_calls_snap csnaps[3];
	struct tsa_wakers_snap wsnaps[3];
	int prev = -1, cur = 0, first = -1, calls = o->show.view == VIEW_CALLS;
	int wakers = o->show.view == VIEW_WAKERS;
	struct reporter rp;
	struct replay rec;
	char msg[256], boot[64] = "";
	unsigned long reports = 0;

	if (replay_open(&rec, o->replay, o->from >= 0 ? (time_t)o->from : 0,
			msg, sizeof(msg)))
		die(EXIT_BADDATA, "%s: %s", o->replay, msg);
	memset(snaps, 0, sizeof(snaps));
	memset(csnaps, 0, sizeof(csnaps));
	memset(wsnaps, 0, sizeof(wsnaps));
	reporter_init(&rp, o, 0);
	while (replay_next(&rec, &snaps[cur], calls ? &csnaps[cur] : NULL,
			   wakers ? &wsnaps[cur] : NULL) > 0) {
		struct tsa_snap *c = &snaps[cur], *p;

		if (o->to >= 0 && c->wall.tv_sec > o->to)
			break;
		/* Another boot, or its clock back: no interval across. */
		if (prev >= 0 && (strcmp(boot, rec.boot_id) ||
				  snaps[prev].now > c->now)) {
			prev = -1;
			if (first >= 0) {
				warnmsg("%s: the window spans a reboot at %s: "
					"the summary begins there", o->replay,
					fmt_now(&c->wall));
				first = -1;
			}
		}
		snprintf(boot, sizeof(boot), "%s", rec.boot_id);
		p = prev >= 0 ? &snaps[prev] : NULL;
		if (o->from < 0 || c->wall.tv_sec >= o->from) {
			replay_tables(o, &rec, &c->wall);
			if (o->summary) {
				if (first < 0)
					first = cur;	/* kept from here on */
			} else {
				/* A first report's counts: per interval. */
				rp.sel.interval = p ? (double)(c->now -
						p->now) / 1e9 : rec.interval > 0 ?
						rec.interval : o->interval;
				if (o->show.group_by == GROUP_CGROUP)
					replay_cgroups(&rec, c, &rp.groups.cc);
				if (!o->show.json && p)
					printf("Replay: %s, %.1f s\n", fmt_now(
					       &c->wall), rp.sel.interval);
				else if (!o->show.json)
					printf("Replay: %s, since each thread "
					       "began\n", fmt_now(&c->wall));
				replay_report(&rp, o, p, c, calls && p ?
					      &csnaps[prev] : NULL,
					      calls ? &csnaps[cur] : NULL,
					      wakers && p ? &wsnaps[prev] :
					      NULL, &wsnaps[cur], rec.loadavg);
				reports++;
			}
		}
		prev = cur;
		/* The next goes where neither the last nor the first is. */
		for (cur = 0; cur == prev || cur == first; cur++)
			;
	}
	if (o->summary && first >= 0 && prev >= 0 && prev != first) {
		rp.sel.interval = (double)(snaps[prev].now -
					   snaps[first].now) / 1e9;
		if (o->show.group_by == GROUP_CGROUP)
			replay_cgroups(&rec, &snaps[prev], &rp.groups.cc);
		if (!o->show.json) {
			char a[64], b[64];

			fmt_local(a, sizeof(a), &snaps[first].wall);
			fmt_local(b, sizeof(b), &snaps[prev].wall);
			printf("Replay summary: %s to %s, %.1f s\n", a, b,
			       rp.sel.interval);
		}
		replay_report(&rp, o, &snaps[first], &snaps[prev],
			      calls ? &csnaps[first] : NULL,
			      calls ? &csnaps[prev] : NULL, &wsnaps[first],
			      &wsnaps[prev], rec.loadavg);
		reports++;
	}
	fflush(stdout);
	for (cur = 0; cur < 3; cur++) {
		tsa_snap_free(&snaps[cur]);
		tsa_calls_free(&csnaps[cur]);
		tsa_wakers_free(&wsnaps[cur]);
	}
	replay_close(&rec);
	reporter_free(&rp, o);
	if (!reports)
		die(EXIT_BADDATA, "%s: no recorded interval in that window%s",
		    o->replay, o->summary ? " (a summary needs two blocks)" :
		    "");
	return 0;
}

/* ---- the keys of the redraw mode ---------------------------------------- */

/* The last report's inputs: a key draws it again from them. */
struct shown {
	const struct tsa_snap *prev, *cur;
	const struct tsa_calls_snap *cprev, *ccur;
	double la[3];
	int paused;
	char note[96];		/* on the status line, NOTE_SECS at least */
	double note_until;	/* CLOCK_MONOTONIC s; 0: not shown yet */
};

/* A note stays this long, so that one is read at any interval (at -m 0.2
 * it was gone with the next report, 200 ms on). */
#define NOTE_SECS 2.0

static double mono_secs(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int screen_cols(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* On the cursor's row (no newline): what the keys have changed. */
static void status_line(const struct options *o, struct shown *sh)
{
	char b[256];
	int n;

	n = snprintf(b, sizeof(b), "sort %s%s", sort_key_name(o->show.sort_key),
		     o->show.sort_order > 0 ? " ascending" : "");
	if (sh->paused)
		n += snprintf(b + n, sizeof(b) - n, " | paused");
	if (o->show.filter[0])
		n += snprintf(b + n, sizeof(b) - n, " | name has '%s'",
			      o->show.filter);
	if (o->show.npids == 1)
		n += snprintf(b + n, sizeof(b) - n, " | pid %llu",
			      (unsigned long long)o->show.pids[0]);
	if (sh->note[0] && sh->note_until && mono_secs() >= sh->note_until)
		sh->note[0] = '\0';
	if (sh->note[0]) {
		if (!sh->note_until)
			sh->note_until = mono_secs() + NOTE_SECS;
		n += snprintf(b + n, sizeof(b) - n, " | %s", sh->note);
	} else {
		sh->note_until = 0;
	}
	snprintf(b + n, sizeof(b) - n, " | h: keys");
	printf("%.*s", screen_cols() - 1, b);
	fflush(stdout);
}

static void show_help(const struct options *o)
{
	printf("\033[H\033[Jtsa-prstat keys\n\n"
	       "  q          quit\n"
	       "  s S  > <   the next or the previous sort key (now %s)\n"
	       "  r          reverse the order\n"
	       "  L          a line per thread, or per process\n"
	       "  m A y      the Solaris view, the TSA view, the system-call "
	       "view\n"
	       "  g          group by process, cgroup, user, thread name, in "
	       "turn\n"
	       "  p          one process only (empty: all)\n"
	       "  /          only the lines whose name has a string (empty: "
	       "all)\n"
	       "  space      pause the reports, and go on\n"
	       "  h ?        this help\n\n"
	       "Any key goes back.", sort_key_name(o->show.sort_key));
	fflush(stdout);
}

/* @o in view @v, with a sort key of that view (the same name if any). */
static void set_view(struct options *o, enum view v)
{
	int k = sort_key_lookup(sort_key_name(o->show.sort_key), v, NULL, 0);

	o->show.view = v;
	o->show.sort_key = k >= 0 ? k : sort_default_key(v);
	if (v == VIEW_CALLS && o->show.group_by > GROUP_PID)
		o->show.group_by = -1;	/* groups have no call lines */
}

/* Act on key @k; ACT_READ: a report is due now (its data is not read). */
static int on_key(int k, struct options *o, struct reporter *rp,
		  struct shown *sh)
{
	struct show *sv = &o->show;
	char buf[64], *end;
	uint64_t one;
	int act = ACT_WAIT;

	switch (k) {
	case 'q':
		return ACT_QUIT;
	case ' ':
		sh->paused = !sh->paused;
		break;
	case 's':
	case '>':
	case 'S':
	case '<':
		sv->sort_key = sort_key_next(sv->sort_key, sv->view,
					    k == 's' || k == '>' ? 1 : -1);
		break;
	case 'r':
		sv->sort_order = -sv->sort_order;
		break;
	case 'L':
		sv->lwps = rp->sel.lwps = !sv->lwps;
		if (sv->lwps && sv->group_by > GROUP_PID)
			sv->group_by = -1;	/* groups are not threads */
		break;
	case 'm':
		set_view(o, VIEW_SOLARIS);
		break;
	case 'A':
		set_view(o, VIEW_TSA);
		break;
	case 'y':
		if (sv->view != VIEW_CALLS)
			act = ACT_READ;	/* /proc/tsa/calls was not read */
		set_view(o, VIEW_CALLS);
		break;
	case 'g':
		sv->group_by = sv->group_by < GROUP_CGROUP ? GROUP_CGROUP :
			       sv->group_by + 1 < GROUP_NBY ?
			       sv->group_by + 1 : -1;
		if (sv->group_by > GROUP_PID) {
			sv->lwps = rp->sel.lwps = 0;
			if (sv->view == VIEW_CALLS)
				set_view(o, VIEW_SOLARIS);
		}
		snprintf(sh->note, sizeof(sh->note), "by %s",
			 group_by_name[sv->group_by < 0 ? GROUP_PID :
				       sv->group_by]);
		sh->note_until = 0;
		break;
	case 'p':
		if (!keys_prompt("pid (empty: every process): ", buf,
				 sizeof(buf)))
			break;
		errno = 0;
		one = strtoull(buf, &end, 10);
		if (!buf[0]) {
			sv->npids = 0;
		} else if (errno || end == buf || *end || !one) {
			snprintf(sh->note, sizeof(sh->note), "not a pid: %.40s",
				 buf);
			sh->note_until = 0;
		} else {
			free(sv->pids);
			sv->pids = xmalloc(sizeof(*sv->pids));
			sv->pids[0] = one;
			sv->npids = 1;
		}
		rp->sel.pids = sv->pids;
		rp->sel.npids = sv->npids;
		break;
	case '/':
		if (keys_prompt("name has (empty: any): ", buf, sizeof(buf)))
			snprintf(sv->filter, sizeof(sv->filter), "%s", buf);
		break;
	case 'h':
	case '?':
		show_help(o);
		if (keys_wait(NULL, &stop) == KEY_STOP)
			return ACT_QUIT;
		break;
	case KEY_REDRAW:
		break;
	default:
		return ACT_WAIT;	/* not ours: nothing changes */
	}
	if (act == ACT_WAIT && sh->cur) {
		report(rp, o, sh->prev, sh->cur, sh->cprev, sh->ccur, sh->la);
		status_line(o, sh);
	}
	return act;
}

int main(int argc, char **argv)
{
	struct tsa_snap snaps[2], *prev = NULL, *cur = &snaps[0], *base;
	struct tsa_calls_snap csnaps[2], *cprev = NULL, *ccur = &csnaps[0];
	struct reporter rp;
	struct options o;
	struct shown sh;
	struct timespec deadline;
	char path[PATH_MAX], cpath[PATH_MAX], msg[256];
	double la[3];
	int tty, rc, calls, keys;
	long done;

	parse_args(&o, argc, argv);
	calls = o.show.view == VIEW_CALLS;
	snprintf(path, sizeof(path), "%s/all", o.proc_dir);
	snprintf(cpath, sizeof(cpath), "%s/calls", o.proc_dir);
	if (o.calibrate)
		return calibrate(o.proc_dir, o.calibrate_cpus);
	if (o.metrics)
		return export_metrics(&o, path);
	if (o.save)
		return save_capture(&o, path);
	if (o.compare[0])
		return compare_captures(&o);
	if (o.replay)
		return replay_recording(&o);
	set_signals();
	if (o.record)
		return record_loop(&o, path, cpath, &stop);
	if (o.show.view == VIEW_HIST || o.show.view == VIEW_WAKERS) {
		int rc = o.show.view == VIEW_HIST ? hist_run(&o, &stop) :
			 wakers_run(&o, &stop);

		free(o.show.pids);
		return rc;
	}
	tty = isatty(STDOUT_FILENO);
	reporter_init(&rp, &o, tty && !o.no_clear && !o.show.json);
	/* Keys in the redraw mode, as top takes them; -c and pipes: none. */
	keys = rp.redraw && keys_start();
	memset(&sh, 0, sizeof(sh));
	memset(snaps, 0, sizeof(snaps));
	memset(csnaps, 0, sizeof(csnaps));
	clock_gettime(CLOCK_MONOTONIC, &deadline);

	for (done = 0; !stop && (o.count < 0 || done < o.count); done++) {
		if (done && !keys) {
			sleep_until(&deadline, o.interval);
		} else if (done) {
			int k, act = ACT_WAIT;

			next_deadline(&deadline, o.interval);
			while (act == ACT_WAIT) {
				k = keys_wait(sh.paused ? NULL : &deadline,
					      &stop);
				if (k == KEY_NONE)
					break;
				act = k == KEY_STOP ? ACT_QUIT :
				      on_key(k, &o, &rp, &sh);
			}
			if (act == ACT_QUIT)
				stop = 1;
			else if (act == ACT_READ)
				clock_gettime(CLOCK_MONOTONIC, &deadline);
		}
		if (stop)
			break;
		calls = o.show.view == VIEW_CALLS;
		rc = tsa_snap_read(cur, path, msg, sizeof(msg));
		if (rc != TSA_OK)
			fail_read(rc, path, msg);
		tsa_calib_state(o.proc_dir, cur->calib, sizeof(cur->calib));
		if (calls) {
			rc = tsa_calls_read(ccur, cpath, msg, sizeof(msg));
			if (rc != TSA_OK && keys && sh.cur) {
				/* The y key, with no calls to show: say so. */
				set_view(&o, VIEW_SOLARIS);
				snprintf(sh.note, sizeof(sh.note), "no "
					 "system-call rows (tsa calls=0?)");
				calls = 0;
			} else if (rc != TSA_OK) {
				fail_read_calls(rc, cpath, msg);
			}
		}
		if (!prev && o.show.npids)
			check_pids(&o, cur);
		read_loadavg(la);
		/* Calls shown since the y key: from each thread's start. */
		base = calls && !cprev ? NULL : prev;
		report(&rp, &o, base, cur, calls ? cprev : NULL,
		       calls ? ccur : NULL, la);
		if (keys) {
			sh.prev = base;
			sh.cur = cur;
			sh.cprev = calls ? cprev : NULL;
			sh.ccur = calls ? ccur : NULL;
			memcpy(sh.la, la, sizeof(la));
			status_line(&o, &sh);
		}

		prev = cur;
		cur = cur == &snaps[0] ? &snaps[1] : &snaps[0];
		if (calls) {
			cprev = ccur;
			ccur = ccur == &csnaps[0] ? &csnaps[1] : &csnaps[0];
		} else {
			cprev = NULL;	/* the y key starts its calls afresh */
		}
	}
	if (keys) {
		keys_stop();
		putchar('\n');
	}
	fflush(stdout);
	tsa_snap_free(&snaps[0]);
	tsa_snap_free(&snaps[1]);
	tsa_calls_free(&csnaps[0]);
	tsa_calls_free(&csnaps[1]);
	reporter_free(&rp, &o);
	return 0;
}
