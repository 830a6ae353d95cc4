// SPDX-License-Identifier: GPL-2.0
/*
 * tsa microstate accounting: charging time to states. See tsa_state.h for
 * the model; this file is the whole of it.
 */
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "tsa_state.h"

const char *const tsa_state_names[TSA_NR_STATES] = {
	[TSA_USR] = "USR", [TSA_SYS] = "SYS", [TSA_TRP] = "TRP",
	[TSA_TFL] = "TFL", [TSA_DFL] = "DFL", [TSA_KFL] = "KFL",
	[TSA_APG] = "APG", [TSA_LCK] = "LCK", [TSA_KLK] = "KLK",
	[TSA_IOW] = "IOW", [TSA_IDL] = "IDL", [TSA_SLP] = "SLP",
	[TSA_LAT] = "LAT", [TSA_STP] = "STP",
};

const char *const tsa_counter_names[TSA_NR_COUNTERS] = {
	[TSA_VCX] = "VCX", [TSA_ICX] = "ICX", [TSA_SCL] = "SCL",
	[TSA_SIG] = "SIG", [TSA_MINF] = "MINF", [TSA_MAJF] = "MAJF",
	[TSA_MIG] = "MIG",
};

void tsa_acct_init(struct tsa_acct *a, u64 now, enum tsa_state s, u8 flags)
{
	memset(a, 0, sizeof(*a));
	a->since = now;
	a->stamp = now;
	a->state = s;
	a->flags = flags;
	a->entries[s] = 1;
	a->last_cpu = TSA_NO_CPU;
}

/* Close the current stay at @now; returns the clamped @now. */
static u64 tsa_acct_charge(struct tsa_acct *a, u64 now)
{
	u64 stay;

	if (now < a->stamp) {
		a->clamps++;
		now = a->stamp;
	}
	stay = now - a->stamp;
	a->ns[a->state] += stay;
	a->longest[a->state] = max(a->longest[a->state], stay);
	a->stamp = now;
	return now;
}

/*
 * The one place a state changes (illumos new_mstate()). A provisional
 * record (seeded at load, racing with its thread) starts counting at the
 * first event that tells for sure what the thread is doing. Returns true
 * when the clock had to be clamped.
 */
bool tsa_acct_enter(struct tsa_acct *a, u64 now, enum tsa_state s)
{
	u64 clamps = a->clamps;

	if (a->flags & TSA_F_DEAD)
		return false;
	if (a->flags & TSA_F_PROVISIONAL) {
		u64 count[TSA_NR_COUNTERS];
		u8 keep = a->flags & ~TSA_F_PROVISIONAL;
		s32 cpu = a->last_cpu;

		memcpy(count, a->count, sizeof(count));
		tsa_acct_init(a, now, s, keep);
		memcpy(a->count, count, sizeof(count));
		a->last_cpu = cpu;
		return false;
	}
	tsa_acct_charge(a, now);
	if (a->state != s) {
		a->state = s;
		a->entries[s]++;
	}
	return a->clamps != clamps;
}

static enum tsa_state tsa_acct_cpu_state(const struct tsa_acct *a)
{
	return (a->flags & TSA_F_IN_KERNEL) ? TSA_SYS : TSA_USR;
}

/*
 * The thread stops running. Voluntary and involuntary follow the kernel's
 * nvcsw/nivcsw rule: a switch is voluntary when the thread asked to sleep,
 * even if a pending signal then kept it runnable.
 */
bool tsa_acct_switch_out(struct tsa_acct *a, u64 now,
			 enum tsa_switch_kind kind, enum tsa_state sleep)
{
	if (kind == TSA_SW_PREEMPT)
		a->count[TSA_ICX]++;
	else
		a->count[TSA_VCX]++;
	return tsa_acct_enter(a, now, kind == TSA_SW_BLOCK ? sleep : TSA_LAT);
}

bool tsa_acct_switch_in(struct tsa_acct *a, u64 now, int cpu)
{
	if (a->last_cpu != TSA_NO_CPU && a->last_cpu != cpu)
		a->count[TSA_MIG]++;
	a->last_cpu = cpu;
	return tsa_acct_enter(a, now, tsa_acct_cpu_state(a));
}

/*
 * A wakeup makes a sleeping or stopped thread runnable. Wakeups also hit
 * threads that are still on CPU (they had set their state but not yet
 * switched out) or already runnable: those change nothing.
 */
bool tsa_acct_wakeup(struct tsa_acct *a, u64 now)
{
	if (!(a->flags & TSA_F_PROVISIONAL) &&
	    (tsa_state_on_cpu(a->state) || a->state == TSA_LAT))
		return false;
	return tsa_acct_enter(a, now, TSA_LAT);
}

bool tsa_acct_sys_enter(struct tsa_acct *a, u64 now)
{
	a->count[TSA_SCL]++;
	a->flags |= TSA_F_IN_KERNEL;
	if (a->state != TSA_USR && !(a->flags & TSA_F_PROVISIONAL))
		return false;
	return tsa_acct_enter(a, now, TSA_SYS);
}

bool tsa_acct_sys_exit(struct tsa_acct *a, u64 now)
{
	a->flags &= ~TSA_F_IN_KERNEL;
	if (a->state != TSA_SYS && !(a->flags & TSA_F_PROVISIONAL))
		return false;
	return tsa_acct_enter(a, now, TSA_USR);
}

/* The last switch-out of a dead thread: its numbers freeze. */
bool tsa_acct_exit(struct tsa_acct *a, u64 now)
{
	u64 clamps = a->clamps;

	if (a->flags & (TSA_F_DEAD | TSA_F_PROVISIONAL)) {
		a->flags |= TSA_F_DEAD;
		return false;
	}
	a->count[TSA_VCX]++;
	tsa_acct_charge(a, now);
	a->flags |= TSA_F_DEAD;
	return a->clamps != clamps;
}

/*
 * A copy of @a as seen at @now: the current stay is charged up to @now, so
 * the copy's states sum to its elapsed time. A reader's clock may lag the
 * CPU that wrote the record; that is not a step of the thread's clock, so
 * it is clamped without being counted. Returns how long the thread has
 * been in its current state.
 */
u64 tsa_acct_snapshot(const struct tsa_acct *a, u64 now, struct tsa_acct *out)
{
	*out = *a;
	if (a->flags & TSA_F_DEAD)
		return 0;
	now = max(now, a->stamp);
	tsa_acct_charge(out, now);
	return now - a->stamp;
}

u64 tsa_acct_elapsed(const struct tsa_acct *a)
{
	return a->stamp - a->since;
}

/* Accumulate a snapshot into process totals. */
void tsa_acct_add(struct tsa_acct *sum, const struct tsa_acct *a)
{
	int i;

	for (i = 0; i < TSA_NR_STATES; i++) {
		sum->ns[i] += a->ns[i];
		sum->entries[i] += a->entries[i];
		sum->longest[i] = max(sum->longest[i], a->longest[i]);
	}
	for (i = 0; i < TSA_NR_COUNTERS; i++)
		sum->count[i] += a->count[i];
	sum->clamps += a->clamps;
	/* Totals keep elapsed as the sum of their threads' elapsed. */
	sum->stamp += tsa_acct_elapsed(a);
}

/*
 * Why is a thread that left the CPU asleep? Checked in order: the first
 * rule that matches wins.
 */
enum tsa_state tsa_classify_sleep(const struct tsa_block_info *bi)
{
	if (bi->task_state & (__TASK_STOPPED | __TASK_TRACED | TASK_FROZEN))
		return TSA_STP;
	return TSA_SLP;
}
