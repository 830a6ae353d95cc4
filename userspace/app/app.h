/* SPDX-License-Identifier: GPL-2.0 */
/*
 * app/: what its files share. main.c: main() and the signals, on top;
 * live.c: the loops and the reporter every mode uses, below all; wake.c:
 * -w; recorder.c: --record and --replay; files.c: --save, --compare and
 * the metrics; redraw.c: the keys; pictures.c: --folded, --svg and
 * --perfetto, over intervals.c: a recording's window interval by
 * interval. Nothing below app/ includes this.
 */
#ifndef TSA_APP_H
#define TSA_APP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "all.h"
#include "calls.h"
#include "group.h"
#include "wakeups.h"
#include "dist.h"
#include "hist.h"
#include "options.h"

/* Set by SIGINT and SIGTERM (live.c; main.c's handler): every loop ends at it. */
extern volatile sig_atomic_t stop;

/* What a key asks of the loop: nothing more, a report now, the end. */
enum { ACT_WAIT, ACT_READ, ACT_QUIT };

/* What one report needs from one interval to the next. */
struct reporter {
	struct tsa_delta *lines;
	struct tsa_call_line *clines;
	size_t cap, ccap;
	struct group_report groups;
	struct group_report users;	/* -a: the users' lines */
	struct tsa_wakers_report wakers;	/* -w in a replay */
	struct hist_report hist;		/* -H in a replay */
	const struct tsa_hist_snap *hprev, *hcur;	/* its snapshots */
	struct tsa_select sel;
	int redraw;
	int tty;	/* stdout is a terminal: a person reads it */
	int csv_head;	/* --csv: its header line is out */
	uint64_t *upids;	/* -u, -U: their processes in this report */
	size_t ucap;
};

/* The last report's inputs: a key draws it again from them. */
struct shown {
	const struct tsa_snap *prev, *cur;
	const struct tsa_calls_snap *cprev, *ccur;
	double la[3];
	int paused;
	char note[96];		/* on the status line, NOTE_SECS at least */
	double note_until;	/* CLOCK_MONOTONIC s; 0: not shown yet */
};

/* live.c */
void check_pids(const struct options *o, const struct tsa_snap *s);
void fail_read(int rc, const char *path, const char *msg);
void fail_read_kept(int rc, const char *path, const char *msg,
		    const char *param, const char *opt);
size_t lines_shown(const struct options *o, size_t n, int redraw);
void reporter_free(struct reporter *rp, struct options *o);
void reporter_init(struct reporter *rp, const struct options *o,
		   int redraw);
void report(struct reporter *rp, const struct options *o,
	    const struct tsa_snap *prev, const struct tsa_snap *cur,
	    const struct tsa_calls_snap *cprev,
	    const struct tsa_calls_snap *ccur, const double la[3]);
void each_interval(const struct options *o,
		   volatile sig_atomic_t *stop,
		   void (*report)(void *ctx),
		   int (*key)(void *ctx, int k), void *ctx);
int redraws(const struct options *o);
long screen_lines(void);
/* -d: the time @t before a report (nothing without -d). */
void print_stamp(const struct options *o, time_t t);
/* The redraw mode's stdout: its lines cut at the terminal's width. */
void cut_at_width(void);
void fail_read_calls(int rc, const char *path, const char *msg);
const struct tsa_snap *read_names(const struct options *o,
				  struct tsa_snap snaps[2], int *k);
/*
 * -u, -U: the pids of @cur's processes whose uid both lists (and -p)
 * take, into *@buf (grown, *@cap); none: one pid no process has.
 */
size_t user_pids(const struct options *o, const struct tsa_snap *cur,
		 uint64_t **buf, size_t *cap);
int hist_run(const struct options *o, volatile sig_atomic_t *stop);
void sleep_until(struct timespec *deadline, double interval);

/* wake.c */
void wakers_show(const struct options *o, struct tsa_wakers_report *r,
		 const struct tsa_wakers_snap *prev,
		 const struct tsa_wakers_snap *cur,
		 const struct tsa_wnames *nm);
int wakers_run(const struct options *o, volatile sig_atomic_t *stop);

/* recorder.c */
int record_loop(const struct options *o, const char *allpath,
		const char *callspath, volatile sig_atomic_t *stop);
int replay_recording(struct options *o);

/*
 * pictures.c: a window's two ends, with their calls and wakers when the
 * source has them (else NULL), the cgroups it recorded (or NULL) and
 * its name for messages.
 */
struct window {
	const struct tsa_snap *a, *b;
	const struct tsa_calls_snap *ca, *cb;
	const struct tsa_wakers_snap *wa, *wb;
	struct cgroup_cache *cc;
	const char *src;
	/*
	 * A recording's window: its directory (NULL: a compare's, one
	 * interval from a to b) and how many intervals it has from a to
	 * b, each two blocks of one boot, a's wall clock to b's.
	 */
	const char *dir;
	size_t nint;
	/* a compare's distributions (captures of version 2, 3), or NULL */
	const struct tsa_hist_snap *ha, *hb;
};

void picture_window(const struct options *o, const struct window *w);

/*
 * intervals.c: a recording's window interval by interval. An interval's
 * two blocks, and their distributions, calls and wakers when both
 * have them and they were asked for (else NULL).
 */
struct interval {
	const struct tsa_snap *p, *c;
	const struct tsa_hist_snap *hp, *hc;
	const struct tsa_calls_snap *cp, *cc;
	const struct tsa_wakers_snap *wp, *wc;
	struct cgroup_cache *cgroups;	/* with WALK_GROUPS: c's */
};

enum { WALK_GROUPS = 1, WALK_HIST = 2, WALK_CALLS = 4, WALK_WAKERS = 8 };

/* A block's wall clock, in seconds. */
static inline double wall_s(const struct timespec *t)
{
	return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

/* @step for each interval of w's recording from w->a to w->b. */
void walk_intervals(const struct window *w, int want,
		    void (*step)(void *ctx, const struct interval *iv),
		    void *ctx);

/* A system call of a line that ended: summed over its intervals. */
struct ended_call {
	char *name;
	int other;
	struct tsa_cvec d;
	long next;		/* the line's next call, or -1 */
};

/*
 * A thread (-L) or process seen in a window's intervals but not at its
 * end: its time summed over the intervals it was seen in (d.now NULL,
 * d.comm its own name below), its names as its last block had them.
 */
struct ended_line {
	struct tsa_delta d;
	char pname[64], tname[64];
	long calls;		/* its first call in ended.c[], or -1 */
	int seen;
};

struct ended {
	struct ended_line *l;
	size_t n, cap;
	struct ended_call *c;
	size_t nc, ccap;
};

/*
 * The lines of w's recording (not groups) that @sel selects and that
 * ended inside the window: those of its intervals not among @d[0..n),
 * the window's own.
 */
void ended_lines(const struct window *w, const struct tsa_select *sel,
		 const struct tsa_delta *d, size_t n, struct ended *e);
/* The ended line a copy @d of one of e's is, or NULL: not one. */
const struct ended_line *ended_find(const struct ended *e,
				    const struct tsa_delta *d);
void ended_free(struct ended *e);
int picture_live(struct options *o, const char *allpath,
		 const char *callspath, volatile sig_atomic_t *stop);

/* files.c */
int compare_captures(const struct options *o);
int export_metrics(const struct options *o, const char *path);
int save_capture(const struct options *o, const char *path);

/* redraw.c */
int on_key(int k, struct options *o, struct reporter *rp,
	   struct shown *sh);
void set_view(struct options *o, enum view v);
void status_line(const struct options *o, struct shown *sh);

#endif
