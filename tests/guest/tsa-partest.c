// SPDX-License-Identifier: GPL-2.0
/*
 * tsa-partest: guest side of the parallel suite (run-parallel-tests.sh),
 * for guests whose vCPUs truly run at once (multi-threaded TCG). TAP on
 * stdout; numbering starts at --first.
 *
 *   tsa-partest [--first N] readers SECS ROUNDS   (SECS may be a fraction)
 *   tsa-partest failread FILE N        (see failread())
 *   tsa-partest burst N                (see burst())
 *   tsa-partest load KO                (see load())
 *   tsa-partest pin                    (see pin_group())
 *
 * A thread in a getppid() loop on CPU 1 (the spinner: its record is
 * written at every system call edge) while a reader on CPU 0 reads, in
 * turn for SECS seconds each, ROUNDS times over:
 *   status  the kernel's own /proc/<tid>/status of the spinner (control)
 *   tid     /proc/tsa/<tid> of the spinner
 *   all     /proc/tsa/all
 *   wakers  /proc/tsa/wakers (every thread's waker rows, copied as all's)
 * Expected, in the median round (the host stalls a vCPU now and then, for
 * milliseconds, and a round that meets a stall is not tsa's to answer
 * for; a reader that slows the spinner or stalls does so in every round):
 * the spinner keeps at least 90 % of its call rate under the control while
 * a tsa file is read; a tsa read's 99th percentile is within 10x its
 * median, or no longer a tail than the control's in the same round. And
 * over all rounds: no copy of a record retries more than a few times
 * (debugfs reader_retries_max).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int test_no;
static int failures;

static void tap(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++test_no);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures += !ok;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Read a whole file; -1 on error. */
static long slurp(const char *path, char *buf, size_t size)
{
	long n, total = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + total, size - total)) > 0)
		total += n;
	close(fd);
	return n < 0 ? -1 : total;
}

/* The reader counters of debugfs, or all -1 without them. */
struct rstats {
	long long copies, retries, max, holds;
};

/* debugfs' tsa stats in @buf, NUL-terminated; 0, or -1 without them. */
static int read_stats(char *buf, size_t size)
{
	long n = slurp("/sys/kernel/debug/tsa/stats", buf, size - 1);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The number of the line "KEY N" in @stats, or -1. */
static long long stat_in(const char *stats, const char *key)
{
	size_t kl = strlen(key);
	const char *p;

	for (p = stats; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtoll(p + kl + 1, NULL, 10);
	return -1;
}

static void read_rstats(struct rstats *r)
{
	static char buf[8192];

	r->copies = r->retries = r->max = r->holds = -1;
	if (read_stats(buf, sizeof(buf)))
		return;
	r->copies = stat_in(buf, "reader_copies");
	r->retries = stat_in(buf, "reader_retries");
	r->max = stat_in(buf, "reader_retries_max");
	r->holds = stat_in(buf, "reader_holds");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

enum { K_STATUS, K_TID, K_ALL, K_WAKERS, K_N };
static const char *const kname[K_N] = { "status", "tid", "all", "wakers" };

enum { MAX_ROUNDS = 64 };

struct kind {
	char path[64];
	double calls, secs;		/* the spinner's, while read */
	double *lat;			/* each read's time */
	size_t n, cap;
	long errors;
	long long copies, retries, holds;
	/* per round: the spinner's rate, and its reads in lat[] */
	double rrate[MAX_ROUNDS];
	size_t from[MAX_ROUNDS], to[MAX_ROUNDS];
};

static void add_lat(struct kind *k, double d)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 4096;
		k->lat = realloc(k->lat, k->cap * sizeof(*k->lat));
		if (!k->lat) {
			perror("realloc");
			exit(1);
		}
	}
	k->lat[k->n++] = d;
}

/* The @p quantile of the sorted @v[0..n). */
static double quantile(const double *v, size_t n, double p)
{
	return n ? v[(size_t)(p * (n - 1) + 0.5)] : 0;
}

static double pct(const struct kind *k, double p)
{
	return quantile(k->lat, k->n, p);
}

/* Round @rd's reads of @k: their p99 over their median (0 without any). */
static double round_tail(const struct kind *k, int rd)
{
	size_t n = k->to[rd] - k->from[rd];
	double *v, med, t;

	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v) {
		perror("malloc");
		exit(1);
	}
	memcpy(v, k->lat + k->from[rd], n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	med = quantile(v, n, 0.5);
	t = med > 0 ? quantile(v, n, 0.99) / med : 0;
	free(v);
	return t;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int readers(double secs, int rounds)
{
	static char buf[1 << 20];
	volatile uint64_t *calls;
	struct kind k[K_N] = { 0 };
	struct rstats r0, r1;
	long long worst = -1;
	double rate[K_N], rtail[K_N][MAX_ROUNDS];
	pid_t spinner;
	int i, rd;

	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "readers: 1 to %d rounds\n", MAX_ROUNDS);
		return 1;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		tap(0, "readers: needs two CPUs online (saw %ld)",
		    sysconf(_SC_NPROCESSORS_ONLN));
		return 1;
	}
	calls = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (calls == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	spinner = fork();
	if (spinner == 0) {
		if (pin(1))
			_exit(1);
		for (;;) {
			syscall(SYS_getppid);
			(*calls)++;
		}
	}
	if (spinner < 0 || pin(0)) {
		perror("fork/pin");
		return 1;
	}
	snprintf(k[K_STATUS].path, sizeof(k[0].path), "/proc/%d/status",
		 spinner);
	snprintf(k[K_TID].path, sizeof(k[0].path), "/proc/tsa/%d", spinner);
	snprintf(k[K_ALL].path, sizeof(k[0].path), "/proc/tsa/all");
	snprintf(k[K_WAKERS].path, sizeof(k[0].path), "/proc/tsa/wakers");
	usleep(300000);	/* the spinner at full speed */
	for (rd = 0; rd < rounds; rd++) {
		for (i = 0; i < K_N; i++) {
			double t0 = now_s(), t, end = t0 + secs;
			uint64_t c0 = *calls;

			read_rstats(&r0);
			k[i].from[rd] = k[i].n;
			while ((t = now_s()) < end) {
				double t1;

				if (slurp(k[i].path, buf, sizeof(buf)) < 0)
					k[i].errors++;
				t1 = now_s();
				add_lat(&k[i], t1 - t);
			}
			k[i].to[rd] = k[i].n;
			t = now_s() - t0;
			k[i].calls += *calls - c0;
			k[i].secs += t;
			k[i].rrate[rd] = t > 0 ? (*calls - c0) / t : 0;
			read_rstats(&r1);
			if (r0.copies >= 0 && r1.copies >= 0) {
				k[i].copies += r1.copies - r0.copies;
				k[i].retries += r1.retries - r0.retries;
				k[i].holds += r1.holds - r0.holds;
				worst = r1.max;
			}
		}
	}
	kill(spinner, SIGKILL);
	waitpid(spinner, NULL, 0);

	/* Each round's tails, before lat[] is sorted below. */
	for (i = 0; i < K_N; i++)
		for (rd = 0; rd < rounds; rd++)
			rtail[i][rd] = round_tail(&k[i], rd);
	printf("# per round: the spinner's rate against the control's, p99/median of the reads\n");
	printf("# %5s", "round");
	for (i = 0; i < K_N; i++)
		printf(" %8s %8s", i ? kname[i] : "", kname[i]);
	printf("\n");
	for (rd = 0; rd < rounds; rd++) {
		printf("# %5d", rd + 1);
		for (i = 0; i < K_N; i++) {
			double ctl = k[K_STATUS].rrate[rd];

			if (i)
				printf(" %7.1f%%", ctl > 0 ? 100 * k[i].rrate[rd] / ctl : 0);
			else
				printf(" %8s", "");
			printf(" %7.1fx", rtail[i][rd]);
		}
		printf("\n");
	}
	printf("# reader on CPU 0, getppid() spinner on CPU 1, %d rounds of %.2f s per file\n",
	       rounds, secs);
	printf("# %-7s %12s %8s %8s %10s %10s %10s %9s %9s %7s\n", "file",
	       "spinner/s", "of ctl", "reads", "median_ms", "p99_ms",
	       "max_ms", "copies", "retries", "holds");
	for (i = 0; i < K_N; i++) {
		qsort(k[i].lat, k[i].n, sizeof(double), cmp_double);
		rate[i] = k[i].secs > 0 ? k[i].calls / k[i].secs : 0;
		printf("# %-7s %12.0f %7.1f%% %8zu %10.3f %10.3f %10.3f %9lld %9lld %7lld\n",
		       kname[i], rate[i],
		       rate[K_STATUS] > 0 ? 100 * rate[i] / rate[K_STATUS] : 0,
		       k[i].n, 1e3 * pct(&k[i], 0.5), 1e3 * pct(&k[i], 0.99),
		       k[i].n ? 1e3 * k[i].lat[k[i].n - 1] : 0, k[i].copies,
		       k[i].retries, k[i].holds);
	}
	for (i = 0; i < K_N; i++)
		tap(k[i].n > 0 && !k[i].errors,
		    "readers: %zu reads of %s, %ld failed", k[i].n, k[i].path,
		    k[i].errors);
	for (i = K_TID; i < K_N; i++) {
		double share[MAX_ROUNDS], tail[MAX_ROUNDS], ms, mt;
		int fit = 0;

		for (rd = 0; rd < rounds; rd++) {
			double ctl = k[K_STATUS].rrate[rd];

			share[rd] = ctl > 0 ? k[i].rrate[rd] / ctl : 0;
			tail[rd] = rtail[i][rd];
			/*
			 * Any read that meets a host stall of a vCPU takes
			 * milliseconds: where the control's own tail is
			 * longer than 10x in that round, the host made it.
			 */
			fit += tail[rd] <= 10 || tail[rd] <= rtail[K_STATUS][rd];
		}
		ms = median(share, rounds);
		mt = median(tail, rounds);
		tap(ms >= 0.90,
		    "readers: the spinner keeps %.1f%% of its rate under the control reader while %s is read, in the median round (expected >= 90%%; over all rounds %.0f/s against %.0f/s)",
		    100 * ms, kname[i], rate[i], rate[K_STATUS]);
		tap(2 * fit > rounds,
		    "readers: %s reads' 99th percentile within 10x their median, or no longer a tail than the control's, in %d of %d rounds (expected more than half; median round %.1fx)",
		    kname[i], fit, rounds, mt);
	}
	/*
	 * The spinner leads a process of its own: its file shows the thread
	 * and the process, from one copy of its record.
	 */
	if (k[K_TID].copies >= 0)
		tap(k[K_TID].n &&
		    k[K_TID].copies <= (long long)(k[K_TID].n + k[K_TID].n / 20),
		    "readers: a one-thread process's /proc/tsa/<tid> copies its record once a read (%lld copies for %zu reads)",
		    k[K_TID].copies, k[K_TID].n);
	if (worst < 0)
		tap(0, "readers: debugfs has no reader_retries_max (module too old?)");
	else
		tap(worst <= 8,
		    "readers: no copy of a record retried more than 8 times (most: %lld)",
		    worst);
	return failures != 0;
}

/*
 * This task's allocations fail from here on, as debugfs says. Its pages
 * are all faulted in and locked first: the guest's root is 9p, and a page
 * fault that reads the program from it under the failures would end in
 * SIGBUS and could leave the 9p client broken for every task. Returns
 * the make-it-fail descriptor, to turn it off with fail_stop().
 */
static int fail_start(void)
{
	int fd;

	if (mlockall(MCL_CURRENT)) {
		perror("mlockall");
		exit(2);
	}
	fd = open("/proc/self/make-it-fail", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1) {
		perror("make-it-fail");
		exit(2);
	}
	return fd;
}

static void fail_stop(int fd)
{
	if (pwrite(fd, "0", 1, 0) != 1) {
		perror("make-it-fail");
		exit(2);
	}
	close(fd);
	munlockall();
}

/*
 * tsa-partest failread FILE N: N reads of FILE with this task's own
 * allocations failing as the fault injection in debugfs says (it sets its
 * make-it-fail after setting up). Each read must fail with an error or
 * give the whole file: its format line first, ending in a newline.
 * Prints "reads N ok K errors E bad B" and exits 1 if any was bad.
 */
static int failread(const char *path, int n)
{
	static char buf[1 << 22];
	const char *head = strstr(path, "/all") ? "tsa-all 1\n" :
			   strstr(path, "/calls") ? "tsa-calls " : "tsa-thread 1\n";
	int i, fd, ok = 0, errors = 0, bad = 0;

	fd = fail_start();
	for (i = 0; i < n; i++) {
		long len = slurp(path, buf, sizeof(buf) - 1);

		if (len < 0) {
			errors++;
			continue;
		}
		buf[len] = '\0';
		if (strncmp(buf, head, strlen(head)) || len < 2 ||
		    buf[len - 1] != '\n') {
			if (!bad++)
				fprintf(stderr, "failread: %s: %ld bytes: '%.60s' ... '%s'\n",
					path, len, buf,
					len > 60 ? buf + len - 60 : "");
		} else
			ok++;
	}
	fail_stop(fd);
	printf("reads %d ok %d errors %d bad %d\n", n, ok, errors, bad);
	return bad != 0;
}

static int burst_pipe[2];
static pid_t burst_tid[4096];
static volatile int burst_n;

static void *burst_thread(void *arg)
{
	char c;

	burst_tid[(long)arg] = syscall(SYS_gettid);
	__atomic_fetch_add(&burst_n, 1, __ATOMIC_RELEASE);
	return read(burst_pipe[0], &c, 1) < 0 ? NULL : arg;
}

/*
 * tsa-partest burst N: N threads born as fast as they can be, with this
 * task's allocations failing as debugfs says. The creator runs SCHED_FIFO
 * on CPU 0 and a SCHED_FIFO spinner holds CPU 1 (the caller turns RT
 * throttling off), so the work item that refills tsa's pool of records
 * cannot run (but in a breath every 300 threads): the fork hook runs out
 * of them and allocates in the creator, where allocations fail. Then, without failures, every thread
 * born must be tracked within 5 s (the late queue). Prints "born B
 * refused R untracked U"; exits 1 if U > 0.
 */
static int burst(int n)
{
	struct sched_param sp = { .sched_priority = 10 };
	static pthread_t th[4096];
	int i, born = 0, refused = 0, untracked = 0, fd, tries;
	char path[64], c = 'x';
	volatile int *stop;
	pid_t spinner;

	if (n > 4096 || pipe(burst_pipe))
		return 2;
	stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stop == MAP_FAILED)
		return 2;
	spinner = fork();
	if (spinner == 0) {
		double end = now_s() + 60;

		if (pin(1) || sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(1);
		/* A breath every 2 s for the CPU's own kernel threads. */
		while (!*stop && now_s() < end) {
			double breath = now_s() + 2;

			while (!*stop && now_s() < breath)
				;
			usleep(20000);
		}
		_exit(0);
	}
	if (spinner < 0 || pin(0) || sched_setscheduler(0, SCHED_FIFO, &sp))
		return 2;
	usleep(100000);
	fd = fail_start();
	for (i = 0; i < n; i++) {
		if (pthread_create(&th[born], NULL, burst_thread,
				   (void *)(long)born))
			refused++;
		else
			born++;
		/*
		 * A breath now and then for RCU's kthread (starved for 21 s,
		 * it reports a stall); the pool refills then too, and the
		 * next 300 drain it again.
		 */
		if (i % 300 == 299)
			usleep(20000);
	}
	fail_stop(fd);
	*stop = 1;
	waitpid(spinner, NULL, 0);
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	while (__atomic_load_n(&burst_n, __ATOMIC_ACQUIRE) < born)
		usleep(1000);
	for (tries = 0; tries < 5; tries++) {
		sleep(1);
		for (i = untracked = 0; i < born; i++) {
			snprintf(path, sizeof(path), "/proc/tsa/%d",
				 burst_tid[i]);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				untracked++;
			else
				close(fd);
		}
		if (!untracked)
			break;
	}
	printf("born %d refused %d untracked %d\n", born, refused, untracked);
	for (i = 0; i < born; i++)
		if (write(burst_pipe[1], &c, 1) != 1)
			return 2;
	for (i = 0; i < born; i++)
		pthread_join(th[i], NULL);
	return untracked != 0;
}

/*
 * tsa-partest load KO: load the module KO (a file on tmpfs) with this
 * task's allocations failing as debugfs says; nothing else (no exec, no
 * file of the 9p root) runs under the failures. Prints "loaded", or
 * "refused ERRNO"; exits 0 when loaded, 1 when refused.
 */
static int load(const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), mf, ret, e;

	if (fd < 0) {
		perror("load: open");
		return 2;
	}
	mf = fail_start();
	ret = syscall(SYS_finit_module, fd, "", 0);
	e = errno;
	fail_stop(mf);
	errno = e;
	if (ret) {
		printf("refused %s\n", strerror(errno));
		return 1;
	}
	printf("loaded\n");
	return 0;
}

/* Write VAL to tsa's fail_fork fault attribute NAME (debugfs); 0 or -1. */
static int ff_set(const char *name, const char *val)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/tsa/fail_fork/%s", name);
	f = fopen(path, "w");
	if (!f || fputs(val, f) < 0 || fclose(f)) {
		fprintf(stderr, "tsa-partest: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A number from debugfs' tsa stats, or -1. */
static long long tsa_stat(const char *key)
{
	static char buf[8192];

	return read_stats(buf, sizeof(buf)) ? -1 : stat_in(buf, key);
}

static volatile int *pin_stop;
static int pin_pipe[2];
static double pin_t1_cpu;

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* T1: 200 ms on the CPU in user mode, then gone. */
static void *pin_t1(void *arg)
{
	(void)arg;
	while (thread_cpu_s() < 0.2)
		;
	pin_t1_cpu = thread_cpu_s();
	return NULL;
}

/* A: tracked late; blocks until the end. */
static void *pin_a(void *arg)
{
	char c;

	(void)arg;
	if (read(pin_pipe[0], &c, 1) != 1)
		perror("pin: read");
	return NULL;
}

/*
 * M, the process under test, untracked (its record failed at its fork,
 * so it waits in the late queue with no group to join). T1 is tracked and
 * starts the process's group; A's record fails at its fork while T1 is
 * still there, so A waits in the late queue too; T1 runs 200 ms and is
 * freed, the last tracked thread of the process. The late work runs only
 * then (every CPU is held by SCHED_FIFO threads until T1's record is
 * gone): A must join the group that holds T1's 200 ms, not start a new
 * one. Prints "exited E oncpu_ns U t1_ns T live L early N": from M's
 * /proc/tsa file, the process's exited threads and USR+SYS; T1's CPU time
 * by its own clock; and how many threads the late work tracked before T1
 * was gone (0 if it was held off as it must be).
 */
static int pin_m(void)
{
	unsigned long long live = 0, exited = ~0ULL, usr = 0, sys = 0;
	long long threads, late0, late1;
	char path[64], line[256];
	pthread_t t1, a;
	double end;
	FILE *f;
	int i;

	/* Nothing M does may sleep (a page of the 9p root read in). */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("pin: mlockall");
	late0 = tsa_stat("tracked_late");
	if (pipe(pin_pipe) || pthread_create(&t1, NULL, pin_t1, NULL))
		return 2;
	/* A's record fails, M's own make-it-fail inherited from the parent. */
	if (ff_set("times", "1") || pthread_create(&a, NULL, pin_a, NULL))
		return 2;
	threads = tsa_stat("threads");
	pthread_join(t1, NULL);
	/*
	 * Busy (SCHED_FIFO) for 2 s: T1's record goes in an RCU callback
	 * (the suite runs RCU's threads above us), the late work waits.
	 */
	for (end = now_s() + 2; now_s() < end;)
		;
	late1 = tsa_stat("tracked_late");
	if (tsa_stat("threads") >= threads)
		fprintf(stderr, "pin: no record was removed in 2 s; ");
	*pin_stop = 1;
	/* Now the late work may run; then the procfs entry comes. */
	snprintf(path, sizeof(path), "/proc/tsa/%d", getpid());
	for (i = 0; i < 100 && exited == ~0ULL; i++) {
		usleep(50000);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			sscanf(line, "process-threads %llu %llu", &live, &exited);
			sscanf(line, "process-USR %llu", &usr);
			sscanf(line, "process-SYS %llu", &sys);
		}
		if (f)
			fclose(f);
	}
	/* early: threads the late work tracked before T1 was gone. */
	printf("exited %lld oncpu_ns %llu t1_ns %.0f live %llu early %lld\n",
	       exited == ~0ULL ? -1LL : (long long)exited, usr + sys,
	       pin_t1_cpu * 1e9, live, late1 - late0);
	if (write(pin_pipe[1], "x", 1) != 1)
		return 2;
	pthread_join(a, NULL);
	return 0;
}

/*
 * Both CPUs held at SCHED_FIFO 50: CPU 1 by a spinner until *pin_stop
 * (20 s at most), CPU 0 by the caller from here on. No worker runs until
 * the caller sleeps. Returns the spinner's pid, or -1.
 */
static pid_t hold_cpus(void)
{
	struct sched_param sp = { .sched_priority = 50 };
	pid_t spinner = fork();

	if (spinner < 0)
		return -1;
	if (!spinner) {
		double end = now_s() + 20;

		if (pin(1) || sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(1);
		while (!*pin_stop && now_s() < end)
			;
		_exit(0);
	}
	if (pin(0) || sched_setscheduler(0, SCHED_FIFO, &sp))
		return -1;
	return spinner;
}

static int pin_group(void)
{
	pid_t spinner, m;
	int st, fd;

	pin_stop = mmap(NULL, sizeof(*pin_stop), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pin_stop == MAP_FAILED)
		return 2;
	/* CPU 1: held by a SCHED_FIFO spinner until M says, 20 s at most. */
	spinner = hold_cpus();
	if (spinner < 0)
		return 2;
	/* Every page M runs resident: a thread made and joined once. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("pin: mlockall");
	{
		pthread_t warm;

		if (pthread_create(&warm, NULL, pin_t1, NULL))
			return 2;
		pthread_join(warm, NULL);
	}
	usleep(100000);
	fd = open("/proc/self/make-it-fail", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1) {
		perror("make-it-fail");
		return 2;
	}
	close(fd);
	/* M's record fails: the fork hook's next record is refused. */
	if (ff_set("times", "1"))
		return 2;
	m = fork();
	if (m < 0)
		return 2;
	if (!m)
		_exit(pin_m());
	waitpid(m, &st, 0);
	*pin_stop = 1;
	waitpid(spinner, NULL, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

static int reuse_park[2];

/* A thread of P's: waits until P exits. */
static void *reuse_t(void *arg)
{
	char c;

	if (read(reuse_park[0], &c, 1) < 0)
		perror("reuse: park");
	return arg;
}

/*
 * P: tracked, with @n threads made at once while no worker may run (the
 * CPUs are held): past the fork hook's pool (256 records) their records
 * wait in the late queue, P's group pinned for each (on PREEMPT_RT the
 * hook never allocates; elsewhere it would). With tsa's fail_fork (debug
 * kernels) the last one's record is refused too, on every kernel. Then P
 * exits, its threads with it.
 */
static int reuse_p(int n)
{
	pthread_t t;
	int fd, i;

	if (pipe(reuse_park))
		return 2;
	for (i = 0; i < n; i++) {
		if (i == n - 1 &&
		    !access("/sys/kernel/debug/tsa/fail_fork", F_OK)) {
			fd = open("/proc/self/make-it-fail", O_WRONLY);
			if (fd < 0 || write(fd, "1", 1) != 1 ||
			    ff_set("times", "1"))
				return 2;
			close(fd);
		}
		if (pthread_create(&t, NULL, reuse_t, NULL))
			return 2;
	}
	return 0;	/* exit_group(): the threads go too */
}

/* A new process: "L E" of its /proc/tsa/self's process-threads line. */
static int reuse_child(int out)
{
	unsigned int live = 0, exited = ~0U;
	char line[256];
	FILE *f = NULL;
	int i;

	/*
	 * Its record may have gone to the late queue too: wait for it (the
	 * file opens once the record is in, reads once it is seeded).
	 */
	for (i = 0; i < 1000 && exited == ~0U; i++) {
		f = fopen("/proc/tsa/self", "r");
		while (f && fgets(line, sizeof(line), f))
			sscanf(line, "process-threads %u %u", &live, &exited);
		if (f)
			fclose(f);
		if (exited == ~0U)
			usleep(5000);
	}
	snprintf(line, sizeof(line), "%u %d\n", live,
		 exited == ~0U ? -1 : (int)exited);
	return write(out, line, strlen(line)) > 0 ? 0 : 2;
}

/*
 * A process may not inherit a dead one's group (the review's F2). P's
 * threads wait in the late queue with P's group pinned (reuse_p()); P
 * and they exit and are reaped before the late work runs (CPU 1 held by
 * a SCHED_FIFO spinner, CPU 0 by us, SCHED_FIFO, yielding only to P).
 * Then new processes are forked one at a time, while the late work runs
 * (on CPU 0 when we pause, or CPU 1): its last put of P's threads frees P's
 * signal_struct, whose slab object the next fork on this CPU is likely
 * given (not under KASAN, whose quarantine holds freed objects back).
 * Each new process must start a group of its own: "process-threads 1
 * 0". Prints "children N joined J untracked U walks W" (J: those that
 * saw exited threads; U: those whose file did not come within 5 s;
 * W: the late work's walks, 0 if the queue held them all).
 */
static int reuse(int threads)
{
	long long late0, late1;
	unsigned int live;
	int st, i, n = 0, joined = 0, untracked = 0, exited, fds[2];
	pid_t spinner, p, c;
	char line[64];
	ssize_t len;

	pin_stop = mmap(NULL, sizeof(*pin_stop), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pin_stop == MAP_FAILED || pipe(fds))
		return 2;
	spinner = hold_cpus();
	if (spinner < 0)
		return 2;
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("reuse: mlockall");
	late0 = tsa_stat("late_walks");
	p = fork();
	if (p < 0)
		return 2;
	if (!p)
		_exit(reuse_p(threads));
	/* P and T are SCHED_FIFO on this CPU too: let them run, no one else. */
	while (waitpid(p, &st, WNOHANG) == 0)
		sched_yield();
	/* The late work may run now: CPU 1 is let go (RCU needs it too). */
	*pin_stop = 1;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return 2;
	for (i = 0; i < 100; i++) {
		c = fork();
		if (c < 0)
			break;
		if (!c)
			_exit(reuse_child(fds[1]));
		/* Blocked: the workers run while the child waits for its record. */
		waitpid(c, &st, 0);
		len = read(fds[0], line, sizeof(line) - 1);
		if (len <= 0)
			break;
		line[len] = '\0';
		if (sscanf(line, "%u %d", &live, &exited) == 2) {
			n++;
			joined += exited > 0;
			untracked += exited < 0;
		}
		usleep(2000);	/* the late work, RCU, the entries run */
	}
	late1 = tsa_stat("late_walks");
	waitpid(spinner, NULL, 0);
	printf("children %d joined %d untracked %d walks %lld\n", n, joined,
	       untracked, late1 - late0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--first")) {
		test_no = atoi(argv[2]) - 1;
		argc -= 2;
		argv += 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "readers"))
		return readers(atof(argv[2]), atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "load"))
		return load(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "burst"))
		return burst(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "failread"))
		return failread(argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "reuse"))
		return reuse(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "pin"))
		return pin_group();
	fprintf(stderr, "usage: tsa-partest [--first N] readers SECS ROUNDS\n"
		"       tsa-partest failread FILE N\n"
		"       tsa-partest burst N\n"
		"       tsa-partest load KO\n"
		"       tsa-partest pin\n");
	return 2;
}
