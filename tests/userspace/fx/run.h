/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run.h - what every end-to-end test of tsa-prstat needs: the binary and
 * a temporary directory, files in and out, the binary run with its
 * output caught, and FIFOs that hand it one snapshot per read.
 */
#ifndef FX_RUN_H
#define FX_RUN_H

#include <stddef.h>
#include <sys/types.h>

extern const char *prstat_bin;	/* $TSA_PRSTAT, else ./tsa-prstat */
extern const char *testdir;	/* $TSA_TESTDIR, else ../tests/userspace */
extern char tmp[256];		/* this run's own directory */

/* Read the environment and make tmp; 0, or -1 with a message printed. */
int fx_init(void);
/* At the end: remove tmp, unless tests @failed (then say where it is). */
void fx_done(int failed);
/* tmp/@name, made (a static buffer, valid until the next call). */
char *mkdir_in_tmp(const char *name);
/* How many times @what occurs in @s (NULL: 0). */
int count_str(const char *s, const char *what);
/* Does @text have the line @line, whole? */
int has_line(const char *text, const char *line);
/* A fake /proc/PID/cgroup under @procfs. */
void put_cgroup(const char *procfs, int pid, const char *text);

/* A file's text (malloc'ed; "" when it cannot be read). */
char *slurp(const char *path);
/* Write @text to @path, or exit(2): a test that cannot set up is void. */
void put(const char *path, const char *text);

/*
 * Run tsa-prstat with @args (NULL-terminated) and TSA_PROC_DIR=@dir;
 * stdout and stderr into *out and *err.  @as_nobody: drop to uid
 * 65534 first (used only when running as root).  Returns the exit
 * status, or 128 + signal.
 */
int run(const char *dir, const char *const *args, char **out, char **err,
	int as_nobody);
/* The same for another program @bin (tsa-exporter), as this user. */
int run_prog(const char *bin, const char *dir, const char *const *args,
	     char **out, char **err);
int run_as(const char *bin, const char *dir, const char *const *args,
	   char **out, char **err, int as_nobody);

/*
 * Hand @snaps[i] to whoever opens @fifos[i % nf] next, one open each,
 * from a child process (its pid returned; waitpid it).
 */
pid_t feed_fifos(const char *const *fifos, int nf, char *const *snaps,
		 int n);
pid_t feed_fifo(const char *fifo, char *const *snaps, int n);

/* Drop the load averages, which are the machine's, from Total lines. */
void cut_loadavg(char *s);
/* JSON lines with their wall-clock time ("ts":N.NNN) masked. */
char *mask_ts(char *s);

/* The value of sample @series ("name{labels}") in @text, or -1. */
double sample_of(const char *text, const char *series);
/*
 * Is every counter sample of @before whose name starts with @prefix in
 * @after, no lower? 0 and the first that is not in @why, else 1 and how
 * many there were.
 */
int counters_kept(const char *before, const char *after, const char *prefix,
		  char *why, size_t len);
/* @src's lines but those of process @pid (its second column), to @dst. */
void copy_without(const char *src, const char *dst, const char *pid);
/*
 * /proc/tsa/all @path @ns later: "now" and every live thread's elapsed
 * @ns more, and thread @tid's USR @ns more.
 */
void run_on(const char *path, unsigned long long ns, unsigned long tid);

#endif /* FX_RUN_H */
