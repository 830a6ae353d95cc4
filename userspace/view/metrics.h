/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/metrics.h - one snapshot as Prometheus text (--prometheus, the
 * format node_exporter's textfile collector reads) or OpenMetrics text
 * (--openmetrics), per process or per group.
 */
#ifndef VIEW_METRICS_H
#define VIEW_METRICS_H

#include <stdio.h>

#include "group.h"
#include "hist.h"

enum metrics_format {
	METRICS_PROMETHEUS,	/* text format 0.0.4 */
	METRICS_OPENMETRICS,	/* OpenMetrics 1.0.0, ends with # EOF */
};

/* Write @s as a label value: \ " and newline escaped; other control
 * bytes and invalid UTF-8 as U+FFFD (label values must be UTF-8). */
void metrics_label_value(FILE *f, const char *s);

/* A group's distributions of stays by state (the module's hist=1). */
struct metrics_hist {
	uint64_t count[TSA_NSTATES];	/* stays that ended */
	uint64_t sum_ns[TSA_NSTATES];	/* their time */
	uint64_t b[TSA_NSTATES][TSA_HIST_NB];
};

/*
 * Sum the lines of /proc/tsa/hist @h into @mh[i] for each group i of @t,
 * which group_compute() made from /proc/tsa/all @s with @proc_group:
 * a process's lines go to its process's group (by name: to its
 * thread's), for the processes of @pids (all when @npids is 0).  A line
 * of a process or thread @s does not have is left out.
 */
void metrics_hist_compute(const struct tsa_snap *s,
			  const struct tsa_hist_snap *h, enum group_by by,
			  const uint64_t *pids, size_t npids,
			  const long *proc_group, const struct group_table *t,
			  struct metrics_hist *mh);

/* Every metric family of @n groups of kind @by; with @mh (NULL: none),
 * their distributions as histograms (buckets ending at @bounds). */
void metrics_print(FILE *f, enum metrics_format fmt, enum group_by by,
		   const struct tsa_group *g, size_t n,
		   const struct metrics_hist *mh, struct tsa_hbounds bounds);

#endif /* VIEW_METRICS_H */
