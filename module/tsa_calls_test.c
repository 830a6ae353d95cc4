// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the system-call table (tsa_calls.c), driven through the
 * accounting events of tsa_state.c and tsa_edge.h as the hooks drive them.
 */
#include <kunit/test.h>
#include <asm/unistd.h>

#include "tsa_calls.c"
#include "tsa_edge.h"

#define NR_A	1	/* any three numbers: keys are only compared */
#define NR_B	2
#define NR_C	3

static struct tsa_calls *calls_hist(struct kunit *test, unsigned int rows,
				    bool hist)
{
	struct tsa_calls *c = kunit_kzalloc(test, tsa_calls_size(rows, hist),
					    GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	tsa_calls_reset(c, rows, hist, false);
	return c;
}

static struct tsa_calls *calls(struct kunit *test, unsigned int rows)
{
	return calls_hist(test, rows, false);
}

/* A user thread with a calls table of @rows (@hist: with buckets). */
static struct tsa_acct *thread_hist(struct kunit *test, unsigned int rows,
				    u64 now, enum tsa_state s, u8 flags,
				    bool hist)
{
	struct tsa_acct *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->tab[TSA_T_CALLS] = calls_hist(test, rows, hist);
	tsa_acct_init(a, now, s, flags);
	return a;
}

/* A user thread with a calls table of @rows, started at @now. */
static struct tsa_acct *thread(struct kunit *test, unsigned int rows,
			       u64 now, enum tsa_state s, u8 flags)
{
	return thread_hist(test, rows, now, s, flags, false);
}

/* Row @r's calls in buckets. */
static u64 row_bucketed(const struct tsa_calls *c, const struct tsa_call_row *r)
{
	const u64 *b = tsa_calls_b(c, r);
	u64 n = 0;
	int i;

	for (i = 0; i < TSA_HIST_BUCKETS; i++)
		n += b[i];
	return n;
}

static const struct tsa_call_row *row_of(const struct tsa_calls *c, u16 key)
{
	unsigned int i;

	for (i = 0; i < c->rows; i++)
		if (c->row[i].key == key)
			return &c->row[i];
	return NULL;
}

/* Time inside calls: the rows and the other row. */
static u64 tsa_calls_total(const struct tsa_calls *c)
{
	u64 ns = c->other.ns;
	unsigned int i;

	for (i = 0; i < c->rows; i++)
		ns += c->row[i].ns;
	return ns;
}

/* Give row @r of @c @ns more in state @s. */
static void put(struct tsa_calls *c, struct tsa_call_row *r, unsigned int s,
		u64 ns)
{
	if (r != &c->other)
		tsa_call_row_take(r, BIT(s));
	tsa_call_row_put(c, r, s, ns);
	r->ns += ns;
}

/* Every row's states add up to its time; the rows, to the whole. */
static u64 check_rows(struct kunit *test, const struct tsa_calls *c)
{
	u64 total = 0, ns;
	unsigned int i;
	int s;

	for (i = 0; i <= c->rows; i++) {
		const struct tsa_call_row *r = i < c->rows ? &c->row[i] :
						&c->other;

		for (ns = 0, s = 0; s < TSA_NR_STATES; s++)
			ns += tsa_call_row_ns(c, r, s);
		KUNIT_EXPECT_EQ(test, ns, r->ns);
		KUNIT_EXPECT_EQ(test, tsa_call_row_ns(c, r, TSA_USR), 0ULL);
		total += r->ns;
	}
	return total;
}

/* read() that waits for a pipe: SYS, asleep (IDL), LAT, SYS again. */
static void call_time_is_split_by_state(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 8, 0, TSA_USR, 0);
	const struct tsa_call_row *r;

	tsa_acct_sys_enter(a, 10, NR_A);
	tsa_acct_switch_out(a, 12, TSA_SW_BLOCK, TSA_IDL);
	tsa_acct_wakeup(a, 50);
	tsa_acct_switch_in(a, 53, 0);
	tsa_acct_sys_exit(a, 55, NR_A, false);
	r = row_of(a->tab[TSA_T_CALLS], NR_A);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 45ULL);
	KUNIT_EXPECT_EQ(test, r->longest, 45ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(a->tab[TSA_T_CALLS], r, TSA_SYS), 4ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(a->tab[TSA_T_CALLS], r, TSA_IDL), 38ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(a->tab[TSA_T_CALLS], r, TSA_LAT), 3ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 4ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, a->tab[TSA_T_CALLS]), 45ULL);
	/* User time between calls is in no call. */
	tsa_acct_sys_enter(a, 60, NR_A);
	tsa_acct_sys_exit(a, 61, NR_A, false);
	KUNIT_EXPECT_EQ(test, r->calls, 2ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 46ULL);
	KUNIT_EXPECT_EQ(test, r->longest, 45ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].ns, 15ULL);
}

/* Up to a return's clock it is SYS and the call's, on a call that slept too. */
static void a_return_charges_the_call_up_to_its_clock(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 8, 0, TSA_USR, 0);
	const struct tsa_call_row *r;

	tsa_acct_sys_enter(a, 10, NR_A);
	tsa_acct_sys_exit(a, 17, NR_A, false);
	r = row_of(a->tab[TSA_T_CALLS], NR_A);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 7ULL);
	KUNIT_EXPECT_EQ(test, r->longest, 7ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 7ULL);
	KUNIT_EXPECT_EQ(test, (unsigned int)a->state, (unsigned int)TSA_USR);
	tsa_acct_sys_enter(a, 20, NR_A);			/* USR 3 more */
	tsa_acct_switch_out(a, 22, TSA_SW_BLOCK, TSA_IDL);	/* SYS 2 */
	tsa_acct_wakeup(a, 30);					/* IDL 8 */
	tsa_acct_switch_in(a, 31, 0);				/* LAT 1 */
	tsa_acct_sys_exit(a, 40, NR_A, false);			/* SYS 9 */
	KUNIT_EXPECT_EQ(test, r->calls, 2ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 27ULL);
	KUNIT_EXPECT_EQ(test, r->longest, 20ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(a->tab[TSA_T_CALLS], r, TSA_SYS), 18ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(a->tab[TSA_T_CALLS], r, TSA_IDL), 8ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(a->tab[TSA_T_CALLS], r, TSA_LAT), 1ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 18ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].ns, 13ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, a->tab[TSA_T_CALLS]), 27ULL);
	/* A clock behind the last stamp is clamped: the row adds nothing. */
	tsa_acct_sys_enter(a, 50, NR_A);
	KUNIT_EXPECT_TRUE(test, tsa_acct_sys_exit(a, 45, NR_A, false));
	KUNIT_EXPECT_EQ(test, r->calls, 3ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 27ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, a->tab[TSA_T_CALLS]), 27ULL);
}

/*
 * A call seccomp refuses (or a tracer skips) never reaches sys_enter; its
 * return counts it, with no time of its own.
 */
static void call_refused_before_sys_enter_counts_at_return(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 8, 0, TSA_USR, 0);
	const struct tsa_call_row *r;

	tsa_acct_sys_exit(a, 10, NR_A, false);
	r = row_of(a->tab[TSA_T_CALLS], NR_A);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 0ULL);
	KUNIT_EXPECT_EQ(test, a->count[TSA_SCL], 1ULL);
	/* The USR stay goes on through it. */
	KUNIT_EXPECT_EQ(test, (unsigned int)a->state, (unsigned int)TSA_USR);
	KUNIT_EXPECT_EQ(test, a->stamp, 0ULL);
	KUNIT_EXPECT_FALSE(test, a->flags & TSA_F_IN_KERNEL);
	/* The next call is an ordinary one. */
	tsa_acct_sys_enter(a, 20, NR_A);			/* USR 20 */
	tsa_acct_sys_exit(a, 25, NR_A, false);			/* SYS 5 */
	KUNIT_EXPECT_EQ(test, r->calls, 2ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 5ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].ns, 20ULL);
	KUNIT_EXPECT_EQ(test, a->count[TSA_SCL], 2ULL);
}

/*
 * A tracer's syscall-entry stop comes before sys_enter: the call begins
 * at the stop, so the stop and the kernel time after it are the call's
 * and SYS. Its sys_enter (the number changed by the tracer) renames it;
 * a call the tracer skips ends at its return all the same.
 */
static void call_entered_at_a_tracer_stop(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 8, 0, TSA_USR, 0);
	const struct tsa_call_row *r;

	tsa_acct_switch_out(a, 10, TSA_SW_BLOCK, TSA_STP);	/* USR 10 */
	tsa_acct_sys_enter_unseen(a, NR_A, true);
	tsa_acct_wakeup(a, 20);					/* STP 10 */
	tsa_acct_switch_in(a, 21, 0);				/* LAT 1 */
	KUNIT_EXPECT_EQ(test, (unsigned int)a->state, (unsigned int)TSA_SYS);
	tsa_acct_sys_enter(a, 23, NR_B);			/* SYS 2 */
	tsa_acct_sys_exit(a, 30, NR_B, false);			/* SYS 7 */
	KUNIT_EXPECT_EQ(test, a->count[TSA_SCL], 1ULL);
	KUNIT_EXPECT_NULL(test, row_of(a->tab[TSA_T_CALLS], NR_A));
	r = row_of(a->tab[TSA_T_CALLS], NR_B);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 20ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(a->tab[TSA_T_CALLS], r, TSA_STP), 10ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(a->tab[TSA_T_CALLS], r, TSA_LAT), 1ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(a->tab[TSA_T_CALLS], r, TSA_SYS), 9ULL);
	/* Skipped: no sys_enter; the return names it by the stop's number. */
	tsa_acct_switch_out(a, 40, TSA_SW_BLOCK, TSA_STP);	/* USR 10 */
	tsa_acct_sys_enter_unseen(a, NR_A, true);
	tsa_acct_wakeup(a, 50);					/* STP 10 */
	tsa_acct_switch_in(a, 51, 0);				/* LAT 1 */
	tsa_acct_sys_exit(a, 55, NR_C, false);			/* SYS 4 */
	KUNIT_EXPECT_EQ(test, a->count[TSA_SCL], 2ULL);
	r = row_of(a->tab[TSA_T_CALLS], NR_A);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 15ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 13ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].ns, 20ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_STP].ns, 20ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, a->tab[TSA_T_CALLS]), 35ULL);
	/* A stop inside a call (a signal stop) begins nothing. */
	tsa_acct_sys_enter(a, 60, NR_A);			/* USR 5 */
	tsa_acct_switch_out(a, 61, TSA_SW_BLOCK, TSA_STP);
	tsa_acct_sys_enter_unseen(a, NR_B, true);
	KUNIT_EXPECT_EQ(test, a->count[TSA_SCL], 3ULL);
	KUNIT_EXPECT_FALSE(test, a->flags & TSA_F_CALL_EARLY);
}

/* A full table hands its least row to "other": the sum stays exact. */
static void full_table_evicts_the_least_row(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 2, 0, TSA_USR, 0);
	const struct tsa_calls *c = a->tab[TSA_T_CALLS];

	tsa_acct_sys_enter(a, 0, NR_A);
	tsa_acct_sys_exit(a, 10, NR_A, false);
	tsa_acct_sys_enter(a, 10, NR_B);
	tsa_acct_sys_exit(a, 30, NR_B, false);
	tsa_acct_sys_enter(a, 30, NR_C);
	tsa_acct_sys_exit(a, 35, NR_C, false);
	KUNIT_EXPECT_EQ(test, (unsigned int)c->rows, 2U);
	KUNIT_EXPECT_NULL(test, row_of(c, NR_A));
	KUNIT_ASSERT_NOT_NULL(test, row_of(c, NR_C));
	KUNIT_EXPECT_EQ(test, row_of(c, NR_C)->ns, 5ULL);
	KUNIT_EXPECT_EQ(test, c->other.ns, 10ULL);
	KUNIT_EXPECT_EQ(test, c->other.calls, 1ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, c), 35ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 35ULL);
}

/*
 * Alternating calls (a pipe's read and write) find their rows by the two
 * hints, and eviction leaves no hint naming another call's row.
 */
static void alternating_calls_keep_their_rows(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 2, 0, TSA_USR, 0);
	struct tsa_calls *c = a->tab[TSA_T_CALLS];
	u64 t = 0;
	int i;

	for (i = 0; i < 10; i++) {
		tsa_acct_sys_enter(a, t, i & 1 ? NR_B : NR_A);
		tsa_acct_sys_exit(a, t + 3, i & 1 ? NR_B : NR_A, false);
		t += 4;
	}
	KUNIT_EXPECT_EQ(test, (unsigned int)c->rows, 2U);
	KUNIT_ASSERT_NOT_NULL(test, row_of(c, NR_A));
	KUNIT_ASSERT_NOT_NULL(test, row_of(c, NR_B));
	KUNIT_EXPECT_EQ(test, row_of(c, NR_A)->calls, 5ULL);
	KUNIT_EXPECT_EQ(test, row_of(c, NR_B)->calls, 5ULL);
	/*
	 * Both rows hinted, the one taken last first: a hit on the second
	 * hint does not reorder them, so A and B each hit one of them.
	 */
	KUNIT_EXPECT_PTR_EQ(test, tsa_calls_hinted(c, NR_B), row_of(c, NR_B));
	KUNIT_EXPECT_PTR_EQ(test, tsa_calls_hinted(c, NR_A), row_of(c, NR_A));
	KUNIT_EXPECT_EQ(test, (unsigned int)c->hint[0],
			(unsigned int)(row_of(c, NR_B) - c->row));
	KUNIT_EXPECT_EQ(test, (unsigned int)c->hint[1],
			(unsigned int)(row_of(c, NR_A) - c->row));
	/* C evicts the least row (A: 5 calls of 3, as B; the first wins). */
	tsa_acct_sys_enter(a, t, NR_C);
	tsa_acct_sys_exit(a, t + 30, NR_C, false);
	KUNIT_EXPECT_NULL(test, tsa_calls_hinted(c, NR_A));
	KUNIT_EXPECT_EQ(test, row_of(c, NR_C)->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, c->other.calls, 5ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, c), 60ULL);
}

/*
 * The hints are not checked against the rows in use: a row out of use
 * must match no call. Key 0 (read) is what a zeroed row would hold, and
 * rows cleared by a hand-over keep what their calls left.
 */
static void free_rows_match_no_call(struct kunit *test)
{
	struct tsa_calls *c = calls(test, 2);
	struct tsa_call_row *r;
	u64 ns;

	KUNIT_EXPECT_NULL(test, tsa_calls_hinted(c, 0));
	tsa_calls_begin(c, 0);
	r = tsa_calls_end(c, 0, &ns);
	KUNIT_ASSERT_PTR_EQ(test, r, &c->row[0]);
	KUNIT_EXPECT_PTR_EQ(test, tsa_calls_hinted(c, 0), &c->row[0]);
	tsa_calls_begin(c, NR_B);
	tsa_calls_end(c, NR_B, &ns);
	KUNIT_EXPECT_EQ(test, (unsigned int)c->rows, 2U);
	tsa_calls_clear_rows(c);
	KUNIT_EXPECT_NULL(test, tsa_calls_hinted(c, 0));
	/* Nor a hint left at either old row. */
	c->hint[0] = 1;
	KUNIT_EXPECT_NULL(test, tsa_calls_hinted(c, NR_B));
	KUNIT_EXPECT_NULL(test, tsa_calls_hinted(c, 0));
	/* Nor do the keys of no call. */
	KUNIT_EXPECT_NULL(test, tsa_calls_hinted(c, TSA_CALL_NONE));
	KUNIT_EXPECT_NULL(test, tsa_calls_hinted(c, TSA_CALL_UNKNOWN));
	/* Taken again, the row starts from nothing. */
	tsa_calls_begin(c, NR_B);
	r = tsa_calls_end(c, NR_B, &ns);
	KUNIT_ASSERT_PTR_EQ(test, r, &c->row[0]);
	KUNIT_EXPECT_EQ(test, r->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, (unsigned int)c->rows, 1U);
}

/* A merge takes a row only for a call with more time than the least. */
static void merge_keeps_the_biggest(struct kunit *test)
{
	struct tsa_calls *to = calls(test, 1), *from = calls(test, 2);

	to->rows = 1;
	tsa_call_row_clear(&to->row[0], NR_A);
	to->row[0].calls = 1;
	put(to, &to->row[0], TSA_SYS, 100);
	from->rows = 2;
	tsa_call_row_clear(&from->row[0], NR_B);
	put(from, &from->row[0], TSA_LCK, 50);
	tsa_call_row_clear(&from->row[1], NR_C);
	put(from, &from->row[1], TSA_IOW, 200);
	put(from, &from->other, TSA_SLP, 7);
	tsa_calls_merge(to, from);
	KUNIT_EXPECT_EQ(test, (unsigned int)to->rows, 1U);
	KUNIT_EXPECT_EQ(test, to->row[0].key, (u16)NR_C);
	KUNIT_EXPECT_EQ(test, to->other.ns, 157ULL);
	KUNIT_EXPECT_EQ(test, to->other_ns[TSA_SYS], 100ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, to), 357ULL);
}

/*
 * A row has SYS and three more states: a call that needs a fourth moves
 * the row's numbers to the other row, and the row starts again with it;
 * a merge into a row without room does the same. Nothing is lost.
 */
static void row_out_of_slots_moves_to_other(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 8, 0, TSA_USR, 0);
	struct tsa_calls *c = a->tab[TSA_T_CALLS], *sum = calls(test, 8);
	struct tsa_calls *from = calls(test, 8);
	const struct tsa_call_row *r;

	tsa_acct_sys_enter(a, 10, NR_A);
	tsa_acct_switch_out(a, 11, TSA_SW_BLOCK, TSA_IDL);	/* SYS 1 */
	tsa_acct_wakeup(a, 20);					/* IDL 9 */
	tsa_acct_switch_in(a, 22, 0);				/* LAT 2 */
	tsa_acct_switch_out(a, 23, TSA_SW_BLOCK, TSA_IOW);	/* SYS 1 */
	tsa_acct_wakeup(a, 30);					/* IOW 7 */
	tsa_acct_switch_in(a, 31, 0);				/* LAT 1 */
	tsa_acct_sys_exit(a, 32, NR_A, false);			/* SYS 1 */
	r = row_of(c, NR_A);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->ns, 22ULL);
	KUNIT_EXPECT_EQ(test, c->other.ns, 0ULL);
	tsa_acct_sys_enter(a, 40, NR_A);
	tsa_acct_switch_out(a, 41, TSA_SW_BLOCK, TSA_LCK);	/* SYS 1 */
	tsa_acct_wakeup(a, 45);					/* LCK 4 */
	tsa_acct_switch_in(a, 46, 0);				/* LAT 1 */
	tsa_acct_sys_exit(a, 48, NR_A, false);			/* SYS 2 */
	KUNIT_EXPECT_PTR_EQ(test, row_of(c, NR_A), r);
	KUNIT_EXPECT_EQ(test, r->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 8ULL);
	KUNIT_EXPECT_EQ(test, r->longest, 8ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(c, r, TSA_SYS), 3ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(c, r, TSA_LCK), 4ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(c, r, TSA_LAT), 1ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(c, r, TSA_IDL), 0ULL);
	KUNIT_EXPECT_EQ(test, c->other.calls, 1ULL);
	KUNIT_EXPECT_EQ(test, c->other.ns, 22ULL);
	KUNIT_EXPECT_EQ(test, c->other.longest, 22ULL);
	KUNIT_EXPECT_EQ(test, c->other_ns[TSA_SYS], 3ULL);
	KUNIT_EXPECT_EQ(test, c->other_ns[TSA_IDL], 9ULL);
	KUNIT_EXPECT_EQ(test, c->other_ns[TSA_IOW], 7ULL);
	KUNIT_EXPECT_EQ(test, c->other_ns[TSA_LAT], 3ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, c), 30ULL);

	tsa_calls_merge(sum, c);
	from->rows = 1;
	tsa_call_row_clear(&from->row[0], NR_A);
	from->row[0].calls = 2;
	put(from, &from->row[0], TSA_IOW, 5);
	put(from, &from->row[0], TSA_IDL, 6);
	put(from, &from->row[0], TSA_STP, 7);
	tsa_calls_merge(sum, from);
	r = row_of(sum, NR_A);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->calls, 2ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 18ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(sum, r, TSA_STP), 7ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(sum, r, TSA_LCK), 0ULL);
	KUNIT_EXPECT_EQ(test, sum->other.calls, 2ULL);
	KUNIT_EXPECT_EQ(test, sum->other.ns, 30ULL);
	KUNIT_EXPECT_EQ(test, sum->other_ns[TSA_LCK], 4ULL);
	KUNIT_EXPECT_EQ(test, sum->other_ns[TSA_IDL], 9ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, sum), 48ULL);
}

/* A thread born or found inside the kernel: the call is named at return. */
static void call_entered_before_tracking_is_named_at_exit(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 8, 0, TSA_LAT, TSA_F_IN_KERNEL);

	tsa_acct_switch_in(a, 4, 0);
	tsa_acct_sys_exit(a, 6, NR_B, false);
	KUNIT_ASSERT_NOT_NULL(test, row_of(a->tab[TSA_T_CALLS], NR_B));
	KUNIT_EXPECT_EQ(test, row_of(a->tab[TSA_T_CALLS], NR_B)->ns, 6ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(a->tab[TSA_T_CALLS], row_of(a->tab[TSA_T_CALLS], NR_B), TSA_LAT), 4ULL);
	KUNIT_EXPECT_EQ(test, row_of(a->tab[TSA_T_CALLS], NR_B)->calls, 1ULL);
}

static void kernel_thread_is_in_no_call(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 8, 0, TSA_LAT,
				    TSA_F_IN_KERNEL | TSA_F_KTHREAD);

	tsa_acct_switch_in(a, 4, 0);
	tsa_acct_switch_out(a, 9, TSA_SW_BLOCK, TSA_IDL);
	KUNIT_EXPECT_FALSE(test, tsa_calls_in_call(a->tab[TSA_T_CALLS]));
	KUNIT_EXPECT_EQ(test, tsa_calls_total(a->tab[TSA_T_CALLS]), 0ULL);
}

/*
 * A call that has only been on CPU keeps its key in the record, not the
 * table (which it has not written): a reader's copy counts it all the
 * same, and its first stay off CPU moves the key into the table.
 */
static void call_on_cpu_keeps_its_key_in_the_record(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 8, 0, TSA_USR, 0);
	struct tsa_calls *c = a->tab[TSA_T_CALLS];
	struct tsa_calls *copy = calls(test, 8);

	KUNIT_EXPECT_EQ(test, (unsigned int)a->call, (unsigned int)TSA_CALL_NONE);
	tsa_acct_sys_enter_fast(a, 10, NR_A);
	KUNIT_EXPECT_EQ(test, (unsigned int)a->call, (unsigned int)NR_A);
	KUNIT_EXPECT_EQ(test, (unsigned int)c->cur_key, (unsigned int)TSA_CALL_NONE);
	memcpy(copy, c, tsa_calls_size(8, false));
	tsa_acct_table_snapshot(a, TSA_T_CALLS, 30, copy);
	KUNIT_EXPECT_EQ(test, (unsigned int)copy->cur_key, (unsigned int)NR_A);
	KUNIT_ASSERT_NOT_NULL(test, row_of(copy, NR_A));
	KUNIT_EXPECT_EQ(test, row_of(copy, NR_A)->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(copy, row_of(copy, NR_A), TSA_SYS), 20ULL);
	KUNIT_EXPECT_NULL(test, row_of(c, NR_A));
	/* Asleep in it: the key moves, the sleep is the call's. */
	tsa_acct_switch_out(a, 40, TSA_SW_BLOCK, TSA_SLP);
	KUNIT_EXPECT_EQ(test, (unsigned int)a->call, (unsigned int)TSA_CALL_NONE);
	KUNIT_EXPECT_EQ(test, (unsigned int)c->cur_key, (unsigned int)NR_A);
	tsa_acct_wakeup(a, 50);
	tsa_acct_switch_in(a, 55, 0);
	/* Its row has no slot for SLP and LAT yet: the general way. */
	KUNIT_EXPECT_FALSE(test, tsa_acct_sys_exit_fast(a, 60, 0));
	tsa_acct_sys_exit(a, 60, NR_A, false);
	/* The same again, and this time the fast return ends it. */
	tsa_acct_sys_enter_fast(a, 70, NR_A);
	tsa_acct_switch_out(a, 80, TSA_SW_BLOCK, TSA_SLP);
	tsa_acct_wakeup(a, 90);
	tsa_acct_switch_in(a, 95, 0);
	KUNIT_EXPECT_TRUE(test, tsa_acct_sys_exit_plain(a) &&
			  tsa_acct_sys_exit_fast(a, 100, 0));
	KUNIT_EXPECT_EQ(test, (unsigned int)a->call, (unsigned int)TSA_CALL_NONE);
	KUNIT_EXPECT_EQ(test, (unsigned int)c->cur_key, (unsigned int)TSA_CALL_NONE);
	KUNIT_EXPECT_EQ(test, (unsigned int)c->mask, 0U);
	KUNIT_ASSERT_NOT_NULL(test, row_of(c, NR_A));
	KUNIT_EXPECT_EQ(test, row_of(c, NR_A)->calls, 2ULL);
	KUNIT_EXPECT_EQ(test, row_of(c, NR_A)->ns, 80ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(c, row_of(c, NR_A), TSA_SLP), 20ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(c, row_of(c, NR_A), TSA_LAT), 10ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, c), 80ULL);
}

/* A reader's copy counts the call in progress; the record is untouched. */
static void snapshot_counts_the_call_in_progress(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 8, 0, TSA_USR, 0);
	struct tsa_calls *copy = calls(test, 8);

	tsa_acct_sys_enter(a, 10, NR_A);
	tsa_acct_switch_out(a, 12, TSA_SW_BLOCK, TSA_LCK);
	memcpy(copy, a->tab[TSA_T_CALLS], tsa_calls_size(8, false));
	tsa_acct_table_snapshot(a, TSA_T_CALLS, 30, copy);
	KUNIT_ASSERT_NOT_NULL(test, row_of(copy, NR_A));
	KUNIT_EXPECT_EQ(test, row_of(copy, NR_A)->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(copy, row_of(copy, NR_A), TSA_LCK), 18ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, copy), 20ULL);
	KUNIT_EXPECT_EQ(test, (unsigned int)a->tab[TSA_T_CALLS]->rows, 0U);
}

/* exit_group: counted once, at the hand-over; its tail added at the end. */
static void exit_inside_a_call_counts_it_once(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 8, 0, TSA_USR, 0);
	struct tsa_acct *sum = kunit_kzalloc(test, sizeof(*sum), GFP_KERNEL);
	struct tsa_calls *group = calls(test, 8);
	struct tsa_calls *tabs[TSA_NR_TABLES] = { [TSA_T_CALLS] = group };

	KUNIT_ASSERT_NOT_NULL(test, sum);
	tsa_acct_sys_enter(a, 10, NR_C);
	tsa_acct_exit_begin(a, 15, sum, tabs, NULL);
	KUNIT_EXPECT_EQ(test, (unsigned int)a->tab[TSA_T_CALLS]->rows, 0U);
	tsa_acct_exit(a, 20);
	tsa_calls_merge(group, a->tab[TSA_T_CALLS]);
	KUNIT_ASSERT_NOT_NULL(test, row_of(group, NR_C));
	KUNIT_EXPECT_EQ(test, row_of(group, NR_C)->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, row_of(group, NR_C)->ns, 10ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, group), 10ULL);
}

/*
 * With the distributions, each call's whole duration goes to its row's
 * bucket when it returns: on CPU throughout (b0, b3), or asleep for 2 ms
 * of it (b12). A row taken over hands its buckets to the other row; a
 * reader's copy has the call in progress counted but open (cur_key); a
 * merge adds buckets; an exit's hand-over counts the call it exits in
 * with its time until then.
 */
static void call_durations_in_buckets(struct kunit *test)
{
	struct tsa_acct *a = thread_hist(test, 2, 0, TSA_USR, 0, true);
	struct tsa_calls *c = a->tab[TSA_T_CALLS], *copy, *group;
	struct tsa_calls *tabs[TSA_NR_TABLES];
	struct tsa_acct *sum = kunit_kzalloc(test, sizeof(*sum), GFP_KERNEL);
	const struct tsa_call_row *r;

	KUNIT_ASSERT_NOT_NULL(test, sum);
	tsa_acct_sys_enter(a, 10, NR_A);
	tsa_acct_sys_exit(a, 110, NR_A, false);			/* 100 ns */
	tsa_acct_sys_enter(a, 200, NR_A);
	tsa_acct_sys_exit(a, 5200, NR_A, false);		/* 5 us */
	tsa_acct_sys_enter(a, 10000, NR_B);
	tsa_acct_switch_out(a, 10100, TSA_SW_BLOCK, TSA_IDL);
	tsa_acct_wakeup(a, 2010100);
	tsa_acct_switch_in(a, 2010200, 1);
	tsa_acct_sys_exit(a, 2010300, NR_B, false);		/* 2.0003 ms */
	r = row_of(c, NR_A);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, tsa_calls_b(c, r)[0], 1ULL);
	KUNIT_EXPECT_EQ(test, tsa_calls_b(c, r)[3], 1ULL);
	r = row_of(c, NR_B);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, tsa_calls_b(c, r)[12], 1ULL);
	KUNIT_EXPECT_EQ(test, row_bucketed(c, r), 1ULL);

	/* A third call takes A's row (the least time): A's buckets move. */
	tsa_acct_sys_enter(a, 3000000, NR_C);
	tsa_acct_sys_exit(a, 3000050, NR_C, false);
	KUNIT_EXPECT_NULL(test, row_of(c, NR_A));
	KUNIT_EXPECT_EQ(test, tsa_calls_b(c, &c->other)[0], 1ULL);
	KUNIT_EXPECT_EQ(test, tsa_calls_b(c, &c->other)[3], 1ULL);
	r = row_of(c, NR_C);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, tsa_calls_b(c, r)[0], 1ULL);
	KUNIT_EXPECT_EQ(test, tsa_calls_b(c, r)[3], 0ULL);

	/* B again, asleep at a read: counted in the copy, in no bucket. */
	tsa_acct_sys_enter(a, 4000000, NR_B);
	tsa_acct_switch_out(a, 4000100, TSA_SW_BLOCK, TSA_IDL);
	copy = calls_hist(test, 2, true);
	memcpy(copy, c, tsa_calls_size(2, true));
	tsa_acct_table_snapshot(a, TSA_T_CALLS, 9000000, copy);
	KUNIT_EXPECT_EQ(test, (unsigned int)copy->cur_key, (unsigned int)NR_B);
	r = row_of(copy, NR_B);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->calls, 2ULL);
	KUNIT_EXPECT_EQ(test, row_bucketed(copy, r), 1ULL);
	/* Sorted, the rows keep their own buckets: B (most time) first. */
	KUNIT_EXPECT_EQ(test, (unsigned int)copy->row[0].key, (unsigned int)NR_B);
	KUNIT_EXPECT_EQ(test, tsa_calls_b(copy, &copy->row[0])[12], 1ULL);
	KUNIT_EXPECT_EQ(test, tsa_calls_b(copy, &copy->row[1])[0], 1ULL);

	/* exit_group inside B: its 1 ms until the hand-over, in b11. */
	group = calls_hist(test, 2, true);
	memset(tabs, 0, sizeof(tabs));
	tabs[TSA_T_CALLS] = group;
	tsa_acct_wakeup(a, 5000000);
	tsa_acct_switch_in(a, 5000000, 1);
	tsa_acct_exit_begin(a, 5000000, sum, tabs, NULL);
	r = row_of(group, NR_B);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->calls, 2ULL);
	KUNIT_EXPECT_EQ(test, tsa_calls_b(group, r)[11], 1ULL);
	KUNIT_EXPECT_EQ(test, tsa_calls_b(group, r)[12], 1ULL);
	KUNIT_EXPECT_EQ(test, row_bucketed(group, &group->other), 2ULL);
	tsa_acct_exit(a, 5000100);
	KUNIT_EXPECT_EQ(test, row_bucketed(c, &c->other), 0ULL);

	/*
	 * A thread found inside a call at load (a provisional record)
	 * whose call returns before it is seeded: the record starts again
	 * there, its table empty, buckets too.
	 */
	a = thread_hist(test, 2, 0, TSA_SYS,
			TSA_F_IN_KERNEL | TSA_F_PROVISIONAL, true);
	c = a->tab[TSA_T_CALLS];
	tsa_acct_sys_exit(a, 100, NR_A, false);
	KUNIT_EXPECT_FALSE(test, !!(a->flags & TSA_F_PROVISIONAL));
	KUNIT_EXPECT_EQ(test, (unsigned int)c->rows, 0U);
	KUNIT_EXPECT_EQ(test, row_bucketed(c, &c->row[0]), 0ULL);
	KUNIT_EXPECT_EQ(test, row_bucketed(c, &c->other), 0ULL);
	tsa_acct_sys_enter(a, 200, NR_B);
	tsa_acct_sys_exit(a, 300, NR_B, false);
	r = row_of(c, NR_B);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, row_bucketed(c, r), r->calls);
}

/* A reader's sort: rows by time, most first, each with its own buckets. */
static void sort_moves_buckets_with_rows(struct kunit *test)
{
	static const u64 ns[] = { 30, 70, 10, 70, 50, 20, 90, 40 };
	struct tsa_calls *c = calls_hist(test, 8, true);
	unsigned int i;

	for (i = 0; i < 8; i++) {
		c->row[i].key = i;
		c->row[i].ns = ns[i];
		c->row[i].calls = i + 1;
		tsa_calls_b(c, &c->row[i])[i] = 100 + i;	/* its mark */
	}
	c->rows = 8;
	tsa_calls_b(c, &c->other)[3] = 7;
	tsa_calls_sort(c);
	for (i = 0; i < 8; i++) {
		const struct tsa_call_row *r = &c->row[i];

		if (i)
			KUNIT_EXPECT_TRUE(test, r[-1].ns > r->ns ||
					  (r[-1].ns == r->ns && r[-1].key < r->key));
		KUNIT_EXPECT_EQ(test, r->ns, ns[r->key]);
		KUNIT_EXPECT_EQ(test, r->calls, (u64)r->key + 1);
		KUNIT_EXPECT_EQ(test, tsa_calls_b(c, r)[r->key], 100ULL + r->key);
		KUNIT_EXPECT_EQ(test, row_bucketed(c, r), 100ULL + r->key);
	}
	KUNIT_EXPECT_EQ(test, (unsigned int)c->row[0].key, 6U);
	KUNIT_EXPECT_EQ(test, (unsigned int)c->row[1].key, 1U);
	KUNIT_EXPECT_EQ(test, (unsigned int)c->row[2].key, 3U);
	KUNIT_EXPECT_EQ(test, tsa_calls_b(c, &c->other)[3], 7ULL);
}

/*
 * Traps: a hard interrupt inside a softirq inside a system call. The
 * thread's TRP is one stay; the sources split it, each counted once; the
 * call's row has it as TRP.
 */
static void nested_traps_split_trp_by_source(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 8, 0, TSA_USR, 0);
	u16 net = tsa_trap_key(false, 3), irq = tsa_trap_key(true, 24);
	const struct tsa_call_row *r;
	struct tsa_calls *t;

	a->tab[TSA_T_TRAPS] = calls(test, TSA_TRAP_ROWS);
	t = a->tab[TSA_T_TRAPS];
	tsa_acct_sys_enter(a, 10, NR_A);
	tsa_acct_trap_enter(a, 12, net);		/* SYS 2 */
	tsa_acct_trap_nest(a, 15, irq, false);		/* NET_RX 3 */
	tsa_acct_trap_nest(a, 16, net, true);		/* irq 1 */
	tsa_acct_trap_exit(a, 20);			/* NET_RX 4 more */
	tsa_acct_sys_exit(a, 25, NR_A, false);			/* SYS 5 */
	KUNIT_EXPECT_EQ(test, a->st[TSA_TRP].ns, 8ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_TRP].entries, 1ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 7ULL);
	r = row_of(t, net);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 7ULL);
	r = row_of(t, irq);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 1ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, t), 8ULL);
	r = row_of(a->tab[TSA_T_CALLS], NR_A);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(a->tab[TSA_T_CALLS], r, TSA_TRP), 8ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(a->tab[TSA_T_CALLS], r, TSA_SYS), 7ULL);
	KUNIT_EXPECT_STREQ(test, tsa_softirq_name(net), "NET_RX");
	KUNIT_EXPECT_NULL(test, tsa_softirq_name(irq));
}

/*
 * PREEMPT_RT: a softirq in task context is preempted. Its time off CPU
 * is LAT, not TRP, and not the softirq's; back on CPU it is TRP again,
 * and the whole softirq counts once.
 */
static void preempted_trap_leaves_and_resumes(struct kunit *test)
{
	struct tsa_acct *a = thread(test, 8, 0, TSA_SYS, TSA_F_KTHREAD |
				    TSA_F_IN_KERNEL);
	u16 net = tsa_trap_key(false, 3);
	const struct tsa_call_row *r;
	struct tsa_calls *t;

	a->tab[TSA_T_TRAPS] = calls(test, TSA_TRAP_ROWS);
	t = a->tab[TSA_T_TRAPS];
	tsa_acct_trap_enter(a, 10, net);			/* SYS 10 */
	tsa_acct_switch_out(a, 14, TSA_SW_PREEMPT, TSA_SLP);	/* TRP 4 */
	tsa_acct_trap_suspend(a);
	tsa_acct_switch_in(a, 20, 0);				/* LAT 6 */
	tsa_acct_trap_enter(a, 20, net);
	KUNIT_EXPECT_EQ(test, (unsigned int)a->state, (unsigned int)TSA_TRP);
	tsa_acct_trap_exit(a, 23);				/* TRP 3 */
	KUNIT_EXPECT_EQ(test, (unsigned int)a->state, (unsigned int)TSA_SYS);
	KUNIT_EXPECT_EQ(test, a->st[TSA_TRP].ns, 7ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_LAT].ns, 6ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_TRP].entries, 2ULL);
	r = row_of(t, net);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->calls, 1ULL);
	KUNIT_EXPECT_EQ(test, r->ns, 7ULL);
	KUNIT_EXPECT_EQ(test, tsa_call_row_ns(t, r, TSA_TRP), 7ULL);
	KUNIT_EXPECT_EQ(test, check_rows(test, t), 7ULL);
	/* Not in a trap: nothing to leave; not on CPU: nothing resumes. */
	tsa_acct_trap_suspend(a);
	tsa_acct_switch_out(a, 30, TSA_SW_BLOCK, TSA_SLP);
	KUNIT_EXPECT_FALSE(test, tsa_acct_trap_enter(a, 31, net));
	KUNIT_EXPECT_EQ(test, (unsigned int)a->state, (unsigned int)TSA_SLP);
	KUNIT_EXPECT_EQ(test, r->calls, 1ULL);
}

static void keys_tell_the_tables_apart(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, tsa_call_key(0, false), (u16)0);
	KUNIT_EXPECT_EQ(test, tsa_call_key(3, true), (u16)(TSA_CALL_IA32 | 3));
	KUNIT_EXPECT_EQ(test, tsa_call_key(0x40000000L | 17, false),
			(u16)(TSA_CALL_X32 | 17));
	KUNIT_EXPECT_EQ(test, tsa_call_key(-1, false), (u16)TSA_CALL_OTHER);
	KUNIT_EXPECT_EQ(test, tsa_call_key(1L << 20, false),
			(u16)TSA_CALL_OTHER);
	KUNIT_EXPECT_STREQ(test, tsa_call_name(tsa_call_key(__NR_read, false)),
			   "read");
	KUNIT_EXPECT_STREQ(test, tsa_call_name(tsa_call_key(__NR_futex, false)),
			   "futex");
	KUNIT_EXPECT_NULL(test, tsa_call_name(TSA_CALL_OTHER));
}

/* Do @a and @b hold the same numbers, tables included? */
static bool same_records(const struct tsa_acct *a, const struct tsa_acct *b,
			 unsigned int rows)
{
	/* All but the table and distribution pointers, which come last. */
	static_assert(offsetof(struct tsa_acct, tab) + sizeof(a->tab) +
		      sizeof(a->hist) == sizeof(*a));

	return !memcmp(a, b, offsetof(struct tsa_acct, tab)) &&
		!memcmp(a->tab[TSA_T_CALLS], b->tab[TSA_T_CALLS],
			tsa_calls_size(rows, a->tab[TSA_T_CALLS]->hist));
}

/*
 * What of a table anyone reads: its header, the rows in use and their
 * buckets, and the call in progress's time by state (under its mask).
 * Free rows and the rest of cur[] are never read (a row is cleared when
 * a call takes it).
 */
static bool same_tables(const struct tsa_calls *a, const struct tsa_calls *b)
{
	unsigned int i;
	int s;

	if (a->cur_key != b->cur_key || a->mask != b->mask ||
	    a->rows != b->rows || a->max != b->max || a->hist != b->hist ||
	    memcmp(a->hint, b->hint, sizeof(a->hint)) ||
	    memcmp(a->other_ns, b->other_ns, sizeof(a->other_ns)) ||
	    memcmp(&a->other, &b->other, sizeof(a->other)) ||
	    memcmp(a->row, b->row, a->rows * sizeof(a->row[0])))
		return false;
	for (s = 0; s < TSA_NR_STATES; s++)
		if ((a->mask & BIT(s)) && a->cur[s] != b->cur[s])
			return false;
	for (i = 0; a->hist && i < a->rows; i++)
		if (memcmp(tsa_calls_b(a, &a->row[i]), tsa_calls_b(b, &b->row[i]),
			   TSA_HIST_BUCKETS * sizeof(u64)))
			return false;
	return !a->hist ||
		!memcmp(tsa_calls_b(a, &a->other), tsa_calls_b(b, &b->other),
			TSA_HIST_BUCKETS * sizeof(u64));
}

/* The same books, tables and distributions (laid out as TSA_HIST_ALL). */
static bool same_books(const struct tsa_acct *a, const struct tsa_acct *b)
{
	return !memcmp(a, b, offsetof(struct tsa_acct, tab)) &&
		same_tables(a->tab[TSA_T_CALLS], b->tab[TSA_T_CALLS]) &&
		!memcmp(a->hist, b->hist, tsa_hist_size(TSA_HIST_ALL));
}

/* A day of calls, sleeps and preemptions, the same for each record. */
static void some_calls(struct tsa_acct *a, u64 t, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++, t += 40) {
		tsa_acct_sys_enter(a, t, i % 7);
		if (i % 3 == 1) {
			tsa_acct_switch_out(a, t + 5, TSA_SW_BLOCK, TSA_IDL);
			tsa_acct_wakeup(a, t + 9);
			tsa_acct_switch_in(a, t + 12, i % 2);
		} else if (i % 5 == 2) {
			tsa_acct_switch_out(a, t + 4, TSA_SW_PREEMPT, 0);
			tsa_acct_switch_in(a, t + 8, 0);
		}
		tsa_acct_sys_exit(a, t + 20, i % 7, false);
	}
}

/*
 * Both records, in a call, go to sleep in @s at @out, are woken at @wake
 * and switched in on @cpu at @in.
 */
static void both_sleep(struct tsa_acct *g, struct tsa_acct *f, u64 out,
		       u64 wake, u64 in, enum tsa_state s, int cpu)
{
	tsa_acct_switch_out(g, out, TSA_SW_BLOCK, s);
	tsa_acct_switch_out(f, out, TSA_SW_BLOCK, s);
	tsa_acct_wakeup(g, wake);
	tsa_acct_wakeup(f, wake);
	tsa_acct_switch_in(g, in, cpu);
	tsa_acct_switch_in(f, in, cpu);
}

/*
 * The fork hook starts a record as its allocation left it
 * (tsa_tables_prepare() on zeroed memory, then tsa_acct_init_fresh()),
 * without zeroing it again: it must start, and go on, exactly as a
 * record that had been used and then started by tsa_acct_init() does,
 * outside a call, inside one (a thread born in the kernel), and as a
 * kernel thread.
 */
static void a_fresh_record_starts_as_a_used_one(struct kunit *test)
{
	static const u8 flags[] = { 0, TSA_F_IN_KERNEL,
				    TSA_F_IN_KERNEL | TSA_F_KTHREAD };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		struct tsa_acct *used = thread_hist(test, 4, 0, TSA_USR, 0,
						    true);
		struct tsa_acct *fresh = kunit_kzalloc(test, sizeof(*fresh),
						       GFP_KERNEL);
		struct tsa_calls *c = kunit_kzalloc(test,
						    tsa_calls_size(4, true),
						    GFP_KERNEL);
		size_t hsize = tsa_hist_size(TSA_HIST_ALL);
		struct tsa_hist *uh = kunit_kzalloc(test, hsize, GFP_KERNEL);
		struct tsa_hist *fh = kunit_kzalloc(test, hsize, GFP_KERNEL);
		enum tsa_state s = flags[i] ? TSA_SYS : TSA_LAT;
		bool kthread = flags[i] & TSA_F_KTHREAD;

		KUNIT_ASSERT_NOT_NULL(test, fresh);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_ASSERT_NOT_NULL(test, uh);
		KUNIT_ASSERT_NOT_NULL(test, fh);
		/* As tsa_tables_attach() lays a new record's tables out. */
		c->max = 4;
		c->hist = true;
		fresh->tab[TSA_T_CALLS] = c;
		tsa_hist_layout(fh, TSA_HIST_ALL);
		fresh->hist = fh;
		tsa_tables_prepare(fresh->tab);
		tsa_hist_layout(uh, TSA_HIST_ALL);
		used->hist = uh;

		some_calls(used, 100, 30);
		tsa_acct_init(used, 5000, s, flags[i]);
		tsa_acct_init_fresh(fresh, 5000, s, flags[i]);
		KUNIT_EXPECT_TRUE_MSG(test, same_books(used, fresh),
				      "flags %#x: records differ at the start",
				      flags[i]);
		/* A kernel thread makes no calls: the start is all. */
		if (kthread)
			continue;
		if (s == TSA_SYS) {	/* the call it was born in returns */
			tsa_acct_sys_exit(used, 5010, NR_A, false);
			tsa_acct_sys_exit(fresh, 5010, NR_A, false);
		} else {
			tsa_acct_switch_in(used, 5010, 0);
			tsa_acct_switch_in(fresh, 5010, 0);
		}
		some_calls(used, 6000, 30);
		some_calls(fresh, 6000, 30);
		KUNIT_EXPECT_TRUE_MSG(test, same_books(used, fresh),
				      "flags %#x: records differ after 30 calls",
				      flags[i]);
	}
}

/*
 * The syscall probes take tsa_edge.h's fast paths when they may, and the
 * general functions otherwise: the record must come out the same as if
 * every call had gone the general way. Six calls on four rows (hint
 * misses, free rows taken, rows taken over), calls that are preempted or
 * sleep, and clocks that go backwards on either edge.
 */
static void fast_edges_leave_the_general_record(struct kunit *test)
{
	/* With buckets: both paths count each call in the same one. */
	struct tsa_acct *g = thread_hist(test, 4, 0, TSA_USR, 0, true);
	struct tsa_acct *f = thread_hist(test, 4, 0, TSA_USR, 0, true);
	const struct tsa_calls *gc = g->tab[TSA_T_CALLS];
	const struct tsa_calls *fc = f->tab[TSA_T_CALLS];
	unsigned int i, fast_in = 0, fast_out = 0, slow_out = 0, takes = 0;
	u64 t = 10;

	for (i = 0; i < 200; i++) {
		/* Mostly two calls in turn (a pipe), now and then others. */
		u16 key = i % 10 < 7 ? i % 2 : i % 6;
		/* Now and then a clock behind the stamp. */
		u64 in = i % 11 == 4 ? g->stamp - 3 : t, out;
		unsigned int rows;

		tsa_acct_sys_enter(g, in, key);
		if (tsa_acct_sys_enter_plain(f)) {
			tsa_acct_sys_enter_fast(f, in, key);
			fast_in++;
		} else {
			tsa_acct_sys_enter(f, in, key);
		}
		/* Both leave the key in the record's first line. */
		KUNIT_ASSERT_TRUE_MSG(test, same_records(g, f, 4),
				      "records differ after entry %u", i);
		KUNIT_ASSERT_EQ(test, (unsigned int)f->call, (unsigned int)key);
		if (i % 5 == 2) {		/* preempted in the call */
			tsa_acct_switch_out(g, in + 1, TSA_SW_PREEMPT, 0);
			tsa_acct_switch_out(f, in + 1, TSA_SW_PREEMPT, 0);
			tsa_acct_switch_in(g, in + 2, 0);
			tsa_acct_switch_in(f, in + 2, 0);
		} else if (i % 9 == 1) {	/* asleep in it */
			both_sleep(g, f, in + 1, in + 3, in + 4, TSA_IDL, 1);
		}
		out = i % 13 == 6 ? g->stamp - 2 : g->stamp + 5 + i * 37 % 50;
		/* The exit path's calibrated cost, as the probe gives it. */
		tsa_acct_sys_exit(g, out, key, false);
		tsa_acct_set_head(g, i % 4);
		rows = fc->rows;
		if (tsa_acct_sys_exit_plain(f) &&
		    tsa_acct_sys_exit_fast(f, out, i % 4)) {
			fast_out++;
			takes += fc->rows > rows;	/* a free row taken */
		} else {
			tsa_acct_sys_exit(f, out, key, false);
			tsa_acct_set_head(f, i % 4);
			slow_out++;
		}
		KUNIT_ASSERT_TRUE_MSG(test, same_records(g, f, 4),
				      "records differ after call %u", i);
		t = g->stamp + 7;
	}
	kunit_info(test, "fast entries %u, fast returns %u (%u taking a free row), general returns %u\n",
		   fast_in, fast_out, takes, slow_out);
	/* Rows taken over moved their buckets to the other row. */
	for (i = 0; i < gc->rows; i++)
		KUNIT_EXPECT_EQ(test, row_bucketed(gc, &gc->row[i]),
				gc->row[i].calls);
	KUNIT_EXPECT_EQ(test, row_bucketed(gc, &gc->other), gc->other.calls);
	KUNIT_EXPECT_EQ(test, fast_in, 200U);
	KUNIT_EXPECT_GT(test, fast_out, 50U);
	/* The first calls of the four rows took them the fast way. */
	KUNIT_EXPECT_GT(test, takes, 0U);
	/* Rows taken over, calls out of slots, clocks behind the stamp. */
	KUNIT_EXPECT_GT(test, slow_out, 20U);
	KUNIT_EXPECT_GT(test, g->clamps, 0ULL);
}

/*
 * A fast return goes by the key its entry left, not by the number at the
 * return: a call that may hand over a signal (rt_sigtimedwait), or one a
 * 32-bit task entered, goes the general way, with nothing changed; so
 * does any call of a record whose writers are held (a seeder, a reader);
 * and without a calls table the fast way leaves the general record.
 */
static void fast_return_goes_by_the_entry_key(struct kunit *test)
{
	static const u16 general[] = { __NR_rt_sigtimedwait,
				       TSA_CALL_IA32 | NR_A };
	struct tsa_acct *g = thread(test, 4, 0, TSA_USR, 0);
	struct tsa_acct *f = thread(test, 4, 0, TSA_USR, 0);
	struct tsa_acct *copy = thread(test, 4, 0, TSA_USR, 0);
	struct tsa_calls *copy_c = copy->tab[TSA_T_CALLS];
	unsigned int i;
	u64 t = 10;

	for (i = 0; i < ARRAY_SIZE(general); i++, t += 100) {
		u16 key = general[i];

		tsa_acct_sys_enter(g, t, key);
		tsa_acct_sys_enter(f, t, key);
		KUNIT_ASSERT_TRUE(test, tsa_acct_sys_exit_plain(f));
		*copy = *f;
		copy->tab[TSA_T_CALLS] = copy_c;
		memcpy(copy_c, f->tab[TSA_T_CALLS], tsa_calls_size(4, false));
		KUNIT_EXPECT_FALSE_MSG(test, tsa_acct_sys_exit_fast(f, t + 9, 0),
				       "key %#x went the fast way", key);
		KUNIT_EXPECT_TRUE_MSG(test, same_records(copy, f, 4),
				      "key %#x: the record changed", key);
		tsa_acct_sys_exit(g, t + 9, key, i == 0);
		tsa_acct_sys_exit(f, t + 9, key, i == 0);
		KUNIT_EXPECT_TRUE(test, same_records(g, f, 4));
	}
	/* The signal rt_sigtimedwait handed over, counted the general way. */
	KUNIT_EXPECT_EQ(test, f->count[TSA_SIG], 1ULL);

	/* Held: neither edge is plain, whatever the state. */
	f->hold = 1;
	KUNIT_EXPECT_FALSE(test, tsa_acct_sys_enter_plain(f));
	tsa_acct_sys_enter(f, t, NR_A);
	KUNIT_EXPECT_FALSE(test, tsa_acct_sys_exit_plain(f));
	f->hold = 0;
	KUNIT_EXPECT_TRUE(test, tsa_acct_sys_exit_plain(f));
	tsa_acct_sys_exit(f, t + 5, NR_A, false);

	/* No calls table (calls=0): the key waits in the record alone. */
	g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);
	KUNIT_ASSERT_NOT_NULL(test, f);
	tsa_acct_init(g, 0, TSA_USR, 0);
	tsa_acct_init(f, 0, TSA_USR, 0);
	for (i = 0; i < 20; i++, t += 50) {
		u16 key = i % 5 == 4 ? __NR_rt_sigtimedwait : i % 3;

		tsa_acct_sys_enter(g, t, key);
		KUNIT_ASSERT_TRUE(test, tsa_acct_sys_enter_plain(f));
		tsa_acct_sys_enter_fast(f, t, key);
		if (i % 4 == 1)
			both_sleep(g, f, t + 2, t + 4, t + 6, TSA_SLP, 0);
		tsa_acct_sys_exit(g, t + 9, key, false);
		tsa_acct_set_head(g, i % 3);
		KUNIT_ASSERT_TRUE(test, tsa_acct_sys_exit_plain(f));
		if (tsa_acct_sys_exit_fast(f, t + 9, i % 3)) {
			KUNIT_EXPECT_NE(test, (unsigned int)key,
					(unsigned int)__NR_rt_sigtimedwait);
		} else {
			KUNIT_EXPECT_EQ(test, (unsigned int)key,
					(unsigned int)__NR_rt_sigtimedwait);
			tsa_acct_sys_exit(f, t + 9, key, false);
			tsa_acct_set_head(f, i % 3);
		}
		KUNIT_ASSERT_TRUE_MSG(test,
				      !memcmp(g, f, offsetof(struct tsa_acct, tab)),
				      "records without a table differ after call %u",
				      i);
	}
}

/* A fault's return as its probe's general path makes it. */
static void fault_exit_general(struct tsa_acct *a, u64 now, u8 saved,
			       unsigned int ff, unsigned int ret, u16 head)
{
	bool was_sys = a->state == TSA_SYS;

	tsa_acct_fault_exit(a, now, saved, ff, ret);
	if (was_sys)
		tsa_acct_set_head(a, head);
}

/*
 * The fault probe takes tsa_edge.h's fast edges for a plain user fault:
 * the record must come out as if every fault had gone the general way.
 * Data and text faults, retried, failed and major ones, kernel-mode
 * faults inside a call, faults that are preempted or sleep, and clocks
 * that go backwards on either edge.
 */
static void fast_fault_edges_leave_the_general_record(struct kunit *test)
{
	struct tsa_acct *g = thread_hist(test, 4, 0, TSA_USR, 0, true);
	struct tsa_acct *f = thread_hist(test, 4, 0, TSA_USR, 0, true);
	unsigned int i, fast_in = 0, fast_out = 0, slow_in = 0, slow_out = 0;
	u64 t = 10;
	u8 gs, fs;

	for (i = 0; i < 300; i++) {
		bool in_call = i % 10 == 5;
		unsigned int ff = in_call ? 0 : i % 7 == 3 ?
			FAULT_FLAG_USER | FAULT_FLAG_INSTRUCTION :
			FAULT_FLAG_USER;
		unsigned int ret = i % 8 == 1 ? VM_FAULT_RETRY :
			i % 9 == 2 ? VM_FAULT_MAJOR :
			i % 17 == 3 ? VM_FAULT_SIGSEGV : 0;
		u8 kind = tsa_fault_kind(ff);
		u64 in = i % 11 == 4 ? g->stamp - 3 : t, out;
		struct tsa_block_info bi = { .task_state = TASK_UNINTERRUPTIBLE };

		if (in_call) {
			tsa_acct_sys_enter(g, in, 0);
			tsa_acct_sys_enter(f, in, 0);
			in += 1;
		}
		tsa_acct_fault_enter(g, in, kind, &gs);
		if (tsa_acct_fault_enter_plain(f)) {
			fs = 0;
			tsa_acct_fault_enter_fast(f, in, kind);
			fast_in++;
		} else {
			tsa_acct_fault_enter(f, in, kind, &fs);
			slow_in++;
		}
		if (i % 5 == 2) {		/* preempted in the fault */
			tsa_acct_switch_out(g, in + 1, TSA_SW_PREEMPT, 0);
			tsa_acct_switch_out(f, in + 1, TSA_SW_PREEMPT, 0);
			tsa_acct_switch_in(g, in + 2, 0);
			tsa_acct_switch_in(f, in + 2, 0);
		} else if (i % 6 == 1) {	/* asleep in it (reading a page) */
			bi.ctx = g->ctx;
			both_sleep(g, f, in + 1, in + 3, in + 4,
				   tsa_classify_sleep(bi), 1);
		}
		out = i % 13 == 6 ? g->stamp - 2 : g->stamp + 5 + i * 37 % 50;
		fault_exit_general(g, out, gs, ff, ret, i % 4);
		if (tsa_acct_fault_exit_plain(f, fs, ret)) {
			tsa_acct_fault_exit_fast(f, out, ff, ret, i % 4);
			fast_out++;
		} else {
			fault_exit_general(f, out, fs, ff, ret, i % 4);
			slow_out++;
		}
		if (in_call) {
			tsa_acct_sys_exit(g, out + 1, 0, false);
			tsa_acct_sys_exit(f, out + 1, 0, false);
		}
		KUNIT_ASSERT_TRUE_MSG(test, same_records(g, f, 4),
				      "records differ after fault %u", i);
		t = g->stamp + 7;
	}
	kunit_info(test, "fast entries %u, general %u; fast returns %u, general %u\n",
		   fast_in, slow_in, fast_out, slow_out);
	KUNIT_EXPECT_GT(test, fast_in, 150U);
	KUNIT_EXPECT_GT(test, slow_in, 30U);
	KUNIT_EXPECT_GT(test, fast_out, 150U);
	KUNIT_EXPECT_GT(test, slow_out, 30U);
	KUNIT_EXPECT_GT(test, g->count[TSA_MINF], 100ULL);
	KUNIT_EXPECT_GT(test, g->count[TSA_MAJF], 10ULL);
	KUNIT_EXPECT_GT(test, g->st[TSA_DFL].entries, 10ULL);
	KUNIT_EXPECT_GT(test, g->clamps, 0ULL);
}

static struct kunit_case tsa_calls_cases[] = {
	KUNIT_CASE(call_on_cpu_keeps_its_key_in_the_record),
	KUNIT_CASE(fast_edges_leave_the_general_record),
	KUNIT_CASE(fast_return_goes_by_the_entry_key),
	KUNIT_CASE(a_fresh_record_starts_as_a_used_one),
	KUNIT_CASE(fast_fault_edges_leave_the_general_record),
	KUNIT_CASE(call_time_is_split_by_state),
	KUNIT_CASE(a_return_charges_the_call_up_to_its_clock),
	KUNIT_CASE(call_refused_before_sys_enter_counts_at_return),
	KUNIT_CASE(call_entered_at_a_tracer_stop),
	KUNIT_CASE(full_table_evicts_the_least_row),
	KUNIT_CASE(alternating_calls_keep_their_rows),
	KUNIT_CASE(free_rows_match_no_call),
	KUNIT_CASE(merge_keeps_the_biggest),
	KUNIT_CASE(row_out_of_slots_moves_to_other),
	KUNIT_CASE(call_entered_before_tracking_is_named_at_exit),
	KUNIT_CASE(kernel_thread_is_in_no_call),
	KUNIT_CASE(snapshot_counts_the_call_in_progress),
	KUNIT_CASE(exit_inside_a_call_counts_it_once),
	KUNIT_CASE(call_durations_in_buckets),
	KUNIT_CASE(sort_moves_buckets_with_rows),
	KUNIT_CASE(nested_traps_split_trp_by_source),
	KUNIT_CASE(preempted_trap_leaves_and_resumes),
	KUNIT_CASE(keys_tell_the_tables_apart),
	{}
};

static struct kunit_suite tsa_calls_suite = {
	.name = "tsa_calls",
	.test_cases = tsa_calls_cases,
};

kunit_test_suites(&tsa_calls_suite);
