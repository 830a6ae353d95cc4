// SPDX-License-Identifier: GPL-2.0
/*
 * tsa-gtest: guest tests of the microstate engine against workloads with
 * known answers and against the kernel's own books (schedstat, status).
 * Runs inside a QEMU guest with tsa.ko loaded; prints TAP.
 *
 *   tsa-gtest [test-name...]     run all tests, or the named ones
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <elf.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/user.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tsa-read.h"






/* |a - b| relative to b, in percent. */


/* --- two spinners pinned to one CPU ----------------------------------- */

static atomic_int spin_stop;
static atomic_int spin_parked;
static pthread_mutex_t park = PTHREAD_MUTEX_INITIALIZER;
static pid_t spin_tid[2];

static void *spinner(void *arg)
{
	volatile unsigned long n = 0;

	pin(0);
	spin_tid[(long)arg] = gettid_();
	while (!atomic_load(&spin_stop))
		n++;
	/* Park off-CPU so that the books can be compared at rest. */
	atomic_fetch_add(&spin_parked, 1);
	pthread_mutex_lock(&park);
	pthread_mutex_unlock(&park);
	return NULL;
}

static void test_spinners(void)
{
	struct tsa_thread t[2];
	struct tsa_schedstat ss[2];
	pthread_t th[2];
	long i;

	pin(1);
	pthread_mutex_lock(&park);
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, spinner, (void *)i);
	sleep_ms(3000);
	atomic_store(&spin_stop, 1);
	while (atomic_load(&spin_parked) < 2)
		sleep_ms(10);
	sleep_ms(100);
	for (i = 0; i < 2; i++) {
		char what[64];
		uint64_t cpu, lat;

		snprintf(what, sizeof(what), "spinner %d", spin_tid[i]);
		if (tsa_read_thread(spin_tid[i], &t[i]) ||
		    tsa_read_schedstat(spin_tid[i], &ss[i])) {
			tap(0, "%s: read /proc/tsa and schedstat: %s", what,
			    strerror(errno));
			continue;
		}
		cpu = t[i].ns[TSA_USR] + t[i].ns[TSA_SYS] + t[i].ns[TSA_TRP];
		lat = t[i].ns[TSA_LAT];
		tap(pct(t[i].ns[TSA_USR], cpu + lat) > 40 &&
		    pct(lat, cpu + lat) > 40,
		    "%s: ~50%% USR, ~50%% LAT of its running life (expected both >40%%, saw USR %.1f%% LAT %.1f%%)",
		    what, pct(t[i].ns[TSA_USR], cpu + lat),
		    pct(lat, cpu + lat));
		tap(gap(cpu, ss[i].oncpu) < 1.0,
		    "%s: USR+SYS within 1%% of schedstat on-CPU (expected %llu, saw %llu, gap %.3f%%)",
		    what, (unsigned long long)ss[i].oncpu,
		    (unsigned long long)cpu, gap(cpu, ss[i].oncpu));
		tap(gap(lat, ss[i].rundelay) < 1.0,
		    "%s: LAT within 1%% of schedstat run delay (expected %llu, saw %llu, gap %.3f%%)",
		    what, (unsigned long long)ss[i].rundelay,
		    (unsigned long long)lat, gap(lat, ss[i].rundelay));
		check_sum(&t[i], what);
	}
	pthread_mutex_unlock(&park);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
}

/* --- sleep 1 s ------------------------------------------------------- */

static pid_t sleeper_tid;

static void *sleeper(void *arg __attribute__((unused)))
{
	sleeper_tid = gettid_();
	sleep_ms(1500);
	return NULL;
}

static void test_sleep(void)
{
	struct tsa_thread t;
	pthread_t th;

	pthread_create(&th, NULL, sleeper, NULL);
	sleep_ms(1000);
	if (tsa_read_thread(sleeper_tid, &t)) {
		tap(0, "sleeper: read /proc/tsa/%d: %s", sleeper_tid,
		    strerror(errno));
	} else {
		tap(t.state == TSA_SLP && pct(t.ns[TSA_SLP], t.elapsed) > 95,
		    "sleeper: ~100%% SLP and in SLP now (expected >95%% SLP, saw %.2f%% SLP, state %s, elapsed %llu)",
		    pct(t.ns[TSA_SLP], t.elapsed), tsa_state_name(t.state),
		    (unsigned long long)t.elapsed);
		tap(t.entries[TSA_SLP] == 1 && t.counters[TSA_VCX] == 1,
		    "sleeper: one sleep, one voluntary switch (expected 1/1, saw %llu/%llu)",
		    (unsigned long long)t.entries[TSA_SLP],
		    (unsigned long long)t.counters[TSA_VCX]);
		tap(t.longest[TSA_SLP] == t.ns[TSA_SLP] &&
		    t.state_ns == t.ns[TSA_SLP],
		    "sleeper: longest SLP stay is the current one (expected %llu, saw %llu and %llu)",
		    (unsigned long long)t.ns[TSA_SLP],
		    (unsigned long long)t.longest[TSA_SLP],
		    (unsigned long long)t.state_ns);
		tap(!t.since_load, "sleeper: born after load says 'since birth'");
		check_sum(&t, "sleeper");
	}
	pthread_join(th, NULL);
}

/* --- getppid loop: SCL exact ---------------------------------------- */

#define NCALLS 20000

static void test_syscalls(void)
{
	struct tsa_thread a, b;
	char path[64];
	int fd, i;

	snprintf(path, sizeof(path), "/proc/tsa/%d", gettid_());
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		tap(0, "syscalls: open %s: %s", path, strerror(errno));
		return;
	}
	/* Each pread at offset 0 takes a fresh snapshot in one syscall. */
	if (tsa_pread_thread(fd, &a))
		tap(0, "syscalls: first read");
	for (i = 0; i < NCALLS; i++)
		syscall(SYS_getppid);
	if (tsa_pread_thread(fd, &b))
		tap(0, "syscalls: second read");
	close(fd);
	tap(b.counters[TSA_SCL] - a.counters[TSA_SCL] == NCALLS + 1,
	    "syscalls: SCL counts every call (expected %d, saw %llu)",
	    NCALLS + 1,
	    (unsigned long long)(b.counters[TSA_SCL] - a.counters[TSA_SCL]));
	tap(b.ns[TSA_SYS] > a.ns[TSA_SYS] && b.ns[TSA_USR] > a.ns[TSA_USR],
	    "syscalls: the loop added SYS and USR time (SYS +%llu ns, USR +%llu ns)",
	    (unsigned long long)(b.ns[TSA_SYS] - a.ns[TSA_SYS]),
	    (unsigned long long)(b.ns[TSA_USR] - a.ns[TSA_USR]));
	tap(b.entries[TSA_SYS] - a.entries[TSA_SYS] >= NCALLS,
	    "syscalls: every call entered SYS (expected >= %d entries, saw %llu)",
	    NCALLS,
	    (unsigned long long)(b.entries[TSA_SYS] - a.entries[TSA_SYS]));
	tap(b.state == TSA_SYS, "syscalls: a thread reading itself is in SYS (saw %s)",
	    tsa_state_name(b.state));
}

/* --- calls refused before sys_enter: seccomp, a tracer --------------- */

#define NREFUSED 400

/* Calls in all the rows of a thread's table, the other row included. */
static unsigned long long refused_rows(const struct tsa_calls *c)
{
	unsigned long long n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += c->row[i].calls;
	return n;
}

static int wait_entry(pid_t tid, int present);

/*
 * In a child: NREFUSED getppid() calls between two reads of its own file.
 * Two reads with nothing between tell what reading itself adds to SCL.
 * Writes "SCL-delta expected rows-delta refused getppid-STP-ns" to @out.
 * A new thread's file appears a moment after its birth (tsa(4)): wait.
 */
static void refused_calls_child(int out)
{
	static struct tsa_calls c0, c1, c2;
	struct tsa_thread t0, t1, t2;
	const struct tsa_callrow *r;
	int i, refused = 0;
	char line[160];

	if (!wait_entry(gettid_(), 1) ||
	    tsa_read_thread_calls(gettid_(), &t0, &c0) ||
	    tsa_read_thread_calls(gettid_(), &t1, &c1))
		_exit(1);
	for (i = 0; i < NREFUSED; i++)
		refused += syscall(SYS_getppid) < 0;
	if (tsa_read_thread_calls(gettid_(), &t2, &c2))
		_exit(1);
	r = tsa_call_find(&c2, "getppid");
	snprintf(line, sizeof(line), "%llu %llu %llu %d %llu\n",
		 (unsigned long long)(t2.counters[TSA_SCL] - t1.counters[TSA_SCL]),
		 (unsigned long long)(NREFUSED + t1.counters[TSA_SCL] -
				      t0.counters[TSA_SCL]),
		 refused_rows(&c2) - refused_rows(&c1), refused,
		 r ? (unsigned long long)r->state_ns[TSA_STP] : 0ULL);
	if (write(out, line, strlen(line)) < 0)
		_exit(1);
	_exit(0);
}

struct refused {
	unsigned long long scl, want, rows, stp;
	int refused;
};

static int refused_read(int fd, struct refused *x)
{
	char buf[160];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%llu %llu %llu %d %llu", &x->scl, &x->want,
		      &x->rows, &x->refused, &x->stp) == 5 ? 0 : -1;
}

/* SCL and the calls table count the refused calls as any other. */
static void refused_check(const char *who, const struct refused *x)
{
	tap(x->scl == x->want,
	    "refused: SCL counts calls %s (expected %llu, saw %llu)", who,
	    x->want, x->scl);
	tap(x->rows == x->scl,
	    "refused: the calls table counts them as SCL does (expected %llu, saw %llu)",
	    x->scl, x->rows);
}

/*
 * As a tracer skips the call its tracee stopped at the entry of: the
 * number set to -1, and on arm64 the return value too (x0 would keep the
 * first argument there).
 */
static int skip_call(pid_t child)
{
#if defined(__x86_64__)
	return ptrace(PTRACE_POKEUSER, child,
		      offsetof(struct user_regs_struct, orig_rax), -1L) ? -1 : 0;
#elif defined(__aarch64__)
	struct user_regs_struct regs;
	struct iovec iov = { &regs, sizeof(regs) };
	int nr = -1;
	struct iovec niov = { &nr, sizeof(nr) };

	if (ptrace(PTRACE_GETREGSET, child, NT_PRSTATUS, &iov))
		return -1;
	regs.regs[0] = (unsigned long long)-EPERM;
	return ptrace(PTRACE_SETREGSET, child, NT_PRSTATUS, &iov) ||
	       ptrace(PTRACE_SETREGSET, child, NT_ARM_SYSTEM_CALL, &niov) ?
		-1 : 0;
#else
#error "skip_call: x86-64 and arm64 only"
#endif
}

/*
 * Seccomp (SECCOMP_RET_ERRNO) and a tracer (the number set to -1 at the
 * entry stop) refuse a call before the kernel's sys_enter, and the kernel
 * still runs its sys_exit: SCL and the calls table count every call.
 */
static void test_refused(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 4, .filter = insns };
	int p[2], status, skipped = 0, n = 0;
	struct refused x;
	pid_t child;

	if (pipe(p)) {
		tap(0, "refused: pipe: %s", strerror(errno));
		return;
	}
	child = fork();
	if (child == 0) {
		close(p[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(1);
		refused_calls_child(p[1]);
	}
	close(p[1]);
	if (refused_read(p[0], &x)) {
		tap(0, "refused: the seccomp child reported nothing");
	} else {
		tap(x.refused == NREFUSED,
		    "refused: seccomp refused every getppid() (expected %d, saw %d)",
		    NREFUSED, x.refused);
		refused_check("seccomp refused", &x);
	}
	close(p[0]);
	waitpid(child, &status, 0);

	/* A tracer skips every other getppid() at its entry stop. */
	if (pipe(p)) {
		tap(0, "refused: pipe: %s", strerror(errno));
		return;
	}
	child = fork();
	if (child == 0) {
		close(p[0]);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) || raise(SIGSTOP))
			_exit(1);
		refused_calls_child(p[1]);
	}
	close(p[1]);
	if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, child, 0,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) {
		tap(0, "refused: cannot trace the child");
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		close(p[0]);
		return;
	}
	ptrace(PTRACE_SYSCALL, child, 0, 0);
	while (waitpid(child, &status, 0) == child && WIFSTOPPED(status)) {
		struct __ptrace_syscall_info si;
		int sig = 0;

		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			if (ptrace(PTRACE_GET_SYSCALL_INFO, child, sizeof(si),
				   &si) > 0 &&
			    si.op == PTRACE_SYSCALL_INFO_ENTRY &&
			    si.entry.nr == SYS_getppid && n++ % 2 == 0) {
				skipped += !skip_call(child);
			}
		} else {
			sig = WSTOPSIG(status);
		}
		ptrace(PTRACE_SYSCALL, child, 0, sig);
	}
	if (refused_read(p[0], &x)) {
		tap(0, "refused: the traced child reported nothing");
	} else {
		tap(skipped == NREFUSED / 2 && x.refused == skipped,
		    "refused: the tracer skipped every other getppid() (expected %d, skipped %d, the child saw %d fail)",
		    NREFUSED / 2, skipped, x.refused);
		refused_check("a tracer stopped and skipped", &x);
		tap(x.stp > 0,
		    "refused: the entry stops are getppid's time (its STP %llu ns)",
		    x.stp);
	}
	close(p[0]);
}

/* --- SIGSTOP for 1 s ------------------------------------------------- */

static void test_stop(void)
{
	struct tsa_thread before, during, after;
	pid_t child = fork();
	int ok;

	if (child == 0) {
		for (;;)
			pause();
	}
	sleep_ms(300);
	ok = !tsa_read_thread(child, &before);
	kill(child, SIGSTOP);
	sleep_ms(1000);
	ok = ok && !tsa_read_thread(child, &during);
	kill(child, SIGCONT);
	sleep_ms(200);
	ok = ok && !tsa_read_thread(child, &after);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	if (!ok) {
		tap(0, "stopped: read /proc/tsa/%d: %s", child, strerror(errno));
		return;
	}
	tap(during.state == TSA_STP, "stopped: in STP while stopped (saw %s)",
	    tsa_state_name(during.state));
	tap(after.ns[TSA_STP] >= 950000000ULL &&
	    after.ns[TSA_STP] <= 1300000000ULL && after.entries[TSA_STP] == 1,
	    "stopped: STP ~1 s, one entry (expected 0.95-1.3 s, saw %.3f s, %llu entries)",
	    after.ns[TSA_STP] / 1e9,
	    (unsigned long long)after.entries[TSA_STP]);
	tap(after.state != TSA_STP, "stopped: left STP after SIGCONT (saw %s)",
	    tsa_state_name(after.state));
	check_sum(&after, "stopped");
}

/* --- cgroup.freeze for 1 s (docker pause) ----------------------------- */

static int cgroup_frozen(const char *cg)
{
	char path[128], buf[256];
	int fd, n;

	snprintf(path, sizeof(path), "%s/cgroup.events", cg);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, "frozen 1") != NULL;
}

/*
 * A process in a cgroup v2 that is frozen for about 1 s: a thread asleep
 * in pause() (IDL until then) and one spinning. Both are STP from the
 * freeze until the thaw, to within the time the two writes take: at least
 * from "frozen 1" in cgroup.events to the start of the thaw, at most from
 * the start of the freeze to the end of the thaw.
 */
static int fz_pipe[2];

static void *fz_spin(void *arg)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	(void)arg;
	if (write(fz_pipe[1], &tid, sizeof(tid)) != sizeof(tid))
		_exit(1);
	for (;;)
		;
	return NULL;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The lower bound of each thread's STP comes from the kernel's schedstat,
 * not from when cgroup.events says "frozen 1": a task counts as frozen in
 * cgroup_enter_frozen(), before it calls schedule(), and under
 * single-threaded TCG its vCPU can be paused right there for milliseconds
 * while this one reads "frozen" (CI saw STP 0.995 s after 1.000 s of
 * "frozen"). From the return of the freeze request (t0b: the freezer
 * wakes sleepers inside it) to the thaw (t2) a thread is either frozen or
 * on a CPU or runqueue, so STP >= (t2 - t0b) - (its on-CPU and run-delay
 * time since before the request), less 100 us a switch where the two
 * books stamp differently (see the wait tests).
 */
static void test_freeze(void)
{
	const char *cg = "/sys/fs/cgroup/tsa-freeze";
	struct tsa_thread sleeper, spinner;
	struct tsa_schedstat ss0[2], ss2[2];
	uint64_t v0[2], i0[2], v2[2], i2[2];
	double t0, t0b, t1, t2, t3;
	char path[128], pid[16];
	pid_t child, spin = 0, who[2];
	int ok;

	mkdir(cg, 0755);
	if (pipe(fz_pipe))
		return;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	child = fork();
	if (child == 0) {
		pthread_t th;

		pthread_create(&th, NULL, fz_spin, NULL);
		for (;;)
			pause();
	}
	snprintf(pid, sizeof(pid), "%d", child);
	ok = !tsa_write_file(path, pid) &&
	     read(fz_pipe[0], &spin, sizeof(spin)) == sizeof(spin);
	sleep_ms(300);
	who[0] = child;
	who[1] = spin;
	snprintf(path, sizeof(path), "%s/cgroup.freeze", cg);
	for (int k = 0; k < 2; k++)
		ok = ok && !tsa_read_schedstat(who[k], &ss0[k]) &&
		     !tsa_read_ctxt_switches(who[k], &v0[k], &i0[k]);
	t0 = mono_s();
	ok = ok && !tsa_write_file(path, "1");
	t0b = mono_s();
	while (ok && cgroup_frozen(cg) == 0 && mono_s() < t0 + 10)
		sleep_ms(1);
	t1 = mono_s();
	sleep_ms(1000);
	for (int k = 0; k < 2; k++)
		ok = ok && !tsa_read_schedstat(who[k], &ss2[k]) &&
		     !tsa_read_ctxt_switches(who[k], &v2[k], &i2[k]);
	t2 = mono_s();
	ok = ok && !tsa_write_file(path, "0");
	t3 = mono_s();
	sleep_ms(200);
	ok = ok && !tsa_read_thread(child, &sleeper) &&
	     !tsa_read_thread(spin, &spinner);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	rmdir(cg);
	if (!ok) {
		tap(0, "freeze: cgroup %s, freeze and thaw, read both threads: %s",
		    cg, strerror(errno));
		return;
	}
	for (int k = 0; k < 2; k++) {
		struct tsa_thread *t = k ? &spinner : &sleeper;
		double stp = t->ns[TSA_STP] / 1e9;
		double busy = (ss2[k].oncpu - ss0[k].oncpu +
			       ss2[k].rundelay - ss0[k].rundelay) / 1e9;
		uint64_t sw = v2[k] - v0[k] + i2[k] - i0[k];
		double lo = t2 - t0b - busy - 100e-6 * (double)sw;

		tap(stp >= lo && stp <= t3 - t0 && t->entries[TSA_STP] == 1,
		    "freeze: the %s is STP while its cgroup is frozen, one entry (expected %.4f-%.4f s: %.4f s from freeze to thaw less %.4f s on a CPU or runqueue and 100 us for each of %llu switches; saw %.4f s, %llu entries; \"frozen\" for %.4f s; IDL %.3f s, SLP %.3f s)",
		    k ? "spinner" : "sleeper in pause()", lo, t3 - t0,
		    t2 - t0b, busy, (unsigned long long)sw, stp,
		    (unsigned long long)t->entries[TSA_STP], t2 - t1,
		    t->ns[TSA_IDL] / 1e9, t->ns[TSA_SLP] / 1e9);
	}
}

/* --- io_uring workers (tasks the kernel copies without a fork) --------- */

/*
 * One IORING_OP_NOP with IOSQE_ASYNC makes the kernel start an io-wq
 * worker ("iou-wrk-PID", create_io_thread()) in this process: no fork,
 * clone or sched_process_fork. It must be tracked like any thread, and
 * it waits for work (IDL) once the NOP is done.
 */
static void test_io_uring(void)
{
	struct io_uring_params p;
	struct tsa_thread t;
	pid_t wrk = 0;
	int fd, r = -1;

	memset(&p, 0, sizeof(p));
	fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (fd >= 0) {
		size_t sqsz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
		char *sq = mmap(NULL, sqsz, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
		struct io_uring_sqe *sqes = mmap(NULL,
				p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);

		if (sq != MAP_FAILED && sqes != MAP_FAILED) {
			unsigned *tail = (unsigned *)(sq + p.sq_off.tail);
			unsigned mask = *(unsigned *)(sq + p.sq_off.ring_mask);
			unsigned *array = (unsigned *)(sq + p.sq_off.array);
			unsigned tl = *tail, idx = tl & mask;

			memset(&sqes[idx], 0, sizeof(sqes[idx]));
			sqes[idx].opcode = IORING_OP_NOP;
			sqes[idx].flags = IOSQE_ASYNC;
			array[idx] = idx;
			__atomic_store_n(tail, tl + 1, __ATOMIC_RELEASE);
			r = (int)syscall(__NR_io_uring_enter, fd, 1, 1,
					 IORING_ENTER_GETEVENTS, NULL, 0);
		}
	}
	/* The worker, from /proc/self/task/<tid>/comm. */
	for (int k = 0; r == 1 && !wrk && k < 200; k++) {
		DIR *d = opendir("/proc/self/task");
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char path[300], comm[32] = "";
			FILE *f;

			snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
			f = fopen(path, "r");
			if (f && fgets(comm, sizeof(comm), f) &&
			    !strncmp(comm, "iou-wrk-", 8))
				wrk = atoi(e->d_name);
			if (f)
				fclose(f);
		}
		if (d)
			closedir(d);
		if (!wrk)
			sleep_ms(10);
	}
	if (!wrk) {
		tap(0, "io_uring: an io-wq worker started (setup fd %d, enter %d: %s)",
		    fd, r, strerror(errno));
		return;
	}
	sleep_ms(300);	/* the NOP is long done: it waits for work */
	r = tsa_read_thread(wrk, &t);
	tap(r == 0 && t.pid == getpid(),
	    "io_uring: the io-wq worker %d of process %d is tracked (/proc/tsa/%d: %s)",
	    wrk, getpid(), wrk, r ? strerror(errno) : "read");
	if (r)
		return;
	tap(t.state == TSA_IDL && t.ns[TSA_IDL] > 0,
	    "io_uring: the idle worker is IDL (saw %s, IDL %.3f s, SLP %.3f s)",
	    tsa_state_name(t.state), t.ns[TSA_IDL] / 1e9, t.ns[TSA_SLP] / 1e9);
	check_sum(&t, "io_uring");
	close(fd);
}

/* --- context switches against /proc/<tid>/status --------------------- */

static void test_switch_counts(void)
{
	struct tsa_thread t;
	uint64_t vol, invol;
	pid_t child = fork();

	if (child == 0) {
		pin(0);
		for (int i = 0; i < 200; i++) {
			sleep_ms(1);
			for (volatile int j = 0; j < 200000; j++)
				;
		}
		pause();
		_exit(0);
	}
	/* Compete for CPU 0 so that it is preempted too. */
	pin(0);
	for (int i = 0; i < 200; i++)
		for (volatile int j = 0; j < 200000; j++)
			;
	pin(1);
	sleep_ms(1500);
	if (tsa_read_thread(child, &t) ||
	    tsa_read_ctxt_switches(child, &vol, &invol)) {
		tap(0, "switches: read: %s", strerror(errno));
	} else {
		check_switches(&t, vol, invol, "switches");
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/*
 * --- switches of threads woken from sigsuspend() by signals ------------
 *
 * A signal that comes after a thread set TASK_INTERRUPTIBLE but before
 * __schedule() looked makes the kernel undo the sleep and count the
 * switch voluntary (nvcsw). From 6.16 and 6.12.y ("sched: Fix
 * trace_sched_switch(.prev_state)") sched_switch then says prev_state 0,
 * like a yield; the prev_state rule alone called these ICX (issue 15:
 * 6.12.95, ICX 345 vs 208-255). Workers more than the CPUs, each woken
 * by a peer (tgkill) or by a signal to the process (kill), then parked in
 * read(): the books are compared at rest.
 */
#define SIGSUS_W 4

static atomic_int sigsus_stop, sigsus_ready, sigsus_parked;
static pthread_t sigsus_th[SIGSUS_W];
static pid_t sigsus_tid[SIGSUS_W];
static int sigsus_kill, sigsus_park[2];

static void sigsus_handler(int sig) { (void)sig; }

static void *sigsus_worker(void *arg)
{
	long i = (long)arg;
	sigset_t open;
	char c;

	sigsus_tid[i] = gettid_();
	sigemptyset(&open);	/* SIGUSR1 is blocked but in sigsuspend */
	atomic_fetch_add(&sigsus_ready, 1);
	while (!atomic_load(&sigsus_stop)) {
		sigsuspend(&open);
		/* Pass it on, then run: a sleeping worker takes it. */
		if (sigsus_kill)
			kill(getpid(), SIGUSR1);
		else
			pthread_kill(sigsus_th[(i + 1) % SIGSUS_W], SIGUSR1);
		for (volatile int j = 0; j < 2000 + 700 * (int)i; j++)
			;
	}
	atomic_fetch_add(&sigsus_parked, 1);
	if (read(sigsus_park[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

/* The child: runs the workers for @ms, parks them, writes their tids. */
static void sigsus_child(int out, int ms)
{
	struct sigaction sa = { .sa_handler = sigsus_handler };
	sigset_t block;

	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &block, NULL);
	if (pipe(sigsus_park))
		_exit(1);
	for (long i = 0; i < SIGSUS_W; i++)
		pthread_create(&sigsus_th[i], NULL, sigsus_worker, (void *)i);
	while (atomic_load(&sigsus_ready) < SIGSUS_W)
		sleep_ms(1);
	for (int t = 0; t < ms; t++) {
		if (sigsus_kill)
			kill(getpid(), SIGUSR1);
		else
			pthread_kill(sigsus_th[t % SIGSUS_W], SIGUSR1);
		sleep_ms(1);
	}
	atomic_store(&sigsus_stop, 1);
	while (atomic_load(&sigsus_parked) < SIGSUS_W) {
		for (int i = 0; i < SIGSUS_W; i++)
			pthread_kill(sigsus_th[i], SIGUSR1);
		sleep_ms(5);
	}
	if (write(out, sigsus_tid, sizeof(sigsus_tid)) != sizeof(sigsus_tid))
		_exit(1);
	pause();
	_exit(0);
}

static void test_switch_signals_mode(int use_kill)
{
	const char *what = use_kill ? "switches_signals kill" : "switches_signals tgkill";
	pid_t tids[SIGSUS_W];
	int fds[2];
	pid_t child;
	uint64_t sig0 = 0, sig1 = 0, odd = 0;
	int have = !tsa_read_debugfs_counter("switch_signal_running", &sig0);

	if (pipe(fds)) {
		tap(0, "%s: pipe: %s", what, strerror(errno));
		return;
	}
	child = fork();
	if (child == 0) {
		close(fds[0]);
		sigsus_kill = use_kill;
		sigsus_child(fds[1], 1500);
	}
	close(fds[1]);
	if (read(fds[0], tids, sizeof(tids)) != sizeof(tids)) {
		tap(0, "%s: the workers did not park", what);
		goto out;
	}
	sleep_ms(300);	/* every worker is asleep in read() */
	for (int i = 0; i < SIGSUS_W; i++) {
		struct tsa_thread t;
		uint64_t vol, invol;
		char name[64];

		snprintf(name, sizeof(name), "%s worker %d", what, i);
		if (tsa_read_thread(tids[i], &t) ||
		    tsa_read_ctxt_switches(tids[i], &vol, &invol))
			tap(0, "%s: read: %s", name, strerror(errno));
		else
			check_switches(&t, vol, invol, name);
	}
	if (have && !tsa_read_debugfs_counter("switch_signal_running", &sig1))
		printf("# %s: %llu switches of a sleep a signal undid with prev_state 0\n",
		       what, (unsigned long long)(sig1 - sig0));
	if (!tsa_read_debugfs_counter("switch_odd", &odd))
		tap(odd == 0, "%s: no switch the tracepoint called a sleep that the kernel counted involuntary (saw %llu)",
		    what, (unsigned long long)odd);
out:
	close(fds[0]);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

static void test_switch_signals(void)
{
	test_switch_signals_mode(0);
	test_switch_signals_mode(1);
}

/* --- entries come and go with threads --------------------------------- */

static void *short_lived(void *arg)
{
	*(pid_t *)arg = gettid_();
	sleep_ms(500);
	return NULL;
}

static int wait_entry(pid_t tid, int present)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/tsa/%d", tid);
	for (int i = 0; i < 300; i++) {
		if ((access(path, F_OK) == 0) == present)
			return 1;
		sleep_ms(10);
	}
	return 0;
}

static void test_entries(void)
{
	struct tsa_thread t;
	pthread_t th;
	pid_t tid = 0;
	int fd;
	char path[64], buf[4096];
	ssize_t n;

	pthread_create(&th, NULL, short_lived, &tid);
	sleep_ms(100);
	tap(wait_entry(tid, 1), "entries: /proc/tsa/%d appears for a new thread",
	    tid);
	snprintf(path, sizeof(path), "/proc/tsa/%d", tid);
	fd = open(path, O_RDONLY);
	pthread_join(th, NULL);
	tap(wait_entry(tid, 0), "entries: /proc/tsa/%d disappears after exit",
	    tid);
	n = fd >= 0 ? pread(fd, buf, sizeof(buf), 0) : 0;
	tap(fd >= 0 && n < 0 && (errno == ESRCH || errno == EIO),
	    "entries: a file opened on an exited thread reads as gone (expected ESRCH or EIO, saw %zd %s)",
	    n, n < 0 ? strerror(errno) : "data");
	if (fd >= 0)
		close(fd);
	n = tsa_read_thread(999999999, &t) ? errno : 0;
	tap(n == ENOENT, "entries: unknown tid is ENOENT (saw %s)",
	    strerror((int)n));
}

/*
 * The entries are made in batches, at most one every 20 ms: 100 children
 * that exit at once, forked and reaped one at a time, wake the work item
 * no more often than that (a run starts at least 20 ms after the previous
 * one drained: at most one every 10 ms even where the timer rounds to
 * jiffies of HZ=100), and each run finds at most one of them alive, so
 * they get at most a file a run (a few more for other threads the guest
 * starts meanwhile). Before batches, every birth and exit queued the work
 * at once: a run each, and a file for about every child.
 */
static void test_entry_batches(void)
{
	uint64_t made0, runs0, made1, runs1;
	const int n = 100;
	double t0, ms;
	int ok;

	ok = !tsa_read_debugfs_counter("proc_entries_made", &made0) &&
	     !tsa_read_debugfs_counter("proc_entry_batches", &runs0);
	t0 = mono_s();
	for (int i = 0; i < n; i++) {
		pid_t c = fork();

		if (c == 0)
			_exit(0);
		if (c > 0)
			waitpid(c, NULL, 0);
	}
	sleep_ms(200);	/* the last batch runs */
	ok = ok && !tsa_read_debugfs_counter("proc_entries_made", &made1) &&
	     !tsa_read_debugfs_counter("proc_entry_batches", &runs1);
	ms = (mono_s() - t0) * 1e3;
	tap(ok && runs1 - runs0 <= ms / 10 + 2,
	    "entries: %d short-lived children in %.0f ms wake the work item at most every 10 ms (expected at most %.0f runs, saw %llu)",
	    n, ms, ms / 10 + 2, (unsigned long long)(runs1 - runs0));
	tap(ok && made1 - made0 <= runs1 - runs0 + 3,
	    "entries: those children get at most a file a batch, and 3 more (expected at most %llu, saw %llu made)",
	    (unsigned long long)(runs1 - runs0 + 3),
	    (unsigned long long)(made1 - made0));
}

/*
 * --- a fork burst faster than the record pool's refill -----------------
 * The fork hook takes records from a pool that a work item refills; on
 * PREEMPT_RT it may not allocate at all. Four SCHED_RR processes, two
 * on each CPU, make 1600 threads while a SCHED_RR spinner of the same
 * priority holds each CPU whenever its creators block, with RT throttling
 * off for the seconds it takes: the refill (a kworker) cannot run until
 * the burst is over, so on RT it outruns the pool for certain. Every
 * thread must be tracked, at birth or a moment later.
 */
#define BURST_CREATORS	4
#define BURST_EACH	400
#define BURST		(BURST_CREATORS * BURST_EACH)

struct burst {
	int ready[2], go[2], done[2], release[2];
	atomic_int finished;		/* creators done: the spinners stop */
	int spin_s;			/* or after this many seconds */
	pid_t tid[BURST];		/* shared: written by the children */
};
static struct burst *burst;

static void *burst_child(void *arg)
{
	char c;

	*(pid_t *)arg = gettid_();
	(void)!read(burst->release[0], &c, 1);
	return NULL;
}

/*
 * Ready, then blocked until all are: a spinning SCHED_RR task would keep
 * the (SCHED_OTHER) test from starting them.
 */
static void burst_ready(void)
{
	char g;

	if (write(burst->ready[1], "r", 1) != 1 ||
	    read(burst->go[0], &g, 1) != 1)
		_exit(1);
}

/*
 * Holds CPU @cpu while the creators there block, spin_s seconds at most.
 * Priority 1: on PREEMPT_RT RCU's kthreads are SCHED_FIFO 1 and still take
 * turns, so the burst may take as long as it needs; elsewhere they are
 * SCHED_OTHER and starve, so the spinners give up well before RCU's 21 s
 * stall timeout.
 */
static void burst_spinner(int cpu)
{
	struct sched_param sp = { .sched_priority = 1 };
	double end;

	pin(cpu);
	sched_setscheduler(0, SCHED_RR, &sp);
	burst_ready();
	end = mono_s() + burst->spin_s;
	while (atomic_load(&burst->finished) < BURST_CREATORS &&
	       mono_s() < end)
		;
	_exit(0);
}

static void burst_creator(int c)
{
	struct sched_param sp = { .sched_priority = 1 };
	static pthread_t th[BURST_EACH];
	pthread_attr_t attr;
	int made = 0, i;
	char x;

	pin(c % 2);
	x = sched_setscheduler(0, SCHED_RR, &sp) ? 'o' : 'f';
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	burst_ready();
	x = sched_getscheduler(0) == SCHED_RR ? 'f' : 'o';
	for (i = 0; i < BURST_EACH; i++) {
		if (pthread_create(&th[i], &attr, burst_child,
				   &burst->tid[c * BURST_EACH + i]))
			break;
		made++;
	}
	atomic_fetch_add(&burst->finished, 1);
	(void)!write(burst->done[1], &x, 1);
	for (i = 0; i < made; i++)
		pthread_join(th[i], NULL);
	_exit(made == BURST_EACH ? 0 : 1);
}

/*
 * 6.12+ runs SCHED_OTHER tasks from a deadline server (50 ms a second by
 * default) even while RT tasks hold every CPU: the pool's refill work would
 * get its turn there. Runtime 0 turns the server off, as RT throttling is;
 * @saved keeps each CPU's runtime ("" where the kernel has no server).
 *
 * Each CPU's file is written from that CPU. The write stops the server
 * before changing its bandwidth only if the CPU has a fair task queued
 * (6.12 to 6.17-rc3 test h_nr_running/h_nr_queued); from another CPU an
 * active server could be re-parametrised in place, and 6.12.95 then warned
 * in dl_rq_change_utilization() (running_bw > this_bw: CI, engine suite).
 * The writer itself is that queued task.
 */
#define FAIR_SERVER "/sys/kernel/debug/sched/fair_server/cpu%d/runtime"
static void fair_server_write(int cpu, const char *val)
{
	cpu_set_t was;
	char path[96];

	snprintf(path, sizeof(path), FAIR_SERVER, cpu);
	sched_getaffinity(0, sizeof(was), &was);
	pin(cpu);
	tsa_write_file(path, val);
	sched_setaffinity(0, sizeof(was), &was);
}

static void fair_server_off(char saved[2][32])
{
	char path[96];
	ssize_t n;
	int fd;

	for (int cpu = 0; cpu < 2; cpu++) {
		snprintf(path, sizeof(path), FAIR_SERVER, cpu);
		saved[cpu][0] = '\0';
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, saved[cpu], 31);
		saved[cpu][n > 0 ? n : 0] = '\0';
		close(fd);
		if (saved[cpu][0])
			fair_server_write(cpu, "0");
	}
}

static void fair_server_restore(char saved[2][32])
{
	for (int cpu = 0; cpu < 2; cpu++)
		if (saved[cpu][0])
			fair_server_write(cpu, saved[cpu]);
}

static void test_burst(void)
{
	char fair[2][32];
	uint64_t late0 = 0, late1 = 0, walk0 = 0, walk1 = 0, miss0 = 0, miss1 = 0;
	pid_t creator[BURST_CREATORS], spinner[2];
	int seen = 0, fifo = 0, made = 0, forked = 0, rt, st, fd, i;
	long queue;
	char path[64], rt_runtime[32], rr_slice[32], x;
	struct utsname u;
	static char wake[BURST];
	ssize_t n;

	burst = mmap(NULL, sizeof(*burst), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (burst == MAP_FAILED || pipe(burst->ready) || pipe(burst->go) ||
	    pipe(burst->done) || pipe(burst->release)) {
		tap(0, "burst: set-up failed (%s)", strerror(errno));
		return;
	}
	tsa_read_debugfs_counter("tracked_late", &late0);
	tsa_read_debugfs_counter("late_walks", &walk0);
	tsa_read_debugfs_counter("alloc_failures", &miss0);
	fd = open("/proc/sys/kernel/sched_rt_runtime_us", O_RDONLY);
	n = fd >= 0 ? read(fd, rt_runtime, sizeof(rt_runtime) - 1) : -1;
	rt_runtime[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	fd = open("/proc/sys/kernel/sched_rr_timeslice_ms", O_RDONLY);
	n = fd >= 0 ? read(fd, rr_slice, sizeof(rr_slice) - 1) : -1;
	rr_slice[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	rt = !uname(&u) && strstr(u.version, "PREEMPT_RT");
	burst->spin_s = rt ? 120 : 10;
	tsa_write_file("/proc/sys/kernel/sched_rt_runtime_us", "-1");
	tsa_write_file("/proc/sys/kernel/sched_rr_timeslice_ms", "5");
	fair_server_off(fair);
	for (i = 0; i < BURST_CREATORS; i++) {
		creator[i] = fork();
		if (creator[i] == 0)
			burst_creator(i);
		forked += creator[i] > 0;
	}
	for (i = 0; i < 2; i++) {
		spinner[i] = fork();
		if (spinner[i] == 0)
			burst_spinner(i);
		forked += spinner[i] > 0;
	}
	/* All pinned, SCHED_RR and waiting on the pipe: start them at once. */
	for (i = 0; i < forked; i++)
		if (read(burst->ready[0], &x, 1) != 1)
			break;
	(void)!write(burst->go[1], "gggggg", forked);
	for (i = 0; i < BURST_CREATORS; i++)
		if (read(burst->done[0], &x, 1) == 1)
			fifo += x == 'f';
	for (i = 0; i < 2; i++)
		waitpid(spinner[i], &st, 0);
	if (rt_runtime[0])
		tsa_write_file("/proc/sys/kernel/sched_rt_runtime_us", rt_runtime);
	if (rr_slice[0])
		tsa_write_file("/proc/sys/kernel/sched_rr_timeslice_ms", rr_slice);
	fair_server_restore(fair);
	/* Late tracking is a work item: give it a moment. */
	for (int tries = 0; tries < 100; tries++) {
		sleep_ms(tries ? 100 : 0);
		made = seen = 0;
		for (i = 0; i < BURST; i++) {
			if (!burst->tid[i])
				continue;
			made++;
			snprintf(path, sizeof(path), "/proc/tsa/%d", burst->tid[i]);
			seen += access(path, F_OK) == 0;
		}
		if (made == BURST && seen == made)
			break;
	}
	tsa_read_debugfs_counter("tracked_late", &late1);
	tsa_read_debugfs_counter("late_walks", &walk1);
	tsa_read_debugfs_counter("alloc_failures", &miss1);
	queue = tsa_module_param("tsa", "late_queue");
	tap(made == BURST && seen == made,
	    "burst: %d threads born at once in %d processes (%d SCHED_RR) are all tracked (expected %d with a /proc/tsa entry, saw %d of %d; pool misses %llu, tracked late %llu, walks for untracked threads %llu, late_queue %ld)",
	    BURST, BURST_CREATORS, fifo, BURST, seen, made,
	    (unsigned long long)(miss1 - miss0),
	    (unsigned long long)(late1 - late0),
	    (unsigned long long)(walk1 - walk0), queue);
	/* Where the fork hook may not allocate, the pool must have run dry. */
	if (rt)
		tap(fifo == BURST_CREATORS && miss1 - miss0 > 0 &&
		    late1 - late0 == miss1 - miss0,
		    "burst: on PREEMPT_RT the burst outran the pool and every miss was tracked late (expected %d SCHED_RR creators, misses > 0 and all late; saw %d, %llu misses, %llu late; fair server %s)",
		    BURST_CREATORS, fifo, (unsigned long long)(miss1 - miss0),
		    (unsigned long long)(late1 - late0),
		    fair[0][0] ? "off during the burst" : "none");
	/* More misses than the late queue holds: found by a walk. */
	if (rt && queue >= 0 && miss1 - miss0 > (uint64_t)queue)
		tap(walk1 > walk0,
		    "burst: the misses the late queue could not hold were found by walking the threads (expected > %ld misses to make walks > 0, saw %llu misses, %llu walks)",
		    queue, (unsigned long long)(miss1 - miss0),
		    (unsigned long long)(walk1 - walk0));
	memset(wake, 'x', sizeof(wake));
	(void)!write(burst->release[1], wake, sizeof(wake));
	for (i = 0; i < BURST_CREATORS; i++)
		waitpid(creator[i], &st, 0);
	close(burst->ready[0]);
	close(burst->ready[1]);
	close(burst->go[0]);
	close(burst->go[1]);
	close(burst->done[0]);
	close(burst->done[1]);
	close(burst->release[0]);
	close(burst->release[1]);
	munmap(burst, sizeof(*burst));
}

/* --- hooks: nothing missing on this kernel ---------------------------- */

/* A bool module parameter: 1 (Y), 0 (N), -1 unreadable. */
static int tsa_param(const char *name)
{
	char path[96], c = 0;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/tsa/parameters/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == 'Y' ? 1 : c == 'N' ? 0 : -1;
}

/*
 * With the state hooks' parameters at their defaults the module may lose
 * only what interrupts=0 turns off (TRP), and on kernels before 5.19,
 * which have no lock contention tracepoints, KLK (docs/kernels.md): a
 * hook this kernel lacks would show up here as a degraded state.
 */
static void test_hooks(void)
{
	static const char *const on[] = { "syscalls", "faults", "locks", "signals" };
	uint32_t deg = 0, want;
	char list[160] = "";
	int irq = tsa_param("interrupts"), defaults = irq >= 0;

	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++)
		defaults &= tsa_param(on[i]) == 1;
	if (tsa_read_debugfs_degraded(&deg)) {
		tap(0, "hooks: read debugfs stats 'degraded' (%s)", strerror(errno));
		return;
	}
	for (int i = 0; i < TSA_NSTATES; i++)
		if (deg & (1U << i))
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 " %s", tsa_state_name(i));
	printf("# module: degraded%s\n", deg ? list : " -");
	if (!defaults) {
		printf("ok %d - hooks: # SKIP module parameters not at their defaults\n",
		       ++test_no);
		return;
	}
	want = irq ? 0 : 1U << TSA_TRP;
	if (tsa_kernel_before(5, 19))
		want |= 1U << TSA_KLK;
	tap(deg == want,
	    "hooks: every state hook is live on this kernel (expected degraded%s%s with interrupts=%d, saw%s)",
	    want & (1U << TSA_TRP) ? " TRP" : "",
	    want & (1U << TSA_KLK) ? " KLK" : want ? "" : " -", irq,
	    deg ? list : " -");
}

/* --- every thread in the system sums exactly -------------------------- */

/* PF_KTHREAD; false if the thread is gone. */
static int is_kthread(pid_t tid)
{
	unsigned long flags;

	return !tsa_read_task_flags(tid, &flags) && (flags & 0x00200000);
}

static void test_all_sum(void)
{
	struct tsa_all all;
	int bad = 0, totals = 0, staybad = 0, stayed = 0;
	size_t i;

	if (tsa_read_all(&all)) {
		tap(0, "all: read /proc/tsa/all (its states line names our state numbers): %s",
		    strerror(errno));
		return;
	}
	for (i = 0; i < all.n; i++) {
		if (tsa_sum(&all.t[i]) != all.t[i].elapsed) {
			if (bad++ < 5)
				printf("# tid %d pid %d: sum %llu != elapsed %llu\n",
				       all.t[i].tid, all.t[i].pid,
				       (unsigned long long)tsa_sum(&all.t[i]),
				       (unsigned long long)all.t[i].elapsed);
		}
		totals += all.t[i].tid == 0;
		/* The current stay is part of its state's total. */
		if (all.t[i].tid) {
			stayed += all.t[i].state_ns > 0;
			staybad += all.t[i].state < 0 || all.t[i].state >= TSA_NSTATES ||
				   all.t[i].state_ns > all.t[i].ns[all.t[i].state];
		}
	}
	tap(all.n > 10 && bad == 0,
	    "all: every line of /proc/tsa/all sums to elapsed (%zu lines, %d process totals, %d bad)",
	    all.n, totals, bad);
	tap(stayed > 10 && staybad == 0,
	    "all: every thread's state_ns is within its state's total (%d threads with a stay > 0, %d bad)",
	    stayed, staybad);

	/*
	 * A kernel thread never runs in user mode: USR 0 for each, those
	 * seeded at load (flag bit 0) included, whose flags must be set
	 * before the record is visible to its first switch.
	 */
	int kthreads = 0, seeded_ran = 0, kbad = 0;

	for (i = 0; i < all.n; i++) {
		const struct tsa_thread *t = &all.t[i];

		if (!t->tid || !is_kthread(t->tid))
			continue;
		kthreads++;
		seeded_ran += (t->flags & 1) && t->ns[TSA_SYS] > 0;
		if (t->ns[TSA_USR] && kbad++ < 5)
			printf("# kernel thread %d (%s, flags %u): USR %llu ns\n",
			       t->tid, t->comm, t->flags,
			       (unsigned long long)t->ns[TSA_USR]);
	}
	tap(kthreads > 5 && seeded_ran > 0 && kbad == 0,
	    "all: kernel threads are never USR (%d kernel threads, %d seeded at load that ran in SYS; expected 0 with USR, saw %d)",
	    kthreads, seeded_ran, kbad);
	tsa_free_all(&all);

	/* And every per-thread file, read one by one. */
	bad = 0;
	int n = 0;
	struct tsa_tidlist tl;

	if (tsa_list_tids(&tl) == 0) {
		for (i = 0; i < tl.n; i++) {
			struct tsa_thread t;

			if (tsa_read_thread(tl.tid[i], &t))
				continue;	/* exited meanwhile */
			n++;
			if (tsa_sum(&t) != t.elapsed)
				bad++;
		}
		free(tl.tid);
	}
	tap(n > 10 && bad == 0,
	    "all: every /proc/tsa/<tid> sums to elapsed (%d threads, %d bad)",
	    n, bad);
}

/* --- the leader's file shows the process, exited threads included ----- */

static void *spin_briefly(void *arg)
{
	(void)arg;
	for (volatile long i = 0; i < 20000000; i++)
		;
	return NULL;
}

static int read_process(pid_t pid, uint64_t *usr, uint64_t *elapsed,
			unsigned int *live, unsigned int *exited)
{
	char path[64], line[256];
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/tsa/%d", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (sscanf(line, "process-threads %u %u", live, exited) == 2)
			got++;
		else if (sscanf(line, "process-elapsed %llu", &v) == 1)
			*elapsed = v, got++;
		else if (sscanf(line, "process-USR %llu", &v) == 1)
			*usr = v, got++;
	}
	fclose(f);
	return got == 3 ? 0 : -1;
}

/* --- kernel threads: records without a calls table ------------------ */

/* The tid of the first task named @comm, or 0. */
static pid_t find_comm(const char *comm)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	while (d && !found && (e = readdir(d))) {
		char path[300], c[32] = "";
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (f && fgets(c, sizeof(c), f)) {
			c[strcspn(c, "\n")] = 0;
			if (!strcmp(c, comm))
				found = atoi(e->d_name);
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * Kernel threads counted by debugfs (their records left the calls table
 * out) against the PF_KTHREAD threads /proc/tsa/all lists, both read
 * while no kernel thread came or went; -1 if they never held still.
 */
static int kthreads_agree(uint64_t *dbg, int *listed, pid_t want, int *seen)
{
	for (int tries = 0; tries < 20; tries++, sleep_ms(50)) {
		uint64_t d1 = 0, d2 = 0;
		struct tsa_all all;
		int n = 0;

		*seen = 0;
		if (tsa_read_debugfs_counter("kthreads", &d1) ||
		    tsa_read_all(&all))
			return -1;
		for (size_t i = 0; i < all.n; i++) {
			if (!all.t[i].tid || !is_kthread(all.t[i].tid))
				continue;
			n++;
			*seen |= all.t[i].tid == want;
		}
		tsa_free_all(&all);
		if (tsa_read_debugfs_counter("kthreads", &d2))
			return -1;
		*dbg = d2;
		*listed = n;
		if (d1 == d2 && d2 == (uint64_t)n)
			return 0;
	}
	return -1;
}

/*
 * A usermode helper (here the core_pattern pipe's) starts in a kernel
 * worker's context and, before 5.19, as a kernel thread: it must still
 * get a user thread's record, calls table and all, once it execs. The
 * helper, a shell, copies its own /proc/tsa file; 0 and its calls in
 * @c, -2 on a kernel without core dumps, or -1.
 */
static int umh_calls(struct tsa_calls *c, struct tsa_thread *t, char *why,
		     size_t len)
{
	static const char out[] = "/tmp/tsa-umh.out", sh[] = "/tmp/tsa-umh.sh";
	char old[256] = "", pat[300], via[64], *text = NULL;
	int fd, r = -1, st;
	size_t cap = 0;
	FILE *f;
	pid_t p;

	/*
	 * The helper resolves paths in the kernel's first root, not in a
	 * chroot this test may run in (the guest's): reach ours through
	 * /proc/PID/root.
	 */
	snprintf(via, sizeof(via), "/proc/%d/root", getpid());
	unlink(out);
	f = fopen(sh, "w");
	if (!f || fprintf(f, "#!/bin/sh\ncat >/dev/null\n"
			  "for i in 1 2 3 4 5 6 7 8 9 10; do [ -e /proc/tsa/$$ ] && break; sleep 0.1; done\n"
			  "cat /proc/tsa/$$ >%s%s.tmp && mv %s%s.tmp %s%s\n",
			  via, out, via, out, via, out) < 0 || fclose(f) ||
	    chmod(sh, 0755)) {
		snprintf(why, len, "write %s: %s", sh, strerror(errno));
		return -1;
	}
	fd = open("/proc/sys/kernel/core_pattern", O_RDONLY);
	if (fd < 0 && errno == ENOENT)
		return -2;	/* a kernel without core dumps */
	if (fd < 0 || read(fd, old, sizeof(old) - 1) < 0) {
		snprintf(why, len, "read core_pattern: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(pat, sizeof(pat), "|%s%s", via, sh);
	if (tsa_write_file("/proc/sys/kernel/core_pattern", pat)) {
		snprintf(why, len, "set core_pattern: %s", strerror(errno));
		return -1;
	}
	p = fork();
	if (p == 0) {
		struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

		setrlimit(RLIMIT_CORE, &rl);
		prctl(PR_SET_DUMPABLE, 1);
		abort();
	}
	waitpid(p, &st, 0);
	for (int k = 0; k < 100 && access(out, R_OK); k++)
		sleep_ms(50);
	old[strcspn(old, "\n")] = 0;
	tsa_write_file("/proc/sys/kernel/core_pattern", old[0] ? old : "core");
	f = fopen(out, "r");
	if (f) {
		size_t n = 0, got;

		do {
			text = realloc(text, cap += 4096);
			got = fread(text + n, 1, cap - n - 1, f);
			n += got;
		} while (got);
		text[n] = 0;
		fclose(f);
		r = tsa_parse_thread(text, t) || tsa_parse_calls(text, c) ? -1 : 0;
		snprintf(why, len, "%s", r ? "its file did not parse" : "read");
	} else {
		snprintf(why, len, "the helper left no %s (core dumped: %d)", out,
			 WIFSIGNALED(st) && WCOREDUMP(st));
	}
	free(text);
	return r;
}

static void test_kthreads(void)
{
	static const char thp[] = "/sys/kernel/mm/transparent_hugepage/enabled";
	uint64_t rows = 0, tbytes = 0, kbytes = 0, dbg = 0;
	char mode[64] = "", *b, *e;
	struct tsa_thread t;
	struct tsa_calls c;
	pid_t old = 0, kh = 0;
	int listed = 0, seen = 0, r;
	char why[160];
	FILE *f;

	if (tsa_read_debugfs_counter("calls_rows", &rows) ||
	    tsa_read_debugfs_counter("thread_record_bytes", &tbytes) ||
	    tsa_read_debugfs_counter("kthread_record_bytes", &kbytes)) {
		tap(0, "kthreads: debugfs stats has calls_rows, thread_record_bytes, kthread_record_bytes (%s)",
		    strerror(errno));
		return;
	}
	/* A row of the calls table is 64 bytes; its header more. */
	tap(rows ? kbytes + rows * 64 <= tbytes : kbytes == tbytes,
	    "kthreads: a kernel thread's record leaves the calls table out (calls=%llu: expected at most %llu bytes, saw %llu; a user thread's %llu)",
	    (unsigned long long)rows,
	    (unsigned long long)(rows ? tbytes - rows * 64 : tbytes),
	    (unsigned long long)kbytes, (unsigned long long)tbytes);

	/*
	 * A kernel thread born now, from kthreadd through the fork hook:
	 * khugepaged stops when THP is turned off and starts again with it.
	 */
	f = fopen(thp, "r");
	if (f && fgets(mode, sizeof(mode), f) && (b = strchr(mode, '[')) &&
	    (e = strchr(b, ']'))) {
		*e = 0;
		memmove(mode, b + 1, strlen(b + 1) + 1);
	} else {
		mode[0] = 0;
	}
	if (f)
		fclose(f);
	old = find_comm("khugepaged");
	if (mode[0] && strcmp(mode, "never") && old) {
		tsa_write_file(thp, "never");
		for (int k = 0; k < 100 && find_comm("khugepaged") == old; k++)
			sleep_ms(20);
		tsa_write_file(thp, mode);
		for (int k = 0; k < 100 && !kh; k++) {
			kh = find_comm("khugepaged");
			if (!kh)
				sleep_ms(20);
		}
	}
	r = kthreads_agree(&dbg, &listed, kh, &seen);
	if (kh) {
		tap(kh != old && seen,
		    "kthreads: khugepaged started again after load (%d, was %d) is tracked",
		    kh, old);
	} else {
		printf("# khugepaged could not be restarted (THP mode '%s', thread %d): the count covers seeded kernel threads and any born since\n",
		       mode, old);
	}
	tap(r == 0,
	    "kthreads: debugfs counts as kernel threads' records exactly the kernel threads /proc/tsa/all lists (expected %d, saw %llu)",
	    listed, (unsigned long long)dbg);

	r = umh_calls(&c, &t, why, sizeof(why));
	if (r == -2)
		printf("ok %d - kthreads: a usermode helper has its system calls' rows # SKIP no core_pattern (CONFIG_COREDUMP off)\n",
		       ++test_no);
	else
		tap(r == 0 && c.n > 0,
		    "kthreads: a usermode helper (core_pattern's) has its system calls' rows (%s, %zu rows)",
		    why, r ? 0 : c.n);

	/* Its file as before: the syscall header, no rows. */
	r = tsa_read_thread_calls(kh ? kh : 2, &t, &c);
	tap(r == 0 && c.n == 0 && tsa_sum(&t) == t.elapsed && !t.ns[TSA_USR],
	    "kthreads: /proc/tsa/%d reads with no syscall rows, its states summing to elapsed (%s, %zu rows, USR %llu)",
	    kh ? kh : 2, r ? strerror(errno) : "read", r ? 0 : c.n,
	    (unsigned long long)(r ? 0 : t.ns[TSA_USR]));
}

static void test_process(void)
{
	uint64_t usr0 = 0, usr1 = 0, el0 = 0, el1 = 0;
	unsigned int live0 = 0, ex0 = 0, live1 = 0, ex1 = 0;
	pthread_t th[3];
	int ok;

	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, spin_briefly, NULL);
	ok = !read_process(getpid(), &usr0, &el0, &live0, &ex0);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	/*
	 * pthread_join() returns when the kernel clears the tid, a little
	 * before the thread's last switch-out: give the exits a moment.
	 */
	for (int i = 0; i < 100; i++) {
		ok = ok && !read_process(getpid(), &usr1, &el1, &live1, &ex1);
		if (!ok || ex1 >= ex0 + 3)
			break;
		sleep_ms(10);
	}
	tap(ok, "process: the leader's file has a process section");
	tap(ex1 >= ex0 + 3 && live1 + 3 <= live0,
	    "process: exited threads move from live to exited (saw live %u->%u, exited %u->%u)",
	    live0, live1, ex0, ex1);
	tap(usr1 >= usr0 && el1 >= el0,
	    "process: totals never go backwards as threads exit (USR %llu->%llu, elapsed %llu->%llu)",
	    (unsigned long long)usr0, (unsigned long long)usr1,
	    (unsigned long long)el0, (unsigned long long)el1);
}

/* --- the files are read-only ------------------------------------------- */

static void test_write(void)
{
	const char *files[] = { "/proc/tsa/all", "/proc/tsa/calls", NULL };
	char self[64];
	struct tsa_thread before, after;

	snprintf(self, sizeof(self), "/proc/tsa/%d", gettid_());
	files[2] = self;
	tsa_read_thread(gettid_(), &before);
	for (int i = 0; i < 3; i++) {
		int fd = open(files[i], O_WRONLY);
		ssize_t n = fd < 0 ? -1 : write(fd, "0\n", 2);
		int e = fd < 0 ? errno : (n < 0 ? errno : 0);

		tap(n < 0 && (e == EINVAL || e == EACCES),
		    "write: writing %s fails cleanly (expected EINVAL or EACCES, saw %s)",
		    files[i], n < 0 ? strerror(e) : "success");
		if (fd >= 0)
			close(fd);
	}
	tsa_read_thread(gettid_(), &after);
	tap(after.counters[TSA_SCL] > before.counters[TSA_SCL] &&
	    after.elapsed > before.elapsed,
	    "write: the thread is still accounted after the bad writes");
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "hooks", test_hooks },
	{ "spinners", test_spinners },
	{ "sleep", test_sleep },
	{ "syscalls", test_syscalls },
	{ "refused", test_refused },
	{ "stop", test_stop },
	{ "freeze", test_freeze },
	{ "io_uring", test_io_uring },
	{ "switches", test_switch_counts },
	{ "switches_signals", test_switch_signals },
	{ "entries", test_entries },
	{ "entry_batches", test_entry_batches },
	{ "burst", test_burst },
	{ "all", test_all_sum },
	{ "kthreads", test_kthreads },
	{ "process", test_process },
	{ "write", test_write },
};

int main(int argc, char **argv)
{
	size_t i;
	int j, first = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* --first N: number the TAP lines from N (a suite of several). */
	if (argc > 2 && !strcmp(argv[1], "--first")) {
		first = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	test_no = first - 1;
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		int run = argc < 2;

		for (j = 1; j < argc; j++)
			run |= !strcmp(argv[j], tests[i].name);
		if (run) {
			printf("# %s\n", tests[i].name);
			tests[i].fn();
		}
	}
	printf("# tsa-gtest: %d passed, %d failed\n",
	       test_no - (first - 1) - failures, failures);
	return failures ? 1 : 0;
}
