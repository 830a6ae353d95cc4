/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hooks: kernel events (tracepoints) turned into calls of the
 * accounting functions of tsa_state.c and tsa_edge.h on the records of
 * tsa_table.c.
 */
#ifndef TSA_HOOKS_H
#define TSA_HOOKS_H

#include <linux/seq_file.h>
#include <linux/types.h>

int tsa_hooks_init(void);
void tsa_hooks_exit(void);
void tsa_hooks_show(struct seq_file *m);
int tsa_hooks_calls_rows(void);
unsigned int tsa_hooks_trap_rows(void);
unsigned int tsa_hooks_hist(void);
bool tsa_hooks_wakers(void);

#endif /* TSA_HOOKS_H */
