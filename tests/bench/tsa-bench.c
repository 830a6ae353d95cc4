// SPDX-License-Identifier: GPL-2.0
/*
 * tsa-bench: micro-benchmarks whose cost tsa's hooks add to. Each prints
 * one number, nanoseconds per operation; tests/guest/bench.sh runs them
 * with and without the module and prints ratios.
 *
 *   tsa-bench syscall N     N getppid() calls              (sys_enter/exit)
 *   tsa-bench fault N       N page faults on fresh memory  (fault probe)
 *   tsa-bench futex N       N futex wake/wait round trips  (switch, wakeup)
 *   tsa-bench pipe N        N pipe round trips between two processes
 *   tsa-bench fork N        N fork + exit + wait           (task life cycle)
 *   tsa-bench thread N      N pthread_create + exit + join (a thread's)
 *   tsa-bench threads N CMD...  start N idle threads, then run CMD five
 *                           times and print its least CPU time in ns
 *   tsa-bench run N CMD...  a whole workload: run CMD N times, the
 *                           last bracketed (everything on the vCPU is
 *                           counted), and print its wall time in ns
 *   tsa-bench idle N CMD... start N idle threads, then run CMD once
 *                           (its output is this command's): the cost
 *                           of CMD's operations with N threads on the
 *                           machine
 *
 * The N operations (after a tenth as many to warm up) are bracketed by two
 * markers that tests/bench/insn-meter.c (a QEMU plugin) counts the guest
 * instructions between; on hardware and without the plugin they are no-ops.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* "nopl 0x5453xxxx(%rax)": see tests/bench/insn-meter.c. */
#define METER_MARK(id)							\
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80; .long 0x54530000 + %c0" \
			 : : "i"(id) : "memory")
#define METER_START() METER_MARK(1)
#define METER_STOP() METER_MARK(2)
/*
 * The calling task is one of the loop's: until the stop, the meter counts
 * only while such a task runs (not kworkers or others that run between).
 * The fork and thread loops' children are new tasks each time: they count
 * everything.
 */
#define METER_TASK() METER_MARK(3)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static double bench_syscall(long n)
{
	uint64_t t0;

	for (long i = 0; i < n / 10; i++)
		syscall(SYS_getppid);
	METER_TASK();
	METER_START();
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	t0 = now_ns() - t0;
	METER_STOP();
	return (double)t0 / n;
}

static double bench_fault(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t t0;
	long done = 0;

	METER_TASK();
	METER_START();
	t0 = now_ns();
	/* 1024 pages at a time: each first touch is a minor fault. */
	while (done < n) {
		long pages = n - done < 1024 ? n - done : 1024;
		char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return -1;
		for (long i = 0; i < pages; i++)
			p[i * page] = 1;
		munmap(p, pages * page);
		done += pages;
	}
	t0 = now_ns() - t0;
	METER_STOP();
	return (double)t0 / n;
}

/*
 * The ping-pong loops (futex, pipe) run SCHED_BATCH, which CFS never lets
 * a wakeup preempt with (check_preempt_wakeup()): every round trip is
 * then two calls that sleep, two wakeups and two switches, with or
 * without a module. Under SCHED_OTHER whether the woken side preempts
 * its waker depends on their vruntimes, which the hooks' own time moves:
 * a preempted waker finds its answer without a sleeping call, so a
 * round trip's work changed from config to config (the floor once added
 * +347 instructions to a futex round trip, where it adds +1,071 to each
 * round trip that sleeps).
 */
static void batch(void)
{
	struct sched_param sp = { 0 };

	if (sched_setscheduler(0, SCHED_BATCH, &sp))
		perror("tsa-bench: SCHED_BATCH");
}

static _Atomic int turn;

static void fwait(int v)
{
	while (atomic_load(&turn) == v)
		syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void fpass(int v)
{
	atomic_store(&turn, v);
	syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static long rounds;

static void *ponger(void *arg)
{
	(void)arg;
	METER_TASK();
	for (long i = 0; i < rounds; i++) {
		fwait(0);
		fpass(0);
	}
	return NULL;
}

static double bench_futex(long n)
{
	pthread_t t;
	uint64_t t0;

	rounds = n + n / 10;
	atomic_store(&turn, 0);
	batch();	/* the ponger inherits it */
	pthread_create(&t, NULL, ponger, NULL);
	for (long i = 0; i < n / 10; i++) {
		fpass(1);
		fwait(1);
	}
	METER_TASK();	/* the ponger has, during the warm-up */
	METER_START();
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		fpass(1);
		fwait(1);
	}
	t0 = now_ns() - t0;
	METER_STOP();
	pthread_join(t, NULL);
	return (double)t0 / n;
}

/* One byte there and back between two processes over two pipes. */
static double bench_pipe(long n)
{
	int ab[2], ba[2];
	long total = n + n / 10;
	uint64_t t0 = 0;
	pid_t p;
	char c = 0;

	if (pipe(ab) || pipe(ba))
		return -1;
	batch();	/* the child inherits it */
	p = fork();
	if (p == 0) {
		METER_TASK();
		for (long i = 0; i < total; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (long i = 0; i < total; i++) {
		if (i == n / 10) {
			METER_TASK();	/* the child has: it answered */
			METER_START();
			t0 = now_ns();
		}
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return -1;
	}
	t0 = now_ns() - t0;
	METER_STOP();
	waitpid(p, NULL, 0);
	return (double)t0 / n;
}

/*
 * @n runs of @once (after a tenth as many to warm up), bracketed; ns per
 * run, or -1 if one failed.
 */
static double bench_each(long n, int (*once)(void))
{
	uint64_t t0 = 0;

	for (long i = 0; i < n + n / 10; i++) {
		if (i == n / 10) {
			METER_START();
			t0 = now_ns();
		}
		if (once())
			return -1;
	}
	t0 = now_ns() - t0;
	METER_STOP();
	return (double)t0 / n;
}

/* A process born, exiting at once, and reaped. */
static int fork_once(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	return p < 0 || waitpid(p, NULL, 0) != p ? -1 : 0;
}

static void *thread_exit_now(void *arg)
{
	return arg;
}

/* A thread of this process born, exiting at once, and joined. */
static int thread_once(void)
{
	pthread_t t;

	return pthread_create(&t, NULL, thread_exit_now, NULL) ||
		pthread_join(t, NULL) ? -1 : 0;
}

/*
 * Idle threads leave one at a time (stop_idle()): a process that exits
 * with 100,000 threads up makes them all runnable at once on their CPU.
 * Under emulation that CPU then reported an RCU stall, no RCU softirq
 * having run for the 21 s (ksoftirqd starved, by the look of it).
 */
static _Atomic int leave;		/* threads that may leave now */
static _Atomic long idle_up;

static void *idle(void *arg)
{
	(void)arg;
	for (;;) {
		int v = atomic_load(&leave);

		if (v > 0 && atomic_compare_exchange_weak(&leave, &v, v - 1))
			break;
		if (v <= 0)
			syscall(SYS_futex, &leave, FUTEX_WAIT_PRIVATE, v, NULL,
				NULL, 0);
	}
	atomic_fetch_sub(&idle_up, 1);
	return NULL;
}

/* Let the idle threads leave, one after the other. */
static void stop_idle(void)
{
	while (atomic_load(&idle_up) > 0) {
		long up = atomic_load(&idle_up);

		atomic_fetch_add(&leave, 1);
		syscall(SYS_futex, &leave, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		while (atomic_load(&idle_up) == up)
			sched_yield();
	}
}

/* N idle threads with small stacks; returns how many started. */
static long start_idle(long n)
{
	pthread_attr_t attr;
	long i;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++) {
		pthread_t t;

		atomic_fetch_add(&idle_up, 1);
		if (pthread_create(&t, &attr, idle, NULL)) {
			atomic_fetch_sub(&idle_up, 1);
			fprintf(stderr, "tsa-bench: only %ld threads\n", i);
			break;
		}
		pthread_detach(t);
	}
	pthread_attr_destroy(&attr);
	return i;
}

/* CMD's exit status, run once with N idle threads up. */
static int bench_idle(long n, char **cmd)
{
	int status;
	pid_t p;

	if (start_idle(n) < n)
		return 1;
	sleep(1);
	fflush(stdout);
	p = fork();
	if (p == 0) {
		int fd = open("/dev/null", O_WRONLY);

		/* Its own report (hackbench's time) is not ours. */
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	status = p < 0 || waitpid(p, &status, 0) != p || !WIFEXITED(status) ?
		1 : WEXITSTATUS(status);
	stop_idle();
	return status;
}

/* Least CPU time (user + sys) of CMD over five runs, with N threads up. */
static double bench_threads(long n, char **cmd)
{
	double best = -1;

	start_idle(n);
	sleep(1);
	for (int r = 0; r < 5; r++) {
		struct rusage ru;
		int status;
		pid_t p = fork();
		double ns;

		if (p == 0) {
			if (!freopen("/dev/null", "w", stdout))
				_exit(127);
			execvp(cmd[0], cmd);
			_exit(127);
		}
		if (wait4(p, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "tsa-bench: %s failed\n", cmd[0]);
			return -1;
		}
		ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
		     (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
		if (best < 0 || ns < best)
			best = ns;
	}
	stop_idle();
	return best;
}

/* Run CMD and wait for it; its exit status, or -1. */
static int run_cmd(char **cmd)
{
	int status;
	pid_t p = fork();

	if (p == 0) {
		int fd = open("/dev/null", O_WRONLY);

		/* Its own report (hackbench's time) is not ours. */
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execvp(cmd[0], cmd);
		perror(cmd[0]);
		_exit(127);
	}
	if (p < 0 || waitpid(p, &status, 0) != p)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * A workload as a user runs it (a build, hackbench): N - 1 runs to warm
 * the caches, then one between the markers. Its processes are new tasks:
 * the meter counts everything on the vCPU, as for the fork loop.
 */
static double bench_run(long n, char **cmd)
{
	uint64_t t0;

	for (long i = 1; i < n; i++)
		if (run_cmd(cmd))
			return -1;
	METER_START();
	t0 = now_ns();
	if (run_cmd(cmd))
		return -1;
	t0 = now_ns() - t0;
	METER_STOP();
	return (double)t0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	double r;

	if (argc < 3 || n < 0 || (n == 0 && strcmp(argv[1], "idle")))
		goto usage;
	if (!strcmp(argv[1], "idle") && argc > 3)
		return bench_idle(n, argv + 3);
	if (!strcmp(argv[1], "syscall"))
		r = bench_syscall(n);
	else if (!strcmp(argv[1], "fault"))
		r = bench_fault(n);
	else if (!strcmp(argv[1], "futex"))
		r = bench_futex(n);
	else if (!strcmp(argv[1], "pipe"))
		r = bench_pipe(n);
	else if (!strcmp(argv[1], "fork"))
		r = bench_each(n, fork_once);
	else if (!strcmp(argv[1], "thread"))
		r = bench_each(n, thread_once);
	else if (!strcmp(argv[1], "threads") && argc > 3)
		r = bench_threads(n, argv + 3);
	else if (!strcmp(argv[1], "run") && argc > 3)
		r = bench_run(n, argv + 3);
	else
		goto usage;
	if (r < 0)
		return 1;
	printf("%.1f\n", r);
	return 0;
usage:
	fprintf(stderr, "usage: tsa-bench syscall|fault|futex|pipe|fork|thread N | threads N CMD... | run N CMD... | idle N CMD...\n");
	return 2;
}
