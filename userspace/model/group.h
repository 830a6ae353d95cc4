/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/group.h - one snapshot's lifetime numbers summed per group: per
 * process, per cgroup v2 path, per user, or per thread name with its
 * trailing number folded ("worker-3" -> "worker-{N}").  Every group's
 * sums include the exited threads of its processes (the tid-0 totals
 * lines), so they only grow while the processes live.
 */
#ifndef MODEL_GROUP_H
#define MODEL_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "all.h"
#include "procfs.h"

enum group_by {
	GROUP_PID,	/* one group per process */
	GROUP_CGROUP,	/* the process's cgroup v2 path (/proc/PID/cgroup) */
	GROUP_USER,	/* the thread's uid */
	GROUP_COMM,	/* the thread's name, trailing digits folded */
	GROUP_NBY
};

extern const char *const group_by_name[GROUP_NBY];	/* "pid", ... */

/* "pid", "cgroup", "user", "comm"; -1 when @name is none of them. */
int group_by_lookup(const char *name);

struct tsa_group {
	const char *key;	/* the group's name (pid as text for GROUP_PID) */
	uint64_t pid;		/* GROUP_PID: the process */
	uint64_t uid;		/* GROUP_PID, GROUP_USER: its uid */
	const char *comm;	/* GROUP_PID: the process's name */
	unsigned long nprocs;	/* processes with a thread or totals here */
	unsigned long nlwps;	/* live threads */
	uint64_t elapsed;	/* sum of its threads' elapsed ns */
	uint64_t ns[TSA_NSTATES];
	uint64_t cnt[TSA_NCOUNTERS];
	uint64_t last_pid;	/* the process last added (nprocs) */
	size_t orig;		/* its index before the sort */
};

struct group_strs;

struct group_table {
	struct tsa_group *g;
	size_t n, cap;
	struct tsa_index idx;	/* groups by key */
	/*
	 * The keys, in blocks that never move: a key stays where it is
	 * until the table is reset, whatever is added after it.
	 */
	struct group_strs *strs;
};

/*
 * Fold a thread name's trailing decimal number into "{N}": "worker-12"
 * -> "worker-{N}", "kworker/3:1H" unchanged, "42" -> "{N}".
 */
void fold_comm(char *out, size_t len, const char *comm);

/* cgroup_of(), the read of @procfs/PID/cgroup: lib/procfs.h. */

/*
 * Each process's cgroup, remembered from one snapshot to the next by
 * pid and start (the since of its leader), so that a pid reused by
 * another process is read again.  A process that moves to another
 * cgroup stays in the one first read for it: /proc/PID/cgroup is read
 * once per process.
 */
struct cg_gen {
	struct cg_ent { uint64_t pid, since; size_t off; } *e;
	size_t n, cap;
	struct tsa_index idx;	/* the entries by pid (lib/index.h) */
	char *strs;
	size_t len, scap;
};

struct cgroup_cache {
	struct cg_gen gen[2];	/* [cur]: the last snapshot's */
	int cur;
	unsigned long reads, hits;	/* for tests and the benchmark */
};

/* @pid's cgroup into @out, from @cc when it has it (@cc may be NULL). */
void cgroup_lookup(struct cgroup_cache *cc, char *out, size_t len,
		   const char *procfs, uint64_t pid, uint64_t since);
/* Remember @path for @pid (a capture's cgroups, before a compare). */
void cgroup_cache_put(struct cgroup_cache *cc, uint64_t pid, uint64_t since,
		      const char *path);
/*
 * The start that tells process @p from a later one with its pid: its
 * leader's since, or, when the leader has exited, that of @first, its
 * first row.
 */
uint64_t proc_since(const struct tsa_snap *s, const struct tsa_proc *p,
		    const struct tsa_row *first);
/* After a snapshot: keep what it looked up, forget the rest. */
void cgroup_cache_swap(struct cgroup_cache *cc);
void cgroup_cache_free(struct cgroup_cache *cc);

/*
 * What the group rule looks at for a thread, or for a process's exited
 * threads: its process's pid, uid (the leader's) and start (which tells
 * a reused pid), and the thread's name (for exited threads, their
 * process's: their own are gone).  comm is read only for GROUP_COMM.
 */
struct group_who {
	uint64_t pid, uid, since;
	const char *comm;
};

/*
 * The group rule, the one place it is written: the name of @w's group
 * under @by into @key.  GROUP_CGROUP reads @procfs/PID/cgroup through
 * @cc (NULL: no cache), so one cache shared by the callers of one
 * snapshot reads each process's file once.
 */
void group_key_of(char *key, size_t len, enum group_by by,
		  const struct group_who *w, const char *procfs,
		  struct cgroup_cache *cc);

/*
 * Sum @s per group, over the processes that have a live thread (as the
 * report shows them) and, when @npids > 0, are among @pids, each row in
 * the group group_key_of() names.  @procfs is where /proc/PID/cgroup is
 * read for GROUP_CGROUP, through @cc (NULL: no cache).  The table is
 * reset and reused; its groups come sorted by key (by pid for
 * GROUP_PID, by uid for GROUP_USER).  @proc_group (NULL, or s->nprocs
 * entries) gets each process's group, -1 for one not summed (with
 * GROUP_COMM: its last row's).  Returns the number of groups.
 */
size_t group_compute(const struct tsa_snap *s, enum group_by by,
		     const uint64_t *pids, size_t npids, const char *procfs,
		     struct cgroup_cache *cc, struct group_table *t,
		     long *proc_group);

/*
 * The group_who of row @r (NULL: the process's exited threads) of
 * process @p in @s, whose first row is @first (NULL: not known; then
 * the start is the leader's, or 0).
 */
void group_who_of(struct group_who *w, const struct tsa_snap *s,
		  const struct tsa_proc *p, const struct tsa_row *r,
		  const struct tsa_row *first);

/* The index of the group named @key after group_compute(), or -1. */
long group_find(const struct group_table *t, const char *key);

/* Empty @t, keeping its memory. */
void group_table_reset(struct group_table *t);
/*
 * The index of the group named @key, added (zeroed but for its key)
 * when it is new: for views that make their own groups.
 */
size_t group_add(struct group_table *t, const char *key);

/* The name of group @i: valid until the table is reset or freed. */
static inline const char *group_key(const struct group_table *t, size_t i)
{
	return t->g[i].key;
}

void group_table_free(struct group_table *t);

/*
 * One report of groups (--group without an export): each group's
 * interval numbers, as tsa_delta lines (comm = the group's name, id =
 * its index in @t, now = its lifetime sums), from the processes'
 * deltas (exited threads included) or, for thread names, the threads'.
 */
struct group_report {
	struct group_table t;		/* this snapshot's groups */
	struct cgroup_cache cc;
	struct tsa_delta *d;		/* [i]: group i over the interval */
	struct tsa_row *life;		/* [i]: group i's lifetime sums */
	size_t cap;
	struct tsa_delta *pl, *tl;	/* processes', threads' deltas */
	size_t pcap, tcap;
	long *proc_group;		/* process index -> group */
	long *procline;			/* process index -> pl line */
	size_t proc_cap;
	const struct tsa_snap *prev;
};

/* Returns the number of groups; tot: processes and threads shown. */
size_t group_report_compute(struct group_report *r,
			    const struct tsa_snap *prev,
			    const struct tsa_snap *cur, enum group_by by,
			    const struct tsa_select *sel, const char *procfs,
			    struct tsa_totals *tot);
void group_report_free(struct group_report *r);

#endif /* MODEL_GROUP_H */
