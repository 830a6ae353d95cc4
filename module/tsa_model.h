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
 * Log2 buckets whose bounds are powers of two of a second, so that a
 * Prometheus native histogram (schema 0) takes them without loss: bucket
 * b (b < TSA_HIST_BUCKETS - 1) holds the durations of at most 2^(b +
 * TSA_HIST_EXP) s and, but for bucket 0, over half that; the last those
 * over 2^6 s (64 s). Bucket 0: at most 953 ns; 10: 0.49 to 0.98 ms.
 */
#define TSA_HIST_BUCKETS	28
#define TSA_HIST_EXP		(-20)

/* Bucket @b's upper bound, 2^(b + TSA_HIST_EXP) s, in whole ns (floor). */
#define TSA_HIST_BOUND_NS(b)	((1000000000ULL << (b)) >> -TSA_HIST_EXP)

static inline unsigned int tsa_hist_bucket(u64 ns)
{
	unsigned int b;

	if (ns <= TSA_HIST_BOUND_NS(0))
		return 0;
	/*
	 * A bound is 953.67 ns times a power of two, so a duration in
	 * [2^m, 2^(m+1)) ns is in bucket m - 9 or the next.
	 */
	b = fls64(ns) - 10;
	if (b >= TSA_HIST_BUCKETS - 1)
		return TSA_HIST_BUCKETS - 1;
	return b + (ns > TSA_HIST_BOUND_NS(b));
}

#endif /* TSA_MODEL_H */
