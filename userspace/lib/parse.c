// SPDX-License-Identifier: GPL-2.0
/*
 * lib/parse.c - the command line's times, ages and sizes (lib/parse.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parse.h"

time_t parse_when(const char *s, time_t now)
{
	int y, mo, d, h, mi, n = 0;
	struct tm tm;
	char *end;
	long long v;

	if (s[0] == '@') {
		errno = 0;
		v = strtoll(s + 1, &end, 10);
		return errno || end == s + 1 || *end || v < 0 ? -1 : (time_t)v;
	}
	if (s[0] == '-') {
		v = parse_age(s + 1);
		return v < 0 || v > now ? -1 : now - (time_t)v;
	}
	localtime_r(&now, &tm);
	tm.tm_sec = 0;
	if (sscanf(s, "%d-%d-%d%n", &y, &mo, &d, &n) == 3 && !s[n]) {
		/* A date alone: its midnight, as date -d 2030-01-01. */
		h = mi = 0;
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
	} else if (sscanf(s, "%d-%d-%d %d:%d%n", &y, &mo, &d, &h, &mi,
			  &n) == 5) {
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
	} else if (sscanf(s, "%d:%d%n", &h, &mi, &n) != 2) {
		return -1;
	}
	tm.tm_hour = h;
	tm.tm_min = mi;
	if (s[n] == ':') {
		int n2 = 0;

		if (sscanf(s + n, ":%d%n", &tm.tm_sec, &n2) != 1)
			return -1;
		n += n2;
	}
	if (s[n] || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60 ||
	    tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31)
		return -1;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

static long long scaled(const char *s, const char *units,
			const long long *mult)
{
	char *end;
	long long v;
	const char *u;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || v < 0)
		return -1;
	if (!*end)
		return v;
	u = strchr(units, *end);
	if (!u || end[1] || v > INT64_MAX / mult[u - units])
		return -1;
	return v * mult[u - units];
}

long long parse_age(const char *s)
{
	static const long long mult[] = { 1, 60, 3600, 86400, 604800 };

	return scaled(s, "smhdw", mult);
}

long long parse_size(const char *s)
{
	static const long long mult[] = { 1024, 1LL << 20, 1LL << 30,
					  1LL << 40 };

	return scaled(s, "KMGT", mult);
}
