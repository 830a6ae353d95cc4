// SPDX-License-Identifier: GPL-2.0
/*
 * tsa-selftest: a thread reads its own microstates. The binary read (the
 * ioctl of module/uapi/tsa.h) against the text of the same file and the
 * clock, its errors and its size negotiation; then libtsa (userspace/libtsa)
 * on workloads whose answer is known: between two reads, a 50 ms sleep is
 * 50 ms of SLP, a spin USR, a wait for a mutex another thread holds LCK,
 * a spinner on the same CPU LAT, an O_DIRECT read IOW (TSA_WAIT_DIR: a
 * block device's file system), by the binary read and by the text file;
 * and a pool thread's per-task deltas. Runs in a guest with tsa.ko loaded;
 * prints TAP (tsa_test_main()).
 *
 *   tsa-selftest [--first N] [self-...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../../module/uapi/tsa.h"
#include "tsa-read.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int open_self(void)
{
	return open("/proc/tsa/thread-self", O_RDONLY | O_CLOEXEC);
}

/* --- the ioctl ----------------------------------------------------------- */

static void test_ioctl_agree(void)
{
	struct tsa_self b1, b2;
	struct tsa_thread t;
	uint64_t t0, t1, sum = 0;
	int fd = open_self(), ok = 1, i, r1, r2, rt;

	if (fd < 0) {
		tap(0, "self-ioctl: open /proc/tsa/thread-self: %s", strerror(errno));
		return;
	}
	t0 = mono_ns();
	r1 = ioctl(fd, TSA_IOC_SELF, &b1);
	rt = tsa_pread_thread(fd, &t);
	r2 = ioctl(fd, TSA_IOC_SELF, &b2);
	t1 = mono_ns();
	if (r1 || r2 || rt) {
		tap(0, "self-ioctl: ioctl %d, text %d, ioctl %d: %s", r1, rt, r2,
		    strerror(errno));
		close(fd);
		return;
	}
	tap(b1.size == sizeof(b1) && b1.version == TSA_SELF_VERSION &&
	    b1.nr_states == TSA_NSTATES && b1.nr_counters == TSA_NCOUNTERS,
	    "self-ioctl: size %u version %u states %u counters %u (expected %zu %d %d %d)",
	    b1.size, b1.version, b1.nr_states, b1.nr_counters, sizeof(b1),
	    TSA_SELF_VERSION, TSA_NSTATES, TSA_NCOUNTERS);
	tap(b1.tid == gettid_() && b1.pid == getpid(),
	    "self-ioctl: tid %d pid %d (expected %d %d)", b1.tid, b1.pid,
	    gettid_(), getpid());
	tap(t0 <= b1.now && b1.now <= b2.now && b2.now <= t1,
	    "self-ioctl: read at CLOCK_MONOTONIC: %llu <= %llu <= %llu <= %llu",
	    (unsigned long long)t0, (unsigned long long)b1.now,
	    (unsigned long long)b2.now, (unsigned long long)t1);
	for (i = 0; i < TSA_NSTATES; i++)
		sum += b1.ns[i];
	tap(sum == b1.elapsed && b1.state == TSA_SYS &&
	    b1.state_since <= b1.now,
	    "self-ioctl: states sum to elapsed (%llu, %llu), in SYS (saw %s) since %llu <= now",
	    (unsigned long long)sum, (unsigned long long)b1.elapsed,
	    tsa_state_name(b1.state), (unsigned long long)b1.state_since);
	/* The text was copied between the two binary reads. */
	for (i = 0; i < TSA_NSTATES; i++)
		if (b1.ns[i] > t.ns[i] || t.ns[i] > b2.ns[i]) {
			ok = 0;
			printf("# %s: %llu, text %llu, %llu\n", tsa_state_name(i),
			       (unsigned long long)b1.ns[i],
			       (unsigned long long)t.ns[i],
			       (unsigned long long)b2.ns[i]);
		}
	for (i = 0; i < TSA_NCOUNTERS; i++)
		if (b1.count[i] > t.counters[i] || t.counters[i] > b2.count[i]) {
			ok = 0;
			printf("# %s: %llu, text %llu, %llu\n",
			       tsa_counter_names[i],
			       (unsigned long long)b1.count[i],
			       (unsigned long long)t.counters[i],
			       (unsigned long long)b2.count[i]);
		}
	for (i = TSA_NSTATES; i < TSA_SELF_STATES; i++)
		ok &= b1.ns[i] == 0;
	for (i = TSA_NCOUNTERS; i < TSA_SELF_COUNTERS; i++)
		ok &= b1.count[i] == 0;
	tap(ok && b2.count[TSA_SCL] >= b1.count[TSA_SCL] + 2 &&
	    t.elapsed >= b1.elapsed && t.elapsed <= b2.elapsed,
	    "self-ioctl: text read between two binary reads lies between them, every state and counter (SCL %llu -> %llu, +2 at least)",
	    (unsigned long long)b1.count[TSA_SCL],
	    (unsigned long long)b2.count[TSA_SCL]);
	close(fd);
}

struct other {
	int fd;			/* a file of the main thread's, or -1 */
	int ret, err;
};

static void *other_thread(void *arg)
{
	struct other *o = arg;
	struct tsa_self s;

	o->ret = ioctl(o->fd, TSA_IOC_SELF, &s);
	o->err = errno;
	return NULL;
}

static void test_ioctl_errors(void)
{
	unsigned char big[600];
	struct tsa_self s;
	struct termios tio;
	struct other o;
	pthread_t th;
	char path[64];
	int fd = open_self(), r, e, i, zero = 1;
	uint64_t deadline;

	if (fd < 0) {
		tap(0, "self-errors: open: %s", strerror(errno));
		return;
	}
	r = ioctl(fd, _IOC(_IOC_READ, TSA_IOC_MAGIC, 2, sizeof(s)), &s);
	e = errno;
	tap(r == -1 && e == ENOTTY, "self-errors: unknown ioctl nr: ENOTTY (saw %d %s)",
	    r, strerror(e));
	r = ioctl(fd, _IOC(_IOC_WRITE, TSA_IOC_MAGIC, TSA_IOC_SELF_NR, sizeof(s)), &s);
	e = errno;
	tap(r == -1 && e == ENOTTY, "self-errors: wrong direction: ENOTTY (saw %d %s)",
	    r, strerror(e));
	r = tcgetattr(fd, &tio);
	e = errno;
	tap(r == -1 && e == ENOTTY, "self-errors: tcgetattr: ENOTTY (saw %d %s)",
	    r, strerror(e));
	r = ioctl(fd, TSA_IOC_SELF_SIZE(TSA_SELF_SIZE_VER1 - 8), &s);
	e = errno;
	tap(r == -1 && e == EINVAL, "self-errors: size %d: EINVAL (saw %d %s)",
	    TSA_SELF_SIZE_VER1 - 8, r, strerror(e));
	r = ioctl(fd, TSA_IOC_SELF, (void *)8);
	e = errno;
	tap(r == -1 && e == EFAULT, "self-errors: bad pointer: EFAULT (saw %d %s)",
	    r, strerror(e));
	/* A newer caller's bigger struct: the module's fields, zeros after. */
	memset(big, 0xa5, sizeof(big));
	r = ioctl(fd, TSA_IOC_SELF_SIZE(sizeof(big)), big);
	e = errno;
	memcpy(&s, big, sizeof(s));
	for (i = sizeof(s); i < (int)sizeof(big); i++)
		zero &= big[i] == 0;
	tap(r == 0 && s.size == sizeof(s) && s.tid == gettid_() && zero,
	    "self-errors: a %zu-byte struct: ok, size %u (expected %zu), the rest zeroed (%s) (ret %d %s)",
	    sizeof(big), s.size, sizeof(s), zero ? "yes" : "no", r,
	    r ? strerror(e) : "");
	/* Another thread may not use this thread's file. */
	o.fd = fd;
	pthread_create(&th, NULL, other_thread, &o);
	pthread_join(th, NULL);
	tap(o.ret == -1 && o.err == EPERM,
	    "self-errors: another thread's ioctl on thread-self of this one: EPERM (saw %d %s)",
	    o.ret, strerror(o.err));
	close(fd);
	/* /proc/tsa/<tid> of one's own: fine; of another thread: EPERM. */
	snprintf(path, sizeof(path), "/proc/tsa/%d", gettid_());
	deadline = mono_ns() + 2000000000ULL;
	while ((fd = open(path, O_RDONLY)) < 0 && mono_ns() < deadline)
		sleep_ms(10);
	if (fd < 0) {
		tap(0, "self-errors: open %s: %s", path, strerror(errno));
		return;
	}
	r = ioctl(fd, TSA_IOC_SELF, &s);
	e = errno;
	tap(r == 0 && s.tid == gettid_(), "self-errors: ioctl on %s, its own: ok (saw %d %s, tid %d)",
	    path, r, r ? strerror(e) : "", s.tid);
	o.fd = fd;
	pthread_create(&th, NULL, other_thread, &o);
	pthread_join(th, NULL);
	tap(o.ret == -1 && o.err == EPERM,
	    "self-errors: another thread's ioctl on %s: EPERM (saw %d %s)",
	    path, o.ret, strerror(o.err));
	close(fd);
	/* /proc/tsa/self from the leader (this thread): its own. */
	fd = open("/proc/tsa/self", O_RDONLY);
	r = fd < 0 ? -1 : ioctl(fd, TSA_IOC_SELF, &s);
	e = errno;
	tap(r == 0 && s.tid == getpid(), "self-errors: the leader's ioctl on /proc/tsa/self: ok (saw %d %s)",
	    r, r ? strerror(e) : "");
	if (fd >= 0)
		close(fd);
}

static const struct tsa_test tests[] = {
	{ "self-ioctl", test_ioctl_agree },
	{ "self-errors", test_ioctl_errors },
};

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	return tsa_test_main("tsa-selftest", tests,
			     sizeof(tests) / sizeof(tests[0]), argc, argv);
}
