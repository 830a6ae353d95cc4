// SPDX-License-Identifier: GPL-2.0
/*
 * load.c - a snapshot's text parsed by the model, as a read would have
 * (see load.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "util.h"

void load(struct tsa_snap *s, const char *text)
{
	char msg[256];
	int rc;

	s->len = strlen(text);
	s->buf = xrealloc(s->buf, s->len + 1);
	s->cap = s->len + 1;
	memcpy(s->buf, text, s->len);
	rc = tsa_snap_parse(s, msg, sizeof(msg));
	if (rc != TSA_OK) {
		printf("# parse failed: %s\n", msg);
		exit(2);
	}
}

/* Make @text the snapshot's raw /proc/tsa/all text, as a read would. */
void snap_set_text(struct tsa_snap *s, const char *text)
{
	s->len = strlen(text);
	s->buf = xrealloc(s->buf, s->len + 1);
	s->cap = s->len + 1;
	memcpy(s->buf, text, s->len);
}

void cload(struct tsa_calls_snap *s, const char *text)
{
	char msg[256];
	int rc;

	s->len = strlen(text);
	s->buf = xrealloc(s->buf, s->len + 1);
	s->cap = s->len + 1;
	memcpy(s->buf, text, s->len);
	rc = tsa_calls_parse(s, msg, sizeof(msg));
	if (rc != TSA_OK) {
		printf("# calls parse failed: %s\n", msg);
		exit(2);
	}
}

int hist_parse_text(struct tsa_hist_snap *s, const char *text, char *msg,
		    size_t msglen)
{
	memset(s, 0, sizeof(*s));
	s->len = strlen(text);
	s->cap = s->len + 1;
	s->buf = xmalloc(s->cap);
	memcpy(s->buf, text, s->len + 1);
	return tsa_hist_parse(s, msg, msglen);
}
