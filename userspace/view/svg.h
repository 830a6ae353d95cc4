/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/svg.h - --svg: a window drawn as one self-contained SVG (no
 * script, no external resource; every number in a <title> tooltip).
 *
 * Pages of at most per_page bands, one under the other, each with its
 * time axis (local time, with the dates), so that a person scrolls a
 * screenful at a time; the first page also has the LAT heat map (when
 * the source has the distributions), the top wakers and the top system
 * calls. A band is one report line (a thread, process or group): per
 * column of time a bar of its states stacked from the top in the fixed
 * order of the states, each as its share of the line's elapsed time in
 * the column. The size is known before a byte is written:
 * svg_height().
 */
#ifndef VIEW_SVG_H
#define VIEW_SVG_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "all.h"
#include "hist.h"

/* The one palette of every picture (docs/pictures.md), by state. */
extern const char *const svg_state_colour[TSA_NSTATES];

struct svg_band {
	char name[192];		/* "comm/PID", "thread/TID in comm/PID", ... */
	uint64_t *ns;		/* [col * TSA_NSTATES + state] */
};

/* A line of the top wakers or system calls: text, then its numbers. */
struct svg_top {
	char what[160];
	uint64_t ns, n;
};

#define SVG_HEAT_BUCKETS	TSA_HIST_NB	/* LAT stays by log2 bucket */

struct svg_in {
	const char *title;		/* the source, as given */
	struct timespec from, to;	/* the window's ends (wall clock) */
	size_t ncols;			/* columns of time, equal widths */
	const struct svg_band *b;
	size_t nb, per_page;
	/* [col * SVG_HEAT_BUCKETS + bucket]: LAT stays ended, or NULL */
	const uint64_t *heat;
	struct tsa_hbounds bounds;	/* the buckets' */
	const char *heat_why;		/* NULL heat: why there is none */
	const struct svg_top *wk, *sc;	/* top wakers, top calls */
	size_t nwk, nsc;
	const char *wk_why, *sc_why;	/* none: why */
};

/* The picture's height in pixels (its width is SVG_WIDTH). */
#define SVG_WIDTH	1200
#define SVG_PLOT_X	260	/* where the bars begin */
#define SVG_PLOT_W	900	/* and their width */
#define SVG_BAND_H	24	/* a band's bar height */
long svg_height(const struct svg_in *in);
/* Columns of time for @nintervals intervals: at most one per 3 pixels. */
size_t svg_columns(size_t nintervals);
/* Write @in to @f. Returns 0, or -1 on a write error. */
int svg_write(FILE *f, const struct svg_in *in);

#endif /* VIEW_SVG_H */
