// SPDX-License-Identifier: GPL-2.0
/*
 * tsa-replay: the referee. Rebuilds every thread's microstates from a raw
 * event trace, with rules written here from the specification and no code
 * shared with the module, and compares them with what tsa charged between
 * two /proc/tsa/all snapshots taken while the trace ran.
 *
 *   tsa-replay [--first N] [--tol-ns NS] [--pids P,P...] [--name NAME]
 *              [--undone N] --flags FLAGS
 *              S1 S2 REPORT [SCHEDSTAT1 SCHEDSTAT2]
 *
 * REPORT is `trace-cmd report -R -t` of sched_switch, sched_wakeup,
 * sched_wakeup_new, raw_syscalls:sys_enter/sys_exit, lock contention,
 * two kprobe events on handle_mm_fault (entry "rf" with flags=%dx,
 * return "rfx" with ret=$retval: a user fault that returns VM_FAULT_RETRY
 * is in the fault until its retry, as tsa counts it) and one on
 * psi_task_switch ("rsleep" with sleep=%dx), all
 * stamped with trace_clock=mono, the clock tsa uses.
 * Raw (-R) output keeps prev_state numeric and -t keeps nanoseconds.
 * FLAGS holds "TID PF_FLAGS" lines, read in the guest while the workload
 * ran: the judge runs on the host, whose /proc knows other tasks by the
 * same tids (a CI run took a host kernel thread's flags for a guest
 * spinner and replayed its 530 ms of USR as SYS).
 *
 * Each thread's window runs from its `at` in S1 (or its birth) to its `at`
 * in S2. States are compared in groups the trace can tell apart: USR, SYS
 * (with TRP), LAT, LCK (futex waits), KLK (contended kernel locks), FLT
 * (sleeps inside page faults: TFL+DFL+KFL+APG), STP, and OSL (every other
 * sleep: IOW+IDL+SLP, which needs knowledge the trace does not carry).
 * Counters: VCX, ICX, SCL, MIG. A switch-out shown as R (not R+, which
 * is preempted) is a yield, ICX, except a sleep a pending signal undid:
 * the kernel counts that voluntary, and from 6.12.34/6.16 the trace shows
 * it as R too. tsa follows the kernel (debugfs switch_signal_running), so
 * with --undone N up to N such R switch-outs may be VCX in all.
 *
 * Prints TAP: per workload, the sum rule (exact), every group of every
 * thread within NS per transition (default 2000), and the counters
 * (exact), with the distribution of the differences.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "tsa-read.h"

enum { G_USR, G_SYS, G_LAT, G_LCK, G_KLK, G_FLT, G_STP, G_OSL, G_UNK, G_N };
static const char *const gname[G_N] = {
	"USR", "SYS", "LAT", "LCK", "KLK", "FLT", "STP", "OSL", "UNK"
};
enum { C_VCX, C_ICX, C_SCL, C_MIG, C_N };
/* include/linux/mm_types.h and mm.h (5.10 to 7.x) */
#define VM_FAULT_RETRY	0x400
#define FAULT_FLAG_USER	0x40
/* prev_state's "+" (preempted) in the sched_switch event */
#define TASK_REPORT_MAX 0x100
static const char *const cname[C_N] = { "VCX", "ICX", "SCL", "MIG" };

enum { E_SWITCH, E_WAKEUP, E_WAKEUP_NEW, E_SYS_ENTER, E_SYS_EXIT,
       E_FAULT, E_FAULT_RET, E_LOCK_BEGIN, E_LOCK_END, E_TSA };

/*
 * tsa's own stamps: kprobes "tsa_<fn>" on the functions its inlined
 * accounting calls with stamp_probes=1 (tsa_stamp_<fn>), whose second
 * argument is the clock value tsa read for the event. The events
 * each one belongs to, in the order of this table (E_TSA's x is the index).
 * Faults have none: tsa's fault hook is a kretprobe, and kprobes do not
 * nest, so a kprobe on what it calls never fires.
 */
static const struct {
	const char *fn;
	int type;
} stamp_fn[] = {
	{ "tsa_switch_out", E_SWITCH }, { "tsa_switch_in", E_SWITCH },
	{ "tsa_wakeup", E_WAKEUP }, { "tsa_sys_enter", E_SYS_ENTER },
	{ "tsa_sys_exit", E_SYS_EXIT },
};
#define NSTAMP_FN (sizeof(stamp_fn) / sizeof(stamp_fn[0]))
static const char *const ename[] = {
	"switch", "wakeup", "wakeup_new", "sys_enter", "sys_exit", "fault",
	"fault_ret",
};

struct ev {
	uint64_t t;		/* the stamp a pass uses: ftrace's or tsa's */
	uint64_t tt, ts;	/* ftrace's stamp; tsa's (0: none found) */
	pid_t cur;		/* the task the event ran in */
	pid_t a, b;		/* switch: prev, next; wakeups: the wakee */
	int cpu;
	int type;
	uint64_t x;		/* prev_state, syscall nr, fault or lock flags */
	uint64_t y;		/* sys_enter: args[1]; switch: see dequeued */
};

/*
 * The kernel's word on whether a switch-out left its thread queued: a
 * kprobe "rsleep" on psi_task_switch(prev, next, sleep), which __schedule()
 * calls right before trace_sched_switch with sleep = !on_rq. A sleep a
 * pending signal undid shows prev_state S on 6.1, yet the thread never
 * left the run queue; a wakeup racing that switch from another CPU (it
 * read S before the undo, then waited for the run queue's lock) puts a
 * sched_wakeup after it, so the trace alone would show a sleep that never
 * was. A switch's y: 0 not known (PSI off), 1 stayed queued, 2 dequeued.
 */
enum { Q_UNKNOWN, Q_QUEUED, Q_DEQUEUED };
#define MAX_CPUS 64
static struct {
	pid_t cur;
	int sleep;
	int valid;
} psi_last[MAX_CPUS];
/* Switch-outs, those psi_task_switch told of, those shown asleep kept queued */
static uint64_t nswitch, psi_known, undone_queued;

/* Where a thread is, as the trace shows it. */
enum { S_UNK, S_CPU, S_RUN, S_SLEEP };

struct rt {
	pid_t tid;
	int live;		/* in both snapshots (or born in between) */
	int kthread;
	int st, sleep_g;
	int in_sys;		/* inside a system call */
	int first_sys;		/* 0 none, 1 sys_enter first, 2 sys_exit first */
	long nr;
	uint64_t op;
	int fault, klk;
	int retry;		/* a user fault returned to be retried */
	uint64_t fault_flags;	/* the outermost fault's */
	int cpu;		/* CPU it last ran on, -1 unknown */
	int mig_known;
	uint64_t t;		/* start of the current interval */
	uint64_t w0, w1;	/* the window */
	int run_g;		/* group of the last interval charged */
	uint64_t run_start;	/* when that group's stay began */
	int g0;			/* group at the window's start, and its */
	uint64_t stay0;		/* stay up to then; the same at its end */
	int g1;
	uint64_t stay1;
	uint64_t ns[G_N], trans[G_N], cnt[C_N];
	uint64_t yields;	/* switch-outs R, not R+: in cnt[C_ICX] */
	uint64_t faults;	/* fault entries and returns in the window */
	uint64_t missed, slack;	/* events without tsa's stamp; their room */
	uint64_t anomalies;
	const struct tsa_thread *s1, *s2;
	uint64_t ss1, ss2;	/* schedstat on-CPU at the snapshots */
	/*
	 * Distributions (the module's hist=1): the stays off CPU that ended
	 * in the window of the /proc/tsa/hist snapshots, by group and log2
	 * bucket as the module counts them, and those whose start the trace
	 * does not have (begun before it).
	 */
	int hist;
	uint64_t hw0, hw1;
	uint64_t hb[G_N][TSA_HIST_BUCKETS];
	uint64_t hunknown;
	/* Stays with an edge on ftrace's stamp (tsa's missed): each may
	 * sit in a bucket next to tsa's, or fall outside the window. */
	uint64_t hloose;
	int run_loose;		/* the current stay began at such an edge */
};

/* The event being replayed has no tsa stamp (on tsa's stamps only). */
static int ev_loose;

/* The two /proc/tsa/hist snapshots, with --hist1 and --hist2. */
static struct tsa_hists h1, h2;
static int have_hist;

static struct rt *rts;
static size_t nrt;
static struct ev *evs;
static size_t nev, cap_ev;

static struct rt *rt_of(pid_t tid)
{
	for (size_t i = 0; i < nrt; i++)
		if (rts[i].tid == tid)
			return &rts[i];
	return NULL;
}

/* "key=value" in a raw report line, as an unsigned number (base 0). */
static int field(const char *s, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	const char *p = s;

	while ((p = strstr(p, key))) {
		if ((p == s || p[-1] == ' ') && p[kl] == '=') {
			*v = strtoull(p + kl + 1, NULL, 0);
			return 0;
		}
		p += kl;
	}
	return -1;
}

/* The n-th 64-bit argument of a raw sys_enter's args=ARRAY[bytes]. */
static uint64_t sys_arg(const char *s, int n)
{
	const char *p = strstr(s, "args=ARRAY[");
	uint64_t v = 0;

	if (!p)
		return 0;
	p += 11;
	for (int i = 0; i < 8 * (n + 1) && *p && *p != ']'; i++) {
		unsigned long byte = strtoul(p, (char **)&p, 16);

		if (i >= 8 * n)
			v |= (uint64_t)byte << (8 * (i - 8 * n));
		while (*p == ',' || *p == ' ')
			p++;
	}
	return v;
}

/*
 * "   comm-PID   [CPU]   SECS.NSECS: event:  fields": the comm may hold
 * anything, so the line is read from the "[CPU]" bracket outwards.
 */
static int parse_line(const char *line, struct ev *e)
{
	const char *br = NULL, *p, *q;
	unsigned long long sec, nsec;
	char name[64];
	uint64_t v;

	for (p = line; (p = strstr(p, " [")); p++) {
		q = p + 2;
		while (*q >= '0' && *q <= '9')
			q++;
		if (q > p + 2 && *q == ']') {
			br = p;
			break;
		}
	}
	if (!br)
		return -1;
	for (p = br; p > line && p[-1] == ' '; p--)
		;
	q = p;
	while (q > line && q[-1] >= '0' && q[-1] <= '9')
		q--;
	if (q == p || q == line || q[-1] != '-')
		return -1;
	memset(e, 0, sizeof(*e));
	e->cur = atoi(q);
	e->cpu = atoi(br + 2);
	p = strchr(br, ']') + 1;
	if (sscanf(p, " %llu.%llu: %63[^:]:", &sec, &nsec, name) != 3)
		return -1;
	e->t = e->tt = sec * 1000000000ULL + nsec;
	p = strstr(p, name) + strlen(name) + 1;
	if (!strcmp(name, "sched_switch")) {
		e->type = E_SWITCH;
		if (field(p, "prev_pid", &v))
			return -1;
		e->a = v;
		if (field(p, "prev_state", &e->x) || field(p, "next_pid", &v))
			return -1;
		e->b = v;
		nswitch++;
		if (e->cpu >= 0 && e->cpu < MAX_CPUS &&
		    psi_last[e->cpu].valid && psi_last[e->cpu].cur == e->a) {
			e->y = psi_last[e->cpu].sleep ? Q_DEQUEUED : Q_QUEUED;
			psi_known++;
			undone_queued += e->y == Q_QUEUED && (e->x & 0xff);
		}
		if (e->cpu >= 0 && e->cpu < MAX_CPUS)
			psi_last[e->cpu].valid = 0;
	} else if (!strcmp(name, "rsleep")) {
		if (field(p, "sleep", &v) || e->cpu < 0 || e->cpu >= MAX_CPUS)
			return -1;
		psi_last[e->cpu].cur = e->cur;
		psi_last[e->cpu].sleep = !!v;
		psi_last[e->cpu].valid = 1;
		return 1;
	} else if (!strcmp(name, "sched_wakeup") ||
		   !strcmp(name, "sched_wakeup_new")) {
		e->type = name[12] ? E_WAKEUP_NEW : E_WAKEUP;
		if (field(p, "pid", &v))
			return -1;
		e->a = v;
	} else if (!strcmp(name, "sys_enter")) {
		e->type = E_SYS_ENTER;
		if (field(p, "id", &e->x))
			return -1;
		e->y = sys_arg(p, 1);
	} else if (!strcmp(name, "sys_exit")) {
		e->type = E_SYS_EXIT;
	} else if (!strcmp(name, "rf")) {
		e->type = E_FAULT;
		if (field(p, "flags", &e->x))
			return -1;
	} else if (!strcmp(name, "rfx")) {
		e->type = E_FAULT_RET;
		/* Its return value, where the probe records it. */
		if (field(p, "ret", &e->x))
			e->x = 0;
	} else if (!strcmp(name, "contention_begin")) {
		e->type = E_LOCK_BEGIN;
		if (field(p, "flags", &e->x))
			return -1;
	} else if (!strcmp(name, "contention_end")) {
		e->type = E_LOCK_END;
	} else if (!strncmp(name, "tsa_", 4)) {
		e->type = -1;
		for (size_t i = 0; i < NSTAMP_FN; i++)
			if (!strcmp(name, stamp_fn[i].fn))
				e->type = E_TSA, e->x = i;
		if (e->type < 0 || field(p, "now", &e->y))
			return -1;
	} else {
		return 1;	/* an event the replay does not use */
	}
	return 0;
}

static int read_report(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t len = 0;
	long bad = 0;

	if (!f)
		return -1;
	while (getline(&line, &len, f) > 0) {
		struct ev e;
		int r = parse_line(line, &e);

		if (r < 0) {
			/* Header lines ("cpus=2", version) are not events. */
			if (strstr(line, ": ") && bad++ < 3)
				fprintf(stderr, "tsa-replay: unparsed: %s", line);
			continue;
		}
		if (r > 0)
			continue;
		if (nev == cap_ev) {
			cap_ev = cap_ev ? 2 * cap_ev : 65536;
			evs = realloc(evs, cap_ev * sizeof(*evs));
			if (!evs)
				return -1;
		}
		evs[nev++] = e;
	}
	free(line);
	fclose(f);
	return 0;
}

static int stamp_kind(int type)
{
	return type == E_WAKEUP_NEW ? E_WAKEUP : type;
}

/*
 * Give each event tsa's stamp for it: the next unused tsa_<fn> of its kind
 * in the same task, no further than the next event of that kind there
 * (ftrace's probe runs first, tsa's right after).
 */
static uint64_t stamped, outside;

static uint64_t match_stamps(void)
{
	size_t *idx = malloc(nev * sizeof(*idx)), ni;
	uint64_t unmatched = 0;
	int maxcpu = 0;

	for (size_t i = 0; i < nev; i++)
		maxcpu = evs[i].cpu > maxcpu ? evs[i].cpu : maxcpu;
	for (int c = 0; c <= maxcpu; c++) {
		ni = 0;
		for (size_t i = 0; i < nev; i++)
			if (evs[i].cpu == c)
				idx[ni++] = i;
		for (size_t k = 0; k < ni; k++) {
			struct ev *e = &evs[idx[k]], *f = NULL;
			int kind = stamp_kind(e->type);

			if (e->type == E_TSA || e->type >= E_FAULT)
				continue;
			if (kind == E_SYS_ENTER || kind == E_SYS_EXIT) {
				/*
				 * From 7.x a system call's tracepoint may run
				 * preemptible: the thread can leave the CPU
				 * between ftrace's probe and tsa's, and come
				 * back elsewhere. So: its own next stamp.
				 */
				for (size_t j = idx[k] + 1; j < nev; j++) {
					struct ev *x = &evs[j];

					if (x->cur != e->cur)
						continue;
					if (x->type != E_TSA) {
						if (stamp_kind(x->type) == kind)
							break;
						continue;
					}
					if (x->b != -1 &&
					    stamp_fn[x->x].type == kind) {
						f = x;
						break;
					}
				}
			}
			for (size_t j = k + 1; !f && kind != E_SYS_ENTER &&
			     kind != E_SYS_EXIT && j < ni; j++) {
				struct ev *x = &evs[idx[j]];

				if (x->type != E_TSA) {
					if (stamp_kind(x->type) == kind)
						break;
					continue;
				}
				if (x->b != -1 && x->cur == e->cur &&
				    stamp_fn[x->x].type == kind)
					f = x;
			}
			if (!f) {
				/*
				 * A kprobe hit while another kprobe's handler
				 * runs on the CPU (an interrupt in one) is
				 * missed. tsa read its clock between ftrace's
				 * stamp and the next event recorded there:
				 * that much slack for the threads concerned.
				 */
				uint64_t w = k + 1 < ni ?
					evs[idx[k + 1]].tt - e->tt : 0;
				struct rt *c[2] = { NULL, NULL };

				if (e->type == E_SWITCH) {
					c[0] = rt_of(e->a);
					c[1] = rt_of(e->b);
				} else if (e->type == E_WAKEUP ||
					   e->type == E_WAKEUP_NEW) {
					c[0] = rt_of(e->a);
				} else {
					c[0] = rt_of(e->cur);
				}
				for (int i = 0; i < 2; i++) {
					if (!c[i] || e->tt > c[i]->w1 ||
					    e->tt + w < c[i]->w0)
						continue;
					c[i]->slack += w;
					c[i]->missed++;
					unmatched++;
				}
				continue;
			}
			e->ts = f->y;
			f->b = -1;	/* used */
			/*
			 * ftrace's probe runs first and stamps the event;
			 * tsa's reads its clock, then calls its stamp
			 * function, whose kprobe ftrace stamps in turn.
			 */
			stamped++;
			if (e->ts < e->tt || e->ts > f->tt)
				outside++;
			/* A switch stamps prev and next with one read. */
			for (size_t j = k + 1; kind == E_SWITCH && j < ni; j++) {
				struct ev *x = &evs[idx[j]];

				if (x->type != E_TSA)
					break;
				if (x->b != -1 && x->y == f->y &&
				    stamp_fn[x->x].type == E_SWITCH)
					x->b = -1;
			}
		}
	}
	free(idx);
	return unmatched;
}

/*
 * The module's bucket of a stay of @ns, by its definition (tsa-hist 2):
 * the first whose bound 2^(b - 20) s the stay is within (ns * 2^20 <=
 * 10^9 * 2^b), the last if none.
 */
static int hist_bucket(uint64_t ns)
{
	int b;

	for (b = 0; b < TSA_HIST_BUCKETS - 1; b++)
		if ((unsigned __int128)ns << 20 <=
		    (unsigned __int128)1000000000 << b)
			break;
	return b;
}

/*
 * A stay off CPU of group g, begun at t0 (0: before the trace), ends at
 * t; @loose: one of its edges is on ftrace's stamp.
 */
static void hist_stay_end(struct rt *r, int g, uint64_t t0, uint64_t t,
			  int loose)
{
	if (!r->hist || g == G_USR || g == G_SYS)
		return;
	/* A loose end may belong just inside or outside the window. */
	if (t <= r->hw0 || t > r->hw1) {
		r->hloose += loose && t0;
		return;
	}
	if (!t0 || g == G_UNK) {
		r->hunknown++;
		return;
	}
	r->hb[g][hist_bucket(t - t0)]++;
	r->hloose += loose;
}

/* Charge [a, b) to group g, inside the thread's window only. */
static void charge(struct rt *r, int g, uint64_t a, uint64_t b)
{
	uint64_t lo = a > r->w0 ? a : r->w0, hi = b < r->w1 ? b : r->w1;

	if (b <= a)
		return;
	if (g != r->run_g) {
		if (r->run_g >= 0)
			hist_stay_end(r, r->run_g, r->run_start, a,
				      r->run_loose || ev_loose);
		r->run_loose = ev_loose;
		/* A transition at a: counts for both groups it separates. */
		if (a > r->w0 && a <= r->w1) {
			r->trans[g]++;
			if (r->run_g >= 0)
				r->trans[r->run_g]++;
		}
		r->run_g = g;
		r->run_start = a;
	}
	if (a <= r->w0 && b > r->w0) {
		r->g0 = g;
		r->stay0 = r->w0 - r->run_start;
	}
	if (a < r->w1 && b >= r->w1) {
		r->g1 = g;
		r->stay1 = r->w1 - r->run_start;
	}
	if (hi > lo)
		r->ns[g] += hi - lo;
}

static int in_window(const struct rt *r, uint64_t t)
{
	return t > r->w0 && t <= r->w1;
}

static int cpu_group(const struct rt *r)
{
	return r->kthread || r->in_sys || r->fault ? G_SYS : G_USR;
}

/* The futex operations that wait (FUTEX_CMD_MASK applied), futex_waitv. */
static int futex_wait(const struct rt *r)
{
	uint64_t cmd = r->op & 0x7f;

	if (r->nr == 449)
		return 1;
	return r->nr == 202 &&
	       (cmd == 0 || cmd == 6 || cmd == 9 || cmd == 11 || cmd == 13);
}

/* Close the thread's current interval at t, as its state says. */
static void close_at(struct rt *r, uint64_t t, int runnable_if_sleep)
{
	switch (r->st) {
	case S_CPU:
		charge(r, cpu_group(r), r->t, t);
		break;
	case S_RUN:
		charge(r, G_LAT, r->t, t);
		break;
	case S_SLEEP:
		charge(r, runnable_if_sleep ? G_LAT : r->sleep_g, r->t, t);
		break;
	}
	r->t = t;
}

/* The first event of a thread tells what it was doing before. */
static void first_seen(struct rt *r, int st, int g)
{
	if (r->st != S_UNK)
		return;
	r->st = st;
	r->sleep_g = g;
	r->t = 0;
}

static void on_cpu(struct rt *r, const struct ev *e)
{
	first_seen(r, S_CPU, 0);
	if (r->st != S_CPU) {
		/* A lost event: the thread runs although it was not put on. */
		r->anomalies++;
		close_at(r, e->t, 0);
		r->st = S_CPU;
	}
	if (r->cpu < 0)
		r->cpu = e->cpu;
}

static void replay_event(const struct ev *e)
{
	struct rt *r, *n;

	switch (e->type) {
	case E_SWITCH:
		r = rt_of(e->a);
		if (r) {
			uint64_t st = e->x & 0xff;

			on_cpu(r, e);
			close_at(r, e->t, 0);
			/*
			 * Before 5.18 the event reads the state after the
			 * dequeue, where a wakeup may already have written
			 * TASK_WAKING (shown R): the thread left its queue, a
			 * sleep whose kind is lost, as tsa takes it there
			 * (an interruptible one).
			 */
			if (!st && e->y == Q_DEQUEUED)
				st = 0x1;
			if (!st) {
				/* R or R+ (preempted): runnable, involuntary. */
				r->st = S_RUN;
				if (in_window(r, e->t)) {
					r->cnt[C_ICX]++;
					r->yields += !(e->x & TASK_REPORT_MAX);
				}
			} else if (e->y == Q_QUEUED) {
				/* An undone sleep: runnable, voluntary. */
				r->st = S_RUN;
				if (in_window(r, e->t))
					r->cnt[C_VCX]++;
			} else {
				r->st = S_SLEEP;
				if (st & (0x4 | 0x8))
					r->sleep_g = G_STP;
				else if (r->fault)
					r->sleep_g = G_FLT;
				else if (r->klk)
					r->sleep_g = G_KLK;
				else if (r->in_sys && futex_wait(r))
					r->sleep_g = G_LCK;
				else
					r->sleep_g = G_OSL;
				if (in_window(r, e->t))
					r->cnt[C_VCX]++;
			}
			r->cpu = e->cpu;
		}
		n = rt_of(e->b);
		if (n) {
			first_seen(n, S_RUN, 0);
			if (n->st == S_CPU)
				n->anomalies++;
			/*
			 * A sleep that ends in a switch-in without a wakeup
			 * never happened: a pending signal kept the thread
			 * runnable.
			 */
			close_at(n, e->t, 1);
			if (n->cpu >= 0 && n->cpu != e->cpu && in_window(n, e->t))
				n->cnt[C_MIG]++;
			else if (n->cpu < 0 && in_window(n, e->t))
				n->mig_known = 0;
			n->cpu = e->cpu;
			n->st = S_CPU;
		}
		break;
	case E_WAKEUP:
	case E_WAKEUP_NEW:
		r = rt_of(e->a);
		if (!r)
			break;
		/* Before a first wakeup: asleep, or not yet born (LAT). */
		first_seen(r, e->type == E_WAKEUP ? S_SLEEP : S_RUN, G_UNK);
		if (r->st == S_SLEEP) {
			close_at(r, e->t, 0);
			r->st = S_RUN;
		}
		break;
	case E_SYS_ENTER:
		r = rt_of(e->cur);
		if (!r)
			break;
		on_cpu(r, e);
		close_at(r, e->t, 0);
		/* A fault to be retried that was left for a call instead. */
		if (r->retry) {
			r->retry = 0;
			if (r->fault)
				r->fault--;
		}
		r->in_sys = 1;
		r->nr = e->x;
		r->op = e->y;
		if (in_window(r, e->t))
			r->cnt[C_SCL]++;
		break;
	case E_SYS_EXIT:
		r = rt_of(e->cur);
		if (!r)
			break;
		on_cpu(r, e);
		close_at(r, e->t, 0);
		r->in_sys = 0;
		break;
	case E_FAULT:
	case E_FAULT_RET:
		r = rt_of(e->cur);
		if (!r)
			break;
		on_cpu(r, e);
		close_at(r, e->t, 0);
		if (in_window(r, e->t))
			r->faults++;
		/*
		 * A user fault that returns VM_FAULT_RETRY is still in the
		 * fault until its retry's entry, as tsa counts it: a sleep
		 * for mmap_lock between is the fault's.
		 */
		if (e->type == E_FAULT && r->retry) {
			r->retry = 0;
		} else if (e->type == E_FAULT) {
			if (!r->fault++)
				r->fault_flags = e->x;
		} else if (r->fault == 1 && (r->fault_flags & FAULT_FLAG_USER) &&
			   (e->x & VM_FAULT_RETRY)) {
			r->retry = 1;
		} else if (r->fault) {
			r->fault--;
		}
		break;
	case E_LOCK_BEGIN:
	case E_LOCK_END:
		r = rt_of(e->cur);
		if (!r)
			break;
		on_cpu(r, e);
		/* LCB_F_SPIN (1): a spinning lock never sleeps. */
		if (e->type == E_LOCK_BEGIN)
			r->klk = !(e->x & 1);
		else
			r->klk = 0;
		break;
	}
}

/* The workload's threads' PF_* flags, from --flags. */
static struct tflags {
	pid_t tid;
	unsigned long flags;
} *tflags;
static size_t ntflags;

static int read_flags(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long flags;
	size_t cap = 0;
	char line[128];
	int tid;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %lu", &tid, &flags) != 2)
			continue;
		if (ntflags == cap) {
			struct tflags *n;

			cap = cap ? 2 * cap : 256;
			n = realloc(tflags, cap * sizeof(*n));
			if (!n) {
				fclose(f);
				errno = ENOMEM;
				return -1;
			}
			tflags = n;
		}
		tflags[ntflags].tid = tid;
		tflags[ntflags++].flags = flags;
	}
	fclose(f);
	return 0;
}

static int is_kthread(pid_t tid)
{
	/* A kernel thread (PF_KTHREAD) or an io_uring worker (PF_IO_WORKER). */
	for (size_t i = 0; i < ntflags; i++)
		if (tflags[i].tid == tid)
			return !!(tflags[i].flags & (0x00200000 | 0x10));
	return 0;
}

/*
 * "/proc/PID/task/TID/schedstat:ONCPU RUNDELAY SLICES" lines (grep -H):
 * schedstat field 1 of each thread at a snapshot.
 */
static void read_schedstat(const char *path, int second)
{
	FILE *f = fopen(path, "r");
	unsigned long long v;
	char line[256];
	int pid, tid;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct rt *r;

		if (sscanf(line, "/proc/%d/task/%d/schedstat:%llu", &pid,
			   &tid, &v) != 3)
			continue;
		r = rt_of(tid);

		if (r && second)
			r->ss2 = v;
		else if (r)
			r->ss1 = v;
	}
	fclose(f);
}

static int state_group(int s)
{
	static const int map[TSA_NSTATES] = {
		[TSA_USR] = G_USR, [TSA_SYS] = G_SYS, [TSA_TRP] = G_SYS,
		[TSA_TFL] = G_FLT, [TSA_DFL] = G_FLT, [TSA_KFL] = G_FLT,
		[TSA_APG] = G_FLT, [TSA_LCK] = G_LCK, [TSA_KLK] = G_KLK,
		[TSA_IOW] = G_OSL, [TSA_IDL] = G_OSL, [TSA_SLP] = G_OSL,
		[TSA_LAT] = G_LAT, [TSA_STP] = G_STP,
	};

	return s >= 0 && s < TSA_NSTATES ? map[s] : G_UNK;
}

/* tsa's change over the window, in the replay's groups. */
static void tsa_groups(const struct rt *r, int64_t *g)
{
	memset(g, 0, G_N * sizeof(*g));
	for (int s = 0; s < TSA_NSTATES; s++)
		g[state_group(s)] += (int64_t)(r->s2->ns[s] -
					      (r->s1 ? r->s1->ns[s] : 0));
}

static int64_t tsa_counter(const struct rt *r, int c)
{
	static const int map[C_N] = {
		[C_VCX] = TSA_VCX, [C_ICX] = TSA_ICX, [C_SCL] = TSA_SCL,
		[C_MIG] = TSA_MIG,
	};

	return (int64_t)(r->s2->counters[map[c]] -
			 (r->s1 ? r->s1->counters[map[c]] : 0));
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int want_pid(const char *pids, pid_t pid)
{
	char buf[32];
	size_t l;
	const char *p = pids;

	if (!pids)
		return 1;
	l = snprintf(buf, sizeof(buf), "%d", pid);
	while ((p = strstr(p, buf))) {
		if ((p == pids || p[-1] == ',') && (p[l] == ',' || !p[l]))
			return 1;
		p += l;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: tsa-replay [--first N] [--tol-ns NS] [--pids P,...] [--name NAME] [--undone N] --flags FLAGS S1 S2 REPORT [SCHEDSTAT1 SCHEDSTAT2]\n");
	exit(2);
}

/* How far tsa's clock read is from ftrace's stamp of the same event. */
static void delta_report(const char *name)
{
	static const int kinds[] = { E_SWITCH, E_WAKEUP, E_SYS_ENTER,
				     E_SYS_EXIT, E_FAULT, E_FAULT_RET };
	double *d = malloc(nev * sizeof(*d));

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t n = 0;

		for (size_t i = 0; i < nev; i++)
			if (evs[i].ts && stamp_kind(evs[i].type) == kinds[k])
				d[n++] = (double)(int64_t)(evs[i].ts - evs[i].tt);
		if (!n)
			continue;
		qsort(d, n, sizeof(*d), cmp_d);
		printf("# replay %s: tsa's stamp - ftrace's, %s: %zu events, min %.0f, median %.0f, 99th %.0f, max %.0f ns\n",
		       name, ename[kinds[k]], n, d[0], d[n / 2],
		       d[n * 99 / 100], d[n - 1]);
	}
	free(d);
}

static size_t *order;

/* By the pass's stamp, then as recorded. */
static int cmp_order(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (evs[x].t != evs[y].t)
		return evs[x].t < evs[y].t ? -1 : 1;
	return x < y ? -1 : x > y;
}

struct result {
	int sum_ok, st_ok, cnt_ok;
	int64_t undone;		/* R switch-outs tsa counted VCX */
	uint64_t anomalies, compared;
	int64_t maxdiff;
	/* Distributions: threads compared, apart, left out; stays, and
	 * those with an edge on ftrace's stamp. */
	uint64_t h_compared, h_apart, h_skipped, h_stays, h_loose;
};

/* A thread's line of @state in the hist snapshot @h, or NULL. */
static const struct tsa_histline *hist_line(const struct tsa_hists *h,
					    const struct tsa_thread *t,
					    int state)
{
	for (size_t i = 0; i < h->n; i++) {
		const struct tsa_histline *l = &h->l[i];

		if (l->tid == t->tid && l->state == state &&
		    l->pid == t->pid &&
		    l->at - l->elapsed == t->at - t->elapsed)
			return l;
	}
	return NULL;
}

/*
 * On tsa's own stamps, the stays the replay saw end in the window of the
 * hist snapshots, bucket by bucket and group by group, against what tsa's
 * buckets gained there: equal, but for the stays with an edge whose tsa
 * stamp a kprobe missed (each may move one count). Left out: threads
 * with a stay begun before the trace (its length unknown).
 */
static void judge_hist(struct rt *r, struct result *res, char *line,
		       size_t len)
{
	uint64_t tg[G_N][TSA_HIST_BUCKETS] = { { 0 } }, off = 0;
	size_t l = strlen(line);
	int apart = 0;

	if (!r->hist)
		return;
	if (r->hunknown) {
		res->h_skipped++;
		return;
	}
	for (int s = TSA_TFL; s < TSA_NSTATES; s++) {
		const struct tsa_histline *a = r->s1 ?
			hist_line(&h1, r->s1, s) : NULL;
		const struct tsa_histline *b = hist_line(&h2, r->s2, s);

		for (int k = 0; b && k < TSA_HIST_BUCKETS; k++)
			tg[state_group(s)][k] += b->b[k] - (a ? a->b[k] : 0);
	}
	res->h_compared++;
	res->h_loose += r->hloose;
	for (int g = G_LAT; g < G_UNK; g++)
		for (int k = 0; k < TSA_HIST_BUCKETS; k++) {
			res->h_stays += r->hb[g][k];
			if (tg[g][k] == r->hb[g][k])
				continue;
			off += tg[g][k] > r->hb[g][k] ?
			       tg[g][k] - r->hb[g][k] : r->hb[g][k] - tg[g][k];
			if (!apart++)
				l += snprintf(line + l, len - l, "; buckets apart:");
			l += snprintf(line + l, len - l, " %s b%d %llu/%llu",
				      gname[g], k, (unsigned long long)tg[g][k],
				      (unsigned long long)r->hb[g][k]);
		}
	/* Each loose stay moves one count to a neighbour, or out. */
	if (off > 2 * r->hloose) {
		l += snprintf(line + l, len - l, " (%llu apart, %llu loose)!",
			      (unsigned long long)off,
			      (unsigned long long)r->hloose);
		res->h_apart++;
	} else if (apart) {
		l += snprintf(line + l, len - l, " (%llu apart, within its %llu loose stays)",
			      (unsigned long long)off,
			      (unsigned long long)r->hloose);
	}
}

static struct rt *base;
/* Switches tsa counted as undone sleeps meanwhile (its debugfs), or 0. */
static int64_t undone_max;

/* One replay, on ftrace's stamps or on tsa's, judged thread by thread. */
static void judge(const char *name, int stamps, uint64_t tol,
		  struct result *res)
{
	double *per[G_N];
	size_t nper[G_N] = { 0 };
	int64_t worst[G_N] = { 0 };
	pid_t worst_tid[G_N] = { 0 };

	int64_t undone_seen = 0;

	memset(res, 0, sizeof(*res));
	res->sum_ok = res->st_ok = res->cnt_ok = 1;
	memcpy(rts, base, nrt * sizeof(*rts));
	for (size_t i = 0; i < nev; i++) {
		evs[i].t = stamps && evs[i].ts ? evs[i].ts : evs[i].tt;
		order[i] = i;
	}
	/* In the order tsa saw them: see match_stamps() for 7.x syscalls. */
	if (stamps)
		qsort(order, nev, sizeof(*order), cmp_order);
	for (size_t i = 0; i < nev; i++) {
		ev_loose = stamps && !evs[order[i]].ts;
		replay_event(&evs[order[i]]);
	}
	ev_loose = 0;

	for (int g = 0; g < G_N; g++)
		per[g] = calloc(nrt + 1, sizeof(double));
	printf("# replay %s on %s stamps: %zu events, %zu threads; groups: FLT = TFL+DFL+KFL+APG, OSL = IOW+IDL+SLP, SYS includes TRP\n",
	       name, stamps ? "tsa's" : "ftrace's", nev, nrt);
	for (size_t i = 0; i < nrt; i++) {
		struct rt *r = &rts[i];
		int64_t g[G_N], sum = 0;
		uint64_t win = r->w1 - r->w0;
		char line[1024];
		size_t l = 0;
		int bad = 0;
		int64_t moved;

		if (r->st != S_UNK)
			close_at(r, r->w1, 0);
		tsa_groups(r, g);
		for (int k = 0; k < G_N; k++)
			sum += g[k];
		if (stamps && r->faults) {
			/*
			 * A fault's entry and return are on ftrace's stamps
			 * here, taken by handlers that run before or after
			 * tsa's as they were registered: the USR/SYS split is
			 * judged on ftrace's stamps, on-CPU time as one here.
			 */
			g[G_SYS] += g[G_USR];
			r->ns[G_SYS] += r->ns[G_USR];
			r->trans[G_SYS] += r->trans[G_USR];
			g[G_USR] = r->ns[G_USR] = r->trans[G_USR] = 0;
		}
		if (sum != (int64_t)win ||
		    (int64_t)(r->s2->elapsed - (r->s1 ? r->s1->elapsed : 0)) != (int64_t)win) {
			res->sum_ok = 0;
			printf("# %d %s: tsa's states sum to %lld ns over a window of %llu ns (elapsed %llu -> %llu)\n",
			       r->tid, r->s2->comm, (long long)sum,
			       (unsigned long long)win,
			       (unsigned long long)(r->s1 ? r->s1->elapsed : 0),
			       (unsigned long long)r->s2->elapsed);
		}
		res->anomalies += r->anomalies;
		res->compared++;
		l += snprintf(line + l, sizeof(line) - l, "# %d %s%s: %.3f ms%s;",
			      r->tid, r->s2->comm, r->kthread ? " (kthread)" : "",
			      win / 1e6,
			      stamps && r->faults ? " (faults: SYS is USR+SYS)" : "");
		if (r->st == S_UNK) {
			/* No event in the trace: one state the whole window. */
			int groups = 0;

			for (int k = 0; k < G_N; k++)
				groups += g[k] != 0;
			l += snprintf(line + l, sizeof(line) - l,
				      " no events; tsa: %d state group%s", groups,
				      groups == 1 ? "" : "s!");
			bad = groups != 1;
			memset(g, 0, sizeof(g));
		} else if (r->ns[G_UNK]) {
			/*
			 * Asleep since before the trace began: the kind of
			 * sleep is unknown, so the sleeps are compared as
			 * one sum.
			 */
			int64_t ts = 0, rs = r->ns[G_UNK];

			for (int k = G_LCK; k <= G_OSL; k++) {
				ts += g[k];
				rs += r->ns[k];
				r->ns[k] = 0;
				g[k] = 0;
			}
			g[G_UNK] = ts;
			r->ns[G_UNK] = rs;
		}
		for (int k = 0; k < G_N; k++) {
			int64_t d = g[k] - (int64_t)r->ns[k];
			uint64_t n = r->trans[k] ? r->trans[k] : 1;
			double pt = (double)(d < 0 ? -d : d) / n;

			if (!g[k] && !r->ns[k])
				continue;
			l += snprintf(line + l, sizeof(line) - l,
				      " %s %.3f/%.3f%s", gname[k], g[k] / 1e6,
				      r->ns[k] / 1e6,
				      (stamps ? (uint64_t)llabs(d) > r->slack :
				       pt > tol) ? "!" : "");
			if (k != G_UNK) {
				per[k][nper[k]++] = pt;
				if (llabs(d) > res->maxdiff)
					res->maxdiff = llabs(d);
				if (llabs(d) > llabs(worst[k])) {
					worst[k] = d;
					worst_tid[k] = r->tid;
				}
			}
			if (stamps ? (uint64_t)llabs(d) > r->slack : pt > tol)
				bad = 1;
		}
		/*
		 * A sleep a pending signal undid is voluntary for the kernel,
		 * and for tsa; from 6.12.34/6.16 the trace shows it as R, a
		 * yield. tsa counts those VCX (debugfs switch_signal_running,
		 * at most --undone of them in all): up to this thread's R
		 * switch-outs may move from ICX to VCX, and no other.
		 */
		moved = tsa_counter(r, C_VCX) - (int64_t)r->cnt[C_VCX];
		if (moved < 0 || moved > (int64_t)r->yields ||
		    moved != (int64_t)r->cnt[C_ICX] - tsa_counter(r, C_ICX))
			moved = 0;
		undone_seen += moved;
		for (int c = 0; c < C_N; c++) {
			int64_t tv = tsa_counter(r, c);
			int64_t want = (int64_t)r->cnt[c] +
				       (c == C_VCX ? moved :
					c == C_ICX ? -moved : 0);

			if (c == C_MIG && !r->mig_known)
				continue;
			if (tv != want) {
				res->cnt_ok = 0;
				l += snprintf(line + l, sizeof(line) - l,
					      " %s %lld/%lld!", cname[c],
					      (long long)tv, (long long)want);
			}
		}
		if (moved)
			l += snprintf(line + l, sizeof(line) - l,
				      "; %lld of %llu R switch-outs an undone sleep (VCX)",
				      (long long)moved,
				      (unsigned long long)r->yields);
		if (stamps && r->missed)
			l += snprintf(line + l, sizeof(line) - l,
				      "; %llu events without tsa's stamp, %.3f us of room",
				      (unsigned long long)r->missed,
				      r->slack / 1e3);
		if (r->ss2) {
			uint64_t on = g[G_USR] + g[G_SYS];
			int64_t ss = r->ss2 - r->ss1;

			l += snprintf(line + l, sizeof(line) - l,
				      "; on-CPU tsa %.3f trace %.3f schedstat %.3f ms",
				      on / 1e6,
				      (r->ns[G_USR] + r->ns[G_SYS]) / 1e6,
				      ss / 1e6);
		}
		if (bad && r->st != S_UNK) {
			/* Where it went apart: the stays at both snapshots. */
			l += snprintf(line + l, sizeof(line) - l,
				      "; at S1 tsa %s %.3f trace %s %.3f, at S2 tsa %s %.3f trace %s %.3f ms",
				      r->s1 ? gname[state_group(r->s1->state)] : "-",
				      r->s1 ? r->s1->state_ns / 1e6 : 0,
				      r->s1 ? gname[r->g0] : "-",
				      r->s1 ? r->stay0 / 1e6 : 0,
				      gname[state_group(r->s2->state)],
				      r->s2->state_ns / 1e6, gname[r->g1],
				      r->stay1 / 1e6);
		}
		if (bad)
			res->st_ok = 0;
		if (stamps)
			judge_hist(r, res, line, sizeof(line));
		printf("%s\n", line);
		if (bad && getenv("TSA_REPLAY_DEBUG")) {
			/* The thread's events around its last stay. */
			uint64_t from = r->w1 - r->stay1 - 200000;

			for (size_t i = 0; i < nev; i++) {
				const struct ev *e = &evs[i];

				if (e->tt < from || e->tt > r->w1 ||
				    (e->cur != r->tid && e->a != r->tid &&
				     e->b != r->tid))
					continue;
				printf("#   %llu cpu%d cur %d type %d a %d b %d x %#llx ts %llu\n",
				       (unsigned long long)e->tt, e->cpu, e->cur,
				       e->type, e->a, e->b,
				       (unsigned long long)e->x,
				       (unsigned long long)e->ts);
			}
		}
	}
	printf("# replay %s on %s stamps: tsa/replay ms per group; '!' marks a difference over %llu ns a transition\n",
	       name, stamps ? "tsa's" : "ftrace's", (unsigned long long)tol);
	for (int k = 0; k < G_UNK; k++) {
		if (!nper[k])
			continue;
		qsort(per[k], nper[k], sizeof(double), cmp_d);
		printf("# replay %s on %s stamps: %s |tsa - replay| a transition over %zu threads: median %.0f ns, max %.0f ns; largest difference %+lld ns (tid %d)\n",
		       name, stamps ? "tsa's" : "ftrace's", gname[k], nper[k], per[k][nper[k] / 2],
		       per[k][nper[k] - 1], (long long)worst[k], worst_tid[k]);
	}
	for (int g = 0; g < G_N; g++)
		free(per[g]);
	res->undone = undone_seen;
	if (undone_seen > undone_max)
		res->cnt_ok = 0;
}

int main(int argc, char **argv)
{
	const char *pids = NULL, *name = "trace", *flags = NULL;
	uint64_t tol = 2000;
	struct tsa_all a1, a2;
	struct result own, ft;
	uint64_t unmatched;
	int ai = 1;

	for (; ai < argc && !strncmp(argv[ai], "--", 2); ai += 2) {
		if (ai + 1 >= argc)
			usage();
		if (!strcmp(argv[ai], "--first"))
			test_no = atoi(argv[ai + 1]) - 1;
		else if (!strcmp(argv[ai], "--tol-ns"))
			tol = strtoull(argv[ai + 1], NULL, 10);
		else if (!strcmp(argv[ai], "--pids"))
			pids = argv[ai + 1];
		else if (!strcmp(argv[ai], "--name"))
			name = argv[ai + 1];
		else if (!strcmp(argv[ai], "--undone"))
			undone_max = strtoll(argv[ai + 1], NULL, 10);
		else if (!strcmp(argv[ai], "--flags"))
			flags = argv[ai + 1];
		else if (!strcmp(argv[ai], "--hist1") ||
			 !strcmp(argv[ai], "--hist2")) {
			if (tsa_read_hist_file(argv[ai + 1], argv[ai][6] == '1' ?
					       &h1 : &h2)) {
				fprintf(stderr, "tsa-replay: %s: %s\n",
					argv[ai + 1], strerror(errno));
				return 2;
			}
			have_hist++;
		} else
			usage();
	}
	if ((argc - ai != 3 && argc - ai != 5) || !flags)
		usage();
	if (read_flags(flags)) {
		fprintf(stderr, "tsa-replay: %s: %s\n", flags, strerror(errno));
		return 2;
	}
	if (tsa_read_all_file(argv[ai], &a1) ||
	    tsa_read_all_file(argv[ai + 1], &a2)) {
		fprintf(stderr, "tsa-replay: %s: %s\n", argv[ai], strerror(errno));
		return 2;
	}
	if (read_report(argv[ai + 2]) || !nev) {
		fprintf(stderr, "tsa-replay: %s: no events\n", argv[ai + 2]);
		return 2;
	}

	/* The threads to judge: live in S2, of the pids asked for. */
	rts = calloc(a2.n, sizeof(*rts));
	for (size_t i = 0; i < a2.n; i++) {
		const struct tsa_thread *t2 = &a2.t[i], *t1 = NULL;
		struct rt *r;

		if ((t2->flags & 4) || !t2->tid || !want_pid(pids, t2->pid))
			continue;
		for (size_t j = 0; j < a1.n; j++)
			if (a1.t[j].tid == t2->tid && !(a1.t[j].flags & 4) &&
			    a1.t[j].at - a1.t[j].elapsed == t2->at - t2->elapsed)
				t1 = &a1.t[j];
		/* Born after S1: from birth; else it must be in S1. */
		if (!t1 && (t2->flags & 1))
			continue;
		r = &rts[nrt++];
		r->tid = t2->tid;
		r->s1 = t1;
		r->s2 = t2;
		r->w0 = t1 ? t1->at : t2->at - t2->elapsed;
		r->w1 = t2->at;
		r->cpu = -1;
		r->mig_known = 1;
		r->run_g = -1;
		r->kthread = is_kthread(t2->tid);
		/* The hist snapshots' window: their own clocks. */
		if (have_hist == 2) {
			const struct tsa_histline *a = NULL, *b = NULL;

			for (int st = 0; st < TSA_NSTATES && !b; st++)
				b = hist_line(&h2, t2, st);
			for (int st = 0; t1 && st < TSA_NSTATES && !a; st++)
				a = hist_line(&h1, t1, st);
			r->hist = b && (a || !t1);
			r->hw0 = a ? a->at : t2->at - t2->elapsed;
			r->hw1 = b ? b->at : 0;
		}
	}
	if (ai + 4 < argc) {
		read_schedstat(argv[ai + 3], 0);
		read_schedstat(argv[ai + 4], 1);
	}
	if (evs[0].t >= a1.now || evs[nev - 1].t <= a2.now) {
		tap(0, "replay %s: the trace covers both snapshots (trace %.6f-%.6f s, snapshots %.6f and %.6f s)",
		    name, evs[0].t / 1e9, evs[nev - 1].t / 1e9, a1.now / 1e9,
		    a2.now / 1e9);
		return 1;
	}

	/* Who was in a system call before the trace: its first sys event. */
	for (size_t i = 0; i < nev; i++) {
		struct rt *r;

		if (evs[i].type != E_SYS_ENTER && evs[i].type != E_SYS_EXIT)
			continue;
		r = rt_of(evs[i].cur);
		if (r && !r->first_sys)
			r->first_sys = evs[i].type == E_SYS_ENTER ? 1 : 2;
	}
	for (size_t i = 0; i < nrt; i++)
		rts[i].in_sys = rts[i].first_sys == 2 ||
				/* a new thread returns through sys_exit */
				(!rts[i].s1 && !rts[i].kthread);
	unmatched = match_stamps();
	printf("# replay %s: the kernel's psi_task_switch() told for %llu of %llu switch-outs whether the thread left its run queue; %llu shown asleep stayed queued (sleeps a pending signal undid)\n",
	       name, (unsigned long long)psi_known,
	       (unsigned long long)nswitch, (unsigned long long)undone_queued);
	order = malloc(nev * sizeof(*order));
	base = malloc(nrt * sizeof(*base));
	memcpy(base, rts, nrt * sizeof(*rts));
	delta_report(name);
	judge(name, 1, 0, &own);
	judge(name, 0, tol, &ft);
	tap(own.compared > 0 && own.sum_ok,
	    "replay %s: every thread's state deltas sum to its window exactly (expected %llu threads summing, saw %s)",
	    name, (unsigned long long)own.compared, own.sum_ok ? "all" : "some not");
	tap(own.compared > 0 && own.st_ok && !own.anomalies,
	    "replay %s: on tsa's own stamps every state group of every thread equals the replay of the events (expected 0 ns apart, or within the room of the %llu events whose tsa stamp a kprobe missed; saw at most %lld ns; %llu trace anomalies)",
	    name, (unsigned long long)unmatched, (long long)own.maxdiff,
	    (unsigned long long)own.anomalies);
	tap(own.compared > 0 && own.cnt_ok,
	    "replay %s: VCX, ICX, SCL and MIG equal the trace's counts (expected equal, with at most %lld R switch-outs counted VCX as undone sleeps, tsa's switch_signal_running over the run; saw %s, %lld)",
	    name, (long long)undone_max,
	    own.cnt_ok ? "equal" : "differences (marked !)",
	    (long long)own.undone);
	if (have_hist == 2)
		/*
		 * A workload of few long stays may leave nothing to compare
		 * (each thread's first stay begins before the trace): then
		 * it says so; elsewhere thousands are.
		 */
		tap(own.h_compared + own.h_skipped > 0 && !own.h_apart,
		    "replay %s: on tsa's own stamps every bucket of every thread's distribution of stays (LAT, LCK, KLK, FLT, STP, OSL) equals the replay's (expected 0 of %llu threads apart over %llu stays, but by the %llu stays with an edge whose tsa stamp a kprobe missed; saw %llu; %llu threads left out: a stay begun before the trace)",
		    name, (unsigned long long)own.h_compared,
		    (unsigned long long)own.h_stays,
		    (unsigned long long)own.h_loose,
		    (unsigned long long)own.h_apart,
		    (unsigned long long)own.h_skipped);
	tap(stamped > 0 && !outside,
	    "replay %s: tsa's clock read for each event lies inside that event's tracepoint call, after ftrace's stamp of it and before ftrace's stamp of tsa's accounting call (expected 0 of %llu outside, saw %llu)",
	    name, (unsigned long long)stamped, (unsigned long long)outside);
	/*
	 * On ftrace's stamps the two books differ by how far apart the two
	 * clock reads of one tracepoint call are: reported, not judged.
	 * Under emulation a vCPU can be parked between them for ms.
	 */
	printf("# replay %s: on ftrace's stamps %s (at most %lld ns apart in a group of a thread)\n",
	       name, ft.st_ok ? "every group within the per-transition target" :
	       "some groups over the per-transition target (marked !)",
	       (long long)ft.maxdiff);
	tsa_free_all(&a1);
	tsa_free_all(&a2);
	return failures ? 1 : 0;
}
