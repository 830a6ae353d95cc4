// SPDX-License-Identifier: GPL-2.0
/*
 * churn: create and destroy threads and processes as fast as possible for
 * a number of seconds (threads, forks, execs, signals, stops), to run
 * while tsa is loaded and unloaded.
 *
 *   churn SECONDS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;

static void *brief(void *arg)
{
	(void)arg;
	usleep(100);
	return NULL;
}

static void *thread_churn(void *arg)
{
	(void)arg;
	while (!stop) {
		pthread_t t[8];
		int i;

		for (i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, brief, NULL);
		for (i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
	}
	return NULL;
}

static void *fork_churn(void *arg)
{
	long n = 0;

	(void)arg;
	while (!stop) {
		pid_t p = fork();

		if (p == 0) {
			if (n % 4 == 0)
				execl("/bin/true", "true", (char *)NULL);
			_exit(0);
		}
		if (p > 0) {
			if (n % 8 == 1) {
				kill(p, SIGSTOP);
				kill(p, SIGCONT);
			}
			waitpid(p, NULL, 0);
		}
		n++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 10;
	pthread_t t[3];

	pthread_create(&t[0], NULL, thread_churn, NULL);
	pthread_create(&t[1], NULL, thread_churn, NULL);
	pthread_create(&t[2], NULL, fork_churn, NULL);
	sleep(secs);
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
