// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_wakers.c - /proc/tsa/wakers: tsa_wakers_parse(), then the -w
 * view's lines (per thread, per process), a --chain from each line,
 * and the lines grouped every way --group has (names from a procfs that
 * is not there, as for a process gone).
 */
#include "fuzz.h"
#include "all.h"
#include "group.h"
#include "wakers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tsa_wakers_snap s = { 0 };
	struct tsa_wakers_report r = { 0 };
	struct tsa_wnames nm = { .procfs = "/nonexistent" };
	size_t step[16], i;
	char msg[256];
	int lwps, by;

	s.buf = fuzz_text(data, size);
	s.len = size;
	s.cap = size + 1;
	msg[0] = '\0';
	if (tsa_wakers_parse(&s, msg, sizeof(msg)) == TSA_OK) {
		for (lwps = 0; lwps <= 2; lwps++) {
			tsa_wakers_compute(&r, NULL, &s, lwps, NULL, 0);
			tsa_wakers_compute(&r, &s, &s, lwps, NULL, 0);
		}
		tsa_wakers_compute(&r, NULL, &s, 1, NULL, 0);
		for (i = 0; i < r.n && i < 64; i++)
			tsa_wakers_chain(&r, r.v[i].tid, 16, step);
		for (by = 0; by < GROUP_NBY; by++) {
			tsa_wakers_compute(&r, NULL, &s, 2, NULL, 0);
			tsa_wakers_group(&r, by, &nm);
		}
	} else if (!msg[0] || strchr(msg, '\n')) {
		abort();	/* a refusal is one line, with its reason */
	}
	tsa_wakers_report_free(&r);
	tsa_wakers_free(&s);
	return 0;
}
