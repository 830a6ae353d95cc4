// SPDX-License-Identifier: GPL-2.0
/*
 * app/pictures.c - the pictures of a window (--folded), from any source:
 * a recording's window (recorder.c hands its first and last blocks), a
 * compare (files.c: the two captures) or a live run, which records into
 * a directory of its own and then draws that recording.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "folded.h"
#include "sort.h"
#include "app.h"

static void write_failed(const char *what)
{
	die(EXIT_BADDATA, "%s: write error: %s", what, strerror(errno));
}

/*
 * The window's lines as the report would have them: per thread (-L),
 * process or group (--group), only -p's, sorted by -s, cut to -n.
 */
void picture_window(const struct options *o, const struct window *w)
{
	const struct show *sh = &o->show;
	int grouped = sh->group_by > GROUP_PID;
	int wakers = sh->view == VIEW_WAKERS;
	struct tsa_select sel = { sh->lwps, (double)(w->b->now - w->a->now) /
				  1e9, sh->pids, sh->npids };
	struct group_report gr;
	struct tsa_wakers_report wr;
	struct tsa_totals tot;
	struct tsa_delta *lines = NULL;
	struct tsa_call_line *cl = NULL;
	struct folded_in in;
	size_t n, cap = 0, ccap = 0;

	memset(&gr, 0, sizeof(gr));
	memset(&wr, 0, sizeof(wr));
	memset(&in, 0, sizeof(in));
	if (wakers && (!w->wa || !w->wb))
		die(EXIT_NOMODULE, "%s: -w: no wakers in the window (the "
		    "module kept none, wakers=0, or an older tsa-prstat "
		    "recorded it)", w->src);
	if (grouped) {
		if (w->cc)
			gr.cc = *w->cc;	/* the source's cgroups, never ours */
		n = group_report_compute(&gr, w->a, w->b,
					 (enum group_by)sh->group_by, &sel,
					 "/nonexistent", &tot);
		sort_lines_time(gr.d, n, sh->sort_key, sh->sort_order);
		in.d = gr.d;
		in.groups = 1;
	} else {
		n = tsa_delta_compute(w->a, w->b, &sel, &lines, &cap, &tot);
		sort_lines_time(lines, n, sh->sort_key, sh->sort_order);
		in.d = lines;
		in.lwps = sh->lwps;
	}
	in.n = lines_shown(o, n, 0);
	in.prev = w->a;
	in.cur = w->b;
	if (!grouped && !wakers && w->ca && w->cb) {
		in.ncl = tsa_calls_compute(w->a, w->b, w->ca, w->cb, &sel,
					   lines, in.n, &cl, &ccap);
		in.cl = cl;
	}
	if (wakers) {
		struct tsa_wnames nm = { "/nonexistent", w->b, &gr.cc, w->a };

		tsa_wakers_compute(&wr, w->wa, w->wb, grouped ? 2 :
				   sh->lwps, sh->pids, sh->npids);
		if (grouped)
			tsa_wakers_group(&wr, sh->group_by, &nm);
		in.w = wr.v;
		in.nw = wr.n;
	}
	if (folded_print(stdout, &in))
		write_failed("stdout");
	if (w->cc)
		memset(&gr.cc, 0, sizeof(gr.cc));	/* the caller's */
	tsa_wakers_report_free(&wr);
	group_report_free(&gr);
	free(lines);
	free(cl);
}

/* Empty and remove the directory a live run recorded into. */
static void remove_recording(const char *dir)
{
	char path[PATH_MAX + 256];
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (unlink(path))
			warnmsg("%s: %s", path, strerror(errno));
	}
	if (d)
		closedir(d);
	if (rmdir(dir))
		warnmsg("%s: %s", dir, strerror(errno));
}

/*
 * A live picture: count intervals (until a signal without one) recorded
 * into a directory under $TMPDIR, that recording drawn as --replay
 * draws one, the directory removed.
 */
int picture_live(struct options *o, const char *allpath,
		 const char *callspath, volatile sig_atomic_t *stop)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];
	int rc;

	snprintf(dir, sizeof(dir), "%s/tsa-prstat.XXXXXX", tmp && *tmp ?
		 tmp : "/tmp");
	if (!mkdtemp(dir))
		die(EXIT_BADDATA, "%s: %s", dir, strerror(errno));
	o->record = dir;
	/* count intervals are count + 1 reads; the first begins them. */
	if (o->count > 0)
		o->count++;
	record_loop(o, allpath, callspath, stop);
	o->record = NULL;
	o->replay = dir;
	rc = replay_recording(o);
	remove_recording(dir);
	return rc;
}
