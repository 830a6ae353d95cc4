// SPDX-License-Identifier: GPL-2.0
/*
 * tsa: exact, always-on per-thread microstate accounting.
 *
 * The model (states, charging, the sum rule) is explained in
 * tsa_state.h; where events come from in tsa_probes.h (the hooks, a file
 * per family, and tsa_hooks.c that registers them); storage in
 * tsa_table.h; what users read in tsa_proc.c and docs/proc-format.md.
 * This file only puts the layers up in order and takes them down in
 * reverse: storage, then the readers, then the hooks that fill storage.
 */
#include <linux/module.h>

#include "tsa_debugfs.h"
#include "tsa_hooks.h"
#include "tsa_proc.h"
#include "tsa_table.h"
#include "tsa_version.h"

static int __init tsa_init(void)
{
	int ret;

	ret = tsa_hooks_calls_rows();
	if (ret < 0)
		return ret;
	ret = tsa_table_init(ret, tsa_hooks_trap_rows(), tsa_hooks_hist());
	if (ret)
		return ret;
	ret = tsa_proc_init(tsa_hooks_wakers());
	if (ret)
		goto out_table;
	tsa_debugfs_init();
	ret = tsa_hooks_init();
	if (ret)
		goto out_proc;
	pr_info("tsa %s: tracking threads\n", TSA_VERSION);
	return 0;

out_proc:
	tsa_debugfs_exit();
	tsa_proc_exit();
out_table:
	tsa_table_exit();
	return ret;
}

static void __exit tsa_exit(void)
{
	tsa_hooks_exit();
	tsa_debugfs_exit();
	tsa_proc_exit();
	tsa_table_exit();
}

module_init(tsa_init);
module_exit(tsa_exit);

MODULE_DESCRIPTION("Exact per-thread microstate accounting (Solaris-style prstat -m for Linux)");
MODULE_AUTHOR("tsa developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(TSA_VERSION);
