/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tsa's binary interface: a thread reads its own microstates in one
 * system call, an ioctl on its open /proc/tsa/thread-self (or
 * /proc/tsa/<tid> of its own tid, or /proc/tsa/self from the leader):
 *
 *	struct tsa_self s;
 *	int fd = open("/proc/tsa/thread-self", O_RDONLY | O_CLOEXEC);
 *	ioctl(fd, TSA_IOC_SELF, &s);
 *
 * The numbers are those the file's text would show at the same instant
 * (the same copy of the record, docs/proc-format.md): ns per state and
 * the counters, in the order of the "state" and "counter" lines.
 *
 * Versions. The ioctl number carries the caller's size of struct
 * tsa_self (_IOC_SIZE); the module writes min(that, its own size) bytes
 * and zeroes the rest of the caller's, and says in @size how many it
 * wrote. Fields are only ever added at the end, so an old caller gets the
 * fields it knows and a new caller on an old module sees by @size which
 * ones it got. ns[] and count[] have room for more states and counters
 * than tsa has: @nr_states and @nr_counters say how many are used, the
 * rest are 0. @version is bumped only if a field changes meaning.
 *
 * Errors: ENOTTY, not a tsa ioctl; EINVAL, a size below
 * TSA_SELF_SIZE_VER1; EPERM, the file is not the caller's own thread's
 * (a handle per thread: another thread's file shows in its text);
 * ESRCH, the thread's record is not live (it is exiting, or was not
 * seen yet); EFAULT, a bad pointer.
 */
#ifndef _UAPI_TSA_H
#define _UAPI_TSA_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define TSA_SELF_VERSION	1
#define TSA_SELF_STATES		32	/* room in ns[] */
#define TSA_SELF_COUNTERS	16	/* room in count[] */

/*
 * struct tsa_self.degraded: what this kernel with these module parameters
 * cannot tell apart (the "degraded" line): bit s for state s, bit 16 + c
 * for counter c.
 */
#define TSA_SELF_STATE_BIT(s)	(1U << (s))
#define TSA_SELF_COUNTER_BIT(c)	(1U << (16 + (c)))

/* struct tsa_self.flags */
#define TSA_SELF_SINCE_LOAD	0x1	/* counted since tsa loaded, not birth */

struct tsa_self {
	__u32 size;		/* bytes the module wrote */
	__u16 version;		/* TSA_SELF_VERSION */
	__u8 nr_states;		/* states used in ns[] */
	__u8 nr_counters;	/* counters used in count[] */
	__u32 state;		/* the state in progress: an index of ns[] */
	__u32 flags;		/* TSA_SELF_* */
	__s32 tid;		/* ids in the pid namespace of the file's */
	__s32 pid;		/* procfs mount */
	__u32 degraded;		/* not measured here: see below */
	__u32 reserved;		/* 0 */
	__u64 now;		/* CLOCK_MONOTONIC ns: when it was read */
	__u64 state_since;	/* CLOCK_MONOTONIC ns: state entered */
	__u64 elapsed;		/* ns since birth (or load): sum of ns[] */
	__u64 ns[TSA_SELF_STATES];	/* up to now, the stay in progress too */
	__u64 count[TSA_SELF_COUNTERS];
};

#define TSA_SELF_SIZE_VER1	440	/* sizeof version 1 */

#define TSA_IOC_MAGIC		0xE4
#define TSA_IOC_SELF_NR		1
/* The read, for a caller whose struct tsa_self is @size bytes. */
#define TSA_IOC_SELF_SIZE(size)	\
	_IOC(_IOC_READ, TSA_IOC_MAGIC, TSA_IOC_SELF_NR, (size))
#define TSA_IOC_SELF		_IOR(TSA_IOC_MAGIC, TSA_IOC_SELF_NR, struct tsa_self)

/*
 * The mapped read (docs/proc-format.md, "The mapped slot"): a thread
 * registers with TSA_IOC_SLOT on its own open thread file, then maps one
 * page of that file read-only:
 *
 *	ioctl(fd, TSA_IOC_SLOT);
 *	const struct tsa_slot *s = mmap(NULL, 4096, PROT_READ, MAP_SHARED,
 *					fd, 0);
 *
 * tsa copies the thread's numbers there at each of its events, under
 * @seq (odd while it writes; a reader copies, then checks @seq is even
 * and unchanged). ns[] holds each state's time up to @stamp; the state in
 * progress, @state, has gone on since: a reader at CLOCK_MONOTONIC @now
 * adds max(now, stamp) - stamp to it, of which, in USR, the first @head
 * ns are SYS (the calibrated return to user mode, as the ioctl does).
 *
 * @generation is new at each registration: a reader that kept it tells a
 * page registered again. TSA_SLOT_ENDED: the page is no longer written
 * (the thread exited or exec'd, registered again, or tsa unloaded); its
 * numbers are frozen (an exited thread's as of its last event before its
 * exit): read the ioctl instead. A fork's child gets no
 * mapping. The page holds this thread's numbers and nothing else.
 *
 * Errors of TSA_IOC_SLOT: EPERM, not the caller's own thread's file;
 * ESRCH, its record is not live; ENOMEM. Of mmap(): EPERM, not the
 * caller's own file, or PROT_WRITE or PROT_EXEC asked; EACCES, a shared
 * writable map (the file is read-only); EINVAL, not one page at offset
 * 0; ENODATA, the thread has not registered (or exec'd since).
 */
#define TSA_SLOT_VERSION	1

/* struct tsa_slot.flags */
#define TSA_SLOT_ENDED		0x1	/* no longer written: see above */
#define TSA_SLOT_NOT_LIVE	0x2	/* not measured yet: read the ioctl */
#define TSA_SLOT_SINCE_LOAD	0x4	/* counted since tsa loaded */

struct tsa_slot {
	__u32 seq;		/* odd while tsa writes */
	__u16 version;		/* TSA_SLOT_VERSION */
	__u16 size;		/* bytes of the struct in use */
	__u64 generation;	/* new at each registration */
	__u32 flags;		/* TSA_SLOT_* */
	__s32 tid;		/* in the registering file's pid namespace */
	__u8 nr_states;		/* states used in ns[] */
	__u8 nr_counters;	/* counters used in count[] */
	__u8 state;		/* the state in progress: an index of ns[] */
	__u8 reserved;		/* 0 */
	__u32 head;		/* ns of a USR stay's start that are SYS */
	__u64 stamp;		/* CLOCK_MONOTONIC ns: @state entered */
	__u64 since;		/* CLOCK_MONOTONIC ns: birth, or load */
	__u64 ns[TSA_SELF_STATES];	/* up to @stamp */
	__u64 count[TSA_SELF_COUNTERS];
};

#define TSA_SLOT_SIZE_VER1	432	/* sizeof version 1 */

#define TSA_IOC_SLOT_NR		2
#define TSA_IOC_SLOT		_IO(TSA_IOC_MAGIC, TSA_IOC_SLOT_NR)

#endif /* _UAPI_TSA_H */
