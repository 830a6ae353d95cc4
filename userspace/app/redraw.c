// SPDX-License-Identifier: GPL-2.0
/*
 * app/redraw.c - the redraw mode's keys: a key changes the view, the
 * sort or the filter and draws the last report again from its inputs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "sort.h"
#include "keys.h"
#include "app.h"

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
void status_line(const struct options *o, struct shown *sh)
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
void set_view(struct options *o, enum view v)
{
	int k = sort_key_lookup(sort_key_name(o->show.sort_key), v, NULL, 0);

	o->show.view = v;
	o->show.sort_key = k >= 0 ? k : sort_default_key(v);
	if (v == VIEW_CALLS && o->show.group_by > GROUP_PID)
		o->show.group_by = -1;	/* groups have no call lines */
}

/* Act on key @k; ACT_READ: a report is due now (its data is not read). */
int on_key(int k, struct options *o, struct reporter *rp,
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
