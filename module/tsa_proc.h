/* SPDX-License-Identifier: GPL-2.0 */
/* tsa procfs: /proc/tsa/<tid> and /proc/tsa/all. */
#ifndef TSA_PROC_H
#define TSA_PROC_H

#include <linux/types.h>

int tsa_proc_init(void);
void tsa_proc_exit(void);
/* A tid was born, died or changed hands: its /proc entry needs a look. */
void tsa_proc_tid_changed(pid_t tid);
void tsa_proc_stats(u64 *entries, u64 *resyncs, u64 *row_bytes,
		    u64 *entry_bytes);

#endif /* TSA_PROC_H */
