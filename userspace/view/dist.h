/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/dist.h - the distributions view (-H, --hist): how long each stay of
 * a thread or process in LAT, STP and each sleep state lasted over the
 * interval, from /proc/tsa/hist (model/hist.c), as a table or JSON lines.
 */
#ifndef VIEW_DIST_H
#define VIEW_DIST_H

#include <stdio.h>

#include "group.h"
#include "show.h"
#include "hist.h"

/* Each process's uid and start: its leader's line, else its first. */
struct hproc {
	uint64_t pid, uid, since;
};

/* A thread, or a process's exited threads, in a group: its lines. */
struct hmember {
	size_t group;
	uint64_t pid, tid;
	size_t from, to;	/* its lines in the parts */
};

/*
 * One report's lines (v, n): a thread's, a process's or, with --group
 * (cgroup, user, comm), a group's (group: the index in t + 1), made
 * from the parts (the threads and each process's exited threads).
 */
struct hist_report {
	const struct tsa_snap *names;	/* names: /proc/tsa/all's, a capture's */
	const struct tsa_snap *names_prev;	/* live: the read before */
	const char *procfs;		/* cgroups' misses */
	struct tsa_hview *v;
	size_t n, cap;
	struct tsa_hview *parts;
	size_t pn, partcap;
	struct group_table t;		/* the groups: nprocs, nlwps, uid */
	struct cgroup_cache cc;		/* a compare: B's cgroups */
	struct hmember *m;
	size_t mcap;
	struct hproc *procs;		/* a process's, found by pid */
	size_t pcap;
	struct tsa_index pids;
};

/* Compute one report of @cur against @prev (NULL: lifetime). */
void hist_report_compute(struct hist_report *r, const struct show *o,
			 const struct tsa_hist_snap *prev,
			 const struct tsa_hist_snap *cur);
void hist_report_free(struct hist_report *r);

/* Print one report (@secs: its interval; 0 for lifetime). */
void hist_print(FILE *f, const struct show *o,
		const struct tsa_hist_snap *cur, double secs,
		const struct hist_report *r);
void hist_print_json(FILE *f, const struct show *o,
		     const struct tsa_hist_snap *cur,
		     const struct hist_report *r);

#endif /* VIEW_DIST_H */
