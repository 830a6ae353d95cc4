/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/folded.h - --folded: a window's time as the folded stacks that
 * flamegraph.pl, inferno and speedscope read, one line per stack:
 *
 *   FRAME;FRAME;...;FRAME COUNT
 *
 * The frames: the report's line (a process "comm/PID", with -L its
 * thread under it "comm/TID", with --group the group's name), then the
 * state ("USR", "SLP", ...: the first level a flame graph draws above
 * the line is its state picture), then what the state's time was spent
 * in: a system call (its name, from the calls rows), or with -w the
 * waker that ended the stays, marked "_[w]" (flamegraph.pl's --colors
 * chain palette). COUNT is in nanoseconds, and the lines of one report
 * line add up to its elapsed time over the window exactly: a state's
 * time not in a call row (or not ended by a named waker) stays on the
 * bare state frame.
 */
#ifndef VIEW_FOLDED_H
#define VIEW_FOLDED_H

#include <stdio.h>

#include "all.h"
#include "calls.h"
#include "wakers.h"

struct folded_in {
	const struct tsa_delta *d;	/* the lines, in order, cut to -n */
	size_t n;
	/* d[i]'s process and (with lwps) thread names, not for groups */
	const char (*pname)[64], (*tname)[64];
	int lwps;			/* d[] are threads: process;thread */
	int groups;			/* d[] are groups: the name is comm */
	/* the call lines of d[] (who points into d[]), or NULL */
	const struct tsa_call_line *cl;
	size_t ncl;
	/* -w: the waker lines (tsa_wakers_compute() of d's kind), or NULL */
	const struct tsa_wview *w;
	size_t nw;
};

/* Write @in's stacks to @f. Returns 0, or -1 on a write error. */
int folded_print(FILE *f, const struct folded_in *in);

#endif /* VIEW_FOLDED_H */
