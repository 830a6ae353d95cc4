// SPDX-License-Identifier: GPL-2.0
/*
 * Known workloads for the event-trace replay (replay-tests.sh), each run
 * until killed:
 *
 *   replay-work lockhand   3 threads share a mutex; each holds it across a
 *                          20 ms nanosleep, unlocks, sched_yield()s, locks
 *   replay-work spin1      one spinner pinned on CPU 0
 *   replay-work spin2      two spinners pinned on CPU 0 (USR ~50, LAT ~50)
 *   replay-work pipe       two threads ping-pong a byte over two pipes
 *   replay-work sysloop    getppid() in a loop, and a spinner beside it
 *   replay-work faults     maps, touches and unmaps 64 anonymous pages
 *   replay-work sleeper    nanosleep(1 ms) in a loop, and one 2 s sleep
 *   replay-work getppid    getppid() in a loop (USR/SYS tests: a call as
 *                          cheap as tsa's own probes)
 *   replay-work read0      read()s 64 KiB of /dev/zero in a loop
 *
 * A second argument, SECS, makes the getppid, read0 and faults loops stop
 * after that long and sleep in pause(): read at leisure, on an idle guest.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int p1[2], p2[2];
static volatile unsigned long sink;

static void nsleep(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	nanosleep(&ts, NULL);
}

static void pin0(void)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(0, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static void *lockhand(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		nsleep(20000000);
		pthread_mutex_unlock(&mu);
		sched_yield();
	}
	return NULL;
}

static void *spin(void *arg)
{
	if (arg)
		pin0();
	for (;;)
		sink++;
	return NULL;
}

static void *pong(void *arg)
{
	char c;

	(void)arg;
	while (read(p1[0], &c, 1) == 1 && write(p2[1], &c, 1) == 1)
		;
	return NULL;
}

static double deadline;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Past the deadline (checked every 256 calls), sleep for good. */
static void until(void)
{
	static __thread unsigned int calls;

	if (deadline && !(++calls & 255) && now() >= deadline)
		for (;;)
			pause();
}

static void *sysloop(void *arg)
{
	(void)arg;
	for (;;) {
		syscall(SYS_getppid);
		until();
	}
	return NULL;
}

static void *read0(void *arg)
{
	static char buf[65536];
	int fd = open("/dev/zero", O_RDONLY);

	(void)arg;
	if (fd < 0)
		exit(1);
	for (;;) {
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			exit(1);
		until();
	}
	return NULL;
}

static void *faults(void *arg)
{
	(void)arg;
	for (;;) {
		char *m = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			exit(1);
		for (int i = 0; i < 64; i++)
			m[i * 4096] = 1;
		munmap(m, 64 * 4096);
		until();
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	for (;;)
		nsleep(arg ? 2000000000L : 1000000L);
	return NULL;
}

static void start(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, arg))
		exit(1);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (argc > 2)
		deadline = now() + atof(argv[2]);
	if (!strcmp(m, "lockhand")) {
		for (int i = 0; i < 3; i++)
			start(lockhand, NULL);
	} else if (!strcmp(m, "spin1")) {
		start(spin, (void *)1);
	} else if (!strcmp(m, "spin2")) {
		start(spin, (void *)1);
		start(spin, (void *)1);
	} else if (!strcmp(m, "pipe")) {
		char c = 'x';

		if (pipe(p1) || pipe(p2))
			return 1;
		start(pong, NULL);
		while (write(p1[1], &c, 1) == 1 && read(p2[0], &c, 1) == 1)
			;
		return 1;
	} else if (!strcmp(m, "sysloop")) {
		start(sysloop, NULL);
		start(spin, NULL);
	} else if (!strcmp(m, "getppid")) {
		start(sysloop, NULL);
	} else if (!strcmp(m, "read0")) {
		start(read0, NULL);
	} else if (!strcmp(m, "faults")) {
		start(faults, NULL);
	} else if (!strcmp(m, "sleeper")) {
		start(sleeper, NULL);
		start(sleeper, (void *)1);
	} else {
		fprintf(stderr, "usage: replay-work lockhand|spin1|spin2|pipe|sysloop|faults|sleeper|getppid|read0\n");
		return 2;
	}
	for (;;)
		pause();
}
