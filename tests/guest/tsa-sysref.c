// SPDX-License-Identifier: GPL-2.0
/*
 * tsa-sysref: a referee for SYS on ordinary CPUs (no boundary hooks).
 *
 *   tsa-sysref MODE SECS [only]     MODE: getppid, read64k or fault
 *
 * Runs, on the CPU it is pinned to, a loop of the operation for about
 * SECS, timed as a whole with the vDSO clock, then the same loop with the
 * operation removed (for fault: the same stores to pages now present).
 * The difference is the time the kernel took. Prints one line:
 *
 *   MODE n N kernel_ns K sys_ns S usr_ns U calibrated_ns C ref_pct R
 *        sys_pct P cal_pct Q gap G raw_gap W
 *
 * with tsa's SYS and USR for this thread over the first loop (its own
 * /proc/tsa file, read before and after) and how much of that SYS the
 * calibration gave (sys_calibrated); then the shares of the loop's
 * on-CPU time (SYS + USR) that the referee gives the kernel (R, at most
 * 100) and tsa gives SYS (P), calibration's part of it (Q), and the gaps
 * |R - P| and |R - (P - Q)| in points. The caller compares. With "only",
 * the loop with the operation runs alone and nothing is printed: for a
 * sampling profiler's view of the same loop.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct books {
	long long usr, sys, cal;
};

static void tsa_books(struct books *b)
{
	static char buf[32768];
	char path[64], *line;
	ssize_t n, len = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/tsa/%ld", (long)syscall(SYS_gettid));
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	b->usr = b->sys = b->cal = -1;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		sscanf(line, "USR %lld", &b->usr);
		sscanf(line, "SYS %lld", &b->sys);
		sscanf(line, "sys_calibrated %lld", &b->cal);
	}
	if (b->usr < 0 || b->sys < 0 || b->cal < 0) {
		fprintf(stderr, "%s: no USR, SYS or sys_calibrated line\n", path);
		exit(2);
	}
}

enum mode { M_GETPPID, M_READ, M_FAULT };

static char rbuf[65536];

/* @n fresh pages, each to be faulted in on its own (no huge page). */
static char *fresh_pages(long n, long pagesz)
{
	char *p = mmap(NULL, n * pagesz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	madvise(p, n * pagesz, MADV_NOHUGEPAGE);
	return p;
}

/* @n operations (@with) or the loop without them; its duration. */
static uint64_t run(enum mode m, long n, int with, int fd, char *pages,
		    long pagesz)
{
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		if (m == M_FAULT) {
			((volatile char *)pages)[i * pagesz] = 1;
		} else if (with) {
			if (m == M_GETPPID)
				syscall(SYS_getppid);
			else if (read(fd, rbuf, sizeof(rbuf)) != sizeof(rbuf))
				exit(2);
		}
		__asm__ volatile("" ::: "memory");
	}
	return now_ns() - t0;
}

int main(int argc, char **argv)
{
	long pagesz = sysconf(_SC_PAGESIZE), n, probe = 1000;
	uint64_t t_probe, with, without;
	long long kernel, sys, cal, on;
	double ref, sysp, calp;
	struct books b0, b1;
	char *pages = NULL;
	enum mode m;
	double secs;
	int fd = -1;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "only"))) {
		fprintf(stderr, "usage: tsa-sysref getppid|read64k|fault SECS [only]\n");
		return 2;
	}
	if (!strcmp(argv[1], "getppid"))
		m = M_GETPPID;
	else if (!strcmp(argv[1], "read64k"))
		m = M_READ;
	else if (!strcmp(argv[1], "fault"))
		m = M_FAULT;
	else
		return 2;
	secs = atof(argv[2]);
	if (m == M_READ) {
		fd = open("/dev/zero", O_RDONLY);
		if (fd < 0)
			return 2;
	}
	/* How many fit in SECS: a probe of the operation itself. */
	if (m == M_FAULT)
		pages = fresh_pages(probe, pagesz);
	t_probe = run(m, probe, 1, fd, pages, pagesz);
	if (pages)
		munmap(pages, probe * pagesz);
	n = (long)(secs * 1e9 / ((double)t_probe / probe + 1));
	if (n < probe)
		n = probe;
	if (m == M_FAULT)
		pages = fresh_pages(n, pagesz);
	if (argc == 4) {
		run(m, n, 1, fd, pages, pagesz);
		return 0;
	}
	tsa_books(&b0);
	with = run(m, n, 1, fd, pages, pagesz);
	tsa_books(&b1);
	without = run(m, n, 0, fd, pages, pagesz);
	kernel = (long long)with - (long long)without;
	sys = b1.sys - b0.sys;
	cal = b1.cal - b0.cal;
	on = sys + (b1.usr - b0.usr);
	ref = on > 0 ? 100.0 * kernel / on : 0;
	if (ref > 100)
		ref = 100;
	sysp = on > 0 ? 100.0 * sys / on : 0;
	calp = on > 0 ? 100.0 * cal / on : 0;
	printf("%s n %ld kernel_ns %lld sys_ns %lld usr_ns %lld calibrated_ns %lld "
	       "ref_pct %.1f sys_pct %.1f cal_pct %.1f gap %.1f raw_gap %.1f\n",
	       argv[1], n, kernel, sys, b1.usr - b0.usr, cal, ref, sysp, calp,
	       fabs(ref - sysp), fabs(ref - (sysp - calp)));
	return 0;
}
