// SPDX-License-Identifier: GPL-2.0
/*
 * test_golden.c - today's tsa-prstat against files frozen in golden/.
 *
 * golden/ holds inputs (snapshots of /proc/tsa in in/, a fake procfs),
 * captures and recordings written by tsa-prstat 0.1.0 from them, and
 * what every view printed on them (out/).  Two promises are checked:
 *
 *   1. Every case of golden/cases prints what out/NAME holds, byte for
 *      byte: the before/after proof of a change that must not change
 *      behaviour.  Only the machine's load averages and the wall clock
 *      of live reads ("ts") are masked, and only in live cases.
 *   2. A capture or recording written today from the same inputs is
 *      the frozen one (its wall clock and load averages masked), or
 *      carries a new version line: a changed format bumps its version,
 *      and the old files stay here for every later tsa-prstat to read.
 *
 * TSA_GOLDEN_WRITE=1 writes out/NAME instead of comparing (only for a
 * new case, or a change of output that is the point of a commit).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "fx/run.h"
#include "tap.h"

static char golden[64];
static int writing;

/* @s with @what (a line's start) through its end replaced by @what "#". */
static void mask_lines(char *s, const char *what)
{
	size_t wl = strlen(what);
	char *p = s;

	while ((p = strstr(p, what)) != NULL) {
		char *e = strchr(p, '\n');

		if (p != s && p[-1] != '\n') {
			p += wl;
			continue;
		}
		if (!e)
			e = p + strlen(p);
		memmove(p + wl + 1, e, strlen(e) + 1);
		p[wl] = '#';
		p += wl + 1;
	}
}

/*
 * A case's source: "-" none (files named in the arguments), "-clock"
 * the same but its JSON's "ts" is the clock's at the run; "in/X" a
 * directory of snapshots read as they are; "feed:F,G" FIFOs F and G
 * handing the binary in/a's then in/b's F and G, one read each.
 */
static int run_case(const char *src, const char *const *argv, char **out,
		    char **err)
{
	char dir[300], fifos[4][400], name[32], *snaps[8], path[400];
	const char *fl[4];
	int rc, nf = 0, i, status;
	pid_t w;

	if (src[0] == '-')
		return run("/nonexistent", argv, out, err, 0);
	if (strncmp(src, "feed:", 5)) {
		snprintf(dir, sizeof(dir), "%s/%s", golden, src);
		return run(dir, argv, out, err, 0);
	}
	snprintf(dir, sizeof(dir), "%s/feed", tmp);
	mkdir(dir, 0755);
	for (const char *p = src + 5; *p && nf < 4; nf++) {
		size_t l = strcspn(p, ",");

		snprintf(name, sizeof(name), "%.*s", (int)l, p);
		snprintf(fifos[nf], sizeof(fifos[nf]), "%s/%s", dir, name);
		unlink(fifos[nf]);
		if (mkfifo(fifos[nf], 0600))
			return -errno;
		fl[nf] = fifos[nf];
		for (i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/in/%c/%s", golden,
				 "ab"[i], name);
			snaps[i * 4 + nf] = slurp(path);
		}
		p += l + (p[l] == ',');
	}
	/* feed_fifos takes them in turn: a's files, then b's. */
	for (i = 0; i < nf; i++)
		snaps[nf + i] = snaps[4 + i];
	w = feed_fifos(fl, nf, snaps, 2 * nf);
	rc = run(dir, argv, out, err, 0);
	waitpid(w, &status, 0);
	for (i = 0; i < 2 * nf; i++)
		free(snaps[i]);
	for (i = 0; i < nf; i++)
		unlink(fifos[i]);
	return rc;
}

/* One line of golden/cases: NAME SOURCE ARG... (spaces part them). */
static void one_case(char *line)
{
	const char *argv[32];
	char *name, *src, *tok, *save = NULL, *out, *err, *seen, *want;
	char path[400];
	size_t len;
	int n = 0, rc;
	FILE *m;

	name = strtok_r(line, " \t", &save);
	src = strtok_r(NULL, " \t", &save);
	if (!name || !src)
		return;
	while ((tok = strtok_r(NULL, " \t", &save)) != NULL && n < 31)
		argv[n++] = tok;
	argv[n] = NULL;
	rc = run_case(src, argv, &out, &err);
	if (strcmp(src, "-clock") == 0) {
		mask_ts(out);
	} else if (strcmp(src, "-")) {
		cut_loadavg(out);
		mask_ts(out);
	}
	m = open_memstream(&seen, &len);
	fprintf(m, "%s-- stderr\n%s-- exit %d\n", out, err, rc);
	fclose(m);
	snprintf(path, sizeof(path), "%s/out/%s", golden, name);
	if (writing) {
		put(path, seen);
		ok(1, "golden %s: written", name);
	} else {
		want = slurp(path);
		is_str(seen, want, "golden %s: %s %s... prints what 0.1.0 "
		       "printed", name, src, argv[0] ? argv[0] : "");
		free(want);
	}
	free(seen);
	free(out);
	free(err);
}

static void test_cases(void)
{
	char path[400], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cases", golden);
	f = fopen(path, "r");
	if (!ok(f != NULL, "golden/cases opens")) {
		printf("#   %s: %s\n", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] && line[0] != '#')
			one_case(line);
	}
	fclose(f);
}

/* The first line of @s (static; "" for none). */
static const char *first_line(const char *s)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(s ? s : "", "\n"),
		 s ? s : "");
	return buf;
}

/*
 * @seen, a file written today, against @frozen of the same version; if
 * its version line differs, golden/ must hold files of the new version
 * (in @dir_of_version, "%s" the version's number).
 */
static void same_or_bumped(const char *what, const char *seen,
			   const char *frozen, const char *dir_of_version)
{
	char v[64], want_v[64], path[400], *sp;
	struct stat st;

	/* Copies: first_line()'s buffer is one for both. */
	snprintf(v, sizeof(v), "%s", first_line(seen));
	sp = strrchr(v, ' ');
	snprintf(want_v, sizeof(want_v), "%s", first_line(frozen));
	if (strcmp(v, want_v)) {
		snprintf(path, sizeof(path), "%s/", golden);
		snprintf(path + strlen(path), sizeof(path) - strlen(path),
			 dir_of_version, sp ? sp + 1 : v);
		ok(stat(path, &st) == 0, "%s: a new version (%s, was %s) has "
		   "its golden files (%s)", what, v, want_v, path);
		return;
	}
	is_str(seen, frozen, "%s: written as the frozen %s (the same "
	       "version line means the same format; a change bumps it)",
	       what, want_v);
}

/* A directory in tmp with in/a's files @files (space separated). */
static void part_dir(char *dir, size_t len, const char *name,
		     const char *files)
{
	char path[400], f[32], *src;
	const char *p = files;
	int n;

	snprintf(dir, len, "%s/%s", tmp, name);
	mkdir(dir, 0755);
	while (sscanf(p, "%31s%n", f, &n) == 1) {
		snprintf(path, sizeof(path), "%s/in/a/%s", golden, f);
		src = slurp(path);
		snprintf(path, sizeof(path), "%s/%s", dir, f);
		put(path, src);
		free(src);
		p += n;
	}
}

static void test_capture_format(void)
{
	/* Each version from what it carries beyond the rows. */
	static const struct {
		const char *ver, *files, *what;
	} v[] = {
		{ "1", "all", "capture without hist" },
		{ "2", "all hist", "capture with hist" },
		{ "3", "all hist wakers", "capture with hist and wakers" },
	};
	char dir[300], path[400], *out, *err, *frozen;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		part_dir(dir, sizeof(dir), v[i].ver, v[i].files);
		rc = run(dir, (const char *[]){ "--save", "-", NULL }, &out,
			 &err, 0);
		is_long(rc, 0, "capture %s: --save - exits 0", v[i].ver);
		snprintf(path, sizeof(path), "%s/capture-%s/a", golden,
			 v[i].ver);
		frozen = slurp(path);
		mask_lines(out, "wall ");
		mask_lines(frozen, "wall ");
		same_or_bumped(v[i].what, out, frozen, "capture-%s");
		free(frozen);
		free(out);
		free(err);
	}
}

/* Every block's text of the recording in @dir, in order ("" if none). */
static char *blocks_text(const char *dir)
{
	char cmd[500], path[600], name[64], *text, *first = NULL;
	size_t tlen;
	FILE *ls, *m = open_memstream(&text, &tlen);

	snprintf(cmd, sizeof(cmd), "ls %s | grep '^tsa-.*\\.rec$' | sort",
		 dir);
	ls = popen(cmd, "r");
	while (ls && fgets(name, sizeof(name), ls)) {
		unsigned char *d;
		struct stat st;
		size_t len, pos;

		name[strcspn(name, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		d = (unsigned char *)slurp(path);
		len = stat(path, &st) ? 0 : (size_t)st.st_size;
		/* The file's version line, once: the blocks follow it. */
		pos = strcspn((char *)d, "\n") + 1;
		if (!first) {
			first = strndup((char *)d, pos);
			fputs(first, m);
		}
		while (pos + 20 <= len) {
			uint32_t z = d[pos + 4] | d[pos + 5] << 8 |
				     d[pos + 6] << 16 | (uint32_t)d[pos + 7] << 24;
			uint32_t r = d[pos + 8] | d[pos + 9] << 8 |
				     d[pos + 10] << 16 | (uint32_t)d[pos + 11] << 24;
			char *raw = malloc(r + 1);

			if (pos + 20 + z > len ||
			    ZSTD_decompress(raw, r, d + pos + 20, z) != r) {
				fprintf(m, "(a damaged block at %zu)\n", pos);
				free(raw);
				break;
			}
			raw[r] = '\0';
			fputs(raw, m);
			free(raw);
			pos += 20 + z;
		}
		free(d);
	}
	if (ls)
		pclose(ls);
	free(first);
	fclose(m);
	return text;
}

/*
 * A recording written today of @in's @nin inputs (their files @files,
 * through FIFOs, one read each, in the order the recorder reads them)
 * is the frozen one in @frozen_dir, or carries a new version line.
 */
static void record_same(const char *what, const char *frozen_dir,
			const char *const *in, int nin,
			const char *const *files, int nf)
{
	char dir[300], fifos[4][400], rec[400], *snaps[12], *out, *err,
	     *seen, *frozen, count[8];
	const char *fl[4];
	int i, k, rc, status;
	pid_t w;

	snprintf(dir, sizeof(dir), "%s/feed-%s", tmp, frozen_dir);
	mkdir(dir, 0755);
	for (k = 0; k < nf; k++) {
		snprintf(fifos[k], sizeof(fifos[k]), "%s/%s", dir, files[k]);
		if (mkfifo(fifos[k], 0600)) {
			skip("mkfifo: %s", strerror(errno));
			return;
		}
		fl[k] = fifos[k];
	}
	/* feed_fifos takes them in turn: the first input's files, ... */
	for (i = 0; i < nin; i++)
		for (k = 0; k < nf; k++) {
			char p[400];

			snprintf(p, sizeof(p), "%s/in/%s/%s", golden, in[i],
				 files[k]);
			snaps[i * nf + k] = slurp(p);
		}
	snprintf(rec, sizeof(rec), "%s/rec-%s", tmp, frozen_dir);
	snprintf(count, sizeof(count), "%d", nin);
	w = feed_fifos(fl, nf, snaps, nin * nf);
	rc = run(dir, (const char *[]){ "--record", rec, "--interval", "0.1",
		 count, NULL }, &out, &err, 0);
	waitpid(w, &status, 0);
	is_long(rc, 0, "%s: --record of in/%s..%s exits 0", what, in[0],
		in[nin - 1]);
	if (getenv("TSA_GOLDEN_WRITE") && !strcmp(frozen_dir, "record-2")) {
		char cmd[1200];

		/* The frozen files of this version, written once. */
		snprintf(cmd, sizeof(cmd), "test -d %s/%s || cp -r %s %s/%s",
			 golden, frozen_dir, rec, golden, frozen_dir);
		if (system(cmd))
			exit(2);
	}
	seen = blocks_text(rec);
	snprintf(dir, sizeof(dir), "%s/%s", golden, frozen_dir);
	frozen = blocks_text(dir);
	mask_lines(seen, "wall ");
	mask_lines(frozen, "wall ");
	mask_lines(seen, "loadavg ");
	mask_lines(frozen, "loadavg ");
	same_or_bumped(what, seen, frozen, "record-%s");
	for (i = 0; i < nin * nf; i++)
		free(snaps[i]);
	free(seen);
	free(frozen);
	free(out);
	free(err);
}

static void test_record_format(void)
{
	static const char *const x[3] = { "x1", "x2", "x3" };
	static const char *const abc[3] = { "a", "b", "c" };
	static const char *const all[] = { "all" };
	static const char *const all_wakers[] = { "all", "wakers" };
	static const char *const four[] = { "all", "calls", "wakers",
					    "hist" };

	record_same("recording", "record-1", x, 3, all, 1);
	/* The wakers' lines (w...) came later within tsa-record 1. */
	record_same("recording with wakers", "record-wakers", abc, 3,
		    all_wakers, 2);
	/* tsa-record 2: the distributions' LAT rows (h...) too. */
	record_same("recording with calls, wakers and LAT distributions",
		    "record-2", abc, 2, four, 4);
}

int main(void)
{
	if (fx_init())
		return 2;
	/*
	 * Cases run in golden/, so that their arguments and the paths in
	 * their messages are the same wherever the tree is.
	 */
	{
		static char bin[4096];

		if (!realpath(prstat_bin, bin) || chdir(testdir) ||
		    chdir("golden")) {
			printf("# %s or %s/golden: %s\n", prstat_bin, testdir,
			       strerror(errno));
			return 2;
		}
		prstat_bin = bin;
	}
	snprintf(golden, sizeof(golden), ".");
	if (getenv("TSA_GOLDEN_WRITE")) {
		char path[400];

		writing = 1;
		snprintf(path, sizeof(path), "%s/out", golden);
		mkdir(path, 0755);
	}
	/* The files' times print as UTC, the same on every machine. */
	setenv("TZ", "UTC", 1);
	setenv("LC_ALL", "C", 1);
	{
		char procfs[400];

		snprintf(procfs, sizeof(procfs), "%s/in/procfs", golden);
		setenv("TSA_PROCFS", procfs, 1);
	}
	test_cases();
	test_capture_format();
	test_record_format();
	return tap_done();
}
