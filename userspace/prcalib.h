/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prcalib.h - tsa-prstat --calibrate: each CPU's unseen entry and exit
 * costs, measured and written to tsa.ko (see prcalib.c).
 */
#ifndef PRCALIB_H
#define PRCALIB_H

/* Measure every CPU this process may run on, print and write; exit code. */
int calibrate(const char *proc_dir);

#endif /* PRCALIB_H */
