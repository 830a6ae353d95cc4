// SPDX-License-Identifier: GPL-2.0
/*
 * app/calibrate.c - tsa-prstat --calibrate: measure, on each CPU, what a system
 * call and a user page fault cost beyond what tsa's hooks see (the
 * kernel's entry and exit paths), and give it to tsa.ko
 * (/proc/tsa/calibration), which then charges it to SYS.
 *
 * On one CPU at a time, pinned: each operation is bracketed by two reads
 * of the vDSO clock (CLOCK_MONOTONIC, no system call), and so are empty
 * brackets; tsa's own file for this thread gives the SYS time its hooks
 * stamped meanwhile (its SYS less what calibration already adds). The
 * unseen cost of one operation is then
 *
 *	mean(bracket with it) - mean(empty bracket) - hooked SYS / count
 *
 * never below 0; the median of three such runs. The means keep every
 * bracket, the slow ones too: an interrupt in the entry or exit path
 * (or, under emulation, the vCPU not run meanwhile) is time a user timing
 * the call counts as the kernel's, and a fault that refills the page
 * allocator's lists is slow inside the hooks, where the hooked SYS has
 * it too.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "calibrate.h"
#include "util.h"

#define CAL_MAX_NS	65535	/* what tsa.ko accepts (tsa_calib.h) */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* This thread's SYS ns, less what calibration gave it (its own file). */
static int64_t hooked_sys(const char *proc_dir)
{
	char path[256], buf[16384];
	long long sys = -1, cal = -1, v;
	ssize_t n, len = 0;
	char *line;
	int fd;

	snprintf(path, sizeof(path), "%s/%ld", proc_dir,
		 (long)syscall(SYS_gettid));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(EXIT_NOMODULE, "%s: %s (is tsa.ko loaded?)", path,
		    strerror(errno));
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (sscanf(line, "SYS %lld", &v) == 1)
			sys = v;
		else if (sscanf(line, "sys_calibrated %lld", &v) == 1)
			cal = v;
	}
	if (sys < 0 || cal < 0)
		die(EXIT_BADDATA, "%s: no SYS or sys_calibrated line (tsa.ko too old?)",
		    path);
	return sys - cal;
}

enum op { OP_EMPTY, OP_CALL, OP_FAULT };

/*
 * @n brackets of @op: returns their mean, and sets *@hooked to the SYS
 * tsa's hooks stamped per operation. @pages: @n fresh pages for OP_FAULT.
 */
static double brackets(enum op op, size_t n, char *pages, long pagesz,
		       const char *proc_dir, double *hooked)
{
	uint64_t t0, sum = 0;
	int64_t s0, s1;
	size_t i;

	s0 = hooked_sys(proc_dir);
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (op == OP_CALL)
			syscall(SYS_getppid);
		else if (op == OP_FAULT)
			((volatile char *)pages)[i * pagesz] = 1;
		sum += now_ns() - t0;
	}
	s1 = hooked_sys(proc_dir);
	*hooked = (double)(s1 - s0) / (double)n;
	return (double)sum / (double)n;
}

/* One run's unseen cost of @op, in ns, at least 0. */
static double unseen(enum op op, size_t n, long pagesz, const char *proc_dir)
{
	double with, hooked, empty, ignore;
	char *pages = NULL;

	if (op == OP_FAULT) {
		pages = mmap(NULL, n * pagesz, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (pages == MAP_FAILED)
			die(EXIT_BADDATA, "mmap: %s", strerror(errno));
		/* Small pages: one fault each. */
		madvise(pages, n * pagesz, MADV_NOHUGEPAGE);
	}
	empty = brackets(OP_EMPTY, n, NULL, 0, proc_dir, &ignore);
	with = brackets(op, n, pages, pagesz, proc_dir, &hooked);
	if (pages)
		munmap(pages, n * pagesz);
	return with - empty - hooked > 0 ? with - empty - hooked : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of three runs, as tsa.ko takes it. */
static unsigned int cost(enum op op, size_t n, long pagesz,
			 const char *proc_dir)
{
	double c[3];
	int i;

	for (i = 0; i < 3; i++)
		c[i] = unseen(op, n, pagesz, proc_dir);
	qsort(c, 3, sizeof(c[0]), cmp_double);
	return c[1] > CAL_MAX_NS ? CAL_MAX_NS : (unsigned int)(c[1] + 0.5);
}

/* One CPU: its system call and fault costs; 0 when it cannot run there. */
static int calibrate_cpu(int cpu, const char *proc_dir, size_t n,
			 size_t nfault, unsigned int *sys, unsigned int *flt)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	double ignore;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return 0;
	/* Warm: the code, the clock's page, tsa's record of this thread. */
	brackets(OP_CALL, n / 10 + 1, NULL, 0, proc_dir, &ignore);
	*sys = cost(OP_CALL, n, pagesz, proc_dir);
	*flt = cost(OP_FAULT, nfault, pagesz, proc_dir);
	return 1;
}

/*
 * Whether @cpu is in @list ("0,2-3"); -1 if @list is not such a list.
 * The udev rule for a CPU that comes online names that CPU alone.
 */
static int in_cpulist(const char *list, int cpu)
{
	const char *p = list;
	int in = 0;

	do {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0 || lo >= CPU_SETSIZE)
			return -1;
		p = end;
		if (*p == '-') {
			hi = strtol(++p, &end, 10);
			if (end == p || hi < lo || hi >= CPU_SETSIZE)
				return -1;
			p = end;
		}
		in |= cpu >= lo && cpu <= hi;
	} while (*p == ',' && *++p);
	return *p ? -1 : in;
}

int calibrate(const char *proc_dir, const char *cpus)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	const char *env = getenv("TSA_CALIBRATE_CALLS");
	size_t n = env && atol(env) >= 100 ? (size_t)atol(env) : 20000;
	size_t len = 0, cap = 64;
	char path[256], *out = xmalloc(cap);
	unsigned int sys, flt;
	cpu_set_t orig;
	int cpu, fd, done = 0;

	snprintf(path, sizeof(path), "%s/calibration", proc_dir);
	if (access(path, R_OK))
		die(EXIT_NOMODULE, "%s: %s (tsa.ko not loaded, or too old)",
		    path, strerror(errno));
	if (cpus && in_cpulist(cpus, 0) < 0)
		die(EXIT_USAGE, "--calibrate=%s: not a CPU list (0,2-3)", cpus);
	if (sched_getaffinity(0, sizeof(orig), &orig))
		CPU_ZERO(&orig);
	printf("%-5s %8s %9s\n", "CPU", "SYS_NS", "FAULT_NS");
	for (cpu = 0; cpu < ncpu && cpu < CPU_SETSIZE; cpu++) {
		if (cpus && !in_cpulist(cpus, cpu))
			continue;
		if (!calibrate_cpu(cpu, proc_dir, n, n / 5, &sys, &flt))
			continue;
		printf("%-5d %8u %9u\n", cpu, sys, flt);
		if (cap - len < 64) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		len += snprintf(out + len, cap - len, "%d %u %u\n", cpu, sys,
				flt);
		done++;
	}
	sched_setaffinity(0, sizeof(orig), &orig);
	if (!done)
		die(EXIT_BADDATA, "no CPU to calibrate on");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, out, len) != (ssize_t)len)
		die(errno == EACCES || errno == EPERM ? EXIT_ACCESS :
		    EXIT_BADDATA, "%s: %s", path, strerror(errno));
	close(fd);
	free(out);
	printf("written to %s: each CPU's costs are SYS from now on\n", path);
	return 0;
}
