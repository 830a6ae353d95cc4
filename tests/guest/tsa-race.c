// SPDX-License-Identifier: GPL-2.0
/*
 * A child that stops itself N times, each stop continued by its parent
 * from the other CPU at once: with tests/guest/race/tsa_race.ko loaded,
 * each SIGCONT's wakeup writes TASK_WAKING to the child's __state while
 * the child is still switching out. Prints the child's stops as tsa saw
 * them, for wait-tests.sh to judge:
 *
 *   tsa-race N [WIDENED]
 *     ->  "stops N stp_entries E stp_ns T slp_entries E slp_ns T"
 *
 * The child (named tsa-stopper) runs on CPU 0 and the parent on CPU 1.
 * WIDENED, the module's count of stops it holds in the window: before
 * each SIGCONT the parent waits for it to count this stop, so that the
 * wakeup never comes before the child's switch (it would then not stop).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tsa-read.h"

static long read_count(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Until the module holds stop @i in the window (5 s at most). */
static int wait_widened(const char *path, int i)
{
	int ms;

	for (ms = 0; ms < 5000; ms++) {
		if (read_count(path) > i)
			return 0;
		usleep(1000);
	}
	return -1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, i, st;
	struct tsa_thread t;
	pid_t child;

	if (n <= 0) {
		fprintf(stderr, "usage: tsa-race N\n");
		return 2;
	}
	pin(1);
	child = fork();
	if (child < 0)
		return 2;
	if (!child) {
		pin(0);
		prctl(PR_SET_NAME, "tsa-stopper");
		for (i = 0; i < n; i++)
			raise(SIGSTOP);
		for (;;)
			pause();
	}
	for (i = 0; i < n; i++) {
		if (waitpid(child, &st, WUNTRACED) != child || !WIFSTOPPED(st)) {
			fprintf(stderr, "tsa-race: stop %d not seen\n", i);
			kill(child, SIGKILL);
			return 2;
		}
		if (argc > 2 && wait_widened(argv[2], i)) {
			fprintf(stderr, "tsa-race: stop %d not held in the switch (%s)\n",
				i, argv[2]);
			kill(child, SIGKILL);
			return 2;
		}
		kill(child, SIGCONT);
	}
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
