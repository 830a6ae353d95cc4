// SPDX-License-Identifier: GPL-2.0
/*
 * tsa-wtest: "why a thread waits" guest tests. Each test runs a workload
 * whose answer is known (a contended mutex is LCK, O_DIRECT reads are IOW,
 * ...), takes the thread's /proc/tsa numbers before and after, and checks
 * the dominant state, and where the kernel keeps its own books (delay
 * accounting, fault counters) compares with them. Runs inside a QEMU guest
 * with tsa.ko loaded; prints TAP. tests/guest/wait-tests.sh does the setup
 * (disk, swap, cgroup) and the module reloads; run-wait-tests.sh boots it.
 *
 *   tsa-wtest [--first N] [test-name...]   run all tests, or the named ones
 *
 * Environment: TSA_WAIT_DIR (ext4 on the virtio disk, holding "data" and a
 * copy of this program), TSA_APG_CGROUP (memory-limited cgroup v2 dir),
 * TSA_APG_MB (anonymous working set, MiB), TSA_EXPECT_DEGRADED (the states
 * the loaded module must report degraded, e.g. "SYS TRP KLK" or "-").
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tsa-read.h"





/* |a - b| relative to b, in percent. */


static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}


static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

static int drop_caches(void)
{
	sync();
	return tsa_write_file("/proc/sys/vm/drop_caches", "3");
}

/* --- windows: the change of a thread's numbers between two reads ------ */

struct win {
	uint64_t elapsed;
	uint64_t ns[TSA_NSTATES];
	uint64_t entries[TSA_NSTATES];
	uint64_t counters[TSA_NCOUNTERS];
};

#define SLEEP_MASK ((1U << TSA_TFL) | (1U << TSA_DFL) | (1U << TSA_KFL) | \
		    (1U << TSA_APG) | (1U << TSA_LCK) | (1U << TSA_KLK) | \
		    (1U << TSA_IOW) | (1U << TSA_IDL) | (1U << TSA_SLP))

static void win_of(const struct tsa_thread *a, const struct tsa_thread *b,
		   struct win *w)
{
	w->elapsed = b->elapsed - a->elapsed;
	for (int i = 0; i < TSA_NSTATES; i++) {
		w->ns[i] = b->ns[i] - a->ns[i];
		w->entries[i] = b->entries[i] - a->entries[i];
	}
	for (int i = 0; i < TSA_NCOUNTERS; i++)
		w->counters[i] = b->counters[i] - a->counters[i];
}

/* The largest state among @mask. */
static int win_top(const struct win *w, uint32_t mask)
{
	int best = -1;

	for (int i = 0; i < TSA_NSTATES; i++)
		if ((mask & (1U << i)) && (best < 0 || w->ns[i] > w->ns[best]))
			best = i;
	return best;
}

static uint64_t win_sum(const struct win *w, uint32_t mask)
{
	uint64_t s = 0;

	for (int i = 0; i < TSA_NSTATES; i++)
		if (mask & (1U << i))
			s += w->ns[i];
	return s;
}

/* "LCK 98.2% SYS 1.1% ..." for the states that got anything. */
static const char *win_str(const struct win *w)
{
	static char buf[4][256];
	static int k;
	char *b = buf[k++ & 3];
	size_t n = 0;

	n += snprintf(b + n, 256 - n, "%.3fs:", w->elapsed / 1e9);
	for (int i = 0; i < TSA_NSTATES && n < 240; i++)
		if (w->ns[i])
			n += snprintf(b + n, 256 - n, " %s %.1f%%",
				      tsa_state_name(i),
				      pct(w->ns[i], w->elapsed));
	return b;
}

static int read_or_fail(pid_t tid, struct tsa_thread *t, const char *what)
{
	if (tsa_read_thread(tid, t) == 0)
		return 0;
	tap(0, "%s: read /proc/tsa/%d: %s", what, tid, strerror(errno));
	return -1;
}

/*
 * The usual verdict: @state is the largest of @mask over the window and
 * takes at least @min_pct of @base (the window, or the sleep within it).
 */
static void check_dominant(const char *what, const struct win *w, int state,
			   uint32_t mask, double min_pct, int of_sleep)
{
	uint64_t base = of_sleep ? win_sum(w, SLEEP_MASK) : w->elapsed;
	int top = win_top(w, mask);

	tap(top == state && w->ns[state] > 0 &&
	    pct(w->ns[state], base) >= min_pct,
	    "%s: %s dominant%s (expected %s largest and >= %.0f%% of %s, saw %s largest, %s %.1f%% of %s; %s)",
	    what, tsa_state_name(state), of_sleep ? " among sleep states" : "",
	    tsa_state_name(state), min_pct, of_sleep ? "sleep" : "window",
	    tsa_state_name(top), tsa_state_name(state),
	    pct(w->ns[state], base), of_sleep ? "sleep" : "window",
	    win_str(w));
}

/* A start line for worker threads, so that all begin together. */
struct gate {
	pthread_mutex_t m;
	pthread_cond_t c;
	int n, open;
};

#define GATE_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 }

static void gate_arrive_wait(struct gate *g)
{
	pthread_mutex_lock(&g->m);
	g->n++;
	pthread_cond_broadcast(&g->c);
	while (!g->open)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
}

static void gate_wait_for(struct gate *g, int n)
{
	pthread_mutex_lock(&g->m);
	while (g->n < n)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
}

static void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->m);
	g->open = 1;
	pthread_cond_broadcast(&g->c);
	pthread_mutex_unlock(&g->m);
}

/* --- 1. LCK: a contended pthread mutex ------------------------------- */

#define LCK_WAITERS 3

static pthread_mutex_t lck_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t lck_cond = PTHREAD_COND_INITIALIZER;
static atomic_int lck_stop;
static int lck_round;		/* under lck_mutex */
static pid_t lck_tid[LCK_WAITERS];
static atomic_int lck_ready;

/*
 * Takes the mutex once a round and waits for the next round on a condition
 * (a futex wait too): a waiter that got the mutex must not take it again
 * and again, on the CPU, while the holder waits to get it back.
 */
static void *lck_waiter(void *arg)
{
	int seen = 0;

	lck_tid[(long)arg] = gettid_();
	atomic_fetch_add(&lck_ready, 1);
	pthread_mutex_lock(&lck_mutex);
	while (!atomic_load(&lck_stop)) {
		while (seen == lck_round && !atomic_load(&lck_stop))
			pthread_cond_wait(&lck_cond, &lck_mutex);
		seen = lck_round;
		/* Let go, and contend for it again. */
		pthread_mutex_unlock(&lck_mutex);
		pthread_mutex_lock(&lck_mutex);
	}
	pthread_mutex_unlock(&lck_mutex);
	return NULL;
}

static void test_lck(void)
{
	struct tsa_thread a[LCK_WAITERS], b[LCK_WAITERS];
	pthread_t th[LCK_WAITERS];
	int ok = 1;

	/* The holder (this thread) keeps the mutex 300 ms at a time. */
	pthread_mutex_lock(&lck_mutex);
	for (long i = 0; i < LCK_WAITERS; i++)
		pthread_create(&th[i], NULL, lck_waiter, (void *)i);
	while (atomic_load(&lck_ready) < LCK_WAITERS)
		sleep_ms(5);
	sleep_ms(100);
	for (int i = 0; i < LCK_WAITERS; i++)
		ok &= !read_or_fail(lck_tid[i], &a[i], "lck");
	for (int r = 0; r < 4; r++) {
		if (r) {
			/* A new round; let go briefly: a waiter may get it. */
			lck_round++;
			pthread_cond_broadcast(&lck_cond);
			pthread_mutex_unlock(&lck_mutex);
			sched_yield();
			pthread_mutex_lock(&lck_mutex);
		}
		sleep_ms(300);
	}
	for (int i = 0; i < LCK_WAITERS; i++)
		ok &= !read_or_fail(lck_tid[i], &b[i], "lck");
	atomic_store(&lck_stop, 1);
	pthread_cond_broadcast(&lck_cond);
	pthread_mutex_unlock(&lck_mutex);
	for (int i = 0; i < LCK_WAITERS; i++)
		pthread_join(th[i], NULL);
	if (!ok)
		return;
	for (int i = 0; i < LCK_WAITERS; i++) {
		struct win w;
		char what[64];

		snprintf(what, sizeof(what), "lck: waiter %d", lck_tid[i]);
		win_of(&a[i], &b[i], &w);
		check_dominant(what, &w, TSA_LCK, ~0U, 90, 0);
		check_sum(&b[i], what);
	}
}

/* --- 2. KLK: one file's i_rwsem, held across block I/O ----------------- */

/*
 * ext4 takes the inode's i_rwsem exclusively for an O_DIRECT write that
 * extends the file, and waits for the I/O before it lets go (it updates
 * i_disksize after the data is on disk: fs/ext4/file.c, ext4_dio_write_
 * checks, "extend"). So every O_APPEND write holds it across block I/O,
 * on every kernel: the holder sleeps in IOW and the other writers cannot
 * spin on it, they sleep on the rwsem (KLK). (Unaligned overwrites no
 * longer do: 7.x takes the lock shared unless they need zeroing.)
 */
#define KLK_THREADS 4
#define KLK_FILE (1 << 20)

static struct {
	int fd;
	atomic_int stop;
	struct gate gate;
	pid_t tid[KLK_THREADS];
	struct tsa_thread a[KLK_THREADS], b[KLK_THREADS];
	long writes[KLK_THREADS];
	int err[KLK_THREADS];
} klk;

static void *klk_writer(void *arg)
{
	long k = (long)arg;
	void *buf = NULL;

	klk.tid[k] = gettid_();
	if (posix_memalign(&buf, 4096, 4096))
		klk.err[k] = ENOMEM;
	else
		memset(buf, 'k', 4096);
	gate_arrive_wait(&klk.gate);
	tsa_read_thread(klk.tid[k], &klk.a[k]);
	while (buf && !atomic_load(&klk.stop)) {
		/* O_APPEND: every write extends, exclusive lock, waited I/O. */
		if (write(klk.fd, buf, 4096) != 4096) {
			klk.err[k] = errno;
			break;
		}
		klk.writes[k]++;
		/* Bound the file (a truncate takes the lock exclusively too). */
		if (k == 0 && klk.writes[k] % 256 == 0 &&
		    ftruncate(klk.fd, KLK_FILE)) {
			klk.err[k] = errno;
			break;
		}
	}
	tsa_read_thread(klk.tid[k], &klk.b[k]);
	free(buf);
	return NULL;
}

/* The writers' windows, summed into @wsum; returns 0 or an errno. */
static int klk_run(long ms, struct win *w, struct win *wsum)
{
	pthread_t th[KLK_THREADS];
	char path[256], *zero;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/tsa-klk",
		 env_or("TSA_WAIT_DIR", "/mnt/tsa-wait"));
	/* Written first: the test writes append to it. */
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	zero = calloc(1, KLK_FILE);
	if (fd < 0 || write(fd, zero, KLK_FILE) != KLK_FILE || fsync(fd)) {
		err = errno ? errno : EIO;
		free(zero);
		if (fd >= 0)
			close(fd);
		return err;
	}
	free(zero);
	close(fd);
	memset(&klk, 0, sizeof(klk));
	klk.fd = open(path, O_WRONLY | O_APPEND | O_DIRECT);
	if (klk.fd < 0)
		return errno;
	pthread_mutex_init(&klk.gate.m, NULL);
	pthread_cond_init(&klk.gate.c, NULL);
	for (long i = 0; i < KLK_THREADS; i++)
		pthread_create(&th[i], NULL, klk_writer, (void *)i);
	gate_wait_for(&klk.gate, KLK_THREADS);
	gate_open(&klk.gate);
	sleep_ms(ms);
	atomic_store(&klk.stop, 1);
	for (int i = 0; i < KLK_THREADS; i++)
		pthread_join(th[i], NULL);
	close(klk.fd);
	unlink(path);
	memset(wsum, 0, sizeof(*wsum));
	for (int i = 0; i < KLK_THREADS; i++) {
		if (klk.err[i])
			err = klk.err[i];
		win_of(&klk.a[i], &klk.b[i], &w[i]);
		wsum->elapsed += w[i].elapsed;
		for (int s = 0; s < TSA_NSTATES; s++)
			wsum->ns[s] += w[i].ns[s];
		for (int c = 0; c < TSA_NCOUNTERS; c++)
			wsum->counters[c] += w[i].counters[c];
	}
	return err;
}

static uint32_t expect_degraded(void);

static void test_klk(void)
{
	struct win w[KLK_THREADS], sum;
	int err = klk_run(1500, w, &sum);

	if (err) {
		tap(0, "klk: O_DIRECT writers: %s", strerror(err));
		return;
	}
	for (int i = 0; i < KLK_THREADS; i++) {
		char what[64];
		uint64_t sl = win_sum(&w[i], SLEEP_MASK);

		snprintf(what, sizeof(what), "klk: writer %d (%ld writes)",
			 klk.tid[i], klk.writes[i]);
		if (!(expect_degraded() & (1U << TSA_KLK))) {
			check_dominant(what, &w[i], TSA_KLK, ~0U, 50, 0);
			continue;
		}
		/* No contention hooks: the waits are sleeps of other names. */
		tap(w[i].ns[TSA_KLK] == 0 && pct(sl, w[i].elapsed) >= 50,
		    "%s: KLK degraded on this kernel, the lock waits are sleeps (expected KLK 0 and sleep >= 50%% of window, saw KLK %llu ns, sleep %.1f%%; %s)",
		    what, (unsigned long long)w[i].ns[TSA_KLK], pct(sl, w[i].elapsed), win_str(&w[i]));
	}
}

/* --- 3. IOW: O_DIRECT reads from the virtio disk ----------------------- */

static struct {
	const char *path;
	pid_t tid;
	long reads;
	int err;
	struct tsa_thread a, b, end;
	struct tsa_delays d;
	struct gate done;
	int release;
} iow = { .done = GATE_INIT };

static void *iow_reader(void *arg __attribute__((unused)))
{
	int fd = open(iow.path, O_RDONLY | O_DIRECT);
	off_t blocks;
	void *buf;
	uint64_t end;
	unsigned int seed = 42;

	iow.tid = gettid_();
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		iow.err = errno;
		gate_arrive_wait(&iow.done);
		return NULL;
	}
	memset(buf, 0, 4096);
	blocks = lseek(fd, 0, SEEK_END) / 4096;
	tsa_read_thread(iow.tid, &iow.a);
	end = now_ns() + 1500000000ULL;
	while (now_ns() < end) {
		off_t blk = rand_r(&seed) % blocks;

		if (pread(fd, buf, 4096, blk * 4096) != 4096) {
			iow.err = errno ? errno : EIO;
			break;
		}
		iow.reads++;
	}
	tsa_read_thread(iow.tid, &iow.b);
	close(fd);
	free(buf);
	/* Rest off-CPU while the books are compared. */
	gate_arrive_wait(&iow.done);
	return NULL;
}

static void test_iow(void)
{
	char path[256];
	pthread_t th;
	struct win w;
	int ok;

	snprintf(path, sizeof(path), "%s/data",
		 env_or("TSA_WAIT_DIR", "/mnt/tsa-wait"));
	iow.path = path;
	if (drop_caches())
		printf("# iow: drop_caches: %s\n", strerror(errno));
	pthread_create(&th, NULL, iow_reader, NULL);
	gate_wait_for(&iow.done, 1);
	sleep_ms(50);
	ok = !iow.err && !tsa_read_thread(iow.tid, &iow.end) &&
	     !tsa_read_delays(iow.tid, &iow.d);
	if (!ok)
		tap(0, "iow: reader %d: %s", iow.tid,
		    strerror(iow.err ? iow.err : errno));
	gate_open(&iow.done);
	pthread_join(th, NULL);
	if (!ok)
		return;
	win_of(&iow.a, &iow.b, &w);
	printf("# iow: %ld O_DIRECT 4k reads of %s\n", iow.reads, path);
	check_dominant("iow: O_DIRECT reader", &w, TSA_IOW, ~0U, 50, 0);
	/*
	 * Delay accounting's blkio delay brackets the same sleeps (from the
	 * switch-out of an in_iowait task to its wakeup): over the thread's
	 * whole life (born after load) the two must agree.
	 */
	tap(iow.d.blkio_ns > 0 && gap(iow.end.ns[TSA_IOW], iow.d.blkio_ns) <= 5.0,
	    "iow: IOW within 5%% of delay accounting's blkio delay (expected %llu ns over %llu waits, saw %llu ns over %llu entries, gap %.3f%%)",
	    (unsigned long long)iow.d.blkio_ns,
	    (unsigned long long)iow.d.blkio_n,
	    (unsigned long long)iow.end.ns[TSA_IOW],
	    (unsigned long long)iow.end.entries[TSA_IOW],
	    gap(iow.end.ns[TSA_IOW], iow.d.blkio_ns));
	check_sum(&iow.end, "iow: reader");
}

/* --- 4. DFL + MAJF: page-in of a mapped file -------------------------- */

static struct {
	const char *path;
	pid_t tid;
	int err;
	long pages;
	struct tsa_thread a, b;
	struct gate ready, done;
} dfl = { .ready = GATE_INIT, .done = GATE_INIT };

static void *dfl_toucher(void *arg __attribute__((unused)))
{
	int fd = open(dfl.path, O_RDONLY);
	struct stat st;
	volatile char *p;
	unsigned long sum = 0;

	dfl.tid = gettid_();
	/*
	 * Only the data pages may sleep in the measured part: the process's
	 * code, stacks and heap are locked in first (the data file is mapped
	 * after, so it is not), and the sleeps of that are before the "ready"
	 * reads. A text fault can sleep without I/O (traced on 6.1 with one
	 * vCPU: two short D sleeps in an instruction fault, no blkio stamp).
	 */
	if (mlockall(MCL_CURRENT))
		dfl.err = errno;
	if (fd < 0 || fstat(fd, &st)) {
		dfl.err = errno;
		gate_arrive_wait(&dfl.ready);
		gate_arrive_wait(&dfl.done);
		return NULL;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		dfl.err = errno;
		close(fd);
		gate_arrive_wait(&dfl.ready);
		gate_arrive_wait(&dfl.done);
		return NULL;
	}
	gate_arrive_wait(&dfl.ready);
	tsa_read_thread(dfl.tid, &dfl.a);
	/* 1024 page-ins (no readahead on this disk: one sleep each). */
	for (off_t off = 0; off < st.st_size && off < 4096 * 1024;
	     off += 4096) {
		sum += p[off];
		dfl.pages++;
	}
	tsa_read_thread(dfl.tid, &dfl.b);
	munmap((void *)p, st.st_size);
	close(fd);
	if (sum == 1)
		printf("#\n");
	gate_arrive_wait(&dfl.done);
	munlockall();
	return NULL;
}

/*
 * A thread's sleeps that delay accounting books as blkio waits: a blkio
 * wait is charged to the fault it is in, if any (a page-in inside a
 * system call is KFL), else it is IOW.
 */
struct blkio_sleeps {
	uint64_t ns, n;
	char parts[256];
};

static void blkio_sleeps_of(const struct tsa_thread *a,
			    const struct tsa_thread *b, struct blkio_sleeps *s)
{
	static const int st[] = { TSA_TFL, TSA_DFL, TSA_KFL, TSA_APG, TSA_IOW };
	size_t len = 0;

	s->ns = s->n = 0;
	s->parts[0] = '\0';
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		uint64_t dn = b->ns[st[i]] - a->ns[st[i]],
			 de = b->entries[st[i]] - a->entries[st[i]];

		s->ns += dn;
		s->n += de;
		len += snprintf(s->parts + len, sizeof(s->parts) - len,
				"%s%s %llu/%llu", i ? " + " : "",
				tsa_state_name(st[i]), (unsigned long long)dn,
				(unsigned long long)de);
	}
}

/*
 * Faults that sleep must not turn sleep into on-CPU time. The oracle is
 * delay accounting: every sleep of a thread that pages a file in is an
 * io_schedule() (page lock, readahead), and blkio delay stamps each with
 * local_clock() at the dequeue and at the wakeup, where tsa stamps the
 * switch and the wakeup. So the two must agree wait for wait: the same
 * count, and the time within 2 % or 100 us a wait (a tenth of one sleep
 * on this disk). The suite runs these tests with one vCPU online: see
 * wait-tests.sh.
 */
static void check_blkio(const char *who, const struct blkio_sleeps *s,
			uint64_t bio, uint64_t bn)
{
	double per = s->n ? (s->ns > bio ? s->ns - bio : bio - s->ns) /
			    (double)s->n : 0;

	tap(bn > 0 && s->n == bn && (gap(s->ns, bio) <= 2.0 || per <= 100000),
	    "%s fault and IOW sleeps equal delay accounting's blkio waits, within 2%% or 100 us a wait (expected %llu ns over %llu waits, saw %llu ns over %llu entries = %s, gap %.3f%%, %.1f us a wait)",
	    who, (unsigned long long)bio, (unsigned long long)bn,
	    (unsigned long long)s->ns, (unsigned long long)s->n, s->parts,
	    gap(s->ns, bio), per / 1000);
}

static void test_dfl(void)
{
	char path[256];
	struct tsa_thread t, t0;
	struct tsa_schedstat ss;
	struct tsa_delays dl = { 0 }, dl0 = { 0 };
	uint64_t minf, majf, cpu, vol = 0, invol = 0;
	pthread_t th;
	struct win w;
	int ok;

	snprintf(path, sizeof(path), "%s/data",
		 env_or("TSA_WAIT_DIR", "/mnt/tsa-wait"));
	dfl.path = path;
	if (drop_caches())
		tap(0, "dfl: drop_caches: %s", strerror(errno));
	pthread_create(&th, NULL, dfl_toucher, NULL);
	/* Parked with its code locked in: the books before the page-ins. */
	gate_wait_for(&dfl.ready, 1);
	sleep_ms(50);
	ok = !dfl.err && !tsa_read_thread(dfl.tid, &t0) &&
	     !tsa_read_delays(dfl.tid, &dl0);
	if (!ok)
		tap(0, "dfl: toucher %d before: %s", dfl.tid,
		    strerror(dfl.err ? dfl.err : errno));
	gate_open(&dfl.ready);
	gate_wait_for(&dfl.done, 1);
	sleep_ms(50);
	/* The toucher is parked on the gate: its counters are at rest. */
	ok = ok && !tsa_read_thread(dfl.tid, &t) &&
	     !tsa_read_faults(dfl.tid, &minf, &majf) &&
	     !tsa_read_schedstat(dfl.tid, &ss) &&
	     !tsa_read_ctxt_switches(dfl.tid, &vol, &invol) &&
	     !tsa_read_delays(dfl.tid, &dl);
	if (!ok)
		tap(0, "dfl: toucher %d: %s", dfl.tid,
		    strerror(dfl.err ? dfl.err : errno));
	gate_open(&dfl.done);
	pthread_join(th, NULL);
	if (!ok)
		return;
	win_of(&dfl.a, &dfl.b, &w);
	printf("# dfl: touched %ld pages of %s\n", dfl.pages, path);
	check_dominant("dfl: file page-in", &w, TSA_DFL, SLEEP_MASK, 50, 1);
	tap(w.counters[TSA_MAJF] > 0,
	    "dfl: major faults counted (expected > 0, saw %llu MAJF, %llu MINF in the window)",
	    (unsigned long long)w.counters[TSA_MAJF],
	    (unsigned long long)w.counters[TSA_MINF]);
	tap(t.counters[TSA_MINF] == minf && t.counters[TSA_MAJF] == majf,
	    "dfl: MINF/MAJF equal the kernel's minflt/majflt of the thread (expected %llu/%llu, saw %llu/%llu)",
	    (unsigned long long)minf, (unsigned long long)majf,
	    (unsigned long long)t.counters[TSA_MINF],
	    (unsigned long long)t.counters[TSA_MAJF]);
	{
		/* The kernel's tick-sampled split, for comparison only. */
		char p[64];
		unsigned long long ut = 0, st = 0;
		FILE *f;

		snprintf(p, sizeof(p), "/proc/%d/task/%d/stat", dfl.tid, dfl.tid);
		f = fopen(p, "r");
		if (f && fscanf(f, "%*d (%*[^)]) %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				&ut, &st) == 2)
			printf("# dfl: kernel utime %llu stime %llu ticks (1/%ld s); tsa USR %.0f SYS %.0f ticks\n",
			       ut, st, sysconf(_SC_CLK_TCK),
			       t.ns[TSA_USR] / (1e9 / sysconf(_SC_CLK_TCK)),
			       t.ns[TSA_SYS] / (1e9 / sysconf(_SC_CLK_TCK)));
		if (f)
			fclose(f);
	}
	/*
	 * The oracle is delay accounting (check_blkio()).
	 *
	 * schedstat is not an oracle here, only printed: with voluntary
	 * preemption a wakeup that preempts this thread (it wakes the I/O
	 * workers) skips the next rq clock update, so schedstat ends its
	 * run at that wakeup although it goes on running in the kernel
	 * until it blocks or reaches a preemption point. We saw that move
	 * 1-3 % of on-CPU time into sleep and run delay in schedstat.
	 */
	{
		struct blkio_sleeps b;

		blkio_sleeps_of(&t0, &t, &b);
		check_blkio("dfl: the toucher's", &b, dl.blkio_ns - dl0.blkio_ns,
			    dl.blkio_n - dl0.blkio_n);
	}
	cpu = t.ns[TSA_USR] + t.ns[TSA_SYS] + t.ns[TSA_TRP];
	check_switches(&t, vol, invol, "dfl");
	printf("# dfl: on-CPU %llu (USR %llu SYS %llu), schedstat %llu (%+.2f%%); LAT %llu, schedstat run delay %llu\n",
	       (unsigned long long)cpu, (unsigned long long)t.ns[TSA_USR],
	       (unsigned long long)t.ns[TSA_SYS],
	       (unsigned long long)ss.oncpu,
	       ss.oncpu ? 100.0 * ((double)cpu - ss.oncpu) / ss.oncpu : 0,
	       (unsigned long long)t.ns[TSA_LAT],
	       (unsigned long long)ss.rundelay);
	check_sum(&t, "dfl: toucher");
}

/* --- 5. TFL: text page-in of a program on the virtio disk -------------- */

/*
 * 4 MiB of text that the child runs one instruction per page of: each
 * page starts with a jump to the next one, so every page is fetched.
 */
#if defined(__x86_64__)
#define TSA_SLED_JUMP	"jmp 1f\n.p2align 12,0xcc\n"	/* int3 between */
#elif defined(__aarch64__)
#define TSA_SLED_JUMP	"b 1f\n.p2align 12\n"		/* nops between */
#else
#error "the TFL sled: x86-64 and arm64 only"
#endif
__asm__(".pushsection .text.tsa_sled,\"ax\",@progbits\n"
	".globl tsa_sled\n"
	".type tsa_sled,@function\n"
	".p2align 12\n"
	"tsa_sled:\n"
	".rept 1024\n"
	TSA_SLED_JUMP
	"1:\n"
	".endr\n"
	"ret\n"
	".size tsa_sled, .-tsa_sled\n"
	".popsection\n");
void tsa_sled(void);

#define SLED_BYTES (1024 * 4096)

/*
 * The child maps a copy of the sled from a file on the virtio disk that
 * nothing else maps, whose pages the parent dropped from the page cache,
 * and runs it: each fault fetches text from the disk. (Its own text would
 * not do on 7.x: exec reads executables ahead in large folios, and a
 * folio that is mapped cannot be dropped.) Reports on @out.
 */
static int text_child(const char *path, int out)
{
	struct tsa_delays d0 = { 0 }, d1 = { 0 };
	struct blkio_sleeps b;
	struct tsa_thread a, t;
	char line[768];
	struct win w;
	void *sled;
	int fd;

	/*
	 * Its own code and data in first (pages the parent never touched
	 * were dropped too): in the window only the sled can fault.
	 */
	if (mlockall(MCL_CURRENT)) {
		dprintf(out, "mlockall: %s\n", strerror(errno));
		return 1;
	}
	fd = open(path, O_RDONLY);
	sled = fd < 0 ? MAP_FAILED :
	       mmap(NULL, SLED_BYTES + 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
		    fd, 0);
	if (sled == MAP_FAILED) {
		dprintf(out, "map %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* No read-around (7.x still reads exec text ahead a little). */
	madvise(sled, SLED_BYTES + 4096, MADV_RANDOM);
	/* A new thread's file appears shortly after its birth. */
	for (int i = 0; i < 300 && tsa_read_thread(gettid_(), &a) &&
			errno == ENOENT; i++)
		sleep_ms(10);
	if (tsa_read_thread(gettid_(), &a) ||
	    tsa_read_delays(gettid_(), &d0)) {
		dprintf(out, "read /proc/tsa or taskstats: %s\n",
			strerror(errno));
		return 1;
	}
	((void (*)(void))sled)();
	if (tsa_read_thread(gettid_(), &t) ||
	    tsa_read_delays(gettid_(), &d1)) {
		dprintf(out, "read /proc/tsa or taskstats: %s\n",
			strerror(errno));
		return 1;
	}
	win_of(&a, &t, &w);
	blkio_sleeps_of(&a, &t, &b);
	snprintf(line, sizeof(line),
		 "TFL %llu %llu MAJF %llu MINF %llu SUM %d BIO %llu %llu IO %llu %llu\nPARTS %s\nSLED %s\n",
		 (unsigned long long)w.ns[TSA_TFL],
		 (unsigned long long)w.entries[TSA_TFL],
		 (unsigned long long)w.counters[TSA_MAJF],
		 (unsigned long long)w.counters[TSA_MINF],
		 tsa_sum(&t) == t.elapsed,
		 (unsigned long long)(d1.blkio_ns - d0.blkio_ns),
		 (unsigned long long)(d1.blkio_n - d0.blkio_n),
		 (unsigned long long)b.ns, (unsigned long long)b.n, b.parts,
		 win_str(&w));
	return write(out, line, strlen(line)) < 0;
}

/* Pages of @path in the page cache (mincore), or -1 with errno. */
static long resident_pages(const char *path, long *total)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	unsigned char *vec;
	long n = -1;
	void *m;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !st.st_size) {
		close(fd);
		return -1;
	}
	*total = (st.st_size + 4095) / 4096;
	m = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = calloc(*total, 1);
	if (m != MAP_FAILED && vec && !mincore(m, st.st_size, vec)) {
		n = 0;
		for (long i = 0; i < *total; i++)
			n += vec[i] & 1;
	}
	free(vec);
	if (m != MAP_FAILED)
		munmap(m, st.st_size);
	close(fd);
	return n;
}

static void test_tfl(void)
{
	char path[256], out[1024] = "", *sled, *parts;
	unsigned long long tfl = 0, tfl_n = 0, majf = 0, minf = 0, bio = 0,
			   bn = 0, io = 0, io_n = 0;
	struct blkio_sleeps b = { 0 };
	int sum_ok = 0, p[2], status = 0, got, fd;
	ssize_t n, len = 0;
	long res, total = 0;
	pid_t child;

	snprintf(path, sizeof(path), "%s/tsa-sled",
		 env_or("TSA_WAIT_DIR", "/mnt/tsa-wait"));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	if (fd < 0 || write(fd, (void *)tsa_sled, SLED_BYTES + 4096) !=
			      SLED_BYTES + 4096 || fsync(fd) || close(fd)) {
		tap(0, "tfl: writing %s: %s", path, strerror(errno));
		return;
	}
	if (drop_caches())
		tap(0, "tfl: drop_caches: %s", strerror(errno));
	res = resident_pages(path, &total);
	printf("# tfl: %ld of %ld pages of %s resident after drop_caches\n",
	       res, total, path);
	if (pipe(p))
		return;
	child = fork();
	if (child == 0) {
		close(p[0]);
		_exit(text_child(path, p[1]));
	}
	close(p[1]);
	while ((n = read(p[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += n;
	out[len] = 0;
	close(p[0]);
	waitpid(child, &status, 0);
	unlink(path);
	got = sscanf(out, "TFL %llu %llu MAJF %llu MINF %llu SUM %d BIO %llu %llu IO %llu %llu",
		     &tfl, &tfl_n, &majf, &minf, &sum_ok, &bio, &bn, &io, &io_n);
	if (got != 9 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		tap(0, "tfl: child failed (status %#x, said '%s')", status, out);
		return;
	}
	b.ns = io;
	b.n = io_n;
	parts = strstr(out, "PARTS ");
	snprintf(b.parts, sizeof(b.parts), "%s",
		 parts ? strtok(parts + 6, "\n") : "?");
	sled = strstr(parts ? parts + strlen(parts) + 1 : out, "SLED ");
	tap(tfl > 0 && tfl_n > 0,
	    "tfl: text paged in from disk (1024 pages, uncached) sleeps in TFL (expected > 0, saw %llu ns in %llu stays; %s)",
	    tfl, tfl_n, sled ? strtok(sled + 5, "\n") : "?");
	tap(majf > 0, "tfl: those page-ins are major faults (expected > 0, saw %llu MAJF, %llu MINF)",
	    majf, minf);
	check_blkio("tfl: the child's", &b, bio, bn);
	tap(sum_ok, "tfl: child's states sum to elapsed");
}

/* --- 6. APG: an anonymous working set pushed through swap -------------- */

static void test_apg(void)
{
	const char *cg = env_or("TSA_APG_CGROUP", "/sys/fs/cgroup/tsa-apg");
	long mb = atol(env_or("TSA_APG_MB", "24"));
	long touches = atol(env_or("TSA_APG_TOUCHES", "500"));
	int go[2], done[2];
	char path[256], c;
	pid_t child;
	struct tsa_thread a, b;
	struct tsa_delays d;
	struct win w;
	int ok;

	if (pipe(go) || pipe(done))
		return;
	child = fork();
	if (child == 0) {
		size_t len = (size_t)mb << 20;
		char *m, pidbuf[32];

		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		snprintf(pidbuf, sizeof(pidbuf), "%d", getpid());
		if (tsa_write_file(path, pidbuf))
			_exit(2);
		m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			_exit(3);
		/* Fill: not same-filled pages, so swap really stores them. */
		for (size_t off = 0; off < len; off += 4096)
			for (int k = 0; k < 4096; k += 512)
				m[off + k] = (char)(off >> 12) + k;
		if (write(done[1], "f", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(4);
		/*
		 * Measured: random pages, a third of which are out of the
		 * limit at any time: most touches hit memory, the others
		 * swap in (and push another page out).
		 */
		for (long i = 0, seed = 7; i < touches; i++) {
			seed = seed * 6364136223846793005L + 1442695040888963407L;
			m[(((unsigned long)seed >> 17) % (len >> 12)) << 12] += 1;
		}
		if (write(done[1], "d", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(5);
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	ok = read(done[0], &c, 1) == 1 && !read_or_fail(child, &a, "apg");
	if (ok && (write(go[1], "g", 1) != 1 || read(done[0], &c, 1) != 1))
		ok = 0;
	ok = ok && !read_or_fail(child, &b, "apg");
	ok = ok && !tsa_read_delays(child, &d);
	if (write(go[1], "e", 1) != 1)
		ok = 0;
	close(go[1]);
	close(done[0]);
	int status;

	waitpid(child, &status, 0);
	if (!ok) {
		tap(0, "apg: child %d: status %#x %s", child, status,
		    strerror(errno));
		return;
	}
	win_of(&a, &b, &w);
	printf("# apg: %ld random touches of %ld MiB in %s: %llu MAJF %llu MINF\n",
	       touches, mb, cg, (unsigned long long)w.counters[TSA_MAJF],
	       (unsigned long long)w.counters[TSA_MINF]);
	check_dominant("apg: swapping child", &w, TSA_APG, SLEEP_MASK, 50, 1);
	/*
	 * From 5.19 to 6.5, delay accounting's swapin delay brackets swap_readpage()
	 * which, for the synchronous reads page-cluster=0 gives, waits for
	 * the read (and the run-queue wait after it). It is no lower bound
	 * of APG (it also holds on-CPU time, which tsa charges to SYS); what
	 * holds is APG <= swapin <= APG + SYS + TRP + LAT, and with a slow
	 * device the sleep is most of it.
	 *
	 * From 6.6 the read is only submitted there: the fault waits for it
	 * in folio_lock_or_retry(), which delay accounting counts as
	 * thrashing when the folio is in the workingset (refaults here are)
	 * and not at all otherwise. Then APG >= thrashing - (SYS+TRP+LAT):
	 * tsa's APG holds every such sleep, and thrashing only those, plus
	 * their run-queue wait and on-CPU time. Lifetime numbers: the child
	 * was born after load.
	 */
	uint64_t oncpu = b.ns[TSA_SYS] + b.ns[TSA_TRP] + b.ns[TSA_LAT];
	/*
	 * Before 5.19 swapin delay is the block I/O sleeps a swap-in fault
	 * makes (a flag on the blkio delay, from before the swap cache lookup
	 * to the page's lock): each is an APG sleep of tsa's, which also
	 * holds the fault's other sleeps (direct reclaim's, page locks).
	 * So APG >= swapin, up to the stamps' skew at each sleep's two ends
	 * (delay accounting's just inside tsa's switch and wakeup: 50 us a
	 * sleep under emulation is allowed), and the I/O is most of APG.
	 */
	uint64_t skew = 50000ULL * b.entries[TSA_APG];

	if (tsa_kernel_before(5, 19))
		tap(d.swapin_n > 0 && b.ns[TSA_APG] + skew >= d.swapin_ns &&
		    pct(d.swapin_ns, b.ns[TSA_APG]) >= 50,
		    "apg: APG >= delay accounting's swapin delay, which is >= 50%% of it (kernel < 5.19: swapin is the swap read's block I/O sleeps) (expected APG >= %llu ns (%llu swap-ins) - %llu ns of skew, saw APG %llu ns over %llu entries, swapin %.1f%% of it; thrashing %llu ns, freepages %llu ns)",
		    (unsigned long long)d.swapin_ns,
		    (unsigned long long)d.swapin_n,
		    (unsigned long long)skew,
		    (unsigned long long)b.ns[TSA_APG],
		    (unsigned long long)b.entries[TSA_APG],
		    pct(d.swapin_ns, b.ns[TSA_APG]),
		    (unsigned long long)d.thrashing_ns,
		    (unsigned long long)d.freepages_ns);
	else if (tsa_kernel_before(6, 6))
		tap(d.swapin_n > 0 && b.ns[TSA_APG] <= d.swapin_ns &&
		    d.swapin_ns <= b.ns[TSA_APG] + oncpu &&
		    pct(b.ns[TSA_APG], d.swapin_ns) >= 50,
		    "apg: APG <= delay accounting's swapin delay <= APG+SYS+TRP+LAT, APG >= 50%% of it (kernel < 6.6: the swap read waits inside the swapin bracket) (expected APG <= %llu ns (%llu swap-ins) <= APG + %llu ns, saw APG %llu ns over %llu entries = %.1f%%; thrashing %llu ns, freepages %llu ns)",
		    (unsigned long long)d.swapin_ns,
		    (unsigned long long)d.swapin_n,
		    (unsigned long long)oncpu,
		    (unsigned long long)b.ns[TSA_APG],
		    (unsigned long long)b.entries[TSA_APG],
		    pct(b.ns[TSA_APG], d.swapin_ns),
		    (unsigned long long)d.thrashing_ns,
		    (unsigned long long)d.freepages_ns);
	else
		tap(d.swapin_n > 0 && d.thrashing_n > 0 &&
		    b.ns[TSA_APG] + oncpu >= d.thrashing_ns &&
		    pct(b.ns[TSA_APG], d.thrashing_ns) >= 50,
		    "apg: APG >= delay accounting's thrashing delay - (SYS+TRP+LAT), APG >= 50%% of it (kernel >= 6.6: the swap read wait is a workingset folio wait) (expected APG >= %llu - %llu ns (%llu waits, %llu swap-ins), saw APG %llu ns over %llu entries = %.1f%%; swapin %llu ns)",
		    (unsigned long long)d.thrashing_ns,
		    (unsigned long long)oncpu,
		    (unsigned long long)d.thrashing_n,
		    (unsigned long long)d.swapin_n,
		    (unsigned long long)b.ns[TSA_APG],
		    (unsigned long long)b.entries[TSA_APG],
		    pct(b.ns[TSA_APG], d.thrashing_ns),
		    (unsigned long long)d.swapin_ns);
	check_sum(&b, "apg: child");
}

/* --- 7. IDL: threads waiting for work; SLP for a plain sleep ----------- */

enum { IDL_EPOLL, IDL_ACCEPT, IDL_PIPE, IDL_SIGWAIT, IDL_NANOSLEEP, IDL_N };

static const char *const idl_name[IDL_N] = {
	"epoll_wait on a listening socket", "accept with no clients",
	"read of an empty pipe", "sigwaitinfo", "nanosleep",
};

static struct {
	int lfd[2], epfd, pipe[2];
	pid_t tid[IDL_N];
	atomic_int ready;
} idl;

static int listen_socket(struct sockaddr_in *sa)
{
	socklen_t l = sizeof(*sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)sa, sizeof(*sa)) ||
	    listen(fd, 8) || getsockname(fd, (struct sockaddr *)sa, &l))
		return -1;
	return fd;
}

static void *idl_thread(void *arg)
{
	long k = (long)arg;
	struct epoll_event ev;
	sigset_t set;
	char c;
	int fd;

	idl.tid[k] = gettid_();
	atomic_fetch_add(&idl.ready, 1);
	switch (k) {
	case IDL_EPOLL:
		epoll_wait(idl.epfd, &ev, 1, -1);
		break;
	case IDL_ACCEPT:
		fd = accept(idl.lfd[1], NULL, NULL);
		if (fd >= 0)
			close(fd);
		break;
	case IDL_PIPE:
		if (read(idl.pipe[0], &c, 1) < 0)
			perror("read");
		break;
	case IDL_SIGWAIT:
		sigemptyset(&set);
		sigaddset(&set, SIGUSR2);
		sigwaitinfo(&set, NULL);
		break;
	case IDL_NANOSLEEP:
		sleep_ms(1400);
		break;
	}
	return NULL;
}

static void test_idl(void)
{
	struct sockaddr_in sa[2];
	struct tsa_thread a[IDL_N], b[IDL_N];
	struct epoll_event ev = { .events = EPOLLIN };
	pthread_t th[IDL_N];
	sigset_t set, old;
	int ok = 1;

	idl.lfd[0] = listen_socket(&sa[0]);
	idl.lfd[1] = listen_socket(&sa[1]);
	idl.epfd = epoll_create1(0);
	if (idl.lfd[0] < 0 || idl.lfd[1] < 0 || idl.epfd < 0 ||
	    pipe(idl.pipe) ||
	    epoll_ctl(idl.epfd, EPOLL_CTL_ADD, idl.lfd[0], &ev)) {
		tap(0, "idl: setup: %s", strerror(errno));
		return;
	}
	/* SIGUSR2 is for the sigwaitinfo thread only. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	for (long i = 0; i < IDL_N; i++)
		pthread_create(&th[i], NULL, idl_thread, (void *)i);
	while (atomic_load(&idl.ready) < IDL_N)
		sleep_ms(5);
	sleep_ms(200);
	for (int i = 0; i < IDL_N; i++)
		ok &= !read_or_fail(idl.tid[i], &a[i], "idl");
	sleep_ms(1000);
	for (int i = 0; i < IDL_N; i++)
		ok &= !read_or_fail(idl.tid[i], &b[i], "idl");
	/* Give them their work. */
	for (int i = 0; i < 2; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0);

		if (connect(c, (struct sockaddr *)&sa[i], sizeof(sa[i])))
			perror("connect");
		close(c);
	}
	if (write(idl.pipe[1], "x", 1) != 1)
		perror("write");
	pthread_kill(th[IDL_SIGWAIT], SIGUSR2);
	for (int i = 0; i < IDL_N; i++)
		pthread_join(th[i], NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(idl.lfd[0]);
	close(idl.lfd[1]);
	close(idl.epfd);
	close(idl.pipe[0]);
	close(idl.pipe[1]);
	if (!ok)
		return;
	for (int i = 0; i < IDL_N; i++) {
		int want = i == IDL_NANOSLEEP ? TSA_SLP : TSA_IDL;
		struct win w;
		char what[96];

		snprintf(what, sizeof(what), "idl: %s (%d)", idl_name[i],
			 idl.tid[i]);
		win_of(&a[i], &b[i], &w);
		tap(b[i].state == want && pct(w.ns[want], w.elapsed) >= 99.0 &&
		    (want == TSA_IDL || w.ns[TSA_IDL] == 0),
		    "%s: %s ~100%% of the window and %s now (expected >= 99%%%s, saw %s now; %s)",
		    what, tsa_state_name(want), tsa_state_name(want),
		    want == TSA_SLP ? " and no IDL" : "",
		    tsa_state_name(b[i].state), win_str(&w));
	}
}

/* --- 8. TRP: interrupts charged to the interrupted thread -------------- */

#define TRP_N 4
static const char *const trp_name[TRP_N] = { "tcp receiver", "tcp sender",
					     "spinner on cpu0", "spinner on cpu1" };
static atomic_int trp_stop;
static pid_t trp_tid[TRP_N];
static struct tsa_thread trp_a[TRP_N], trp_b[TRP_N];
static int trp_err[TRP_N];
static struct gate trp_gate = GATE_INIT;
static int trp_port;

static void *trp_worker(void *arg)
{
	long k = (long)arg;
	static char buf[65536];
	char rbuf[65536];
	int fd = -1, lfd;

	trp_tid[k] = gettid_();
	if (k == 0) {		/* receiver */
		struct sockaddr_in sa;

		lfd = listen_socket(&sa);
		trp_port = sa.sin_port;
		gate_arrive_wait(&trp_gate);
		fd = accept(lfd, NULL, NULL);
		close(lfd);
	} else if (k == 1) {	/* sender */
		struct sockaddr_in sa = { .sin_family = AF_INET };

		gate_arrive_wait(&trp_gate);
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sa.sin_port = trp_port;
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			perror("connect");
	} else {		/* spinners: the tick's softirqs hit them */
		pin((int)(k - 2) % (int)sysconf(_SC_NPROCESSORS_ONLN));
		gate_arrive_wait(&trp_gate);
	}
	if (tsa_read_thread(trp_tid[k], &trp_a[k]))
		trp_err[k] = errno;
	while (!atomic_load(&trp_stop)) {
		if (k == 0) {
			if (read(fd, rbuf, sizeof(rbuf)) <= 0)
				break;
		} else if (k == 1) {
			if (write(fd, buf, sizeof(buf)) <= 0)
				break;
		} else {
			for (volatile int i = 0; i < 100000; i++)
				;
		}
	}
	if (tsa_read_thread(trp_tid[k], &trp_b[k]))
		trp_err[k] = errno;
	if (fd >= 0) {
		shutdown(fd, SHUT_RDWR);
		close(fd);
	}
	return NULL;
}

static int trp_workload(struct win *w)
{
	pthread_t th[TRP_N];

	atomic_store(&trp_stop, 0);
	for (long i = 0; i < TRP_N; i++)
		pthread_create(&th[i], NULL, trp_worker, (void *)i);
	gate_wait_for(&trp_gate, TRP_N);
	gate_open(&trp_gate);
	sleep_ms(1000);
	atomic_store(&trp_stop, 1);
	for (int i = 0; i < TRP_N; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < TRP_N; i++) {
		win_of(&trp_a[i], &trp_b[i], &w[i]);
		printf("# trp: %s %d: %s%s\n", trp_name[i], trp_tid[i],
		       trp_err[i] ? strerror(trp_err[i]) : "", win_str(&w[i]));
	}
	return 0;
}

/* A degraded bit set as the module prints it: " SYS KLK SCL" or " -". */
static const char *bits_str(uint32_t bits)
{
	static char buf[4][160];
	static int k;
	char *b = buf[k++ & 3];

	b[0] = 0;
	for (int i = 0; i < TSA_NSTATES; i++)
		if (bits & (1U << i))
			snprintf(b + strlen(b), 160 - strlen(b), " %s",
				 tsa_state_name(i));
	for (int i = 0; i < TSA_NCOUNTERS; i++)
		if (bits & TSA_COUNTER_BIT(i))
			snprintf(b + strlen(b), 160 - strlen(b), " %s",
				 tsa_counter_names[i]);
	if (!bits)
		snprintf(b, 160, " -");
	return b;
}

static void check_degraded(const char *what, uint32_t want)
{
	struct tsa_thread t;
	uint32_t dbg = 0;
	int rt, rd;

	rt = tsa_read_thread(gettid_(), &t);
	rd = tsa_read_debugfs_degraded(&dbg);
	tap(!rt && t.degraded == want,
	    "%s: /proc/tsa/<tid> 'degraded' lists the lost states and counters (expected%s, saw%s)",
	    what, bits_str(want), rt ? " (read failed)" : bits_str(t.degraded));
	tap(!rd && dbg == want,
	    "%s: debugfs stats 'degraded' lists them too (expected%s, saw%s)",
	    what, bits_str(want), rd ? " (read failed)" : bits_str(dbg));
}

static void check_hook(const char *what, const char *hook, int live,
		       int need_events)
{
	int l = -1, e = -1;
	uint64_t ev = 0;
	int r = tsa_read_debugfs_hook(hook, &l, &e, &ev);

	tap(!r && l == live && e == live &&
	    (!need_events || (ev > 0 && ev != UINT64_MAX)),
	    "%s: debugfs 'hook %s' live %d enabled %d%s (saw %s%d %d %s%llu)",
	    what, hook, live, live, need_events ? " events > 0 (events=1)" : "",
	    r ? "no line, " : "", l, e, ev == UINT64_MAX ? "uncounted " : "",
	    ev == UINT64_MAX ? 0ULL : (unsigned long long)ev);
}

/* interrupts=0 (the default): no TRP anywhere, and it says so. */
static void test_trp_off(void)
{
	struct win w[TRP_N];
	struct tsa_all all;
	uint64_t trp = 0;
	size_t withtrp = 0;

	trp_workload(w);
	for (int i = 0; i < TRP_N; i++)
		trp += w[i].ns[TSA_TRP];
	tap(trp == 0, "trp-off: loopback traffic gives no TRP without interrupts=1 (expected 0, saw %llu ns)",
	    (unsigned long long)trp);
	if (tsa_read_all(&all)) {
		tap(0, "trp-off: read /proc/tsa/all: %s", strerror(errno));
	} else {
		for (size_t i = 0; i < all.n; i++)
			withtrp += all.t[i].ns[TSA_TRP] != 0;
		tap(all.n > 10 && withtrp == 0,
		    "trp-off: no thread in /proc/tsa/all has TRP (expected 0 of %zu lines, saw %zu)",
		    all.n, withtrp);
		tsa_free_all(&all);
	}
	check_hook("trp-off", "irq_handler_entry", 0, 0);
	check_hook("trp-off", "softirq_entry", 0, 0);
}

/* interrupts=1: interrupts and softirqs show as TRP. */
static void test_trp_on(void)
{
	struct win w[TRP_N];
	uint64_t trp = 0;
	char seen[320] = "";

	trp_workload(w);
	for (int i = 0; i < TRP_N; i++) {
		trp += w[i].ns[TSA_TRP];
		snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen),
			 "%s%s %llu ns in %llu", i ? ", " : "", trp_name[i],
			 (unsigned long long)w[i].ns[TSA_TRP],
			 (unsigned long long)w[i].entries[TSA_TRP]);
	}
	tap(trp > 0, "trp-on: interrupt-heavy threads get TRP (expected > 0, saw %s)",
	    seen);
	/*
	 * A thread spinning for a second on a CPU takes that CPU's tick
	 * softirqs (timers, RCU, load balancing): TRP on every CPU.
	 */
	tap(w[2].ns[TSA_TRP] > 0 && w[3].ns[TSA_TRP] > 0,
	    "trp-on: a spinner on each CPU gets TRP (expected both > 0, saw cpu0 %llu ns in %llu, cpu1 %llu ns in %llu)",
	    (unsigned long long)w[2].ns[TSA_TRP],
	    (unsigned long long)w[2].entries[TSA_TRP],
	    (unsigned long long)w[3].ns[TSA_TRP],
	    (unsigned long long)w[3].entries[TSA_TRP]);
	check_hook("trp-on", "irq_handler_entry", 1, 1);
	check_hook("trp-on", "irq_handler_exit", 1, 1);
	check_hook("trp-on", "softirq_entry", 1, 1);
	check_hook("trp-on", "softirq_exit", 1, 1);
}

/*
 * traps (interrupts=1): a thread that spins in user mode on CPU 0 for a
 * second takes that CPU's softirqs and device interrupts as TRP; its
 * "trap" rows split that TRP by source, exactly, and the tick's softirqs
 * are among them.
 */
static atomic_int traps_stop;
static pid_t traps_tid;

static void *traps_spinner(void *arg __attribute__((unused)))
{
	pin(0);
	traps_tid = gettid_();
	while (!atomic_load(&traps_stop))
		;
	return NULL;
}

static void test_traps(void)
{
	static struct tsa_calls ca, cb;
	struct tsa_thread ta, tb;
	uint64_t ns = 0, n = 0, soft = 0;
	char seen[400] = "";
	pthread_t th;
	int ok;

	atomic_store(&traps_stop, 0);
	pthread_create(&th, NULL, traps_spinner, NULL);
	while (!__atomic_load_n(&traps_tid, __ATOMIC_SEQ_CST))
		sleep_ms(1);
	sleep_ms(100);
	ok = !tsa_read_thread_calls(traps_tid, &ta, &ca);
	sleep_ms(1000);
	ok = ok && !tsa_read_thread_calls(traps_tid, &tb, &cb);
	atomic_store(&traps_stop, 1);
	pthread_join(th, NULL);
	if (!ok) {
		tap(0, "traps: read /proc/tsa/%d: %s", traps_tid,
		    strerror(errno));
		return;
	}
	/* Rows of a at b (a row evicted meanwhile is in "other"). */
	for (size_t i = 0; i < cb.ntraps; i++) {
		ns += cb.trap[i].ns;
		n += cb.trap[i].calls;
		if (!strncmp(cb.trap[i].name, "softirq:", 8))
			soft += cb.trap[i].calls;
		snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen),
			 "%s%s %llu in %llu", i ? ", " : "", cb.trap[i].name,
			 (unsigned long long)cb.trap[i].ns,
			 (unsigned long long)cb.trap[i].calls);
	}
	for (size_t i = 0; i < ca.ntraps; i++) {
		ns -= ca.trap[i].ns;
		n -= ca.trap[i].calls;
	}
	tap(ns == tb.ns[TSA_TRP] - ta.ns[TSA_TRP] && ns > 0,
	    "traps: the trap rows split the spinner's TRP exactly (expected %llu ns, saw %llu ns: %s)",
	    (unsigned long long)(tb.ns[TSA_TRP] - ta.ns[TSA_TRP]),
	    (unsigned long long)ns, seen);
	tap(n >= tb.entries[TSA_TRP] - ta.entries[TSA_TRP] && soft > 0,
	    "traps: one trap counted per interrupt, softirqs among them (expected >= %llu traps and softirqs > 0, saw %llu traps, %llu softirqs since birth)",
	    (unsigned long long)(tb.entries[TSA_TRP] - ta.entries[TSA_TRP]),
	    (unsigned long long)n, (unsigned long long)soft);
}

/* --- 9. SIG: exactly N signals, one at a time ------------------------- */

#define SIG_N 1000

static int sig_ack[2];
static atomic_int sig_stop;
static pid_t sig_tid;

static void sig_handler(int sig __attribute__((unused)))
{
	if (write(sig_ack[1], "a", 1) != 1)
		_exit(9);
}

static void *sig_target(void *arg __attribute__((unused)))
{
	/* One CPU for both ends: cross-CPU wakeups are slow under TCG. */
	pin(0);
	sig_tid = gettid_();
	while (!atomic_load(&sig_stop))
		pause();
	return NULL;
}

/*
 * A thread that takes its signals with sigtimedwait() (blocked, so never
 * delivered to a handler) receives them all the same: SIG counts each.
 */
static pid_t sigw_tid;

static void *sigw_target(void *arg __attribute__((unused)))
{
	struct timespec ts = { 5, 0 };
	sigset_t set;

	pin(0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigw_tid = gettid_();
	while (!atomic_load(&sig_stop)) {
		if (sigtimedwait(&set, NULL, &ts) == SIGUSR2 &&
		    write(sig_ack[1], "a", 1) != 1)
			_exit(9);
	}
	return NULL;
}

static void sig_by_sigtimedwait(void)
{
	struct tsa_thread a, b;
	sigset_t set, old;
	pthread_t th;
	int sent = 0;
	char c;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	/* Blocked in every thread: the target takes it only by waiting. */
	pthread_sigmask(SIG_BLOCK, &set, &old);
	atomic_store(&sig_stop, 0);
	sigw_tid = 0;
	pthread_create(&th, NULL, sigw_target, NULL);
	while (!sigw_tid)
		sleep_ms(5);
	sleep_ms(100);
	if (read_or_fail(sigw_tid, &a, "sig: sigtimedwait"))
		goto out;
	for (int i = 0; i < SIG_N / 10; i++) {
		if (pthread_kill(th, SIGUSR2) || read(sig_ack[0], &c, 1) != 1)
			break;
		sent++;
	}
	if (read_or_fail(sigw_tid, &b, "sig: sigtimedwait"))
		goto out;
	tap(sent == SIG_N / 10 &&
	    b.counters[TSA_SIG] - a.counters[TSA_SIG] == SIG_N / 10,
	    "sig: SIG counts every signal taken by sigtimedwait (expected %d, saw %llu; %d sent)",
	    SIG_N / 10,
	    (unsigned long long)(b.counters[TSA_SIG] - a.counters[TSA_SIG]),
	    sent);
out:
	atomic_store(&sig_stop, 1);
	pthread_kill(th, SIGUSR2);
	pthread_join(th, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void test_sig(void)
{
	struct sigaction sa = { .sa_handler = sig_handler };
	struct tsa_thread a, b;
	sigset_t set, old;
	cpu_set_t cpus;
	pthread_t th;
	int sent = 0;
	char c;

	sched_getaffinity(0, sizeof(cpus), &cpus);
	pin(0);

	if (pipe(sig_ack))
		return;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	/* The target takes SIGUSR1; this thread never does. */
	pthread_create(&th, NULL, sig_target, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	while (!sig_tid)
		sleep_ms(5);
	sleep_ms(100);
	if (read_or_fail(sig_tid, &a, "sig"))
		goto out;
	for (int i = 0; i < SIG_N; i++) {
		if (pthread_kill(th, SIGUSR1) || read(sig_ack[0], &c, 1) != 1)
			break;
		sent++;
	}
	if (read_or_fail(sig_tid, &b, "sig"))
		goto out;
	tap(sent == SIG_N &&
	    b.counters[TSA_SIG] - a.counters[TSA_SIG] == SIG_N,
	    "sig: SIG counts every delivered signal (expected %d, saw %llu; %d sent)",
	    SIG_N, (unsigned long long)(b.counters[TSA_SIG] - a.counters[TSA_SIG]),
	    sent);
	sig_by_sigtimedwait();
out:
	atomic_store(&sig_stop, 1);
	pthread_kill(th, SIGUSR1);
	pthread_join(th, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	signal(SIGUSR1, SIG_DFL);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	close(sig_ack[0]);
	close(sig_ack[1]);
}

/* --- 10. degraded: what the module parameters take away --------------- */

static uint32_t expect_degraded(void)
{
	uint32_t bits = 0;

	if (tsa_parse_state_list(env_or("TSA_EXPECT_DEGRADED", "TRP"), &bits))
		fprintf(stderr, "bad TSA_EXPECT_DEGRADED\n");
	return bits;
}

static void test_degraded_list(void)
{
	check_degraded("degraded", expect_degraded());
}

static struct {
	pid_t tid;
	struct tsa_thread a, m, b;	/* m: after the syscalls, before faults */
	int err;
} deg;

static void *deg_worker(void *arg __attribute__((unused)))
{
	size_t len = 256 * 4096;
	char *m;

	deg.tid = gettid_();
	/* A new thread's file appears shortly after its birth. */
	for (int i = 0; i < 300 && tsa_read_thread(deg.tid, &deg.a) &&
			errno == ENOENT; i++)
		sleep_ms(10);
	/* The pages the reads and the loop touch first (their faults). */
	deg.err = tsa_read_thread(deg.tid, &deg.a);
	syscall(SYS_getppid);
	deg.err |= tsa_read_thread(deg.tid, &deg.m);
	deg.err |= tsa_read_thread(deg.tid, &deg.a);
	for (int i = 0; i < 2000; i++)
		syscall(SYS_getppid);
	deg.err |= tsa_read_thread(deg.tid, &deg.m);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (size_t off = 0; m != MAP_FAILED && off < len; off += 4096)
		m[off] = 1;
	tsa_read_thread(deg.tid, &deg.b);
	munmap(m, len);
	return NULL;
}

/* faults=0 locks=0 syscalls=0: the lost states stay empty. */
static void test_degraded_work(void)
{
	uint32_t want = expect_degraded();
	pthread_t th;
	struct win w, wk;

	pthread_create(&th, NULL, deg_worker, NULL);
	pthread_join(th, NULL);
	win_of(&deg.a, &deg.b, &w);
	/*
	 * Up to the page touching: a live fault hook makes its faults SYS,
	 * but nothing else may be (a new thread taken to be in the kernel
	 * would stay SYS for good: no sys_exit ever comes).
	 */
	if (want & (1U << TSA_SYS)) {
		struct win wm;

		win_of(&deg.a, &deg.m, &wm);
		tap(!deg.err && wm.counters[TSA_SCL] == 0 &&
		    wm.ns[TSA_USR] > 0 &&
		    (wm.ns[TSA_SYS] == 0 || wm.counters[TSA_MINF] +
					   wm.counters[TSA_MAJF] > 0),
		    "degraded: no syscall hooks: a new user thread's 2000 getppid() are USR: no SCL, no SYS but a page fault's (expected 0 calls, USR > 0, SYS 0 or MINF > 0, saw %llu calls, %llu ns SYS, %llu ns USR, %llu MINF; %s%s)",
		    (unsigned long long)wm.counters[TSA_SCL],
		    (unsigned long long)wm.ns[TSA_SYS],
		    (unsigned long long)wm.ns[TSA_USR],
		    (unsigned long long)wm.counters[TSA_MINF],
		    deg.err ? "a read failed; " : "", win_str(&wm));
	}
	if (want & (1U << TSA_DFL))
		tap(deg.b.counters[TSA_MINF] == 0 &&
		    deg.b.counters[TSA_MAJF] == 0 &&
		    !deg.b.ns[TSA_TFL] && !deg.b.ns[TSA_DFL] &&
		    !deg.b.ns[TSA_KFL] && !deg.b.ns[TSA_APG],
		    "degraded: no fault hook: no MINF/MAJF, no TFL/DFL/KFL/APG after touching 256 pages (saw %llu/%llu, %s)",
		    (unsigned long long)deg.b.counters[TSA_MINF],
		    (unsigned long long)deg.b.counters[TSA_MAJF],
		    win_str(&w));
	if (want & (1U << TSA_KLK)) {
		struct win w4[KLK_THREADS];
		int err = klk_run(700, w4, &wk);

		tap(!err && wk.ns[TSA_KLK] == 0 && wk.ns[TSA_SLP] > 0,
		    "degraded: no lock hooks: a contended i_rwsem is SLP, not KLK (expected KLK 0, SLP > 0, saw %s)",
		    err ? strerror(err) : win_str(&wk));
	}
	check_sum(&deg.b, "degraded: worker");
}

/* --- every thread sums to elapsed -------------------------------------- */

static void test_allsum(void)
{
	struct tsa_all all;
	struct tsa_tidlist tl;
	int bad = 0, n = 0;

	if (tsa_read_all(&all)) {
		tap(0, "allsum: read /proc/tsa/all: %s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < all.n; i++)
		if (tsa_sum(&all.t[i]) != all.t[i].elapsed && bad++ < 5)
			printf("# tid %d pid %d: sum %llu != elapsed %llu\n",
			       all.t[i].tid, all.t[i].pid,
			       (unsigned long long)tsa_sum(&all.t[i]),
			       (unsigned long long)all.t[i].elapsed);
	tap(all.n > 10 && bad == 0,
	    "allsum: every line of /proc/tsa/all sums to elapsed (%zu lines, %d bad)",
	    all.n, bad);
	tsa_free_all(&all);
	bad = 0;
	if (tsa_list_tids(&tl) == 0) {
		for (size_t i = 0; i < tl.n; i++) {
			struct tsa_thread t;

			if (tsa_read_thread(tl.tid[i], &t))
				continue;	/* exited meanwhile */
			n++;
			bad += tsa_sum(&t) != t.elapsed;
		}
		free(tl.tid);
	}
	tap(n > 10 && bad == 0,
	    "allsum: every /proc/tsa/<tid> sums to elapsed (%d threads, %d bad)",
	    n, bad);
}

/* --- calls: in which system call the time went ---------------------- */

/*
 * One worker, parked in select() while it is read (so that no call the
 * test counts is in progress at a read), waits in turn: in read() on an
 * empty pipe (IDL), in futex() on a mutex the main thread holds (LCK), in
 * clock_nanosleep() (SLP) and, with the test disk, in O_DIRECT pwrite64()
 * and fsync() (IOW). Each call's row must show the calls made and the
 * sleep in its state; and every sleep of the window happened inside a
 * call, so the rows' sleep states add up to the thread's, exactly.
 */
#define CALLS_WAIT_MS	300
#define CALLS_WRITES	8

static struct {
	int go[2][2], data[2], done[2];
	pthread_mutex_t m;
	pid_t tid;
	int disk, err;
	char path[256];
} cw = { .m = PTHREAD_MUTEX_INITIALIZER };

/* Only select(): the byte that ends the park is never read. */
static void calls_park(int k)
{
	fd_set rd;

	FD_ZERO(&rd);
	FD_SET(cw.go[k][0], &rd);
	if (select(cw.go[k][0] + 1, &rd, NULL, NULL, NULL) != 1)
		cw.err = errno ? errno : EIO;
}

static void *calls_worker(void *arg __attribute__((unused)))
{
	struct timespec ts = { 0, CALLS_WAIT_MS * 1000000L };
	char c, *buf = NULL;
	int fd = -1, bfd = -1;

	cw.tid = gettid_();
	if (cw.disk) {
		fd = open(cw.path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT,
			  0600);
		bfd = open(cw.path, O_WRONLY);
		if (fd < 0 || bfd < 0 || posix_memalign((void **)&buf, 4096,
							CALLS_WRITES * 4096))
			cw.err = errno;
		else
			memset(buf, 'x', CALLS_WRITES * 4096);
	}
	calls_park(0);
	if (read(cw.data[0], &c, 1) != 1)
		cw.err = errno ? errno : EIO;
	pthread_mutex_lock(&cw.m);
	pthread_mutex_unlock(&cw.m);
	syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
	if (cw.disk && !cw.err) {
		for (int i = 0; i < CALLS_WRITES; i++)
			if (pwrite(fd, buf, 4096, i * 4096L) != 4096)
				cw.err = errno ? errno : EIO;
		/* Buffered data of its own, for fsync to write and wait on. */
		if (pwrite(bfd, buf, CALLS_WRITES * 4096,
			   CALLS_WRITES * 4096L) != CALLS_WRITES * 4096)
			cw.err = errno ? errno : EIO;
		if (fsync(bfd))
			cw.err = errno;
	}
	if (write(cw.done[1], "d", 1) != 1)
		cw.err = errno ? errno : EIO;
	calls_park(1);
	if (fd >= 0)
		close(fd);
	if (bfd >= 0)
		close(bfd);
	free(buf);
	return NULL;
}

/* Wait until the worker sleeps ('S' in /proc/<tid>/stat). */
static int calls_wait_asleep(void)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", cw.tid);
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(path, "r");

		p = f && fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		if (f)
			fclose(f);
		if (p && p[1] == ' ' && p[2] == 'S')
			return 0;
		sleep_ms(10);
	}
	return -1;
}

/* A row's change over the window (a row absent at the start is 0). */
static void calls_delta(const struct tsa_calls *a, const struct tsa_calls *b,
			const char *name, struct tsa_callrow *d)
{
	const struct tsa_callrow *ra = tsa_call_find(a, name);
	const struct tsa_callrow *rb = tsa_call_find(b, name);

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	if (!rb)
		return;
	*d = *rb;
	if (!ra)
		return;
	d->calls -= ra->calls;
	d->ns -= ra->ns;
	for (int s = 0; s < TSA_NSTATES; s++)
		d->state_ns[s] -= ra->state_ns[s];
}

static void calls_check(const struct tsa_calls *a, const struct tsa_calls *b,
			const char *name, uint64_t want_calls, int exact,
			int state, double min_ms, double min_pct)
{
	struct tsa_callrow d;

	calls_delta(a, b, name, &d);
	tap((exact ? d.calls == want_calls : d.calls >= want_calls) &&
	    d.state_ns[state] / 1e6 >= min_ms &&
	    pct(d.state_ns[state], d.ns) >= min_pct,
	    "calls: %s: %s%llu call(s), %s >= %g ms and >= %.0f%% of its time (saw %llu calls, %.1f ms inside, %s %.1f ms = %.1f%%, SYS %.1f ms, LAT %.1f ms)",
	    name, exact ? "" : ">= ", (unsigned long long)want_calls,
	    tsa_state_name(state), min_ms, min_pct,
	    (unsigned long long)d.calls, d.ns / 1e6, tsa_state_name(state),
	    d.state_ns[state] / 1e6, pct(d.state_ns[state], d.ns),
	    d.state_ns[TSA_SYS] / 1e6, d.state_ns[TSA_LAT] / 1e6);
}

/*
 * fsync waits for I/O (IOW), the journal (SLP), maybe a kernel lock (KLK)
 * and a CPU (LAT): a call that needs more than three states besides SYS
 * has no row and its numbers are in other (docs/proc-format.md). The
 * worker's only other I/O waits are pwrite64's, which have a row: other's
 * IOW is then fsync's.
 *
 * How long: fsync waits for about one request of its own (its data; the
 * journal's commit is jbd2's I/O, which it waits for in SLP), and
 * dm-delay releases a request at the first tick at or after its delay
 * (whole jiffies: 1 ms is one tick at HZ 250), so that wait is anything
 * from microseconds to a tick and more, not at least the delay: 3.0-3.5
 * ms in most runs on 6.12, 0.9 ms once. What is checked is that fsync
 * waited for the device and that this wait is IOW in its own row.
 */
#define FSYNC_IOW_MIN_MS 0.001

static void calls_fsync_check(const struct tsa_calls *a,
			      const struct tsa_calls *b)
{
	double ms = FSYNC_IOW_MIN_MS;
	struct tsa_callrow f, o;
	int n = 0;

	calls_delta(a, b, "fsync", &f);
	calls_delta(a, b, "other", &o);
	for (int s = 0; s < TSA_NSTATES; s++)
		n += s != TSA_SYS && o.state_ns[s] > 0;
	if (f.calls || !o.calls) {
		calls_check(a, b, "fsync", 1, 1, TSA_IOW, ms, 0);
		return;
	}
	tap(o.state_ns[TSA_IOW] / 1e6 >= ms && n > 3,
	    "calls: fsync: no row of its own, its one call needed more than three states besides SYS: other holds it (expected other's IOW >= %g ms in more than 3 states besides SYS, saw +%llu calls, %.1f ms, IOW %.1f ms, %d states besides SYS)",
	    ms, (unsigned long long)o.calls, o.ns / 1e6,
	    o.state_ns[TSA_IOW] / 1e6, n);
}

/*
 * The calls of a process's exited threads stay in its totals: the tid 0
 * line of /proc/tsa/calls. Every call made counts once, as SCL does, and
 * each thread also returns once from the clone that made it, which it
 * never entered: calls == SCL + exited threads, exactly.
 */
#define CALLS_EXITERS	4

static void *calls_exiter(void *arg __attribute__((unused)))
{
	struct timespec ts = { 0, 1000000 };

	for (int i = 0; i < 5; i++)
		syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
	return NULL;
}

/* Sum of calls over the syscall lines of @pid's exited threads. */
static int calls_exited_sum(pid_t pid, uint64_t *calls)
{
	char line[1024], *f[64];
	int nf = 0, c_tid = -1, c_pid = -1, c_kind = -1, c_calls = -1;
	FILE *fp = fopen("/proc/tsa/calls", "r");

	*calls = 0;
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		char *save, *w;
		int i = 0;

		if (!strncmp(line, "fields ", 7)) {
			for (w = strtok_r(line + 7, " \n", &save); w;
			     w = strtok_r(NULL, " \n", &save), i++) {
				if (!strcmp(w, "tid"))
					c_tid = i;
				else if (!strcmp(w, "pid"))
					c_pid = i;
				else if (!strcmp(w, "kind"))
					c_kind = i;
				else if (!strcmp(w, "calls"))
					c_calls = i;
			}
			continue;
		}
		if (c_calls < 0)
			continue;
		for (nf = 0, w = strtok_r(line, " \n", &save); w && nf < 64;
		     w = strtok_r(NULL, " \n", &save))
			f[nf++] = w;
		if (nf > c_calls && atoi(f[c_tid]) == 0 &&
		    atoi(f[c_pid]) == pid && !strcmp(f[c_kind], "syscall"))
			*calls += strtoull(f[c_calls], NULL, 10);
	}
	fclose(fp);
	return c_calls < 0 ? -1 : 0;
}

static void calls_of_exited_threads(void)
{
	pthread_t th[CALLS_EXITERS];
	struct tsa_all all = { 0 };
	uint64_t calls = 0, scl = 0;
	unsigned int exited = 0;
	char path[64], line[256];
	FILE *f;
	int found = 0;

	for (int i = 0; i < CALLS_EXITERS; i++)
		pthread_create(&th[i], NULL, calls_exiter, NULL);
	for (int i = 0; i < CALLS_EXITERS; i++)
		pthread_join(th[i], NULL);
	sleep_ms(50);		/* their last switch-outs */
	snprintf(path, sizeof(path), "/proc/tsa/%d", getpid());
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "process-threads %*u %u", &exited);
	if (f)
		fclose(f);
	if (!tsa_read_all(&all)) {
		for (size_t i = 0; i < all.n; i++) {
			if (all.t[i].tid == 0 && all.t[i].pid == getpid() &&
			    (all.t[i].flags & 4)) {
				scl = all.t[i].counters[TSA_SCL];
				found = 1;
			}
		}
		tsa_free_all(&all);
	}
	if (calls_exited_sum(getpid(), &calls))
		found = 0;
	tap(found && exited >= CALLS_EXITERS && calls == scl + exited,
	    "calls: exited threads' calls stay in the process totals, one per call made and one per birth (expected %llu = SCL %llu + %u exited threads, saw %llu)",
	    (unsigned long long)(scl + exited), (unsigned long long)scl,
	    exited, (unsigned long long)calls);
}

static void test_calls(void)
{
	static struct tsa_calls ca, cb;
	struct tsa_thread ta, tb;
	uint64_t rows[TSA_NSTATES] = { 0 }, bad = 0, calls = 0, faults;
	struct win w;
	pthread_t th;
	char c;

	if (access("/proc/tsa/calls", R_OK)) {
		tap(0, "calls: /proc/tsa/calls: %s (tsa.ko loaded with calls=0?)",
		    strerror(errno));
		return;
	}
	snprintf(cw.path, sizeof(cw.path), "%s/calls-test",
		 env_or("TSA_WAIT_DIR", "/mnt/tsa-wait"));
	cw.disk = !strcmp(env_or("TSA_CALLS_DISK", "1"), "1");
	if (pipe(cw.go[0]) || pipe(cw.go[1]) || pipe(cw.data) ||
	    pipe(cw.done)) {
		tap(0, "calls: pipe: %s", strerror(errno));
		return;
	}
	pthread_mutex_lock(&cw.m);
	pthread_create(&th, NULL, calls_worker, NULL);
	while (!__atomic_load_n(&cw.tid, __ATOMIC_SEQ_CST))
		sleep_ms(1);
	if (calls_wait_asleep() || tsa_read_thread_calls(cw.tid, &ta, &ca)) {
		tap(0, "calls: worker %d not parked or unreadable: %s", cw.tid,
		    strerror(errno));
		pthread_mutex_unlock(&cw.m);
		return;
	}
	if (write(cw.go[0][1], "g", 1) != 1)
		cw.err = errno;
	sleep_ms(CALLS_WAIT_MS);
	if (write(cw.data[1], "d", 1) != 1)
		cw.err = errno;
	sleep_ms(CALLS_WAIT_MS);
	pthread_mutex_unlock(&cw.m);
	if (read(cw.done[0], &c, 1) != 1 || calls_wait_asleep() ||
	    tsa_read_thread_calls(cw.tid, &tb, &cb))
		cw.err = errno ? errno : EIO;
	if (write(cw.go[1][1], "g", 1) != 1)
		cw.err = errno;
	pthread_join(th, NULL);
	if (cw.err) {
		tap(0, "calls: worker: %s", strerror(cw.err));
		return;
	}
	win_of(&ta, &tb, &w);
	printf("# calls: worker window %s\n", win_str(&w));
	calls_check(&ca, &cb, "read", 1, 1, TSA_IDL, CALLS_WAIT_MS * 0.8, 50);
	calls_check(&ca, &cb, "futex", 1, 0, TSA_LCK, CALLS_WAIT_MS * 0.5, 50);
	calls_check(&ca, &cb, "clock_nanosleep", 1, 1, TSA_SLP,
		    CALLS_WAIT_MS * 0.95, 50);
	/*
	 * Each O_DIRECT write waits for the device, which dm-delay holds
	 * for about TSA_DISK_DELAY_MS (to its ticks: calls_fsync_check());
	 * fsync waits for its writeback.
	 */
	if (cw.disk) {
		double ms = atof(env_or("TSA_DISK_DELAY_MS", "1"));

		calls_check(&ca, &cb, "pwrite64", CALLS_WRITES + 1, 1, TSA_IOW,
			    CALLS_WRITES * ms, 0);
		calls_fsync_check(&ca, &cb);
	}
	/* Every row's states add up to its time; the rows to the thread's. */
	for (size_t i = 0; i < cb.n; i++) {
		struct tsa_callrow d;
		uint64_t sum = 0;

		calls_delta(&ca, &cb, cb.row[i].name, &d);
		for (int s = 0; s < TSA_NSTATES; s++) {
			sum += d.state_ns[s];
			rows[s] += d.state_ns[s];
		}
		bad += sum != d.ns;
		calls += d.calls;
	}
	/* A row evicted to "other" meanwhile left; "other" holds it now. */
	for (size_t i = 0; i < ca.n; i++) {
		if (tsa_call_find(&cb, ca.row[i].name))
			continue;
		for (int s = 0; s < TSA_NSTATES; s++)
			rows[s] -= ca.row[i].state_ns[s];
		calls -= ca.row[i].calls;
	}
	tap(bad == 0, "calls: each row's states add up to its time (expected 0 rows off, saw %llu)",
	    (unsigned long long)bad);
	faults = w.counters[TSA_MINF] + w.counters[TSA_MAJF];
	for (int s = 0; s < TSA_NSTATES; s++) {
		/* Outside calls: user time, user faults' SYS, preemption. */
		int outside = s == TSA_USR || s == TSA_LAT || s == TSA_TRP ||
			      (s == TSA_SYS && faults) || s == TSA_TFL ||
			      s == TSA_DFL;

		tap(outside ? rows[s] <= w.ns[s] : rows[s] == w.ns[s],
		    "calls: %s inside calls %s the thread's %s (expected %s%llu ns, saw %llu ns; %llu faults in the window)",
		    tsa_state_name(s), outside ? "within" : "equals",
		    tsa_state_name(s), outside ? "<= " : "",
		    (unsigned long long)w.ns[s], (unsigned long long)rows[s],
		    (unsigned long long)faults);
	}
	/*
	 * A call in progress at a read counts: select() at both. So the
	 * calls the rows gained are the calls entered in the window.
	 */
	tap(calls == w.counters[TSA_SCL],
	    "calls: the rows gained one call per system call made (expected SCL %llu, saw %llu)",
	    (unsigned long long)w.counters[TSA_SCL],
	    (unsigned long long)calls);
	calls_of_exited_threads();
}

/* --- hist: distributions of stays (hist=1) --------------------------- */

/*
 * Known answers: a thread that sleeps 1 ms at a time on a CPU of its own
 * has every SLP stay in the buckets of about 1 ms and waits next to
 * nothing for its CPU, while two spinners sharing the other CPU wait
 * scheduler slices (milliseconds) for it. Every state's buckets add up
 * to its entries, in the file and in the process's exited totals.
 */
#define HIST_SLEEPS 200
#define HIST_MS_BUCKET 10	/* (2^-11, 2^-10] s: 0.49 to 0.98 ms */
static atomic_int hist_stop, hist_done;
static pid_t hist_sleeper, hist_spin[2];
static uint64_t hist_t0, hist_t1;
static int hist_pipe[2];

static void *hist_sleep_fn(void *arg __attribute__((unused)))
{
	struct timespec ts = { 0, 1000000 };
	char c;

	pin(0);
	__atomic_store_n(&hist_sleeper, gettid_(), __ATOMIC_SEQ_CST);
	hist_t0 = now_ns();
	for (int i = 0; i < HIST_SLEEPS; i++)
		nanosleep(&ts, NULL);
	hist_t1 = now_ns();
	atomic_store(&hist_done, 1);
	/* Parked in a pipe read while it is read: its SLP books are final. */
	if (read(hist_pipe[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

static void *hist_spin_fn(void *arg)
{
	pin(1);
	__atomic_store_n(&hist_spin[(long)arg], gettid_(), __ATOMIC_SEQ_CST);
	while (!atomic_load(&hist_stop))
		;
	return NULL;
}

static uint64_t hist_count(const struct tsa_histline *l, int from)
{
	uint64_t n = 0;

	for (int b = from; b < l->nb; b++)
		n += l->b[b];
	return n;
}

/*
 * Every line: buckets add up to entries, but for the stay in progress
 * (open); the longest ended by now.
 */
/*
 * hist=lat (the module's default) keeps LAT's buckets alone and no calls'
 * lines; hist=all every off-CPU state's and the calls'.
 */
static int hist_lat_only;

static int hist_has_buckets(int state)
{
	if (state == TSA_HIST_CALL)
		return !hist_lat_only;
	return hist_lat_only ? state == TSA_LAT : state >= TSA_TFL;
}

/* The module's hist parameter: 0, 1 (lat) or 2 (all); -1 unknown. */
static int hist_mode(void)
{
	char v[16] = "";
	FILE *f = fopen("/sys/module/tsa/parameters/hist", "r");

	if (!f)
		return -1;
	if (!fgets(v, sizeof(v), f))
		v[0] = 0;
	fclose(f);
	v[strcspn(v, "\n")] = 0;
	if (!strcmp(v, "lat"))
		return 1;
	if (!strcmp(v, "all") || !strcmp(v, "Y") || !strcmp(v, "1"))
		return 2;
	if (!strcmp(v, "0") || !strcmp(v, "N"))
		return 0;
	return -1;
}

static void hist_check_sums(const char *what, const struct tsa_hists *h)
{
	size_t bad = 0, late = 0, lines = 0;
	char first[160] = "", firstl[160] = "";

	for (size_t i = 0; i < h->n; i++) {
		const struct tsa_histline *l = &h->l[i];
		const char *name = l->state == TSA_HIST_CALL ? l->call :
				   tsa_state_name(l->state);

		if (l->nb != (hist_has_buckets(l->state) ? TSA_HIST_BUCKETS : 0))
			bad++;
		if (l->nb && hist_count(l, 0) + l->open != l->n && !bad++)
			snprintf(first, sizeof(first), ": tid %d %s n %llu buckets %llu open %d",
				 l->tid, name,
				 (unsigned long long)l->n,
				 (unsigned long long)hist_count(l, 0), l->open);
		if (l->open && (l->tid == 0 || l->open_ns > l->ns))
			bad++;
		/*
		 * A hand-over during the read holds numbers up to its clock.
		 * A call's longest has no time (0).
		 */
		if (l->max && l->state != TSA_HIST_CALL &&
		    (l->max_at > (l->at > h->now ? l->at : h->now) ||
			       l->max_at < l->max) && !late++)
			snprintf(firstl, sizeof(firstl), ": tid %d pid %d %s max %llu at %llu, line at %llu",
				 l->tid, l->pid, name,
				 (unsigned long long)l->max,
				 (unsigned long long)l->max_at,
				 (unsigned long long)l->at);
		lines += l->nb > 0;
	}
	tap(h->n && !bad,
	    "hist: %s: each state's (and call's) buckets and its stay (call) in progress add up to its entries (calls) (expected 0 of %zu lines with buckets off, saw %zu%s)",
	    what, lines, bad, first);
	tap(h->n && !late,
	    "hist: %s: each longest stay ended after it began and by the snapshot (expected 0 of %zu lines outside, saw %zu%s)",
	    what, h->n, late, firstl);
}

static void test_hist(void)
{
	const struct tsa_histline *slp, *lat, *sl[2], *tot, *cn, *rd;
	struct tsa_thread t;
	struct tsa_hists h, h2;
	pthread_t th[3];
	int spin_med[2], ok;

	int mode = hist_mode();

	if (mode <= 0) {
		int there = access("/proc/tsa/hist", F_OK) == 0;

		tap(mode == 0 && !there,
		    "hist: off (hist=0): no /proc/tsa/hist (expected hist 0 and none, saw hist %d and %s)",
		    mode, there ? "it" : "none");
		return;
	}
	hist_lat_only = mode == 1;
	if (pipe(hist_pipe)) {
		tap(0, "hist: pipe: %s", strerror(errno));
		return;
	}
	atomic_store(&hist_stop, 0);
	atomic_store(&hist_done, 0);
	pthread_create(&th[1], NULL, hist_spin_fn, (void *)0L);
	pthread_create(&th[2], NULL, hist_spin_fn, (void *)1L);
	sleep_ms(50);
	pthread_create(&th[0], NULL, hist_sleep_fn, NULL);
	while (!atomic_load(&hist_done))
		sleep_ms(10);
	sleep_ms(20);
	ok = !tsa_read_hist(&h) && !tsa_read_thread(hist_sleeper, &t);
	atomic_store(&hist_stop, 1);
	if (write(hist_pipe[1], "x", 1) != 1)
		ok = 0;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	close(hist_pipe[0]);
	close(hist_pipe[1]);
	if (!ok) {
		tap(0, "hist: read /proc/tsa/hist and /proc/tsa/%d: %s",
		    hist_sleeper, strerror(errno));
		return;
	}
	hist_check_sums("live threads", &h);
	slp = tsa_hist_find(&h, hist_sleeper, getpid(), TSA_SLP);
	lat = tsa_hist_find(&h, hist_sleeper, getpid(), TSA_LAT);
	for (int i = 0; i < 2; i++) {
		sl[i] = tsa_hist_find(&h, hist_spin[i], getpid(), TSA_LAT);
		spin_med[i] = sl[i] ? tsa_hist_quantile(sl[i], 0.5) : -1;
	}
	/*
	 * Not every one: the emulator can stall a vCPU between arming the
	 * timer and leaving the CPU, and the thread then sleeps less, or
	 * not at all (the timer fired before it could leave).
	 */
	if (hist_lat_only) {
		size_t calls = 0;

		for (size_t i = 0; i < h.n; i++)
			calls += h.l[i].state == TSA_HIST_CALL;
		tap(slp && !slp->nb && lat && lat->nb && !calls,
		    "hist=lat: the sleeper's SLP line has no buckets, its LAT line has them, and no call has a line (expected 0, %d, 0 calls' lines; saw %d, %d, %zu)",
		    TSA_HIST_BUCKETS, slp ? slp->nb : -1, lat ? lat->nb : -1,
		    calls);
	} else
	tap(slp && slp->n >= HIST_SLEEPS * 95 / 100 &&
	    hist_count(slp, HIST_MS_BUCKET) >= HIST_SLEEPS * 95 / 100 &&
	    tsa_hist_quantile(slp, 0.5) >= HIST_MS_BUCKET &&
	    tsa_hist_quantile(slp, 0.5) <= HIST_MS_BUCKET + 2,
	    "hist: %d sleeps of 1 ms are SLP stays over 0.49 ms, the median at most 3.9 ms (expected >= %d stays, as many from bucket %d, median bucket %d-%d; saw %llu stays, %llu from bucket %d, median bucket %d)",
	    HIST_SLEEPS, HIST_SLEEPS * 95 / 100, HIST_MS_BUCKET, HIST_MS_BUCKET,
	    HIST_MS_BUCKET + 2, slp ? (unsigned long long)slp->n : 0ULL,
	    slp ? (unsigned long long)hist_count(slp, HIST_MS_BUCKET) : 0ULL,
	    HIST_MS_BUCKET, slp ? tsa_hist_quantile(slp, 0.5) : -1);
	tap(slp && slp->n == t.entries[TSA_SLP] && slp->ns == t.ns[TSA_SLP] &&
	    slp->max == t.longest[TSA_SLP] &&
	    slp->max_at >= hist_t0 && slp->max_at <= hist_t1,
	    "hist: the sleeper's SLP line is its /proc/tsa/<tid> book, its longest sleep ended inside its loop (expected n %llu ns %llu max %llu, at %llu-%llu; saw n %llu ns %llu max %llu at %llu)",
	    (unsigned long long)t.entries[TSA_SLP],
	    (unsigned long long)t.ns[TSA_SLP],
	    (unsigned long long)t.longest[TSA_SLP],
	    (unsigned long long)hist_t0, (unsigned long long)hist_t1,
	    slp ? (unsigned long long)slp->n : 0ULL,
	    slp ? (unsigned long long)slp->ns : 0ULL,
	    slp ? (unsigned long long)slp->max : 0ULL,
	    slp ? (unsigned long long)slp->max_at : 0ULL);
	/*
	 * Its calls: each clock_nanosleep() of 1 ms counted in a bucket of
	 * about 1 ms when it returned (as its SLP stay, a little longer:
	 * the call's time on CPU too); the read() it is parked in counted,
	 * but open, in no bucket yet.
	 */
	cn = tsa_hist_find_call(&h, hist_sleeper, getpid(), "clock_nanosleep");
	rd = tsa_hist_find_call(&h, hist_sleeper, getpid(), "read");
	if (!hist_lat_only)
	tap(cn && slp && cn->n >= HIST_SLEEPS && !cn->open &&
	    hist_count(cn, 0) == cn->n &&
	    hist_count(cn, HIST_MS_BUCKET) >= HIST_SLEEPS * 95 / 100 &&
	    tsa_hist_quantile(cn, 0.5) >= HIST_MS_BUCKET &&
	    tsa_hist_quantile(cn, 0.5) <= HIST_MS_BUCKET + 2 &&
	    rd && rd->open == 1 && hist_count(rd, 0) + 1 == rd->n,
	    "hist: the sleeper's %d calls of clock_nanosleep, each in a bucket of its duration (over 0.49 ms, the median at most 3.9 ms), and the read() it waits in open (expected >= %d calls all in buckets, >= %d from bucket %d, median bucket %d-%d; read open 1 beside its buckets; saw %llu calls, %llu in buckets, %llu from bucket %d, median %d, open %d; read %llu calls, %llu in buckets, open %d)",
	    HIST_SLEEPS, HIST_SLEEPS, HIST_SLEEPS * 95 / 100, HIST_MS_BUCKET,
	    HIST_MS_BUCKET, HIST_MS_BUCKET + 2,
	    cn ? (unsigned long long)cn->n : 0ULL,
	    cn ? (unsigned long long)hist_count(cn, 0) : 0ULL,
	    cn ? (unsigned long long)hist_count(cn, HIST_MS_BUCKET) : 0ULL,
	    HIST_MS_BUCKET, cn ? tsa_hist_quantile(cn, 0.5) : -1,
	    cn ? cn->open : -1, rd ? (unsigned long long)rd->n : 0ULL,
	    rd ? (unsigned long long)hist_count(rd, 0) : 0ULL,
	    rd ? rd->open : -1);
	/*
	 * A slice is a tick (4 ms) on CFS, about 1.5 ms on EEVDF (6.6 on)
	 * with two CPUs: half a millisecond is below both.
	 */
	tap(lat && spin_med[0] >= HIST_MS_BUCKET &&
	    spin_med[1] >= HIST_MS_BUCKET &&
	    tsa_hist_quantile(lat, 0.5) < spin_med[0] &&
	    tsa_hist_quantile(lat, 0.5) < spin_med[1],
	    "hist: two spinners sharing a CPU wait slices for it (median LAT bucket >= 10, over 0.49 ms), the sleeper alone on its CPU less (expected spinners >= 10 and the sleeper below both; saw spinners %d and %d (%llu, %llu stays), sleeper %d (%llu stays))",
	    spin_med[0], spin_med[1],
	    sl[0] ? (unsigned long long)sl[0]->n : 0ULL,
	    sl[1] ? (unsigned long long)sl[1]->n : 0ULL,
	    lat ? tsa_hist_quantile(lat, 0.5) : -1,
	    lat ? (unsigned long long)lat->n : 0ULL);
	/* The three have exited: their stays are in the process's totals. */
	if (tsa_read_hist(&h2)) {
		tap(0, "hist: read /proc/tsa/hist again: %s", strerror(errno));
		tsa_free_hist(&h);
		return;
	}
	hist_check_sums("after the threads exited", &h2);
	/* hist=lat: its LAT stays, the only ones with buckets. */
	if (hist_lat_only)
		slp = lat;
	tot = tsa_hist_find(&h2, 0, getpid(), slp ? slp->state : TSA_SLP);
	ok = tot && slp;
	for (int b = 0; ok && b < TSA_HIST_BUCKETS; b++)
		ok = tot->b[b] >= slp->b[b];
	tap(ok, "hist: the exited sleeper's %s stays are in its process's totals, bucket by bucket (expected each bucket >= the sleeper's, %llu stays; saw %llu)",
	    hist_lat_only ? "LAT" : "SLP",
	    slp ? (unsigned long long)slp->n : 0ULL,
	    tot ? (unsigned long long)tot->n : 0ULL);
	tsa_free_hist(&h);
	tsa_free_hist(&h2);
}

static const struct tsa_test tests[] = {
	{ "lck", test_lck },
	{ "klk", test_klk },
	{ "iow", test_iow },
	{ "dfl", test_dfl },
	{ "tfl", test_tfl },
	{ "apg", test_apg },
	{ "idl", test_idl },
	{ "sig", test_sig },
	{ "trp-off", test_trp_off },
	{ "trp-on", test_trp_on },
	{ "degraded", test_degraded_list },
	{ "degraded-work", test_degraded_work },
	{ "allsum", test_allsum },
	{ "calls", test_calls },
	{ "traps", test_traps },
	{ "hist", test_hist },
};

int main(int argc, char **argv)
{
	return tsa_test_main("tsa-wtest", tests, sizeof(tests) / sizeof(tests[0]),
			     argc, argv);
}
