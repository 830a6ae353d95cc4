// SPDX-License-Identifier: GPL-2.0
/*
 * app/wake.c - tsa-prstat -w: who woke each thread, a report an interval,
 * and on a terminal the keys that follow a thread up its chain of wakers.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "keys.h"
#include "app.h"

/*
 * One wakers report (-w) of @cur over the interval since @prev (NULL:
 * each thread's life), its names and groups from @nm: a table, JSON
 * lines, or --chain.
 */
void wakers_show(const struct options *o, struct tsa_wakers_report *r,
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
	struct tsa_snap names[2];	/* /proc/tsa/all: now, and before */
	int names_k;
	uint64_t *upids;		/* -u, -U: their processes now */
	size_t nupids, ucap;
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

	if (w->nupids) {	/* -u, -U: their processes */
		o.show.pids = w->upids;
		o.show.npids = w->nupids;
	}
	long rows = w->redraw ? screen_lines() - (w->o->stamp != 0) : 0;
	int i;

	/* On a redrawn screen, as many threads as fit (a few lines each). */
	if (rows > 0 && !o.show.ntop)
		o.show.ntop = rows > 12 ? (int)(rows - 4) / 4 : 2;
	one = o.show;
	if (w->redraw)
		fputs("\033[H\033[J", stdout);
	print_stamp(w->o, time(NULL));
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

/* Does @s have a line of thread @tid (every thread has one, "none")? */
static int has_thread(const struct tsa_wakers_snap *s, uint64_t tid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->l[i].tid == tid)
			return 1;
	return 0;
}

static void wakers_report(void *ctx)
{
	struct wakers_live *w = ctx;
	char msg[256];
	int rc;

	rc = tsa_wakers_read(w->cur, w->path, msg, sizeof(msg));
	if (rc != TSA_OK)
		fail_read_kept(rc, w->path, msg, "wakers=0",
			       w->o->chain ? "--chain" : "-w");
	if (w->o->chain && !has_thread(w->cur, w->o->chain))
		die(EXIT_NOPID, "no such thread: %llu",
		    (unsigned long long)w->o->chain);
	w->nm.snap = read_names(w->o, w->names, &w->names_k);
	w->nm.prev = w->prev ? &w->names[!w->names_k] : NULL;
	if (w->o->neuids || w->o->nruids)
		w->nupids = user_pids(w->o, w->nm.snap, &w->upids, &w->ucap);
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
			   w->nupids ? w->upids : o->show.pids,
			   w->nupids ? w->nupids : o->show.npids);
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
int wakers_run(const struct options *o, volatile sig_atomic_t *stop)
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
	tsa_snap_free(&w->names[0]);
	tsa_snap_free(&w->names[1]);
	free(w->upids);
	free(w);
	return 0;
}
