// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - running tsa-prstat from the tests (see run.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

const char *prstat_bin = "./tsa-prstat";
const char *testdir = "../tests/userspace";
char tmp[256];

int fx_init(void)
{
	const char *env;

	if ((env = getenv("TSA_PRSTAT")) != NULL)
		prstat_bin = env;
	if ((env = getenv("TSA_TESTDIR")) != NULL)
		testdir = env;
	snprintf(tmp, sizeof(tmp), "%s/tsa-prstat-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	m = open_memstream(&buf, &len);
	if (f) {
		while ((c = fgetc(f)) != EOF)
			fputc(c, m);
		fclose(f);
	}
	fclose(m);
	return buf;
}

void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) == EOF || fclose(f)) {
		printf("# cannot write %s\n", path);
		exit(2);
	}
}

int run(const char *dir, const char *const *args, char **out, char **err,
	int as_nobody)
{
	return run_as(prstat_bin, dir, args, out, err, as_nobody);
}

int run_prog(const char *bin, const char *dir, const char *const *args,
	     char **out, char **err)
{
	return run_as(bin, dir, args, out, err, 0);
}

int run_as(const char *bin, const char *dir, const char *const *args,
	   char **out, char **err, int as_nobody)
{
	char opath[300], epath[300];
	const char *argv[32];
	int i, status;
	pid_t pid;

	snprintf(opath, sizeof(opath), "%s/stdout", tmp);
	snprintf(epath, sizeof(epath), "%s/stderr", tmp);
	argv[0] = bin;
	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int o = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int e = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		dup2(o, 1);
		dup2(e, 2);
		if (dir)
			setenv("TSA_PROC_DIR", dir, 1);
		if (as_nobody && (setgid(65534) || setuid(65534)))
			_exit(126);
		alarm(20);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	*out = slurp(opath);
	*err = slurp(epath);
	return WIFEXITED(status) ? WEXITSTATUS(status) :
		128 + WTERMSIG(status);
}

pid_t feed_fifos(const char *const *fifos, int nf, char *const *snaps,
		 int n)
{
	struct timespec ms = { 0, 1000000 };
	pid_t pid;
	int i;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	alarm(20);
	for (i = 0; i < n; i++) {
		size_t len = strlen(snaps[i]), done = 0;
		int fd, closed = i < nf;

		for (;;) {
			if (nf > 1) {
				fd = open(fifos[i % nf], O_WRONLY);
				if (fd < 0)
					_exit(1);
				break;
			}
			fd = open(fifos[i % nf], O_WRONLY | O_NONBLOCK);
			if (fd >= 0 && closed)
				break;
			if (fd >= 0)
				close(fd);
			else if (errno == ENXIO)
				closed = 1;
			else
				_exit(1);
			nanosleep(&ms, NULL);
		}
		fcntl(fd, F_SETFL, 0);
		while (done < len) {
			ssize_t w = write(fd, snaps[i] + done, len - done);

			if (w <= 0)
				_exit(1);
			done += (size_t)w;
		}
		close(fd);
	}
	_exit(0);
}

pid_t feed_fifo(const char *fifo, char *const *snaps, int n)
{
	return feed_fifos(&fifo, 1, snaps, n);
}

void cut_loadavg(char *s)
{
	char *p;

	while ((p = strstr(s, " load averages: ")) != NULL) {
		char *nl = strchr(p, '\n');

		memmove(p, nl, strlen(nl) + 1);
		s = p + 1;
	}
}

char *mask_ts(char *s)
{
	char *p = s;

	while (s && (p = strstr(p, "\"ts\":")) != NULL) {
		p += 5;
		while ((*p >= '0' && *p <= '9') || *p == '.')
			*p++ = '#';
	}
	return s;
}

void fx_done(int failed)
{
	char cmd[300];

	if (failed) {
		printf("# files kept in %s\n", tmp);
		return;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd))
		printf("# could not remove %s\n", tmp);
}

char *mkdir_in_tmp(const char *name)
{
	static char path[300];

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	mkdir(path, 0755);
	return path;
}

int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
		p++;
	}
	return 0;
}

void put_cgroup(const char *procfs, int pid, const char *text)
{
	char path[400];

	snprintf(path, sizeof(path), "%s/%d", procfs, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/cgroup", procfs, pid);
	put(path, text);
}

int count_str(const char *s, const char *what)
{
	int n = 0;

	while (s && (s = strstr(s, what)) != NULL) {
		n++;
		s++;
	}
	return n;
}

/* ---- Prometheus texts and /proc/tsa/all files across scrapes ---- */

/* The value of sample @series ("name{labels}") in @text, or -1. */
double sample_of(const char *text, const char *series)
{
	char want[512];
	const char *p;

	snprintf(want, sizeof(want), "\n%s ", series);
	p = text ? strstr(text, want) : NULL;
	return p ? strtod(p + strlen(want), NULL) : -1;
}

/*
 * Every counter sample of @before ("_total", and a histogram's
 * "_bucket", "_sum", "_count") whose name starts with @prefix: is it in
 * @after, with no smaller a value? The first that is not is said.
 */
int counters_kept(const char *before, const char *after,
			 const char *prefix, char *why, size_t len)
{
	const char *p = before;
	int n = 0;

	snprintf(why, len, "no counter of %s", prefix);
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		const char *sp = memrchr(p, ' ', l), *br = memchr(p, '{', l);
		char series[512];
		double a, b;

		if (!strncmp(p, prefix, strlen(prefix)) && sp && br &&
		    br - p >= 6 && (size_t)(sp - p) < sizeof(series) &&
		    (!strncmp(br - 6, "_total", 6) ||
		     memmem(p, l, "_bucket{", 8) || memmem(p, l, "_sum{", 5) ||
		     memmem(p, l, "_count{", 7))) {
			snprintf(series, sizeof(series), "%.*s", (int)(sp - p), p);
			a = strtod(sp + 1, NULL);
			b = sample_of(after, series);
			if (b < a) {
				snprintf(why, len, "%s: %.9f, then %.9f",
					 series, a, b);
				return 0;
			}
			n++;
		}
		p = nl ? nl + 1 : NULL;
	}
	if (n)
		snprintf(why, len, "%d counters, none went down", n);
	return n > 0;
}

/* @src's lines but those of process @pid (its second column), to @dst. */
void copy_without(const char *src, const char *dst, const char *pid)
{
	char *in = slurp(src), *buf = NULL, *p, want[32];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	snprintf(want, sizeof(want), " %s ", pid);
	for (p = in; p && *p;) {
		char *nl = strchr(p, '\n'), *sp = strchr(p, ' ');
		size_t l = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (!(sp && sp < p + l && !strncmp(sp, want, strlen(want))))
			fwrite(p, 1, l, m);
		p += l;
	}
	fclose(m);
	put(dst, buf);
	free(buf);
	free(in);
}

/*
 * /proc/tsa/all @path @ns later: "now" and every live thread's elapsed
 * @ns more, and thread @tid's USR (the column after state_ns) @ns more.
 */
void run_on(const char *path, unsigned long long ns, unsigned long tid)
{
	char *in = slurp(path), *buf = NULL, *p;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	for (p = in; p && *p;) {
		char *nl = strchr(p, '\n');
		unsigned long long v[8];
		unsigned long t;
		int k, end = 0;

		if (nl)
			*nl = '\0';
		if (sscanf(p, "now %llu", &v[0]) == 1) {
			fprintf(m, "now %llu\n", v[0] + ns);
		} else if (sscanf(p, "%lu %llu %llu %llu %llu %llu %llu %llu%n",
				  &t, &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
				  &v[7], &end) == 8 && t) {
			v[4] += ns;
			if (t == tid)
				v[7] += ns;
			fprintf(m, "%lu", t);
			for (k = 1; k < 8; k++)
				fprintf(m, " %llu", v[k]);
			fprintf(m, "%s\n", p + end);
		} else {
			fprintf(m, "%s\n", p);
		}
		p = nl ? nl + 1 : p + strlen(p);
	}
	fclose(m);
	put(path, buf);
	free(buf);
	free(in);
}
