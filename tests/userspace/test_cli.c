// SPDX-License-Identifier: GPL-2.0
/*
 * test_cli.c - tsa-prstat end to end: the binary ($TSA_PRSTAT) run
 * against snapshots in a temporary $TSA_PROC_DIR; a FIFO named "all"
 * (and "calls", "hist") hands it one snapshot per interval,
 * deterministically; the recorder and replay, the keys under tmux, a
 * 10,000-thread run.  It links the model and the stores only to read
 * what the binary wrote.
 *
 * Output is TAP (tap.h); run-tests.sh sums every program's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <zstd.h>

#include "util.h"
#include "all.h"
#include "calls.h"
#include "hist.h"
#include "capture.h"
#include "tap.h"
#include "fx/load.h"
#include "fx/run.h"
#include "fx/snap.h"
#include "fx/want.h"

/* put() a fixture's text made for it, and free it. */
static void put_owned(const char *path, char *text)
{
	put(path, text);
	free(text);
}

static void test_errors(void)
{
	char *out, *err, path[400], *dir;
	int rc;

	rc = run("/nonexistent/tsa", (const char *[]){ "-mL", "1", "1", NULL },
		 &out, &err, 0);
	is_long(rc, 2, "module not loaded: exit 2");
	is_str(err, "tsa-prstat: /nonexistent/tsa/all: not found; is the tsa "
	       "module loaded? (sudo modprobe tsa)\n",
	       "module not loaded: the one-line message");
	free(out);
	free(err);

	dir = mkdir_in_tmp("v2");
	snprintf(path, sizeof(path), "%s/all", dir);
	put(path, "tsa-all 2\nnow 1\nfields tid comm\n1 x\n");
	rc = run(dir, (const char *[]){ "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 5, "format version 2: exit 5");
	ok(strstr(err, "version 2") && strstr(err, "reads version 1") &&
	   strchr(err, '\n') && !strchr(err, '\n')[1],
	   "format version 2: one line naming both versions");
	free(out);
	free(err);

	/* Issue 62: a file naming comm twice (majf renamed) is refused. */
	dir = mkdir_in_tmp("comm2");
	snprintf(path, sizeof(path), "%s/all", dir);
	out = snap_a();
	{
		char *f = strstr(out, " majf ");

		if (f)
			memcpy(f, " comm ", 6);
		ok(f != NULL, "comm twice: the fixture names majf");
	}
	put(path, out);
	free(out);
	rc = run(dir, (const char *[]){ "-mL", "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 5, "comm named twice in \"fields\": exit 5");
	{
		char want[600];

		snprintf(want, sizeof(want), "tsa-prstat: %s/all: \"fields\" "
			 "names \"comm\" twice (column 58)\n", dir);
		is_str(err, want, "comm named twice: one line, file and "
		       "reason");
	}
	is_str(out, "", "comm named twice: no report");
	free(out);
	free(err);

	dir = mkdir_in_tmp("a");
	snprintf(path, sizeof(path), "%s/all", dir);
	out = snap_a();
	put(path, out);
	free(out);

	rc = run(dir, (const char *[]){ "-p", "999999,888888", "1", "1", NULL },
		 &out, &err, 0);
	is_long(rc, 4, "-p with no existing pid: exit 4");
	is_str(err, "tsa-prstat: no such process: 999999,888888\n",
	       "-p with no existing pid: message");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-p", "999999 200", "1", "1", NULL },
		 &out, &err, 0);
	is_long(rc, 0, "-p with one existing pid of two: exit 0");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-Q", NULL }, &out, &err, 0);
	is_long(rc, 1, "bad option: exit 1");
	is_str(err, "tsa-prstat: invalid option -- 'Q'\n"
	       "Try 'tsa-prstat --help' for more information.\n",
	       "-Q: one line and where the help is, on stderr (as GNU tools)");
	ok(!*out, "-Q: nothing on stdout (saw %zu bytes)", strlen(out));
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--bogus-option", NULL }, &out, &err, 0);
	ok(rc == 1 && !strcmp(err, "tsa-prstat: unrecognized option "
	   "'--bogus-option'\nTry 'tsa-prstat --help' for more information.\n"),
	   "--bogus-option: exit 1, two lines (saw %d, %d lines: '%.120s')",
	   rc, count_str(err, "\n"), err);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-n", "x", NULL }, &out, &err, 0);
	ok(rc == 1 && count_str(err, "\n") == 2 &&
	   strstr(err, "\nTry 'tsa-prstat --help' for more information.\n"),
	   "-n x: exit 1, the error and 'Try' (saw %d, %d lines: '%.120s')",
	   rc, count_str(err, "\n"), err);
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-s", "size", NULL }, &out, &err, 0);
	is_long(rc, 1, "-s size: exit 1");
	ok(strstr(err, "not available") != NULL, "-s size: not available");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-n", "0", NULL }, &out, &err, 0);
	is_long(rc, 1, "-n 0: exit 1");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "1", "0", NULL }, &out, &err, 0);
	is_long(rc, 1, "count 0: exit 1");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "1", "2", "3", NULL }, &out, &err, 0);
	is_long(rc, 1, "three operands: exit 1");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "--version", NULL }, &out, &err, 0);
	ok(rc == 0 && !strncmp(out, "tsa-prstat ", 11), "--version: %s",
	   out);
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-h", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, "Usage:") && !*err, "-h: usage on stdout, "
	   "exit 0");
	ok(out && !strstr(out, "hist=1)") && strstr(out, "default\n"
	   "              load, hist=lat;"),
	   "-h: -H works on a default load (hist=lat), it does not need hist=1");
	free(out);
	free(err);

	/* Permission denied: a file nobody may read. */
	dir = mkdir_in_tmp("noperm");
	snprintf(path, sizeof(path), "%s/all", dir);
	out = snap_a();
	put(path, out);
	free(out);
	chmod(path, 0);
	if (geteuid() == 0 && access(prstat_bin, X_OK) == 0) {
		chmod(tmp, 0755);
		rc = run(dir, (const char *[]){ "1", "1", NULL }, &out, &err,
			 1);
		chmod(tmp, 0700);
		if (rc == 126 || rc == 127) {
			skip("permission denied (cannot run as nobody)");
		} else {
			is_long(rc, 3, "permission denied: exit 3");
			snprintf(path, sizeof(path), "tsa-prstat: %s/all: "
				 "permission denied\n", dir);
			is_str(err, path, "permission denied: message");
		}
	} else {
		rc = run(dir, (const char *[]){ "1", "1", NULL }, &out, &err,
			 0);
		is_long(rc, 3, "permission denied: exit 3");
	}
	free(out);
	free(err);
}

/*
 * The writer side of the FIFO: each open by the reader gets one
 * snapshot.  Before the next one, wait until the reader has closed
 * (a non-blocking open fails with ENXIO) and opened again, so that two
 * snapshots never run together; the reader's interval (0.2 s) keeps
 * that window wide.
 */
/*
 * Hand snaps[i] to the reader of fifos[i % nf], one at a time: each
 * only once the reader has closed that FIFO after the one before (a
 * FIFO has no end of file of its own).  With one FIFO the writer looks
 * for the moment no reader has it open; with two or more read in turn
 * (/proc/tsa/all and calls) a blocking open is enough, since the reader
 * opens the next only after it closed the last (and a probing open and
 * close would end a read that just began).
 */

static void test_end_to_end(void)
{
	char *out, *err, path[400], *dir, *snaps[2], *want, *p;
	int rc, status;
	pid_t w;

	dir = mkdir_in_tmp("fifo");
	snprintf(path, sizeof(path), "%s/all", dir);
	if (mkfifo(path, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	snaps[0] = snap_a();
	snaps[1] = snap_b();

	w = feed_fifo(path, snaps, 2);
	rc = run(dir, (const char *[]){ "-mL", "0.2", "2", NULL }, &out, &err,
		 0);
	waitpid(w, &status, 0);
	is_long(rc, 0, "two reports through a FIFO: exit 0");
	ok(!strchr(out, '\033'), "not a terminal: no escape sequences");
	p = strstr(out + 1, "   PID USERNAME");
	want = strdup(want_mL);
	cut_loadavg(want);
	if (p)
		cut_loadavg(p);
	is_str(p, want, "second report of the binary (-mL) is the hand-"
	       "computed one");
	free(want);
	free(out);
	free(err);

	/* JSON, checked by python3 when there is one. */
	w = feed_fifo(path, snaps, 2);
	rc = run(dir, (const char *[]){ "--json", "-L", "-c", "0.2", "2",
		 NULL }, &out, &err, 0);
	waitpid(w, &status, 0);
	is_long(rc, 0, "--json -L: exit 0");
	{
		int lines = 0;

		for (p = out; *p; p++)
			lines += *p == '\n';
		is_long(lines, 5 + 5, "--json -L: one line per thread and "
			"report");
	}
	if (system("python3 -c '' 2>/dev/null") == 0) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys\n"
			 "for l in open(sys.argv[1]):\n"
			 "    o = json.loads(l)\n"
			 "    assert \"ts\" in o and \"states\" in o, l\n"
			 "    assert len(o[\"states\"]) == 14, l\n' %s/stdout",
			 tmp);
		is_long(system(cmd), 0, "--json: every line parses "
			"(python3 json.loads) and has ts and 14 states");
	} else {
		skip("--json: python3 not found");
	}
	free(out);
	free(err);

	/* TSA view, processes, through the binary. */
	w = feed_fifo(path, snaps, 2);
	rc = run(dir, (const char *[]){ "--tsa", "-n", "2", "0.2", "2",
		 NULL }, &out, &err, 0);
	waitpid(w, &status, 0);
	p = strstr(out + 1, "   PID");
	if (p)
		cut_loadavg(p);
	/*
	 * pid 100: 2 s; EXEC (0.55+0.1)/2 = 32.5 -> 32 (tie to even),
	 * RUN 14.99 -> 15, APG 5.0, SLP = TFL .04975 + DFL .0497 + IOW .1
	 * + SLP .30075 = .5 -> 25, LCK = .25 + KLK .1 -> 17.5 -> 18,
	 * IDL 5.0; wait = 15 + 17.5 + 5 = 37.5, after pid 200's 50.
	 */
	is_str(p, "   PID USERNAME EXEC  RUN  APG  SLP  LCK  IDL  STP "
	       "PROCESS/NLWP  \n"
	       "   200 4000000    50   50  0.0  0.0  0.0  0.0  0.0 spin/1\n"
	       "   100 root       32   15  5.0   25   18  5.0  0.0 "
	       "db server/2\n"
	       "Total: 3 processes, 5 lwps,\n",
	       "--tsa -n 2: processes in the TSA view");
	free(out);
	free(err);

	free(snaps[0]);
	free(snaps[1]);
	unlink(path);
}

static void test_sigterm(void)
{
	char opath[300], *dir, path[400], *s;
	struct timespec ts = { 0, 10000000 };
	int status, i;
	pid_t pid;

	dir = mkdir_in_tmp("term");
	snprintf(path, sizeof(path), "%s/all", dir);
	s = snap_a();
	put(path, s);
	free(s);
	snprintf(opath, sizeof(opath), "%s/term.out", tmp);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int o = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		dup2(o, 1);
		setenv("TSA_PROC_DIR", dir, 1);
		alarm(20);
		execl(prstat_bin, prstat_bin, "-m", "30", (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 500; i++) {
		struct stat st;

		if (stat(opath, &st) == 0 && st.st_size > 0)
			break;
		nanosleep(&ts, NULL);
	}
	nanosleep(&ts, NULL);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "SIGTERM during the interval: exit 0");
	s = slurp(opath);
	ok(strstr(s, "Total: 3 processes, 5 lwps") != NULL,
	   "SIGTERM: the report was flushed");
	free(s);
}

/* Run the binary on a pseudo-terminal of @rows rows; its output. */
static char *run_pty(const char *dir, const char *const *args, int rows)
{
	struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = 80 };
	const char *argv[32];
	char *buf = NULL, chunk[4096];
	size_t len = 0;
	FILE *m;
	int master, i, status;
	ssize_t n;
	pid_t pid;

	argv[0] = prstat_bin;
	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	fflush(stdout);
	pid = forkpty(&master, NULL, NULL, &ws);
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		setenv("TSA_PROC_DIR", dir, 1);
		alarm(20);
		execv(prstat_bin, (char *const *)argv);
		_exit(127);
	}
	m = open_memstream(&buf, &len);
	while ((n = read(master, chunk, sizeof(chunk))) > 0)
		fwrite(chunk, 1, (size_t)n, m);
	fclose(m);
	close(master);
	waitpid(pid, &status, 0);
	return buf;
}

static void test_tty(void)
{
	char *dir, path[400], *s, *p;
	int lines = 0;

	dir = mkdir_in_tmp("tty");
	snprintf(path, sizeof(path), "%s/all", dir);
	s = snap_a();
	put(path, s);
	free(s);

	s = run_pty(dir, (const char *[]){ "-mL", "1", "1", NULL }, 6);
	if (!s) {
		skip("forkpty: %s", strerror(errno));
		return;
	}
	ok(!strncmp(s, "\033[H\033[J", 6), "terminal: the report starts by "
	   "clearing the screen");
	for (p = s; (p = strstr(p, " root ")) != NULL; p++)
		lines++;
	for (p = s; (p = strstr(p, " 4000000 ")) != NULL; p++)
		lines++;
	is_long(lines, 6 - 3, "terminal of 6 rows: 3 lines (rows less "
		"header, Total and cursor)");
	free(s);

	s = run_pty(dir, (const char *[]){ "-mL", "-c", "1", "1", NULL }, 6);
	ok(s && !strchr(s, '\033') && strstr(s, "sleeper/301"),
	   "terminal with -c: no escape sequences, every line");
	free(s);
}

static void test_big(void)
{
	char cmd[600], *dir, *out, *err, *p;
	struct timespec t0, t1;
	long lines = 0;
	int rc;

	dir = mkdir_in_tmp("big");
	snprintf(cmd, sizeof(cmd), "CALLS=%s/calls sh %s/gen-all.sh 10000 > "
		 "%s/all", dir, testdir, dir);
	if (system(cmd)) {
		skip("gen-all.sh failed");
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = run(dir, (const char *[]){ "-mL", "-c", "0.001", "2", NULL },
		 &out, &err, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (p = out; *p; p++)
		lines += *p == '\n';
	is_long(rc, 0, "10,000 threads: exit 0");
	is_long(lines, 2 * (10000 + 2), "10,000 threads: every thread, "
		"twice");
	printf("# 10,000 threads, two reports: %.0f ms\n",
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	free(out);
	free(err);

	/*
	 * Groups of the same threads: ten reports each (the first reads
	 * every process's cgroup file, the next ones take it from the
	 * cache); a fake /proc with one cgroup file per process, in 50
	 * cgroups.
	 */
	snprintf(cmd, sizeof(cmd), "cd %s && mkdir -p proc && for p in "
		 "$(awk 'NR > 4 { print $2 }' all | uniq); do mkdir -p "
		 "proc/$p && echo 0::/system.slice/svc$((p %% 50)).service "
		 "> proc/$p/cgroup; done", dir);
	if (system(cmd) == 0) {
		static const char *const by[] = { "user", "comm", "cgroup" };
		char procfs[400];
		size_t i;

		snprintf(procfs, sizeof(procfs), "%s/proc", dir);
		setenv("TSA_PROCFS", procfs, 1);
		for (i = 0; i < 3; i++) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			rc = run(dir, (const char *[]){ "--group", by[i], "-c",
				 "0.001", "10", NULL }, &out, &err, 0);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			is_long(rc, 0, "10,000 threads, --group %s: exit 0",
				by[i]);
			if (i == 2)
				ok(strstr(out, " /system.slice/svc49.service\n")
				   && !strstr(out, " ?\n"),
				   "10,000 threads, --group cgroup: every "
				   "process in its cgroup");
			printf("# 10,000 threads, --group %s, ten reports: "
			       "%.0f ms\n", by[i],
			       (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			       (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
			free(out);
			free(err);
		}
		unsetenv("TSA_PROCFS");
	} else {
		skip("10,000 threads: no fake /proc for --group cgroup");
	}

	/*
	 * The system-call view of the same threads: the first report has a
	 * line per thread's call row; the second, of the same snapshot,
	 * none (nothing happened in between).
	 */
	{
		char path[400], *calls, *q;
		long rows = 0;

		snprintf(path, sizeof(path), "%s/calls", dir);
		calls = slurp(path);
		/* Lines of live threads (tid not 0), system calls only. */
		for (q = calls; (q = strchr(q, '\n')) != NULL; q++) {
			char *nl = strchr(q + 1, '\n'), *sc;

			sc = strstr(q + 1, " syscall ");
			rows += q[1] >= '1' && q[1] <= '9' && sc &&
				(!nl || sc < nl);
		}
		free(calls);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = run(dir, (const char *[]){ "-yL", "-c", "0.001", "2",
			 NULL }, &out, &err, 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		for (lines = 0, p = out; *p; p++)
			lines += *p == '\n';
		is_long(rc, 0, "10,000 threads, -yL: exit 0");
		is_long(lines, rows + 2 + 2, "10,000 threads, -yL: every "
			"thread's calls, then none (the same snapshot again)");
		printf("# 10,000 threads, -yL, two reports (%ld call rows): "
		       "%.0f ms\n", rows,
		       (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
		free(out);
		free(err);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = run(dir, (const char *[]){ "-y", "-c", "0.001", "2",
			 NULL }, &out, &err, 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		is_long(rc, 0, "10,000 threads, -y (calls merged per "
			"process): exit 0");
		printf("# 10,000 threads, -y, two reports: %.0f ms\n",
		       (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
		free(out);
		free(err);
	}
}

/* The system-call view through the binary: errors, and two reports
 * through two FIFOs ("all" and "calls"). */
static void test_calls_binary(void)
{
	char *out, *err, path[400], cpath[400], want[600], *dir, *p;
	char *snaps[2], *csnaps[2], *w;
	int rc, status;
	pid_t fa, fc;

	dir = mkdir_in_tmp("nocalls");
	snprintf(path, sizeof(path), "%s/all", dir);
	out = snap_a();
	put(path, out);
	free(out);
	rc = run(dir, (const char *[]){ "-y", "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 2, "-y without /proc/tsa/calls: exit 2");
	snprintf(want, sizeof(want), "tsa-prstat: %s/calls: not found; the "
		 "tsa module must be loaded with calls=N (N > 0) and "
		 "syscalls=1 for -y (sudo modprobe -r tsa; sudo modprobe tsa "
		 "calls=8 syscalls=1)\n", dir);
	is_str(err, want, "-y without /proc/tsa/calls: the one-line message");
	ok(!*out, "-y without /proc/tsa/calls: no report");
	free(out);
	free(err);

	rc = run("/nonexistent/tsa", (const char *[]){ "--syscalls", "1", "1",
		 NULL }, &out, &err, 0);
	is_long(rc, 2, "--syscalls without the module: exit 2, as the others");
	ok(strstr(err, "is the tsa module loaded?") != NULL,
	   "--syscalls without the module: the module message first");
	free(out);
	free(err);

	/* A calls file for traps only (calls=0, interrupts=1). */
	snprintf(cpath, sizeof(cpath), "%s/calls", dir);
	put(cpath, "tsa-calls 1\nnow 1\nrows 0 6\nfields tid pid uid flags "
	    "elapsed at kind name calls ns max trp_ns\n"
	    "100 100 0 0 4000000000 10000000000 trap irq:24 1 5 5 5\n");
	rc = run(dir, (const char *[]){ "-y", "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 2, "-y with a calls file of traps only: exit 2");
	snprintf(want, sizeof(want), "tsa-prstat: %s/calls: no system-call "
		 "rows; the tsa module must be loaded with calls=N (N > 0) and "
		 "syscalls=1 for -y (sudo modprobe -r tsa; sudo modprobe tsa "
		 "calls=8 syscalls=1)\n", dir);
	is_str(err, want, "-y with a calls file of traps only: the message");
	free(out);
	free(err);

	/* A malformed calls file: where it is. */
	snprintf(cpath, sizeof(cpath), "%s/calls", dir);
	out = calls_a();
	p = strstr(out, "\n101 100 ");
	p = strchr(p + 1, ' ');			/* after the tid */
	for (rc = 0; rc < 7; rc++)
		p = strchr(p + 1, ' ');		/* to column 9: calls */
	p[1] = 'x';
	put(cpath, out);
	free(out);
	rc = run(dir, (const char *[]){ "-y", "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 5, "-y with a malformed calls file: exit 5");
	snprintf(want, sizeof(want), "tsa-prstat: %s/calls: line 10, column "
		 "9: not a number\n", dir);
	is_str(err, want, "-y with a malformed calls file: file, line and "
	       "column");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-A", "-y", NULL }, &out, &err, 0);
	is_long(rc, 1, "-A with -y: exit 1");
	ok(strstr(err, "choose one") != NULL, "-A with -y: two views");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "-y", "-s", "cpu", NULL }, &out, &err,
		 0);
	is_long(rc, 1, "-y -s cpu: exit 1");
	ok(strstr(err, "not a column of the syscalls view") != NULL,
	   "-y -s cpu: not a column of the view");
	free(out);
	free(err);

	/* Two reports, the second against the first. */
	dir = mkdir_in_tmp("cfifo");
	snprintf(path, sizeof(path), "%s/all", dir);
	snprintf(cpath, sizeof(cpath), "%s/calls", dir);
	if (mkfifo(path, 0600) || mkfifo(cpath, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	snaps[0] = snap_a();
	snaps[1] = snap_b();
	csnaps[0] = calls_a();
	csnaps[1] = calls_b();
	fa = feed_fifo(path, snaps, 2);
	fc = feed_fifo(cpath, csnaps, 2);
	rc = run(dir, (const char *[]){ "-yL", "0.2", "2", NULL }, &out, &err,
		 0);
	waitpid(fa, &status, 0);
	waitpid(fc, &status, 0);
	is_long(rc, 0, "-yL, two reports through FIFOs: exit 0");
	p = strstr(out + 1, "   PID SYSCALL");
	w = strdup(want_yL);
	cut_loadavg(w);
	if (p)
		cut_loadavg(p);
	is_str(p, w, "second report of the binary (-yL) is the hand-computed "
	       "one");
	free(w);
	free(out);
	free(err);

	fa = feed_fifo(path, snaps, 2);
	fc = feed_fifo(cpath, csnaps, 2);
	rc = run(dir, (const char *[]){ "--syscalls", "--json", "0.2", "2",
		 NULL }, &out, &err, 0);
	waitpid(fa, &status, 0);
	waitpid(fc, &status, 0);
	is_long(rc, 0, "--syscalls --json: exit 0");
	{
		int lines = 0;

		for (p = out; *p; p++)
			lines += *p == '\n';
		is_long(lines, 5 + 9, "--syscalls --json: one object per "
			"line of each report");
	}
	if (system("python3 -c '' 2>/dev/null") == 0) {
		char cmd[800];

		/* Every line parses; a line's states add up to its ns. */
		snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys\n"
			 "for l in open(sys.argv[1]):\n"
			 "    o = json.loads(l)\n"
			 "    assert o[\"call\"] and \"nlwp\" in o, l\n"
			 "    assert sum(s[\"ns\"] for s in "
			 "o[\"states\"].values()) == o[\"ns\"], l\n' %s/stdout",
			 tmp);
		is_long(system(cmd), 0, "--syscalls --json: every line parses "
			"(python3 json.loads), its states add up to its ns");
	} else {
		skip("--syscalls --json: python3 not found");
	}
	free(out);
	free(err);
	free(snaps[0]);
	free(snaps[1]);
	free(csnaps[0]);
	free(csnaps[1]);
	unlink(path);
	unlink(cpath);
}

/* Run @cmd with the file @path on its stdin or as "%s"; 0 if it passes. */
static int check_cmd(const char *fmt, const char *path)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), fmt, path, path, path);
	fflush(stdout);
	return system(cmd);
}

static void test_metrics_binary(void)
{
	static const char *const groups[] = { "pid", "cgroup", "user",
					      "comm" };
	char *out, *err, path[400], mpath[400], *dir, *text;
	int rc, have_promtool;
	size_t i;
	struct fx r[] = {
		{ 500, 500, 0, 0, MS(1000), S_USR, { [S_USR] = MS(1000) },
		  1, 2, 3, 4, "we\"ird\\134na me\\012x\\377\\001" },
		{ 501, 500, 0, 0, MS(1000), S_SLP, { [S_SLP] = MS(1000) },
		  0, 0, 0, 0, "worker-1" },
		{ 502, 500, 0, 0, MS(1000), S_SLP, { [S_SLP] = MS(1000) },
		  0, 0, 0, 0, "worker-2" },
		{ 0, 500, 0, 4, MS(3000), 0, { [S_LCK] = MS(3000) },
		  9, 0, 0, 0, "we\"ird\\134na me\\012x\\377\\001" },
	};

	dir = mkdir_in_tmp("metrics");
	snprintf(path, sizeof(path), "%s/all", dir);
	snprintf(mpath, sizeof(mpath), "%s/out.prom", tmp);
	text = snap_b();
	{
		/* Snapshot B and a process with an awkward name after it. */
		char *more = snapshot(MS(11000), r, sizeof(r) / sizeof(r[0]));
		char *rows = strstr(more, "\n500 ");
		FILE *f = fopen(path, "w");

		fputs(text, f);
		fputs(rows + 1, f);
		fclose(f);
		free(more);
	}
	free(text);

	rc = run(dir, (const char *[]){ "--openmetrics", "-p", "500", NULL },
		 &out, &err, 0);
	is_long(rc, 0, "--openmetrics -p 500: exit 0");
	ok(has_line(out, "tsa_process_state_seconds_total{pid=\"500\",comm="
		    "\"we\\\"ird\\\\na me\\nx\xef\xbf\xbd\xef\xbf\xbd\","
		    "user=\"root\",state=\"LCK\"} 3.000000000"),
	   "a name with a quote, backslash, space, newline, 0xff and 0x01 "
	   "is escaped; the exited threads' 3 s LCK count");
	ok(!strstr(out, "pid=\"100\""), "-p selects the process");
	free(out);
	free(err);

	have_promtool = system("command -v promtool >/dev/null") == 0;
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		rc = run(dir, (const char *[]){ "--prometheus", "--group",
			 groups[i], NULL }, &out, &err, 0);
		is_long(rc, 0, "--prometheus --group %s: exit 0", groups[i]);
		put(mpath, out);
		if (have_promtool)
			is_long(check_cmd("promtool check metrics < %s",
					  mpath), 0,
				"promtool check metrics accepts --prometheus "
				"--group %s", groups[i]);
		else
			ok(0, "promtool not found (tests/deps.sh installs "
			   "Debian's prometheus)");
		free(out);
		free(err);

		rc = run(dir, (const char *[]){ "--openmetrics", "--group",
			 groups[i], NULL }, &out, &err, 0);
		is_long(rc, 0, "--openmetrics --group %s: exit 0", groups[i]);
		put(mpath, out);
		/*
		 * promtool's OpenMetrics parser is Prometheus's own, in the
		 * backfill command, which wants a timestamp on each sample.
		 */
		if (have_promtool)
			is_long(check_cmd("d=$(mktemp -d) && sed -E "
				"'/^[^#]/ s/$/ 1700000000/' %s > $d/ts && "
				"promtool tsdb create-blocks-from openmetrics "
				"$d/ts $d/blocks >/dev/null; rc=$?; "
				"rm -rf $d; exit $rc", mpath), 0,
				"promtool's OpenMetrics parser accepts "
				"--openmetrics --group %s", groups[i]);
		/* Debian's python3-prometheus-client is in /usr/bin's. */
		if (system("/usr/bin/python3 -c 'import prometheus_client' "
			   "2>/dev/null") == 0)
			is_long(check_cmd("/usr/bin/python3 -c 'import sys\n"
				"from prometheus_client.openmetrics.parser "
				"import text_string_to_metric_families as p\n"
				"n = sum(len(f.samples) for f in "
				"p(open(sys.argv[1]).read()))\n"
				"assert n > 0' %s", mpath), 0,
				"prometheus_client's OpenMetrics parser accepts "
				"--openmetrics --group %s", groups[i]);
		else
			skip("python3-prometheus-client not installed");
		free(out);
		free(err);
	}
	/* The lint really runs: a counter without _total fails it. */
	if (have_promtool) {
		put(mpath, "# HELP x_seconds a\n# TYPE x_seconds counter\n"
		    "x_seconds 1\n");
		ok(check_cmd("promtool check metrics < %s >/dev/null 2>&1",
			     mpath) != 0,
		   "promtool check metrics rejects a counter without _total");
	}

	rc = run(dir, (const char *[]){ "--prometheus", "-L", NULL }, &out,
		 &err, 0);
	ok(rc == 1 && strstr(err, "per-thread"),
	   "--prometheus -L: exit 1, no per-thread series");
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--openmetrics", "1", NULL }, &out,
		 &err, 0);
	ok(rc == 1 && strstr(err, "one snapshot"),
	   "--openmetrics with an interval: exit 1");
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--prometheus", "--group", "tid",
		 NULL }, &out, &err, 0);
	ok(rc == 1 && strstr(err, "--group: 'tid'"),
	   "--group tid: exit 1");
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--group", "user", "-L", NULL },
		 &out, &err, 0);
	ok(rc == 1 && strstr(err, "not with -L or -y"),
	   "--group with -L: exit 1");
	free(out);
	free(err);
	rc = run("/nonexistent/tsa", (const char *[]){ "--prometheus", NULL },
		 &out, &err, 0);
	ok(rc == 2 && !*out, "--prometheus, module not loaded: exit 2, "
	   "no output");
	free(out);
	free(err);
}

/* Group reports through the binary: two snapshots through a FIFO. */
static void test_group_binary(void)
{
	char *out, *err, path[400], *dir, *snaps[2], *p;
	int rc, status;
	pid_t w;

	dir = mkdir_in_tmp("gfifo");
	snprintf(path, sizeof(path), "%s/all", dir);
	if (mkfifo(path, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	snaps[0] = snap_a();
	snaps[1] = snap_b();
	w = feed_fifo(path, snaps, 2);
	rc = run(dir, (const char *[]){ "--group", "user", "0.2", "2", NULL },
		 &out, &err, 0);
	waitpid(w, &status, 0);
	is_long(rc, 0, "--group user, two reports through a FIFO: exit 0");
	p = strstr(out + 1, " NPROC");
	ok(p && strstr(p, "\n     2     4  19 2.5 0.0 1.2 3.7 6.2  60 7.5 "
			   "2744 1000 200K    1 root\n"),
	   "--group user: the second report's root line is the hand-"
	   "computed one");
	free(out);
	free(err);

	w = feed_fifo(path, snaps, 2);
	rc = run(dir, (const char *[]){ "--group", "comm", "--json", "0.2",
		 "2", NULL }, &out, &err, 0);
	waitpid(w, &status, 0);
	is_long(rc, 0, "--group comm --json: exit 0");
	if (system("python3 -c '' 2>/dev/null") == 0) {
		char cmd[800];

		/* Every line parses; its states add up to its elapsed. */
		snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys\n"
			 "n = 0\n"
			 "for l in open(sys.argv[1]):\n"
			 "    o = json.loads(l); n += 1\n"
			 "    assert o[\"group\"] == \"comm\", l\n"
			 "    assert sum(s[\"ns\"] for s in "
			 "o[\"states\"].values()) == o[\"elapsed_ns\"], l\n"
			 "assert n == 8, n\n' %s/stdout", tmp);
		is_long(system(cmd), 0, "--group comm --json: 4 groups "
			"twice, every line parses, states add up to "
			"elapsed_ns");
	} else {
		skip("--group --json: python3 not found");
	}
	free(out);
	free(err);
	free(snaps[0]);
	free(snaps[1]);
	unlink(path);

	/* --group pid is the usual process report. */
	dir = mkdir_in_tmp("gpid");
	snprintf(path, sizeof(path), "%s/all", dir);
	snaps[0] = snap_b();
	put(path, snaps[0]);
	{
		char *out2, *err2;

		rc = run(dir, (const char *[]){ "--group", "pid", "1", "1",
			 NULL }, &out, &err, 0);
		run(dir, (const char *[]){ "1", "1", NULL }, &out2, &err2, 0);
		cut_loadavg(out);
		cut_loadavg(out2);
		ok(rc == 0 && !strcmp(out, out2),
		   "--group pid is the default per-process report");
		free(out2);
		free(err2);
	}
	free(out);
	free(err);
	free(snaps[0]);
}

/* ---- captures: --save and --compare ------------------------------------ */

/* Save the snapshot @text through the binary into @cap; its exit. */
static int save_via_binary(const char *name, const char *text,
			   const char *cap)
{
	char path[400], *dir, *out, *err;
	int rc;

	dir = mkdir_in_tmp(name);
	snprintf(path, sizeof(path), "%s/all", dir);
	put(path, text);
	rc = run(dir, (const char *[]){ "--save", cap, NULL }, &out, &err, 0);
	free(out);
	free(err);
	return rc;
}

static void test_compare_binary(void)
{
	char a[400], b[400], b2[400], path[400], *out, *err, *text, *p;
	int rc;

	snprintf(a, sizeof(a), "%s/a.cap", tmp);
	snprintf(b, sizeof(b), "%s/b.cap", tmp);
	text = snap_a();
	is_long(save_via_binary("capa", text, a), 0, "--save a.cap: exit 0");
	free(text);
	text = snap_b();
	is_long(save_via_binary("capb", text, b), 0, "--save b.cap: exit 0");
	free(text);

	/*
	 * A -> B by thread name: the group report's numbers (see
	 * test_group_report), and TIME, the threads' time in it: db
	 * server 1.5 s, sleeper 2 s, db worker .5 s, spin 1 s.  Only in
	 * A: tid 101 (exited) and the first 301; only in B: 102 and the
	 * second 301; no process gone.  Sorted by SLP time (the column:
	 * SLP + KLK + IOW + IDL), not share.
	 */
	rc = run(NULL, (const char *[]){ "--compare", a, b, "--group", "comm",
		 "-s", "slp", NULL }, &out, &err, 0);
	is_long(rc, 0, "--compare a b --group comm: exit 0");
	p = strchr(out, '\n');
	is_str(p ? p + 1 : out,
	       " NPROC  NLWP   TIME USR SYS TRP TFL DFL LCK SLP LAT  VCX  ICX "
	       " SCL  SIG THREADNAME\n"
	       "     1     2  2.00s  10 0.0 0.0 0.0 0.0 0.0  90 0.0    5    0 "
	       "   0    0 sleeper\n"
	       "     1     1  500ms  10 0.0 0.0  10 9.9 0.0  60  10 1234    0 "
	       "100K    0 db worker\n"
	       "     1     1  1.50s  33 6.7 0.0 0.0 6.7  17  20  17 1505 1000 "
	       "100K    1 db server\n"
	       "     1     1  1.00s  50 0.0 0.0 0.0 0.0 0.0 0.0  50    0 1.0M "
	       "   0    0 spin\n"
	       "Total: 3 processes, 5 lwps in B; only in A: 2 threads "
	       "(exited), 0 processes gone (their time after A is not "
	       "counted); only in B: 2 threads (new, counted from their "
	       "start)\n",
	       "--compare: per thread name by SLP time (sleeper 1.8 s, db "
	       "worker .30075 s, db server .3 s: though its share is "
	       "lower), threads in one capture only counted");
	ok(!strncmp(out, "Compare: ", 9) && strstr(out, ", 1.000 s apart\n"),
	   "--compare: the first line names the two times, 1 s apart");
	free(out);
	free(err);

	/* Per process (the default), JSON: B's process 200 gone. */
	snprintf(b2, sizeof(b2), "%s/b2.cap", tmp);
	text = snap_b();
	p = strstr(text, "\n200 200 ");
	if (p) {
		char *nl = strchr(p + 1, '\n');

		memmove(p + 1, nl + 1, strlen(nl + 1) + 1);
	}
	is_long(save_via_binary("capb2", text, b2), 0, "--save b2.cap "
		"(pid 200 gone): exit 0");
	free(text);
	rc = run(NULL, (const char *[]){ "--compare", a, b2, "--json", NULL },
		 &out, &err, 0);
	is_long(rc, 0, "--compare --json: exit 0");
	ok(strstr(out, "\"group\":\"pid\",\"name\":\"100\",\"nproc\":1,"
		  "\"nlwp\":2,\"first\":false,\"elapsed_ns\":2000000000,") &&
	   strstr(out, "\"only_a_threads\":3,\"gone_processes\":1,"
		  "\"only_b_threads\":2}}\n"),
	   "--compare --json: pid 100's 2 s, exited tid 101 within; pid 200 "
	   "gone, its 3 threads of A counted as only in A");
	free(out);
	free(err);

	/* Errors: clear, one line, non-zero. */
	rc = run(NULL, (const char *[]){ "--compare", a, "/nonexistent/x.cap",
		 NULL }, &out, &err, 0);
	is_str(err, "tsa-prstat: /nonexistent/x.cap: No such file or "
	       "directory\n", "--compare, a missing capture: its name and "
	       "why");
	is_long(rc, 5, "--compare, a missing capture: exit 5");
	free(out);
	free(err);

	snprintf(path, sizeof(path), "%s/capa/all", tmp);
	rc = run(NULL, (const char *[]){ "--compare", path, b, NULL }, &out,
		 &err, 0);
	ok(rc == 5 && strstr(err, "all: not a tsa-prstat capture (first "
			     "line: \"tsa-all 1\")\n"),
	   "--compare, a /proc/tsa/all that is not a capture: exit 5");
	free(out);
	free(err);

	/* Cut short, then one byte changed. */
	text = slurp(b);
	snprintf(path, sizeof(path), "%s/cut.cap", tmp);
	text[strlen(text) - 7] = '\0';
	put(path, text);
	rc = run(NULL, (const char *[]){ "--compare", a, path, NULL }, &out,
		 &err, 0);
	ok(rc == 5 && strstr(err, "cut.cap: damaged capture: ") &&
	   strstr(err, "(cut short?)\n"),
	   "--compare, a capture cut short: exit 5, \"damaged capture\"");
	free(out);
	free(err);
	free(text);
	text = slurp(b);
	p = strstr(text, "\n100 100 0 0 5000000000 ");
	if (p)
		p[20] = '6';	/* elapsed 5 s -> 6 s */
	snprintf(path, sizeof(path), "%s/flip.cap", tmp);
	put(path, text);
	rc = run(NULL, (const char *[]){ "--compare", a, path, NULL }, &out,
		 &err, 0);
	ok(p && rc == 5 && strstr(err, "flip.cap: damaged capture: checksum "
				  "mismatch\n"),
	   "--compare, a capture with one digit changed: exit 5, checksum");
	free(out);
	free(err);
	p = strstr(text, "tsa-capture 1");
	if (p)
		p[12] = '4';
	snprintf(path, sizeof(path), "%s/v4.cap", tmp);
	put(path, text);
	rc = run(NULL, (const char *[]){ "--compare", a, path, NULL }, &out,
		 &err, 0);
	ok(rc == 5 && strstr(err, "capture format version 4, this "
			     "tsa-prstat reads versions 1 to 3\n"),
	   "--compare, a capture of format version 4: exit 5, named");
	free(out);
	free(err);
	free(text);

	rc = run(NULL, (const char *[]){ "--compare", tmp, b, NULL }, &out,
		 &err, 0);
	ok(rc == 5 && strstr(err, "Is a directory"),
	   "--compare, a directory: exit 5");
	free(out);
	free(err);
	rc = run(NULL, (const char *[]){ "--compare", b, a, NULL }, &out,
		 &err, 0);
	ok(rc == 5 && strstr(err, "give the earlier capture first"),
	   "--compare b a (the later first): exit 5");
	free(out);
	free(err);
	rc = run(NULL, (const char *[]){ "--compare", a, NULL }, &out, &err,
		 0);
	ok(rc == 1 && strstr(err, "needs two captures"),
	   "--compare with one capture: exit 1");
	free(out);
	free(err);
	if (geteuid() == 0) {
		chmod(a, 0600);
		rc = run(NULL, (const char *[]){ "--compare", a, b, NULL },
			 &out, &err, 1);
		ok(rc == 3 && strstr(err, "a.cap: Permission denied\n"),
		   "--compare, a capture the user may not read: exit 3");
		free(out);
		free(err);
	} else {
		skip("not root: no unreadable capture");
	}
	rc = run("/nonexistent/tsa", (const char *[]){ "--save", b, NULL },
		 &out, &err, 0);
	ok(rc == 2 && access(b, F_OK) == 0,
	   "--save, module not loaded: exit 2, the old file kept");
	free(out);
	free(err);
	rc = run(mkdir_in_tmp("capa"), (const char *[]){ "--save",
		 "/nonexistent/dir/x.cap", NULL }, &out, &err, 0);
	ok(rc == 5 && strstr(err, "/nonexistent/dir/x.cap: No such file"),
	   "--save to a directory that does not exist: exit 5");
	free(out);
	free(err);
	if (access("/dev/full", W_OK) == 0) {
		rc = run(mkdir_in_tmp("capa"), (const char *[]){ "--save",
			 "/dev/full", NULL }, &out, &err, 0);
		ok(rc == 5 && strstr(err, "/dev/full: write error: No space"),
		   "--save to a full device: exit 5, write error");
		ok(access("/dev/full", W_OK) == 0,
		   "--save to a full device leaves the device in place (a failed capture removes only a regular file)");
		free(out);
		free(err);
	}
	rc = run(mkdir_in_tmp("capa"), (const char *[]){ "--save", b, "-L",
		 NULL }, &out, &err, 0);
	ok(rc == 1, "--save -L: exit 1");
	free(out);
	free(err);
}

/* Record @n snapshots handed through the FIFO @procdir/all into @rec. */
static int record_fifo(const char *procdir, const char *rec, char **snaps,
		       int n, char **err)
{
	char fifo[400], count[16], *out;
	int rc, status;
	pid_t w;

	snprintf(fifo, sizeof(fifo), "%s/all", procdir);
	snprintf(count, sizeof(count), "%d", n);
	w = feed_fifo(fifo, snaps, n);
	/* 0.1 s: the writer sees the reader gone before its next read. */
	rc = run(procdir, (const char *[]){ "--record", rec, "--interval",
		 "0.1", count, NULL }, &out, err, 0);
	waitpid(w, &status, 0);
	free(out);
	return rc;
}

/* The same snapshots reported live through the FIFO, with @args. */
static char *live_fifo(const char *procdir, char **snaps, int n,
		       const char *const *args)
{
	char fifo[400], count[16], *out, *err;
	const char *argv[32];
	int i, status;
	pid_t w;

	snprintf(fifo, sizeof(fifo), "%s/all", procdir);
	snprintf(count, sizeof(count), "%d", n);
	for (i = 0; args[i]; i++)
		argv[i] = args[i];
	argv[i++] = "-c";
	argv[i++] = "0.1";
	argv[i++] = count;
	argv[i] = NULL;
	w = feed_fifo(fifo, snaps, n);
	run(procdir, argv, &out, &err, 0);
	waitpid(w, &status, 0);
	free(err);
	return out;
}

/* Per block of the recording's files in @dir: its kind and lines. */
struct blockinfo {
	int key, rows, eq, gone, cgroups;
	char calls[160];	/* its system-call lines' kinds, in order */
	int wakers_aging;	/* its "w+" lines */
	int wakers_spaced;	/* its wakers' lines with a \040 */
};

static int read_blocks(const char *dir, struct blockinfo *b, int max)
{
	char cmd[500], path[600], name[64];
	int n = 0;
	FILE *ls;

	snprintf(cmd, sizeof(cmd), "ls %s | grep '^tsa-.*\\.rec$' | sort", dir);
	ls = popen(cmd, "r");
	while (ls && fgets(name, sizeof(name), ls)) {
		size_t len, pos = strlen("tsa-record 1\n");
		unsigned char *d;

		name[strcspn(name, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		d = (unsigned char *)slurp(path);
		{
			struct stat st;

			len = stat(path, &st) ? 0 : (size_t)st.st_size;
		}
		while (d && pos + 20 <= len && n < max) {
			uint32_t z = d[pos + 4] | d[pos + 5] << 8 |
				     d[pos + 6] << 16 | (uint32_t)d[pos + 7] << 24;
			uint32_t r = d[pos + 8] | d[pos + 9] << 8 |
				     d[pos + 10] << 16 | (uint32_t)d[pos + 11] << 24;
			char *raw = malloc(r + 1), *line, *save = NULL;
			int fields = 0;

			if (pos + 20 + z > len || ZSTD_decompress(raw, r,
			    d + pos + 20, z) != r) {
				free(raw);
				break;
			}
			raw[r] = '\0';
			memset(&b[n], 0, sizeof(b[n]));
			for (line = strtok_r(raw, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save)) {
				if (!strcmp(line, "block 1 key"))
					b[n].key = 1;
				else if (!strncmp(line, "gone ", 5))
					b[n].gone++;
				else if (!strncmp(line, "cgroup ", 7))
					b[n].cgroups++;
				else if (!strncmp(line, "= ", 2))
					b[n].eq++;
				else if (line[0] == 'c' && line[1] &&
					 strchr("r=+.-", line[1]) &&
					 line[2] == ' ') {
					size_t l = strlen(b[n].calls);

					snprintf(b[n].calls + l,
						 sizeof(b[n].calls) - l,
						 "%s%.2s%s%.*s", l ? " " : "", line,
						 line[1] == '+' || line[1] == '.' ?
						 ":" : "", line[1] == '+' ||
						 line[1] == '.' ? 2 : 0, line + 3);
				}
				else if (line[0] == 'w' && line[1] &&
					 strchr("hr=+.-", line[1]) &&
					 line[2] == ' ') {
					b[n].wakers_aging += line[1] == '+';
					b[n].wakers_spaced +=
						strstr(line, "\\040") != NULL;
				}
				else if (!strncmp(line, "fields ", 7))
					fields = 1;
				else if (fields)
					b[n].rows++;
			}
			free(raw);
			n++;
			pos += 20 + z;
		}
		free(d);
	}
	if (ls)
		pclose(ls);
	return n;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/*
 * A copy of the one-file recording @rec as tmp/@name (into @dir), and
 * that file's path (into @file, "" if none): for tests that damage it.
 * Returns system()'s status of the copy.
 */
static int copy_recording(const char *rec, const char *name, char *dir,
			  size_t dlen, char *file, size_t flen)
{
	char cmd[1600];
	FILE *p;
	int rc;

	snprintf(dir, dlen, "%s/%s", tmp, name);
	snprintf(cmd, sizeof(cmd), "rm -rf %s && cp -r %s %s", dir, rec, dir);
	rc = system(cmd);
	snprintf(cmd, sizeof(cmd), "ls %s/*.rec", dir);
	p = popen(cmd, "r");
	if (!p || !fgets(file, (int)flen, p))
		file[0] = '\0';
	if (p)
		pclose(p);
	file[strcspn(file, "\n")] = '\0';
	return rc;
}

/* @s cut at the start of the line that has @what (if any). */
static void cut_line_of(char *s, const char *what)
{
	char *p = strstr(s, what);

	if (!p)
		return;
	while (p > s && p[-1] != '\n')
		p--;
	*p = '\0';
}

static void test_record_replay(void)
{
	char *snaps[3], *out, *err, *live, rec[400], procfs[400], dir[400];
	char path[700], cmd[2000];
	struct blockinfo b[8];
	int rc, n;

	snprintf(dir, sizeof(dir), "%s", mkdir_in_tmp("recfifo"));
	snprintf(path, sizeof(path), "%s/all", dir);
	if (mkfifo(path, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	snprintf(procfs, sizeof(procfs), "%s", mkdir_in_tmp("recprocfs"));
	put_cgroup(procfs, 10, "0::/lab/sleepers\n");
	setenv("TSA_PROCFS", procfs, 1);
	snaps[0] = snap_x(1);
	snaps[1] = snap_x(2);
	snaps[2] = snap_x(3);
	snprintf(rec, sizeof(rec), "%s/rec", tmp);

	rc = record_fifo(dir, rec, snaps, 3, &err);
	is_long(rc, 0, "--record of 3 snapshots: exit 0 (stderr: %s)", err);
	free(err);
	n = read_blocks(rec, b, 8);
	is_long(n, 3, "the recording has 3 blocks");
	ok(n == 3 && b[0].key && !b[1].key && !b[2].key,
	   "the first is a key block, the next two are deltas");
	ok(n == 3 && b[0].rows == 3 && b[0].eq == 0 && b[1].rows == 1 &&
	   b[1].eq == 1 && b[2].rows == 0 && b[2].eq == 0,
	   "lines: 3 in the key block; in the second, the new totals line "
	   "whole and thread 11 as differences (10 and 12 only slept on: "
	   "left out); nothing in the third (nothing changed) (saw %d+%d "
	   "%d+%d %d+%d)", n ? b[0].rows : -1, n ? b[0].eq : -1,
	   n > 1 ? b[1].rows : -1, n > 1 ? b[1].eq : -1,
	   n > 2 ? b[2].rows : -1, n > 2 ? b[2].eq : -1);
	ok(n == 3 && b[0].cgroups == 1 && b[1].cgroups == 0 &&
	   b[2].gone == 1 && b[1].gone == 0,
	   "one cgroup line (pid 10, in the key block); thread 12 gone in "
	   "the third");

	/* What a replay shows is what tsa-prstat showed live. */
	{
		static const char *const views[][6] = {
			{ "--json", "-L", NULL },
			{ "--json", NULL },
			{ "--json", "--group", "cgroup", NULL },
			{ "--json", "-A", "-L", "-s", "run" },
		};
		size_t v;

		for (v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
			const char *args[8] = { "--replay", rec };
			int k;

			for (k = 0; k < 5 && views[v][k]; k++)
				args[2 + k] = views[v][k];
			live = mask_ts(live_fifo(dir, snaps, 3, views[v]));
			rc = run(NULL, args, &out, &err, 0);
			mask_ts(out);
			is_long(rc, 0, "--replay %s %s %s: exit 0", views[v][0],
				views[v][1] ? views[v][1] : "",
				views[v][1] && views[v][2] ? views[v][2] : "");
			is_str(out, live, "--replay %s %s %s: the reports of "
			       "the live run, line for line (%d lines)",
			       views[v][0], views[v][1] ? views[v][1] : "",
			       views[v][1] && views[v][2] ? views[v][2] : "",
			       count_lines(live));
			free(live);
			free(out);
			free(err);
		}
	}
	rc = run(NULL, (const char *[]){ "--replay", rec, "-L", NULL }, &out,
		 &err, 0);
	ok(rc == 0 && !strncmp(out, "Replay: ", 8) &&
	   strstr(out, ", since each thread began\n") &&
	   strstr(out, ", 1.0 s\n") && strstr(out, ", 0.0 s\n") &&
	   strstr(out, "Total: 1 processes, 3 lwps, load averages: ") &&
	   strstr(out, "Total: 1 processes, 2 lwps, load averages: "),
	   "--replay as a table: each report under its time and interval "
	   "(the first since each thread began), the recorded loads");
	free(out);
	free(err);

	/* A summary of the window is the report of its two ends. */
	{
		char *ends[2] = { snaps[0], snaps[2] };

		live = mask_ts(live_fifo(dir, ends, 2, (const char *[]){
				"--json", "-L", NULL }));
		rc = run(NULL, (const char *[]){ "--replay", rec, "--summary",
			 "--json", "-L", NULL }, &out, &err, 0);
		mask_ts(out);
		/* The live run's second report only. */
		{
			char *p = live;
			int k;

			for (k = 0; k < 3 && p; k++)	/* X1's 3 lines */
				p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
			is_str(out, p, "--replay --summary --json -L: X1 to X3 "
			       "as one report (exit %d)", rc);
		}
		free(live);
		free(out);
		free(err);
	}
	/* --compare of a recording at a time, as of captures. */
	{
		char a[500], c3[500], pt[500], *want;

		snprintf(a, sizeof(a), "%s/x1.cap", tmp);
		snprintf(c3, sizeof(c3), "%s/x3.cap", tmp);
		save_via_binary("capx1", snaps[0], a);
		save_via_binary("capx3", snaps[2], c3);
		run(NULL, (const char *[]){ "--compare", a, c3, "--json",
		    NULL }, &want, &err, 0);
		free(err);
		snprintf(pt, sizeof(pt), "%s@@4000000000", rec);
		rc = run(NULL, (const char *[]){ "--compare", a, pt, "--json",
			 NULL }, &out, &err, 0);
		/* The last line has the two walls: not theirs alike. */
		cut_line_of(want, "\"compare\":{");
		cut_line_of(out, "\"compare\":{");
		mask_ts(out);
		mask_ts(want);
		is_str(out, want, "--compare X1.cap REC@TIME: the recording's "
		       "last block before TIME is B, as the capture of X3 "
		       "(exit %d)", rc);
		free(want);
		free(out);
		free(err);
		snprintf(pt, sizeof(pt), "%s@@1", rec);
		rc = run(NULL, (const char *[]){ "--compare", pt, a, NULL },
			 &out, &err, 0);
		ok(rc == 5 && strstr(err, "no block recorded at or before"),
		   "--compare REC@@1: exit 5, nothing recorded then (%d: %s)",
		   rc, err);
		free(out);
		free(err);
		snprintf(pt, sizeof(pt), "%s@25:00", rec);
		rc = run(NULL, (const char *[]){ "--compare", pt, a, NULL },
			 &out, &err, 0);
		ok(rc == 1 && strstr(err, "invalid time '25:00'"),
		   "--compare REC@25:00: exit 1, invalid time (%d: %s)", rc,
		   err);
		free(out);
		free(err);
	}
	rc = run(NULL, (const char *[]){ "--replay", rec, "--from", "@4000000000",
		 NULL }, &out, &err, 0);
	ok(rc == EXIT_BADDATA && strstr(err, "no recorded interval in that "
				      "window"),
	   "--from after the recording: exit 5, 'no recorded interval' "
	   "(%d: %s)", rc, err);
	free(out);
	free(err);
	/* A date alone is that day's midnight (after the recording). */
	rc = run(NULL, (const char *[]){ "--replay", rec, "--from", "2099-01-01",
		 NULL }, &out, &err, 0);
	ok(rc == EXIT_BADDATA && strstr(err, "no recorded interval in that "
				      "window"),
	   "--from 2099-01-01 (a date alone): taken, after the recording: "
	   "exit 5, 'no recorded interval' (expected 5, seen %d: %s)", rc,
	   err);
	free(out);
	free(err);
	rc = run(NULL, (const char *[]){ "--replay", rec, "--from", "-1h",
		 "--to", "@4000000000", "--json", NULL }, &out, &err, 0);
	is_long(count_lines(out), 3, "--from -1h --to the future: every block's "
		"report (3 lines of one process)");
	free(out);
	free(err);

	/* Damage: a flipped byte in the second block, a torn tail. */
	{
		char copy[500], file[600];
		struct stat st;
		long off;
		int fd;
		unsigned char c;

		ok(copy_recording(rec, "rec-damaged", copy, sizeof(copy), file,
				  sizeof(file)) == 0,
		   "a copy of the recording to damage");
		fd = open(file, O_RDWR);
		/* Block 2 starts after the header line and block 1. */
		{
			unsigned char h[20];
			uint32_t z;

			off = (long)strlen("tsa-record 1\n");
			if (pread(fd, h, 20, off) == 20) {
				z = h[4] | h[5] << 8 | h[6] << 16 |
				    (uint32_t)h[7] << 24;
				off += 20 + (long)z + 20 + 3;
			}
		}
		if (pread(fd, &c, 1, off) == 1) {
			c ^= 0x55;
			if (pwrite(fd, &c, 1, off) != 1)
				c = 0;
		}
		close(fd);
		rc = run(NULL, (const char *[]){ "--replay", copy, "--json",
			 NULL }, &out, &err, 0);
		ok(rc == 0 && count_lines(out) == 1 &&
		   strstr(err, "a damaged block (checksum) at byte ") &&
		   strstr(err, "the blocks after it wait for the next full one"),
		   "a damaged block: skipped with a message, the delta after "
		   "it too (no base), the key block's report kept (exit %d, "
		   "%d lines; stderr: %s)", rc, count_lines(out), err);
		free(out);
		free(err);

		/* Undo, then cut the last block short. */
		fd = open(file, O_RDWR);
		if (pread(fd, &c, 1, off) == 1) {
			c ^= 0x55;
			if (pwrite(fd, &c, 1, off) != 1)
				c = 0;
		}
		if (!fstat(fd, &st) && ftruncate(fd, st.st_size - 3))
			st.st_size = 0;
		close(fd);
		rc = run(NULL, (const char *[]){ "--replay", copy, "--json",
			 NULL }, &out, &err, 0);
		ok(rc == 0 && count_lines(out) == 2 &&
		   strstr(err, "a torn block (cut short) at byte "),
		   "a torn tail (a recorder killed mid-write): the last block "
		   "skipped with a message, the others reported (exit %d, %d "
		   "lines; stderr: %s)", rc, count_lines(out), err);
		free(out);
		free(err);

		/* A file of the recording's name that is not one. */
		snprintf(file, sizeof(file), "%s/tsa-20000101-00.rec", copy);
		put(file, "hello\n");
		rc = run(NULL, (const char *[]){ "--replay", copy, "--json",
			 NULL }, &out, &err, 0);
		ok(rc == 0 && count_lines(out) == 2 &&
		   strstr(err, "tsa-20000101-00.rec: not a tsa recording"),
		   "a file that is not a recording is skipped with a message "
		   "(exit %d; stderr: %s)", rc, err);
		free(out);
		free(err);
	}

	/* Any byte of a recording damaged: a message, never a crash. */
	{
		char fz[500], file[700];
		unsigned char *orig;
		struct stat st;
		int i, crashed = 0, refused = 0, fd;
		uint64_t seed = 7;

		if (copy_recording(rec, "rec-fuzz", fz, sizeof(fz), file,
				   sizeof(file)))
			printf("# could not copy %s\n", rec);
		orig = (unsigned char *)slurp(file);
		st.st_size = stat(file, &st) ? 0 : st.st_size;
		for (i = 0; i < 200 && orig && st.st_size > 0; i++) {
			unsigned char *d = malloc((size_t)st.st_size);
			size_t at;

			memcpy(d, orig, (size_t)st.st_size);
			seed = seed * 6364136223846793005ull + 1;
			at = (size_t)(seed >> 33) % (size_t)st.st_size;
			d[at] ^= (unsigned char)(1 + (seed >> 20) % 255);
			fd = open(file, O_WRONLY | O_TRUNC);
			if (fd < 0 || write(fd, d, (size_t)st.st_size) !=
			    st.st_size)
				printf("# could not write %s\n", file);
			if (fd >= 0)
				close(fd);
			free(d);
			rc = run(NULL, (const char *[]){ "--replay", fz, "-L",
				 "--json", NULL }, &out, &err, 0);
			crashed += rc > 5;
			refused += rc != 0;
			free(out);
			free(err);
		}
		free(orig);
		ok(crashed == 0, "200 recordings with one byte changed: every "
		   "replay ends with exit 0 or 5, none crashes (%d refused "
		   "whole: nothing left to report)", refused);
	}

	/*
	 * A block whose checksums hold but whose header lies about its
	 * text's length (4 GiB), then one whose text is not a recorder's.
	 */
	{
		char crafted[500], file[600];
		unsigned char hdr[20], *frame;
		size_t fl, zb;
		FILE *f;
		int i;
		static const char *const texts[] = {
			"block 1 key\nwall 1.0\n",
			"block 1 key\nwall 1.0\n= 5 1 2\ntsa-all 1\nnow 1\n",
		};

		if (copy_recording(rec, "rec-crafted", crafted, sizeof(crafted),
				   file, sizeof(file)))
			printf("# could not copy %s\n", rec);
		f = fopen(file, "ab");
		for (i = 0; f && i < 2; i++) {
			zb = ZSTD_compressBound(strlen(texts[i]));
			frame = malloc(zb);
			fl = ZSTD_compress(frame, zb, texts[i], strlen(texts[i]), 1);
			memcpy(hdr, "TSAB", 4);
			{
				uint32_t v[3] = { (uint32_t)fl, i ? (uint32_t)
						  strlen(texts[i]) : 0xffffffffu,
						  crc32_buf(frame, fl) };
				int k, j;

				for (k = 0; k < 3; k++)
					for (j = 0; j < 4; j++)
						hdr[4 + 4 * k + j] = (unsigned char)
							(v[k] >> (8 * j));
				v[0] = crc32_buf(hdr, 16);
				for (j = 0; j < 4; j++)
					hdr[16 + j] = (unsigned char)(v[0] >> (8 * j));
			}
			fwrite(hdr, 1, 20, f);
			fwrite(frame, 1, fl, f);
			free(frame);
		}
		if (f)
			fclose(f);
		/* A file of an hour whose recorder stopped after its header. */
		snprintf(file, sizeof(file), "%s/tsa-20000101-00.rec", crafted);
		put(file, "tsa-record 1\n");
		rc = run(NULL, (const char *[]){ "--replay", crafted, "--json",
			 NULL }, &out, &err, 0);
		ok(rc == 0 && count_lines(out) == 3 &&
		   strstr(err, "a block whose header and frame disagree") &&
		   strstr(err, "a block that is not a recorder's") &&
		   !strstr(err, "tsa-20000101-00.rec"),
		   "blocks with good checksums but a 4 GiB length, or lines "
		   "no recorder writes: skipped with a message, the others "
		   "reported; a file of a header alone: nothing to say (exit "
		   "%d, %d lines; %s)", rc, count_lines(out), err);
		free(out);
		free(err);
	}

	/* Retention: by age, then by size; the file being written stays. */
	{
		char rdir[500], old[600];
		static char big[100 * 1024];
		const char *names[] = { "tsa-20200101-00.rec",
			"tsa-20200101-01.rec", "tsa-20200101-02.rec" };
		int i, status;
		pid_t w;

		snprintf(rdir, sizeof(rdir), "%s/retain", tmp);
		mkdir(rdir, 0755);
		memset(big, 'x', sizeof(big) - 1);
		for (i = 0; i < 3; i++) {
			snprintf(old, sizeof(old), "%s/%s", rdir, names[i]);
			put(old, big);
		}
		snprintf(old, sizeof(old), "%s/notes.txt", rdir);
		put(old, "not ours\n");
		w = feed_fifo(path, snaps, 1);
		rc = run(dir, (const char *[]){ "--record", rdir, "--max-size",
			 "150K", "--interval", "1", "1", NULL }, &out, &err, 0);
		waitpid(w, &status, 0);
		snprintf(cmd, sizeof(cmd), "ls %s | tr '\\n' ' '", rdir);
		free(out);
		free(err);
		out = NULL;
		{
			FILE *p = popen(cmd, "r");
			char buf[400] = "";

			if (p) {
				if (!fgets(buf, sizeof(buf), p))
					buf[0] = '\0';
				pclose(p);
			}
			ok(rc == 0 && !strstr(buf, names[0]) &&
			   !strstr(buf, names[1]) && strstr(buf, names[2]) &&
			   strstr(buf, "notes.txt") && strstr(buf, "tsa-2"),
			   "--max-size 150K over 3 old files of 100 KiB: the "
			   "two oldest removed, the newest old one, the new "
			   "file and other files kept (exit %d: %s)", rc, buf);
		}
		w = feed_fifo(path, snaps, 1);
		rc = run(dir, (const char *[]){ "--record", rdir, "--keep",
			 "1d", "--interval", "1", "1", NULL }, &out, &err, 0);
		waitpid(w, &status, 0);
		snprintf(old, sizeof(old), "%s/%s", rdir, names[2]);
		ok(rc == 0 && access(old, F_OK) && errno == ENOENT,
		   "--keep 1d: a file of 2020 removed (exit %d)", rc);
		free(out);
		free(err);
	}
	unsetenv("TSA_PROCFS");

	/* An idle machine costs a key block, and then next to nothing. */
	{
		char *gen[21], gcmd[500], idle[500], name[64];
		struct stat st0, st1;
		FILE *p;
		int i;

		snprintf(gcmd, sizeof(gcmd), "sh %s/gen-all.sh 2000", testdir);
		p = popen(gcmd, "r");
		gen[0] = NULL;
		if (p) {
			size_t cap = 0, len = 0;
			char chunk[65536];
			size_t k;

			while ((k = fread(chunk, 1, sizeof(chunk), p)) > 0) {
				if (len + k + 1 > cap) {
					cap = 2 * (len + k + 1);
					gen[0] = realloc(gen[0], cap);
				}
				memcpy(gen[0] + len, chunk, k);
				len += k;
			}
			if (gen[0])
				gen[0][len] = '\0';
			pclose(p);
		}
		for (i = 1; i < 21; i++)
			gen[i] = gen[0];
		snprintf(idle, sizeof(idle), "%s/idle1", tmp);
		rc = record_fifo(dir, idle, gen, 1, &err);
		free(err);
		snprintf(cmd, sizeof(cmd), "ls %s", idle);
		p = popen(cmd, "r");
		if (!p || !fgets(name, sizeof(name), p))
			name[0] = '\0';
		if (p)
			pclose(p);
		name[strcspn(name, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s/%s", idle, name);
		st0.st_size = stat(path, &st0) ? 0 : st0.st_size;
		snprintf(idle, sizeof(idle), "%s/idle21", tmp);
		rc |= record_fifo(dir, idle, gen, 21, &err);
		free(err);
		snprintf(path, sizeof(path), "%s/%s", idle, name);
		st1.st_size = stat(path, &st1) ? 0 : st1.st_size;
		ok(rc == 0 && st0.st_size > 100000 &&
		   st1.st_size < st0.st_size + 20 * 2048,
		   "2000 idle threads: a key block of %lld bytes, and 20 "
		   "more blocks of nothing changed add %lld bytes (exit %d, "
		   "file %s)", (long long)st0.st_size,
		   (long long)(st1.st_size - st0.st_size), rc, name);
		free(gen[0]);
	}

	/* Bad input gets a clear error and changes nothing. */
	{
		static const struct {
			const char *args[8];
			int rc;
			const char *msg;
		} bad[] = {
			{ { "--record", "X", "-L", NULL }, 1,
			  "--record keeps every visible thread" },
			{ { "--record", "X", "--keep", "7y", NULL }, 1,
			  "invalid argument for --keep: '7y'" },
			{ { "--record", "X", "--max-size", "2X", NULL }, 1,
			  "invalid argument for --max-size: '2X'" },
			{ { "--record", "X", "--interval", "0", NULL }, 1,
			  "invalid interval '0'" },
			{ { "--interval", "5", NULL }, 1,
			  "--interval is the recorder's" },
			{ { "--summary", NULL }, 1, "with --replay" },
			{ { "--replay", "/tmp", "--from", "25:00", NULL }, 1,
			  "invalid time for --from: '25:00'" },
			{ { "--replay", "/tmp", "--from", "10:00", "--to",
			    "09:00", NULL }, 1, "--to is before --from" },
			{ { "--replay", "/tmp", "5", NULL }, 1,
			  "its reports are the recording's intervals" },
			{ { "--replay", "/nonexistent/rec", NULL }, 5,
			  "/nonexistent/rec: No such file or directory" },
			{ { "--replay", "/tmp/tsa-prstat-norec", NULL }, 5,
			  "no recording there" },
			{ { "--record", "X", "--replay", "/tmp", NULL }, 1,
			  "choose one" },
		};
		char x[400];
		size_t i;

		/* X: a directory of this run's that no refused run may make. */
		snprintf(x, sizeof(x), "%s/refused-rec", tmp);
		mkdir("/tmp/tsa-prstat-norec", 0755);
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			const char *args[8];
			int a;

			for (a = 0; a < 8; a++)
				args[a] = bad[i].args[a] &&
					  !strcmp(bad[i].args[a], "X") ? x :
					  bad[i].args[a];
			rc = run("/nonexistent", args, &out, &err, 0);
			err[strcspn(err, "\n")] = '\0';
			ok(rc == bad[i].rc && strstr(err, bad[i].msg),
			   "%s %s %s: exit %d and '%s' (saw %d: %.100s)",
			   bad[i].args[0], bad[i].args[1] ? bad[i].args[1] : "",
			   bad[i].args[1] && bad[i].args[2] ? bad[i].args[2] : "",
			   bad[i].rc, bad[i].msg, rc, err);
			free(out);
			free(err);
		}
		rmdir("/tmp/tsa-prstat-norec");
		ok(access(x, F_OK) != 0, "nothing was created by the "
		   "refused --record runs (%s)", x);
	}

	/* -y: the system-call rows recorded too, replayed as shown live. */
	{
		char cdir[400], fa[500], fc[500], gcmd[700], *gen[6], *o2;
		const char *fifos[2];
		char count[8] = "3";
		int k, status;
		pid_t w;

		snprintf(cdir, sizeof(cdir), "%s", mkdir_in_tmp("reccalls"));
		snprintf(fa, sizeof(fa), "%s/all", cdir);
		snprintf(fc, sizeof(fc), "%s/calls", cdir);
		mkfifo(fa, 0600);
		mkfifo(fc, 0600);
		fifos[0] = fa;
		fifos[1] = fc;
		for (k = 0; k < 3; k++) {
			snprintf(gcmd, sizeof(gcmd), "STEP=%d CALLS=%s/calls.%d "
				 "sh %s/gen-all.sh 300 > %s/all.%d", k, tmp, k,
				 testdir, tmp, k);
			if (system(gcmd))
				printf("# %s failed\n", gcmd);
			snprintf(gcmd, sizeof(gcmd), "%s/all.%d", tmp, k);
			gen[2 * k] = slurp(gcmd);
			snprintf(gcmd, sizeof(gcmd), "%s/calls.%d", tmp, k);
			gen[2 * k + 1] = slurp(gcmd);
		}
		snprintf(rec, sizeof(rec), "%s/rec-calls", tmp);
		w = feed_fifos(fifos, 2, gen, 6);
		rc = run(cdir, (const char *[]){ "--record", rec, "--interval",
			 "0.01", count, NULL }, &out, &err, 0);
		waitpid(w, &status, 0);
		is_long(rc, 0, "--record with /proc/tsa/calls there: exit 0 "
			"(%s)", err);
		free(out);
		free(err);
		n = read_blocks(rec, b, 8);
		ok(n == 3, "3 blocks with the system-call rows (saw %d)", n);
		w = feed_fifos(fifos, 2, gen, 6);
		run(cdir, (const char *[]){ "-yL", "--json", "-c", "0.01", count,
		    NULL }, &o2, &err, 0);
		waitpid(w, &status, 0);
		free(err);
		rc = run(NULL, (const char *[]){ "--replay", rec, "-yL", "--json",
			 NULL }, &out, &err, 0);
		mask_ts(out);
		mask_ts(o2);
		is_str(out, o2, "--replay -yL --json: the system-call lines of "
		       "the live run, line for line (exit %d, %d lines)", rc,
		       count_lines(o2));
		free(out);
		free(err);
		free(o2);
		w = feed_fifos(fifos, 2, gen, 6);
		run(cdir, (const char *[]){ "-y", "-s", "calls", "-c", "0.01",
		    count, NULL }, &o2, &err, 0);
		waitpid(w, &status, 0);
		free(err);
		rc = run(NULL, (const char *[]){ "--replay", rec, "-y", "-s",
			 "calls", NULL }, &out, &err, 0);
		{
			/* The tables, less the replay's time lines and loads. */
			char *p, *q;

			for (p = out; (p = strstr(p, "Replay: ")) != NULL;) {
				q = strchr(p, '\n');
				memmove(p, q + 1, strlen(q + 1) + 1);
			}
			cut_loadavg(out);
			cut_loadavg(o2);
		}
		is_str(out, o2, "--replay -y -s calls: the live tables (exit %d)",
		       rc);
		free(out);
		free(err);
		free(o2);
		for (k = 0; k < 6; k++)
			free(gen[k]);
		unlink(fa);
		unlink(fc);
	}
	free(snaps[0]);
	free(snaps[1]);
	free(snaps[2]);
	unlink(path);
}

/*
 * The recorder's own errors come back to the program's top, which exits
 * with them: a directory another recorder holds, one that cannot be
 * made.
 */
static void test_record_errors(void)
{
	char *dir = mkdir_in_tmp("recerr"), rec[400], path[400], *out, *err;
	int fd, rc;

	snprintf(path, sizeof(path), "%s/all", dir);
	put_owned(path, snap_a());
	snprintf(rec, sizeof(rec), "%s/held", tmp);
	mkdir(rec, 0750);
	fd = open(rec, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		skip("flock %s: %s", rec, strerror(errno));
	} else {
		rc = run(dir, (const char *[]){ "--record", rec, "--interval",
			 "0.1", "1", NULL }, &out, &err, 0);
		ok(rc == 5 && strstr(err, "held: another tsa-prstat is "
				     "recording there"),
		   "--record into a directory another recorder holds: exit 5, "
		   "why (exit %d: %s)", rc, err);
		free(out);
		free(err);
	}
	if (fd >= 0)
		close(fd);
	snprintf(rec, sizeof(rec), "%s/all/rec", dir);
	rc = run(dir, (const char *[]){ "--record", rec, "--interval", "0.1",
		 "1", NULL }, &out, &err, 0);
	ok(rc == 5 && strstr(err, "all/rec: Not a directory"),
	   "--record into a directory that cannot be made: exit 5, why "
	   "(exit %d: %s)", rc, err);
	free(out);
	free(err);
}

/*
 * Block b (0..3) of three threads that sleep inside calls, at 10 + b s:
 * 21 sleeps in read, its call the longest it made (max grows with it);
 * 22 waits in futex behind a longer one (max stays); 23 sleeps in
 * poll until its call returns after block 1 (then it only ages).
 */
static void calls_aging(int b, char **all, char **calls)
{
	struct rx r[3];
	uint64_t now = MS(10000 + 1000 * b), d = MS(1000 * b);
	size_t len;
	FILE *f;
	int k;

	memset(r, 0, sizeof(r));
	for (k = 0; k < 3; k++) {
		r[k].tid = 21 + k;
		r[k].pid = 21;
		r[k].elapsed = MS(5000) + d;
		r[k].state = k == 2 && b > 1 ? S_USR : S_IDL;
		r[k].state_ns = MS(2000) + d;
		r[k].ns[S_USR] = MS(3000);
		r[k].ns[S_IDL] = MS(2000) + d;
		r[k].n[S_IDL] = 1;
		r[k].max[S_IDL] = MS(2000) + d;
		r[k].comm = "sleeper";
	}
	r[2].state_ns = b > 1 ? MS(1000) * (b - 1) : r[2].state_ns;
	*all = rsnapshot(now, r, 3);
	f = open_memstream(calls, &len);
	fprintf(f, "tsa-calls 1\nnow %llu\nrows 8 0\nstates SYS TRP TFL DFL "
		"KFL APG LCK KLK IOW IDL SLP LAT STP\nfields tid pid uid flags "
		"elapsed at kind name calls ns max sys_ns trp_ns tfl_ns dfl_ns "
		"kfl_ns apg_ns lck_ns klk_ns iow_ns idl_ns slp_ns lat_ns "
		"stp_ns\n", (unsigned long long)now);
	for (k = 0; k < 3; k++) {
		uint64_t grow = k == 2 ? (b > 1 ? MS(1000) : d) : d;
		uint64_t mx = k == 0 ? MS(2000) + d : MS(9000);

		fprintf(f, "%d 21 0 0 %llu %llu syscall %s 4 %llu %llu 1000 0 0 "
			"0 0 0 0 0 0 %llu 0 0 0\n", 21 + k,
			(unsigned long long)(MS(5000) + d),
			(unsigned long long)now, k == 0 ? "read" : k == 1 ?
			"futex" : "poll",
			(unsigned long long)(MS(2000) + 1000 + grow),
			(unsigned long long)(k == 2 ? MS(9000) : mx),
			(unsigned long long)(MS(2000) + grow));
		fprintf(f, "%d 21 0 0 %llu %llu syscall other 9 5000 900 5000 0 "
			"0 0 0 0 0 0 0 0 0 0 0\n", 21 + k,
			(unsigned long long)(MS(5000) + d),
			(unsigned long long)now);
	}
	fclose(f);
}

static void test_record_calls_aging(void)
{
	char cdir[400], fa[500], fc[500], rec[500], *gen[8], *out, *err, *live;
	const char *fifos[2];
	struct blockinfo b[8];
	int k, rc, status, n;
	pid_t w;

	snprintf(cdir, sizeof(cdir), "%s", mkdir_in_tmp("recaging"));
	snprintf(fa, sizeof(fa), "%s/all", cdir);
	snprintf(fc, sizeof(fc), "%s/calls", cdir);
	if (mkfifo(fa, 0600) || mkfifo(fc, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	fifos[0] = fa;
	fifos[1] = fc;
	for (k = 0; k < 4; k++)
		calls_aging(k, &gen[2 * k], &gen[2 * k + 1]);
	snprintf(rec, sizeof(rec), "%s/rec-aging", tmp);
	w = feed_fifos(fifos, 2, gen, 8);
	rc = run(cdir, (const char *[]){ "--record", rec, "--interval", "0.01",
		 "4", NULL }, &out, &err, 0);
	waitpid(w, &status, 0);
	is_long(rc, 0, "--record of calls that age: exit 0 (%s)", err);
	free(out);
	free(err);
	n = read_blocks(rec, b, 8);
	ok(n == 4, "4 blocks (saw %d)", n);
	{
		char text[700] = "";
		int i;

		for (i = 0; i < n; i++) {
			size_t l = strlen(text);

			snprintf(text + l, sizeof(text) - l, "%s\n",
				 b[i].calls[0] ? b[i].calls : "-");
		}
		/* The lines: what each block says of the system-call rows. */
		is_str(text, "cr cr cr cr cr cr\nc+:21 c+:22 c+:23\nc.:23\n-\n",
		       "calls that age: a key block of 6 rows; then each "
		       "sleeping call said once to age (c+), then nothing while "
		       "it goes on, c. when 23's call returned, nothing in the "
		       "last block");
	}

	w = feed_fifos(fifos, 2, gen, 8);
	run(cdir, (const char *[]){ "-yL", "--json", "-c", "0.01", "4", NULL },
	    &live, &err, 0);
	waitpid(w, &status, 0);
	free(err);
	rc = run(NULL, (const char *[]){ "--replay", rec, "-yL", "--json",
		 NULL }, &out, &err, 0);
	mask_ts(out);
	mask_ts(live);
	is_str(out, live, "--replay -yL --json of calls that age: the live "
	       "run's lines (exit %d, %d lines)", rc, count_lines(live));
	free(out);
	free(err);
	free(live);
	for (k = 0; k < 8; k++)
		free(gen[k]);
	unlink(fa);
	unlink(fc);
}

/* ---- the keys of the redraw mode, under tmux ------------------------------ */

static char *tmux_capture(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	FILE *p = popen("tmux -L tsa-prstat-test capture-pane -p -t keys "
			"2>/dev/null", "r");
	int c;

	while (p && (c = fgetc(p)) != EOF)
		fputc(c, m);
	if (p)
		pclose(p);
	fclose(m);
	return buf;
}

/*
 * Wait up to 30 s for the pane to show @want (and, if set, not @not):
 * 10 s was passed on a host at load 8 to 12 (other work beside make
 * check's lanes), the screen right a moment later.
 */
static char *tmux_wait(const char *want, const char *not)
{
	struct timespec ms = { 0, 50000000 };
	char *s = NULL;
	int i;

	for (i = 0; i < 600; i++) {
		free(s);
		s = tmux_capture();
		/* A whole screen: a report ends with its status line. */
		if (strstr(s, want) && (!not || !strstr(s, not)) &&
		    (strstr(s, "h: keys") || strstr(s, "Any key goes back.") ||
		     strstr(s, "b: back | q: quit") || strstr(s, "$ ")))
			return s;
		nanosleep(&ms, NULL);
	}
	return s;
}

static void tmux_keys(const char *keys)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "tmux -L tsa-prstat-test send-keys -t keys "
		 "%s", keys);
	if (system(cmd))
		printf("# %s failed\n", cmd);
}

/* The state letter of process @pid (ps's first), or '?'. */
static char proc_state(const char *pid)
{
	char cmd[100], st[16] = "?";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ps -o stat= -p %s", pid);
	p = popen(cmd, "r");
	if (p) {
		if (!fgets(st, sizeof(st), p))
			st[0] = '?';
		pclose(p);
	}
	return st[0];
}

static void test_keys(void)
{
	char *dir, path[400], cmd[1200], *s, bin[300];
	int k;

	if (system("command -v tmux >/dev/null 2>&1")) {
		skip("keys: tmux not found");
		return;
	}
	dir = mkdir_in_tmp("keys");
	snprintf(path, sizeof(path), "%s/all", dir);
	s = snap_a();
	put(path, s);
	free(s);
	if (!realpath(prstat_bin, bin))
		snprintf(bin, sizeof(bin), "%s", prstat_bin);
	system("tmux -L tsa-prstat-test kill-server 2>/dev/null");
	/* An interactive shell, for job control (^Z, fg). */
	if (system("tmux -L tsa-prstat-test -f /dev/null new-session -d -s "
		   "keys -x 100 -y 24 'PS1=\"$ \" bash --norc --noprofile -i'")) {
		skip("keys: tmux new-session failed");
		return;
	}
	/* A subshell: ^Z stops the whole job, fg goes on with all of it. */
	snprintf(cmd, sizeof(cmd), "tmux -L tsa-prstat-test send-keys -t keys "
		 "\"(TSA_PROC_DIR=%s TSA_PROCFS=/nonexistent %s -m 0.2; echo "
		 "EXITED \\$?; stty -a | grep -o -- ' -*icanon\\| -*echo ' | "
		 "tr -d ' ' | tr '\\n' ' '; echo)\" Enter", dir, bin);
	if (system(cmd)) {
		skip("keys: tmux send-keys failed");
		return;
	}
	/*
	 * Each step: keys sent, the screen waited for (and, if set, a text
	 * it must no longer have), then what it must show and must not.
	 */
	{
		static const struct {
			const char *keys, *wait, *gone, *has[3], *hasnt[3];
			int count;	/* times has[0] must appear; 0: any */
			const char *what;
		} step[] = {
			{ NULL, "Total: 3 processes", NULL,
			  { "PROCESS/NLWP", "sort cpu | h: keys" }, { NULL }, 0,
			  "the redraw mode shows processes, and a status line "
			  "on the cursor's row" },
			{ "L", "PROCESS/LWPID", NULL,
			  { "PROCESS/LWPID", "sleeper/301" }, { NULL }, 0,
			  "L shows a line per thread" },
			{ "A", "EXEC  RUN", NULL, { "EXEC  RUN", "sort cpu" },
			  { NULL }, 0, "A switches to the TSA view (the sort key "
			  "cpu is one of its keys too)" },
			{ "s", "sort time", NULL, { "sort time |" }, { NULL }, 0,
			  "s takes the next sort key" },
			{ "r", "sort time ascending", NULL,
			  { "sort time ascending" }, { NULL }, 0,
			  "r reverses the order" },
			{ "m", "USR SYS TRP", NULL,
			  { "USR SYS TRP", "PROCESS/LWPID" }, { NULL }, 0,
			  "m goes back to the Solaris view, still per thread" },
			{ "/ sleeper Enter", "name has 'sleeper'", "spin/200",
			  { "sleeper/30" }, { "db server", "spin/200" }, 2,
			  "/ sleeper keeps the lines whose name has it" },
			{ "/ Enter p 200 Enter", "pid 200", "sleeper",
			  { "spin/200" }, { "sleeper", "name has" }, 0,
			  "/ with nothing shows every name again; p 200 one "
			  "process" },
			{ "p Enter g", "by cgroup", NULL,
			  { "CGROUP", "by cgroup" }, { "LWPID" }, 0,
			  "p with nothing shows every process; g groups by "
			  "cgroup (threads off)" },
			{ "g g g", "by pid", NULL, { "PROCESS/NLWP", "by pid" },
			  { NULL }, 0, "g in turn: user, thread name, then "
			  "processes again" },
			{ "Space", "paused", NULL, { "| paused" }, { NULL }, 0,
			  "space pauses" },
			{ "Space h", "tsa-prstat keys", NULL,
			  { "tsa-prstat keys", "Any key goes back." }, { NULL },
			  0, "h shows the keys" },
			{ "x", "Total: 3 processes", NULL,
			  { "Total: 3 processes" }, { "paused" }, 0,
			  "any key goes back to the report (space went on)" },
		};
		size_t i;
		int k, good;

		for (i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
			if (step[i].keys)
				tmux_keys(step[i].keys);
			s = tmux_wait(step[i].wait, step[i].gone);
			good = 1;
			for (k = 0; k < 3; k++) {
				if (step[i].has[k] && !strstr(s, step[i].has[k]))
					good = 0;
				if (step[i].hasnt[k] &&
				    strstr(s, step[i].hasnt[k]))
					good = 0;
			}
			if (step[i].count &&
			    count_str(s, step[i].has[0]) != step[i].count)
				good = 0;
			ok(good, "keys: %s", step[i].what);
			if (!good) {
				/* What the pane showed instead. */
				char *l = s, *e;

				printf("# expected '%s' on the screen after "
				       "keys '%s'; saw:\n", step[i].wait,
				       step[i].keys ? step[i].keys : "");
				for (; l && *l; l = e ? e + 1 : NULL) {
					e = strchr(l, '\n');
					printf("#   %.*s\n",
					       e ? (int)(e - l) : (int)strlen(l), l);
				}
			}
			free(s);
		}
	}
	/* ^Z: stopped with the terminal as it was; fg: its keys again. */
	{
		char tty[100] = "", st[32] = "", mode[64] = "", pid[16] = "";
		FILE *p = popen("tmux -L tsa-prstat-test display -p -t keys "
				"'#{pane_tty}'", "r");

		if (p) {
			if (!fgets(tty, sizeof(tty), p))
				tty[0] = '\0';
			pclose(p);
		}
		tty[strcspn(tty, "\n")] = '\0';
		/*
		 * This run's own tsa-prstat (its path): another run's (the
		 * san suite's beside it, another worktree's) has the same
		 * arguments.
		 */
		snprintf(cmd, sizeof(cmd), "pgrep -f '^%s -m 0.2' | head -n 1",
			 bin);
		p = popen(cmd, "r");
		if (p) {
			if (!fgets(pid, sizeof(pid), p))
				pid[0] = '\0';
			pclose(p);
		}
		pid[strcspn(pid, "\n")] = '\0';
		tmux_keys("C-z");
		s = tmux_wait("Stopped", NULL);
		free(s);
		snprintf(cmd, sizeof(cmd), "ps -o stat= -p %s; stty -a <%s | "
			 "grep -o -- ' -*icanon'", pid, tty);
		p = popen(cmd, "r");
		if (p) {
			if (!fgets(st, sizeof(st), p) || !fgets(mode, sizeof(mode), p))
				mode[0] = '\0';
			pclose(p);
		}
		/* (The shell then sets the terminal its own way.) */
		ok(pid[0] && st[0] == 'T', "keys: ^Z stops it (state %.2s): "
		   "no loop of its stop handler", st);
		tmux_keys("fg Enter");
		/* The shell took fg; then drawn again, its fg cleared away. */
		s = tmux_wait("$ fg", NULL);
		free(s);
		s = tmux_wait("Total: 3 processes", "$ fg");
		snprintf(cmd, sizeof(cmd), "stty -a <%s | grep -o -- ' -*icanon'",
			 tty);
		p = popen(cmd, "r");
		mode[0] = '\0';
		if (p) {
			if (!fgets(mode, sizeof(mode), p))
				mode[0] = '\0';
			pclose(p);
		}
		ok(strstr(mode, " -icanon") && strstr(s, "Total: 3 processes"),
		   "keys: fg: its keys again ('%.9s'), the report drawn", mode);
		free(s);
		/*
		 * A ^Z's race made certain: the shell takes the terminal
		 * back once the subshell it waits for has stopped, and only
		 * then does tsa-prstat's stop handler run, in the background.
		 * fg must find it stopped once, not again behind its back.
		 */
		snprintf(cmd, sizeof(cmd), "kill -STOP $(ps -o ppid= -p %s)",
			 pid);
		if (system(cmd))
			printf("# %s failed\n", cmd);
		s = tmux_wait("Stopped", NULL);
		free(s);
		snprintf(cmd, sizeof(cmd), "kill -TSTP %s", pid);
		if (system(cmd))
			printf("# %s failed\n", cmd);
		for (k = 0; k < 300 && proc_state(pid) != 'T'; k++) {
			struct timespec ms = { 0, 50000000 };

			nanosleep(&ms, NULL);
		}
		tmux_keys("fg Enter");
		s = tmux_wait("$ fg", NULL);
		free(s);
		s = tmux_wait("Total: 3 processes", "$ fg");
		ok(strstr(s, "Total: 3 processes") && !strstr(s, "$ fg") &&
		   proc_state(pid) != 'T',
		   "keys: stopped from the background (the shell had taken "
		   "the terminal back first), fg draws it again (state %c)",
		   proc_state(pid));
		free(s);
	}
	system("tmux -L tsa-prstat-test resize-window -t keys -y 5 "
	       "2>/dev/null");
	/* tmux keeps the old screen's last rows until the report is drawn. */
	s = tmux_wait("Total:", NULL);
	for (k = 0; k < 300 && !strstr(s, "PROCESS/NLWP"); k++) {
		struct timespec ms = { 0, 50000000 };

		nanosleep(&ms, NULL);
		free(s);
		s = tmux_capture();
	}
	{
		int rows = 0;
		char *p;

		for (p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 :
		     NULL)
			rows += *p != '\n';
		if (!ok(strstr(s, "Total:") && rows == 5 &&
			count_str(s, "PROCESS/NLWP") == 1,
			"keys: a resize to 5 rows draws the report again: "
			"header, 2 lines, Total, status (saw %d rows)", rows))
			tap_diag("seen", s ? s : "");
	}
	free(s);
	system("tmux -L tsa-prstat-test resize-window -t keys -y 24 "
	       "2>/dev/null");
	tmux_keys("q");
	s = tmux_wait("icanon", NULL);
	ok(strstr(s, "EXITED 0") && strstr(s, "icanon echo"),
	   "keys: q quits with exit 0, the terminal as it was (icanon, "
	   "echo)");
	free(s);
	system("tmux -L tsa-prstat-test kill-server 2>/dev/null");
}

/*
 * @dir/all: /proc/tsa/all with @rows ("tid pid uid flags elapsed comm"
 * lines), where -H and -w find the names of the threads they show.
 */
static void put_all(const char *dir, const char *rows)
{
	char path[400], *text;
	size_t n = strlen(rows) + 200;

	text = xmalloc(n);
	snprintf(text, n, "tsa-all 1\nnow 5000000000\nfields tid pid uid "
		 "flags elapsed comm\n%s", rows);
	snprintf(path, sizeof(path), "%s/all", dir);
	put(path, text);
	free(text);
}

/*
 * -w: the wakers view from a /proc/tsa/wakers fixture, lifetime (one
 * report): process 100's waiter 101, its LCK ended by two holders 3:1
 * of the time, then other and none; the timer's SLP of thread 100.
 */
static void test_wakers_binary(void)
{
	char *out, *err, path[400], *dir;
	int rc;

	dir = mkdir_in_tmp("wakers");
	/* No module at all (no /proc/tsa/all): said so, no parameter blamed. */
	rc = run(dir, (const char *[]){ "-w", "1", "1", NULL }, &out, &err, 0);
	ok(rc == 2 && strstr(err, "/all: not found; is the tsa module loaded?") &&
	   !strstr(err, "wakers=0"),
	   "-w with no module: exit 2, the module not loaded, not wakers=0 "
	   "(expected 2, '.../all: not found; is the tsa module loaded?'; "
	   "saw %d, '%.200s')", rc, err);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--chain", "1", NULL }, &out, &err, 0);
	ok(rc == 2 && strstr(err, "/all: not found; is the tsa module loaded?") &&
	   !strstr(err, "wakers=0"),
	   "--chain 1 with no module: exit 2, the module not loaded, not "
	   "wakers=0 (saw %d, '%.200s')", rc, err);
	free(out);
	free(err);
	/* Process 100's name, its threads' none: its exited threads' line. */
	put_all(dir, "0 100 0 4 0 server\n");
	rc = run(dir, (const char *[]){ "-w", "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 2, "-w without /proc/tsa/wakers: exit 2");
	ok(strstr(err, "must be loaded without wakers=0 for -w") != NULL,
	   "-w without /proc/tsa/wakers: says to load tsa without wakers=0");
	free(out);
	free(err);
	snprintf(path, sizeof(path), "%s/wakers", dir);
	put(path,
	    "tsa-wakers 1\nnow 5000000000\nrows 2\n"
	    "fields tid pid uid flags elapsed at state wakeups ns max lat_ns kind waker_tid name\n"
	    "101 100 0 0 4000000000 5000000000 LCK 4 360000000 90000000 400000 thread 102 holder-a\n"
	    "101 100 0 0 4000000000 5000000000 LCK 4 120000000 30000000 200000 thread 103 holder b\n"
	    "101 100 0 0 4000000000 5000000000 - 2 20000000 15000000 0 other 0 -\n"
	    "101 100 0 0 4000000000 5000000000 - 0 500000000 0 0 none 0 -\n"
	    "100 100 0 0 4000000000 5000000000 SLP 10 1000000000 100000000 50000 timer 0 -\n"
	    "100 100 0 0 4000000000 5000000000 - 0 0 0 0 none 0 -\n");
	snprintf(path, sizeof(path), "%s/100", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/100/comm", dir);
	put(path, "server\n");
	setenv("TSA_PROCFS", dir, 1);
	rc = run(dir, (const char *[]){ "-w", "-L", "1", "1", NULL }, &out,
		 &err, 0);
	is_long(rc, 0, "-w -L: exit 0");
	/* 101: off 1 s: 36 %, 12 %, 2 %, 50 %; 100's timer 100 %. */
	is_str(out,
	       "   PID LWPID STATE WAKEUPS  OFF%    TIME     AVG      MAX   LAT/WK WAKER                  PROCESS/LWPID\n"
	       "   100   100 SLP        10 100.0   1.00s   100ms    100ms   5.00us timer                  -/100\n"
	       "   100   101 LCK         4  36.0   360ms  90.0ms   90.0ms    100us holder-a/102           -/101\n"
	       "   100   101 LCK         4  12.0   120ms  30.0ms   30.0ms   50.0us holder b/103           \n"
	       "   100   101 -           2   2.0  20.0ms  10.0ms        -      0ns other                  \n"
	       "   100   101 -           -  50.0   500ms       -        -        - none                   \n"
	       "Total: 2 threads with stays asleep or stopped, since each began\n",
	       "-w -L: each thread's wakers, the most woken thread first, a name with a space whole");
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-w", "--json", "1", "1", NULL }, &out,
		 &err, 0);
	ok(rc == 0 && strstr(out, "\"pid\":100,\"comm\":\"server\",\"off_ns\":2000000000,\"wakers\":[{\"kind\":\"timer\",\"state\":\"SLP\",\"wakeups\":10,\"ns\":1000000000,") &&
	   strstr(out, "{\"kind\":\"thread\",\"state\":\"LCK\",\"waker_tid\":102,\"waker_comm\":\"holder-a\",\"wakeups\":4,\"ns\":360000000,\"max_ns\":90000000,\"lat_ns\":400000}"),
	   "-w --json: a process's wakers folded, as objects (saw %s)", out);
	free(out);
	free(err);
	/* --group comm: the holders fold into one waker group. */
	snprintf(path, sizeof(path), "%s/wakers", dir);
	put(path,
	    "tsa-wakers 1\nnow 5000000000\nrows 2\n"
	    "fields tid pid uid flags elapsed at state wakeups ns max lat_ns kind waker_tid name\n"
	    "101 100 0 0 4000000000 5000000000 LCK 4 360000000 90000000 400000 thread 102 holder-7\n"
	    "101 100 0 0 4000000000 5000000000 LCK 4 120000000 30000000 200000 thread 103 holder-8\n"
	    "101 100 0 0 4000000000 5000000000 - 0 520000000 0 0 none 0 -\n");
	snprintf(path, sizeof(path), "%s/100/task", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/100/task/101", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/100/task/101/comm", dir);
	put(path, "worker-3\n");
	put_all(dir, "101 100 0 0 4000000000 worker-3\n0 100 0 4 0 server\n");
	rc = run(dir, (const char *[]){ "-w", "--group", "comm", "1", "1",
		 NULL }, &out, &err, 0);
	is_str(out,
	       "STATE WAKEUPS  OFF%    TIME     AVG      MAX   LAT/WK WAKER                  THREADNAME\n"
	       "LCK         8  48.0   480ms  60.0ms   90.0ms   75.0us holder-{N}             worker-{N}\n"
	       "-           -  52.0   520ms       -        -        - none                   \n"
	       "Total: 1 groups with stays asleep or stopped, since each began\n",
	       "-w --group comm: wakers and woken folded by name (exit %d)", rc);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-w", "-H", NULL }, &out, &err, 0);
	ok(rc == 1 && strstr(err, "views of their own"),
	   "-w with -H: refused, a view of its own");
	free(out);
	free(err);
	unsetenv("TSA_PROCFS");
}

/* --chain: C woken by B, B by A, A by its timer; and a cycle ends it. */
static void test_chain_binary(void)
{
	char *out, *err, path[400], *dir;
	int rc;

	dir = mkdir_in_tmp("chain");
	snprintf(path, sizeof(path), "%s/wakers", dir);
	put(path,
	    "tsa-wakers 1\nnow 5000000000\nrows 2\n"
	    "fields tid pid uid flags elapsed at state wakeups ns max lat_ns kind waker_tid name\n"
	    "103 100 0 0 4000000000 5000000000 IDL 40 200000000 9000000 400000 thread 102 b\n"
	    "103 100 0 0 4000000000 5000000000 - 0 500000 0 0 none 0 -\n"
	    "102 100 0 0 4000000000 5000000000 IDL 40 190000000 9000000 200000 thread 101 a\n"
	    "101 100 0 0 4000000000 5000000000 SLP 40 210000000 6000000 100000 timer 0 -\n"
	    "201 200 0 0 4000000000 5000000000 LCK 2 20000000 6000000 0 thread 202 y\n"
	    "202 200 0 0 4000000000 5000000000 LCK 2 30000000 6000000 0 thread 201 x\n");
	put_all(dir, "");	/* the module's; no thread named */
	setenv("TSA_PROCFS", dir, 1);
	rc = run(dir, (const char *[]){ "--chain", "103", "1", "1", NULL },
		 &out, &err, 0);
	is_str(out,
	       " LWPID     PID STATE WAKEUPS  OFF%    TIME   LAT/WK  THREAD <- WAKER\n"
	       "   103     100 IDL        40  99.8   200ms   10.0us  -/103 <- b/102\n"
	       "   102     100 IDL        40 100.0   190ms   5.00us    -/102 <- a/101\n"
	       "   101     100 SLP        40 100.0   210ms   2.50us      -/101 <- timer\n"
	       "Chain: 3 steps, since each began\n",
	       "--chain 103: its waker, its waker's, to a timer (exit %d)", rc);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--chain", "201", "-n", "5", "1", "1",
		 NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, "Chain: 2 steps"),
	   "--chain: a cycle (201 <- 202 <- 201) ends it (saw %s)", out);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--chain", "0", NULL }, &out, &err, 0);
	ok(rc == 1 && strstr(err, "invalid thread id"),
	   "--chain 0: refused (exit %d)", rc);
	free(out);
	free(err);
	/* No such thread: as -p with no such process, exit 4. */
	rc = run(dir, (const char *[]){ "--chain", "999", NULL }, &out, &err, 0);
	ok(rc == 4 && !strcmp(err, "tsa-prstat: no such thread: 999\n") && !*out,
	   "--chain 999 (no such thread): exit 4, 'tsa-prstat: no such "
	   "thread: 999' (saw %d, '%s', %zu bytes out)", rc, err, strlen(out));
	free(out);
	free(err);
	/* No interval: one chain, and done (it used to repeat every 5 s). */
	{
		struct timespec t0, t1;
		double secs;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = run(dir, (const char *[]){ "--chain", "103", NULL }, &out,
			 &err, 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		secs = (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		ok(rc == 0 && count_str(out, "Chain: ") == 1 && secs < 2,
		   "--chain 103 without an interval: one chain, exit 0 at once "
		   "(expected 0, 1 chain, < 2 s; saw %d, %d, %.1f s)", rc,
		   count_str(out, "Chain: "), secs);
		free(out);
		free(err);
	}
	unsetenv("TSA_PROCFS");
}

static void test_hist_binary(void)
{
	char *out, *err, path[400], *dir, a[4096], b[4096];
	int rc;

	dir = mkdir_in_tmp("hist");
	rc = run(dir, (const char *[]){ "-H", "1", "1", NULL }, &out, &err, 0);
	ok(rc == 2 && strstr(err, "/all: not found; is the tsa module loaded?") &&
	   !strstr(err, "hist=0"),
	   "-H with no module: exit 2, the module not loaded, not hist=0 "
	   "(saw %d, '%.200s')", rc, err);
	free(out);
	free(err);
	put_all(dir, "0 100 0 4 0 server\n");
	rc = run(dir, (const char *[]){ "-H", "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 2, "-H without /proc/tsa/hist: exit 2");
	ok(strstr(err, "must be loaded without hist=0 for -H") != NULL,
	   "-H without /proc/tsa/hist: says to load tsa without hist=0");
	free(out);
	free(err);
	hist_snaps(a, b, sizeof(a));
	snprintf(path, sizeof(path), "%s/hist", dir);
	put(path, b);
	snprintf(path, sizeof(path), "%s/100", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/100/comm", dir);
	put(path, "server\n");
	setenv("TSA_PROCFS", dir, 1);
	rc = run(dir, (const char *[]){ "-H", "1", "1", NULL }, &out, &err, 0);
	is_long(rc, 0, "-H: exit 0");
	/*
	 * Lifetime: LCK 6 stays (b13 2, b14 4): the 3rd is in b14, whose
	 * edge (16.8 ms) is above the longest, 12 ms; LAT 24 (b0 1, b1 3,
	 * b10 16, b12 4): the 12th in b10 (1.05 ms), the 22nd in b12.
	 */
	is_str(out,
	       "   PID       STATE   COUNT    TIME     P50     P90     P99      MAX OPEN PROCESS\n"
	       "   100       LCK         6  30.0ms  12.0ms  12.0ms  12.0ms   12.0ms    0 server\n"
	       "   100       LAT        24  9.00ms  1.04ms  3.00ms  3.00ms   3.00ms    0 server\n"
	       "Total: 1 processes with stays off CPU, since each began\n",
	       "-H: the process's states, lifetime, by time waited");
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "--json", "-L", "-p", "100", "1",
		 "1", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, "\"tid\":101,\"comm\":null,\"first\":true,"
			     "\"buckets_exp\":10,\"buckets_unit\":\"ns\","
			     "\"hists\":[{\"state\":\"LCK\",\"count\":6,\"ns\":30000000,"
			     "\"p50_ns\":12000000,\"p90_ns\":12000000,\"p99_ns\":12000000,"
			     "\"max_ns\":12000000,\"max_exact\":true,\"open\":0,"
			     "\"buckets\":[0,0,0,0,0,0,0,0,0,0,0,0,0,2,4,"),
	   "-H --json -L: a thread's states as objects with count and percentiles");
	free(out);
	free(err);
	/*
	 * The export, with /proc/tsa/all for the same threads: process
	 * 100's LAT is thread 100's 20 stays (b10 16, b12 4), 102's one
	 * (b0) and the exited threads' 3 (b1): 24, cumulative by bucket;
	 * its sum the time of the ended stays, 9 ms + 100 ns + 3 us.
	 */
	{
		struct fx r[] = {
			{ 100, 100, 0, 0, MS(6000), S_USR, { [S_USR] = MS(6000) },
			  0, 0, 0, 0, "server" },
			{ 101, 100, 0, 0, MS(5000), S_LCK, { [S_LCK] = MS(5000) },
			  0, 0, 0, 0, "server" },
			{ 102, 100, 0, 0, MS(500), S_USR, { [S_USR] = MS(500) },
			  0, 0, 0, 0, "server" },
			{ 0, 100, 0, 4, MS(7000), 0, { [S_LAT] = MS(7000) },
			  0, 0, 0, 0, "server" },
		};
		char *all = snapshot(11000000000ULL, r, 4);
		const char *want[] = {
			"# TYPE tsa_process_stay_seconds histogram\n",
			"tsa_process_stay_seconds_bucket{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\",le=\"0.000001024\"} 1\n",
			"tsa_process_stay_seconds_bucket{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\",le=\"0.000002048\"} 4\n",
			"tsa_process_stay_seconds_bucket{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\",le=\"0.001048576\"} 20\n",
			"tsa_process_stay_seconds_bucket{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\",le=\"0.004194304\"} 24\n",
			"tsa_process_stay_seconds_bucket{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\",le=\"+Inf\"} 24\n",
			"tsa_process_stay_seconds_sum{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\"} 0.009003100\n",
			"tsa_process_stay_seconds_count{pid=\"100\",comm=\"server\",user=\"root\",state=\"LAT\"} 24\n",
			"tsa_process_stay_seconds_count{pid=\"100\",comm=\"server\",user=\"root\",state=\"LCK\"} 6\n",
			"tsa_process_stay_seconds_sum{pid=\"100\",comm=\"server\",user=\"root\",state=\"LCK\"} 0.030000000\n",
		};
		size_t k, missing = 0;
		char first[300] = "";

		snprintf(path, sizeof(path), "%s/all", dir);
		put(path, all);
		free(all);
		rc = run(dir, (const char *[]){ "--prometheus", NULL }, &out,
			 &err, 0);
		for (k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			if (!strstr(out, want[k]) && !missing++)
				snprintf(first, sizeof(first), "%s", want[k]);
		ok(rc == 0 && !missing && !strstr(out, "state=\"USR\",le="),
		   "--prometheus with hist=1: a cumulative histogram per process "
		   "and state with stays, its sum the ended stays' time "
		   "(%zu lines missing, the first: %s; %s)", missing, first, err);
		if (!system("command -v promtool >/dev/null 2>&1")) {
			char cmd[600];
			FILE *pf;

			snprintf(cmd, sizeof(cmd), "%s/hist.prom", tmp);
			pf = fopen(cmd, "w");
			fputs(out, pf);
			fclose(pf);
			snprintf(cmd, sizeof(cmd), "promtool check metrics "
				 "<%s/hist.prom >/dev/null 2>&1", tmp);
			ok(!system(cmd), "--prometheus with hist=1: promtool "
			   "check metrics accepts it");
		}
		free(out);
		free(err);
		rc = run(dir, (const char *[]){ "--openmetrics", "--group",
			 "comm", NULL }, &out, &err, 0);
		ok(rc == 0 && strstr(out, "# UNIT tsa_threadname_stay_seconds seconds\n") &&
		   strstr(out, "tsa_threadname_stay_seconds_count{comm=\"server\",state=\"LAT\"} 24\n") &&
		   strstr(out, "# EOF\n"),
		   "--openmetrics --group comm with hist=1: the thread name's "
		   "histogram, exited threads under the process's name");
		free(out);
		free(err);
	}
	rc = run(dir, (const char *[]){ "-H", "-y", NULL }, &out, &err, 0);
	is_long(rc, 1, "-H with -y: exit 1");
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "-L", "--group", "user", NULL },
		 &out, &err, 0);
	is_long(rc, 1, "-H --group with -L: exit 1");
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--draw", "1", "1", NULL }, &out, &err,
		 0);
	ok(rc == 1 && strstr(err, "only with -H"), "--draw without -H: exit 1 (%s)",
	   err);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "--draw", "--json", NULL }, &out,
		 &err, 0);
	is_long(rc, 1, "-H --draw with --json: exit 1");
	free(out);
	free(err);
	/*
	 * --draw: process 100's lifetime; LCK has 2 stays in b13 and 4 in
	 * b14, so the fuller bucket's bar is 40 stars and the other's 20.
	 */
	rc = run(dir, (const char *[]){ "-H", "--draw", "-n", "1", "1", "1",
		 NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out,
	   "server LCK: 6 stays ended, 30.0ms; p50 12.0ms p99 12.0ms max 12.0ms\n"
	   "             range : count      distribution\n"
	   "  4.19ms -> 8.38ms : 2          |********************                    |\n"
	   "  8.38ms -> 16.7ms : 4          |****************************************|\n"
	   "\nserver LAT: 24 stays ended, 9.00ms; p50 1.04ms p99 3.00ms max 3.00ms\n"
	   "             range : count      distribution\n"
	   "       0 -> 1.02us : 1          |***                                     |\n"
	   "  1.02us -> 2.04us : 3          |********                                |\n"
	   "  2.04us -> 4.09us : 0          |                                        |\n"),
	   "-H --draw: each state's buckets as runqlat draws them, from the "
	   "first stay's bucket to the last's (%s)", out);
	ok(strstr(out, "  2.09ms -> 4.19ms : 4          |**********                              |\n"
		  "\nTotal: 1 processes with stays off CPU, since each began\n") != NULL,
	   "-H --draw: the last bucket with a stay ends it, then the total");
	free(out);
	free(err);
	unsetenv("TSA_PROCFS");
}

/*
 * --save carries /proc/tsa/hist (a version 2 capture) and --compare -H
 * shows the stays that ended between two captures: hist_snaps' interval.
 */
static void test_hist_capture(void)
{
	static char a[4096], b[4096];
	struct fx ra[] = {
		{ 100, 100, 0, 0, MS(5000), S_USR, { [S_USR] = MS(5000) },
		  0, 0, 0, 0, "server" },
		{ 101, 100, 0, 0, MS(4000), S_LCK, { [S_LCK] = MS(4000) },
		  0, 0, 0, 0, "server" },
	};
	struct fx rb[] = {
		{ 100, 100, 0, 0, MS(6000), S_USR, { [S_USR] = MS(6000) },
		  0, 0, 0, 0, "server" },
		{ 101, 100, 0, 0, MS(5000), S_LCK, { [S_LCK] = MS(5000) },
		  0, 0, 0, 0, "server" },
		{ 102, 100, 0, 0, MS(500), S_USR, { [S_USR] = MS(500) },
		  0, 0, 0, 0, "server" },
	};
	char *out, *err, path[400], ca[400], cb[400], c1[400], msg[256];
	char *dir, *all;
	struct capture c;
	FILE *f;
	int rc;

	dir = mkdir_in_tmp("histcap");
	hist_snaps(a, b, sizeof(a));
	snprintf(ca, sizeof(ca), "%s/a.cap", tmp);
	snprintf(cb, sizeof(cb), "%s/b.cap", tmp);
	snprintf(c1, sizeof(c1), "%s/v1.cap", tmp);
	all = snapshot(10000000000ULL, ra, 2);
	snprintf(path, sizeof(path), "%s/all", dir);
	put(path, all);
	free(all);
	rc = run(dir, (const char *[]){ "--save", c1, NULL }, &out, &err, 0);
	is_long(rc, 0, "--save without /proc/tsa/hist: exit 0 (%s)", err);
	free(out);
	free(err);
	snprintf(path, sizeof(path), "%s/hist", dir);
	put(path, a);
	rc = run(dir, (const char *[]){ "--save", ca, NULL }, &out, &err, 0);
	free(out);
	free(err);
	all = snapshot(11000000000ULL, rb, 3);
	snprintf(path, sizeof(path), "%s/all", dir);
	put(path, all);
	free(all);
	snprintf(path, sizeof(path), "%s/hist", dir);
	put(path, b);
	rc |= run(dir, (const char *[]){ "--save", cb, NULL }, &out, &err, 0);
	is_long(rc, 0, "--save with /proc/tsa/hist: exit 0 (%s)", err);
	free(out);
	free(err);

	memset(&c, 0, sizeof(c));
	rc = capture_read(&c, c1, msg, sizeof(msg));
	ok(rc == TSA_OK && !c.has_hist, "a capture without hist=1 is "
	   "version 1, with no distributions (%s)", rc ? msg : "ok");
	capture_free(&c);
	rc = capture_read(&c, cb, msg, sizeof(msg));
	ok(rc == TSA_OK && c.has_hist && c.hist.n == 5 && c.snap.nrows == 3,
	   "a capture with hist=1 is read back with its 5 lines of "
	   "distributions beside its rows (%s)", rc ? msg : "ok");
	capture_free(&c);
	{	/* A bucket count changed in the hist section. */
		char *text, *at;
		size_t len;

		f = fopen(cb, "r");
		text = xmalloc(8192);
		len = fread(text, 1, 8191, f);
		fclose(f);
		text[len] = '\0';
		at = strstr(text, "tsa-hist 1");
		at = at ? strstr(at, " 16 ") : NULL;
		if (at)
			at[1] = '7';
		snprintf(path, sizeof(path), "%s/bad.cap", tmp);
		f = fopen(path, "w");
		fwrite(text, 1, len, f);
		fclose(f);
		free(text);
		rc = capture_read(&c, path, msg, sizeof(msg));
		ok(at && rc == TSA_EFORMAT && strstr(msg, "checksum"),
		   "a capture whose distributions were changed is refused "
		   "(%s)", msg);
		capture_free(&c);
	}

	rc = run(dir, (const char *[]){ "--compare", ca, cb, "-H", NULL },
		 &out, &err, 0);
	/*
	 * LCK: b14 gained 2, 10 ms, its new longest (12 ms) ended after
	 * A; LAT: thread 100's 8 in b10 and 2 in b12, 102's one in b0, the
	 * longest (3 ms) before A, so only a bound.
	 */
	ok(rc == 0 && strstr(out, "Compare: ") && strstr(out, ", 1.000 s apart\n"
	   "   PID       STATE   COUNT    TIME     P50     P90     P99      MAX OPEN PROCESS\n"
	   "   100       LCK         2  10.0ms  12.0ms  12.0ms  12.0ms   12.0ms    0 server\n"
	   "   100       LAT        11  4.00ms  1.04ms  3.00ms  3.00ms  <3.00ms    0 server\n"
	   "Total: 1 processes with stays off CPU, over 1.00 s\n"),
	   "--compare A B -H: the stays that ended between them, named as "
	   "in B (%s%s)", out, err);
	free(out);
	free(err);
	{	/* B from a module whose buckets end elsewhere (tsa-hist 2). */
		char c2[400];

		snprintf(c2, sizeof(c2), "%s/b2.cap", tmp);
		hist_v2(b);
		snprintf(path, sizeof(path), "%s/hist", dir);
		put(path, b);
		rc = run(dir, (const char *[]){ "--save", c2, NULL }, &out,
			 &err, 0);
		free(out);
		free(err);
		rc |= run(dir, (const char *[]){ "--compare", cb, c2, "-H",
			  NULL }, &out, &err, 0) != 5;
		ok(!rc && !*out && strstr(err, "b2.cap: -H: its buckets end "
					   "where ") && strstr(err, "tsa-hist 1 and 2"),
		   "--compare A B -H of captures from modules whose buckets "
		   "end elsewhere: refused, exit 5 (%s%s)", out, err);
		free(out);
		free(err);
		rc = run(dir, (const char *[]){ "--compare", cb, c2, NULL },
			 &out, &err, 0);
		ok(rc == 0 && strstr(out, "Compare: "),
		   "... without -H they compare (exit %d: %.80s)", rc, err);
		free(out);
		free(err);
	}
	rc = run(dir, (const char *[]){ "--compare", ca, cb, "-H", "--group",
		 "comm", "--json", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, "\"name\":\"server\",\"nproc\":1,\"nlwp\":3,"
			     "\"first\":false,\"buckets_exp\":10,"
			     "\"buckets_unit\":\"ns\",\"hists\":[{\"state\":\"LCK\","
			     "\"count\":2,"),
	   "--compare -H --group comm --json: the group of the name in B (%s%s)",
	   out, err);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--compare", c1, cb, "-H", NULL },
		 &out, &err, 0);
	ok(rc == 5 && strstr(err, "has no distributions"),
	   "--compare -H with a capture without them: exit 5 (%s)", err);
	free(out);
	free(err);
}

/*
 * The durations of system calls (lines "syscall:NAME"), a second apart:
 * thread 100's read gained 8 calls in b10 and 2 in b12 (its longest,
 * 3 ms, from before); 101's read in progress at A (counted, open)
 * returned after 0.5 ms, its longest; 101's futex did nothing.
 */
static void test_hist_calls(void)
{
	static char a[4096], b[4096];
	char *out, *err, path[400], msg[256], *dir;
	struct tsa_hist_snap sa, sb;
	struct tsa_hview *v = NULL;
	size_t cap = 0, n;
	int rc;

	snprintf(a, sizeof(a), HIST_HEAD
		 "100 100 0 0 5000000000 10000000000 LAT 3 3000 2000 9000000000 0 0%s\n"
		 "100 100 0 0 5000000000 10000000000 syscall:read 10 9000000 3000000 0 0 0%s\n"
		 "101 100 0 0 5000000000 10000000000 syscall:read 1 100000 100000 0 1 0%s\n"
		 "101 100 0 0 5000000000 10000000000 syscall:futex 5 90000000 20000000 0 0 0%s\n",
		 10000000000ULL, hb(1, 3, -1, 0), hb(10, 8, 12, 2), hb(-1, 0, -1, 0),
		 hb(14, 5, -1, 0));
	snprintf(b, sizeof(b), HIST_HEAD
		 "100 100 0 0 6000000000 11000000000 LAT 3 3000 2000 9000000000 0 0%s\n"
		 "100 100 0 0 6000000000 11000000000 syscall:read 20 18000000 3000000 0 0 0%s\n"
		 "101 100 0 0 6000000000 11000000000 syscall:read 1 500000 500000 0 0 0%s\n"
		 "101 100 0 0 6000000000 11000000000 syscall:futex 5 90000000 20000000 0 0 0%s\n",
		 11000000000ULL, hb(1, 3, -1, 0), hb(10, 16, 12, 4), hb(9, 1, -1, 0),
		 hb(14, 5, -1, 0));
	is_long(hist_parse_text(&sa, a, msg, sizeof(msg)), TSA_OK,
		"hist calls: lines \"syscall:NAME\" parse (%s)", msg);
	is_long(hist_parse_text(&sb, b, msg, sizeof(msg)), TSA_OK,
		"hist calls: the next parses (%s)", msg);
	ok(sa.n == 4 && sa.l[1].state == TSA_HIST_CALL &&
	   sa.l[1].call_len == 4 && !strncmp(sa.l[1].call, "read", 4),
	   "hist calls: a call's line is named by its call");
	n = tsa_hist_compute(&sa, &sb, 0, NULL, 0, &v, &cap);
	ok(n == 1 && v[0].state == TSA_HIST_CALL && v[0].count == 11 &&
	   v[0].ns == 9400000 && v[0].b[10] == 8 && v[0].b[12] == 2 &&
	   v[0].b[9] == 1 && v[0].max == 3000000 && !v[0].max_exact,
	   "hist calls: a process's read over the interval: its threads' "
	   "calls summed by name (10 + the one that was open), the longest "
	   "from before only a bound; the futex with none returned: no line "
	   "(saw %zu lines, count %llu ns %llu max %llu exact %d)", n,
	   n ? (unsigned long long)v[0].count : 0ULL,
	   n ? (unsigned long long)v[0].ns : 0ULL,
	   n ? (unsigned long long)v[0].max : 0ULL, n ? v[0].max_exact : -1);
	n = tsa_hist_compute(&sa, &sb, 1, NULL, 0, &v, &cap);
	ok(n == 2 && v[1].tid == 101 && v[1].count == 1 &&
	   v[1].max == 500000 && v[1].max_exact,
	   "hist calls -L: 101's read that returned: its longest grew, so "
	   "exact (saw %zu lines)", n);
	n = tsa_hist_compute(NULL, &sa, 1, NULL, 0, &v, &cap);
	ok(n == 3 && v[0].state == S_LAT && v[1].state == TSA_HIST_CALL &&
	   v[1].count == 10 && v[2].tid == 101 && v[2].count == 5 &&
	   v[2].call_len == 5,
	   "hist calls: lifetime: a thread's states, then its calls; the "
	   "read in progress (open) is in no bucket, so not shown (saw %zu)",
	   n);
	free(v);
	tsa_hist_free(&sa);
	tsa_hist_free(&sb);

	dir = mkdir_in_tmp("histcalls");
	snprintf(path, sizeof(path), "%s/hist", dir);
	put(path, b);
	put_all(dir, "");
	setenv("TSA_PROCFS", "/nonexistent", 1);
	rc = run(dir, (const char *[]){ "-H", "-L", "1", "1", NULL }, &out,
		 &err, 0);
	ok(rc == 0 && strstr(out,
	   "   100   100 LAT         3  3.00us  2.00us  2.00us  2.00us   2.00us    0 -/100\n"
	   "   100   100 SCL        20  18.0ms  1.04ms  3.00ms  3.00ms   3.00ms    0 -/100 read()\n"
	   "   100   101 SCL         5  90.0ms  16.7ms  16.7ms  16.7ms   20.0ms    0 -/101 futex()\n"
	   "   100   101 SCL         1   500us   500us   500us   500us    500us    0 -/101 read()\n"),
	   "-H -L: a thread's calls as SCL lines, the call after the name (%s%s)",
	   out, err);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "-L", "--json", "-p", "100", "1",
		 "1", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, "{\"call\":\"read\",\"count\":20,\"ns\":18000000,"),
	   "-H --json: a call's object is named by \"call\" (%s)", out);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "--group", "user", "--draw", "1",
		 "1", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, "root read(): 21 calls ended, 18.5ms; p50 1.04ms p99 3.00ms max 3.00ms\n"),
	   "-H --group --draw: a group's calls summed by name and drawn (%s)",
	   out);
	free(out);
	free(err);
	unsetenv("TSA_PROCFS");
}

/*
 * -H --group: two processes, of root (100: "server" and "worker-1",
 * its exited threads' LAT) and of uid 4000000, which has no name (200:
 * "worker-2", "worker-3"), all in their first report.
 */
static void test_hist_groups(void)
{
	static char a[8192];
	char *out, *err, path[400], *dir;
	struct tsa_hview acc, x;
	int rc;

	memset(&acc, 0, sizeof(acc));
	memset(&x, 0, sizeof(x));
	x.count = 2;
	x.b[3] = 2;
	x.max = 5000;
	x.max_exact = 1;
	tsa_hist_fold(&acc, &x);
	x.max = 8000;
	x.max_exact = 0;
	tsa_hist_fold(&acc, &x);
	ok(acc.count == 4 && acc.b[3] == 4 && acc.max == 8000 && !acc.max_exact,
	   "hist fold: counts add; a larger bound hides an exact longest");
	x.max = 8000;
	x.max_exact = 1;
	tsa_hist_fold(&acc, &x);
	ok(acc.max == 8000 && acc.max_exact,
	   "hist fold: an exact longest equal to the bound is exact");

	dir = mkdir_in_tmp("histgroups");
	snprintf(a, sizeof(a), HIST_HEAD
		 "100 100 0 0 5000000000 10000000000 LAT 4 6000000 2000000 9000000000 0 0%s\n"
		 "101 100 0 0 5000000000 10000000000 LAT 2 600000 500000 9100000000 1 100000%s\n"
		 "0 100 0 4 6000000000 10000000000 LAT 3 40000 20000 8000000000 0 0%s\n"
		 "200 200 4000000 0 4000000000 10000000000 LAT 1 9000000 9000000 9200000000 0 0%s\n"
		 "200 200 4000000 0 4000000000 10000000000 SLP 5 50000000 10000000 9300000000 0 0%s\n"
		 "201 200 4000000 0 4000000000 10000000000 LCK 1 3000000 3000000 9400000000 0 0%s\n",
		 10000000000ULL, hb(11, 4, -1, 0), hb(9, 1, -1, 0),
		 hb(4, 2, 5, 1), hb(14, 1, -1, 0), hb(14, 5, -1, 0),
		 hb(12, 1, -1, 0));
	snprintf(path, sizeof(path), "%s/hist", dir);
	put(path, a);
	{
		static const char *const comm[][2] = {
			{ "100", "server" }, { "100/task/100", "server" },
			{ "100/task/101", "worker-1" }, { "200", "worker-2" },
			{ "200/task/200", "worker-2" },
			{ "200/task/201", "worker-3" },
		};
		size_t k;

		for (k = 0; k < sizeof(comm) / sizeof(comm[0]); k++) {
			char *slash;

			snprintf(path, sizeof(path), "%s/%s", dir, comm[k][0]);
			for (slash = path + strlen(dir) + 1; *slash; slash++)
				if (*slash == '/') {
					*slash = '\0';
					mkdir(path, 0755);
					*slash = '/';
				}
			mkdir(path, 0755);
			strcat(path, "/comm");
			put(path, comm[k][1]);
		}
		/* The same names in /proc/tsa/all, where -H takes them. */
		put_all(dir, "100 100 0 0 5000000000 server\n"
			"101 100 0 0 5000000000 worker-1\n"
			"0 100 0 4 6000000000 server\n"
			"200 200 4000000 0 4000000000 worker-2\n"
			"201 200 4000000 0 4000000000 worker-3\n");
	}
	setenv("TSA_PROCFS", dir, 1);
	rc = run(dir, (const char *[]){ "-H", "--group", "user", "1", "1", NULL },
		 &out, &err, 0);
	/*
	 * 4000000 waited 12 ms for a CPU or a lock (root 6.64 ms), so it
	 * comes first; root's LAT: thread 100's 4 (b11), 101's ended one
	 * (b9; the open one is in no bucket) and the exited threads' 3 (b4,
	 * b5): the 4th of 8 is in b9 (524 us), the 8th in b11, whose edge
	 * (2.1 ms) is above the longest.
	 */
	is_str(out,
	       " NPROC  NLWP STATE   COUNT    TIME     P50     P90     P99      MAX OPEN USERNAME\n"
	       "     1     2 SLP         5  50.0ms  10.0ms  10.0ms  10.0ms   10.0ms    0 4000000\n"
	       "     1     2 LAT         1  9.00ms  9.00ms  9.00ms  9.00ms   9.00ms    0 4000000\n"
	       "     1     2 LCK         1  3.00ms  3.00ms  3.00ms  3.00ms   3.00ms    0 4000000\n"
	       "     1     2 LAT         8  6.64ms   524us  2.00ms  2.00ms   2.00ms    1 root\n"
	       "Total: 2 groups with stays off CPU, since each began\n",
	       "-H --group user: a line per user and state, exited threads "
	       "included, the longest wait for a resource first (%s)", err);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "--group", "comm", "--json", "1",
		 "1", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, "\"group\":\"comm\",\"name\":\"worker-{N}\","
			     "\"nproc\":2,\"nlwp\":3,\"first\":true,"
			     "\"buckets_exp\":10,\"buckets_unit\":\"ns\",\"hists\":"
			     "[{\"state\":\"SLP\",\"count\":5,") &&
	   strstr(out, "\"name\":\"server\",\"nproc\":1,\"nlwp\":1,"
		  "\"first\":true,\"buckets_exp\":10,\"buckets_unit\":\"ns\","
		  "\"hists\":[{\"state\":\"LAT\",\"count\":7,"
		  "\"ns\":6040000,"),
	   "-H --group comm --json: worker-1, -2 and -3 in one group of two "
	   "processes; the exited threads under their process's name (%s)",
	   out);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "-H", "--group", "user", "-p", "100",
		 "1", "1", NULL }, &out, &err, 0);
	ok(rc == 0 && strstr(out, " root\n") && !strstr(out, "4000000"),
	   "-H --group user -p 100: only that process's user");
	free(out);
	free(err);
	unsetenv("TSA_PROCFS");
}

/*
 * A process that moves to another cgroup while an export runs.  Its
 * /proc/PID/cgroup is a FIFO that answers /a the first time it is read
 * and /b the second: an export that reads it once (the group rule, one
 * read per process) has pid 100 and its stays in /a; one that read it
 * again for the distributions found no group /b and dropped them.
 */
static void test_metrics_cgroup_move(void)
{
	static char a[4096], b[4096];
	char *dir, procfs[300], path[400], *out, *err, *say[2];
	int rc, status;
	pid_t w;

	dir = mkdir_in_tmp("move");
	snprintf(procfs, sizeof(procfs), "%s", mkdir_in_tmp("move-procfs"));
	hist_snaps(a, b, sizeof(a));
	snprintf(path, sizeof(path), "%s/all", dir);
	put_owned(path, snap_a());
	snprintf(path, sizeof(path), "%s/hist", dir);
	put(path, a);
	put_cgroup(procfs, 200, "0::/c\n");
	put_cgroup(procfs, 300, "0::/c\n");
	snprintf(path, sizeof(path), "%s/100", procfs);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/100/cgroup", procfs);
	if (mkfifo(path, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	say[0] = "0::/a\n";
	say[1] = "0::/b\n";
	w = feed_fifo(path, say, 2);
	setenv("TSA_PROCFS", procfs, 1);
	rc = run(dir, (const char *[]){ "--prometheus", "--group", "cgroup",
		 NULL }, &out, &err, 0);
	unsetenv("TSA_PROCFS");
	/* The second answer is never asked for: stop the feeder. */
	kill(w, SIGKILL);
	waitpid(w, &status, 0);
	is_long(rc, 0, "export while pid 100 moves from cgroup /a to /b: "
		"exit 0");
	ok(has_line(out, "tsa_cgroup_state_seconds_total{cgroup=\"/a\","
		    "state=\"USR\"} 1.500000000"),
	   "pid 100's states in /a, the cgroup of its first read");
	ok(has_line(out, "tsa_cgroup_stay_seconds_count{cgroup=\"/a\","
		    "state=\"LAT\"} 13") &&
	   has_line(out, "tsa_cgroup_stay_seconds_count{cgroup=\"/a\","
		    "state=\"LCK\"} 4"),
	   "its stays in /a too (LAT 13, LCK 4): its cgroup file read once, "
	   "not again for the distributions");
	if (!ok(!strstr(out, "cgroup=\"/b\""), "no line of /b"))
		tap_diag("seen", out);
	free(out);
	free(err);
}

/*
 * The module's calibration state: a report says when SYS misses the
 * kernel's entry and exit paths, --json carries the state, and a
 * --calibrate list is checked before anything is measured.
 */
static void test_calibration_state(void)
{
	char *dir, path[400], *out, *err, *p;
	int rc, lines, with;

	dir = mkdir_in_tmp("calib");
	snprintf(path, sizeof(path), "%s/all", dir);
	put_owned(path, snap_a());
	rc = run(dir, (const char *[]){ "-c", "0.1", "1", NULL }, &out, &err,
		 0);
	ok(rc == 0 && !strstr(out, "calibration"),
	   "no calibration file (an older module): no note");
	free(out);
	free(err);

	snprintf(path, sizeof(path), "%s/calibration", dir);
	put(path, "format tsa-calibration 2\napplied 1\nstate partial\n"
	    "fields cpu sys_ns fault_ns calibrated\n0 400 600 1\n1 0 0 0\n");
	rc = run(dir, (const char *[]){ "-c", "0.1", "1", NULL }, &out, &err,
		 0);
	ok(rc == 0 && !strstr(out, "calibration") && !*err,
	   "state partial, stdout a file: the Total line as Solaris prints it, "
	   "nothing on stderr (scripts parse it)");
	free(out);
	free(err);
	out = run_pty(dir, (const char *[]){ "-c", "0.1", "1", NULL }, 24);
	p = out ? strstr(out, "\nTotal: ") : NULL;
	if (!ok(p && strstr(p, ", load averages: ") &&
		strstr(p, "; calibration partial: SYS misses the kernel's "
		       "entry and exit paths (tsa-prstat --calibrate)\r\n"),
		"state partial, on a terminal: the Total line says SYS is short"))
		tap_diag("seen", out ? out : "");
	free(out);

	rc = run(dir, (const char *[]){ "--json", "-L", "0.1", "1", NULL },
		 &out, &err, 0);
	lines = with = 0;
	for (p = out; *p; p++)
		lines += *p == '\n';
	for (p = out; (p = strstr(p, "\"calibration\":\"partial\"")); p++)
		with++;
	ok(rc == 0 && lines == 5 && with == 5,
	   "--json -L: each of the 5 lines has \"calibration\":\"partial\" "
	   "(%d lines, %d with it)", lines, with);
	free(out);
	free(err);

	put(path, "format tsa-calibration 2\napplied 1\nstate applied\n"
	    "fields cpu sys_ns fault_ns calibrated\n0 400 600 1\n");
	rc = run(dir, (const char *[]){ "-c", "0.1", "1", NULL }, &out, &err,
		 0);
	ok(rc == 0 && !strstr(out, "calibration"),
	   "state applied: no note");
	free(out);
	free(err);

	rc = run(dir, (const char *[]){ "--calibrate=1-x", NULL }, &out, &err,
		 0);
	ok(rc == 1 && strstr(err, "not a CPU list"),
	   "--calibrate=1-x: a usage error, exit 1 (%d)", rc);
	free(out);
	free(err);
	rc = run(dir, (const char *[]){ "--calibrate=3-1", NULL }, &out, &err,
		 0);
	ok(rc == 1 && strstr(err, "not a CPU list"),
	   "--calibrate=3-1: a usage error, exit 1 (%d)", rc);
	free(out);
	free(err);
}

/*
 * -w in the redraw mode: f follows a thread, then its top waker, down
 * golden/in/a's chain 101 <- 100 <- a timer; b goes back; q ends it.
 */
static void test_wakers_keys(void)
{
	static const struct {
		const char *keys, *wait, *gone, *has[2], *hasnt;
		const char *what;
	} step[] = {
		{ NULL, "Total: 2 processes", NULL,
		  { "WAKER", "f: follow a waker" }, NULL,
		  "-w redraws its report, the keys on the status line" },
		{ "f", "follow thread (empty: 300)", NULL, { NULL }, NULL,
		  "f offers the most woken thread" },
		{ "101 Enter", "Following: 101", NULL,
		  { "db server/100", "db worker/101" }, "sleeper",
		  "f 101 shows that thread alone: its LCK ended by db server" },
		{ "f", "follow thread (empty: 100)", NULL, { NULL }, NULL,
		  "f then offers its top waker" },
		{ "Enter", "Following: 101 <- 100", NULL,
		  { "timer", "db worker/101" }, NULL,
		  "Enter follows it: db server's own wakers" },
		{ "f Enter", "the chain ends there", NULL,
		  { "100 was woken by timer" }, NULL,
		  "f at a thread woken by a timer says the chain ends" },
		{ "b", "Following: 101", "Following: 101 <-",
		  { "db server/100" }, "timer",
		  "b goes back one thread" },
		{ "b", "Total: 2 processes", "Following",
		  { "PROCESS" }, NULL, "b again: the whole view" },
		{ "q", "EXITED 0", NULL, { "EXITED 0" }, NULL,
		  "q quits, exit 0" },
	};
	char cmd[1200], bin[300], *s;
	size_t i;
	int k, good;

	if (system("command -v tmux >/dev/null 2>&1")) {
		skip("wakers keys: tmux not found");
		return;
	}
	if (!realpath(prstat_bin, bin))
		snprintf(bin, sizeof(bin), "%s", prstat_bin);
	system("tmux -L tsa-prstat-test kill-server 2>/dev/null");
	if (system("tmux -L tsa-prstat-test -f /dev/null new-session -d -s "
		   "keys -x 110 -y 30 'PS1=\"$ \" bash --norc --noprofile -i'")) {
		skip("wakers keys: tmux new-session failed");
		return;
	}
	/*
	 * Lifetime numbers stay on screen: the interval is an hour (a
	 * minute was passed on a host at load 10, and the second report,
	 * of nothing new, showed "Total: 0 threads" to the later keys).
	 */
	snprintf(cmd, sizeof(cmd), "tmux -L tsa-prstat-test send-keys -t keys "
		 "\"clear; TSA_PROC_DIR=%s/golden/in/a TSA_PROCFS=%s/golden/in/"
		 "procfs %s -w 3600; echo EXITED \\$?\" Enter", testdir, testdir,
		 bin);
	if (system(cmd)) {
		skip("wakers keys: tmux send-keys failed");
		return;
	}
	for (i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
		if (step[i].keys)
			tmux_keys(step[i].keys);
		s = tmux_wait(step[i].wait, step[i].gone);
		good = strstr(s, step[i].wait) &&
		       (!step[i].gone || !strstr(s, step[i].gone)) &&
		       (!step[i].hasnt || !strstr(s, step[i].hasnt));
		for (k = 0; k < 2; k++)
			if (step[i].has[k] && !strstr(s, step[i].has[k]))
				good = 0;
		ok(good, "wakers keys: %s", step[i].what);
		if (!good)
			printf("# expected '%s' after keys '%s'; saw:\n%s\n",
			       step[i].wait, step[i].keys ? step[i].keys : "",
			       s);
		free(s);
	}
	system("tmux -L tsa-prstat-test kill-server 2>/dev/null");
}

/* @s with every "comm":"..." value emptied (in place). */
static char *mask_comm(char *s)
{
	char *p = s;

	/* An unknown name (null) is masked as a known one is. */
	while ((p = strstr(p, "\"comm\":null")) != NULL) {
		memmove(p + 7, "\"\"", 2);
		memmove(p + 9, p + 11, strlen(p + 11) + 1);
	}
	p = s;
	while ((p = strstr(p, "\"comm\":\"")) != NULL) {
		char *v = p + 8, *e = strchr(v, '"');

		if (!e)
			break;
		memmove(v, e, strlen(e) + 1);
		p = v;
	}
	return s;
}

/*
 * The wakers recorded beside the rows (golden/in/a, b and c: a waker
 * named with a space, a thread gone, a tid reused, rows that age in a
 * stay), replayed as -w showed them live.
 */
static void test_record_wakers(void)
{
	static const char *const in[3] = { "a", "b", "c" };
	char dir[400], fa[500], fw[500], path[600], rec[400], *gen[6],
	     *wk[3], *out, *err, *live;
	const char *fifos[2];
	struct blockinfo b[8];
	int i, n, rc, status, aging = 0, spaced = 0;
	pid_t w;

	snprintf(dir, sizeof(dir), "%s", mkdir_in_tmp("recwakers"));
	snprintf(fa, sizeof(fa), "%s/all", dir);
	snprintf(fw, sizeof(fw), "%s/wakers", dir);
	if (mkfifo(fa, 0600) || mkfifo(fw, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	fifos[0] = fa;
	fifos[1] = fw;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/golden/in/%s/all", testdir,
			 in[i]);
		gen[2 * i] = slurp(path);
		snprintf(path, sizeof(path), "%s/golden/in/%s/wakers",
			 testdir, in[i]);
		gen[2 * i + 1] = slurp(path);
		wk[i] = gen[2 * i + 1];
	}
	snprintf(rec, sizeof(rec), "%s/rec-wakers", tmp);
	w = feed_fifos(fifos, 2, gen, 6);
	rc = run(dir, (const char *[]){ "--record", rec, "--interval", "0.01",
		 "3", NULL }, &out, &err, 0);
	waitpid(w, &status, 0);
	is_long(rc, 0, "--record with /proc/tsa/wakers there: exit 0 (%s)",
		err);
	free(out);
	free(err);
	n = read_blocks(rec, b, 8);
	ok(n == 3 && b[0].key && !b[1].key && !b[2].key,
	   "3 blocks with the wakers: a key block, then deltas (saw %d)", n);
	/* The rows that only age in a stay are said once ("w+"). */
	for (i = 0; i < n; i++) {
		aging += b[i].wakers_aging;
		spaced += b[i].wakers_spaced;
	}
	ok(aging >= 2 && spaced >= 1,
	   "the wakers' lines: %d rows that age in a stay said once (w+, "
	   "expected >= 2), %d names with a space written \\040 (>= 1)",
	   aging, spaced);
	/* Live, the same files one read each; then the replay. */
	{
		/* -w reads wakers, then all (the names): in that order. */
		const char *wf[2] = { fw, fa };
		char *both[6];

		for (i = 0; i < 3; i++) {
			both[2 * i] = wk[i];
			both[2 * i + 1] = gen[2 * i];
		}
		w = feed_fifos(wf, 2, both, 6);
		run(dir, (const char *[]){ "-wL", "--json", "-c", "0.01", "3",
		    NULL }, &live, &err, 0);
		waitpid(w, &status, 0);
		free(err);
	}
	rc = run(NULL, (const char *[]){ "--replay", rec, "-wL", "--json",
		 NULL }, &out, &err, 0);
	mask_comm(mask_ts(out));
	mask_comm(mask_ts(live));
	is_str(out, live, "--replay -wL --json: the wakers' lines of the live "
	       "run, line for line (names aside: the replay's are the "
	       "recording's) (exit %d, %d lines)", rc, count_lines(live));
	free(out);
	free(err);
	free(live);
	rc = run(NULL, (const char *[]){ "--replay", rec, "-yL", NULL }, &out,
		 &err, 0);
	ok(rc == 2 && strstr(err, "-y: no system-call rows recorded"),
	   "--replay -yL of a recording with wakers only: exit 2, said "
	   "(%d: %s)", rc, err);
	free(out);
	free(err);
	for (i = 0; i < 6; i++)
		free(gen[i]);
}

/*
 * prstat's -t, -a, -u, -U and -d over snapshot A (lifetime numbers):
 * processes 100 and 300 of root, 200 of uid 4000000.
 */
static char *run_cut(const char *dir, const char *const *args, int *rc)
{
	char *out, *err;

	*rc = run(dir, args, &out, &err, 0);
	if (*rc)
		printf("# stderr: %s", err);
	free(err);
	cut_loadavg(out);
	return out;
}

/* @s without its last line (the Total line), in place; that line. */
static char *drop_last_line(char *s)
{
	size_t n = strlen(s);
	char *p;

	while (n && s[n - 1] == '\n')
		n--;
	p = s + n;
	while (p > s && p[-1] != '\n')
		p--;
	return p;
}

static void test_prstat_opts(void)
{
	char *dir, path[400], *s, *want, *seen, *grp, *total, *p;
	char ts0[64], ts1[64], line[64] = "";
	int rc;
	time_t t0, t1;
	struct tm tm;
	size_t i;

	dir = mkdir_in_tmp("prstat-opts");
	snprintf(path, sizeof(path), "%s/all", dir);
	s = snap_a();
	put(path, s);
	free(s);

	/* -t: a line per user, as --group user prints them. */
	want = run_cut(dir, (const char *[]){ "--group", "user", "-c", "1", "1",
		       NULL }, &rc);
	seen = run_cut(dir, (const char *[]){ "-t", "-c", "1", "1", NULL },
		       &rc);
	if (!ok(rc == 0 && !strcmp(seen, want),
		"-t: one line per user, as --group user (exit %d)", rc)) {
		tap_diag("expected", want);
		tap_diag("seen", seen);
	}
	free(seen);

	/* -a: the processes, the users' lines, then the one Total line. */
	grp = want;
	s = run_cut(dir, (const char *[]){ "-c", "1", "1", NULL }, &rc);
	total = drop_last_line(s);
	drop_last_line(grp)[0] = '\0';
	want = xmalloc(strlen(s) + strlen(grp) + 1);
	snprintf(want, strlen(s) + strlen(grp) + 1, "%.*s%s%s",
		 (int)(total - s), s, grp, total);
	seen = run_cut(dir, (const char *[]){ "-a", "-c", "1", "1", NULL },
		       &rc);
	if (!ok(rc == 0 && !strcmp(seen, want) &&
		count_str(seen, "Total:") == 1,
		"-a: the processes, then a line per user, then Total "
		"(exit %d)", rc)) {
		tap_diag("expected", want);
		tap_diag("seen", seen);
	}
	free(seen);
	free(want);
	free(s);
	free(grp);
	seen = run_cut(dir, (const char *[]){ "-a", "-n", "2,1", "-c", "1", "1",
		       NULL }, &rc);
	is_long(count_lines(seen), 6, "-a -n 2,1: header, 2 processes, the "
		"users' header, 1 user, Total (exit %d)", rc);
	free(seen);

	/* -u, -U: one uid per thread in tsa's files, both match it. */
	{
		static const struct {
			const char *args[4];
			const char *has, *hasnt, *total;
		} c[] = {
			{ { "-u", "root", NULL }, "db server/2", "spin/1",
			  "Total: 2 processes, 4 lwps," },
			{ { "-U", "4000000", NULL }, "spin/1", "sleeper",
			  "Total: 1 processes, 1 lwps," },
			{ { "-u", "0,4000000", "-U", "root" }, "sleeper/2",
			  "spin", "Total: 2 processes, 4 lwps," },
			{ { "-u", "4000000", "-U", "0" }, "PROCESS/NLWP",
			  "root", "Total: 0 processes, 0 lwps," },
		};

		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			const char *args[10];
			size_t k, n = 0;

			for (k = 0; k < 4 && c[i].args[k]; k++)
				args[n++] = c[i].args[k];
			args[n++] = "-c";
			args[n++] = "1";
			args[n++] = "1";
			args[n] = NULL;
			seen = run_cut(dir, args, &rc);
			if (!ok(rc == 0 && strstr(seen, c[i].has) &&
				!strstr(seen, c[i].hasnt) &&
				strstr(seen, c[i].total),
				"%s %s%s%s: has '%s', not '%s', '%s' (exit %d)",
				c[i].args[0], c[i].args[1],
				c[i].args[2] ? " -U " : "",
				c[i].args[2] ? c[i].args[3] : "", c[i].has,
				c[i].hasnt, c[i].total, rc))
				tap_diag("seen", seen);
			free(seen);
		}
	}

	/* -u, -U in -w and -H, over golden/in/a (root: 100, 300). */
	{
		static const struct {
			const char *args[4];
			const char *has, *hasnt;
		} c[] = {
			{ { "-wL", "-u", "root" }, "sleeper/301", "spin" },
			{ { "-wL", "-U", "4000000" }, "Total: 0 threads",
			  "sleeper" },
			{ { "-HL", "-u", "root" }, "db worker/101", "spin" },
			{ { "-HL", "-U", "4000000" }, "Total: 0 threads",
			  "db " },
		};
		char gin[400];

		snprintf(gin, sizeof(gin), "%s/golden/in/a", testdir);
		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			const char *args[8] = { c[i].args[0], c[i].args[1],
						c[i].args[2], "-c", "1", "1",
						NULL };

			seen = run_cut(gin, args, &rc);
			if (!ok(rc == 0 && strstr(seen, c[i].has) &&
				!strstr(seen, c[i].hasnt),
				"%s %s %s: has '%s', not '%s' (exit %d)",
				c[i].args[0], c[i].args[1], c[i].args[2],
				c[i].has, c[i].hasnt, rc))
				tap_diag("seen", seen);
			free(seen);
		}
	}

	/* -d u: seconds since the epoch above each report; -d d: date(1). */
	t0 = time(NULL);
	seen = run_cut(dir, (const char *[]){ "-d", "u", "-c", "0.1", "2",
		       NULL }, &rc);
	t1 = time(NULL);
	{
		long long v = -1;
		int n = 0, stamps = 0;

		for (p = seen; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') +
		     1 : NULL)
			if (sscanf(p, "%lld%n", &v, &n) == 1 && p[n] == '\n' &&
			    v >= t0 && v <= t1 + 1)
				stamps++;
		ok(rc == 0 && stamps == 2 &&
		   sscanf(seen, "%lld\n", &v) == 1 && strstr(seen, "\n   PID"),
		   "-d u -c 0.1 2: each report under its time in seconds "
		   "(expected 2 between %lld and %lld, seen %d; exit %d)",
		   (long long)t0, (long long)t1 + 1, stamps, rc);
	}
	free(seen);
	t0 = time(NULL);
	seen = run_cut(dir, (const char *[]){ "-d", "d", "-c", "1", "1", NULL },
		       &rc);
	t1 = time(NULL);
	sscanf(seen, "%63[^\n]", line);
	localtime_r(&t0, &tm);
	strftime(ts0, sizeof(ts0), "%a %b %e %H:%M:%S %Z %Y", &tm);
	localtime_r(&t1, &tm);
	strftime(ts1, sizeof(ts1), "%a %b %e %H:%M:%S %Z %Y", &tm);
	ok(rc == 0 && (!strcmp(line, ts0) || !strcmp(line, ts1)),
	   "-d d: the report under its date as date(1) prints it (expected "
	   "'%s', seen '%s')", ts0, line);
	free(seen);

	/* Refused, one line each. */
	{
		static const struct {
			const char *args[6];
			const char *msg;
		} bad[] = {
			{ { "-a", "-t", NULL }, "-a and -t: choose one" },
			{ { "-t", "-L", NULL }, "-t shows a line per user" },
			{ { "-a", "-H", NULL }, "-a shows processes, then users" },
			{ { "-t", "--group", "comm", NULL },
			  "-t shows a line per user" },
			{ { "-u", "no-such-user-xyz", NULL },
			  "invalid user for -u: 'no-such-user-xyz'" },
			{ { "-U", "-5", NULL }, "invalid user for -U: '-5'" },
			{ { "-u", "root", "--chain", "1", NULL },
			  "-u and -U choose" },
			{ { "-d", "x", NULL }, "invalid argument for -d: 'x'" },
			{ { "-d", "u", "--json", NULL }, "-d puts the time" },
		};
		char *out, *err;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			rc = run(dir, bad[i].args, &out, &err, 0);
			ok(rc == 1 && strstr(err, bad[i].msg),
			   "%s %s: refused, exit 1 (expected '%s', seen %d: %s)",
			   bad[i].args[0], bad[i].args[1] ? bad[i].args[1] : "",
			   bad[i].msg, rc, err);
			free(out);
			free(err);
		}
	}
}

/*
 * tsa-prstat @args over @dir, alone in a @x by @y tmux window: the screen
 * once a report and its status line are on it (malloc'ed; NULL if tmux
 * could not start).
 */
static char *tmux_screen(const char *dir, const char *args, int x, int y)
{
	char cmd[1200], bin[300], *s = NULL;
	int k;

	if (!realpath(prstat_bin, bin))
		snprintf(bin, sizeof(bin), "%s", prstat_bin);
	system("tmux -L tsa-prstat-narrow kill-server 2>/dev/null");
	snprintf(cmd, sizeof(cmd), "tmux -L tsa-prstat-narrow -f /dev/null "
		 "new-session -d -s narrow -x %d -y %d 'TSA_PROC_DIR=%s "
		 "TSA_PROCFS=/nonexistent %s %s'", x, y, dir, bin, args);
	if (system(cmd))
		return NULL;
	for (k = 0; k < 100; k++) {
		struct timespec ms = { 0, 50000000 };
		FILE *f = popen("tmux -L tsa-prstat-narrow capture-pane -p -t "
				"narrow 2>/dev/null", "r");
		size_t len = 0;

		free(s);
		s = NULL;
		if (f) {
			FILE *m = open_memstream(&s, &len);
			int c;

			while ((c = fgetc(f)) != EOF)
				fputc(c, m);
			fclose(m);
			pclose(f);
		}
		if (s && strstr(s, "h: keys") && strstr(s, "Total:"))
			break;
		nanosleep(&ms, NULL);
	}
	system("tmux -L tsa-prstat-narrow kill-server 2>/dev/null");
	return s ? s : xstrdup("");
}

/* The rows of @s with something on them, its longest, its row @r. */
static int screen_rows(const char *s, int *longest, int r, char *row,
		       size_t len)
{
	const char *p;
	int rows = 0, i = 0;

	*longest = 0;
	row[0] = '\0';
	for (p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL,
	     i++) {
		int n = (int)strcspn(p, "\n");

		rows += n > 0;
		if (n > *longest)
			*longest = n;
		if (i == r)
			snprintf(row, len, "%.*s", n, p);
	}
	return rows;
}

/*
 * A narrow terminal (tmux new -x 50 -y 12 'tsa-prstat -mL 0.2'): each
 * row cut at the 50 columns, as top cuts them; a wrapped row would
 * scroll the header off the top.  A pipe keeps every byte (the golden
 * files, all of them wider than 50 columns).  With -d, the time's line
 * counts in the screen's height.
 */
static void test_narrow(void)
{
	char *dir, path[400], *s, first[128], second[128];
	int rows, longest;

	if (system("command -v tmux >/dev/null 2>&1")) {
		skip("narrow: tmux not found");
		return;
	}
	dir = mkdir_in_tmp("narrow");
	snprintf(path, sizeof(path), "%s/all", dir);
	s = snap_a();
	put(path, s);
	free(s);
	s = tmux_screen(dir, "-mL 0.2", 50, 12);
	if (!s) {
		skip("narrow: tmux new-session failed");
		return;
	}
	rows = screen_rows(s, &longest, 0, first, sizeof(first));
	if (!ok(!strncmp(first, "   PID USERNAME USR SYS", 23) &&
		strlen(first) == 50 && rows == 8 && longest == 50,
		"50 columns: the header on the first row, each row cut at "
		"the width: header, 5 threads, Total, status (expected "
		"'   PID USERNAME USR SYS...' of 50 columns and 8 rows, seen "
		"'%s' and %d rows)", first, rows))
		tap_diag("seen", s);
	free(s);
	/* 8 rows, -d u: the time, header, 4 threads, Total, status. */
	s = tmux_screen(dir, "-d u -mL 0.2", 50, 8);
	rows = screen_rows(s, &longest, 0, first, sizeof(first));
	screen_rows(s, &longest, 1, second, sizeof(second));
	if (!ok(strspn(first, "0123456789") == strlen(first) && first[0] &&
		!strncmp(second, "   PID USERNAME", 15) && rows == 8,
		"-d u on 8 rows: the time on the first row, the header on "
		"the second, 4 threads (expected digits, then '   PID "
		"USERNAME...', 8 rows; seen '%s', '%s', %d rows)", first,
		second, rows))
		tap_diag("seen", s);
	free(s);
}

int main(void)
{
	if (fx_init())
		return 2;
	/*
	 * tmux's server socket in this run's own directory: two suites at
	 * once (worktrees of one machine) each had "tsa-prstat-test" in
	 * /tmp/tmux-UID, and one's kill-server ended the other's keys.
	 */
	setenv("TMUX_TMPDIR", tmp, 1);

	test_errors();
	test_end_to_end();
	test_calls_binary();
	test_sigterm();
	test_tty();
	test_metrics_binary();
	test_group_binary();
	test_prstat_opts();
	test_compare_binary();
	test_record_replay();
	test_record_errors();
	test_record_calls_aging();
	test_record_wakers();
	test_keys();
	test_narrow();
	test_wakers_keys();
	test_hist_binary();
	test_wakers_binary();
	test_chain_binary();
	test_hist_groups();
	test_metrics_cgroup_move();
	test_calibration_state();
	test_hist_capture();
	test_hist_calls();
	test_big();

	fx_done(tap_failed);
	return tap_done();
}
