// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_record.c - a recording's file (tsa-record 1) as it lies on disk:
 * its header line and block frames (magic, sizes, CRC-32s, zstd), torn
 * and damaged blocks skipped. The blocks' text behind the checksums is
 * fuzz_recblock.c's.
 */
#include "fuzz_rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_replay(data, size);
	return 0;
}
