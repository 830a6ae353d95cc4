/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view/ledger.h - group counters that never go down, for a reader that
 * lives across reads (tsa-exporter).
 *
 * A group's sums from one read of /proc/tsa/all (model/group.c) hold
 * only the processes that are alive: when a process exits, its time
 * leaves its cgroup's or user's sums, and a Prometheus counter made of
 * them would go down (rate() reads that as a reset and counts the whole
 * group again). The ledger remembers each contributor's last numbers -
 * a process (pid and start) in one group - and when a contributor is
 * gone, its last numbers stay in its group as "departed", as the module
 * keeps a process's exited threads in its totals line. A group's numbers
 * are then its departed plus its live contributors', and never less than
 * they were at the read before (by thread name, an exited thread's time
 * moves to its process's name: its own name keeps what it had).
 *
 * A group with no contributor left goes stale: it keeps its last numbers
 * (its threads and processes 0) for @stale_after seconds, then is
 * forgotten. A reload of the module starts every count again: the ledger
 * tells one by the module's load time, which it derives from the threads
 * tracked since load (ledger_load_time()), and then forgets everything.
 * By pid, a group is a process (pid and start): a later process with its
 * pid is a group of its own, and the old one is forgotten then.
 */
#ifndef VIEW_LEDGER_H
#define VIEW_LEDGER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "group.h"
#include "hist.h"
#include "index.h"
#include "metrics.h"

struct ledger_contrib;
struct ledger_slot;

struct ledger {
	enum group_by by;
	double stale_after;		/* seconds; 0: never forgotten */
	uint64_t gen;			/* reads folded in */
	uint64_t load;			/* the module's load (its clock); 0 */
	struct ledger_slot *slot;	/* groups ever seen, not forgotten */
	size_t nslots, slot_cap;
	struct tsa_index slot_idx;	/* by key */
	struct ledger_contrib *c;	/* contributors of the last read */
	size_t nc, c_cap;
	struct tsa_index c_idx;
	/* The last ledger_update()'s groups, as metrics_print() takes them. */
	struct tsa_group *g;
	struct metrics_hist *mh;
	size_t g_cap;
	unsigned long resets;		/* reloads seen */
};

void ledger_init(struct ledger *l, enum group_by by, double stale_after);
void ledger_free(struct ledger *l);

/*
 * The module's load, on its clock (ns), as the smallest start of the
 * live threads tracked since load (flag 1): pid 1 and the kernel's
 * threads, alive at any load, keep it. 0 when no such thread is seen
 * (a reader that sees only its own threads, born after the load).
 */
uint64_t ledger_load_time(const struct tsa_snap *s);

/*
 * Fold read @s (and @h, its /proc/tsa/hist, or NULL) into @l: @t and
 * @proc_group are group_compute()'s for @s (by @l->by, over @pids),
 * @now a monotonic clock in seconds. Sets *@g (and *@mh when @h is not
 * NULL, else NULL) to the groups to print, owned by @l until the next
 * call: @t's groups first, in @t's order, then the stale ones by key.
 * Returns their number.
 */
size_t ledger_update(struct ledger *l, const struct tsa_snap *s,
		     const struct tsa_hist_snap *h, const uint64_t *pids,
		     size_t npids, const struct group_table *t,
		     const long *proc_group, double now,
		     struct tsa_group **g, struct metrics_hist **mh);

/*
 * The ledger as text, for a program that runs once a scrape (tsa-prstat
 * --prometheus --state FILE): "tsa-ledger 1", its grouping, @boot_id
 * (/proc/sys/kernel/random/boot_id), the load, then each group and
 * contributor. ledger_read() fills a ledger_init()'ed @l from @f; a file
 * of another grouping or boot is no error, it is not taken (the counts
 * start again: a reboot is a reset); -1 with @msg when @f is not one.
 */
void ledger_write(FILE *f, const struct ledger *l, const char *boot_id);
int ledger_read(FILE *f, struct ledger *l, const char *boot_id, char *msg,
		size_t msglen);

#endif /* VIEW_LEDGER_H */
