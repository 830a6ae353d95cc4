// SPDX-License-Identifier: GPL-2.0
/*
 * tsa-ntest: what an SRE needs before leaving tsa loaded. A reader held
 * in a read for as long as it likes holds up nobody else's files; a pid
 * namespace with its own procfs sees its own tasks by its own ids, and
 * nothing else; hidepid= hides as it does for /proc/<pid>; self and
 * thread-self name the reader. Runs as root in a guest with tsa.ko
 * loaded; prints TAP.
 *
 *   tsa-ntest [test-name...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tsa-read.h"

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait up to @ms for @path to exist (@present) or not; the wait in ms or -1. */
static double wait_path(const char *path, int present, int ms)
{
	double t0 = mono_s();

	for (;;) {
		if ((access(path, F_OK) == 0) == present)
			return (mono_s() - t0) * 1e3;
		if ((mono_s() - t0) * 1e3 > ms)
			return -1;
		sleep_ms(2);
	}
}

static double wait_entry(pid_t tid, int present, int ms)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/tsa/%d", tid);
	return wait_path(path, present, ms);
}

/* --- a stuck reader ----------------------------------------------------- */

struct parked {
	pthread_t th;
	pid_t tid;
	int fd;			/* read end: the thread leaves when it closes */
};

static void *parked_fn(void *arg)
{
	struct parked *p = arg;
	char c;

	__atomic_store_n(&p->tid, gettid_(), __ATOMIC_RELEASE);
	if (read(p->fd, &c, 1) < 0)
		perror("parked: read");
	return NULL;
}

/* Start @n threads that wait on one pipe until release_parked(). */
static int start_parked(struct parked *p, int n, int *wfd)
{
	int fds[2], i;

	if (pipe(fds))
		return -1;
	for (i = 0; i < n; i++) {
		p[i].tid = 0;
		p[i].fd = fds[0];
		if (pthread_create(&p[i].th, NULL, parked_fn, &p[i]))
			return -1;
	}
	for (i = 0; i < n; i++)
		while (!__atomic_load_n(&p[i].tid, __ATOMIC_ACQUIRE))
			sleep_ms(1);
	*wfd = fds[1];
	return fds[0];
}

static void release_parked(struct parked *p, int n, int rfd, int wfd)
{
	int i;

	close(wfd);	/* every read returns 0 */
	for (i = 0; i < n; i++)
		pthread_join(p[i].th, NULL);
	close(rfd);
}

struct held_read {
	int fd;
	void *buf;
	ssize_t ret;
	int done;
};

static void *held_read_fn(void *arg)
{
	struct held_read *h = arg;

	h->ret = read(h->fd, h->buf, 4096);
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

#define STUCK_ROUNDS	10
#define STUCK_THREADS	100

/*
 * A reader opens a thread's file and reads into a page whose fault
 * userfaultfd holds; the thread exits, so its entry must go while the
 * read is in it. For the next 10 s, 1,000 threads are born and die, 100
 * at a time: each one's file must appear and go within the batch delay
 * (asserted: 1 s, against 20 ms batches), and debugfs stats must answer.
 * Before removals were taken out of the batch, the batch waited in
 * proc_remove() for the held read, holding the entries' lock: no file
 * appeared or went for anyone, and stats blocked.
 */
static void test_stuck_reader(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct parked victim, p[STUCK_THREADS];
	struct held_read h = { 0 };
	double worst_in = 0, worst_out = 0, worst_stats = 0, t0, ms;
	uint64_t deferred0 = 0, deferred1 = 0, v;
	int uffd, vr, vw, rfd, wfd, r, i, missing = 0;
	pthread_t reader;
	char path[64];

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		tap(0, "stuck: userfaultfd (%s)", strerror(errno));
		return;
	}
	h.buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.range.start = (unsigned long)h.buf;
	reg.range.len = 4096;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (h.buf == MAP_FAILED || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		tap(0, "stuck: register the page (%s)", strerror(errno));
		return;
	}
	vr = start_parked(&victim, 1, &vw);
	snprintf(path, sizeof(path), "/proc/tsa/%d", victim.tid);
	h.fd = wait_entry(victim.tid, 1, 3000) >= 0 ? open(path, O_RDONLY) : -1;
	if (vr < 0 || h.fd < 0) {
		tap(0, "stuck: open %s (%s)", path, strerror(errno));
		return;
	}
	tsa_read_debugfs_counter("proc_removals_deferred", &deferred0);
	pthread_create(&reader, NULL, held_read_fn, &h);
	sleep_ms(300);
	tap(!__atomic_load_n(&h.done, __ATOMIC_ACQUIRE),
	    "stuck: a read of %s into a page userfaultfd holds is held (expected held after 300 ms, saw %s)",
	    path, h.done ? "returned" : "held");
	release_parked(&victim, 1, vr, vw);

	for (r = 0; r < STUCK_ROUNDS && !missing; r++) {
		rfd = start_parked(p, STUCK_THREADS, &wfd);
		if (rfd < 0) {
			tap(0, "stuck: start %d threads", STUCK_THREADS);
			break;
		}
		for (i = 0; i < STUCK_THREADS; i++) {
			/* Once one is late, the rest are not waited for. */
			ms = wait_entry(p[i].tid, 1, missing ? 0 : 1000);
			missing += ms < 0;
			worst_in = ms > worst_in ? ms : worst_in;
		}
		t0 = mono_s();
		tsa_read_debugfs_counter("proc_entries", &v);
		ms = (mono_s() - t0) * 1e3;
		worst_stats = ms > worst_stats ? ms : worst_stats;
		release_parked(p, STUCK_THREADS, rfd, wfd);
		for (i = 0; i < STUCK_THREADS; i++) {
			ms = wait_entry(p[i].tid, 0, missing ? 0 : 1000);
			missing += ms < 0;
			worst_out = ms > worst_out ? ms : worst_out;
		}
	}
	tap(!missing && !__atomic_load_n(&h.done, __ATOMIC_ACQUIRE),
	    "stuck: while the read is held, %d threads' files appear and go within 1 s each (expected 0 late, saw %d late in round %d; slowest to appear %.0f ms, to go %.0f ms; the read still held: %s)",
	    STUCK_ROUNDS * STUCK_THREADS, missing, r, worst_in, worst_out,
	    h.done ? "no" : "yes");
	tap(worst_stats < 1000,
	    "stuck: debugfs stats answers while the read is held (expected < 1000 ms, slowest %.0f ms)",
	    worst_stats);
	tsa_read_debugfs_counter("proc_removals_deferred", &deferred1);
	tap(deferred1 > deferred0,
	    "stuck: the held entry's removal was deferred to a work item of its own (proc_removals_deferred %llu -> %llu)",
	    (unsigned long long)deferred0, (unsigned long long)deferred1);
	tap(access(path, F_OK) != 0,
	    "stuck: %s is gone from the directory while its read is held",
	    path);

	/* Closing the userfaultfd lets the fault through. */
	close(uffd);
	pthread_join(reader, NULL);
	tap(h.ret > 0, "stuck: the held read completes once let go (expected > 0 bytes, saw %zd)",
	    h.ret);
	close(h.fd);
	munmap(h.buf, 4096);
}

/* --- pid namespaces ------------------------------------------------------ */

/* A child's findings, line by line: "1 text" or "0 text". */
static void say(int fd, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(int fd, int ok, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "%d ", !!ok);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(fd, line, n) != n)
		_exit(3);
}

/* Each line the child said becomes a TAP line here. */
static void hear(int fd, const char *who)
{
	char buf[16384], *s, *e;
	size_t len = 0;
	ssize_t n;
	int lines = 0;

	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	for (s = buf; (e = strchr(s, '\n')); s = e + 1) {
		*e = '\0';
		tap(s[0] == '1', "%s: %s", who, s + 2);
		lines++;
	}
	if (!lines)
		tap(0, "%s: the child reported nothing", who);
}

static int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	size_t got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	buf[got] = '\0';
	close(fd);
	return n < 0 ? -1 : 0;
}

static pid_t outsider;		/* the test's own tid, outside the namespace */
static int ns_wake[2];		/* the outsider writes, pid 1 wakes */
static int ns_ready[2];		/* pid 1 is about to sleep */
static int ns_hold[2];		/* pid 1's second thread waits on it */

struct self_read {
	char dir[64];
	pid_t tid;
	struct tsa_thread t;
	int ret;
	int done;
};

static void *thread_self_fn(void *arg)
{
	struct self_read *s = arg;
	static char text[65536];
	char path[96];

	s->tid = gettid_();
	snprintf(path, sizeof(path), "%s/tsa/thread-self", s->dir);
	s->ret = read_text(path, text, sizeof(text)) ||
		 tsa_parse_thread(text, &s->t);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	/* Alive while pid 1 reads the bulk files. */
	if (read(ns_hold[0], path, 1) < 0)
		perror("ns: hold");
	return NULL;
}

/* Is any "thread" waker line of @tid in @text naming @waker? */
static int waker_named(const char *text, pid_t tid, pid_t waker,
		       int *outside)
{
	const char *l;
	char kind[32];
	int t, w, named = 0;

	*outside = 0;
	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (sscanf(l, "%d %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %31s %d",
			   &t, kind, &w) != 3 || t != tid)
			continue;
		named |= !strcmp(kind, "thread") && w == waker;
		*outside |= !strcmp(kind, "outside");
	}
	return named;
}

/*
 * Every "pid" of a tool's output in pid 1's namespace: @pattern is where
 * each id follows. The namespace is new: its ids are all small (below
 * NS_IDS; pid 1, its thread, the shells and tools it starts), where the
 * guest's own are all above (test_pidns() checks). Returns how many ids
 * were seen, -1 if one was not the namespace's.
 */
#define NS_IDS	32
static int ids_in_ns(const char *cmd, const char *pattern, char *first,
		     size_t len)
{
	char line[4096], *p;
	int n = 0, bad = 0;
	long id;
	FILE *f = popen(cmd, "r");

	first[0] = '\0';
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		for (p = strstr(line, pattern); p;
		     p = strstr(p + 1, pattern)) {
			id = strtol(p + strlen(pattern), NULL, 10);
			n++;
			if (id < 1 || id >= NS_IDS) {
				bad = 1;
				if (!first[0])
					snprintf(first, len, "%ld", id);
			}
		}
	}
	if (pclose(f))
		return -1;
	return bad ? -1 : n;
}

/*
 * tsa-prstat inside the namespace (its /proc is the namespace's) shows
 * the namespace's threads by their own ids, in every view that names a
 * pid (the JSON of -L and the Prometheus export).
 */
static void tools_in_ns(int out)
{
	const char *prstat = "userspace/tsa-prstat";
	char cmd[256], first[32];
	int n;

	if (access(prstat, X_OK)) {
		say(out, 0, "%s is built (run from the tree)", prstat);
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s -L --json 0.2 1", prstat);
	n = ids_in_ns(cmd, "\"pid\":", first, sizeof(first));
	say(out, n > 0, "tsa-prstat -L --json in the namespace shows its threads by their pids there (expected ids below %d, saw %d%s%s)",
	    NS_IDS, n, first[0] ? ", one of them " : "", first);
	snprintf(cmd, sizeof(cmd), "%s --prometheus", prstat);
	n = ids_in_ns(cmd, "pid=\"", first, sizeof(first));
	say(out, n > 0, "tsa-prstat --prometheus in the namespace labels its processes by their pids there (expected ids below %d, saw %d%s%s)",
	    NS_IDS, n, first[0] ? ", one of them " : "", first);
}

/*
 * Pid 1 of a new pid namespace, with a procfs of its own at @dir: what
 * it sees there, said line by line on @out.
 */
static void ns_init(int out, const char *dir)
{
	static char text[1 << 20];
	struct tsa_thread t;
	struct self_read sr = { 0 };
	struct tsa_all all = { 0 };
	char path[128], c;
	pthread_t th;
	size_t i;
	int ok, fd, outside = -1, named;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    (mkdir(dir, 0755) && errno != EEXIST) ||
	    mount("proc", dir, "proc", 0, NULL)) {
		say(out, 0, "mount a procfs at %s (%s)", dir, strerror(errno));
		_exit(1);
	}
	snprintf(path, sizeof(path), "%s/tsa/self", dir);
	ok = !read_text(path, text, sizeof(text)) && !tsa_parse_thread(text, &t);
	say(out, ok && t.tid == 1 && t.pid == 1,
	    "%s is the reader's process by its ids there (expected tid 1 pid 1, saw %d %d)",
	    path, ok ? t.tid : -1, ok ? t.pid : -1);

	snprintf(sr.dir, sizeof(sr.dir), "%s", dir);
	if (pipe(ns_hold))
		_exit(1);
	pthread_create(&th, NULL, thread_self_fn, &sr);
	while (!__atomic_load_n(&sr.done, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	say(out, !sr.ret && sr.t.tid == sr.tid && sr.t.pid == 1,
	    "%s/tsa/thread-self is the reading thread by its ids there (expected tid %d pid 1, saw %d %d)",
	    dir, sr.tid, sr.ret ? -1 : sr.t.tid, sr.ret ? -1 : sr.t.pid);

	snprintf(path, sizeof(path), "%s/tsa/all", dir);
	ok = !tsa_read_all_file(path, &all);
	for (i = 0; ok && i < all.n; i++) {
		if (!all.t[i].tid)
			continue;	/* exited threads' totals */
		snprintf(text, sizeof(text), "%s/%d", dir, all.t[i].tid);
		if (all.t[i].pid != 1 || access(text, F_OK))
			ok = 0;
	}
	say(out, ok && all.n >= 2 && all.n <= 4,
	    "%s lists only the namespace's tasks, by their ids there (expected 2-4 rows, all of pid 1, each in the namespace's /proc; saw %zu rows, first %d/%d)",
	    path, all.n, all.n ? all.t[0].tid : -1, all.n ? all.t[0].pid : -1);
	tsa_free_all(&all);
	close(ns_hold[1]);
	pthread_join(th, NULL);

	snprintf(path, sizeof(path), "%s/tsa/%d", dir, outsider);
	fd = open(path, O_RDONLY);
	say(out, fd < 0 && errno == ENOENT,
	    "%s, a task outside the namespace, does not open (expected ENOENT, saw %s)",
	    path, fd < 0 ? strerror(errno) : "opened");
	if (fd >= 0)
		close(fd);

	/* Woken by the outsider: a context here, never its host tid. */
	if (write(ns_ready[1], "r", 1) != 1 || read(ns_wake[0], &c, 1) != 1)
		say(out, 0, "wait for the outsider");
	snprintf(path, sizeof(path), "%s/tsa/wakers", dir);
	if (access(path, F_OK) == 0) {
		ok = !read_text(path, text, sizeof(text));
		named = ok && waker_named(text, 1, outsider, &outside);
		say(out, ok && !named && outside,
		    "%s names a waker outside the namespace \"outside\", not by its tid %d (saw outside %d)",
		    path, outsider, ok ? outside : -1);
	}
	tools_in_ns(out);
	_exit(0);
}

static void test_pidns(void)
{
	const char *dir = "/proc";
	int rep[2], st;
	pid_t mid;

	outsider = gettid_();
	tap(outsider >= NS_IDS,
	    "pidns: the guest's own ids are above the new namespace's (expected >= %d, saw %d)",
	    NS_IDS, outsider);
	if (pipe(rep) || pipe(ns_wake) || pipe(ns_ready)) {
		tap(0, "pidns: pipes");
		return;
	}
	mid = fork();
	if (mid == 0) {
		pid_t init;

		close(rep[0]);
		if (unshare(CLONE_NEWPID | CLONE_NEWNS)) {
			say(rep[1], 0, "unshare (%s)", strerror(errno));
			_exit(1);
		}
		init = fork();
		if (init == 0)
			ns_init(rep[1], dir);
		waitpid(init, &st, 0);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
	}
	close(rep[1]);
	close(ns_ready[1]);
	if (read(ns_ready[0], &st, 1) == 1)
		sleep_ms(300);	/* pid 1 is asleep in its read */
	if (write(ns_wake[1], "x", 1) != 1)
		tap(0, "pidns: wake pid 1");
	hear(rep[0], "pidns");
	waitpid(mid, &st, 0);
	tap(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "pidns: the namespace's init exits 0 (status %d)", st);
	close(rep[0]);
	close(ns_wake[0]);
	close(ns_wake[1]);
	close(ns_ready[0]);
}

/*
 * hidepid=: a file /proc would hide from a reader does not open here
 * either (ENOENT), and what /proc shows but tsa's access rule refuses is
 * EACCES, as before.
 */
static void test_hidepid(void)
{
	const char *dirs[] = { "/tmp/tsa-ntest-hp0", "/tmp/tsa-ntest-hp2",
			       "/tmp/tsa-ntest-hp4" };
	const char *opts[] = { "hidepid=0", "hidepid=invisible",
			       "hidepid=ptraceable" };
	const int want[] = { EACCES, ENOENT, ENOENT };
	int rep[2], st, i;
	pid_t c;

	if (pipe(rep))
		return;
	c = fork();
	if (c == 0) {
		char path[96];
		int fd, e;

		close(rep[0]);
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
			say(rep[1], 0, "a mount namespace (%s)", strerror(errno));
			_exit(1);
		}
		for (i = 0; i < 3; i++) {
			mkdir(dirs[i], 0755);
			if (mount("proc", dirs[i], "proc", 0, opts[i])) {
				say(rep[1], 0, "mount proc %s (%s)", opts[i],
				    strerror(errno));
				_exit(1);
			}
		}
		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534)) {
			say(rep[1], 0, "become nobody (%s)", strerror(errno));
			_exit(1);
		}
		for (i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "%s/tsa/1", dirs[i]);
			fd = open(path, O_RDONLY);
			e = fd < 0 ? errno : 0;
			say(rep[1], e == want[i],
			    "nobody opening %s (%s) gets %s (saw %s)", path,
			    opts[i], strerror(want[i]),
			    e ? strerror(e) : "opened");
		}
		_exit(0);
	}
	close(rep[1]);
	hear(rep[0], "hidepid");
	close(rep[0]);
	waitpid(c, &st, 0);
}

/* --- numbers never go back -------------------------------------------- */

static volatile int mono_stop;

static void *mono_spin(void *arg)
{
	pin(1);
	__atomic_store_n((pid_t *)arg, gettid_(), __ATOMIC_RELEASE);
	while (!mono_stop)
		syscall(SYS_getppid);
	return NULL;
}

/*
 * A thread in a getppid() loop on CPU 1, read back to back from CPU 0:
 * no state's time, nor elapsed, is less than a read before showed by
 * more than docs/proc-format.md allows (the review's F3: a writer opens
 * the record and then reads the clock with no full barrier between, so
 * a reader whose clock is later may charge a little past the stamp the
 * writer then writes: by the time a store takes to leave a store buffer,
 * nanoseconds; asserted: under MONO_SLACK_NS, every decrease counted and
 * printed). Meaningful with the vCPUs in parallel (engine-mt), where
 * reader and writer race as on hardware.
 */
#define MONO_SLACK_NS	1000
static void test_monotonic(void)
{
	struct tsa_thread prev, cur;
	pid_t tid = 0;
	pthread_t th;
	char path[64], where[96] = "";
	int fd, s, reads = 0, back = 0, small = 0;
	double end;

	pthread_create(&th, NULL, mono_spin, &tid);
	while (!__atomic_load_n(&tid, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	pin(0);
	snprintf(path, sizeof(path), "/proc/tsa/%d", tid);
	fd = wait_entry(tid, 1, 3000) >= 0 ? open(path, O_RDONLY) : -1;
	if (fd < 0 || tsa_pread_thread(fd, &prev)) {
		tap(0, "monotonic: read %s (%s)", path, strerror(errno));
		mono_stop = 1;
		pthread_join(th, NULL);
		return;
	}
	for (end = mono_s() + 5; mono_s() < end; reads++) {
		if (tsa_pread_thread(fd, &cur))
			break;
		for (s = 0; s < TSA_NSTATES; s++) {
			if (cur.ns[s] >= prev.ns[s])
				continue;
			small++;
			if (prev.ns[s] - cur.ns[s] < MONO_SLACK_NS)
				continue;
			if (!back++)
				snprintf(where, sizeof(where),
					 "%s %llu -> %llu at read %d",
					 tsa_state_name(s),
					 (unsigned long long)prev.ns[s],
					 (unsigned long long)cur.ns[s], reads);
		}
		if (cur.elapsed < prev.elapsed && !back++)
			snprintf(where, sizeof(where), "elapsed back at read %d",
				 reads);
		prev = cur;
	}
	mono_stop = 1;
	pthread_join(th, NULL);
	close(fd);
	tap(reads > 100 && !back,
	    "monotonic: %d back-to-back reads of a thread in a getppid() loop on the other CPU never show a state's time go back by %d ns or more, nor elapsed at all (expected 0, saw %d%s%s; decreases under %d ns: %d)",
	    reads, MONO_SLACK_NS, back, back ? ": first " : "", where,
	    MONO_SLACK_NS, small);
}

/* --- a large process copied in sections, exactly once ---------------- */

#define SEC_SLEEPERS	800
#define SEC_MANAGERS	4
#define SEC_CHURN	40		/* threads each manager keeps alive */

static volatile int sec_stop;
static int sec_started = 1, sec_created = 1;	/* the main thread */

static void *sec_sleeper(void *arg)
{
	(void)arg;
	while (!sec_stop)
		sleep_ms(50);
	return NULL;
}

/* A short life: 2 to 4 ms, asleep. */
static void *sec_short(void *arg)
{
	usleep(2000 + rand() % 2000);
	__atomic_sub_fetch((int *)arg, 1, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * Every pthread_create() of the process is counted twice: before it (an
 * upper bound on the threads born by then) and after it returns (a lower
 * bound: the thread is in the thread list).
 */
static int sec_spawn(pthread_t *th, void *(*fn)(void *), void *arg)
{
	pthread_attr_t a;
	pthread_t t;
	int err;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 << 10);
	if (!th)
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	__atomic_add_fetch(&sec_started, 1, __ATOMIC_SEQ_CST);
	err = pthread_create(th ? th : &t, &a, fn, arg);
	if (err)
		__atomic_sub_fetch(&sec_started, 1, __ATOMIC_SEQ_CST);
	else
		__atomic_add_fetch(&sec_created, 1, __ATOMIC_SEQ_CST);
	pthread_attr_destroy(&a);
	return err;
}

static void *sec_manager(void *arg)
{
	(void)arg;
	int alive = 0;

	pin(1);
	while (!sec_stop) {
		if (__atomic_load_n(&alive, __ATOMIC_RELAXED) < SEC_CHURN) {
			__atomic_add_fetch(&alive, 1, __ATOMIC_RELAXED);
			if (sec_spawn(NULL, sec_short, &alive))
				__atomic_sub_fetch(&alive, 1,
						   __ATOMIC_RELAXED);
		} else {
			usleep(200);
		}
	}
	while (__atomic_load_n(&alive, __ATOMIC_RELAXED))
		sleep_ms(1);
	return NULL;
}

/* "process-threads L E" of the leader's file: L + E, or -1. */
static long sec_counted(const char *path)
{
	static char buf[1 << 16];
	unsigned int live, exited;
	char *p;

	if (read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\nprocess-threads ");
	if (!p || sscanf(p, "\nprocess-threads %u %u", &live, &exited) != 2)
		return -1;
	return (long)live + exited;
}

static void *sec_spinner(void *arg)
{
	(void)arg;
	pin(0);
	while (!sec_stop)
		;
	return NULL;
}

/*
 * The review's F4: a process of many threads is copied in RCU read
 * sections of about 100 us (debugfs reader_sections), going on from the
 * last threads a section visited, or starting over (reader_restarts)
 * when all of those died meanwhile. Threads are born and die in the
 * process all along (managers on CPU 1 keep 160 alive for 2-4 ms each)
 * while its leader's file is read from CPU 0 at nice 5 beside a
 * spinner, so that each reschedule between sections lasts a time slice.
 * Every thread the process ever had must be counted exactly once: live
 * plus exited in process-threads lies between the creates that returned
 * before the read and those begun by its end.
 */
static void sections_child(int out)
{
	pthread_t sl[SEC_SLEEPERS], mg[SEC_MANAGERS], sp;
	uint64_t r0 = 0, r1 = 0, s0 = 0, s1 = 0, mx = 0;
	long lo, hi, n, low = 0, high = 0, bad = -1;
	int i, made = 0, reads = 0, failed = 0;
	char path[64], where[128] = "";
	double start;

	for (i = 0; i < SEC_SLEEPERS; i++)
		made += !sec_spawn(&sl[i], sec_sleeper, NULL);
	for (i = 0; i < SEC_MANAGERS; i++)
		sec_spawn(&mg[i], sec_manager, NULL);
	sec_spawn(&sp, sec_spinner, NULL);
	snprintf(path, sizeof(path), "/proc/tsa/%d", getpid());
	pin(0);
	if (nice(5) < 0)
		perror("nice");
	tsa_read_debugfs_counter("reader_restarts", &r0);
	tsa_read_debugfs_counter("reader_sections", &s0);
	/* At least 8 reads and 4 s, at most 20 s. */
	for (start = mono_s(); ; reads++) {
		if ((reads >= 8 && mono_s() > start + 4) ||
		    mono_s() > start + 20)
			break;
		lo = __atomic_load_n(&sec_created, __ATOMIC_SEQ_CST);
		n = sec_counted(path);
		hi = __atomic_load_n(&sec_started, __ATOMIC_SEQ_CST);
		if (n < 0) {
			failed++;
			continue;
		}
		if (n >= lo && n <= hi)
			continue;
		low += n < lo;
		high += n > hi;
		if (bad < 0) {
			bad = n;
			snprintf(where, sizeof(where),
				 ": first at read %d, %ld counted, %ld..%ld born",
				 reads, n, lo, hi);
		}
	}
	tsa_read_debugfs_counter("reader_restarts", &r1);
	tsa_read_debugfs_counter("reader_sections", &s1);
	tsa_read_debugfs_counter("reader_section_max_ns", &mx);
	sec_stop = 1;
	for (i = 0; i < SEC_MANAGERS; i++)
		pthread_join(mg[i], NULL);
	pthread_join(sp, NULL);
	for (i = 0; i < SEC_SLEEPERS; i++)
		pthread_join(sl[i], NULL);
	sec_stop = 0;
	say(out, made == SEC_SLEEPERS && reads >= 3 && !failed && !low &&
	    !high && s1 - s0 > (uint64_t)reads,
	    " %d reads of a %d-thread process whose threads are born and die all along count each of its %d threads once (expected live + exited within the threads born by then; saw %ld under, %ld over%s; %d reads failed) in %llu RCU sections (%.1f a read, longest %llu us), %llu of them starting over",
	    reads, made + SEC_MANAGERS + 2, sec_created, low, high, where,
	    failed, (unsigned long long)(s1 - s0),
	    reads ? (double)(s1 - s0) / reads : 0.0,
	    (unsigned long long)mx / 1000, (unsigned long long)(r1 - r0));
}

/* In a process of its own: no other test's threads among its exited. */
static void test_sections(void)
{
	int rep[2], st;
	pid_t c;

	if (pipe(rep)) {
		tap(0, "sections: pipe (%s)", strerror(errno));
		return;
	}
	c = fork();
	if (!c) {
		close(rep[0]);
		sections_child(rep[1]);
		_exit(0);
	}
	close(rep[1]);
	hear(rep[0], "sections");
	close(rep[0]);
	waitpid(c, &st, 0);
}

/* --- no read keeps a CPU from the next task ----------------------------- */

#define STALL_THREADS	5000
#define STALL_MS	50
#define SCHED_DIR	"/sys/kernel/debug/sched/"

/* How many times the kernel's log says "need_resched set for > ". */
static int stall_reports(void)
{
	static char buf[1 << 20];
	int n = klogctl(3, buf, sizeof(buf) - 1), count = 0;	/* READ_ALL */
	char *p;

	if (n < 0)
		return -1;
	buf[n] = '\0';
	for (p = buf; (p = strstr(p, "need_resched set for > ")); p++)
		count++;
	return count;
}

/* Read a file to its end: the bytes, or -1. */
static long tsa_read_discard(const char *path)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY);
	long total = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	close(fd);
	return n < 0 ? -1 : total;
}

static int stall_park[2];

static void *stall_sleeper(void *arg)
{
	char c;

	(void)arg;
	if (read(stall_park[0], &c, 1) < 0)
		perror("tsa-ntest: park");
	return NULL;
}

/*
 * The review's F4, by the kernel's own detector: with LATENCY_WARN on
 * (kernel/sched/debug.c), a CPU whose need_resched stays set for more
 * than STALL_MS ms without a schedule is reported in the log. A process
 * of STALL_THREADS threads is read through every bulk file and its
 * leader's file, twice each, from CPU 0 beside a spinner there (so that
 * need_resched is set while the reader is in the kernel): no report.
 * Before the copy went in sections, one read of such a process kept the
 * CPU for about 200 ms (emulated).
 */
static void test_stalls(void)
{
	static const char *const files[] = { "all", "calls", "hist", "wakers",
					     NULL };
	int ready[2], before, after, i, k, made = 0, reads = 0, failed = 0;
	char path[64], num[16];
	pid_t holder, spinner;
	pthread_attr_t a;
	pthread_t t;

	if (access(SCHED_DIR "latency_warn_ms", W_OK)) {
		tap(1, "stalls: # SKIP this kernel has no LATENCY_WARN (%s)",
		    strerror(errno));
		return;
	}
	if (pipe(ready) || pipe(stall_park)) {
		tap(0, "stalls: pipe (%s)", strerror(errno));
		return;
	}
	holder = fork();
	if (!holder) {
		pthread_attr_init(&a);
		pthread_attr_setstacksize(&a, 64 << 10);
		close(stall_park[1]);
		for (i = 0; i < STALL_THREADS; i++)
			made += !pthread_create(&t, &a, stall_sleeper, NULL);
		if (write(ready[1], &made, sizeof(made)) < 0)
			_exit(1);
		stall_sleeper(NULL);
		_exit(0);
	}
	close(stall_park[0]);
	if (read(ready[0], &made, sizeof(made)) != sizeof(made))
		made = 0;
	spinner = fork();
	if (!spinner) {
		pin(0);
		for (;;)
			;
	}
	pin(0);
	snprintf(num, sizeof(num), "%d", STALL_MS);
	before = stall_reports();
	if (tsa_write_file(SCHED_DIR "latency_warn_once", "0") ||
	    tsa_write_file(SCHED_DIR "latency_warn_ms", num) ||
	    tsa_write_file(SCHED_DIR "features", "LATENCY_WARN"))
		failed++;
	for (k = 0; k < 2; k++) {
		for (i = 0; files[i]; i++) {
			snprintf(path, sizeof(path), "/proc/tsa/%s", files[i]);
			reads++;
			if (access(path, R_OK))
				continue;	/* a file this load has not */
			failed += tsa_read_discard(path) < 0;
		}
		snprintf(path, sizeof(path), "/proc/tsa/%d", holder);
		reads++;
		failed += tsa_read_discard(path) < 0;
	}
	tsa_write_file(SCHED_DIR "features", "NO_LATENCY_WARN");
	tsa_write_file(SCHED_DIR "latency_warn_once", "1");
	after = stall_reports();
	kill(spinner, SIGKILL);
	waitpid(spinner, NULL, 0);
	close(stall_park[1]);	/* every sleeper's read returns */
	waitpid(holder, NULL, 0);
	close(ready[0]);
	close(ready[1]);
	tap(made == STALL_THREADS && !failed && before >= 0 && after == before,
	    "stalls: %d reads of the bulk files and a %d-thread process's leader file, from a CPU a spinner shares, never leave need_resched set for over %d ms (the kernel's LATENCY_WARN: expected 0 reports, saw %d; %d reads or settings failed)",
	    reads, made, STALL_MS, after - before, failed);
}

static const struct tsa_test tests[] = {
	{ "stuck", test_stuck_reader },
	{ "pidns", test_pidns },
	{ "hidepid", test_hidepid },
	{ "monotonic", test_monotonic },
	{ "sections", test_sections },
	{ "stalls", test_stalls },
};

int main(int argc, char **argv)
{
	return tsa_test_main("tsa-ntest", tests, sizeof(tests) / sizeof(tests[0]),
			     argc, argv);
}
