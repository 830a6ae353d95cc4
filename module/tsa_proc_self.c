// SPDX-License-Identifier: GPL-2.0
/*
 * A thread's binary read of its own numbers (uapi/tsa.h): an ioctl on its
 * own thread file. It copies the record as the text does
 * (tsa_thread_read() at tsa_reader_clock()), so the two agree, and writes
 * one fixed-layout struct: no allocation, no text, no lock but the
 * record's reader protocol.
 *
 * Only the thread itself may ask. It needs no permission check beyond the
 * open's (a thread may always read itself), and one file per thread is
 * what a library keeps anyway; another thread's numbers are in its text.
 */
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "tsa_compat.h"
#include "tsa_proc.h"
#include "tsa_proc_internal.h"
#include "uapi/tsa.h"

static_assert(sizeof(struct tsa_self) == TSA_SELF_SIZE_VER1);
/* The same layout for 32-bit callers (compat): every u64 8-aligned. */
static_assert(offsetof(struct tsa_self, now) == 32 &&
	      sizeof(struct tsa_self) % 8 == 0);
static_assert(TSA_NR_STATES <= TSA_SELF_STATES);
static_assert(TSA_NR_COUNTERS <= TSA_SELF_COUNTERS);
static_assert(TSA_NR_STATES <= 16 && TSA_NR_COUNTERS <= 16);

/* Fill @s with @t's numbers, @t being current. */
static int tsa_self_fill(struct file *file, struct task_struct *t,
			 struct tsa_self *s)
{
	struct pid_namespace *ns = tsa_proc_ns(file);
	struct tsa_thread *th;
	struct tsa_acct a;
	bool live = false;
	u64 now, stay = 0;
	int i;

	now = tsa_reader_clock();
	rcu_read_lock();
	th = tsa_thread_find(t);
	if (th) {
		stay = tsa_thread_read(th, now, &a, NULL);
		live = !(a.flags & TSA_F_NOT_LIVE);
	}
	rcu_read_unlock();
	if (!live)
		return -ESRCH;

	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	s->version = TSA_SELF_VERSION;
	s->nr_states = TSA_NR_STATES;
	s->nr_counters = TSA_NR_COUNTERS;
	s->state = a.state;
	s->flags = (a.flags & TSA_F_SINCE_LOAD) ? TSA_SELF_SINCE_LOAD : 0;
	s->tid = task_pid_nr_ns(t, ns);
	s->pid = task_tgid_nr_ns(t, ns);
	s->degraded = tsa_proc_degraded();
	s->now = now;
	s->state_since = now - stay;
	s->elapsed = tsa_acct_elapsed(&a);
	for (i = 0; i < TSA_NR_STATES; i++)
		s->ns[i] = a.st[i].ns;
	for (i = 0; i < TSA_NR_COUNTERS; i++)
		s->count[i] = a.count[i];
	return 0;
}

/*
 * Register the calling thread's mapped slot (uapi/tsa.h): a new page,
 * with a new generation; a page registered before ends.
 */
static long tsa_slot_ioctl(struct file *file, struct task_struct *t)
{
	struct page *page, *old = NULL;
	struct tsa_thread *th;
	long ret = 0;

	if (t != current)
		return -EPERM;
	page = tsa_slot_alloc(task_pid_nr_ns(t, tsa_proc_ns(file)));
	if (!page)
		return -ENOMEM;
	rcu_read_lock();
	th = tsa_thread_find(t);
	if (th && !(READ_ONCE(th->acct.flags) & TSA_F_NOT_LIVE))
		old = tsa_slot_install(th, page);
	else
		ret = -ESRCH;
	rcu_read_unlock();
	if (ret)
		put_page(page);
	if (old)
		put_page(old);
	return ret;
}

long tsa_self_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct task_struct *t = ((struct seq_file *)file->private_data)->private;
	void __user *to = (void __user *)arg;
	size_t usize = _IOC_SIZE(cmd), n;
	struct tsa_self s;
	int ret;

	if (cmd == TSA_IOC_SLOT)
		return tsa_slot_ioctl(file, t);
	if (_IOC_TYPE(cmd) != TSA_IOC_MAGIC ||
	    _IOC_NR(cmd) != TSA_IOC_SELF_NR || _IOC_DIR(cmd) != _IOC_READ)
		return -ENOTTY;
	if (usize < TSA_SELF_SIZE_VER1)
		return -EINVAL;
	if (t != current)
		return -EPERM;
	ret = tsa_self_fill(file, t, &s);
	if (ret)
		return ret;
	n = min(usize, sizeof(s));
	s.size = n;
	if (copy_to_user(to, &s, n))
		return -EFAULT;
	if (usize > n && clear_user(to + n, usize - n))
		return -EFAULT;
	return 0;
}

/*
 * Map the caller's registered slot: one page, read-only for good (no
 * VM_MAYWRITE, so no mprotect() makes it writable), not copied to a
 * fork's child (VM_IO keeps madvise(MADV_DOFORK) from undoing
 * VM_DONTCOPY) nor dumped. No vm_ops: nothing calls back into tsa, and
 * the page lives on by the mapping's reference after tsa unloads.
 */
int tsa_self_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct task_struct *t = ((struct seq_file *)file->private_data)->private;
	struct tsa_thread *th;
	struct page *page = NULL;
	int ret;

	if (t != current)
		return -EPERM;
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	rcu_read_lock();
	th = tsa_thread_find(t);
	if (th)
		page = tsa_slot_get(th);
	rcu_read_unlock();
	if (!page)
		return -ENODATA;
	tsa_vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP | VM_IO,
			 VM_MAYWRITE | VM_MAYEXEC);
	ret = vm_insert_page(vma, vma->vm_start, page);
	put_page(page);
	return ret;
}

#ifdef CONFIG_COMPAT
/* The struct has the same layout for 32-bit callers: only the pointer. */
long tsa_self_compat_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	return tsa_self_ioctl(file, cmd, (unsigned long)compat_ptr(arg));
}
#endif
