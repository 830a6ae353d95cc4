/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/json.h - machine output: one JSON object per line (--json).
 */
#ifndef VIEW_JSON_H
#define VIEW_JSON_H

#include <stdio.h>

#include "group.h"
#include "show.h"
#include "all.h"
#include "calls.h"

void json_print(FILE *f, const struct show *o, const struct tsa_snap *cur,
		const struct tsa_delta *d, size_t n);

/* Group reports (--group): one object per group of @r. */
void json_print_groups(FILE *f, enum group_by by, const struct tsa_snap *cur,
		       const struct group_report *r,
		       const struct tsa_delta *d, size_t n);

/* The system-call view (-y): one object per line of the report. */
void json_print_calls(FILE *f, const struct show *o,
		      const struct tsa_calls_snap *cur,
		      const struct tsa_call_line *l, size_t n);

#endif /* VIEW_JSON_H */
