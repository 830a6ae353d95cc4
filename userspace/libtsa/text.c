// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A thread file's text (docs/proc-format.md, "tsa-thread 1") into a
 * struct tsa_snap: the head lines, then a line per state ("USR ns pct
 * entries longest") and per counter ("VCX value"), which come before the
 * tables. Lines it does not know are skipped; a number that does not
 * parse, or a file whose first line is not "tsa-thread 1", makes the
 * read fail with EPROTO. Bounded by the line: nothing is read past @len.
 */
#include <errno.h>
#include <string.h>

#include "text.h"

void tsa_text_begin(struct tsa_text *p, struct tsa_snap *s)
{
	memset(p, 0, sizeof(*p));
	memset(s, 0, sizeof(*s));
	p->s = s;
	s->how = TSA_HOW_TEXT;
}

/* The next space-separated word of [*pos, end): its length, 0 at the end. */
static size_t word(const char **pos, const char *end, const char **w)
{
	const char *c = *pos;

	while (c < end && *c == ' ')
		c++;
	*w = c;
	while (c < end && *c != ' ')
		c++;
	*pos = c;
	return c - *w;
}

static int is(const char *w, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(w, lit, n);
}

/* A decimal u64 of the whole word: 0, or -1 (empty, junk, overflow). */
static int number(const char *w, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!n || n > 20)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned int d = (unsigned char)w[i] - '0';

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int index_of(const char *w, size_t n, int counter)
{
	const char *name;
	unsigned int i;

	for (i = 0; i < (counter ? TSA_CT_KNOWN : TSA_ST_KNOWN); i++) {
		name = counter ? tsa_self_counter_name(i) : tsa_self_state_name(i);
		if (is(w, n, name))
			return i;
	}
	return -1;
}

void tsa_text_line(struct tsa_text *p, const char *line, size_t len)
{
	const char *pos = line, *end = line + len, *w, *v;
	struct tsa_snap *s = p->s;
	size_t n, vn;
	uint64_t x;
	int i;

	if (p->seen & (TSA_TEXT_DONE | TSA_TEXT_BAD))
		return;
	n = word(&pos, end, &w);
	vn = word(&pos, end, &v);
	if (!(p->seen & TSA_TEXT_HEAD)) {
		if (is(w, n, "tsa-thread") && is(v, vn, "1") && pos == end)
			p->seen |= TSA_TEXT_HEAD;
		else
			p->seen |= TSA_TEXT_BAD;
		return;
	}
	if (!n || *w == '#')
		return;
	if (is(w, n, "tid") || is(w, n, "pid")) {
		if (number(v, vn, &x) || x > INT32_MAX)
			goto bad;
		*(*w == 't' ? &s->tid : &s->pid) = (int)x;
	} else if (is(w, n, "since")) {
		if (is(v, vn, "load"))
			s->flags |= TSA_SNAP_SINCE_LOAD;
	} else if (is(w, n, "state")) {
		i = index_of(v, vn, 0);
		vn = word(&pos, end, &v);
		if (i < 0 || number(v, vn, &p->stay))
			goto bad;
		s->state = i;
		p->seen |= TSA_TEXT_STATE;
	} else if (is(w, n, "elapsed")) {
		if (number(v, vn, &s->elapsed))
			goto bad;
		p->seen |= TSA_TEXT_ELAPSED;
	} else if (is(w, n, "degraded")) {
		while (vn) {
			if ((i = index_of(v, vn, 0)) >= 0)
				s->degraded |= 1U << i;
			else if ((i = index_of(v, vn, 1)) >= 0)
				s->degraded |= 1U << (16 + i);
			vn = word(&pos, end, &v);
		}
	} else if ((i = index_of(w, n, 0)) >= 0) {
		if (number(v, vn, &s->ns[i]))
			goto bad;
		if ((unsigned int)i >= s->nr_states)
			s->nr_states = i + 1;
	} else if ((i = index_of(w, n, 1)) >= 0) {
		if (number(v, vn, &s->count[i]))
			goto bad;
		if ((unsigned int)i >= s->nr_counters)
			s->nr_counters = i + 1;
		if (++p->counters == TSA_CT_KNOWN)
			p->seen |= TSA_TEXT_DONE;
	}
	return;
bad:
	p->seen |= TSA_TEXT_BAD;
}

int tsa_text_end(struct tsa_text *p, uint64_t at)
{
	const unsigned int need = TSA_TEXT_HEAD | TSA_TEXT_STATE |
				  TSA_TEXT_ELAPSED;
	struct tsa_snap *s = p->s;

	if ((p->seen & (need | TSA_TEXT_BAD)) != need || !s->nr_states ||
	    p->stay > at) {
		errno = EPROTO;
		return -1;
	}
	s->at = at;
	s->state_since = at - p->stay;
	return 0;
}
