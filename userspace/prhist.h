/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prhist.h - the distributions view (-H, --hist): how long each stay of
 * a thread or process in LAT, STP and each sleep state lasted over the
 * interval, from /proc/tsa/hist (tsahist.c), as a table or JSON lines.
 */
#ifndef PRHIST_H
#define PRHIST_H

#include <signal.h>
#include <stdio.h>

#include "prstat.h"
#include "tsahist.h"

/* Print one report of @n view lines (tsa_hist_compute()) of @cur. */
void hist_print(FILE *f, const struct options *o,
		const struct tsa_hist_snap *cur, double secs,
		const struct tsa_hview *v, size_t n);
void hist_print_json(FILE *f, const struct options *o,
		     const struct tsa_hist_snap *cur, const struct tsa_hview *v,
		     size_t n);
/* The view, live, until @stop or o->count reports; an exit status. */
int hist_run(const struct options *o, volatile sig_atomic_t *stop);

#endif /* PRHIST_H */
