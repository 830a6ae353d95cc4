/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snap.h - snapshots in the kernel's text formats, built from tables
 * (snap.c), and the fixtures every test shares: snapshots A and B of
 * /proc/tsa/all and /proc/tsa/calls a second apart, the recorder's
 * X1..X3, and two /proc/tsa/hist snapshots.
 */
#ifndef FX_SNAP_H
#define FX_SNAP_H

#include <stddef.h>
#include <stdint.h>

#include "all.h"	/* the state and counter enums (S_USR, ...) */

#define MS(x)	((uint64_t)(x) * 1000000ull)

struct fx {
	uint64_t tid, pid, uid, flags, elapsed;
	int state;
	uint64_t ns[TSA_NSTATES];
	uint64_t vcx, icx, scl, sig;
	const char *comm;
};

struct cfx {
	uint64_t tid, pid, flags, elapsed;
	const char *call;
	uint64_t calls, max;
	uint64_t st[TSA_NSTATES];	/* ns is their sum */
};

/*
 * A snapshot with every column the kernel writes, "states" and "at"
 * included: one line per thread of @r (tid, pid, state, state_ns, ns
 * and entries and longest of each state).
 */
struct rx {
	uint64_t tid, pid, flags, elapsed;
	int state;
	uint64_t state_ns, ns[TSA_NSTATES], n[TSA_NSTATES], max[TSA_NSTATES];
	uint64_t scl, at;
	const char *comm;
};

/* /proc/tsa/all with @n rows of @r at @now (an unknown column inside). */
char *snapshot(uint64_t now, const struct fx *r, size_t n);
char *snap_a(void);	/* at 10 s */
char *snap_b(void);	/* at 11 s */

/* /proc/tsa/calls with @n lines of @r at @now. */
char *calls_snapshot(uint64_t now, const struct cfx *r, size_t n);
char *calls_a(void);
char *calls_b(void);

/* /proc/tsa/all with every column the kernel writes. */
char *rsnapshot(uint64_t now, const struct rx *r, size_t n);
char *snap_x(int which);	/* X1, X2, X3 */

#define HIST_HEAD "tsa-hist 1\nnow %llu\nbuckets 28 10\n" \
	"states TFL DFL KFL APG LCK KLK IOW IDL SLP LAT STP\n" \
	"fields tid pid uid flags elapsed at state n ns max max_at open " \
	"open_ns b0 b1 b2 b3 b4 b5 b6 b7 b8 b9 b10 b11 b12 b13 b14 b15 b16 " \
	"b17 b18 b19 b20 b21 b22 b23 b24 b25 b26 b27\n"

/* 28 bucket counts, all 0 but the (bucket, count) pairs, -1 ended. */
const char *hb(int b1, int n1, int b2, int n2);
/* /proc/tsa/hist a second apart, into @a and @b (@len bytes each). */
void hist_snaps(char *a, char *b, size_t len);
/* Snapshot text @s of hist_snaps() (HIST_HEAD's, tsa-hist 1) as the
 * module writes it since 2026-11-29: tsa-hist 2, bounds at 2^(b - 20) s
 * (the same counts; one byte longer). */
void hist_v2(char *s);

#endif /* FX_SNAP_H */
