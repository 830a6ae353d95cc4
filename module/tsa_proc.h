/* SPDX-License-Identifier: GPL-2.0 */
/* tsa procfs: /proc/tsa/<tid>, self, thread-self, all, calls, hist, wakers. */
#ifndef TSA_PROC_H
#define TSA_PROC_H

#include <linux/seq_file.h>
#include <linux/types.h>

int tsa_proc_init(bool wakers);
void tsa_proc_exit(void);
/* A tid was born, died or changed hands: its /proc entry needs a look. */
void tsa_proc_tid_changed(pid_t tid);
/* Waits until every entry noted so far is made or removed. */
void tsa_proc_flush(void);
/*
 * What the hooks cannot tell apart on this kernel with these parameters:
 * states (bits 0-15) and counters (bits 16-31), set once they are live.
 */
#define TSA_STATE_BIT(s)	(1U << (s))
#define TSA_COUNTER_BIT(c)	(1U << (16 + (c)))
void tsa_proc_set_degraded(u32 lost);
u32 tsa_proc_degraded(void);
/* "degraded" and what is lost, or " -": the same line in /proc and debugfs. */
void tsa_proc_show_degraded(struct seq_file *m, const char *more);
struct tsa_proc_stats {
	u64 entries;		/* /proc/tsa/<tid> files now */
	u64 made;		/* made since load */
	u64 batches;		/* runs of the work that makes them */
	u64 resyncs;		/* of them, rescans after the ring overflowed */
	u64 deferred;		/* removals a reader in progress held up */
	u64 row_bytes;		/* one row of a /proc/tsa/all copy */
	u64 entry_bytes;	/* one entry in proc's slab */
	u64 sections;		/* RCU read sections of bulk copies */
	u64 section_max_ns;	/* the longest of them */
	u64 restarts;		/* copies of a process begun again */
};
void tsa_proc_get_stats(struct tsa_proc_stats *st);
void tsa_snap_get_stats(struct tsa_proc_stats *st);

#endif /* TSA_PROC_H */
