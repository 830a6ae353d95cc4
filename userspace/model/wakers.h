/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/wakers.h - read /proc/tsa/wakers (the module's wakers=1) and turn
 * two snapshots into the lines of the wakers view (-w, --wakers): who
 * ended each thread's stays asleep and stopped over the interval.
 *
 * The only part of tsa-prstat that knows the kernel's "tsa-wakers 1"
 * format (docs/proc-format.md): per thread (and each process's exited
 * threads, tid 0) a line per waker row (a waker and the state it ended),
 * its other row and "none", the time no wakeup ended. Counts only grow
 * while a row keeps its waker, so a view over an interval is the
 * difference of two snapshots. Nothing here formats output.
 */
#ifndef MODEL_WAKERS_H
#define MODEL_WAKERS_H

#include <stddef.h>
#include <stdint.h>

#include "all.h"
#include "group.h"

struct tsa_wline {
	uint64_t tid, pid, uid, flags, elapsed, at;
	int state;		/* -1: "-" (other, none) */
	uint64_t n, ns, max, lat;
	const char *kind;	/* "thread", "softirq:NET_RX", "other", ... */
	int kind_len;
	uint64_t wtid;		/* a thread waker's tid, else 0 */
	const char *name;	/* the waker's name ("-": not given) */
	int name_len;
};

struct tsa_wakers_snap {
	char *buf;
	size_t len, cap;
	uint64_t now;
	struct tsa_wline *l;
	size_t n, lcap;
};

/* Read and parse @path into @s (reusing its memory).  Returns a tsa_err;
 * on error, a one-line reason (without the path) in @msg. */
int tsa_wakers_read(struct tsa_wakers_snap *s, const char *path,
		    char *msg, size_t msglen);
int tsa_wakers_parse(struct tsa_wakers_snap *s, char *msg, size_t msglen);
void tsa_wakers_free(struct tsa_wakers_snap *s);

/*
 * One waker of a thread (-L) or a process over the interval (or its
 * lifetime, in a first report): the wakeups, the time of the stays they
 * ended, their share of the thread's or process's time asleep and
 * stopped, the longest (its row's, lifetime) and the LAT that followed.
 */
struct tsa_wview {
	uint64_t pid, tid;		/* tid 0: a process */
	uint64_t uid;			/* of the woken (its first line) */
	int state;			/* -1: other or none */
	const char *kind;
	int kind_len;
	uint64_t wtid;
	const char *name;
	int name_len;
	uint64_t n, ns, max, lat;
	uint64_t off;			/* the time asleep and stopped */
	const char *group;		/* --group: the woken's group, or NULL */
	/* the sums in [0] prev and [1] cur (tsa_wakers_compute()'s) */
	uint64_t raw_n[2], raw_ns[2], raw_lat[2];
};

struct tsa_wakers_report {
	struct tsa_wview *v;
	size_t n, cap;
	char *strs;		/* --group: the groups' names */
	size_t slen, scap;
};

/*
 * The lines of @cur over the interval since @prev (NULL: lifetime): per
 * thread with @lwps (2: and each process's exited threads, as a thread
 * of tid 0, for tsa_wakers_group()), else per process (its threads and exited threads
 * folded, by waker and state), only those of @pids (all when @npids is
 * 0); in each, wakers with time, the most time first, then "other" and
 * "none"; threads or processes with the most time ended by a waker
 * first.
 */
void tsa_wakers_compute(struct tsa_wakers_report *r,
			const struct tsa_wakers_snap *prev,
			const struct tsa_wakers_snap *cur, int lwps,
			const uint64_t *pids, size_t npids);
void tsa_wakers_report_free(struct tsa_wakers_report *r);

/*
 * Where the names and groups of the woken and of thread wakers come
 * from: the snapshot of /proc/tsa/all taken with the wakers (live, read
 * with each report, the one before in @prev; a capture's, a
 * recording's), never /proc/PID; its processes' cgroups in @cc (may be
 * NULL), which also caches the cgroups a live report reads from
 * @procfs.
 */
struct tsa_wnames {
	const char *procfs;
	const struct tsa_snap *snap;
	struct cgroup_cache *cc;
	const struct tsa_snap *prev;	/* live: the read before; or NULL */
};

/* The woken's name (a thread's with @tid, else the process's), control
 * bytes as '?': tsa_thread_name() of @nm's snapshots, "-" when gone. */
void tsa_wakers_comm(const struct tsa_wnames *nm, uint64_t pid,
		     uint64_t tid, char *out, size_t len);

/*
 * --group (pid, cgroup, user or comm; group.h's enum group_by): fold @r, a
 * per-thread report, into one of groups of the woken by groups of
 * wakers, each by the group rule (group_key_of()): a thread waker goes
 * to its own group (its process, cgroup or uid as @nm knows it, "?"
 * when gone; or its name, folded), a context stays itself (an exited
 * thread: "exited"), and the same state's lines add up. Each group's
 * lines then add up to its threads' time asleep and stopped; the most
 * woken groups first.
 */
void tsa_wakers_group(struct tsa_wakers_report *r, int by,
		      const struct tsa_wnames *nm);

/*
 * The chain of who woke whom from thread @tid, in @r (a per-thread
 * report): in @step, the index of @tid's top waker's line (the waker
 * that ended most of its time, not other or none), then that waker's
 * own, and so on; it ends at a context (an interrupt, a timer), an
 * exited waker, a thread already in it, a thread without wakers, or
 * @depth steps. Returns the steps.
 */
size_t tsa_wakers_chain(const struct tsa_wakers_report *r, uint64_t tid,
			size_t depth, size_t *step);

#endif /* MODEL_WAKERS_H */
