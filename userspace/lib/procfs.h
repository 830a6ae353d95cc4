/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lib/procfs.h - reads of procfs (@procfs: $TSA_PROCFS or /proc) beside
 * the module's files.
 */
#ifndef LIB_PROCFS_H
#define LIB_PROCFS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Read the cgroup v2 path of process @pid from @procfs/PID/cgroup (its
 * "0::" line) into @out; "?" when the file cannot be read or has no
 * v2 line (a process that exited meanwhile, a v1-only system).
 */
void cgroup_of(char *out, size_t len, const char *procfs, uint64_t pid);

#endif /* LIB_PROCFS_H */
