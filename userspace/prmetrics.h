/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prmetrics.h - one snapshot as Prometheus text (--prometheus, the
 * format node_exporter's textfile collector reads) or OpenMetrics text
 * (--openmetrics), per process or per group.
 */
#ifndef PRMETRICS_H
#define PRMETRICS_H

#include <stdio.h>

#include "prgroup.h"

enum metrics_format {
	METRICS_PROMETHEUS,	/* text format 0.0.4 */
	METRICS_OPENMETRICS,	/* OpenMetrics 1.0.0, ends with # EOF */
};

/* Write @s as a label value: \ " and newline escaped; other control
 * bytes and invalid UTF-8 as U+FFFD (label values must be UTF-8). */
void metrics_label_value(FILE *f, const char *s);

/* Every metric family of @n groups of kind @by. */
void metrics_print(FILE *f, enum metrics_format fmt, enum group_by by,
		   const struct tsa_group *g, size_t n);

#endif /* PRMETRICS_H */
