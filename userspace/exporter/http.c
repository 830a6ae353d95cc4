// SPDX-License-Identifier: GPL-2.0
/*
 * exporter/http.c - what tsa-exporter reads of a request's headers
 * (Accept, Accept-Encoding): apart from main.c so that a fuzz target
 * (tests/fuzz/fuzz_http.c) can call it without a server.
 */
#include <string.h>
#include <strings.h>

#include "http.h"

int accepts(const char *v, const char *token)
{
	size_t n = strlen(token);

	for (; v && *v; v = strchr(v, ',') ? strchr(v, ',') + 1 : NULL) {
		while (*v == ' ' || *v == '\t')
			v++;
		if (!strncasecmp(v, token, n) &&
		    (v[n] == '\0' || v[n] == ',' || v[n] == ';' || v[n] == ' ')) {
			const char *q = strstr(v, ";q=");
			const char *end = strchr(v, ',');

			/* q=0 (or 0.0...) says "not this". */
			if (q && (!end || q < end) && q[3] == '0' &&
			    strspn(q + 4, ".0") == strcspn(q + 4, ", "))
				return 0;
			return 1;
		}
	}
	return 0;
}
