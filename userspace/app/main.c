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
 * The other modes are in files of their own (app/app.h): -w in wake.c,
 * --record and --replay in recorder.c, the modes that run once on files
 * (--save, --compare, --prometheus) in files.c, the keys in redraw.c.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "dist.h"
#include "json.h"
#include "sort.h"
#include "table.h"
#include "keys.h"
#include "calib.h"
#include "calibrate.h"
#include "args.h"
#include "app.h"

volatile sig_atomic_t stop;

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
long screen_lines(void)
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

void fail_read(int rc, const char *path, const char *msg)
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

/*
 * A file the module keeps unless loaded with @param (hist=0: /proc/tsa/hist,
 * which -H reads; wakers=0: /proc/tsa/wakers, -w's).
 */
void fail_read_kept(int rc, const char *path, const char *msg,
		    const char *param, const char *opt)
{
	if (rc == TSA_ENOENT)
		die(EXIT_NOMODULE, "%s: not found; the tsa module must be "
		    "loaded without %s for %s (sudo modprobe -r tsa; sudo "
		    "modprobe tsa)", path, param, opt);
	fail_read(rc, path, msg);
}

/* A view's redraw mode: on a terminal, without -c and --json. */
int redraws(const struct options *o)
{
	return isatty(STDOUT_FILENO) && !o->no_clear && !o->show.json;
}

/*
 * The live loop of a view that reads one file a report (-H, -w): every
 * o->interval seconds until @stop or o->count reports, @report(@ctx)
 * prints one (the first over each thread's life).  With @key, in the
 * redraw mode, keys between reports go to @key(@ctx, KEY): an ACT_*.
 */
void each_interval(const struct options *o,
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
		fail_read_kept(rc, h->path, msg, "hist=0", "-H");
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


/* With -p: complain about pids that are not there; exit if none is. */
void check_pids(const struct options *o, const struct tsa_snap *s)
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
size_t lines_shown(const struct options *o, size_t n, int redraw)
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
void report(struct reporter *rp, const struct options *o,
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

void reporter_free(struct reporter *rp, struct options *o)
{
	free(rp->lines);
	free(rp->clines);
	group_report_free(&rp->groups);
	tsa_wakers_report_free(&rp->wakers);
	free(o->show.pids);
}

void reporter_init(struct reporter *rp, const struct options *o,
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
