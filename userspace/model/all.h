/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/all.h - read /proc/tsa/all and turn two snapshots into deltas.
 *
 * This is the only part of tsa-prstat that knows the kernel's bulk
 * format (docs/proc-format.md, "tsa-all 1").  A snapshot is the whole
 * file read into one buffer, parsed in place into an array of rows,
 * with two hash indexes: tid -> thread row and pid -> process
 * aggregate.  Nothing here formats output.
 */
#ifndef MODEL_ALL_H
#define MODEL_ALL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "index.h"

/* The kernel's states and counters, in its order (state index = enum). */
enum tsa_state {
#define TSA_STATE(name, what)	S_##name,
#include "../../module/tsa_states.h"
	TSA_NSTATES
};

enum tsa_counter {
#define TSA_COUNTER(name, what)	C_##name,
#include "../../module/tsa_states.h"
	TSA_NCOUNTERS
};

extern const char *const tsa_state_name[TSA_NSTATES];	/* "USR" ... */
extern const char *const tsa_counter_name[TSA_NCOUNTERS]; /* "VCX" ... */

/*
 * Every numeric column this reader understands, as an index into
 * tsa_row.v[].  Per state X: F_NS + X (x_ns), F_N + X (x_n),
 * F_MAX + X (x_max).  Per counter C: F_CNT + C.
 */
enum tsa_field {
	F_TID, F_PID, F_UID, F_FLAGS, F_ELAPSED, F_STATE, F_STATE_NS,
	F_AT,		/* the clock the row is measured at ("now" if absent) */
	F_NS,
	F_N = F_NS + TSA_NSTATES,
	F_MAX = F_N + TSA_NSTATES,
	F_CNT = F_MAX + TSA_NSTATES,
	F_NUM = F_CNT + TSA_NCOUNTERS
};

/* flags column */
#define TSA_F_LOAD	1	/* tracked since module load, not birth */
#define TSA_F_TOTALS	4	/* exited-threads totals line (tid 0) */

struct tsa_row {
	uint64_t v[F_NUM];
	const char *comm;	/* points into the snapshot's buffer */
};

/* A process: its thread rows plus its exited-threads line, summed. */
struct tsa_proc {
	uint32_t nlwp;		/* thread rows (tid != 0) */
	int32_t leader;		/* row index of tid == pid, or -1 */
	struct tsa_row agg;	/* sums (x_max: the largest); tid 0 */
};

struct tsa_snap {
	char *buf;
	size_t len, cap;
	uint64_t now;			/* the "now" line */
	struct timespec wall;		/* CLOCK_REALTIME at the read */
	struct tsa_row *rows;
	size_t nrows, rows_cap;
	struct tsa_proc *procs;
	size_t nprocs, procs_cap;
	struct tsa_index tids;		/* thread rows by tid */
	struct tsa_index pids;		/* procs by pid */
	/*
	 * /proc/tsa/calibration's state when read live ("applied", "partial",
	 * "none", "off"); "" when unknown (a file, an older module).
	 */
	char calib[12];
};

enum tsa_err {
	TSA_OK = 0,
	TSA_ENOENT,	/* no such file: module not loaded */
	TSA_EACCES,	/* permission denied */
	TSA_EIO,	/* other read error */
	TSA_EFORMAT,	/* not a tsa-all file, or a malformed line */
	TSA_EVERSION,	/* a format major version we do not read */
	TSA_ENOCALLS,	/* /proc/tsa/calls has no system-call table */
};

/*
 * Read all of @path into *@buf (grown as needed, reused), NUL-terminated;
 * shared with model/calls.c, as are the two helpers after it.
 */
int tsa_read_file(const char *path, char **buf, size_t *len, size_t *cap,
		  char *msg, size_t msglen);
/*
 * Begin parsing the @len bytes at *@buf (grown to hold a NUL, *@cap) as a
 * file of @kind ("tsa-all"): its first line must name that kind and a
 * major version from 1 to *@major (the newest the caller reads), which
 * *@major is then set to.  *@p and *@end then bound the rest.  A
 * tsa_err, with the reason in @msg.
 */
int tsa_parse_begin(char **buf, size_t len, size_t *cap, const char *kind,
		    int *major, char **p, char **end, char *msg,
		    size_t msglen);
/* The line at *@p, NUL-terminated in place; *@p moves past it. */
char *tsa_next_line(char **p, char *end);
/* A decimal number at *@pp; *@pp moves past it.  -1 if none or too big. */
int tsa_parse_u64(const char **pp, uint64_t *v);
int tsa_parse_fields(char *list, int *colmap, int max,
		     int (*index)(const char *name, size_t len), int *have,
		     char *msg, size_t msglen);
/*
 * The header lines after a file's first, up to and with "fields ...":
 * "now N" into *@now, any other line to @other(@ctx, LINE, LINENO, ...)
 * when not NULL (a tsa_err, with the reason in @msg), and the fields'
 * columns into @colmap (at most @max) by @index, @have set for each
 * known.  *@lineno counts the lines read.  The columns, or -1 with the
 * reason in @msg.
 */
int tsa_parse_header(char **p, char *end, size_t *lineno, uint64_t *now,
		     int (*other)(void *ctx, const char *line, size_t lineno,
				  char *msg, size_t msglen), void *ctx,
		     int *colmap, int max,
		     int (*index)(const char *name, size_t len), int *have,
		     char *msg, size_t msglen);
/*
 * Decode a comm the module wrote with \ooo escapes, in place; shared
 * with store/capture.c, whose captures escape it the same way.
 */
void tsa_comm_unescape(char *s);
/*
 * The state whose name, in lower case, is @name's first three bytes
 * ("usr_ns": S_USR), or -1: per-state columns of both files are so named.
 */
int tsa_state_prefix(const char *name);
/* Is @pid among @pids (every pid is when @npids is 0)?  -p's rule. */
int tsa_pid_selected(const uint64_t *pids, size_t npids, uint64_t pid);

/* Read and parse @path into @s (reusing its memory).  On error, a
 * one-line reason (without the path) is left in @msg. */
int tsa_snap_read(struct tsa_snap *s, const char *path,
		  char *msg, size_t msglen);
/* Parse s->buf[0..s->len) in place and build the indexes. */
int tsa_snap_parse(struct tsa_snap *s, char *msg, size_t msglen);
void tsa_snap_free(struct tsa_snap *s);

/* When the row's thread began to be measured (at - elapsed): tells a
 * thread, or a process by its first thread, from a later one that
 * reused its id. */
uint64_t tsa_row_since(const struct tsa_row *r);

/* @r (later) is the thread @p (earlier) was, not one that reused its
 * tid; @p may be NULL. */
int tsa_same_thread(const struct tsa_row *p, const struct tsa_row *r);

const struct tsa_row *tsa_snap_thread(const struct tsa_snap *s, uint64_t tid);
const struct tsa_proc *tsa_snap_proc(const struct tsa_snap *s, uint64_t pid);
/*
 * The name @s has for thread @tid of process @pid (tid 0: the process's),
 * control bytes as '?', into @out: "-" when @s has no such thread.
 */
void tsa_snap_comm(const struct tsa_snap *s, uint64_t pid, uint64_t tid,
		   char *out, size_t len);
/*
 * The one rule every view names a thread by (tid 0: its process): from
 * @cur, this report's read of /proc/tsa/all (or a capture's, a
 * recording's), else from @prev, the read before it (a thread that
 * exited since keeps its name), else "-".  Either may be NULL.
 */
void tsa_thread_name(const struct tsa_snap *cur, const struct tsa_snap *prev,
		     uint64_t pid, uint64_t tid, char *out, size_t len);

/*
 * One line of a report: a thread (-L) or a process, with what happened
 * to it between the previous snapshot and this one.
 */
struct tsa_delta {
	uint64_t pid;
	uint64_t id;		/* tid with -L, else number of threads */
	uint64_t uid;
	const char *comm;
	int first;		/* no earlier sample: lifetime values */
	uint64_t elapsed;	/* its own elapsed ns over the interval */
	uint64_t ns[TSA_NSTATES];	/* ns per state over the interval */
	uint64_t cnt[TSA_NCOUNTERS];	/* counter increments */
	uint64_t shown[TSA_NCOUNTERS];	/* what the table shows (see below) */
	const struct tsa_row *now;	/* lifetime numbers at this snapshot */
	double key;			/* sort key, filled by view/sort.c */
};

struct tsa_totals {
	unsigned long nprocs, nlwps;
	/*
	 * The module's calibration state when it is not "applied" (SYS
	 * misses the kernel's entry and exit paths); NULL when it is, or
	 * when nobody knows (a file). The Total line says it.
	 */
	const char *calib;
};

struct tsa_select {
	int lwps;		/* one line per thread */
	double interval;	/* seconds, to scale first-report counts */
	const uint64_t *pids;	/* only these processes, if npids > 0 */
	size_t npids;
};

/*
 * Compute one report's lines.  @prev is NULL for the first report.
 * The result array is grown as needed and reused across calls.
 * Returns the number of lines.
 */
size_t tsa_delta_compute(const struct tsa_snap *prev,
			 const struct tsa_snap *cur,
			 const struct tsa_select *sel,
			 struct tsa_delta **out, size_t *cap,
			 struct tsa_totals *tot);

/*
 * Writing the format, the one place it is written: the head ("tsa-all
 * 1", "now", "states", "fields") and the rows of a snapshot in one of
 * two layouts: every column the reader knows (the recorder's), or those
 * a compare needs (a capture's: no state, x_n, x_max).  Names escaped
 * as the kernel escapes them.
 */
enum tsa_layout {
	TSA_LAYOUT_FULL,
	TSA_LAYOUT_COMPARE,
};

void tsa_write_head(FILE *f, uint64_t now, enum tsa_layout l);
void tsa_write_row(FILE *f, const struct tsa_row *r, enum tsa_layout l);

#endif /* MODEL_ALL_H */
