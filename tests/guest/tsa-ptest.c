// SPDX-License-Identifier: GPL-2.0
/*
 * tsa-ptest: guest-side helper of the issue-5 tests, "tsa-prstat and the
 * interfaces it reads" (driven by prstat-tests.sh inside a QEMU guest with
 * tsa.ko loaded). TAP on stdout; numbering starts at --first.
 *
 *   tsa-ptest [--first N] prstat PRSTAT   workloads vs tsa-prstat -mL/-A/--json
 *   tsa-ptest [--first N] exits PRSTAT    process totals while threads exit
 *   tsa-ptest [--first N] names PRSTAT    thread names with a newline, a backslash
 *   tsa-ptest [--first N] storm           process sums while threads exit fast
 *   tsa-ptest [--first N] stalefd         fd of an exited thread's file
 *   tsa-ptest [--first N] badwrite        writes to /proc/tsa files
 *
 * Small tools for the shell part (no TAP):
 *   tsa-ptest hold [nodump]   two-thread process; prints "PID TID2 SELF" (SELF:
 *                             can it read its own files) and sleeps until killed
 *   tsa-ptest open TID...     prints OK, or the errno name of open/read, per TID
 *   tsa-ptest all             prints "self PID", then "tid pid uid flags" for
 *                             every line of /proc/tsa/all
 *   tsa-ptest churn N         N threads made and joined, 100 at a time
 *   tsa-ptest lockwait        a thread waits for a mutex its sibling holds
 *                             asleep, until killed (LCK); prints "ready"
 *   tsa-ptest holdfd          opens /proc/tsa/all and its own file, prints
 *                             READY, waits for a line on stdin, reads both
 *                             and prints the errno names ("all=EIO self=EIO")
 *   tsa-ptest execwait FIFO PROG  prints its pid, waits for a byte on FIFO,
 *                             execs PROG sleep
 *   tsa-ptest reread PID FIFO opens and reads /proc/tsa/PID, writes FIFO, waits
 *                             for PID's euid 0, reads the same descriptor:
 *                             "before=OK after=EACCES euid=0"
 *   tsa-ptest fdhog N         opens /proc/tsa/all N times (one byte read from
 *                             each; "progress K" every 20), prints "opened K
 *                             ERRNO", waits for a line
 *   tsa-ptest sleep           sleeps until killed
 *
 * How tsa-prstat's numbers are checked against the kernel's. Every value
 * in /proc/tsa is a lifetime, nondecreasing count. The JSON output gives
 * the lifetime values at each snapshot ("total_ns", "total", ...), so if
 * /proc/tsa/<tid> is read at A (before tsa-prstat starts), C (after its
 * first report arrived) and B (after the second), then for every state,
 * counter and the elapsed time, exactly: A <= report1 <= C and
 * report1 <= report2 <= B, and the interval values must be report2 -
 * report1. No tolerance is needed there. The tables round their numbers
 * and give no lifetime values, so they are compared with the percentages
 * the reads A..B and C..B imply (the same steady workloads over intervals
 * that differ from tsa-prstat's by its start-up and by reaction times),
 * with a tolerance (TOL_PCT) and, for counts, exact upper bounds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tsa-read.h"

static const char *prstat_path;





static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}


static const char *errname(int e)
{
	switch (e) {
	case 0: return "OK";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EIO: return "EIO";
	case EINVAL: return "EINVAL";
	case EBADF: return "EBADF";
	case EPROTO: return "EPROTO";
	case ENODEV: return "ENODEV";
	case ENOMEM: return "ENOMEM";
	case EMFILE: return "EMFILE";
	case EAGAIN: return "EAGAIN";
	default: return strerror(e);
	}
}

/* --- running tsa-prstat ---------------------------------------------- */

struct child {
	pid_t pid;
	int fd;
	char buf[1 << 20];
	size_t len;
	int eof;
};

static int child_start(struct child *c, char *const argv[])
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -1;
	c->len = 0;
	c->eof = 0;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		dup2(p[1], 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	c->fd = p[0];
	return 0;
}

/* The next line of the child's stdout (static buffer), NULL on EOF or
 * after timeout_ms without one. */
static char *child_line(struct child *c, int timeout_ms)
{
	static char line[65536];
	double end = mono_s() + timeout_ms / 1000.0;

	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);

		if (nl) {
			size_t n = (size_t)(nl - c->buf);

			if (n >= sizeof(line))
				n = sizeof(line) - 1;
			memcpy(line, c->buf, n);
			line[n] = 0;
			memmove(c->buf, nl + 1, c->len - (size_t)(nl - c->buf) - 1);
			c->len -= (size_t)(nl - c->buf) + 1;
			return line;
		}
		if (c->eof)
			return NULL;
		double left = end - mono_s();
		if (left <= 0)
			return NULL;
		struct pollfd pfd = { c->fd, POLLIN, 0 };
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		ssize_t r = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len - 1);
		if (r <= 0)
			c->eof = 1;
		else
			c->len += (size_t)r;
	}
}

static int child_finish(struct child *c)
{
	int st = 0;

	close(c->fd);
	if (waitpid(c->pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* --- a minimal reader of tsa-prstat's JSON lines ---------------------- */

struct jline {
	int ok;
	uint64_t now, at, pid, tid, nlwp, uid;
	double ts;
	int first;
	uint64_t elapsed, tot_elapsed;
	uint64_t ns[TSA_NSTATES], tot[TSA_NSTATES], n[TSA_NSTATES];
	double pct[TSA_NSTATES];
	uint64_t cdelta[TSA_NCOUNTERS], ctot[TSA_NCOUNTERS];
	double sol[8], tsa[7];
};

static const char *const sol_name[8] = {
	"USR", "SYS", "TRP", "TFL", "DFL", "LCK", "SLP", "LAT",
};
static const char *const tsav_name[7] = {
	"EXEC", "RUN", "APG", "SLP", "LCK", "IDL", "STP",
};

/* Position just after "key": at or after s, NULL if absent. */
static const char *jkey(const char *s, const char *key)
{
	char pat[64];
	const char *p;

	if (!s)
		return NULL;
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(s, pat);
	return p ? p + strlen(pat) : NULL;
}

static int ju64(const char *s, const char *key, uint64_t *v)
{
	const char *p = jkey(s, key);
	char *e;

	if (!p)
		return -1;
	*v = strtoull(p, &e, 10);
	return e == p ? -1 : 0;
}

static int jdbl(const char *s, const char *key, double *v)
{
	const char *p = jkey(s, key);
	char *e;

	if (!p)
		return -1;
	*v = strtod(p, &e);
	return e == p ? -1 : 0;
}

static int jparse(const char *s, struct jline *j)
{
	const char *st, *o;
	int bad = 0, i;

	memset(j, 0, sizeof(*j));
	bad |= jdbl(s, "ts", &j->ts);
	bad |= ju64(s, "now", &j->now);
	bad |= ju64(s, "at", &j->at);
	bad |= ju64(s, "pid", &j->pid);
	if (ju64(s, "tid", &j->tid))
		bad |= ju64(s, "nlwp", &j->nlwp);
	bad |= ju64(s, "uid", &j->uid);
	o = jkey(s, "first");
	if (!o)
		bad = 1;
	else
		j->first = !strncmp(o, "true", 4);
	bad |= ju64(s, "elapsed_ns", &j->elapsed);
	bad |= ju64(s, "total_elapsed_ns", &j->tot_elapsed);
	st = jkey(s, "states");
	for (i = 0; i < TSA_NSTATES && !bad; i++) {
		o = jkey(st, tsa_state_name(i));
		bad |= ju64(o, "ns", &j->ns[i]) | jdbl(o, "pct", &j->pct[i]) |
		       ju64(o, "total_ns", &j->tot[i]) | ju64(o, "count", &j->n[i]);
	}
	st = jkey(s, "counters");
	for (i = 0; i < TSA_NCOUNTERS && !bad; i++) {
		o = jkey(st, tsa_counter_names[i]);
		bad |= ju64(o, "delta", &j->cdelta[i]) |
		       ju64(o, "total", &j->ctot[i]);
	}
	st = jkey(s, "solaris");
	for (i = 0; i < 8 && !bad; i++)
		bad |= jdbl(st, sol_name[i], &j->sol[i]);
	st = jkey(s, "tsa");
	for (i = 0; i < 7 && !bad; i++)
		bad |= jdbl(st, tsav_name[i], &j->tsa[i]);
	j->ok = !bad;
	return bad ? -1 : 0;
}

/* The columns of each view, folded from the fourteen states. */
static void fold_sol(const uint64_t *s, uint64_t out[8])
{
	out[0] = s[TSA_USR];
	out[1] = s[TSA_SYS];
	out[2] = s[TSA_TRP];
	out[3] = s[TSA_TFL];
	out[4] = s[TSA_DFL] + s[TSA_APG];
	out[5] = s[TSA_LCK];
	out[6] = s[TSA_SLP] + s[TSA_KLK] + s[TSA_IOW] + s[TSA_IDL];
	out[7] = s[TSA_LAT];
}

static void fold_tsa(const uint64_t *s, uint64_t out[7])
{
	out[0] = s[TSA_USR] + s[TSA_SYS] + s[TSA_TRP];
	out[1] = s[TSA_LAT];
	out[2] = s[TSA_APG];
	out[3] = s[TSA_TFL] + s[TSA_DFL] + s[TSA_KFL] + s[TSA_IOW] + s[TSA_SLP];
	out[4] = s[TSA_LCK] + s[TSA_KLK];
	out[5] = s[TSA_IDL];
	out[6] = s[TSA_STP];
}

/*
 * /proc/tsa/all into struct tsa_all, by the names of the fields line.
 * tsa-read.c's tsa_read_all() does the same but costs ~80 ms a call
 * under TCG (string work per field and line); this one maps the columns
 * once, so that the exits test can sample the file every few ms.
 */
enum { C_SKIP = -1, C_TID = 1000, C_PID, C_FLAGS, C_ELAPSED, C_STATE, C_AT };

static int fast_read_all(struct tsa_all *all)
{
	static char *buf;
	static size_t cap;
	int col[512], ncol = 0, fd;
	size_t n = 0, tcap = 256;
	ssize_t r;
	char *p, *end;

	memset(all, 0, sizeof(*all));
	if (!buf) {
		cap = 1 << 20;
		buf = malloc(cap);
	}
	fd = open("/proc/tsa/all", O_RDONLY);
	if (fd < 0)
		return -1;
	while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
		n += (size_t)r;
		if (cap - n < 65536) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
	}
	close(fd);
	buf[n] = 0;
	if (strncmp(buf, "tsa-all 1\n", 10)) {
		errno = EPROTO;
		return -1;
	}
	all->t = calloc(tcap, sizeof(*all->t));
	for (p = buf; p < buf + n; p = end + 1) {
		end = strchr(p, '\n');
		if (!end)
			end = buf + n;
		*end = 0;
		if (!strncmp(p, "now ", 4)) {
			all->now = strtoull(p + 4, NULL, 10);
		} else if (!strncmp(p, "fields ", 7)) {
			char *f = p + 7, *e;

			for (; *f && ncol < 512; f = *e ? e + 1 : e) {
				char name[32];
				int c = C_SKIP;

				e = strchr(f, ' ');
				if (!e)
					e = f + strlen(f);
				snprintf(name, sizeof(name), "%.*s", (int)(e - f), f);
				if (!strcmp(name, "tid")) c = C_TID;
				else if (!strcmp(name, "pid")) c = C_PID;
				else if (!strcmp(name, "flags")) c = C_FLAGS;
				else if (!strcmp(name, "elapsed")) c = C_ELAPSED;
				else if (!strcmp(name, "state")) c = C_STATE;
				else if (!strcmp(name, "at")) c = C_AT;
				for (int s = 0; s < TSA_NSTATES; s++) {
					char k[16], u[4];

					for (int i = 0; i < 3; i++)
						u[i] = (char)(tsa_state_name(s)[i] | 0x20);
					u[3] = 0;
					snprintf(k, sizeof(k), "%s_ns", u);
					if (!strcmp(name, k)) c = s;
					snprintf(k, sizeof(k), "%s_n", u);
					if (!strcmp(name, k)) c = 100 + s;
					snprintf(k, sizeof(k), "%s_max", u);
					if (!strcmp(name, k)) c = 200 + s;
				}
				for (int s = 0; s < TSA_NCOUNTERS; s++)
					if (!strcasecmp(name, tsa_counter_names[s]))
						c = 300 + s;
				if (!strcmp(name, "comm"))
					break;
				col[ncol++] = c;
			}
		} else if (ncol && *p >= '0' && *p <= '9') {
			struct tsa_thread *t;
			char *q = p;

			if (all->n == tcap) {
				tcap *= 2;
				all->t = realloc(all->t, tcap * sizeof(*all->t));
			}
			t = &all->t[all->n++];
			memset(t, 0, sizeof(*t));
			t->at = all->now;	/* modules without the column */
			for (int i = 0; i < ncol; i++) {
				uint64_t v = strtoull(q, &q, 10);
				int c = col[i];

				if (*q == ' ')
					q++;
				if (c == C_SKIP) continue;
				else if (c == C_TID) t->tid = (pid_t)v;
				else if (c == C_PID) t->pid = (pid_t)v;
				else if (c == C_FLAGS) t->flags = (uint32_t)v;
				else if (c == C_ELAPSED) t->elapsed = v;
				else if (c == C_STATE) t->state = (int)v;
				else if (c == C_AT) t->at = v;
				else if (c < 100) t->ns[c] = v;
				else if (c < 200) t->entries[c - 100] = v;
				else if (c < 300) t->longest[c - 200] = v;
				else t->counters[c - 300] = v;
			}
			snprintf(t->comm, sizeof(t->comm), "%s", q);
		}
	}
	return 0;
}

/* --- 1. the workloads and tsa-prstat ---------------------------------- */

enum { W_SPIN0, W_SPIN1, W_SLEEP, W_SCL, W_LOCK, W_MAIN, NW };
static const char *const wname[NW] = {
	"spin0", "spin1", "sleeper", "getppid", "locker", "main",
};
static pid_t wtid[NW];
static atomic_int w_stop, w_ready;
static atomic_int burst_done;
static int burst_pipe[2];
static pthread_mutex_t lck_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Calls the getppid thread makes per burst: below 1000 so that the
 * table prints the count exactly rather than as "1K". */
#define BURST 500
/*
 * Table vs /proc/tsa: the reads A..B span tsa-prstat's interval plus its
 * start-up (exec, first read: ~0.1-0.3 s under TCG), C..B its interval
 * shifted by our reaction time. For the steady workloads below the
 * percentage over those windows differs from tsa-prstat's by a few
 * points at most (the pinned spinners share a CPU in ~6 ms slices, so
 * over ~1 s their split moves by ~1-3 points); plus 0.5 of rounding.
 */
#define TOL_PCT 6.0

static void *w_spin(void *arg)
{
	long i = (long)arg;

	pin(0);
	wtid[i] = gettid_();
	pthread_setname_np(pthread_self(), wname[i]);
	atomic_fetch_add(&w_ready, 1);
	while (!atomic_load_explicit(&w_stop, memory_order_relaxed))
		;
	return NULL;
}

static void *w_sleep(void *arg)
{
	(void)arg;
	pin(1);
	wtid[W_SLEEP] = gettid_();
	pthread_setname_np(pthread_self(), wname[W_SLEEP]);
	atomic_fetch_add(&w_ready, 1);
	while (!atomic_load(&w_stop))
		sleep_ms(1000);
	return NULL;
}

/* Blocks in read(2) on a pipe (IDL); each byte starts a burst of BURST
 * getppid calls and nothing else: SCL grows by BURST + 1 (the next read). */
static void *w_scl(void *arg)
{
	char c;

	(void)arg;
	pin(1);
	wtid[W_SCL] = gettid_();
	pthread_setname_np(pthread_self(), wname[W_SCL]);
	atomic_fetch_add(&w_ready, 1);
	while (read(burst_pipe[0], &c, 1) == 1 && c != 'q') {
		for (int i = 0; i < BURST; i++)
			syscall(SYS_getppid);
		atomic_fetch_add(&burst_done, 1);
	}
	return NULL;
}

static void *w_lock(void *arg)
{
	(void)arg;
	pin(1);
	wtid[W_LOCK] = gettid_();
	pthread_setname_np(pthread_self(), wname[W_LOCK]);
	atomic_fetch_add(&w_ready, 1);
	pthread_mutex_lock(&lck_mutex);	/* held by main: LCK */
	pthread_mutex_unlock(&lck_mutex);
	return NULL;
}

struct wsnap {
	struct tsa_thread t[NW];
	int err[NW];
};

static void wsnap(struct wsnap *s)
{
	for (int i = 0; i < NW; i++)
		s->err[i] = tsa_read_thread(wtid[i], &s->t[i]) ? errno : 0;
}

static int wsnap_ok(const struct wsnap *s, const char *what)
{
	for (int i = 0; i < NW; i++)
		if (s->err[i]) {
			tap(0, "%s: read /proc/tsa/%d (%s): %s", what, wtid[i],
			    wname[i], strerror(s->err[i]));
			return 0;
		}
	return 1;
}

static int wfind(pid_t tid)
{
	for (int i = 0; i < NW; i++)
		if (wtid[i] == tid)
			return i;
	return -1;
}

/* Trigger one getppid burst and wait for it (up to 5 s). */
static int burst(void)
{
	int before = atomic_load(&burst_done);
	double end = mono_s() + 5;

	if (write(burst_pipe[1], "b", 1) != 1)
		return -1;
	while (atomic_load(&burst_done) == before && mono_s() < end)
		sleep_ms(2);
	return atomic_load(&burst_done) == before ? -1 : 0;
}

/* Percentage of view column col between two reads. */
static double col_pct(int tsa_view, const struct tsa_thread *x,
		      const struct tsa_thread *y, int col)
{
	uint64_t d[TSA_NSTATES], f[8];

	for (int s = 0; s < TSA_NSTATES; s++)
		d[s] = y->ns[s] - x->ns[s];
	if (tsa_view)
		fold_tsa(d, f);
	else
		fold_sol(d, f);
	return pct(f[col], y->elapsed - x->elapsed);
}

/* Expectations on the known workloads, from interval percentages
 * (columns of the Solaris view, or of the TSA view) and the SCL count.
 * Returns NULL or a description of what is wrong. */
static const char *expect_workload(int w, int tsa_view, const double *c,
				   long scl, char *why, size_t len)
{
	/*
	 * Two spinners pinned to one CPU: CFS gives each ~50 % over 1 s;
	 * [38,62] leaves room for the other work on CPU 0 (kworkers, the
	 * module's work item, timer interrupts that TCG makes long) while
	 * still telling a fair share from an unfair one or from no LAT.
	 * A 1-s sleeper is on a CPU for microseconds a second natively;
	 * under TCG its wakeup (on CPU 1, shared with tsa-prstat and us)
	 * has been seen to take 3.6 % on CPU and 6.4 % in LAT: SLP >= 90. The locker
	 * never wakes: LCK 100 (>= 99 allows the rounding). The getppid
	 * thread waits in a pipe read (IDL, folded into SLP in the Solaris
	 * view) apart from its short burst.
	 */
	double usr = tsa_view ? c[0] : c[0] + c[1] + c[2];
	double lat = tsa_view ? c[1] : c[7];
	double slp = tsa_view ? c[3] : c[6];
	double lck = tsa_view ? c[4] : c[5];
	double idl = tsa_view ? c[5] : c[6];

	why[0] = 0;
	switch (w) {
	case W_SPIN0:
	case W_SPIN1:
		if (usr < 38 || usr > 62 || lat < 38 || lat > 62 ||
		    usr + lat < 95)
			snprintf(why, len, "expected %s and %s in [38,62] (sum >= 95), saw %.1f and %.1f",
				 tsa_view ? "EXEC" : "USR+SYS+TRP",
				 tsa_view ? "RUN" : "LAT", usr, lat);
		break;
	case W_SLEEP:
		if (slp < 90)
			snprintf(why, len, "expected SLP >= 90, saw %.1f", slp);
		break;
	case W_LOCK:
		if (lck < 99)
			snprintf(why, len, "expected LCK >= 99, saw %.1f", lck);
		break;
	case W_SCL:
		if (scl >= 0 && scl != BURST + 1)
			snprintf(why, len, "expected SCL %d (one burst of %d getppid + the read it blocks in again), saw %ld",
				 BURST + 1, BURST, scl);
		else if (idl < 90)
			snprintf(why, len, "expected %s >= 90 (blocked in a pipe read), saw %.1f",
				 tsa_view ? "IDL" : "SLP", idl);
		break;
	}
	return why[0] ? why : NULL;
}

/* Compare one JSON line with the reads around it; first mismatch in why. */
static int jcheck_bracket(const struct jline *r1, const struct jline *r2,
			  const struct tsa_thread *a, const struct tsa_thread *c,
			  const struct tsa_thread *b, char *why, size_t len)
{
	uint64_t sum = 0, f[8];
	int s;

#define BAD(...) do { snprintf(why, len, __VA_ARGS__); return 0; } while (0)
	if (!r1->first || r2->first)
		BAD("first: expected true then false, saw %d then %d", r1->first, r2->first);
	if (!(a->elapsed <= r1->tot_elapsed && r1->tot_elapsed <= c->elapsed))
		BAD("report 1 total_elapsed_ns %llu not within reads [%llu, %llu]",
		    (unsigned long long)r1->tot_elapsed,
		    (unsigned long long)a->elapsed, (unsigned long long)c->elapsed);
	if (!(r1->tot_elapsed <= r2->tot_elapsed && r2->tot_elapsed <= b->elapsed))
		BAD("report 2 total_elapsed_ns %llu not within [%llu, %llu]",
		    (unsigned long long)r2->tot_elapsed,
		    (unsigned long long)r1->tot_elapsed, (unsigned long long)b->elapsed);
	if (r2->elapsed != r2->tot_elapsed - r1->tot_elapsed)
		BAD("elapsed_ns %llu != difference of total_elapsed_ns %llu",
		    (unsigned long long)r2->elapsed,
		    (unsigned long long)(r2->tot_elapsed - r1->tot_elapsed));
	if (r2->elapsed != r2->now - r1->now)
		BAD("elapsed_ns %llu != difference of the snapshots' now %llu",
		    (unsigned long long)r2->elapsed,
		    (unsigned long long)(r2->now - r1->now));
	for (s = 0; s < TSA_NSTATES; s++) {
		if (!(a->ns[s] <= r1->tot[s] && r1->tot[s] <= c->ns[s]))
			BAD("%s: report 1 total_ns %llu not within reads [%llu, %llu]",
			    tsa_state_name(s), (unsigned long long)r1->tot[s],
			    (unsigned long long)a->ns[s], (unsigned long long)c->ns[s]);
		if (!(r1->tot[s] <= r2->tot[s] && r2->tot[s] <= b->ns[s]))
			BAD("%s: report 2 total_ns %llu not within [%llu, %llu]",
			    tsa_state_name(s), (unsigned long long)r2->tot[s],
			    (unsigned long long)r1->tot[s], (unsigned long long)b->ns[s]);
		if (!(a->entries[s] <= r1->n[s] && r1->n[s] <= c->entries[s] &&
		      r2->n[s] <= b->entries[s]))
			BAD("%s: entries %llu/%llu not within reads [%llu, %llu, %llu]",
			    tsa_state_name(s), (unsigned long long)r1->n[s],
			    (unsigned long long)r2->n[s],
			    (unsigned long long)a->entries[s],
			    (unsigned long long)c->entries[s],
			    (unsigned long long)b->entries[s]);
		if (r2->ns[s] != r2->tot[s] - r1->tot[s])
			BAD("%s: ns %llu != difference of total_ns %llu",
			    tsa_state_name(s), (unsigned long long)r2->ns[s],
			    (unsigned long long)(r2->tot[s] - r1->tot[s]));
		if (fabs(r2->pct[s] - pct(r2->ns[s], r2->elapsed)) > 0.0015)
			BAD("%s: pct %.3f != 100*ns/elapsed_ns %.4f",
			    tsa_state_name(s), r2->pct[s], pct(r2->ns[s], r2->elapsed));
		sum += r2->tot[s];
	}
	if (sum != r2->tot_elapsed)
		BAD("sum of total_ns %llu != total_elapsed_ns %llu",
		    (unsigned long long)sum, (unsigned long long)r2->tot_elapsed);
	for (s = 0; s < TSA_NCOUNTERS; s++) {
		if (!(a->counters[s] <= r1->ctot[s] && r1->ctot[s] <= c->counters[s] &&
		      r1->ctot[s] <= r2->ctot[s] && r2->ctot[s] <= b->counters[s]))
			BAD("%s: totals %llu, %llu not within reads [%llu, %llu, %llu]",
			    tsa_counter_names[s], (unsigned long long)r1->ctot[s],
			    (unsigned long long)r2->ctot[s],
			    (unsigned long long)a->counters[s],
			    (unsigned long long)c->counters[s],
			    (unsigned long long)b->counters[s]);
		if (r2->cdelta[s] != r2->ctot[s] - r1->ctot[s])
			BAD("%s: delta %llu != difference of totals %llu", tsa_counter_names[s],
			    (unsigned long long)r2->cdelta[s],
			    (unsigned long long)(r2->ctot[s] - r1->ctot[s]));
	}
	fold_sol(r2->ns, f);
	for (s = 0; s < 8; s++)
		if (fabs(r2->sol[s] - pct(f[s], r2->elapsed)) > 0.0015)
			BAD("solaris %s %.3f != %.4f folded from states",
			    sol_name[s], r2->sol[s], pct(f[s], r2->elapsed));
	fold_tsa(r2->ns, f);
	for (s = 0; s < 7; s++)
		if (fabs(r2->tsa[s] - pct(f[s], r2->elapsed)) > 0.0015)
			BAD("tsa %s %.3f != %.4f folded from states",
			    tsav_name[s], r2->tsa[s], pct(f[s], r2->elapsed));
#undef BAD
	return 1;
}

/* Read one JSON report of n lines into r[] indexed by workload. */
static int read_json_report(struct child *ch, int n, struct jline r[NW],
			    char *why, size_t len)
{
	double ts = 0;

	for (int i = 0; i < NW; i++)
		r[i].ok = 0;
	for (int k = 0; k < n; k++) {
		char *l = child_line(ch, 15000);
		struct jline j;
		int w;

		if (!l) {
			snprintf(why, len, "report ended after %d of %d lines", k, n);
			return -1;
		}
		if (jparse(l, &j)) {
			snprintf(why, len, "unparsable JSON line: %.200s", l);
			return -1;
		}
		/*
		 * One report, one read: the same "ts". ("now" is each
		 * thread's own "at" with -L: later for a thread that changed
		 * state while the snapshot was taken.)
		 */
		if (k && j.ts != ts) {
			snprintf(why, len, "lines of one report with different ts (%.3f, %.3f)",
				 ts, j.ts);
			return -1;
		}
		ts = j.ts;
		w = wfind((pid_t)j.tid);
		if (w < 0 || j.pid != (uint64_t)getpid()) {
			snprintf(why, len, "line of pid %llu tid %llu: not ours",
				 (unsigned long long)j.pid, (unsigned long long)j.tid);
			return -1;
		}
		r[w] = j;
	}
	return 0;
}

static void scenario_json(const char *view)
{
	char pidarg[32], why[512] = "";
	char *argv[] = { (char *)prstat_path, (char *)view, "-L", "--json",
			 "-p", pidarg, "1", "2", NULL };
	struct jline r1[NW], r2[NW];
	struct wsnap a, c, b;
	struct child *ch = calloc(1, sizeof(*ch));
	int rc, w;

	snprintf(pidarg, sizeof(pidarg), "%d", getpid());
	printf("# tsa-prstat %s -L --json -p %s 1 2\n", view, pidarg);
	wsnap(&a);
	if (!wsnap_ok(&a, "json") || child_start(ch, argv)) {
		free(ch);
		return;
	}
	if (read_json_report(ch, NW, r1, why, sizeof(why)) == 0) {
		wsnap(&c);
		if (burst())
			snprintf(why, sizeof(why), "getppid burst did not finish");
		else
			read_json_report(ch, NW, r2, why, sizeof(why));
	}
	wsnap(&b);
	rc = child_finish(ch);
	free(ch);
	tap(rc == 0 && !why[0] && wsnap_ok(&c, "json") && wsnap_ok(&b, "json"),
	    "json %s: two reports of %d lines each, exit 0 (exit %d%s%s)", view, NW, rc,
	    why[0] ? "; " : "", why);
	if (why[0] || rc)
		return;
	for (w = 0; w < NW; w++) {
		int ok = jcheck_bracket(&r1[w], &r2[w], &a.t[w], &c.t[w],
					&b.t[w], why, sizeof(why));

		tap(ok, "json %s: %s (tid %d): lifetime values of both reports lie between /proc/tsa/<tid> reads, interval values are their differences%s%s",
		    view, wname[w], wtid[w], ok ? "" : ": ", ok ? "" : why);
	}
	for (w = 0; w < W_MAIN; w++) {
		const char *bad = expect_workload(w, 0, r2[w].sol,
						  (long)r2[w].cdelta[TSA_SCL],
						  why, sizeof(why));

		tap(!bad, "json %s: %s interval: USR %.1f SYS %.1f SLP %.1f LCK %.1f LAT %.1f SCL %llu as the workload implies%s%s",
		    view, wname[w], r2[w].sol[0], r2[w].sol[1], r2[w].sol[6],
		    r2[w].sol[5], r2[w].sol[7],
		    (unsigned long long)r2[w].cdelta[TSA_SCL],
		    bad ? ": " : "", bad ? bad : "");
		if (w == W_SPIN0 || w == W_SLEEP || w == W_LOCK) {
			bad = expect_workload(w, 1, r2[w].tsa, -1, why, sizeof(why));
			tap(!bad, "json %s: %s interval TSA view: EXEC %.1f RUN %.1f SLP %.1f LCK %.1f IDL %.1f%s%s",
			    view, wname[w], r2[w].tsa[0], r2[w].tsa[1],
			    r2[w].tsa[3], r2[w].tsa[4], r2[w].tsa[5],
			    bad ? ": " : "", bad ? bad : "");
		}
	}
	/* The SCL count against the thread's own file, exactly. */
	w = W_SCL;
	tap(c.t[w].counters[TSA_SCL] + BURST + 1 == b.t[w].counters[TSA_SCL],
	    "json %s: /proc/tsa/%d SCL grew by %d over the burst (saw %llu)",
	    view, wtid[w], BURST + 1,
	    (unsigned long long)(b.t[w].counters[TSA_SCL] - c.t[w].counters[TSA_SCL]));
}

/* One table line: pid user cols... name/id. */
struct trow {
	int pid, id;
	char user[64];
	char col[12][8];
	char name[64];
};

static int parse_trow(const char *l, int ncols, struct trow *t)
{
	const char *p = l;
	int used, i;

	if (sscanf(p, "%d %63s%n", &t->pid, t->user, &used) != 2)
		return -1;
	p += used;
	for (i = 0; i < ncols; i++) {
		if (sscanf(p, " %7s%n", t->col[i], &used) != 1)
			return -1;
		p += used;
	}
	while (*p == ' ')
		p++;
	const char *slash = strrchr(p, '/');
	if (!slash)
		return -1;
	snprintf(t->name, sizeof(t->name), "%.*s", (int)(slash - p), p);
	t->id = atoi(slash + 1);
	return 0;
}

/*
 * A count as printed (four characters: "1500", "100K", "4.4M"): lo..hi
 * it stands for, rounded to the digits shown.
 */
static void parse_count(const char *s, long *lo, long *hi)
{
	static const char unit[] = "KMGTPE";
	size_t n = strlen(s);
	const char *u = n ? strchr(unit, s[n - 1]) : NULL;

	if (u && *u) {
		double m = 1, v = atof(s), h = strchr(s, '.') ? 0.05 : 0.5;
		const char *k;

		for (k = unit; k <= u; k++)
			m *= 1000;
		*lo = (long)((v - h) * m);
		*hi = (long)((v + h) * m);
	} else {
		*lo = *hi = atol(s);
	}
}

struct report {
	char header[512];
	int n;
	struct trow rows[4096];
	char total[512];
};

static int read_table_report(struct child *ch, int ncols, struct report *r,
			     char *why, size_t len)
{
	char *l = child_line(ch, 15000);

	r->n = 0;
	if (!l) {
		snprintf(why, len, "no header");
		return -1;
	}
	snprintf(r->header, sizeof(r->header), "%s", l);
	while ((l = child_line(ch, 15000))) {
		if (!strncmp(l, "Total:", 6)) {
			snprintf(r->total, sizeof(r->total), "%s", l);
			return 0;
		}
		if (r->n < 4096 && parse_trow(l, ncols, &r->rows[r->n++])) {
			snprintf(why, len, "bad line: %.200s", l);
			return -1;
		}
	}
	snprintf(why, len, "report without a Total line");
	return -1;
}

static void scenario_table(int tsa_view, int with_p)
{
	const int ncols = tsa_view ? 7 : 12;
	static const char *const hdr_sol =
		"   PID USERNAME USR SYS TRP TFL DFL LCK SLP LAT  VCX  ICX  SCL  SIG PROCESS/LWPID ";
	static const char *const hdr_tsa =
		"   PID USERNAME EXEC  RUN  APG  SLP  LCK  IDL  STP PROCESS/LWPID ";
	char pidarg[32], why[512] = "", desc[128];
	char *argv[12];
	int ac = 0, rc, w, i;
	struct report *r1 = calloc(1, sizeof(*r1)), *r2 = calloc(1, sizeof(*r2));
	struct child *ch = calloc(1, sizeof(*ch));
	struct wsnap a, c, b;

	snprintf(pidarg, sizeof(pidarg), "%d", getpid());
	argv[ac++] = (char *)prstat_path;
	argv[ac++] = tsa_view ? "-A" : "-m";
	argv[ac++] = "-L";
	argv[ac++] = "-c";
	if (with_p) {
		argv[ac++] = "-p";
		argv[ac++] = pidarg;
	}
	argv[ac++] = "1";
	argv[ac++] = "2";
	argv[ac] = NULL;
	snprintf(desc, sizeof(desc), "%s -L -c%s%s 1 2", tsa_view ? "-A" : "-m",
		 with_p ? " -p " : "", with_p ? pidarg : "");
	printf("# tsa-prstat %s\n", desc);

	wsnap(&a);
	if (!wsnap_ok(&a, desc) || child_start(ch, argv))
		goto out;
	if (read_table_report(ch, ncols, r1, why, sizeof(why)) == 0) {
		wsnap(&c);
		if (burst())
			snprintf(why, sizeof(why), "getppid burst did not finish");
		else
			read_table_report(ch, ncols, r2, why, sizeof(why));
	}
	wsnap(&b);
	rc = child_finish(ch);
	tap(rc == 0 && !why[0] && wsnap_ok(&c, desc) && wsnap_ok(&b, desc),
	    "%s: two reports, exit 0 (exit %d%s%s)", desc, rc,
	    why[0] ? "; " : "", why);
	if (rc || why[0])
		goto out;

	/* Format: header byte for byte, Total line counting what is shown. */
	{
		const char *want = tsa_view ? hdr_tsa : hdr_sol;
		int ok = 1, nprocs = 0, procs, lwps;
		double la[3];
		char tail;

		for (int k = 0; k < 2; k++) {
			struct report *r = k ? r2 : r1;

			ok &= !strcmp(r->header, want);
			nprocs = 0;
			for (i = 0; i < r->n; i++) {
				int j;

				for (j = 0; j < i; j++)
					if (r->rows[j].pid == r->rows[i].pid)
						break;
				nprocs += j == i;
				if (with_p && r->rows[i].pid != getpid())
					ok = 0;
			}
			if (sscanf(r->total, "Total: %d processes, %d lwps, load averages: %lf, %lf, %lf%c",
				   &procs, &lwps, &la[0], &la[1], &la[2], &tail) != 5 ||
			    procs != nprocs || lwps != r->n)
				ok = 0;
			if (with_p && (r->n != NW || procs != 1))
				ok = 0;
		}
		tap(ok, "%s: header byte for byte \"%s\"; Total counts the lines shown%s (report 2: \"%s\", %d lines, %d processes; header \"%s\")",
		    desc, want, with_p ? ", only our process" : "", r2->total,
		    r2->n, nprocs, r2->header);
	}

	/* Every workload thread: its line, its numbers. */
	for (w = 0; w < NW; w++) {
		struct trow *t = NULL;
		double lo[12], hi[12], v[12];
		char bad[256] = "";
		long scl = -1;

		for (i = 0; i < r2->n; i++)
			if (r2->rows[i].id == wtid[w])
				t = &r2->rows[i];
		if (!t) {
			tap(0, "%s: %s (tid %d) has a line in report 2", desc,
			    wname[w], wtid[w]);
			continue;
		}
		if (t->pid != getpid() || strcmp(t->user, "root") ||
		    strcmp(t->name, w == W_MAIN ? "tsa-ptest" : wname[w]))
			snprintf(bad, sizeof(bad), "line says pid %d user %s name %s",
				 t->pid, t->user, t->name);
		for (i = 0; i < ncols && !bad[0]; i++) {
			double p1 = col_pct(tsa_view, &a.t[w], &b.t[w], i);
			double p2 = col_pct(tsa_view, &c.t[w], &b.t[w], i);

			v[i] = atof(t->col[i]);
			if (!tsa_view && i >= 8)
				continue;	/* counts */
			lo[i] = fmin(p1, p2) - TOL_PCT;
			hi[i] = fmax(p1, p2) + TOL_PCT;
			if (w != W_MAIN && (v[i] < lo[i] || v[i] > hi[i]))
				snprintf(bad, sizeof(bad), "column %d printed %s, /proc/tsa reads imply %.1f..%.1f (+-%.0f)",
					 i + 1, t->col[i], p1, p2, TOL_PCT);
		}
		if (!tsa_view && !bad[0]) {
			for (i = 8; i < 12; i++) {
				long clo, chi;
				uint64_t up = b.t[w].counters[i - 8] - a.t[w].counters[i - 8];

				parse_count(t->col[i], &clo, &chi);
				if ((uint64_t)clo > up)
					snprintf(bad, sizeof(bad), "%s printed %s, more than %llu counted in /proc/tsa over the whole run",
						 tsa_counter_names[i - 8], t->col[i], (unsigned long long)up);
				if (i == 10)
					scl = clo == chi ? clo : -2;
			}
		}
		if (!bad[0] && w != W_MAIN) {
			const char *e = expect_workload(w, tsa_view, v,
							tsa_view ? -1 : scl,
							bad, sizeof(bad));
			(void)e;
		}
		if (w == W_MAIN && !bad[0]) {
			double sum = 0;

			for (i = 0; i < (tsa_view ? 7 : 8); i++)
				sum += v[i];
			if (tsa_view && (sum < 96 || sum > 104))
				snprintf(bad, sizeof(bad), "TSA columns add up to %.1f", sum);
		}
		{
			char cols[128] = "";

			for (i = 0; i < ncols; i++) {
				strcat(cols, " ");
				strcat(cols, t->col[i]);
			}
			tap(!bad[0], "%s: %s (tid %d):%s consistent with /proc/tsa and the workload%s%s",
			    desc, wname[w], wtid[w], cols, bad[0] ? ": " : "", bad);
		}
	}
out:
	free(ch);
	free(r1);
	free(r2);
}

static void test_prstat(void)
{
	pthread_t th[W_MAIN];
	void *(*fn[W_MAIN])(void *) = { w_spin, w_spin, w_sleep, w_scl, w_lock };

	pin(1);
	wtid[W_MAIN] = gettid_();
	if (pipe(burst_pipe))
		return;
	pthread_mutex_lock(&lck_mutex);
	for (long i = 0; i < W_MAIN; i++)
		pthread_create(&th[i], NULL, fn[i], (void *)i);
	while (atomic_load(&w_ready) < W_MAIN)
		sleep_ms(10);
	sleep_ms(500);	/* every thread in its steady state; the entries exist */

	scenario_json("-m");
	scenario_table(0, 0);
	scenario_table(0, 1);
	scenario_table(1, 1);
	scenario_json("-A");

	atomic_store(&w_stop, 1);
	pthread_mutex_unlock(&lck_mutex);
	if (write(burst_pipe[1], "q", 1) != 1)
		return;
	for (int i = 0; i < W_MAIN; i++)
		pthread_join(th[i], NULL);
}

/* --- 2. process totals while threads exit ------------------------------ */

struct agg {
	uint64_t now, at;	/* snapshot clock; latest "at" of the process's lines */
	uint64_t ns[TSA_NSTATES], el, cnt[TSA_NCOUNTERS];
	int live, totals;
	int live_leader;
};

#define EX_WORKERS 5

static atomic_int ex_go[EX_WORKERS + 1];
static atomic_int ex_leader_gone;

static void *ex_worker(void *arg)
{
	long i = (long)arg;
	char name[16];

	snprintf(name, sizeof(name), "exw%ld", i);
	pthread_setname_np(pthread_self(), name);
	while (!atomic_load(&ex_go[i])) {
		double end = mono_s() + 0.01;

		while (mono_s() < end)		/* USR, SYS (clock_gettime is vDSO) */
			;
		for (int k = 0; k < 20; k++)
			syscall(SYS_getppid);
		sleep_ms(15);			/* SLP */
	}
	if (i == EX_WORKERS - 1) {
		/* The last one outlives the leader. */
		while (!atomic_load(&ex_leader_gone))
			sleep_ms(5);
		sleep_ms(600);
	}
	return NULL;
}

/* The child: workers exit one by one every 300 ms, then the leader
 * (pthread_exit), then the last worker. */
static void ex_child(int go_fd)
{
	pthread_t th[EX_WORKERS];
	char c;

	prctl(PR_SET_NAME, "exlead");
	for (long i = 0; i < EX_WORKERS; i++)
		pthread_create(&th[i], NULL, ex_worker, (void *)i);
	if (read(go_fd, &c, 1) != 1)
		_exit(1);
	for (int i = 0; i < EX_WORKERS - 1; i++) {
		sleep_ms(300);
		atomic_store(&ex_go[i], 1);
		pthread_join(th[i], NULL);
	}
	sleep_ms(300);
	atomic_store(&ex_go[EX_WORKERS - 1], 1);
	atomic_store(&ex_leader_gone, 1);
	pthread_exit(NULL);
}

struct seen {
	pid_t tid;
	struct tsa_thread last;
	int gone;
};

static void test_exits(void)
{
	int gofd[2], rc;
	pid_t cpid;
	char pidarg[32], why[512] = "";
	struct agg *hist = calloc(20000, sizeof(*hist));
	int nh = 0, viol = 0, sumbad = 0, orderbad = 0, incl_bad = 0;
	int min_live = 1000, max_live = 0, totals_seen = 0, leader_gone_seen = 0;
	int zero_live = 0, regrow = 0;
	struct seen seen[EX_WORKERS + 1];
	struct tsa_thread prow[EX_WORKERS + 2], crow[EX_WORKERS + 2];
	uint64_t pnow = 0;
	int nprow = 0, ncrow, dumped = 0;
	int nseen = 0;
	char vwhy[512] = "", swhy[256] = "", iwhy[256] = "";

	if (pipe(gofd))
		return;
	cpid = fork();
	if (cpid == 0) {
		close(gofd[1]);
		ex_child(gofd[0]);
	}
	close(gofd[0]);
	snprintf(pidarg, sizeof(pidarg), "%d", cpid);

	/* Wait for its EX_WORKERS + 1 threads to show up. */
	for (int k = 0; k < 300; k++) {
		struct tsa_all all;
		int n = 0;

		if (fast_read_all(&all) == 0) {
			for (size_t i = 0; i < all.n; i++)
				n += all.t[i].pid == cpid && all.t[i].tid;
			tsa_free_all(&all);
		}
		if (n == EX_WORKERS + 1)
			break;
		sleep_ms(10);
	}

	/* No count: ended with SIGTERM (exit 0 expected) once the process
	 * is gone. */
	char *argv[] = { (char *)prstat_path, "-m", "--json", "-p", pidarg,
			 "0.25", NULL };
	struct child *ch = calloc(1, sizeof(*ch));

	printf("# process %d: %d workers exit one by one, then the leader, then the last worker; tsa-prstat -m --json -p %d 0.25\n",
	       cpid, EX_WORKERS, cpid);
	if (child_start(ch, argv))
		return;
	sleep_ms(300);
	if (write(gofd[1], "g", 1) != 1)
		return;

	double end = mono_s() + 10;
	int dead = 0;

	while (mono_s() < end && nh < 20000) {
		struct tsa_all all;
		struct agg g = { 0 };
		int last_live_idx = -1, tot_idx = -1;

		if (!dead && waitpid(cpid, &rc, WNOHANG) == cpid)
			dead = 1;
		if (fast_read_all(&all))
			continue;
		g.now = all.now;
		ncrow = 0;
		for (size_t i = 0; i < all.n; i++) {
			struct tsa_thread *t = &all.t[i];
			int s;

			if (t->pid != cpid)
				continue;
			if (ncrow < EX_WORKERS + 2)
				crow[ncrow++] = *t;
			if (t->at > g.at)
				g.at = t->at;
			if (tsa_sum(t) != t->elapsed && !swhy[0])
				snprintf(swhy, sizeof(swhy), "tid %d: sum %llu != elapsed %llu",
					 t->tid, (unsigned long long)tsa_sum(t),
					 (unsigned long long)t->elapsed);
			sumbad += tsa_sum(t) != t->elapsed;
			for (s = 0; s < TSA_NSTATES; s++)
				g.ns[s] += t->ns[s];
			for (s = 0; s < TSA_NCOUNTERS; s++)
				g.cnt[s] += t->counters[s];
			g.el += t->elapsed;
			if (t->tid == 0) {
				g.totals++;
				tot_idx = (int)i;
				if (!(t->flags & 4))
					orderbad++;
			} else {
				g.live++;
				last_live_idx = (int)i;
				g.live_leader |= t->tid == cpid;
				int k;
				for (k = 0; k < nseen; k++)
					if (seen[k].tid == t->tid)
						break;
				if (k == nseen && nseen < EX_WORKERS + 1)
					seen[nseen++].tid = t->tid;
				if (k < nseen)
					seen[k].last = *t;
			}
		}
		if (g.totals > 1 || (tot_idx >= 0 && tot_idx < last_live_idx))
			orderbad++;
		/* Threads no longer listed: their last-seen numbers must be
		 * inside the totals line (sum of the gone ones). */
		if (g.live || g.totals) {
			uint64_t gone_el = 0, gone_ns[TSA_NSTATES] = { 0 };
			uint64_t tot_el = 0, tot_ns[TSA_NSTATES] = { 0 };

			for (int k = 0; k < nseen; k++) {
				int listed = 0;

				for (size_t i = 0; i < all.n; i++)
					listed |= all.t[i].pid == cpid &&
						  all.t[i].tid == seen[k].tid;
				if (listed)
					continue;
				seen[k].gone = 1;
				gone_el += seen[k].last.elapsed;
				for (int s = 0; s < TSA_NSTATES; s++)
					gone_ns[s] += seen[k].last.ns[s];
			}
			if (tot_idx >= 0) {
				tot_el = all.t[tot_idx].elapsed;
				for (int s = 0; s < TSA_NSTATES; s++)
					tot_ns[s] = all.t[tot_idx].ns[s];
			}
			int bad = tot_el < gone_el;
			for (int s = 0; s < TSA_NSTATES; s++)
				bad |= tot_ns[s] < gone_ns[s];
			if (bad && !iwhy[0])
				snprintf(iwhy, sizeof(iwhy), "totals line elapsed %llu < %llu last seen of the exited threads (or a state)",
					 (unsigned long long)tot_el, (unsigned long long)gone_el);
			incl_bad += bad;
			/*
			 * Once every thread has begun exiting the process
			 * is its totals line alone until it is reaped.
			 */
			if (g.live && g.live < min_live)
				min_live = g.live;
			zero_live += !g.live;
			regrow += nh && g.live > hist[nh - 1].live;
			if (g.live > max_live)
				max_live = g.live;
			totals_seen |= g.totals;
			leader_gone_seen |= !g.live_leader && g.live;
			/* Never backwards. */
			if (nh) {
				struct agg *p = &hist[nh - 1];
				int s;

				for (s = 0; s < TSA_NSTATES; s++)
					if (g.ns[s] < p->ns[s] && !vwhy[0])
						snprintf(vwhy, sizeof(vwhy), "%s went from %llu to %llu (live threads %d -> %d)",
							 tsa_state_name(s),
							 (unsigned long long)p->ns[s],
							 (unsigned long long)g.ns[s], p->live, g.live);
				for (s = 0; s < TSA_NSTATES; s++)
					viol += g.ns[s] < p->ns[s];
				for (s = 0; s < TSA_NCOUNTERS; s++)
					viol += g.cnt[s] < p->cnt[s];
				viol += g.el < p->el;
				if (vwhy[0] && !dumped) {
					/* Show the two snapshots. */
					dumped = 1;
					for (int d = 0; d < 2; d++) {
						struct tsa_thread *rw = d ? crow : prow;
						int nr = d ? ncrow : nprow;

						printf("# %s snapshot, now %llu:\n", d ? "this" : "previous",
						       (unsigned long long)(d ? g.now : pnow));
						for (int k = 0; k < nr; k++)
							printf("#   tid %d flags %u state %s elapsed %llu USR %llu SYS %llu SLP %llu LAT %llu (n %llu/%llu/%llu/%llu)\n",
							       rw[k].tid, rw[k].flags, tsa_state_name(rw[k].state),
							       (unsigned long long)rw[k].elapsed,
							       (unsigned long long)rw[k].ns[TSA_USR],
							       (unsigned long long)rw[k].ns[TSA_SYS],
							       (unsigned long long)rw[k].ns[TSA_SLP],
							       (unsigned long long)rw[k].ns[TSA_LAT],
							       (unsigned long long)rw[k].entries[TSA_USR],
							       (unsigned long long)rw[k].entries[TSA_SYS],
							       (unsigned long long)rw[k].entries[TSA_SLP],
							       (unsigned long long)rw[k].entries[TSA_LAT]);
					}
				}
				if (g.el < p->el && !vwhy[0])
					snprintf(vwhy, sizeof(vwhy), "elapsed went from %llu to %llu",
						 (unsigned long long)p->el,
						 (unsigned long long)g.el);
			}
			hist[nh++] = g;
			memcpy(prow, crow, sizeof(crow));
			nprow = ncrow;
			pnow = g.now;
		}
		tsa_free_all(&all);
		if (dead && !g.live && !g.totals)
			break;
		sleep_ms(3);
	}
	if (!dead)
		waitpid(cpid, &rc, 0);
	tap(nh > 50 && max_live == EX_WORKERS + 1 && min_live == 1 && !regrow,
	    "exits: /proc/tsa/all followed process %d from %d live threads down to %d, never up again (%d rises), then the totals line alone in %d of %d reads",
	    cpid, max_live, min_live, regrow, zero_live, nh);
	tap(viol == 0, "exits: per-state sums, elapsed and counters of process %d (live threads + tid-0 line) never decrease (%d decreases%s%s)",
	    cpid, viol, vwhy[0] ? ": first " : "", vwhy);
	tap(sumbad == 0, "exits: every line of the process sums to its elapsed%s%s",
	    swhy[0] ? ": " : "", swhy);
	tap(totals_seen && orderbad == 0,
	    "exits: one tid-0 totals line (flags 4) after the live threads once a thread exited (%d bad snapshots)",
	    orderbad);
	tap(incl_bad == 0, "exits: the totals line holds at least what the exited threads had when last seen%s%s",
	    iwhy[0] ? ": " : "", iwhy);
	tap(leader_gone_seen,
	    "exits: after the leader's pthread_exit the process is still listed (last worker + totals)");

	/* tsa-prstat's view of the same process. */
	struct jline *rep = calloc(64, sizeof(*rep));
	int nrep = 0, jbad = 0;
	char *l;

	kill(ch->pid, SIGTERM);
	while ((l = child_line(ch, 15000)) && nrep < 64)
		if (jparse(l, &rep[nrep++]))
			jbad++;
	rc = child_finish(ch);
	free(ch);
	/* ~2.7 s of life at 0.25 s: ~10 reports, fewer when TCG makes
	 * tsa-prstat run late (it does not catch up). */
	tap(rc == 0 && jbad == 0 && nrep >= 5,
	    "exits: tsa-prstat -m --json -p %d: %d reports while the process lived, exit %d, %d unparsable",
	    cpid, nrep, rc, jbad);
	int first_bad = 0, back = 0, dbad = 0, brk = 0, nlwp_min = 1000;
	int bracketed = 0;
	why[0] = 0;
	for (int k = 0; k < nrep; k++) {
		struct jline *j = &rep[k];
		int s;

		if (j->pid != (uint64_t)cpid)
			jbad++;
		if (j->nlwp < (uint64_t)nlwp_min)
			nlwp_min = (int)j->nlwp;
		if ((k == 0) != j->first) {
			first_bad++;
			if (!why[0])
				snprintf(why, sizeof(why), "report %d: first=%d", k + 1, j->first);
		}
		if (k) {
			struct jline *p = &rep[k - 1];

			back += j->tot_elapsed < p->tot_elapsed;
			for (s = 0; s < TSA_NSTATES; s++) {
				back += j->tot[s] < p->tot[s];
				dbad += j->ns[s] != j->tot[s] - p->tot[s];
			}
			dbad += j->elapsed != j->tot_elapsed - p->tot_elapsed;
		}
		/*
		 * Between the /proc/tsa/all reads just before and after its
		 * snapshot, exactly. Every line of a snapshot is measured
		 * between its "now" and the latest "at" of the process's
		 * lines, so a read comes before the report when its latest
		 * "at" is not after the report's "now", after it when its
		 * "now" is not before the report's "at".
		 */
		int lo = -1, hi = -1;
		for (int h = 0; h < nh; h++) {
			if (hist[h].at <= j->now)
				lo = h;
			if (hist[h].now >= j->at && hi < 0)
				hi = h;
		}
		if (lo >= 0 && hi >= 0) {
			int b = !(hist[lo].el <= j->tot_elapsed && j->tot_elapsed <= hist[hi].el);
			for (s = 0; s < TSA_NSTATES; s++)
				b |= !(hist[lo].ns[s] <= j->tot[s] && j->tot[s] <= hist[hi].ns[s]);
			if (b && !why[0]) {
				int s2 = 0;

				while (s2 < TSA_NSTATES &&
				       hist[lo].ns[s2] <= j->tot[s2] &&
				       j->tot[s2] <= hist[hi].ns[s2])
					s2++;
				snprintf(why, sizeof(why), "report %d (nlwp %llu, now %llu, at %llu; reads now/at %llu/%llu and %llu/%llu): total_elapsed_ns %llu vs [%llu, %llu]; first state outside: %s %llu vs [%llu, %llu]",
					 k + 1, (unsigned long long)j->nlwp,
					 (unsigned long long)j->now,
					 (unsigned long long)j->at,
					 (unsigned long long)hist[lo].now,
					 (unsigned long long)hist[lo].at,
					 (unsigned long long)hist[hi].now,
					 (unsigned long long)hist[hi].at,
					 (unsigned long long)j->tot_elapsed,
					 (unsigned long long)hist[lo].el,
					 (unsigned long long)hist[hi].el,
					 s2 < TSA_NSTATES ? tsa_state_name(s2) : "-",
					 (unsigned long long)(s2 < TSA_NSTATES ? j->tot[s2] : 0),
					 (unsigned long long)(s2 < TSA_NSTATES ? hist[lo].ns[s2] : 0),
					 (unsigned long long)(s2 < TSA_NSTATES ? hist[hi].ns[s2] : 0));
			}
			brk += b;
			bracketed++;
		}
	}
	tap(first_bad == 0 && back == 0 && dbad == 0 && jbad == 0,
	    "exits: tsa-prstat process mode: same process in every report (first only in report 1), lifetime sums never decrease, deltas = differences (%d/%d/%d bad)%s%s",
	    first_bad, back, dbad, why[0] && first_bad ? ": " : "", first_bad ? why : "");
	int late_reads = 0, late_reports = 0;

	for (int h = 0; h < nh; h++)
		late_reads += hist[h].at > hist[h].now;
	for (int k = 0; k < nrep; k++)
		late_reports += rep[k].at > rep[k].now;
	printf("# lines measured after their snapshot's now (a change or exit during the copy): in %d of %d reads, %d of %d reports\n",
	       late_reads, nh, late_reports, nrep);
	tap(brk == 0 && bracketed >= 3 && nlwp_min == 1,
	    "exits: tsa-prstat's process totals lie between the /proc/tsa/all sums (live + exited threads) read before and after them, state by state, in %d of %d reports, down to nlwp 1 (saw nlwp %d)%s%s",
	    bracketed - brk, bracketed, nlwp_min, brk ? ": " : "", brk ? why : "");
	free(rep);
	free(hist);
}

/* --- 2b. exits faster than a reader copies ----------------------------- */

static atomic_int st_stop;

static int memchr_pid(const pid_t *a, int n, pid_t v)
{
	for (int i = 0; i < n; i++)
		if (a[i] == v)
			return 1;
	return 0;
}

static void *st_short(void *arg)
{
	double end = mono_s() + 0.002;

	(void)arg;
	while (mono_s() < end)
		;
	return NULL;
}

/* The child: 4 short threads at a time, born and joined for 3 s. */
static void st_child(void)
{
	double end = mono_s() + 3;

	prctl(PR_SET_NAME, "storm");
	while (mono_s() < end && !atomic_load(&st_stop)) {
		pthread_t th[4];

		for (int i = 0; i < 4; i++)
			pthread_create(&th[i], NULL, st_short, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(th[i], NULL);
	}
	_exit(0);
}

/*
 * Readers copy a process without ever holding its lock, so the copy must
 * stay exact while its threads exit during it: every read of a process
 * whose threads are born and exit as fast as they can, its sums per
 * state, elapsed and counters never decrease and every line adds up.
 */
static void test_storm(void)
{
	uint64_t pns[TSA_NSTATES] = { 0 }, pel = 0, pcnt[TSA_NCOUNTERS] = { 0 };
	int reads = 0, viol = 0, sumbad = 0, totals = 0, st, ntids = 0;
	static pid_t tids[4096];
	char why[256] = "";
	pid_t cpid = fork();

	if (cpid == 0)
		st_child();
	for (;;) {
		struct tsa_all all;
		uint64_t ns[TSA_NSTATES] = { 0 }, el = 0, cnt[TSA_NCOUNTERS] = { 0 };
		int seen = 0;

		if (waitpid(cpid, &st, WNOHANG) == cpid)
			break;
		if (fast_read_all(&all))
			continue;
		for (size_t i = 0; i < all.n; i++) {
			struct tsa_thread *t = &all.t[i];

			if (t->pid != cpid)
				continue;
			seen = 1;
			totals |= t->tid == 0;
			if (t->tid && ntids < 4096 && !memchr_pid(tids, ntids, t->tid))
				tids[ntids++] = t->tid;
			sumbad += tsa_sum(t) != t->elapsed;
			el += t->elapsed;
			for (int s = 0; s < TSA_NSTATES; s++)
				ns[s] += t->ns[s];
			for (int s = 0; s < TSA_NCOUNTERS; s++)
				cnt[s] += t->counters[s];
		}
		tsa_free_all(&all);
		if (!seen)
			continue;
		reads++;
		for (int s = 0; s < TSA_NSTATES; s++)
			if (ns[s] < pns[s]) {
				viol++;
				if (!why[0])
					snprintf(why, sizeof(why), ": %s went from %llu to %llu",
						 tsa_state_name(s), (unsigned long long)pns[s],
						 (unsigned long long)ns[s]);
			}
		for (int s = 0; s < TSA_NCOUNTERS; s++)
			viol += cnt[s] < pcnt[s];
		viol += el < pel;
		memcpy(pns, ns, sizeof(ns));
		memcpy(pcnt, cnt, sizeof(cnt));
		pel = el;
	}
	tap(reads >= 20 && totals && ntids >= 20,
	    "storm: /proc/tsa/all read %d times while process %d made and joined 4 threads at a time (%d of its threads seen live, totals line %s)",
	    reads, cpid, ntids, totals ? "seen" : "never seen");
	tap(viol == 0 && sumbad == 0,
	    "storm: its per-state sums, elapsed and counters never decreased (%d decreases%s), every line added up (%d did not)",
	    viol, why, sumbad);
}

/* --- 4. a file of a thread that exits; writes -------------------------- */

static atomic_int sf_quit;
static pid_t sf_tid;

static void *sf_thread(void *arg)
{
	(void)arg;
	sf_tid = gettid_();
	while (!atomic_load(&sf_quit))
		sleep_ms(5);
	return NULL;
}

static void test_stalefd(void)
{
	pthread_t th;
	struct tsa_thread t;
	char path[64];
	int fd, r, e, e2 = 0;

	pthread_create(&th, NULL, sf_thread, NULL);
	while (!sf_tid)
		sleep_ms(5);
	snprintf(path, sizeof(path), "/proc/tsa/%d", sf_tid);
	for (int k = 0; k < 200 && access(path, F_OK); k++)
		sleep_ms(10);
	fd = open(path, O_RDONLY);
	r = fd < 0 ? -1 : tsa_pread_thread(fd, &t);
	tap(fd >= 0 && r == 0 && t.tid == sf_tid,
	    "stalefd: %s opened and read while the thread lives (%s)", path,
	    fd < 0 || r ? strerror(errno) : "ok");
	atomic_store(&sf_quit, 1);
	pthread_join(th, NULL);
	if (fd < 0)
		return;
	/*
	 * pthread_join returns when the kernel clears the tid (in exit_mm),
	 * before the thread's last context switch, where tsa marks it dead.
	 * So read until the error shows, for up to 3 s: a thread that long
	 * after its join is certainly gone.
	 */
	double t0 = mono_s();
	do {
		r = tsa_pread_thread(fd, &t);
		e = r ? errno : 0;
		if (!r && t.tid != sf_tid) {
			e = EPROTO;	/* another thread's numbers */
			break;
		}
		if (!r)
			sleep_ms(5);
	} while (!r && mono_s() - t0 < 3);
	printf("# stalefd: error after %.0f ms after the join\n", (mono_s() - t0) * 1000);
	/* Again from the start, with read(2) after lseek. */
	char buf[4096];
	if (lseek(fd, 0, SEEK_SET) == 0) {
		ssize_t n = read(fd, buf, sizeof(buf));
		e2 = n < 0 ? errno : 0;
	} else {
		e2 = errno;
	}
	close(fd);
	/* EIO: the entry was removed, which revokes open files (and lseek
	 * on a revoked proc file is EINVAL). */
	tap(r && (e == ESRCH || e == EIO) &&
	    (e2 == ESRCH || e2 == EIO || e2 == EINVAL),
	    "stalefd: after the thread exited, the fd opened before reads as an error, never as data (expected ESRCH (doc) or EIO, saw %s; then lseek+read: %s)",
	    errname(e), errname(e2));
	/* The entry goes away (the work item removes it). */
	e = 0;
	for (int k = 0; k < 300; k++) {
		fd = open(path, O_RDONLY);
		e = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		if (e == ENOENT)
			break;
		sleep_ms(10);
	}
	tap(e == ENOENT, "stalefd: a new open of %s after the exit fails with ENOENT (saw %s)",
	    path, errname(e));
}

static int read_all_text(char **out)
{
	int fd = open("/proc/tsa/all", O_RDONLY);
	size_t cap = 1 << 20, n = 0;
	ssize_t r;

	*out = malloc(cap);
	if (fd < 0)
		return -1;
	while ((r = read(fd, *out + n, cap - n - 1)) > 0)
		n += (size_t)r;
	close(fd);
	(*out)[n] = 0;
	return 0;
}

static void try_write(const char *path, int flags, const char *data,
		      char *res, size_t len)
{
	int fd = open(path, flags);

	if (fd < 0) {
		snprintf(res, len, "open %s", errname(errno));
		return;
	}
	ssize_t n = write(fd, data, strlen(data));
	int e = n < 0 ? errno : 0;
	int c = close(fd);
	snprintf(res, len, "write %s%s", n < 0 ? errname(e) : "SUCCEEDED",
		 c ? " (close failed)" : "");
}

static int write_refused(const char *res)
{
	return !strcmp(res, "open EACCES") || !strcmp(res, "open EPERM") ||
	       !strcmp(res, "open EINVAL") || !strcmp(res, "write EACCES") ||
	       !strcmp(res, "write EPERM") || !strcmp(res, "write EINVAL");
}

static void test_badwrite(void)
{
	char self[64], res[6][64], *before = NULL, *after = NULL;
	struct tsa_thread t1, t2;
	struct tsa_all all;
	int i;
	const char *paths[2] = { "/proc/tsa/all", self };

	snprintf(self, sizeof(self), "/proc/tsa/%d", gettid_());
	for (int k = 0; k < 200 && access(self, F_OK); k++)
		sleep_ms(10);
	if (tsa_read_thread(gettid_(), &t1) || read_all_text(&before)) {
		tap(0, "badwrite: read %s and /proc/tsa/all first: %s", self,
		    strerror(errno));
		return;
	}
	for (i = 0; i < 2; i++) {
		try_write(paths[i], O_WRONLY, "0\n", res[3 * i], 64);
		try_write(paths[i], O_RDWR, "tid 1\n", res[3 * i + 1], 64);
		try_write(paths[i], O_WRONLY | O_TRUNC, "", res[3 * i + 2], 64);
		tap(write_refused(res[3 * i]) && write_refused(res[3 * i + 1]) &&
		    write_refused(res[3 * i + 2]),
		    "badwrite: writing %s (uid %d) is refused with EACCES/EPERM/EINVAL (O_WRONLY: %s; O_RDWR: %s; O_TRUNC: %s)",
		    paths[i], getuid(), res[3 * i], res[3 * i + 1], res[3 * i + 2]);
	}
	/* ... and changes nothing: both files still read, same thread, its
	 * numbers moved on, the bulk file has the same header. */
	int r1 = tsa_read_thread(gettid_(), &t2);
	int r2 = read_all_text(&after);
	int r3 = fast_read_all(&all);
	int hdr_same;
	char *f1 = before ? strstr(before, "\nfields ") : NULL;
	char *f2 = after ? strstr(after, "\nfields ") : NULL;
	hdr_same = f1 && f2 && !strncmp(f1, f2, strcspn(f1 + 1, "\n") + 1);
	int found = 0;
	if (!r3) {
		for (size_t k = 0; k < all.n; k++)
			found |= all.t[k].tid == gettid_();
		tsa_free_all(&all);
	}
	tap(!r1 && !r2 && !r3 && hdr_same && found && t2.tid == t1.tid &&
	    t2.elapsed > t1.elapsed && tsa_sum(&t2) == t2.elapsed &&
	    t2.counters[TSA_SCL] >= t1.counters[TSA_SCL],
	    "badwrite: afterwards %s and /proc/tsa/all read as before (same tid, elapsed %llu -> %llu, same fields line, own line present)",
	    self, (unsigned long long)t1.elapsed, (unsigned long long)t2.elapsed);
	free(before);
	free(after);
}

/* --- small tools for the shell ----------------------------------------- */

static int open_read(pid_t tid)
{
	char path[64];
	struct tsa_thread t;
	int fd, r;

	snprintf(path, sizeof(path), "/proc/tsa/%d", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno;
	r = tsa_pread_thread(fd, &t);
	if (r) {
		r = errno;
		close(fd);
		return r;
	}
	close(fd);
	return t.tid == tid ? 0 : EPROTO;
}

static pid_t hold_tid2;
static void *hold_thread(void *arg)
{
	(void)arg;
	hold_tid2 = gettid_();
	for (;;)
		pause();
	return NULL;
}

static int cmd_hold(int nodump)
{
	pthread_t th;
	int e1 = 0, e2 = 0;

	if (nodump && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return 1;
	pthread_create(&th, NULL, hold_thread, NULL);
	while (!hold_tid2)
		sleep_ms(5);
	/* Wait for the entries, then read both own threads. */
	for (int k = 0; k < 300; k++) {
		e1 = open_read(getpid());
		e2 = open_read(hold_tid2);
		if (e1 != ENOENT && e2 != ENOENT)
			break;
		sleep_ms(10);
	}
	printf("%d %d %s\n", getpid(), hold_tid2,
	       e1 ? errname(e1) : e2 ? errname(e2) : "OK");
	fflush(stdout);
	for (;;)
		pause();
}

static int cmd_all(void)
{
	char *buf = NULL, *line, *save = NULL;
	int col[4] = { -1, -1, -1, -1 };
	static const char *const want[4] = { "tid", "pid", "uid", "flags" };

	printf("self %d\n", getpid());
	if (read_all_text(&buf)) {
		printf("error %s\n", errname(errno));
		return 1;
	}
	int data = 0;

	/* Header lines (tsa-all, now, states, ...) end with 'fields'. */
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!data && !strncmp(line, "fields ", 7)) {
			char *f, *s2 = NULL;
			int i = 0;

			for (f = strtok_r(line + 7, " ", &s2); f;
			     f = strtok_r(NULL, " ", &s2), i++)
				for (int k = 0; k < 4; k++)
					if (!strcmp(f, want[k]))
						col[k] = i;
			for (int k = 0; k < 4; k++)
				if (col[k] < 0 || col[k] >= 64) {
					printf("error no-column-%s\n", want[k]);
					free(buf);
					return 1;
				}
			data = 1;
			continue;
		}
		if (!data)
			continue;
		unsigned long long v[64] = { 0 };
		char *p = line;
		for (int i = 0; i < 64 && *p; i++) {
			v[i] = strtoull(p, &p, 10);
			while (*p == ' ')
				p++;
			if (i >= col[3] && i >= col[2] && i >= col[1] && i >= col[0])
				break;
		}
		printf("%llu %llu %llu %llu\n", v[col[0]], v[col[1]], v[col[2]],
		       v[col[3]]);
	}
	free(buf);
	return 0;
}

static pid_t hf_tid;
static int cmd_holdfd(void)
{
	int fa = open("/proc/tsa/all", O_RDONLY);
	char self[64], buf[4096], line[16];
	int fs, ea, es;

	snprintf(self, sizeof(self), "/proc/tsa/%d", getpid());
	for (int k = 0; k < 300 && access(self, F_OK); k++)
		sleep_ms(10);
	fs = open(self, O_RDONLY);
	(void)hf_tid;
	if (fa < 0 || fs < 0) {
		printf("open failed: %s\n", strerror(errno));
		return 1;
	}
	/* Read a little of each now, so that the files are in use. */
	if (read(fa, buf, 16) != 16 || read(fs, buf, 16) != 16) {
		printf("first read failed: %s\n", strerror(errno));
		return 1;
	}
	printf("READY\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	ea = read(fa, buf, sizeof(buf)) < 0 ? errno : 0;
	es = pread(fs, buf, sizeof(buf), 0) < 0 ? errno : 0;
	printf("all=%s self=%s\n", errname(ea), errname(es));
	close(fa);
	close(fs);
	return 0;
}

/* --- 6. names a thread gives itself ------------------------------------ */

/* Names that would end a line (and forge the next) or hold the escape. */
static const char *const nm_name[2] = { "a\nUSR 9 9 9 9", "x\\y\001z" };
static const char *const nm_esc[2] = { "a\\012USR 9 9 9 9", "x\\134y\\001z" };
static pid_t nm_tid[2];
static atomic_int nm_ready, nm_quit;

static void *nm_thread(void *arg)
{
	long i = (long)arg;

	prctl(PR_SET_NAME, nm_name[i]);
	nm_tid[i] = (pid_t)syscall(SYS_gettid);
	atomic_fetch_add(&nm_ready, 1);
	while (!atomic_load(&nm_quit))
		sleep_ms(10);
	return NULL;
}

/* Run tsa-prstat ARGS...; its whole stdout in out, exit status back. */
static int run_prstat(char *out, size_t len, char *const argv[])
{
	struct child *ch = calloc(1, sizeof(*ch));
	size_t n = 0;
	char *l;
	int rc;

	out[0] = 0;
	if (!ch || child_start(ch, argv))
		return -1;
	while ((l = child_line(ch, 15000)))
		n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s\n", l);
	rc = child_finish(ch);
	free(ch);
	return rc;
}

static void test_names(void)
{
	pthread_t th[2];
	char path[64], pid[16], *all = NULL, *buf = malloc(1 << 20);
	int forged = 0, found[2] = { 0, 0 }, rc;

	for (long i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, nm_thread, (void *)i);
	while (atomic_load(&nm_ready) < 2)
		sleep_ms(5);
	printf("# threads %d and %d named \"a\\nUSR 9 9 9 9\" and \"x\\\\y\\001z\"\n",
	       nm_tid[0], nm_tid[1]);
	/* Each thread's file: comm escaped, no forged row. */
	for (int i = 0; i < 2; i++) {
		char want[64], *t, *save = NULL;
		int fd, n = 0, has = 0;

		forged = 0;
		snprintf(path, sizeof(path), "/proc/tsa/%d", nm_tid[i]);
		for (int k = 0; k < 300 && access(path, F_OK); k++)
			sleep_ms(10);
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			ssize_t r = read(fd, buf, (1 << 20) - 1);

			n = r > 0 ? (int)r : 0;
			close(fd);
		}
		buf[n] = 0;
		snprintf(want, sizeof(want), "comm %s", nm_esc[i]);
		for (t = strtok_r(buf, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
			has |= !strcmp(t, want);
			forged += !strncmp(t, "USR 9 9", 7);
		}
		tap(has && !forged, "names: /proc/tsa/%d says \"%s\" and has no forged row (%d forged)",
		    nm_tid[i], want, forged);
	}
	/* The bulk file: one line per thread, comm escaped. */
	forged = 0;
	if (read_all_text(&all) == 0) {
		char *t, *save = NULL;

		for (t = strtok_r(all, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
			char *sp = strrchr(t, ' ');

			forged += !strncmp(t, "USR 9", 5);
			for (int i = 0; i < 2; i++)
				if (atoi(t) == nm_tid[i] && sp)
					found[i] += !strcmp(t + strlen(t) - strlen(nm_esc[i]), nm_esc[i]);
		}
	}
	free(all);
	tap(found[0] == 1 && found[1] == 1 && !forged,
	    "names: /proc/tsa/all has one line for each, the names escaped (%d, %d lines; %d forged)",
	    found[0], found[1], forged);
	/* tsa-prstat reads it: table and JSON. */
	snprintf(pid, sizeof(pid), "%d", getpid());
	char *targv[] = { (char *)prstat_path, "-mL", "-c", "-p", pid, "1", "1", NULL };
	rc = run_prstat(buf, 1 << 20, targv);
	tap(rc == 0 && strstr(buf, "aUSR 9 9") && !strstr(buf, "\nUSR 9"),
	    "names: tsa-prstat -mL -c -p %s 1 1 exits 0 and shows the name without its newline (exit %d)",
	    pid, rc);
	char *jargv[] = { (char *)prstat_path, "--json", "-L", "-p", pid, "1", "1", NULL };
	rc = run_prstat(buf, 1 << 20, jargv);
	tap(rc == 0 && strstr(buf, "\"comm\":\"a\\u000aUSR 9 9 9 9\"") &&
	    strstr(buf, "\"comm\":\"x\\\\y\\u0001z\""),
	    "names: tsa-prstat --json -L shows both names exactly, JSON-escaped (exit %d)", rc);
	atomic_store(&nm_quit, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	free(buf);
}

/*
 * execwait FIFO PROG: print our pid, wait for a line on FIFO, then exec
 * PROG sleep (a setuid-root copy of tsa-ptest in the access test).
 */
static int cmd_execwait(const char *fifo, const char *prog)
{
	char c;
	int fd;

	printf("%d\n", getpid());
	fflush(stdout);
	fd = open(fifo, O_RDONLY);
	if (fd < 0 || read(fd, &c, 1) != 1)
		return 1;
	close(fd);
	execl(prog, prog, "sleep", (char *)NULL);
	return 127;
}

/* euid of a process from /proc/PID/status, -1 if unknown. */
static long proc_euid(pid_t pid)
{
	char path[64], line[256];
	long r = -1, euid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %*d %ld", &euid) == 1)
			r = euid;
	fclose(f);
	return r;
}

/*
 * reread PID FIFO: open /proc/tsa/PID and read it, tell the execwait
 * process on FIFO to exec, wait until its euid is 0, read the same
 * descriptor again. Prints "before=ERR after=ERR euid=N".
 */
static int cmd_reread(pid_t pid, const char *fifo)
{
	char path[64], buf[8192];
	int fd, w, before, after;
	long euid = -1;

	snprintf(path, sizeof(path), "/proc/tsa/%d", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		printf("before=%s after=- euid=-\n", errname(errno));
		return 1;
	}
	before = read(fd, buf, sizeof(buf)) > 0 ? 0 : errno;
	w = open(fifo, O_WRONLY);
	if (w < 0 || write(w, "g", 1) != 1)
		return 1;
	close(w);
	for (int k = 0; k < 500 && (euid = proc_euid(pid)) != 0; k++)
		sleep_ms(10);
	after = pread(fd, buf, sizeof(buf), 0) > 0 ? 0 : errno;
	printf("before=%s after=%s euid=%ld\n", errname(before), errname(after), euid);
	close(fd);
	return 0;
}

/*
 * fdhog N: open /proc/tsa/all N times, reading one byte of each (the
 * snapshot is taken at open and held until close); print "opened K
 * ERRNO" (ERRNO of the first failure, OK if none), wait for a line on
 * stdin, exit.
 */
static int cmd_fdhog(int n)
{
	int k, err = 0;
	char c, line[16];

	for (k = 0; k < n; k++) {
		int fd = open("/proc/tsa/all", O_RDONLY);

		if (fd < 0 || read(fd, &c, 1) != 1) {
			err = errno;
			break;
		}
		if ((k + 1) % 20 == 0)	/* in case a memcg OOM kill ends us */
			printf("progress %d\n", k + 1);
	}
	printf("opened %d %s\n", k, errname(err));
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	return 0;
}

/*
 * phases SECS: a thread named "phases" spins SECS (USR), sleeps SECS
 * (SLP), then waits SECS for a mutex that its "holder" thread holds
 * asleep (LCK): the recorder's test replays each phase's window.
 * Prints "pid PID tid TID", then "phase NAME START END" as each ends
 * (CLOCK_REALTIME, seconds).
 */
static pthread_mutex_t ph_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int ph_held;

static double ph_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void ph_sleep(double secs)
{
	struct timespec ts = { (time_t)secs,
			       (long)((secs - (time_t)secs) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *ph_holder(void *arg)
{
	prctl(PR_SET_NAME, "holder");
	pthread_mutex_lock(&ph_lock);
	atomic_store(&ph_held, 1);
	ph_sleep(*(double *)arg);
	pthread_mutex_unlock(&ph_lock);
	return NULL;
}

/*
 * lockwait: a "waiter" thread blocks on a mutex that the main thread
 * holds asleep, until the process is killed: LCK at one second a second
 * (tsa-exporter's Prometheus test). Prints "ready" once it waits.
 */
static void *lw_waiter(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "waiter");
	pthread_mutex_lock(&ph_lock);
	pthread_mutex_unlock(&ph_lock);
	return NULL;
}

static int lockwait(void)
{
	pthread_t w;

	pthread_mutex_lock(&ph_lock);
	if (pthread_create(&w, NULL, lw_waiter, NULL))
		return 1;
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

/*
 * churn N: N threads made and joined, 100 at a time, each exiting at
 * once; prints N. Threads that come and go under a reader.
 */
static void *ch_nothing(void *arg)
{
	return arg;
}

static int churn(long n)
{
	pthread_t t[100];
	long done = 0;
	int i, k;

	while (done < n) {
		for (k = 0; k < 100 && done + k < n; k++)
			if (pthread_create(&t[k], NULL, ch_nothing, NULL))
				break;
		for (i = 0; i < k; i++)
			pthread_join(t[i], NULL);
		if (!k)
			return 1;
		done += k;
	}
	printf("%ld\n", done);
	return 0;
}

static int phases(double secs)
{
	double t0, m0;
	pthread_t h;

	prctl(PR_SET_NAME, "phases");
	printf("pid %d tid %ld\n", getpid(), (long)syscall(SYS_gettid));
	t0 = ph_clock(CLOCK_REALTIME);
	m0 = ph_clock(CLOCK_MONOTONIC);
	while (ph_clock(CLOCK_MONOTONIC) - m0 < secs)
		;
	printf("phase spin %.3f %.3f\n", t0, ph_clock(CLOCK_REALTIME));
	t0 = ph_clock(CLOCK_REALTIME);
	ph_sleep(secs);
	printf("phase sleep %.3f %.3f\n", t0, ph_clock(CLOCK_REALTIME));
	if (pthread_create(&h, NULL, ph_holder, &secs))
		return 1;
	while (!atomic_load(&ph_held))
		ph_sleep(0.001);
	t0 = ph_clock(CLOCK_REALTIME);
	pthread_mutex_lock(&ph_lock);
	printf("phase lock %.3f %.3f\n", t0, ph_clock(CLOCK_REALTIME));
	pthread_mutex_unlock(&ph_lock);
	pthread_join(h, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && !strcmp(argv[1], "--first")) {
		test_no = atoi(argv[2]) - 1;
		argc -= 2;
		argv += 2;
	}
	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "prstat") && argc == 3) {
		prstat_path = argv[2];
		test_prstat();
	} else if (!strcmp(argv[1], "exits") && argc == 3) {
		prstat_path = argv[2];
		test_exits();
	} else if (!strcmp(argv[1], "storm")) {
		test_storm();
	} else if (!strcmp(argv[1], "names") && argc == 3) {
		prstat_path = argv[2];
		test_names();
	} else if (!strcmp(argv[1], "stalefd")) {
		test_stalefd();
	} else if (!strcmp(argv[1], "badwrite")) {
		test_badwrite();
	} else if (!strcmp(argv[1], "hold")) {
		return cmd_hold(argc > 2 && !strcmp(argv[2], "nodump"));
	} else if (!strcmp(argv[1], "open") && argc >= 3) {
		for (int i = 2; i < argc; i++)
			printf("%s%s", i > 2 ? " " : "",
			       errname(open_read(atoi(argv[i]))));
		printf("\n");
		return 0;
	} else if (!strcmp(argv[1], "all")) {
		return cmd_all();
	} else if (!strcmp(argv[1], "holdfd")) {
		return cmd_holdfd();
	} else if (!strcmp(argv[1], "execwait") && argc == 4) {
		return cmd_execwait(argv[2], argv[3]);
	} else if (!strcmp(argv[1], "reread") && argc == 4) {
		return cmd_reread(atoi(argv[2]), argv[3]);
	} else if (!strcmp(argv[1], "fdhog") && argc == 3) {
		return cmd_fdhog(atoi(argv[2]));
	} else if (!strcmp(argv[1], "sleep")) {
		for (;;)
			pause();
	} else if (!strcmp(argv[1], "tick") && argc == 3) {
		/* Sleeps of MS milliseconds, each ended by its timer. */
		for (;;)
			ph_sleep(atof(argv[2]) / 1000);
	} else if (!strcmp(argv[1], "phases") && argc == 3) {
		return phases(atof(argv[2]));
	} else if (!strcmp(argv[1], "lockwait")) {
		return lockwait();
	} else if (!strcmp(argv[1], "churn") && argc == 3) {
		return churn(atol(argv[2]));
	} else {
		goto usage;
	}
	return failures ? 1 : 0;
usage:
	fprintf(stderr, "usage: tsa-ptest [--first N] prstat|exits|names PRSTAT | storm | stalefd | badwrite | hold [nodump] | open TID | all | holdfd | execwait FIFO PROG | reread PID FIFO | fdhog N | sleep | tick MS | phases SECS | lockwait | churn N\n");
	return 2;
}
