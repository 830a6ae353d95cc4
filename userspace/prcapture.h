/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prcapture.h - captures (--save FILE) and their comparison
 * (--compare A B): one snapshot of every visible thread and process,
 * with each process's cgroup, in a file (format "tsa-capture 1",
 * documented in tsa-prstat(8)).
 */
#ifndef PRCAPTURE_H
#define PRCAPTURE_H

#include <stdio.h>

#include "prgroup.h"
#include "show.h"
#include "tsaall.h"
#include "tsahist.h"

struct capture {
	struct tsa_snap snap;		/* its threads and processes */
	struct cgroup_cache cc;		/* its processes' cgroups */
	char boot_id[64];		/* "" when the capture has none */
	struct timespec wall;		/* when it was taken */
	int has_hist;			/* a version 2 capture: */
	struct tsa_hist_snap hist;	/* /proc/tsa/hist, read right after */
};

/*
 * Write @s as a capture to @f: the cgroup of each process (read from
 * @procfs) and the rows, with the columns a compare needs; with @hist
 * (@hist_len bytes of /proc/tsa/hist, the module's hist=1), a version
 * 2 capture that carries it.  Returns 0, or -1 on a write error (errno
 * set).
 */
int capture_write(FILE *f, const struct tsa_snap *s, const char *procfs,
		  const char *hist, size_t hist_len);

/*
 * Read the capture @path into @c.  On error: TSA_ENOENT, TSA_EACCES,
 * TSA_EIO (unreadable), TSA_EFORMAT (not a capture, damaged: its size
 * or checksum disagree, or a malformed line) or TSA_EVERSION, with a
 * one-line reason in @msg.
 */
int capture_read(struct capture *c, const char *path, char *msg,
		 size_t msglen);
void capture_free(struct capture *c);

/* What a compare could not match: threads in one capture only. */
struct compare_sum {
	unsigned long only_a;	/* live in A, not in B: exited */
	unsigned long gone;	/* processes of A not in B at all */
	unsigned long only_b;	/* live in B, not in A: new since */
};

/* @t as a compare's header shows it: "2026-11-27T18:00:00Z". */
void capture_wall(char *out, size_t len, const struct timespec *t);

void compare_count(const struct tsa_snap *a, const struct tsa_snap *b,
		   struct compare_sum *sum);

/* The compare report: groups of @r (B against A), then the summary. */
void compare_print(FILE *f, const struct show *o, enum group_by by,
		   const struct capture *a, const struct capture *b,
		   const struct group_report *r, size_t n,
		   const struct tsa_totals *tot,
		   const struct compare_sum *sum);

#endif /* PRCAPTURE_H */
