/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exporter/http.h - the request headers tsa-exporter reads.
 */
#ifndef EXPORTER_HTTP_H
#define EXPORTER_HTTP_H

/*
 * Does the header value @v (NULL: no such header) list @token, case
 * aside, without a q=0 ("gzip;q=0" says "not gzip")?
 */
int accepts(const char *v, const char *token);

#endif /* EXPORTER_HTTP_H */
