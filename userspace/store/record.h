/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store/record.h - the flight recorder (--record DIR) and its replay
 * (--replay DIR): every interval, what changed in /proc/tsa/all, in
 * compressed, checksummed blocks, one file an hour (format
 * "tsa-record 1", documented in tsa-prstat(8)).
 */
#ifndef STORE_RECORD_H
#define STORE_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "group.h"
#include "rectable.h"
#include "all.h"
#include "calls.h"
#include "wakers.h"
#include "hist.h"

/* What the recorder takes of the command line. */
struct rec_config {
	const char *dir;	/* --record DIR */
	double interval;	/* seconds between blocks */
	long count;		/* blocks to write; -1 = until stopped */
	long long keep_secs;	/* --keep AGE: its files' retention; 0: all */
	long long max_bytes;	/* --max-size SIZE: its directory's; 0: any */
	const char *procfs;	/* boot_id and cgroups from here */
};

/*
 * The recorder: it writes blocks into the hour's file of o->dir and
 * keeps the directory to o->keep_secs and o->max_bytes.  The program's
 * loop reads the snapshots and hands them over; errors come back (a
 * tsa_err and a one-line @msg naming the file), and the loop decides.
 */
struct recorder;

/*
 * Make o->dir when missing, open and lock it against a second recorder;
 * NULL on error, *@err TSA_EACCES or TSA_EIO.
 */
struct recorder *recorder_open(const struct rec_config *o, int *err,
			       char *msg, size_t msglen);
/* The module's tables read with a snapshot (NULL: not recorded). */
struct rec_tables {
	const struct ct_file *calls;	/* /proc/tsa/calls */
	const struct ct_file *wakers;	/* /proc/tsa/wakers */
	const struct ct_file *hist;	/* /proc/tsa/hist's LAT rows */
};

/*
 * Append a block of @cur: a delta against @prev, the snapshot of the
 * last block (NULL for the first), or a key block when a file begins,
 * the last key block is 10 minutes old or the clock went back.  @tprev
 * and @tcur: the tables read with them; @la: the load averages.
 * TSA_OK, or TSA_EIO (a file that cannot be written).
 */
int recorder_block(struct recorder *rc, const struct tsa_snap *prev,
		   const struct tsa_snap *cur, const struct rec_tables *tprev,
		   const struct rec_tables *tcur, const double la[3],
		   char *msg, size_t msglen);
/* Close the file and free @rc; TSA_OK, or TSA_EIO if the close failed. */
int recorder_close(struct recorder *rc, char *msg, size_t msglen);

struct rec_row {
	uint64_t key;		/* tid, or TOTALS_KEY | pid for totals */
	uint64_t seq;		/* when first seen: the kernel's order */
	struct tsa_row row;	/* comm: owned (malloc) */
};

struct rec_cgroup {
	uint64_t pid, since;
	char *path;
};

/* A recording being read, block by block, across its files. */
struct replay {
	char **files;		/* DIR/tsa-*.rec, in time order */
	size_t nfiles, fi;
	unsigned char *data;	/* the current file, whole */
	size_t len, pos;
	int need_key;		/* a block was lost: wait for a full one */
	char *raw;		/* the current block, decompressed */
	size_t rawcap;
	struct rec_row *rows;	/* the snapshot as rebuilt so far */
	size_t nrows, rows_cap;
	struct rec_cgroup *cg;	/* processes' cgroups, as recorded */
	size_t ncg, cg_cap;
	char boot_id[64];	/* of the last block */
	double loadavg[3];
	struct ct_file calls;	/* its system-call rows, if it has them */
	int calls_err;		/* its last block's calls: a tsa_err */
	struct ct_file wakers;	/* its wakers, if it has them */
	int wakers_err;		/* its last block's wakers: a tsa_err */
	struct ct_file hist;	/* its LAT distributions (tsa-record 2) */
	int version;		/* of the current file: 1 or 2 */
	int hist_err;		/* for the caller: replay_hist()'s last */
	double interval;	/* the recorder's, as its blocks say */
	uint64_t seq;
	unsigned long damaged;	/* blocks skipped */
	time_t from;		/* files that end before it are not read */
};

/*
 * Open the recording in @dir; files wholly before @from are skipped
 * (0: none).  On error: a one-line reason in @msg, -1.
 */
int replay_open(struct replay *rp, const char *dir, time_t from, char *msg,
		size_t msglen);
/*
 * The next recorded snapshot into @s (reusing its memory; its wall is
 * the block's), its boot's id and load averages in @rp, with @cs its
 * system-call rows (cs->nrows 0 when it has none; rp->calls_err) and
 * with @ws its wakers (ws->n 0 when it has none; rp->wakers_err).  1:
 * one; 0: the recording ends.  Damaged blocks are skipped with a
 * message.
 */
int replay_next(struct replay *rp, struct tsa_snap *s,
		struct tsa_calls_snap *cs, struct tsa_wakers_snap *ws);
/*
 * The LAT distributions of the block replay_next() last returned, into
 * @hs: TSA_OK, TSA_ENOENT (the block has none: an older recorder, or a
 * module without hist), or TSA_EFORMAT.
 */
int replay_hist(struct replay *rp, struct tsa_hist_snap *hs);
/* Tell @cc the recorded cgroup of every process of @s. */
void replay_cgroups(const struct replay *rp, const struct tsa_snap *s,
		    struct cgroup_cache *cc);
void replay_close(struct replay *rp);

struct capture;
/*
 * The recording in @dir as it was at @t: its last block at or before
 * it, as a capture (for --compare DIR@TIME), with its wakers when the
 * block has them.  -1 with a reason in @msg.
 */
int replay_at(struct capture *c, const char *dir, time_t t, char *msg,
	      size_t msglen);

#endif /* STORE_RECORD_H */
