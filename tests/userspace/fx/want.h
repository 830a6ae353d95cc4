/* SPDX-License-Identifier: GPL-2.0 */
/*
 * want.h - reports of snapshots A -> B computed by hand, which the
 * printers (test_view.c) and the binary (test_cli.c) must both print.
 */
#ifndef FX_WANT_H
#define FX_WANT_H

#define HDR_L \
"   PID USERNAME USR SYS TRP TFL DFL LCK SLP LAT  VCX  ICX  SCL  SIG PROCESS/LWPID \n"
#define HDR_P \
"   PID USERNAME USR SYS TRP TFL DFL LCK SLP LAT  VCX  ICX  SCL  SIG PROCESS/NLWP  \n"
#define TOTAL "Total: 3 processes, 5 lwps, load averages: 1.00, 2.50, 10.00\n"

/*
 * -mL, B against A, default sort cpu = USR+SYS+TRP descending:
 *   100  (60): USR 0.5/1 = 50, SYS 10, DFL = APG 10,
 *              SLP = KLK+IOW+IDL = 30; VCX 1500, SCL 100000 -> 100K
 *   200  (50): USR 50, LAT 50, ICX 1000000 -> "1.0M" (Solaris's ".10")
 *   301  (25): new thread on a reused tid: lifetime, USR 0.2/0.8 = 25,
 *              SLP 75, VCX 5 (born after A: raw count, not scaled)
 *   102  (10): born in the interval: lifetime over 0.5 s: TFL 9.95 ->
 *              10, DFL 9.94 -> 9.9, LAT 9.96 -> 10, SLP 60.15 -> 60
 *   300   (0): SLP 100
 */
static const char want_mL[] = HDR_L
"   100 root      50  10 0.0 0.0  10 0.0  30 0.0 1500  999 100K    1 db server/100\n"
"   200 4000000   50 0.0 0.0 0.0 0.0 0.0 0.0  50    0 1.0M    0    0 spin/200\n"
"   300 root      25 0.0 0.0 0.0 0.0 0.0  75 0.0    5    0    0    0 sleeper/301\n"
"   100 root      10 0.0 0.0  10 9.9 0.0  60  10 1234    0 100K    0 db worker/102\n"
"   300 root     0.0 0.0 0.0 0.0 0.0 0.0 100 0.0    0    0    0    0 sleeper/300\n"
TOTAL;

#define HDR_CL \
"   PID SYSCALL          PCT CALLS    AVG    MAX SYS LAT FLT APG LCK KLK IOW IDL SLP PROCESS/LWPID \n"
#define HDR_CP \
"   PID SYSCALL          PCT CALLS    AVG    MAX SYS LAT FLT APG LCK KLK IOW IDL SLP PROCESS/NLWP  \n"

/*
 * -yL, B against A (1 s; percentages of each thread's own elapsed):
 *   300 clock_nanosleep: +1 call, +1 s of 1 s: 100, 1.00s, SLP 100.
 *   301 is a new thread on a reused tid: lifetime, read 0.6 of 0.8 s
 *     = 75, 2 calls, avg 300ms, longest 500ms, IDL 100.
 *   100 futex: +2, +0.3 s = 30, avg 150ms, longest 500ms (as
 *     reported), SYS 0.025/0.3 = 8.3, LAT 8.3, LCK 83.
 *   100 write: new row, 100 calls, 0.1 s = 10, avg 1.00ms, SYS 100.
 *   100 other: 28 - 5 - 20 (read's, moved) = 3 calls, 0.56 - 0.1 - 0.4
 *     = 60 ms = 6.0, avg 20.0ms, longest 100ms; SYS 10/60 = 17,
 *     IOW 50/60 = 83.
 *   100 read: fewer calls than before, so taken again: all of it, 1 call,
 *     50 ms = 5.0, SYS 20, IOW 80.
 *   102 (born in the interval, 0.5 s): mmap 20 ms = 4.0, 3 calls,
 *     avg 6.66ms, SYS 25, FLT (KFL) 25, APG 50; futex 10 ms = 2.0.
 *   200 made no call: no line.
 */
static const char want_yL[] = HDR_CL
"   300 clock_nanosleep  100     1  1.00s  1.00s 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 100 sleeper/300\n"
"   300 read              75     2  300ms  500ms 0.0 0.0 0.0 0.0 0.0 0.0 0.0 100 0.0 sleeper/301\n"
"   100 futex             30     2  150ms  500ms 8.3 8.3 0.0 0.0  83 0.0 0.0 0.0 0.0 db server/100\n"
"   100 write             10   100 1.00ms 5.00ms 100 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 db server/100\n"
"   100 other            6.0     3 20.0ms  100ms  17 0.0 0.0 0.0 0.0 0.0  83 0.0 0.0 db server/100\n"
"   100 read             5.0     1 50.0ms 50.0ms  20 0.0 0.0 0.0 0.0 0.0  80 0.0 0.0 db server/100\n"
"   100 mmap             4.0     3 6.66ms 12.0ms  25 0.0  25  50 0.0 0.0 0.0 0.0 0.0 db worker/102\n"
"   100 futex            2.0     1 10.0ms 10.0ms 100 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 db worker/102\n"
TOTAL;

#endif /* FX_WANT_H */
