// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libtsa: a thread reads its own microstates (tsa.h, tsa_self(3)).
 *
 * Each thread keeps its own open /proc/tsa/thread-self in thread-local
 * storage: the module answers the binary read only on the caller's own
 * thread's file, and a handle per thread needs no lock. A key's
 * destructor closes it when the thread exits. A fork's child inherits the
 * forking thread's handle, which is its parent's thread's file: a fork
 * counter (pthread_atfork) tells a handle from before the fork, which is
 * then opened again, as is a handle that stops working (its module was
 * reloaded). A read allocates nothing: the ioctl fills a struct
 * on the stack, the text is parsed from a buffer on the stack.
 *
 * Where the module offers it, the handle registers the thread's slot and
 * maps it (uapi/tsa.h, struct tsa_slot): a read is then a copy of the page
 * under its sequence count and a vDSO clock read. A fork's child has no
 * such mapping (the kernel does not copy it): the fork counter is tested
 * before the page is touched, and the child's handle is dropped without
 * munmap(), whose range may hold the child's own mappings by then. A slot
 * that ended (exit, exec, tsa reloaded) or that another registration
 * replaced sends the read to the ioctl, once on a fresh handle.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../module/uapi/tsa.h"
#include "tsa.h"
#include "text.h"

#define TSA_PUBLIC __attribute__((visibility("default")))
#define TSA_SELF_PATH "/proc/tsa/thread-self"

static const char *const state_names[] = {
#define TSA_STATE(name, what)	#name,
#include "../../module/tsa_states.h"
};
static const char *const state_whats[] = {
#define TSA_STATE(name, what)	what,
#include "../../module/tsa_states.h"
};
static const char *const counter_names[] = {
#define TSA_COUNTER(name, what)	#name,
#include "../../module/tsa_states.h"
};
_Static_assert(sizeof(state_names) / sizeof(state_names[0]) == TSA_ST_KNOWN,
	       "tsa.h's enum tsa_st is tsa_states.h's list");
_Static_assert(sizeof(counter_names) / sizeof(counter_names[0]) == TSA_CT_KNOWN,
	       "tsa.h's enum tsa_ct is tsa_states.h's list");
_Static_assert(TSA_SNAP_STATES >= TSA_SELF_STATES &&
	       TSA_SNAP_COUNTERS >= TSA_SELF_COUNTERS,
	       "a snapshot holds all a module can say");

static __thread int self_fd = -1;
static __thread int self_how;		/* enum tsa_how, while open */
static __thread unsigned int self_forks;	/* forks when it was opened */
static __thread const struct tsa_slot *self_slot;	/* mapped, or NULL */
static __thread uint64_t self_gen;	/* its generation when mapped */
static __thread int self_pid;		/* not in the slot: from the ioctl */
static __thread uint32_t self_degraded;

static atomic_uint forks;
static pthread_key_t exit_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void at_fork_child(void)
{
	atomic_fetch_add_explicit(&forks, 1, memory_order_relaxed);
}

static void at_thread_exit(void *unused)
{
	(void)unused;
	tsa_self_close();
}

static void init_once(void)
{
	pthread_key_create(&exit_key, at_thread_exit);
	pthread_atfork(NULL, NULL, at_fork_child);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

TSA_PUBLIC void tsa_self_close(void)
{
	/* Not in a fork's child: the page is not mapped there. */
	if (self_slot &&
	    self_forks == atomic_load_explicit(&forks, memory_order_relaxed))
		munmap((void *)self_slot, sizeof(*self_slot));
	self_slot = NULL;
	if (self_fd >= 0)
		close(self_fd);
	self_fd = -1;
	self_how = TSA_HOW_NONE;
}

/* Tries of a copy before a writer is taken to be stuck: the ioctl then. */
#define TSA_SLOT_TRIES	1000

/*
 * A copy of the slot under its sequence count, its state in progress
 * charged up to now as the module charges it (tsa_acct_close(): in USR,
 * the first @head ns are SYS). ESTALE: it ended or was registered again.
 */
static int read_mapped(struct tsa_snap *s)
{
	const struct tsa_slot *m = self_slot;
	unsigned int i, tries = 0, nst, nct, st, flags;
	uint64_t now, stamp, head, stay, gen, sum = 0;
	uint32_t seq;
	int tid;

	/*
	 * Only the fields and the entries in use are copied, straight into
	 * @s. The clock inside the section: an event between the copy and
	 * the clock (an interrupt, a preemption) would otherwise be charged
	 * to the copied state, and taken back by the next read. Any event
	 * after the second look at @seq stamps no earlier than this clock.
	 */
	for (;;) {
		seq = __atomic_load_n(&m->seq, __ATOMIC_ACQUIRE);
		if (!(seq & 1)) {
			gen = m->generation;
			flags = m->flags;
			tid = m->tid;
			nst = m->nr_states;
			nct = m->nr_counters;
			st = m->state;
			head = m->head;
			stamp = m->stamp;
			if (nst > TSA_SELF_STATES)
				nst = TSA_SELF_STATES;
			if (nct > TSA_SELF_COUNTERS)
				nct = TSA_SELF_COUNTERS;
			for (i = 0; i < nst; i++)
				s->ns[i] = m->ns[i];
			for (i = 0; i < nct; i++)
				s->count[i] = m->count[i];
			now = mono_ns();
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&m->seq, __ATOMIC_RELAXED) == seq)
				break;
		}
		if (++tries == TSA_SLOT_TRIES) {
			errno = ESTALE;
			return -1;
		}
	}
	if ((flags & (TSA_SLOT_ENDED | TSA_SLOT_NOT_LIVE)) ||
	    gen != self_gen || st >= nst) {
		errno = ESTALE;
		return -1;
	}
	if (now < stamp)
		now = stamp;
	stay = now - stamp;
	if (st == TSA_ST_USR && nst > TSA_ST_SYS) {
		head = head < stay ? head : stay;
		s->ns[TSA_ST_SYS] += head;
		stay -= head;
	}
	s->ns[st] += stay;
	for (i = 0; i < nst; i++)
		sum += s->ns[i];
	for (i = nst; i < TSA_SNAP_STATES; i++)
		s->ns[i] = 0;
	for (i = nct; i < TSA_SNAP_COUNTERS; i++)
		s->count[i] = 0;
	s->how = TSA_HOW_MAPPED;
	s->tid = tid;
	s->pid = self_pid;
	s->nr_states = nst;
	s->nr_counters = nct;
	s->state = st;
	s->flags = (flags & TSA_SLOT_SINCE_LOAD) ? TSA_SNAP_SINCE_LOAD : 0;
	s->degraded = self_degraded;
	s->at = now;
	s->state_since = stamp;
	s->elapsed = sum;
	return 0;
}

/* TSA_SELF_NO_MAP=1 in the environment: no slot, to compare the ways. */
static int no_map(void)
{
	const char *v = getenv("TSA_SELF_NO_MAP");

	return v && !strcmp(v, "1");
}

/* Register and map the thread's slot: 0, or -1 (the ioctl is used). */
static int map_slot(void)
{
	const struct tsa_slot *m;
	void *p;

	if (no_map() || ioctl(self_fd, TSA_IOC_SLOT))
		return -1;
	p = mmap(NULL, sizeof(*m), PROT_READ, MAP_SHARED, self_fd, 0);
	if (p == MAP_FAILED)
		return -1;
	m = p;
	if (__atomic_load_n(&m->version, __ATOMIC_RELAXED) != TSA_SLOT_VERSION) {
		munmap(p, sizeof(*m));
		return -1;
	}
	self_gen = m->generation;
	self_slot = m;
	return 0;
}

static int read_ioctl(struct tsa_snap *s)
{
	struct tsa_self k;
	unsigned int i;

	if (ioctl(self_fd, TSA_IOC_SELF, &k))
		return -1;
	memset(s, 0, sizeof(*s));
	s->how = TSA_HOW_IOCTL;
	s->tid = k.tid;
	s->pid = k.pid;
	s->nr_states = k.nr_states < TSA_SELF_STATES ? k.nr_states : TSA_SELF_STATES;
	s->nr_counters = k.nr_counters < TSA_SELF_COUNTERS ? k.nr_counters : TSA_SELF_COUNTERS;
	s->state = k.state;
	s->flags = (k.flags & TSA_SELF_SINCE_LOAD) ? TSA_SNAP_SINCE_LOAD : 0;
	s->degraded = k.degraded;
	s->at = k.now;
	s->state_since = k.state_since;
	s->elapsed = k.elapsed;
	for (i = 0; i < s->nr_states; i++)
		s->ns[i] = k.ns[i];
	for (i = 0; i < s->nr_counters; i++)
		s->count[i] = k.count[i];
	return 0;
}

/*
 * The text, read from its start in pieces of one show (seq_file serves
 * the pieces of a read from the copy its first piece made), parsed line
 * by line until the counters are in.
 */
static int read_text(struct tsa_snap *s)
{
	char buf[4096];
	size_t len = 0, skip = 0;
	struct tsa_text p;
	uint64_t at = 0;
	char *nl, *line;
	ssize_t n;

	tsa_text_begin(&p, s);
	if (lseek(self_fd, 0, SEEK_SET) < 0)
		return -1;
	for (;;) {
		n = read(self_fd, buf + len, sizeof(buf) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!at)
			at = mono_ns();
		if (n == 0)
			break;
		len += n;
		line = buf;
		while ((nl = memchr(line, '\n', buf + len - line))) {
			if (!skip)
				tsa_text_line(&p, line, nl - line);
			skip = 0;
			line = nl + 1;
		}
		if (p.seen & (TSA_TEXT_DONE | TSA_TEXT_BAD))
			break;
		len = buf + len - line;
		memmove(buf, line, len);
		if (len == sizeof(buf)) {	/* a line longer than any of ours */
			len = 0;
			skip = 1;
		}
	}
	return tsa_text_end(&p, at);
}

/* TSA_SELF_TEXT=1 in the environment: the text, to compare the ways. */
static int force_text(void)
{
	const char *v = getenv("TSA_SELF_TEXT");

	return v && !strcmp(v, "1");
}

TSA_PUBLIC int tsa_self_open(void)
{
	struct tsa_snap s;
	unsigned int f;
	int fd;

	pthread_once(&once, init_once);
	f = atomic_load_explicit(&forks, memory_order_relaxed);
	if (self_fd >= 0 && self_forks == f)
		return self_how;
	tsa_self_close();
	fd = open(TSA_SELF_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	self_fd = fd;
	self_forks = f;
	pthread_setspecific(exit_key, (void *)1);
	/* Each handle asks its own module: one may be reloaded, or upgraded. */
	if (!force_text()) {
		self_how = TSA_HOW_IOCTL;
		if (!read_ioctl(&s)) {
			self_pid = s.pid;
			self_degraded = s.degraded;
			if (!map_slot())
				self_how = TSA_HOW_MAPPED;
			return self_how;
		}
		if (errno != ENOTTY && errno != EINVAL) {
			tsa_self_close();
			return -1;
		}
	}
	self_how = TSA_HOW_TEXT;
	return self_how;
}

static int read_way(struct tsa_snap *s)
{
	switch (self_how) {
	case TSA_HOW_MAPPED:
		return read_mapped(s);
	case TSA_HOW_IOCTL:
		return read_ioctl(s);
	default:
		return read_text(s);
	}
}

TSA_PUBLIC int tsa_self_read(struct tsa_snap *s)
{
	int ret;

	if (self_fd < 0 ||
	    self_forks != atomic_load_explicit(&forks, memory_order_relaxed)) {
		if (tsa_self_open() < 0) {
			memset(s, 0, sizeof(*s));
			return -1;
		}
	}
	ret = read_way(s);
	/*
	 * A handle that stopped working: not its thread's file after all (a
	 * clone without fork handlers: EPERM), or the file of a module since
	 * unloaded (its entry is gone: ENOTTY, EIO). Once, on a fresh one.
	 */
	if (ret && errno != EFAULT) {
		tsa_self_close();
		if (tsa_self_open() < 0)
			return -1;
		ret = read_way(s);
		/* Registered, but not live yet, or stuck: the ioctl. */
		if (ret && self_how == TSA_HOW_MAPPED)
			ret = read_ioctl(s);
	}
	if (ret) {
		int e = errno;

		memset(s, 0, sizeof(*s));
		errno = e;
	}
	return ret;
}

TSA_PUBLIC void tsa_self_diff(const struct tsa_snap *a,
			      const struct tsa_snap *b, struct tsa_snap *d)
{
	struct tsa_snap r = *b;
	unsigned int i;

#define TSA_SUB(x, y)	((x) > (y) ? (x) - (y) : 0)
	r.at = TSA_SUB(b->at, a->at);
	r.elapsed = TSA_SUB(b->elapsed, a->elapsed);
	for (i = 0; i < TSA_SNAP_STATES; i++)
		r.ns[i] = TSA_SUB(b->ns[i], a->ns[i]);
	for (i = 0; i < TSA_SNAP_COUNTERS; i++)
		r.count[i] = TSA_SUB(b->count[i], a->count[i]);
#undef TSA_SUB
	*d = r;
}

TSA_PUBLIC const char *tsa_self_state_name(unsigned int s)
{
	return s < TSA_ST_KNOWN ? state_names[s] : NULL;
}

TSA_PUBLIC const char *tsa_self_state_what(unsigned int s)
{
	return s < TSA_ST_KNOWN ? state_whats[s] : NULL;
}

TSA_PUBLIC const char *tsa_self_counter_name(unsigned int c)
{
	return c < TSA_CT_KNOWN ? counter_names[c] : NULL;
}

static int find(const char *const *names, unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; name && i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

TSA_PUBLIC int tsa_self_state_index(const char *name)
{
	return find(state_names, TSA_ST_KNOWN, name);
}

TSA_PUBLIC int tsa_self_counter_index(const char *name)
{
	return find(counter_names, TSA_CT_KNOWN, name);
}

TSA_PUBLIC const char *tsa_self_how_name(int how)
{
	switch (how) {
	case TSA_HOW_IOCTL:
		return "ioctl";
	case TSA_HOW_TEXT:
		return "text";
	case TSA_HOW_MAPPED:
		return "mapped";
	default:
		return "none";
	}
}
