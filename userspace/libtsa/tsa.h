/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtsa: a thread reads its own microstates (tsa_self(3)).
 *
 *	struct tsa_snap a, b, d;
 *	tsa_self_read(&a);
 *	handle_request();
 *	tsa_self_read(&b);
 *	tsa_self_diff(&a, &b, &d);	// d.ns[TSA_ST_LAT]: its run-queue wait
 *
 * Each thread has its own handle (thread-local, opened by its first read,
 * closed at its exit or by tsa_self_close()), so every call is
 * thread-safe and a read allocates nothing. A read takes the fastest way
 * the running module offers and says which in struct tsa_snap.how: the
 * thread's mapped slot, with no system call (TSA_HOW_MAPPED), one ioctl on
 * /proc/tsa/thread-self (TSA_HOW_IOCTL), or, on a module without it, a
 * read and parse of the same file's text (TSA_HOW_TEXT).
 */
#ifndef TSA_H
#define TSA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* tsa's states and counters, in the module's order (tsa(4)). */
enum tsa_st {
	TSA_ST_USR, TSA_ST_SYS, TSA_ST_TRP, TSA_ST_TFL, TSA_ST_DFL,
	TSA_ST_KFL, TSA_ST_APG, TSA_ST_LCK, TSA_ST_KLK, TSA_ST_IOW,
	TSA_ST_IDL, TSA_ST_SLP, TSA_ST_LAT, TSA_ST_STP,
	TSA_ST_KNOWN		/* states this library names */
};
enum tsa_ct {
	TSA_CT_VCX, TSA_CT_ICX, TSA_CT_SCL, TSA_CT_SIG, TSA_CT_MINF,
	TSA_CT_MAJF, TSA_CT_MIG,
	TSA_CT_KNOWN
};

#define TSA_SNAP_STATES		32	/* room: a newer module may have more */
#define TSA_SNAP_COUNTERS	16

/* struct tsa_snap.how: the way it was read. */
enum tsa_how {
	TSA_HOW_NONE,		/* no way: tsa is not loaded or not tracking */
	TSA_HOW_IOCTL,		/* one ioctl (module/uapi/tsa.h) */
	TSA_HOW_TEXT,		/* the text of /proc/tsa/thread-self, parsed */
	TSA_HOW_MAPPED,		/* its mapped slot: no system call */
};

/* struct tsa_snap.flags */
#define TSA_SNAP_SINCE_LOAD	0x1	/* counted since tsa loaded, not birth */

/*
 * A thread's numbers at one instant, or the difference of two. Times in
 * ns; @at and @state_since on CLOCK_MONOTONIC. In a difference, @at and
 * @elapsed are the time between the reads, @state and @state_since the
 * later read's.
 */
struct tsa_snap {
	int how;		/* enum tsa_how */
	int tid, pid;
	unsigned int nr_states;	/* used in ns[] */
	unsigned int nr_counters;	/* used in count[] */
	unsigned int state;	/* the state in progress */
	unsigned int flags;
	uint32_t degraded;	/* not measured: bit s, bit 16 + counter c */
	uint64_t at;		/* when it was read */
	uint64_t state_since;	/* when the state in progress began */
	uint64_t elapsed;	/* since birth or load: the sum of ns[] */
	uint64_t ns[TSA_SNAP_STATES];
	uint64_t count[TSA_SNAP_COUNTERS];
};

/*
 * Open the calling thread's handle (the first read does it too): returns
 * the way reads will take (enum tsa_how), or -1 with errno: ENOENT, tsa
 * is not loaded or does not track this thread; EACCES; EMFILE ...
 */
int tsa_self_open(void);
/* Read the calling thread's numbers: 0, or -1 with errno. */
int tsa_self_read(struct tsa_snap *s);
/* Close the calling thread's handle (a thread's exit does it). */
void tsa_self_close(void);
/*
 * @d = @b - @a, two reads of one thread, @a first: each state and counter
 * (clamped at 0, see tsa(4)), the time between them.
 */
void tsa_self_diff(const struct tsa_snap *a, const struct tsa_snap *b,
		   struct tsa_snap *d);
/* "USR", ..., or NULL past the states this library knows. */
const char *tsa_self_state_name(unsigned int s);
/* What a state means: "on CPU, user mode", ...; or NULL. */
const char *tsa_self_state_what(unsigned int s);
/* "VCX", ..., or NULL. */
const char *tsa_self_counter_name(unsigned int c);
/* A state's or counter's index by name, or -1. */
int tsa_self_state_index(const char *name);
int tsa_self_counter_index(const char *name);
/* "ioctl", "text" or "none". */
const char *tsa_self_how_name(int how);

#ifdef __cplusplus
}
#endif

#endif /* TSA_H */
