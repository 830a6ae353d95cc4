/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/hist.h - read /proc/tsa/hist (the module's hist=1) and turn two
 * snapshots into the lines of the distributions view (-H, --hist).
 *
 * The only part of tsa-prstat that knows the kernel's "tsa-hist" format
 * (docs/proc-format.md): one line per state of each thread and of each
 * process's exited threads, with its entries, time, longest stay and
 * when that ended, and for the off-CPU states the stay in progress
 * (open) and the counts of the ended stays in log2 buckets.  Counts only
 * grow, so a view over an interval is the difference of two snapshots.
 * Version 2's bucket bounds are powers of two of a second, each within
 * its bucket; version 1's (older modules, and captures made with them)
 * powers of two of a nanosecond, each above its bucket.  Nothing here
 * formats output.
 */
#ifndef MODEL_HIST_H
#define MODEL_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "all.h"

#define TSA_HIST_NB	28	/* buckets this reader knows */

/* A line's state: a system call's ("syscall:NAME"), named by call. */
#define TSA_HIST_CALL	(-2)

struct tsa_hline {
	uint64_t tid, pid, uid, flags, elapsed, at;
	int state;		/* or TSA_HIST_CALL */
	const char *call;	/* its name, call_len bytes in the buffer */
	int call_len;
	uint64_t n, ns, max, max_at;
	int has_b;		/* an off-CPU state: open and buckets */
	int open;		/* a stay in progress, in no bucket yet */
	uint64_t open_ns;
	uint64_t b[TSA_HIST_NB];
};

/*
 * Where the buckets end: bucket b (but the last, which has no end) holds
 * the stays of at most 2^(b + exp) s (tsa-hist 2), or, with @ns, of
 * under 2^(b + exp) ns (tsa-hist 1).
 */
struct tsa_hbounds {
	int exp;
	int ns;
};

struct tsa_hist_snap {
	char *buf;
	size_t len, cap;
	uint64_t now;			/* the "now" line */
	struct tsa_hbounds bounds;	/* the "buckets" line */
	int buckets_seen;		/* the parse met its "buckets" line */
	struct tsa_hline *l;
	size_t n, lcap;
};

/* Read and parse @path into @s (reusing its memory).  Returns a
 * tsa_err; on error, a one-line reason (without the path) in @msg. */
int tsa_hist_read(struct tsa_hist_snap *s, const char *path,
		  char *msg, size_t msglen);
/* Parse s->buf[0..s->len) in place. */
int tsa_hist_parse(struct tsa_hist_snap *s, char *msg, size_t msglen);
void tsa_hist_free(struct tsa_hist_snap *s);

/* The upper edge of bucket @b, in whole ns (floor); UINT64_MAX for the
 * last. */
uint64_t tsa_hist_edge(struct tsa_hbounds k, int b);
/* Do two snapshots' buckets have the same bounds (may one be taken from
 * the other)? */
int tsa_hist_same_bounds(const struct tsa_hist_snap *a,
			 const struct tsa_hist_snap *b);

/*
 * One state of a thread (-L) or a process over the interval (or its
 * lifetime, in a first report): the stays that ended in it, by bucket,
 * its time in the state, and its longest stay, which is exact when it
 * ended in the interval (or is the one in progress) and otherwise only
 * bounded by the buckets (max_exact 0).
 */
struct tsa_hview {
	uint64_t pid, tid;		/* tid 0: a process */
	uint64_t uid;			/* of its first line */
	size_t group;			/* a group's index + 1; 0: none */
	int state;			/* or TSA_HIST_CALL: */
	const char *call;		/* its name (in the snapshot's buffer) */
	int call_len;
	int first;			/* no earlier sample: lifetime */
	uint64_t count;			/* stays that ended */
	uint64_t ns;			/* time in the state */
	uint64_t b[TSA_HIST_NB];
	uint64_t max;
	int max_exact;
	uint64_t open;			/* stays in progress at the end */
	uint64_t who_wait;		/* the thread's or process's time in
					 * the states shown but IDL, SLP and
					 * STP (waits for a resource) */
	uint64_t who_ns;		/* ... and in all of them */
};

/* What a view line is of: tsa_hist_compute()'s @lwps. */
enum tsa_hist_by {
	TSA_HIST_PROCS,		/* a process: its threads, live or exited */
	TSA_HIST_THREADS,	/* a live thread (-L) */
	TSA_HIST_PARTS,		/* a live thread, or the exited threads of a
				 * process (tid 0): what groups are made of */
};

/*
 * The view lines of @cur against @prev (NULL, or buckets with other
 * bounds (tsa_hist_same_bounds()): lifetime), one per state a
 * thread or process (enum tsa_hist_by @lwps) of @pids (all if @npids is
 * 0) had a stay end in, grouped by thread or process: those that waited
 * longest for a resource (a CPU, a lock, I/O, memory: who_wait) first,
 * then by all their time in the states shown; in each, the state's time.
 * The array is grown as needed and reused.  Returns the number of lines.
 */
size_t tsa_hist_compute(const struct tsa_hist_snap *prev,
			const struct tsa_hist_snap *cur, int lwps,
			const uint64_t *pids, size_t npids,
			struct tsa_hview **out, size_t *cap);

/* Order two calls' lines by name. */
int view_call_cmp(const struct tsa_hview *x, const struct tsa_hview *y);

/* Sort @n lines as tsa_hist_compute() does (groups by their index). */
void tsa_hist_sort(struct tsa_hview *v, size_t n);

/*
 * Fold view line @x into @acc, a group's line for the same state: the
 * counts and time add; the longest is the larger, exact only if the
 * larger is (a bound from one member can hide an exact one's).
 */
void tsa_hist_fold(struct tsa_hview *acc, const struct tsa_hview *x);

/* Where the @q-th part (0..1) of @v's stays lies: the upper edge of its
 * bucket, never above the longest stay; 0 with no stay. */
uint64_t tsa_hist_quantile(const struct tsa_hview *v, struct tsa_hbounds k,
			   double q);

#endif /* MODEL_HIST_H */
