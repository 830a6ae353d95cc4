// SPDX-License-Identifier: GPL-2.0
/*
 * tsa procfs: /proc/tsa/<tid>, self and thread-self for people (and
 * tsa_proc_thread.c), /proc/tsa/all, calls, hist and wakers for tools.
 * The format is documented in docs/proc-format.md; bump the version lines
 * below when a change breaks a parser.
 *
 * Each bulk file is a snapshot taken at open (tsa_proc_snap.c) of the
 * tasks of the pid namespace of the procfs mount it is opened through,
 * by their ids there, that the reader may read.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "tsa_calib.h"
#include "tsa_proc.h"
#include "tsa_proc_internal.h"

#define TSA_ALL_FORMAT		"tsa-all 1"
#define TSA_CALLS_FORMAT	"tsa-calls 1"
#define TSA_HIST_FORMAT		"tsa-hist 2"
#define TSA_WAKERS_FORMAT	"tsa-wakers 1"

static struct proc_dir_entry *tsa_dir;

/* --- /proc/tsa/all ----------------------------------------------------- */

static void *tsa_all_start(struct seq_file *m, loff_t *pos)
{
	struct tsa_all *all = m->private;

	if (*pos == 0)
		return SEQ_START_TOKEN;
	return *pos <= all->n ? &all->rows[*pos - 1] : NULL;
}

static void *tsa_all_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return tsa_all_start(m, pos);
}

static void tsa_all_stop(struct seq_file *m, void *v)
{
}

static int tsa_all_show(struct seq_file *m, void *v)
{
	struct tsa_all *all = m->private;
	const struct tsa_row *r = v;
	int i, j;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, TSA_ALL_FORMAT "\nnow %llu\nstates", all->now);
		for (i = 0; i < TSA_NR_STATES; i++) {
			seq_putc(m, ' ');
			seq_puts(m, tsa_state_names[i]);
		}
		seq_puts(m, "\nfields tid pid uid flags elapsed state state_ns");
		for (i = 0; i < TSA_NR_STATES; i++) {
			for (j = 0; j < 3; j++) {
				seq_putc(m, ' ');
				seq_printf(m, "%c%c%c_%s",
					   tsa_state_names[i][0] | 0x20,
					   tsa_state_names[i][1] | 0x20,
					   tsa_state_names[i][2] | 0x20,
					   j == 0 ? "ns" : j == 1 ? "n" : "max");
			}
		}
		for (i = 0; i < TSA_NR_COUNTERS; i++) {
			seq_putc(m, ' ');
			for (j = 0; tsa_counter_names[i][j]; j++)
				seq_putc(m, tsa_counter_names[i][j] | 0x20);
		}
		seq_puts(m, " at comm\n");
		return 0;
	}

	seq_put_decimal_ll(m, "", r->tid);
	seq_put_decimal_ll(m, " ", r->pid);
	seq_put_decimal_ull(m, " ", r->uid);
	seq_put_decimal_ull(m, " ", r->flags);
	seq_put_decimal_ull(m, " ", tsa_acct_elapsed(&r->a));
	seq_put_decimal_ull(m, " ", r->a.state);
	seq_put_decimal_ull(m, " ", r->stay);
	for (i = 0; i < TSA_NR_STATES; i++) {
		seq_put_decimal_ull(m, " ", r->a.st[i].ns);
		seq_put_decimal_ull(m, " ", r->a.st[i].entries);
		seq_put_decimal_ull(m, " ", r->a.st[i].longest);
	}
	for (i = 0; i < TSA_NR_COUNTERS; i++)
		seq_put_decimal_ull(m, " ", r->a.count[i]);
	seq_put_decimal_ull(m, " ", r->at);
	seq_putc(m, ' ');
	tsa_seq_comm(m, r->comm);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations tsa_all_seq_ops = {
	.start = tsa_all_start,
	.next = tsa_all_next,
	.stop = tsa_all_stop,
	.show = tsa_all_show,
};

/* The snapshot is taken at open, with the tables for that file. */
static int tsa_snapshot_open(struct file *file,
			     const struct seq_operations *ops, bool tables)
{
	struct tsa_all *all = tsa_all_collect(tsa_proc_ns(file), tables);
	int ret;

	if (IS_ERR(all))
		return PTR_ERR(all);
	ret = seq_open(file, ops);
	if (ret) {
		tsa_all_free(all);
		return ret;
	}
	((struct seq_file *)file->private_data)->private = all;
	return 0;
}

static int tsa_all_open(struct inode *inode, struct file *file)
{
	return tsa_snapshot_open(file, &tsa_all_seq_ops, false);
}

static int tsa_all_release(struct inode *inode, struct file *file)
{
	tsa_all_free(((struct seq_file *)file->private_data)->private);
	return seq_release(inode, file);
}

static const struct proc_ops tsa_all_ops = {
	.proc_open = tsa_all_open,
	.proc_read = seq_read,
	.proc_write = tsa_write,
	.proc_lseek = seq_lseek,
	.proc_release = tsa_all_release,
};

/* --- /proc/tsa/calls --------------------------------------------------- */

/* Who a line of the calls and hist files is of: tid pid uid flags elapsed at. */
static void tsa_seq_row_who(struct seq_file *m, const struct tsa_row *r)
{
	seq_put_decimal_ll(m, "", r->tid);
	seq_put_decimal_ll(m, " ", r->pid);
	seq_put_decimal_ull(m, " ", r->uid);
	seq_put_decimal_ull(m, " ", r->flags);
	seq_put_decimal_ull(m, " ", tsa_acct_elapsed(&r->a));
	seq_put_decimal_ull(m, " ", r->at);
}

/*
 * One line per table row of every thread of the snapshot: its system
 * calls, then (interrupts=1) the sources of its TRP time, whose line has
 * all its time in trp_ns.
 */
static int tsa_calls_show(struct seq_file *m, void *v)
{
	struct tsa_all *all = m->private;
	const struct tsa_row *r = v;
	const struct tsa_call_row *cr;
	const struct tsa_calls *c;
	unsigned int i;
	int k, s;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, TSA_CALLS_FORMAT "\nnow %llu\nrows %u %u\nstates",
			   all->now, tsa_table_rows(TSA_T_CALLS),
			   tsa_table_rows(TSA_T_TRAPS));
		tsa_seq_call_states(m);
		seq_puts(m, "\nfields tid pid uid flags elapsed at kind name calls ns max");
		for (s = TSA_SYS; s < TSA_NR_STATES; s++)
			seq_printf(m, " %c%c%c_ns", tsa_state_names[s][0] | 0x20,
				   tsa_state_names[s][1] | 0x20,
				   tsa_state_names[s][2] | 0x20);
		seq_putc(m, '\n');
		return 0;
	}
	for (k = 0; k < TSA_NR_TABLES; k++) {
		if (!all->tables || !tsa_table_rows(k))
			continue;
		c = tsa_table_in(tsa_all_tables(all, r - all->rows), k);
		for (i = 0; i <= c->rows; i++) {
			cr = i < c->rows ? &c->row[i] : &c->other;
			if (!cr->calls && !cr->ns)
				continue;
			tsa_seq_row_who(m, r);
			seq_printf(m, " %s ", tsa_table_kind[k]);
			tsa_seq_row_name(m, k, cr->key);
			seq_put_decimal_ull(m, " ", cr->calls);
			seq_put_decimal_ull(m, " ", cr->ns);
			seq_put_decimal_ull(m, " ", cr->longest);
			for (s = TSA_SYS; s < TSA_NR_STATES; s++)
				seq_put_decimal_ull(m, " ",
						    tsa_call_row_ns(c, cr, s));
			seq_putc(m, '\n');
		}
	}
	return 0;
}

static const struct seq_operations tsa_calls_seq_ops = {
	.start = tsa_all_start,
	.next = tsa_all_next,
	.stop = tsa_all_stop,
	.show = tsa_calls_show,
};

static int tsa_calls_open(struct inode *inode, struct file *file)
{
	return tsa_snapshot_open(file, &tsa_calls_seq_ops, true);
}

static const struct proc_ops tsa_calls_ops = {
	.proc_open = tsa_calls_open,
	.proc_read = seq_read,
	.proc_write = tsa_write,
	.proc_lseek = seq_lseek,
	.proc_release = tsa_all_release,
};

/* --- /proc/tsa/wakers -------------------------------------------------- */

/*
 * One line per waker row of every thread of the snapshot (and of each
 * process's exited threads, tid 0), then the other row and the time off
 * CPU no wakeup ended ("none"): a thread's lines add up to its time
 * asleep and stopped.
 */
/* /proc/tsa/wakers' lines begin with their thread's columns. */
static void tsa_seq_row_lead(struct seq_file *m, const void *row)
{
	tsa_seq_row_who(m, row);
}

static int tsa_wakers_show(struct seq_file *m, void *v)
{
	struct tsa_all *all = m->private;
	const struct tsa_row *r = v;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, TSA_WAKERS_FORMAT "\nnow %llu\nrows %u\nfields tid pid uid flags elapsed at state wakeups ns max lat_ns kind waker_tid name\n",
			   all->now, TSA_WAKER_ROWS);
		return 0;
	}
	tsa_seq_waker_lines(m, all->ns, &r->a, false, tsa_seq_row_lead, r);
	return 0;
}

static const struct seq_operations tsa_wakers_seq_ops = {
	.start = tsa_all_start,
	.next = tsa_all_next,
	.stop = tsa_all_stop,
	.show = tsa_wakers_show,
};

static int tsa_wakers_open(struct inode *inode, struct file *file)
{
	return tsa_snapshot_open(file, &tsa_wakers_seq_ops, false);
}

static const struct proc_ops tsa_wakers_ops = {
	.proc_open = tsa_wakers_open,
	.proc_read = seq_read,
	.proc_write = tsa_write,
	.proc_lseek = seq_lseek,
	.proc_release = tsa_all_release,
};

/* --- /proc/tsa/hist ---------------------------------------------------- */

/*
 * The lines "syscall:NAME" of a calls table with buckets: per row, its
 * calls, time and longest (no time it ended: 0), whether the call in
 * progress is its (open, in no bucket yet; its time so far is not
 * given: 0), and the counts of its calls by duration.
 */
static void tsa_hist_show_calls(struct seq_file *m, const struct tsa_row *r,
				const struct tsa_calls *c)
{
	const struct tsa_call_row *cr;
	const u64 *bk;
	unsigned int i;
	int b;

	for (i = 0; i <= c->rows; i++) {
		cr = i < c->rows ? &c->row[i] : &c->other;
		if (!cr->calls)
			continue;
		bk = tsa_calls_b(c, cr);
		tsa_seq_row_who(m, r);
		seq_puts(m, " syscall:");
		tsa_seq_row_name(m, TSA_T_CALLS, cr->key);
		seq_put_decimal_ull(m, " ", cr->calls);
		seq_put_decimal_ull(m, " ", cr->ns);
		seq_put_decimal_ull(m, " ", cr->longest);
		seq_puts(m, " 0");
		seq_put_decimal_ull(m, " ", c->cur_key == cr->key);
		seq_puts(m, " 0");
		for (b = 0; b < TSA_HIST_BUCKETS; b++)
			seq_put_decimal_ull(m, " ", bk[b]);
		seq_putc(m, '\n');
	}
}

/*
 * One line per state each thread of the snapshot (and each process's
 * exited threads) has been in: its entries, time, longest stay and when
 * that ended, then for the states that have them whether a stay in it is
 * in progress (open, in no bucket yet) and how long so far, and the
 * counts of its ended stays by length; then one per row of its calls
 * table (docs/proc-format.md).
 */
static int tsa_hist_show(struct seq_file *m, void *v)
{
	struct tsa_all *all = m->private;
	const struct tsa_row *r = v;
	const struct tsa_stays *st;
	const struct tsa_calls *c;
	const struct tsa_hist *h;
	struct tsa_hist layout;
	void *tables;
	const u64 *n;
	bool open;
	int s, b;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, TSA_HIST_FORMAT "\nnow %llu\nbuckets %u %d\nstates",
			   all->now, TSA_HIST_BUCKETS, TSA_HIST_EXP);
		tsa_hist_layout(&layout, tsa_table_hist_mode());
		for (s = 0; s < TSA_NR_STATES; s++) {
			if (!tsa_hist_n(&layout, s))
				continue;
			seq_putc(m, ' ');
			seq_puts(m, tsa_state_names[s]);
		}
		seq_puts(m, "\nfields tid pid uid flags elapsed at state n ns max max_at open open_ns");
		for (b = 0; b < TSA_HIST_BUCKETS; b++)
			seq_printf(m, " b%d", b);
		seq_putc(m, '\n');
		return 0;
	}
	tables = tsa_all_tables(all, r - all->rows);
	h = tsa_table_hist(tables);
	if (!h)
		return 0;
	for (s = 0; s < TSA_NR_STATES; s++) {
		st = &r->a.st[s];
		if (!st->entries && !st->ns)
			continue;
		tsa_seq_row_who(m, r);
		seq_putc(m, ' ');
		seq_puts(m, tsa_state_names[s]);
		seq_put_decimal_ull(m, " ", st->entries);
		seq_put_decimal_ull(m, " ", st->ns);
		seq_put_decimal_ull(m, " ", st->longest);
		seq_put_decimal_ull(m, " ", st->longest ? h->longest_at[s] : 0);
		n = tsa_hist_n(h, s);
		if (n) {
			open = s == r->a.state && !(r->a.flags & TSA_F_DEAD);
			seq_put_decimal_ull(m, " ", open);
			seq_put_decimal_ull(m, " ",
					    open ? r->a.stamp - h->since : 0);
			for (b = 0; b < TSA_HIST_BUCKETS; b++)
				seq_put_decimal_ull(m, " ", n[b]);
		}
		seq_putc(m, '\n');
	}
	c = tsa_table_in(tables, TSA_T_CALLS);
	if (c && c->hist)
		tsa_hist_show_calls(m, r, c);
	return 0;
}

static const struct seq_operations tsa_hist_seq_ops = {
	.start = tsa_all_start,
	.next = tsa_all_next,
	.stop = tsa_all_stop,
	.show = tsa_hist_show,
};

static int tsa_hist_open(struct inode *inode, struct file *file)
{
	return tsa_snapshot_open(file, &tsa_hist_seq_ops, true);
}

static const struct proc_ops tsa_hist_ops = {
	.proc_open = tsa_hist_open,
	.proc_read = seq_read,
	.proc_write = tsa_write,
	.proc_lseek = seq_lseek,
	.proc_release = tsa_all_release,
};

/* --- /proc/tsa/calibration --------------------------------------------- */

static int tsa_calib_file_show(struct seq_file *m, void *v)
{
	tsa_calib_show(m);
	return 0;
}

static int tsa_calib_open(struct inode *inode, struct file *file)
{
	return single_open(file, tsa_calib_file_show, NULL);
}

/*
 * The whole calibration in one write (tsa-prstat --calibrate writes it):
 * bad input is refused whole, and changes nothing.
 */
static ssize_t tsa_calib_file_write(struct file *file, const char __user *buf,
				    size_t count, loff_t *ppos)
{
	char *copy;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (*ppos || count > (nr_cpu_ids + 1) * 40UL)
		return -EINVAL;
	copy = memdup_user(buf, count);
	if (IS_ERR(copy))
		return PTR_ERR(copy);
	ret = tsa_calib_write(copy, count);
	kfree(copy);
	return ret ? ret : count;
}

static const struct proc_ops tsa_calib_ops = {
	.proc_open = tsa_calib_open,
	.proc_read = seq_read,
	.proc_write = tsa_calib_file_write,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

/* --- setup ------------------------------------------------------------- */

int tsa_proc_init(bool wakers)
{
	tsa_wakers_shown = wakers;
	tsa_dir = proc_mkdir("tsa", NULL);
	if (!tsa_dir)
		return -ENOMEM;
	if (!proc_create("all", 0444, tsa_dir, &tsa_all_ops) ||
	    !proc_create("calibration", 0644, tsa_dir, &tsa_calib_ops) ||
	    ((tsa_table_rows(TSA_T_CALLS) || tsa_table_rows(TSA_T_TRAPS)) &&
	     !proc_create("calls", 0444, tsa_dir, &tsa_calls_ops)) ||
	    (tsa_table_hist_mode() != TSA_HIST_NONE &&
	     !proc_create("hist", 0444, tsa_dir, &tsa_hist_ops)) ||
	    (wakers &&
	     !proc_create("wakers", 0444, tsa_dir, &tsa_wakers_ops)) ||
	    tsa_thread_files_init(tsa_dir) || tsa_entries_init(tsa_dir)) {
		proc_remove(tsa_dir);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Called after the hooks are gone: nothing queues work any more. Waits
 * for the reads in progress in tsa's files, as removing any proc entry
 * does (docs/proc-format.md says what a stuck reader holds up).
 */
void tsa_proc_exit(void)
{
	tsa_entries_exit();
	proc_remove(tsa_dir);
}
