/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lib/parse.h - the command line's times, ages and sizes: one set of
 * rules for every option that takes one (--from, --to, DIR@TIME,
 * --keep, --max-size).
 */
#ifndef LIB_PARSE_H
#define LIB_PARSE_H

#include <time.h>

/*
 * A time of the command line: "YYYY-MM-DD HH:MM[:SS]", "YYYY-MM-DD"
 * (its midnight), "HH:MM[:SS]" (today), "-2h" (before now: s, m, h, d), or "@SECONDS" (the epoch).
 * Local time.  -1 if it is none of these.
 */
time_t parse_when(const char *s, time_t now);

/* "7d", "12h", "90m", "3600s" or "3600": seconds; -1 if not one. */
long long parse_age(const char *s);
/* "2G", "500M", "64K" (powers of 1024) or bytes; -1 if not one. */
long long parse_size(const char *s);

#endif /* LIB_PARSE_H */
