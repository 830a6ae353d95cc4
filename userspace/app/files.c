// SPDX-License-Identifier: GPL-2.0
/*
 * app/files.c - the modes that run once on files: --save (a capture),
 * --compare (two captures, or a recording at a time) and --prometheus /
 * --openmetrics (one snapshot as metrics, or a textfile).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "parse.h"
#include "compare.h"
#include "dist.h"
#include "ledger.h"
#include "metrics.h"
#include "sort.h"
#include "capture.h"
#include "record.h"
#include "app.h"

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
int save_capture(const struct options *o, const char *path)
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
	if (!tsa_hist_same_bounds(&a->hist, &b->hist))
		die(EXIT_BADDATA, "%s: -H: its buckets end where %s's do "
		    "not (saved with modules of other versions: tsa-hist "
		    "%d and %d)", o->compare[1], o->compare[0],
		    a->hist.bounds.ns ? 1 : 2, b->hist.bounds.ns ? 1 : 2);
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
	struct tsa_wnames nm = { "/nonexistent", &b->snap, &b->cc, NULL };
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
int compare_captures(const struct options *o)
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
	if (o->folded || o->svg || o->perfetto) {
		struct window w = { &a.snap, &b.snap, NULL, NULL,
				    a.has_wakers && b.has_wakers ? &a.wakers :
				    NULL, a.has_wakers && b.has_wakers ?
				    &b.wakers : NULL, &b.cc, o->compare[1],
				    NULL, 1, a.has_hist && b.has_hist ?
				    &a.hist : NULL, a.has_hist && b.has_hist ?
				    &b.hist : NULL };

		picture_window(o, &w);
		goto out;
	}
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

/* A group whose processes are all gone stays this long in --state. */
#define STATE_STALE_AFTER	3600

/*
 * --state FILE, opened and locked (flock: one export at a time), the
 * ledger in it read into @l (fresh when it has none, or another
 * grouping's or boot's). Returns its descriptor, kept until state_save().
 */
static int state_open(const char *path, struct ledger *l, const char *boot)
{
	struct stat a, b;
	char msg[256];
	FILE *f;
	int fd;

	for (;;) {
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			die(errno == EACCES ? EXIT_ACCESS : EXIT_BADDATA,
			    "--state %s: %s", path, strerror(errno));
		if (flock(fd, LOCK_EX))
			die(EXIT_BADDATA, "--state %s: %s", path,
			    strerror(errno));
		/* The file may have been replaced while we waited: again. */
		if (!fstat(fd, &a) && !stat(path, &b) && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev)
			break;
		close(fd);
	}
	f = fdopen(dup(fd), "r");
	if (!f)
		die(EXIT_BADDATA, "--state %s: %s", path, strerror(errno));
	if (a.st_size && ledger_read(f, l, boot, msg, sizeof(msg)))
		warnmsg("--state %s: %s; its counters start again", path, msg);
	fclose(f);
	return fd;
}

/* Write @l to @path (through a file beside it, renamed) and unlock. */
static void state_save(const char *path, int fd, const struct ledger *l,
		       const char *boot)
{
	char tmp[PATH_MAX];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "w");
	if (!f)
		die(errno == EACCES ? EXIT_ACCESS : EXIT_BADDATA,
		    "--state %s: %s", tmp, strerror(errno));
	ledger_write(f, l, boot);
	if (fflush(f) || fsync(fileno(f)) || fclose(f) || rename(tmp, path))
		die(EXIT_BADDATA, "--state %s: %s", path, strerror(errno));
	close(fd);	/* the lock with it */
}

/*
 * --prometheus / --openmetrics: one snapshot, written once. The export:
 * one snapshot of /proc/tsa/all per process or group, and where the
 * module keeps them, their distributions of stays from /proc/tsa/hist,
 * read right after. With --state, each group's counters are its
 * departed processes' (kept in the file) and its live ones'.
 */
int export_metrics(const struct options *o, const char *path)
{
	const struct show *sh = &o->show;
	enum group_by by = sh->group_by < 0 ? GROUP_PID :
			   (enum group_by)sh->group_by;
	struct metrics_hist *mh = NULL, *lmh;
	const struct tsa_group *g;
	struct tsa_group *lg;
	long *proc_group;
	struct tsa_hist_snap h;
	struct tsa_snap s;
	struct group_table t;
	struct ledger l;
	char msg[256], hpath[PATH_MAX], boot[64] = "";
	size_t n;
	int rc, sfd = -1;

	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	memset(&h, 0, sizeof(h));
	ledger_init(&l, by, STATE_STALE_AFTER);
	if (o->state) {
		read_boot_id(boot, sizeof(boot), o->procfs);
		sfd = state_open(o->state, &l, boot);
	}
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
	g = t.g;
	if (o->state) {
		n = ledger_update(&l, &s, rc == TSA_OK ? &h : NULL, sh->pids,
				  sh->npids, &t, proc_group,
				  (double)s.wall.tv_sec, &lg, &lmh);
		g = lg;
		free(mh);
		mh = NULL;
		state_save(o->state, sfd, &l, boot);
	}
	metrics_print(stdout, (enum metrics_format)(o->metrics - 1), by, g,
		      n, o->state ? lmh : mh, h.bounds);
	if (fflush(stdout) == EOF || ferror(stdout))
		die(EXIT_BADDATA, "write error: %s", strerror(errno));
	free(mh);
	free(proc_group);
	ledger_free(&l);
	tsa_hist_free(&h);
	group_table_free(&t);
	tsa_snap_free(&s);
	free(sh->pids);
	return 0;
}
