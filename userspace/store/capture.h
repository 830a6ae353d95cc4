/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store/capture.h - captures (--save FILE), which --compare A B reads:
 * one snapshot of every visible thread and process,
 * with each process's cgroup, in a file (format "tsa-capture 3",
 * documented in tsa-prstat(8)).
 */
#ifndef STORE_CAPTURE_H
#define STORE_CAPTURE_H

#include <stdio.h>

#include "group.h"
#include "all.h"
#include "hist.h"
#include "wakers.h"

struct capture {
	struct tsa_snap snap;		/* its threads and processes */
	struct cgroup_cache cc;		/* its processes' cgroups */
	char boot_id[64];		/* "" when the capture has none */
	struct timespec wall;		/* when it was taken */
	int has_hist;			/* a version 2 capture: */
	struct tsa_hist_snap hist;	/* /proc/tsa/hist, read right after */
	int has_wakers;			/* a version 3 capture: */
	struct tsa_wakers_snap wakers;	/* /proc/tsa/wakers, read after it */
};

/* A file's bytes a capture carries after the rows (buf NULL: none). */
struct capture_part {
	const char *buf;
	size_t len;
};

/*
 * Write @s as a capture to @f: the cgroup of each process (read from
 * @procfs) and the rows, with the columns a compare needs; with @hist
 * (/proc/tsa/hist as read: the module's distributions) a version 2
 * capture that carries it, with @wakers (/proc/tsa/wakers) a version 3.
 * Returns 0, or -1 on a write error (errno set).
 */
int capture_write(FILE *f, const struct tsa_snap *s, const char *procfs,
		  const struct capture_part *hist,
		  const struct capture_part *wakers);

/*
 * Read the capture @path into @c.  On error: TSA_ENOENT, TSA_EACCES,
 * TSA_EIO (unreadable), TSA_EFORMAT (not a capture, damaged: its size
 * or checksum disagree, or a malformed line) or TSA_EVERSION, with a
 * one-line reason in @msg.
 */
int capture_read(struct capture *c, const char *path, char *msg,
		 size_t msglen);
void capture_free(struct capture *c);

#endif /* STORE_CAPTURE_H */
