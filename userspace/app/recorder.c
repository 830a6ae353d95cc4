// SPDX-License-Identifier: GPL-2.0
/*
 * app/recorder.c - the flight recorder's two modes: --record (a block
 * an interval, store/record.c) and --replay (its windows as the live
 * views show them, store/replay.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "record.h"
#include "dist.h"
#include "app.h"

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
 * blocks), /proc/tsa/all, and /proc/tsa/calls, wakers and hist (its
 * LAT rows) when the module keeps them, into the recorder.
 */
int record_loop(const struct options *o, const char *allpath,
		const char *callspath, volatile sig_atomic_t *stop)
{
	struct rec_config c = { o->record, o->interval, o->count,
				o->keep_secs, o->max_bytes, o->procfs };
	struct tsa_snap snaps[2], *prev = NULL, *cur = &snaps[0];
	struct ct_file calls[2], wakers[2], hist[2];
	struct rec_tables t[2];
	struct recorder *rec;
	struct timespec deadline;
	char msg[4400], wpath[4096], hpath[4096];
	double la[3];
	int ck = 0, with_calls = 0, with_wakers = 0, with_hist = 0, err, i;
	long done;

	memset(snaps, 0, sizeof(snaps));
	memset(calls, 0, sizeof(calls));
	memset(wakers, 0, sizeof(wakers));
	memset(hist, 0, sizeof(hist));
	snprintf(wpath, sizeof(wpath), "%s/wakers", o->proc_dir);
	snprintf(hpath, sizeof(hpath), "%s/hist", o->proc_dir);
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
		record_table(&hist[ck], &ct_hist, hpath, done, &with_hist);
		read_loadavg(la);
		for (i = 0; i < 2; i++) {
			t[i].calls = with_calls ? &calls[i ^ ck] : NULL;
			t[i].wakers = with_wakers ? &wakers[i ^ ck] : NULL;
			t[i].hist = with_hist ? &hist[i ^ ck] : NULL;
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
		ct_free(&hist[i]);
	}
	if (recorder_close(rec, msg, sizeof(msg)))
		die(EXIT_BADDATA, "%s", msg);
	tsa_snap_free(&snaps[0]);
	tsa_snap_free(&snaps[1]);
	return 0;
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
	struct tsa_wnames nm = { "/nonexistent", c, &rp->groups.cc, NULL };

	if (o->show.view == VIEW_HIST) {
		struct show sh = o->show;

		if (o->neuids || o->nruids) {	/* -u, -U: their processes */
			sh.npids = user_pids(o, c, &rp->upids, &rp->ucap);
			sh.pids = rp->upids;
		}
		rp->hist.names = c;
		rp->hist.names_prev = p;
		rp->hist.procfs = "/nonexistent";
		hist_report_compute(&rp->hist, &sh, rp->hprev, rp->hcur);
		if (o->show.json)
			hist_print_json(stdout, &sh, rp->hcur, &rp->hist);
		else
			hist_print(stdout, &sh, rp->hcur, rp->hprev ?
				   (double)(rp->hcur->now - rp->hprev->now) /
				   1e9 : 0, &rp->hist);
		if (fflush(stdout) == EOF || ferror(stdout))
			die(EXIT_BADDATA, "write error: %s", strerror(errno));
		return;
	}

	if (o->show.view == VIEW_WAKERS) {
		struct options ou = *o;

		if (o->neuids || o->nruids) {	/* -u, -U: their processes */
			ou.show.npids = user_pids(o, c, &rp->upids, &rp->ucap);
			ou.show.pids = rp->upids;
		}
		wakers_show(&ou, &rp->wakers, wp, wc, &nm);
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
	if (o->show.view == VIEW_HIST && rec->hist_err == TSA_ENOENT)
		die(EXIT_NOMODULE, "%s: -H: no distributions recorded at %s "
		    "(a recorder before tsa-record 2, or the module's hist=0)",
		    o->replay, fmt_now(wall));
	if (o->show.view == VIEW_HIST && rec->hist_err != TSA_OK)
		die(EXIT_BADDATA, "%s: -H: the distributions recorded at %s "
		    "do not parse", o->replay, fmt_now(wall));
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
int replay_recording(struct options *o)
{
	struct tsa_snap snaps[3];
	struct tsa_calls_snap csnaps[3];
	struct tsa_wakers_snap wsnaps[3];
	struct tsa_hist_snap hsnaps[3];
	int prev = -1, cur = 0, first = -1, calls = o->show.view == VIEW_CALLS;
	int wakers = o->show.view == VIEW_WAKERS, cok[3] = { 0, 0, 0 };
	int wok[3] = { 0, 0, 0 }, pic = o->folded || o->svg || o->perfetto;
	size_t nblocks = 0;	/* from the first, in the window */
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
	memset(hsnaps, 0, sizeof(hsnaps));
	reporter_init(&rp, o, 0);
	/* A picture is of the window: its calls too, when it has them. */
	if (pic) {
		o->summary = 1;
		calls = 1;
		/* the top wakers, if any */
		wakers |= o->svg || o->perfetto;
	}
	while (replay_next(&rec, &snaps[cur], calls ? &csnaps[cur] : NULL,
			   wakers ? &wsnaps[cur] : NULL) > 0) {
		struct tsa_snap *c = &snaps[cur], *p;

		if (o->show.view == VIEW_HIST)
			rec.hist_err = replay_hist(&rec, &hsnaps[cur]);
		cok[cur] = calls && rec.calls_err == TSA_OK;
		wok[cur] = wakers && rec.wakers_err == TSA_OK;

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
			if (!pic || o->show.view == VIEW_WAKERS)
				replay_tables(o, &rec, &c->wall);
			if (o->summary) {
				if (first < 0) {
					first = cur;	/* kept from here on */
					nblocks = 0;
				}
				nblocks++;
			} else {
				/* A first report's counts: per interval. */
				rp.sel.interval = p ? (double)(c->now -
						p->now) / 1e9 : rec.interval > 0 ?
						rec.interval : o->interval;
				if (o->show.group_by == GROUP_CGROUP)
					replay_cgroups(&rec, c, &rp.groups.cc);
				rp.hprev = p ? &hsnaps[prev] : NULL;
				rp.hcur = &hsnaps[cur];
				if (!o->show.json && !o->show.csv && p)
					printf("Replay: %s, %.1f s\n", fmt_now(
					       &c->wall), rp.sel.interval);
				else if (!o->show.json && !o->show.csv)
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
	if (pic && first >= 0 && prev >= 0 && prev != first) {
		int ck = cok[first] && cok[prev], wk = wok[first] && wok[prev];
		struct window w = { &snaps[first], &snaps[prev],
				    ck ? &csnaps[first] : NULL,
				    ck ? &csnaps[prev] : NULL,
				    wk ? &wsnaps[first] : NULL,
				    wk ? &wsnaps[prev] : NULL, NULL, o->replay,
				    o->replay, nblocks - 1, NULL, NULL };

		if (o->show.group_by == GROUP_CGROUP)
			replay_cgroups(&rec, &snaps[prev], &rp.groups.cc);
		w.cc = &rp.groups.cc;
		picture_window(o, &w);
		reports++;
	} else if (o->summary && first >= 0 && prev >= 0 && prev != first) {
		rp.sel.interval = (double)(snaps[prev].now -
					   snaps[first].now) / 1e9;
		if (o->show.group_by == GROUP_CGROUP)
			replay_cgroups(&rec, &snaps[prev], &rp.groups.cc);
		if (!o->show.json && !o->show.csv) {
			char a[64], b[64];

			fmt_local(a, sizeof(a), &snaps[first].wall);
			fmt_local(b, sizeof(b), &snaps[prev].wall);
			printf("Replay summary: %s to %s, %.1f s\n", a, b,
			       rp.sel.interval);
		}
		rp.hprev = &hsnaps[first];
		rp.hcur = &hsnaps[prev];
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
		tsa_hist_free(&hsnaps[cur]);
	}
	replay_close(&rec);
	reporter_free(&rp, o);
	if (!reports)
		die(EXIT_BADDATA, "%s: no recorded interval in that window%s",
		    o->replay, pic ? " (a picture needs two blocks)" :
		    o->summary ? " (a summary needs two blocks)" :
		    "");
	return 0;
}
