/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/calls.h - read /proc/tsa/calls and turn two snapshots into the
 * lines of the system-call view (-y, --syscalls).
 *
 * The only part of tsa-prstat that knows the kernel's calls format
 * ("tsa-calls 1", docs/proc-format.md): one line per thread and call
 * row, with the number of calls, their time, the longest, and that
 * time split by state.  A snapshot is the whole file read into one
 * buffer and parsed in place; the lines of one thread (or of one
 * process's exited threads, tid 0) form a group.  Nothing here formats
 * output.
 */
#ifndef MODEL_CALLS_H
#define MODEL_CALLS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "all.h"

/*
 * A call row's numbers.  st[] is the time by state (USR stays 0: a
 * thread inside a call is in the kernel); rest is the part of ns in
 * columns this reader does not know (a newer module's states), so
 * that ns is always the sum of st[] and rest.
 */
struct tsa_cvec {
	uint64_t calls, ns, max;
	uint64_t st[TSA_NSTATES];
	uint64_t rest;
};

struct tsa_crow {
	uint32_t name;		/* index into the snapshot's names[] */
	struct tsa_cvec v;
};

/* The consecutive lines of one thread, or of one process's exited
 * threads (tid 0, flag TSA_F_TOTALS). */
struct tsa_cgroup {
	uint64_t tid, pid, uid, flags, elapsed, at;
	uint32_t first, n;	/* rows[first .. first + n) */
	uint32_t next;		/* next group of the pid + 1; 0 = none */
};

struct tsa_calls_snap {
	char *buf;
	size_t len, cap;
	uint64_t now;			/* the "now" line */
	uint64_t table_rows;		/* the "rows" line's first number:
					 * rows per thread (0 if absent) */
	struct timespec wall;		/* CLOCK_REALTIME at the read */
	struct tsa_crow *rows;
	size_t nrows, rows_cap;
	struct tsa_cgroup *groups;
	size_t ngroups, groups_cap;
	const char **names;		/* distinct names, in the buffer */
	size_t nnames, names_cap;
	uint32_t other;			/* "other"'s, or TSA_NONAME */
	struct tsa_index name_idx;	/* names by name */
	struct tsa_index tids;		/* live threads' groups by tid */
	struct tsa_index pids;		/* a pid's first group (its chain) */
};

#define TSA_NONAME	UINT32_MAX

/* Read and parse @path into @s (reusing its memory).  Returns a
 * tsa_err; on error, a one-line reason (without the path) in @msg.
 * TSA_ENOCALLS: the file says the module keeps no system-call rows
 * ("rows 0 ...": calls=0 or syscalls=0, the file there for traps). */
int tsa_calls_read(struct tsa_calls_snap *s, const char *path,
		   char *msg, size_t msglen);
/* Parse s->buf[0..s->len) in place and build the indexes. */
int tsa_calls_parse(struct tsa_calls_snap *s, char *msg, size_t msglen);
void tsa_calls_free(struct tsa_calls_snap *s);

/* The group of live thread @tid that started at @since (at - elapsed). */
const struct tsa_cgroup *tsa_calls_thread(const struct tsa_calls_snap *s,
					  uint64_t tid, uint64_t since);
/* The index of call @name in @s, or TSA_NONAME. */
uint32_t tsa_calls_name(const struct tsa_calls_snap *s, const char *name);

/*
 * One line of the view: a call of a thread (-L) or process, with what
 * it did over the interval.  ns of d is the sum of d.st[] and d.rest;
 * d.max is the longest as reported (since the row began, not per
 * interval).
 */
struct tsa_call_line {
	const struct tsa_delta *who;	/* the thread or process */
	const char *name;		/* points into the current snapshot */
	int other;			/* the row of calls without a row */
	struct tsa_cvec d;		/* over the interval */
	uint64_t total_calls, total_ns;	/* as the snapshot has them */
	uint64_t elapsed;		/* the thread's or process's elapsed
					 * ns over the interval, as of the
					 * calls reads: PCT's divisor */
	uint64_t at;			/* latest clock of its groups */
	double key;			/* sort key, filled by view/sort.c */
};

/*
 * The call lines of @who[0..nwho) (from tsa_delta_compute on the
 * /proc/tsa/all reads @aprev and @acur, not yet sorted: lines point at
 * them), @prev (and @aprev) NULL for the first report.  Only calls with
 * a call or time in the interval get a line.  The array is grown as
 * needed and reused.  Returns the number of lines.
 */
size_t tsa_calls_compute(const struct tsa_snap *aprev,
			 const struct tsa_snap *acur,
			 const struct tsa_calls_snap *prev,
			 const struct tsa_calls_snap *cur,
			 const struct tsa_select *sel,
			 const struct tsa_delta *who, size_t nwho,
			 struct tsa_call_line **out, size_t *cap);

#endif /* MODEL_CALLS_H */
