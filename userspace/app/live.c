// SPDX-License-Identifier: GPL-2.0
/*
 * app/live.c - what the modes share: the interval loop, the terminal's
 * size, a read that failed, and the reporter (one report of the main
 * views from two reads); -H's loop. Below every mode file of app/.
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
#include "cols.h"
#include "json.h"
#include "sort.h"
#include "table.h"
#include "keys.h"
#include "app.h"

/* Set by SIGINT and SIGTERM (main.c's handler). */
volatile sig_atomic_t stop;

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

/*
 * The redrawn screen's lines cut at the terminal's width, as top cuts
 * them: stdout becomes a stream that drops what runs past the last
 * column (escape sequences take none, a UTF-8 character one), so that
 * a narrow terminal never wraps a row and scrolls the header off.  The
 * width is read at each write: a resize applies to the next report.
 * Reports printed one below another (-c, a pipe, a file) keep every
 * byte: a terminal's scrollback loses nothing to a wrapped line.
 */
struct cut {
	int fd;
	long col;	/* the cursor's column, from 0 */
	int esc;	/* in an escape sequence: 1 after ESC, 2 in CSI */
	int dropped;	/* the last character was past the width */
	long arg[2];	/* a CSI's first two numbers: ESC [ row ; col H */
	int narg;
};

static ssize_t cut_write(void *cookie, const char *buf, size_t n)
{
	struct cut *c = cookie;
	struct winsize ws;
	long width = 0;
	char *out = xmalloc(n);
	size_t i, k = 0, done = 0;

	if (ioctl(c->fd, TIOCGWINSZ, &ws) == 0)
		width = ws.ws_col;
	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)buf[i];
		int keep = 1;

		if (c->esc == 1) {
			c->esc = b == '[' ? 2 : 0;
			c->arg[0] = c->arg[1] = 0;
			c->narg = 0;
		} else if (c->esc == 2) {
			if (b >= '0' && b <= '9' && c->narg < 2)
				c->arg[c->narg] = c->arg[c->narg] * 10 +
						  (b - '0');
			else if (b == ';')
				c->narg++;
			if (b >= 0x40 && b <= 0x7e)
				c->esc = 0;
			if (b == 'H' || b == 'f') {	/* the cursor moved */
				c->col = c->arg[1] > 0 ? c->arg[1] - 1 : 0;
				c->dropped = 0;
			}
		} else if (b == 033) {
			c->esc = 1;
		} else if (b == '\n' || b == '\r') {
			c->col = 0;
			c->dropped = 0;
		} else if (b == '\b') {
			if (c->col > 0)
				c->col--;
		} else if ((b & 0xc0) == 0x80) {
			keep = !c->dropped;	/* the rest of a character */
		} else {
			c->col++;
			c->dropped = width > 0 && c->col > width;
			keep = !c->dropped;
		}
		if (keep)
			out[k++] = (char)b;
	}
	while (done < k) {
		ssize_t w = write(c->fd, out + done, k - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			free(out);
			return -1;
		}
		done += (size_t)w;
	}
	free(out);
	return (ssize_t)n;
}

void cut_at_width(void)
{
	static struct cut c = { .fd = STDOUT_FILENO };
	static const cookie_io_functions_t io = { .write = cut_write };
	FILE *f;

	if (!isatty(STDOUT_FILENO))
		return;		/* a pipe or a file: every byte */
	fflush(stdout);
	f = fopencookie(&c, "w", io);
	if (!f)
		return;
	setvbuf(f, NULL, _IOLBF, 1 << 16);	/* as a terminal's stdout */
	stdout = f;
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
void fail_read_calls(int rc, const char *path, const char *msg)
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
	char all[4096];
	const char *slash = strrchr(path, '/');

	/* No /proc/tsa/all beside it: no module at all, whatever its options. */
	snprintf(all, sizeof(all), "%.*s/all",
		 slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (rc == TSA_ENOENT && access(all, F_OK))
		fail_read(TSA_ENOENT, all, msg);
	if (rc == TSA_ENOENT)
		die(EXIT_NOMODULE, "%s: not found; the tsa module must be "
		    "loaded without %s for %s (sudo modprobe -r tsa; sudo "
		    "modprobe tsa)", path, param, opt);
	fail_read(rc, path, msg);
}

/* A view's redraw mode: on a terminal, without -c and --json. */
int redraws(const struct options *o)
{
	return isatty(STDOUT_FILENO) && !o->no_clear && !o->show.json &&
	       !o->show.csv;
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
		if (!keys && !o->show.json && !o->show.csv &&
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

/*
 * The names of a live -H or -w report: /proc/tsa/all read now into
 * @snaps[*@k] (the other one keeps the read before, for the threads
 * gone since), as the main views name them; never /proc/PID.
 */
const struct tsa_snap *read_names(const struct options *o,
				  struct tsa_snap snaps[2], int *k)
{
	char path[4096], msg[256];
	int rc;

	snprintf(path, sizeof(path), "%s/all", o->proc_dir);
	*k = !*k;
	rc = tsa_snap_read(&snaps[*k], path, msg, sizeof(msg));
	if (rc != TSA_OK)
		fail_read(rc, path, msg);
	return &snaps[*k];
}

/* -H: two snapshots of /proc/tsa/hist, the older one prev. */
struct hist_live {
	const struct options *o;
	char path[4096];
	struct tsa_hist_snap snaps[2], *prev, *cur;
	struct tsa_snap names[2];	/* /proc/tsa/all: now, and before */
	int names_k;
	uint64_t *upids;		/* -u, -U: their processes now */
	size_t ucap;
	struct hist_report r;
};

static void hist_report(void *ctx)
{
	struct hist_live *h = ctx;
	const struct options *o = h->o;
	struct show sh;
	char msg[256];
	int rc;

	rc = tsa_hist_read(h->cur, h->path, msg, sizeof(msg));
	if (rc != TSA_OK)
		fail_read_kept(rc, h->path, msg, "hist=0", "-H");
	h->r.names = read_names(o, h->names, &h->names_k);
	h->r.names_prev = h->prev ? &h->names[!h->names_k] : NULL;
	sh = o->show;
	if (o->neuids || o->nruids) {
		sh.npids = user_pids(o, h->r.names, &h->upids, &h->ucap);
		sh.pids = h->upids;
	}
	hist_report_compute(&h->r, &sh, h->prev, h->cur);
	if (!o->show.json)
		print_stamp(o, time(NULL));
	if (o->show.json)
		hist_print_json(stdout, &sh, h->cur, &h->r);
	else
		hist_print(stdout, &sh, h->cur, h->prev ?
			   (double)(h->cur->now - h->prev->now) / 1e9 : 0,
			   &h->r);
	h->prev = h->cur;
	h->cur = h->cur == &h->snaps[0] ? &h->snaps[1] : &h->snaps[0];
}

/* -H, live: until @stop or o->count reports. */
int hist_run(const struct options *o, volatile sig_atomic_t *stop)
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
	tsa_snap_free(&h->names[0]);
	tsa_snap_free(&h->names[1]);
	free(h->upids);
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

void sleep_until(struct timespec *deadline, double interval)
{
	next_deadline(deadline, interval);
	while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					deadline, NULL) == EINTR)
		;
}

/* The lines a report may have: screen_lines(), less -d's line. */
static long report_rows(const struct options *o)
{
	long rows = screen_lines();

	if (rows > 0 && o->stamp)
		rows = rows > 1 ? rows - 1 : 1;
	return rows;
}

/* At most the -n lines, or on a redrawn terminal its height. */
size_t lines_shown(const struct options *o, size_t n, int redraw)
{
	if (o->show.ntop && (size_t)o->show.ntop < n)
		n = (size_t)o->show.ntop;
	if (redraw && !o->show.ntop) {
		long rows = report_rows(o);

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

/* --csv: the header once, then the lines of every report (view/cols.c). */
static void csv_print(struct reporter *rp, const struct show *sh,
		      const struct tsa_snap *cur,
		      const struct tsa_calls_snap *ccur, size_t n)
{
	struct colset set;
	size_t i;

	col_set_of(sh, &set);
	if (!rp->csv_head) {
		col_csv_header(stdout, &set, sh->lwps);
		rp->csv_head = 1;
	}
	for (i = 0; i < n; i++) {
		const struct tsa_delta *d;

		if (sh->group_by <= GROUP_PID && sh->view == VIEW_CALLS) {
			col_csv_call(stdout, &set, &ccur->wall,
				     &rp->clines[i]);
			continue;
		}
		if (sh->group_by <= GROUP_PID) {
			col_csv_line(stdout, &set, &cur->wall, &rp->lines[i]);
			continue;
		}
		d = &rp->groups.d[i];
		col_csv_group(stdout, &set, &cur->wall,
			      (enum group_by)sh->group_by,
			      &rp->groups.t.g[d->id], d);
	}
}

void print_stamp(const struct options *o, time_t t)
{
	char b[64];
	struct tm tm;

	if (o->stamp == 'u') {
		printf("%lld\n", (long long)t);
	} else if (o->stamp == 'd') {
		/* date(1)'s default, as prstat -d d prints it. */
		localtime_r(&t, &tm);
		strftime(b, sizeof(b), "%a %b %e %H:%M:%S %Z %Y", &tm);
		printf("%s\n", b);
	}
}

static int uid_in(const uint64_t *uids, size_t n, uint64_t uid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (uids[i] == uid)
			return 1;
	return !n;
}

/*
 * -u, -U: the processes of @cur whose uid is in both lists (and -p's),
 * as the pids this report selects; none: a pid no process has.
 */
size_t user_pids(const struct options *o, const struct tsa_snap *cur,
		 uint64_t **buf, size_t *cap)
{
	size_t i, n = 0;

	if (*cap < cur->nprocs + 1) {
		*cap = cur->nprocs + 1;
		*buf = xrealloc(*buf, *cap * sizeof(uint64_t));
	}
	for (i = 0; i < cur->nprocs; i++) {
		const struct tsa_proc *p = &cur->procs[i];
		uint64_t pid = p->agg.v[F_PID], uid = p->agg.v[F_UID];

		if (p->nlwp &&
		    tsa_pid_selected(o->show.pids, o->show.npids, pid) &&
		    uid_in(o->euids, o->neuids, uid) &&
		    uid_in(o->ruids, o->nruids, uid))
			(*buf)[n++] = pid;
	}
	if (!n)
		(*buf)[n++] = UINT64_MAX;
	return n;
}

static void select_users(struct reporter *rp, const struct options *o,
			 const struct tsa_snap *cur)
{
	if (!o->neuids && !o->nruids)
		return;
	rp->sel.npids = user_pids(o, cur, &rp->upids, &rp->ucap);
	rp->sel.pids = rp->upids;
}

/*
 * -a: @text, a report's table, then the users' lines, then its last
 * line (Total), as prstat -a prints them.
 */
static void print_with_users(const char *text, size_t len,
			     const struct options *o, struct reporter *rp,
			     size_t nusers)
{
	const char *total = text + len;

	while (total > text && total[-1] == '\n')
		total--;
	while (total > text && total[-1] != '\n')
		total--;
	fwrite(text, 1, (size_t)(total - text), stdout);
	group_lines_print(stdout, &o->show, GROUP_USER, &rp->users,
			  rp->users.d, nusers, 0);
	fputs(total, stdout);
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
	int users = o->users && !grouped && !calls;	/* -a */
	struct tsa_totals tot, utot;
	size_t n, show, nusers = 0;
	char *text = NULL;
	size_t tlen = 0;
	FILE *out = stdout;

	select_users(rp, o, cur);
	if (users) {
		nusers = group_report_compute(&rp->users, prev, cur,
					      GROUP_USER, &rp->sel,
					      "/nonexistent", &utot);
		sort_lines(rp->users.d, nusers, sh->sort_key, sh->sort_order);
		if (o->nbottom && (size_t)o->nbottom < nusers)
			nusers = (size_t)o->nbottom;
	}
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
	if (users && rp->redraw && !sh->ntop && report_rows(o) > 0) {
		/* The users' lines and their header take the screen first. */
		long room = report_rows(o) - (long)nusers - 1;

		if (room < 1)
			room = 1;
		if ((size_t)room < show)
			show = (size_t)room;
	}
	/*
	 * An uncalibrated module is said in the Total line to a person;
	 * a pipe keeps the line scripts parse as Solaris prints it (and
	 * --json has "calibration").
	 */
	if (!rp->tty)
		tot.calib = NULL;

	if (sh->csv) {
		csv_print(rp, sh, cur, ccur, show);
	} else if (sh->json) {
		if (grouped)
			json_print_groups(stdout, (enum group_by)sh->group_by,
					  cur, &rp->groups, rp->groups.d, show);
		else if (calls)
			json_print_calls(stdout, sh, ccur, rp->clines, show);
		else
			json_print(stdout, sh, cur, rp->lines, show);
		if (users)
			json_print_groups(stdout, GROUP_USER, cur, &rp->users,
					  rp->users.d, nusers);
	} else {
		if (rp->redraw)
			fputs("\033[H\033[J", stdout);
		print_stamp(o, cur->wall.tv_sec);
		if (users)
			out = open_memstream(&text, &tlen);
		if (!out)
			die(EXIT_BADDATA, "out of memory");
		if (grouped)
			group_table_print(stdout, sh,
					  (enum group_by)sh->group_by,
					  &rp->groups, rp->groups.d, show,
					  &tot, la);
		else if (calls)
			calls_table_print(stdout, sh, rp->clines, show, &tot,
					  la, sh->trunc || rp->redraw);
		else
			table_print(out, sh, rp->lines, show, &tot, la,
				    sh->trunc || rp->redraw);
		if (users) {
			if (fclose(out))
				die(EXIT_BADDATA, "out of memory");
			print_with_users(text, tlen, o, rp, nusers);
			free(text);
		}
	}
	if (fflush(stdout) == EOF || ferror(stdout))
		die(EXIT_BADDATA, "write error: %s", strerror(errno));
}

void reporter_free(struct reporter *rp, struct options *o)
{
	free(rp->lines);
	free(rp->clines);
	group_report_free(&rp->groups);
	group_report_free(&rp->users);
	free(rp->upids);
	free(o->euids);
	free(o->ruids);
	tsa_wakers_report_free(&rp->wakers);
	hist_report_free(&rp->hist);
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
