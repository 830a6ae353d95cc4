/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load.h - snapshots' text handed to the model's parsers, as if read
 * from /proc/tsa (for tests that link model/).  A text that does not
 * parse ends the test program (exit 2): its fixture is wrong.
 */
#ifndef FX_LOAD_H
#define FX_LOAD_H

#include <stddef.h>

#include "all.h"
#include "calls.h"
#include "hist.h"

void load(struct tsa_snap *s, const char *text);
void cload(struct tsa_calls_snap *s, const char *text);
/* Make @text the snapshot's raw text, unparsed. */
void snap_set_text(struct tsa_snap *s, const char *text);
/* Parse @text into @s (zeroed first); tsa_hist_parse's return. */
int hist_parse_text(struct tsa_hist_snap *s, const char *text, char *msg,
		    size_t msglen);

#endif /* FX_LOAD_H */
