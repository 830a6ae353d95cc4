// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_recblock.c - the text of a recording's blocks (key and delta
 * blocks: rows, cgroups, system-call rows, wakers): the input is one or
 * more blocks' text separated by NUL bytes, each framed here as the
 * recorder frames it (zstd, sizes, CRC-32s: store/record.c), so that
 * every input reaches the block parser; the file then goes through
 * fuzz_replay().
 */
#include <zstd.h>

#include "fuzz_rec.h"
#include "recfile.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap = strlen(REC_HEADER) + 64, len = 0, at = 0;
	unsigned char *out = malloc(cap);

	if (!out)
		abort();
	memcpy(out, REC_HEADER, strlen(REC_HEADER));
	len = strlen(REC_HEADER);
	while (at <= size) {
		const uint8_t *nul = at < size ?
			memchr(data + at, 0, size - at) : NULL;
		size_t raw = nul ? (size_t)(nul - data) - at : size - at;
		size_t bound = ZSTD_compressBound(raw), z;
		unsigned char *h;

		if (cap - len < REC_HDR_LEN + bound) {
			cap = len + REC_HDR_LEN + bound + cap;
			out = realloc(out, cap);
			if (!out)
				abort();
		}
		h = out + len;
		z = ZSTD_compress(h + REC_HDR_LEN, bound, data + at, raw, 1);
		if (ZSTD_isError(z))
			abort();
		memcpy(h, REC_MAGIC, 4);
		put32(h + 4, (uint32_t)z);
		put32(h + 8, (uint32_t)raw);
		put32(h + 12, crc32_buf(h + REC_HDR_LEN, z));
		put32(h + 16, crc32_buf(h, 16));
		len += REC_HDR_LEN + z;
		at += raw + 1;
	}
	fuzz_replay(out, len);
	free(out);
	return 0;
}
