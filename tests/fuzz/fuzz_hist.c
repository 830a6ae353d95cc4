// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_hist.c - /proc/tsa/hist: tsa_hist_parse(), then the -H view's
 * lines of it (per process, thread and part) and their quantiles.
 */
#include "fuzz.h"
#include "all.h"
#include "hist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tsa_hist_snap s = { 0 };
	struct tsa_hview *v = NULL;
	size_t cap = 0, n, i;
	char msg[256];
	int by;

	s.buf = fuzz_text(data, size);
	s.len = size;
	s.cap = size + 1;
	msg[0] = '\0';
	if (tsa_hist_parse(&s, msg, sizeof(msg)) == TSA_OK) {
		for (by = TSA_HIST_PROCS; by <= TSA_HIST_PARTS; by++) {
			n = tsa_hist_compute(NULL, &s, by, NULL, 0, &v, &cap);
			for (i = 0; i < n; i++)
				tsa_hist_quantile(&v[i], s.bounds, 0.99);
			tsa_hist_compute(&s, &s, by, NULL, 0, &v, &cap);
		}
	} else if (!msg[0] || strchr(msg, '\n')) {
		abort();	/* a refusal is one line, with its reason */
	}
	free(v);
	tsa_hist_free(&s);
	return 0;
}
