// SPDX-License-Identifier: GPL-2.0
/*
 * model/unmatched.c - what a compare of two snapshots could not match: the
 * threads only in the first (exited), its processes gone, the threads
 * only in the second (new).
 */
#include <string.h>

#include "unmatched.h"

/* @pid's process in @b is the one it was in @a (it began before @a). */
static int same_proc(const struct tsa_snap *a, const struct tsa_snap *b,
		     uint64_t pid)
{
	const struct tsa_proc *pb = tsa_snap_proc(b, pid);

	if (!pb || !pb->nlwp)
		return 0;
	return pb->leader < 0 || tsa_row_since(&b->rows[pb->leader]) <= a->now;
}

void compare_count(const struct tsa_snap *a, const struct tsa_snap *b,
		   struct compare_sum *sum)
{
	size_t i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < a->nrows; i++) {
		const struct tsa_row *r = &a->rows[i];
		const struct tsa_proc *p = tsa_snap_proc(a, r->v[F_PID]);
		const struct tsa_row *t;

		if (r->v[F_FLAGS] & TSA_F_TOTALS)
			continue;
		t = tsa_snap_thread(b, r->v[F_TID]);
		if (!t || !tsa_same_thread(r, t))
			sum->only_a++;
		/* Once per process: at its first row. */
		if (p && p->nlwp && (!i || a->rows[i - 1].v[F_PID] !=
				     r->v[F_PID]) &&
		    !same_proc(a, b, r->v[F_PID]))
			sum->gone++;
	}
	for (i = 0; i < b->nrows; i++) {
		const struct tsa_row *r = &b->rows[i];

		if (!(r->v[F_FLAGS] & TSA_F_TOTALS) &&
		    !tsa_same_thread(tsa_snap_thread(a, r->v[F_TID]), r))
			sum->only_b++;
	}
}
