// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_all.c - /proc/tsa/all (and the rows of captures and recordings):
 * tsa_snap_parse(), then a report over it as the first one and as one
 * against itself (the deltas walk the indexes the parse built).
 */
#include "fuzz.h"
#include "all.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tsa_snap s = { 0 };
	struct tsa_select sel = { .interval = 1 };
	struct tsa_totals tot;
	struct tsa_delta *d = NULL;
	size_t cap = 0;
	char msg[256];

	s.buf = fuzz_text(data, size);
	s.len = size;
	s.cap = size + 1;
	if (tsa_snap_parse(&s, msg, sizeof(msg)) == TSA_OK) {
		for (sel.lwps = 0; sel.lwps < 2; sel.lwps++) {
			tsa_delta_compute(NULL, &s, &sel, &d, &cap, &tot);
			tsa_delta_compute(&s, &s, &sel, &d, &cap, &tot);
		}
	} else if (!msg[0] || strchr(msg, '\n')) {
		abort();	/* a refusal is one line, with its reason */
	}
	free(d);
	tsa_snap_free(&s);
	return 0;
}
