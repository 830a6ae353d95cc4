/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of tsa's storage share; not for the rest of the module
 * (tsa_table.h is). From the bottom up:
 *   tsa_table_layout.c  the tables after each record and group
 *   tsa_table_pool.c    slab caches, the fork hook's pools, fault injection
 *   tsa_table_read.c    the reader protocol and the exit hand-overs
 *   tsa_table.c         the hash tables: find, insert, remove, groups
 */
#ifndef TSA_TABLE_INTERNAL_H
#define TSA_TABLE_INTERNAL_H

#include "tsa_table.h"

/* --- tsa_table_layout.c --------------------------------------------------- */

void tsa_table_layout_set(unsigned int calls_rows, unsigned int trap_rows,
			  enum tsa_hist_mode hist);
size_t tsa_table_size_of(bool kern);
void tsa_tables_reset_calls(void *tables);
void tsa_tables_attach(struct tsa_calls **tab, struct tsa_hist **hist,
		       void *end, bool kern);

/* --- tsa_table_pool.c ----------------------------------------------------- */

/* The caches and full pools; 0 or -ENOMEM (nothing left allocated). */
int tsa_pool_init(void);
/* The pools emptied and never refilled again; the caches stay. */
void tsa_pool_exit(void);
/* After the last RCU free: every object is back; the caches go. */
void tsa_pool_destroy(void);
void tsa_thread_obj_free(struct tsa_thread *th);
void tsa_group_obj_free(struct tsa_group *g);
/* Free a group never inserted; legal with preemption off. */
void tsa_group_drop(struct tsa_group *g);
void tsa_thread_free_rcu(struct rcu_head *head);
void tsa_group_free_rcu(struct rcu_head *head);
void tsa_pool_get_stats(struct tsa_table_stats *st);

/* --- tsa_table_read.c ----------------------------------------------------- */

void tsa_read_get_stats(struct tsa_table_stats *st);

#endif /* TSA_TABLE_INTERNAL_H */
