/* SPDX-License-Identifier: GPL-2.0 */
/*
 * app/calibrate.h - tsa-prstat --calibrate: each CPU's unseen entry and exit
 * costs, measured and written to tsa.ko (see app/calibrate.c).
 */
#ifndef APP_CALIBRATE_H
#define APP_CALIBRATE_H

/*
 * Measure every CPU this process may run on (of @cpus, "0,2-3", if not
 * NULL), print and write; exit code.
 */
int calibrate(const char *proc_dir, const char *cpus);

#endif /* APP_CALIBRATE_H */
