// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the pure accounting logic in tsa_state.c. The logic is
 * compiled into this test module directly, so the tests need neither the
 * hooks nor a kernel that has them.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/sched.h>

#include "tsa_state.c"
#include "tsa_edge.h"

#define MS 1000000ULL

/* Records are big: keep them off the (KASAN-padded) test stacks. */
static struct tsa_acct *acct(struct kunit *test)
{
	struct tsa_acct *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	return a;
}

static u64 sum_ns(const struct tsa_acct *a)
{
	u64 s = 0;
	int i;

	for (i = 0; i < TSA_NR_STATES; i++)
		s += a->st[i].ns;
	return s;
}

/* Snapshot at @now and check the rule every read must keep. */
static void expect_sums(struct kunit *test, const struct tsa_acct *a, u64 now)
{
	struct tsa_acct *snap = acct(test);

	tsa_acct_snapshot(a, now, snap);
	KUNIT_EXPECT_EQ(test, sum_ns(snap), tsa_acct_elapsed(snap));
}

static void new_thread_starts_in_given_state(struct kunit *test)
{
	struct tsa_acct *a = acct(test);

	tsa_acct_init(a, 100, TSA_LAT, TSA_F_IN_KERNEL);
	KUNIT_EXPECT_EQ(test, a->state, TSA_LAT);
	KUNIT_EXPECT_EQ(test, a->st[TSA_LAT].entries, 1ULL);
	KUNIT_EXPECT_EQ(test, a->since, 100ULL);
	KUNIT_EXPECT_EQ(test, tsa_acct_elapsed(a), 0ULL);
	KUNIT_EXPECT_EQ(test, a->last_cpu, TSA_NO_CPU);
}

/* One transition: from a state, an event, to a state, with counters. */
struct transition_case {
	const char *name;
	enum tsa_state from;
	u8 flags;
	int event;
	enum tsa_switch_kind kind;
	enum tsa_state sleep;
	enum tsa_state to;
	enum tsa_counter counter;	/* bumped by one, or TSA_NR_COUNTERS */
};

enum { EV_OUT, EV_IN, EV_WAKE, EV_SYS_ENTER, EV_SYS_EXIT };

static const struct transition_case transitions[] = {
	{ "user thread blocks into SLP", TSA_USR, 0, EV_OUT, TSA_SW_BLOCK,
	  TSA_SLP, TSA_SLP, TSA_VCX },
	{ "kernel-mode sleep into STP", TSA_SYS, TSA_F_IN_KERNEL, EV_OUT,
	  TSA_SW_BLOCK, TSA_STP, TSA_STP, TSA_VCX },
	{ "preemption makes LAT", TSA_USR, 0, EV_OUT, TSA_SW_PREEMPT,
	  TSA_SLP, TSA_LAT, TSA_ICX },
	{ "sleep undone by signal is LAT and voluntary", TSA_SYS,
	  TSA_F_IN_KERNEL, EV_OUT, TSA_SW_SIGNAL, TSA_SLP, TSA_LAT, TSA_VCX },
	{ "switch-in in user mode is USR", TSA_LAT, 0, EV_IN, 0, 0, TSA_USR,
	  TSA_NR_COUNTERS },
	{ "switch-in in a syscall is SYS", TSA_LAT, TSA_F_IN_KERNEL, EV_IN, 0,
	  0, TSA_SYS, TSA_NR_COUNTERS },
	{ "wakeup from SLP is LAT", TSA_SLP, TSA_F_IN_KERNEL, EV_WAKE, 0, 0,
	  TSA_LAT, TSA_NR_COUNTERS },
	{ "wakeup from STP is LAT", TSA_STP, TSA_F_IN_KERNEL, EV_WAKE, 0, 0,
	  TSA_LAT, TSA_NR_COUNTERS },
	{ "wakeup of a running thread changes nothing", TSA_SYS,
	  TSA_F_IN_KERNEL, EV_WAKE, 0, 0, TSA_SYS, TSA_NR_COUNTERS },
	{ "wakeup of a runnable thread changes nothing", TSA_LAT, 0, EV_WAKE,
	  0, 0, TSA_LAT, TSA_NR_COUNTERS },
	{ "syscall entry is SYS", TSA_USR, 0, EV_SYS_ENTER, 0, 0, TSA_SYS,
	  TSA_SCL },
	{ "syscall exit is USR", TSA_SYS, TSA_F_IN_KERNEL, EV_SYS_EXIT, 0, 0,
	  TSA_USR, TSA_NR_COUNTERS },
	{ "syscall exit of a runnable thread keeps LAT", TSA_LAT,
	  TSA_F_IN_KERNEL, EV_SYS_EXIT, 0, 0, TSA_LAT, TSA_NR_COUNTERS },
};

static void transition_desc(const struct transition_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(transition, transitions, transition_desc);

static bool run_event(struct tsa_acct *a, const struct transition_case *c,
		      u64 now)
{
	switch (c->event) {
	case EV_OUT:
		return tsa_acct_switch_out(a, now, c->kind, c->sleep);
	case EV_IN:
		return tsa_acct_switch_in(a, now, 0);
	case EV_WAKE:
		return tsa_acct_wakeup(a, now);
	case EV_SYS_ENTER:
		return tsa_acct_sys_enter(a, now, 0);
	default:
		return tsa_acct_sys_exit(a, now, 0, false);
	}
}

static void transition_charges_the_state_left(struct kunit *test)
{
	const struct transition_case *c = test->param_value;
	u64 before[TSA_NR_COUNTERS];
	struct tsa_acct *a = acct(test);
	int i;

	tsa_acct_init(a, 1000, c->from, c->flags);
	memcpy(before, a->count, sizeof(before));
	KUNIT_EXPECT_FALSE(test, run_event(a, c, 1000 + 7 * MS));
	KUNIT_EXPECT_EQ(test, a->state, c->to);
	/* An event that changes nothing charges nothing yet. */
	KUNIT_EXPECT_EQ(test, a->st[c->from].ns, c->to == c->from ? 0 : 7 * MS);
	KUNIT_EXPECT_EQ(test, a->st[c->to].entries, 1ULL);
	for (i = 0; i < TSA_NR_COUNTERS; i++)
		KUNIT_EXPECT_EQ(test, a->count[i],
				before[i] + (i == c->counter ? 1 : 0));
	expect_sums(test, a, 1000 + 9 * MS);
}

/* A full life: born, runs, syscalls, sleeps, is preempted, dies. */
static void life_of_a_thread_sums_exactly(struct kunit *test)
{
	struct tsa_acct *a = acct(test), *snap = acct(test);

	tsa_acct_init(a, 0, TSA_LAT, TSA_F_IN_KERNEL);
	tsa_acct_switch_in(a, 1 * MS, 0);		/* LAT 1 */
	tsa_acct_sys_exit(a, 2 * MS, 0, false);			/* SYS 1 */
	tsa_acct_sys_enter(a, 5 * MS, 0);			/* USR 3 */
	tsa_acct_switch_out(a, 6 * MS, TSA_SW_BLOCK, TSA_SLP); /* SYS 1 */
	tsa_acct_wakeup(a, 106 * MS);			/* SLP 100 */
	tsa_acct_switch_in(a, 108 * MS, 1);		/* LAT 2 */
	tsa_acct_sys_exit(a, 109 * MS, 0, false);		/* SYS 1 */
	tsa_acct_switch_out(a, 119 * MS, TSA_SW_PREEMPT, TSA_SLP); /* USR 10 */
	tsa_acct_switch_in(a, 120 * MS, 1);		/* LAT 1 */
	tsa_acct_sys_enter(a, 125 * MS, 0);		/* USR 5 */
	tsa_acct_exit(a, 126 * MS);			/* SYS 1 */

	KUNIT_EXPECT_EQ(test, a->st[TSA_LAT].ns, 4 * MS);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 4 * MS);
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].ns, 18 * MS);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SLP].ns, 100 * MS);
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].longest, 10 * MS);
	KUNIT_EXPECT_EQ(test, a->st[TSA_LAT].longest, 2 * MS);
	KUNIT_EXPECT_EQ(test, a->st[TSA_LAT].entries, 3ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].entries, 3ULL);
	KUNIT_EXPECT_EQ(test, a->count[TSA_VCX], 2ULL);	/* sleep + death */
	KUNIT_EXPECT_EQ(test, a->count[TSA_ICX], 1ULL);
	KUNIT_EXPECT_EQ(test, a->count[TSA_SCL], 2ULL);
	KUNIT_EXPECT_EQ(test, a->count[TSA_MIG], 1ULL);
	KUNIT_EXPECT_EQ(test, tsa_acct_elapsed(a), 126 * MS);
	KUNIT_EXPECT_EQ(test, sum_ns(a), 126 * MS);

	/* Dead: events change nothing and reads do not count up. */
	KUNIT_EXPECT_TRUE(test, !!(a->flags & TSA_F_DEAD));
	tsa_acct_wakeup(a, 200 * MS);
	tsa_acct_switch_in(a, 201 * MS, 0);
	KUNIT_EXPECT_EQ(test, tsa_acct_snapshot(a, 300 * MS, snap), 0ULL);
	KUNIT_EXPECT_EQ(test, tsa_acct_elapsed(snap), 126 * MS);
	KUNIT_EXPECT_EQ(test, sum_ns(snap), 126 * MS);
}

static void read_mid_state_counts_up_to_now(struct kunit *test)
{
	struct tsa_acct *a = acct(test), *snap = acct(test);

	tsa_acct_init(a, 10, TSA_LAT, 0);
	tsa_acct_switch_in(a, 10 + 2 * MS, 0);
	KUNIT_EXPECT_EQ(test, tsa_acct_snapshot(a, 10 + 5 * MS, snap),
			3 * MS);
	KUNIT_EXPECT_EQ(test, snap->st[TSA_USR].ns, 3 * MS);
	KUNIT_EXPECT_EQ(test, snap->st[TSA_USR].longest, 3 * MS);
	KUNIT_EXPECT_EQ(test, tsa_acct_elapsed(snap), 5 * MS);
	KUNIT_EXPECT_EQ(test, sum_ns(snap), 5 * MS);
	/* The record itself is untouched by a read. */
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].ns, 0ULL);
	KUNIT_EXPECT_EQ(test, a->stamp, 10 + 2 * MS);
}

static void clock_going_backwards_is_clamped_and_counted(struct kunit *test)
{
	struct tsa_acct *a = acct(test);

	tsa_acct_init(a, 10 * MS, TSA_LAT, 0);
	tsa_acct_switch_in(a, 12 * MS, 0);
	/* Another CPU's clock is 1 ms behind. */
	KUNIT_EXPECT_TRUE(test, tsa_acct_switch_out(a, 11 * MS,
						    TSA_SW_PREEMPT, TSA_SLP));
	KUNIT_EXPECT_EQ(test, a->clamps, 1ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].ns, 0ULL);
	KUNIT_EXPECT_EQ(test, a->stamp, 12 * MS);
	KUNIT_EXPECT_EQ(test, a->state, TSA_LAT);
	KUNIT_EXPECT_FALSE(test, tsa_acct_switch_in(a, 13 * MS, 0));
	KUNIT_EXPECT_EQ(test, a->st[TSA_LAT].ns, 3 * MS);
	expect_sums(test, a, 20 * MS);
}

static void reader_clock_behind_record_is_clamped_silently(struct kunit *test)
{
	struct tsa_acct *a = acct(test), *snap = acct(test);

	tsa_acct_init(a, 10 * MS, TSA_LAT, 0);
	tsa_acct_switch_in(a, 12 * MS, 0);
	KUNIT_EXPECT_EQ(test, tsa_acct_snapshot(a, 11 * MS, snap), 0ULL);
	KUNIT_EXPECT_EQ(test, snap->clamps, 0ULL);
	KUNIT_EXPECT_EQ(test, tsa_acct_elapsed(snap), 2 * MS);
	KUNIT_EXPECT_EQ(test, sum_ns(snap), 2 * MS);
}

static void migration_counts_a_change_of_cpu(struct kunit *test)
{
	struct tsa_acct *a = acct(test);

	tsa_acct_init(a, 0, TSA_LAT, 0);
	tsa_acct_switch_in(a, 1, 3);		/* first run: no migration */
	tsa_acct_switch_out(a, 2, TSA_SW_PREEMPT, TSA_SLP);
	tsa_acct_switch_in(a, 3, 3);		/* same CPU */
	KUNIT_EXPECT_EQ(test, a->count[TSA_MIG], 0ULL);
	tsa_acct_switch_out(a, 4, TSA_SW_PREEMPT, TSA_SLP);
	tsa_acct_switch_in(a, 5, 1);
	KUNIT_EXPECT_EQ(test, a->count[TSA_MIG], 1ULL);
}

static void same_state_is_not_a_new_entry(struct kunit *test)
{
	struct tsa_acct *a = acct(test);

	tsa_acct_init(a, 0, TSA_SYS, TSA_F_IN_KERNEL);
	tsa_acct_sys_enter(a, 5, 0);	/* already SYS */
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].entries, 1ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 0ULL);
	tsa_acct_enter(a, 9, TSA_SYS);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].entries, 1ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 9ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].longest, 9ULL);
}

/* A thread seeded at load starts counting at its first sure event. */
static void provisional_record_starts_at_first_event(struct kunit *test)
{
	struct tsa_acct *a = acct(test);

	tsa_acct_init(a, 100, TSA_SLP, TSA_F_SINCE_LOAD | TSA_F_PROVISIONAL);
	tsa_acct_switch_out(a, 500, TSA_SW_BLOCK, TSA_SLP);
	KUNIT_EXPECT_FALSE(test, !!(a->flags & TSA_F_PROVISIONAL));
	KUNIT_EXPECT_TRUE(test, !!(a->flags & TSA_F_SINCE_LOAD));
	KUNIT_EXPECT_EQ(test, a->since, 500ULL);
	KUNIT_EXPECT_EQ(test, a->state, TSA_SLP);
	KUNIT_EXPECT_EQ(test, a->count[TSA_VCX], 1ULL);
	KUNIT_EXPECT_EQ(test, sum_ns(a), 0ULL);

	/* A wakeup of a provisional record means it was asleep until now. */
	tsa_acct_init(a, 100, TSA_SLP, TSA_F_SINCE_LOAD | TSA_F_PROVISIONAL);
	tsa_acct_wakeup(a, 300);
	KUNIT_EXPECT_EQ(test, a->state, TSA_LAT);
	KUNIT_EXPECT_EQ(test, a->since, 300ULL);

	/* Dying before the seed resolves adds nothing. */
	tsa_acct_init(a, 100, TSA_SLP, TSA_F_SINCE_LOAD | TSA_F_PROVISIONAL);
	tsa_acct_exit(a, 300);
	KUNIT_EXPECT_TRUE(test, !!(a->flags & TSA_F_DEAD));
	KUNIT_EXPECT_EQ(test, sum_ns(a), 0ULL);
}

static void process_totals_sum_threads(struct kunit *test)
{
	struct tsa_acct *sum = acct(test), *t1 = acct(test), *t2 = acct(test);

	memset(sum, 0, sizeof(*sum));
	sum->flags = TSA_F_DEAD;
	tsa_acct_init(t1, 0, TSA_LAT, 0);
	tsa_acct_switch_in(t1, 2 * MS, 0);
	tsa_acct_exit(t1, 5 * MS);
	tsa_acct_init(t2, 1 * MS, TSA_LAT, 0);
	tsa_acct_switch_in(t2, 2 * MS, 0);
	tsa_acct_exit(t2, 9 * MS);
	tsa_acct_add(sum, t1);
	tsa_acct_add(sum, t2);
	KUNIT_EXPECT_EQ(test, sum->st[TSA_USR].ns, 10 * MS);
	KUNIT_EXPECT_EQ(test, sum->st[TSA_LAT].ns, 3 * MS);
	KUNIT_EXPECT_EQ(test, sum->st[TSA_USR].longest, 7 * MS);
	KUNIT_EXPECT_EQ(test, sum->count[TSA_VCX], 2ULL);
	KUNIT_EXPECT_EQ(test, tsa_acct_elapsed(sum), 13 * MS);
	KUNIT_EXPECT_EQ(test, sum_ns(sum), tsa_acct_elapsed(sum));
}

/*
 * do_exit() hands the numbers so far to the totals; the last switch-out
 * adds the tail. The totals end as if the whole life had been added once.
 */
static void exit_hands_over_then_adds_the_tail(struct kunit *test)
{
	struct tsa_acct *sum = acct(test), *a = acct(test);

	memset(sum, 0, sizeof(*sum));
	sum->flags = TSA_F_DEAD;
	tsa_acct_init(a, 0, TSA_LAT, 0);
	tsa_acct_switch_in(a, 2 * MS, 0);
	tsa_acct_sys_enter(a, 5 * MS, 0);			/* USR 3 */
	tsa_acct_exit_begin(a, 7 * MS, sum, NULL, NULL);	/* SYS 2 so far */
	KUNIT_EXPECT_TRUE(test, !!(a->flags & TSA_F_EXITING));
	KUNIT_EXPECT_EQ(test, tsa_acct_elapsed(sum), 7 * MS);
	KUNIT_EXPECT_EQ(test, sum->st[TSA_SYS].ns, 2 * MS);
	KUNIT_EXPECT_EQ(test, sum_ns(a), 0ULL);
	/* Only once: a second call changes nothing. */
	tsa_acct_exit_begin(a, 8 * MS, sum, NULL, NULL);
	KUNIT_EXPECT_EQ(test, tsa_acct_elapsed(sum), 7 * MS);

	tsa_acct_exit(a, 10 * MS);			/* SYS 3 more */
	tsa_acct_add(sum, a);
	KUNIT_EXPECT_EQ(test, sum->st[TSA_SYS].ns, 5 * MS);
	KUNIT_EXPECT_EQ(test, sum->st[TSA_USR].ns, 3 * MS);
	KUNIT_EXPECT_EQ(test, sum->st[TSA_LAT].ns, 2 * MS);
	KUNIT_EXPECT_EQ(test, sum->st[TSA_SYS].entries, 1ULL);
	KUNIT_EXPECT_EQ(test, sum->count[TSA_SCL], 1ULL);
	KUNIT_EXPECT_EQ(test, sum->count[TSA_VCX], 1ULL);
	KUNIT_EXPECT_EQ(test, tsa_acct_elapsed(sum), 10 * MS);
	KUNIT_EXPECT_EQ(test, sum_ns(sum), tsa_acct_elapsed(sum));
}

/* The first bucket whose bound @ns is within, by the definition. */
static unsigned int hist_bucket_by_bounds(u64 ns)
{
	unsigned int b;

	for (b = 0; b < TSA_HIST_BUCKETS - 1; b++)
		if (ns <= TSA_HIST_BOUND_NS(b))
			return b;
	return b;
}

/*
 * Bounds at powers of two of a second, each inclusive: 2^-20 s is
 * 953.67 ns, 2^-10 s 0.977 ms, 2^0 s one second, 2^6 s the last.
 */
static void hist_buckets_are_powers_of_two_of_a_second(struct kunit *test)
{
	u64 ns, x = 88172645463325252ULL;
	unsigned int b, i;

	KUNIT_EXPECT_EQ(test, TSA_HIST_BOUND_NS(0), 953ULL);
	KUNIT_EXPECT_EQ(test, TSA_HIST_BOUND_NS(20), 1000000000ULL);
	KUNIT_EXPECT_EQ(test, TSA_HIST_BOUND_NS(26), 64000000000ULL);
	KUNIT_EXPECT_EQ(test, tsa_hist_bucket(0), 0U);
	KUNIT_EXPECT_EQ(test, tsa_hist_bucket(953), 0U);
	KUNIT_EXPECT_EQ(test, tsa_hist_bucket(954), 1U);
	KUNIT_EXPECT_EQ(test, tsa_hist_bucket(1907), 1U);
	KUNIT_EXPECT_EQ(test, tsa_hist_bucket(1908), 2U);
	KUNIT_EXPECT_EQ(test, tsa_hist_bucket(976562), 10U);	/* 2^-10 s */
	KUNIT_EXPECT_EQ(test, tsa_hist_bucket(MS), 11U);
	KUNIT_EXPECT_EQ(test, tsa_hist_bucket(1000 * MS), 20U);
	KUNIT_EXPECT_EQ(test, tsa_hist_bucket(1000 * MS + 1), 21U);
	KUNIT_EXPECT_EQ(test, tsa_hist_bucket(64000 * MS), 26U);
	KUNIT_EXPECT_EQ(test, tsa_hist_bucket(64000 * MS + 1), 27U);
	KUNIT_EXPECT_EQ(test, tsa_hist_bucket(U64_MAX), 27U);
	/* Every bound and its neighbours, every power of two and its. */
	for (b = 0; b < TSA_HIST_BUCKETS - 1; b++)
		for (ns = TSA_HIST_BOUND_NS(b) - 1;
		     ns <= TSA_HIST_BOUND_NS(b) + 1; ns++)
			KUNIT_EXPECT_EQ(test, tsa_hist_bucket(ns),
					hist_bucket_by_bounds(ns));
	for (i = 1; i < 64; i++)
		for (ns = (1ULL << i) - 1; ns <= (1ULL << i) + 1; ns++)
			KUNIT_EXPECT_EQ(test, tsa_hist_bucket(ns),
					hist_bucket_by_bounds(ns));
	/* And durations spread over the range (xorshift). */
	for (i = 0; i < 4096; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ns = x >> (27 + x % 37);	/* up to 2^37 ns */
		KUNIT_EXPECT_EQ(test, tsa_hist_bucket(ns),
				hist_bucket_by_bounds(ns));
	}
}

/* Distributions laid out for mode @m, as the table does. */
static struct tsa_hist *hist_of(struct kunit *test, enum tsa_hist_mode m)
{
	struct tsa_hist *h = kunit_kzalloc(test, tsa_hist_size(m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	tsa_hist_layout(h, m);
	return h;
}

/* A record with its distributions (hist=all), as the table lays one out. */
static struct tsa_acct *acct_hist(struct kunit *test)
{
	struct tsa_acct *a = acct(test);

	a->hist = hist_of(test, TSA_HIST_ALL);
	return a;
}

/*
 * hist=lat, the default: LAT's buckets alone (the run-queue latency), in
 * a seventh of the memory; every state's longest still has its time.
 */
static void hist_lat_keeps_the_run_queue_latency(struct kunit *test)
{
	struct tsa_acct *a = acct(test), *b = acct(test);
	struct tsa_hist *sum = hist_of(test, TSA_HIST_LAT);
	struct tsa_stays none[TSA_NR_STATES] = {};
	unsigned int s;

	KUNIT_EXPECT_LE(test, tsa_hist_size(TSA_HIST_LAT), 352UL);
	a->hist = hist_of(test, TSA_HIST_LAT);
	b->hist = hist_of(test, TSA_HIST_LAT);
	for (s = 0; s < TSA_NR_STATES; s++)
		KUNIT_EXPECT_EQ(test, !!tsa_hist_n(a->hist, s), s == TSA_LAT);
	tsa_acct_init(a, 0, TSA_USR, 0);
	tsa_acct_switch_out(a, MS, TSA_SW_BLOCK, TSA_SLP);
	tsa_acct_wakeup(a, 3 * MS);				/* SLP 2 ms */
	tsa_acct_switch_in(a, 3 * MS + 3000, 0);		/* LAT 3 us */
	tsa_acct_switch_out(a, 4 * MS, TSA_SW_PREEMPT, 0);
	tsa_acct_switch_in(a, 5 * MS, 0);			/* LAT 1 ms */
	KUNIT_EXPECT_EQ(test, tsa_hist_n(a->hist, TSA_LAT)[2], 1ULL);
	KUNIT_EXPECT_EQ(test, tsa_hist_n(a->hist, TSA_LAT)[11], 1ULL);
	KUNIT_EXPECT_EQ(test, a->hist->longest_at[TSA_SLP], 3ULL * MS);
	KUNIT_EXPECT_EQ(test, a->hist->longest_at[TSA_LAT], 5ULL * MS);
	tsa_acct_init(b, 0, TSA_USR, 0);
	tsa_acct_switch_out(b, 1, TSA_SW_PREEMPT, 0);
	tsa_acct_switch_in(b, 2 * MS, 0);			/* LAT 2 ms */
	tsa_hist_merge(sum, none, a->hist, a->st);
	tsa_hist_merge(sum, a->st, b->hist, b->st);
	KUNIT_EXPECT_EQ(test, tsa_hist_n(sum, TSA_LAT)[11], 1ULL);
	KUNIT_EXPECT_EQ(test, tsa_hist_n(sum, TSA_LAT)[12], 1ULL);
	KUNIT_EXPECT_EQ(test, sum->longest_at[TSA_LAT], 2ULL * MS);
	/* A new life keeps the layout. */
	tsa_acct_init(a, 10 * MS, TSA_USR, 0);
	KUNIT_EXPECT_EQ(test, a->hist->first, (u8)TSA_LAT);
	KUNIT_EXPECT_EQ(test, a->hist->states, (u8)1);
	KUNIT_EXPECT_EQ(test, tsa_hist_n(a->hist, TSA_LAT)[11], 0ULL);
}

/*
 * Each off-CPU state's buckets, summed, against its entries: all but the
 * stay in progress, if @a is live.
 */
static void expect_hist_sums(struct kunit *test, const struct tsa_acct *a,
			     const struct tsa_hist *h)
{
	u64 n;
	int s, b;

	for (s = TSA_HIST_FIRST; s < TSA_NR_STATES; s++) {
		for (n = 0, b = 0; b < TSA_HIST_BUCKETS; b++)
			n += h->n[s - TSA_HIST_FIRST][b];
		if (s == a->state && !(a->flags & TSA_F_DEAD))
			n++;
		KUNIT_EXPECT_EQ_MSG(test, n, a->st[s].entries, "state %s",
				    tsa_state_names[s]);
	}
}

/*
 * Stays of known lengths land in their buckets when they end, not before
 * (a read leaves the one in progress open); the longest stay's end is
 * kept, and a read in the middle of a longer one says it ends at the read.
 */
static void hist_counts_each_stay_when_it_ends(struct kunit *test)
{
	struct tsa_acct *a = acct_hist(test), *snap = acct(test);
	struct tsa_hist *h = a->hist, *hs;
	u64 t = 0;

	hs = hist_of(test, TSA_HIST_ALL);
	tsa_acct_init(a, t, TSA_USR, 0);
	/* Sleep 1 ms, wait 3 us for a CPU, run 10 us; then 5 ms asleep. */
	tsa_acct_switch_out(a, t += 10000, TSA_SW_BLOCK, TSA_SLP);
	tsa_acct_wakeup(a, t += MS);
	tsa_acct_switch_in(a, t += 3000, 0);
	tsa_acct_switch_out(a, t += 10000, TSA_SW_BLOCK, TSA_SLP);
	tsa_acct_wakeup(a, t += 5 * MS);
	KUNIT_EXPECT_EQ(test, h->n[TSA_SLP - TSA_HIST_FIRST][11], 1ULL);
	KUNIT_EXPECT_EQ(test, h->n[TSA_SLP - TSA_HIST_FIRST][13], 1ULL);
	KUNIT_EXPECT_EQ(test, h->n[TSA_LAT - TSA_HIST_FIRST][2], 1ULL);
	KUNIT_EXPECT_EQ(test, h->longest_at[TSA_SLP], t);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SLP].longest, 5 * MS);
	/* A read's charge writes nothing through its copy of the record. */
	tsa_acct_snapshot(a, t + 9 * MS, snap);
	KUNIT_EXPECT_EQ(test, h->longest_at[TSA_LAT], t - 5 * MS - 10000);
	/* In LAT for 2 us so far: open, in no bucket, since the wakeup. */
	memcpy(hs, h, tsa_hist_size(TSA_HIST_ALL));
	tsa_acct_snapshot(a, t + 2000, snap);
	tsa_acct_hist_snapshot(a, snap, hs);
	KUNIT_EXPECT_EQ(test, hs->n[TSA_LAT - TSA_HIST_FIRST][1], 0ULL);
	KUNIT_EXPECT_EQ(test, hs->since, t);
	expect_hist_sums(test, snap, hs);
	/* 9 ms of LAT by the read: its longest, ending at the read. */
	memcpy(hs, h, tsa_hist_size(TSA_HIST_ALL));
	tsa_acct_snapshot(a, t + 9 * MS, snap);
	tsa_acct_hist_snapshot(a, snap, hs);
	KUNIT_EXPECT_EQ(test, hs->longest_at[TSA_LAT], t + 9 * MS);
	expect_hist_sums(test, snap, hs);
	/* It ends at 10 ms: counted then. */
	tsa_acct_switch_in(a, t + 10 * MS, 0);
	KUNIT_EXPECT_EQ(test, h->n[TSA_LAT - TSA_HIST_FIRST][14], 1ULL);
	KUNIT_EXPECT_EQ(test, h->longest_at[TSA_LAT], t + 10 * MS);
	expect_hist_sums(test, a, h);
}

/*
 * An exiting thread's distributions move to its process with its books,
 * and the longest stay's end goes with the longer of the two.
 */
static void hist_exit_moves_to_the_totals(struct kunit *test)
{
	struct tsa_acct *sum = acct(test), *a = acct_hist(test);
	struct tsa_acct *b = acct_hist(test);
	struct tsa_hist *sh;

	sh = hist_of(test, TSA_HIST_ALL);
	sum->flags = TSA_F_DEAD;
	tsa_acct_init(a, 0, TSA_USR, 0);
	tsa_acct_switch_out(a, MS, TSA_SW_BLOCK, TSA_IDL);
	tsa_acct_wakeup(a, 3 * MS);				/* IDL 2 ms */
	tsa_acct_switch_in(a, 4 * MS, 0);
	tsa_acct_init(b, 0, TSA_USR, 0);
	tsa_acct_switch_out(b, MS, TSA_SW_BLOCK, TSA_IDL);
	tsa_acct_wakeup(b, 8 * MS);				/* IDL 7 ms */
	tsa_acct_switch_in(b, 9 * MS, 0);
	tsa_acct_exit_begin(a, 5 * MS, sum, NULL, sh);
	tsa_acct_exit_begin(b, 10 * MS, sum, NULL, sh);
	KUNIT_EXPECT_EQ(test, sh->n[TSA_IDL - TSA_HIST_FIRST][12], 1ULL);
	KUNIT_EXPECT_EQ(test, sh->n[TSA_IDL - TSA_HIST_FIRST][13], 1ULL);
	KUNIT_EXPECT_EQ(test, sh->longest_at[TSA_IDL], 8 * MS);
	KUNIT_EXPECT_EQ(test, sum->st[TSA_IDL].longest, 7 * MS);
	expect_hist_sums(test, sum, sh);
	/* What they handed over is gone from them. */
	KUNIT_EXPECT_EQ(test, a->hist->n[TSA_IDL - TSA_HIST_FIRST][12], 0ULL);
	expect_hist_sums(test, a, a->hist);
	/* The tail (a last sleep) follows at the last switch-out. */
	tsa_acct_switch_out(a, 6 * MS, TSA_SW_BLOCK, TSA_SLP);
	tsa_acct_wakeup(a, 6 * MS + 500);
	tsa_acct_switch_in(a, 7 * MS, 0);
	tsa_acct_exit(a, 8 * MS);
	tsa_hist_merge(sh, sum->st, a->hist, a->st);
	tsa_acct_add(sum, a);
	KUNIT_EXPECT_EQ(test, sh->n[TSA_SLP - TSA_HIST_FIRST][0], 1ULL);
	expect_hist_sums(test, sum, sh);
}

struct classify_case {
	const char *name;
	struct tsa_block_info bi;
	enum tsa_state want;
};

#define BI(...)	{ __VA_ARGS__ }

static const struct classify_case classify_cases[] = {
	{ "interruptible sleep is SLP", BI(.task_state = TASK_INTERRUPTIBLE),
	  TSA_SLP },
	{ "uninterruptible sleep is SLP",
	  BI(.task_state = TASK_UNINTERRUPTIBLE), TSA_SLP },
	{ "SIGSTOP is STP", BI(.task_state = TASK_STOPPED), TSA_STP },
	{ "ptrace stop is STP", BI(.task_state = TASK_TRACED), TSA_STP },
	{ "frozen is STP", BI(.task_state = TASK_FROZEN), TSA_STP },
	{ "cgroup v2 freezer trap is STP",
	  BI(.task_state = TASK_INTERRUPTIBLE, .frozen = true), TSA_STP },
	{ "cgroup freezer wins over an idle wait",
	  BI(.task_state = TASK_INTERRUPTIBLE, .frozen = true,
	     .wait = TSA_W_IDLE), TSA_STP },
	{ "leaving the freezer: PREEMPT_RT spinlock wait is KLK",
	  BI(.task_state = TASK_RTLOCK_WAIT, .frozen = true), TSA_KLK },
	{ "leaving the freezer: an uninterruptible sleep is SLP",
	  BI(.task_state = TASK_UNINTERRUPTIBLE, .frozen = true), TSA_SLP },
	{ "stopped wins over a fault", BI(.task_state = TASK_STOPPED,
	  .ctx = TSA_C_FAULT_DATA), TSA_STP },
	{ "PREEMPT_RT spinlock wait is KLK",
	  BI(.task_state = TASK_RTLOCK_WAIT), TSA_KLK },
	{ "text fault is TFL", BI(.task_state = TASK_UNINTERRUPTIBLE,
	  .ctx = TSA_C_FAULT_TEXT, .iowait = true), TSA_TFL },
	{ "data fault is DFL", BI(.task_state = TASK_UNINTERRUPTIBLE,
	  .ctx = TSA_C_FAULT_DATA, .iowait = true), TSA_DFL },
	{ "kernel-mode fault is KFL", BI(.task_state = TASK_UNINTERRUPTIBLE,
	  .ctx = TSA_C_FAULT_KERN, .wait = TSA_W_IDLE), TSA_KFL },
	{ "swap-in fault is APG", BI(.task_state = TASK_UNINTERRUPTIBLE,
	  .ctx = TSA_C_FAULT_DATA | TSA_C_SWAP, .iowait = true), TSA_APG },
	{ "swap-in of a text page is APG", BI(.task_state = TASK_KILLABLE,
	  .ctx = TSA_C_FAULT_TEXT | TSA_C_SWAP), TSA_APG },
	{ "memory stall is APG", BI(.task_state = TASK_UNINTERRUPTIBLE,
	  .memstall = true, .wait = TSA_W_FUTEX), TSA_APG },
	{ "memory stall in a fault is APG", BI(.task_state =
	  TASK_UNINTERRUPTIBLE, .ctx = TSA_C_FAULT_DATA, .memstall = true),
	  TSA_APG },
	{ "kernel mutex is KLK", BI(.task_state = TASK_UNINTERRUPTIBLE,
	  .ctx = TSA_C_KLOCK, .wait = TSA_W_IDLE), TSA_KLK },
	{ "fault wins over a kernel lock inside it", BI(.task_state =
	  TASK_UNINTERRUPTIBLE, .ctx = TSA_C_KLOCK | TSA_C_FAULT_DATA),
	  TSA_DFL },
	{ "futex wait is LCK", BI(.task_state = TASK_INTERRUPTIBLE,
	  .wait = TSA_W_FUTEX), TSA_LCK },
	{ "block I/O is IOW", BI(.task_state = TASK_UNINTERRUPTIBLE,
	  .iowait = true), TSA_IOW },
	{ "I/O wins over the idle table", BI(.task_state =
	  TASK_UNINTERRUPTIBLE, .iowait = true, .wait = TSA_W_IDLE), TSA_IOW },
	{ "epoll and friends are IDL", BI(.task_state = TASK_INTERRUPTIBLE,
	  .wait = TSA_W_IDLE), TSA_IDL },
	{ "idle kernel thread is IDL", BI(.task_state = TASK_IDLE,
	  .kthread = true), TSA_IDL },
	{ "parked kernel thread is IDL", BI(.task_state = TASK_PARKED,
	  .kthread = true), TSA_IDL },
	{ "freezable interruptible kernel thread is IDL",
	  BI(.task_state = TASK_INTERRUPTIBLE | TASK_FREEZABLE,
	  .kthread = true), TSA_IDL },
	{ "kernel thread in uninterruptible sleep is SLP",
	  BI(.task_state = TASK_UNINTERRUPTIBLE, .kthread = true), TSA_SLP },
	{ "user thread in TASK_IDLE is SLP", BI(.task_state = TASK_IDLE),
	  TSA_SLP },
};

static void classify_desc(const struct classify_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(classify, classify_cases, classify_desc);

static void sleep_is_classified(struct kunit *test)
{
	const struct classify_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, tsa_classify_sleep(c->bi), c->want);
}

struct wait_case {
	const char *name;
	long nr;
	bool compat;
	unsigned long arg1;
	enum tsa_wait want;
};

static const struct wait_case wait_cases[] = {
	{ "FUTEX_WAIT_PRIVATE waits", __NR_futex, false,
	  FUTEX_WAIT | FUTEX_PRIVATE_FLAG, TSA_W_FUTEX },
	{ "FUTEX_WAIT_BITSET with realtime clock waits", __NR_futex, false,
	  FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, TSA_W_FUTEX },
	{ "FUTEX_LOCK_PI waits", __NR_futex, false, FUTEX_LOCK_PI,
	  TSA_W_FUTEX },
	{ "FUTEX_LOCK_PI2 waits", __NR_futex, false, FUTEX_LOCK_PI2,
	  TSA_W_FUTEX },
	{ "FUTEX_WAIT_REQUEUE_PI waits", __NR_futex, false,
	  FUTEX_WAIT_REQUEUE_PI, TSA_W_FUTEX },
	{ "FUTEX_WAKE does not wait", __NR_futex, false, FUTEX_WAKE,
	  TSA_W_NONE },
	{ "futex_waitv waits", __NR_futex_waitv, false, 0, TSA_W_FUTEX },
	{ "epoll_wait is idle", __NR_epoll_wait, false, 0, TSA_W_IDLE },
	{ "epoll_pwait2 is idle", __NR_epoll_pwait2, false, 0, TSA_W_IDLE },
	{ "accept4 is idle", __NR_accept4, false, 0, TSA_W_IDLE },
	{ "ppoll is idle", __NR_ppoll, false, 0, TSA_W_IDLE },
	{ "pause is idle", __NR_pause, false, 0, TSA_W_IDLE },
	{ "rt_sigtimedwait is idle", __NR_rt_sigtimedwait, false, 0,
	  TSA_W_IDLE },
	{ "read is idle on a stream", __NR_read, false, 0,
	  TSA_W_IDLE_IF_STREAM },
	{ "recvmsg is idle on a stream", __NR_recvmsg, false, 0,
	  TSA_W_IDLE_IF_STREAM },
	{ "nanosleep is plain sleep", __NR_nanosleep, false, 0, TSA_W_NONE },
	{ "wait4 is plain sleep", __NR_wait4, false, 0, TSA_W_NONE },
	{ "no syscall (-1) is nothing", -1, false, 0, TSA_W_NONE },
#ifdef CONFIG_IA32_EMULATION
	{ "32-bit futex wait waits", __NR_ia32_futex, true, FUTEX_WAIT,
	  TSA_W_FUTEX },
	{ "32-bit epoll_wait is idle", __NR_ia32_epoll_wait, true, 0,
	  TSA_W_IDLE },
	{ "32-bit read is idle on a stream", __NR_ia32_read, true, 0,
	  TSA_W_IDLE_IF_STREAM },
	{ "32-bit number is not read as 64-bit", __NR_ia32_epoll_wait, false,
	  0, TSA_W_NONE },
#endif
};

static void wait_desc(const struct wait_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(wait, wait_cases, wait_desc);

static void syscall_wait_is_looked_up(struct kunit *test)
{
	const struct wait_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, tsa_syscall_wait(c->nr, c->compat, c->arg1),
			c->want);
}

static void fault_time_is_sys_and_counted(struct kunit *test)
{
	struct tsa_acct *a = acct(test);
	u8 saved;

	tsa_acct_init(a, 0, TSA_USR, 0);
	tsa_acct_fault_enter(a, 10, tsa_fault_kind(FAULT_FLAG_USER), &saved);
	KUNIT_EXPECT_EQ(test, a->state, TSA_SYS);
	KUNIT_EXPECT_EQ(test, a->ctx, TSA_C_FAULT_DATA);
	/* A retried fault stays in the kernel and is not counted yet. */
	tsa_acct_fault_exit(a, 20, saved, FAULT_FLAG_USER, VM_FAULT_RETRY);
	KUNIT_EXPECT_EQ(test, a->state, TSA_SYS);
	KUNIT_EXPECT_EQ(test, a->count[TSA_MINF] + a->count[TSA_MAJF], 0ULL);
	tsa_acct_fault_enter(a, 20, tsa_fault_kind(FAULT_FLAG_USER |
			     FAULT_FLAG_TRIED), &saved);
	tsa_acct_fault_exit(a, 30, saved, FAULT_FLAG_USER | FAULT_FLAG_TRIED,
			    0);
	KUNIT_EXPECT_EQ(test, a->count[TSA_MAJF], 1ULL);	/* retried: major */
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 20ULL);
	KUNIT_EXPECT_EQ(test, a->ctx, 0);

	/* Minor, major, and an error that is not counted. */
	tsa_acct_fault_enter(a, 40, TSA_C_FAULT_DATA, &saved);
	tsa_acct_fault_exit(a, 41, saved, FAULT_FLAG_USER, VM_FAULT_NOPAGE);
	tsa_acct_fault_enter(a, 42, TSA_C_FAULT_TEXT, &saved);
	tsa_acct_fault_exit(a, 43, saved, FAULT_FLAG_INSTRUCTION,
			    VM_FAULT_MAJOR);
	tsa_acct_fault_enter(a, 44, TSA_C_FAULT_DATA, &saved);
	tsa_acct_fault_exit(a, 45, saved, FAULT_FLAG_USER, VM_FAULT_SIGSEGV);
	KUNIT_EXPECT_EQ(test, a->count[TSA_MINF], 1ULL);
	KUNIT_EXPECT_EQ(test, a->count[TSA_MAJF], 2ULL);
	/* ...which returns to user mode all the same: a SIGSEGV handler. */
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);
	tsa_acct_fault_enter(a, 46, TSA_C_FAULT_DATA, &saved);
	tsa_acct_fault_exit(a, 47, saved, FAULT_FLAG_USER, VM_FAULT_SIGBUS);
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 20ULL + 1 + 1 + 1 + 1);

	/* A fault inside a syscall (KFL) returns to SYS, not USR. */
	tsa_acct_sys_enter(a, 50, 0);
	tsa_acct_fault_enter(a, 51, tsa_fault_kind(0), &saved);
	KUNIT_EXPECT_EQ(test, a->ctx, TSA_C_FAULT_KERN);
	tsa_acct_fault_exit(a, 52, saved, 0, 0);
	KUNIT_EXPECT_EQ(test, a->state, TSA_SYS);
	expect_sums(test, a, 60);
}

/*
 * With context tracking's boundary events (nohz_full CPUs), the kernel's
 * entry and exit code is SYS: the syscall and fault hooks inside it change
 * USR/SYS no more, and a thread switched in there is in the kernel.
 */
static void boundary_events_bracket_kernel_time(struct kunit *test)
{
	struct tsa_acct *a = acct(test);
	u8 saved;

	tsa_acct_init(a, 0, TSA_USR, 0);
	tsa_acct_user_exit(a, 10);		/* USR 10 */
	KUNIT_EXPECT_EQ(test, a->state, TSA_SYS);
	tsa_acct_sys_enter(a, 13, 0);		/* entry code: SYS 3 */
	tsa_acct_sys_exit(a, 20, 0, false);	/* the call: SYS 7 */
	KUNIT_EXPECT_EQ(test, a->state, TSA_SYS);
	tsa_acct_user_enter(a, 24);		/* exit code: SYS 4 */
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 14ULL);
	KUNIT_EXPECT_EQ(test, a->count[TSA_SCL], 1ULL);

	/* A user fault: the same. */
	tsa_acct_user_exit(a, 30);		/* USR 6 */
	tsa_acct_fault_enter(a, 32, TSA_C_FAULT_DATA, &saved);
	tsa_acct_fault_exit(a, 40, saved, FAULT_FLAG_USER, 0);
	KUNIT_EXPECT_EQ(test, a->state, TSA_SYS);
	tsa_acct_user_enter(a, 41);		/* SYS 11 */
	KUNIT_EXPECT_EQ(test, a->count[TSA_MINF], 1ULL);

	/* An interrupt from user mode, preempting: SYS up to the switch. */
	tsa_acct_user_exit(a, 50);		/* USR 9 */
	tsa_acct_switch_out(a, 52, TSA_SW_PREEMPT, TSA_SLP); /* SYS 2 */
	tsa_acct_set_edge(a, true);
	tsa_acct_switch_in(a, 60, 1);		/* LAT 8 */
	KUNIT_EXPECT_EQ(test, a->state, TSA_SYS);
	tsa_acct_user_enter(a, 61);		/* SYS 1 */
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].ns, 10ULL + 6 + 9);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 14ULL + 11 + 2 + 1);
	KUNIT_EXPECT_EQ(test, a->st[TSA_LAT].ns, 8ULL);

	/*
	 * Switched in on a CPU that does not trace the boundary: the hooks
	 * inside the kernel decide again, or the thread would stay SYS.
	 */
	tsa_acct_sys_enter(a, 70, 0);		/* USR 9 */
	tsa_acct_set_edge(a, true);
	tsa_acct_switch_out(a, 71, TSA_SW_PREEMPT, TSA_SLP);
	tsa_acct_set_edge(a, false);
	tsa_acct_switch_in(a, 72, 0);
	tsa_acct_sys_exit(a, 75, 0, false);
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);
	KUNIT_EXPECT_EQ(test, a->flags & TSA_F_EDGE, 0);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 28ULL + 1 + 3);
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].ns, 25ULL + 9);
	expect_sums(test, a, 80);
}

/* The sleep a switch-out classifies for @a, as the switch probe would. */
static enum tsa_state sleep_of(const struct tsa_acct *a, unsigned int state)
{
	struct tsa_block_info bi = { .task_state = state, .ctx = a->ctx };

	return tsa_classify_sleep(bi);
}

/*
 * A user fault that returns VM_FAULT_RETRY is still in the fault: the
 * kernel retakes mmap_lock (which may sleep) and retries it (on 6.4+
 * after a per-VMA lock's attempt, so often). The sleep is the fault's,
 * a switch back in is SYS, and the retry is no new SYS stay.
 */
static void retried_fault_stays_in_the_fault(struct kunit *test)
{
	struct tsa_acct *a = acct(test);
	u8 saved;

	tsa_acct_init(a, 0, TSA_USR, 0);
	tsa_acct_fault_enter(a, 10, TSA_C_FAULT_DATA, &saved);
	tsa_acct_fault_exit(a, 20, saved, FAULT_FLAG_USER, VM_FAULT_RETRY);
	KUNIT_EXPECT_EQ(test, a->state, TSA_SYS);
	KUNIT_EXPECT_EQ(test, a->ctx & TSA_C_FAULT, TSA_C_FAULT_DATA);
	/* Asleep on mmap_lock before the retry. */
	KUNIT_EXPECT_EQ(test, sleep_of(a, TASK_UNINTERRUPTIBLE), TSA_DFL);
	tsa_acct_switch_out(a, 25, TSA_SW_BLOCK,
			    sleep_of(a, TASK_UNINTERRUPTIBLE));
	tsa_acct_wakeup(a, 35);
	tsa_acct_switch_in(a, 40, 0);
	KUNIT_EXPECT_EQ(test, a->state, TSA_SYS);
	tsa_acct_fault_enter(a, 45, TSA_C_FAULT_DATA, &saved);
	KUNIT_EXPECT_EQ(test, saved, 0);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].entries, 2ULL);
	tsa_acct_fault_exit(a, 50, saved, FAULT_FLAG_USER | FAULT_FLAG_TRIED,
			    0);
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);
	KUNIT_EXPECT_EQ(test, a->ctx, 0);
	KUNIT_EXPECT_EQ(test, a->count[TSA_MAJF], 1ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 15ULL + 10);
	KUNIT_EXPECT_EQ(test, a->st[TSA_DFL].ns, 10ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].ns, 10ULL);

	/* Preempted before the retry: back in SYS too. */
	tsa_acct_fault_enter(a, 60, TSA_C_FAULT_TEXT, &saved);
	tsa_acct_fault_exit(a, 61, saved, FAULT_FLAG_INSTRUCTION,
			    VM_FAULT_RETRY);
	tsa_acct_switch_out(a, 62, TSA_SW_PREEMPT, TSA_SLP);
	tsa_acct_switch_in(a, 64, 1);
	KUNIT_EXPECT_EQ(test, a->state, TSA_SYS);

	/* A signal to deliver instead of the retry: out to its handler. */
	tsa_acct_fault_abandon(a, 66);
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);
	KUNIT_EXPECT_EQ(test, a->ctx, 0);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 25ULL + 1 + 1 + 2);
	/* ...and nothing to abandon when no retry is pending. */
	KUNIT_EXPECT_FALSE(test, tsa_acct_fault_abandon(a, 67));
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);

	/* A system call seen next: the retry was left too. */
	tsa_acct_fault_enter(a, 70, TSA_C_FAULT_DATA, &saved);
	tsa_acct_fault_exit(a, 71, saved, FAULT_FLAG_USER, VM_FAULT_RETRY);
	tsa_acct_sys_enter(a, 75, 0);
	KUNIT_EXPECT_EQ(test, a->ctx, 0);
	tsa_acct_sys_exit(a, 76, 0, false);
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);

	/* A kernel-mode fault retried inside a call keeps the old rule. */
	tsa_acct_sys_enter(a, 80, 0);
	tsa_acct_fault_enter(a, 81, TSA_C_FAULT_KERN, &saved);
	tsa_acct_fault_exit(a, 82, saved, 0, VM_FAULT_RETRY);
	KUNIT_EXPECT_EQ(test, a->ctx, 0);
	tsa_acct_sys_exit(a, 83, 0, false);
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);
	expect_sums(test, a, 90);
}

/*
 * A fault return that was never written (its handler could not take the
 * record) leaves the fault's context behind. The next user fault or
 * system call repairs it, or every later sleep would be the fault's and
 * every switch-in SYS for good.
 */
static void lost_fault_return_is_repaired(struct kunit *test)
{
	struct tsa_acct *a = acct(test);
	u8 saved;

	tsa_acct_init(a, 0, TSA_USR, 0);
	tsa_acct_fault_enter(a, 10, TSA_C_FAULT_DATA, &saved);
	/* The return is lost: the thread is back in user mode, unseen. */
	KUNIT_EXPECT_TRUE(test, tsa_acct_fault_stale(a, TSA_C_FAULT_DATA));
	KUNIT_EXPECT_FALSE(test, tsa_acct_fault_stale(a, TSA_C_FAULT_KERN));
	tsa_acct_fault_enter(a, 20, TSA_C_FAULT_DATA, &saved);
	KUNIT_EXPECT_EQ(test, saved, 0);
	tsa_acct_fault_exit(a, 30, saved, FAULT_FLAG_USER, 0);
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);
	KUNIT_EXPECT_EQ(test, a->ctx, 0);

	tsa_acct_fault_enter(a, 40, TSA_C_FAULT_TEXT, &saved);
	tsa_acct_sys_enter(a, 50, 0);
	KUNIT_EXPECT_EQ(test, a->ctx, 0);
	tsa_acct_switch_out(a, 55, TSA_SW_BLOCK,
			    sleep_of(a, TASK_INTERRUPTIBLE));
	KUNIT_EXPECT_EQ(test, a->state, TSA_SLP);
	tsa_acct_wakeup(a, 60);
	tsa_acct_switch_in(a, 61, 0);
	tsa_acct_sys_exit(a, 62, 0, false);
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);
	tsa_acct_switch_out(a, 63, TSA_SW_PREEMPT, TSA_SLP);
	tsa_acct_switch_in(a, 64, 0);
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);
	expect_sums(test, a, 70);
}

/*
 * A usermode helper is forked from a kernel thread (before 5.19 it
 * carries PF_KTHREAD until exec): after exec its calls are a user
 * thread's, one refused before sys_enter included.
 */
static void exec_makes_a_helper_a_user_thread(struct kunit *test)
{
	struct tsa_acct *a = acct(test);

	tsa_acct_init(a, 0, TSA_SYS, TSA_F_IN_KERNEL | TSA_F_KTHREAD);
	tsa_acct_exec(a, true);
	KUNIT_EXPECT_TRUE(test, a->flags & TSA_F_KTHREAD);
	tsa_acct_exec(a, false);
	KUNIT_EXPECT_FALSE(test, a->flags & TSA_F_KTHREAD);
	tsa_acct_sys_exit(a, 10, 0, false);	/* out of kernel_execve() */
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);
	/* Seccomp refuses a call before its sys_enter: still counted. */
	tsa_acct_sys_exit(a, 20, 0, false);
	KUNIT_EXPECT_EQ(test, a->count[TSA_SCL], 1ULL);
}

static void swap_mark_is_cleared_at_fault_return(struct kunit *test)
{
	struct tsa_acct *a = acct(test);
	u8 saved;

	tsa_acct_init(a, 0, TSA_USR, 0);
	tsa_acct_fault_enter(a, 1, TSA_C_FAULT_DATA, &saved);
	a->ctx |= TSA_C_SWAP;	/* what the swap-in probe does */
	tsa_acct_switch_out(a, 2, TSA_SW_BLOCK, TSA_APG);
	tsa_acct_wakeup(a, 102);
	tsa_acct_switch_in(a, 103, 0);
	tsa_acct_fault_exit(a, 104, saved, FAULT_FLAG_USER, VM_FAULT_MAJOR);
	KUNIT_EXPECT_EQ(test, a->ctx, 0);
	KUNIT_EXPECT_EQ(test, a->st[TSA_APG].ns, 100ULL);
	KUNIT_EXPECT_EQ(test, a->state, TSA_USR);
}

static void interrupt_time_is_trp_and_resumes(struct kunit *test)
{
	struct tsa_acct *a = acct(test);

	tsa_acct_init(a, 0, TSA_SYS, TSA_F_IN_KERNEL);
	tsa_acct_trap_enter(a, 10, 0);
	KUNIT_EXPECT_EQ(test, a->state, TSA_TRP);
	tsa_acct_trap_enter(a, 11, 0);		/* nested: no change */
	tsa_acct_trap_exit(a, 15);
	KUNIT_EXPECT_EQ(test, a->state, TSA_SYS);
	KUNIT_EXPECT_EQ(test, a->st[TSA_TRP].ns, 5ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_TRP].entries, 1ULL);
	/* An interrupt cannot make a sleeping thread TRP. */
	tsa_acct_switch_out(a, 20, TSA_SW_BLOCK, TSA_SLP);
	KUNIT_EXPECT_FALSE(test, tsa_acct_trap_enter(a, 21, 0));
	KUNIT_EXPECT_EQ(test, a->state, TSA_SLP);
	tsa_acct_trap_exit(a, 22);
	KUNIT_EXPECT_EQ(test, a->state, TSA_SLP);
	expect_sums(test, a, 30);
}

/* sigtimedwait returning a signal number: received, so SIG. */
static void sigtimedwait_counts_a_signal(struct kunit *test)
{
	struct tsa_acct *a = acct(test);

	KUNIT_EXPECT_TRUE(test, tsa_syscall_took_signal(__NR_rt_sigtimedwait,
							false, 10));
	KUNIT_EXPECT_FALSE(test, tsa_syscall_took_signal(__NR_rt_sigtimedwait,
							 false, -11));
	KUNIT_EXPECT_FALSE(test, tsa_syscall_took_signal(__NR_rt_sigtimedwait,
							 true, 10));
	KUNIT_EXPECT_FALSE(test, tsa_syscall_took_signal(__NR_read, false,
							 10));
	tsa_acct_init(a, 0, TSA_USR, 0);
	tsa_acct_sys_enter(a, 1, 0);
	tsa_acct_sys_exit(a, 2, 0, true);
	KUNIT_EXPECT_EQ(test, a->count[TSA_SIG], 1ULL);
}

/*
 * A calibrated head: the first ns of a user stay after a call's return are
 * SYS, up to the head and never more than the stay; readers see it grow
 * with the stay and never taken back; the boundary (nohz_full) takes none.
 */
static void calibrated_head_is_sys_and_bounded(struct kunit *test)
{
	struct tsa_acct *a = acct(test), *snap = acct(test);
	u64 sys, usr, last_sys = 0, last_usr = 0, t;

	tsa_acct_init(a, 0, TSA_USR, 0);
	tsa_acct_sys_enter(a, 10, 0);
	tsa_acct_sys_exit(a, 20, 0, false);			/* SYS 10 */
	tsa_acct_set_head(a, 5);
	for (t = 20; t <= 30; t++) {
		tsa_acct_snapshot(a, t, snap);
		sys = snap->st[TSA_SYS].ns;
		usr = snap->st[TSA_USR].ns;
		KUNIT_EXPECT_GE(test, sys, last_sys);
		KUNIT_EXPECT_GE(test, usr, last_usr);
		KUNIT_EXPECT_EQ(test, sum_ns(snap), tsa_acct_elapsed(snap));
		last_sys = sys;
		last_usr = usr;
	}
	tsa_acct_sys_enter(a, 30, 0);				/* USR 10: 5 of it SYS */
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 15ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].ns, 15ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].longest, 10ULL);
	KUNIT_EXPECT_EQ(test, a->head_ns, 5ULL);
	KUNIT_EXPECT_EQ(test, a->head, 0);
	/* A head longer than the stay takes the stay, no more. */
	tsa_acct_sys_exit(a, 32, 0, false);			/* SYS 2 */
	tsa_acct_set_head(a, 50);
	tsa_acct_sys_enter(a, 35, 0);
	KUNIT_EXPECT_EQ(test, a->st[TSA_SYS].ns, 20ULL);
	KUNIT_EXPECT_EQ(test, a->st[TSA_USR].ns, 15ULL);
	KUNIT_EXPECT_EQ(test, a->head_ns, 8ULL);
	expect_sums(test, a, 40);
	/* The exact boundary keeps the thread in SYS: no head. */
	tsa_acct_set_edge(a, true);
	tsa_acct_sys_exit(a, 41, 0, false);
	tsa_acct_set_head(a, 5);
	KUNIT_EXPECT_EQ(test, a->head, 0);
	/* Totals carry what the heads gave. */
	memset(snap, 0, sizeof(*snap));
	tsa_acct_add(snap, a);
	tsa_acct_add(snap, a);
	KUNIT_EXPECT_EQ(test, snap->head_ns, 16ULL);
}

static struct kunit_case tsa_state_cases[] = {
	KUNIT_CASE(new_thread_starts_in_given_state),
	KUNIT_CASE_PARAM(transition_charges_the_state_left,
			 transition_gen_params),
	KUNIT_CASE(life_of_a_thread_sums_exactly),
	KUNIT_CASE(read_mid_state_counts_up_to_now),
	KUNIT_CASE(clock_going_backwards_is_clamped_and_counted),
	KUNIT_CASE(reader_clock_behind_record_is_clamped_silently),
	KUNIT_CASE(migration_counts_a_change_of_cpu),
	KUNIT_CASE(same_state_is_not_a_new_entry),
	KUNIT_CASE(provisional_record_starts_at_first_event),
	KUNIT_CASE(process_totals_sum_threads),
	KUNIT_CASE(exit_hands_over_then_adds_the_tail),
	KUNIT_CASE(fault_time_is_sys_and_counted),
	KUNIT_CASE(boundary_events_bracket_kernel_time),
	KUNIT_CASE(swap_mark_is_cleared_at_fault_return),
	KUNIT_CASE(retried_fault_stays_in_the_fault),
	KUNIT_CASE(lost_fault_return_is_repaired),
	KUNIT_CASE(exec_makes_a_helper_a_user_thread),
	KUNIT_CASE(interrupt_time_is_trp_and_resumes),
	KUNIT_CASE(sigtimedwait_counts_a_signal),
	KUNIT_CASE(calibrated_head_is_sys_and_bounded),
	KUNIT_CASE(hist_buckets_are_powers_of_two_of_a_second),
	KUNIT_CASE(hist_counts_each_stay_when_it_ends),
	KUNIT_CASE(hist_exit_moves_to_the_totals),
	KUNIT_CASE(hist_lat_keeps_the_run_queue_latency),
	{}
};

static struct kunit_suite tsa_state_suite = {
	.name = "tsa_state",
	.test_cases = tsa_state_cases,
};

static struct kunit_case tsa_classify_cases[] = {
	KUNIT_CASE_PARAM(sleep_is_classified, classify_gen_params),
	KUNIT_CASE_PARAM(syscall_wait_is_looked_up, wait_gen_params),
	{}
};

static struct kunit_suite tsa_classify_suite = {
	.name = "tsa_classify",
	.test_cases = tsa_classify_cases,
};

kunit_test_suites(&tsa_state_suite, &tsa_classify_suite);

MODULE_DESCRIPTION("KUnit tests for tsa's microstate accounting");
MODULE_LICENSE("GPL");
