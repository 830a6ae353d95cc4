/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exporter/scrape.h - one scrape of tsa-exporter: /proc/tsa/all (and
 * hist and wakers) read once, written as Prometheus text 0.0.4 and as OpenMetrics
 * 1.0, with the exporter's own health series; no HTTP here.
 */
#ifndef EXPORTER_SCRAPE_H
#define EXPORTER_SCRAPE_H

#include <stddef.h>
#include <stdint.h>

#include "group.h"
#include "ledger.h"
#include "metrics.h"

struct scrape_conf {
	const char *proc_dir;	/* $TSA_PROC_DIR or /proc/tsa */
	const char *procfs;	/* $TSA_PROCFS or /proc */
	const char *sys_module;	/* $TSA_SYS_MODULE or /sys/module/tsa */
	enum group_by by;
	const uint64_t *pids;	/* -p; with GROUP_PID, required */
	size_t npids;
	size_t max_series;	/* samples per scrape; 0: no cap */
	size_t waker_edges;	/* --waker-edges: top edges; 0: none */
};

/*
 * Kept across scrapes: the counters of the health series, and the
 * ledger that keeps the groups' counters from going down (ledger_init()
 * it before the first scrape).
 */
struct scrape_health {
	uint64_t reads, read_errors;
	uint64_t timeouts;	/* scrapes that gave up waiting (atomic) */
	struct ledger ledger;
};

/* What one scrape made: both formats' texts (malloc'ed). */
struct scrape_out {
	char *text[2];		/* [enum metrics_format] */
	size_t len[2];
	int up;			/* /proc/tsa/all was read */
	uint64_t series, dropped;
	uint64_t edges, edges_dropped;	/* waker -> woken group edges */
	double secs;
	double load_time;	/* the module's load, Unix seconds; 0 */
	char err[4608];		/* why not up, or the distributions */
};

/* One scrape into @out; @h's counters advance. */
void scrape_run(const struct scrape_conf *c, struct scrape_health *h,
		struct scrape_out *out);
void scrape_out_free(struct scrape_out *out);

#endif /* EXPORTER_SCRAPE_H */
