// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_selftext.c - a thread file's text as libtsa's fallback reads it
 * (userspace/libtsa/text.c): line by line, each line in a buffer of its
 * own with no terminator (ASan sees a read past it), then the end. A
 * parse that succeeds must give a snapshot a reader can index.
 */
#include "fuzz.h"
#include "text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *end = data + size, *nl;
	struct tsa_snap s;
	struct tsa_text p;
	uint64_t at;
	char *line;
	size_t n;

	if (size < 8)
		return 0;
	memcpy(&at, data, 8);	/* the reader's clock */
	data += 8;
	tsa_text_begin(&p, &s);
	while (data < end) {
		nl = memchr(data, '\n', end - data);
		n = (nl ? nl : end) - data;
		line = malloc(n ? n : 1);
		if (!line)
			abort();
		memcpy(line, data, n);
		tsa_text_line(&p, line, n);
		free(line);
		data += n + (nl != NULL);
	}
	if (tsa_text_end(&p, at) == 0 &&
	    (s.nr_states == 0 || s.nr_states > TSA_ST_KNOWN ||
	     s.nr_counters > TSA_CT_KNOWN || s.state >= TSA_ST_KNOWN ||
	     s.state_since > s.at || s.at != at || s.how != TSA_HOW_TEXT))
		abort();
	return 0;
}
