/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The words the accounting is written in, for the kernel: the states and
 * counters of the plain list (tsa_states.h) as C enums, and the log2
 * buckets a duration is counted in. Both a thread's states (tsa_state.h)
 * and its system calls (tsa_calls.h) are kept in them, so they sit below
 * both.
 */
#ifndef TSA_MODEL_H
#define TSA_MODEL_H

#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/types.h>

/* TSA_USR, TSA_SYS, ...: the states of tsa_states.h, in its order. */
enum tsa_state {
#define TSA_STATE(name, what)	TSA_##name,
#include "tsa_states.h"
	TSA_NR_STATES
};

/* TSA_VCX, TSA_ICX, ... */
enum tsa_counter {
#define TSA_COUNTER(name, what)	TSA_##name,
#include "tsa_states.h"
	TSA_NR_COUNTERS
};

/*
 * Bucket 0 holds durations under 2^TSA_HIST_SHIFT ns (1.024 us), bucket
 * b those in [2^(b+9), 2^(b+10)) ns, and the last those of 2^36 ns
 * (68.7 s) or more.
 */
#define TSA_HIST_BUCKETS	28
#define TSA_HIST_SHIFT		10

static inline unsigned int tsa_hist_bucket(u64 ns)
{
	if (ns < (1ULL << TSA_HIST_SHIFT))
		return 0;
	return min_t(unsigned int, fls64(ns) - TSA_HIST_SHIFT,
		     TSA_HIST_BUCKETS - 1);
}

#endif /* TSA_MODEL_H */
