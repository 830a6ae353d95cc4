/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The microstates and counters, named once, in plain C: the module
 * (tsa_state.h), tsa-prstat (userspace/model/all.h) and the test programs
 * (tests/guest/tsa-read.h) build their enums and name tables from this
 * list, each with its own prefix. The order is that of /proc/tsa's
 * columns (docs/proc-format.md): add at the end only. (The replay
 * referee keeps its own states on purpose: it shares nothing with the
 * module.)
 *
 * Define TSA_STATE(name, what) or TSA_COUNTER(name, what), or both, and
 * include this: each is called once per entry, in order, and undefined.
 * No include guard, for that reason.
 */
#ifdef TSA_STATE
TSA_STATE(USR, "on CPU, user mode")
TSA_STATE(SYS, "on CPU, kernel mode")
TSA_STATE(TRP, "on CPU, servicing interrupts")
TSA_STATE(TFL, "asleep in a user text fault")
TSA_STATE(DFL, "asleep in a user data fault")
TSA_STATE(KFL, "asleep in a kernel-mode fault")
TSA_STATE(APG, "asleep for anonymous memory")
TSA_STATE(LCK, "asleep on a user lock (futex)")
TSA_STATE(KLK, "asleep on a kernel sleeping lock")
TSA_STATE(IOW, "asleep in block I/O")
TSA_STATE(IDL, "asleep waiting for work")
TSA_STATE(SLP, "any other sleep")
TSA_STATE(LAT, "runnable, waiting for a CPU")
TSA_STATE(STP, "stopped, traced or frozen")
#undef TSA_STATE
#endif

#ifdef TSA_COUNTER
TSA_COUNTER(VCX, "voluntary context switches")
TSA_COUNTER(ICX, "involuntary context switches")
TSA_COUNTER(SCL, "system calls")
TSA_COUNTER(SIG, "signals delivered")
TSA_COUNTER(MINF, "minor faults")
TSA_COUNTER(MAJF, "major faults")
TSA_COUNTER(MIG, "migrations")
#undef TSA_COUNTER
#endif
