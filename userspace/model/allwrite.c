// SPDX-License-Identifier: GPL-2.0
/*
 * model/allwrite.c - the /proc/tsa/all format written (tsa_write_head(),
 * tsa_write_row(): captures, recordings, test fixtures), apart from its
 * reader in model/all.c; the column names are the reader's, backwards.
 */
#include <inttypes.h>
#include <stdio.h>

#include "all.h"
#include "util.h"

/* The columns of each layout, in order (comm, always last, apart). */
static size_t layout_fields(enum tsa_layout l, int *out)
{
	size_t n = 0;
	int k, f;

	for (f = F_TID; f <= F_ELAPSED; f++)
		out[n++] = f;
	if (l == TSA_LAYOUT_COMPARE) {
		out[n++] = F_AT;
		for (k = 0; k < TSA_NSTATES; k++)
			out[n++] = F_NS + k;
	} else {
		out[n++] = F_STATE;
		out[n++] = F_STATE_NS;
		for (k = 0; k < TSA_NSTATES; k++) {
			out[n++] = F_NS + k;
			out[n++] = F_N + k;
			out[n++] = F_MAX + k;
		}
	}
	for (k = 0; k < TSA_NCOUNTERS; k++)
		out[n++] = F_CNT + k;
	if (l == TSA_LAYOUT_FULL)
		out[n++] = F_AT;
	return n;
}

/* A column's name as the kernel writes it: field_index() backwards. */
static void put_field_name(FILE *f, int fi)
{
	static const char *const fixed[] = {
		"tid", "pid", "uid", "flags", "elapsed", "state", "state_ns",
		"at",
	};
	static const char *const suffix[] = { "_ns", "_n", "_max" };
	const char *name;
	int j;

	if (fi < F_NS) {
		fputs(fixed[fi], f);
		return;
	}
	name = fi < F_CNT ? tsa_state_name[(fi - F_NS) % TSA_NSTATES] :
	       tsa_counter_name[fi - F_CNT];
	for (j = 0; name[j]; j++)
		fputc(name[j] | 0x20, f);
	if (fi < F_CNT)
		fputs(suffix[(fi - F_NS) / TSA_NSTATES], f);
}

void tsa_write_head(FILE *f, uint64_t now, enum tsa_layout l)
{
	int cols[F_NUM];
	size_t n = layout_fields(l, cols), i;
	int k;

	fprintf(f, "tsa-all 1\nnow %" PRIu64 "\nstates", now);
	for (k = 0; k < TSA_NSTATES; k++)
		fprintf(f, " %s", tsa_state_name[k]);
	fputs("\nfields", f);
	for (i = 0; i < n; i++) {
		fputc(' ', f);
		put_field_name(f, cols[i]);
	}
	fputs(" comm\n", f);
}

void tsa_write_row(FILE *f, const struct tsa_row *r, enum tsa_layout l)
{
	int cols[F_NUM];
	size_t n = layout_fields(l, cols), i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s%" PRIu64, i ? " " : "", r->v[cols[i]]);
	fputc(' ', f);
	fput_escaped(f, r->comm);
	fputc('\n', f);
}
