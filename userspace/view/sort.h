/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/sort.h - the order of a report's lines (-s key, -S key).
 */
#ifndef VIEW_SORT_H
#define VIEW_SORT_H

#include <stddef.h>

#include "show.h"
#include "all.h"
#include "calls.h"

/* Default keys: cpu in the Solaris view, wait in the TSA view, pct in
 * the system-call view. */
int sort_default_key(enum view v);

/*
 * Look up @name for view @v.  Returns the key's index, or -1 with a
 * one-line reason in @why.
 */
int sort_key_lookup(const char *name, enum view v,
		    char *why, size_t whylen);

const char *sort_key_name(int key);

/* The key after @key (@dir 1) or before it (-1) among @v's, in turn. */
int sort_key_next(int key, enum view v, int dir);

/* The value a line sorts on. */
double sort_key_value(int key, const struct tsa_delta *d);

/*
 * Sort @d by @key, descending when @order is -1 and ascending when 1;
 * ties by pid, then thread id, ascending.
 */
void sort_lines(struct tsa_delta *d, size_t n, int key, int order);

/* Sort as a compare does: by the key's nanoseconds, not its share. */
double sort_key_time(int key, const struct tsa_delta *d);
void sort_lines_time(struct tsa_delta *d, size_t n, int key, int order);

/* The same for the system-call view's lines; ties by pid, thread id,
 * then call name ("other" after the names). */
double call_key_value(int key, const struct tsa_call_line *l);
void sort_call_lines(struct tsa_call_line *l, size_t n, int key, int order);

#endif /* VIEW_SORT_H */
