// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for wakeup attribution (tsa_wakers.c, and its use by the
 * wakeup and switch-in of tsa_edge.h): the rows and the other row always
 * hold exactly the stays that wakeups ended.
 */
#include <kunit/test.h>

#include "tsa_wakers.c"
#include "tsa_edge.h"

#define MS 1000000ULL

static const struct tsa_waker_id tid5 = { .who = 5, .start = 500 };
static const struct tsa_waker_id tid6 = { .who = 6, .start = 600 };
static const struct tsa_waker_id tid7 = { .who = 7, .start = 700 };

static struct tsa_wakers *wakers(struct kunit *test)
{
	struct tsa_wakers *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	return w;
}

static u64 total_ns(const struct tsa_wakers *w)
{
	return w->row[0].ns + w->row[1].ns + w->other_ns;
}

static u64 total_n(const struct tsa_wakers *w)
{
	return (u64)w->row[0].n + w->row[1].n + w->other_n;
}

static void a_waker_adds_up_in_its_row(struct kunit *test)
{
	struct tsa_wakers *w = wakers(test);
	unsigned int i, j;

	i = tsa_wakers_end(w, tid5, TSA_LCK, 3 * MS);
	j = tsa_wakers_end(w, tid5, TSA_LCK, 5 * MS);
	KUNIT_EXPECT_EQ(test, i, j);
	KUNIT_EXPECT_EQ(test, w->row[i].n, 2U);
	KUNIT_EXPECT_EQ(test, w->row[i].ns, 8 * MS);
	KUNIT_EXPECT_EQ(test, w->row[i].longest, 5 * MS);
	KUNIT_EXPECT_EQ(test, tsa_wk_state(w->row[i].who), (unsigned int)TSA_LCK);
	KUNIT_EXPECT_EQ(test, w->row[i].start, 500ULL);
	tsa_wakers_lat(w, i, 7);
	KUNIT_EXPECT_EQ(test, w->row[i].lat, 7ULL);
	KUNIT_EXPECT_EQ(test, w->other_n, 0ULL);
}

/* The same waker in another state, or a reused tid, is another row. */
static void state_and_start_tell_rows_apart(struct kunit *test)
{
	struct tsa_wakers *w = wakers(test);
	struct tsa_waker_id reused = { .who = 5, .start = 501 };
	unsigned int i, j, k;

	i = tsa_wakers_end(w, tid5, TSA_LCK, 1 * MS);
	j = tsa_wakers_end(w, tid5, TSA_IDL, 2 * MS);
	KUNIT_EXPECT_NE(test, i, j);
	/* Both rows taken: the reused tid's takes the least one's place. */
	k = tsa_wakers_end(w, reused, TSA_LCK, 4 * MS);
	KUNIT_EXPECT_EQ(test, k, i);
	KUNIT_EXPECT_EQ(test, w->row[k].start, 501ULL);
	KUNIT_EXPECT_EQ(test, w->row[k].ns, 4 * MS);
	KUNIT_EXPECT_EQ(test, w->other_ns, 1 * MS);
	KUNIT_EXPECT_EQ(test, total_ns(w), 7 * MS);
	KUNIT_EXPECT_EQ(test, total_n(w), 3ULL);
}

/* A new waker takes the least row's place; its numbers go to other. */
static void the_least_row_makes_way(struct kunit *test)
{
	struct tsa_wakers *w = wakers(test);
	unsigned int i5, i6, i7;

	i5 = tsa_wakers_end(w, tid5, TSA_SLP, 9 * MS);
	i6 = tsa_wakers_end(w, tid6, TSA_SLP, 2 * MS);
	tsa_wakers_lat(w, i6, 3);
	i7 = tsa_wakers_end(w, tid7, TSA_SLP, 1 * MS);
	KUNIT_EXPECT_EQ(test, i7, i6);
	KUNIT_EXPECT_EQ(test, w->row[i7].who, 7U | TSA_SLP << TSA_WK_STATE_SHIFT);
	KUNIT_EXPECT_EQ(test, w->row[i7].n, 1U);
	KUNIT_EXPECT_EQ(test, w->row[i7].lat, 0ULL);
	KUNIT_EXPECT_EQ(test, w->row[i5].ns, 9 * MS);
	KUNIT_EXPECT_EQ(test, w->other_n, 1ULL);
	KUNIT_EXPECT_EQ(test, w->other_ns, 2 * MS);
	KUNIT_EXPECT_EQ(test, w->other_lat, 3ULL);
	KUNIT_EXPECT_EQ(test, w->other_longest, 2 * MS);
	KUNIT_EXPECT_EQ(test, total_ns(w), 12 * MS);
	KUNIT_EXPECT_EQ(test, total_n(w), 3ULL);
}

/* A row's 32-bit count never wraps: it moves to other and starts again. */
static void a_full_count_moves_to_other(struct kunit *test)
{
	struct tsa_wakers *w = wakers(test);
	unsigned int i;

	i = tsa_wakers_end(w, tid5, TSA_IDL, 1);
	w->row[i].n = U32_MAX;
	tsa_wakers_end(w, tid5, TSA_IDL, 1);
	KUNIT_EXPECT_EQ(test, w->row[i].n, 1U);
	KUNIT_EXPECT_EQ(test, w->other_n, (u64)U32_MAX);
	KUNIT_EXPECT_EQ(test, total_n(w), (u64)U32_MAX + 1);
	KUNIT_EXPECT_EQ(test, total_ns(w), 2ULL);
}

/* A thread's table into its process's: nothing lost or counted twice. */
static void merge_keeps_every_wakeup(struct kunit *test)
{
	struct tsa_wakers *to = wakers(test), *from = wakers(test);
	unsigned int i;

	tsa_wakers_end(to, tid5, TSA_LCK, 10 * MS);
	tsa_wakers_end(to, tid6, TSA_LCK, 1 * MS);
	tsa_wakers_end(from, tid5, TSA_LCK, 2 * MS);
	tsa_wakers_end(from, tid7, TSA_LCK, 5 * MS);
	tsa_wakers_end(from, tid6, TSA_IDL, 1);		/* 5's 2 ms to other */
	KUNIT_EXPECT_EQ(test, from->other_ns, 2 * MS);
	/* 6 IDL (1 ns) is less than any row: other; 7 displaces 6 LCK. */
	tsa_wakers_merge(to, from);
	KUNIT_EXPECT_EQ(test, total_ns(to), 18 * MS + 1);
	KUNIT_EXPECT_EQ(test, total_n(to), 5ULL);
	KUNIT_EXPECT_EQ(test, to->other_ns, 3 * MS + 1);
	tsa_wakers_sort(to);
	KUNIT_EXPECT_EQ(test, to->row[0].who & TSA_WK_TID_MASK, 5U);
	KUNIT_EXPECT_EQ(test, to->row[0].ns, 10 * MS);
	KUNIT_EXPECT_EQ(test, to->row[1].who & TSA_WK_TID_MASK, 7U);
	for (i = 0; i < TSA_WAKER_ROWS; i++)
		KUNIT_EXPECT_NE(test, to->row[i].who & TSA_WK_TID_MASK, 6U);
}

static void contexts_are_not_threads(struct kunit *test)
{
	u32 who = tsa_wk_ctx(TSA_WK_SOFTIRQ, 3) | TSA_IDL << TSA_WK_STATE_SHIFT;

	KUNIT_EXPECT_EQ(test, tsa_wk_kind(who), TSA_WK_SOFTIRQ);
	KUNIT_EXPECT_EQ(test, tsa_wk_state(who), (unsigned int)TSA_IDL);
	KUNIT_EXPECT_EQ(test, who & TSA_WK_SRC_MASK, 3U);
	KUNIT_EXPECT_EQ(test, tsa_wk_kind(5), TSA_WK_THREAD);
	KUNIT_EXPECT_EQ(test, tsa_wk_kind(TSA_WK_TID_MASK), TSA_WK_THREAD);
}

/*
 * Through the record: a sleep ended by a wakeup goes to its waker, with
 * the LAT that follows; a preemption's LAT goes nowhere.
 */
static void a_wakeup_charges_its_waker(struct kunit *test)
{
	struct tsa_acct *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	u8 last = 0;
	unsigned int s;
	u64 from;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, a);
	tsa_acct_init(a, 0, TSA_USR, 0);
	tsa_acct_switch_out(a, 10 * MS, TSA_SW_BLOCK, TSA_LCK);
	tsa_acct_wakeup_by(a, 40 * MS, tid5, &last);
	KUNIT_ASSERT_NE(test, last, 0);
	i = last - 1;
	KUNIT_EXPECT_EQ(test, a->wk.row[i].ns, 30 * MS);
	KUNIT_EXPECT_EQ(test, a->wk.row[i].n, 1U);
	KUNIT_EXPECT_EQ(test, a->st[TSA_LCK].ns, 30 * MS);
	from = a->stamp;
	s = a->state;
	tsa_acct_switch_in(a, 42 * MS, 0);
	tsa_acct_waker_lat(a, &last, s, from);
	KUNIT_EXPECT_EQ(test, a->wk.row[i].lat, 2 * MS);
	KUNIT_EXPECT_EQ(test, last, 0);
	/* Preempted: LAT, but no waker's. */
	tsa_acct_switch_out(a, 50 * MS, TSA_SW_PREEMPT, TSA_SLP);
	tsa_acct_switch_in(a, 55 * MS, 0);
	KUNIT_EXPECT_EQ(test, a->wk.row[i].lat, 2 * MS);
	KUNIT_EXPECT_EQ(test, a->st[TSA_LAT].ns, 7 * MS);
	/* A thread's exit hands its wakers to the process's sum. */
	{
		struct tsa_acct *sum = kunit_kzalloc(test, sizeof(*sum),
						     GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, sum);
		tsa_acct_exit_begin(a, 60 * MS, sum, NULL, NULL);
		KUNIT_EXPECT_EQ(test, total_ns(&sum->wk), 30 * MS);
		KUNIT_EXPECT_EQ(test, total_ns(&a->wk), 0ULL);
	}
}

/*
 * A hard interrupt's hrtimer that expires inside a timer-wheel callback
 * (review F5): its exit once cleared the CPU's one mark, and the outer
 * callback's later wakeups were the softirq's. Levels as preempt_count()
 * has them: softirq being served 0x100, hardirq 0x10000 (the mask here).
 */
static void a_nested_timer_leaves_the_outer_ones(struct kunit *test)
{
	const unsigned int hard = 0xf0000, soft = 0x100, irq = 0x10000;
	struct tsa_wk_timers t = { };

	tsa_wk_timers_enter(&t, soft, hard);
	KUNIT_EXPECT_TRUE(test, tsa_wk_timers_own(&t, soft, hard));
	/* An interrupt in the callback, no timer of its own: not a timer's. */
	KUNIT_EXPECT_FALSE(test, tsa_wk_timers_own(&t, soft | irq, hard));
	tsa_wk_timers_enter(&t, soft | irq, hard);
	KUNIT_EXPECT_TRUE(test, tsa_wk_timers_own(&t, soft | irq, hard));
	tsa_wk_timers_leave(&t, soft | irq, hard);
	KUNIT_EXPECT_FALSE(test, tsa_wk_timers_own(&t, soft | irq, hard));
	/* Back in the outer callback: its wakeups are still the timer's. */
	KUNIT_EXPECT_TRUE(test, tsa_wk_timers_own(&t, soft, hard));
	tsa_wk_timers_leave(&t, soft, hard);
	KUNIT_EXPECT_FALSE(test, tsa_wk_timers_own(&t, soft, hard));
	/* A hard timer alone, outside softirqs. */
	tsa_wk_timers_enter(&t, irq, hard);
	KUNIT_EXPECT_TRUE(test, tsa_wk_timers_own(&t, irq, hard));
	KUNIT_EXPECT_FALSE(test, tsa_wk_timers_own(&t, soft, hard));
}

/*
 * The thread that execs in a process, not its leader, is given the
 * leader's tid and start time (de_thread()): its identity must still
 * differ from the old leader's, and be the same at every wakeup.
 */
static void an_exec_does_not_take_the_leaders_identity(struct kunit *test)
{
	static int leader, other;

	KUNIT_EXPECT_NE(test, tsa_wk_ident(1000, &leader),
			tsa_wk_ident(1000, &other));
	KUNIT_EXPECT_EQ(test, tsa_wk_ident(1000, &leader),
			tsa_wk_ident(1000, &leader));
	KUNIT_EXPECT_NE(test, tsa_wk_ident(1000, &leader),
			tsa_wk_ident(1001, &leader));
}

static struct kunit_case tsa_wakers_cases[] = {
	KUNIT_CASE(a_waker_adds_up_in_its_row),
	KUNIT_CASE(state_and_start_tell_rows_apart),
	KUNIT_CASE(the_least_row_makes_way),
	KUNIT_CASE(a_full_count_moves_to_other),
	KUNIT_CASE(merge_keeps_every_wakeup),
	KUNIT_CASE(contexts_are_not_threads),
	KUNIT_CASE(a_wakeup_charges_its_waker),
	KUNIT_CASE(a_nested_timer_leaves_the_outer_ones),
	KUNIT_CASE(an_exec_does_not_take_the_leaders_identity),
	{}
};

static struct kunit_suite tsa_wakers_suite = {
	.name = "tsa_wakers",
	.test_cases = tsa_wakers_cases,
};

kunit_test_suites(&tsa_wakers_suite);
