/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/show.h - what a report shows and how: the view, threads or processes,
 * the order, the lines, the group.  Set by the command line and the
 * keys, read by every printer; nothing below the program's top needs
 * more of the command line than this.
 */
#ifndef VIEW_SHOW_H
#define VIEW_SHOW_H

#include <stddef.h>
#include <stdint.h>

enum view {
	VIEW_SOLARIS,	/* -m: USR SYS TRP TFL DFL LCK SLP LAT ... */
	VIEW_TSA,	/* -A / --tsa: EXEC RUN APG SLP LCK IDL STP */
	VIEW_CALLS,	/* -y / --syscalls: time by system call */
	VIEW_HIST,	/* -H / --hist: distributions of stays */
	VIEW_WAKERS,	/* -w / --wakers: who ended the stays off CPU */
};

struct show {
	enum view view;
	int lwps;		/* -L: one line per thread */
	int json;		/* --json: JSON lines instead of a table */
	int csv;		/* --csv: CSV in base units (view/cols.c) */
	char cols[256];		/* -o: the columns, by name; "" defaults */
	int trunc;		/* -W: truncate long user names */
	int draw;		/* --draw: -H's buckets as bars */
	long ntop;		/* -n: lines per report; 0 = not given */
	int sort_key;		/* index into view/sort.c's key table */
	int sort_order;		/* -1 descending (-s), 1 ascending (-S) */
	int group_by;		/* --group: enum group_by; -1 = not given */
	uint64_t *pids;		/* -p */
	size_t npids;
	char filter[64];	/* the / key: lines whose name has it */
};

#endif /* VIEW_SHOW_H */
