// SPDX-License-Identifier: GPL-2.0
/*
 * A child that stops itself N times, each stop continued at once from the
 * other CPU by tests/guest/race/tsa_race.ko, whose SIGCONT's wakeup writes
 * TASK_WAKING to the child's __state while the child is still switching
 * out. Prints the child's stops as tsa saw them, for wait-tests.sh:
 *
 *   tsa-race N  ->  "stops N stp_entries E stp_ns T slp_entries E slp_ns T"
 *
 * The child (named tsa-stopper) runs on CPU 0. The parent spins in user
 * space on CPU 1 until the child counts its N stops in shared memory: a
 * CPU in user space takes the module's IPI at once, and one that never
 * goes idle never runs the nohz blocked-load update, which would spin on
 * CPU 0's rq lock while the module holds it.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
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

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, i, st;
	volatile int *stops;
	struct tsa_thread t;
	double end;
	pid_t child;

	if (n <= 0) {
		fprintf(stderr, "usage: tsa-race N\n");
		return 2;
	}
	stops = mmap(NULL, sizeof(*stops), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stops == MAP_FAILED)
		return 2;
	pin(1);
	child = fork();
	if (child < 0)
		return 2;
	if (!child) {
		pin(0);
		prctl(PR_SET_NAME, "tsa-stopper");
		for (i = 0; i < n; i++) {
			raise(SIGSTOP);
			__atomic_store_n(stops, i + 1, __ATOMIC_RELEASE);
		}
		for (;;)
			pause();
	}
	/* Each stop must be continued within 5 s (by the module). */
	for (i = 0, end = now() + 5; i < n; ) {
		if (__atomic_load_n(stops, __ATOMIC_ACQUIRE) > i) {
			i++;
			end = now() + 5;
		} else if (now() > end) {
			fprintf(stderr, "tsa-race: stop %d not continued (is tsa_race.ko loaded?)\n",
				i);
			kill(child, SIGKILL);
			return 2;
		}
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
