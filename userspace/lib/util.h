/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lib/util.h - formatting helpers and small utilities (after illumos
 * prstat's lib/util.c): percentages and counts in three characters,
 * user names, process names, memory and error helpers.
 */
#ifndef LIB_UTIL_H
#define LIB_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

extern const char *progname;

/* Exit codes (documented in tsa-prstat(8)). */
#define EXIT_USAGE	1
#define EXIT_NOMODULE	2
#define EXIT_ACCESS	3
#define EXIT_NOPID	4
#define EXIT_BADDATA	5

void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void warnmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/*
 * Solaris prstat's Format_pct: clamp to 0..100, one decimal below
 * 9.95, else an integer; at most 3 characters ("0.0", "9.9", "10",
 * "100").  @out must hold 4 bytes.
 */
void format_pct(char out[4], float val);

/*
 * A count in four characters, never a fraction of a unit: the number
 * below 10000, else in thousands, millions, ... with a K, M, G, T, P or
 * E, rounded to one decimal below 9.95 of them ("4.4M"), else to a
 * whole number ("43M", "999K"; 999500 is "1.0M").  Solaris prstat's
 * Format_num put ".NM" into three characters, so 4365500 read ".43".
 * @out must hold 5 bytes.
 */
void format_num(char out[5], uint64_t num);

/*
 * A count in at most five characters: the number below 100000, else
 * in thousands, millions, ... below 10000 of them, with a K, M, G, T,
 * P or E (truncated: 123456 is "123K", 12345678 is "12M").  @out must
 * hold 24 bytes.
 */
void format_count(char out[24], uint64_t num);

/*
 * A duration in nanoseconds in at most six characters, three digits
 * and a unit, truncated: "999ns", "1.50us", "12.3ms", "450ms", "2.00s";
 * from 1000 s on, whole seconds ("3600s").  @out must hold 24 bytes.
 */
void format_dur(char out[24], uint64_t ns);

/* User name for @uid, cached; the number when there is no name. */
const char *user_name(uid_t uid);

/*
 * Append the uids of @arg (user names or numbers, comma or space
 * separated) to *@uids, *@n of them; 0, or -1 with the word that is
 * neither in @bad (prstat's -u and -U lists).
 */
int parse_userlist(const char *arg, uint64_t **uids, size_t *n, char *bad,
		   size_t badlen);

/*
 * Fit @name into the 8-column USERNAME field: when @trunc and it is
 * longer than 8, its first 7 characters and '*' (as prstat does on a
 * terminal or with -W); otherwise unchanged.
 */
void format_user(char *out, size_t len, const char *name, int trunc);

/* The same for a field of @width columns: @width - 1 characters and '*'. */
void format_cut(char *out, size_t len, const char *name, size_t width,
		int trunc);

/* Copy @comm without unprintable characters (prstat's stripfname). */
void strip_comm(char *out, size_t len, const char *comm);

/*
 * The length of the UTF-8 sequence at @s (1 for ASCII, 2 to 4), or 0
 * when it is not valid UTF-8 (shared by the JSON and metrics writers).
 */
int utf8_len(const unsigned char *s);

/* CRC-32 (IEEE 802.3, as zlib's) of @n bytes: captures and recordings. */
uint32_t crc32_buf(const void *buf, size_t n);

/* @s as the kernel writes comm: \ooo for control bytes, DEL and \. */
void fput_escaped(FILE *f, const char *s);

/* The load averages of /proc/loadavg (0 0 0 if unreadable). */
void read_loadavg(double la[3]);

/*
 * Append the process ids of @arg (comma or space separated, each a
 * decimal above 0) to *@pids, *@n of them; 0, or -1 with the word that
 * is not one (@arg itself when it has none) in @bad.
 */
int parse_pidlist(const char *arg, uint64_t **pids, size_t *n, char *bad,
		  size_t badlen);

/* The first line of @path without its newline; -1 and "" if unreadable. */
int read_line(const char *path, char *out, size_t len);

/* @procfs/sys/kernel/random/boot_id, or "" (captures, recordings). */
void read_boot_id(char *out, size_t len, const char *procfs);

struct timespec;
/*
 * The next report's time (CLOCK_MONOTONIC), @interval seconds after
 * the last; one that is late already is now (no catching up).
 */
void next_deadline(struct timespec *deadline, double interval);

#endif /* LIB_UTIL_H */
