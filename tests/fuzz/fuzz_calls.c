// SPDX-License-Identifier: GPL-2.0
/* fuzz_calls.c - /proc/tsa/calls: tsa_calls_parse(). */
#include "fuzz.h"
#include "all.h"
#include "calls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tsa_calls_snap s = { 0 };
	char msg[256];

	s.buf = fuzz_text(data, size);
	s.len = size;
	s.cap = size + 1;
	msg[0] = '\0';
	if (tsa_calls_parse(&s, msg, sizeof(msg)) != TSA_OK &&
	    (!msg[0] || strchr(msg, '\n')))
		abort();	/* a refusal is one line, with its reason */
	tsa_calls_free(&s);
	return 0;
}
