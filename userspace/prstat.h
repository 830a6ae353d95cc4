/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prstat.h - the parsed command line, shared by every part of
 * tsa-prstat.  Nothing else is global.
 */
#ifndef PRSTAT_H
#define PRSTAT_H

#include <stddef.h>
#include <stdint.h>

enum view {
	VIEW_SOLARIS,	/* -m: USR SYS TRP TFL DFL LCK SLP LAT ... */
	VIEW_TSA,	/* -A / --tsa: EXEC RUN APG SLP LCK IDL STP */
	VIEW_CALLS,	/* -y / --syscalls: time by system call */
	VIEW_HIST,	/* -H / --hist: distributions of stays */
};

struct options {
	int lwps;		/* -L: one line per thread */
	int json;		/* --json: JSON lines instead of a table */
	int no_clear;		/* -c: print below, never redraw */
	int trunc;		/* -W: truncate long user names */
	enum view view;
	long ntop;		/* -n: lines per report; 0 = not given */
	int sort_key;		/* index into prsort's key table */
	int sort_order;		/* -1 descending (-s), 1 ascending (-S) */
	uint64_t *pids;		/* -p */
	size_t npids;
	double interval;	/* seconds between reports */
	long count;		/* number of reports; -1 = until killed */
	const char *proc_dir;	/* $TSA_PROC_DIR or /proc/tsa */
	int metrics;		/* --prometheus / --openmetrics: 1 + format */
	int group_by;		/* --group: enum group_by; -1 = not given */
	const char *procfs;	/* $TSA_PROCFS or /proc: /proc/PID/cgroup */
	const char *save;	/* --save FILE: write one capture */
	const char *compare[2];	/* --compare A B: the two captures */
	int calibrate;		/* --calibrate */
	const char *record;	/* --record DIR: the flight recorder */
	long long keep_secs;	/* --keep AGE: its files' retention; 0: all */
	long long max_bytes;	/* --max-size SIZE: its directory's; 0: any */
	const char *replay;	/* --replay DIR: a recording's reports */
	long long from, to;	/* --from, --to: its window (epoch s); -1 */
	int summary;		/* --summary: one report over the window */
	char filter[64];	/* the / key: lines whose name has it */
	int draw;		/* --draw: -H's buckets as bars */
};

#endif /* PRSTAT_H */
