// SPDX-License-Identifier: GPL-2.0
/*
 * bench-record.c - what the flight recorder costs on a busy machine.
 *
 *   bench-record TSA_PRSTAT THREADS BLOCKS ACTIVE_PCT [calls]
 *
 * Simulates THREADS threads over BLOCKS intervals of 10 s: in each, a
 * thread is active with probability ACTIVE_PCT % (it runs a little in
 * USR and SYS, makes calls, and sleeps again: its line changes), and
 * otherwise sleeps on (its line only grows, as the kernel's would).
 * Hands each snapshot to "TSA_PRSTAT --record" through a FIFO, then
 * prints the recorder's CPU time per block and the bytes it wrote per
 * thread and recorded hour.  Each thread also has three system-call
 * rows, as /proc/tsa/calls shows them: the call it sleeps in (which
 * grows while it sleeps), and two it makes when it runs.
 *
 * "hist" adds /proc/tsa/hist (hist=lat: a LAT row per thread, one stay
 * each time a thread is active), which the recorder keeps too.
 *
 * With BENCH_SVG=1 in the environment, the recording is then drawn
 * ("--replay --svg FILE -L": its top 40 threads over every interval),
 * and the time, the largest resident size and the SVG's bytes printed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NS	14	/* the states of tsa-all 1 */
#define SLP	11
#define SEC	1000000000ull

static const char *const st[NS] = { "usr", "sys", "trp", "tfl", "dfl",
	"kfl", "apg", "lck", "klk", "iow", "idl", "slp", "lat", "stp" };

/* Its call rows: 0 the sleep it is in (clock_nanosleep), 1 read, 2 other. */
#define NC	3
static const char *const cname[NC] = { "clock_nanosleep", "read", "other" };

#define NB	28	/* tsa-hist 2's buckets */

struct th {
	uint64_t elapsed, state_ns, ns[NS], n[NS], max[NS], scl, vcx, icx;
	uint64_t lat_b[NB];	/* its LAT stays, by bucket (hist=lat) */
	uint64_t c_calls[NC], c_ns[NC], c_max[NC], c_sys[NC], c_slp[NC];
	int state;
};

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static void put_snapshot(FILE *f, struct th *t, int n, uint64_t now)
{
	int i, k;

	fprintf(f, "tsa-all 1\nnow %llu\nstates USR SYS TRP TFL DFL KFL APG "
		"LCK KLK IOW IDL SLP LAT STP\nfields tid pid uid flags elapsed "
		"state state_ns", (unsigned long long)now);
	for (k = 0; k < NS; k++)
		fprintf(f, " %s_ns %s_n %s_max", st[k], st[k], st[k]);
	fputs(" vcx icx scl sig minf majf mig at comm\n", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%d %d 0 0 %llu %d %llu", 1000 + i, 1000 + i / 8 * 8,
			(unsigned long long)t[i].elapsed, t[i].state,
			(unsigned long long)t[i].state_ns);
		for (k = 0; k < NS; k++)
			fprintf(f, " %llu %llu %llu",
				(unsigned long long)t[i].ns[k],
				(unsigned long long)t[i].n[k],
				(unsigned long long)t[i].max[k]);
		fprintf(f, " %llu %llu %llu 0 0 0 0 %llu worker-%d\n",
			(unsigned long long)t[i].vcx,
			(unsigned long long)t[i].icx,
			(unsigned long long)t[i].scl, (unsigned long long)now,
			i % 50);
	}
}

static void put_calls(FILE *f, struct th *t, int n, uint64_t now)
{
	int i, k;

	fprintf(f, "tsa-calls 1\nnow %llu\nrows 8 0\nstates SYS TRP TFL DFL "
		"KFL APG LCK KLK IOW IDL SLP LAT STP\nfields tid pid uid flags "
		"elapsed at kind name calls ns max sys_ns trp_ns tfl_ns dfl_ns "
		"kfl_ns apg_ns lck_ns klk_ns iow_ns idl_ns slp_ns lat_ns "
		"stp_ns\n", (unsigned long long)now);
	for (i = 0; i < n; i++)
		for (k = 0; k < NC; k++)
			if (t[i].c_calls[k])
				fprintf(f, "%d %d 0 0 %llu %llu syscall %s %llu "
					"%llu %llu %llu 0 0 0 0 0 0 0 0 0 %llu 0 "
					"0\n", 1000 + i, 1000 + i / 8 * 8,
					(unsigned long long)t[i].elapsed,
					(unsigned long long)now, cname[k],
					(unsigned long long)t[i].c_calls[k],
					(unsigned long long)t[i].c_ns[k],
					(unsigned long long)t[i].c_max[k],
					(unsigned long long)t[i].c_sys[k],
					(unsigned long long)t[i].c_slp[k]);
}

static void call_add(struct th *t, int k, uint64_t sys, uint64_t slp,
		     uint64_t len)
{
	t->c_ns[k] += sys + slp;
	t->c_sys[k] += sys;
	t->c_slp[k] += slp;
	if (t->c_max[k] < len)
		t->c_max[k] = len;
}

/* @dt of a thread's life: asleep on, or a little work and asleep again. */
static void step(struct th *t, uint64_t dt, int active, uint64_t *seed)
{
	uint64_t usr, sys, slp;

	t->elapsed += dt;
	if (!active) {
		t->state_ns += dt;
		t->ns[t->state] += dt;
		if (t->max[t->state] < t->state_ns)
			t->max[t->state] = t->state_ns;
		call_add(t, 0, 0, dt, t->state_ns);	/* still in it */
		return;
	}
	/* Its sleep ends, it reads and makes other calls, sleeps again. */
	call_add(t, 0, 0, (dt - dt / 20 - dt / 40) / 2, t->state_ns + dt / 4);
	usr = rnd(seed) % (dt / 20);
	sys = rnd(seed) % (dt / 40);
	slp = dt - usr - sys;
	/* The old stay ends, a run, then a new stay that lasts to now. */
	t->ns[t->state] += slp / 2;
	if (t->max[t->state] < t->state_ns + slp / 2)
		t->max[t->state] = t->state_ns + slp / 2;
	t->ns[0] += usr;
	t->ns[1] += sys;
	t->n[0]++;
	t->n[1]++;
	/* It waited for a CPU when woken: one LAT stay of 4-64 us. */
	t->ns[12] += 1000;
	t->n[12]++;
	t->lat_b[8 + rnd(seed) % 4]++;
	if (t->max[0] < usr)
		t->max[0] = usr;
	if (t->max[1] < sys)
		t->max[1] = sys;
	t->state = SLP;
	t->state_ns = slp - slp / 2;
	t->ns[SLP] += t->state_ns;
	t->n[SLP]++;
	if (t->max[SLP] < t->state_ns)
		t->max[SLP] = t->state_ns;
	t->scl += 1 + rnd(seed) % 200;
	t->vcx++;
	t->c_calls[1] += 1 + rnd(seed) % 50;
	call_add(t, 1, sys / 2, 0, sys / 4);
	t->c_calls[2] += 1 + rnd(seed) % 50;
	call_add(t, 2, sys - sys / 2, 0, sys / 8);
	t->c_calls[0]++;
	call_add(t, 0, 0, t->state_ns, t->state_ns);
}

/* /proc/tsa/hist as hist=lat keeps it: a LAT row per thread. */
static void put_hist(FILE *f, struct th *t, int n, uint64_t now)
{
	int i, b;

	fprintf(f, "tsa-hist 2\nnow %llu\nbuckets 28 -20\nstates TFL DFL KFL "
		"APG LCK KLK IOW IDL SLP LAT STP\nfields tid pid uid flags "
		"elapsed at state n ns max max_at open open_ns",
		(unsigned long long)now);
	for (b = 0; b < NB; b++)
		fprintf(f, " b%d", b);
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%d %d 0 0 %llu %llu LAT %llu %llu %llu %llu 0 0",
			1000 + i, 1000 + i / 8 * 8,
			(unsigned long long)t[i].elapsed,
			(unsigned long long)now, (unsigned long long)t[i].n[12],
			(unsigned long long)t[i].ns[12],
			(unsigned long long)t[i].max[12],
			(unsigned long long)now);
		for (b = 0; b < NB; b++)
			fprintf(f, " %llu", (unsigned long long)t[i].lat_b[b]);
		fputc('\n', f);
	}
}

/* tsa-prstat --replay REC @what..., measured, its stdout to /dev/null. */
static int timed(const char *prstat, const char *rec, const char *const *what,
		 double *secs, double *mib)
{
	struct timespec t0, t1;
	struct rusage ru;
	const char *argv[12] = { prstat, "--replay", rec };
	int status, i;
	pid_t pid;

	for (i = 0; what[i] && i < 8; i++)
		argv[3 + i] = what[i];
	fflush(stdout);		/* not the child's to write again */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execv(prstat, (char *const *)argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return fprintf(stderr, "bench-record: %s failed\n", what[0]), 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*secs = (double)(t1.tv_sec - t0.tv_sec) +
		(double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	*mib = ru.ru_maxrss / 1024.0;
	return 0;
}

/*
 * --replay REC --svg DIR/rec.svg -L, measured, beside what --summary -L
 * of the same window costs (the pictures read the recording twice).
 */
static int draw(const char *prstat, const char *dir, const char *rec,
		int threads, int blocks)
{
	struct stat sb;
	char svg[600];
	double s1, m1, s2, m2, s3, m3;

	snprintf(svg, sizeof(svg), "%s/rec.svg", dir);
	if (timed(prstat, rec, (const char *[]){ "--summary", "-L", "-n",
		  "40", NULL }, &s1, &m1) ||
	    timed(prstat, rec, (const char *[]){ "--svg", svg, "-L", NULL },
		  &s2, &m2) ||
	    timed(prstat, rec, (const char *[]){ "--folded", "-L", NULL },
		  &s3, &m3) || stat(svg, &sb))
		return 1;
	printf("bench-record: %d threads over %d blocks (%.1f h at 10 s): "
	       "--svg -L (the top 40) %.2f s, %.1f MiB resident at most, "
	       "%lld bytes; --folded -L (all) %.2f s, %.1f MiB; --summary -L "
	       "-n 40 %.2f s, %.1f MiB\n", threads, blocks, blocks / 360.0,
	       s2, m2, (long long)sb.st_size, s3, m3, s1, m1);
	return 0;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/bench-record.XXXXXX", fifo[300], cfifo[300];
	char hfifo[300];
	char rec[300], n_s[16];
	int threads, blocks, active, i, b, status, calls = 0, hist = 0;
	uint64_t seed = 1, now = 1000 * SEC;
	long long bytes = 0;
	struct rusage ru;
	struct dirent *de;
	struct th *t;
	pid_t pid;
	DIR *d;

	for (i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "calls"))
			calls = 1;
		else if (!strcmp(argv[i], "hist"))
			hist = 1;
		else
			break;
	}
	if (argc < 5 || i < argc)
		return fprintf(stderr, "usage: bench-record TSA_PRSTAT THREADS "
			       "BLOCKS ACTIVE_PCT [calls] [hist]\n"), 2;
	threads = atoi(argv[2]);
	blocks = atoi(argv[3]);
	active = atoi(argv[4]);
	if (!mkdtemp(dir))
		return 2;
	snprintf(fifo, sizeof(fifo), "%s/all", dir);
	snprintf(cfifo, sizeof(cfifo), "%s/calls", dir);
	snprintf(hfifo, sizeof(hfifo), "%s/hist", dir);
	snprintf(rec, sizeof(rec), "%s/rec", dir);
	snprintf(n_s, sizeof(n_s), "%d", blocks);
	if (mkfifo(fifo, 0600) || mkfifo(cfifo, 0600) ||
	    (hist && mkfifo(hfifo, 0600)))
		return 2;
	t = calloc(threads, sizeof(*t));
	for (i = 0; i < threads; i++) {
		t[i].state = SLP;
		t[i].elapsed = t[i].state_ns = t[i].ns[SLP] = t[i].max[SLP] =
			(1 + rnd(&seed) % 1000) * SEC;
		t[i].n[SLP] = 1;
		t[i].c_calls[0] = 1;
		t[i].c_ns[0] = t[i].c_slp[0] = t[i].c_max[0] = t[i].state_ns;
	}
	pid = fork();
	if (pid == 0) {
		setenv("TSA_PROC_DIR", dir, 1);
		execl(argv[1], argv[1], "--record", rec, "--interval", "0.001",
		      n_s, (char *)NULL);
		_exit(127);
	}
	for (b = 0; b < blocks; b++) {
		FILE *f = fopen(fifo, "w");

		if (!f)
			return 2;
		if (b)
			for (i = 0; i < threads; i++)
				step(&t[i], 10 * SEC,
				     (int)(rnd(&seed) % 100) < active, &seed);
		now += b ? 10 * SEC : 0;
		put_snapshot(f, t, threads, now);
		fclose(f);
		/*
		 * A FIFO has no end of file of its own: the recorder reads
		 * /proc/tsa/calls after all, so a calls file (no rows) in
		 * between makes the next open of "all" wait for its next read.
		 */
		f = fopen(cfifo, "w");
		if (!f)
			return 2;
		if (calls)
			put_calls(f, t, threads, now);
		else
			fprintf(f, "tsa-calls 1\nnow %llu\nrows 0 0\nstates SYS "
				"TRP TFL DFL KFL APG LCK KLK IOW IDL SLP LAT STP\n"
				"fields tid pid uid flags elapsed at kind name "
				"calls ns max sys_ns trp_ns tfl_ns dfl_ns kfl_ns "
				"apg_ns lck_ns klk_ns iow_ns idl_ns slp_ns lat_ns "
				"stp_ns\n", (unsigned long long)now);
		fclose(f);
		/* hist=lat's file, read after calls (no wakers file here). */
		if (hist) {
			f = fopen(hfifo, "w");
			if (!f)
				return 2;
			put_hist(f, t, threads, now);
			fclose(f);
		}
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return fprintf(stderr, "bench-record: the recorder failed\n"), 1;
	d = opendir(rec);
	while (d && (de = readdir(d)) != NULL) {
		char p[600];
		struct stat sb;

		snprintf(p, sizeof(p), "%s/%s", rec, de->d_name);
		if (de->d_name[0] != '.' && !stat(p, &sb))
			bytes += sb.st_size;
	}
	if (d)
		closedir(d);
	printf("bench-record: %d threads%s%s, %d blocks of 10 s, %d %% active a "
	       "block: %.1f ms of CPU a block (%.3f %% of one CPU at 10 s); "
	       "%lld bytes, %.0f bytes a thread an hour\n", threads,
	       calls ? " with 3 call rows each" : "",
	       hist ? " and a LAT distribution" : "", blocks,
	       active, (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 /
	       blocks + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3 /
	       blocks, ((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3) / blocks /
	       10000 * 100, bytes, (double)bytes / threads / (blocks * 10.0 /
	       3600));
	if (getenv("BENCH_SVG") && draw(argv[1], dir, rec, threads, blocks))
		return 1;
	snprintf(fifo, sizeof(fifo), "rm -rf %s", dir);
	return system(fifo) ? 1 : 0;
}
