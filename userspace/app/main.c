// SPDX-License-Identifier: GPL-2.0
/*
 * app/main.c - tsa-prstat: main(), which picks the mode, and the main
 * views' live loop (the command line is app/args.c's; what the modes
 * share, the reporter among it, app/live.c's).
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
#include "keys.h"
#include "calib.h"
#include "calibrate.h"
#include "args.h"
#include "app.h"


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
	/* A redrawn screen: its lines cut at the width, as top's. */
	if (!o.record && redraws(&o))
		cut_at_width();
	if (o.record)
		return record_loop(&o, path, cpath, &stop);
	if (o.folded || o.svg || o.perfetto)
		return picture_live(&o, path, cpath, &stop);
	if (o.show.view == VIEW_HIST || o.show.view == VIEW_WAKERS) {
		int rc = o.show.view == VIEW_HIST ? hist_run(&o, &stop) :
			 wakers_run(&o, &stop);

		free(o.show.pids);
		free(o.euids);
		free(o.ruids);
		return rc;
	}
	tty = isatty(STDOUT_FILENO);
	reporter_init(&rp, &o, tty && !o.no_clear && !o.show.json &&
		      !o.show.csv);
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
