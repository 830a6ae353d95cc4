/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of tsa's procfs share; not for the rest of the module
 * (tsa_proc.h is). From the bottom up:
 *   tsa_proc_access.c   who may see a task, and by which ids
 *   tsa_proc_snap.c     consistent copies of threads and processes
 *   tsa_proc_format.c   the lines every file is made of
 *   tsa_proc_self.c     a thread's binary read of itself (the ioctl, its slot)
 *   tsa_proc_thread.c   /proc/tsa/<tid>, self and thread-self
 *   tsa_proc_entries.c  making and removing the /proc/tsa/<tid> entries
 *   tsa_proc.c          the bulk files, calibration, setup
 */
#ifndef TSA_PROC_INTERNAL_H
#define TSA_PROC_INTERNAL_H

#include <linux/fs.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/types.h>

#include "tsa_table.h"

#define TSA_THREAD_FORMAT	"tsa-thread 1"
#define TSA_ROW_TOTALS		0x4	/* a process's exited threads */

/*
 * What a reader's copies are allocated with: charged to its memory cgroup;
 * past its limit the read fails with ENOMEM, without the OOM killer and
 * without a warning in the kernel log (any user could fill it).
 */
#define TSA_READER_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* --- tsa_proc_access.c ---------------------------------------------------- */

bool tsa_may_read(struct task_struct *t);
/* The pid namespace of the procfs mount @file was opened through. */
struct pid_namespace *tsa_proc_ns(const struct file *file);
/*
 * May the opener of a file on the procfs mount of @inode open @t's file:
 * 0, -ENOENT (not in the mount's pid namespace, or hidden by hidepid=) or
 * -EACCES (tsa_may_read()).
 */
int tsa_may_open(const struct inode *inode, struct task_struct *t);

/* --- tsa_proc_snap.c ------------------------------------------------------ */

/* One line of /proc/tsa/all, copied at open so that reading is lock-free. */
struct tsa_row {
	pid_t tid;		/* in the snapshot's pid namespace */
	pid_t pid;
	uid_t uid;
	u32 flags;
	u32 nr;			/* threads this row stands for */
	u64 at;			/* the clock its numbers are measured at */
	u64 stay;		/* time in its current state, up to at */
	struct tsa_thread *th;	/* held while collecting, then NULL */
	struct tsa_acct a;
	char comm[TASK_COMM_LEN];
};

struct tsa_all {
	u64 now;
	unsigned int n;
	unsigned int max;
	/* Whose ids the rows give, and which tasks they may hold. */
	struct pid_namespace *ns;
	char *tables;		/* the tables of each row, or NULL */
	size_t tables_size;
	/*
	 * The leader, if its own file copied its record at now: that copy,
	 * not a second one (each copy of a busy thread may hold its writers
	 * off). Compared, never dereferenced: it was found under another
	 * RCU section.
	 */
	const struct tsa_thread *seen;
	const struct tsa_acct *seen_a;
	const void *seen_tables;
	u64 seen_stay;
	struct tsa_row rows[];
};

static inline void *tsa_all_tables(const struct tsa_all *all, unsigned int i)
{
	return all->tables ? all->tables + i * all->tables_size : NULL;
}

struct tsa_all *tsa_all_alloc(unsigned int max, bool tables);
void tsa_all_free(struct tsa_all *all);
bool tsa_all_process(struct tsa_all *all, struct task_struct *p);
struct tsa_all *tsa_all_collect(struct pid_namespace *ns, bool tables);

/* --- tsa_proc_format.c ---------------------------------------------------- */

extern bool tsa_wakers_shown;	/* the wakers parameter */

void tsa_seq_comm(struct seq_file *m, const char *s);
void tsa_show_acct(struct seq_file *m, const char *prefix,
		   const struct tsa_acct *a);
extern const char *const tsa_table_kind[TSA_NR_TABLES];
void tsa_seq_row_name(struct seq_file *m, int k, u16 key);
void tsa_seq_call_states(struct seq_file *m);
void tsa_show_tables(struct seq_file *m, const char *prefix, void *tables,
		     u64 elapsed);
void tsa_seq_waker_lines(struct seq_file *m, struct pid_namespace *ns,
			 const struct tsa_acct *a, bool pct,
			 void (*lead)(struct seq_file *m, const void *who),
			 const void *who);
void tsa_show_wakers(struct seq_file *m, struct pid_namespace *ns,
		     const char *prefix, const struct tsa_acct *a);
ssize_t tsa_write(struct file *file, const char __user *buf, size_t count,
		  loff_t *ppos);

/* --- tsa_proc_self.c ------------------------------------------------------ */

/* uapi/tsa.h's ioctls on a thread file (a seq_file whose private is its task). */
long tsa_self_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
struct vm_area_struct;
int tsa_self_mmap(struct file *file, struct vm_area_struct *vma);
/* struct proc_ops has proc_compat_ioctl with CONFIG_COMPAT only. */
#ifdef CONFIG_COMPAT
long tsa_self_compat_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg);
#endif

/* --- tsa_proc_thread.c ---------------------------------------------------- */

/*
 * Open @file on @t's numbers with the caller's reference to @t, which the
 * file keeps (tsa_thread_file_release() drops it) or, on failure, this
 * drops.
 */
int tsa_thread_file_open(struct inode *inode, struct file *file,
			 struct task_struct *t);
int tsa_thread_file_release(struct inode *inode, struct file *file);
int tsa_thread_files_init(struct proc_dir_entry *dir);

/* --- tsa_proc_entries.c --------------------------------------------------- */

int tsa_entries_init(struct proc_dir_entry *dir);
void tsa_entries_exit(void);

#endif /* TSA_PROC_INTERNAL_H */
