// SPDX-License-Identifier: GPL-2.0
/*
 * A worker pool that costs each request by its microstates: every worker
 * reads its own numbers (libtsa) before and after a request and prints
 * the difference: on CPU (USR, SYS), waiting for a CPU (LAT), for a lock
 * (LCK), asleep (SLP), in block I/O (IOW).
 *
 *   cc -O2 -pthread request-loop.c $(pkg-config --cflags --libs tsa)
 *   ./request-loop [REQUESTS]
 *
 * Requests come in four kinds, as a server's might: "cpu" computes for
 * 20 ms, "sleep" waits 20 ms for a timer, "lock" takes a mutex that
 * another request holds for 20 ms, "mixed" does a little of each. Two
 * workers take them from one queue, so a thread serves many requests and
 * each request's numbers are its own (a read pair per request).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <tsa.h>

#define WORKERS 2

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int next_request, requests = 8;
static const char *const kinds[] = { "cpu", "sleep", "lock", "mixed" };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void spin_ms(int ms)
{
	uint64_t end = now_ns() + ms * 1000000ull;

	while (now_ns() < end)
		;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static void serve(int kind)
{
	switch (kind) {
	case 0:
		spin_ms(20);
		break;
	case 1:
		sleep_ms(20);
		break;
	case 2:		/* the other worker may hold it: see hold() */
		pthread_mutex_lock(&shared);
		spin_ms(20);
		pthread_mutex_unlock(&shared);
		break;
	default:
		spin_ms(5);
		sleep_ms(5);
		pthread_mutex_lock(&shared);
		pthread_mutex_unlock(&shared);
		break;
	}
}

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

static void *worker(void *arg)
{
	struct tsa_snap a, b, d;
	int r;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&queue_lock);
		r = next_request < requests ? next_request++ : -1;
		pthread_mutex_unlock(&queue_lock);
		if (r < 0)
			break;
		if (tsa_self_read(&a)) {
			perror("tsa_self_read");
			exit(1);
		}
		serve(r % 4);
		if (tsa_self_read(&b)) {
			perror("tsa_self_read");
			exit(1);
		}
		tsa_self_diff(&a, &b, &d);
		pthread_mutex_lock(&out_lock);
		printf("request %-3d %-5s tid %-6d %6.2f ms: USR %6.2f SYS %6.2f LAT %6.2f LCK %6.2f SLP %6.2f IOW %6.2f (%s)\n",
		       r, kinds[r % 4], b.tid, ms(d.at), ms(d.ns[TSA_ST_USR]),
		       ms(d.ns[TSA_ST_SYS]), ms(d.ns[TSA_ST_LAT]),
		       ms(d.ns[TSA_ST_LCK]), ms(d.ns[TSA_ST_SLP]),
		       ms(d.ns[TSA_ST_IOW]), tsa_self_how_name(b.how));
		pthread_mutex_unlock(&out_lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[WORKERS];
	int i;

	if (argc > 1)
		requests = atoi(argv[1]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (tsa_self_open() < 0) {
		perror("tsa_self_open (is tsa loaded?)");
		return 1;
	}
	for (i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
