// SPDX-License-Identifier: GPL-2.0
/*
 * tsa calibration: each CPU's unseen entry and exit costs, as a
 * calibration run wrote them (/proc/tsa/calibration); see tsa_calib.h.
 */
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "tsa_calib.h"

static bool tsa_param_calibration = true;
module_param_named(calibration, tsa_param_calibration, bool, 0444);
MODULE_PARM_DESC(calibration,
		 "Charge each CPU's calibrated entry and exit costs to SYS (default 1; 0 keeps them unapplied)");

DEFINE_PER_CPU(struct tsa_cross, tsa_cross);
static DEFINE_PER_CPU(struct tsa_cross, tsa_calib_set);	/* as written */
/* CPUs written since load or the last "clear" (a cost of 0 included). */
static cpumask_t tsa_calib_done;
static DEFINE_MUTEX(tsa_calib_lock);

/*
 * What a reader is to be told of SYS: "applied" when every online CPU
 * has been calibrated and the costs are charged, "partial" when some
 * have (a CPU came online since, or the run could not reach it), "none"
 * when none has, "off" with calibration=0. Not "applied" means SYS
 * misses the kernel's entry and exit paths on some CPU: they read as USR.
 */
const char *tsa_calib_state(void)
{
	unsigned int done = 0, online = 0;
	int cpu;

	if (!tsa_param_calibration)
		return "off";
	/* Racing a CPU's hotplug gives the word of just before or after. */
	for_each_online_cpu(cpu) {
		online++;
		done += cpumask_test_cpu(cpu, &tsa_calib_done);
	}
	if (!done)
		return "none";
	return done < online ? "partial" : "applied";
}

void tsa_calib_show(struct seq_file *m)
{
	int cpu;

	seq_printf(m, "format tsa-calibration 2\napplied %d\nstate %s\nfields cpu sys_ns fault_ns calibrated\n",
		   tsa_param_calibration, tsa_calib_state());
	mutex_lock(&tsa_calib_lock);
	for_each_possible_cpu(cpu)
		seq_printf(m, "%d %u %u %d\n", cpu,
			   per_cpu(tsa_calib_set, cpu).sys,
			   per_cpu(tsa_calib_set, cpu).fault,
			   cpumask_test_cpu(cpu, &tsa_calib_done));
	mutex_unlock(&tsa_calib_lock);
}

static void tsa_calib_store(int cpu, const struct tsa_cross *x)
{
	struct tsa_cross *set = per_cpu_ptr(&tsa_calib_set, cpu);
	struct tsa_cross *live = per_cpu_ptr(&tsa_cross, cpu);

	*set = *x;
	/* Read by that CPU's hooks without a lock: one word each. */
	WRITE_ONCE(live->sys, tsa_param_calibration ? x->sys : 0);
	WRITE_ONCE(live->fault, tsa_param_calibration ? x->fault : 0);
}

/* "CPU SYS_NS FAULT_NS" into @cpu and @x; false if it is not that. */
static bool tsa_calib_line(char *line, int *cpu, struct tsa_cross *x)
{
	char *word[3], *p = strim(line);
	unsigned int v[3];
	int i;

	for (i = 0; i < 3; i++) {
		word[i] = strsep(&p, " \t");
		if (!word[i] || kstrtouint(word[i], 10, &v[i]))
			return false;
		if (p)
			p = skip_spaces(p);
	}
	if (p && *p)
		return false;
	if (v[0] >= nr_cpu_ids || !cpu_possible(v[0]) ||
	    v[1] > TSA_CALIB_MAX_NS || v[2] > TSA_CALIB_MAX_NS)
		return false;
	*cpu = v[0];
	x->sys = v[1];
	x->fault = v[2];
	return true;
}

/*
 * Lines "CPU SYS_NS FAULT_NS", or "clear" (every CPU back to 0). All of
 * it is checked before any of it is applied: -EINVAL changes nothing.
 */
int tsa_calib_write(const char *buf, size_t len)
{
	struct tsa_cross *x;
	char *copy, *p, *line;
	unsigned long *seen;
	bool clear = false;
	int cpu, ret = -ENOMEM;

	copy = kmemdup_nul(buf, len, GFP_KERNEL);
	x = kcalloc(nr_cpu_ids, sizeof(*x), GFP_KERNEL);
	seen = bitmap_zalloc(nr_cpu_ids, GFP_KERNEL);
	if (!copy || !x || !seen)
		goto out;
	ret = -EINVAL;
	p = copy;
	while ((line = strsep(&p, "\n"))) {
		struct tsa_cross one;

		if (!*strim(line))
			continue;
		if (!strcmp(strim(line), "clear")) {
			clear = true;
			continue;
		}
		if (!tsa_calib_line(line, &cpu, &one))
			goto out;
		x[cpu] = one;
		__set_bit(cpu, seen);
	}
	if (!clear && bitmap_empty(seen, nr_cpu_ids))
		goto out;
	mutex_lock(&tsa_calib_lock);
	for_each_possible_cpu(cpu) {
		if (test_bit(cpu, seen)) {
			tsa_calib_store(cpu, &x[cpu]);
			cpumask_set_cpu(cpu, &tsa_calib_done);
		} else if (clear) {
			tsa_calib_store(cpu, &(struct tsa_cross){ 0 });
			cpumask_clear_cpu(cpu, &tsa_calib_done);
		}
	}
	mutex_unlock(&tsa_calib_lock);
	ret = 0;
out:
	bitmap_free(seen);
	kfree(x);
	kfree(copy);
	return ret;
}

/* For debugfs: applied or not, and how many CPUs have costs. */
void tsa_calib_stats(struct seq_file *m)
{
	int cpu, n = 0;

	mutex_lock(&tsa_calib_lock);
	for_each_possible_cpu(cpu)
		n += per_cpu(tsa_calib_set, cpu).sys ||
		     per_cpu(tsa_calib_set, cpu).fault;
	mutex_unlock(&tsa_calib_lock);
	seq_printf(m, "calibration_applied %d\ncalibrated_cpus %d\ncalibration_state %s\n",
		   tsa_param_calibration, n, tsa_calib_state());
}
