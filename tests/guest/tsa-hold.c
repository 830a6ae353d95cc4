// SPDX-License-Identifier: GPL-2.0
/*
 * tsa-hold: NPROC processes of NTHREADS threads each, all asleep, until
 * its standard input closes. Prints "ready N" once every thread is made.
 * For measurements of readers over many threads (tests/guest/scale.sh).
 *
 *   tsa-hold NPROC NTHREADS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int park[2];

static void *sleeper(void *arg)
{
	char c;

	if (read(park[0], &c, 1) < 0)
		perror("tsa-hold: read");
	return arg;
}

int main(int argc, char **argv)
{
	int nproc = argc > 2 ? atoi(argv[1]) : 0;
	int nthr = argc > 2 ? atoi(argv[2]) : 0;
	int made[2], i, j, n = 0;
	pthread_attr_t a;
	pthread_t t;
	char c;

	if (nproc < 1 || nthr < 1 || pipe(park) || pipe(made)) {
		fprintf(stderr, "usage: tsa-hold NPROC NTHREADS\n");
		return 2;
	}
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (i = 0; i < nproc; i++) {
		if (fork() == 0) {
			close(park[1]);
			for (j = 1; j < nthr; j++)
				if (pthread_create(&t, &a, sleeper, NULL))
					break;
			if (write(made[1], &j, sizeof(j)) != sizeof(j))
				_exit(1);
			sleeper(NULL);
			_exit(0);
		}
	}
	close(park[0]);
	for (i = 0; i < nproc; i++) {
		if (read(made[0], &j, sizeof(j)) != sizeof(j))
			break;
		n += j;
	}
	printf("ready %d\n", n);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	close(park[1]);
	while (wait(NULL) > 0)
		;
	return 0;
}
