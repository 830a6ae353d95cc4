/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/json.h - machine output: one JSON object per line (--json).
 */
#ifndef VIEW_JSON_H
#define VIEW_JSON_H

#include <stdio.h>

#include "jsonw.h"
#include "group.h"
#include "show.h"
#include "all.h"
#include "calls.h"

/*
 * The JSON schema (docs/json.md): every object's first key, "schema".
 * Bumped when a key is renamed or removed or changes its meaning or
 * unit; a new key does not bump it.
 */
#define TSA_JSON_SCHEMA	1

/* A line's object, opened, with its "schema" key. */
void json_begin(struct jsonw *w, FILE *f);

/* A thread's or process's name; null when unknown ("" or "-"). */
void json_name(struct jsonw *w, const char *key, const char *name);

/* "user": @uid's name; null when it has none (no passwd entry). */
void json_user(struct jsonw *w, uint64_t uid);

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
