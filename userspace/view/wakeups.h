/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/wakeups.h - the wakers view (-w, --wakers): who ended each thread's
 * or process's stays asleep and stopped over the interval, from
 * /proc/tsa/wakers (model/wakers.c), as a table or JSON lines.
 */
#ifndef VIEW_WAKEUPS_H
#define VIEW_WAKEUPS_H

#include <stdio.h>

#include "show.h"
#include "wakers.h"

/* Print one report (@secs: its interval; 0 for lifetime); names of the
 * woken from @nm. */
void wakers_print(FILE *f, const struct show *o, const struct tsa_wnames *nm,
		  double secs, const struct tsa_wakers_report *r);
void wakers_print_json(FILE *f, const struct show *o,
		       const struct tsa_wnames *nm,
		       uint64_t now, const struct tsa_wakers_report *r);

/*
 * --chain: the chain of who woke whom from one thread (model's
 * tsa_wakers_chain() steps in @r, a per-thread report), a line a step.
 */
void wakers_print_chain(FILE *f, const struct show *o,
			const struct tsa_wnames *nm,
			double secs, const struct tsa_wakers_report *r,
			uint64_t tid, const size_t *step, size_t n);

#endif /* VIEW_WAKEUPS_H */
