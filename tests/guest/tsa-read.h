/* SPDX-License-Identifier: GPL-2.0 */
/* Parsers for /proc/tsa files and the kernel's own books, for tests. */
#ifndef TSA_READ_H
#define TSA_READ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* TSA_USR, ... and TSA_VCX, ...: the module's states and counters. */
enum {
#define TSA_STATE(name, what)	TSA_##name,
#include "../../module/tsa_states.h"
	TSA_NSTATES
};
enum {
#define TSA_COUNTER(name, what)	TSA_##name,
#include "../../module/tsa_states.h"
	TSA_NCOUNTERS
};
/* "USR", ... and "VCX", ... (tsa-read.c) */
extern const char *const tsa_counter_names[TSA_NCOUNTERS];

struct tsa_thread {
	pid_t tid, pid;
	int since_load;
	int state;
	uint64_t state_ns;
	uint64_t elapsed;
	uint64_t ns[TSA_NSTATES];
	uint64_t entries[TSA_NSTATES];
	uint64_t longest[TSA_NSTATES];
	uint64_t counters[TSA_NCOUNTERS];
	uint32_t flags;			/* /proc/tsa/all only */
	uint64_t at;			/* /proc/tsa/all only: measured at */
	char comm[32];
	uint32_t degraded;		/* /proc/tsa/<tid> only: see below */
};

/*
 * The "syscall" rows of a /proc/tsa/<tid> file (not the process's), and
 * its "trap" rows (interrupts=1).
 */
#define TSA_MAXCALLS 80
struct tsa_callrow {
	char name[48];
	uint64_t calls, ns, longest;
	uint64_t state_ns[TSA_NSTATES];
};

struct tsa_calls {
	size_t n, ntraps;
	struct tsa_callrow row[TSA_MAXCALLS];
	struct tsa_callrow trap[TSA_MAXCALLS];	/* "trap" rows: all TRP */
};

struct tsa_all {
	uint64_t now;
	size_t n;
	struct tsa_thread *t;
};

struct tsa_schedstat {
	uint64_t oncpu, rundelay, slices;
};

struct tsa_tidlist {
	size_t n;
	pid_t *tid;
};

const char *tsa_state_name(int s);
int tsa_state_index(const char *name);
uint64_t tsa_sum(const struct tsa_thread *t);
/* 0 on success; -1 with errno set. */
int tsa_read_thread(pid_t tid, struct tsa_thread *t);
int tsa_pread_thread(int fd, struct tsa_thread *t);
int tsa_parse_thread(const char *text, struct tsa_thread *t);
/* A thread and its calls from one read; -1 with errno (EPROTO: format). */
int tsa_read_thread_calls(pid_t tid, struct tsa_thread *t,
			  struct tsa_calls *c);
int tsa_parse_calls(const char *text, struct tsa_calls *c);
/* The row of @name, or NULL. */
const struct tsa_callrow *tsa_call_find(const struct tsa_calls *c,
					const char *name);
/* /proc/tsa/hist (hist=1): one line per state of a thread or totals row. */
#define TSA_HIST_BUCKETS 28
#define TSA_HIST_CALL	(-2)	/* a "syscall:NAME" line: its call */

struct tsa_histline {
	pid_t tid, pid;			/* tid 0: the process's exited threads */
	uint32_t flags;
	int state;			/* or TSA_HIST_CALL */
	char call[64];			/* its name ("read", "other") */
	uint64_t at, elapsed;		/* measured at; since at - elapsed */
	uint64_t n, ns, max, max_at;
	int open;			/* a stay in progress (in no bucket) */
	uint64_t open_ns;		/* its length so far */
	int nb;				/* buckets on the line: 0 or all */
	uint64_t b[TSA_HIST_BUCKETS];
};

struct tsa_hists {
	uint64_t now;
	unsigned int buckets;
	int exp;			/* bucket b: up to 2^(b + exp) s */
	size_t n;
	struct tsa_histline *l;
};

/* 0 on success; -1 with errno (EPROTO: not the format this knows). */
int tsa_read_hist(struct tsa_hists *h);
int tsa_read_hist_file(const char *path, struct tsa_hists *h);
void tsa_free_hist(struct tsa_hists *h);
/* The line of @state for thread @tid (or totals: tid 0 of @pid), or NULL. */
const struct tsa_histline *tsa_hist_find(const struct tsa_hists *h, pid_t tid,
					 pid_t pid, int state);
/* The line of system call @call of thread @tid (or totals), or NULL. */
const struct tsa_histline *tsa_hist_find_call(const struct tsa_hists *h,
					      pid_t tid, pid_t pid,
					      const char *call);
/* The bucket where the @q-th part (0..1) of a line's stays lies, or -1. */
int tsa_hist_quantile(const struct tsa_histline *l, double q);
int tsa_read_all(struct tsa_all *all);
int tsa_read_all_file(const char *path, struct tsa_all *all);
void tsa_free_all(struct tsa_all *all);
int tsa_list_tids(struct tsa_tidlist *tl);
int tsa_read_schedstat(pid_t tid, struct tsa_schedstat *ss);
int tsa_read_ctxt_switches(pid_t tid, uint64_t *vol, uint64_t *invol);

/* Delay accounting of one thread, from taskstats (netlink): nanoseconds. */
struct tsa_delays {
	uint64_t cpu_ns, blkio_ns, swapin_ns, freepages_ns, thrashing_ns;
	uint64_t cpu_n, blkio_n, swapin_n, freepages_n, thrashing_n;
};

int tsa_read_delays(pid_t tid, struct tsa_delays *d);
/* The kernel's per-thread minflt/majflt (/proc/<tid>/task/<tid>/stat). */
int tsa_read_faults(pid_t tid, uint64_t *minflt, uint64_t *majflt);
/* The kernel's PF_* flags of a thread (stat field 9); -1 with errno. */
int tsa_read_task_flags(pid_t tid, unsigned long *flags);
/*
 * "A B C" list of state and counter names -> bit per state (bits 0-15) and
 * per counter (TSA_COUNTER_BIT, as the module numbers them); -1 on an
 * unknown name (the known ones are still set).
 */
#define TSA_COUNTER_BIT(c)	(1U << (16 + (c)))
int tsa_parse_state_list(const char *list, uint32_t *bits);
/* The "degraded" line of /sys/kernel/debug/tsa/stats, as above. */
int tsa_read_debugfs_degraded(uint32_t *bits);
/* "hook NAME live enabled events" from debugfs; -1 if NAME is absent. */
int tsa_read_debugfs_hook(const char *name, int *live, int *enabled,
			  uint64_t *events);
/* A "NAME VALUE" counter line of debugfs stats; -1 if NAME is absent. */
int tsa_read_debugfs_counter(const char *name, uint64_t *value);

/* Shared by the guest test programs: TAP output and small helpers. */
extern int test_no;		/* TAP number of the last test */
extern int failures;
void tap(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A program's tests, by the names its command line gives. */
struct tsa_test {
	const char *name;
	void (*fn)(void);
};
/*
 * The main() of a program of tests: [--first N] [NAME...] runs the named
 * tests of @tests (every one without names; an unknown name: exit 2) in
 * their order, TAP numbered from N, each between "# NAME" and "# NAME
 * took S s", then "# PROG: N passed, M failed".  Returns main()'s status.
 */
int tsa_test_main(const char *prog, const struct tsa_test *tests, size_t n,
		  int argc, char **argv);
pid_t gettid_(void);
void pin(int cpu);			/* this thread on one CPU only */
/* The running kernel is older than MAJOR.MINOR (uname's release). */
int tsa_kernel_before(int major, int minor);
/*
 * An integer module parameter (/sys/module/MODULE/parameters/NAME; a bool
 * reads 1 or 0), or -1.
 */
long tsa_module_param(const char *module, const char *name);
double pct(uint64_t part, uint64_t whole);
double gap(uint64_t a, uint64_t b);	/* |a - b| / b, in percent */
void sleep_ms(long ms);
/* Write @text to @path (a sysctl, a debugfs or cgroup knob): 0 or -1. */
int tsa_write_file(const char *path, const char *text);
/* Every read must sum exactly: check it wherever a thread is read. */
void check_sum(const struct tsa_thread *t, const char *what);
/* VCX/ICX against /proc/<tid>/status, read at the same rest point. */
void check_switches(const struct tsa_thread *t, uint64_t vol, uint64_t invol,
		    const char *what);

#endif
