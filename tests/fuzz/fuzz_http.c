// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_http.c - the request headers tsa-exporter reads itself (libmicro-
 * httpd parses the request): Accept and Accept-Encoding through
 * accepts(), the input as the header's value.
 */
#include "fuzz.h"
#include "http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *v = fuzz_text(data, size);

	accepts(v, "application/openmetrics-text");
	accepts(v, "gzip");
	free(v);
	return 0;
}
