// SPDX-License-Identifier: GPL-2.0
/*
 * Who woke it: known-answer workloads for tsa's wakeup attribution (the
 * "waker" rows of /proc/tsa/<tid> and /proc/tsa/wakers). TAP on stdout.
 *
 *   tsa-waketest [--first N] [TEST...]
 *
 *   wk-cond   two producers wake one consumer (a futex) 3:1: its wakers'
 *             wakeups 75 % / 25 %, within one
 *   wk-mutex  a mutex held by two threads 3:1 of the time: the waiter's
 *             LCK ended by each in that ratio of time, within 5 %
 *   wk-pipe   a pipe chain A -> B -> C: C woken by B, B by A; A sleeps
 *             in clock_nanosleep, ended by its timer
 *   wk-stop   SIGSTOP/SIGCONT: the stop ended by the sender
 *   wk-tcp    a loopback TCP echo: the server's waits ended by softirq
 *             (NET_RX with interrupts=1)
 *   wk-iow    O_DIRECT reads on the suite's virtio disk: IOW ended by
 *             the block completion's context (hardirq or softirq)
 *   wk-sum    every thread's waker rows, other and none add up exactly
 *             to its time asleep and stopped; /proc/tsa/wakers agrees
 *
 * Each known answer is the workload's own construction: every wakeup of
 * the woken thread is made by one known waker, after the kernel's own
 * count of its voluntary switches says it is asleep.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tsa-read.h"

#define WK_MAX 8

/* A "waker" line of /proc/tsa/<tid>. */
struct wk_row {
	int state;
	uint64_t n, ns, longest, lat;
	char kind[32];
	int tid;
	char name[64];
};

struct wk {
	struct tsa_thread t;
	int n;
	struct wk_row r[WK_MAX];
};

static int wk_parse_line(const char *l, struct wk_row *r)
{
	char state[8];
	double pct_;
	int k;

	k = sscanf(l, "waker %7s %lu %lu %lf %lu %lu %31s %d %63[^\n]",
		   state, &r->n, &r->ns, &pct_, &r->longest, &r->lat, r->kind,
		   &r->tid, r->name);
	if (k != 9)
		return -1;
	r->state = strcmp(state, "-") ? tsa_state_index(state) : -1;
	return 0;
}

/* The thread's numbers and its waker lines, from one read. */
static int wk_read(pid_t tid, struct wk *w)
{
	char path[64], *buf, *l;
	FILE *f;
	size_t len;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/tsa/%d", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	buf = calloc(1, 1 << 16);
	len = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
	fclose(f);
	if (!buf || !len)
		goto out;
	if (tsa_parse_thread(buf, &w->t))
		goto out;
	w->n = 0;
	for (l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, "waker ", 6) || w->n == WK_MAX)
			continue;
		if (wk_parse_line(l, &w->r[w->n]))
			goto out;
		w->n++;
	}
	ret = 0;
out:
	free(buf);
	return ret;
}

static int wk_read_or_fail(pid_t tid, struct wk *w, const char *what)
{
	char path[64];

	/* A new thread's entry is made by the module's work item, soon. */
	snprintf(path, sizeof(path), "/proc/tsa/%d", tid);
	for (int i = 0; i < 3000 && access(path, F_OK); i++)
		usleep(1000);
	if (wk_read(tid, w) == 0)
		return 0;
	tap(0, "%s: read /proc/tsa/%d: %s", what, tid, strerror(errno));
	return -1;
}

/* The row of a thread waker @tid in state @state (-1: any), or NULL. */
static const struct wk_row *wk_find(const struct wk *w, int tid, int state)
{
	for (int i = 0; i < w->n; i++)
		if (w->r[i].tid == tid && !strncmp(w->r[i].kind, "thread", 6) &&
		    (state < 0 || w->r[i].state == state))
			return &w->r[i];
	return NULL;
}

/* The row whose kind begins with @kind (and @state, -1 any), or NULL. */
static const struct wk_row *wk_find_kind(const struct wk *w, const char *kind,
					 int state)
{
	for (int i = 0; i < w->n; i++)
		if (!strncmp(w->r[i].kind, kind, strlen(kind)) &&
		    (state < 0 || w->r[i].state == state))
			return &w->r[i];
	return NULL;
}

static const char *wk_str(const struct wk *w)
{
	static char b[1024];
	size_t o = 0;

	b[0] = 0;
	for (int i = 0; i < w->n && o < sizeof(b) - 128; i++)
		o += snprintf(b + o, sizeof(b) - o, "%s[%s %s %d n=%lu ns=%lu lat=%lu]",
			      i ? " " : "", w->r[i].kind,
			      w->r[i].state < 0 ? "-" :
			      tsa_state_name(w->r[i].state), w->r[i].tid,
			      w->r[i].n, w->r[i].ns, w->r[i].lat);
	return b;
}

/* Each waker line's n and ns grown from @a to @b (rows matched by who). */
static void wk_delta(const struct wk *a, const struct wk *b, int tid,
		     int state, uint64_t *n, uint64_t *ns)
{
	const struct wk_row *x = wk_find(a, tid, state);
	const struct wk_row *y = wk_find(b, tid, state);

	*n = y ? y->n - (x ? x->n : 0) : 0;
	*ns = y ? y->ns - (x ? x->ns : 0) : 0;
}

/* The kernel's count of @tid's voluntary switches. */
static long nvcsw_of(pid_t tid)
{
	char path[64], line[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static long my_nvcsw(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

/* Until @tid has switched out voluntarily since its count was @since. */
static void wait_asleep(pid_t tid, long since)
{
	while (nvcsw_of(tid) <= since)
		usleep(200);
}

static long futex(atomic_int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* Until thread @tid of this process is reaped (a join is before). */
static void gone(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", tid);
	for (int i = 0; i < 5000 && access(path, F_OK) == 0; i++)
		usleep(1000);
}

/* --- wk-cond: two producers, one consumer, 3:1 ------------------------ */

#define COND_ROUNDS 10		/* each: A, A, A, B */

static struct {
	atomic_int word, taken, turn, stop, release;
	atomic_long nv;		/* the consumer's nvcsw when it took one */
	pid_t consumer, prod[2];
} cw;

static void *cond_consumer(void *arg)
{
	(void)arg;
	cw.consumer = gettid_();
	atomic_store(&cw.nv, my_nvcsw());
	atomic_fetch_add(&cw.taken, 1);		/* ready: taken 1 */
	while (!atomic_load(&cw.stop)) {
		while (!atomic_load(&cw.word))
			futex(&cw.word, FUTEX_WAIT_PRIVATE, 0);
		atomic_store(&cw.word, 0);
		atomic_store(&cw.nv, my_nvcsw());
		atomic_fetch_add(&cw.taken, 1);
	}
	return NULL;
}

/* Item k (from 1) is producer A's unless k % 4 == 0. */
static void *cond_producer(void *arg)
{
	long me = (long)arg;
	int k;

	cw.prod[me] = gettid_();
	for (;;) {
		k = atomic_load(&cw.turn);
		if (k > COND_ROUNDS * 4)
			break;
		if ((k % 4 == 0) != (me == 1) || atomic_load(&cw.taken) != k) {
			usleep(100);
			continue;
		}
		/* The consumer took item k - 1 and is asleep again. */
		wait_asleep(cw.consumer, atomic_load(&cw.nv));
		atomic_store(&cw.turn, k + 1);
		atomic_store(&cw.word, 1);
		futex(&cw.word, FUTEX_WAKE_PRIVATE, 1);
	}
	/* Alive until the consumer is read: named, not exited. */
	while (!atomic_load(&cw.release))
		usleep(1000);
	return NULL;
}

static void test_cond(void)
{
	pthread_t c, p[2];
	struct wk a, b, e;
	uint64_t na, nb, ta, tb;
	int ok;

	atomic_store(&cw.turn, 1);
	pthread_create(&c, NULL, cond_consumer, NULL);
	while (atomic_load(&cw.taken) < 1)
		usleep(100);
	wait_asleep(cw.consumer, atomic_load(&cw.nv));
	ok = !wk_read_or_fail(cw.consumer, &a, "wk-cond");
	pthread_create(&p[0], NULL, cond_producer, (void *)0L);
	pthread_create(&p[1], NULL, cond_producer, (void *)1L);
	while (atomic_load(&cw.taken) < COND_ROUNDS * 4 + 1)
		usleep(500);
	wait_asleep(cw.consumer, atomic_load(&cw.nv));
	ok = ok && !wk_read_or_fail(cw.consumer, &b, "wk-cond");
	atomic_store(&cw.release, 1);
	pthread_join(p[0], NULL);
	pthread_join(p[1], NULL);
	gone(cw.prod[0]);
	gone(cw.prod[1]);
	ok = ok && !wk_read_or_fail(cw.consumer, &e, "wk-cond");
	atomic_store(&cw.stop, 1);
	atomic_store(&cw.word, 1);
	futex(&cw.word, FUTEX_WAKE_PRIVATE, 1);
	pthread_join(c, NULL);
	if (!ok)
		return;
	wk_delta(&a, &b, cw.prod[0], TSA_LCK, &na, &ta);
	wk_delta(&a, &b, cw.prod[1], TSA_LCK, &nb, &tb);
	tap(na + nb == COND_ROUNDS * 4 && na + 1 >= COND_ROUNDS * 3 &&
	    na <= COND_ROUNDS * 3 + 1,
	    "wk-cond: the consumer's LCK woken by A and B 3:1 (expected %d and %d wakeups within one, %d in all; saw %lu and %lu: %s)",
	    COND_ROUNDS * 3, COND_ROUNDS, COND_ROUNDS * 4, na, nb, wk_str(&b));
	tap(wk_find(&b, cw.prod[0], TSA_LCK) &&
	    !strcmp(wk_find(&b, cw.prod[0], TSA_LCK)->name, "tsa-waketest"),
	    "wk-cond: a live waker is named (expected thread %d tsa-waketest; saw %s)",
	    cw.prod[0], wk_str(&b));
	/* Gone: never named as whatever task has that tid next. */
	ok = 1;
	for (int i = 0; i < e.n; i++)
		if (e.r[i].tid == cw.prod[0] || e.r[i].tid == cw.prod[1])
			ok &= !strcmp(e.r[i].kind, "exited") &&
			      !strcmp(e.r[i].name, "-");
	tap(ok && e.n > 1, "wk-cond: exited wakers are named exited (saw %s)",
	    wk_str(&e));
}

/* --- wk-mutex: a waiter's LCK split by the holders, 3:1 of the time --- */

#define MUTEX_ROUNDS 4
#define MUTEX_LONG_MS 90
#define MUTEX_SHORT_MS 30

static struct {
	pthread_mutex_t m;
	atomic_int go, done, release;
	atomic_long nv;
	pid_t waiter, holder[2];
	uint64_t waited[2];	/* the waiter's waits for each holder */
} mw = { .m = PTHREAD_MUTEX_INITIALIZER };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Spins between rounds: its only sleeps are on the mutex. */
static void *mutex_waiter(void *arg)
{
	int seen = 0;
	uint64_t t;

	(void)arg;
	mw.waiter = gettid_();
	for (int r = 0; r < MUTEX_ROUNDS * 2; r++) {
		while (atomic_load(&mw.go) == seen)
			;
		seen = atomic_load(&mw.go);
		atomic_store(&mw.nv, my_nvcsw());
		t = now_ns();
		pthread_mutex_lock(&mw.m);
		/* Its own clock: from asking for the lock to holding it. */
		mw.waited[r % 2] += now_ns() - t;
		pthread_mutex_unlock(&mw.m);
		atomic_fetch_add(&mw.done, 1);
	}
	/* Alive (and awake) until read. */
	while (!atomic_load(&mw.release))
		;
	return NULL;
}

static void *mutex_holder(void *arg)
{
	long me = (long)arg;

	mw.holder[me] = gettid_();
	for (int r = 0; r < MUTEX_ROUNDS * 2; r++) {
		if (r % 2 != me)
			continue;
		while (atomic_load(&mw.done) != r)
			usleep(200);
		pthread_mutex_lock(&mw.m);
		atomic_store(&mw.nv, -1);
		atomic_fetch_add(&mw.go, 1);
		while (atomic_load(&mw.nv) < 0)
			;
		wait_asleep(mw.waiter, atomic_load(&mw.nv));
		sleep_ms(me ? MUTEX_SHORT_MS : MUTEX_LONG_MS);
		pthread_mutex_unlock(&mw.m);
	}
	/* Alive until the waiter is read: named, not exited. */
	while (!atomic_load(&mw.release))
		usleep(1000);
	return NULL;
}

static void test_mutex(void)
{
	pthread_t w, h[2];
	struct wk a, b;
	uint64_t n0, n1, t0, t1;
	double ratio, held;
	int ok;

	pthread_create(&w, NULL, mutex_waiter, NULL);
	while (!mw.waiter)
		usleep(100);
	ok = !wk_read_or_fail(mw.waiter, &a, "wk-mutex");
	pthread_create(&h[0], NULL, mutex_holder, (void *)0L);
	pthread_create(&h[1], NULL, mutex_holder, (void *)1L);
	while (atomic_load(&mw.done) < MUTEX_ROUNDS * 2)
		usleep(500);
	ok = ok && !wk_read_or_fail(mw.waiter, &b, "wk-mutex");
	atomic_store(&mw.release, 1);
	pthread_join(w, NULL);
	pthread_join(h[0], NULL);
	pthread_join(h[1], NULL);
	if (!ok)
		return;
	wk_delta(&a, &b, mw.holder[0], TSA_LCK, &n0, &t0);
	wk_delta(&a, &b, mw.holder[1], TSA_LCK, &n1, &t1);
	ratio = t1 ? (double)t0 / (double)t1 : 0;
	held = (double)mw.waited[0] / (double)mw.waited[1];
	tap(n0 == MUTEX_ROUNDS && n1 == MUTEX_ROUNDS &&
	    ratio > held * 0.95 && ratio < held * 1.05,
	    "wk-mutex: the waiter's LCK ended by the holders in the ratio of its waits for each (expected %d wakeups each and a time ratio of %.3f +- 5%%: holds of %d and %d ms, the waiter's own clock around its lock calls %.1f and %.1f ms; saw %lu and %lu, %.1f and %.1f ms, ratio %.3f: %s)",
	    MUTEX_ROUNDS, held, MUTEX_LONG_MS, MUTEX_SHORT_MS,
	    mw.waited[0] / 1e6, mw.waited[1] / 1e6, n0, n1, t0 / 1e6,
	    t1 / 1e6, ratio, wk_str(&b));
}

/* --- wk-pipe: A -> B -> C, A paced by clock_nanosleep ----------------- */

#define PIPE_ITEMS 40

static struct {
	int ab[2], bc[2];
	pid_t a, b, c;
	atomic_int ready, read_done;
} pw;

static void *pipe_a(void *arg)
{
	struct timespec ts = { 0, 5 * 1000000 };
	char x = 'x';

	(void)arg;
	pw.a = gettid_();
	atomic_fetch_add(&pw.ready, 1);
	while (atomic_load(&pw.ready) < 3)
		usleep(100);
	for (int i = 0; i < PIPE_ITEMS; i++) {
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		if (write(pw.ab[1], &x, 1) != 1)
			break;
	}
	/* Alive while B and C are read: named, not exited. */
	while (!atomic_load(&pw.read_done))
		usleep(1000);
	close(pw.ab[1]);
	return NULL;
}

static void *pipe_b(void *arg)
{
	char x;

	(void)arg;
	pw.b = gettid_();
	atomic_fetch_add(&pw.ready, 1);
	while (read(pw.ab[0], &x, 1) == 1)
		if (write(pw.bc[1], &x, 1) != 1)
			break;
	close(pw.bc[1]);
	return NULL;
}

static void *pipe_c(void *arg)
{
	char x;

	(void)arg;
	pw.c = gettid_();
	atomic_fetch_add(&pw.ready, 1);
	while (read(pw.bc[0], &x, 1) == 1)
		;
	return NULL;
}

/*
 * tsa-prstat --chain from C (when $TSA_PRSTAT names it): B, then A, then
 * A's timer. Its lines: "... THREAD/TID <- WAKER/TID" or "<- timer".
 */
static void chain_check(void)
{
	const char *prstat = getenv("TSA_PRSTAT");
	char cmd[512], line[512], saw[1024] = "", *arrow, *slash;
	int from[3], to[3], step = 0, good = 0;
	FILE *f;

	if (!prstat || access(prstat, X_OK))
		return;
	from[0] = pw.c, to[0] = pw.b;
	from[1] = pw.b, to[1] = pw.a;
	from[2] = pw.a, to[2] = 0;	/* the timer */
	snprintf(cmd, sizeof(cmd), "%s --chain %d 1 1 2>&1", prstat, pw.c);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strlen(saw) + strlen(line) < sizeof(saw))
			strcat(saw, line);
		arrow = strstr(line, " <- ");
		/* A step's line begins with its tid (not the header). */
		if (!arrow || step > 2 || atoi(line) <= 0)
			continue;
		*arrow = 0;
		slash = strrchr(line, '/');
		line[strcspn(line, "\n")] = 0;
		arrow[4 + strcspn(arrow + 4, "\n")] = 0;
		if (slash && atoi(slash + 1) == from[step]) {
			slash = strrchr(arrow + 4, '/');
			good += to[step] ? slash && atoi(slash + 1) == to[step] :
				!strcmp(arrow + 4, "timer");
		}
		step++;
	}
	if (f)
		pclose(f);
	for (char *c = saw; *c; c++)	/* one TAP line */
		if (*c == '\n')
			*c = '|';
	tap(good == 3 && step == 3,
	    "wk-pipe: tsa-prstat --chain from C names B, then A, then A's timer (expected %d <- %d <- %d <- timer; saw: %s)",
	    pw.c, pw.b, pw.a, saw);
}

static void test_pipe(void)
{
	pthread_t t[3];
	struct wk b, c;
	const struct wk_row *r;
	int ok = 1;

	if (pipe(pw.ab) || pipe(pw.bc)) {
		tap(0, "wk-pipe: pipe: %s", strerror(errno));
		return;
	}
	pthread_create(&t[2], NULL, pipe_c, NULL);
	pthread_create(&t[1], NULL, pipe_b, NULL);
	pthread_create(&t[0], NULL, pipe_a, NULL);
	/* All items through: B and C asleep in read again. */
	sleep_ms(PIPE_ITEMS * 5 + 300);
	ok &= !wk_read_or_fail(pw.b, &b, "wk-pipe B");
	ok &= !wk_read_or_fail(pw.c, &c, "wk-pipe C");
	chain_check();
	atomic_store(&pw.read_done, 1);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	pthread_join(t[2], NULL);
	close(pw.ab[0]);
	close(pw.bc[0]);
	if (!ok)
		return;
	r = wk_find(&c, pw.b, TSA_IDL);
	tap(r && r->n >= PIPE_ITEMS - 1 && r == &c.r[0],
	    "wk-pipe: C's reads woken by B (expected thread %d IDL first, >= %d wakeups; saw %s)",
	    pw.b, PIPE_ITEMS - 1, wk_str(&c));
	r = wk_find(&b, pw.a, TSA_IDL);
	tap(r && r->n >= PIPE_ITEMS - 1 && r == &b.r[0],
	    "wk-pipe: B's reads woken by A (expected thread %d IDL first, >= %d wakeups; saw %s)",
	    pw.a, PIPE_ITEMS - 1, wk_str(&b));
}

/* A thread in clock_nanosleep is woken by its timer, not by a thread. */
static void test_sleeper(void)
{
	struct timespec ts = { 0, 2 * 1000000 };
	struct wk a, b;
	const struct wk_row *x, *y;
	uint64_t n;

	if (wk_read_or_fail(gettid_(), &a, "wk-sleep"))
		return;
	for (int i = 0; i < 50; i++)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	if (wk_read_or_fail(gettid_(), &b, "wk-sleep"))
		return;
	x = wk_find_kind(&a, "timer", TSA_SLP);
	y = wk_find_kind(&b, "timer", TSA_SLP);
	n = y ? y->n - (x ? x->n : 0) : 0;
	tap(n >= 49 && n <= 50,
	    "wk-sleep: clock_nanosleep's stays ended by its timer (expected 50 timer SLP wakeups, one may be in progress; saw %lu: %s)",
	    n, wk_str(&b));
}

/* --- wk-stop: SIGSTOP and SIGCONT from this thread -------------------- */

static void test_stop(void)
{
	struct wk a, b;
	const struct wk_row *x, *y;
	pid_t child = fork();
	uint64_t n, ns;

	if (child == 0) {
		for (;;)
			;
	}
	usleep(50000);
	if (wk_read_or_fail(child, &a, "wk-stop"))
		goto out;
	/*
	 * Each stop lasts 30 ms from when the child is seen stopped, not
	 * from the signal: a spinning child on a busy host's vCPU may take
	 * milliseconds to take it (67 ms of 90 were seen once).
	 */
	for (int i = 0; i < 3; i++) {
		int st;

		kill(child, SIGSTOP);
		if (waitpid(child, &st, WUNTRACED) != child || !WIFSTOPPED(st))
			break;
		usleep(30000);
		kill(child, SIGCONT);
		usleep(20000);
	}
	if (wk_read_or_fail(child, &b, "wk-stop"))
		goto out;
	x = wk_find(&a, gettid_(), TSA_STP);
	y = wk_find(&b, gettid_(), TSA_STP);
	n = y ? y->n - (x ? x->n : 0) : 0;
	ns = y ? y->ns - (x ? x->ns : 0) : 0;
	tap(n == 3 && ns >= 3 * 25 * 1000000ULL &&
	    ns <= b.t.ns[TSA_STP] - a.t.ns[TSA_STP],
	    "wk-stop: the stops ended by the sender (expected 3 STP wakeups by thread %d, >= 75 ms and no more than STP's %.1f ms; saw %lu, %.1f ms: %s)",
	    gettid_(), (b.t.ns[TSA_STP] - a.t.ns[TSA_STP]) / 1e6, n, ns / 1e6,
	    wk_str(&b));
out:
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* --- wk-tcp: a loopback echo; the server is woken by softirq ---------- */

#define TCP_MSGS 50

static int tcp_port;
static pid_t tcp_server_tid;

static void *tcp_server(void *arg)
{
	int ls = (int)(long)arg, s;
	char buf[64];
	ssize_t k;

	tcp_server_tid = gettid_();
	s = accept(ls, NULL, NULL);
	if (s < 0)
		return NULL;
	while ((k = read(s, buf, sizeof(buf))) > 0)
		if (write(s, buf, k) != k)
			break;
	close(s);
	return NULL;
}

static void test_tcp(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	long irq = tsa_module_param("tsa", "interrupts");
	const char *want = irq == 1 ? "softirq:NET_RX" : "softirq";
	const struct wk_row *r;
	struct wk a, b;
	pthread_t t;
	char buf[8] = "ping";
	int ls, s, ok = 1;
	uint64_t n = 0;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (void *)&sa, sizeof(sa)) || listen(ls, 1) ||
	    getsockname(ls, (void *)&sa, &sl)) {
		tap(0, "wk-tcp: listen: %s", strerror(errno));
		return;
	}
	tcp_port = ntohs(sa.sin_port);
	pthread_create(&t, NULL, tcp_server, (void *)(long)ls);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (void *)&sa, sizeof(sa))) {
		tap(0, "wk-tcp: connect: %s", strerror(errno));
		return;
	}
	for (int i = 0; i < 3; i++)
		if (write(s, buf, 4) != 4 || read(s, buf, 4) != 4)
			ok = 0;
	usleep(10000);
	ok = ok && !wk_read_or_fail(tcp_server_tid, &a, "wk-tcp");
	for (int i = 0; ok && i < TCP_MSGS; i++) {
		usleep(2000);	/* the server is asleep in read */
		if (write(s, buf, 4) != 4 || read(s, buf, 4) != 4)
			ok = 0;
	}
	usleep(10000);
	ok = ok && !wk_read_or_fail(tcp_server_tid, &b, "wk-tcp");
	close(s);
	pthread_join(t, NULL);
	close(ls);
	if (!ok)
		return;
	for (int i = 0; i < b.n; i++) {
		const struct wk_row *x;

		if (strcmp(b.r[i].kind, want))
			continue;
		x = wk_find_kind(&a, want, b.r[i].state);
		n += b.r[i].n - (x ? x->n : 0);
	}
	r = wk_find_kind(&b, "thread", -1);
	tap(n >= TCP_MSGS * 9 / 10 && (!r || r->n < n),
	    "wk-tcp: the server's reads ended by %s (expected >= %d of %d wakeups, more than any thread's; saw %lu: %s)",
	    want, TCP_MSGS * 9 / 10, TCP_MSGS, n, wk_str(&b));
}

/* --- wk-iow: O_DIRECT reads, woken by the block completion ------------ */

#define IOW_READS 200

/*
 * Reads of the waits suite's disk file ($TSA_WAIT_DIR/data, behind
 * dm-delay) with O_DIRECT: each sleeps in IOW until the request
 * completes, and the completion (virtio's interrupt, or the block
 * softirq it hands to) wakes it: a context, never a thread.
 */
static void test_iow(void)
{
	const char *dir = getenv("TSA_WAIT_DIR");
	char path[256];
	void *buf = NULL;
	struct wk a, b;
	uint64_t ctx = 0, all = 0;
	int fd;

	if (!dir || !getenv("TSA_CALLS_DISK") ||
	    strcmp(getenv("TSA_CALLS_DISK"), "1")) {
		printf("# wk-iow: no disk (TSA_WAIT_DIR, TSA_CALLS_DISK)\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		tap(0, "wk-iow: open %s O_DIRECT: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	if (wk_read_or_fail(gettid_(), &a, "wk-iow"))
		goto out;
	for (int i = 0; i < IOW_READS; i++)
		if (pread(fd, buf, 4096, (off_t)(i * 37 % 8192) * 4096) != 4096) {
			tap(0, "wk-iow: pread: %s", strerror(errno));
			goto out;
		}
	if (wk_read_or_fail(gettid_(), &b, "wk-iow"))
		goto out;
	for (int i = 0; i < b.n; i++) {
		const struct wk_row *x;
		uint64_t n;

		if (b.r[i].state != TSA_IOW)
			continue;
		x = NULL;
		for (int j = 0; j < a.n; j++)
			if (!strcmp(a.r[j].kind, b.r[i].kind) &&
			    a.r[j].tid == b.r[i].tid &&
			    a.r[j].state == TSA_IOW)
				x = &a.r[j];
		n = b.r[i].n - (x ? x->n : 0);
		all += n;
		if (!strncmp(b.r[i].kind, "hardirq", 7) ||
		    !strncmp(b.r[i].kind, "softirq", 7))
			ctx += n;
	}
	tap(all >= IOW_READS * 9 / 10 && ctx == all,
	    "wk-iow: O_DIRECT reads' IOW ended by the block completion's context (expected >= %d IOW wakeups, all by hardirq or softirq; saw %lu, %lu of them: %s)",
	    IOW_READS * 9 / 10, all, ctx, wk_str(&b));
out:
	free(buf);
	close(fd);
}

/* --- wk-sum: the rows add up, in every thread's file ------------------ */

static void test_sum(void)
{
	DIR *d = opendir("/proc/tsa");
	struct dirent *e;
	int threads = 0, born = 0, bad = 0, badtid = 0;
	uint64_t off = 0, rows = 0, badnone = 0, badopen = 0;
	struct wk w;

	if (!d) {
		tap(0, "wk-sum: opendir /proc/tsa: %s", strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		uint64_t s = 0, sum = 0, none = 0, open = 0;
		int tid = atoi(e->d_name), st = 0;

		if (tid <= 0 || wk_read(tid, &w))
			continue;
		for (st = TSA_TFL; st <= TSA_SLP; st++)
			s += w.t.ns[st];
		s += w.t.ns[TSA_STP];
		for (int i = 0; i < w.n; i++) {
			if (!strcmp(w.r[i].kind, "none"))
				none = w.r[i].ns;
			else
				sum += w.r[i].ns;
		}
		st = w.t.state;
		if ((st >= TSA_TFL && st <= TSA_SLP) || st == TSA_STP)
			open = w.t.state_ns;
		threads++;
		born += !w.t.since_load;
		/*
		 * Rows never hold more than the stays; a thread born under
		 * tsa has every ended stay's waker: none is its open stay.
		 */
		if ((sum > s || sum + none != s ||
		     (!w.t.since_load && none != open)) && !bad++) {
			badtid = tid, off = s, rows = sum;
			badnone = none, badopen = open;
		}
	}
	closedir(d);
	tap(threads > 10 && born > 0 && !bad,
	    "wk-sum: every thread's waker rows and other add up to its time asleep and stopped but what no wakeup ended, which is only the stay in progress in %d threads born under tsa (checked %d threads; %d differ, first tid %d: states %lu, rows %lu, none %lu, open stay %lu)",
	    born, threads, bad, badtid, off, rows, badnone, badopen);
}

/* /proc/tsa/wakers: the format, and this process's lines. */
static void test_bulk(void)
{
	FILE *f = fopen("/proc/tsa/wakers", "r");
	char line[512];
	int head = 0, mine = 0, bad = 0, none = 0;

	if (!f) {
		tap(0, "wk-bulk: open /proc/tsa/wakers: %s", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		int tid, pid, wtid;
		unsigned int uid, flags;
		unsigned long el, at, n, ns, mx, lat;
		char st[8], kind[32];

		if (!strcmp(line, "tsa-wakers 1\n") ||
		    !strcmp(line, "fields tid pid uid flags elapsed at state wakeups ns max lat_ns kind waker_tid name\n")) {
			head++;
			continue;
		}
		if (!strncmp(line, "now ", 4) || !strncmp(line, "rows ", 5))
			continue;
		if (sscanf(line, "%d %d %u %u %lu %lu %7s %lu %lu %lu %lu %31s %d",
			   &tid, &pid, &uid, &flags, &el, &at, st, &n, &ns, &mx,
			   &lat, kind, &wtid) != 13) {
			bad++;
			continue;
		}
		if (pid == getpid())
			mine++;
		none += !strcmp(kind, "none");
	}
	fclose(f);
	tap(head == 2 && !bad && mine > 0 && none > 10,
	    "wk-bulk: /proc/tsa/wakers has its header and a line per waker of every thread (expected 2 header lines, no bad line, a none line a thread; saw %d, %d bad, %d of ours, %d none)",
	    head, bad, mine, none);
}

/* --- a non-leader exec ----------------------------------------------- */

#define EXEC_ITEMS	20

static int ex_pipe[2];
static pid_t ex_v;

/* V, in the test's process: reads a byte at a time until EOF. */
static void *exec_v(void *arg)
{
	char c;

	ex_v = gettid_();
	while (read(ex_pipe[0], &c, 1) == 1)
		;
	return arg;
}

/* W, B's second thread: wakes V, then execs (taking B's leader's tid). */
static void *exec_w(void *arg)
{
	int i;

	for (i = 0; i < EXEC_ITEMS; i++) {
		if (write(ex_pipe[1], "w", 1) != 1)
			_exit(1);
		usleep(10000);
	}
	execl("/bin/sleep", "sleep", "3", (char *)NULL);
	_exit(1);
	return arg;
}

/*
 * A thread that execs when it is not its process's leader takes the
 * leader's tid, and de_thread() gives it the leader's start time too
 * (the review's F6). V's waker rows for the old leader L must then read
 * "exited", not name the thread that exec'd, which now has L's tid.
 */
static void test_exec(void)
{
	const struct wk_row *r;
	pthread_t v, w;
	struct wk b;
	pid_t bpid;
	int i, st;

	if (pipe(ex_pipe)) {
		tap(0, "wk-exec: pipe: %s", strerror(errno));
		return;
	}
	pthread_create(&v, NULL, exec_v, NULL);
	while (!ex_v)
		sleep_ms(1);
	bpid = fork();
	if (bpid == 0) {
		/* L, B's leader: wakes V, then W does; W execs. */
		for (i = 0; i < EXEC_ITEMS; i++) {
			if (write(ex_pipe[1], "l", 1) != 1)
				_exit(1);
			usleep(10000);
		}
		pthread_create(&w, NULL, exec_w, NULL);
		pause();
		_exit(0);
	}
	/* W's writes and exec: B then runs sleep, with L's tid (bpid). */
	sleep_ms(EXEC_ITEMS * 10 * 2 + 800);
	if (wk_read_or_fail(ex_v, &b, "wk-exec V"))
		goto out;
	r = wk_find(&b, bpid, -1);
	tap(!r || strcmp(r->kind, "thread") || strcmp(r->name, "sleep"),
	    "wk-exec: V's wakeups by B's old leader %d do not name the thread that exec'd and took its tid (expected exited %d or none, saw %s)",
	    bpid, bpid, wk_str(&b));
	for (i = 0; i < b.n && strcmp(b.r[i].kind, "exited"); i++)
		;
	tap(i < b.n,
	    "wk-exec: a row of V's names an exited waker (expected one, saw %s)",
	    wk_str(&b));
out:
	kill(bpid, SIGKILL);
	waitpid(bpid, &st, 0);
	close(ex_pipe[1]);
	pthread_join(v, NULL);
	close(ex_pipe[0]);
}

static const struct tsa_test tests[] = {
	{ "wk-cond", test_cond },
	{ "wk-mutex", test_mutex },
	{ "wk-pipe", test_pipe },
	{ "wk-sleep", test_sleeper },
	{ "wk-stop", test_stop },
	{ "wk-tcp", test_tcp },
	{ "wk-iow", test_iow },
	{ "wk-sum", test_sum },
	{ "wk-bulk", test_bulk },
	{ "wk-exec", test_exec },
};

int main(int argc, char **argv)
{
	return tsa_test_main("tsa-waketest", tests, sizeof(tests) / sizeof(tests[0]),
			     argc, argv);
}
