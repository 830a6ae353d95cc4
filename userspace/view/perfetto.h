/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/perfetto.h - --perfetto: a window as a Perfetto trace (protobuf
 * TrackEvent, written by hand as Perfetto's synthetic-track-event guide
 * says; tests/userspace/perfetto.proto is the subset it uses).
 *
 * A track per line: a thread's under its process's (-L), a process's
 * main thread's, or a group's named track; on it a slice per column of
 * time (an interval, unless the window has more than PF_MAXCOLS) named
 * by the state with the most time, with every state's time and share,
 * the top system call and the top waker of the column as arguments; a
 * flow from the top waker's slice when the waker is one of the lines; a
 * counter track per state with time: the lines' time in it per second
 * of the column (how many of them were in it, on average).
 */
#ifndef VIEW_PERFETTO_H
#define VIEW_PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include "all.h"

#define PF_MAXCOLS	3600

/* What the slice of a line in a column has beyond its states. */
struct pf_cell {
	char call[32];		/* its top system call ("": none) */
	uint64_t call_ns;
	char waker[48];		/* its top waker ("": none) */
	uint64_t waker_ns;
	long waker_line;	/* the waker's line, or -1 */
};

struct pf_line {
	const char *name;	/* the track's */
	const char *proc;	/* its process's name (-L), or NULL */
	uint64_t pid, tid;	/* tid 0: a group's track (no descriptor) */
	const uint64_t *ns;	/* [col * TSA_NSTATES + state] */
	const struct pf_cell *cell;	/* [col], or NULL */
};

struct pf_in {
	uint64_t t0;		/* the window's start, ns since the epoch */
	uint64_t len;		/* its length, ns */
	size_t ncols;
	const struct pf_line *l;
	size_t n;
};

/* Write @in to @f. Returns 0, or -1 on a write error. */
int perfetto_write(FILE *f, const struct pf_in *in);

#endif /* VIEW_PERFETTO_H */
