// SPDX-License-Identifier: GPL-2.0
/*
 * test_ledger.c - tsa-exporter's group counters across scrapes: they
 * never go down when processes exit (golden/in/b by user), a cgroup
 * whose processes are gone stays until --stale-after, and a reload of
 * the module (its load time later) starts them again, visible in
 * tsa_module_load_time_seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fx/run.h"
#include "fx/server.h"
#include "tap.h"

/*
 * golden/in/b by user: root has processes 100 (db server) and 300
 * (sleeper). Process 300 exits: root's counters keep what it had
 * (USR 2.25 s, SLP 14.10075 s), every counter sample of the first
 * scrape is in the second with no smaller a value, while its live
 * gauges drop (4 threads -> 2). Then process 100's thread 100 runs
 * 0.1 s more: root's USR is 2.35 s (departed + live, not a clamp).
 */
static void test_exits(void)
{
	char src[400], path[400], why[600], *dir = mkdir_in_tmp("exits");
	char *m1, *m2, *m3;
	const char *const files[] = { "all", "hist", "wakers" };
	struct server s;
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(src, sizeof(src), "%s/golden/in/b/%s", testdir, files[i]);
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		copy_without(src, path, "no such pid");
	}
	if (!ok(start(&s, dir, (const char *[]){ "--group", "user", NULL }) == 0,
		"exits: started, --group user over golden/in/b"))
		return;
	m1 = metrics(s.port);
	ok(sample_of(m1, "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}") == 2.25 &&
	   sample_of(m1, "tsa_user_threads{user=\"root\"}") == 4,
	   "exits: root's USR 2.25 s, 4 threads before (saw %.9f, %.0f)",
	   sample_of(m1, "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}"),
	   sample_of(m1, "tsa_user_threads{user=\"root\"}"));
	for (i = 0; i < 2; i++) {
		snprintf(src, sizeof(src), "%s/golden/in/b/%s", testdir, files[i]);
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		copy_without(src, path, "300");
	}
	m2 = metrics(s.port);
	ok(sample_of(m2, "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}") == 2.25 &&
	   sample_of(m2, "tsa_user_state_seconds_total{user=\"root\",state=\"SLP\"}") == 14.10075,
	   "process 300 exits: root keeps USR 2.25 s and SLP 14.10075 s "
	   "(saw %.9f and %.9f)",
	   sample_of(m2, "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}"),
	   sample_of(m2, "tsa_user_state_seconds_total{user=\"root\",state=\"SLP\"}"));
	ok(counters_kept(m1, m2, "tsa_user_", why, sizeof(why)),
	   "process 300 exits: every tsa_user_ counter as high as before (%s)",
	   why);
	ok(sample_of(m2, "tsa_user_threads{user=\"root\"}") == 2 &&
	   sample_of(m2, "tsa_user_processes{user=\"root\"}") == 1,
	   "process 300 exits: root's gauges are its live ones, 2 threads "
	   "and 1 process (saw %.0f, %.0f)",
	   sample_of(m2, "tsa_user_threads{user=\"root\"}"),
	   sample_of(m2, "tsa_user_processes{user=\"root\"}"));
	/* 0.1 s later, thread 100 ran all of it. */
	snprintf(path, sizeof(path), "%s/all", dir);
	run_on(path, 100000000, 100);
	m3 = metrics(s.port);
	ok(sample_of(m3, "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}") == 2.35,
	   "then thread 100 runs 0.1 s more: root's USR 2.35 s, what "
	   "process 300 had and what 100 has (saw %.9f)",
	   sample_of(m3, "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}"));
	ok(counters_kept(m2, m3, "tsa_user_", why, sizeof(why)),
	   "and no tsa_user_ counter went down (%s)", why);
	free(m1);
	free(m2);
	free(m3);
	is_long(stop(&s), 0, "exits: SIGTERM, exit 0");
}

/*
 * By cgroup (the default), golden/in/b's processes each in a cgroup of
 * their own: process 300 exits and its cgroup is removed. Its series
 * stay, their values as they were, with 0 threads and processes; with
 * --stale-after 1, they are gone two seconds later, the others stay.
 */
static void test_cgroup_removed(void)
{
	char src[400], path[400], why[600], *dir = mkdir_in_tmp("cgroups");
	char *procfs = mkdir_in_tmp("cgroups-procfs"), *m1, *m2, *m3;
	const char *slp = "tsa_cgroup_state_seconds_total{cgroup=\"/job.scope\",state=\"SLP\"}";
	struct timespec two = { 2, 0 };
	struct server s;

	snprintf(src, sizeof(src), "%s/golden/in/b/all", testdir);
	snprintf(path, sizeof(path), "%s/all", dir);
	copy_without(src, path, "no such pid");
	put_cgroup(procfs, 100, "0::/db.service\n");
	put_cgroup(procfs, 200, "0::/spin.service\n");
	put_cgroup(procfs, 300, "0::/job.scope\n");
	put_cgroup(procfs, 400, "0::/gone.scope\n");
	exporter_procfs = procfs;
	if (!ok(start(&s, dir, (const char *[]){ "--stale-after", "1", NULL }) == 0,
		"cgroups: started, --stale-after 1"))
		goto out;
	m1 = metrics(s.port);
	ok(sample_of(m1, slp) == 11.8,
	   "cgroups: /job.scope (process 300) has SLP 11.8 s (saw %.9f)",
	   sample_of(m1, slp));
	copy_without(src, path, "300");
	snprintf(src, sizeof(src), "%s/300", procfs);
	snprintf(why, sizeof(why), "rm -rf %s", src);
	ok(system(why) == 0, "cgroups: process 300 exits, its cgroup file goes");
	m2 = metrics(s.port);
	ok(sample_of(m2, slp) == 11.8 &&
	   sample_of(m2, "tsa_cgroup_threads{cgroup=\"/job.scope\"}") == 0 &&
	   sample_of(m2, "tsa_cgroup_processes{cgroup=\"/job.scope\"}") == 0,
	   "its cgroup gone: /job.scope keeps SLP 11.8 s, 0 threads, 0 "
	   "processes (saw %.9f, %.0f, %.0f)", sample_of(m2, slp),
	   sample_of(m2, "tsa_cgroup_threads{cgroup=\"/job.scope\"}"),
	   sample_of(m2, "tsa_cgroup_processes{cgroup=\"/job.scope\"}"));
	ok(counters_kept(m1, m2, "tsa_cgroup_", why, sizeof(why)),
	   "its cgroup gone: every tsa_cgroup_ counter as high as before (%s)",
	   why);
	nanosleep(&two, NULL);
	m3 = metrics(s.port);
	ok(m3 && !strstr(m3, "cgroup=\"/job.scope\"") &&
	   sample_of(m3, "tsa_cgroup_state_seconds_total{cgroup=\"/db.service\",state=\"USR\"}") == 2.05,
	   "2 s later (--stale-after 1): /job.scope's series dropped, "
	   "/db.service's USR still 2.05 s (saw %d /job.scope lines, %.9f)",
	   m3 ? count_str(m3, "cgroup=\"/job.scope\"") : -1,
	   sample_of(m3, "tsa_cgroup_state_seconds_total{cgroup=\"/db.service\",state=\"USR\"}"));
	free(m1);
	free(m2);
	free(m3);
	is_long(stop(&s), 0, "cgroups: SIGTERM, exit 0");
out:
	exporter_procfs = "/nonexistent";
}

/*
 * A reload of the module: every thread tracked since the load (flag 1),
 * the first load at 6 s on the module's clock (now 11 s, threads 5 s
 * old), the second at 19.5 s (now 20 s): the counters start again (a
 * real reset, root's USR from 1.5 s to 0.1 s), and
 * tsa_module_load_time_seconds says so, 4.5 s later (less the wall
 * time between the scrapes).
 */
static void test_reload(void)
{
	static const char head[] = "tsa-all 1\nnow %s\nfields tid pid uid "
		"flags elapsed usr_ns slp_ns vcx comm\n";
	char path[400], text[1024], *dir = mkdir_in_tmp("reload");
	char *m1, *m2;
	const char *usr = "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}";
	double l1, l2;
	struct server s;

	snprintf(path, sizeof(path), "%s/all", dir);
	snprintf(text, sizeof(text), head, "11000000000");
	strcat(text, "1 1 0 1 5000000000 1000000000 4000000000 10 init\n"
	       "50 50 0 1 5000000000 500000000 4500000000 20 daemon\n");
	put(path, text);
	if (!ok(start(&s, dir, (const char *[]){ "--group", "user", NULL }) == 0,
		"reload: started"))
		return;
	m1 = metrics(s.port);
	l1 = sample_of(m1, "tsa_module_load_time_seconds");
	ok(l1 > time(NULL) - 7 && l1 < time(NULL) - 3,
	   "reload: tsa_module_load_time_seconds 5 s ago, the threads' start "
	   "(saw %.3f, now %ld)", l1, (long)time(NULL));
	snprintf(text, sizeof(text), head, "20000000000");
	strcat(text, "1 1 0 1 500000000 100000000 400000000 1 init\n"
	       "50 50 0 1 500000000 50000000 450000000 2 daemon\n");
	put(path, text);
	m2 = metrics(s.port);
	l2 = sample_of(m2, "tsa_module_load_time_seconds");
	ok(l2 - l1 > 4.4 && l2 - l1 < 5.5,
	   "reloaded: tsa_module_load_time_seconds 4.5 s later (saw %.3f)",
	   l2 - l1);
	ok(sample_of(m1, usr) == 1.5 && sample_of(m2, usr) == 0.15,
	   "reloaded: root's USR starts again, 1.5 s then 0.15 s (saw %.9f, "
	   "%.9f)", sample_of(m1, usr), sample_of(m2, usr));
	free(m1);
	free(m2);
	is_long(stop(&s), 0, "reload: SIGTERM, exit 0");
}

int main(void)
{
	const char *env = getenv("TSA_EXPORTER");

	if (fx_init())
		return 2;
	if (env)
		exporter_bin = env;
	test_exits();
	test_cgroup_removed();
	test_reload();
	fx_done(tap_failed);
	return tap_done();
}
