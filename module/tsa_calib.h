/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's entry and exit paths that no hook reaches, calibrated.
 *
 * sys_enter and sys_exit fire inside the kernel, after its entry code and
 * before its exit code (most of a null call's instructions on x86), and a
 * fault's probe likewise: that code's time would read as USR. A
 * calibration run (tsa-prstat --calibrate) measures, on each CPU, what a
 * system call and a first-touch fault cost from user space beyond what
 * tsa's hooks see, and writes it to /proc/tsa/calibration. From then on
 * each stay in user mode that begins at such a return gives its first
 * ns, up to that cost and never more than the stay, to SYS ("the head"),
 * as measured SYS is charged: the states still sum to elapsed, and a
 * reader sees the head grow with the stay, never taken back.
 *
 * Not on CPUs that report the user/kernel boundary itself (nohz_full):
 * there the boundary hooks are exact. calibration=0 (a load parameter)
 * keeps the numbers but applies none.
 */
#ifndef TSA_CALIB_H
#define TSA_CALIB_H

#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/types.h>

/*
 * The longest cost accepted (struct tsa_acct.head is 16 bits): far above
 * any CPU's entry and exit paths, mitigations included.
 */
#define TSA_CALIB_MAX_NS	U16_MAX

/* What a crossing back to user mode leaves unseen, on one CPU (ns). */
struct tsa_cross {
	u16 sys;		/* a system call's entry and exit paths */
	u16 fault;		/* a user page fault's */
};

/* Applied: calibrated and calibration=1. Read by the hooks. */
DECLARE_PER_CPU(struct tsa_cross, tsa_cross);

const char *tsa_calib_state(void);
void tsa_calib_show(struct seq_file *m);
int tsa_calib_write(const char *buf, size_t len);
void tsa_calib_stats(struct seq_file *m);

#endif /* TSA_CALIB_H */
