// SPDX-License-Identifier: GPL-2.0
/*
 * A child that stops itself until N of its stops were continued from the
 * other CPU by tests/guest/race/tsa_race.ko while still switching out (its
 * SIGCONT's wakeup writing TASK_WAKING to the child's __state), at most
 * N + N / 4 times. Prints the child's stops as tsa saw them, for
 * wait-tests.sh:
 *
 *   tsa-race N  ->  "stops S stp_entries E stp_ns T slp_entries E slp_ns T"
 *   tsa-race twread MS  ->  "idl_ns T slp_ns T" (see twread())
 *   tsa-race bhspin MS  ->  TAP (see bhspin())
 *   tsa-race seedrun MS KO  ->  "stalled S lat_ns T state X ..." (see seedrun())
 *
 * The child (named tsa-stopper) runs on CPU 0. The parent spins in user
 * space on CPU 1 until the child counts its N stops in shared memory: a
 * CPU in user space takes the module's IPI at once, and one that never
 * goes idle never runs the nohz blocked-load update, which would spin on
 * CPU 0's rq lock while the module holds it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tsa-read.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * tsa-race twread MS: a child blocks in read() on a pipe for 100 ms; then,
 * through tsa_race.ko's twsleep, it sleeps MS ms in task work on its way
 * back to user mode, after read()'s sys_exit, with read's number still in
 * its registers. That sleep is not the read's: SLP, not IDL. Prints
 * "idl_ns N slp_ns N" of the child, read in user mode after.
 */
static int twread(int ms)
{
	int p[2], q[2], st;
	char c = 'x', line[64];
	pid_t child;
	FILE *f;

	if (pipe(p) || pipe(q))
		return 2;
	child = fork();
	if (child < 0)
		return 2;
	if (!child) {
		struct tsa_thread t;

		if (read(p[0], &c, 1) != 1 || tsa_read_thread(getpid(), &t))
			_exit(2);
		snprintf(line, sizeof(line), "idl_ns %llu slp_ns %llu\n",
			 (unsigned long long)t.ns[TSA_IDL],
			 (unsigned long long)t.ns[TSA_SLP]);
		_exit(write(q[1], line, strlen(line)) > 0 ? 0 : 2);
	}
	usleep(100000);
	f = fopen("/sys/module/tsa_race/parameters/twsleep", "w");
	if (!f || fprintf(f, "%d %d", child, ms) < 0 || fclose(f)) {
		fprintf(stderr, "tsa-race: twsleep: %s (is tsa_race.ko loaded?)\n",
			strerror(errno));
		kill(child, SIGKILL);
		return 2;
	}
	if (write(p[1], &c, 1) != 1)
		return 2;
	close(q[1]);
	st = read(q[0], line, sizeof(line) - 1);
	if (st <= 0) {
		fprintf(stderr, "tsa-race: twread child reported nothing\n");
		return 2;
	}
	line[st] = '\0';
	fputs(line, stdout);
	waitpid(child, &st, 0);
	return 0;
}

static volatile int bh_stop;

/* SCHED_FIFO on CPU 0: every 2 ms it runs 0.5 ms, preempting the spin. */
static void *bh_preempter(void *arg)
{
	struct sched_param sp = { .sched_priority = 50 };

	(void)arg;
	pin(0);
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	while (!bh_stop) {
		double end;

		usleep(2000);
		for (end = now() + 0.0005; now() < end; )
			;
	}
	return NULL;
}

/*
 * tsa-race bhspin MS (tsa.ko with interrupts=1, tsa_race.ko): this thread,
 * on CPU 0, runs a tasklet that spins MS ms from its own local_bh_enable()
 * while a SCHED_FIFO thread preempts it every 2 ms. On PREEMPT_RT the
 * softirq runs in this thread and is preempted: its time off CPU is LAT,
 * not TRP, and not the softirq's. Prints TAP.
 */
static int bhspin(int ms)
{
	static struct tsa_calls ca, cb;
	struct tsa_thread a, b;
	unsigned long long rows = 0;
	pthread_t th;
	FILE *f;
	size_t i;
	int ok;

	pin(0);
	if (pthread_create(&th, NULL, bh_preempter, NULL))
		return 2;
	usleep(20000);
	ok = !tsa_read_thread_calls(gettid_(), &a, &ca);
	f = fopen("/sys/module/tsa_race/parameters/bhspin", "w");
	ok = ok && f && fprintf(f, "%d", ms) > 0;
	ok = f && !fclose(f) && ok;
	ok = ok && !tsa_read_thread_calls(gettid_(), &b, &cb);
	bh_stop = 1;
	pthread_join(th, NULL);
	if (!ok) {
		printf("not ok 1 - bhspin: run the tasklet and read /proc/tsa/%d (%s)\n",
		       gettid_(), strerror(errno));
		return 1;
	}
	for (i = 0; i < cb.ntraps; i++)
		rows += cb.trap[i].ns;
	for (i = 0; i < ca.ntraps; i++)
		rows -= ca.trap[i].ns;
	printf("# bhspin: TRP +%llu ns (%llu entries), LAT +%llu ns, trap rows +%llu ns\n",
	       (unsigned long long)(b.ns[TSA_TRP] - a.ns[TSA_TRP]),
	       (unsigned long long)(b.entries[TSA_TRP] - a.entries[TSA_TRP]),
	       (unsigned long long)(b.ns[TSA_LAT] - a.ns[TSA_LAT]), rows);
	ok = rows == b.ns[TSA_TRP] - a.ns[TSA_TRP];
	printf("%sok 1 - bhspin: the trap rows hold the thread's TRP exactly, not its time off CPU (expected %llu ns, saw %llu ns)\n",
	       ok ? "" : "not ", (unsigned long long)(b.ns[TSA_TRP] - a.ns[TSA_TRP]),
	       rows);
	ok = b.ns[TSA_TRP] - a.ns[TSA_TRP] >= (unsigned long long)ms * 1000000 / 2;
	printf("%sok 2 - bhspin: the %d ms softirq is TRP, on CPU (expected >= %d ms of TRP, saw %.3f ms)\n",
	       ok ? "" : "not ", ms, ms / 2,
	       (b.ns[TSA_TRP] - a.ns[TSA_TRP]) / 1e6);
	return 0;
}

/*
 * tsa-race seedrun MS KO: a thread on CPU 1, SCHED_FIFO, wakes every
 * millisecond, while this process loads tsa.ko (the file KO) from CPU 0.
 * tsa_race.ko's swstall holds the thread's first switch-in after tsa's
 * hooks are all registered for MS ms, after tsa's probe ran for it and
 * before its on_cpu is set: the load-time seeding runs meanwhile and
 * finds a thread on its CPU with on_cpu clear. Seeded LAT, it would stay
 * LAT until it leaves the CPU: once its wakeup came MS/2 ms late it spins
 * in user space for 1 s, then blocks. Prints "stalled S lat_ns T state X
 * lat_n N usr_ns U run_delay_ns D oncpu_ns C" (S: the module's holds;
 * then, read while it blocks, the thread's LAT, state, LAT entries and
 * USR in tsa, and its run delay and on-CPU time in schedstat).
 */
static volatile int sr_go, sr_done;
static volatile pid_t sr_tid;
static int sr_pipe[2];
static int sr_ms;

static void *seedrun_thread(void *arg)
{
	struct sched_param sp = { .sched_priority = 50 };
	struct timespec ms1 = { 0, 1000000 };
	double t0, end;
	char c;

	(void)arg;
	pin(1);
	sr_tid = gettid();
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		perror("seedrun: SCHED_FIFO");
	while (!sr_go)
		nanosleep(&ms1, NULL);
	end = now() + 30;
	while (now() < end) {
		t0 = now();
		nanosleep(&ms1, NULL);
		if (now() - t0 < sr_ms / 2000.0)
			continue;
		/* Held: on the CPU since, and for 1 s more. */
		for (t0 = now(); now() - t0 < 1;)
			;
		break;
	}
	sr_done = 1;
	/* Blocked until the parent has read its numbers. */
	if (read(sr_pipe[0], &c, 1) != 1)
		perror("seedrun: read");
	return NULL;
}

static int seedrun(int ms, const char *ko)
{
	unsigned long long oncpu, delay;
	struct tsa_thread t;
	pthread_t th;
	char arg[64];
	FILE *f;
	int fd, stalled = -1;

	sr_ms = ms;
	if (pipe(sr_pipe) || pthread_create(&th, NULL, seedrun_thread, NULL))
		return 2;
	pin(0);
	while (!sr_tid)
		usleep(1000);
	snprintf(arg, sizeof(arg), "%d %d", (int)sr_tid, ms);
	f = fopen("/sys/module/tsa_race/parameters/swstall", "w");
	if (!f || fputs(arg, f) < 0 || fclose(f)) {
		fprintf(stderr, "tsa-race: swstall: %s (is tsa_race.ko loaded?)\n",
			strerror(errno));
		return 2;
	}
	sr_go = 1;
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || syscall(SYS_finit_module, fd, "", 0)) {
		fprintf(stderr, "tsa-race: load %s: %s\n", ko, strerror(errno));
		return 2;
	}
	close(fd);
	while (!sr_done)
		usleep(10000);
	usleep(100000);		/* blocked in read() by now */
	stalled = (int)tsa_module_param("tsa_race", "swstalled");
	if (tsa_read_thread(sr_tid, &t)) {
		fprintf(stderr, "tsa-race: /proc/tsa/%d: %s\n", (int)sr_tid,
			strerror(errno));
		return 2;
	}
	snprintf(arg, sizeof(arg), "/proc/self/task/%d/schedstat", (int)sr_tid);
	f = fopen(arg, "r");
	if (!f || fscanf(f, "%llu %llu", &oncpu, &delay) != 2)
		oncpu = delay = 0;
	if (f)
		fclose(f);
	printf("stalled %d lat_ns %llu state %s lat_n %llu usr_ns %llu run_delay_ns %llu oncpu_ns %llu\n",
	       stalled, (unsigned long long)t.ns[TSA_LAT],
	       tsa_state_name(t.state), (unsigned long long)t.entries[TSA_LAT],
	       (unsigned long long)t.ns[TSA_USR], delay, oncpu);
	if (write(sr_pipe[1], "x", 1) != 1)
		return 2;
	pthread_join(th, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, i, st;

	if (argc > 2 && !strcmp(argv[1], "twread"))
		return twread(atoi(argv[2]));
	if (argc > 2 && !strcmp(argv[1], "bhspin"))
		return bhspin(atoi(argv[2]));
	if (argc > 3 && !strcmp(argv[1], "seedrun"))
		return seedrun(atoi(argv[2]), argv[3]);
	volatile int *sh;	/* [0] stops, [1] enough, [2] parked, [3] seen */
	struct tsa_thread t;
	double end;
	pid_t child;

	if (n <= 0) {
		fprintf(stderr, "usage: tsa-race N\n");
		return 2;
	}
	sh = mmap(NULL, 4 * sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	/*
	 * Forked pinned to CPU 0, the child starts there and never moves
	 * itself: a task that changes its own affinity may sleep until the
	 * stopper thread has moved it (wait_for_completion() in
	 * affine_move_task()), a sleep that is rightly SLP (seen once, 431 us,
	 * in a CI run on 7.3) and would be counted against the stops.
	 */
	pin(0);
	child = fork();
	if (child < 0)
		return 2;
	/*
	 * The child stops until the module has held N of its stops until
	 * their wakeup (a hold can time out when the other CPU must wait for
	 * CPU 0 first), at most N + N / 4 times.
	 */
	if (!child) {
		prctl(PR_SET_NAME, "tsa-stopper");
		for (i = 0; i < n + n / 4 &&
		     !__atomic_load_n(&sh[1], __ATOMIC_ACQUIRE); i++) {
			raise(SIGSTOP);
			__atomic_store_n(&sh[0], i + 1, __ATOMIC_RELEASE);
			/* Until the parent has counted it: one more or enough. */
			while (__atomic_load_n(&sh[3], __ATOMIC_ACQUIRE) <= i)
				;
		}
		__atomic_store_n(&sh[2], 1, __ATOMIC_RELEASE);
		for (;;)
			pause();
	}
	pin(1);
	/* Each stop must be continued within 5 s (by the module). */
	for (i = 0, end = now() + 5; !__atomic_load_n(&sh[2], __ATOMIC_ACQUIRE); ) {
		if (__atomic_load_n(&sh[0], __ATOMIC_ACQUIRE) > i) {
			i++;
			end = now() + 5;
			if (tsa_module_param("tsa_race", "woken") >= n)
				__atomic_store_n(&sh[1], 1, __ATOMIC_RELEASE);
			__atomic_store_n(&sh[3], i, __ATOMIC_RELEASE);
		} else if (now() > end) {
			fprintf(stderr, "tsa-race: stop %d not continued (is tsa_race.ko loaded?)\n",
				i);
			kill(child, SIGKILL);
			return 2;
		}
	}
	n = sh[0];
	/* Let the child reach pause(): its last stop then has ended. */
	usleep(200000);
	if (tsa_read_thread(child, &t)) {
		fprintf(stderr, "tsa-race: /proc/tsa/%d: %s\n", child,
			strerror(errno));
		kill(child, SIGKILL);
		return 2;
	}
	printf("stops %d stp_entries %llu stp_ns %llu slp_entries %llu slp_ns %llu\n",
	       n, (unsigned long long)t.entries[TSA_STP],
	       (unsigned long long)t.ns[TSA_STP],
	       (unsigned long long)t.entries[TSA_SLP],
	       (unsigned long long)t.ns[TSA_SLP]);
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	return 0;
}
