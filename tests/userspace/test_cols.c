// SPDX-License-Identifier: GPL-2.0
/*
 * test_cols.c - one definition per column (issue 62), end to end: the
 * binary on golden/'s inputs.
 *
 *   -o: columns by name, in order; every column -o help lists selects
 *       alone with the header it lists, and every sort key it marks
 *       sorts; a bad name is one line and "Try 'tsa-prstat --help'".
 *   --csv: read back by python3's csv module (fx/check_cols.py), each
 *       cell equal to the --json line's number for it; names with a
 *       comma or a quote survive.
 *   JSON: every view's objects begin with "schema":1, every key is in
 *       docs/json.md with one type; -w and --chain name a waker alike;
 *       an unknown name is null.
 *
 * No product code linked: it runs tsa-prstat and reads what it wrote.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fx/run.h"
#include "tap.h"

static char bin[4096], doc[4096], checker[4096];
static int have_python;

static const char try_help[] =
	"Try 'tsa-prstat --help' for more information.\n";

/* @s on one line for a test's message: line ends as '|', cut at 300. */
static const char *oneline(const char *s)
{
	static char buf[4][304];
	static int k;
	char *b = buf[k++ % 4];
	size_t i;

	for (i = 0; s && s[i] && i < 300; i++)
		b[i] = s[i] == '\n' ? '|' : s[i];
	b[i] = '\0';
	return b;
}

/* in/a copied to tmp/@name, with @from replaced by @to in @file. */
static const char *copy_a(const char *name, const char *file,
			  const char *from, const char *to)
{
	static const char *const files[] = { "all", "calls", "hist",
					     "wakers" };
	static char dir[600];
	char path[700];
	size_t i;

	snprintf(dir, sizeof(dir), "%s", mkdir_in_tmp(name));
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *s, *p, *t;

		snprintf(path, sizeof(path), "in/a/%s", files[i]);
		s = slurp(path);
		if (!strcmp(files[i], file) && (p = strstr(s, from))) {
			t = malloc(strlen(s) + strlen(to) + 1);
			if (!t)
				exit(2);
			sprintf(t, "%.*s%s%s", (int)(p - s), s, to,
				p + strlen(from));
			free(s);
			s = t;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		put(path, s);
		free(s);
	}
	return dir;
}

/* Run, keep stdout in tmp/@file too (for the checker); exit status. */
static int run_to(const char *dir, const char *const *args, const char *file,
		  char **out)
{
	char path[600], *err;
	int rc = run(dir, args, out, &err, 0);

	snprintf(path, sizeof(path), "%s/%s", tmp, file);
	put(path, *out);
	if (*err)
		printf("# stderr: %s", err);
	free(err);
	return rc;
}

/* python3 fx/check_cols.py ARGS: its exit status, its line printed. */
static int check(const char *args)
{
	static char cmd[16384];

	snprintf(cmd, sizeof(cmd), "cd %s && python3 %s %s > check.out; "
		 "r=$?; sed 's/^/# /' check.out; exit $r", tmp, checker, args);
	return system(cmd) == 0 ? 0 : 1;
}

static void test_select(void)
{
	char *out, *err, *line;
	int rc, rows = 0, bad = 0;

	rc = run("in/a", (const char *[]){ "-o", "lat,pid", "-L", "-c", "1",
		 "1", NULL }, &out, &err, 0);
	line = strchr(out, '\n');
	ok(rc == 0 && !strncmp(out, "LAT    PID\n", 11),
	   "-o lat,pid: the header is LAT and PID, in that order (exit %d, "
	   "saw '%.20s')", rc, oneline(out));
	for (; line && line[1] && strncmp(line + 1, "Total", 5);
	     line = strchr(line + 1, '\n')) {
		char a[16];
		unsigned pid;

		rows++;
		if (sscanf(line + 1, "%15s %u", a, &pid) != 2)
			bad++;
	}
	ok(rows == 5 && !bad, "-o lat,pid -L: 5 thread lines of two cells "
	   "(saw %d lines, %d not so)", rows, bad);
	free(out);
	free(err);

	rc = run("in/a", (const char *[]){ "-o", "pid,nosuch", "-c", "1",
		 "1", NULL }, &out, &err, 0);
	ok(rc == 1 && !*out, "-o pid,nosuch: a usage error, exit 1, nothing "
	   "on stdout (exit %d)", rc);
	is_str(err, "tsa-prstat: invalid column -- nosuch ('-o help' lists "
	       "them)\nTry 'tsa-prstat --help' for more information.\n",
	       "-o pid,nosuch: one line naming it, then Try --help");
	free(out);
	free(err);

	rc = run("in/a", (const char *[]){ "-o", "exec", "-c", "1", "1",
		 NULL }, &out, &err, 0);
	ok(rc == 1 && strstr(err, "column exec is not one of the -m view") &&
	   strstr(err, try_help) && count_str(err, "\n") == 2,
	   "-o exec without -A: not a -m column, two lines (exit %d: %s)",
	   rc, oneline(err));
	free(out);
	free(err);

	rc = run("in/a", (const char *[]){ "--json", "-o", "pid", "-c", "1",
		 "1", NULL }, &out, &err, 0);
	ok(rc == 1 && strstr(err, "-o chooses the table's columns") &&
	   count_str(err, "\n") == 2,
	   "-o with --json: refused in one line (exit %d: %s)", rc,
	   oneline(err));
	free(out);
	free(err);
}

/*
 * Every column -o help lists, alone, in each view it names: exit 0 and
 * its header; every sort key it marks (s) sorts.
 */
static void test_help_table(void)
{
	char *help, *err, *p, *out, *e2;
	static const char *const vname[3] = { "-m", "-A", "-y" };
	int rc, n[3] = { 0 }, bad[3] = { 0 }, keys = 0, badkeys = 0;
	char why[3][200] = { "", "", "" };

	rc = run("in/a", (const char *[]){ "-o", "help", NULL }, &help, &err,
		 0);
	ok(rc == 0 && strstr(help, "Columns of -o") &&
	   strstr(help, "Defaults: -m pid,user,usr,"),
	   "-o help: exit 0, the column list and the defaults (exit %d)", rc);
	for (p = strchr(help, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		char mark = p[1], name[32], hdr[32], views[16];
		int v;

		/* c and g: --csv's and --csv --group's only, below */
		if (sscanf(p + 2, " %31s %31s %15s", name, hdr, views) != 3 ||
		    !strcmp(name, "NAME") || (mark != 's' && mark != ' '))
			continue;
		if (strchr(name, '|'))
			*strchr(name, '|') = '\0';
		for (v = 0; v < 3; v++) {
			const char *view = vname[v];
			char *h;

			if (!strstr(views, view))	/* "-m,-A,-y" */
				continue;
			n[v]++;
			rc = run("in/a", (const char *[]){ view, "-L", "-o",
				 name, "-c", "1", "1", NULL }, &out, &e2, 0);
			h = out;
			while (*h == ' ')
				h++;
			if (rc || strncmp(h, hdr, strlen(hdr))) {
				bad[v]++;
				snprintf(why[v], sizeof(why[v]), "%s: exit %d, "
					 "'%.20s', want '%s'", name, rc,
					 oneline(h), hdr);
			}
			free(out);
			free(e2);
			if (mark != 's')
				continue;
			keys++;
			rc = run("in/a", (const char *[]){ view, "-s", name,
				 "-c", "1", "1", NULL }, &out, &e2, 0);
			if (rc) {
				badkeys++;
				snprintf(why[v], sizeof(why[v]), "-s %s: %s",
					 name, oneline(e2));
			}
			free(out);
			free(e2);
		}
	}
	ok(n[0] >= 20 && !bad[0], "-o help's -m columns: each alone prints "
	   "its header (%d columns, %d not: %s)", n[0], bad[0], why[0]);
	ok(n[1] >= 16 && !bad[1], "-o help's -A columns: each alone prints "
	   "its header (%d columns, %d not: %s)", n[1], bad[1], why[1]);
	ok(n[2] >= 20 && !bad[2], "-o help's -y columns: each alone prints "
	   "its header (%d columns, %d not: %s)", n[2], bad[2], why[2]);
	ok(keys >= 35 && !badkeys, "-o help's sort keys (s): -s takes each "
	   "in its view (%d, %d refused)", keys, badkeys);
	free(help);
	free(err);

	rc = run("in/a", (const char *[]){ "-o", "ts,pid", "-c", "1", "1",
		 NULL }, &out, &err, 0);
	ok(rc == 1 && strstr(err, "column ts is in --csv only"),
	   "-o ts without --csv: refused (exit %d: %s)", rc, oneline(err));
	free(out);
	free(err);
}

static void test_csv(void)
{
	const char *dir;
	char *out, *json;
	int rc;

	rc = run_to("in/a", (const char *[]){ "--csv", "-L", "-c", "1", "1",
		    NULL }, "m.csv", &out);
	ok(rc == 0 && !strncmp(out, "ts,pid,tid,user,comm,elapsed,usr,sys,"
	   "trp,tfl,dfl,lck,slp,lat,vcx,icx,scl,sig\n", 71),
	   "--csv -L: exit 0, the header names the default columns (%d: "
	   "%.72s)", rc, oneline(out));
	ok(count_str(out, "\n") == 6 && !strstr(out, "Total"),
	   "--csv -L: a header and 5 rows, no Total line (saw %d lines)",
	   count_str(out, "\n"));
	free(out);
	run_to("in/a", (const char *[]){ "--json", "-L", "-c", "1", "1",
	       NULL }, "m.json", &json);
	free(json);
	if (have_python)
		ok(check("csv m.csv m.json m") == 0, "--csv -L read back by "
		   "python3's csv module: every cell is --json -L's number");
	else
		skip("--csv: python3 not found");

	rc = run_to("in/a", (const char *[]){ "--csv", "-A", "-o",
		    "pid,nlwp,user,comm,process,elapsed,exec,run,apg,slp,lck,"
		    "idl,stp,wait,cpu,time,vcx,icx,scl,sig,ts", "-c", "1", "1",
		    NULL }, "a.csv", &out);
	ok(rc == 0 && !strncmp(out, "pid,nlwp,user,", 14),
	   "--csv -A -o (every -A column): exit 0, nlwp without -L (%d)", rc);
	free(out);
	run_to("in/a", (const char *[]){ "--json", "-A", "-c", "1", "1",
	       NULL }, "a.json", &json);
	free(json);
	if (have_python)
		ok(check("csv a.csv a.json A") == 0, "--csv -A: every cell of "
		   "every -A column is --json -A's number (ns, counts)");
	else
		skip("--csv -A: python3 not found");

	/* A name with a comma and quotes (thread 100's). */
	dir = copy_a("quoted", "all", " db server\n101 ",
		     " db, \"q\" srv\n101 ");
	rc = run_to(dir, (const char *[]){ "--csv", "-L", "-o",
		    "pid,tid,comm,process,elapsed,usr", "-c", "1", "1", NULL },
		    "q.csv", &out);
	ok(rc == 0 && strstr(out, "\n100,100,\"db, \"\"q\"\" srv\","
			     "\"db, \"\"q\"\" srv/100\","),
	   "--csv: a name with a comma and quotes is quoted, quotes doubled "
	   "(%d: %s)", rc, oneline(out));
	free(out);
	run_to(dir, (const char *[]){ "--json", "-L", "-c", "1", "1", NULL },
	       "q.json", &json);
	ok(strstr(json, "\"comm\":\"db, \\\"q\\\" srv\"") != NULL,
	   "--json -L: that name as it is (%.200s)", oneline(json));
	free(json);
	if (have_python)
		ok(check("csv q.csv q.json m") == 0, "--csv: python3's csv "
		   "module reads the quoted name back as --json has it");
	else
		skip("--csv quoting: python3 not found");

	/* -y: a line per call of a thread, its split in ns. */
	rc = run_to("in/a", (const char *[]){ "--csv", "-yL", "-c", "1",
		    "1", NULL }, "y.csv", &out);
	ok(rc == 0 && !strncmp(out, "ts,pid,tid,comm,call,elapsed,pct,calls,"
			       "avg,max,sys,", 50) &&
	   count_str(out, "\n") == 7,
	   "--csv -yL: exit 0, the call columns, 6 call lines (%d: %s)", rc,
	   oneline(out));
	free(out);
	run_to("in/a", (const char *[]){ "--json", "-yL", "-c", "1", "1",
	       NULL }, "y.json", &json);
	free(json);
	if (have_python)
		ok(check("csv y.csv y.json y") == 0, "--csv -yL: every cell is "
		   "--json -yL's number (pct: the call's ns; the split in ns)");
	else
		skip("--csv -y: python3 not found");

	/* Groups: by name, with their own columns. */
	rc = run_to("in/a", (const char *[]){ "--csv", "--group", "cgroup",
		    "-c", "1", "1", NULL }, "g.csv", &out);
	ok(rc == 0 && !strncmp(out, "ts,group,name,nproc,nlwp,elapsed,usr,",
			       37) && count_str(out, "\n") == 4,
	   "--csv --group cgroup: exit 0, group, name, nproc, nlwp, then the "
	   "view's columns; 3 groups (%d: %s)", rc, oneline(out));
	free(out);
	run_to("in/a", (const char *[]){ "--json", "--group", "cgroup", "-c",
	       "1", "1", NULL }, "g.json", &json);
	free(json);
	if (have_python)
		ok(check("csv g.csv g.json m") == 0, "--csv --group cgroup: "
		   "every cell is --json --group cgroup's number");
	else
		skip("--csv --group: python3 not found");
	rc = run_to("in/a", (const char *[]){ "--csv", "--group", "comm",
		    "-A", "-o", "name,nlwp,wait,exec,time", "-c", "1", "1",
		    NULL }, "gA.csv", &out);
	free(out);
	run_to("in/a", (const char *[]){ "--json", "--group", "comm", "-A",
	       "-c", "1", "1", NULL }, "gA.json", &json);
	free(json);
	if (have_python)
		ok(rc == 0 && check("csv gA.csv gA.json A") == 0,
		   "--csv --group comm -A -o name,nlwp,wait,exec,time: as "
		   "--json has them (exit %d)", rc);
	else
		skip("--csv --group -A: python3 not found");
	rc = run("in/a", (const char *[]){ "--csv", "--group", "comm", "-o",
		 "pid,usr", "-c", "1", "1", NULL }, &out, &json, 0);
	ok(rc == 1 && !*out && count_str(json, "\n") == 2 &&
	   strstr(json, "column pid is not one of --group's lines"),
	   "--csv --group -o pid: a group has no pid, one line (exit %d: %s)",
	   rc, oneline(json));
	free(out);
	free(json);
}

static void test_json_keys(void)
{
	static const char *const views[][12] = {
		{ "in/a", "--json", "-L", "-c", "1", "1" },
		{ "in/a", "--json", "-c", "1", "1" },
		{ "in/a", "--json", "-A", "--group", "user", "-c", "1", "1" },
		{ "in/a", "--json", "-yL", "-c", "1", "1" },
		{ "in/a", "--json", "-y", "-c", "1", "1" },
		{ "in/a", "--json", "-HL", "-c", "1", "1" },
		{ "in/a", "--json", "-H", "--group", "cgroup", "-c", "1", "1" },
		{ "in/a", "--json", "-wL", "-c", "1", "1" },
		{ "in/a", "--json", "-w", "--group", "comm", "-c", "1", "1" },
		{ "in/a", "--json", "--chain", "101", "-c", "1", "1" },
		{ "-", "--json", "--compare", "capture-3/a", "capture-3/b" },
		{ "-", "--json", "--compare", "capture-3/a", "capture-3/b",
		  "-wL" },
		{ "-", "--json", "--compare", "capture-3/a", "capture-3/b",
		  "-H" },
		{ "-", "--json", "--replay", "record-calls", "-yL" },
		{ "-", "--json", "--replay", "record-wakers", "--chain",
		  "102", "--summary" },
	};
	const size_t nv = sizeof(views) / sizeof(views[0]);
	char files[4000] = "", name[32], *out, *w, *c;
	const char *dir;
	size_t i;
	int bad = 0, rc;

	for (i = 0; i < nv; i++) {
		const char *dir = strcmp(views[i][0], "-") ? views[i][0] :
				  "/nonexistent";

		snprintf(name, sizeof(name), "v%zu.json", i);
		rc = run_to(dir, &views[i][1], name, &out);
		if (rc || !*out) {
			bad++;
			printf("# %s %s: exit %d, %zu bytes\n", views[i][1],
			       views[i][2], rc, strlen(out));
		}
		free(out);
		snprintf(files + strlen(files), sizeof(files) - strlen(files),
			 " %s", name);
	}
	ok(!bad, "JSON of %zu views: each runs and prints (%d did not)", nv,
	   bad);
	if (have_python) {
		char args[4200];

		snprintf(args, sizeof(args), "keys %s%s", doc, files);
		ok(check(args) == 0, "JSON of every view: \"schema\":1 first, "
		   "every key in docs/json.md, one type per key, no \"n\" or "
		   "\"max\"");
	} else {
		skip("JSON keys: python3 not found");
	}

	/* -w and --chain say the same waker the same way. */
	run("in/a", (const char *[]){ "--json", "-wL", "-p", "100", "-c",
	    "1", "1", NULL }, &w, &out, 0);
	free(out);
	run("in/a", (const char *[]){ "--json", "--chain", "101", "-c", "1",
	    "1", NULL }, &c, &out, 0);
	free(out);
	ok(strstr(w, "\"waker_tid\":100,\"waker_comm\":\"db server\",") &&
	   strstr(c, "\"waker_tid\":100,\"waker_comm\":\"db server\",") &&
	   !strstr(c, "\"waker\":"),
	   "-w and --chain: thread 101's waker as waker_tid and waker_comm, "
	   "no \"waker\" string (-w: %s; --chain: %s)", oneline(w),
	   oneline(c));
	free(w);
	free(c);

	/* A waker whose name is not known: null in both. */
	dir = copy_a("noname", "wakers", "thread 300 sleeper",
		     "thread 300 -");
	run(dir, (const char *[]){ "--json", "-wL", "-p", "300", "-c", "1",
	    "1", NULL }, &w, &out, 0);
	free(out);
	run(dir, (const char *[]){ "--json", "--chain", "301", "-c", "1",
	    "1", NULL }, &c, &out, 0);
	free(out);
	ok(strstr(w, "\"waker_tid\":300,\"waker_comm\":null,") &&
	   strstr(c, "\"waker_tid\":300,\"waker_comm\":null,") &&
	   !strstr(w, "\"-\"") && !strstr(c, "\"-\""),
	   "an unnamed waker: \"waker_comm\":null in -w and --chain, never "
	   "\"-\" (-w: %s; --chain: %s)", oneline(w), oneline(c));
	free(w);
	free(c);

	if (!getpwuid(4000000)) {
		run("in/a", (const char *[]){ "--json", "-L", "-p", "200",
		    "-c", "1", "1", NULL }, &w, &out, 0);
		free(out);
		ok(strstr(w, "\"uid\":4000000,\"user\":null,") != NULL,
		   "a uid without a name: \"user\":null, the uid beside it "
		   "(%.160s)", oneline(w));
		free(w);
	} else {
		skip("uid 4000000 has a name here");
	}
}

int main(void)
{
	if (fx_init())
		return 2;
	/* Run in golden/, as test_golden does: its paths, its inputs. */
	if (!realpath(prstat_bin, bin) || chdir(testdir) ||
	    !realpath("../../docs/json.md", doc) ||
	    !realpath("fx/check_cols.py", checker) || chdir("golden")) {
		printf("# %s, %s/golden or docs/json.md: %s\n", prstat_bin,
		       testdir, strerror(errno));
		return 2;
	}
	prstat_bin = bin;
	setenv("TZ", "UTC", 1);
	setenv("LC_ALL", "C", 1);
	setenv("TSA_PROCFS", "in/procfs", 1);
	have_python = system("python3 -c 'import csv, json' 2>/dev/null") == 0;
	test_select();
	test_help_table();
	test_csv();
	test_json_keys();
	fx_done(tap_failed);
	return tap_done();
}
