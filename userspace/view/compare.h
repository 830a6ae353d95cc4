/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/compare.h - the compare report of two snapshots (--compare A B).
 */
#ifndef VIEW_COMPARE_H
#define VIEW_COMPARE_H

#include <stdio.h>
#include <time.h>

#include "all.h"
#include "group.h"
#include "show.h"
#include "unmatched.h"

/* @t as a compare's header shows it: "2026-11-27T18:00:00Z". */
void compare_wall(char *out, size_t len, const struct timespec *t);

/* The compare report: groups of @r (B against A), then the summary. */
void compare_print(FILE *f, const struct show *o, enum group_by by,
		   const struct tsa_snap *a, const struct tsa_snap *b,
		   const struct group_report *r, size_t n,
		   const struct tsa_totals *tot,
		   const struct compare_sum *sum);

#endif /* VIEW_COMPARE_H */
