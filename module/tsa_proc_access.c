// SPDX-License-Identifier: GPL-2.0
/*
 * Who may see a task through tsa's procfs files, and by which ids. The
 * rules are /proc's own: a reader sees the tasks of the pid namespace of
 * the procfs mount it reads through, by their ids there, and a task whose
 * /proc/<pid> that mount's hidepid= hides is hidden here too. The numbers
 * themselves are as private as /proc/<pid>/io (tsa_may_read()).
 */
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/user_namespace.h>

#include "tsa_compat.h"
#include "tsa_proc_internal.h"

/*
 * The rule of /proc/<pid>/io (ptrace_may_access() with
 * PTRACE_MODE_READ_FSCREDS), which is not exported to modules: same
 * process, or the same uid and gid in all three forms, or CAP_SYS_PTRACE
 * over the task; and a task that dropped privileges (not dumpable) only
 * with CAP_SYS_PTRACE. Security modules cannot be asked from a module;
 * see tsa(4).
 */
bool tsa_may_read(struct task_struct *t)
{
	const struct cred *cred = current_cred(), *tcred;
	struct user_namespace *ns;
	bool ok;

	if (same_thread_group(t, current))
		return true;
	rcu_read_lock();
	tcred = __task_cred(t);
	ok = (uid_eq(cred->fsuid, tcred->euid) &&
	      uid_eq(cred->fsuid, tcred->suid) &&
	      uid_eq(cred->fsuid, tcred->uid) &&
	      gid_eq(cred->fsgid, tcred->egid) &&
	      gid_eq(cred->fsgid, tcred->sgid) &&
	      gid_eq(cred->fsgid, tcred->gid)) ||
	     ns_capable_noaudit(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (!ok)
		return false;
	/* Pairs with the write barrier in commit_creds(). */
	smp_rmb();
	task_lock(t);
	ns = tsa_task_dump_ns(t);
	ok = !ns || ns_capable_noaudit(ns, CAP_SYS_PTRACE);
	task_unlock(t);
	return ok;
}

struct pid_namespace *tsa_proc_ns(const struct file *file)
{
	return proc_pid_ns(file_inode(file)->i_sb);
}

/*
 * As proc_pid_lookup() and has_pid_permissions() decide for /proc/<pid>:
 * a task outside the mount's pid namespace has no file there; with
 * hidepid=invisible or =ptraceable a task the reader may not trace is not
 * there either, unless the reader is in the mount's gid= group (which
 * tsa_may_read() then still asks of its numbers). Any hidepid= value
 * leaves the numbers to tsa_may_read(), which asks at least as much as
 * hidepid=noaccess does.
 */
int tsa_may_open(const struct inode *inode, struct task_struct *t)
{
	struct proc_fs_info *fs = proc_sb_info(inode->i_sb);
	bool visible;

	rcu_read_lock();
	visible = pid_alive(t) && task_pid_nr_ns(t, fs->pid_ns) > 0;
	rcu_read_unlock();
	if (!visible)
		return -ENOENT;
	if (tsa_may_read(t))
		return 0;
	if (fs->hide_pid >= HIDEPID_INVISIBLE &&
	    (fs->hide_pid == HIDEPID_NOT_PTRACEABLE ||
	     !in_group_p(fs->pid_gid)))
		return -ENOENT;
	return -EACCES;
}
