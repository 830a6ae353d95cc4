/* SPDX-License-Identifier: GPL-2.0 */
/* tsa debugfs: /sys/kernel/debug/tsa/, the module's own health. */
#ifndef TSA_DEBUGFS_H
#define TSA_DEBUGFS_H

void tsa_debugfs_init(void);
void tsa_debugfs_exit(void);

#endif /* TSA_DEBUGFS_H */
