// SPDX-License-Identifier: GPL-2.0
/*
 * The tables a record and a group carry after them in their slab object
 * (the interrupts table, the distributions, then the calls table), and a
 * reader's copy of them, laid out alike: sizes, offsets, and what is done
 * to a whole block of them. Set once at load, before any record exists.
 */
#include <linux/cache.h>
#include <linux/minmax.h>

#include "tsa_table_internal.h"

/*
 * Rows of each record's tables (0: none): they follow the record, and
 * each group, in its slab object: the interrupts table, the
 * distributions, then the calls table.
 */
static unsigned int tsa_rows[TSA_NR_TABLES];
static enum tsa_hist_mode tsa_hist_mode;	/* a tsa_hist after the tables */

void tsa_table_layout_set(unsigned int calls_rows, unsigned int trap_rows,
			  enum tsa_hist_mode hist)
{
	tsa_rows[TSA_T_CALLS] = min_t(unsigned int, calls_rows, TSA_CALLS_MAX_ROWS);
	tsa_rows[TSA_T_TRAPS] = min_t(unsigned int, trap_rows, TSA_CALLS_MAX_ROWS);
	tsa_hist_mode = hist;
}

unsigned int tsa_table_rows(enum tsa_table k)
{
	return tsa_rows[k];
}

/* With every distribution, the calls table has its calls' durations. */
static bool tsa_table_has_hist(enum tsa_table k)
{
	return tsa_hist_mode == TSA_HIST_ALL && k == TSA_T_CALLS;
}

static size_t tsa_table_bytes(enum tsa_table k)
{
	return tsa_rows[k] ? tsa_calls_size(tsa_rows[k], tsa_table_has_hist(k)) :
		0;
}

/*
 * Where table @k starts at @off or after it: so that its rows each fill
 * a cache line of the record (the slab aligns records to lines), since a
 * call's return writes its row; a row across two lines made a null call
 * write five lines, not four. A group's and a reader's copy of the
 * tables are laid out alike, unaligned.
 */
static size_t tsa_table_align(enum tsa_table k, size_t off)
{
	size_t rows = sizeof(struct tsa_thread) + off + sizeof(struct tsa_calls);

	return tsa_rows[k] ? off + (-rows & (L1_CACHE_BYTES - 1)) : off;
}

/* Where each part starts: interrupts, distributions, calls (last). */
static size_t tsa_traps_off(void)
{
	return tsa_table_align(TSA_T_TRAPS, 0);
}

static size_t tsa_hist_off(void)
{
	return tsa_traps_off() + tsa_table_bytes(TSA_T_TRAPS);
}

/* The end of the distributions: all a kernel thread's record has. */
static size_t tsa_hist_end(void)
{
	return tsa_hist_off() + tsa_hist_size(tsa_hist_mode);
}

static size_t tsa_calls_off(void)
{
	return tsa_table_align(TSA_T_CALLS, tsa_hist_end());
}

/* The bytes of all tables of one record (0: none). */
size_t tsa_table_size(void)
{
	return tsa_calls_off() + tsa_table_bytes(TSA_T_CALLS);
}

/* The bytes of the tables of a kernel thread's record: all but calls. */
size_t tsa_table_size_of(bool kern)
{
	return kern ? tsa_hist_end() : tsa_table_size();
}

enum tsa_hist_mode tsa_table_hist_mode(void)
{
	return tsa_hist_mode;
}

/* The distributions in a block of tables laid out as after each record. */
struct tsa_hist *tsa_table_hist(void *tables)
{
	if (tsa_hist_mode == TSA_HIST_NONE || !tables)
		return NULL;
	return (struct tsa_hist *)((char *)tables + tsa_hist_off());
}

/* Table @k in a block of tables laid out as after each record. */
struct tsa_calls *tsa_table_in(void *tables, enum tsa_table k)
{
	BUILD_BUG_ON(TSA_NR_TABLES != 2);
	if (!tsa_rows[k])
		return NULL;
	return (struct tsa_calls *)((char *)tables +
				    (k == TSA_T_CALLS ? tsa_calls_off() :
				     tsa_traps_off()));
}

/*
 * In a copy of a kernel thread's tables, which has none, an empty calls
 * table: as the record of a thread that never made a call would have.
 */
void tsa_tables_reset_calls(void *tables)
{
	if (tsa_rows[TSA_T_CALLS])
		tsa_calls_reset(tsa_table_in(tables, TSA_T_CALLS),
				tsa_rows[TSA_T_CALLS],
				tsa_table_has_hist(TSA_T_CALLS), false);
}

/*
 * Empty tables, laid out as after a record (a reader's sum); the
 * distributions among them are not summed (the thread file shows none).
 */
void tsa_tables_reset(void *tables)
{
	int k;

	for (k = 0; k < TSA_NR_TABLES; k++)
		if (tsa_rows[k])
			tsa_calls_reset(tsa_table_in(tables, k), tsa_rows[k],
					tsa_table_has_hist(k), false);
}

/* Add the tables @from into @to (both laid out as after a record). */
void tsa_tables_merge(void *to, void *from)
{
	int k;

	for (k = 0; k < TSA_NR_TABLES; k++)
		if (tsa_rows[k])
			tsa_calls_merge(tsa_table_in(to, k),
					tsa_table_in(from, k));
}

/* Each table's rows, most time first. */
void tsa_tables_sort(void *tables)
{
	int k;

	for (k = 0; k < TSA_NR_TABLES; k++)
		if (tsa_rows[k])
			tsa_calls_sort(tsa_table_in(tables, k));
}

/*
 * Point @tab at the tables after an object and say their size, and @hist
 * at its distributions; a kernel thread's (@kern) has no calls table.
 */
void tsa_tables_attach(struct tsa_calls **tab, struct tsa_hist **hist,
			      void *end, bool kern)
{
	int k;

	for (k = 0; k < TSA_NR_TABLES; k++) {
		tab[k] = kern && k == TSA_T_CALLS ? NULL : tsa_table_in(end, k);
		if (tab[k]) {
			tab[k]->max = tsa_rows[k];
			tab[k]->hist = tsa_table_has_hist(k);
		}
	}
	*hist = tsa_table_hist(end);
	if (*hist)
		tsa_hist_layout(*hist, tsa_hist_mode);
}
