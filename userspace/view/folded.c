// SPDX-License-Identifier: GPL-2.0
/*
 * view/folded.c - --folded: the folded stacks of a window (folded.h).
 *
 * Invariant: for every line of the report, the counts written add up
 * to the line's elapsed ns, since each state's ns (which sum to it) is
 * handed out to calls or wakers at most up to what is left of it, and
 * the rest is written on the bare state frame.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "folded.h"

/* A frame's name: ';' would split it, a line break the line. */
static void frame(FILE *f, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && s[i]; i++)
		fputc(s[i] == ';' || (unsigned char)s[i] < 0x20 ||
		      s[i] == 0x7f ? '?' : s[i], f);
}

static void line_frames(FILE *f, const struct folded_in *in,
			const struct tsa_delta *d)
{
	size_t i = (size_t)(d - in->d);

	if (in->groups) {
		frame(f, d->comm, strlen(d->comm));
		return;
	}
	frame(f, in->pname[i], sizeof(in->pname[i]));
	fprintf(f, "/%" PRIu64, d->pid);
	if (!in->lwps)
		return;
	fputc(';', f);
	frame(f, in->tname[i], sizeof(in->tname[i]));
	fprintf(f, "/%" PRIu64, d->id);
}

/* Is waker line @v one of line @d's? */
static int woken_is(const struct folded_in *in, const struct tsa_delta *d,
		    const struct tsa_wview *v)
{
	if (in->groups)
		return v->group && !strcmp(v->group, d->comm);
	return v->pid == d->pid && v->tid == (in->lwps ? d->id : 0);
}

static void waker_frame(FILE *f, const struct tsa_wview *v)
{
	if (v->wtid) {
		frame(f, v->name, (size_t)v->name_len);
		fprintf(f, "/%" PRIu64, v->wtid);
	} else {
		frame(f, v->kind, (size_t)v->kind_len);
	}
	fputs("_[w]", f);
}

/* One state's stacks of line @d: its calls' or wakers' shares, the rest. */
static void state_lines(FILE *f, const struct folded_in *in,
			const struct tsa_delta *d, int s,
			const struct tsa_call_line *const *cl, size_t ncl)
{
	uint64_t left = d->ns[s], take;
	size_t i;

	for (i = 0; in->w && i < in->nw && left; i++) {
		const struct tsa_wview *v = &in->w[i];

		/* "other" and "none" name no waker: the bare frame's. */
		if (v->state != s || !v->ns || !woken_is(in, d, v) ||
		    (!v->wtid && (!strncmp(v->kind, "other", 5) ||
				  !strncmp(v->kind, "none", 4))))
			continue;
		take = v->ns < left ? v->ns : left;
		line_frames(f, in, d);
		fprintf(f, ";%s;", tsa_state_name[s]);
		waker_frame(f, v);
		fprintf(f, " %" PRIu64 "\n", take);
		left -= take;
	}
	for (i = 0; !in->w && i < ncl && left; i++) {
		if (!cl[i]->d.st[s])
			continue;
		take = cl[i]->d.st[s] < left ? cl[i]->d.st[s] : left;
		line_frames(f, in, d);
		fprintf(f, ";%s;", tsa_state_name[s]);
		frame(f, cl[i]->name, strlen(cl[i]->name));
		fprintf(f, " %" PRIu64 "\n", take);
		left -= take;
	}
	if (left) {
		line_frames(f, in, d);
		fprintf(f, ";%s %" PRIu64 "\n", tsa_state_name[s], left);
	}
}

int folded_print(FILE *f, const struct folded_in *in)
{
	const struct tsa_call_line **cl = NULL;
	size_t *first = NULL, i, k, n;
	int s;

	/* The call lines of each report line, in their order. */
	if (in->cl && in->ncl) {
		size_t *pos;

		first = xmalloc((in->n + 1) * sizeof(*first));
		pos = xmalloc((in->n + 1) * sizeof(*pos));
		cl = xmalloc(in->ncl * sizeof(*cl));
		memset(first, 0, (in->n + 1) * sizeof(*first));
		for (i = 0; i < in->ncl; i++)
			first[in->cl[i].who - in->d + 1]++;
		for (i = 0; i < in->n; i++)
			first[i + 1] += first[i];
		memcpy(pos, first, (in->n + 1) * sizeof(*pos));
		for (i = 0; i < in->ncl; i++)
			cl[pos[in->cl[i].who - in->d]++] = &in->cl[i];
		free(pos);
	}
	for (i = 0; i < in->n; i++) {
		k = first ? first[i] : 0;
		n = first ? first[i + 1] - k : 0;
		for (s = 0; s < TSA_NSTATES; s++)
			if (in->d[i].ns[s])
				state_lines(f, in, &in->d[i], s, cl ? cl + k :
					    NULL, n);
	}
	free(cl);
	free(first);
	return fflush(f) == EOF || ferror(f) ? -1 : 0;
}
