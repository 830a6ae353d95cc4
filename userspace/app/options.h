/* SPDX-License-Identifier: GPL-2.0 */
/*
 * app/options.h - the parsed command line: what to show (struct show, which
 * the printers take) and the modes, which only app/main.c reads.
 */
#ifndef APP_OPTIONS_H
#define APP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "show.h"

struct options {
	struct show show;	/* what the reports show */
	int no_clear;		/* -c: print below, never redraw */
	double interval;	/* seconds between reports */
	long count;		/* number of reports; -1 = until killed */
	const char *proc_dir;	/* $TSA_PROC_DIR or /proc/tsa */
	int metrics;		/* --prometheus / --openmetrics: 1 + format */
	const char *state;	/* --state FILE: the export's ledger */
	const char *procfs;	/* $TSA_PROCFS or /proc: /proc/PID/cgroup */
	const char *save;	/* --save FILE: write one capture */
	const char *compare[2];	/* --compare A B: the two captures */
	int calibrate;		/* --calibrate */
	const char *calibrate_cpus;	/* --calibrate=LIST; NULL: all */
	const char *record;	/* --record DIR: the flight recorder */
	long long keep_secs;	/* --keep AGE: its files' retention; 0: all */
	long long max_bytes;	/* --max-size SIZE: its directory's; 0: any */
	const char *replay;	/* --replay DIR: a recording's reports */
	long long from, to;	/* --from, --to: its window (epoch s); -1 */
	int summary;		/* --summary: one report over the window */
	uint64_t chain;		/* --chain TID: who woke whom from it */
	/* prstat's -a -t -u -U -d (args.c, live.c). */
	int users;		/* -a: per-user lines after the processes */
	int totals;		/* -t: per-user lines only (--group user) */
	long nbottom;		/* -n's nbottom: -a's user lines; 0: all */
	uint64_t *euids, *ruids;	/* -u, -U: only these users' */
	size_t neuids, nruids;
	int folded;		/* --folded: the window's folded stacks */
	const char *svg;	/* --svg FILE: the window's picture */
	const char *perfetto;	/* --perfetto FILE: the window's trace */
	char stamp;		/* -d u|d: 'u' or 'd' before each report */
};

#endif /* APP_OPTIONS_H */
