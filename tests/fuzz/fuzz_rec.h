/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_rec.h - a recording's file read back as --replay reads it, every
 * block in turn with its system-call rows, wakers and LAT distributions,
 * then as --compare DIR@TIME reads it (fuzz_record.c, fuzz_recblock.c).
 */
#ifndef FUZZ_REC_H
#define FUZZ_REC_H

#include <limits.h>

#include "fuzz.h"
#include "all.h"
#include "calls.h"
#include "capture.h"
#include "record.h"
#include "wakers.h"

/* The recording's one file: an hour file's name, as the recorder's. */
#define FUZZ_REC_NAME	"tsa-20261128-21.rec"

static inline void fuzz_replay(const void *file, size_t size)
{
	struct tsa_calls_snap cs = { 0 };
	struct tsa_wakers_snap ws = { 0 };
	struct tsa_hist_snap hs = { 0 };
	struct tsa_snap s = { 0 };
	struct capture c;
	struct replay rp;
	char path[4200], msg[256];
	int n = 0;

	fuzz_quiet();
	fuzz_file(FUZZ_REC_NAME, file, size, path, sizeof(path));
	if (replay_open(&rp, fuzz_dir(), 0, msg, sizeof(msg)))
		abort();	/* a directory with a recording's file */
	while (replay_next(&rp, &s, &cs, &ws) > 0 && ++n < 1000)
		replay_hist(&rp, &hs);
	replay_close(&rp);
	tsa_hist_free(&hs);
	tsa_snap_free(&s);
	tsa_calls_free(&cs);
	tsa_wakers_free(&ws);
	msg[0] = '\0';
	if (replay_at(&c, fuzz_dir(), (time_t)INT_MAX, msg, sizeof(msg)))
		memset(&c, 0, sizeof(c));
	capture_free(&c);
}

#endif /* FUZZ_REC_H */
