// SPDX-License-Identifier: GPL-2.0
/*
 * test_state.c - tsa-prstat --prometheus --state FILE across runs, as
 * node_exporter's textfile collector runs it from a timer: over
 * golden/in/b by user (its all and hist), a process exits and its
 * group's counters (its LAT histogram's too) stay;
 * the next run adds what the live ones did; OpenMetrics shares the
 * file; another boot, a damaged file and --state without an export;
 * per process, a pid used again by a new process.
 * (Without --state each run has the live processes alone: said here
 * too, as tsa-exporter(8) says it.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fx/run.h"
#include "tap.h"

static const char usr[] =
	"tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}";
static const char slp[] =
	"tsa_user_state_seconds_total{user=\"root\",state=\"SLP\"}";

/* tsa-prstat @fmt --group user --state @state over @dir. */
static char *export(const char *dir, const char *fmt, const char *state,
		    int *rc, char **err)
{
	char *out;

	*rc = run(dir, state ? (const char *[]){ fmt, "--group", "user",
		  "--state", state, NULL } :
		  (const char *[]){ fmt, "--group", "user", NULL }, &out, err,
		  0);
	return out;
}

static void set_boot(const char *procfs, const char *id)
{
	char path[400];

	snprintf(path, sizeof(path), "%s/sys", procfs);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/kernel", procfs);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/kernel/random", procfs);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/kernel/random/boot_id", procfs);
	put(path, id);
}

/*
 * Per process (the default): process 300 exits, its series stay; a new
 * process gets pid 300 (its start later): its series are its own, the
 * old ones go (two series of one pid would be one series going down).
 */
static void test_pid_reused(const char *src)
{
	static const char newproc[] = "300 300 0 0 1000000000 11 300000 0 0 0 "
		"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 77 0 0 0 0 0 0 0 0 0 0 0 0 "
		"1000000000 1000 500000000 0 0 0 0 0 0 0 0 0 0 0 0 0 newproc\n";
	const char *old = "tsa_process_state_seconds_total{pid=\"300\","
			  "comm=\"sleeper\",user=\"root\",state=\"SLP\"}";
	const char *nu = "tsa_process_state_seconds_total{pid=\"300\","
			 "comm=\"newproc\",user=\"root\",state=\"SLP\"}";
	char dir[300], state[400], path[400], *m, *err, *all;
	int rc;

	snprintf(dir, sizeof(dir), "%s", mkdir_in_tmp("reused"));
	snprintf(state, sizeof(state), "%s/reused.state", tmp);
	snprintf(path, sizeof(path), "%s/all", dir);
	copy_without(src, path, "no such pid");
	rc = run(dir, (const char *[]){ "--prometheus", "--state", state,
		 NULL }, &m, &err, 0);
	ok(rc == 0 && sample_of(m, old) == 11.8,
	   "per process: 300 (sleeper) has SLP 11.8 s (saw %d, %.9f)", rc,
	   sample_of(m, old));
	free(m);
	free(err);
	copy_without(src, path, "300");
	rc = run(dir, (const char *[]){ "--prometheus", "--state", state,
		 NULL }, &m, &err, 0);
	ok(rc == 0 && sample_of(m, old) == 11.8,
	   "300 exits: its series stay, SLP 11.8 s (saw %.9f)",
	   sample_of(m, old));
	free(m);
	free(err);
	all = slurp(path);
	all = realloc(all, strlen(all) + sizeof(newproc));
	strcat(all, newproc);
	put(path, all);
	free(all);
	rc = run(dir, (const char *[]){ "--prometheus", "--state", state,
		 NULL }, &m, &err, 0);
	ok(rc == 0 && sample_of(m, nu) == 1 &&
	   count_str(m, "comm=\"sleeper\"") == 0,
	   "a new process 300 (newproc, later start): its own SLP 1 s, the "
	   "old 300's series gone (saw %.9f, %d sleeper lines)",
	   sample_of(m, nu), count_str(m, "comm=\"sleeper\""));
	free(m);
	free(err);
}

int main(void)
{
	char dir[300], procfs[300], state[400], src[400], path[400];
	char hsrc[400], hpath[400];
	char why[600], *m1, *m2, *m3, *plain, *om, *err, *saved;
	int rc;

	if (fx_init())
		return 2;
	snprintf(dir, sizeof(dir), "%s", mkdir_in_tmp("in"));
	snprintf(procfs, sizeof(procfs), "%s", mkdir_in_tmp("procfs"));
	snprintf(state, sizeof(state), "%s/tsa.state", tmp);
	set_boot(procfs, "boot-1\n");
	setenv("TSA_PROCFS", procfs, 1);
	snprintf(src, sizeof(src), "%s/golden/in/b/all", testdir);
	snprintf(path, sizeof(path), "%s/all", dir);
	copy_without(src, path, "no such pid");
	snprintf(hsrc, sizeof(hsrc), "%s/golden/in/b/hist", testdir);
	snprintf(hpath, sizeof(hpath), "%s/hist", dir);
	copy_without(hsrc, hpath, "no such pid");

	m1 = export(dir, "--prometheus", state, &rc, &err);
	ok(rc == 0 && sample_of(m1, usr) == 2.25,
	   "--state, a first run: root's USR 2.25 s, as without (saw %d, "
	   "%.9f; %s)", rc, sample_of(m1, usr), err);
	free(err);

	copy_without(src, path, "300");
	copy_without(hsrc, hpath, "300");
	m2 = export(dir, "--prometheus", state, &rc, &err);
	ok(rc == 0 && sample_of(m2, usr) == 2.25 &&
	   sample_of(m2, slp) == 14.10075,
	   "process 300 exits: root keeps USR 2.25 s, SLP 14.10075 s "
	   "(saw %d, %.9f, %.9f)", rc, sample_of(m2, usr),
	   sample_of(m2, slp));
	ok(counters_kept(m1, m2, "tsa_user_", why, sizeof(why)),
	   "process 300 exits: every tsa_user_ counter as high as the run "
	   "before (%s)", why);
	free(err);
	plain = export(dir, "--prometheus", NULL, &rc, &err);
	ok(sample_of(plain, usr) == 2.05,
	   "without --state: the live processes alone, root's USR 2.05 s "
	   "(saw %.9f)", sample_of(plain, usr));
	free(err);

	run_on(path, 100000000, 100);
	m3 = export(dir, "--prometheus", state, &rc, &err);
	ok(rc == 0 && sample_of(m3, usr) == 2.35,
	   "0.1 s later, thread 100 ran it: root's USR 2.35 s, what 300 "
	   "left and what 100 has (saw %.9f)", sample_of(m3, usr));
	free(err);
	om = export(dir, "--openmetrics", state, &rc, &err);
	ok(rc == 0 && sample_of(om, usr) == 2.35 &&
	   strstr(om, "\n# EOF\n"),
	   "--openmetrics with the same file: USR 2.35 s (saw %.9f)",
	   sample_of(om, usr));
	free(err);
	free(om);

	/* Another boot: the module's counts started again, so do these. */
	set_boot(procfs, "boot-2\n");
	om = export(dir, "--prometheus", state, &rc, &err);
	ok(rc == 0 && sample_of(om, usr) == 2.15 && !*err,
	   "another boot_id: the counts start again, root's USR the live "
	   "2.15 s (saw %d, %.9f, '%s')", rc, sample_of(om, usr), err);
	free(err);
	free(om);

	put(state, "garbage\n");
	om = export(dir, "--prometheus", state, &rc, &err);
	ok(rc == 0 && sample_of(om, usr) == 2.15 &&
	   strstr(err, "not a tsa-ledger 1 file; its counters start again"),
	   "a damaged state file: said, the counts start again, exit 0 "
	   "(saw %d, %.9f, '%s')", rc, sample_of(om, usr), err);
	free(err);
	free(om);
	om = export(dir, "--prometheus", state, &rc, &err);
	saved = slurp(state);
	ok(rc == 0 && !*err && strstr(saved, "tsa-ledger 1\n"),
	   "and the next run has a good one (saw %d, '%s')", rc, err);
	free(saved);
	free(err);
	free(om);

	/* Root's last process (100, with the LAT stays) exits: it stays. */
	copy_without(path, path, "100");
	copy_without(hpath, hpath, "100");
	om = export(dir, "--prometheus", state, &rc, &err);
	ok(rc == 0 && sample_of(om, usr) == 2.15 &&
	   sample_of(om, "tsa_user_stay_seconds_count{user=\"root\",state=\"LAT\"}") == 24 &&
	   sample_of(om, "tsa_user_stay_seconds_bucket{user=\"root\",state=\"LAT\",le=\"+Inf\"}") == 24 &&
	   sample_of(om, "tsa_user_threads{user=\"root\"}") == 0,
	   "root's last process exits: root stays, USR 2.15 s, its 24 LAT "
	   "stays (count and +Inf), 0 threads (saw %.9f, %.0f, %.0f, %.0f)",
	   sample_of(om, usr),
	   sample_of(om, "tsa_user_stay_seconds_count{user=\"root\",state=\"LAT\"}"),
	   sample_of(om, "tsa_user_stay_seconds_bucket{user=\"root\",state=\"LAT\",le=\"+Inf\"}"),
	   sample_of(om, "tsa_user_threads{user=\"root\"}"));
	free(err);
	free(om);

	test_pid_reused(src);

	rc = run(dir, (const char *[]){ "--state", state, NULL }, &om, &err, 0);
	ok(rc == 1 && strstr(err, "--state keeps an export's counters"),
	   "--state without an export: a usage error, exit 1 (saw %d, '%.100s')",
	   rc, err);
	free(err);
	free(om);

	free(m1);
	free(m2);
	free(m3);
	free(plain);
	fx_done(tap_failed);
	return tap_done();
}
