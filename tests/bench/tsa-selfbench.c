// SPDX-License-Identifier: GPL-2.0
/*
 * tsa-selfbench: what a thread pays to read itself, by each way, beside
 * the kernel's own per-thread reads (make bench, tests/guest/bench.sh):
 *
 *   clock_gettime(CLOCK_MONOTONIC)          the vDSO: no system call
 *   clock_gettime(CLOCK_THREAD_CPUTIME_ID)  one system call, on-CPU time
 *   getrusage(RUSAGE_THREAD)                one system call, user/sys time
 *   /proc/thread-self/schedstat             pread of an open file + parse
 *   taskstats                               a genetlink query of its own tid
 *                                           (delay accounting: ClickHouse's)
 *   tsa ioctl                               TSA_IOC_SELF (module/uapi/tsa.h)
 *   libtsa ioctl                            tsa_self_read(), the same call
 *   libtsa text                             tsa_self_read(), the text way
 *   libtsa mapped                           tsa_self_read(), the mapped slot
 *   tsa mapped                              the slot (struct tsa_slot) copied
 *                                           under its sequence count, and the
 *                                           vDSO clock: no system call
 *   getppid, unregistered / registered      a null system call of a thread
 *                                           without a slot and with one: what
 *                                           a registered thread pays per event
 *
 * Run in a thread that is not its process's leader: a leader's file also
 * sums its process, which the text way would pay for. Prints "NAME NS"
 * per way, ns per read, the best of 5 batches of N.
 *
 *   tsa-selfbench N
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../module/uapi/tsa.h"
#include "../../userspace/libtsa/tsa.h"

static long n;
static int failed;
static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int schedstat_fd, tsa_fd;

static int way_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	sink += ts.tv_nsec;
	return 0;
}

static int way_cputime(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return -1;
	sink += ts.tv_nsec;
	return 0;
}

static int way_rusage(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	sink += ru.ru_utime.tv_usec;
	return 0;
}

static int way_schedstat(void)
{
	char buf[128], *end;
	uint64_t v[3];
	ssize_t len = pread(schedstat_fd, buf, sizeof(buf) - 1, 0);
	int i;

	if (len <= 0)
		return -1;
	buf[len] = 0;
	end = buf;
	for (i = 0; i < 3; i++)
		v[i] = strtoull(end, &end, 10);
	sink += v[0] + v[1] + v[2];
	return 0;
}

static int way_ioctl(void)
{
	struct tsa_self s;

	if (ioctl(tsa_fd, TSA_IOC_SELF, &s))
		return -1;
	sink += s.ns[0];
	return 0;
}

static int way_libtsa(void)
{
	struct tsa_snap s;

	if (tsa_self_read(&s))
		return -1;
	sink += s.ns[0];
	return 0;
}

/* --- taskstats: one request and its answer on a genetlink socket --- */

struct nlmsg {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char buf[1024];
};

static int nl_fd = -1, nl_family;
static uint32_t nl_tid;

static void nl_attr(struct nlmsg *m, uint16_t type, const void *data,
		    uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)m +
					     NLMSG_ALIGN(m->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	m->n.nlmsg_len = NLMSG_ALIGN(m->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static int nl_ask(uint16_t type, uint8_t cmd, uint16_t attr,
		  const void *data, uint16_t len, struct nlmsg *ans)
{
	struct nlmsg m = { 0 };
	ssize_t got;

	m.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m.n.nlmsg_type = type;
	m.n.nlmsg_flags = NLM_F_REQUEST;
	m.g.cmd = cmd;
	m.g.version = 1;
	nl_attr(&m, attr, data, len);
	if (send(nl_fd, &m, m.n.nlmsg_len, 0) < 0)
		return -1;
	got = recv(nl_fd, ans, sizeof(*ans), 0);
	if (got < (ssize_t)NLMSG_LENGTH(GENL_HDRLEN) ||
	    ans->n.nlmsg_type == NLMSG_ERROR) {
		errno = got < 0 ? errno : EPROTO;
		return -1;
	}
	return 0;
}

/* The TASKSTATS family's id; -1 where the kernel or the caller cannot. */
static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nlmsg ans;
	struct nlattr *a;
	int left;

	nl_tid = syscall(SYS_gettid);
	nl_fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (nl_fd < 0 || bind(nl_fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	if (nl_ask(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		   TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME), &ans))
		return -1;
	left = ans.n.nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	for (a = (struct nlattr *)ans.buf; left >= NLA_HDRLEN &&
	     a->nla_len >= NLA_HDRLEN && a->nla_len <= left;
	     left -= NLA_ALIGN(a->nla_len),
	     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			nl_family = *(uint16_t *)((char *)a + NLA_HDRLEN);
	return nl_family ? 0 : -1;
}

static int way_taskstats(void)
{
	struct nlmsg ans;

	if (nl_ask(nl_family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_PID,
		   &nl_tid, sizeof(nl_tid), &ans))
		return -1;
	sink += ans.n.nlmsg_len;
	return 0;
}

static const struct tsa_slot *slot;

/* A consistent copy of what a reader needs, and the state charged to now. */
static int way_mapped(void)
{
	uint64_t stamp, ns, now;
	uint32_t seq;
	unsigned int st;

	do {
		seq = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
		st = slot->state;
		stamp = slot->stamp;
		ns = slot->ns[st < TSA_SELF_STATES ? st : 0];
		now = now_ns();		/* inside: see libtsa's read_mapped() */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || __atomic_load_n(&slot->seq, __ATOMIC_RELAXED) != seq);
	sink += ns + (now > stamp ? now - stamp : 0);
	return 0;
}

static int way_getppid(void)
{
	sink += syscall(SYS_getppid);
	return 0;
}

static double best(const char *name, int (*way)(void))
{
	uint64_t t0, b = UINT64_MAX;
	int round;
	long i;

	for (round = 0; round < 5; round++) {
		t0 = now_ns();
		for (i = 0; i < n; i++)
			if (way()) {
				fprintf(stderr, "tsa-selfbench: %s: %s\n", name,
					strerror(errno));
				failed = 1;
				return 0;
			}
		t0 = now_ns() - t0;
		if (t0 < b)
			b = t0;
	}
	printf("%s %.1f\n", name, (double)b / n);
	return (double)b / n;
}

static void *bench(void *arg)
{
	(void)arg;
	schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY);
	tsa_fd = open("/proc/tsa/thread-self", O_RDONLY);
	if (schedstat_fd < 0 || tsa_fd < 0) {
		perror("tsa-selfbench: open");
		failed = 1;
		return NULL;
	}
	best("clock_gettime(CLOCK_MONOTONIC)", way_mono);
	best("clock_gettime(CLOCK_THREAD_CPUTIME_ID)", way_cputime);
	best("getrusage(RUSAGE_THREAD)", way_rusage);
	best("/proc/thread-self/schedstat", way_schedstat);
	if (nl_open())
		printf("# taskstats: not here (%s): no line\n", strerror(errno));
	else
		best("taskstats", way_taskstats);
	best("tsa-ioctl", way_ioctl);
	best("getppid-unregistered", way_getppid);
	unsetenv("TSA_SELF_TEXT");
	setenv("TSA_SELF_NO_MAP", "1", 1);
	if (tsa_self_open() != TSA_HOW_IOCTL) {
		fprintf(stderr, "tsa-selfbench: libtsa does not take the ioctl\n");
		failed = 1;
	}
	best("libtsa-ioctl", way_libtsa);
	tsa_self_close();
	setenv("TSA_SELF_TEXT", "1", 1);
	if (tsa_self_open() != TSA_HOW_TEXT) {
		fprintf(stderr, "tsa-selfbench: libtsa does not take the text\n");
		failed = 1;
	}
	best("libtsa-text", way_libtsa);
	tsa_self_close();
	unsetenv("TSA_SELF_TEXT");
	unsetenv("TSA_SELF_NO_MAP");
	if (tsa_self_open() != TSA_HOW_MAPPED) {
		fprintf(stderr, "tsa-selfbench: libtsa does not take the slot\n");
		failed = 1;
	}
	best("libtsa-mapped", way_libtsa);
	tsa_self_close();
	if (ioctl(tsa_fd, TSA_IOC_SLOT) ||
	    (slot = mmap(NULL, 4096, PROT_READ, MAP_SHARED, tsa_fd, 0)) ==
	    MAP_FAILED) {
		perror("tsa-selfbench: the slot");
		failed = 1;
		return NULL;
	}
	best("tsa-mapped", way_mapped);
	best("getppid-registered", way_getppid);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	n = argc > 1 ? atol(argv[1]) : 10000;
	if (n <= 0)
		return 2;
	pthread_create(&t, NULL, bench, NULL);
	pthread_join(t, NULL);
	return failed;
}
