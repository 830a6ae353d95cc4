/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fallback: a thread file's text (docs/proc-format.md) parsed line by
 * line into a struct tsa_snap, with no allocation. Internal to libtsa.
 */
#ifndef TSA_TEXT_H
#define TSA_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "tsa.h"

struct tsa_text {
	struct tsa_snap *s;
	uint64_t stay;		/* the "state" line's time in it */
	unsigned int seen;	/* TSA_TEXT_* */
	unsigned int counters;	/* counter lines seen */
};

#define TSA_TEXT_HEAD		0x01	/* "tsa-thread 1" */
#define TSA_TEXT_STATE		0x02
#define TSA_TEXT_ELAPSED	0x04
#define TSA_TEXT_DONE		0x08	/* every counter seen: stop reading */
#define TSA_TEXT_BAD		0x10	/* not this format */

/* Start on @s, zeroed. */
void tsa_text_begin(struct tsa_text *p, struct tsa_snap *s)
	__attribute__((visibility("hidden")));
/* One line, without its newline (not NUL-terminated). */
void tsa_text_line(struct tsa_text *p, const char *line, size_t len)
	__attribute__((visibility("hidden")));
/* At the end, @at the read's clock: 0, or -1 (EPROTO: not the format). */
int tsa_text_end(struct tsa_text *p, uint64_t at)
	__attribute__((visibility("hidden")));

#endif /* TSA_TEXT_H */
