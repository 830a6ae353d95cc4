// SPDX-License-Identifier: GPL-2.0
/*
 * lib/util.c - formatting helpers and small utilities.
 */
#include <errno.h>
#include <stdarg.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *progname = "tsa-prstat";

void die(int code, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	/* A usage error: one line, then where the usage is (as GNU tools). */
	if (code == EXIT_USAGE)
		fprintf(stderr, "Try '%s --help' for more information.\n",
			progname);
	exit(code);
}

void warnmsg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die(EXIT_BADDATA, "out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

void *xmalloc(size_t n)
{
	return xrealloc(NULL, n);
}

void format_pct(char out[4], float val)
{
	if (val > 100.0f)
		val = 100.0f;
	if (val < 0.0f || val != val)
		val = 0.0f;
	if (val < 9.95f)
		snprintf(out, 4, "%1.1f", (double)val);
	else
		snprintf(out, 4, "%.0f", (double)val);
}

void format_num(char out[5], uint64_t num)
{
	static const char unit[] = "KMGTPE";
	double x = (double)num;
	int u;

	if (num < 10000) {
		snprintf(out, 5, "%4llu", (unsigned long long)num);
		return;
	}
	/* UINT64_MAX is 18.4E: a unit is always found. */
	for (u = 0; u < 6; u++) {
		x /= 1000;
		if (x < 9.95) {
			snprintf(out, 5, "%3.1f%c", x, unit[u]);
			return;
		}
		if (x < 999.5) {
			snprintf(out, 5, "%3.0f%c", x, unit[u]);
			return;
		}
	}
	snprintf(out, 5, "%3.0f%c", x * 1000, unit[5]);
}

void format_count(char out[24], uint64_t num)
{
	static const char unit[] = "KMGTPE";
	int u = -1;

	if (num >= 100000) {
		do {
			num /= 1000;
			u++;
		} while (num >= 10000 && u < 5);
	}
	if (u < 0)
		snprintf(out, 24, "%llu", (unsigned long long)num);
	else
		snprintf(out, 24, "%llu%c", (unsigned long long)num, unit[u]);
}

void format_dur(char out[24], uint64_t ns)
{
	static const struct { uint64_t div; const char *name; } unit[] = {
		{ 1, "ns" }, { 1000, "us" }, { 1000000, "ms" },
		{ 1000000000, "s" },
	};
	unsigned long long whole, frac;
	int u = 0;

	while (u < 3 && ns >= unit[u + 1].div)
		u++;
	whole = ns / unit[u].div;
	frac = ns % unit[u].div;
	if (u == 0 || whole >= 100)
		snprintf(out, 24, "%llu%s", whole, unit[u].name);
	else if (whole >= 10)
		snprintf(out, 24, "%llu.%01llu%s", whole,
			 frac * 10 / unit[u].div, unit[u].name);
	else
		snprintf(out, 24, "%llu.%02llu%s", whole,
			 frac * 100 / unit[u].div, unit[u].name);
}

void format_cut(char *out, size_t len, const char *name, size_t width,
		int trunc)
{
	if (trunc && width > 1 && strlen(name) > width)
		snprintf(out, len, "%.*s*", (int)(width - 1), name);
	else
		snprintf(out, len, "%s", name);
}

void format_user(char *out, size_t len, const char *name, int trunc)
{
	format_cut(out, len, name, 8, trunc);
}

void strip_comm(char *out, size_t len, const char *comm)
{
	size_t o = 0;

	for (; *comm && o + 1 < len; comm++) {
		unsigned char c = (unsigned char)*comm;

		if (c < 0x20 || c == 0x7f)
			continue;
		out[o++] = (char)c;
	}
	out[o] = '\0';
}

int utf8_len(const unsigned char *s)
{
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0 && s[0] >= 0xc2)
		n = 2;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3;
	else if ((s[0] & 0xf8) == 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms, UTF-16 surrogates, above U+10FFFF: not UTF-8
	 * (Go's decoder, promtool's, rejects them too). */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

uint32_t crc32_buf(const void *buf, size_t n)
{
	static uint32_t table[256];
	const unsigned char *p = buf;
	uint32_t c = 0xffffffffu;
	size_t i;
	int k;

	if (!table[1])
		for (i = 0; i < 256; i++) {
			uint32_t v = (uint32_t)i;

			for (k = 0; k < 8; k++)
				v = v & 1 ? 0xedb88320u ^ (v >> 1) : v >> 1;
			table[i] = v;
		}
	for (i = 0; i < n; i++)
		c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

void fput_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
}

void read_loadavg(double la[3])
{
	FILE *f = fopen("/proc/loadavg", "re");

	la[0] = la[1] = la[2] = 0;
	if (!f)
		return;
	if (fscanf(f, "%lf %lf %lf", &la[0], &la[1], &la[2]) != 3)
		la[0] = la[1] = la[2] = 0;
	fclose(f);
}

int parse_pidlist(const char *arg, uint64_t **pids, size_t *n, char *bad,
		  size_t badlen)
{
	char *copy = xstrdup(arg), *tok, *save = NULL, *end;
	int rc = 0;
	long v;

	tok = strtok_r(copy, ", ", &save);
	if (!tok) {
		snprintf(bad, badlen, "%s", arg);
		rc = -1;
	}
	for (; tok && !rc; tok = strtok_r(NULL, ", ", &save)) {
		errno = 0;
		v = strtol(tok, &end, 10);
		if (errno || end == tok || *end || v < 1) {
			snprintf(bad, badlen, "%s", tok);
			rc = -1;
			break;
		}
		*pids = xrealloc(*pids, (*n + 1) * sizeof(**pids));
		(*pids)[(*n)++] = (uint64_t)v;
	}
	free(copy);
	return rc;
}

int read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok = f && fgets(out, (int)len, f);

	if (f)
		fclose(f);
	if (!ok) {
		out[0] = '\0';
		return -1;
	}
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

void read_boot_id(char *out, size_t len, const char *procfs)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/sys/kernel/random/boot_id", procfs);
	read_line(path, out, len);
}

void next_deadline(struct timespec *deadline, double interval)
{
	struct timespec now;
	long long ns = (long long)(interval * 1e9);

	deadline->tv_sec += ns / 1000000000;
	deadline->tv_nsec += ns % 1000000000;
	if (deadline->tv_nsec >= 1000000000) {
		deadline->tv_sec++;
		deadline->tv_nsec -= 1000000000;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > deadline->tv_sec ||
	    (now.tv_sec == deadline->tv_sec &&
	     now.tv_nsec > deadline->tv_nsec))
		*deadline = now;	/* running late: do not catch up */
}
