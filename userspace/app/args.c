// SPDX-License-Identifier: GPL-2.0
/*
 * app/args.c - what the user asked: the usage text, the options
 * (getopt_long) and each mode's checks of them, into struct options.
 * A mistake is a usage error (exit 2) with the usage text.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"
#include "parse.h"
#include "group.h"
#include "hist.h"
#include "metrics.h"
#include "cols.h"
#include "sort.h"
#include "record.h"
#include "args.h"

#ifndef TSA_PRSTAT_VERSION
#define TSA_PRSTAT_VERSION "unknown"
#endif

static void usage(FILE *f, int code)
{
	fprintf(f,
"Usage:\ttsa-prstat [-cLmvAWyHw] [--tsa] [--syscalls] [--hist] [--wakers]\n"
"\t[--chain tid] [--json | --csv] [-o col,...] [-p pidlist] [--draw]\n"
"\t[--group pid|cgroup|user|comm]\n"
"\t[-s key | -S key] [-n ntop[,nbottom]] [-a | -t] [-d u|d]\n"
"\t[-u euidlist] [-U uidlist] [interval [count]]\n"
"\ttsa-prstat --prometheus | --openmetrics [--group pid|cgroup|user|comm]\n"
"\t[-p pidlist] [--state file]\n"
"\ttsa-prstat --save file\n"
"\ttsa-prstat --compare a b [--group by] [-AHw] [--chain tid] [--json]\n"
"\t[-p pidlist] [-s key | -S key] [-n ntop]\n"
"\t  (a, b: captures, or DIR@TIME: a recording at a time)\n"
"\ttsa-prstat --record dir [--interval secs] [--keep age] [--max-size size]\n"
"\ttsa-prstat --replay dir [--from time] [--to time] [--summary]\n"
"\t[-LAyw] [--chain tid] [--json] [--group by] [-p pidlist]\n"
"\t[-s key | -S key] [-n ntop]\n"
"\ttsa-prstat --folded | --svg file | --perfetto file [-Lw] [--group by]\n"
"\t[-p pidlist] [-s key] [-n ntop] (--replay dir [--from time] [--to time] |\n"
"\t --compare a b | [interval [count]])\n"
"\ttsa-prstat --calibrate[=cpulist]\n"
"\ttsa-prstat -h | --help | --version\n"
"\n"
"  -m, -v      microstates in Solaris prstat -m columns (the default)\n"
"  -A, --tsa   TSA view: EXEC RUN APG SLP LCK IDL STP\n"
"  -y, --syscalls\n"
"              system-call view: the calls the time went to, with\n"
"              PCT CALLS AVG MAX and their SYS LAT FLT APG LCK KLK IOW\n"
"              IDL SLP split (needs the module's calls=N, syscalls=1)\n"
"  -H, --hist  distributions view: per thread (-L), process or --group\n"
"              and state (LAT, STP and each sleep), the stays that\n"
"              ended: COUNT TIME P50 P90 P99 MAX (LAT on a default\n"
"              load, hist=lat; every state with hist=all; none with\n"
"              hist=0); with --draw, each line's buckets as bars\n"
"  -w, --wakers\n"
"              wakers view: per thread (-L), process or --group, who\n"
"              ended its stays asleep and stopped (a thread, an\n"
"              interrupt, a softirq, a timer) and in which state:\n"
"              WAKEUPS OFF%% TIME AVG MAX and LAT/WK, the run-queue\n"
"              wait after each wakeup (needs the module's wakers=1,\n"
"              the default)\n"
"  --chain tid who woke whom from thread tid: its top waker, that\n"
"              waker's, and so on to an interrupt or a timer (-n: at\n"
"              most ntop steps, 8 by default); once, unless an\n"
"              interval is given\n"
"  -L          one line per thread instead of per process\n"
"  -c          print each report below the previous one; never redraw\n"
"  -p pidlist  only these processes (comma or space separated)\n"
"  -n ntop     at most ntop lines per report (with -a, nbottom user\n"
"              lines)\n"
"  -a          the users' lines after the processes' (prstat -a)\n"
"  -t          one line per user (prstat -t; --group user)\n"
"  -u euidlist, -U uidlist\n"
"              only the processes of these users (names or numbers);\n"
"              tsa keeps one uid, the real one: both match it\n"
"  -d u|d      before each report its time: u, seconds since the\n"
"              epoch; d, as date(1) prints it\n"
"  -s key      sort descending by key; -S key: ascending.  Keys: cpu\n"
"              time vcx icx scl sig, -m: usr sys trp tfl dfl lck slp lat,\n"
"              TSA: exec run apg slp lck idl stp wait; -y has its own:\n"
"              pct calls avg max sys lat flt apg lck klk iow idl slp\n"
"  -W          truncate long user names, and call names with -y\n"
"              (always, on a terminal)\n"
"  -o col,...  the -m, -A or -y table's columns, in order, like ps -o\n"
"              (pid,comm,usr,sys,lat); -o help lists them\n"
"  --json      one JSON object per line and interval (docs/json.md)\n"
"  --csv       the -m, -A or -y lines (or --group's) as CSV: a header of\n"
"              column names, one line per row, numbers in ns or counts,\n"
"              never scaled\n"
"  --prometheus, --openmetrics\n"
"              one snapshot's lifetime state seconds and counters as\n"
"              Prometheus text (node_exporter's textfile collector) or\n"
"              OpenMetrics, per process, then exit\n"
"  --state file\n"
"              with an export: what departed processes left in each\n"
"              group, kept in file from run to run, so that no\n"
"              counter goes down when a process exits\n"
"  --save file\n"
"              write one capture of every visible thread and process\n"
"              (with each process's cgroup) to file ('-': stdout)\n"
"  --compare a b\n"
"              what happened between two captures, per process or\n"
"              --group, sorted by the time in the -s state\n"
"  --record dir\n"
"              the flight recorder: every --interval seconds (10), what\n"
"              changed for every visible thread and process, compressed,\n"
"              into dir/tsa-YYYYMMDD-HH.rec (an hour a file, UTC); --keep\n"
"              age (7d, 12h) and --max-size size (2G, 500M) remove the\n"
"              oldest files\n"
"  --replay dir\n"
"              the reports of a recording, as they would have been live,\n"
"              from --from to --to (2026-11-26 03:00, 2026-11-26:\n"
"              its midnight, 03:00, -2h, @epoch; local time), or with\n"
"              --summary one report over that window\n"
"  --folded    the window's time as folded stacks (flamegraph.pl,\n"
"              inferno, speedscope): process;thread;STATE;call ns, with\n"
"              -w the waker as the last frame (NAME_[w]); of a\n"
"              recording's window, a compare, or a live run (interval\n"
"              seconds, count intervals or until ^C, then drawn)\n"
"  --svg file  the same windows as one SVG (no script): state bars per\n"
"              line and time, pages of 20 lines (-n, 40), top wakers\n"
"              and system calls, the LAT heat map\n"
"  --perfetto file\n"
"              the same windows as a Perfetto trace (ui.perfetto.dev):\n"
"              a slice per line and interval, counters, wakers' flows\n"
"  --calibrate measure on each CPU what a system call and a page fault\n"
"              cost beyond tsa's hooks (the kernel's entry and exit\n"
"              paths) and have tsa.ko charge it to SYS (root); with\n"
"              =cpulist (0,2-3) those CPUs only\n"
"  --group by  one line per cgroup (v2 path), user or comm (thread\n"
"              name, trailing number folded: worker-{N}) instead of per\n"
"              process (pid); exited threads count in their group\n"
"\n"
"On a terminal, without -c: keys q quit, s S > < sort key, r reverse,\n"
"L threads, m A y view, g group, p pid, / name, space pause, h help;\n"
"with -w: f follow a thread, then its top waker, b back.\n"
"\n"
"Examples:\n"
"  tsa-prstat -mL 1            # Solaris prstat -mL, every second\n"
"  tsa-prstat -A -L -p 4240 1  # TSA states of one process's threads\n"
"  tsa-prstat -yL -p 4240 1    # which system calls its threads wait in\n"
"  tsa-prstat -HL -p 4240 1    # its threads' waits for a CPU, p99 and max\n"
"  tsa-prstat -HL --draw -p 4240 -n 1 1 1  # its busiest thread's, drawn\n"
"  tsa-prstat -wL -p 4240 1    # who woke its threads: the lock holders\n"
"  tsa-prstat --chain 4242     # 4242 waited on 4241, who waited on disk\n"
"  tsa-prstat --json -L 5 12   # a minute of JSON lines\n"
"  tsa-prstat --group cgroup -A 5  # TSA states per container or unit\n"
"  tsa-prstat --prometheus --group cgroup > tsa.prom  # for node_exporter\n"
"  tsa-prstat --save before; ...; tsa-prstat --save after\n"
"  tsa-prstat --compare before after --group comm -s lck\n"
"  tsa-prstat --record /var/log/tsa --keep 7d --max-size 2G\n"
"  tsa-prstat --replay /var/log/tsa --from 03:00 --to 03:10 -L\n"
"\n"
"Reads $TSA_PROC_DIR/all (default /proc/tsa/all), with -y calls, with\n"
"-H hist, with -w wakers.\n"
"See tsa-prstat(8).\n");
	exit(code);
}

/* One line, and "Try 'tsa-prstat --help'" (die() adds it): exit 1. */
static void bad_usage(const char *fmt, const char *arg)
{
	char msg[1024];

	snprintf(msg, sizeof(msg), fmt, arg);
	die(EXIT_USAGE, "%s", msg);
}

static long parse_long(const char *s, long min, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		bad_usage(what, s);
	return v;
}

static void parse_pids(struct options *o, const char *arg)
{
	struct show *sh = &o->show;
	char bad[256];

	if (parse_pidlist(arg, &sh->pids, &sh->npids, bad, sizeof(bad)))
		bad_usage("invalid argument for -p: '%s'", bad);
}

static void parse_n(struct options *o, const char *arg)
{
	char *copy = strdup(arg), *comma;

	if (!copy)
		die(EXIT_BADDATA, "out of memory");
	comma = strchr(copy, ',');
	if (comma) {
		*comma = '\0';
		o->nbottom = parse_long(comma + 1, 1,
					"invalid argument for -n: '%s'");
	}
	o->show.ntop = parse_long(copy, 1, "invalid argument for -n: '%s'");
	free(copy);
}

/*
 * The export is one snapshot's lifetime numbers, per process or group:
 * no interval, no view, and no per-thread series (their number is not
 * bounded: threads come and go, each would be a series of its own).
 */
static void check_metrics_args(const struct options *o, int argc,
			       int nmetrics, int view)
{
	if (nmetrics > 1)
		bad_usage("%s", "--prometheus and --openmetrics: choose one");
	if (o->show.lwps)
		bad_usage("%s", "-L: the export has no per-thread series "
			  "(unbounded); use --group comm");
	if (view || o->show.json)
		bad_usage("%s", "--prometheus and --openmetrics show no view; "
			  "drop -A, -y and --json");
	if (optind < argc)
		bad_usage("%s", "--prometheus and --openmetrics take one "
			  "snapshot: no interval or count");
}

/*
 * -o and --csv are the -m, -A and -y reports' (view/cols.c): of
 * processes, threads or (--csv) groups, live or replayed; not other
 * views or modes.
 */
static void check_cols(struct options *o)
{
	struct show *sh = &o->show;
	struct colset set;
	char why[160];

	if (!sh->cols[0] && !sh->csv)
		return;
	if (sh->csv && sh->json)
		bad_usage("%s", "--csv and --json: choose one");
	if (sh->cols[0] && sh->json)
		bad_usage("%s", "-o chooses the table's columns: --json has "
			  "them all (docs/json.md)");
	if (sh->view == VIEW_HIST || sh->view == VIEW_WAKERS)
		bad_usage("%s", "-o and --csv are the -m, -A and -y views': "
			  "not with -H, -w or --chain");
	if (o->compare[0] || o->save || o->metrics || o->record ||
	    o->calibrate)
		bad_usage("%s", "-o and --csv show processes, threads or "
			  "groups, live or replayed: not with --compare or "
			  "another mode");
	if (sh->group_by > GROUP_PID && sh->view == VIEW_CALLS)
		bad_usage("%s", "-o and --csv with --group: the -m and -A "
			  "views' groups, not -y's");
	if (sh->group_by > GROUP_PID && !sh->csv)
		bad_usage("%s", "-o with --group: only with --csv (a group "
			  "report's table has the view's columns)");
	if (sh->cols[0] &&
	    col_parse(sh->cols, sh->view, (sh->csv ? COLP_CSV : 0) |
		      (sh->group_by > GROUP_PID ? COLP_GROUP : 0), &set, why,
		      sizeof(why)) < 0)
		bad_usage("%s", why);
}

/*
 * prstat's -a (users after the processes), -t (users only), -u and -U
 * (only these users': tsa keeps one uid per thread, the real one, so
 * both match it; every view, live or replayed, not --chain) and -d (a
 * time before each report, live: the main views, -H and -w).
 */
static void check_prstat_args(struct options *o, int other_mode)
{
	struct show *sh = &o->show;
	int hw = sh->view == VIEW_HIST || sh->view == VIEW_WAKERS;

	if (o->users && o->totals)
		bad_usage("%s", "-a and -t: choose one (-a: processes and "
			  "users, -t: users)");
	if ((o->users || o->totals) &&
	    (other_mode || hw || sh->view == VIEW_CALLS || sh->group_by >= 0))
		bad_usage("%s", o->users ? "-a shows processes, then users: "
			  "not with -y, -H, -w, --group or another mode" :
			  "-t shows a line per user: not with -y, -H, -w, "
			  "--group or another mode");
	if (o->totals && sh->lwps)
		bad_usage("%s", "-t shows a line per user: not with -L");
	if ((o->neuids || o->nruids) && (other_mode || o->chain))
		bad_usage("%s", "-u and -U choose the processes of a view, "
			  "live or replayed: not with --chain (it follows "
			  "threads) or another mode");
	if (o->stamp && (other_mode || o->replay || sh->json))
		bad_usage("%s", "-d puts the time above each live report "
			  "(a replay's have theirs; --json has \"ts\"): not "
			  "with --json or another mode");
	if (o->totals)
		sh->group_by = GROUP_USER;
}

/*
 * --folded, --svg, --perfetto: pictures of a window (a recording's, a
 * compare's or a live run's) of the -m states' lines, -p, -L, --group,
 * -s, -n and -w choosing them; no other view, table option or mode.
 */
static void check_picture_args(struct options *o, int other_view)
{
	const struct show *sh = &o->show;

	if (!o->folded && !o->svg && !o->perfetto)
		return;
	if ((o->folded || o->perfetto) && o->svg && !strcmp(o->svg, "-"))
		bad_usage("%s", "--svg - and --folded or --perfetto: only one "
			  "of them on stdout");
	if (o->folded && o->perfetto && !strcmp(o->perfetto, "-"))
		bad_usage("%s", "--folded writes to stdout: --perfetto FILE "
			  "then, not -");
	if (o->perfetto && !o->perfetto[0])
		bad_usage("%s", "--perfetto needs a file name ('-': stdout)");
	if (o->save || o->metrics || o->record || o->calibrate)
		bad_usage("%s", "--folded, --svg and --perfetto draw a "
			  "recording, a compare or a live run: not with "
			  "--save, --record or an export");
	if (other_view || sh->json || sh->csv || sh->cols[0] || sh->draw)
		bad_usage("%s", "--folded, --svg and --perfetto draw the "
			  "states (and -w's wakers): not with -A, -y, -H, "
			  "--chain, --json, --csv, -o or --draw");
	if (o->users || o->totals || o->neuids || o->nruids || o->stamp)
		bad_usage("%s", "--folded, --svg and --perfetto choose their "
			  "lines with -p, -L, --group, -s and -n: not -a, -t, "
			  "-u, -U or -d");
	if (o->svg && !o->svg[0])
		bad_usage("%s", "--svg needs a file name ('-': stdout)");
}

enum { OPT_JSON = 256, OPT_VERSION, OPT_PROM, OPT_OPENMETRICS, OPT_GROUP,
       OPT_SAVE, OPT_COMPARE, OPT_CALIBRATE, OPT_RECORD, OPT_INTERVAL,
       OPT_KEEP, OPT_MAXSIZE, OPT_REPLAY, OPT_FROM, OPT_TO, OPT_SUMMARY,
       OPT_DRAW, OPT_CHAIN, OPT_STATE, OPT_CSV, OPT_FOLDED, OPT_SVG, OPT_PERFETTO };

static double parse_interval(const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 1e6)
		bad_usage("invalid interval '%s'", arg);
	return v;
}

/* The recorder's and the replay's options, checked. */
static void check_record_args(struct options *o, int argc, char **argv,
			      const char *interval, const char *from,
			      const char *to, int view_opts)
{
	time_t now = time(NULL);

	if ((o->keep_secs || o->max_bytes) && !o->record)
		bad_usage("%s", "--keep and --max-size are the recorder's: "
			  "with --record");
	if (interval && !o->record)
		bad_usage("%s", "--interval is the recorder's: with --record "
			  "(live reports take it as an operand)");
	if ((from || to || o->summary) && !o->replay)
		bad_usage("%s", "--from, --to and --summary choose a "
			  "recording's window: with --replay");
	o->from = o->to = -1;
	if (o->record) {
		if (view_opts)
			bad_usage("%s", "--record keeps every visible thread "
				  "and process: no view, -p or --group (the "
				  "replay chooses them)");
		if (interval)
			o->interval = parse_interval(interval);
		else if (optind < argc)
			o->interval = parse_interval(argv[optind++]);
		else
			o->interval = 10;
		if (optind < argc)
			o->count = parse_long(argv[optind++], 1,
					      "invalid counter value '%s'");
		if (optind < argc)
			bad_usage("unexpected argument '%s'", argv[optind]);
	}
	if (o->replay) {
		if (optind < argc)
			bad_usage("%s", "--replay: its reports are the "
				  "recording's intervals (no interval or count)");
		if (from && (o->from = parse_when(from, now)) < 0)
			bad_usage("invalid time for --from: '%s' (YYYY-MM-DD "
				  "[HH:MM[:SS]], HH:MM[:SS], -2h or @SECONDS)",
				  from);
		if (to && (o->to = parse_when(to, now)) < 0)
			bad_usage("invalid time for --to: '%s' (YYYY-MM-DD "
				  "[HH:MM[:SS]], HH:MM[:SS], -2h or @SECONDS)",
				  to);
		if (o->from >= 0 && o->to >= 0 && o->to < o->from)
			bad_usage("%s", "--to is before --from");
	}
}

void parse_args(struct options *o, int argc, char **argv)
{
	struct show *sh = &o->show;
	static const struct option longopts[] = {
		{ "tsa", no_argument, NULL, 'A' },
		{ "syscalls", no_argument, NULL, 'y' },
		{ "hist", no_argument, NULL, 'H' },
		{ "wakers", no_argument, NULL, 'w' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "prometheus", no_argument, NULL, OPT_PROM },
		{ "openmetrics", no_argument, NULL, OPT_OPENMETRICS },
		{ "state", required_argument, NULL, OPT_STATE },
		{ "group", required_argument, NULL, OPT_GROUP },
		{ "save", required_argument, NULL, OPT_SAVE },
		{ "compare", required_argument, NULL, OPT_COMPARE },
		{ "calibrate", optional_argument, NULL, OPT_CALIBRATE },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "max-size", required_argument, NULL, OPT_MAXSIZE },
		{ "replay", required_argument, NULL, OPT_REPLAY },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "draw", no_argument, NULL, OPT_DRAW },
		{ "chain", required_argument, NULL, OPT_CHAIN },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "perfetto", required_argument, NULL, OPT_PERFETTO },
		{ NULL, 0, NULL, 0 },
	};
	const char *sortk = NULL, *interval = NULL, *from = NULL, *to = NULL;
	int tsa = 0, calls = 0, hist = 0, wakers = 0, nmetrics = 0;
	char why[128];
	char *end;
	int c, have_interval = 0;

	memset(o, 0, sizeof(*o));
	sh->sort_order = -1;
	o->interval = 5;
	o->count = -1;
	o->proc_dir = getenv("TSA_PROC_DIR");
	if (!o->proc_dir || !*o->proc_dir)
		o->proc_dir = "/proc/tsa";
	o->procfs = getenv("TSA_PROCFS");
	if (!o->procfs || !*o->procfs)
		o->procfs = "/proc";
	sh->group_by = -1;

	opterr = 0;	/* our own messages, named like the others */
	while ((c = getopt_long(argc, argv, ":AcHLmvWwyhp:n:o:s:S:ad:tu:U:", longopts,
				NULL)) != -1) {
		char opt[2] = { (char)optopt, '\0' };
		int shortopt = optopt > 0 && optopt < 256 &&
			       strncmp(argv[optind - 1], "--", 2);

		switch (c) {
		case ':':
			bad_usage(shortopt ? "option requires an argument -- '%s'"
				  : "option '%s' requires an argument",
				  shortopt ? opt : argv[optind - 1]);
			break;
		case '?':
			bad_usage(shortopt ? "invalid option -- '%s'"
				  : "unrecognized option '%s'",
				  shortopt ? opt : argv[optind - 1]);
			break;
		case 'A':
			sh->view = VIEW_TSA;
			tsa = 1;
			break;
		case 'y':
			sh->view = VIEW_CALLS;
			calls = 1;
			break;
		case 'H':
			sh->view = VIEW_HIST;
			hist = 1;
			break;
		case 'w':
			sh->view = VIEW_WAKERS;
			wakers = 1;
			break;
		case OPT_CHAIN:
			o->chain = (uint64_t)parse_long(optarg, 1,
							"invalid thread id '%s'");
			sh->view = VIEW_WAKERS;
			sh->lwps = 1;
			wakers = 1;
			break;
		case 'c':
			o->no_clear = 1;
			break;
		case 'L':
			sh->lwps = 1;
			break;
		case 'm':
		case 'v':
			break;	/* microstates are all there is */
		case 'W':
			sh->trunc = 1;
			break;
		case 'p':
			parse_pids(o, optarg);
			break;
		case 'n':
			parse_n(o, optarg);
			break;
		case 's':
		case 'S':
			sh->sort_order = c == 's' ? -1 : 1;
			sortk = optarg;
			break;
		case OPT_JSON:
			sh->json = 1;
			break;
		case OPT_CSV:
			sh->csv = 1;
			break;
		case 'o':
			if (!strcmp(optarg, "help")) {
				col_help(stdout);
				exit(0);
			}
			if (strlen(optarg) >= sizeof(sh->cols))
				bad_usage("%s", "-o: the list is too long");
			strcpy(sh->cols, optarg);
			break;
		case OPT_PROM:
		case OPT_OPENMETRICS:
			o->metrics = 1 + (c == OPT_OPENMETRICS ?
					  METRICS_OPENMETRICS :
					  METRICS_PROMETHEUS);
			nmetrics++;
			break;
		case OPT_STATE:
			o->state = optarg;
			break;
		case OPT_GROUP:
			sh->group_by = group_by_lookup(optarg);
			if (sh->group_by < 0)
				bad_usage("invalid argument for --group: '%s' "
					  "(pid, cgroup, user or comm)",
					  optarg);
			break;
		case OPT_SAVE:
			o->save = optarg;
			break;
		case OPT_COMPARE:
			o->compare[0] = optarg;
			break;
		case OPT_DRAW:
			sh->draw = 1;
			break;
		case OPT_CALIBRATE:
			o->calibrate = 1;
			o->calibrate_cpus = optarg;
			break;
		case OPT_RECORD:
			o->record = optarg;
			break;
		case OPT_INTERVAL:
			interval = optarg;
			break;
		case OPT_KEEP:
			o->keep_secs = parse_age(optarg);
			if (o->keep_secs <= 0)
				bad_usage("invalid argument for --keep: '%s' "
					  "(7d, 12h, 90m, 3600s)", optarg);
			break;
		case OPT_MAXSIZE:
			o->max_bytes = parse_size(optarg);
			if (o->max_bytes <= 0)
				bad_usage("invalid argument for --max-size: "
					  "'%s' (2G, 500M, 64K, bytes)", optarg);
			break;
		case OPT_REPLAY:
			o->replay = optarg;
			break;
		case OPT_FROM:
			from = optarg;
			break;
		case OPT_TO:
			to = optarg;
			break;
		case OPT_SUMMARY:
			o->summary = 1;
			break;
		case OPT_FOLDED:
			o->folded = 1;
			break;
		case OPT_SVG:
			o->svg = optarg;
			break;
		case OPT_PERFETTO:
			o->perfetto = optarg;
			break;
		/* prstat's -a -t -u -U -d, checked in check_prstat_args(). */
		case 'a':
			o->users = 1;
			break;
		case 't':
			o->totals = 1;
			break;
		case 'u':
		case 'U':
			if (parse_userlist(optarg, c == 'u' ? &o->euids :
					   &o->ruids, c == 'u' ? &o->neuids :
					   &o->nruids, why, sizeof(why)))
				bad_usage(c == 'u' ? "invalid user for -u: "
					  "'%s'" : "invalid user for -U: '%s'",
					  why);
			break;
		case 'd':
			if (strcmp(optarg, "u") && strcmp(optarg, "d"))
				bad_usage("invalid argument for -d: '%s' (u: "
					  "seconds since the epoch, d: date)",
					  optarg);
			o->stamp = optarg[0];
			break;
		case OPT_VERSION:
			printf("tsa-prstat %s\n", TSA_PRSTAT_VERSION);
			exit(0);
		case 'h':
			usage(stdout, 0);
			break;
		default:
			bad_usage("invalid option -- '%s'", opt);
		}
	}
	if (o->calibrate && argc != 2)
		bad_usage("%s", "--calibrate measures and writes the "
			  "calibration: no other option or operand");
	if ((o->save != NULL) + (o->compare[0] != NULL) + !!o->metrics +
	    (o->record != NULL) + (o->replay != NULL) > 1)
		bad_usage("%s", "--save, --compare, --record, --replay and an "
			  "export are modes of their own; choose one");
	check_record_args(o, argc, argv, interval, from, to,
			  tsa || calls || sh->lwps || sh->json || sh->npids ||
			  sh->group_by >= 0 || sortk || sh->ntop ||
			  o->no_clear);
	if (o->record)
		optind = argc;
	if (o->save && (sh->lwps || tsa || calls || sh->json || sh->npids ||
			sh->group_by >= 0 || optind < argc))
		bad_usage("%s", "--save writes every visible thread once: no "
			  "other option or operand");
	if (o->compare[0]) {
		if (optind >= argc)
			bad_usage("%s", "--compare needs two captures: "
				  "--compare a b");
		o->compare[1] = argv[optind++];
		if ((sh->lwps && !wakers && !o->folded && !o->svg &&
		     !o->perfetto) || calls)
			bad_usage("%s", "--compare shows processes or groups "
				  "(and threads with -w): not with -L or -y");
	}
	check_prstat_args(o, o->save || o->compare[0] || o->metrics ||
			  o->record || o->calibrate);
	if (o->state && !o->metrics)
		bad_usage("%s", "--state keeps an export's counters from "
			  "going down: only with --prometheus or --openmetrics");
	if (o->metrics)
		check_metrics_args(o, argc, nmetrics, tsa || calls);
	else if (sh->group_by >= 0 && (sh->lwps || calls))
		bad_usage("%s", "--group shows groups: not with -L or -y");
	if (optind < argc) {
		errno = 0;
		have_interval = 1;
		o->interval = strtod(argv[optind], &end);
		if (errno || end == argv[optind] || *end ||
		    !(o->interval > 0) || o->interval > 1e6)
			bad_usage("invalid interval '%s'", argv[optind]);
		optind++;
	}
	if (optind < argc)
		o->count = parse_long(argv[optind++], 1,
				      "invalid counter value '%s'");
	if (optind < argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
	if (tsa + calls + hist + wakers > 1)
		bad_usage("%s", "-A (--tsa), -y (--syscalls), -H (--hist) and "
			  "-w (--wakers) are views of their own; choose one");
	if (wakers && (o->save || o->metrics || o->record || sortk))
		bad_usage("%s", "-w (--wakers) shows threads, processes or "
			  "groups, live, between two captures (--compare) or "
			  "in a recording (--replay), those most woken first: "
			  "not with -s, -S or another mode");
	if (o->chain && sh->group_by > GROUP_PID)
		bad_usage("%s", "--chain follows threads: not with --group");
	/* One chain, as ps prints once, unless an interval asks for more. */
	if (o->chain && !have_interval)
		o->count = 1;
	if (hist && (o->save || o->metrics || o->record || sortk))
		bad_usage("%s", "-H (--hist) shows threads, processes or "
			  "groups, live, between two captures (--compare) or "
			  "in a recording (--replay: its LAT), the most time "
			  "in the states shown first: not with -s, -S or "
			  "another mode");
	if (sh->draw && (!hist || sh->json))
		bad_usage("%s", "--draw draws the buckets of -H (--hist): "
			  "only with -H, not with --json");

	check_cols(o);
	check_picture_args(o, tsa || calls || hist || o->chain);

	if (hist || wakers) {
		sh->sort_key = 0;	/* its own order (the view's compute) */
	} else if (sortk) {
		sh->sort_key = sort_key_lookup(sortk, sh->view, why,
					       sizeof(why));
		if (sh->sort_key < 0)
			bad_usage("%s", why);
	} else {
		sh->sort_key = sort_default_key(sh->view);
	}
}
