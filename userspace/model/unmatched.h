/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/unmatched.h - what a compare of snapshot @a with a later @b could
 * not match.
 */
#ifndef MODEL_UNMATCHED_H
#define MODEL_UNMATCHED_H

#include "all.h"

/* What a compare could not match: threads in one snapshot only. */
struct compare_sum {
	unsigned long only_a;	/* live in A, not in B: exited */
	unsigned long gone;	/* processes of A not in B at all */
	unsigned long only_b;	/* live in B, not in A: new since */
};

void compare_count(const struct tsa_snap *a, const struct tsa_snap *b,
		   struct compare_sum *sum);

#endif /* MODEL_UNMATCHED_H */
