// SPDX-License-Identifier: GPL-2.0
/*
 * demo-workload: one process whose threads each spend their time in a
 * different way, so that tsa-prstat shows every column at work:
 *
 *   spin-a, spin-b   two CPU hogs pinned to one CPU   USR ~50 %, LAT ~50 %
 *   syscalls         a getppid loop                   SYS, SCL
 *   lock-owner       holds a mutex most of the time   USR
 *   lock-waiter      wants that mutex                 LCK
 *   sleeper          nanosleep                        SLP
 *   epoll-idle       epoll_wait with nothing to do    IDL (SLP in -m)
 *   pipe-reader      read() on a pipe fed now and then IDL
 *
 *   demo-workload SECONDS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int pipefd[2];

static void name(const char *n)
{
	prctl(PR_SET_NAME, n);
}

static void spin_for(long usec)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000L +
		 (b.tv_nsec - a.tv_nsec) / 1000 < usec);
}

static void *spin(void *arg)
{
	cpu_set_t set;

	name(arg);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!stop)
		;
	return NULL;
}

static void *syscalls(void *arg)
{
	name(arg);
	while (!stop) {
		for (int i = 0; i < 1000; i++)
			syscall(SYS_getppid);
		usleep(20000);
	}
	return NULL;
}

static void *lock_owner(void *arg)
{
	name(arg);
	while (!stop) {
		pthread_mutex_lock(&lock);
		spin_for(50000);
		pthread_mutex_unlock(&lock);
		usleep(5000);
	}
	return NULL;
}

static void *lock_waiter(void *arg)
{
	name(arg);
	while (!stop) {
		pthread_mutex_lock(&lock);
		pthread_mutex_unlock(&lock);
		usleep(1000);
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	name(arg);
	while (!stop)
		usleep(200000);
	return NULL;
}

static void *epoll_idle(void *arg)
{
	struct epoll_event ev;
	int ep = epoll_create1(0);

	name(arg);
	while (!stop)
		epoll_wait(ep, &ev, 1, 200);
	close(ep);
	return NULL;
}

static void *pipe_reader(void *arg)
{
	char c;

	name(arg);
	while (read(pipefd[0], &c, 1) == 1 && c != 'q')
		;
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void *(*fn)(void *);
	} t[] = {
		{ "spin-a", spin }, { "spin-b", spin },
		{ "syscalls", syscalls }, { "lock-owner", lock_owner },
		{ "lock-waiter", lock_waiter }, { "sleeper", sleeper },
		{ "epoll-idle", epoll_idle }, { "pipe-reader", pipe_reader },
	};
	int secs = argc > 1 ? atoi(argv[1]) : 10;
	pthread_t th[8];
	int i;

	if (pipe(pipefd))
		return 1;
	for (i = 0; i < 8; i++)
		pthread_create(&th[i], NULL, t[i].fn, (void *)t[i].name);
	for (i = 0; i < secs * 2; i++) {
		usleep(500000);
		if (write(pipefd[1], "x", 1) != 1)
			break;
	}
	stop = 1;
	if (write(pipefd[1], "q", 1) != 1)
		return 1;
	for (i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	return 0;
}
